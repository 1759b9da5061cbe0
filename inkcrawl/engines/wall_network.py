"""The walls of a line dungeon as the referee judges them: one noded network of centre lines.

The game data lists every wall line of the printed sheet (docs/game-data.md, ``walls``): the
outline walls and explicit walls with their printed width, and the closures and bridges that
close gaps narrower than the ruleset requires (``inkcrawl.printed``). A line crosses a wall
where it crosses the wall's ink (RULES.md 2, Drawing rules), so:

* a free wall end is extended by half the wall's printed width (its round cap is ink);
* walls that meet are one network: where two walls join, or one ends on another, the joint is
  a node, and a line passing exactly through it goes from one side of the network to the
  other (it crossed a wall), instead of slipping between two wall ends;
* a channel of paper narrower than the required gap (between two walls, or a wall and an
  outline) is ink: no line of that width passes through it (:func:`close_channels`).

:func:`wall_network` builds the network once per dungeon and :func:`close_channels` its solid
ink; :func:`separates` says whether a passage through that ink goes from the paper on one side
to the paper on the other, and :func:`crosses` judges a single point on the centre lines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString
from shapely.geometry.base import BaseGeometry

_KEY_DIGITS = 6


def _key(point) -> tuple[float, float]:
    return (round(float(point[0]), _KEY_DIGITS), round(float(point[1]), _KEY_DIGITS))


#: Closures and bridges print nothing; as a barrier they are this wide (mm).
UNPRINTED_WIDTH_MM = 0.05


@dataclass
class WallNetwork:
    """``lines``: the network's polylines (``(n, 2)`` arrays, sheet mm), each running between
    two nodes (a free end or a junction) or closed on itself; ``junctions``: for each node
    where two or more polylines end, the points next to it along each of them; ``barrier``: the
    walls' ink (each wall buffered by half its printed width, round caps; closures and bridges
    :data:`UNPRINTED_WIDTH_MM` wide), a shapely (multi)polygon; ``ink``: the printed walls' ink alone;
    ``unprinted``: the closures and bridges as lines; ``free_ends``: the printed walls' free ends (a
    capped wall's at the tip of its ink) with the unit direction the wall points there;
    ``solid``: where a path is inside a wall, the barrier with every channel of paper narrower
    than the required gap filled (:func:`close_channels`; until it runs, the barrier)."""

    lines: list[np.ndarray]
    junctions: dict[tuple[float, float], list[np.ndarray]] = field(default_factory=dict)
    barrier: BaseGeometry = field(default_factory=shapely.Polygon)  # empty: no walls
    ink: BaseGeometry | None = None  # the printed walls' ink alone
    unprinted: list[LineString] = field(default_factory=list)  # closures and bridges
    free_ends: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    solid: BaseGeometry | None = None  # the barrier with too-narrow channels filled
    _index: dict = field(default_factory=dict, repr=False)  # spatial indexes for separates()


def wall_network(walls: list[np.ndarray], widths: list[float], capped: list[bool] | None = None) -> WallNetwork:
    """Node the wall polylines ``walls`` (``(n, 2)`` arrays of sheet mm with their printed
    ``widths`` in mm) into a :class:`WallNetwork`: the free ends of the ``capped`` walls (all by
    default; the referee caps explicit walls) extended by half their width, walls split where
    they meet or cross, and merged again where only two meet. Outline walls are not capped:
    their free ends are the corners of openings, doors and Starts' entrance gaps, where the
    paper on both sides of the corner is one region (RULES.md 2, Drawing rules). A wall shorter
    than its printed width prints as a dot: no free ends (a line through a dot touches it)."""
    keep = [i for i, w in enumerate(walls) if len(w) >= 2]
    lines = [np.asarray(walls[i], dtype=float) for i in keep]
    widths = [float(widths[i]) for i in keep]
    capped = [True] * len(lines) if capped is None else [bool(capped[i]) for i in keep]
    if not lines:
        return WallNetwork([], solid=shapely.Polygon())
    geoms = [LineString(line) for line in lines]
    printed = [g for g, w in zip(geoms, widths) if w > 0]
    ink = (
        shapely.union_all(
            shapely.buffer(np.array(printed, dtype=object), np.array([w / 2 for w in widths if w > 0]), quad_segs=8)
        )
        if printed
        else shapely.Polygon()
    )
    unprinted = [g for g, w in zip(geoms, widths) if w <= 0]
    barrier = shapely.union_all(
        shapely.buffer(
            np.array(geoms, dtype=object), np.array([max(w / 2, UNPRINTED_WIDTH_MM / 2) for w in widths]), quad_segs=8
        )
    )
    shapely.prepare(barrier)
    tree = shapely.STRtree(geoms)
    extended = []
    free_ends: list[tuple[np.ndarray, np.ndarray]] = []
    for index, (line, width, cap) in enumerate(zip(lines, widths, capped)):
        line = line.copy()
        closed = np.allclose(line[0], line[-1])
        # a wall shorter than its printed width prints as a dot: it has no sides to cut the paper by
        dot = float(np.hypot(*np.diff(line, axis=0).T).sum()) < width
        if width > 0 and not closed and not dot:
            for end, inner in ((0, 1), (-1, -2)):
                point = shapely.points(line[end])
                touching = [k for k in tree.query(point, predicate="dwithin", distance=1e-7).tolist() if k != index]
                if touching:
                    continue
                direction = line[end] - line[inner]
                norm = math.hypot(*direction)
                if norm > 0:
                    if cap:
                        line[end] = line[end] + direction / norm * width / 2
                    free_ends.append((line[end].copy(), direction / norm))
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
    return WallNetwork(
        parts, junctions, barrier=barrier, ink=ink, unprinted=unprinted, free_ends=free_ends, solid=barrier
    )


def crosses(network: WallNetwork, line: int, segment: int, point, before, after) -> bool | None:
    """Whether the path, going from ``before`` through ``point`` to ``after``, crosses the wall
    network at ``point``, which lies on segment ``segment`` of polyline ``line``.

    Away from the polyline's vertices: ``before`` and ``after`` lie on opposite sides of the
    segment. At an inner vertex, or at a junction of several polylines: they lie in different
    sectors between the walls meeting there. At a free end: no crossing (the line passes the
    end of the wall's ink). ``None`` when it cannot tell: ``before`` or ``after`` lies on the
    wall itself (the path runs along it); the caller asks again with points further away."""
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
        scale = 1e-12 * max(float(d @ d), 1e-12)
        if abs(s1) <= scale or abs(s2) <= scale:
            return None
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
    return sectors_differ(point, neighbours, before, after)


def sectors_differ(centre, neighbours: list, before, after) -> bool | None:
    """Whether ``before`` and ``after`` lie in different sectors of the rays from ``centre``
    towards ``neighbours`` (``None``: one of them lies on a ray)."""
    s1, s2 = _sector(centre, neighbours, before), _sector(centre, neighbours, after)
    if s1 < 0 or s2 < 0:
        return None
    return s1 != s2


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


#: A channel exactly the required gap wide is open: the closing disc is this much narrower (mm).
CHANNEL_TOLERANCE_MM = 0.005


def close_channels(network: WallNetwork, required_gap_mm: float, keep_open: Sequence[LineString] = ()) -> None:
    """Fill every channel of paper narrower than ``required_gap_mm`` (mm) between the walls of
    ``network``: its :attr:`~WallNetwork.solid` becomes the
    morphological closing of the barrier (the printed ink, the closures and the bridges) by a
    disc that wide, less :data:`CHANNEL_TOLERANCE_MM` (grown by half of it, shrunk back), so a
    strip of paper between two parallel walls, or between a wall and an outline, that no line
    of the required width passes through is no way through (RULES.md 2, Drawing rules; the same
    width that closes narrow openings, ``inkcrawl.printed``), and so is the sliver between a
    bridge and the ink beside it. Paper within half the gap of each line in ``keep_open`` (the
    doors' segments: a door is a way through for whoever holds its key; the walk judges it) is
    left as it was."""
    barrier = network.barrier
    radius = required_gap_mm / 2 - CHANNEL_TOLERANCE_MM
    if barrier.is_empty or radius <= 0:
        closed = barrier
    else:
        closed = shapely.union(barrier.buffer(radius, quad_segs=8).buffer(-radius, quad_segs=8), barrier)
        if keep_open:
            slots = shapely.union_all([shapely.buffer(line, radius, cap_style="flat") for line in keep_open])
            closed = shapely.union(shapely.difference(closed, slots), shapely.intersection(barrier, slots))
    shapely.prepare(closed)
    network.solid = closed
    network._index.clear()


#: Half the side of the neighbourhood in which :func:`separates` compares two points, mm.
WINDOW_MM = 3.0


def separates(network: WallNetwork, before, after) -> bool | None:
    """Whether the walls' ink separates ``before`` from ``after`` near them: the two points (on
    the paper either side of a stretch of path that runs through the ink) lie in different
    regions of the paper within a disc around them (at least :data:`WINDOW_MM` in radius), the
    paper being cut also along the continuation of each wall's free end, so a line crossing a
    short free-standing wall, or a wall right beside its end, crosses it. ``None`` when a point lies on the ink.

    This judges what the centre line test cannot: a stroke clipping the solid corner where two
    walls meet and leaving on the same side (no crossing), or running along a wall before it
    leaves (RULES.md 2, Drawing rules: crossing a wall is crossing its ink)."""
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    centre = (before + after) / 2
    radius = max(WINDOW_MM, float(np.hypot(*(after - before))) / 2 + 1.0)
    window = shapely.Point(centre).buffer(radius, quad_segs=16)
    # the faces the window is cut into by the printed ink's edges, the unprinted walls (closures,
    # bridges) and the continuation of each free end: lines only, no thin polygons (robust overlay)
    edges: list[BaseGeometry] = [window.exterior]
    index = _indexes(network)
    parts = index["parts"]
    near = index["parts_tree"].query(window, predicate="intersects") if len(parts) else []
    local = shapely.intersection(shapely.union_all(parts[near]), window) if len(near) else shapely.Polygon()
    if not local.is_empty:
        edges += [
            ring for part in shapely.get_parts(local) if part.geom_type == "Polygon" for ring in shapely.get_rings(part)
        ]
    # lines are not clipped to the window: where they leave it, the noding of the union puts an
    # exact node on the window's edge (a clipped end a hair off the edge would dangle, cutting nothing)
    if network.unprinted:
        edges += [network.unprinted[k] for k in index["unprinted_tree"].query(window, predicate="intersects")]
    tips, directions = index["tips"], index["directions"]
    for k in np.flatnonzero(np.hypot(*(tips - centre).T) <= radius).tolist() if len(tips) else []:
        # from inside the wall's own ink (a polygon a hair inside its round cap), so it is noded
        edges.append(LineString([tips[k] - directions[k] * 1.0, tips[k] + directions[k] * 2 * radius]))
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(shapely.union_all(edges))))
    where = []
    for point in (before, after):
        found = (
            [
                i
                for i in np.flatnonzero(shapely.intersects_xy(faces, point[0], point[1])).tolist()
                if not local.contains(faces[i].representative_point())
            ]
            if len(faces)
            else []
        )
        if not found:
            return None
        where.append(found[0])
    return where[0] != where[1]


def _indexes(network: WallNetwork) -> dict:
    """The spatial indexes :func:`separates` reads, built once per network: the solid ink's
    parts and their tree, the unprinted lines' tree, the free ends as arrays."""
    index = network._index
    if not index:
        ink = network.solid if network.solid is not None else network.barrier
        parts = shapely.get_parts(ink) if not ink.is_empty else np.array([], dtype=object)
        index["parts"] = parts
        index["parts_tree"] = shapely.STRtree(parts)
        index["unprinted_tree"] = shapely.STRtree(np.array(network.unprinted, dtype=object))
        index["tips"] = np.array([tip for tip, _ in network.free_ends], dtype=float).reshape(-1, 2)
        index["directions"] = np.array([d for _, d in network.free_ends], dtype=float).reshape(-1, 2)
    return index
