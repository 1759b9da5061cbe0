"""One open dungeon: its model, undo stack, file and live validation (DESIGN.md "Editor").

:class:`DungeonDocument` owns the model (:class:`inkcrawl.model.Dungeon`) and a
``QUndoStack``; every change goes through :meth:`DungeonDocument.push` as an undo command
wrapping one Qt-free edit of :mod:`editor.dungeon.edits`. Views listen to :attr:`DungeonDocument.changed`
(the references of the objects touched) and never change the model themselves.
"""

from __future__ import annotations

import copy
import time
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from editor.dungeon.edits import Edit, key_shared_ids, locate, ref_of
from inkcrawl.jsonio import dumps_canonical, write_text_atomic
from inkcrawl.model import Dungeon, dungeon_from_dict
from inkcrawl.problems import Problem
from inkcrawl.rulesets import Ruleset
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

_MERGE_IDS: dict[str, int] = {}


def _merge_id(key: str | None) -> int:
    if key is None:
        return -1
    return _MERGE_IDS.setdefault(key, len(_MERGE_IDS) + 1)


class EditCommand(QUndoCommand):
    """The undo command of one :class:`editor.dungeon.edits.Edit` on a document. Edits with the same
    merge key merge (a drag, a run of typing), as Qt's ``mergeWith`` protocol asks.

    The command refers to its document weakly: the document owns the undo stack, which owns
    the command, so a strong reference back would make a cycle that only Python's garbage
    collector frees, tearing the Python side apart in any order while Qt still holds the
    commands (a segmentation fault in ``QUndoStack::clear``)."""

    def __init__(self, document: DungeonDocument, edit: Edit):
        super().__init__(edit.text)
        self._document = weakref.ref(document)
        self.edit = edit

    @property
    def document(self) -> DungeonDocument | None:
        """The document the command edits (``None`` once it is gone)."""
        return self._document()

    def redo(self) -> None:
        document = self.document
        if document is not None:
            self.edit.redo(document.dungeon)
            document.model_changed(self.edit.refs)

    def undo(self) -> None:
        document = self.document
        if document is not None:
            self.edit.undo(document.dungeon)
            document.model_changed(self.edit.refs)

    def id(self) -> int:
        return _merge_id(self.edit.merge_key)

    def mergeWith(self, other: QUndoCommand) -> bool:
        return isinstance(other, EditCommand) and self.edit.merge(other.edit)


@dataclass
class LocatedProblem:
    """A validation problem and the reference of the object it names (``None`` for the
    dungeon as a whole or its sheet data)."""

    problem: Problem
    ref: str | None


def ref_for_pointer(dungeon: Dungeon, pointer: str) -> str | None:
    """The reference of the object a JSON pointer such as ``/elements/3/at`` lies in, or
    ``None`` when it points at the dungeon or its sheet."""
    parts = pointer.split("/")
    if len(parts) < 3 or parts[1] not in ("areas", "walls", "elements", "passages", "entryways", "features"):
        return None
    try:
        return ref_of(getattr(dungeon, parts[1])[int(parts[2])])
    except (ValueError, IndexError, AttributeError):
        return None


class DungeonDocument(QObject):
    """An open dungeon.

    ``dungeon`` is the model, ``ruleset`` its ruleset, ``path`` its file (``None`` until saved),
    ``undo_stack`` the edits. Signals: ``changed(set)`` with the references touched by an edit
    (``"sheet"`` for sheet data and grid size), ``problems_changed(list)`` with
    :class:`LocatedProblem` items after each (debounced) validation, ``path_changed()``.

    Validation after an edit waits :attr:`VALIDATION_DELAY_MS` of quiet, then runs
    (:meth:`validate_in_background`) in the editor's background worker process when the last one
    took :attr:`BACKGROUND_AFTER_MS` or more, so a big dungeon's checks never hold the UI thread;
    its answer is applied only if nothing changed since its snapshot (``generation``).
    :meth:`validate_now` is the synchronous entry point (F7, opening, tests).
    """

    changed = Signal(object)
    problems_changed = Signal(object)
    path_changed = Signal()

    #: Quiet time after the last edit before validation runs again, in ms.
    VALIDATION_DELAY_MS = 120
    #: A dungeon whose last validation took this long (ms) or longer is validated in the background
    #: worker (:mod:`editor.dungeon.background`); a quicker one in place, which beats the round trip.
    BACKGROUND_AFTER_MS = 12.0

    def __init__(
        self,
        dungeon: Dungeon,
        ruleset: Ruleset,
        path: Path | None = None,
        registry: RulesetRegistry | None = None,
        deck: dict[str, int] | None = None,
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self.dungeon = dungeon
        key_shared_ids(dungeon)  # objects sharing an id are addressed by their own keys
        self.ruleset = ruleset
        self.path = Path(path) if path is not None else None
        self.registry = registry or RulesetRegistry([ruleset])
        self.deck = deck
        self.undo_stack = QUndoStack(self)
        self.problems: list[LocatedProblem] = []
        #: Time of the last validation in ms (in the background: from the snapshot to the answer).
        self.validation_ms = 0.0
        #: UI-thread time of the last validation in ms (all of it in place; the snapshot and the
        #: applying of the answer in the background).
        self.validation_ui_ms = 0.0
        self.revision = 0
        # (model, revision, {refs: answer}) of :meth:`locate`: its answers until the next change
        self._located: tuple[Dungeon | None, int, dict[frozenset[str], tuple[dict, bool]]] = (None, -1, {})
        #: Counts every change validation depends on (edits, the checks' context): a background
        #: answer computed at an older generation is stale and dropped.
        self.generation = 0
        #: Background answers dropped because the model changed while they were computed.
        self.stale_results = 0
        self._pending: Future | None = None
        self._validated_generation = -1  # the generation the problems shown belong to
        #: What to tell the user on opening (members of the file saving would drop), or "".
        self.open_warning = ""
        #: What ``inkcrawl validate`` reports on the file as it is on disk that the model cannot
        #: show (a ``format_version`` of "3", a migration): listed until the file is saved.
        self.file_problems: list[Problem] = []
        #: Problems of the dungeon among the others it is opened with (a pack's P003 and P004),
        #: asked at each validation; the window sets it for the dungeons of a pack.
        self.context_problems: Callable[[], list[Problem]] = list
        self._validate_timer = QTimer(self)
        self._validate_timer.setSingleShot(True)
        self._validate_timer.setInterval(self.VALIDATION_DELAY_MS)
        self._validate_timer.timeout.connect(self.validate_in_background)

    # editing -----------------------------------------------------------------------------
    def push(self, edit: Edit) -> None:
        """Apply ``edit`` and put it on the undo stack (it may merge with the previous one)."""
        self.undo_stack.push(EditCommand(self, edit))

    def model_changed(self, refs: set[str]) -> None:
        """Tell views the objects ``refs`` changed and schedule validation (called by commands)."""
        self.revision += 1
        self.generation += 1
        self.changed.emit(set(refs))
        self._validate_timer.start()

    def locate(self, refs: Iterable[str]) -> tuple[dict[str, tuple[str, int, Any]], bool]:
        """:func:`editor.dungeon.edits.locate` on the model as it is now: ``ref -> (collection,
        index, object)`` for the objects of ``refs`` that exist, and whether one of them is
        shared by two objects. The answer is remembered until the model changes (``revision``):
        the views following an edit (canvas, inspector) and the edit a selection makes next ask
        for the same objects, and each walk over a 100 x 100 grid's 10,000 passages costs about
        a millisecond. The dictionary returned is the caller's own. For the views and the
        window only: an edit changing the model looks objects up itself (with
        :func:`editor.dungeon.edits.locate`), as the model changes before ``revision`` does."""
        wanted = frozenset(refs)
        model, revision, answers = self._located
        if model is not self.dungeon or revision != self.revision:
            answers = {}
            self._located = (self.dungeon, self.revision, answers)
        answer = answers.get(wanted)
        if answer is None:
            if len(answers) >= 8:  # a few sets of objects are asked for per revision
                answers.clear()
            answer = answers[wanted] = locate(self.dungeon, wanted)
        return dict(answer[0]), answer[1]

    def schedule_validation(self) -> None:
        """Validate again a moment from now (something it is checked against changed)."""
        self.generation += 1
        self._validate_timer.start()

    # files -------------------------------------------------------------------------------
    @property
    def display_name(self) -> str:
        """The file name, or the dungeon's title for an unsaved dungeon."""
        return self.path.name if self.path is not None else (self.dungeon.sheet.title or self.dungeon.id)

    @property
    def modified(self) -> bool:
        """Whether there are edits since the last save (or since opening)."""
        return not self.undo_stack.isClean()

    def canonical_text(self) -> str:
        """The dungeon as inkcrawl writes it: canonical JSON, byte-stable."""
        return dumps_canonical(self.dungeon.to_dict())

    def save(self, path: Path | None = None, force: bool = False) -> Path:
        """Write the dungeon atomically (temporary file, then replace) to ``path`` or its own
        file, and mark the undo stack clean. A symlink stays a link (the file it points to is
        written). Raises ``ValueError`` without a path, :class:`inkcrawl.jsonio.WriteRefused`
        (an ``OSError``) for a read-only file unless ``force`` (the user said to replace it; it
        stays read-only), a folder or a special file, and ``OSError`` when the file cannot be
        written; the old file is then untouched."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("the dungeon has no file yet: choose one with Save As")
        write_text_atomic(target, self.canonical_text(), force=force)
        if self.file_problems:
            self.file_problems = []  # the file on disk is the model's data now
            self.schedule_validation()
        if target != self.path:
            self.path = target
            self.path_changed.emit()
        self.undo_stack.setClean()
        return target

    def snapshot(self) -> Dungeon:
        """A deep copy of the model (for autosave, thumbnails and background work)."""
        return copy.deepcopy(self.dungeon)

    def replace_model(self, dungeon: Dungeon) -> None:
        """Replace the whole model (reload, recovery) and clear the undo history."""
        self.dungeon = dungeon
        key_shared_ids(dungeon)
        self.undo_stack.clear()
        self.model_changed({"*"})

    # validation --------------------------------------------------------------------------
    @property
    def file_label(self) -> str:
        """The file name problems are reported against."""
        return str(self.path) if self.path is not None else f"{self.dungeon.id}.json (unsaved)"

    def validate_now(self) -> list[LocatedProblem]:
        """Run every check of ``inkcrawl validate`` (schema, then rules) on the current model,
        on this thread, emit ``problems_changed`` and return the problems with the object each
        names. An answer of the background worker still on its way is then dropped as stale."""
        self._validate_timer.stop()
        self.generation += 1
        started = time.perf_counter()
        problems, _ = check_dungeon_data(self.dungeon.to_dict(), self.file_label, self.registry, self.deck)
        self.validation_ms = (time.perf_counter() - started) * 1000
        self._validated_generation = self.generation
        self._publish(problems)
        self.validation_ui_ms = (time.perf_counter() - started) * 1000
        if self.validation_ms >= self.BACKGROUND_AFTER_MS:
            from editor.dungeon.background import shared_background

            shared_background().start()  # the next validations go there: have it ready
        return self.problems

    def validate_in_background(self) -> bool:
        """Validate the model as it is now without holding the UI thread: a snapshot
        (:func:`editor.dungeon.background.snapshot`) goes to the background worker
        (:func:`editor.dungeon.background.validate_data`) and ``problems_changed`` is emitted
        when its answer arrives, unless the model changed meanwhile (the answer is then dropped
        and the new model validated). Returns ``True`` when the work went to the worker; a
        dungeon quicker to check than :attr:`BACKGROUND_AFTER_MS` is validated at once instead
        (:meth:`validate_now`), as is any dungeon when the worker cannot take the job."""
        from editor.dungeon.background import shared_background, snapshot, validate_data

        self._validate_timer.stop()
        if self.validation_ms < self.BACKGROUND_AFTER_MS:
            self.validate_now()
            return False
        if self._pending is not None and not self._pending.done():
            return True  # one job at a time: the answer comes back stale and this one follows it
        started = time.perf_counter()
        generation = self.generation
        data = snapshot(self.dungeon)
        snapshot_ms = (time.perf_counter() - started) * 1000
        me = weakref.ref(self)

        def arrived(future: Future) -> None:
            document = me()
            if document is not None and shiboken6.isValid(document):
                document._background_answer(future, generation, started, snapshot_ms)

        try:
            self._pending = shared_background().submit(
                arrived, validate_data, data, self.file_label, self.registry, self.deck
            )
        except (RuntimeError, OSError, ValueError):  # no worker to be had (a broken pool...)
            self.validate_now()
            return False
        return True

    def _background_answer(self, future: Future, generation: int, started: float, snapshot_ms: float) -> None:
        """A background validation finished (on the UI thread): apply it if still current."""
        if future is self._pending:
            self._pending = None
        if generation != self.generation:
            self.stale_results += 1
            if not self._validate_timer.isActive() and self._validated_generation != self.generation:
                self.validate_in_background()  # the model as it is now
            return
        try:
            problems = future.result(timeout=0)
        except Exception:  # the worker died or failed: check here once, nothing is lost
            self.validate_now()
            return
        applying = time.perf_counter()
        self.validation_ms = (applying - started) * 1000
        self._validated_generation = generation
        self._publish(problems)
        self.validation_ui_ms = snapshot_ms + (time.perf_counter() - applying) * 1000

    def _publish(self, problems: list[Problem]) -> None:
        """Add the file and context problems to the model's, locate each and emit them."""
        problems = list(problems)
        seen = {(p.code, p.pointer, p.message) for p in problems}
        for extra in [*self.file_problems, *self.context_problems()]:
            if (extra.code, extra.pointer, extra.message) not in seen:
                seen.add((extra.code, extra.pointer, extra.message))
                problems.append(extra)
        self.problems = [LocatedProblem(p, ref_for_pointer(self.dungeon, p.pointer)) for p in problems]
        self.problems_changed.emit(self.problems)


#: JSON Schema error kinds that leave values the canvas, the inspector and the exporters cannot
#: work with (a text where a number belongs, a point with one coordinate, an object where a list
#: belongs, a number or text beyond the format's limits). A file with such errors is refused with the
#: list of them, never half-shown: its designer fixes them in a text editor. Every other schema
#: error (a missing list, an unknown kind, a member not allowed for a kind...) opens and is listed
#: in the Problems panel.
UNSHOWABLE_SCHEMA_ERRORS = frozenset(
    {
        "Type",
        "MinItems",
        "MaxItems",
        "AdditionalItems",
        "UnevaluatedItems",
        "AnyOf",
        "OneOfNotValid",
        "OneOfMultipleValid",
        "Not",
        "Contains",
        "MinProperties",
        "MaxProperties",
        # numbers beyond the format's range, texts beyond its lengths: the exporters' layout work
        # grows with them (a room 10^9 mm tall or a title of a million letters takes them minutes)
        "Minimum",
        "Maximum",
        "ExclusiveMinimum",
        "ExclusiveMaximum",
        "MaxLength",
    }
)


def _absent_members(original, kept, pointer: str = "") -> list[str]:
    """JSON pointers of the members of ``original`` that ``kept`` (the model's own data) does
    not hold: what saving would drop."""
    out: list[str] = []
    if isinstance(original, dict) and isinstance(kept, dict):
        for key, value in original.items():
            here = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key not in kept:
                out.append(here)
            else:
                out += _absent_members(value, kept[key], here)
    elif isinstance(original, list) and isinstance(kept, list):
        for index, value in enumerate(original):
            if index >= len(kept):
                out.append(f"{pointer}/{index}")
            else:
                out += _absent_members(value, kept[index], f"{pointer}/{index}")
    return out


def unshowable_schema_errors(data) -> list[str]:
    """The schema errors of dungeon data (a file, migrated) the editor cannot show (see
    :data:`UNSHOWABLE_SCHEMA_ERRORS`), one line each, ``pointer: message``. A missing
    collection (``areas``, ``passages``...) is fine: the model starts it empty."""
    from inkcrawl.schema import json_pointer, schema_validator

    refusals = []
    for error in schema_validator("dungeon").iter_errors(data):
        kind = type(error.kind).__name__
        path = list(error.instance_path)
        # a side, family or area kind outside the format's list (the kinds of elements and
        # features come from the ruleset and are rule checks, shown and fixed in the editor)
        wrong_choice = kind in ("Enum", "Constant") and path != ["format_version"]
        # a member missing from an object (a label without its text height): the model has no
        # value to draw; only whole collections may be missing
        missing = kind == "Required" and not (path == [] and str(error.kind.property).strip('"') in _COLLECTIONS)
        if kind in UNSHOWABLE_SCHEMA_ERRORS or wrong_choice or missing:
            message = error.message if len(error.message) <= 200 else error.message[:197] + "..."
            refusals.append(f"{json_pointer(path) or '/'}: {message}")
    return refusals


_COLLECTIONS = ("areas", "walls", "elements", "passages", "entryways", "features")


def _lines(items: list[str], limit: int = 8) -> str:
    more = f"\n... and {len(items) - limit} more" if len(items) > limit else ""
    return "\n".join(items[:limit]) + more


def open_dungeon_file(path: Path):
    """Read and check a dungeon file for editing: ``(opened, refusal, warning)``.

    ``opened`` is the :class:`inkcrawl.loading.OpenedDungeon` (``None`` when refused);
    ``refusal`` says why it cannot be opened (unreadable, not a dungeon, an unknown ruleset,
    values the editor cannot show); ``warning`` names members of the file that the model does
    not keep, so saving would drop them (they are not part of the format). The schema is
    checked before the model is built, so a hostile file never reaches code that expects the
    right types. Never raises for bad input."""
    from inkcrawl.loading import open_dungeons
    from inkcrawl.validate import load_document as load_json

    path = Path(path)
    loaded = load_json(path)
    if loaded.file_type == "dungeon" and isinstance(loaded.data, dict):
        refusals = unshowable_schema_errors(loaded.data)
        if refusals:
            return (
                None,
                (
                    "the editor cannot show values of the wrong type, shape or size, or missing members; fix "
                    "these in a text editor (inkcrawl validate lists them too):\n" + _lines(refusals)
                ),
                "",
            )
    result = open_dungeons([str(path)])
    if not result.dungeons:
        errors = [
            f"{p.code} {p.pointer or ''} {p.message}".strip()
            for p in result.report.problems
            if p.severity.value == "error"
        ]
        return None, _lines(errors) or f"{path} holds no dungeon inkcrawl can open", ""
    opened = result.dungeons[0]
    losses = _absent_members(loaded.data, opened.dungeon.to_dict()) if isinstance(loaded.data, dict) else []
    warning = ""
    if losses:
        warning = (
            f"{path.name} holds members that are not part of the dungeon format; the editor does not keep "
            "them, so saving drops them (keep a copy if you need them):\n" + _lines(losses)
        )
    return opened, "", warning


def manifest_refusal(manifest: Path) -> str:
    """Why a pack manifest cannot be opened (its JSON Schema errors: the pack browser shows
    and writes back its members, and a member of the wrong type breaks both), or ``""``.
    An unreadable manifest, or a file that is not a pack, is refused with the reason."""
    from inkcrawl.schema import schema_problems
    from inkcrawl.validate import load_document as load_json

    loaded = load_json(Path(manifest))
    if loaded.data is None:
        return _lines([f"{p.code} {p.message}" for p in loaded.problems]) or "its pack.json cannot be read"
    if loaded.file_type != "pack" or not isinstance(loaded.data, dict):
        return f'its pack.json is not a pack (its "type" is {loaded.file_type!r})'
    problems = schema_problems(loaded.data, "pack", str(manifest))
    if not problems:
        return ""
    return "its pack.json has errors; fix them in a text editor (inkcrawl validate lists them too):\n" + _lines(
        [f"{p.pointer or '/'}: {p.message}" for p in problems]
    )


def load_document(path: Path, parent: QObject | None = None) -> tuple[DungeonDocument | None, str]:
    """Open a dungeon file as a document: ``(document, "")``, or ``(None, reason)`` when the
    file cannot be opened (see :func:`open_dungeon_file`). Never raises for bad input. The
    document's ``open_warning`` names members of the file that saving would drop."""
    from inkcrawl.validate import enclosing_pack

    opened, refusal, warning = open_dungeon_file(Path(path))
    if opened is None:
        return None, refusal
    rulesets, _ = enclosing_pack(Path(path))
    registry = RulesetRegistry(rulesets)
    document = DungeonDocument(opened.dungeon, opened.ruleset, Path(path), registry, opened.deck, parent)
    document.open_warning = warning
    return document, ""


def new_document(
    dungeon_data: dict, ruleset: Ruleset, registry: RulesetRegistry | None = None, parent: QObject | None = None
) -> DungeonDocument:
    """A new, unsaved document from dungeon data (e.g. a ruleset template)."""
    return DungeonDocument(dungeon_from_dict(dungeon_data), ruleset, None, registry, None, parent)
