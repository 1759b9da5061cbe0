"""The editor respects the user's files (issue #17, the editor's part): a read-only file is
replaced by Save only after the user says so in a dialog, a symlinked dungeon stays a link (the
file it points to gets the new content, also for a pack member and the pack's manifest), and
the session locks of editors killed with kill -9 are removed from the recovery folder once their
process is gone, while the lock of a live editor is kept. The playtest's Save Play File and Save
Sheet ask before replacing a read-only file as Save does, and write through a symlink (issue #16)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from editor.dungeon.edits import ChangeSheet
from tests.editor_support import GRID_DUNGEON, LINE_DUNGEON, LINE_PACK, REPO, copy_pack, drag, make_window
from tests.waiting import wait_for_line


class Messages(list):
    """Stands in for ``window.show_file_message``: records ``(level, title, text)``."""

    def __call__(self, level, title, text):
        self.append((level, title, text))


def _window(qtbot, path):
    window = make_window(qtbot)
    window.show_file_message = Messages()
    assert window.files.open_file(path)
    return window


def _retitle(window, title):
    window.current.push(ChangeSheet(window.current.dungeon, "title", title))


def _title(path) -> str:
    return json.loads(path.read_text(encoding="utf-8"))["sheet"]["title"]


# read-only files -----------------------------------------------------------------------------
@pytest.fixture
def read_only(tmp_path):
    path = tmp_path / "protected.json"
    shutil.copy(LINE_DUNGEON, path)
    path.chmod(0o444)
    yield path
    path.chmod(0o644)


def _answer_dialog(monkeypatch, button_text: str | None):
    """Make the read-only dialog (a real ``QMessageBox``, never shown) click the button whose
    text holds ``button_text`` (``None``: close it with Escape's button); returns the texts of
    the dialogs asked."""
    asked = []

    def exec_(box):
        asked.append((box.text(), [b.text() for b in box.buttons()]))
        button = (
            box.escapeButton()
            if button_text is None
            else next(b for b in box.buttons() if button_text in b.text().replace("&", ""))
        )
        button.click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    return asked


def test_save_over_a_read_only_file_asks_and_keeping_it_changes_nothing(qtbot, read_only, monkeypatch):
    before = read_only.read_bytes()
    window = _window(qtbot, read_only)
    _retitle(window, "Not written")
    asked = _answer_dialog(monkeypatch, "Keep")
    assert window.files.save_current() is False
    assert len(asked) == 1 and str(read_only) in asked[0][0]
    assert any("Replace Anyway" in text.replace("&", "") for text in asked[0][1])
    assert read_only.read_bytes() == before
    assert window.current.modified  # the changes are still open
    assert "read-only" in window.statusBar().currentMessage()
    assert window.show_file_message == []  # the user's choice, not an error
    assert window.files.save_current() is False and len(asked) == 2  # asked again each time
    # Escape (the dialog's escape button) keeps the file too
    _answer_dialog(monkeypatch, None)
    assert window.files.save_current() is False
    assert read_only.read_bytes() == before


def test_save_over_a_read_only_file_replaces_it_when_told_and_it_stays_read_only(qtbot, read_only, monkeypatch):
    window = _window(qtbot, read_only)
    _retitle(window, "Replaced on purpose")
    asked = _answer_dialog(monkeypatch, "Replace Anyway")
    assert window.files.save_current() is True
    assert len(asked) == 1
    assert _title(read_only) == "Replaced on purpose"
    assert read_only.read_text(encoding="utf-8") == window.current.canonical_text()
    assert stat.S_IMODE(read_only.stat().st_mode) == 0o444
    assert not window.current.modified
    assert [p.name for p in read_only.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_headless_save_never_replaces_a_read_only_file(qtbot, read_only):
    """With nobody to answer (``--screenshot``, scripts), the default is to keep the file."""
    before = read_only.read_bytes()
    window = _window(qtbot, read_only)
    window.headless = True
    _retitle(window, "Not written")
    assert window.files.save_current() is False
    assert read_only.read_bytes() == before


def test_other_refusals_are_errors_without_a_prompt(qtbot, tmp_path, monkeypatch):
    """A folder where the file was is not a read-only file: an error names it, nothing is asked."""
    path = tmp_path / "d.json"
    shutil.copy(LINE_DUNGEON, path)
    window = _window(qtbot, path)
    _retitle(window, "Changed")
    path.unlink()
    path.mkdir()
    asked = _answer_dialog(monkeypatch, "Replace Anyway")
    assert window.files.save_current() is False
    assert asked == []
    [(level, _, text)] = window.show_file_message
    assert level == "error" and str(path) in text and "folder" in text


def test_save_pack_asks_before_replacing_a_read_only_manifest(qtbot, tmp_path, monkeypatch):
    pack = copy_pack(tmp_path, LINE_PACK)
    manifest = pack / "pack.json"
    window = make_window(qtbot, pack)
    browser = window.pack_browser
    assert browser.form.change_field("name", "Renamed pack")
    manifest.chmod(0o444)
    try:
        before = manifest.read_bytes()
        asked = _answer_dialog(monkeypatch, "Keep")
        assert browser.save_pack() is False
        assert len(asked) == 1 and manifest.read_bytes() == before
        _answer_dialog(monkeypatch, "Replace Anyway")
        assert browser.save_pack() is True
        assert json.loads(manifest.read_text(encoding="utf-8"))["name"] == "Renamed pack"
        assert stat.S_IMODE(manifest.stat().st_mode) == 0o444
    finally:
        manifest.chmod(0o644)


# symlinks ------------------------------------------------------------------------------------
def test_save_through_a_symlink_keeps_the_link(qtbot, tmp_path):
    shared = tmp_path / "shared" / "original.json"
    shared.parent.mkdir()
    shutil.copy(LINE_DUNGEON, shared)
    link = tmp_path / "work" / "linked.json"
    link.parent.mkdir()
    link.symlink_to(shared)
    window = _window(qtbot, link)
    _retitle(window, "Through the link")
    assert window.files.save_current() is True
    assert link.is_symlink() and os.readlink(link) == str(shared)
    assert _title(shared) == "Through the link"
    assert shared.read_text(encoding="utf-8") == window.current.canonical_text()
    assert sorted(p.name for p in link.parent.iterdir()) == ["linked.json"]  # no temporary file left
    assert sorted(p.name for p in shared.parent.iterdir()) == ["original.json"]


def test_a_pack_member_that_is_a_symlink_stays_one(qtbot, tmp_path):
    pack = copy_pack(tmp_path, LINE_PACK)
    member = sorted((pack / "dungeons").glob("*.json"))[0]
    elsewhere = pack / "library" / member.name  # a pack reads only inside its folder
    elsewhere.parent.mkdir()
    shutil.move(member, elsewhere)
    member.symlink_to(elsewhere)
    window = make_window(qtbot, pack)
    document = next(d for d in window.documents if d.path is not None and d.path.name == member.name)
    window.set_current(document)
    _retitle(window, "Saved in the pack")
    assert window.pack_browser.save_pack() is True
    assert member.is_symlink() and os.readlink(member) == str(elsewhere)
    assert _title(elsewhere) == "Saved in the pack"


# stale session locks -------------------------------------------------------------------------
_LOCK_HOLDER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {repo!r})
    from PySide6.QtCore import QCoreApplication, QLockFile
    app = QCoreApplication(sys.argv)
    lock = QLockFile({path!r})
    lock.setStaleLockTime(0)
    assert lock.tryLock(0)
    print("locked", flush=True)
    sys.stdin.read()  # holds the lock until killed or its stdin closes
""")


def _hold_lock(path):
    """A process holding a ``QLockFile`` at ``path`` as an editor session does."""
    process = subprocess.Popen(
        [sys.executable, "-c", _LOCK_HOLDER.format(repo=str(REPO), path=str(path))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    wait_for_line(process.stdout, "locked", "the lock holder to take its lock")
    return process


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_locks_of_killed_editors_are_removed_and_live_ones_kept(qtbot):
    from editor.files import manager

    folder = manager.recovery_dir()
    killed = [folder / f"killed{n}.lock" for n in range(3)]
    holders = [_hold_lock(path) for path in killed]
    for holder in holders:
        holder.send_signal(signal.SIGKILL)  # kill -9: the lock file stays behind
        holder.wait(timeout=60)
        holder.stdin.close()
        holder.stdout.close()
    assert all(path.exists() for path in killed)
    alive_path = folder / "alive.lock"
    alive = _hold_lock(alive_path)
    try:
        window = make_window(qtbot)  # a new editor session cleans the folder as it starts
        assert not any(path.exists() for path in killed)
        assert alive_path.exists()  # its process runs: never touched
        assert (folder / f"{window.files.session}.lock").exists()  # and the new session's own
        assert manager.remove_stale_locks(folder) == []  # nothing more to remove
    finally:
        alive.send_signal(signal.SIGKILL)
        alive.wait(timeout=60)
        alive.stdin.close()
        alive.stdout.close()
    assert alive_path.exists()
    assert manager.remove_stale_locks(folder) == [alive_path]  # stale once its process is gone
    assert not alive_path.exists()


@pytest.mark.parametrize("kind, name", [("svg", "old.svg"), ("game", "old.json")])
def test_export_over_a_read_only_file_asks_first(qtbot, tmp_path, kind, name):
    """File > Export asks as Save does: kept, the file is untouched; replaced, it holds the export
    and stays read-only."""
    from editor.files.export import ExportOptions

    target = tmp_path / name
    target.write_bytes(b"the previous export")
    target.chmod(0o444)
    try:
        window = make_window(qtbot, LINE_DUNGEON)
        window.ask_export_options = lambda kind, document, defaults: ExportOptions()
        window.ask_export_path = lambda kind, document, suggested: target
        window.show_export_message = Messages()
        answers, asked = [False, True], []
        window.ask_replace_read_only = lambda path: asked.append(path) or answers.pop(0)
        assert window.exporter.export(kind) is None
        assert asked == [target] and target.read_bytes() == b"the previous export"
        assert "read-only" in window.statusBar().currentMessage()
        assert window.exporter.export(kind) == target
        assert asked == [target, target] and target.read_bytes() != b"the previous export"
        assert stat.S_IMODE(target.stat().st_mode) == 0o444
        assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left
    finally:
        target.chmod(0o644)


def test_temporary_files_of_killed_autosaves_are_removed_at_start_up(qtbot, tmp_path):
    """An autosave killed while writing leaves ``.NAME.inkcrawl-PID-RAND.tmp`` beside a recovery
    file no later write will have: a new session removes those of dead processes, older than
    itself, and nothing else."""
    from editor.files import manager

    folder = manager.recovery_dir()
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(ended.stdout)
    old = 1_000_000_000  # 2001: before this process started
    stale = folder / f".gone-1.json.inkcrawl-{dead}-abc123.tmp"
    running = folder / f".live-1.json.inkcrawl-{os.getpid()}-def456.tmp"  # a writer that runs
    foreign = folder / ".notes.txt.tmp"  # not ours: never touched
    for path in (stale, running, foreign):
        path.write_text("{", encoding="utf-8")
        os.utime(path, (old, old))
    try:
        make_window(qtbot)
        assert not stale.exists()
        assert running.exists() and foreign.exists()
    finally:
        running.unlink(missing_ok=True)
        foreign.unlink(missing_ok=True)


# the playtest's saves ------------------------------------------------------------------------
def _playtest_ready_to_save(qtbot, family: str, target, monkeypatch, dungeon=None):
    """A window playtesting ``dungeon`` (default: the bundled one of ``family``), with something
    to save (a line path drawn by mouse; a grid game dealt) and the Save dialog answering
    ``target``: returns ``(window, panel, what the panel's save writes as JSON, the file names
    the dialog was offered)``."""
    from PySide6.QtWidgets import QFileDialog

    window = make_window(qtbot, dungeon or (LINE_DUNGEON if family == "line" else GRID_DUNGEON))
    window.view.set_zoom(2.0)
    window.playtest.toggle()
    panel = window.playtest.active
    assert panel is not None, window.playtest.reason.text()
    if family == "line":
        window.view.centerOn(50, 45)
        drag(window.view, (50, 35), (50, 60))
        assert panel.session.polylines
        expected = panel.session.play()
    else:
        expected = panel.session.sheet()
    chosen = []

    def get_save_file_name(parent, caption, start, filters, *rest, **kwargs):
        chosen.append(start)
        return str(target) if target else "", filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_save_file_name)
    return window, panel, json.loads(json.dumps(expected)), chosen


@pytest.mark.parametrize("family", ["line", "grid"])
def test_a_playtest_save_over_a_read_only_file_asks_and_keeping_it_changes_nothing(
    qtbot, tmp_path, family, monkeypatch
):
    """Save Play File (line) and Save Sheet (grid) ask as File > Save does; Keep (or Escape, or
    nobody there to answer) leaves the file as it was and says so."""
    target = tmp_path / "protected.json"
    target.write_text('{"kept": true}\n', encoding="utf-8")
    target.chmod(0o444)
    try:
        window, panel, _, chosen = _playtest_ready_to_save(qtbot, family, target, monkeypatch)
        asked = _answer_dialog(monkeypatch, "Keep")
        QTest.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
        assert len(chosen) == 1
        assert len(asked) == 1 and str(target) in asked[0][0]
        assert any("Replace Anyway" in text.replace("&", "") for text in asked[0][1])
        assert target.read_text(encoding="utf-8") == '{"kept": true}\n'
        assert "read-only" in panel.message.text() and "read-only" in window.statusBar().currentMessage()
        _answer_dialog(monkeypatch, None)  # Escape keeps it too
        QTest.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
        window.headless = True  # nobody to answer: kept, nothing asked
        asked = _answer_dialog(monkeypatch, "Replace Anyway")
        QTest.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
        assert asked == []
        assert target.read_text(encoding="utf-8") == '{"kept": true}\n'
        assert stat.S_IMODE(target.stat().st_mode) == 0o444
        assert [p.name for p in tmp_path.iterdir()] == ["protected.json"]  # no temporary file left
    finally:
        target.chmod(0o644)


@pytest.mark.parametrize("family", ["line", "grid"])
@pytest.mark.parametrize("through_link", [False, True])
def test_a_playtest_save_replaces_a_read_only_file_when_told_and_a_link_stays_a_link(
    qtbot, tmp_path, family, through_link, monkeypatch
):
    """Replace Anyway writes the play file (line) or sheet (grid) into the read-only file, which
    stays read-only; chosen through a symlink, the file it points to gets it and the link stays."""
    real = tmp_path / "shared" / "protected.json"
    real.parent.mkdir()
    real.write_text('{"old": true}\n', encoding="utf-8")
    real.chmod(0o444)
    chosen_path = real
    if through_link:
        chosen_path = tmp_path / "work" / "linked.json"
        chosen_path.parent.mkdir()
        chosen_path.symlink_to(real)
    try:
        window, panel, expected, _ = _playtest_ready_to_save(qtbot, family, chosen_path, monkeypatch)
        asked = _answer_dialog(monkeypatch, "Replace Anyway")
        QTest.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
        assert len(asked) == 1 and str(chosen_path) in asked[0][0]
        assert json.loads(real.read_text(encoding="utf-8")) == expected
        assert stat.S_IMODE(real.stat().st_mode) == 0o444
        assert panel.message.text().startswith("Saved")
        assert sorted(p.name for p in real.parent.iterdir()) == ["protected.json"]  # no temporary file
        if through_link:
            assert chosen_path.is_symlink() and os.readlink(chosen_path) == str(real)
            assert sorted(p.name for p in chosen_path.parent.iterdir()) == ["linked.json"]
    finally:
        real.chmod(0o644)


@pytest.mark.parametrize("family", ["line", "grid"])
def test_the_playtest_save_dialog_starts_beside_the_dungeon_played(qtbot, tmp_path, family, monkeypatch):
    """Save Play File and Save Sheet offer their file in the dungeon's own folder, as File >
    Save does, not in the folder the editor was started from."""
    folder = tmp_path / "my dungeons"
    folder.mkdir()
    path = folder / "played.json"
    shutil.copy(LINE_DUNGEON if family == "line" else GRID_DUNGEON, path)
    window, panel, _, offered = _playtest_ready_to_save(qtbot, family, "", monkeypatch, dungeon=path)
    assert window.playtest.document.path == path
    QTest.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)  # the dialog cancelled ("")
    ending = ".play.json" if family == "line" else ".sheet.json"
    assert offered == [str(folder / f"{panel.session.rules.id}{ending}")]
    assert sorted(p.name for p in folder.iterdir()) == ["played.json"]  # nothing written
