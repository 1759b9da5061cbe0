"""Hostile and broken input for ``inkcrawl validate``: the corpus in tests/corpus/.

tests/corpus/expected.json maps every corpus entry (a file, or a pack folder) to what
validating it must give:

- ``code``: the problem code that must be reported (a list: any one of them; ``null``: no
  errors at all);
- ``exit``: the exit code of ``inkcrawl validate``;
- optional ``pointer``, ``line``, ``column`` of that problem, ``message_contains`` (substrings
  of its message), ``absent_codes`` (codes that must not appear at all);
- optional ``xfail``: a known bug in inkcrawl, described; the case runs as a strict xfail, so
  fixing the bug turns it into an XPASS failure until the entry is removed.

Every case runs through the CLI in-process (``main(["validate", path, "--format", "json"])``);
no exception may escape and nothing may be written that looks like a traceback. Cases that
need symlinks or missing paths are built in ``tmp_path`` here. One run goes through a real
subprocess. The corpus bytes are exact (tests/corpus/.gitattributes turns off conversion).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inkcrawl.cli import main
from inkcrawl.problems import RULES_BY_CODE

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "corpus"
EXPECTED: dict[str, dict] = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
VALID_DUNGEON = CORPUS / "valid-tiny.json"


def _cases():
    for name, expected in sorted(EXPECTED.items()):
        marks = [pytest.mark.xfail(strict=True, reason=expected["xfail"])] if "xfail" in expected else []
        yield pytest.param(name, expected, id=name, marks=marks)


def run_validate(capsys, *args: str) -> tuple[int, list[dict], str]:
    """Run ``inkcrawl validate ARGS --format json`` in-process: (exit code, problems, stderr)."""
    code = main(["validate", *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out and "Traceback" not in err, err
    problems = json.loads(out)
    assert isinstance(problems, list)
    for item in problems:
        assert item["code"] in RULES_BY_CODE, item
        assert item["rule"] == RULES_BY_CODE[item["code"]].name
        assert item["severity"] in ("error", "warning")
        assert item["pointer"] == "" or item["pointer"].startswith("/"), item
        assert item["message"], item
    return code, problems, err


def _problem_file(name: str) -> str:
    path = CORPUS / name
    return str(path / "pack.json") if path.is_dir() else str(path)


def check_case(capsys, path: Path, expected: dict, problem_file: str) -> list[dict]:
    exit_code, problems, _ = run_validate(capsys, str(path))
    codes = expected["code"]
    if codes is None:
        errors = [p for p in problems if p["severity"] == "error"]
        assert not errors, errors
    else:
        codes = [codes] if isinstance(codes, str) else codes
        found = [p for p in problems if p["code"] in codes and p["file"] == problem_file]
        assert found, f"expected {codes} in {problem_file}, got {problems}"
        if "pointer" in expected:
            found = [p for p in found if p["pointer"] == expected["pointer"]]
            assert found, f"expected {codes} at pointer {expected['pointer']!r}, got {problems}"
        problem = found[0]
        if "line" in expected:
            assert (problem.get("line"), problem.get("column")) == (expected["line"], expected["column"]), problem
        for text in expected.get("message_contains", []):
            assert text in problem["message"], (text, problem)
    for code in expected.get("absent_codes", []):
        assert not [p for p in problems if p["code"] == code], problems
    assert exit_code == expected["exit"], (exit_code, problems)
    return problems


# -- the corpus ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), list(_cases()))
def test_corpus_case(capsys, name, expected):
    check_case(capsys, CORPUS / name, expected, _problem_file(name))


def test_expected_lists_every_corpus_entry():
    present = {p.name for p in CORPUS.iterdir() if p.name not in ("expected.json", ".gitattributes")}
    assert present == set(EXPECTED)
    for name, expected in EXPECTED.items():
        codes = expected["code"]
        for code in [codes] if isinstance(codes, str) else (codes or []):
            assert code in RULES_BY_CODE, (name, code)
        assert expected["exit"] in (0, 1, 2), name


def test_corpus_bytes_are_what_the_cases_claim():
    """Guard against an editor or git normalising the hostile bytes away."""
    assert (CORPUS / "empty.json").read_bytes() == b""
    assert (CORPUS / "bom-only.json").read_bytes() == b"\xef\xbb\xbf"
    assert b"\r\n" in (CORPUS / "whitespace-only.json").read_bytes()
    assert b"\x00" in (CORPUS / "binary.json").read_bytes()
    assert b"caf\xe9" in (CORPUS / "latin1.json").read_bytes()
    assert (CORPUS / "utf16.json").read_bytes()[:2] == b"\xff\xfe"
    assert (CORPUS / "deep-arrays.json").read_text().count("[") == 5000
    assert len((CORPUS / "big-int-400.json").read_text().split('"x": ')[1].strip().rstrip("}")) == 400
    assert "\\ud800" in (CORPUS / "lone-surrogate-id.json").read_text()
    assert '"Tiny\\u0001"' in (CORPUS / "control-character-title.json").read_text()
    assert '"dungeons/tiny\\u0000.json"' in (CORPUS / "pack-nul-member" / "pack.json").read_text()
    assert '"id": "tiny\\u001b\\u009b2J"' in (CORPUS / "c1-control-in-id.json").read_text()


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_whole_corpus_in_one_run_every_format(capsys, fmt):
    """All non-xfail entries at once, in each output format: no exception, exit 1, one report."""
    paths = [str(CORPUS / name) for name, expected in sorted(EXPECTED.items()) if "xfail" not in expected]
    code = main(["validate", *paths, "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in out + err
    if fmt == "json":
        assert {p["code"] for p in json.loads(out)} >= {
            "F002",
            "F003",
            "F004",
            "F005",
            "F006",
            "F007",
            "F008",
            "F009",
            "S001",
            "C003",
            "P001",
            "P002",
        }
    elif fmt == "sarif":
        assert json.loads(out)["version"] == "2.1.0"
    else:
        assert out.rstrip().splitlines()[-1].startswith("checked ")


def test_text_report_of_the_whole_corpus_prints_no_control_character_raw(capsys):
    """Every corpus entry in one text report: control characters the files hold (in ids the
    schema quotes, in names) are shown escaped, so the report cannot drive the terminal."""
    import re

    paths = [str(CORPUS / name) for name, expected in sorted(EXPECTED.items()) if "xfail" not in expected]
    assert main(["validate", *paths]) == 1
    out, err = capsys.readouterr()
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]", out + err)
    assert (
        f'{CORPUS / "c1-control-in-id.json"}:/id: error S001 "tiny\\u001b\\x9b2J" is not an id: a letter or '
        f"digit, then up to 63 letters, digits, '_', '.' or '-' (such as 'gob-1')\n"
    ) in out


# -- unreadable input: exit 2 ---------------------------------------------------------------


def test_missing_path_exits_2_with_f001(capsys, tmp_path):
    missing = tmp_path / "no-such-dungeon.json"
    code, problems, _ = run_validate(capsys, str(missing))
    assert code == 2
    assert [(p["code"], p["file"], p["pointer"]) for p in problems] == [("F001", str(missing), "")]


def test_missing_path_wins_over_other_problems(capsys, tmp_path):
    code, problems, _ = run_validate(
        capsys, str(CORPUS / "malformed-missing-comma.json"), str(tmp_path / "gone.json"), str(VALID_DUNGEON)
    )
    assert code == 2
    assert {p["code"] for p in problems} == {"F001", "F002"}


def test_folder_without_manifest_exits_2(capsys, tmp_path):
    (tmp_path / "not-a-pack").mkdir()
    code, problems, _ = run_validate(capsys, str(tmp_path / "not-a-pack"))
    assert code == 2
    assert [p["code"] for p in problems] == ["F001"]


def test_manifest_that_is_a_folder_exits_2(capsys, tmp_path):
    (tmp_path / "pack" / "pack.json").mkdir(parents=True)
    code, problems, _ = run_validate(capsys, str(tmp_path / "pack"))
    assert code == 2
    assert [p["code"] for p in problems] == ["F001"]


# -- symlinks (made at test time, never committed) -------------------------------------------


def _symlink(link: Path, target: str | Path) -> None:
    try:
        os.symlink(target, link)
    except (OSError, NotImplementedError) as exc:  # Windows without the privilege
        pytest.skip(f"cannot create symlinks here: {exc}")


def _pack(folder: Path, dungeons: list[str]) -> Path:
    (folder / "dungeons").mkdir(parents=True, exist_ok=True)
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": "linked",
        "name": "Linked pack",
        "version": "1.0.0",
        "ruleset": "line-classic",
        "dungeons": dungeons,
    }
    (folder / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_symlinked_file_leading_out_of_the_pack_is_p001(capsys, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text('{"type": "dungeon", broken', encoding="utf-8")
    pack = _pack(tmp_path / "pack", ["dungeons/link.json"])
    _symlink(pack / "dungeons" / "link.json", Path("..") / ".." / "outside" / "secret.json")
    problems = check_case(
        capsys,
        pack,
        {
            "code": "P001",
            "pointer": "/dungeons/0",
            "exit": 1,
            "absent_codes": ["F002"],
            "message_contains": ["dungeons/link.json"],
        },
        str(pack / "pack.json"),
    )
    assert not [p for p in problems if "secret" in p["file"]]


def test_symlinked_folder_leading_out_of_the_pack_is_p001(capsys, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "tiny.json").write_bytes(VALID_DUNGEON.read_bytes())
    pack = _pack(tmp_path / "pack", ["more/tiny.json"])
    _symlink(pack / "more", outside.resolve())  # absolute target
    check_case(capsys, pack, {"code": "P001", "pointer": "/dungeons/0", "exit": 1}, str(pack / "pack.json"))


def test_symlink_staying_inside_the_pack_is_allowed(capsys, tmp_path):
    pack = _pack(tmp_path / "pack", ["dungeons/alias.json"])
    (pack / "dungeons" / "tiny.json").write_bytes(VALID_DUNGEON.read_bytes())
    _symlink(pack / "dungeons" / "alias.json", "tiny.json")
    check_case(capsys, pack, {"code": None, "exit": 0}, str(pack / "pack.json"))


def test_symlink_loop_and_dangling_symlink_do_not_crash(capsys, tmp_path):
    pack = _pack(tmp_path / "pack", ["dungeons/loop-a.json", "dungeons/dangling.json"])
    _symlink(pack / "dungeons" / "loop-a.json", "loop-b.json")
    _symlink(pack / "dungeons" / "loop-b.json", "loop-a.json")
    _symlink(pack / "dungeons" / "dangling.json", "nowhere.json")
    code, problems, _ = run_validate(capsys, str(pack))
    assert code == 1
    by_pointer = {p["pointer"]: p["code"] for p in problems}
    assert by_pointer["/dungeons/0"] in ("P001", "P002", "F001")
    assert by_pointer["/dungeons/1"] == "P002"


def long_member_pack(folder: Path) -> Path:
    """A pack listing a dungeon file whose name (304 characters) is longer than any file system
    allows. Built here rather than in the corpus: opening it crashes the editor's pack browser
    (its own slice of issue 17), which the editor's corpus test would trip over."""
    pack = _pack(folder, ["dungeons/tiny.json", "dungeons/" + "x" * 300 + ".json"])
    (pack / "dungeons" / "tiny.json").write_bytes(VALID_DUNGEON.read_bytes())
    return pack


def test_a_member_name_longer_than_the_system_allows_is_p001(capsys, tmp_path):
    """validate, export, analyze, simulate and migrate once crashed on it (ENAMETOOLONG)."""
    pack = long_member_pack(tmp_path / "pack")
    check_case(
        capsys,
        pack,
        {
            "code": "P001",
            "exit": 1,
            "pointer": "/dungeons/1",
            "absent_codes": ["P002"],
            "message_contains": [f"'dungeons/{'x' * 300}.json' cannot be used as a file name here: File name too long"],
        },
        str(pack / "pack.json"),
    )


def test_ruleset_path_outside_the_pack_is_p001(capsys, tmp_path):
    pack = _pack(tmp_path / "pack", ["dungeons/tiny.json"])
    (pack / "dungeons" / "tiny.json").write_bytes(VALID_DUNGEON.read_bytes())
    manifest = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    manifest["rulesets"] = ["../line-classic.json"]
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    (tmp_path / "line-classic.json").write_text("{not json", encoding="utf-8")
    problems = check_case(
        capsys,
        pack,
        {"code": "P001", "pointer": "/rulesets/0", "exit": 1, "absent_codes": ["F002"]},
        str(pack / "pack.json"),
    )
    assert len(problems) == 1


# -- results that were once wrong or unhelpful ----------------------------------------------


def test_schema_error_in_an_element_does_not_cascade(capsys):
    _, problems, _ = run_validate(capsys, str(CORPUS / "wrong-type-size.json"))
    assert [p["code"] for p in problems if p["severity"] == "error"] == ["S001"], problems


def test_f008_names_json_types(capsys):
    for name, word in (("top-number.json", "number"), ("top-string.json", "string"), ("top-true.json", "boolean")):
        _, problems, _ = run_validate(capsys, str(CORPUS / name))
        assert f"a JSON {word}" in problems[0]["message"], problems


# -- a real process ---------------------------------------------------------------------------


def test_subprocess_has_no_traceback():
    names = [
        "deep-arrays.json",
        "binary.json",
        "latin1.json",
        "nan.json",
        "big-int-5000.json",
        "top-array.json",
        "format-99.json",
        "wrong-type-size.json",
        "unknown-kind.json",
        "pack-dotdot",
    ]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        PYTHONIOENCODING="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "validate", *[str(CORPUS / n) for n in names], "--format", "json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    codes = {p["code"] for p in json.loads(result.stdout)}
    assert codes >= {"F006", "F003", "F005", "F008", "F007", "S001", "C003", "P001"}
    assert result.stderr.strip().startswith("checked ")
