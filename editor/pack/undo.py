"""The pack's undo in the window: the undo command of a pack edit, and which history Undo works on.

:class:`PackCommand` wraps one Qt-free edit of :mod:`editor.pack.edits` for the pack's
``QUndoStack`` (as :class:`editor.dungeon.document.EditCommand` wraps a dungeon edit): its redo and
undo call :meth:`editor.pack.document.PackDocument.apply` and
:meth:`~editor.pack.document.PackDocument.revert`, and merging goes through
:meth:`~editor.pack.document.PackDocument.merge`, so the model's ``modified`` follows the
stack's clean state. The command holds the model, never the browser; the model holds no Qt
object that owns the stack, so no reference cycle runs through Qt.

:class:`PackUndoFocus` follows the keyboard focus for the Pack dock: while the focus is in the
dock, the window's undo group (Edit > Undo/Redo, Ctrl+Z, the History dock) works on the pack's
stack; anywhere else on the current dungeon's. It also counts the stretches of typing (a new
one whenever the focus moves) and keeps the dock's Undo and Redo buttons and their tooltips
up to date.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtGui import QKeySequence, QUndoCommand
from PySide6.QtWidgets import QApplication, QMenu

from editor.pack.document import PackDocument
from editor.pack.edits import PackEdit

_MERGE_IDS: dict[str, int] = {}


def _merge_id(key: str | None) -> int:
    if key is None:
        return -1
    return _MERGE_IDS.setdefault(key, 7100 + len(_MERGE_IDS))


class PackCommand(QUndoCommand):
    """The undo command of one pack edit: ``edit`` (:class:`editor.pack.edits.PackEdit`) on
    ``pack`` (:class:`editor.pack.document.PackDocument`). Edits with the same merge key merge
    (a stretch of typing in a manifest field), as Qt's ``mergeWith`` protocol asks; a merged
    edit that changes nothing makes the command obsolete (Qt drops it)."""

    def __init__(self, pack: PackDocument, edit: PackEdit):
        super().__init__(edit.text)
        self.pack = pack
        self.edit = edit

    def redo(self) -> None:
        self.pack.apply(self.edit)

    def undo(self) -> None:
        self.pack.revert(self.edit)

    def id(self) -> int:
        return _merge_id(self.edit.merge_key)

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, PackCommand) and other.pack is self.pack and self.pack.merge(self.edit, other.edit)):
            return False
        self.setText(self.edit.text)
        self.setObsolete(self.edit.void)
        return True


class PackUndoFocus(QObject):
    """Which undo history the window's Undo works on, for ``browser`` (an
    :class:`editor.pack.browser.PackBrowser`, whose child this is, so the connection to the
    application's focus signal ends with it). ``session`` numbers the stretches of typing."""

    def __init__(self, browser):
        super().__init__(browser)
        self.browser = browser
        self.session = 0
        QApplication.instance().focusChanged.connect(self.focus_changed)

    def in_dock(self, widget) -> bool:
        """Whether ``widget`` is the Pack dock or inside it."""
        dock = self.browser.parentWidget()
        holder = dock if dock is not None else self.browser
        return widget is holder or holder.isAncestorOf(widget)

    def has_focus(self) -> bool:
        """Whether the keyboard focus is in the Pack dock."""
        focus = QApplication.focusWidget()
        return focus is not None and self.in_dock(focus)

    def focus_changed(self, old, new) -> None:
        """Follow the focus: the pack's stack is active while the focus is in the dock; the
        History dock, menus and dialogs leave it in charge; elsewhere the current dungeon's."""
        if not (shiboken6.isValid(self) and shiboken6.isValid(self.browser)):
            return
        self.session += 1  # a run of typing in a manifest field ends when the focus moves
        if new is None:
            return
        window = self.browser.window
        stack = self.browser.undo_stack
        group = window.undo_group
        if self.in_dock(new):
            if group.activeStack() is not stack:
                group.setActiveStack(stack)
            return
        if group.activeStack() is not stack:
            return
        history = window.undo_view
        history_dock = history.parentWidget() if history is not None else None
        if (
            isinstance(new, QMenu)
            or new.window() is not window
            or (history_dock is not None and (new is history_dock or history_dock.isAncestorOf(new)))
        ):
            return
        current = window.current
        group.setActiveStack(current.undo_stack if current is not None else None)

    def update_buttons(self) -> None:
        """Enable the dock's Undo and Redo buttons and say in their tooltips what they undo or
        redo and the keys that do it while the dock has the focus."""
        browser = self.browser
        stack = browser.undo_stack
        if not (shiboken6.isValid(browser) and shiboken6.isValid(stack) and shiboken6.isValid(browser.undo_button)):
            return  # signals sent while Qt tears the dock down
        browser.undo_button.setEnabled(stack.canUndo())
        browser.redo_button.setEnabled(stack.canRedo())
        for button, verb, can, text, action_id, default in (
            (browser.undo_button, "Undo", stack.canUndo(), stack.undoText(), "undo", "Ctrl+Z"),
            (browser.redo_button, "Redo", stack.canRedo(), stack.redoText(), "redo", "Ctrl+Shift+Z"),
        ):
            action = browser.window.actions_by_id.get(action_id)
            key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText) if action is not None else ""
            keys = f" ({key or default} while the Pack dock has the focus)"
            button.setToolTip(
                f"{verb} in the pack: {text}{keys}" if can else f"Nothing to {verb.lower()} in the pack{keys}"
            )
