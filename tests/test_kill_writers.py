"""Nothing lost (issue 17): every command that writes a file, killed with SIGKILL inside its
write window, leaves its target holding either the old content or the complete new content,
never a part; and the next normal run of the same command leaves no temporary file behind.

Each writer runs as a real subprocess on the bundled content, killed twice:

- stopped (SIGSTOP, by a hook on ``os.replace`` in the child) at the moment its complete
  temporary file is about to replace the target, then killed: the target must still be the old
  one, and the temporary file beside it (``.NAME.inkcrawl-<pid>-<random>.tmp``) whole;
- killed as soon as the parent sees its temporary file appear in the folder (polling, no fixed
  sleep): whatever state the write was in, the target is old or complete. A write faster than
  the polling ends before it is seen; the invariant is asserted all the same.

Then the command runs normally: its exit code, a complete target, and no ``*.tmp`` left (the
stale ones of the killed runs are removed by :func:`inkcrawl.jsonio.remove_stale_temporaries`).
The writers of whole pack folders (``new pack``, ``import --level all``, ``generate --count``)
are killed the same way, before their hidden folder is renamed into place and as soon as it is
seen: the pack folder is absent or whole, and the next run leaves no hidden folder behind.
Last, a command killed while its worker processes play leaves none of them behind.
Skipped where there are no POSIX signals."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import FIXTURES, PACKS, REPO
from kill_support import kill_when_the_temporary_file_appears, stop_before_rename_and_kill

pytestmark = pytest.mark.skipif(
    os.name != "posix" or not hasattr(os, "WUNTRACED"), reason="needs POSIX signals (SIGKILL, SIGSTOP)"
)

TINY = REPO / "tests" / "corpus" / "valid-tiny.json"
CANDLEWICK = PACKS / "lantern-depths" / "dungeons" / "01-candlewick-cellars.json"
CINDER = PACKS / "ember-halls" / "dungeons" / "cinder-vault.json"
CRYPT = REPO / "tests" / "import_samples" / "donjon" / "crypt.json"
#: What every target holds before a run (migrate's target is its input: the old-format fixture).
OLD = b"the old content, which must survive whole\n"

#: The child: stops itself (SIGSTOP) when the temporary file (or hidden folder) is about to
#: replace the target (argv[1]), then runs the command (argv[2:]) as ``inkcrawl`` does.
_STOP_BEFORE_RENAME = """
import os, signal, sys
target = os.path.realpath(sys.argv[1])

def stopping(real):
    def rename(src, dst, *args, **kwargs):
        if os.path.realpath(dst) == target:
            os.kill(os.getpid(), signal.SIGSTOP)
        return real(src, dst, *args, **kwargs)
    return rename

os.replace, os.rename = stopping(os.replace), stopping(os.rename)
from inkcrawl.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _json(check: Callable[[dict], bool]) -> Callable[[bytes], bool]:
    def complete(data: bytes) -> bool:
        try:
            return bool(check(json.loads(data)))
        except ValueError:
            return False

    return complete


def _png(data: bytes) -> bool:
    return data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82")


def _pdf(data: bytes) -> bool:
    from io import BytesIO

    from pypdf import PdfReader

    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-1024:]:
        return False
    return len(PdfReader(BytesIO(data)).pages) >= 1


def _svg(data: bytes) -> bool:
    try:
        return ElementTree.fromstring(data).tag.endswith("svg")
    except ElementTree.ParseError:
        return False


def _html(data: bytes) -> bool:
    return data.lstrip().lower().startswith(b"<!doctype html") and data.rstrip().endswith(b"</html>")


@dataclass(frozen=True)
class Writer:
    """A writing command: its arguments in a folder, the file it writes there, what a complete
    one looks like and the exit code of a normal run."""

    argv: Callable[[Path], list[str]]
    target: str
    complete: Callable[[bytes], bool]
    status: int = 0


def _sweep_spec(folder: Path) -> str:
    spec = folder / "sweep.json"
    spec.write_text(
        json.dumps(
            {
                "type": "sweep",
                "format_version": 1,
                "dungeons": [str(PACKS / "ember-halls")],
                "only": ["cinder-vault"],
                "games": 2,
            }
        )
    )
    return str(spec)


def _old_migrate_input(folder: Path) -> str:
    return str(folder / "old.json")


WRITERS = {
    "export sheet pdf": Writer(lambda d: ["export", "sheet", str(CANDLEWICK), "-o", str(d / "t.pdf")], "t.pdf", _pdf),
    "export sheet png": Writer(lambda d: ["export", "sheet", str(CINDER), "-o", str(d / "t.png")], "t.png", _png),
    "export sheet svg": Writer(lambda d: ["export", "sheet", str(CANDLEWICK), "-o", str(d / "t.svg")], "t.svg", _svg),
    "export game": Writer(
        lambda d: ["export", "game", str(PACKS / "lantern-depths"), "-o", str(d / "t.json")],
        "t.json",
        _json(lambda v: v["type"] == "game" and len(v["dungeons"]) == 4),
    ),
    "export cards": Writer(
        lambda d: ["export", "cards", str(PACKS / "ember-halls"), "-o", str(d / "t.pdf")], "t.pdf", _pdf
    ),
    "export tiled": Writer(
        lambda d: ["export", "tiled", str(CANDLEWICK), "-o", str(d / "t.tmj")],
        "t.tmj",
        _json(lambda v: v["type"] == "map" and v["layers"]),
    ),
    "validate -o": Writer(
        lambda d: ["validate", str(PACKS / "lantern-depths"), "--format", "json", "-o", str(d / "t.json")],
        "t.json",
        _json(lambda v: v == []),
    ),
    "import -o": Writer(
        lambda d: ["import", str(CRYPT), "-o", str(d / "t.json")],
        "t.json",
        _json(lambda v: v["type"] == "dungeon" and v["areas"]),
    ),
    "migrate": Writer(
        lambda d: ["migrate", _old_migrate_input(d)], "old.json", _json(lambda v: v["format_version"] == 2)
    ),
    "par -o": Writer(
        lambda d: ["par", str(TINY), "-o", str(d / "t.play.json")],
        "t.play.json",
        _json(lambda v: v["type"] == "play" and v["dungeon"] == "tiny"),
    ),
    "simulate --heatmap": Writer(
        lambda d: ["simulate", str(CINDER), "--games", "2", "--workers", "1", "--heatmap", str(d / "t.png")],
        "t.png",
        _png,
    ),
    "sweep -o": Writer(
        lambda d: [
            "sweep",
            _sweep_spec(d),
            "--format",
            "json",
            "--workers",
            "1",
            "-o",
            str(d / "t.json"),
        ],
        "t.json",
        _json(lambda v: len(v["results"]) == 2),
    ),
    "report -o": Writer(
        lambda d: ["report", str(CINDER), "--games", "2", "--workers", "1", "-o", str(d / "t.html")],
        "t.html",
        _html,
    ),
    "new": Writer(
        lambda d: ["new", "--family", "grid", "-o", str(d / "t.json"), "--force"],
        "t.json",
        _json(lambda v: v["type"] == "dungeon" and v["family"] == "grid"),
    ),
}


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _prepare(folder: Path, writer: Writer) -> tuple[list[str], Path, bytes]:
    """The arguments, the target and its old content, written."""
    argv = writer.argv(folder)
    target = folder / writer.target
    if writer.argv is WRITERS["migrate"].argv:
        shutil.copy(FIXTURES / "dungeon-format-1.json", target)
    else:
        target.write_bytes(OLD)
    return argv, target, target.read_bytes()


def _stop_before_rename_and_kill(argv: list[str], target: Path) -> int:
    """Run the command until it stops itself just before its temporary file replaces ``target``,
    then SIGKILL it; returns its process id. Fails if it exits without reaching that moment (a
    write that does not go through the one safe-write path)."""
    command = [sys.executable, "-c", _STOP_BEFORE_RENAME, str(target), *argv]
    return stop_before_rename_and_kill(command, REPO, _env(), f"{target} ({argv[0]})")


def _kill_when_the_temporary_file_appears(argv: list[str], target: Path) -> bool:
    """Run ``inkcrawl ARGV`` and SIGKILL it as soon as its temporary file is seen beside
    ``target``; returns whether it was (False: the write ended between two looks)."""
    return kill_when_the_temporary_file_appears([sys.executable, "-m", "inkcrawl", *argv], REPO, _env(), target, 120)


#: Every kill performed, by writer and moment (printed at the end of the module with ``-s``).
KILLS: list[tuple[str, str]] = []


@pytest.fixture(scope="module", autouse=True)
def _count_kills():
    yield
    caught = sum(1 for _, moment in KILLS if moment == "temporary file seen")
    writers = len(WRITERS) + len(FOLDER_WRITERS)
    print(f"\nkill -9: {len(KILLS)} kills of {writers} writers ({caught} when the temporary file was seen)")


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_writer_killed_in_its_write_window_leaves_old_or_new_and_no_temporary_file(tmp_path, name):
    writer = WRITERS[name]
    argv, target, old = _prepare(tmp_path, writer)

    # 1. killed with its complete temporary file beside the target, just before the rename
    pid = _stop_before_rename_and_kill(argv, target)
    KILLS.append((name, "before the rename"))
    assert target.read_bytes() == old
    [left] = _temporaries(tmp_path)
    assert left.startswith(f".{target.name}.inkcrawl-{pid}-")
    assert writer.complete((tmp_path / left).read_bytes()), "the temporary file was not written whole"

    # 2. killed as soon as its temporary file is seen
    if _kill_when_the_temporary_file_appears(argv, target):
        KILLS.append((name, "temporary file seen"))
    data = target.read_bytes()
    assert data == old or writer.complete(data), data[:200]

    # 3. the next normal run writes the target whole and leaves no temporary file
    run = subprocess.run(
        [sys.executable, "-m", "inkcrawl", *argv],
        cwd=REPO,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == writer.status, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    assert writer.complete(target.read_bytes())
    assert _temporaries(tmp_path) == []


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # ended, waiting to be reaped by init


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to find the workers")
def test_the_workers_of_a_killed_command_end_with_it():
    """simulate --workers 2 killed with SIGKILL: its forked workers once stayed behind for ever,
    each holding its own pipe's other end (inherited in the fork), so it never saw the pipe close."""
    from waiting import wait_until

    process = subprocess.Popen(
        [sys.executable, "-m", "inkcrawl", "simulate", str(PACKS / "ember-halls"), "--games", "100000000"]
        + ["--workers", "2"],
        cwd=REPO,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers: list[int] = []
    try:
        assert process.stderr is not None
        first = process.stderr.readline()  # the first progress line: the workers are playing
        assert first.startswith("simulate: "), first
        workers = _children(process.pid)
        assert len(workers) == 2, workers
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        wait_until(lambda: all(_gone(pid) for pid in workers), "the workers to end after their parent was killed")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in workers:  # never leave one behind, even when the test fails
            if not _gone(pid) and b"inkcrawl" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
        if process.stderr:
            process.stderr.close()


# Writers of whole folders ----------------------------------------------------------------------
# ``new pack``, ``import --level all`` and ``generate --count`` build the pack in a hidden folder
# beside the target (``.NAME.inkcrawl-<pid>-<random>.tmp``, :func:`inkcrawl.jsonio.atomic_folder`)
# and rename it into place: killed at any moment, the target folder is absent or whole, and the
# hidden folders of killed runs are removed by the next run.


def _ldtk_project(folder: Path) -> str:
    """An LDtk project of three small levels (as tests/test_import_ldtk.py builds them)."""
    from tests.test_import_ldtk import _codes, _intgrid_layer, _level, _project, _write

    small = [_intgrid_layer("Dungeon", [2] * 4, 2, 2)]
    levels = [_level("Crypt", [_intgrid_layer("Dungeon", _codes())])]
    levels += [_level(name, small, 32, 32) for name in ("Cellar", "cellar")]
    return str(_write(folder / "world.ldtk", _project(levels)))


@dataclass(frozen=True)
class FolderWriter:
    """A command writing the pack folder ``pack`` in a folder: its arguments, the dungeon files
    its manifest lists (in order) and their family."""

    argv: Callable[[Path], list[str]]
    dungeons: list[str]
    family: str

    def complete(self, folder: Path) -> bool:
        """Whether ``folder`` is the whole pack: ``pack.json`` listing :attr:`dungeons`, each a
        readable dungeon of :attr:`family`, and no other file."""
        try:
            manifest = json.loads((folder / "pack.json").read_bytes())
            files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir())
            if manifest["type"] != "pack" or manifest["dungeons"] != self.dungeons:
                return False
            if files != sorted([*self.dungeons, "pack.json"]):
                return False
            return all(json.loads((folder / name).read_bytes())["family"] == self.family for name in self.dungeons)
        except (OSError, ValueError, KeyError, TypeError):
            return False


FOLDER_WRITERS = {
    "new pack": FolderWriter(lambda d: ["new", "pack", str(d / "pack")], ["dungeons/first-dungeon.json"], "line"),
    "import --level all": FolderWriter(
        lambda d: ["import", _ldtk_project(d), "--level", "all", "-o", str(d / "pack")],
        ["dungeons/Crypt.json", "dungeons/Cellar.json", "dungeons/cellar-2.json"],
        "line",
    ),
    "generate --count 3": FolderWriter(
        lambda d: ["generate", "--family", "grid", "--seed", "1", "--count", "3", "-o", str(d / "pack")],
        ["dungeons/pack-01.json", "dungeons/pack-02.json", "dungeons/pack-03.json"],
        "grid",
    ),
}


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_a_folder_writer_killed_in_its_window_leaves_no_half_pack_and_no_hidden_folder(tmp_path, name):
    writer = FOLDER_WRITERS[name]
    argv = writer.argv(tmp_path)
    target = tmp_path / "pack"
    others = sorted(p.name for p in tmp_path.iterdir())  # the command's inputs

    # 1. killed with its whole hidden folder beside the target, just before the rename
    pid = _stop_before_rename_and_kill(argv, target)
    KILLS.append((name, "before the rename"))
    assert not target.exists()  # no pack, not half of one
    [left] = _hidden(tmp_path)
    assert left.startswith(f".pack.inkcrawl-{pid}-") and left.endswith(".tmp")
    assert writer.complete(tmp_path / left), "the hidden folder was not written whole"

    # 2. killed as soon as its hidden folder is seen
    if _kill_when_the_temporary_file_appears(argv, target):
        KILLS.append((name, "temporary file seen"))
    assert not target.exists() or writer.complete(target)
    shutil.rmtree(target, ignore_errors=True)  # a new pack folder is refused where one exists

    # 3. the next normal run writes the pack whole and removes the hidden folders of the killed runs
    run = subprocess.run(
        [sys.executable, "-m", "inkcrawl", *argv], cwd=REPO, env=_env(), capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    assert writer.complete(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*others, "pack"])  # nothing hidden left


def test_new_pack_into_an_existing_empty_folder_writes_into_it(tmp_path):
    """``new pack DIR`` where DIR is a folder the user made (it may be the current folder of a
    shell): it is written into, never replaced, so it keeps its permissions."""
    target = tmp_path / "pack"
    target.mkdir()
    target.chmod(0o750)
    inode = target.stat().st_ino
    run = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "new", "pack", "."],
        cwd=target,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert FOLDER_WRITERS["new pack"].complete(target)
    assert target.stat().st_ino == inode and target.stat().st_mode & 0o777 == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack"]


def test_only_stale_hidden_folders_of_the_pattern_are_removed(tmp_path):
    """:func:`inkcrawl.jsonio.remove_stale_temporaries` on a folder target removes a hidden folder
    of its own pattern (with what it holds) only when its process is gone and it is older than this
    run; a live writer's, a fresh one, another target's, another pattern and a link are kept."""
    from inkcrawl import jsonio

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead, alive, long_ago = int(ended.stdout), os.getppid(), jsonio._STARTED - 3600
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.json").write_text("{}")
    names = {
        f".pack.inkcrawl-{dead}-abc123de.tmp": True,  # ours, writer gone, old: stale
        f".pack.inkcrawl-{alive}-abc123de.tmp": False,  # its writer still runs
        f".pack.inkcrawl-{dead}-fresh000.tmp": False,  # newer than this process (mtime left as now)
        f".other.inkcrawl-{dead}-abc123de.tmp": False,  # another target's
        ".pack.abc123de": False,  # not the pattern (the old hidden folders' names)
    }
    for name in names:
        (tmp_path / name / "dungeons").mkdir(parents=True)
        (tmp_path / name / "dungeons" / "half.json").write_text('{"type": "dun')
        if "fresh" not in name:
            os.utime(tmp_path / name, (long_ago, long_ago))
    link = tmp_path / f".pack.inkcrawl-{dead}-link0000.tmp"
    link.symlink_to(outside, target_is_directory=True)  # never followed, never removed
    os.utime(link, (long_ago, long_ago), follow_symlinks=False)

    removed = jsonio.remove_stale_temporaries(tmp_path / "pack")
    assert sorted(p.name for p in removed) == [name for name, stale in names.items() if stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["outside", link.name] + [name for name, stale in names.items() if not stale]
    )
    assert (outside / "keep.json").exists()


def test_a_folder_write_that_fails_leaves_nothing(tmp_path):
    """:func:`inkcrawl.jsonio.atomic_folder`: an error (or Ctrl+C) in the block removes the hidden
    folder and what was written in it; the target is never made."""
    from inkcrawl.jsonio import atomic_folder, write_text_atomic

    for error in (OSError(28, "No space left on device"), KeyboardInterrupt()):
        with pytest.raises(type(error)):
            with atomic_folder(tmp_path / "pack") as building:
                write_text_atomic(building / "pack.json", "{}\n")
                raise error
        assert sorted(tmp_path.iterdir()) == []
    with atomic_folder(tmp_path / "pack") as building:
        write_text_atomic(building / "pack.json", "{}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["pack"] and (tmp_path / "pack" / "pack.json").read_text() == "{}\n"
