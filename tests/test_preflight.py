"""``inkcrawl preflight``: what a print shop rejects, found in hand-made bad PDFs (built here with
pypdf: an RGB image, a font not embedded, no bleed, a TrimBox outside the BleedBox, too much ink),
each named with its page; exit 0 clean, 1 problems, 2 a file that cannot be read."""

from __future__ import annotations

import json
import zlib

import pypdf
import pytest
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    RectangleObject,
    StreamObject,
    TextStringObject,
)

from exporters.preflight import preflight
from inkcrawl.cli import main

PT = 72 / 25.4
SIDE = 200.0  # points: the MediaBox of every hand-made page


def _stream(writer, data: bytes, **entries):
    """A stream object of ``data`` as it is stored (already encoded when ``/Filter`` is given)."""
    stream = StreamObject()
    stream._data = data
    for key, value in entries.items():
        stream[NameObject(key)] = value
    return writer._add_object(stream)


def _page(writer, content: bytes = b"", boxes=None, resources=None):
    page = writer.add_blank_page(SIDE, SIDE)
    for name, rect in (boxes or {}).items():
        page[NameObject(name)] = RectangleObject(rect)
    if resources is not None:
        page[NameObject("/Resources")] = resources
    if content:
        page[NameObject("/Contents")] = _stream(writer, content)
    return page


def _write(tmp_path, writer, name="made.pdf"):
    path = tmp_path / name
    with open(path, "wb") as file:
        writer.write(file)
    return path


def _good_boxes(bleed_mm=3.0):
    """Trim 20 pt inside the media box, bleed ``bleed_mm`` beyond the trim."""
    grow = bleed_mm * PT
    return {
        "/TrimBox": [20, 20, SIDE - 20, SIDE - 20],
        "/BleedBox": [20 - grow, 20 - grow, SIDE - 20 + grow, SIDE - 20 + grow],
    }


def _image(writer, width: int, height: int, space: str, components: int):
    data = bytes(128 for _ in range(width * height * components))
    return _stream(
        writer,
        data,
        **{
            "/Type": NameObject("/XObject"),
            "/Subtype": NameObject("/Image"),
            "/Width": NumberObject(width),
            "/Height": NumberObject(height),
            "/ColorSpace": NameObject(space),
            "/BitsPerComponent": NumberObject(8),
        },
    )


def _run(capsys, *argv):
    code = main(["preflight", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _codes(report):
    return sorted((problem.code, problem.page) for problem in report.problems)


def test_a_clean_pdf_passes(tmp_path, capsys):
    writer = pypdf.PdfWriter()
    _page(writer, b"0 0 0 1 k 30 30 100 100 re f", _good_boxes())
    path = _write(tmp_path, writer)
    assert preflight(path, bleed_mm=3, cmyk=True).problems == []
    code, out, _ = _run(capsys, path, "--bleed", 3, "--cmyk")
    assert code == 0
    assert out.strip().endswith("PDF, 1 page: ready for a print shop")


def test_an_rgb_image_at_low_resolution(tmp_path, capsys):
    writer = pypdf.PdfWriter()
    # 100 x 100 px drawn 72 x 72 pt (one inch): 100 dpi; 300 x 300 px on an inch: 300 dpi, fine
    low = _image(writer, 100, 100, "/DeviceRGB", 3)
    fine = _image(writer, 300, 300, "/DeviceCMYK", 4)
    resources = DictionaryObject(
        {NameObject("/XObject"): DictionaryObject({NameObject("/Im1"): low, NameObject("/Im2"): fine})}
    )
    _page(writer, b"q 72 0 0 72 30 30 cm /Im1 Do Q q 72 0 0 72 110 30 cm /Im2 Do Q", _good_boxes(), resources)
    path = _write(tmp_path, writer)
    report = preflight(path, cmyk=True)
    assert _codes(report) == [("low-resolution", 1), ("rgb-colour", 1)]
    low_res = next(p for p in report.problems if p.code == "low-resolution")
    assert "Im1 (100 x 100 px) prints at 100 dpi, below 300 dpi" in low_res.message
    assert "image (image Im1)" in next(p for p in report.problems if p.code == "rgb-colour").message
    # the CMYK image's pixels are 4 x 128/255 = 201 % ink: within 240 %, but not within 200 %
    assert ("total-ink", 1) in _codes(preflight(path, max_ink=2.0))
    # without CMYK asked for (and no PDF/X), RGB is no problem
    assert _codes(preflight(path)) == [("low-resolution", 1)]
    code, out, _ = _run(capsys, path, "--cmyk")
    assert code == 1
    assert "page 1: error:" in out and "1 problem" not in out and "2 problems a print shop would reject" in out


def test_a_font_that_is_not_embedded(tmp_path, capsys):
    writer = pypdf.PdfWriter()
    helvetica = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    resources = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(helvetica)})}
    )
    _page(writer, b"0 0 0 1 k", _good_boxes())
    _page(writer, b"BT /F1 12 Tf 40 100 Td (Room 1) Tj ET", _good_boxes(), resources)
    path = _write(tmp_path, writer)
    report = preflight(path)
    assert _codes(report) == [("font-not-embedded", 2)]
    assert report.problems[0].message == "font Helvetica (Type1) is not embedded"
    code, out, _ = _run(capsys, path, "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["pages"] == 2 and data["errors"] == 1
    assert data["problems"] == [
        {
            "code": "font-not-embedded",
            "severity": "error",
            "page": 2,
            "message": "font Helvetica (Type1) is not embedded",
        }
    ]


def test_no_bleed_and_too_little_bleed(tmp_path, capsys):
    writer = pypdf.PdfWriter()
    _page(writer)  # the MediaBox only: no TrimBox
    _page(writer, boxes=_good_boxes(bleed_mm=1.0))  # 1 mm of bleed
    _page(writer, boxes=_good_boxes(bleed_mm=3.175))
    path = _write(tmp_path, writer)
    report = preflight(path, bleed_mm=3.175)
    assert _codes(report) == [("no-bleed", 2), ("no-trimbox", 1)]
    assert "the bleed is 1.00 mm, less than the 3.175 mm asked" in report.problems[1].message
    assert preflight(path).problems == []  # no bleed asked: none needed
    assert _run(capsys, path, "--bleed", "3.175")[0] == 1


def test_a_trimbox_outside_the_bleedbox(tmp_path):
    writer = pypdf.PdfWriter()
    _page(writer, boxes=_good_boxes())
    _page(writer, boxes={"/TrimBox": [10, 10, 190, 190], "/BleedBox": [12, 12, 188, 188]})
    _page(writer, boxes={"/TrimBox": [10, 10, 190, 190], "/ArtBox": [5, 20, 180, 180], "/BleedBox": [0, 0, 200, 200]})
    _page(writer, boxes={"/BleedBox": [-5, 0, 200, 200]})
    path = _write(tmp_path, writer)
    report = preflight(path)
    assert _codes(report) == [
        ("artbox-outside-trimbox", 3),
        ("bleedbox-outside-mediabox", 4),
        ("trimbox-outside-bleedbox", 2),
    ]
    message = next(p.message for p in report.problems if p.page == 2)
    assert message == "TrimBox [10.00 10.00 190.00 190.00] is outside the BleedBox [12.00 12.00 188.00 188.00]"


def test_total_ink_over_the_limit(tmp_path):
    writer = pypdf.PdfWriter()
    # 0.9 x 4 = 360 % ink; 0.6 x 4 = 240 % is just within the limit
    _page(writer, b"0.6 0.6 0.6 0.6 k 0 0 10 10 re f /DeviceCMYK CS 0.9 0.9 0.9 0.9 SC 0 0 m 50 50 l S")
    path = _write(tmp_path, writer)
    report = preflight(path)
    assert _codes(report) == [("total-ink", 1)]
    assert report.problems[0].message == "1 colour(s) or image(s) lay down more than 240% ink (up to 360%)"
    assert _codes(preflight(path, max_ink=3.6)) == []


def _pdfx_writer(components: int = 4):
    writer = pypdf.PdfWriter()
    profile = _stream(writer, b"profile", **{"/N": NumberObject(components)})
    intent = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/OutputIntent"),
            NameObject("/S"): NameObject("/GTS_PDFX"),
            NameObject("/OutputConditionIdentifier"): TextStringObject("made by hand"),
            NameObject("/DestOutputProfile"): profile,
        }
    )
    writer._root_object[NameObject("/OutputIntents")] = ArrayObject([writer._add_object(intent)])
    writer.add_metadata({"/GTS_PDFXVersion": "PDF/X-4", "/Title": "hand-made"})
    return writer


def test_rgb_in_a_pdfx_file_is_found_without_asking(tmp_path):
    writer = _pdfx_writer()
    _page(writer, b"0 0 0 1 k 0 0 10 10 re f")
    _page(writer, b"1 0 0 rg 0 0 10 10 re f /DeviceRGB CS 0 0 1 SC 0 0 m 9 9 l S")
    path = _write(tmp_path, writer)
    report = preflight(path)
    assert report.pdfx == "PDF/X-4" and report.cmyk_required
    assert _codes(report) == [("rgb-colour", 2)]
    assert report.problems[0].message == "device RGB colour (2 times) where CMYK is required"


def test_a_pdfx_file_without_output_intent(tmp_path):
    writer = pypdf.PdfWriter()
    writer.add_metadata({"/GTS_PDFXVersion": "PDF/X-4"})
    _page(writer)
    report = preflight(_write(tmp_path, writer))
    assert _codes(report) == [("no-output-intent", None)]


def test_flate_cmyk_image_ink_is_measured(tmp_path):
    writer = pypdf.PdfWriter()
    pixels = bytes([255, 255, 255, 0]) + bytes([0, 0, 0, 255])  # 300 % and 100 %
    image = _stream(
        writer,
        zlib.compress(pixels),
        **{
            "/Filter": NameObject("/FlateDecode"),
            "/Type": NameObject("/XObject"),
            "/Subtype": NameObject("/Image"),
            "/Width": NumberObject(2),
            "/Height": NumberObject(1),
            "/ColorSpace": NameObject("/DeviceCMYK"),
            "/BitsPerComponent": NumberObject(8),
        },
    )
    resources = DictionaryObject({NameObject("/XObject"): DictionaryObject({NameObject("/Im"): image})})
    _page(writer, b"q 0.48 0 0 0.24 0 0 cm /Im Do Q", resources=resources)  # 2 px on 0.48 pt: 300 dpi
    report = preflight(_write(tmp_path, writer))
    assert _codes(report) == [("total-ink", 1)]
    assert "(up to 300%)" in report.problems[0].message


@pytest.mark.parametrize("content", [b"not a pdf at all", b"%PDF-1.4\n1 0 obj\n<<", b""])
def test_unreadable_files_exit_2_without_a_traceback(tmp_path, capsys, content):
    path = tmp_path / "broken.pdf"
    path.write_bytes(content)
    code, out, err = _run(capsys, path)
    assert code == 2
    assert err.startswith("inkcrawl preflight: error:") and "Traceback" not in err
    assert out == ""


def test_a_missing_file_or_a_folder_exits_2(tmp_path, capsys):
    code, _, err = _run(capsys, tmp_path / "none.pdf")
    assert code == 2 and "does not exist" in err
    code, _, err = _run(capsys, tmp_path)
    assert code == 2 and "folder" in err


def test_preflight_help_has_examples_and_exit_codes(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["preflight", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "inkcrawl preflight shop.pdf" in out
    assert "exit codes: 0 clean, 1 problems a shop would reject, 2 usage error" in out


def test_a_qt_pdf_with_an_rgb_image_is_caught(tmp_path):
    """A PDF that Qt makes (not inkcrawl's sheet): an RGB picture drawn 40 mm wide from 64 px."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QColor, QImage, QPainter, QPdfWriter

    from exporters import qt

    qt.ensure_app()
    path = tmp_path / "photo.pdf"
    writer = QPdfWriter(str(path))
    writer.setResolution(72)
    image = QImage(64, 64, QImage.Format.Format_RGB32)
    image.fill(QColor(200, 40, 40))
    painter = QPainter(writer)
    painter.drawImage(QRectF(0, 0, 40 * PT, 40 * PT), image)
    painter.end()
    report = preflight(path, cmyk=True)
    codes = {code for code, _ in _codes(report)}
    assert {"rgb-colour", "low-resolution"} <= codes
    # 64 px over 40 mm: 64 / (40 / 25.4) = 40.6 dpi
    assert any("prints at 41 dpi" in p.message for p in report.problems)


def test_a_font_embedded_whole_is_a_warning_only(tmp_path, capsys):
    writer = pypdf.PdfWriter()
    program = _stream(writer, b"\0\1\0\0 not a real font program")
    descriptor = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/FontDescriptor"),
                NameObject("/FontName"): NameObject("/Handmade"),
                NameObject("/FontFile2"): program,
            }
        )
    )
    whole = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/TrueType"),
            NameObject("/BaseFont"): NameObject("/Handmade"),
            NameObject("/FontDescriptor"): descriptor,
        }
    )
    subset = DictionaryObject({**whole, NameObject("/BaseFont"): NameObject("/ABCDEF+Handmade")})
    fonts = DictionaryObject(
        {NameObject("/F1"): writer._add_object(whole), NameObject("/F2"): writer._add_object(subset)}
    )
    _page(writer, b"BT /F1 9 Tf (a) Tj /F2 9 Tf (b) Tj ET", resources=DictionaryObject({NameObject("/Font"): fonts}))
    path = _write(tmp_path, writer)
    report = preflight(path)
    assert [(p.code, p.severity, p.page) for p in report.problems] == [("font-not-subset", "warning", 1)]
    assert report.errors == []
    code, out, _ = _run(capsys, path)
    assert code == 0
    assert "font Handmade is embedded whole, not as a subset" in out
    assert out.strip().endswith("ready for a print shop, 1 warning")


def test_an_encrypted_pdf_cannot_be_checked(tmp_path, capsys):
    writer = pypdf.PdfWriter()
    _page(writer)
    writer.encrypt("secret")
    code, _, err = _run(capsys, _write(tmp_path, writer))
    assert code == 2 and "is encrypted" in err


@pytest.mark.parametrize("limit, over", [(9.0, True), (2.4, False)])
def test_a_cmyk_jpeg_images_ink_is_measured(tmp_path, limit, over):
    """A DeviceCMYK JPEG (a card back's art in PDF/X) is decoded to measure its ink: black art
    converted to CMYK with no limit lays down about 300 %, held to 240 % it passes."""
    from PySide6.QtCore import QBuffer, QIODevice
    from PySide6.QtGui import QColor, QImage

    from exporters import pdfx
    from exporters.qt import ensure_app, pdf_bytes

    try:
        intent = pdfx.cmyk_output_intent()
    except pdfx.PdfxError:
        pytest.skip("no CMYK output profile installed")
    ensure_app()
    black = QImage(16, 16, QImage.Format.Format_RGB32)
    black.fill(QColor("#000000"))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert black.save(buffer, "PNG")
    art = pdfx._cmyk_jpeg(bytes(buffer.data()), intent, limit)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20mm" '
        f'height="20mm" viewBox="0 0 20 20"><image x="0" y="0" width="1" height="1" '
        f'xlink:href="data:image/jpeg;base64,{art}"/></svg>'
    )

    from exporters.pages import Page

    path = tmp_path / "art.pdf"
    path.write_bytes(pdf_bytes([Page(svg, 20.0, 20.0, "art")])[0])
    report = preflight(path)
    assert [p.code for p in report.problems if p.code == "total-ink"] == (["total-ink"] if over else [])
    if over:
        assert "(up to 29" in report.problems[0].message or "(up to 30" in report.problems[0].message
