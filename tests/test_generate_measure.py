"""The grid generator's difficulty measure and repairs (RULES.md 1, Scoring; docs/generating.md).

A measure stops early only when the games still to play can hardly bring the mean into the
score range, and a dungeon is only ever accepted on the mean of all its games; a layout that
misses the range is repaired toward the middle of the range, up to ``REPAIRS`` times.
"""

from __future__ import annotations

import math

import pytest

from inkcrawl.engines.grid import GridRules, play_totals
from inkcrawl.engines.grid_policies import make_policy
from inkcrawl.gamedata import grid_game_data
from inkcrawl.generate import generate_grid, grid_spec
from inkcrawl.generate import grid as grid_module
from inkcrawl.model import dungeon_from_dict
from inkcrawl.simulate import simulate
from inkcrawl.tally import iter_game_seeds
from inkcrawl.validate import RulesetRegistry

CLASSIC = RulesetRegistry().get("grid-classic")


def _constraints(**grid) -> dict:
    return {"type": "constraints", "format_version": 1, "family": "grid", "grid": grid}


def _seat_scores(data: dict) -> list[list[int]]:
    """Each game's two seat totals, game by game, as the measure plays them (greedy, seed 1)."""
    rules = GridRules(grid_game_data(dungeon_from_dict(data), CLASSIC))
    policy = make_policy("greedy", rules)
    return [play_totals(rules, [policy, policy], seed) for seed in iter_game_seeds(1, 200)]


def _expected_stop(scores: list[list[int]], low: float, high: float) -> tuple[float, int] | None:
    """Where the measure must stop, worked out from the rule as docs/generating.md states it:
    after every 5th game n < 200, with m the mean of the 2n seat scores so far and v their
    variance, stop when m lies more than 2 x sqrt(v / 2n x (1 - n / 200)) outside [low, high]."""
    seats = []
    for n, game in enumerate(scores, 1):
        seats += game
        if n % 5 or n == 200:
            continue
        m = sum(seats) / len(seats)
        v = sum((s - m) ** 2 for s in seats) / len(seats)
        margin = 2 * math.sqrt(v / len(seats) * (1 - n / 200))
        if m + margin < low or m - margin > high:
            return m, n
    return None


@pytest.fixture(scope="module")
def dungeon() -> dict:
    return generate_grid(grid_spec(None, CLASSIC), 5).data


def test_a_measure_inside_the_range_plays_every_game_and_reports_simulates_mean(dungeon):
    full = simulate(grid_game_data(dungeon_from_dict(dungeon), CLASSIC), 200, 2, "greedy", 1)["score"]["mean"]
    spec = grid_spec(_constraints(difficulty={"mean_score": [full - 0.5, full + 0.5]}), CLASSIC)
    assert grid_module._mean_score(dungeon, spec, (full - 0.5, full + 0.5)) == (full, 200)


@pytest.mark.parametrize("offset", [12.0, 3.0, 1.0, 0.4, -0.4, -1.0, -3.0, -12.0])
def test_a_measure_stops_exactly_where_the_games_left_cannot_bring_the_mean_in(dungeon, offset):
    scores = _seat_scores(dungeon)
    full = sum(map(sum, scores)) / 400
    # a range 2 VP wide whose near edge lies ``offset`` VP above (or below) the full mean
    low, high = (full + offset, full + offset + 2) if offset > 0 else (full + offset - 2, full + offset)
    spec = grid_spec(_constraints(difficulty={"mean_score": [low, high]}), CLASSIC)
    mean, games = grid_module._mean_score(dungeon, spec, (low, high))
    stop = _expected_stop(scores, low, high)
    if stop is None:  # the measure played every game: its mean is the full one, outside the range
        assert games == 200 and mean == pytest.approx(full, abs=0.005)
        assert not low <= mean <= high
    else:
        assert games == stop[1] < 200 and mean == pytest.approx(stop[0])
    if abs(offset) >= 3:  # clearly outside: told long before the 200 games
        assert games <= 50
    if abs(offset) >= 12:  # far outside: the first check, after 5 games, already tells
        assert games == 5


def test_a_miss_is_repaired_toward_the_middle_of_the_range(monkeypatch):
    # scripted means: 1.6 (5.9 VP under the middle 7.5), 20 (12.5 over: 8 at most), 9.4 (1.9
    # over), then 7.0 over all 200 games: accepted
    means = iter([(1.6, 10), (20.0, 10), (9.4, 120), (7.0, 200)])
    repairs = []
    real_repair = grid_module._repair

    def spy(rng, spec, layout, more, wanted):
        repairs.append((more, wanted))
        return real_repair(rng, spec, layout, more, wanted)

    monkeypatch.setattr(grid_module, "_mean_score", lambda data, spec, wanted=None, helper=None: next(means))
    monkeypatch.setattr(grid_module, "_repair", spy)
    spec = grid_spec(_constraints(difficulty={"mean_score": [6, 9]}), CLASSIC)
    result = generate_grid(spec, 11, time_limit=60)
    assert repairs == [(True, 6), (False, 8), (False, 2)]
    assert (result.tries, result.mean_score, result.games) == (1, 7.0, 10 + 10 + 120 + 200)


def test_a_try_is_repaired_six_times_before_the_next_is_drawn(monkeypatch):
    assert grid_module.REPAIRS == 6
    means = iter([(1.6, 10)] * 7 + [(7.5, 200)])
    monkeypatch.setattr(grid_module, "_mean_score", lambda data, spec, wanted=None, helper=None: next(means))
    spec = grid_spec(_constraints(difficulty={"mean_score": [6, 9]}), CLASSIC)
    result = generate_grid(spec, 11, time_limit=60)
    assert (result.tries, result.games) == (2, 7 * 10 + 200)
