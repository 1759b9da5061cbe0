"""The line-family referee (RULES.md section 2): scores a drawn play on one line dungeon.

It reads one ``family: line`` entry of a game document (docs/game-data.md, ``inkcrawl export
game``) and a play (docs/play-files.md) and nothing else: no model, no ruleset file.
:class:`LineRules` compiles the entry once (shapely geometry, spatial indexes, sample points);
:func:`referee` scores one play and returns the breakdown as JSON-ready data;
:func:`format_breakdown` prints it the way a player checks a neighbour's sheet.

How a play is read
    The path is one or more polylines in sheet mm; the *stroke* is the path buffered by half
    the pen width ``w``. Positions along the path are a parameter ``t``: segment index plus the
    fraction along that segment, over all polylines in order (between two polylines lies an
    undrawn "jump" segment). Every event (an element completed, a wall crossed, a key taken, an
    end trigger) has a ``t``; the referee computes them all on the whole drawn path with
    shapely's vectorised functions and numpy, then walks the events in path order.

Interactions (tolerances from each element's ``tolerance``)
    * cover: at least ``min_coverage`` of the element's printed ink (``ink``, else its
      footprint) lies under the stroke. Coverage is measured on a lattice of about 2,500
      sample points inside the ink (spacing at most
      0.25 mm): a sample is under the stroke once the path has come within ``w/2`` of it; the
      element is covered when the ``min_coverage`` quantile of the samples is.
    * trace: every point of the trace (a spell's strokes, a treasure's outline) lies within
      ``max_distance_pen_widths * w`` of the stroke, that is within
      ``max_distance_pen_widths * w + w/2`` of the path's centre line (2.25 mm with one pen
      width of 1.5 mm), checked on points every 0.1 mm along the trace and at its vertices.
    * touch: the stroke meets the element's printed ink (the path comes within ``w/2`` of its
      ``ink``; of its footprint when the data gives no ink).
    * pass_through: the path enters the footprint through its boundary and leaves it through
      its boundary at a point at least 90 degrees around the element's centre from where it
      entered (it went from one side to the other, not in and back out the same side).
    * connect_in_order: the stroke touches stone k+1 after it touched stone k (each group of
      ``artifact_group_size`` stones by number is judged on its own).
    * enter (escape portal, exit): the path (the centre line) reaches the footprint.
    An element is *attempted* when the stroke touched its ink; an attempted element that
    is not completed has *failed* (0 VP, no penalty), an unattempted one is *missed*.

Areas, walls and doors
    The path is split at every crossing of an area outline or a wall, and each piece belongs
    to the area holding its midpoint (or to no area: outside). The walls are the game data's
    wall lines (printed walls, closures of gaps narrower than ``required_gap_mm`` and bridges
    between wall ends that nearly meet) made into one network (:mod:`inkcrawl.engines.wall_network`):
    free ends reach half the wall's printed width further (the round cap is ink) and a joint of
    walls is a node. Crossing a wall is a point where the path goes from one side of the
    network to the other (touching or running along a wall is free; through a joint is a
    crossing); a wall crossed within ``WALL_SNAP_MM`` (along the path) of a change of area
    belongs to that change, so a wall drawn a little off a shared boundary still closes it.
    Going from the current area into another area is legal through an opening (no wall crossed
    on the way) or through a door whose locks the held keys open (the crossing lies within
    ``DOOR_TOLERANCE_MM`` of the door's segment, or the two areas are joined only by doors);
    through a wall, a locked door, or between two areas no opening or door joins, it is an
    *illegal crossing*: everything from the point where the line enters the other area is
    ignored (``wall_poke: illegal_crossing``). With ``wall_poke: out_and_back``, a line that
    crosses a wall into another area and next changes area straight back into the one it
    left makes an excursion instead (``wall_crossing_vp``, the play goes on).
    Leaving the current area through a wall and coming back to it, or crossing a wall inside
    it, costs ``wall_crossing_vp`` per excursion (``wall_crossing_count: per_excursion``) or per
    crossing point (``per_wall_segment``); an excursion that never comes back counts too.
    The path must begin at a Start (within the Start's radius, 4 mm when the data gives no
    size, plus ``w/2``: the Start's *reach*). The Start belongs to its area (the game data's
    ``starts[].area``, the area whose outline holds it) and the line is in that area from its
    first point, also when that point lies just outside the outline (a line beginning inside
    another area, within the Start's reach, is in that one). The Start's *entrance gap* is
    printed: the outline walls stop around the Start (game data ``walls``), so crossing the
    outline there is no wall crossing and the line may leave the dungeon there and come back
    there for free. Anywhere else, outside the dungeon is
    outside the current area: coming back into the same area through a wall is an excursion
    (``wall_crossing_vp``), entering another area through a wall is an illegal crossing (the
    area the line began in counts as entered and left).

Documented readings (RULES.md 2 "Gaps and defaults" leaves these open)
    * Sections: a section is a stretch of the path in one area; consecutive pieces in the same
      area (also an excursion out through a wall and back) are one section; re-entering an area
      later starts a new section. A completed element scores in the section in which it was
      completed (even one touched from a neighbouring area); a missed or failed element is
      settled in the *last* section of its area (``reentry: final_state``) or in the section
      whose departure charged it (``each_visit``: every departure from an area charges its
      elements not completed and not attempted by then, each element at most once). Wall
      crossings, keys and doors go to the section they happen in. Within a section, lines
      follow the path; what is settled on leaving comes last.
    * The area the scrawl ends in is exempt (``end_room_exempt``), also when the end came from
      another player or the path simply stops. After an illegal crossing no area is exempt: the
      line left the area through the wall.
    * A portal jump leaves the area of the entry. Touching a portal entry lifts the pen: points
      drawn after the touch in the same polyline are ignored (with a note when some of them
      lie off the entry); the next polyline must start at an exit of that entry's channel (its
      first point touching the exit), else the play is invalid.
    * Artifact groups belong to the area holding most of their stones (ties: the lowest
      numbered stone's area) and are settled there like an element: completed +group VP,
      untouched ``artifact_untouched_group_vp``, partly connected ``artifact_partial_group_vp``
      (the last two only where a missed element would be charged).
    * An element left not completed in an entered area where no penalty applies is listed at 0
      (``optional``): in a corridor (``penalties_in: rooms``), or when its ruleset ``penalty``
      is false and it has VP or a token: an orb not covered before the end reads "not covered
      (no penalty)" (a covered orb is on the orb token lines). Keys, exits and escape portals
      left alone (no VP, no penalty) are not listed.
    * An unused portal entry is settled like a missed element (entered room left, not the end
      room): ``unused_portal_entry_vp``.
    * The Ranger's plants are worth the ability's ``vp``, and so is the penalty for missing one.
    * Wizard: a loop of the path (it crosses or meets itself) lying inside the spell's
      footprint and enclosing at least a pen dot (pi (w/2)^2) casts it. Barbarian: covering the
      monster's ``head`` with the monster's ``min_coverage`` defeats it (not bosses).
    * End triggers the sheet lists (boss covered, escape portal entered, exit reached, orb
      colour taken first/last) cut the path where they happen; so does the play's ``end`` (a
      trigger another player caused). An escape portal or exit the sheet does not list does
      nothing. After an illegal crossing the line still exists: a trigger drawn there still
      ends the scrawl; a boss covered there scores 0 (``boss_after_illegal_crossing:
      ends_scores_zero``) or its VP (``ends_scores_vp``); an orb covered there takes its token
      (the position is used) but scores 0.
    * Orb tokens: the play may give the position of each token this player got per colour, in
      the order taken; otherwise this player's takes get positions 1, 2, ... A position past
      the stack gets nothing. Keys: one of each colour, none when the play lists the key under
      ``keys_gone`` (no token was left) or the supply for the number of players is 0. A
      skeleton key gives the colour the play names; otherwise the first colour, in key colour
      order, that a later door the path passes needs and the player lacks, else the first
      colour not held.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely import STRtree

from inkcrawl.engines.wall_network import crosses, wall_network

INF = math.inf

#: Defaults of the line switches (docs/formats.md), used when the game data leaves one out.
DEFAULT_SWITCHES = {
    "penalties_in": "rooms",
    "reentry": "final_state",
    "artifact_group_size": 3,
    "artifact_untouched_group_vp": -1,
    "artifact_partial_group_vp": 0,
    "unused_portal_entry_vp": -1,
    "wall_crossing_count": "per_excursion",
    "wall_crossing_vp": -1,
    "boss_after_illegal_crossing": "ends_scores_zero",
    "end_room_exempt": True,
    "wall_poke": "illegal_crossing",
}
#: The values each line switch may take (docs/formats.md); the ``*_vp`` switches take any integer.
SWITCH_VALUES = {
    "penalties_in": ("rooms", "rooms_and_corridors"),
    "reentry": ("final_state", "each_visit"),
    "wall_crossing_count": ("per_excursion", "per_wall_segment"),
    "boss_after_illegal_crossing": ("ends_scores_zero", "ends_scores_vp"),
    "end_room_exempt": (True, False),
    "wall_poke": ("illegal_crossing", "out_and_back"),
}
VP_SWITCHES = ("artifact_untouched_group_vp", "artifact_partial_group_vp", "unused_portal_entry_vp",
               "wall_crossing_vp")
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
#: Positions along the path closer than this (in segments) are one position.
T_EPS = 1e-7

#: How the breakdown names a Scrawl End another player caused (the play's ``end``).
_OTHER_END = {
    "timer": "the timer ran out",
    "boss_covered": "another player covered the boss",
    "escape_portal": "another player entered the escape portal",
    "exit_reached": "another player reached the exit",
    "orb_taken": "another player took the orb token that ends the scrawl",
}

_AREA, _FOOT, _ZONE, _WALL = 0, 1, 2, 3
_VOID, _JUMP = -1, -2


class PlayError(ValueError):
    """The play cannot be scored on this dungeon. ``problems`` lists ``(pointer, message)``
    pairs, the pointer into the play file (RFC 6901)."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{p or '/'}: {m}" for p, m in problems))


class GameDataError(ValueError):
    """The dungeon entry of the game data cannot be played (missing or malformed members,
    unknown switch values, ids that do not resolve, tolerances out of range). The message
    starts with the member, relative to the dungeon entry (``switches.reentry: ...``)."""


# -- compiled dungeon ---------------------------------------------------------------------------

@dataclass
class _Element:
    index: int
    data: dict
    id: str
    kind: str
    name: str | None
    area: int
    interaction: str
    vp: int | None
    penalty: bool
    footprint: Any = None          # shapely Polygon or None
    ink: Any = None                # the printed glyph (shapely (Multi)Polygon), else the footprint
    at: tuple[float, float] | None = None
    number: int | None = None
    colour: str | None = None
    channel: str | None = None
    min_coverage: float = 0.9
    trace_pen_widths: float = 1.0
    traces: list = field(default_factory=list)     # list of (n, 2) arrays
    head: Any = None


def _describe(element: _Element) -> str:
    kind = element.kind.replace("_", " ")
    return f"{kind} {element.id}" + (f" ({element.name})" if element.name else "")


def _lattice(polygon, target: int = COVER_SAMPLES, max_spacing: float = COVER_MAX_SPACING_MM) -> np.ndarray:
    """Sample points inside ``polygon`` on a square lattice (about ``target`` of them)."""
    area = polygon.area
    spacing = min(max_spacing, math.sqrt(area / target)) if area > 0 else max_spacing
    x0, y0, x1, y1 = polygon.bounds
    xs = np.arange(x0 + spacing / 2, x1, spacing)
    ys = np.arange(y0 + spacing / 2, y1, spacing)
    gx, gy = np.meshgrid(xs, ys)
    gx, gy = gx.ravel(), gy.ravel()
    inside = shapely.contains_xy(polygon, gx, gy)
    points = np.column_stack([gx[inside], gy[inside]])
    if not len(points):
        c = polygon.representative_point()
        points = np.array([[c.x, c.y]])
    return points


def _densify(points: np.ndarray, spacing: float = TRACE_SPACING_MM) -> np.ndarray:
    """The vertices of a polyline plus points every ``spacing`` mm along it."""
    out = [points[:1]]
    for a, b in zip(points[:-1], points[1:]):
        n = max(1, int(math.ceil(float(np.hypot(*(b - a))) / spacing)))
        f = np.arange(1, n + 1)[:, None] / n
        out.append(a + f * (b - a))
    return np.concatenate(out)


def _points(value, what: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise GameDataError(f"{what} is not a list of [x, y] points") from None
    if array.ndim != 2 or array.shape[1] != 2 or not np.isfinite(array).all():
        raise GameDataError(f"{what} is not a list of [x, y] points")
    return array


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_entry(entry: dict) -> None:
    """Refuse game data the referee would misread: unknown switch values, areas, ids and
    tolerances out of range. Raises :class:`GameDataError` naming the member."""
    def fail(member: str, message: str) -> None:
        raise GameDataError(f"{member}: {message}")

    switches = entry.get("switches")
    if switches is not None and not isinstance(switches, dict):
        fail("switches", "must be an object")
    for name, value in (switches or {}).items():
        if value is None:
            continue
        if name in SWITCH_VALUES and value not in SWITCH_VALUES[name] or \
                name == "end_room_exempt" and not isinstance(value, bool):
            known = ", ".join(repr(v) for v in SWITCH_VALUES[name])
            fail(f"switches.{name}", f"{value!r} is not one of {known}")
        if name in VP_SWITCHES and not _is_int(value):
            fail(f"switches.{name}", f"{value!r} is not a whole number of VP")
        if name == "artifact_group_size" and not (_is_int(value) and value >= 1):
            fail(f"switches.{name}", f"{value!r} is not a whole number >= 1")
    pen = entry.get("pen_width_mm")
    if pen is not None and not (_is_number(pen) and pen > 0):
        fail("pen_width_mm", f"{pen!r} is not a positive number of mm")

    areas = entry.get("areas")
    if not isinstance(areas, list) or not areas:
        fail("areas", "the dungeon has no areas (rooms or corridors)")
    ids: set = set()
    for i, area in enumerate(areas):
        if not isinstance(area, dict) or not isinstance(area.get("id"), str):
            fail(f"areas[{i}]", "an area must be an object with a string 'id'")
        if area["id"] in ids:
            fail(f"areas[{i}].id", f"duplicate area id {area['id']!r}")
        ids.add(area["id"])
        if area.get("kind", "room") not in ("room", "corridor"):
            fail(f"areas[{i}].kind", f"{area.get('kind')!r} is not 'room' or 'corridor'")
        polygon = area.get("polygon")
        if not (isinstance(polygon, list) and len(polygon) >= 3):
            fail(f"areas[{i}] ({area['id']}).polygon", "an area outline needs at least 3 points")

    def known_area(member: str, value, nullable: bool) -> None:
        if value is None and nullable:
            return
        if not isinstance(value, str) or value not in ids:
            fail(member, f"no area has the id {value!r} (areas: {', '.join(sorted(ids))})")

    for i, connection in enumerate(entry.get("connections") or []):
        if not isinstance(connection, dict):
            fail(f"connections[{i}]", "must be an object")
        known_area(f"connections[{i}].a", connection.get("a"), False)
        known_area(f"connections[{i}].b", connection.get("b"), False)
        if connection.get("kind") == "door":
            segment = connection.get("segment")
            if not (isinstance(segment, list) and len(segment) == 2 and all(
                    isinstance(p, list) and len(p) == 2 and all(_is_number(v) for v in p) for p in segment)):
                fail(f"connections[{i}].segment", f"door {connection.get('door')!r}: a door segment must be two "
                                                  f"points [[x1, y1], [x2, y2]]")
    elements = entry.get("elements")
    if not isinstance(elements, list):
        fail("elements", "must be a list")
    element_ids: set = set()
    for i, element in enumerate(elements):
        if not isinstance(element, dict) or not isinstance(element.get("id"), str):
            fail(f"elements[{i}]", "an element must be an object with a string 'id'")
        where = f"elements[{i}] ({element['id']})"
        if element["id"] in element_ids:
            fail(f"{where}.id", f"duplicate element id {element['id']!r}")
        element_ids.add(element["id"])
        known_area(f"{where}.area", element.get("area"), True)
        vp = element.get("vp")
        if vp is not None and not _is_int(vp):
            fail(f"{where}.vp", f"{vp!r} is not a whole number of VP (or null)")
        number = element.get("number")
        if number is not None and not _is_int(number):
            fail(f"{where}.number", f"{number!r} is not a whole number")
        tolerance = element.get("tolerance")
        if tolerance is None:
            continue
        if not isinstance(tolerance, dict):
            fail(f"{where}.tolerance", "must be an object")
        if "min_coverage" in tolerance:
            value = tolerance["min_coverage"]
            if not (_is_number(value) and 0 < value <= 1):
                fail(f"{where}.tolerance.min_coverage", f"{value!r} is not a fraction in (0, 1]")
        if "max_distance_pen_widths" in tolerance:
            value = tolerance["max_distance_pen_widths"]
            if not (_is_number(value) and value > 0):
                fail(f"{where}.tolerance.max_distance_pen_widths", f"{value!r} is not a positive number")
    for i, start in enumerate(entry.get("starts") or []):
        if not isinstance(start, dict):
            fail(f"starts[{i}]", "must be an object")
        known_area(f"starts[{i}] ({start.get('id')}).area", start.get("area"), True)
    tokens = entry.get("orb_tokens")
    if tokens is not None:
        if not isinstance(tokens, dict) or not all(isinstance(v, list) and all(_is_int(x) for x in v)
                                                   for v in tokens.values()):
            fail("orb_tokens", "must map each orb colour to a list of whole-number token values")


class LineRules:
    """A line dungeon entry of the game data, compiled for the referee (geometry built once).

    Raises :class:`GameDataError` when the entry is not a playable line dungeon.
    """

    def __init__(self, entry: dict):
        if not isinstance(entry, dict) or entry.get("family") != "line":
            raise GameDataError("the game data entry is not a line-family dungeon")
        try:
            self._compile(entry)
        except GameDataError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, shapely.errors.ShapelyError) as exc:
            raise GameDataError(f"dungeon {entry.get('id')!r}: malformed game data ({type(exc).__name__}: {exc})") \
                from None
        self._per_pen: dict[float, dict] = {}

    # .. compile ..

    def _compile(self, entry: dict) -> None:
        self.entry = entry
        self.id = entry["id"]
        self.title = entry.get("title") or self.id
        _check_entry(entry)
        self.pen_width_mm = float(entry["pen_width_mm"]) if entry.get("pen_width_mm") is not None else 1.5
        self.players = entry.get("players") or {"min": 1, "max": 4}
        self.switches = dict(entry.get("switches") or {})
        self.scoring = {row.get("term"): row for row in entry.get("scoring") or [] if isinstance(row, dict)}
        self.characters = entry.get("characters") or {}
        self.end_triggers = list(entry.get("end_triggers") or [])
        self.orb_tokens = {c: list(v) for c, v in (entry.get("orb_tokens") or {}).items()}
        keys = entry.get("keys") or {}
        self.key_colours = [c["id"] if isinstance(c, dict) else c for c in keys.get("colours", [])]
        self.key_supply = {str(k): int(v) for k, v in (keys.get("supply") or {}).items()}

        # areas
        self.areas = list(entry["areas"])
        self.area_index = {a["id"]: i for i, a in enumerate(self.areas)}
        self.area_polygons = [shapely.Polygon(_points(a["polygon"], f"area {a['id']!r} polygon")) for a in self.areas]
        for i, (area, polygon) in enumerate(zip(self.areas, self.area_polygons)):
            if not polygon.is_valid or polygon.area <= 0:
                raise GameDataError(f"areas[{i}] ({area['id']}).polygon: not a valid outline (it crosses itself "
                                    f"or encloses no area)")
        self.area_kinds = [a.get("kind", "room") for a in self.areas]

        # walls: one noded network of centre lines (free ends grown by their ink's round cap),
        # split into 2-point segments
        walls, widths = [], []
        for wall in entry.get("walls") or []:
            walls.append(_points(wall["points"], f"wall {wall.get('id')!r}"))
            width = wall.get("width_mm")
            widths.append(float(width) if isinstance(width, (int, float)) and width > 0 else 0.0)
        self.network = wall_network(walls, widths)
        self.walls = self.network.lines
        seg_a, seg_b, seg_wall, seg_index = [], [], [], []
        for w, points in enumerate(self.walls):
            for i in range(len(points) - 1):
                if not np.array_equal(points[i], points[i + 1]):
                    seg_a.append(points[i])
                    seg_b.append(points[i + 1])
                    seg_wall.append(w)
                    seg_index.append(i)
        self.wall_seg_a = np.array(seg_a).reshape(-1, 2)
        self.wall_seg_b = np.array(seg_b).reshape(-1, 2)
        self.wall_seg_wall = np.array(seg_wall, dtype=int)
        self.wall_seg_index = np.array(seg_index, dtype=int)
        self.wall_seg_geoms = shapely.linestrings(np.stack([self.wall_seg_a, self.wall_seg_b], axis=1)) \
            if len(seg_a) else np.array([], dtype=object)

        # connections
        self.open_pairs: set[frozenset] = set()
        self.doors: list[dict] = []
        for connection in entry.get("connections") or []:
            kind = connection.get("kind")
            if kind == "open":
                self.open_pairs.add(frozenset((connection["a"], connection["b"])))
            elif kind == "door":
                segment = _points(connection["segment"], f"door {connection.get('door')!r} segment")
                self.doors.append({"id": connection.get("door"), "pair": frozenset((connection["a"], connection["b"])),
                                   "locks": list(connection.get("locks") or []),
                                   "geom": shapely.LineString(segment)})

        # elements
        self.elements: list[_Element] = []
        self.element_by_id: dict[str, _Element] = {}
        for i, data in enumerate(entry["elements"]):
            element = self._element(i, data)
            self.elements.append(element)
            self.element_by_id[element.id] = element
        self.starts = []
        for start in entry.get("starts") or []:
            at = tuple(float(v) for v in start["at"])
            source = self.element_by_id.get(start["id"])
            size = source.data.get("size_mm") if source is not None else None
            radius = float(size) / 2 if isinstance(size, (int, float)) and size > 0 else DEFAULT_START_RADIUS_MM
            if start.get("area") is not None:
                area = self.area_index[start["area"]]
            else:  # the area whose outline holds the Start: the nearest one
                point = shapely.points(at)
                area = min(range(len(self.areas)), key=lambda i: float(shapely.distance(self.area_polygons[i], point)))
            self.starts.append({"id": start["id"], "at": at, "radius": radius, "area": area})
        if not self.starts:
            raise GameDataError("starts: the dungeon has no Start")

        with_footprint = [e for e in self.elements if e.footprint is not None]
        self.fp_elements = with_footprint
        # elements whose footprint runs matter (pass through, enter, the Wizard's circles)
        self.run_elements = [e for e in with_footprint
                             if e.interaction in ("pass_through", "enter") or e.kind == "spell"]
        # cover samples
        cover = [e for e in with_footprint if e.interaction == "cover"]
        self.cover_elements = cover
        self.cover_samples, self.cover_slices = self._samples([e.ink for e in cover])
        heads = [e for e in self.elements if e.head is not None and e.kind != "boss"]
        self.head_elements = heads
        self.head_samples, self.head_slices = self._samples([e.head for e in heads])
        # trace samples
        trace = [e for e in self.elements if e.interaction == "trace" and e.traces]
        self.trace_elements = trace
        pieces = [np.concatenate([_densify(s) for s in e.traces]) for e in trace]
        self.trace_samples, self.trace_slices = self._stack(pieces)
        # shapely points of every sample, made once (the queries against each play's path reuse them)
        self.cover_geoms = shapely.points(self.cover_samples)
        self.head_geoms = shapely.points(self.head_samples)
        self.trace_geoms = shapely.points(self.trace_samples)

        # artifact groups
        size = int(self.switch("artifact_group_size"))
        stones = sorted((e for e in self.elements if e.interaction == "connect_in_order" and e.number is not None),
                        key=lambda e: e.number)
        groups: dict[int, list[_Element]] = {}
        for stone in stones:
            groups.setdefault((stone.number - 1) // size, []).append(stone)
        self.groups = []
        for g, members in sorted(groups.items()):
            counts: dict[int, int] = {}
            for stone in members:
                counts[stone.area] = counts.get(stone.area, 0) + 1
            home = max(counts, key=lambda a: (counts[a], -min(s.number for s in members if s.area == a)))
            self.groups.append({"index": g, "stones": members, "area": home,
                                "label": f"artifact stones {members[0].number}-{members[-1].number}"})

    def _element(self, index: int, data: dict) -> _Element:
        tolerance = data.get("tolerance") or {}
        area = data.get("area")
        element = _Element(
            index=index, data=data, id=str(data["id"]), kind=str(data["kind"]), name=data.get("name"),
            area=self.area_index.get(area, _VOID) if area is not None else _VOID,
            interaction=str(data.get("interaction") or "none"), vp=data.get("vp"),
            penalty=bool(data.get("penalty")), number=data.get("number"), colour=data.get("colour"),
            channel=data.get("channel"),
            min_coverage=float(tolerance.get("min_coverage", 0.9)),
            trace_pen_widths=float(tolerance.get("max_distance_pen_widths", 1.0)))
        if data.get("at") is not None:
            element.at = (float(data["at"][0]), float(data["at"][1]))
        if data.get("footprint"):
            polygon = shapely.Polygon(_points(data["footprint"], f"element {element.id!r} footprint"))
            if not polygon.is_valid:
                polygon = shapely.make_valid(polygon)
            if polygon.area > 0:
                element.footprint = polygon
                if element.at is None:
                    c = polygon.centroid
                    element.at = (c.x, c.y)
        element.ink = element.footprint
        if data.get("ink"):
            parts = [shapely.Polygon(_points(ring, f"element {element.id!r} ink")) for ring in data["ink"]]
            parts = [p if p.is_valid else shapely.make_valid(p) for p in parts]
            ink = shapely.union_all([p for p in parts if p.area > 0])
            if not ink.is_empty and ink.area > 0:
                element.ink = ink
        if data.get("head"):
            head = shapely.Polygon(_points(data["head"], f"element {element.id!r} head"))
            if head.is_valid and head.area > 0:
                element.head = head
        if element.interaction == "trace":
            if data.get("trace"):
                element.traces = [_points(s, f"element {element.id!r} trace") for s in data["trace"]]
            elif data.get("outline"):
                element.traces = [_points(data["outline"], f"element {element.id!r} outline")]
            elif element.footprint is not None:
                element.traces = [np.asarray(element.footprint.exterior.coords)]
        return element

    @staticmethod
    def _stack(pieces: list[np.ndarray]) -> tuple[np.ndarray, list[slice]]:
        slices, start = [], 0
        for piece in pieces:
            slices.append(slice(start, start + len(piece)))
            start += len(piece)
        return (np.concatenate(pieces) if pieces else np.zeros((0, 2))), slices

    def _samples(self, polygons: list) -> tuple[np.ndarray, list[slice]]:
        return self._stack([_lattice(p) for p in polygons])

    # .. per pen width ..

    def for_pen(self, w: float) -> dict:
        """Geometry that depends on the pen width, built once per width: the touch zones (each
        footprint buffered by ``w/2``), the polygons the path is classified against and the
        lines it is split at."""
        cached = self._per_pen.get(w)
        if cached is not None:
            return cached
        zones = [e.ink.buffer(w / 2, quad_segs=16) for e in self.fp_elements]
        polygons = [*self.area_polygons, *(e.footprint for e in self.run_elements), *zones]
        roles = np.array([_AREA] * len(self.area_polygons) + [_FOOT] * len(self.run_elements)
                         + [_ZONE] * len(zones), dtype=int)
        refs = np.array([*range(len(self.area_polygons)), *range(len(self.run_elements)),
                         *range(len(zones))], dtype=int)
        polygons_arr = np.array(polygons, dtype=object)
        lines = [*shapely.boundary(polygons_arr).tolist(), *self.wall_seg_geoms.tolist()]
        line_roles = np.concatenate([roles, np.full(len(self.wall_seg_geoms), _WALL)])
        line_refs = np.concatenate([refs, np.arange(len(self.wall_seg_geoms))])
        lines_arr = np.array(lines, dtype=object)
        cached = {
            "zones": zones,
            "zone_tree": STRtree(zones) if zones else None,
            "polygons": polygons_arr, "roles": roles, "refs": refs, "poly_tree": STRtree(polygons_arr),
            "lines": lines_arr, "line_roles": line_roles.astype(int), "line_refs": line_refs.astype(int),
            "line_tree": STRtree(lines_arr),
        }
        self._per_pen[w] = cached
        return cached

    # .. helpers used by the referee ..

    def switch(self, name: str):
        value = self.switches.get(name)
        return DEFAULT_SWITCHES.get(name) if value is None else value

    def switch_vp(self, name: str, term: str):
        """A VP switch: the entry's switch, else its scoring table row, else the default."""
        if self.switches.get(name) is not None:
            return self.switches[name]
        return self.term_vp(term, DEFAULT_SWITCHES[name])

    def term_vp(self, term: str, default):
        row = self.scoring.get(term)
        if isinstance(row, dict) and isinstance(row.get("vp"), (int, float)):
            return row["vp"]
        return default

    def lists_trigger(self, kind: str) -> bool:
        return any(isinstance(t, dict) and t.get("kind") == kind for t in self.end_triggers)

    def area_name(self, index: int) -> str:
        if index < 0:
            return "outside the dungeon"
        area = self.areas[index]
        kind = self.area_kinds[index]
        return f"{kind} {area['id']}" + (f" ({area['name']})" if area.get("name") else "")

    def penalised(self, index: int) -> bool:
        if index < 0:
            return False
        if self.switch("penalties_in") == "rooms_and_corridors":
            return True
        return self.area_kinds[index] == "room"


# -- the path -----------------------------------------------------------------------------------

@dataclass
class _Path:
    P: np.ndarray                    # (N, 2) points of the kept polylines, in order
    drawn: np.ndarray                # (N-1,) segment i -> i+1 is drawn (False: a portal jump)
    poly_first: list[int]            # index in P of each kept polyline's first point
    cum: np.ndarray                  # (N,) drawn length up to each point
    notes: list[str] = field(default_factory=list)

    def position(self, t: float) -> tuple[float, float]:
        n = len(self.P)
        if n == 1 or t <= 0:
            return float(self.P[0][0]), float(self.P[0][1])
        if t >= n - 1:
            return float(self.P[-1][0]), float(self.P[-1][1])
        j = int(math.floor(t))
        f = t - j
        p = self.P[j] + f * (self.P[j + 1] - self.P[j])
        return float(p[0]), float(p[1])

    def length_at(self, t: float) -> float:
        n = len(self.P)
        if t >= n - 1:
            return float(self.cum[-1])
        j = int(math.floor(max(t, 0)))
        seg = float(np.hypot(*(self.P[j + 1] - self.P[j]))) if self.drawn[j] else 0.0
        return float(self.cum[j] + (t - j) * seg)

    def t_at_length(self, length: float) -> float:
        if length >= self.cum[-1]:
            return INF
        j = int(np.searchsorted(self.cum, length, side="right")) - 1
        j = min(max(j, 0), len(self.P) - 2)
        seg = self.cum[j + 1] - self.cum[j]
        return j + ((length - self.cum[j]) / seg if seg > 0 else 0.0)


def _dedupe(points: np.ndarray) -> np.ndarray:
    if len(points) < 2:
        return points
    keep = np.ones(len(points), dtype=bool)
    keep[1:] = np.any(points[1:] != points[:-1], axis=1)
    return points[keep]


def _first_touch(points: np.ndarray, zones: list, tree) -> tuple[int, float, int] | None:
    """The first position ``(segment, fraction, zone)`` where the polyline enters one of the
    zones, or ``None``."""
    if tree is None:
        return None
    if len(points) == 1:
        hits = tree.query(shapely.points(points[0]), predicate="intersects")
        return (0, 0.0, int(hits.min())) if len(hits) else None
    segs = shapely.linestrings(np.stack([points[:-1], points[1:]], axis=1))
    seg_i, zone_i = tree.query(segs, predicate="intersects")
    if not len(seg_i):
        return None
    j = int(seg_i.min())
    best = (INF, -1)
    a, b = points[j], points[j + 1]
    v = b - a
    for q in zone_i[seg_i == j].tolist():
        zone = zones[q]
        if shapely.intersects_xy(zone, a[0], a[1]):
            f = 0.0
        else:
            coords = shapely.get_coordinates(shapely.intersection(segs[j], zone))
            if not len(coords):
                continue
            f = float(np.clip(((coords - a) @ v).min() / (v @ v), 0, 1))
        best = min(best, (f, q))
    if best[1] < 0:
        return None
    return j, best[0], best[1]


# -- referee ------------------------------------------------------------------------------------

def referee(rules: LineRules | dict, play: dict) -> dict:
    """Score ``play`` (a play document, docs/play-files.md) on a line dungeon: ``rules`` is a
    :class:`LineRules` or the game data's dungeon entry. Returns the breakdown as JSON-ready
    data (see :func:`format_breakdown`). Raises :class:`PlayError` when the play cannot be
    scored on this dungeon (its schema errors included), :class:`GameDataError` when the
    entry is not playable."""
    from inkcrawl.play import play_data_problems

    problems = play_data_problems(play, "play")
    if problems:
        raise PlayError([(p.pointer, p.message) for p in problems])
    if not isinstance(rules, LineRules):
        rules = LineRules(rules)
    return _Referee(rules, play).run()


class _Referee:
    def __init__(self, rules: LineRules, play: dict):
        self.r = rules
        self.play = play
        self.problems: list[tuple[str, str]] = []
        self._seg_tree = None
        self._seg_idx = None
        self.head_times: dict[int, np.ndarray] = {}

    # .. checking the play against the dungeon ..

    def _check(self) -> None:
        r, play = self.r, self.play
        if play.get("dungeon") not in (None, r.id):
            self.problems.append(("/dungeon", f"the play is of dungeon {play.get('dungeon')!r}, not {r.id!r}"))
        character = play.get("character")
        self.ability: str | None = None
        self.ability_vp = None
        self.character_name = None
        if character is not None:
            if character not in r.characters:
                known = ", ".join(sorted(r.characters)) or "none"
                self.problems.append(("/character", f"unknown character {character!r} (this game has: {known})"))
            else:
                definition = r.characters[character] or {}
                self.ability = definition.get("ability")
                self.ability_vp = definition.get("vp")
                self.character_name = definition.get("name") or character
                if self.ability not in ABILITIES:
                    self.problems.append(("/character", f"character {character!r} has the ability "
                                                        f"{self.ability!r}, which this referee does not know"))
        self.w = float(play.get("pen_width_mm") or r.pen_width_mm)
        if not (self.w > 0 and math.isfinite(self.w)):
            self.problems.append(("/pen_width_mm", "the pen width must be a positive number of mm"))
            self.w = r.pen_width_mm
        self.players = int(play.get("players") or 1)
        low, high = int(r.players.get("min", 1)), int(r.players.get("max", 4))
        if not low <= self.players <= high:
            self.problems.append(("/players", f"{self.players} players: this dungeon is for {low} to {high}"))
        self.supply = r.key_supply.get(str(self.players), 0)
        orb_colours = {e.colour for e in r.elements if e.kind == "orb"}
        for colour, positions in (play.get("orb_tokens") or {}).items():
            if colour not in r.orb_tokens and colour not in orb_colours:
                self.problems.append((f"/orb_tokens/{colour}", f"this dungeon has no {colour} orb tokens"))
            elif len(set(positions)) != len(positions):
                self.problems.append((f"/orb_tokens/{colour}", "a token position is listed twice"))
        for i, key_id in enumerate(play.get("keys_gone") or []):
            element = r.element_by_id.get(key_id)
            if element is None or element.kind not in ("key", "skeleton_key"):
                self.problems.append((f"/keys_gone/{i}", f"{key_id!r} is not a key of this dungeon"))
        for key_id, colour in (play.get("skeleton_keys") or {}).items():
            element = r.element_by_id.get(key_id)
            if element is None or element.kind != "skeleton_key":
                self.problems.append((f"/skeleton_keys/{key_id}", f"{key_id!r} is not a skeleton key of this dungeon"))
            elif colour not in r.key_colours:
                self.problems.append((f"/skeleton_keys/{key_id}", f"unknown key colour {colour!r} "
                                                                  f"(known: {', '.join(r.key_colours)})"))
        end = play.get("end")
        if end is not None:
            trigger = end.get("trigger")
            if not r.lists_trigger(trigger):
                listed = ", ".join(sorted({t.get("kind") for t in r.end_triggers if isinstance(t, dict)})) or "none"
                self.problems.append(("/end/trigger", f"the sheet does not list the end trigger {trigger!r} "
                                                      f"(it lists: {listed})"))

    # .. the path and portals ..

    def _build_path(self) -> _Path:
        r = self.r
        pen = r.for_pen(self.w)
        entries = [e for e in r.fp_elements if e.kind == "portal_entry"]
        zone_of = {e.index: pen["zones"][i] for i, e in enumerate(r.fp_elements)}
        entry_zones = [zone_of[e.index] for e in entries]
        entry_tree = STRtree(entry_zones) if entry_zones else None
        exits = [e for e in r.fp_elements if e.kind == "portal_exit"]
        raw = self.play.get("path") or []
        kept: list[np.ndarray] = []
        notes: list[str] = []
        self.portal_uses: list[dict] = []     # {"entry": _Element, "polyline": i, "exit": _Element|None}
        self.polyline_landing: dict[int, _Element] = {}
        previous_entry: _Element | None = None
        for i, line in enumerate(raw):
            points = _dedupe(np.asarray(line, dtype=float).reshape(-1, 2))
            if i == 0:
                first = points[0]
                best = min(r.starts, key=lambda s: math.hypot(first[0] - s["at"][0], first[1] - s["at"][1]))
                gap = math.hypot(first[0] - best["at"][0], first[1] - best["at"][1])
                if gap > best["radius"] + self.w / 2 + 1e-9:
                    self.problems.append(("/path/0/0", f"the path begins at ({first[0]:g}, {first[1]:g}), "
                                                       f"{gap:.1f} mm from the nearest Start {best['id']} at "
                                                       f"({best['at'][0]:g}, {best['at'][1]:g}): a path begins at a Start"))
                self.start = best
            else:
                if previous_entry is None:
                    self.problems.append((f"/path/{i}", f"polyline {i} follows polyline {i - 1}, which touches no "
                                                        f"portal entry: a new polyline starts only after a portal jump"))
                else:
                    channel = previous_entry.channel
                    candidates = [e for e in exits if e.channel == channel]
                    point = shapely.points(points[0])
                    landing = next((e for e in candidates if shapely.intersects(zone_of[e.index], point)), None)
                    if landing is None:
                        where = "; ".join(f"{e.id} at ({e.at[0]:g}, {e.at[1]:g})" for e in candidates) or "none"
                        self.problems.append((f"/path/{i}/0", f"polyline {i} starts at ({points[0][0]:g}, "
                                                              f"{points[0][1]:g}), not at a portal exit of channel "
                                                              f"{channel!r} (polyline {i - 1} touched portal entry "
                                                              f"{previous_entry.id}); exits of that channel: {where}"))
                    else:
                        self.polyline_landing[i] = landing
                        self.portal_uses[-1]["exit"] = landing
            hit = _first_touch(points, entry_zones, entry_tree)
            previous_entry = None
            if hit is not None:
                j, f, q = hit
                entry = entries[q]
                if len(points) > 1:
                    cut = points[j] + f * (points[j + 1] - points[j])
                    head = points[: j + 1]
                    points_kept = head if f == 0 else np.vstack([head, cut])
                    # points still on the entry are the pen coming down on it; the rest were drawn on
                    rest = points[j + 1:]
                    dropped = int(np.count_nonzero(~shapely.intersects_xy(entry_zones[q], rest[:, 0], rest[:, 1]))) \
                        if len(rest) else 0
                    if dropped > 0:
                        notes.append(f"polyline {i}: the pen lifts on touching portal entry {entry.id}; "
                                     f"{dropped} later point{'s' if dropped != 1 else ''} of this polyline "
                                     f"{'are' if dropped != 1 else 'is'} ignored")
                    points = points_kept
                previous_entry = entry
                self.portal_uses.append({"entry": entry, "polyline": i, "exit": None})
            kept.append(points)
        if self.problems:
            raise PlayError(self.problems)
        # flatten
        chunks, drawn, poly_first = [], [], []
        count = 0
        for i, points in enumerate(kept):
            if i:
                drawn.append(False)
            poly_first.append(count)
            if len(points) == 1:
                points = np.vstack([points, points])
            chunks.append(points)
            drawn.extend([True] * (len(points) - 1))
            count += len(points)
        P = np.vstack(chunks)
        drawn_arr = np.array(drawn, dtype=bool)
        seg_len = np.hypot(*(P[1:] - P[:-1]).T) * drawn_arr
        cum = np.concatenate([[0.0], np.cumsum(seg_len)])
        path = _Path(P, drawn_arr, poly_first, cum, notes)
        # the position of each portal touch: the end of its polyline
        for use in self.portal_uses:
            i = use["polyline"]
            last = poly_first[i] + max(len(kept[i]), 2) - 1
            use["t"] = float(last)
        return path

    # .. splitting the path at every boundary ..

    def _refine(self) -> None:
        path, pen = self.path, self.r.for_pen(self.w)
        P, drawn = path.P, path.drawn
        a, b = P[:-1], P[1:]
        v = b - a
        len2 = (v * v).sum(axis=1)
        live = np.flatnonzero(drawn & (len2 > 0))
        geoms = shapely.linestrings(np.stack([a[live], b[live]], axis=1)) if len(live) else np.array([], dtype=object)
        self.seg_live = live
        self.seg_geoms = geoms
        ts = [np.arange(len(P), dtype=float)]
        hit_t = np.zeros(0)
        hit_line = np.zeros(0, dtype=int)
        if len(geoms):
            gi, li = pen["line_tree"].query(geoms, predicate="intersects")
            if len(gi):
                inter = shapely.intersection(geoms[gi], pen["lines"][li])
                coords, ci = shapely.get_coordinates(inter, return_index=True)
                seg = live[gi[ci]]
                f = np.clip(((coords - a[seg]) * v[seg]).sum(axis=1) / len2[seg], 0.0, 1.0)
                hit_t = seg + f
                hit_line = li[ci]
                ts.append(hit_t)
        t_all = np.concatenate(ts)
        rounded = np.round(t_all)
        t_all = np.where(np.abs(t_all - rounded) < T_EPS, rounded, t_all)
        t_all.sort()
        keep = np.ones(len(t_all), dtype=bool)
        keep[1:] = np.diff(t_all) > T_EPS
        T = t_all[keep]
        # make sure every integer (a polyline vertex) is kept exactly
        j = np.minimum(np.floor(T).astype(int), len(P) - 2)
        f = T - j
        V = P[j] + f[:, None] * (P[j + 1] - P[j])
        M = len(T) - 1
        sub_seg = np.minimum(np.floor(T[:-1] + T_EPS).astype(int), len(P) - 2)
        sub_drawn = drawn[sub_seg]
        mids = (V[:-1] + V[1:]) / 2
        self.T, self.V, self.M, self.sub_drawn = T, V, M, sub_drawn
        # classify the pieces
        region = np.full(M, _VOID, dtype=int)
        region[~sub_drawn] = _JUMP
        live_sub = np.flatnonzero(sub_drawn)
        runs_by_poly: dict[int, np.ndarray] = {}
        if len(live_sub):
            mi, qi = pen["poly_tree"].query(shapely.points(mids[live_sub]), predicate="intersects")
            ks = live_sub[mi]
            roles = pen["roles"][qi]
            area_mask = roles == _AREA
            region[ks[area_mask]] = pen["refs"][qi[area_mask]]
            other = ~area_mask
            order = np.lexsort((ks[other], qi[other]))
            q_sorted, k_sorted = qi[other][order], ks[other][order]
            bounds = np.flatnonzero(np.diff(q_sorted)) + 1
            for q_group, k_group in zip(np.split(q_sorted, bounds), np.split(k_sorted, bounds)):
                if len(q_group):
                    runs_by_poly[int(q_group[0])] = k_group
        self.region = region
        roles, refs = pen["roles"], pen["refs"]
        self.zone_runs: dict[int, list[tuple[int, int]]] = {}
        self.foot_runs: dict[int, list[tuple[int, int]]] = {}
        for q, ks in runs_by_poly.items():
            runs = _runs(ks)
            if roles[q] == _ZONE:
                self.zone_runs[self.r.fp_elements[refs[q]].index] = runs
            elif roles[q] == _FOOT:
                self.foot_runs[self.r.run_elements[refs[q]].index] = runs
        # proper wall crossings, by refined vertex
        self.wall_vertices: dict[int, int] = {}
        wall_hits = pen["line_roles"][hit_line] == _WALL if len(hit_line) else np.zeros(0, dtype=bool)
        if wall_hits.any():
            t_w = hit_t[wall_hits]
            seg_w = pen["line_refs"][hit_line[wall_hits]]
            k = np.searchsorted(T, t_w - T_EPS * 2)
            k = np.clip(k, 0, M)
            near = np.abs(T[np.minimum(k + 1, M)] - t_w) < np.abs(T[k] - t_w)
            k = np.where(near, np.minimum(k + 1, M), k)
            seen = set()
            for vertex, s in zip(k.tolist(), seg_w.tolist()):
                wall = int(self.r.wall_seg_wall[s])
                if (vertex, wall) in seen or vertex in self.wall_vertices:
                    continue
                seen.add((vertex, wall))
                if 0 < vertex < M and sub_drawn[vertex - 1] and sub_drawn[vertex] and \
                        crosses(self.r.network, wall, int(self.r.wall_seg_index[s]), V[vertex], mids[vertex - 1],
                                mids[vertex]):
                    self.wall_vertices[vertex] = wall
        self.mids = mids
        # drawn length at each refined vertex
        seg_len = np.hypot(*(P[1:] - P[:-1]).T) * drawn
        jv = np.minimum(np.floor(T + T_EPS).astype(int), len(P) - 2)
        self.L = path.cum[jv] + (T - jv) * seg_len[jv]
        self._snap_walls_to_changes()

    def _snap_walls_to_changes(self) -> None:
        """A wall crossed within WALL_SNAP_MM (along the path) of a change of area belongs to
        that change: walls drawn a little off the shared boundary of two areas (within the
        snap tolerance) still close it."""
        region, L = self.region, self.L
        if not self.wall_vertices:
            return
        k = np.arange(1, self.M)
        change = k[(region[1:] != region[:-1]) & (region[1:] != _JUMP) & (region[:-1] != _JUMP)]
        if not len(change):
            return
        moved: dict[int, int] = {}
        for vertex, wall in self.wall_vertices.items():
            if region[vertex - 1] != region[vertex]:
                moved[vertex] = wall
                continue
            i = int(np.argmin(np.abs(L[change] - L[vertex])))
            target = int(change[i])
            lo, hi = min(target, vertex), max(target, vertex)
            if abs(L[target] - L[vertex]) <= WALL_SNAP_MM and self.sub_drawn[lo:hi].all():
                moved[target] = wall
            else:
                moved[vertex] = wall
        self.wall_vertices = moved

    # .. events of elements ..

    def _earliest(self, samples: np.ndarray, geoms: np.ndarray, d: float) -> np.ndarray:
        """For each sample point (coordinates and shapely points), the first position at which
        the path is within ``d`` of it."""
        out = np.full(len(samples), INF)
        if not len(samples):
            return out
        path = self.path
        P, drawn = path.P, path.drawn
        if self._seg_tree is None and self._seg_idx is None:
            idx = np.flatnonzero(drawn)
            a, b = P[idx], P[idx + 1]
            zero = np.all(a == b, axis=1)
            segments = np.empty(len(idx), dtype=object)
            if (~zero).any():
                segments[~zero] = shapely.linestrings(np.stack([a[~zero], b[~zero]], axis=1))
            if zero.any():
                segments[zero] = shapely.points(a[zero])
            self._seg_idx = idx
            self._seg_tree = STRtree(segments) if len(segments) else None
        if self._seg_tree is None:
            return out
        pi, si = self._seg_tree.query(geoms, predicate="dwithin", distance=d + 1e-9)
        if not len(pi):
            return out
        seg = self._seg_idx[si]
        a = P[seg]
        v = P[seg + 1] - a
        ap = a - samples[pi]
        A = (v * v).sum(axis=1)
        B = 2 * (v * ap).sum(axis=1)
        C = (ap * ap).sum(axis=1) - d * d
        disc = np.maximum(B * B - 4 * A * C, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(C <= 0, 0.0, (-B - np.sqrt(disc)) / (2 * A))
        f = np.clip(np.nan_to_num(f, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
        t = seg + f
        order = np.lexsort((t, pi))
        pi_sorted = pi[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = pi_sorted[1:] != pi_sorted[:-1]
        out[pi_sorted[first]] = t[order][first]
        return out

    def _element_events(self) -> None:
        r, w = self.r, self.w
        T = self.T
        n = len(r.elements)
        self.touch_t = np.full(n, INF)
        for index, runs in self.zone_runs.items():
            self.touch_t[index] = T[runs[0][0]]
        self.done_t = np.full(n, INF)         # completion by the element's own interaction
        self.detail: dict[int, str] = {}
        # cover
        self.cover_times: dict[int, np.ndarray] = {}
        if len(r.cover_samples):
            times = self._earliest(r.cover_samples, r.cover_geoms, w / 2)
            for e, sl in zip(r.cover_elements, r.cover_slices):
                self.cover_times[e.index] = times[sl]
                self.done_t[e.index] = _quantile_time(times[sl], e.min_coverage)
        self.head_t = np.full(n, INF)
        if self.ability == "monster_by_head" and len(r.head_samples):
            times = self._earliest(r.head_samples, r.head_geoms, w / 2)
            for e, sl in zip(r.head_elements, r.head_slices):
                self.head_times[e.index] = times[sl]
                self.head_t[e.index] = _quantile_time(times[sl], e.min_coverage)
        # trace
        self.trace_times: dict[int, np.ndarray] = {}
        by_distance: dict[float, list[int]] = {}
        for i, e in enumerate(r.trace_elements):
            # within max_distance_pen_widths of the stroke: of the centre line plus half the pen
            by_distance.setdefault(e.trace_pen_widths * w + w / 2, []).append(i)
        for d, members in by_distance.items():
            parts = [r.trace_samples[r.trace_slices[i]] for i in members]
            geoms = np.concatenate([r.trace_geoms[r.trace_slices[i]] for i in members])
            times = self._earliest(np.concatenate(parts), geoms, d)
            start = 0
            for i, part in zip(members, parts):
                e = r.trace_elements[i]
                sample_times = times[start:start + len(part)]
                start += len(part)
                self.trace_times[e.index] = sample_times
                self.done_t[e.index] = float(sample_times.max())
        # touch, enter, pass through
        for e in r.elements:
            if e.interaction == "touch":
                self.done_t[e.index] = self.touch_t[e.index]
            elif e.interaction == "enter":
                runs = self.foot_runs.get(e.index)
                self.done_t[e.index] = T[runs[0][0]] if runs else INF
            elif e.interaction == "pass_through":
                self.done_t[e.index] = self._pass_through(e)
        for use in self.portal_uses:
            self.done_t[use["entry"].index] = min(self.done_t[use["entry"].index], use["t"])
            self.touch_t[use["entry"].index] = min(self.touch_t[use["entry"].index], use["t"])
        # abilities
        self.ability_t = np.full(n, INF)
        for e in r.elements:
            if self.ability == "treasure_by_touch" and e.kind == "treasure":
                self.ability_t[e.index] = self.touch_t[e.index]
            elif self.ability == "spell_by_circle" and e.kind == "spell":
                self.ability_t[e.index] = self._circle(e)
            elif self.ability == "monster_by_head" and e.kind == "monster":
                self.ability_t[e.index] = self.head_t[e.index]
        self.complete_t = np.minimum(self.done_t, self.ability_t)

    def _pass_through(self, e: _Element) -> float:
        runs = self.foot_runs.get(e.index) or []
        M, T, V, drawn = self.M, self.T, self.V, self.sub_drawn
        cx, cy = e.at
        for k0, k1 in runs:
            if k0 == 0 or not drawn[k0 - 1] or k1 + 1 >= M or not drawn[k1 + 1]:
                continue
            p, q = V[k0], V[k1 + 1]
            a1 = math.atan2(p[1] - cy, p[0] - cx)
            a2 = math.atan2(q[1] - cy, q[0] - cx)
            angle = abs((math.degrees(a2 - a1) + 180) % 360 - 180)
            if angle >= PASS_THROUGH_MIN_ANGLE - 1e-9:
                return float(T[k1 + 1])
        return INF

    def _circle(self, e: _Element) -> float:
        """The Wizard's circle: the first time the path closes a loop inside the spell's
        footprint enclosing at least a pen dot."""
        runs = self.foot_runs.get(e.index) or []
        min_area = math.pi * (self.w / 2) ** 2
        best = INF
        for k0, k1 in runs:
            pts = self.V[k0:k1 + 2]
            ts = self.T[k0:k1 + 2]
            n = len(pts) - 1
            if n < 3:
                continue
            segs = shapely.linestrings(np.stack([pts[:-1], pts[1:]], axis=1))
            ii, jj = STRtree(segs).query(segs, predicate="intersects")
            sel = jj > ii + 1
            ii, jj = ii[sel], jj[sel]
            if not len(ii):
                continue
            cross = pts[:-1, 0] * pts[1:, 1] - pts[1:, 0] * pts[:-1, 1]
            prefix = np.concatenate([[0.0], np.cumsum(cross)])
            for i, j in sorted(zip(ii.tolist(), jj.tolist()), key=lambda ij: ij[1]):
                x = _segment_intersection(pts[i], pts[i + 1], pts[j], pts[j + 1])
                if x is None:
                    continue
                # loop: x -> pts[i+1] -> ... -> pts[j] -> x
                s = prefix[j] - prefix[i + 1]
                s += pts[j][0] * x[1] - x[0] * pts[j][1]
                s += x[0] * pts[i + 1][1] - pts[i + 1][0] * x[1]
                if abs(s) / 2 >= min_area:
                    seg_len2 = float(((pts[j + 1] - pts[j]) ** 2).sum())
                    f = float(((x - pts[j]) @ (pts[j + 1] - pts[j])) / seg_len2) if seg_len2 > 0 else 0.0
                    best = min(best, float(ts[j] + f * (ts[j + 1] - ts[j])))
                    break
        return best

    # .. artifact groups ..

    def _group_events(self) -> None:
        any_order = self.ability == "artifacts_any_order"
        self.group_done: list[float] = []
        self.group_touch: list[float] = []
        for group in self.r.groups:
            stones = group["stones"]
            self.group_touch.append(min(float(self.touch_t[s.index]) for s in stones))
            if any_order:
                self.group_done.append(max(float(self.touch_t[s.index]) for s in stones))
                continue
            t = -INF
            for stone in stones:
                t = self._touch_after(stone, t)
                if t == INF:
                    break
            self.group_done.append(t)

    def _touch_after(self, stone: _Element, t: float) -> float:
        for k0, k1 in self.zone_runs.get(stone.index, []):
            start, end = self.T[k0], self.T[k1 + 1]
            if end >= t:
                return float(max(start, t))
        return INF

    # .. orbs and end triggers ..

    def _orbs_and_ends(self) -> None:
        r = self.r
        given = {c: list(v) for c, v in (self.play.get("orb_tokens") or {}).items()}
        covered = sorted((float(self.done_t[e.index]), e.index) for e in r.elements
                         if e.kind == "orb" and self.done_t[e.index] < INF)
        self.takes = []
        counters: dict[str, int] = {}
        for t, index in covered:
            e = r.elements[index]
            colour = e.colour
            i = counters.get(colour, 0)
            counters[colour] = i + 1
            positions = given.get(colour, [])
            if i < len(positions):
                position = int(positions[i])
            else:
                position = (int(positions[-1]) if positions else 0) + (i - len(positions)) + 1
            self.takes.append({"t": t, "element": e, "colour": colour, "position": position})
        self.orb_notes = []
        for colour, positions in given.items():
            if len(positions) > counters.get(colour, 0):
                self.orb_notes.append(f"the play lists {len(positions)} {colour} token(s), the path covers "
                                      f"{counters.get(colour, 0)} {colour} orb(s)")
        # end triggers
        ends: list[tuple[float, str, int | None]] = [(float(len(self.path.P) - 1), "the path ends", None)]
        for e in r.elements:
            t = float(self.complete_t[e.index]) if e.kind != "boss" else float(self.done_t[e.index])
            if t == INF:
                continue
            if e.kind == "boss" and r.lists_trigger("boss_covered"):
                ends.append((t, f"{_describe(e)} covered", e.index))
            elif e.kind == "escape_portal" and r.lists_trigger("escape_portal"):
                ends.append((t, f"{_describe(e)} entered", e.index))
            elif e.kind == "exit" and r.lists_trigger("exit_reached"):
                ends.append((t, f"{_describe(e)} reached", e.index))
        for take in self.takes:
            stack = len(r.orb_tokens.get(take["colour"], []))
            for trigger in r.end_triggers:
                if not isinstance(trigger, dict) or trigger.get("kind") != "orb_taken":
                    continue
                if trigger.get("colour") not in (None, take["colour"]):
                    continue
                when = trigger.get("when", "first")
                if (when == "first" and take["position"] == 1) or (when == "last" and take["position"] == stack):
                    ends.append((take["t"], f"the {when} {take['colour']} orb token taken ({_describe(take['element'])})",
                                 take["element"].index))
        end = self.play.get("end")
        if end is not None:
            t = self._end_position(end)
            label = _OTHER_END.get(end["trigger"], "another player ended the scrawl")
            if t == INF:
                self.path.notes.append(f"the play's end ({label}) lies after the end of the path")
            ends.append((t, label, None))
        ends.sort(key=lambda x: x[0])
        self.t_end, self.end_reason, self.end_element = ends[0]

    def _end_position(self, end: dict) -> float:
        at = end.get("at") or {}
        if "length_mm" in at:
            return self.path.t_at_length(float(at["length_mm"]))
        polyline, point = int(at.get("polyline", 0)), int(at.get("point", 0))
        raw = self.play.get("path") or []
        if polyline >= len(raw):
            raise PlayError([("/end/at/polyline", f"the path has {len(raw)} polyline(s), no polyline {polyline}")])
        if point >= len(raw[polyline]):
            raise PlayError([("/end/at/point", f"polyline {polyline} has {len(raw[polyline])} point(s), "
                                               f"no point {point}")])
        # the same point in the kept path: points are deduplicated and cut at portals
        original = _dedupe_index(np.asarray(raw[polyline], dtype=float).reshape(-1, 2), point)
        first = self.path.poly_first[polyline]
        last = (self.path.poly_first[polyline + 1] - 1) if polyline + 1 < len(self.path.poly_first) \
            else len(self.path.P) - 1
        t = float(min(first + original, last))
        if t >= len(self.path.P) - 1:
            return INF
        return t

    # .. the walk through the areas ..

    def _walk(self) -> None:
        r, T, V = self.r, self.T, self.V
        region = self.region
        t_end = self.t_end
        wall_vp = r.switch_vp("wall_crossing_vp", "wall_crossing")
        per_excursion = r.switch("wall_crossing_count") != "per_wall_segment"
        poke_back = r.switch("wall_poke") == "out_and_back"
        self.sections: list[dict] = []
        self.wall_lines: list[tuple[int, dict]] = []
        self.key_lines: list[tuple[int, dict]] = []
        self.door_lines: list[tuple[int, dict]] = []
        self.illegal: dict | None = None
        held: list[str] = []
        gone = set(self.play.get("keys_gone") or [])
        choices = dict(self.play.get("skeleton_keys") or {})
        key_events = sorted((float(self.touch_t[e.index]), e.index) for e in r.elements
                            if e.kind in ("key", "skeleton_key") and self.touch_t[e.index] < INF)
        door_passes = self._door_passes()

        def new_section(area: int, t: float, via: str) -> None:
            self.sections.append({"area": area, "t0": t, "via": via})

        # the start: the line is in the Start's area from its first point (in another area when it
        # begins inside one, within the Start's reach); begun outside the outline, it is outside
        # that area, having left it through the Start's entrance gap
        live = np.flatnonzero(region != _JUMP)
        first_region = int(region[live[0]]) if len(live) else _VOID
        cur = first_region if first_region >= 0 else self.start["area"]
        outside = first_region < 0
        new_section(cur, 0.0, f"from Start {self.start['id']}")
        excursion_walls, excursion_at = 0, None
        # event vertices: region changes and wall crossings
        change = np.flatnonzero(region[1:] != region[:-1]) + 1
        vertices = sorted(set(change.tolist()) | set(self.wall_vertices))
        key_i = 0

        def take_keys(until: float) -> None:
            nonlocal key_i
            while key_i < len(key_events) and key_events[key_i][0] <= until:
                t, index = key_events[key_i]
                key_i += 1
                self._take_key(r.elements[index], t, held, gone, choices, door_passes)

        def penalty(count: int, at, t: float, what: str) -> None:
            vp = wall_vp if per_excursion else wall_vp * count
            self.wall_lines.append((len(self.sections) - 1, {
                "_t": t, "kind": "wall_crossing", "vp": vp, "at": _round_point(at),
                "text": what + ("" if per_excursion or count == 1 else f" ({count} crossings)")}))

        for k in vertices:
            t = float(T[k])
            if t >= t_end:
                break
            take_keys(t)
            r0, r1 = int(region[k - 1]), int(region[k])
            walls = 1 if k in self.wall_vertices else 0
            point = V[k]
            if r1 == _JUMP:
                continue
            if r0 == _JUMP:
                landing = self.polyline_landing.get(_polyline_of(self.path, t))
                area = r1 if r1 >= 0 else (landing.area if landing is not None else cur)
                if area != cur:
                    channel = landing.channel if landing is not None else "?"
                    new_section(area, t, f"through portal {channel}" + (f" (exit {landing.id})" if landing else ""))
                cur, outside, excursion_walls = area, r1 < 0, 0
                continue
            if r0 == r1:
                if walls and r1 == cur and r1 >= 0:
                    penalty(1, point, t, f"crossed a wall at ({point[0]:.1f}, {point[1]:.1f}), staying in the same area")
                elif walls:
                    excursion_walls += walls
                    excursion_at = excursion_at if excursion_at is not None else point
                continue
            if r1 == _VOID:
                if r0 == cur:
                    outside = True
                    excursion_walls, excursion_at = walls, (point if walls else None)
                else:
                    excursion_walls += walls
                continue
            if r1 == cur:
                total = excursion_walls + walls
                if total:
                    where = excursion_at if excursion_at is not None else point
                    penalty(total, where, t, f"crossed a wall at ({where[0]:.1f}, {where[1]:.1f}) and came back "
                                             f"into the same area")
                outside, excursion_walls, excursion_at = False, 0, None
                continue
            # into another area
            total = (excursion_walls if outside else 0) + walls
            into = r.area_name(r1)
            door = self._door_at(cur, r1, point) if not total else None
            joined = door is not None or frozenset((r.areas[cur]["id"], r.areas[r1]["id"])) in r.open_pairs \
                if cur >= 0 else False
            if not total and not joined:
                total = 1  # no opening or door joins the two areas: the line crossed their wall
            if total:
                if poke_back and self._straight_back(k, r1, cur):
                    # out through a wall and straight back: an excursion (wall_poke: out_and_back)
                    outside = True
                    excursion_walls = total
                    excursion_at = point if excursion_at is None else excursion_at
                    continue
                self.illegal = {"t": t, "at": _round_point(point),
                                "text": f"crossed a wall into {into}: everything drawn from here on is ignored"}
                break
            if door is not None:
                if not _door_opens(door["locks"], held):
                    have = ", ".join(held) or "no key"
                    self.illegal = {"t": t, "at": _round_point(point),
                                    "text": f"went through locked door {door['id']} (locks: {', '.join(door['locks'])}) "
                                            f"holding {have}: everything drawn from here on is ignored"}
                    break
                new_section(r1, t, f"through door {door['id']}")
                self.door_lines.append((len(self.sections) - 1, {
                    "_t": t, "kind": "door", "vp": 0, "element": door["id"],
                    "text": f"door {door['id']} opened (locks: {', '.join(door['locks'])}; keys held: {', '.join(held)})"}))
            else:
                new_section(r1, t, "through an opening")
            cur, outside, excursion_walls, excursion_at = r1, False, 0, None
        self.t_illegal = self.illegal["t"] if self.illegal else INF
        self.t_score = min(self.t_end, self.t_illegal)
        take_keys(self.t_score)
        if outside and excursion_walls and not self.illegal:
            penalty(excursion_walls, excursion_at if excursion_at is not None else self.path.position(self.t_score),
                    self.t_score, "crossed a wall out of the area and never came back")
        for i, section in enumerate(self.sections):
            section["t1"] = self.sections[i + 1]["t0"] if i + 1 < len(self.sections) else self.t_score
        self.final_area = cur

    def _straight_back(self, k: int, area: int, home: int) -> bool:
        """Whether the path, having entered ``area`` at refined vertex ``k``, next changes area
        straight back into ``home`` (the ``wall_poke: out_and_back`` reading)."""
        region = self.region
        for j in range(k + 1, self.M):
            if region[j] == area:
                continue
            return int(region[j]) == home
        return False

    def _door_passes(self) -> list[tuple[float, list[str]]]:
        """Where the path goes from one area straight into another near a door (the skeleton
        key's look-ahead): ``(t, locks)`` in path order."""
        if not self.r.doors:
            return []
        region = self.region
        out = []
        for k in (np.flatnonzero((region[1:] != region[:-1]) & (region[1:] >= 0)) + 1).tolist():
            point = shapely.points(self.V[k])
            for door in self.r.doors:
                if shapely.distance(door["geom"], point) <= DOOR_TOLERANCE_MM:
                    out.append((float(self.T[k]), door["locks"]))
                    break
        return out

    def _door_at(self, a: int, b: int, point) -> dict | None:
        if a < 0 or b < 0:
            return None
        ids = frozenset((self.r.areas[a]["id"], self.r.areas[b]["id"]))
        candidates = [d for d in self.r.doors if d["pair"] == ids]
        if not candidates:
            return None
        p = shapely.points(point)
        distances = [float(shapely.distance(d["geom"], p)) for d in candidates]
        best = int(np.argmin(distances))
        if distances[best] <= DOOR_TOLERANCE_MM or ids not in self.r.open_pairs:
            return candidates[best]
        return None

    def _take_key(self, e: _Element, t: float, held: list[str], gone: set, choices: dict,
                  door_passes: list) -> None:
        section = self._section_at(t)
        line = {"_t": t, "kind": "key", "vp": 0, "element": e.id}
        if e.id in gone or self.supply <= 0:
            line["text"] = f"touched {_describe(e)}: no token left"
        elif e.kind == "key":
            if e.colour in held:
                line["text"] = f"touched {_describe(e)}: already holds a {e.colour} key"
            else:
                held.append(e.colour)
                line["text"] = f"took the {e.colour} key ({_describe(e)})"
        else:
            colour = choices.get(e.id)
            if colour is None:
                colour = self._skeleton_choice(t, held, door_passes)
            if colour is None or colour in held:
                line["text"] = f"touched {_describe(e)}: no key colour left to take"
            else:
                held.append(colour)
                how = "named in the play" if e.id in choices else "the referee's choice: the play names none"
                line["text"] = f"took a {colour} key with {_describe(e)} ({how})"
        self.key_lines.append((section, line))

    def _skeleton_choice(self, t: float, held: list[str], door_passes: list) -> str | None:
        free = [c for c in self.r.key_colours if c not in held]
        if not free:
            return None
        for when, locks in door_passes:
            if when <= t or _door_opens(locks, held):
                continue
            for colour in free:
                if colour in locks:
                    return colour
            if "skeleton" in locks:
                return free[0]
        return free[0]

    def _section_at(self, t: float) -> int:
        index = 0
        for i, section in enumerate(self.sections):
            if section["t0"] <= t:
                index = i
        return index

    # .. scoring ..

    def run(self) -> dict:
        self._check()
        self.path = self._build_path()  # raises PlayError with every problem found
        self._refine()
        self._element_events()
        self._group_events()
        self._orbs_and_ends()
        self._walk()
        return self._score()

    def _vp(self, e: _Element) -> int:
        if self.ability == "plant_vp" and e.kind == "plant" and isinstance(self.ability_vp, (int, float)):
            return int(self.ability_vp)
        if e.vp is not None:
            return int(e.vp)
        if e.kind == "boss":
            vp = e.data.get("boss_vp", self.r.term_vp("boss", 0))
            return int(vp or 0)
        return 0

    def _completion_detail(self, e: _Element, t: float) -> str:
        if e.interaction == "cover" or (e.kind == "monster" and self.ability == "monster_by_head"):
            by_head = self.head_t[e.index] <= t and self.done_t[e.index] > t
            if by_head:
                return "head covered (Barbarian)"
            return f"covered ({_fraction(self.cover_times.get(e.index), self.t_score):.0%})"
        if e.kind == "treasure" and self.ability == "treasure_by_touch" and self.done_t[e.index] > t:
            return "touched (Rogue)"
        if e.kind == "spell" and self.ability == "spell_by_circle" and self.done_t[e.index] > t:
            return "circle drawn inside it (Wizard)"
        return {"trace": "traced", "touch": "touched", "pass_through": "passed through",
                "enter": "entered"}.get(e.interaction, "completed")

    def _failure_detail(self, e: _Element) -> str:
        t = self.t_score
        if e.interaction == "cover":
            return f"only {_fraction(self.cover_times.get(e.index), t):.0%} covered (needs {e.min_coverage:.0%})"
        if e.interaction == "trace":
            return f"only {_fraction(self.trace_times.get(e.index), t):.0%} traced"
        if e.interaction == "pass_through":
            return "touched but not passed through"
        return "attempted, not completed"

    def _score(self) -> dict:
        r = self.r
        sections = self.sections
        lines: list[list[dict]] = [[] for _ in sections]
        exempt = len(sections) - 1 if (r.switch("end_room_exempt") and not self.illegal) else None
        last_of: dict[int, int] = {}
        for i, section in enumerate(sections):
            last_of[section["area"]] = i
        each_visit = r.switch("reentry") == "each_visit"

        # the things to settle: elements with a VP or a penalty, then artifact groups
        items = []
        for e in r.elements:
            if e.kind == "orb":  # its VP is a token (the orb lines); left uncovered: listed, no penalty
                items.append({"label": _describe(e), "area": e.area, "done": float(self.done_t[e.index]),
                              "touch": float(self.touch_t[e.index]), "vp": 0, "penalised": False, "orb": True,
                              "element": e})
                continue
            if e.interaction in ("connect_in_order", "none", "pass_with_keys"):
                continue
            if e.kind == "portal_entry":
                items.append({"label": _describe(e), "area": e.area, "done": float(self.done_t[e.index]),
                              "touch": float(self.touch_t[e.index]), "vp": 0, "penalised": e.penalty,
                              "missed_vp": int(r.switch_vp("unused_portal_entry_vp", "unused_portal_entry")),
                              "failed_vp": 0, "portal": True, "element": e})
                continue
            vp = self._vp(e)
            if vp == 0 and not e.penalty:
                continue
            done = self.done_t[e.index] if e.kind == "boss" else self.complete_t[e.index]
            items.append({"label": _describe(e), "area": e.area, "done": float(done),
                          "touch": float(self.touch_t[e.index]), "vp": vp, "penalised": e.penalty and vp != 0,
                          "missed_vp": -vp, "failed_vp": 0, "element": e, "boss": e.kind == "boss"})
        group_vp = int(r.term_vp("artifact_group", next((s.vp for g in r.groups for s in g["stones"]
                                                          if s.vp is not None), 1)))
        untouched_vp = int(r.switch_vp("artifact_untouched_group_vp", "artifact_untouched_group"))
        partial_vp = int(r.switch_vp("artifact_partial_group_vp", "artifact_partial_group"))
        for g, group in enumerate(r.groups):
            items.append({"label": group["label"], "area": group["area"], "done": self.group_done[g],
                          "touch": self.group_touch[g], "vp": group_vp,
                          "penalised": any(s.penalty for s in group["stones"]),
                          "missed_vp": untouched_vp, "failed_vp": partial_vp, "group": group})

        boss_lines: list[dict] = []
        for item in items:
            self._settle(item, lines, boss_lines, last_of, exempt, each_visit)
        for s, line in [*self.wall_lines, *self.key_lines, *self.door_lines]:
            lines[s].append(line)

        # orbs
        orb_lines = []
        for take in self.takes:
            if take["t"] > self.t_end:
                continue
            e = take["element"]
            values = r.orb_tokens.get(take["colour"], [])
            position = take["position"]
            ordinal = _ordinal(position)
            if take["t"] > self.t_illegal:
                orb_lines.append({"kind": "orb", "vp": 0, "element": e.id, "position": position,
                                  "text": f"{_describe(e)}: {take['colour']} token {ordinal} taken after the illegal "
                                          f"crossing, 0"})
            elif position > len(values):
                orb_lines.append({"kind": "orb", "vp": 0, "element": e.id, "position": position,
                                  "text": f"{_describe(e)}: covered, no {take['colour']} token left"})
            else:
                orb_lines.append({"kind": "orb", "vp": int(values[position - 1]), "element": e.id,
                                  "position": position,
                                  "text": f"{_describe(e)}: {take['colour']} token {ordinal}"})
        for note in self.orb_notes:
            orb_lines.append({"kind": "note", "vp": 0, "text": note})

        out_sections = []
        for i, section in enumerate(sections):
            area = section["area"]
            subtotal = sum(line["vp"] for line in lines[i])
            out_sections.append({
                "number": i + 1,
                "area": r.areas[area]["id"] if area >= 0 else None,
                "area_kind": r.area_kinds[area] if area >= 0 else None,
                "name": r.areas[area].get("name") if area >= 0 else None,
                "title": r.area_name(area),
                "entered": section["via"],
                "from_mm": round(self.path.length_at(section["t0"]), 1),
                "to_mm": round(self.path.length_at(section["t1"]), 1),
                "lines": _in_path_order(lines[i]),
                "subtotal": subtotal,
            })
        orb_total = sum(line["vp"] for line in orb_lines)
        boss_total = sum(line["vp"] for line in boss_lines)
        total = sum(s["subtotal"] for s in out_sections) + orb_total + boss_total
        end_t = self.t_end
        end = {"reason": self.end_reason,
               "at": _round_point(self.path.position(min(end_t, len(self.path.P) - 1))),
               "length_mm": round(self.path.length_at(min(end_t, len(self.path.P) - 1)), 1),
               "exempt_area": (r.areas[sections[exempt]["area"]]["id"]
                               if exempt is not None and sections[exempt]["area"] >= 0 else None)}
        return {
            "type": "score",
            "dungeon": {"id": r.id, "title": r.title},
            "player": self.play.get("player"),
            "character": self.play.get("character"),
            "character_name": self.character_name,
            "pen_width_mm": self.w,
            "players": self.players,
            "sections": out_sections,
            "orbs": {"lines": orb_lines, "subtotal": orb_total},
            "boss": {"lines": boss_lines, "subtotal": boss_total},
            "end": end,
            "ignored": self.illegal and {"reason": self.illegal["text"], "at": self.illegal["at"],
                                         "length_mm": round(self.path.length_at(self.illegal["t"]), 1)},
            "notes": list(self.path.notes),
            "total": total,
        }

    def _settle(self, item: dict, lines: list, boss_lines: list, last_of: dict, exempt: int | None,
                each_visit: bool) -> None:
        """Score one element (or artifact group): completed where it was completed; missed,
        failed or exempt in the section that settles it (see the module docstring)."""
        r, sections, t_score = self.r, self.sections, self.t_score
        area, done_t, ident = item["area"], item["done"], _item_id(item)
        if item.get("orb"):
            # covered before the end: its token is on the orb lines (0 after an illegal crossing)
            if done_t > self.t_end and area in last_of:
                lines[last_of[area]].append({"kind": "optional", "vp": 0, "element": ident,
                                             "text": f"{item['label']}: not covered (no penalty)"})
            return
        done = done_t <= t_score
        if item.get("boss"):
            e = item["element"]
            if done:
                ends = " (ends the scrawl)" if self.end_element == e.index else ""
                boss_lines.append({"kind": "completed", "vp": item["vp"], "element": ident,
                                   "text": f"{item['label']}: covered "
                                           f"({_fraction(self.cover_times.get(e.index), t_score):.0%}){ends}"})
            elif self.illegal and done_t <= self.t_end:
                scores = r.switch("boss_after_illegal_crossing") == "ends_scores_vp"
                boss_lines.append({"kind": "completed" if scores else "failed", "vp": item["vp"] if scores else 0,
                                   "element": ident,
                                   "text": f"{item['label']}: covered after the illegal crossing: ends the scrawl and "
                                           f"{'scores its VP' if scores else 'scores 0'}"})
                return
            else:
                boss_lines.append({"kind": "note", "vp": 0, "element": ident, "text": f"{item['label']}: not covered"})
        elif done:
            line = {"kind": "portal", "vp": 0, "element": ident, "text": f"{item['label']}: used (the pen lifts)"} \
                if item.get("portal") else \
                {"kind": "completed", "vp": item["vp"], "element": ident,
                 "text": f"{item['label']}: {self._done_text(item)}"}
            line["_t"] = done_t
            lines[self._section_at(done_t)].append(line)
        if area not in last_of:
            return  # never entered
        if not (item["penalised"] and r.penalised(area)):
            if not done:
                lines[last_of[area]].append({"kind": "optional", "vp": 0, "element": ident,
                                             "text": f"{item['label']}: not completed ({self._why_optional(area)})"})
            return
        visits = [i for i, s in enumerate(sections) if s["area"] == area]
        left = [i for i in visits if i != exempt]
        if each_visit:
            charged = next((i for i in left if item["touch"] > sections[i]["t1"] and done_t > sections[i]["t1"]), None)
        else:
            charged = last_of[area] if (not done and last_of[area] != exempt and item["touch"] > t_score) else None
        if charged is not None:
            lines[charged].append({"kind": "unused_portal" if item.get("portal") else "missed",
                                   "vp": item["missed_vp"], "element": ident,
                                   "text": f"{item['label']}: " + ("not used" if item.get("portal") else
                                                                  "untouched" if "group" in item else "missed")})
            return
        if done:
            return
        settled_left = bool(left) if each_visit else last_of[area] != exempt
        if settled_left:
            lines[left[-1] if each_visit else last_of[area]].append({
                "kind": "failed", "vp": item["failed_vp"], "element": ident,
                "text": f"{item['label']}: {self._failed_text(item)}"})
        else:
            lines[last_of[area]].append({"kind": "exempt", "vp": 0, "element": ident,
                                         "text": f"{item['label']}: not completed, no penalty (the scrawl ended "
                                                 f"in this area)"})

    def _done_text(self, item: dict) -> str:
        if "group" in item:
            how = "any order (Cleric)" if self.ability == "artifacts_any_order" else "in order"
            return f"connected {how}"
        return self._completion_detail(item["element"], item["done"])

    def _failed_text(self, item: dict) -> str:
        if "group" in item:
            touched = sum(self.touch_t[s.index] <= self.t_score for s in item["group"]["stones"])
            return f"partly connected ({touched} of {len(item['group']['stones'])} stones touched)"
        return self._failure_detail(item["element"])

    def _why_optional(self, area: int) -> str:
        if not self.r.penalised(area):
            return f"{self.r.area_kinds[area]} elements are optional"
        return "no penalty"


# -- small helpers ------------------------------------------------------------------------------

def _in_path_order(section_lines: list[dict]) -> list[dict]:
    """A section's lines in the order the path met them: completions, keys, doors and wall
    crossings where they happened, then what was settled when the area was left (missed,
    failed, exempt, optional), in element order."""
    ordered = sorted(section_lines, key=lambda line: line.get("_t", INF))
    for line in ordered:
        line.pop("_t", None)
    return ordered


def _runs(ks: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive runs ``(first, last)`` of sorted piece indexes."""
    if not len(ks):
        return []
    breaks = np.flatnonzero(np.diff(ks) != 1)
    starts = ks[np.concatenate([[0], breaks + 1])]
    ends = ks[np.concatenate([breaks, [len(ks) - 1]])]
    return list(zip(starts.tolist(), ends.tolist()))


def _quantile_time(times: np.ndarray, fraction: float) -> float:
    """The first position at which at least ``fraction`` of the samples are reached."""
    n = len(times)
    if not n:
        return INF
    k = min(n, max(1, int(math.ceil(fraction * n - 1e-9))))
    return float(np.partition(times, k - 1)[k - 1])


def _fraction(times: np.ndarray | None, t: float) -> float:
    if times is None or not len(times):
        return 0.0
    return float(np.count_nonzero(times <= t)) / len(times)


def _segment_intersection(p1, p2, q1, q2):
    d1, d2 = p2 - p1, q2 - q1
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-15:
        # parallel: touching end to end counts as meeting
        for x in (q1, q2):
            if np.hypot(*(x - p1)) < 1e-9 or np.hypot(*(x - p2)) < 1e-9:
                return x.copy()
        return None
    diff = q1 - p1
    s = (diff[0] * d2[1] - diff[1] * d2[0]) / denom
    u = (diff[0] * d1[1] - diff[1] * d1[0]) / denom
    if -1e-9 <= s <= 1 + 1e-9 and -1e-9 <= u <= 1 + 1e-9:
        return p1 + s * d1
    return None


def _door_opens(locks: list[str], keys: list[str]) -> bool:
    colours = [lock for lock in locks if lock != "skeleton"]
    if len(set(colours)) != len(colours):
        return False
    return set(colours) <= set(keys) and len(set(keys)) >= len(locks)


def _dedupe_index(points: np.ndarray, index: int) -> int:
    """Where point ``index`` of a polyline lands once consecutive duplicates are removed."""
    if len(points) < 2:
        return 0
    keep = np.ones(len(points), dtype=bool)
    keep[1:] = np.any(points[1:] != points[:-1], axis=1)
    return int(np.count_nonzero(keep[: index + 1])) - 1


def _polyline_of(path: _Path, t: float) -> int:
    index = 0
    for i, first in enumerate(path.poly_first):
        if first <= t + T_EPS:
            index = i
    return index


def _item_id(item: dict) -> str:
    if "group" in item:
        return ",".join(s.id for s in item["group"]["stones"])
    return item["element"].id


def _round_point(p) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# -- text output --------------------------------------------------------------------------------

def _vp_text(vp: int) -> str:
    return f"{vp:+d}" if vp else " 0"


def format_breakdown(result: dict) -> str:
    """The breakdown as text: section by section in path order, then orb tokens, the boss,
    how the scrawl ended and the total, the way a player checks a neighbour's sheet."""
    out = []
    dungeon = result["dungeon"]
    who = result.get("player") or "the player"
    character = result.get("character_name") or "no character"
    out.append(f"{dungeon['title']} ({dungeon['id']}): {who}, {character}, pen {result['pen_width_mm']:g} mm, "
               f"{result['players']} player{'s' if result['players'] != 1 else ''}")
    out.append("")
    for section in result["sections"]:
        title = section["title"][0].upper() + section["title"][1:]
        out.append(f"{section['number']}. {title}, {section['entered']} "
                   f"({section['from_mm']:g}-{section['to_mm']:g} mm along the path)")
        for line in section["lines"]:
            out.append(f"   {_vp_text(line['vp']):>3}  {line['text']}")
        if not section["lines"]:
            out.append("        nothing to score")
        out.append(f"   subtotal: {section['subtotal']:+d}" if section["subtotal"] else "   subtotal: 0")
    if result["orbs"]["lines"]:
        out.append("Orb tokens")
        for line in result["orbs"]["lines"]:
            out.append(f"   {_vp_text(line['vp']):>3}  {line['text']}")
        out.append(f"   subtotal: {result['orbs']['subtotal']}")
    if result["boss"]["lines"]:
        out.append("Boss")
        for line in result["boss"]["lines"]:
            out.append(f"   {_vp_text(line['vp']):>3}  {line['text']}")
        out.append(f"   subtotal: {result['boss']['subtotal']}")
    if result.get("ignored"):
        ignored = result["ignored"]
        out.append(f"Illegal crossing at ({ignored['at'][0]:g}, {ignored['at'][1]:g}), "
                   f"{ignored['length_mm']:g} mm along the path: {ignored['reason']}")
    end = result["end"]
    exempt = f"; no penalties in {end['exempt_area']}, the area it ended in" if end.get("exempt_area") else ""
    out.append(f"End: {end['reason']} at ({end['at'][0]:g}, {end['at'][1]:g}), {end['length_mm']:g} mm along the "
               f"path{exempt}")
    for note in result.get("notes") or []:
        out.append(f"Note: {note}")
    out.append(f"Total: {result['total']} VP")
    return "\n".join(out) + "\n"
