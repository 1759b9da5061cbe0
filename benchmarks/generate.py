"""Benchmark: ``inkcrawl generate`` for the grid family.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/generate.py [--count 200] [--targets 20] [--seed 0]

What it measures, in this process (imports and the schema's compilation done once first):

1. ``--count`` dungeons with the ruleset's defaults (grid-classic: 7x7, 6 entryways, 4 loot,
   a dragon, 6 pairs, density 0.6-0.9): time per dungeon (p50, p90, max), including the
   validation of each result (``check_dungeon_data``). The aim: p90 at most 100 ms.
2. The same with distance rules (dragon 6 steps from every entryway, each monster 7 steps from
   its weapon): time per dungeon and tries per dungeon.
3. ``--targets`` dungeons with a difficulty target (mean greedy score in [6, 9], 2 players, 200
   games): time per dungeon and tries per dungeon. Each measure costs a 25-game screen, and
   those that pass it a 200-game measure; a try missing the range is repaired up to 3 times.
4. Impossible specs: each counting check's explanation time (the aim: at most 1 s), and a
   distance rule no layout meets ended by a 1 s time limit.
"""

from __future__ import annotations

import argparse
import statistics
import time


def _figures(name: str, times: list[float], tries: list[int]) -> None:
    times = sorted(times)
    p90 = times[max(0, int(len(times) * 0.9) - 1)] if len(times) > 1 else times[0]
    print(
        f"{name}: {len(times)} dungeons, p50 {statistics.median(times) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, "
        f"max {times[-1] * 1000:.1f} ms; tries mean {statistics.mean(tries):.1f}, max {max(tries)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200, help="dungeons per plain run (default 200)")
    parser.add_argument("--targets", type=int, default=20, help="dungeons with a difficulty target (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    args = parser.parse_args()

    started = time.perf_counter()
    from inkcrawl.generate import Infeasible, generate_grid, grid_spec
    from inkcrawl.validate import RulesetRegistry

    ruleset = RulesetRegistry().get("grid-classic")
    assert ruleset is not None
    generate_grid(grid_spec(None, ruleset), 0)  # warm-up: imports, schema compilation
    print(f"imports and warm-up: {time.perf_counter() - started:.2f} s")

    def run(name: str, constraints: dict | None, count: int) -> None:
        spec = grid_spec(constraints, ruleset)
        times, tries = [], []
        for seed in range(args.seed, args.seed + count):
            start = time.perf_counter()
            result = generate_grid(spec, seed, time_limit=60)
            times.append(time.perf_counter() - start)
            tries.append(result.tries)
        _figures(name, times, tries)

    def grid(**section) -> dict:
        return {"type": "constraints", "format_version": 1, "family": "grid", "grid": section}

    run("defaults", None, args.count)
    run("distance rules 6/7", grid(distances={"dragon_from_entryways": 6, "monster_from_weapon": 7}), args.count)
    run("mean score 6..9", grid(difficulty={"mean_score": [6, 9]}), args.targets)

    impossible = {
        "features > rooms": grid(columns=4, rows=4),
        "density too low": grid(passages={"density": 0.3}),
        "k > longest path": grid(distances={"dragon_from_entryways": 49}),
        "k > diameter (density 1)": grid(passages={"density": 1.0}, distances={"monster_from_weapon": 13}),
        "score above the best": grid(difficulty={"mean_score": [47, 50]}),
    }
    for name, constraints in impossible.items():
        start = time.perf_counter()
        try:
            generate_grid(grid_spec(constraints, ruleset), 1)
        except Infeasible as exc:
            print(f"impossible, {name}: explained in {(time.perf_counter() - start) * 1000:.2f} ms ({exc.constraint})")
    spec = grid_spec(grid(passages={"density": 0.97}, distances={"dragon_from_entryways": 12}), ruleset)
    start = time.perf_counter()
    try:
        generate_grid(spec, 1, time_limit=1.0)
    except Infeasible as exc:
        print(f"impossible, found by search: explained in {time.perf_counter() - start:.2f} s: {exc}")


if __name__ == "__main__":
    main()
