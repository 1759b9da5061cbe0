"""Edits of a content pack, without Qt: one class per kind of pack-level edit, each undoable exactly.

A pack edit changes a :class:`editor.pack.document.PackDocument` (its list of dungeons and its
manifest) as :mod:`editor.dungeon.edits` changes a dungeon: adding a dungeon from the template
(:class:`AddDungeon`), duplicating one (:class:`DuplicateDungeon`), removing one from the pack
(:class:`RemoveDungeon`), moving one up or down (:class:`MoveDungeon`) and changing a manifest
field (:class:`ChangeManifestField`). The Pack dock wraps each in an undo command of the pack's
own ``QUndoStack`` (:class:`editor.pack.undo.PackCommand`); without Qt, make one with
``pack.apply(edit)`` and take it back with ``pack.revert(edit)``.

Each edit keeps what it needs to put the pack back exactly: the
:class:`editor.pack.document.PackEntry` it adds or removes (with its open document, unsaved
edits and undo history included: the document object is kept, never read again from disk),
the row, the field's old and new value (:data:`ABSENT` for a member the manifest does not
have). Edits change the model only through its public methods (``insert_entry``,
``take_entry``, ``move_entry``, ``set_field``), whose listeners keep the window's tabs in the
pack's order. No edit ever deletes a file.

Errors: constructing an edit that cannot be made (a row outside the list, a dungeon file
outside the pack folder or listed twice, removing the last dungeon, an empty name, a version
that is not semantic versioning...) raises :class:`editor.pack.document.PackError`.
"""

from __future__ import annotations

from typing import Any

from editor.pack.document import ABSENT, MANIFEST_FIELDS, PackDocument, PackEntry, PackError, check_field


def _short(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[: size - 1] + "\u2026"


def _check_open(pack: PackDocument) -> None:
    if pack.manifest is None or pack.pack_dir is None:
        raise PackError("No content pack is open")


class PackEdit:
    """One undoable change of a pack.

    ``redo(pack)`` makes the change, ``undo(pack)`` restores the pack exactly; ``text`` is
    what the undo history shows. An edit with a ``merge_key`` may absorb the next edit with the
    same key (:meth:`merge`); one that then changes nothing is :attr:`void`.
    """

    text = "Pack edit"
    merge_key: str | None = None

    def redo(self, pack: PackDocument) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def undo(self, pack: PackDocument) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def merge(self, other: PackEdit) -> bool:
        """Absorb ``other`` (already made after this one); ``False`` if it cannot."""
        return False

    @property
    def void(self) -> bool:
        """Whether the edit changes nothing (after merging, typing back to the old value)."""
        return False


class AddDungeon(PackEdit):
    """Put a new dungeon, ``entry`` (:class:`editor.pack.document.PackEntry`, with its document),
    into the pack at ``row`` (0-based, in the pack's order; ``len(entries)`` adds it at the end).

    Undo takes it out again and keeps the entry and its document (and any edits made to it), so
    a redo brings back the same document. Raises :class:`PackError` when no pack is open, for a
    row outside ``0..len(entries)``, a ``relative`` path that leaves the pack folder, or a file
    the pack lists already."""

    def __init__(self, pack: PackDocument, row: int, entry: PackEntry, text: str | None = None):
        from inkcrawl.validate import path_inside_pack

        _check_open(pack)
        if not 0 <= row <= len(pack.entries):
            raise PackError(f"A dungeon can go in at places 0 to {len(pack.entries)} of the pack, not {row}")
        assert pack.pack_dir is not None
        if path_inside_pack(pack.pack_dir, entry.relative) is None:
            raise PackError(f"{entry.relative} lies outside the pack folder: a pack may only name files inside it")
        if any(e is entry or e.relative == entry.relative for e in pack.entries):
            raise PackError(f"{entry.relative} is in the pack already")
        self.row = row
        self.entry = entry
        self.text = text or f"Add dungeon '{_short(entry.title)}'"

    def redo(self, pack: PackDocument) -> None:
        pack.insert_entry(self.row, self.entry)

    def undo(self, pack: PackDocument) -> None:
        pack.take_entry(self.entry)


class DuplicateDungeon(AddDungeon):
    """Put a copy of a dungeon (``entry``: new id, title "... (copy)") into the pack at ``row``,
    right after the dungeon titled ``source_title``; undone and redone like :class:`AddDungeon`,
    with the same errors."""

    def __init__(self, pack: PackDocument, row: int, entry: PackEntry, source_title: str):
        super().__init__(pack, row, entry, f"Duplicate dungeon '{_short(source_title)}'")


class RemoveDungeon(PackEdit):
    """Take dungeon ``row`` out of the pack. Its file stays on disk; its entry, with its open
    document (unsaved edits and all), is listed in ``pack.removed`` and kept by the edit, so
    undo puts the same document back at the same place. Raises :class:`PackError` for a row
    outside the list and for the pack's only dungeon (a pack holds at least one)."""

    def __init__(self, pack: PackDocument, row: int):
        _check_open(pack)
        if not 0 <= row < len(pack.entries):
            raise PackError(f"There is no dungeon {row + 1} in the pack to remove")
        if len(pack.entries) == 1:
            raise PackError("A pack holds at least one dungeon: add another before removing this one")
        self.row = row
        self.entry = pack.entries[row]
        self.text = f"Remove dungeon '{_short(pack.title_of(self.entry))}'"

    def redo(self, pack: PackDocument) -> None:
        pack.take_entry(self.entry, removal=True)

    def undo(self, pack: PackDocument) -> None:
        pack.insert_entry(self.row, self.entry)


class MoveDungeon(PackEdit):
    """Move the dungeon at ``row`` one place up (``step`` -1) or down (``step`` 1) in the pack;
    undo moves it back. Raises :class:`PackError` for another step, or when the dungeon or its
    new place is outside the list (the first one cannot go up, the last one down)."""

    def __init__(self, pack: PackDocument, row: int, step: int):
        _check_open(pack)
        if step not in (-1, 1):
            raise PackError(f"A dungeon moves one place up (-1) or down (1), not {step}")
        if not (0 <= row < len(pack.entries) and 0 <= row + step < len(pack.entries)):
            raise PackError(f"Dungeon {row + 1} of {len(pack.entries)} cannot move {'up' if step < 0 else 'down'}")
        self.row = row
        self.step = step
        self.text = f"Move dungeon '{_short(pack.title_of(pack.entries[row]))}' {'up' if step < 0 else 'down'}"

    def redo(self, pack: PackDocument) -> None:
        pack.move_entry(self.row, self.row + self.step)

    def undo(self, pack: PackDocument) -> None:
        pack.move_entry(self.row + self.step, self.row)


class ChangeManifestField(PackEdit):
    """Set manifest field ``field`` (``name``, ``version`` or ``description``) to ``new``
    (:data:`ABSENT` for a description leaves the member out of ``pack.json``); the old value
    is the manifest's (``ABSENT`` when missing).

    Changes of the same field made in one stretch of typing (the same ``session``, which the
    Pack dock renews whenever the keyboard focus moves) merge into one undo step, as in a text
    editor; typing back to the old value leaves no step at all (:attr:`void`). Raises
    :class:`PackError` when no pack is open or the value is refused
    (:func:`editor.pack.document.check_field`: an empty name, a version that is not semantic
    versioning, a description over 2000 characters)."""

    def __init__(self, pack: PackDocument, field: str, new: Any, session: int = 0):
        _check_open(pack)
        assert pack.manifest is not None
        self.field = field
        self.new = check_field(field, new)
        self.old = pack.manifest.get(field, ABSENT)
        self.session = session
        self.merge_key = f"pack-field:{field}"
        self._describe()

    def _describe(self) -> None:
        if self.field != "description" and isinstance(self.new, str):
            self.text = f"Change pack {MANIFEST_FIELDS[self.field]} to '{_short(self.new)}'"
        else:
            self.text = f"Change pack {MANIFEST_FIELDS[self.field]}"

    def redo(self, pack: PackDocument) -> None:
        pack.set_field(self.field, self.new)

    def undo(self, pack: PackDocument) -> None:
        pack.set_field(self.field, self.old)

    def merge(self, other: PackEdit) -> bool:
        if not (isinstance(other, ChangeManifestField) and other.field == self.field and other.session == self.session):
            return False
        self.new = other.new
        self._describe()
        return True

    @property
    def void(self) -> bool:
        return self.new == self.old


__all__ = [
    "ABSENT",
    "MANIFEST_FIELDS",
    "AddDungeon",
    "ChangeManifestField",
    "DuplicateDungeon",
    "MoveDungeon",
    "PackEdit",
    "PackError",
    "RemoveDungeon",
]
