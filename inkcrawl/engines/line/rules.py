"""A line dungeon entry compiled for the referee: shapely geometry, spatial indexes, samples.

:class:`LineRules` checks the entry (:mod:`.check`), then compiles it once in small steps:
areas, walls (one network, :mod:`inkcrawl.engines.wall_network`), connections and doors,
elements (footprint, printed ink, head, traces), Starts, the sample points of cover and trace,
and artifact groups. :meth:`LineRules.for_pen` adds what depends on the pen width, once per
width. The referee's stages (:mod:`.path`, :mod:`.pieces`, :mod:`.events`, :mod:`.walk`,
:mod:`.score`) read it and never change it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely import STRtree

from inkcrawl.engines.line.check import DEFAULT_SWITCHES, check_entry
from inkcrawl.engines.line.errors import GameDataError
from inkcrawl.engines.wall_network import WallNetwork, close_channels, wall_network
from inkcrawl.geoarrays import linestring_array, point_array

INF = math.inf

#: Abilities the referee knows (the game data's ``characters.<id>.ability``).
ABILITIES = ("treasure_by_touch", "plant_vp", "artifacts_any_order", "spell_by_circle", "monster_by_head")
#: Pass through: least angle (degrees, around the element's centre) between entry and exit.
PASS_THROUGH_MIN_ANGLE = 90.0
#: Radius of a Start when the data gives none (mm).
DEFAULT_START_RADIUS_MM = 4.0
#: How close (mm) a boundary crossing must be to a door's segment to go through that door.
DOOR_TOLERANCE_MM = 1.0
#: A wall crossed this close (mm along the path) to a change of area counts as that change's.
WALL_SNAP_MM = 1.0
#: Target number of cover samples per footprint, and their largest spacing (mm).
COVER_SAMPLES = 2500
COVER_MAX_SPACING_MM = 0.25
#: Spacing (mm) of the sample points along a trace.
TRACE_SPACING_MM = 0.1
#: Most cells of the lattice laid over one element's ink or head to sample it (about 400 times
#: ``COVER_SAMPLES``): a sliver whose bounding box is huge for its area is refused, not sampled.
MAX_LATTICE_CELLS = 1_000_000
#: Most trace sample points of one dungeon (200 km of traces at ``TRACE_SPACING_MM``).
MAX_TRACE_SAMPLES = 2_000_000
#: Positions along the path closer than this (in segments) are one position.
T_EPS = 1e-7

#: What each polygon and line of :class:`PenGeometry` is: an area outline, the footprint of an
#: element whose runs matter, an element's touch zone, a wall segment.
ROLE_AREA, ROLE_FOOT, ROLE_ZONE, ROLE_WALL, ROLE_INK = 0, 1, 2, 3, 4
#: The region of a piece of path outside every area, and of an undrawn portal jump.
VOID, JUMP = -1, -2


@dataclass
class Element:
    """One element of the entry, compiled: ``area`` is an area index (``VOID``: none)."""

    index: int
    data: dict
    id: str
    kind: str
    name: str | None
    area: int
    interaction: str
    vp: int | None
    penalty: bool
    footprint: Any = None  # shapely Polygon or None
    ink: Any = None  # the printed glyph (shapely (Multi)Polygon), else the footprint
    at: tuple[float, float] | None = None
    number: int | None = None
    colour: str | None = None
    channel: str | None = None
    min_coverage: float = 0.9
    trace_pen_widths: float = 1.0
    traces: list = field(default_factory=list)  # list of (n, 2) arrays
    head: Any = None


@dataclass
class Door:
    """A door between two areas (ids in ``pair``) with its locks and its segment."""

    id: str | None
    pair: frozenset
    locks: list[str]
    geom: Any


@dataclass
class WallSegments:
    """The wall network split into 2-point segments: ends ``a`` and ``b``, the network line
    (``wall``) and the segment's index along it (``index``) of each, and their shapely lines."""

    a: np.ndarray
    b: np.ndarray
    wall: np.ndarray
    index: np.ndarray
    geoms: np.ndarray


@dataclass
class Samples:
    """Sample points of some elements (cover lattices, heads, traces), stacked: element ``k``'s
    points are ``points[slices[k]]``; ``geoms`` are the same points as shapely points."""

    elements: list[Element]
    points: np.ndarray
    slices: list[slice]
    geoms: np.ndarray


@dataclass
class ArtifactGroup:
    """Consecutive artifact stones by number, judged together; ``area`` is the area holding
    most of them (ties: the lowest numbered stone's area)."""

    index: int
    stones: list[Element]
    area: int
    label: str


@dataclass
class PenGeometry:
    """What depends on the pen width: each footprint element's touch ``zones`` (its ink grown by
    ``w/2``), the ``polygons`` pieces of path are classified against (areas, run footprints,
    zones) and the ``lines`` the path is split at (their boundaries, wall segments, the edges of
    the walls' solid ink, :attr:`WallNetwork.solid`), with each
    one's role (``ROLE_*``) and index within its kind (``refs``), and their trees."""

    zones: list
    zone_tree: Any
    polygons: np.ndarray
    roles: np.ndarray
    refs: np.ndarray
    poly_tree: Any
    lines: np.ndarray
    line_roles: np.ndarray
    line_refs: np.ndarray
    line_tree: Any

    def __getitem__(self, name: str):
        """Read a member by name, as from a dict (``rules.for_pen(w)["zones"]``)."""
        return getattr(self, name)


def describe(element: Element) -> str:
    """How the breakdown names an element: ``monster m1 (Rat)``."""
    kind = element.kind.replace("_", " ")
    return f"{kind} {element.id}" + (f" ({element.name})" if element.name else "")


# -- compile steps ----------------------------------------------------------------------------


def _points(value, what: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise GameDataError(f"{what} is not a list of [x, y] points") from None
    if array.ndim != 2 or array.shape[1] != 2 or not np.isfinite(array).all():
        raise GameDataError(f"{what} is not a list of [x, y] points")
    return array


def compile_areas(areas: list[dict]) -> list:
    """The outline polygon of each area; refuses outlines that are not valid polygons."""
    polygons = []
    for i, area in enumerate(areas):
        if len(area["polygon"]) < 3:
            raise GameDataError(f"areas[{i}] ({area['id']}).polygon: an area outline needs at least 3 points")
        polygon = shapely.Polygon(_points(area["polygon"], f"area {area['id']!r} polygon"))
        if not polygon.is_valid or polygon.area <= 0:
            raise GameDataError(
                f"areas[{i}] ({area['id']}).polygon: not a valid outline (it crosses itself or encloses no area)"
            )
        polygons.append(polygon)
    return polygons


def ink_edges(network: WallNetwork) -> np.ndarray:
    """The edges of the walls' solid ink (:attr:`WallNetwork.solid`) as 2-point shapely lines, so
    the path is split where it enters and leaves a wall's ink."""
    if network.solid is None or network.solid.is_empty:
        return np.array([], dtype=object)
    rings = shapely.get_rings(shapely.get_parts(network.solid))
    coords, index = shapely.get_coordinates(rings, return_index=True)
    same = index[1:] == index[:-1]
    a, b = coords[:-1][same], coords[1:][same]
    keep = np.any(a != b, axis=1)
    return linestring_array(np.stack([a[keep], b[keep]], axis=1)) if keep.any() else np.array([], dtype=object)


def compile_walls(walls: list[dict]) -> tuple[WallNetwork, WallSegments]:
    """One noded network of the wall centre lines (explicit walls' free ends grown by their
    ink's round cap), and its 2-point segments."""
    lines, widths, capped = [], [], []
    for wall in walls:
        lines.append(_points(wall["points"], f"wall {wall.get('id')!r}"))
        width = wall.get("width_mm")
        widths.append(float(width) if isinstance(width, (int, float)) and width > 0 else 0.0)
        capped.append(wall.get("kind", "wall") == "wall")
    network = wall_network(lines, widths, capped)
    seg_a, seg_b, seg_wall, seg_index = [], [], [], []
    for w, points in enumerate(network.lines):
        for i in range(len(points) - 1):
            if not np.array_equal(points[i], points[i + 1]):
                seg_a.append(points[i])
                seg_b.append(points[i + 1])
                seg_wall.append(w)
                seg_index.append(i)
    a = np.array(seg_a).reshape(-1, 2)
    b = np.array(seg_b).reshape(-1, 2)
    geoms = linestring_array(np.stack([a, b], axis=1)) if len(seg_a) else np.array([], dtype=object)
    return network, WallSegments(a, b, np.array(seg_wall, dtype=int), np.array(seg_index, dtype=int), geoms)


def compile_connections(connections: list[dict]) -> tuple[set[frozenset], list[Door]]:
    """The pairs of area ids joined by an opening, and the doors."""
    open_pairs: set[frozenset] = set()
    doors: list[Door] = []
    for connection in connections:
        kind = connection.get("kind")
        if kind == "open":
            open_pairs.add(frozenset((connection["a"], connection["b"])))
        elif kind == "door":
            segment = _points(connection["segment"], f"door {connection.get('door')!r} segment")
            doors.append(
                Door(
                    connection.get("door"),
                    frozenset((connection["a"], connection["b"])),
                    list(connection.get("locks") or []),
                    shapely.LineString(segment),
                )
            )
    return open_pairs, doors


def _polygon(points, what: str):
    polygon = shapely.Polygon(_points(points, what))
    return polygon if polygon.is_valid else shapely.make_valid(polygon)


def _ink(element: Element, rings: list | None) -> Any:
    """The element's printed ink (the union of its rings), else its footprint."""
    if rings:
        parts = [_polygon(ring, f"element {element.id!r} ink") for ring in rings]
        ink = shapely.union_all([p for p in parts if p.area > 0])
        if not ink.is_empty and ink.area > 0:
            return ink
    return element.footprint


def _traces(element: Element, data: dict) -> list:
    """What tracing the element means: a spell's strokes, a treasure's outline, else the
    footprint's boundary."""
    if data.get("trace"):
        return [_points(s, f"element {element.id!r} trace") for s in data["trace"]]
    if data.get("outline"):
        return [_points(data["outline"], f"element {element.id!r} outline")]
    if element.footprint is not None:
        return [np.asarray(element.footprint.exterior.coords)]
    return []


def compile_element(index: int, data: dict, area_index: dict[str, int]) -> Element:
    """One element: its area, interaction, tolerances and shapes."""
    tolerance = data.get("tolerance") or {}
    area = data.get("area")
    element = Element(
        index=index,
        data=data,
        id=str(data["id"]),
        kind=str(data["kind"]),
        name=data.get("name"),
        area=area_index.get(area, VOID) if area is not None else VOID,
        interaction=str(data.get("interaction") or "none"),
        vp=data.get("vp"),
        penalty=bool(data.get("penalty")),
        number=data.get("number"),
        colour=data.get("colour"),
        channel=data.get("channel"),
        min_coverage=float(tolerance.get("min_coverage", 0.9)),
        trace_pen_widths=float(tolerance.get("max_distance_pen_widths", 1.0)),
    )
    if data.get("at") is not None:
        element.at = (float(data["at"][0]), float(data["at"][1]))
    if data.get("footprint"):
        polygon = _polygon(data["footprint"], f"element {element.id!r} footprint")
        if polygon.area > 0:
            element.footprint = polygon
            if element.at is None:
                c = polygon.centroid
                element.at = (c.x, c.y)
    element.ink = _ink(element, data.get("ink"))
    if data.get("head"):
        head = shapely.Polygon(_points(data["head"], f"element {element.id!r} head"))
        if head.is_valid and head.area > 0:
            element.head = head
    if element.interaction == "trace":
        element.traces = _traces(element, data)
    return element


def compile_starts(
    starts: list[dict], element_by_id: dict[str, Element], area_index: dict[str, int], area_polygons: list
) -> list[dict]:
    """Each Start: ``{"id", "at", "radius", "area"}`` (an area index); refuses a dungeon with none."""
    out = []
    for start in starts:
        at = tuple(float(v) for v in start["at"])
        source = element_by_id.get(start["id"])
        size = source.data.get("size_mm") if source is not None else None
        radius = float(size) / 2 if isinstance(size, (int, float)) and size > 0 else DEFAULT_START_RADIUS_MM
        if start.get("area") is not None:
            area = area_index[start["area"]]
        else:  # the area whose outline holds the Start: the nearest one
            point = shapely.points(at)
            area = min(range(len(area_polygons)), key=lambda i: float(shapely.distance(area_polygons[i], point)))
        out.append({"id": start["id"], "at": at, "radius": radius, "area": area})
    if not out:
        raise GameDataError("starts: the dungeon has no Start")
    return out


def _lattice(
    polygon, target: int = COVER_SAMPLES, max_spacing: float = COVER_MAX_SPACING_MM, what: str = "a footprint"
) -> np.ndarray:
    """Sample points inside ``polygon``: one in each cell of a square lattice (about ``target``
    of them), at a fixed pseudo-random place in its cell (jittered sampling, the same for every
    run). A plain lattice would move the covered fraction a whole row at a time under a stroke
    edge parallel to its rows (up to 5 percentage points); jittered, it stays within 1. Refuses
    (:class:`GameDataError` starting with ``what``) a polygon needing more than
    :data:`MAX_LATTICE_CELLS` cells."""
    area = polygon.area
    spacing = min(max_spacing, math.sqrt(area / target)) if area > 0 else max_spacing
    x0, y0, x1, y1 = polygon.bounds
    cells = math.ceil((x1 - x0) / spacing) * math.ceil((y1 - y0) / spacing)
    if cells > MAX_LATTICE_CELLS:  # checked before anything is allocated
        raise GameDataError(
            f"{what}: too thin to sample: its bounding box ({x1 - x0:.6g} x {y1 - y0:.6g} mm) is too large for "
            f"its area ({area:.6g} mm²): {cells:,} lattice cells, at most {MAX_LATTICE_CELLS:,}"
        )
    xs = np.arange(x0, x1, spacing)
    ys = np.arange(y0, y1, spacing)
    gx, gy = np.meshgrid(xs, ys)
    jitter = np.random.default_rng(LATTICE_SEED).random((2, gx.size))
    gx, gy = gx.ravel() + jitter[0] * spacing, gy.ravel() + jitter[1] * spacing
    inside = shapely.contains_xy(polygon, gx, gy)
    points = np.column_stack([gx[inside], gy[inside]])
    if not len(points):
        c = polygon.representative_point()
        points = np.array([[c.x, c.y]])
    return points


#: Seed of the cover samples' jitter (fixed: the same play always scores the same).
LATTICE_SEED = 20261201


def _densify(points: np.ndarray, spacing: float = TRACE_SPACING_MM) -> np.ndarray:
    """The vertices of a polyline plus points every ``spacing`` mm along it."""
    out = [points[:1]]
    for a, b in zip(points[:-1], points[1:]):
        n = max(1, int(math.ceil(float(np.hypot(*(b - a))) / spacing)))
        f = np.arange(1, n + 1)[:, None] / n
        out.append(a + f * (b - a))
    return np.concatenate(out)


def _member(element: Element, name: str) -> str:
    """How a refusal names a member of an element: ``elements[3] (m1).footprint``."""
    return f"elements[{element.index}] ({element.id}).{name}"


def _stack(elements: list[Element], pieces: list[np.ndarray]) -> Samples:
    slices, start = [], 0
    for piece in pieces:
        slices.append(slice(start, start + len(piece)))
        start += len(piece)
    points = np.concatenate(pieces) if pieces else np.zeros((0, 2))
    # shapely points of every sample, made once (the queries against each play's path reuse them)
    return Samples(elements, points, slices, point_array(points))


def cover_samples(elements: list[Element]) -> Samples:
    """A lattice inside the ink of every element completed by cover."""
    cover = [e for e in elements if e.footprint is not None and e.interaction == "cover"]
    return _stack(cover, [_lattice(e.ink, what=_member(e, "ink" if e.data.get("ink") else "footprint")) for e in cover])


def head_samples(elements: list[Element]) -> Samples:
    """A lattice inside every monster's head (the Barbarian's target; not bosses)."""
    heads = [e for e in elements if e.head is not None and e.kind != "boss"]
    return _stack(heads, [_lattice(e.head, what=_member(e, "head")) for e in heads])


def trace_samples(elements: list[Element]) -> Samples:
    """Points every ``TRACE_SPACING_MM`` along the traces of every element completed by trace."""
    trace = [e for e in elements if e.interaction == "trace" and e.traces]
    total = 0
    for e in trace:  # counted before anything is allocated
        total += sum(int(np.ceil(np.hypot(*np.diff(s, axis=0).T) / TRACE_SPACING_MM).sum()) + 1 for s in e.traces)
        if total > MAX_TRACE_SAMPLES:
            raise GameDataError(
                f"{_member(e, 'trace' if e.data.get('trace') else 'outline')}: the traces are too long to sample "
                f"(more than {MAX_TRACE_SAMPLES:,} points every {TRACE_SPACING_MM} mm)"
            )
    return _stack(trace, [np.concatenate([_densify(s) for s in e.traces]) for e in trace])


def _stone_number(stone: Element) -> int:
    return stone.number if stone.number is not None else 0  # (only numbered stones are grouped)


def artifact_groups(elements: list[Element], size: int) -> list[ArtifactGroup]:
    """The stones split into groups of ``size`` consecutive numbers, each with its home area."""
    stones = sorted(
        (e for e in elements if e.interaction == "connect_in_order" and e.number is not None), key=_stone_number
    )
    groups: dict[int, list[Element]] = {}
    for stone in stones:
        groups.setdefault((_stone_number(stone) - 1) // size, []).append(stone)
    out = []
    for g, members in sorted(groups.items()):
        counts: dict[int, int] = {}
        for stone in members:
            counts[stone.area] = counts.get(stone.area, 0) + 1
        home = max(counts, key=lambda a: (counts[a], -min(_stone_number(s) for s in members if s.area == a)))
        out.append(ArtifactGroup(g, members, home, f"artifact stones {members[0].number}-{members[-1].number}"))
    return out


def pen_geometry(rules: LineRules, w: float) -> PenGeometry:
    """The geometry of :class:`PenGeometry` for pen width ``w``."""
    zones = [e.ink.buffer(w / 2, quad_segs=16) for e in rules.fp_elements]
    polygons = [*rules.area_polygons, *(e.footprint for e in rules.run_elements), *zones]
    roles = np.array(
        [ROLE_AREA] * len(rules.area_polygons) + [ROLE_FOOT] * len(rules.run_elements) + [ROLE_ZONE] * len(zones),
        dtype=int,
    )
    refs = np.array([*range(len(rules.area_polygons)), *range(len(rules.run_elements)), *range(len(zones))], dtype=int)
    polygons_arr = np.array(polygons, dtype=object)
    wall_geoms = rules.wall_segments.geoms
    lines = np.array([*shapely.boundary(polygons_arr).tolist(), *wall_geoms.tolist()], dtype=object)
    edges = rules.ink_edges
    lines = np.concatenate([lines, edges]) if len(edges) else lines
    line_roles = np.concatenate([roles, np.full(len(wall_geoms), ROLE_WALL), np.full(len(edges), ROLE_INK)]).astype(int)
    line_refs = np.concatenate([refs, np.arange(len(wall_geoms)), np.arange(len(edges))]).astype(int)
    return PenGeometry(
        zones=zones,
        zone_tree=STRtree(zones) if zones else None,
        polygons=polygons_arr,
        roles=roles,
        refs=refs,
        poly_tree=STRtree(polygons_arr),
        lines=lines,
        line_roles=line_roles,
        line_refs=line_refs,
        line_tree=STRtree(lines),
    )


# -- the compiled dungeon ---------------------------------------------------------------------


class LineRules:
    """A line dungeon entry of the game data, compiled for the referee (geometry built once).

    Raises :class:`GameDataError` when the entry is not a playable line dungeon.
    """

    def __init__(self, entry: dict):
        if not isinstance(entry, dict) or entry.get("family") != "line":
            raise GameDataError("the game data entry is not a line-family dungeon")
        check_entry(entry)
        self.entry = entry
        self.id = entry["id"]
        self.title = entry.get("title") or self.id
        self.pen_width_mm = float(entry["pen_width_mm"])
        self.players = entry.get("players") or {"min": 1, "max": 4}
        self.switches = dict(entry.get("switches") or {})
        self.scoring = {row.get("term"): row for row in entry.get("scoring") or []}
        self.characters = entry.get("characters") or {}
        self.end_triggers = list(entry.get("end_triggers") or [])
        self.orb_tokens = {c: list(v) for c, v in (entry.get("orb_tokens") or {}).items()}
        self.areas = list(entry["areas"])
        self.area_index = {a["id"]: i for i, a in enumerate(self.areas)}
        self.area_kinds = [a.get("kind", "room") for a in self.areas]
        self._per_pen: dict[float, PenGeometry] = {}
        try:
            keys = entry.get("keys") or {}
            self.key_colours = [c["id"] if isinstance(c, dict) else c for c in keys.get("colours", [])]
            self.key_supply = {str(k): int(v) for k, v in (keys.get("supply") or {}).items()}
            self.area_polygons = compile_areas(self.areas)
            self.network, self.wall_segments = compile_walls(entry.get("walls") or [])
            self.open_pairs, self.doors = compile_connections(entry.get("connections") or [])
            close_channels(self.network, float(entry.get("required_gap_mm") or 0.0), [door.geom for door in self.doors])
            self.ink_edges = ink_edges(self.network)
            self.elements = [compile_element(i, data, self.area_index) for i, data in enumerate(entry["elements"])]
            self.element_by_id = {e.id: e for e in self.elements}
            self.starts = compile_starts(
                entry.get("starts") or [], self.element_by_id, self.area_index, self.area_polygons
            )
            self.fp_elements = [e for e in self.elements if e.footprint is not None]
            # elements whose footprint runs matter (pass through, enter, the Wizard's circles)
            self.run_elements = [
                e for e in self.fp_elements if e.interaction in ("pass_through", "enter") or e.kind == "spell"
            ]
            self.cover = cover_samples(self.elements)
            self.heads = head_samples(self.elements)
            self.traces = trace_samples(self.elements)
            self.groups = artifact_groups(self.elements, int(self.switch("artifact_group_size")))
        except GameDataError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, shapely.errors.ShapelyError) as exc:
            raise GameDataError(
                f"dungeon {entry.get('id')!r}: malformed game data ({type(exc).__name__}: {exc})"
            ) from None

    def for_pen(self, w: float) -> PenGeometry:
        """Geometry that depends on the pen width, built once per width: the touch zones (each
        footprint buffered by ``w/2``), the polygons the path is classified against and the
        lines it is split at."""
        cached = self._per_pen.get(w)
        if cached is None:
            cached = self._per_pen[w] = pen_geometry(self, w)
        return cached

    # .. reading switches, scoring rows and areas ..

    def switch(self, name: str):
        """A switch's value; its default when the entry leaves it out or null."""
        value = self.switches.get(name)
        return DEFAULT_SWITCHES.get(name) if value is None else value

    def switch_vp(self, name: str, term: str):
        """A VP switch: the entry's switch, else its scoring table row, else the default."""
        if self.switches.get(name) is not None:
            return self.switches[name]
        return self.term_vp(term, DEFAULT_SWITCHES[name])

    def term_vp(self, term: str, default):
        """The VP of a scoring row, else ``default``."""
        row = self.scoring.get(term)
        if isinstance(row, dict) and isinstance(row.get("vp"), (int, float)):
            return row["vp"]
        return default

    def lists_trigger(self, kind: str) -> bool:
        """Whether the sheet lists this Scrawl End trigger."""
        return any(isinstance(t, dict) and t.get("kind") == kind for t in self.end_triggers)

    def area_name(self, index: int) -> str:
        """``room r1 (Hall)``; ``outside the dungeon`` for no area."""
        if index < 0:
            return "outside the dungeon"
        area = self.areas[index]
        kind = self.area_kinds[index]
        return f"{kind} {area['id']}" + (f" ({area['name']})" if area.get("name") else "")

    def penalised(self, index: int) -> bool:
        """Whether leaving an element of this area not completed can cost VP."""
        if index < 0:
            return False
        if self.switch("penalties_in") == "rooms_and_corridors":
            return True
        return self.area_kinds[index] == "room"
