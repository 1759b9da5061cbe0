"""The open content pack as a model, without Qt: its manifest, its dungeons in the pack's order,
whether it differs from the saved ``pack.json``, and Save Pack's checks and writing.

:class:`PackDocument` is to a pack what :class:`editor.dungeon.document.DungeonDocument` is to a
dungeon. It holds ``manifest_path``, ``manifest`` (the ``pack.json`` data being edited),
``entries`` (:class:`PackEntry`: the pack's dungeons in order) and ``removed`` (entries taken
out by removals not undone: their documents are kept for the undo). Every change of the list
or the manifest is an edit of :mod:`editor.pack.edits`, made with :meth:`PackDocument.apply`
and taken back with :meth:`PackDocument.revert`; each change is told to the listeners (plain
callables, :meth:`PackDocument.add_listener`) as a :class:`PackChange`. The Pack dock
(:mod:`editor.pack.browser`) is a view of the model: it wraps the edits in undo commands
(:mod:`editor.pack.undo`) and redraws on the changes.

The dungeons' documents are opaque here: any object with ``dungeon`` (``id``, ``sheet.title``),
``path``, ``modified`` and ``registry`` will do (the editor's documents, plain objects in tests).

Errors: what cannot be done raises :class:`PackError`, whose message is the sentence the
editor shows the user.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from editor.pack.edits import PackEdit

#: The pack version pattern (schemas/pack.schema.json, semantic versioning).
VERSION_PATTERN = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$")
#: Member order of a manifest as inkcrawl writes it.
MANIFEST_ORDER = (
    "type",
    "format_version",
    "id",
    "name",
    "version",
    "description",
    "ruleset",
    "rulesets",
    "dungeons",
    "decks",
)
#: The manifest fields the Pack dock edits, with the names used in undo texts.
MANIFEST_FIELDS = {"name": "name", "version": "version", "description": "description"}
#: Longest pack name and description (schemas/pack.schema.json).
NAME_MAX = 200
DESCRIPTION_MAX = 2000


class PackError(ValueError):
    """A pack edit or save that cannot be made; the message says why, for the user."""


class _Absent:
    """The value of a manifest member that is not there (``description`` may be left out)."""

    def __repr__(self) -> str:
        return "ABSENT"


#: A manifest field's value when the member is absent from ``pack.json``.
ABSENT = _Absent()


@dataclass(eq=False)
class PackEntry:
    """One dungeon of the pack: ``relative`` is its path in the manifest (``dungeons/x.json``),
    ``document`` the open document (``None`` when its tab was closed: it stays in the pack),
    ``title`` the last title seen (for a closed entry). Entries compare by identity."""

    relative: str
    document: Any = None
    title: str = ""


@dataclass(frozen=True)
class PackChange:
    """What changed in a :class:`PackDocument`, as its listeners hear it.

    ``kind`` is one of:

    - ``"opened"``: another pack (or none) was loaded: everything changed;
    - ``"inserted"``: ``entry`` was put in at ``row``;
    - ``"taken"``: ``entry`` was taken out from ``row`` (``removal``: by a removal, so it is
      listed in ``removed``);
    - ``"moved"``: the entry at ``source`` now is at ``row``;
    - ``"field"``: manifest member ``field`` is now ``value`` (:data:`ABSENT`: left out);
    - ``"linked"``: entries were linked to open documents or unlinked from closed ones;
    - ``"history"``: edits merged or the history was forgotten (``modified`` may differ);
    - ``"saved"``: the pack was written (``modified`` is now false).
    """

    kind: str
    row: int | None = None
    entry: PackEntry | None = None
    source: int | None = None
    field: str | None = None
    value: Any = None
    removal: bool = False


class _Strong:
    """A strong reference to a listener, called like a weak one."""

    def __init__(self, callback: Callable[[PackChange], None]):
        self.callback = callback

    def __call__(self) -> Callable[[PackChange], None]:
        return self.callback


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def check_field(field: str, value: Any) -> Any:
    """``value`` when it may be manifest member ``field`` (``name``, ``version`` or
    ``description``; only a description may be :data:`ABSENT`), else raises :class:`PackError`
    with the reason (an empty name, a version that is not semantic versioning, a text too long)."""
    if field not in MANIFEST_FIELDS:
        raise PackError(f"'{field}' is not a manifest member the editor changes (name, version or description)")
    if field == "description":
        if value is not ABSENT and not isinstance(value, str):
            raise PackError("A pack description is a text")
        if isinstance(value, str) and len(value) > DESCRIPTION_MAX:
            raise PackError(f"A pack description holds at most {DESCRIPTION_MAX} characters")
        return value
    if field == "name":
        if not isinstance(value, str) or not value.strip():
            raise PackError("The pack's name cannot be empty")
        if len(value) > NAME_MAX:
            raise PackError(f"A pack name holds at most {NAME_MAX} characters")
        return value
    if not isinstance(value, str) or not VERSION_PATTERN.match(value):
        raise PackError(
            f"'{value if isinstance(value, str) else ''}' is not a version: use semantic versioning such as 1.2.0"
        )
    return value


class PackDocument:
    """The open pack (none until :meth:`load`): see the module's description.

    Attributes: ``manifest_path`` (``Path`` of ``pack.json`` or ``None``), ``manifest`` (its
    data, ``None`` when no pack is open or the file is not a pack), ``entries`` and ``removed``
    (lists of :class:`PackEntry`). Change them only through edits (:mod:`editor.pack.edits`)
    and the methods below, so listeners hear of it and :attr:`modified` stays true.
    """

    def __init__(self) -> None:
        self.manifest_path: Path | None = None
        self.manifest: dict | None = None
        self.entries: list[PackEntry] = []
        self.removed: list[PackEntry] = []
        self._listeners: list[Callable[[], Callable[[PackChange], None] | None]] = []
        self._applied: list[PackEdit] = []  # the edits made since loading, in order, undone ones dropped
        self._saved: list[PackEdit] = []  # ``_applied`` when the pack was last saved or loaded

    # listeners ---------------------------------------------------------------------------
    def add_listener(self, callback: Callable[[PackChange], None]) -> None:
        """Call ``callback(change)`` with a :class:`PackChange` after each change. A bound
        method is held weakly (a view that goes away stops listening), a function strongly."""
        ref: Callable[[], Callable[[PackChange], None] | None]
        if hasattr(callback, "__self__") and hasattr(callback, "__func__"):
            ref = weakref.WeakMethod(callback)
        else:
            ref = _Strong(callback)
        self._listeners.append(ref)

    def remove_listener(self, callback: Callable[[PackChange], None]) -> None:
        """Stop calling ``callback`` (nothing happens when it is not listening)."""
        self._listeners = [ref for ref in self._listeners if ref() is not None and ref() != callback]

    def _notify(self, change: PackChange) -> None:
        for ref in list(self._listeners):
            callback = ref()
            if callback is None:
                self._listeners.remove(ref)
            else:
                callback(change)

    # state -------------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        """Whether a pack is open (its manifest was read)."""
        return self.manifest is not None

    @property
    def pack_dir(self) -> Path | None:
        """The pack folder (where ``pack.json`` lives), or ``None``."""
        return self.manifest_path.parent if self.manifest_path is not None else None

    @property
    def modified(self) -> bool:
        """Whether the pack (its list of dungeons or manifest) differs from the saved
        ``pack.json``: edits were made or undone since it was saved or loaded. Undoing back to
        the saved state makes it false again; new edits that happen to restore the saved
        content do not (as an undo stack's clean state)."""
        return self.manifest is not None and not _same(self._applied, self._saved)

    def documents(self) -> list:
        """The open documents of the pack's dungeons, in the pack's order."""
        return [e.document for e in self.entries if e.document is not None]

    def row_of(self, entry: PackEntry) -> int:
        """The row of ``entry`` in the pack; raises :class:`PackError` when it is not in it."""
        for row, other in enumerate(self.entries):
            if other is entry:
                return row
        raise PackError(f"{entry.relative} is not in the pack")

    @staticmethod
    def title_of(entry: PackEntry) -> str:
        """The title of an entry's dungeon: its document's, else the last one seen, else its file."""
        title = entry.document.dungeon.sheet.title if entry.document is not None else entry.title
        return title or entry.relative

    def path_of(self, relative: str) -> Path:
        """The resolved path of a file the manifest names (it may lie outside the folder: see
        :meth:`file_of`). Raises :class:`PackError` when no pack is open."""
        if self.pack_dir is None:
            raise PackError("No content pack is open")
        return (self.pack_dir / relative).resolve()

    def file_of(self, row: int) -> Path:
        """The file of dungeon ``row``, to open it. Raises :class:`PackError` when it lies
        outside the pack folder (a pack may only name files inside it) or is not on disk."""
        from inkcrawl.validate import path_inside_pack

        entry = self.entries[row]
        if self.pack_dir is None or path_inside_pack(self.pack_dir, entry.relative) is None:
            raise PackError(
                f"{entry.relative} lies outside the pack folder: a pack may only name files inside it, "
                "so the editor does not open it"
            )
        target = self.path_of(entry.relative)
        if not target.is_file():
            raise PackError(f"{entry.relative} is not on disk: remove it from the pack or restore the file")
        return target

    def ruleset_and_registry(self):
        """``(ruleset, registry)``: the pack's ruleset (``None`` when not known here) and the
        :class:`inkcrawl.validate.RulesetRegistry` of an open dungeon that knows it (else the
        bundled rulesets)."""
        from inkcrawl.validate import RulesetRegistry

        ruleset_id = (self.manifest or {}).get("ruleset", "")
        for document in self.documents():
            ruleset = document.registry.get(ruleset_id)
            if ruleset is not None:
                return ruleset, document.registry
        registry = RulesetRegistry([])
        return registry.get(ruleset_id), registry

    def unique_id(self, base: str) -> str:
        """A dungeon id from ``base`` (cut to 56 characters) that no open dungeon of the pack has:
        ``base``, else ``base-2``, ``base-3``..."""
        taken = {d.dungeon.id for d in self.documents()}
        base = base[:56]
        candidate, n = base, 2
        while candidate in taken:
            candidate = f"{base}-{n}"
            n += 1
        return candidate

    def new_relative(self, dungeon_id: str) -> str:
        """A manifest path ``dungeons/ID.json`` for a new dungeon that neither the pack lists
        nor the pack folder holds (``ID-2``... otherwise). Raises :class:`PackError` when no
        pack is open."""
        if self.pack_dir is None:
            raise PackError("No content pack is open")
        used = {e.relative for e in self.entries}
        stem, n = dungeon_id, 2
        while f"dungeons/{stem}.json" in used or (self.pack_dir / "dungeons" / f"{stem}.json").exists():
            stem = f"{dungeon_id}-{n}"
            n += 1
        return f"dungeons/{stem}.json"

    # opening -----------------------------------------------------------------------------
    def load(self, path: Path) -> None:
        """Read the manifest ``path`` (``pack.json``): its dungeons become the entries, none
        with a document yet (:meth:`link_documents`). A file that is not a pack leaves
        ``manifest`` ``None``. The history is forgotten; listeners hear ``"opened"``."""
        from inkcrawl.validate import load_document

        loaded = load_document(Path(path))
        self.manifest_path = Path(path)
        data = loaded.data if loaded.file_type == "pack" and isinstance(loaded.data, dict) else None
        self.manifest = data
        self.entries = [
            PackEntry(relative) for relative in (data or {}).get("dungeons", []) if isinstance(relative, str)
        ]
        self._reset()

    def close(self) -> None:
        """No pack open any more; listeners hear ``"opened"``."""
        self.manifest_path = None
        self.manifest = None
        self.entries = []
        self._reset()

    def _reset(self) -> None:
        self.removed = []
        self._applied = []
        self._saved = []
        self._notify(PackChange("opened"))

    def link_documents(self, open_documents: Iterable) -> list:
        """Follow the open documents: an entry whose document is no longer open keeps its
        title and loses the document (a closed dungeon stays in the pack); an entry without one
        gets the open document whose file is the entry's. Returns the linked documents, in the
        pack's order; listeners hear ``"linked"`` when a link changed."""
        open_docs = list(open_documents)
        changed = False
        for entry in self.entries:
            if entry.document is not None and not any(d is entry.document for d in open_docs):
                entry.title = entry.title or entry.relative
                entry.document = None
                changed = True
            if entry.document is None and self.pack_dir is not None:
                target = self.path_of(entry.relative)
                for document in open_docs:
                    if document.path is not None and Path(document.path).resolve() == target:
                        entry.document = document
                        changed = True
            if entry.document is not None:
                entry.title = entry.document.dungeon.sheet.title
        if changed:
            self._notify(PackChange("linked"))
        return self.documents()

    # changes the edits make (editor/pack/edits.py) ----------------------------------------
    def insert_entry(self, row: int, entry: PackEntry) -> None:
        """Put ``entry`` in at ``row`` (clamped to the list); it is no longer listed as removed."""
        row = max(0, min(row, len(self.entries)))
        self.entries.insert(row, entry)
        self.removed = [e for e in self.removed if e is not entry]
        self._notify(PackChange("inserted", row, entry))

    def take_entry(self, entry: PackEntry, removal: bool = False) -> int:
        """Take ``entry`` out and return its row; with ``removal`` it is listed in ``removed``
        first (its document is kept for an undo; autosave keeps its recovery file). Raises
        :class:`PackError` when the entry is not in the pack."""
        row = self.row_of(entry)
        if removal:
            self.removed.append(entry)
        del self.entries[row]
        self._notify(PackChange("taken", row, entry, removal=removal))
        return row

    def move_entry(self, row: int, target: int) -> None:
        """Move the entry at ``row`` to ``target``. Raises :class:`PackError` for a row outside the list."""
        if not (0 <= row < len(self.entries) and 0 <= target < len(self.entries)):
            raise PackError(f"There is no dungeon {max(row, target) + 1} in the pack to move")
        entry = self.entries.pop(row)
        self.entries.insert(target, entry)
        self._notify(PackChange("moved", target, entry, source=row))

    def set_field(self, field: str, value: Any) -> None:
        """Set manifest member ``field`` to ``value`` (:data:`ABSENT` leaves it out). Raises
        :class:`PackError` when no pack is open."""
        if self.manifest is None:
            raise PackError("No content pack is open")
        if value is ABSENT:
            self.manifest.pop(field, None)
        else:
            self.manifest[field] = value
        self._notify(PackChange("field", field=field, value=value))

    # history -----------------------------------------------------------------------------
    def apply(self, edit: PackEdit) -> None:
        """Make ``edit`` (an edit of :mod:`editor.pack.edits`, or its redo)."""
        self._applied.append(edit)
        try:
            edit.redo(self)
        except BaseException:
            self._applied.pop()
            raise

    def revert(self, edit: PackEdit) -> None:
        """Undo ``edit``, the last edit made. Raises :class:`PackError` for any other edit
        (edits are undone in the reverse order they were made)."""
        if not self._applied or self._applied[-1] is not edit:
            raise PackError(f"'{edit.text}' is not the last pack edit, so it cannot be undone now")
        self._applied.pop()
        edit.undo(self)

    def merge(self, previous: PackEdit, edit: PackEdit) -> bool:
        """Fold ``edit``, just made, into ``previous``, made right before it (a stretch of
        typing is one undo step), as an undo stack does: never into the edit the saved state
        ends with. ``True`` when merged: ``edit`` is no longer a step of its own, and neither is
        ``previous`` when it now changes nothing (typed back to the old value: see
        :attr:`editor.pack.edits.PackEdit.void`)."""
        if len(self._applied) < 2 or self._applied[-1] is not edit or self._applied[-2] is not previous:
            return False
        if _same(self._applied[:-1], self._saved) or not previous.merge(edit):
            return False
        self._applied.pop()
        if previous.void:
            self._applied.pop()
        self._notify(PackChange("history"))
        return True

    def forget_history(self) -> None:
        """Forget the edits made (their undo history went): the current state counts as
        saved, and the removed entries (kept only for undo) are let go."""
        self._applied = []
        self._saved = []
        self.removed = []
        self._notify(PackChange("history"))

    def mark_saved(self) -> None:
        """The current state is the saved ``pack.json`` (:attr:`modified` becomes false)."""
        self._saved = list(self._applied)
        self._notify(PackChange("saved"))

    # saving ------------------------------------------------------------------------------
    def _relatives(self) -> list[str]:
        assert self.pack_dir is not None
        relatives = []
        for entry in self.entries:
            document = entry.document
            if document is not None and document.path is not None:
                try:
                    relatives.append(Path(document.path).resolve().relative_to(self.pack_dir.resolve()).as_posix())
                except ValueError:
                    raise PackError(
                        f"'{document.dungeon.sheet.title}' is saved outside the pack folder "
                        f"({document.path}); save it inside {self.pack_dir} first"
                    ) from None
            else:
                relatives.append(entry.relative)
        return relatives

    def manifest_data(self) -> dict:
        """The manifest as :meth:`save` writes it: the members in inkcrawl's order, the dungeons
        in the pack's order (each where its document now lives). Raises :class:`PackError` when
        no pack is open or a dungeon is saved outside the pack folder."""
        if self.manifest is None:
            raise PackError("No content pack is open")
        data = dict(self.manifest)
        data["dungeons"] = self._relatives()
        ordered = {key: data[key] for key in MANIFEST_ORDER if key in data}
        ordered.update({key: value for key, value in data.items() if key not in ordered})
        return ordered

    def save(
        self, save_dungeon: Callable[[Any], bool], replace_read_only: Callable[[Path], bool] | None = None
    ) -> dict:
        """Save Pack: check the manifest (``schemas/pack.schema.json``, no dungeon id twice),
        save the pack's dungeons that are new or modified with ``save_dungeon(document) ->
        bool`` (their folder made first), then write ``pack.json`` atomically
        (:func:`inkcrawl.jsonio.write_json_atomic`; a symlink stays a link) and mark the state
        saved. A read-only ``pack.json`` is replaced only when ``replace_read_only(path)`` says
        so. Returns the data written. Raises :class:`PackError` saying what was not written;
        ``pack.json`` is then untouched."""
        from inkcrawl.jsonio import WriteRefused, write_json_atomic
        from inkcrawl.schema import schema_problems

        data = self.manifest_data()
        for entry, relative in zip(self.entries, data["dungeons"]):
            entry.relative = relative  # an entry follows its document's file
        problems = schema_problems(data, "pack", str(self.manifest_path))
        if problems:
            raise PackError("The pack was not saved: " + "; ".join(f"{p.pointer} {p.message}" for p in problems[:3]))
        ids: dict[str, str] = {}
        for document in self.documents():
            other = ids.get(document.dungeon.id)
            if other is not None:
                raise PackError(
                    f"The pack was not saved: two dungeons have the id '{document.dungeon.id}' ({other}); "
                    "change one in the Inspector"
                )
            ids[document.dungeon.id] = document.dungeon.sheet.title
        for document in self.documents():
            path = Path(document.path) if document.path is not None else None
            if document.modified or path is None or not path.exists():
                if path is not None:
                    try:
                        path.parent.mkdir(parents=True, exist_ok=True)
                    except OSError as exc:
                        raise PackError(f"The pack was not saved: {path.parent} cannot be made ({exc})") from exc
                if not save_dungeon(document):
                    raise PackError(f"The pack was not saved: '{document.dungeon.sheet.title}' could not be written")
        assert self.manifest_path is not None
        try:
            try:
                write_json_atomic(self.manifest_path, data)
            except WriteRefused as refused:
                if refused.reason != "read-only" or replace_read_only is None:
                    raise
                if not replace_read_only(self.manifest_path):
                    raise PackError(f"{self.manifest_path} is read-only and was left as it is.") from refused
                write_json_atomic(self.manifest_path, data, force=True)
        except OSError as exc:
            raise PackError(
                f"{self.manifest_path} could not be written: {exc.strerror or exc}. The file on disk is unchanged."
            ) from exc
        self.manifest = data
        self.mark_saved()
        return data


__all__ = [
    "ABSENT",
    "DESCRIPTION_MAX",
    "MANIFEST_FIELDS",
    "MANIFEST_ORDER",
    "NAME_MAX",
    "VERSION_PATTERN",
    "PackChange",
    "PackDocument",
    "PackEntry",
    "PackError",
    "check_field",
]
