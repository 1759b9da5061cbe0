"""The ink silhouettes of inkcrawl.ink against the glyphs the exporter prints.

Each glyph is drawn with the exporter's own code (``exporters.line_glyphs`` on a ``SheetCanvas``, as
``exporters.line_sheet`` draws elements), rasterised by Qt on white, and its non-white pixels (holes
filled) compared with the silhouette sampled at the same pixel centres: wherever the two disagree, the
pixel lies within 0.1 mm (plus half a pixel) of the silhouette's boundary.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import shapely
from shapely.affinity import rotate
from shapely.geometry import Point, Polygon

from exporters import line_glyphs, style
from exporters.canvas import SheetCanvas
from exporters.pages import new_page_drawing
from inkcrawl import glyph_shapes as gs
from inkcrawl import ink, shapes
from inkcrawl.ink import glyph_silhouette
from inkcrawl.rulesets import bundled_rulesets

RULESET = bundled_rulesets()["line-classic"]
#: Raster resolution of the comparison, pixels per mm.
PX_PER_MM = 24
#: The claim: the silhouette lies within this distance of the printed ink, mm.
TOLERANCE_MM = 0.1
#: A key colour the ruleset does not know prints as a lettered badge.
UNKNOWN_COLOUR = "violet"
#: Below this size the lettered badge's letter (paper white, at least 2 mm high) is wider than the
#: badge and cuts its ring; glyph text is not part of the silhouette, so those renders leave it out.
LETTER_FITS_BADGE_MM = 8.0


def _cases() -> list[tuple[str, str, dict, dict]]:
    """``(id, kind, glyph options, silhouette options)`` for every line-classic kind with a glyph,
    every spell and treasure variant (and an unknown one), every key shape and the lettered key,
    the generic glyph and the stopwatch."""
    cases = []
    key_shapes = {c["id"]: c.get("shape", "circle") for c in RULESET.data["keys"]["colours"]}
    for kind in RULESET.elements:
        if kind in ink.NO_GLYPH_KINDS:
            continue
        if kind in ("spell", "treasure"):
            known = shapes.SPELL_VARIANTS if kind == "spell" else shapes.TREASURE_VARIANTS
            for variant in (*known, "unheard-of"):
                cases.append((f"{kind}-{variant}", kind, {"variant": variant}, {"variant": variant}))
        elif kind == "key":
            for colour, shape in key_shapes.items():
                cases.append((f"key-{shape}", kind, {"colour": colour}, {"key_shape": shape}))
            cases.append(("key-letter", kind, {"colour": UNKNOWN_COLOUR}, {"key_shape": None}))
        elif kind == "orb":
            cases += [(f"orb-{colour}", kind, {"colour": colour}, {}) for colour in ("blue", "pink")]
        elif kind == "artifact_stone":
            cases.append((kind, kind, {"number": 7}, {}))
        elif kind in ("portal_entry", "portal_exit"):
            cases.append((kind, kind, {"channel": "red"}, {}))
        else:
            cases.append((kind, kind, {}, {}))
    cases += [("generic", "fountain", {}, {}), ("timer", "timer", {}, {})]
    return cases


CASES = _cases()


# -- drawing and rasterising --------------------------------------------------------------------


def _glyph_svg(kind: str, size_mm: float, rotation_deg: float, options: dict) -> tuple[str, tuple, int]:
    """``(svg, centre, side)``: the glyph alone on a ``side`` mm square page, drawn as the line sheet draws it."""
    side = math.ceil(size_mm + 4)
    drawing = new_page_drawing(side, side)
    root = drawing.g()
    drawing.add(root)
    canvas = SheetCanvas(drawing, root, style.palette())
    group = canvas.group(kind, root, css_class="element")
    at = (side / 2, side / 2)
    glyph_style = line_glyphs.GlyphStyle.for_sheet(RULESET.data, [options.get("channel", "red")])
    known = {"spell": shapes.SPELL_VARIANTS, "treasure": shapes.TREASURE_VARIANTS}
    if kind in known and options.get("variant") not in known[kind]:
        line_glyphs.generic(canvas, group, at, size_mm, rotation_deg, kind=kind)
    else:
        line_glyphs.draw_glyph(canvas, group, kind, at, size_mm, rotation_deg, glyph_style=glyph_style, **options)
    return drawing.tostring(), at, side


def _ink_mask(svg: str, side_mm: int) -> np.ndarray:
    """Non-white pixels of ``svg`` rendered by Qt at :data:`PX_PER_MM` on white (rows = y)."""
    from PySide6.QtCore import QByteArray, QRectF
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    from exporters.qt import ensure_app

    ensure_app()
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    assert renderer.isValid()
    px = side_mm * PX_PER_MM
    image = QImage(px, px, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter, QRectF(0, 0, px, px))
    painter.end()
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(px, image.bytesPerLine())[:, : px * 4]
    return (pixels.reshape(px, px, 4)[:, :, :3] != 255).any(axis=2)


def _spread_along_rows(reached: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Every horizontal run of ``free`` pixels holding a ``reached`` pixel, reached whole."""
    left = np.zeros_like(free)
    left[:, 1:] = free[:, :-1]
    run = np.cumsum((free & ~left).ravel()).reshape(free.shape) * free  # run number, 0 off the free pixels
    hit = np.zeros(run.max() + 1, bool)
    hit[run[reached & free]] = True
    hit[0] = False
    return hit[run]


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """``mask`` with every region of unset pixels not 4-connected to the border set."""
    free = ~mask
    outside = np.zeros_like(free)
    for edge in (np.s_[0, :], np.s_[-1, :], np.s_[:, 0], np.s_[:, -1]):
        outside[edge] = free[edge]
    while True:
        grown = _spread_along_rows(outside, free)
        grown = _spread_along_rows(grown.T, free.T).T
        if np.array_equal(grown, outside):
            return ~outside
        outside = grown


def _largest_disagreement(silhouette, mask: np.ndarray) -> float:
    """The largest distance (mm) from the silhouette's boundary of a pixel centre where ``mask`` and
    the silhouette disagree (0 when they agree everywhere)."""
    centres = (np.arange(mask.shape[0]) + 0.5) / PX_PER_MM
    xs, ys = np.meshgrid(centres, centres)
    wrong = shapely.contains_xy(silhouette, xs, ys) != mask
    if not wrong.any():
        return 0.0
    return float(shapely.distance(silhouette.boundary, shapely.points(xs[wrong], ys[wrong])).max())


def _rendered_disagreement(kind, options, silhouette_options, size_mm, rotation_deg) -> float:
    svg, at, side = _glyph_svg(kind, size_mm, rotation_deg, options)
    if kind == "key" and silhouette_options.get("key_shape") is None and size_mm < LETTER_FITS_BADGE_MM:
        svg = re.sub(r"<text\b[^>]*>[^<]*</text>", "", svg)
    mask = _fill_holes(_ink_mask(svg, side))
    silhouette = glyph_silhouette(kind, at, size_mm, rotation_deg, **silhouette_options)
    return _largest_disagreement(silhouette, mask)


@pytest.mark.parametrize("rotation_deg", [0, 37])
@pytest.mark.parametrize("size_mm", [4.0, 12.0])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_silhouette_matches_the_printed_glyph(case, size_mm, rotation_deg):
    _, kind, options, silhouette_options = case
    worst = _rendered_disagreement(kind, options, silhouette_options, size_mm, rotation_deg)
    assert worst <= TOLERANCE_MM + 0.5 / PX_PER_MM, f"{case[0]}: {worst:.3f} mm"


def test_the_raster_check_notices_a_wrong_silhouette():
    # the same comparison against the footprint disc fails: the check can tell
    svg, at, side = _glyph_svg("prisoner", 12.0, 0, {})
    mask = _fill_holes(_ink_mask(svg, side))
    assert _largest_disagreement(Point(at).buffer(6.0), mask) > 1.0


def test_hole_filling_fills_enclosed_paper_only():
    mask = np.zeros((9, 9), bool)
    mask[2, 2:7] = mask[6, 2:7] = mask[2:7, 2] = mask[2:7, 6] = True  # a closed square ring
    mask[0:4, 8] = True  # a stroke touching the border
    filled = _fill_holes(mask)
    assert filled[3:6, 3:6].all() and filled[2:7, 2:7].all()
    assert not filled[0, 0] and not filled[4, 7] and filled.sum() == 25 + 4


# -- values by hand -----------------------------------------------------------------------------


def test_generic_glyph_is_a_disc_with_half_its_stroke():
    # ring radius 0.9 * size / 2, stroke max(0.05 * size, 0.25): 4.5 + 0.25 mm at 10 mm ...
    silhouette = glyph_silhouette("fountain", (50.0, 40.0), 10.0)
    assert silhouette.geom_type == "Polygon" and not silhouette.interiors
    assert silhouette.area == pytest.approx(math.pi * 4.75**2, rel=3e-3)
    assert silhouette.contains(Point(50.0 + 4.74, 40.0)) and not silhouette.contains(Point(50.0 + 4.76, 40.0))
    # ... and 1.8 + 0.125 mm at 4 mm, where the stroke is clamped to the 0.25 mm minimum (not 0.2 mm)
    small = glyph_silhouette("fountain", (0.0, 0.0), 4.0, 123)
    assert small.bounds == pytest.approx((-1.925, -1.925, 1.925, 1.925), abs=0.005)


def test_a_point_just_outside_the_printed_cage_does_not_touch_the_prisoner():
    at, size = (50.0, 50.0), 10.0
    silhouette = glyph_silhouette("prisoner", at, size)
    footprint = Polygon(shapes.disc_polygon(at, size))
    # the cage's side wall stands at x = 0.60 * 5 mm, stroked 0.05 * 10 = 0.5 mm: ink ends at 3.25 mm
    outside = Point(at[0] + 3.25 + 0.8, at[1] + 1.0)
    assert footprint.contains(outside) and not silhouette.contains(outside)
    assert silhouette.contains(Point(at[0] + 3.2, at[1] + 1.0))
    # between the bars (holes filled) and at the ring on top of the dome (y = -0.86 * 5 mm)
    assert silhouette.contains(Point(at[0] + 0.75, at[1] + 2.0))
    assert silhouette.contains(Point(at[0], at[1] - 4.3))
    # the same, turned a quarter clockwise: the side wall is now below the centre
    turned = glyph_silhouette("prisoner", at, size, 90)
    assert not turned.contains(Point(at[0] - 1.0, at[1] + 4.05)) and turned.contains(Point(at[0] - 1.0, at[1] + 3.2))


def test_key_blade_has_butt_ends_and_the_bow_its_shape():
    at, size = (0.0, 0.0), 10.0
    silhouette = glyph_silhouette("key", at, size, key_shape="circle")
    # the shaft ends at x = 0.90 * 5 mm with a butt cap (0.9 mm wide): nothing beyond 4.5 mm on the axis
    assert silhouette.bounds[2] == pytest.approx(4.5, abs=1e-6)
    # the bow: a circle of 0.9 * 0.44 * 5 mm around (-2.5, 0), stroked 0.5 mm
    assert silhouette.bounds[0] == pytest.approx(-2.5 - 1.98 - 0.25, abs=0.005)
    star = glyph_silhouette("key", at, size, key_shape="star")
    assert star.bounds[1] == pytest.approx(-1.12 * 0.44 * 5 - 0.25, abs=0.005)  # the star's top tip
    lettered = glyph_silhouette("key", at, size, key_shape="hexagon")
    assert lettered.symmetric_difference(glyph_silhouette("key", at, size)).area < 1e-9


def test_rotation_turns_the_silhouette_about_its_centre():
    at = (30.0, 20.0)
    for kind, options in (
        ("boss", {}),
        ("spell", {"variant": "bolt"}),
        ("key", {"key_shape": "triangle"}),
        ("escape_portal", {}),
    ):
        straight = glyph_silhouette(kind, at, 9.0, **options)
        turned = glyph_silhouette(kind, at, 9.0, 37, **options)
        expected = rotate(straight, 37, origin=at)  # counter-clockwise in y-up = clockwise on the sheet
        assert turned.symmetric_difference(expected).area < 1e-6, kind


def test_escape_portal_rays_stand_apart_and_no_silhouette_has_holes():
    for _, kind, _, options in CASES:
        silhouette = glyph_silhouette(kind, (0.0, 0.0), 8.0, 15, **options)
        parts = list(getattr(silhouette, "geoms", [silhouette]))
        assert silhouette.is_valid and all(not p.interiors for p in parts), kind
        assert (len(parts) > 1) == (kind == "escape_portal"), kind


def test_unknown_variants_print_generic_unless_asked_to_fail():
    generic = glyph_silhouette("anything", (5.0, 5.0), 8.0)
    for variant in ("fireball", None):
        assert glyph_silhouette("spell", (5.0, 5.0), 8.0, variant=variant).equals(generic)
    assert glyph_silhouette("treasure", (5.0, 5.0), 8.0, variant="urn").equals(generic)
    with pytest.raises(ValueError, match="unknown spell variant 'fireball'"):
        glyph_silhouette("spell", (5.0, 5.0), 8.0, variant="fireball", known_variants=False)
    with pytest.raises(ValueError, match="treasure"):
        glyph_silhouette("treasure", (5.0, 5.0), 8.0, known_variants=False)


@pytest.mark.parametrize("size", [0, -3.0, float("nan"), float("inf"), None, "big"])
def test_size_must_be_positive(size):
    with pytest.raises(ValueError, match="size_mm"):
        glyph_silhouette("monster", (0.0, 0.0), size)


def test_kinds_without_a_glyph_are_refused():
    for kind in ("door", "start", "label"):
        with pytest.raises(ValueError, match="no glyph"):
            glyph_silhouette(kind, (0.0, 0.0), 5.0)
    with pytest.raises(ValueError, match="finite"):
        glyph_silhouette("orb", (float("nan"), 0.0), 5.0)


def test_glyph_kinds_are_the_exporters():
    assert ink.GLYPH_KINDS == set(line_glyphs.GLYPHS)


def test_exporter_reads_its_widths_and_lines_from_the_core():
    assert style.MIN_LINE_MM == gs.MIN_LINE_MM and style.FINE_MM == gs.FINE_MM
    assert gs.MONSTER_LINE.mm(4.0) == 0.25 and gs.MONSTER_LINE.mm(10.0) == pytest.approx(0.45)
    assert gs.PORTAL_ARROW_HEAD.mm(4.0) == 1.2
