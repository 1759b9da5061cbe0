"""The sheet look: line weights, palette, fonts and text sizes, shared by every renderer and by
the editor's canvas (so the editor shows what prints).

All lengths are millimetres on the sheet. No line is thinner than :data:`MIN_LINE_MM`
(0.25 mm, the thinnest line a home printer reproduces reliably). Colours never carry meaning
alone: every coloured thing also has a shape or a letter, and :func:`palette` with
``grayscale=True`` gives the black-and-white variant used by ``--grayscale``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

#: Thinnest line any renderer may draw (0.25 mm) and the width of fine detail (hatching, tick marks,
#: 0.25 mm): the core's values (:mod:`inkcrawl.shapes`), which the glyph silhouettes use too.
from inkcrawl.shapes import FINE_MM, INNER_WALL_MM, MIN_LINE_MM, OUTLINE_WALL_MM  # noqa: F401

# Line weights (mm) ---------------------------------------------------------------------------
WALL_MM = OUTLINE_WALL_MM  #: outer walls of areas and grid walls (the core's: judged as printed)
# INNER_WALL_MM (explicit walls of line dungeons) is imported from the core above.
OUTLINE_MM = 0.35  #: room outlines of the grid, boxes, fields
GLYPH_MM = 0.4  #: strokes of element glyphs
DOOR_MM = 1.6  #: a door's bar across its opening
CROP_MARK_MM = 0.25  #: crop marks

# Text (font size in mm = the em size) -----------------------------------------------------------
FONT_FAMILY = "DejaVu Sans"
TITLE_MM = 7.0
HEADING_MM = 4.2
BODY_MM = 3.2
SMALL_MM = 2.5
LABEL_MM = 3.0

#: Folder of the fonts shipped with inkcrawl (with their licence).
FONTS_DIR = Path(__file__).resolve().parent / "fonts"
#: Font files registered at start-up, regular then bold.
FONT_FILES = (FONTS_DIR / "DejaVuSans.ttf", FONTS_DIR / "DejaVuSans-Bold.ttf")


@dataclass(frozen=True)
class Palette:
    """Colours by role, as ``#rrggbb``. ``grayscale`` palettes use only greys."""

    ink: str = "#1b1b1b"  # text, walls, glyph outlines
    paper: str = "#ffffff"
    room_fill: str = "#fbf7ee"  # rooms (very light, prints as near white)
    corridor_fill: str = "#eee9dc"  # corridors
    grid_line: str = "#9a9a9a"  # faint lines (room boundaries of the grid, guides)
    accent: str = "#8a2d1c"  # title rule, dragon, boss
    treasure: str = "#d4a017"  # treasure outlines (yellow, as the rules say)
    loot: str = "#b8860b"
    plant: str = "#3f7d3a"
    monster: str = "#5a3a2a"
    spell: str = "#5b3f8c"
    stone: str = "#6d6d6d"
    prisoner: str = "#3a5a7a"
    portal: str = "#2a7f8f"
    escape: str = "#1f5f3f"
    start: str = "#8a2d1c"
    orb_blue: str = "#2e6fd1"
    orb_pink: str = "#d14f9a"
    trap: str = "#1b1b1b"
    grayscale: bool = False

    def key_colour(self, rgb: str) -> str:
        """The colour to print for a key or lock whose ruleset colour is ``rgb``."""
        return _grey(rgb) if self.grayscale else rgb

    def orb(self, colour: str) -> str:
        """The colour of an orb of the ruleset colour id ``colour`` (``blue``, ``pink``...)."""
        return {"blue": self.orb_blue, "pink": self.orb_pink}.get(colour, self.ink)


def _grey(rgb: str) -> str:
    r, g, b = (int(rgb[i : i + 2], 16) for i in (1, 3, 5))
    level = round(0.299 * r + 0.587 * g + 0.114 * b)
    level = min(level, 0x70)  # keep greys dark enough to read on paper
    return f"#{level:02x}{level:02x}{level:02x}"


COLOUR = Palette()
GRAYSCALE = replace(
    COLOUR,
    **{
        field: _grey(value)
        for field, value in COLOUR.__dict__.items()
        if isinstance(value, str) and field not in ("paper", "room_fill", "corridor_fill", "grid_line", "ink")
    },
    room_fill="#ffffff",
    corridor_fill="#efefef",
    grayscale=True,
)


def palette(grayscale: bool = False) -> Palette:
    """The colour palette, or its black-and-white variant."""
    return GRAYSCALE if grayscale else COLOUR


def stroke(width_mm: float) -> float:
    """A line width clamped to the printable minimum :data:`MIN_LINE_MM`."""
    return max(width_mm, MIN_LINE_MM)
