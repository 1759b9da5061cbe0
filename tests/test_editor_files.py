"""Files in the editor: New from each ruleset template, Open, Save (atomic) and Save As, the recent
files list, the window layout in the settings, autosave to recovery files, and recovery after a
simulated crash (a window dropped without closing, and a process killed outright)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget

from editor.dungeon.edits import ChangeSheet
from tests.editor_support import GRID_DUNGEON, LINE_DUNGEON, REPO, drag, make_window
from tests.editor_support import make_unwritable as _make_unwritable


@pytest.fixture(autouse=True)
def _clean_files_state():
    """Each test starts with no recovery files and no recent files (settings live in the
    session's temporary XDG folders)."""
    from editor.files import manager as files
    from editor.settings import settings

    layout = {key: settings().value(key) for key in ("window/geometry", "window/state")}

    def clean():
        folder = files.recovery_dir()
        for path in folder.iterdir():
            if path.suffix in (".json", ".damaged"):
                path.unlink()
        files._store_recent([])

    clean()
    yield
    clean()
    stored = settings()  # later tests get the window layout they had before
    for key, value in layout.items():
        if value is None:
            stored.remove(key)
        else:
            stored.setValue(key, value)


@pytest.fixture
def copies(tmp_path):
    """Editable copies of a line and a grid dungeon (outside their packs)."""
    line = tmp_path / "line.json"
    grid = tmp_path / "grid.json"
    shutil.copy(LINE_DUNGEON, line)
    shutil.copy(GRID_DUNGEON, grid)
    return line, grid


class Messages(list):
    """Stands in for ``window.show_file_message``: records ``(level, title, text)``."""

    def __call__(self, level, title, text):
        self.append((level, title, text))


def _window(qtbot, path=None):
    window = make_window(qtbot)
    window.show_file_message = Messages()
    if path is not None:
        assert window.files.open_file(path)
    return window


def _retitle(window, title="Changed title"):
    window.current.push(ChangeSheet(window.current.dungeon, "title", title))


def _press(qtbot, window, key, modifiers=Qt.KeyboardModifier.ControlModifier):
    """Press a shortcut in the window (as the user would; shortcuts need the active window)."""
    window.windowHandle().requestActivate()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    QTest.keyClick(window, key, modifiers)


# save, save as, open -------------------------------------------------------------------------
def test_save_and_reopen_round_trip_is_byte_identical(qtbot, copies):
    line, _ = copies
    window = _window(qtbot, line)
    _retitle(window)
    assert window.current.modified
    _press(qtbot, window, Qt.Key.Key_S)  # Ctrl+S
    assert not window.current.modified
    saved = line.read_text(encoding="utf-8")
    assert saved == window.current.canonical_text()
    assert '"title": "Changed title"' in saved
    window.close_document(window.current)
    assert window.files.open_file(line)
    assert window.current.canonical_text() == saved
    window.current.save()
    assert line.read_text(encoding="utf-8") == saved  # saving again changes no byte


def test_save_as_writes_a_new_file_and_leaves_the_old_one(qtbot, copies, tmp_path):
    line, _ = copies
    before = line.read_text(encoding="utf-8")
    window = _window(qtbot, line)
    _retitle(window)
    target = tmp_path / "elsewhere" / "copy"
    target.parent.mkdir()
    window.ask_save_path = lambda document: target
    window.action("save_as").trigger()
    written = target.with_suffix(".json")
    assert window.current.path == written
    assert written.read_text(encoding="utf-8") == window.current.canonical_text()
    assert line.read_text(encoding="utf-8") == before
    assert not window.current.modified
    from editor.files.manager import recent_files

    assert recent_files()[0] == str(written)
    assert window.windowTitle().startswith("copy.json")


def test_save_as_cancelled_saves_nothing(qtbot, copies):
    line, _ = copies
    before = line.read_text(encoding="utf-8")
    window = _window(qtbot, line)
    _retitle(window)
    window.ask_save_path = lambda document: None
    window.action("save_as").trigger()
    assert window.current.modified and line.read_text(encoding="utf-8") == before


def test_failing_save_keeps_the_old_file_and_the_changes(qtbot, tmp_path, monkeypatch):
    folder = tmp_path / "locked"
    folder.mkdir()
    target = folder / "dungeon.json"
    shutil.copy(LINE_DUNGEON, target)
    before = target.read_bytes()
    window = _window(qtbot, target)
    _retitle(window)
    _make_unwritable(folder, monkeypatch)
    try:
        window.action("save").trigger()
        assert window.current.modified
        assert target.read_bytes() == before
        assert sorted(p.name for p in folder.iterdir()) == ["dungeon.json"]  # no temporary file left
        level, title, text = window.show_file_message[-1]
        assert level == "error" and "could not be written" in text and "unchanged" in text
        # the close prompt's Save goes through the same path: it fails, so closing is refused
        assert window.save_document(window.current) is False
    finally:
        folder.chmod(0o700)


def test_new_dungeon_from_each_bundled_ruleset(qtbot, tmp_path):
    from inkcrawl.rulesets import bundled_rulesets

    window = _window(qtbot)
    rulesets = bundled_rulesets()
    offered = []
    for ruleset_id, ruleset in sorted(rulesets.items()):

        def ask(choices, chosen=ruleset):
            offered.append([r.id for r in choices])
            return chosen, f"Fresh {chosen.family} dungeon"

        window.ask_new_dungeon = ask
        _press(qtbot, window, Qt.Key.Key_N)  # Ctrl+N
        document = window.current
        assert document.ruleset.id == ruleset_id and document.dungeon.family == ruleset.family
        assert document.path is None and not document.modified
        assert document.dungeon.sheet.title == f"Fresh {ruleset.family} dungeon"
        codes = {p.problem.code for p in document.validate_now()}
        assert "S001" not in codes, codes
        # Save of a new dungeon asks for a file
        target = tmp_path / f"{ruleset_id}.json"
        window.ask_save_path = lambda d, t=target: t
        window.action("save").trigger()
        assert document.path == target and target.read_text(encoding="utf-8") == document.canonical_text()
    assert all(set(rulesets) <= set(ids) for ids in offered)
    assert len({d.dungeon.id for d in window.documents}) == len(window.documents)  # ids stay unique


def test_new_dungeon_offers_the_open_packs_rulesets(qtbot):
    from tests.editor_support import GRID_PACK

    window = _window(qtbot, GRID_PACK)
    ids = [r.id for r in window.files.available_rulesets()]
    assert ids.count("grid-classic") == 1 and "line-classic" in ids
    window.ask_new_dungeon = lambda choices: None  # cancelled
    count = len(window.documents)
    window.action("new").trigger()
    assert len(window.documents) == count


def test_open_uses_the_dialog_seam_and_opens_packs(qtbot, copies):
    from tests.editor_support import LINE_PACK

    line, _ = copies
    window = _window(qtbot)
    window.ask_open_path = lambda: line
    _press(qtbot, window, Qt.Key.Key_O)  # Ctrl+O
    assert window.current.path == line
    window.ask_open_folder = lambda: LINE_PACK
    window.files.open_folder_action.trigger()
    assert len(window.documents) == 5
    from editor.files.manager import recent_files

    assert recent_files()[:2] == [str(LINE_PACK), str(line)]


# recent files ----------------------------------------------------------------------------------
def test_recent_files_most_recent_first_at_most_ten_and_missing_ones_pruned(qtbot, tmp_path):
    from editor.files.manager import MAX_RECENT, recent_files, remember_recent

    paths = []
    for number in range(12):
        path = tmp_path / f"d{number}.json"
        shutil.copy(LINE_DUNGEON, path)
        paths.append(path)
        remember_recent(path)
    assert recent_files() == [str(p) for p in reversed(paths)][:MAX_RECENT]
    window = _window(qtbot)
    actions = window.files.recent_actions()
    assert [a.data() for a in actions] == recent_files()
    assert actions[0].text().endswith("d11.json")
    actions[3].trigger()  # opens d8 and moves it first
    assert window.current.path == paths[8]
    assert recent_files()[0] == str(paths[8]) and len(recent_files()) == MAX_RECENT
    paths[10].unlink()
    missing = next(a for a in window.files.recent_actions() if a.data() == str(paths[10]))
    missing.trigger()
    assert str(paths[10]) not in recent_files()
    level, title, text = window.show_file_message[-1]
    assert level == "warning" and "no longer exists" in text and "removed" in text
    assert len(window.documents) == 1


def test_recent_files_survive_a_new_window(qtbot, copies):
    line, grid = copies
    first = _window(qtbot, line)
    first.files.open_file(grid)
    second = _window(qtbot)
    assert [a.data() for a in second.files.recent_actions()][:2] == [str(grid), str(line)]


def test_window_layout_comes_back_from_the_settings(qtbot):
    first = _window(qtbot)
    first.resize(720, 530)
    history = first.findChild(QDockWidget, "history")
    history.hide()
    first.close()  # saves the layout (MainWindow.about_to_close)
    second = _window(qtbot)
    # restored at start-up on a real screen; offscreen (tests, screenshots) keeps the default
    assert (second.width(), second.height()) != (720, 530)
    second.files.restore_layout()
    assert (second.width(), second.height()) == (720, 530)
    assert second.findChild(QDockWidget, "history").isHidden()


# autosave and recovery ---------------------------------------------------------------------------
def test_autosave_writes_a_recovery_file_and_a_clean_save_removes_it(qtbot, copies):
    line, _ = copies
    window = _window(qtbot, line)
    document = window.current
    assert window.files.autosave_now() == []  # nothing modified, nothing written
    _retitle(window)
    [recovery] = window.files.autosave_now()
    record = json.loads(recovery.read_text(encoding="utf-8"))
    assert record["dungeon_text"] == document.canonical_text()
    assert record["original_path"] == str(line) and record["saved_at"]
    assert window.files.autosave_now() == []  # unchanged since: not rewritten
    _retitle(window, "Again")
    assert window.files.autosave_now() == [recovery]
    assert json.loads(recovery.read_text(encoding="utf-8"))["dungeon_text"] == document.canonical_text()
    window.action("save").trigger()
    assert not recovery.exists()
    # undoing back to the saved state removes it too
    _retitle(window, "Third")
    [recovery] = window.files.autosave_now()
    window.action("undo").trigger()
    assert not document.modified and not recovery.exists()
    # closing the dungeon (changes discarded) removes it
    _retitle(window, "Fourth")
    [recovery] = window.files.autosave_now()
    window.close_document(document)
    assert not recovery.exists()


def test_autosave_runs_on_its_timer(qtbot, copies):
    line, _ = copies
    window = _window(qtbot, line)
    assert window.files.autosave_interval_ms == 30_000
    window.files.set_autosave_interval(40)
    _retitle(window)
    # well below the default interval (30 s): only the 40 ms timer can pass this
    qtbot.waitUntil(lambda: window.files.recovery_file(window.current) is not None, timeout=15_000)


def test_normal_quit_removes_recovery_files(qtbot, copies):
    line, _ = copies
    window = _window(qtbot, line)
    _retitle(window)
    [recovery] = window.files.autosave_now()
    window.close()  # the prompt answers Discard (make_window)
    assert not recovery.exists()


def _new_window_offering(qtbot, answer):
    """A window built as the editor starts one, with ``ask_recover`` answering ``answer(entries)``
    (the recovery check runs once the event loop does)."""
    from exporters.qt import ensure_app

    ensure_app()
    from editor.mainwindow import MainWindow

    window = MainWindow()
    window.confirm_discard = lambda document: True
    window.show_file_message = Messages()
    offered = []

    def ask(entries):
        offered.append(list(entries))
        return answer(entries)

    window.ask_recover = ask
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not window.files.startup_timer.isActive())
    return window, offered


def test_recovery_after_a_window_dropped_without_closing(qtbot, copies):
    line, _ = copies
    from exporters.qt import ensure_app

    ensure_app()
    from editor.mainwindow import MainWindow

    crashed = MainWindow()
    crashed.show_file_message = Messages()
    assert crashed.files.open_file(line)
    crashed.set_current(crashed.current)
    crashed.show()
    qtbot.waitExposed(crashed)
    view = crashed.view
    monster = next(e for e in crashed.current.dungeon.elements if e.kind == "monster")
    view.set_zoom(2.0)
    view.centerOn(*monster.at)
    drag(view, monster.at, (monster.at[0] + 15, monster.at[1] + 10))  # an edit with the mouse
    assert crashed.current.modified
    autosaved = crashed.current.canonical_text()
    [recovery] = crashed.files.autosave_now()

    # a live window's autosaves are never offered to another window
    _, offered = _new_window_offering(qtbot, lambda entries: entries)
    assert offered == []

    shiboken6.delete(crashed)  # gone without any close handler: as in a crash
    assert recovery.exists()
    window, offered = _new_window_offering(qtbot, lambda entries: entries)
    assert [e.file for e in offered[0]] == [recovery]
    entry = offered[0][0]
    assert entry.original_path == line and entry.title
    document = window.current
    assert document.canonical_text() == autosaved
    assert document.path == line and document.modified
    assert window.tabs.tabText(0).endswith("*")
    assert not recovery.exists()
    assert window.files.recovery_file(document) is not None  # safe again at once
    window.action("save").trigger()  # Save writes back to the original file
    assert line.read_text(encoding="utf-8") == autosaved
    assert window.files.recovery_file(document) is None


_CRASHING_EDITOR = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {repo!r})
    from exporters.qt import ensure_app
    ensure_app()
    from editor.dungeon.edits import ChangeSheet
    from editor.mainwindow import MainWindow
    window = MainWindow()
    assert window.files.open_file({line!r})
    window.current.push(ChangeSheet(window.current.dungeon, "title", "Written before the crash"))
    [path] = window.files.autosave_now()
    with open({out!r}, "w", encoding="utf-8") as handle:
        handle.write(window.current.canonical_text())
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGKILL"), reason="needs POSIX signals")
def test_recovery_after_the_editor_process_was_killed(qtbot, copies, tmp_path):
    line, _ = copies
    out = tmp_path / "autosaved.json"
    script = _CRASHING_EDITOR.format(repo=str(REPO), line=str(line), out=str(out))
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == -9, result.stderr
    autosaved = out.read_text(encoding="utf-8")
    window, offered = _new_window_offering(qtbot, lambda entries: entries)
    assert len(offered) == 1 and len(offered[0]) == 1
    assert window.current.canonical_text() == autosaved
    assert window.current.dungeon.sheet.title == "Written before the crash"
    assert window.current.path == line and window.current.modified


def _crashed_with_edit(line):
    """A window (never shown) with ``line`` open and retitled: a session about to crash."""
    from exporters.qt import ensure_app

    ensure_app()
    from editor.mainwindow import MainWindow

    crashed = MainWindow()
    crashed.files.open_file(line)
    _retitle(crashed)
    return crashed


def test_recovery_declined_deletes_and_later_keeps(qtbot, copies):
    line, _ = copies
    crashed = _crashed_with_edit(line)
    [recovery] = crashed.files.autosave_now()
    shiboken6.delete(crashed)
    window, offered = _new_window_offering(qtbot, lambda entries: None)  # decide later
    assert offered and recovery.exists() and window.documents == []
    assert window.files.check_recovery() == []
    window.ask_recover = lambda entries: []  # discard
    assert window.files.check_recovery() == [] and not recovery.exists()


def test_damaged_recovery_file_is_reported_and_set_aside(qtbot, copies):
    line, _ = copies
    crashed = _crashed_with_edit(line)
    [recovery] = crashed.files.autosave_now()
    record = json.loads(recovery.read_text(encoding="utf-8"))
    record["dungeon_text"] = "{not json"
    recovery.write_text(json.dumps(record), encoding="utf-8")
    shiboken6.delete(crashed)
    window, offered = _new_window_offering(qtbot, lambda entries: entries)
    assert window.documents == []
    level, title, text = window.show_file_message[-1]
    assert level == "warning" and "damaged" in text
    assert not recovery.exists() and recovery.with_suffix(".damaged").exists()


def test_default_dialogs_give_what_the_seams_return(qtbot, copies, tmp_path):
    from editor.files.manager import NewDungeonDialog, RecoveryDialog, RecoveryEntry
    from inkcrawl.rulesets import bundled_rulesets

    rulesets = list(bundled_rulesets().values())
    dialog = NewDungeonDialog(rulesets)
    qtbot.addWidget(dialog)
    chosen = rulesets[1]
    dialog.family_box.setCurrentIndex(dialog.family_box.findData(chosen.family))  # family first
    dialog.ruleset_box.setCurrentIndex(dialog.ruleset_box.findData(1))
    dialog.title_edit.setText("Ember Crypt")
    board = chosen.data.get("board", {})
    size = (board.get("columns", 7), board.get("rows", 7)) if chosen.family == "grid" else None
    assert dialog.choice() == (chosen, "Ember Crypt", size)
    entries = [RecoveryEntry(tmp_path / f"{n}.json", f"Dungeon {n}", None, "now", "s", {}) for n in range(2)]
    recovery = RecoveryDialog(entries)
    qtbot.addWidget(recovery)
    recovery.list.item(0).setCheckState(Qt.CheckState.Unchecked)
    recovery._recover()
    assert recovery.result_entries == [entries[1]]


def test_close_prompt_save_goes_through_the_safe_save(qtbot, copies, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    import editor.mainwindow

    line, _ = copies
    window = _window(qtbot, line)
    del window.confirm_discard  # the window's own prompt, answered below instead of by a person
    answers = []
    monkeypatch.setattr(editor.mainwindow.QMessageBox, "question", lambda *args, **kwargs: answers.pop(0))
    _retitle(window)
    answers.append(QMessageBox.StandardButton.Cancel)
    assert window.close_document(window.current) is False and window.current.modified
    answers.append(QMessageBox.StandardButton.Save)
    text = window.current.canonical_text()
    assert window.close_document(window.current) is True
    assert line.read_text(encoding="utf-8") == text and window.documents == []
    # a new dungeon's Save asks for a file; cancelling it keeps the dungeon open
    from inkcrawl.rulesets import bundled_rulesets

    document = window.files.create_document(bundled_rulesets()["grid-classic"], "Fresh")
    _retitle(window, "Fresh and edited")
    window.ask_save_path = lambda d: None
    answers.append(QMessageBox.StandardButton.Save)
    assert window.close_document(document) is False and window.documents == [document]
    window.ask_save_path = lambda d: tmp_path / "fresh.json"
    answers.append(QMessageBox.StandardButton.Save)
    assert window.close_document(document) is True
    assert (tmp_path / "fresh.json").is_file()


@pytest.mark.parametrize(
    "damage",
    [
        # valid JSON, wrong types: opening it built a canvas item from a text rotation (a crash)
        lambda record: record.__setitem__(
            "dungeon_text", record["dungeon_text"].replace('"rotation_deg": 0', '"rotation_deg": "x"', 1)
        ),
        lambda record: record.__setitem__("dungeon_text", "[1, 2]"),
        lambda record: record.__setitem__("ruleset", {"type": "ruleset"}),
        # a ruleset of the other family
        lambda record: record.__setitem__(
            "ruleset", json.loads((REPO / "content/rulesets/grid-classic.json").read_text(encoding="utf-8"))
        ),
    ],
)
def test_recovery_file_damaged_into_valid_json_is_set_aside(qtbot, copies, damage):
    line, _ = copies
    crashed = _crashed_with_edit(line)
    [recovery] = crashed.files.autosave_now()
    record = json.loads(recovery.read_text(encoding="utf-8"))
    assert '"rotation_deg": 0' in record["dungeon_text"]
    damage(record)
    recovery.write_text(json.dumps(record), encoding="utf-8")
    shiboken6.delete(crashed)
    window, offered = _new_window_offering(qtbot, lambda entries: entries)
    assert window.documents == []
    level, title, text = window.show_file_message[-1]
    assert level == "warning" and "damaged" in text
    assert not recovery.exists() and recovery.with_suffix(".damaged").exists()


def test_recovery_files_with_odd_members_are_still_offered(qtbot, copies):
    """A recovery file whose path or time members hold other types raised while the editor
    started (``Path(5)``, sorting a text among numbers)."""
    line, _ = copies
    crashed = _crashed_with_edit(line)
    first = crashed.files.autosave_now()[0]
    record = json.loads(first.read_text(encoding="utf-8"))
    record["original_path"] = 5
    record["saved_at_epoch"] = "yesterday"
    first.write_text(json.dumps(record), encoding="utf-8")
    second = first.with_name(first.stem + "-copy.json")
    record["saved_at_epoch"] = 12.5
    second.write_text(json.dumps(record), encoding="utf-8")
    shiboken6.delete(crashed)
    window, offered = _new_window_offering(qtbot, lambda entries: entries)
    assert len(offered[0]) == 2
    assert len(window.documents) == 2 and all(d.path is None and d.modified for d in window.documents)
