"""The Inspector's fields: one editor widget bound to the document and the objects it edits.

:class:`Field` is the base of every row of the Inspector's form (:mod:`editor.panels.inspector`): it
shows the model's value (``load()``) and pushes the designer's input as one edit through the
inspector. This module holds the fields of selected objects (a property shared by the
selection: text, numbers, ids, channels, choices, door locks, read-only lines) and the helpers
they share (reading numbers, showing values, the "mixed" placeholder); the fields of the sheet
data are in :mod:`editor.panels.inspector_sheet`.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QListWidget, QListWidgetItem, QWidget

from editor.dungeon.edits import EditError, index_by_ref, locate, objects, objects_for, ref_of
from inkcrawl.model import SKELETON_LOCK, Passage

if TYPE_CHECKING:
    from editor.panels.inspector import Inspector

#: The pattern of every id (schemas: ``$defs/id``).
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Shown in a field whose objects hold different values.
MIXED = "mixed"
#: Item data of combo entries that stand for no value. Never store ``None`` as item data:
#: PySide6 6.12 drops a reference to ``None`` each time such data is read back, which
#: crashes the interpreter after a while.
NO_VALUE = ""
#: Numbers the typing sessions of live text fields: one session is one undo step (its merge key).
EDIT_SESSIONS = itertools.count(1)


def format_value(value: Any) -> str:
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
        raise ValueError(
            f"{what} must lie between {format_value(low)} and {format_value(high)}; {format_value(number)} does not"
        )
    return number


def _common(values: list) -> tuple[bool, Any]:
    """``(True, value)`` when every value is equal, else ``(False, None)``."""
    if not values:
        return False, None
    first = values[0]
    same = all(v == first for v in values[1:])
    return same, first if same else None


def objects_of(dungeon, refs: list[str]) -> list:
    """The objects of ``dungeon`` that ``refs`` name, in order (refs of no object skipped)."""
    index = locate(dungeon, refs)[0]  # only these looked up: every field reads them at each key
    return [index[r][2] for r in refs if r in index]


# ------------------------------------------------------------------------------------------
# fields: one editor widget bound to a document and the objects it edits
# ------------------------------------------------------------------------------------------
class _EscapeFilter(QObject):
    def __init__(self, on_escape: Callable[[], None], parent: QObject):
        super().__init__(parent)
        self.on_escape = on_escape

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape:
            self.on_escape()
            return True
        return False


def revert_on_escape(edit: QLineEdit, revert: Callable[[], None]) -> None:
    """Escape in ``edit`` calls ``revert`` (the field shows the value it had before typing)."""
    edit.installEventFilter(_EscapeFilter(revert, edit))


def undo_session(document, merge_key: str) -> bool:
    """Undo the last command of ``document`` when it is the typing session ``merge_key`` (a
    field applied as you type): Escape puts the value back as it was before the typing."""
    stack = document.undo_stack
    index = stack.index()
    if index > 0:
        command = stack.command(index - 1)
        if getattr(getattr(command, "edit", None), "merge_key", None) == merge_key:
            stack.undo()
            return True
    return False


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
        return self.inspector.objects_of(self.refs)

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

    :meth:`load` shows the common value of :meth:`read` (numbers as :func:`format_value` writes
    them), or nothing with the placeholder "mixed" when the objects differ. When editing finishes
    (Enter or leaving the field) with the text changed, a field emptied while it showed "mixed"
    leaves every object as it is; any other text, trimmed, goes to :meth:`commit`, which reads
    it with :meth:`parse` and sets it with :meth:`apply`, or refuses it with the ``ValueError``
    of :meth:`parse` as the message (the model is unchanged); the field then shows the model's
    value again.
    """

    def __init__(
        self,
        inspector,
        label,
        refs,
        attribute,
        name: str | None = None,
        max_length: int | None = None,
        tooltip: str = "",
    ):
        super().__init__(inspector, label, refs, attribute)
        self.edit = QLineEdit()
        self.edit.setObjectName(f"inspect_{name or attribute}")
        if max_length is not None:
            self.edit.setMaxLength(max_length)
        if tooltip:
            self.edit.setToolTip(tooltip)
        self.widget = self.edit
        self.edit.editingFinished.connect(self._finished)
        revert_on_escape(self.edit, self.revert)

    def revert(self) -> None:
        """Escape: forget what was typed and show the model's value."""
        self.edit.setModified(False)
        if self.inspector.bound_document is not None:
            self.load()

    def read(self) -> list:
        """The value of each object, as the field shows it."""
        return self.values()

    def load(self) -> None:
        same, value = _common(self.read())
        # signals blocked: showing the model's value must not push it again (see LiveTextField)
        self.edit.blockSignals(True)
        self.edit.setText(format_value(value) if same else "")
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
        self.session = next(EDIT_SESSIONS)
        # textChanged, not textEdited: the line edit's own undo (Ctrl+Z while typing) reaches
        # the model too; load() blocks signals so showing the model's value pushes nothing
        self.edit.textChanged.connect(self._typed)

    def write(self, value: Any, merge_key: str) -> None:
        self.push_values(lambda _obj: value, merge_key)

    def _session_key(self) -> str:
        return f"inspect:{self.attribute}:{','.join(self.refs)}:{self.session}"

    def revert(self) -> None:
        """Escape: undo what this typing session put in the model (one step), then show it."""
        document = self.inspector.bound_document
        if self.editing and document is not None:
            undo_session(document, self._session_key())
        self.editing = False
        self.session = next(EDIT_SESSIONS)
        super().revert()

    def _typed(self, text: str) -> None:
        if not text and self.empty is False:
            return  # refused when editing finishes; the model keeps the last text
        self.editing = True
        value = text if text else self.empty
        try:
            self.write(value, self._session_key())
        except EditError as exc:
            self.inspector.refuse(str(exc))

    def _finished(self) -> None:
        # the text is in the model already: finishing closes the editing session (undo step)
        if self.editing and not self.edit.text() and self.empty is False:
            self.inspector.refuse(f"{self.label} cannot be empty")
        self.editing = False
        self.session = next(EDIT_SESSIONS)
        if self.inspector.bound_document is not None:
            self.load()


class NumberField(LineEditField):
    """A number property (mm, degrees, VP...) applied when editing finishes; ``component``
    0 or 1 edits x or y of a point property such as ``at``. Refused unless it is a number
    (whole where ``integer``) from ``low`` to ``high``; ``unit`` is named in the tooltip."""

    def __init__(
        self,
        inspector,
        label,
        refs,
        attribute,
        integer: bool,
        low: float,
        high: float,
        component: int | None = None,
        unit: str = "",
    ):
        super().__init__(
            inspector,
            label,
            refs,
            attribute,
            name=attribute + ("" if component is None else "xy"[component]),
            tooltip=f"{label} in {unit}" if unit else "",
        )
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

    def _object(self):
        """The one object shown, or ``None``."""
        if len(self.refs) != 1:
            return None
        found, _ = objects_for(self.document.dungeon, self.refs)
        return found.get(self.refs[0])

    def load(self) -> None:
        obj = self._object()
        if obj is not None:
            # its id, which is its reference unless another object shares it (then the
            # reference is an editor key, see editor.dungeon.edits.key_shared_ids)
            self.edit.setText(obj.id)
        else:
            self.edit.setPlaceholderText(f"{len(self.refs)} objects")
        self.edit.setModified(False)

    def commit(self, new: str) -> None:
        obj = self._object()
        if obj is None or new == obj.id:
            return
        ref = self.refs[0]
        used = {o.id for _, _, o in objects(self.document.dungeon) if not isinstance(o, Passage)}
        if not ID_PATTERN.match(new):
            self.inspector.refuse(
                f"'{new}' is not a valid id: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"
            )
        elif new in used or new in index_by_ref(self.document.dungeon):
            self.inspector.refuse(f"the id '{new}' is already used by another object of this dungeon")
        elif self.inspector.push_properties([(ref, "id", new)], "Change id"):
            self.refs = [ref_of(obj)]  # the new id, or the same editor key
            self.inspector.reselect(self.refs)
            return
        self.load()


class ChannelField(LineEditField):
    """The channel pairing portal entries with exits (a letter or a colour): an id, applied
    when editing finishes."""

    def __init__(self, inspector, refs):
        super().__init__(
            inspector,
            "Channel",
            refs,
            "channel",
            max_length=64,
            tooltip="The letter or colour that pairs portal entries with their exits",
        )

    def parse(self, text: str) -> str:
        if not ID_PATTERN.match(text):
            raise ValueError(f"'{text}' is not a valid channel: a letter, colour or other id")
        return text


class ChoiceField(ObjectField):
    """A property chosen from a list (area kind, variant, colour, side...). ``options`` are
    ``(text, value)``; ``changes_for(obj, value)`` may return extra changes (a feature's letter
    follows its kind)."""

    def __init__(
        self,
        inspector,
        label,
        refs,
        attribute,
        options: list[tuple[str, Any]],
        changes_for: Callable[[Any, str, Any], list] | None = None,
    ):
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
            state = (
                Qt.CheckState.Checked
                if values and having == len(values)
                else Qt.CheckState.Unchecked
                if having == 0
                else Qt.CheckState.PartiallyChecked
            )
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
        found = locate(self.document.dungeon, new_values)[0]
        changes = [(ref, "locks", locks) for ref, locks in new_values.items() if locks != found[ref][2].locks]
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
