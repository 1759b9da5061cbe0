"""Playtest: play the current dungeon in the editor with the rules engines (issue #5, "Playtest").

``install(window)`` adds a Playtest menu with Start Playtest (F5; F5 again stops) and a
"Playtest" dock. Starting compiles the game data from a snapshot of the current dungeon
(:meth:`editor.dungeon.document.DungeonDocument.snapshot`, :mod:`inkcrawl.gamedata`), exactly what
``inkcrawl export game`` would write, and hands it to the engine of the family:

* line family (:mod:`editor.playtest.line`): draw a path with the mouse, pick a character, and
  read the referee's breakdown section by section as you draw;
* grid family (:mod:`editor.playtest.grid`): play rounds with a seeded deck, click rooms to
  draw the revealed segments and traps, watch tallies and the score.

While playtesting the canvas runs a playtest tool instead of an editing tool, so the dungeon is
never edited; the playtest stops when another dungeon becomes current, when the dungeon changes
(an undo from the menu, the inspector...), or when another tool is chosen. A dungeon the
engines cannot play shows the reason in the dock (the engine's message and the validation
errors) instead of starting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

#: The shortcut of Start Playtest (and of stopping it).
SHORTCUT = "F5"
#: Keys the playtest tools use that window shortcuts must not take while playtesting.
_TOOL_KEYS = (Qt.Key.Key_Escape, Qt.Key.Key_R)


class Unplayable(Exception):
    """The dungeon cannot be played: ``reason`` says why (engine message, validation errors)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Compiled:
    """The game data of a dungeon snapshot and its engine rules: ``entry`` (one dungeon of a
    game document), ``rules`` (:class:`~inkcrawl.engines.line.LineRules` or
    :class:`~inkcrawl.engines.grid.GridRules`) and ``errors`` (validation errors that did not
    stop the engine, shown as a warning)."""

    family: str
    entry: dict
    rules: object
    errors: list[str] = field(default_factory=list)


def compile_document(document) -> Compiled:
    """Compile the current state of ``document`` for the engines, from a snapshot of its model.
    Never changes the document. Raises :class:`Unplayable` with the reason when the engines
    refuse the dungeon (the validation errors are quoted too)."""
    from inkcrawl.engines import grid as grid_engine
    from inkcrawl.engines import line as line_engine
    from inkcrawl.gamedata import game_entry_problems, grid_game_data, line_game_data
    from inkcrawl.validate import check_dungeon_data

    dungeon = document.snapshot()
    errors: list[str] = []
    try:
        problems, _ = check_dungeon_data(dungeon.to_dict(), document.file_label, document.registry, document.deck)
        errors = [f"{p.code} {p.message}" for p in problems if p.severity.value == "error"]
    except Exception as exc:
        errors = [f"validation failed: {type(exc).__name__}: {exc}"]
    family = dungeon.family

    def refuse(message: str) -> Unplayable:
        listed = "\n".join(f"\u2022 {e}" for e in errors[:12])
        more = f"\n\u2026 and {len(errors) - 12} more" if len(errors) > 12 else ""
        details = f"\n\nValidation errors:\n{listed}{more}" if errors else ""
        return Unplayable(f"This dungeon cannot be playtested: {message}{details}")

    try:
        if family == "line":
            entry = line_game_data(dungeon, document.ruleset)
            inconsistent = game_entry_problems(entry)
            if inconsistent:
                raise refuse("; ".join(inconsistent))
            rules = line_engine.LineRules(entry)
        elif family == "grid":
            entry = grid_game_data(dungeon, document.ruleset, document.deck)
            rules = grid_engine.GridRules(entry)
        else:
            raise refuse(f"no engine plays the {family!r} family")
    except Unplayable:
        raise
    except (line_engine.GameDataError, grid_engine.GameDataError) as exc:
        raise refuse(str(exc)) from None
    except Exception as exc:
        raise refuse(f"its game data could not be built ({type(exc).__name__}: {exc})") from None
    return Compiled(family, entry, rules, errors)


class _KeyGuard(QObject):
    """Lets the playtest tool have Escape and R before window shortcuts take them."""

    def eventFilter(self, watched, event) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and event.key() in _TOOL_KEYS
            and event.modifiers() in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier)
        ):
            event.accept()
            return True
        return False


class PlaytestController(QObject):
    """The playtest of a window: the Start Playtest action, the dock and the running session.

    ``active`` is the running panel (:class:`editor.playtest.line.LinePanel` or
    :class:`editor.playtest.grid.GridPanel`) or ``None``; ``tool`` the canvas tool while
    playing; ``document`` the dungeon being played. ``ask_play_path(suggested)`` asks where to
    save a play file (tests replace it).
    """

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.active = None
        self.tool = None
        self.document = None
        self.compiled: Compiled | None = None
        self._stopping = False
        self._guard = _KeyGuard(self)

        self.action = QAction("Start &Playtest", window)
        self.action.setObjectName("playtest")
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setCheckable(True)
        self.action.setToolTip(f"Play the current dungeon with the rules engine (canvas edits pause) ({SHORTCUT})")
        self.action.setStatusTip("Play the current dungeon with the rules engine")
        self.action.triggered.connect(self.toggle)
        window.menu("Playtest").addAction(self.action)
        self.clear_action = QAction("&Clear Path / New Game", window)
        self.clear_action.setObjectName("playtest_restart")
        self.clear_action.setToolTip("Line: clear the drawn path (Esc on the canvas); grid: deal a new game")
        self.clear_action.triggered.connect(self.restart)
        window.menu("Playtest").addAction(self.clear_action)

        self.widget = QWidget()
        self.widget.setObjectName("playtest_panel")
        layout = QVBoxLayout(self.widget)
        layout.setContentsMargins(4, 4, 4, 4)
        self.header = QLabel()
        self.header.setObjectName("playtest_header")
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.warning = QLabel()
        self.warning.setObjectName("playtest_warning")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #b26a00")
        layout.addWidget(self.warning)
        self.start_button = QPushButton()
        self.start_button.setObjectName("playtest_start")
        self.start_button.clicked.connect(self.toggle)
        layout.addWidget(self.start_button)
        self.stack = QStackedWidget()
        self.reason = QLabel()
        self.reason.setObjectName("playtest_reason")
        self.reason.setWordWrap(True)
        self.reason.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stack.addWidget(self.reason)
        layout.addWidget(self.stack, 1)
        # a scroll area: on a short screen the dock scrolls instead of squeezing its rows over each
        # other (or stretching the window past the screen)
        self.scroll = scroll = QScrollArea()
        scroll.setObjectName("playtest_scroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.widget)
        self.dock = window.add_dock(scroll, "Playtest", Qt.DockWidgetArea.RightDockWidgetArea, "playtest")

        window.current_changed.connect(self._current_changed)
        window.tool_group.triggered.connect(lambda _action: self.stop("another tool was chosen"))
        self._show_idle()

    # .. seams ..
    def ask_play_path(self, suggested: str) -> str:
        """Ask where to save a play file, offering the file name ``suggested`` in the folder
        File > Save starts in for the dungeon played (its file's folder; for a new dungeon the
        open pack's, see :meth:`editor.files.manager.FileManager.save_start`), not the folder
        the editor was started from; ``""`` when cancelled."""
        start = Path(suggested)
        if self.document is not None and not start.is_absolute():
            start = self.window.files.save_start(self.document).parent / start
        chosen, _ = QFileDialog.getSaveFileName(self.window, "Save play file", str(start), "Play files (*.json)")
        return chosen

    def write_file(self, path: Path, what: str, write: Callable[[Path, bool], None]) -> str:
        """Write ``what`` (e.g. "the play file") to ``path`` as File > Save writes a dungeon:
        ``write(path, force)`` writes it atomically (:mod:`inkcrawl.jsonio`: a symlink is
        written through to the file it points to, so it stays a link); a read-only file is
        replaced only when the user says so in Save's dialog (``window.ask_replace_read_only``),
        and stays read-only. Returns the sentence to show: what was saved, or why nothing was
        written (the file on disk is then unchanged)."""
        from inkcrawl.jsonio import WriteRefused

        try:
            try:
                write(path, False)
            except WriteRefused as refused:
                if refused.reason != "read-only":
                    raise
                if not self.window.ask_replace_read_only(path, what, "under another name"):
                    return f"Not saved: {path} is read-only and was left as it is"
                write(path, True)
        except OSError as exc:
            return f"{what[:1].upper()}{what[1:]} could not be written: {exc.strerror or exc}"
        return f"Saved {what} {path}"

    def status(self, text: str) -> None:
        """Show a message in the window's status bar."""
        self.window.show_status(text)

    def repaint(self) -> None:
        """Redraw the canvas overlay."""
        self.window.view.viewport().update()

    # .. starting and stopping ..
    @property
    def playing(self) -> bool:
        """Whether a playtest runs."""
        return self.active is not None

    def _claim_height(self) -> None:
        """Give the dock the height its panel needs, up to 70 % of the screen; beyond that it
        scrolls (its rows never squeeze over each other)."""
        screen = self.window.screen()
        available = screen.availableGeometry().height() if screen is not None else 800
        needed = self.widget.sizeHint().height()
        self.scroll.setMinimumHeight(0)
        # what the rest of the window needs (menus, bars, the docks above it) plus its frame
        others = self.window.minimumSizeHint().height() + 40
        room = max(0, available - others)
        self.scroll.setMinimumHeight(max(0, min(needed, int(available * 0.7), room)))
        if self.window.height() > available and not self.window.isMaximized():
            self.window.resize(self.window.width(), max(available - 40, self.window.minimumSizeHint().height()))

    def _release_height(self) -> None:
        """The playtest ended: the dock claims no height any more (the window may shrink)."""
        self.scroll.setMinimumHeight(0)

    def toggle(self) -> None:
        """Start a playtest, or stop the running one."""
        if self.playing:
            self.stop()
        else:
            self.start()

    def start(self) -> bool:
        """Start playtesting the current dungeon; ``False`` (with the reason in the dock) when
        it cannot be played."""
        from editor.playtest.grid import GridPanel, GridPlaytestTool
        from editor.playtest.line import LinePanel, LinePlaytestTool, LineSession

        window = self.window
        document = window.current
        if self.playing:
            self.stop()
        if document is None:
            self._show_idle("Open a dungeon to playtest it.")
            return False
        self.dock.show()
        self.dock.raise_()
        try:
            compiled = compile_document(document)
        except Unplayable as exc:
            self._show_idle()
            self.reason.setText(exc.reason)
            self.stack.setCurrentWidget(self.reason)
            self.status("This dungeon cannot be playtested: see the Playtest panel")
            return False
        self.compiled = compiled
        self.document = document
        if compiled.family == "line":
            panel = LinePanel(LineSession(compiled.rules), self)
            tool = LinePlaytestTool(window.ctx, panel)
            hint = "Drag from a Start to draw the path; Esc clears it"
        else:
            panel = GridPanel(compiled.rules, self)
            tool = GridPlaytestTool(window.ctx, panel)
            hint = "Click a room to draw the selected card; R, the wheel or a right-click turns it"
        self.active, self.tool = panel, tool
        self.stack.addWidget(panel)
        self.stack.setCurrentWidget(panel)
        self._claim_height()
        if window.scene is not None:
            window.scene.clearSelection()
        if window.tool is not None:
            window.tool.cancel()
        window.view.tool = tool
        tool.activate()
        window.options_bar.clear()
        window.options_bar.addWidget(QLabel(f"  Playtesting {document.display_name}: {hint}. {SHORTCUT} stops.  "))
        for watched in (window.view, window.view.viewport()):
            watched.installEventFilter(self._guard)
        document.changed.connect(self._document_changed)
        self.warning.setText(
            f"The dungeon has {len(compiled.errors)} validation error(s); the playtest may differ from the "
            "printed game."
            if compiled.errors
            else ""
        )
        self.header.setText(
            f"Playtesting <b>{_escape(compiled.entry.get('title') or document.display_name)}</b> "
            f"({compiled.family} family, ruleset {document.ruleset.id}). The dungeon is not edited."
        )
        self.action.setChecked(True)
        self.action.setText("Stop &Playtest")
        self.clear_action.setEnabled(True)
        self.start_button.setText(f"Stop Playtest ({SHORTCUT})")
        self.status(hint)
        self.repaint()
        return True

    def stop(self, why: str | None = None) -> None:
        """Stop the running playtest and give the canvas back to the Select tool."""
        if not self.playing or self._stopping:
            return
        self._stopping = True
        try:
            window = self.window
            tool, panel, document = self.tool, self.active, self.document
            self.active = self.tool = self.document = None
            try:
                document.changed.disconnect(self._document_changed)
            except (RuntimeError, TypeError):
                pass
            for watched in (window.view, window.view.viewport()):
                watched.removeEventFilter(self._guard)
            tool.deactivate()
            if window.view.tool is tool:
                window.view.tool = None
                if "select" in window.tool_actions:  # the window's tools (one action each)
                    window.set_tool("select")
            self.stack.removeWidget(panel)
            panel.deleteLater()
            self._release_height()
            self._show_idle()
            if why:
                self.reason.setText(f"The playtest stopped: {why}.")
                self.status(f"Playtest stopped: {why}")
            self.repaint()
        finally:
            self._stopping = False

    def restart(self) -> None:
        """Clear the path (line) or deal a new game (grid)."""
        if self.active is None:
            return
        if hasattr(self.active, "clear"):
            self.active.clear()
        else:
            self.active.new_game()

    def _show_idle(self, text: str | None = None) -> None:
        self.action.setChecked(False)
        self.action.setText("Start &Playtest")
        self.action.setEnabled(self.window.current is not None)
        self.clear_action.setEnabled(False)
        self.start_button.setText(f"Start Playtest ({SHORTCUT})")
        self.start_button.setEnabled(self.window.current is not None)
        self.header.setText(
            "Play the current dungeon by the rules: line dungeons with a drawn path and the "
            "referee's breakdown, grid dungeons with a seeded deck."
        )
        self.warning.setText("")
        self.reason.setText(text or "")
        self.stack.setCurrentWidget(self.reason)

    def _current_changed(self, document) -> None:
        if self.playing and document is not self.document:
            self.stop("another dungeon is shown")
        if not self.playing:
            self.action.setEnabled(document is not None)
            self.start_button.setEnabled(document is not None)
        self.clear_action.setEnabled(self.playing)

    def _document_changed(self, _refs) -> None:
        self.stop("the dungeon changed; start again to play the new version")


def _escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def install(window) -> PlaytestController:
    """Add the Playtest menu, its F5 action and the Playtest dock to ``window``; the controller
    is ``window.playtest``."""
    return PlaytestController(window)
