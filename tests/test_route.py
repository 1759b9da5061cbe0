"""The drawing step of par (inkcrawl.engines.line.route): a chosen route drawn as a stroke the
referee accepts. Expected scores are worked out by hand from RULES.md 2 on the Test Keep of
tests/test_referee.py (every element 1 VP; the stones 1-3 are one triple, +1; the blue orb's 1st
token is 4; the boss b1 is 5 VP and covering it ends the scrawl; an unused portal entry in an
entered room costs 1)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString
from test_referee import _RULES, lines, subtotals

from inkcrawl.engines.line import referee
from inkcrawl.engines.line.route import FreeSpace, RouteError, draw_route

AREA = _RULES.area_index


def test_a_route_through_the_hall_completes_each_element_and_crosses_no_wall():
    play = draw_route(_RULES, "st1", ["m1", "p1", "pr1", "s1", "p2"], areas=[AREA["r1"], AREA["c1"]])
    result = referee(_RULES, play)
    # r1: monster m1 covered, plant p1 passed through, prisoner pr1 touched, spell s1 traced: +4;
    # c1: plant p2 passed through: +1; the line ends in c1 (no penalty anywhere)
    assert subtotals(result) == [("r1", 4), ("c1", 1)]
    assert result["ignored"] is None and not lines(result, kind="wall_crossing")
    assert result["total"] == 5


def test_the_whole_keep_in_one_route_scores_every_term():
    targets = ["m1", "p1", "pr1", "s1", "p2", "a1", "a2", "a3", "m2", "t1", "m5", "k1", "s2", "m3", "o1", "pr2", "b1"]
    result = referee(_RULES, draw_route(_RULES, "st1", targets))
    # r1 +4; c1 +1; r2: stones 1-3 connected +1, m2 +1, t1 traced round the wall w2 +1 = +3;
    # c2: m5 +1; r4: key k1 0, s2 +1, m3 +1, portal entry pe1 not used -1 = +1; r3 through the
    # red door with the key: pr2 +1; orb o1 the 1st blue token 4; the boss b1 covered: 5, ending
    # the scrawl in r3 (no penalty there): 4 + 1 + 3 + 1 + 1 + 1 + 4 + 5 = 20
    assert subtotals(result) == [("r1", 4), ("c1", 1), ("r2", 3), ("c2", 1), ("r4", 1), ("r3", 1)]
    assert result["orbs"]["subtotal"] == 4 and result["boss"]["subtotal"] == 5
    assert result["ignored"] is None and not lines(result, kind="wall_crossing")
    assert result["total"] == 20


def test_a_route_through_the_portal_goes_on_from_its_exit():
    # r1 -> c1 -> r2 -> c2 -> r4, then the portal entry pe1 (touched: the pen lifts) and on from
    # the exit px1 in r3: prisoner pr2 and the boss. r1: nothing done, m1 p1 pr1 s1 missed (-4);
    # c1 and c2: optional elements left (0); r2: stones untouched -1, m2 -1, t1 -1 (-3); r4: k1 0,
    # s2 +1, m3 +1, o1 covered (its token counts under the orbs), pe1 used (0): +2; r3 through
    # the portal: pr2 +1; orb 4; boss 5: -4 + 0 - 3 + 0 + 2 + 1 + 4 + 5 = 5
    result = referee(_RULES, draw_route(_RULES, "st1", ["s2", "m3", "o1", "pe1", "pr2", "b1"]))
    assert [s["area"] for s in result["sections"]] == ["r1", "c1", "r2", "c2", "r4", "r3"]
    assert result["sections"][-1]["entered"] == "through portal A (exit px1)"
    assert subtotals(result) == [("r1", -4), ("c1", 0), ("r2", -3), ("c2", 0), ("r4", 2), ("r3", 1)]
    assert result["total"] == 5


def test_the_free_space_keeps_off_walls_and_avoided_elements():
    space = FreeSpace(_RULES, avoid=[_RULES.element_by_id["pe1"]])
    # from the hall round to the gallery: the path never crosses wall ink and stays clear of pe1
    path = space.path((50, 30), (150, 160))
    line = LineString(path)
    assert space.free.covers(line)
    assert line.distance(_RULES.network.solid) >= 0.29
    assert line.distance(_RULES.element_by_id["pe1"].ink) > _RULES.pen_width_mm / 2
    # the straight line would cross the wall w1 between r1 and r3; the path is longer
    assert line.length > np.hypot(100, 130)


def test_a_target_outside_the_route_s_areas_is_refused():
    with pytest.raises(RouteError, match="p2 is in corridor c1, outside the areas of the route"):
        draw_route(_RULES, "st1", ["p2"], areas=[AREA["r1"]])


def test_two_points_the_free_space_does_not_join_are_refused():
    space = FreeSpace(_RULES, areas=[AREA["r1"], AREA["r3"]])  # r1 and r3: w1 between them, no door
    with pytest.raises(RouteError, match="no way for the line"):
        space.path((50, 30), (50, 120))


def test_the_free_space_is_the_referee_s_paper():
    # the channel closing of the referee (narrow strips are ink) is what the route avoids
    space = FreeSpace(_RULES)
    assert not shapely.intersects(space.free, _RULES.network.solid)


def test_a_portal_entry_the_plan_uses_later_is_kept_off_on_the_way_to_an_earlier_step():
    # The choice dungeon of test_par with a monster m1 low in the hall r1: the straight way from
    # the Start (50, 20) to m1 (40, 75) passes 4.5 mm from the portal entry pe1 (40, 50; radius 4,
    # a 1.5 mm pen reaches 4.75), so a line that kept off only unplanned elements would jump to
    # the garden before m1. The plan m1, then pe1 to px1, then the plants p1 p2 scores m1 1, pe1
    # used 0, p1 p2 2: 3, and touches pe1 once.
    import copy

    from test_par import _choice_dungeon
    from test_referee import _el, entry_of

    from inkcrawl.engines.line import LineRules
    from inkcrawl.engines.line.route import draw_plan

    dungeon = copy.deepcopy(_choice_dungeon())
    dungeon["elements"].append(_el("m1", "monster", (40, 75), 8))
    rules = LineRules(entry_of(dungeon))
    steps = [("m1", None, []), ("pe1", None, [], "px1"), ("p1", None, []), ("p2", None, [])]
    play = draw_plan(rules, "st1", steps)
    result = referee(rules, play)
    assert result["total"] == 3 and not result["ignored"]
    assert len(play["path"]) == 2  # one jump: through pe1, after m1
    assert [s["area"] for s in result["sections"]] == ["r1", "r2"]
