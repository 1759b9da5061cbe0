"""Direct manipulation as Tiled users expect: unambiguous shortcuts on every platform, panning
from the first moment, never acting on the wrong object, the editor showing all the CLI does."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtTest import QTest

from editor import actions as action_specs
from tests.editor_support import GRID_DUNGEON, LINE_DUNGEON, make_window

PLATFORMS = sorted(action_specs.PLATFORM_BINDINGS)


def _as_platform(monkeypatch, platform: str) -> None:
    table = action_specs.PLATFORM_BINDINGS[platform]
    monkeypatch.setattr(action_specs, "standard_bindings", lambda key: [QKeySequence(s) for s in table[key]])


def _live_shortcuts(window) -> dict[str, list[str]]:
    """Every sequence of every action in a menu, tool bar or the window -> the actions using it."""
    owners: dict[str, list[str]] = {}
    for action in window.findChildren(QAction):
        if not action.associatedObjects() or not action.isEnabled() and not action.shortcuts():
            continue
        for key in action.shortcuts():
            if not key.isEmpty():
                owners.setdefault(key.toString(), [])
                if action.objectName() not in owners[key.toString()]:
                    owners[key.toString()].append(action.objectName())
    return owners


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("path", [LINE_DUNGEON, GRID_DUNGEON], ids=["line", "grid"])
def test_no_two_actions_share_a_shortcut_on_any_platform(qtbot, monkeypatch, platform, path):
    _as_platform(monkeypatch, platform)
    window = make_window(qtbot, path)
    owners = _live_shortcuts(window)
    clashes = {key: names for key, names in owners.items() if len(names) > 1}
    assert clashes == {}
    assert owners["Ctrl+D"] == ["duplicate"]
    assert owners["Del"] == ["delete"]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_ctrl_d_duplicates_and_del_deletes_on_every_platform(qtbot, monkeypatch, platform):
    """Under KDE and GNOME Qt's standard Delete includes Ctrl+D: the key press must still
    duplicate (one more monster), not be swallowed as an ambiguous shortcut."""
    _as_platform(monkeypatch, platform)
    window = make_window(qtbot, LINE_DUNGEON)
    window.windowHandle().requestActivate()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    window.view.setFocus()
    monster = next(e for e in window.current.dungeon.elements if e.kind == "monster")
    count = len(window.current.dungeon.elements)
    window.select_refs([monster.id], zoom=False)
    QTest.keyClick(window.view.viewport(), Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    assert len(window.current.dungeon.elements) == count + 1
    QTest.keyClick(window.view.viewport(), Qt.Key.Key_Delete)
    assert len(window.current.dungeon.elements) == count


def _focus_widget():
    from PySide6.QtWidgets import QApplication

    return QApplication.focusWidget()


@pytest.mark.parametrize("path", [LINE_DUNGEON, GRID_DUNGEON], ids=["line", "grid"])
def test_space_drag_pans_right_after_opening(qtbot, path):
    """No click first: the canvas has the keyboard when the window shows, so Space+drag scrolls
    the view by the drag and edits nothing."""
    from tests.editor_support import view_point

    window = make_window(qtbot, path)
    window.windowHandle().requestActivate()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    qtbot.waitUntil(lambda: _focus_widget() is window.view, timeout=2000)
    window.view.set_zoom(3.0)
    before = window.current.canonical_text()
    view, viewport = window.view, window.view.viewport()
    h, v = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    # the middle of the sheet: on a room or an element of both bundled dungeons
    paper = view.scene().background.boundingRect()
    centre = (paper.center().x(), paper.center().y())
    view.centerOn(*centre)
    h, v = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    QTest.keyPress(_focus_widget(), Qt.Key.Key_Space)
    start = view_point(view, *centre)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for i in range(1, 6):
        QTest.mouseMove(viewport, start + QPoint(-10 * i, -8 * i))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(-50, -40))
    QTest.keyRelease(_focus_widget(), Qt.Key.Key_Space)
    assert window.current.canonical_text() == before
    assert window.current.undo_stack.count() == 0
    assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == (h + 50, v + 40)


def test_middle_button_and_wheel_work_before_any_click(qtbot):
    from tests.editor_support import view_point

    window = make_window(qtbot, LINE_DUNGEON)
    view, viewport = window.view, window.view.viewport()
    window.view.set_zoom(3.0)
    view.centerOn(105, 148)
    h, v = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    start = view_point(view, 105, 148)
    QTest.mousePress(viewport, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(30, 20))
    QTest.mouseRelease(viewport, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, start + QPoint(30, 20))
    assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == (h - 30, v - 20)
    assert window.current.undo_stack.count() == 0
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    zoom = view.zoom()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    wheel = QWheelEvent(
        centre,
        QPointF(viewport.mapToGlobal(centre.toPoint())),
        QPoint(),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, wheel)
    assert view.zoom() == pytest.approx(zoom * 1.15)


def _shared_id_file(tmp_path):
    """The bundled line dungeon with monster m2 (at 135, 85) renamed m1, the id of the monster
    at (32, 50): validate reports C001."""
    import json

    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    for element in data["elements"]:
        if element["id"] == "m2":
            element["id"] = "m1"
    path = tmp_path / "shared.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, data


def _window_answering(qtbot, answer: bool):
    from exporters.qt import ensure_app

    ensure_app()
    from editor.mainwindow import MainWindow

    window = MainWindow()
    window.confirm_discard = lambda document: True
    asked = []
    window.ask_renumber_duplicates = lambda document, shared: asked.append(list(shared)) or answer
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window, asked


def _at(window, x, y):
    from tests.editor_support import click

    window.view.set_zoom(2.0)
    window.view.centerOn(x, y)
    click(window.view, x, y)
    return window.scene.selected_refs()


def test_opening_shared_ids_offers_a_renumber_in_one_undo_step(qtbot, tmp_path):
    path, data = _shared_id_file(tmp_path)
    window, asked = _window_answering(qtbot, True)
    assert window.open_path(path)
    assert asked == [["m1"]]
    elements = window.current.dungeon.elements
    ids = [e.id for e in elements]
    assert len(ids) == len(set(ids))
    second = next(e for e in elements if e.at == (135, 85))
    assert second.id == "m2"  # the first free id in its style: m2 no longer exists
    assert window.current.undo_stack.count() == 1
    assert _at(window, 135, 85) == ["m2"]
    assert _at(window, 32, 50) == ["m1"]
    window.action("undo").trigger()
    assert [e.id for e in window.current.dungeon.elements] == [e["id"] for e in data["elements"]]


def test_declining_keeps_each_object_with_a_shared_id_its_own(qtbot, tmp_path):
    """Kept duplicates are each addressed by an editor key: clicking the second m1 selects it
    (not the first), Delete removes it alone, a drag moves it alone and Undo brings back exactly
    that object; the saved file holds both monsters as the file had them."""
    import json

    from inkcrawl.model import dungeon_from_dict
    from tests.editor_support import drag

    path, data = _shared_id_file(tmp_path)
    window, asked = _window_answering(qtbot, False)
    assert window.open_path(path)
    assert asked == [["m1"]]
    assert "m1" in window.statusBar().currentMessage()
    document = window.current

    def monsters():
        return [(e.id, e.at) for e in document.dungeon.elements if e.kind == "monster"]

    before = monsters()
    assert ("m1", (32, 50)) in before and ("m1", (135, 85)) in before
    second = _at(window, 135, 85)
    first = _at(window, 32, 50)
    assert len(second) == 1 and len(first) == 1 and second != first
    assert window.inspector.fields_by_name["id"].edit.text() == "m1"
    # Delete acts on the object clicked, and undo puts exactly it back
    assert _at(window, 135, 85) == second
    window.action("delete").trigger()
    assert monsters() == [m for m in before if m != ("m1", (135, 85))]
    window.action("undo").trigger()
    assert monsters() == before
    # a drag moves the second one only; undo does not turn it into a copy of the first
    _at(window, 135, 85)
    drag(window.view, (135, 85), (150, 95))
    moved = monsters()
    assert ("m1", (32, 50)) in moved and ("m1", (135, 85)) not in moved
    assert len(moved) == len(before)
    window.action("undo").trigger()
    assert monsters() == before
    assert _at(window, 68, 64) == ["p1"]  # other objects are addressed by their ids as always
    window.current.save(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved == dungeon_from_dict(data).to_dict()  # both written back, nothing else changed
    window.ask_renumber_duplicates = lambda document, shared: True
    window.action("renumber_ids").trigger()
    assert _at(window, 135, 85) == ["m2"]  # unique ids again: references are the ids


def test_a_shared_id_renamed_in_the_inspector_changes_that_object_only(qtbot, tmp_path):
    """The id field of the second m1 shows its id; a new id applies to it alone, the selection
    follows it, and undo gives the id back to the same object."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    path, _ = _shared_id_file(tmp_path)
    window, _ = _window_answering(qtbot, False)
    assert window.open_path(path)
    document = window.current
    [ref] = _at(window, 135, 85)
    field = window.inspector.fields_by_name["id"].edit
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, "m9")
    QTest.keyClick(field, Qt.Key.Key_Return)
    ids = {e.at: e.id for e in document.dungeon.elements if e.kind == "monster"}
    assert ids[(135, 85)] == "m9" and ids[(32, 50)] == "m1"
    assert window.scene.selected_refs() == [ref]
    window.action("undo").trigger()
    ids = {e.at: e.id for e in document.dungeon.elements if e.kind == "monster"}
    assert ids[(135, 85)] == "m1" and ids[(32, 50)] == "m1"


def _panel_codes(window) -> list[str]:
    tree = window.problems_panel.tree
    return [tree.topLevelItem(i).text(1).split()[0] for i in range(tree.topLevelItemCount())]


def test_a_dungeon_id_used_twice_in_a_pack_shows_p004_until_changed(qtbot, tmp_path):
    """validate reports P004 on the second dungeon of the pack whose id the first has; the
    Problems panel shows it on that dungeon, and renaming the dungeon clears it."""
    import json

    from editor.dungeon.edits import ChangeSheet
    from tests.editor_support import LINE_PACK, copy_pack

    pack = copy_pack(tmp_path, LINE_PACK)
    files = json.loads((pack / "pack.json").read_text(encoding="utf-8"))["dungeons"]
    first = json.loads((pack / files[0]).read_text(encoding="utf-8"))
    second_path = pack / files[1]
    second = json.loads(second_path.read_text(encoding="utf-8"))
    second["id"] = first["id"]
    second_path.write_text(json.dumps(second), encoding="utf-8")
    from inkcrawl.validate import validate_paths

    assert [p.code for p in validate_paths([pack]).problems if p.file == str(second_path)] == ["P004"]
    window = make_window(qtbot, pack)
    assert "P004" not in _panel_codes(window)  # the first dungeon holds the id rightly
    window.set_current(window.documents[1])
    window.current.validate_now()
    assert "P004" in _panel_codes(window)
    p004 = next(p.problem for p in window.current.problems if p.problem.code == "P004")
    assert p004.pointer == "/id" and f"'{first['id']}'" in p004.message
    window.current.push(ChangeSheet(window.current.dungeon, "id", "a-fresh-id"))
    window.current.validate_now()
    assert "P004" not in _panel_codes(window)
    # and renaming the first dungeon to the second's id puts P004 on the second again
    window.documents[0].push(ChangeSheet(window.documents[0].dungeon, "id", "a-fresh-id"))
    qtbot.waitUntil(lambda: "P004" in _panel_codes(window), timeout=3000)


def test_file_level_problems_show_until_saved(qtbot, tmp_path):
    """A format_version given as the string "3": validate reports S001 at /format_version.
    The Problems panel shows it; saving writes version 2 and the problem goes."""
    import json

    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    data["format_version"] = "3"
    data["sheet"]["title"] = "Bad\u0007title"
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    from inkcrawl.validate import validate_paths

    expected = sorted({p.code for p in validate_paths([path]).problems})
    assert expected == ["S001", "S002"]
    window = make_window(qtbot, path)
    codes = _panel_codes(window)
    assert "S001" in codes and "C007" in codes
    s001 = next(p.problem for p in window.current.problems if p.problem.code == "S001")
    assert s001.pointer == "/format_version"
    window.current.save()
    window.current.validate_now()
    assert "S001" not in _panel_codes(window) and "C007" in _panel_codes(window)
    assert json.loads(path.read_text(encoding="utf-8"))["format_version"] == 2


def _line_window(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    window.view.set_zoom(2.0)
    window.view.centerOn(50, 60)
    return window


def _objects(window) -> dict:
    from editor.dungeon.edits import objects

    return {obj.id: obj for _, _, obj in objects(window.current.dungeon) if hasattr(obj, "id")}


def test_a_drag_from_inside_a_room_draws_a_rubber_band(qtbot):
    """Room r1 is (20,35)-(80,85); a drag on its floor from (25,45) to (45,70) draws a band
    that holds monster m1 at (32,50), and moves nothing."""
    from tests.editor_support import drag

    window = _line_window(qtbot)
    before = window.current.canonical_text()
    drag(window.view, (25, 45), (45, 70))
    assert window.current.canonical_text() == before  # nothing moved
    assert window.current.undo_stack.count() == 0
    assert "m1" in window.scene.selected_refs()
    assert "rubber" in window.statusBar().currentMessage() or "rectangle" in window.statusBar().currentMessage()
    # a plain click inside the room still selects the room
    from tests.editor_support import click

    click(window.view, 25, 60)
    assert window.scene.selected_refs() == ["r1"]


@pytest.mark.parametrize("how", ["outline", "handle", "alt"])
def test_moving_a_room_takes_what_lies_inside_and_its_corridor_joins_in_one_step(qtbot, how):
    """r1 (20,35)-(80,85) holds st1 (50,35) on its top wall, m1 (32,50), p1 (68,64), l1 (40,80);
    corridor c1 meets its right side at (80,50) and (80,62), c2 meets its bottom. Dragged 10 mm
    right and 5 mm down, all of these move by (10, 5); r2's contents stay."""
    from tests.editor_support import drag

    window = _line_window(qtbot)
    before = window.current.canonical_text()
    old = {k: copy_of(v) for k, v in _objects(window).items()}
    start = {"outline": (20, 60), "handle": (50, 60), "alt": (30, 70)}[how]
    modifiers = Qt.KeyboardModifier.AltModifier if how == "alt" else Qt.KeyboardModifier.NoModifier
    drag(window.view, start, (start[0] + 10, start[1] + 5), modifiers=modifiers)
    assert window.current.undo_stack.count() == 1
    new = _objects(window)
    assert new["r1"].polygon == [(30, 40), (90, 40), (90, 90), (30, 90)]
    for ref in ("st1", "m1", "p1", "l1"):
        assert new[ref].at == (old[ref].at[0] + 10, old[ref].at[1] + 5), ref
    assert new["c1"].polygon == [(90, 55), (120, 50), (120, 62), (90, 67)]
    assert new["m2"].at == old["m2"].at and new["r2"].polygon == old["r2"].polygon
    window.action("undo").trigger()
    assert window.current.canonical_text() == before


def copy_of(obj):
    import copy

    return copy.deepcopy(obj)


def _grid_window(qtbot):
    window = make_window(qtbot, GRID_DUNGEON)
    window.set_tool("grid_passage")
    return window


def _passages(window) -> set:
    from inkcrawl.model import edge_key

    return {edge_key(tuple(p.cell), p.side) for p in window.current.dungeon.passages}


def _move(viewport, point, modifiers) -> None:
    """A mouse move with the left button held and ``modifiers`` (QTest's moves carry none)."""
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    local = QPointF(point)
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        local,
        QPointF(viewport.mapToGlobal(point)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton,
        modifiers,
    )
    QApplication.sendEvent(viewport, event)


def _line_point(grid, column: float, line: float) -> tuple[float, float]:
    """A point at ``column`` rooms across, on (or ``line`` - k off) horizontal grid line ``line``."""
    return (grid.origin_mm[0] + column * grid.cell_mm, grid.origin_mm[1] + line * grid.cell_mm)


def test_passage_painting_follows_the_grid_line_along_the_drag(qtbot):
    """cinder-vault: 7 x 7 rooms of 24 mm. A drag along the line between rows 2 and 3 from
    0.5 to 4.5 rooms across, wobbling 0.15 room (3.6 mm, inside the 6 mm reach) above and below,
    paints the south edges of rooms (0..4, 2), each to the state opposite to the first, and no
    vertical edge it crosses."""
    from tests.editor_support import view_point

    window = _grid_window(qtbot)
    grid = window.current.dungeon.grid
    before = _passages(window)
    line = [((c, 2), "south") for c in range(5)]
    target = ((0, 2), "south") not in before
    viewport = window.view.viewport()
    QTest.mousePress(
        viewport,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        view_point(window.view, *_line_point(grid, 0.5, 3)),
    )
    for i in range(1, 41):
        wobble = 0.15 if i % 2 else -0.15
        QTest.mouseMove(viewport, view_point(window.view, *_line_point(grid, 0.5 + 0.1 * i, 3 + wobble)))
    end = view_point(window.view, *_line_point(grid, 4.5, 3))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    after = _passages(window)
    expected = (before | set(line)) if target else (before - set(line))
    assert after == expected
    assert window.current.undo_stack.count() == 1


def test_shift_holds_passage_painting_to_one_straight_line(qtbot):
    """With Shift, a drag from the line under row 2 drifting down to 0.45 room below it (far
    beyond reach) still paints only the south edges of rooms (1..5, 2)."""
    from tests.editor_support import view_point

    window = _grid_window(qtbot)
    grid = window.current.dungeon.grid
    before = _passages(window)
    line = [((c, 2), "south") for c in range(1, 6)]
    target = ((1, 2), "south") not in before
    viewport = window.view.viewport()
    shift = Qt.KeyboardModifier.ShiftModifier
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, shift, view_point(window.view, *_line_point(grid, 1.5, 3)))
    for i in range(1, 21):
        point = _line_point(grid, 1.5 + 0.2 * i, 3 + 0.45 * i / 20)
        _move(viewport, view_point(window.view, *point), shift)
    QTest.mouseRelease(
        viewport, Qt.MouseButton.LeftButton, shift, view_point(window.view, *_line_point(grid, 5.5, 3.45))
    )
    after = _passages(window)
    expected = (before | set(line)) if target else (before - set(line))
    assert after == expected


def _circle(centre, radius, degrees: float) -> tuple[float, float]:
    import math

    a = math.radians(degrees)
    return (centre[0] + radius * math.sin(a), centre[1] - radius * math.cos(a))


def _stroke(window, points) -> None:
    """One stroke through ``points`` (mm): press at the first, a move per point, release."""
    from tests.editor_support import view_point

    viewport = window.view.viewport()
    at = [view_point(window.view, *p) for p in points]
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at[0])
    for point in at[1:]:
        QTest.mouseMove(viewport, point)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at[-1])


def _scoring(result) -> dict:
    """A breakdown without its measured lengths (the slow stroke's pixel-rounded samples make
    it a few tenths of a mm longer): every line, subtotal and the total."""
    import json

    text = json.dumps(result)
    data = json.loads(text)
    for section in data["sections"]:
        section.pop("from_mm", None)
        section.pop("to_mm", None)
    data["end"].pop("length_mm", None)
    return data


def test_a_playtest_stroke_scores_the_same_drawn_fast_or_slow(qtbot):
    """The same 270-degree arc (centre (50, 57), radius 22 mm, from Start st1 at (50, 35),
    inside room r1) drawn slowly (a mouse sample every degree, 0.4 mm) and fast (every 30
    degrees, 11.5 mm: about 600 px/s at 60 samples a second and this zoom). A chord between
    fast samples would pass 22 * (1 - cos 15 deg) = 0.75 mm inside the arc; the curve through
    them stays on it (within the pixel rounding of the samples), so both paths score alike."""
    import math

    from PySide6.QtGui import QGuiApplication

    window = make_window(qtbot, LINE_DUNGEON)
    window.view.set_zoom(3.0)
    window.view.centerOn(50, 57)
    assert window.playtest.start()
    assert not QGuiApplication.testAttribute(Qt.ApplicationAttribute.AA_CompressHighFrequencyEvents)
    session = window.playtest.active.session
    centre, radius = (50, 57), 22

    def off_arc(path) -> float:
        return max(abs(math.dist(p, centre) - radius) for p in path)

    results, paths = {}, {}
    for speed, step in (("slow", 1), ("fast", 30)):
        window.playtest.active.clear()
        _stroke(window, [_circle(centre, radius, d) for d in range(0, 271, step)])
        assert len(session.polylines) == 1
        paths[speed] = session.polylines[0]
        results[speed] = session.judge()
    assert off_arc(paths["slow"]) < 0.2
    assert off_arc(paths["fast"]) < 0.2
    assert abs(results["fast"]["end"]["length_mm"] - results["slow"]["end"]["length_mm"]) < 1.0
    assert _scoring(results["fast"]) == _scoring(results["slow"])
    window.playtest.stop()


def test_boss_vp_follows_a_boss_added_to_the_sheet(qtbot):
    """Candlewick Cellars has no boss: the sheet shows "no boss on this sheet"; adding one
    (and undoing) changes the sheet's Boss VP field at once."""
    from editor.dungeon.edits import AddObjects
    from editor.panels.inspector_fields import InfoField, NumberField
    from inkcrawl.model import Element

    window = make_window(qtbot, LINE_DUNGEON)
    assert not [e for e in window.current.dungeon.elements if e.kind == "boss"]
    assert isinstance(window.inspector.fields_by_name["boss_vp"], InfoField)
    boss = Element("boss-1", "boss", at=(50, 60), size_mm=10, rotation_deg=0, vp=7)
    window.current.push(AddObjects([("elements", None, boss)], "Add boss"))
    window.scene.clearSelection()
    field = window.inspector.fields_by_name["boss_vp"]
    assert isinstance(field, NumberField) and field.edit.text() == "7"
    window.action("undo").trigger()
    assert isinstance(window.inspector.fields_by_name["boss_vp"], InfoField)


def test_escape_reverts_the_field_being_edited(qtbot):
    """Typing in a field then pressing Escape leaves the model and the field as they were:
    the name (applied as you type: the session is undone), a number (applied on Enter: never
    applied) and the sheet's title."""
    from editor.dungeon.edits import find

    window = make_window(qtbot, LINE_DUNGEON)
    document = window.current
    before = document.canonical_text()
    monster = next(e for e in document.dungeon.elements if e.kind == "monster")
    window.scene.select_refs([monster.id])
    name = window.inspector.fields_by_name["name"].edit
    name.setFocus()
    name.selectAll()
    qtbot.keyClicks(name, "Scratchy")
    assert find(document.dungeon, monster.id)[2].name == "Scratchy"
    QTest.keyClick(name, Qt.Key.Key_Escape)
    assert find(document.dungeon, monster.id)[2].name == monster.name
    assert name.text() == (monster.name or "")
    size = window.inspector.fields_by_name["size_mm"].edit
    size.setFocus()
    size.selectAll()
    qtbot.keyClicks(size, "17")
    QTest.keyClick(size, Qt.Key.Key_Escape)
    size.clearFocus()  # leaving the field after Escape applies nothing
    assert size.text() == f"{monster.size_mm:g}"
    window.scene.clearSelection()
    title = window.inspector.fields_by_name["title"].edit
    title.setFocus()
    qtbot.keyClicks(title, " (draft)")
    assert document.dungeon.sheet.title.endswith(" (draft)")
    QTest.keyClick(title, Qt.Key.Key_Escape)
    title.clearFocus()
    assert document.canonical_text() == before
    assert document.undo_stack.index() == 0


def _hover(window, x, y) -> str:
    """Move the pointer over sheet point (x, y) and return the tooltip of the object there."""
    from tests.editor_support import view_point

    window.view.centerOn(x, y)
    QTest.mouseMove(window.view.viewport(), view_point(window.view, x + 40, y + 40))
    QTest.mouseMove(window.view.viewport(), view_point(window.view, x, y))
    item = window.scene.object_items_at(window.view.mapToScene(view_point(window.view, x, y)))[0]
    return item.toolTip()


def test_hovering_an_object_tells_its_kind_id_name_and_problems(qtbot):
    from editor.dungeon.edits import ChangeProperties

    window = make_window(qtbot, LINE_DUNGEON)
    window.view.set_zoom(2.0)
    assert _hover(window, 32, 50).startswith("monster 'm1' \u2014 Wax Rat")
    document = window.current
    document.push(ChangeProperties(document.dungeon, [("a1", "number", 2)]))  # a1 and a2 both 2
    document.validate_now()
    # validate names a2: "artifact_stone 'a2' repeats number 2 of stone 'a1'" (L014)
    tip = _hover(window, 90, 140)
    assert tip.startswith("artifact stone 'a2'")
    assert "L014 (error): artifact_stone 'a2' repeats number 2 of stone 'a1'" in tip
    assert "L014" not in _hover(window, 80, 178)  # a3 has no problem


def test_r_turns_the_card_when_the_card_list_has_the_keyboard(qtbot):
    from PySide6.QtWidgets import QApplication

    window = make_window(qtbot, GRID_DUNGEON)
    window.windowHandle().requestActivate()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    assert window.playtest.start()
    tool, panel = window.playtest.tool, window.playtest.active
    panel.cards.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is panel.cards, timeout=2000)
    turn = tool.turn
    QTest.keyClick(panel.cards, Qt.Key.Key_R)
    assert tool.turn == turn + 1
    QTest.keyClick(panel.cards, Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)
    assert tool.turn == turn
    assert window.playtest.playing  # R did not pick the Room tool (which ends the playtest)


def test_no_hover_highlight_stays_after_the_pointer_leaves_the_canvas(qtbot):
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from tests.editor_support import view_point

    window = _grid_window(qtbot)
    grid = window.current.dungeon.grid
    QTest.mouseMove(window.view.viewport(), view_point(window.view, *_line_point(grid, 2.5, 3)))
    assert window.view.tool._hover is not None  # the edge under the pointer is highlighted
    QApplication.sendEvent(window.view, QEvent(QEvent.Type.Leave))
    assert window.view.tool._hover is None


def _accept_new_dialog_as_offered(window, seen: list):
    """A New seam that builds the real dialog and accepts what it offers (as Enter would)."""
    from editor.files.manager import NewDungeonDialog

    def ask(rulesets):
        dialog = NewDungeonDialog(rulesets, window, window.files.new_defaults(rulesets))
        seen.append(dialog)
        return dialog.choice()

    return ask


def test_new_starts_at_the_open_line_packs_family_and_ruleset(qtbot):
    from tests.editor_support import LINE_PACK

    window = make_window(qtbot, LINE_PACK)
    seen = []
    window.ask_new_dungeon = _accept_new_dialog_as_offered(window, seen)
    window.action("new").trigger()
    dialog = seen[0]
    assert dialog.family_box.currentData() == "line"
    assert dialog.ruleset().id == "line-classic"
    assert not dialog.size_row.isEnabled()  # no grid size for the line family
    assert window.current.dungeon.family == "line" and window.current.ruleset.id == "line-classic"


def test_new_asks_the_grid_size_starting_at_the_open_grid_packs(qtbot, tmp_path):
    """A grid pack whose dungeon is resized to 9 x 6: New offers grid-classic at 9 x 6; the
    dungeon made has that grid, rooms shrunk to fit A4's printable width: (210 - 2 * (10 + 11))
    / 9 = 18.67 mm, so 18.5 mm rooms."""
    import json

    from tests.editor_support import GRID_PACK, copy_pack

    pack = copy_pack(tmp_path, GRID_PACK)
    manifest = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    window = make_window(qtbot, pack)
    from editor.dungeon.edits import ResizeGrid

    document = window.current
    document.push(ResizeGrid(document.dungeon, 9, 6))
    seen = []
    window.ask_new_dungeon = _accept_new_dialog_as_offered(window, seen)
    window.action("new").trigger()
    dialog = seen[0]
    assert dialog.family_box.currentData() == "grid" and dialog.ruleset().id == manifest["ruleset"]
    assert (dialog.columns.value(), dialog.rows.value()) == (9, 6) and dialog.size_row.isEnabled()
    grid = window.current.dungeon.grid
    assert (grid.columns, grid.rows, grid.cell_mm) == (9, 6, 18.5)
    assert window.current.dungeon.ruleset == manifest["ruleset"]
    # choosing the line family offers its rulesets and no grid size
    dialog.family_box.setCurrentIndex(dialog.family_box.findData("line"))
    assert dialog.ruleset().family == "line" and not dialog.size_row.isEnabled()


def test_the_save_dialog_of_a_new_dungeon_starts_in_the_packs_folder(qtbot, tmp_path, monkeypatch):
    from editor.files import manager
    from tests.editor_support import LINE_PACK, copy_pack

    pack = copy_pack(tmp_path, LINE_PACK)
    window = make_window(qtbot, pack)
    window.ask_new_dungeon = lambda rulesets: (rulesets[0], "Fresh Halls")
    window.action("new").trigger()
    started = []
    monkeypatch.setattr(
        manager.QFileDialog,
        "getSaveFileName",
        lambda parent, caption, start, filters: started.append(start) or ("", ""),
    )
    window.action("save").trigger()
    assert started == [str(pack / "dungeons" / "fresh-halls.json")]


def test_the_grid_playtest_fits_the_screen_and_lets_go_when_it_ends(qtbot):
    """The offscreen screen is 800 px tall. While the grid playtest runs, the window (and what
    it needs at least) stays within it and the total shows in the dock without scrolling;
    once the playtest ends the dock claims no height any more."""
    window = make_window(qtbot, GRID_DUNGEON)
    available = window.screen().availableGeometry().height()
    assert window.playtest.start()
    qtbot.waitUntil(lambda: window.playtest.active.total.isVisible(), timeout=2000)
    assert window.minimumSizeHint().height() <= available
    assert window.height() <= available
    panel = window.playtest.active
    scroll = window.playtest.scroll
    top = panel.total.mapTo(scroll.viewport(), panel.total.rect().topLeft()).y()
    assert 0 <= top and top + panel.total.height() <= scroll.viewport().height()
    window.playtest.stop()
    assert window.playtest.scroll.minimumHeight() == 0
    assert window.minimumSizeHint().height() <= available


@pytest.mark.parametrize("selection", ["sheet", "boss", "door"])
def test_the_inspector_is_usable_in_a_1280_px_window(qtbot, selection):
    """In a 1280 px wide window the Inspector dock keeps its width; every field of the sheet
    and of a boss or a door fits it: nothing is cut off, no sideways scrolling."""
    from tests.editor_support import LINE_PACK

    window = make_window(qtbot, LINE_PACK)
    window.set_current(window.documents[3])  # The Lantern King's Descent: a boss and doors
    window.resize(1280, 760)
    if selection != "sheet":
        element = next(e for e in window.current.dungeon.elements if e.kind == selection)
        window.scene.select_refs([element.id])
    inspector = window.inspector
    qtbot.waitUntil(lambda: inspector.scroll.viewport().width() > 0, timeout=2000)
    assert inspector.form_widget.minimumSizeHint().width() <= inspector.scroll.viewport().width()
    assert not inspector.scroll.horizontalScrollBar().isVisible()


def test_an_edit_of_a_big_grid_does_not_measure_or_index_every_object(qtbot, tmp_path, monkeypatch):
    """On a 100 x 100 grid (some 10,000 passages) an edit used to measure every canvas item
    (itemsBoundingRect) and the Inspector indexed every object by reference, at each toggle
    or keystroke: neither happens for an edit of a few objects any more."""
    import json

    from benchmarks.editor_canvas import make_grid_dungeon
    from editor.canvas.scene import DungeonScene
    from editor.dungeon import edits
    from editor.dungeon.edits import TogglePassage
    from editor.panels import inspector_fields
    from inkcrawl.jsonio import dumps_canonical, write_text_atomic

    path = tmp_path / "big-grid.json"
    write_text_atomic(path, dumps_canonical(make_grid_dungeon(100, 1)))
    window = make_window(qtbot, path)
    document = window.current
    calls = {"measure": 0, "index": 0}
    real_measure, real_index = DungeonScene.itemsBoundingRect, edits.index_by_ref

    def measure(scene):
        calls["measure"] += 1
        return real_measure(scene)

    def index(dungeon):
        calls["index"] += 1
        return real_index(dungeon)

    monkeypatch.setattr(DungeonScene, "itemsBoundingRect", measure)
    monkeypatch.setattr(edits, "index_by_ref", index)  # edits and the Inspector look up what they change
    monkeypatch.setattr(inspector_fields, "index_by_ref", index)
    for column in range(40, 45):
        document.push(TogglePassage(document.dungeon, (column, 50), "east"))
    assert calls == {"measure": 0, "index": 0}
    assert document.undo_stack.count() == 5
    # deleting 50 selected passages is one undo step that looks up only those 50 (issue #16)
    before = document.canonical_text()
    doomed = document.dungeon.passages[:50]
    window.scene.select_refs([edits.ref_of(p) for p in doomed])
    window.action("delete").trigger()
    assert calls == {"measure": 0, "index": 0}
    assert document.undo_stack.count() == 6
    assert not any(p in document.dungeon.passages for p in doomed)
    assert len(document.dungeon.passages) == len(json.loads(before)["passages"]) - 50
    window.action("undo").trigger()
    assert document.canonical_text() == before


def test_deleting_passages_of_a_big_grid_walks_its_passages_once(qtbot, tmp_path, monkeypatch):
    """On a 100 x 100 grid, deleting 50 selected passages took 20 ms of the UI thread: the
    delete, the canvas and the Inspector each walked the 10,000 passages to find the same 50,
    and the Inspector built its sheet form anew. Now the window hands the delete what the
    selection already found, the Inspector reads what the canvas found after the edit, and the
    sheet form is the one shown before the selection: one walk in all (issue #16)."""
    import sys

    from benchmarks.editor_canvas import make_grid_dungeon
    from editor.dungeon import edits
    from inkcrawl.jsonio import dumps_canonical, write_text_atomic

    path = tmp_path / "big-grid.json"
    write_text_atomic(path, dumps_canonical(make_grid_dungeon(100, 1)))
    window = make_window(qtbot, path)
    document, inspector = window.current, window.inspector
    sheet_form = inspector.form_widget
    walks = []
    real_locate = edits.locate

    def locate(dungeon, refs):
        refs = list(refs)
        if any(ref.startswith("passage:") for ref in refs):  # a walk over every passage
            walks.append(len(refs))
        return real_locate(dungeon, refs)

    for name in ("editor.dungeon.edits", "editor.dungeon.document", "editor.panels.inspector"):
        monkeypatch.setattr(sys.modules[name], "locate", locate, raising=False)
    doomed = document.dungeon.passages[:50]
    window.scene.select_refs([edits.ref_of(p) for p in doomed])
    assert inspector.form_widget is not sheet_form  # the passages' form
    walks.clear()
    window.action("delete").trigger()
    assert walks == [50]
    assert not any(p in document.dungeon.passages for p in doomed)
    assert inspector.form_widget is sheet_form
    assert inspector.fields_by_name["title"].edit.text() == document.dungeon.sheet.title


def test_a_passage_click_on_a_big_grid_looks_only_at_that_edges_passages(qtbot, tmp_path, monkeypatch):
    """A click with the passage tool asked whether the edge was a passage by computing the
    reference of each of the 10,000 passages of a 100 x 100 grid, then walked them again to
    toggle it; now only the passages listed on the edge's two rooms are looked at."""
    import sys

    from benchmarks.editor_canvas import make_grid_dungeon
    from editor.dungeon import edits
    from inkcrawl.jsonio import dumps_canonical, write_text_atomic
    from tests.editor_support import click

    path = tmp_path / "big-grid.json"
    write_text_atomic(path, dumps_canonical(make_grid_dungeon(100, 1)))
    window = make_window(qtbot, path)
    document, view = window.current, window.view
    window.set_tool("grid_passage")
    grid = document.dungeon.grid
    x, y = grid.origin_mm[0] + 51 * grid.cell_mm, grid.origin_mm[1] + 50.5 * grid.cell_mm  # east edge of (50, 50)
    view.set_zoom(4.0)
    view.centerOn(x, y)
    was = any(edits.ref_of(p) == edits.passage_ref((50, 50), "east") for p in document.dungeon.passages)
    computed = []
    real_ref_of = edits.ref_of

    def ref_of(obj):
        computed.append(obj)
        return real_ref_of(obj)

    for name in ("editor.dungeon.edits", "editor.tools.grid"):
        monkeypatch.setattr(sys.modules[name], "ref_of", ref_of)
    click(view, x, y)
    assert document.undo_stack.count() == 1
    now = any(real_ref_of(p) == edits.passage_ref((50, 50), "east") for p in document.dungeon.passages)
    assert now is not was
    assert len(computed) < 20  # the edge's own passages, not every passage of the grid
