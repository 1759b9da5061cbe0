"""File > Export and Print Preview in the editor: each export writes a valid file from the dungeon
in memory (PDF page sizes for the paper, SVG, PNG at the dpi, game data against its schema, card
sheets), validation errors warn first, a failed export leaves no partial file, and the print
preview draws the sheet at true size."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest

from editor.dungeon.edits import ChangeSheet
from editor.files.export import ExportOptions
from exporters.pages import PageOptions
from tests.editor_support import GRID_DUNGEON, GRID_PACK, LINE_DUNGEON, LINE_PACK, make_window
from tests.editor_support import make_unwritable as _make_unwritable

MM_TO_PT = 72 / 25.4


class Recorder(list):
    """Stands in for a message seam: records its calls."""

    def __call__(self, *args):
        self.append(args)


def _window(qtbot, path, options=None, target=None, confirm=True):
    window = make_window(qtbot, path)
    window.show_export_message = Recorder()
    window.asked_options = []
    window.confirmations = []

    def ask_options(kind, document, defaults):
        window.asked_options.append((kind, defaults))
        return options if options is not None else defaults

    def confirm_errors(errors):
        window.confirmations.append(errors)
        return confirm

    window.ask_export_options = ask_options
    window.ask_export_path = lambda kind, document, suggested: target
    window.confirm_export_with_errors = confirm_errors
    return window


def _pdf_sizes(path):
    from pypdf import PdfReader

    assert path.read_bytes().startswith(b"%PDF")
    reader = PdfReader(str(path))
    return [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader.pages]


def _close(size, width_mm, height_mm):
    return abs(size[0] - width_mm * MM_TO_PT) <= 0.5 and abs(size[1] - height_mm * MM_TO_PT) <= 0.5


@pytest.mark.parametrize(
    "paper, fit, expected",
    [
        ("A4", False, (210, 297)),
        ("Letter", True, (215.9, 279.4)),
        ("A3", False, (297, 420)),
        ("200x290mm", True, (200, 290)),
    ],
)
def test_sheet_pdf_page_size_matches_the_paper(qtbot, tmp_path, paper, fit, expected):
    target = tmp_path / "sheet.pdf"
    window = _window(qtbot, LINE_DUNGEON, ExportOptions(paper=paper, page=PageOptions(fit=fit), copies=2), target)
    path = window.exporter.export("pdf")
    assert path == target
    sizes = _pdf_sizes(target)
    assert len(sizes) == 2 and all(_close(s, *expected) for s in sizes)
    if fit:  # scaled down: the exporters' warning about thin lines is shown, the file is written
        [(level, title, text)] = window.show_export_message
        assert level == "warning" and "scaled to" in text
    else:
        assert window.show_export_message == []


def test_pdf_by_shortcut_with_bleed_crop_marks_landscape_and_copies(qtbot, tmp_path):
    target = tmp_path / "shop.pdf"
    options = ExportOptions(
        paper="A4",
        page=PageOptions(orientation="landscape", fit=True, bleed_mm=3, crop_marks=True, grayscale=True),
        copies=3,
    )
    window = _window(qtbot, LINE_DUNGEON, options, target)
    window.windowHandle().requestActivate()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    QTest.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)  # Ctrl+E
    sizes = _pdf_sizes(target)
    extra = 2 * (3 + 10)  # bleed plus room for the crop marks, each side
    assert len(sizes) == 3 and all(_close(s, 297 + extra, 210 + extra) for s in sizes)
    assert window.exporter.last_options("pdf") == options  # remembered for next time


def test_pdf_of_all_open_dungeons(qtbot, tmp_path):
    target = tmp_path / "pack.pdf"
    window = _window(qtbot, LINE_PACK, ExportOptions(scope="all"), target)
    window.exporter.export("pdf")
    assert len(_pdf_sizes(target)) == len(window.documents) == 4


def test_svg_parses_and_shows_unsaved_edits(qtbot, tmp_path):
    target = tmp_path / "sheet"
    window = _window(qtbot, LINE_DUNGEON, ExportOptions(), target)
    window.current.push(ChangeSheet(window.current.dungeon, "title", "Not Yet Saved"))
    written = window.exporter.export("svg")
    assert written == tmp_path / "sheet.svg"  # the suffix is added
    root = ET.parse(written).getroot()
    assert root.tag.endswith("svg") and root.get("width") == "210mm" and root.get("height") == "297mm"
    assert "Not Yet Saved" in written.read_text(encoding="utf-8")
    assert window.current.modified  # exporting does not save


def test_png_has_the_size_of_the_dpi(qtbot, tmp_path):
    target = tmp_path / "sheet.png"
    window = _window(qtbot, GRID_DUNGEON, ExportOptions(dpi=50), target)
    window.exporter.actions["png"].trigger()
    image = QImage(str(target))
    assert not image.isNull()
    assert (image.width(), image.height()) == (round(210 / 25.4 * 50), round(297 / 25.4 * 50))


def test_game_data_validates_against_its_schema(qtbot, tmp_path):
    import json

    from inkcrawl.schema import schema_problems

    for path, family in ((LINE_DUNGEON, "line"), (GRID_DUNGEON, "grid")):
        target = tmp_path / f"{family}.game.json"
        window = _window(qtbot, path, ExportOptions(), target)
        window.exporter.actions["game"].trigger()
        data = json.loads(target.read_text(encoding="utf-8"))
        assert schema_problems(data, "game", str(target)) == []
        assert len(data["dungeons"]) == 1 and data["dungeons"][0]["family"] == family


def test_card_sheets_with_backs_from_the_packs_deck(qtbot, tmp_path):
    target = tmp_path / "cards.pdf"
    window = _window(qtbot, GRID_PACK, ExportOptions(paper="A4", backs=True, deck="gentle"), target)
    assert window.exporter.actions["cards"].isEnabled()
    window.exporter.actions["cards"].trigger()
    sizes = _pdf_sizes(target)
    assert len(sizes) >= 2 and len(sizes) % 2 == 0  # each fronts page followed by its backs page
    assert all(_close(s, 210, 297) for s in sizes)
    assert "Gentle deck" in window.statusBar().currentMessage()


def test_card_sheets_are_for_the_grid_family_only(qtbot):
    window = _window(qtbot, LINE_DUNGEON)
    assert not window.exporter.actions["cards"].isEnabled()
    assert window.exporter.actions["pdf"].isEnabled()


def test_unknown_deck_is_a_message(qtbot, tmp_path):
    target = tmp_path / "cards.pdf"
    window = _window(qtbot, GRID_PACK, ExportOptions(deck="no-such-deck"), target)
    assert window.exporter.export("cards") is None
    level, title, text = window.show_export_message[-1]
    assert level == "error" and "no-such-deck" in text and not target.exists()


@pytest.mark.parametrize(
    "kind, name", [("pdf", "out.pdf"), ("svg", "out.svg"), ("png", "out.png"), ("game", "out.json")]
)
def test_export_into_an_unwritable_folder_is_a_message_and_leaves_no_file(qtbot, tmp_path, monkeypatch, kind, name):
    folder = tmp_path / "locked"
    folder.mkdir()
    old = folder / name
    old.write_bytes(b"the previous export")
    window = _window(qtbot, LINE_DUNGEON, ExportOptions(), old)
    _make_unwritable(folder, monkeypatch)
    try:
        assert window.exporter.export(kind) is None
        level, title, text = window.show_export_message[-1]
        assert level == "error" and "could not be written" in text and "Traceback" not in text
        assert sorted(p.name for p in folder.iterdir()) == [name]
        assert old.read_bytes() == b"the previous export"
    finally:
        folder.chmod(0o700)


def test_export_into_a_missing_folder_is_a_message(qtbot, tmp_path):
    window = _window(qtbot, LINE_DUNGEON, ExportOptions(), tmp_path / "nowhere" / "sheet.pdf")
    assert window.exporter.export("pdf") is None
    assert "does not exist" in window.show_export_message[-1][2]


def test_sheet_too_big_for_the_paper_says_to_fit(qtbot, tmp_path):
    target = tmp_path / "small.pdf"
    window = _window(qtbot, LINE_DUNGEON, ExportOptions(paper="A5"), target)
    assert window.exporter.export("pdf") is None
    text = window.show_export_message[-1][2]
    assert "Fit to paper" in text and "--" not in text and not target.exists()


def test_validation_errors_warn_and_the_user_may_export_anyway(qtbot, tmp_path):
    from inkcrawl.rulesets import bundled_rulesets

    target = tmp_path / "draft.pdf"
    window = _window(qtbot, None, ExportOptions(), target, confirm=False)
    window.files.create_document(bundled_rulesets()["line-classic"], "Draft")  # a fresh template has errors
    assert window.exporter.export("pdf") is None
    assert window.confirmations and all(": " in line for line in window.confirmations[0])
    assert not target.exists()
    window.confirm_export_with_errors = lambda errors: True
    assert window.exporter.export("pdf") == target
    assert len(_pdf_sizes(target)) == 1


def test_cancelled_options_or_file_write_nothing(qtbot, tmp_path):
    window = _window(qtbot, LINE_DUNGEON, ExportOptions(), None)
    assert window.exporter.export("pdf") is None
    window.ask_export_options = lambda kind, document, defaults: None
    assert window.exporter.export("svg") is None
    assert list(tmp_path.iterdir()) == [] and window.show_export_message == []


def test_print_preview_renders_the_sheet_at_true_size(qtbot, tmp_path):
    from PySide6.QtPrintSupport import QPrinter

    window = _window(qtbot, GRID_DUNGEON)
    shown = []
    window.show_print_preview = lambda printer, paint: shown.append((printer, paint))
    window.exporter.preview_action.trigger()
    [(printer, paint)] = shown
    out = tmp_path / "preview.pdf"
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    printer.setOutputFileName(str(out))
    paint(printer)
    sizes = _pdf_sizes(out)
    assert len(sizes) == 1 and _close(sizes[0], 210, 297)
    # the preview follows the options last used for PDF: copies, paper and bleed
    from editor.files.export import print_pages
    from editor.settings import settings

    settings().setValue("export/pdf", ExportOptions(copies=2, page=PageOptions(bleed_mm=3)).to_json())
    pages, copies = window.exporter.preview_pages()
    assert copies == 2 and _close((pages[0].width_mm * MM_TO_PT, pages[0].height_mm * MM_TO_PT), 216, 303)
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    out2 = tmp_path / "preview2.pdf"
    printer.setOutputFileName(str(out2))
    assert print_pages(printer, pages, copies) == 2
    assert [(_close(s, 216, 303)) for s in _pdf_sizes(out2)] == [True, True]
    settings().remove("export/pdf")


def test_export_menu_entries_have_tooltips_and_shortcuts(qtbot):
    window = _window(qtbot, LINE_DUNGEON)
    actions = window.exporter.submenu.actions()
    assert [a.objectName() for a in actions] == [
        "export_pdf",
        "export_svg",
        "export_png",
        "export_game",
        "export_cards",
    ]
    assert actions[0].toolTip().endswith("(Ctrl+E)")
    assert window.exporter.preview_action.shortcut().toString() == "Ctrl+P"
    assert all(a.toolTip() for a in actions)
    file_texts = [a.text() for a in window.menu("File").actions()]
    assert file_texts.index("&Export") < file_texts.index("&Close Dungeon")


def test_export_options_round_trip_and_bad_values():
    options = ExportOptions(paper="Letter", page=PageOptions(margin_mm=7.5), copies=4, deck="gentle", scope="all")
    assert ExportOptions.from_json(options.to_json()) == options
    # the settings hold one flat object, as they always have: options saved before still load
    assert options.to_json() == (
        '{"paper": "Letter", "orientation": "auto", "margin_mm": 7.5, "fit": false, "bleed_mm": 0.0, '
        '"crop_marks": false, "grayscale": false, "copies": 4, "dpi": 150.0, "backs": false, "deck": "gentle", '
        '"scope": "all"}'
    )
    assert ExportOptions.from_json(
        '{"orientation": "landscape", "bleed_mm": 3, "copies": 2, "page": 5, "x": 1}'
    ) == ExportOptions(page=PageOptions(orientation="landscape", bleed_mm=3), copies=2)
    assert ExportOptions(paper="A5", page=PageOptions(crop_marks=True)).page_options() == PageOptions(
        paper=(148, 210), crop_marks=True
    )
    assert ExportOptions.from_json("{damaged") == ExportOptions()
    assert ExportOptions.from_json("[1]") == ExportOptions()
    # damaged members of the right name but the wrong type or value fall back to the default
    assert ExportOptions.from_json(
        '{"paper": null, "margin_mm": "x", "bleed_mm": true, "copies": 2.5, "dpi": 300, "deck": null, "fit": 1, '
        '"crop_marks": true, "orientation": "sideways", "scope": 7}'
    ) == ExportOptions(page=PageOptions(crop_marks=True), dpi=300)
    assert ExportOptions.from_json('{"scope": "everything", "margin_mm": null, "deck": "gentle"}') == ExportOptions(
        deck="gentle"
    )
    from editor.files.export import ExportError

    with pytest.raises(ExportError, match="unknown paper"):
        ExportOptions(paper="B7 please").page_options()
    with pytest.raises(ExportError, match="bleed"):
        ExportOptions(page=PageOptions(bleed_mm=40)).page_options()


def test_export_of_a_pack_dungeon_copied_elsewhere_uses_the_ruleset_deck(qtbot, tmp_path):
    lone = tmp_path / "vault.json"
    shutil.copy(GRID_DUNGEON, lone)
    target = tmp_path / "cards.pdf"
    window = _window(qtbot, lone, ExportOptions(), target)
    from editor.files.export import deck_choices

    assert [deck_id for deck_id, _ in deck_choices(window.current)] == [None]
    assert window.exporter.export("cards") == target
    assert len(_pdf_sizes(target)) >= 1


def test_export_dialog_gives_the_options_set_in_it(qtbot):
    from editor.files.export import ExportDialog

    dialog = ExportDialog("cards", ExportOptions(), [("gentle", "Gentle deck"), (None, "Ruleset deck")], 3)
    qtbot.addWidget(dialog)
    dialog.paper.setCurrentText("Letter")
    dialog.bleed.setValue(3)
    dialog.crop.setChecked(True)
    dialog.backs.setChecked(True)
    dialog.deck.setCurrentIndex(0)
    options = dialog.options()
    assert (
        options.paper,
        options.page.bleed_mm,
        options.page.crop_marks,
        options.backs,
        options.deck,
        options.page.margin_mm,
    ) == ("Letter", 3, True, True, "gentle", None)
    pdf = ExportDialog("pdf", ExportOptions(copies=4, scope="all", page=PageOptions(margin_mm=5)), [], 3)
    qtbot.addWidget(pdf)
    assert pdf.options() == ExportOptions(copies=4, scope="all", page=PageOptions(margin_mm=5))
    assert pdf.options().page_options().margin_mm == 5
