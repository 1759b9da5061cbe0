"""A fill-only shape prints at its own outline in a PDF. Qt's SVG renderer gives a ``<path>``
whose stroke is ``none`` an outline one user unit (1 mm on a sheet) wide in its fill colour when it
writes a PDF, though not when it rasterises: 0.5 mm of extra ink round every fill-only path (eyes
merged into blobs, halos round glyphs). The canvas writes such paths with a zero stroke width,
which Qt honours and every other reader draws the same."""

from __future__ import annotations

import re
import zlib

import svgwrite

from exporters.canvas import SheetCanvas
from exporters.qt import pdf_bytes
from exporters.style import palette


class _Page:
    def __init__(self, svg: str):
        self.svg, self.width_mm, self.height_mm = svg, 20.0, 20.0


def _content(svg: str) -> str:
    """The page's drawing operators, decompressed."""
    data, _ = pdf_bytes([_Page(svg)])
    for stream in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
        try:
            return zlib.decompress(stream.group(1)).decode("latin-1")
        except zlib.error:
            continue
    raise AssertionError("no content stream")


def test_a_fill_only_path_prints_its_shape_and_no_outline():
    drawing = svgwrite.Drawing(size=("20mm", "20mm"), debug=False)
    drawing.viewbox(0, 0, 20, 20)
    canvas = SheetCanvas(drawing, drawing.g(), palette())
    canvas.path("M 5 5 L 15 5 L 15 15 Z", fill="#ff0000", parent=canvas.root)
    drawing.add(canvas.root)
    ops = _content(drawing.tostring())
    # one triangle: a moveto and three lineto's (the closing one back to the start), filled; the
    # outline Qt added was a ring of a further nine points round it
    assert ops.count(" m\n") == 1 and ops.count(" l\n") == 3, ops
