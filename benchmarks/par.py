"""Benchmark: ``inkcrawl par`` on the bundled line dungeons: the search alone, and search plus
drawing plus the referee's re-score, per dungeon (best of 3); then on two generated 200-element
dungeons (best of 1): par, the upper bound, par as a share of it, and the time.

    PYTHONPATH=. python benchmarks/par.py [--skip-bundled] [--timer]

The aims (issue "Play every dungeon automatically"): par for each bundled line dungeon in at most
10 s, proven optimal; on a generated 200-element dungeon at least 98 % of the proven bound within
10 s. The generated dungeons (:func:`generated_dungeon`, a 5 x 5 warren of 34 mm cells, each with
8 elements on a lattice, walls with a 10 mm doorway between neighbours): ``open`` has nothing but
scoring elements; ``guarded`` adds the boss in the middle cell (5 VP, covering it ends the scrawl),
a red key in a far corner and a red door that closes the last row.

``--timer`` adds par under a timer the route does not fit (each bundled dungeon with a 60 s timer,
at the speeds that leave 30 % and 60 % of the par route's length): the best score found within
the timer, the upper bound of :mod:`inkcrawl.engines.line.timer`, whether proven, and the times.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from inkcrawl.cli.common import load_games
from inkcrawl.engines.line import LineRules
from inkcrawl.engines.line.par import par, solve

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
PACK = REPO / "content" / "packs" / "lantern-depths" / "dungeons"


def generated_dungeon(guarded: bool, columns: int = 5, rows: int = 5, per_room: int = 8, seed: int = 1) -> dict:
    """A 200-element line dungeon (see the module docstring); validates with no errors."""
    from inkcrawl.rulesets import bundled_rulesets
    from inkcrawl.templates import starter_data

    rng = random.Random(seed)
    room = 34.0
    data = starter_data(bundled_rulesets()["line-classic"], "Generated Warren", "generated-warren")
    x0, y0 = 20.0, 40.0
    areas, walls, elements = [], [], []
    kinds = ["monster", "plant", "prisoner"]
    for r in range(rows):
        for c in range(columns):
            x, y = x0 + c * room, y0 + r * room
            square = [[x, y], [x + room, y], [x + room, y + room], [x, y + room]]
            areas.append({"id": f"r{r}{c}", "kind": "room", "name": f"Cell {r * columns + c + 1}", "polygon": square})
            if c < columns - 1:  # the east side: a wall with a 10 mm doorway in the middle
                walls += [
                    {"id": f"we{r}{c}a", "points": [[x + room, y], [x + room, y + room / 2 - 5]]},
                    {"id": f"we{r}{c}b", "points": [[x + room, y + room / 2 + 5], [x + room, y + room]]},
                ]
            if r < rows - 1:  # the south side
                walls += [
                    {"id": f"ws{r}{c}a", "points": [[x, y + room], [x + room / 2 - 5, y + room]]},
                    {"id": f"ws{r}{c}b", "points": [[x + room / 2 + 5, y + room], [x + room, y + room]]},
                ]
            slots = [(x + 7 + 10 * i, y + 7 + 10 * j) for j in range(3) for i in range(3)]
            rng.shuffle(slots)
            count = per_room
            if guarded and (r, c) == (rows // 2, columns // 2):
                elements.append(
                    {"id": "boss", "kind": "boss", "at": list(slots.pop()), "size_mm": 8, "rotation_deg": 0, "vp": 5}
                )
                count -= 1
            if guarded and (r, c) == (0, columns - 1):
                elements.append(
                    {
                        "id": "key-red",
                        "kind": "key",
                        "colour": "red",
                        "at": list(slots.pop()),
                        "size_mm": 6,
                        "rotation_deg": 0,
                    }
                )
                count -= 1
            for k in range(count):
                kind = kinds[(r * 7 + c * 3 + k) % 3]
                elements.append(
                    {"id": f"e{r}{c}{k}", "kind": kind, "at": list(slots[k]), "size_mm": 6, "rotation_deg": 0}
                )
    start = {"id": "start-1", "kind": "start", "at": [x0 + room / 2, y0], "size_mm": 8, "rotation_deg": 0}
    if guarded:  # the doorway between the last two rows of the first column is a red door
        y = y0 + (rows - 1) * room
        elements.append(
            {
                "id": "door-red",
                "kind": "door",
                "segment": [[x0 + room / 2 - 5, y], [x0 + room / 2 + 5, y]],
                "locks": ["red"],
            }
        )
        data["sheet"]["components"] = ["keys"]
        data["sheet"]["end_triggers"] = [{"kind": "boss_covered"}]
    else:
        data["sheet"]["end_triggers"] = []
    data["areas"], data["walls"], data["elements"] = areas, walls, [start, *elements]
    return data


def generated(guarded: bool) -> None:
    from inkcrawl.engines.line.par import upper_bound
    from inkcrawl.gamedata import line_game_data
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.rulesets import bundled_rulesets
    from inkcrawl.validate import RulesetRegistry, check_dungeon_data

    data = generated_dungeon(guarded)
    problems, _ = check_dungeon_data(data, "generated.json", RulesetRegistry())
    errors = [p for p in problems if p.severity.value == "error"]
    if errors:
        print(f"generated dungeon has errors: {errors[:3]}")
        return
    entry = line_game_data(dungeon_from_dict(data), bundled_rulesets()["line-classic"])
    start = time.perf_counter()
    rules = LineRules(entry)
    result = par(rules)
    seconds = time.perf_counter() - start
    bound = upper_bound(rules)
    elements = sum(1 for e in rules.elements if e.kind not in ("start", "door"))
    print(
        f"generated ({'guarded' if guarded else 'open'}, {elements} elements): par {result.par}, "
        f"proven {result.proven}, "
        f"upper bound {bound}: {result.par / bound:.1%} of it, in {seconds:.2f} s (aims: 98 %, 10 s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-bundled", action="store_true", help="only the generated dungeons")
    parser.add_argument(
        "--timer", action="store_true", help="also par under a timer the route does not fit (bundled dungeons)"
    )
    args = parser.parse_args()
    for path in [] if args.skip_bundled else sorted(PACK.glob("*.json")):
        entries, status = load_games([str(path)])
        if status is not None:
            print(f"{path.name}: cannot be loaded")
            continue
        searches, totals = [], []
        result = None
        for _ in range(3):
            rules = LineRules(entries[0])
            start = time.perf_counter()
            solve(rules)
            searches.append(time.perf_counter() - start)
            rules = LineRules(entries[0])
            start = time.perf_counter()
            result = par(rules)
            totals.append(time.perf_counter() - start)
        assert result is not None
        print(
            f"{result.dungeon}: par {result.par}, proven {result.proven}; search {min(searches) * 1000:.0f} ms, "
            f"search + drawing + referee {min(totals):.2f} s (aim: 10 s)"
        )
    for guarded in (False, True):
        generated(guarded)
    if args.timer:
        for path in sorted(PACK.glob("*.json")):
            timer(path)
    return 0


def timer(path: Path, seconds: float = 60.0) -> None:
    """Par under a timer the route does not fit: the dungeon with a ``seconds`` timer (the
    sheet's own triggers otherwise kept) at the speeds that give 30 % and 60 % of the par route's
    length: the best found within the timer, the bound, whether proven, and the time of par."""
    from inkcrawl.engines.line.timer import timer_bound

    entries, status = load_games([str(path)])
    if status is not None:
        return
    entry = dict(entries[0])
    triggers = [t for t in entry.get("end_triggers") or [] if not (isinstance(t, dict) and t.get("kind") == "timer")]
    entry["end_triggers"] = [*triggers, {"kind": "timer", "seconds": seconds}]
    full = par(LineRules(entry)).length_mm
    for share in (0.3, 0.6):
        rules = LineRules(entry)
        start = time.perf_counter()
        result = par(rules, speed_mm_s=full * share / seconds)
        total = time.perf_counter() - start
        start = time.perf_counter()
        bound = timer_bound(LineRules(entry), full * share)
        alone = time.perf_counter() - start
        print(
            f"{result.dungeon} under the timer, {share:.0%} of the par route ({full * share:.0f} mm): "
            f"found {result.timer_vp}, bound {result.timer_bound} "
            f"({'proven' if result.timer_proven else 'not proven'}; par {result.par}), "
            f"bound search {alone:.2f} s ({bound.states:,} states, "
            f"{'exhaustive' if bound.exhaustive else 'budget reached'}), par in all {total:.2f} s"
        )


if __name__ == "__main__":
    raise SystemExit(main())
