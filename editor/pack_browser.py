"""The Pack dock: the dungeons of the open content pack, with thumbnails, and its manifest.

When the window opens a pack (``window.pack_path`` set by ``window.open_path`` for a pack
folder or its ``pack.json``), the browser lists the pack's dungeons in the manifest's order,
each with a small picture of its printed sheet. Clicking one shows it on the canvas. The
buttons and the list's context menu add a dungeon from the pack ruleset's template, duplicate
one (new id, title "... (copy)"), remove one from the pack (its file stays on disk) and move
them up and down; the manifest's name, version and description are edited above the list.

Every pack-level edit is an undo step on the pack's own ``QUndoStack``
(:attr:`PackBrowser.undo_stack`, commands in :mod:`editor.pack_edits`): add, duplicate,
remove, move, and each manifest field (a stretch of typing in one field is one step). Undo
puts back the exact list and manifest; undoing a removal brings back the same open document
with its unsaved edits (it is kept in memory, never reloaded), so removing asks no question;
no file is ever deleted. The stack is in the window's undo group: while the keyboard focus is
in the Pack dock, Edit > Undo/Redo (Ctrl+Z, Ctrl+Shift+Z) and the History dock work on the
pack; anywhere else they work on the dungeon on the canvas. The dock's own Undo and Redo
buttons always work on the pack.

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

import re
import time
from dataclasses import dataclass
from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QImage, QKeySequence, QPainter, QPixmap, QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from editor.document import DungeonDocument, new_document
from editor.edits import clone_dungeon, objects
from editor.pack_edits import (
    ABSENT,
    AddDungeon,
    ChangeManifestField,
    DuplicateDungeon,
    MoveDungeon,
    RemoveDungeon,
)
from editor.scene import image_from_worker
from editor.sheet_worker import render_thumbnail_image, shared_worker
from editor.templates import slug, template_data

#: Size of a thumbnail in pixels (an A4 sheet's proportions).
THUMB_SIZE = QSize(72, 102)
#: Quiet time after an edit before a dungeon's thumbnail is drawn again, in ms.
THUMB_DELAY_MS = 500
#: Dungeons with more objects than this get their thumbnails drawn in the sheet worker process
#: (as their sheets on the canvas are, see editor/scene.py).
THUMB_WORKER_OBJECTS = 400
#: The pack version pattern (schemas/pack.schema.json, semantic versioning).
VERSION_PATTERN = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$")
#: Member order of a manifest as inkcrawl writes it.
MANIFEST_ORDER = ("type", "format_version", "id", "name", "version", "description", "ruleset", "rulesets",
                  "dungeons", "decks")


@dataclass
class PackEntry:
    """One dungeon of the pack: ``relative`` is its path in the manifest (``dungeons/x.json``),
    ``document`` the open document (``None`` when its tab was closed: it stays in the pack),
    ``title`` the last title seen (for a closed entry)."""

    relative: str
    document: DungeonDocument | None
    title: str = ""


def render_thumbnail(dungeon, ruleset, size: QSize = THUMB_SIZE) -> QImage:
    """The printed sheet of ``dungeon`` drawn small (the exporters' own SVG, so it shows what
    prints), in this process: the drawing the sheet worker makes for big dungeons
    (:func:`editor.sheet_worker.render_thumbnail_image`). Raises ``ValueError`` with the
    reason when the sheet cannot be laid out or drawn."""
    result = render_thumbnail_image(dungeon.to_dict(), ruleset.data, size.width(), size.height())
    if "image" not in result:
        raise ValueError(result["error"])
    return image_from_worker(*result["image"])


def _placeholder(text: str) -> QIcon:
    image = QImage(THUMB_SIZE, QImage.Format.Format_RGB32)
    image.fill(QColor("#eeeeee"))
    painter = QPainter(image)
    painter.setPen(QColor("#888888"))
    painter.drawRect(0, 0, THUMB_SIZE.width() - 1, THUMB_SIZE.height() - 1)
    painter.drawText(QRectF(0, 0, THUMB_SIZE.width(), THUMB_SIZE.height()), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return QIcon(QPixmap.fromImage(image))


class _CloseGuard(QObject):
    """Asks about unsaved pack changes before the window closes (an event filter runs before
    the window's own close handling)."""

    def __init__(self, browser: PackBrowser):
        super().__init__(browser)
        self.browser = browser

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Close:
            if self.browser.modified:
                answer = self.browser.ask_save_pack()
                if answer == "cancel" or (answer == "save" and not self.browser.save_pack()):
                    event.ignore()
                    return True
            if not self.browser.settle_removed():
                event.ignore()
                return True
        return False


class _FocusWatch(QObject):
    """Follows the application's keyboard focus for the browser (a child of it, so the
    connection ends with the browser)."""

    def __init__(self, browser: PackBrowser):
        super().__init__(browser)
        self.browser = browser
        QApplication.instance().focusChanged.connect(self.focus_changed)

    def focus_changed(self, old, new) -> None:
        if shiboken6.isValid(self) and shiboken6.isValid(self.browser):
            self.browser._focus_changed(old, new)


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
    """The Pack dock's widget. ``entries`` are the pack's dungeons in the pack's order,
    ``manifest`` the manifest data being edited, ``undo_stack`` the pack's edits (its clean
    state is the saved ``pack.json``), ``removed`` the entries taken out of the pack by
    removals not undone (their documents are kept for the undo)."""

    def __init__(self, window):
        super().__init__()
        self.window = window
        self.manifest_path: Path | None = None
        self.manifest: dict | None = None
        self.entries: list[PackEntry] = []
        self.removed: list[PackEntry] = []
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setObjectName("pack_undo_stack")
        self._typing_session = 0
        self._parked: list[DungeonDocument] = []
        self._thumbs: dict[int, tuple[int, QIcon]] = {}
        self._pending: list[DungeonDocument] = []
        self._watched: set[int] = set()
        self._syncing = False
        self._render_ms = 0.0

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.hint = QLabel("No content pack open: open a pack folder or its pack.json to list its dungeons.")
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.id_label = QLabel()
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("pack_name")
        self.name_edit.setMaxLength(200)
        self.version_edit = QLineEdit()
        self.version_edit.setObjectName("pack_version")
        self.version_edit.setToolTip("The pack's version, semantic versioning: 1.2.0")
        self.description_edit = QPlainTextEdit()
        self.description_edit.setObjectName("pack_description")
        self.description_edit.setMaximumHeight(70)
        self.description_edit.setTabChangesFocus(True)
        form.addRow("Pack", self.id_label)
        form.addRow("Name", self.name_edit)
        form.addRow("Version", self.version_edit)
        form.addRow("Description", self.description_edit)
        body.addLayout(form)
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
        rows = (("add", "Add", "Add a dungeon from the pack ruleset's template"),
                ("duplicate", "Duplicate", "Add a copy of the chosen dungeon (new id, title '... (copy)')"),
                ("delete", "Remove", "Remove the chosen dungeon from the pack (its file stays on disk)"),
                ("up", "Up", "Move the chosen dungeon up in the pack"),
                ("down", "Down", "Move the chosen dungeon down in the pack"))
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

        self.buttons["add"].clicked.connect(lambda: self.add_dungeon())
        self.buttons["duplicate"].clicked.connect(lambda: self.duplicate_dungeon())
        self.buttons["delete"].clicked.connect(lambda: self.remove_dungeon())
        self.buttons["up"].clicked.connect(lambda: self.move(-1))
        self.buttons["down"].clicked.connect(lambda: self.move(1))
        self.save_button.clicked.connect(lambda: self.save_pack())
        self.undo_button.clicked.connect(self.undo_stack.undo)
        self.redo_button.clicked.connect(self.undo_stack.redo)
        for signal in (self.undo_stack.canUndoChanged, self.undo_stack.canRedoChanged,
                       self.undo_stack.undoTextChanged, self.undo_stack.redoTextChanged):
            signal.connect(lambda *_: self._update_undo_buttons())
        self.undo_stack.cleanChanged.connect(lambda _clean: self._update_marker())
        # a message tells of the last pack edit: the next edit, an undo or a redo supersedes it
        self.undo_stack.indexChanged.connect(lambda _index: self.message.hide())
        window.undo_group.addStack(self.undo_stack)
        self._focus_watch = _FocusWatch(self)
        self._update_undo_buttons()
        self.name_edit.editingFinished.connect(self._name_finished)
        self.version_edit.editingFinished.connect(self._version_finished)
        self.description_edit.textChanged.connect(self._description_changed)

        self._thumb_timer = QTimer(self)
        self._thumb_timer.setSingleShot(True)
        self._thumb_timer.setInterval(THUMB_DELAY_MS)
        self._thumb_timer.timeout.connect(self._render_next)
        self._thumb_jobs: dict[int, tuple] = {}  # id(document) -> (future, revision, document) in the worker
        self._thumb_again: set[int] = set()      # edited while their thumbnail was being drawn
        self._thumb_retried: set[tuple[int, int]] = set()  # (document, revision) drawn again after a worker died
        self._thumb_poll = QTimer(self)
        self._thumb_poll.setInterval(50)
        self._thumb_poll.timeout.connect(lambda: self._collect_thumbnails())
        window.documents_changed.connect(self.sync)
        window.current_changed.connect(self._on_current)
        self.sync()

    # seams (tests replace these) ---------------------------------------------------------
    def ask_title(self, default: str) -> str | None:
        """Ask the title of a new dungeon; ``None`` when cancelled."""
        text, ok = QInputDialog.getText(self.window, "Add dungeon", "Title of the new dungeon:", text=default)
        return text.strip() if ok and text.strip() else None

    def ask_save_pack(self) -> str:
        """Ask what to do with unsaved pack changes: ``"save"``, ``"discard"`` or ``"cancel"``."""
        answer = QMessageBox.question(
            self.window, "Unsaved pack changes",
            f"Save the changes to the pack {self.manifest.get('name', '') if self.manifest else ''} "
            "(its list of dungeons and manifest)?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            answer, "cancel")

    def tell(self, text: str, error: bool = False) -> None:
        """Show a message about the pack in the dock and the status bar."""
        self.message.setText(text)
        self.message.setStyleSheet("color: #b71c1c;" if error else "color: #1b5e20;")
        self.message.show()
        self.window.show_status(text, 10000)

    # state -------------------------------------------------------------------------------
    @property
    def pack_dir(self) -> Path | None:
        """The pack folder (where ``pack.json`` lives)."""
        return self.manifest_path.parent if self.manifest_path is not None else None

    def documents(self) -> list[DungeonDocument]:
        """The open documents of the pack, in the pack's order."""
        return [e.document for e in self.entries if e.document is not None]

    @property
    def modified(self) -> bool:
        """Whether the pack (its list of dungeons or manifest) differs from the saved
        ``pack.json``: the pack's undo stack is away from its clean state."""
        return self.manifest is not None and not self.undo_stack.isClean()

    def _update_marker(self) -> None:
        if not (shiboken6.isValid(self) and shiboken6.isValid(self.undo_stack)):
            return
        dock = self.parentWidget()
        if dock is not None and hasattr(dock, "setWindowTitle") and shiboken6.isValid(dock):
            dock.setWindowTitle("Pack *" if self.modified else "Pack")

    def _reset_history(self) -> None:
        """Forget the pack's undo history (another pack opens): documents kept only for undo go."""
        self.undo_stack.clear()
        self.removed = []
        parked, self._parked = self._parked, []
        for document in parked:
            if shiboken6.isValid(document) and document not in self.window.documents:
                document.deleteLater()
        self._update_marker()

    def _load_manifest(self, path: Path) -> None:
        from inkcrawl.validate import load_document

        loaded = load_document(path)
        self.manifest_path = path
        self.manifest = loaded.data if loaded.file_type == "pack" and isinstance(loaded.data, dict) else None
        self.entries = []
        self._reset_history()
        if self.manifest is None:
            return
        for relative in self.manifest.get("dungeons", []):
            if isinstance(relative, str):
                self.entries.append(PackEntry(relative, None))
        self.name_edit.setText(self.manifest.get("name", ""))
        self.version_edit.setText(self.manifest.get("version", ""))
        self.description_edit.blockSignals(True)
        self.description_edit.setPlainText(self.manifest.get("description", ""))
        self.description_edit.blockSignals(False)
        self.id_label.setText(f"{self.manifest.get('id', '')} \u2014 ruleset {self.manifest.get('ruleset', '')}")

    def _path_of(self, relative: str) -> Path:
        return (self.pack_dir / relative).resolve()

    def sync(self) -> None:
        """Bring the list in step with the window: a newly opened pack, dungeons opened and
        closed (a closed dungeon stays in the pack, shown as closed)."""
        if self._syncing:
            return
        pack_path = getattr(self.window, "pack_path", None)
        pack_path = Path(pack_path) if pack_path is not None else None
        if pack_path != self.manifest_path:
            if self.modified and self.manifest is not None and self.ask_save_pack() == "save":
                self.save_pack()  # another pack replaces this one: offer to keep its changes first
            self._keep_unsettled_removed()
            self._load_manifest(pack_path) if pack_path is not None else self._clear()
        open_docs = list(self.window.documents)
        for entry in self.entries:
            if entry.document is not None and entry.document not in open_docs:
                entry.title = entry.title or entry.relative
                entry.document = None
            if entry.document is None and self.pack_dir is not None:
                target = self._path_of(entry.relative)
                for document in open_docs:
                    if document.path is not None and document.path.resolve() == target:
                        entry.document = document
            if entry.document is not None:
                entry.title = entry.document.dungeon.sheet.title
                self._watch(entry.document)
        self.hint.setVisible(self.manifest is None)
        self.body.setVisible(self.manifest is not None)
        has_pack = self.manifest is not None
        dock = self.parentWidget()
        if has_pack != getattr(self, "_shown_for_pack", None) and dock is not None \
                and hasattr(dock, "toggleViewAction"):
            # the dock appears when a pack opens and steps aside for lone dungeon files;
            # in between, the Window menu shows or hides it as the user likes (noted only once
            # the browser sits in its dock: the first sync runs before)
            self._shown_for_pack = has_pack
            dock.setVisible(has_pack)
        self.refresh_list()

    def _clear(self) -> None:
        self.manifest_path = None
        self.manifest = None
        self.entries = []
        self._reset_history()

    def _watch(self, document: DungeonDocument) -> None:
        if id(document) in self._watched:
            return
        self._watched.add(id(document))
        _DocumentWatch(self, document)
        self._queue_thumbnail(document, delay=False)

    def _forget(self, key: int) -> None:
        self._watched.discard(key)
        self._thumbs.pop(key, None)
        self._pending = [d for d in self._pending if id(d) != key]

    def _document_changed(self, document: DungeonDocument, refs) -> None:
        if "sheet" in refs or "*" in refs:
            self.refresh_list()
        self._queue_thumbnail(document)

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
                cached = self._thumbs.get(id(document))
                icon = cached[1] if cached is not None else _placeholder("\u2026")
            elif self.pack_dir is not None and not self._path_of(entry.relative).is_file():
                title, state, icon = entry.relative, " \u2022 missing: not on disk", _placeholder("missing")
            elif not entry.title:  # never opened: the window said why when the pack opened
                title, state, icon = entry.relative, " \u2022 could not be opened: click for why", _placeholder("!")
            else:
                title, state, icon = entry.title, " \u2022 closed", _placeholder("closed")
            item = QListWidgetItem(icon, f"{number}. {title}\n{entry.relative}{state}")
            item.setToolTip(str(self._path_of(entry.relative)) if self.pack_dir else entry.relative)
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
            self.save_action.setEnabled(self.manifest is not None)

    def _clicked(self, item: QListWidgetItem) -> None:
        row = self.list.row(item)
        if 0 <= row < len(self.entries):
            self.show_entry(row)

    def show_entry(self, row: int) -> None:
        """Show dungeon ``row`` of the pack on the canvas (opening it again if it was closed)."""
        entry = self.entries[row]
        if entry.document is None:
            from inkcrawl.validate import path_inside_pack

            if path_inside_pack(self.pack_dir, entry.relative) is None:
                self.tell(f"{entry.relative} lies outside the pack folder: a pack may only name files inside "
                          "it, so the editor does not open it", True)
                return
            target = self._path_of(entry.relative)
            if not target.is_file():
                self.tell(f"{entry.relative} is not on disk: remove it from the pack or restore the file", True)
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

    # thumbnails --------------------------------------------------------------------------
    def _queue_thumbnail(self, document: DungeonDocument, delay: bool = True) -> None:
        if document not in self._pending:
            self._pending.append(document)
        # adaptive: a sheet that takes long to draw waits for a longer pause in the editing
        wait = max(THUMB_DELAY_MS, int(self._render_ms * 10)) if delay else 0
        self._thumb_timer.start(wait)

    def _render_next(self) -> None:
        """Draw one waiting thumbnail, then come back for the next (the window stays responsive)."""
        while self._pending:
            document = self._pending.pop(0)
            if id(document) in self._watched and document in self.window.documents:
                self._render(document, defer=True)
                break
        if self._pending and not self._thumb_timer.isActive():
            self._thumb_timer.start(0)
        self.refresh_list()

    def _render(self, document: DungeonDocument, defer: bool = False) -> None:
        if sum(1 for _ in objects(document.dungeon)) > THUMB_WORKER_OBJECTS:
            scene = getattr(self.window, "scene", None)
            if defer and scene is not None and scene.worker_busy():
                self._queue_thumbnail(document)  # the canvas's sheet and tiles come first
                return
            self._render_in_worker(document)
            return
        started = time.perf_counter()
        try:
            icon = QIcon(QPixmap.fromImage(render_thumbnail(document.dungeon, document.ruleset)))
        except Exception:
            icon = _placeholder("!")
        self._render_ms = max(self._render_ms * 0.5, (time.perf_counter() - started) * 1000)
        self._thumbs[id(document)] = (document.revision, icon)

    def _render_in_worker(self, document: DungeonDocument) -> None:
        """Draw a big dungeon's thumbnail in the sheet worker process (a second of exporter
        work must not freeze the window); :meth:`_collect_thumbnails` takes it when ready."""
        key = id(document)
        if key in self._thumb_jobs:  # one at a time per dungeon: draw again when it is back
            self._thumb_again.add(key)
            return
        future = shared_worker().submit(render_thumbnail_image, document.dungeon.to_dict(), document.ruleset.data,
                                        THUMB_SIZE.width(), THUMB_SIZE.height())
        self._thumb_jobs[key] = (future, document.revision, document)
        self._thumb_poll.start()

    def _collect_thumbnails(self, wait: bool = False) -> None:
        for key, (future, revision, document) in list(self._thumb_jobs.items()):
            deadline = time.perf_counter() + 60
            while wait and not future.done() and time.perf_counter() < deadline:
                shared_worker().check()  # a worker that died mid-reply: the job fails instead of never ending
                try:
                    future.result(timeout=0.5)
                except Exception:
                    pass
            shared_worker().check()
            if not future.done():
                continue
            del self._thumb_jobs[key]
            try:
                result = future.result()
            except Exception:
                result = {"error": "the worker stopped", "retry": (key, revision) not in self._thumb_retried}
                self._thumb_retried.add((key, revision))
            if key not in self._watched:
                continue
            if "image" in result:
                self._thumbs[key] = (revision, QIcon(QPixmap.fromImage(image_from_worker(*result["image"]))))
            else:
                self._thumbs[key] = (revision, _placeholder("!"))
            if key in self._thumb_again or revision != document.revision or result.get("retry"):
                self._thumb_again.discard(key)
                self._queue_thumbnail(document)
        if not self._thumb_jobs:
            self._thumb_poll.stop()
        self.refresh_list()

    def flush_thumbnails(self) -> None:
        """Draw every waiting thumbnail now (for tests and screenshots)."""
        self._thumb_timer.stop()
        while self._pending:
            document = self._pending.pop(0)
            if id(document) in self._watched and document in self.window.documents:
                self._render(document)
        self._thumb_again.clear()
        self._collect_thumbnails(wait=True)
        self.refresh_list()

    def thumbnail(self, document: DungeonDocument) -> tuple[int, QIcon] | None:
        """``(model revision drawn, icon)`` of a dungeon's thumbnail, or ``None`` before it is drawn."""
        return self._thumbs.get(id(document))

    # commands ----------------------------------------------------------------------------
    def _ruleset_and_registry(self):
        from inkcrawl.validate import RulesetRegistry

        for document in self.documents():
            ruleset = document.registry.get(self.manifest.get("ruleset", ""))
            if ruleset is not None:
                return ruleset, document.registry
        registry = RulesetRegistry([])
        return registry.get(self.manifest.get("ruleset", "")), registry

    def _taken_ids(self) -> set[str]:
        return {d.dungeon.id for d in self.documents()}

    def _unique_id(self, base: str) -> str:
        taken = self._taken_ids()
        base = base[:56]
        candidate, n = base, 2
        while candidate in taken:
            candidate = f"{base}-{n}"
            n += 1
        return candidate

    def _new_relative(self, dungeon_id: str) -> str:
        used = {e.relative for e in self.entries}
        stem, n = dungeon_id, 2
        while f"dungeons/{stem}.json" in used or (self.pack_dir / "dungeons" / f"{stem}.json").exists():
            stem = f"{dungeon_id}-{n}"
            n += 1
        return f"dungeons/{stem}.json"

    # pack edits (each one an undo command of editor.pack_edits) ---------------------------
    def add_dungeon(self, title: str | None = None) -> DungeonDocument | None:
        """Add a new dungeon from the template of the pack's ruleset, after the chosen one (or
        at the end); one undo step. Its file goes to the pack's ``dungeons/`` folder when the
        pack is saved."""
        if self.manifest is None:
            return None
        ruleset, registry = self._ruleset_and_registry()
        if ruleset is None:
            self.tell(f"The pack's ruleset '{self.manifest.get('ruleset')}' is not known here", True)
            return None
        title = title if title is not None else self.ask_title("New Dungeon")
        if not title:
            return None
        title = title[:120]
        dungeon_id = self._unique_id(slug(title))
        data = template_data(ruleset, title, dungeon_id)
        document = new_document(data, ruleset, registry, self.window)
        row = self.list.currentRow() + 1 if 0 <= self.list.currentRow() < len(self.entries) else len(self.entries)
        relative = self._new_relative(dungeon_id)
        document.path = self.pack_dir / relative
        self.undo_stack.push(AddDungeon(self, row, PackEntry(relative, document, title)))
        self.tell(f"Added '{title}' ({relative}); Save Pack writes it", False)
        return document

    def duplicate_dungeon(self, row: int | None = None) -> DungeonDocument | None:
        """Add a copy of dungeon ``row`` (the chosen one) right after it: a new id and the title
        "... (copy)"; one undo step. Its file goes to ``dungeons/`` when the pack is saved."""
        row = self.list.currentRow() if row is None else row
        if not 0 <= row < len(self.entries):
            return None
        if self.entries[row].document is None:
            self.show_entry(row)
        source = self.entries[row].document
        if source is None:
            return None
        dungeon = clone_dungeon(source.dungeon)
        dungeon.id = self._unique_id(f"{source.dungeon.id}-copy")
        dungeon.sheet.title = source.dungeon.sheet.title[:120 - len(" (copy)")] + " (copy)"
        relative = self._new_relative(dungeon.id)
        document = DungeonDocument(dungeon, source.ruleset, self.pack_dir / relative, source.registry, source.deck,
                                   self.window)
        entry = PackEntry(relative, document, dungeon.sheet.title)
        self.undo_stack.push(DuplicateDungeon(self, row + 1, entry, source.dungeon.sheet.title))
        self.tell(f"Duplicated as '{dungeon.sheet.title}' ({relative}); Save Pack writes it", False)
        return document

    def remove_dungeon(self, row: int | None = None) -> bool:
        """Take dungeon ``row`` (the chosen one) out of the pack; one undo step, so nothing is
        asked. Its file stays on disk; its tab closes, and its document (unsaved edits and
        all) is kept by the undo step. ``True`` when removed."""
        row = self.list.currentRow() if row is None else row
        if not 0 <= row < len(self.entries):
            return False
        entry = self.entries[row]
        if len(self.entries) == 1:
            self.tell("A pack holds at least one dungeon: add another before removing this one", True)
            return False
        title = entry.document.dungeon.sheet.title if entry.document is not None else entry.title
        on_disk = self._path_of(entry.relative).is_file()
        keep = (f"The file {entry.relative} stays on disk; Save Pack writes the pack without it."
                if on_disk else "It was never saved, so there is no file to keep.")
        self.undo_stack.push(RemoveDungeon(self, row, entry))
        self.tell(f"Removed '{title}' from the pack. {keep} Undo (Ctrl+Z in the Pack dock) brings it back.", False)
        return True

    def move(self, step: int, row: int | None = None) -> bool:
        """Move dungeon ``row`` (the chosen one) ``step`` places (-1 up, 1 down) in the pack;
        the tabs follow; one undo step. ``True`` when moved."""
        row = self.list.currentRow() if row is None else row
        target = row + step
        if step not in (-1, 1) or not (0 <= row < len(self.entries) and 0 <= target < len(self.entries)):
            return False
        entry = self.entries[row]
        title = entry.document.dungeon.sheet.title if entry.document is not None else entry.title
        self.undo_stack.push(MoveDungeon(self, row, step, title or entry.relative))
        return True

    def undo(self) -> None:
        """Undo the last pack edit (the dock's Undo button)."""
        self.undo_stack.undo()

    def redo(self) -> None:
        """Redo the last undone pack edit (the dock's Redo button)."""
        self.undo_stack.redo()

    # primitives the undo commands use -----------------------------------------------------
    def _place_entry(self, row: int, entry: PackEntry) -> None:
        """Put ``entry`` into the pack at ``row``; its document (if it has one) gets its tab
        back, placed after the pack's open dungeons before it, and becomes current."""
        row = max(0, min(row, len(self.entries)))
        self.entries.insert(row, entry)
        document = entry.document
        if document is not None and not shiboken6.isValid(document):
            entry.document = document = None
        if document is not None and document not in self.window.documents:
            if document in self._parked:
                self._parked.remove(document)
            neighbours = [e.document for e in self.entries[:row]
                          if e.document is not None and e.document in self.window.documents]
            index = self.window.documents.index(neighbours[-1]) + 1 if neighbours else 0
            self._syncing = True
            try:
                self.window.add_document(document, make_current=True, index=index)
            finally:
                self._syncing = False
        elif document is not None:
            self.window.set_current(document)
        self.sync()
        self.list.setCurrentRow(row)
        self._update_buttons()

    def _take_entry(self, entry: PackEntry) -> None:
        """Take ``entry`` out of the pack; its tab closes without a question and its document
        object is kept (in ``entry.document``) for an undo or redo. No file is touched."""
        row = next(i for i, e in enumerate(self.entries) if e is entry)
        document = entry.document
        if document is not None and shiboken6.isValid(document) and document in self.window.documents:
            self._syncing = True
            try:
                self.window.close_document(document, ask=False, keep=True)
            finally:
                self._syncing = False
            document.setParent(self)  # lives while the undo history may bring it back
            self._parked.append(document)
        del self.entries[row]
        self.sync()
        if self.entries:
            self.list.setCurrentRow(min(row, len(self.entries) - 1))
        self._update_buttons()

    def _swap(self, row: int, other: int, select: int) -> None:
        """Swap the pack's dungeons ``row`` and ``other`` (the tabs follow) and choose ``select``."""
        self.entries[row], self.entries[other] = self.entries[other], self.entries[row]
        self._sync_tab_order()
        self.refresh_list()
        self.list.setCurrentRow(select)
        self._update_buttons()

    def _set_field(self, field: str, value) -> None:
        """Set manifest member ``field`` to ``value`` (:data:`editor.pack_edits.ABSENT` leaves
        it out) and show it in its editor (unless the editor already shows that value)."""
        if self.manifest is None:
            return
        if value is ABSENT:
            self.manifest.pop(field, None)
        else:
            self.manifest[field] = value
        shown = "" if value is ABSENT else value
        if field == "description":
            if self._description_value() != value:
                self.description_edit.blockSignals(True)
                self.description_edit.setPlainText(shown)
                self.description_edit.blockSignals(False)
        else:
            edit = self.name_edit if field == "name" else self.version_edit
            if edit.text().strip() != shown:
                edit.setText(shown)

    def _change_field(self, field: str, value) -> None:
        old = self.manifest.get(field, ABSENT)
        if old != value:
            self.undo_stack.push(ChangeManifestField(self, field, old, value, self._typing_session))

    def settle_removed(self) -> bool:
        """Before the undo history goes (window closing, another pack opening): ask about the
        unsaved edits of dungeons removed from the pack (Save writes them to their own file,
        which stays outside the pack). ``False`` when the user cancelled."""
        return all(self.window.confirm_discard(document) for document in self._removed_with_edits())

    def _removed_with_edits(self) -> list[DungeonDocument]:
        """The documents of dungeons removed from the pack that hold unsaved edits."""
        return [entry.document for entry in self.removed if entry.document is not None
                and shiboken6.isValid(entry.document) and entry.document.modified]

    def _keep_unsettled_removed(self) -> None:
        """Another pack replaces this one, and its undo history goes: ask about each removed
        dungeon's unsaved edits; one the user did not save or discard (Cancel, or a failed
        save) comes back in a tab of its own, outside the pack, so its edits are not lost."""
        for document in self._removed_with_edits():
            if self.window.confirm_discard(document):
                continue
            if document in self._parked:
                self._parked.remove(document)
            self._syncing = True
            try:
                self.window.add_document(document, make_current=False)
            finally:
                self._syncing = False

    def _sync_tab_order(self) -> None:
        """Reorder the window's documents so the pack's open dungeons follow the pack's order."""
        wanted = [d for d in self.documents() if d in self.window.documents]
        slots = sorted(self.window.documents.index(d) for d in wanted)
        self._syncing = True
        try:
            for document, slot in zip(wanted, slots):
                at = self.window.documents.index(document)
                if at != slot:
                    self.window.move_document(at, slot)
        finally:
            self._syncing = False

    # undo and focus ----------------------------------------------------------------------
    def _update_undo_buttons(self) -> None:
        stack = self.undo_stack
        if not (shiboken6.isValid(self) and shiboken6.isValid(stack) and shiboken6.isValid(self.undo_button)):
            return  # signals sent while Qt tears the dock down
        self.undo_button.setEnabled(stack.canUndo())
        self.redo_button.setEnabled(stack.canRedo())
        for button, verb, can, text, action_id, default in (
                (self.undo_button, "Undo", stack.canUndo(), stack.undoText(), "undo", "Ctrl+Z"),
                (self.redo_button, "Redo", stack.canRedo(), stack.redoText(), "redo", "Ctrl+Shift+Z")):
            action = getattr(self.window, "actions_by_id", {}).get(action_id)
            key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText) if action is not None else ""
            keys = f" ({key or default} while the Pack dock has the focus)"
            button.setToolTip(f"{verb} in the pack: {text}{keys}" if can
                              else f"Nothing to {verb.lower()} in the pack{keys}")

    def _in_dock(self, widget) -> bool:
        dock = self.parentWidget()
        holder = dock if dock is not None else self
        return widget is holder or holder.isAncestorOf(widget)

    def pack_has_focus(self) -> bool:
        """Whether the keyboard focus is in the Pack dock (Undo/Redo then work on the pack)."""
        focus = QApplication.focusWidget()
        return focus is not None and self._in_dock(focus)

    def _focus_changed(self, old, new) -> None:
        self._typing_session += 1  # a run of typing in a manifest field ends when the focus moves
        if new is None:
            return
        group = self.window.undo_group
        if self._in_dock(new):
            if group.activeStack() is not self.undo_stack:
                group.setActiveStack(self.undo_stack)
            return
        if group.activeStack() is not self.undo_stack:
            return
        # the History dock, menus and dialogs leave the pack's history in charge
        history = getattr(self.window, "undo_view", None)
        history_dock = history.parentWidget() if history is not None else None
        if isinstance(new, QMenu) or new.window() is not self.window or (
                history_dock is not None and (new is history_dock or history_dock.isAncestorOf(new))):
            return
        current = self.window.current
        group.setActiveStack(current.undo_stack if current is not None else None)

    # manifest ----------------------------------------------------------------------------
    def _name_finished(self) -> None:
        if self.manifest is None:
            return
        name = self.name_edit.text().strip()
        if not name:
            self.tell("The pack's name cannot be empty", True)
            self.name_edit.setText(self.manifest.get("name", ""))
        else:
            self._change_field("name", name)

    def _version_finished(self) -> None:
        if self.manifest is None:
            return
        version = self.version_edit.text().strip()
        if not VERSION_PATTERN.match(version):
            self.tell(f"'{version}' is not a version: use semantic versioning such as 1.2.0", True)
            self.version_edit.setText(self.manifest.get("version", ""))
        else:
            self._change_field("version", version)

    def _description_value(self):
        text = self.description_edit.toPlainText()
        return text if text.strip() else ABSENT

    def _description_changed(self) -> None:
        if self.manifest is None:
            return
        if len(self.description_edit.toPlainText()) > 2000:
            self.tell("A pack description holds at most 2000 characters", True)
            return
        self._change_field("description", self._description_value())

    def manifest_data(self) -> dict | None:
        """The manifest as Save Pack writes it (dungeons in the browser's order), or ``None``
        with a message when a dungeon lies outside the pack folder."""
        if self.manifest is None:
            return None
        dungeons = []
        for entry in self.entries:
            if entry.document is not None and entry.document.path is not None:
                try:
                    relative = entry.document.path.resolve().relative_to(self.pack_dir.resolve()).as_posix()
                except ValueError:
                    self.tell(f"'{entry.document.dungeon.sheet.title}' is saved outside the pack folder "
                              f"({entry.document.path}); save it inside {self.pack_dir} first", True)
                    return None
                entry.relative = relative
            dungeons.append(entry.relative)
        data = dict(self.manifest)
        data["dungeons"] = dungeons
        ordered = {key: data[key] for key in MANIFEST_ORDER if key in data}
        ordered.update({key: value for key, value in data.items() if key not in ordered})
        return ordered

    def save_pack(self) -> bool:
        """Save the pack's new and modified dungeons, then write ``pack.json`` atomically with
        the dungeons in the browser's order. ``True`` when everything was written; otherwise a
        message says what was not (the old manifest is then untouched)."""
        from inkcrawl.jsonio import write_json_atomic
        from inkcrawl.schema import schema_problems

        if self.manifest is None:
            return False
        self._name_finished()
        self._version_finished()
        data = self.manifest_data()
        if data is None:
            return False
        problems = schema_problems(data, "pack", str(self.manifest_path))
        if problems:
            self.tell("The pack was not saved: " + "; ".join(f"{p.pointer} {p.message}" for p in problems[:3]), True)
            return False
        ids: dict[str, str] = {}
        for document in self.documents():
            other = ids.get(document.dungeon.id)
            if other is not None:
                self.tell(f"The pack was not saved: two dungeons have the id '{document.dungeon.id}' ({other}); "
                          "change one in the Inspector", True)
                return False
            ids[document.dungeon.id] = document.dungeon.sheet.title
        for document in self.documents():
            if document.modified or document.path is None or not document.path.exists():
                try:
                    document.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    self.tell(f"The pack was not saved: {document.path.parent} cannot be made ({exc})", True)
                    return False
                if not self.window.save_document(document):
                    self.tell(f"The pack was not saved: '{document.dungeon.sheet.title}' could not be written", True)
                    return False
        try:
            write_json_atomic(self.manifest_path, data)
        except OSError as exc:
            self.tell(f"{self.manifest_path} could not be written: {exc.strerror or exc}. The file on disk is "
                      "unchanged.", True)
            return False
        self.manifest = data
        self.undo_stack.setClean()
        self._update_marker()
        self.refresh_list()
        self.tell(f"Saved the pack ({len(data['dungeons'])} dungeons) to {self.manifest_path}", False)
        return True


def install(window) -> PackBrowser:
    """Add the Pack dock and File > Save Pack to ``window`` (the browser is ``window.pack_browser``)."""
    browser = PackBrowser(window)
    browser.setObjectName("pack_browser")
    window.pack_browser = browser
    window.add_dock(browser, "Pack", Qt.DockWidgetArea.LeftDockWidgetArea, "pack")
    action = window.make_action("save_pack", "Save &Pack", "Ctrl+Alt+S",
                                "Save the pack's new and modified dungeons and its manifest", browser.save_pack)
    window.menu("File").addAction(action)
    browser.save_action = action
    browser._update_buttons()
    browser.close_guard = _CloseGuard(browser)
    window.installEventFilter(browser.close_guard)
    return browser
