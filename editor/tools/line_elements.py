"""Line-family placement tools: one tool per element kind of the ruleset.

:func:`placement_specs` reads the kind definitions of a line ruleset (:mod:`inkcrawl.kinds`)
into :class:`PlacementSpec` s (monster, boss, spell, treasure, artifact stone, plant, orb, key,
skeleton key, prisoner, portal entry and exit, escape portal, Start, exit, label in the bundled
rules; a designer's new kind gets a tool with no code). :class:`ElementTool` places one element
centred at the snapped point of a click: the mm grid, or the outer wall for Starts. Artifact
stones take the next free number; labels ask for their text through
:meth:`ElementTool.ask_text` (a seam tests replace).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QHBoxLayout, QInputDialog, QLabel, QSpinBox, QWidget

from editor.dungeon.edits import AddObjects, new_id
from editor.tools.catalogue import CanvasContext
from editor.tools.line_base import (
    PREVIEW_COLOUR,
    LineTool,
    cosmetic_pen,
    draw_cross,
    is_left,
    is_valid,
    qpoint,
)
from editor.tools.line_geometry import next_stone_number, rounded, tidy_number
from exporters import style
from inkcrawl.kinds import ElementKind as KindDefinition
from inkcrawl.model import Element, Point
from inkcrawl.rulesets import bundled_rulesets

#: The id pattern of the dungeon schema (portal channels are ids).
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Channel colours offered besides the letters A-Z (any id may be typed).
CHANNEL_COLOURS = ("red", "green", "blue", "yellow", "pink", "purple", "orange")


@dataclass(frozen=True)
class PlacementSpec:
    """What a placement tool makes, from the ruleset's kind definition (:mod:`inkcrawl.kinds`):
    ``kind`` (ruleset element name), ``name`` (tool name), ``key`` (shortcut), ``size_mm``
    (default footprint diameter, ``None`` for labels), ``prefix`` of new ids, ``tooltip``, and
    which option the tool offers (``vp``, ``variant``, ``colour``, ``key_colour``, ``channel``,
    ``number``, ``text``), ``on_wall`` for kinds placed on the outer wall (Starts)."""

    kind: str
    name: str
    key: str
    size_mm: float | None
    prefix: str
    tooltip: str
    option: str | None = None
    on_wall: bool = False


#: Letters the fixed line tools take (Select, Room, Corridor, Edit Vertices, Wall, Door).
_FIXED_KEYS = {"V", "R", "C", "E", "W", "D"}


def _option_of(spec: KindDefinition) -> str | None:
    if spec.footprint == "text":
        return "text"
    for member in ("vp", "variant", "number", "colour", "channel"):
        if member in spec.members:
            return "key_colour" if member == "colour" and spec.uses_key_colours else member
    return None


def _tooltip(spec: KindDefinition, option: str | None) -> str:
    what = spec.name.lower()
    rule = spec.description.rstrip(".")
    hint = {
        "vp": "; set its VP in Tool Options",
        "variant": "; its type in Tool Options",
        "colour": "; its colour in Tool Options",
        "key_colour": "; its colour in Tool Options",
        "channel": "; its letter or colour in Tool Options",
        "number": ", numbered automatically (renumber: Dungeon > Renumber Artifact Stones)",
        "text": ": click, then type its text",
    }.get(option or "", "")
    where = " on the outer wall of the dungeon (snaps onto walls)" if spec.on_wall else ""
    return f"Place a {what}{where}" + (f" ({rule[:1].lower()}{rule[1:]})" if rule and option != "text" else "") + hint


def placement_specs(ruleset) -> tuple[PlacementSpec, ...]:
    """One placement tool per element kind of a line ``ruleset`` (doors have the Door tool), in
    the ruleset's order, from its kind definitions: a designer's new kind gets a tool with no
    code. A kind without a shortcut (or with one already taken) gets the first free letter of
    its name."""
    used = set(_FIXED_KEYS)
    out = []
    for spec in ruleset.kinds.values():
        if spec.footprint == "segment":
            continue
        key = (
            spec.shortcut
            if spec.shortcut and spec.shortcut not in used
            else next((c.upper() for c in spec.name + spec.kind if c.isalpha() and c.upper() not in used), "")
        )
        used.add(key)
        option = _option_of(spec)
        out.append(
            PlacementSpec(
                spec.kind,
                spec.name,
                key,
                spec.size_mm if spec.footprint == "disc" else None,
                spec.id_prefix,
                _tooltip(spec, option),
                option,
                spec.on_wall,
            )
        )
    return tuple(out)


def _bundled_line_ruleset():
    return bundled_rulesets()["line-classic"]


#: The placement tools of the bundled line ruleset (a dungeon's own ruleset may add more).
ELEMENT_KINDS: tuple[PlacementSpec, ...] = placement_specs(_bundled_line_ruleset())


class ElementTool(LineTool):
    """Place one element of ``spec.kind`` centred at the snapped point of a click (one undo
    step). Its size and kind-specific value (boss VP, spell or treasure type, orb or key
    colour, portal channel) come from the Tool Options bar; artifact stones take the next
    free number. Elements snap to the mm grid; Starts snap onto walls."""

    def __init__(self, ctx: CanvasContext, spec: PlacementSpec):
        super().__init__(ctx)
        self.kind_spec = spec
        self.tool_id = spec.kind
        self._press = False
        self._hover: Point | None = None
        self._number_label: QLabel | None = None

    # option values ----------------------------------------------------------------------
    def _ruleset(self):
        return self.ctx.document.ruleset if self.ctx.document is not None else None

    def choices(self) -> list[str]:
        """The values the kind-specific option offers (variants, colours, channels)."""
        ruleset = self._ruleset()
        option = self.kind_spec.option
        if ruleset is None:
            return []
        if option == "variant":
            return ruleset.element_values(self.kind_spec.kind, "variants")
        if option == "colour":
            return ruleset.element_values(self.kind_spec.kind, "colours")
        if option == "key_colour":
            return ruleset.key_colours
        if option == "channel":
            return [chr(c) for c in range(ord("A"), ord("Z") + 1)] + list(CHANNEL_COLOURS)
        return []

    @property
    def size_mm(self) -> float:
        """Footprint diameter of the next element (mm)."""
        return float(self.options.get("size_mm", self.kind_spec.size_mm or 8))

    @property
    def value(self):
        """The kind-specific value of the next element (VP, variant, colour, channel, text height)."""
        if self.kind_spec.option == "vp":
            return int(self.options.get("vp", 5))
        if self.kind_spec.option == "text":
            ruleset = self._ruleset()
            minimum = ruleset.print_limits.get("min_text_mm", 0) if ruleset is not None else 0
            return float(self.options.get("text_height_mm", max(style.LABEL_MM, minimum)))
        choices = self.choices()
        default = choices[0] if choices else ""
        return self.options.get(self.kind_spec.option, default)

    def set_value(self, value) -> None:
        """Choose the kind-specific value of the next elements."""
        key = "text_height_mm" if self.kind_spec.option == "text" else self.kind_spec.option
        self.options[key] = value

    def ask_text(self, view) -> str | None:
        """Ask for a label's text; ``None`` when cancelled. Tests replace this seam."""
        text, ok = QInputDialog.getText(view, "Label", "Text of the label:")
        return text if ok else None

    # placing ----------------------------------------------------------------------------
    def point_for(self, pos: QPointF, modifiers) -> Point:
        """Where an element pressed at ``pos`` goes: on the grid, or on a wall for a Start."""
        if self.kind_spec.on_wall:
            return self.snap(pos, modifiers, to_walls=True)
        return self.snap_to_grid(pos, modifiers)

    def make(self, at: Point, view=None) -> Element | None:
        """The element to place at ``at``, or ``None`` (with a message) when it cannot be made."""
        spec = self.kind_spec
        ruleset = self._ruleset()
        if spec.kind not in ruleset.elements:
            self.ctx.status(f"The ruleset '{ruleset.id}' has no {spec.name.lower()}")
            return None
        dungeon = self.ctx.dungeon
        element = Element(new_id(dungeon, spec.prefix), spec.kind, at=rounded(at), rotation_deg=0)
        if spec.option == "text":
            text = self.ask_text(view)
            text = (text or "").strip()
            if not text:
                self.ctx.status("No label made: it needs some text")
                return None
            element.text = text[:500]
            element.text_height_mm = tidy_number(self.value)
            return element
        element.size_mm = tidy_number(self.size_mm)
        option = spec.option
        if option == "vp":
            element.vp = int(self.value)
        elif option == "number":
            element.number = next_stone_number(dungeon)
        elif option in ("variant", "colour", "key_colour", "channel"):
            value = str(self.value).strip()
            if option == "channel":
                if not _ID_PATTERN.match(value):
                    self.ctx.status("No portal made: its channel is a letter A-Z or a colour name")
                    return None
                element.channel = value
            else:
                if value not in self.choices():
                    self.ctx.status(f"No {spec.name.lower()} made: choose its {_OPTION_NAMES[option]} in Tool Options")
                    return None
                if option == "variant":
                    element.variant = value
                else:
                    element.colour = value
        return element

    def place(self, at: Point, view=None) -> bool:
        """Place an element at ``at`` (mm): one undo step."""
        element = self.make(at, view)
        if element is None:
            return False
        if not self.ctx.push(AddObjects([("elements", None, element)], f"Add {self.kind_spec.name.lower()}")):
            return False
        what = f" {element.number}" if element.number is not None else ""
        self.ctx.status(f"Added {self.kind_spec.name.lower()}{what} '{element.id}'")
        self._update_number_label()
        return True

    # events -----------------------------------------------------------------------------
    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if not is_left(event) or not self.ready():
            return False
        self._press = True
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        if self.ctx.dungeon is None or self.ctx.dungeon.family != "line":
            return False
        self._hover = self.point_for(pos, event.modifiers())
        self.update_view()
        return self._press

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if not is_left(event) or not self._press:
            return False
        self._press = False
        self.place(self.point_for(pos, event.modifiers()), view)
        return True

    def cancel(self) -> None:
        self._press = False
        self.update_view()

    def pointer_left(self, view) -> None:
        self._hover = None
        self.update_view()

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self._hover is None:
            return
        painter.save()
        if self.kind_spec.size_mm is not None:
            painter.setPen(cosmetic_pen(PREVIEW_COLOUR, 1, dash=True))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            r = self.size_mm / 2
            painter.drawEllipse(qpoint(self._hover), r, r)
        draw_cross(view, painter, self._hover)
        painter.restore()

    # options bar ------------------------------------------------------------------------
    def options_widget(self):
        widget = QWidget()
        layout = QHBoxLayout(widget)
        layout.setContentsMargins(4, 0, 4, 0)
        ruleset = self._ruleset()
        minimum = ruleset.print_limits.get("min_element_mm", 0.5) if ruleset is not None else 0.5
        option = self.kind_spec.option
        if option != "text":
            layout.addWidget(QLabel("Size:"))
            size = QDoubleSpinBox()
            size.setObjectName("size_mm")
            size.setRange(max(minimum, 0.5), 100.0)
            size.setDecimals(1)
            size.setSingleStep(0.5)
            size.setSuffix(" mm")
            size.setValue(self.size_mm)
            size.setToolTip(f"Diameter of the {self.kind_spec.name.lower()} (at least {minimum:g} mm to print)")
            size.valueChanged.connect(lambda v: self.options.__setitem__("size_mm", v))
            layout.addWidget(size)
        if option == "vp":
            layout.addWidget(QLabel("VP:"))
            vp = QSpinBox()
            vp.setObjectName("vp")
            vp.setRange(0, 99)
            vp.setValue(int(self.value))
            vp.setToolTip("Victory points printed on the sheet for covering this boss")
            vp.valueChanged.connect(self.set_value)
            layout.addWidget(vp)
        elif option in ("variant", "colour", "key_colour", "channel"):
            layout.addWidget(QLabel(_OPTION_NAMES[option].capitalize() + ":"))
            combo = QComboBox()
            combo.setObjectName(option)
            combo.addItems(self.choices())
            if option == "channel":
                combo.setEditable(True)
                combo.setToolTip("Portal entries and exits of the same letter or colour are linked")
                combo.setEditText(str(self.value))
                combo.currentTextChanged.connect(self.set_value)
            else:
                combo.setCurrentText(str(self.value))
                combo.currentTextChanged.connect(self.set_value)
            layout.addWidget(combo)
        elif option == "number":
            self._number_label = QLabel()
            self._number_label.setObjectName("next_number")
            self._update_number_label()
            layout.addWidget(self._number_label)
        elif option == "text":
            layout.addWidget(QLabel("Text height:"))
            height = QDoubleSpinBox()
            height.setObjectName("text_height_mm")
            text_minimum = ruleset.print_limits.get("min_text_mm", 0.5) if ruleset is not None else 0.5
            height.setRange(max(text_minimum, 0.5), 50.0)
            height.setDecimals(1)
            height.setSingleStep(0.5)
            height.setSuffix(" mm")
            height.setValue(float(self.value))
            height.setToolTip(f"Cap height of the label's text (at least {text_minimum:g} mm to print)")
            height.valueChanged.connect(self.set_value)
            layout.addWidget(height)
        return widget

    def _update_number_label(self) -> None:
        label = self._number_label
        if label is None or not is_valid(label) or self.ctx.dungeon is None:
            return
        label.setText(
            f"Next number: {next_stone_number(self.ctx.dungeon)} "
            "(Dungeon > Renumber Artifact Stones numbers them in reading order)"
        )


_OPTION_NAMES = {"variant": "type", "colour": "colour", "key_colour": "colour", "channel": "channel"}
