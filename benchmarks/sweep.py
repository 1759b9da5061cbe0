"""Benchmark: grid simulation on every core, how fast a huge run starts, and its memory.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/sweep.py [--games 40000] [--repeat 3]

Prints, for each dungeon of ``content/packs/ember-halls`` (game data converted once, not timed):

- **games/s** of the random policy with 2 players through :func:`inkcrawl.runs.run_tally`
  (the statistics ``inkcrawl simulate`` prints, without ``--balance``), in this process
  (1 worker) and on one worker process per core; the best of ``--repeat`` runs. The aim (issue
  #13): at least 10,000 games/s on the 2-core machine using both cores.
- **start**: ``inkcrawl simulate --games 1000000`` and ``inkcrawl sweep`` of 1,000,000 games are
  started as new processes (stderr a pipe, so they print progress lines), and the time until the
  first progress line (the first games played) is measured, then the process is stopped. The
  aim: under 0.5 s after the interpreter has imported inkcrawl (the time to import, measured
  alone with ``-c 'import inkcrawl.cli'``, is printed beside it).
- **memory**: the peak resident memory of ``inkcrawl simulate`` runs of 10,000 and 100,000 games
  (``--workers 1``; ``ru_maxrss`` of the child): it must not grow with the number of games.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from inkcrawl.gamedata import game_document
from inkcrawl.loading import open_dungeons
from inkcrawl.runs import run_tally
from inkcrawl.workers import default_workers

EMBER = REPO / "content" / "packs" / "ember-halls"
CLI = [sys.executable, "-m", "inkcrawl"]


def best_rate(entry: dict, games: int, workers: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run_tally(entry, ("random", "random"), 1, games, workers=workers, leads=False)
        best = min(best, time.perf_counter() - start)
    return games / best


def time_to_first_progress(argv: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    # a session of its own, so that the command and its worker processes are stopped together:
    # a worker left to finish its chunk would slow the next measurement down
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if "games played" in line:
                return time.perf_counter() - start
        raise RuntimeError(f"no progress line from {argv}")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def import_time() -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import inkcrawl.cli; inkcrawl.cli.build_parser()"], check=True, env=env)
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory_mib(games: int) -> float:
    """The peak resident memory of ``inkcrawl simulate`` in a process of its own (read by the
    process itself at its end: ``ru_maxrss`` of RUSAGE_CHILDREN would be the peak of every child)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = (
        "import resource, sys\n"
        "from inkcrawl.cli import main\n"
        f"main(['simulate', {str(EMBER)!r}, '--games', '{games}', '--workers', '1', '--format', 'json'])\n"
        "print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    )
    kib = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("maxrss ")][-1]
    return kib / 1024  # ru_maxrss is in KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40000, help="games per timed run")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cores = default_workers()
    entries = [e for e in game_document(open_dungeons([str(EMBER)]).dungeons)["dungeons"] if e["family"] == "grid"]
    print(f"grid random policy, 2 players, {args.games:,} games, best of {args.repeat}; {cores} cores")
    # the machine may be shared: figures are only comparable at a similar load
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"{'dungeon':<18} {'1 worker':>10} {f'{cores} workers':>10}   games/s")
    slowest = float("inf")
    for entry in entries:
        one = best_rate(entry, args.games, 1, args.repeat)
        many = best_rate(entry, args.games, cores, args.repeat)
        slowest = min(slowest, many)
        print(f"{entry['id']:<18} {one:>10,.0f} {many:>10,.0f}")
    verdict = "met" if slowest >= 10000 else "NOT met"
    print(f"aim: >= 10,000 games/s on all cores; slowest dungeon {slowest:,.0f} ({verdict})")
    print("load average (1, 5, 15 min) after: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print()
    imported = import_time()
    simulate_start = min(time_to_first_progress([*CLI, "simulate", str(EMBER), "--games", "1000000"]) for _ in range(3))
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "big.sweep.json"
        spec.write_text(
            json.dumps(
                {
                    "type": "sweep",
                    "format_version": 1,
                    "dungeons": [str(EMBER)],
                    "policies": ["random"],
                    "games": 250000,
                }
            )
        )
        sweep_start = min(time_to_first_progress([*CLI, "sweep", str(spec)]) for _ in range(3))
    print(f"python + import inkcrawl + build the parser: {imported:.2f} s")
    for what, seconds in (("simulate --games 1000000", simulate_start), ("sweep of 4 x 250,000 games", sweep_start)):
        print(f"{what}: first games played after {seconds:.2f} s ({seconds - imported:.2f} s after the import)")
    print()
    small, large = peak_memory_mib(10000), peak_memory_mib(100000)
    print(f"peak memory of simulate --workers 1: 10,000 games {small:.0f} MiB, 100,000 games {large:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
