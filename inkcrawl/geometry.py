"""Geometry of line dungeons with shapely 2: area polygons, walls, openings and the area graph.

Areas are simple polygons in sheet mm. An area's outline is a wall wherever it does not touch
another area; where two areas share a stretch of boundary, that stretch is an opening the
line may pass through, unless an explicit wall or a door covers it (RULES.md 2, Drawing
rules; docs/formats.md). Doors join their two areas when the player holds their keys.

This module is shared by the rule checks and the rules engines (solvability, referee); the
printed walls and the openings between areas are worked out by :mod:`inkcrawl.printed`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from inkcrawl.model import Area, Element, LineDungeon


def polygon_defects(points: list[tuple[float, float]]) -> tuple[str, str] | None:
    """Why a polygon is not a valid simple polygon, or ``None`` when it is.

    Returns ``(code, message)`` with code ``L001`` (fewer than 3 distinct points), ``L002``
    (a repeated vertex, named by index) or ``L003`` (the outline crosses itself, naming the two
    edges; edge *i* runs from vertex *i* to vertex *i+1*).
    """
    distinct = {tuple(p) for p in points}
    if len(distinct) < 3:
        return "L001", f"the polygon has {len(distinct)} distinct point(s); an area needs at least 3"
    first_seen: dict[tuple, int] = {}
    for index, point in enumerate(points):
        key = tuple(point)
        if key in first_seen:
            if index == len(points) - 1 and first_seen[key] == 0:
                return "L002", (
                    f"vertex {index} repeats vertex 0 at ({point[0]:g}, {point[1]:g}): polygons close "
                    f"themselves, leave the last point out"
                )
            return "L002", f"vertex {index} repeats vertex {first_seen[key]} at ({point[0]:g}, {point[1]:g})"
        first_seen[key] = index
    polygon = Polygon(points)
    if polygon.is_valid and polygon.area > 0:
        return None
    if polygon.area <= 0 and shapely.get_num_coordinates(shapely.convex_hull(polygon)) < 4:
        return "L003", "the polygon has no area (all its points lie on one line)"
    crossing = _crossing_edges(points)
    if crossing:
        i, j = crossing
        return (
            "L003",
            f"edge {i} (vertex {i} to {(i + 1) % len(points)}) crosses "
            f"edge {j} (vertex {j} to {(j + 1) % len(points)})",
        )
    return "L003", f"the outline is not simple: {shapely.is_valid_reason(polygon)}"


def _crossing_edges(points: list[tuple[float, float]]) -> tuple[int, int] | None:
    count = len(points)
    edges = [LineString([points[i], points[(i + 1) % count]]) for i in range(count)]
    left, right = STRtree(edges).query(edges, predicate="intersects")
    for i, j in sorted(zip(left.tolist(), right.tolist())):
        if j <= i:
            continue
        neighbours = j == i + 1 or (i == 0 and j == count - 1)
        # neighbouring edges share a vertex; they are a defect only where they overlap
        if not neighbours or edges[i].intersection(edges[j]).length > 0:
            return i, j
    return None


@dataclass(frozen=True)
class Connection:
    """A way between two areas: an ``open`` gap, a ``door`` (with ``door_id``) or a one-way
    ``portal`` (from ``a`` to ``b``). ``a``/``b`` are area ids."""

    a: str
    b: str
    kind: str
    door_id: str | None = None


@dataclass
class LineGeometry:
    """Shapely geometry of a line dungeon's valid areas and walls, with spatial indexes.

    ``areas`` and ``polygons`` are parallel lists (areas with invalid polygons are left out);
    ``tree`` indexes the polygons; ``walls`` are the explicit walls as line strings.
    """

    areas: list[Area]
    polygons: list[Polygon]
    tree: STRtree
    walls: list[LineString]
    wall_ids: list[str]
    index_by_id: dict[str, int] = field(default_factory=dict)
    snap_mm: float = 0.5
    _outline: BaseGeometry | None = None

    @property
    def outline(self) -> BaseGeometry:
        """The outer boundary of the union of all areas (where Starts go): the exterior rings
        only, so the edge of a courtyard (a hole in the union) is not outside."""
        if self._outline is None:
            if self.polygons:
                union = shapely.union_all(self.polygons)
                parts = shapely.get_parts(union)
                self._outline = shapely.union_all(shapely.get_exterior_ring(parts))
            else:
                self._outline = LineString()
        return self._outline

    def areas_at(self, points: np.ndarray) -> list[list[int]]:
        """For each point (an ``(n, 2)`` array of mm), the indexes of the areas containing it."""
        found: list[list[int]] = [[] for _ in range(len(points))]
        if not len(points) or not self.polygons:
            return found
        geoms = shapely.points(points)
        point_index, area_index = self.tree.query(geoms, predicate="intersects")
        for p, a in zip(point_index.tolist(), area_index.tolist()):
            found[p].append(a)
        return found


def build_geometry(
    dungeon: LineDungeon,
    valid_areas: list[Area] | None = None,
    snap_mm: float = 0.5,
    polygons: list[Polygon] | None = None,
) -> LineGeometry:
    """Build :class:`LineGeometry` from the areas (only ``valid_areas`` when given: those with
    simple polygons) and the walls with at least two distinct points; ``snap_mm`` is the
    geometric tolerance. ``polygons`` (parallel to ``valid_areas``) replaces the areas' own
    polygons, for an exporter drawing repaired outlines."""
    areas = list(dungeon.areas if valid_areas is None else valid_areas)
    polygons = [Polygon(a.polygon) for a in areas] if polygons is None else list(polygons)
    walls, wall_ids = [], []
    for wall in dungeon.walls:
        if len({tuple(p) for p in wall.points}) >= 2:
            walls.append(LineString(wall.points))
            wall_ids.append(wall.id)
    geometry = LineGeometry(areas, polygons, STRtree(polygons), walls, wall_ids, snap_mm=snap_mm)
    geometry.index_by_id = {a.id: i for i, a in enumerate(areas)}
    return geometry


def door_areas(geometry: LineGeometry, door: Element, snap_mm: float) -> list[int]:
    """Indexes of the areas whose boundary holds the door segment: both ends and the middle
    within ``snap_mm`` of the boundary."""
    if door.segment is None:
        return []
    (x1, y1), (x2, y2) = door.segment
    if (x1, y1) == (x2, y2):
        return []
    probes = shapely.points([(x1, y1), ((x1 + x2) / 2, (y1 + y2) / 2), (x2, y2)])
    candidates = geometry.tree.query(LineString(door.segment), predicate="dwithin", distance=snap_mm)
    return [
        index
        for index in sorted(candidates.tolist())
        if float(shapely.distance(geometry.polygons[index].boundary, probes).max()) <= snap_mm
    ]
