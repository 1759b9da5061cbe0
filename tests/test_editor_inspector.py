"""The Inspector dock offscreen: properties of the selection typed in with the keyboard, one undo
step per field, several objects at once, mixed values, the sheet data, refused input."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from editor.dungeon.edits import find
from tests.editor_support import GRID_DUNGEON, LINE_PACK, make_window


def _line_window(qtbot, index: int = 0):
    window = make_window(qtbot, LINE_PACK)
    window.set_current(window.documents[index])
    return window


def _elements(window, kind: str):
    return [e for e in window.current.dungeon.elements if e.kind == kind]


def _type(qtbot, widget, text: str) -> None:
    """Replace a line edit's text by typing, then press Enter."""
    widget.selectAll()
    if text:
        qtbot.keyClicks(widget, text)
    else:
        QTest.keyClick(widget, Qt.Key.Key_Backspace)
    QTest.keyClick(widget, Qt.Key.Key_Return)


def test_shows_the_properties_of_a_selected_element(qtbot):
    window = _line_window(qtbot, 3)
    boss = _elements(window, "boss")[0]
    window.scene.select_refs([boss.id])
    inspector = window.inspector
    assert boss.id in inspector.header.text() and "boss" in inspector.header.text()
    fields = inspector.fields_by_name
    assert {"id", "name", "at_x", "at_y", "size_mm", "rotation_deg", "vp"} <= set(fields)
    assert "locks" not in fields and "text" not in fields  # not a door, not a label
    assert fields["id"].edit.text() == boss.id
    assert fields["vp"].edit.text() == str(boss.vp)
    assert float(fields["at_x"].edit.text()) == boss.at[0]
    door = _elements(window, "door")[0]
    window.scene.select_refs([door.id])
    assert set(window.inspector.fields_by_name) == {"id", "kind", "name", "locks"}
    locks = window.inspector.fields_by_name["locks"].list
    checked = [
        locks.item(i).data(Qt.ItemDataRole.UserRole)
        for i in range(locks.count())
        if locks.item(i).checkState() == Qt.CheckState.Checked
    ]
    assert checked == [c for c in locks_order(locks) if c in door.locks]


def locks_order(list_widget):
    return [list_widget.item(i).data(Qt.ItemDataRole.UserRole) for i in range(list_widget.count())]


def test_typing_a_name_is_one_undo_step_and_undo_restores_the_exact_json(qtbot):
    window = _line_window(qtbot)
    monster = _elements(window, "monster")[0]
    window.scene.select_refs([monster.id])
    document = window.current
    before = document.canonical_text()
    name = window.inspector.fields_by_name["name"].edit
    _type(qtbot, name, "Grumbling Rat")
    assert find(document.dungeon, monster.id)[2].name == "Grumbling Rat"
    assert document.undo_stack.count() == 1  # a run of typing is one step
    assert document.undo_stack.text(0) == "Change name"
    _type(qtbot, window.inspector.fields_by_name["size_mm"].edit, "11.5")
    assert find(document.dungeon, monster.id)[2].size_mm == 11.5
    assert document.undo_stack.count() == 2
    window.action("undo").trigger()
    assert window.inspector.fields_by_name["size_mm"].edit.text() == str(monster.size_mm).removesuffix(".0")
    window.action("undo").trigger()
    assert document.canonical_text() == before
    assert window.inspector.fields_by_name["name"].edit.text() == (monster.name or "")  # follows undo
    window.action("redo").trigger()
    assert window.inspector.fields_by_name["name"].edit.text() == "Grumbling Rat"
    # Ctrl+Z inside the field while typing takes the model back with the text
    name = window.inspector.fields_by_name["name"].edit
    name.setFocus()
    qtbot.keyClicks(name, "s")
    assert find(document.dungeon, monster.id)[2].name == "Grumbling Rats"
    QTest.keyClick(name, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert name.text() == "Grumbling Rat" and find(document.dungeon, monster.id)[2].name == "Grumbling Rat"


def test_several_objects_mixed_values_and_one_step_for_all(qtbot):
    window = _line_window(qtbot)
    monsters = _elements(window, "monster")
    assert len({m.at[0] for m in monsters}) > 1
    refs = [m.id for m in monsters]
    window.scene.select_refs(refs)
    inspector = window.inspector
    assert inspector.header.text().startswith(f"{len(refs)} objects")
    at_x = inspector.fields_by_name["at_x"].edit
    assert at_x.text() == "" and at_x.placeholderText() == "mixed"
    assert not inspector.fields_by_name["id"].edit.isEnabled()  # ids stay unique
    document = window.current
    before = document.canonical_text()
    _type(qtbot, inspector.fields_by_name["size_mm"].edit, "9")
    assert {find(document.dungeon, r)[2].size_mm for r in refs} == {9}
    _type(qtbot, at_x, "50")
    assert [find(document.dungeon, r)[2].at for r in refs] == [(50, m.at[1]) for m in monsters]
    assert at_x.text() == "50" and at_x.placeholderText() == ""
    assert document.undo_stack.count() == 2
    window.action("undo").trigger()
    window.action("undo").trigger()
    assert document.canonical_text() == before
    # a monster and an area: only what both have
    area = document.dungeon.areas[0]
    window.scene.select_refs([refs[0], area.id])
    assert set(inspector.fields_by_name) == {"id", "name"}


def test_invalid_input_is_refused_without_changing_the_model(qtbot):
    window = _line_window(qtbot)
    document = window.current
    monster, other = _elements(window, "monster")[:2]
    window.scene.select_refs([monster.id])
    before = document.canonical_text()
    inspector = window.inspector
    _type(qtbot, inspector.fields_by_name["size_mm"].edit, "abc")
    assert document.canonical_text() == before and document.undo_stack.count() == 0
    assert inspector.message.isVisibleTo(inspector) and "not a number" in inspector.message.text()
    assert inspector.fields_by_name["size_mm"].edit.text() == str(monster.size_mm).removesuffix(".0")
    _type(qtbot, inspector.fields_by_name["size_mm"].edit, "-3")
    assert "between" in inspector.message.text() and document.canonical_text() == before
    _type(qtbot, inspector.fields_by_name["id"].edit, other.id)
    assert "already used" in inspector.message.text() and document.canonical_text() == before
    _type(qtbot, inspector.fields_by_name["id"].edit, "bad id!")
    assert "not a valid id" in inspector.message.text() and document.canonical_text() == before
    # a valid new id is one step; the canvas selection follows the object
    _type(qtbot, inspector.fields_by_name["id"].edit, "rat-king")
    assert find(document.dungeon, "rat-king")[2].kind == "monster"
    assert window.scene.selected_refs() == ["rat-king"]
    assert inspector.fields_by_name["id"].edit.text() == "rat-king"
    window.action("undo").trigger()
    assert document.canonical_text() == before
    assert window.scene.selected_refs() == [monster.id]
    assert inspector.fields_by_name["id"].edit.text() == monster.id


def test_sheet_data_editing(qtbot):
    window = _line_window(qtbot, 3)
    document = window.current
    window.scene.select_refs([])
    inspector = window.inspector
    fields = inspector.fields_by_name
    assert {"title", "reminders", "components", "end_triggers", "boss_vp", "orb_tokens"} <= set(fields)
    before = document.canonical_text()
    sheet = document.dungeon.sheet
    steps = 0

    def one_more_step():
        nonlocal steps
        steps += 1
        assert document.undo_stack.count() == steps

    _type(qtbot, fields["title"].edit, "The Lantern Queen")
    assert sheet.title == "The Lantern Queen"
    one_more_step()
    # reminders: add one, type its text through the list's editor, move it up, remove it
    reminders = list(sheet.reminders)
    assert reminders and fields["reminders"].list.currentRow() == -1  # none highlighted until chosen
    QTest.mouseClick(fields["reminders"].buttons["add"], Qt.MouseButton.LeftButton)
    assert document.dungeon.sheet.reminders == reminders + ["New reminder"]
    one_more_step()
    item_list = fields["reminders"].list
    item_list.setCurrentRow(item_list.count() - 1)
    item_list.editItem(item_list.currentItem())
    editor = item_list.focusWidget() if item_list.focusWidget() is not item_list else None
    editor = editor or item_list.viewport().findChild(type(fields["title"].edit))
    _type(qtbot, editor, "Mind the wick")
    qtbot.waitUntil(lambda: document.dungeon.sheet.reminders[-1] == "Mind the wick")
    one_more_step()
    qtbot.wait(10)
    item_list.setCurrentRow(item_list.count() - 1)
    QTest.mouseClick(fields["reminders"].buttons["up"], Qt.MouseButton.LeftButton)
    assert document.dungeon.sheet.reminders[-2] == "Mind the wick"
    one_more_step()
    QTest.mouseClick(fields["reminders"].buttons["remove"], Qt.MouseButton.LeftButton)
    assert document.dungeon.sheet.reminders == reminders
    one_more_step()
    # components
    assert "keys" in sheet.components
    fields["components"].boxes["keys"].click()
    assert "keys" not in document.dungeon.sheet.components
    one_more_step()
    # end triggers: change the timer's seconds, add an orb trigger
    triggers = fields["end_triggers"]
    timer_row = next(i for i, t in enumerate(document.dungeon.sheet.end_triggers) if t.kind == "timer")
    _type(qtbot, triggers.row_widgets[timer_row]["seconds"], "240")
    assert document.dungeon.sheet.end_triggers[timer_row].seconds == 240
    one_more_step()
    _type(qtbot, triggers.row_widgets[timer_row]["seconds"], "5")  # under 10 s: refused
    assert document.dungeon.sheet.end_triggers[timer_row].seconds == 240 and "between" in inspector.message.text()
    assert document.undo_stack.count() == steps
    triggers.add_combo.activated.emit(triggers.add_combo.findData("orb_taken"))
    added = document.dungeon.sheet.end_triggers[-1]
    assert (added.kind, added.colour, added.when) == ("orb_taken", "blue", "last")
    one_more_step()
    # boss VP is the boss element's vp
    boss = _elements(window, "boss")[0]
    _type(qtbot, fields["boss_vp"].edit, "15")
    assert find(document.dungeon, boss.id)[2].vp == 15
    one_more_step()
    # orb tokens: a list of whole numbers per colour; text is refused
    _type(qtbot, fields["orb_tokens"].edits["blue"], "6, 4, 2")
    assert document.dungeon.sheet.orb_tokens["blue"] == [6, 4, 2]
    one_more_step()
    _type(qtbot, fields["orb_tokens"].edits["pink"], "5, three")
    assert document.dungeon.sheet.orb_tokens["pink"] == [5, 3, 1, 0] and "not a number" in inspector.message.text()
    assert document.undo_stack.count() == steps
    assert fields["orb_tokens"].edits["pink"].text() == "5, 3, 1, 0"
    # every step undoes back to the file as opened
    for _ in range(steps):
        window.action("undo").trigger()
    assert document.canonical_text() == before
    assert fields["title"].edit.text() == "The Lantern King's Descent"


def test_grid_feature_kind_letter_and_entryway_side(qtbot):
    window = make_window(qtbot, GRID_DUNGEON)
    document = window.current
    monster = next(f for f in document.dungeon.features if f.kind == "monster")
    window.scene.select_refs([monster.id])
    fields = window.inspector.fields_by_name
    assert {"id", "kind", "name", "cell", "letter"} <= set(fields)
    before = document.canonical_text()
    letter = fields["letter"].combo
    letter.setFocus()
    target = "B" if monster.letter != "B" else "C"
    letter.activated.emit(letter.findData(target))
    assert find(document.dungeon, monster.id)[2].letter == target
    kind = window.inspector.fields_by_name["kind"].combo
    kind.activated.emit(kind.findData("loot"))
    changed = find(document.dungeon, monster.id)[2]
    assert (changed.kind, changed.letter) == ("loot", None)  # a loot bag has no letter
    assert "letter" not in window.inspector.fields_by_name
    assert document.undo_stack.count() == 2
    window.action("undo").trigger()
    window.action("undo").trigger()
    assert document.canonical_text() == before
    entryway = document.dungeon.entryways[0]
    window.scene.select_refs([entryway.id])
    side = window.inspector.fields_by_name["side"].combo
    assert side.currentData() == entryway.side


def test_locks_checklist(qtbot):
    window = _line_window(qtbot, 3)
    document = window.current
    door = next(d for d in _elements(window, "door") if len(d.locks) == 1)
    window.scene.select_refs([door.id])
    locks = window.inspector.fields_by_name["locks"].list
    order = locks_order(locks)
    original = list(door.locks)
    extra = next(c for c in order if c not in original)
    locks.item(order.index(extra)).setCheckState(Qt.CheckState.Checked)
    assert find(document.dungeon, door.id)[2].locks == original + [extra]
    qtbot.wait(5)
    locks = window.inspector.fields_by_name["locks"].list
    for colour in list(find(document.dungeon, door.id)[2].locks):
        locks.item(order.index(colour)).setCheckState(Qt.CheckState.Unchecked)
        qtbot.wait(5)
        locks = window.inspector.fields_by_name["locks"].list
    assert len(find(document.dungeon, door.id)[2].locks) == 1  # the last lock stays
    assert "at least one lock" in window.inspector.message.text()


def _type_and_clear(qtbot, widget) -> None:
    """Type a character and take it back, then press Enter: the field is edited but empty."""
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClicks(widget, "x")
    QTest.keyClick(widget, Qt.Key.Key_Backspace)
    QTest.keyClick(widget, Qt.Key.Key_Return)


def test_channel_field_and_emptied_fields(qtbot):
    window = _line_window(qtbot, 1)
    document = window.current
    inspector = window.inspector
    entry = _elements(window, "portal_entry")[0]
    exit_ = _elements(window, "portal_exit")[0]
    before = document.canonical_text()
    window.scene.select_refs([entry.id])
    channel = inspector.fields_by_name["channel"].edit
    assert channel.text() == entry.channel and "pairs portal entries" in channel.toolTip()
    _type(qtbot, channel, "C")
    assert find(document.dungeon, entry.id)[2].channel == "C"
    assert document.undo_stack.count() == 1 and document.undo_stack.text(0) == "Change channel"
    _type(qtbot, channel, "not valid!")
    assert "not a valid channel" in inspector.message.text() and document.undo_stack.count() == 1
    assert channel.text() == "C" and find(document.dungeon, entry.id)[2].channel == "C"
    _type(qtbot, channel, "")  # an empty channel is not an id
    assert "'' is not a valid channel" in inspector.message.text() and document.undo_stack.count() == 1
    assert channel.text() == "C"
    # an entry and an exit on different channels: "mixed"; emptying the field leaves both as they are
    window.scene.select_refs([entry.id, exit_.id])
    channel = inspector.fields_by_name["channel"].edit
    assert channel.text() == "" and channel.placeholderText() == "mixed"
    _type_and_clear(qtbot, channel)
    assert not inspector.message.isVisibleTo(inspector) and document.undo_stack.count() == 1
    assert channel.placeholderText() == "mixed"
    _type(qtbot, channel, "D")
    assert {find(document.dungeon, r)[2].channel for r in (entry.id, exit_.id)} == {"D"}
    assert document.undo_stack.count() == 2 and channel.placeholderText() == ""
    window.action("undo").trigger()
    window.action("undo").trigger()
    assert document.canonical_text() == before


def test_emptied_number_is_refused_unless_mixed(qtbot):
    window = _line_window(qtbot)
    document = window.current
    inspector = window.inspector
    monsters = _elements(window, "monster")
    window.scene.select_refs([m.id for m in monsters])
    at_x = inspector.fields_by_name["at_x"].edit
    assert at_x.placeholderText() == "mixed"
    _type_and_clear(qtbot, at_x)  # mixed and left empty: every monster keeps its x
    assert not inspector.message.isVisibleTo(inspector) and document.undo_stack.count() == 0
    assert at_x.text() == "" and at_x.placeholderText() == "mixed"
    window.scene.select_refs([monsters[0].id])
    size = inspector.fields_by_name["size_mm"].edit
    _type(qtbot, size, "")
    assert inspector.message.text() == "Size (mm): enter a number" and document.undo_stack.count() == 0
    assert size.text() == str(monsters[0].size_mm).removesuffix(".0")
    assert size.toolTip() == "Size (mm) in mm"


def test_id_is_trimmed_and_an_unchanged_id_is_no_step(qtbot):
    window = _line_window(qtbot)
    document = window.current
    inspector = window.inspector
    monster = _elements(window, "monster")[0]
    window.scene.select_refs([monster.id])
    _type(qtbot, inspector.fields_by_name["id"].edit, f" {monster.id} ")
    assert document.undo_stack.count() == 0 and not inspector.message.isVisibleTo(inspector)
    _type(qtbot, inspector.fields_by_name["id"].edit, " rat-king ")
    assert find(document.dungeon, "rat-king")[2].kind == "monster" and document.undo_stack.count() == 1
    assert inspector.fields_by_name["id"].edit.text() == "rat-king"


def test_the_sheet_form_shown_again_after_a_selection_shows_the_model_as_it_is_now(qtbot):
    """Going back to the sheet (the selection emptied, or deleted) shows the sheet's form kept
    from before (not built again: deleting 50 passages of a big grid spent a third of its time
    on that), with the values the model has now; a boss added meanwhile gives a new form with
    its Boss VP field."""
    from editor.dungeon.edits import AddObjects, ChangeSheet
    from inkcrawl.model import Element

    window = _line_window(qtbot, 0)
    document, inspector = window.current, window.inspector
    assert not _elements(window, "boss")
    window.scene.select_refs([])
    sheet_form = inspector.form_widget
    assert inspector.fields_by_name["boss_vp"].widget.text() == "no boss on this sheet"
    monster = _elements(window, "monster")[0]
    window.scene.select_refs([monster.id])
    assert "title" not in inspector.fields_by_name
    document.push(ChangeSheet(document.dungeon, "title", "Retitled meanwhile"))
    window.delete_selection()
    assert inspector.form_widget is sheet_form
    title = inspector.fields_by_name["title"].edit
    assert title.text() == "Retitled meanwhile" and inspector.header.text() == f"Sheet of {document.dungeon.id}"
    _type(qtbot, title, "Typed in the form kept")
    assert document.dungeon.sheet.title == "Typed in the form kept"
    document.undo_stack.undo()  # the typing
    document.undo_stack.undo()  # the delete: the monster is back
    assert document.dungeon.sheet.title == "Retitled meanwhile"
    window.scene.select_refs([monster.id])
    boss = Element(id="boss-added", kind="boss", at=(60.0, 60.0), size_mm=8.0, rotation_deg=0.0, vp=7)
    document.push(AddObjects([("elements", None, boss)]))
    window.scene.select_refs([])
    assert inspector.form_widget is not sheet_form
    assert inspector.fields_by_name["boss_vp"].edit.text() == "7"
    assert inspector.fields_by_name["title"].edit.text() == "Retitled meanwhile"
