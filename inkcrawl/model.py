"""The dungeon model shared by both families (DESIGN.md "Model").

Sheet coordinates are millimetres, origin at the top-left of the paper, y down. A grid
dungeon addresses rooms by ``(column, row)`` cells counted from 0 at the top-left, and edges
by a cell and a side. Every object has a stable ``id`` unique in its dungeon (grid passages
are addressed by their edge instead). References are by id or by named value (a key colour,
a portal channel), never by list position.

``from_dict`` expects data that passed the JSON Schema (``schemas/dungeon.schema.json``);
``to_dict`` writes every member in the canonical order with defaults written explicitly, so
:func:`inkcrawl.jsonio.dumps_canonical` of it is byte-stable. Each object remembers the JSON
pointer it was loaded from (``pointer``), so problems can point at it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Point = tuple[float, float]
Cell = tuple[int, int]

#: Sides of a grid room and the cell offset (dcol, drow) across each.
SIDE_OFFSETS: dict[str, Cell] = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
#: The side seen from the neighbouring room.
OPPOSITE_SIDE = {"north": "south", "south": "north", "east": "west", "west": "east"}

#: The lock value that any key opens (RULES.md 2, skeleton-key doors).
SKELETON_LOCK = "skeleton"

# Optional members of a line element, in canonical order.
_ELEMENT_OPTIONAL = (
    "name",
    "at",
    "size_mm",
    "rotation_deg",
    "vp",
    "variant",
    "number",
    "colour",
    "channel",
    "segment",
    "locks",
    "text",
    "text_height_mm",
)


def _point(value: Any) -> Point:
    return (value[0], value[1])


def _cell(value: Any) -> Cell:
    return (value[0], value[1])


def _points(values: Any) -> list[Point]:
    return [_point(v) for v in values]


@dataclass
class Paper:
    """Paper size and margin of the printed sheet, in millimetres."""

    width_mm: float = 210
    height_mm: float = 297
    margin_mm: float = 10

    @classmethod
    def from_dict(cls, data: dict) -> Paper:
        """Build from schema-valid JSON data."""
        return cls(data["width_mm"], data["height_mm"], data["margin_mm"])

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        return {"width_mm": self.width_mm, "height_mm": self.height_mm, "margin_mm": self.margin_mm}

    @property
    def printable(self) -> tuple[float, float, float, float]:
        """The printable rectangle ``(x0, y0, x1, y1)`` in mm: the paper minus the margin."""
        m = self.margin_mm
        return (m, m, self.width_mm - m, self.height_mm - m)


@dataclass
class EndTrigger:
    """A Scrawl End trigger of a line sheet (RULES.md 2, Gaps: the triggers a sheet may list).

    ``kind`` is ``boss_covered``, ``timer`` (with ``seconds``), ``escape_portal``,
    ``orb_taken`` (with ``colour`` and ``when``: ``first`` or ``last`` token) or ``exit_reached``.
    """

    kind: str
    seconds: int | None = None
    colour: str | None = None
    when: str | None = None
    pointer: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "") -> EndTrigger:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        return cls(data["kind"], data.get("seconds"), data.get("colour"), data.get("when"), pointer)

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        out: dict[str, Any] = {"kind": self.kind}
        for key in ("seconds", "colour", "when"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass
class Sheet:
    """What the printed sheet shows besides the dungeon: title, paper, reminders and, for the
    line family, components needed, end triggers and orb token values (VP per colour, from
    the first token taken to the last)."""

    title: str
    paper: Paper = field(default_factory=Paper)
    reminders: list[str] = field(default_factory=list)
    components: list[str] | None = None
    end_triggers: list[EndTrigger] | None = None
    orb_tokens: dict[str, list[int]] | None = None

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "/sheet") -> Sheet:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        triggers = data.get("end_triggers")
        return cls(
            title=data["title"],
            paper=Paper.from_dict(data["paper"]),
            reminders=list(data.get("reminders", [])),
            components=list(data["components"]) if "components" in data else None,
            end_triggers=None
            if triggers is None
            else [EndTrigger.from_dict(t, f"{pointer}/end_triggers/{i}") for i, t in enumerate(triggers)],
            orb_tokens=None if "orb_tokens" not in data else {k: list(v) for k, v in data["orb_tokens"].items()},
        )

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        out: dict[str, Any] = {"title": self.title, "paper": self.paper.to_dict(), "reminders": list(self.reminders)}
        if self.components is not None:
            out["components"] = list(self.components)
        if self.end_triggers is not None:
            out["end_triggers"] = [t.to_dict() for t in self.end_triggers]
        if self.orb_tokens is not None:
            out["orb_tokens"] = {k: list(v) for k, v in self.orb_tokens.items()}
        return out


@dataclass
class GridSpec:
    """The grid of a grid dungeon: size, room side ``cell_mm``, top-left ``origin_mm`` on the
    sheet, and the axis label styles (``letters`` or ``numbers``)."""

    columns: int = 7
    rows: int = 7
    cell_mm: float = 24
    origin_mm: Point = (21, 40)
    column_labels: str = "letters"
    row_labels: str = "numbers"

    @classmethod
    def from_dict(cls, data: dict) -> GridSpec:
        """Build from schema-valid JSON data."""
        return cls(
            data["columns"],
            data["rows"],
            data["cell_mm"],
            _point(data["origin_mm"]),
            data["column_labels"],
            data["row_labels"],
        )

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        return {
            "columns": self.columns,
            "rows": self.rows,
            "cell_mm": self.cell_mm,
            "origin_mm": list(self.origin_mm),
            "column_labels": self.column_labels,
            "row_labels": self.row_labels,
        }

    def contains(self, cell: Cell) -> bool:
        """Whether ``cell`` is a room of this grid."""
        return 0 <= cell[0] < self.columns and 0 <= cell[1] < self.rows

    def is_outer_edge(self, cell: Cell, side: str) -> bool:
        """Whether the ``side`` of room ``cell`` is on the grid's outer boundary."""
        dc, dr = SIDE_OFFSETS[side]
        return self.contains(cell) and not self.contains((cell[0] + dc, cell[1] + dr))

    def cell_label(self, cell: Cell) -> str:
        """The coordinate printed for a room, e.g. ``C4`` for cell (2, 3) with letter columns."""
        return axis_label(cell[0], self.column_labels) + axis_label(cell[1], self.row_labels)


def axis_label(index: int, style: str) -> str:
    """The printed coordinate of column or row ``index`` (0-based) on one axis of a grid: with
    ``style`` ``"numbers"`` ``1``, ``2``...; otherwise letters ``A``..``Z``, ``AA``, ``AB``...
    (:meth:`GridSpec.cell_label` joins a column's and a row's)."""
    if style == "numbers":
        return str(index + 1)
    label = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        label = chr(ord("A") + rem) + label
    return label


def edge_key(cell: Cell, side: str) -> tuple[Cell, str]:
    """Canonical name of a grid edge: the same edge seen from either room gives the same key."""
    if side in ("west", "north"):
        dc, dr = SIDE_OFFSETS[side]
        return (cell[0] + dc, cell[1] + dr), OPPOSITE_SIDE[side]
    return cell, side


@dataclass
class Passage:
    """A passage diamond on the ``side`` of room ``cell``; every edge not listed is a wall."""

    cell: Cell
    side: str
    pointer: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "") -> Passage:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        return cls(_cell(data["cell"]), data["side"], pointer)

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        return {"cell": list(self.cell), "side": self.side}


@dataclass
class Entryway:
    """An entryway arrow on an outer edge of the grid (RULES.md 1, Board)."""

    id: str
    cell: Cell
    side: str
    pointer: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "") -> Entryway:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        return cls(data["id"], _cell(data["cell"]), data["side"], pointer)

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        return {"id": self.id, "cell": list(self.cell), "side": self.side}


@dataclass
class Feature:
    """The one feature of a grid room: ``loot``, ``dragon``, ``weapon`` or ``monster`` (the
    last two with a ``letter``), or another kind a ruleset defines."""

    id: str
    kind: str
    cell: Cell
    name: str | None = None
    letter: str | None = None
    pointer: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "") -> Feature:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        return cls(data["id"], data["kind"], _cell(data["cell"]), data.get("name"), data.get("letter"), pointer)

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "cell": list(self.cell)}
        if self.name is not None:
            out["name"] = self.name
        if self.letter is not None:
            out["letter"] = self.letter
        return out


@dataclass
class Area:
    """A room or corridor of a line dungeon: a simple polygon in sheet mm. Its outline is a
    wall except where it meets another area (RULES.md 2, Drawing rules)."""

    id: str
    kind: str
    polygon: list[Point]
    name: str | None = None
    pointer: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "") -> Area:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        return cls(data["id"], data["kind"], _points(data["polygon"]), data.get("name"), pointer)

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind}
        if self.name is not None:
            out["name"] = self.name
        out["polygon"] = [list(p) for p in self.polygon]
        return out


@dataclass
class Wall:
    """An extra wall: a polyline in sheet mm that closes part of a boundary or stands inside an area."""

    id: str
    points: list[Point]
    pointer: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "") -> Wall:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        return cls(data["id"], _points(data["points"]), pointer)

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        return {"id": self.id, "points": [list(p) for p in self.points]}


@dataclass
class Element:
    """An element of a line dungeon (RULES.md 2, Elements). Which members apply depends on
    ``kind``: most kinds have ``at`` (centre, mm), ``size_mm`` (footprint diameter) and
    ``rotation_deg``; a boss has ``vp``; spells and treasures a ``variant``; artifact stones a
    ``number``; orbs and keys a ``colour``; portal entries and exits a ``channel``; doors a
    ``segment`` (two points on the wall) and ``locks`` (key colours or ``"skeleton"``); labels
    ``text``, ``text_height_mm`` and ``rotation_deg``."""

    id: str
    kind: str
    name: str | None = None
    at: Point | None = None
    size_mm: float | None = None
    rotation_deg: float | None = None
    vp: int | None = None
    variant: str | None = None
    number: int | None = None
    colour: str | None = None
    channel: str | None = None
    segment: tuple[Point, Point] | None = None
    locks: list[str] | None = None
    text: str | None = None
    text_height_mm: float | None = None
    pointer: str = field(default="", compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict, pointer: str = "") -> Element:
        """Build from schema-valid JSON data; ``pointer`` is where it sits in its file."""
        values = {key: data.get(key) for key in _ELEMENT_OPTIONAL}
        if values["at"] is not None:
            values["at"] = _point(values["at"])
        if values["segment"] is not None:
            values["segment"] = tuple(_points(values["segment"]))
        if values["locks"] is not None:
            values["locks"] = list(values["locks"])
        return cls(data["id"], data["kind"], pointer=pointer, **values)

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind}
        for key in _ELEMENT_OPTIONAL:
            value = getattr(self, key)
            if value is None:
                continue
            if key == "at":
                value = list(value)
            elif key == "segment":
                value = [list(p) for p in value]
            elif key == "locks":
                value = list(value)
            out[key] = value
        return out

    @property
    def radius_mm(self) -> float:
        """Radius of the element's round footprint (0 for doors and labels)."""
        return (self.size_mm or 0) / 2


@dataclass
class Dungeon:
    """What both families share: id, family (``grid`` or ``line``), ruleset id and sheet."""

    id: str
    ruleset: str
    sheet: Sheet
    pointer: str = field(default="", compare=False, repr=False)

    family = "?"

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        return {
            "type": "dungeon",
            "format_version": 2,
            "id": self.id,
            "family": self.family,
            "ruleset": self.ruleset,
            "sheet": self.sheet.to_dict(),
        }

    def objects_with_ids(self) -> list[Any]:
        """Every object that carries an id, in file order."""
        raise NotImplementedError


@dataclass
class GridDungeon(Dungeon):
    """A grid-family dungeon (RULES.md 1): the grid, its passages, entryways and features."""

    grid: GridSpec = field(default_factory=GridSpec)
    passages: list[Passage] = field(default_factory=list)
    entryways: list[Entryway] = field(default_factory=list)
    features: list[Feature] = field(default_factory=list)

    family = "grid"

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        out = super().to_dict()
        out["grid"] = self.grid.to_dict()
        out["passages"] = [p.to_dict() for p in self.passages]
        out["entryways"] = [e.to_dict() for e in self.entryways]
        out["features"] = [f.to_dict() for f in self.features]
        return out

    def objects_with_ids(self) -> list[Any]:
        """Every object that carries an id, in file order."""
        return [*self.entryways, *self.features]


@dataclass
class LineDungeon(Dungeon):
    """A line-family dungeon (RULES.md 2): areas, extra walls and elements."""

    areas: list[Area] = field(default_factory=list)
    walls: list[Wall] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)

    family = "line"

    def to_dict(self) -> dict:
        """The canonical JSON object (members in file order, defaults written)."""
        out = super().to_dict()
        out["areas"] = [a.to_dict() for a in self.areas]
        out["walls"] = [w.to_dict() for w in self.walls]
        out["elements"] = [e.to_dict() for e in self.elements]
        return out

    def objects_with_ids(self) -> list[Any]:
        """Every object that carries an id, in file order."""
        return [*self.areas, *self.walls, *self.elements]

    def elements_of(self, *kinds: str) -> list[Element]:
        """The elements whose kind is one of ``kinds``, in file order."""
        return [e for e in self.elements if e.kind in kinds]


def dungeon_from_dict(data: dict, skip: frozenset[str] = frozenset()) -> Dungeon:
    """Build a dungeon from schema-valid data (format_version 2).

    ``skip`` holds JSON pointers of list items to leave out (items with schema errors, so the
    rule checks still run on the rest). Raises ``KeyError``/``TypeError`` on data that does not
    follow the schema outside those items.
    """
    sheet = Sheet.from_dict(_without(data["sheet"], "/sheet", skip))
    common = dict(id=data["id"], ruleset=data["ruleset"], sheet=sheet)
    if data["family"] == "grid":
        return GridDungeon(
            **common,
            grid=GridSpec.from_dict(data["grid"]),
            passages=_items(data, "passages", Passage, skip),
            entryways=_items(data, "entryways", Entryway, skip),
            features=_items(data, "features", Feature, skip),
        )
    return LineDungeon(
        **common,
        areas=_items(data, "areas", Area, skip),
        walls=_items(data, "walls", Wall, skip),
        elements=_items(data, "elements", Element, skip),
    )


def _items(data: dict, key: str, cls, skip: frozenset[str]) -> list:
    return [cls.from_dict(item, f"/{key}/{i}") for i, item in enumerate(data.get(key, [])) if f"/{key}/{i}" not in skip]


def _without(sheet: dict, pointer: str, skip: frozenset[str]) -> dict:
    out = dict(sheet)
    for key in ("reminders", "end_triggers"):
        if isinstance(out.get(key), list):
            out[key] = [v for i, v in enumerate(out[key]) if f"{pointer}/{key}/{i}" not in skip]
    if isinstance(out.get("orb_tokens"), dict):
        out["orb_tokens"] = {k: v for k, v in out["orb_tokens"].items() if f"{pointer}/orb_tokens/{k}" not in skip}
    return out
