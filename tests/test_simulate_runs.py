"""Runs of many games: the same result in one process, on local workers and on a Dask cluster;
balance measures computed by hand; rule and deck variants."""

from __future__ import annotations

import json
import math

import pytest
from test_grid_engine import grid_entry
from test_simulate import EMBER, run

from inkcrawl import simulate as sim
from inkcrawl.balance import VariantError, apply_variant, deck_variants, variant_name
from inkcrawl.gamedata import game_document
from inkcrawl.loading import open_dungeons
from inkcrawl.runs import Run, run_tallies


@pytest.fixture(scope="module")
def ember_entry() -> dict:
    opened = open_dungeons([EMBER])
    return game_document(opened.dungeons)["dungeons"][0]


def test_the_same_seed_gives_the_same_statistics_for_any_number_of_workers(ember_entry):
    # 2,300 games: in one process a first chunk of 50, one of 2,000 and a last of 250; on 2 and 3
    # workers chunks that shrink towards the end (runs._chunks), spread over the workers
    one = sim.simulate(ember_entry, 2300, 2, "random", 7, workers=1, balance=False)
    two = sim.simulate(ember_entry, 2300, 2, "random", 7, workers=2, balance=False)
    three = sim.simulate(ember_entry, 2300, 2, "random", 7, workers=3, balance=False)
    assert one == two == three
    assert one["games"] == 2300 and sum(one["tallies"]["distribution"].values()) == 4600


def test_a_merged_tally_is_the_tally_of_all_its_games(ember_entry):
    seeds = sim.game_seeds(3, 60)
    whole = sim.play_chunk(ember_entry, ("random", "greedy"), seeds)
    parts = sim.play_chunk(ember_entry, ("random", "greedy"), seeds[40:])
    parts.merge(sim.play_chunk(ember_entry, ("random", "greedy"), seeds[:40]))  # any order
    assert vars(parts) == vars(whole)


def test_memory_of_a_run_does_not_hold_its_seeds():
    # the chunks are drawn lazily: asking for 10**12 games draws only the first chunk
    from inkcrawl.runs import FIRST_CHUNK, _chunks

    chunks = _chunks([Run({}, ("random",), 0, 10**12)])
    index, first = next(chunks)
    assert index == 0 and len(first) == FIRST_CHUNK


def test_chunks_shrink_towards_the_end_on_several_workers():
    from inkcrawl.runs import CHUNK, FIRST_CHUNK, _chunks

    runs = [Run({}, ("random",), 5, 30000), Run({}, ("random",), 6, 9000)]
    # one process: 50, then chunks of 2,000, and the rest; the second run starts with 50 again
    alone = [(index, len(seeds)) for index, seeds in _chunks(runs)]
    assert alone[:2] == [(0, FIRST_CHUNK), (0, CHUNK)] and alone[15] == (0, 30000 - 50 - 14 * CHUNK)
    assert alone[16:18] == [(1, FIRST_CHUNK), (1, CHUNK)] and alone[-1] == (1, 9000 - 50 - 4 * CHUNK)
    cut = list(_chunks(runs, 2))
    sizes = [len(seeds) for _, seeds in cut]
    # the same seeds in the same order, whatever the cut
    for index, one in enumerate(runs):
        assert [seed for i, seeds in cut if i == index for seed in seeds] == sim.game_seeds(one.seed, one.games)
    # 2 workers: the chunks shrink once fewer than 2 x 2 workers x 2 chunks of 2,000 (16,000
    # games) are left: after 50 + 12 x 2,000 games 14,950 are left, so the next chunk is 14,950 / 8
    assert sizes[:13] == [FIRST_CHUNK] + [CHUNK] * 12 and sizes[13] == 14950 // 8
    left = 14950
    for k in range(13, len(sizes)):
        assert sizes[k] <= max(FIRST_CHUNK, left // 8)
        assert sizes[k] >= FIRST_CHUNK or k == len(sizes) - 1 or cut[k + 1][0] != cut[k][0]  # a run's last
        left -= sizes[k]
    assert left == 0 and sizes[-1] <= FIRST_CHUNK


def test_every_game_tied_gives_shared_wins_uniform_outcomes_and_no_lead_change():
    # one room open only to its entryway and a deck of crosses: every cross is a tally for every
    # player, so after every round all players have the same score: every game is a three-way tie
    entry = grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"cross": 8}, rounds=2, reveal=2)
    stats = sim.simulate(entry, games=6, players=3, policies="random", seed=1, balance=True)
    balance = stats["balance"]
    assert balance["ties"] == 1
    assert balance["seat_win_gap"] == 0
    assert balance["outcome_uniformity"] == 1  # every seat wins a third: the entropy is ln 3 of ln 3
    assert balance["winning_margin"] == 0
    assert balance["lead_changes"] == {"mean": 0, "by_round": {"1": 0, "2": 0}}
    assert balance["score_spread"] == {"stdev": 0, "iqr": 0}
    # every policy scores -7 (two rounds of two crosses: 4 tallies at -2, the unlinked entryway +1)
    assert balance["skill_gap"]["policies"] == {"greedy": -7, "random": -7}
    assert balance["skill_gap"]["gap"] == 0
    # one cross fewer still gives 4 reveals of crosses (the discards are reshuffled): no change;
    # with only crosses in the deck every variant is still 4 tallies, so nothing moves
    assert [row["variant"] for row in balance["deck_sensitivity"]["variants"]] == ["cross -1", "cross +1"]
    assert all(row["delta"] == 0 for row in balance["deck_sensitivity"]["variants"])


def test_lead_changes_follow_the_sole_leader():
    tracker = sim.LeadTracker()
    # seat 0 leads, seat 1 leads (a change after round 2), a tie (no leader), seat 1 again (no
    # change: the last sole leader was seat 1), seat 0 (a change after round 5)
    for round_number, totals in enumerate([(1, 0), (0, 1), (2, 2), (0, 2), (3, 0)], start=1):
        tracker.after_round(round_number, list(totals))
    assert tracker.changes == [2, 5]
    tracker.reset()
    tracker.after_round(1, [0, 0])  # a tie first: no leader yet
    tracker.after_round(2, [0, 1])  # the first sole leader is not a change
    assert tracker.changes == []


def test_outcome_uniformity_is_the_normalised_entropy_of_the_win_shares():
    tally = sim.GridTally(size=1, players=2, terms=["loot"], rounds=1)
    tally.games = 4
    tally.seat_wins = [[3, 0], [1, 0]]  # seat 1 won 3 games alone, seat 2 one
    wins = tally.seat_win_shares()
    assert wins == [0.75, 0.25]
    expected = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25)) / math.log(2)
    assert tally.balance(wins, iqr=0, stdev=0, leads=False)["outcome_uniformity"] == round(expected, 4)
    assert tally.balance(wins, iqr=0, stdev=0, leads=False)["seat_win_gap"] == 0.5


def test_a_tie_shares_the_win_exactly():
    tally = sim.GridTally(size=1, players=3, terms=["loot"], rounds=1)
    tally.games = 3
    tally.seat_wins = [[0, 0, 3], [0, 0, 3], [0, 0, 3]]  # three three-way ties
    assert tally.seat_win_shares() == [pytest.approx(1 / 3)] * 3


def test_deck_variants_change_one_card_at_a_time(ember_entry):
    cards = ember_entry["deck"]["cards"]
    variants = deck_variants(ember_entry)
    assert len(variants) == 2 * len([c for c in cards if cards[c] > 0])
    fewer = apply_variant(ember_entry, variants[0])
    first = next(iter(cards))
    assert fewer["deck"]["cards"][first] == cards[first] - 1
    assert ember_entry["deck"]["cards"][first] == cards[first]  # the original is untouched


def test_a_variant_that_breaks_the_rules_names_itself():
    entry = grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"cross": 1}, rounds=1, reveal=1)
    with pytest.raises(VariantError, match="'cross' cards; -2 leaves -1"):
        apply_variant(entry, {"name": "thin", "deck": {"cross": -2}})
    with pytest.raises(VariantError, match="no scoring term 'gold'"):
        apply_variant(entry, {"scoring": {"gold": 3}})
    with pytest.raises(VariantError, match="variant 'odd'"):
        apply_variant(entry, {"name": "odd", "switches": {"trap_timing": "never"}})
    changed = apply_variant(entry, {"switches": {"trap_timing": "later_segments_only"}, "scoring": {"tally": -3}})
    assert changed["switches"]["trap_timing"] == "later_segments_only"
    assert [row["vp"] for row in changed["scoring"] if row["term"] == "tally"] == [-3]
    assert variant_name({"deck": {"trap": 1}, "scoring": {"trap": -4}}) == "trap +1, trap -4 VP"


def test_a_harsher_tally_lowers_the_mean_by_exactly_the_tallies(ember_entry):
    # the same seeds with every tally at -3 instead of -2: the same games, each tally one VP lower
    runs = [
        Run(ember_entry, ("random", "random"), 5, 300),
        Run(apply_variant(ember_entry, {"scoring": {"tally": -3}}), ("random", "random"), 5, 300),
    ]
    base, harsh = run_tallies(runs)
    tallies = sum(k * n for k, n in base.tally_counts.items()) / sum(base.tally_counts.values())
    assert harsh.tally_counts == base.tally_counts
    assert harsh.mean() == pytest.approx(base.mean() - tallies)


def test_simulate_balance_on_the_command_line(capsys):
    assert run(["simulate", EMBER, "--games", "60", "--balance", "--format", "json", "--workers", "2"]) == 0
    stats = json.loads(capsys.readouterr().out)
    balance = stats["balance"]
    assert set(balance) >= {"skill_gap", "deck_sensitivity", "lead_changes", "ties", "outcome_uniformity"}
    assert run(["simulate", EMBER, "--games", "60", "--balance"]) == 0
    text = capsys.readouterr().out
    assert "skill gap:" in text and "deck sensitivity:" in text and "lead changes:" in text


def test_an_unreachable_scheduler_is_a_clear_error(capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr("inkcrawl.runs.CONNECT_TIMEOUT", 1)  # Dask retries a refused connection until then
    # port 9 (discard) on this machine: nothing listens there
    assert run(["simulate", EMBER, "--games", "10", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err and "Traceback" not in err


def test_a_dask_cluster_gives_the_local_result(ember_entry):
    distributed = pytest.importorskip("distributed")
    local = sim.simulate(ember_entry, 2500, 2, ["random", "greedy"], 11, workers=1)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        remote = sim.simulate(ember_entry, 2500, 2, ["random", "greedy"], 11, scheduler=cluster.scheduler_address)
    assert remote == local
