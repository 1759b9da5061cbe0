"""Running many seeded games: in this process, on every local core, or on a Dask cluster.

``inkcrawl simulate`` and ``inkcrawl sweep`` hand their games here as *runs*: a grid dungeon
(game data), one policy name per seat, a seed and a number of games. A run's game seeds are
drawn one at a time from ``random.Random(seed)`` (:func:`inkcrawl.tally.iter_game_seeds`)
and cut into *chunks* of consecutive games; each chunk is played by
:func:`inkcrawl.tally.play_chunk` wherever it is sent and comes back as a
:class:`~inkcrawl.tally.GridTally` of whole-number sums, which are added up. So:

- **the result does not depend on where the games were played**: the same seed gives the same
  statistics, byte for byte, in one process, on 2 or 8 local workers, or on a Dask cluster;
- **memory does not grow with the number of games**: seeds are drawn as chunks are sent, and at
  most :data:`WINDOW_PER_WORKER` chunks per worker are in flight;
- **it starts at once**: the first chunks are small (:data:`FIRST_CHUNK` games), so the first
  figures arrive within a fraction of a second whatever the run's size.

Where the games run:

``workers=1`` (and no scheduler)
    In this process.
``workers=N``
    :class:`~inkcrawl.workers.WorkerPool` processes (forked where that is safe).
``scheduler="tcp://HOST:PORT"``
    A Dask distributed scheduler (``pip install 'inkcrawl[dask]'``); its workers must be able to
    import this version of inkcrawl. The games are sent with ``client.submit``; a chunk that
    fails there fails the run with the worker's error.
"""

from __future__ import annotations

import collections
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from inkcrawl.tally import GridTally, iter_game_seeds, play_chunk

#: Games in each of the first chunks of a run (a quick first figure).
FIRST_CHUNK = 50
#: Games in each later chunk (about a third of a second of play on one core).
CHUNK = 2000
#: Chunks in flight per worker (one being played, one waiting).
WINDOW_PER_WORKER = 2
#: Most local worker processes a command accepts (``--workers``): each worker is a process and a
#: thread of the pool, and workers beyond the machine's cores add only overhead (100,000 of them
#: hung the pool while it started them).
MAX_WORKERS = 256
#: Seconds to wait for a Dask scheduler to answer before giving up.
CONNECT_TIMEOUT = 10


class RunError(RuntimeError):
    """The games could not be run: a worker died, Dask is missing or its scheduler is out of
    reach. The message says which, for people."""


@dataclass(frozen=True)
class Run:
    """One run of games: ``entry`` (grid game data), ``names`` (one policy name per seat),
    ``seed``, ``games``; ``leads``: count lead changes (see :func:`inkcrawl.tally.play_chunk`)."""

    entry: dict
    names: tuple[str, ...]
    seed: int
    games: int
    leads: bool = True


def _chunks(runs: Sequence[Run], workers: int = 1) -> Iterator[tuple[int, list[int]]]:
    """``(run index, seeds)`` for every chunk of every run, run by run, drawn lazily.

    The first chunk of a run has :data:`FIRST_CHUNK` games, the others :data:`CHUNK`; on
    several ``workers`` the chunks get smaller near the end of the last run (down to
    :data:`FIRST_CHUNK`), so the workers finish together rather than one playing its last big
    chunks alone. How the games are cut does not change the result (a tally is a sum)."""
    left = sum(run.games for run in runs)
    tail = 2 * workers * WINDOW_PER_WORKER  # chunks left when they start to shrink
    for index, run in enumerate(runs):
        seeds = iter_game_seeds(run.seed, run.games)
        size = FIRST_CHUNK
        while True:
            if workers > 1:
                size = max(FIRST_CHUNK, min(size, left // tail))
            chunk = list(itertools.islice(seeds, size))
            if not chunk:
                break
            left -= len(chunk)
            yield index, chunk
            size = CHUNK


def _tally_for(run: Run) -> GridTally:
    from inkcrawl.tally import _compiled

    rules, _ = _compiled(run.entry, run.names)
    return GridTally(rules.size, len(run.names), rules.terms, rules.rounds)


def play_chunks(
    calls: Iterable[tuple[Any, Callable, tuple, int]],
    on_part: Callable[[Any, Any], object],
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
) -> None:
    """Run chunks of games where they are played: each call ``(key, function, args, games)``
    runs ``function(*args)`` (a module-level function of picklable arguments) and its result
    goes to ``on_part(key, result)``, in the order of the calls, whatever runs them; ``progress``
    gets ``games`` as each is done. The calls are drawn lazily, at most
    :data:`WINDOW_PER_WORKER` per worker in flight, so memory does not grow with the games.
    ``workers``: local processes (1: this process); ``scheduler``: a Dask scheduler's address
    instead. Raises what the function raises and :class:`RunError`; on any error (Ctrl+C and
    SIGTERM included) the workers are stopped at once."""
    if scheduler:
        submit, window, close = _dask(scheduler)
    elif workers > 1:
        submit, window, close = _local_pool(workers)
    else:
        for key, function, args, games in calls:
            on_part(key, function(*args))
            if progress is not None:
                progress(games)
        return
    pending: collections.deque = collections.deque()

    def finish_one() -> None:
        key, games, future = pending.popleft()
        try:
            part = future.result()
        except RunError:
            raise
        except BaseException as exc:
            if type(exc).__name__ in {"WorkerDied", "BrokenProcessPool", "KilledWorker", "CommClosedError"}:
                raise RunError(f"a worker stopped while playing games: {exc}") from exc
            raise
        on_part(key, part)
        if progress is not None:
            progress(games)

    failed = True
    try:
        for key, function, args, games in calls:
            pending.append((key, games, submit(function, *args)))
            if len(pending) >= window:
                finish_one()
        while pending:
            finish_one()
        failed = False
    finally:
        for _, _, future in pending:
            future.cancel()
        close(failed)


def run_tallies(
    runs: Sequence[Run],
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
) -> list[GridTally]:
    """Play every run and return one :class:`~inkcrawl.tally.GridTally` per run, in order
    (:func:`play_chunks` with :func:`~inkcrawl.tally.play_chunk`). ``progress(n)`` is called
    with the number of games of each chunk finished. ``workers``: local processes (1: this
    process); ``scheduler``: a Dask scheduler's address instead. Raises what
    :func:`~inkcrawl.tally.play_chunk` raises and :class:`RunError`."""
    tallies = [_tally_for(run) for run in runs]
    calls = (
        (index, play_chunk, (runs[index].entry, runs[index].names, seeds, runs[index].leads), len(seeds))
        for index, seeds in _chunks(runs, 1 if scheduler else workers)
    )
    play_chunks(calls, lambda index, part: tallies[index].merge(part), progress, workers, scheduler)
    return tallies


def run_tally(
    entry: dict,
    names: Sequence[str],
    seed: int,
    games: int,
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    leads: bool = True,
) -> GridTally:
    """:func:`run_tallies` for one run."""
    run = Run(entry, tuple(names), seed, games, leads)
    return run_tallies([run], progress=progress, workers=workers, scheduler=scheduler)[0]


def _local_pool(workers: int):
    from inkcrawl.workers import WorkerPool, can_fork, fork_is_safe

    pool = WorkerPool(workers, start="fork" if can_fork() and fork_is_safe() else "spawn", name="inkcrawl-games")

    def close(failed: bool) -> None:
        if failed:  # an error, Ctrl+C or SIGTERM: the chunks being played are not waited for
            pool.terminate()
        else:
            pool.shutdown(wait=False, cancel_futures=True)

    return pool.submit, workers * WINDOW_PER_WORKER, close


def _dask(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise RunError(
            "--scheduler needs Dask distributed, which is not installed: pip install 'inkcrawl[dask]'"
        ) from None
    scheme, _, place = address.rpartition("://")
    if scheme != "inproc" and not re.fullmatch(r"(?:\[[0-9a-fA-F:.]+\]|[^\s/:\[\]]+):\d{1,5}", place):
        # Client() on an address without a port fails, then its __del__ waits 20 s and prints a traceback
        # (an in-process scheduler, inproc://HOST/PID/N, has no port)
        raise RunError(f"--scheduler {address}: give the Dask scheduler's address as tcp://HOST:PORT")
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise RunError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    threads = sum(client.nthreads().values()) or 1

    def submit(fn, *args):
        return client.submit(fn, *args, pure=False)

    def close(failed: bool) -> None:
        client.close()

    return submit, threads * WINDOW_PER_WORKER, close
