"""The Inspector dock: the properties of the selection, or the dungeon's sheet data.

With objects selected on the canvas, the inspector shows the properties that apply to every
one of them (the kinds of the selection decide: a boss has VP, a door its locks, a label its
text...). A property shared by several objects shows their common value, or stays blank with
the placeholder "mixed" when they differ; editing it sets the value on all of them in one
undo step (:class:`editor.edits.ChangeProperties` with one change per object).

With nothing selected it shows the sheet data of the dungeon (:class:`editor.edits.ChangeSheet`):
title, reminders, and for the line family the components, the Scrawl End triggers, the
boss's VP and the orb token values (RULES.md 2, Gaps: the triggers a sheet may list).

Typing in a text field changes the model as you type, and the whole run of typing in one
field is one undo step (a merge key per editing session, closed when editing finishes);
number, id and list fields apply when editing finishes (Enter or leaving the field). Input
the model cannot take (text in a number, a duplicate id, a value out of the schema's range)
is refused with a message and the field shows the model's value again; the model is unchanged.
The inspector follows the selection, the current dungeon and every change of the model,
including undo and redo.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from editor.edits import ChangeProperties, ChangeSheet, EditError, index_by_ref
from inkcrawl.model import SKELETON_LOCK, Area, Element, EndTrigger, Entryway, Feature, Passage, Wall
from inkcrawl.rulesets import bundled_rulesets

#: The pattern of every id (schemas: ``$defs/id``).
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Shown in a field whose objects hold different values.
MIXED = "mixed"
#: The special components a line sheet may list (schemas/dungeon.schema.json).
COMPONENTS = ("orbs", "keys", "timer")
#: Scrawl End trigger kinds with the names the editor shows (RULES.md 2).
TRIGGER_KINDS = {"boss_covered": "Boss covered", "timer": "Timer", "escape_portal": "Escape portal",
                 "orb_taken": "Orb taken", "exit_reached": "Exit reached"}

#: Item data of combo entries that stand for no value. Never store ``None`` as item data:
#: PySide6 6.12 drops a reference to ``None`` each time such data is read back, which
#: crashes the interpreter after a while.
NO_VALUE = ""

_SESSIONS = itertools.count(1)


def _fmt(value: Any) -> str:
    """A number as the inspector shows it: whole numbers without decimals, at most 3 decimals."""
    if isinstance(value, float):
        value = round(value, 3)
        if value.is_integer():
            return str(int(value))
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return "" if value is None else str(value)


def parse_number(text: str, integer: bool, low: float, high: float, what: str) -> float | int:
    """Read a number typed by the designer (a decimal comma is accepted).

    Returns an ``int`` for ``integer`` fields and a float rounded to 0.001 (mm) otherwise, an
    ``int`` when it is whole. Raises ``ValueError`` with a sentence naming ``what`` when the
    text is not a number, not whole where a whole number is needed, or outside ``low..high``.
    """
    cleaned = text.strip().replace(",", ".")
    try:
        number = float(cleaned)
    except ValueError:
        raise ValueError(f"{what}: '{text.strip()}' is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{what}: '{text.strip()}' is not a number")
    if integer:
        if not number.is_integer():
            raise ValueError(f"{what} is a whole number; '{text.strip()}' is not")
        number = int(number)
    else:
        number = round(number, 3)
        if number.is_integer():
            number = int(number)
    if not low <= number <= high:
        raise ValueError(f"{what} must lie between {_fmt(low)} and {_fmt(high)}; {_fmt(number)} does not")
    return number


def _common(values: list) -> tuple[bool, Any]:
    """``(True, value)`` when every value is equal, else ``(False, None)``."""
    if not values:
        return False, None
    first = values[0]
    same = all(v == first for v in values[1:])
    return same, first if same else None


def _objects_of(dungeon, refs: list[str]) -> list:
    """The objects of ``dungeon`` that ``refs`` name, in order (refs of no object skipped)."""
    index = index_by_ref(dungeon)
    return [index[r][2] for r in refs if r in index]


def _kind_of(obj) -> str:
    """An object's kind as the inspector names it (``kind``, else its class: area, wall...)."""
    return getattr(obj, "kind", type(obj).__name__.lower())


def element_members(kind: str, ruleset=None) -> set[str]:
    """The element members that apply to an element ``kind`` of ``ruleset`` (its
    :attr:`inkcrawl.kinds.ElementKind.element_members`; without a ruleset, or for a kind it
    does not define, those of the bundled line ruleset's kind, else a round footprint)."""
    kinds = ruleset.kinds if ruleset is not None and ruleset.family == "line" else {}
    spec = kinds.get(kind) or _bundled_line_kinds().get(kind)
    if spec is None:
        return {"at", "size_mm", "rotation_deg", "name"}
    return set(spec.element_members)


def _bundled_line_kinds():
    rulesets = bundled_rulesets()
    return rulesets["line-classic"].kinds if "line-classic" in rulesets else {}


# ------------------------------------------------------------------------------------------
# fields: one editor widget bound to a document and the objects it edits
# ------------------------------------------------------------------------------------------
class Field:
    """One editable property in the inspector.

    ``widget`` is what the form shows; ``load()`` shows the model's value again (called after
    every change of the model, except while the designer is typing in this field, when
    ``editing`` is true). Subclasses push edits through :meth:`Inspector.push_properties`
    and :meth:`Inspector.push_sheet`.
    """

    editing = False

    def __init__(self, inspector: Inspector, label: str):
        self.inspector = inspector
        self.label = label
        self.widget: QWidget = QWidget()

    @property
    def document(self):
        return self.inspector.bound_document

    def load(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def push_from_own_signal(self, push: Callable[[], Any]) -> None:
        """Call ``push()`` from a slot of this field's own widget: ``editing`` stays true
        meanwhile so the model's change does not rebuild the widget inside its own signal
        (follow with :meth:`reload_soon`)."""
        self.editing = True
        try:
            push()
        finally:
            self.editing = False

    def reload_soon(self) -> None:
        """Show the model's value again once the current signal has returned (if the field is
        still shown then)."""
        QTimer.singleShot(0, self._reload)

    def _reload(self) -> None:
        if self.inspector.bound_document is not None and self in self.inspector.fields:
            self.load()


class ObjectField(Field):
    """A property of selected objects: ``attribute`` of each object in ``refs``."""

    def __init__(self, inspector: Inspector, label: str, refs: list[str], attribute: str):
        super().__init__(inspector, label)
        self.refs = list(refs)
        self.attribute = attribute

    def objects(self) -> list:
        return _objects_of(self.document.dungeon, self.refs)

    def values(self) -> list:
        return [getattr(o, self.attribute) for o in self.objects()]

    def push_values(self, value_for: Callable[[Any], Any], merge_key: str | None = None) -> bool:
        """Set ``value_for(object)`` on every object (skipping those already equal): one step."""
        changes = []
        for obj, ref in zip(self.objects(), self.refs):
            new = value_for(obj)
            if new != getattr(obj, self.attribute):
                changes.append((ref, self.attribute, new))
        if not changes:
            return False
        return self.inspector.push_properties(changes, f"Change {self.label.lower()}", merge_key)


class LineEditField(ObjectField):
    """A property of selected objects typed in one line edit (``edit``, object name
    ``inspect_<name>``, ``name`` defaulting to ``attribute``), applied when editing finishes.

    :meth:`load` shows the common value of :meth:`read` (numbers as :func:`_fmt` writes them),
    or nothing with the placeholder "mixed" when the objects differ. When editing finishes
    (Enter or leaving the field) with the text changed, a field emptied while it showed "mixed"
    leaves every object as it is; any other text, trimmed, goes to :meth:`commit`, which reads
    it with :meth:`parse` and sets it with :meth:`apply`, or refuses it with the ``ValueError``
    of :meth:`parse` as the message (the model is unchanged); the field then shows the model's
    value again.
    """

    def __init__(self, inspector, label, refs, attribute, name: str | None = None, max_length: int | None = None,
                 tooltip: str = ""):
        super().__init__(inspector, label, refs, attribute)
        self.edit = QLineEdit()
        self.edit.setObjectName(f"inspect_{name or attribute}")
        if max_length is not None:
            self.edit.setMaxLength(max_length)
        if tooltip:
            self.edit.setToolTip(tooltip)
        self.widget = self.edit
        self.edit.editingFinished.connect(self._finished)

    def read(self) -> list:
        """The value of each object, as the field shows it."""
        return self.values()

    def load(self) -> None:
        same, value = _common(self.read())
        # signals blocked: showing the model's value must not push it again (see LiveTextField)
        self.edit.blockSignals(True)
        self.edit.setText(_fmt(value) if same else "")
        self.edit.blockSignals(False)
        self.edit.setPlaceholderText("" if same else MIXED)
        self.edit.setModified(False)

    def _finished(self) -> None:
        if not self.edit.isModified() or self.inspector.bound_document is None:
            return
        self.edit.setModified(False)
        text = self.edit.text().strip()
        if not text and self.edit.placeholderText() == MIXED:
            self.load()
            return
        self.commit(text)

    def commit(self, text: str) -> None:
        """Apply the trimmed ``text`` the designer entered, or refuse it with a message."""
        try:
            value = self.parse(text)
        except ValueError as exc:
            self.inspector.refuse(str(exc))
        else:
            self.apply(value)
        self.load()

    def parse(self, text: str) -> Any:
        """The value ``text`` stands for; raises ``ValueError`` with a sentence saying why the
        model cannot take it."""
        return text

    def apply(self, value: Any) -> None:
        """Set ``value`` on every object (one undo step)."""
        self.push_values(lambda _obj: value)


class LiveTextField(LineEditField):
    """A text property applied as you type; one undo step per editing session.

    ``empty`` is what an empty field sets (``None`` removes an optional name); with
    ``empty=False`` an empty text is refused (a label's text, the title)."""

    def __init__(self, inspector, label, refs, attribute, max_length: int, empty: Any = None):
        super().__init__(inspector, label, refs, attribute, max_length=max_length)
        self.empty = empty
        self.session = next(_SESSIONS)
        # textChanged, not textEdited: the line edit's own undo (Ctrl+Z while typing) reaches
        # the model too; load() blocks signals so showing the model's value pushes nothing
        self.edit.textChanged.connect(self._typed)

    def write(self, value: Any, merge_key: str) -> None:
        self.push_values(lambda _obj: value, merge_key)

    def _typed(self, text: str) -> None:
        if not text and self.empty is False:
            return  # refused when editing finishes; the model keeps the last text
        self.editing = True
        value = text if text else self.empty
        try:
            self.write(value, f"inspect:{self.attribute}:{','.join(self.refs)}:{self.session}")
        except EditError as exc:
            self.inspector.refuse(str(exc))

    def _finished(self) -> None:
        # the text is in the model already: finishing closes the editing session (undo step)
        if self.editing and not self.edit.text() and self.empty is False:
            self.inspector.refuse(f"{self.label} cannot be empty")
        self.editing = False
        self.session = next(_SESSIONS)
        if self.inspector.bound_document is not None:
            self.load()


class NumberField(LineEditField):
    """A number property (mm, degrees, VP...) applied when editing finishes; ``component``
    0 or 1 edits x or y of a point property such as ``at``. Refused unless it is a number
    (whole where ``integer``) from ``low`` to ``high``; ``unit`` is named in the tooltip."""

    def __init__(self, inspector, label, refs, attribute, integer: bool, low: float, high: float,
                 component: int | None = None, unit: str = ""):
        super().__init__(inspector, label, refs, attribute,
                         name=attribute + ("" if component is None else "xy"[component]),
                         tooltip=f"{label} in {unit}" if unit else "")
        self.integer, self.low, self.high, self.component = integer, low, high, component

    def read(self) -> list:
        values = self.values()
        if self.component is not None:
            values = [None if v is None else v[self.component] for v in values]
        return values

    def parse(self, text: str) -> float | int:
        if not text:
            raise ValueError(f"{self.label}: enter a number")
        return parse_number(text, self.integer, self.low, self.high, self.label)

    def apply(self, value: float | int) -> None:
        if self.component is None:
            self.push_values(lambda _obj: value)
        else:
            def place(obj):
                point = list(getattr(obj, self.attribute))
                point[self.component] = value
                return (point[0], point[1])
            self.push_values(place)


class IdField(LineEditField):
    """The id of one object: applied when editing finishes, refused unless it follows the id
    pattern and no other object of the dungeon has it."""

    def __init__(self, inspector, refs):
        super().__init__(inspector, "Id", refs, "id", max_length=64)
        if len(refs) != 1:
            self.edit.setEnabled(False)
            self.edit.setToolTip("Ids are unique: select one object to change its id")

    def load(self) -> None:
        if len(self.refs) == 1:
            self.edit.setText(self.refs[0])
        else:
            self.edit.setPlaceholderText(f"{len(self.refs)} objects")
        self.edit.setModified(False)

    def commit(self, new: str) -> None:
        if len(self.refs) != 1 or new == self.refs[0]:
            return
        old = self.refs[0]
        if not ID_PATTERN.match(new):
            self.inspector.refuse(f"'{new}' is not a valid id: 1 to 64 letters, digits, '_', '.' or '-', "
                                  f"starting with a letter or digit")
        elif new in index_by_ref(self.document.dungeon):
            self.inspector.refuse(f"the id '{new}' is already used by another object of this dungeon")
        elif self.inspector.push_properties([(old, "id", new)], "Change id"):
            self.refs = [new]
            self.inspector.reselect([new])
            return
        self.load()


class ChannelField(LineEditField):
    """The channel pairing portal entries with exits (a letter or a colour): an id, applied
    when editing finishes."""

    def __init__(self, inspector, refs):
        super().__init__(inspector, "Channel", refs, "channel", max_length=64,
                         tooltip="The letter or colour that pairs portal entries with their exits")

    def parse(self, text: str) -> str:
        if not ID_PATTERN.match(text):
            raise ValueError(f"'{text}' is not a valid channel: a letter, colour or other id")
        return text


class ChoiceField(ObjectField):
    """A property chosen from a list (area kind, variant, colour, side...). ``options`` are
    ``(text, value)``; ``changes_for(obj, value)`` may return extra changes (a feature's letter
    follows its kind)."""

    def __init__(self, inspector, label, refs, attribute, options: list[tuple[str, Any]],
                 changes_for: Callable[[Any, str, Any], list] | None = None):
        super().__init__(inspector, label, refs, attribute)
        self.options = options
        self.changes_for = changes_for
        self.combo = QComboBox()
        self.combo.setObjectName(f"inspect_{attribute}")
        self.widget = self.combo
        self.combo.activated.connect(self._chosen)

    def load(self) -> None:
        same, value = _common(self.values())
        self.combo.blockSignals(True)
        self.combo.clear()
        if not same:
            self.combo.addItem(f"({MIXED})", NO_VALUE)
        for text, option in self.options:
            self.combo.addItem(text, option)
        if same:
            found = self.combo.findData(value) if value is not None else -1
            if found < 0:  # a value the ruleset does not list: show it, the problems panel says why
                self.combo.addItem(f"{value} (not in the ruleset)", value)
                found = self.combo.count() - 1
            self.combo.setCurrentIndex(found)
        else:
            self.combo.setCurrentIndex(0)
        self.combo.blockSignals(False)

    def _chosen(self, index: int) -> None:
        value = self.combo.itemData(index)
        if value == NO_VALUE or self.inspector.bound_document is None:
            return
        changes = []
        for obj, ref in zip(self.objects(), self.refs):
            if getattr(obj, self.attribute) != value:
                changes.append((ref, self.attribute, value))
            if self.changes_for is not None:
                changes += self.changes_for(obj, ref, value)
        if changes:
            self.inspector.push_properties(changes, f"Change {self.label.lower()}")
        self.load()


class LocksField(ObjectField):
    """The locks of doors: one checkable line per key colour and the skeleton lock; a lock some
    of the selected doors have and others not shows partly checked. A door keeps at least one
    lock and at most four (schemas/dungeon.schema.json)."""

    def __init__(self, inspector, refs, colours: list[str]):
        super().__init__(inspector, "Locks", refs, "locks")
        self.colours = list(colours) + [SKELETON_LOCK]
        self.list = QListWidget()
        self.list.setObjectName("inspect_locks")
        self.list.setMaximumHeight(22 * len(self.colours) + 6)
        self.widget = self.list
        self.list.itemChanged.connect(self._changed)

    def load(self) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        values = [v or [] for v in self.values()]
        for colour in self.colours + sorted({c for v in values for c in v} - set(self.colours)):
            item = QListWidgetItem(colour if colour != SKELETON_LOCK else "skeleton (any key)")
            item.setData(Qt.ItemDataRole.UserRole, colour)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            having = sum(colour in v for v in values)
            state = Qt.CheckState.Checked if values and having == len(values) else \
                Qt.CheckState.Unchecked if having == 0 else Qt.CheckState.PartiallyChecked
            item.setCheckState(state)
            self.list.addItem(item)
        self.list.blockSignals(False)

    def _changed(self, item: QListWidgetItem) -> None:
        colour = item.data(Qt.ItemDataRole.UserRole)
        on = item.checkState() != Qt.CheckState.Unchecked
        new_values = {}
        for obj, ref in zip(self.objects(), self.refs):
            locks = list(obj.locks or [])
            if on and colour not in locks:
                locks.append(colour)
            elif not on:
                locks = [c for c in locks if c != colour]
            if not locks:
                self.inspector.refuse(f"door '{ref}' needs at least one lock")
                self.reload_soon()
                return
            if len(locks) > 4:
                self.inspector.refuse(f"door '{ref}' can have at most four locks")
                self.reload_soon()
                return
            new_values[ref] = locks
        changes = [(ref, "locks", locks) for ref, locks in new_values.items()
                   if locks != index_by_ref(self.document.dungeon)[ref][2].locks]
        if changes:
            self.push_from_own_signal(lambda: self.inspector.push_properties(changes, "Change locks"))
        self.reload_soon()


class InfoField(Field):
    """A read-only line (kinds, vertex counts, cells)."""

    def __init__(self, inspector, label: str, text: Callable[[], str]):
        super().__init__(inspector, label)
        self.text = text
        self.widget = QLabel()
        self.widget.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.widget.setWordWrap(True)

    def load(self) -> None:
        self.widget.setText(self.text())


# ------------------------------------------------------------------------------------------
# sheet data
# ------------------------------------------------------------------------------------------
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
        self.session = next(_SESSIONS)
        if live:  # textChanged: the line edit's own undo reaches the model too (see LiveTextField)
            self.edit.textChanged.connect(self._typed)
        self.edit.editingFinished.connect(self._finished)

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
                self.inspector.refuse(f"'{text}' is not a valid dungeon id: 1 to 64 letters, digits, '_', '.' "
                                      f"or '-', starting with a letter or digit")
            else:
                self.inspector.push_sheet(self.member, text)
        self.editing = False
        self.session = next(_SESSIONS)
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
        buttons = QHBoxLayout()
        self.buttons = {}
        for key, text, tip in (("add", "Add", "Add a reminder"), ("remove", "Remove", "Remove the chosen reminder"),
                               ("up", "Up", "Move the chosen reminder up"),
                               ("down", "Down", "Move the chosen reminder down")):
            button = QPushButton(text)
            button.setObjectName(f"reminders_{key}")
            button.setToolTip(tip)
            buttons.addWidget(button)
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


# ------------------------------------------------------------------------------------------
# the dock
# ------------------------------------------------------------------------------------------
class Inspector(QWidget):
    """The Inspector dock's widget. ``fields`` are the fields shown now (by attribute or
    member name in ``fields_by_name``); ``message`` shows why input was refused."""

    def __init__(self, window):
        super().__init__()
        self.window = window
        self.bound_document = None
        self.bound_scene = None
        self.fields: list[Field] = []
        self.fields_by_name: dict[str, Field] = {}
        self._signature = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.header = QLabel()
        self.header.setObjectName("inspector_header")
        self.header.setWordWrap(True)
        font = self.header.font()
        font.setBold(True)
        self.header.setFont(font)
        layout.addWidget(self.header)
        self.message = QLabel()
        self.message.setObjectName("inspector_message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b71c1c;")
        self.message.hide()
        layout.addWidget(self.message)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        layout.addWidget(self.scroll, 1)
        self.form_widget = QWidget()
        self.scroll.setWidget(self.form_widget)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        window.current_changed.connect(self.bind)
        self.bind(window.current)

    # binding -----------------------------------------------------------------------------
    def bind(self, document) -> None:
        """Follow ``document`` (the window's current dungeon) and its scene's selection."""
        for source, signal_name, slot in ((self.bound_document, "changed", self._model_changed),
                                          (self.bound_scene, "selection_refs_changed", self._selection_changed)):
            if source is not None:
                try:
                    getattr(source, signal_name).disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        self.bound_document = document
        self.bound_scene = self.window.scene if document is not None else None
        if document is not None:
            document.changed.connect(self._model_changed)
        if self.bound_scene is not None:
            self.bound_scene.selection_refs_changed.connect(self._selection_changed)
        self._signature = None
        self.message.hide()
        self.refresh()

    def _model_changed(self, refs) -> None:
        self._follow_renamed(refs)
        self.refresh()

    def _follow_renamed(self, refs) -> None:
        """Keep showing objects whose id an edit (or its undo) changed: the canvas rebuilds
        their items under the new reference, which drops them from the selection."""
        shown = self._shown()
        if not shown or self.bound_scene is None or self.bound_scene.selected_refs():
            return
        index = index_by_ref(self.bound_document.dungeon)
        vanished = [r for r in shown if r not in index]
        appeared = [r for r in refs if r in index and r not in shown]
        if vanished and len(appeared) == len(vanished):
            self.bound_scene.select_refs([r for r in shown if r in index] + appeared)

    def _selection_changed(self, refs) -> None:
        if not refs and self._shown_vanished():
            return  # the model changed under the selection: _model_changed follows and decides
        self.message.hide()
        self.refresh()

    def _shown(self) -> tuple:
        return self._signature[2] if self._signature and self._signature[0] == "objects" else ()

    def _shown_vanished(self) -> bool:
        if self.bound_document is None:
            return False
        index = index_by_ref(self.bound_document.dungeon)
        return any(r not in index for r in self._shown())

    # edits -------------------------------------------------------------------------------
    def push_properties(self, changes: list, text: str, merge_key: str | None = None) -> bool:
        """Push one :class:`ChangeProperties` with ``changes``; ``False`` (and a message) if refused."""
        return self._push(lambda dungeon: ChangeProperties(dungeon, changes, text, merge_key))

    def push_sheet(self, member: str, value: Any, text: str | None = None, merge_key: str | None = None) -> bool:
        """Push one :class:`ChangeSheet` of ``member``; ``False`` (and a message) if refused."""
        return self._push(lambda dungeon: ChangeSheet(dungeon, member, value, text, merge_key))

    def _push(self, make_edit: Callable[[Any], Any]) -> bool:
        """Push ``make_edit(dungeon)`` on the bound document; ``False`` when there is none or the
        edit refuses (:class:`EditError`, said in the message line)."""
        document = self.bound_document
        if document is None:
            return False
        try:
            edit = make_edit(document.dungeon)
        except EditError as exc:
            self.refuse(str(exc))
            return False
        self.message.hide()
        document.push(edit)
        return True

    def refuse(self, text: str) -> None:
        """Say why input was refused (in the dock and the status bar); the model is unchanged."""
        sentence = text[:1].upper() + text[1:]
        self.message.setText(sentence)
        self.message.show()
        self.window.show_status(f"Not changed: {text}")

    def reselect(self, refs: list[str]) -> None:
        """Select ``refs`` on the canvas (after an id change the reference changes)."""
        if self.bound_scene is not None:
            self.bound_scene.select_refs(refs)

    # building ----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the fields for the current selection (rebuilt when the selection or its kinds
        changed), or bring the values shown in step with the model."""
        document = self.bound_document
        if document is None:
            self._rebuild(None, [], [])
            return
        refs = self.bound_scene.selected_refs() if self.bound_scene is not None else []
        index = index_by_ref(document.dungeon)
        refs = [r for r in refs if r in index]
        objects = [index[r][2] for r in refs]
        if objects:
            signature = ("objects", id(document), tuple(refs),
                         tuple((type(o).__name__, getattr(o, "kind", None)) for o in objects))
        else:
            signature = ("sheet", id(document), document.dungeon.family)
        if signature != self._signature:
            self._rebuild(document, refs, objects)
            self._signature = signature
        for field in self.fields:
            if not field.editing:
                field.load()
        self._update_header(document, objects)

    def _update_header(self, document, objects: list) -> None:
        if document is None:
            self.header.setText("No dungeon open")
        elif not objects:
            self.header.setText(f"Sheet of {document.dungeon.id}")
        elif len(objects) == 1:
            obj = objects[0]
            kind = _kind_of(obj)
            self.header.setText(f"{kind.replace('_', ' ')} \u2014 {getattr(obj, 'id', '') or 'passage'}")
        else:
            counts: dict[str, int] = {}
            for obj in objects:
                kind = _kind_of(obj).replace("_", " ")
                counts[kind] = counts.get(kind, 0) + 1
            self.header.setText(f"{len(objects)} objects: " + ", ".join(f"{n} {k}" for k, n in counts.items()))

    def _rebuild(self, document, refs: list[str], objects: list) -> None:
        old = self.scroll.takeWidget()
        if old is not None:
            old.hide()
            old.deleteLater()
        self.fields = []
        self.fields_by_name = {}
        self.form_widget = QWidget()
        self.form = QFormLayout(self.form_widget)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        if document is None:
            self.form.addRow(QLabel("Open a dungeon or a pack to see its properties."))
        elif objects:
            self._object_fields(document, refs, objects)
        else:
            self._sheet_fields(document)
        self.scroll.setWidget(self.form_widget)

    def _add(self, name: str, field: Field) -> Field:
        self.fields.append(field)
        self.fields_by_name[name] = field
        self.form.addRow(field.label, field.widget)
        return field

    def _object_fields(self, document, refs: list[str], objects: list) -> None:
        ruleset = document.ruleset
        classes = {type(o) for o in objects}
        if classes == {Passage}:
            cells = ", ".join(document.dungeon.grid.cell_label(p.cell) + " " + p.side for p in objects)
            self._add("passage", InfoField(self, "Passage", lambda: cells + " (toggle it with the edge tool)"))
            return
        if Passage in classes:
            refs = [r for r, o in zip(refs, objects) if not isinstance(o, Passage)]
            objects = [o for o in objects if not isinstance(o, Passage)]
            classes.discard(Passage)
            self._add("passages", InfoField(self, "Passages", lambda: "passages have no properties to edit"))
        self._add("id", IdField(self, refs))
        kinds = sorted({_kind_of(o) for o in objects})
        one_class = next(iter(classes)) if len(classes) == 1 else None

        if one_class is Area:
            self._add("kind", ChoiceField(self, "Kind", refs, "kind", [("room", "room"), ("corridor", "corridor")]))
        elif one_class in (Element, Feature) and not (one_class is Feature and ruleset is not None):
            self._add("kind", InfoField(self, "Kind", lambda: ", ".join(k.replace("_", " ") for k in kinds)))
        if one_class is Feature and ruleset is not None:
            self._feature_kind(ruleset, refs)
        if classes <= {Area, Element, Feature}:
            self._add("name", LiveTextField(self, "Name", refs, "name", 200, None))
        if one_class is Area:
            self._add("vertices", InfoField(self, "Vertices", lambda: self._count(refs, "polygon")))
        if one_class is Wall:
            self._add("points", InfoField(self, "Points", lambda: self._count(refs, "points")))
        if one_class is Element:
            self._element_fields(ruleset, refs, objects)
        if one_class in (Feature, Entryway):
            grid = document.dungeon.grid
            self._add("cell", InfoField(self, "Room", lambda: ", ".join(
                sorted({grid.cell_label(o.cell) for o in self._objects(refs)}))))
        if one_class is Feature and ruleset is not None:
            lettered = [ruleset.elements.get(o.kind, {}).get("letters") for o in objects]
            if all(lettered) and len(set(lettered)) == 1:
                self._add("letter", ChoiceField(self, "Letter", refs, "letter", [(c, c) for c in lettered[0]]))
        if one_class is Entryway:
            grid = document.dungeon.grid
            sides = [s for s in ("north", "east", "south", "west")
                     if all(grid.is_outer_edge(o.cell, s) for o in objects)]
            if sides:
                self._add("side", ChoiceField(self, "Side", refs, "side", [(s, s) for s in sides]))

    def _objects(self, refs: list[str]) -> list:
        return _objects_of(self.bound_document.dungeon, refs)

    def _count(self, refs: list[str], attribute: str) -> str:
        counts = sorted({len(getattr(o, attribute)) for o in self._objects(refs)})
        return " / ".join(str(c) for c in counts) + " (edit them on the canvas)"

    def _feature_kind(self, ruleset, refs: list[str]) -> None:
        def letter_for(obj, ref, kind):
            letters = ruleset.elements.get(kind, {}).get("letters")
            if letters and obj.letter not in letters:
                return [(ref, "letter", letters[0])]
            if not letters and obj.letter is not None:
                return [(ref, "letter", None)]
            return []
        options = [(k.replace("_", " "), k) for k in ruleset.elements]
        self._add("kind", ChoiceField(self, "Kind", refs, "kind", options, letter_for))

    def _element_fields(self, ruleset, refs: list[str], objects: list[Element]) -> None:
        members = set.intersection(*(element_members(o.kind, ruleset) for o in objects))
        kinds = {o.kind for o in objects}
        if "at" in members:
            self._add("at_x", NumberField(self, "At x", refs, "at", False, -10000, 10000, 0, "mm"))
            self._add("at_y", NumberField(self, "At y", refs, "at", False, -10000, 10000, 1, "mm"))
        if "size_mm" in members:
            self._add("size_mm", NumberField(self, "Size (mm)", refs, "size_mm", False, 0.1, 500, unit="mm"))
        if "rotation_deg" in members:
            self._add("rotation_deg", NumberField(self, "Rotation (\u00b0)", refs, "rotation_deg", False, -360, 360,
                                                  unit="degrees"))
        if "vp" in members:
            self._add("vp", NumberField(self, "VP", refs, "vp", True, -99, 99))
        if "variant" in members and ruleset is not None:
            options = [set(ruleset.element_values(k, "variants")) for k in kinds]
            common = [v for v in ruleset.element_values(sorted(kinds)[0], "variants") if all(v in o for o in options)]
            if common:
                self._add("variant", ChoiceField(self, "Variant", refs, "variant", [(v, v) for v in common]))
        if "number" in members:
            self._add("number", NumberField(self, "Number", refs, "number", True, 1, 999))
        if "colour" in members and ruleset is not None:
            per_kind = [ruleset.key_colours if (k in ruleset.kinds and ruleset.kinds[k].uses_key_colours)
                        else ruleset.element_values(k, "colours") for k in kinds]
            common = [c for c in per_kind[0] if all(c in p for p in per_kind)]
            if common:
                self._add("colour", ChoiceField(self, "Colour", refs, "colour", [(c, c) for c in common]))
        if "channel" in members:
            self._add("channel", ChannelField(self, refs))
        if "locks" in members:
            self._add("locks", LocksField(self, refs, ruleset.key_colours if ruleset is not None else []))
        if "text" in members:
            self._add("text", LiveTextField(self, "Text", refs, "text", 500, False))
        if "text_height_mm" in members:
            self._add("text_height_mm", NumberField(self, "Text height (mm)", refs, "text_height_mm", False, 0.1,
                                                    100, unit="mm"))

    def _sheet_fields(self, document) -> None:
        dungeon = document.dungeon
        ruleset = document.ruleset
        self._add("id", SheetTextField(self, "Dungeon id", "id", 64, live=False))
        self._add("title", SheetTextField(self, "Title", "title", 120, live=True))
        self._add("ruleset", InfoField(self, "Ruleset", lambda: dungeon.ruleset))
        self._add("reminders", RemindersField(self))
        if dungeon.family == "grid":
            self._add("grid", InfoField(self, "Grid", lambda: (
                f"{self.bound_document.dungeon.grid.columns} \u00d7 {self.bound_document.dungeon.grid.rows} rooms of "
                f"{_fmt(self.bound_document.dungeon.grid.cell_mm)} mm (Dungeon \u203a Resize Grid)")))
            return
        orb_colours = ruleset.element_values("orb", "colours") if ruleset is not None else []
        self._add("components", ComponentsField(self))
        self._add("end_triggers", EndTriggersField(self, orb_colours))
        bosses = [e.id for e in dungeon.elements if e.kind == "boss"]
        if bosses:
            self._add("boss_vp", NumberField(self, "Boss VP", bosses, "vp", True, -99, 99))
        else:
            self._add("boss_vp", InfoField(self, "Boss VP", lambda: "no boss on this sheet"))
        self._add("orb_tokens", OrbTokensField(self, orb_colours))


def install(window) -> Inspector:
    """Add the Inspector dock to ``window`` (kept as ``window.inspector``)."""
    inspector = Inspector(window)
    inspector.setObjectName("inspector")
    window.inspector = inspector
    window.add_dock(inspector, "Inspector", Qt.DockWidgetArea.RightDockWidgetArea, "inspector")
    return inspector
