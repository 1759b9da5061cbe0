"""Benchmark: grid-family simulation, games per second, on the bundled Ember Halls dungeons.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/grid_simulation.py [--games 5000] [--greedy-games 1000]
                                                      [--players 2] [--repeat 3] [--profile]

For each dungeon of ``content/packs/ember-halls`` (converted once to game data, as
``inkcrawl export game`` does, so conversion is not timed) and for the ``random`` and
``greedy`` policies, it times:

- **engine**: ``inkcrawl.engines.grid.play_game`` in a loop (deck shuffle, every placement,
  traps, scoring of every player), ``--games`` games (``--greedy-games`` for greedy);
- **simulate**: ``inkcrawl.simulate.simulate`` on the same games, i.e. with the statistics
  (room usage, terms, tallies, percentiles) that ``inkcrawl simulate`` prints.

Each figure is the best of ``--repeat`` runs, in games per second, with the players' mean
score as a sanity check. The compile time of each dungeon (:class:`GridRules`: the game schema
check and the precomputed tables, once per dungeon) is the best of 200 compiles. ``--profile``
adds a cProfile of one random-policy simulate run (top 15 functions by own time). The aim
(issue #4): at least 1,000 games/s with the random policy and 2 players.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from inkcrawl.engines.grid import GridRules, play_game
from inkcrawl.engines.grid_policies import make_policy
from inkcrawl.gamedata import game_document
from inkcrawl.loading import open_dungeons
from inkcrawl.simulate import game_seeds, simulate

AIM_RANDOM = 1000.0


def best_of(repeat: int, job) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = job()
        best = min(best, time.perf_counter() - start)
    return best, value


def engine_run(rules: GridRules, policy: str, players: int, games: int) -> float:
    seats = [make_policy(policy, rules)] * players
    total = 0
    for seed in game_seeds(1, games):
        result = play_game(rules, seats, seed)
        total += sum(score.total for score in result.scores)
    return total / (games * players)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5000, help="games per run with the random policy")
    parser.add_argument("--greedy-games", type=int, default=1000, help="games per run with the greedy policy")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    opened = open_dungeons([str(REPO / "content" / "packs" / "ember-halls")])
    entries = [e for e in game_document(opened.dungeons)["dungeons"] if e["family"] == "grid"]
    print(f"grid simulation, {args.players} players, best of {args.repeat} (Python {sys.version.split()[0]})")
    print(
        f"{'dungeon':<18} {'policy':<7} {'games':>6} {'engine games/s':>15} {'simulate games/s':>17} {'mean score':>11}"
    )
    slowest_random = float("inf")
    compile_ms = {}
    for entry in entries:
        rules = GridRules(entry)
        compile_ms[entry["id"]] = best_of(200, lambda: GridRules(entry))[0] * 1000
        for policy in ("random", "greedy"):
            games = args.games if policy == "random" else args.greedy_games
            engine_s, mean = best_of(args.repeat, lambda: engine_run(rules, policy, args.players, games))
            sim_s, _ = best_of(args.repeat, lambda: simulate(entry, games, args.players, policy, 1))
            rate = games / engine_s
            if policy == "random":
                slowest_random = min(slowest_random, games / sim_s)
            print(f"{entry['id']:<18} {policy:<7} {games:>6} {rate:>15,.0f} {games / sim_s:>17,.0f} {mean:>11.2f}")
    print("\ncompile (GridRules, best of 200): " + ", ".join(f"{k} {v:.2f} ms" for k, v in compile_ms.items()))
    verdict = "met" if slowest_random >= AIM_RANDOM else "NOT met"
    print(
        f"\naim: >= {AIM_RANDOM:,.0f} games/s with the random policy; slowest dungeon through simulate: "
        f"{slowest_random:,.0f} games/s ({verdict})"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        simulate(entries[0], args.games, args.players, "random", 1)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())
    return 0 if slowest_random >= AIM_RANDOM else 1


if __name__ == "__main__":
    sys.exit(main())
