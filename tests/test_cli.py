"""The command line: output formats, exit codes, rules listing, migrate."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, PACKS, REPO

from inkcrawl.cli import main
from inkcrawl.problems import RULES

LINE_PACK = PACKS / "lantern-depths"
TEXT_LINE = re.compile(r"^(?P<file>[^:]+):(?P<pointer>(/[^:]*)?): (?P<severity>error|warning) (?P<code>[A-Z]\d{3}) .+$")


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def broken_dungeon(tmp_path):
    data = json.loads(next(LINE_PACK.glob("dungeons/*.json")).read_text(encoding="utf-8"))
    monster = next(i for i, e in enumerate(data["elements"]) if e["kind"] == "monster")
    data["elements"][monster]["at"] = [1000, 1000]
    data["elements"][monster]["size_mm"] = "big"
    data["areas"][0]["polygon"].append(data["areas"][0]["polygon"][0])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, monster


@pytest.fixture
def warning_only_dungeon(tmp_path):
    data = json.loads(next(LINE_PACK.glob("dungeons/*.json")).read_text(encoding="utf-8"))
    data["sheet"]["end_triggers"] = [t for t in data["sheet"]["end_triggers"] if t["kind"] != "timer"]
    data["sheet"]["components"] = sorted({*data["sheet"]["components"], "timer"})
    path = tmp_path / "warn.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_bundled_packs_validate_cleanly(capsys):
    code, out, _ = _run(capsys, "validate", *map(str, sorted(PACKS.iterdir())), "--strict")
    assert code == 0
    assert out.strip().endswith("0 errors, 0 warnings")


def test_text_format_is_one_line_per_problem(capsys, broken_dungeon):
    path, monster = broken_dungeon
    code, out, _ = _run(capsys, "validate", str(path))
    assert code == 1
    *lines, summary = out.strip().splitlines()
    assert lines and all(TEXT_LINE.match(line) for line in lines), lines
    parsed = [TEXT_LINE.match(line).groupdict() for line in lines]
    assert {"file": str(path), "pointer": f"/elements/{monster}/size_mm", "severity": "error", "code": "S001"} in [
        {k: v for k, v in p.items()} for p in parsed
    ]
    assert any(p["code"] == "L002" and p["pointer"] == "/areas/0/polygon" for p in parsed)
    assert re.match(r"checked 1 file \(1 dungeon\): \d+ errors?, \d+ warnings?", summary)


def test_json_format_lists_documented_problem_objects(capsys, broken_dungeon):
    path, monster = broken_dungeon
    code, out, err = _run(capsys, "validate", str(path), "--format", "json")
    assert code == 1
    problems = json.loads(out)
    assert problems and all({"file", "pointer", "severity", "code", "rule", "message"} <= set(p) for p in problems)
    schema = [p for p in problems if p["code"] == "S001"]
    assert [p["pointer"] for p in schema] == [f"/elements/{monster}/size_mm"]
    assert schema[0]["rule"] == "schema" and schema[0]["severity"] == "error"
    assert "checked 1 file" in err


def test_sarif_format_is_sarif_2_1_0(capsys, broken_dungeon):
    path, _ = broken_dungeon
    code, out, _ = _run(capsys, "validate", str(path), "--format", "sarif")
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0" and "sarif-schema-2.1.0" in log["$schema"]
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in RULES]
    assert run["results"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning")
        location = result["locations"][0]
        assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("broken.json")
        if result["properties"]["pointer"]:
            assert location["logicalLocations"][0]["fullyQualifiedName"] == result["properties"]["pointer"]
        else:
            assert "logicalLocations" not in location


def test_sarif_relative_paths_resolve_against_the_working_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a b.json").write_text("{", encoding="utf-8")
    _, out, _ = _run(capsys, "validate", "a b.json", "--format", "sarif")
    run = json.loads(out)["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.as_uri() + "/"
    artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "a%20b.json", "uriBaseId": "SRCROOT"}


def test_json_syntax_errors_carry_line_and_column_in_sarif(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "type": "dungeon",\n  oops\n}', encoding="utf-8")
    code, out, _ = _run(capsys, "validate", str(path), "--format", "sarif")
    assert code == 1
    region = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 3}


def test_warnings_pass_unless_strict(capsys, warning_only_dungeon):
    code, out, _ = _run(capsys, "validate", str(warning_only_dungeon))
    assert code == 0
    assert " warning L023 " in out
    code, _, _ = _run(capsys, "validate", str(warning_only_dungeon), "--strict")
    assert code == 1


def test_missing_path_exits_2(capsys, tmp_path):
    code, out, _ = _run(capsys, "validate", str(tmp_path / "nope.json"))
    assert code == 2
    assert " error F001 " in out


def test_folder_without_manifest_exits_2(capsys, tmp_path):
    code, out, _ = _run(capsys, "validate", str(tmp_path))
    assert code == 2
    assert "pack.json" in out


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["validate"])
    assert caught.value.code == 2
    with pytest.raises(SystemExit) as caught:
        main(["validate", "x.json", "--format", "xml"])
    assert caught.value.code == 2
    assert main([]) == 2


def test_output_file_is_written(capsys, tmp_path, broken_dungeon):
    path, _ = broken_dungeon
    target = tmp_path / "report.sarif"
    code, out, err = _run(capsys, "validate", str(path), "--format", "sarif", "-o", str(target))
    assert code == 1 and out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert "error" in err


def test_rules_lists_every_check(capsys):
    code, out, _ = _run(capsys, "rules")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == len(RULES)
    for line, rule in zip(lines, RULES):
        assert line.startswith(rule.code) and rule.name in line and rule.severity.value in line
    code, out, _ = _run(capsys, "rules", "--format", "json")
    assert [r["code"] for r in json.loads(out)] == [r.code for r in RULES]


def test_rule_codes_are_unique_and_well_formed():
    codes = [r.code for r in RULES]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"[FSPCGL]\d{3}", c) for c in codes)
    assert len({r.name for r in RULES}) == len(RULES)


def test_migrate_rewrites_old_files_and_check_reports_them(capsys, tmp_path):
    path = tmp_path / "old.json"
    shutil.copy(FIXTURES / "dungeon-format-1.json", path)
    before = path.read_bytes()
    code, out, _ = _run(capsys, "migrate", str(path), "--check")
    assert code == 1 and "would be rewritten" in out and path.read_bytes() == before
    code, out, _ = _run(capsys, "migrate", str(path))
    assert code == 0 and "rewritten" in out
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format_version"] == 2 and data["sheet"]["title"] == "The Old Cellar"
    code, _, _ = _run(capsys, "migrate", str(path), "--check")
    assert code == 0
    code, out, _ = _run(capsys, "validate", str(path), "--strict")
    assert code == 0, out


def test_migrate_never_rewrites_a_file_with_schema_errors(capsys, broken_dungeon):
    path, _ = broken_dungeon
    before = path.read_bytes()
    code, _, err = _run(capsys, "migrate", str(path))
    assert code == 1 and "not rewritten" in err
    assert path.read_bytes() == before


def test_migrate_refuses_a_file_that_rounding_would_break(capsys, tmp_path):
    data = json.loads(next(LINE_PACK.glob("dungeons/*.json")).read_text(encoding="utf-8"))
    first = data["areas"][0]["polygon"][0]
    # a vertex 0.0004 mm after vertex 0: saving rounds it onto vertex 0 (L002 once rewritten)
    data["areas"][0]["polygon"].insert(1, [first[0] + 0.0004, first[1]])
    path = tmp_path / "close.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    before = path.read_bytes()
    code, out, _ = _run(capsys, "validate", str(path))
    assert code == 1 and "error L028" in out and "vertices 0 and 1" in out
    for check in ([], ["--check"]):
        code, out, err = _run(capsys, "migrate", str(path), *check)
        assert code == 1 and "not rewritten" in err and "would be rewritten" not in out, (out, err)
        assert "1 new error(s)" in err and "/areas/0/polygon: error L002" in err and "vertex 1 repeats vertex 0" in err
        assert path.read_bytes() == before
    # moved 0.002 mm away the vertex survives rounding, and the file is rewritten
    data["areas"][0]["polygon"][1][0] = first[0] + 0.002
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = _run(capsys, "migrate", str(path))
    assert code == 0 and "rewritten (layout)" in out and err == ""
    assert json.loads(path.read_text(encoding="utf-8"))["areas"][0]["polygon"][1] == [first[0] + 0.002, first[1]]


def test_migrate_refuses_a_ruleset_whose_rounded_value_breaks_the_schema(capsys, tmp_path):
    data = json.loads((REPO / "content" / "rulesets" / "line-classic.json").read_text(encoding="utf-8"))
    data["id"] = "line-variant"
    data["elements"]["monster"]["min_coverage"] = 0.0004  # above 0 as the schema asks; 0 once rounded
    path = tmp_path / "variant.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    before = path.read_bytes()
    code, _, err = _run(capsys, "migrate", str(path))
    assert code == 1 and "not rewritten" in err and "/elements/monster/min_coverage: error S001" in err
    assert path.read_bytes() == before


def test_bundled_packs_are_in_canonical_layout(capsys):
    code, out, _ = _run(capsys, "migrate", "--check", *map(str, sorted(PACKS.iterdir())))
    assert code == 0, out


def test_a_path_named_twice_is_checked_and_exported_once(tmp_path):
    import subprocess
    import sys

    pack = "content/packs/lantern-depths"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "inkcrawl",
            "validate",
            pack,
            f"{pack}/pack.json",
            f"{pack}/dungeons/01-candlewick-cellars.json",
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=120,
    )
    assert result.returncode == 0
    # the folder and its pack.json are one pack; the dungeon named on its own is checked on its own too
    assert "checked 6 files (5 dungeons)" in result.stdout, result.stdout
    out = tmp_path / "svgs"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "inkcrawl",
            "export",
            "sheet",
            pack,
            f"{pack}/dungeons/01-candlewick-cellars.json",
            "-o",
            str(out) + ".svg",
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in tmp_path.iterdir())
    assert not any(name.startswith("dup-") for name in written), written


@pytest.mark.parametrize("manifest_change", [{"rulesets": 5}, {"decks": 5}, {"dungeons": "x"}])
def test_export_of_a_pack_with_a_manifest_member_of_the_wrong_type_never_crashes(tmp_path, manifest_change):
    import subprocess
    import sys

    pack = tmp_path / "pack"
    shutil.copytree(Path(__file__).resolve().parent.parent / "content/packs/ember-halls", pack)
    manifest = json.loads((pack / "pack.json").read_text())
    manifest.update(manifest_change)
    (pack / "pack.json").write_text(json.dumps(manifest))
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "export", "sheet", str(pack), "-o", str(tmp_path / "out.pdf"), "--force"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1, 2)


# Sends SIGTERM to itself at one moment of the command line's start-up, then runs `inkcrawl rules`.
_SIGTERM_DURING_START_UP = """
import argparse, os, signal, sys
import inkcrawl.cli

moment = sys.argv[1]

def terminate_before(owner, name):
    real = getattr(owner, name)
    def wrapper(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        return real(*args, **kwargs)
    setattr(owner, name, wrapper)

if moment == "building the parser":
    terminate_before(inkcrawl.cli, "build_parser")
elif moment == "reading the arguments":
    terminate_before(argparse.ArgumentParser, "parse_args")
sys.exit(inkcrawl.cli.main(["rules"]))
"""


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGKILL"), reason="needs POSIX signals")
@pytest.mark.parametrize("moment", ["building the parser", "reading the arguments"])
def test_sigterm_during_start_up_is_an_interruption(moment):
    """The SIGTERM handler is the first thing `main` installs: a SIGTERM while the parser is
    built (plugins load) or the arguments are read ends like one during a command, exit 143
    (128 + SIGTERM's 15) and "stopped by SIGTERM", never the default action (killed by the
    signal, no message)."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _SIGTERM_DURING_START_UP, moment], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 143, (result.returncode, result.stderr)
    assert result.stderr == "inkcrawl: stopped by SIGTERM\n" and result.stdout == ""


def test_validate_on_a_folder_of_packs_validates_every_pack_below_it(tmp_path, capsys):
    import shutil

    from conftest import PACKS

    for name in ("lantern-depths", "ember-halls"):
        shutil.copytree(PACKS / name, tmp_path / "packs" / "group" / name)
    assert main(["validate", str(tmp_path / "packs")]) == 0
    out = capsys.readouterr().out
    assert "checked 10 files (8 dungeons): 0 errors, 0 warnings" in out
    (tmp_path / "nothing").mkdir()
    assert main(["validate", str(tmp_path / "nothing")]) == 2
    assert "no pack lies below it (up to 3 folders down)" in capsys.readouterr().out


def test_migrate_says_when_every_file_is_already_current(tmp_path, capsys):
    import shutil

    from conftest import PACKS

    shutil.copytree(PACKS / "lantern-depths", tmp_path / "pack")
    assert main(["migrate", str(tmp_path / "pack")]) == 0
    assert "already current, left as they are" in capsys.readouterr().out
