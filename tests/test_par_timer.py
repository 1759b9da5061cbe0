"""Par under the sheet's timer (inkcrawl.engines.line.timer, ``inkcrawl par``): the upper bound of
the VP any line within the timer scores, worked out by hand from RULES.md 2 on small dungeons,
held against hand-made plays and against the drawn routes of the bundled dungeons."""

from __future__ import annotations

import json
import math

import pytest
from conftest import PACKS
from test_referee import _el, entry_of, keep_dungeon, keep_variant

from inkcrawl.cli import main
from inkcrawl.cli.common import load_games
from inkcrawl.engines.line import LineRules, referee
from inkcrawl.engines.line.par import par
from inkcrawl.engines.line.timer import LengthBound, cover_weights, geodesics, timer_bound


def _opposite_rooms() -> dict:
    """The corridor c1 (the Start st1 on its west edge at (20, 120)) opens north on the room rN
    (one prisoner, pN at (30, 50)) and south on the room rS (two prisoners, pS1 at (22, 235) and
    pS2 at (38, 235)): the nearer room is worth less. A 60 s timer, no other end trigger."""
    dungeon = keep_variant([{"kind": "timer", "seconds": 60}], ["timer"])
    dungeon["id"] = "opposite-rooms"
    dungeon["areas"] = [
        {"id": "c1", "kind": "corridor", "polygon": [[20, 80], [40, 80], [40, 160], [20, 160]]},
        {"id": "rN", "kind": "room", "name": "North", "polygon": [[10, 20], [50, 20], [50, 80], [10, 80]]},
        {"id": "rS", "kind": "room", "name": "South", "polygon": [[10, 160], [50, 160], [50, 260], [10, 260]]},
    ]
    dungeon["walls"] = []
    dungeon["elements"] = [
        _el("st1", "start", (20, 120), 8),
        _el("pN", "prisoner", (30, 50), 6),
        _el("pS1", "prisoner", (22, 235), 6),
        _el("pS2", "prisoner", (38, 235), 6),
    ]
    return dungeon


def _play(path: list, limit: float | None = None) -> dict:
    play = {"type": "play", "format_version": 1, "dungeon": "opposite-rooms", "path": [path]}
    if limit is not None:
        play["end"] = {"trigger": "timer", "at": {"length_mm": limit}}
    return play


# Hand figures. A line begins within the Start's reach (radius 4 + w/2 = 4.75 mm around (20,
# 120)) and touches a prisoner when its centre comes within w/2 = 0.75 mm of the 6 mm disc (3 mm
# radius): within 3.75 mm of the prisoner's centre. So from the Start to pN takes at least
# |(20, 120) - (30, 50)| - 4.75 - 3.75 = 70.71 - 8.5 = 62.2 mm, to pS1 or pS2 at least
# 115.02 - 8.5 = 106.5 mm, and from pN to pS1 or pS2 at least 185.17 - 7.5 = 177.7 mm: a line
# touching all three is at least 62.2 + 177.7 = 239.9 mm long (106.5 + 177.7 the other way).
# At 2.5 mm/s the 60 s timer gives 150 mm: pN (1 VP) or rS's two prisoners (2 VP), never both.
SPEED = 2.5
LIMIT = 150.0
TO_SOUTH = [[22, 120], [30, 120], [30, 230], [22, 235], [38, 235]]  # 8 + 110 + 9.43 + 16 = 143.4 mm
TO_NORTH = [[22, 120], [30, 120], [30, 50]]  # 8 + 70 = 78 mm


def test_hand_made_plays_within_the_timer_score_what_rules_2_says():
    rules = LineRules(entry_of(_opposite_rooms()))
    south = referee(rules, _play(TO_SOUTH))
    assert south["total"] == 2 and south["end"]["length_mm"] == pytest.approx(8 + 110 + math.hypot(5, 8) + 16, abs=0.05)
    assert referee(rules, _play(TO_NORTH))["total"] == 1
    # north first, then south: the timer stops the line at 150 mm, back in c1 at y = 122: pN only
    both = referee(rules, _play([*TO_NORTH, [30, 235], [22, 235], [38, 235]], LIMIT))
    assert both["total"] == 1


def test_the_timer_forbids_the_full_route_and_the_best_within_it_is_another_route():
    rules = LineRules(entry_of(_opposite_rooms()))
    result = par(rules, speed_mm_s=SPEED)
    # par: all three prisoners, 3 VP; the search takes the rooms in area order: rN first
    assert result.par == 3 and result.route == ["pN", "pS1", "pS2"]
    assert not result.fits_timer and not result.proven
    # within 150 mm: rS's two prisoners (2), not a prefix of par's route (whose first element
    # alone scores 1); no line within the timer touches all three, so 2 is the bound: proven
    assert result.timer_vp == 2 and set(result.timer_route) == {"pS1", "pS2"}
    assert result.timer_route != result.route[: len(result.timer_route)]
    assert result.timer_bound == 2 and result.timer_proven
    again = referee(rules, result.timer_play)
    assert again["total"] == 2 and again["end"]["length_mm"] <= LIMIT + 1e-6
    data = result.as_dict()
    assert data["timer_vp"] == 2 and data["timer_bound"] == 2 and data["timer_proven"] is True
    assert "proven the best" in result.note


def test_the_bound_is_at_least_every_hand_made_play_that_fits():
    rules = LineRules(entry_of(_opposite_rooms()))
    bound = timer_bound(rules, LIMIT)
    assert bound.exhaustive and bound.bound == 2
    for path in (TO_SOUTH, TO_NORTH, [*TO_NORTH, [30, 235], [22, 235], [38, 235]]):
        assert referee(rules, _play(path, LIMIT))["total"] <= bound.bound
    # 100 mm: rS is out of reach (106.5 mm at least), the north play (78 mm) scores 1
    assert timer_bound(rules, 100).bound == 1
    # 60 mm: not even pN (62.2 mm at least)
    assert timer_bound(rules, 60).bound == 0
    # 240 mm: all three (239.9 mm at least) may fit
    assert timer_bound(rules, 240).bound == 3


def test_the_bound_goes_round_the_walls():
    # from (48, 70) in rN to (48, 170) in rS the straight line crosses rN's south wall (y = 80,
    # x 40..50) and rS's north wall: round the corners (40, 80) and (40, 160) of c1's east wall
    rules = LineRules(entry_of(_opposite_rooms()))
    d = geodesics(rules, [[48, 70], [48, 170]])
    assert d[0, 1] == pytest.approx(2 * math.hypot(10, 8) + 80, abs=0.5)
    assert d[0, 1] > 100 + 5


def _big_monster() -> dict:
    """The opposite rooms with a 30 mm monster m1 in the middle of rS instead of its prisoners."""
    dungeon = _opposite_rooms()
    dungeon["elements"] = [_el("st1", "start", (20, 120), 8), _el("m1", "monster", (30, 210), 30)]
    return dungeon


def test_the_timer_vp_is_proven_exactly_when_it_reaches_the_bound():
    # 300 mm: the monster (centre (30, 210)) is under 91 mm from the Start, and a line 300 mm
    # long has up to 2 * (0.75 + 0.25 * sqrt 2) * 300 = 662 mm^2 of paper within reach of its
    # pen, more than the cells covering asks (at most the ink's area, checked below): the bound
    # cannot rule covering it out (1). The drawing step covers it with rows 0.6 pens (0.9 mm)
    # apart, several hundred mm over the 30 mm monster: no route found within 300 mm covers it
    # (0). Not proven.
    rules = LineRules(entry_of(_big_monster()))
    ink = rules.element_by_id["m1"].ink.area
    weights, r = cover_weights(rules)
    assert weights["m1"] <= ink and 2 * r * 300 + math.pi * r * r > weights["m1"]
    result = par(rules, speed_mm_s=300 / 60)
    assert result.par == 1 and not result.fits_timer
    assert result.timer_vp == 0 and result.timer_bound == 1 and result.timer_proven is False
    assert "not proven: no line within the timer scores more than 1" in result.note
    # 20 mm: not even the way to the monster fits, 0 is the bound and the found score: proven
    short = par(rules, speed_mm_s=20 / 60)
    assert short.timer_vp == 0 and short.timer_bound == 0 and short.timer_proven is True


def test_a_route_that_fits_the_timer_is_the_timer_vp_and_its_bound_is_par():
    rules = LineRules(entry_of(keep_dungeon()))
    result = par(rules)  # 180 s at 50 mm/s: the route fits
    assert result.fits_timer and result.timer_vp == result.par == 21
    assert result.timer_bound == 21 and result.timer_proven


@pytest.mark.parametrize("path", sorted((PACKS / "lantern-depths" / "dungeons").glob("*.json")), ids=lambda p: p.stem)
def test_the_length_bound_is_below_the_drawn_par_route(path):
    # the bound's least length of the par route's elements, in the route's order, never exceeds
    # the length of the route the drawing step drew (on the printed sheet, walls and all)
    entries, status = load_games([str(path)])
    assert status is None
    rules = LineRules(entries[0])
    result = par(rules)
    bound = LengthBound(rules, [rules.element_by_id[i] for i in result.route])
    assert 0 < bound.route(result.route) <= result.length_mm
    # and the timer's bound at the route's own length is at least par
    assert timer_bound(rules, result.length_mm).bound >= result.par


def test_inkcrawl_par_says_the_timer_vp_its_bound_and_whether_it_is_proven(tmp_path, capsys):
    dungeon_file = tmp_path / "opposite-rooms.json"
    dungeon_file.write_text(json.dumps(_opposite_rooms()))
    assert main(["par", str(dungeon_file), "--speed", str(SPEED), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)[0]
    assert data["par"] == 3 and data["timer_vp"] == 2 and data["timer_bound"] == 2 and data["timer_proven"] is True
    assert main(["par", str(dungeon_file), "--speed", str(SPEED)]) == 0
    text = capsys.readouterr().out
    assert "within the 60 s timer: 2 VP, proven (bound 2)" in text


def test_every_prefix_of_a_drawn_route_scores_at_most_the_bound_at_its_length():
    # the par route of the Test Keep stopped by the timer after 1/6, 2/6, ... of its length: the
    # referee's score of each stretch is at most the bound for a line that long
    rules = LineRules(entry_of(keep_dungeon()))
    result = par(rules)
    for k in range(1, 6):
        limit = round(result.length_mm * k / 6, 1)
        stopped = {**result.play, "end": {"trigger": "timer", "at": {"length_mm": limit}}}
        assert referee(rules, stopped)["total"] <= timer_bound(rules, limit).bound


def test_a_plant_asks_a_line_across_it():
    # a line passes through the 7 mm disc of plant p1 (RULES.md 2: in through the edge, out at
    # least 90 degrees round the centre): two points of the edge 90 degrees apart, 3.5 mm from the
    # centre, are 3.5 * sqrt(2) = 4.95 mm apart (the disc is printed as a polygon: a hair less)
    from inkcrawl.engines.line.timer import own_stroke

    rules = LineRules(entry_of(keep_dungeon()))
    assert own_stroke(rules, rules.element_by_id["p1"]) == pytest.approx(3.5 * math.sqrt(2), rel=0.01)
    assert own_stroke(rules, rules.element_by_id["m1"]) == 0.0  # a cover counts by its cells


def _split_room() -> dict:
    """One room split by an inner wall from its top edge to 5 mm above its floor: three prisoners
    (1 VP each) left of the wall at x 70, 80, 90, three right of it at x 110, 120, 130, all at
    y 40; the Start at (30, 20), on the left; a 60 s timer."""
    dungeon = keep_variant([{"kind": "timer", "seconds": 60}], ["timer"])
    dungeon["areas"] = [
        {"id": "r1", "kind": "room", "name": "Split", "polygon": [[20, 20], [190, 20], [190, 110], [20, 110]]}
    ]
    dungeon["walls"] = [{"id": "w1", "points": [[100, 20], [100, 105]]}]
    dungeon["elements"] = [_el("st1", "start", (30, 20), 8)] + [
        _el(f"p{x}", "prisoner", (x, 40), 6) for x in (70, 80, 90, 110, 120, 130)
    ]
    return dungeon


def test_the_timer_bound_counts_lines_that_cross_a_wall_and_pay_for_it():
    # With 106 mm of line, going round the wall's foot to the right-hand prisoners (down to y 105
    # and back up) is far too long: without crossing, 3 VP at most. A line straight through the
    # wall from (30, 21) by (70, 40) to (130, 40), 104.3 mm, touches all six prisoners and crosses
    # the wall once, leaving and coming back into the same room: 6 - 1 = 5 (RULES.md 2, Drawing
    # rules 2). The bound must not be below it.
    rules = LineRules(entry_of(_split_room()))
    play = {
        "type": "play",
        "format_version": 1,
        "dungeon": rules.id,
        "path": [[[30, 21], [70, 40], [130, 40]]],
        "end": {"trigger": "timer", "at": {"length_mm": 106}},
    }
    assert referee(rules, play)["total"] == 5
    assert timer_bound(rules, 106.0).bound >= 5
    result = par(rules, speed_mm_s=106 / 60)
    assert result.timer_bound >= 5 and not result.timer_proven


def test_a_route_that_scores_par_within_the_timer_makes_par_fit_it():
    # Verdigris at 8 mm/s: its timer of 240 s gives 1,920 mm; the search's first par route is
    # longer, but the timer's search finds a route that scores par (18) within it. Par then fits
    # the timer, proven, with that route, which the referee scores 18 within 1,920 mm.
    entries, status = load_games([str(PACKS / "lantern-depths" / "dungeons" / "02-verdigris-bell-vault.json")])
    assert status is None
    rules = LineRules(entries[0])
    result = par(rules, speed_mm_s=8.0)
    assert result.par == 18 and result.proven and result.fits_timer
    assert result.length_mm <= 240 * 8 and result.timer_vp == 18 and result.timer_proven
    again = referee(rules, result.play)
    assert again["total"] == 18 and again["end"]["length_mm"] <= 240 * 8
