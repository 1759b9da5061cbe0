"""Benchmark: the line referee on a 5,000-point path over the largest bundled line dungeon.

    cd /path/to/inkcrawl && PYTHONPATH=. python benchmarks/referee_path.py
    PYTHONPATH=. python benchmarks/referee_path.py --points 20000 --repeat 10 --profile

The dungeon is content/packs/lantern-depths/dungeons/04-lantern-kings-descent.json, converted to
game data once (``inkcrawl.gamedata``). The play is a worst case for the referee: a boustrophedon
sweep (rows 1.2 mm apart) through every area in route order, so the stroke covers, traces and
touches nearly every element and crosses many area boundaries. The route is legal: areas are
joined through the middle of their openings and doors, the keys are picked up on the way, and
the portal is taken: polyline 1 sweeps r1, c1, r2, c2 (door d1) and r3 up to the first point
touching portal entry pe1; polyline 2 starts at exit px1 and sweeps r4, c6, r6, c7 (door d4)
and r7, where covering the boss ends the scrawl. Points are spaced evenly
along the sweep so the whole play holds ``--points`` points.

Reported: the one-off compile time of the dungeon (:class:`LineRules`: the game schema check,
then the geometry; shared by every play on that dungeon and pen width) and the time to score
the play, best and median of ``--repeat`` runs (plus the first, cold run). The aim: under
100 ms for the 5,000-point path.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from inkcrawl.engines.line import LineRules, format_breakdown, referee
from inkcrawl.gamedata import game_document
from inkcrawl.loading import open_dungeons

DUNGEON = REPO / "content" / "packs" / "lantern-depths" / "dungeons" / "04-lantern-kings-descent.json"
ROUTE_1 = ["r1", "c1", "r2", "c2", "r3"]
ROUTE_2 = ["r4", "c6", "r6", "c7", "r7"]
ROW_MM = 1.2
INSET_MM = 1.0


def _sweep(polygon: list, row: float = ROW_MM, inset: float = INSET_MM) -> list[np.ndarray]:
    """Rows across the polygon's bounding box (clipped to the inset polygon), alternating
    direction, as a list of segments."""
    import shapely

    shape = shapely.Polygon(polygon).buffer(-inset, join_style="mitre")
    x0, y0, x1, y1 = shape.bounds
    rows = []
    for i, y in enumerate(np.arange(y0, y1 + 1e-9, row)):
        cut = shape.intersection(shapely.LineString([(x0 - 1, y), (x1 + 1, y)]))
        pieces = [np.asarray(p.coords) for p in shapely.get_parts(cut) if p.length > 0]
        if not pieces:
            continue
        xs = sorted(c for p in pieces for c in p[:, 0])
        a, b = np.array([xs[0], y]), np.array([xs[-1], y])
        rows.append(np.array([a, b]) if i % 2 == 0 else np.array([b, a]))
    return rows


def _gateway(entry: dict, a: str, b: str) -> np.ndarray:
    """The middle of the opening or door between areas ``a`` and ``b``."""
    import shapely

    for connection in entry["connections"]:
        if {connection["a"], connection["b"]} == {a, b} and connection["kind"] == "door":
            return np.mean(np.array(connection["segment"], dtype=float), axis=0)
    polygons = {x["id"]: shapely.Polygon(x["polygon"]) for x in entry["areas"] if x["id"] in (a, b)}
    shared = polygons[a].boundary.intersection(polygons[b].boundary)
    middle = shapely.line_interpolate_point(
        shapely.line_merge(shared) if shared.geom_type == "MultiLineString" else shared, 0.5, normalized=True
    )
    return np.array([middle.x, middle.y])


def _polyline(entry: dict, route: list[str], start: np.ndarray) -> np.ndarray:
    """Sweep each area of ``route`` in turn, going from one to the next through the middle of
    the opening or door between them (a legal route)."""
    areas = {a["id"]: a["polygon"] for a in entry["areas"]}
    vertices = [start]
    for i, area in enumerate(route):
        if i:
            vertices.append(_gateway(entry, route[i - 1], area))
        for row in _sweep(areas[area]):
            vertices.extend(row)
    return np.array(vertices)


def _resample(polyline: np.ndarray, count: int) -> np.ndarray:
    seg = np.hypot(*np.diff(polyline, axis=0).T)
    cum = np.concatenate([[0], np.cumsum(seg)])
    where = np.linspace(0, cum[-1], count)
    return np.column_stack([np.interp(where, cum, polyline[:, 0]), np.interp(where, cum, polyline[:, 1])])


def build_play(entry: dict, points: int) -> dict:
    """The sweep play described in the module docstring, with ``points`` points in all."""
    elements = {e["id"]: e for e in entry["elements"]}
    start = np.array(entry["starts"][0]["at"], dtype=float)
    first = _polyline(entry, ROUTE_1, start)
    second = _polyline(entry, ROUTE_2, np.array(elements["px1"]["at"], dtype=float))
    lengths = [float(np.hypot(*np.diff(p, axis=0).T).sum()) for p in (first, second)]
    share = lengths[0] / sum(lengths)
    one = _resample(first, max(2, round(points * share)))
    # the pen lifts on touching portal entry pe1: polyline 1 stops at the first point touching it
    pe1 = elements["pe1"]
    reach = pe1["size_mm"] / 2 + entry["pen_width_mm"] / 2
    touching = np.flatnonzero(np.hypot(*(one - np.array(pe1["at"])).T) <= reach)
    if len(touching):
        one = one[: touching[0] + 1]
    two = _resample(second, points - len(one))
    return {
        "type": "play",
        "format_version": 1,
        "dungeon": entry["id"],
        "character": None,
        "players": 2,
        "path": [np.round(one, 3).tolist(), np.round(two, 3).tolist()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=5000, help="points in the path (default 5000)")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs (default 7)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile breakdown of one run")
    parser.add_argument("--show", action="store_true", help="print the breakdown of the play")
    args = parser.parse_args(argv)

    opened = open_dungeons([str(DUNGEON)])
    if opened.report.errors:
        print("the benchmark dungeon has validation errors", file=sys.stderr)
        return 1
    entry = game_document(opened.dungeons)["dungeons"][0]
    play = build_play(entry, args.points)
    count = sum(len(p) for p in play["path"])

    start = time.perf_counter()
    rules = LineRules(entry)
    rules.for_pen(entry["pen_width_mm"])
    compile_ms = (time.perf_counter() - start) * 1000

    times = []
    result = None
    for _ in range(args.repeat + 1):
        start = time.perf_counter()
        result = referee(rules, play)
        times.append((time.perf_counter() - start) * 1000)
    cold, warm = times[0], times[1:]
    print(
        f"dungeon: {entry['id']} ({len(entry['areas'])} areas, {len(entry['elements'])} elements, "
        f"{len(entry['walls'])} walls)"
    )
    print(
        f"play: {count} points in {len(play['path'])} polylines, "
        f"{result['end']['length_mm']:.0f} mm scored, total {result['total']} VP"
    )
    print(f"compile the dungeon (once per dungeon and pen width): {compile_ms:.1f} ms")
    print(
        f"score the play: best {min(warm):.1f} ms, median {statistics.median(warm):.1f} ms "
        f"(first run {cold:.1f} ms; {args.repeat} runs)"
    )
    print(f"aim: under 100 ms -> {'met' if min(warm) < 100 else 'NOT met'}")
    if args.show:
        print()
        print(format_breakdown(result))
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        referee(rules, play)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
