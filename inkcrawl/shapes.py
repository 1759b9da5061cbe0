"""The shapes players interact with on a line sheet, shared by the printed glyphs and the referee.

Every function here is pure and Qt-free: it takes an element's placement, ``at`` (the centre,
sheet mm), ``size_mm`` (the diameter of its round footprint, mm) and ``rotation_deg`` (degrees,
clockwise on the sheet because y points down, the same sense as SVG's ``rotate()``), and
returns points in **sheet millimetres**.

Each shape is designed once in *local units*: the footprint disc has radius 1, x to the right,
y down, before rotation. :func:`place` maps local points to the sheet. Every local point lies
inside the unit disc, so every shape stays inside the element's footprint.

Conventions:

- A *stroke* is a polyline to trace; a closed stroke repeats its first point at the end.
- An *outline* (a treasure) is a closed stroke: its last point equals its first.
- A *region* (:func:`monster_head`, :func:`element_footprint`) is a simple polygon listing each
  vertex once, like ``Area.polygon`` (``shapely.Polygon(points)`` accepts it as is).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from inkcrawl.model import Element

Point = tuple[float, float]

#: The spell variants of line-classic, in ruleset order.
SPELL_VARIANTS = ("bolt", "ward", "star")
#: The treasure variants of line-classic, in ruleset order.
TREASURE_VARIANTS = ("chest", "crown", "goblet")
#: Vertices of the polygon approximating a footprint disc.
FOOTPRINT_SEGMENTS = 64
#: Thinnest line any renderer may draw, in mm (the thinnest a home printer reproduces reliably);
#: :mod:`exporters.style` reads it from here.
MIN_LINE_MM = 0.25
#: Width of fine detail lines (hatching, tick marks, a glyph's inner details), in mm.
FINE_MM = 0.25
#: Printed width of area outline walls (and grid walls), mm; :mod:`inkcrawl.printed` judges on it.
OUTLINE_WALL_MM = 1.2
#: Printed width of explicit walls of line dungeons, mm.
INNER_WALL_MM = 1.08


# -- placement ----------------------------------------------------------------------------------


def place(local: Sequence[Point], at: Point, size_mm: float, rotation_deg: float = 0) -> list[Point]:
    """Map local points (unit = the footprint radius, y down) onto the sheet.

    The point ``(u, v)`` becomes ``at + R * rot(u, v)`` where ``R = size_mm / 2`` and ``rot``
    turns by ``rotation_deg`` clockwise on the sheet (a local point straight right, ``(1, 0)``,
    lands straight below ``at`` after a 90 degree rotation). Returns sheet mm.
    """
    if not size_mm or size_mm <= 0:
        raise ValueError(f"size_mm must be positive, got {size_mm!r}")
    radius = size_mm / 2
    angle = math.radians(rotation_deg or 0)
    cos, sin = math.cos(angle), math.sin(angle)
    cx, cy = at
    return [(cx + radius * (u * cos - v * sin), cy + radius * (u * sin + v * cos)) for u, v in local]


def _closed(points: list[Point]) -> list[Point]:
    return points if points and points[0] == points[-1] else [*points, points[0]]


def arc(cx: float, cy: float, rx: float, ry: float, start_deg: float, end_deg: float, steps: int) -> list[Point]:
    """Points of an elliptical arc in local units (angles in degrees, y down), both ends included."""
    return [
        (
            cx + rx * math.cos(math.radians(start_deg + (end_deg - start_deg) * i / steps)),
            cy + ry * math.sin(math.radians(start_deg + (end_deg - start_deg) * i / steps)),
        )
        for i in range(steps + 1)
    ]


def _mirror(right_half: list[Point]) -> list[Point]:
    """A left-right symmetric outline from its right half (top to bottom, x >= 0)."""
    left = [(-x, y) for x, y in reversed(right_half) if x != 0]
    return right_half + left


# -- spells -------------------------------------------------------------------------------------

# bolt: a lightning zigzag from the top right to the bottom left, four strokes.
_BOLT = [(0.40, -0.78), (-0.22, -0.16), (0.22, -0.06), (-0.18, 0.38), (0.08, 0.36), (-0.36, 0.80)]
# ward: a protective ring.
_WARD = arc(0, 0, 0.70, 0.70, -90, 270, 48)
# star: a pentagram drawn in one unbroken line (tip up), as a caster would trace it.
_STAR_TIPS = arc(0, 0, 0.86, 0.86, -90, 270, 5)[:5]
_STAR = [_STAR_TIPS[i] for i in (0, 2, 4, 1, 3, 0)]

_SPELLS: dict[str, list[list[Point]]] = {
    "bolt": [_BOLT],
    "ward": [_closed(_WARD[:-1])],
    "star": [_STAR],
}


def spell_trace(variant: str, at: Point, size_mm: float, rotation_deg: float = 0) -> list[list[Point]]:
    """The strokes a player traces to cast a spell, in sheet mm.

    ``bolt`` is one open zigzag, ``ward`` one closed ring, ``star`` one closed pentagram (its
    last point repeats the first). Everything lies inside the element's disc of diameter
    ``size_mm`` around ``at``; ``rotation_deg`` turns it clockwise. Raises ``ValueError`` for a
    variant other than those of :data:`SPELL_VARIANTS`.
    """
    try:
        strokes = _SPELLS[variant]
    except (KeyError, TypeError):
        raise ValueError(f"unknown spell variant {variant!r} (known: {', '.join(SPELL_VARIANTS)})") from None
    return [place(stroke, at, size_mm, rotation_deg) for stroke in strokes]


# -- treasures ----------------------------------------------------------------------------------

# chest: a box with a domed lid.
_CHEST = [(-0.72, 0.56), (0.72, 0.56), (0.72, -0.12), *arc(0, -0.12, 0.72, 0.50, 0, -180, 16)[1:-1], (-0.72, -0.12)]
# crown: a band with three points, the middle one tallest.
_CROWN = [(-0.66, 0.52), (0.66, 0.52), (0.74, -0.42), (0.36, -0.06), (0.0, -0.66), (-0.36, -0.06), (-0.74, -0.42)]
# goblet: a round bowl on a stem and a wide foot.
_GOBLET = _mirror(
    [
        (0.0, -0.72),
        (0.56, -0.72),
        *arc(0, -0.72, 0.56, 0.64, 0, 70, 7)[1:],
        (0.10, -0.02),
        (0.10, 0.46),
        (0.46, 0.62),
        (0.46, 0.74),
        (0.0, 0.74),
    ]
)

_TREASURES: dict[str, list[Point]] = {"chest": _CHEST, "crown": _CROWN, "goblet": _GOBLET}


def treasure_outline(variant: str, at: Point, size_mm: float, rotation_deg: float = 0) -> list[Point]:
    """The closed outline a player traces to collect a treasure, in sheet mm.

    The last point repeats the first. The outline lies inside the element's disc of diameter
    ``size_mm`` around ``at``; ``rotation_deg`` turns it clockwise. Raises ``ValueError`` for a
    variant other than those of :data:`TREASURE_VARIANTS`.
    """
    try:
        outline = _TREASURES[variant]
    except (KeyError, TypeError):
        raise ValueError(f"unknown treasure variant {variant!r} (known: {', '.join(TREASURE_VARIANTS)})") from None
    return place(_closed(list(outline)), at, size_mm, rotation_deg)


# -- monsters -----------------------------------------------------------------------------------


def _head_local() -> list[Point]:
    # A round head (centre (0, -0.40), radii 0.40 x 0.33) with two horns rising from its top.
    cx, cy, rx, ry = 0.0, -0.40, 0.40, 0.33
    horns = {10: (-0.38, -0.84), 19: (0.38, -0.84)}  # after ellipse point i, the horn tip, then skip two
    points: list[Point] = []
    skip = 0
    for i in range(32):
        if skip:
            skip -= 1
            continue
        a = math.radians(90 + 360 * i / 32)  # from the chin, clockwise on the sheet
        points.append((cx + rx * math.cos(a), cy + ry * math.sin(a)))
        if i in horns:
            points.append(horns[i])
            skip = 2
    return points


_HEAD = _head_local()


def monster_head(at: Point, size_mm: float, rotation_deg: float = 0) -> list[Point]:
    """The head of a monster (round, with two horns) as a simple polygon in sheet mm.

    This is the region the Barbarian covers to defeat a monster (RULES.md 2, Characters), and the
    head the printed monster glyph shows. It lies in the upper part of the element's disc of
    diameter ``size_mm`` around ``at`` before ``rotation_deg`` (clockwise) is applied; each vertex
    is listed once.
    """
    return place(_HEAD, at, size_mm, rotation_deg)


# -- footprints ---------------------------------------------------------------------------------


def disc_polygon(at: Point, size_mm: float, segments: int = FOOTPRINT_SEGMENTS) -> list[Point]:
    """A disc of diameter ``size_mm`` around ``at`` as a regular polygon (vertices on the circle,
    each listed once), in sheet mm."""
    return place(arc(0, 0, 1, 1, 0, 360, segments)[:-1], at, size_mm)


def element_footprint(element: Element) -> list[Point]:
    """The round footprint of an element (a disc of diameter ``size_mm`` around ``at``) as a
    polygon of :data:`FOOTPRINT_SEGMENTS` vertices in sheet mm, for cover and touch checks.

    Raises ``ValueError`` for an element without ``at`` and a positive ``size_mm`` (doors and
    labels have no footprint).
    """
    if element.at is None or not element.size_mm or element.size_mm <= 0:
        raise ValueError(
            f"{element.kind} {element.id!r} has no round footprint (it needs 'at' and a positive 'size_mm')"
        )
    return disc_polygon(element.at, element.size_mm)
