"""Original vector glyphs of the line family's elements, drawn with :class:`~exporters.canvas.SheetCanvas`.

Each glyph function draws one element into a group: ``glyph(canvas, parent, at, size_mm,
rotation_deg, **extra)`` with ``at`` the centre (sheet mm), ``size_mm`` the footprint diameter
and ``rotation_deg`` clockwise. Shapes are designed in local units (radius 1, y down) and
placed with :func:`inkcrawl.shapes.place`; the shapes players interact with (spell strokes,
treasure outlines, the monster head) come from :mod:`inkcrawl.shapes`, so the printed sheet and
the referee agree. Every glyph reads in black and white: colour is always doubled by a shape, a
letter or a pattern. The footer reuses the same functions for its icons.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from shapely.geometry import Polygon
from shapely.ops import unary_union

from exporters import style
from exporters.canvas import SheetCanvas, path_data, regular_polygon, star_points
from inkcrawl import shapes
from inkcrawl.shapes import place

Point = tuple[float, float]

#: Em-relative cap height of DejaVu Sans: a baseline ``CAP * size / 2`` below a centre centres capitals.
from inkcrawl.textmetrics import CAP_HEIGHT_EM as CAP  # noqa: E402

#: Colours printed for portal channels named after a colour (any other channel gets one of
#: :data:`PORTAL_HUES` in order of first appearance); the channel's letter is always printed too.
NAMED_COLOURS = {
    "red": "#c0392b", "green": "#27ae60", "blue": "#2e6fd1", "yellow": "#d4a017", "pink": "#d14f9a",
    "purple": "#7d3c98", "orange": "#d35400", "teal": "#2a7f8f", "black": "#1b1b1b", "white": "#9a9a9a",
}
PORTAL_HUES = ("#2a7f8f", "#7d3c98", "#d35400", "#1f7a4a", "#b03060", "#4a5aa8")


@dataclass
class GlyphStyle:
    """What glyphs need besides the palette: key colours and shapes from the ruleset, portal
    channel colours and letters (built once per sheet)."""

    keys: dict[str, tuple[str, str]] = field(default_factory=dict)  # colour id -> (rgb, shape)
    channels: dict[str, tuple[str, str]] = field(default_factory=dict)  # channel -> (rgb, letter)

    @classmethod
    def for_sheet(cls, ruleset_data: dict, channels: Sequence[str]) -> GlyphStyle:
        """Key styles from ``ruleset_data["keys"]["colours"]``; portal styles for ``channels``."""
        keys = {c["id"]: (c.get("rgb", "#1b1b1b"), c.get("shape", "circle"))
                for c in ruleset_data.get("keys", {}).get("colours", [])}
        return cls(keys, channel_styles(channels))

    def key(self, colour: str) -> tuple[str, str]:
        """``(rgb, shape)`` of a key colour; unknown colours get a letter badge."""
        return self.keys.get(colour, (NAMED_COLOURS.get(colour, "#1b1b1b"), "letter"))

    def channel(self, channel: str) -> tuple[str, str]:
        """``(rgb, letter)`` of a portal channel."""
        return self.channels.get(channel) or channel_styles([channel])[channel]


def channel_styles(channels: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Colour and printed letter of each portal channel (letters stay unique: ``red`` and
    ``rose`` print ``RE`` and ``RO``)."""
    unique = list(dict.fromkeys(channels))
    out = {}
    hue = 0
    for channel in unique:
        if channel.lower() in NAMED_COLOURS:
            rgb = NAMED_COLOURS[channel.lower()]
        else:
            rgb = PORTAL_HUES[hue % len(PORTAL_HUES)]
            hue += 1
        letter = channel.upper() if len(channel) <= 2 else channel[0].upper()
        if len(channel) > 2 and sum(1 for c in unique if c[:1].upper() == letter) > 1:
            letter = channel[:2].upper()
        out[channel] = (rgb, letter)
    return out


# -- helpers ------------------------------------------------------------------------------------

def centred_text(canvas: SheetCanvas, text: str, centre: Point, size_mm: float, *, parent, bold: bool = True,
                 fill: str | None = None, kind: str | None = None):
    """Text whose capitals are centred on ``centre`` (``size_mm`` em, clamped to 2 mm)."""
    size_mm = max(size_mm, 2.0)
    return canvas.text(text, (centre[0], centre[1] + CAP * size_mm / 2), size_mm, anchor="middle", bold=bold,
                       fill=fill, parent=parent, kind=kind)


def _scale(size_mm: float, fraction: float, minimum: float = style.MIN_LINE_MM) -> float:
    return max(size_mm * fraction, minimum)


def _union_outline(*geoms) -> list[Point]:
    merged = unary_union(list(geoms))
    if merged.geom_type != "Polygon":
        merged = max(merged.geoms, key=lambda g: g.area)
    return [tuple(p) for p in merged.exterior.coords[:-1]]


def _arc(cx: float, cy: float, rx: float, ry: float, start_deg: float, end_deg: float, steps: int) -> list[Point]:
    """Points of an elliptical arc in local units (degrees, y down), both ends included."""
    return [(cx + rx * math.cos(math.radians(start_deg + (end_deg - start_deg) * i / steps)),
             cy + ry * math.sin(math.radians(start_deg + (end_deg - start_deg) * i / steps)))
            for i in range(steps + 1)]


def _ellipse(cx: float, cy: float, rx: float, ry: float, n: int = 40) -> Polygon:
    return Polygon([(cx + rx * math.cos(2 * math.pi * i / n), cy + ry * math.sin(2 * math.pi * i / n))
                    for i in range(n)])


def _leaf(base: Point, tip: Point, width: float, n: int = 8) -> list[Point]:
    """A pointed leaf (lens) from ``base`` to ``tip`` in local units."""
    (bx, by), (tx, ty) = base, tip
    length = math.hypot(tx - bx, ty - by)
    ux, uy = (tx - bx) / length, (ty - by) / length
    nx, ny = -uy, ux
    side1 = [(bx + ux * length * t + nx * width * math.sin(math.pi * t), by + uy * length * t + ny * width *
              math.sin(math.pi * t)) for t in (i / n for i in range(n + 1))]
    side2 = [(bx + ux * length * t - nx * width * math.sin(math.pi * t), by + uy * length * t - ny * width *
              math.sin(math.pi * t)) for t in (i / n for i in range(n - 1, 0, -1))]
    return side1 + side2


# Local silhouettes, computed once ----------------------------------------------------------------

_MONSTER_BODY = _union_outline(
    _ellipse(0, 0.24, 0.74, 0.56),
    _ellipse(-0.36, 0.70, 0.15, 0.13), _ellipse(0.36, 0.70, 0.15, 0.13),     # feet
    _ellipse(-0.72, 0.08, 0.17, 0.14), _ellipse(0.72, 0.08, 0.17, 0.14),     # fists
)
_MONSTER_BELLY = _arc(0, 0.30, 0.34, 0.30, 0, 360, 24)[:-1]

def _bat_wing() -> list[Point]:
    """The right wing of the boss: finger bones from the shoulder, the membrane scalloped between them."""
    shoulder = (0.24, -0.14)
    fingers = [(0.58, -0.64), (0.90, -0.22), (0.80, 0.20), (0.46, 0.34)]
    points = [shoulder, *_curve(shoulder, fingers[0], (0.36, -0.52))]
    for a, b in zip(fingers, fingers[1:]):
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        pull = (mid[0] + (shoulder[0] - mid[0]) * 0.28, mid[1] + (shoulder[1] - mid[1]) * 0.28)
        points += _curve(a, b, pull)[1:]
    points.append((0.30, 0.24))
    return points


def _curve(a: Point, b: Point, control: Point, steps: int = 8) -> list[Point]:
    """A quadratic Bezier from ``a`` to ``b`` as points (both ends included)."""
    return [((1 - t) ** 2 * a[0] + 2 * (1 - t) * t * control[0] + t ** 2 * b[0],
             (1 - t) ** 2 * a[1] + 2 * (1 - t) * t * control[1] + t ** 2 * b[1])
            for t in (i / steps for i in range(steps + 1))]


_BOSS_WING = _bat_wing()
_BOSS_FINGERS = [(0.58, -0.64), (0.90, -0.22), (0.80, 0.20)]
_BOSS_BODY = _union_outline(_ellipse(0, 0.30, 0.46, 0.50), _ellipse(-0.24, 0.78, 0.13, 0.10),
                            _ellipse(0.24, 0.78, 0.13, 0.10))
_BOSS_HEAD = _arc(0, -0.36, 0.30, 0.27, 0, 360, 32)[:-1]
_BOSS_CROWN = [(-0.26, -0.56), (-0.30, -0.86), (-0.13, -0.70), (0.0, -0.93), (0.13, -0.70), (0.30, -0.86),
               (0.26, -0.56)]

_STONE = [(0.86 * math.cos(math.radians(a)) * f, 0.86 * math.sin(math.radians(a)) * f)
          for a, f in ((-100, 1.0), (-45, 0.92), (5, 1.0), (55, 0.9), (100, 1.0), (150, 0.93), (200, 1.0),
                       (245, 0.9))]

_PLANT_LEAVES = [_leaf((0, 0.62), (-0.72, 0.12), 0.20), _leaf((0, 0.62), (0.72, 0.12), 0.20),
                 _leaf((0, 0.22), (-0.52, -0.42), 0.17), _leaf((0, 0.22), (0.52, -0.42), 0.17),
                 _leaf((0, -0.05), (0, -0.86), 0.17)]

_CAGE = [(-0.60, 0.74), (0.60, 0.74), (0.60, -0.28), *_arc(0, -0.28, 0.60, 0.50, 0, -180, 14)[1:-1],
         (-0.60, -0.28)]


def _spiral(turns: float, r_out: float, r_in: float, steps: int = 64) -> list[Point]:
    return [((r_out + (r_in - r_out) * t) * math.cos(math.radians(-90 + 360 * turns * t)),
             (r_out + (r_in - r_out) * t) * math.sin(math.radians(-90 + 360 * turns * t)))
            for t in (i / steps for i in range(steps + 1))]


# -- element glyphs -----------------------------------------------------------------------------

def monster(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A horned creature: a translucent body and a solid head (the :func:`inkcrawl.shapes.monster_head`
    region the Barbarian covers), white eyes and fangs."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    canvas.polyline(P(_MONSTER_BODY), closed=True, fill=pal.monster, fill_opacity=0.45, stroke=pal.ink,
                    width=_scale(size_mm, 0.045), parent=g, kind="monster-body")
    canvas.polyline(P(_MONSTER_BELLY), closed=True, fill=pal.paper, fill_opacity=0.45, stroke=None, parent=g)
    canvas.polyline(shapes.monster_head(at, size_mm, rotation_deg), closed=True, fill=pal.monster,
                    stroke=pal.ink, width=_scale(size_mm, 0.045), parent=g, kind="monster-head")
    radius = size_mm / 2
    for eye in P([(-0.15, -0.44), (0.15, -0.44)]):
        canvas.circle(eye, radius * 0.085, fill=pal.paper, parent=g)
    canvas.polyline(P([(-0.16, -0.26), (-0.10, -0.18), (-0.04, -0.26), (0.04, -0.26), (0.10, -0.18),
                       (0.16, -0.26)]), fill=pal.paper, stroke=None, closed=True, parent=g)


def boss(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A crowned, winged fiend, larger than a monster (its VP badge is placed by the sheet)."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    width = _scale(size_mm, 0.03)
    for side in (1, -1):
        wing = [(side * x, y) for x, y in _BOSS_WING]
        canvas.polyline(P(wing), closed=True, fill=pal.accent, fill_opacity=0.3, stroke=pal.ink, width=width,
                        parent=g, kind="boss-wing")
        for finger in _BOSS_FINGERS:
            canvas.line(P([(side * 0.26, -0.14)])[0], P([(side * finger[0], finger[1])])[0], stroke=pal.ink,
                        width=style.FINE_MM, parent=g)
    canvas.polyline(P(_BOSS_BODY), closed=True, fill=pal.accent, fill_opacity=0.55, stroke=pal.ink, width=width,
                    parent=g, kind="boss-body")
    canvas.polyline(P(_BOSS_HEAD), closed=True, fill=pal.accent, stroke=pal.ink, width=width, parent=g)
    canvas.polyline(P(_BOSS_CROWN), closed=True, fill=pal.treasure, stroke=pal.ink, width=width, parent=g)
    radius = size_mm / 2
    for eye in P([(-0.12, -0.38), (0.12, -0.38)]):
        canvas.circle(eye, radius * 0.06, fill=pal.paper, parent=g)
    canvas.polyline(P([(-0.14, -0.22), (-0.08, -0.15), (-0.03, -0.22), (0.03, -0.22), (0.08, -0.15),
                       (0.14, -0.22)]), fill=pal.paper, closed=True, parent=g)
    # ribs on the chest
    for y in (0.12, 0.28, 0.44):
        canvas.line(P([(-0.2, y)])[0], P([(0.2, y)])[0], stroke=pal.ink, width=style.FINE_MM, parent=g)


def spell(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, variant: str = "bolt",
          **_):
    """A faint rune disc and the :func:`inkcrawl.shapes.spell_trace` strokes as a dashed guide."""
    pal = canvas.palette
    strokes = shapes.spell_trace(variant, at, size_mm, rotation_deg)
    canvas.circle(at, size_mm / 2 * 0.97, fill=pal.spell, fill_opacity=0.10, stroke=pal.spell, width=style.FINE_MM,
                  dash=(0.5, 0.9), parent=g)
    for stroke in strokes:
        closed = len(stroke) > 2 and stroke[0] == stroke[-1]
        dash = (max(0.6, size_mm * 0.085), max(0.45, size_mm * 0.055))
        item = canvas.path(path_data(stroke[:-1] if closed else stroke, closed), stroke=pal.spell,
                           width=_scale(size_mm, 0.05, 0.45), dash=dash, parent=g, kind="spell-trace")
        item.attribs["data-variant"] = variant
    # a small dot where the trace starts
    canvas.circle(strokes[0][0], _scale(size_mm, 0.045, 0.35), fill=pal.spell, parent=g)


def treasure(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, variant: str = "chest",
             **_):
    """The :func:`inkcrawl.shapes.treasure_outline` in treasure yellow, with fine ink details."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    outline = shapes.treasure_outline(variant, at, size_mm, rotation_deg)
    fine = dict(stroke=pal.ink, width=style.FINE_MM, parent=g)
    item = canvas.path(path_data(outline[:-1], closed=True), stroke=pal.treasure, width=_scale(size_mm, 0.075, 0.6),
                       fill=pal.treasure, fill_opacity=0.18, parent=g, kind="treasure-outline")
    item.attribs["data-variant"] = variant
    if variant == "chest":
        canvas.line(*P([(-0.64, -0.12), (0.64, -0.12)]), **fine)
        for x in (-0.42, 0.42):
            canvas.line(*P([(x, -0.56), (x, 0.50)]), **fine)
        canvas.polyline(P([(-0.12, -0.22), (0.12, -0.22), (0.12, 0.08), (-0.12, 0.08)]), closed=True,
                        fill=pal.paper, **fine)
    elif variant == "crown":
        canvas.line(*P([(-0.62, 0.26), (0.62, 0.26)]), **fine)
        for x, r in ((-0.36, 0.07), (0.0, 0.09), (0.36, 0.07)):
            canvas.circle(P([(x, 0.40)])[0], size_mm / 2 * r, fill=pal.paper, **fine)
    elif variant == "goblet":
        canvas.line(*P([(-0.50, -0.50), (0.50, -0.50)]), **fine)
        canvas.circle(P([(0.0, -0.30)])[0], size_mm / 2 * 0.09, fill=pal.paper, **fine)
        canvas.line(*P([(-0.28, 0.62), (0.28, 0.62)]), **fine)


def artifact_stone(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, number=None, **_):
    """A faceted stone with its number in bold."""
    pal = canvas.palette
    canvas.polyline(place(_STONE, at, size_mm, rotation_deg), closed=True, fill=pal.stone, fill_opacity=0.28,
                    stroke=pal.ink, width=_scale(size_mm, 0.07, 0.3), parent=g, kind="stone-outline")
    text = "?" if number is None else str(number)
    font = size_mm * (0.62 if len(text) == 1 else 0.46 if len(text) == 2 else 0.36)
    centred_text(canvas, text, at, font, parent=g, kind="stone-number")


def plant(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A sprouting plant: a stem and five pointed leaves."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    canvas.line(*P([(0, 0.86), (0, -0.2)]), stroke=pal.plant, width=_scale(size_mm, 0.06), parent=g)
    for leaf in _PLANT_LEAVES:
        canvas.polyline(P(leaf), closed=True, fill=pal.plant, fill_opacity=0.45, stroke=pal.plant,
                        width=_scale(size_mm, 0.04), parent=g, kind="leaf")
        base, tip = leaf[0], leaf[8]
        canvas.line(*P([base, ((base[0] + tip[0] * 2) / 3, (base[1] + tip[1] * 2) / 3)]), stroke=pal.plant,
                    width=style.FINE_MM, parent=g)


def prisoner(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A small figure behind the bars of a domed cage."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    radius = size_mm / 2
    canvas.polyline(P(_CAGE), closed=True, fill=pal.prisoner, fill_opacity=0.12, stroke=None, parent=g)
    canvas.circle(P([(0, -0.12)])[0], radius * 0.18, fill=pal.prisoner, parent=g)
    canvas.polyline(P([(-0.30, 0.72), (-0.22, 0.14), (0.22, 0.14), (0.30, 0.72)]), closed=True, fill=pal.prisoner,
                    parent=g)
    bar = _scale(size_mm, 0.04)
    for x in (-0.30, 0.0, 0.30):
        top = -0.28 - 0.50 * math.sqrt(max(0.0, 1 - (x / 0.60) ** 2))
        canvas.line(*P([(x, top), (x, 0.74)]), stroke=pal.ink, width=bar, parent=g)
    canvas.polyline(P(_CAGE), closed=True, stroke=pal.ink, width=_scale(size_mm, 0.05), parent=g, kind="cage")
    canvas.circle(P([(0, -0.86)])[0], radius * 0.08, stroke=pal.ink, width=style.FINE_MM, parent=g)


def orb(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, colour: str = "blue", **_):
    """A sphere in its colour with a highlight, a ring and the colour's initial (B, P...)."""
    pal = canvas.palette
    radius = size_mm / 2
    fill = pal.orb(colour)
    canvas.circle(at, radius * 0.92, fill=fill, fill_opacity=0.35, stroke=fill, width=_scale(size_mm, 0.06),
                  parent=g, kind="orb-sphere")
    canvas.circle(at, radius * 0.92 + _scale(size_mm, 0.03) / 2 + 0.15, stroke=pal.ink, width=style.FINE_MM,
                  parent=g)
    arc = place(_arc(0, 0, 0.66, 0.66, 200, 260, 8), at, size_mm)
    canvas.polyline(arc, stroke=pal.paper, width=_scale(size_mm, 0.07), parent=g)
    if colour == "pink":  # a second cue besides the letter: a dotted inner ring
        canvas.circle(at, radius * 0.72, stroke=fill, width=style.FINE_MM, dash=(0.3, 0.6), parent=g)
    centred_text(canvas, (colour[:1] or "?").upper(), at, size_mm * 0.5, parent=g, kind="orb-letter")


def _key_shape(canvas: SheetCanvas, g, centre: Point, radius: float, shape: str, fill: str, outline: str,
               width: float, letter: str = "?", rotation_deg: float = 0):
    """A key colour's shape (circle, triangle, square, star; else a lettered circle) around ``centre``."""
    if shape == "circle":
        canvas.circle(centre, radius * 0.9, fill=fill, stroke=outline, width=width, parent=g)
    elif shape == "triangle":
        canvas.polyline(regular_polygon(*centre, radius * 1.08, 3, -90 + rotation_deg), closed=True, fill=fill,
                        stroke=outline, width=width, parent=g)
    elif shape == "square":
        canvas.polyline(regular_polygon(*centre, radius * 1.05, 4, -45 + rotation_deg), closed=True, fill=fill,
                        stroke=outline, width=width, parent=g)
    elif shape == "star":
        canvas.polyline(star_points(*centre, radius * 1.12, radius * 0.5, 5, -90 + rotation_deg), closed=True,
                        fill=fill, stroke=outline, width=width, parent=g)
    else:
        canvas.circle(centre, radius * 0.9, fill=fill, stroke=outline, width=width, parent=g)
        centred_text(canvas, letter, centre, radius * 1.2, parent=g, fill=canvas.palette.paper)


def _key_blade(canvas: SheetCanvas, g, P, size_mm: float, start: float):
    ink = canvas.palette.ink
    canvas.line(*P([(start, 0.0), (0.90, 0.0)]), stroke=ink, width=_scale(size_mm, 0.09), parent=g, linecap="butt")
    canvas.polyline(P([(0.52, 0.0), (0.52, 0.34), (0.64, 0.34), (0.64, 0.16), (0.74, 0.16), (0.74, 0.30),
                       (0.86, 0.30), (0.86, 0.0)]), closed=True, fill=ink, stroke=ink, width=style.FINE_MM, parent=g)


def key(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, colour: str = "red",
        glyph_style: GlyphStyle | None = None, **_):
    """A key whose bow is its colour's shape (circle, triangle, square, star), filled in that colour."""
    pal = canvas.palette
    rgb, shape = (glyph_style or GlyphStyle()).key(colour)
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    _key_blade(canvas, g, P, size_mm, -0.2)
    bow = P([(-0.50, 0.0)])[0]
    _key_shape(canvas, g, bow, size_mm / 2 * 0.44, shape, pal.key_colour(rgb), pal.ink, _scale(size_mm, 0.05),
               letter=colour[:1].upper(), rotation_deg=rotation_deg)
    if shape in ("circle", "square"):
        canvas.circle(bow, size_mm / 2 * 0.12, fill=pal.paper, stroke=pal.ink, width=style.FINE_MM, parent=g)


def _skull(canvas: SheetCanvas, g, P, size_mm: float, cx: float, scale: float):
    pal = canvas.palette
    s = scale
    canvas.polyline(P([(cx - 0.2 * s, 0.2 * s), (cx + 0.2 * s, 0.2 * s), (cx + 0.2 * s, 0.42 * s),
                       (cx - 0.2 * s, 0.42 * s)]), closed=True, fill=pal.paper, stroke=pal.ink,
                    width=_scale(size_mm, 0.04), parent=g)
    canvas.polyline(P(_arc(cx, -0.04 * s, 0.36 * s, 0.34 * s, 0, 360, 28)[:-1]), closed=True, fill=pal.paper,
                    stroke=pal.ink, width=_scale(size_mm, 0.04), parent=g)
    radius = size_mm / 2
    for ex in (-0.14, 0.14):
        canvas.circle(P([(cx + ex * s, -0.04 * s)])[0], radius * 0.1 * s, fill=pal.ink, parent=g)
    canvas.polyline(P([(cx, 0.08 * s), (cx - 0.05 * s, 0.18 * s), (cx + 0.05 * s, 0.18 * s)]), closed=True,
                    fill=pal.ink, parent=g)
    for tx in (-0.08, 0.0, 0.08):
        canvas.line(*P([(cx + tx * s, 0.3 * s), (cx + tx * s, 0.42 * s)]), stroke=pal.ink, width=style.FINE_MM,
                    parent=g)


def skeleton_key(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A key whose bow is a skull: it opens any lock."""
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    _key_blade(canvas, g, P, size_mm, -0.2)
    _skull(canvas, g, P, size_mm, -0.5, 1.25)


def portal_entry(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, channel: str = "?",
                 glyph_style: GlyphStyle | None = None, **_):
    """A swirl pulling inwards, in the channel's colour, with the channel's letter in the eye."""
    pal = canvas.palette
    rgb, letter = (glyph_style or GlyphStyle()).channel(channel)
    colour = pal.key_colour(rgb)
    canvas.circle(at, size_mm / 2 * 0.96, fill=colour, fill_opacity=0.15, stroke=None, parent=g)
    for arm in (0, 180):
        spiral = place(_spiral(0.85, 0.95, 0.50), at, size_mm, rotation_deg + arm)
        canvas.polyline(spiral, stroke=colour, width=_scale(size_mm, 0.07), parent=g, kind="portal-swirl")
    centred_text(canvas, letter, at, size_mm * (0.42 if len(letter) == 1 else 0.32), parent=g, kind="portal-letter")


def portal_exit(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, channel: str = "?",
                glyph_style: GlyphStyle | None = None, **_):
    """A plain ring in the channel's colour with an arrow leaving it, and the channel's letter inside."""
    pal = canvas.palette
    rgb, letter = (glyph_style or GlyphStyle()).channel(channel)
    colour = pal.key_colour(rgb)
    radius = size_mm / 2
    canvas.circle(at, radius * 0.52, fill=pal.paper, stroke=colour, width=_scale(size_mm, 0.09), parent=g,
                  kind="portal-ring")
    tail, tip = place([(0.40, -0.40), (0.70, -0.70)], at, size_mm, rotation_deg)
    canvas.arrow(tail, tip, head_mm=max(1.2, size_mm * 0.18), stroke=colour, width=_scale(size_mm, 0.07), parent=g)
    centred_text(canvas, letter, at, size_mm * (0.38 if len(letter) == 1 else 0.3), parent=g, kind="portal-letter")


def escape_portal(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """An arched doorway with rays of daylight and an arrow leaving through it."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    arch = [(-0.50, 0.72), (0.50, 0.72), (0.50, -0.10), *_arc(0, -0.10, 0.50, 0.52, 0, -180, 14)[1:-1],
            (-0.50, -0.10)]
    inner = [(-0.32, 0.72), (0.32, 0.72), (0.32, -0.06), *_arc(0, -0.06, 0.32, 0.36, 0, -180, 12)[1:-1],
             (-0.32, -0.06)]
    for angle in (-150, -120, -90, -60, -30):
        a = math.radians(angle)
        canvas.line(*P([(0.70 * math.cos(a), -0.10 + 0.70 * math.sin(a)),
                        (0.86 * math.cos(a), -0.10 + 0.84 * math.sin(a))]),
                    stroke=pal.escape, width=_scale(size_mm, 0.035), parent=g)
    canvas.polyline(P(arch), closed=True, fill=pal.escape, fill_opacity=0.30, stroke=pal.ink,
                    width=_scale(size_mm, 0.045), parent=g, kind="escape-arch")
    canvas.polyline(P(inner), closed=True, fill=pal.paper, stroke=pal.escape, width=_scale(size_mm, 0.03), parent=g)
    canvas.line(*P([(-0.72, 0.72), (0.72, 0.72)]), stroke=pal.ink, width=_scale(size_mm, 0.045), parent=g)
    tail, tip = P([(0.0, 0.56), (0.0, -0.26)])
    canvas.arrow(tail, tip, head_mm=max(1.0, size_mm * 0.16), stroke=pal.escape, width=_scale(size_mm, 0.05),
                 parent=g)


def exit_(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A framed staircase climbing out, with an arrow: where the scrawl can end."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    frame = [(-0.64, -0.64), (0.64, -0.64), (0.64, 0.64), (-0.64, 0.64)]
    canvas.polyline(P(frame), closed=True, fill=pal.escape, fill_opacity=0.12, stroke=pal.ink,
                    width=_scale(size_mm, 0.05), parent=g, kind="exit-frame")
    steps = [(-0.64, 0.64), (-0.64, 0.40), (-0.32, 0.40), (-0.32, 0.14), (0.0, 0.14), (0.0, -0.12), (0.32, -0.12),
             (0.32, -0.38), (0.64, -0.38), (0.64, 0.64)]
    canvas.polyline(P(steps), closed=True, fill=pal.escape, fill_opacity=0.55, stroke=pal.ink, width=style.FINE_MM,
                    parent=g)
    tail, tip = P([(-0.50, 0.02), (0.05, -0.53)])
    canvas.arrow(tail, tip, head_mm=max(1.0, size_mm * 0.15), stroke=pal.ink, width=_scale(size_mm, 0.04), parent=g)


def generic(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, kind: str = "?", **_):
    """Any element kind a ruleset adds: a double ring with the kind's initial."""
    pal = canvas.palette
    canvas.circle(at, size_mm / 2 * 0.9, fill=pal.paper, stroke=pal.ink, width=_scale(size_mm, 0.05), parent=g)
    canvas.circle(at, size_mm / 2 * 0.72, stroke=pal.ink, width=style.FINE_MM, parent=g)
    centred_text(canvas, (kind[:1] or "?").upper(), at, size_mm * 0.45, parent=g)


def timer(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A stopwatch (footer icon for the timer)."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)  # noqa: E731
    radius = size_mm / 2
    canvas.rect(*P([(-0.14, -0.98)])[0], 0.28 * radius, 0.18 * radius, fill=pal.ink, parent=g)
    canvas.line(*P([(0.0, -0.80), (0.0, -0.68)]), stroke=pal.ink, width=_scale(size_mm, 0.08), parent=g)
    canvas.circle(P([(0.0, 0.08)])[0], radius * 0.80, fill=pal.paper, stroke=pal.ink, width=_scale(size_mm, 0.07),
                  parent=g)
    canvas.polyline(P([(0.0, 0.08), *_arc(0.0, 0.08, 0.62, 0.62, -90, 30, 10)]), closed=True, fill=pal.ink,
                    fill_opacity=0.25, parent=g)
    canvas.line(*P([(0.0, 0.08), (0.0, -0.46)]), stroke=pal.ink, width=_scale(size_mm, 0.06), parent=g)


#: Element kind -> glyph function.
GLYPHS: dict[str, Callable] = {
    "monster": monster, "boss": boss, "spell": spell, "treasure": treasure, "artifact_stone": artifact_stone,
    "plant": plant, "prisoner": prisoner, "orb": orb, "key": key, "skeleton_key": skeleton_key,
    "portal_entry": portal_entry, "portal_exit": portal_exit, "escape_portal": escape_portal, "exit": exit_,
    "timer": timer,
}


def draw_glyph(canvas: SheetCanvas, parent, kind: str, at: Point, size_mm: float, rotation_deg: float = 0,
               **extra) -> None:
    """Draw the glyph of ``kind`` (or :func:`generic`) into ``parent``."""
    GLYPHS.get(kind, generic)(canvas, parent, at, size_mm, rotation_deg or 0, kind=kind, **extra)


# -- locks --------------------------------------------------------------------------------------

def lock(canvas: SheetCanvas, parent, centre: Point, size_mm: float, lock_id: str, glyph_style: GlyphStyle):
    """One lock of a door: the key colour's shape filled in its colour with a keyhole, or for a
    skeleton lock a white badge holding a skeleton key. Tagged ``data-kind="lock"``."""
    pal = canvas.palette
    g = canvas.group("lock", parent)
    g.attribs["data-lock"] = lock_id
    if lock_id == "skeleton":
        canvas.circle(centre, size_mm / 2, fill=pal.paper, stroke=pal.ink, width=0.35, parent=g)
        skeleton_key(canvas, g, centre, size_mm * 0.8, -35)
        return g
    rgb, shape = glyph_style.key(lock_id)
    _key_shape(canvas, g, centre, size_mm / 2 * (0.92 if shape != "triangle" else 1.0), shape, pal.key_colour(rgb),
               pal.ink, 0.35, letter=lock_id[:1].upper())
    if shape in ("circle", "square", "star", "triangle"):
        hole_y = centre[1] + (size_mm * 0.08 if shape == "triangle" else 0)
        canvas.circle((centre[0], hole_y - size_mm * 0.06), size_mm * 0.09, fill=pal.paper, parent=g)
        canvas.polyline([(centre[0], hole_y - size_mm * 0.04), (centre[0] - size_mm * 0.07, hole_y + size_mm * 0.16),
                         (centre[0] + size_mm * 0.07, hole_y + size_mm * 0.16)], closed=True, fill=pal.paper,
                        parent=g)
    return g

