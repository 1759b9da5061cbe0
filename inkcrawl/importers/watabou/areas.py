"""Geometry in source units (cells): the rects and door cells made areas (:func:`_build_areas`:
doorways cut out, overlapping rects merged, holes cut), spatial queries over the areas
(:class:`_Space`), and free spots for elements clear of what is placed (:class:`_Obstacles`,
:func:`_free_spot`)."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel, split

from inkcrawl.importers.watabou.source import _EPS, _Area, _Door, _listed, _Rect, _Source

# -- geometry -------------------------------------------------------------------------------------


def _ring_points(ring) -> list[tuple[float, float]]:
    """A ring's points without the closing point, repeated points or collinear points."""
    points = [(float(x), float(y)) for x, y in list(ring.coords)[:-1]]
    changed = True
    while changed and len(points) >= 3:
        changed = False
        kept = []
        count = len(points)
        for i, point in enumerate(points):
            before, after = points[i - 1], points[(i + 1) % count]
            cross = (point[0] - before[0]) * (after[1] - point[1]) - (point[1] - before[1]) * (after[0] - point[0])
            if point == before or abs(cross) < 1e-12:
                changed = True
                continue
            kept.append(point)
        if changed:
            points = kept
    return points


def _simple_polygons(geometry) -> list[Polygon]:
    """The polygon parts of ``geometry`` as simple polygons without holes: a part with a hole is
    cut by a vertical line through the hole, repeatedly."""
    result = []
    for part in shapely.get_parts(geometry):
        if part.geom_type == "GeometryCollection" or part.geom_type.startswith("Multi"):
            result += _simple_polygons(part)
            continue
        if part.geom_type != "Polygon" or part.area < _EPS:
            continue
        if part.interiors:
            minx, _, maxx, _ = Polygon(part.interiors[0]).bounds
            _, miny, _, maxy = part.bounds
            cut = (minx + maxx) / 2
            result += _simple_polygons(split(part, LineString([(cut, miny - 1), (cut, maxy + 1)])))
            continue
        points = _ring_points(part.exterior)
        if len(points) < 3:
            continue
        polygon = Polygon(points)
        if not polygon.is_valid or len(set(points)) != len(points):  # pinched outline: cut into vertical slabs
            xs = sorted({p[0] for p in points})
            _, miny, _, maxy = part.bounds
            pieces = [part.intersection(box(a, miny - 1, b, maxy + 1)) for a, b in zip(xs, xs[1:])]
            for piece in pieces:
                for slab in shapely.get_parts(piece):
                    if slab.geom_type == "Polygon" and slab.area > _EPS and not slab.interiors:
                        slab_points = _ring_points(slab.exterior)
                        if len(slab_points) >= 3 and Polygon(slab_points).is_valid:
                            result.append(Polygon(slab_points))
            continue
        result.append(polygon)
    return result


def _groups(shapes: list[Polygon]) -> list[list[int]]:
    """Indexes of ``shapes`` (axis-aligned boxes) grouped by overlap (sharing surface, not just
    an edge), in order."""
    parent = list(range(len(shapes)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if shapes:
        # the shapes are axis-aligned boxes: their overlap is the overlap of their bounds, computed
        # for every candidate pair at once (thousands of stacked rects would be millions of
        # shapely intersections)
        bounds = shapely.bounds(shapes)
        left, right = shapely.STRtree(shapes).query(shapes, predicate="intersects")
        keep = right > left
        left, right = left[keep], right[keep]
        width = np.minimum(bounds[left, 2], bounds[right, 2]) - np.maximum(bounds[left, 0], bounds[right, 0])
        height = np.minimum(bounds[left, 3], bounds[right, 3]) - np.maximum(bounds[left, 1], bounds[right, 1])
        overlapping = (width > 0) & (height > 0) & (width * height > _EPS)
        for i, j in zip(left[overlapping].tolist(), right[overlapping].tolist()):
            parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(shapes)):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _build_areas(source: _Source, note) -> tuple[list[_Area], dict[int, _Area]]:
    """Rooms, corridors and doorways (see the package docstring); returns the areas and the
    doorway area of each door index."""
    doors_by_cell: dict[tuple[float, float], _Door] = {}
    for door in source.doors:
        key = (door.x, door.y)
        if key in doors_by_cell:
            note(door.source, f"shares its cell with door {doors_by_cell[key].index}; ignored")
            continue
        doors_by_cell[key] = door
    shapes = {r.index: r.shape for r in source.rects}
    rect_list = list(shapes.values())
    rect_tree = shapely.STRtree(rect_list)
    cells = {}
    for door in doors_by_cell.values():
        cell = door.cell
        found = rect_tree.query(cell, predicate="intersects").tolist()
        near = shapely.union_all([rect_list[i] for i in found]) if found else Polygon()
        if near.is_empty:
            note(door.source, "lies outside every rect and touches none; ignored")
        elif cell.intersection(near).area > _EPS:
            cells[door.index] = cell
        elif cell.boundary.intersection(near.boundary).length > 0.5:
            note(door.source, "its cell is not covered by any rect; added as a doorway")
            cells[door.index] = cell
        else:
            note(door.source, "lies outside every rect and touches none; ignored")
    cell_list = list(cells.values())
    cell_tree = shapely.STRtree(cell_list)

    def minus(shape, tree, geometries):
        """``shape`` without the ``geometries`` (indexed by ``tree``) that overlap it."""
        found = tree.query(shape, predicate="intersects").tolist() if geometries else []
        return shape.difference(shapely.union_all([geometries[i] for i in found])) if found else shape

    rooms: list[_Rect] = []
    corridors: list[_Rect] = []
    for rect in source.rects:
        door_here = doors_by_cell.get((rect.x, rect.y))
        if rect.w == 1 and rect.h == 1 and door_here is not None and door_here.index in cells:
            continue  # the door's own cell: a doorway
        (corridors if min(rect.w, rect.h) <= 1 else rooms).append(rect)
        if rect.rotunda:
            note(rect.source, "is a round room (rotunda) in watabou; imported as its square")
        if rect.ending:
            note(rect.source, "is flagged 'ending'; inkcrawl has no such marker, imported as a plain room")
    if rooms and cells:
        cell_indexes = list(cells)
        for rect in rooms:
            for found in sorted(cell_tree.query(shapes[rect.index], predicate="intersects").tolist()):
                if shapes[rect.index].intersection(cells[cell_indexes[found]]).area > _EPS:
                    note(
                        rect.source,
                        f"holds the cell of door {cell_indexes[found]}; the cell was cut out of the room as a doorway",
                    )

    areas: list[_Area] = []
    numbers: dict[str, int] = {}

    def add(kind: str, role: str, geometry, members: list[int], what: str, door: int | None = None):
        parts = _simple_polygons(geometry)
        dropped = [p for p in parts if p.area < 0.01]
        parts = [p for p in parts if p.area >= 0.01]
        if dropped:
            note(what, f"left {len(dropped)} sliver(s) smaller than 0.01 cell after cutting; dropped")
        if len(parts) > 1:
            note(what, f"was cut into {len(parts)} simple polygons (a hole, or a doorway cut through it)")
        for part in parts:
            number = numbers[role] = numbers.get(role, 0) + 1
            area_id = f"doorway-{door}" if role == "doorway" else f"{role}-{number}"
            if role == "doorway" and len(parts) > 1:
                area_id = f"doorway-{door}-{number}"
            areas.append(_Area(area_id, kind, role, part, members, door))

    room_shapes = [shapes[r.index] for r in rooms]
    room_tree = shapely.STRtree(room_shapes)
    for group in _groups(room_shapes):
        members = [rooms[i].index for i in group]
        if len(group) > 1:
            note(rooms[group[0]].source, f"overlaps rect(s) {_listed(members[1:])}; merged into one room")
        shape = minus(shapely.union_all([room_shapes[i] for i in group]), cell_tree, cell_list)
        add("room", "room", shape, members, rooms[group[0]].source)
    corridor_shapes = [shapes[r.index] for r in corridors]
    for group in _groups(corridor_shapes):
        members = [corridors[i].index for i in group]
        shape = shapely.union_all([corridor_shapes[i] for i in group])
        without_rooms = minus(shape, room_tree, room_shapes)
        if shape.area - without_rooms.area > _EPS:
            note(corridors[group[0]].source, "overlaps a room; the room keeps the overlap")
        if len(group) > 1:
            note(corridors[group[0]].source, f"overlaps rect(s) {_listed(members[1:])}; merged into one corridor")
        add("corridor", "corridor", minus(without_rooms, cell_tree, cell_list), members, corridors[group[0]].source)
    doorways = {}
    for door in source.doors:
        if door.index in cells:
            add("corridor", "doorway", cells[door.index], [], door.source, door.index)
            if areas and areas[-1].door == door.index:
                doorways[door.index] = next(a for a in areas if a.door == door.index)
    return areas, doorways


class _Space:
    """Spatial queries over the areas in source units."""

    def __init__(self, areas: list[_Area]):
        self.areas = areas
        self.polygons = [a.polygon for a in areas]
        self.tree = shapely.STRtree(self.polygons)
        union = shapely.union_all(self.polygons)
        self.union = union
        self.outline = shapely.union_all([shapely.get_exterior_ring(p) for p in shapely.get_parts(union)])
        self.outer_near = self.outline.buffer(1e-6)

    def beyond(self, area: _Area, segment) -> tuple[_Area | None, LineString | None]:
        """The other area sharing the longest stretch of ``segment`` with its boundary, and that stretch."""
        line = LineString(segment)
        best, best_piece = None, None
        for index in self.tree.query(line, predicate="intersects").tolist():
            other = self.areas[index]
            if other is area:
                continue
            shared = other.polygon.boundary.intersection(line)
            pieces = [
                g
                for g in shapely.get_parts(
                    shapely.line_merge(shared) if shared.geom_type == "MultiLineString" else shared
                )
                if g.geom_type == "LineString" and g.length > _EPS
            ]
            if not pieces:
                continue
            piece = max(pieces, key=lambda g: g.length)
            if best_piece is None or piece.length > best_piece.length + _EPS:
                best, best_piece = other, piece
        return best, best_piece

    def containing(self, point: tuple[float, float]) -> list[_Area]:
        found = self.tree.query(Point(point), predicate="intersects").tolist()
        return [self.areas[i] for i in sorted(found)]

    def nearest(self, point: tuple[float, float]) -> _Area:
        """The area nearest ``point`` (the first in order when several are as near)."""
        target = Point(point)
        return min(enumerate(self.areas), key=lambda item: (item[1].polygon.distance(target), item[0]))[1]


class _Obstacles:
    """Label boxes and element discs placed so far (source units), with a spatial index."""

    def __init__(self, items=()):
        self.items = list(items)
        self._tree = None

    def add(self, geometry) -> None:
        self.items.append(geometry)
        self._tree = None

    def near(self, geometry, distance: float) -> list:
        """The obstacles within ``distance`` of ``geometry``."""
        if not self.items:
            return []
        if self._tree is None:
            self._tree = shapely.STRtree(self.items)
        found = self._tree.query(geometry, predicate="dwithin", distance=distance)
        return [self.items[i] for i in sorted(found.tolist())]

    def __add__(self, other: _Obstacles) -> _Obstacles:
        return _Obstacles(self.items + other.items)


def _free_spot(
    polygon: Polygon, radius: float, clearance: float, obstacles: _Obstacles, prefer: tuple[float, float] | None = None
) -> tuple[float, float] | None:
    """A point of ``polygon`` where a disc of ``radius`` (plus ``clearance``) fits, clear of
    ``obstacles`` (grown by ``radius + clearance``); ``None`` if nowhere. The point is the
    centre of the largest free room (or the one nearest ``prefer``)."""
    region: BaseGeometry = polygon.buffer(-(radius + clearance), join_style="mitre")
    if region.is_empty:
        return None
    near = obstacles.near(polygon, radius + clearance)
    if near:
        region = region.difference(shapely.union_all(near).buffer(radius + clearance))
    if region.is_empty:
        return None
    parts = [p for p in shapely.get_parts(region) if not p.is_empty]
    surfaces = [p for p in parts if p.geom_type == "Polygon" and p.area > _EPS]
    if prefer is not None:
        target = Point(prefer)
        if region.covers(target):
            return prefer
        part = min(surfaces or parts, key=lambda p: p.distance(target))
    else:
        part = max(surfaces, key=lambda p: p.area) if surfaces else parts[0]
    if part.geom_type == "Polygon" and part.area > _EPS:
        spot = polylabel(part, tolerance=max(radius / 20, 1e-3))
    else:
        spot = part.representative_point()
    return (round(spot.x, 6), round(spot.y, 6))
