"""The bundled content packs: what they must contain, and that they are playable."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import PACKS

from inkcrawl.rulesets import bundled_rulesets
from inkcrawl.validate import Report, validate_pack

LINE_PACK = PACKS / "lantern-depths"
GRID_PACK = PACKS / "ember-halls"


def _dungeons(pack):
    manifest = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    return manifest, [json.loads((pack / rel).read_text(encoding="utf-8")) for rel in manifest["dungeons"]]


@pytest.mark.parametrize("pack", [LINE_PACK, GRID_PACK], ids=lambda p: p.name)
def test_pack_validates_without_any_problem(pack):
    report = Report()
    validate_pack(pack / "pack.json", report)
    assert [(p.file, p.pointer, p.code, p.message) for p in report.problems] == []
    assert report.dungeons == len(_dungeons(pack)[1])


def test_grid_pack_has_two_dungeons_and_a_deck():
    manifest, dungeons = _dungeons(GRID_PACK)
    assert manifest["ruleset"] == "grid-classic"
    assert len(dungeons) >= 2 and all(d["family"] == "grid" for d in dungeons)
    assert manifest.get("decks"), "the grid pack ships a deck definition"


def test_line_pack_uses_every_element_kind_and_end_trigger():
    manifest, dungeons = _dungeons(LINE_PACK)
    ruleset = bundled_rulesets()[manifest["ruleset"]]
    assert len(dungeons) >= 4
    elements = [e for d in dungeons for e in d["elements"]]
    assert set(ruleset.elements) <= {e["kind"] for e in elements}
    assert {a["kind"] for d in dungeons for a in d["areas"]} == {"room", "corridor"}
    assert any(d["walls"] for d in dungeons)
    triggers = {t["kind"] for d in dungeons for t in d["sheet"]["end_triggers"]}
    assert triggers == {"boss_covered", "timer", "escape_portal", "orb_taken", "exit_reached"}
    for kind in ("spell", "treasure"):
        assert {e["variant"] for e in elements if e["kind"] == kind} == set(ruleset.element_values(kind, "variants"))
    assert {e["colour"] for e in elements if e["kind"] == "key"} == set(ruleset.key_colours)
    assert {e["colour"] for e in elements if e["kind"] == "orb"} == set(ruleset.element_values("orb", "colours"))
    locks = [e["locks"] for e in elements if e["kind"] == "door"]
    assert any(lock == ["skeleton"] for lock in locks), "a skeleton-key door"
    assert any(len(lock) == 1 and lock != ["skeleton"] for lock in locks), "a single-colour door"
    assert any(len(lock) > 1 for lock in locks), "a door with several locks"


def test_line_dungeons_each_have_a_start_and_unique_ids():
    _, dungeons = _dungeons(LINE_PACK)
    for dungeon in dungeons:
        kinds = Counter(e["kind"] for e in dungeon["elements"])
        assert kinds["start"] >= 1
        ids = [o["id"] for key in ("areas", "walls", "elements") for o in dungeon[key]]
        assert len(ids) == len(set(ids))
