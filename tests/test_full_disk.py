"""Nothing lost on a full disk (issue 17): every writing command, run on a real file system with
no space left (a 1 MiB tmpfs filled to the last byte), fails with "No space left on device"
naming its output, exit 2, the old target intact and no temporary file left.

Mounting a tmpfs needs root (or CAP_SYS_ADMIN): elsewhere the tests are skipped, saying so.
The writers and their arguments are those of tests/test_kill_writers.py."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from test_kill_writers import WRITERS, _env, _prepare, _temporaries

#: The size of the file system the writers write to.
SIZE = "1m"


@pytest.fixture(scope="module")
def disk(tmp_path_factory) -> Path:
    """A 1 MiB tmpfs mounted for this module, unmounted after it."""
    if not sys.platform.startswith("linux"):
        pytest.skip("needs Linux to mount a small tmpfs")
    folder = tmp_path_factory.mktemp("full-disk")
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a {SIZE} tmpfs to fill: {exc}")
    if mounted.returncode != 0:
        reason = mounted.stderr.strip() or f"exit {mounted.returncode}"
        pytest.skip(f"cannot mount a {SIZE} tmpfs to fill (needs root or CAP_SYS_ADMIN): {reason}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True, timeout=30).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


def _fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte with one file; returns it."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    assert os.statvfs(folder).f_bavail == 0
    return filler


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_writer_on_a_full_disk_says_so_and_keeps_the_old_target(disk, name):
    for path in disk.iterdir():
        path.unlink()
    writer = WRITERS[name]
    argv, target, old = _prepare(disk, writer)
    filler = _fill(disk)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "inkcrawl", *argv],
            cwd=REPO,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "Traceback" not in run.stderr, run.stderr
        assert run.returncode == 2, run.stderr
        if name == "migrate":
            line = f"{target}: error: not rewritten, cannot write the file: No space left on device\n"
        else:
            line = f"inkcrawl {argv[0]}: error: cannot write {target}: No space left on device\n"
        assert run.stderr.endswith(line), run.stderr
        assert target.read_bytes() == old
        assert _temporaries(disk) == []
    finally:
        filler.unlink()
