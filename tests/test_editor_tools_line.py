"""Line-family canvas tools driven by simulated mouse and keyboard input (offscreen): rooms and
corridors by drag and by clicks, walls, vertex editing, doors with locks, every element kind,
artifact stone numbering, Escape, and exact undo and redo of each edit."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QDockWidget, QSpinBox

from editor.dungeon.document import new_document
from editor.dungeon.edits import AddObjects
from editor.dungeon.templates import template_data
from editor.tools.line import ELEMENT_KINDS, TOOL_SPECS
from inkcrawl.model import Area, Element
from inkcrawl.rulesets import bundled_rulesets
from tests.editor_support import LINE_DUNGEON, click, drag, make_window, view_point

NO_MOD = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton


# helpers ------------------------------------------------------------------------------------
def _send_mouse(
    view, kind, x_mm, y_mm, button=Qt.MouseButton.NoButton, buttons=Qt.MouseButton.NoButton, modifiers=NO_MOD
):
    pos = QPointF(view_point(view, x_mm, y_mm))
    event = QMouseEvent(kind, pos, QPointF(view.viewport().mapToGlobal(pos.toPoint())), button, buttons, modifiers)
    QApplication.sendEvent(view.viewport(), event)


def hover(view, x_mm, y_mm):
    """Move the pointer (no button held) to a sheet point."""
    _send_mouse(view, QEvent.Type.MouseMove, x_mm, y_mm)


def double_click(view, x_mm, y_mm):
    """What Qt delivers for a double-click: press, release, double-click, release."""
    click(view, x_mm, y_mm)
    _send_mouse(view, QEvent.Type.MouseButtonDblClick, x_mm, y_mm, LEFT, LEFT)
    _send_mouse(view, QEvent.Type.MouseButtonRelease, x_mm, y_mm, LEFT, Qt.MouseButton.NoButton)


def key(view, which):
    QTest.keyClick(view, which)


def new_line_window(qtbot, rooms=()):
    """A window with a new line dungeon from the ruleset template (plus ``rooms``: polygons
    added as rooms before the test, not on the undo stack), at 200 % centred on (60, 66) mm."""
    window = make_window(qtbot)
    ruleset = bundled_rulesets()["line-classic"]
    document = new_document(template_data(ruleset, "Tool Test"), ruleset)
    for i, polygon in enumerate(rooms, start=1):
        AddObjects([("areas", None, Area(f"hall-{i}", "room", list(polygon)))]).redo(document.dungeon)
    window.add_document(document)
    activate(qtbot, window)
    window.view.set_zoom(2.0)
    window.view.centerOn(60, 66)
    for corner in ((18, 30), (102, 102)):  # the tests' working area is on screen
        assert window.view.viewport().rect().contains(view_point(window.view, *corner)), corner
    return window


def activate(qtbot, window):
    """Make the window active with the canvas focused, so single-key and Delete shortcuts
    behave as for a user (offscreen windows are not active by themselves); docks are hidden
    to give the canvas the room of the small offscreen screen (after the window's start-up,
    which restores the saved layout)."""
    qtbot.waitUntil(lambda: not window.files.startup_timer.isActive(), timeout=10_000)
    for dock in window.findChildren(QDockWidget):
        dock.hide()
    window.resize(800, 800)
    qtbot.waitUntil(
        lambda: window.view.viewport().width() > 600 and window.view.viewport().height() > 600, timeout=3000
    )
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.view.setFocus()


def schema_problems(window):
    return [p.problem for p in window.current.validate_now() if p.problem.code == "S001"]


def assert_undo_redo(window, before):
    """Undo gives back the exact canonical JSON; redo makes the edit again."""
    after = window.current.canonical_text()
    assert after != before
    window.action("undo").trigger()
    assert window.current.canonical_text() == before
    window.action("redo").trigger()
    assert window.current.canonical_text() == after


ROOM_A = [(20, 40), (60, 40), (60, 70), (20, 70)]
ROOM_B = [(60, 40), (100, 40), (100, 70), (60, 70)]


# catalogue ----------------------------------------------------------------------------------
def test_tool_catalogue_keys_are_unique_and_shown(qtbot):
    keys = [spec.key for spec in TOOL_SPECS]
    assert len(keys) == len(set(keys)) and "V" not in keys
    assert all(len(k) == 1 for k in keys)
    kinds = {spec.id for spec in TOOL_SPECS}
    ruleset = bundled_rulesets()["line-classic"]
    assert set(ruleset.elements) - {"door"} <= kinds  # one placement tool per element kind
    assert {"room", "corridor", "vertices", "wall", "door"} <= kinds
    window = new_line_window(qtbot)
    for spec in TOOL_SPECS:
        action = window.tool_actions[spec.id]
        assert action.shortcut().toString() == spec.key
        assert spec.key in action.toolTip() and spec.tooltip
    QTest.keyClick(window.view, Qt.Key.Key_R)
    assert window.tool.spec.id == "room"


# areas --------------------------------------------------------------------------------------
def test_room_rectangle_by_drag(qtbot):
    window = new_line_window(qtbot)
    before = window.current.canonical_text()
    window.set_tool("room")
    drag(window.view, (20, 40), (60, 70))
    (area,) = window.current.dungeon.areas
    assert (area.id, area.kind) == ("room-1", "room")
    assert area.polygon == [(20, 40), (60, 40), (60, 70), (20, 70)]
    assert window.current.undo_stack.count() == 1
    assert not schema_problems(window)
    assert_undo_redo(window, before)


def test_corridor_polygon_by_clicks_closed_on_the_first_point(qtbot):
    window = new_line_window(qtbot)
    before = window.current.canonical_text()
    window.set_tool("corridor")
    for point in ((20, 40), (60, 40), (60, 70), (40, 80)):
        click(window.view, *point)
    assert window.current.dungeon.areas == []  # still drawing
    click(window.view, 20.4, 40.3)  # on the first point: closes
    (area,) = window.current.dungeon.areas
    assert (area.id, area.kind) == ("corridor-1", "corridor")
    assert area.polygon == [(20, 40), (60, 40), (60, 70), (40, 80)]
    assert not schema_problems(window)
    assert_undo_redo(window, before)


def test_polygon_closed_by_double_click_and_by_enter_backspace_takes_back(qtbot):
    window = new_line_window(qtbot)
    window.set_tool("room")
    click(window.view, 20, 40)
    click(window.view, 60, 40)
    click(window.view, 90, 90)  # a mistake
    key(window.view, Qt.Key.Key_Backspace)
    double_click(window.view, 60, 70)
    assert window.current.dungeon.areas[0].polygon == [(20, 40), (60, 40), (60, 70)]
    assert window.current.undo_stack.count() == 1
    # Backspace while drawing takes back a point and never deletes the selection
    window.scene.select_refs(["room-1"])
    for point in ((70, 40), (100, 40), (100, 70)):
        click(window.view, *point)
    key(window.view, Qt.Key.Key_Backspace)
    key(window.view, Qt.Key.Key_Delete)
    click(window.view, 90, 80)
    click(window.view, 80, 75)
    key(window.view, Qt.Key.Key_Return)
    rooms = window.current.dungeon.areas
    assert [a.id for a in rooms] == ["room-1", "room-2"]
    assert rooms[1].polygon == [(70, 40), (90, 80), (80, 75)]


def test_degenerate_outlines_are_refused_without_an_edit(qtbot):
    window = new_line_window(qtbot)
    messages = []
    window.ctx.status = messages.append
    window.set_tool("room")
    for point in ((20, 40), (40, 40), (60, 40)):  # all on one line
        click(window.view, *point)
    key(window.view, Qt.Key.Key_Return)
    assert window.current.dungeon.areas == [] and window.current.undo_stack.count() == 0
    assert "no surface" in messages[-1]
    key(window.view, Qt.Key.Key_Escape)
    click(window.view, 20, 40)
    click(window.view, 40, 40)
    key(window.view, Qt.Key.Key_Return)  # two points
    assert "at least 3 distinct points" in messages[-1]
    key(window.view, Qt.Key.Key_Escape)
    drag(window.view, (20, 40), (20, 80))  # a rectangle without width
    for point in ((20, 40), (60, 80), (60, 40), (20, 80)):  # a bow tie crosses itself
        click(window.view, *point)
    key(window.view, Qt.Key.Key_Return)
    assert "crosses itself" in messages[-1]
    assert window.current.dungeon.areas == [] and window.current.undo_stack.count() == 0


def test_escape_cancels_drawing_without_an_edit(qtbot):
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    before = window.current.canonical_text()
    for tool in ("room", "corridor", "wall"):
        window.set_tool(tool)
        click(window.view, 30, 80)
        click(window.view, 50, 80)
        click(window.view, 50, 100)
        key(window.view, Qt.Key.Key_Escape)
        key(window.view, Qt.Key.Key_Return)  # nothing left to finish
        assert window.tool.points == []
    window.set_tool("door")
    viewport = window.view.viewport()
    QTest.mousePress(viewport, LEFT, NO_MOD, view_point(window.view, 60, 45))
    QTest.mouseMove(viewport, view_point(window.view, 60, 52))
    key(window.view, Qt.Key.Key_Escape)
    QTest.mouseRelease(viewport, LEFT, NO_MOD, view_point(window.view, 60, 57))
    assert window.current.canonical_text() == before
    assert window.current.undo_stack.count() == 0


# walls --------------------------------------------------------------------------------------
def test_wall_by_clicks_snaps_to_vertices_and_walls(qtbot):
    window = new_line_window(qtbot, [ROOM_A])
    before = window.current.canonical_text()
    window.set_tool("wall")
    click(window.view, 20.6, 40.5)  # near the room's corner: snaps onto the vertex
    click(window.view, 40.4, 41.2)  # near the room's top edge: onto it, at a grid line
    double_click(window.view, 43, 57)  # inside: the grid
    (wall,) = window.current.dungeon.walls
    assert wall.id == "wall-1"
    assert wall.points == [(20, 40), (40, 40), (45, 55)]
    assert not schema_problems(window)
    assert_undo_redo(window, before)
    window.set_tool("wall")
    click(window.view, 30, 50)
    click(window.view, 30, 60)
    key(window.view, Qt.Key.Key_Enter)
    assert window.current.dungeon.walls[-1].points == [(30, 50), (30, 60)]
    click(window.view, 30, 50)
    double_click(window.view, 30, 50)  # one distinct point: no wall
    assert len(window.current.dungeon.walls) == 2


# vertices -----------------------------------------------------------------------------------
def test_vertex_drag_is_one_undo_step(qtbot):
    window = new_line_window(qtbot, [ROOM_A])
    before = window.current.canonical_text()
    window.set_tool("vertices")
    drag(window.view, (60, 40), (72, 33), steps=10)
    area = window.current.dungeon.areas[0]
    assert area.polygon == [(20, 40), (70, 35), (60, 70), (20, 70)]
    assert window.current.undo_stack.count() == 1
    assert not window.scene.dragging
    assert_undo_redo(window, before)
    # Escape during a drag puts the vertex back
    viewport = window.view.viewport()
    QTest.mousePress(viewport, LEFT, NO_MOD, view_point(window.view, 20, 70))
    for i in range(1, 5):
        QTest.mouseMove(viewport, view_point(window.view, 20 - 2 * i, 70 + 2 * i))
    assert window.current.dungeon.areas[0].polygon[3] != (20, 70)
    key(window.view, Qt.Key.Key_Escape)
    QTest.mouseRelease(viewport, LEFT, NO_MOD, view_point(window.view, 10, 80))
    assert window.current.dungeon.areas[0].polygon == [(20, 40), (70, 35), (60, 70), (20, 70)]


def test_vertex_insert_and_remove(qtbot):
    window = new_line_window(qtbot, [ROOM_A])
    before = window.current.canonical_text()
    window.set_tool("vertices")
    double_click(window.view, 40, 70.3)  # on the bottom edge
    area = window.current.dungeon.areas[0]
    assert area.polygon == [(20, 40), (60, 40), (60, 70), (40, 70), (20, 70)]
    assert_undo_redo(window, before)
    inserted = window.current.canonical_text()
    # Alt+click removes a vertex
    click(window.view, 60, 40, modifiers=Qt.KeyboardModifier.AltModifier)
    assert window.current.dungeon.areas[0].polygon == [(20, 40), (60, 70), (40, 70), (20, 70)]
    assert_undo_redo(window, inserted)
    # Delete while the pointer is on a vertex removes that vertex, not the room
    hover(window.view, 40, 70)
    key(window.view, Qt.Key.Key_Delete)
    assert window.current.dungeon.areas[0].polygon == [(20, 40), (60, 70), (20, 70)]
    hover(window.view, 20, 70)
    key(window.view, Qt.Key.Key_Backspace)  # only 3 left: kept
    assert window.current.dungeon.areas[0].polygon == [(20, 40), (60, 70), (20, 70)]
    assert window.current.undo_stack.count() == 3
    assert not schema_problems(window)


def test_wall_keeps_two_points(qtbot):
    window = new_line_window(qtbot, [ROOM_A])
    window.set_tool("wall")
    click(window.view, 30, 50)
    click(window.view, 40, 50)
    double_click(window.view, 50, 50)
    window.set_tool("vertices")
    click(window.view, 40, 50, modifiers=Qt.KeyboardModifier.AltModifier)
    assert window.current.dungeon.walls[0].points == [(30, 50), (50, 50)]
    click(window.view, 30, 50, modifiers=Qt.KeyboardModifier.AltModifier)
    assert window.current.dungeon.walls[0].points == [(30, 50), (50, 50)]


# doors --------------------------------------------------------------------------------------
def test_door_with_two_locks_on_a_shared_edge(qtbot):
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    before = window.current.canonical_text()
    window.set_tool("door")
    boxes = {box.text(): box for box in window.options_bar.findChildren(QCheckBox)}
    assert set(boxes) == {"red", "green", "blue", "yellow", "skeleton"}
    assert boxes["red"].isChecked()
    boxes["blue"].click()
    drag(window.view, (60.4, 45), (60.3, 57.2))
    (door,) = window.current.dungeon.elements
    assert (door.id, door.kind, door.locks) == ("door-1", "door", ["red", "blue"])
    (x0, y0), (x1, y1) = door.segment
    assert (x0, y0, x1) == (60, 45, 60) and abs(y1 - 57.2) < 0.2  # on the shared edge
    problems = window.current.validate_now()
    assert not [p for p in problems if p.problem.code in ("S001", "L008")]
    assert_undo_redo(window, before)


def test_door_by_click_and_skeleton_lock(qtbot):
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    window.set_tool("door")
    boxes = {box.text(): box for box in window.options_bar.findChildren(QCheckBox)}
    boxes["red"].click()
    boxes["skeleton"].click()
    click(window.view, 80, 70.2)  # the bottom edge of the second room: a 12 mm door centred there
    (door,) = window.current.dungeon.elements
    assert door.segment == ((74, 70), (86, 70)) and door.locks == ["skeleton"]
    boxes["skeleton"].click()  # no lock chosen: refused
    click(window.view, 80, 40)
    assert len(window.current.dungeon.elements) == 1
    click(window.view, 80, 55)  # not on a wall
    assert len(window.current.dungeon.elements) == 1
    assert not schema_problems(window)


# elements -----------------------------------------------------------------------------------
EXPECTED = {
    "monster": {"size_mm": 8},
    "boss": {"size_mm": 16, "vp": 5},
    "spell": {"size_mm": 10, "variant": "bolt"},
    "treasure": {"size_mm": 10, "variant": "chest"},
    "artifact_stone": {"size_mm": 5, "number": 1},
    "plant": {"size_mm": 7},
    "orb": {"size_mm": 8, "colour": "blue"},
    "key": {"size_mm": 6, "colour": "red"},
    "skeleton_key": {"size_mm": 6},
    "prisoner": {"size_mm": 7},
    "portal_entry": {"size_mm": 8, "channel": "A"},
    "portal_exit": {"size_mm": 8, "channel": "A"},
    "escape_portal": {"size_mm": 10},
    "start": {"size_mm": 8},
    "exit": {"size_mm": 8},
    "label": {"text": "Mind the wax", "text_height_mm": 3},
}


@pytest.mark.parametrize("kind", [spec.kind for spec in ELEMENT_KINDS])
def test_each_element_tool_places_its_element(qtbot, kind):
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    before = window.current.canonical_text()
    window.set_tool(kind)
    if kind == "label":
        window.tool.ask_text = lambda view: "  Mind the wax "
    at = (20.4, 54.6) if kind == "start" else (41.2, 53.8)  # a Start snaps onto the outer wall
    click(window.view, *at)
    (element,) = window.current.dungeon.elements
    assert element.kind == kind
    assert element.at == ((20, 55) if kind == "start" else (40, 55))
    assert element.rotation_deg == 0
    for name, value in EXPECTED[kind].items():
        assert getattr(element, name) == value, name
    assert not schema_problems(window)
    rules = [p.problem.code for p in window.current.problems if p.ref == element.id]
    assert not [c for c in rules if c in ("L005", "L006", "L011", "L021", "L022")], rules
    assert_undo_redo(window, before)


def test_element_options_change_what_is_placed(qtbot):
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    window.set_tool("boss")
    window.options_bar.findChild(QSpinBox, "vp").setValue(7)
    click(window.view, 40, 55)
    window.set_tool("spell")
    window.options_bar.findChild(QComboBox, "variant").setCurrentText("star")
    click(window.view, 80, 50)
    window.set_tool("portal_exit")
    combo = window.options_bar.findChild(QComboBox, "channel")
    combo.setEditText("pink")
    click(window.view, 85, 62)
    window.set_tool("key")
    window.options_bar.findChild(QComboBox, "key_colour").setCurrentText("yellow")
    click(window.view, 70, 62)
    boss, spell, portal, key_element = window.current.dungeon.elements
    assert (boss.vp, spell.variant, portal.channel, key_element.colour) == (7, "star", "pink", "yellow")
    window.set_tool("boss")  # options are remembered while the editor runs
    assert window.options_bar.findChild(QSpinBox, "vp").value() == 7
    assert not schema_problems(window)


def test_label_without_text_is_not_made(qtbot):
    window = new_line_window(qtbot, [ROOM_A])
    window.set_tool("label")
    window.tool.ask_text = lambda view: None
    click(window.view, 40, 55)
    window.tool.ask_text = lambda view: "   "
    click(window.view, 40, 55)
    assert window.current.dungeon.elements == [] and window.current.undo_stack.count() == 0


def test_artifact_stones_are_numbered_automatically(qtbot):
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    window.set_tool("artifact_stone")
    for at in ((40, 65), (80, 45), (30, 45)):
        click(window.view, *at)
    numbers = {e.at: e.number for e in window.current.dungeon.elements}
    assert numbers == {(40, 65): 1, (80, 45): 2, (30, 45): 3}
    window.action("undo").trigger()
    window.action("undo").trigger()
    click(window.view, 90, 60)
    assert [e.number for e in window.current.dungeon.elements] == [1, 2]
    # a gap in the numbers is filled first
    AddObjects(
        [("elements", None, Element("stone-x", "artifact_stone", at=(50, 60), size_mm=5, rotation_deg=0, number=5))]
    ).redo(window.current.dungeon)
    click(window.view, 70, 50)
    assert sorted(e.number for e in window.current.dungeon.elements) == [1, 2, 3, 5]
    # renumbering on demand: the window's Dungeon > Renumber Artifact Stones
    window.action("renumber_stones").trigger()
    ordered = sorted(window.current.dungeon.elements, key=lambda e: (e.at[1] // 10, e.at[0]))
    assert [e.number for e in ordered] == [1, 2, 3, 4]
    assert not schema_problems(window)


def test_tools_on_a_copy_of_a_bundled_dungeon(qtbot, tmp_path):
    target = tmp_path / LINE_DUNGEON.name
    shutil.copy(LINE_DUNGEON, target)
    window = make_window(qtbot, target)
    activate(qtbot, window)
    window.view.set_zoom(2.0)
    document = window.current
    room = document.dungeon.areas[0]
    xs = [p[0] for p in room.polygon]
    ys = [p[1] for p in room.polygon]
    window.view.centerOn((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    before = document.canonical_text()
    stones = [e.number for e in document.dungeon.elements if e.kind == "artifact_stone"]
    window.set_tool("artifact_stone")
    click(window.view, (min(xs) + max(xs)) / 2, max(ys) - 4)
    placed = document.dungeon.elements[-1]
    assert placed.kind == "artifact_stone" and placed.number not in stones
    assert placed.id not in {e.id for e in document.dungeon.elements[:-1]}
    assert not schema_problems(window)
    assert_undo_redo(window, before)
    window.action("undo").trigger()
    assert document.canonical_text() == target.read_text(encoding="utf-8")


def test_undo_during_a_vertex_drag_ends_it_safely(qtbot):
    window = new_line_window(qtbot, [ROOM_A])
    before = window.current.canonical_text()
    window.set_tool("vertices")
    viewport = window.view.viewport()
    QTest.mousePress(viewport, LEFT, NO_MOD, view_point(window.view, 60, 70))
    for i in range(1, 5):
        QTest.mouseMove(viewport, view_point(window.view, 60 + 3 * i, 70))
    assert window.current.canonical_text() != before
    window.action("undo").trigger()
    assert window.current.canonical_text() == before
    QTest.mouseMove(viewport, view_point(window.view, 90, 90))
    QTest.mouseRelease(viewport, LEFT, NO_MOD, view_point(window.view, 90, 90))
    assert window.current.canonical_text() == before  # no edit after the undo
    assert not window.scene.dragging


def test_previews_and_handles_paint(qtbot):
    """Previews of every tool draw without error (pytest-qt fails the test on an exception
    raised while Qt paints), and handles keep their screen size at any zoom."""
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    viewport = window.view.viewport()
    window.set_tool("room")
    click(window.view, 30, 80)
    click(window.view, 50, 80)
    hover(window.view, 50, 95)
    viewport.grab()
    key(window.view, Qt.Key.Key_Escape)
    QTest.mousePress(viewport, LEFT, NO_MOD, view_point(window.view, 30, 80))
    QTest.mouseMove(viewport, view_point(window.view, 40, 90))
    QTest.mouseMove(viewport, view_point(window.view, 50, 95))
    viewport.grab()
    QTest.mouseRelease(viewport, LEFT, NO_MOD, view_point(window.view, 50, 95))
    window.set_tool("door")
    QTest.mousePress(viewport, LEFT, NO_MOD, view_point(window.view, 60, 45))
    QTest.mouseMove(viewport, view_point(window.view, 60, 50))
    QTest.mouseMove(viewport, view_point(window.view, 60, 55))
    viewport.grab()
    QTest.mouseRelease(viewport, LEFT, NO_MOD, view_point(window.view, 60, 55))
    for tool in ("monster", "label", "vertices"):
        window.set_tool(tool)
        hover(window.view, 40, 55)
        viewport.grab()
    window.scene.select_refs(["hall-1"])
    for zoom in (0.5, 4.0):
        window.view.set_zoom(zoom)
        viewport.grab()
    assert [e.kind for e in window.current.dungeon.elements] == ["door"]
    assert len(window.current.dungeon.areas) == 3


def test_dragging_a_shared_corner_keeps_the_rooms_joined(qtbot):
    window = new_line_window(qtbot, [ROOM_A, ROOM_B])
    before = window.current.canonical_text()
    window.set_tool("vertices")
    drag(window.view, (60, 40), (65, 35))
    first, second = window.current.dungeon.areas
    assert first.polygon[1] == (65, 35) and second.polygon[0] == (65, 35)
    assert window.current.undo_stack.count() == 1
    assert_undo_redo(window, before)
    window.action("undo").trigger()
    # Ctrl at the press detaches the corner: only the room worked on moves
    window.scene.select_refs(["hall-2"])
    drag(window.view, (60, 70), (65, 75), modifiers=Qt.KeyboardModifier.ControlModifier)
    first, second = window.current.dungeon.areas
    assert first.polygon[2] == (60, 70) and second.polygon[3] == (65, 75)


def test_edit_shapes_undo_is_exact_and_merges_by_key():
    from editor.dungeon.line_edits import EditShapes, coincident_vertices
    from inkcrawl.jsonio import dumps_canonical
    from inkcrawl.model import dungeon_from_dict

    ruleset = bundled_rulesets()["line-classic"]
    dungeon = dungeon_from_dict(template_data(ruleset))
    for i, polygon in enumerate((ROOM_A, ROOM_B), start=1):
        AddObjects([("areas", None, Area(f"hall-{i}", "room", list(polygon)))]).redo(dungeon)
    before = dumps_canonical(dungeon.to_dict())
    assert coincident_vertices(dungeon, (60, 40), "hall-1") == [("hall-2", 0)]
    first = EditShapes(
        dungeon,
        {"hall-1": [(20, 40), (61, 40), (60, 70), (20, 70)], "hall-2": [(61, 40), (100, 40), (100, 70), (60, 70)]},
        merge_key="k",
    )
    first.redo(dungeon)
    second = EditShapes(
        dungeon,
        {
            "hall-1": [(20, 40), (62.0004, 40), (60, 70), (20, 70)],
            "hall-2": [(62.0004, 40), (100, 40), (100, 70), (60, 70)],
        },
        merge_key="k",
    )
    second.redo(dungeon)
    assert first.merge(second) and first.refs == {"hall-1", "hall-2"}
    assert dungeon.areas[1].polygon[0] == (62, 40)
    first.undo(dungeon)
    assert dumps_canonical(dungeon.to_dict()) == before
    first.redo(dungeon)
    assert dungeon.areas[0].polygon[1] == (62, 40)
    assert not first.merge(EditShapes(dungeon, {"hall-1": ROOM_A}, merge_key="k"))
