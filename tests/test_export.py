"""``inkcrawl export``: PDF, SVG and PNG sheets, paper sizes, copies, bleed, crop marks, cards."""

from __future__ import annotations

import json
import re
import shutil

import pypdf
import pytest
from conftest import PACKS

from exporters.paper import PAPER_SIZES, PaperError, layout_page, parse_paper
from inkcrawl.cli import main

LINE_PACK = PACKS / "lantern-depths"
GRID_PACK = PACKS / "ember-halls"
MM_TO_PT = 72 / 25.4


def _run(capsys, *argv):
    code = main(["export", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _dungeon_count(pack):
    return len(json.loads((pack / "pack.json").read_text(encoding="utf-8"))["dungeons"])


def _titles(pack):
    manifest = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    return [json.loads((pack / rel).read_text(encoding="utf-8"))["sheet"]["title"] for rel in manifest["dungeons"]]


@pytest.fixture(scope="module")
def pack_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("pdf") / "both.pdf"
    code = main(["export", "sheet", str(LINE_PACK), str(GRID_PACK), "-o", str(out), "--copies", "2"])
    assert code == 0
    return out


def test_pdf_page_count_is_dungeons_times_copies(pack_pdf):
    reader = pypdf.PdfReader(pack_pdf)
    assert len(reader.pages) == 2 * (_dungeon_count(LINE_PACK) + _dungeon_count(GRID_PACK))


def test_pdf_is_a4_to_a_hundredth_of_a_point(pack_pdf):
    for page in pypdf.PdfReader(pack_pdf).pages:
        assert abs(float(page.mediabox.width) - 210 * MM_TO_PT) <= 0.01
        assert abs(float(page.mediabox.height) - 297 * MM_TO_PT) <= 0.01


def test_pdf_embeds_fonts_and_has_no_raster_images(pack_pdf):
    reader = pypdf.PdfReader(pack_pdf)
    for page in reader.pages:
        resources = page["/Resources"]
        fonts = resources.get("/Font", {})
        assert fonts, "every sheet has text"
        for font in fonts.values():
            font = font.get_object()
            descendants = font.get("/DescendantFonts")
            descriptor = (descendants[0].get_object() if descendants else font)["/FontDescriptor"].get_object()
            assert any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")), font
            assert "DejaVu" in str(font["/BaseFont"])
        for xobject in resources.get("/XObject", {}).values():
            assert xobject.get_object().get("/Subtype") != "/Image"


def test_pdf_text_is_extractable(pack_pdf):
    reader = pypdf.PdfReader(pack_pdf)
    text = " ".join(page.extract_text() for page in reader.pages)
    squashed = re.sub(r"\s+", " ", text)
    for title in _titles(LINE_PACK) + _titles(GRID_PACK):
        assert title in squashed, title
    for term in ("Loot", "Dragon", "Weapon", "Monster", "Entryway", "Tally", "Trap", "Total", "Name"):
        assert term.lower() in squashed.lower(), term


def test_letter_paper_with_fit(tmp_path, capsys):
    out = tmp_path / "letter.pdf"
    code, _, err = _run(capsys, "sheet", LINE_PACK, "-o", out, "--paper", "Letter", "--exact")
    assert code == 2 and "--fit" in err and "leave out --exact" in err and not out.exists()
    code, _, _ = _run(capsys, "sheet", LINE_PACK, "-o", out, "--paper", "Letter", "--fit")
    assert code == 0
    for page in pypdf.PdfReader(out).pages:
        assert abs(float(page.mediabox.width) - 612) <= 0.01
        assert abs(float(page.mediabox.height) - 792) <= 0.01


def test_a3_keeps_physical_scale_and_landscape_turns_the_page(tmp_path, capsys):
    out = tmp_path / "a3.pdf"
    assert _run(capsys, "sheet", GRID_PACK, "-o", out, "--paper", "A3", "--orientation", "landscape")[0] == 0
    page = pypdf.PdfReader(out).pages[0]
    assert abs(float(page.mediabox.width) - 420 * MM_TO_PT) <= 0.01
    assert abs(float(page.mediabox.height) - 297 * MM_TO_PT) <= 0.01


def test_bleed_and_crop_marks_grow_the_page(tmp_path, capsys):
    out = tmp_path / "shop.svg"
    single = next(GRID_PACK.glob("dungeons/*.json"))
    assert _run(capsys, "sheet", single, "-o", out, "--bleed", "3", "--crop-marks")[0] == 0
    svg = out.read_text(encoding="utf-8")
    assert 'width="236mm"' in svg and 'height="323mm"' in svg  # 210 + 2 x (3 + 10), 297 + 2 x 13
    assert svg.count('data-kind="crop-marks"') == 1
    assert svg.count("<path", svg.index('data-kind="crop-marks"')) >= 8


def test_svg_of_a_pack_writes_one_file_per_dungeon(tmp_path, capsys):
    out = tmp_path / "sheets.svg"
    code, stdout, _ = _run(capsys, "sheet", GRID_PACK, "-o", out)
    assert code == 0
    files = sorted(tmp_path.glob("sheets-*.svg"))
    assert len(files) == _dungeon_count(GRID_PACK)
    assert all(str(f) in stdout for f in files)


def test_svg_uses_only_what_qt_draws(tmp_path, capsys):
    out = tmp_path / "line.svg"
    assert _run(capsys, "sheet", LINE_PACK, "-o", out)[0] == 0
    for path in tmp_path.glob("line-*.svg"):
        svg = path.read_text(encoding="utf-8")
        assert "clip-path" not in svg and "<marker" not in svg and "marker-" not in svg
        assert not re.search(r"<g[^>]*\sopacity=", svg)
        assert "<image" not in svg


def test_png_of_one_sheet_and_contact_sheet_of_a_pack(tmp_path, capsys):
    from PySide6.QtGui import QImage

    single = next(LINE_PACK.glob("dungeons/*.json"))
    out = tmp_path / "one.png"
    assert _run(capsys, "sheet", single, "-o", out, "--dpi", "50")[0] == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (round(210 / 25.4 * 50), round(297 / 25.4 * 50))
    contact = tmp_path / "pack.png"
    code, stdout, _ = _run(capsys, "sheet", LINE_PACK, "-o", contact)
    assert code == 0 and "contact sheet of 4 sheets" in stdout
    assert QImage(str(contact)).width() > image.width()


def test_a_dungeon_with_errors_is_refused_unless_forced(tmp_path, capsys):
    data = json.loads(next(LINE_PACK.glob("dungeons/*.json")).read_text(encoding="utf-8"))
    data["elements"] = [e for e in data["elements"] if e["kind"] != "start"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out.pdf"
    code, _, err = _run(capsys, "sheet", broken, "-o", out)
    assert code == 1 and "L010" in err and "--force" in err and not out.exists()
    code, _, _ = _run(capsys, "sheet", broken, "-o", out, "--force")
    assert code == 0 and len(pypdf.PdfReader(out).pages) == 1


@pytest.mark.parametrize(
    "spoil, pointer",
    [
        (lambda data: data["areas"][0]["polygon"][1].__setitem__(0, 1e15), "/areas/0/polygon/1/0"),
        (lambda data: data["sheet"].__setitem__("title", "A" * 100_000), "/sheet/title"),
    ],
)
def test_with_force_a_dungeon_beyond_the_formats_limits_is_left_out_not_drawn(tmp_path, capsys, spoil, pointer):
    """A value the schema refuses as beyond the format's range (a coordinate of 10^15 mm, a
    title of 100,000 letters) would take the layout minutes and gigabytes: even with --force
    such a dungeon is not drawn; the schema's error names it, and the rest is exported."""
    files = sorted(LINE_PACK.glob("dungeons/*.json"))
    data = json.loads(files[0].read_text(encoding="utf-8"))
    spoil(data)
    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out.pdf"
    code, _, err = _run(capsys, "sheet", huge, "-o", out, "--force")
    assert code == 1 and f"huge.json:{pointer}: error S001" in err
    assert "no dungeon could be opened" in err and not out.exists()
    fine = tmp_path / "fine.json"
    shutil.copy(files[1], fine)
    code, _, err = _run(capsys, "sheet", huge, fine, "-o", out, "--force")
    assert code == 0 and "1 dungeon(s) are too broken to draw and are left out" in err
    assert len(pypdf.PdfReader(out).pages) == 1


def test_existing_output_is_replaced_only_when_the_export_succeeds(tmp_path, capsys, monkeypatch):
    out = tmp_path / "keep.pdf"
    out.write_bytes(b"%PDF- the old file")

    def explode(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("exporters.qt.write_pdf", explode)
    code, _, err = _run(capsys, "sheet", GRID_PACK, "-o", out)
    assert code == 2 and "No space left" in err
    assert out.read_bytes() == b"%PDF- the old file"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.pdf"]


def test_unicode_titles_render_or_warn(tmp_path, capsys):
    data = json.loads(next(LINE_PACK.glob("dungeons/*.json")).read_text(encoding="utf-8"))
    data["sheet"]["title"] = "Crypte d'Éloïse 地下牢"
    path = tmp_path / "unicode.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "unicode.pdf"
    code, _, err = _run(capsys, "sheet", path, "-o", out)
    assert code == 0
    assert "warning" in err and "地" in err and "下" in err and "牢" in err
    assert "É" not in err.split("cannot draw")[-1]  # accents are in the shipped font
    text = re.sub(r"\s+", " ", pypdf.PdfReader(out).pages[0].extract_text())
    assert "Crypte d'Éloïse" in text


def test_control_characters_never_make_an_ill_formed_svg(tmp_path, capsys):
    import xml.etree.ElementTree as ET

    data = json.loads(next(LINE_PACK.glob("dungeons/*.json")).read_text(encoding="utf-8"))
    data["sheet"]["title"] = "Bell\x01 Vault\x7f\uffff"
    data["areas"][0]["name"] = "Hall\x07"
    data["areas"][0]["id"] = "r\x02"  # a schema error too: exported only with --force
    path = tmp_path / "control.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    svg = tmp_path / "control.svg"
    code, _, err = _run(capsys, "sheet", path, "-o", svg)
    assert code == 1 and "C007" in err and "U+0001 at position 4" in err and not svg.exists()
    code, _, err = _run(capsys, "sheet", path, "-o", svg, "--force")
    assert code == 0, err
    root = ET.parse(svg).getroot()  # well-formed XML
    texts = ["".join(item.itertext()) for item in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "Bell Vault" in texts and "Hall" in texts
    assert 'data-id="r"' in svg.read_text(encoding="utf-8")
    assert "\x01" not in err.split("inkcrawl export")[-1]  # font warnings name no control character
    pdf = tmp_path / "control.pdf"
    code, _, _ = _run(capsys, "sheet", path, "-o", pdf, "--force")
    assert code == 0
    reader = pypdf.PdfReader(pdf)
    assert len(reader.pages) == 1 and reader.metadata.title == "Bell Vault"


def test_usage_errors(tmp_path, capsys):
    single = next(GRID_PACK.glob("dungeons/*.json"))
    assert _run(capsys, "sheet", single, "-o", tmp_path / "x.docx")[0] == 2
    assert _run(capsys, "sheet", single, "-o", tmp_path / "x.svg", "--copies", "2")[0] == 2
    assert _run(capsys, "sheet", single, "-o", tmp_path / "missing" / "x.pdf")[0] == 2
    assert _run(capsys, "sheet", tmp_path / "nope.json", "-o", tmp_path / "x.pdf")[0] == 2
    with pytest.raises(SystemExit) as caught:
        main(["export", "sheet", str(single), "-o", str(tmp_path / "x.pdf"), "--paper", "B7"])
    assert caught.value.code == 2
    assert "unknown paper" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, expected",
    [
        ("A4", (210, 297)),
        ("letter", (215.9, 279.4)),
        ("210x297mm", (210, 297)),
        ("8.5x11in", (215.9, 279.4)),
        ("595x842pt", (209.903, 297.039)),
    ],
)
def test_parse_paper(text, expected):
    width, height = parse_paper(text)
    assert (round(width, 3), round(height, 3)) == expected


def test_layout_centres_content_at_physical_scale():
    layout = layout_page((210, 297), 10, PAPER_SIZES["a3"])
    assert layout.scale == 1
    assert (layout.page_width, layout.page_height) == (297, 420)
    assert layout.offset == pytest.approx(((297 - 210) / 2, (420 - 297) / 2))
    fitted = layout_page((210, 297), 10, PAPER_SIZES["a3"], fit=True)
    assert fitted.scale == pytest.approx(min(277 / 190, 400 / 277))
    with pytest.raises(PaperError):
        layout_page((297, 420), 10, PAPER_SIZES["a4"], orientation="portrait")


def test_cards_fill_poker_size_cards_with_backs_for_duplex(tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    code, stdout, _ = _run(capsys, "cards", GRID_PACK, "-o", out, "--deck", "gentle", "--backs", "--crop-marks")
    manifest = json.loads((GRID_PACK / "pack.json").read_text(encoding="utf-8"))
    deck = next(d for d in manifest["decks"] if d["id"] == "gentle")
    total = sum(deck["cards"].values())
    assert code == 0 and f"{total} cards" in stdout
    reader = pypdf.PdfReader(out)
    fronts = -(-total // 9)  # 3 x 3 poker cards on A4
    assert len(reader.pages) == 2 * fronts
    assert "Straight" in reader.pages[0].extract_text()
    assert _run(capsys, "cards", GRID_PACK, "-o", out, "--deck", "nope")[0] == 2
    assert _run(capsys, "cards", LINE_PACK, "-o", out)[0] == 2


def _card_xs(svg: str, kind: str) -> list[float]:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-kind") == kind]
    return [float(g.find("{http://www.w3.org/2000/svg}rect").get("x")) for g in groups]


def test_card_backs_mirror_the_fronts():
    from exporters.cards import card_pages
    from exporters.pages import PageOptions
    from inkcrawl.rulesets import bundled_rulesets

    ruleset = bundled_rulesets()["grid-classic"]
    front, back = card_pages({"straight": 2}, ruleset, PageOptions(), backs=True)
    fronts, backs = _card_xs(front.svg, "straight"), _card_xs(back.svg, "card-back")
    assert len(fronts) == len(backs) == 2
    # A4 holds 3 columns: the cards in columns 1 and 2 come back in columns 3 and 2
    assert fronts[0] < fronts[1] and backs[0] > backs[1]
    assert backs[0] + fronts[0] == pytest.approx(210 - 63)
    assert backs[1] == pytest.approx(fronts[1])


def test_export_help_teaches(capsys):
    with pytest.raises(SystemExit):
        main(["export", "sheet", "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "--copies" in text and "--bleed" in text and "exit codes" in text


def test_copy_of_pack_without_fonts_installed_still_embeds_ours(tmp_path, capsys, monkeypatch):
    # the sheet font comes from the package, not the system: point fontconfig at an empty folder
    empty = tmp_path / "fonts"
    empty.mkdir()
    monkeypatch.setenv("FONTCONFIG_PATH", str(empty))
    shutil.copytree(GRID_PACK, tmp_path / "pack")
    out = tmp_path / "x.pdf"
    assert _run(capsys, "sheet", tmp_path / "pack", "-o", out)[0] == 0
    fonts = pypdf.PdfReader(out).pages[0]["/Resources"]["/Font"]
    assert all("DejaVu" in str(f.get_object()["/BaseFont"]) for f in fonts.values())


def test_custom_and_bleed_page_sizes_are_exact(tmp_path, capsys):
    single = next(GRID_PACK.glob("dungeons/*.json"))
    out = tmp_path / "custom.pdf"
    assert _run(capsys, "sheet", single, "-o", out, "--paper", "211x297mm")[0] == 0
    page = pypdf.PdfReader(out).pages[0]
    assert abs(float(page.mediabox.width) - 211 * MM_TO_PT) <= 0.01  # not snapped to A4
    assert _run(capsys, "sheet", single, "-o", out, "--bleed", "3", "--crop-marks")[0] == 0
    page = pypdf.PdfReader(out).pages[0]
    assert abs(float(page.mediabox.width) - 236 * MM_TO_PT) <= 0.01
    assert abs(float(page.mediabox.height) - 323 * MM_TO_PT) <= 0.01


def test_a_png_too_large_is_refused_and_the_old_file_kept(tmp_path, capsys):
    out = tmp_path / "big.png"
    out.write_bytes(b"old")
    single = next(GRID_PACK.glob("dungeons/*.json"))
    code, _, err = _run(capsys, "sheet", single, "-o", out, "--paper", "2000x2000mm", "--dpi", "1200", "--fit")
    assert code == 2 and "too large" in err and out.read_bytes() == b"old"


def test_a_sheet_that_cannot_be_laid_out_is_refused_clearly(tmp_path, capsys):
    data = json.loads((LINE_PACK / "dungeons" / "01-candlewick-cellars.json").read_text(encoding="utf-8"))
    data["sheet"]["reminders"] = ["A reminder long enough to need several lines in the footer panel. " * 4] * 20
    path = tmp_path / "wordy.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "wordy.pdf"
    code, _, err = _run(capsys, "sheet", path, "-o", out)
    assert code == 2 and "footer" in err and "Traceback" not in err and not out.exists()


def test_a_long_title_is_shortened_with_a_warning(tmp_path, capsys):
    data = json.loads((LINE_PACK / "dungeons" / "01-candlewick-cellars.json").read_text(encoding="utf-8"))
    data["sheet"]["title"] = "The Very Long Name Of A Dungeon " * 3 + "End"  # 99 characters, the schema allows 120
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "long.svg"
    code, _, err = _run(capsys, "sheet", path, "-o", out)
    assert code == 0 and "shortened" in err
    assert "…" in out.read_text(encoding="utf-8")


def test_landscape_card_backs_mirror_rows_for_long_edge_duplex():
    import xml.etree.ElementTree as ET

    from exporters.cards import card_pages
    from exporters.pages import PageOptions
    from inkcrawl.rulesets import bundled_rulesets

    ruleset = bundled_rulesets()["grid-classic"]
    front, back = card_pages({"corner": 1}, ruleset, PageOptions(orientation="landscape"), backs=True)

    def first_rect(svg, kind):
        root = ET.fromstring(svg)
        group = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-kind") == kind)
        rect = group.find("{http://www.w3.org/2000/svg}rect")
        return float(rect.get("x")), float(rect.get("y"))

    (fx, fy), (bx, by) = first_rect(front.svg, "corner"), first_rect(back.svg, "card-back")
    assert fx == pytest.approx(bx) and by > fy  # same column, mirrored row


# PDF writing: exporters.qt.pdf_bytes ---------------------------------------------------------


def _small_pages(count, copies=1):
    from exporters.pages import Page

    pages = []
    for number in range(1, count + 1):
        width, height = (100 + number, 60) if number % 3 else (60, 90)
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}mm" height="{height}mm" '
            f'viewBox="0 0 {width} {height}"><rect x="2" y="2" width="20" height="10" fill="#8a2d1c"/>'
            f'<text x="5" y="30" font-family="DejaVu Sans" font-size="6">Sheet {number} of {count}</text></svg>'
        )
        page = Page(svg, width, height, f"Sheet {number} of {count}")
        pages += [page] * copies
    return pages


def _check_pdf(data, pages):
    from io import BytesIO

    reader = pypdf.PdfReader(BytesIO(data), strict=True)
    assert len(reader.pages) == len(pages)
    for page, printed in zip(pages, reader.pages):
        assert abs(float(printed.mediabox.width) - page.width_mm * MM_TO_PT) <= 0.01
        assert abs(float(printed.mediabox.height) - page.height_mm * MM_TO_PT) <= 0.01
        assert page.title in re.sub(r"\s+", " ", printed.extract_text())
        for font in printed["/Resources"]["/Font"].values():
            descriptor = font.get_object()["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
            assert "/FontFile2" in descriptor
    return reader


def test_a_large_pdf_keeps_page_order_sizes_fonts_and_title():
    from exporters import qt

    pages = _small_pages(14, copies=2)
    ticks = []
    data, count = qt.pdf_bytes(iter(pages), "Shared", progress=lambda: ticks.append(1))
    assert count == len(pages) == len(ticks) == 28
    assert _check_pdf(data, pages).metadata["/Title"] == "Shared"


def test_a_bad_svg_names_its_page():
    from exporters import qt
    from exporters.pages import Page

    pages = _small_pages(12)
    pages[1] = Page("<svg this is not xml", 100, 60, "broken")
    with pytest.raises(ValueError, match="page 2 could not be parsed"):
        qt.pdf_bytes(pages)


# The formats API: exporters.formats, the one export path of the CLI and the editor ------------


def test_the_formats_api_starts_no_qt_until_a_format_needs_it():
    import subprocess
    import sys

    from conftest import REPO

    code = (
        "import sys, exporters.formats as f; assert f.format_for('sheet', 'x.SVG') is f.SHEET_SVG; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'editor')]; print(bad); "
        "sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_formats_are_found_by_group_and_suffix():
    from exporters import formats

    assert [f.name for f in formats.formats_in("sheet")] == ["sheet-pdf", "sheet-svg", "sheet-png"]
    assert formats.format_for("tiled", "map.TMX") is formats.TILED_TMX
    assert formats.format_for("tiled", "map.json") is formats.TILED_JSON
    assert formats.format_for("game", "x.pdf") is None
    assert formats.format_named("cards-pdf") is formats.CARDS_PDF
    assert formats.suffixes_of("tiled") == [".tmj", ".json", ".tmx"]
    assert all(f.description and f.suffixes and f.group for f in formats.FORMATS)


def test_formats_say_what_went_wrong_in_neutral_words(tmp_path):
    from exporters.formats import SHEET_PDF, TILED_JSON, ExportError, WriteOptions
    from exporters.pages import PageOptions
    from inkcrawl.loading import open_dungeons

    dungeons = open_dungeons([str(LINE_PACK)]).dungeons
    out = tmp_path / "small.pdf"
    with pytest.raises(ExportError) as caught:
        SHEET_PDF.write(dungeons, out, WriteOptions(page=PageOptions(paper=PAPER_SIZES["a5"])))
    error = caught.value
    assert error.code == "does-not-fit" and error.needs_fit and error.dungeon_index == 0
    assert "--" not in error.message and "Fit to paper" not in error.message and "printable area" in error.message
    assert not out.exists()
    with pytest.raises(ExportError) as caught:
        TILED_JSON.write(dungeons, tmp_path / "map.tmj")
    assert caught.value.code == "one-dungeon" and caught.value.count == len(dungeons)
    with pytest.raises(ExportError) as caught:
        SHEET_PDF.write(dungeons, tmp_path / "missing" / "x.pdf")
    assert caught.value.code == "no-folder"
    with pytest.raises(ExportError) as caught:
        SHEET_PDF.write(dungeons, tmp_path / "x.pdf", WriteOptions(copies=0))
    assert caught.value.code == "options"


def test_formats_report_progress_and_what_they_wrote(tmp_path):
    from exporters.formats import SHEET_PDF, SHEET_SVG, WriteOptions
    from inkcrawl.loading import open_dungeons

    dungeons = open_dungeons([str(GRID_PACK)]).dungeons
    seen = []
    result = SHEET_SVG.write(dungeons, tmp_path / "sheets.svg", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(n, len(dungeons)) for n in range(1, len(dungeons) + 1)]
    assert set(result.files) == set(tmp_path.glob("sheets-*.svg")) and len(result.files) == len(dungeons)
    seen.clear()
    result = SHEET_PDF.write(
        dungeons[:1],
        tmp_path / "one.pdf",
        WriteOptions(copies=3),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert result.pages == 3 and seen == [(1, 3), (2, 3), (3, 3)] and len(result.sheets) == 1
    assert len(pypdf.PdfReader(tmp_path / "one.pdf").pages) == 3
