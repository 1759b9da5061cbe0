"""The walls of a line dungeon as the referee judges them: one noded network of centre lines.

The game data lists every wall line of the printed sheet (docs/game-data.md, ``walls``): the
outline walls and explicit walls with their printed width, and the closures and bridges that
close gaps narrower than the ruleset requires (``inkcrawl.printed``). A line crosses a wall
where it crosses the wall's ink (RULES.md 2, Drawing rules), so:

* a free wall end is extended by half the wall's printed width (its round cap is ink);
* walls that meet are one network: where two walls join, or one ends on another, the joint is
  a node, and a line passing exactly through it goes from one side of the network to the
  other (it crossed a wall), instead of slipping between two wall ends.

:func:`wall_network` builds the network once per dungeon; :func:`crosses` says whether a path
going from ``before`` through ``point`` to ``after`` crosses it there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString

_KEY_DIGITS = 6


def _key(point) -> tuple[float, float]:
    return (round(float(point[0]), _KEY_DIGITS), round(float(point[1]), _KEY_DIGITS))


@dataclass
class WallNetwork:
    """``lines``: the network's polylines (``(n, 2)`` arrays, sheet mm), each running between
    two nodes (a free end or a junction) or closed on itself; ``junctions``: for each node
    where two or more polylines end, the points next to it along each of them."""

    lines: list[np.ndarray]
    junctions: dict[tuple[float, float], list[np.ndarray]] = field(default_factory=dict)


def wall_network(walls: list[np.ndarray], widths: list[float]) -> WallNetwork:
    """Node the wall polylines ``walls`` (``(n, 2)`` arrays of sheet mm with their printed
    ``widths`` in mm) into a :class:`WallNetwork`: free ends extended by half their width,
    walls split where they meet or cross, and merged again where only two meet."""
    lines = [np.asarray(w, dtype=float) for w in walls if len(w) >= 2]
    widths = [float(width) for w, width in zip(walls, widths) if len(w) >= 2]
    if not lines:
        return WallNetwork([])
    geoms = [LineString(line) for line in lines]
    tree = shapely.STRtree(geoms)
    extended = []
    for index, (line, width) in enumerate(zip(lines, widths)):
        line = line.copy()
        closed = np.allclose(line[0], line[-1])
        if width > 0 and not closed:
            for end, inner in ((0, 1), (-1, -2)):
                point = shapely.points(line[end])
                touching = [k for k in tree.query(point, predicate="dwithin", distance=1e-7).tolist() if k != index]
                if touching:
                    continue
                direction = line[end] - line[inner]
                norm = math.hypot(*direction)
                if norm > 0:
                    line[end] = line[end] + direction / norm * width / 2
        extended.append(line)
    noded = shapely.node(MultiLineString([LineString(line) for line in extended if len(line) >= 2]))
    merged = shapely.line_merge(noded)
    parts = [np.asarray(part.coords) for part in shapely.get_parts(merged) if part.length > 0]
    ends: dict[tuple[float, float], list[np.ndarray]] = {}
    for part in parts:
        if np.allclose(part[0], part[-1]) and len(part) > 2:
            continue
        ends.setdefault(_key(part[0]), []).append(part[1])
        ends.setdefault(_key(part[-1]), []).append(part[-2])
    junctions = {key: neighbours for key, neighbours in ends.items() if len(neighbours) >= 2}
    return WallNetwork(parts, junctions)


def crosses(network: WallNetwork, line: int, segment: int, point, before, after) -> bool:
    """Whether the path, going from ``before`` through ``point`` to ``after``, crosses the wall
    network at ``point``, which lies on segment ``segment`` of polyline ``line``.

    Away from the polyline's vertices: ``before`` and ``after`` lie on opposite sides of the
    segment. At an inner vertex, or at a junction of several polylines: they lie in different
    sectors between the walls meeting there. At a free end: no crossing (the line passes the
    end of the wall's ink)."""
    wall = network.lines[line]
    a, b = wall[segment], wall[segment + 1]
    vertex = None
    for m in (segment, segment + 1):
        if math.hypot(*(wall[m] - point)) < 1e-7:
            vertex = m
    if vertex is None:
        d = b - a
        s1 = d[0] * (before[1] - a[1]) - d[1] * (before[0] - a[0])
        s2 = d[0] * (after[1] - a[1]) - d[1] * (after[0] - a[0])
        return s1 * s2 < 0
    last = len(wall) - 1
    closed = last > 1 and np.allclose(wall[0], wall[-1])
    if vertex in (0, last) and not closed:
        neighbours = network.junctions.get(_key(wall[vertex]))
        if not neighbours:
            return False  # a free end: passing it is not crossing
    else:
        prev = wall[vertex - 1] if vertex > 0 else wall[last - 1]
        nxt = wall[vertex + 1] if vertex < last else wall[1]
        neighbours = [prev, nxt]
    s1, s2 = _sector(point, neighbours, before), _sector(point, neighbours, after)
    return s1 >= 0 and s2 >= 0 and s1 != s2


def _sector(centre, neighbours: list, q) -> int:
    """Which of the sectors the rays from ``centre`` towards ``neighbours`` cut the plane into
    holds ``q`` (-1 on a ray)."""
    angles = sorted(math.atan2(n[1] - centre[1], n[0] - centre[0]) % (2 * math.pi) for n in neighbours)
    angle = math.atan2(q[1] - centre[1], q[0] - centre[0]) % (2 * math.pi)
    if any(abs(angle - ray) < 1e-12 for ray in angles):
        return -1
    for index, ray in enumerate(angles):
        if angle < ray:
            return index
    return 0  # past the last ray: the sector that wraps around to the first
