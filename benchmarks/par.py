"""Benchmark: ``inkcrawl par`` on the bundled line dungeons: the search alone, and search plus
drawing plus the referee's re-score, per dungeon (best of 3).

    PYTHONPATH=. python benchmarks/par.py

The aim (issue "Play every dungeon automatically"): par for each bundled line dungeon in at most
10 s, proven optimal.
"""

from __future__ import annotations

import time
from pathlib import Path

from inkcrawl.cli.common import load_games
from inkcrawl.engines.line import LineRules
from inkcrawl.engines.line.par import par, solve

PACK = Path(__file__).resolve().parent.parent / "content" / "packs" / "lantern-depths" / "dungeons"


def main() -> int:
    for path in sorted(PACK.glob("*.json")):
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
