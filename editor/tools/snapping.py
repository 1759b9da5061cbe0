"""Snapping of canvas points, in sheet millimetres.

Line family: to the vertices of areas and walls first, then onto walls and area outlines
(the nearest point), then to the mm grid (``step_mm``). Grid family: to cells and edges
(:func:`grid_cell_at`, :func:`grid_edge_at`). Tolerances are given in mm by the caller
(usually 8 screen pixels at the current zoom).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from editor.dungeon.edits import ref_of
from inkcrawl.model import Cell, Dungeon, GridDungeon, LineDungeon, Point


@dataclass
class Snap:
    """A snapped point and what it snapped to: ``vertex``, ``wall``, ``grid`` or ``none``."""

    point: Point
    target: str
    ref: str | None = None


def _nearest_on_segment(p: Point, a: Point, b: Point) -> Point:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return a
    t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2))
    return (ax + t * dx, ay + t * dy)


def outlines(dungeon: LineDungeon, exclude: set[str] = frozenset()) -> list[tuple[str, list[Point], bool]]:
    """Every outline a point may snap to: ``(ref, points, closed)`` for areas and walls."""
    out = [(ref_of(a), a.polygon, True) for a in dungeon.areas if ref_of(a) not in exclude and a.polygon]
    out += [(ref_of(w), w.points, False) for w in dungeon.walls if ref_of(w) not in exclude and w.points]
    return out


def snap_point(
    dungeon: Dungeon,
    p: Point,
    *,
    step_mm: float = 5.0,
    tolerance_mm: float = 2.0,
    use_grid: bool = True,
    to_vertices: bool = True,
    to_walls: bool = True,
    exclude: set[str] = frozenset(),
) -> Snap:
    """Snap ``p`` (mm) for the line family: nearest vertex within ``tolerance_mm``, else the
    nearest point on a wall or outline within it, else the grid of ``step_mm`` (when
    ``use_grid``), else ``p`` rounded to 0.001 mm. ``exclude`` holds references not to snap to
    (the object being edited)."""
    if isinstance(dungeon, LineDungeon):
        shapes = outlines(dungeon, exclude)
        if to_vertices:
            best = None
            for ref, points, _ in shapes:
                for v in points:
                    d = math.dist(p, v)
                    if d <= tolerance_mm and (best is None or d < best[0]):
                        best = (d, v, ref)
            if best is not None:
                return Snap((best[1][0], best[1][1]), "vertex", best[2])
        if to_walls:
            best = None
            for ref, points, closed in shapes:
                pairs = list(zip(points, points[1:] + points[:1] if closed else points[1:]))
                for a, b in pairs:
                    q = _nearest_on_segment(p, a, b)
                    d = math.dist(p, q)
                    if d <= tolerance_mm and (best is None or d < best[0]):
                        best = (d, q, ref)
            if best is not None:
                q = best[1]
                return Snap((round(q[0], 3), round(q[1], 3)), "wall", best[2])
    if use_grid and step_mm > 0:
        return Snap((round(round(p[0] / step_mm) * step_mm, 3), round(round(p[1] / step_mm) * step_mm, 3)), "grid")
    return Snap((round(p[0], 3), round(p[1], 3)), "none")


def grid_cell_at(dungeon: GridDungeon, p: Point) -> Cell | None:
    """The room of the grid under ``p`` (mm), or ``None`` outside the grid."""
    g = dungeon.grid
    col = math.floor((p[0] - g.origin_mm[0]) / g.cell_mm)
    row = math.floor((p[1] - g.origin_mm[1]) / g.cell_mm)
    return (col, row) if g.contains((col, row)) else None


def grid_edge_at(dungeon: GridDungeon, p: Point, outside_mm: float = 0.0) -> tuple[Cell, str] | None:
    """The edge nearest ``p``: ``(cell, side)`` of a room of the grid, or ``None``.

    Points up to ``outside_mm`` beyond the grid's boundary pick the outer edge they face
    (used to place entryways, which sit outside the grid)."""
    g = dungeon.grid
    x = (p[0] - g.origin_mm[0]) / g.cell_mm
    y = (p[1] - g.origin_mm[1]) / g.cell_mm
    margin = outside_mm / g.cell_mm
    if not (-margin <= x <= g.columns + margin and -margin <= y <= g.rows + margin):
        return None
    col = min(max(math.floor(x), 0), g.columns - 1)
    row = min(max(math.floor(y), 0), g.rows - 1)
    fx, fy = x - col, y - row
    distances = {"west": abs(fx), "east": abs(1 - fx), "north": abs(fy), "south": abs(1 - fy)}
    side = min(distances, key=distances.get)
    return (col, row), side
