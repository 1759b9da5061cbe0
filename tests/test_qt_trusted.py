"""Qt renders the SVGs inkcrawl writes as trusted (``exporters.qt.qt_svg_renderer``): it does not
measure each shape to skip those beyond its raster limit, so a shape of any size is drawn,
clipped to the page, in the PDF and in a PNG alike."""

from __future__ import annotations

import re
import zlib

import pytest
from PySide6 import QtSvg
from PySide6.QtGui import QImage

from exporters.qt import ensure_app, pdf_bytes, qt_svg_renderer, svg_to_png

#: A red rectangle two million kilometres wide, under a blue one of 4 x 4 mm in the top-left
#: corner of a 20 x 20 mm page. Qt skips a shape this large unless the source is trusted.
HUGE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="20mm" viewBox="0 0 20 20">'
    '<rect x="-1e12" y="-1e12" width="2e12" height="2e12" fill="#ff0000" stroke-width="0"/>'
    '<rect x="0" y="0" width="4" height="4" fill="#0000ff" stroke-width="0"/></svg>'
)


class _Page:
    def __init__(self, svg: str):
        self.svg, self.width_mm, self.height_mm = svg, 20.0, 20.0


def test_the_renderer_trusts_the_svg():
    ensure_app()
    if not hasattr(QtSvg.QtSvg.Option, "AssumeTrustedSource"):
        pytest.skip("this Qt has no AssumeTrustedSource (before 6.8)")
    renderer = qt_svg_renderer(HUGE)
    assert renderer.isValid()
    assert renderer.options() & QtSvg.QtSvg.Option.AssumeTrustedSource


def test_a_shape_beyond_the_raster_limit_is_drawn_in_a_png():
    image = QImage.fromData(svg_to_png(HUGE, 20, 20, dpi=127))  # 100 x 100 pixels
    assert image.width() == image.height() == 100
    assert image.pixelColor(50, 50).name() == "#ff0000"  # the huge red one, clipped to the page
    assert image.pixelColor(10, 10).name() == "#0000ff"  # the small one, drawn over it


def test_a_shape_beyond_the_raster_limit_is_drawn_in_a_pdf():
    data, count = pdf_bytes([_Page(HUGE)])
    assert count == 1
    content = ""
    for stream in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
        try:
            content = zlib.decompress(stream.group(1)).decode("latin-1")
        except zlib.error:
            continue
        if " scn" in content:
            break
    # both fills, red first: the colour is set (scn), then a path filled
    fills = re.findall(r"([0-9.]+ [0-9.]+ [0-9.]+) scn", content)
    assert fills[-2:] == ["1 0 0", "0 0 1"], content
