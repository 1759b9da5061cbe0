"""The Problems panel: live validation after edits, click to select and zoom, quick-fixes."""

from __future__ import annotations

from editor.dungeon.edits import AddObjects, ChangeSheet, MoveObjects
from inkcrawl.model import Element, EndTrigger, Passage
from tests.editor_support import GRID_DUNGEON, LINE_DUNGEON, make_window


def rows(window):
    panel = window.problems_panel
    return [panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount())]


def row_for(window, code):
    matches = [item for item in rows(window) if window.problems_panel.located(item).problem.code == code]
    assert matches, [window.problems_panel.located(i).problem.code for i in rows(window)]
    return matches[0]


def test_validation_reruns_after_an_edit_and_click_selects(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    document = window.current
    assert all(p.problem.severity.value != "error" for p in document.problems)
    monster = next(e for e in document.dungeon.elements if e.kind == "monster")
    document.push(MoveObjects(document.dungeon, [monster.id], 0, 400))  # below the paper
    # debounced: the panel updates by itself shortly after the edit
    qtbot.waitUntil(
        lambda: any(window.problems_panel.located(i).ref == monster.id for i in rows(window)), timeout=15_000
    )
    item = next(i for i in rows(window) if window.problems_panel.located(i).ref == monster.id)
    zoom_before = window.view.zoom()
    window.problems_panel._on_clicked(item)
    assert window.scene.selected_refs() == [monster.id]
    assert window.view.zoom() != zoom_before
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.intersects(window.scene.items_by_ref[monster.id].sceneBoundingRect())


def test_quick_fix_renumbers_stones_in_one_undo_step(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    document = window.current
    stones = [e for e in document.dungeon.elements if e.kind == "artifact_stone"]
    assert len(stones) == 3
    from editor.dungeon.edits import ChangeProperties

    document.push(ChangeProperties(document.dungeon, [(stones[0].id, "number", 3), (stones[2].id, "number", 3)]))
    broken = document.canonical_text()
    document.validate_now()
    item = row_for(window, "L014")
    count = document.undo_stack.count()
    assert window.problems_panel.apply_fix(item)
    assert document.undo_stack.count() == count + 1
    assert sorted(e.number for e in document.dungeon.elements if e.kind == "artifact_stone") == [1, 2, 3]
    assert "L014" not in {p.problem.code for p in document.problems}
    window.action("undo").trigger()
    assert document.canonical_text() == broken


def test_quick_fix_adds_missing_portal_exit(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    document = window.current
    area = document.dungeon.areas[0]
    xs = [p[0] for p in area.polygon]
    ys = [p[1] for p in area.polygon]
    at = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2 + 12)
    entry = Element("pe-z", "portal_entry", at=at, size_mm=6, rotation_deg=0, channel="Z")
    document.push(AddObjects([("elements", None, entry)]))
    document.validate_now()
    item = row_for(window, "L012")
    assert window.problems_panel.apply_fix(item)
    exits = [e for e in document.dungeon.elements if e.kind == "portal_exit" and e.channel == "Z"]
    assert len(exits) == 1
    assert "L012" not in {p.problem.code for p in document.problems}


def test_quick_fixes_of_sheet_data(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    document = window.current
    triggers = list(document.dungeon.sheet.end_triggers) + [EndTrigger(document.dungeon.sheet.end_triggers[0].kind)]
    document.push(ChangeSheet(document.dungeon, "end_triggers", triggers))
    document.push(ChangeSheet(document.dungeon, "components", ["timer"]))
    document.validate_now()
    assert window.problems_panel.apply_fix(row_for(window, "L016"))
    assert len(document.dungeon.sheet.end_triggers) == len(triggers) - 1
    assert window.problems_panel.apply_fix(row_for(window, "L023"))
    from inkcrawl.checks.line import components_used

    assert set(document.dungeon.sheet.components) == components_used(document.dungeon)
    assert "L023" not in {p.problem.code for p in document.problems}


def test_quick_fix_closes_an_unlinked_outer_edge(qtbot):
    window = make_window(qtbot, GRID_DUNGEON)
    document = window.current
    grid = document.dungeon.grid
    cell = (grid.columns - 1, 3)
    occupied = {(e.cell, e.side) for e in document.dungeon.entryways}
    assert (cell, "east") not in occupied
    document.push(AddObjects([("passages", None, Passage(cell, "east"))]))
    document.validate_now()
    before_fix = len(document.dungeon.passages)
    assert window.problems_panel.apply_fix(row_for(window, "G008"))
    assert len(document.dungeon.passages) == before_fix - 1
    assert "G008" not in {p.problem.code for p in document.problems}


def test_warnings_filter_and_summary(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    document = window.current
    document.push(ChangeSheet(document.dungeon, "components", ["timer"]))  # L023 warnings only
    document.validate_now()
    panel = window.problems_panel
    assert rows(window) and "warning" in panel.summary.text()
    panel.warnings.setChecked(False)
    assert all(panel.located(i).problem.severity.value == "error" for i in rows(window))
