"""The editor window offscreen: opening, selecting and dragging with the mouse, undo during a
drag, copy/paste between dungeons, the launcher's --screenshot."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from editor.dungeon.edits import find
from tests.editor_support import LINE_DUNGEON, LINE_PACK, REPO, click, drag, make_window, view_point


def _monster(window):
    return next(e for e in window.current.dungeon.elements if e.kind == "monster")


def test_click_selects_and_drag_moves_in_one_undo_step(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    window.view.set_zoom(2.0)
    monster = _monster(window)
    window.view.centerOn(*monster.at)
    x, y = monster.at
    click(window.view, x, y)
    assert window.scene.selected_refs() == [monster.id]
    before = window.current.canonical_text()
    drag(window.view, (x, y), (x + 20, y + 10))
    moved = find(window.current.dungeon, monster.id)[2]
    assert moved.at != (x, y)
    assert abs(moved.at[0] - (x + 20)) <= window.ctx.grid_step_mm and abs(moved.at[1] - (y + 10)) <= 5
    assert window.current.undo_stack.count() == 1  # the whole drag is one step
    window.action("undo").trigger()
    assert window.current.canonical_text() == before


def test_undo_during_a_drag_ends_it_safely(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    window.view.set_zoom(2.0)
    monster = _monster(window)
    window.view.centerOn(*monster.at)
    x, y = monster.at
    before = window.current.canonical_text()
    viewport = window.view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(window.view, x, y))
    for i in range(1, 6):
        QTest.mouseMove(viewport, view_point(window.view, x + 4 * i, y))
    assert window.current.canonical_text() != before
    window.action("undo").trigger()
    assert window.current.canonical_text() == before
    QTest.mouseMove(viewport, view_point(window.view, x + 30, y))
    QTest.mouseRelease(
        viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(window.view, x + 30, y)
    )
    assert window.current.canonical_text() == before  # no edit after the undo
    assert not window.scene.dragging


def test_rubber_band_and_shift_click(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    elements = [e for e in window.current.dungeon.elements if e.at is not None and e.kind == "monster"][:2]
    xs = [e.at[0] for e in elements]
    ys = [e.at[1] for e in elements]
    click(window.view, 2, 2)  # empty paper: clears
    drag(window.view, (0.5, 0.5), (209, 296))
    assert set(e.id for e in elements) <= set(window.scene.selected_refs())
    click(window.view, 2, 2)
    assert window.scene.selected_refs() == []
    click(window.view, xs[0], ys[0])
    click(window.view, xs[1], ys[1], modifiers=Qt.KeyboardModifier.ShiftModifier)
    assert set(window.scene.selected_refs()) == {e.id for e in elements}


def test_copy_paste_between_dungeons_of_a_pack_and_delete(qtbot):
    window = make_window(qtbot, LINE_PACK)
    assert len(window.documents) == 4
    first = window.documents[0]
    monster = _monster(window)
    window.scene.select_refs([monster.id])
    window.action("copy").trigger()
    window.set_current(window.documents[1])
    count = len(window.current.dungeon.elements)
    window.action("paste").trigger()
    assert len(window.current.dungeon.elements) == count + 1
    pasted = window.current.dungeon.elements[-1]
    assert (
        pasted.kind == "monster"
        and pasted.id not in {e.id for e in first.dungeon.elements if e is not monster}
        or pasted.id != monster.id
    )
    assert window.scene.selected_refs() == [pasted.id]
    window.action("delete").trigger()
    assert len(window.current.dungeon.elements) == count
    window.action("duplicate").trigger()  # nothing selected: nothing happens
    assert len(window.current.dungeon.elements) == count


def test_screenshot_command(tmp_path):
    out = tmp_path / "shot.png"
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "edit", str(LINE_DUNGEON), "--screenshot", str(out), "--size", "900x700"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 700)
    bad = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "edit", str(tmp_path / "nope.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "does not exist" in bad.stderr and "Traceback" not in bad.stderr


def test_screenshot_on_a_high_dpi_screen(tmp_path):
    """At a device pixel ratio of 2 the window renders at twice the pixels, with nothing cut."""
    import os

    out = tmp_path / "hidpi.png"
    env = dict(os.environ, QT_SCALE_FACTOR="2")
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "edit", str(LINE_DUNGEON), "--screenshot", str(out), "--size", "1000x700"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (2000, 1400)


def _generated_dungeon(tmp_path, elements: int):
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("editor_canvas", REPO / "benchmarks" / "editor_canvas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(module.make_dungeon(elements, 1)), encoding="utf-8")
    return path


def test_moving_deleting_and_undoing_many_selected_objects_reports_the_selection_once(qtbot, tmp_path):
    """Each selected item Qt removed or reselected reported a selection change, and each report
    rebuilt the inspector: one step of dragging 2,000 selected objects took minutes, undoing the
    drag 40 s. A whole edit now reports the selection at most once."""
    from editor.dungeon.edits import MoveObjects

    window = make_window(qtbot, _generated_dungeon(tmp_path, 600))
    window.action("select_all").trigger()
    refs = window.scene.selected_refs()
    assert len(refs) > 600
    reports = []
    window.scene.selection_refs_changed.connect(reports.append)
    window.current.push(MoveObjects(window.current.dungeon, refs, 1.0, 0.0, merge_key="many"))
    window.current.push(MoveObjects(window.current.dungeon, refs, 1.0, 0.0, merge_key="many"))
    window.current.undo_stack.undo()
    assert reports == []  # the same objects stay selected
    assert set(window.scene.selected_refs()) == set(refs)
    assert all(window.scene.items_by_ref[r] in window.scene._painted_selection for r in refs)
    window.delete_selection()
    assert len(reports) == 1 and reports[-1] == []
    window.current.undo_stack.undo()
    assert len(reports) <= 2
    assert len(window.scene.items_by_ref) == len(refs)


def test_screenshot_of_a_file_that_cannot_open_says_why_and_exits(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "dungeon",}')
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "edit", str(bad), "--screenshot", str(tmp_path / "x.png")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "cannot be opened" in result.stderr and "comma after the last item" in result.stderr
    assert not (tmp_path / "x.png").exists()
    missing = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "edit", str(LINE_DUNGEON), "--screenshot", str(tmp_path / "no" / "x.png")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def _editor_env(tmp_path) -> dict:
    """The environment of an editor started by a test: offscreen, with settings and recovery
    files in ``tmp_path`` (never shared with the tests or other editors)."""
    import os

    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
    )


def test_sigterm_stops_the_editor_cleanly(tmp_path):
    import signal

    from editor.app import READY_LINE
    from tests.waiting import wait_for_line

    with (tmp_path / "stderr.txt").open("w") as stderr:  # a file: a pipe nobody reads could fill up
        process = subprocess.Popen(
            [sys.executable, "-m", "inkcrawl", "edit", str(LINE_DUNGEON)],
            env=_editor_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        ready = wait_for_line(process.stdout, READY_LINE, "the editor's window to open")
        assert f"(process {process.pid})" in ready
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
    err = (tmp_path / "stderr.txt").read_text()
    assert process.returncode == 143, err
    assert "stopped by SIGTERM" in err and "Traceback" not in err


# Starts the editor as `inkcrawl edit` does (through the command line, whose own handler turns
# SIGTERM into an "interrupted" exit 130) and sends SIGTERM to itself at one moment of start-up.
_SIGNAL_DURING_START_UP = """
import os, signal, sys
moment, path = sys.argv[1], sys.argv[2]
import editor.app, editor.files.manager, editor.mainwindow
from PySide6.QtWidgets import QApplication

def terminate():
    os.kill(os.getpid(), signal.SIGTERM)

def before(owner, name):
    real = getattr(owner, name)
    def wrapper(*args, **kwargs):
        terminate()
        return real(*args, **kwargs)
    setattr(owner, name, wrapper)

if moment == "loading Qt":
    before(editor.app, "make_application")
elif moment == "building the window":
    before(editor.files.manager, "install")  # one of the window's feature modules
elif moment == "opening the file":
    before(editor.mainwindow.MainWindow, "open_path")
elif moment == "showing the window":
    before(editor.mainwindow.MainWindow, "show")
elif moment == "entering the event loop":
    real_exec = QApplication.exec  # a static method: called on the instance, without it
    def exec_(*_args):
        terminate()
        return real_exec()
    QApplication.exec = exec_
elif moment == "a message box at start-up":  # path cannot open: a dialog waits for a click
    from PySide6.QtCore import QTimer
    real_tell = editor.mainwindow.MainWindow.tell
    def tell(self, *args):
        QTimer.singleShot(0, terminate)  # while the dialog's own event loop runs
        return real_tell(self, *args)
    editor.mainwindow.MainWindow.tell = tell
from inkcrawl.cli import main
sys.exit(main(["edit", path]))
"""


@pytest.mark.parametrize(
    "moment",
    [
        "loading Qt",
        "building the window",
        "opening the file",
        "showing the window",
        "entering the event loop",
        "a message box at start-up",
    ],
)
def test_sigterm_during_start_up_stops_the_editor_cleanly(tmp_path, moment):
    """Before the window is up, SIGTERM ended the editor through the command line's handler:
    "inkcrawl: interrupted", exit 130. At every moment of start-up it stops the editor the
    same way as later: exit 143 and the same message, also from a dialog waiting for a click."""
    path = LINE_DUNGEON
    if moment == "a message box at start-up":
        path = tmp_path / "broken.json"
        path.write_text('{"type": "dungeon",}')
    result = subprocess.run(
        [sys.executable, "-c", _SIGNAL_DURING_START_UP, moment, str(path)],
        cwd=REPO,
        env=_editor_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 143, result.stderr
    assert "stopped by SIGTERM" in result.stderr and "unsaved dungeons are kept as recovery files" in result.stderr
    assert "interrupted" not in result.stderr and "Traceback" not in result.stderr
    assert "ready" not in result.stdout


def test_grid_snap_and_step_rotation_have_letter_shortcuts_every_layout_can_type(qtbot):
    """Ctrl+' and Ctrl+] need punctuation keys that some layouts put behind AltGr; each of
    these commands also answers a letter shortcut, shown in its tooltip."""
    from PySide6.QtCore import Qt as QtKeys

    window = make_window(qtbot, LINE_DUNGEON)
    view, ctx = window.view, window.ctx
    window.windowHandle().requestActivate()  # shortcuts need the active window
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    view.setFocus()
    grid_before, snap_before = view.show_grid, ctx.snap_enabled
    QTest.keyClick(view.viewport(), QtKeys.Key.Key_G, QtKeys.KeyboardModifier.ControlModifier)
    assert view.show_grid is not grid_before
    QTest.keyClick(
        view.viewport(),
        QtKeys.Key.Key_G,
        QtKeys.KeyboardModifier.ControlModifier | QtKeys.KeyboardModifier.ShiftModifier,
    )
    assert ctx.snap_enabled is not snap_before
    assert "Ctrl+G" in window.action("show_grid").toolTip()
    element = next(e for e in window.current.dungeon.elements if e.at is not None and e.kind == "monster")
    window.select_refs([element.id], zoom=False)
    before = element.rotation_deg
    QTest.keyClick(
        view.viewport(), QtKeys.Key.Key_R, QtKeys.KeyboardModifier.ControlModifier | QtKeys.KeyboardModifier.AltModifier
    )
    turned = next(e for e in window.current.dungeon.elements if e.id == element.id)
    assert turned.rotation_deg == (before + 15) % 360


def test_without_a_display_the_editor_says_so_instead_of_hiding_offscreen(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "edit", str(LINE_DUNGEON)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "no display" in result.stderr and "--screenshot" in result.stderr
    out = tmp_path / "shot.png"  # --screenshot needs none
    shot = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "edit", str(LINE_DUNGEON), "--screenshot", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.returncode == 0 and out.stat().st_size > 10_000, shot.stderr


def test_the_grid_shown_on_a_grid_dungeon_is_its_cells_not_a_mm_grid(qtbot):
    from tests.editor_support import GRID_DUNGEON

    window = make_window(qtbot, GRID_DUNGEON)
    view, grid = window.view, window.current.dungeon.grid
    view.set_zoom(1.0)
    view.centerOn(grid.origin_mm[0] + grid.cell_mm, grid.origin_mm[1] + grid.cell_mm)

    def grab():
        view.viewport().repaint()
        return view.viewport().grab().toImage()

    view.show_grid = False
    plain = grab()
    view.show_grid = True
    shown = grab()
    row = view.mapFromScene(0, grid.origin_mm[1] + grid.cell_mm * 0.37).y()  # inside a room, off the walls

    def changed(x_mm: float) -> bool:
        x = view.mapFromScene(x_mm, 0).x()
        return any(plain.pixel(x + dx, row) != shown.pixel(x + dx, row) for dx in (-1, 0, 1))

    assert changed(grid.origin_mm[0] + grid.cell_mm)  # a cell boundary
    inside = grid.origin_mm[0] + grid.cell_mm
    five = next(x for x in range(int(inside) + 2, int(inside + grid.cell_mm) - 1) if x % 5 == 0)
    assert not changed(five)  # where the 5 mm grid of the line family would draw a line


def test_the_selection_is_listed_in_file_order_whatever_order_it_was_made_in(qtbot):
    """``selected_refs`` lists objects in file order (areas, walls, elements), however they were
    selected, without walking every item; an object added by an edit comes after those there."""
    from editor.dungeon.edits import AddObjects, ref_of
    from inkcrawl.model import Element

    window = make_window(qtbot, LINE_DUNGEON)
    dungeon = window.current.dungeon
    picked = [dungeon.elements[4], dungeon.areas[1], dungeon.elements[0], dungeon.areas[0]]
    window.scene.select_refs([ref_of(o) for o in picked])
    in_file_order = [dungeon.areas[0].id, dungeon.areas[1].id, dungeon.elements[0].id, dungeon.elements[4].id]
    assert window.scene.selected_refs() == in_file_order
    added = Element(id="monster-added", kind="monster", at=(60.0, 60.0), size_mm=6.0, rotation_deg=0.0)
    window.current.push(AddObjects([("elements", None, added)]))
    window.scene.select_refs([added.id, dungeon.areas[0].id], add=True)
    assert window.scene.selected_refs() == [*in_file_order, added.id]
