"""The line referee (inkcrawl.engines.line): every scoring term, every rules switch, each
character ability and end trigger, a worked example like the rulebook's, and a property test.

Every expected value is computed by hand from RULES.md section 2 and its "Gaps and defaults"
(the readings the referee documents are in its module docstring). The test dungeon, "Test
Keep", is converted to game data by ``inkcrawl.gamedata`` (the referee reads only that)::

    y=20  +----- r1 Hall ------+                    +------ r2 Vault ------+
          | st1 on the top wall|    c1 (corridor)   |  a1        a2        |
          |  m1        p1      +--------------------+             a3       |
          |                    |        p2          |        |w2           |
          |  pr1       s1      +--------------------+  m2    |      t1     |
    y=80  +====== w1 (wall) ===+                    +--+ c2 +--------------+
          | r3 Throne          |                       | m5 |
          |        b1 (boss)   |                       |    |
    y=120 |                    +----------- r4 Gallery-+    +--------------+
          |  px1          pr2  d1 (red)  k1     s2          m3             |
    y=140 +--------------------+        o1                        pe1      |
                               |                                           |
    y=180                      +-------------------------------------------+
         x=20                 x=80                x=120  x=140            x=180

Openings: r1|c1 (x=80, y 40..60), c1|r2 (x=120, y 40..60), r2|c2 (y=80, x 120..140),
c2|r4 (y=120, x 120..140). r1|r3 is closed by the wall w1; r4|r3 is the red door d1
(x=80, y 120..140). Portal A: entry pe1 in r4, exit px1 in r3. Blue orb tokens 4, 3, 2, 1.
End triggers: boss covered, timer. Pen 1.5 mm.
"""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl import shapes
from inkcrawl.engines.line import GameDataError, LineRules, PlayError, format_breakdown, referee
from inkcrawl.gamedata import GAME_FORMAT_VERSION, line_game_data
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import bundled_rulesets
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

W = 1.5  # line-classic pen width


# -- the test dungeon ---------------------------------------------------------------------------


def _el(ident, kind, at, size, **extra):
    return {"id": ident, "kind": kind, "at": list(at), "size_mm": size, "rotation_deg": 0, **extra}


def keep_variant(end_triggers: list, components: list) -> dict:
    """The Test Keep document with these end triggers and components and no orb tokens: the
    start of a hand-made dungeon, whose areas, walls and elements the caller sets."""
    dungeon = keep_dungeon()
    dungeon["sheet"]["end_triggers"] = end_triggers
    dungeon["sheet"]["components"] = components
    dungeon["sheet"]["orb_tokens"] = {}
    return dungeon


def keep_dungeon() -> dict:
    """The Test Keep dungeon document (see the module docstring)."""
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "test-keep",
        "family": "line",
        "ruleset": "line-classic",
        "sheet": {
            "title": "Test Keep",
            "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
            "reminders": [],
            "components": ["orbs", "keys", "timer"],
            "end_triggers": [{"kind": "boss_covered"}, {"kind": "timer", "seconds": 180}],
            "orb_tokens": {"blue": [4, 3, 2, 1]},
        },
        "areas": [
            {"id": "r1", "kind": "room", "name": "Hall", "polygon": [[20, 20], [80, 20], [80, 80], [20, 80]]},
            {"id": "c1", "kind": "corridor", "polygon": [[80, 40], [120, 40], [120, 60], [80, 60]]},
            {"id": "r2", "kind": "room", "name": "Vault", "polygon": [[120, 20], [180, 20], [180, 80], [120, 80]]},
            {"id": "c2", "kind": "corridor", "polygon": [[120, 80], [140, 80], [140, 120], [120, 120]]},
            {"id": "r4", "kind": "room", "name": "Gallery", "polygon": [[80, 120], [180, 120], [180, 180], [80, 180]]},
            {"id": "r3", "kind": "room", "name": "Throne", "polygon": [[20, 80], [80, 80], [80, 140], [20, 140]]},
        ],
        "walls": [{"id": "w1", "points": [[20, 80], [80, 80]]}, {"id": "w2", "points": [[150, 55], [150, 78]]}],
        "elements": [
            _el("st1", "start", (50, 20), 8),
            _el("m1", "monster", (35, 40), 8, name="Rat"),
            _el("p1", "plant", (65, 40), 7),
            _el("pr1", "prisoner", (35, 65), 7),
            _el("s1", "spell", (60, 65), 10, variant="ward"),
            _el("p2", "plant", (100, 50), 7),
            _el("a1", "artifact_stone", (130, 30), 5, number=1),
            _el("a2", "artifact_stone", (170, 30), 5, number=2),
            _el("a3", "artifact_stone", (170, 50), 5, number=3),
            _el("m2", "monster", (135, 65), 8),
            _el("t1", "treasure", (165, 68), 10, variant="chest"),
            _el("m5", "monster", (130, 100), 6),
            _el("k1", "key", (95, 130), 6, colour="red"),
            _el("s2", "spell", (130, 150), 10, variant="star"),
            _el("m3", "monster", (160, 135), 8),
            _el("o1", "orb", (100, 165), 8, colour="blue"),
            _el("pe1", "portal_entry", (170, 170), 8, channel="A"),
            _el("b1", "boss", (50, 105), 16, vp=5, name="Gate Ogre"),
            _el("px1", "portal_exit", (30, 130), 8, channel="A"),
            _el("pr2", "prisoner", (68, 130), 7),
            {"id": "d1", "kind": "door", "segment": [[80, 120], [80, 140]], "locks": ["red"]},
        ],
    }


def entry_of(dungeon: dict, *, validate: bool = True, **switches) -> dict:
    """The game data entry of a dungeon document, with rules switches overridden."""
    if validate:
        problems, _ = check_dungeon_data(dungeon, "test-keep.json", RulesetRegistry())
        assert [p for p in problems if p.severity.value == "error"] == []
    entry = line_game_data(dungeon_from_dict(dungeon), bundled_rulesets()["line-classic"])
    entry["switches"].update(switches)
    return entry


def mutated(change=None, **switches) -> dict:
    dungeon = keep_dungeon()
    if change is not None:
        change(dungeon)
    return entry_of(dungeon, **switches)


_KEEP = entry_of(keep_dungeon())
_RULES = LineRules(_KEEP)


def score(*polylines, entry=None, **play) -> dict:
    """Score a play (polylines of points) on the Test Keep (or ``entry``)."""
    document = {
        "type": "play",
        "format_version": 1,
        "dungeon": "test-keep",
        "path": [[list(map(float, p)) for p in line] for line in polylines],
        **play,
    }
    return referee(_RULES if entry is None else LineRules(entry), document)


def subtotals(result: dict) -> list[tuple[str, int]]:
    return [(s["area"], s["subtotal"]) for s in result["sections"]]


def lines(result: dict, element: str | None = None, kind: str | None = None) -> list[dict]:
    found = [line for s in result["sections"] for line in s["lines"]]
    found += result["orbs"]["lines"] + result["boss"]["lines"]
    return [
        line
        for line in found
        if (element is None or line.get("element") == element) and (kind is None or line["kind"] == kind)
    ]


def vp_of(result: dict, element: str) -> int:
    return sum(line["vp"] for line in lines(result, element))


# -- path pieces ---------------------------------------------------------------------------------


def cover(cx, cy, size, fraction=1.0, step=0.9):
    """Rows across a round element (1.5 mm pen, rows 0.9 mm apart) covering the top
    ``fraction`` of its height."""
    r = size / 2
    points = []
    y = cy - r + 0.4
    i = 0
    while y <= cy - r + fraction * 2 * r - 0.3 + 1e-9:
        half = math.sqrt(max(r * r - (y - cy) ** 2, 0)) + 0.6
        row = [(cx - half, y), (cx + half, y)]
        points += row if i % 2 == 0 else row[::-1]
        y += step
        i += 1
    return points


def ward_ring(fraction=1.0):
    ring = shapes.spell_trace("ward", (60, 65), 10)[0]
    return ring[: max(2, int(len(ring) * fraction))]


START = [(50, 20), (50, 30)]
#: From the Start through r1, c1, r2 and c2 into r4, touching nothing.
TO_R4 = [(50, 20), (50, 30), (50, 55), (82, 50), (100, 57), (125, 55), (125, 85), (125, 125)]
#: Leave r1 into c1 through the opening (from the middle of r1).
LEAVE_R1 = [(50, 55), (82, 50)]
#: Through the red door into r3, touching prisoner pr2.
DOOR_TO_R3 = [(100, 138), (85, 138), (66, 131)]
TAKE_KEY = [(96, 129)]


# -- the elements ------------------------------------------------------------------------------


def test_monster_covered_scores_and_the_others_left_cost_their_vp():
    result = score(START + cover(35, 40, 8) + LEAVE_R1)
    # r1: m1 +1; p1, pr1, s1 missed (-1 each); c1: nothing
    assert subtotals(result) == [("r1", -2), ("c1", 0)]
    assert vp_of(result, "m1") == 1 and lines(result, "m1")[0]["kind"] == "completed"
    assert {line["element"] for line in lines(result, kind="missed")} == {"p1", "pr1", "s1"}
    assert result["total"] == -2


def test_monster_half_covered_fails_without_penalty():
    result = score(START + cover(35, 40, 8, fraction=0.5) + LEAVE_R1)
    assert lines(result, "m1")[0]["kind"] == "failed" and vp_of(result, "m1") == 0
    assert "covered" in lines(result, "m1")[0]["text"]
    assert result["total"] == -3


def test_spell_traced():
    result = score(START + [(50, 55)] + ward_ring() + LEAVE_R1)
    assert vp_of(result, "s1") == 1
    assert result["total"] == -2  # m1, p1, pr1 missed


def test_spell_partly_traced_fails():
    # down onto the top of the ring (radius 3.5 at (60, 65)), round its right half, away to the
    # right: the left half's middle, (56.5, 65), stays 4.9 mm from the line (> 2.25 mm)
    result = score(START + [(60, 50)] + ward_ring(0.5) + [(70, 68), (70, 55), (50, 55), (82, 50)])
    assert lines(result, "s1")[0]["kind"] == "failed"
    assert result["total"] == -3  # m1, p1, pr1 missed; s1 failed: 0


def test_spell_traced_within_the_tolerance_but_not_beyond():
    """RULES.md 2: "traced" = every point within one pen width of the STROKE (the path buffered
    by half the pen width): 1 x 1.5 mm + 0.75 mm = 2.25 mm from the centre line."""
    ring = np.array(ward_ring())
    centre = np.array([60, 65])

    def offset(d):  # the ring (radius 3.5) drawn d mm outside itself
        return [tuple(centre + (p - centre) * (1 + d / 3.5)) for p in ring]

    assert vp_of(score(START + [(50, 55)] + offset(1.3) + LEAVE_R1), "s1") == 1  # 1.3 mm <= 2.25 mm
    assert vp_of(score(START + [(50, 55)] + offset(2.0) + LEAVE_R1), "s1") == 1  # 2.0 mm <= 2.25 mm
    assert vp_of(score(START + [(50, 55)] + offset(2.4) + LEAVE_R1), "s1") == -1  # 2.4 mm > 2.25: missed, r1 left


def test_treasure_outline_traced_within_the_tolerance_but_not_beyond():
    """The same tolerance for a treasure's outline (chest t1 at (165, 68), a convex outline):
    drawn d mm outside it, every outline point is d mm from the line."""
    outline = shapely.Polygon(shapes.treasure_outline("chest", (165, 68), 10))

    def around(d):
        ring = list(outline.buffer(d, quad_segs=32).exterior.coords)
        return [(165, 58 - d)] + ring  # from above, away from the outline

    # r1 left: -4; r2 is the end room: t1 +1 when traced, else exempt 0
    assert vp_of(score(TO_R4[:6] + [(150, 50)] + around(2.0)), "t1") == 1  # 2.0 mm <= 2.25 mm
    assert vp_of(score(TO_R4[:6] + [(150, 50)] + around(2.4)), "t1") == 0  # 2.4 mm > 2.25 mm: not traced


def test_treasure_traced():
    outline = shapes.treasure_outline("chest", (165, 68), 10)
    result = score(TO_R4[:6] + [(150, 50)] + outline)  # ends in r2: its other elements exempt
    assert vp_of(result, "t1") == 1
    # r1 left: -4; r2 (end room): t1 +1
    assert subtotals(result) == [("r1", -4), ("c1", 0), ("r2", 1)]


def test_artifacts_connected_in_order_untouched_and_partly():
    into_r2, out_of_r2 = TO_R4[:6], [(145, 50), (125, 55), (125, 85)]
    in_order = score(into_r2 + [(130, 30), (170, 30), (170, 50)] + out_of_r2)
    wrong_order = score(into_r2 + [(130, 30), (170, 50), (170, 30)] + out_of_r2)
    untouched = score(into_r2 + [(125, 85)])
    # r2 left: m2 -1, t1 -1, and the triple: +1 / partial 0 / untouched -1
    assert [s for a, s in subtotals(in_order) if a == "r2"] == [-1]
    assert [s for a, s in subtotals(wrong_order) if a == "r2"] == [-2]
    assert [s for a, s in subtotals(untouched) if a == "r2"] == [-3]
    assert lines(wrong_order, "a1,a2,a3")[0]["kind"] == "failed"
    assert lines(untouched, "a1,a2,a3")[0]["kind"] == "missed"
    assert (in_order["total"], wrong_order["total"], untouched["total"]) == (-5, -6, -7)


def test_plant_passed_through_or_only_touched():
    through = score(START + [(50, 40), (58, 40), (72, 40), (72, 46)] + LEAVE_R1)
    same_side = score(START + [(50, 40), (58, 40), (64, 40), (58, 41.5)] + LEAVE_R1)
    grazing = score(START + [(50, 42.8), (72, 42.8), (72, 46)] + LEAVE_R1)  # a chord 2.8 mm off a 3.5 mm radius
    assert vp_of(through, "p1") == 1 and through["total"] == -2
    assert lines(same_side, "p1")[0]["kind"] == "failed" and same_side["total"] == -3
    assert lines(grazing, "p1")[0]["kind"] == "failed"


def test_prisoner_touched_by_the_stroke_edge():
    # Touch is judged on the printed cage, not on the element's 7 mm disc. At the prisoner's
    # height (y = 65) the cage's side stands 0.60 radii = 2.1 mm right of its centre, stroked
    # 0.05 * 7 = 0.35 mm wide: its ink ends at 35 + 2.1 + 0.175 = 37.275. A horizontal stroke
    # coming from the right touches it when its end is within half the pen (0.75 mm): x <= 38.025.
    def towards(x):
        return START + [(50, 55), (50, 65), (x, 65), (50, 65), (50, 55)] + LEAVE_R1

    touched = score(towards(37.9))
    missed = score(towards(38.2))  # 3.2 mm from the centre: inside the old 4.25 mm disc reach
    assert vp_of(touched, "pr1") == 1 and touched["total"] == -2
    assert vp_of(missed, "pr1") == -1 and missed["total"] == -4


# -- rooms, corridors and re-entry ------------------------------------------------------------------


def test_corridor_elements_are_optional():
    result = score(TO_R4[:4] + [(100, 57), (125, 55)])  # through c1 past plant p2, into r2
    assert lines(result, "p2")[0]["kind"] == "optional" and vp_of(result, "p2") == 0
    assert subtotals(result) == [("r1", -4), ("c1", 0), ("r2", 0)]


def test_switch_penalties_in_rooms_and_corridors():
    entry = mutated(penalties_in="rooms_and_corridors")
    result = score(TO_R4[:4] + [(100, 57), (125, 55)], entry=entry)
    assert lines(result, "p2")[0]["kind"] == "missed"
    assert subtotals(result) == [("r1", -4), ("c1", -1), ("r2", 0)]


def test_the_room_the_scrawl_ends_in_is_exempt():
    result = score(START)
    assert result["total"] == 0
    assert {line["kind"] for section in result["sections"] for line in section["lines"]} == {"exempt"}
    assert result["end"]["exempt_area"] == "r1"


def test_switch_end_room_exempt_false():
    result = score(START, entry=mutated(end_room_exempt=False))
    assert result["total"] == -4


def test_reentry_judged_on_the_final_state():
    path = START + [(50, 55), (82, 50), (50, 55), (50, 30)] + cover(35, 40, 8) + [(50, 55), (82, 50)]
    result = score(path)
    # r1, c1, r1 again (m1 +1; p1, pr1, s1 settled here: -3), c1
    assert subtotals(result) == [("r1", 0), ("c1", 0), ("r1", -2), ("c1", 0)]
    assert result["total"] == -2


def test_switch_reentry_each_visit():
    path = START + [(50, 55), (82, 50), (50, 55), (50, 30)] + cover(35, 40, 8) + [(50, 55), (82, 50)]
    result = score(path, entry=mutated(reentry="each_visit"))
    # the first departure charges all four; m1 still scores when covered later
    assert subtotals(result) == [("r1", -4), ("c1", 0), ("r1", 1), ("c1", 0)]
    assert result["total"] == -3


# -- walls ----------------------------------------------------------------------------------------

OUT_AND_BACK = [(72, 22), (72, 17), (75, 17), (75, 22)]


def test_wall_crossing_out_and_back_costs_one():
    result = score(START + OUT_AND_BACK)
    assert [line["vp"] for line in lines(result, kind="wall_crossing")] == [-1]
    assert result["total"] == -1


def test_touching_a_wall_is_free():
    stroke_touch = score(START + [(72, 22), (72, 20.5), (75, 22)])
    line_touch = score(START + [(72, 22), (72, 20), (75, 22)])  # the centre line reaches the wall, turns back
    corner = score(START + [(70, 30), (80, 40), (80, 40.5), (78, 45)])  # through the end of a wall, at the opening
    for result in (stroke_touch, line_touch, corner):
        assert lines(result, kind="wall_crossing") == [] and result["total"] == 0


def test_switch_wall_crossing_per_wall_segment_and_vp():
    assert score(START + OUT_AND_BACK, entry=mutated(wall_crossing_count="per_wall_segment"))["total"] == -2
    assert score(START + OUT_AND_BACK, entry=mutated(wall_crossing_vp=-2))["total"] == -2


def test_crossing_a_wall_inside_an_area():
    into_r2 = TO_R4[:6] + [(140, 60), (160, 60), (160, 50)]  # through wall w2 at (150, 60)
    result = score(into_r2)
    assert [line["vp"] for line in lines(result, kind="wall_crossing")] == [-1]
    assert subtotals(result) == [("r1", -4), ("c1", 0), ("r2", -1)]


def test_crossing_a_wall_into_another_area_ignores_the_rest():
    result = score(START + cover(35, 40, 8) + [(50, 75), (50, 85), (68, 128)])  # through w1 into r3, to pr2
    assert [s["area"] for s in result["sections"]] == ["r1"]
    # r1 was left (through the wall): m1 +1, p1, pr1, s1 -3; pr2 is ignored
    assert result["sections"][0]["subtotal"] == -2 and result["total"] == -2
    assert result["ignored"]["at"] == [50.0, 80.0]
    assert lines(result, "pr2") == []


# -- the Start and its entrance gap --------------------------------------------------------------------
# st1 at (50, 20) on r1's top wall, 8 mm across: its reach (and r1's entrance gap) is 4 + 0.75 mm.


def test_the_line_is_in_the_start_area_from_its_first_point():
    result = score([(50, 17), (50, 30)])  # begun just outside the outline, into r1 through the gap
    assert [s["area"] for s in result["sections"]] == ["r1"]
    assert lines(result, kind="wall_crossing") == [] and result["total"] == 0  # r1 is the end room


def test_out_and_back_through_the_start_gap_is_free():
    result = score([(50, 22), (48, 17), (52, 17), (52, 25)])  # out at (49.2, 20), back at (52, 20): in the gap
    assert lines(result, kind="wall_crossing") == [] and result["total"] == 0


def test_back_into_the_start_area_through_a_wall_is_an_excursion():
    # begun at the Start, outside the outline; back into r1 through its top wall at (70, 20):
    # one excursion, -1; r1 is the end room (its elements exempt): total -1
    begun_outside = score([(50, 20), (50, 17), (70, 17), (70, 25)])
    # begun inside, out through the gap (free), back through the wall: one crossing, -1 either way
    begun_inside = [(50, 22), (50, 17), (70, 17), (70, 25)]
    for result in (
        begun_outside,
        score(begun_inside),
        score(begun_inside, entry=mutated(wall_crossing_count="per_wall_segment")),
    ):
        assert [line["vp"] for line in lines(result, kind="wall_crossing")] == [-1]
        assert result["sections"][0]["lines"][0]["at"] == [70.0, 20.0]
        assert result["total"] == -1
    # out through the wall at (30, 20) and back at (70, 20): 2 crossings per_wall_segment
    out_wall = [(30, 25), (30, 17), (70, 17), (70, 25)]
    assert score(START + out_wall, entry=mutated(wall_crossing_count="per_wall_segment"))["total"] == -2


def test_into_another_area_through_a_wall_from_outside_is_illegal():
    result = score([(50, 20), (50, 15), (150, 15), (150, 30)])  # into r2 through its top wall at (150, 20)
    # r1 was entered at the Start and left with m1, p1, pr1, s1 undone (-4); no area is exempt;
    # everything from (150, 20) on is ignored
    assert [s["area"] for s in result["sections"]] == ["r1"]
    assert result["ignored"]["at"] == [150.0, 20.0] and "crossed a wall into room r2" in result["ignored"]["reason"]
    assert {line["element"] for line in lines(result, kind="missed")} == {"m1", "p1", "pr1", "s1"}
    assert result["end"]["exempt_area"] is None and result["total"] == -4


# -- doors and keys --------------------------------------------------------------------------------

BASE_TO_R4 = -4 - 3  # r1 left (-4), r2 left (m2, t1, untouched triple: -3)


def test_locked_door_with_and_without_its_key():
    with_key = score(TO_R4 + TAKE_KEY + DOOR_TO_R3)
    without = score(TO_R4 + DOOR_TO_R3)
    # r4 left: s2, m3 missed, pe1 unused (-3); r3 (the end): pr2 +1
    assert [s["area"] for s in with_key["sections"]] == ["r1", "c1", "r2", "c2", "r4", "r3"]
    assert with_key["sections"][-1]["entered"] == "through door d1"
    assert with_key["total"] == BASE_TO_R4 - 3 + 1
    assert [s["area"] for s in without["sections"]] == ["r1", "c1", "r2", "c2", "r4"]
    assert "locked door d1" in without["ignored"]["reason"]
    assert without["total"] == BASE_TO_R4 - 3


def _add_green_key(dungeon):
    dungeon["elements"].append(_el("k2", "key", (115, 172), 6, colour="green"))


def test_skeleton_door_and_multi_lock_door():
    def door(dungeon):
        return next(e for e in dungeon["elements"] if e["id"] == "d1")

    def skeleton(dungeon):
        door(dungeon)["locks"] = ["skeleton"]

    def two_locks(dungeon):
        _add_green_key(dungeon)
        door(dungeon)["locks"] = ["red", "skeleton"]

    entry = mutated(skeleton)
    assert score(TO_R4 + TAKE_KEY + DOOR_TO_R3, entry=entry)["ignored"] is None  # any key opens it
    assert score(TO_R4 + DOOR_TO_R3, entry=entry)["ignored"] is not None
    entry = mutated(two_locks)
    red_only = score(TO_R4 + TAKE_KEY + DOOR_TO_R3, entry=entry)
    both = score(TO_R4 + [(115, 172)] + TAKE_KEY + DOOR_TO_R3, entry=entry)
    assert red_only["ignored"] is not None  # red plus one more distinct key needed
    assert both["ignored"] is None and both["sections"][-1]["area"] == "r3"


def test_key_supply_and_keys_gone():
    assert score(TO_R4 + TAKE_KEY + DOOR_TO_R3, keys_gone=["k1"])["ignored"] is not None
    no_supply = mutated()
    no_supply["keys"]["supply"]["1"] = 0
    assert score(TO_R4 + TAKE_KEY + DOOR_TO_R3, entry=no_supply)["ignored"] is not None
    assert score(TO_R4 + TAKE_KEY + DOOR_TO_R3, entry=no_supply, players=4)["ignored"] is None  # 3 tokens with 4


def test_skeleton_key_takes_the_colour_the_next_door_needs():
    def skeleton_key(dungeon):
        k1 = next(e for e in dungeon["elements"] if e["id"] == "k1")
        k1.update(kind="skeleton_key", id="sk1")
        del k1["colour"]

    entry = mutated(skeleton_key)
    chosen = score(TO_R4 + TAKE_KEY + DOOR_TO_R3, entry=entry)
    assert chosen["ignored"] is None and any("red key" in line["text"] for line in lines(chosen, "sk1"))
    told = score(TO_R4 + TAKE_KEY + DOOR_TO_R3, entry=entry, skeleton_keys={"sk1": "green"})
    assert told["ignored"] is not None


# -- elements without a penalty -------------------------------------------------------------------


def test_an_orb_left_uncovered_is_listed_without_penalty():
    result = score(TO_R4 + TAKE_KEY + DOOR_TO_R3)  # through r4 past the blue orb o1 without covering it
    [orb] = lines(result, "o1")
    assert orb == {"kind": "optional", "vp": 0, "element": "o1", "text": "orb o1: not covered (no penalty)"}
    assert orb in result["sections"][4]["lines"]  # r4, the area the orb is in
    assert result["total"] == BASE_TO_R4 - 3 + 1  # unchanged: r4 s2, m3, pe1 -3; r3 pr2 +1
    assert "0  orb o1: not covered (no penalty)" in format_breakdown(result)
    covered = score(TO_R4 + [(96, 158)] + cover(100, 165, 8))  # covered: on the orb token lines only
    assert [line["kind"] for line in lines(covered, "o1")] == ["orb"]


def test_an_element_whose_penalty_is_false_is_listed_without_penalty():
    entry = mutated()
    next(e for e in entry["elements"] if e["id"] == "m1")["penalty"] = False
    result = score(START + LEAVE_R1, entry=entry)
    # r1 left: p1, pr1, s1 -1 each; m1 (penalty false): 0, listed
    assert lines(result, "m1") == [
        {"kind": "optional", "vp": 0, "element": "m1", "text": "monster m1 (Rat): not completed (no penalty)"}
    ]
    assert result["total"] == -3
    assert lines(result, "k1") == []  # keys of areas not entered, or left alone, are not listed


# -- portals ---------------------------------------------------------------------------------------

TO_PE1 = TO_R4 + [(168, 168)]


def test_portal_jump():
    result = score(TO_PE1 + [(175, 175)], [(30, 130), (66, 131)])
    assert [s["area"] for s in result["sections"]][-2:] == ["r4", "r3"]
    assert result["sections"][-1]["entered"] == "through portal A (exit px1)"
    # r4 left by the portal: pe1 used (0), s2 and m3 missed (-2); r3: pr2 +1
    assert result["sections"][-2]["subtotal"] == -2
    assert result["total"] == BASE_TO_R4 - 2 + 1
    assert any("ignored" in note for note in result["notes"])  # (175, 175) after the touch


def test_a_polyline_must_start_at_an_exit_of_the_channel():
    with pytest.raises(PlayError) as caught:
        score(TO_PE1, [(40, 100), (66, 131)])
    assert caught.value.problems[0][0] == "/path/1/0" and "portal exit" in caught.value.problems[0][1]
    with pytest.raises(PlayError) as caught:
        score(START, [(30, 130), (66, 131)])
    assert "touches no portal entry" in caught.value.problems[0][1]


def test_switch_unused_portal_entry_vp():
    path = TO_R4 + TAKE_KEY + DOOR_TO_R3
    assert score(path)["sections"][4]["subtotal"] == -3
    assert score(path, entry=mutated(unused_portal_entry_vp=-2))["sections"][4]["subtotal"] == -4
    assert score(path, entry=mutated(unused_portal_entry_vp=0))["sections"][4]["subtotal"] == -2


# -- orbs, boss and end triggers ---------------------------------------------------------------------


def test_orb_tokens_by_position():
    path = TO_R4 + [(96, 158)] + cover(100, 165, 8)  # ends in r4: exempt
    assert score(path)["orbs"]["subtotal"] == 4  # 1st blue token
    assert score(path, orb_tokens={"blue": [3]})["orbs"]["subtotal"] == 2
    assert score(path, orb_tokens={"blue": [5]})["orbs"]["subtotal"] == 0  # the stack is empty
    assert score(path)["total"] == BASE_TO_R4 + 4


def _orb_trigger(when):
    def change(dungeon):
        dungeon["sheet"]["end_triggers"].append({"kind": "orb_taken", "colour": "blue", "when": when})

    return mutated(change)


def test_orb_taken_first_or_last_ends_the_scrawl():
    path = TO_R4 + [(96, 158)] + cover(100, 165, 8) + [(150, 131)] + cover(160, 135, 8)
    first = _orb_trigger("first")
    assert vp_of(score(path, entry=first), "m3") == 0  # cut when the 1st token is taken
    assert vp_of(score(path, entry=first, orb_tokens={"blue": [2]}), "m3") == 1
    last = _orb_trigger("last")
    assert vp_of(score(path, entry=last), "m3") == 1
    assert vp_of(score(path, entry=last, orb_tokens={"blue": [4]}), "m3") == 0
    assert "blue orb token" in score(path, entry=first)["end"]["reason"]


BOSS = [(75, 138), (75, 122)] + cover(50, 105, 16)


def test_boss_covered_scores_its_vp_and_ends_the_scrawl():
    result = score(TO_R4 + TAKE_KEY + [(100, 138), (85, 138)] + BOSS + [(66, 131)])
    assert result["boss"]["subtotal"] == 5
    assert "covered" in result["end"]["reason"]
    assert [line["kind"] for line in lines(result, "pr2")] == ["exempt"]  # after the boss: cut; r3 exempt
    assert result["total"] == BASE_TO_R4 - 3 + 5


def test_boss_without_the_end_trigger_does_not_cut():
    def no_trigger(dungeon):
        dungeon["sheet"]["end_triggers"] = [{"kind": "timer", "seconds": 180}]

    result = score(TO_R4 + TAKE_KEY + [(100, 138), (85, 138)] + BOSS + [(66, 131)], entry=mutated(no_trigger))
    assert result["boss"]["subtotal"] == 5 and vp_of(result, "pr2") == 1
    assert result["end"]["reason"] == "the path ends"


def _with_element(kind, trigger):
    def change(dungeon):
        dungeon["elements"].append(_el("e1", kind, (72, 28), 8))
        if trigger:
            dungeon["sheet"]["end_triggers"].append({"kind": trigger})

    return change


@pytest.mark.parametrize("kind, trigger", [("escape_portal", "escape_portal"), ("exit", "exit_reached")])
def test_escape_portal_and_exit_end_the_scrawl_when_listed(kind, trigger):
    path = START + [(72, 30), (50, 30)] + cover(35, 40, 8)  # enter e1, then cover m1
    listed = score(path, entry=mutated(_with_element(kind, trigger)))
    assert vp_of(listed, "m1") == 0 and listed["end"]["reason"].endswith(("entered", "reached"))
    unlisted = score(path, entry=mutated(_with_element(kind, None)))
    assert vp_of(unlisted, "m1") == 1


def test_timer_from_the_play_cuts_the_path():
    path = START + cover(35, 40, 8)
    done = score(path)
    assert vp_of(done, "m1") == 1
    by_length = score(path, end={"trigger": "timer", "at": {"length_mm": 40}})
    by_point = score(path, end={"trigger": "timer", "at": {"polyline": 0, "point": 5}})
    for result in (by_length, by_point):
        assert vp_of(result, "m1") == 0 and result["end"]["reason"] == "the timer ran out"
        assert result["total"] == 0  # r1 is the end room
    assert by_length["end"]["length_mm"] == 40


def test_end_trigger_from_the_play_must_be_on_the_sheet():
    with pytest.raises(PlayError) as caught:
        score(START, end={"trigger": "exit_reached", "at": {"length_mm": 5}})
    assert caught.value.problems[0][0] == "/end/trigger"


# -- characters ------------------------------------------------------------------------------------


def test_rogue_touches_a_treasure():
    path = TO_R4[:6] + [(150, 50), (165, 64)]  # into t1's middle, no tracing
    assert vp_of(score(path), "t1") == 0
    assert vp_of(score(path, character="rogue"), "t1") == 1


def test_ranger_plants_are_worth_two():
    through = START + [(50, 40), (58, 40), (72, 40), (72, 46)] + LEAVE_R1
    assert vp_of(score(through, character="ranger"), "p1") == 2
    assert vp_of(score(START + LEAVE_R1, character="ranger"), "p1") == -2  # missing one costs what it would give


def test_cleric_connects_stones_in_any_order():
    path = TO_R4[:6] + [(130, 30), (170, 50), (170, 30), (145, 50), (125, 55), (125, 85)]
    assert vp_of(score(path), "a1,a2,a3") == 0
    assert vp_of(score(path, character="cleric"), "a1,a2,a3") == 1


def test_wizard_draws_a_small_circle_inside_a_spell():
    # radius 1: the ring (radius 3.5) stays 2.5 mm from it, more than the 2.25 mm tracing tolerance
    circle = [(60 + 1.0 * math.cos(a), 65 + 1.0 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 13)]
    path = START + [(50, 55), (58, 63)] + circle + [(50, 55)] + LEAVE_R1
    assert vp_of(score(path), "s1") == 0
    assert vp_of(score(path, character="wizard"), "s1") == 1
    tiny = [(60 + 0.3 * math.cos(a), 65 + 0.3 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 13)]
    assert vp_of(score(START + [(50, 55), (58, 63)] + tiny + [(50, 55)] + LEAVE_R1, character="wizard"), "s1") == 0


def test_barbarian_covers_the_head():
    head = START + [(33, 30)] + cover(35, 38.4, 3.8)  # the head only: rows over y 36.5-40.3
    assert lines(score(head + LEAVE_R1), "m1")[0]["kind"] == "failed"
    assert vp_of(score(head + LEAVE_R1, character="barbarian"), "m1") == 1


def test_barbarian_does_not_behead_bosses():
    entry = mutated()
    boss = next(e for e in entry["elements"] if e["id"] == "b1")
    boss["head"] = shapes.monster_head((50, 105), 16)
    path = TO_R4 + TAKE_KEY + [(100, 138), (85, 138), (75, 138), (75, 122)] + cover(50, 99.8, 7.5)
    result = score(path, entry=entry, character="barbarian")
    assert result["boss"]["subtotal"] == 0


# -- the worked example ------------------------------------------------------------------------------

WORKED = (
    START
    + cover(35, 40, 8)  # r1: m1 covered (+1)
    + [(58, 40), (72, 40)]  # p1 passed through (+1)
    + [(72, 22), (72, 17), (75, 17), (75, 22)]  # out through the top wall and back (-1)
    + [(75, 50), (36, 64)]  # pr1 touched (+1); s1 never traced (-1)
    + [(50, 52), (82, 50), (110, 50), (125, 50)]  # c1: plant p2 passed through (+1)
    + cover(135, 65, 8, fraction=0.5)
    + [(141, 60)]  # r2: m2 half covered (0)
    + shapes.treasure_outline("chest", (165, 68), 10)  # through wall w2 (-1); t1 traced (+1); stones untouched (-1)
    + [(155, 52), (145, 52), (130, 85)]  # c2: m5 left alone (optional)
    + [(125, 115), (125, 125), (97, 128)]  # r4: red key
    + cover(100, 165, 8)  # blue orb: 1st token (4)
    + shapes.spell_trace("star", (130, 150), 10)[0]  # s2 traced (+1)
    + cover(160, 135, 8)  # m3 covered (+1); pe1 never used (-1)
    + [(85, 150), (78, 150), (78, 138)]  # through two walls into r3: the rest is ignored
    + [(58, 120)]
    + cover(50, 105, 16)  # the boss covered after the illegal crossing: ends, 0
)


def test_worked_example_like_the_rulebook():
    result = score(WORKED)
    assert subtotals(result) == [("r1", 1), ("c1", 1), ("r2", -1), ("c2", 0), ("r4", 1)]
    assert result["orbs"]["subtotal"] == 4
    assert result["boss"]["subtotal"] == 0 and "after the illegal crossing" in result["boss"]["lines"][0]["text"]
    assert result["ignored"]["at"] == [78.0, 140.0]  # where the line enters r3
    assert "covered" in result["end"]["reason"]
    assert result["total"] == 6
    text = format_breakdown(result)
    assert "Total: 6 VP" in text and "1. Room r1 (Hall)" in text
    kinds = {line["element"]: line["kind"] for line in lines(result) if line.get("element")}
    assert kinds["m2"] == "failed" and kinds["a1,a2,a3"] == "missed" and kinds["pe1"] == "unused_portal"


def test_switch_boss_after_illegal_crossing():
    result = score(WORKED, entry=mutated(boss_after_illegal_crossing="ends_scores_vp"))
    assert result["boss"]["subtotal"] == 5 and result["total"] == 11


def test_switch_artifact_group_values_and_size():
    partly = TO_R4[:6] + [(130, 30), (170, 50), (170, 30), (145, 50), (125, 55), (125, 85)]
    untouched = TO_R4
    assert vp_of(score(partly, entry=mutated(artifact_partial_group_vp=-1)), "a1,a2,a3") == -1
    assert vp_of(score(untouched, entry=mutated(artifact_untouched_group_vp=-2)), "a1,a2,a3") == -2
    pairs = mutated(artifact_group_size=2)
    two = TO_R4[:6] + [(130, 30), (170, 30), (145, 50), (125, 55), (125, 85)]  # stones 1 and 2, not 3
    assert vp_of(score(two, entry=pairs), "a1,a2") == 1 and vp_of(score(two, entry=pairs), "a3") == -1
    assert vp_of(score(two), "a1,a2,a3") == 0  # in threes: partly connected


# -- the play against the game data alone -------------------------------------------------------------


def test_referee_reads_only_the_game_data(tmp_path):
    """A game.json round trip: JSON text only, no dungeon or ruleset objects."""
    text = json.dumps({"type": "game", "format_version": 1, "generator": "test", "dungeons": [_KEEP]})
    entry = json.loads(text)["dungeons"][0]
    assert (
        referee(
            entry, {"type": "play", "format_version": 1, "dungeon": "test-keep", "path": [list(map(list, WORKED))]}
        )["total"]
        == 6
    )


# -- game data the referee refuses --------------------------------------------------------------------


def _set(path, value):
    def change(entry):
        target = entry
        for key in path[:-1]:
            target = (
                target[key]
                if not isinstance(key, str) or not key.startswith("#")
                else next(e for e in target if e["id"] == key[1:])
            )
        target[path[-1]] = value

    return change


def _door(entry):
    return next(c for c in entry["connections"] if c["kind"] == "door")


@pytest.mark.parametrize(
    "change, member",
    [
        (_set(("switches", "reentry"), "bogus"), "switches.reentry"),
        (_set(("switches", "penalties_in"), "everywhere"), "switches.penalties_in"),
        (_set(("switches", "wall_crossing_count"), "per_wall"), "switches.wall_crossing_count"),
        (_set(("switches", "boss_after_illegal_crossing"), "whatever"), "switches.boss_after_illegal_crossing"),
        (_set(("switches", "end_room_exempt"), "yes"), "switches.end_room_exempt"),
        (_set(("switches", "wall_crossing_vp"), "x"), "switches.wall_crossing_vp"),
        (_set(("switches", "unused_portal_entry_vp"), -0.5), "switches.unused_portal_entry_vp"),
        (_set(("switches", "artifact_untouched_group_vp"), True), "switches.artifact_untouched_group_vp"),
        (_set(("switches", "artifact_group_size"), 0), "switches.artifact_group_size"),
        (_set(("switches", "artifact_group_size"), -2), "switches.artifact_group_size"),
        (lambda e: _door(e).__setitem__("segment", [[80, 120]]), "segment"),
        (lambda e: _door(e).__setitem__("segment", [[80, 120], [80, 130], [80, 140]]), "segment"),
        (_set(("areas",), []), "areas"),
        (lambda e: e["areas"][1].__setitem__("id", "r1"), "areas[1].id"),
        (lambda e: e["elements"][1].__setitem__("id", e["elements"][0]["id"]), "elements[1]"),
        (_set(("elements", "#m1", "area"), "zz"), "(m1).area"),
        (_set(("starts", 0, "area"), "zz"), "starts[0] (st1).area"),
        (lambda e: e["connections"].append({"a": "r1", "b": "zz", "kind": "open"}), ".b"),
        (_set(("elements", "#m1", "tolerance", "min_coverage"), 0), "(m1).tolerance.min_coverage"),
        (_set(("elements", "#m1", "tolerance", "min_coverage"), 2.0), "(m1).tolerance.min_coverage"),
        (
            _set(("elements", "#s1", "tolerance", "max_distance_pen_widths"), 0),
            "(s1).tolerance.max_distance_pen_widths",
        ),
        (
            _set(("elements", "#s1", "tolerance", "max_distance_pen_widths"), -1),
            "(s1).tolerance.max_distance_pen_widths",
        ),
        (_set(("pen_width_mm",), 0), "pen_width_mm"),
        (_set(("elements", "#m1", "vp"), "one"), "(m1).vp"),
        (lambda e: e["areas"][0].__setitem__("polygon", [[20, 20], [80, 80]]), "areas[0] (r1).polygon"),
        (_set(("starts",), []), "starts"),
    ],
)
def test_unplayable_game_data_is_refused_naming_the_member(change, member):
    entry = copy.deepcopy(_KEEP)
    change(entry)
    with pytest.raises(GameDataError) as caught:
        LineRules(entry)
    assert member in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_unknown_switches_and_null_values_are_not_refused():
    entry = copy.deepcopy(_KEEP)
    entry["switches"].update(tie="best_single_dungeon_then_shared", reentry=None)  # null: the default
    assert score(START, entry=entry)["total"] == 0


def test_score_reports_unplayable_game_data_with_exit_1(tmp_path, capsys):
    """``inkcrawl score`` on a game.json the referee refuses: exit 1 and a message naming the
    member, never a traceback (the game schema may refuse it first, also naming the member)."""
    import argparse

    from inkcrawl.cli import score as score_command

    play = tmp_path / "play.json"
    play.write_text(
        json.dumps({"type": "play", "format_version": 1, "dungeon": "test-keep", "path": [[list(p) for p in START]]})
    )
    for change, member in [
        (_set(("switches", "reentry"), "bogus"), "reentry"),
        (lambda e: _door(e).__setitem__("segment", [[80, 120]]), "segment"),
        (lambda e: e["areas"][1].__setitem__("id", "r1"), "r1"),
    ]:
        entry = copy.deepcopy(_KEEP)
        change(entry)
        game = tmp_path / "game.json"
        game.write_text(
            json.dumps(
                {"type": "game", "format_version": GAME_FORMAT_VERSION, "generator": "test", "dungeons": [entry]}
            )
        )
        parser = argparse.ArgumentParser(prog="inkcrawl")
        score_command.register(parser.add_subparsers(dest="command"))
        args = parser.parse_args(["score", str(game), str(play)])
        status = args.func(args)
        out, err = capsys.readouterr()
        assert status == 1 and out == "" and member in err and "Traceback" not in err


# -- property: completing everything in a room never scores below completing less ----------------------

HUB = (50, 52)
GADGETS = {
    "m1": {"full": cover(35, 40, 8), "partial": cover(35, 40, 8, fraction=0.5)},
    "p1": {"full": [(58, 40), (72, 40), (72, 46)], "partial": [(58, 40), (63, 40), (58, 42)]},
    "pr1": {"full": [(35, 62)]},
    "s1": {"full": ward_ring(), "partial": ward_ring(0.5)},
}


def _room_path(choices: dict, order: list[str], leave: bool) -> list:
    path = list(START) + [HUB]
    for element in order:
        gadget = GADGETS[element].get(choices[element])
        if gadget:
            path += gadget + [HUB]
    if leave:
        path += [(82, 50)]
    return path


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    choices=st.fixed_dictionaries({e: st.sampled_from(["full", "partial", "none"]) for e in GADGETS}),
    order=st.permutations(list(GADGETS)),
    leave=st.booleans(),
    character=st.sampled_from([None, "rogue", "ranger", "cleric", "wizard", "barbarian"]),
)
def test_completing_everything_never_scores_below_completing_less(choices, order, leave, character):
    everything = score(_room_path({e: "full" for e in GADGETS}, order, leave), character=character)
    less = score(_room_path(choices, order, leave), character=character)
    assert everything["total"] >= less["total"]
    assert everything["sections"][0]["subtotal"] == (5 if character == "ranger" else 4)


# -- robustness: any path from the Start is scored, never an exception ---------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    points=st.lists(st.tuples(st.floats(0, 210), st.floats(0, 200)), min_size=0, max_size=60),
    character=st.sampled_from([None, "rogue", "ranger", "cleric", "wizard", "barbarian"]),
    switches=st.fixed_dictionaries(
        {},
        optional={
            "reentry": st.sampled_from(["final_state", "each_visit"]),
            "wall_crossing_count": st.sampled_from(["per_excursion", "per_wall_segment"]),
            "end_room_exempt": st.booleans(),
            "penalties_in": st.sampled_from(["rooms", "rooms_and_corridors"]),
        },
    ),
)
def test_any_path_from_the_start_is_scored(points, character, switches):
    entry = copy.deepcopy(_KEEP)
    entry["switches"].update(switches)
    result = score(START + points, entry=entry, character=character)
    parts = sum(s["subtotal"] for s in result["sections"]) + result["orbs"]["subtotal"] + result["boss"]["subtotal"]
    assert result["total"] == parts
    assert all(s["subtotal"] == sum(line["vp"] for line in s["lines"]) for s in result["sections"])
    json.dumps(result)
    format_breakdown(result)


# -- game data that is schema-valid but says less than a dungeon would ---------------------------------
# (found by type checking: each crashed with a TypeError)


def test_a_pass_through_element_without_a_position_or_footprint_is_never_passed_through():
    entry = copy.deepcopy(_KEEP)
    plant = next(e for e in entry["elements"] if e["id"] == "p1")
    for member in ("at", "footprint", "ink"):
        del plant[member]
    result = score(START + [(50, 40), (58, 40), (72, 40), (72, 46)] + LEAVE_R1, entry=entry)
    assert [line["kind"] for line in lines(result, "p1")] == ["missed"]


def test_a_key_without_a_colour_opens_no_door():
    entry = copy.deepcopy(_KEEP)
    del next(e for e in entry["elements"] if e["id"] == "k1")["colour"]
    result = score(TO_R4 + TAKE_KEY + DOOR_TO_R3, entry=entry)
    assert "without a colour" in lines(result, "k1")[0]["text"]
    assert "locked door d1" in result["ignored"]["reason"]
    assert result["total"] == BASE_TO_R4 - 3


def test_an_end_trigger_of_any_kind_is_named_when_the_play_ends_on_an_unlisted_one():
    entry = copy.deepcopy(_KEEP)
    entry["end_triggers"] = [{"kind": 3}, {"kind": "timer", "seconds": 600}]
    with pytest.raises(PlayError, match=r"it lists: 3, timer"):
        score(TO_R4, entry=entry, end={"trigger": "exit_reached", "at": {"length_mm": 10}})
