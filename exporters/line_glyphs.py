"""Original vector glyphs of the line family's elements, drawn with :class:`~exporters.canvas.SheetCanvas`.

Each glyph function draws one element into a group: ``glyph(canvas, parent, at, size_mm,
rotation_deg, **extra)`` with ``at`` the centre (sheet mm), ``size_mm`` the footprint diameter
and ``rotation_deg`` clockwise. Shapes are designed in local units (radius 1, y down) and
placed with :func:`inkcrawl.shapes.place`; the shapes players interact with (spell strokes,
treasure outlines, the monster head) come from :mod:`inkcrawl.shapes`, and every other shape and
stroke width from :mod:`inkcrawl.glyph_shapes`, so the printed sheet, the referee and the ink
silhouettes of :mod:`inkcrawl.ink` agree. Every glyph reads in black and white: colour is always
doubled by a shape, a letter or a pattern. The footer reuses the same functions for its icons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from exporters import style
from exporters.canvas import SheetCanvas, circle_data, path_data
from inkcrawl import glyph_shapes as gs
from inkcrawl import shapes
from inkcrawl.glyph_shapes import Box, Dot, Line
from inkcrawl.shapes import place

Point = tuple[float, float]

#: Em-relative cap height of DejaVu Sans: a baseline ``CAP * size / 2`` below a centre centres capitals.
from inkcrawl.textmetrics import CAP_HEIGHT_EM as CAP  # noqa: E402

#: Colours printed for portal channels named after a colour (any other channel gets one of
#: :data:`PORTAL_HUES` in order of first appearance); the channel's letter is always printed too.
NAMED_COLOURS = {
    "red": "#c0392b",
    "green": "#27ae60",
    "blue": "#2e6fd1",
    "yellow": "#d4a017",
    "pink": "#d14f9a",
    "purple": "#7d3c98",
    "orange": "#d35400",
    "teal": "#2a7f8f",
    "black": "#1b1b1b",
    "white": "#9a9a9a",
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
        keys = {
            c["id"]: (c.get("rgb", "#1b1b1b"), c.get("shape", "circle"))
            for c in ruleset_data.get("keys", {}).get("colours", [])
        }
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


def centred_text(
    canvas: SheetCanvas,
    text: str,
    centre: Point,
    size_mm: float,
    *,
    parent,
    bold: bool = True,
    fill: str | None = None,
    kind: str | None = None,
):
    """Text whose capitals are centred on ``centre`` (``size_mm`` em, clamped to 2 mm)."""
    size_mm = max(size_mm, 2.0)
    return canvas.text(
        text,
        (centre[0], centre[1] + CAP * size_mm / 2),
        size_mm,
        anchor="middle",
        bold=bold,
        fill=fill,
        parent=parent,
        kind=kind,
    )


# -- element glyphs -----------------------------------------------------------------------------


def _detail(canvas: SheetCanvas, P, size_mm: float, part: Line | Dot | Box, **fine):
    """One fine ink detail of :mod:`inkcrawl.glyph_shapes` (dots and boxes filled with paper)."""
    if isinstance(part, Line):
        canvas.line(*P([part.a, part.b]), **fine)
    elif isinstance(part, Dot):
        canvas.circle(P([part.centre])[0], size_mm / 2 * part.radius, fill=canvas.palette.paper, **fine)
    else:
        canvas.polyline(P(part.points), closed=True, fill=canvas.palette.paper, **fine)


def monster(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A horned creature: a translucent body and a solid head (the :func:`inkcrawl.shapes.monster_head`
    region the Barbarian covers), white eyes and fangs."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    canvas.polyline(
        P(gs.MONSTER_BODY),
        closed=True,
        fill=pal.monster,
        fill_opacity=0.45,
        stroke=pal.ink,
        width=gs.MONSTER_LINE.mm(size_mm),
        parent=g,
        kind="monster-body",
    )
    canvas.polyline(P(gs.MONSTER_BELLY), closed=True, fill=pal.paper, fill_opacity=0.45, stroke=None, parent=g)
    canvas.polyline(
        shapes.monster_head(at, size_mm, rotation_deg),
        closed=True,
        fill=pal.monster,
        stroke=pal.ink,
        width=gs.MONSTER_LINE.mm(size_mm),
        parent=g,
        kind="monster-head",
    )
    radius = size_mm / 2
    # eyes and fangs: one path (they do not touch)
    fangs = P([(-0.16, -0.26), (-0.10, -0.18), (-0.04, -0.26), (0.04, -0.26), (0.10, -0.18), (0.16, -0.26)])
    features = [circle_data(eye, radius * 0.085) for eye in P([(-0.15, -0.44), (0.15, -0.44)])]
    canvas.path(" ".join([*features, path_data(fangs, closed=True)]), fill=pal.paper, parent=g)


def boss(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A crowned, winged fiend, larger than a monster (its VP badge is placed by the sheet)."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    width = gs.BOSS_LINE.mm(size_mm)
    root_x, root_y = gs.BOSS_FINGER_ROOT
    for side in (1, -1):
        wing = [(side * x, y) for x, y in gs.BOSS_WING]
        canvas.polyline(
            P(wing),
            closed=True,
            fill=pal.accent,
            fill_opacity=0.3,
            stroke=pal.ink,
            width=width,
            parent=g,
            kind="boss-wing",
        )
        root = P([(side * root_x, root_y)])[0]
        fingers = " ".join(path_data([root, P([(side * x, y)])[0]]) for x, y in gs.BOSS_FINGERS)
        canvas.path(fingers, stroke=pal.ink, width=style.FINE_MM, parent=g)  # one path a wing
    canvas.polyline(
        P(gs.BOSS_BODY),
        closed=True,
        fill=pal.accent,
        fill_opacity=0.55,
        stroke=pal.ink,
        width=width,
        parent=g,
        kind="boss-body",
    )
    canvas.polyline(P(gs.BOSS_HEAD), closed=True, fill=pal.accent, stroke=pal.ink, width=width, parent=g)
    canvas.polyline(P(gs.BOSS_CROWN), closed=True, fill=pal.treasure, stroke=pal.ink, width=width, parent=g)
    radius = size_mm / 2
    # eyes and fangs: one path (they do not touch)
    fangs = P([(-0.14, -0.22), (-0.08, -0.15), (-0.03, -0.22), (0.03, -0.22), (0.08, -0.15), (0.14, -0.22)])
    features = [circle_data(eye, radius * 0.06) for eye in P([(-0.12, -0.38), (0.12, -0.38)])]
    canvas.path(" ".join([*features, path_data(fangs, closed=True)]), fill=pal.paper, parent=g)
    # ribs on the chest, one path
    ribs = " ".join(path_data(P([(-gs.BOSS_RIB_HALF, y), (gs.BOSS_RIB_HALF, y)])) for y in gs.BOSS_RIBS)
    canvas.path(ribs, stroke=pal.ink, width=style.FINE_MM, parent=g)


def spell(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, variant: str = "bolt", **_):
    """A faint rune disc and the :func:`inkcrawl.shapes.spell_trace` strokes as a dashed guide."""
    pal = canvas.palette
    strokes = shapes.spell_trace(variant, at, size_mm, rotation_deg)
    canvas.circle(
        at,
        size_mm / 2 * gs.SPELL_DISC,
        fill=pal.spell,
        fill_opacity=0.10,
        stroke=pal.spell,
        width=style.FINE_MM,
        dash=(0.5, 0.9),
        parent=g,
    )
    for stroke in strokes:
        closed = len(stroke) > 2 and stroke[0] == stroke[-1]
        dash = (max(0.6, size_mm * 0.085), max(0.45, size_mm * 0.055))
        item = canvas.path(
            path_data(stroke[:-1] if closed else stroke, closed),
            stroke=pal.spell,
            width=gs.SPELL_TRACE_LINE.mm(size_mm),
            dash=dash,
            parent=g,
            kind="spell-trace",
        )
        item.attribs["data-variant"] = variant
    # a small dot where the trace starts
    canvas.circle(strokes[0][0], gs.SPELL_DOT_RADIUS.mm(size_mm), fill=pal.spell, parent=g)


def treasure(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, variant: str = "chest", **_):
    """The :func:`inkcrawl.shapes.treasure_outline` in treasure yellow, with fine ink details."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    outline = shapes.treasure_outline(variant, at, size_mm, rotation_deg)
    item = canvas.path(
        path_data(outline[:-1], closed=True),
        stroke=pal.treasure,
        width=gs.TREASURE_LINE.mm(size_mm),
        fill=pal.treasure,
        fill_opacity=0.18,
        parent=g,
        kind="treasure-outline",
    )
    item.attribs["data-variant"] = variant
    for part in gs.TREASURE_DETAILS.get(variant, ()):
        _detail(canvas, P, size_mm, part, stroke=pal.ink, width=style.FINE_MM, parent=g)


def artifact_stone(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, number=None, **_):
    """A faceted stone with its number in bold."""
    pal = canvas.palette
    canvas.polyline(
        place(gs.STONE, at, size_mm, rotation_deg),
        closed=True,
        fill=pal.stone,
        fill_opacity=0.28,
        stroke=pal.ink,
        width=gs.STONE_LINE.mm(size_mm),
        parent=g,
        kind="stone-outline",
    )
    text = "?" if number is None else str(number)
    font = size_mm * (0.62 if len(text) == 1 else 0.46 if len(text) == 2 else 0.36)
    centred_text(canvas, text, at, font, parent=g, kind="stone-number")


def plant(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A sprouting plant: a stem and five pointed leaves."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    canvas.line(*P(gs.PLANT_STEM), stroke=pal.plant, width=gs.PLANT_STEM_LINE.mm(size_mm), parent=g)
    for leaf in gs.PLANT_LEAVES:
        canvas.polyline(
            P(leaf),
            closed=True,
            fill=pal.plant,
            fill_opacity=0.45,
            stroke=pal.plant,
            width=gs.LEAF_LINE.mm(size_mm),
            parent=g,
            kind="leaf",
        )
    # the veins, one path over the leaves (a vein lies inside its leaf, in the leaf's outline colour)
    veins = " ".join(path_data(P([vein.a, vein.b])) for vein in gs.PLANT_VEINS)
    canvas.path(veins, stroke=pal.plant, width=style.FINE_MM, parent=g)


def prisoner(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A small figure behind the bars of a domed cage."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    radius = size_mm / 2
    canvas.polyline(P(gs.CAGE), closed=True, fill=pal.prisoner, fill_opacity=0.12, stroke=None, parent=g)
    canvas.circle(P([gs.PRISONER_HEAD.centre])[0], radius * gs.PRISONER_HEAD.radius, fill=pal.prisoner, parent=g)
    canvas.polyline(P(gs.PRISONER_BODY), closed=True, fill=pal.prisoner, parent=g)
    bars = " ".join(path_data(P([line.a, line.b])) for line in gs.CAGE_BARS)  # one path
    canvas.path(bars, stroke=pal.ink, width=gs.CAGE_BAR_LINE.mm(size_mm), parent=g)
    canvas.polyline(P(gs.CAGE), closed=True, stroke=pal.ink, width=gs.CAGE_LINE.mm(size_mm), parent=g, kind="cage")
    canvas.circle(
        P([gs.CAGE_RING.centre])[0], radius * gs.CAGE_RING.radius, stroke=pal.ink, width=style.FINE_MM, parent=g
    )


def orb(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, colour: str = "blue", **_):
    """A sphere in its colour with a highlight, a ring and the colour's initial (B, P...)."""
    pal = canvas.palette
    radius = size_mm / 2
    fill = pal.orb(colour)
    canvas.circle(
        at,
        radius * gs.ORB_SPHERE,
        fill=fill,
        fill_opacity=0.35,
        stroke=fill,
        width=gs.ORB_LINE.mm(size_mm),
        parent=g,
        kind="orb-sphere",
    )
    canvas.circle(
        at,
        radius * gs.ORB_SPHERE + gs.ORB_RING_OFFSET.mm(size_mm) / 2 + gs.ORB_RING_GAP_MM,
        stroke=pal.ink,
        width=style.FINE_MM,
        parent=g,
    )
    arc = place(gs.ORB_HIGHLIGHT, at, size_mm)
    canvas.polyline(arc, stroke=pal.paper, width=gs.ORB_HIGHLIGHT_LINE.mm(size_mm), parent=g)
    if colour == "pink":  # a second cue besides the letter: a dotted inner ring
        canvas.circle(at, radius * gs.ORB_PINK_RING, stroke=fill, width=style.FINE_MM, dash=(0.3, 0.6), parent=g)
    centred_text(canvas, (colour[:1] or "?").upper(), at, size_mm * 0.5, parent=g, kind="orb-letter")


def _key_shape(
    canvas: SheetCanvas,
    g,
    centre: Point,
    radius: float,
    shape: str,
    fill: str,
    outline: str,
    width: float,
    letter: str = "?",
    rotation_deg: float = 0,
):
    """A key colour's shape (circle, triangle, square, star; else a lettered circle) around ``centre``,
    as :func:`inkcrawl.glyph_shapes.badge_outline` gives it."""
    points = gs.badge_outline(shape, centre, radius, rotation_deg)
    if points is not None:
        canvas.polyline(points, closed=True, fill=fill, stroke=outline, width=width, parent=g)
        return
    canvas.circle(centre, radius * gs.BADGE_CIRCLE, fill=fill, stroke=outline, width=width, parent=g)
    if shape != "circle":
        centred_text(canvas, letter, centre, radius * 1.2, parent=g, fill=canvas.palette.paper)


def _key_blade(canvas: SheetCanvas, g, P, size_mm: float):
    ink = canvas.palette.ink
    start, end = gs.KEY_BLADE
    canvas.line(
        *P([(start, 0.0), (end, 0.0)]), stroke=ink, width=gs.KEY_BLADE_LINE.mm(size_mm), parent=g, linecap="butt"
    )
    canvas.polyline(P(gs.KEY_BIT), closed=True, fill=ink, stroke=ink, width=style.FINE_MM, parent=g)


def key(
    canvas: SheetCanvas,
    g,
    at: Point,
    size_mm: float,
    rotation_deg: float = 0,
    colour: str = "red",
    glyph_style: GlyphStyle | None = None,
    **_,
):
    """A key whose bow is its colour's shape (circle, triangle, square, star), filled in that colour."""
    pal = canvas.palette
    rgb, shape = (glyph_style or GlyphStyle()).key(colour)
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    _key_blade(canvas, g, P, size_mm)
    bow = P([gs.KEY_BOW])[0]
    _key_shape(
        canvas,
        g,
        bow,
        size_mm / 2 * gs.KEY_BOW_RADIUS,
        shape,
        pal.key_colour(rgb),
        pal.ink,
        gs.KEY_BOW_LINE.mm(size_mm),
        letter=colour[:1].upper(),
        rotation_deg=rotation_deg,
    )
    if shape in ("circle", "square"):
        canvas.circle(bow, size_mm / 2 * gs.KEY_HOLE, fill=pal.paper, stroke=pal.ink, width=style.FINE_MM, parent=g)


def _skull(canvas: SheetCanvas, g, P, size_mm: float, skull: gs.Skull):
    pal = canvas.palette
    line = gs.SKULL_LINE.mm(size_mm)
    canvas.polyline(P(skull.jaw), closed=True, fill=pal.paper, stroke=pal.ink, width=line, parent=g)
    canvas.polyline(P(skull.cranium), closed=True, fill=pal.paper, stroke=pal.ink, width=line, parent=g)
    radius = size_mm / 2
    # eyes and nose one path, the teeth another (none of them touch)
    eyes = [circle_data(eye, radius * skull.eye_radius * skull.scale) for eye in P(skull.eyes)]
    canvas.path(" ".join([*eyes, path_data(P(skull.nose), closed=True)]), fill=pal.ink, parent=g)
    teeth = " ".join(path_data(P([tooth.a, tooth.b])) for tooth in skull.teeth)
    canvas.path(teeth, stroke=pal.ink, width=style.FINE_MM, parent=g)


def skeleton_key(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A key whose bow is a skull: it opens any lock."""
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    _key_blade(canvas, g, P, size_mm)
    _skull(canvas, g, P, size_mm, gs.SKELETON_SKULL)


def portal_entry(
    canvas: SheetCanvas,
    g,
    at: Point,
    size_mm: float,
    rotation_deg: float = 0,
    channel: str = "?",
    glyph_style: GlyphStyle | None = None,
    **_,
):
    """A swirl pulling inwards, in the channel's colour, with the channel's letter in the eye."""
    pal = canvas.palette
    rgb, letter = (glyph_style or GlyphStyle()).channel(channel)
    colour = pal.key_colour(rgb)
    canvas.circle(at, size_mm / 2 * gs.PORTAL_DISC, fill=colour, fill_opacity=0.15, stroke=None, parent=g)
    for arm in gs.PORTAL_ARMS:
        spiral = place(gs.PORTAL_SPIRAL, at, size_mm, rotation_deg + arm)
        canvas.polyline(spiral, stroke=colour, width=gs.PORTAL_SWIRL_LINE.mm(size_mm), parent=g, kind="portal-swirl")
    centred_text(canvas, letter, at, size_mm * (0.42 if len(letter) == 1 else 0.32), parent=g, kind="portal-letter")


def portal_exit(
    canvas: SheetCanvas,
    g,
    at: Point,
    size_mm: float,
    rotation_deg: float = 0,
    channel: str = "?",
    glyph_style: GlyphStyle | None = None,
    **_,
):
    """A plain ring in the channel's colour with an arrow leaving it, and the channel's letter inside."""
    pal = canvas.palette
    rgb, letter = (glyph_style or GlyphStyle()).channel(channel)
    colour = pal.key_colour(rgb)
    radius = size_mm / 2
    canvas.circle(
        at,
        radius * gs.PORTAL_RING,
        fill=pal.paper,
        stroke=colour,
        width=gs.PORTAL_RING_LINE.mm(size_mm),
        parent=g,
        kind="portal-ring",
    )
    tail, tip = place(gs.PORTAL_ARROW, at, size_mm, rotation_deg)
    canvas.arrow(
        tail,
        tip,
        head_mm=gs.PORTAL_ARROW_HEAD.mm(size_mm),
        stroke=colour,
        width=gs.PORTAL_ARROW_LINE.mm(size_mm),
        parent=g,
    )
    centred_text(canvas, letter, at, size_mm * (0.38 if len(letter) == 1 else 0.3), parent=g, kind="portal-letter")


def escape_portal(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """An arched doorway with rays of daylight and an arrow leaving through it."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    rays = " ".join(path_data(P([ray.a, ray.b])) for ray in gs.ESCAPE_RAYS)  # one path
    canvas.path(rays, stroke=pal.escape, width=gs.ESCAPE_RAY_LINE.mm(size_mm), parent=g)
    canvas.polyline(
        P(gs.ESCAPE_ARCH),
        closed=True,
        fill=pal.escape,
        fill_opacity=0.30,
        stroke=pal.ink,
        width=gs.ESCAPE_ARCH_LINE.mm(size_mm),
        parent=g,
        kind="escape-arch",
    )
    canvas.polyline(
        P(gs.ESCAPE_DOOR),
        closed=True,
        fill=pal.paper,
        stroke=pal.escape,
        width=gs.ESCAPE_DOOR_LINE.mm(size_mm),
        parent=g,
    )
    canvas.line(*P(gs.ESCAPE_GROUND), stroke=pal.ink, width=gs.ESCAPE_GROUND_LINE.mm(size_mm), parent=g)
    tail, tip = P(gs.ESCAPE_ARROW)
    canvas.arrow(
        tail,
        tip,
        head_mm=gs.ESCAPE_ARROW_HEAD.mm(size_mm),
        stroke=pal.escape,
        width=gs.ESCAPE_ARROW_LINE.mm(size_mm),
        parent=g,
    )


def exit_(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A framed staircase climbing out, with an arrow: where the scrawl can end."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    canvas.polyline(
        P(gs.EXIT_FRAME),
        closed=True,
        fill=pal.escape,
        fill_opacity=0.12,
        stroke=pal.ink,
        width=gs.EXIT_FRAME_LINE.mm(size_mm),
        parent=g,
        kind="exit-frame",
    )
    canvas.polyline(
        P(gs.EXIT_STEPS), closed=True, fill=pal.escape, fill_opacity=0.55, stroke=pal.ink, width=style.FINE_MM, parent=g
    )
    tail, tip = P(gs.EXIT_ARROW)
    canvas.arrow(
        tail,
        tip,
        head_mm=gs.EXIT_ARROW_HEAD.mm(size_mm),
        stroke=pal.ink,
        width=gs.EXIT_ARROW_LINE.mm(size_mm),
        parent=g,
    )


def generic(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, kind: str = "?", **_):
    """Any element kind a ruleset adds: a double ring with the kind's initial."""
    pal = canvas.palette
    canvas.circle(
        at, size_mm / 2 * gs.GENERIC_RING, fill=pal.paper, stroke=pal.ink, width=gs.GENERIC_LINE.mm(size_mm), parent=g
    )
    canvas.circle(at, size_mm / 2 * gs.GENERIC_INNER_RING, stroke=pal.ink, width=style.FINE_MM, parent=g)
    centred_text(canvas, (kind[:1] or "?").upper(), at, size_mm * 0.45, parent=g)


def timer(canvas: SheetCanvas, g, at: Point, size_mm: float, rotation_deg: float = 0, **_):
    """A stopwatch (footer icon for the timer)."""
    pal = canvas.palette
    P = lambda pts: place(pts, at, size_mm, rotation_deg)
    radius = size_mm / 2
    canvas.rect(
        *P([gs.TIMER_CROWN])[0],
        gs.TIMER_CROWN_SIZE[0] * radius,
        gs.TIMER_CROWN_SIZE[1] * radius,
        fill=pal.ink,
        parent=g,
    )
    canvas.line(*P(gs.TIMER_STEM), stroke=pal.ink, width=gs.TIMER_STEM_LINE.mm(size_mm), parent=g)
    canvas.circle(
        P([gs.TIMER_FACE.centre])[0],
        radius * gs.TIMER_FACE.radius,
        fill=pal.paper,
        stroke=pal.ink,
        width=gs.TIMER_FACE_LINE.mm(size_mm),
        parent=g,
    )
    canvas.polyline(P(gs.TIMER_WEDGE), closed=True, fill=pal.ink, fill_opacity=0.25, parent=g)
    canvas.line(*P(gs.TIMER_HAND), stroke=pal.ink, width=gs.TIMER_HAND_LINE.mm(size_mm), parent=g)


#: Element kind -> glyph function.
GLYPHS: dict[str, Callable] = {
    "monster": monster,
    "boss": boss,
    "spell": spell,
    "treasure": treasure,
    "artifact_stone": artifact_stone,
    "plant": plant,
    "prisoner": prisoner,
    "orb": orb,
    "key": key,
    "skeleton_key": skeleton_key,
    "portal_entry": portal_entry,
    "portal_exit": portal_exit,
    "escape_portal": escape_portal,
    "exit": exit_,
    "timer": timer,
}


def draw_glyph(
    canvas: SheetCanvas, parent, kind: str, at: Point, size_mm: float, rotation_deg: float = 0, **extra
) -> None:
    """Draw the glyph of ``kind`` (or :func:`generic`) into ``parent``, centred at ``at``
    (sheet mm): defined once per sheet for its kind, size, rotation and ``extra`` (variant,
    colour, channel, number, the key and portal colours) and placed with a ``<use>``
    (:meth:`exporters.canvas.SheetCanvas.reused`)."""
    draw = GLYPHS.get(kind, generic)
    rotation_deg = rotation_deg or 0
    try:
        key = ("line-glyph", kind, size_mm, rotation_deg, *sorted(_key_items(extra)))
        hash(key)
    except TypeError:  # an extra value that cannot be a key: drawn in place
        draw(canvas, parent, at, size_mm, rotation_deg, kind=kind, **extra)
        return
    canvas.reused(
        key, at, parent, lambda group, origin: draw(canvas, group, origin, size_mm, rotation_deg, kind=kind, **extra)
    )


def _key_items(extra: dict) -> list[tuple[str, object]]:
    """``extra`` as ``(name, value)`` pairs that can go in a key (a :class:`GlyphStyle` as its
    colours and shapes)."""
    items = []
    for name, value in extra.items():
        if isinstance(value, GlyphStyle):
            value = (tuple(sorted(value.keys.items())), tuple(sorted(value.channels.items())))
        items.append((name, value))
    return items


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
    _key_shape(
        canvas,
        g,
        centre,
        size_mm / 2 * (0.92 if shape != "triangle" else 1.0),
        shape,
        pal.key_colour(rgb),
        pal.ink,
        0.35,
        letter=lock_id[:1].upper(),
    )
    if shape in ("circle", "square", "star", "triangle"):
        hole_y = centre[1] + (size_mm * 0.08 if shape == "triangle" else 0)
        canvas.circle((centre[0], hole_y - size_mm * 0.06), size_mm * 0.09, fill=pal.paper, parent=g)
        canvas.polyline(
            [
                (centre[0], hole_y - size_mm * 0.04),
                (centre[0] - size_mm * 0.07, hole_y + size_mm * 0.16),
                (centre[0] + size_mm * 0.07, hole_y + size_mm * 0.16),
            ],
            closed=True,
            fill=pal.paper,
            parent=g,
        )
    return g
