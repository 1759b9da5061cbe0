"""Benchmark: ``inkcrawl generate`` for the grid and line families, and ``inkcrawl populate``.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/generate.py [--family grid|line|both] [--count 200] [--targets 20]
                                               [--line 50] [--seed 0]

What it measures, in this process (imports and the schema's compilation done once first):

1. ``--count`` dungeons with the ruleset's defaults (grid-classic: 7x7, 6 entryways, 4 loot,
   a dragon, 6 pairs, density 0.6-0.9): time per dungeon (p50, p90, max), including the
   validation of each result (``check_dungeon_data``). The aim: p90 at most 100 ms.
2. The same with distance rules (dragon 6 steps from every entryway, each monster 7 steps from
   its weapon): time per dungeon and tries per dungeon.
3. ``--targets`` dungeons with a difficulty target (mean greedy score in [6, 9], 2 players, 200
   games), first with the games shared with a helper process (what ``inkcrawl generate`` does on
   a machine with two cores or more), then every game in this process: time per
   dungeon (wall clock, then this process's CPU time), tries and the games played per dungeon
   (the same on every machine: the figure to compare runs on a busy machine by). A measure plays
   its games in blocks of 5 and stops early, after a block, once the games left can hardly bring
   the mean into the range; an accepted dungeon costs its full 200 games; a try missing the range is repaired up
   to 6 times. Then the measure of each accepted dungeon (its 200 greedy games, compiling
   included), alone and with the helper: p50 and p90.
4. Impossible specs: each counting check's explanation time (the aim: at most 1 s), a distance
   rule no layout meets ended by a 1 s time limit, and a score range out of the features' reach
   (explained by the layouts at the limit, without a time limit).

Line family (``--family line`` or ``both``):

5. ``--line`` dungeons of ``generate --family line`` with the defaults (5-8 rooms, 0-3 locked
   doors, counts from the rooms), the same with a par range [20, 24], and with lock puzzles,
   portals and end triggers (keys 2 deep, a two-lock door, a skeleton key, 2 portal pairs, a
   timer and an escape portal): time per dungeon including populate's validation and its par
   check (the aim: p90 at most 2 s), and the slowest seeds with their tries.
6. ``populate`` on the bundled lantern-depths dungeons stripped of their content, on the donjon
   samples imported, and on the watabou sample when /work/shared/samples holds it, 10 seeds
   each: time per dungeon, par check included.
7. Impossible line specs: the explanation time of each counting check.
"""

from __future__ import annotations

import argparse
import statistics
import time


def _p90(values: list) -> float:
    """The 90th percentile of sorted ``values`` (the value below which 90 % of them lie)."""
    return values[max(0, int(len(values) * 0.9) - 1)]


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
    parser.add_argument("--line", type=int, default=50, help="line dungeons per run (default 50)")
    parser.add_argument("--family", choices=("grid", "line", "both"), default="both", help="what to measure")
    args = parser.parse_args()
    if args.family in ("grid", "both"):
        grid_benchmark(args)
    if args.family in ("line", "both"):
        line_benchmark(args)


def grid_benchmark(args: argparse.Namespace) -> None:
    """Figures 1-4 (see the module docstring)."""

    started = time.perf_counter()
    from inkcrawl.generate import Infeasible, generate_grid, grid_spec
    from inkcrawl.generate.grid import _mean_score
    from inkcrawl.generate.measure import measure_helper
    from inkcrawl.validate import RulesetRegistry

    ruleset = RulesetRegistry().get("grid-classic")
    assert ruleset is not None
    generate_grid(grid_spec(None, ruleset), 0)  # warm-up: imports, schema compilation
    print(f"imports and warm-up: {time.perf_counter() - started:.2f} s")

    def run(name: str, constraints: dict | None, count: int, helper=None) -> list[dict]:
        spec = grid_spec(constraints, ruleset)
        times, cpu, tries, games, made = [], [], [], [], []
        for seed in range(args.seed, args.seed + count):
            start, start_cpu = time.perf_counter(), time.process_time()
            result = generate_grid(spec, seed, time_limit=60, helper=helper)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            tries.append(result.tries)
            games.append(result.games)
            made.append(result.data)
        _figures(name, times, tries)
        if spec.difficulty is not None:
            # the games every measure played: the same on any machine, whatever its load
            cpu.sort()
            games.sort()
            print(
                f"  CPU time of this process p50 {statistics.median(cpu) * 1000:.1f} ms, "
                f"p90 {_p90(cpu) * 1000:.1f} ms; games "
                f"played per dungeon p50 {statistics.median(games):.0f}, p90 {_p90(games):.0f}, max {games[-1]}"
            )
        return made

    def grid(**section) -> dict:
        return {"type": "constraints", "format_version": 1, "family": "grid", "grid": section}

    run("defaults", None, args.count)
    run("distance rules 6/7", grid(distances={"dragon_from_entryways": 6, "monster_from_weapon": 7}), args.count)
    target = grid(difficulty={"mean_score": [6, 9]})
    spec = grid_spec(target, ruleset)
    with measure_helper() as helper:
        if helper is not None:
            generate_grid(spec, 0, helper=helper)  # the helper's warm-up
            accepted = run("mean score 6..9, games shared with a helper process", target, args.targets, helper)
        accepted = run("mean score 6..9, every game in this process", target, args.targets)
        for name, shared in (("alone", None), ("with the helper", helper)):
            if name != "alone" and shared is None:
                continue
            measures = []
            for data in accepted:
                start = time.perf_counter()
                _mean_score(data, spec, None, shared)
                measures.append(time.perf_counter() - start)
            measures.sort()
            print(
                f"  the measure of an accepted dungeon (200 greedy games, 2 players), {name}: p50 "
                f"{statistics.median(measures) * 1000:.1f} ms, p90 {_p90(measures) * 1000:.1f} ms"
            )

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
    start = time.perf_counter()
    try:
        generate_grid(grid_spec(grid(difficulty={"mean_score": [40, 41]}), ruleset), 1, time_limit=60)
    except Infeasible as exc:
        print(f"impossible, score range out of reach: explained in {time.perf_counter() - start:.2f} s: {exc}")
    spec = grid_spec(grid(passages={"density": 0.97}, distances={"dragon_from_entryways": 12}), ruleset)
    start = time.perf_counter()
    try:
        generate_grid(spec, 1, time_limit=1.0)
    except Infeasible as exc:
        print(f"impossible, found by search: explained in {time.perf_counter() - start:.2f} s: {exc}")


def _line_figures(name: str, times: list[float], pars: list[int]) -> None:
    times = sorted(times)
    p90 = times[max(0, int(len(times) * 0.9) - 1)] if len(times) > 1 else times[0]
    print(
        f"{name}: {len(times)} dungeons, p50 {statistics.median(times):.2f} s, p90 {p90:.2f} s, "
        f"max {times[-1]:.2f} s; par mean {statistics.mean(pars):.1f}, range {min(pars)}..{max(pars)} VP"
    )


def line_benchmark(args: argparse.Namespace) -> None:
    """Figures 5-7 (see the module docstring)."""
    import contextlib
    import io
    import json
    import tempfile
    from pathlib import Path

    from inkcrawl.cli import main as cli
    from inkcrawl.generate import Infeasible, line_spec
    from inkcrawl.generate.line import generate_line
    from inkcrawl.generate.populate import populate_line
    from inkcrawl.validate import RulesetRegistry

    started = time.perf_counter()
    ruleset = RulesetRegistry().get("line-classic")
    assert ruleset is not None
    generate_line(line_spec(None, ruleset), 0)  # warm-up
    print(f"line imports and warm-up: {time.perf_counter() - started:.2f} s")

    def line(**section) -> dict:
        return {"type": "constraints", "format_version": 1, "family": "line", "line": section}

    rich = line(
        locks={"depth": 2, "multi_lock_doors": 1, "skeleton_keys": 1},
        portal_pairs=2,
        end_triggers=[{"kind": "timer", "seconds": 240}, {"kind": "escape_portal"}],
    )
    runs = (
        ("line defaults", None),
        ("line par 20..24", line(difficulty={"par": [20, 24]})),
        ("line locks, portals, triggers", rich),
    )
    for name, constraints in runs:
        spec = line_spec(constraints, ruleset)
        times, pars, slow = [], [], []
        for seed in range(args.seed, args.seed + args.line):
            start = time.perf_counter()
            result = generate_line(spec, seed, time_limit=60)
            times.append(time.perf_counter() - start)
            pars.append(result.populated.par)
            slow.append((times[-1], seed, result.populated.tries))
        _line_figures(name, times, pars)
        worst = ", ".join(f"seed {s} {t:.2f} s ({n} tries)" for t, s, n in sorted(slow, reverse=True)[:3])
        print(f"  slowest: {worst}")

    root = Path(__file__).resolve().parent.parent
    layouts = {}
    for path in sorted((root / "content" / "packs" / "lantern-depths" / "dungeons").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["elements"] = [e for e in data["elements"] if e["kind"] in ("door", "label", "start")]
        data["sheet"].update(end_triggers=[], orb_tokens={}, components=[])
        layouts[path.stem] = data
    sources = sorted((root / "tests" / "import_samples" / "donjon").glob("*.json"))
    watabou = Path("/work/shared/samples/watabou/prison_of_raianai.json")
    sources += [watabou] if watabou.is_file() else []
    with tempfile.TemporaryDirectory() as folder:
        for source in sources:
            out = Path(folder) / f"{source.stem}.json"
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):  # the import's notes
                code = cli(["import", str(source), "-o", str(out)])
            if code == 0:
                layouts[source.stem] = json.loads(out.read_text(encoding="utf-8"))
    spec = line_spec(None, ruleset)
    times, pars = [], []
    for name, data in layouts.items():
        for seed in range(10):
            start = time.perf_counter()
            result = populate_line(data, spec, seed, time_limit=60, file=name)
            times.append(time.perf_counter() - start)
            pars.append(result.par)
    _line_figures(f"populate ({len(layouts)} layouts x 10 seeds)", times, pars)

    impossible = {
        "more rooms than slots": line(rooms=13),
        "more locked doors than corridors": line(rooms=2, locked_doors=3),
        "elements beyond the paper": line(rooms=5, elements={"monster": 300}),
        "par above the upper bound": line(rooms=5, difficulty={"par": [500, 600]}),
    }
    for name, constraints in impossible.items():
        start = time.perf_counter()
        try:
            generate_line(line_spec(constraints, ruleset), 1)
        except Infeasible as exc:
            print(f"impossible, {name}: explained in {(time.perf_counter() - start) * 1000:.1f} ms ({exc.constraint})")


if __name__ == "__main__":
    main()
