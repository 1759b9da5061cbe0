"""Worker processes (inkcrawl/workers.py): jobs run in other processes, in order, with their
errors; a worker that dies (mid-job, mid-reply, between jobs) fails only the job it ran and is
replaced; a pool that cannot start or may not restart says it is broken."""

from __future__ import annotations

import os
import signal
import struct
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from inkcrawl.workers import RemoteTraceback, WorkerDied, WorkerPool, can_fork
from tests.waiting import wait_until

START = "fork" if can_fork() else "spawn"


def _square(x):
    return x * x


def _pid():
    return os.getpid()


def _die():
    os.kill(os.getpid(), signal.SIGKILL)


def _fail():
    raise ValueError("a job's own error")


def _die_mid_reply():
    from multiprocessing.connection import Connection

    def send_the_start_and_die(connection, data):
        os.write(connection.fileno(), struct.pack("!i", 1000))  # the header of a reply, then nothing
        os.kill(os.getpid(), signal.SIGKILL)

    Connection.send_bytes = send_the_start_and_die
    return "never arrives"


def _remember(value):
    global _KEPT
    _KEPT = value


def _recall():
    return globals().get("_KEPT")


def _cannot_start():
    raise RuntimeError("no start today")


@pytest.fixture
def pool():
    pool = WorkerPool(2, start=START, name="test-pool")
    yield pool
    pool.terminate()


def test_jobs_run_in_other_processes_in_order(pool):
    assert pool.ready(30)
    assert sorted(pool.pids()) == sorted(set(pool.pids())) and len(pool.pids()) == 2
    assert os.getpid() not in pool.pids()
    assert list(pool.map(_square, range(20), chunksize=3)) == [x * x for x in range(20)]
    assert list(pool.map(_square, range(5))) == [0, 1, 4, 9, 16]
    assert pool.submit(_pid).result(30) in pool.pids()


def test_a_jobs_error_comes_back_with_its_traceback(pool):
    with pytest.raises(ValueError, match="a job's own error") as caught:
        pool.submit(_fail).result(30)
    assert isinstance(caught.value.__cause__, RemoteTraceback) and "_fail" in str(caught.value.__cause__)
    assert pool.submit(_square, 3).result(30) == 9  # the worker goes on


def test_a_worker_that_dies_mid_job_fails_that_job_and_is_replaced(pool):
    with pytest.raises(WorkerDied):
        pool.submit(_die).result(30)
    assert isinstance(WorkerDied(), BrokenProcessPool)
    assert pool.submit(_square, 4).result(30) == 16
    assert pool.deaths == 1 and not pool.broken
    assert pool.ready(30) and len(pool.pids()) == 2


def test_a_worker_that_dies_mid_reply_never_leaves_its_job_waiting(pool):
    started = time.perf_counter()
    with pytest.raises(WorkerDied):
        pool.submit(_die_mid_reply).result(30)
    assert time.perf_counter() - started < 20
    assert pool.submit(_square, 5).result(30) == 25


def test_a_worker_killed_between_jobs_is_replaced(pool):
    assert pool.ready(30)
    for pid in pool.pids():
        os.kill(pid, signal.SIGKILL)
    assert pool.submit(_square, 6).result(30) == 36  # runs in a new worker, does not fail
    assert pool.ready(30) and len(pool.pids()) == 2


def test_a_worker_keeps_its_state_between_jobs():
    with WorkerPool(1, start=START) as pool:
        pool.submit(_remember, "kept").result(30)
        assert pool.submit(_recall).result(30) == "kept"


def test_a_pool_that_may_not_restart_breaks_when_a_worker_dies():
    pool = WorkerPool(1, start=START, restart=False)
    try:
        first, second = pool.submit(_die), pool.submit(_square, 2)
        for future in (first, second):
            with pytest.raises(BrokenProcessPool):
                future.result(30)
        assert pool.broken
        with pytest.raises(BrokenProcessPool):
            pool.submit(_square, 2)
    finally:
        pool.terminate()


def test_a_worker_that_cannot_start_breaks_the_pool():
    pool = WorkerPool(1, start=START, initializer=_cannot_start)
    try:
        assert not pool.ready(30) and pool.broken
        with pytest.raises(BrokenProcessPool, match="no start today"):
            pool.submit(_square, 2)
    finally:
        pool.terminate()


def test_spawned_workers_and_shutdown():
    pool = WorkerPool(1, start="spawn")
    assert pool.submit(_square, 7).result(60) == 49
    pids = pool.pids()
    pool.shutdown()
    assert pool.pids() == [] and pids
    with pytest.raises(RuntimeError):
        pool.submit(_square, 2)


def test_terminate_stops_running_jobs_and_cancels_waiting_ones():
    pool = WorkerPool(1, start=START)
    running = pool.submit(time.sleep, 30)
    waiting = pool.submit(_square, 2)
    assert pool.ready(30)
    wait_until(running.running, "the worker to take the first job")  # running, not waiting: terminate stops it
    started = time.perf_counter()
    pool.terminate()
    assert time.perf_counter() - started < 10
    with pytest.raises(WorkerDied):
        running.result(1)
    assert waiting.cancelled()


def test_a_process_running_qt_is_never_forked():
    import subprocess
    import sys

    code = (
        "import sys, inkcrawl.workers as w; before = w.qt_running(); "
        "from PySide6.QtWidgets import QApplication; app = QApplication([]); "
        "sys.exit(0 if not before and w.qt_running() and not w.fork_is_safe() else 1)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    )
    assert result.returncode == 0, result.stdout + result.stderr
