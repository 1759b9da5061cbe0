"""The Pack dock: the dungeons of the open content pack, with thumbnails, and its manifest.

When the window opens a pack (``window.pack_path`` set by ``window.open_path`` for a pack
folder or its ``pack.json``), the browser lists the pack's dungeons in the manifest's order,
each with a small picture of its printed sheet. Clicking one shows it on the canvas. The
buttons and the list's context menu add a dungeon from the pack ruleset's template, duplicate
one (new id, title "... (copy)"), remove one from the pack (its file stays on disk) and move
them up and down; the manifest's name, version and description are edited above the list.

The browser is a view of the pack's model, :class:`editor.pack.document.PackDocument`
(:attr:`PackBrowser.pack`: the manifest, the entries, whether they differ from the saved
``pack.json``, Save Pack's checks and writing), without Qt. The user's actions become the
model's Qt-free edits (:mod:`editor.pack.edits`), each one an undo step on the pack's own
``QUndoStack`` (:attr:`PackBrowser.undo_stack`, commands of :mod:`editor.pack.undo`). The
browser redraws when the model tells of a change; beside it, :mod:`editor.pack.form` holds
the manifest's editors, :mod:`editor.pack.thumbnails` draws the thumbnails and
:class:`editor.pack.tabs.PackTabs` keeps the window's tabs in the pack's order. Add,
duplicate, remove, move and each manifest field (a stretch of typing in one field is one
step) are undo steps. Undo puts back the exact
list and manifest; undoing a removal brings back the same open document with its unsaved edits
(it is kept in memory, never reloaded), so removing asks no question; no file is ever deleted.
The stack is in the window's undo group: while the keyboard focus is in the Pack dock, Edit >
Undo/Redo (Ctrl+Z, Ctrl+Shift+Z) and the History dock work on the pack; anywhere else they work
on the dungeon on the canvas. The dock's own Undo and Redo buttons always work on the pack.

Nothing is written until **Save Pack** (File menu, Ctrl+Alt+S): it saves the dungeons that
are new or modified, then writes ``pack.json`` atomically with the dungeons in the browser's
order, after checking it against ``schemas/pack.schema.json``, and marks the pack's undo
stack clean: the dock reads "Pack *" exactly while the pack differs from that saved state
(undoing back to it clears the mark). Closing the window with unsaved pack changes asks
whether to save them, and removed dungeons with unsaved edits ask too.

Dialogs go through seams tests replace: :meth:`PackBrowser.ask_title`,
:meth:`PackBrowser.ask_save_pack` and :meth:`PackBrowser.tell`.
"""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from editor.dungeon.document import DungeonDocument, new_document
from editor.dungeon.edits import clone_dungeon
from editor.dungeon.templates import slug, template_data
from editor.pack.document import MANIFEST_ORDER, VERSION_PATTERN, PackChange, PackDocument, PackEntry, PackError
from editor.pack.edits import AddDungeon, DuplicateDungeon, MoveDungeon, PackEdit, RemoveDungeon
from editor.pack.form import PackManifestForm
from editor.pack.tabs import CloseGuard, PackTabs
from editor.pack.thumbnails import THUMB_SIZE, PackThumbnails, placeholder, render_thumbnail
from editor.pack.undo import PackCommand, PackUndoFocus


class _DocumentWatch(QObject):
    """Forwards a document's signals to the browser; a child of the browser, so Qt cuts the
    connections when the browser goes (documents may outlive it)."""

    def __init__(self, browser: PackBrowser, document: DungeonDocument):
        super().__init__(browser)
        self.browser = browser
        self.document = document
        self.key = id(document)
        document.changed.connect(self.changed)
        document.undo_stack.cleanChanged.connect(self.clean_changed)
        document.destroyed.connect(self.gone)

    def changed(self, refs) -> None:
        self.browser._document_changed(self.document, refs)

    def clean_changed(self, _clean) -> None:
        self.browser.refresh_list()

    def gone(self, _obj=None) -> None:
        self.browser._forget(self.key)
        self.deleteLater()


class PackBrowser(QWidget):
    """The Pack dock's widget, a view of :attr:`pack` (:class:`editor.pack.document.PackDocument`).
    ``undo_stack`` holds the pack's edits (its clean state is the saved ``pack.json``);
    ``entries``, ``manifest``, ``manifest_path`` and ``removed`` are the model's, read-only here."""

    def __init__(self, window):
        super().__init__()
        self.window = window
        self.pack = PackDocument()
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setObjectName("pack_undo_stack")
        self.window_tabs = PackTabs(window, self.pack, self)
        self._build()
        self.undo_focus = PackUndoFocus(self)
        self.thumbnails = PackThumbnails(window, self.refresh_list, self)

        self.buttons["add"].clicked.connect(lambda: self.add_dungeon())
        self.buttons["duplicate"].clicked.connect(lambda: self.duplicate_dungeon())
        self.buttons["delete"].clicked.connect(lambda: self.remove_dungeon())
        self.buttons["up"].clicked.connect(lambda: self.move(-1))
        self.buttons["down"].clicked.connect(lambda: self.move(1))
        self.save_button.clicked.connect(lambda: self.save_pack())
        self.undo_button.clicked.connect(self.undo_stack.undo)
        self.redo_button.clicked.connect(self.undo_stack.redo)
        for signal in (
            self.undo_stack.canUndoChanged,
            self.undo_stack.canRedoChanged,
            self.undo_stack.undoTextChanged,
            self.undo_stack.redoTextChanged,
        ):
            signal.connect(lambda *_: self.undo_focus.update_buttons())
        self.undo_stack.cleanChanged.connect(lambda _clean: self._update_marker())
        # a message tells of the last pack edit: the next edit, an undo or a redo supersedes it
        self.undo_stack.indexChanged.connect(lambda _index: self.message.hide())
        window.undo_group.addStack(self.undo_stack)
        self.undo_focus.update_buttons()
        self.pack.add_listener(self._pack_changed)
        window.documents_changed.connect(self.sync)
        window.current_changed.connect(self._on_current)
        self.sync()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.hint = QLabel("No content pack open: open a pack folder or its pack.json to list its dungeons.")
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        self.form = PackManifestForm(self.pack, self.push, self.tell, lambda: self.undo_focus.session)
        self.id_label = self.form.id_label
        self.name_edit = self.form.name_edit
        self.version_edit = self.form.version_edit
        self.description_edit = self.form.description_edit
        body.addWidget(self.form)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b71c1c;")
        self.message.hide()
        body.addWidget(self.message)
        self.list = QListWidget()
        self.list.setObjectName("pack_dungeons")
        self.list.setIconSize(THUMB_SIZE)
        self.list.setSpacing(2)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        body.addWidget(self.list, 1)
        self.buttons: dict[str, QPushButton] = {}
        rows = (
            ("add", "Add", "Add a dungeon from the pack ruleset's template"),
            ("duplicate", "Duplicate", "Add a copy of the chosen dungeon (new id, title '... (copy)')"),
            ("delete", "Remove", "Remove the chosen dungeon from the pack (its file stays on disk)"),
            ("up", "Up", "Move the chosen dungeon up in the pack"),
            ("down", "Down", "Move the chosen dungeon down in the pack"),
        )
        line = QHBoxLayout()
        for key, text, tip in rows:
            button = QPushButton(text)
            button.setObjectName(f"pack_{key}")
            button.setToolTip(tip)
            line.addWidget(button)
            self.buttons[key] = button
        body.addLayout(line)
        line = QHBoxLayout()
        self.undo_button = QPushButton("Undo")
        self.undo_button.setObjectName("pack_undo")
        self.redo_button = QPushButton("Redo")
        self.redo_button.setObjectName("pack_redo")
        self.save_button = QPushButton("Save Pack")
        self.save_button.setObjectName("pack_save")
        self.save_button.setToolTip("Save the new and modified dungeons and the pack manifest (Ctrl+Alt+S)")
        for button in (self.undo_button, self.redo_button, self.save_button):
            line.addWidget(button)
        body.addLayout(line)
        layout.addWidget(self.body, 1)

    # seams (tests replace these) ---------------------------------------------------------
    def ask_title(self, default: str) -> str | None:
        """Ask the title of a new dungeon; ``None`` when cancelled."""
        text, ok = QInputDialog.getText(self.window, "Add dungeon", "Title of the new dungeon:", text=default)
        return text.strip() if ok and text.strip() else None

    def ask_save_pack(self) -> str:
        """Ask what to do with unsaved pack changes: ``"save"``, ``"discard"`` or ``"cancel"``."""
        answer = QMessageBox.question(
            self.window,
            "Unsaved pack changes",
            f"Save the changes to the pack {self.manifest.get('name', '') if self.manifest else ''} "
            "(its list of dungeons and manifest)?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            answer, "cancel"
        )

    def tell(self, text: str, error: bool = False) -> None:
        """Show a message about the pack in the dock and the status bar."""
        self.message.setText(text)
        self.message.setStyleSheet("color: #b71c1c;" if error else "color: #1b5e20;")
        self.message.show()
        self.window.show_status(text, 10000)

    # the model, read-only ----------------------------------------------------------------
    @property
    def manifest_path(self) -> Path | None:
        """The open pack's ``pack.json`` (the model's)."""
        return self.pack.manifest_path

    @property
    def manifest(self) -> dict | None:
        """The manifest data being edited (the model's; change it through pack edits)."""
        return self.pack.manifest

    @property
    def entries(self) -> list[PackEntry]:
        """The pack's dungeons in the pack's order (the model's)."""
        return self.pack.entries

    @property
    def removed(self) -> list[PackEntry]:
        """The entries taken out by removals not undone (the model's)."""
        return self.pack.removed

    @property
    def pack_dir(self) -> Path | None:
        """The pack folder (where ``pack.json`` lives)."""
        return self.pack.pack_dir

    def documents(self) -> list[DungeonDocument]:
        """The open documents of the pack, in the pack's order."""
        return self.pack.documents()

    @property
    def modified(self) -> bool:
        """Whether the pack (its list of dungeons or manifest) differs from the saved
        ``pack.json`` (the model's :attr:`editor.pack.document.PackDocument.modified`)."""
        return self.pack.modified

    def _update_marker(self) -> None:
        if not (shiboken6.isValid(self) and shiboken6.isValid(self.undo_stack)):
            return
        dock = self.parentWidget()
        if dock is not None and hasattr(dock, "setWindowTitle") and shiboken6.isValid(dock):
            dock.setWindowTitle("Pack *" if self.modified else "Pack")

    def forget_history(self) -> None:
        """Forget the pack's undo history (another pack opens): the documents of removed
        dungeons, kept only for undo, go (ask about their edits first: :meth:`settle_removed`)."""
        self.undo_stack.clear()
        self.pack.forget_history()
        self.window_tabs.release_parked()
        self._update_marker()

    def sync(self) -> None:
        """Bring the list in step with the window: a newly opened pack, dungeons opened and
        closed (a closed dungeon stays in the pack, shown as closed)."""
        if self.window_tabs.syncing:
            return
        pack_path = self.window.pack_path
        pack_path = Path(pack_path) if pack_path is not None else None
        if pack_path != self.pack.manifest_path:
            if self.modified and self.ask_save_pack() == "save":
                self.save_pack()  # another pack replaces this one: offer to keep its changes first
            self.window_tabs.keep_unsettled_removed()
            self.forget_history()
            if pack_path is not None:
                self.pack.load(pack_path)
            else:
                self.pack.close()
        for document in self.pack.link_documents(self.window.documents):
            self._watch(document)
        has_pack = self.pack.is_open
        self.hint.setVisible(not has_pack)
        self.body.setVisible(has_pack)
        dock = self.parentWidget()
        if (
            has_pack != getattr(self, "_shown_for_pack", None)
            and dock is not None
            and hasattr(dock, "toggleViewAction")
        ):
            # the dock appears when a pack opens and steps aside for lone dungeon files;
            # in between, the Window menu shows or hides it as the user likes (noted only once
            # the browser sits in its dock: the first sync runs before)
            self._shown_for_pack = has_pack
            dock.setVisible(has_pack)
        self.refresh_list()

    def _watch(self, document: DungeonDocument) -> None:
        if self.thumbnails.watch(document):
            _DocumentWatch(self, document)

    def _forget(self, key: int) -> None:
        self.thumbnails.forget(key)

    def _document_changed(self, document: DungeonDocument, refs) -> None:
        if "sheet" in refs or "*" in refs:
            self.refresh_list()
        self.thumbnails.queue(document)

    # what the model tells ----------------------------------------------------------------
    def _pack_changed(self, change: PackChange) -> None:
        """Show a change of the model: the tabs follow, the list and the manifest's editors too."""
        if not shiboken6.isValid(self):
            return
        if change.kind == "inserted" and change.entry is not None and change.row is not None:
            self.window_tabs.placed(change.row, change.entry)
            self.sync()
            self.list.setCurrentRow(change.row)
        elif change.kind == "taken" and change.entry is not None and change.row is not None:
            self.window_tabs.taken(change.entry)
            self.sync()
            if self.entries:
                self.list.setCurrentRow(min(change.row, len(self.entries) - 1))
        elif change.kind == "moved" and change.row is not None:
            self.window_tabs.follow_order()
            self.refresh_list()
            self.list.setCurrentRow(change.row)
        elif change.kind == "field" and change.field is not None:
            self.form.show_field(change.field, change.value)
        elif change.kind == "opened":
            self.form.show_manifest()
        self._update_buttons()
        self._update_marker()

    # list --------------------------------------------------------------------------------
    def refresh_list(self) -> None:
        """Show the entries (titles, files, unsaved marks, thumbnails) and the current row."""
        self.list.blockSignals(True)
        self.list.clear()
        for number, entry in enumerate(self.entries, start=1):
            document = entry.document
            if document is not None:
                title = document.dungeon.sheet.title
                unsaved = document.modified or document.path is None or not document.path.exists()
                state = " \u2022 unsaved" if unsaved else ""
                icon = self.thumbnails.icon(document)
            elif self.pack_dir is not None and not self.pack.path_of(entry.relative).is_file():
                title, state, icon = entry.relative, " \u2022 missing: not on disk", placeholder("missing")
            elif not entry.title:  # never opened: the window said why when the pack opened
                title, state, icon = entry.relative, " \u2022 could not be opened: click for why", placeholder("!")
            else:
                title, state, icon = entry.title, " \u2022 closed", placeholder("closed")
            item = QListWidgetItem(icon, f"{number}. {title}\n{entry.relative}{state}")
            item.setToolTip(str(self.pack.path_of(entry.relative)) if self.pack_dir else entry.relative)
            self.list.addItem(item)
        self.list.blockSignals(False)
        self._select_current()
        self._update_buttons()

    def _on_current(self, _document) -> None:
        self._select_current()
        if self.pack_has_focus():  # showing a dungeon from the Pack dock keeps the pack's undo in charge
            self.window.undo_group.setActiveStack(self.undo_stack)

    def _select_current(self) -> None:
        current = self.window.current
        for row, entry in enumerate(self.entries):
            if entry.document is not None and entry.document is current:
                self.list.blockSignals(True)
                self.list.setCurrentRow(row)
                self.list.blockSignals(False)
                break
        self._update_buttons()

    def _update_buttons(self) -> None:
        row = self.list.currentRow()
        has = 0 <= row < len(self.entries)
        self.buttons["duplicate"].setEnabled(has)
        self.buttons["delete"].setEnabled(has)
        self.buttons["up"].setEnabled(has and row > 0)
        self.buttons["down"].setEnabled(has and row < len(self.entries) - 1)
        if getattr(self, "save_action", None) is not None:
            self.save_action.setEnabled(self.pack.is_open)

    def _clicked(self, item: QListWidgetItem) -> None:
        row = self.list.row(item)
        if 0 <= row < len(self.entries):
            self.show_entry(row)

    def show_entry(self, row: int) -> None:
        """Show dungeon ``row`` of the pack on the canvas (opening it again if it was closed;
        a file outside the pack folder or not on disk is not opened: a message says why)."""
        entry = self.entries[row]
        if entry.document is None:
            try:
                target = self.pack.file_of(row)
            except PackError as exc:
                self.tell(str(exc), True)
                return
            self.window.open_path(target)
            self.sync()
        if entry.document is not None:
            self.window.set_current(entry.document)

    def _context_menu(self, pos) -> None:
        item = self.list.itemAt(pos)
        if item is not None:
            self.list.setCurrentItem(item)
        menu = QMenu(self)
        for key in ("add", "duplicate", "delete", "up", "down"):
            action = menu.addAction(self.buttons[key].text(), self.buttons[key].click)
            action.setToolTip(self.buttons[key].toolTip())
            action.setEnabled(self.buttons[key].isEnabled())
        menu.exec(self.list.viewport().mapToGlobal(pos))

    # thumbnails (editor/pack/thumbnails.py) -----------------------------------------------
    def flush_thumbnails(self) -> None:
        """Draw every waiting thumbnail now (for tests and screenshots)."""
        self.thumbnails.flush()

    def thumbnail(self, document: DungeonDocument):
        """``(model revision drawn, icon)`` of a dungeon's thumbnail, or ``None`` before it is drawn."""
        return self.thumbnails.thumbnail(document)

    # pack edits (each one an undo step: editor/pack/edits.py, editor/pack/undo.py) --------
    def push(self, edit: PackEdit) -> None:
        """Make ``edit`` (of :mod:`editor.pack.edits`, on :attr:`pack`) as one undo step of the pack."""
        self.undo_stack.push(PackCommand(self.pack, edit))

    def _current_row(self, row: int | None) -> int:
        return self.list.currentRow() if row is None else row

    def add_dungeon(self, title: str | None = None) -> DungeonDocument | None:
        """Add a new dungeon from the template of the pack's ruleset, after the chosen one (or
        at the end); one undo step. Its file goes to the pack's ``dungeons/`` folder when the
        pack is saved. ``None`` when cancelled or refused (a message says why)."""
        if not self.pack.is_open:
            return None
        ruleset, registry = self.pack.ruleset_and_registry()
        if ruleset is None:
            self.tell(f"The pack's ruleset '{self.pack.manifest.get('ruleset')}' is not known here", True)
            return None
        title = title if title is not None else self.ask_title("New Dungeon")
        if not title:
            return None
        title = title[:120]
        dungeon_id = self.pack.unique_id(slug(title))
        row = self.list.currentRow() + 1 if 0 <= self.list.currentRow() < len(self.entries) else len(self.entries)
        relative = self.pack.new_relative(dungeon_id)
        document = new_document(template_data(ruleset, title, dungeon_id), ruleset, registry, self.window)
        document.path = self.pack.pack_dir / relative
        return self._push_new(
            AddDungeon,
            (row, PackEntry(relative, document, title)),
            document,
            f"Added '{title}' ({relative}); Save Pack writes it",
        )

    def _push_new(self, kind, arguments: tuple, document: DungeonDocument, told: str) -> DungeonDocument | None:
        try:
            edit = kind(self.pack, *arguments)
        except PackError as exc:
            document.deleteLater()
            self.tell(str(exc), True)
            return None
        self.push(edit)
        self.tell(told, False)
        return document

    def duplicate_dungeon(self, row: int | None = None) -> DungeonDocument | None:
        """Add a copy of dungeon ``row`` (the chosen one) right after it: a new id and the title
        "... (copy)"; one undo step. Its file goes to ``dungeons/`` when the pack is saved.
        ``None`` when there is no such dungeon or it cannot be opened."""
        row = self._current_row(row)
        if not 0 <= row < len(self.entries):
            return None
        if self.entries[row].document is None:
            self.show_entry(row)
        source = self.entries[row].document
        if source is None:
            return None
        dungeon = clone_dungeon(source.dungeon)
        dungeon.id = self.pack.unique_id(f"{source.dungeon.id}-copy")
        dungeon.sheet.title = source.dungeon.sheet.title[: 120 - len(" (copy)")] + " (copy)"
        relative = self.pack.new_relative(dungeon.id)
        document = DungeonDocument(
            dungeon, source.ruleset, self.pack.pack_dir / relative, source.registry, source.deck, self.window
        )
        entry = PackEntry(relative, document, dungeon.sheet.title)
        return self._push_new(
            DuplicateDungeon,
            (row + 1, entry, source.dungeon.sheet.title),
            document,
            f"Duplicated as '{dungeon.sheet.title}' ({relative}); Save Pack writes it",
        )

    def remove_dungeon(self, row: int | None = None) -> bool:
        """Take dungeon ``row`` (the chosen one) out of the pack; one undo step, so nothing is
        asked. Its file stays on disk; its tab closes, and its document (unsaved edits and
        all) is kept by the undo step. ``True`` when removed (the last dungeon is not: a
        message says why)."""
        row = self._current_row(row)
        if not 0 <= row < len(self.entries):
            return False
        try:
            edit = RemoveDungeon(self.pack, row)
        except PackError as exc:
            self.tell(str(exc), True)
            return False
        entry = edit.entry
        title = self.pack.title_of(entry)
        keep = (
            f"The file {entry.relative} stays on disk; Save Pack writes the pack without it."
            if self.pack.path_of(entry.relative).is_file()
            else "It was never saved, so there is no file to keep."
        )
        self.push(edit)
        self.tell(f"Removed '{title}' from the pack. {keep} Undo (Ctrl+Z in the Pack dock) brings it back.", False)
        return True

    def move(self, step: int, row: int | None = None) -> bool:
        """Move dungeon ``row`` (the chosen one) ``step`` places (-1 up, 1 down) in the pack;
        the tabs follow; one undo step. ``True`` when moved."""
        try:
            edit = MoveDungeon(self.pack, self._current_row(row), step)
        except PackError:
            return False
        self.push(edit)
        return True

    def undo(self) -> None:
        """Undo the last pack edit (the dock's Undo button)."""
        self.undo_stack.undo()

    def redo(self) -> None:
        """Redo the last undone pack edit (the dock's Redo button)."""
        self.undo_stack.redo()

    def settle_removed(self) -> bool:
        """Before the undo history goes (window closing, another pack opening): ask about the
        unsaved edits of dungeons removed from the pack (Save writes them to their own file,
        which stays outside the pack). ``False`` when the user cancelled."""
        return self.window_tabs.settle_removed()

    def pack_has_focus(self) -> bool:
        """Whether the keyboard focus is in the Pack dock (Undo/Redo then work on the pack)."""
        return self.undo_focus.has_focus()

    # saving ------------------------------------------------------------------------------
    def manifest_data(self) -> dict | None:
        """The manifest as Save Pack writes it (dungeons in the browser's order), or ``None``
        with a message when a dungeon lies outside the pack folder."""
        if not self.pack.is_open:
            return None
        try:
            return self.pack.manifest_data()
        except PackError as exc:
            self.tell(str(exc), True)
            return None

    def save_pack(self) -> bool:
        """Save the pack's new and modified dungeons, then write ``pack.json`` atomically with
        the dungeons in the browser's order (:meth:`editor.pack.document.PackDocument.save`).
        ``True`` when everything was written; otherwise a message says what was not (the old
        manifest is then untouched)."""
        if not self.pack.is_open:
            return False
        self.form.commit()
        try:
            data = self.pack.save(self.window.save_document, self.window.ask_replace_read_only)
        except PackError as exc:
            self.tell(str(exc), True)
            return False
        self.undo_stack.setClean()
        self._update_marker()
        self.refresh_list()
        self.tell(f"Saved the pack ({len(data['dungeons'])} dungeons) to {self.pack.manifest_path}", False)
        return True


def install(window) -> PackBrowser:
    """Add the Pack dock and File > Save Pack to ``window`` (the browser is ``window.pack_browser``)."""
    browser = PackBrowser(window)
    browser.setObjectName("pack_browser")
    window.add_dock(browser, "Pack", Qt.DockWidgetArea.LeftDockWidgetArea, "pack")
    action = window.make_action(
        "save_pack",
        "Save &Pack",
        "Ctrl+Alt+S",
        "Save the pack's new and modified dungeons and its manifest",
        browser.save_pack,
    )
    window.menu("File").addAction(action)
    browser.save_action = action
    browser._update_buttons()
    browser.close_guard = CloseGuard(browser)
    window.installEventFilter(browser.close_guard)
    return browser


__all__ = [
    "MANIFEST_ORDER",
    "THUMB_SIZE",
    "VERSION_PATTERN",
    "PackBrowser",
    "PackEntry",
    "install",
    "render_thumbnail",
]
