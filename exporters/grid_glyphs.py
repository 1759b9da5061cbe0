"""Original vector glyphs of the grid family's room features and scoring icons.

Every glyph is drawn with :class:`exporters.canvas.SheetCanvas` primitives only, in absolute
sheet millimetres (no scaling transforms, so line widths stay what the SVG says). A glyph is
designed in a unit box ``-0.5..0.5`` (y down) and placed by a :class:`Pen` at a centre and a
size in mm. Features differ by silhouette, not by colour: a tied sack (loot), a winged dragon,
a sword with its letter in a square badge (weapon), a horned fanged head with its letter in a
round badge (monster). Fills are light tints so the paths players draw over them
stay readable, and outlines are ink, so the grayscale palette prints them cleanly.

Every shape costs Qt time in a PDF, so a glyph draws no shape that the printed result does not
show: a tinted body is one path (the canvas turns its ``fill_opacity`` into a solid colour, so a
paper underlay would be hidden), and parts with the same paint that do not touch (two horns,
two eyes) are subpaths of one path.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from svgwrite.container import Group

from exporters import style
from exporters.canvas import SheetCanvas, fmt_all, regular_polygon

#: Fill opacity of a glyph's coloured body (light, so pen lines drawn over it stay visible).
BODY_OPACITY = 0.4


class Pen:
    """Builds SVG path data from unit-box coordinates placed at ``(cx, cy)``, ``size`` mm wide,
    optionally rotated by ``rotate_deg`` around the centre. The commands keep their numbers
    and are written out together by :meth:`d` (one formatting pass per path)."""

    def __init__(self, cx: float, cy: float, size: float, rotate_deg: float = 0):
        self.cx, self.cy, self.size = cx, cy, size
        self._cos = math.cos(math.radians(rotate_deg))
        self._sin = math.sin(math.radians(rotate_deg))
        self._parts: list[str] = []  # commands, a ``%.3f`` for each number
        self._numbers: list[float] = []

    def at(self, x: float, y: float) -> tuple[float, float]:
        """The sheet point (mm) of unit point ``(x, y)``."""
        rx, ry = x * self._cos - y * self._sin, x * self._sin + y * self._cos
        return self.cx + rx * self.size, self.cy + ry * self.size

    def _push(self, *coords: float) -> str:
        """Keep the sheet points of unit points ``x, y, x, y ...``; their template."""
        cos, sin, size, cx, cy = self._cos, self._sin, self.size, self.cx, self.cy
        numbers = self._numbers
        for i in range(0, len(coords), 2):
            x, y = coords[i], coords[i + 1]
            numbers += (cx + (x * cos - y * sin) * size, cy + (x * sin + y * cos) * size)
        return " ".join(["%.3f %.3f"] * (len(coords) // 2))

    def M(self, x, y):
        self._parts.append("M" + self._push(x, y))
        return self

    def L(self, *coords):
        self._parts.append("L" + self._push(*coords))
        return self

    def Q(self, *coords):
        self._parts.append("Q" + self._push(*coords))
        return self

    def C(self, *coords):
        self._parts.append("C" + self._push(*coords))
        return self

    def Z(self):
        self._parts.append("Z")
        return self

    def d(self) -> str:
        """The path data built so far (and start a new path)."""
        out = fmt_all(" ".join(self._parts), self._numbers)
        self._parts, self._numbers = [], []
        return out

    def mm(self, length: float) -> float:
        """A unit length in mm."""
        return length * self.size


def _line_width(size: float, factor: float = 0.035) -> float:
    """Glyph outline width for a glyph ``size`` mm wide (never below the printable minimum)."""
    return style.stroke(min(style.GLYPH_MM * 1.25, max(style.MIN_LINE_MM, size * factor)))


#: Smallest radius of a letter badge (mm): its letter stays legible on the smallest rooms.
MIN_BADGE_RADIUS_MM = 1.6


def badge_radius(size: float) -> float:
    """Radius of the letter badge of a glyph ``size`` mm wide."""
    return max(size * 0.17, MIN_BADGE_RADIUS_MM)


def letter_badge(
    canvas: SheetCanvas, parent: Group, centre: tuple[float, float], radius: float, letter: str, round_badge: bool
) -> None:
    """A letter in a white badge: a circle (monsters) or a square (weapons)."""
    ink, paper = canvas.palette.ink, canvas.palette.paper
    width = _line_width(radius * 2, 0.06)
    if round_badge:
        canvas.circle(centre, radius, stroke=ink, width=width, fill=paper, parent=parent, kind="letter-badge")
    else:
        side = radius * 1.8
        canvas.rect(
            centre[0] - side / 2,
            centre[1] - side / 2,
            side,
            side,
            stroke=ink,
            width=width,
            fill=paper,
            radius=side * 0.12,
            parent=parent,
            kind="letter-badge",
        )
    size = max(2.0, radius * 1.4)
    canvas.text(
        letter, (centre[0], centre[1] + size * 0.365), size, anchor="middle", bold=True, parent=parent, kind="letter"
    )


# Feature glyphs --------------------------------------------------------------------------------


def draw_loot(canvas: SheetCanvas, parent: Group, cx: float, cy: float, size: float, letter: str | None = None):
    """A tied sack with a coin on it."""
    ink, paper = canvas.palette.ink, canvas.palette.paper
    width = _line_width(size)
    pen = Pen(cx, cy, size)
    # the sack below the tie
    pen.M(-0.12, -0.17).C(-0.42, -0.04, -0.47, 0.42, 0, 0.42).C(0.47, 0.42, 0.42, -0.04, 0.12, -0.17).Z()
    # one path each, no paper underlay: the tint is solid (see the module's docstring)
    body = pen.d()
    canvas.path(body, fill=canvas.palette.loot, fill_opacity=BODY_OPACITY, stroke=ink, width=width, parent=parent)
    # the gathered top above the tie
    pen.M(-0.12, -0.19).L(-0.24, -0.38).Q(-0.12, -0.30, -0.05, -0.40).Q(0, -0.33, 0.05, -0.40)
    pen.Q(0.12, -0.30, 0.24, -0.38).L(0.12, -0.19).Z()
    top = pen.d()
    canvas.path(top, fill=canvas.palette.loot, fill_opacity=BODY_OPACITY, stroke=ink, width=width, parent=parent)
    # the cord and its knot
    canvas.path(pen.M(-0.16, -0.18).Q(0, -0.13, 0.16, -0.18).d(), stroke=ink, width=width * 1.6, parent=parent)
    canvas.path(pen.M(0.06, -0.16).Q(0.16, -0.04, 0.26, -0.10).d(), stroke=ink, width=width, parent=parent)
    # a coin with a star on the sack's belly
    coin = pen.at(0, 0.15)
    canvas.circle(coin, pen.mm(0.13), stroke=ink, width=width, fill=paper, parent=parent)
    canvas.circle(coin, pen.mm(0.085), stroke=ink, width=style.FINE_MM, parent=parent)


def draw_dragon(canvas: SheetCanvas, parent: Group, cx: float, cy: float, size: float, letter: str | None = None):
    """A horned dragon seen from the side, facing left: long neck, one raised bat wing, clawed
    legs and a spade-tipped tail."""
    ink, paper = canvas.palette.ink, canvas.palette.paper
    width = _line_width(size, 0.028)
    fill = canvas.palette.accent
    pen = Pen(cx + size * 0.01, cy + size * 0.02, size)
    # head, neck, body, legs and tail in one outline: snout first, then over the head
    pen.M(-0.49, -0.21).Q(-0.44, -0.27, -0.36, -0.28)  # snout and brow
    pen.Q(-0.30, -0.30, -0.26, -0.26)  # top of the head
    pen.Q(-0.18, -0.16, -0.14, -0.06)  # back of the neck
    pen.C(-0.08, 0.02, 0.12, -0.02, 0.22, 0.06)  # back
    pen.C(0.32, 0.12, 0.40, 0.06, 0.42, -0.06)  # top of the tail, curling up
    pen.L(0.37, -0.09).L(0.47, -0.19).L(0.49, -0.05).L(0.45, -0.06)  # spade tip
    pen.C(0.44, 0.14, 0.32, 0.22, 0.22, 0.19)  # underside of the tail
    pen.L(0.23, 0.36).L(0.28, 0.40).L(0.12, 0.40).L(0.12, 0.26)  # hind leg and claws
    pen.Q(0.02, 0.28, -0.08, 0.24)  # belly
    pen.L(-0.08, 0.36).L(-0.04, 0.40).L(-0.19, 0.40).L(-0.18, 0.18)  # foreleg and claws
    pen.C(-0.22, 0.08, -0.26, 0.0, -0.30, -0.10)  # chest and throat
    pen.Q(-0.34, -0.14, -0.40, -0.14)  # under the jaw
    pen.L(-0.47, -0.15).L(-0.40, -0.18).L(-0.49, -0.19).Z()  # open mouth
    body = pen.d()
    canvas.path(body, fill=fill, fill_opacity=BODY_OPACITY, stroke=ink, width=width, parent=parent)
    # two swept-back horns
    for dx, dy in ((0.0, 0.0), (0.05, 0.04)):
        horn = pen.M(-0.31 + dx, -0.28 + dy).Q(-0.24 + dx, -0.38 + dy, -0.12 + dx, -0.42 + dy)
        horn = horn.Q(-0.20 + dx, -0.34 + dy, -0.25 + dx, -0.25 + dy).Z().d()
        canvas.path(horn, fill=paper, stroke=ink, width=width, parent=parent)
    canvas.circle(pen.at(-0.36, -0.23), max(pen.mm(0.028), 0.3), fill=ink, parent=parent)
    # spines down the neck and along the tail, apart from each other: one path
    for base_a, tip, base_b in (
        ((-0.22, -0.21), (-0.16, -0.23), (-0.19, -0.15)),
        ((-0.18, -0.13), (-0.11, -0.14), (-0.15, -0.07)),
        ((0.27, 0.085), (0.31, 0.03), (0.33, 0.085)),
        ((0.35, 0.07), (0.40, 0.02), (0.39, 0.04)),
    ):
        pen.M(*base_a).L(*tip).L(*base_b).Z()
    canvas.path(pen.d(), fill=ink, stroke=ink, width=style.FINE_MM, parent=parent)
    # a bat wing raised from the shoulders: arm to the wrist, fingers fanning out, scalloped membrane
    wrist = (0.02, -0.40)
    tips = [(0.24, -0.50), (0.40, -0.30), (0.34, -0.08)]
    root_front, root_back = (-0.08, -0.02), (0.16, 0.02)
    pen.M(*root_front).Q(-0.08, -0.22, *wrist).L(*tips[0])
    previous = tips[0]
    for point in [*tips[1:], root_back]:
        mid = ((previous[0] + point[0]) / 2, (previous[1] + point[1]) / 2)
        pen.Q(mid[0] * 0.75 + wrist[0] * 0.25, mid[1] * 0.75 + wrist[1] * 0.25, *point)
        previous = point
    wing = pen.Z().d()
    canvas.path(wing, fill=fill, fill_opacity=BODY_OPACITY * 0.7, stroke=ink, width=width, parent=parent)
    for tip in tips[1:]:
        pen.M(*wrist).L(*tip)
    canvas.path(pen.d(), stroke=ink, width=style.FINE_MM, parent=parent)
    # wrist claw
    canvas.path(pen.M(0.02, -0.40).L(-0.03, -0.45).L(0.04, -0.43).d(), stroke=ink, width=width, parent=parent)


def draw_weapon(canvas: SheetCanvas, parent: Group, cx: float, cy: float, size: float, letter: str | None = None):
    """A sword, point up and to the right, with its letter in a square badge."""
    ink, paper = canvas.palette.ink, canvas.palette.paper
    width = _line_width(size)
    pen = Pen(cx - size * 0.06, cy - size * 0.05, size * 1.18, rotate_deg=45)
    # blade with its point (its fuller is drawn with the grip's lines)
    blade = pen.M(-0.06, 0.10).L(-0.06, -0.33).L(0, -0.45).L(0.06, -0.33).L(0.06, 0.10).Z().d()
    canvas.path(blade, fill=paper, stroke=ink, width=width, parent=parent)
    # cross-guard, grip and pommel
    guard = pen.M(-0.20, 0.10).Q(-0.22, 0.15, -0.19, 0.17).L(0.19, 0.17).Q(0.22, 0.15, 0.20, 0.10).Z().d()
    canvas.path(guard, fill=ink, stroke=ink, width=width, parent=parent)
    grip = pen.M(-0.035, 0.17).L(-0.035, 0.34).L(0.035, 0.34).L(0.035, 0.17).Z().d()
    canvas.path(grip, fill=paper, stroke=ink, width=width, parent=parent)
    # the fuller down the blade and the grip's wrapping, one path (the guard and grip between
    # them do not reach the fuller)
    canvas.path(
        pen.M(0, 0.06).L(0, -0.32).M(-0.035, 0.23).L(0.035, 0.21).M(-0.035, 0.29).L(0.035, 0.27).d(),
        stroke=ink,
        width=style.FINE_MM,
        parent=parent,
    )
    canvas.circle(pen.at(0, 0.385), pen.mm(0.05), fill=ink, stroke=ink, width=width, parent=parent)
    if letter:
        letter_badge(
            canvas, parent, (cx + size * 0.30, cy + size * 0.28), badge_radius(size), letter, round_badge=False
        )


def draw_monster(canvas: SheetCanvas, parent: Group, cx: float, cy: float, size: float, letter: str | None = None):
    """A horned, fanged head with its letter in a round badge."""
    ink, paper = canvas.palette.ink, canvas.palette.paper
    width = _line_width(size)
    fill = canvas.palette.monster
    pen = Pen(cx - size * 0.02, cy + size * 0.03, size)
    # horns (behind the head), apart from each other: one path
    for sign in (-1, 1):
        pen.M(sign * 0.16, -0.26).C(sign * 0.30, -0.30, sign * 0.40, -0.36, sign * 0.36, -0.50)
        pen.C(sign * 0.48, -0.40, sign * 0.44, -0.22, sign * 0.28, -0.12).Z()
    canvas.path(pen.d(), fill=paper, stroke=ink, width=width, parent=parent)
    # head: broad brow, pointed ears, heavy jaw
    pen.M(-0.26, -0.16).C(-0.24, -0.36, 0.24, -0.36, 0.26, -0.16)
    pen.L(0.40, -0.14).L(0.28, -0.04)  # right ear
    pen.C(0.30, 0.16, 0.24, 0.34, 0, 0.36)
    pen.C(-0.24, 0.34, -0.30, 0.16, -0.28, -0.04)
    pen.L(-0.40, -0.14).Z()  # left ear
    head = pen.d()
    canvas.path(head, fill=fill, fill_opacity=BODY_OPACITY, stroke=ink, width=width, parent=parent)
    # angry brows and eyes (one path)
    for sign in (-1, 1):
        pen.M(sign * 0.05, -0.08).L(sign * 0.19, -0.13).L(sign * 0.16, -0.03).Z()
    canvas.path(pen.d(), fill=ink, stroke=ink, width=style.FINE_MM, parent=parent)
    # mouth with fangs
    canvas.path(pen.M(-0.17, 0.12).Q(0, 0.20, 0.17, 0.12).d(), stroke=ink, width=width, parent=parent)
    for x in (-0.11, 0.11):  # two fangs, one path
        pen.M(x - 0.04, 0.15).L(x, 0.26).L(x + 0.04, 0.15).Z()
    canvas.path(pen.d(), fill=paper, stroke=ink, width=style.FINE_MM, parent=parent)
    if letter:
        letter_badge(canvas, parent, (cx + size * 0.32, cy + size * 0.30), badge_radius(size), letter, round_badge=True)


def draw_other(
    canvas: SheetCanvas, parent: Group, cx: float, cy: float, size: float, letter: str | None = None, kind: str = "?"
):
    """A feature kind defined by another ruleset: a hexagon with the kind's initial (and letter)."""
    ink, paper = canvas.palette.ink, canvas.palette.paper
    canvas.polyline(
        regular_polygon(cx, cy, size * 0.4, 6, rotation_deg=0),
        closed=True,
        fill=paper,
        stroke=ink,
        width=_line_width(size),
        parent=parent,
    )
    text = (kind[:1].upper() or "?") + (letter or "")
    text_size = max(2.0, size * (0.32 if len(text) < 2 else 0.24))
    canvas.text(text, (cx, cy + text_size * 0.365), text_size, anchor="middle", bold=True, parent=parent)


#: Glyph drawer of each classic feature kind.
FEATURE_GLYPHS: dict[str, Callable] = {
    "loot": draw_loot,
    "dragon": draw_dragon,
    "weapon": draw_weapon,
    "monster": draw_monster,
}


def draw_feature(
    canvas: SheetCanvas,
    kind: str,
    centre: tuple[float, float],
    size: float,
    *,
    letter: str | None = None,
    parent: Group | None = None,
    tag: str | None = None,
    element_id: str | None = None,
) -> Group:
    """Draw a feature glyph of ``kind`` centred at ``centre``, ``size`` mm wide, in a group tagged
    ``data-kind=tag`` (default: ``kind``). Unknown kinds get a generic lettered hexagon. The
    glyph is defined once per sheet for its kind, size and letter and placed with a ``<use>``
    (:meth:`exporters.canvas.SheetCanvas.reused`)."""
    group = canvas.group(tag if tag is not None else kind, parent=parent, element_id=element_id)
    drawer = FEATURE_GLYPHS.get(kind)

    def draw(into: Group, origin: tuple[float, float]) -> None:
        if drawer is None:
            draw_other(canvas, into, origin[0], origin[1], size, letter, kind=kind)
        else:
            drawer(canvas, into, origin[0], origin[1], size, letter)

    canvas.reused(("grid-feature", kind, size, letter), centre, group, draw)
    return group


# Board marks and scoring icons -------------------------------------------------------------------


def block_arrow(
    tip: tuple[float, float],
    direction: tuple[float, float],
    length: float,
    head_width: float,
    head_fraction: float = 0.55,
    shaft_fraction: float = 0.42,
) -> list[tuple[float, float]]:
    """The outline of a solid arrow whose point is ``tip``, pointing along unit ``direction``."""
    dx, dy = direction
    nx, ny = -dy, dx  # normal
    head = length * head_fraction
    half_head, half_shaft = head_width / 2, head_width * shaft_fraction / 2
    bx, by = tip[0] - dx * head, tip[1] - dy * head  # base of the head
    tx, ty = tip[0] - dx * length, tip[1] - dy * length  # end of the tail
    return [
        tip,
        (bx + nx * half_head, by + ny * half_head),
        (bx + nx * half_shaft, by + ny * half_shaft),
        (tx + nx * half_shaft, ty + ny * half_shaft),
        (tx - nx * half_shaft, ty - ny * half_shaft),
        (bx - nx * half_shaft, by - ny * half_shaft),
        (bx - nx * half_head, by - ny * half_head),
    ]


def diamond_points(centre: tuple[float, float], half: float) -> list[tuple[float, float]]:
    """A square diamond (rotated 45 degrees) of half-diagonal ``half`` around ``centre``."""
    x, y = centre
    return [(x, y - half), (x + half, y), (x, y + half), (x - half, y)]


def draw_icon(canvas: SheetCanvas, icon: str, centre: tuple[float, float], size: float, parent: Group) -> None:
    """A small icon of a scoring term: a feature kind, ``matched`` (sword and monster),
    ``entryway`` (arrow), ``tally`` (tally marks) or ``trap`` (an X)."""
    ink = canvas.palette.ink
    cx, cy = centre
    if icon == "matched":
        draw_feature(canvas, "weapon", (cx - size * 0.28, cy), size * 0.8, parent=parent, tag="")
        draw_feature(canvas, "monster", (cx + size * 0.32, cy), size * 0.8, parent=parent, tag="")
    elif icon == "unmatched":
        draw_feature(canvas, "monster", (cx + size * 0.32, cy), size * 0.8, parent=parent, tag="")
        # a struck-out sword: the monster is met without its weapon
        pen = Pen(cx - size * 0.28, cy, size * 0.8, rotate_deg=45)
        canvas.path(
            pen.M(0, 0.36).L(0, -0.44).M(-0.16, 0.14).L(0.16, 0.14).d(),
            stroke=ink,
            width=_line_width(size),
            parent=parent,
        )
        cross = Pen(cx - size * 0.28, cy, size * 0.8)
        canvas.path(
            cross.M(-0.32, -0.32).L(0.32, 0.32).M(0.32, -0.32).L(-0.32, 0.32).d(),
            stroke=ink,
            width=_line_width(size, 0.06),
            parent=parent,
        )
    elif icon == "entryway":
        canvas.polyline(
            block_arrow((cx + size * 0.4, cy), (1, 0), size * 0.8, size * 0.6),
            closed=True,
            fill=ink,
            stroke=ink,
            width=style.FINE_MM,
            parent=parent,
        )
    elif icon == "tally":
        width = _line_width(size, 0.06)
        for i in range(4):
            x = cx - size * 0.3 + i * size * 0.2
            canvas.line((x, cy - size * 0.3), (x, cy + size * 0.3), stroke=ink, width=width, parent=parent)
        canvas.line(
            (cx - size * 0.42, cy + size * 0.2),
            (cx + size * 0.42, cy - size * 0.2),
            stroke=ink,
            width=width,
            parent=parent,
        )
    elif icon == "trap":
        width = _line_width(size, 0.1)
        half = size * 0.3
        canvas.line((cx - half, cy - half), (cx + half, cy + half), stroke=ink, width=width, parent=parent)
        canvas.line((cx + half, cy - half), (cx - half, cy + half), stroke=ink, width=width, parent=parent)
    else:
        draw_feature(canvas, icon, centre, size, parent=parent, tag="")
