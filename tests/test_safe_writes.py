"""Nothing lost, nothing escapes (issue 17, core and exporters): the one safe-write path every
writer uses (:func:`inkcrawl.jsonio.atomic_target`), what it refuses, how it survives kill -9,
a full disk and signals; no traceback for unusable names; control characters shown escaped.

The expected messages and contents below are written out by hand from the behaviour the docs
describe, not read back from the code."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, PACKS, REPO

from inkcrawl import jsonio
from inkcrawl.cli import main
from inkcrawl.jsonio import WriteRefused, check_target, remove_stale_temporaries, write_bytes_atomic

CORPUS = Path(__file__).resolve().parent / "corpus"
TINY = CORPUS / "valid-tiny.json"
CRYPT = Path(__file__).resolve().parent / "import_samples" / "donjon" / "crypt.json"
LANTERN = PACKS / "lantern-depths"
EMBER = PACKS / "ember-halls"
LONG_NAME = "y" * 300 + ".json"  # longer than the 255 bytes file systems allow a name
READ_ONLY = "the file is read-only and was left as it is; use --force to replace it"
IS_INPUT = "this is one of the files the command reads; write the output to another file"
SPECIAL = "this is a device, pipe or socket, not a regular file; inkcrawl only writes regular files"

needs_posix = pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals, modes and devices")


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    return code, out, err


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def long_member_pack(folder: Path) -> Path:
    """A pack listing a dungeon file whose name (304 characters) is longer than any file system
    allows (as in tests/test_bad_input.py)."""
    (folder / "dungeons").mkdir(parents=True)
    shutil.copy(TINY, folder / "dungeons" / "tiny.json")
    (folder / "pack.json").write_text(
        json.dumps(
            {
                "type": "pack",
                "format_version": 1,
                "id": "pack-long-member",
                "name": "Hostile pack",
                "version": "1.0.0",
                "ruleset": "line-classic",
                "dungeons": ["dungeons/tiny.json", "dungeons/" + "x" * 300 + ".json"],
            }
        )
    )
    return folder


def _read_only(path: Path) -> None:
    path.chmod(0o444)


# -- the temporary file: its name, its removal, stale ones ------------------------------------


def test_the_temporary_file_is_beside_the_target_named_after_it_and_this_process(tmp_path, monkeypatch):
    target = tmp_path / "d.json"
    seen = []
    real_replace = os.replace

    def replace(src, dst):
        seen.append((Path(src), Path(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(jsonio.os, "replace", replace)
    write_bytes_atomic(target, b"new\n")
    [(temporary, replaced)] = seen
    assert replaced == target and temporary.parent == tmp_path
    assert re.fullmatch(rf"\.d\.json\.inkcrawl-{os.getpid()}-[a-z0-9_]+\.tmp", temporary.name), temporary.name
    assert target.read_bytes() == b"new\n" and not temporary.exists()


def test_a_full_disk_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "d.json"
    target.write_bytes(b"old\n")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(jsonio.os, "fsync", full)
    with pytest.raises(OSError) as caught:
        write_bytes_atomic(target, b"new\n" * 1000)
    assert caught.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.json"]


@needs_posix
def test_only_stale_temporaries_of_the_same_target_are_removed(tmp_path):
    target = tmp_path / "d.json"
    target.write_text("old")
    dead, alive = _dead_pid(), os.getppid()
    long_ago = jsonio._STARTED - 3600
    names = {
        f".d.json.inkcrawl-{dead}-abc123de.tmp": (long_ago, True),  # ours, writer gone, old: stale
        f".d.json.inkcrawl-{alive}-abc123de.tmp": (long_ago, False),  # its writer still runs
        f".d.json.inkcrawl-{dead}-fresh000.tmp": (None, False),  # newer than this process
        f".other.json.inkcrawl-{dead}-abc123de.tmp": (long_ago, False),  # another target's
        ".d.json.abc123de.tmp": (long_ago, False),  # not our pattern
        f".d.json.inkcrawl-{dead}-abc123de.tmp.keep": (long_ago, False),
        f"d.json.inkcrawl-{dead}-abc123de.tmp": (long_ago, False),  # not hidden: not ours
    }
    for name, (mtime, _) in names.items():
        (tmp_path / name).write_text("left over")
        if mtime is not None:
            os.utime(tmp_path / name, (mtime, mtime))
    removed = remove_stale_temporaries(target)
    assert sorted(p.name for p in removed) == [name for name, (_, stale) in names.items() if stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["d.json"] + [name for name, (_, stale) in names.items() if not stale]
    )


# A writer killed with SIGKILL at one moment of a write: it prints "ready" at that moment and
# waits (reading its standard input) until it is killed.
_KILLED_WRITER = """
import os, sys
from pathlib import Path
from inkcrawl import jsonio

target, moment = Path(sys.argv[1]), sys.argv[2]
new = b"new " * (4 * 1024 * 1024)   # 16 MiB

def ready():
    print("ready", flush=True)
    sys.stdin.read()   # until killed

if moment == "writing":
    with jsonio.atomic_target(target) as temporary:
        with open(temporary, "wb") as handle:
            handle.write(new[: len(new) // 2])
            handle.flush()
            ready()
else:
    if moment == "before the rename":
        real = os.replace
        def replace(src, dst):
            ready()
            real(src, dst)
        jsonio.os.replace = replace
    else:  # after the rename, before the folder is synced
        real_sync = jsonio._sync_folder
        def sync(folder):
            real_sync(folder)
            ready()
        jsonio._sync_folder = sync
    jsonio.write_bytes_atomic(target, new)
"""


@needs_posix
@pytest.mark.parametrize(
    ("moment", "content", "stale"),
    [("writing", "old", True), ("before the rename", "old", True), ("after the rename", "new", False)],
)
def test_a_writer_killed_with_sigkill_leaves_old_or_new_and_the_next_write_cleans_up(tmp_path, moment, content, stale):
    target = tmp_path / "report.json"
    target.write_bytes(b"old\n")
    writer = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target), moment],
        cwd=REPO,
        env=_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline() == "ready\n"
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=60)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
        writer.stdin.close()
        writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL
    assert target.read_bytes() == (b"old\n" if content == "old" else b"new " * (4 * 1024 * 1024))
    left = _temporaries(tmp_path)
    if stale:  # the killed writer's own temporary file, named after it
        assert left == [f".report.json.inkcrawl-{writer.pid}-{left[0].split('-')[-1]}"], left
    else:
        assert left == []
    # the next run writing the same target removes it
    run = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "validate", str(TINY), "--format", "json", "-o", str(target)],
        cwd=REPO,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert target.read_text() == "[]\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


# Stops itself with a signal just before the rename of a validate -o.
_SIGNALLED_WRITER = """
import os, signal, sys
from inkcrawl import jsonio
from inkcrawl.cli import main

real = os.replace
def replace(src, dst):
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    real(src, dst)
jsonio.os.replace = replace
sys.exit(main(["validate", sys.argv[2], "--format", "json", "-o", sys.argv[3]]))
"""


@needs_posix
@pytest.mark.parametrize(
    ("name", "status", "message"),
    [("SIGTERM", 143, "inkcrawl: stopped by SIGTERM\n"), ("SIGINT", 130, "inkcrawl: interrupted\n")],
)
def test_a_signal_during_a_write_exits_128_plus_its_number_and_leaves_nothing(tmp_path, name, status, message):
    target = tmp_path / "report.json"
    target.write_text("old\n")
    run = subprocess.run(
        [sys.executable, "-c", _SIGNALLED_WRITER, name, str(TINY), str(target)],
        cwd=REPO,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (run.returncode, run.stderr, run.stdout) == (status, message, "")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


# -- read-only targets: refused, then written with --force ----------------------------------


def _commands(tmp_path: Path) -> dict:
    """For each writing command: (argv without --force, the output, what the output holds after)."""
    dungeon = tmp_path / "tiny.json"
    shutil.copy(TINY, dungeon)
    return {
        "validate": (
            ["validate", str(dungeon), "--format", "json", "-o"],
            tmp_path / "report.json",
            lambda path: path.read_text() == "[]\n",
        ),
        "export game": (
            ["export", "game", str(dungeon), "-o"],
            tmp_path / "game.json",
            lambda path: json.loads(path.read_text())["dungeons"][0]["id"] == "tiny",
        ),
        "export tiled": (
            ["export", "tiled", str(dungeon), "-o"],
            tmp_path / "map.tmj",
            lambda path: json.loads(path.read_text())["type"] == "map",
        ),
        "export sheet": (
            ["export", "sheet", str(dungeon), "-o"],
            tmp_path / "sheet.svg",
            lambda path: path.read_text().startswith("<svg "),
        ),
        "import": (
            ["import", str(CRYPT), "-o"],
            tmp_path / "crypt.json",
            lambda path: json.loads(path.read_text())["type"] == "dungeon",
        ),
    }


@needs_posix
@pytest.mark.parametrize("command", ["validate", "export game", "export tiled", "export sheet", "import"])
def test_a_read_only_output_is_refused_then_replaced_with_force(capsys, tmp_path, command):
    argv, output, written = _commands(tmp_path)[command]
    output.write_text("keep me")
    _read_only(output)
    code, out, err = _run(capsys, *argv, str(output))
    prefix = "inkcrawl export" if command.startswith("export") else f"inkcrawl {command}"
    assert code == 2
    assert f"{prefix}: error: cannot write {output}: {READ_ONLY}\n" in err
    assert output.read_text() == "keep me"
    code, out, err = _run(capsys, *argv, str(output), "--force")
    assert code == 0, err
    assert written(output)
    assert stat.S_IMODE(output.stat().st_mode) == 0o444  # replaced, and still read-only
    assert _temporaries(tmp_path) == []


@needs_posix
def test_migrate_leaves_a_read_only_file_unless_force(capsys, tmp_path):
    path = tmp_path / "old.json"
    shutil.copy(FIXTURES / "dungeon-format-1.json", path)
    _read_only(path)
    before = path.read_bytes()
    code, out, err = _run(capsys, "migrate", str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"{path}: error: not rewritten, cannot write the file: the file is read-only and was left as it "
        f"is; use --force to rewrite it\n"
    )
    assert path.read_bytes() == before
    code, out, err = _run(capsys, "migrate", str(path), "--force")
    assert (code, out, err) == (0, f"{path}: rewritten (format_version 1 -> current)\n", "")
    assert json.loads(path.read_text())["format_version"] == 2
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


@needs_posix
def test_simulate_refuses_a_read_only_heatmap_before_playing(capsys, tmp_path):
    heatmap = tmp_path / "heat.png"
    heatmap.write_bytes(b"keep me")
    _read_only(heatmap)
    code, out, err = _run(capsys, "simulate", str(EMBER), "--games", "2", "--heatmap", str(heatmap))
    assert (code, out) == (2, "")
    assert err == f"inkcrawl simulate: error: cannot write {heatmap}: {READ_ONLY}\n"
    assert heatmap.read_bytes() == b"keep me"


def test_check_target_says_why(tmp_path):
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(WriteRefused) as caught:
        check_target(folder)
    assert (caught.value.reason, caught.value.strerror) == ("folder", "this is a folder, not a file")
    assert check_target(tmp_path / "new.json") == (tmp_path / "new.json").resolve()


# -- devices, symlinks, inputs ----------------------------------------------------------------


@needs_posix
@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_is_never_written_even_with_force(capsys, tmp_path):
    code, out, err = _run(capsys, "validate", str(TINY), "-o", "/dev/null", "--force")
    assert (code, out, err) == (2, "", f"inkcrawl validate: error: cannot write /dev/null: {SPECIAL}\n")
    link = tmp_path / "game.json"  # a link to a device is refused the same way
    link.symlink_to("/dev/null")
    code, out, err = _run(capsys, "export", "game", str(TINY), "-o", str(link), "--force")
    assert (code, out, err) == (2, "", f"inkcrawl export: error: cannot write {link}: {SPECIAL}\n")
    assert link.is_symlink() and os.readlink(link) == "/dev/null"
    with pytest.raises(WriteRefused) as caught:
        write_bytes_atomic(Path("/dev/null"), b"x", force=True)
    assert caught.value.reason == "special"


@needs_posix
def test_a_fifo_is_refused(capsys, tmp_path):
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    code, _, err = _run(capsys, "validate", str(TINY), "--format", "json", "-o", str(fifo), "--force")
    assert (code, err) == (2, f"inkcrawl validate: error: cannot write {fifo}: {SPECIAL}\n")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@needs_posix
def test_a_symlinked_output_is_written_through_and_stays_a_link(capsys, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    real = shared / "game.json"
    real.write_text("old")
    link = tmp_path / "game.json"
    link.symlink_to(real)
    code, out, err = _run(capsys, "export", "game", str(TINY), "-o", str(link))
    assert (code, out, err) == (0, f"wrote {link} (1 dungeon)\n", "")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["dungeons"][0]["id"] == "tiny"
    assert _temporaries(tmp_path) == [] and _temporaries(shared) == []  # the temporary file was beside the target
    # a dangling link: the file it names is created
    dangling = tmp_path / "report.json"
    dangling.symlink_to(shared / "report.json")
    code, _, _ = _run(capsys, "validate", str(TINY), "--format", "json", "-o", str(dangling))
    assert code == 0 and dangling.is_symlink() and (shared / "report.json").read_text() == "[]\n"


def test_validate_never_writes_its_report_over_its_input(capsys, tmp_path):
    dungeon = tmp_path / "d.json"
    shutil.copy(TINY, dungeon)
    before = dungeon.read_bytes()
    code, out, err = _run(capsys, "validate", str(dungeon), "--format", "json", "-o", str(dungeon))
    assert (code, out, err) == (2, "", f"inkcrawl validate: error: cannot write {dungeon}: {IS_INPUT}\n")
    code, _, err = _run(capsys, "validate", str(dungeon), "--format", "json", "-o", str(dungeon), "--force")
    assert code == 2 and IS_INPUT in err  # --force does not change that
    assert dungeon.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.json"]


def test_no_command_writes_over_a_file_it_reads(capsys, tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(LANTERN, pack)
    member = pack / "dungeons" / "01-candlewick-cellars.json"
    files = {p: p.read_bytes() for p in pack.rglob("*") if p.is_file()}
    source = tmp_path / "crypt.json"
    shutil.copy(CRYPT, source)
    alias = tmp_path / "alias.json"  # another name for the pack's manifest
    alias.symlink_to(pack / "pack.json")
    for argv, output in [
        (["validate", str(pack), "--format", "json", "-o"], pack / "pack.json"),
        (["validate", str(pack), "--format", "json", "-o"], member),
        (["export", "game", str(pack), "-o"], member),
        (["export", "game", str(pack / "pack.json"), "-o"], alias),
        (["export", "tiled", str(member), "-o"], member),
        (["import", str(source), "-o"], source),
    ]:
        code, out, err = _run(capsys, *argv, str(output))
        assert code == 2, (argv, err)
        assert err.endswith(f"error: cannot write {output}: {IS_INPUT}\n"), err
    assert {p: p.read_bytes() for p in pack.rglob("*") if p.is_file()} == files
    assert source.read_bytes() == CRYPT.read_bytes()


# -- migrate: unreadable, read-only folder, full disk -------------------------------------------


@needs_posix
def test_migrate_exits_2_for_a_file_it_cannot_read(capsys, tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    code, out, err = _run(capsys, "migrate", str(fifo))
    assert (code, out, err) == (2, "", f"{fifo}:/: error F001 not a regular file (a device, pipe or socket)\n")
    code, _, err = _run(capsys, "migrate", str(tmp_path / LONG_NAME))
    assert (code, err) == (2, f"{tmp_path / LONG_NAME}: error: cannot be read: File name too long\n")


def test_migrate_into_a_folder_that_refuses_new_files(capsys, tmp_path, monkeypatch):
    path = tmp_path / "old.json"
    shutil.copy(FIXTURES / "dungeon-format-1.json", path)
    before = path.read_bytes()
    tmp_path.chmod(0o500)
    try:
        if os.access(tmp_path, os.W_OK):  # root writes anyway: refuse where the temporary file is made

            def refuse(*args, **kwargs):
                raise PermissionError(errno.EACCES, "Permission denied")

            monkeypatch.setattr(jsonio.tempfile, "mkstemp", refuse)
        code, out, err = _run(capsys, "migrate", str(path))
    finally:
        tmp_path.chmod(0o700)
    assert (code, out, err) == (2, "", f"{path}: error: not rewritten, cannot write the file: Permission denied\n")
    assert path.read_bytes() == before


def test_migrate_on_a_full_disk_keeps_every_file_and_goes_on(capsys, tmp_path, monkeypatch):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for path in (first, second):
        shutil.copy(FIXTURES / "dungeon-format-1.json", path)
    before = first.read_bytes()
    real_fsync = os.fsync
    calls = []

    def fsync(fd):  # the first file's write finds the disk full; the second one's goes through
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(jsonio.os, "fsync", fsync)
    code, out, err = _run(capsys, "migrate", str(first), str(second))
    assert code == 2
    assert err == f"{first}: error: not rewritten, cannot write the file: No space left on device\n"
    assert out == f"{second}: rewritten (format_version 1 -> current)\n"
    assert first.read_bytes() == before and json.loads(second.read_text())["format_version"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


# -- names no file system takes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("pack", "line"),
    [
        (
            "pack-nul-member",
            'error S001 "dungeons/tiny\\u0000.json" is not a path to a .json file inside the pack, written with '
            "'/' (no '\\' and no NUL character; such as 'dungeons/first.json')",
        ),
        (
            "pack-long-member",
            f"error P001 'dungeons/{'x' * 300}.json' cannot be used as a file name here: File name too long",
        ),
    ],
)
@pytest.mark.parametrize("command", ["export game", "analyze", "simulate", "migrate --check", "score"])
def test_a_pack_member_no_file_system_can_name_is_reported_not_a_crash(capsys, tmp_path, pack, line, command):
    folder = tmp_path / pack
    if pack == "pack-long-member":
        long_member_pack(folder)
    else:
        shutil.copytree(CORPUS / pack, folder)
    argv = command.split() + [str(folder)]
    if command == "export game":
        argv += ["-o", str(tmp_path / "game.json")]
    if command == "score":
        argv += [str(tmp_path / "play.json")]
        (tmp_path / "play.json").write_text(
            json.dumps({"type": "play", "format_version": 1, "dungeon": "tiny", "path": [[[30, 30], [40, 40]]]})
        )
    code, out, err = _run(capsys, *argv)
    if command == "migrate --check":  # migrate reads the manifest and the files it can name
        if pack == "pack-nul-member":
            assert err == (
                f"{folder}/pack.json: not rewritten: 1 schema error(s); run 'inkcrawl validate {folder}/pack.json'\n"
            )
            assert out == f"{folder}/dungeons/tiny.json: would be rewritten (layout)\n"
        else:
            assert (out, err) == (
                f"{folder}/pack.json: would be rewritten (layout)\n"
                f"{folder}/dungeons/tiny.json: would be rewritten (layout)\n",
                "",
            )
        assert code == 1
        return
    assert code == 1, err
    assert f"{folder}/pack.json:/dungeons/1: {line}\n" in err
    assert not (tmp_path / "game.json").exists()


_F001 = "{path}:: error F001 cannot be read: File name too long\n"
_SUMMARY = "checked 0 files (0 dungeons): 1 error, 0 warnings\n"


@pytest.mark.parametrize(
    ("argv", "out", "err"),
    [
        (["validate", "LONG"], _F001 + _SUMMARY, ""),
        (["analyze", "LONG"], "", _F001),
        (["simulate", "LONG"], "", _F001),
        (["export", "game", "LONG", "-o", "OUT"], "", _F001 + _SUMMARY),
        (["score", "LONG", "PLAY"], "", _F001),
        (["import", "LONG", "-o", "OUT"], "", "inkcrawl import: error: {path}: cannot be read: File name too long\n"),
    ],
)
def test_a_command_line_path_too_long_for_the_system_is_exit_2(capsys, tmp_path, argv, out, err):
    long_path = str(tmp_path / LONG_NAME)
    play = tmp_path / "play.json"
    play.write_text(
        json.dumps({"type": "play", "format_version": 1, "dungeon": "tiny", "path": [[[30, 30], [40, 40]]]})
    )
    argv = [{"LONG": long_path, "OUT": str(tmp_path / "out.json"), "PLAY": str(play)}.get(a, a) for a in argv]
    assert _run(capsys, *argv) == (2, out.format(path=long_path), err.format(path=long_path))
    assert not (tmp_path / "out.json").exists()


def test_an_output_name_too_long_is_a_message(capsys, tmp_path):
    output = tmp_path / LONG_NAME
    code, out, err = _run(capsys, "validate", str(TINY), "-o", str(output))
    assert (code, out, err) == (2, "", f"inkcrawl validate: error: cannot write {output}: File name too long\n")


# -- Tiled maps declaring an unknown encoding ----------------------------------------------------

_TMX = (
    '<?xml version="1.0" encoding="{encoding}"?>\n'
    '<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" width="10" height="10" '
    'tilewidth="32" tileheight="32">\n'
    ' {tileset}<objectgroup name="rooms"><object id="1" type="room" x="0" y="0" width="64" height="64"/>'
    "</objectgroup>\n"
    "</map>\n"
)


def test_a_tmx_map_in_an_unknown_encoding_is_refused_with_a_message(capsys, tmp_path):
    source = tmp_path / "map.tmx"
    source.write_text(_TMX.format(encoding="x-no-such-encoding", tileset=""))
    output = tmp_path / "out.json"
    output.write_text("keep me")
    code, out, err = _run(capsys, "import", str(source), "-o", str(output))
    assert (code, out) == (2, "")
    assert err == (
        f"inkcrawl import: error: {source}: the XML declares a text encoding Python cannot read (unknown "
        f"encoding: x-no-such-encoding); save it as UTF-8\n"
    )
    assert output.read_text() == "keep me"


def test_a_tileset_in_an_unknown_encoding_is_named_in_a_warning(capsys, tmp_path):
    source = tmp_path / "map.tmx"
    source.write_text(_TMX.format(encoding="UTF-8", tileset='<tileset firstgid="1" source="tiles.tsx"/>\n '))
    (tmp_path / "tiles.tsx").write_text('<?xml version="1.0" encoding="bogus-8"?>\n<tileset name="t"/>\n')
    code, out, err = _run(capsys, "import", str(source), "-o", str(tmp_path / "out.json"))
    assert code == 1  # written; the room has no Start
    assert (
        f"{source}: warning IMPORT tileset 'tiles.tsx': cannot be read (the XML declares a text encoding Python "
        f"cannot read (unknown encoding: bogus-8); save it as UTF-8); tile objects using it get no class from "
        f"it\n"
    ) in err


# -- control characters in text output -------------------------------------------------------------


def test_terminal_safe_escapes_controls_and_nothing_else():
    from inkcrawl.textchars import json_terminal_safe, terminal_safe

    assert (
        terminal_safe("Ja\x1b]0;pwned\x07ne\r\x7f\x9b\x85é\tok\n")
        == "Ja\\x1b]0;pwned\\x07ne\\x0d\\x7f\\x9b\\x85é\tok\n"
    )
    assert terminal_safe("\x00\ud800") == "\\x00\\ud800"
    assert json_terminal_safe('{"a": "x\x7f\x9b\\u001b"}') == '{"a": "x\\u007f\\u009b\\u001b"}'


def test_validate_text_output_shows_control_characters_escaped(capsys, tmp_path):
    dungeon = tmp_path / "e\x1b[2J.json"
    shutil.copy(CORPUS / "c1-control-in-id.json", dungeon)
    code, out, err = _run(capsys, "validate", str(dungeon))
    shown = str(tmp_path) + "/e\\x1b[2J.json"
    assert code == 1
    assert out == (
        f'{shown}:/id: error S001 "tiny\\u001b\\x9b2J" is not an id: a letter or digit, then up to 63 letters, '
        f"digits, '_', '.' or '-' (such as 'gob-1')\n"
        f"{shown}:: warning S002 rule checks skipped: fix the structure errors above first\n"
        f"checked 1 file (1 dungeon): 1 error, 1 warning\n"
    )
    code, out, _ = _run(capsys, "validate", str(dungeon), "--format", "json")
    assert "\x9b" not in out and "\x1b" not in out and "\\u009b" in out  # the same JSON, escaped
    assert json.loads(out)[0]["message"].startswith('"tiny\\u001b\x9b2J"')


def test_score_text_output_shows_the_player_name_escaped(capsys, tmp_path):
    play = tmp_path / "play.json"
    play.write_text(
        json.dumps(
            {
                "type": "play",
                "format_version": 1,
                "dungeon": "candlewick-cellars",
                "player": "Ja\x1b]0;pwned\x07ne\r",
                "path": [[[50, 35], [50, 45], [60, 64], [76, 64], [84, 56], [116, 56]]],
            }
        )
    )
    code, out, err = _run(capsys, "score", str(LANTERN), str(play))
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        "The Candlewick Cellars (candlewick-cellars): Ja\\x1b]0;pwned\\x07ne\\x0d, no character, pen 1.5 mm, 1 player"
    )
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out)


def test_export_and_migrate_output_show_file_names_escaped(capsys, tmp_path):
    output = tmp_path / "g\x9b2J.json"
    code, out, _ = _run(capsys, "export", "game", str(TINY), "-o", str(output))
    assert (code, out) == (0, f"wrote {tmp_path}/g\\x9b2J.json (1 dungeon)\n")
    old = tmp_path / "o\x1bld.json"
    shutil.copy(FIXTURES / "dungeon-format-1.json", old)
    code, out, _ = _run(capsys, "migrate", str(old))
    assert (code, out) == (0, f"{tmp_path}/o\\x1bld.json: rewritten (format_version 1 -> current)\n")


# -- score --format json when nothing is scored -------------------------------------------------


def test_score_json_says_why_an_invalid_play_is_not_scored(capsys, tmp_path):
    play = tmp_path / "play.json"
    play.write_text(
        json.dumps(
            {
                "type": "play",
                "format_version": 1,
                "dungeon": "candlewick-cellars",
                "players": "two",
                "path": [[[50, 35], [50, 45]]],
            }
        )
    )
    code, out, err = _run(capsys, "score", str(LANTERN), str(play), "--format", "json")
    assert code == 1
    assert json.loads(out) == {
        "type": "score-error",
        "error": "invalid-play",
        "problems": [
            {"file": str(play), "pointer": "/players", "code": "S001", "message": '"two" is not of type "integer"'}
        ],
    }
    assert err == f'{play}:/players: error S001 "two" is not of type "integer"\n'
    # a play that cannot be drawn on the dungeon: the referee's problems
    far = tmp_path / "far.json"
    far.write_text(
        json.dumps({"type": "play", "format_version": 1, "dungeon": "candlewick-cellars", "path": [[[5, 5], [6, 6]]]})
    )
    code, out, err = _run(capsys, "score", str(LANTERN), str(far), "--format", "json")
    result = json.loads(out)
    assert code == 1 and result["type"] == "score-error" and result["error"] == "invalid-play"
    assert [(p["file"], p["pointer"], p["code"]) for p in result["problems"]] == [(str(far), "/path/0/0", None)]
    assert err == f"{far}:/path/0/0: error {result['problems'][0]['message']}\n"
