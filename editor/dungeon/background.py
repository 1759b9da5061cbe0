"""Validation and autosave of big dungeons away from the editor's UI thread (issue #16).

A full validation of a 2,000-element line dungeon or a 100 x 100 grid takes 60-250 ms and writing
its recovery file (canonical JSON, then a synced atomic write) 60-300 ms: far more than one 60 Hz
frame (16 ms). The UI thread therefore takes only a snapshot of the model (:func:`snapshot`:
``Dungeon.to_dict()`` serialised with :mod:`marshal`, 4-8 ms for either; :mod:`pickle` took twice
as long on the grid's 10,000 passages) and hands it to one worker process; the answer
comes back to the UI thread as a queued Qt signal, where the document applies it only if nothing
changed since the snapshot (its ``generation``, a counter: a stale answer is dropped).

The worker is a process, not a thread: PySide6 releases Python's GIL around every Qt call, so a
busy Python thread makes each of the UI thread's Qt calls wait for the GIL again (measured: a
3 ms canvas update took 140-300 ms next to a busy thread). It is one
:class:`inkcrawl.workers.WorkerPool` process started with ``spawn`` (it shares nothing with Qt),
separate from the sheet worker so a validation never queues behind a one-second sheet render.
Both run at background priority (:func:`inkcrawl.workers.lower_priority`): on two busy cores the
scheduler gives the UI thread a core first, instead of a worker's whole time slice.
A worker that dies fails its job with :class:`inkcrawl.workers.WorkerDied`; callers then do the
work on the UI thread once, and the next job starts a new worker.

The snapshot is taken with Python's cyclic garbage collector paused: its tens of thousands of
short-lived containers are freed before the collector runs again, so a snapshot never sets off a
full collection on the UI thread (measured: 80-160 ms each on a 100 x 100 grid, every few edits).

Jobs (Qt-free, run in the worker): :func:`validate_data` and :func:`write_recovery_file`.
"""

from __future__ import annotations

import gc
import json
import marshal
import pickle
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal, Slot

from inkcrawl.jsonio import dumps_canonical, write_text_atomic
from inkcrawl.model import Dungeon
from inkcrawl.problems import Problem
from inkcrawl.validate import RulesetRegistry, check_dungeon_data
from inkcrawl.workers import WorkerPool, lower_priority


def snapshot(dungeon: Dungeon) -> bytes:
    """The dungeon's data as a job takes it (:func:`snapshot_data` reads it back):
    ``dungeon.to_dict()`` (the file's JSON data, sheet coordinates in mm) serialised with
    :mod:`marshal` (JSON's types are all it needs; the worker runs the same Python), or pickled
    should a value need more, with the cyclic garbage collector paused while its containers live
    (see the module's docstring). Raises what ``to_dict`` raises (never for a model the editor
    built)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        data = dungeon.to_dict()
        try:
            return b"M" + marshal.dumps(data)
        except ValueError:  # a value marshal cannot write
            return b"P" + pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        if collecting:
            gc.enable()


def snapshot_data(data: bytes) -> dict:
    """The dungeon data of a :func:`snapshot`."""
    body = memoryview(data)[1:]
    return marshal.loads(body) if data[:1] == b"M" else pickle.loads(body)


# jobs (run in the worker process) ------------------------------------------------------------
def validate_data(
    data: bytes, file_label: str, registry: RulesetRegistry, deck: dict[str, int] | None
) -> list[Problem]:
    """Every check of ``inkcrawl validate`` (JSON Schema, then the rules) on a :func:`snapshot`
    of a dungeon, reported against ``file_label``: the problems, as
    :func:`inkcrawl.validate.check_dungeon_data` finds them (RULES.md: every section the checks
    cover). Never raises for bad data."""
    problems, _ = check_dungeon_data(snapshot_data(data), file_label, registry, deck)
    return problems


def write_recovery_file(target: str, record: dict, data: bytes) -> str:
    """Write a recovery file atomically: ``record`` (see
    :func:`editor.files.manager.recovery_record`, without its text) with ``dungeon_text`` set
    to the canonical JSON of the dungeon of ``data`` (a :func:`snapshot`). Returns ``target``.
    Raises ``OSError`` when the file cannot be written (the old recovery file is then untouched)."""
    record = dict(record, dungeon_text=dumps_canonical(snapshot_data(data)))
    write_text_atomic(Path(target), json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return target


# the worker ----------------------------------------------------------------------------------
class _Relay(QObject):
    """Carries a finished job from the thread that notices it to the UI thread (a queued signal).

    The connection is queued even when the signal is emitted on the UI thread itself: a job can
    finish before :meth:`BackgroundWorker.submit` attaches its callback (a loaded machine may
    pause the UI thread longer than a small job takes), and the callback then runs on the thread
    that attaches it. A direct call there would reach the caller before ``submit`` returned,
    before it had recorded the job it is waiting for; queued, every answer arrives from the
    event loop, after ``submit`` returned."""

    arrived = Signal(object, object)  # (callback, future)

    def __init__(self) -> None:
        super().__init__()
        self.arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _deliver(self, on_done: Callable[[Future], None], future: Future) -> None:
        on_done(future)  # on the UI thread, where the relay lives


class BackgroundWorker:
    """One worker process for the editor's background jobs.

    :meth:`submit` queues ``function(*args)`` (module-level, arguments and result picklable)
    and calls ``on_done(future)`` **on the UI thread** when it finishes, failed or not.
    :meth:`shutdown` stops the process (also done at exit)."""

    #: Run at background priority (:func:`inkcrawl.workers.lower_priority`): jobs the designer
    #: does not wait for (validation and autosave after an edit).
    BACKGROUND = True
    #: The worker process's name.
    NAME = "inkcrawl-editor-background"

    def __init__(self) -> None:
        self._pool: WorkerPool | None = None
        self._relay: _Relay | None = None

    def _live_pool(self) -> WorkerPool:
        if self._pool is None or self._pool.broken:
            self.shutdown()
            self._pool = WorkerPool(
                1, start="spawn", initializer=lower_priority if self.BACKGROUND else None, name=self.NAME
            )
        return self._pool

    def _live_relay(self) -> _Relay:
        if self._relay is None:  # made on the UI thread (the first submit), so it delivers there
            self._relay = _Relay()
        return self._relay

    def start(self) -> None:
        """Start the worker process now, without waiting for it (a big dungeon opened: its first
        background job should not wait for Python to start)."""
        self._live_pool().ready(0)

    def submit(self, on_done: Callable[[Future], None], function, *args) -> Future:
        """Run ``function(*args)`` in the worker; ``on_done(future)`` runs on the UI thread once
        it finished. Raises ``RuntimeError`` (or ``BrokenProcessPool``) when no job can be
        queued; callers then do the work themselves."""
        relay = self._live_relay()
        future = self._live_pool().submit(function, *args)
        future.add_done_callback(lambda done: relay.arrived.emit(on_done, done))
        return future

    def pids(self) -> list[int]:
        """The process id of the worker while it runs (none before its first job)."""
        return self._pool.pids() if self._pool is not None else []

    def shutdown(self) -> None:
        """Stop the worker process; jobs not started are cancelled (their ``on_done`` still runs)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


_WORKER: BackgroundWorker | None = None


def shared_background() -> BackgroundWorker:
    """The process-wide background worker (one process for every open dungeon)."""
    global _WORKER
    if _WORKER is None:
        _WORKER = BackgroundWorker()
    return _WORKER
