"""Resize the grid of a grid dungeon (Dungeon > Resize Grid...), never deleting silently.

The dialog asks for the number of columns and rows and, as the numbers change, lists every
object that would fall outside the new grid (:func:`editor.dungeon.edits.objects_outside`: features in
removed rooms, passages touching them, entryways no longer on an outer edge); its OK button
then reads "Resize and Remove N Objects", so the removal is confirmed knowingly. Applying
pushes one undo step (:func:`plan_resize`: an :class:`editor.dungeon.edits.ResizeGrid`, preceded by the
moves below): Ctrl+Z brings the grid and every removed object back, byte for byte. The grid
grows and shrinks on its right and bottom sides; its top-left corner stays where it is on the
sheet. When the grid grows, the entryways on its east (south) edge move out with that edge, to
the same row (column) of the new last column (row), instead of being left on what became an
inner edge; the dialog says so.

Seam for tests and scripts: the window's ``ask_grid_size(dungeon, ruleset)`` (it shows :func:`ask_grid_size`),
which returns ``(columns, rows)`` or ``None`` when cancelled; replace it to answer without a
dialog.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QListWidget,
    QSpinBox,
    QVBoxLayout,
)

from editor.dungeon.edits import Compound, Edit, EditError, MoveObjects, ResizeGrid, ref_of
from inkcrawl.model import SIDE_OFFSETS, Entryway, Feature, GridDungeon, Passage, edge_key

#: Largest number of columns or rows the dialog offers (26 letters of column labels).
MAX_SIDE = 26


def describe_object(dungeon: GridDungeon, obj) -> str:
    """How the dialog names an object of the grid: ``weapon A 'weapon_a' in G1``,
    ``passage between F3 and G3``, ``entryway 'e1' on the east edge of G5``."""
    label = dungeon.grid.cell_label
    if isinstance(obj, Feature):
        letter = f" {obj.letter}" if obj.letter else ""
        return f"{obj.kind.replace('_', ' ')}{letter} '{obj.id}' in {label(obj.cell)}"
    if isinstance(obj, Passage):
        cell, side = edge_key(obj.cell, obj.side)
        dc, dr = SIDE_OFFSETS[side]
        return f"passage between {label(cell)} and {label((cell[0] + dc, cell[1] + dr))}"
    if isinstance(obj, Entryway):
        return f"entryway '{obj.id}' on the {obj.side} edge of {label(obj.cell)}"
    return str(obj)


@dataclass
class ResizePlan:
    """What resizing a grid to ``columns`` x ``rows`` does: ``edit`` (one undo step),
    ``removed`` (the objects that fall outside, in file order) and ``moved`` (entryways that
    follow a growing edge, as ``(entryway, new cell)``)."""

    columns: int
    rows: int
    edit: Edit
    removed: list = field(default_factory=list)
    moved: list = field(default_factory=list)


def plan_resize(dungeon: GridDungeon, columns: int, rows: int) -> ResizePlan:
    """The edit that resizes ``dungeon``'s grid to ``columns`` x ``rows`` (see the module
    docstring). Raises :class:`editor.dungeon.edits.EditError` for a size below 1 x 1."""
    grid = dungeon.grid
    grow = {"east": (max(columns - grid.columns, 0), 0), "south": (0, max(rows - grid.rows, 0))}
    moves: list[MoveObjects] = []
    moved = []
    for entryway in dungeon.entryways:
        dc, dr = grow.get(entryway.side, (0, 0))
        if (dc or dr) and grid.is_outer_edge(entryway.cell, entryway.side):
            moves.append(MoveObjects(dungeon, [ref_of(entryway)], dc, dr, "Move entryway"))
            moved.append((entryway, (entryway.cell[0] + dc, entryway.cell[1] + dr)))
    if not moves:
        resize = ResizeGrid(dungeon, columns, rows)
        return ResizePlan(columns, rows, resize, [obj for _, _, obj in resize.removed])
    # ResizeGrid remembers what falls outside by position: work it out on the moved model
    trial = copy.deepcopy(dungeon)
    for move in moves:
        move.redo(trial)
    resize = ResizeGrid(trial, columns, rows)
    return ResizePlan(
        columns, rows, Compound([*moves, resize], resize.text), [obj for _, _, obj in resize.removed], moved
    )


def layout_problem(dungeon: GridDungeon, ruleset, columns: int, rows: int) -> str | None:
    """Why the sheet could not be printed with a ``columns`` x ``rows`` grid (the exporters'
    own layout, so the answer matches what prints), or ``None`` when it fits."""
    from exporters.paper import SheetLayoutError
    from exporters.sheet import render_sheet

    trial = copy.deepcopy(dungeon)
    try:
        plan_resize(trial, columns, rows).edit.redo(trial)
        render_sheet(trial, ruleset)
    except SheetLayoutError as exc:
        return str(exc)
    except Exception:
        return None
    return None


class GridSizeDialog(QDialog):
    """Ask for a grid size; lists the objects that would fall outside as the size changes.

    ``columns``/``rows`` are the spin boxes, ``outside_list`` the objects listed, ``moves`` the
    entryways that follow a growing edge, ``warning`` the layout warning (a grid too large for
    the paper may be chosen, the sheet shows why it cannot print). :meth:`chosen_size` is the
    answer once accepted.
    """

    def __init__(self, dungeon: GridDungeon, ruleset=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Resize Grid")
        self.dungeon = dungeon
        self.ruleset = ruleset
        grid = dungeon.grid
        self.columns = QSpinBox()
        self.rows = QSpinBox()
        for box, value, name in ((self.columns, grid.columns, "columns"), (self.rows, grid.rows, "rows")):
            box.setRange(1, max(MAX_SIDE, value))
            box.setValue(value)
            box.setObjectName(name)
            box.setToolTip(
                f"Number of {name}: the grid grows or shrinks on its {'right' if name == 'columns' else 'bottom'} side"
            )
            box.valueChanged.connect(self._update)
        form = QFormLayout()
        form.addRow("&Columns:", self.columns)
        form.addRow("&Rows:", self.rows)
        board = (ruleset.data.get("board") or {}) if ruleset is not None else {}
        hint = f"Now {grid.columns} x {grid.rows}"
        if board.get("columns") and board.get("rows"):
            hint += f"; the ruleset's board is {board['columns']} x {board['rows']}"
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.outside_list = QListWidget()
        self.outside_list.setObjectName("outside")
        self.moves = QLabel()
        self.moves.setWordWrap(True)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #b71c1c")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(hint + "."))
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.outside_list)
        layout.addWidget(self.moves)
        layout.addWidget(self.warning)
        layout.addWidget(self.buttons)
        self.resize(440, 360)
        self._update()

    def chosen_size(self) -> tuple[int, int]:
        """The size in the spin boxes, ``(columns, rows)``."""
        return self.columns.value(), self.rows.value()

    def plan(self) -> ResizePlan:
        """What the chosen size would do (see :func:`plan_resize`)."""
        return plan_resize(self.dungeon, *self.chosen_size())

    def outside(self) -> list:
        """The objects the chosen size would remove."""
        return self.plan().removed

    def _update(self) -> None:
        columns, rows = self.chosen_size()
        plan = self.plan()
        outside = plan.removed
        self.outside_list.clear()
        self.outside_list.addItems([describe_object(self.dungeon, obj) for obj in outside])
        self.outside_list.setVisible(bool(outside))
        label = self.dungeon.grid.cell_label
        self.moves.setText(
            "Entryways on the growing side move out with their edge: "
            + "; ".join(f"'{e.id}' to the {e.side} edge of {label(cell)}" for e, cell in plan.moved)
            if plan.moved
            else ""
        )
        self.moves.setVisible(bool(plan.moved))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        unchanged = (columns, rows) == (self.dungeon.grid.columns, self.dungeon.grid.rows)
        ok.setEnabled(not unchanged)
        if outside:
            self.summary.setText(
                f"These {len(outside)} objects fall outside a {columns} x {rows} grid and will be "
                "removed (Edit > Undo brings them back):"
            )
            ok.setText(f"Resize and Remove {len(outside)} Object{'s' if len(outside) != 1 else ''}")
        else:
            self.summary.setText("Nothing falls outside." if not unchanged else "Choose the new size.")
            ok.setText("Resize")
        problem = None if unchanged else layout_problem(self.dungeon, self.ruleset, columns, rows)
        self.warning.setText(f"At {columns} x {rows} the sheet cannot be printed: {problem}." if problem else "")
        self.warning.setVisible(bool(problem))


def ask_grid_size(window, dungeon: GridDungeon, ruleset) -> tuple[int, int] | None:
    """Show :class:`GridSizeDialog` (modal); the chosen ``(columns, rows)``, or ``None``."""
    dialog = GridSizeDialog(dungeon, ruleset, window)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.chosen_size()
    finally:
        dialog.deleteLater()


def resize_grid(window) -> bool:
    """Resize the current grid dungeon's grid as the user chooses (``window.ask_grid_size``);
    ``True`` if the grid changed. The change is one undo step that restores every object
    removed; a cancelled or unchanged choice changes nothing."""
    document = window.current
    if document is None or not isinstance(document.dungeon, GridDungeon):
        window.show_status("Only a grid dungeon has columns and rows to resize")
        return False
    dungeon = document.dungeon
    answer = window.ask_grid_size(dungeon, document.ruleset)
    if answer is None:
        window.show_status("Grid size unchanged")
        return False
    columns, rows = int(answer[0]), int(answer[1])
    if (columns, rows) == (dungeon.grid.columns, dungeon.grid.rows):
        window.show_status(f"The grid is already {columns} x {rows}")
        return False
    try:
        plan = plan_resize(dungeon, columns, rows)
        document.push(plan.edit)
    except EditError as exc:
        window.show_status(f"The grid was not resized: {exc}")
        return False
    removed = len(plan.removed)
    window.show_status(
        f"Grid resized to {columns} x {rows}"
        + (f"; {removed} object(s) outside it removed (Ctrl+Z brings them back)" if removed else "")
    )
    return True


def install(window) -> None:
    """Connect Dungeon > Resize Grid... of ``window`` (which asks through its ``ask_grid_size`` seam)."""
    window.action("resize_grid").triggered.connect(lambda _checked=False: resize_grid(window))


__all__ = [
    "GridSizeDialog",
    "ResizePlan",
    "ask_grid_size",
    "describe_object",
    "install",
    "layout_problem",
    "plan_resize",
    "resize_grid",
]
