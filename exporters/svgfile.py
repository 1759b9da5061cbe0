"""Self-contained SVG files: the sheet's fonts embedded, a generic family as fallback.

A page's SVG (:class:`exporters.pages.Page`) names the shipped font, DejaVu Sans, which Qt has
registered when it renders PDF and PNG. An SVG file is opened elsewhere (a browser, Inkscape,
a print shop's RIP), where DejaVu Sans may be missing, so the file written gets:

- every ``font-family`` followed by a generic family (``"DejaVu Sans, sans-serif"``), so a
  renderer that cannot use the embedded font still draws a sans-serif, not its default serif;
- the shipped fonts themselves, subset to the characters the files draw, as ``@font-face``
  rules with ``data:`` URLs in a ``<style>`` (TrueType, hinting dropped, kerning kept), so a
  browser draws exactly the shipped glyphs without any font installed.

Subsetting takes fontTools a few tenths of a second per font; :func:`font_faces` is called
once per export for the characters of all its sheets.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from functools import cache

from exporters import style

#: The generic family every ``font-family`` ends with.
GENERIC_FAMILY = "sans-serif"
_GENERICS = ("serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui")
_FONT_FAMILY = re.compile(r'font-family="([^"]*)"')
_SVG_OPEN = re.compile(r"<svg\b[^>]*>")


def with_generic_family(svg: str) -> str:
    """``svg`` with :data:`GENERIC_FAMILY` appended to every ``font-family`` attribute that
    names no generic family."""

    def fallback(match: re.Match[str]) -> str:
        families = [name.strip().strip("'\"").lower() for name in match.group(1).split(",")]
        if any(name in _GENERICS for name in families):
            return match.group(0)
        return f'font-family="{match.group(1)}, {GENERIC_FAMILY}"'

    return _FONT_FAMILY.sub(fallback, svg)


@cache
def _subset(font_index: int, characters: frozenset[str]) -> bytes:
    from io import BytesIO

    from fontTools import subset  # type: ignore[import-untyped]
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    options = subset.Options()
    options.layout_features = ["kern"]
    options.hinting = False
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # names, version, licence
    options.drop_tables = [*options.drop_tables, "FFTM"]
    options.notdef_outline = True
    # the font's own modification time, not the time of the export: the same sheet gives the same bytes
    font = TTFont(str(style.FONT_FILES[font_index]), recalcTimestamp=False)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(characters)) or " ")
    subsetter.subset(font)
    out = BytesIO()
    font.save(out)
    return out.getvalue()


def font_faces(texts: Iterable[str], bold: bool = True) -> str:
    """CSS ``@font-face`` rules embedding the shipped regular font (and the bold one when
    ``bold``) as TrueType subsets holding the characters of ``texts``."""
    characters = frozenset(char for text in texts for char in text if not char.isspace()) | {" "}
    rules = []
    for index, weight in enumerate(("normal", "bold")):
        if weight == "bold" and not bold:
            continue
        data = base64.b64encode(_subset(index, characters)).decode("ascii")
        rules.append(
            f'@font-face{{font-family:"{style.FONT_FAMILY}";font-style:normal;font-weight:{weight};'
            f'src:url("data:font/ttf;base64,{data}") format("truetype")}}'
        )
    return "\n".join(rules)


def self_contained(svg: str, faces: str) -> str:
    """``svg`` with a generic family in every ``font-family`` and the ``@font-face`` rules
    ``faces`` (from :func:`font_faces`) in a ``<style>`` first thing in the document."""
    svg = with_generic_family(svg)
    if not faces:
        return svg
    opening = _SVG_OPEN.search(svg)
    if opening is None:
        return svg
    block = f'<style type="text/css">\n{faces}\n</style>'
    return svg[: opening.end()] + block + svg[opening.end() :]


_TEXT = re.compile(r"<text\b([^>]*)>([^<]*)</text>")
_ATTRIBUTE = re.compile(r'([\w:.-]+)="([^"]*)"')
#: Pixel size of the font whose outlines :func:`text_as_paths` takes (one em, in path units).
_OUTLINE_EM = 1000


@cache
def _outline(text: str, bold: bool) -> tuple[str, float]:
    """The outline of ``text`` in the shipped font as SVG path data (one em =
    :data:`_OUTLINE_EM` whole units, baseline at 0), shaped by Qt as its PDF and PNG are (kerning,
    ligatures), and its advance width in those units."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFont, QFontMetricsF, QPainterPath

    from exporters.qt import ensure_app

    ensure_app()
    font = QFont(style.FONT_FAMILY)
    font.setPixelSize(_OUTLINE_EM)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    path = QPainterPath()
    path.addText(QPointF(0, 0), font, text)
    parts = []
    index, count = 0, path.elementCount()
    while index < count:
        element = path.elementAt(index)
        if element.isMoveTo():
            parts.append(f"M{element.x:.0f} {element.y:.0f}")
        elif element.isLineTo():
            parts.append(f"L{element.x:.0f} {element.y:.0f}")
        else:  # a cubic curve: this element and the next two
            first, second = path.elementAt(index + 1), path.elementAt(index + 2)
            parts.append(f"C{element.x:.0f} {element.y:.0f} {first.x:.0f} {first.y:.0f} {second.x:.0f} {second.y:.0f}")
            index += 2
        index += 1
    return "".join(parts), QFontMetricsF(font).horizontalAdvance(text)


def _text_path(match: re.Match[str]) -> str:
    import html

    attributes = dict(_ATTRIBUTE.findall(match.group(1)))
    text = html.unescape(match.group(2))
    try:
        size = float(attributes.pop("font-size"))
        x, y = float(attributes.pop("x", "0")), float(attributes.pop("y", "0"))
    except (KeyError, ValueError):
        return match.group(0)
    bold = attributes.pop("font-weight", "normal") == "bold"
    anchor = attributes.pop("text-anchor", "start")
    attributes.pop("font-family", None)
    d, advance = _outline(text, bold)
    scale = size / _OUTLINE_EM
    left = x - {"middle": advance * scale / 2, "end": advance * scale}.get(anchor, 0.0)
    placed = f"translate({left:.4f} {y:.4f}) scale({scale:.6g})"
    attributes["transform"] = f"{attributes['transform']} {placed}" if "transform" in attributes else placed
    attributes["aria-label"] = html.escape(text)
    attributes["d"] = d
    return "<path " + " ".join(f'{name}="{value}"' for name, value in attributes.items()) + "/>"


def text_as_paths(svg: str) -> str:
    """``svg`` with every ``<text>`` replaced by a ``<path>`` of its glyphs' outlines (shaped
    by Qt with the shipped fonts, so placed and sized as in the PDF), keeping its ``class``,
    ``data-kind``, ``fill`` and ``transform``; the text itself goes in ``aria-label``. The
    file then needs no font at all. Starts Qt."""
    return _TEXT.sub(_text_path, svg)
