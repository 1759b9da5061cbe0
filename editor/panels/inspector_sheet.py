"""The Inspector's fields of the sheet data, shown with nothing selected.

The dungeon's id and title, the reminders printed on the sheet, and for the line family the
special components, the Scrawl End triggers and the orb token values (RULES.md 2, Gaps: the
triggers a sheet may list). Each is a :class:`editor.panels.inspector_fields.Field` pushing
:class:`editor.dungeon.edits.ChangeSheet` edits through the inspector (:mod:`editor.panels.inspector`).
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from editor.panels.inspector_fields import (
    EDIT_SESSIONS,
    ID_PATTERN,
    NO_VALUE,
    Field,
    parse_number,
    revert_on_escape,
    undo_session,
)
from inkcrawl.model import EndTrigger

#: The special components a line sheet may list (schemas/dungeon.schema.json).
COMPONENTS = ("orbs", "keys", "timer")
#: Scrawl End trigger kinds with the names the editor shows (RULES.md 2).
TRIGGER_KINDS = {
    "boss_covered": "Boss covered",
    "timer": "Timer",
    "escape_portal": "Escape portal",
    "orb_taken": "Orb taken",
    "exit_reached": "Exit reached",
}


class SheetTextField(Field):
    """A text member of the sheet (the title) or of the dungeon (its id), as you type for the
    title (one undo step per editing session), when editing finishes for the id."""

    def __init__(self, inspector, label: str, member: str, max_length: int, live: bool):
        super().__init__(inspector, label)
        self.member = member
        self.live = live
        self.edit = QLineEdit()
        self.edit.setObjectName(f"sheet_{member}")
        self.edit.setMaxLength(max_length)
        self.widget = self.edit
        self.session = next(EDIT_SESSIONS)
        if live:  # textChanged: the line edit's own undo reaches the model too (see LiveTextField)
            self.edit.textChanged.connect(self._typed)
        self.edit.editingFinished.connect(self._finished)
        revert_on_escape(self.edit, self.revert)

    def revert(self) -> None:
        """Escape: undo this typing session (the title) or forget the text typed (the id)."""
        document = self.inspector.bound_document
        if document is None:
            return
        if self.live and self.editing:
            undo_session(document, f"inspect:sheet:{self.member}:{self.session}")
        self.editing = False
        self.session = next(EDIT_SESSIONS)
        self.edit.setModified(False)
        self.load()

    def value(self) -> str:
        dungeon = self.document.dungeon
        return dungeon.id if self.member == "id" else getattr(dungeon.sheet, self.member)

    def load(self) -> None:
        self.edit.blockSignals(True)
        self.edit.setText(self.value())
        self.edit.blockSignals(False)
        self.edit.setModified(False)

    def _typed(self, text: str) -> None:
        if not text:
            return
        self.editing = True
        self.inspector.push_sheet(self.member, text, merge_key=f"inspect:sheet:{self.member}:{self.session}")

    def _finished(self) -> None:
        if self.inspector.bound_document is None:
            return
        text = self.edit.text().strip() if not self.live else self.edit.text()
        if not text:
            if self.editing or self.edit.isModified():
                self.inspector.refuse(f"{self.label} cannot be empty")
        elif not self.live and self.edit.isModified() and text != self.value():
            if self.member == "id" and not ID_PATTERN.match(text):
                self.inspector.refuse(
                    f"'{text}' is not a valid dungeon id: 1 to 64 letters, digits, '_', '.' "
                    f"or '-', starting with a letter or digit"
                )
            else:
                self.inspector.push_sheet(self.member, text)
        self.editing = False
        self.session = next(EDIT_SESSIONS)
        self.load()


class RemindersField(Field):
    """The reminders printed on the sheet: a list to edit in place (double-click or F2), with
    Add, Remove, Move up and Move down. Each change is one undo step; an empty reminder is
    refused (use Remove). At most 20 reminders of up to 300 characters."""

    def __init__(self, inspector):
        super().__init__(inspector, "Reminders")
        self.widget = QWidget()
        layout = QVBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget()
        self.list.setObjectName("sheet_reminders")
        self.list.setWordWrap(True)
        self.list.setMaximumHeight(140)
        layout.addWidget(self.list)
        buttons = QGridLayout()  # two by two: the Inspector stays usable in a narrow dock
        self.buttons = {}
        for number, (key, text, tip) in enumerate(
            (
                ("add", "Add", "Add a reminder"),
                ("remove", "Remove", "Remove the chosen reminder"),
                ("up", "Up", "Move the chosen reminder up"),
                ("down", "Down", "Move the chosen reminder down"),
            )
        ):
            button = QPushButton(text)
            button.setObjectName(f"reminders_{key}")
            button.setToolTip(tip)
            buttons.addWidget(button, number // 2, number % 2)
            self.buttons[key] = button
        layout.addLayout(buttons)
        self.buttons["add"].clicked.connect(self.add)
        self.buttons["remove"].clicked.connect(self.remove)
        self.buttons["up"].clicked.connect(lambda: self.move(-1))
        self.buttons["down"].clicked.connect(lambda: self.move(1))
        self.list.itemChanged.connect(self._edited)

    def reminders(self) -> list[str]:
        return list(self.document.dungeon.sheet.reminders)

    def load(self) -> None:
        row = self.list.currentRow()
        self.list.blockSignals(True)
        self.list.clear()
        for text in self.reminders():
            item = QListWidgetItem(text)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            self.list.addItem(item)
        if self.list.count() and row >= 0:  # keep the chosen reminder; none is chosen on opening
            self.list.setCurrentRow(min(row, self.list.count() - 1))
        self.list.blockSignals(False)

    def _edited(self, item: QListWidgetItem) -> None:
        texts = [self.list.item(i).text().strip() for i in range(self.list.count())]
        if any(not t for t in texts):
            self.inspector.refuse("a reminder cannot be empty: use Remove to take it off the sheet")
        elif any(len(t) > 300 for t in texts):
            self.inspector.refuse("a reminder holds at most 300 characters")
        elif texts != self.reminders():
            self.push_from_own_signal(lambda: self.inspector.push_sheet("reminders", texts, "Edit reminder"))
        self.reload_soon()

    def add(self) -> None:
        reminders = self.reminders()
        if len(reminders) >= 20:
            self.inspector.refuse("a sheet holds at most 20 reminders")
            return
        self.inspector.push_sheet("reminders", reminders + ["New reminder"], "Add reminder")
        self.list.setCurrentRow(self.list.count() - 1)
        item = self.list.currentItem()
        if item is not None and self.list.isVisible():
            self.list.editItem(item)

    def remove(self) -> None:
        row = self.list.currentRow()
        reminders = self.reminders()
        if 0 <= row < len(reminders):
            del reminders[row]
            self.inspector.push_sheet("reminders", reminders, "Remove reminder")

    def move(self, step: int) -> None:
        row = self.list.currentRow()
        reminders = self.reminders()
        target = row + step
        if 0 <= row < len(reminders) and 0 <= target < len(reminders):
            reminders[row], reminders[target] = reminders[target], reminders[row]
            self.inspector.push_sheet("reminders", reminders, "Move reminder")
            self.list.setCurrentRow(target)


class ComponentsField(Field):
    """The special components a line sheet lists: orbs, keys, timer (one check box each)."""

    def __init__(self, inspector):
        super().__init__(inspector, "Components")
        self.widget = QWidget()
        layout = QHBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        self.boxes = {}
        for name in COMPONENTS:
            box = QCheckBox(name)
            box.setObjectName(f"sheet_component_{name}")
            box.toggled.connect(lambda on, n=name: self._toggled(n, on))
            layout.addWidget(box)
            self.boxes[name] = box
        layout.addStretch(1)

    def load(self) -> None:
        present = self.document.dungeon.sheet.components or []
        for name, box in self.boxes.items():
            box.blockSignals(True)
            box.setChecked(name in present)
            box.blockSignals(False)

    def _toggled(self, name: str, on: bool) -> None:
        present = list(self.document.dungeon.sheet.components or [])
        if on and name not in present:
            present.append(name)
        elif not on:
            present = [c for c in present if c != name]
        if present != (self.document.dungeon.sheet.components or []):
            self.inspector.push_sheet("components", present, "Change components")


class EndTriggersField(Field):
    """The Scrawl End triggers of a line sheet (RULES.md 2): one row per trigger with its kind
    and, for a timer, the seconds (10 to 3600), for "orb taken" the colour and whether the
    first or the last token ends the scrawl. Each change replaces the list in one undo step."""

    def __init__(self, inspector, orb_colours: list[str]):
        super().__init__(inspector, "End triggers")
        self.orb_colours = orb_colours
        self.widget = QWidget()
        self.layout = QVBoxLayout(self.widget)
        self.layout.setContentsMargins(0, 0, 0, 0)
        self.layout.addWidget(self._new_rows())
        self.add_combo = QComboBox()
        self.add_combo.setObjectName("sheet_add_trigger")
        self.add_combo.setToolTip("Add a Scrawl End trigger to the sheet")
        self.add_combo.addItem("Add trigger\u2026", NO_VALUE)
        for kind, text in TRIGGER_KINDS.items():
            self.add_combo.addItem(text, kind)
        self.add_combo.activated.connect(self._add)
        self.layout.addWidget(self.add_combo)
        self.row_widgets: list[dict] = []

    def triggers(self) -> list[EndTrigger]:
        return [EndTrigger(t.kind, t.seconds, t.colour, t.when) for t in self.document.dungeon.sheet.end_triggers or []]

    def default(self, kind: str) -> EndTrigger:
        if kind == "timer":
            return EndTrigger("timer", seconds=180)
        if kind == "orb_taken":
            return EndTrigger("orb_taken", colour=(self.orb_colours or ["blue"])[0], when="last")
        return EndTrigger(kind)

    def _new_rows(self) -> QWidget:
        """A new empty widget for the trigger rows (``rows``, laid out by ``rows_layout``)."""
        self.rows = QWidget()
        self.rows_layout = QVBoxLayout(self.rows)
        self.rows_layout.setContentsMargins(0, 0, 0, 0)
        return self.rows

    def load(self) -> None:
        old = self.rows
        self.layout.replaceWidget(old, self._new_rows())
        old.hide()
        old.deleteLater()
        self.row_widgets = []
        for index, trigger in enumerate(self.triggers()):
            self.rows_layout.addWidget(self._row(index, trigger))
        if not self.row_widgets:
            self.rows_layout.addWidget(QLabel("No end trigger: the scrawl ends when the players stop."))
        self.add_combo.setCurrentIndex(0)

    def _row(self, index: int, trigger: EndTrigger) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        widgets: dict = {}
        kind = QComboBox()
        kind.setObjectName(f"trigger_{index}_kind")
        for value, text in TRIGGER_KINDS.items():
            kind.addItem(text, value)
        kind.setCurrentIndex(max(kind.findData(trigger.kind), 0))
        kind.activated.connect(lambda i, n=index, c=kind: self._replace(n, self.default(c.itemData(i))))
        layout.addWidget(kind)
        widgets["kind"] = kind
        if trigger.kind == "timer":
            seconds = QLineEdit(str(trigger.seconds or ""))
            seconds.setObjectName(f"trigger_{index}_seconds")
            seconds.setToolTip("Seconds before the scrawl ends (10 to 3600)")
            seconds.setMaximumWidth(70)
            seconds.editingFinished.connect(lambda n=index, e=seconds: self._seconds(n, e))
            layout.addWidget(seconds)
            layout.addWidget(QLabel("s"))
            widgets["seconds"] = seconds
        elif trigger.kind == "orb_taken":
            colour = QComboBox()
            colour.setObjectName(f"trigger_{index}_colour")
            for name in dict.fromkeys(self.orb_colours + ([trigger.colour] if trigger.colour else [])):
                colour.addItem(name, name)
            colour.setCurrentIndex(max(colour.findData(trigger.colour), 0))
            colour.activated.connect(lambda i, n=index, c=colour: self._set(n, colour=c.itemData(i)))
            when = QComboBox()
            when.setObjectName(f"trigger_{index}_when")
            when.addItem("first token", "first")
            when.addItem("last token", "last")
            when.setCurrentIndex(max(when.findData(trigger.when), 0))
            when.activated.connect(lambda i, n=index, c=when: self._set(n, when=c.itemData(i)))
            layout.addWidget(colour)
            layout.addWidget(when)
            widgets.update(colour=colour, when=when)
        layout.addStretch(1)
        remove = QToolButton()
        remove.setText("\u2715")
        remove.setObjectName(f"trigger_{index}_remove")
        remove.setToolTip("Remove this end trigger")
        remove.clicked.connect(lambda _=False, n=index: self._remove(n))
        layout.addWidget(remove)
        widgets["remove"] = remove
        self.row_widgets.append(widgets)
        return row

    def _push(self, triggers: list[EndTrigger], text: str) -> None:
        # the rows are rebuilt by load(); old rows are deleted later, so pushing from a row's
        # own signal is safe
        self.inspector.push_sheet("end_triggers", triggers, text)

    def _replace(self, index: int, trigger: EndTrigger) -> None:
        triggers = self.triggers()
        if triggers[index].kind != trigger.kind:
            triggers[index] = trigger
            self._push(triggers, "Change end trigger")

    def _set(self, index: int, **members) -> None:
        triggers = self.triggers()
        for key, value in members.items():
            setattr(triggers[index], key, value)
        if triggers != self.triggers():
            self._push(triggers, "Change end trigger")

    def _seconds(self, index: int, edit: QLineEdit) -> None:
        if not edit.isModified():
            return
        edit.setModified(False)
        try:
            seconds = parse_number(edit.text(), True, 10, 3600, "The timer's seconds")
        except ValueError as exc:
            self.inspector.refuse(str(exc))
            edit.setText(str(self.triggers()[index].seconds or ""))
            return
        self._set(index, seconds=seconds)

    def _remove(self, index: int) -> None:
        triggers = self.triggers()
        del triggers[index]
        self._push(triggers, "Remove end trigger")

    def _add(self, combo_index: int) -> None:
        kind = self.add_combo.itemData(combo_index)
        self.add_combo.setCurrentIndex(0)
        if kind == NO_VALUE:
            return
        triggers = self.triggers()
        if len(triggers) >= 10:
            self.inspector.refuse("a sheet lists at most 10 end triggers")
            return
        self._push(triggers + [self.default(kind)], "Add end trigger")


class OrbTokensField(Field):
    """The VP printed on the orb tokens of each colour, from the first token taken to the
    last: one line per orb colour of the ruleset, numbers separated by commas (1 to 12 whole
    numbers from -99 to 99). An empty line takes the colour off the sheet."""

    def __init__(self, inspector, colours: list[str]):
        super().__init__(inspector, "Orb tokens")
        self.colours = colours
        self.widget = QWidget()
        self.form = QFormLayout(self.widget)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.edits: dict[str, QLineEdit] = {}
        for colour in colours:
            self._line(colour)

    def _line(self, colour: str) -> None:
        edit = QLineEdit()
        edit.setObjectName(f"sheet_orb_{colour}")
        edit.setPlaceholderText("e.g. 4, 3, 2, 1")
        edit.setToolTip(f"VP of the {colour} orb tokens, first taken to last")
        edit.editingFinished.connect(lambda c=colour: self._finished(c))
        self.form.addRow(colour, edit)
        self.edits[colour] = edit

    def load(self) -> None:
        tokens = self.document.dungeon.sheet.orb_tokens or {}
        for colour in tokens:
            if colour not in self.edits:
                self._line(colour)
        for colour, edit in self.edits.items():
            edit.setText(", ".join(str(v) for v in tokens.get(colour, [])))
            edit.setModified(False)

    def _finished(self, colour: str) -> None:
        edit = self.edits[colour]
        if not edit.isModified() or self.inspector.bound_document is None:
            return
        edit.setModified(False)
        parts = [p for p in re.split(r"[,;\s]+", edit.text().strip()) if p]
        try:
            values = [parse_number(p, True, -99, 99, f"{colour} orb token VP") for p in parts]
            if len(values) > 12:
                raise ValueError(f"at most 12 {colour} orb tokens")
        except ValueError as exc:
            self.inspector.refuse(str(exc))
            self.load()
            return
        current = self.document.dungeon.sheet.orb_tokens
        tokens = dict(current or {})
        if values:
            tokens[colour] = values
        else:
            tokens.pop(colour, None)
        if tokens != (current or {}) or (current is None and tokens):
            self.inspector.push_sheet("orb_tokens", tokens, f"Change {colour} orb tokens")
        else:
            self.load()
