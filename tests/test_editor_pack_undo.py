"""Undo and redo of the Pack dock's edits, offscreen, through the dock's buttons and the
keyboard: each kind of pack edit undone and redone restores the exact list and manifest;
a removed dungeon comes back with its unsaved edits; random sequences undone leave
``pack.json`` byte for byte; Ctrl+Z follows the keyboard focus; the "Pack *" mark follows
the stack's clean state."""

from __future__ import annotations

import copy
import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from editor.pack.edits import ABSENT, AddDungeon, ChangeManifestField, MoveDungeon, RemoveDungeon
from tests.editor_support import click_pack_row as _click_row
from tests.editor_support import copy_pack as _pack_copy
from tests.editor_support import make_window

LEFT = Qt.MouseButton.LeftButton
CTRL = Qt.KeyboardModifier.ControlModifier


def _window(qtbot, pack):
    window = make_window(qtbot, pack)
    browser = window.pack_browser
    browser.ask_save_pack = lambda: "discard"
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    return window, browser


def _click(button) -> None:
    QTest.mouseClick(button, LEFT)


def _state(window, browser):
    """Everything a pack edit may change: the entries (file and document object, in order),
    the manifest, the window's documents in tab order, what the manifest editors show."""
    return (
        [(e.relative, e.document) for e in browser.entries],
        copy.deepcopy(browser.manifest),
        list(window.documents),
        browser.name_edit.text(),
        browser.version_edit.text(),
        browser.description_edit.toPlainText(),
        browser.list.count(),
    )


def _type_line(qtbot, edit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    QTest.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)
    QTest.keyClick(edit, Qt.Key.Key_Return)


def _type_description(qtbot, browser, text: str) -> None:
    edit = browser.description_edit
    edit.setFocus()
    edit.selectAll()
    QTest.keyClick(edit, Qt.Key.Key_Delete)
    if text:
        qtbot.keyClicks(edit, text)


def test_each_pack_edit_undone_and_redone_restores_list_and_manifest(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    browser.ask_title = lambda default: "Moss Gate"

    def add():
        _click_row(browser, 1)
        _click(browser.buttons["add"])

    def duplicate():
        _click_row(browser, 0)
        _click(browser.buttons["duplicate"])

    def remove():
        _click_row(browser, 2)
        _click(browser.buttons["delete"])

    def up():
        _click_row(browser, 3)
        _click(browser.buttons["up"])

    def down():
        _click_row(browser, 0)
        _click(browser.buttons["down"])

    steps = [
        (add, AddDungeon, "Add dungeon 'Moss Gate'"),
        (duplicate, AddDungeon, "Duplicate dungeon 'The Candlewick Cellars'"),
        (remove, RemoveDungeon, "Remove dungeon"),
        (up, MoveDungeon, "up"),
        (down, MoveDungeon, "down"),
        (
            lambda: _type_line(qtbot, browser.name_edit, "Lantern Depths Deluxe"),
            ChangeManifestField,
            "Change pack name to 'Lantern Depths Deluxe'",
        ),
        (
            lambda: _type_line(qtbot, browser.version_edit, "1.2.0"),
            ChangeManifestField,
            "Change pack version to '1.2.0'",
        ),
        (lambda: _type_description(qtbot, browser, "Four dungeons."), ChangeManifestField, "Change pack description"),
        (lambda: _type_description(qtbot, browser, ""), ChangeManifestField, "Change pack description"),
    ]
    for edit, kind, text in steps:
        before = _state(window, browser)
        count = browser.undo_stack.count()
        edit()
        after = _state(window, browser)
        assert after != before, text
        assert browser.undo_stack.count() == count + 1, text  # one step, even for a run of typing
        assert text in browser.undo_stack.undoText()
        assert isinstance(browser.undo_stack.command(browser.undo_stack.index() - 1).edit, kind)
        assert browser.modified and browser.parentWidget().windowTitle() == "Pack *"
        assert text in browser.undo_button.toolTip() and "Ctrl+Z" in browser.undo_button.toolTip()
        _click(browser.undo_button)
        assert _state(window, browser) == before, text
        assert text in browser.redo_button.toolTip()
        _click(browser.redo_button)
        assert _state(window, browser) == after, text
        assert [e.document for e in browser.entries if e.document is not None] == [
            d for d in window.documents if any(d is e.document for e in browser.entries)
        ]
    assert "description" not in browser.manifest  # an emptied description leaves the member out
    _click(browser.undo_button)
    assert browser.manifest["description"] == "Four dungeons."


def test_description_typing_is_one_step_per_stretch_and_back_to_old_is_none(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    original = browser.manifest["description"]
    edit = browser.description_edit
    edit.setFocus()
    edit.moveCursor(edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(edit, " More.")
    assert browser.undo_stack.count() == 1 and browser.manifest["description"] == original + " More."
    for _ in range(len(" More.")):
        QTest.keyClick(edit, Qt.Key.Key_Backspace)
    assert browser.undo_stack.count() == 0 and not browser.modified  # typed back: no step left
    qtbot.keyClicks(edit, "!")
    browser.list.setFocus()  # the focus moves: the next typing is a new step
    edit.setFocus()
    qtbot.keyClicks(edit, "?")
    assert browser.undo_stack.count() == 2
    browser.list.setFocus()
    QTest.keyClick(browser.list, Qt.Key.Key_Z, CTRL)
    assert edit.toPlainText() == original + "!" and browser.manifest["description"] == original + "!"
    QTest.keyClick(browser.list, Qt.Key.Key_Z, CTRL)
    assert edit.toPlainText() == original and browser.manifest["description"] == original
    assert not browser.modified
    assert ChangeManifestField(browser.pack, "description", ABSENT, 0).text == "Change pack description"


def test_remove_then_undo_brings_back_the_document_with_its_unsaved_edit(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    _click_row(browser, 1)
    document = window.current
    file_bytes = document.path.read_bytes()
    window.scene.select_refs([document.dungeon.elements[0].id])
    window.action("delete").trigger()
    edited = document.canonical_text()
    assert document.modified
    asked = []
    window.confirm_discard = lambda d: asked.append(d) or True
    _click_row(browser, 1)
    _click(browser.buttons["delete"])
    assert not asked  # nothing is asked: the removal is undoable and keeps the edit
    assert document not in window.documents and len(browser.entries) == 3
    assert document.path.read_bytes() == file_bytes  # the file stays, untouched
    assert "stays on disk" in browser.message.text()
    _click(browser.undo_button)
    assert browser.entries[1].document is document and window.documents[1] is document
    assert window.current is document and document.modified and document.canonical_text() == edited
    assert document.undo_stack.count() == 1  # its own history too
    _click(browser.redo_button)
    assert document not in window.documents and browser.removed[0].document is document
    # removed with unsaved edits: closing the window asks about them (Save writes its own file)
    assert window.close()
    assert [d for d in asked if d is document] == [document]
    assert document.path.read_bytes() == file_bytes  # "discard": the file on disk is untouched


def test_add_undo_redo_brings_back_the_same_document(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    browser.ask_title = lambda default: "Moss Gate"
    before = _state(window, browser)
    _click_row(browser, 3)
    _click(browser.buttons["add"])
    added = window.current
    assert added.dungeon.sheet.title == "Moss Gate" and browser.entries[4].document is added
    _click(browser.undo_button)
    assert _state(window, browser) == before and added not in window.documents
    assert not (pack / "dungeons" / "moss-gate.json").exists()
    _click(browser.redo_button)
    assert browser.entries[4].document is added and window.documents[4] is added and window.current is added
    assert browser.save_pack() and (pack / "dungeons" / "moss-gate.json").exists()


def test_ctrl_z_follows_the_focus_pack_or_canvas(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    _click_row(browser, 0)
    document = window.current
    # a canvas edit, then a pack edit
    window.view.setFocus()
    window.scene.select_refs([document.dungeon.elements[0].id])
    window.action("delete").trigger()
    edited = document.canonical_text()
    order = [e.relative for e in browser.entries]
    _click_row(browser, 0)
    _click(browser.buttons["down"])
    moved = [e.relative for e in browser.entries]
    assert moved == [order[1], order[0]] + order[2:]
    # focus in the pack list: Ctrl+Z undoes the pack edit, not the canvas edit
    _click_row(browser, 1)
    assert QApplication.focusWidget() is browser.list
    assert window.undo_group.activeStack() is browser.undo_stack
    assert window.undo_view.stack() is browser.undo_stack  # the History dock shows the pack's history
    QTest.keyClick(browser.list, Qt.Key.Key_Z, CTRL)
    assert [e.relative for e in browser.entries] == order and document.canonical_text() == edited
    QTest.keyClick(browser.list, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert [e.relative for e in browser.entries] == moved
    QTest.keyClick(browser.list, Qt.Key.Key_Z, CTRL)
    assert [e.relative for e in browser.entries] == order
    # focus on the canvas: Ctrl+Z undoes the canvas edit
    window.set_current(document)
    rect = window.view.viewport().rect()
    empty_corner = rect.bottomRight() - rect.center() / 8
    QTest.mouseClick(window.view.viewport(), LEFT, Qt.KeyboardModifier.NoModifier, empty_corner)
    assert QApplication.focusWidget() is window.view
    assert window.undo_group.activeStack() is document.undo_stack
    QTest.keyClick(window.view, Qt.Key.Key_Z, CTRL)
    assert document.undo_stack.index() == 0 and not document.modified
    assert [e.relative for e in browser.entries] == order and browser.undo_stack.canRedo()


def test_history_dock_keeps_the_pack_history_and_other_docks_give_it_back(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    _click_row(browser, 0)
    _click(browser.buttons["down"])
    _click_row(browser, 2)
    _click(browser.buttons["up"])
    order = [e.relative for e in browser.entries]
    assert window.undo_view.stack() is browser.undo_stack
    # clicking the first line of the History dock ("<opened>") takes the pack back there
    history = window.undo_view
    QTest.mouseClick(
        history.viewport(),
        LEFT,
        Qt.KeyboardModifier.NoModifier,
        history.visualRect(history.model().index(0, 0)).center(),
    )
    assert window.undo_group.activeStack() is browser.undo_stack and browser.undo_stack.index() == 0
    assert [e.relative for e in browser.entries] != order and not browser.modified
    # the focus moves to another dock: the dungeon's own history is in charge again
    other = next(
        w for w in window.inspector.findChildren(QWidget) if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible()
    )
    other.setFocus()
    assert window.undo_group.activeStack() is window.current.undo_stack


def test_clean_state_follows_save_and_undo(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    dock = browser.parentWidget()
    assert not browser.modified and dock.windowTitle() == "Pack"
    _click_row(browser, 0)
    _click(browser.buttons["down"])
    assert browser.modified and dock.windowTitle() == "Pack *"
    _click(browser.save_button)
    assert not browser.modified and dock.windowTitle() == "Pack" and browser.undo_stack.isClean()
    saved = (pack / "pack.json").read_bytes()
    _type_line(qtbot, browser.name_edit, "Renamed")
    assert browser.modified and dock.windowTitle() == "Pack *"
    _click(browser.undo_button)
    assert not browser.modified and dock.windowTitle() == "Pack"  # back to the saved state
    _click(browser.undo_button)
    assert browser.modified and dock.windowTitle() == "Pack *"  # before the save: differs again
    _click(browser.redo_button)
    assert not browser.modified
    assert browser.save_pack() and (pack / "pack.json").read_bytes() == saved


EDIT = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(["Moss Gate", "Ash Hall", "Moss Gate"])),
    st.tuples(st.sampled_from(["duplicate", "remove", "up", "down", "row"]), st.integers(0, 9)),
    st.tuples(st.just("name"), st.sampled_from(["Deep", "Lantern Depths", ""])),
    st.tuples(st.just("version"), st.sampled_from(["2.0.0", "1.0.1-beta", "1.0"])),
    st.tuples(st.just("description"), st.sampled_from(["", "Short.", "  "])),
    st.tuples(st.sampled_from(["undo", "redo"]), st.just(0)),
)


def test_random_pack_edits_undone_leave_pack_json_byte_for_byte(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    original = (pack / "pack.json").read_bytes()
    files = sorted(p.name for p in (pack / "dungeons").iterdir())
    start = _state(window, browser)
    title = {"value": ""}
    kinds: set[str] = set()
    browser.ask_title = lambda default: title["value"]

    @settings(
        max_examples=30,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(EDIT, min_size=2, max_size=10))
    def run(edits):
        for kind, value in edits:
            if kind == "add":
                title["value"] = value
                _click(browser.buttons["add"])
            elif kind in ("duplicate", "remove", "up", "down", "row"):
                _click_row(browser, value % len(browser.entries))
                if kind != "row":
                    button = browser.buttons["delete" if kind == "remove" else kind]
                    if button.isEnabled():
                        _click(button)
            elif kind == "name":
                _type_line(qtbot, browser.name_edit, value)
            elif kind == "version":
                _type_line(qtbot, browser.version_edit, value)
            elif kind == "description":
                _type_description(qtbot, browser, value)
                browser.list.setFocus()
            else:
                button = browser.undo_button if kind == "undo" else browser.redo_button
                if button.isEnabled():
                    _click(button)
            # the model's modified state is the stack's clean state, step by step
            assert browser.modified == (not browser.undo_stack.isClean()), (kind, value)
        for index in range(browser.undo_stack.index()):
            kinds.add(type(browser.undo_stack.command(index).edit).__name__)
        while browser.undo_button.isEnabled():
            _click(browser.undo_button)
        assert not browser.modified
        assert _state(window, browser) == start
        assert browser.save_pack(), browser.message.text()
        assert (pack / "pack.json").read_bytes() == original
        assert sorted(p.name for p in (pack / "dungeons").iterdir()) == files

    run()
    assert len(kinds) >= 4, kinds  # the examples did make most kinds of pack edit


def test_a_removed_dungeon_with_unsaved_edits_keeps_its_recovery_file(qtbot, tmp_path):
    """While only the pack's undo holds a removed dungeon's unsaved edits, autosave keeps
    writing its recovery file, so a crash loses nothing; once the history lets it go (the
    user answered Save or Discard), the recovery file goes too."""
    import json

    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    files = window.files
    _click_row(browser, 1)
    document = window.current
    window.scene.select_refs([document.dungeon.elements[0].id])
    window.action("delete").trigger()
    edited = document.canonical_text()
    files.autosave_now()
    recovery = files.recovery_file(document)
    assert recovery is not None
    _click_row(browser, 1)
    _click(browser.buttons["delete"])
    assert document not in window.documents
    assert files.recovery_file(document) == recovery  # not dropped with the tab
    window.scene.select_refs([])
    files.autosave_now()
    assert json.loads(recovery.read_text(encoding="utf-8"))["dungeon_text"] == edited
    browser.forget_history()  # the history lets the dungeon go
    files.autosave_now()
    assert not recovery.exists()


def test_opening_another_pack_never_drops_a_removed_dungeons_unsaved_edits(qtbot, tmp_path):
    """Another pack replaces this one (and its undo history): a removed dungeon with unsaved
    edits is asked about; answering Cancel keeps it open in a tab of its own, edits and all."""
    import shiboken6

    from tests.editor_support import GRID_PACK

    pack = _pack_copy(tmp_path)
    other = tmp_path / "ember-halls"
    shutil.copytree(GRID_PACK, other)
    window, browser = _window(qtbot, pack)
    _click_row(browser, 1)
    document = window.current
    window.scene.select_refs([document.dungeon.elements[0].id])
    window.action("delete").trigger()
    edited = document.canonical_text()
    _click_row(browser, 1)
    _click(browser.buttons["delete"])
    asked = []
    window.confirm_discard = lambda d: asked.append(d) or False  # Cancel
    assert window.open_path(other)
    assert asked == [document]
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # a deleteLater runs now
    assert shiboken6.isValid(document) and document in window.documents
    assert document.modified and document.canonical_text() == edited
    assert browser.manifest_path == other / "pack.json" and not browser.removed


def test_the_removal_notice_goes_when_the_removal_is_undone(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    _click_row(browser, 1)
    _click(browser.buttons["delete"])
    assert browser.message.isVisibleTo(browser) and "Removed" in browser.message.text()
    _click(browser.undo_button)
    assert not browser.message.isVisibleTo(browser)  # it no longer tells the truth


def test_removing_and_bringing_back_a_dungeon_does_not_pile_up_its_connections(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    calls = []
    window._update_title = lambda d: calls.append(d)

    def title_updates_of_an_edit(document) -> int:
        calls.clear()
        window.set_current(document)
        window.scene.select_refs([document.dungeon.elements[0].id])
        window.action("delete").trigger()  # modified: the title gains its mark
        document.undo_stack.undo()  # clean again
        return calls.count(document)

    document = window.documents[1]
    before = title_updates_of_an_edit(document)
    for _ in range(3):
        _click_row(browser, 1)
        _click(browser.buttons["delete"])
        _click(browser.undo_button)
    assert window.documents[1] is document
    assert before >= 1 and title_updates_of_an_edit(document) == before
