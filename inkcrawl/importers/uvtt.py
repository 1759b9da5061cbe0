"""Universal VTT importer (``.dd2vtt``, ``.uvtt``, ``.df2vtt``) -> line family.

A Universal VTT file (Dungeondraft, Dungeon Alchemist, DungeonFog...) describes a battle map
for virtual tabletops: ``line_of_sight`` and ``objects_line_of_sight`` polylines (walls and
object outlines, in grid cells), ``portals`` (doors, open or closed, with a ``bounds``
segment), ``lights``, and the map picture as base64 ``image``. It has walls but no rooms, so
the rooms are derived from the walls (docs/importing-uvtt.md explains every rule):

1. Points are read in cells with ``resolution.map_origin`` subtracted. Each polyline loses its
   near-duplicate points (closer than :data:`DUPLICATE_CELLS`) and its collinear points
   (within :data:`COLLINEAR_CELLS` of the simplified line, Douglas-Peucker); a polyline whose
   ends almost meet is closed. Wall ends that stop just short of another wall (within
   :data:`SNAP_CELLS`) are moved onto it. Every count goes into a note.
2. Walls, the ``bounds`` of the portals and a frame (the map rectangle, grown to hold every
   wall) are noded on a :data:`GRID_CELLS` grid and polygonized into faces.
3. Faces are classified: the *outside* (a face open to the map edge on at least
   :data:`MAP_EDGE_SHARE` of its outline), *obstacles* (inside a closed object outline),
   *slivers* (below :data:`MIN_FACE_CELLS2` or :data:`MIN_FACE_WIDTH`), *solid* faces (no portal, not
   touching the outside: the rock between rooms, a pillar drawn as a wall ring) and *rooms*
   (the rest; long thin rooms become corridors).
4. Areas cannot have holes: a hole holding only obstacles or solid faces is filled and its
   outline becomes an explicit wall (an obstacle inside the room); a hole holding another
   room is cut open by vertical lines, the room becoming several areas joined by open gaps.
5. A wall piece is implicit where it is the outline between a room and the non-room
   (inkcrawl's outline is a wall there); every other wall piece (between two rooms, inside
   a room, outside every room) is an explicit wall. Portal bounds are never walls.
6. Portals between two rooms become openings (gaps in the explicit walls), open or closed:
   an inkcrawl door is always locked and needs a key, a closed VTT door is merely shut, so
   closed portals are noted. Gaps narrower than the ruleset's ``min_gap_mm`` between the
   printed wall ink are widened. Freestanding portals, portals inside one room or outside every room
   are noted and left out.
7. One Start goes on the first portal that leads outside, otherwise on the middle of the
   longest outer wall of the largest room that has one (Universal VTT has no entrance).

When no room is found (walls that never close, or no walls), the whole map becomes one room
with every wall drawn inside it. Lights, the environment and the image are ignored (noted).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, MultiLineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from inkcrawl.geoarrays import as_point, point_array
from inkcrawl.importers import ImportFailed, ImportOptions, ImportResult, json_kind
from inkcrawl.importers.build import DRAWING_BAND_MM, LineDungeonBuilder
from inkcrawl.shapes import OUTLINE_WALL_MM

EXTENSIONS = (".dd2vtt", ".uvtt", ".df2vtt")
#: Default printed size of one grid cell in mm (shrunk to fit the sheet by the builder).
DEFAULT_CELL_MM = 5.0
#: Consecutive points closer than this (cells) are near-duplicates; the second one goes.
DUPLICATE_CELLS = 0.02
#: Points within this distance (cells) of the simplified line are collinear and removed.
COLLINEAR_CELLS = 0.01
#: A wall end this close (cells) to another wall is moved onto it.
SNAP_CELLS = 0.02
#: Noding grid (cells): walls and portals are snap-rounded to it before polygonizing.
GRID_CELLS = 1 / 1024
#: Faces smaller than this (square cells) or narrower than this (cells) are slivers of
#: imprecise wall joints or doubled walls, not rooms.
MIN_FACE_CELLS2 = 0.05
MIN_FACE_WIDTH = 0.1
#: A portal end off every wall moves to a wall end this close (cells): it fills a gap in a wall.
PORTAL_SNAP_CELLS = 0.25
#: A face open to the map edge on at least this share of its outline is the outside.
MAP_EDGE_SHARE = 1 / 3
#: A room at most this wide (cells) and at least this many times longer is a corridor.
CORRIDOR_MAX_WIDTH = 2.0
CORRIDOR_MIN_ASPECT = 3.0
#: Limits against hostile files (the file itself is limited to 64 MiB by inkcrawl.jsonio).
MAX_POINTS = 100_000
MAX_POLYLINES = 20_000
MAX_PORTALS = 5_000
MAX_COORDINATE = 100_000.0
#: Smallest printed cell (mm) a map may shrink to when fitted to A4 (``--cell-mm``'s minimum).
MIN_SCALE_MM = 0.5
#: Top-level members this importer knows (others are noted).
KNOWN_MEMBERS = {
    "format",
    "resolution",
    "line_of_sight",
    "objects_line_of_sight",
    "portals",
    "environment",
    "lights",
    "image",
    "software",
    "creator",
}

_FORMAT_PATTERN = re.compile(rb'"format"\s*:\s*0(\.\d+)?\s*[,}]')
_TOLERANCE = GRID_CELLS * 2


def _fmt(value: float) -> str:
    return f"{round(value, 3):g}"


def _at(point: tuple[float, float]) -> str:
    return f"({_fmt(point[0])}, {_fmt(point[1])})"


@dataclass
class _Line:
    source: str  # "line_of_sight 3 at (7, 2)"
    points: list[tuple[float, float]]  # cells, origin subtracted
    obstacle: bool  # from objects_line_of_sight

    @property
    def closed(self) -> bool:
        return len(self.points) >= 4 and self.points[0] == self.points[-1]


@dataclass
class _Portal:
    source: str  # "portal 2 at (7, 9)"
    a: tuple[float, float]
    b: tuple[float, float]
    closed: bool
    freestanding: bool


class UniversalVttImporter:
    """The ``uvtt`` importer plugin (see the module docstring)."""

    name = "uvtt"
    description = "Universal VTT .dd2vtt/.uvtt/.df2vtt: walls, portals"

    def detect(self, path: Path, head: bytes) -> bool:
        """A Universal VTT extension (whatever the content: a broken file is then reported by
        :meth:`convert`), or a JSON object with ``format`` 0.x, ``resolution`` and
        ``line_of_sight`` in its first 64 KiB."""
        if path.suffix.lower() in EXTENSIONS:
            return True
        return (
            head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
            and b'"resolution"' in head
            and b'"line_of_sight"' in head
            and _FORMAT_PATTERN.search(head) is not None
        )

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        """Convert ``path``; raises :class:`ImportFailed` on input it cannot handle."""
        data = _read(path)
        builder = LineDungeonBuilder(
            dungeon_id=path.stem, title=_title(path), ruleset=options.ruleset or "line-classic"
        )
        origin, size = _resolution(data, builder)
        lines = _polylines(data, origin, builder)
        portals = _portals(data, origin, builder)
        _ignored_members(data, builder)
        lines = _simplify(lines, builder)
        lines = _snap_ends(lines, builder)
        try:
            _derive(lines, portals, size, origin, builder, options)
        except shapely.errors.GEOSException as exc:
            raise ImportFailed(f"the walls could not be turned into rooms ({exc})") from exc
        dungeon = builder.build(options.cell_mm, DEFAULT_CELL_MM)
        _tidy(dungeon, builder)
        return ImportResult(dungeon, builder.notes)


IMPORTER = UniversalVttImporter()


# reading -------------------------------------------------------------------------------------
def _title(path: Path) -> str:
    return re.sub(r"[_\s]+", " ", path.stem).strip() or "Imported map"


def _read(path: Path) -> dict:
    from inkcrawl.jsonio import MAX_FILE_BYTES, read_json_file

    data, problems = read_json_file(path)
    if problems:
        message = problems[0].message
        if problems[0].code == "F006" and "larger" in message:
            message += (
                f" ({MAX_FILE_BYTES // 2**20} MiB); the embedded map image makes Universal VTT files "
                f"large: export again with a smaller image (fewer pixels per grid) or without it"
            )
        raise ImportFailed(message)
    if not isinstance(data, dict):
        raise ImportFailed(f"not a Universal VTT file: the top level is {json_kind(data)}, not an object")
    return data


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ImportFailed(f"{where} must be a number, found {json_kind(value)}")
    number = float(value)
    if not math.isfinite(number) or abs(number) > MAX_COORDINATE:
        raise ImportFailed(f"{where} is {value!r}: coordinates must be finite and within ±{MAX_COORDINATE:g} cells")
    return round(number, 9) + 0.0  # no subnormal dust (and no -0.0)


def _point(value, where: str) -> tuple[float, float]:
    if isinstance(value, dict) and "x" in value and "y" in value:
        return _number(value["x"], f"{where} x"), _number(value["y"], f"{where} y")
    if isinstance(value, list) and len(value) == 2:
        return _number(value[0], f"{where} x"), _number(value[1], f"{where} y")
    raise ImportFailed(f'{where} must be a point {{"x": ..., "y": ...}}, found {json_kind(value)}')


def _resolution(data: dict, builder: LineDungeonBuilder) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """``(map_origin, map_size)`` in cells; ``map_size`` is ``None`` when missing or unusable."""
    version = data.get("format")
    if isinstance(version, bool) or not isinstance(version, (int, float)):
        builder.note("format", f"missing or not a number ({json_kind(version)}); read as Universal VTT 0.3")
    elif not 0 <= version < 1:
        builder.note("format", f"version {version:g} is not the 0.x this importer knows; read as 0.3")
    resolution = data.get("resolution")
    if not isinstance(resolution, dict):
        raise ImportFailed(
            "no 'resolution' object: not a Universal VTT file (one has resolution.map_origin, "
            "map_size and pixels_per_grid, and line_of_sight walls)"
        )
    origin = (0.0, 0.0)
    if "map_origin" in resolution:
        origin = _point(resolution["map_origin"], "resolution.map_origin")
    else:
        builder.note("resolution.map_origin", "missing; taken as (0, 0)")
    size = None
    if "map_size" in resolution:
        size = _point(resolution["map_size"], "resolution.map_size")
        if size[0] <= 0 or size[1] <= 0:
            builder.note("resolution.map_size", f"{_at(size)} is not a positive size; the walls' extent is used")
            size = None
    else:
        builder.note("resolution.map_size", "missing; the walls' extent is used")
    return origin, size


def _polylines(data: dict, origin: tuple[float, float], builder: LineDungeonBuilder) -> list[_Line]:
    lines: list[_Line] = []
    points_seen = 0
    for member, obstacle in (("line_of_sight", False), ("objects_line_of_sight", True)):
        if member not in data or data[member] is None:
            if member == "line_of_sight":
                builder.note("line_of_sight", "missing: the map has no walls")
            continue
        polylines = data[member]
        if not isinstance(polylines, list):
            raise ImportFailed(f"{member} must be a list of polylines, found {json_kind(polylines)}")
        if len(lines) + len(polylines) > MAX_POLYLINES:
            raise ImportFailed(f"{member}: too many polylines (more than {MAX_POLYLINES:,} in all)")
        for index, polyline in enumerate(polylines, start=1):
            where = f"{member} {index}"
            if not isinstance(polyline, list):
                raise ImportFailed(f"{where} must be a list of points, found {json_kind(polyline)}")
            points_seen += len(polyline)
            if points_seen > MAX_POINTS:
                raise ImportFailed(
                    f"the walls have more than {MAX_POINTS:,} points; inkcrawl imports maps up to that "
                    f"size (is this a real map?)"
                )
            raw = [_point(p, f"{where} point {n}") for n, p in enumerate(polyline, start=1)]
            source = f"{where} at {_at(raw[0])}" if raw else where
            lines.append(_Line(source, [(x - origin[0], y - origin[1]) for x, y in raw], obstacle))
    return lines


def _portals(data: dict, origin: tuple[float, float], builder: LineDungeonBuilder) -> list[_Portal]:
    portals_data = data.get("portals")
    if portals_data is None:
        return []
    if not isinstance(portals_data, list):
        raise ImportFailed(f"portals must be a list, found {json_kind(portals_data)}")
    if len(portals_data) > MAX_PORTALS:
        raise ImportFailed(f"too many portals ({len(portals_data):,}; at most {MAX_PORTALS:,})")
    portals = []
    for index, portal in enumerate(portals_data, start=1):
        where = f"portal {index}"
        if not isinstance(portal, dict):
            builder.note(where, f"is {json_kind(portal)}, not an object; left out")
            continue
        position = _point(portal["position"], f"{where} position") if "position" in portal else None
        bounds = portal.get("bounds")
        if not isinstance(bounds, list) or len(bounds) != 2:
            source = f"{where} at {_at(position)}" if position else where
            builder.note(source, "has no two-point 'bounds'; left out")
            continue
        a = _point(bounds[0], f"{where} bounds point 1")
        b = _point(bounds[1], f"{where} bounds point 2")
        position = position or ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        source = f"{where} at {_at(position)}"
        closed = portal.get("closed", True)
        if not isinstance(closed, bool):
            builder.note(source, f"'closed' is {json_kind(closed)}, not true/false; taken as closed")
            closed = True
        freestanding = portal.get("freestanding", False) is True
        shift = lambda p: (p[0] - origin[0], p[1] - origin[1])
        portals.append(_Portal(source, shift(a), shift(b), closed, freestanding))
    return portals


def _ignored_members(data: dict, builder: LineDungeonBuilder) -> None:
    image = data.get("image")
    if isinstance(image, str) and image:
        builder.note(
            "image",
            f"the embedded map picture ({len(image):,} characters of base64) is ignored: the sheet "
            f"is drawn from the walls",
        )
    elif image == "":
        builder.note("image", "empty (no map picture); the sheet is drawn from the walls")
    elif image is not None:
        builder.note("image", f"is {json_kind(image)}, not base64 text; ignored")
    lights = data.get("lights")
    if isinstance(lights, list) and lights:
        builder.note("lights", f"{len(lights)} light(s) ignored: a paper sheet has no lighting")
    elif lights not in (None, []):
        builder.note("lights", f"is {json_kind(lights)}, not a list; ignored")
    if isinstance(data.get("environment"), dict) and data["environment"]:
        builder.note("environment", "ambient light and baked lighting are ignored")
    for key in sorted(k for k in data if k not in KNOWN_MEMBERS)[:20]:
        builder.note(str(key)[:60], "not a Universal VTT member inkcrawl uses; ignored")


# cleaning ------------------------------------------------------------------------------------
def _drop_near_duplicates(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Consecutive points closer than :data:`DUPLICATE_CELLS` merged; the polyline keeps both
    its ends, and a polyline whose ends are that close becomes a closed ring."""
    kept: list[tuple[float, float]] = []
    for index, point in enumerate(points):
        if kept and math.dist(point, kept[-1]) < DUPLICATE_CELLS:
            if index == len(points) - 1 and len(kept) > 1:
                kept[-1] = point  # keep the end point where it is
            continue
        kept.append(point)
    if len(kept) >= 4 and kept[0] != kept[-1] and math.dist(kept[0], kept[-1]) < DUPLICATE_CELLS:
        kept[-1] = kept[0]  # the ends almost meet: close the ring
    return kept


def simplify_points(points: list[tuple[float, float]]) -> tuple[list[tuple[float, float]], int, int]:
    """One polyline cleaned: ``(points, near-duplicates removed, collinear points removed)``.
    A closed ring stays closed (its first point repeated at the end)."""
    kept = _drop_near_duplicates(points)
    duplicates = len(points) - len(kept)
    if len(kept) < 3:
        return kept, duplicates, 0
    simplified = shapely.simplify(LineString(kept), COLLINEAR_CELLS, preserve_topology=False)
    result = [as_point(c) for c in shapely.get_coordinates(simplified)]
    if len(result) < 2 or (kept[0] == kept[-1] and len(result) < 4):
        result = kept  # too small a ring or line to simplify
    return result, duplicates, len(kept) - len(result)


def _simplify(lines: list[_Line], builder: LineDungeonBuilder) -> list[_Line]:
    totals: dict[str, list[int]] = {}
    kept = []
    for line in lines:
        member = line.source.split(" ")[0]
        points, duplicates, collinear = simplify_points(line.points)
        count = totals.setdefault(member, [0, 0, 0])
        count[0] += duplicates
        count[1] += collinear
        count[2] += len(line.points)
        if len(set(points)) < 2:
            builder.note(
                line.source,
                f"has {len(set(points))} distinct point(s) after removing near-duplicates; a wall needs 2: left out",
            )
            continue
        kept.append(_Line(line.source, points, line.obstacle))
    for member, (duplicates, collinear, total) in totals.items():
        if duplicates or collinear:
            builder.note(
                member,
                f"simplified: {duplicates} near-duplicate point(s) (closer than {DUPLICATE_CELLS:g} "
                f"cells) and {collinear} collinear point(s) (within {COLLINEAR_CELLS:g} cells of the "
                f"line) removed of {total}",
            )
    return kept


def _snap_ends(lines: list[_Line], builder: LineDungeonBuilder) -> list[_Line]:
    """Open polylines whose end stops within :data:`SNAP_CELLS` of another polyline are
    extended onto it (onto its nearest vertex when one is that close)."""
    if len(lines) < 2:
        return lines
    geoms = [LineString(line.points) for line in lines]
    tree = shapely.STRtree(geoms)
    moved = 0
    for index, line in enumerate(lines):
        if line.closed:
            continue
        for end in (0, -1):
            point = Point(line.points[end])
            best = None
            for other in tree.query(point, predicate="dwithin", distance=SNAP_CELLS).tolist():
                if other == index:
                    continue
                gap = geoms[other].distance(point)
                if gap == 0:
                    best = None
                    break
                if best is None or gap < best[0]:
                    best = (gap, other)
            if best is None:
                continue
            target = geoms[best[1]]
            vertices = shapely.get_coordinates(target)
            near = np.hypot(*(vertices - line.points[end]).T)
            if near.min() <= SNAP_CELLS:
                new = as_point(vertices[int(near.argmin())])
            else:
                new = as_point(shapely.get_coordinates(target.interpolate(target.project(point)))[0])
            points = list(line.points)
            points[end] = new
            line.points = points
            moved += 1
    if moved:
        builder.note(
            "line_of_sight",
            f"{moved} wall end(s) stopping short of another wall (within {SNAP_CELLS:g} cells) moved onto it",
        )
    return lines


# rooms from walls --------------------------------------------------------------------------
def _snap_portals(portals: list[_Portal], lines: list[_Line], builder: LineDungeonBuilder) -> list[_Portal]:
    """Freestanding and point-like portals are left out (noted). A portal end that is not on a
    wall is moved to the nearest wall end within :data:`PORTAL_SNAP_CELLS` (the portal fills the
    gap in the wall), or onto a wall within :data:`SNAP_CELLS`."""
    kept = []
    for portal in portals:
        if portal.freestanding:
            builder.note(portal.source, "freestanding door (not set in a wall): left out")
        elif math.dist(portal.a, portal.b) < DUPLICATE_CELLS:
            builder.note(portal.source, "its bounds are a single point: left out")
        else:
            kept.append(portal)
    if not kept or not lines:
        return kept
    geoms = [LineString(line.points) for line in lines]
    tree = shapely.STRtree(geoms)
    ends = np.array(
        [p for line in lines if not line.closed for p in (line.points[0], line.points[-1])] or [(math.inf, math.inf)]
    )
    for portal in kept:
        moved = []
        for end in ("a", "b"):
            point = getattr(portal, end)
            near = tree.query(Point(point), predicate="dwithin", distance=max(PORTAL_SNAP_CELLS, SNAP_CELLS))
            gaps = [geoms[i].distance(Point(point)) for i in near.tolist()]
            if not gaps or min(gaps) <= GRID_CELLS:
                continue
            distances = np.hypot(*(ends - point).T)
            if distances.min() <= PORTAL_SNAP_CELLS:
                target = as_point(ends[int(distances.argmin())])
            elif min(gaps) <= SNAP_CELLS:
                wall = geoms[near.tolist()[int(np.argmin(gaps))]]
                target = as_point(shapely.get_coordinates(wall.interpolate(wall.project(Point(point))))[0])
            else:
                continue
            if target != (portal.b if end == "a" else portal.a):
                setattr(portal, end, target)
                moved.append(math.dist(point, target))
        if moved:
            builder.note(
                portal.source, f"{len(moved)} end(s) moved up to {_fmt(max(moved))} cells onto the wall it stands in"
            )
    return kept


@dataclass
class _Faces:
    """The walls, portals and map frame noded and polygonized: ``segments`` (2-point pieces)
    with flags, ``faces`` with the segments of their rings, ``sides`` (segment -> faces)."""

    frame_box: Polygon
    segments: list
    is_wall: np.ndarray
    is_portal: np.ndarray
    is_frame: np.ndarray
    faces: list
    face_segments: list
    sides: dict
    walls: BaseGeometry  # the noded walls alone


def _faces(lines: list[_Line], portals: list[_Portal], size: tuple[float, float] | None) -> _Faces:
    wall_geoms = [LineString(line.points) for line in lines]
    portal_geoms = [LineString([p.a, p.b]) for p in portals]
    xs = [0.0] + ([size[0]] if size else [])
    ys = [0.0] + ([size[1]] if size else [])
    for geom in wall_geoms + portal_geoms:
        x0, y0, x1, y1 = geom.bounds
        xs += [x0, x1]
        ys += [y0, y1]
    frame_box = box(min(xs), min(ys), max(xs), max(ys))
    if frame_box.area <= 0:
        raise ImportFailed("nothing to import: no walls, no portals and no map size")
    frame = frame_box.exterior
    walls = shapely.union_all(wall_geoms, grid_size=GRID_CELLS) if wall_geoms else MultiLineString()
    noded = shapely.union_all([*wall_geoms, *portal_geoms, frame], grid_size=GRID_CELLS)
    segments = _segments(noded)
    mids = point_array(np.array([((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in segments]).reshape(-1, 2))
    is_wall = _near(shapely.STRtree(list(shapely.get_parts(walls))) if not walls.is_empty else None, mids)
    is_portal = _near(shapely.STRtree(portal_geoms) if portal_geoms else None, mids)
    is_frame = np.asarray(shapely.dwithin(frame, mids, _TOLERANCE))
    index_of = {seg: i for i, seg in enumerate(segments)}
    faces = [f for f in shapely.get_parts(shapely.polygonize(shapely.get_parts(noded))) if f.area > 0]
    face_segments = [
        [index_of.get(_key(a, b)) for ring in _rings(face) for a, b in zip(ring[:-1], ring[1:])] for face in faces
    ]
    sides: dict[int, list[int]] = {}
    for f, segs in enumerate(face_segments):
        for s in segs:
            if s is not None:
                sides.setdefault(s, []).append(f)
    return _Faces(frame_box, segments, is_wall, is_portal, is_frame, faces, face_segments, sides, walls)


def _classify(graph: _Faces, lines: list[_Line]) -> tuple[list[str], list[int]]:
    """Each face's kind (``outside``, ``sliver``, ``obstacle``, ``solid`` or ``room``) and the
    rooms closed partly by the map edge."""
    length = [math.dist(a, b) for a, b in graph.segments]
    obstacles = [shapely.make_valid(Polygon(line.points)) for line in lines if line.obstacle and line.closed]
    obstacles = [p for p in obstacles if p.area > 0]
    obstacle_tree = shapely.STRtree(obstacles) if obstacles else None
    kinds, map_edge = [], []
    for f, face in enumerate(graph.faces):
        segs = [s for s in graph.face_segments[f] if s is not None]
        open_edge = sum(length[s] for s in segs if graph.is_frame[s] and not graph.is_wall[s])
        if open_edge > 0 and open_edge >= MAP_EDGE_SHARE * face.length:
            kinds.append("outside")
        elif face.area < MIN_FACE_CELLS2 or _width(face) < MIN_FACE_WIDTH:
            kinds.append("sliver")
        elif obstacle_tree is not None and len(obstacle_tree.query(face.representative_point(), predicate="within")):
            kinds.append("obstacle")
        else:
            kinds.append("room")
            if open_edge > 0:
                map_edge.append(f)
    for f in range(len(graph.faces)):
        if kinds[f] != "room" or any(graph.is_portal[s] for s in graph.face_segments[f] if s is not None):
            continue
        neighbours = []
        for s in graph.face_segments[f]:
            others = [g for g in graph.sides.get(s, []) if g != f] if s is not None else []
            neighbours.append(others[0] if others else None)
        if all(g is not None and kinds[g] in ("room", "obstacle", "solid") for g in neighbours):
            kinds[f] = "solid"  # sealed and surrounded: the rock between rooms, a pillar drawn as walls
    return kinds, map_edge


def _width(polygon: Polygon) -> float:
    """Twice the radius of the largest circle inside ``polygon``."""
    if hasattr(shapely, "maximum_inscribed_circle"):
        return 2 * float(shapely.maximum_inscribed_circle(polygon, GRID_CELLS * 4).length)
    from shapely.ops import polylabel

    return 2 * float(polygon.exterior.distance(polylabel(polygon, GRID_CELLS * 4)))


def _rooms(graph: _Faces, kinds: list[str], where, builder: LineDungeonBuilder) -> tuple[list, list]:
    """The area polygons ``[(face, polygon)]`` in reading order, and each face's owning room
    (``None``: no room). Holes are filled (obstacles, solid faces) or cut open (other rooms)."""
    faces = graph.faces
    owner = [f if kinds[f] == "room" else None for f in range(len(faces))]
    point_tree = shapely.STRtree([face.representative_point() for face in faces])
    areas = []
    for f, face in enumerate(faces):
        if kinds[f] != "room":
            continue
        filled, cut = [], []
        for hole in face.interiors:
            inside = point_tree.query(Polygon(hole), predicate="contains").tolist()
            if any(kinds[g] == "room" for g in inside):
                cut.append(hole)
                continue
            for g in inside:
                owner[g] = f
            filled.append(sorted({kinds[g] for g in inside}))
        if filled:
            what = " and ".join(sorted({k for kinds_inside in filled for k in kinds_inside})) or "empty"
            builder.note(
                where(face),
                f"{len(filled)} enclosed region(s) inside it ({what}: a pillar, an object) are "
                f"kept as walls standing in the room; an area has no holes",
            )
        pieces = [Polygon(face.exterior)]
        if cut:
            pieces = _cut(Polygon(face.exterior, cut), cut)
            builder.note(
                where(face),
                f"surrounds {len(cut)} other room(s); an area has no holes, so it is split into "
                f"{len(pieces)} areas joined by open gaps",
            )
        areas += [(f, polygon) for polygon in map(_clean_polygon, pieces) if polygon is not None]
    areas.sort(key=lambda item: (round(item[1].bounds[1], 3), round(item[1].bounds[0], 3)))
    return areas, owner


def _explicit_walls(graph: _Faces, owner: list, fallback: bool):
    """The wall pieces that are not a room's outline facing the non-room (inkcrawl draws
    those as walls anyway): between two rooms, inside a room, outside every room."""
    explicit = []
    for s, segment in enumerate(graph.segments):
        if not graph.is_wall[s] or graph.is_portal[s]:
            continue
        faces = graph.sides.get(s, [])
        owners = {owner[g] for g in faces}
        if len(faces) == 1:
            owners.add(None)  # beyond every face
        if fallback or not faces or not (len(owners) == 2 and None in owners):
            explicit.append(LineString(segment))
    return shapely.line_merge(shapely.union_all(explicit)) if explicit else MultiLineString()


def _derive(
    lines: list[_Line],
    portals: list[_Portal],
    size: tuple[float, float] | None,
    origin: tuple[float, float],
    builder: LineDungeonBuilder,
    options: ImportOptions,
) -> None:
    def where(face: Polygon) -> str:  # a face named by a point inside it, in the file's coordinates
        point = face.representative_point()
        return f"room at {_at((point.x + origin[0], point.y + origin[1]))}"

    portals = _snap_portals(portals, lines, builder)
    graph = _faces(lines, portals, size)
    kinds, map_edge = _classify(graph, lines)
    if kinds.count("sliver"):
        builder.note(
            "line_of_sight",
            f"{kinds.count('sliver')} sliver(s) between walls (smaller than "
            f"{MIN_FACE_CELLS2:g} square cells or narrower than {MIN_FACE_WIDTH:g} cells) "
            f"are not rooms",
        )
    if kinds.count("solid"):
        builder.note(
            "line_of_sight",
            f"{kinds.count('solid')} region(s) closed by walls, without a portal and "
            f"surrounded by rooms (rock, pillars) are not rooms",
        )
    areas, owner = _rooms(graph, kinds, where, builder)
    for f in map_edge:
        builder.note(where(graph.faces[f]), "is closed by the map edge, not by walls; the map edge becomes its wall")
    fallback = not areas
    if fallback:
        builder.note(
            "line_of_sight",
            "no room enclosed by walls was found: the whole map is one room, with every wall drawn inside it",
        )
        areas = [(-1, _clean_polygon(graph.frame_box))]
    explicit_walls = _explicit_walls(graph, owner, fallback)
    wall_tree = shapely.STRtree(list(shapely.get_parts(graph.walls))) if not graph.walls.is_empty else None
    for portal in portals:
        middle = Point((portal.a[0] + portal.b[0]) / 2, (portal.a[1] + portal.b[1]) / 2)
        if wall_tree is not None and len(wall_tree.query(middle, predicate="dwithin", distance=_TOLERANCE)):
            builder.note(portal.source, "a wall runs across it; the wall is cut open there")

    area_polygons = [polygon for _, polygon in areas]
    scale = _scale(area_polygons, explicit_walls, options.cell_mm)
    if scale < MIN_SCALE_MM:
        x0, y0, x1, y1 = shapely.union_all([*area_polygons, explicit_walls]).bounds
        raise ImportFailed(
            f"the map spans {_fmt(x1 - x0)} x {_fmt(y1 - y0)} cells: on A4 a cell would be "
            f"{scale:.2g} mm, less than {MIN_SCALE_MM:g} mm (walls far outside the map?)"
        )
    area_polygons = [polygon for _, polygon in areas]
    area_tree = shapely.STRtree(area_polygons)
    outer = _outer_band(area_polygons)
    names = _add_areas(areas, builder)
    # the gap between the ink of the walls either side must be min_gap_mm (inkcrawl.printed)
    needed = (_min_gap_mm(options.ruleset) + OUTLINE_WALL_MM + 0.25) / scale
    entrances, cuts = [], []
    for portal in portals:
        left, right = _sides(portal, area_tree)
        room = left if left is not None else right  # a room on one side at least (None: neither)
        length = math.dist(portal.a, portal.b)
        if left is not None and right is not None and left != right:
            if portal.closed:
                builder.note(
                    portal.source,
                    f"closed door between {names[left]} and {names[right]}: printed as an open "
                    f"gap (an inkcrawl door is locked and needs a key; a closed VTT door is "
                    f"only shut); add a door element there to lock it",
                )
            if length < needed:
                builder.note(
                    portal.source,
                    f"gap of {length * scale:.1f} mm at the printed scale widened to "
                    f"{needed * scale:.1f} mm, wide enough to pass under the ruleset",
                )
                cuts.append(_widened(portal, needed))
        elif room is None:
            builder.note(portal.source, "lies outside every room: left out")
        elif left == right:
            builder.note(portal.source, f"lies inside {names[room]}, not between two rooms: left out (the way is open)")
        else:
            middle = Point((portal.a[0] + portal.b[0]) / 2, (portal.a[1] + portal.b[1]) / 2)
            if outer.contains(middle):
                entrances.append((portal, middle, names[room]))
            else:
                builder.note(
                    portal.source,
                    "leads out of the rooms into a closed space (a courtyard, rock): the "
                    "room's outline is a wall there",
                )
    if cuts and not explicit_walls.is_empty:
        explicit_walls = explicit_walls.difference(shapely.union_all(cuts).buffer(_TOLERANCE, cap_style="flat"))
    if not explicit_walls.is_empty:
        for piece in shapely.get_parts(shapely.line_merge(explicit_walls)):
            if piece.length * scale >= 0.05:
                simplified = shapely.simplify(piece, GRID_CELLS / 4, preserve_topology=False)
                builder.add_wall([as_point(c) for c in shapely.get_coordinates(simplified)])
    _place_start(entrances, areas, outer, names, origin, builder)


def _segments(noded) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    seen: dict[tuple[tuple[float, float], tuple[float, float]], None] = {}
    for part in shapely.get_parts(noded):
        coords = [as_point(c) for c in shapely.get_coordinates(part)]
        for a, b in zip(coords[:-1], coords[1:]):
            if a != b:
                seen.setdefault(_key(a, b), None)
    return list(seen)


def _key(a, b) -> tuple:
    a, b = (float(a[0]), float(a[1])), (float(b[0]), float(b[1]))
    return (a, b) if a <= b else (b, a)


def _rings(polygon: Polygon):
    yield [tuple(c) for c in polygon.exterior.coords]
    for hole in polygon.interiors:
        yield [tuple(c) for c in hole.coords]


def _near(tree, points) -> np.ndarray:
    flags = np.zeros(len(points), dtype=bool)
    if tree is not None and len(points):
        hits, _ = tree.query(points, predicate="dwithin", distance=_TOLERANCE)
        flags[hits] = True
    return flags


def _cut(polygon: Polygon, holes) -> list[Polygon]:
    """``polygon`` cut by a vertical line through each of ``holes`` into hole-free pieces."""
    pieces = [polygon]
    for hole in holes:
        x = Polygon(hole).representative_point().x
        new = []
        for piece in pieces:
            x0, y0, x1, y1 = piece.bounds
            if not x0 < x < x1:
                new.append(piece)
                continue
            for half in (box(x0 - 1, y0 - 1, x, y1 + 1), box(x, y0 - 1, x1 + 1, y1 + 1)):
                new += [
                    p
                    for p in shapely.get_parts(piece.intersection(half))
                    if isinstance(p, Polygon) and p.area >= MIN_FACE_CELLS2 / 10
                ]
        pieces = new
    return [Polygon(p.exterior) for p in pieces]


def _clean_polygon(polygon: Polygon) -> Polygon | None:
    """A simple polygon without collinear or repeated vertices, or ``None``."""
    polygon = shapely.simplify(Polygon(polygon.exterior), GRID_CELLS / 4, preserve_topology=True)
    if not isinstance(polygon, Polygon) or polygon.is_empty or not polygon.is_valid or polygon.area <= 0:
        return None
    return shapely.orient_polygons(polygon) if hasattr(shapely, "orient_polygons") else polygon


def _add_areas(areas, builder: LineDungeonBuilder) -> list[str]:
    """Add the areas (long narrow ones are corridors); returns each area's description."""
    names = []
    for _, polygon in areas:
        width = _width(polygon)
        corridor = width <= CORRIDOR_MAX_WIDTH and polygon.area / max(width, 1e-9) >= CORRIDOR_MIN_ASPECT * width
        kind = "corridor" if corridor else "room"
        area_id = builder.add_area(kind, [as_point(c) for c in polygon.exterior.coords[:-1]])
        names.append(f"{kind} {area_id}")
    return names


def _scale(polygons, walls, cell_mm: float | None) -> float:
    """The mm per cell :meth:`LineDungeonBuilder.build` will use (same rule)."""
    geoms = [*polygons] + ([walls] if not walls.is_empty else [])
    x0, y0, x1, y1 = shapely.union_all(geoms).bounds if geoms else (0, 0, 1, 1)
    width, height = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
    band_w = DRAWING_BAND_MM[2] - DRAWING_BAND_MM[0]
    band_h = DRAWING_BAND_MM[3] - DRAWING_BAND_MM[1]
    scale = cell_mm if cell_mm is not None else DEFAULT_CELL_MM
    return min(scale, band_w / width, band_h / height)


def _tidy(dungeon: dict, builder: LineDungeonBuilder) -> None:
    """After rounding to 0.001 mm: area vertices that merged are removed, walls reduced to a
    point are dropped (noted)."""
    for area in dungeon["areas"]:
        polygon = [p for i, p in enumerate(area["polygon"]) if p != area["polygon"][i - 1]]
        if len(polygon) != len(area["polygon"]):
            builder.note(f"area {area['id']}", "vertices that merged at the printed scale were removed")
            area["polygon"] = polygon
    kept = []
    for wall in dungeon["walls"]:
        points = [p for i, p in enumerate(wall["points"]) if i == 0 or p != wall["points"][i - 1]]
        if len(points) < 2:
            builder.note(f"wall {wall['id']}", "shorter than 0.001 mm at the printed scale: left out")
            continue
        kept.append({**wall, "points": points})
    dungeon["walls"] = kept
    # the Start checked against the outline as the rule checks compute it (in mm, after rounding):
    # a pinch between rooms can be outside in cells and a hole in mm
    from inkcrawl.geometry import build_geometry
    from inkcrawl.model import LineDungeon, dungeon_from_dict

    built = dungeon_from_dict(dungeon)
    assert isinstance(built, LineDungeon)  # the builder makes line dungeons
    # leaving a room out prints its neighbours' shared sides: it can narrow them in turn
    for _ in range(len(dungeon["areas"])):
        if not _drop_narrow_areas(dungeon, builder):
            break
        built = dungeon_from_dict(dungeon)
        assert isinstance(built, LineDungeon)
    outline = build_geometry(built).outline
    for element in dungeon["elements"]:
        if element["kind"] == "start" and not outline.is_empty:
            start = Point(element["at"])
            gap = outline.distance(start)
            if gap > 0.05:
                moved = shapely.get_coordinates(outline.interpolate(outline.project(start)))[0]
                element["at"] = [round(float(moved[0]), 3), round(float(moved[1]), 3)]
                builder.note(f"element {element['id']}", f"moved {gap:.1f} mm onto the outline of the dungeon")


def _drop_narrow_areas(dungeon: dict, builder: LineDungeonBuilder) -> bool:
    """Leave out the rooms no line fits in at the printed scale (the printed sheet's own test,
    :func:`inkcrawl.printed.narrow_areas`, L034: slivers between walls), with the elements and
    doors in them, each noted (a Start stays: it moves onto the outline left); ``True`` when
    something was left out. Raises
    :class:`ImportFailed` when no room is left."""
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.printed import sheet_of
    from inkcrawl.rulesets import bundled_rulesets

    ruleset = bundled_rulesets().get(dungeon.get("ruleset") or "line-classic")
    if ruleset is None:
        return False
    sheet = sheet_of(dungeon_from_dict(dungeon), ruleset)  # type: ignore[arg-type]  # a line dungeon
    geometry, required, narrow = sheet.geometry, sheet.required_mm, sheet.narrow
    if not narrow:
        return False
    if len(narrow) == len(geometry.areas):
        raise ImportFailed(
            f"no room is wide enough for a line at the printed scale (a line needs {required:g} mm "
            f"of paper between the walls' ink); give a larger --cell-mm"
        )
    gone = {geometry.areas[i].id: geometry.polygons[i] for i in narrow}
    kept = shapely.union_all([p for i, p in enumerate(geometry.polygons) if i not in narrow])
    for area_id, width in ((geometry.areas[i].id, w) for i, w in narrow.items()):
        builder.note(
            f"area {area_id}",
            f"leaves at most {width:.2g} mm of paper between the walls' ink at the "
            f"printed scale, less than a line needs: left out",
        )
    dungeon["areas"] = [a for a in dungeon["areas"] if a["id"] not in gone]
    lost = shapely.union_all(list(gone.values()))
    elements = []
    for element in dungeon["elements"]:
        where = element.get("at") or (element.get("segment") or [None])[0]
        geom = LineString(element["segment"]) if element.get("segment") else Point(where) if where else None
        if element["kind"] != "start" and geom is not None and geom.intersects(lost) and not geom.within(kept):
            builder.note(f"element {element['id']}", "lay in a room left out (too narrow for a line): left out")
            continue
        elements.append(element)
    dungeon["elements"] = elements
    return True


def _min_gap_mm(ruleset_id: str | None) -> float:
    try:
        from inkcrawl.rulesets import bundled_rulesets

        ruleset = bundled_rulesets().get(ruleset_id or "line-classic")
        return float(ruleset.print_limits["min_gap_mm"]) if ruleset else 2.0
    except (RuntimeError, KeyError, TypeError, ValueError):
        return 2.0


def _sides(portal: _Portal, tree) -> tuple[int | None, int | None]:
    """The areas on either side of a portal's middle (``None``: no area)."""
    (ax, ay), (bx, by) = portal.a, portal.b
    length = math.hypot(bx - ax, by - ay)
    nx, ny = -(by - ay) / length, (bx - ax) / length
    mx, my = (ax + bx) / 2, (ay + by) / 2
    offset = min(0.05, length / 4)
    found = []
    for sign in (1, -1):
        hits = tree.query(Point(mx + sign * nx * offset, my + sign * ny * offset), predicate="intersects").tolist()
        found.append(hits[0] if hits else None)
    return found[0], found[1]


def _widened(portal: _Portal, length: float) -> LineString:
    (ax, ay), (bx, by) = portal.a, portal.b
    mx, my = (ax + bx) / 2, (ay + by) / 2
    ux, uy = (bx - ax), (by - ay)
    norm = math.hypot(ux, uy)
    ux, uy = ux / norm * length / 2, uy / norm * length / 2
    return LineString([(mx - ux, my - uy), (mx + ux, my + uy)])


def _outer_band(polygons: list[Polygon]):
    """A thin band around the dungeon's outline (where a Start may go): the exterior rings of
    the union of the areas, kept only where they are also the exterior once cracks narrower
    than :data:`SNAP_CELLS` (slivers left out between rooms) are closed."""
    union = shapely.union_all(polygons)
    closed = shapely.make_valid(
        union.buffer(SNAP_CELLS / 2, join_style="mitre").buffer(-SNAP_CELLS / 2, join_style="mitre")
    )
    bands = []
    for geometry in (union, closed):
        parts = [p for p in shapely.get_parts(geometry) if isinstance(p, Polygon)]
        rings = shapely.union_all(shapely.get_exterior_ring(parts)) if parts else LineString()
        bands.append(rings.buffer(_TOLERANCE, cap_style="flat"))
    return bands[0].intersection(bands[1])


def _place_start(entrances, areas, band, names, origin, builder: LineDungeonBuilder) -> None:
    if entrances:
        portal, midpoint, name = entrances[0]
        builder.add_element("start", (midpoint.x, midpoint.y), wanted_id="start")
        builder.note(
            portal.source, f"leads outside: the Start is placed there (on {name}); Universal VTT has no entrance"
        )
        for portal, _, name in entrances[1:]:
            builder.note(portal.source, f"leads outside from {name}: the outline is a wall there (one Start)")
        return
    order = sorted(range(len(areas)), key=lambda i: -areas[i][1].area)
    for index in order:
        ring = [as_point(c) for c in areas[index][1].exterior.coords]
        # the longest straight stretch of this room's outline that is on the dungeon's outline
        edges = [(math.dist(a, b), a, b) for a, b in zip(ring[:-1], ring[1:]) if band.contains(LineString([a, b]))]
        if not edges:
            continue
        _, a, b = max(edges)
        at = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        builder.add_element("start", at, wanted_id="start")
        builder.note(
            f"Start at {_at((at[0] + origin[0], at[1] + origin[1]))}",
            f"Universal VTT has no entrance: placed in the middle of the longest outer wall of the largest "
            f"room ({names[index]}); move it where the party enters",
        )
        return
    # no straight outer wall (a degenerate outline): the first outline vertex of the largest room
    polygon = areas[order[0]][1]
    inside = [c for c in polygon.exterior.coords if band.contains(Point(c))]
    at = as_point((inside or list(polygon.exterior.coords))[0])
    builder.add_element("start", at, wanted_id="start")
    builder.note(
        f"Start at {_at((at[0] + origin[0], at[1] + origin[1]))}",
        f"Universal VTT has no entrance: placed on a corner of the outline of {names[order[0]]}; move it "
        f"where the party enters",
    )
