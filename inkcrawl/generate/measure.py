"""The mean simulated score of a grid dungeon, played on this process and a helper process.

A difficulty target (``grid.difficulty.mean_score``) is met by measuring: the mean score per seat
of ``games`` games with the target's policy, players and seed, exactly as ``inkcrawl simulate``
reports ``score.mean`` (RULES.md 1, Scoring, through the grid engine). The games are played in
blocks of :data:`BLOCK` games; after each block the measure may stop early, when the games left
can hardly bring the mean into the range (:func:`mean_score`).

With a **helper** (:func:`measure_helper`: one process on a machine with two cores or more,
spoken to through a pipe by this thread alone, as a pool's threads would wait milliseconds for
this thread's hold on the interpreter before each answer) the blocks are shared out: this process
plays the lowest block nobody has taken, the helper the next ones, and the early-stop checks run
in block order on the blocks' exact sums. Game ``k`` is the same game wherever it is played, so a
measure's result (mean, games played) is the same with a helper, without one, or with a helper
that dies or lags (its blocks are then played here); only the wall-clock time differs. Blocks the
helper plays past an early stop are wasted, never counted.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from inkcrawl.tally import DECIMALS, game_seeds

__all__ = ["BLOCK", "REJECT_Z", "MeasureHelper", "MeasureStats", "mean_score", "measure_helper"]

#: Games between two early-stop checks (a block): after ``n`` games with mean ``m`` and standard
#: error ``se``, the final mean is foreseen as ``m`` give or take ``se * sqrt(1 - n / N)`` (the
#: part of the ``N`` games still unplayed), and the measure stops when ``m`` lies more than
#: :data:`REJECT_Z` such errors outside the range.
BLOCK = 5
REJECT_Z = 2.0
#: Jobs (of one block each) the helper holds at once, so it never waits for the next. One block a
#: job interleaves the two processes' blocks finely, so the checks, which run in block order,
#: advance at both processes' pace from the first blocks on.
HELPER_JOBS = 2
#: Seconds a helper's answer may take beyond twice this process's time for the same blocks before
#: this process plays them itself (on a busy machine it then plays nearly every block).
HELPER_GRACE = 0.005
#: Jobs a helper may hold, of this measure and earlier ones, before it is sent no more.
MAX_OUTSTANDING = 4
#: Bytes of the jobs (pickled) a helper may hold, sent and not answered: less than a pipe holds
#: (64 KiB on Linux, more for the socket pair multiprocessing uses), so sending never waits on a
#: helper that is not reading. A larger dungeon's measure is played here alone.
MAX_PIPE_BYTES = 48_000

_TOKENS = itertools.count(1)
_JOBS = itertools.count(1)


class MeasureStats:
    """Counts of who played the blocks of the measures it is handed (for benchmarks):
    ``here`` and ``helper`` blocks counted, ``wasted`` helper blocks played past an early stop or
    played here again because the helper lagged."""

    def __init__(self) -> None:
        self.here = 0
        self.helper = 0
        self.wasted = 0


def _compile(data: dict, ruleset: Any, difficulty: dict) -> tuple[Any, list]:
    from inkcrawl.engines.grid import GridRules
    from inkcrawl.engines.grid_policies import make_policy
    from inkcrawl.gamedata import grid_game_data
    from inkcrawl.model import dungeon_from_dict

    rules = GridRules(grid_game_data(dungeon_from_dict(data), ruleset))  # type: ignore[arg-type]
    policy = make_policy(difficulty["policy"], rules)
    return rules, [policy] * int(difficulty["players"])


def _play(rules: Any, seats: list, seeds: Sequence[int], wanted: Callable[[], bool] | None = None) -> Any:
    """The games of ``seeds`` as ``(sum of scores, sum of squared scores, seats scored)``, in VP;
    ``None`` as soon as ``wanted()`` says before a game that they are not wanted any more."""
    from inkcrawl.engines.grid import play_totals

    total = squares = samples = 0
    for game_seed in seeds:
        if wanted is not None and not wanted():
            return None
        for score in play_totals(rules, seats, game_seed):  # play_game's totals, without the breakdown
            total += score
            squares += score * score
            samples += 1
    return total, squares, samples


def _helper_main(connection: Any, current: Any, inherited: Any = None) -> None:
    """The helper process: play the jobs it is sent, ``(job, token, dungeon, blocks)``, and answer
    ``(job, [block sums])``, or ``(job, None)`` when it does not hold the measure's dungeon. A job of
    a measure that is no longer ``current`` (a shared token) is dropped between games. Ends when
    told (``None``) or when the pipe closes (its parent ended)."""
    import signal

    if inherited is not None:
        inherited.close()  # a forked helper holds the parent's end of the pipe too
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    compiled: tuple[int, Any, list] | None = None
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job, token, dungeon, blocks = message
        results: list | None = []
        try:
            if dungeon is not None and (compiled is None or compiled[0] != token):
                compiled = None
                compiled = (token, *_compile(*dungeon))
            if compiled is None or compiled[0] != token:
                results = None
            else:
                wanted = functools.partial(_current, current, token)
                for seeds in blocks:
                    result = _play(compiled[1], compiled[2], seeds, wanted)
                    if result is None:
                        results = None
                        break
                    results.append(result)  # type: ignore[union-attr]
        except Exception:  # the same games raise in the main process, which says why
            results = None
        try:
            connection.send((job, results))
        except (OSError, ValueError):
            return


def _current(current: Any, token: int) -> bool:
    """Whether the measure ``token`` is still the one the main process plays (``current``)."""
    return current.value == token


class MeasureHelper:
    """One helper process for :func:`mean_score` (see the module docstring), forked where that
    is safe, else spawned (a few tenths of a second to start: :func:`measure_helper` then makes
    none). Only the thread that made it may use it. Raises what starting a process raises
    (``OSError``; ``AssertionError`` in a daemonic process)."""

    def __init__(self) -> None:
        import multiprocessing

        from inkcrawl.workers import fork_is_safe

        context = multiprocessing.get_context("fork" if fork_is_safe() else "spawn")
        self.connection, child = context.Pipe()
        self.current = context.RawValue("q", 0)
        inherited = self.connection if context.get_start_method() == "fork" else None
        self.process = context.Process(  # type: ignore[attr-defined]
            target=_helper_main, args=(child, self.current, inherited), name="inkcrawl-measure", daemon=True
        )
        self.process.start()
        child.close()
        self.alive = True
        #: the bytes of each job sent and not answered yet (the helper answers every job, even
        #: one it drops), by job number
        self.unanswered: dict[int, int] = {}

    @property
    def outstanding(self) -> int:
        """Jobs sent and not answered yet."""
        return len(self.unanswered)

    def ready(self) -> bool:
        """Whether a job may be sent: the helper lives and holds fewer than
        :data:`MAX_OUTSTANDING` jobs (a stopped or slow helper is sent no more)."""
        return self.alive and len(self.unanswered) < MAX_OUTSTANDING

    def send(self, job: int, token: int, dungeon: tuple | None, blocks: list) -> bool:
        """Send a job; ``False`` when it is not sent: the helper is given up when the pipe
        fails, and a job that would take the bytes sent and not answered past
        :data:`MAX_PIPE_BYTES` is not sent (a helper not reading would make this process wait on
        a full pipe; its blocks are played here)."""
        message = pickle.dumps((job, token, dungeon, blocks), pickle.HIGHEST_PROTOCOL)
        if sum(self.unanswered.values()) + len(message) > MAX_PIPE_BYTES:
            return False
        try:
            self.connection.send_bytes(message)
        except (OSError, ValueError):
            self.alive = False
            return False
        self.unanswered[job] = len(message)
        return True

    def answers(self, timeout: float = 0.0) -> list[tuple[int, list | None]]:
        """The answers waiting, after waiting up to ``timeout`` seconds for the first one."""
        answers: list[tuple[int, list | None]] = []
        try:
            while self.alive and self.connection.poll(timeout if not answers else 0.0):
                answer = self.connection.recv()
                self.unanswered.pop(answer[0], None)
                answers.append(answer)
        except (EOFError, OSError):
            self.alive = False
        return answers

    def close(self) -> None:
        """Stop the helper (killed if it does not end within a second)."""
        self.alive = False
        try:
            self.connection.send(None)
        except (OSError, ValueError):
            pass
        self.process.join(1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1.0)
        self.connection.close()


@contextlib.contextmanager
def measure_helper() -> Iterator[MeasureHelper | None]:
    """A :class:`MeasureHelper` while the ``with`` block runs, or ``None`` where none would pay
    or none can start: a machine with one core; a process that cannot fork safely (Qt runs in
    it, or the platform cannot fork: a spawned helper takes longer to start, a few tenths of a
    second, than a dungeon takes to measure); a daemonic process (a worker of
    :class:`~inkcrawl.workers.WorkerPool`, as the editor's generation worker, may not have
    children); or a process that cannot be started. Stopped on leaving the block."""
    import multiprocessing

    from inkcrawl.workers import default_workers, fork_is_safe

    helper = None
    if default_workers() >= 2 and fork_is_safe() and not multiprocessing.current_process().daemon:
        try:
            helper = MeasureHelper()
        except Exception:  # a process that cannot start: the games are all played here
            helper = None
    try:
        yield helper
    finally:
        if helper is not None:
            helper.close()


def mean_score(
    data: dict,
    ruleset: Any,
    difficulty: dict,
    wanted: tuple[float, float] | None = None,
    helper: Any = None,
    stats: MeasureStats | None = None,
) -> tuple[float, int]:
    """The mean score (VP per seat and game) of ``difficulty["games"]`` games of the grid dungeon
    ``data`` (dungeon JSON) under ``ruleset``, with ``difficulty``'s ``policy``, ``players`` and
    ``seed``, exactly as ``inkcrawl simulate`` reports ``score.mean`` (rounded to the same
    decimals), and the games played.

    With ``wanted`` (a score range in VP) the games stop after a block (:data:`BLOCK`) once the
    mean so far is too far outside it for the games left to bring it in (:data:`REJECT_Z`): the
    mean so far (not rounded) and the games played are returned then, fewer than asked, never an
    accepted mean. ``helper`` (from :func:`measure_helper`) plays some of the blocks in another
    process; the result is the same without it. RULES.md 1 (Scoring) through the grid engine."""
    games = int(difficulty["games"])
    seeds = game_seeds(difficulty["seed"], games)
    bounds = [(first, min(first + BLOCK, games)) for first in range(0, games, BLOCK)]
    blocks = len(bounds)
    compiled: list = []  # this process's rules and seats, compiled once the helper has its first job
    known: list[tuple[int, int, int] | None] = [None] * blocks
    jobs: dict[int, _Job] = {}  # the helper's, by job number
    token = next(_TOKENS)
    if helper is not None:
        helper.current.value = token
    dungeon: tuple | None = (data, ruleset, difficulty)  # sent with the measure's first job
    checked = 0  # blocks added up and checked, in order
    total = squares = samples = 0
    block_time = 0.0  # the last block's time here: how long the helper may take for its blocks

    def play_here(block: int) -> None:
        nonlocal block_time
        if not compiled:
            compiled.extend(_compile(data, ruleset, difficulty))
        started = time.perf_counter()
        first, end = bounds[block]
        known[block] = _play(compiled[0], compiled[1], seeds[first:end])
        block_time = time.perf_counter() - started
        if stats is not None:
            stats.here += 1

    def take(answers: list[tuple[int, list | None]]) -> None:
        for number, results in answers:
            job = jobs.pop(number, None)
            if job is None:  # a job played here since, or of an earlier measure
                continue
            if results is None:  # the helper could not play it: the same games, here
                steal(job)
                continue
            for block, result in zip(range(job.first, job.end), results, strict=True):
                if known[block] is None:
                    known[block] = result
                    if stats is not None:
                        stats.helper += 1

    def steal(job: _Job) -> None:
        """Play a late job's blocks here (the helper's answer, should it come, is dropped)."""
        jobs.pop(job.number, None)
        if stats is not None:
            stats.wasted += job.end - job.first
        for block in range(job.first, job.end):
            if known[block] is None:
                play_here(block)

    def lowest_free(start: int) -> int:
        """The lowest block from ``start`` on that is neither known nor the helper's."""
        while start < blocks and (known[start] is not None or any(job.first == start for job in jobs.values())):
            start += 1
        return start

    helper_next = 1  # the helper takes every other block, so that the checks advance at both paces
    try:
        while checked < blocks:
            mine = lowest_free(checked)
            while helper is not None and helper.ready() and len(jobs) < HELPER_JOBS:
                block = lowest_free(max(helper_next, mine + 1))
                if block >= blocks:
                    break
                number = next(_JOBS)
                if not helper.send(number, token, dungeon, [seeds[slice(*bounds[block])]]):
                    break
                dungeon = None
                jobs[number] = _Job(number, block, block + 1, time.perf_counter())
                helper_next = block + 2
            if mine < blocks:
                play_here(mine)
            if helper is not None:
                take(helper.answers())
                if not helper.alive:  # it died: its blocks are played here
                    for job in list(jobs.values()):
                        steal(job)
            blocking = next((job for job in jobs.values() if job.first <= checked < job.end), None)
            if blocking is not None and helper is not None and (mine >= blocks or blocking.overdue(block_time)):
                # the checks wait on the helper: give it its due time, then play its blocks here
                take(helper.answers(blocking.left(block_time)))
                while blocking.number in jobs and helper.alive and not blocking.overdue(block_time):
                    take(helper.answers(blocking.left(block_time)))
                if blocking.number in jobs:
                    steal(blocking)
            while checked < blocks and known[checked] is not None:
                block_total, block_squares, block_samples = known[checked]  # type: ignore[misc]
                total, squares, samples = total + block_total, squares + block_squares, samples + block_samples
                checked += 1
                played = bounds[checked - 1][1]
                if wanted is not None and played < games:
                    mean = total / samples
                    if _hopeless(mean, squares / samples - mean * mean, samples, played, games, wanted):
                        return mean, played
        return round(total / samples, DECIMALS), games
    finally:
        if helper is not None:  # the helper drops what is left of this measure at its next game
            helper.current.value = 0
        if stats is not None:  # past an early stop: the helper's answers are not needed
            stats.wasted += sum(job.end - job.first for job in jobs.values())


def _hopeless(mean: float, variance: float, samples: int, played: int, games: int, wanted: tuple[float, float]) -> bool:
    """Whether the mean so far (``samples`` seats of ``played`` games of ``games``, their
    ``variance``) lies more than :data:`REJECT_Z` errors of the final mean outside ``wanted``."""
    error = REJECT_Z * math.sqrt(max(0.0, variance) / samples * (1.0 - played / games))
    return mean + error < wanted[0] or mean - error > wanted[1]


class _Job:
    """Job ``number``: blocks ``first`` to ``end`` (excluded) sent to the helper at ``sent``
    (``time.perf_counter``)."""

    __slots__ = ("number", "first", "end", "sent")

    def __init__(self, number: int, first: int, end: int, sent: float):
        self.number, self.first, self.end, self.sent = number, first, end, sent

    def due(self, block_time: float) -> float:
        """When its answer is late: twice the time this process takes for its blocks, plus
        :data:`HELPER_GRACE` for the round trip (and a helper still starting)."""
        return self.sent + 2 * block_time * (self.end - self.first) + HELPER_GRACE

    def overdue(self, block_time: float) -> bool:
        return time.perf_counter() > self.due(block_time)

    def left(self, block_time: float) -> float:
        return max(0.0, self.due(block_time) - time.perf_counter())
