"""The Inspector dock: the properties of the selection, or the dungeon's sheet data.

With objects selected on the canvas, the inspector shows the properties that apply to every
one of them (the kinds of the selection decide: a boss has VP, a door its locks, a label its
text...). A property shared by several objects shows their common value, or stays blank with
the placeholder "mixed" when they differ; editing it sets the value on all of them in one
undo step (:class:`editor.dungeon.edits.ChangeProperties` with one change per object).

With nothing selected it shows the sheet data of the dungeon (:class:`editor.dungeon.edits.ChangeSheet`):
title, reminders, and for the line family the components, the Scrawl End triggers, the
boss's VP and the orb token values (RULES.md 2, Gaps: the triggers a sheet may list).

Typing in a text field changes the model as you type, and the whole run of typing in one
field is one undo step (a merge key per editing session, closed when editing finishes);
number, id and list fields apply when editing finishes (Enter or leaving the field). Input
the model cannot take (text in a number, a duplicate id, a value out of the schema's range)
is refused with a message and the field shows the model's value again; the model is unchanged.
The inspector follows the selection, the current dungeon and every change of the model,
including undo and redo.

The fields are in :mod:`editor.panels.inspector_fields` (the base :class:`Field` and the fields of
selected objects) and :mod:`editor.panels.inspector_sheet` (the sheet data); this module holds the
dock itself: following the window, building the form for the selection, pushing the edits.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from editor.dungeon.edits import ChangeProperties, ChangeSheet, EditError, objects_for
from editor.panels.inspector_fields import (
    ChannelField,
    ChoiceField,
    Field,
    IdField,
    InfoField,
    LiveTextField,
    LocksField,
    NumberField,
    format_value,
    objects_of,
)
from editor.panels.inspector_sheet import (
    ComponentsField,
    EndTriggersField,
    OrbTokensField,
    RemindersField,
    SheetTextField,
)
from inkcrawl.model import Area, Element, Entryway, Feature, Passage, Wall
from inkcrawl.rulesets import bundled_rulesets


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


def _same_sheet(key: tuple, other: tuple) -> bool:
    """Whether two sheet forms' keys ``(signature, document, model, ruleset)`` name the same
    form: equal signatures, and the very same document, model and ruleset objects."""
    return key[0] == other[0] and all(a is b for a, b in zip(key[1:], other[1:]))


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
        self._looked_up: tuple = (None, -1, (), [])  # (document ref, revision, refs, objects)
        # the sheet's form while objects are shown: (key, widget, form, fields, fields_by_name)
        self._spare_sheet: tuple | None = None
        self._sheet_key: tuple | None = None  # what the sheet form shown was built for
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
        for source, signal_name, slot in (
            (self.bound_document, "changed", self._model_changed),
            (self.bound_scene, "selection_refs_changed", self._selection_changed),
        ):
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
        self._drop_spare_sheet()
        self.message.hide()
        self.refresh()

    def _model_changed(self, refs) -> None:
        if self._shown():
            self._follow_renamed(refs)
        self.refresh()

    def _follow_renamed(self, refs) -> None:
        """Keep showing objects whose id an edit (or its undo) changed: the canvas rebuilds
        their items under the new reference, which drops them from the selection."""
        shown = self._shown()
        if not shown or self.bound_scene is None or set(refs) <= set(shown) or self.bound_scene.selected_refs():
            return  # (an edit of the objects shown alone, such as deleting them, renamed nothing)
        # found by reference without indexing every object (a 100 x 100 grid has 10,000 passages)
        index, _ = objects_for(self.bound_document.dungeon, [*shown, *refs])
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
        shown = self._shown()
        if not shown:
            return False
        index, _ = self.bound_document.locate(shown)  # as the canvas asked after the same edit
        return any(r not in index for r in shown)

    def objects_of(self, refs: list[str]) -> list:
        """The objects of the bound document that ``refs`` name, in order (refs of no object
        skipped). Every field reads them on each refresh: they are looked up once per model
        revision (one pass over the dungeon, not one per field)."""
        document = self.bound_document
        if document is None:
            return []
        owner, revision, looked_up, found = self._looked_up
        if owner is None or owner() is not document or revision != document.revision or looked_up != tuple(refs):
            found = objects_of(document.dungeon, refs)
            self._looked_up = (weakref.ref(document), document.revision, tuple(refs), found)
        return list(found)

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
        # looked up by reference: indexing every object at each keystroke lagged on big dungeons
        index = document.locate(refs)[0]
        refs = [r for r in refs if r in index]
        objects = [index[r][2] for r in refs]
        if objects:
            signature = (
                "objects",
                id(document),
                tuple(refs),
                tuple((type(o).__name__, getattr(o, "kind", None)) for o in objects),
            )
        else:
            # the sheet's fields depend on its bosses (Boss VP) as well as the family
            bosses = tuple(e.id for e in getattr(document.dungeon, "elements", []) if e.kind == "boss")
            signature = ("sheet", id(document), document.dungeon.family, bosses)
        if signature != self._signature:
            key = (signature, document, document.dungeon, document.ruleset)
            if not objects and self._spare_sheet is not None and _same_sheet(self._spare_sheet[0], key):
                self._show_spare_sheet()
            else:
                self._rebuild(document, refs, objects, key if not objects else None)
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

    def _take_form(self) -> None:
        """Take the form shown out of the dock: the sheet's is kept as the spare (a designer
        goes back to it whenever the selection empties: deleting objects of a big dungeon
        spent a third of its time building it again), any other is deleted."""
        old = self.scroll.takeWidget()
        if old is None:
            return
        old.hide()
        key = self._sheet_key
        if key is not None and old is self.form_widget and key[1] is self.bound_document:
            self._drop_spare_sheet()
            old.setParent(self)  # kept hidden in the dock (never a window of its own), and goes with it
            old.hide()
            self._spare_sheet = (key, old, self.form, self.fields, self.fields_by_name)
        else:
            old.deleteLater()

    def _drop_spare_sheet(self) -> None:
        if self._spare_sheet is not None:
            self._spare_sheet[1].deleteLater()
            self._spare_sheet = None

    def _show_spare_sheet(self) -> None:
        """Show the spare sheet form again (the same document, model, ruleset, family and bosses
        it was built for); the refresh that follows loads the model's values into it."""
        key, widget, form, fields, fields_by_name = self._spare_sheet
        self._spare_sheet = None
        self._take_form()
        self.form_widget, self.form, self.fields, self.fields_by_name = widget, form, fields, fields_by_name
        self._sheet_key = key
        self.scroll.setWidget(widget)
        widget.show()

    def _rebuild(self, document, refs: list[str], objects: list, sheet_key: tuple | None = None) -> None:
        """Build the form for ``objects`` of ``document`` (the sheet's with none; ``sheet_key``
        names that sheet form, which may be kept as the spare) in place of the one shown."""
        self._take_form()
        self._sheet_key = sheet_key
        self.fields = []
        self.fields_by_name = {}
        self.form_widget = QWidget()
        self.form = QFormLayout(self.form_widget)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # a label goes above its field when both do not fit side by side (a narrow dock)
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
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
            self._add(
                "cell",
                InfoField(
                    self, "Room", lambda: ", ".join(sorted({grid.cell_label(o.cell) for o in self._objects(refs)}))
                ),
            )
        if one_class is Feature and ruleset is not None:
            lettered = [ruleset.elements.get(o.kind, {}).get("letters") for o in objects]
            if all(lettered) and len(set(lettered)) == 1:
                self._add("letter", ChoiceField(self, "Letter", refs, "letter", [(c, c) for c in lettered[0]]))
        if one_class is Entryway:
            grid = document.dungeon.grid
            sides = [
                s for s in ("north", "east", "south", "west") if all(grid.is_outer_edge(o.cell, s) for o in objects)
            ]
            if sides:
                self._add("side", ChoiceField(self, "Side", refs, "side", [(s, s) for s in sides]))

    def _objects(self, refs: list[str]) -> list:
        return objects_of(self.bound_document.dungeon, refs)

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
            self._add(
                "rotation_deg",
                NumberField(self, "Rotation (\u00b0)", refs, "rotation_deg", False, -360, 360, unit="degrees"),
            )
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
            per_kind = [
                ruleset.key_colours
                if (k in ruleset.kinds and ruleset.kinds[k].uses_key_colours)
                else ruleset.element_values(k, "colours")
                for k in kinds
            ]
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
            self._add(
                "text_height_mm",
                NumberField(self, "Text height (mm)", refs, "text_height_mm", False, 0.1, 100, unit="mm"),
            )

    def _sheet_fields(self, document) -> None:
        dungeon = document.dungeon
        ruleset = document.ruleset
        self._add("id", SheetTextField(self, "Dungeon id", "id", 64, live=False))
        self._add("title", SheetTextField(self, "Title", "title", 120, live=True))
        self._add("ruleset", InfoField(self, "Ruleset", lambda: dungeon.ruleset))
        self._add("reminders", RemindersField(self))
        if dungeon.family == "grid":
            self._add(
                "grid",
                InfoField(
                    self,
                    "Grid",
                    lambda: (
                        f"{self.bound_document.dungeon.grid.columns} \u00d7 "
                        f"{self.bound_document.dungeon.grid.rows} rooms of "
                        f"{format_value(self.bound_document.dungeon.grid.cell_mm)} mm (Dungeon \u203a Resize Grid)"
                    ),
                ),
            )
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
    """Add the Inspector dock to ``window``; the window keeps it as ``window.inspector``."""
    inspector = Inspector(window)
    inspector.setObjectName("inspector")
    window.add_dock(inspector, "Inspector", Qt.DockWidgetArea.RightDockWidgetArea, "inspector")
    return inspector
