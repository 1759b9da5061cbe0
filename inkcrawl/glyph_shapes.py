"""The geometry of the line family's printed element glyphs, in one place for the exporter that
draws them (:mod:`exporters.line_glyphs`) and the core that needs their ink (:mod:`inkcrawl.ink`).

Like :mod:`inkcrawl.shapes`, every shape here is in *local units*: the element's footprint disc
has radius 1, x to the right, y down, before rotation; :func:`inkcrawl.shapes.place` maps local
points onto the sheet. Points are ``(x, y)`` tuples; a polygon lists each vertex once.

Line widths are millimetres on the sheet. Most glyph strokes grow with the element but never
print thinner than a minimum: a :class:`Width` holds that rule (``max(size_mm * fraction,
minimum)``), so the exporter and the silhouette compute the same width. Fine detail lines are
:data:`FINE_MM` at every size. The shapes players interact with (spell traces, treasure outlines,
the monster head) stay in :mod:`inkcrawl.shapes`.

Pure and Qt-free.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import NamedTuple

from shapely.geometry import MultiPolygon, Polygon
from shapely.ops import unary_union

# FINE_MM is re-exported: the glyphs' fine lines are part of their geometry
from inkcrawl.shapes import FINE_MM, MIN_LINE_MM, arc  # noqa: F401

Point = tuple[float, float]


class Width(NamedTuple):
    """A stroke width (or a length) that grows with the element: ``max(size_mm * fraction, minimum)`` mm."""

    fraction: float
    minimum: float = MIN_LINE_MM

    def mm(self, size_mm: float) -> float:
        """The width in mm for an element of diameter ``size_mm``."""
        return stroke_width(size_mm, self.fraction, self.minimum)


def stroke_width(size_mm: float, fraction: float, minimum: float = MIN_LINE_MM) -> float:
    """``size_mm * fraction`` clamped to at least ``minimum`` (mm)."""
    return max(size_mm * fraction, minimum)


# -- helpers (local units) ----------------------------------------------------------------------


def ellipse(cx: float, cy: float, rx: float, ry: float, n: int = 40) -> Polygon:
    """An ellipse as a polygon of ``n`` vertices."""
    return Polygon(
        [(cx + rx * math.cos(2 * math.pi * i / n), cy + ry * math.sin(2 * math.pi * i / n)) for i in range(n)]
    )


#: How far (local units) an outline may stray from the shapes it outlines to drop a vertex: 0.2 %
#: of the footprint radius, 0.01 mm on a 10 mm glyph, an eighth of a 300 dpi dot.
OUTLINE_TOLERANCE = 0.002


def union_outline(*geoms) -> list[Point]:
    """The outline of the union of polygons (its largest part if they fall apart), each vertex
    once, without the vertices print cannot show: simplified (Douglas-Peucker, topology kept) to
    within :data:`OUTLINE_TOLERANCE`. A monster's body, the union of five 40-gon ellipses, keeps
    84 of its 122 vertices; each one printed is drawn by Qt and compressed into the PDF. Raises
    ``TypeError`` when the union is no polygon."""
    merged = unary_union(list(geoms))
    if isinstance(merged, MultiPolygon):
        merged = max(merged.geoms, key=lambda g: g.area)
    if not isinstance(merged, Polygon):
        raise TypeError(f"the union of the shapes is a {merged.geom_type}, not a polygon")
    simplified = merged.simplify(OUTLINE_TOLERANCE)  # a polygon stays one, its topology kept
    outline = simplified if isinstance(simplified, Polygon) else merged
    return [(x, y) for x, y in outline.exterior.coords[:-1]]


def leaf(base: Point, tip: Point, width: float, n: int = 8) -> list[Point]:
    """A pointed leaf (lens) from ``base`` to ``tip``: ``leaf[0]`` is the base, ``leaf[n]`` the tip."""
    (bx, by), (tx, ty) = base, tip
    length = math.hypot(tx - bx, ty - by)
    ux, uy = (tx - bx) / length, (ty - by) / length
    nx, ny = -uy, ux
    side1 = [
        (
            bx + ux * length * t + nx * width * math.sin(math.pi * t),
            by + uy * length * t + ny * width * math.sin(math.pi * t),
        )
        for t in (i / n for i in range(n + 1))
    ]
    side2 = [
        (
            bx + ux * length * t - nx * width * math.sin(math.pi * t),
            by + uy * length * t - ny * width * math.sin(math.pi * t),
        )
        for t in (i / n for i in range(n - 1, 0, -1))
    ]
    return side1 + side2


def curve(a: Point, b: Point, control: Point, steps: int = 8) -> list[Point]:
    """A quadratic Bezier from ``a`` to ``b`` as points (both ends included)."""
    return [
        (
            (1 - t) ** 2 * a[0] + 2 * (1 - t) * t * control[0] + t**2 * b[0],
            (1 - t) ** 2 * a[1] + 2 * (1 - t) * t * control[1] + t**2 * b[1],
        )
        for t in (i / steps for i in range(steps + 1))
    ]


def spiral(turns: float, r_out: float, r_in: float, steps: int = 64) -> list[Point]:
    """A spiral from radius ``r_out`` at the top, turning clockwise ``turns`` times to ``r_in``."""
    return [
        (
            (r_out + (r_in - r_out) * t) * math.cos(math.radians(-90 + 360 * turns * t)),
            (r_out + (r_in - r_out) * t) * math.sin(math.radians(-90 + 360 * turns * t)),
        )
        for t in (i / steps for i in range(steps + 1))
    ]


def badge_outline(shape: str, centre: Point, radius: float, rotation_deg: float = 0) -> list[Point] | None:
    """Vertices of a key colour's badge (``triangle``, ``square``, ``star``) of ``radius`` around ``centre``
    (any units), turned ``rotation_deg`` clockwise; ``None`` for round badges (``circle`` and lettered ones,
    a circle of ``BADGE_CIRCLE * radius``)."""
    cx, cy = centre
    if shape == "star":
        outer, inner = radius * BADGE_STAR[0], radius * BADGE_STAR[1]
        out = []
        for i in range(10):
            r = outer if i % 2 == 0 else inner
            angle = math.radians(-90 + rotation_deg + 180 * i / 5)
            out.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
        return out
    if shape not in BADGE_POLYGONS:
        return None
    factor, sides, start = BADGE_POLYGONS[shape]
    r = radius * factor
    return [
        (
            cx + r * math.cos(math.radians(start + rotation_deg + 360 * i / sides)),
            cy + r * math.sin(math.radians(start + rotation_deg + 360 * i / sides)),
        )
        for i in range(sides)
    ]


class Line(NamedTuple):
    """A straight detail line from ``a`` to ``b`` (local units)."""

    a: Point
    b: Point


class Dot(NamedTuple):
    """A small circle: ``centre`` (local units) and ``radius`` (a fraction of the footprint radius)."""

    centre: Point
    radius: float


class Box(NamedTuple):
    """A closed polygon detail (local units)."""

    points: list[Point]


# -- monster ------------------------------------------------------------------------------------

MONSTER_BODY = union_outline(
    ellipse(0, 0.24, 0.74, 0.56),
    ellipse(-0.36, 0.70, 0.15, 0.13),
    ellipse(0.36, 0.70, 0.15, 0.13),  # feet
    ellipse(-0.72, 0.08, 0.17, 0.14),
    ellipse(0.72, 0.08, 0.17, 0.14),  # fists
)
MONSTER_BELLY = arc(0, 0.30, 0.34, 0.30, 0, 360, 24)[:-1]
#: Outline of the body and of the head (:func:`inkcrawl.shapes.monster_head`).
MONSTER_LINE = Width(0.045)


# -- boss ---------------------------------------------------------------------------------------

#: Where the boss's finger bones start (right wing; the left one mirrors it) and end.
BOSS_FINGER_ROOT = (0.26, -0.14)
BOSS_FINGERS = [(0.58, -0.64), (0.90, -0.22), (0.80, 0.20)]


def _bat_wing() -> list[Point]:
    """The right wing of the boss: finger bones from the shoulder, the membrane scalloped between them."""
    shoulder = (0.24, -0.14)
    fingers = [*BOSS_FINGERS, (0.46, 0.34)]
    points = [shoulder, *curve(shoulder, fingers[0], (0.36, -0.52))]
    for a, b in pairwise(fingers):
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        pull = (mid[0] + (shoulder[0] - mid[0]) * 0.28, mid[1] + (shoulder[1] - mid[1]) * 0.28)
        points += curve(a, b, pull)[1:]
    points.append((0.30, 0.24))
    return points


BOSS_WING = _bat_wing()
BOSS_BODY = union_outline(
    ellipse(0, 0.30, 0.46, 0.50), ellipse(-0.24, 0.78, 0.13, 0.10), ellipse(0.24, 0.78, 0.13, 0.10)
)
BOSS_HEAD = arc(0, -0.36, 0.30, 0.27, 0, 360, 32)[:-1]
BOSS_CROWN = [(-0.26, -0.56), (-0.30, -0.86), (-0.13, -0.70), (0.0, -0.93), (0.13, -0.70), (0.30, -0.86), (0.26, -0.56)]
#: Heights of the ribs on the chest, each from x = -BOSS_RIB_HALF to +BOSS_RIB_HALF (fine lines).
BOSS_RIBS = (0.12, 0.28, 0.44)
BOSS_RIB_HALF = 0.2
#: Outline of the wings, body, head and crown.
BOSS_LINE = Width(0.03)


# -- spell --------------------------------------------------------------------------------------

#: Radius of the faint rune disc (dashed fine outline) behind the trace.
SPELL_DISC = 0.97
#: The trace's dashed stroke.
SPELL_TRACE_LINE = Width(0.05, 0.45)
#: Radius (not a width) of the dot where the trace starts.
SPELL_DOT_RADIUS = Width(0.045, 0.35)


# -- treasure -----------------------------------------------------------------------------------

#: The yellow outline (:func:`inkcrawl.shapes.treasure_outline`).
TREASURE_LINE = Width(0.075, 0.6)
#: Fine ink details drawn over each treasure, in drawing order (a :class:`Dot` and a :class:`Box` are
#: filled with paper).
TREASURE_DETAILS: dict[str, list[Line | Dot | Box]] = {
    "chest": [
        Line((-0.64, -0.12), (0.64, -0.12)),
        Line((-0.42, -0.56), (-0.42, 0.50)),
        Line((0.42, -0.56), (0.42, 0.50)),
        Box([(-0.12, -0.22), (0.12, -0.22), (0.12, 0.08), (-0.12, 0.08)]),
    ],
    "crown": [
        Line((-0.62, 0.26), (0.62, 0.26)),
        Dot((-0.36, 0.40), 0.07),
        Dot((0.0, 0.40), 0.09),
        Dot((0.36, 0.40), 0.07),
    ],
    "goblet": [Line((-0.50, -0.50), (0.50, -0.50)), Dot((0.0, -0.30), 0.09), Line((-0.28, 0.62), (0.28, 0.62))],
}


# -- artifact stone -----------------------------------------------------------------------------

STONE = [
    (0.86 * math.cos(math.radians(a)) * f, 0.86 * math.sin(math.radians(a)) * f)
    for a, f in ((-100, 1.0), (-45, 0.92), (5, 1.0), (55, 0.9), (100, 1.0), (150, 0.93), (200, 1.0), (245, 0.9))
]
STONE_LINE = Width(0.07, 0.3)


# -- plant --------------------------------------------------------------------------------------

PLANT_STEM = Line((0, 0.86), (0, -0.2))
PLANT_STEM_LINE = Width(0.06)
PLANT_LEAVES = [
    leaf((0, 0.62), (-0.72, 0.12), 0.20),
    leaf((0, 0.62), (0.72, 0.12), 0.20),
    leaf((0, 0.22), (-0.52, -0.42), 0.17),
    leaf((0, 0.22), (0.52, -0.42), 0.17),
    leaf((0, -0.05), (0, -0.86), 0.17),
]
#: Each leaf's vein (a fine line from its base two thirds of the way to its tip), leaf by leaf.
PLANT_VEINS = [Line(lf[0], ((lf[0][0] + lf[8][0] * 2) / 3, (lf[0][1] + lf[8][1] * 2) / 3)) for lf in PLANT_LEAVES]
LEAF_LINE = Width(0.04)


# -- prisoner -----------------------------------------------------------------------------------

CAGE = [(-0.60, 0.74), (0.60, 0.74), (0.60, -0.28), *arc(0, -0.28, 0.60, 0.50, 0, -180, 14)[1:-1], (-0.60, -0.28)]
CAGE_LINE = Width(0.05)
#: The cage's bars, each from the dome down to the floor.
CAGE_BARS = [Line((x, -0.28 - 0.50 * math.sqrt(max(0.0, 1 - (x / 0.60) ** 2))), (x, 0.74)) for x in (-0.30, 0.0, 0.30)]
CAGE_BAR_LINE = Width(0.04)
#: The ring on top of the cage (a fine outline).
CAGE_RING = Dot((0, -0.86), 0.08)
PRISONER_HEAD = Dot((0, -0.12), 0.18)
PRISONER_BODY = [(-0.30, 0.72), (-0.22, 0.14), (0.22, 0.14), (0.30, 0.72)]


# -- orb ----------------------------------------------------------------------------------------

#: Radius of the sphere; a fine ring circles it ORB_RING_GAP_MM + half of ORB_RING_OFFSET outside.
ORB_SPHERE = 0.92
ORB_LINE = Width(0.06)
ORB_RING_OFFSET = Width(0.03)
ORB_RING_GAP_MM = 0.15
#: The paper-white highlight on the sphere (never rotated).
ORB_HIGHLIGHT = arc(0, 0, 0.66, 0.66, 200, 260, 8)
ORB_HIGHLIGHT_LINE = Width(0.07)
#: The pink orb's dotted inner ring.
ORB_PINK_RING = 0.72


# -- keys ---------------------------------------------------------------------------------------

#: The key's shaft runs along y = 0 from x = KEY_BLADE[0] to KEY_BLADE[1] (butt caps).
KEY_BLADE = (-0.2, 0.90)
KEY_BLADE_LINE = Width(0.09)
#: The key's bit (filled, fine outline).
KEY_BIT = [(0.52, 0.0), (0.52, 0.34), (0.64, 0.34), (0.64, 0.16), (0.74, 0.16), (0.74, 0.30), (0.86, 0.30), (0.86, 0.0)]
#: The bow: a badge of radius KEY_BOW_RADIUS around KEY_BOW (see :func:`badge_outline`), outlined with
#: KEY_BOW_LINE; round and square bows have a hole of radius KEY_HOLE.
KEY_BOW = (-0.50, 0.0)
KEY_BOW_RADIUS = 0.44
KEY_BOW_LINE = Width(0.05)
KEY_HOLE = 0.12
#: Badge shapes relative to the badge radius: circles (and lettered badges) have radius BADGE_CIRCLE,
#: polygons ``(radius factor, sides, angle of the first vertex)``, the star (outer, inner) radius.
BADGE_CIRCLE = 0.9
BADGE_POLYGONS = {"triangle": (1.08, 3, -90), "square": (1.05, 4, -45)}
BADGE_STAR = (1.12, 0.5)
#: Key shapes a ruleset may give a colour; any other prints as a lettered circle.
KEY_SHAPES = ("circle", "triangle", "square", "star")


class Skull(NamedTuple):
    """A skull in local units: jaw and cranium (paper with an outline), eyes (ink dots of radius
    ``eye_radius * scale``), nose (ink) and teeth (fine lines)."""

    jaw: list[Point]
    cranium: list[Point]
    eyes: list[Point]
    eye_radius: float
    scale: float
    nose: list[Point]
    teeth: list[Line]


def skull(cx: float, s: float) -> Skull:
    """A skull centred on ``(cx, 0)`` at scale ``s``."""
    return Skull(
        jaw=[(cx - 0.2 * s, 0.2 * s), (cx + 0.2 * s, 0.2 * s), (cx + 0.2 * s, 0.42 * s), (cx - 0.2 * s, 0.42 * s)],
        cranium=arc(cx, -0.04 * s, 0.36 * s, 0.34 * s, 0, 360, 28)[:-1],
        eyes=[(cx + ex * s, -0.04 * s) for ex in (-0.14, 0.14)],
        eye_radius=0.1,
        scale=s,
        nose=[(cx, 0.08 * s), (cx - 0.05 * s, 0.18 * s), (cx + 0.05 * s, 0.18 * s)],
        teeth=[Line((cx + tx * s, 0.3 * s), (cx + tx * s, 0.42 * s)) for tx in (-0.08, 0.0, 0.08)],
    )


#: The skeleton key's bow.
SKELETON_SKULL = skull(-0.5, 1.25)
SKULL_LINE = Width(0.04)


# -- portals ------------------------------------------------------------------------------------

#: The entry's tinted disc and its two swirl arms (the second turned by 180 degrees).
PORTAL_DISC = 0.96
PORTAL_SPIRAL = spiral(0.85, 0.95, 0.50)
PORTAL_ARMS = (0, 180)
PORTAL_SWIRL_LINE = Width(0.07)
#: The exit's ring and the arrow leaving it.
PORTAL_RING = 0.52
PORTAL_RING_LINE = Width(0.09)
PORTAL_ARROW = Line((0.40, -0.40), (0.70, -0.70))
PORTAL_ARROW_LINE = Width(0.07)
PORTAL_ARROW_HEAD = Width(0.18, 1.2)


# -- escape portal ------------------------------------------------------------------------------

ESCAPE_RAYS = [
    Line((0.70 * math.cos(a), -0.10 + 0.70 * math.sin(a)), (0.86 * math.cos(a), -0.10 + 0.84 * math.sin(a)))
    for a in (math.radians(angle) for angle in (-150, -120, -90, -60, -30))
]
ESCAPE_RAY_LINE = Width(0.035)
ESCAPE_ARCH = [
    (-0.50, 0.72),
    (0.50, 0.72),
    (0.50, -0.10),
    *arc(0, -0.10, 0.50, 0.52, 0, -180, 14)[1:-1],
    (-0.50, -0.10),
]
ESCAPE_ARCH_LINE = Width(0.045)
#: The doorway inside the arch (paper, outlined in the escape colour).
ESCAPE_DOOR = [
    (-0.32, 0.72),
    (0.32, 0.72),
    (0.32, -0.06),
    *arc(0, -0.06, 0.32, 0.36, 0, -180, 12)[1:-1],
    (-0.32, -0.06),
]
ESCAPE_DOOR_LINE = Width(0.03)
ESCAPE_GROUND = Line((-0.72, 0.72), (0.72, 0.72))
ESCAPE_GROUND_LINE = Width(0.045)
ESCAPE_ARROW = Line((0.0, 0.56), (0.0, -0.26))
ESCAPE_ARROW_LINE = Width(0.05)
ESCAPE_ARROW_HEAD = Width(0.16, 1.0)


# -- exit ---------------------------------------------------------------------------------------

EXIT_FRAME = [(-0.64, -0.64), (0.64, -0.64), (0.64, 0.64), (-0.64, 0.64)]
EXIT_FRAME_LINE = Width(0.05)
#: The staircase (filled, fine outline).
EXIT_STEPS = [
    (-0.64, 0.64),
    (-0.64, 0.40),
    (-0.32, 0.40),
    (-0.32, 0.14),
    (0.0, 0.14),
    (0.0, -0.12),
    (0.32, -0.12),
    (0.32, -0.38),
    (0.64, -0.38),
    (0.64, 0.64),
]
EXIT_ARROW = Line((-0.50, 0.02), (0.05, -0.53))
EXIT_ARROW_LINE = Width(0.04)
EXIT_ARROW_HEAD = Width(0.15, 1.0)


# -- generic ------------------------------------------------------------------------------------

#: A paper disc with an outline, a fine inner ring and the kind's initial.
GENERIC_RING = 0.9
GENERIC_INNER_RING = 0.72
GENERIC_LINE = Width(0.05)


# -- timer (a footer icon; also the glyph of an element kind named "timer") ---------------------

#: The crown of the stopwatch: a rectangle from TIMER_CROWN's corner, TIMER_CROWN_SIZE (fractions of the
#: radius) wide and high, never rotated.
TIMER_CROWN = (-0.14, -0.98)
TIMER_CROWN_SIZE = (0.28, 0.18)
TIMER_STEM = Line((0.0, -0.80), (0.0, -0.68))
TIMER_STEM_LINE = Width(0.08)
TIMER_FACE = Dot((0.0, 0.08), 0.80)
TIMER_FACE_LINE = Width(0.07)
TIMER_WEDGE = [(0.0, 0.08), *arc(0.0, 0.08, 0.62, 0.62, -90, 30, 10)]
TIMER_HAND = Line((0.0, 0.08), (0.0, -0.46))
TIMER_HAND_LINE = Width(0.06)


# -- arrows -------------------------------------------------------------------------------------

#: An arrowhead is ``head_mm`` long and ``2 * ARROW_SPREAD * head_mm`` wide at its base (as
#: :meth:`exporters.canvas.SheetCanvas.arrow` draws it, with a fine outline).
ARROW_SPREAD = 0.55


def arrow_head(tail: Point, tip: Point, head: float) -> tuple[Point, list[Point]]:
    """The base of the shaft and the head triangle ``[tip, left, right]`` of an arrow from ``tail`` to
    ``tip`` whose head is ``head`` long (any units)."""
    angle = math.atan2(tip[1] - tail[1], tip[0] - tail[0])
    base = (tip[0] - head * math.cos(angle), tip[1] - head * math.sin(angle))
    spread = head * ARROW_SPREAD
    left = (base[0] + spread * math.sin(angle), base[1] - spread * math.cos(angle))
    right = (base[0] - spread * math.sin(angle), base[1] + spread * math.cos(angle))
    return base, [tip, left, right]
