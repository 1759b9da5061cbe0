"""A deck's own card back (``back`` in a pack's deck, RULES.md's decks; issue #15, Cards): an
image inside the pack drawn over every back and its bleed instead of the pack's name, on card
sheets, print-on-demand decks and card images, and in CMYK within the total ink limit in PDF/X-4."""

from __future__ import annotations

import json
import shutil

import pypdf
import pytest
from conftest import PACKS
from PySide6.QtGui import QColor, QImage

from exporters import pdfx
from exporters.qt import ensure_app
from inkcrawl.cli import main

GRID_PACK = PACKS / "ember-halls"
#: The art: green with a black stripe, the black rich (every ink at 100 %, 400 % in all).
ART_GREEN = "#2a7f3c"


def _profile():
    try:
        return pdfx.find_cmyk_profile()
    except pdfx.PdfxError:
        return None


needs_profile = pytest.mark.skipif(_profile() is None, reason="no CMYK output profile installed")


def _run(capsys, *argv):
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _pack_with_back(tmp_path, back="art/back.png", write_art=True):
    pack = tmp_path / "pack"
    shutil.copytree(GRID_PACK, pack)
    if write_art:
        ensure_app()
        image = QImage(825, 1125, QImage.Format.Format_RGB32)
        image.fill(QColor(ART_GREEN))
        for y in range(500, 600):
            for x in range(825):
                image.setPixelColor(x, y, QColor("#000000"))
        (pack / "art").mkdir()
        assert image.save(str(pack / "art" / "back.png"))
    manifest = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    manifest["decks"][0]["back"] = back
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    return pack


def test_the_backs_show_the_decks_art_over_the_card_and_its_bleed(tmp_path, capsys):
    from exporters.cards import back_art_uri, card_pages
    from exporters.pages import PageOptions
    from exporters.qt import svg_to_png
    from inkcrawl.rulesets import bundled_rulesets

    pack = _pack_with_back(tmp_path)
    assert _run(capsys, "validate", pack)[0] == 0
    art = back_art_uri(pack / "art" / "back.png")
    front, back = card_pages({"trap": 1}, bundled_rulesets()["grid-classic"], PageOptions(), True, "Ember", art)
    assert 'data-kind="back-art"' in back.svg and "back-name" not in back.svg and "back-art" not in front.svg
    # the card is 63 x 88 mm on A4: at 25.4 dpi a millimetre is a pixel; its top quarter is green
    png = svg_to_png(back.svg, back.width_mm, back.height_mm, dpi=25.4)
    image = QImage.fromData(png)
    xs = [x for x in range(image.width()) if image.pixelColor(x, 30).name() == ART_GREEN]
    assert xs and 60 <= xs[-1] - xs[0] + 1 <= 66  # one card wide, its 0-1 mm of bleed on each side


def test_the_print_on_demand_deck_and_card_images_carry_the_art(tmp_path, capsys):
    pack = _pack_with_back(tmp_path)
    out = tmp_path / "deck.pdf"
    code, _, err = _run(capsys, "export", "cards", pack, "-o", out, "--preset", "drivethrucards")
    assert code == 0, err
    reader = pypdf.PdfReader(out)
    images = [list(page["/Resources"].get("/XObject", {}).values()) for page in reader.pages[:2]]
    assert len(images[0]) == 1 and not images[1]  # the back (first) has the art, the front none
    assert images[0][0].get_object()["/ColorSpace"] == "/DeviceRGB"
    code, _, err = _run(capsys, "export", "cards", pack, "-o", tmp_path / "tgc.png", "--preset", "thegamecrafter")
    assert code == 0, err
    back = QImage(str(tmp_path / "tgc-back.png"))
    assert (back.width(), back.height()) == (825, 1125)
    assert back.pixelColor(412, 200).name() == ART_GREEN and back.pixelColor(412, 550).name() == "#000000"


@needs_profile
def test_in_pdfx4_the_art_is_cmyk_within_the_total_ink_limit(tmp_path, capsys):
    pack = _pack_with_back(tmp_path)
    out = tmp_path / "shop.pdf"
    code, _, err = _run(capsys, "export", "cards", pack, "-o", out, "--preset", "drivethrucards", "--pdfx", 4)
    assert code == 0, err
    art = next(iter(pypdf.PdfReader(out).pages[0]["/Resources"]["/XObject"].values())).get_object()
    assert art["/ColorSpace"] == "/DeviceCMYK" and art["/Filter"] == "/DCTDecode"
    image = QImage.fromData(art.get_data())
    assert image.format() == QImage.Format.Format_CMYK8888
    bits = bytes(image.constBits())
    # a CMYK JPEG with Adobe's marker (APP14) stores its inks inverted, which PDF readers undo
    adobe = b"Adobe" in art.get_data()[:256]

    def inks(x, y):  # C, M, Y, K of a pixel, 0 to 1
        at = y * image.bytesPerLine() + x * 4
        return [1 - value / 255 if adobe else value / 255 for value in bits[at : at + 4]]

    black, green = inks(412, 550), inks(412, 200)
    assert sum(black) <= pdfx.MAX_TOTAL_INK + 0.03 and black[3] > 0.85  # rich black: C, M, Y cut down, K kept
    assert green[0] > 0.5 and green[2] > 0.5 and green[1] < 0.3  # green: cyan and yellow
    code, text, _ = _run(capsys, "preflight", out, "--bleed", 3.175)
    assert code == 0, text


@pytest.mark.parametrize(
    "back, write, message",
    [
        ("art/missing.png", False, "P002 'art/missing.png' does not exist in the pack folder"),
        ("../outside.png", False, "P001 '../outside.png'"),
    ],
)
def test_a_back_that_is_not_in_the_pack_is_named_by_validation(tmp_path, capsys, back, write, message):
    pack = _pack_with_back(tmp_path, back, write)
    code, out, _ = _run(capsys, "validate", pack)
    assert code == 1 and "/decks/0/back" in out and message in out, out


def test_a_back_that_is_no_image_is_refused_and_nothing_written(tmp_path, capsys):
    pack = _pack_with_back(tmp_path)
    (pack / "art" / "back.png").write_text("not an image", encoding="utf-8")
    code, out_text, _ = _run(capsys, "validate", pack)
    assert code == 1 and "/decks/0/back: error P007 the card back 'art/back.png' is neither a PNG" in out_text
    out = tmp_path / "deck.pdf"
    code, _, err = _run(capsys, "export", "cards", pack, "-o", out, "--backs", "--force")
    assert code != 0 and "'art/back.png' is neither a PNG nor a JPEG image" in err and "Traceback" not in err
    assert not out.exists()


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` pixels, its data a few zero rows."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\0" * (1 + width * 3) * 4)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    "content, message",
    [
        (lambda: _png_claiming(100_000, 100_000), "is 100000 x 100000 pixels, more than 16 million"),
        (lambda: _png_claiming(800, 1100), "cannot be read as an image"),  # its rows end early
    ],
)
def test_a_back_too_large_or_broken_is_refused_before_it_is_drawn(tmp_path, capsys, content, message):
    pack = _pack_with_back(tmp_path)
    (pack / "art" / "back.png").write_bytes(content())
    for extra in (["--backs"], ["--preset", "drivethrucards"]):
        out = tmp_path / "deck.pdf"
        code, _, err = _run(capsys, "export", "cards", pack, "-o", out, *extra)
        assert code != 0 and "'art/back.png' cannot be used: it " + message in err, err
        assert len(err) < 2000 and not out.exists()
    # without backs the image is not read: the fronts print
    assert _run(capsys, "export", "cards", pack, "-o", tmp_path / "fronts.pdf")[0] == 0


def test_the_art_is_embedded_once_in_a_print_on_demand_deck(tmp_path, capsys):
    pack = _pack_with_back(tmp_path)
    out = tmp_path / "deck.pdf"
    assert _run(capsys, "export", "cards", pack, "-o", out, "--preset", "drivethrucards")[0] == 0
    reader = pypdf.PdfReader(out)
    images = {ref.idnum for page in reader.pages for ref in page["/Resources"].get("/XObject", {}).values()}
    assert len(reader.pages) > 10 and len(images) == 1


@needs_profile
def test_a_cmyk_jpeg_back_goes_into_pdfx4(tmp_path, capsys):
    from PySide6.QtCore import QBuffer, QIODevice
    from PySide6.QtGui import QColorSpace

    pack = _pack_with_back(tmp_path, back="art/back.jpg")
    image = QImage(str(pack / "art" / "back.png"))
    image.setColorSpace(QColorSpace(QColorSpace.NamedColorSpace.SRgb))
    profile = QColorSpace.fromIccProfile(pdfx.cmyk_output_intent().profile)
    cmyk = image.convertedToColorSpace(profile, QImage.Format.Format_CMYK8888)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert cmyk.save(buffer, "JPEG", 95)
    (pack / "art" / "back.jpg").write_bytes(bytes(buffer.data()))
    out = tmp_path / "shop.pdf"
    code, _, err = _run(capsys, "export", "cards", pack, "-o", out, "--preset", "drivethrucards", "--pdfx", 4)
    assert code == 0, err
    art = next(iter(pypdf.PdfReader(out).pages[0]["/Resources"]["/XObject"].values())).get_object()
    assert art["/ColorSpace"] == "/DeviceCMYK"
