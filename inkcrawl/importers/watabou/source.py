"""The source file: the importer's limits and printed sizes, the door types, the objects
read from a One Page Dungeon file (rects, doors, notes; each names itself for the notes),
the areas they become, and :func:`_read`, which checks the JSON and notes what it skips."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from shapely.geometry import Polygon, box

from inkcrawl.importers import ImportFailed, json_kind
from inkcrawl.importers.watabou.text import _shorten

#: Most rects, doors, notes and column/water cells accepted (a generated dungeon has a few hundred).
MAX_RECTS = 5000
MAX_DOORS = 5000
MAX_NOTES = 2000
MAX_CELLS = 100_000
#: Longest note text kept.
MAX_NOTE_CHARS = 1000
#: Largest absolute coordinate or size accepted, in cells.
MAX_COORD = 10_000
#: Rects thinner than this (cells) are skipped.
MIN_SIDE = 0.25
#: Default printed size of one cell, mm (shrunk to fit the sheet).
DEFAULT_CELL_MM = 10.0
#: Cap height of note labels, mm.
LABEL_CAP_MM = 2.0
#: Longest story kept as the reminder.
STORY_CHARS = 300
#: Space kept between a label or element and a wall, and between elements, mm.
WALL_CLEARANCE_MM = 1.2
ELEMENT_GAP_MM = 0.8

DOOR_TYPES = {
    0: "open",
    1: "door",
    2: "narrow",
    3: "entrance",
    4: "portcullis",
    5: "double door",
    6: "secret door",
    7: "steel door",
    8: "stairs down",
    9: "stairwell",
}
OPEN, DOOR, NARROW, ENTRANCE, PORTCULLIS, DOUBLE, SECRET, STEEL, DOWN, STAIRWELL = range(10)
_DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))
_EPS = 1e-9


def _n(value: float) -> str:
    return f"{value:g}"


def _number(value, where: str, member: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = json.dumps(value, ensure_ascii=False)[:40] if value is not None else "missing"
        raise ImportFailed(f"{where}: '{member}' is {shown}, not a number")
    if not math.isfinite(value) or abs(value) > MAX_COORD:
        raise ImportFailed(
            f"{where}: '{member}' is {value!r}; coordinates must be finite and within +-{MAX_COORD} cells"
        )
    return float(value)


@dataclass
class _Rect:
    index: int
    x: float
    y: float
    w: float
    h: float
    rotunda: bool = False
    ending: bool = False

    @property
    def source(self) -> str:
        return f"rect {self.index} at ({_n(self.x)}, {_n(self.y)}) {_n(self.w)}x{_n(self.h)}"

    @property
    def shape(self) -> Polygon:
        return box(self.x, self.y, self.x + self.w, self.y + self.h)


@dataclass
class _Door:
    index: int
    x: float
    y: float
    direction: tuple[int, int] | None
    type: int | None
    raw_type: object

    @property
    def source(self) -> str:
        shown = (
            self.raw_type
            if isinstance(self.raw_type, (int, float, str)) and not isinstance(self.raw_type, bool)
            else json.dumps(self.raw_type)[:20]
        )
        return f"door {self.index} at ({_n(self.x)}, {_n(self.y)}) type {shown}"

    @property
    def label(self) -> str:
        return DOOR_TYPES.get(self.type, "unknown type") if self.type is not None else "unknown type"

    @property
    def cell(self) -> Polygon:
        return box(self.x, self.y, self.x + 1, self.y + 1)

    def edge(self, dx: int, dy: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """The cell's edge on the side ``(dx, dy)``."""
        x, y = self.x, self.y
        return {
            (1, 0): ((x + 1, y), (x + 1, y + 1)),
            (-1, 0): ((x, y), (x, y + 1)),
            (0, 1): ((x, y + 1), (x + 1, y + 1)),
            (0, -1): ((x, y), (x + 1, y)),
        }[(dx, dy)]


@dataclass
class _Note:
    index: int
    text: str
    ref: str
    x: float
    y: float

    @property
    def source(self) -> str:
        ref = f" (ref {self.ref})" if self.ref else ""
        return f"note {self.index}{ref} at ({_n(self.x)}, {_n(self.y)})"


@dataclass
class _Area:
    id: str
    kind: str  # room or corridor
    role: str  # room, corridor or doorway
    polygon: Polygon
    rects: list[int] = field(default_factory=list)
    door: int | None = None


@dataclass
class _Source:
    title: str | None
    story: str | None
    version: object
    rects: list[_Rect]
    doors: list[_Door]
    notes: list[_Note]
    columns: list[tuple[float, float]]
    water: list[tuple[float, float]]


# -- reading --------------------------------------------------------------------------------------


def _read(path: Path, notes: list[tuple[str, str]]) -> _Source:
    from inkcrawl.jsonio import read_json_file

    data, problems = read_json_file(path)
    if problems:
        raise ImportFailed(problems[0].message)
    if not isinstance(data, dict):
        raise ImportFailed(
            "the top level is not a JSON object; a One Page Dungeon file is an object with 'rects' and 'doors' lists"
        )
    if "rects" not in data:
        raise ImportFailed("no 'rects' list: this is not a One Page Dungeon file (it needs 'rects' and 'doors')")
    raw_rects = data["rects"]
    if not isinstance(raw_rects, list):
        raise ImportFailed(f"'rects' is {json_kind(raw_rects)}, not a list")
    if not raw_rects:
        raise ImportFailed("'rects' is empty: the dungeon has no rooms")
    if len(raw_rects) > MAX_RECTS:
        raise ImportFailed(
            f"{len(raw_rects)} rects; at most {MAX_RECTS} are imported (a generated dungeon has a few hundred at most)"
        )
    rects = []
    for index, item in enumerate(raw_rects):
        where = f"rect {index}"
        if not isinstance(item, dict):
            raise ImportFailed(f"{where} is not an object with x, y, w, h")
        x, y = _number(item.get("x"), where, "x"), _number(item.get("y"), where, "y")
        w, h = _number(item.get("w"), where, "w"), _number(item.get("h"), where, "h")
        rect = _Rect(index, x, y, w, h, item.get("rotunda") is True, item.get("ending") is True)
        if w < MIN_SIDE or h < MIN_SIDE:
            notes.append((rect.source, f"is thinner than {MIN_SIDE:g} cell; skipped"))
            continue
        rects.append(rect)
    if not rects:
        raise ImportFailed("every rect is empty or thinner than a quarter cell: the dungeon has no rooms")

    raw_doors = data.get("doors", [])
    if "doors" not in data:
        notes.append(("doors", "the file has no 'doors' list; imported without doors"))
    if not isinstance(raw_doors, list):
        raise ImportFailed(f"'doors' is {json_kind(raw_doors)}, not a list")
    if len(raw_doors) > MAX_DOORS:
        raise ImportFailed(f"{len(raw_doors)} doors; at most {MAX_DOORS} are imported")
    doors = []
    for index, item in enumerate(raw_doors):
        where = f"door {index}"
        if not isinstance(item, dict):
            raise ImportFailed(f"{where} is not an object with x, y, dir, type")
        x, y = _number(item.get("x"), where, "x"), _number(item.get("y"), where, "y")
        raw_dir = item.get("dir")
        direction = None
        if isinstance(raw_dir, dict):
            dx, dy = _number(raw_dir.get("x", 0), where, "dir.x"), _number(raw_dir.get("y", 0), where, "dir.y")
            if (dx, dy) in _DIRECTIONS:
                direction = (int(dx), int(dy))
        raw_type = item.get("type")
        kind = raw_type if type(raw_type) is int and raw_type in DOOR_TYPES else None
        if type(raw_type) is float and raw_type.is_integer() and int(raw_type) in DOOR_TYPES:
            kind = int(raw_type)
        doors.append(_Door(index, x, y, direction, kind, raw_type))

    raw_notes = data.get("notes", [])
    if not isinstance(raw_notes, list):
        notes.append(("notes", f"'notes' is {json_kind(raw_notes)}, not a list; ignored"))
        raw_notes = []
    if len(raw_notes) > MAX_NOTES:
        raise ImportFailed(f"{len(raw_notes)} notes; at most {MAX_NOTES} are imported")
    source_notes = []
    for index, item in enumerate(raw_notes):
        where = f"note {index}"
        if not isinstance(item, dict):
            notes.append((where, "is not an object with text, ref and pos; skipped"))
            continue
        pos = item.get("pos")
        if not isinstance(pos, dict):
            notes.append((where, "has no 'pos' {x, y}; skipped"))
            continue
        x, y = _number(pos.get("x"), where, "pos.x"), _number(pos.get("y"), where, "pos.y")
        text = item.get("text")
        ref = item.get("ref")
        ref = str(ref).strip()[:20] if isinstance(ref, (str, int, float)) and not isinstance(ref, bool) else ""
        note = _Note(index, _clean_text(text[: MAX_NOTE_CHARS * 2]) if isinstance(text, str) else "", ref, x, y)
        if not note.text:
            notes.append((note.source, "has no text; skipped"))
            continue
        if len(note.text) > MAX_NOTE_CHARS:
            notes.append((note.source, f"text longer than {MAX_NOTE_CHARS} characters; the rest was dropped"))
            note.text = _shorten(note.text, MAX_NOTE_CHARS)
        source_notes.append(note)

    cells = {}
    for member in ("columns", "water"):
        raw = data.get(member, [])
        found = []
        if not isinstance(raw, list):
            notes.append((member, f"'{member}' is {json_kind(raw)}, not a list; ignored"))
            raw = []
        if len(raw) > MAX_CELLS:
            raise ImportFailed(f"{len(raw)} {member} cells; at most {MAX_CELLS} are read")
        for index, item in enumerate(raw):
            where = f"{member} {index}"
            if not isinstance(item, dict):
                raise ImportFailed(f"{where} is not an object with x and y")
            found.append((_number(item.get("x"), where, "x"), _number(item.get("y"), where, "y")))
        cells[member] = found

    title = data.get("title")
    if title is not None and not isinstance(title, str):
        notes.append(("title", "is not text; the file name is used instead"))
        title = None
    story = data.get("story")
    if story is not None and not isinstance(story, str):
        notes.append(("story", "is not text; ignored"))
        story = None
    return _Source(
        _clean_text(title) if title else None,
        _clean_text(story) if story else None,
        data.get("version"),
        rects,
        doors,
        source_notes,
        cells["columns"],
        cells["water"],
    )


def _listed(numbers: list[int], most: int = 20) -> str:
    """``numbers`` as a comma-separated list, the first ``most`` of them and a count of the rest."""
    shown = ", ".join(map(str, numbers[:most]))
    return shown if len(numbers) <= most else f"{shown} and {len(numbers) - most} more"


def _clean_text(text: str) -> str:
    """Text with control characters removed and white space collapsed."""
    return re.sub(r"\s+", " ", "".join(c if c.isprintable() else " " for c in text)).strip()
