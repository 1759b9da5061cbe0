"""Nothing lost in the editor (issue 17): Save, Save Pack, the autosave of a recovery file and
Export, each killed with SIGKILL inside its write window, leave the file on disk holding the old
content or the complete new content, never a part; and the next editor start leaves no temporary
file and no stale session lock behind.

Each case runs the editor headless (``QT_QPA_PLATFORM=offscreen``) in a subprocess with its own
settings and recovery folder. The subprocess opens a dungeon (or a pack), edits it and writes;
a hook on ``os.replace`` stops it (SIGSTOP) when its complete temporary file is about to replace
the file, and the test kills it there: the file is still the old one, the temporary file beside
it (``.NAME.inkcrawl-<pid>-<random>.tmp``) is whole, the killed session's lock stays in the
recovery folder. Then the editor starts again and does the same write normally: the start
removes the stale lock (and offers the killed session's autosave, whole), the write removes the
stale temporary file, and a clean close leaves the recovery folder empty of locks and temporary
files. Skipped where there are no POSIX signals."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.editor_support import LINE_DUNGEON, LINE_PACK, REPO
from tests.kill_support import kill_when_the_temporary_file_appears, stop_before_rename_and_kill

pytestmark = pytest.mark.skipif(
    os.name != "posix" or not hasattr(os, "WUNTRACED"), reason="needs POSIX signals (SIGKILL, SIGSTOP)"
)

#: The subprocess: ``STOP_AT N ACTION SOURCE OUTPUT TITLE``. With STOP_AT (a file, or a folder
#: for any file in it) it stops itself (SIGSTOP) at the N-th ``os.replace`` onto it. It starts
#: the editor (the start-up's recovery offer is taken: the titles of the dungeons it restores
#: are printed), opens SOURCE, sets the current dungeon's title to TITLE and writes OUTPUT by
#: ACTION, then prints a JSON line and closes the window as a user would (discarding changes).
_EDITOR = """
import json, os, signal, sys
from pathlib import Path

stop_at, stop_count, action, source, output, title = sys.argv[1:7]
if stop_at:
    stop_at, stop_count, seen = os.path.realpath(stop_at), int(stop_count), []
    real_replace = os.replace

    def replace(src, dst, *args, **kwargs):
        where = os.path.realpath(dst)
        if where == stop_at or os.path.dirname(where) == stop_at:
            seen.append(where)
            if len(seen) == stop_count:
                os.kill(os.getpid(), signal.SIGSTOP)
        return real_replace(src, dst, *args, **kwargs)

    os.replace = replace

from PySide6.QtCore import QEventLoop
from exporters.qt import ensure_app
app = ensure_app()
from editor.dungeon.edits import ChangeSheet
from editor.files.export import ExportOptions
from editor.mainwindow import MainWindow

messages = []
window = MainWindow()
window.confirm_discard = lambda document: True
window.ask_renumber_duplicates = lambda document, shared: False
window.ask_recover = lambda entries: entries
window.show_file_message = lambda *message: messages.append(message)
window.show_export_message = lambda *message: messages.append(message)
window.ask_export_options = lambda kind, document, defaults: ExportOptions()
window.confirm_export_with_errors = lambda errors: True
window.ask_export_path = lambda kind, document, suggested: Path(output)
window.pack_browser.ask_save_pack = lambda: "discard"
window.files.set_autosave_interval(3_600_000)  # autosaves only when asked, however slow the machine
window.show()
while window.files.startup_timer.isActive():  # the start-up: the recovery offer
    app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
recovered = [document.dungeon.sheet.title for document in window.documents]

def retitle(text):
    window.current.push(ChangeSheet(window.current.dungeon, "title", text))

assert window.open_path(source), source
if action == "save":
    retitle(title)
    done = window.files.save_current()
elif action == "save pack":
    retitle(title)
    window.pack_browser.form.change_field("name", title)
    done = window.pack_browser.save_pack()
elif action == "autosave":
    retitle("Autosaved before")
    done = bool(window.files.autosave_now())
    retitle(title)
    done = done and bool(window.files.autosave_now())
else:  # export KIND
    retitle(title)
    done = window.exporter.export(action.split()[1]) is not None
print(json.dumps({"done": done, "recovered": recovered, "messages": [list(m) for m in messages]}), flush=True)
window.close()
app.processEvents()
sys.exit(0 if done else 3)
"""

OLD_TITLE = "The Old Title"
NEW_TITLE = "A Title Written Whole"
OLD_NAME = "The Old Pack Name"


@dataclass
class Case:
    """One editor write: what the subprocess does, the file it writes (``output``), where it
    is stopped (``stop_at``; the N-th replace, ``stop_count``) and whether a file holds the new
    content whole (``new``) or is the old one (compared with its bytes before the run)."""

    action: str
    source: Path
    output: Path
    stop_at: Path
    new: Callable[[bytes], bool]
    stop_count: int = 1


def _title_is(data: bytes, title: str) -> bool:
    try:
        return json.loads(data)["sheet"]["title"] == title
    except (ValueError, KeyError, TypeError):
        return False


def _svg_with(data: bytes, title: str) -> bool:
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return False
    return root.tag.endswith("svg") and any(title == (element.text or "").strip() for element in root.iter())


def _pdf(data: bytes) -> bool:
    from io import BytesIO

    from pypdf import PdfReader

    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-1024:]:
        return False
    return len(PdfReader(BytesIO(data)).pages) == 1


def _game_with(data: bytes, title: str) -> bool:
    try:
        value = json.loads(data)
    except ValueError:
        return False
    return value.get("type") == "game" and title in json.dumps(value, ensure_ascii=False)


def _recovery_with(data: bytes, title: str) -> bool:
    try:
        record = json.loads(data)
        return record["title"] == title and json.loads(record["dungeon_text"])["sheet"]["title"] == title
    except (ValueError, KeyError, TypeError):
        return False


def _dungeon(tmp_path: Path) -> Path:
    """A copy of a bundled line dungeon titled :data:`OLD_TITLE` (so old and new differ)."""
    path = tmp_path / "work" / "cellars.json"
    path.parent.mkdir()
    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    data["sheet"]["title"] = OLD_TITLE
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _pack(tmp_path: Path) -> Path:
    """A copy of a bundled pack named :data:`OLD_NAME`."""
    folder = tmp_path / "work" / LINE_PACK.name
    shutil.copytree(LINE_PACK, folder)
    manifest = json.loads((folder / "pack.json").read_text(encoding="utf-8"))
    manifest["name"] = OLD_NAME
    (folder / "pack.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return folder


def _first_member(pack: Path) -> Path:
    """The pack's first dungeon, the one the editor shows when it opens the pack."""
    return pack / json.loads((pack / "pack.json").read_text(encoding="utf-8"))["dungeons"][0]


def _env(tmp_path: Path) -> dict[str, str]:
    """The editor's environment: headless, with settings and recovery files under ``tmp_path``."""
    home = tmp_path / "home"
    runtime = home / "runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        XDG_RUNTIME_DIR=str(runtime),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CACHE_HOME=str(home / "cache"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    )


def _recovery(tmp_path: Path) -> Path:
    """The recovery folder of the editor run with :func:`_env` (``inkcrawl/recovery`` under
    ``XDG_DATA_HOME``), made so it can be named before the first run."""
    folder = tmp_path / "home" / "data" / "inkcrawl" / "recovery"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _argv(case: Case, stop: bool) -> list[str]:
    stop_at = str(case.stop_at) if stop else ""
    return [stop_at, str(case.stop_count), case.action, str(case.source), str(case.output), NEW_TITLE]


def _stop_before_rename_and_kill(tmp_path: Path, case: Case) -> int:
    """Run the editor until it stops itself just before a complete temporary file replaces
    ``case.stop_at``, then SIGKILL it; returns its process id. Fails if it ends without
    reaching that moment (a write that does not go through the safe-write path)."""
    command = [sys.executable, "-c", _EDITOR, *_argv(case, stop=True)]
    return stop_before_rename_and_kill(command, REPO, _env(tmp_path), f"the editor's {case.stop_at}")


def _kill_when_the_temporary_file_appears(tmp_path: Path, case: Case) -> bool:
    """Run the editor's write (no stop) and SIGKILL it as soon as its temporary file is seen
    beside ``case.output``; returns whether it was (False: the write ended between two looks)."""
    command = [sys.executable, "-c", _EDITOR, *_argv(case, stop=False)]
    return kill_when_the_temporary_file_appears(command, REPO, _env(tmp_path), case.output, 240)


def _run_normally(tmp_path: Path, case: Case) -> dict:
    """The next editor start doing the same write without a stop; returns what it printed."""
    run = subprocess.run(
        [sys.executable, "-c", _EDITOR, *_argv(case, stop=False)],
        cwd=REPO,
        env=_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _cases(tmp_path: Path) -> dict[str, Case]:
    dungeon = _dungeon(tmp_path)
    exported = tmp_path / "work"
    return {
        "save": Case("save", dungeon, dungeon, dungeon, lambda data: _title_is(data, NEW_TITLE)),
        "export svg": Case(
            "export svg", dungeon, exported / "sheet.svg", exported / "sheet.svg", lambda d: _svg_with(d, NEW_TITLE)
        ),
        "export pdf": Case("export pdf", dungeon, exported / "sheet.pdf", exported / "sheet.pdf", _pdf),
        "export game": Case(
            "export game", dungeon, exported / "game.json", exported / "game.json", lambda d: _game_with(d, NEW_TITLE)
        ),
    }


#: Every kill performed, by write and moment (printed at the end of the module with ``-s``).
KILLS: list[tuple[str, str]] = []


@pytest.fixture(scope="module", autouse=True)
def _count_kills():
    yield
    caught = sum(1 for _, moment in KILLS if moment == "temporary file seen")
    print(f"\nkill -9 in the editor: {len(KILLS)} kills ({caught} when the temporary file was seen)")


@pytest.mark.parametrize("name", ["save", "export svg", "export pdf", "export game"])
def test_a_save_or_export_killed_before_its_rename_leaves_the_old_file_and_the_next_start_cleans_up(tmp_path, name):
    case = _cases(tmp_path)[name]
    recovery = _recovery(tmp_path)
    if case.output != case.source:
        case.output.write_bytes(b"the previous export\n")
    old = case.output.read_bytes()

    pid = _stop_before_rename_and_kill(tmp_path, case)
    KILLS.append((case.action, "before the rename"))
    assert case.output.read_bytes() == old  # the old file, whole
    [left] = _temporaries(case.output.parent)
    assert left.startswith(f".{case.output.name}.inkcrawl-{pid}-")
    assert case.new((case.output.parent / left).read_bytes()), "the temporary file was not written whole"
    assert [p.name for p in recovery.glob("*.lock")] != []  # the killed session's lock stayed

    # killed as soon as its temporary file is seen: old or whole new, whatever the moment
    if _kill_when_the_temporary_file_appears(tmp_path, case):
        KILLS.append((case.action, "temporary file seen"))
    data = case.output.read_bytes()
    assert data == old or case.new(data), data[:200]

    printed = _run_normally(tmp_path, case)
    assert printed["done"] and printed["messages"] == []
    assert printed["recovered"] == []  # nothing was modified when it autosaved: nothing to offer
    assert case.new(case.output.read_bytes())
    assert _temporaries(case.output.parent) == []  # the killed run's temporary file removed
    assert sorted(p.name for p in recovery.iterdir()) == []  # no stale lock, no recovery file


@pytest.mark.parametrize("stop", ["the member", "the manifest"])
def test_save_pack_killed_before_a_rename_leaves_each_file_old_or_new(tmp_path, stop):
    """Save Pack writes the modified dungeon, then ``pack.json``: killed before the dungeon's
    rename, both are old; killed before the manifest's, the dungeon is new (written whole before
    it) and the manifest old."""
    pack = _pack(tmp_path)
    member, manifest = _first_member(pack), pack / "pack.json"
    recovery = _recovery(tmp_path)
    old_member, old_manifest = member.read_bytes(), manifest.read_bytes()

    def named(data: bytes) -> bool:
        try:
            return json.loads(data)["name"] == NEW_TITLE
        except (ValueError, KeyError, TypeError):
            return False

    stop_at = member if stop == "the member" else manifest
    case = Case("save pack", pack, manifest, stop_at, named)
    pid = _stop_before_rename_and_kill(tmp_path, case)
    KILLS.append((case.action, "before the rename"))
    assert manifest.read_bytes() == old_manifest
    if stop == "the member":
        assert member.read_bytes() == old_member
        [left] = _temporaries(member.parent)
        assert left.startswith(f".{member.name}.inkcrawl-{pid}-")
        assert _title_is((member.parent / left).read_bytes(), NEW_TITLE)
        assert _temporaries(pack) == []
    else:
        assert _title_is(member.read_bytes(), NEW_TITLE)
        assert _temporaries(member.parent) == []
        [left] = _temporaries(pack)
        assert left.startswith(f".pack.json.inkcrawl-{pid}-")
        assert named((pack / left).read_bytes()), "the temporary manifest was not written whole"
    assert list(recovery.glob("*.lock")) != []

    printed = _run_normally(tmp_path, case)
    assert printed["done"] and printed["messages"] == []
    assert named(manifest.read_bytes()) and _title_is(member.read_bytes(), NEW_TITLE)
    assert _temporaries(pack) == [] and _temporaries(member.parent) == []
    assert sorted(p.name for p in recovery.iterdir()) == []


def test_an_autosave_killed_before_its_rename_keeps_the_previous_recovery_file_and_it_is_offered_whole(tmp_path):
    """The second autosave of an edited dungeon is killed just before its rename: the recovery
    file still holds the first autosave, whole. The next start offers it (restored, its title
    is the first autosave's), removes the killed session's lock and temporary file, and a clean
    close leaves the recovery folder empty."""
    dungeon = _dungeon(tmp_path)
    recovery = _recovery(tmp_path)
    case = Case("autosave", dungeon, recovery, recovery, lambda data: _recovery_with(data, NEW_TITLE), stop_count=2)

    pid = _stop_before_rename_and_kill(tmp_path, case)
    KILLS.append((case.action, "before the rename"))
    [kept] = [p for p in recovery.iterdir() if p.suffix == ".json"]
    assert _recovery_with(kept.read_bytes(), "Autosaved before")  # the first autosave, whole
    [left] = _temporaries(recovery)
    assert left.startswith(f".{kept.name}.inkcrawl-{pid}-")
    assert case.new((recovery / left).read_bytes()), "the temporary recovery file was not written whole"
    [lock] = recovery.glob("*.lock")
    assert lock.stem == kept.name.split("-")[0]  # the killed session's

    printed = _run_normally(tmp_path, case)
    assert printed["done"] and printed["messages"] == []
    assert printed["recovered"] == ["Autosaved before"]
    assert _title_is(dungeon.read_bytes(), OLD_TITLE)  # autosave never writes the dungeon's file
    assert sorted(p.name for p in recovery.iterdir()) == []  # no lock, no temporary, no recovery file
