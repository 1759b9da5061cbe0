"""Files in the editor: New (from a ruleset template), Open, Open Recent, Save, Save As, the
unsaved-changes prompt, autosave to recovery files and the recovery prompt after a crash
(DESIGN.md "Editor": safe saves, periodic autosave with a recovery prompt).

:func:`install` gives the window a :class:`FileManager` as ``window.files``. Everything that
would open a dialog goes through a *seam*, an attribute of the window that tests (or another
front end) replace:

- ``window.ask_new_dungeon(rulesets) -> (ruleset, title) | (ruleset, title, (columns, rows)) | None``
  (the dialog starts at :meth:`FileManager.new_defaults`: the open pack's ruleset and grid size)
- ``window.ask_open_path() -> Path | None`` and ``window.ask_open_folder() -> Path | None``
- ``window.ask_save_path(document) -> Path | None``
- ``window.ask_recover(entries) -> list of entries to restore, or None to decide later``
- ``window.ask_replace_read_only(path) -> bool``: Save met a read-only file; ``True`` replaces it
- ``window.show_file_message(level, title, text)`` with ``level`` ``"info"``, ``"warning"`` or ``"error"``

Recovery files live in ``<generic data location>/inkcrawl/recovery`` (``~/.local/share`` on
Linux, honouring ``XDG_DATA_HOME``). Each modified dungeon has one, rewritten atomically every
:attr:`FileManager.autosave_interval_ms` when it changed; it holds the dungeon's canonical JSON
text, its file, the time, the ruleset and deck. A clean save, closing the dungeon, undoing back
to the saved state and a normal quit delete it. Each editor window is a *session* holding a
lock file (``QLockFile``) in the same folder; at start-up, recovery files of sessions whose lock
is stale (the process died) or whose window is gone without closing are offered for recovery, and
stale locks are removed, with the temporary files of autosaves killed in the middle of a write
(:mod:`editor.files.recovery`, whose functions this module also offers).

Save writes through the safe-write path (:func:`inkcrawl.jsonio.write_text_atomic`): a symlinked
file stays a link (the file it points to gets the new content); a read-only file is replaced only
when the user says so (``window.ask_replace_read_only``).
"""

from __future__ import annotations

import json
import uuid
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

import shiboken6
from PySide6.QtCore import QLockFile, QObject, QTimer
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QMenu,
    QMessageBox,
)

from editor.dungeon.document import DungeonDocument, new_document
from editor.dungeon.templates import slug, template_data
from editor.files.recovery import (  # noqa: F401 - the recovery API, also reached through this module
    _LIVE_SESSIONS,
    RECOVERY_TYPE,
    RecoveryDialog,
    RecoveryEntry,
    document_from_recovery,
    orphaned_recovery_entries,
    read_recovery_file,
    recovery_dir,
    recovery_record,
    remove_stale_locks,
    remove_stale_temporaries,
)
from editor.settings import settings
from inkcrawl.jsonio import WriteRefused, write_text_atomic
from inkcrawl.rulesets import Ruleset, bundled_rulesets, load_ruleset_file

#: Settings key of the recent files list (strings, most recent first).
RECENT_KEY = "files/recent"
#: How many recent files File > Open Recent keeps.
MAX_RECENT = 10
#: Default time between autosaves, in ms (the issue's 30 s).
AUTOSAVE_INTERVAL_MS = 30_000


# recent files --------------------------------------------------------------------------------
def recent_files() -> list[str]:
    """The recent files kept in the settings, most recent first (at most :data:`MAX_RECENT`)."""
    value = settings().value(RECENT_KEY, [])
    if isinstance(value, str):  # QSettings gives a one-item list back as a string
        value = [value] if value else []
    return [str(v) for v in (value or []) if v][:MAX_RECENT]


def _store_recent(paths: list[str]) -> None:
    stored = settings()
    stored.setValue(RECENT_KEY, paths[:MAX_RECENT])
    stored.sync()


def remember_recent(path: str | Path) -> list[str]:
    """Put ``path`` (made absolute) first in the recent files; returns the new list."""
    text = str(Path(path).absolute())
    paths = [text] + [p for p in recent_files() if p != text]
    _store_recent(paths)
    return paths[:MAX_RECENT]


def forget_recent(path: str | Path) -> list[str]:
    """Remove ``path`` from the recent files; returns the new list."""
    text = str(Path(path).absolute())
    paths = [p for p in recent_files() if p != text]
    _store_recent(paths)
    return paths


# the manager ---------------------------------------------------------------------------------
class FileManager(QObject):
    """The window's file commands, recent files, autosave and recovery (``window.files``).

    ``autosave_interval_ms`` (default :data:`AUTOSAVE_INTERVAL_MS`) is read each time the timer
    is started; :meth:`set_autosave_interval` changes it at once. ``session`` names this
    window's recovery files.
    """

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.session = uuid.uuid4().hex[:16]
        self.folder = recovery_dir()
        self.autosave_interval_ms = AUTOSAVE_INTERVAL_MS
        self._recovery: dict[int, Path] = {}  # id(document) -> its recovery file
        self._autosaved: dict[int, int] = {}  # id(document) -> revision autosaved
        self._watched: dict[int, DungeonDocument] = {}
        #: id(document) -> (its background write in flight, its target, the revision written)
        self._writing: dict[int, tuple[Future, Path, int]] = {}
        self._counter = 0
        self._closed = False
        _LIVE_SESSIONS.add(self.session)
        # locks of editors killed without a recovery file to offer would stay forever: the
        # recovery check removes those it looks at, this every other stale one
        remove_stale_locks(self.folder)
        remove_stale_temporaries(self.folder)
        self.lock = QLockFile(str(self.folder / f"{self.session}.lock"))
        self.lock.setStaleLockTime(0)
        self.lock.tryLock(0)
        session, lock = self.session, self.lock

        def gone(*_args):  # the window went away without closing: its files stay for recovery
            _LIVE_SESSIONS.discard(session)
            lock.unlock()

        window.destroyed.connect(gone)
        self.autosave_timer = QTimer(self)
        self.autosave_timer.timeout.connect(self.autosave_in_background)
        self.autosave_timer.start(self.autosave_interval_ms)
        window.documents_changed.connect(self._documents_changed)

    # seams' default implementations ------------------------------------------------------
    def ask_new_dungeon(self, rulesets: list[Ruleset]):
        """Ask for the family, ruleset, grid size and title of a new dungeon, starting at
        :meth:`new_defaults`: ``(ruleset, title, (columns, rows))`` or ``None``."""
        dialog = NewDungeonDialog(rulesets, self.window, self.new_defaults(rulesets))
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.choice()

    def ask_open_path(self) -> Path | None:
        """Ask for a dungeon file or a pack manifest to open."""
        start = recent_files()[0] if recent_files() else str(Path.cwd())
        chosen, _ = QFileDialog.getOpenFileName(
            self.window, "Open dungeon or pack", str(Path(start).parent), "Dungeons and packs (*.json);;All files (*)"
        )
        return Path(chosen) if chosen else None

    def ask_open_folder(self) -> Path | None:
        """Ask for a content pack folder to open."""
        chosen = QFileDialog.getExistingDirectory(self.window, "Open pack folder", str(Path.cwd()))
        return Path(chosen) if chosen else None

    def save_start(self, document: DungeonDocument) -> Path:
        """Where the Save dialog starts for ``document``: its own file; for a new dungeon, in
        the open pack's folder (its ``dungeons`` folder when the pack has one), else in the
        folder of the last file opened, else the working folder."""
        if document.path is not None:
            return document.path
        if self.window.pack_path is not None:
            folder = Path(self.window.pack_path).parent
            if (folder / "dungeons").is_dir():
                folder = folder / "dungeons"
        else:
            folder = Path(recent_files()[0]).parent if recent_files() else Path.cwd()
        return folder / f"{document.dungeon.id}.json"

    def ask_save_path(self, document: DungeonDocument) -> Path | None:
        """Ask where to save ``document`` (Save As, or Save of a new dungeon), starting at
        :meth:`save_start`."""
        start = self.save_start(document)
        chosen, _ = QFileDialog.getSaveFileName(self.window, "Save dungeon", str(start), "Dungeon files (*.json)")
        return Path(chosen) if chosen else None

    def ask_recover(self, entries: list[RecoveryEntry]):
        """Ask which autosaved dungeons to recover: a list (possibly empty: discard them all)
        or ``None`` to decide at the next start. Without a screen (offscreen, screenshots)
        nothing is asked and the files are kept."""
        if not _has_screen():
            return None
        dialog = RecoveryDialog(entries, self.window)
        dialog.exec()
        return dialog.result_entries

    def ask_replace_read_only(self, path: Path, what: str = "this dungeon", elsewhere: str = "with Save As") -> bool:
        """Ask whether to replace ``path``, a read-only file, with ``what`` (the dungeon being
        saved; a playtest's play file or sheet): a dialog whose default keeps the file; ``True``
        only for its explicit **Replace Anyway**. ``elsewhere`` says how to save it elsewhere
        instead. The file stays read-only after being replaced. Headless (no one to answer):
        ``False``."""
        if self.window.headless:
            return False
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Read-only file",
            f"{path} is read-only.",
            QMessageBox.StandardButton.NoButton,
            self.window,
        )
        box.setInformativeText(
            f"Someone (perhaps you) protected it from changes. Replace it with {what} anyway? "
            "It stays read-only afterwards. Keep it to leave the file as it is and save elsewhere "
            f"{elsewhere}."
        )
        replace = box.addButton("&Replace Anyway", QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton("&Keep the File", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        box.exec()
        return box.clickedButton() is replace

    def show_file_message(self, level: str, title: str, text: str) -> None:
        """Tell the user something about files (``level``: info, warning or error)."""
        self.window.tell(level, title, text)

    # commands ----------------------------------------------------------------------------
    def available_rulesets(self) -> list[Ruleset]:
        """The rulesets a new dungeon can use: the bundled ones, then those of the open pack and
        the open dungeons (a pack's ruleset replaces a bundled one with the same id)."""
        from inkcrawl.jsonio import read_json_file
        from inkcrawl.validate import path_inside_pack

        found: dict[str, Ruleset] = dict(bundled_rulesets())
        for document in self.window.documents:
            found[document.ruleset.id] = document.ruleset
        manifest_path = self.window.pack_path
        if manifest_path is not None and Path(manifest_path).is_file():
            manifest, problems = read_json_file(Path(manifest_path))
            if not problems and isinstance(manifest, dict):
                for relative in manifest.get("rulesets", []):
                    target = (
                        path_inside_pack(Path(manifest_path).parent, relative) if isinstance(relative, str) else None
                    )
                    ruleset = load_ruleset_file(target)[0] if target is not None and target.is_file() else None
                    if ruleset is not None:
                        found[ruleset.id] = ruleset
        return list(found.values())

    def new_dungeon(self) -> DungeonDocument | None:
        """File > New: ask for a ruleset and title, then open a new, unsaved dungeon made from
        the ruleset's template (:func:`editor.dungeon.templates.template_data`)."""
        choice = self.window.ask_new_dungeon(self.available_rulesets())
        if not choice:
            return None
        ruleset, title, *size = choice
        return self.create_document(ruleset, title, size[0] if size else None)

    def new_defaults(self, rulesets: list[Ruleset]) -> NewDefaults:
        """What File > New starts at: the open pack's ruleset (else the current dungeon's, else
        the first offered) and, for a grid ruleset, the size of the pack's (or the current)
        grid dungeon, else the ruleset's board."""
        from inkcrawl.jsonio import read_json_file

        wanted = None
        if self.window.pack_path is not None and Path(self.window.pack_path).is_file():
            manifest, problems = read_json_file(Path(self.window.pack_path))
            if not problems and isinstance(manifest, dict) and isinstance(manifest.get("ruleset"), str):
                wanted = manifest["ruleset"]
        if wanted is None and self.window.current is not None:
            wanted = self.window.current.ruleset.id
        ruleset = next((r for r in rulesets if r.id == wanted), rulesets[0] if rulesets else None)
        size = None
        if ruleset is not None and ruleset.family == "grid":
            grids = [d for d in self.window.documents if d.dungeon.family == "grid" and d.ruleset.id == ruleset.id]
            if self.window.current in grids:
                grids.insert(0, self.window.current)
            if grids:
                size = (grids[0].dungeon.grid.columns, grids[0].dungeon.grid.rows)
            else:
                board = ruleset.data.get("board", {})
                size = (int(board.get("columns", 7)), int(board.get("rows", 7)))
        return NewDefaults(ruleset.id if ruleset is not None else None, size)

    def create_document(
        self, ruleset: Ruleset, title: str = "", size: tuple[int, int] | None = None
    ) -> DungeonDocument:
        """Open a new dungeon of ``ruleset`` titled ``title`` (its id made from the title,
        unique among the open dungeons), a grid one of ``size`` ``(columns, rows)`` when given.
        It has no file until saved."""
        from inkcrawl.validate import RulesetRegistry

        title = title.strip() or "Untitled Dungeon"
        data = template_data(ruleset, title, self.unused_id(title), size)
        pack_rulesets = [d.ruleset for d in self.window.documents] + [ruleset]
        document = new_document(data, ruleset, RulesetRegistry(pack_rulesets), self.window)
        self.window.add_document(document)
        self.window.show_status(
            f"New {ruleset.family} dungeon \u201c{title}\u201d ({ruleset.id}): Save (Ctrl+S) asks for a file"
        )
        return document

    def unused_id(self, title: str) -> str:
        """A dungeon id made from ``title`` (:func:`editor.dungeon.templates.slug`), unique among
        the open dungeons (``-2``, ``-3``... appended when taken)."""
        taken = {d.dungeon.id for d in self.window.documents}
        base = slug(title)
        dungeon_id, number = base, 2
        while dungeon_id in taken:
            dungeon_id, number = f"{base}-{number}", number + 1
        return dungeon_id

    def open_generated(self, data: dict, ruleset: Ruleset, note: str = "") -> DungeonDocument:
        """Open the dungeon document ``data`` (made by File > Generate with ``ruleset``) as a
        new, unsaved dungeon, as :meth:`create_document` does: its id is made from its title,
        unique among the open dungeons. ``note`` (what was generated) goes to the status bar."""
        from inkcrawl.validate import RulesetRegistry

        data = dict(data, id=self.unused_id(str(data.get("sheet", {}).get("title") or "Generated Dungeon")))
        pack_rulesets = [d.ruleset for d in self.window.documents] + [ruleset]
        document = new_document(data, ruleset, RulesetRegistry(pack_rulesets), self.window)
        self.window.add_document(document)
        title = document.dungeon.sheet.title
        self.window.show_status(
            f"Generated {ruleset.family} dungeon \u201c{title}\u201d ({ruleset.id}"
            + (f"; {note}" if note else "")
            + "): Save (Ctrl+S) asks for a file"
        )
        return document

    def open_dialog(self) -> bool:
        """File > Open: ask for a dungeon file or pack manifest and open it."""
        path = self.window.ask_open_path()
        return self.open_file(path) if path else False

    def open_folder_dialog(self) -> bool:
        """File > Open Pack Folder: ask for a pack folder and open its dungeons."""
        path = self.window.ask_open_folder()
        return self.open_file(path) if path else False

    def open_file(self, path: str | Path) -> bool:
        """Open a dungeon file, pack folder or manifest and put it first in the recent files.
        A path that no longer exists is removed from the recent files, with a message."""
        path = Path(path)
        if not path.exists():
            forget_recent(path)
            self._rebuild_recent_menu()
            self.window.show_file_message(
                "warning", "File not found", f"{path} no longer exists; it was removed from the recent files."
            )
            return False
        if not self.window.open_path(path):
            return False
        remember_recent(path)
        self._rebuild_recent_menu()
        return True

    def save_document(self, document: DungeonDocument, ask_path: bool = False) -> bool:
        """Save a dungeon atomically (asking for a file when it has none, or with
        ``ask_path``): ``True`` when saved. On failure the message says why, the file on
        disk is unchanged and the dungeon stays modified. Replaces ``window.save_document``
        so the close prompt's Save goes through the same path."""
        path = document.path
        if path is None or ask_path:
            chosen = self.window.ask_save_path(document)
            if not chosen:
                return False
            path = Path(chosen)
            if not path.suffix:
                path = path.with_suffix(".json")
            for other in self.window.documents:
                if other is not document and other.path is not None and other.path.absolute() == path.absolute():
                    self.window.show_file_message(
                        "warning",
                        "Not saved",
                        f"{path} is open as another dungeon; close it first or choose another file.",
                    )
                    return False
        try:
            try:
                document.save(path)
            except WriteRefused as refused:
                if refused.reason != "read-only":
                    raise
                if not self.window.ask_replace_read_only(path):
                    self.window.show_status(f"Not saved: {path} is read-only and was left as it is")
                    return False
                document.save(path, force=True)
        except OSError as exc:
            self.window.show_file_message(
                "error",
                "Not saved",
                f"{path} could not be written: {exc.strerror or exc}.\n"
                "The file on disk is unchanged and your changes are still open.",
            )
            return False
        remember_recent(path)
        self._rebuild_recent_menu()
        self.discard_recovery(document)
        self.window.show_status(f"Saved {path}")
        return True

    def save_current(self, ask_path: bool = False) -> bool:
        """File > Save (or Save As with ``ask_path``) of the current dungeon."""
        if self.window.current is None:
            return False
        return self.window.save_document(self.window.current, ask_path)

    # recent files menu -------------------------------------------------------------------
    def _make_recent_menu(self) -> QMenu:
        menu = QMenu("Open &Recent", self.window)
        menu.setObjectName("recent_files")
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(self._rebuild_recent_menu)
        return menu

    def _rebuild_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        paths = recent_files()
        for number, text in enumerate(paths, 1):
            label = f"&{number} {Path(text).name}" if number < 10 else f"1&0 {Path(text).name}"
            action = menu.addAction(label)
            action.setToolTip(text)
            action.setStatusTip(text)
            action.setData(text)
            action.triggered.connect(lambda _=False, t=text: self.open_file(t))
        if paths:
            menu.addSeparator()
        clear = menu.addAction("&Clear Recent Files")
        clear.setEnabled(bool(paths))
        clear.triggered.connect(lambda: (_store_recent([]), self._rebuild_recent_menu()))
        menu.setEnabled(True)

    def recent_actions(self) -> list[QAction]:
        """The actions of the Open Recent submenu, one per recent file, in menu order."""
        self._rebuild_recent_menu()
        return [a for a in self.recent_menu.actions() if a.data()]

    # autosave and recovery ---------------------------------------------------------------
    def set_autosave_interval(self, ms: int) -> None:
        """Autosave every ``ms`` milliseconds from now on."""
        self.autosave_interval_ms = int(ms)
        self.autosave_timer.start(self.autosave_interval_ms)

    def recovery_file(self, document: DungeonDocument) -> Path | None:
        """The recovery file of an open dungeon, if it has one on disk."""
        path = self._recovery.get(id(document))
        return path if path is not None and path.exists() else None

    def autosave_now(self) -> list[Path]:
        """Write a recovery file for each modified dungeon changed since its last autosave
        (atomically, on this thread, after any background write of it ended); returns the files
        written. Failures are shown in the status bar only."""
        return self._autosave(background=False)

    def autosave_in_background(self) -> list[Path]:
        """What the autosave timer runs: as :meth:`autosave_now`, but a big dungeon (one whose
        validation goes to the background worker, see ``DungeonDocument.BACKGROUND_AFTER_MS``)
        is serialised and written by the worker (:func:`editor.dungeon.background.write_recovery_file`)
        from a snapshot, so the UI thread only takes the snapshot. Returns the files written
        here; a dungeon whose background write is still running waits for the next autosave."""
        return self._autosave(background=True)

    def _autosave(self, background: bool) -> list[Path]:
        if self._closed:
            return []
        if self.autosave_timer.interval() != self.autosave_interval_ms:
            self.autosave_timer.start(self.autosave_interval_ms)
        written = []
        live = self.live_documents()
        for key in [key for key in self._recovery if key not in {id(d) for d in live}]:
            document = self._watched.pop(key, None)
            if document is not None:
                self.discard_recovery(document)
        for document in live:
            key = id(document)
            if not document.modified:
                self.discard_recovery(document)
                continue
            if background and key in self._writing:
                continue  # still writing the previous snapshot: the next autosave takes this one
            self._settle(key)
            if self._autosaved.get(key) == document.revision and self.recovery_file(document) is not None:
                continue
            target = self._recovery.get(key)
            if target is None:
                self._counter += 1
                target = self.folder / f"{self.session}-{self._counter}.json"
            if background and document.validation_ms >= document.BACKGROUND_AFTER_MS:
                if self._write_in_background(document, target):
                    continue
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                write_text_atomic(
                    target, json.dumps(recovery_record(document, self.session), indent=1, ensure_ascii=False) + "\n"
                )
            except OSError as exc:
                self.window.show_status(f"Autosave failed for {document.display_name}: {exc.strerror or exc}")
                continue
            self._recovery[key] = target
            self._autosaved[key] = document.revision
            written.append(target)
        return written

    def _write_in_background(self, document: DungeonDocument, target: Path) -> bool:
        """Hand a snapshot of ``document`` to the background worker to write as ``target``;
        ``False`` when the worker cannot take it (the caller writes it here)."""
        from editor.dungeon.background import shared_background, snapshot, write_recovery_file

        key, revision = id(document), document.revision
        record = recovery_record(document, self.session, with_text=False)
        data = snapshot(document.dungeon)
        name = document.display_name

        def done(future: Future) -> None:
            if not shiboken6.isValid(self):
                return
            current = self._writing.get(key)
            if current is None or current[0] is not future:
                # settled meanwhile (saved, closed, written again here): a file it wrote after
                # its recovery file was given up must not linger
                if self._recovery.get(key) != target:
                    target.unlink(missing_ok=True)
                return
            del self._writing[key]
            if not self._finished_write(key, name, future, target, revision):
                self.autosave_now()  # no worker to be had: the recovery file is written here

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            future = shared_background().submit(done, write_recovery_file, str(target), record, data)
        except (RuntimeError, OSError, ValueError):
            return False
        self._recovery[key] = target
        self._writing[key] = (future, target, revision)
        return True

    def _finished_write(self, key: int, name: str, future: Future, target: Path, revision: int) -> bool:
        """Note a background write that ended (on the UI thread); ``False`` when the worker did
        not do it (it died, or the job never ran), so the caller writes the file itself."""
        try:
            future.result(timeout=0)
        except OSError as exc:
            self.window.show_status(f"Autosave failed for {name}: {exc.strerror or exc}")
            return True  # the disk refused: writing it here would fail the same way
        except Exception:
            return False
        self._autosaved[key] = revision
        return True

    #: Longest wait for a background write before a save, close or autosave goes on without it (s).
    SETTLE_TIMEOUT_S = 30.0

    def _settle(self, key: int) -> None:
        """Wait for the background write of document ``key`` to end (so nothing it writes later
        overtakes a newer file or a deletion) and take note of it."""
        job = self._writing.pop(key, None)
        if job is None:
            return
        future, target, revision = job
        try:
            future.result(timeout=self.SETTLE_TIMEOUT_S)
        except FutureTimeout:
            pass  # noted below as not finished; what it writes later is removed if given up
        except Exception:
            pass  # its failure is reported below
        document = self._watched.get(key)
        name = document.display_name if document is not None else "a dungeon"
        self._finished_write(key, name, future, target, revision)

    def discard_recovery(self, document: DungeonDocument) -> None:
        """Delete the recovery file of ``document`` (saved, back to its saved state, or closed)."""
        key = id(document)
        self._settle(key)
        path = self._recovery.pop(key, None)
        self._autosaved.pop(key, None)
        if path is not None:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                self.window.show_status(f"Could not remove the recovery file {path}: {exc.strerror or exc}")

    def live_documents(self) -> list[DungeonDocument]:
        """The documents autosave keeps recovery files for: the open ones, and the dungeons
        removed from the pack whose documents the pack's undo history holds (their unsaved
        edits must survive a crash too)."""
        documents = list(self.window.documents)
        browser = self.window.pack_browser
        for entry in getattr(browser, "removed", ()) if browser is not None else ():
            document = entry.document
            if document is not None and shiboken6.isValid(document) and document not in documents:
                documents.append(document)
                self._watched.setdefault(id(document), document)
        return documents

    def _documents_changed(self) -> None:
        open_ids = {id(d) for d in self.live_documents()}
        for key in list(self._watched):
            if key not in open_ids:
                document = self._watched.pop(key)
                self.discard_recovery(document)
        for document in self.window.documents:
            if id(document) not in self._watched:
                self._watched[id(document)] = document
                document.undo_stack.cleanChanged.connect(
                    lambda clean, d=document, s=self.session: self._became_clean(d, s) if clean else None
                )

    def _became_clean(self, document: DungeonDocument, session: str) -> None:
        # Back to the saved state: the recovery file is not needed. A window being destroyed
        # without closing (its undo stacks emit cleanChanged as they are cleared) keeps them.
        if session in _LIVE_SESSIONS and not self._closed and document in self.window.documents:
            self.discard_recovery(document)

    def closed_cleanly(self) -> None:
        """The window closed normally (the user saved or discarded every change): stop
        autosaving and delete this session's recovery files and lock."""
        self._closed = True
        self.autosave_timer.stop()
        for key in list(self._writing):
            self._settle(key)
        for key in list(self._recovery):
            document = self._watched.get(key)
            if document is not None:
                self.discard_recovery(document)
            else:
                path = self._recovery.pop(key)
                path.unlink(missing_ok=True)
        for path in self.folder.glob(f"{self.session}-*.json"):
            path.unlink(missing_ok=True)
        self.lock.unlock()
        _LIVE_SESSIONS.discard(self.session)

    def check_recovery(self) -> list[DungeonDocument]:
        """Offer the dungeons autosaved by editor sessions that crashed (through
        ``window.ask_recover``) and open the chosen ones as modified dungeons; returns them.
        Files of entries not chosen are deleted; with ``None`` (decide later) all are kept."""
        entries = orphaned_recovery_entries(self.folder)
        if not entries:
            return []
        chosen = self.window.ask_recover(entries)
        if chosen is None:
            return []
        chosen_files = {c.file for c in chosen}
        restored = []
        problems = []
        for entry in entries:
            if entry.file in chosen_files:
                try:
                    restored.append(self.restore(entry))
                except ValueError as exc:
                    problems.append(str(exc))
                    try:
                        entry.file.replace(entry.file.with_suffix(".damaged"))
                    except OSError as move_error:
                        problems.append(f"{entry.file} could not be set aside: {move_error.strerror or move_error}")
                    continue
            entry.file.unlink(missing_ok=True)
        if restored:
            self.autosave_now()  # the recovered work is safe again at once
            self.window.show_status(f"Recovered {len(restored)} dungeon(s): save them to keep the changes")
        if problems:
            self.window.show_file_message(
                "warning", "Recovery", "Some dungeons could not be recovered:\n\n" + "\n".join(problems)
            )
        return restored

    def restore(self, entry: RecoveryEntry) -> DungeonDocument:
        """Open one recovered dungeon as a modified document (or put the recovered model into the
        unmodified open dungeon of the same file). Raises ``ValueError`` for damaged data."""
        for document in self.window.documents:
            if (
                entry.original_path is not None
                and document.path is not None
                and not document.modified
                and document.path.absolute() == entry.original_path.absolute()
            ):
                fresh = document_from_recovery(entry)
                document.replace_model(fresh.dungeon)
                document.undo_stack.resetClean()
                fresh.deleteLater()
                self.window.set_current(document)
                return document
        document = document_from_recovery(entry, self.window)
        self.window.add_document(document)
        return document

    def restore_layout(self, geometry: bool = True, state: bool = True) -> None:
        """Put the window back as it was when last closed (size, position, docks and tool
        bars: the settings ``window/geometry`` and ``window/state``)."""
        stored = settings()
        if geometry and stored.value("window/geometry") is not None:
            self.window.restoreGeometry(stored.value("window/geometry"))
        if state and stored.value("window/state") is not None:
            self.window.restoreState(stored.value("window/state"))

    def _startup(self) -> None:
        if _has_screen():  # after every feature module made its docks
            self.restore_layout(geometry=False)
        self.check_recovery()


def _has_screen() -> bool:
    """False on the offscreen platform (tests, ``--screenshot``): no user layout to restore
    there, so screenshots and tests get the default layout."""
    return QGuiApplication.platformName() not in ("offscreen", "minimal")


# dialogs -------------------------------------------------------------------------------------
@dataclass
class NewDefaults:
    """Where File > New starts: a ruleset id and, for a grid ruleset, ``(columns, rows)``."""

    ruleset: str | None
    size: tuple[int, int] | None = None


class NewDungeonDialog(QDialog):
    """File > New: pick the family, then a ruleset of it (bundled, or the open pack's), the grid
    size for the grid family, and type a title; starts at ``defaults`` (the open pack's)."""

    def __init__(self, rulesets: list[Ruleset], parent=None, defaults: NewDefaults | None = None):
        from editor.panels.grid_dialogs import MAX_SIDE
        from editor.panels.ruleset_picker import RulesetPicker

        super().__init__(parent)
        self.setWindowTitle("New dungeon")
        self.rulesets = rulesets
        defaults = defaults or NewDefaults(None)
        chosen = next((r for r in rulesets if r.id == defaults.ruleset), None)
        form = QFormLayout(self)
        self.picker = RulesetPicker(rulesets, chosen, defaults.size, MAX_SIDE, self)
        self.family_box, self.ruleset_box = self.picker.family_box, self.picker.ruleset_box
        self.columns, self.rows, self.size_row = self.picker.columns, self.picker.rows, self.picker.size_row
        self.title_edit = QLineEdit("Untitled Dungeon")
        self.title_edit.selectAll()
        form.addRow("&Family:", self.family_box)
        form.addRow("&Ruleset:", self.ruleset_box)
        form.addRow("&Grid size:", self.size_row)
        form.addRow("&Title:", self.title_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.picker.changed.connect(self._ruleset_changed)
        self._ruleset_changed()

    def _ruleset_changed(self) -> None:
        ruleset = self.ruleset()
        self.size_row.setEnabled(ruleset is not None and ruleset.family == "grid")

    def ruleset(self) -> Ruleset | None:
        """The ruleset chosen now."""
        return self.picker.ruleset()

    def choice(self) -> tuple[Ruleset, str, tuple[int, int] | None]:
        """The chosen ruleset, title and grid size (``None`` for the line family)."""
        ruleset = self.ruleset()
        size = self.picker.size() if ruleset.family == "grid" else None
        return ruleset, self.title_edit.text(), size


# installation --------------------------------------------------------------------------------
def install(window) -> FileManager:
    """Connect File > New, Open, Save and Save As, add Open Pack Folder and Open Recent, start
    autosave, restore the window layout and, once the window runs, offer crash recovery. The
    window keeps the manager as ``window.files`` and routes its file seams (``ask_save_path``,
    ``save_document``...) and its close hook to it."""
    manager = FileManager(window)
    a = window.action
    a("new").triggered.connect(lambda: manager.new_dungeon())
    a("open").triggered.connect(lambda: manager.open_dialog())
    a("save").triggered.connect(lambda: manager.save_current())
    a("save_as").triggered.connect(lambda: manager.save_current(ask_path=True))

    file_menu = window.menu("File")
    open_folder = window.make_action(
        "open_folder",
        "Open &Pack Folder\u2026",
        "Ctrl+Shift+O",
        "Open every dungeon of a content pack folder",
        manager.open_folder_dialog,
    )
    manager.open_folder_action = open_folder
    manager.recent_menu = manager._make_recent_menu()
    after_open = _action_after(file_menu, a("open"))
    file_menu.insertAction(after_open, open_folder)
    file_menu.insertMenu(after_open, manager.recent_menu)
    file_menu.insertSeparator(after_open)
    manager._rebuild_recent_menu()

    if _has_screen():
        manager.restore_layout(state=False)  # before the window shows; docks come in _startup
    manager.startup_timer = QTimer(manager)
    manager.startup_timer.setSingleShot(True)
    manager.startup_timer.timeout.connect(manager._startup)
    manager.startup_timer.start(0)
    return manager


def _action_after(menu, action):
    actions = menu.actions()
    index = actions.index(action)
    return actions[index + 1] if index + 1 < len(actions) else None
