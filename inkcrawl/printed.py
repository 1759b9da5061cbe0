"""The printed sheet of a line dungeon: one model of its wall ink, openings and doors.

A player and a referee at the table see the printed sheet, so every consumer judges that
sheet (DESIGN.md "One sheet, one geometry"): the exporter draws the walls this module lays
out, validation and analysis build the area graph from its openings, ``export game`` writes
its walls (with their printed width) and closures, and the referee judges strokes on them.

The model, in sheet millimetres (origin top-left, y down):

* **Outline walls**: each area's outline minus the stretches it shares with another area
  (within the ruleset's ``print.snap_tolerance_mm``), minus the stretches doors close and
  minus the entrance gap of each Start; printed :data:`OUTLINE_WALL_MM` wide with round caps.
* **Explicit walls**: the dungeon's ``walls``, printed :data:`INNER_WALL_MM` wide with round
  caps.
* **Wall ink**: every wall stroked at its printed width; walls that touch merge.
* **Openings**: along each stretch two areas share, the pieces not under wall ink or a door.
  An opening exists only where such a gap is at least :func:`required_gap_mm` wide (the pen
  width or ``print.min_gap_mm``, the ruleset switch ``opening_min_width``): a narrower gap is
  closed for validation, analysis and the referee alike (RULES.md 2, Drawing rules: a line
  may not pass where it would cross wall ink).
* **Closures**: lines the referee treats as walls although nothing is printed there: every
  shared stretch of two areas that no opening joins (a narrow gap, or a stretch closed by
  walls), and a *bridge* from each wall end to the wall it nearly meets (closer than the
  required width), so a line through a joint or a too-narrow gap crosses a wall.

Built once per dungeon by :func:`printed_sheet` and shared by the rule checks
(``inkcrawl.checks.line``), the game data (``inkcrawl.gamedata``) and the exporter
(``exporters.line_sheet``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import shapely
import shapely.ops
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry.base import BaseGeometry

from inkcrawl import segments
from inkcrawl.geoarrays import as_point, linestring_array
from inkcrawl.geometry import Connection, LineGeometry, build_geometry, door_areas, polygon_defects
from inkcrawl.ink import NO_GLYPH_KINDS, glyph_silhouette
from inkcrawl.model import Element, LineDungeon, Sheet
from inkcrawl.rulesets import Ruleset
from inkcrawl.shapes import INNER_WALL_MM, OUTLINE_WALL_MM

Point = tuple[float, float]

#: Two wall ends closer than this (mm, the saved precision) are joined.
JOINED_MM = 0.001
#: Default of the ruleset switch ``opening_min_width``.
DEFAULT_OPENING_MIN_WIDTH = "min_gap"


def required_gap_mm(ruleset_data: dict) -> float:
    """The narrowest gap in the wall ink a line may pass through, in mm.

    The ruleset switch ``opening_min_width`` picks it: ``"min_gap"`` (default) is
    ``print.min_gap_mm``, ``"pen"`` is ``pen_width_mm`` (RULES.md 2, Drawing rules: crossing a
    wall is crossing its ink; an opening narrower than this is closed).
    """
    switches = ruleset_data.get("switches") or {}
    limits = ruleset_data.get("print") or {}
    if switches.get("opening_min_width", DEFAULT_OPENING_MIN_WIDTH) == "pen":
        return float(ruleset_data.get("pen_width_mm", 1.5))
    return float(limits.get("min_gap_mm", 2.0))


#: A strip of paper exactly the required width is wide enough: the test disc is this much narrower (mm).
WIDTH_TOLERANCE_MM = 0.005


def start_gap_radius_mm(start: Element, required_mm: float = 0.0) -> float:
    """Radius (mm) of the entrance gap a Start opens in the outline wall around its ``at``: 0.8
    of the Start's size (default 6 mm) across, and wide enough that the paper between the
    outline's round ends is at least ``required_mm`` (:func:`required_gap_mm`), so a line
    always passes the gap it starts through (docs/play-files.md: crossing a Start's entrance
    gap is no wall crossing)."""
    return max(2.0, (start.size_mm or 6) * 0.8, required_mm + OUTLINE_WALL_MM + 2 * WIDTH_TOLERANCE_MM) / 2


@dataclass(frozen=True)
class InkLine:
    """One line of the printed sheet's walls: ``kind`` ``outline`` (an area's own wall, with
    ``area``), ``wall`` (an explicit wall, ``id`` is its id), ``closure`` (a shared stretch no
    opening joins; not printed, ``width_mm`` 0) or ``bridge`` (from a wall end to the wall it
    nearly meets; not printed). ``points`` in sheet mm."""

    id: str
    kind: str
    geom: LineString
    width_mm: float
    area: str | None = None

    @property
    def points(self) -> list[Point]:
        """The line's points, sheet mm."""
        return [(float(x), float(y)) for x, y in shapely.get_coordinates(self.geom)]


@dataclass(frozen=True)
class Opening:
    """The widest gap in the ink along the stretch areas ``a`` and ``b`` share (ids):
    ``width_mm`` (0 when the ink closes it all), ``open`` when it is at least the required
    width; ``piece`` is that gap (or the whole stretch when there is none) as an ``(n, 2)``
    polyline in sheet mm."""

    a: str
    b: str
    width_mm: float
    open: bool
    piece: np.ndarray = field(repr=False, compare=False)

    @property
    def at(self) -> Point:
        """The middle of :attr:`piece`, sheet mm."""
        middle = LineString(self.piece).interpolate(0.5, normalized=True) if len(self.piece) > 1 else None
        return (float(middle.x), float(middle.y)) if middle is not None else as_point(self.piece[0])


@dataclass(frozen=True)
class NearJoint:
    """A wall end (``wall`` id, ``end`` 0 or -1) that nearly meets another wall line
    (``other``: a wall id, or ``None`` with ``area`` for an area's outline), ``distance_mm``
    apart (centre lines), ``ink_gap_mm`` of paper between their ink (0 or less: the ink
    touches), less than the required width, but not joined."""

    wall: str
    end: int
    other: str | None
    area: str | None
    distance_mm: float
    at: Point
    ink_gap_mm: float = 0.0  # the paper between the two walls' ink (0 or less: their ink touches)


@dataclass
class PrintedSheet:
    """The printed sheet's walls, openings and closures (see the module docstring).

    ``openings`` lists every pair of areas sharing a stretch, ``connections`` the open gaps
    and the doors that join areas (a door with a wall drawn across it, in ``blocked``, joins
    nothing), ``near_joints`` the wall ends that nearly meet another wall, ``doors`` the doors
    placed on their boundary as ``(door, area index, area index)``, ``narrow`` the areas whose
    paper no line of the required width fits anywhere (area index -> the widest paper, mm;
    :func:`narrow_areas`): they join nothing, and ``narrow_doors`` the doors that leave less
    paper than that between the outline's round ends (door id -> the paper, mm): they join
    nothing either. :attr:`lines` lists every
    wall line with its printed width, and the closures and bridges the referee treats as
    walls.
    """

    geometry: LineGeometry
    required_mm: float
    openings: list[Opening]
    connections: list[Connection]
    near_joints: list[NearJoint]
    doors: list[tuple[Element, int, int]]
    blocked: dict[str, str]
    _rings: list = field(repr=False)
    _outline: list = field(repr=False)  # per ring: {segment: kept intervals}
    _stretches: dict = field(repr=False)  # (i, j) -> {segment of ring i: passable intervals}
    _closures: list = field(repr=False)  # InkLine
    _bridges: list = field(repr=False)  # InkLine
    _lines: list | None = field(default=None, repr=False)
    _printed: list | None = field(default=None, repr=False)
    _ink: object = field(default=None, repr=False)
    _guides: list | None = field(default=None, repr=False)
    key_shapes: dict[str, str] = field(default_factory=dict, repr=False)  # key colour id -> shape
    kinds: dict = field(default_factory=dict, repr=False)  # kind id -> inkcrawl.kinds.ElementKind
    narrow: dict[int, float] = field(default_factory=dict)  # area index -> widest paper (mm): no line fits
    narrow_doors: dict[str, float] = field(default_factory=dict)  # door id -> paper between the outline's ends (mm)
    pinches: dict[int, tuple[float, float, float]] = field(default_factory=dict)  # area index -> (x, y, width)

    def element_ink(self, element: Element):
        """The printed ink of an element's glyph (:func:`inkcrawl.ink.glyph_silhouette`), a
        shapely polygon or multipolygon in sheet mm with its holes filled; ``None`` for
        elements that print no glyph (doors, Starts, labels) or have no ``at`` and positive
        ``size_mm``. Touch and cover are judged on it (RULES.md 2, Gaps and defaults)."""
        spec = self.kinds.get(element.kind)
        glyph = spec.glyph if spec is not None else element.kind
        if spec is not None and spec.footprint == "disc" and not spec.on_wall and glyph in NO_GLYPH_KINDS:
            glyph = "generic"  # a disc kind naming a glyph that is drawn otherwise prints the generic one
        if (
            (spec is not None and (spec.footprint != "disc" or spec.on_wall))
            or glyph in NO_GLYPH_KINDS
            or element.at is None
            or not element.size_mm
            or element.size_mm <= 0
        ):
            return None
        return glyph_silhouette(
            glyph,
            element.at,
            element.size_mm,
            element.rotation_deg or 0,
            variant=element.variant,
            key_shape=self.key_shapes.get(element.colour) if glyph == "key" and element.colour is not None else None,
        )

    @property
    def lines(self) -> list[InkLine]:
        """Every wall line: the outline walls (numbered per area in outline order), the
        explicit walls, then the closures and bridges (computed once)."""
        if self._lines is None:
            lines = self.printed_lines
            self._lines = lines + self._closures + self._bridges + _corner_bridges(lines, self.required_mm)
        return self._lines

    @property
    def printed_lines(self) -> list[InkLine]:
        """The lines that are printed: the outline walls (numbered per area in outline order),
        then the explicit walls (computed once)."""
        if self._printed is None:
            lines = []
            for i, (area, ring) in enumerate(zip(self.geometry.areas, self._rings)):
                for number, piece in enumerate(segments.chain(ring, self._outline[i]), 1):
                    lines.append(
                        InkLine(f"{area.id}:outline:{number}", "outline", LineString(piece), OUTLINE_WALL_MM, area.id)
                    )
            for wall_id, line in zip(self.geometry.wall_ids, self.geometry.walls):
                lines.append(InkLine(wall_id, "wall", line, INNER_WALL_MM))
            self._printed = lines
        return list(self._printed)

    @property
    def wall_ink(self):
        """Every printed wall stroked at its width (round caps and joins), merged: a shapely
        polygon or multipolygon in sheet mm."""
        if self._ink is None:
            printed = self.printed_lines
            if printed:
                geoms = np.array([line.geom for line in printed], dtype=object)
                widths = np.array([line.width_mm / 2 for line in printed])
                self._ink = shapely.union_all(shapely.buffer(geoms, widths, quad_segs=8))
            else:
                self._ink = shapely.Polygon()
        return self._ink

    def guide_lines(self) -> list[LineString]:
        """The stretches areas share minus doors and minus explicit walls (within the snap
        tolerance, flat ends): printed as a faint dashed guide where a line may pass. Sheet mm;
        computed once (a sheet draws them and keeps names clear of them)."""
        if self._guides is None:
            self._guides = self._guide_lines()
        return list(self._guides)

    def _guide_lines(self) -> list[LineString]:
        wa, wb, _, _ = _segments([np.asarray(w.coords, dtype=float) for w in self.geometry.walls])
        wall_geoms = _segment_geoms(wa, wb) if len(wa) else None  # the same cutters for every stretch
        trees: dict[int, shapely.STRtree] = {}  # an area's outline segments, for each of its stretches
        out: list[LineString] = []
        for (i, _j), passable in self._stretches.items():
            ring = self._rings[i]
            guide = passable
            if wall_geoms is not None:
                ring_a, ring_b = ring[:-1], ring[1:]
                tree = trees.get(i)
                if tree is None:
                    tree = trees[i] = shapely.STRtree(linestring_array(np.stack([ring_a, ring_b], axis=1)))
                t, _, lo, hi = _near(tree, wall_geoms, ring_a, ring_b, wa, wb, self.geometry.snap_mm, False)
                cuts: dict[int, list] = {}
                for seg, a_, b_ in zip(t.tolist(), lo.tolist(), hi.tolist()):
                    cuts.setdefault(seg, []).append((a_, b_))
                guide = {k: segments.subtract(v, cuts.get(k, [])) for k, v in passable.items()}
            out.extend(LineString(p) for p in segments.chain(ring, guide))
        return out


def _segments(polylines: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Segment ends ``(a, b)`` of polylines, with each segment's polyline and index in it."""
    if not polylines:
        empty = np.zeros((0, 2))
        return empty, empty, np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    a = np.concatenate([p[:-1] for p in polylines])
    b = np.concatenate([p[1:] for p in polylines])
    owner = np.concatenate([np.full(len(p) - 1, i) for i, p in enumerate(polylines)])
    index = np.concatenate([np.arange(len(p) - 1) for p in polylines])
    return a, b, owner, index


def _touch_only(ring: np.ndarray, stretch: dict[int, list], snap: float) -> bool:
    """Whether a shared stretch is only the neighbourhood of a point the two areas touch at:
    no piece of it longer than twice the snap tolerance."""
    pieces = segments.chain(ring, stretch)
    return all(float(np.hypot(*np.diff(p, axis=0).T).sum()) <= 2 * snap + 1e-6 for p in pieces)


def _segment_geoms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Shapely line strings of segments ``a -> b``; a point where both ends are equal."""
    geoms = np.empty(len(a), dtype=object)
    same = np.all(a == b, axis=1)
    if (~same).any():
        geoms[~same] = shapely.linestrings(np.stack([a[~same], b[~same]], axis=1))
    if same.any():
        geoms[same] = shapely.points(a[same])
    return geoms


def _near(tree, geoms, targets_a, targets_b, cut_a, cut_b, radius, round_ends, skip=None):
    """Pairs (target segment, cutter) within ``radius`` and the interval each cutter covers
    on its target segment: ``(target, cutter, lo, hi)`` arrays, empty intervals dropped.
    ``skip(target, cutter)`` gives a mask of candidate pairs to leave out."""
    if tree is None or not len(geoms):
        empty = np.zeros(0, dtype=int)
        return empty, empty, np.zeros(0), np.zeros(0)
    radius = np.broadcast_to(np.asarray(radius, dtype=float), (len(geoms),))
    round_ends = np.broadcast_to(np.asarray(round_ends, dtype=bool), (len(geoms),))
    cutter, target = tree.query(geoms, predicate="dwithin", distance=float(radius.max()) + 1e-9)
    if skip is not None:
        keep = ~skip(target, cutter)
        cutter, target = cutter[keep], target[keep]
    lo, hi = segments.near_intervals(
        targets_a[target], targets_b[target], cut_a[cutter], cut_b[cutter], radius[cutter], round_ends[cutter]
    )
    keep = hi - lo > 1e-9
    return target[keep], cutter[keep], lo[keep], hi[keep]


def printed_sheet(
    dungeon: LineDungeon,
    geometry: LineGeometry,
    doors: list[tuple[Element, int, int]],
    required_mm: float,
    starts: list[Element] | None = None,
) -> PrintedSheet:
    """Lay out the printed walls of a line dungeon and find its openings and closures.

    ``geometry`` holds the valid areas (:func:`inkcrawl.geometry.build_geometry`, its
    ``snap_mm`` is the ruleset's snap tolerance), ``doors`` the doors already placed on their
    boundary as ``(door, area index, area index)``, ``required_mm`` the narrowest passable gap
    (:func:`required_gap_mm`), ``starts`` the Starts whose entrance gaps open the outline
    (default: the dungeon's ``start`` elements with an ``at``). Never raises on valid areas.

    Two areas share the stretches of the first one's outline (in file order) that lie within
    the snap tolerance of the other's outline. The work is done on segments with
    :mod:`inkcrawl.segments`: a few vectorised queries per dungeon, no polygon overlay.
    """
    snap = geometry.snap_mm
    areas = geometry.areas
    if starts is None:
        starts = [e for e in dungeon.elements if e.kind == "start" and e.at is not None]
    blocked = _blocked_doors(geometry, doors)  # still close their stretch, join nothing

    rings = [np.asarray(p.exterior.coords, dtype=float) for p in geometry.polygons]
    ra, rb, r_area, r_index = _segments(rings)
    count = len(ra)
    ring_geoms = linestring_array(np.stack([ra, rb], axis=1)) if count else np.array([], dtype=object)
    ring_tree = shapely.STRtree(ring_geoms) if count else None

    # what cuts the outlines, in one query: other areas' outline segments (round ends, the
    # snap tolerance: the stretches areas share), doors (flat ends: the stretch they close)
    # and Starts (a disc: the entrance gap)
    cut_a, cut_b = [ra], [rb]
    cut_r = [np.full(count, snap)]
    cut_round = [np.ones(count, dtype=bool)]
    cut_owner = [r_area]  # area index; -1 door, -2 Start
    door_segments = [d.segment for d, _, _ in doors if d.segment is not None]  # (placed doors have one)
    if door_segments:
        cut_a.append(np.array([s[0] for s in door_segments], dtype=float))
        cut_b.append(np.array([s[1] for s in door_segments], dtype=float))
        cut_r.append(np.full(len(door_segments), snap))
        cut_round.append(np.zeros(len(door_segments), dtype=bool))
        cut_owner.append(np.full(len(door_segments), -1))
    if starts:
        centres = np.array([s.at for s in starts], dtype=float)
        cut_a.append(centres)
        cut_b.append(centres)
        cut_r.append(np.array([start_gap_radius_mm(s, required_mm) for s in starts]))
        cut_round.append(np.ones(len(starts), dtype=bool))
        cut_owner.append(np.full(len(starts), -2))
    removed: dict[int, list] = {}
    door_cuts: dict[int, list] = {}
    shared: dict[tuple[int, int], dict[int, list]] = {}
    if count:
        ca, cb = np.concatenate(cut_a), np.concatenate(cut_b)
        owner = np.concatenate(cut_owner)
        t, c, lo, hi = _near(
            ring_tree,
            _segment_geoms(ca, cb),
            ra,
            rb,
            ca,
            cb,
            np.concatenate(cut_r),
            np.concatenate(cut_round),
            skip=lambda target, cutter: owner[cutter] == r_area[target],
        )
        for seg, i, j, a_, b_ in zip(t.tolist(), r_area[t].tolist(), owner[c].tolist(), lo.tolist(), hi.tolist()):
            removed.setdefault(seg, []).append((a_, b_))
            if j == -1:
                door_cuts.setdefault(seg, []).append((a_, b_))
            elif i < j:
                shared.setdefault((i, j), {}).setdefault(seg, []).append((a_, b_))

    # outline walls: what is left of each ring; their ink and the explicit walls' ink
    outline: list[dict[int, list]] = [{} for _ in rings]
    ink_seg, ink_lo, ink_hi = [], [], []
    for seg in range(count):
        cuts = removed.get(seg)
        kept = segments.subtract([(0.0, 1.0)], cuts) if cuts else [(0.0, 1.0)]
        if kept:
            outline[int(r_area[seg])][int(r_index[seg])] = kept
            for a_, b_ in kept:
                ink_seg.append(seg)
                ink_lo.append(a_)
                ink_hi.append(b_)
    ink_seg_arr = np.array(ink_seg, dtype=int)
    pa, pb = ra[ink_seg_arr], rb[ink_seg_arr]
    direction = pb - pa
    wa, wb, _, _ = _segments([np.asarray(w.coords, dtype=float) for w in geometry.walls])
    ia = np.concatenate([pa + np.array(ink_lo)[:, None] * direction, wa]) if ink_seg else wa
    ib = np.concatenate([pa + np.array(ink_hi)[:, None] * direction, wb]) if ink_seg else wb
    ir = np.concatenate([np.full(len(ink_seg), OUTLINE_WALL_MM / 2), np.full(len(wa), INNER_WALL_MM / 2)])

    # openings: the shared stretches minus doors and the ink of every wall
    ink_cuts: dict[int, list] = {}
    targets = np.array(sorted({seg for stretch in shared.values() for seg in stretch}), dtype=int)
    if len(targets) and len(ia):
        t, _, lo, hi = _near(
            shapely.STRtree(ring_geoms[targets]), _segment_geoms(ia, ib), ra[targets], rb[targets], ia, ib, ir, True
        )
        for seg, a_, b_ in zip(targets[t].tolist(), lo.tolist(), hi.tolist()):
            ink_cuts.setdefault(seg, []).append((a_, b_))
    offsets = np.concatenate([[0], np.cumsum([len(r) - 1 for r in rings])]).astype(int)
    openings: list[Opening] = []
    connections: list[Connection] = []
    closures: list[InkLine] = []
    stretches: dict[tuple[int, int], dict[int, list]] = {}
    for (i, j), by_seg in sorted(shared.items()):
        base = int(offsets[i])
        if _touch_only(rings[i], {seg - base: segments.merge(v) for seg, v in by_seg.items()}, snap):
            continue  # the areas only touch at a corner (within the snap tolerance): no stretch to share
        passable, free = {}, {}
        for seg, intervals in by_seg.items():
            stretch = segments.merge(intervals)
            cuts = door_cuts.get(seg)
            passable[seg - base] = segments.subtract(stretch, cuts) if cuts else stretch
            cuts = ink_cuts.get(seg)
            free[seg - base] = segments.subtract(passable[seg - base], cuts) if cuts else passable[seg - base]
        stretches[(i, j)] = passable
        pieces = segments.chain(rings[i], free)
        lengths = [float(np.hypot(*np.diff(p, axis=0).T).sum()) for p in pieces]
        width = max(lengths, default=0.0)
        if pieces:
            piece = pieces[int(np.argmax(lengths))]
        else:
            whole = segments.chain(rings[i], {s_ - base: segments.merge(v_) for s_, v_ in by_seg.items()})
            piece = whole[0] if whole else rings[i][:1]
        is_open = width >= required_mm - 1e-9
        a, b = areas[i].id, areas[j].id
        openings.append(Opening(a, b, round(width, 3), is_open, piece))
        if is_open:
            connections.append(Connection(a, b, "open"))
            closed_parts = [p for p, length in zip(pieces, lengths) if length < required_mm - 1e-9]
        else:
            closed_parts = segments.chain(rings[i], passable)
        for number, part in enumerate(closed_parts, 1):
            closures.append(InkLine(f"closure:{a}:{b}:{number}", "closure", LineString(part), 0.0))
    for door, index_a, index_b in doors:
        if door.id not in blocked:
            connections.append(Connection(areas[index_a].id, areas[index_b].id, "door", door.id))

    outline_pieces = (ia[: len(ink_seg)], ib[: len(ink_seg)], r_area[ink_seg_arr]) if ink_seg else None
    near_joints, bridges = _near_joints(geometry, required_mm, outline_pieces)
    sheet = PrintedSheet(
        geometry,
        required_mm,
        openings,
        connections,
        near_joints,
        doors,
        blocked,
        rings,
        outline,
        stretches,
        closures,
        bridges,
    )
    sheet.narrow = narrow_areas(geometry, required_mm, lambda: sheet.printed_lines, sheet.pinches)
    sheet.narrow_doors = _narrow_doors(sheet)
    if sheet.narrow or sheet.narrow_doors:
        shut = {areas[i].id for i in sheet.narrow}
        sheet.connections = [
            c
            for c in connections
            if c.a not in shut and c.b not in shut and not (c.kind == "door" and c.door_id in sheet.narrow_doors)
        ]
    return sheet


def _narrow_doors(sheet: PrintedSheet) -> dict[str, float]:
    """Doors that leave less paper than the required gap between the printed ink either side
    of them (the round ends of the outline or walls that stop at the door's ends): door id ->
    that paper (mm, the door's segment less the ink on it)."""
    out: dict[str, float] = {}
    if not sheet.doors:
        return out
    # only a short door, or one with an explicit wall's ink on it, can be narrow: the outline's round
    # ends reach OUTLINE_WALL_MM / 2 into it from each end at most
    walls = np.array(sheet.geometry.walls, dtype=object)
    wall_tree = shapely.STRtree(walls) if len(walls) else None
    suspects = []
    for door, _, _ in sheet.doors:
        if door.segment is None or door.id in sheet.blocked:
            continue
        segment = LineString(door.segment)
        if segment.length < sheet.required_mm + OUTLINE_WALL_MM or (
            wall_tree is not None and len(wall_tree.query(segment, predicate="dwithin", distance=INNER_WALL_MM / 2))
        ):
            suspects.append(door.id)
    if not suspects:
        return out
    printed = sheet.printed_lines
    geoms = np.array([line.geom for line in printed], dtype=object)
    tree = shapely.STRtree(geoms) if len(geoms) else None
    for door, _, _ in sheet.doors:
        if door.id not in suspects or door.segment is None:
            continue  # (placed doors have one; a wall across a door is L030)
        segment = LineString(door.segment)
        paper = segment.length
        if tree is not None:
            near = tree.query(segment, predicate="dwithin", distance=OUTLINE_WALL_MM)
            if len(near):
                ink = shapely.union_all(
                    shapely.buffer(geoms[near], [printed[k].width_mm / 2 for k in near], quad_segs=8)
                )
                paper = segment.difference(ink).length
        if paper < sheet.required_mm - WIDTH_TOLERANCE_MM:
            out[door.id] = round(paper, 3)
    return out


def narrow_areas(
    geometry: LineGeometry,
    required_mm: float,
    printed_lines: Callable[[], list[InkLine]],
    pinches: dict[int, tuple[float, float, float]] | None = None,
) -> dict[int, float]:
    """The areas of ``geometry`` no line fits in: their paper (the area less the printed ink:
    ``printed_lines()``, :attr:`PrintedSheet.printed_lines`, asked only when needed) holds no
    disc ``required_mm`` across anywhere (less :data:`WIDTH_TOLERANCE_MM`), such as a corridor
    whose walls leave less paper than a line needs. Returns area index -> the widest paper in it
    (mm, twice the radius of the largest disc that fits; 0 when there is none). RULES.md 2,
    Drawing rules: a line there crosses a wall; the referee fills such paper
    (:func:`inkcrawl.engines.wall_network.close_channels`).

    When ``pinches`` is given it receives the areas whose paper is one piece but narrows below
    that width between two parts (area index -> ``(x, y, width)``: where, sheet mm, and the
    widest disc that passes there, mm): a line cannot get from one part to the other without
    crossing a wall. Cheap first: each area inset by half the outline's width and the disc
    (a few vectorised buffers per dungeon); only the areas that fail it are measured against
    the printed ink (an open side is paper, not ink)."""
    if not geometry.polygons or required_mm <= 0:
        return {}
    polygons = np.array(geometry.polygons, dtype=object)
    radius = required_mm / 2 - WIDTH_TOLERANCE_MM
    cores = shapely.buffer(polygons, -(OUTLINE_WALL_MM / 2 + radius), quad_segs=4)
    if geometry.walls:
        walls = np.array(geometry.walls, dtype=object)
        crossing, wall_index = _areas_with_walls(geometry, walls)
        for area in np.unique(crossing).tolist():
            if not shapely.is_empty(cores[area]):
                reach = shapely.union_all(
                    shapely.buffer(walls[wall_index[crossing == area]], INNER_WALL_MM / 2 + radius, quad_segs=4)
                )
                cores[area] = shapely.difference(cores[area], reach)
    suspects = np.flatnonzero(shapely.is_empty(cores) | (shapely.get_num_geometries(cores) > 1)).tolist()
    if not suspects:
        return {}
    lines = printed_lines()
    geoms = np.array([line.geom for line in lines], dtype=object)
    halves = np.array([line.width_mm / 2 for line in lines])
    tree = shapely.STRtree(geoms)
    out: dict[int, float] = {}
    for area in suspects:
        polygon = polygons[area]
        near = tree.query(polygon, predicate="dwithin", distance=OUTLINE_WALL_MM / 2 + radius)
        if not len(near):
            continue
        core = shapely.difference(
            polygon, shapely.union_all(shapely.buffer(geoms[near], halves[near] + radius, quad_segs=8))
        )
        paper = shapely.difference(polygon, shapely.union_all(shapely.buffer(geoms[near], halves[near], quad_segs=8)))
        parts = [part for part in shapely.get_parts(core) if part.area > 1e-9]
        if not parts:
            width = 0.0
            if not paper.is_empty and paper.area > 0:
                width = 2 * shapely.maximum_inscribed_circle(paper, 0.01).length
            out[area] = round(width, 3)
        elif pinches is not None and len(parts) > 1 and shapely.get_num_geometries(paper) == 1:
            parts.sort(key=lambda part: -part.area)
            a, b = shapely.get_coordinates(shapely.shortest_line(parts[0], parts[1]))
            mid = (a + b) / 2
            pinches[area] = (
                round(float(mid[0]), 1),
                round(float(mid[1]), 1),
                round(
                    2 * float(paper.exterior.distance(shapely.Point(mid))) if paper.geom_type == "Polygon" else 0.0, 2
                ),
            )
    return out


def _areas_with_walls(geometry: LineGeometry, walls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (area index, wall index) of explicit walls that meet an area's polygon."""
    wall_index, area = geometry.tree.query(walls, predicate="intersects")
    return area, wall_index


def _blocked_doors(geometry: LineGeometry, doors: list[tuple[Element, int, int]]) -> dict[str, str]:
    """Doors an explicit wall is drawn across: its centre line crosses the door's segment from
    one side to the other, or runs along it (a wall only touching the door from one side
    leaves it open). Door id -> wall id."""
    if not doors or not geometry.walls:
        return {}
    tree = shapely.STRtree(geometry.walls)
    out = {}
    for door, _, _ in doors:
        if door.segment is None:
            continue  # (placed doors have one)
        segment = LineString(door.segment)
        for k in sorted(tree.query(segment, predicate="intersects").tolist()):
            wall = geometry.walls[k]
            meeting = wall.intersection(segment)
            if meeting.length > JOINED_MM:
                out[door.id] = geometry.wall_ids[k]  # along the door
                break
            (ax, ay), (bx, by) = door.segment
            sides = [(bx - ax) * (y - ay) - (by - ay) * (x - ax) for x, y in shapely.get_coordinates(wall)]
            reach = max(abs(v) for v in sides) or 1.0
            if any(v > 1e-9 * reach for v in sides) and any(v < -1e-9 * reach for v in sides):
                out[door.id] = geometry.wall_ids[k]  # across it
                break
    return out


def stacked_doors(doors: list[Element], snap_mm: float) -> list[tuple[Element, Element, float]]:
    """Pairs of doors printed on top of each other: the later door's segment runs along the
    earlier one's (within ``snap_mm``) for a length above :data:`JOINED_MM`, given in mm."""
    segments = [LineString(d.segment) for d in doors]
    if len(segments) < 2:
        return []
    closers = shapely.buffer(np.array(segments, dtype=object), snap_mm, cap_style="flat")
    left, right = shapely.STRtree(closers).query(np.array(segments, dtype=object), predicate="intersects")
    out = []
    for j, i in zip(left.tolist(), right.tolist()):
        if i < j:
            overlap = float(segments[j].intersection(closers[i]).length)
            if overlap > JOINED_MM:
                out.append((doors[i], doors[j], overlap))
    return out


def _corner_bridges(lines: list[InkLine], required_mm: float) -> list[InkLine]:
    """Bridges between outline wall ends and the printed ink they nearly meet: at each corner of
    an opening the two areas' outline walls stop half a snap tolerance apart, their ink
    overlapping, so the paper of the room and the paper outside the corridor are separated by
    ink there; the bridge makes the referee see it (a line through that corner crosses a wall).
    An end nearer than :data:`JOINED_MM` to another line is joined already."""
    printed = [line for line in lines if line.kind in ("outline", "wall")]
    if len(printed) < 2:
        return []
    geoms = [line.geom for line in printed]
    tree = shapely.STRtree(geoms)
    out: list[InkLine] = []
    seen: set[frozenset] = set()
    for index, line in enumerate(printed):
        if line.kind != "outline" or line.geom.is_closed:
            continue
        coords = shapely.get_coordinates(line.geom)
        for end, name in ((coords[0], "start"), (coords[-1], "end")):
            point = ShapelyPoint(end)
            best = None
            for k in tree.query(point, predicate="dwithin", distance=required_mm + OUTLINE_WALL_MM).tolist():
                if k == index:
                    continue
                distance = float(geoms[k].distance(point))
                if distance <= JOINED_MM:
                    best = None
                    break
                gap = distance - line.width_mm / 2 - printed[k].width_mm / 2
                if gap < required_mm and (best is None or distance < best[0]):
                    best = (distance, k)
            if best is not None:
                target = geoms[best[1]].interpolate(geoms[best[1]].project(point))
                key = frozenset((tuple(np.round(end, 6)), (round(target.x, 6), round(target.y, 6))))
                if key in seen:
                    continue  # the other end's bridge back
                seen.add(key)
                out.append(
                    InkLine(
                        f"bridge:{line.id}:{name}",
                        "bridge",
                        LineString([tuple(end), (float(target.x), float(target.y))]),
                        0.0,
                    )
                )
    return out


def _near_joints(
    geometry: LineGeometry, required_mm: float, outline_pieces=None
) -> tuple[list[NearJoint], list[InkLine]]:
    """Explicit wall ends whose ink comes closer to the printed ink of another explicit wall or
    of an area's outline wall than the required gap without being joined, and a bridge line
    closing each such gap (from the end to the nearest point of that ink's centre line).

    ``outline_pieces`` are the printed outline walls as segments ``(a, b, area index)``
    (openings, doors' stretches and Starts' entrance gaps are not printed, so nothing bridges to
    them). An end is joined when it lies on another explicit wall, or on an area's outline within
    the snap tolerance of its printed wall (a wall closing an opening from its corner)."""
    explicit = [
        InkLine(wall_id, "wall", line, INNER_WALL_MM) for wall_id, line in zip(geometry.wall_ids, geometry.walls)
    ]
    if not explicit:
        return [], []
    # (centre line, wall id or None, area id or None, ink width)
    targets: list[tuple[BaseGeometry, str | None, str | None, float]] = [
        (line.geom, line.id, None, line.width_mm) for line in explicit
    ]
    if outline_pieces is not None:
        a, b, owner = outline_pieces
        targets += [
            (geom, None, geometry.areas[int(i)].id, OUTLINE_WALL_MM)
            for geom, i in zip(_segment_geoms(a, b).tolist(), owner.tolist())
        ]
    tree = shapely.STRtree([t[0] for t in targets])
    rings = [polygon.exterior for polygon in geometry.polygons]
    ring_tree = shapely.STRtree(rings) if rings else None
    snap = geometry.snap_mm
    found: list[NearJoint] = []
    bridges: list[InkLine] = []
    reported: set[frozenset] = set()
    for own, line in enumerate(explicit):
        for end in (0, -1):
            point = ShapelyPoint(line.points[end])
            if ring_tree is not None and len(ring_tree.query(point, predicate="dwithin", distance=JOINED_MM)):
                continue  # on an area's outline: joined to it, or closing part of an opening (measured there)
            reach = required_mm + line.width_mm / 2 + OUTLINE_WALL_MM / 2 + snap
            best = None
            joined = False
            for k in tree.query(point, predicate="dwithin", distance=reach).tolist():
                if k == own:
                    continue
                geom, other_id, _, width = targets[k]
                distance = float(geom.distance(point))
                if distance <= JOINED_MM:
                    joined = True
                    break
                nearest = geom.interpolate(geom.project(point))
                if line.geom.distance(nearest) < distance - JOINED_MM:
                    continue  # that ink is nearer another part of this wall (it meets it there, a T): no gap here
                if distance - line.width_mm / 2 - width / 2 < required_mm - WIDTH_TOLERANCE_MM and (
                    best is None or distance < best[0]
                ):
                    best = (distance, k)
            if joined or best is None:
                continue
            distance, k = best
            geom, other_id, area_id, _ = targets[k]
            target = geom.interpolate(geom.project(point))
            bridges.append(
                InkLine(
                    f"bridge:{line.id}:{'start' if end == 0 else 'end'}",
                    "bridge",
                    LineString([line.points[end], (float(target.x), float(target.y))]),
                    0.0,
                )
            )
            pair = frozenset((line.id, other_id or f"area:{area_id}"))
            if pair in reported:
                continue
            reported.add(pair)
            found.append(
                NearJoint(
                    line.id,
                    end,
                    other_id,
                    area_id,
                    round(distance, 3),
                    line.points[end],
                    round(distance - line.width_mm / 2 - targets[k][3] / 2, 3),
                )
            )
    return found, bridges


def area_connections(
    geometry: LineGeometry, doors: list[tuple[Element, int, int]], required_mm: float
) -> list[Connection]:
    """The open gaps and doors between areas of ``geometry`` (no Starts): the connections of
    :func:`printed_sheet`, for importers that probe a layout before it is a dungeon."""
    return printed_sheet(LineDungeon("probe", "", Sheet("probe")), geometry, doors, required_mm, starts=[]).connections


def repaired_polygon(points) -> Polygon | None:
    """An area outline as a shapely polygon, repaired when it crosses itself (the largest
    polygon of ``make_valid``), or ``None`` when it has fewer than 3 distinct points or no
    area. Exporters print a dungeon with such areas when asked to (``--force``)."""
    if len({tuple(p) for p in points}) < 3:
        return None
    polygon = Polygon(points)
    if polygon.is_valid:
        return polygon if polygon.area > 0 else None
    fixed = shapely.make_valid(polygon)
    parts = [g for g in shapely.get_parts(fixed) if g.geom_type == "Polygon" and g.area > 0]
    return max(parts, key=lambda g: g.area) if parts else None


def sheet_of(dungeon: LineDungeon, ruleset: Ruleset, repair: bool = False) -> PrintedSheet:
    """The printed sheet of a line dungeon on its :class:`~inkcrawl.rulesets.Ruleset`: areas with an
    invalid polygon are left out, each door is placed on the boundary of the two areas it
    lies on (doors on fewer or more areas, or with both ends at one point, are left out:
    validation reports them), Starts are the elements the ruleset places on the outer
    boundary. With ``repair``, areas whose outline crosses itself are repaired instead of left
    out (:func:`repaired_polygon`; the exporter prints them). Shared by the game data and the
    exporter; validation builds the same sheet while reporting what it leaves out
    (:func:`inkcrawl.checks.line.line_problems`)."""
    ruleset_data = ruleset.data
    limits = ruleset_data.get("print") or {}
    snap = float(limits.get("snap_tolerance_mm", 0.5))
    if repair:
        repaired = [(a, repaired_polygon(a.polygon)) for a in dungeon.areas]
        pairs = [(a, p) for a, p in repaired if p is not None]
        geometry = build_geometry(dungeon, [a for a, _ in pairs], snap, [p for _, p in pairs])
    else:
        valid = [a for a in dungeon.areas if polygon_defects(a.polygon) is None]
        geometry = build_geometry(dungeon, valid, snap)
    placements = {kind: d.get("placement") for kind, d in (ruleset_data.get("elements") or {}).items()}
    doors = []
    for door in dungeon.elements:
        if (
            door.segment is None
            or placements.get(door.kind, "between_areas" if door.kind == "door" else None) != "between_areas"
            or tuple(door.segment[0]) == tuple(door.segment[1])
        ):
            continue
        found = door_areas(geometry, door, snap)
        if len(found) == 2:
            doors.append((door, found[0], found[1]))
    starts = [
        e
        for e in dungeon.elements
        if e.at is not None
        and e.size_mm is not None
        and placements.get(e.kind, "outer_boundary" if e.kind == "start" else None) == "outer_boundary"
    ]
    sheet = printed_sheet(dungeon, geometry, doors, required_gap_mm(ruleset_data), starts)
    sheet.kinds = ruleset.kinds
    sheet.key_shapes = {
        c["id"]: c.get("shape", "circle")
        for c in (ruleset_data.get("keys") or {}).get("colours", [])
        if isinstance(c, dict) and "id" in c
    }
    return sheet
