"""Geometry helpers of the line-family canvas tools, without Qt.

Everything is in sheet millimetres (origin at the paper's top-left, y down). The tools of
:mod:`editor.tools.line` use these to decide whether a drawn outline can become a room,
corridor or wall, which vertex or edge lies under the pointer, and which number the next
artifact stone takes. Keeping them Qt-free keeps them testable without a display.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from editor.dungeon.edits import ref_of
from inkcrawl.model import Area, Element, LineDungeon, Point, Wall

#: Two points closer than this (mm) are the same point for the tools.
SAME_POINT_MM = 1e-3
#: An outline enclosing less than this (mm²) has no area: it is refused.
MIN_AREA_MM2 = 0.01


def rounded(p: Sequence[float]) -> Point:
    """``p`` rounded to 0.001 mm, as the edits store points."""
    return (round(float(p[0]), 3), round(float(p[1]), 3))


def distinct_points(points: Sequence[Point], closed: bool) -> list[Point]:
    """``points`` without consecutive repeats (and, for a ``closed`` outline, without a last
    point repeating the first)."""
    out: list[Point] = []
    for p in points:
        if not out or math.dist(out[-1], p) > SAME_POINT_MM:
            out.append(rounded(p))
    if closed:
        while len(out) > 1 and math.dist(out[0], out[-1]) <= SAME_POINT_MM:
            out.pop()
    return out


def polygon_area(points: Sequence[Point]) -> float:
    """The area enclosed by a polygon (shoelace formula), in mm², never negative."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(points, list(points[1:]) + list(points[:1])):
        total += x0 * y1 - x1 * y0
    return abs(total) / 2


def polygon_refusal(points: Sequence[Point]) -> str | None:
    """Why ``points`` cannot be the outline of a room or corridor, or ``None`` when it can.

    A room or corridor is a simple polygon (RULES.md 2, Sheet: areas separated by walls;
    schema: at least 3 points): at least 3 distinct points, a non-zero area, and an outline
    that does not cross itself."""
    clean = distinct_points(points, closed=True)
    if len({p for p in clean}) < 3:
        return "an area needs at least 3 distinct points"
    import shapely

    if shapely.MultiPoint(clean).convex_hull.area < MIN_AREA_MM2:
        return "the outline encloses no surface (its points lie on one line)"
    if not shapely.Polygon(clean).is_valid or polygon_area(clean) < MIN_AREA_MM2:
        return "the outline crosses itself; draw it without crossing"
    return None


def polyline_refusal(points: Sequence[Point]) -> str | None:
    """Why ``points`` cannot be a wall (at least 2 distinct points), or ``None``."""
    if len(set(distinct_points(points, closed=False))) < 2:
        return "a wall needs at least 2 distinct points"
    return None


def nearest_on_segment(p: Point, a: Point, b: Point) -> tuple[Point, float]:
    """The point of segment ``a``-``b`` nearest ``p`` and its parameter ``t`` (0 at ``a``, 1 at ``b``)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return a, 0.0
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return (a[0] + t * dx, a[1] + t * dy), t


def project_on_line(p: Point, a: Point, b: Point) -> Point:
    """``p`` projected on the infinite line through ``a`` and ``b`` (``a`` if they coincide)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return a
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    return (a[0] + t * dx, a[1] + t * dy)


def nearest_vertex(points: Sequence[Point], p: Point) -> tuple[int, float] | None:
    """``(index, distance)`` of the vertex of ``points`` nearest ``p``; ``None`` when empty."""
    if not points:
        return None
    index = min(range(len(points)), key=lambda i: math.dist(points[i], p))
    return index, math.dist(points[index], p)


def edges(points: Sequence[Point], closed: bool) -> list[tuple[int, Point, Point]]:
    """The edges of an outline as ``(index of the first end, first end, second end)``."""
    if len(points) < 2:
        return []
    pairs = list(zip(points, list(points[1:]) + ([points[0]] if closed else [])))
    return [(i, a, b) for i, (a, b) in enumerate(pairs)]


def nearest_edge(points: Sequence[Point], p: Point, closed: bool) -> tuple[int, Point, float] | None:
    """``(edge index, nearest point on it, distance)`` for the edge of the outline nearest
    ``p``; the edge ``i`` runs from vertex ``i`` to vertex ``i + 1`` (wrapping when closed)."""
    best = None
    for i, a, b in edges(points, closed):
        q, _ = nearest_on_segment(p, a, b)
        d = math.dist(p, q)
        if best is None or d < best[2]:
            best = (i, q, d)
    return best


def grid_point_on_segment(p: Point, a: Point, b: Point, step_mm: float, tolerance_mm: float) -> Point | None:
    """The point of segment ``a``-``b`` where it crosses a line of the ``step_mm`` grid, nearest
    ``p`` and within ``tolerance_mm`` of it, or ``None``. Snapping onto a wall then still lands
    on round millimetres along it (a door or a shared corner at 40 mm, not 40.005 mm)."""
    if step_mm <= 0:
        return None
    best = None
    for axis in (0, 1):
        span = b[axis] - a[axis]
        if abs(span) < 1e-9:
            continue
        for k in (math.floor(p[axis] / step_mm), math.ceil(p[axis] / step_mm)):
            t = (k * step_mm - a[axis]) / span
            if not -1e-9 <= t <= 1 + 1e-9:
                continue
            q = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
            q = (k * step_mm, q[1]) if axis == 0 else (q[0], k * step_mm)
            d = math.dist(p, q)
            if d <= tolerance_mm and (best is None or d < best[0]):
                best = (d, q)
    return rounded(best[1]) if best is not None else None


class Outline:
    """The editable points of an object: an area's ``polygon`` (closed, at least 3 points), a
    wall's ``points`` (open, at least 2) or a door's ``segment`` (open, exactly 2: its ends
    move, none is added or removed)."""

    def __init__(self, ref: str, points: list[Point], closed: bool, minimum: int, fixed: bool):
        self.ref = ref
        self.points = points
        self.closed = closed
        self.minimum = minimum
        self.fixed = fixed

    @classmethod
    def of(cls, obj: Any) -> Outline | None:
        """The outline of a model object, or ``None`` for an object without one."""
        if isinstance(obj, Area):
            return cls(ref_of(obj), list(obj.polygon), True, 3, False)
        if isinstance(obj, Wall):
            return cls(ref_of(obj), list(obj.points), False, 2, False)
        if isinstance(obj, Element) and obj.segment is not None:
            return cls(ref_of(obj), list(obj.segment), False, 2, True)
        return None

    def moved(self, index: int, p: Point) -> list[Point]:
        """The points with vertex ``index`` moved to ``p``."""
        out = list(self.points)
        out[index] = rounded(p)
        return out

    def inserted(self, edge: int, p: Point) -> list[Point]:
        """The points with ``p`` inserted on edge ``edge`` (after vertex ``edge``)."""
        if self.fixed:
            raise ValueError("a door has exactly two ends; drag them instead")
        out = list(self.points)
        out.insert(edge + 1, rounded(p))
        return out

    def removed(self, index: int) -> list[Point]:
        """The points without vertex ``index``; ``ValueError`` when too few would be left."""
        if self.fixed or len(self.points) <= self.minimum:
            what = (
                "a door keeps its two ends"
                if self.fixed
                else ("an area keeps at least 3 vertices" if self.closed else "a wall keeps at least 2 points")
            )
            raise ValueError(what)
        out = list(self.points)
        del out[index]
        return out


def outlines_of(dungeon: LineDungeon) -> list[Outline]:
    """Every editable outline of a line dungeon: doors first, then walls, then areas (the
    order in which the pointer picks them: thin things on top)."""
    out = [Outline.of(e) for e in dungeon.elements if e.segment is not None]
    out += [Outline.of(w) for w in dungeon.walls]
    out += [Outline.of(a) for a in dungeon.areas]
    return [o for o in out if o is not None and o.points]


def next_stone_number(dungeon: LineDungeon) -> int:
    """The number the next artifact stone takes: the smallest positive number no stone has yet
    (RULES.md 2, Artifact stones: connected in number order)."""
    used = {e.number for e in dungeon.elements if e.kind == "artifact_stone" and e.number is not None}
    n = 1
    while n in used:
        n += 1
    return n


def tidy_number(value: float) -> float | int:
    """A length as the files write it: an integer when whole, else rounded to 0.001."""
    value = round(float(value), 3)
    return int(value) if value.is_integer() else value
