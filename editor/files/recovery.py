"""Recovery files of the editor: what autosave writes, what is offered after a crash, and the
session locks that tell a crashed editor from a running one (DESIGN.md "Editor": periodic
autosave with a recovery prompt; issue #17: nothing piles up in the folder).

Recovery files live in ``<generic data location>/inkcrawl/recovery`` (``~/.local/share`` on
Linux, honouring ``XDG_DATA_HOME``), one per modified dungeon (:func:`recovery_record`). Each
editor window is a *session* holding a lock file (``QLockFile``) there; the recovery files of a
session whose lock is stale (its process died) or whose window is gone without closing are
offered (:func:`orphaned_recovery_entries`). Stale locks (:func:`remove_stale_locks`) and the
temporary files of autosaves killed in the middle of a write (:func:`remove_stale_temporaries`)
are removed when an editor starts. :class:`editor.files.manager.FileManager` drives all this.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QStandardPaths, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
)

from editor.dungeon.document import DungeonDocument
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import Ruleset

#: ``type`` member of a recovery file.
RECOVERY_TYPE = "inkcrawl-recovery"

# Sessions (editor windows) alive in this process: their recovery files are never offered.
_LIVE_SESSIONS: set[str] = set()


# recovery files ------------------------------------------------------------------------------
def recovery_dir() -> Path:
    """The folder of recovery files (made if missing): ``inkcrawl/recovery`` under the
    platform's generic data location."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    folder = Path(base or Path.home() / ".local" / "share") / "inkcrawl" / "recovery"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class RecoveryEntry:
    """One autosaved dungeon found at start-up: the recovery ``file``, the dungeon's ``title``,
    its ``original_path`` (``None`` for a dungeon never saved), when it was autosaved
    (``saved_at``, local time text), the ``session`` that wrote it and the whole ``record``."""

    file: Path
    title: str
    original_path: Path | None
    saved_at: str
    session: str
    record: dict = field(repr=False)

    @property
    def dungeon_text(self) -> str:
        """The dungeon's canonical JSON text exactly as autosaved."""
        return self.record["dungeon_text"]


def recovery_record(document: DungeonDocument, session: str, with_text: bool = True) -> dict:
    """What a recovery file holds for ``document``: the canonical dungeon text, the file it
    belongs to, the time, the ruleset (whole, so a pack's own ruleset comes back) and deck.
    Without ``with_text`` the ``dungeon_text`` member is left out (the background worker adds it,
    see :func:`editor.dungeon.background.write_recovery_file`)."""
    record = {
        "type": RECOVERY_TYPE,
        "version": 1,
        "session": session,
        "pid": os.getpid(),
        "saved_at": time.strftime("%Y-%m-%d %H:%M:%S"),
        "saved_at_epoch": time.time(),
        "original_path": str(document.path) if document.path is not None else None,
        "title": document.dungeon.sheet.title or document.dungeon.id,
        "ruleset": document.ruleset.data,
        "ruleset_path": str(document.ruleset.path) if document.ruleset.path is not None else None,
        "deck": document.deck,
    }
    if with_text:
        record["dungeon_text"] = document.canonical_text()
    return record


def read_recovery_file(path: Path) -> RecoveryEntry | None:
    """The entry of a recovery file, or ``None`` when it is not one (unreadable, damaged)."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(record, dict)
        or record.get("type") != RECOVERY_TYPE
        or not isinstance(record.get("dungeon_text"), str)
        or not isinstance(record.get("ruleset"), dict)
    ):
        return None
    original = record.get("original_path")
    if not isinstance(record.get("saved_at_epoch", 0), (int, float)) or isinstance(record.get("saved_at_epoch"), bool):
        record["saved_at_epoch"] = 0  # entries are sorted by it
    return RecoveryEntry(
        Path(path),
        str(record.get("title") or "Untitled"),
        Path(original) if isinstance(original, str) and original else None,
        str(record.get("saved_at", "")),
        str(record.get("session", "")),
        record,
    )


def _session_is_dead(folder: Path, session: str) -> bool:
    """Whether the editor session that wrote recovery files is gone: not a window of this
    process, and its lock file is stale (its process ended) or missing."""
    if session in _LIVE_SESSIONS:
        return False
    lock = QLockFile(str(folder / f"{session}.lock"))
    lock.setStaleLockTime(0)  # stale only when the owning process is gone
    if lock.tryLock(0):
        lock.unlock()  # removes the lock file
        return True
    return False


def remove_stale_locks(folder: Path | None = None) -> list[Path]:
    """Remove the session lock files (``*.lock``) in the recovery folder whose editor process is
    gone (killed, crashed): a lock is stale when ``QLockFile`` finds its process id no longer
    running on this machine (or running another program). Locks of live editors, of this
    process's windows and of other machines are kept. Returns the files removed; never raises
    (issue #17: nothing piles up in the folder)."""
    folder = folder or recovery_dir()
    removed: list[Path] = []
    try:
        candidates = sorted(folder.glob("*.lock"))
    except OSError:
        return removed
    for path in candidates:
        if path.stem in _LIVE_SESSIONS or path.name.endswith(".rmlock"):
            continue
        lock = QLockFile(str(path))
        lock.setStaleLockTime(0)  # stale only when the owning process is gone, never by age
        if lock.tryLock(0):
            lock.unlock()  # removes the file
            removed.append(path)
    return removed


_TEMPORARY = re.compile(r"\.(.+)\.inkcrawl-\d+-[A-Za-z0-9_]+\.tmp")


def remove_stale_temporaries(folder: Path | None = None) -> list[Path]:
    """Remove the temporary files that autosaves killed in the middle of a write left in the
    recovery folder (each recovery file has a name of its own, so no later write of the same
    file would find them): only files named as :func:`inkcrawl.jsonio.atomic_target` names its
    own, whose writing process is gone and that are older than this process (see
    :func:`inkcrawl.jsonio.remove_stale_temporaries`). Returns the files removed; never raises."""
    from inkcrawl.jsonio import remove_stale_temporaries as remove_beside

    folder = folder or recovery_dir()
    removed: list[Path] = []
    try:
        names = {m.group(1) for p in folder.iterdir() if (m := _TEMPORARY.fullmatch(p.name))}
    except OSError:
        return removed
    for name in sorted(names):
        removed += remove_beside(folder / name)
    return removed


def orphaned_recovery_entries(folder: Path | None = None) -> list[RecoveryEntry]:
    """Recovery files left by editor sessions that ended without a clean close, oldest first."""
    folder = folder or recovery_dir()
    entries = []
    verdicts: dict[str, bool] = {}
    for path in sorted(folder.glob("*.json")):
        entry = read_recovery_file(path)
        if entry is None:
            continue
        if entry.session not in verdicts:
            verdicts[entry.session] = _session_is_dead(folder, entry.session)
        if verdicts[entry.session]:
            entries.append(entry)
    entries.sort(key=lambda e: e.record.get("saved_at_epoch", 0))
    return entries


def document_from_recovery(entry: RecoveryEntry, parent: QObject | None = None) -> DungeonDocument:
    """A modified document holding exactly the autosaved dungeon, belonging to its original
    file (so Save writes there). Raises ``ValueError`` when the recovery data is damaged."""
    from editor.dungeon.document import unshowable_schema_errors
    from inkcrawl.schema import schema_problems
    from inkcrawl.validate import RulesetRegistry, enclosing_pack

    record = entry.record
    try:
        data = json.loads(entry.dungeon_text)
        # a recovery file damaged into valid JSON must not reach the canvas with values of the
        # wrong type (they crash it), nor come back with a ruleset that is not one
        wrong = unshowable_schema_errors(data) if isinstance(data, dict) else ["/: not a dungeon"]
        wrong += [
            f"ruleset {p.pointer or '/'}: {p.message}"
            for p in schema_problems(record["ruleset"], "ruleset", str(entry.file))
        ]
        if wrong:
            raise ValueError("; ".join(wrong[:3]))
        dungeon = dungeon_from_dict(data)
        ruleset_path = record.get("ruleset_path")
        ruleset = Ruleset(record["ruleset"], Path(ruleset_path) if isinstance(ruleset_path, str) else None)
        if ruleset.family != dungeon.family:
            raise ValueError(f"its ruleset is of the {ruleset.family} family, the dungeon of the {dungeon.family} one")
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError) as exc:
        raise ValueError(f"the recovery file {entry.file.name} is damaged ({exc})") from None
    extra = [ruleset]
    if entry.original_path is not None and entry.original_path.is_file():
        extra = enclosing_pack(entry.original_path)[0] + extra
    deck = record.get("deck") if isinstance(record.get("deck"), dict) else None
    document = DungeonDocument(dungeon, ruleset, entry.original_path, RulesetRegistry(extra), deck, parent)
    document.undo_stack.resetClean()  # modified: the file on disk does not hold these changes
    return document


# dialogs -------------------------------------------------------------------------------------
class RecoveryDialog(QDialog):
    """After a crash: the autosaved dungeons, ticked to recover. ``result_entries`` is the
    list to recover (empty: discard all) or ``None`` (decide at the next start)."""

    def __init__(self, entries: list[RecoveryEntry], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Recover unsaved work")
        self.entries = entries
        self.result_entries: list[RecoveryEntry] | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                "The editor did not close normally. These dungeons had unsaved changes, "
                "autosaved at the time shown. Recover the ticked ones?"
            )
        )
        self.list = QListWidget()
        for entry in entries:
            where = str(entry.original_path) if entry.original_path else "never saved"
            item = QListWidgetItem(f"{entry.title} \u2014 {where} \u2014 autosaved {entry.saved_at}")
            item.setCheckState(Qt.CheckState.Checked)
            self.list.addItem(item)
        layout.addWidget(self.list)
        buttons = QDialogButtonBox()
        recover = QPushButton("&Recover")
        discard = QPushButton("&Discard")
        later = QPushButton("Decide &Later")
        buttons.addButton(recover, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(discard, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(later, QDialogButtonBox.ButtonRole.RejectRole)
        recover.clicked.connect(self._recover)
        discard.clicked.connect(self._discard)
        later.clicked.connect(self.reject)
        layout.addWidget(buttons)

    def _recover(self) -> None:
        self.result_entries = [
            e for i, e in enumerate(self.entries) if self.list.item(i).checkState() == Qt.CheckState.Checked
        ]
        self.accept()

    def _discard(self) -> None:
        answer = QMessageBox.question(self, "Discard recovered work", "Delete the autosaved changes for good?")
        if answer == QMessageBox.StandardButton.Yes:
            self.result_entries = []
            self.accept()
