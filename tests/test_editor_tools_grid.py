"""Grid-family canvas tools (editor/tools/grid.py) and the grid resize dialog (editor/panels/grid_dialogs.py),
driven by simulated mouse input on an offscreen window: each tool makes its element with the
expected room, side and letter; undo restores the exact canonical JSON; a drag across edges is
one undo step; resizing lists what falls outside and never deletes silently."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QDialogButtonBox

from editor.dungeon.edits import DeleteObjects, objects_outside, passage_ref, ref_of
from editor.panels import grid_dialogs
from editor.tools.catalogue import tool_specs
from editor.tools.grid import TOOL_SPECS, edges_crossed, is_passage, next_letter
from inkcrawl.model import GridSpec
from tests.editor_support import GRID_DUNGEON, click, drag, make_window, open_document, view_point


@pytest.fixture
def grid_file(tmp_path):
    """A copy of the ember-halls dungeon 'cinder vault' (7 x 7, 60 passages, 6 entryways, 17 features)."""
    target = tmp_path / GRID_DUNGEON.name
    shutil.copyfile(GRID_DUNGEON, target)
    return target


@pytest.fixture
def window(qtbot, grid_file):
    return make_window(qtbot, grid_file)


def centre(grid: GridSpec, cell) -> tuple[float, float]:
    """The centre of a room, in sheet mm."""
    return (grid.origin_mm[0] + (cell[0] + 0.5) * grid.cell_mm, grid.origin_mm[1] + (cell[1] + 0.5) * grid.cell_mm)


def edge_mid(grid: GridSpec, cell, side, offset=0.0) -> tuple[float, float]:
    """The middle of an edge of a room, moved ``offset`` mm outwards."""
    x, y = centre(grid, cell)
    dx, dy = {"north": (0, -1), "south": (0, 1), "west": (-1, 0), "east": (1, 0)}[side]
    half = grid.cell_mm / 2 + offset
    return (x + dx * half, y + dy * half)


def status(window) -> str:
    return window.statusBar().currentMessage()


def empty_rooms(dungeon):
    taken = {tuple(f.cell) for f in dungeon.features}
    return [(c, r) for r in range(dungeon.grid.rows) for c in range(dungeon.grid.columns) if (c, r) not in taken]


# catalogue ---------------------------------------------------------------------------------------
def test_tools_have_distinct_single_keys_and_tooltips(window):
    specs = tool_specs("grid")
    keys = [spec.key for spec in specs]
    assert keys[0] == "V" and len(set(keys)) == len(keys)
    assert all(len(key) == 1 for key in keys)
    ids = {spec.id for spec in TOOL_SPECS}
    assert {"grid_passage", "grid_entryway", "grid_loot", "grid_dragon", "grid_weapon", "grid_monster"} <= ids
    assert all(spec.family == "grid" and spec.tooltip for spec in TOOL_SPECS)
    assert not [s for s in tool_specs("line") if s.id.startswith("grid_")]
    action = window.tool_actions["grid_passage"]
    assert action.shortcut().toString() == "P" and action.toolTip().endswith("(P)")
    # the single key chooses the tool
    window.view.setFocus()
    QTest.keyClick(window, Qt.Key.Key_M)
    assert window.tool.spec.id == "grid_monster"


# passages ------------------------------------------------------------------------------------------
def test_click_near_an_inner_edge_toggles_wall_and_passage(window):
    document = window.current
    dungeon = document.dungeon
    grid = dungeon.grid
    before = document.canonical_text()
    cell, side = next(
        ((c, r), "east")
        for r in range(grid.rows)
        for c in range(grid.columns - 1)
        if not is_passage(dungeon, (c, r), "east")
    )
    ref = passage_ref(cell, side)
    window.set_tool("grid_passage")
    x, y = edge_mid(grid, cell, side, offset=-2)  # 2 mm inside the room: near enough
    click(window.view, x, y)
    assert is_passage(dungeon, cell, side)
    assert ref in window.scene.items_by_ref
    assert document.undo_stack.count() == 1
    after = document.canonical_text()
    window.action("undo").trigger()
    assert document.canonical_text() == before and ref not in window.scene.items_by_ref
    window.action("redo").trigger()
    assert document.canonical_text() == after
    # clicking the same edge from the neighbouring room walls it up again
    x, y = edge_mid(grid, (cell[0] + 1, cell[1]), "west", offset=-2)
    click(window.view, x, y)
    assert not is_passage(dungeon, cell, side) and ref not in window.scene.items_by_ref
    assert document.canonical_text() == before
    # the middle of a room is not near any edge: nothing changes, the status bar explains
    click(window.view, *centre(grid, cell))
    assert document.undo_stack.count() == 2 and "nearer an edge" in status(window)


def test_outer_edge_click_explains_outer_edges_are_walls(window):
    document = window.current
    grid = document.dungeon.grid
    before = document.canonical_text()
    window.set_tool("grid_passage")
    click(window.view, *edge_mid(grid, (3, 0), "north", offset=-1))
    assert document.canonical_text() == before and document.undo_stack.count() == 0
    message = status(window)
    assert "outer edges are always walls" in message and "Entryway" in message


def test_drag_along_a_grid_line_paints_its_edges_in_one_undo_step(window):
    """A drag along the line under row 3 paints each south edge of that row (and no edge
    across the line) to the state opposite to the first's."""
    document = window.current
    dungeon = document.dungeon
    grid = dungeon.grid
    row = next(
        r for r in range(grid.rows - 1) if len({is_passage(dungeon, (c, r), "south") for c in range(grid.columns)}) == 2
    )
    edges = [((c, row), "south") for c in range(grid.columns)]
    states = [is_passage(dungeon, *edge) for edge in edges]
    before = document.canonical_text()
    window.set_tool("grid_passage")
    start, end = edge_mid(grid, (0, row), "south"), edge_mid(grid, (grid.columns - 1, row), "south")
    drag(window.view, start, end, steps=30)
    target = not states[0]
    assert [is_passage(dungeon, *edge) for edge in edges] == [target] * len(edges)
    assert document.undo_stack.count() == 1
    assert document.undo_stack.text(0) in ("Open passages", "Wall up passages")
    for edge in edges:
        assert (passage_ref(*edge) in window.scene.items_by_ref) == target
    # the other edges of the row's rooms are untouched
    window.action("undo").trigger()
    assert document.canonical_text() == before
    assert [is_passage(dungeon, *edge) for edge in edges] == states


def test_undo_during_a_passage_drag_ends_it_safely(window):
    document = window.current
    grid = document.dungeon.grid
    before = document.canonical_text()
    window.set_tool("grid_passage")
    viewport = window.view.viewport()
    start = edge_mid(grid, (0, 1), "south")
    QTest.mousePress(
        viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(window.view, *start)
    )
    for i in range(1, 11):
        QTest.mouseMove(viewport, view_point(window.view, start[0] + 2.4 * i * 2, start[1]))
    assert document.canonical_text() != before
    window.action("undo").trigger()
    assert document.canonical_text() == before
    end = edge_mid(grid, (5, 1), "south")
    QTest.mouseMove(viewport, view_point(window.view, *end))
    QTest.mouseRelease(
        viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(window.view, *end)
    )
    assert document.canonical_text() == before


def test_edges_crossed_in_order():
    grid = GridSpec(4, 3, 10, (0, 0))
    assert edges_crossed(grid, (5, 5), (35, 5)) == [((0, 0), "east"), ((1, 0), "east"), ((2, 0), "east")]
    assert edges_crossed(grid, (35, 25), (5, 25)) == [((2, 2), "east"), ((1, 2), "east"), ((0, 2), "east")]
    assert edges_crossed(grid, (5, 5), (5, 25)) == [((0, 0), "south"), ((0, 1), "south")]
    assert edges_crossed(grid, (-5, 5), (5, 5)) == []  # the outer boundary is no edge between rooms
    assert edges_crossed(grid, (2, 2), (8, 8)) == []


# entryways ------------------------------------------------------------------------------------------
def test_entryway_tool_adds_on_outer_edges_and_removes_by_clicking_the_arrow(window):
    document = window.current
    dungeon = document.dungeon
    grid = dungeon.grid
    taken = {(tuple(e.cell), e.side) for e in dungeon.entryways}
    assert ((3, 0), "north") not in taken
    before = document.canonical_text()
    window.set_tool("grid_entryway")
    click(window.view, *edge_mid(grid, (3, 0), "north", offset=4))  # on the arrow's place, outside the grid
    added = dungeon.entryways[-1]
    assert (tuple(added.cell), added.side) == ((3, 0), "north") and added.id not in {e for _, e in taken}
    assert len(dungeon.entryways) == len(taken) + 1
    assert added.id in window.scene.items_by_ref
    assert document.undo_stack.count() == 1
    after = document.canonical_text()
    window.action("undo").trigger()
    assert document.canonical_text() == before and added.id not in window.scene.items_by_ref
    window.action("redo").trigger()
    assert document.canonical_text() == after
    # clicking the arrow removes it (one undo step); undo brings it back
    click(window.view, *edge_mid(grid, (3, 0), "north", offset=4))
    assert document.canonical_text() == before and document.undo_stack.count() == 2
    window.action("undo").trigger()
    assert document.canonical_text() == after
    # an existing entryway of the dungeon, clicked on its edge from inside the grid
    first = dungeon.entryways[0]
    click(window.view, *edge_mid(grid, first.cell, first.side, offset=-1))
    assert first.id not in {e.id for e in dungeon.entryways} and first.id not in window.scene.items_by_ref


def test_entryway_tool_refuses_inner_edges(window):
    document = window.current
    before = document.canonical_text()
    window.set_tool("grid_entryway")
    click(window.view, *edge_mid(document.dungeon.grid, (3, 3), "east", offset=-1))
    assert document.canonical_text() == before
    assert "outer edges" in status(window)


# features ---------------------------------------------------------------------------------------------
def test_loot_and_dragon_place_and_replace_in_one_undo_step(window):
    document = window.current
    dungeon = document.dungeon
    grid = dungeon.grid
    room = empty_rooms(dungeon)[0]
    before = document.canonical_text()
    window.set_tool("grid_loot")
    click(window.view, *centre(grid, room))
    loot = dungeon.features[-1]
    assert (loot.kind, tuple(loot.cell), loot.letter) == ("loot", room, None)
    assert loot.id in window.scene.items_by_ref and window.scene.selected_refs() == [loot.id]
    with_loot = document.canonical_text()
    # the dragon tool on the same room replaces the loot: one step, the dragon takes its place in the file
    window.set_tool("grid_dragon")
    click(window.view, *centre(grid, room))
    there = [f for f in dungeon.features if tuple(f.cell) == room]
    assert [(f.kind, f.letter) for f in there] == [("dragon", None)]
    assert dungeon.features.index(there[0]) == len(dungeon.features) - 1
    assert loot.id not in window.scene.items_by_ref and there[0].id in window.scene.items_by_ref
    assert "Replaced loot with dragon" in status(window)
    assert document.undo_stack.count() == 2
    window.action("undo").trigger()
    assert document.canonical_text() == with_loot
    window.action("undo").trigger()
    assert document.canonical_text() == before
    # clicking a room that already holds this very feature changes nothing
    occupied = next(f for f in dungeon.features if f.kind == "loot")
    window.set_tool("grid_loot")
    click(window.view, *centre(grid, occupied.cell))
    assert document.canonical_text() == before and "already holds loot" in status(window)
    # outside the grid: a message, no change
    click(window.view, 3, 3)
    assert document.canonical_text() == before and "Click a room" in status(window)


def test_replacing_a_room_feature_keeps_file_position(window):
    document = window.current
    dungeon = document.dungeon
    target = dungeon.features[2]
    position = 2
    before = document.canonical_text()
    window.set_tool("grid_monster")
    click(window.view, *centre(dungeon.grid, target.cell))
    placed = dungeon.features[position]
    assert placed.kind == "monster" and tuple(placed.cell) == tuple(target.cell)
    window.action("undo").trigger()
    assert document.canonical_text() == before


def test_weapon_and_monster_letters_pair_automatically(window):
    document = window.current
    dungeon = document.dungeon
    grid = dungeon.grid
    lettered = [f.id for f in dungeon.features if f.kind in ("weapon", "monster")]
    document.push(DeleteObjects(dungeon, lettered))
    before = document.canonical_text()
    rooms = empty_rooms(dungeon)
    window.set_tool("grid_weapon")
    letter_box = window.options_bar.findChild(QComboBox, "feature_letter")
    assert letter_box is not None and letter_box.currentText() == "Auto (A)"
    click(window.view, *centre(grid, rooms[0]))
    assert (dungeon.features[-1].kind, dungeon.features[-1].letter) == ("weapon", "A")
    assert letter_box.currentText() == "Auto (B)"  # the next weapon would start pair B
    window.set_tool("grid_monster")
    click(window.view, *centre(grid, rooms[1]))
    assert (dungeon.features[-1].kind, dungeon.features[-1].letter) == ("monster", "A")  # pairs weapon A
    click(window.view, *centre(grid, rooms[2]))
    assert dungeon.features[-1].letter == "B"  # a new pair
    window.set_tool("grid_weapon")
    click(window.view, *centre(grid, rooms[3]))
    assert (dungeon.features[-1].kind, dungeon.features[-1].letter) == ("weapon", "B")  # pairs monster B
    # an explicit letter from the Tool Options bar
    letter_box = window.options_bar.findChild(QComboBox, "feature_letter")
    letter_box.setCurrentIndex(letter_box.findData("E"))
    click(window.view, *centre(grid, rooms[4]))
    assert dungeon.features[-1].letter == "E"
    assert all(f.id in window.scene.items_by_ref for f in dungeon.features)
    assert document.undo_stack.count() == 6
    letter_box.setCurrentIndex(0)  # back to Auto; the automatic letter follows undo
    assert letter_box.currentText() == "Auto (C)"
    for _ in range(2):
        window.action("undo").trigger()
    assert letter_box.currentText() == "Auto (B)"  # monster B placed, weapon B undone
    for _ in range(2):
        window.action("redo").trigger()
    for _ in range(5):
        window.action("undo").trigger()
    assert document.canonical_text() == before
    assert letter_box.currentText() == "Auto (A)"


def test_next_letter_rules():
    document = open_document(GRID_DUNGEON)
    dungeon, ruleset = document.dungeon, document.ruleset
    assert next_letter(dungeon, ruleset, "loot") is None
    # every pair complete: a seventh weapon still gets a letter (validation reports the count)
    assert next_letter(dungeon, ruleset, "weapon") == "A"
    DeleteObjects(dungeon, ["monster_c", "weapon_e"]).redo(dungeon)
    assert next_letter(dungeon, ruleset, "monster") == "C"
    assert next_letter(dungeon, ruleset, "weapon") == "E"


def test_feature_tool_of_any_ruleset_kind(window):
    document = window.current
    dungeon = document.dungeon
    room = empty_rooms(dungeon)[0]
    window.set_tool("grid_feature")
    kind_box = window.options_bar.findChild(QComboBox, "feature_kind")
    assert [kind_box.itemData(i) for i in range(kind_box.count())] == list(document.ruleset.elements)
    kind_box.setCurrentIndex(kind_box.findData("dragon"))
    click(window.view, *centre(dungeon.grid, room))
    assert (dungeon.features[-1].kind, tuple(dungeon.features[-1].cell)) == ("dragon", room)


def test_placed_features_survive_save_and_reopen(window, grid_file):
    document = window.current
    room = empty_rooms(document.dungeon)[0]
    window.set_tool("grid_weapon")
    click(window.view, *centre(document.dungeon.grid, room))
    document.save()
    reopened = open_document(grid_file)
    assert reopened.canonical_text() == document.canonical_text()
    assert any(tuple(f.cell) == room and f.kind == "weapon" for f in reopened.dungeon.features)


# resizing ---------------------------------------------------------------------------------------------
def test_resize_dialog_lists_objects_outside_before_applying(qtbot, window):
    document = window.current
    dungeon = document.dungeon
    dialog = grid_dialogs.GridSizeDialog(dungeon, document.ruleset, window)
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()  # unchanged size: nothing to apply
    dialog.columns.setValue(5)
    dialog.rows.setValue(6)
    outside = objects_outside(dungeon, 5, 6)
    assert outside
    listed = [dialog.outside_list.item(i).text() for i in range(dialog.outside_list.count())]
    assert listed == [grid_dialogs.describe_object(dungeon, obj) for obj in outside]
    assert any("loot 'loot4' in G7" == line for line in listed)
    assert any(line.startswith("entryway 'e1' on the east edge of G5") for line in listed)
    assert ok.isEnabled() and ok.text() == f"Resize and Remove {len(outside)} Objects"
    dialog.columns.setValue(8)
    dialog.rows.setValue(7)
    # growing removes nothing; the east entryway moves out with the east edge, and the dialog says so
    assert dialog.outside_list.count() == 0 and ok.text() == "Resize"
    assert "'e1' to the east edge of H5" in dialog.moves.text()
    dialog.columns.setValue(6)
    dialog.rows.setValue(8)  # shrink one way, grow the other: south entryways move, the column's objects go
    assert "'s1' to the south edge of E8" in dialog.moves.text()
    listed = [dialog.outside_list.item(i).text() for i in range(dialog.outside_list.count())]
    assert "entryway 'e1' on the east edge of G5" in listed and "loot 'loot4' in G7" in listed
    dialog.columns.setValue(12)
    dialog.rows.setValue(12)
    assert dialog.warning.text().startswith("At 12 x 12 the sheet cannot be printed")
    dialog.columns.setValue(5)
    dialog.rows.setValue(6)
    QTest.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert dialog.result() == dialog.DialogCode.Accepted and dialog.chosen_size() == (5, 6)
    assert document.undo_stack.count() == 0  # the dialog only asks; the window applies


def test_resize_applies_in_one_step_and_undo_restores_byte_for_byte(qtbot, window):
    document = window.current
    dungeon = document.dungeon
    before = document.canonical_text()
    refs_before = set(window.scene.items_by_ref)
    seen = {}

    def answer(d, ruleset):  # the real dialog, driven as a user would
        dialog = grid_dialogs.GridSizeDialog(d, ruleset, window)
        qtbot.addWidget(dialog)
        dialog.columns.setValue(5)
        dialog.rows.setValue(5)
        seen["listed"] = dialog.outside_list.count()
        return dialog.chosen_size()

    window.ask_grid_size = answer
    outside = [ref_of(obj) for obj in objects_outside(dungeon, 5, 5)]
    assert outside == [ref_of(obj) for obj in grid_dialogs.plan_resize(dungeon, 5, 5).removed]
    window.action("resize_grid").trigger()
    assert seen["listed"] == len(outside) > 0
    assert (dungeon.grid.columns, dungeon.grid.rows) == (5, 5)
    assert not set(outside) & set(window.scene.items_by_ref)
    assert all(max(f.cell) < 5 for f in dungeon.features)
    assert document.undo_stack.count() == 1 and f"{len(outside)} object(s)" in status(window)
    window.action("undo").trigger()
    assert document.canonical_text() == before
    assert set(window.scene.items_by_ref) == refs_before
    # growing removes nothing: the east entryway moves out with its edge, in the same undo step
    window.ask_grid_size = lambda d, r: (8, 7)
    window.action("resize_grid").trigger()
    assert (dungeon.grid.columns, dungeon.grid.rows) == (8, 7)
    assert set(window.scene.items_by_ref) == refs_before
    e1 = next(e for e in dungeon.entryways if e.id == "e1")
    assert (tuple(e1.cell), e1.side) == ((7, 4), "east") and dungeon.grid.is_outer_edge(e1.cell, e1.side)
    assert document.undo_stack.count() == 1
    window.action("undo").trigger()
    assert document.canonical_text() == before


def test_resize_never_deletes_silently(window):
    document = window.current
    before = document.canonical_text()
    window.ask_grid_size = lambda d, r: None  # the user cancels
    window.action("resize_grid").trigger()
    assert document.canonical_text() == before and document.undo_stack.count() == 0
    assert "unchanged" in status(window)
    window.ask_grid_size = lambda d, r: (7, 7)  # the same size: nothing to do
    window.action("resize_grid").trigger()
    assert document.canonical_text() == before and document.undo_stack.count() == 0


def test_plan_resize_undoes_exactly_at_every_size():
    document = open_document(GRID_DUNGEON)
    dungeon = document.dungeon
    before = document.canonical_text()
    total = len(dungeon.passages) + len(dungeon.entryways) + len(dungeon.features)
    for columns in (1, 3, 6, 7, 9):
        for rows in (1, 4, 7, 8):
            plan = grid_dialogs.plan_resize(dungeon, columns, rows)
            plan.edit.redo(dungeon)
            assert (dungeon.grid.columns, dungeon.grid.rows) == (columns, rows)
            assert all(dungeon.grid.is_outer_edge(e.cell, e.side) for e in dungeon.entryways)
            assert all(dungeon.grid.contains(f.cell) for f in dungeon.features)
            kept = len(dungeon.passages) + len(dungeon.entryways) + len(dungeon.features)
            assert kept + len(plan.removed) == total  # nothing vanishes unlisted
            plan.edit.undo(dungeon)
            assert document.canonical_text() == before
