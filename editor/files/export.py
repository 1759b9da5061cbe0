"""File > Export and Print Preview: the open dungeon's printed sheet as PDF, SVG or PNG, its game
data (JSON), the deck's card sheets (grid family), and a print preview at true size.

Everything is exported from the dungeon *in memory* (no need to save first) through the formats
of :mod:`exporters.formats`, the same as ``inkcrawl export``, so the files are those the
command line writes; this module is an adapter over them: it asks for the options and the
file, and says what happened in the editor's words. Files are written atomically: a failed
export leaves no partial file and never replaces a good one. A dungeon with validation errors
is exported only when the user says so (the CLI's ``--force``).

Dialogs go through seams on the window that tests replace:

- ``window.ask_export_options(kind, document, defaults) -> ExportOptions | None``
- ``window.ask_export_path(kind, document, suggested) -> Path | None``
- ``window.confirm_export_with_errors(errors) -> bool`` (``errors``: lines of text)
- ``window.show_export_message(level, title, text)`` (``level``: info, warning, error)
- ``window.ask_replace_read_only(path) -> bool``: the file chosen is read-only (see
  :meth:`editor.files.manager.FileManager.ask_replace_read_only`); ``True`` replaces it
- ``window.show_print_preview(printer, paint)``: shows ``QPrintPreviewDialog``; ``paint(printer)``
  renders the pages onto any ``QPrinter``.

``kind`` is one of :data:`KINDS`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QMenu,
    QMessageBox,
    QSpinBox,
)

from editor import actions as action_specs
from editor.settings import settings
from exporters.formats import CARDS_PDF, GAME_JSON, SHEET_PDF, SHEET_PNG, SHEET_SVG, ExportError, WriteOptions
from exporters.pages import Page, PageOptions

#: What can be exported: sheet as PDF, SVG or PNG, game data, card sheets; the format of each.
KINDS = ("pdf", "svg", "png", "game", "cards")
FORMATS = {"pdf": SHEET_PDF, "svg": SHEET_SVG, "png": SHEET_PNG, "game": GAME_JSON, "cards": CARDS_PDF}
_SUFFIX = {kind: format_.suffixes[0] for kind, format_ in FORMATS.items()}
_TITLES = {
    "pdf": "Export sheet as PDF",
    "svg": "Export sheet as SVG",
    "png": "Export sheet as PNG",
    "game": "Export game data",
    "cards": "Export card sheets",
}
_FILTERS = {
    "pdf": "PDF (*.pdf)",
    "svg": "SVG (*.svg)",
    "png": "PNG image (*.png)",
    "game": "Game data (*.json)",
    "cards": "PDF (*.pdf)",
}
#: Paper choices of the dialog ("" = the sheet's own paper).
PAPER_CHOICES = ("", "A4", "Letter", "A3", "A5", "Legal", "Tabloid")


#: The members of :class:`PageOptions` that :class:`ExportOptions` keeps in ``page``: all but
#: ``paper``, which it keeps as the text the user chose.
_PAGE_MEMBERS = tuple(f.name for f in fields(PageOptions) if f.name != "paper")


@dataclass(frozen=True)
class ExportOptions:
    """How to export. ``paper``: ``""`` for the sheet's own, a name (``A4``, ``Letter``,
    ``A3``...) or a size such as ``210x297mm``, as the user chose it; ``page``: the rest of the
    page as the exporters take it (:class:`exporters.pages.PageOptions`: ``orientation``
    ``auto``/``portrait``/``landscape``, ``margin_mm`` (``None`` = the sheet's), ``fit`` scales
    the sheet to the paper, ``bleed_mm`` (0 to 20), ``crop_marks``, ``grayscale``; its own
    ``paper`` is not used); ``copies`` of each sheet (PDF, 1 to 100); ``dpi`` (PNG, 10 to
    1200); ``backs`` and ``deck`` (card sheets); ``scope`` ``current`` or ``all`` open
    dungeons (PDF, game data)."""

    paper: str = ""
    page: PageOptions = field(default_factory=PageOptions)
    copies: int = 1
    dpi: float = 150.0
    backs: bool = False
    deck: str | None = None
    scope: str = "current"

    def page_options(self) -> PageOptions:
        """The exporters' page options. Raises :class:`exporters.formats.ExportError` for a
        paper, bleed or copies value out of range."""
        from exporters.formats import check_options
        from exporters.paper import PaperError, parse_paper

        try:
            paper = parse_paper(self.paper) if self.paper.strip() else None
        except PaperError as exc:
            raise ExportError("paper", str(exc)) from None
        check_options(WriteOptions(page=self.page, copies=self.copies), ("page", "copies"))
        return replace(self.page, paper=paper)

    def write_options(self, deck_source: Path | None = None) -> WriteOptions:
        """The options as the formats take them (:class:`exporters.formats.WriteOptions`);
        card sheets print the deck ``self.deck`` of the pack ``deck_source``, or the ruleset's
        deck when there is no pack. Raises :class:`exporters.formats.ExportError`."""
        return WriteOptions(
            page=self.page_options(),
            copies=self.copies,
            dpi=self.dpi,
            backs=self.backs,
            deck_source=deck_source,
            deck=self.deck if deck_source is not None else None,
        )

    def to_json(self) -> str:
        """The options as JSON text (kept in the settings): one flat object, the page's members
        beside the others (``{"paper": "A4", "orientation": "auto", ..., "copies": 1, ...}``)."""
        data = asdict(self)
        page = data.pop("page")
        del page["paper"]
        return json.dumps({"paper": data.pop("paper"), **page, **data})

    @classmethod
    def from_json(cls, text) -> ExportOptions:
        """Options from :meth:`to_json` text; the default for anything missing, damaged or of
        the wrong type (a ``null`` paper, a text where a number belongs)."""
        try:
            data = json.loads(text) if text else {}
        except (ValueError, TypeError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        page = replace(PageOptions(), **_same_types(PageOptions(), data, _PAGE_MEMBERS))
        if page.orientation not in ("auto", "portrait", "landscape"):
            page = replace(page, orientation="auto")
        known = tuple(f.name for f in fields(cls) if f.name != "page")
        options = replace(cls(), page=page, **_same_types(cls(), data, known))
        return options if options.scope in ("current", "all") else replace(options, scope="current")


def _same_types(defaults, data: dict, names) -> dict:
    """The members ``names`` of ``data`` whose values have the type the dataclass ``defaults``
    declares for them (``float`` takes whole numbers too; ``X | None`` takes ``null``)."""
    allowed = {"bool": (bool,), "int": (int,), "float": (int, float), "str": (str,), "None": (type(None),)}
    declared = {f.name: str(f.type) for f in fields(defaults)}
    out = {}
    for name in names:
        if name not in data:
            continue
        value = data[name]
        kinds = tuple(kind for token in declared[name].replace(" ", "").split("|") for kind in allowed.get(token, ()))
        if isinstance(value, bool) and bool not in kinds:
            continue  # JSON true is not a number here
        if isinstance(value, kinds):
            out[name] = value
    return out


# writers (no dialogs) --------------------------------------------------------------------------
def opened_of(document):
    """The document as the exporters take it (:class:`inkcrawl.loading.OpenedDungeon`), on a
    snapshot of the model so later edits do not touch an export in progress."""
    from inkcrawl.loading import OpenedDungeon

    return OpenedDungeon(document.file_label, document.snapshot(), document.ruleset, document.deck)


def phrase(error: ExportError, documents=()) -> str:
    """An export error in the editor's words: the dungeon at fault by its name, and advice
    that names the dialog's choices (``documents``: those exported, in order)."""
    message = error.message
    if error.dungeon_index is not None and error.dungeon_index < len(documents):
        message = f"{documents[error.dungeon_index].display_name}: {message}"
    if error.code == "does-not-fit":
        margin = error.margin_that_fits_mm
        message += (
            "; tick \u201cFit to paper\u201d to scale it"
            + (f", set the margins to {margin:g} mm (keeps the size)" if margin is not None else "")
            + ", or choose larger paper"
        )
    elif error.code == "image-too-large":
        message += "; choose a lower resolution"
    elif error.code == "game-data":
        message += "; fix the problems listed in the Problems panel"
    return message


def sheet_pages(documents, options: ExportOptions) -> list[Page]:
    """The printed page of each document (one each; copies are not repeated here). Raises
    :class:`exporters.formats.ExportError` when a sheet does not fit the paper or cannot be
    drawn, its message in the editor's words."""
    from exporters.formats import draw_sheets

    try:
        return draw_sheets([opened_of(document) for document in documents], options.page_options())
    except ExportError as exc:
        raise ExportError(exc.code, phrase(exc, documents)) from None


def summary(result, options: ExportOptions) -> str:
    """What an export wrote (:class:`exporters.formats.ExportResult`), for the status bar."""
    path, pages = result.files[0], f"{result.pages} page{'s' if result.pages != 1 else ''}"
    if result.format == "sheet-pdf":
        return f"Wrote {path} ({pages})"
    if result.format == "sheet-png":
        return f"Wrote {path} ({options.dpi:g} dpi)"
    if result.format == "game-json":
        return f"Wrote {path} ({result.dungeons} dungeon{'s' if result.dungeons != 1 else ''})"
    if result.format == "cards-pdf":
        return f"Wrote {path} ({result.cards} cards of {result.deck_name}, {pages})"
    return f"Wrote {path}"


def note_lines(notes) -> list[str]:
    """The notes of an export (:class:`exporters.formats.ExportNote`) as lines to show."""
    lines = []
    for note in notes:
        if note.code == "missing-characters":
            lines.append(
                f"\u201c{note.sheet}\u201d has characters the shipped font cannot draw (printed as "
                f"boxes): {' '.join(note.characters[:20])}"
            )
        else:
            lines.append(f"\u201c{note.sheet}\u201d: {note.message}")
    return lines


def pack_manifest_for(document, pack_path: Path | None = None) -> Path | None:
    """The manifest of the pack ``document`` belongs to: ``pack_path`` when it lists the
    document, else a ``pack.json`` in its folder or the one above; ``None`` for a lone file."""
    from inkcrawl.jsonio import read_json_file
    from inkcrawl.validate import MANIFEST_NAME, path_inside_pack

    if document.path is None:
        return Path(pack_path) if pack_path is not None and Path(pack_path).is_file() else None
    for folder in (document.path.parent, document.path.parent.parent):
        manifest = folder / MANIFEST_NAME
        if not manifest.is_file():
            continue
        data, problems = read_json_file(manifest)
        listed = data.get("dungeons", []) if isinstance(data, dict) and not problems else []
        for relative in listed if isinstance(listed, list) else []:
            member = path_inside_pack(folder, relative) if isinstance(relative, str) else None
            if member is not None and member.resolve() == document.path.resolve():
                return manifest
    return None


def deck_choices(document, pack_path: Path | None = None) -> list[tuple[str | None, str]]:
    """The decks card sheets can be printed from: ``(deck id, name)``, the pack's decks first,
    then ``(None, ruleset deck name)``."""
    from inkcrawl.validate import load_document

    choices: list[tuple[str | None, str]] = []
    manifest = pack_manifest_for(document, pack_path)
    if manifest is not None:
        loaded = load_document(manifest)
        if isinstance(loaded.data, dict):
            for deck in loaded.data.get("decks", []) or []:
                if isinstance(deck, dict) and deck.get("id"):
                    choices.append((deck["id"], str(deck.get("name", deck["id"]))))
    choices.append((None, f"{document.ruleset.data.get('name', document.ruleset.id)} deck (the ruleset's)"))
    return choices


def print_pages(printer, pages, copies: int = 1) -> int:
    """Render ``pages`` (each ``copies`` times) onto ``printer`` at true size, each page on paper
    of its own size with no margins; returns the number of pages. Used by the print preview
    and by printing. Raises :class:`ExportError` when the printer cannot start."""
    from PySide6.QtCore import QMarginsF, QRectF, QSizeF
    from PySide6.QtGui import QPageLayout, QPageSize, QPainter

    from exporters.qt import qt_svg_renderer

    printer.setFullPage(True)
    painter = QPainter()
    count = 0
    try:
        for page in pages:
            renderer = qt_svg_renderer(page.svg)  # text at its size
            size = QPageSize(
                QSizeF(round(page.width_mm, 3), round(page.height_mm, 3)),
                QPageSize.Unit.Millimeter,
                "",
                QPageSize.SizeMatchPolicy.ExactMatch,
            )
            for _ in range(copies):
                printer.setPageLayout(QPageLayout(size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
                if count == 0:
                    if not painter.begin(printer):
                        raise ExportError("printer", "the printer could not be started")
                elif not printer.newPage():
                    raise ExportError("printer", "the printer refused a new page")
                target = printer.pageLayout().fullRectPixels(printer.resolution())
                renderer.render(painter, QRectF(0, 0, target.width(), target.height()))
                count += 1
    finally:
        if painter.isActive():
            painter.end()
    return count


# the menu --------------------------------------------------------------------------------------
class ExportMenu(QObject):
    """File > Export (PDF, SVG, PNG, game data, card sheets) and File > Print Preview of the
    window's current dungeon (``window.exporter``). The options last used for each kind are
    kept in the settings (``export/<kind>``)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.actions: dict[str, QAction] = {}

    # seams' default implementations ------------------------------------------------------
    def ask_export_options(self, kind: str, document, defaults: ExportOptions) -> ExportOptions | None:
        """The export dialog: paper, orientation, margins, copies, bleed, crop marks,
        grayscale, fit, dpi, deck and backs, as ``kind`` needs."""
        dialog = ExportDialog(
            kind,
            defaults,
            deck_choices(document, self.window.pack_path) if kind == "cards" else [],
            len(self.window.documents),
            self.window,
        )
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.options()

    def ask_export_path(self, kind: str, document, suggested: Path) -> Path | None:
        """Ask where to write the export."""
        from PySide6.QtWidgets import QFileDialog

        chosen, _ = QFileDialog.getSaveFileName(self.window, _TITLES[kind], str(suggested), _FILTERS[kind])
        return Path(chosen) if chosen else None

    def confirm_export_with_errors(self, errors: list[str]) -> bool:
        """Ask whether to export a dungeon that has validation errors anyway."""
        shown = "\n".join(errors[:8]) + ("\n..." if len(errors) > 8 else "")
        answer = QMessageBox.warning(
            self.window,
            "Validation errors",
            f"The dungeon has {len(errors)} validation error(s):\n\n{shown}\n\nExport anyway?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def show_export_message(self, level: str, title: str, text: str) -> None:
        """Tell the user how an export went (``level``: info, warning or error)."""
        box = {"info": QMessageBox.information, "warning": QMessageBox.warning}.get(level, QMessageBox.critical)
        box(self.window, title, text)

    def show_print_preview(self, printer, paint) -> None:
        """Show Qt's print preview; ``paint(printer)`` draws the pages (also when printing)."""
        from PySide6.QtPrintSupport import QPrintPreviewDialog

        dialog = QPrintPreviewDialog(printer, self.window)
        dialog.setWindowTitle("Print preview")
        dialog.paintRequested.connect(paint)
        dialog.exec()

    # commands ----------------------------------------------------------------------------
    def last_options(self, kind: str) -> ExportOptions:
        """The options last used for ``kind`` (defaults the first time)."""
        return ExportOptions.from_json(settings().value(f"export/{kind}", ""))

    def _documents(self, options: ExportOptions) -> list:
        if options.scope == "all":
            return list(self.window.documents)
        return [self.window.current] if self.window.current is not None else []

    def validation_errors(self, documents) -> list[str]:
        """The validation errors of ``documents`` as lines of text (checked now)."""
        lines = []
        for document in documents:
            for located in document.validate_now():
                problem = located.problem
                if problem.severity.value == "error":
                    lines.append(f"{document.display_name}: {problem.code} {problem.message}")
        return lines

    def suggested_path(self, kind: str, document) -> Path:
        """Where the export dialog starts: beside the dungeon's file, named after it."""
        folder = document.path.parent if document.path is not None else Path.cwd()
        stem = document.path.stem if document.path is not None else document.dungeon.id
        suffix = {"game": ".game.json", "cards": "-cards.pdf"}.get(kind, _SUFFIX[kind])
        return folder / f"{stem}{suffix}"

    def export(self, kind: str) -> Path | None:
        """Run one export of the current dungeon (or of every open dungeon, for PDF and game
        data when asked): options, validation check, file, write. Returns the file written,
        or ``None`` when cancelled or failed (the failure is shown as a message)."""
        window = self.window
        document = window.current
        if document is None:
            return None
        options = window.ask_export_options(kind, document, self.last_options(kind))
        if options is None:
            return None
        settings().setValue(f"export/{kind}", options.to_json())
        documents = self._documents(options) if kind in ("pdf", "game") else [document]
        errors = self.validation_errors(documents)
        if errors and not window.confirm_export_with_errors(errors):
            return None
        path = window.ask_export_path(kind, document, self.suggested_path(kind, document))
        if not path:
            return None
        path = Path(path)
        if path.suffix.lower() != _SUFFIX[kind]:
            path = path.with_name(path.name + _SUFFIX[kind])
        try:
            deck_source = pack_manifest_for(document, window.pack_path) if kind == "cards" else None
            opened, write_options = [opened_of(d) for d in documents], options.write_options(deck_source)
            try:
                result = FORMATS[kind].write(opened, path, write_options)
            except ExportError as refused:
                # a read-only file is replaced only when the user says so (Save asks the same)
                if refused.code != "unwritable" or refused.refused != "read-only":
                    raise
                target = Path(refused.path or path)
                if not window.ask_replace_read_only(target):
                    window.show_status(f"Not exported: {target} is read-only and was left as it is")
                    return None
                result = FORMATS[kind].write(opened, path, replace(write_options, replace_read_only=True))
        except ExportError as exc:
            if exc.code == "unwritable":
                text = f"{exc.path} could not be written: {exc.reason}.\nNothing was written."
            else:
                text = f"{path.name} was not written: {phrase(exc, documents)}"
            window.show_export_message("error", "Not exported", text)
            return None
        except Exception as exc:
            window.show_export_message(
                "error",
                "Not exported",
                f"{path.name} was not written: the exporter failed ({type(exc).__name__}: "
                f"{exc}). Please report this with the dungeon file.",
            )
            return None
        text = summary(result, options)
        notes = note_lines(result.notes)
        if notes:
            window.show_export_message("warning", "Exported with warnings", text + "\n\n" + "\n".join(notes))
        window.show_status(text)
        return path

    def preview_pages(self, document=None) -> tuple[list[Page], int]:
        """The pages the print preview shows for ``document`` (default: the current one) with
        the options last used for PDF, and the copies of each. Raises :class:`ExportError`."""
        document = document or self.window.current
        options = self.last_options("pdf")
        return sheet_pages([document], options), options.copies

    def print_preview(self) -> bool:
        """File > Print Preview: the current sheet at true size (paper, bleed and crop marks as
        last exported to PDF), printable from the preview."""
        from PySide6.QtPrintSupport import QPrinter

        document = self.window.current
        if document is None:
            return False
        try:
            pages, copies = self.preview_pages(document)
        except ExportError as exc:
            self.window.show_export_message("error", "No preview", str(exc))
            return False
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setDocName(document.dungeon.sheet.title or document.dungeon.id)
        printer.setFullPage(True)

        def paint(target):
            try:
                print_pages(target, pages, copies)
            except ExportError as exc:
                self.window.show_export_message("error", "Not printed", str(exc))

        self.window.show_print_preview(printer, paint)
        return True

    def _update_enabled(self, *_args) -> None:
        document = self.window.current
        for kind, action in self.actions.items():
            action.setEnabled(document is not None and (kind != "cards" or document.dungeon.family == "grid"))
        self.preview_action.setEnabled(document is not None)


class ExportDialog(QDialog):
    """The options of one export: the page (paper, orientation, margins, fit, bleed, crop marks,
    grayscale) for sheets and cards, copies and scope for PDF, dpi for PNG, deck and backs for
    card sheets."""

    def __init__(self, kind: str, defaults: ExportOptions, decks, open_count: int, parent=None):
        super().__init__(parent)
        self.kind = kind
        self.defaults = defaults
        self.setWindowTitle(_TITLES[kind])
        form = QFormLayout(self)
        self.paper = QComboBox()
        self.paper.setEditable(True)
        self.paper.setToolTip("A4, Letter, A3... or a custom size such as 210x297mm or 8.5x11in")
        for name in PAPER_CHOICES:
            self.paper.addItem(name or "Sheet's own paper", name)
        self.paper.setCurrentText(defaults.paper or "Sheet's own paper")
        self.orientation = QComboBox()
        self.orientation.addItems(["auto", "portrait", "landscape"])
        page = defaults.page
        self.orientation.setCurrentText(page.orientation)
        self.margin = QDoubleSpinBox()
        self.margin.setRange(-1, 100)
        self.margin.setSuffix(" mm")
        self.margin.setSpecialValueText("sheet's own")
        self.margin.setValue(-1 if page.margin_mm is None else page.margin_mm)
        self.fit = QCheckBox("Scale the sheet to the paper")
        self.fit.setChecked(page.fit)
        self.bleed = QDoubleSpinBox()
        self.bleed.setRange(0, 20)
        self.bleed.setSuffix(" mm")
        self.bleed.setValue(page.bleed_mm)
        self.crop = QCheckBox("Crop marks")
        self.crop.setChecked(page.crop_marks)
        self.gray = QCheckBox("Greys only")
        self.gray.setChecked(page.grayscale)
        self.copies = QSpinBox()
        self.copies.setRange(1, 100)
        self.copies.setValue(defaults.copies)
        self.copies.setToolTip("Copies of each sheet: one per player")
        self.dpi = QDoubleSpinBox()
        self.dpi.setRange(10, 1200)
        self.dpi.setDecimals(0)
        self.dpi.setValue(defaults.dpi)
        self.scope = QComboBox()
        self.scope.addItem("The current dungeon", "current")
        self.scope.addItem(f"All {open_count} open dungeons", "all")
        self.scope.setCurrentIndex(1 if defaults.scope == "all" else 0)
        self.deck = QComboBox()
        for deck_id, name in decks:
            self.deck.addItem(name, deck_id)
        self.backs = QCheckBox("Add a backs page after each page (duplex)")
        self.backs.setChecked(defaults.backs)
        if kind in ("pdf", "game"):
            form.addRow("&Dungeons:", self.scope)
        if kind in ("pdf", "svg", "png", "cards"):
            form.addRow("&Paper:", self.paper)
            form.addRow("&Orientation:", self.orientation)
            form.addRow("&Margins:", self.margin)
            if kind != "cards":
                form.addRow("", self.fit)
            form.addRow("&Bleed:", self.bleed)
            form.addRow("", self.crop)
            form.addRow("", self.gray)
        if kind == "pdf":
            form.addRow("&Copies:", self.copies)
        if kind == "png":
            form.addRow("&Resolution (dpi):", self.dpi)
        if kind == "cards":
            form.addRow("&Deck:", self.deck)
            form.addRow("", self.backs)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def options(self) -> ExportOptions:
        """The options as set in the dialog."""
        paper = self.paper.currentText().strip()
        if paper == "Sheet's own paper":
            paper = ""
        margin = self.margin.value()
        page = PageOptions(
            orientation=self.orientation.currentText(),
            margin_mm=None if margin < 0 else margin,
            fit=self.fit.isChecked(),
            bleed_mm=self.bleed.value(),
            crop_marks=self.crop.isChecked(),
            grayscale=self.gray.isChecked(),
        )
        return ExportOptions(
            paper=paper,
            page=page,
            copies=self.copies.value(),
            dpi=self.dpi.value(),
            backs=self.backs.isChecked(),
            deck=self.deck.currentData(),
            scope=self.scope.currentData(),
        )


# installation ----------------------------------------------------------------------------------
_ENTRIES = (
    ("pdf", "Sheet as &PDF\u2026", "Ctrl+E", "Export the printed sheet as PDF: paper, copies, bleed, crop marks"),
    ("svg", "Sheet as &SVG\u2026", "", "Export the printed sheet as SVG at its true size"),
    ("png", "Sheet as P&NG\u2026", "", "Export the printed sheet as a PNG image at a chosen resolution"),
    ("game", "&Game Data (JSON)\u2026", "", "Export playable game data for inkcrawl's engines and other programs"),
    ("cards", "&Card Sheets (PDF)\u2026", "", "Print-and-play cards of the grid deck, with optional backs"),
)


def _tooltip(tooltip: str, key: str) -> str:
    if not key:
        return tooltip
    native = QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)
    return f"{tooltip} ({native})"


def install(window) -> ExportMenu:
    """Add File > Export (PDF, SVG, PNG, game data, card sheets) and File > Print Preview; the
    window keeps the menu as ``window.exporter`` and routes its export seams to it."""
    menu = ExportMenu(window)

    file_menu = window.menu("File")
    submenu = QMenu("&Export", window)
    submenu.setObjectName("export")
    submenu.setToolTipsVisible(True)
    for kind, text, key, tooltip in _ENTRIES:
        action = QAction(text, window)
        action.setObjectName(f"export_{kind}")
        if key:
            action.setShortcut(QKeySequence(key))
        action.setToolTip(_tooltip(tooltip, key))
        action.setStatusTip(tooltip)
        action.triggered.connect(lambda _=False, k=kind: menu.export(k))
        submenu.addAction(action)
        menu.actions[kind] = action
    preview = QAction("Print Pre&view\u2026", window)
    preview.setObjectName("print_preview")
    preview.setShortcuts(action_specs.standard_bindings(QKeySequence.StandardKey.Print))
    preview.setToolTip(_tooltip("Preview the printed sheet at true size, and print it", "Ctrl+P"))
    preview.setStatusTip("Preview the printed sheet at true size, and print it")
    preview.triggered.connect(lambda: menu.print_preview())
    menu.preview_action = preview
    menu.submenu = submenu
    close = window.action("close")
    file_menu.insertMenu(close, submenu)
    file_menu.insertAction(close, preview)
    file_menu.insertSeparator(close)
    window.current_changed.connect(menu._update_enabled)
    menu._update_enabled()
    return menu
