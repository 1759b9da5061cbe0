"""Print-shop grade output (issue 15), checked with independent readers: pypdf for the PDF's
structure (page boxes, text matrices) and, where installed, poppler's ``pdfinfo -box`` and
``pdftotext -bbox`` (``.ci/run`` installs poppler-utils when it can; those checks skip without
it)."""

from __future__ import annotations

import re
import shutil
import subprocess
from io import BytesIO

import pypdf
import pytest
from conftest import PACKS
from hypothesis import given
from hypothesis import strategies as st
from svg_tree import sheet_tree

from inkcrawl.cli import main

LINE_PACK = PACKS / "lantern-depths"
GRID_PACK = PACKS / "ember-halls"
PT = 72 / 25.4  # points per mm
GRID_SHEET = GRID_PACK / "dungeons" / "cinder-vault.json"
LINE_SHEET = LINE_PACK / "dungeons" / "01-candlewick-cellars.json"

needs_poppler = pytest.mark.skipif(
    shutil.which("pdfinfo") is None or shutil.which("pdftotext") is None,
    reason="poppler-utils (pdfinfo, pdftotext) is not installed; .ci/run installs it when it can",
)


def _export(capsys, *argv):
    code = main(["export", *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def _boxes(page) -> dict[str, tuple[float, ...]]:
    """The page's own boxes as pypdf reads them (only those written in the page)."""
    return {
        name: tuple(float(value) for value in page[name])
        for name in ("/MediaBox", "/CropBox", "/TrimBox", "/BleedBox", "/ArtBox")
        if name in page
    }


def _pdfinfo_boxes(path) -> list[dict[str, tuple[float, ...]]]:
    """Every page's boxes as poppler's ``pdfinfo -box`` prints them (to 0.01 pt)."""
    pages = int(re.search(r"^Pages:\s+(\d+)", subprocess.check_output(["pdfinfo", str(path)], text=True), re.M)[1])
    result = []
    for number in range(1, pages + 1):
        text = subprocess.check_output(["pdfinfo", "-box", "-f", str(number), "-l", str(number), str(path)], text=True)
        boxes = {}
        for match in re.finditer(r"^(?:Page\s+\d+\s+)?(\w+Box):" + r"\s+([-\d.]+)" * 4, text, re.M):
            boxes[match[1]] = tuple(float(match[i]) for i in range(2, 6))
        result.append(boxes)
    return result


def _mm_box(left, bottom, right, top):
    return tuple(value * PT for value in (left, bottom, right, top))


def _close(a, b, tolerance=0.01):
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b))


# 1. Page boxes and sizes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "paper, size_pt",
    [
        ("105x148mm", (297.64, 419.53)),  # A6: not 297 x 420
        ("A4", (595.28, 841.89)),
        ("Letter", (612.0, 792.0)),
        ("A5", (419.53, 595.28)),
    ],
)
def test_page_sizes_are_exact_to_a_hundredth_of_a_point(tmp_path, capsys, paper, size_pt):
    out = tmp_path / "sheet.pdf"
    _export(capsys, "sheet", LINE_SHEET, "-o", out, "--paper", paper, "--fit")
    page = pypdf.PdfReader(out).pages[0]
    assert _close(_boxes(page)["/MediaBox"], (0, 0, *size_pt), 0.006)
    # without bleed or crop marks the paper is the page
    assert _close(_boxes(page)["/TrimBox"], _boxes(page)["/MediaBox"], 1e-3)
    assert _close(_boxes(page)["/BleedBox"], _boxes(page)["/MediaBox"], 1e-3)


@pytest.mark.parametrize("bleed, crop_marks", [(3, True), (3.175, False), (0, True)])
def test_bleed_and_crop_marks_give_trim_and_bleed_boxes(tmp_path, capsys, bleed, crop_marks):
    out = tmp_path / "shop.pdf"
    _export(capsys, "sheet", GRID_PACK, "-o", out, "--bleed", bleed, *(["--crop-marks"] if crop_marks else []))
    extra = bleed + (10 if crop_marks else 0)  # exporters.paper.CROP_MARK_SPACE_MM
    media = _mm_box(0, 0, 210 + 2 * extra, 297 + 2 * extra)
    trim = _mm_box(extra, extra, extra + 210, extra + 297)  # the paper: A4
    bleed_box = _mm_box(extra - bleed, extra - bleed, extra + 210 + bleed, extra + 297 + bleed)
    reader = pypdf.PdfReader(out)
    assert len(reader.pages) == 4
    for page in reader.pages:
        boxes = _boxes(page)
        assert _close(boxes["/MediaBox"], media), boxes
        assert _close(boxes["/TrimBox"], trim), boxes
        assert _close(boxes["/BleedBox"], bleed_box), boxes
        assert "/CropBox" not in boxes and "/ArtBox" not in boxes  # both default to the MediaBox
        assert boxes["/TrimBox"][2] - boxes["/TrimBox"][0] == pytest.approx(595.2756, abs=0.01)


@needs_poppler
def test_poppler_reads_the_same_boxes(tmp_path, capsys):
    out = tmp_path / "shop.pdf"
    options = ["--bleed", "3", "--crop-marks", "--paper", "A5", "--fit"]
    _export(capsys, "sheet", GRID_SHEET, LINE_SHEET, "-o", out, *options)
    pages = _pdfinfo_boxes(out)
    assert len(pages) == 2
    for boxes in pages:
        assert _close(boxes["MediaBox"], _mm_box(0, 0, 148 + 26, 210 + 26))
        assert _close(boxes["CropBox"], boxes["MediaBox"])
        assert _close(boxes["TrimBox"], _mm_box(13, 13, 161, 223))
        assert _close(boxes["BleedBox"], _mm_box(10, 10, 164, 226))


def _text_runs(page) -> list[tuple[str, float, float, float]]:
    """``(text, x, y, size)`` of every text shown on a PDF page, read by pypdf: the origin of
    the text (its baseline start) in points from the page's bottom-left corner, and the font
    size as printed (the font size times the scale of the text and current matrices)."""
    runs = []

    def visit(text, cm, tm, font, size):
        if not text.strip():
            return
        # the text space -> page matrix: Tm x CTM
        a = tm[0] * cm[0] + tm[1] * cm[2]
        b = tm[0] * cm[1] + tm[1] * cm[3]
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        e = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        f = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        runs.append((text, e, f, size * abs(a * d - b * c) ** 0.5))

    page.extract_text(visitor_text=visit)
    return runs


def test_pages_are_drawn_at_their_exact_size_and_place():
    """The drawing is neither stretched to whole points nor shifted: text drawn at a known
    place on pages of fractional sizes lands there, to 0.02 mm (Qt places text on a grid of
    1/64 of the user unit, here 1/64 mm)."""
    from exporters import qt
    from exporters.pages import Page

    pages = []
    for width, height in ((105, 148), (148.5, 210.2), (215.9, 279.4), (300.3, 100.7)):
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}mm" height="{height}mm" '
            f'viewBox="0 0 {width} {height}">'
            f'<text x="10" y="20" font-family="DejaVu Sans" font-size="6">Top</text>'
            f'<text x="{width - 30}" y="{height - 10}" font-family="DejaVu Sans" font-size="6">Bottom</text></svg>'
        )
        pages.append(Page(svg, width, height, f"{width} x {height}"))
    data, count = qt.pdf_bytes(pages)
    reader = pypdf.PdfReader(BytesIO(data))
    for page, printed in zip(pages, reader.pages):
        media = _boxes(printed)["/MediaBox"]
        assert _close(media, (0, 0, page.width_mm * PT, page.height_mm * PT))
        runs = _text_runs(printed)
        top = next(run for run in runs if run[0].startswith("T"))
        bottom = next(run for run in runs if run[0].startswith("B"))
        assert top[1] / PT == pytest.approx(10, abs=0.02)
        assert (media[3] - top[2]) / PT == pytest.approx(20, abs=0.02)  # 20 mm below the top edge
        assert bottom[1] / PT == pytest.approx(page.width_mm - 30, abs=0.02)
        assert (media[3] - bottom[2]) / PT == pytest.approx(page.height_mm - 10, abs=0.02)


def test_crop_marks_point_at_the_trim_box(tmp_path, capsys):
    """The crop marks drawn on the page and the TrimBox written in the PDF agree: the marks'
    lines (in the SVG) run along the trim box's edges."""
    svg_out, pdf_out = tmp_path / "shop.svg", tmp_path / "shop.pdf"
    _export(capsys, "sheet", GRID_SHEET, "-o", svg_out, "--bleed", "3", "--crop-marks")
    _export(capsys, "sheet", GRID_SHEET, "-o", pdf_out, "--bleed", "3", "--crop-marks")
    svg = svg_out.read_text(encoding="utf-8")
    marks = svg[svg.index('data-kind="crop-marks"') :]
    xs = {float(x) for x in re.findall(r'd="M([\d.]+) [\d.]+ L\1 ', marks)}  # vertical marks
    page = pypdf.PdfReader(pdf_out).pages[0]
    trim, media = _boxes(page)["/TrimBox"], _boxes(page)["/MediaBox"]
    assert sorted(xs) == pytest.approx([trim[0] / PT, trim[2] / PT], abs=0.001)
    assert media[3] - trim[3] == pytest.approx(13 * PT, abs=0.01)


# 2. Exact text ----------------------------------------------------------------------------------

SVG_NS = "{http://www.w3.org/2000/svg}"
#: Sizes (mm) Qt's SVG renderer once rounded to whole millimetres (2.5 printed at 2, 4.115 at 4).
ODD_SIZES_MM = (1.3, 2.5, 2.6, 3.313, 4.115, 5.55, 9.99)


def _designed_glyphs(svg: str) -> list[tuple[str, float]]:
    """``(character, font size in page mm)`` of every non-space character the SVG draws, in
    order (each text's size times the scale of the groups it is in; a glyph a ``<use>`` places
    read where it is used)."""
    glyphs = []

    def walk(node, scale):
        match = re.search(r"scale\(([\d.]+)", node.get("transform", ""))
        scale *= float(match[1]) if match else 1.0
        if node.tag == SVG_NS + "text":
            glyphs.extend(
                (char, float(node.get("font-size")) * scale) for char in node.text or "" if not char.isspace()
            )
        for child in node:
            walk(child, scale)

    walk(sheet_tree(svg), 1.0)
    return glyphs


def _printed_glyphs(page) -> list[tuple[str, float]]:
    """``(character, font size in mm)`` of every non-space character a PDF page shows, read by
    pypdf (ligatures such as "fi" split back into their letters)."""
    import unicodedata

    return [
        (char, size / PT)
        for text, _, _, size in _text_runs(page)
        for char in unicodedata.normalize("NFKC", text)
        if not char.isspace()
    ]


def _assert_same_text_and_sizes(svg: str, page, tolerance_mm=0.05):
    designed, printed = _designed_glyphs(svg), _printed_glyphs(page)
    assert "".join(char for char, _ in printed) == "".join(char for char, _ in designed)
    worst = max(abs(a[1] - b[1]) for a, b in zip(designed, printed))
    assert worst <= tolerance_mm, f"a character prints {worst:.3f} mm off its designed size"
    return {round(size, 3) for _, size in designed}


@pytest.mark.parametrize("paper", [None, "A5"], ids=["own-paper", "fit-to-A5"])
def test_every_text_of_the_bundled_sheets_prints_at_its_designed_size(tmp_path, paper):
    """Every character of every bundled sheet, in the PDF (read by pypdf: font size times the
    text and current matrices), at the size the SVG gives it, within 0.05 mm; sheets fitted to
    smaller paper print at that size times the scale."""
    from exporters.formats import SHEET_PDF, WriteOptions
    from exporters.pages import PageOptions
    from exporters.paper import parse_paper
    from inkcrawl.loading import open_dungeons

    opened = open_dungeons([str(LINE_PACK), str(GRID_PACK)]).dungeons
    page_options = PageOptions(paper=parse_paper(paper), fit=True) if paper else PageOptions()
    result = SHEET_PDF.write(opened, tmp_path / "sheets.pdf", WriteOptions(page=page_options))
    reader = pypdf.PdfReader(tmp_path / "sheets.pdf")
    sizes = set()
    for sheet, printed in zip(result.sheets, reader.pages, strict=True):
        sizes |= _assert_same_text_and_sizes(sheet.svg, printed)
    if paper is None:  # the sizes that Qt once printed a size too small
        assert {2.5, 3.1, 3.6, 4.115} <= sizes


def _odd_sizes_page():
    from exporters.pages import Page

    texts, y = [], 8.0
    for size in ODD_SIZES_MM:
        y += size * 1.4
        texts.append(f'<text x="5" y="{y:g}" font-family="DejaVu Sans" font-size="{size}">Hxn {size}</text>')
        texts.append(
            f'<text x="120" y="{y:g}" font-family="DejaVu Sans" font-size="{size}" font-weight="bold" '
            f'text-anchor="end" transform="rotate(3 120 {y:g})">Bold-{size}</text>'
        )
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="130mm" height="70mm" viewBox="0 0 130 70">'
        + "".join(texts)
        + "</svg>"
    )
    return Page(svg, 130, 70, "sizes")


def test_odd_font_sizes_print_exactly_in_the_pdf():
    from exporters import qt

    page = _odd_sizes_page()
    data, _ = qt.pdf_bytes([page])
    printed = pypdf.PdfReader(BytesIO(data)).pages[0]
    assert _assert_same_text_and_sizes(page.svg, printed, 0.006) == set(ODD_SIZES_MM)


def _line_height_ratio() -> float:
    """(ascent + descent) / em of the shipped regular font: what poppler's word boxes span."""
    from PySide6.QtGui import QRawFont

    from exporters import qt, style

    qt.ensure_app()
    font = QRawFont(str(style.FONT_FILES[0]), 1000)
    return (font.ascent() + font.descent()) / 1000


@needs_poppler
def test_poppler_measures_the_designed_sizes(tmp_path):
    """poppler's ``pdftotext -bbox`` word boxes are (ascent + descent) x the printed size high:
    each word's box gives back its text's designed size within 0.05 mm."""
    from exporters import qt

    page = _odd_sizes_page()
    data, _ = qt.pdf_bytes([page])
    (tmp_path / "sizes.pdf").write_bytes(data)
    html = subprocess.check_output(["pdftotext", "-bbox", str(tmp_path / "sizes.pdf"), "-"], text=True)
    words = re.findall(r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', html)
    ratio = _line_height_ratio()
    measured = {word: (float(y_max) - float(y_min)) / PT / ratio for y_min, y_max, word in words}
    for size in ODD_SIZES_MM:  # the regular, upright texts (the bold ones are turned: larger boxes)
        assert measured[f"{size}"] == pytest.approx(size, abs=0.05), (size, measured)


def test_png_text_is_drawn_at_its_designed_size():
    """In a PNG at 1200 dpi, the ink of a capital H is the font's cap height times the
    designed size, within 0.05 mm (2.4 pixels)."""
    import numpy as np
    from pictures import pixels
    from PySide6.QtGui import QRawFont

    from exporters import qt, style

    qt.ensure_app()
    cap_ratio = QRawFont(str(style.FONT_FILES[0]), 1000).capHeight() / 1000
    dpi = 1200
    for size in (2.5, 2.6, 4.115):
        svg = (
            '<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="12mm" viewBox="0 0 20 12">'
            f'<text x="2" y="9" font-family="DejaVu Sans" font-size="{size}">H</text></svg>'
        )
        image = pixels(qt.svg_to_png(svg, 20, 12, dpi))
        ink_rows = np.flatnonzero((image.min(axis=2) < 128).any(axis=1))
        height_mm = (ink_rows[-1] - ink_rows[0] + 1) / dpi * 25.4
        assert height_mm == pytest.approx(cap_ratio * size, abs=0.05), size


def test_the_svg_for_browsers_keeps_its_plain_text(tmp_path, capsys):
    """Only Qt gets the scaled text: the SVG written keeps each text's size and place."""
    from exporters.qt import QT_TEXT_SCALE, svg_for_qt

    out = tmp_path / "sheet.svg"
    _export(capsys, "sheet", LINE_SHEET, "-o", out)
    svg = out.read_text(encoding="utf-8")
    assert 'font-size="2.5"' in svg and "scale(0.01)" not in svg
    for_qt = svg_for_qt(svg)
    assert 'font-size="2.5"' not in for_qt and f'font-size="{2.5 * QT_TEXT_SCALE:g}"' in for_qt
    plain, scaled = _designed_glyphs(svg), _designed_glyphs(for_qt)
    assert [char for char, _ in scaled] == [char for char, _ in plain]
    assert [size for _, size in scaled] == pytest.approx([size for _, size in plain])


# 3. Paper that fits -------------------------------------------------------------------------------

LETTER_MM = (215.9, 279.4)


@pytest.mark.parametrize("pack", sorted(PACKS.iterdir()), ids=lambda pack: pack.name)
def test_every_bundled_pack_prints_on_letter(tmp_path, capsys, pack):
    """An A4 pack on Letter: every sheet is placed by its ink; those whose ink is taller than
    Letter's printable area are shrunk, with a warning giving the scale."""
    out = tmp_path / "letter.pdf"
    _, err = _export(capsys, "sheet", pack, "-o", out, "--paper", "Letter")
    reader = pypdf.PdfReader(out)
    assert len(reader.pages) == len(list((pack / "dungeons").glob("*.json")))
    for page in reader.pages:
        assert _close(_boxes(page)["/MediaBox"], (0, 0, 612, 792))
    scales = [float(value) for value in re.findall(r"shrunk to ([\d.]+)% to fit the paper's printable area", err)]
    assert scales and all(90 < scale < 100 for scale in scales), err


def _ink_box_mm(png: bytes, dpi: float) -> tuple[float, float, float, float]:
    """The bounding box (mm) of the pixels of a rendered page that are not white."""
    import numpy as np
    from pictures import pixels

    mask = pixels(png).min(axis=2) < 250
    rows, columns = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    mm = 25.4 / dpi
    return columns[0] * mm, rows[0] * mm, (columns[-1] + 1) * mm, (rows[-1] + 1) * mm


@pytest.mark.parametrize("sheet", [GRID_SHEET, LINE_SHEET, GRID_PACK / "dungeons" / "long-kiln.json"], ids=str)
def test_a_sheet_on_letter_keeps_its_ink_inside_the_margins(tmp_path, capsys, sheet):
    """What prints (a PNG of the Letter page, read pixel by pixel) stays inside Letter's
    10 mm margins, and a sheet is shrunk only when its ink does not fit at its size."""
    from inkcrawl.loading import open_dungeons

    out = tmp_path / "letter.png"
    dpi = 150
    _, err = _export(capsys, "sheet", sheet, "-o", out, "--paper", "Letter", "--dpi", dpi)
    x0, y0, x1, y1 = _ink_box_mm(out.read_bytes(), dpi)
    margin = open_dungeons([str(sheet)]).dungeons[0].dungeon.sheet.paper.margin_mm
    tolerance = 25.4 / dpi  # a pixel
    assert x0 >= margin - tolerance and y0 >= margin - tolerance
    assert x1 <= LETTER_MM[0] - margin + tolerance and y1 <= LETTER_MM[1] - margin + tolerance
    shrunk = re.search(r"shrunk to ([\d.]+)%", err)
    if shrunk:  # it fills the printable height: the ink was what did not fit
        assert y1 - y0 == pytest.approx(LETTER_MM[1] - 2 * margin, abs=1.5)
    else:  # its ink fits at its own size: printed 1:1
        assert sheet.name == "long-kiln.json"


@needs_poppler
def test_poppler_sees_the_letter_pages_inside_their_margins(tmp_path, capsys):
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm is not installed")
    out = tmp_path / "letter.pdf"
    _export(capsys, "sheet", LINE_SHEET, GRID_SHEET, "-o", out, "--paper", "Letter")
    dpi = 100
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(out), str(tmp_path / "page")], check=True)
    pictures = sorted(tmp_path.glob("page*.png"))
    assert len(pictures) == 2
    for picture in pictures:
        x0, y0, x1, y1 = _ink_box_mm(picture.read_bytes(), dpi)
        slack = 2 * 25.4 / dpi
        assert x0 >= 10 - slack and y0 >= 10 - slack
        assert x1 <= LETTER_MM[0] - 10 + slack and y1 <= LETTER_MM[1] - 10 + slack


def test_exact_refuses_what_would_be_shrunk(tmp_path, capsys):
    out = tmp_path / "letter.pdf"
    code = main(["export", "sheet", str(LINE_SHEET), "-o", str(out), "--paper", "Letter", "--exact"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "printed ink is" in err and "leave out --exact" in err and "--fit" in err
    with pytest.raises(SystemExit) as caught:  # one or the other
        main(["export", "sheet", str(LINE_SHEET), "-o", str(out), "--exact", "--fit"])
    assert caught.value.code == 2 and "not allowed with" in capsys.readouterr().err
    # a sheet whose ink fits keeps its size with --exact too
    _export(capsys, "sheet", GRID_PACK / "dungeons" / "long-kiln.json", "-o", out, "--paper", "Letter", "--exact")


def test_the_api_shrinks_only_when_asked():
    """``WriteOptions.shrink`` (``shrink`` of ``draw_sheets``): the formats API refuses a sheet
    that does not fit unless asked to shrink it; a sheet whose ink fits keeps its size either
    way, however its nominal printable area (the paper minus the sheet's margins) compares
    with the paper's."""
    from exporters.formats import ExportError, draw_sheets
    from exporters.pages import PageOptions
    from inkcrawl.loading import open_dungeons

    opened = open_dungeons([str(GRID_PACK)]).dungeons
    letter = PageOptions(paper=LETTER_MM)
    with pytest.raises(ExportError) as caught:
        draw_sheets(opened, letter)
    assert caught.value.code == "does-not-fit" and caught.value.needs_fit
    pages = draw_sheets(opened, letter, shrink=True)
    kept = [page for page in pages if not any("shrunk" in warning for warning in page.warnings)]
    assert [page.title for page in kept] == ["The Long Kiln"]
    sheet_tag = re.search(r'<g class="sheet"[^>]*>', kept[0].svg).group()
    assert 'data-family="grid"' in sheet_tag and 'transform="translate(' in sheet_tag
    assert "scale(" not in sheet_tag
    (long_kiln,) = [o for o in opened if o.dungeon.id == "long-kiln"]
    assert draw_sheets([long_kiln], letter)[0].warnings == []


def test_a_smaller_margin_keeps_the_size_as_the_error_says(tmp_path, capsys):
    out = tmp_path / "letter.pdf"
    main(["export", "sheet", str(LINE_SHEET), "-o", str(out), "--paper", "Letter", "--exact"])
    margin = re.search(r"--margin ([\d.]+) \(keeps the size\)", capsys.readouterr().err)[1]
    _, err = _export(capsys, "sheet", LINE_SHEET, "-o", out, "--paper", "Letter", "--exact", "--margin", margin)
    assert "shrunk" not in err


# 4. Self-contained SVG ----------------------------------------------------------------------------


def _embedded_fonts(svg: str):
    """The ``@font-face`` rules of an SVG as ``(family, weight, fontTools TTFont)``."""
    import base64

    from fontTools.ttLib import TTFont

    faces = re.findall(
        r'@font-face\{font-family:"([^"]+)";font-style:normal;font-weight:(\w+);'
        r'src:url\("data:font/ttf;base64,([A-Za-z0-9+/=]+)"\) format\("truetype"\)\}',
        svg,
    )
    return [(family, weight, TTFont(BytesIO(base64.b64decode(data)))) for family, weight, data in faces]


def test_svg_files_embed_the_fonts_they_use_as_subsets(tmp_path, capsys):
    """Each SVG file carries the shipped fonts (read back with fontTools): the regular and
    bold DejaVu Sans, holding a glyph for every character its sheets draw (the same outlines
    as the shipped files), and only a small part of the fonts."""
    from fontTools.ttLib import TTFont

    from exporters import style

    out = tmp_path / "line.svg"
    _export(capsys, "sheet", LINE_PACK, "-o", out)
    files = sorted(tmp_path.glob("line-*.svg"))
    assert len(files) == 4
    shipped = [TTFont(str(path)) for path in style.FONT_FILES]
    for path in files:
        svg = path.read_text(encoding="utf-8")
        fonts = _embedded_fonts(svg)
        assert [(family, weight) for family, weight, _ in fonts] == [("DejaVu Sans", "normal"), ("DejaVu Sans", "bold")]
        drawn = {char for char, _ in _designed_glyphs(svg)}
        for (_, _, font), original in zip(fonts, shipped):
            cmap = font.getBestCmap()
            assert {ord(char) for char in drawn} <= set(cmap), path.name
            assert font["name"].getDebugName(1) == "DejaVu Sans"
            for char in "AeW":
                name, original_name = cmap[ord(char)], original.getBestCmap()[ord(char)]
                outline = list(font["glyf"][name].getCoordinates(font["glyf"])[0])
                assert outline == list(original["glyf"][original_name].getCoordinates(original["glyf"])[0])
            assert len(font.getGlyphOrder()) < len(original.getGlyphOrder()) / 10
            # the shipped font's dates, not the export's time: the same sheet gives the same bytes
            assert font["head"].modified == original["head"].modified
        assert len(svg.encode("utf-8")) < 250_000


def test_every_font_family_ends_with_a_generic_family(tmp_path, capsys):
    out = tmp_path / "grid.svg"
    _export(capsys, "sheet", GRID_SHEET, "-o", out)
    families = set(re.findall(r'font-family="([^"]+)"', out.read_text(encoding="utf-8")))
    assert families == {"DejaVu Sans, sans-serif"}


def test_qt_still_reads_the_self_contained_svg_as_the_page(tmp_path, capsys):
    """The style block is for other renderers: Qt draws the file written as it draws the page."""
    from pictures import difference, pixels

    from exporters import qt
    from exporters.formats import SHEET_SVG
    from inkcrawl.loading import open_dungeons

    result = SHEET_SVG.write(open_dungeons([str(LINE_SHEET)]).dungeons, tmp_path / "sheet.svg")
    page = result.sheets[0]
    written = pixels(qt.svg_to_png(result.files[0].read_text(encoding="utf-8"), page.width_mm, page.height_mm, 60))
    drawn = pixels(qt.svg_to_png(page.svg, page.width_mm, page.height_mm, 60))
    mean, changed = difference(written, drawn)
    assert mean < 0.05 and changed < 0.0005


# 5. Cards: gutters, cut lines, the pack's name on the backs ---------------------------------------


def _card_rects(svg: str) -> list[tuple[float, float]]:
    """The top-left corner (mm) of every card's trim rectangle on a card page, in order."""
    import xml.etree.ElementTree as ET

    cards = [g for g in ET.fromstring(svg).iter(SVG_NS + "g") if "card" in (g.get("class") or "").split()]
    corners = []
    for card in cards:
        rects = card.findall(SVG_NS + "rect")
        trim = next(rect for rect in rects if rect.get("rx"))  # the rounded card, not its bleed
        corners.append((float(trim.get("x")), float(trim.get("y"))))
    return corners


def _gaps(values, size) -> list[float]:
    """The distinct gaps (mm) between cards of ``size`` mm starting at ``values``."""
    distinct = sorted({round(value, 3) for value in values})
    return sorted({round(b - a - size, 2) for a, b in zip(distinct, distinct[1:])})


@pytest.mark.parametrize(
    "paper, bleed, per_page, gap_x, gap_y",
    [
        ((210, 297), 0, 9, 3.0, 3.0),  # A4: room for the full gutter both ways
        ((215.9, 279.4), 0, 9, 3.0, 1.7),  # Letter: three rows still, closer together
        ((210, 297), 3, 6, 6.0, 6.0),  # a bleed: the bleeds of two cards meet in the gutter
    ],
)
def test_cards_have_gutters_and_as_many_to_a_page_as_before(paper, bleed, per_page, gap_x, gap_y):
    from exporters.cards import CARD_HEIGHT_MM, CARD_WIDTH_MM, card_pages
    from exporters.pages import PageOptions
    from inkcrawl.rulesets import bundled_rulesets

    ruleset = bundled_rulesets()["grid-classic"]
    page = card_pages({"corner": 9}, ruleset, PageOptions(paper=paper, bleed_mm=bleed))[0]
    corners = _card_rects(page.svg)
    assert len(corners) == per_page
    assert _gaps([x for x, _ in corners], CARD_WIDTH_MM) == pytest.approx([gap_x], abs=0.002)
    assert _gaps([y for _, y in corners], CARD_HEIGHT_MM) == pytest.approx([gap_y], abs=0.002)
    xs = sorted({x for x, _ in corners})  # the block is centred on the paper
    assert xs[0] == pytest.approx(paper[0] - xs[-1] - CARD_WIDTH_MM)


def test_cut_lines_run_along_every_card_edge_under_the_cards():
    import xml.etree.ElementTree as ET

    from exporters.cards import CARD_HEIGHT_MM, CARD_WIDTH_MM, card_pages
    from exporters.pages import PageOptions
    from inkcrawl.rulesets import bundled_rulesets

    ruleset = bundled_rulesets()["grid-classic"]
    front, back = card_pages({"cross": 4}, ruleset, PageOptions(), backs=True)  # two rows, one short
    corners = _card_rects(front.svg)
    root = ET.fromstring(front.svg)
    groups = [g for g in root.iter(SVG_NS + "g") if g.get("data-kind") == "cut-lines"]
    assert len(groups) == 1 and "cut-lines" not in back.svg
    lines = []
    for path in groups[0].findall(SVG_NS + "path"):
        x0, y0, x1, y1 = (
            float(v) for v in re.fullmatch(r"M([\d.]+) ([\d.]+) L([\d.]+) ([\d.]+)", path.get("d")).groups()
        )
        lines.append((x0, y0, x1, y1))
        assert float(path.get("stroke-width")) == pytest.approx(0.25) and path.get("stroke") != "#000000"
    verticals = sorted({x0 for x0, _, x1, _ in lines if x0 == x1})
    horizontals = sorted({y0 for _, y0, _, y1 in lines if y0 == y1})
    assert verticals == pytest.approx(sorted({x + dx for x, _ in corners for dx in (0, CARD_WIDTH_MM)}))
    assert horizontals == pytest.approx(sorted({y + dy for _, y in corners for dy in (0, CARD_HEIGHT_MM)}))
    top, bottom = min(y for _, y in corners), max(y for _, y in corners) + CARD_HEIGHT_MM
    for x0, y0, x1, y1 in lines:
        if x0 == x1:  # across the whole block, and into the margins
            assert y0 < top and y1 > bottom
    # drawn first: every card is painted over them
    order = [g.get("data-kind") for g in root.iter(SVG_NS + "g") if g.get("data-kind")]
    assert order.index("cut-lines") < order.index("cross")


def test_card_backs_carry_the_packs_name(tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    _export(capsys, "cards", GRID_PACK, "-o", out, "--backs")
    reader = pypdf.PdfReader(out)
    backs = re.sub(r"\s+", " ", " ".join(page.extract_text() for page in reader.pages[1::2]))
    assert "Ember Halls" in backs and "inkcrawl" not in backs.lower()
    # a deck of no pack (a dungeon file on its own) has the ruleset's name on its back
    single = tmp_path / "single.json"
    single.write_text(GRID_SHEET.read_text(encoding="utf-8"), encoding="utf-8")
    _export(capsys, "cards", single, "-o", out, "--backs")
    assert "Grid family, classic rules" in re.sub(r"\s+", " ", pypdf.PdfReader(out).pages[1].extract_text())


def test_a_long_pack_name_fits_the_back():
    from exporters.cards import BACK_NAME_LINES, BACK_NAME_WIDTH_MM, card_pages
    from exporters.pages import PageOptions
    from inkcrawl.rulesets import bundled_rulesets
    from inkcrawl.textmetrics import text_width_mm

    ruleset = bundled_rulesets()["grid-classic"]
    name = "The Extraordinarily Long-Winded Name Of A Fan-Made Expansion Pack " * 3
    _, back = card_pages({"trap": 1}, ruleset, PageOptions(), backs=True, back_name=name)
    lines = re.findall(r'<text[^>]*data-kind="back-name"[^>]*font-size="([\d.]+)"[^>]*>([^<]*)</text>', back.svg)
    assert 1 < len(lines) <= BACK_NAME_LINES and lines[-1][1].endswith("…")
    assert all(text_width_mm(text, float(size), bold=True) <= BACK_NAME_WIDTH_MM for size, text in lines)


def test_text_as_paths_needs_no_font_and_draws_like_the_pdf(tmp_path, capsys):
    """``--text-as-paths``: no ``<text>`` and no embedded font left, each text an outline
    (its words kept in ``aria-label``) that Qt draws as it draws the text itself."""
    from pictures import pixels

    from exporters import qt
    from exporters.formats import SHEET_SVG, WriteOptions
    from inkcrawl.loading import open_dungeons

    opened = open_dungeons([str(LINE_PACK / "dungeons" / "04-lantern-kings-descent.json")]).dungeons
    result = SHEET_SVG.write(opened, tmp_path / "paths.svg", WriteOptions(text_as_paths=True))
    page, svg = result.sheets[0], result.files[0].read_text(encoding="utf-8")
    assert "<text" not in svg and "@font-face" not in svg
    # every text where it is drawn (a glyph's letters in each place its definition is used)
    labels = [node.get("aria-label") for node in sheet_tree(svg).iter() if node.get("aria-label") is not None]
    assert "The Lantern King's Descent" in labels
    assert len(labels) == len(page.texts) - sum(1 for text in page.texts if not text.strip())
    dpi = 300  # lower, Qt's hinting of the real text shifts pixels: the ink masks are compared
    outlines = pixels(qt.svg_to_png(svg, page.width_mm, page.height_mm, dpi)).min(axis=2) < 128
    texts = pixels(qt.svg_to_png(page.svg, page.width_mm, page.height_mm, dpi)).min(axis=2) < 128
    assert (outlines != texts).mean() < 0.0015 and abs(int(outlines.sum()) - int(texts.sum())) < 0.003 * texts.sum()
    # only for SVG
    code = main(["export", "sheet", str(LINE_SHEET), "-o", str(tmp_path / "x.pdf"), "--text-as-paths"])
    assert code == 2 and "--text-as-paths applies to SVG output only" in capsys.readouterr().err


@pytest.mark.parametrize("sheet", [GRID_SHEET, LINE_SHEET], ids=lambda path: path.stem)
def test_the_measured_ink_holds_what_prints(sheet):
    """:attr:`SheetCanvas.ink` against the pixels Qt draws: it holds all of them and is at
    most 1.5 mm larger on any side (text is counted from the font's ascent)."""
    from exporters import qt, style
    from exporters.canvas import SheetCanvas
    from exporters.families import draw_sheet_into
    from exporters.pages import new_page_drawing, sheet_page
    from inkcrawl.loading import open_dungeons

    opened = open_dungeons([str(sheet)]).dungeons[0]
    paper = opened.dungeon.sheet.paper
    drawing = new_page_drawing(paper.width_mm, paper.height_mm)
    canvas = SheetCanvas(drawing, drawing.g(), style.palette())
    draw_sheet_into(canvas, opened.dungeon, opened.ruleset)
    page = sheet_page(opened.dungeon, opened.ruleset)  # on its own paper: drawn 1:1 at (0, 0)
    dpi = 150
    real = _ink_box_mm(qt.svg_to_png(page.svg, page.width_mm, page.height_mm, dpi), dpi)
    pixel = 25.4 / dpi
    x0, y0, x1, y1 = canvas.ink
    assert x0 <= real[0] + pixel and y0 <= real[1] + pixel and x1 >= real[2] - pixel and y1 >= real[3] - pixel
    assert max(real[0] - x0, real[1] - y0, x1 - real[2], y1 - real[3]) <= 1.5


# 5. Speed: numbers written many at once, answers kept between shapes and sheets -----------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.5, "1.5"),
        (1.05, "1.05"),
        (1.005, "1.005"),
        (100.0, "100"),
        (10, "10"),
        (0.0004, "0"),
        (-0.0004, "0"),
        (-0.0, "0"),
        (-0.5, "-0.5"),
        (-10.25, "-10.25"),
        (2.0504, "2.05"),
        (0.9996, "1"),
        (-0.9996, "-1"),
        (1e9, "1000000000"),
    ],
)
def test_numbers_written_together_read_as_when_written_one_by_one(value, text):
    from exporters.canvas import fmt, fmt_all

    assert fmt(value) == text
    assert fmt_all("M%.3f %.3f L%.3f %.3f Z", [value, -value, 3, value]) == f"M{text} {fmt(-value)} L3 {text} Z"


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), max_size=40))
def test_fmt_all_writes_every_number_as_fmt_does(numbers):
    from exporters.canvas import fmt, fmt_all

    assert fmt_all(" ".join(["%.3f"] * len(numbers)), numbers) == " ".join(fmt(v) for v in numbers)


def test_path_data_and_the_glyph_pen_write_absolute_millimetres():
    from exporters.canvas import path_data
    from exporters.grid_glyphs import Pen

    assert path_data([]) == ""
    assert path_data([(0, 0), (10.25, -3.1), (7.0004, 2.5)], closed=True) == "M0 0 L10.25 -3.1 L7 2.5 Z"
    # a 4 mm glyph at (10, 20): unit point (0.5, -0.25) is 2 mm right, 1 mm up; turned 90
    # degrees clockwise, (0.5, 0) lands 2 mm below the centre
    pen = Pen(10, 20, 4)
    assert pen.M(0, 0).L(0.5, -0.25, 1, 0).Z().d() == "M10 20 L12 19 14 20 Z"
    assert pen.d() == ""  # d() starts a new path
    assert Pen(10, 20, 4, rotate_deg=90).M(0.5, 0).Q(0, 0, 0, 0.25).d() == "M10 22 Q10 20 9 20"


def test_shapes_with_the_same_paint_do_not_share_their_attributes():
    from exporters import style
    from exporters.canvas import SheetCanvas
    from exporters.pages import new_page_drawing

    drawing = new_page_drawing(100, 100)
    canvas = SheetCanvas(drawing, drawing.g(), style.palette())
    first = canvas.line((0, 0), (10, 0), stroke="#000000", width=0.5)
    second = canvas.line((0, 5), (10, 5), stroke="#000000", width=0.5)
    first["stroke"] = "#ff0000"
    first.attribs["stroke-dasharray"] = "1 1"
    assert second["stroke"] == "#000000" and "stroke-dasharray" not in second.attribs
    third = canvas.line((0, 9), (10, 9), stroke="#000000", width=0.5)
    assert third["stroke"] == "#000000" and third["stroke-width"] == "0.5"
    assert "stroke-dasharray" not in third.attribs


def test_wrapped_lines_are_the_callers_own():
    from exporters.canvas import wrap_text
    from inkcrawl.textmetrics import text_width_mm

    # DejaVu Sans at 10 mm: "a" is 6.13 mm wide, a space 3.18 mm, so "aa aa" (27.7 mm) does
    # not fit 25 mm and breaks at the space
    assert text_width_mm("aa aa", 10) == pytest.approx(27.7)
    lines = wrap_text("aa aa", 25, 10)
    assert lines == ["aa", "aa"]
    lines.append("changed")
    assert wrap_text("aa aa", 25, 10) == ["aa", "aa"]
    assert wrap_text("aa aa", 28, 10) == ["aa aa"]


def test_the_guide_lines_are_computed_once_and_handed_out_as_copies():
    from inkcrawl.loading import open_dungeons
    from inkcrawl.printed import sheet_of

    opened = open_dungeons([str(LINE_SHEET)]).dungeons[0]
    printed = sheet_of(opened.dungeon, opened.ruleset, repair=True)
    first = printed.guide_lines()
    assert first, "the bundled line sheet has openings"
    count = len(first)
    first.clear()
    again = printed.guide_lines()
    assert len(again) == count and all(a is b for a, b in zip(again, printed.guide_lines()))


def test_sheets_built_between_others_come_out_byte_for_byte_the_same():
    """What the exporters keep between shapes and sheets (numbers, widths, wrapped lines, paint)
    never leaks from one sheet into another: a sheet built again after other sheets, in grey
    and with bleed, gives the same SVG."""
    from exporters.pages import PageOptions, sheet_page
    from inkcrawl.loading import open_dungeons

    opened = open_dungeons([str(GRID_SHEET), str(LINE_SHEET)]).dungeons
    first = [sheet_page(item.dungeon, item.ruleset).svg for item in opened]
    for item in opened:
        sheet_page(item.dungeon, item.ruleset, PageOptions(grayscale=True, bleed_mm=3, crop_marks=True))
    assert [sheet_page(item.dungeon, item.ruleset).svg for item in reversed(opened)] == first[::-1]
