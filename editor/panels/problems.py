"""The Problems panel: every check of ``inkcrawl validate``, re-run as you edit, with quick-fixes.

The document validates itself a moment after each edit (debounced, see
:attr:`editor.dungeon.document.DungeonDocument.VALIDATION_DELAY_MS`); this panel lists the result.
Clicking a problem selects the object it names and zooms the canvas to it. Where the fix is
obvious, :func:`quick_fix` offers one edit (one undo step) that removes the problem:

========  ==========================================================================
L014      renumber the artifact stones 1, 2, 3... in reading order
L012      add a portal exit of the entry's channel next to it (then move it where it belongs)
L016      remove the repeated end trigger
L023      list exactly the components the dungeon uses (orbs, keys, timer)
L025      remove the token values of an orb colour no orb has
G008      close the edge: turn the passage on the outer edge back into a wall
G015      remove the second listing of a passage
========  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from editor.dungeon.document import DungeonDocument, LocatedProblem
from editor.dungeon.edits import AddObjects, ChangeSheet, DeleteObjects, Edit, find, new_id, renumber_stones
from inkcrawl.model import Element

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_SEVERITY_COLOUR = {"error": "#c62828", "warning": "#ef8f00", "info": "#1565c0"}


@dataclass
class QuickFix:
    """A fix offered for a problem: its menu ``label`` and ``make()`` building the edit (or
    ``None`` when the problem is gone by the time it is applied)."""

    label: str
    make: Callable[[], Edit | None]


def _index_of(pointer: str, collection: str) -> int | None:
    parts = pointer.split("/")
    if len(parts) >= 3 and parts[1] == collection:
        try:
            return int(parts[2])
        except ValueError:
            return None
    return None


def _portal_exit_for(document: DungeonDocument, entry: Element) -> Edit | None:
    dungeon = document.dungeon
    size = entry.size_mm or 8.0
    x, y = entry.at if entry.at is not None else (0.0, 0.0)
    portal_exit = Element(
        new_id(dungeon, "portal-exit"),
        "portal_exit",
        at=(round(x + 2 * size, 3), round(y, 3)),
        size_mm=size,
        rotation_deg=0,
        channel=entry.channel,
    )
    return AddObjects([("elements", None, portal_exit)], f"Add portal exit {entry.channel}")


def quick_fix(document: DungeonDocument, located: LocatedProblem) -> QuickFix | None:
    """The obvious fix of a problem, or ``None`` when there is none (see the module's table)."""
    problem = located.problem
    code, pointer = problem.code, problem.pointer
    if code == "L014":
        return QuickFix("Renumber the artifact stones in reading order", lambda: renumber_stones(document.dungeon))
    if code == "L012" and located.ref:
        ref = located.ref

        def add_exit() -> Edit | None:
            try:
                entry = find(document.dungeon, ref)[2]
            except ValueError:
                return None
            return _portal_exit_for(document, entry)

        return QuickFix("Add a portal exit of this channel next to the entry", add_exit)
    if code == "L016":
        index = _index_of(pointer.replace("/sheet/end_triggers", "/end_triggers"), "end_triggers")
        if index is None:
            return None

        def drop_trigger() -> Edit | None:
            triggers = list(document.dungeon.sheet.end_triggers or [])
            if index >= len(triggers):
                return None
            del triggers[index]
            return ChangeSheet(document.dungeon, "end_triggers", triggers, "Remove repeated end trigger")

        return QuickFix("Remove the repeated end trigger", drop_trigger)
    if code == "L023":
        from inkcrawl.checks.line import components_used

        def set_components() -> Edit | None:
            used = components_used(document.dungeon)
            listed = [c for c in document.dungeon.sheet.components or [] if c in used]
            wanted = listed + sorted(used - set(listed))
            return ChangeSheet(document.dungeon, "components", wanted, "List the components the dungeon uses")

        return QuickFix("List exactly the components the dungeon uses", set_components)
    if code == "L025" and pointer.startswith("/sheet/orb_tokens/"):
        colour = pointer.rsplit("/", 1)[1]

        def drop_tokens() -> Edit | None:
            tokens = dict(document.dungeon.sheet.orb_tokens or {})
            if colour not in tokens:
                return None
            del tokens[colour]
            return ChangeSheet(document.dungeon, "orb_tokens", tokens, f"Remove {colour} orb tokens")

        return QuickFix(f"Remove the token values of {colour} orbs", drop_tokens)
    if code in ("G008", "G015") and located.ref:
        ref = located.ref
        index = _index_of(pointer, "passages")
        label = "Close the edge (make it a wall)" if code == "G008" else "Remove the repeated passage"

        def drop_passage() -> Edit | None:
            if index is None or index >= len(document.dungeon.passages):
                return None
            return DeleteObjects.at_positions(document.dungeon, [("passages", index)], label)

        return QuickFix(label, drop_passage)
    return None


def _dot(colour: str) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(colour))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(1, 1, 10, 10)
    painter.end()
    return QIcon(pixmap)


class ProblemsPanel(QWidget):
    """The list of problems of the current dungeon: severity, code, message, object.

    Click selects and zooms to the object; double-click (or the Fix button, or the context
    menu) applies the quick-fix when there is one. ``show_warnings`` filters warnings out.
    """

    COLUMNS = ("", "Code", "Problem", "Object")

    def __init__(self, window):
        super().__init__()
        self.window = window
        self.document: DungeonDocument | None = None
        self.dock: QDockWidget | None = None  # the dock it is shown in (install)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(self.COLUMNS))
        self.tree.setHeaderLabels(self.COLUMNS)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setWordWrap(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        self.tree.itemClicked.connect(self._on_clicked)
        self.tree.itemActivated.connect(self._on_activated)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.summary = QLabel("No dungeon open")
        self.warnings = QCheckBox("Warnings")
        self.warnings.setChecked(True)
        self.warnings.setToolTip("Show warnings as well as errors")
        self.warnings.toggled.connect(lambda _: self.refresh())
        self.fix_button = QPushButton("Fix")
        self.fix_button.setToolTip("Apply the quick-fix of the selected problem (also: double-click it)")
        self.fix_button.clicked.connect(lambda: self.apply_fix(self.tree.currentItem()))
        self.fix_button.setEnabled(False)
        self.tree.currentItemChanged.connect(
            lambda item, _old: self.fix_button.setEnabled(item is not None and self._fix_of(item) is not None)
        )
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.warnings)
        top.addWidget(self.fix_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.tree)
        self._icons = {severity: _dot(colour) for severity, colour in _SEVERITY_COLOUR.items()}

    def set_document(self, document: DungeonDocument | None) -> None:
        """Follow another document (or none)."""
        if self.document is not None:
            try:
                self.document.problems_changed.disconnect(self._on_problems)
            except (RuntimeError, TypeError):
                pass
        self.document = document
        if document is not None:
            document.problems_changed.connect(self._on_problems)
        self.refresh()

    def _on_problems(self, _problems) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Show the document's latest problems."""
        self.tree.clear()
        if self.document is None:
            self.summary.setText("No dungeon open")
            return
        problems = sorted(
            self.document.problems, key=lambda p: (_SEVERITY_ORDER.get(p.problem.severity.value, 3), p.problem.code)
        )
        errors = sum(p.problem.severity.value == "error" for p in problems)
        warnings = sum(p.problem.severity.value == "warning" for p in problems)
        shown = [p for p in problems if self.warnings.isChecked() or p.problem.severity.value == "error"]
        items = []
        for located in shown:
            problem = located.problem
            label = located.ref or (problem.pointer or "dungeon")
            item = QTreeWidgetItem(["", problem.code, problem.message, label])
            item.setIcon(0, self._icons.get(problem.severity.value, QIcon()))
            item.setToolTip(0, problem.severity.value)
            fix = quick_fix(self.document, located)
            tip = f"{problem.code} ({problem.severity.value}) at {problem.pointer or '/'}"
            if fix is not None:
                tip += f"\nQuick-fix (double-click): {fix.label}"
                item.setText(1, f"{problem.code} \u2692")
            item.setToolTip(2, f"{problem.message}\n{tip}")
            item.setData(0, Qt.ItemDataRole.UserRole, located)
            items.append(item)
        self.tree.addTopLevelItems(items)
        if not problems:
            took = self.document.validation_ms
            self.summary.setText(
                f"No problems (checked in {took:.0f} ms)" if took >= 1 else "No problems (checked in under 1 ms)"
            )
        else:
            self.summary.setText(f"{errors} error(s), {warnings} warning(s)")
        if self.dock is not None:
            self.dock.setWindowTitle(f"Problems ({errors + warnings})" if problems else "Problems")

    def located(self, item: QTreeWidgetItem | None) -> LocatedProblem | None:
        """The problem a row shows."""
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def _fix_of(self, item) -> QuickFix | None:
        located = self.located(item)
        return quick_fix(self.document, located) if located is not None and self.document is not None else None

    def _on_clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        located = self.located(item)
        if located is None:
            return
        if located.ref:
            self.window.select_refs([located.ref], zoom=True)
        elif self.window.scene is not None:
            self.window.scene.clearSelection()
        self.window.show_status(f"{located.problem.code}: {located.problem.message}")

    def _on_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        if self._fix_of(item) is not None:
            self.apply_fix(item)
        else:
            self._on_clicked(item)

    def apply_fix(self, item: QTreeWidgetItem | None) -> bool:
        """Apply the quick-fix of a row (one undo step) and re-validate; ``False`` if none."""
        fix = self._fix_of(item)
        if fix is None:
            return False
        edit = fix.make()
        if edit is None:
            self.window.show_status("Nothing to fix any more")
            return False
        self.document.push(edit)
        self.document.validate_now()
        self.window.show_status(f"Fixed: {fix.label}")
        return True

    def _context_menu(self, pos) -> None:
        item = self.tree.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction("Show the object", lambda: self._on_clicked(item))
        fix = self._fix_of(item)
        if fix is not None:
            menu.addAction(f"Fix: {fix.label}", lambda: self.apply_fix(item))
        menu.addAction(
            "Copy message",
            lambda: self.window.clipboard_text(
                f"{self.located(item).problem.code} {self.located(item).problem.message}"
            ),
        )
        menu.exec(self.tree.viewport().mapToGlobal(pos))


def install(window) -> ProblemsPanel:
    """Add the Problems dock (bottom) and keep it on the current dungeon; the window keeps the
    panel as ``window.problems_panel``."""
    panel = ProblemsPanel(window)
    panel.dock = window.add_dock(panel, "Problems", Qt.DockWidgetArea.BottomDockWidgetArea, "problems")
    window.current_changed.connect(panel.set_document)
    return panel
