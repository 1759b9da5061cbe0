"""The first hour of a new designer (issue 18): messages that say what was meant, schema messages
that name the object and suggest a value, complete examples in docs/formats.md, what a dungeon
lacks to be played, names found whatever their Unicode form, ``edit`` on a file it cannot open,
and the bundled sheets' layout (entryway arrows, area names)."""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from pathlib import Path

import pytest
from conftest import PACKS, REPO

from inkcrawl.cli import main
from inkcrawl.validate import validate_paths

GRID_DUNGEON = PACKS / "ember-halls" / "dungeons" / "long-kiln.json"
LINE_DUNGEON = PACKS / "lantern-depths" / "dungeons" / "02-verdigris-bell-vault.json"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _problems(tmp_path: Path, data: dict, name: str = "d.json") -> list[tuple[str, str, str]]:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return [(p.code, p.pointer, p.message) for p in validate_paths([str(path)]).problems]


def _grid_with_weapon_kind(kind: str) -> tuple[dict, int]:
    data = _load(GRID_DUNGEON)
    index = next(i for i, f in enumerate(data["features"]) if f["id"] == "weapon_a")
    data["features"][index]["kind"] = kind
    return data, index


# 1. did you mean ---------------------------------------------------------------------------------


def test_a_misspelled_grid_kind_comes_first_with_the_kind_meant(tmp_path):
    """``wepon`` with a letter: the unknown kind is the error, named first; the letter follows from it."""
    data, index = _grid_with_weapon_kind("wepon")
    problems = [p for p in _problems(tmp_path, data) if p[1].startswith(f"/features/{index}")]
    assert problems[0] == (
        "C003",
        f"/features/{index}/kind",
        "feature 'weapon_a' (wepon): ruleset 'grid-classic' has no element kind 'wepon' "
        "(expected one of: dragon, loot, monster, weapon; did you mean 'weapon'?)",
    )
    assert problems[1][:2] == ("S001", f"/features/{index}/letter")
    assert problems[1][2].endswith("it follows from the unknown kind: fix the kind first")


@pytest.mark.parametrize(
    ("kind", "ending"),
    [
        ("Weapon", "(expected one of: dragon, loot, monster, weapon; did you mean 'weapon'?)"),
        ("Start", "(expected one of: dragon, loot, monster, weapon); 'start' is an element of the line family"),
    ],
)
def test_a_capitalised_kind_gets_no_regular_expression(tmp_path, kind, ending):
    data, index = _grid_with_weapon_kind(kind)
    problems = _problems(tmp_path, data)
    assert not any("^[" in message for _, _, message in problems)
    (about_kind,) = [p for p in problems if p[1] == f"/features/{index}/kind"]
    assert about_kind[2] == f"feature 'weapon_a' ({kind}): ruleset 'grid-classic' has no element kind '{kind}' {ending}"
    assert [p[1] for p in problems if p[1].startswith(f"/features/{index}")][0] == f"/features/{index}/kind"


def test_a_misspelled_line_kind_and_lock_colour(tmp_path):
    data = _load(LINE_DUNGEON)
    data["elements"][1]["kind"] = "monstr"
    data["elements"][14]["locks"] = ["rde"]
    problems = {p[1]: p for p in _problems(tmp_path, data)}
    assert problems["/elements/1/kind"][0] == "C003"
    assert problems["/elements/1/kind"][2].endswith("did you mean 'monster'?)")
    assert problems["/elements/14/locks/0"] == (
        "C004",
        "/elements/14/locks/0",
        "door 'd1' (\"Rust-Red Door\"): lock 'rde' is not defined by the ruleset "
        "(expected allowed: red, green, blue, yellow, skeleton; did you mean 'red'?)",
    )


def test_an_unknown_ruleset_id_suggests_the_known_one(tmp_path):
    data = _load(LINE_DUNGEON)
    data["ruleset"] = "line-clasic"
    (found,) = [p for p in _problems(tmp_path, data) if p[0] == "C002"]
    assert found[2] == (
        "ruleset 'line-clasic' is not known (expected one of: grid-classic, line-classic; did you mean 'line-classic'?)"
    )


def test_a_misspelled_switch_name_and_value_in_a_ruleset(tmp_path):
    data = _load(REPO / "content" / "rulesets" / "grid-classic.json")
    data["id"] = "my-variant"
    data["switches"]["weapon_ordr"] = data["switches"].pop("weapon_order")
    data["switches"]["dragon_doubling"] = "all-loot"
    problems = {p[1]: p[2] for p in _problems(tmp_path, data, "variant.json")}
    assert problems["/switches/dragon_doubling"] == (
        '"all-loot" is not a known value here: expected one of: one_loot, all_loot, best_item; '
        "did you mean 'all_loot'?"
    )
    unknown = [m for pointer, m in problems.items() if pointer == "/switches" and "unknown member" in m]
    assert unknown and unknown[0].startswith("unknown member 'weapon_ordr' (did you mean 'weapon_order'?)")


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["validate", "--format", "jsno", "x.json"], "(choose from 'text', 'json', 'sarif'; did you mean 'json'?)"),
        (["valdate", "x.json"], "did you mean 'validate'?)"),
        (["analyze", "--format", "Text", "x.json"], "did you mean 'text'?)"),
    ],
)
def test_command_line_choices_suggest_the_nearest(capsys, argv, hint):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert hint in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["par", str(LINE_DUNGEON), "--character", "rogeu"], "(did you mean 'rogue'?)"),
        (["simulate", str(PACKS / "ember-halls"), "--policy", "gredy"], "(did you mean 'greedy'?)"),
        (["simulate", str(PACKS / "ember-halls"), "--dungeon", "long-kil"], "(did you mean 'long-kiln'?)"),
    ],
)
def test_names_looked_up_by_commands_suggest_the_nearest(capsys, argv, hint):
    assert main(argv) in (1, 2)
    assert hint in capsys.readouterr().err


# 2. schema messages name the object and suggest a value ---------------------------------------------


def test_a_missing_size_names_the_element_and_the_rulesets_size(tmp_path):
    data = _load(LINE_DUNGEON)
    del data["elements"][1]["size_mm"]  # monster m1, "Rust Mite"
    del data["elements"][14]["locks"]  # door d1
    problems = {p[1]: p[2] for p in _problems(tmp_path, data)}
    assert problems["/elements/1"] == (
        'element \'m1\' (monster, "Rust Mite"): "size_mm" is a required property; '
        "write \"size_mm\": 8 (a monster's size in ruleset 'line-classic': its diameter in mm)"
    )
    assert problems["/elements/14"].startswith('element \'d1\' (door, "Rust-Red Door"): "locks" is a required property')
    assert 'write "locks": ["red"]' in problems["/elements/14"]


def test_odd_values_where_names_are_expected_are_explained_without_a_crash(tmp_path):
    data = _load(LINE_DUNGEON)
    data["elements"][1] = {"id": ["m1"], "kind": ["monster"], "name": 7}
    data["elements"][6]["kind"] = 12
    problems = _problems(tmp_path, data)
    assert (
        "S001",
        "/elements/1",
        'element: "at" is a required property; write "at": [x, y], its centre in mm from '
        "the sheet's top-left corner (y down), inside its area",
    ) in problems
    (kind,) = [p for p in problems if p[1] == "/elements/6/kind"]
    assert kind[2] == 'element \'m2\' ("Clapper Ghoul"): 12 is not of type "string"'


def test_a_missing_sheet_member_suggests_what_a_new_dungeon_has(tmp_path):
    data = _load(LINE_DUNGEON)
    del data["sheet"]["orb_tokens"]
    problems = {p[1]: p[2] for p in _problems(tmp_path, data)}
    assert problems["/sheet"] == (
        '"orb_tokens" is a required property; write "orb_tokens": {} (what a new dungeon starts with)'
    )


def test_a_wrong_value_in_an_element_names_it(tmp_path):
    data = _load(LINE_DUNGEON)
    data["elements"][1]["size_mm"] = "big"
    problems = {p[1]: p[2] for p in _problems(tmp_path, data)}
    assert problems["/elements/1/size_mm"].startswith("element 'm1' (monster, \"Rust Mite\"): ")


# 3. docs/formats.md: a minimal complete file of each family ------------------------------------------


def test_the_minimal_files_of_docs_formats_validate_with_no_problem(tmp_path):
    text = (REPO / "docs" / "formats.md").read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)\n```", text, re.DOTALL)]
    dungeons = [b for b in blocks if b.get("type") == "dungeon"]
    assert sorted(d["family"] for d in dungeons) == ["grid", "line"]
    for dungeon in dungeons:
        path = tmp_path / f"{dungeon['id']}.json"
        path.write_text(json.dumps(dungeon), encoding="utf-8")
        report = validate_paths([str(path)])
        assert report.problems == [] and report.dungeons == 1
    line = next(d for d in dungeons if d["family"] == "line")
    assert {"components", "end_triggers", "orb_tokens"} <= set(line["sheet"])
    for element in line["elements"]:
        if element["kind"] not in ("door", "label"):
            assert {"at", "size_mm", "rotation_deg"} <= set(element)


# 6. analyze says what a dungeon lacks to be played ------------------------------------------------------


def test_analyze_names_what_is_missing_to_play(tmp_path, capsys):
    from inkcrawl.importers import missing_to_play

    data = copy.deepcopy(_load(LINE_DUNGEON))
    data["elements"] = [e for e in data["elements"] if e["kind"] in ("start", "door", "key", "label")]
    data["sheet"]["end_triggers"] = []
    data["sheet"]["components"] = ["keys"]
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    expected = missing_to_play(data)  # the import summary's sentences: one source
    assert [s.split(":")[0] for s in expected] == ["nothing on it scores", "no end trigger"]
    main(["analyze", str(path)])
    out = capsys.readouterr().out
    assert [line.strip() for line in out.splitlines() if "to play it" in line] == [f"to play it: {s}" for s in expected]
    main(["analyze", str(path), "--format", "json"])
    assert json.loads(capsys.readouterr().out)[0]["missing_to_play"] == expected
    main(["analyze", str(LINE_DUNGEON)])
    assert "to play it" not in capsys.readouterr().out


# 7. NFC / NFD names in pack manifests ------------------------------------------------------------------


@pytest.mark.parametrize(("listed", "on_disk"), [("NFC", "NFD"), ("NFD", "NFC")])
def test_a_manifest_finds_a_name_in_the_other_unicode_form(tmp_path, listed, on_disk):
    name = "Forêt des Mèches.json"
    folder = tmp_path / "pack"
    (folder / "dungeons").mkdir(parents=True)
    (folder / "dungeons" / unicodedata.normalize(on_disk, name)).write_bytes(LINE_DUNGEON.read_bytes())
    manifest = _load(PACKS / "lantern-depths" / "pack.json")
    manifest["dungeons"] = [f"dungeons/{unicodedata.normalize(listed, name)}"]
    (folder / "pack.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    report = validate_paths([str(folder)])
    assert report.problems == [] and report.dungeons == 1


def test_one_helper_finds_names_in_either_form():
    """The pack manifests and the Tiled importer use the same function (moved to the core)."""
    from inkcrawl.importers.tiled import paths
    from inkcrawl.pathnames import existing_variant

    assert paths.existing_variant is existing_variant


# 5. edit on a file it cannot open ------------------------------------------------------------------------


def test_edit_screenshot_of_a_malformed_file_is_an_error_like_validate(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "dungeon", ', encoding="utf-8")
    out = tmp_path / "shot.png"
    validate_code = main(["validate", str(bad)])
    capsys.readouterr()
    assert main(["edit", str(bad), "--screenshot", str(out)]) == validate_code == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"{bad}:: error F002 invalid JSON: Expecting property name enclosed in double quotes (line 1, column 21)",
        f"inkcrawl edit: error: {bad} cannot be opened; no screenshot written",
    ]
    assert not out.exists()
    assert main(["edit", str(tmp_path / "missing.json"), "--screenshot", str(out)]) == 2


def test_edit_help_says_what_happens_and_its_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["edit", "--help"])
    out = capsys.readouterr().out
    assert "exit codes: 0 closed (or screenshot written), 1 the file cannot be opened" in out


# 8. the bundled sheets' layout ----------------------------------------------------------------------------


def test_the_long_kiln_west_arrow_is_full_size_and_clear_of_its_row_label():
    """The Long Kiln's grid starts 7 mm inside the left margin: the row 4 arrow takes it whole
    (as long as the east arrows, 0.3 x 22 mm = 6.6 mm), and its label moves above it."""
    from test_grid_sheet import SVG_NS, _bounds, _svg, _tree

    root = _tree(_svg("long-kiln", False))
    boxes = {id(e): b for e, *b in _bounds(root)}
    arrows = {}
    for group in root.iter():
        if group.get("data-kind") == "entryway":
            (arrow,) = [e for e in group.iter() if e.get("data-kind") == "arrow"]
            arrows[group.get("data-id")] = boxes[id(arrow)]
    data = _load(GRID_DUNGEON)
    sides = {e["id"]: e["side"] for e in data["entryways"]}
    west = [b for i, b in arrows.items() if sides[i] == "west"]
    east = [b for i, b in arrows.items() if sides[i] == "east"]
    assert west and east
    east_length = east[0][2] - east[0][0]
    for x0, _, x1, _ in west:
        assert x1 - x0 == pytest.approx(east_length, abs=0.2)
    (label,) = [e for e in root.iter(f"{SVG_NS}text") if e.text == "4" and e.get("text-anchor") == "end"]
    lx0, ly0, lx1, ly1 = boxes[id(label)]
    arrow_top = west[0][1]
    assert ly1 < arrow_top  # above the arrow, not beside it
    assert ly0 >= data["grid"]["origin_mm"][1] + 3 * data["grid"]["cell_mm"]  # still in row 4's band


def test_area_names_keep_clear_of_openings():
    """A name at a threshold reads as the next area's: every bundled line sheet prints its area
    names at least NAME_OPENING_KEEP_OUT_MM from every opening."""
    import xml.etree.ElementTree as ET

    from shapely.geometry import box

    from exporters.canvas import text_width_mm
    from exporters.line_sheet import CAP, DESCENT, NAME_OPENING_KEEP_OUT_MM
    from exporters.sheet import render_sheet
    from inkcrawl.loading import open_dungeons
    from inkcrawl.printed import sheet_of

    checked = 0
    for opened in open_dungeons([str(PACKS / "lantern-depths")]).dungeons:
        root = ET.fromstring(render_sheet(opened.dungeon, opened.ruleset).svg)
        openings = sheet_of(opened.dungeon, opened.ruleset, repair=True).guide_lines()
        for text in root.iter():
            if text.get("data-kind") != "area-name":
                continue
            x, y, size = float(text.get("x")), float(text.get("y")), float(text.get("font-size"))
            width = text_width_mm(text.text, size)
            up, down = CAP * size, DESCENT * size
            upright = box(x, y - up, x + width, y + down)
            turned = box(x - up, y - width, x + down, y)  # reading upwards
            shape = turned if "rotate(-90" in (text.get("transform") or "") else upright
            for opening in openings:
                assert shape.distance(opening) >= NAME_OPENING_KEEP_OUT_MM - 0.01, (opened.dungeon.id, text.text)
            checked += 1
    assert checked >= 20
