"""Print presets: what a home printer or a print-on-demand shop asks of sheets and cards.

A preset sets the bleed, the safe zone (a PDF page's ArtBox), the size of a card as the shop
cuts it, how cards are laid out and in what order, and the resolution of images. Options given
explicitly override a preset's values (:func:`resolve`). Lengths are millimetres; the shops'
figures come from their published file guides (see docs/exporting.md for the sources):

- ``home``: no bleed, no safe zone; cards as many to a page as fit, with cut lines;
- ``drivethrucards``: 1/8" (3.175 mm) bleed and a 1/8" safe zone inside the cut; poker cards
  of 2.5 x 3.5" (63.5 x 88.9 mm), one card per page, the deck as one PDF whose pages go back,
  front, back, front;
- ``thegamecrafter``: the same bleed and safe zone and card size; cards as PNG images at
  300 dpi, 825 x 1125 px each (2.75 x 3.75": the card with its bleed), one image per card face
  and one for the back.

RULES.md has no section on print output.
"""

from __future__ import annotations

from dataclasses import dataclass

#: 1/8 inch in mm: the bleed and safe zone of DriveThruCards and The Game Crafter.
EIGHTH_INCH_MM = 25.4 / 8
#: A poker card as print-on-demand shops cut it: 2.5 x 3.5 inches, in mm.
POKER_CARD_MM = (2.5 * 25.4, 3.5 * 25.4)


@dataclass(frozen=True)
class Preset:
    """One print preset. ``bleed_mm`` beyond the paper (or each card); ``safe_mm``: the safe
    zone's inset from the cut (0: none); ``card_mm``: ``(width, height)`` of a card as cut
    (``None``: inkcrawl's 63 x 88 mm); ``cards``: ``"sheets"`` (as many to a page as fit),
    ``"one-per-page"`` (a PDF of back, front, back, front...) or ``"images"`` (one PNG per face);
    ``dpi``: resolution of images (``None``: the format's default)."""

    name: str
    title: str
    bleed_mm: float
    safe_mm: float
    card_mm: tuple[float, float] | None
    cards: str
    dpi: float | None


PRESETS: dict[str, Preset] = {
    "home": Preset("home", "home printer", 0.0, 0.0, None, "sheets", None),
    "drivethrucards": Preset(
        "drivethrucards", "DriveThruCards", EIGHTH_INCH_MM, EIGHTH_INCH_MM, POKER_CARD_MM, "one-per-page", None
    ),
    "thegamecrafter": Preset(
        "thegamecrafter", "The Game Crafter", EIGHTH_INCH_MM, EIGHTH_INCH_MM, POKER_CARD_MM, "images", 300.0
    ),
}


def preset_named(name: str | None) -> Preset | None:
    """The preset called ``name`` (``None`` for ``None``). Raises ``KeyError`` naming the
    presets for an unknown name."""
    if name is None:
        return None
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown preset {name!r}: use {', '.join(PRESETS)}") from None


def resolve(explicit, preset: Preset | None, member: str, default):
    """An option's value: ``explicit`` when given (not ``None``), else the preset's ``member``
    when it has a value, else ``default``."""
    if explicit is not None:
        return explicit
    if preset is not None and getattr(preset, member) is not None:
        return getattr(preset, member)
    return default
