"""watabou One Page Dungeon JSON -> inkcrawl line dungeon (``inkcrawl import prison.json``).

The One Page Dungeon generator (watabou.itch.io) exports ``rects`` ``{x, y, w, h}`` in grid cells
(y down, negative and half-cell values allowed; flags ``rotunda`` and ``ending``), ``doors``
``{x, y, dir: {x, y}, type}`` (each door occupies the cell at ``x, y``; ``dir`` points from the
side nearer the entrance into the area the door leads to), ``notes`` ``{text, ref, pos}``,
``columns`` and ``water`` cell lists, a ``title`` and a ``story``. It has no walls: the walls are
the outline of the union of the rects.

Mapping (docs/importing-watabou.md says the same for users):

* **Areas.** Every door cell is cut out as an area of its own, a *doorway* (kind ``corridor``,
  id ``doorway-N`` after door N), whether the file lists it as a 1x1 rect (the usual case) or it
  lies inside a corridor rect. A rect whose shorter side is at most 1 cell is a corridor; any
  other rect is a room. Rects of one kind that overlap are merged into one area (rooms win over
  corridors where they overlap, reported); rects that only touch stay separate areas, and the
  stretch they share is an opening. An area with a hole is cut into simple polygons.
  ``rotunda`` rooms are imported as their square (reported); the ``ending`` flag has no
  inkcrawl counterpart (reported).
* **Walls** are implicit, as in inkcrawl: an area's outline is a wall where it touches no other
  area. Openings between areas follow from the shared edges.
* **Doors** by ``type``: 0 open, 1 door and 5 double door are open passages (the doorway touches
  the areas on both sides; inkcrawl has no closed-but-unlocked door); 2 narrow and 4 portcullis
  are open passages too, reported. 3 entrance: a Start at the middle of the doorway's outer edge
  (the side ``dir`` comes from, else another outer edge of the cell). 6 secret: a door locked with
  ``skeleton`` (any key opens it: the secret must be found), on the doorway's edge towards the
  area ``dir`` points to. 7 steel: a door locked ``red`` (the ruleset's first colour if it has no
  red) on the same edge. 8 stairs down and 9 stairwell: when the stairs lead off the map (an area
  on one side only) an ``exit`` in the doorway (end trigger ``exit_reached``); when they join two
  areas, an open passage (reported). Unknown types are open passages (reported).
* **Starts** must be on the outer boundary. An entrance that opens onto a courtyard (a space the
  dungeon encloses) gets its Start on the nearest outer wall, counted in areas walked from the
  entrance (not through secret or steel doorways), preferring a side longer than a stub beside a
  doorway (reported). Without an entrance, the first room's outer wall gets one (reported).
* **Keys.** Locked doors are taken in the order the Starts reach them, coloured locks first. A
  steel door gets a red key unless one is reachable already; a secret door gets a skeleton key
  unless some key is reachable already. The key goes in an area reachable without that door:
  rooms before corridors, rooms without a key first, then rooms whose note mentions a key, then
  the room farthest from the Start; clear of the notes' planned labels if possible. Every
  placement is reported. A locked door that no Start reaches, or whose key fits nowhere, becomes
  an open passage (reported).
* **Notes** become labels (cap height 2 mm) centred on ``pos`` (half cells fine) in the area
  holding it, wrapped to the width of the area there, moved just enough to stay inside, and
  shortened with "..." when they do not fit (reported with the full text); if not even that fits,
  the ``ref`` alone, or nothing (reported). A note outside every area goes to the nearest area
  (reported).
* **Columns and water** have no inkcrawl counterpart (no decoration element; they are not
  obstacles for the line): one report each, with the count and the areas they lie in.
* **Title** from ``title`` (else the file name); the **story** becomes the sheet's reminder,
  shortened to 300 characters at a word (reported when shortened).
* **Scale**: ``--cell-mm`` per cell, default 10 mm, shrunk to fit the drawing band of an A4
  sheet (reported only when the requested size was shrunk).
* Areas no Start reaches (validation warning L020) and locked doors their doorway can walk
  around (L009) are reported too, so each validation warning of the result is explained.

Everything that could not be mapped or was repaired is an import note naming the source object
(``door 7 at (6, -6) type 6``). Malformed input (not JSON, no ``rects`` list, non-numeric or
non-finite coordinates, more than :data:`MAX_RECTS` rects...) raises :class:`ImportFailed`.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points, polylabel, split

from inkcrawl.geoarrays import as_point
from inkcrawl.importers import ImportFailed, ImportOptions, ImportResult, json_kind
from inkcrawl.importers.build import DRAWING_BAND_MM, LineDungeonBuilder
from inkcrawl.textmetrics import CAP_HEIGHT_EM, DESCENT_EM, text_width_mm

#: Most rects, doors, notes and column/water cells accepted (a generated dungeon has a few hundred).
MAX_RECTS = 5000
MAX_DOORS = 5000
MAX_NOTES = 2000
MAX_CELLS = 100_000
#: Longest note text kept.
MAX_NOTE_CHARS = 1000
#: Largest absolute coordinate or size accepted, in cells.
MAX_COORD = 10_000
#: Rects thinner than this (cells) are skipped.
MIN_SIDE = 0.25
#: Default printed size of one cell, mm (shrunk to fit the sheet).
DEFAULT_CELL_MM = 10.0
#: Cap height of note labels, mm.
LABEL_CAP_MM = 2.0
#: Longest story kept as the reminder.
STORY_CHARS = 300
#: Space kept between a label or element and a wall, and between elements, mm.
WALL_CLEARANCE_MM = 1.2
ELEMENT_GAP_MM = 0.8

DOOR_TYPES = {0: "open", 1: "door", 2: "narrow", 3: "entrance", 4: "portcullis", 5: "double door",
              6: "secret door", 7: "steel door", 8: "stairs down", 9: "stairwell"}
OPEN, DOOR, NARROW, ENTRANCE, PORTCULLIS, DOUBLE, SECRET, STEEL, DOWN, STAIRWELL = range(10)
_DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))
_EPS = 1e-9


def _n(value: float) -> str:
    return f"{value:g}"


def _number(value, where: str, member: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = json.dumps(value, ensure_ascii=False)[:40] if value is not None else "missing"
        raise ImportFailed(f"{where}: '{member}' is {shown}, not a number")
    if not math.isfinite(value) or abs(value) > MAX_COORD:
        raise ImportFailed(f"{where}: '{member}' is {value!r}; coordinates must be finite and within "
                           f"+-{MAX_COORD} cells")
    return float(value)


@dataclass
class _Rect:
    index: int
    x: float
    y: float
    w: float
    h: float
    rotunda: bool = False
    ending: bool = False

    @property
    def source(self) -> str:
        return f"rect {self.index} at ({_n(self.x)}, {_n(self.y)}) {_n(self.w)}x{_n(self.h)}"

    @property
    def shape(self) -> Polygon:
        return box(self.x, self.y, self.x + self.w, self.y + self.h)


@dataclass
class _Door:
    index: int
    x: float
    y: float
    direction: tuple[int, int] | None
    type: int | None
    raw_type: object

    @property
    def source(self) -> str:
        shown = self.raw_type if isinstance(self.raw_type, (int, float, str)) and not isinstance(self.raw_type, bool) \
            else json.dumps(self.raw_type)[:20]
        return f"door {self.index} at ({_n(self.x)}, {_n(self.y)}) type {shown}"

    @property
    def label(self) -> str:
        return DOOR_TYPES.get(self.type, "unknown type") if self.type is not None else "unknown type"

    @property
    def cell(self) -> Polygon:
        return box(self.x, self.y, self.x + 1, self.y + 1)

    def edge(self, dx: int, dy: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """The cell's edge on the side ``(dx, dy)``."""
        x, y = self.x, self.y
        return {(1, 0): ((x + 1, y), (x + 1, y + 1)), (-1, 0): ((x, y), (x, y + 1)),
                (0, 1): ((x, y + 1), (x + 1, y + 1)), (0, -1): ((x, y), (x + 1, y))}[(dx, dy)]


@dataclass
class _Note:
    index: int
    text: str
    ref: str
    x: float
    y: float

    @property
    def source(self) -> str:
        ref = f" (ref {self.ref})" if self.ref else ""
        return f"note {self.index}{ref} at ({_n(self.x)}, {_n(self.y)})"


@dataclass
class _Area:
    id: str
    kind: str  # room or corridor
    role: str  # room, corridor or doorway
    polygon: Polygon
    rects: list[int] = field(default_factory=list)
    door: int | None = None


@dataclass
class _Source:
    title: str | None
    story: str | None
    version: object
    rects: list[_Rect]
    doors: list[_Door]
    notes: list[_Note]
    columns: list[tuple[float, float]]
    water: list[tuple[float, float]]


# -- reading --------------------------------------------------------------------------------------

def _read(path: Path, notes: list[tuple[str, str]]) -> _Source:
    from inkcrawl.jsonio import read_json_file

    data, problems = read_json_file(path)
    if problems:
        raise ImportFailed(problems[0].message)
    if not isinstance(data, dict):
        raise ImportFailed("the top level is not a JSON object; a One Page Dungeon file is an object with "
                           "'rects' and 'doors' lists")
    if "rects" not in data:
        raise ImportFailed("no 'rects' list: this is not a One Page Dungeon file (it needs 'rects' and 'doors')")
    raw_rects = data["rects"]
    if not isinstance(raw_rects, list):
        raise ImportFailed(f"'rects' is {json_kind(raw_rects)}, not a list")
    if not raw_rects:
        raise ImportFailed("'rects' is empty: the dungeon has no rooms")
    if len(raw_rects) > MAX_RECTS:
        raise ImportFailed(f"{len(raw_rects)} rects; at most {MAX_RECTS} are imported (a generated dungeon has a "
                           f"few hundred at most)")
    rects = []
    for index, item in enumerate(raw_rects):
        where = f"rect {index}"
        if not isinstance(item, dict):
            raise ImportFailed(f"{where} is not an object with x, y, w, h")
        x, y = _number(item.get("x"), where, "x"), _number(item.get("y"), where, "y")
        w, h = _number(item.get("w"), where, "w"), _number(item.get("h"), where, "h")
        rect = _Rect(index, x, y, w, h, item.get("rotunda") is True, item.get("ending") is True)
        if w < MIN_SIDE or h < MIN_SIDE:
            notes.append((rect.source, f"is thinner than {MIN_SIDE:g} cell; skipped"))
            continue
        rects.append(rect)
    if not rects:
        raise ImportFailed("every rect is empty or thinner than a quarter cell: the dungeon has no rooms")

    raw_doors = data.get("doors", [])
    if "doors" not in data:
        notes.append(("doors", "the file has no 'doors' list; imported without doors"))
    if not isinstance(raw_doors, list):
        raise ImportFailed(f"'doors' is {json_kind(raw_doors)}, not a list")
    if len(raw_doors) > MAX_DOORS:
        raise ImportFailed(f"{len(raw_doors)} doors; at most {MAX_DOORS} are imported")
    doors = []
    for index, item in enumerate(raw_doors):
        where = f"door {index}"
        if not isinstance(item, dict):
            raise ImportFailed(f"{where} is not an object with x, y, dir, type")
        x, y = _number(item.get("x"), where, "x"), _number(item.get("y"), where, "y")
        raw_dir = item.get("dir")
        direction = None
        if isinstance(raw_dir, dict):
            dx, dy = _number(raw_dir.get("x", 0), where, "dir.x"), _number(raw_dir.get("y", 0), where, "dir.y")
            if (dx, dy) in _DIRECTIONS:
                direction = (int(dx), int(dy))
        raw_type = item.get("type")
        kind = raw_type if type(raw_type) is int and raw_type in DOOR_TYPES else None
        if type(raw_type) is float and raw_type.is_integer() and int(raw_type) in DOOR_TYPES:
            kind = int(raw_type)
        doors.append(_Door(index, x, y, direction, kind, raw_type))

    raw_notes = data.get("notes", [])
    if not isinstance(raw_notes, list):
        notes.append(("notes", f"'notes' is {json_kind(raw_notes)}, not a list; ignored"))
        raw_notes = []
    if len(raw_notes) > MAX_NOTES:
        raise ImportFailed(f"{len(raw_notes)} notes; at most {MAX_NOTES} are imported")
    source_notes = []
    for index, item in enumerate(raw_notes):
        where = f"note {index}"
        if not isinstance(item, dict):
            notes.append((where, "is not an object with text, ref and pos; skipped"))
            continue
        pos = item.get("pos")
        if not isinstance(pos, dict):
            notes.append((where, "has no 'pos' {x, y}; skipped"))
            continue
        x, y = _number(pos.get("x"), where, "pos.x"), _number(pos.get("y"), where, "pos.y")
        text = item.get("text")
        ref = item.get("ref")
        ref = str(ref).strip()[:20] if isinstance(ref, (str, int, float)) and not isinstance(ref, bool) else ""
        note = _Note(index, _clean_text(text[:MAX_NOTE_CHARS * 2]) if isinstance(text, str) else "", ref, x, y)
        if not note.text:
            notes.append((note.source, "has no text; skipped"))
            continue
        if len(note.text) > MAX_NOTE_CHARS:
            notes.append((note.source, f"text longer than {MAX_NOTE_CHARS} characters; the rest was dropped"))
            note.text = _shorten(note.text, MAX_NOTE_CHARS)
        source_notes.append(note)

    cells = {}
    for member in ("columns", "water"):
        raw = data.get(member, [])
        found = []
        if not isinstance(raw, list):
            notes.append((member, f"'{member}' is {json_kind(raw)}, not a list; ignored"))
            raw = []
        if len(raw) > MAX_CELLS:
            raise ImportFailed(f"{len(raw)} {member} cells; at most {MAX_CELLS} are read")
        for index, item in enumerate(raw):
            where = f"{member} {index}"
            if not isinstance(item, dict):
                raise ImportFailed(f"{where} is not an object with x and y")
            found.append((_number(item.get("x"), where, "x"), _number(item.get("y"), where, "y")))
        cells[member] = found

    title = data.get("title")
    if title is not None and not isinstance(title, str):
        notes.append(("title", "is not text; the file name is used instead"))
        title = None
    story = data.get("story")
    if story is not None and not isinstance(story, str):
        notes.append(("story", "is not text; ignored"))
        story = None
    return _Source(_clean_text(title) if title else None, _clean_text(story) if story else None,
                   data.get("version"), rects, doors, source_notes, cells["columns"], cells["water"])


def _listed(numbers: list[int], most: int = 20) -> str:
    """``numbers`` as a comma-separated list, the first ``most`` of them and a count of the rest."""
    shown = ", ".join(map(str, numbers[:most]))
    return shown if len(numbers) <= most else f"{shown} and {len(numbers) - most} more"


def _clean_text(text: str) -> str:
    """Text with control characters removed and white space collapsed."""
    return re.sub(r"\s+", " ", "".join(c if c.isprintable() else " " for c in text)).strip()


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
    """Rooms, corridors and doorways (see the module docstring); returns the areas and the
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
                    note(rect.source, f"holds the cell of door {cell_indexes[found]}; the cell was cut out of the room "
                                      f"as a doorway")

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
            note(corridors[group[0]].source, f"overlaps rect(s) {_listed(members[1:])}; merged into one "
                                             f"corridor")
        add("corridor", "corridor", minus(without_rooms, cell_tree, cell_list), members,
            corridors[group[0]].source)
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
            pieces = [g for g in shapely.get_parts(shapely.line_merge(shared) if shared.geom_type == "MultiLineString"
                                                   else shared) if g.geom_type == "LineString" and g.length > _EPS]
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


def _free_spot(polygon: Polygon, radius: float, clearance: float, obstacles: _Obstacles,
               prefer: tuple[float, float] | None = None) -> tuple[float, float] | None:
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


# -- text -----------------------------------------------------------------------------------------

def _shorten(text: str, limit: int) -> str:
    """``text`` cut at a word to at most ``limit`` characters, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:.") + "…"


def _fit(text: str, width_mm: float, em: float) -> str:
    """``text`` shortened with an ellipsis until it is at most ``width_mm`` wide."""
    if text_width_mm(text, em) <= width_mm:
        return text
    low, high = 0, len(text)  # the longest prefix that fits with the ellipsis: binary search
    while low < high:
        middle = (low + high + 1) // 2
        if text_width_mm(text[:middle].rstrip(" ,;:.") + "…", em) <= width_mm:
            low = middle
        else:
            high = middle - 1
    text = text[:low].rstrip(" ,;:.")
    return text + "…" if text else ""


def _wrap(text: str, width_mm: float, em: float) -> list[str]:
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width_mm(f"{lines[-1]} {word}", em) <= width_mm:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


# -- the importer ---------------------------------------------------------------------------------

class _Conversion:
    def __init__(self, path: Path, options: ImportOptions):
        self.path = path
        self.options = options
        self.notes: list[tuple[str, str]] = []
        self.source = _read(path, self.notes)
        from inkcrawl.rulesets import bundled_rulesets

        rulesets = bundled_rulesets()
        self.ruleset = rulesets.get(options.ruleset or "line-classic") or rulesets["line-classic"]
        if self.ruleset.family != "line":
            self.ruleset = rulesets["line-classic"]
        limits = self.ruleset.print_limits
        self.snap_mm = float(limits.get("snap_tolerance_mm", 0.5))
        self.min_gap_mm = float(limits.get("min_gap_mm", 2.0))
        self.min_element_mm = float(limits.get("min_element_mm", 3.0))
        self.label_mm = max(LABEL_CAP_MM, float(limits.get("min_text_mm", 2.0)))
        colours = self.ruleset.key_colours
        self.steel_colour = "red" if "red" in colours or not colours else colours[0]

    def note(self, source: str, message: str) -> None:
        self.notes.append((source, message))

    def run(self) -> LineDungeonBuilder:
        source = self.source
        title = source.title or self.path.stem
        if len(title) > 120:
            self.note("title", "longer than 120 characters; shortened")
            title = _shorten(title, 120)
        builder = LineDungeonBuilder(dungeon_id=title, title=title,
                                     ruleset=self.options.ruleset or "line-classic")
        if source.version is not None and not str(source.version).startswith("1."):
            self.note("version", f"{str(source.version)[:20]!r} is not a known One Page Dungeon version (1.x); "
                                 f"read as 1.x")
        if source.story:
            story = _shorten(source.story, STORY_CHARS)
            if story != source.story:
                self.note("story", f"shortened to {STORY_CHARS} characters for the sheet's reminders")
            builder.reminders.append(story)
        self.areas, self.doorways = _build_areas(source, self.note)
        if not self.areas:
            raise ImportFailed("no area is left once the rects are merged and cut")
        self.space = _Space(self.areas)
        self.scale = self._scale()
        self.obstacles = _Obstacles()  # starts, exits, keys and labels placed
        self.elements: list[dict] = []  # pending builder elements: kind, at, size_mm, members
        self.locked: list[dict] = []  # locked doors: door, segment, lock, areas
        self.starts: list[tuple[str, tuple[float, float]]] = []  # (area id, point)
        self.no_room: set[tuple[str, float, bool]] = set()  # (area, key size, labels ignored) with no space
        for door in source.doors:
            self._door(door)
        if not self.starts:
            self._fallback_start()
        self.label_plan = self._labels(commit=False)  # keys keep clear of where the notes will go
        self._plan_keys()
        self._labels()
        self._unreachable()
        self._columns_and_water()

        for area in self.areas:
            builder.add_area(area.kind, [as_point(p) for p in area.polygon.exterior.coords[:-1]], wanted_id=area.id)
        for element in self.elements:
            kind = element.pop("kind")
            if kind == "door":
                builder.add_door(element["segment"], element["locks"], wanted_id=element["id"],
                                 name=element.get("name"))
            elif kind == "label":
                builder.add_label(element["text"], element["at"], wanted_id=element["id"],
                                  text_height_mm=self.label_mm)
            else:
                members = {k: v for k, v in element.items() if k not in ("at", "id", "size_mm")}
                builder.add_element(kind, element["at"], wanted_id=element["id"], size_mm=element["size_mm"],
                                    **members)
        self.builder = builder
        return builder

    # scale --------------------------------------------------------------------------------------
    def _scale(self) -> float:
        x0, y0, x1, y1 = self.space.union.bounds
        width, height = max(x1 - x0, _EPS), max(y1 - y0, _EPS)
        band_w = DRAWING_BAND_MM[2] - DRAWING_BAND_MM[0]
        band_h = DRAWING_BAND_MM[3] - DRAWING_BAND_MM[1]
        fit = min(band_w / width, band_h / height)
        wanted = self.options.cell_mm
        scale = wanted if wanted is not None else DEFAULT_CELL_MM
        if scale > fit:
            if wanted is not None:
                self.note("the whole map", f"{wanted:g} mm per cell would make it {width * wanted:.0f} x "
                                           f"{height * wanted:.0f} mm; scaled down to {fit:.2f} mm per cell to fit")
            scale = fit
        scale = math.floor(scale * 1000) / 1000
        if scale * 1 < self.min_gap_mm + 1:
            self.note("the whole map", f"is {width:g} x {height:g} cells; at {scale:.2f} mm per cell a one-cell "
                                       f"corridor is too narrow to draw through")
        return scale

    def mm(self, value_mm: float) -> float:
        """A length in mm in source units (cells)."""
        return value_mm / self.scale

    # doors ---------------------------------------------------------------------------------------
    def _door(self, door: _Door) -> None:
        area = self.doorways.get(door.index)
        if area is None:
            if door.type == ENTRANCE:
                self.note(door.source, "entrance without a doorway; no Start placed for it")
            return
        direction = door.direction or self._infer_direction(door, area)
        if door.direction is None:
            self.note(door.source, f"has no valid 'dir'; taken as ({direction[0]}, {direction[1]}) from the "
                                   f"neighbouring areas")
        dx, dy = direction
        into, into_piece = self.space.beyond(area, door.edge(dx, dy))
        back, back_piece = self.space.beyond(area, door.edge(-dx, -dy))
        kind = door.type
        if kind is None:
            self.note(door.source, "unknown door type; imported as an open passage")
        elif kind in (NARROW, PORTCULLIS):
            self.note(door.source, f"{door.label}: imported as an open passage (the line family has no closed door "
                                   f"without a lock)")
        elif kind == ENTRANCE:
            self._entrance(door, area, direction)
        elif kind in (SECRET, STEEL):
            lock = "skeleton" if kind == SECRET else self.steel_colour
            if into is not None:
                self.locked.append({"door": door, "segment": into_piece, "lock": lock, "areas": (area.id, into.id)})
            elif back is not None:
                self.locked.append({"door": door, "segment": back_piece, "lock": lock, "areas": (area.id, back.id)})
            else:
                self.note(door.source, f"{door.label} with no area on either side; imported as a dead-end doorway")
        elif kind in (DOWN, STAIRWELL):
            if into is not None and back is not None:
                self.note(door.source, f"{door.label} between '{back.id}' and '{into.id}': imported as an open "
                                       f"passage (inkcrawl has one level)")
            else:
                self._exit(door, area, into or back)

    def _infer_direction(self, door: _Door, area: _Area) -> tuple[int, int]:
        best = (0, -1)
        best_score = -1
        for dx, dy in _DIRECTIONS:
            into = self.space.beyond(area, door.edge(dx, dy))[0]
            back = self.space.beyond(area, door.edge(-dx, -dy))[0]
            score = (into is not None) * 2 + (back is not None if door.type != ENTRANCE else back is None)
            if score > best_score:
                best, best_score = (dx, dy), score
        return best

    def _entrance(self, door: _Door, area: _Area, direction: tuple[int, int]) -> None:
        dx, dy = direction
        order = [(-dx, -dy)] + [d for d in _DIRECTIONS if d != (-dx, -dy)]
        for side in order:
            segment = door.edge(*side)
            line = LineString(segment)
            if self.space.outer_near.covers(line) and self.space.beyond(area, segment)[0] is None:
                point = ((segment[0][0] + segment[1][0]) / 2, (segment[0][1] + segment[1][1]) / 2)
                if side != (-dx, -dy):
                    self.note(door.source, "the side the entrance faces is not an outer wall; the Start is on "
                                           "another outer edge of its cell")
                self._add_start(door, area.id, point)
                return
        found = self._outer_spot(area, door.cell.centroid)
        if found is None:
            self.note(door.source, "no area reachable from the entrance has an outer wall long enough for a Start; "
                                   "no Start placed for it")
            return
        owner, point, steps = found
        self.note(door.source, f"the entrance opens onto a courtyard (a space the dungeon encloses), and a Start "
                               f"goes on the outer boundary: the Start is on the outer wall of '{owner.id}', "
                               f"{steps} area(s) from the entrance")
        self._add_start(door, owner.id, point)

    def _outer_spot(self, first: _Area, towards: Point):
        """The area nearest to ``first`` (in areas passed, not through secret or steel doorways)
        with a stretch of outer wall long enough for a Start, the point of that stretch nearest
        ``towards``, and the number of areas passed."""
        blocked = {self.doorways[d.index].id for d in self.source.doors
                   if d.type in (SECRET, STEEL) and d.index in self.doorways}
        need = self.mm(8.0)
        index = {a.id: i for i, a in enumerate(self.areas)}
        seen = {first.id}
        layer = [first]
        steps = 0
        while layer:
            best = None
            for area in layer:
                points = list(area.polygon.exterior.coords)
                for a, b in zip(points, points[1:]):  # each straight side
                    shared = LineString([a, b]).intersection(self.space.outer_near)
                    for piece in shapely.get_parts(shared):
                        if piece.geom_type != "LineString" or piece.length < need:
                            continue
                        along = min(max(piece.project(towards), need / 2), piece.length - need / 2)
                        point = piece.interpolate(along)
                        # a short stub of wall (beside a doorway) only when there is no longer side
                        key = (piece.length < 2 * need, point.distance(towards), index[area.id])
                        if best is None or key < best[0]:
                            best = (key, area, (point.x, point.y))
            if best is not None:
                return best[1], best[2], steps
            following = []
            for area in layer:
                for other_index in self.space.tree.query(area.polygon, predicate="touches").tolist():
                    other = self.areas[other_index]
                    if other.id in seen or other.id in blocked:
                        continue
                    if other.polygon.boundary.intersection(area.polygon.boundary).length < self.mm(self.min_gap_mm):
                        continue
                    seen.add(other.id)
                    following.append(other)
            layer = sorted(following, key=lambda a: index[a.id])
            steps += 1
        return None

    def _add_start(self, door: _Door | None, area_id: str, point: tuple[float, float]) -> None:
        size = 8.0
        element_id = f"start-{door.index}" if door is not None else "start"
        disc = Point(point).buffer(self.mm(size / 2 + ELEMENT_GAP_MM))
        if self.obstacles.near(disc, 0):
            self.note(door.source if door else "doors", "its Start would overlap another Start; the other one serves")
            return
        self.elements.append({"kind": "start", "id": element_id, "at": point, "size_mm": size})
        self.obstacles.add(Point(point).buffer(self.mm(size / 2)))
        self.starts.append((area_id, point))

    def _fallback_start(self) -> None:
        first = next((a for a in self.areas if a.role == "room"), self.areas[0])
        found = self._outer_spot(first, first.polygon.centroid)
        if found is None:  # no wall long enough anywhere: the outline's first point
            point = self.space.outline.interpolate(0)
            found = (self.space.nearest((point.x, point.y)), (point.x, point.y), 0)
        owner, point, _ = found
        self.note("doors", f"no entrance (door type 3); a Start was added on the outer wall of '{owner.id}'")
        self._add_start(None, owner.id, point)

    def _exit(self, door: _Door, area: _Area, neighbour: _Area | None) -> None:
        size = max(self.min_element_mm, min(8.0, 0.75 * self.scale))
        for place in [area] + ([neighbour] if neighbour else []):
            spot = _free_spot(place.polygon, self.mm(size / 2), self.mm(ELEMENT_GAP_MM), self.obstacles,
                              prefer=as_point(door.cell.centroid.coords[0]) if place is area else None)
            if spot is not None:
                self.elements.append({"kind": "exit", "id": f"exit-{door.index}", "at": spot, "size_mm": size,
                                      "name": f"the {door.label}", "area": place.id,
                                      "source": door.source})
                self.obstacles.add(Point(spot).buffer(self.mm(size / 2)))
                self.note(door.source, f"{door.label} leading off the map: an exit in '{place.id}' (reaching it ends "
                                       f"the scrawl)")
                return
        self.note(door.source, f"{door.label} leading off the map: no room for an exit there; not imported")

    # labels --------------------------------------------------------------------------------------
    def _labels(self, commit: bool = True) -> _Obstacles:
        """Lay out the notes as labels; with ``commit`` false only where they would go (their
        boxes, so that keys can keep clear of them), without adding anything."""
        em = self.label_mm / CAP_HEIGHT_EM
        line_mm = em * 1.2
        obstacles = self.obstacles if commit else self.obstacles + _Obstacles()
        planned = _Obstacles()
        for note in self.source.notes:
            holders = self.space.containing((note.x, note.y))
            point = (note.x, note.y)
            if holders:
                area = next((a for a in holders if a.role == "room"), holders[0])
            else:
                area = self.space.nearest(point)
                spot = polylabel(area.polygon, tolerance=0.01)
                point = (spot.x, spot.y)
                if commit:
                    self.note(note.source, f"lies outside every area; its label is in the nearest area, '{area.id}'")
            layout = self._place_text(note, area, point, em, line_mm, obstacles)
            if layout is None:
                if commit:
                    self.note(note.source, f"does not fit in '{area.id}' at this scale; not printed. Text: "
                                           f"\"{_shorten(note.text, 200)}\"")
                continue
            lines, boxes = layout
            for _, _, shape in boxes:
                obstacles.add(shape)
                planned.add(shape)
            if not commit:
                continue
            key = note.ref or str(note.index)
            for number, (text, at, _) in enumerate(boxes, 1):
                element_id = f"note-{key}" if number == 1 else f"note-{key}-{number}"
                self.elements.append({"kind": "label", "id": element_id, "text": text, "at": at})
            printed = " ".join(lines)
            if printed != note.text:
                what = "only its ref is printed" if lines == [note.ref] else f"printed as \"{printed}\""
                self.note(note.source, f"shortened to fit '{area.id}': {what}; full text: "
                                       f"\"{_shorten(note.text, 300)}\"")
        return planned

    def _place_text(self, note: _Note, area: _Area, point: tuple[float, float], em: float, line_mm: float,
                    obstacles: _Obstacles):
        """The lines of the note's label and their ``(text, at, box)`` in ``area`` around ``point``,
        clear of ``obstacles``; ``None`` when not even its ref fits."""
        inner: BaseGeometry = area.polygon.buffer(-self.mm(WALL_CLEARANCE_MM), join_style="mitre")
        near = obstacles.near(area.polygon, self.mm(ELEMENT_GAP_MM))
        if near:
            inner = inner.difference(shapely.union_all(near).buffer(self.mm(ELEMENT_GAP_MM)))
        if inner.is_empty:
            return None
        if not inner.covers(Point(point)):
            nearest = nearest_points(inner, Point(point))[0]
            point = (nearest.x, nearest.y)
        minx, miny, maxx, maxy = inner.bounds
        across = inner.intersection(LineString([(minx - 1, point[1]), (maxx + 1, point[1])]))
        pieces = [g for g in shapely.get_parts(across) if g.geom_type == "LineString" and g.length > _EPS]
        if not pieces:
            return None
        piece = min(pieces, key=lambda g: g.distance(Point(point)))
        x0, _, x1, _ = piece.bounds
        width_mm = (x1 - x0) * self.scale
        wrapped = _wrap(note.text, width_mm, em)
        candidates = []
        for count in range(min(len(wrapped), int((maxy - miny) * self.scale // line_mm)), 0, -1):
            lines = wrapped[:count]
            if count < len(wrapped):
                lines[-1] = _fit(" ".join(wrapped[count - 1:]), width_mm, em)
            lines = [_fit(line, width_mm, em) for line in lines]
            if all(lines):
                candidates.append(lines)
        if note.ref and text_width_mm(note.ref, em) <= width_mm:
            candidates.append([note.ref])
        for lines in candidates:
            # centred on the note's position, moved just enough to stay inside the area
            half = self.mm(max(text_width_mm(line, em) for line in lines)) / 2
            centre_x = min(max(point[0], x0 + half), x1 - half)
            down = inner.intersection(LineString([(centre_x, miny - 1), (centre_x, maxy + 1)]))
            pieces = [g for g in shapely.get_parts(down) if g.geom_type == "LineString" and g.length > _EPS]
            if not pieces:
                continue
            _, y0, _, y1 = min(pieces, key=lambda g: g.distance(Point(centre_x, point[1]))).bounds
            if (y1 - y0) * self.scale < line_mm * len(lines):
                continue
            boxes = self._layout(lines, centre_x, point[1], y0, y1, em, line_mm)
            if all(inner.covers(b) for _, _, b in boxes):
                return lines, boxes
        return None

    def _layout(self, lines, centre_x, centre_y, top_limit, bottom_limit, em, line_mm):
        block = self.mm(line_mm * len(lines))
        top = min(max(centre_y - block / 2, top_limit), bottom_limit - block)
        result = []
        for i, text in enumerate(lines):
            baseline = top + self.mm(i * line_mm + (line_mm + (CAP_HEIGHT_EM - DESCENT_EM) * em) / 2)
            half = self.mm(text_width_mm(text, em)) / 2
            shape = box(centre_x - half, baseline - self.mm(CAP_HEIGHT_EM * em), centre_x + half,
                        baseline + self.mm(DESCENT_EM * em))
            result.append((text, (centre_x, baseline), shape))
        return result

    # keys and locked doors ---------------------------------------------------------------------------
    def _connections(self) -> list:
        """The open gaps and door connections the validator will see (its own geometry code on
        the areas and locked doors scaled onto the sheet)."""
        from inkcrawl.geometry import build_geometry, door_areas
        from inkcrawl.model import LineDungeon, dungeon_from_dict
        from inkcrawl.printed import area_connections

        probe = LineDungeonBuilder(dungeon_id="probe", title="probe")
        for area in self.areas:
            probe.add_area(area.kind, [as_point(p) for p in area.polygon.exterior.coords[:-1]], wanted_id=area.id)
        for locked in self.locked:
            probe.add_door(tuple(locked["segment"].coords), [locked["lock"]], wanted_id=f"door-{locked['door'].index}")
        dungeon = dungeon_from_dict(probe.build(cell_mm=self.scale))
        assert isinstance(dungeon, LineDungeon)  # the builder makes line dungeons
        geometry = build_geometry(dungeon, snap_mm=self.snap_mm)
        doors = []
        for element in dungeon.elements_of("door"):
            found = door_areas(geometry, element, self.snap_mm)
            if len(found) == 2:
                doors.append((element, found[0], found[1]))
        return area_connections(geometry, doors, self.min_gap_mm)

    @staticmethod
    def _reach(starts: list[str], connections, opened: set[str]) -> dict[str, int]:
        neighbours: dict[str, list[str]] = {}
        for c in connections:
            if c.kind == "open" or (c.kind == "door" and c.door_id in opened):
                neighbours.setdefault(c.a, []).append(c.b)
                neighbours.setdefault(c.b, []).append(c.a)
        steps = {s: 0 for s in starts}
        queue = deque(starts)
        while queue:
            area = queue.popleft()
            for other in neighbours.get(area, ()):
                if other not in steps:
                    steps[other] = steps[area] + 1
                    queue.append(other)
        return steps

    def _plan_keys(self) -> None:
        connections = self._connections()
        placed_ids = {c.door_id for c in connections if c.kind == "door"}
        for locked in list(self.locked):
            if f"door-{locked['door'].index}" not in placed_ids:
                self.note(locked["door"].source, f"{locked['door'].label}: the door does not sit between two areas; "
                                                 f"imported as an open passage")
                self.locked.remove(locked)
        open_pairs = {frozenset((c.a, c.b)) for c in connections if c.kind == "open"}
        for locked in self.locked:
            if frozenset(locked["areas"]) in open_pairs:
                self.note(locked["door"].source, f"{locked['door'].label}: its doorway also opens onto "
                                                 f"'{locked['areas'][1]}' beside the door, so the lock can be walked "
                                                 f"around (validation warns: L009)")
        starts = sorted({a for a, _ in self.starts})
        opened: set[str] = set()
        colours_held: set[str] = set()  # key colours reachable so far ("any" for a skeleton key)
        pending = list(self.locked)
        self.opened_doors: list[dict] = []
        while pending:
            steps = self._reach(starts, connections, opened)
            ready = [d for d in pending if d["areas"][0] in steps or d["areas"][1] in steps]
            if not ready:
                break
            # coloured locks first: their key then opens the skeleton locks too
            locked = min(ready, key=lambda d: (d["lock"] == "skeleton", min(steps.get(a, 1 << 30) for a in d["areas"]),
                                               d["door"].index))
            pending.remove(locked)
            door, lock = locked["door"], locked["lock"]
            door_id = f"door-{door.index}"
            if lock == "skeleton" and colours_held:
                self.note(door.source, f"{door.label}: a door with a skeleton lock (any key opens it); the key "
                                       f"already reachable opens it")
            elif lock != "skeleton" and lock in colours_held:
                self.note(door.source, f"{door.label}: a door with a {lock} lock; the {lock} key already "
                                       f"reachable opens it")
            else:
                kind = "skeleton_key" if lock == "skeleton" else "key"
                spot = self._key_spot(steps, kind)
                if spot is None:
                    self.note(door.source, f"{door.label}: no reachable room has space for its key; imported as an "
                                           f"open passage")
                    connections = [c if c.door_id != door_id else type(c)(c.a, c.b, "open") for c in connections]
                    continue
                area_id, at, size = spot
                number = sum(1 for e in self.elements if e["kind"] == kind) + 1
                element = {"kind": kind, "id": f"{'key-' + lock if kind == 'key' else 'skeleton-key'}-{number}",
                           "at": at, "size_mm": size, "area": area_id}
                if kind == "key":
                    element["colour"] = lock
                self.elements.append(element)
                self.obstacles.add(Point(at).buffer(self.mm(size / 2)))
                colours_held.add(lock if kind == "key" else "any")
                what = f"a {lock} key" if kind == "key" else "a skeleton key"
                lock_text = "a skeleton lock (any key opens it)" if lock == "skeleton" else f"a {lock} lock"
                self.note(door.source, f"{door.label}: a door with {lock_text}; {what} was placed in '{area_id}', "
                                       f"reachable without this door")
            if lock == "skeleton":
                colours_held.add("any")
            opened.add(door_id)
            self.elements.append({"kind": "door", "id": door_id, "segment": tuple(locked["segment"].coords),
                                  "locks": [lock], "name": door.label.capitalize()})
        for locked in pending:
            door = locked["door"]
            self.note(door.source, f"{door.label}: no Start reaches it; imported as an open passage")
            door_id = f"door-{door.index}"
            connections = [c if c.door_id != door_id else type(c)(c.a, c.b, "open") for c in connections]
            opened.add(door_id)
        self.final_reach = self._reach(starts, connections, opened)

    def _key_spot(self, steps: dict[str, int], kind: str):
        mentions: set[str] = set()
        for note in self.source.notes:
            if re.search(r"\bkeys?\b", note.text, re.IGNORECASE):
                mentions.update(a.id for a in self.space.containing((note.x, note.y)))
        order = {a.id: i for i, a in enumerate(self.areas)}
        holding = {e.get("area") for e in self.elements if e["kind"] in ("key", "skeleton_key")}
        candidates = sorted((a for a in self.areas if a.id in steps),
                            key=lambda a: (a.role != "room", a.id in holding, a.id not in mentions, -steps[a.id],
                                           order[a.id]))
        # clear of the planned labels if possible, else the labels make way
        for obstacles in (self.obstacles + self.label_plan, self.obstacles):
            for size in (6.0, 4.5, self.min_element_mm):
                for area in candidates:
                    if (area.id, size, len(obstacles.items) == len(self.obstacles.items)) in self.no_room:
                        continue
                    spot = _free_spot(area.polygon, self.mm(size / 2), self.mm(WALL_CLEARANCE_MM), obstacles)
                    if spot is not None:
                        return area.id, spot, size
                    # obstacles only ever grow: no room now means no room later
                    self.no_room.add((area.id, size, len(obstacles.items) == len(self.obstacles.items)))
        return None

    def _unreachable(self) -> None:
        reach = self.final_reach
        missing = [a.id for a in self.areas if a.id not in reach]
        kept = []
        for element in self.elements:
            area = element.pop("area", None)
            source = element.pop("source", None)
            if element["kind"] == "exit" and area is not None and area not in reach:
                self.note(source, f"its exit in '{area}' cannot be reached from any Start; not imported")
                continue
            kept.append(element)
        self.elements = kept
        if missing:
            shown = ", ".join(missing[:12]) + (f" and {len(missing) - 12} more" if len(missing) > 12 else "")
            self.note("rects", f"{len(missing)} area(s) cannot be reached from the entrance (no opening or door "
                               f"leads there): {shown}; validation warns about them (L020)")

    def _columns_and_water(self) -> None:
        for member, items, what in (("columns", self.source.columns, "column"),
                                    ("water", self.source.water, "water cell")):
            if not items:
                continue
            where: dict[str, int] = {}
            outside = 0
            for x, y in items:
                probe = (x, y) if member == "columns" else (x + 0.5, y + 0.5)
                holders = self.space.containing(probe)
                if holders:
                    where[holders[0].id] = where.get(holders[0].id, 0) + 1
                else:
                    outside += 1
            inside = ", ".join(f"{area} ({count})" for area, count in sorted(where.items()))
            detail = f" in {inside}" if inside else ""
            if outside:
                detail += f"{';' if inside else ''} {outside} outside the dungeon"
            self.note(member, f"{len(items)} {what}{'s' if len(items) != 1 else ''}{detail} not imported: inkcrawl "
                              f"has no decoration element and they are no obstacle for the line")


class WatabouImporter:
    """The watabou One Page Dungeon importer plugin."""

    name = "watabou"
    description = "watabou One Page Dungeon JSON"

    def detect(self, path: Path, head: bytes) -> bool:
        """A JSON object with ``rects`` and ``doors`` lists."""
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not text.startswith(b"{"):
            return False
        try:
            data = json.loads(head.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            # cut at 64 KiB, or broken: look for both lists (only the rects when the head is cut
            # inside a long rects list)
            rects = re.search(rb'"rects"\s*:\s*\[\s*(\{\s*"[xywh]"|\])', head)
            doors = re.search(rb'"doors"\s*:\s*\[', head)
            return bool(rects and (doors or len(head) >= 65536))
        return isinstance(data, dict) and isinstance(data.get("rects"), list) and isinstance(data.get("doors"), list)

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        """Convert a One Page Dungeon JSON file (see the module docstring for the mapping)."""
        from inkcrawl.importers import ImportNote

        conversion = _Conversion(path, options)
        try:
            builder = conversion.run()
        except (shapely.errors.GEOSException, ValueError) as exc:
            if isinstance(exc, ImportFailed):
                raise
            raise ImportFailed(f"the geometry could not be built ({type(exc).__name__}: {exc})"[:300]) from None
        dungeon = builder.build(cell_mm=conversion.scale)
        notes = [ImportNote(source, message) for source, message in conversion.notes] + builder.notes
        return ImportResult(dungeon, notes)


IMPORTER = WatabouImporter()
