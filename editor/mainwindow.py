"""The editor's main window: canvas, tool bar, menus and docks around the open dungeons.

The window holds the open :class:`editor.dungeon.document.DungeonDocument` objects (one content pack,
or single dungeon files) and shows the current one on the canvas. Features live in their own
modules, each with an ``install(window)`` function that adds its docks, connects handlers to
the actions declared in :mod:`editor.actions` and returns the feature's service object; the
window builds them in :meth:`MainWindow._install_features` and keeps each as a declared member
(``problems_panel``, ``inspector``, ``pack_browser``, ``files``, ``exporter``, ``generator``, ``playtest``).
What a feature asks the user goes through the window's *seams* (``ask_save_path``,
``ask_export_options``, ``ask_grid_size``, ``clipboard_text``...): methods that route to the
feature owning the dialog, which tests and scripts replace on the instance. The window itself
only wires documents, canvas, tools and the edit commands every editor has.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence, QUndoGroup
from PySide6.QtWidgets import (
    QDockWidget,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTabBar,
    QToolBar,
    QUndoView,
    QVBoxLayout,
    QWidget,
)

from editor import actions as action_specs
from editor.canvas.scene import DungeonScene
from editor.canvas.view import CanvasView
from editor.dungeon.document import DungeonDocument, load_document, manifest_refusal, open_dungeon_file
from editor.dungeon.edits import (
    DeleteObjects,
    EditError,
    RotateObjects,
    find,
    paste_copies,
    ref_of,
    renumber_duplicates,
    renumber_stones,
)
from editor.files import export as export_menu
from editor.files import manager as files
from editor.pack import browser as pack_browser
from editor.panels import generate_dialog, grid_dialogs, inspector
from editor.panels import problems as problems_panel
from editor.playtest import controller as playtest
from editor.settings import DEFAULT_GRID_STEP_MM, MAX_GRID_STEP_MM, MIN_GRID_STEP_MM, grid_step_setting, settings
from editor.tools.catalogue import CanvasContext, tool_specs
from inkcrawl.model import Area, Element, Entryway, Feature, Passage, Wall

if TYPE_CHECKING:
    from editor.files.export import ExportMenu
    from editor.files.manager import FileManager
    from editor.pack.browser import PackBrowser
    from editor.panels.generate_dialog import Generator
    from editor.panels.inspector import Inspector
    from editor.panels.problems import ProblemsPanel
    from editor.playtest.controller import PlaytestController
#: Clipboard format of copied objects (canonical JSON of the objects, with their family).
CLIPBOARD_MIME = "application/x-inkcrawl-objects+json"
_MENU_ORDER = ("File", "Edit", "View", "Tools", "Dungeon", "Playtest", "Window", "Help")
_OBJECT_CLASSES = {
    "areas": Area,
    "walls": Wall,
    "elements": Element,
    "passages": Passage,
    "entryways": Entryway,
    "features": Feature,
}


class MainWindow(QMainWindow):
    """The editor window. ``documents`` are the open dungeons, ``current`` the one on the
    canvas; ``ctx`` is what the tools work with; ``actions_by_id`` the declared commands.

    Signals: ``current_changed(document or None)`` when another dungeon is shown,
    ``documents_changed()`` when dungeons are opened, closed or reordered.
    """

    current_changed = Signal(object)
    documents_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("inkcrawl editor")
        self.resize(1400, 900)
        self.documents: list[DungeonDocument] = []
        self.current: DungeonDocument | None = None
        self.pack_path: Path | None = None
        self._pack_ruleset: tuple[Path, str | None] | None = None  # (manifest, the pack's ruleset)
        self._scenes: dict[int, DungeonScene] = {}
        self.undo_group = QUndoGroup(self)
        self._titled: set[int] = set()  # ids of documents whose title updates are connected
        self.ctx = CanvasContext(self.show_status)
        self.menus: dict[str, object] = {}
        self.actions_by_id: dict[str, QAction] = {}
        self.tool_actions: dict[str, QAction] = {}
        self.tool = None

        self.tabs = QTabBar()
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(False)
        self.tabs.currentChanged.connect(self._on_tab)
        self.tabs.tabCloseRequested.connect(lambda i: self.close_document(self.documents[i]))
        self.view = CanvasView(None)
        self.ctx.view = self.view
        centre = QWidget()
        layout = QVBoxLayout(centre)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.tabs)
        layout.addWidget(self.view)
        self.setCentralWidget(centre)
        self.empty_hint = QLabel("Open a dungeon or a content pack (Ctrl+O), or start a new dungeon (Ctrl+N).")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.tool_bar = QToolBar("Tools")
        self.tool_bar.setObjectName("tools")
        self.addToolBar(Qt.ToolBarArea.LeftToolBarArea, self.tool_bar)
        self.tool_group = QActionGroup(self)
        self.options_bar = QToolBar("Tool Options")
        self.options_bar.setObjectName("tool_options")
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.options_bar)
        self.zoom_label = QLabel("")
        self.cursor_label = QLabel("")
        self.statusBar().addPermanentWidget(self.cursor_label)
        self.statusBar().addPermanentWidget(self.zoom_label)
        self.view.zoom_changed.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f} %"))
        self.view.cursor_moved.connect(lambda p: self.cursor_label.setText(f"{p.x():.1f}, {p.y():.1f} mm"))

        self._make_actions()
        self._connect_core_actions()
        self.undo_view = QUndoView(self.undo_group)
        self.undo_view.setEmptyLabel("<opened>")
        self.add_dock(self.undo_view, "History", Qt.DockWidgetArea.RightDockWidgetArea, "history")
        self._install_features()
        self._default_layout()
        self._update_enabled()

    def _default_layout(self) -> None:
        """Arrange the docks: the canvas gets most of the window; Inspector on the right with
        History and Playtest as tabs below it; Pack on the left; Problems along the bottom."""
        docks = {dock.objectName(): dock for dock in self.findChildren(QDockWidget)}
        right = [docks[n] for n in ("inspector", "history", "playtest") if n in docks]
        if len(right) >= 2:
            self.splitDockWidget(right[0], right[1], Qt.Orientation.Vertical)
            for dock in right[2:]:
                self.tabifyDockWidget(right[1], dock)
            right[1].raise_()
            self.resizeDocks([right[0], right[1]], [560, 240], Qt.Orientation.Vertical)
        if right:
            self.resizeDocks([right[0]], [340], Qt.Orientation.Horizontal)
        if "pack" in docks:
            self.resizeDocks([docks["pack"]], [270], Qt.Orientation.Horizontal)
        if "problems" in docks:
            self.resizeDocks([docks["problems"]], [170], Qt.Orientation.Vertical)

    # construction ------------------------------------------------------------------------
    def _install_features(self) -> None:
        """Build the feature modules, in order (each ``install(window)`` returns its service),
        and keep each service as a member."""
        self.problems_panel: ProblemsPanel = problems_panel.install(self)
        self.inspector: Inspector = inspector.install(self)
        self.pack_browser: PackBrowser = pack_browser.install(self)
        self.files: FileManager = files.install(self)
        self.exporter: ExportMenu = export_menu.install(self)
        grid_dialogs.install(self)
        self.generator: Generator = generate_dialog.install(self)
        self.playtest: PlaytestController = playtest.install(self)

    # seams: what the features ask or tell the user (tests and scripts replace them) -------
    def ask_new_dungeon(self, rulesets: list):
        """Ask for the ruleset and title of a new dungeon (:meth:`FileManager.ask_new_dungeon`)."""
        return self.files.ask_new_dungeon(rulesets)

    def ask_open_path(self) -> Path | None:
        """Ask for a dungeon file or pack manifest to open (:meth:`FileManager.ask_open_path`)."""
        return self.files.ask_open_path()

    def ask_open_folder(self) -> Path | None:
        """Ask for a content pack folder to open (:meth:`FileManager.ask_open_folder`)."""
        return self.files.ask_open_folder()

    def ask_save_path(self, document: DungeonDocument) -> Path | None:
        """Ask where to save ``document`` (:meth:`FileManager.ask_save_path`)."""
        return self.files.ask_save_path(document)

    def ask_recover(self, entries: list):
        """Ask which autosaved dungeons to recover (:meth:`FileManager.ask_recover`)."""
        return self.files.ask_recover(entries)

    def ask_replace_read_only(self, path: Path, what: str = "this dungeon", elsewhere: str = "with Save As") -> bool:
        """Ask whether Save may replace a read-only file with ``what`` (:meth:`FileManager.ask_replace_read_only`)."""
        return self.files.ask_replace_read_only(path, what, elsewhere)

    def show_file_message(self, level: str, title: str, text: str) -> None:
        """Tell the user something about files (:meth:`FileManager.show_file_message`)."""
        self.files.show_file_message(level, title, text)

    def ask_export_options(self, kind: str, document, defaults):
        """The export dialog (:meth:`ExportMenu.ask_export_options`): options, or ``None``."""
        return self.exporter.ask_export_options(kind, document, defaults)

    def ask_export_path(self, kind: str, document, suggested: Path) -> Path | None:
        """Ask where to write an export (:meth:`ExportMenu.ask_export_path`)."""
        return self.exporter.ask_export_path(kind, document, suggested)

    def confirm_export_with_errors(self, errors: list[str]) -> bool:
        """Ask whether to export a dungeon with validation errors (:meth:`ExportMenu.confirm_export_with_errors`)."""
        return self.exporter.confirm_export_with_errors(errors)

    def show_export_message(self, level: str, title: str, text: str) -> None:
        """Tell the user how an export went (:meth:`ExportMenu.show_export_message`)."""
        self.exporter.show_export_message(level, title, text)

    def show_print_preview(self, printer, paint) -> None:
        """Show the print preview (:meth:`ExportMenu.show_print_preview`)."""
        self.exporter.show_print_preview(printer, paint)

    def ask_grid_size(self, dungeon, ruleset) -> tuple[int, int] | None:
        """Ask for a grid dungeon's size (:func:`editor.panels.grid_dialogs.ask_grid_size`):
        ``(columns, rows)`` or ``None``."""
        from editor.panels.grid_dialogs import ask_grid_size

        return ask_grid_size(self, dungeon, ruleset)

    def ask_renumber_duplicates(self, document: DungeonDocument, shared: list[str]) -> bool:
        """Ask whether to give the objects of ``document`` that share an id fresh ids (one undo
        step); objects that keep a shared id are still edited one by one (each has an editor
        key). Headless: no."""
        if self.headless:
            return False
        listed = ", ".join(shared[:8]) + (" ..." if len(shared) > 8 else "")
        answer = QMessageBox.question(
            self,
            "Duplicate ids",
            f"{document.display_name}: several objects share the id {listed} (C001).\n\n"
            "Give the later ones fresh ids? It is one step you can undo. If you keep them, each "
            "object is still selected, moved and deleted on its own, and saving writes them back as "
            "they are; validation reports the shared ids until they are renumbered.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        return answer == QMessageBox.StandardButton.Yes

    def offer_renumber(self, document: DungeonDocument) -> None:
        """When objects of ``document`` share an id, offer to renumber them
        (:meth:`ask_renumber_duplicates`); also Dungeon > Renumber Duplicate Ids."""
        edit = renumber_duplicates(document.dungeon)
        if edit is None:
            if document is self.current:
                self.show_status("Every object has its own id")
            return
        shared = sorted({old for _, _, old, _ in edit.changes})
        if self.ask_renumber_duplicates(document, shared):
            document.push(edit)
            self.show_status(f"Gave {len(edit.changes)} object(s) fresh ids")
        else:
            self.show_status(
                f"Objects sharing the id(s) {', '.join(shared)} kept them (C001): each is still edited on its own"
            )

    def clipboard_text(self, text: str) -> None:
        """Put ``text`` on the system clipboard."""
        QGuiApplication.clipboard().setText(text)

    def menu(self, name: str):
        """The menu ``name`` of the menu bar (made, in the standard order, on first use)."""
        if name not in self.menus:
            menu = self.menuBar().addMenu(f"&{name}")
            self.menus[name] = menu
            # keep the standard order: move the menu before the first later one already present
            later = (
                [self.menus[n] for n in _MENU_ORDER[_MENU_ORDER.index(name) + 1 :] if n in self.menus]
                if name in _MENU_ORDER
                else []
            )
            if later:
                self.menuBar().removeAction(menu.menuAction())
                self.menuBar().insertMenu(later[0].menuAction(), menu)
        return self.menus[name]

    def _make_actions(self) -> None:
        for name in _MENU_ORDER[:5]:
            self.menu(name)
        for item in action_specs.ACTIONS:
            action = QAction(item.text.replace("...", "\u2026"), self)
            keys = action_specs.key_sequences(item)
            action.setShortcuts(keys)
            shortcut = f" ({keys[0].toString(keys[0].SequenceFormat.NativeText)})" if keys else ""
            action.setToolTip(f"{item.tooltip}{shortcut}" if item.tooltip else item.text)
            action.setStatusTip(item.tooltip)
            action.setCheckable(item.checkable)
            action.setObjectName(item.id)
            self.actions_by_id[item.id] = action
            self.menu(item.menu).addAction(action)
        undo = self.undo_group.createUndoAction(self, "&Undo")
        redo = self.undo_group.createRedoAction(self, "&Redo")
        for stack_action, item_id in ((undo, "undo"), (redo, "redo")):
            mine = self.actions_by_id[item_id]
            stack_action.setShortcuts(mine.shortcuts())
            stack_action.setToolTip(mine.toolTip())
            stack_action.setObjectName(item_id)
            self.menu("Edit").insertAction(mine, stack_action)
            self.menu("Edit").removeAction(mine)
            self.actions_by_id[item_id] = stack_action

    def action(self, action_id: str) -> QAction:
        """The ``QAction`` of a declared command."""
        return self.actions_by_id[action_id]

    def make_action(self, action_id: str, text: str, shortcut: str, tip: str, handler) -> QAction:
        """A command a feature module adds (not placed in a menu yet): its shortcut, a tooltip
        that shows the shortcut, the status tip, and ``handler`` on trigger. Listed in
        ``actions_by_id`` like the declared ones."""
        action = QAction(text, self)
        action.setObjectName(action_id)
        action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(f"{tip} ({shortcut})")
        action.setStatusTip(tip)
        action.triggered.connect(lambda: handler())
        self.actions_by_id[action_id] = action
        return action

    def _connect_core_actions(self) -> None:
        a = self.actions_by_id
        a["quit"].triggered.connect(self.close)
        a["close"].triggered.connect(lambda: self.current and self.close_document(self.current))
        a["copy"].triggered.connect(lambda: self.copy_selection())
        a["cut"].triggered.connect(lambda: self.cut_selection())
        a["paste"].triggered.connect(lambda: self.paste())
        a["duplicate"].triggered.connect(lambda: self.duplicate_selection())
        a["delete"].triggered.connect(lambda: self.delete_selection())
        a["select_all"].triggered.connect(
            lambda: self.current and self.scene.select_refs(list(self.scene.items_by_ref))
        )
        a["rotate_cw"].triggered.connect(lambda: self.rotate_selection(90))
        a["rotate_ccw"].triggered.connect(lambda: self.rotate_selection(-90))
        a["rotate_step"].triggered.connect(lambda: self.rotate_selection(15))
        a["zoom_in"].triggered.connect(lambda: self.view.zoom_by(1.25))
        a["zoom_out"].triggered.connect(lambda: self.view.zoom_by(0.8))
        a["zoom_fit"].triggered.connect(self.view.zoom_to_fit)
        a["zoom_actual"].triggered.connect(lambda: self.view.set_zoom(1.0))
        stored = settings()
        self.ctx.grid_step_mm = grid_step_setting(stored.value("canvas/grid_step_mm", DEFAULT_GRID_STEP_MM))
        self.view.grid_step_mm = self.ctx.grid_step_mm
        a["show_grid"].setChecked(stored.value("canvas/show_grid", "false") == "true")
        self.view.show_grid = a["show_grid"].isChecked()
        a["show_grid"].toggled.connect(self._toggle_grid)
        a["snap"].setChecked(True)
        a["snap"].toggled.connect(lambda on: setattr(self.ctx, "snap_enabled", on))
        a["grid_step"].triggered.connect(self.ask_grid_step)
        a["validate"].triggered.connect(lambda: self.current and self.current.validate_now())
        a["renumber_stones"].triggered.connect(lambda: self.renumber_stones())
        a["renumber_ids"].triggered.connect(lambda: self.current and self.offer_renumber(self.current))

    def add_dock(
        self, widget: QWidget, title: str, area=Qt.DockWidgetArea.RightDockWidgetArea, name: str | None = None
    ) -> QDockWidget:
        """Put ``widget`` in a dock of the window (listed in the Window menu)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(name or title.lower())
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.menu("Window").addAction(dock.toggleViewAction())
        return dock

    # documents ---------------------------------------------------------------------------
    @property
    def scene(self) -> DungeonScene | None:
        """The scene of the current dungeon."""
        return self._scenes.get(id(self.current)) if self.current is not None else None

    def add_document(self, document: DungeonDocument, make_current: bool = True, index: int | None = None) -> None:
        """Show a document in the window (a tab; the pack browser lists it)."""
        document.setParent(self)
        position = len(self.documents) if index is None else index
        self.documents.insert(position, document)
        self.undo_group.addStack(document.undo_stack)
        self.tabs.blockSignals(True)
        self.tabs.insertTab(position, document.display_name)
        self.tabs.blockSignals(False)
        if id(document) not in self._titled:  # a document back from the pack's undo is connected already
            self._titled.add(id(document))
            document.undo_stack.cleanChanged.connect(lambda _clean, d=document: self._update_title(d))
            document.path_changed.connect(lambda d=document: self._update_title(d))
            document.changed.connect(lambda _refs, d=document: self._update_title(d) if "sheet" in _refs else None)
            document.changed.connect(
                lambda _refs, d=document: self._revalidate_pack(d) if "sheet" in _refs or "*" in _refs else None
            )
            document.destroyed.connect(lambda _obj=None, key=id(document): self._titled.discard(key))  # noqa: B008
        self.documents_changed.emit()
        if make_current or self.current is None:
            self.set_current(document)
        document.validate_now()

    def set_current(self, document: DungeonDocument | None) -> None:
        """Show ``document`` on the canvas."""
        if self.tool is not None:
            self.tool.cancel()
        self.current = document
        if document is None:
            self.view.setScene(None)
            self.ctx.document = self.ctx.scene = None
            self.undo_group.setActiveStack(None)
        else:
            scene = self._scenes.get(id(document))
            if scene is None:
                scene = DungeonScene(document, self)
                self._scenes[id(document)] = scene
            self.view.setScene(scene)
            self.ctx.document, self.ctx.scene = document, scene
            self.undo_group.setActiveStack(document.undo_stack)
            index = self.documents.index(document)
            if self.tabs.currentIndex() != index:
                self.tabs.blockSignals(True)
                self.tabs.setCurrentIndex(index)
                self.tabs.blockSignals(False)
            if not self._rebuild_tools(document.dungeon.family, document.ruleset) and self.tool is not None:
                self.set_tool(self.tool.spec.id)  # options follow the new dungeon's ruleset
            if not getattr(scene, "_fitted", False):
                self.view.zoom_to_fit()
                scene._fitted = True
        self._update_enabled()
        self._update_title(document)
        self.current_changed.emit(document)

    def _on_tab(self, index: int) -> None:
        if 0 <= index < len(self.documents):
            self.set_current(self.documents[index])

    def move_document(self, old: int, new: int) -> None:
        """Reorder the open dungeons (the pack browser's reorder)."""
        document = self.documents.pop(old)
        self.documents.insert(new, document)
        self.tabs.blockSignals(True)
        self.tabs.moveTab(old, new)
        self.tabs.blockSignals(False)
        self.documents_changed.emit()

    def close_document(self, document: DungeonDocument, ask: bool = True, keep: bool = False) -> bool:
        """Close a dungeon, asking to save unsaved changes; ``False`` if the user cancelled.
        With ``keep`` the document object is not deleted: the caller holds it (the pack's undo
        of a removal shows it again, unsaved edits and all, with :meth:`add_document`)."""
        if ask and not self.confirm_discard(document):
            return False
        index = self.documents.index(document)
        self.documents.remove(document)
        self.undo_group.removeStack(document.undo_stack)
        self.tabs.blockSignals(True)
        self.tabs.removeTab(index)
        self.tabs.blockSignals(False)
        scene = self._scenes.pop(id(document), None)
        if document is self.current:
            self.set_current(self.documents[min(index, len(self.documents) - 1)] if self.documents else None)
        if scene is not None:
            scene.deleteLater()
        self.documents_changed.emit()
        if not keep:
            document.deleteLater()
        return True

    def confirm_discard(self, document: DungeonDocument) -> bool:
        """Ask whether to save a modified dungeon: ``True`` to go on (saved or discarded)."""
        if not document.modified:
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f"Save the changes to {document.display_name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Cancel:
            return False
        if answer == QMessageBox.StandardButton.Save:
            return self.save_document(document)
        return True

    def save_document(self, document: DungeonDocument, ask_path: bool = False) -> bool:
        """Save a dungeon, asking for a file when it has none (:meth:`FileManager.save_document`:
        atomic, refusals explained); ``False`` if not saved. The close prompt's Save and the
        pack's Save Pack come here."""
        return self.files.save_document(document, ask_path)

    #: Without a user to answer (``--screenshot``, scripts), messages go to stderr instead of
    #: dialogs, so nothing waits for a click that never comes.
    headless = False

    def tell(self, level: str, title: str, text: str) -> None:
        """Show a message (``level``: info, warning or error) in a dialog, or on stderr when
        :attr:`headless`."""
        if self.headless:
            import sys

            print(f"inkcrawl edit: {level}: {title}: {text}", file=sys.stderr)
            return
        box = {"info": QMessageBox.information, "warning": QMessageBox.warning}.get(level, QMessageBox.critical)
        box(self, title, text)

    def open_path(self, path: str | Path) -> bool:
        """Open a dungeon file, a pack folder or a pack manifest. Shows the reason and returns
        ``False`` when nothing could be opened."""
        from inkcrawl.validate import MANIFEST_NAME, RulesetRegistry, enclosing_pack

        path = Path(path)
        manifest = path / MANIFEST_NAME if path.is_dir() else path
        if manifest.name == MANIFEST_NAME and manifest.is_file():
            refusal = manifest_refusal(manifest)
            if refusal:
                self.tell("warning", "Cannot open", f"{path} cannot be opened:\n\n{refusal}")
                return False
            openable, notes = self._pack_members(manifest)
            if not openable:
                self.tell("warning", "Cannot open", f"{path} cannot be opened:\n\n" + "\n\n".join(notes))
                return False
            self.pack_path = manifest
            rulesets, _ = enclosing_pack(Path(openable[0].file))
            registry = RulesetRegistry(rulesets)
            for opened in openable:
                if any(d.path is not None and d.path.resolve() == Path(opened.file).resolve() for d in self.documents):
                    continue
                document = DungeonDocument(
                    opened.dungeon, opened.ruleset, Path(opened.file), registry, opened.deck, self
                )
                self.read_file_problems(document)
                document.context_problems = lambda d=document: self.pack_problems(d)
                self.add_document(document, make_current=opened is openable[0])
                self.offer_renumber(document)
            self.documents_changed.emit()
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)
            if notes:
                self.tell("warning", "Opened with problems", f"{path}:\n\n" + "\n\n".join(notes))
            return True
        for document in self.documents:
            if document.path is not None and document.path.resolve() == path.resolve():
                self.set_current(document)
                return True
        document, reason = load_document(path, self)
        if document is None:
            self.tell("warning", "Cannot open", f"{path} cannot be opened:\n\n{reason}")
            return False
        self.read_file_problems(document)
        self.add_document(document)
        self.offer_renumber(document)
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)
        if document.open_warning:
            self.tell("warning", "Opened with a warning", document.open_warning)
        return True

    @staticmethod
    def read_file_problems(document: DungeonDocument) -> None:
        """Keep what ``inkcrawl validate`` reports on the document's file as it is on disk (the
        Problems panel lists it with the model's own problems until the file is saved)."""
        from inkcrawl.validate import validate_paths

        if document.path is not None:
            document.file_problems = list(validate_paths([document.path]).problems)

    def pack_problems(self, document: DungeonDocument) -> list:
        """What ``inkcrawl validate`` says of ``document`` among the dungeons of the open pack,
        from their models as they are now: P004 (its id is also used by an earlier dungeon) and
        P003 (its ruleset is not the pack's)."""
        from inkcrawl.problems import problem
        from inkcrawl.validate import load_document as load_json

        if self.pack_path is None or document not in self.documents:
            return []
        found = []
        if self._pack_ruleset is None or self._pack_ruleset[0] != self.pack_path:
            data = load_json(self.pack_path).data
            self._pack_ruleset = (self.pack_path, data.get("ruleset") if isinstance(data, dict) else None)
        ruleset = self._pack_ruleset[1]
        if ruleset is not None and document.dungeon.ruleset != ruleset:
            found.append(
                problem(
                    "P003",
                    f"dungeon '{document.dungeon.id}' uses ruleset '{document.dungeon.ruleset}' "
                    f"but the pack uses '{ruleset}'",
                    document.file_label,
                    "/ruleset",
                )
            )
        for other in self.documents:
            if other is document:
                break
            if other.dungeon.id == document.dungeon.id and other.context_problems is not list:
                found.append(
                    problem(
                        "P004",
                        f"dungeon id '{document.dungeon.id}' is also used by {other.file_label}",
                        document.file_label,
                        "/id",
                    )
                )
                break
        return found

    def _revalidate_pack(self, changed: DungeonDocument) -> None:
        """A dungeon id or ruleset changed: the pack's other dungeons check theirs again."""
        for other in self.documents:
            if other is not changed and other.context_problems is not list:
                other.schedule_validation()

    @staticmethod
    def _pack_members(manifest: Path) -> tuple[list, list[str]]:
        """The dungeons of a pack (its manifest already checked) that the editor can open, in
        the pack's order, and a note for each one it cannot (outside the folder, missing,
        unreadable, values it cannot show) or that holds members saving would drop."""
        from inkcrawl.validate import load_document as load_json
        from inkcrawl.validate import path_inside_pack

        data = load_json(manifest).data
        openable, notes = [], []
        for relative in data.get("dungeons", []) if isinstance(data, dict) else []:
            target = path_inside_pack(manifest.parent, relative)
            if target is None:
                notes.append(
                    f"{relative} is not opened: it lies outside the pack folder (a pack may only name files inside it)"
                )
                continue
            if not target.is_file():
                notes.append(f"{relative} is not opened: there is no such file in the pack folder")
                continue
            opened, refusal, warning = open_dungeon_file(target)
            if opened is None:
                notes.append(f"{relative} is not opened: {refusal}")
                continue
            openable.append(opened)
            if warning:
                notes.append(warning)
        return openable, notes

    def _update_title(self, document: DungeonDocument | None) -> None:
        if not shiboken6.isValid(self) or (document is not None and not shiboken6.isValid(document.undo_stack)):
            return  # signals sent while Qt tears the window down
        if document is not None and document in self.documents:
            index = self.documents.index(document)
            self.tabs.setTabText(index, document.display_name + (" *" if document.modified else ""))
        current = self.current
        if current is None:
            self.setWindowTitle("inkcrawl editor")
        else:
            self.setWindowTitle(f"{current.display_name}[*] \u2014 inkcrawl editor")
            self.setWindowModified(current.modified)

    def _update_enabled(self) -> None:
        has = self.current is not None
        for action_id in (
            "save",
            "save_as",
            "close",
            "cut",
            "copy",
            "paste",
            "duplicate",
            "delete",
            "select_all",
            "rotate_cw",
            "rotate_ccw",
            "rotate_step",
            "zoom_in",
            "zoom_out",
            "zoom_fit",
            "zoom_actual",
            "validate",
            "renumber_stones",
            "renumber_ids",
            "resize_grid",
            "populate",
        ):
            self.actions_by_id[action_id].setEnabled(has)
        if has:
            family = self.current.dungeon.family
            self.actions_by_id["renumber_stones"].setEnabled(family == "line")
            self.actions_by_id["resize_grid"].setEnabled(family == "grid")
            self.actions_by_id["populate"].setEnabled(family == "line")
            for action_id in ("rotate_cw", "rotate_ccw", "rotate_step"):
                self.actions_by_id[action_id].setEnabled(family == "line")

    # tools -------------------------------------------------------------------------------
    def _rebuild_tools(self, family: str, ruleset=None) -> bool:
        """Make the tool bar and Tools menu of a family and ruleset (one placement tool per
        element kind it defines); ``False`` when they already are."""
        key = (family, ruleset.id if ruleset is not None and ruleset.family == family else None)
        if getattr(self, "_tools_family", None) == key:
            return False
        self._tools_family = key
        self.tool_bar.clear()
        tools_menu = self.menu("Tools")
        tools_menu.clear()
        for action in self.tool_group.actions():
            self.tool_group.removeAction(action)
        self.tool_actions = {}
        self._tool_specs = {spec.id: spec for spec in tool_specs(family, ruleset)}
        for spec in self._tool_specs.values():
            action = QAction(spec.name, self)
            action.setObjectName(f"tool_{spec.id}")
            action.setCheckable(True)
            action.setShortcut(spec.key)
            action.setToolTip(f"{spec.tooltip} ({spec.key})")
            action.setStatusTip(spec.tooltip)
            action.triggered.connect(lambda _=False, s=spec.id: self.set_tool(s))
            self.tool_group.addAction(action)
            self.tool_bar.addAction(action)
            tools_menu.addAction(action)
            self.tool_actions[spec.id] = action
        self.set_tool("select")
        return True

    def set_tool(self, tool_id: str) -> None:
        """Make tool ``tool_id`` of the current family the active one."""
        spec = self._tool_specs[tool_id]
        if self.tool is not None:
            self.tool.deactivate()
        self.tool = spec.factory(self.ctx)
        self.tool.spec = spec
        self.view.tool = self.tool
        self.tool.activate()
        self.options_bar.clear()
        options = getattr(self.tool, "options_widget", lambda: None)()
        if options is not None:
            self.options_bar.addWidget(options)
        self.tool_actions[tool_id].setChecked(True)
        self.show_status(spec.tooltip)

    # edit commands -----------------------------------------------------------------------
    def show_status(self, text: str, ms: int = 6000) -> None:
        """Show a message in the status bar."""
        self.statusBar().showMessage(text, ms)

    def selected_objects(self) -> list:
        """The selected model objects of the current dungeon, in file order."""
        if self.current is None:
            return []
        return [find(self.current.dungeon, ref)[2] for ref in self.scene.selected_refs()]

    def copy_selection(self) -> None:
        """Copy the selection to the clipboard (inkcrawl's own format plus JSON text)."""
        chosen = self.selected_objects()
        if not chosen:
            return
        self.ctx.clipboard = [(type(o).__name__, o.to_dict()) for o in chosen]
        payload = json.dumps(
            {"family": self.current.dungeon.family, "objects": [{"class": c, "data": d} for c, d in self.ctx.clipboard]}
        )
        mime = QMimeData()
        mime.setData(CLIPBOARD_MIME, payload.encode("utf-8"))
        mime.setText(payload)
        QGuiApplication.clipboard().setMimeData(mime)
        self.show_status(f"Copied {len(chosen)} object(s)")

    def cut_selection(self) -> None:
        """Copy the selection, then delete it (one undo step for the delete)."""
        self.copy_selection()
        self.delete_selection(text="Cut")

    def _clipboard_objects(self) -> list:
        mime = QGuiApplication.clipboard().mimeData()
        items = self.ctx.clipboard
        if mime is not None and mime.hasFormat(CLIPBOARD_MIME):
            try:
                data = json.loads(bytes(mime.data(CLIPBOARD_MIME)).decode("utf-8"))
                items = [(o["class"], o["data"]) for o in data["objects"]]
            except (ValueError, KeyError, TypeError):
                pass
        classes = {cls.__name__: cls for cls in _OBJECT_CLASSES.values()}
        out = []
        for name, data in items:
            cls = classes.get(name)
            if cls is None:
                continue
            try:
                out.append(cls.from_dict(data))
            except (KeyError, TypeError, ValueError, IndexError):
                continue
        return out

    def paste(self, offset_mm: float = 5.0) -> None:
        """Paste copied objects with fresh ids (5 mm down-right of the originals on the line
        family; on the same rooms on the grid family)."""
        if self.current is None:
            return
        clipboard = self._clipboard_objects()
        if not clipboard:
            self.show_status("Nothing to paste")
            return
        grid = self.current.dungeon.family == "grid"
        try:
            edit = paste_copies(self.current.dungeon, clipboard, 0 if grid else offset_mm, 0 if grid else offset_mm)
        except EditError as exc:
            self.show_status(str(exc))
            return
        self.current.push(edit)
        self.scene.select_refs([ref_of(obj) for _, _, obj in edit.items])

    def duplicate_selection(self) -> None:
        """Duplicate the selection next to itself (one undo step)."""
        chosen = self.selected_objects()
        if not chosen or self.current is None:
            return
        grid = self.current.dungeon.family == "grid"
        try:
            edit = paste_copies(self.current.dungeon, chosen, 0 if grid else 5, 0 if grid else 5, "Duplicate")
        except EditError as exc:
            self.show_status(str(exc))
            return
        self.current.push(edit)
        self.scene.select_refs([ref_of(obj) for _, _, obj in edit.items])

    def delete_selection(self, text: str = "Delete") -> None:
        """Delete the selected objects (one undo step)."""
        if self.current is None:
            return
        refs = self.scene.selected_refs()
        if refs:
            # found as the inspector found the selection: no second walk over a big dungeon
            located = self.current.locate(refs)[0]
            self.current.push(DeleteObjects(self.current.dungeon, refs, text, located))

    def rotate_selection(self, angle_deg: float) -> None:
        """Turn the selected line objects by ``angle_deg`` clockwise about their centre (one
        undo step); grid objects keep their orientation (a message says so)."""
        if self.current is None:
            return
        refs = self.scene.selected_refs()
        if not refs:
            self.show_status("Select something to rotate")
            return
        try:
            self.current.push(RotateObjects(self.current.dungeon, refs, angle_deg))
        except EditError as exc:
            self.show_status(str(exc))

    def renumber_stones(self) -> None:
        """Renumber the artifact stones in reading order (one undo step)."""
        if self.current is None or self.current.dungeon.family != "line":
            return
        edit = renumber_stones(self.current.dungeon)
        if edit is None:
            self.show_status("The artifact stones are already numbered in reading order")
        else:
            self.current.push(edit)

    def select_refs(self, refs, zoom: bool = False) -> None:
        """Select objects by reference; with ``zoom``, centre and zoom the canvas on them."""
        if self.scene is None:
            return
        self.scene.select_refs(refs)
        if zoom:
            items = [self.scene.items_by_ref[r] for r in refs if r in self.scene.items_by_ref]
            if items:
                rect = items[0].sceneBoundingRect()
                for item in items[1:]:
                    rect = rect.united(item.sceneBoundingRect())
                self.view.zoom_to_rect(rect)

    def ask_grid_step(self) -> None:
        """Ask for the snapping grid step (mm) and keep it in the settings."""
        value, ok = QInputDialog.getDouble(
            self, "Grid step", "Snapping grid step (mm):", self.ctx.grid_step_mm, MIN_GRID_STEP_MM, MAX_GRID_STEP_MM, 1
        )
        if ok:
            self.set_grid_step(value)

    def set_grid_step(self, value: float) -> None:
        """Set the snapping grid step in mm (kept in the settings); a value outside
        0.5-100 mm gives the default."""
        value = grid_step_setting(value)
        self.ctx.grid_step_mm = self.view.grid_step_mm = value
        settings().setValue("canvas/grid_step_mm", float(value))
        self.view.viewport().update()

    def _toggle_grid(self, on: bool) -> None:
        self.view.show_grid = on
        settings().setValue("canvas/show_grid", "true" if on else "false")
        self.view.viewport().update()

    def showEvent(self, event) -> None:
        """The canvas takes the keyboard when the window first shows, so Space+drag pans (and
        tool keys work) from the first moment, without a click on the canvas first."""
        super().showEvent(event)
        if not getattr(self, "_shown_once", False):
            self._shown_once = True
            self.view.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    # closing -----------------------------------------------------------------------------
    def closeEvent(self, event) -> None:
        for document in list(self.documents):
            if not self.confirm_discard(document):
                event.ignore()
                return
        self.about_to_close()
        event.accept()

    def about_to_close(self) -> None:
        """Run once the user agreed to close: keeps the window layout in the settings and tells
        the file manager the window closed cleanly (its autosaves are no longer needed)."""
        stored = settings()
        stored.setValue("window/geometry", self.saveGeometry())
        stored.setValue("window/state", self.saveState())
        self.files.closed_cleanly()
