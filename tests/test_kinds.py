"""Element kinds as data (inkcrawl.kinds): the registry agrees with the dungeon schema, and a
designer's new kind with an existing interaction and the generic glyph is placed in the editor,
validated, printed, exported and played with no code change."""

from __future__ import annotations

import copy
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dungeon_builders import line_dungeon

from inkcrawl.cli import main
from inkcrawl.engines.line import referee
from inkcrawl.gamedata import game_document
from inkcrawl.kinds import VALUE_MEMBERS, resolve_kind
from inkcrawl.loading import open_dungeons
from inkcrawl.rulesets import Ruleset, bundled_rulesets
from inkcrawl.schema import schema_problems

LINE = bundled_rulesets()["line-classic"]
VALUES = {"vp": 3, "variant": "x1", "number": 1, "colour": "red", "channel": "A"}
GEOMETRY = {
    "disc": {"at": [50, 50], "size_mm": 6, "rotation_deg": 0},
    "segment": {"segment": [[0, 0], [0, 10]], "locks": ["red"]},
    "text": {"at": [50, 50], "rotation_deg": 0, "text": "x", "text_height_mm": 3},
}


def _element_problems(element: dict) -> list:
    dungeon = line_dungeon()
    dungeon["elements"] = [element]
    return schema_problems(dungeon, "dungeon", "x.json")


@pytest.mark.parametrize("kind", list(LINE.kinds))
def test_the_dungeon_schema_agrees_with_each_kind_definition(kind):
    spec = LINE.kinds[kind]
    element = {"id": "e1", "kind": kind, **GEOMETRY[spec.footprint], **{m: VALUES[m] for m in spec.members}}
    assert _element_problems(element) == [], (kind, element)
    for member in VALUE_MEMBERS:
        if member not in spec.members:
            problems = _element_problems({**element, member: VALUES[member]})
            assert {p.pointer for p in problems} == {f"/elements/0/{member}"}, (kind, member)
    for member in spec.members:
        problems = _element_problems({k: v for k, v in element.items() if k != member})
        assert problems, f"{kind} without its {member} passes the schema"


def test_a_variant_ruleset_without_the_new_members_keeps_the_bundled_look():
    data = copy.deepcopy(LINE.data)
    data["id"] = "line-old-copy"
    for definition in data["elements"].values():
        for member in ("name", "size_mm", "shortcut", "id_prefix", "members", "footprint", "glyph", "colour_role"):
            definition.pop(member, None)
    old = Ruleset(data)
    assert old.kinds["monster"] == LINE.kinds["monster"]
    assert old.kinds["boss"].members == ("vp",) and old.kinds["start"].on_wall
    generic = resolve_kind(
        "relic",
        {"description": "Touch it.", "interaction": "touch", "vp": 2, "penalty": True, "placement": "inside_area"},
    )
    assert (generic.name, generic.size_mm, generic.glyph, generic.footprint, generic.members) == (
        "Relic",
        8.0,
        "generic",
        "disc",
        (),
    )


# -- the proof: a new kind with no code ------------------------------------------------------------

RELIC = {
    "name": "Relic",
    "description": "Touch it.",
    "interaction": "touch",
    "vp": 2,
    "penalty": True,
    "placement": "inside_area",
    "size_mm": 6,
    "shortcut": "Q",
    "id_prefix": "relic",
    "glyph": "generic",
    "colour_role": "ink",
}


@pytest.fixture
def relic_pack(tmp_path) -> Path:
    pack = tmp_path / "relics"
    (pack / "dungeons").mkdir(parents=True)
    (pack / "rulesets").mkdir()
    ruleset = copy.deepcopy(LINE.data)
    ruleset.update(id="line-relics", name="Line with relics")
    ruleset["elements"]["relic"] = dict(RELIC)
    (pack / "rulesets" / "line-relics.json").write_text(json.dumps(ruleset))
    dungeon = line_dungeon()
    dungeon.update(id="relic-test", ruleset="line-relics")
    dungeon["elements"].append({"id": "rl1", "kind": "relic", "at": [35, 35], "size_mm": 6, "rotation_deg": 0})
    (pack / "dungeons" / "relic.json").write_text(json.dumps(dungeon))
    (pack / "pack.json").write_text(
        json.dumps(
            {
                "type": "pack",
                "format_version": 1,
                "id": "relics",
                "name": "Relics",
                "version": "1.0.0",
                "ruleset": "line-relics",
                "rulesets": ["rulesets/line-relics.json"],
                "dungeons": ["dungeons/relic.json"],
            }
        )
    )
    return pack


def test_a_new_kind_validates_prints_exports_and_plays(relic_pack, tmp_path, capsys):
    assert main(["validate", str(relic_pack), "--strict"]) == 0, capsys.readouterr().out
    svg = tmp_path / "relic.svg"
    assert main(["export", "sheet", str(relic_pack), "-o", str(svg)]) == 0
    groups = [g for g in ET.parse(svg).iter("{http://www.w3.org/2000/svg}g") if g.get("data-id") == "rl1"]
    assert len(groups) == 1 and groups[0].get("data-kind") == "relic"
    assert len(list(groups[0])) >= 2  # the generic glyph: a double ring and the initial
    opened = open_dungeons([str(relic_pack)])
    entry = game_document(opened.dungeons)["dungeons"][0]
    relic = next(e for e in entry["elements"] if e["id"] == "rl1")
    assert (relic["interaction"], relic["vp"], relic["penalty"]) == ("touch", 2, True) and relic["ink"]
    # from the Start down to the relic (its ring reaches 0.9 x 3 mm + half its 0.3 mm stroke from (35, 35)),
    # then out through the opening to the corridor: +2 for the relic, -1 for the monster left in r1
    play = {
        "type": "play",
        "format_version": 1,
        "dungeon": "relic-test",
        "path": [[[50, 20], [50, 30], [36, 36], [75, 45], [85, 50], [115, 50]]],
    }
    result = referee(entry, play)
    relic_lines = [line for s in result["sections"] for line in s["lines"] if line.get("element") == "rl1"]
    assert [line["vp"] for line in relic_lines] == [2]


def test_a_new_kind_is_placed_in_the_editor(relic_pack, qtbot):
    from tests.editor_support import click, make_window

    window = make_window(qtbot, relic_pack / "dungeons" / "relic.json")
    assert "relic" in window.tool_actions
    action = window.tool_actions["relic"]
    assert action.text() == "Relic" and action.shortcut().toString() == "Q"
    window.set_tool("relic")
    window.view.set_zoom(2.0)
    window.view.centerOn(50, 50)
    before = len(window.current.dungeon.elements)
    click(window.view, 60, 60)
    added = window.current.dungeon.elements[before:]
    assert [(e.kind, e.size_mm, e.id.startswith("relic")) for e in added] == [("relic", 6, True)]


def test_a_new_outer_boundary_kind_is_a_start_everywhere(relic_pack, capsys):
    ruleset_path = relic_pack / "rulesets" / "line-relics.json"
    ruleset = json.loads(ruleset_path.read_text())
    ruleset["elements"]["gate"] = {
        "name": "Gate",
        "description": "Where the line begins.",
        "interaction": "none",
        "vp": 0,
        "penalty": False,
        "placement": "outer_boundary",
        "size_mm": 8,
    }
    ruleset_path.write_text(json.dumps(ruleset))
    dungeon_path = relic_pack / "dungeons" / "relic.json"
    dungeon = json.loads(dungeon_path.read_text())
    dungeon["elements"] = [e for e in dungeon["elements"] if e["kind"] != "start"]
    dungeon["elements"].append({"id": "g1", "kind": "gate", "at": [50, 20], "size_mm": 6, "rotation_deg": 0})
    dungeon_path.write_text(json.dumps(dungeon))
    assert main(["validate", str(relic_pack)]) == 0, capsys.readouterr().out
    entry = game_document(open_dungeons([str(relic_pack)]).dungeons)["dungeons"][0]
    assert [s["id"] for s in entry["starts"]] == ["g1"] and "g1" not in [e["id"] for e in entry["elements"]]


def test_a_kind_may_not_take_a_door_or_label_footprint():
    from inkcrawl.rulesets import ruleset_consistency_problems

    data = copy.deepcopy(LINE.data)
    data["elements"]["gate"] = {
        "name": "Gate",
        "description": "x",
        "interaction": "none",
        "vp": 0,
        "penalty": False,
        "placement": "between_areas",
        "footprint": "segment",
    }
    problems = ruleset_consistency_problems(data, "r.json")
    assert sorted(p.pointer for p in problems if p.code == "C006") == [
        "/elements/gate/footprint",
        "/elements/gate/placement",
    ]


def test_a_disc_kind_naming_a_glyph_drawn_otherwise_prints_and_plays_the_generic_one(relic_pack):
    ruleset_path = relic_pack / "rulesets" / "line-relics.json"
    ruleset = json.loads(ruleset_path.read_text())
    ruleset["elements"]["relic"]["glyph"] = "start"
    ruleset_path.write_text(json.dumps(ruleset))
    entry = game_document(open_dungeons([str(relic_pack)]).dungeons)["dungeons"][0]
    assert next(e for e in entry["elements"] if e["id"] == "rl1")["ink"]
