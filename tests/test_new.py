"""``inkcrawl new``: a starting dungeon of each family and a starting pack, valid from the first
command, added to a pack's manifest with ``--pack``, never replacing a file without ``--force``."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from inkcrawl.cli import main
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.loading import open_dungeons
from inkcrawl.model import dungeon_from_dict
from inkcrawl.validate import validate_paths


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _clean(*paths: Path) -> None:
    report = validate_paths([str(p) for p in paths])
    assert [(p.code, p.pointer, p.message) for p in report.problems] == []


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_grid_dungeon_has_the_rulesets_board_entryways_and_features(tmp_path, capsys):
    path = tmp_path / "ash-cellar.json"
    code, out, _ = _run(capsys, "new", "--family", "grid", "-o", path)
    assert code == 0
    assert f"wrote {path} (grid dungeon 'ash-cellar', ruleset 'grid-classic')" in out
    _clean(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["id"], data["ruleset"], data["sheet"]["title"]) == ("ash-cellar", "grid-classic", "Ash Cellar")
    # grid-classic: a 7 x 7 board, 6 entryways, 4 loot, 1 dragon, weapons and monsters A-F
    assert (data["grid"]["columns"], data["grid"]["rows"]) == (7, 7)
    assert len(data["entryways"]) == 6
    assert all(e["side"] in ("north", "east", "south", "west") for e in data["entryways"])
    kinds = Counter(f["kind"] for f in data["features"])
    assert kinds == {"loot": 4, "dragon": 1, "weapon": 6, "monster": 6}
    for kind in ("weapon", "monster"):
        assert sorted(f["letter"] for f in data["features"] if f["kind"] == kind) == list("ABCDEF")
    cells = [tuple(f["cell"]) for f in data["features"]]
    assert len(set(cells)) == 17  # one feature a room
    # every inner edge of 7 x 7 rooms is a passage: 6 x 7 across and 7 x 6 down
    assert len(data["passages"]) == 84


def test_a_line_dungeon_has_a_room_with_a_start_a_monster_and_an_exit(tmp_path, capsys):
    path = tmp_path / "first-scrawl.json"
    assert _run(capsys, "new", "--family", "line", "--title", "The First Scrawl", "-o", path)[0] == 0
    _clean(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["sheet"]["title"] == "The First Scrawl" and data["ruleset"] == "line-classic"
    (room,) = data["areas"]
    top = min(y for _, y in room["polygon"])
    by_kind = {e["kind"]: e for e in data["elements"]}
    assert set(by_kind) == {"start", "monster", "exit"}
    assert by_kind["start"]["at"][1] == top  # on the room's top wall: the outer boundary
    assert by_kind["monster"]["size_mm"] == 8  # line-classic's monster size
    assert data["sheet"]["end_triggers"] == [{"kind": "exit_reached"}]
    assert data["sheet"]["components"] == [] and data["sheet"]["orb_tokens"] == {}


def test_the_file_is_written_as_inkcrawl_saves_it(tmp_path, capsys):
    path = tmp_path / "d.json"
    _run(capsys, "new", "--family", "grid", "-o", path)
    text = path.read_text(encoding="utf-8")
    assert dumps_canonical(dungeon_from_dict(json.loads(text)).to_dict()) == text


def test_an_existing_file_is_refused_unless_forced(tmp_path, capsys):
    path = tmp_path / "mine.json"
    path.write_text("my own work\n", encoding="utf-8")
    code, out, err = _run(capsys, "new", "--family", "line", "-o", path)
    assert code == 2 and out == ""
    assert err == f"inkcrawl new: error: {path} already exists; use --force to replace it, or give another name\n"
    assert path.read_text(encoding="utf-8") == "my own work\n"
    assert [p.name for p in tmp_path.iterdir()] == ["mine.json"]  # no temporary file left
    assert _run(capsys, "new", "--family", "line", "-o", path, "--force")[0] == 0
    _clean(path)


def test_a_misspelled_ruleset_or_family_says_what_was_meant(tmp_path, capsys):
    path = tmp_path / "d.json"
    code, _, err = _run(capsys, "new", "--ruleset", "grid-clasic", "-o", path)
    assert code == 2 and not path.exists()
    assert (
        "ruleset 'grid-clasic' is not known (expected one of: grid-classic, line-classic; did you mean 'grid-classic'?)"
    ) in err
    with pytest.raises(SystemExit) as stopped:
        main(["new", "--family", "lin", "-o", str(path)])
    assert stopped.value.code == 2 and not path.exists()
    assert "invalid choice: 'lin' (choose from 'grid', 'line'; did you mean 'line'?)" in capsys.readouterr().err
    code, _, err = _run(capsys, "new", "--ruleset", "grid-classic", "--family", "line", "-o", path)
    assert code == 2 and "ruleset 'grid-classic' is for the grid family, not line" in err
    code, _, err = _run(capsys, "new", "pak", str(tmp_path / "p"))
    assert code == 2 and "(did you mean 'pack'?)" in err and not (tmp_path / "p").exists()


def test_new_pack_makes_a_pack_that_validates_and_opens(tmp_path, capsys):
    folder = tmp_path / "cinder-trials"
    code, out, _ = _run(capsys, "new", "pack", folder, "--family", "grid")
    assert code == 0
    assert out.splitlines()[:2] == [
        f"wrote {folder / 'pack.json'} (pack 'cinder-trials', ruleset 'grid-classic')",
        f"wrote {folder / 'dungeons' / 'first-dungeon.json'} (grid dungeon 'first-dungeon')",
    ]
    _clean(folder)
    manifest = json.loads((folder / "pack.json").read_text(encoding="utf-8"))
    assert manifest["id"] == "cinder-trials" and manifest["name"] == "Cinder Trials"
    assert manifest["ruleset"] == "grid-classic" and manifest["dungeons"] == ["dungeons/first-dungeon.json"]
    opened = open_dungeons([str(folder)])
    assert [d.dungeon.id for d in opened.dungeons] == ["first-dungeon"]
    # a second time: the pack is left as it is
    before = _snapshot(folder)
    code, _, err = _run(capsys, "new", "pack", folder)
    assert code == 2 and "pack.json already exists" in err and "inkcrawl new --pack" in err
    assert _snapshot(folder) == before


def test_new_pack_default_family_is_line(tmp_path, capsys):
    folder = tmp_path / "p"
    assert _run(capsys, "new", "pack", folder)[0] == 0
    assert json.loads((folder / "pack.json").read_text(encoding="utf-8"))["ruleset"] == "line-classic"
    _clean(folder)


def test_with_pack_the_dungeon_joins_the_manifest(tmp_path, capsys):
    folder = tmp_path / "p"
    _run(capsys, "new", "pack", folder, "--family", "grid")
    second = folder / "dungeons" / "second.json"
    code, out, _ = _run(capsys, "new", "--pack", folder, "-o", second)
    assert code == 0 and "added it to" in out and "as 'dungeons/second.json'" in out
    # without -o: PACK/dungeons/ID.json; the family comes from the pack's ruleset
    assert _run(capsys, "new", "--pack", folder, "--id", "third")[0] == 0
    manifest = json.loads((folder / "pack.json").read_text(encoding="utf-8"))
    assert manifest["dungeons"] == ["dungeons/first-dungeon.json", "dungeons/second.json", "dungeons/third.json"]
    assert json.loads((folder / "dungeons" / "third.json").read_text(encoding="utf-8"))["family"] == "grid"
    _clean(folder)
    assert [d.dungeon.id for d in open_dungeons([str(folder)]).dungeons] == ["first-dungeon", "second", "third"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-o", "{outside}"], "is not inside the pack folder"),
        (["--id", "first-dungeon", "-o", "{inside}"], "already has the id 'first-dungeon'"),
        (["--ruleset", "line-classic", "-o", "{inside}"], "plays every dungeon with ruleset 'grid-classic'"),
        (["-o", "{existing}"], "already exists"),
    ],
)
def test_with_pack_nothing_is_written_when_refused(tmp_path, capsys, argv, message):
    folder = tmp_path / "p"
    _run(capsys, "new", "pack", folder, "--family", "grid")
    names = {
        "outside": tmp_path / "elsewhere.json",
        "inside": folder / "dungeons" / "new.json",
        "existing": folder / "dungeons" / "first-dungeon.json",
    }
    before = _snapshot(tmp_path)
    code, out, err = _run(capsys, "new", "--pack", folder, *(a.format(**names) for a in argv))
    assert code == 2 and out == "" and message in err
    assert _snapshot(tmp_path) == before


def test_a_read_only_manifest_refuses_before_any_file_is_written(tmp_path, capsys):
    folder = tmp_path / "p"
    _run(capsys, "new", "pack", folder)
    manifest = folder / "pack.json"
    os.chmod(manifest, 0o444)
    before = _snapshot(tmp_path)
    code, _, err = _run(capsys, "new", "--pack", folder, "--id", "second")
    assert code == 2 and "read-only" in err
    assert _snapshot(tmp_path) == before and not (folder / "dungeons" / "second.json").exists()


def test_a_folder_that_is_no_pack_is_named(tmp_path, capsys):
    code, _, err = _run(capsys, "new", "--pack", tmp_path, "--id", "x")
    assert code == 2 and f"{tmp_path}: no pack.json here" in err and f"inkcrawl new pack {tmp_path}" in err
    assert list(tmp_path.iterdir()) == []


def test_help_has_examples_and_exit_codes(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["new", "--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0
    assert "examples:\n  inkcrawl new --family line -o first-scrawl.json" in out
    assert "inkcrawl new pack my-pack --family grid" in out
    assert "exit codes: 0 written, 2 nothing written" in out


def test_the_new_pack_opens_in_the_editor(qtbot, tmp_path, capsys):
    from editor_support import make_window

    folder = tmp_path / "p"
    _run(capsys, "new", "pack", folder, "--family", "line")
    _run(capsys, "new", "--pack", folder, "--id", "second")
    window = make_window(qtbot, folder)
    assert sorted(d.dungeon.id for d in window.documents) == ["first-dungeon", "second"]
    assert all(d.validate_now() == [] for d in window.documents)
