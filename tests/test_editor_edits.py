"""Edits of the editor (editor/dungeon/edits.py) and the document's undo stack: every edit undoes to
the exact model, drags merge into one step, and random edit sequences undo byte for byte."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editor.dungeon import edits
from editor.dungeon.edits import (
    AddObjects,
    ChangeProperties,
    ChangeSheet,
    DeleteObjects,
    EditError,
    EditShape,
    MoveObjects,
    ResizeGrid,
    TogglePassage,
    objects_outside,
    passage_ref,
    paste_copies,
    ref_of,
    renumber_stones,
)
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.model import Element, Feature, dungeon_from_dict
from tests.dungeon_builders import classic_grid_dungeon, line_dungeon
from tests.editor_support import GRID_DUNGEON, LINE_DUNGEON, open_document


def text(dungeon) -> str:
    return dumps_canonical(dungeon.to_dict())


def line_model():
    return dungeon_from_dict(line_dungeon())


def grid_model():
    return dungeon_from_dict(classic_grid_dungeon())


def roundtrip(dungeon, edit):
    """Apply then undo ``edit``; return the text after redo. Asserts undo is exact."""
    before = text(dungeon)
    edit.redo(dungeon)
    after = text(dungeon)
    edit.undo(dungeon)
    assert text(dungeon) == before
    edit.redo(dungeon)
    assert text(dungeon) == after
    return after


def test_add_and_delete_restore_positions():
    dungeon = line_model()
    monster = Element("m9", "monster", at=(50, 50), size_mm=6)
    roundtrip(dungeon, AddObjects([("elements", 1, monster)]))
    assert [e.id for e in dungeon.elements][1] == "m9"
    first, last = dungeon.elements[0].id, dungeon.elements[-1].id
    roundtrip(dungeon, DeleteObjects(dungeon, [last, first]))
    assert first not in [e.id for e in dungeon.elements]


def test_delete_unknown_object_is_refused():
    with pytest.raises(EditError, match="no object 'nope'"):
        DeleteObjects(line_model(), ["nope"])


def test_move_merges_and_undo_restores_exact_floats():
    dungeon = line_model()
    original = text(dungeon)
    area_id = dungeon.areas[0].id
    first = MoveObjects(dungeon, [area_id, "m1"], 0.1, 0.2, merge_key="drag-1")
    first.redo(dungeon)
    for _ in range(10):
        step = MoveObjects(dungeon, [area_id, "m1"], 0.1, 0.2, merge_key="drag-1")
        step.redo(dungeon)
        assert first.merge(step)
    assert first.dx == pytest.approx(1.1) and first.dy == pytest.approx(2.2)
    moved = edits.find(dungeon, "m1")[2].at
    original_at = edits.find(line_model(), "m1")[2].at
    assert moved == (round(original_at[0] + 1.1, 3), round(original_at[1] + 2.2, 3))
    first.undo(dungeon)
    assert text(dungeon) == original
    other = MoveObjects(dungeon, ["m1"], 1, 1, merge_key="drag-2")
    assert not first.merge(other)


def test_change_properties_merge_keeps_first_old_value():
    dungeon = line_model()
    edit = ChangeProperties(dungeon, [("m1", "name", "G")], merge_key="name")
    edit.redo(dungeon)
    for typed in ("Gr", "Gru", "Grub"):
        more = ChangeProperties(dungeon, [("m1", "name", typed)], merge_key="name")
        more.redo(dungeon)
        assert edit.merge(more)
    assert edits.find(dungeon, "m1")[2].name == "Grub"
    edit.undo(dungeon)
    assert text(dungeon) == text(line_model())


def test_change_id_follows_the_object():
    dungeon = line_model()
    roundtrip(dungeon, ChangeProperties(dungeon, [("m1", "id", "ogre")]))
    assert edits.find(dungeon, "ogre")[2].kind == "monster"
    with pytest.raises(EditError):
        edits.find(dungeon, "m1")


def test_edit_shape_and_sheet():
    dungeon = line_model()
    area = dungeon.areas[0]
    polygon = list(area.polygon) + [(area.polygon[-1][0], area.polygon[-1][1] + 0.5)]
    roundtrip(dungeon, EditShape(dungeon, area.id, polygon))
    roundtrip(dungeon, ChangeSheet(dungeon, "title", "New title"))
    assert dungeon.sheet.title == "New title"
    with pytest.raises(EditError):
        ChangeSheet(dungeon, "colour", 1)


def test_rotate_turns_geometry_and_glyphs_about_the_centre():
    dungeon = line_model()
    monster = edits.find(dungeon, "m1")[2]
    monster.rotation_deg = 350
    x, y = monster.at
    edit = edits.RotateObjects(dungeon, ["m1"], 90)
    roundtrip(dungeon, edit)
    turned = edits.find(dungeon, "m1")[2]
    assert turned.at == (x, y)  # a lone element turns in place
    assert turned.rotation_deg == 80  # 350 + 90, wrapped
    area = dungeon.areas[0]
    original = list(area.polygon)
    xs, ys = [p[0] for p in original], [p[1] for p in original]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    roundtrip(dungeon, edits.RotateObjects(dungeon, [area.id], 90))
    rotated = edits.find(dungeon, area.id)[2].polygon
    # clockwise on the page (y down): a point right of the centre goes below it
    expected = [(round(cx - (py - cy), 3), round(cy + (px - cx), 3)) for px, py in original]
    assert rotated == expected
    grid = grid_model()
    with pytest.raises(EditError, match="keep their orientation"):
        edits.RotateObjects(grid, [grid.features[0].id], 90)


def test_toggle_passage_both_ways():
    dungeon = grid_model()
    passage = dungeon.passages[3]
    ref = ref_of(passage)
    after = roundtrip(dungeon, TogglePassage(dungeon, passage.cell, passage.side))
    assert ref not in {ref_of(p) for p in dungeon.passages}
    # the same edge seen from the other room toggles it back
    (col, row), side = passage.cell, passage.side
    other = {
        "east": ((col + 1, row), "west"),
        "south": ((col, row + 1), "north"),
        "west": ((col - 1, row), "east"),
        "north": ((col, row - 1), "south"),
    }[side]
    assert passage_ref(*other) == ref
    roundtrip(dungeon, TogglePassage(dungeon, *other))
    assert ref in {ref_of(p) for p in dungeon.passages}
    assert after != text(dungeon)
    with pytest.raises(EditError, match="between two rooms"):
        TogglePassage(dungeon, (0, 0), "north")


def test_resize_grid_lists_and_restores_everything_outside():
    dungeon = grid_model()
    outside = objects_outside(dungeon, 5, 5)
    expected = {f.id for f in dungeon.features if f.cell[0] >= 5 or f.cell[1] >= 5} | {
        e.id
        for e in dungeon.entryways
        if e.cell[0] >= 5
        or e.cell[1] >= 5
        or (e.side == "east" and e.cell[0] != 4)
        or (e.side == "south" and e.cell[1] != 4)
    }
    assert expected <= {ref_of(o) for o in outside}
    edit = ResizeGrid(dungeon, 5, 5)
    assert {ref_of(obj) for _, _, obj in edit.removed} == {ref_of(o) for o in outside}
    roundtrip(dungeon, edit)
    assert (dungeon.grid.columns, dungeon.grid.rows) == (5, 5)
    assert all(f.cell[0] < 5 and f.cell[1] < 5 for f in dungeon.features)


def test_renumber_stones_in_reading_order():
    data = line_dungeon()
    data["elements"] += [
        {"id": "s-a", "kind": "artifact_stone", "at": [150, 70], "size_mm": 6, "number": 1},
        {"id": "s-b", "kind": "artifact_stone", "at": [30, 70], "size_mm": 6, "number": 1},
        {"id": "s-c", "kind": "artifact_stone", "at": [40, 30], "size_mm": 6, "number": 3},
    ]
    dungeon = dungeon_from_dict(data)
    edit = renumber_stones(dungeon)
    roundtrip(dungeon, edit)
    assert {e.id: e.number for e in dungeon.elements if e.kind == "artifact_stone"} == {"s-c": 1, "s-b": 2, "s-a": 3}
    assert renumber_stones(dungeon) is None


def test_paste_gives_fresh_ids_and_refuses_other_family():
    dungeon = line_model()
    copied = [copy.deepcopy(edits.find(dungeon, "m1")[2])]
    edit = paste_copies(dungeon, copied, 5, 5)
    roundtrip(dungeon, edit)
    new = dungeon.elements[-1]
    assert new.id != "m1" and new.kind == "monster"
    assert new.at == (copied[0].at[0] + 5, copied[0].at[1] + 5)
    with pytest.raises(EditError, match="cannot be pasted"):
        paste_copies(grid_model(), copied, 0, 0)
    feature = Feature("x1", "loot", (0, 0))
    with pytest.raises(EditError):
        paste_copies(line_model(), [feature], 0, 0)


def _shared_model():
    """The line model with a second monster and the wall given ids other objects have: m1 twice
    (elements), r1 as a room and as the wall."""
    data = line_dungeon()
    data["elements"].append({"id": "m1", "kind": "monster", "at": [120, 60], "size_mm": 6, "rotation_deg": 0})
    data["walls"][0]["id"] = "r1"
    return dungeon_from_dict(data)


def test_objects_sharing_an_id_get_keys_and_edits_act_on_each_alone():
    dungeon = _shared_model()
    saved = text(dungeon)
    assert sorted(edits.key_shared_ids(dungeon)) == ["m1#1", "m1#2", "r1#1", "r1#2"]
    assert text(dungeon) == saved  # keys are never written
    assert edits.key_shared_ids(dungeon) == []  # keyed once
    first, second = [e for e in dungeon.elements if e.id == "m1"]
    assert (ref_of(first), ref_of(second)) == ("m1#1", "m1#2")

    def at(ref):  # undo puts back copies: look objects up again
        return edits.find(dungeon, ref)[2]

    assert (ref_of(dungeon.areas[0]), ref_of(dungeon.walls[0])) == ("r1#1", "r1#2")
    # a move of the second monster leaves the first where it was; undo restores it exactly
    move_monster = MoveObjects(dungeon, ["m1#2"], 3, 4)
    roundtrip(dungeon, move_monster)
    assert (at("m1#1").at, at("m1#2").at) == ((50, 50), (123, 64))
    # the wall moves, the room that shares its id does not
    room = list(dungeon.areas[0].polygon)
    move_wall = MoveObjects(dungeon, ["r1#2"], 1, 0)
    roundtrip(dungeon, move_wall)
    assert dungeon.areas[0].polygon == room
    # deleting the first monster keeps the second, undo puts the first back in its place
    edit = DeleteObjects(dungeon, ["m1#1"])
    edit.redo(dungeon)
    assert [e.at for e in dungeon.elements if e.kind == "monster"] == [(123, 64)]
    edit.undo(dungeon)
    assert [ref_of(e) for e in dungeon.elements if e.kind == "monster"] == ["m1#1", "m1#2"]
    # an id change keeps the key as the reference, and undo finds the object by it
    change = ChangeProperties(dungeon, [("m1#2", "id", "m7")])
    roundtrip(dungeon, change)
    assert (at("m1#2").id, at("m1#1").id) == ("m7", "m1")
    assert "m7" not in change.refs
    change.undo(dungeon)
    assert at("m1#2").id == "m1"
    # a pasted copy is a new object: its own fresh id, no key
    paste = paste_copies(dungeon, [copy.deepcopy(at("m1#2"))], 5, 5)
    paste.redo(dungeon)
    pasted = dungeon.elements[-1]
    assert pasted.id not in ("m1", "m1#2") and ref_of(pasted) == pasted.id
    paste.undo(dungeon)
    assert edits.new_id(dungeon, "m1") == "m1-1"  # neither the id nor a key is given out again
    # renumbering makes ids unique and drops the keys; undo brings back both
    renumber = edits.renumber_duplicates(dungeon)
    renumber.redo(dungeon)
    assert [ref_of(e) for e in dungeon.elements if e.kind == "monster"] == ["m1", "m2"]
    assert len({ref_of(obj) for _, _, obj in edits.objects(dungeon)}) == len(list(edits.objects(dungeon)))
    renumber.undo(dungeon)
    assert [ref_of(e) for e in dungeon.elements if e.kind == "monster"] == ["m1#1", "m1#2"]
    move_wall.undo(dungeon)
    move_monster.undo(dungeon)
    assert text(dungeon) == saved


# --- the document's undo stack ------------------------------------------------------------------


def _random_edit(dungeon, draw):
    """One random edit of the kinds the editor makes, chosen by hypothesis."""
    refs = [ref_of(obj) for _, _, obj in edits.objects(dungeon)]
    kind = draw(st.sampled_from(["move", "delete", "rename", "sheet", "paste", "shape", "passage", "resize"]))
    if dungeon.family == "grid" and kind in ("shape",):
        kind = "passage"
    if dungeon.family == "line" and kind in ("passage", "resize"):
        kind = "move"
    movable = [r for r in refs if not r.startswith("passage:")]
    if kind == "move" and movable:
        chosen = draw(st.lists(st.sampled_from(movable), min_size=1, max_size=3, unique=True))
        dx = draw(st.floats(-20, 20, allow_nan=False).map(lambda v: round(v, 2)))
        dy = draw(st.floats(-20, 20, allow_nan=False).map(lambda v: round(v, 2)))
        if dungeon.family == "grid":
            dx, dy = float(round(dx / 10)), float(round(dy / 10))
        return MoveObjects(dungeon, chosen, dx, dy, merge_key=draw(st.sampled_from([None, "drag-a"])))
    if kind == "delete" and refs:
        return DeleteObjects(dungeon, draw(st.lists(st.sampled_from(refs), min_size=1, max_size=4, unique=True)))
    named = [r for r in movable if hasattr(edits.find(dungeon, r)[2], "name")]
    if kind == "rename" and named:
        ref = draw(st.sampled_from(named))
        return ChangeProperties(dungeon, [(ref, "name", draw(st.text(max_size=8)) or None)], merge_key="name")
    if kind == "sheet":
        return ChangeSheet(dungeon, "title", draw(st.text(min_size=1, max_size=12)), merge_key="title")
    if kind == "paste" and movable:
        chosen = draw(st.lists(st.sampled_from(movable), min_size=1, max_size=3, unique=True))
        return paste_copies(dungeon, [edits.find(dungeon, r)[2] for r in chosen], 3, 3)
    if kind == "shape" and dungeon.areas:
        area = draw(st.sampled_from(dungeon.areas))
        points = list(area.polygon)
        index = draw(st.integers(0, len(points) - 1))
        points[index] = (points[index][0] + 1.25, points[index][1] - 0.5)
        return EditShape(dungeon, area.id, points, merge_key=draw(st.sampled_from([None, "vertex"])))
    if kind == "passage":
        col = draw(st.integers(0, dungeon.grid.columns - 2))
        row = draw(st.integers(0, dungeon.grid.rows - 1))
        return TogglePassage(dungeon, (col, row), "east")
    if kind == "resize":
        return ResizeGrid(dungeon, draw(st.integers(3, 9)), draw(st.integers(3, 9)))
    return ChangeSheet(dungeon, "reminders", draw(st.lists(st.text(max_size=5), max_size=2)))


_OPENED = {}


def _fresh_document(which: str):
    """A new document on a copy of a bundled dungeon (opened once per test session)."""
    from editor.dungeon.document import DungeonDocument

    if which not in _OPENED:
        _OPENED[which] = open_document(LINE_DUNGEON if which == "line" else GRID_DUNGEON)
    source = _OPENED[which]
    return DungeonDocument(copy.deepcopy(source.dungeon), source.ruleset, source.path, source.registry, source.deck)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), which=st.sampled_from(["line", "grid"]))
def test_random_edit_sequences_undo_byte_for_byte(qapp, data, which):
    document = _fresh_document(which)
    original = document.canonical_text()
    texts = [original]
    for _ in range(data.draw(st.integers(1, 12))):
        document.push(_random_edit(document.dungeon, data.draw))
        texts.append(document.canonical_text())
    # redo/undo walks through the same states (merged steps share one state)
    stack = document.undo_stack
    while stack.canUndo():
        stack.undo()
    assert document.canonical_text() == original
    while stack.canRedo():
        stack.redo()
    assert document.canonical_text() == texts[-1]
    while stack.canUndo():
        stack.undo()
    assert document.canonical_text() == original
    # and the saved file is byte for byte the bundled file it was opened from
    with tempfile.TemporaryDirectory() as folder:
        saved = document.save(Path(folder) / "undone.json")
        assert saved.read_bytes() == (LINE_DUNGEON if which == "line" else GRID_DUNGEON).read_bytes()


def test_a_dropped_document_goes_at_once_with_its_undo_history(qapp):
    """The document owns its undo stack and the stack its commands: a command holding its
    document strongly made a reference cycle that only Python's garbage collector freed, and
    the collector took shiboken's wrappers apart in any order while the QUndoStack still held
    the commands (a segmentation fault in QUndoStack::clear, in about one run of ten of this
    file). A document must go as soon as its last reference does, merged steps and all."""
    import gc
    import weakref

    gc.disable()
    try:
        document = _fresh_document("line")
        monster = next(e for e in document.dungeon.elements if e.kind == "monster")
        for _ in range(3):  # merged into one step: Qt deletes the pushed commands
            document.push(MoveObjects(document.dungeon, [monster.id], 1.0, 0.5, merge_key="drag-free"))
        document.push(ChangeSheet(document.dungeon, "title", "Freed"))
        document.undo_stack.undo()
        document.undo_stack.redo()
        assert document.undo_stack.count() == 2
        gone = weakref.ref(document)
        del document
        assert gone() is None
    finally:
        gc.enable()


def test_document_save_is_atomic_and_clean(qapp, tmp_path):
    document = open_document(LINE_DUNGEON)
    assert not document.modified
    document.push(ChangeSheet(document.dungeon, "title", "Saved title"))
    assert document.modified
    target = tmp_path / "saved.json"
    document.save(target)
    assert not document.modified and document.path == target
    reopened = open_document(target)
    assert reopened.canonical_text() == document.canonical_text()
    assert reopened.dungeon.sheet.title == "Saved title"
    # an unwritable target leaves the document modified state and the old file alone
    document.push(ChangeSheet(document.dungeon, "title", "Other"))
    with pytest.raises(OSError):
        document.save(tmp_path / "missing-dir" / "x.json")
    assert document.modified
    assert "Saved title" in target.read_text()


def test_live_validation_points_at_objects(qapp):
    document = open_document(LINE_DUNGEON)
    assert [p for p in document.validate_now() if p.problem.severity.value == "error"] == []
    monster = next(e for e in document.dungeon.elements if e.kind == "monster")
    document.push(MoveObjects(document.dungeon, [monster.id], 500, 0))  # off the paper
    located = document.validate_now()
    assert any(p.ref == monster.id for p in located), [(p.problem.code, p.ref) for p in located]


def test_the_documents_lookup_answers_for_the_model_as_it_is_after_every_edit(qapp):
    """``DungeonDocument.locate`` remembers its answers until the next change: after an edit,
    its undo and its redo each answer is the model's, and the dictionary given out is the
    caller's own (changing it changes no later answer)."""
    document = open_document(GRID_DUNGEON)
    dungeon = document.dungeon
    passages = list(dungeon.passages[:3])
    refs = [ref_of(p) for p in passages]
    found, shared = document.locate(refs)
    assert not shared
    assert {ref: found[ref][1:] for ref in refs} == {ref: (i, p) for i, (ref, p) in enumerate(zip(refs, passages))}
    found.clear()  # the caller's own
    assert sorted(document.locate(refs)[0]) == sorted(refs)
    document.push(DeleteObjects(dungeon, refs[:2]))
    assert sorted(document.locate(refs)[0]) == [refs[2]]
    assert document.locate(refs)[0][refs[2]][1] == 0  # now first in the list
    document.undo_stack.undo()
    assert {ref: at[1] for ref, at in document.locate(refs)[0].items()} == dict(zip(refs, range(3)))
    document.undo_stack.redo()
    assert sorted(document.locate(refs)[0]) == [refs[2]]
    # the whole model replaced (a reload): answered for the new model
    document.replace_model(dungeon_from_dict(document.dungeon.to_dict()))
    assert document.locate([refs[2]])[0][refs[2]][2] is document.dungeon.passages[0]


def test_delete_with_the_objects_located_by_the_window_removes_the_same_objects():
    """The window hands the delete what the document located for the selection: the same
    result as the delete's own lookup, and a located dictionary missing a reference (stale) is
    not trusted."""
    dungeon = grid_model()
    refs = [ref_of(p) for p in dungeon.passages[2:5]]
    located, _ = edits.locate(dungeon, refs)
    given = DeleteObjects(dungeon, refs, located=located)
    own = DeleteObjects(dungeon, refs)
    assert given.removed == own.removed
    incomplete = DeleteObjects(dungeon, refs, located={refs[0]: located[refs[0]]})
    assert incomplete.removed == own.removed
    with pytest.raises(EditError, match="no object"):
        DeleteObjects(dungeon, [*refs, "passage:999,999,east"], located=located)


def test_a_passage_edge_is_found_from_either_room_and_listed_twice_toggles_the_first():
    """``passages_on`` finds the passages of an edge whichever room lists it; an edge listed
    twice (G015) gives both, in file order, and TogglePassage removes the first, as before."""
    from editor.dungeon.edits import passages_on
    from editor.tools.grid import is_passage
    from inkcrawl.model import Passage

    dungeon = grid_model()
    dungeon.passages = [Passage((2, 1), "east"), Passage((0, 0), "south"), Passage((3, 1), "west")]
    ref = passage_ref((2, 1), "east")
    assert [i for i, _ in passages_on(dungeon, ref)] == [0, 2]
    assert is_passage(dungeon, (3, 1), "west") and is_passage(dungeon, (0, 1), "north")
    assert not is_passage(dungeon, (1, 1), "east")
    edit = TogglePassage(dungeon, (3, 1), "west")
    assert not edit.adding and edit.index == 0
    dungeon.passages[1].cell = [0, 0]  # a cell given as a list still counts
    assert [i for i, _ in passages_on(dungeon, passage_ref((0, 1), "north"))] == [1]
