"""A drawing surface in sheet millimetres on top of svgwrite, used by every sheet renderer.

The SVG must draw the same in Qt's SVG renderer (used for PDF and PNG) as in a browser, so the
canvas only offers what Qt draws (DESIGN.md "Exporters"): no ``clip-path``, no ``opacity``
(a ``fill_opacity`` argument becomes a solid tint over the paper colour, which prints the same
and keeps PDFs small), no markers (arrowheads are paths). Every line width is clamped to
:data:`exporters.style.MIN_LINE_MM`. Every drawn thing can carry ``class`` and ``data-kind``
attributes naming what it shows (``data-kind="monster"``), so tests and tools can find the
element kinds in the SVG. A glyph drawn more than once (same kind, size, rotation and letter)
is drawn once in ``<defs>`` and placed with ``<use>`` (:meth:`SheetCanvas.reused`), which Qt
draws as the shapes themselves.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Hashable, Iterable, Sequence
from xml.sax.saxutils import escape

import svgwrite
from svgwrite.container import Defs, Group, Use
from svgwrite.image import Image
from svgwrite.path import Path
from svgwrite.shapes import Circle, Rect
from svgwrite.text import Text
from svgwrite.utils import strlist

from exporters import style
from inkcrawl.textchars import printable_text
from inkcrawl.textmetrics import DESCENT_EM, text_width_mm

Point = tuple[float, float]
#: ``(x0, y0, x1, y1)`` in mm.
Bounds = tuple[float, float, float, float]

#: Ascent of DejaVu Sans above the baseline as a fraction of the em (its ``hhea`` ascender):
#: no glyph's ink goes higher, accented capitals included.
ASCENT_EM = 0.928
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# what :func:`fmt` strips from numbers written with 3 decimals, many at once (a constant
# replacement, which the regex engine applies without calling back): ".000", or the zeros
# after the last non-zero decimal ("1.500" -> "1.5", "1.050" -> "1.05")
_TRAILING_ZEROS = re.compile(r"\.000(?![0-9])|(?<=\.[0-9])00(?![0-9])|(?<=\.[0-9][0-9])0(?![0-9])")
_NEGATIVE_ZERO = re.compile(r"(?<![0-9.])-0(?![0-9.])")


@functools.lru_cache(maxsize=1 << 16)
def fmt(value: float) -> str:
    """A coordinate as SVG text: at most 3 decimals, no trailing zeros. Cached: a sheet (and
    the next, and a 100-page export) writes the same grid and glyph coordinates again and again."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fmt_all(template: str, numbers: Sequence[float]) -> str:
    """``template`` (``%.3f`` for each number, and any text without digits around them) filled
    with ``numbers``, each number written as :func:`fmt` writes it: at most 3 decimals, no
    trailing zeros, no ``-0``. One formatting pass for a whole path instead of one call per
    number (a sheet writes tens of thousands of coordinates). Raises ``TypeError`` when the
    count of numbers does not match the template."""
    text = _TRAILING_ZEROS.sub("", template % tuple(numbers))
    return _NEGATIVE_ZERO.sub("0", text) if "-0" in text else text


@functools.lru_cache(maxsize=256)
def _polyline_template(count: int, closed: bool) -> str:
    return "M%.3f %.3f" + " L%.3f %.3f" * (count - 1) + (" Z" if closed else "")


def path_data(points: Sequence[Point], closed: bool = False) -> str:
    """SVG path data for a polyline (``M x y L x y ...``, points in mm), closed with ``Z`` when
    asked; ``""`` for no points. Numbers as :func:`fmt` writes them."""
    if not points:
        return ""
    return fmt_all(_polyline_template(len(points), closed), [v for x, y in points for v in (x, y)])


#: Distance of a cubic Bézier's control points from the ends of a quarter circle of radius 1 (the
#: curve then runs within 0.03 % of the circle; Qt draws a ``<circle>`` with the same four curves).
_KAPPA = 0.5522847498


def circle_data(centre: Point, radius: float) -> str:
    """SVG path data of a circle (``radius`` mm around ``centre``) as four cubic Béziers, clockwise
    on the sheet from its top: a circle can then be one subpath of a path holding other shapes of
    the same paint (one shape for Qt to draw instead of several). Only ``M C Z`` commands, all
    ``x y`` pairs, so :meth:`SheetCanvas.path` measures its ink."""
    x, y = centre
    r, k = radius, radius * _KAPPA
    return fmt_all(
        "M%.3f %.3f C%.3f %.3f %.3f %.3f %.3f %.3f C%.3f %.3f %.3f %.3f %.3f %.3f"
        " C%.3f %.3f %.3f %.3f %.3f %.3f C%.3f %.3f %.3f %.3f %.3f %.3f Z",
        (
            x, y - r,
            x + k, y - r, x + r, y - k, x + r, y,
            x + r, y + k, x + k, y + r, x, y + r,
            x - k, y + r, x - r, y + k, x - r, y,
            x - r, y - k, x - k, y - r, x, y - r,
        ),
    )  # fmt: skip


def svg_text(drawing: svgwrite.Drawing) -> str:
    """The SVG text of ``drawing``, always well-formed XML: the characters XML 1.0 cannot hold
    (and the other control characters validation refuses, C007) are left out, even when a file
    with such text is exported with ``--force``. :meth:`SheetCanvas.text` already drops them
    from the text it draws; this also covers attribute values such as ``data-id``.

    The text is what ElementTree writes for the element tree svgwrite makes (``get_xml``), but
    the canvas's elements are written straight to text without making the tree, and the
    definitions of :meth:`SheetCanvas.reused`, the same on every page of an export, are written
    once an export and their text used again."""
    out: list[str] = []
    _write_element(drawing, out)
    return printable_text("".join(out))


def regular_polygon(cx: float, cy: float, radius: float, sides: int, rotation_deg: float = -90) -> list[Point]:
    """Vertices of a regular polygon (first vertex at ``rotation_deg``, -90 = straight up)."""
    return [
        (
            cx + radius * math.cos(math.radians(rotation_deg + 360 * i / sides)),
            cy + radius * math.sin(math.radians(rotation_deg + 360 * i / sides)),
        )
        for i in range(sides)
    ]


def star_points(
    cx: float, cy: float, outer: float, inner: float, points: int = 5, rotation_deg: float = -90
) -> list[Point]:
    """Vertices of a star with ``points`` tips, alternating outer and inner radius."""
    out = []
    for i in range(points * 2):
        radius = outer if i % 2 == 0 else inner
        angle = math.radians(rotation_deg + 180 * i / points)
        out.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return out


@functools.lru_cache(maxsize=1024)
def blend(colour: str, background: str, opacity: float) -> str:
    """``colour`` at ``opacity`` over ``background`` as one solid ``#rrggbb``."""
    front = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    back = [int(background[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(f * opacity + b * (1 - opacity)) for f, b in zip(front, back)]
    return "#" + "".join(f"{channel:02x}" for channel in mixed)


class _Definition(Group):
    """A ``<g>`` in ``<defs>`` whose children (svgwrite elements) are shared with the same
    definition on other sheets of an export. ``xml`` is shared with them too: the children's
    ElementTree elements, made by the first sheet that asks (svgwrite would make an element's
    XML anew for every drawing it is in; serialising an ElementTree element does not change it,
    so the pages of an export can all hold the same ones), and so is ``text``: the whole
    group's XML text, written by the first sheet :func:`svg_text` writes."""

    def __init__(self, children: list, xml: list, text: list[str], **extra):
        super().__init__(**extra)
        self.elements = children
        self._xml = xml
        self._text = text

    def get_xml(self):
        """The group's XML as svgwrite writes it, holding the children's shared XML."""
        children, self.elements = self.elements, []
        try:
            group = super().get_xml()  # the group itself, its id
        finally:
            self.elements = children
        if len(self._xml) != len(children):
            self._xml[:] = [child.get_xml() for child in children]
        group.extend(self._xml)
        return group

    def _write(self, out: list[str]) -> None:
        if not self._text:
            written = [_start_tag("g", self.attribs)]
            _write_children("g", "", self.elements, written)
            self._text.append("".join(written))
        out.append(self._text[0])


#: What an attribute value holds as a character reference besides ``& < >``, as ElementTree
#: writes it: the value's quotes, and the white space XML would otherwise normalise to spaces.
_ATTRIBUTE_ENTITIES = {'"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}


#: Characters an attribute value must not hold as they are (:data:`_ATTRIBUTE_ENTITIES`).
_ESCAPED = re.compile('[&<>"\r\n\t]')


def _attributes(attribs: dict) -> list[tuple[str, str]]:
    """An element's attributes as svgwrite (``debug=False``, ``profile="full"``) puts them in its
    ElementTree element: in name order, ``None`` and empty values left out, others as ``str``."""
    pairs = []
    for key, value in sorted(attribs.items()):
        if value is not None:
            text = value if value.__class__ is str else str(value)
            if text:
                pairs.append((key, text))
    return pairs


def _start_tag(name: str, attribs: dict) -> str:
    """``<name`` and its :func:`_attributes` as ElementTree writes them."""
    parts = [name]
    for key, text in _attributes(attribs):
        parts.append(f'{key}="{escape(text, _ATTRIBUTE_ENTITIES) if _ESCAPED.search(text) else text}"')
    return "<" + " ".join(parts)


def _write_children(tag: str, text: str, elements: list, out: list[str]) -> None:
    """The rest of an element whose start tag ``out`` ends with: ``text`` and ``elements``
    and the end tag, or `` />`` for none, as ElementTree writes them."""
    if text or elements:
        out.append(">" + escape(text) if text else ">")
        for element in elements:
            _write_element(element, out)
        out.append(f"</{tag}>")
    else:
        out.append(" />")


def _write_element(element, out: list[str]) -> None:
    """Append ``element``'s XML text to ``out``: the text ElementTree writes for the element
    svgwrite's ``get_xml`` makes. The canvas's classes, and plain groups, definitions and the
    drawing itself when svgwrite would write them without checks or rounding (``debug=False``,
    ``profile="full"``, as :func:`exporters.pages.new_page_drawing` makes them), are written
    straight to text; any other element through ElementTree."""
    write = getattr(element, "_write", None)
    plain = not element.debug and element.profile == "full"
    if write is not None:
        write(out)
    elif element.__class__ in (Group, Defs) and plain:
        out.append(_start_tag(element.elementname, element.attribs))
        _write_children(element.elementname, "", element.elements, out)
    elif element.__class__ is svgwrite.Drawing and plain:
        attribs = element.attribs  # as svgwrite's Drawing.get_xml sets them
        attribs["xmlns"] = "http://www.w3.org/2000/svg"
        attribs["xmlns:xlink"] = "http://www.w3.org/1999/xlink"
        attribs["xmlns:ev"] = "http://www.w3.org/2001/xml-events"
        attribs["baseProfile"] = element.profile
        attribs["version"] = element.version
        out.append(_start_tag(element.elementname, attribs))
        _write_children(element.elementname, "", element.elements, out)
    else:
        out.append(ElementTree.tostring(element.get_xml(), encoding="unicode"))


class _QuickXml:
    """An svgwrite element as svgwrite makes it for a drawing with ``debug=False`` and
    ``profile="full"`` (:meth:`SheetCanvas.__init__` uses these classes for such drawings only),
    without svgwrite's per-attribute debug and profile look-ups, which :func:`svg_text` writes
    straight to text: the text ElementTree writes for the element svgwrite's own ``get_xml``
    makes (the same bytes: ``tests/test_svg_reuse.py`` compares them). The constructors set what
    the canvas does not set itself (svgwrite's default geometry, which the canvas always
    replaces, is not set)."""

    def __init__(self, factory):
        self._parameter = factory._parameter
        self.attribs: dict = {}
        self.elements: list = []

    def _write(self, out: list[str]) -> None:
        tag = self.elementname  # type: ignore[attr-defined]
        out.append(_start_tag(tag, self.attribs))
        _write_children(tag, "", self.elements, out)


class _QuickPath(_QuickXml, Path):
    def __init__(self, d: str, factory):
        _QuickXml.__init__(self, factory)
        self.commands = [d]

    def _write(self, out: list[str]) -> None:
        commands = self.commands  # as svgwrite's Path.get_xml sets them
        self.attribs["d"] = (
            commands[0] if len(commands) == 1 and commands[0].__class__ is str else str(strlist(commands, " "))
        )
        super()._write(out)


class _QuickCircle(_QuickXml, Circle):
    pass


class _QuickRect(_QuickXml, Rect):
    pass


class _QuickGroup(_QuickXml, Group):
    pass


class _QuickUse(_QuickXml, Use):
    def __init__(self, href: str, factory):
        _QuickXml.__init__(self, factory)
        self.set_href(href)

    def _write(self, out: list[str]) -> None:
        self.update_id()  # as svgwrite's Use: an href given as an element names its id
        super()._write(out)


class _QuickText(_QuickXml, Text):
    def __init__(self, text: str, factory):
        _QuickXml.__init__(self, factory)
        self.text = text

    def _write(self, out: list[str]) -> None:
        out.append(_start_tag("text", self.attribs))
        _write_children("text", str(self.text), self.elements, out)


#: ``(children, ink box at the origin, texts, the children's XML once made, id, the group's XML
#: text once written)`` of a definition.
_Shared = tuple[list, "Bounds | None", list[str], list, str, list[str]]
#: Definitions of :meth:`SheetCanvas.reused` by ``(key, palette)``, shared by the sheets an
#: export builds (a 100-page export defines a few hundred glyphs, not thousands).
_DEFINITIONS: dict[tuple[Hashable, style.Palette], _Shared] = {}
_MAX_DEFINITIONS = 4096


def clear_definitions() -> None:
    """Forget the definitions kept for the next sheets (benchmarks time a cold export with it)."""
    _DEFINITIONS.clear()


#: The stroke cap and join a canvas's root group sets for everything drawn in it.
ROUND = "round"


class SheetCanvas:
    """Draws into an SVG group whose user unit is one millimetre of the sheet.

    ``drawing`` is the svgwrite document, ``root`` the group everything of this sheet goes in,
    ``palette`` the colours (:func:`exporters.style.palette`). ``texts`` collects every string
    drawn, so the caller can warn about characters the shipped font cannot draw; ``warnings``
    collects what a renderer had to adapt (a title shortened to fit, for instance).

    :attr:`ink` is the bounding box ``(x0, y0, x1, y1)`` in mm of everything drawn that shows on
    paper (``None`` before anything is): shapes with their strokes' half width, texts from the
    font's ascent to its descent over their advance width. Shapes of the paper's colour without
    a stroke do not count. It is what must fit on paper when a sheet goes on other paper.
    """

    def __init__(self, drawing: svgwrite.Drawing, root: Group, palette: style.Palette):
        self.drawing = drawing
        self.root = root
        # no fill, and the caps and joins most strokes have, said once on the root and inherited
        # by every shape below it, the definitions its uses place included (SVG 1.1, 6.4
        # inheritance; no stroke is SVG's initial value): attributes fewer on most shapes for
        # svgwrite to write and Qt to read
        root.attribs.setdefault("fill", "none")  # SVG's initial fill is black
        root.attribs.setdefault("stroke-linecap", ROUND)
        root.attribs.setdefault("stroke-linejoin", ROUND)
        quick = not drawing.debug and drawing.profile == "full"
        self._path: type[Path] = _QuickPath if quick else Path
        self._circle: type[Circle] = _QuickCircle if quick else Circle
        self._rect: type[Rect] = _QuickRect if quick else Rect
        self._group: type[Group] = _QuickGroup if quick else Group
        self._use: type[Use] = _QuickUse if quick else Use
        self._text: type[Text] = _QuickText if quick else Text
        self.palette = palette
        self.texts: list[str] = []
        self.warnings: list[str] = []
        self._ink = [math.inf, math.inf, -math.inf, -math.inf]
        # what was drawn, measured only when :attr:`ink` is asked for (most sheets print on
        # their own paper and never ask): (path data or points, pad), boxes, texts
        self._paths: list[tuple[str | tuple[Point, ...], float]] = []
        self._texts: list[tuple[str, Point, float, str, bool, float]] = []
        self._paints: dict[tuple, dict] = {}  # _paint's answers: a sheet uses a few dozen
        # drawings defined once and used again (:meth:`reused`): key -> (href, ink box, texts)
        self._defined: dict[Hashable, tuple[str, Bounds | None, list[str]]] = {}
        self._defs: Defs | None = None

    @property
    def ink(self) -> Bounds | None:
        """The bounding box of what shows on paper (see the class), ``None`` before anything."""
        for shape, pad in self._paths:
            if isinstance(shape, str):
                numbers = [float(number) for number in _NUMBER.findall(shape)]
                self._extend_ink(numbers[0::2], numbers[1::2], pad)
            else:
                self._extend_ink([x for x, _ in shape], [y for _, y in shape], pad)
        for text in self._texts:
            self._text_ink(*text)
        self._paths, self._texts = [], []
        x0, y0, x1, y1 = self._ink
        return None if x0 > x1 else (x0, y0, x1, y1)

    def _extend_ink(self, xs: Sequence[float], ys: Sequence[float], pad: float = 0.0) -> None:
        if not xs or not ys:
            return
        box = self._ink
        low, high = min(xs) - pad, max(xs) + pad
        if low < box[0]:
            box[0] = low
        if high > box[2]:
            box[2] = high
        low, high = min(ys) - pad, max(ys) + pad
        if low < box[1]:
            box[1] = low
        if high > box[3]:
            box[3] = high

    def _ink_pad(self, stroke: str | None, width: float, fill: str | None) -> float | None:
        """How far a shape's ink reaches past its geometry (half its stroke), or ``None`` when
        it does not show on paper."""
        if stroke and stroke != "none":
            return style.stroke(width) / 2
        if fill and fill != "none" and fill.lower() != self.palette.paper.lower():
            return 0.0
        return None

    # structure ------------------------------------------------------------------------------
    def group(
        self,
        kind: str | None = None,
        parent: Group | None = None,
        css_class: str | None = None,
        element_id: str | None = None,
        transform: str | None = None,
    ) -> Group:
        """A new group (``<g>``) with ``class``/``data-kind`` naming what it holds."""
        group = self._group(factory=self.drawing)
        self._tag(group, kind, css_class, element_id)
        if transform:
            group["transform"] = transform
        (parent if parent is not None else self.root).add(group)
        return group

    def _tag(self, item, kind: str | None, css_class: str | None, element_id: str | None = None):
        classes = " ".join(filter(None, [css_class, kind]))
        if classes:
            item["class"] = classes
        if kind:
            item.attribs["data-kind"] = kind
        if element_id:
            item.attribs["data-id"] = printable_text(str(element_id))
        return item

    def _add(self, item, parent: Group | None, kind: str | None, css_class: str | None):
        self._tag(item, kind, css_class)
        (parent if parent is not None else self.root).add(item)
        return item

    def reused(
        self,
        key: Hashable,
        at: Point,
        parent: Group,
        draw: Callable[[Group, Point], object],
    ) -> Use:
        """What ``draw(group, origin)`` draws, placed with ``origin`` at ``at`` (mm), defined once
        per ``key`` and used again: the first call draws it with its origin at ``(0, 0)`` into a
        ``<g id="glyph-N">`` in a ``<defs>`` first in :attr:`root`; every call adds to ``parent``
        a ``<use xlink:href="#glyph-N" x=... y=...>``. Qt (PDF, PNG) and rsvg-convert draw a use
        pixel for pixel as its shapes in a group translated to ``at``, and but for anti-aliasing
        of a few edge pixels as the shapes drawn in place (``tests/test_svg_reuse.py``). ``key``
        must name everything the drawing depends on besides its position (kind, size, rotation,
        colours, letters); the palette is added to it. The definition's shapes are kept for the
        next sheets (:data:`_DEFINITIONS`). The use counts in :attr:`ink` and :attr:`texts` as
        its shapes would. A definition's id is a digest of ``key`` and the palette: defined once per
        svgwrite document (canvases sharing one share it), and the same id in two files is the
        same drawing."""
        known = self._defined.get(key)
        if known is None:
            known = self._define(key, draw)
        href, box, texts = known
        item = self._use(href, factory=self.drawing)
        item.attribs["x"], item.attribs["y"] = fmt(at[0]), fmt(at[1])
        parent.add(item)
        if box is not None:
            x0, y0, x1, y1 = box
            self._paths.append((((x0 + at[0], y0 + at[1]), (x1 + at[0], y1 + at[1])), 0.0))
        self.texts.extend(texts)
        return item

    def _define(self, key: Hashable, draw: Callable[[Group, Point], object]) -> tuple[str, Bounds | None, list[str]]:
        shared = _DEFINITIONS.get((key, self.palette))
        if shared is None:
            shared = self._draw_definition(key, draw)
        children, box, texts, xml, ident, text = shared
        defined: set[str] = self.drawing.__dict__.setdefault("_inkcrawl_glyph_ids", set())
        if ident not in defined:  # once a document (canvases sharing one, as a page of cards, share it)
            if self._defs is None:
                self._defs = Defs(factory=self.drawing)
                self.root.elements.insert(0, self._defs)
            group = _Definition(children, xml, text, factory=self.drawing)
            group.attribs["id"] = ident
            self._defs.add(group)
            defined.add(ident)
        known = (f"#{ident}", box, texts)
        self._defined[key] = known
        return known

    def _draw_definition(self, key: Hashable, draw: Callable[[Group, Point], object]) -> _Shared:
        """Draw a definition at the origin, its ink and texts measured on their own; kept in
        :data:`_DEFINITIONS` for the next sheets of this palette."""
        group = self._group(factory=self.drawing)
        kept = self._ink, self._paths, self._texts, self.texts
        self._ink, self._paths, self._texts, self.texts = [math.inf, math.inf, -math.inf, -math.inf], [], [], []
        try:
            draw(group, (0.0, 0.0))
            # the id comes from what is drawn (key and palette), so two sheets' ids agree only
            # where their glyphs do: sheets written to several files can be put in one page safely
            ident = "glyph-" + hashlib.sha1(repr((key, self.palette)).encode("utf-8")).hexdigest()[:12]
            shared: _Shared = (group.elements, self.ink, self.texts, [], ident, [])
        finally:
            self._ink, self._paths, self._texts, self.texts = kept
        if len(_DEFINITIONS) >= _MAX_DEFINITIONS:
            _DEFINITIONS.clear()
        _DEFINITIONS[(key, self.palette)] = shared
        return shared

    # shapes ---------------------------------------------------------------------------------
    def _paint(
        self,
        stroke: str | None,
        width: float,
        fill: str | None,
        dash: Sequence[float] | None = None,
        fill_opacity: float | None = None,
        linecap: str = "round",
        linejoin: str = "round",
    ) -> dict:
        """The paint attributes of a shape (a shared dict: copy it, never change it)."""
        key = (stroke, width, fill, tuple(dash) if dash else None, fill_opacity, linecap, linejoin)
        attrs = self._paints.get(key)
        if attrs is None:
            attrs = self._paints[key] = self._new_paint(stroke, width, fill, dash, fill_opacity, linecap, linejoin)
        return attrs

    def _new_paint(
        self,
        stroke: str | None,
        width: float,
        fill: str | None,
        dash: Sequence[float] | None,
        fill_opacity: float | None,
        linecap: str,
        linejoin: str,
    ) -> dict:
        # no fill and no stroke are inherited from the canvas's root group (see __init__)
        attrs = {}
        if fill and fill != "none":
            attrs["fill"] = fill
        if stroke and stroke != "none":
            attrs["stroke"] = stroke
        if fill and not stroke:
            # Qt's SVG renderer gives a <path> with stroke="none" a 1-unit outline in its fill
            # colour when it writes a PDF (not when it rasterises): 0.5 mm more ink on every side
            # of a fill-only path. A zero stroke width stops it; every other reader draws the same.
            attrs["stroke-width"] = "0"
        if stroke:
            attrs["stroke-width"] = fmt(style.stroke(width))
            # round caps and joins are inherited from the canvas's root group (see __init__)
            if linecap != ROUND:
                attrs["stroke-linecap"] = linecap
            if linejoin != ROUND:
                attrs["stroke-linejoin"] = linejoin
        if dash:
            attrs["stroke-dasharray"] = " ".join(fmt(d) for d in dash)
        if fill_opacity is not None and fill:
            # a solid tint instead of transparency: Qt's PDF engine writes translucent shapes
            # slowly and verbosely, and on paper a light tint prints the same
            attrs["fill"] = blend(fill, self.palette.paper, fill_opacity)
        return attrs

    def path(
        self,
        d: str,
        *,
        stroke: str | None = None,
        width: float = style.GLYPH_MM,
        fill: str | None = None,
        parent: Group | None = None,
        kind: str | None = None,
        css_class: str | None = None,
        dash: Sequence[float] | None = None,
        fill_opacity: float | None = None,
        linecap: str = "round",
        linejoin: str = "round",
        points: Sequence[Point] | None = None,
    ):
        """A ``<path>`` with SVG path data ``d`` (in mm): absolute commands whose numbers are
        all ``x y`` pairs (``M L Q C Z``, as :func:`path_data` and the glyphs write them).
        ``points``, when given, are the path's points (its ink is measured from them rather
        than from ``d``)."""
        item = self._path(d, factory=self.drawing)
        item.attribs.update(self._paint(stroke, width, fill, dash, fill_opacity, linecap, linejoin))
        pad = self._ink_pad(stroke, width, fill)
        if pad is not None:
            self._paths.append((d if points is None else tuple(points), pad))
        return self._add(item, parent, kind, css_class)

    def polyline(self, points: Sequence[Point], *, closed: bool = False, **kwargs):
        """A polyline or closed polygon as a path; keyword arguments as :meth:`path`."""
        return self.path(path_data(points, closed), points=points, **kwargs)

    def line(self, a: Point, b: Point, **kwargs):
        """A straight line from ``a`` to ``b``; keyword arguments as :meth:`path`."""
        return self.path(path_data([a, b]), points=(a, b), **kwargs)

    def circle(
        self,
        centre: Point,
        radius: float,
        *,
        stroke: str | None = None,
        width: float = style.GLYPH_MM,
        fill: str | None = None,
        parent: Group | None = None,
        kind: str | None = None,
        css_class: str | None = None,
        dash: Sequence[float] | None = None,
        fill_opacity: float | None = None,
    ):
        """A circle of ``radius`` mm around ``centre``."""
        item = self._circle(factory=self.drawing)
        item.attribs.update(self._paint(stroke, width, fill, dash, fill_opacity))
        item.attribs.update(cx=fmt(centre[0]), cy=fmt(centre[1]), r=fmt(radius))
        pad = self._ink_pad(stroke, width, fill)
        if pad is not None:
            corners = ((centre[0] - radius, centre[1] - radius), (centre[0] + radius, centre[1] + radius))
            self._paths.append((corners, pad))
        return self._add(item, parent, kind, css_class)

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        *,
        stroke: str | None = None,
        width: float = style.OUTLINE_MM,
        fill: str | None = None,
        radius: float = 0,
        parent: Group | None = None,
        kind: str | None = None,
        css_class: str | None = None,
        dash: Sequence[float] | None = None,
        fill_opacity: float | None = None,
    ):
        """An axis-aligned rectangle (top-left ``x, y``, size ``w`` x ``h`` mm, corner ``radius``)."""
        item = self._rect(factory=self.drawing)
        attrs = item.attribs
        attrs.update(self._paint(stroke, width, fill, dash, fill_opacity, linejoin="miter"))
        attrs.update(x=fmt(x), y=fmt(y), width=fmt(w), height=fmt(h))
        if radius:
            attrs["rx"] = attrs["ry"] = fmt(radius)
        pad = self._ink_pad(stroke, width, fill)
        if pad is not None:
            self._paths.append((((x, y), (x + w, y + h)), pad))
        return self._add(item, parent, kind, css_class)

    def image(
        self,
        href: str,
        x: float,
        y: float,
        w: float,
        h: float,
        *,
        parent: Group | None = None,
        kind: str | None = None,
    ):
        """A raster image (``href``, a ``data:`` URI of a PNG or JPEG) stretched over the box
        with top-left ``x, y`` and size ``w`` x ``h`` mm (``preserveAspectRatio="none"``). It
        counts in :attr:`ink` as its box."""
        item = Image(href, factory=self.drawing)
        item.attribs.update(x=fmt(x), y=fmt(y), width=fmt(w), height=fmt(h), preserveAspectRatio="none")
        self._paths.append((((x, y), (x + w, y + h)), 0.0))
        return self._add(item, parent, kind, None)

    def arrow(
        self,
        tail: Point,
        tip: Point,
        *,
        head_mm: float = 2.5,
        stroke: str | None = None,
        width: float = style.GLYPH_MM,
        parent: Group | None = None,
        kind: str | None = None,
        css_class: str | None = None,
    ):
        """A straight arrow with a filled triangular head drawn as a path (Qt ignores markers)."""
        colour = stroke or self.palette.ink
        group = self.group(kind, parent, css_class)
        angle = math.atan2(tip[1] - tail[1], tip[0] - tail[0])
        base = (tip[0] - head_mm * math.cos(angle), tip[1] - head_mm * math.sin(angle))
        self.line(tail, base, stroke=colour, width=width, parent=group)
        spread = head_mm * 0.55
        left = (base[0] + spread * math.sin(angle), base[1] - spread * math.cos(angle))
        right = (base[0] - spread * math.sin(angle), base[1] + spread * math.cos(angle))
        self.polyline([tip, left, right], closed=True, fill=colour, stroke=colour, width=style.FINE_MM, parent=group)
        return group

    # text -----------------------------------------------------------------------------------
    def text(
        self,
        content: str,
        at: Point,
        size_mm: float,
        *,
        anchor: str = "start",
        bold: bool = False,
        fill: str | None = None,
        parent: Group | None = None,
        kind: str | None = None,
        css_class: str | None = None,
        rotate_deg: float = 0,
    ):
        """Text with its baseline starting (``anchor`` ``start``), centred (``middle``) or ending
        (``end``) at ``at``, ``size_mm`` high (em size), in the shipped font. Control characters
        (which XML cannot hold and no font prints, see :mod:`inkcrawl.textchars`) are left out."""
        if isinstance(content, str):
            content = printable_text(content)
        self.texts.append(content)
        attrs = {"font-family": style.FONT_FAMILY, "font-size": fmt(size_mm), "fill": fill or self.palette.ink}
        if anchor != "start":
            attrs["text-anchor"] = anchor
        if bold:
            attrs["font-weight"] = "bold"
        item = self._text(content, factory=self.drawing)
        attrs["x"], attrs["y"] = fmt(at[0]), fmt(at[1])
        item.attribs.update(attrs)
        if rotate_deg:
            item["transform"] = f"rotate({fmt(rotate_deg)} {fmt(at[0])} {fmt(at[1])})"
        if content.strip():
            self._texts.append((content, at, size_mm, anchor, bold, rotate_deg))
        return self._add(item, parent, kind, css_class)

    def _text_ink(self, content: str, at: Point, size_mm: float, anchor: str, bold: bool, rotate_deg: float) -> None:
        width = text_width_mm(content, size_mm, bold)
        left = {"middle": -width / 2, "end": -width}.get(anchor, 0.0)
        corners = [(left + dx, dy) for dx in (0.0, width) for dy in (-ASCENT_EM * size_mm, DESCENT_EM * size_mm)]
        cos, sin = math.cos(math.radians(rotate_deg)), math.sin(math.radians(rotate_deg))
        points = [(at[0] + x * cos - y * sin, at[1] + x * sin + y * cos) for x, y in corners]
        self._extend_ink([x for x, _ in points], [y for _, y in points])

    def write_in_box(
        self, x: float, y: float, w: float, h: float, *, parent: Group | None = None, kind: str | None = "write-in"
    ):
        """An empty box for players to write in (thin ink outline, white inside)."""
        return self.rect(
            x,
            y,
            w,
            h,
            stroke=self.palette.ink,
            width=style.OUTLINE_MM,
            fill=self.palette.paper,
            radius=0.8,
            parent=parent,
            kind=kind,
        )


def wrap_text(text: str, width_mm: float, size_mm: float, bold: bool = False) -> list[str]:
    """Break ``text`` into lines no wider than ``width_mm`` at ``size_mm`` in the shipped font.

    Breaks at spaces (not at no-break spaces); a word wider than the line is broken between
    characters, so nothing ever runs past ``width_mm``. Returns at least one line. Cached (a
    sheet tries its footer texts at several sizes and widths; a pack's sheets share them).
    """
    return list(_wrapped(text, width_mm, size_mm, bold))


@functools.lru_cache(maxsize=2048)
def _wrapped(text: str, width_mm: float, size_mm: float, bold: bool) -> tuple[str, ...]:
    lines, current = [], ""
    for word in (w for w in text.split(" ") if w):
        candidate = f"{current} {word}".strip()
        if text_width_mm(candidate, size_mm, bold) <= width_mm:
            current = candidate
            continue
        if current:
            lines.append(current)
            current = ""
        while text_width_mm(word, size_mm, bold) > width_mm and len(word) > 1:
            cut = len(word) - 1
            while cut > 1 and text_width_mm(word[:cut], size_mm, bold) > width_mm:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current:
        lines.append(current)
    return tuple(lines) or ("",)


def all_points(groups: Iterable[Sequence[Point]]) -> list[Point]:
    """Every point of several polylines in one list."""
    return [point for group in groups for point in group]
