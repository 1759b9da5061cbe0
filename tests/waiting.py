"""Waiting in tests for something to happen, never for a fixed time: a fixed sleep is too short
on a loaded machine and wasted time on an idle one."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import TextIO

#: How long a test waits for a process or a worker before it fails. Generous: on a loaded CI
#: machine start-up takes many times longer than at rest, and waiting ends as soon as the
#: condition holds.
PATIENCE_S = 120.0


def wait_until(
    condition: Callable[[], object], what: str, timeout: float = PATIENCE_S, interval: float = 0.02
) -> object:
    """Poll ``condition()`` until it returns something true (returned) or ``timeout`` seconds
    pass (``AssertionError`` naming ``what``)."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")
        time.sleep(interval)


def wait_for_line(stream: TextIO, start: str, what: str, timeout: float = PATIENCE_S) -> str:
    """Read ``stream`` (a child process's stdout, in text mode) until a line starting with
    ``start`` arrives; returns it. Fails when the stream ends first (the process exited) or
    after ``timeout`` seconds. Lines read before it are dropped."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
            if line.startswith(start):
                return
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"waited {timeout:.0f} s for {what}; read so far: {seen!r}") from None
        if line is None:
            raise AssertionError(f"the stream ended before {what}; read: {seen!r}")
        if line.startswith(start):
            return line
        seen.append(line)
