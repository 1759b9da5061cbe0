"""The printed ink of the line family's element glyphs, as shapely geometry in sheet millimetres.

RULES.md 2 "Gaps and defaults" judges "touched" as "the stroke intersects the element". What a
player at the table sees of an element is its printed glyph, not the unprinted ``size_mm`` disc of
its footprint, so :func:`glyph_silhouette` gives the region the glyph's ink covers: every filled or
tinted area and every stroke at its printed width, merged, with the holes filled (a stroke inside
a printed cage or ring touches the glyph). The ink is built from the same local shapes and stroke
widths the exporter draws with (:mod:`inkcrawl.glyph_shapes`, :mod:`inkcrawl.shapes`), so it lies
within 0.1 mm of the printed glyph; ``tests/test_glyph_ink.py`` checks that against the exporter's
own drawing rasterised by Qt.

Modelled as printed: strokes are buffered by half their width with round caps and joins (butt caps
for a key's shaft), as the SVG draws them; arrows as :meth:`exporters.canvas.SheetCanvas.arrow`
draws them (shaft to the base of a filled head with a fine outline). Simplified, each within 0.1 mm
of the print: circles are polygons whose vertices lie on the circle, at most 0.005 mm inside it;
the spell's dashed rune ring is a full disc whose edge runs through the middle of the ring's
stroke (a quarter of :data:`~inkcrawl.glyph_shapes.FINE_MM` from both the dashes' outer edge and
the tinted disc between them); the dashed spell trace is solid (it lies on the tinted disc).
Not modelled: paper-white details (eyes, highlights) and the pink orb's dotted inner ring, which
lie inside the silhouette, and glyph text (stone numbers, orb, portal and badge letters). Text lies
inside the silhouette at the sizes sheets use, but it never prints smaller than 2 mm, so on a small
glyph a wide label can reach past the ink: a two-digit stone number below about 5 mm, a wide or
two-letter portal-exit label below about 7 mm, and the paper-white letter of a lettered key badge
cuts its ring below about 8 mm.

Pure and Qt-free.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

import shapely
from shapely.affinity import affine_transform
from shapely.geometry import LineString, MultiPolygon, Polygon

from inkcrawl import glyph_shapes as gs
from inkcrawl import shapes
from inkcrawl.shapes import place

Point = tuple[float, float]

#: Element kinds that print no glyph (doors, Starts and labels are drawn otherwise).
NO_GLYPH_KINDS = frozenset({"door", "start", "label"})
#: Kinds with a glyph of their own; any other kind prints the generic double ring.
GLYPH_KINDS = frozenset(
    {
        "monster",
        "boss",
        "spell",
        "treasure",
        "artifact_stone",
        "plant",
        "prisoner",
        "orb",
        "key",
        "skeleton_key",
        "portal_entry",
        "portal_exit",
        "escape_portal",
        "exit",
        "timer",
    }
)
#: Largest distance (mm) between a printed circle and the polygon standing for it.
CIRCLE_TOLERANCE_MM = 0.005
#: Silhouettes kept per (glyph, variant, key shape, size): a sheet uses a few sizes per kind.
CACHE_SIZE = 4096


def glyph_silhouette(
    kind: str,
    at: tuple[float, float],
    size_mm: float,
    rotation_deg: float = 0,
    *,
    variant: str | None = None,
    key_shape: str | None = None,
    known_variants: bool = True,
) -> shapely.Polygon | shapely.MultiPolygon:
    """The region covered by the printed ink of an element's glyph, in sheet mm, holes filled.

    ``kind`` is the element kind, ``at`` its centre (sheet mm, origin top-left, y down),
    ``size_mm`` its footprint diameter and ``rotation_deg`` its rotation (degrees, clockwise on the
    sheet, as :func:`inkcrawl.shapes.place`). ``variant`` is a spell's or a treasure's variant;
    ``key_shape`` the shape the ruleset gives a key's colour (``keys.colours[].shape``: ``circle``,
    ``triangle``, ``square`` or ``star``; any other value, or ``None``, prints a lettered circle).

    The result is what :mod:`exporters.line_glyphs` prints for the element, as the line sheet draws
    it (:func:`exporters.line_glyphs.draw_glyph`): every filled or tinted area and every stroke at its
    printed width (strokes are buffered by half their width with the SVG's caps and joins), merged,
    with every hole filled, within 0.1 mm of the print (see the module notes for what is simplified;
    glyph text is not modelled, and can reach past very small glyphs). A ``Polygon``, or a ``MultiPolygon``
    when the glyph's ink falls apart (the escape portal's rays). Kinds without a glyph of their own
    print the generic double ring, and so do spells and treasures whose variant is not one of
    :data:`inkcrawl.shapes.SPELL_VARIANTS` / :data:`~inkcrawl.shapes.TREASURE_VARIANTS` (``None``
    included), as the sheet draws them; with ``known_variants=False`` such a variant raises
    ``ValueError`` instead.

    This is the geometry of "touched" (RULES.md 2, "Gaps and defaults": the stroke intersects the
    element): a pen stroke touches the glyph when its buffered polyline intersects this region.

    Raises ``ValueError`` for a ``size_mm`` that is not a positive finite number, a non-finite
    ``at`` or ``rotation_deg``, a kind that prints no glyph (:data:`NO_GLYPH_KINDS`), and (with
    ``known_variants=False``) an unknown spell or treasure variant.

    Fast: the silhouette of each (glyph, variant, key shape, size) is built once, centred and
    unrotated, and only turned and moved for each element (about 20 microseconds). It is kept per
    size because glyphs are not simply scaled: most strokes are clamped to a minimum width, fine
    lines are :data:`~inkcrawl.glyph_shapes.FINE_MM` at every size and arrowheads have a minimum
    length. A new size costs 0.1 to 1.5 ms.
    """
    try:
        size = float(size_mm)
    except (TypeError, ValueError):
        raise ValueError(f"size_mm must be a positive number, got {size_mm!r}") from None
    if not (size > 0 and math.isfinite(size)):
        raise ValueError(f"size_mm must be a positive number, got {size_mm!r}")
    rotation = float(rotation_deg or 0)
    x, y = float(at[0]), float(at[1])
    if not all(math.isfinite(v) for v in (x, y, rotation)):
        raise ValueError(f"at and rotation_deg must be finite, got {at!r} and {rotation_deg!r}")
    glyph, variant, key_shape = _resolve(kind, variant, key_shape, known_variants)
    # the stopwatch's crown is an unrotated rectangle at a rotated corner: its shape depends on the rotation
    local = _local_silhouette(glyph, variant, key_shape, size, rotation % 360 if glyph == "timer" else 0.0)
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)
    return affine_transform(local, (cos, -sin, sin, cos, x, y))


def _resolve(
    kind: str, variant: str | None, key_shape: str | None, known_variants: bool
) -> tuple[str, str | None, str | None]:
    """``(glyph, variant, key shape)`` the sheet prints for an element, with only the options that
    change its ink kept (so the cache holds one entry per distinct silhouette)."""
    if kind in NO_GLYPH_KINDS:
        raise ValueError(f"a {kind} prints no glyph")
    if kind in ("spell", "treasure"):
        known = shapes.SPELL_VARIANTS if kind == "spell" else shapes.TREASURE_VARIANTS
        if variant in known:
            return kind, variant, None
        if not known_variants:
            raise ValueError(f"unknown {kind} variant {variant!r} (known: {', '.join(known)})")
        return "generic", None, None
    if kind == "key":
        return kind, None, key_shape if key_shape in gs.KEY_SHAPES else "letter"
    return (kind if kind in GLYPH_KINDS else "generic"), None, None


# -- building a silhouette ------------------------------------------------------------------------


def _quad_segs(radius_mm: float) -> int:
    """Segments per quarter circle keeping a polygon within CIRCLE_TOLERANCE_MM of a circle of ``radius_mm``."""
    # a chord over an angle t misses the circle by r (1 - cos(t / 2)) ~ r t^2 / 8, with t = pi / (2 n)
    return max(8, math.ceil(math.pi * math.sqrt(max(radius_mm, 0.0) / (32 * CIRCLE_TOLERANCE_MM))))


class _Ink:
    """Collects a glyph's ink, centred on (0, 0) and unrotated, in mm, from local shapes."""

    def __init__(self, size_mm: float):
        self.size = size_mm
        self.radius = size_mm / 2
        self.parts: list = []

    def mm(self, points) -> list[Point]:
        return place(points, (0.0, 0.0), self.size)

    def fill(self, points_mm) -> None:
        """A filled polygon (sheet mm, centred)."""
        polygon = Polygon(points_mm)
        self.parts.append(polygon if polygon.is_valid else shapely.make_valid(polygon))

    def stroke(
        self, points_mm, width_mm: float, closed: bool = False, cap: Literal["round", "square", "flat"] = "round"
    ) -> None:
        """A polyline (sheet mm, centred) stroked ``width_mm`` wide with round joins."""
        points = list(points_mm)
        if closed:
            points.append(points[0])
        half = max(width_mm, gs.MIN_LINE_MM) / 2
        self.parts.append(
            LineString(points).buffer(half, quad_segs=_quad_segs(half), cap_style=cap, join_style="round")
        )

    def outlined(self, points_mm, width_mm: float | None) -> None:
        """A filled polygon (sheet mm, centred) outlined ``width_mm`` wide with round joins (or not outlined)."""
        polygon = Polygon(points_mm)
        if not polygon.is_valid:
            self.fill(points_mm)
            if width_mm is not None:
                self.stroke(points_mm, width_mm, closed=True)
        elif width_mm is None:
            self.parts.append(polygon)
        else:
            half = max(width_mm, gs.MIN_LINE_MM) / 2
            self.parts.append(polygon.buffer(half, quad_segs=_quad_segs(half), join_style="round"))

    def shape(self, local, width: gs.Width | float | None) -> None:
        """A filled closed local shape, outlined ``width`` (a :class:`~inkcrawl.glyph_shapes.Width` or mm)
        wide, or not outlined (``None``)."""
        self.outlined(self.mm(local), None if width is None else self.width(width))

    def line(self, line: gs.Line, width: gs.Width | float) -> None:
        """A local straight line with round caps."""
        self.stroke(self.mm(line), self.width(width))

    def disc(self, centre_mm: Point, radius_mm: float) -> None:
        """A disc (a filled circle, or a circle's outline with its hole filled), in mm."""
        self.parts.append(shapely.Point(centre_mm).buffer(radius_mm, quad_segs=_quad_segs(radius_mm)))

    def circle(self, centre, radius: float, width: gs.Width | float | None = None) -> None:
        """A local circle of ``radius`` (a fraction of the footprint radius), filled or with a hole filled,
        plus half its outline's width."""
        outline = self.width(width) / 2 if width is not None else 0.0
        self.disc(self.mm([centre])[0], self.radius * radius + outline)

    def arrow(self, line: gs.Line, head: gs.Width, width: gs.Width) -> None:
        """An arrow as :meth:`exporters.canvas.SheetCanvas.arrow` draws it."""
        tail, tip = self.mm(line)
        base, triangle = gs.arrow_head(tail, tip, head.mm(self.size))
        self.stroke([tail, base], width.mm(self.size))
        self.outlined(triangle, gs.FINE_MM)

    def width(self, width: gs.Width | float) -> float:
        return width.mm(self.size) if isinstance(width, gs.Width) else max(width, gs.MIN_LINE_MM)

    def merged(self) -> Polygon | MultiPolygon:
        """The union of the parts with every hole filled."""
        merged = shapely.union_all(self.parts)
        polygons = [
            Polygon(p.exterior)
            for p in getattr(merged, "geoms", [merged])
            if p.geom_type == "Polygon" and not p.is_empty
        ]
        if len(polygons) == 1:
            return polygons[0]
        # a part lying in another's (now filled) hole merges into it
        merged = shapely.union_all(polygons)
        return merged if isinstance(merged, (Polygon, MultiPolygon)) else MultiPolygon(polygons)


def _monster(ink: _Ink, **_) -> None:
    ink.shape(gs.MONSTER_BODY, gs.MONSTER_LINE)
    ink.outlined(shapes.monster_head((0.0, 0.0), ink.size), gs.MONSTER_LINE.mm(ink.size))


def _boss(ink: _Ink, **_) -> None:
    root_x, root_y = gs.BOSS_FINGER_ROOT
    for side in (1, -1):
        ink.shape([(side * x, y) for x, y in gs.BOSS_WING], gs.BOSS_LINE)
        for finger in gs.BOSS_FINGERS:
            ink.line(gs.Line((side * root_x, root_y), (side * finger[0], finger[1])), gs.FINE_MM)
    for outline in (gs.BOSS_BODY, gs.BOSS_HEAD, gs.BOSS_CROWN):
        ink.shape(outline, gs.BOSS_LINE)
    for y in gs.BOSS_RIBS:
        ink.line(gs.Line((-gs.BOSS_RIB_HALF, y), (gs.BOSS_RIB_HALF, y)), gs.FINE_MM)


def _spell(ink: _Ink, variant: str, **_) -> None:
    # the tinted rune disc and its dashed fine outline, up to the middle of that outline
    ink.disc((0.0, 0.0), ink.radius * gs.SPELL_DISC + gs.FINE_MM / 4)
    strokes = shapes.spell_trace(variant, (0.0, 0.0), ink.size)
    for stroke in strokes:
        closed = len(stroke) > 2 and stroke[0] == stroke[-1]
        ink.stroke(stroke[:-1] if closed else stroke, gs.SPELL_TRACE_LINE.mm(ink.size), closed=closed)
    ink.disc(strokes[0][0], gs.SPELL_DOT_RADIUS.mm(ink.size))


def _treasure(ink: _Ink, variant: str, **_) -> None:
    ink.outlined(shapes.treasure_outline(variant, (0.0, 0.0), ink.size)[:-1], gs.TREASURE_LINE.mm(ink.size))
    for part in gs.TREASURE_DETAILS[variant]:
        if isinstance(part, gs.Line):
            ink.line(part, gs.FINE_MM)
        elif isinstance(part, gs.Dot):
            ink.circle(part.centre, part.radius, gs.FINE_MM)
        else:
            ink.shape(part.points, gs.FINE_MM)


def _artifact_stone(ink: _Ink, **_) -> None:
    ink.shape(gs.STONE, gs.STONE_LINE)


def _plant(ink: _Ink, **_) -> None:
    ink.line(gs.PLANT_STEM, gs.PLANT_STEM_LINE)
    for leaf, vein in zip(gs.PLANT_LEAVES, gs.PLANT_VEINS, strict=True):
        ink.shape(leaf, gs.LEAF_LINE)
        ink.line(vein, gs.FINE_MM)


def _prisoner(ink: _Ink, **_) -> None:
    ink.shape(gs.CAGE, gs.CAGE_LINE)
    ink.circle(gs.PRISONER_HEAD.centre, gs.PRISONER_HEAD.radius)
    ink.shape(gs.PRISONER_BODY, None)
    for bar in gs.CAGE_BARS:
        ink.line(bar, gs.CAGE_BAR_LINE)
    ink.circle(gs.CAGE_RING.centre, gs.CAGE_RING.radius, gs.FINE_MM)


def _orb(ink: _Ink, **_) -> None:
    sphere = ink.radius * gs.ORB_SPHERE
    ink.disc((0.0, 0.0), sphere + gs.ORB_LINE.mm(ink.size) / 2)
    ring = sphere + gs.ORB_RING_OFFSET.mm(ink.size) / 2 + gs.ORB_RING_GAP_MM
    ink.disc((0.0, 0.0), ring + gs.FINE_MM / 2)


def _key_blade(ink: _Ink) -> None:
    start, end = gs.KEY_BLADE
    ink.stroke(ink.mm([(start, 0.0), (end, 0.0)]), gs.KEY_BLADE_LINE.mm(ink.size), cap="flat")
    ink.shape(gs.KEY_BIT, gs.FINE_MM)


def _key(ink: _Ink, key_shape: str, **_) -> None:
    _key_blade(ink)
    bow = ink.mm([gs.KEY_BOW])[0]
    radius = ink.size / 2 * gs.KEY_BOW_RADIUS
    line = gs.KEY_BOW_LINE.mm(ink.size)
    outline = gs.badge_outline(key_shape, bow, radius)
    if outline is None:
        ink.disc(bow, radius * gs.BADGE_CIRCLE + line / 2)
    else:
        ink.outlined(outline, line)
    if key_shape in ("circle", "square"):
        ink.circle(gs.KEY_BOW, gs.KEY_HOLE, gs.FINE_MM)


def _skeleton_key(ink: _Ink, **_) -> None:
    _key_blade(ink)
    skull = gs.SKELETON_SKULL
    ink.shape(skull.jaw, gs.SKULL_LINE)
    ink.shape(skull.cranium, gs.SKULL_LINE)
    for eye in skull.eyes:
        ink.circle(eye, skull.eye_radius * skull.scale)
    ink.shape(skull.nose, None)
    for tooth in skull.teeth:
        ink.line(tooth, gs.FINE_MM)


def _portal_entry(ink: _Ink, **_) -> None:
    ink.disc((0.0, 0.0), ink.radius * gs.PORTAL_DISC)
    for arm in gs.PORTAL_ARMS:
        ink.stroke(place(gs.PORTAL_SPIRAL, (0.0, 0.0), ink.size, arm), gs.PORTAL_SWIRL_LINE.mm(ink.size))


def _portal_exit(ink: _Ink, **_) -> None:
    ink.circle((0.0, 0.0), gs.PORTAL_RING, gs.PORTAL_RING_LINE)
    ink.arrow(gs.PORTAL_ARROW, gs.PORTAL_ARROW_HEAD, gs.PORTAL_ARROW_LINE)


def _escape_portal(ink: _Ink, **_) -> None:
    for ray in gs.ESCAPE_RAYS:
        ink.line(ray, gs.ESCAPE_RAY_LINE)
    ink.shape(gs.ESCAPE_ARCH, gs.ESCAPE_ARCH_LINE)
    ink.shape(gs.ESCAPE_DOOR, gs.ESCAPE_DOOR_LINE)
    ink.line(gs.ESCAPE_GROUND, gs.ESCAPE_GROUND_LINE)
    ink.arrow(gs.ESCAPE_ARROW, gs.ESCAPE_ARROW_HEAD, gs.ESCAPE_ARROW_LINE)


def _exit(ink: _Ink, **_) -> None:
    ink.shape(gs.EXIT_FRAME, gs.EXIT_FRAME_LINE)
    ink.shape(gs.EXIT_STEPS, gs.FINE_MM)
    ink.arrow(gs.EXIT_ARROW, gs.EXIT_ARROW_HEAD, gs.EXIT_ARROW_LINE)


def _generic(ink: _Ink, **_) -> None:
    ink.circle((0.0, 0.0), gs.GENERIC_RING, gs.GENERIC_LINE)
    ink.circle((0.0, 0.0), gs.GENERIC_INNER_RING, gs.FINE_MM)


def _timer(ink: _Ink, rotation_deg: float, **_) -> None:
    # the crown is an axis-aligned rectangle on the sheet: build it there, then undo the rotation
    corner = place([gs.TIMER_CROWN], (0.0, 0.0), ink.size, rotation_deg)[0]
    w, h = gs.TIMER_CROWN_SIZE[0] * ink.radius, gs.TIMER_CROWN_SIZE[1] * ink.radius
    on_sheet = [corner, (corner[0] + w, corner[1]), (corner[0] + w, corner[1] + h), (corner[0], corner[1] + h)]
    angle = math.radians(-rotation_deg)
    cos, sin = math.cos(angle), math.sin(angle)
    ink.fill([(px * cos - py * sin, px * sin + py * cos) for px, py in on_sheet])
    ink.line(gs.TIMER_STEM, gs.TIMER_STEM_LINE)
    ink.circle(gs.TIMER_FACE.centre, gs.TIMER_FACE.radius, gs.TIMER_FACE_LINE)
    ink.shape(gs.TIMER_WEDGE, None)
    ink.line(gs.TIMER_HAND, gs.TIMER_HAND_LINE)


_BUILDERS: dict[str, Callable[..., None]] = {
    "monster": _monster,
    "boss": _boss,
    "spell": _spell,
    "treasure": _treasure,
    "artifact_stone": _artifact_stone,
    "plant": _plant,
    "prisoner": _prisoner,
    "orb": _orb,
    "key": _key,
    "skeleton_key": _skeleton_key,
    "portal_entry": _portal_entry,
    "portal_exit": _portal_exit,
    "escape_portal": _escape_portal,
    "exit": _exit,
    "timer": _timer,
    "generic": _generic,
}


@lru_cache(maxsize=CACHE_SIZE)
def _local_silhouette(
    glyph: str, variant: str | None, key_shape: str | None, size_mm: float, rotation_deg: float
) -> Polygon | MultiPolygon:
    """The silhouette of a glyph centred on (0, 0), unrotated, in mm (``rotation_deg`` only for the timer)."""
    ink = _Ink(size_mm)
    _BUILDERS[glyph](ink, variant=variant, key_shape=key_shape, rotation_deg=rotation_deg)
    return ink.merged()
