"""Glyphs defined once per sheet and placed with ``<use>``.

A sheet's element glyphs are drawn once in ``<defs>`` and placed with ``<use x y>``
(:meth:`exporters.canvas.SheetCanvas.reused`). These tests hold that against what it replaces:
the glyphs drawn in place, rendered by Qt (which makes the PDF and PNG) and by rsvg-convert.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from unittest import mock

import numpy as np
import pytest
import svgwrite
from conftest import PACKS
from svg_tree import SVG_NS, XLINK_HREF, sheet_tree

from exporters import canvas as canvas_module
from exporters.canvas import SheetCanvas, svg_text
from exporters.pages import PageOptions, sheet_page
from exporters.sheet import render_sheet
from exporters.style import palette
from inkcrawl.loading import open_dungeons
from inkcrawl.textchars import printable_text

LINE_PACK = PACKS / "lantern-depths"
GRID_PACK = PACKS / "ember-halls"


def _in_place(self, key, at, parent, draw):
    """:meth:`SheetCanvas.reused` as the sheets once drew: the shapes at their place."""
    draw(parent, at)


def _sheets():
    return open_dungeons([str(LINE_PACK), str(GRID_PACK)]).dungeons


def _both(opened, **options):
    """``(page with uses, the same page with every glyph drawn in place)``."""
    used = render_sheet(opened.dungeon, opened.ruleset, **options)
    with mock.patch.object(SheetCanvas, "reused", _in_place):
        in_place = render_sheet(opened.dungeon, opened.ruleset, **options)
    return used, in_place


def _translated(svg: str) -> str:
    """``svg`` with every ``<use>`` replaced by ``<g transform="translate(x y)">`` holding the
    definition's shapes unchanged: what SVG says a use draws."""
    ET.register_namespace("", SVG_NS[1:-1])
    ET.register_namespace("xlink", XLINK_HREF[1:].split("}")[0])
    root = ET.fromstring(svg)
    definitions = {node.get("id"): node for node in root.iter() if node.get("id")}
    for parent in list(root.iter()):
        for index, child in enumerate(list(parent)):
            if child.tag == SVG_NS + "use":
                group = ET.Element(SVG_NS + "g", {"transform": f"translate({child.get('x')} {child.get('y')})"})
                group.extend(copy.deepcopy(list(definitions[child.get(XLINK_HREF)[1:]])))
                parent[index] = group
    return ET.tostring(root, encoding="unicode")


def _pixels(png: bytes) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = QImage.fromData(png).convertToFormat(QImage.Format.Format_RGBA8888)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].reshape(image.height(), image.width(), 4).astype(int)


def _qt_png(page, svg: str) -> np.ndarray:
    from exporters.qt import svg_to_png

    return _pixels(svg_to_png(svg, page.width_mm, page.height_mm, dpi=200))


def _assert_nearly_same(a: np.ndarray, b: np.ndarray, levels: int = 8, one_in: int = 5_000) -> None:
    """The same picture but for anti-aliasing: a use is placed at its ``x, y`` written to
    0.001 mm and its shapes at theirs, so an edge may move by up to 0.001 mm (0.008 px at
    200 dpi): edge pixels at most ``levels`` of 255 apart, at most one pixel in ``one_in``.
    Measured on the bundled sheets at 200 dpi: Qt 6 levels and 457 of A4's 3.9 million pixels;
    rsvg-convert 2.54, which places text to the subpixel, 16 levels and 1,614 pixels."""
    assert a.shape == b.shape
    differ = np.abs(a - b).max(axis=-1)
    assert differ.max() <= levels, f"a pixel differs by {differ.max()} levels"
    assert (differ > 0).sum() <= a.shape[0] * a.shape[1] // one_in, f"{(differ > 0).sum()} pixels differ"


def test_sheets_define_each_glyph_once_and_use_it():
    """Every use points at a definition of its own document; ids are unique; a definition is
    used at least once; a sheet drawing a glyph twice (same kind, size, rotation, letter)
    defines it once. The page keeps its element groups and their kinds."""
    most_uses = {}
    for opened in _sheets():
        page = render_sheet(opened.dungeon, opened.ruleset)
        root = ET.fromstring(page.svg)
        ids = [node.get("id") for node in root.iter() if node.get("id")]
        assert len(ids) == len(set(ids))
        uses = [node.get(XLINK_HREF) for node in root.iter(SVG_NS + "use")]
        assert uses, opened.dungeon.id
        assert {href[1:] for href in uses} == {i for i in ids if i.startswith("glyph-")}
        most_uses[opened.dungeon.family] = max(most_uses.get(opened.dungeon.family, 0), *Counter(uses).values())
    assert most_uses["line"] >= 2 and most_uses["grid"] >= 2  # both families draw a glyph twice
    # a grid sheet: one definition per kind and letter of its features (one size on a sheet)
    grid = next(o for o in _sheets() if o.dungeon.family == "grid")
    root = ET.fromstring(render_sheet(grid.dungeon, grid.ruleset).svg)
    features = {g.get("data-id"): g for g in root.iter(SVG_NS + "g") if g.get("data-id")}
    hrefs: dict[tuple, set[str]] = {}
    for feature in grid.dungeon.features:
        (use,) = list(features[feature.id])
        assert use.tag == SVG_NS + "use"
        hrefs.setdefault((feature.kind, feature.letter), set()).add(use.get(XLINK_HREF))
    assert len(hrefs) < len(grid.dungeon.features)  # some kind and letter drawn more than once
    assert all(len(used) == 1 for used in hrefs.values())
    assert len({href for used in hrefs.values() for href in used}) == len(hrefs)


@pytest.mark.parametrize("grayscale", [False, True], ids=["colour", "grayscale"])
def test_inlined_uses_give_the_sheet_drawn_in_place(grayscale):
    """Reading the uses back as shapes (:func:`svg_tree.inline_uses`) gives the sheet that drew
    every glyph in place: the same elements, attributes and texts, every coordinate within
    0.002 mm (the use's position, the shape's and their sum are each written to 0.001 mm)."""
    for opened in _sheets():
        used, in_place = _both(opened, grayscale=grayscale)
        a, b = sheet_tree(used.svg), ET.fromstring(in_place.svg)
        for parent in list(b.iter()):  # the drawing's own empty <defs />
            for child in list(parent):
                if child.tag == SVG_NS + "defs":
                    parent.remove(child)
        nodes_a, nodes_b = list(a.iter()), list(b.iter())
        assert len(nodes_a) == len(nodes_b), opened.dungeon.id
        for x, y in zip(nodes_a, nodes_b):
            assert x.tag == y.tag and (x.text or "") == (y.text or "")
            assert set(x.attrib) == set(y.attrib), (x.attrib, y.attrib)
            for name, value in x.attrib.items():
                numbers_x = re.findall(r"-?\d+\.?\d*", value)
                numbers_y = re.findall(r"-?\d+\.?\d*", y.get(name))
                assert re.sub(r"-?\d+\.?\d*", "#", value) == re.sub(r"-?\d+\.?\d*", "#", y.get(name))
                assert all(abs(float(p) - float(q)) <= 0.0021 for p, q in zip(numbers_x, numbers_y, strict=True))
        assert used.texts == in_place.texts
        assert used.warnings == in_place.warnings


def test_ink_counts_a_use_as_its_shapes():
    """A canvas's ink box is the same whether its glyphs are used or drawn in place (what
    fitting a sheet on other paper measures)."""
    from exporters.families import draw_sheet_into

    for opened in _sheets():
        boxes = []
        for reused in (SheetCanvas.reused, _in_place):
            with mock.patch.object(SheetCanvas, "reused", reused):
                drawing = svgwrite.Drawing(debug=False)
                canvas = SheetCanvas(drawing, drawing.g(), palette())
                draw_sheet_into(canvas, opened.dungeon, opened.ruleset)
                boxes.append(canvas.ink)
        assert boxes[0] == pytest.approx(boxes[1], abs=1e-9), opened.dungeon.id


def test_qt_draws_a_use_as_its_shapes():
    """Qt (the PDF and PNG renderer) draws a sheet with uses pixel for pixel as the same sheet
    with each use written as a translated group of its shapes, and as the sheet drawing its
    glyphs in place but for anti-aliasing of a few edge pixels (positions rounded apart)."""
    for opened in _sheets()[::2]:
        used, in_place = _both(opened)
        picture = _qt_png(used, used.svg)
        assert np.array_equal(picture, _qt_png(used, _translated(used.svg))), opened.dungeon.id
        _assert_nearly_same(picture, _qt_png(used, in_place.svg))


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert is not installed")
def test_rsvg_draws_a_use_as_its_shapes(tmp_path):
    """rsvg-convert (another SVG renderer, as a browser or a print shop's RIP would be) draws
    a sheet with uses pixel for pixel as the same sheet with each use written as a translated
    group of its shapes, and as the sheet drawing its glyphs in place but for anti-aliasing."""

    def rsvg(svg: str, name: str) -> np.ndarray:
        source = tmp_path / f"{name}.svg"
        source.write_text(svg, encoding="utf-8")
        out = tmp_path / f"{name}.png"
        subprocess.run(
            ["rsvg-convert", "--dpi-x", "200", "--dpi-y", "200", "-b", "white", "-o", str(out), str(source)],
            check=True,
            timeout=120,
        )
        return _pixels(out.read_bytes())

    for opened in _sheets()[::3]:  # line and grid sheets
        used, in_place = _both(opened)
        picture = rsvg(used.svg, "used")
        assert picture.shape[0] > 2000  # A4 at 200 dpi
        _assert_nearly_same(picture, rsvg(in_place.svg, "in-place"), levels=24, one_in=2_000)
        assert np.array_equal(picture, rsvg(_translated(used.svg), "translated"))


def test_definitions_are_shared_by_the_next_sheets_of_a_palette():
    """A 100-page export draws a glyph's shapes once: the next sheet's definition of the same
    glyph in the same palette holds the very same svgwrite elements, and a sheet in the
    grayscale palette gets its own."""
    canvas_module.clear_definitions()
    opened = _sheets()[0]
    first = sheet_page(opened.dungeon, opened.ruleset, PageOptions())
    held = dict(canvas_module._DEFINITIONS)
    assert held
    second = sheet_page(opened.dungeon, opened.ruleset, PageOptions())
    assert second.svg == first.svg
    assert all(canvas_module._DEFINITIONS[key] is shared for key, shared in held.items())
    sheet_page(opened.dungeon, opened.ruleset, PageOptions(grayscale=True))
    assert len(canvas_module._DEFINITIONS) == 2 * len(held)
    canvas_module.clear_definitions()
    assert sheet_page(opened.dungeon, opened.ruleset, PageOptions()).svg == first.svg


def test_canvases_sharing_a_document_keep_ids_unique():
    """Two canvases in one svgwrite document (as a page of cards has) share one definition of a
    glyph, however often each uses it: ids stay unique in the document."""
    drawing = svgwrite.Drawing(debug=False)
    canvases = []
    for _ in range(2):
        root = drawing.g()
        drawing.add(root)
        canvases.append(SheetCanvas(drawing, root, palette()))
    for canvas in canvases:
        for at in ((10, 10), (20, 30)):
            canvas.reused(
                "dot", at, canvas.root, lambda into, origin, c=canvas: c.circle(origin, 1, fill="#000000", parent=into)
            )
    root = ET.fromstring(svg_text(drawing))
    ids = [node.get("id") for node in root.iter() if node.get("id")]
    assert len(ids) == 1 and ids[0].startswith("glyph-")
    assert [node.get(XLINK_HREF) for node in root.iter(SVG_NS + "use")] == ["#" + ids[0]] * 4
    assert [(node.get("x"), node.get("y")) for node in root.iter(SVG_NS + "use")] == [("10", "10"), ("20", "30")] * 2
    # each canvas's ink: the dot (radius 1) around both places
    assert canvases[0].ink == pytest.approx((9, 9, 21, 31))


def test_glyph_ids_agree_across_sheets_only_where_the_glyphs_do():
    """Sheets exported to several files can be put in one page: an id names the same drawing in
    every sheet (a digest of the glyph's key and palette), and different drawings different ids."""
    texts = []
    for shape in ("dot", "dot", "ring"):
        drawing = svgwrite.Drawing(debug=False)
        root = drawing.g()
        drawing.add(root)
        canvas = SheetCanvas(drawing, root, palette())
        paint = {"stroke": "#000000"} if shape == "ring" else {"fill": "#000000"}
        canvas.reused(
            shape, (5, 5), root, lambda into, origin, c=canvas, p=paint: c.circle(origin, 1, parent=into, **p)
        )
        texts.append(svg_text(drawing))
    ids = [[n.get("id") for n in ET.fromstring(text).iter() if n.get("id")] for text in texts]
    assert ids[0] == ids[1] and ids[0] != ids[2]


def _plain_canvas(self, drawing, root, palette):
    """:class:`SheetCanvas` with svgwrite's own element classes (their ``get_xml``)."""
    _QUICK_INIT(self, drawing, root, palette)
    from svgwrite.container import Group, Use
    from svgwrite.path import Path
    from svgwrite.shapes import Circle, Rect
    from svgwrite.text import Text

    self._path, self._circle, self._rect, self._group, self._use, self._text = Path, Circle, Rect, Group, Use, Text


_QUICK_INIT = SheetCanvas.__init__


def _every_page_kind(ruleset) -> list[str]:
    from exporters.cards import card_pages, single_card_pages
    from exporters.paper import parse_paper

    options = PageOptions(bleed_mm=3, crop_marks=True)
    svgs = [sheet_page(o.dungeon, o.ruleset, options).svg for o in _sheets()]
    letter = PageOptions(paper=parse_paper("letter"), fit=True)
    svgs += [sheet_page(o.dungeon, o.ruleset, letter).svg for o in _sheets()[:2]]
    svgs += [page.svg for page in card_pages({"straight": 2, "corner": 1}, ruleset, options, backs=True)]
    svgs += [page.svg for page in single_card_pages({"corner": 1}, ruleset, options, (63, 88), "A pack")]
    return svgs


def _element_tree_text(drawing) -> str:
    """What svgwrite's own ``tostring`` writes: its element tree serialised by ElementTree."""
    return printable_text(ET.tostring(drawing.get_xml(), encoding="unicode"))


def test_the_quick_element_classes_write_what_svgwrite_writes():
    """The canvas's element classes skip svgwrite's per-attribute checks, and :func:`svg_text`
    writes them straight to text: every kind of page (sheets of both families with bleed and
    crop marks, on other paper, card pages and single cards) comes out byte for byte as
    svgwrite's own classes and ElementTree write it."""
    ruleset = next(o.ruleset for o in _sheets() if o.ruleset.family == "grid")
    canvas_module.clear_definitions()
    quick = _every_page_kind(ruleset)
    canvas_module.clear_definitions()
    with (
        mock.patch.object(SheetCanvas, "__init__", _plain_canvas),
        mock.patch("exporters.pages.svg_text", _element_tree_text),
        mock.patch("exporters.cards.svg_text", _element_tree_text),
    ):
        plain = _every_page_kind(ruleset)
    assert len(quick) == len(plain) > 10
    assert quick == plain
    assert any("<text" in svg and "<use" in svg and "<path" in svg and "<circle" in svg for svg in quick)


SHAPES = {SVG_NS + tag for tag in ("path", "rect", "circle")}


def _caps_on_every_shape(svg: str) -> str:
    """``svg`` with the paint a canvas's root group sets for what it holds (no fill, round caps
    and joins) written on every shape instead (definitions included), the groups' removed: what
    SVG's inheritance says the sheet draws."""
    ET.register_namespace("", SVG_NS[1:-1])
    ET.register_namespace("xlink", XLINK_HREF[1:].split("}")[0])
    root = ET.fromstring(svg)
    for node in root.iter():
        if node.tag == SVG_NS + "g":
            for name in ("fill", "stroke-linecap", "stroke-linejoin"):
                node.attrib.pop(name, None)
        elif node.tag in SHAPES:
            node.set("fill", node.get("fill", "none"))
            if node.get("stroke") not in (None, "none"):
                node.set("stroke-linecap", node.get("stroke-linecap", "round"))
                node.set("stroke-linejoin", node.get("stroke-linejoin", "round"))
    return ET.tostring(root, encoding="unicode")


def test_shapes_inherit_round_caps_and_joins_from_the_root():
    """No fill, round caps and round joins are said once on each canvas's root group: Qt draws
    the sheet pixel for pixel as with them on every shape, and a shape with other caps (butt,
    miter) or a fill keeps its own."""
    for opened in _sheets()[::2]:
        page = sheet_page(opened.dungeon, opened.ruleset, PageOptions(bleed_mm=3, crop_marks=True))
        root = ET.fromstring(page.svg)
        page_group = next(node for node in root.iter(SVG_NS + "g") if node.get("class") == "page")
        assert (page_group.get("stroke-linecap"), page_group.get("stroke-linejoin")) == ("round", "round")
        assert page_group.get("fill") == "none"
        assert not any(node.get("fill") == "none" for node in root.iter() if node.tag in SHAPES)
        caps = Counter(node.get("stroke-linecap") for node in root.iter() if node.tag != SVG_NS + "g")
        assert caps["round"] == 0 and caps["butt"] > 0  # crop marks are butt-capped
        expanded = _caps_on_every_shape(page.svg)
        assert expanded.count('stroke-linecap="round"') > 40 and expanded.count('fill="none"') > 40
        assert np.array_equal(_qt_png(page, page.svg), _qt_png(page, expanded)), opened.dungeon.id


def test_svg_text_escapes_as_element_tree_does():
    """Text and attribute values holding XML's special characters, tabs and line breaks are
    written as ElementTree writes them, and read back as drawn."""
    drawing = svgwrite.Drawing(size=("50mm", "50mm"), profile="full", debug=False)
    root = drawing.g()
    drawing.add(root)
    canvas = SheetCanvas(drawing, root, palette(False))
    odd = 'Fish & <Chips> "to go"\tnow\nthen\r'
    canvas.text(odd, (5, 5), 3)
    canvas.text("", (5, 9), 3)  # an empty text element
    group = canvas.group("room", element_id=odd)
    canvas.rect(1, 2, 3, 4, fill="#123456", parent=group, kind="loot")
    canvas.reused(("dot", 1), (10, 10), group, lambda g, at: canvas.circle(at, 1, fill="#000000", parent=g))
    text = svg_text(drawing)
    assert text == _element_tree_text(drawing)
    tree = ET.fromstring(text)
    texts = [node for node in tree.iter(SVG_NS + "text")]
    assert texts[0].text == 'Fish & <Chips> "to go"\tnow\nthen'  # the canvas drops the carriage return
    assert texts[1].text is None
    assert any(node.get("data-id") == 'Fish & <Chips> "to go"\tnow\nthen' for node in tree.iter())


@pytest.mark.parametrize("profile, debug", [("tiny", False), ("full", True)])
def test_svg_text_of_other_drawings_is_what_element_tree_writes(profile, debug):
    """A drawing svgwrite checks (``debug``) or whose numbers it rounds (the tiny profile) is
    written through ElementTree, as svgwrite writes it."""
    drawing = svgwrite.Drawing(size=(10.123456789, 5), profile=profile, debug=debug)
    group = drawing.g()
    group.attribs["opacity"] = 0.123456789
    drawing.add(group)
    canvas = SheetCanvas(drawing, group, palette(False))
    canvas.rect(1, 2, 3, 4, fill="#123456")
    assert svg_text(drawing) == _element_tree_text(drawing)
