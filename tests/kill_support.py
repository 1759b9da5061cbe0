"""Killing a writer at the worst moments, for the kill tests of the command line
(tests/test_kill_writers.py) and of the editor (tests/test_editor_kill.py): just before its
temporary file replaces the target (the writer stops itself with SIGSTOP there, a readiness
signal, then gets SIGKILL), and as soon as its temporary file appears."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest


def stop_before_rename_and_kill(command: list[str], cwd: Path, env: dict, what: str) -> int:
    """Run ``command`` until it stops itself (SIGSTOP) just before its temporary file replaces
    the target, then SIGKILL it; returns its process id. Fails, naming ``what`` would have been
    replaced, if it ends without stopping (a write that does not go through the safe-write path)."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        _, status = os.waitpid(process.pid, os.WUNTRACED)  # returns when it stops (or ends)
        if not os.WIFSTOPPED(status):
            process.returncode = os.waitstatus_to_exitcode(status)
            error = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
            pytest.fail(f"ended (status {process.returncode}) without replacing {what}: {error[-2000:]}")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.returncode is None:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    return process.pid


def kill_when_the_temporary_file_appears(
    command: list[str], cwd: Path, env: dict, target: Path, seconds: float
) -> bool:
    """Run ``command`` and SIGKILL it as soon as its temporary file (``.NAME.inkcrawl-PID-...``)
    is seen beside ``target``; returns whether it was (False: the write ended between two looks,
    or ``seconds`` passed)."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    prefix = f".{target.name}.inkcrawl-{process.pid}-"
    seen = False
    deadline = time.monotonic() + seconds
    try:
        while process.poll() is None and time.monotonic() < deadline:
            with os.scandir(target.parent) as entries:
                if any(entry.name.startswith(prefix) for entry in entries):
                    process.send_signal(signal.SIGKILL)
                    seen = True
                    break
            time.sleep(0.0005)  # a polling interval, not a wait for an event
    finally:
        if process.poll() is None and not seen:
            process.kill()
        process.wait(timeout=60)
    return seen
