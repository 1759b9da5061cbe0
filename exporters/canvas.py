"""A drawing surface in sheet millimetres on top of svgwrite, used by every sheet renderer.

The SVG must draw the same in Qt's SVG renderer (used for PDF and PNG) as in a browser, so the
canvas only offers what Qt draws (DESIGN.md "Exporters"): no ``clip-path``, no ``opacity``
(a ``fill_opacity`` argument becomes a solid tint over the paper colour, which prints the same
and keeps PDFs small), no markers (arrowheads are paths). Every line width is clamped to
:data:`exporters.style.MIN_LINE_MM`. Every drawn thing can carry ``class`` and ``data-kind``
attributes naming what it shows (``data-kind="monster"``), so tests and tools can find the
element kinds in the SVG.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import svgwrite
from svgwrite.container import Group

from exporters import style
from inkcrawl.textchars import printable_text
from inkcrawl.textmetrics import text_width_mm

Point = tuple[float, float]


def fmt(value: float) -> str:
    """A coordinate as SVG text: at most 3 decimals, no trailing zeros."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def path_data(points: Sequence[Point], closed: bool = False) -> str:
    """SVG path data for a polyline (``M x y L x y ...``), closed with ``Z`` when asked."""
    if not points:
        return ""
    parts = [f"M{fmt(points[0][0])} {fmt(points[0][1])}"]
    parts += [f"L{fmt(x)} {fmt(y)}" for x, y in points[1:]]
    if closed:
        parts.append("Z")
    return " ".join(parts)


def svg_text(drawing: svgwrite.Drawing) -> str:
    """The SVG text of ``drawing``, always well-formed XML: the characters XML 1.0 cannot hold
    (and the other control characters validation refuses, C007) are left out, even when a file
    with such text is exported with ``--force``. :meth:`SheetCanvas.text` already drops them
    from the text it draws; this also covers attribute values such as ``data-id``."""
    return printable_text(drawing.tostring())


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


def blend(colour: str, background: str, opacity: float) -> str:
    """``colour`` at ``opacity`` over ``background`` as one solid ``#rrggbb``."""
    front = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    back = [int(background[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(f * opacity + b * (1 - opacity)) for f, b in zip(front, back)]
    return "#" + "".join(f"{channel:02x}" for channel in mixed)


class SheetCanvas:
    """Draws into an SVG group whose user unit is one millimetre of the sheet.

    ``drawing`` is the svgwrite document, ``root`` the group everything of this sheet goes in,
    ``palette`` the colours (:func:`exporters.style.palette`). ``texts`` collects every string
    drawn, so the caller can warn about characters the shipped font cannot draw; ``warnings``
    collects what a renderer had to adapt (a title shortened to fit, for instance).
    """

    def __init__(self, drawing: svgwrite.Drawing, root: Group, palette: style.Palette):
        self.drawing = drawing
        self.root = root
        self.palette = palette
        self.texts: list[str] = []
        self.warnings: list[str] = []

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
        group = self.drawing.g()
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
        attrs = {"fill": fill or "none", "stroke": stroke or "none"}
        if stroke:
            attrs["stroke-width"] = fmt(style.stroke(width))
            attrs["stroke-linecap"] = linecap
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
    ):
        """A ``<path>`` with SVG path data ``d`` (in mm)."""
        item = self.drawing.path(d=d, **self._paint(stroke, width, fill, dash, fill_opacity, linecap, linejoin))
        return self._add(item, parent, kind, css_class)

    def polyline(self, points: Sequence[Point], *, closed: bool = False, **kwargs):
        """A polyline or closed polygon as a path; keyword arguments as :meth:`path`."""
        return self.path(path_data(points, closed), **kwargs)

    def line(self, a: Point, b: Point, **kwargs):
        """A straight line from ``a`` to ``b``; keyword arguments as :meth:`path`."""
        return self.path(path_data([a, b]), **kwargs)

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
        item = self.drawing.circle(
            center=(fmt(centre[0]), fmt(centre[1])),
            r=fmt(radius),
            **self._paint(stroke, width, fill, dash, fill_opacity),
        )
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
        extra = {"rx": fmt(radius), "ry": fmt(radius)} if radius else {}
        item = self.drawing.rect(
            insert=(fmt(x), fmt(y)),
            size=(fmt(w), fmt(h)),
            **self._paint(stroke, width, fill, dash, fill_opacity, linejoin="miter"),
            **extra,
        )
        return self._add(item, parent, kind, css_class)

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
        item = self.drawing.text(content, insert=(fmt(at[0]), fmt(at[1])), **attrs)
        if rotate_deg:
            item["transform"] = f"rotate({fmt(rotate_deg)} {fmt(at[0])} {fmt(at[1])})"
        return self._add(item, parent, kind, css_class)

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
    characters, so nothing ever runs past ``width_mm``. Returns at least one line.
    """
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
    return lines or [""]


def all_points(groups: Iterable[Sequence[Point]]) -> list[Point]:
    """Every point of several polylines in one list."""
    return [point for group in groups for point in group]
