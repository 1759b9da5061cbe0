"""Benchmark: the LDtk importer on generated levels up to its cell limit.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/import_ldtk.py [--side 316] [--repeat 3]
    PYTHONPATH=. python benchmarks/import_ldtk.py --side 176    # 25 x 25 rooms: a rooms case that imports

Generates LDtk projects (one level, one IntGrid layer of 16 px cells, ``--side`` x ``--side``
cells; 316 x 316 is just under the importer's 100,000-cell limit) and times
``IMPORTER.convert`` on each, best of ``--repeat`` runs, printing the seconds and the outcome:

- ``ring``: walls around the level's edge only, the empty inside read as one room (the
  flood fill and one simple outline);
- ``rooms``: 6 x 6 cell rooms of floor walled apart, every wall with a doorway one cell wide. No
  value says corridor, so the corridor rule makes each doorway a corridor of its own between two
  rooms: at 316 x 316 cells (45 x 45 rooms and 3,960 doorways) that is more areas than an import
  writes, refused after the floor is read; at ``--side 176`` (25 x 25 rooms, 1,200 doorways:
  1,825 areas) the whole import, Start and printed-sheet check included;
- ``pillars``: open floor with a wall pillar every 7 cells (a floor with thousands of holes:
  cut into more areas than an import writes, refused with a message);
- ``checkerboard``: floor and wall alternating (tens of thousands of one-cell floors: refused
  before any outline is made).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inkcrawl.importers import ImportFailed, ImportOptions, importers


def _project(values: list[int], side: int) -> dict:
    return {
        "jsonVersion": "1.5.3",
        "defaultGridSize": 16,
        "defs": {
            "layers": [
                {
                    "identifier": "Dungeon",
                    "type": "IntGrid",
                    "uid": 1,
                    "gridSize": 16,
                    "intGridValues": [{"value": 1, "identifier": "wall"}, {"value": 2, "identifier": "floor"}],
                }
            ],
            "entities": [],
        },
        "levels": [
            {
                "identifier": "Bench",
                "pxWid": side * 16,
                "pxHei": side * 16,
                "layerInstances": [
                    {
                        "__identifier": "Dungeon",
                        "__type": "IntGrid",
                        "__cWid": side,
                        "__cHei": side,
                        "__gridSize": 16,
                        "layerDefUid": 1,
                        "intGridCsv": values,
                    }
                ],
            }
        ],
    }


def _cell(name: str, x: int, y: int, side: int) -> int:
    if name == "ring":
        return 1 if x in (0, side - 1) or y in (0, side - 1) else 0
    if name == "rooms":
        on_wall = x % 7 == 0 or y % 7 == 0 or x == side - 1 or y == side - 1
        doorway = (x % 7 == 0 and y % 7 == 3) or (y % 7 == 0 and x % 7 == 3)
        edge = x in (0, side - 1) or y in (0, side - 1)
        return 1 if on_wall and (edge or not doorway) else 2
    if name == "pillars":
        return 1 if x % 7 == 3 and y % 7 == 3 else 2
    return 2 if (x + y) % 2 else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--side", type=int, default=316, help="cells per side of each level (default 316)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each import; the best is shown (default 3)")
    args = parser.parse_args()
    importer = importers()["ldtk"]
    with tempfile.TemporaryDirectory() as folder:
        for name in ("ring", "rooms", "pillars", "checkerboard"):
            values = [_cell(name, x, y, args.side) for y in range(args.side) for x in range(args.side)]
            path = Path(folder) / f"{name}.ldtk"
            path.write_text(json.dumps(_project(values, args.side)))
            best, outcome = float("inf"), ""
            for _ in range(args.repeat):
                start = time.perf_counter()
                try:
                    result = importer.convert(path, ImportOptions())
                    outcome = f"{len(result.dungeon['areas'])} area(s), {len(result.notes)} note(s)"
                except ImportFailed as exc:
                    outcome = f"refused: {str(exc)[:90]}"
                best = min(best, time.perf_counter() - start)
            print(f"{name:13s} {args.side} x {args.side} cells: {best:6.2f} s  {outcome}")


if __name__ == "__main__":
    main()
