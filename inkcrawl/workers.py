"""Worker processes: a small process pool that notices when a worker dies and replaces it.

Every part of inkcrawl that runs work in other processes goes through :class:`WorkerPool`:
validation of big packs (:mod:`inkcrawl.validate`), the SVG pages of big export jobs
(:mod:`exporters.pages`) and the editor's sheet worker (:mod:`editor.canvas.sheet_worker`). It is
Qt-free and uses only the public API of :mod:`multiprocessing` and :mod:`concurrent.futures`.

- It is a :class:`concurrent.futures.Executor`: :meth:`~WorkerPool.submit` returns a
  ``Future``, :meth:`~WorkerPool.map` takes a ``chunksize``, :meth:`~WorkerPool.shutdown`
  stops it (also at exit). Jobs and their arguments and results must pickle.
- Each worker is one process with a pipe of its own, fed one job at a time by a thread of
  this process; it keeps its module state between jobs (a worker may hold what an earlier
  job left there, as the sheet worker keeps parsed sheets).
- Workers ignore SIGINT (the parent decides when they stop: a Ctrl+C in a terminal reaches
  the whole process group) and end quietly on SIGTERM.
- **A worker that dies** (killed, out of memory, a crash), even in the middle of sending a
  reply, fails the job it was running with :class:`WorkerDied`, a
  ``concurrent.futures.process.BrokenProcessPool``; the pool starts a new worker for the jobs
  that follow (``restart=False``: the pool is broken instead, and every job waiting fails). A
  death between jobs is noticed within :data:`HEALTH_INTERVAL` seconds, or at the next job,
  which the new worker then runs (a worker says when it takes a job: a job it never took does
  not fail). A worker that cannot start twice in a row breaks the pool.
- Health: :meth:`~WorkerPool.ready` (every worker started and initialised),
  :meth:`~WorkerPool.pids` (the live workers), :attr:`~WorkerPool.broken`,
  :attr:`~WorkerPool.deaths`.
"""

from __future__ import annotations

import atexit
import collections
import itertools
import multiprocessing
import os
import pickle
import queue
import signal
import socket
import sys
import threading
import time
import traceback
import weakref
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for
from multiprocessing.process import BaseProcess
from typing import Literal

#: Seconds between two looks at an idle worker's health (a death between jobs is noticed
#: then, and the worker replaced).
HEALTH_INTERVAL = 1.0
#: Seconds a stopping worker gets to end by itself before it is killed.
STOP_GRACE = 2.0
#: Jobs sent ahead to a worker: the one it runs and the next, waiting in its pipe.
WINDOW = 2
#: Bytes a worker's pipe holds in each direction before a writer waits (the system may cap it).
PIPE_BUFFER = 4 << 20


class WorkerDied(BrokenProcessPool):
    """The worker process running a job ended before replying (killed, out of memory, crash)."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised by a job in a worker (its ``__cause__``)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return f'\n"""\n{self.text}"""'


def default_workers(limit: int = 8) -> int:
    """The number of cores this process may use, at most ``limit``."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, limit))


def can_fork() -> bool:
    """Whether worker processes can be forked here (POSIX): forked workers start at once,
    sharing what this process has imported; spawned ones start a fresh interpreter."""
    return "fork" in multiprocessing.get_all_start_methods()


def qt_running() -> bool:
    """Whether this process runs Qt (a ``QCoreApplication`` exists), asked without importing
    Qt. Such a process is never forked: Qt's threads would not survive it."""
    core = sys.modules.get("PySide6.QtCore")
    return core is not None and core.QCoreApplication.instance() is not None


def fork_is_safe() -> bool:
    """Whether workers may be forked from this process: the platform can, and Qt does not run."""
    return can_fork() and not qt_running()


#: How much lower than the editor's UI a background worker runs (POSIX niceness; on Windows the
#: "below normal" priority class). Two cores are shared by the UI thread, the sheet worker and the
#: validation and autosave worker: at equal priority the scheduler hands a worker's time slice of
#: several milliseconds to it while the UI thread waits, which shows as a stalled frame (issue #16).
BACKGROUND_NICENESS = 10


def lower_priority(niceness: int = BACKGROUND_NICENESS) -> None:
    """Run the calling process at background priority, so an interactive process on the same
    cores (the editor's UI thread) gets a core first: ``os.nice(niceness)`` on POSIX (the kernel
    then gives it about a tenth of a nice-0 process's share of a contended core), the
    ``BELOW_NORMAL_PRIORITY_CLASS`` on Windows. Meant as a :class:`WorkerPool` ``initializer``.
    Best effort: never raises (a system that refuses keeps the normal priority)."""
    try:
        if hasattr(os, "nice"):
            os.nice(niceness)
        elif sys.platform == "win32":  # pragma: no cover - Windows only
            import ctypes

            below_normal = 0x00004000
            kernel = ctypes.windll.kernel32  # type: ignore[attr-defined]
            kernel.GetCurrentProcess.restype = ctypes.c_void_p  # a pseudo-handle, pointer-sized
            kernel.SetPriorityClass.argtypes = (ctypes.c_void_p, ctypes.c_uint32)
            kernel.SetPriorityClass(kernel.GetCurrentProcess(), below_normal)
    except (OSError, AttributeError):
        pass


# --------------------------------------------------------------------------------------------
# The worker process
# --------------------------------------------------------------------------------------------


def _serve(connection, initializer, initargs, inherited: Connection | None = None) -> None:
    """A worker's life: run the initializer, say ready, then run jobs until told to stop or
    until the pipe closes (its parent ended, even killed). ``inherited``: the parent's end of
    the pipe, which a forked worker holds too and closes at once."""
    if inherited is not None:
        inherited.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a terminated worker ends quietly
    try:
        if initializer is not None:
            initializer(*initargs)
    except BaseException as exc:
        _reply(connection, ("failed", _portable(exc)))
        return
    _reply(connection, ("ready", os.getpid()))
    while True:
        try:
            message = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):
            return
        if message is None:
            return
        _reply(connection, ("started", None))  # the job is taken: from now on, a death is its failure
        function, args, kwargs = message
        try:
            reply = ("done", function(*args, **kwargs))
        except BaseException as exc:
            reply = ("raised", _portable(exc))
        _reply(connection, reply)


def _portable(exc: BaseException) -> tuple[BaseException, str]:
    """The exception and its traceback text, as something that pickles."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc, text


def _reply(connection, reply) -> None:
    try:
        data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        data = pickle.dumps(("raised", _portable(exc)), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        connection.send_bytes(data)
    except (OSError, ValueError):
        pass  # the parent is gone


# --------------------------------------------------------------------------------------------
# The pool
# --------------------------------------------------------------------------------------------


class _Job:
    __slots__ = ("future", "function", "args", "kwargs")

    def __init__(self, future: Future, function, args, kwargs):
        self.future, self.function, self.args, self.kwargs = future, function, args, kwargs


class _Worker:
    """This process's side of one worker: the process, its pipe, and the thread feeding it.

    The thread keeps up to :data:`WINDOW` jobs sent ahead (``inflight``, oldest first), so the
    worker finds its next job in its pipe without waiting for this process (whose threads may
    wait for the GIL while Qt draws). The worker says when it takes a job: if it dies, the job
    it took fails and the others go to its replacement."""

    def __init__(self, pool: WorkerPool, number: int):
        self.pool = pool
        self.number = number
        self.process: BaseProcess | None = None
        self.connection: Connection | None = None
        self.ready = threading.Event()
        self.inflight: collections.deque = collections.deque()  # [job, pickled job, taken by the worker]
        self.fruitless = 0  # deaths in a row before the worker took a job
        self.thread = threading.Thread(target=self._feed, name=f"{pool.name}-{number}", daemon=True)

    # process life ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the process (the thread waits for it to say it is ready)."""
        pool = self.pool
        with pool._start_lock:  # no other worker is forked while this one's pipe end is open here
            ours, theirs = pool._context.Pipe(duplex=True)
            for end in (ours, theirs):
                _buffer_generously(end)
            # a forked worker inherits this process's end of its pipe too: it closes it first, or
            # it would hold the pipe open itself and outlive this process when it is killed
            inherited = ours if pool._context.get_start_method() == "fork" else None
            process = pool._context.Process(
                target=_serve,
                args=(theirs, pool._initializer, pool._initargs, inherited),
                name=f"{pool.name}-{self.number}",
                daemon=True,
            )
            try:
                process.start()
            finally:
                theirs.close()  # the worker holds the only other end: its death closes the pipe
        self.ready.clear()
        self.process, self.connection = process, ours

    def _started(self) -> tuple[Connection, BaseProcess]:
        """The pipe end and the process of the worker, once :meth:`start` made them."""
        if self.connection is None or self.process is None:
            raise RuntimeError(f"{self.pool.name}-{self.number}: the worker process was never started")
        return self.connection, self.process

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def stop(self, kill: bool = False) -> None:
        """End the process: asked to stop (its pipe closed), killed after :data:`STOP_GRACE` s."""
        if self.process is None:
            return
        connection, process = self._started()
        if not kill:
            try:
                connection.send_bytes(pickle.dumps(None))
            except (OSError, ValueError):
                pass
            process.join(STOP_GRACE)
        if process.is_alive():
            process.kill()
            process.join(STOP_GRACE)
        connection.close()
        self.ready.clear()

    def _await_ready(self) -> bool:
        """Wait for the new process to say it is ready; ``False`` when it died or failed first."""
        connection, process = self._started()
        wait_for([connection, process.sentinel])
        if not connection.poll():
            return False  # the process ended without a word
        try:
            message = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError):
            return False
        if message[0] == "ready":
            self.ready.set()
            return True
        self.pool._start_failure = message[1]
        return False

    def _launch(self) -> bool:
        """Start a process and wait until it is ready; ``False`` when the pool is broken."""
        pool = self.pool
        failures = 0
        for _ in range(5):  # a worker that cannot start twice in a row breaks the pool
            if pool._closing:
                return False
            if self.process is not None:
                self.stop(kill=True)
            try:
                self.start()
            except OSError as exc:
                pool._start_failure = (exc, "")
                failures += 1
            else:
                if self._await_ready():
                    return True
                _, process = self._started()
                process.join(STOP_GRACE)
                killed = process.exitcode is not None and process.exitcode < 0
                failures += 0 if killed and pool._start_failure is None else 1  # killed while starting: again
            if failures >= 2:
                break
        pool._break(
            WorkerDied(
                f"{pool.name}: a worker process could not start"
                + (f" ({pool._start_failure[0]})" if pool._start_failure else "")
            )
        )
        return False

    def _replace(self) -> bool:
        """After this worker's death: start another, and send it the jobs the dead one had not
        taken (``False`` when the pool may not restart workers, or cannot: it is broken then)."""
        pool = self.pool
        pool._deaths += 1
        if not pool._restart:
            pool._break(WorkerDied(f"{pool.name}: the worker process stopped"))
            return False
        if not self._launch():
            return False
        for entry in self.inflight:
            self._send(entry[1])
        return True

    # the feeding thread ---------------------------------------------------------------
    def _feed(self) -> None:
        pool = self.pool
        try:
            if self.process is None or not self._await_ready():  # started by the pool, in the caller's thread
                if not self._launch():
                    return
            stopping = False
            while True:
                if not stopping:
                    stopping = self._take_jobs()
                if not self.inflight:
                    if stopping:
                        return
                    continue
                if not self._next_message() and not self._after_death():
                    return
        finally:
            self._drop_inflight()
            self.stop(kill=pool._killing)

    def _take_jobs(self) -> bool:
        """Send jobs of the pool's queue while the window has room (waiting for one only when
        none is in flight; a death between jobs is noticed meanwhile). ``True`` once told to
        stop (or when the pool broke)."""
        pool = self.pool
        while len(self.inflight) < WINDOW:
            try:
                job = pool._jobs.get_nowait() if self.inflight else pool._jobs.get(timeout=HEALTH_INTERVAL)
            except queue.Empty:
                if self.inflight:
                    return False
                if not self.alive and not pool._closing and not self._replace():  # died between jobs
                    return True
                continue
            if job is None:
                return True
            if job.future.cancelled():
                continue
            try:
                data = pickle.dumps((job.function, job.args, job.kwargs), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:
                _fail(job.future, exc)
                continue
            self.inflight.append([job, data, False])
            self._send(data)
        return False

    def _send(self, data: bytes) -> None:
        connection, _ = self._started()
        try:
            connection.send_bytes(data)
        except (OSError, ValueError):
            pass  # the worker is gone: waiting for its reply says so

    def _next_message(self) -> bool:
        """Wait for the worker's next word (it took a job, or a job's outcome) or for a new
        job in the pool's queue; ``False`` when the worker died (even halfway through a reply)."""
        connection, process = self._started()
        ready = wait_for([connection, process.sentinel, self.pool._wakeup[0]])
        if connection not in ready and process.sentinel not in ready:
            self.pool._drain_wakeup()
            return True
        if connection not in ready and not connection.poll():
            process.join(STOP_GRACE)
            return False
        try:
            kind, value = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError, ValueError):
            if process.is_alive():  # a reply we cannot read from a live worker: end it
                process.kill()
            process.join(STOP_GRACE)
            return False
        entry = self.inflight[0]
        if kind == "started":
            entry[2] = True
            self.fruitless = 0
            if not entry[0].future.running():
                entry[0].future.set_running_or_notify_cancel()  # if it was cancelled, its outcome is dropped
            return True
        self.inflight.popleft()
        future = entry[0].future
        if future.cancelled():
            return True
        if kind == "done":
            future.set_result(value)
        else:
            exc, text = value
            if text:
                exc.__cause__ = RemoteTraceback(text)
            future.set_exception(exc)
        return True

    def _after_death(self) -> bool:
        """The worker died: the job it took fails, the others go to a new worker (``False``
        when there is none)."""
        pool = self.pool
        if self.inflight and not self.inflight[0][2]:
            self.fruitless += 1
        if self.inflight and (self.inflight[0][2] or self.fruitless >= 2):  # a job that kills before it starts
            job = self.inflight.popleft()[0]
            name = getattr(job.function, "__name__", "a job")
            exitcode = self.process.exitcode if self.process is not None else None
            _fail(
                job.future,
                WorkerDied(f"{pool.name}: the worker process stopped while running {name} (exit code {exitcode})"),
            )
            self.fruitless = 0
        return self._replace()

    def _drop_inflight(self) -> None:
        """The jobs still in flight when this worker stops for good: cancelled when the pool was
        told to stop, else (the pool broke) failed."""
        while self.inflight:
            job, _, taken = self.inflight.popleft()
            if not taken and self.pool._closing and job.future.cancel():
                continue
            _fail(job.future, WorkerDied(f"{self.pool.name}: the worker process stopped"))


class WorkerPool(Executor):
    """A pool of ``workers`` processes (see the module docstring).

    ``start``: the ``multiprocessing`` start method, ``"fork"`` (fast to start, shares this
    process's imports; never fork a process that runs Qt) or ``"spawn"`` (a fresh interpreter);
    ``None`` for the platform's default. ``initializer(*initargs)`` runs once in each worker
    before its first job (a failure there breaks the pool). ``restart``: replace a worker that
    died (else the pool breaks). ``name`` names the processes and threads.
    """

    def __init__(
        self,
        workers: int = 1,
        start: Literal["fork", "spawn", "forkserver"] | None = None,
        initializer=None,
        initargs: tuple = (),
        restart: bool = True,
        name: str = "inkcrawl-worker",
    ):
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.name = name
        self._context = multiprocessing.get_context(start)
        self._initializer, self._initargs = initializer, tuple(initargs)
        self._restart = restart
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._workers = [_Worker(self, number) for number in range(1, workers + 1)]
        self._start_lock = _START_LOCK
        self._state_lock = threading.Lock()
        self._started = False
        self._closing = False
        self._killing = False
        self._broken: BrokenProcessPool | None = None
        self._start_failure: tuple[BaseException, str] | None = None
        self._deaths = 0
        self._wakeup = os.pipe()  # a byte per job submitted wakes the threads waiting on a worker
        for fd in self._wakeup:
            os.set_blocking(fd, False)
        weakref.finalize(self, _close_all, self._wakeup)
        _POOLS.add(self)

    # Executor ----------------------------------------------------------------------------
    def submit(self, fn, /, *args, **kwargs) -> Future:
        """Run ``fn(*args, **kwargs)`` in a worker; returns its ``Future``. Raises
        ``BrokenProcessPool`` when the pool is broken and ``RuntimeError`` after shutdown."""
        with self._state_lock:
            if self._broken is not None:
                raise BrokenProcessPool(str(self._broken))
            if self._closing:
                raise RuntimeError("cannot run a job after the pool was shut down")
            future: Future = Future()
            self._jobs.put(_Job(future, fn, args, kwargs))
            self._start()
        try:
            os.write(self._wakeup[1], b"\0")
        except (BlockingIOError, OSError):
            pass  # full: the threads have wake-ups enough to read
        return future

    def map(self, fn, *iterables, timeout=None, chunksize: int = 1):
        """``fn`` over the items of ``iterables`` in the workers, results in order (as
        :meth:`concurrent.futures.Executor.map`), ``chunksize`` items per job."""
        if chunksize <= 1:
            return super().map(fn, *iterables, timeout=timeout)
        items = list(zip(*iterables))
        chunks = super().map(
            _call_each,
            itertools.repeat(fn),
            [items[i : i + chunksize] for i in range(0, len(items), chunksize)],
            timeout=timeout,
        )
        return itertools.chain.from_iterable(chunks)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the workers once the jobs queued have run (``cancel_futures``: cancel those
        not started); ``wait`` for that."""
        with self._state_lock:
            if not self._closing:
                self._closing = True
                if cancel_futures:
                    self._cancel_waiting()
                for _ in self._workers:
                    self._jobs.put(None)
        if wait:
            for worker in self._workers:
                if worker.thread.is_alive() and worker.thread is not threading.current_thread():
                    worker.thread.join()

    def terminate(self) -> None:
        """Stop now: kill the workers (the jobs running fail with :class:`WorkerDied`) and
        cancel the jobs not started."""
        with self._state_lock:
            self._killing = True
        self.shutdown(wait=False, cancel_futures=True)
        for worker in self._workers:
            process = worker.process
            if process is not None and process.is_alive():
                process.kill()
        for worker in self._workers:
            if worker.thread.is_alive():
                worker.thread.join()

    # health ------------------------------------------------------------------------------
    def ready(self, timeout: float | None = None) -> bool:
        """Start the workers if they are not yet, and wait up to ``timeout`` seconds (``None``:
        as long as it takes) until every one of them runs and is initialised; ``True`` then.
        ``False`` when the pool is broken or shut down, or on timeout."""
        with self._state_lock:
            if self._broken is None and not self._closing:
                self._start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for worker in self._workers:
            while not (worker.ready.is_set() and worker.alive):  # a dead one is ready once replaced
                if self._broken is not None or self._closing:
                    return False
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                worker.ready.wait(0.05 if left is None else min(0.05, left))
                if worker.ready.is_set() and not worker.alive:
                    time.sleep(0.05 if left is None else max(0.0, min(0.05, left)))
        return self._broken is None and not self._closing

    def pids(self) -> list[int]:
        """The process ids of the workers that run now."""
        return [
            worker.process.pid
            for worker in self._workers
            if worker.alive and worker.process is not None and worker.process.pid is not None
        ]

    @property
    def broken(self) -> bool:
        """Whether the pool no longer runs jobs: a worker could not start, or one died in a
        pool that does not restart them."""
        return self._broken is not None

    @property
    def deaths(self) -> int:
        """How many times a worker died (and was replaced, if the pool restarts them)."""
        return self._deaths

    # inside --------------------------------------------------------------------------------
    def _start(self) -> None:
        """Start the workers' processes (here: a process is never forked from a helper thread
        when it can be helped) and the threads that feed them."""
        if self._started:
            return
        self._started = True
        for worker in self._workers:
            try:
                worker.start()
            except OSError:
                pass  # its thread tries again, and breaks the pool if it cannot
            worker.thread.start()

    def _drain_wakeup(self) -> None:
        try:
            os.read(self._wakeup[0], 65536)
        except (BlockingIOError, OSError):
            pass

    def _cancel_waiting(self) -> None:
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                return
            if job is not None:
                job.future.cancel()

    def _break(self, error: BrokenProcessPool) -> None:
        """No job runs any more: fail those waiting with ``error``, refuse new ones."""
        with self._state_lock:
            if self._broken is None:
                self._broken = error
            while True:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is not None:
                    _fail(job.future, type(error)(str(error)))
            for _ in self._workers:  # the other workers' threads stop too
                self._jobs.put(None)


def _buffer_generously(connection) -> None:
    """Let ``connection`` hold up to :data:`PIPE_BUFFER` bytes unread (where the system allows):
    a worker then writes a reply of a few hundred kilobytes and goes on with its next job even
    while this process's threads wait for the GIL (Qt keeps it while it draws)."""
    try:
        sock = socket.socket(fileno=os.dup(connection.fileno()))
    except (OSError, ValueError, AttributeError):
        return  # not a socket here (Windows pipes): the system's buffer it is
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, PIPE_BUFFER)
    except OSError:
        pass
    finally:
        sock.close()


def _fail(future: Future, error: BaseException) -> None:
    """End ``future`` with ``error``, unless it is done or cancelled."""
    if future.running() or (not future.done() and future.set_running_or_notify_cancel()):
        future.set_exception(error)


def _call_each(function, items) -> list:
    return [function(*item) for item in items]


def _close_all(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


#: Process starts are one at a time across pools, so no worker is forked while another's
#: pipe end is open in this process (it would keep that pipe open after the other died).
_START_LOCK = threading.Lock()
_POOLS: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for pool in list(_POOLS):
        pool.terminate()
