"""The difficulty measure's helper process (inkcrawl.generate.measure): the games it plays are the
games this process would play, so every measure's result is the same with a helper, without one,
with a helper that dies and with one that stops answering; and the helper does play games.
"""

from __future__ import annotations

import os
import signal

import pytest

from inkcrawl.generate import generate_grid, grid_spec
from inkcrawl.generate import measure as measure_module
from inkcrawl.generate.measure import MeasureHelper, MeasureStats, mean_score, measure_helper
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.validate import RulesetRegistry
from inkcrawl.workers import default_workers, fork_is_safe

CLASSIC = RulesetRegistry().get("grid-classic")
DIFFICULTY = {"policy": "greedy", "players": 2, "games": 200, "seed": 1}

needs_two_cores = pytest.mark.skipif(default_workers() < 2, reason="a helper needs a second core")


def _constraints(**grid) -> dict:
    return {"type": "constraints", "format_version": 1, "family": "grid", "grid": grid}


@pytest.fixture(scope="module")
def dungeon() -> dict:
    return generate_grid(grid_spec(None, CLASSIC), 5).data


@pytest.fixture(scope="module")
def full_mean(dungeon) -> float:
    return mean_score(dungeon, CLASSIC, DIFFICULTY)[0]


@pytest.fixture
def helper():
    if default_workers() < 2:
        pytest.skip("a helper needs a second core")
    made = MeasureHelper()  # forked, or spawned where this test process runs Qt
    try:
        yield made
    finally:
        made.close()


# ranges that stop the measure after 5 games, after some tens, and none (every game played)
OFFSETS = [12.0, 1.0, 0.4, -0.4, -3.0, None]


def _wanted(full: float, offset: float | None) -> tuple[float, float]:
    if offset is None:
        return full - 1.0, full + 1.0
    return (full + offset, full + offset + 2) if offset > 0 else (full + offset - 2, full + offset)


@needs_two_cores
@pytest.mark.parametrize("offset", OFFSETS)
def test_a_measure_with_a_helper_gives_what_it_gives_alone(dungeon, full_mean, helper, offset):
    wanted = _wanted(full_mean, offset)
    alone = mean_score(dungeon, CLASSIC, DIFFICULTY, wanted)
    assert mean_score(dungeon, CLASSIC, DIFFICULTY, wanted, helper) == alone
    if offset is None:
        assert alone == (full_mean, 200)


@needs_two_cores
def test_the_helper_plays_part_of_the_games(dungeon, full_mean, helper, monkeypatch):
    # however busy the machine, the helper's answers are waited for (by default a late answer's
    # blocks are played here, and on a loaded machine the helper may then play none)
    monkeypatch.setattr(measure_module, "HELPER_GRACE", 600.0)
    stats = MeasureStats()
    assert mean_score(dungeon, CLASSIC, DIFFICULTY, None, helper, stats) == (full_mean, 200)
    # this process plays the even blocks and the helper the odd ones, but for the ones this
    # process plays while it would otherwise wait
    assert stats.helper > 0 and stats.wasted == 0
    assert stats.here + stats.helper == 200 // measure_module.BLOCK


@needs_two_cores
def test_a_helper_that_dies_costs_nothing_but_time(dungeon, full_mean, helper):
    helper.process.kill()
    helper.process.join(5)
    assert mean_score(dungeon, CLASSIC, DIFFICULTY, _wanted(full_mean, 0.4), helper) == mean_score(
        dungeon, CLASSIC, DIFFICULTY, _wanted(full_mean, 0.4)
    )
    assert mean_score(dungeon, CLASSIC, DIFFICULTY, None, helper) == (full_mean, 200)
    assert not helper.alive


@needs_two_cores
@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="stopping a process needs POSIX signals")
def test_a_helper_that_stops_answering_has_its_games_played_here(dungeon, full_mean, helper):
    os.kill(helper.process.pid, signal.SIGSTOP)
    try:
        stats = MeasureStats()
        for _ in range(20):  # many measures: a stopped helper is sent no more than it may hold
            assert mean_score(dungeon, CLASSIC, DIFFICULTY, None, helper, stats) == (full_mean, 200)
            assert helper.outstanding <= measure_module.MAX_OUTSTANDING
        assert stats.helper == 0 and stats.here == 20 * 200 // measure_module.BLOCK
    finally:
        os.kill(helper.process.pid, signal.SIGCONT)
    # answers of the stopped measure that arrive late are not taken for the next one's
    assert mean_score(dungeon, CLASSIC, DIFFICULTY, None, helper) == (full_mean, 200)


def test_no_helper_on_one_core(monkeypatch):
    monkeypatch.setattr("inkcrawl.workers.default_workers", lambda limit=8: 1)
    with measure_helper() as helper:
        assert helper is None


@needs_two_cores
def test_the_helper_ends_with_its_block():
    if not fork_is_safe():  # asked now: an earlier test of this process may have started Qt
        pytest.skip("a helper is only forked, and this process runs Qt")
    with measure_helper() as helper:
        assert helper is not None and helper.process.is_alive()
    assert not helper.process.is_alive()


def _helper_in_a_daemon() -> str:
    with measure_helper() as helper:
        return "none" if helper is None else "helper"


def test_a_daemonic_worker_measures_without_a_helper():
    """A worker of inkcrawl.workers.WorkerPool (daemonic, as the editor's generation worker)
    may not start processes: it measures alone, and the editor's generate_job gives the dungeon
    ``inkcrawl generate`` gives (this failed with "daemonic processes are not allowed to have
    children")."""
    from editor.dungeon.generating import generate_job
    from inkcrawl.workers import WorkerPool

    constraints = _constraints(difficulty={"mean_score": [6, 9]})
    pool = WorkerPool(1, start="spawn")
    try:
        assert pool.submit(_helper_in_a_daemon).result(timeout=120) == "none"
        answer = pool.submit(generate_job, "grid", CLASSIC, constraints, 3, 60.0).result(timeout=120)
    finally:
        pool.shutdown()
    assert answer["ok"], answer
    expected = generate_grid(grid_spec(constraints, CLASSIC), 3, time_limit=60).data
    assert dumps_canonical(answer["data"]) == dumps_canonical(expected)


def _raising_policy_measure(dungeon: dict) -> str:
    """A measure whose policy raises in both processes: the error is this process's; the helper
    answers that it could not play and says nothing."""
    from inkcrawl.engines import grid_policies

    class Broken(grid_policies.GreedyPolicy):
        def choose(self, state, card, options, rng):
            raise RuntimeError("a policy bug")

    grid_policies.register_policy("broken-for-test", Broken)
    helper = MeasureHelper()
    try:
        mean_score(dungeon, CLASSIC, {**DIFFICULTY, "policy": "broken-for-test"}, None, helper)
    except RuntimeError as exc:
        return str(exc)
    finally:
        helper.close()
    return "no error"


@needs_two_cores
def test_a_policy_error_is_raised_here_and_the_helper_prints_nothing(dungeon, capfd):
    if not fork_is_safe():  # asked now: an earlier test of this process may have started Qt
        pytest.skip("the policy is registered here and reaches the helper only by fork")
    assert _raising_policy_measure(dungeon) == "a policy bug"
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err and "Traceback" not in captured.out


@needs_two_cores
def test_generate_with_a_helper_writes_the_same_dungeons(helper):
    spec = grid_spec(_constraints(difficulty={"mean_score": [6, 9]}), CLASSIC)
    for seed in range(4):
        alone = generate_grid(spec, seed, time_limit=60)
        shared = generate_grid(spec, seed, time_limit=60, helper=helper)
        assert dumps_canonical(shared.data) == dumps_canonical(alone.data)
        assert (shared.tries, shared.games, shared.mean_score) == (alone.tries, alone.games, alone.mean_score)
