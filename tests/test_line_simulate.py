"""Simulated players on line dungeons: optimal, greedy and a sloppy human, scored by the referee."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from conftest import PACKS
from test_par import _choice_dungeon
from test_referee import _el, entry_of

from inkcrawl.cli import main
from inkcrawl.engines.line import LineRules
from inkcrawl.engines.line import simulate as line_sim
from inkcrawl.engines.line.par import par

LANTERN = PACKS / "lantern-depths"


def _lure_dungeon() -> dict:
    """r1 (the Start) opens east on r3 (the boss b1, 2 VP; covering it ends the scrawl) and south
    on the corridor c1 (nothing in it), which leads to r2 (three monsters, 1 VP each)."""
    dungeon = copy.deepcopy(_choice_dungeon())
    dungeon["areas"] = [
        {"id": "r1", "kind": "room", "name": "Hall", "polygon": [[20, 20], [80, 20], [80, 80], [20, 80]]},
        {"id": "r3", "kind": "room", "name": "Lair", "polygon": [[80, 20], [140, 20], [140, 80], [80, 80]]},
        {"id": "c1", "kind": "corridor", "polygon": [[40, 80], [60, 80], [60, 110], [40, 110]]},
        {"id": "r2", "kind": "room", "name": "Den", "polygon": [[20, 110], [80, 110], [80, 170], [20, 170]]},
    ]
    dungeon["elements"] = [
        _el("st1", "start", (50, 20), 8),
        _el("b1", "boss", (110, 50), 16, vp=2, name="Moss King"),
        _el("m1", "monster", (35, 130), 8),
        _el("m2", "monster", (65, 130), 8),
        _el("m3", "monster", (50, 155), 8),
    ]
    return dungeon


@pytest.fixture(scope="module")
def lure() -> dict:
    return entry_of(_lure_dungeon())


def test_greedy_takes_the_boss_it_sees_and_optimal_goes_round_first(lure):
    # greedy: of r3 (2 VP at once) and c1 (0 at once) it enters r3, and covering the boss ends the
    # scrawl: 2. optimal: c1, r2 (m1 m2 m3: 3), back through c1 and r1 to r3 (b1: 2): 5
    greedy = line_sim.simulate_line(lure, games=3, policy="greedy", seed=0)
    optimal = line_sim.simulate_line(lure, games=3, policy="optimal", seed=0)
    assert greedy["score"]["min"] == greedy["score"]["max"] == 2
    assert optimal["score"]["min"] == optimal["score"]["max"] == 5
    assert greedy["par"] == optimal["par"] == 5
    assert greedy["balance"]["par_gap"] == 3 and optimal["balance"]["par_gap"] == 0
    assert greedy["ended"] == {"boss_covered": 1} and optimal["ended"] == {"boss_covered": 1}
    done = {row["element"]: row["completed"] for row in optimal["completion"]}
    assert done == {"b1": 1, "m1": 1, "m2": 1, "m3": 1}
    done = {row["element"]: row["completed"] for row in greedy["completion"]}
    assert done == {"b1": 1, "m1": 0, "m2": 0, "m3": 0}


def test_a_human_of_full_skill_draws_the_par_route_exactly(lure):
    exact = line_sim.simulate_line(lure, games=4, policy="human", seed=3, skill=1.0)
    optimal = line_sim.simulate_line(lure, games=4, policy="optimal", seed=3)
    for stats in (exact, optimal):
        stats.pop("policy")
    assert exact == optimal


def test_the_same_seed_gives_the_same_statistics_for_any_number_of_workers(lure):
    one = line_sim.simulate_line(lure, games=60, policy="human", seed=9, skill=0.3, workers=1)
    two = line_sim.simulate_line(lure, games=60, policy="human", seed=9, skill=0.3, workers=2)
    assert one == two
    assert one["games"] == 60 and sum(round(v * 60) for v in one["ended"].values()) == 60


def test_a_player_who_misses_everything_completes_nothing(lure, monkeypatch):
    # every element of the route overlooked (misses at rate 1 for skill 0) and no jitter: the line
    # turns away from each monster before it and stops short of the boss, so nothing is
    # completed; r2's monsters were all left undone, a room's elements are all or nothing
    monkeypatch.setattr(line_sim, "MISS_RATE", 1.0)
    monkeypatch.setattr(line_sim, "JITTER_MM", 0.0)
    stats = line_sim.simulate_line(lure, games=2, policy="human", seed=1, skill=0.0)
    assert {row["element"]: row["completed"] for row in stats["completion"]} == {"b1": 0, "m1": 0, "m2": 0, "m3": 0}
    assert stats["ended"] == {"path_ended": 1}


def test_pen_jitter_is_smooth_noise_of_the_stated_size():
    rng = np.random.default_rng(5)
    line = np.array([[0.0, 0.0], [4000.0, 0.0]])
    drawn = line_sim._jitter(line, 1.0, rng)
    assert drawn[0].tolist() == [0.0, 0.0]  # the first point stays (a Start, a portal exit)
    offsets = drawn[1:, 1]  # the sideways push; the line lies along x
    assert abs(float(np.std(offsets)) - 1.0) < 0.15  # stationary standard deviation: sigma
    steps = np.diff(offsets)
    # neighbours 1 mm apart are strongly correlated (exp(-1/6) = 0.85): small steps
    assert float(np.std(steps)) < 0.6 * float(np.std(offsets))
    assert line_sim._jitter(line, 0.0, rng) is line  # no sloppiness, no change


def test_a_slow_hand_is_stopped_by_the_timer():
    # the Test Keep shape with a timer of 10 s: at 1 mm/s no route of the sheet fits, so the
    # human's scrawl ends by the timer in every game
    dungeon = _lure_dungeon()
    dungeon["sheet"]["end_triggers"] = [{"kind": "boss_covered"}, {"kind": "timer", "seconds": 10}]
    dungeon["sheet"]["components"] = ["timer"]
    entry = entry_of(dungeon)
    stats = line_sim.simulate_line(entry, games=5, policy="human", seed=2, skill=0.9, speed_mm_s=1.0)
    assert stats["ended"] == {"timer": 1}


def test_completed_elements_reads_the_breakdown():
    result = {
        "sections": [
            {
                "lines": [
                    {"kind": "completed", "element": "m1"},
                    {"kind": "failed", "element": "t1"},
                    {"kind": "key", "element": "k1", "taken": True},
                    {"kind": "key", "element": "k2", "taken": False},
                    {"kind": "completed", "element": "a1,a2,a3"},
                ]
            }
        ],
        "orbs": {"lines": [{"kind": "orb", "element": "o1", "scored": True}, {"kind": "orb", "element": "o2"}]},
        "boss": {"lines": [{"kind": "completed", "element": "b1"}]},
    }
    assert line_sim.completed_elements(result) == {"m1", "k1", "a1", "a2", "a3", "o1", "b1"}


def test_the_optimal_player_scores_par_on_a_bundled_dungeon():
    entry = json.loads(json.dumps(_bundled_entry("candlewick-cellars")))
    stats = line_sim.simulate_line(entry, games=2, policy="optimal", seed=0)
    assert stats["score"]["mean"] == stats["par"] == par(LineRules(entry)).par
    heatmap = stats["heatmap"]
    assert heatmap["rows"] == len(heatmap["permille"]) and all(
        len(r) == heatmap["columns"] for r in heatmap["permille"]
    )
    # the Start's cell is on every game's line
    (sx, sy) = LineRules(entry).starts[0]["at"]
    cell = heatmap["cell_mm"]
    assert heatmap["permille"][int(sy // cell)][int(sx // cell)] == 1000


def _bundled_entry(dungeon_id: str) -> dict:
    from inkcrawl.gamedata import game_document
    from inkcrawl.loading import open_dungeons

    entries = game_document(open_dungeons([str(LANTERN)]).dungeons)["dungeons"]
    return next(e for e in entries if e["id"] == dungeon_id)


def test_simulate_a_line_dungeon_on_the_command_line(tmp_path, capsys):
    heat = tmp_path / "lines.png"
    status = main(["simulate", str(LANTERN), "--games", "12", "--skill", "0.5", "--heatmap", str(heat)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "policy human (skill 0.5)" in out and "Elements completed" in out and "(par 14)" in out
    assert heat.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["simulate", str(LANTERN), "--games", "2", "--policy", "optimal", "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["family"] == "line" and stats["score"]["mean"] == 14


def test_skill_minus_zero_is_skill_zero(capsys):
    # "-0" parses to the float -0.0, which is 0 but printed "-0": the output must be skill 0's, byte for byte
    argv = ["simulate", str(LANTERN), "--games", "2", "--workers", "1"]
    assert main([*argv, "--skill", "-0"]) == 0
    minus = capsys.readouterr().out
    assert main([*argv, "--skill", "0"]) == 0
    assert capsys.readouterr().out == minus and "(skill 0)" in minus
    assert main([*argv, "--skill", "-0", "--format", "json"]) == 0
    assert '"skill": 0.0' in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--policy", "optimum"], "unknown policy 'optimum' for a line dungeon (known: optimal, greedy, human)"),
        (["--policy", "greedy,optimal"], "a policy per seat (NAME,NAME,...) is for grid dungeons"),
        (["--skill", "1.5"], "--skill is from 0"),
        (["--speed", "0"], "--speed is in mm per second"),
        (["--speed", "1e308"], "from 0.1 to 10000"),  # the message names the bound it breaks
        (["--speed", "1e-300"], "from 0.1 to 10000"),
        (["--workers", "100000"], "--workers 100000: use 1 to 256"),  # 100,000 processes hung the pool
        (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler plays grid dungeons"),
        (["--character", "nobody"], "unknown character 'nobody'"),
    ],
)
def test_bad_line_options_are_usage_errors(capsys, argv, message):
    assert main(["simulate", str(LANTERN), "--games", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_at_a_table_the_first_scrawl_end_stops_everyone(lure):
    # two seats draw the par route of the Lure exactly (skill 1): seat 1 at the table's speed,
    # seat 2 at its own log-normal factor of it. Covering the boss (the route's last element) ends
    # the scrawl for both: the faster seat completes everything (5); the other is stopped where its
    # line is at that moment, before the boss: at most 3 (the den's monsters), and its play says so
    import numpy as np

    rules = LineRules(lure)
    base = line_sim.intent(rules, "optimal")
    _, factor = line_sim.human_drawing(rules, base, np.random.default_rng(11), 1.0)
    table = line_sim.play_table(rules, base, [None, np.random.default_rng(11)], [1.0, 1.0], 50.0)
    totals = [int(result["total"]) for _, result in table]
    fast, slow = (1, 0) if factor > 1 else (0, 1)
    assert totals[fast] == 5 and totals[slow] <= 3
    stopped_play = table[slow][0]
    length = table[fast][1]["end"]["length_mm"]
    ratio = 1 / factor if slow == 0 else factor  # the slow seat's speed over the fast seat's
    assert stopped_play["end"]["trigger"] == "boss_covered"
    assert stopped_play["end"]["at"]["length_mm"] == pytest.approx(length * ratio, abs=1e-3)


def test_identical_seats_always_tie(lure):
    stats = line_sim.simulate_line(lure, games=3, policy="optimal", seed=0, players=2)
    assert [s["wins"] for s in stats["seats"]] == [0.5, 0.5]
    assert stats["balance"]["ties"] == 1 and stats["balance"]["winning_margin"] == 0
    assert stats["balance"]["outcome_uniformity"] == 1 and stats["score"]["distribution"] == {"5": 6}


def test_a_skill_per_seat(capsys):
    assert main(["simulate", str(LANTERN), "--games", "4", "--players", "2", "--skill", "0.9,0.2"]) == 0
    out = capsys.readouterr().out
    assert "policy human (skill 0.9,0.2)" in out and "1. skill 0.9" in out and "2. skill 0.2" in out
    assert main(["simulate", str(LANTERN), "--games", "2", "--players", "3", "--skill", "0.9,0.2"]) == 2
    assert "2 skills for 3 players" in capsys.readouterr().err


def _contest_dungeon(orb: bool) -> dict:
    """The key detour of test_par (r1 m1; the red key k1 in corridor c2; r2's three monsters only
    through the red door d1), and with ``orb`` a blue orb o1 in corridor c1 before the door,
    its stack 4 then 2 VP."""
    from test_par import _detour_dungeon

    dungeon = _detour_dungeon()
    if orb:
        dungeon["sheet"]["components"] = ["keys", "orbs"]
        dungeon["sheet"]["orb_tokens"] = {"blue": [4, 2]}
        dungeon["elements"].append(_el("o1", "orb", (100, 50), 8, colour="blue"))
    return dungeon


def test_at_a_table_the_key_supply_is_shared_in_time_order():
    # Three seats draw the par route (m1, the key k1, through d1 to m2 m3 m4: 4 VP) exactly, at
    # one speed: they touch k1 at the same moment, and the seats take the tokens in seat order.
    # line-classic's supply for 3 players is 2 red keys: seats 1 and 2 take them and score 4;
    # seat 3 finds none (keys_gone), so d1 is a locked door to it: everything after crossing it
    # is ignored and only m1 counts: 1.
    rules = LineRules(entry_of(_contest_dungeon(orb=False)))
    assert rules.key_supply["3"] == 2
    base = line_sim.intent(rules, "optimal", players=3)
    table = line_sim.play_table(rules, base, [None, None, None], [1.0, 1.0, 1.0], 50.0)
    assert [int(result["total"]) for _, result in table] == [4, 4, 1]
    assert "keys_gone" not in table[0][0] and "keys_gone" not in table[1][0]
    assert table[2][0]["keys_gone"] == ["k1"] and table[2][1]["ignored"]
    # with two players the supply (2) serves both: no contest
    base = line_sim.intent(rules, "optimal", players=2)
    table = line_sim.play_table(rules, base, [None, None], [1.0, 1.0], 50.0)
    assert [int(result["total"]) for _, result in table] == [4, 4]


def test_at_a_table_the_orb_stack_goes_in_time_order():
    # Two seats (supply 2: both get the red key) cover o1 on the way to the door at the same
    # moment: seat 1 takes the blue stack's 1st token (4), seat 2 the 2nd (2): 4 + 4 = 8 and
    # 4 + 2 = 6; seat 2's play says which token it got.
    rules = LineRules(entry_of(_contest_dungeon(orb=True)))
    base = line_sim.intent(rules, "optimal", players=2)
    assert "o1" in par(rules, players=2).route
    table = line_sim.play_table(rules, base, [None, None], [1.0, 1.0], 50.0)
    assert [int(result["total"]) for _, result in table] == [8, 6]
    assert "orb_tokens" not in table[0][0] and table[1][0]["orb_tokens"] == {"blue": [2]}


def test_the_faster_seat_takes_the_last_key_token():
    # Seat 2 draws the same route 3x as fast as seat 1 (its speed factor), seat 3 at the table's
    # speed after seat 1 in seat order: seat 2 reaches k1 first, then seats 1 and 3 at one moment;
    # the two red tokens go to seats 2 and 1, and seat 3 is left without.
    from inkcrawl.engines.line import referee_with_tokens

    rules = LineRules(entry_of(_contest_dungeon(orb=False)))
    base = line_sim.intent(rules, "optimal", players=3)
    shares = line_sim._share_tokens(
        rules,
        [50.0, 150.0, 50.0],
        [[t for t in referee_with_tokens(rules, base.play)[1] if t.kind == "key"]] * 3,
    )
    assert shares == [{}, {}, {"keys_gone": ["k1"]}]
    shares = line_sim._share_tokens(
        rules,
        [50.0, 150.0, 60.0],
        [[t for t in referee_with_tokens(rules, base.play)[1] if t.kind == "key"]] * 3,
    )
    assert shares == [{"keys_gone": ["k1"]}, {}, {}]  # seat 3 (60 mm/s) now beats seat 1 (50)


def test_seats_reaching_a_token_at_once_take_it_in_the_tie_order():
    # the three seats of the key test again, now seat 3 first and seat 1 last at the same moment:
    # seats 3 and 2 take the two red tokens, seat 1 is left without: 1, 4, 4
    rules = LineRules(entry_of(_contest_dungeon(orb=False)))
    base = line_sim.intent(rules, "optimal", players=3)
    table = line_sim.play_table(rules, base, [None, None, None], [1.0, 1.0, 1.0], 50.0, tie_order=[2, 1, 0])
    assert [int(result["total"]) for _, result in table] == [1, 4, 4]


def test_identical_seats_share_the_luck_of_the_draw_for_a_token():
    # two optimal seats reach o1 at the same moment in every game: the seat drawn first that game
    # takes the 4-VP token and wins 8 to 6; over 40 games each seat wins some
    stats = line_sim.simulate_line(entry_of(_contest_dungeon(orb=True)), games=40, policy="optimal", seed=5, players=2)
    wins = [seat["wins"] for seat in stats["seats"]]
    assert sum(wins) == 1 and all(0.25 < w < 0.75 for w in wins)
    assert stats["score"]["distribution"] == {"6": 40, "8": 40} and stats["balance"]["ties"] == 0


def test_a_table_never_gives_out_more_tokens_than_there_are():
    # The Orchard of Drowned Lanterns: every seat's par route covers three pink orbs (the sheet
    # ends the scrawl on the last pink token) and takes the blue, green (skeleton) and yellow keys.
    # Four seats at one table: at most keys.supply["4"] seats hold a colour, each orb token goes
    # to one seat, and the table ends when the pink stack runs out.
    from collections import Counter

    from inkcrawl.cli.common import load_games

    entries, _ = load_games([str(LANTERN / "dungeons" / "03-orchard-of-drowned-lanterns.json")])
    rules = LineRules(entries[0])
    supply = int(rules.key_supply["4"])
    base = line_sim.intent(rules, "optimal", players=4)
    for ties in ([0, 1, 2, 3], [3, 1, 0, 2]):
        table = line_sim.play_table(rules, base, [None] * 4, [1.0] * 4, 50.0, ties)
        held, tokens = Counter(), Counter()
        for _, result in table:
            for section in result["sections"]:
                for line in section["lines"]:
                    if line.get("kind") == "key" and line.get("taken"):
                        held[line["text"].replace("took the ", "").replace("took a ", "").split()[0]] += 1
            for line in result["orbs"]["lines"]:
                if line.get("kind") == "orb":
                    tokens[(line["text"].split(": ")[1].split()[0], line["position"])] += 1
        assert held and max(held.values()) <= supply
        assert tokens and max(tokens.values()) == 1
        assert any((result.get("end") or {}).get("element") for _, result in table)  # someone set off the end
