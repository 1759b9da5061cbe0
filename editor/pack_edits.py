"""Undo commands of the Pack dock: one class per kind of pack-level edit.

The pack's edits (its list of dungeons and its manifest) have their own ``QUndoStack``,
owned by :class:`editor.pack_browser.PackBrowser` and separate from the dungeons' stacks:
adding a dungeon from the template (:class:`AddDungeon`), duplicating one
(:class:`DuplicateDungeon`), removing one from the pack (:class:`RemoveDungeon`), moving one
up or down (:class:`MoveDungeon`) and changing a manifest field (:class:`ChangeManifestField`).

Each command keeps what it needs to put the pack back exactly: the
:class:`editor.pack_browser.PackEntry` it adds or removes (with its open
:class:`editor.document.DungeonDocument`, unsaved edits and undo history included: the
document object is kept alive, never read again from disk), the row, the field's old and new
value (:data:`ABSENT` for a member the manifest does not have). The commands call the
browser's small primitives (``_place_entry``, ``_take_entry``, ``_swap``, ``_set_field``),
which also keep the window's tabs in the pack's order. No command ever deletes a file.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand


class _Absent:
    """The value of a manifest member that is not there (``description`` may be left out)."""

    def __repr__(self) -> str:
        return "ABSENT"


#: A manifest field's value when the member is absent from ``pack.json``.
ABSENT = _Absent()

#: The manifest fields the Pack dock edits, with the names used in undo texts.
MANIFEST_FIELDS = {"name": "name", "version": "version", "description": "description"}

#: Merge ids of the field changes (Qt merges commands with the same id).
_FIELD_IDS = {field: 7100 + n for n, field in enumerate(MANIFEST_FIELDS)}


def _short(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[:size - 1] + "\u2026"


class PackCommand(QUndoCommand):
    """Base of the pack's undo commands: ``browser`` is the
    :class:`editor.pack_browser.PackBrowser` whose entries and manifest the command changes."""

    def __init__(self, browser, text: str):
        super().__init__(text)
        self.browser = browser


class AddDungeon(PackCommand):
    """Put a new dungeon into the pack at ``row`` (0-based, in the pack's order).

    ``entry`` is the new :class:`editor.pack_browser.PackEntry` with its document; redo shows
    the document in a tab, undo takes it out of the pack and closes its tab while keeping the
    document object (and any edits made to it), so a redo brings back the same document."""

    def __init__(self, browser, row: int, entry, text: str | None = None):
        super().__init__(browser, text or f"Add dungeon '{_short(entry.title)}'")
        self.row = row
        self.entry = entry

    def redo(self) -> None:
        self.browser._place_entry(self.row, self.entry)

    def undo(self) -> None:
        self.browser._take_entry(self.entry)


class DuplicateDungeon(AddDungeon):
    """Put a copy of a dungeon (new id, title "... (copy)") into the pack right after it;
    undone and redone like :class:`AddDungeon`."""

    def __init__(self, browser, row: int, entry, source_title: str):
        super().__init__(browser, row, entry, f"Duplicate dungeon '{_short(source_title)}'")


class RemoveDungeon(PackCommand):
    """Take dungeon ``entry`` (at ``row``) out of the pack. Its file stays on disk; its open
    document, unsaved edits and all, is kept in the command, so undo puts the same document
    back at the same place (and in a tab again)."""

    def __init__(self, browser, row: int, entry):
        title = entry.document.dungeon.sheet.title if entry.document is not None else entry.title
        super().__init__(browser, f"Remove dungeon '{_short(title or entry.relative)}'")
        self.row = row
        self.entry = entry

    def redo(self) -> None:
        # listed as removed first: autosave (editor/files.py) keeps its recovery file meanwhile
        self.browser.removed.append(self.entry)
        self.browser._take_entry(self.entry)

    def undo(self) -> None:
        if self.entry in self.browser.removed:
            self.browser.removed.remove(self.entry)
        self.browser._place_entry(self.row, self.entry)


class MoveDungeon(PackCommand):
    """Move the dungeon at ``row`` one place up (``step`` -1) or down (``step`` 1) in the pack
    (the tabs follow); undo moves it back."""

    def __init__(self, browser, row: int, step: int, title: str):
        super().__init__(browser, f"Move dungeon '{_short(title)}' {'up' if step < 0 else 'down'}")
        self.row = row
        self.step = step

    def redo(self) -> None:
        self.browser._swap(self.row, self.row + self.step, select=self.row + self.step)

    def undo(self) -> None:
        self.browser._swap(self.row, self.row + self.step, select=self.row)


class ChangeManifestField(PackCommand):
    """Set manifest field ``field`` (``name``, ``version`` or ``description``) from ``old`` to
    ``new`` (either may be :data:`ABSENT`: the member is left out of ``pack.json``).

    Changes of the same field made in one stretch of typing (the same ``session``, which the
    browser renews whenever the keyboard focus moves) merge into one undo step, as in a text
    editor; typing back to the old value leaves no step at all."""

    def __init__(self, browser, field: str, old, new, session: int):
        super().__init__(browser, f"Change pack {MANIFEST_FIELDS[field]}")
        self.field = field
        self.old = old
        self.new = new
        self.session = session
        self._describe()

    def _describe(self) -> None:
        if self.field != "description" and isinstance(self.new, str):
            self.setText(f"Change pack {MANIFEST_FIELDS[self.field]} to '{_short(self.new)}'")

    def redo(self) -> None:
        self.browser._set_field(self.field, self.new)

    def undo(self) -> None:
        self.browser._set_field(self.field, self.old)

    def id(self) -> int:
        return _FIELD_IDS[self.field]

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (isinstance(other, ChangeManifestField) and other.field == self.field
                and other.session == self.session):
            return False
        self.new = other.new
        self._describe()
        self.setObsolete(self.new == self.old)
        return True
