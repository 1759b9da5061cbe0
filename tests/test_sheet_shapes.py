"""Fewer shapes for the same printed sheet (issue #15, Speed).

Qt's time to put a sheet in a PDF grows with the shapes it draws, and svgwrite's and
ElementTree's with the elements written. These tests hold the ways the sheets save both without
changing what prints: a circle as path data that Qt draws as it draws a ``<circle>``, glyphs
that draw no shape a later one hides, and a glyph definition's XML made once for every page of
an export.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import svgwrite
from conftest import PACKS
from pictures import pixels
from svg_tree import SVG_NS

from exporters.canvas import SheetCanvas, circle_data, clear_definitions, svg_text
from exporters.pages import PageOptions, new_page_drawing, sheet_page
from exporters.style import palette
from inkcrawl.loading import open_dungeons


def test_circle_data_is_four_quarter_arcs_from_the_top():
    """Centre (10, 20), radius 2: the quarter arcs' control points lie 2 * 0.55228 = 1.10457 mm
    from their ends, along the tangents (written with 3 decimals)."""
    assert circle_data((10, 20), 2) == (
        "M10 18 C11.105 18 12 18.895 12 20 C12 21.105 11.105 22 10 22 "
        "C8.895 22 8 21.105 8 20 C8 18.895 8.895 18 10 18 Z"
    )


def test_circle_data_prints_as_the_circle():
    """Qt draws the path of :func:`circle_data` as it draws a ``<circle>``: at 600 dpi no pixel
    of a 3 mm dot and a 5 mm ring differs by more than anti-aliasing does."""
    from exporters.qt import svg_to_png

    def picture(as_path: bool) -> np.ndarray:
        drawing = new_page_drawing(20, 20)
        root = drawing.g()
        drawing.add(root)
        canvas = SheetCanvas(drawing, root, palette(False))
        for centre, radius, paint in (
            ((6, 6), 1.5, {"fill": "#1b1b1b"}),
            ((12, 12), 5, {"stroke": "#1b1b1b", "width": 0.4}),
        ):
            if as_path:
                canvas.path(circle_data(centre, radius), **paint)
            else:
                canvas.circle(centre, radius, **paint)
        return pixels(svg_to_png(svg_text(drawing), 20, 20, 600)).astype(np.int16)

    circle, path = picture(False), picture(True)
    assert (circle < 128).sum() > 10_000  # something was drawn: about 25 mm2 of dot and ring
    delta = np.abs(circle - path).max(axis=2)
    assert delta.max() <= 64
    assert (delta > 16).sum() <= 40  # a few edge pixels out of some 18 000 inked


def _bundled():
    return open_dungeons([str(p) for p in sorted(PACKS.iterdir())]).dungeons


@pytest.mark.parametrize("grayscale", [False, True])
def test_no_glyph_draws_a_shape_the_next_one_hides(grayscale):
    """In no glyph definition of a bundled sheet is a path drawn again with a fill: the first
    copy (a paper underlay, say) would be hidden by the second, since the canvas turns a
    ``fill_opacity`` into a solid tint. (A fill drawn first and its outline last, with other
    shapes between them, is not such a pair: the outline has no fill.)"""
    hidden = []
    for opened in _bundled():
        root = ET.fromstring(sheet_page(opened.dungeon, opened.ruleset, PageOptions(grayscale=grayscale)).svg)
        for definition in root.iter(f"{SVG_NS}g"):
            if not (definition.get("id") or "").startswith("glyph-"):
                continue
            drawn: dict[str, ET.Element] = {}
            for path in definition.iter(f"{SVG_NS}path"):
                earlier = drawn.get(path.get("d"))
                # a shape's paint as SVG reads it: no fill (the canvas's root says none) and no
                # stroke are inherited, not written on the shape
                if (
                    earlier is not None
                    and earlier.get("stroke", "none") == "none"
                    and path.get("fill", "none") != "none"
                ):
                    hidden.append((opened.dungeon.id, definition.get("id"), path.get("d")[:40]))
                drawn[path.get("d")] = path
    assert not hidden


def test_a_definition_s_xml_is_made_once_for_every_page():
    """Two pages using the same glyph hold the very same ElementTree elements for its shapes
    (made when the first page is written), and each page's SVG is what it was without sharing."""
    clear_definitions()
    pages = []
    for _ in range(2):
        drawing = svgwrite.Drawing(debug=False)
        root = drawing.g()
        drawing.add(root)
        canvas = SheetCanvas(drawing, root, palette(False))

        def draw(group, origin, canvas=canvas):
            canvas.circle(origin, 2, fill="#1b1b1b", parent=group)
            canvas.line(origin, (origin[0] + 3, origin[1]), stroke="#1b1b1b", parent=group)

        canvas.reused("dot-and-dash", (5, 5), root, draw)
        pages.append(drawing)
    first, second = (page.get_xml() for page in pages)
    shapes = [tree.find("g/defs/g") for tree in (first, second)]
    assert len(shapes[0]) == 2 and all(a is b for a, b in zip(shapes[0], shapes[1]))
    assert [child.tag for child in shapes[0]] == ["circle", "path"]
    assert svg_text(pages[0]) == svg_text(pages[1])
    clear_definitions()
