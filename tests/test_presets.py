"""Print presets (``--preset home|drivethrucards|thegamecrafter``): bleed, safe zone (ArtBox),
card size, page order and image formats, read back with pypdf and from the PNG files' own
headers; options given override a preset."""

from __future__ import annotations

import json
import struct

import pypdf
import pytest
from conftest import PACKS

from inkcrawl.cli import main

GRID_PACK = PACKS / "ember-halls"
GRID_SHEET = GRID_PACK / "dungeons" / "cinder-vault.json"
PT = 72 / 25.4
EIGHTH = 72 / 8  # 1/8 inch in points: the shops' bleed and safe zone
GENTLE = json.loads((GRID_PACK / "pack.json").read_text())["decks"][0]


def _run(capsys, *argv):
    code = main(["export", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _box(page, name):
    return tuple(round(float(value), 2) for value in page[name])


def _png_size_and_dpi(path) -> tuple[int, int, float]:
    """Width and height in pixels from the PNG's IHDR, and its dots per inch from its pHYs."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    at = data.index(b"pHYs")
    per_metre, _, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert unit == 1  # metres
    return width, height, per_metre * 0.0254


def test_drivethrucards_deck_is_one_card_per_page_back_then_front(tmp_path, capsys):
    out = tmp_path / "deck.pdf"
    code, text, err = _run(capsys, "cards", GRID_PACK, "-o", out, "--preset", "drivethrucards")
    assert code == 0, err
    reader = pypdf.PdfReader(out)
    count = sum(GENTLE["cards"].values())  # 36 cards in the pack's first deck
    assert len(reader.pages) == 2 * count
    assert f"({count} cards of deck {GENTLE['name']!r}, {2 * count} pages)" in text
    # 2.5 x 3.5 in cut plus 1/8 in on every side: 2.75 x 3.75 in = 198 x 270 pt
    for page in reader.pages:
        assert _box(page, "/MediaBox") == (0, 0, 198, 270)
        assert _box(page, "/BleedBox") == (0, 0, 198, 270)
        assert _box(page, "/TrimBox") == (EIGHTH, EIGHTH, 198 - EIGHTH, 270 - EIGHTH)
        assert _box(page, "/ArtBox") == (2 * EIGHTH, 2 * EIGHTH, 198 - 2 * EIGHTH, 270 - 2 * EIGHTH)
    # back, front, back, front: the backs carry the pack's name, the fronts the card's
    kinds = [kind for kind, number in GENTLE["cards"].items() for _ in range(number)]
    names = {"straight": "Straight", "corner": "Corner", "t_junction": "T junction", "cross": "Cross"}
    for index in (0, 8, 17, 24, 35):
        back, front = (" ".join(reader.pages[2 * index + side].extract_text().split()) for side in (0, 1))
        assert "Ember Halls" in back and "Ember Halls" not in front
        if kinds[index] in names:
            assert names[kinds[index]] in front


def test_an_explicit_bleed_overrides_the_preset(tmp_path, capsys):
    out = tmp_path / "deck.pdf"
    assert _run(capsys, "cards", GRID_PACK, "-o", out, "--preset", "drivethrucards", "--bleed", 2)[0] == 0
    page = pypdf.PdfReader(out).pages[0]
    width, height = 2.5 * 72 + 4 * PT, 3.5 * 72 + 4 * PT  # 2 mm of bleed on every side
    assert _box(page, "/MediaBox") == (0, 0, round(width, 2), round(height, 2))
    assert _box(page, "/TrimBox") == (
        round(2 * PT, 2),
        round(2 * PT, 2),
        round(width - 2 * PT, 2),
        round(height - 2 * PT, 2),
    )
    # the safe zone stays the preset's: 1/8 in inside the cut
    assert _box(page, "/ArtBox")[0] == round(2 * PT + EIGHTH, 2)


def test_the_game_crafter_cards_are_825_by_1125_pixel_pngs(tmp_path, capsys):
    out = tmp_path / "card.png"
    code, text, err = _run(capsys, "cards", GRID_PACK, "-o", out, "--preset", "thegamecrafter")
    assert code == 0, err
    kinds = [kind.replace("_", "-") for kind in GENTLE["cards"]]
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == sorted([f"card-{kind}.png" for kind in kinds] + ["card-back.png"])
    for name in written:
        width, height, dpi = _png_size_and_dpi(tmp_path / name)
        assert (width, height) == (825, 1125)  # 2.75 x 3.75 in at 300 dpi
        assert dpi == pytest.approx(300, abs=0.1)
    assert "straight x8" in text and "back x36" in text
    assert not out.exists()  # OUT names the set; each face is a file of its own


def test_presets_refuse_the_format_the_shop_does_not_take(tmp_path, capsys):
    code, _, err = _run(capsys, "cards", GRID_PACK, "-o", tmp_path / "c.pdf", "--preset", "thegamecrafter")
    assert code == 2 and "The Game Crafter takes cards as PNG images" in err
    code, _, err = _run(capsys, "cards", GRID_PACK, "-o", tmp_path / "c.png", "--preset", "drivethrucards")
    assert code == 2 and "DriveThruCards takes a deck as one PDF" in err
    assert list(tmp_path.iterdir()) == []


def test_a_sheet_with_a_shop_preset_gets_bleed_and_a_safe_zone(tmp_path, capsys):
    out = tmp_path / "sheet.pdf"
    assert _run(capsys, "sheet", GRID_SHEET, "-o", out, "--preset", "drivethrucards")[0] == 0
    page = pypdf.PdfReader(out).pages[0]
    a4 = (210 * PT, 297 * PT)
    assert _box(page, "/MediaBox") == (0, 0, round(a4[0] + 2 * EIGHTH, 2), round(a4[1] + 2 * EIGHTH, 2))
    assert _box(page, "/TrimBox") == (EIGHTH, EIGHTH, round(EIGHTH + a4[0], 2), round(EIGHTH + a4[1], 2))
    assert _box(page, "/ArtBox") == (2 * EIGHTH, 2 * EIGHTH, round(a4[0], 2), round(a4[1], 2))
    # --bleed 0 overrides the preset's bleed; the safe zone stays
    assert _run(capsys, "sheet", GRID_SHEET, "-o", out, "--preset", "drivethrucards", "--bleed", 0)[0] == 0
    page = pypdf.PdfReader(out).pages[0]
    assert _box(page, "/MediaBox") == (0, 0, round(a4[0], 2), round(a4[1], 2))
    assert _box(page, "/ArtBox") == (EIGHTH, EIGHTH, round(a4[0] - EIGHTH, 2), round(a4[1] - EIGHTH, 2))


def test_home_is_the_plain_export(tmp_path, capsys):
    plain, home = tmp_path / "plain.pdf", tmp_path / "home.pdf"
    assert _run(capsys, "sheet", GRID_SHEET, "-o", plain)[0] == 0
    assert _run(capsys, "sheet", GRID_SHEET, "-o", home, "--preset", "home")[0] == 0
    a, b = pypdf.PdfReader(plain).pages[0], pypdf.PdfReader(home).pages[0]
    assert _box(a, "/MediaBox") == _box(b, "/MediaBox") == (0, 0, round(210 * PT, 2), round(297 * PT, 2))
    assert "/ArtBox" not in b and _box(b, "/TrimBox") == _box(b, "/MediaBox")
    plain_cards, home_cards = tmp_path / "plain-cards.pdf", tmp_path / "home-cards.pdf"
    assert _run(capsys, "cards", GRID_PACK, "-o", plain_cards)[0] == 0
    assert _run(capsys, "cards", GRID_PACK, "-o", home_cards, "--preset", "home")[0] == 0
    assert len(pypdf.PdfReader(plain_cards).pages) == len(pypdf.PdfReader(home_cards).pages) == 4  # 9 cards a page


def test_a_sheet_png_with_the_game_crafter_preset_is_300_dpi(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    assert _run(capsys, "sheet", GRID_SHEET, "-o", out, "--preset", "thegamecrafter")[0] == 0
    width, height, dpi = _png_size_and_dpi(out)
    # A4 plus 1/8 in of bleed on every side at 300 dpi: (210 + 6.35) / 25.4 * 300 = 2555.3 px
    assert (width, height) == (round((210 + 6.35) / 25.4 * 300), round((297 + 6.35) / 25.4 * 300))
    assert dpi == pytest.approx(300, abs=0.1)
    assert _run(capsys, "sheet", GRID_SHEET, "-o", out, "--preset", "thegamecrafter", "--dpi", 100)[0] == 0
    assert _png_size_and_dpi(out)[0] == round((210 + 6.35) / 25.4 * 100)
