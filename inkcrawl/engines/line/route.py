"""The drawing step of par: turning a chosen route (the elements to complete, in order) into a
stroke the referee accepts (docs/play-files.md; RULES.md 2, Elements and Drawing rules).

It works on the same geometry as the referee (:class:`~inkcrawl.engines.line.rules.LineRules`):

* :class:`FreeSpace` is where the pen's centre may go between elements: the paper of the chosen
  areas less the walls' solid ink (channels too narrow for a line included,
  :attr:`~inkcrawl.engines.wall_network.WallNetwork.solid`) grown by a clearance, less the
  elements the line must not touch on the way (portal entries, escape portals, exits: touching
  them lifts the pen or ends the scrawl) and the doors it may not pass. It is triangulated once
  (``shapely.constrained_delaunay_triangles``); :meth:`FreeSpace.path` finds the shortest chain
  of triangles (Dijkstra from centroid to centroid through the shared edges' midpoints, so every
  piece stays inside a triangle) and pulls it tight (a shortcut is kept when the free space
  covers it).
* :func:`element_stroke` draws what completes one element: rows back and forth over a monster,
  orb or boss (cover), its outline for a spell or treasure (trace), a line across a plant (pass
  through), into the glyph for a key, prisoner or portal entry (touch), into an exit or escape
  portal (enter).
* :func:`draw_route` chains them from a Start into one play (a new polyline after each portal).

Units: sheet millimetres. The search for the best route (par) is built on this.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import shapely
import shapely.ops
from shapely.geometry import LineString, Point

from inkcrawl.engines.line.rules import Element, LineRules

#: A point in sheet mm: a pair, a sequence or a ``(2,)`` array.
Point2 = Sequence[float] | np.ndarray
#: How far (mm) the pen's centre keeps from the walls' ink between elements.
CLEARANCE_MM = 0.3
#: Rows of a covering stroke: this fraction of the pen width apart.
COVER_ROW_SPACING = 0.6
#: Kinds the line must not touch unless it is going there.
AVOID_KINDS = ("portal_entry", "escape_portal", "exit")


class RouteError(ValueError):
    """No stroke could be drawn: the free space does not join two points (say which)."""


class FreeSpace:
    """Where the pen's centre may go between elements (see the module docstring).

    ``areas``: area indexes the line may be in (default: all); ``avoid``: elements to keep the
    pen off; ``closed_doors``: door segments (shapely lines) the line may not pass. Raises
    :class:`RouteError` when no paper is left."""

    def __init__(
        self,
        rules: LineRules,
        areas: Iterable[int] | None = None,
        avoid: Iterable[Element] = (),
        closed_doors: Iterable = (),
        clearance_mm: float = CLEARANCE_MM,
    ):
        chosen = list(range(len(rules.area_polygons))) if areas is None else sorted(set(areas))
        paper = shapely.union_all([rules.area_polygons[i] for i in chosen])
        pen = rules.pen_width_mm
        solid = rules.network.solid if rules.network.solid is not None else rules.network.barrier
        cut = [solid.buffer(clearance_mm)] if not solid.is_empty else []
        # a round cap of 4 segments per quarter circle lies within 2 % of the circle's radius
        # (under 0.1 mm here), well inside the 0.4 mm margin
        cut += [e.ink.buffer(pen / 2 + 0.4, quad_segs=4) for e in avoid if e.ink is not None]
        cut += [shapely.buffer(d, pen / 2 + clearance_mm) for d in closed_doors]
        free = paper.difference(shapely.union_all(cut)) if cut else paper
        if free.is_empty:
            raise RouteError("no paper is left for the line in the chosen areas")
        self.free = free
        shapely.prepare(self.free)
        triangles = shapely.get_parts(shapely.constrained_delaunay_triangles(free))
        triangles = triangles[shapely.area(triangles) > 1e-9]
        self.triangles = triangles
        self.tree = shapely.STRtree(triangles)
        corners = shapely.get_coordinates(shapely.get_exterior_ring(triangles)).reshape(-1, 4, 2)
        self.centroids = corners[:, :3].mean(axis=1)  # a triangle's centroid: the mean of its corners
        edges: dict[tuple, list[int]] = {}
        rings = np.round(corners, 9)
        for t, coords in enumerate(rings.tolist()):  # every corner rounded once, as Python floats
            for a, b in ((0, 1), (1, 2), (2, 0)):
                p, q = tuple(coords[a]), tuple(coords[b])
                edges.setdefault((p, q) if p <= q else (q, p), []).append(t)
        self.neighbours: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(len(triangles))]
        for (p, q), owners in edges.items():
            if len(owners) == 2:
                mid = (np.array(p) + np.array(q)) / 2
                t, u = owners
                self.neighbours[t].append((u, mid))
                self.neighbours[u].append((t, mid))

    def _triangle(self, point: np.ndarray) -> int:
        hits = self.tree.query(Point(point), predicate="intersects")
        if len(hits):
            return int(hits[0])
        nearest = self.tree.nearest(Point(point))
        return int(nearest)

    def snap(self, point: Point2) -> np.ndarray:
        """The point, or the nearest point of the free space when it lies outside it."""
        p = Point(point)
        if self.free.covers(p):
            return np.asarray(point, dtype=float)
        nearest = shapely.ops.nearest_points(self.free, p)[0]
        return np.array([nearest.x, nearest.y], dtype=float)

    def path(self, a: Point2, b: Point2) -> np.ndarray:
        """A short polyline ``(n, 2)`` from ``a`` to ``b`` inside the free space (both snapped
        into it first). Raises :class:`RouteError` when they are not joined."""
        a, b = self.snap(a), self.snap(b)
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
        if self.free.covers(LineString([a, b])) or np.allclose(a, b):
            return np.array([a, b])
        start, goal = self._triangle(a), self._triangle(b)
        best = {start: 0.0}
        back: dict[int, tuple[int, np.ndarray]] = {}
        queue = [(0.0, start)]
        while queue:
            cost, t = heapq.heappop(queue)
            if t == goal:
                break
            if cost > best.get(t, math.inf):
                continue
            here = self.centroids[t]
            for u, mid in self.neighbours[t]:
                step = cost + float(np.hypot(*(mid - here))) + float(np.hypot(*(self.centroids[u] - mid)))
                if step < best.get(u, math.inf):
                    best[u] = step
                    back[u] = (t, mid)
                    heapq.heappush(queue, (step, u))
        if goal not in best:
            raise RouteError(f"no way for the line from ({a[0]:.1f}, {a[1]:.1f}) to ({b[0]:.1f}, {b[1]:.1f})")
        chain: list[np.ndarray] = [b]
        t = goal
        while t != start:
            prev, mid = back[t]
            chain += [self.centroids[t], mid]
            t = prev
        chain += [self.centroids[start], a]
        return self._pull(np.array(chain[::-1]))

    def _pull(self, points: np.ndarray) -> np.ndarray:
        """Shortcut the chain wherever the free space covers the straight line."""
        out = [points[0]]
        i = 0
        while i < len(points) - 1:
            j = len(points) - 1
            while j > i + 1 and not self.free.covers(LineString([points[i], points[j]])):
                j -= 1
            out.append(points[j])
            i = j
        return np.array(out)


def _cover_rows(ink, pen: float) -> np.ndarray:
    """Rows back and forth over ``ink`` (its bounding box, rows :data:`COVER_ROW_SPACING` pens
    apart), each spanning the ink grown by half a pen: the pen covers all of it."""
    x0, y0, x1, y1 = ink.bounds
    grown = ink.buffer(pen * 0.4)
    points = []
    y = y0 + pen * 0.3
    flip = False
    while y <= y1 - pen * 0.3 + 1e-9:
        row = grown.intersection(LineString([(x0 - pen, y), (x1 + pen, y)]))
        if not row.is_empty:
            xs = shapely.get_coordinates(row)[:, 0]
            seg = [(float(xs.min()), y), (float(xs.max()), y)]
            points += seg[::-1] if flip else seg
            flip = not flip
        y += pen * COVER_ROW_SPACING
    return np.array(points, dtype=float).reshape(-1, 2)


def element_stroke(rules: LineRules, element: Element) -> np.ndarray:
    """The stroke ``(n, 2)`` that completes ``element`` (see the module docstring); its first
    point is where the line comes to it."""
    pen = rules.pen_width_mm
    kind = element.interaction
    if kind == "cover":
        return _cover_rows(element.ink, pen)
    if kind == "trace" and element.traces:
        parts = [np.asarray(trace, dtype=float) for trace in element.traces]
        return np.concatenate(parts)
    centre = np.asarray(element.at if element.at is not None else element.ink.centroid.coords[0], dtype=float)
    if kind == "pass_through":
        footprint = element.footprint if element.footprint is not None else element.ink
        x0, _, x1, _ = footprint.bounds
        half = (x1 - x0) / 2 + pen
        return np.array([centre - (half, 0.0), centre + (half, 0.0)])
    return np.array([centre])  # touch, enter, connect_in_order: into the glyph


class _Fallback:
    """A strict free space, and a looser one where the strict one has no way (built only then)."""

    def __init__(self, strict: FreeSpace, loose: Callable[[], FreeSpace]):
        self.strict, self._loose = strict, loose
        self.loose: FreeSpace | None = None

    def snap(self, point: Point2) -> np.ndarray:
        return self.strict.snap(point)

    def path(self, a: Point2, b: Point2) -> np.ndarray:
        try:
            return self.strict.path(a, b)
        except RouteError:
            if self.loose is None:
                self.loose = self._loose()
            return self.loose.path(a, b)


def draw_route(
    rules: LineRules,
    start_id: str,
    targets: Sequence[str],
    areas: Iterable[int] | None = None,
    closed_doors: Iterable = (),
    portal_exits: dict[str, str] | None = None,
) -> dict:
    """A play file (``{"type": "play", "format_version": 1, "dungeon", "path"}``) whose line
    starts at Start ``start_id`` and completes the elements ``targets`` (ids) in order, staying in
    ``areas`` (default: all) and off every element it is not going to (where that leaves no way:
    off those that would lift the pen or end the scrawl). After a portal entry the next polyline
    starts at the exit ``portal_exits[entry id]`` (default: the first exit of its channel). Raises
    :class:`RouteError` when a target cannot be reached, ``KeyError`` for an unknown id."""
    allowed = None if areas is None else set(areas)
    doors = list(closed_doors)
    exits = portal_exits or {}
    steps = [(t, allowed, doors, exits[t]) if t in exits else (t, allowed, doors) for t in targets]
    return draw_plan(rules, start_id, steps)


def draw_plan(rules: LineRules, start_id: str, steps: Sequence[tuple], marks: list | None = None) -> dict:
    """Like :func:`draw_route`, with the areas and closed doors given per step: each step is
    ``(element id, areas the line may be in or None for all, door segments it may not pass)``,
    and for a portal entry optionally the exit id as a fourth member; a fifth member ``"touch"``
    draws the element as a touch only (the line goes into its centre and on: for an element to
    cover, a failed attempt, which scores 0 and no penalty, RULES.md 2, Drawing rules 3). The line keeps off every
    element the plan does not go to, and off the plan's portal entries, escape portals and exits
    but at their own steps. Free spaces are built once per (areas, doors, elements to avoid).
    ``marks``, when given, receives one ``(element id, polyline index, first point index, last
    point index)`` per step: the points of the path that draw the element itself (its cover,
    trace or touch stroke), for a player model that misses some (:mod:`inkcrawl.engines.line.simulate`). Raises
    :class:`RouteError`, ``KeyError``."""
    by_id = rules.element_by_id
    start = next((s for s in rules.starts if s["id"] == start_id), None)
    if start is None:
        raise KeyError(f"no Start {start_id!r}")
    for step in steps:
        element, allowed = by_id[step[0]], step[1]
        if allowed is not None and element.area not in allowed:
            raise RouteError(f"{step[0]} is in {rules.area_name(element.area)}, outside the areas of the route")
    wanted = {step[0] for step in steps}
    # the line keeps off every element it is not going to, so it scores what was planned; where
    # that leaves no way, only off those that would lift the pen or end the scrawl
    others = [e for e in rules.elements if e.id not in wanted and e.ink is not None and e.kind not in ("start", "door")]
    dangerous = [e for e in others if e.kind in AVOID_KINDS]
    # a portal entry, escape portal or exit of the plan is kept off too, but at its own step:
    # touched on the way to another step it would jump or end the scrawl there
    planned = [by_id[i] for i in dict.fromkeys(step[0] for step in steps) if by_id[i].kind in AVOID_KINDS]
    planned = [e for e in planned if e.ink is not None]
    spaces: dict[tuple, _Fallback] = {}

    def space_for(allowed, doors, going: str | None) -> _Fallback:
        kept_off = [e for e in planned if e.id != going]
        key = (
            None if allowed is None else frozenset(allowed),
            tuple(sorted(id(d) for d in doors)),
            tuple(e.id for e in kept_off),
        )
        if key not in spaces:
            spaces[key] = _Fallback(
                FreeSpace(rules, allowed, others + kept_off, doors),
                lambda: FreeSpace(rules, allowed, dangerous + kept_off, doors),
            )
        return spaces[key]

    first = space_for(steps[0][1] if steps else None, steps[0][2] if steps else [], steps[0][0] if steps else None)
    polylines: list[list[np.ndarray]] = [[np.asarray(start["at"], dtype=float)]]
    here = first.snap(start["at"])
    polylines[0].append(here)
    for step in steps:
        element = by_id[step[0]]
        space = space_for(step[1], step[2], element.id)
        if len(step) > 4 and step[4] == "touch":
            stroke = np.asarray([element.at if element.at is not None else element.ink.centroid.coords[0]], dtype=float)
        else:
            stroke = element_stroke(rules, element)
        polylines[-1].extend(space.path(here, stroke[0])[1:])
        reached = len(polylines[-1]) - 1
        polylines[-1].extend(stroke[1:])
        if marks is not None:
            marks.append((element.id, len(polylines) - 1, reached, len(polylines[-1]) - 1))
        here = stroke[-1]
        if element.kind == "portal_entry":
            exits = [e for e in rules.elements if e.kind == "portal_exit" and e.channel == element.channel]
            exit_ = by_id[step[3]] if len(step) > 3 and step[3] else exits[0]
            landing = exit_.at if exit_.at is not None else exit_.ink.centroid.coords[0]
            here = np.asarray(landing, dtype=float)  # snapped by the next step's free space
            polylines.append([here])
    path = [[[round(float(x), 3), round(float(y), 3)] for x, y in line] for line in polylines]
    return {"type": "play", "format_version": 1, "dungeon": rules.id, "path": path}


__all__ = ["AVOID_KINDS", "FreeSpace", "RouteError", "draw_plan", "draw_route", "element_stroke"]
