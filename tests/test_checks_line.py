"""Rule checks of the line family (L001-L028), one mutation of a valid fixture per test.

The fixture is described in tests/dungeon_builders.py: rooms r1 and r2 joined by corridor c1,
the Start st1 on r1's top wall, monster m1 (r1), plant p1 (c1), treasure t1 and exit ex1 (r2),
label lb1, wall w1 inside r2. Elements 0-5 are st1, m1, p1, t1, ex1, lb1.
"""

from __future__ import annotations

import pytest
from dungeon_builders import (
    ISLAND_POLYGON,
    add,
    add_door,
    add_key,
    assert_codes,
    check,
    codes,
    describe_problems,
    disc,
    find,
    grid_registry,
    line_dungeon,
    line_ruleset_variant,
)

from inkcrawl.problems import Severity
from inkcrawl.rulesets import Ruleset
from inkcrawl.validate import RulesetRegistry

# Element pointers of the fixture
ST1, M1, P1, T1, EX1, LB1 = (f"/elements/{i}" for i in range(6))
R2_ELEMENTS = [T1, EX1]
# Free spots inside r1 (clear of st1 at (50, 20) and m1 at (50, 50))
R1_SPOTS = [(30, 30), (70, 30), (30, 70), (70, 70), (30, 50)]


def add_island(data: dict, area_id: str = "r3", kind: str = "room") -> int:
    return add(data, "areas", {"id": area_id, "kind": kind, "polygon": [list(p) for p in ISLAND_POLYGON]})


def test_valid_line_dungeon_has_no_problem():
    assert check(line_dungeon()) == []


# -- L001 / L002 / L003 polygons (on an extra, isolated room so nothing else depends on it) ----------


def test_l001_polygon_with_two_distinct_points():
    data = line_dungeon()
    index = add(data, "areas", {"id": "r9", "kind": "room", "polygon": [[20, 200], [60, 200], [20, 200]]})
    problems = check(data)
    assert_codes(problems, ["L001"])
    p = find(problems, "L001", f"/areas/{index}/polygon")
    assert "room 'r9'" in p.message and "2 distinct" in p.message


def test_l002_names_the_repeated_vertex():
    data = line_dungeon()
    index = add(
        data,
        "areas",
        {
            "id": "r9",
            "kind": "room",
            "name": "Crypt",
            "polygon": [[20, 200], [60, 200], [60, 240], [60, 200], [20, 240]],
        },
    )
    problems = check(data)
    assert_codes(problems, ["L002"])
    p = find(problems, "L002", f"/areas/{index}/polygon")
    assert "room 'r9' (\"Crypt\")" in p.message
    assert "vertex 3 repeats vertex 1 at (60, 200)" in p.message


def test_l002_closing_vertex_repeated():
    data = line_dungeon()
    index = add(
        data, "areas", {"id": "r9", "kind": "room", "polygon": [[20, 200], [60, 200], [60, 240], [20, 240], [20, 200]]}
    )
    problems = check(data)
    assert_codes(problems, ["L002"])
    p = find(problems, "L002", f"/areas/{index}/polygon")
    assert "vertex 4 repeats vertex 0" in p.message and "leave the last point out" in p.message


def test_l003_names_the_crossing_edges():
    data = line_dungeon()
    # a bow tie: edge 0 (vertex 0 to 1) and edge 2 (vertex 2 to 3) are the two diagonals
    index = add(data, "areas", {"id": "r9", "kind": "room", "polygon": [[20, 200], [60, 240], [60, 200], [20, 240]]})
    problems = check(data)
    assert_codes(problems, ["L003"])
    p = find(problems, "L003", f"/areas/{index}/polygon")
    assert "room 'r9'" in p.message
    assert "edge 0 (vertex 0 to 1) crosses edge 2 (vertex 2 to 3)" in p.message


def test_l003_spike_back_along_an_edge():
    data = line_dungeon()
    # edge 2 runs back along edge 1 (x = 60, y 240 -> 220)
    index = add(
        data, "areas", {"id": "r9", "kind": "corridor", "polygon": [[20, 200], [60, 200], [60, 240], [60, 220]]}
    )
    problems = check(data)
    assert_codes(problems, ["L003"])
    p = find(problems, "L003", f"/areas/{index}/polygon")
    assert "corridor 'r9'" in p.message and "edge 1 (vertex 1 to 2) crosses edge 2 (vertex 2 to 3)" in p.message


def test_l003_in_a_crossed_corridor_names_edges_and_elements_inside_are_not_l005():
    data = line_dungeon()
    # c1 drawn as a bow tie: its edges 1 and 3 cross at (100, 50), where p1 stands
    data["areas"][1]["polygon"] = [[80, 40], [120, 40], [80, 60], [120, 60]]
    problems = check(data)
    p = find(problems, "L003", "/areas/1/polygon")
    assert "corridor 'c1'" in p.message and "edge 1 (vertex 1 to 2) crosses edge 3 (vertex 3 to 0)" in p.message
    assert "L005" not in [q.code for q in problems], describe_problems(problems)


# -- L004 overlapping areas -----------------------------------------------------------------------------


def test_l004_areas_overlap():
    data = line_dungeon()
    # 60..100 x 60..100 overlaps r1 on 60..80 x 60..80 (400 mm²) and only touches c1 at y = 60
    index = add(
        data,
        "areas",
        {"id": "r9", "kind": "room", "name": "Annex", "polygon": [[60, 60], [100, 60], [100, 100], [60, 100]]},
    )
    problems = check(data)
    assert_codes(problems, ["L004"])
    p = find(problems, "L004", f"/areas/{index}/polygon")
    assert "room 'r1'" in p.message and "room 'r9' (\"Annex\")" in p.message and "400.0 mm²" in p.message


def test_areas_sharing_an_edge_do_not_overlap():
    data = line_dungeon()
    add(data, "areas", {"id": "r9", "kind": "room", "polygon": [[20, 80], [80, 80], [80, 110], [20, 110]]})
    assert check(data) == []


# -- L005 / L006 / L007 placement ------------------------------------------------------------------------


def test_l005_element_in_no_area():
    data = line_dungeon()
    index = add(data, "elements", disc("m9", "monster", (100, 150), 8, name="Lost Imp"))
    problems = check(data)
    assert_codes(problems, ["L005"])
    p = find(problems, "L005", f"/elements/{index}/at")
    assert "monster 'm9' (\"Lost Imp\")" in p.message and "(100, 150)" in p.message


def test_l006_element_crosses_its_area_outline():
    data = line_dungeon()
    data["elements"][1]["at"] = [23, 50]  # m1 (8 mm) reaches x = 19, past r1's wall at x = 20
    problems = check(data)
    assert_codes(problems, ["L006"])
    p = find(problems, "L006", M1 + "/at")
    assert "monster 'm1' (\"Ghoul\")" in p.message and "room 'r1'" in p.message


def test_l006_element_sits_on_the_boundary_between_two_areas():
    data = line_dungeon()
    data["elements"][2]["at"] = [80, 50]  # p1 centred on the r1/c1 opening
    problems = check(data)
    assert_codes(problems, ["L006"])
    p = find(problems, "L006", P1 + "/at")
    assert "plant 'p1'" in p.message and "'r1'" in p.message and "'c1'" in p.message


def test_l006_element_straddles_an_explicit_wall():
    data = line_dungeon()
    add(data, "walls", {"id": "w2", "points": [[35, 25], [35, 75]]})
    index = add(data, "elements", disc("pr1", "prisoner", (36, 40), 6))
    problems = check(data)
    assert_codes(problems, ["L006"])
    p = find(problems, "L006", f"/elements/{index}/at")
    assert "prisoner 'pr1'" in p.message and "wall 'w2'" in p.message


def test_element_beside_an_explicit_wall_is_fine():
    data = line_dungeon()
    add(data, "walls", {"id": "w2", "points": [[35, 25], [35, 75]]})
    add(data, "elements", disc("pr1", "prisoner", (39, 40), 6))  # 1 mm clear of the wall
    assert check(data) == []


def test_l007_elements_overlap():
    data = line_dungeon()
    index = add(data, "elements", disc("m2", "monster", (56, 50), 8))  # 6 mm from m1: overlap 2 mm
    problems = check(data)
    assert_codes(problems, ["L007"])
    p = find(problems, "L007", f"/elements/{index}/at")
    assert "monster 'm2'" in p.message and "monster 'm1'" in p.message and "2.0 mm" in p.message


def test_l007_within_overlap_tolerance_is_fine():
    data = line_dungeon()
    add(data, "elements", disc("m2", "monster", (57.9, 50), 8))  # overlap 0.1 mm < 0.2 mm tolerance
    assert check(data) == []


# -- L008 / L009 / L026 doors ------------------------------------------------------------------------------


def test_l008_door_in_the_middle_of_a_room():
    data = line_dungeon()
    index = add_door(data, ["red"], segment=((40, 40), (40, 60)))
    add_key(data, "red", R1_SPOTS[0])
    problems = check(data)
    assert_codes(problems, ["L008"])
    p = find(problems, "L008", f"/elements/{index}/segment")
    assert "door 'd1'" in p.message and "no area" in p.message


def test_l008_door_on_an_outer_wall():
    data = line_dungeon()
    index = add_door(data, ["red"], segment=((20, 30), (20, 40)))
    add_key(data, "red", R1_SPOTS[0])
    problems = check(data)
    assert_codes(problems, ["L008"])
    assert "only one area" in find(problems, "L008", f"/elements/{index}/segment").message


def test_l009_door_bypassed_by_an_open_gap():
    data = line_dungeon()
    index = add_door(data, ["red"], segment=((120, 40), (120, 50)))  # leaves y 50..60 open
    add_key(data, "red", R1_SPOTS[0])
    problems = check(data)
    assert_codes(problems, ["L009"])
    p = find(problems, "L009", f"/elements/{index}")
    assert p.severity is Severity.WARNING
    assert "door 'd1'" in p.message and "'c1'" in p.message and "'r2'" in p.message


def test_door_closing_the_whole_opening_is_not_bypassed():
    data = line_dungeon()
    add_door(data, ["red"])
    add_key(data, "red", R1_SPOTS[0])
    assert check(data) == []


def test_door_plus_wall_closing_the_opening_is_not_bypassed():
    data = line_dungeon()
    add_door(data, ["red"], segment=((120, 40), (120, 50)))
    add(data, "walls", {"id": "w2", "points": [[120, 50], [120, 60]]})
    add_key(data, "red", R1_SPOTS[0])
    assert check(data) == []


def test_l026_door_lists_a_colour_twice():
    data = line_dungeon()
    index = add_door(data, ["red", "red"])
    add_key(data, "red", R1_SPOTS[0])
    problems = check(data)
    p = find(problems, "L026", f"/elements/{index}/locks")
    assert "door 'd1'" in p.message and "two red locks" in p.message
    # a player holds one red key, so what lies behind the door is unreachable; L019 does not
    # repeat what L026 says
    assert_codes(problems, ["L026", "L018", "L018", "L020"])


def test_l026_not_for_two_skeleton_locks():
    data = line_dungeon()
    add_door(data, ["skeleton", "skeleton"])
    add_key(data, "red", R1_SPOTS[0])
    add_key(data, "blue", R1_SPOTS[1])
    assert check(data) == []


# -- L010 / L011 Starts -------------------------------------------------------------------------------------


def test_l010_no_start():
    data = line_dungeon()
    del data["elements"][0]
    problems = check(data)
    assert_codes(problems, ["L010"])
    assert "no Start" in find(problems, "L010", "/elements").message


def test_l011_start_inside_a_room():
    data = line_dungeon()
    data["elements"][0]["at"] = [30, 30]
    problems = check(data)
    assert_codes(problems, ["L011"])
    p = find(problems, "L011", ST1 + "/at")
    assert "start 'st1'" in p.message and "10.0 mm" in p.message


def test_l011_start_on_an_inner_opening_is_not_outer():
    data = line_dungeon()
    data["elements"][0]["at"] = [80, 50]  # the r1/c1 opening; nearest outer wall is 10 mm away
    problems = check(data)
    assert_codes(problems, ["L011"])
    assert "10.0 mm" in find(problems, "L011", ST1 + "/at").message


def test_start_on_any_outer_wall_is_fine():
    data = line_dungeon()
    data["elements"][0]["at"] = [100, 60]  # bottom wall of the corridor
    data["elements"][2]["at"] = [100, 48]
    assert check(data) == []


# -- L012 / L013 portals --------------------------------------------------------------------------------------


def test_l012_portal_entry_without_exit():
    data = line_dungeon()
    index = add(data, "elements", disc("pe1", "portal_entry", R1_SPOTS[0], channel="A"))
    problems = check(data)
    assert_codes(problems, ["L012"])
    p = find(problems, "L012", f"/elements/{index}/channel")
    assert "portal_entry 'pe1'" in p.message and "'A'" in p.message


def test_l013_portal_exit_without_entry():
    data = line_dungeon()
    index = add(data, "elements", disc("px1", "portal_exit", (165, 30), channel="B"))
    problems = check(data)
    assert_codes(problems, ["L013"])
    p = find(problems, "L013", f"/elements/{index}/channel")
    assert p.severity is Severity.WARNING and "portal_exit 'px1'" in p.message and "'B'" in p.message


def test_one_way_portal_reaches_an_island():
    data = line_dungeon()
    add_island(data)
    add(data, "elements", disc("pe1", "portal_entry", R1_SPOTS[0], channel="A"))
    add(data, "elements", disc("px1", "portal_exit", (30, 130), channel="A"))
    add(data, "elements", disc("t9", "treasure", (50, 150), 8, variant="crown"))
    assert check(data) == []


def test_one_way_portal_pointing_the_other_way_leaves_the_island_unreachable():
    data = line_dungeon()
    area = add_island(data)
    entry = add(data, "elements", disc("pe1", "portal_entry", (30, 130), channel="A"))  # in the island
    add(data, "elements", disc("px1", "portal_exit", R1_SPOTS[0], channel="A"))  # in r1
    treasure = add(data, "elements", disc("t9", "treasure", (50, 150), 8, variant="crown"))
    problems = check(data)
    assert_codes(problems, ["L018", "L018", "L020"])
    assert "portal_entry 'pe1' in area 'r3'" in find(problems, "L018", f"/elements/{entry}").message
    assert "treasure 't9' in area 'r3'" in find(problems, "L018", f"/elements/{treasure}").message
    assert "room 'r3'" in find(problems, "L020", f"/areas/{area}").message


def _portal_key_dungeon(return_portal: bool) -> tuple[dict, int, int]:
    """r1 -> portal A -> island r3 holding the red key; the red door closes c1/r2. Without a
    portal back, the key cannot be carried to the door: the island is reachable, r2 is not."""
    data = line_dungeon()
    add_island(data)
    door = add_door(data, ["red"])
    add(data, "elements", disc("pe1", "portal_entry", R1_SPOTS[0], channel="A"))
    add(data, "elements", disc("px1", "portal_exit", (30, 130), channel="A"))
    key = add_key(data, "red", (50, 150), key_id="k1")
    if return_portal:
        add(data, "elements", disc("pe2", "portal_entry", (70, 170), channel="B"))
        add(data, "elements", disc("px2", "portal_exit", R1_SPOTS[1], channel="B"))
    return data, door, key


def test_key_behind_a_one_way_portal_cannot_reach_its_door():
    data, door, key = _portal_key_dungeon(return_portal=False)
    problems = check(data)
    assert_codes(problems, ["L019", "L018", "L018", "L020"])
    assert "door 'd1'" in find(problems, "L019", f"/elements/{door}/locks").message
    for pointer in R2_ELEMENTS:
        find(problems, "L018", pointer)
    find(problems, "L020", "/areas/2")
    assert not [p for p in problems if p.pointer == f"/elements/{key}"]  # the key itself is reachable


def test_key_behind_a_one_way_portal_with_a_portal_back():
    data, _, _ = _portal_key_dungeon(return_portal=True)
    assert check(data) == []


# -- L014 artifact numbering ---------------------------------------------------------------------------------

STONE_SPOTS = [(130, 30), (140, 30), (150, 30), (160, 30), (170, 30), (130, 40), (170, 45)]


def add_stones(data: dict, numbers: list[int]) -> list[int]:
    return [
        add(data, "elements", disc(f"a{i}", "artifact_stone", STONE_SPOTS[i], 4, number=n))
        for i, n in enumerate(numbers)
    ]


def test_artifact_stones_numbered_one_to_six_are_fine():
    data = line_dungeon()
    add_stones(data, [1, 2, 3, 4, 5, 6])
    assert check(data) == []


def test_l014_gap_in_artifact_numbers():
    data = line_dungeon()
    add_stones(data, [1, 2, 3, 4, 6, 7])  # 5 missing; highest is 7, not a multiple of 3 either
    problems = check(data)
    assert_codes(problems, ["L014", "L014"])
    messages = [p.message for p in problems if p.pointer == "/elements"]
    assert any("skip number(s) 5" in m for m in messages)
    assert any("up to 7, not a multiple of 3" in m for m in messages)


def test_l014_only_a_gap():
    data = line_dungeon()
    add_stones(data, [1, 2, 4, 5, 6])  # 3 missing; highest 6 is a multiple of 3
    problems = check(data)
    assert_codes(problems, ["L014"])
    assert "skip number(s) 3" in find(problems, "L014", "/elements").message


def test_l014_repeated_artifact_number():
    data = line_dungeon()
    indexes = add_stones(data, [1, 2, 2, 3])
    problems = check(data)
    assert_codes(problems, ["L014"])
    p = find(problems, "L014", f"/elements/{indexes[2]}/number")
    assert "artifact_stone 'a2'" in p.message and "repeats number 2" in p.message and "'a1'" in p.message


def test_l014_count_not_a_multiple_of_three():
    data = line_dungeon()
    add_stones(data, [1, 2, 3, 4])
    problems = check(data)
    assert_codes(problems, ["L014"])
    assert "up to 4, not a multiple of 3" in find(problems, "L014", "/elements").message


def test_l014_group_size_comes_from_the_ruleset():
    variant = line_ruleset_variant("line-pairs")
    variant["switches"]["artifact_group_size"] = 2
    registry = RulesetRegistry([Ruleset(variant)])
    pairs = line_dungeon()
    pairs["ruleset"] = "line-pairs"
    add_stones(pairs, [1, 2, 3, 4])
    assert check(pairs, registry) == []
    odd = line_dungeon()
    odd["ruleset"] = "line-pairs"
    add_stones(odd, [1, 2, 3])
    problems = check(odd, registry)
    assert_codes(problems, ["L014"])
    assert "not a multiple of 2" in find(problems, "L014", "/elements").message


# -- L015 / L016 end triggers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "trigger, target, pointer_suffix",
    [
        ({"kind": "boss_covered"}, "boss", ""),
        ({"kind": "escape_portal"}, "escape_portal", ""),
        ({"kind": "exit_reached"}, "exit", ""),
        ({"kind": "orb_taken", "colour": "blue", "when": "first"}, "blue orbs", "/colour"),
    ],
)
def test_l015_every_end_trigger_target_missing(trigger, target, pointer_suffix):
    data = line_dungeon()
    del data["elements"][4]  # ex1
    data["sheet"]["end_triggers"] = [trigger]
    problems = check(data)
    assert_codes(problems, ["L015"])
    p = find(problems, "L015", "/sheet/end_triggers/0" + pointer_suffix)
    assert trigger["kind"] in p.message and target in p.message


def test_l015_orb_trigger_for_a_colour_the_orbs_lack():
    data = line_dungeon()
    add(data, "elements", disc("o1", "orb", R1_SPOTS[0], colour="pink"))
    data["sheet"]["components"] = ["orbs"]
    data["sheet"]["orb_tokens"] = {"pink": [3, 2, 1]}
    data["sheet"]["end_triggers"].append({"kind": "orb_taken", "colour": "blue", "when": "last"})
    problems = check(data)
    assert_codes(problems, ["L015"])
    assert "blue" in find(problems, "L015", "/sheet/end_triggers/1/colour").message


def test_end_triggers_with_their_targets_are_fine():
    data = line_dungeon()
    add(data, "elements", {**disc("b1", "boss", (160, 40), 10, name="Lich"), "vp": 5})
    add(data, "elements", disc("es1", "escape_portal", (135, 35), 6))
    add(data, "elements", disc("o1", "orb", R1_SPOTS[0], colour="blue"))
    data["sheet"]["components"] = ["orbs", "timer"]
    data["sheet"]["orb_tokens"] = {"blue": [4, 3, 2, 1]}
    data["sheet"]["end_triggers"] = [
        {"kind": "boss_covered"},
        {"kind": "escape_portal"},
        {"kind": "exit_reached"},
        {"kind": "orb_taken", "colour": "blue", "when": "last"},
        {"kind": "timer", "seconds": 300},
    ]
    assert check(data) == []


def test_l016_duplicate_end_trigger():
    data = line_dungeon()
    data["sheet"]["end_triggers"].append({"kind": "exit_reached"})
    problems = check(data)
    assert_codes(problems, ["L016"])
    p = find(problems, "L016", "/sheet/end_triggers/1")
    assert p.severity is Severity.WARNING and "exit_reached" in p.message and "/sheet/end_triggers/0" in p.message


def test_orb_triggers_first_and_last_are_not_duplicates():
    data = line_dungeon()
    add(data, "elements", disc("o1", "orb", R1_SPOTS[0], colour="blue"))
    data["sheet"]["components"] = ["orbs"]
    data["sheet"]["orb_tokens"] = {"blue": [4, 3]}
    data["sheet"]["end_triggers"] += [
        {"kind": "orb_taken", "colour": "blue", "when": "first"},
        {"kind": "orb_taken", "colour": "blue", "when": "last"},
    ]
    assert check(data) == []


# -- L017 / L025 orb tokens, L023 components --------------------------------------------------------------------


def test_l017_orbs_without_token_values():
    data = line_dungeon()
    add(data, "elements", disc("o1", "orb", R1_SPOTS[0], name="Azure orb", colour="blue"))
    data["sheet"]["components"] = ["orbs"]
    problems = check(data)
    assert_codes(problems, ["L017"])
    p = find(problems, "L017", "/sheet/orb_tokens")
    assert "orb 'o1' (\"Azure orb\")" in p.message and "blue" in p.message


def test_l025_token_values_without_orbs():
    data = line_dungeon()
    data["sheet"]["orb_tokens"] = {"pink": [3, 2]}
    problems = check(data)
    assert_codes(problems, ["L025"])
    p = find(problems, "L025", "/sheet/orb_tokens/pink")
    assert p.severity is Severity.WARNING and "pink" in p.message


def test_l023_orbs_used_but_not_listed():
    data = line_dungeon()
    add(data, "elements", disc("o1", "orb", R1_SPOTS[0], colour="blue"))
    data["sheet"]["orb_tokens"] = {"blue": [2]}
    problems = check(data)
    assert_codes(problems, ["L023"])
    p = find(problems, "L023", "/sheet/components")
    assert p.severity is Severity.WARNING and "uses orbs" in p.message


def test_l023_keys_used_but_not_listed():
    data = line_dungeon()
    add_key(data, "red", R1_SPOTS[0])
    data["sheet"]["components"] = []
    problems = check(data)
    assert_codes(problems, ["L023"])
    assert "uses keys" in find(problems, "L023", "/sheet/components").message


def test_l023_timer_listed_without_a_timer_trigger():
    data = line_dungeon()
    data["sheet"]["components"] = ["timer"]
    problems = check(data)
    assert_codes(problems, ["L023"])
    assert "lists timer" in find(problems, "L023", "/sheet/components").message


def test_l023_timer_trigger_without_the_component():
    data = line_dungeon()
    data["sheet"]["end_triggers"].append({"kind": "timer", "seconds": 120})
    problems = check(data)
    assert_codes(problems, ["L023"])
    assert "uses timer" in find(problems, "L023", "/sheet/components").message


# -- L018 / L019 / L020 reachability with keys, doors and walls ---------------------------------------------------


def test_l018_l020_island_with_an_element():
    data = line_dungeon()
    area = add_island(data)
    index = add(data, "elements", disc("m9", "monster", (50, 150), 8))
    problems = check(data)
    assert_codes(problems, ["L018", "L020"])
    p = find(problems, "L018", f"/elements/{index}")
    assert "monster 'm9' in area 'r3'" in p.message
    area_problem = find(problems, "L020", f"/areas/{area}")
    assert area_problem.severity is Severity.WARNING and "room 'r3'" in area_problem.message


def test_l020_empty_unreachable_area():
    data = line_dungeon()
    area = add_island(data, "c9", "corridor")
    problems = check(data)
    assert_codes(problems, ["L020"])
    assert "corridor 'c9'" in find(problems, "L020", f"/areas/{area}").message


def test_explicit_wall_closing_an_opening_blocks_the_way():
    data = line_dungeon()
    add(data, "walls", {"id": "w2", "points": [[80, 40], [80, 60]]})  # closes r1/c1
    problems = check(data)
    assert_codes(problems, ["L018", "L018", "L018", "L020", "L020"])
    for pointer in [P1, *R2_ELEMENTS]:
        find(problems, "L018", pointer)
    find(problems, "L020", "/areas/1")
    find(problems, "L020", "/areas/2")


def test_key_reachable_before_its_door():
    data = line_dungeon()
    add_door(data, ["red"])
    add_key(data, "red", R1_SPOTS[0])
    assert check(data) == []


def test_l019_key_behind_the_door_it_opens():
    data = line_dungeon()
    door = add_door(data, ["red"])
    key = add_key(data, "red", (135, 35), key_id="k1")  # in r2, behind the door
    problems = check(data)
    assert_codes(problems, ["L019", "L018", "L018", "L018", "L020"])
    p = find(problems, "L019", f"/elements/{door}/locks")
    assert "door 'd1'" in p.message and "red" in p.message
    assert "key 'k1' in area 'r2'" in find(problems, "L018", f"/elements/{key}").message
    for pointer in R2_ELEMENTS:
        find(problems, "L018", pointer)
    find(problems, "L020", "/areas/2")


def test_l019_door_without_any_key():
    data = line_dungeon()
    door = add_door(data, ["green"])
    problems = check(data)
    assert_codes(problems, ["L019", "L018", "L018", "L020"])
    find(problems, "L019", f"/elements/{door}/locks")


def test_l019_key_of_another_colour():
    data = line_dungeon()
    door = add_door(data, ["red"])
    add_key(data, "blue", R1_SPOTS[0])
    problems = check(data)
    assert_codes(problems, ["L019", "L018", "L018", "L020"])
    find(problems, "L019", f"/elements/{door}/locks")


@pytest.mark.parametrize("colour", ["red", "green", "blue", "yellow"])
def test_skeleton_key_door_opens_with_any_key(colour):
    data = line_dungeon()
    add_door(data, ["skeleton"])
    add_key(data, colour, R1_SPOTS[0])
    assert check(data) == []


def test_l019_skeleton_key_door_without_keys():
    data = line_dungeon()
    door = add_door(data, ["skeleton"])
    problems = check(data)
    assert_codes(problems, ["L019", "L018", "L018", "L020"])
    assert "skeleton" in find(problems, "L019", f"/elements/{door}/locks").message


def test_skeleton_key_opens_a_colour_door():
    data = line_dungeon()
    add_door(data, ["yellow"])
    add(data, "elements", disc("sk1", "skeleton_key", R1_SPOTS[0], 5))
    assert check(data) == []


def test_two_lock_door_with_both_keys():
    data = line_dungeon()
    add_door(data, ["red", "blue"])
    add_key(data, "red", R1_SPOTS[0])
    add_key(data, "blue", R1_SPOTS[1])
    assert check(data) == []


def test_l019_two_lock_door_with_one_of_its_keys():
    data = line_dungeon()
    door = add_door(data, ["red", "blue"])
    add_key(data, "red", R1_SPOTS[0])
    add_key(data, "red", R1_SPOTS[1])  # a second red key does not count as a distinct key
    add_key(data, "green", R1_SPOTS[2])  # nor does a key of another colour
    problems = check(data)
    assert_codes(problems, ["L019", "L018", "L018", "L020"])
    assert "red, blue" in find(problems, "L019", f"/elements/{door}/locks").message


def test_two_lock_door_with_a_key_and_a_skeleton_key():
    data = line_dungeon()
    add_door(data, ["red", "blue"])
    add_key(data, "red", R1_SPOTS[0])
    add(data, "elements", disc("sk1", "skeleton_key", R1_SPOTS[1], 5))  # takes the blue token
    assert check(data) == []


def test_colour_plus_skeleton_lock_needs_two_distinct_keys():
    data = line_dungeon()
    door = add_door(data, ["red", "skeleton"])
    add_key(data, "red", R1_SPOTS[0])
    problems = check(data)
    assert_codes(problems, ["L019", "L018", "L018", "L020"])
    find(problems, "L019", f"/elements/{door}/locks")
    add_key(data, "green", R1_SPOTS[1])
    assert check(data) == []


def test_keys_are_collected_along_a_chain_of_doors():
    # the red key opens c1 -> r2; the blue key lies in r2 and opens r2 -> r4
    data = line_dungeon()
    add(data, "areas", {"id": "r4", "kind": "room", "polygon": [[120, 80], [180, 80], [180, 110], [120, 110]]})
    add_door(data, ["red"])
    add_door(data, ["blue"], segment=((120, 80), (180, 80)), door_id="d2")
    add_key(data, "red", R1_SPOTS[0])
    add_key(data, "blue", (135, 35))
    add(data, "elements", disc("t4", "treasure", (150, 95), 8, variant="goblet"))
    assert check(data) == []


def test_l019_key_supply_zero_means_no_door_opens():
    # the schema gives one supply per player count, the same for every colour: a variant with
    # no tokens at any player count makes every coloured door unopenable
    variant = line_ruleset_variant("line-nokeys")
    variant["keys"]["supply"] = {"1": 0, "2": 0, "3": 0, "4": 0}
    registry = RulesetRegistry([Ruleset(variant)])
    data = line_dungeon()
    data["ruleset"] = "line-nokeys"
    door = add_door(data, ["red"])
    add_key(data, "red", R1_SPOTS[0])
    problems = check(data, registry)
    assert_codes(problems, ["L019", "L018", "L018", "L020"])
    find(problems, "L019", f"/elements/{door}/locks")
    # the same dungeon on line-classic (2 or 3 tokens per colour) opens the door
    data["ruleset"] = "line-classic"
    assert check(data, registry) == []


def test_key_supply_for_some_player_count_is_enough():
    variant = line_ruleset_variant("line-fourkeys")
    variant["keys"]["supply"] = {"1": 0, "2": 0, "3": 0, "4": 1}
    registry = RulesetRegistry([Ruleset(variant)])
    data = line_dungeon()
    data["ruleset"] = "line-fourkeys"
    add_door(data, ["red"])
    add_key(data, "red", R1_SPOTS[0])
    assert check(data, registry) == []


# -- L021 / L022 printability ------------------------------------------------------------------------------------------


def test_l021_element_too_small():
    data = line_dungeon()
    data["elements"][1]["size_mm"] = 2
    problems = check(data)
    assert_codes(problems, ["L021"])
    p = find(problems, "L021", M1 + "/size_mm")
    assert "monster 'm1'" in p.message and "2 mm" in p.message and "3 mm" in p.message


def test_l021_text_too_small():
    data = line_dungeon()
    data["elements"][5]["text_height_mm"] = 1.5
    problems = check(data)
    assert_codes(problems, ["L021"])
    p = find(problems, "L021", LB1 + "/text_height_mm")
    assert "label 'lb1'" in p.message and "1.5 mm" in p.message


def test_l021_minimum_size_is_allowed():
    data = line_dungeon()
    data["elements"][1]["size_mm"] = 3
    data["elements"][5]["text_height_mm"] = 2
    assert check(data) == []


def test_l022_label_in_the_margin():
    data = line_dungeon()
    data["elements"][5]["at"] = [12, 150]  # "Cellars" at 4 mm is about 17 mm wide
    problems = check(data)
    assert_codes(problems, ["L022"])
    assert "label 'lb1'" in find(problems, "L022", LB1 + "/at").message


def test_l022_area_beyond_the_printable_area():
    data = line_dungeon()
    data["sheet"]["paper"]["width_mm"] = 180  # printable x 10..170; r2 reaches 180, ex1 only 169
    problems = check(data)
    assert_codes(problems, ["L022"])
    assert "room 'r2' (\"Vault\")" in find(problems, "L022", "/areas/2/polygon").message


def test_l022_area_and_its_element_in_the_margin():
    data = line_dungeon()
    data["sheet"]["paper"]["width_mm"] = 168  # printable x 10..158; ex1 reaches 169, t1 154
    problems = check(data)
    assert_codes(problems, ["L022", "L022"])
    find(problems, "L022", "/areas/2/polygon")
    assert "exit 'ex1'" in find(problems, "L022", EX1 + "/at").message


def test_l022_wall_in_the_margin():
    data = line_dungeon()
    data["walls"][0]["points"] = [[5, 100], [15, 100]]
    problems = check(data)
    assert_codes(problems, ["L022"])
    assert "wall 'w1'" in find(problems, "L022", "/walls/0/points").message


def test_l022_door_in_the_margin():
    data = line_dungeon()
    data["sheet"]["paper"]["margin_mm"] = 41  # the door's top end (y = 40) is in the margin
    door = add_door(data, ["red"])
    add_key(data, "red", (50, 65))
    problems = check(data)
    assert "door 'd1'" in find(problems, "L022", f"/elements/{door}/segment").message
    assert set(codes(problems)) == {"L022"}, describe_problems(problems)


# -- L024 walls --------------------------------------------------------------------------------------------------------


def test_l024_wall_with_one_distinct_point():
    data = line_dungeon()
    data["walls"][0]["points"] = [[130, 70], [130, 70]]
    problems = check(data)
    assert_codes(problems, ["L024"])
    assert "wall 'w1'" in find(problems, "L024", "/walls/0/points").message


def test_line_checks_run_on_grid_ruleset_registry_too():
    # the grid test ruleset in the registry changes nothing for a line dungeon
    assert check(line_dungeon(), grid_registry()) == []


# -- known bugs --------------------------------------------------------------------------------------------------------


def test_l004_overlap_within_tolerance_is_a_shared_edge():
    data = line_dungeon()
    add(data, "areas", {"id": "r9", "kind": "room", "polygon": [[20, 79.99], [80, 79.99], [80, 110], [20, 110]]})
    assert check(data) == []


def _ghost_registry() -> RulesetRegistry:
    variant = line_ruleset_variant("line-ghost")
    variant["elements"]["ghost"] = {
        "description": "A ghost: cover it.",
        "interaction": "cover",
        "vp": 1,
        "penalty": True,
        "placement": "inside_area",
    }
    return RulesetRegistry([Ruleset(variant)])


def test_l005_for_a_ruleset_defined_kind():
    data = line_dungeon()
    data["ruleset"] = "line-ghost"
    index = add(data, "elements", disc("g1", "ghost", (100, 150), 8))
    problems = check(data, _ghost_registry())
    assert_codes(problems, ["L005"])
    assert "ghost 'g1'" in find(problems, "L005", f"/elements/{index}/at").message


def test_ruleset_defined_kind_inside_an_area_is_fine():
    data = line_dungeon()
    data["ruleset"] = "line-ghost"
    add(data, "elements", disc("g1", "ghost", (30, 30), 8))
    assert check(data, _ghost_registry()) == []


def test_l022_rotated_label_running_off_the_bottom():
    data = line_dungeon()
    data["elements"][5].update({"at": [100, 284], "rotation_deg": 90, "text": "A long label running down"})
    problems = check(data)
    assert_codes(problems, ["L022"])
    find(problems, "L022", LB1 + "/at")


def test_l022_rotated_label_near_the_left_margin_fits():
    data = line_dungeon()
    data["elements"][5].update({"at": [16, 150], "rotation_deg": 90, "text": "A long label running down"})
    assert check(data) == []


def test_l022_unrotated_long_label_near_the_left_margin():
    data = line_dungeon()
    data["elements"][5].update({"at": [16, 150], "text": "A long label running down"})
    problems = check(data)
    assert_codes(problems, ["L022"])
    find(problems, "L022", LB1 + "/at")


def test_a_pile_of_elements_gives_one_overlap_problem_per_element():
    data = line_dungeon()
    for n in range(5):  # five monsters on one spot (inside r1), plus m1 elsewhere
        data["elements"].append({"id": f"pile{n}", "kind": "monster", "at": [40, 70], "size_mm": 6, "rotation_deg": 0})
    overlaps = [p for p in check(data) if p.code == "L007"]
    # 5 elements, 10 overlapping pairs: one problem for each element but the first of the pile
    assert len(overlaps) == 4
    assert {p.pointer for p in overlaps} == {
        f"/elements/{i}/at" for i in range(len(data["elements"]) - 4, len(data["elements"]))
    }
    assert any("and 3 more elements" in p.message for p in overlaps)


# -- L028 points that saving would merge (inkcrawl/checks/precision.py) ----------------------------------
# Saving rounds every coordinate to 0.001 mm (round(x, 3)). Worked by hand for each case below.


def test_l028_consecutive_polygon_vertices_that_round_together():
    data = line_dungeon()
    data["areas"][0]["polygon"].insert(1, [20.0004, 20])  # (20.0004, 20) rounds to (20, 20): vertex 0
    problems = check(data)
    assert_codes(problems, ["L028"])
    p = find(problems, "L028", "/areas/0/polygon/1")
    assert p.message == (
        "room 'r1' (\"Entry Hall\"): vertices 0 and 1 are 0.0004 mm apart; saving rounds "
        "coordinates to 0.001 mm and would merge them into one point at (20, 20); move them apart "
        "or remove one"
    )
    assert p.severity is Severity.ERROR


def test_l028_last_and_first_vertex():
    data = line_dungeon()
    data["areas"][0]["polygon"].append([20, 20.0004])  # vertex 4 rounds onto vertex 0 (20, 20)
    problems = check(data)
    assert_codes(problems, ["L028"])
    assert "vertices 0 and 4 are 0.0004 mm apart" in find(problems, "L028", "/areas/0/polygon/4").message


def test_l028_depends_on_rounding_not_on_distance():
    # 0.0008 mm apart, on both sides of 20: 19.9996 and 20.0004 both round to 20, so they merge
    data = line_dungeon()
    data["areas"][0]["polygon"][0:1] = [[19.9996, 20], [20.0004, 20]]
    problems = check(data)
    assert_codes(problems, ["L028"])
    assert "vertices 0 and 1 are 0.0008 mm apart" in find(problems, "L028", "/areas/0/polygon/1").message
    # 0.0006 mm apart but 20 and 20.0006 round to 20 and 20.001: they stay two vertices
    data = line_dungeon()
    data["areas"][0]["polygon"].insert(1, [20.0006, 20])
    assert check(data) == []


def test_l028_vertices_that_are_not_neighbours():
    # two notches whose tips (vertex 2 at (40, 220) and vertex 5 at (40, 220.0004)) almost touch:
    # a valid polygon now, a polygon repeating vertex 2 once saved
    data = line_dungeon()
    index = add(
        data,
        "areas",
        {
            "id": "r9",
            "kind": "room",
            "polygon": [[20, 200], [60, 200], [40, 220], [60, 240], [20, 240], [40, 220.0004]],
        },
    )
    problems = check(data)
    assert_codes(problems, ["L020", "L028"])  # L020: the extra room is out of reach (a warning)
    assert "vertices 2 and 5 are 0.0004 mm apart" in find(problems, "L028", f"/areas/{index}/polygon/5").message


def test_l028_polygon_that_rounding_flattens():
    # apex 0.0004 mm above the base: area 30 * 0.0004 / 2 = 0.006 mm², and 0 once y rounds to 200
    data = line_dungeon()
    index = add(data, "areas", {"id": "r9", "kind": "room", "polygon": [[30, 200], [60, 200], [45, 200.0004]]})
    problems = check(data)
    # L034: a sliver 0.0004 mm high holds no paper a line fits in either
    assert_codes(problems, ["L020", "L028", "L034"])
    assert find(problems, "L028", f"/areas/{index}/polygon").message == (
        "room 'r9': saving rounds coordinates to 0.001 mm, and the rounded polygon fails L003: the polygon has no "
        "area (all its points lie on one line); move its vertices further apart"
    )


def test_l028_not_for_an_exact_repeat_which_is_l002():
    data = line_dungeon()
    index = add(
        data,
        "areas",
        {"id": "r9", "kind": "room", "polygon": [[20.0001, 200], [60, 200], [60, 240], [60, 200], [20, 240]]},
    )
    problems = check(data)
    assert_codes(problems, ["L002"])
    find(problems, "L002", f"/areas/{index}/polygon")


def test_l028_consecutive_wall_points():
    data = line_dungeon()
    data["walls"][0]["points"].append([140.0003, 70.0003])  # rounds to (140, 70), point 1; 0.0003 * sqrt 2 apart
    problems = check(data)
    assert_codes(problems, ["L028"])
    assert find(problems, "L028", "/walls/0/points/2").message == (
        "wall 'w1': points 1 and 2 are 0.000424 mm apart; saving rounds coordinates to 0.001 mm and would merge "
        "them into one point at (140, 70); move them apart or remove one"
    )


def test_l028_door_ends():
    data = line_dungeon()
    index = add_door(data, ["red"], segment=((120, 50), (120, 50.0004)))
    add_key(data, "red", R1_SPOTS[0])
    problems = check(data)
    # L009: a door 0.0004 mm long leaves the c1/r2 gap open; L035: no line passes such a door
    assert_codes(problems, ["L009", "L028", "L035"])
    assert find(problems, "L028", f"/elements/{index}/segment/1").message == (
        "door 'd1': segment ends 0 and 1 are 0.0004 mm apart; saving rounds coordinates to 0.001 mm and would shrink "
        "the door to the point (120, 50); make it longer"
    )


def test_l028_not_for_coordinates_with_more_decimals_that_stay_apart():
    data = line_dungeon()
    data["elements"][1]["at"] = [50.0004, 50.12345]
    data["areas"][0]["polygon"][2] = [80, 80.0004]
    data["walls"][0]["points"] = [[130.12345, 70], [139.99951, 70]]
    assert check(data) == []
