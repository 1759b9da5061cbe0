"""Starts on the outer wall of an imported level (line family; RULES.md 2: players begin at a
Start on the outer boundary). An LDtk level has no notion of an outer wall: an entity the
mapping makes a Start (``Start``, ``Spawn``, ``Entrance``, ``Player``...) usually stands on the
floor, and many levels have none. :func:`place_starts` works on the built dungeon, in sheet
millimetres, against the outline the rule checks measure (:attr:`inkcrawl.geometry.LineGeometry.outline`):

* each Start further from the outline than the ruleset's snap tolerance moves to the nearest
  point of the outline that stands on a straight stretch of outer wall long enough for it (half
  its size clear of the stretch's corners) and clear of the other elements (noted);
* with no Start at all, one Start goes in the middle of the longest stretch of outer wall of the
  first room (of equal ones the highest, then the leftmost; the first area when there is no
  room; the nearest outer wall when that room has none), noted as a warning to move it where
  the party enters.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from inkcrawl.geometry import build_geometry, polygon_defects
from inkcrawl.importers.build import default_size_mm
from inkcrawl.model import LineDungeon, dungeon_from_dict
from inkcrawl.rulesets import bundled_rulesets

#: Ruleset print limits used when the dungeon's ruleset is not a bundled one (line-classic's).
DEFAULT_SNAP_MM = 0.5
DEFAULT_OVERLAP_MM = 0.2


def _outer_walls(dungeon: dict):
    """``(geometry, walls, snap, overlap)`` of a line dungeon's data: its area geometry (valid
    areas), the straight stretches of its outline and the ruleset's snap and overlap tolerances
    (mm); ``None`` for a dungeon of another family."""
    built = dungeon_from_dict(dungeon)
    if not isinstance(built, LineDungeon):
        return None
    ruleset = bundled_rulesets().get(dungeon.get("ruleset") or "line-classic")
    limits = ruleset.print_limits if ruleset is not None and ruleset.family == "line" else {}
    snap = float(limits.get("snap_tolerance_mm", DEFAULT_SNAP_MM))
    overlap = float(limits.get("overlap_tolerance_mm", DEFAULT_OVERLAP_MM))
    valid = [area for area in built.areas if polygon_defects(area.polygon) is None]
    geometry = build_geometry(built, valid, snap)
    walls = _Stretches(geometry.outline) if geometry.polygons else None
    return geometry, walls, snap, overlap


def _discs(dungeon: dict, starts_too: bool) -> list[tuple[float, float, float]]:
    """The discs ``(x, y, radius)`` in mm of the elements on the sheet a new Start must not
    overlap (with or without the Starts themselves)."""
    return [
        (float(e["at"][0]), float(e["at"][1]), float(e.get("size_mm") or 0) / 2)
        for e in dungeon["elements"]
        if (starts_too or e["kind"] != "start") and "at" in e and e.get("size_mm")
    ]


def _new_start(dungeon: dict, spot: tuple[float, float], size: float) -> dict:
    """Append a Start of ``size`` mm at ``spot`` (mm) to ``dungeon``, with the first free id of
    ``start``, ``start-2``...; returns it."""
    taken = {item["id"] for key in ("areas", "walls", "elements") for item in dungeon[key]}
    element_id = next(i for i in ("start", *(f"start-{n}" for n in range(2, 10_000))) if i not in taken)
    start = {"id": element_id, "kind": "start", "at": [round(spot[0], 3), round(spot[1], 3)], "size_mm": size}
    start["rotation_deg"] = 0
    dungeon["elements"].append(start)
    return start


def place_starts(dungeon: dict, sources: dict[str, str], note: Callable[[str, str], None]) -> None:
    """Put every Start of ``dungeon`` (a line dungeon's data, as the builder made it: sheet mm)
    on its outer wall, in place, and add one when there is none (see the module docstring).
    ``sources`` names the entity each Start element came from, by element id (for the notes);
    ``note(source, message)`` records what was moved or added. A dungeon without a valid area
    gets no Start (noted: validation reports L010). Raises nothing on well-formed builder output.
    RULES.md 2: players begin at a Start on the outer boundary (checks L010, L011, L007)."""
    context = _outer_walls(dungeon)
    if context is None:
        return
    geometry, walls, snap, overlap = context
    starts = [e for e in dungeon["elements"] if e["kind"] == "start" and "at" in e]
    if walls is None:
        if not starts:
            note("the level", "has no floor: no Start can be placed on an outer wall")
        return
    discs = _discs(dungeon, starts_too=False)  # each Start joins them once it stands
    for start in starts:
        at = (float(start["at"][0]), float(start["at"][1]))
        radius = float(start.get("size_mm") or 0) / 2
        source = sources.get(start["id"], f"Start {start['id']!r}")
        if walls.outline.distance(Point(at)) <= snap:
            discs.append((*at, radius))
            continue
        spot = walls.spot(at, radius, discs, overlap)
        if spot is None:  # no outer wall is long enough: the nearest point of the outline
            nearest = walls.outline.interpolate(walls.outline.project(Point(at)))
            spot = (float(nearest.x), float(nearest.y))
        start["at"] = [round(spot[0], 3), round(spot[1], 3)]
        discs.append((*spot, radius))
        note(
            source,
            f"a Start goes on the outer wall: moved {math.dist(at, spot):.1f} mm, from ({at[0]:g}, {at[1]:g}) to "
            f"({start['at'][0]:g}, {start['at'][1]:g}) mm, the nearest place on the outer wall clear of the "
            "other elements",
        )
    if starts:
        return
    _add_start(dungeon, geometry, walls, discs, overlap, note)


def _add_start(dungeon: dict, geometry, walls: _Stretches, discs, overlap: float, note) -> None:
    """One Start in the middle of the longest outer stretch of the first room (else of the
    first area), or on the outer wall nearest that room's centre when it has none."""
    index = next((i for i, area in enumerate(geometry.areas) if area.kind == "room"), 0)
    area, polygon = geometry.areas[index], geometry.polygons[index]
    size = default_size_mm("start", dungeon.get("ruleset") or "line-classic")
    radius = size / 2
    spot = walls.middle_on(polygon, radius, discs, overlap)
    where = f"the outer wall of {area.kind} '{area.id}'"
    if spot is None:
        centre = polygon.representative_point()
        spot = walls.spot((centre.x, centre.y), radius, discs, overlap)
        if spot is None:
            nearest = walls.outline.interpolate(walls.outline.project(centre))
            spot = (float(nearest.x), float(nearest.y))
        where = f"the outer wall nearest {area.kind} '{area.id}' (it has no outer wall long enough for a Start)"
    element_id = _new_start(dungeon, spot, size)["id"]
    note(
        "the level",
        f"has no entity that is a Start (Start, Spawn, Entrance, Player...); a Start '{element_id}' was added on "
        f"{where}, at ({spot[0]:.3f}, {spot[1]:.3f}) mm: move it where the party enters",
    )


def add_starts(dungeon: dict, count: int, note: Callable[[str, str], None]) -> int:
    """Add Starts to ``dungeon`` (a line dungeon's data, sheet mm) until it has ``count``: each in
    the middle of the longest free stretch of outer wall of a room that holds no Start yet, rooms
    in the order the dungeon lists them, clear of every element already placed (RULES.md 2:
    players begin at a Start on the outer boundary). Returns how many Starts it has then (fewer
    than ``count`` when no other room has outer wall room for one). Raises nothing on a
    well-formed dungeon; one without a valid area gets none."""
    context = _outer_walls(dungeon)
    if context is None:
        return 0
    geometry, walls, snap, overlap = context
    starts = [e for e in dungeon["elements"] if e["kind"] == "start" and "at" in e]
    if walls is None:
        return len(starts)
    discs = _discs(dungeon, starts_too=True)
    size = default_size_mm("start", dungeon.get("ruleset") or "line-classic")
    for index, area in enumerate(geometry.areas):
        if len(starts) >= count:
            break
        polygon = geometry.polygons[index]
        if area.kind != "room" or any(polygon.buffer(snap + 0.5).covers(Point(e["at"])) for e in starts):
            continue  # a corridor, or a room that has its Start
        spot = walls.middle_on(polygon, size / 2, discs, overlap)
        if spot is None:
            continue
        start = _new_start(dungeon, spot, size)
        starts.append(start)
        discs.append((*spot, size / 2))
        note("the level", f"a Start '{start['id']}' was added on the outer wall of room '{area.id}'")
    return len(starts)


class _Stretches:
    """The straight stretches of an outline (collinear vertices merged), with their lengths."""

    def __init__(self, outline) -> None:
        self.outline = outline
        pieces: list[tuple[tuple[float, float], tuple[float, float]]] = []
        for ring in shapely.get_parts(shapely.line_merge(outline)):  # rings split where they touch rejoined
            coords = shapely.get_coordinates(shapely.simplify(ring, 0))
            pieces += [(tuple(a), tuple(b)) for a, b in zip(coords[:-1], coords[1:]) if tuple(a) != tuple(b)]
        self.pieces = pieces
        self.lines = np.array([LineString(p) for p in pieces], dtype=object)
        self.lengths = np.array([math.dist(a, b) for a, b in pieces])

    def spot(self, at, radius: float, discs, overlap: float) -> tuple[float, float] | None:
        """The point nearest ``at`` on a stretch at least ``2 * radius`` long, ``radius`` clear of
        its ends and of every disc in ``discs``; ``None`` when no stretch is long enough."""
        usable = np.flatnonzero(self.lengths >= 2 * radius - 1e-9)
        if not len(usable):
            return None
        distances = shapely.distance(self.lines[usable], Point(at))
        fallback = None
        for index in usable[np.argsort(distances, kind="stable")].tolist():
            a, b = self.pieces[index]
            along = self._along(a, b, at)
            found = self._free(a, b, along, radius, discs, overlap)
            if found is not None:
                return found
            if fallback is None:
                fallback = self._point(a, b, min(max(along, radius), self.lengths[index] - radius))
        return fallback  # every stretch crowded: the nearest, overlap or not (validation says so)

    def middle_on(self, polygon, radius: float, discs, overlap: float) -> tuple[float, float] | None:
        """The middle of the longest straight piece of outline on ``polygon``'s boundary at least
        ``2 * radius`` long (of equal ones, the highest on the sheet, then the leftmost), or the
        free point nearest that middle; ``None`` if there is none."""
        pieces = []
        ring = polygon.exterior
        near = np.flatnonzero((self.lengths >= 2 * radius - 1e-9) & shapely.intersects(self.lines, ring))
        for line in self.lines[near]:
            for part in shapely.get_parts(line.intersection(ring)):
                if part.geom_type == "LineString" and part.length >= 2 * radius - 1e-9:
                    coords = shapely.get_coordinates(part)
                    pieces.append((part.length, tuple(coords[0]), tuple(coords[-1])))
        # the longest first; of equal ones the highest on the sheet, then the leftmost
        pieces.sort(key=lambda p: (-round(p[0], 6), round(p[1][1] + p[2][1], 6), round(p[1][0] + p[2][0], 6)))
        for length, a, b in pieces:
            found = self._free(a, b, length / 2, radius, discs, overlap)
            if found is not None:
                return found
        return None

    def _free(self, a, b, along: float, radius: float, discs, overlap: float) -> tuple[float, float] | None:
        """The point of the stretch ``a``-``b`` nearest ``along`` (mm from ``a``), ``radius`` clear of
        its ends and clear of ``discs`` (less ``overlap``), trying steps of ``radius / 2``."""
        length = math.dist(a, b)
        low, high = radius, length - radius
        if high < low - 1e-9:
            return None
        first = min(max(along, low), max(high, low))
        step = max(radius / 2, 1e-3)
        # the tries in order: first, then a step before and after it, two steps...
        offsets = np.arange(1, int((high - low) / step) + 2) * step
        tries = np.concatenate(([first], np.column_stack((first - offsets, first + offsets)).ravel()))
        tries = tries[(tries >= low - 1e-9) & (tries <= high + 1e-9)]
        points = np.array([self._point(a, b, float(t)) for t in tries]).reshape(-1, 2)
        near = np.array(discs, dtype=float).reshape(-1, 3)
        reach = radius + near[:, 2]  # only the discs the stretch passes within reach of
        keep = (
            (near[:, 0] >= min(a[0], b[0]) - reach)
            & (near[:, 0] <= max(a[0], b[0]) + reach)
            & (near[:, 1] >= min(a[1], b[1]) - reach)
            & (near[:, 1] <= max(a[1], b[1]) + reach)
        )
        near = near[keep]
        if not len(near):
            return (float(points[0][0]), float(points[0][1])) if len(points) else None
        gaps = np.hypot(points[:, None, 0] - near[None, :, 0], points[:, None, 1] - near[None, :, 1])
        free = np.flatnonzero((gaps >= radius + near[None, :, 2] - overlap).all(axis=1))
        return (float(points[free[0]][0]), float(points[free[0]][1])) if len(free) else None

    @staticmethod
    def _along(a, b, at) -> float:
        return float(LineString([a, b]).project(Point(at)))

    @staticmethod
    def _point(a, b, along: float) -> tuple[float, float]:
        length = math.dist(a, b)
        t = along / length if length else 0.0
        return float(a[0] + (b[0] - a[0]) * t), float(a[1] + (b[1] - a[1]) * t)
