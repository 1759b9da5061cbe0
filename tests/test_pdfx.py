"""PDF/X-4 in CMYK, and fonts embedded as subsets shared by all pages (issue 15), checked with
independent readers: pypdf for the structure and the content streams' colour operators, fontTools
for the embedded font programs and, where installed, poppler's ``pdffonts`` and ``pdfinfo``.

The PDF/X tests need a CMYK output profile on the machine (Ghostscript's, from Debian's
``libgs-common``); they skip without one."""

from __future__ import annotations

import re
import shutil
import subprocess
from io import BytesIO

import pypdf
import pytest
from conftest import PACKS
from pypdf.generic import ContentStream

from exporters import pdfx
from inkcrawl.cli import main

GRID_PACK = PACKS / "ember-halls"
LINE_PACK = PACKS / "lantern-depths"
GRID_SHEET = GRID_PACK / "dungeons" / "cinder-vault.json"


def _profile():
    try:
        return pdfx.find_cmyk_profile()
    except pdfx.PdfxError:
        return None


PROFILE = _profile()
needs_profile = pytest.mark.skipif(
    PROFILE is None or not PROFILE.is_file(),
    reason="no CMYK output profile installed (Debian: apt install libgs-common)",
)
needs_pdffonts = pytest.mark.skipif(shutil.which("pdffonts") is None, reason="poppler-utils is not installed")


def _run(capsys, *argv):
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _colours(page) -> list[tuple[str, tuple[float, ...], bool]]:
    """``(operator, values, in text)`` of every colour a page's content sets, read with pypdf's
    content stream parser; ``in text``: set inside a ``BT ... ET`` text object or used by one
    (the fill colour current when a ``BT`` starts)."""
    found = []
    fill: tuple[float, ...] = ()
    in_text = False
    for operands, operator in ContentStream(page.get_contents(), page.pdf).operations:
        if operator == b"BT":
            in_text = True
            if fill:
                found.append(("text-fill", fill, True))
        elif operator == b"ET":
            in_text = False
        elif operator in (b"rg", b"RG", b"k", b"K", b"g", b"G", b"sc", b"scn", b"SC", b"SCN"):
            values = tuple(float(v) for v in operands if not isinstance(v, str))
            if operator in (b"sc", b"scn", b"k", b"rg", b"g"):
                fill = values
            found.append((operator.decode(), values, in_text))
    return found


# PDF/X-4 ---------------------------------------------------------------------------------------


@needs_profile
def test_pdfx4_declares_its_version_and_a_cmyk_output_intent(tmp_path, capsys):
    out = tmp_path / "shop.pdf"
    code, _, err = _run(capsys, "export", "sheet", GRID_PACK, "-o", out, "--bleed", 3, "--pdfx", 4)
    assert code == 0, err
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.6")  # PDF/X-4 is PDF 1.6
    reader = pypdf.PdfReader(out)
    root = reader.trailer["/Root"]
    (intent,) = [i.get_object() for i in root["/OutputIntents"]]
    assert intent["/S"] == "/GTS_PDFX"
    profile = intent["/DestOutputProfile"].get_object()
    assert profile["/N"] == 4  # a CMYK profile, the very one installed
    assert profile.get_data() == PROFILE.read_bytes()
    assert intent["/OutputConditionIdentifier"]
    xmp = root["/Metadata"].get_object().get_data().decode()
    assert 'pdfxid:GTS_PDFXVersion="PDF/X-4"' in xmp
    assert reader.metadata["/GTS_PDFXVersion"] == "PDF/X-4"
    assert reader.metadata["/Title"] == "inkcrawl play sheets"  # PDF/X requires a title
    assert reader.metadata["/Trapped"] == "/False"
    for page in reader.pages:  # the boxes a shop trims by, as in RGB
        assert "/TrimBox" in page and "/BleedBox" in page
        spaces = page["/Resources"]["/ColorSpace"]
        assert "/DeviceRGB" not in [spaces[name] for name in spaces]  # no page names an RGB space


@needs_profile
def test_pdfx4_paints_in_cmyk_only_and_black_as_k_only(tmp_path, capsys):
    out = tmp_path / "shop.pdf"
    code, _, err = _run(capsys, "export", "sheet", GRID_SHEET, LINE_PACK, "-o", out, "--pdfx", 4)
    assert code == 0, err
    ink_k = 1 - 0x1B / 255  # the palette's ink, #1b1b1b: K only, no C, M or Y
    texts = 0
    for page in pypdf.PdfReader(out).pages:
        colours = _colours(page)
        assert colours
        for operator, values, in_text in colours:
            assert operator in ("sc", "scn", "SC", "SCN", "text-fill"), operator  # never rg, RG, g or G
            assert len(values) == 4, (operator, values)  # C, M, Y, K
            assert sum(values) <= 2.4 + 1e-6
            if values[3] >= ink_k - 1e-6:  # the ink and anything darker is K only, never a rich black
                assert values[:3] == (0, 0, 0), values
            if in_text:
                texts += values == pytest.approx((0, 0, 0, ink_k), abs=1e-6)  # text in the ink: K only
    assert texts > 20


def test_ink_limited_keeps_k_and_scales_the_other_inks():
    # #800000: Qt's CMYK is K = 1 - 128/255 = 0.498, M = Y = 1: 250 % ink. Within 240 %, K stays,
    # M and Y scale by (2.4 - 0.498) / 2 = 0.951: G = B = (1 - 0.951) * 0.502 * 255 = 6.27 -> 7
    assert pdfx.ink_limited("#800000") == "#800707"
    c, m, y, k = pdfx.qt_cmyk((128 / 255, 7 / 255, 7 / 255))
    assert k == pytest.approx(1 - 128 / 255) and c == 0
    assert m + y + k == pytest.approx(2.389, abs=0.001)
    assert pdfx.ink_limited("#1b1b1b") == "#1b1b1b"  # greys are K only: 89 %
    assert pdfx.ink_limited("#8a2d1c") == "#8a2d1c"  # the accent: 193 %
    assert pdfx.ink_limited("#000000") == "#000000"  # pure black: K 100 %


@needs_profile
def test_a_colour_over_the_total_ink_prints_within_it():
    from exporters import qt
    from exporters.pages import Page

    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="50mm" viewBox="0 0 50 50">'
        '<rect x="5" y="5" width="40" height="40" fill="#800000" stroke="#000080" stroke-width="2"/></svg>'
    )
    data, _ = qt.pdf_bytes([Page(svg, 50, 50, "ink")], pdfx=pdfx.cmyk_output_intent())
    colours = {values for _, values, _ in _colours(pypdf.PdfReader(BytesIO(data)).pages[0])}
    # both colours were 250 %: #800000 (M = Y = 1) and #000080 (C = M = 1), K = 1 - 128/255. Within
    # 240 % they print as #800707 and #070780: the two inks (1 - 7/255 - K) / (1 - K) each, K as it was
    k = 1 - 128 / 255
    ink = (1 - 7 / 255 - k) / (1 - k)
    expected = [(0, ink, ink, k), (ink, ink, 0, k)]
    for wanted in expected:
        assert any(values == pytest.approx(wanted, abs=1e-5) for values in colours), colours
    assert max(sum(values) for values in colours) == pytest.approx(k + 2 * ink, abs=1e-5)
    assert k + 2 * ink <= 2.4


@needs_profile
def test_card_sheets_as_pdfx4(tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    code, _, err = _run(capsys, "export", "cards", GRID_PACK, "-o", out, "--bleed", 3, "--backs", "--pdfx", 4)
    assert code == 0, err
    reader = pypdf.PdfReader(out)
    assert reader.metadata["/GTS_PDFXVersion"] == "PDF/X-4"
    assert reader.trailer["/Root"]["/OutputIntents"][0].get_object()["/S"] == "/GTS_PDFX"


@needs_profile
def test_preflight_finds_the_pdfx_export_ready(tmp_path, capsys):
    out = tmp_path / "shop.pdf"
    assert _run(capsys, "export", "sheet", GRID_PACK, "-o", out, "--bleed", 3.175, "--pdfx", 4)[0] == 0
    code, text, _ = _run(capsys, "preflight", out, "--bleed", 3.175)
    assert code == 0, text
    assert "PDF/X-4, 4 pages: ready for a print shop" in text


def test_pdfx_1a_says_why_it_is_not_offered(tmp_path, capsys):
    out = tmp_path / "shop.pdf"
    code, _, err = _run(capsys, "export", "sheet", GRID_SHEET, "-o", out, "--pdfx", "1a")
    assert code == 2
    assert "PDF/X-1a is not offered" in err and "Qt" in err and "PDF/X-4" in err
    assert not out.exists()


def test_pdfx_refuses_what_is_not_a_cmyk_output_profile(tmp_path, capsys):
    rgb = tmp_path / "rgb.icc"
    header = bytearray(132)
    header[12:16], header[16:20], header[36:40] = b"mntr", b"RGB ", b"acsp"
    rgb.write_bytes(bytes(header))
    not_icc = tmp_path / "notes.icc"
    not_icc.write_text("not a profile")
    out = tmp_path / "shop.pdf"
    for profile, words in (
        (rgb, "a profile of RGB colour, not CMYK"),
        (not_icc, "is not an ICC colour profile"),
        (tmp_path / "missing.icc", "cannot read the CMYK profile"),
    ):
        code, _, err = _run(capsys, "export", "sheet", GRID_SHEET, "-o", out, "--pdfx", 4, "--output-profile", profile)
        assert code == 2 and words in err, err
        assert "Traceback" not in err
    assert not out.exists()


def test_no_profile_found_says_how_to_get_one(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(pdfx.PROFILE_VARIABLE, raising=False)
    monkeypatch.setattr(pdfx, "CMYK_PROFILE_PLACES", (tmp_path / "none.icc",))
    code, _, err = _run(capsys, "export", "sheet", GRID_SHEET, "-o", tmp_path / "a.pdf", "--pdfx", 4)
    assert code == 2
    assert "none was found" in err and "--output-profile" in err and "libgs-common" in err


def test_pdfx_applies_to_pdf_only(tmp_path, capsys):
    code, _, err = _run(capsys, "export", "sheet", GRID_SHEET, "-o", tmp_path / "a.svg", "--pdfx", 4)
    assert code == 2 and "apply to PDF output only" in err
    code, _, err = _run(capsys, "export", "sheet", GRID_SHEET, "-o", tmp_path / "a.pdf", "--output-profile", "x.icc")
    assert code == 2 and "--output-profile needs --pdfx 4" in err


# Fonts: subset, once per document ----------------------------------------------------------------


def _font_files(reader) -> dict[int, bytes]:
    """Every embedded font program of the document, by object number, found through the pages."""
    found = {}
    for page in reader.pages:
        for reference in page["/Resources"]["/Font"].values():
            font = reference.get_object()
            for part in [font, *[d.get_object() for d in font.get("/DescendantFonts", [])]]:
                descriptor = part.get("/FontDescriptor")
                if descriptor is not None and "/FontFile2" in descriptor.get_object():
                    stream = descriptor.get_object().raw_get("/FontFile2")
                    found[stream.idnum] = stream.get_object().get_data()
    return found


def test_fonts_are_embedded_once_as_subsets_named_as_such(tmp_path, capsys):
    from fontTools.ttLib import TTFont

    from exporters import style

    out = tmp_path / "sheets.pdf"
    code, _, err = _run(capsys, "export", "sheet", GRID_PACK, LINE_PACK, "-o", out)
    assert code == 0, err
    reader = pypdf.PdfReader(out)
    assert len(reader.pages) == 8
    programs = _font_files(reader)
    assert len(programs) == 2  # regular and bold, each once for all 8 pages
    whole = [len(TTFont(str(path)).getGlyphOrder()) for path in style.FONT_FILES]
    for data in programs.values():
        glyphs = len(TTFont(BytesIO(data)).getGlyphOrder())
        assert glyphs < 200 < min(whole)  # the glyphs used, not DejaVu's thousands
    names = set()
    for page in reader.pages:
        for reference in page["/Resources"]["/Font"].values():
            font = reference.get_object()
            descendant = font["/DescendantFonts"][0].get_object()
            tag = str(descendant["/FontDescriptor"]["/FontName"]).lstrip("/")
            assert re.fullmatch(r"[A-Z]{6}\+DejaVuSans(-Bold)?", tag)
            assert str(font["/BaseFont"]).lstrip("/") == tag == str(descendant["/BaseFont"]).lstrip("/")
            names.add(tag)
    assert len(names) == 2


@needs_pdffonts
def test_pdffonts_sees_embedded_subsets(tmp_path, capsys):
    out = tmp_path / "sheets.pdf"
    assert _run(capsys, "export", "sheet", GRID_PACK, "-o", out)[0] == 0
    rows = subprocess.check_output(["pdffonts", str(out)], text=True).splitlines()[2:]
    assert len(rows) == 2, rows
    for row in rows:
        name, *_, emb, sub, uni, _obj, _gen = row.split()
        assert re.fullmatch(r"[A-Z]{6}\+DejaVuSans(-Bold)?", name)
        assert (emb, sub, uni) == ("yes", "yes", "yes"), row


@needs_profile
@pytest.mark.skipif(shutil.which("pdfinfo") is None, reason="poppler-utils is not installed")
def test_pdfinfo_reads_the_pdfx_file(tmp_path, capsys):
    out = tmp_path / "shop.pdf"
    assert _run(capsys, "export", "sheet", GRID_SHEET, "-o", out, "--pdfx", 4)[0] == 0
    info = subprocess.check_output(["pdfinfo", str(out)], text=True)
    assert re.search(r"^PDF version:\s+1\.6$", info, re.M)
    assert re.search(r"^Pages:\s+1$", info, re.M)
    assert re.search(r"^Metadata Stream:\s+yes$", info, re.M)


@needs_profile
def test_the_profile_given_or_named_is_the_one_embedded(tmp_path, capsys, monkeypatch):
    given = tmp_path / "shop-profile.icc"
    given.write_bytes(PROFILE.read_bytes())
    for argv, environment in (((["--output-profile", given]), None), ([], str(given))):
        if environment:
            monkeypatch.setenv(pdfx.PROFILE_VARIABLE, environment)
        out = tmp_path / "shop.pdf"
        code, _, err = _run(capsys, "export", "sheet", GRID_SHEET, "-o", out, "--pdfx", 4, *argv)
        assert code == 0, err
        intent = pypdf.PdfReader(out).trailer["/Root"]["/OutputIntents"][0].get_object()
        assert intent["/DestOutputProfile"].get_object().get_data() == given.read_bytes()
        # the condition is named by the profile's own description (its 'desc' tag)
        assert intent["/OutputCondition"] == pdfx.read_output_intent(given).description != ""
