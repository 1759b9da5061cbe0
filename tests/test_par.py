"""Par for line dungeons (inkcrawl.engines.line.par, ``inkcrawl par``): the search's value worked
out by hand from RULES.md 2, and the drawn route scoring exactly par through the referee."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from conftest import PACKS
from test_referee import _el, entry_of, keep_dungeon, keep_variant

from inkcrawl.cli import main
from inkcrawl.cli.common import load_games
from inkcrawl.engines.line import LineRules, referee
from inkcrawl.engines.line.par import par, solve


def test_par_of_the_test_keep():
    # Every element done: r1 m1 p1 pr1 s1 +4; c1 p2 +1; r2 stones 1-3 +1, m2 +1, t1 +1; c2 m5 +1;
    # r4 k1 0, s2 +1, m3 +1 and the portal entry pe1 used (0; unused it would cost 1) to reach r3
    # (the red door would do too, but then pe1 costs 1); r3 pr2 +1; the blue orb's 1st token 4;
    # the boss b1 5, covered last (it ends the scrawl): 4 + 1 + 3 + 1 + 2 + 1 + 4 + 5 = 21
    rules = LineRules(entry_of(keep_dungeon()))
    bound, plan, exhaustive = solve(rules)
    assert bound == 21 and exhaustive
    assert ("portal", "pe1", "px1", rules.area_index["r3"]) in plan
    result = par(rules)
    assert result.par == 21 and result.bound == 21
    # the Keep lists a 180 s timer: at 50 mm/s the route fits it, so par is the best within it
    assert result.proven and result.fits_timer and result.timer_s == 180
    assert result.length_mm / 50 < 180 and result.timer_vp == 21
    assert referee(rules, result.play)["total"] == 21


def test_a_route_the_timer_cuts_short_is_not_proven_and_says_what_the_timer_leaves():
    rules = LineRules(entry_of(keep_dungeon()))
    slow = par(rules, speed_mm_s=2.0)  # 180 s at 2 mm/s: 360 mm of line, not enough for the route
    assert not slow.fits_timer and not slow.proven and slow.par == 21
    timed = {**slow.play, "end": {"trigger": "timer", "at": {"length_mm": 360.0}}}
    # the best found within the timer is at least the par route stopped by the timer, and its
    # route, re-scored by the referee, scores it within 360 mm
    assert referee(rules, timed)["total"] <= slow.timer_vp < 21
    again = referee(rules, slow.timer_play)
    assert again["total"] == slow.timer_vp and again["end"]["length_mm"] <= 360.0 + 1e-6
    assert "the timer gives 180 s" in slow.note


def _far_den_dungeon() -> dict:
    """r1 (the Start, m1) opens east on r2 (m2) and south on the long corridor c1, which leads
    to r3 far below (m3 m4 m5); a 60 s timer and no other end trigger."""
    dungeon = keep_variant([{"kind": "timer", "seconds": 60}], ["timer"])
    dungeon["areas"] = [
        {"id": "r1", "kind": "room", "name": "Hall", "polygon": [[20, 20], [80, 20], [80, 80], [20, 80]]},
        {"id": "r2", "kind": "room", "name": "Side", "polygon": [[80, 20], [140, 20], [140, 80], [80, 80]]},
        {"id": "c1", "kind": "corridor", "polygon": [[40, 80], [60, 80], [60, 230], [40, 230]]},
        {"id": "r3", "kind": "room", "name": "Den", "polygon": [[20, 230], [80, 230], [80, 280], [20, 280]]},
    ]
    dungeon["walls"] = []
    dungeon["elements"] = [
        _el("st1", "start", (50, 20), 8),
        _el("m1", "monster", (50, 50), 8),
        _el("m2", "monster", (110, 50), 8),
        _el("m3", "monster", (35, 260), 8),
        _el("m4", "monster", (50, 265), 8),
        _el("m5", "monster", (65, 260), 8),
    ]
    return dungeon


def test_the_timer_forbids_the_full_route():
    # par: all five monsters, 5. With 220 mm of line (60 s at 11/3 mm/s) the den is out of reach:
    # any line from the Start (y = 20) to a monster of r3 (ink from y = 256) is at least 236 mm.
    # The Start -> m1 -> m2 route is 30 mm + m1's cover + at most 70 mm from the end of one cover
    # to the start of the next (both within 4 mm of their centres, 60 mm apart) + m2's cover, under
    # 210 mm as each cover stroke of an 8 mm monster is under 55 mm (checked below): the best
    # within the timer is m1 + m2.
    from inkcrawl.engines.line.route import element_stroke

    rules = LineRules(entry_of(_far_den_dungeon()))
    for ident in ("m1", "m2"):
        stroke = element_stroke(rules, rules.element_by_id[ident])
        assert float(np.sum(np.hypot(*np.diff(stroke, axis=0).T))) < 55
    result = par(rules, speed_mm_s=220 / 60)
    assert result.par == 5 and not result.fits_timer and not result.proven
    assert result.timer_vp == 2 and set(result.timer_route) == {"m1", "m2"}
    rescored = referee(rules, result.timer_play)
    assert rescored["total"] == 2 and rescored["end"]["length_mm"] <= 220 + 1e-6
    assert result.as_dict()["timer_vp"] == 2


def test_without_a_timer_par_is_proven():
    dungeon = keep_dungeon()
    dungeon["sheet"]["end_triggers"] = [{"kind": "boss_covered"}]
    result = par(LineRules(entry_of(dungeon)))
    assert result.par == 21 and result.proven and result.note == ""


def _detour_dungeon() -> dict:
    """r1 (start, m1) opens on corridor c1, and at its bottom-left on corridor c2 (the red key k1);
    c1 leads to r2 (three monsters) only through the red door d1."""
    dungeon = keep_variant([], ["keys"])
    dungeon["areas"] = [
        {"id": "r1", "kind": "room", "name": "Hall", "polygon": [[20, 20], [80, 20], [80, 80], [20, 80]]},
        {"id": "c1", "kind": "corridor", "polygon": [[80, 40], [120, 40], [120, 60], [80, 60]]},
        {"id": "r2", "kind": "room", "name": "Vault", "polygon": [[120, 20], [180, 20], [180, 80], [120, 80]]},
        {"id": "c2", "kind": "corridor", "polygon": [[20, 80], [40, 80], [40, 130], [20, 130]]},
    ]
    dungeon["walls"] = []
    dungeon["elements"] = [
        _el("st1", "start", (50, 20), 8),
        _el("m1", "monster", (50, 50), 8),
        _el("k1", "key", (30, 115), 6, colour="red"),
        _el("m2", "monster", (140, 35), 8),
        _el("m3", "monster", (160, 50), 8),
        _el("m4", "monster", (140, 65), 8),
        {"id": "d1", "kind": "door", "segment": [[120, 40], [120, 60]], "locks": ["red"]},
    ]
    return dungeon


def test_a_key_detour_pays():
    # r1 m1 +1; the detour into c2 for the red key (0); through d1 into r2: m2 m3 m4 +3: par 4
    # (without the key r2 stays shut and par would be 1)
    rules = LineRules(entry_of(_detour_dungeon()))
    result = par(rules)
    assert result.par == 4 and result.proven
    assert result.route.index("k1") < result.route.index("m2")
    breakdown = referee(rules, result.play)
    assert [s["area"] for s in breakdown["sections"]][-1] == "r2"


def test_par_is_at_least_every_hand_made_play_of_the_tests():
    from test_referee import WORKED, score

    assert par(LineRules(entry_of(keep_dungeon()))).par >= score(WORKED)["total"]


@pytest.mark.parametrize("path", sorted((PACKS / "lantern-depths" / "dungeons").glob("*.json")), ids=lambda p: p.stem)
def test_the_route_of_par_scores_par_on_every_bundled_dungeon(path):
    entries, status = load_games([str(path)])
    assert status is None
    rules = LineRules(entries[0])
    result = par(rules)
    assert result.play is not None, result.note
    assert referee(rules, result.play)["total"] == result.par == result.bound, result.note


def test_inkcrawl_par_prints_json_and_writes_the_route(tmp_path, capsys):
    path = PACKS / "lantern-depths" / "dungeons" / "01-candlewick-cellars.json"
    out = tmp_path / "best.play.json"
    assert main(["par", str(path), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == 1 and set(data[0]) >= {"dungeon", "par", "proven", "bound", "length_mm"}
    assert data[0]["proven"] is True and data[0]["par"] == data[0]["bound"]
    assert main(["score", str(path), str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == data[0]["par"]


def test_inkcrawl_par_on_a_grid_dungeon_says_so(capsys):
    path = next(iter(sorted((PACKS / "ember-halls" / "dungeons").glob("*.json"))))
    assert main(["par", str(path)]) == 1
    assert "holds no line dungeon" in capsys.readouterr().err


def test_a_search_over_its_budget_goes_on_greedily_and_says_so(monkeypatch):
    import inkcrawl.engines.line.par as par_module

    # the boss (4, ends the scrawl) or the portal's garden (two plants): no route has both, so the
    # upper bound, every positive VP (4 + 1 + 1 = 6), is out of reach and only the search proves par
    rules = LineRules(entry_of(_choice_dungeon()))
    value, plan, exhaustive = solve(rules, budget=1)
    assert not exhaustive and value <= 3
    monkeypatch.setattr(par_module, "STATE_BUDGET", 1)
    result = par(rules)
    assert result.bound == par_module.upper_bound(rules) == 6
    assert not result.proven and "went on greedily after 1 state or 5 s" in result.note
    assert referee(rules, result.play)["total"] == result.par


def test_a_greedy_route_that_reaches_the_upper_bound_is_proven_without_a_search(monkeypatch):
    from test_line_simulate import _lure_dungeon

    import inkcrawl.engines.line.par as par_module

    # the Lure: the boss b1 (2, ends the scrawl) and the den's three monsters (1 each) bound any
    # route at 5. The greedy steps leave the ending for last (c1, the den, back to the boss): 5,
    # the bound, so par is proven with no search at all (a budget of 0 states)
    monkeypatch.setattr(par_module, "STATE_BUDGET", 0)
    rules = LineRules(entry_of(_lure_dungeon()))
    assert par_module.upper_bound(rules) == 5
    assert solve(rules, budget=0, myopic=True)[0] == 2  # greedy for the moment: the boss at once
    result = par(rules)
    assert result.par == 5 and result.proven and result.note == ""


def _choice_dungeon() -> dict:
    """r1 (the Start, portal entry pe1) opens on r3 (the boss b1, 4 VP; covering it ends the
    scrawl); r2 stands apart (no opening), reached only through pe1's exit px1: two plants."""
    dungeon = keep_variant([{"kind": "boss_covered"}], [])
    dungeon["areas"] = [
        {"id": "r1", "kind": "room", "name": "Hall", "polygon": [[20, 20], [80, 20], [80, 80], [20, 80]]},
        {"id": "r3", "kind": "room", "name": "Lair", "polygon": [[80, 20], [140, 20], [140, 80], [80, 80]]},
        {"id": "r2", "kind": "room", "name": "Garden", "polygon": [[20, 100], [80, 100], [80, 160], [20, 160]]},
    ]
    dungeon["walls"] = []
    dungeon["elements"] = [
        _el("st1", "start", (50, 20), 8),
        _el("pe1", "portal_entry", (40, 50), 8, channel="A"),
        _el("b1", "boss", (110, 50), 16, vp=4, name="Moss King"),
        _el("px1", "portal_exit", (40, 130), 8, channel="A"),
        _el("p1", "plant", (65, 120), 7),
        _el("p2", "plant", (65, 145), 7),
    ]
    return dungeon


def test_a_character_changes_the_best_route():
    # To the boss: 4, ending in r3, with r1's portal entry unused (-1): 3. Through the portal to the
    # garden: the plants 1 + 1 = 2 (pe1 used: 0). The Ranger's plants are worth 2 each: 4 > 3.
    rules = LineRules(entry_of(_choice_dungeon()))
    plain = par(rules)
    assert plain.par == 3 and plain.proven and "b1" in plain.route and "pe1" not in plain.route
    ranger = par(rules, character="ranger")
    assert ranger.par == 4 and ranger.proven and ranger.route == ["pe1", "p1", "p2"]
    assert ranger.play["character"] == "ranger"
    with pytest.raises(ValueError, match="unknown character 'nobody'"):
        par(rules, character="nobody")


def test_the_best_route_skips_a_room():
    # r1 (the Start, m1) opens on r2 and on r3. r2 holds only the portal entry pe1, whose exit px1
    # is in the dead-end corridor c9; r3 holds the boss b1 (3 VP; covering it ends the scrawl).
    # Skipping r2: m1 1 + b1 3 = 4. Entering r2 costs 1 (pe1 unused, r2 not the last area), and
    # using pe1 strands the line in c9 (1 in all): par 4, and the route never enters r2.
    dungeon = copy.deepcopy(_choice_dungeon())
    dungeon["sheet"]["end_triggers"] = [{"kind": "boss_covered"}]
    dungeon["areas"] = [
        {"id": "r1", "kind": "room", "name": "Hall", "polygon": [[20, 20], [80, 20], [80, 80], [20, 80]]},
        {"id": "r3", "kind": "room", "name": "Lair", "polygon": [[80, 20], [140, 20], [140, 80], [80, 80]]},
        {"id": "r2", "kind": "room", "name": "Well", "polygon": [[20, 80], [80, 80], [80, 130], [20, 130]]},
        {"id": "c9", "kind": "corridor", "polygon": [[20, 150], [80, 150], [80, 170], [20, 170]]},
    ]
    dungeon["elements"] = [
        _el("st1", "start", (50, 20), 8),
        _el("m1", "monster", (40, 50), 8),
        _el("b1", "boss", (110, 50), 16, vp=3, name="Moss King"),
        _el("pe1", "portal_entry", (50, 105), 8, channel="A"),
        _el("px1", "portal_exit", (50, 160), 8, channel="A"),
    ]
    rules = LineRules(entry_of(dungeon))
    result = par(rules)
    assert result.par == 4 and result.proven and result.route == ["m1", "b1"]
    assert "r2" not in [s["area"] for s in referee(rules, result.play)["sections"]]


def test_the_timer_route_is_written_on_request_and_scores_its_timer_vp(tmp_path, capsys):
    dungeon_file = tmp_path / "far-den.json"
    dungeon_file.write_text(json.dumps(_far_den_dungeon()))
    route = tmp_path / "timed.play.json"
    speed = str(220 / 60)
    assert main(["par", str(dungeon_file), "--speed", speed, "-o", str(route), "--timer-route"]) == 0
    capsys.readouterr()
    assert main(["score", str(dungeon_file), str(route), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 2
    assert main(["par", str(dungeon_file), "--speed", speed, "-o", str(route), "--force"]) == 0
    capsys.readouterr()
    assert main(["score", str(dungeon_file), str(route), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 5  # without --timer-route: the par route


def test_timer_route_without_output_is_a_usage_error(capsys):
    assert main(["par", str(PACKS / "lantern-depths"), "--timer-route"]) == 2
    assert "--timer-route chooses the route -o writes" in capsys.readouterr().err


@pytest.mark.parametrize("speed", ["0", "1e-300", "20000", "nan"])
def test_a_speed_out_of_range_is_a_usage_error(capsys, speed):
    assert main(["par", str(PACKS / "lantern-depths"), "--speed", speed]) == 2
    err = capsys.readouterr().err
    assert "give mm per second from 0.1 to 10000" in err and "Traceback" not in err
