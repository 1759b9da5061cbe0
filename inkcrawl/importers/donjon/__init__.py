"""Importer for the JSON export of donjon's Random Dungeon Generator (https://donjon.bin.sh/).

**The format.** No specification is published; this importer follows what public sources show:

- donjon's own "Random Dungeon Generator: About" page (http://donjon.bin.sh/dungeon/about/):
  the dungeon is a grid of cells numbered from 0 (rows and columns), each an integer of bit
  flags; ``$BLOCKED`` masks special layouts, ``$ROOM`` marks room cells and the room number
  sits in the ten bits of ``$ROOM_ID``, ``$CORRIDOR`` marks corridors; rooms and corridors lie
  on odd rows and columns, and rooms have ``$PERIMETER`` and ``$ENTRANCE`` cells around them.
- The bit values of donjon's generator (``dungeon.pl``, https://donjon.bin.sh/code/dungeon/,
  CC BY-NC 3.0) as reproduced by public ports, e.g. a C# ``Cellbits`` enum "adapted from
  https://donjon.bin.sh/code/dungeon/dungeon.pl": blocked 0x1, room 0x2, corridor 0x4,
  perimeter 0x10, entrance 0x20, room_id 0xFFC0, arch 0x10000, door 0x20000, locked 0x40000,
  trapped 0x80000, secret 0x100000, portcullis 0x200000, stair_down 0x400000,
  stair_up 0x800000, label 0xFF000000 (an ASCII character).
- The export's structure as read by public consumers: the C# classes of
  wpfeffer/GameMasterGuide (``GameMasterGuide.win/Dungeon/Rootobject.cs``, ``Cell_Bit.cs``,
  ``Settings.cs``, ``Stair.cs``: top-level ``cell_bit``, ``cells``, ``corridor_features``,
  ``details``, ``egress``, ``rooms``, ``settings``, ``stairs``, ``wandering_monsters``;
  ``cell_bit`` names ``block`` and ``aperture``; ``settings`` with ``bleed``, ``n_rows``,
  ``n_cols``, ``name`` and, in that model, ``map_rows``/``map_cols`` as strings); another
  public C# model reads ``cells`` as strings (``List<List<string>>``); a Foundry VTT
  "donjon-map-importer" module treats cell values 65540, 131076, 262148, 524292, 1048580 and
  2097156 as doors (a door bit plus the corridor bit: door cells are corridor cells set in
  the room perimeter); and a donjon export embedded in a public Discord bot shows a ``null``
  first room, ``rooms[i]`` with ``id``, ``row``/``col``, ``north``/``south``/``west``/``east``
  (in cells, inclusive) and ``width``/``height``/``area`` (in feet), ``doors`` per side,
  ``bleed`` 4 with a stored grid of ``(n_rows + 2 bleed) x (n_cols + 2 bleed)`` cells (room
  and door coordinates plus ``bleed`` index ``cells``), the room number written as label
  characters at the room's centre and a corridor feature's letter on its corridor cell.

**The mapping** (docs/importing-donjon.md has the user's version). One source cell is one unit;
the builder scales cells to ``cell_mm`` (default 8 mm, shrunk to fit A4).

- Rooms: the union of the cells carrying one room id (split when not connected, with a note).
- Corridors: the union of the corridor, door and stair cells that are not room cells, split
  into 4-connected pieces, and each piece further into simply connected pieces (a corridor loop
  around a block of rock would be a polygon with a hole, which an area may not be); pieces that
  share an edge are open to each other.
- Perimeter, blocked, entrance ("aperture") and empty cells are rock: walls follow the outline.
- Doors sit on the edge between the door cell and its room: ``arch`` and plain ``door`` are open
  passages (an inkcrawl door always has a lock), ``locked`` a door with a red lock, ``portcullis``
  a door with a green lock, ``secret`` a door with a skeleton lock (any key opens it; a printed
  sheet cannot hide a door); ``trapped`` is reported. For each lock colour one key is placed in
  a room (else a corridor) reachable from a Start without passing any door, and reported.
- Stairs down: an exit and the ``exit_reached`` end trigger. Stairs up and ``egress`` (ways out
  at the map edge): a Start on an outer wall of that cell, else on the nearest outer edge of
  its area (reported). Without either, one Start on the outer wall nearest the first room.
  Starts that would overlap are merged, and parts no Start reaches are reported.
- Label characters: text labels (the room numbers, corridor feature letters).
- Room contents, corridor features, wandering monsters and details are reported, not mapped.

Numbers may be JSON numbers or strings of digits anywhere. Cell values that are not numbers
are read as rock, with a note. Malformed or oversized input raises :class:`ImportFailed`.
"""

from __future__ import annotations

import math
import re
from collections import deque
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import Polygon

from inkcrawl.geoarrays import point_array
from inkcrawl.importers import MAX_STARTS, ImportFailed, ImportOptions, ImportResult, json_kind
from inkcrawl.importers.build import DRAWING_BAND_MM, LineDungeonBuilder, default_size_mm, safe_id
from inkcrawl.jsonio import MAX_FILE_BYTES, read_json_file

#: Cell bits of donjon's generator, used when the file's ``cell_bit`` lacks one.
DEFAULT_BITS = {
    "blocked": 0x1, "room": 0x2, "corridor": 0x4, "perimeter": 0x10, "aperture": 0x20,
    "room_id": 0xFFC0, "arch": 0x10000, "door": 0x20000, "locked": 0x40000, "trapped": 0x80000,
    "secret": 0x100000, "portcullis": 0x200000, "stair_down": 0x400000, "stair_up": 0x800000,
    "label": 0xFF000000,
}
#: Other spellings of ``cell_bit`` names seen in exports and ports.
BIT_ALIASES = {"block": "blocked", "entrance": "aperture", "portc": "portcullis", "stair_dn": "stair_down"}
#: Door kinds in the order one is chosen when a cell carries several.
DOOR_KINDS = ("locked", "portcullis", "secret", "door", "arch")
#: Lock colour of each door kind that becomes an inkcrawl door.
LOCK_OF_KIND = {"locked": "red", "portcullis": "green", "secret": "skeleton"}
#: Printed size of one cell when ``--cell-mm`` is not given (shrunk to fit the sheet).
DEFAULT_CELL_MM = 8.0
#: Largest grid imported: cells per side and in all (a cell of a grid 400 cells across prints
#: under half a millimetre wide; the largest grid imports in about two seconds).
MAX_SIDE = 400
MAX_CELLS = 100_000
#: Areas tried for a key, nearest to a Start first.
MAX_KEY_AREAS = 500
#: Per-cell notes of one sort before the rest are summed up in one note.
MAX_CELL_NOTES = 20
#: Smallest printable element and text (line-classic ``print`` limits).
MIN_ELEMENT_MM = 3.0
MIN_TEXT_MM = 2.0

_NEIGHBOURS = ((-1, 0, "north"), (0, 1, "east"), (1, 0, "south"), (0, -1, "west"))
_OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
_RING = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))  # N NE E SE S SW W NW
_INT_TEXT = re.compile(r"[+-]?\d{1,12}(\.0*)?")


def _int(value) -> int | None:
    """``value`` as an int: a whole JSON number or a string of digits; ``None`` otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 2 ** 53 else None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() and abs(value) < 2 ** 53 else None
    if isinstance(value, str) and len(value) <= 40:
        text = value.strip()  # the same whitespace int() would refuse inside the digits
        if _INT_TEXT.fullmatch(text):
            return int(float(text)) if "." in text else int(text)
    return None


def _shift(mask: int) -> int:
    return (mask & -mask).bit_length() - 1 if mask else 0


def _text(value, limit: int = 80) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Grid:
    """The decoded cell grid: ``values[r][c]`` (stored indexes), the offset of donjon's own
    coordinates (the bleed), and the notes' naming of cells."""

    def __init__(self, values: list[list[int]], off_r: int, off_c: int):
        self.values = values
        self.rows = len(values)
        self.cols = len(values[0]) if values else 0
        self.off_r, self.off_c = off_r, off_c

    def name(self, r: int, c: int) -> str:
        return f"cell ({r - self.off_r}, {c - self.off_c})"


class DonjonImporter:
    """The ``donjon`` importer plugin."""

    name = "donjon"
    description = "donjon Random Dungeon Generator JSON"

    def detect(self, path: Path, head: bytes) -> bool:
        text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        if not text.startswith("{") or not re.search(r'"cells"\s*:\s*\[', text):
            return False
        if '"cell_bit"' in text or '"settings"' in text:
            return True
        if len(head) < 65536:
            return False
        try:  # the keys may come after a large grid: look through the rest of the file
            with path.open("rb") as handle:
                rest = handle.read(MAX_FILE_BYTES)
        except OSError:
            return False
        return b'"cell_bit"' in rest or b'"settings"' in rest

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        data, problems = read_json_file(path)
        if problems:
            raise ImportFailed(problems[0].message)
        if not isinstance(data, dict):
            raise ImportFailed(f"a donjon dungeon is a JSON object; this file holds {json_kind(data)}")
        return _Conversion(path, data, options).run()


class _Conversion:
    def __init__(self, path: Path, data: dict, options: ImportOptions):
        self.data = data
        self.options = options
        settings = data.get("settings")
        self.settings = settings if isinstance(settings, dict) else {}
        title = self.settings.get("name")
        title = _text(title, 120) if isinstance(title, (str, int, float)) and not isinstance(title, bool) else ""
        self.builder = LineDungeonBuilder(dungeon_id=safe_id(path.stem, "donjon"), title=title or path.stem,
                                          ruleset=options.ruleset or "line-classic")
        self.note = self.builder.note
        self.cell_notes: dict[str, tuple[int, str]] = {}  # sort -> (count, unit)

    def cell_note(self, sort: str, source: str, message: str, unit: str = "cells") -> None:
        """A note about one cell (or one of some other ``unit``), at most :data:`MAX_CELL_NOTES`
        of one ``sort``; :meth:`flush_cell_notes` counts the rest in one note."""
        count = self.cell_notes.get(sort, (0, unit))[0] + 1
        self.cell_notes[sort] = (count, unit)
        if count <= MAX_CELL_NOTES:
            self.note(source, message)

    def flush_cell_notes(self) -> None:
        """One note for each sort of :meth:`cell_note` with more than :data:`MAX_CELL_NOTES`."""
        for sort, (count, unit) in self.cell_notes.items():
            if count > MAX_CELL_NOTES:
                self.note(f"{count - MAX_CELL_NOTES} more {unit}", f"the same as above: {sort}")
        self.cell_notes = {}

    # --- reading ------------------------------------------------------------------------------
    def run(self) -> ImportResult:
        self.bits = self.read_bits()
        self.grid = self.read_cells()
        self.classify()
        self.make_areas()
        self.scale = self.placed_scale()
        self.outer = self.exterior_void()
        self.outer_edges = self.find_outer_edges()
        self.make_doors()
        self.make_starts()
        self.report_unreachable()
        self.make_exits()
        self.make_labels()
        self.place_keys()
        self.report_unmapped()
        self.flush_cell_notes()
        dungeon = self.builder.build(self.options.cell_mm, DEFAULT_CELL_MM)
        return ImportResult(dungeon, list(self.builder.notes))

    def read_bits(self) -> dict[str, int]:
        bits = dict(DEFAULT_BITS)
        raw = self.data.get("cell_bit")
        if raw is None:
            return bits
        if not isinstance(raw, dict):
            self.note("cell_bit", "not an object of bit names; donjon's standard bit values are used")
            return bits
        for key, value in raw.items():
            name = BIT_ALIASES.get(str(key), str(key))
            if name not in DEFAULT_BITS or name == "nothing":
                continue
            number = _int(value)
            if number is None or not 0 <= number < 2 ** 32:
                self.note(f"cell_bit {_text(key, 30)}", f"value {_text(value, 30)!s} is not a 32-bit mask; donjon's "
                                                          f"standard value {DEFAULT_BITS[name]} is used")
                continue
            bits[name] = number
        return bits

    def read_cells(self) -> _Grid:
        cells = self.data.get("cells")
        if not isinstance(cells, list) or not cells:
            raise ImportFailed("'cells' must be a non-empty list of rows of cell numbers")
        if len(cells) > MAX_SIDE:
            raise ImportFailed(f"the grid has {len(cells)} rows; inkcrawl imports at most {MAX_SIDE}")
        if not all(isinstance(row, list) for row in cells):
            bad = next(i for i, row in enumerate(cells) if not isinstance(row, list))
            raise ImportFailed(f"'cells' row {bad} is not a list of cell numbers")
        width = max(len(row) for row in cells)
        if width == 0:
            raise ImportFailed("'cells' holds only empty rows")
        if width > MAX_SIDE or width * len(cells) > MAX_CELLS:
            raise ImportFailed(f"the grid of {len(cells)} x {width} cells is larger than inkcrawl imports "
                               f"(at most {MAX_SIDE} per side and {MAX_CELLS} in all)")
        off_r, off_c = self.offsets(len(cells), width)
        grid = _Grid([], off_r, off_c)
        for r, row in enumerate(cells):
            values = []
            for c, value in enumerate(row):
                number = _int(value)
                if number is None or not 0 <= number < 2 ** 32:
                    grid_name = f"cell ({r - off_r}, {c - off_c})"
                    self.cell_note("cell values that are not cell numbers", grid_name,
                                   f"value {_text(value, 30)} is not a cell number (a whole number from 0 to "
                                   f"2^32 - 1); read as rock")
                    number = 0
                values.append(number)
            if len(values) < width:
                self.note(f"cells row {r - off_r}", f"has {len(values)} cells, the longest row {width}; filled "
                                                    f"with rock")
                values += [0] * (width - len(values))
            grid.values.append(values)
        grid.rows, grid.cols = len(grid.values), width
        return grid

    def offsets(self, rows: int, cols: int) -> tuple[int, int]:
        """Where donjon's cell (0, 0) is in the stored grid: ``bleed`` cells of padding on every
        side when the grid is that much larger than ``n_rows`` x ``n_cols``."""
        raw = self.settings.get("bleed")
        bleed = _int(raw) if raw is not None else 0
        if bleed is None or bleed < 0:
            self.note("settings bleed", f"{_text(raw, 30)} is not a number of cells; read as 0")
            bleed = 0
        result = []
        for count, key in ((rows, "n_rows"), (cols, "n_cols")):
            raw_n = self.settings.get(key)
            n = _int(raw_n) if raw_n is not None else None
            if raw_n is not None and (n is None or n <= 0):
                self.note(f"settings {key}", f"{_text(raw_n, 30)} is not a number of cells; ignored")
                n = None
            if n is None:
                if 2 * bleed >= count:
                    self.note("settings bleed", f"{bleed} cells of padding do not fit a grid of {count}; read as 0")
                    result.append(0)
                else:
                    result.append(bleed)
            elif count == n + 2 * bleed:
                result.append(bleed)
            elif count == n:
                if bleed:
                    self.note("settings bleed", f"the grid has {count} {key[2:]}, exactly {key} = {n}: it carries no "
                                                f"padding, so bleed {bleed} is not applied")
                result.append(0)
            else:
                guess = max(0, (count - n) // 2)
                self.note(f"settings {key}", f"the grid has {count} {key[2:]}, not {key} + 2 x bleed = "
                                             f"{n + 2 * bleed}; read with {guess} cells of padding")
                result.append(guess)
        return result[0], result[1]

    # --- cells into areas ---------------------------------------------------------------------
    def flag(self, value: int, name: str) -> bool:
        return bool(value & self.bits[name])

    def classify(self) -> None:
        """Room cells by room id, open (corridor, door, stair) cells, door cells."""
        grid = self.grid
        door_mask = 0
        for kind in (*DOOR_KINDS, "trapped"):
            door_mask |= self.bits[kind]
        id_mask, id_shift = self.bits["room_id"], _shift(self.bits["room_id"])
        stair_mask = self.bits["stair_down"] | self.bits["stair_up"]
        self.room_cells: dict[int, set] = {}
        self.open_cells: set = set()
        self.door_cells: dict = {}
        for r, row in enumerate(grid.values):
            for c, value in enumerate(row):
                if self.flag(value, "room"):
                    room_id = (value & id_mask) >> id_shift
                    self.room_cells.setdefault(room_id, set()).add((r, c))
                    if value & door_mask:
                        self.cell_note("door bits on room cells", grid.name(r, c),
                                       "door bits on a room cell: read as room floor")
                elif value & (self.bits["corridor"] | door_mask | stair_mask):
                    self.open_cells.add((r, c))
                    if value & door_mask:
                        self.door_cells[(r, c)] = value
        if 0 in self.room_cells:
            self.note("room 0", f"{len(self.room_cells[0])} room cells carry no room id; imported as one room 'room-0'")
        if not self.room_cells and not self.open_cells:
            raise ImportFailed("no cell is a room or a corridor: there is no dungeon in this file")

    def make_areas(self) -> None:
        self.area_of: dict = {}
        self.area_cells: dict[str, list] = {}
        self.area_kind: dict[str, str] = {}
        self.room_areas: dict[int, list[str]] = {}
        self.polygons: dict[str, Polygon] = {}
        for room_id in sorted(self.room_cells):
            components = _components(self.room_cells[room_id])
            if len(components) > 1:
                self.note(f"room {room_id}", f"its cells form {len(components)} separate parts; each is a room")
            pieces = []
            for component in components:
                parts = _simple_pieces(component)
                if len(parts) > 1:
                    self.note(f"room {room_id}", f"its cells enclose rock; split into {len(parts)} rooms so that "
                                                 f"no room has a hole")
                pieces += parts
            for number, piece in enumerate(pieces, 1):
                wanted = f"room-{room_id}" if len(pieces) == 1 else f"room-{room_id}-{number}"
                area_id = self.add_area("room", piece, wanted)
                self.room_areas.setdefault(room_id, []).append(area_id)
        number = 0
        for component in _components(self.open_cells):
            for piece in _simple_pieces(component):
                number += 1
                self.add_area("corridor", piece, f"corridor-{number}")

    def add_area(self, kind: str, cells: list, wanted: str) -> str:
        runs = _row_runs(cells)  # whole runs of a row, far fewer boxes than cells
        polygon = shapely.union_all(shapely.box(runs[:, 1], runs[:, 0], runs[:, 2], runs[:, 0] + 1))
        polygon = shapely.simplify(polygon, 0)
        if not isinstance(polygon, Polygon) or len(polygon.interiors):  # cannot happen: pieces are simple
            raise ImportFailed(f"internal error: the cells of {wanted} do not form a simple polygon")
        points = [(float(x), float(y)) for x, y in polygon.exterior.coords[:-1]]
        area_id = self.builder.add_area(kind, points, None, wanted)
        self.polygons[area_id] = polygon
        for cell in cells:
            self.area_of[cell] = area_id
        self.area_cells[area_id] = sorted(cells)
        self.area_kind[area_id] = kind
        return area_id

    def placed_scale(self) -> float:
        """The mm per cell :meth:`LineDungeonBuilder.build` will use (the same fit rule)."""
        xs = [c for r, c in self.area_of] + [c + 1 for r, c in self.area_of]
        ys = [r for r, c in self.area_of] + [r + 1 for r, c in self.area_of]
        width, height = max(xs) - min(xs), max(ys) - min(ys)
        x0, y0, x1, y1 = DRAWING_BAND_MM
        fit = min((x1 - x0) / width, (y1 - y0) / height)
        wanted = self.options.cell_mm if self.options.cell_mm is not None else DEFAULT_CELL_MM
        scale = min(wanted, fit)
        if scale * 0.9 < MIN_ELEMENT_MM:
            self.note("the whole map", f"a cell prints {scale:.2f} mm wide: doors, keys and exits may be too small "
                                       f"to print or may not fit their cells; use a smaller dungeon")
        return scale

    def exterior_void(self) -> set:
        """The rock cells (with a ring around the grid) connected to the outside: a cell edge
        facing one of them is an outer wall, where Starts go."""
        rows, cols = self.grid.rows, self.grid.cols
        seen = set()
        queue = deque([(-1, -1)])
        seen.add((-1, -1))
        while queue:
            r, c = queue.popleft()
            for dr, dc, _ in _NEIGHBOURS:
                cell = (r + dr, c + dc)
                if cell in seen or not (-1 <= cell[0] <= rows and -1 <= cell[1] <= cols) or cell in self.area_of:
                    continue
                seen.add(cell)
                queue.append(cell)
        return seen

    # --- doors ----------------------------------------------------------------------------------
    def make_doors(self) -> None:
        self.locks_needed: dict[str, list[tuple]] = {}  # colour -> (source, label, door id, room)
        self.closed_edges: set = set()
        grid = self.grid
        for (r, c), value in sorted(self.door_cells.items()):
            source = grid.name(r, c)
            kinds = [kind for kind in DOOR_KINDS if self.flag(value, kind)]
            trapped = self.flag(value, "trapped")
            kind = kinds[0] if kinds else "door"
            label = "trapped door" if not kinds else f"{kind} door" if kind != "door" else "door"
            if len(kinds) > 1:
                self.note(f"{source} {label}", f"carries several door kinds ({', '.join(kinds)}); read as {kind}")
            if trapped:
                self.note(f"{source} {label}", "the door's trap is not represented on the sheet")
            if kind not in LOCK_OF_KIND:
                continue  # arches and plain doors are open passages
            rooms = []
            for dr, dc, side in _NEIGHBOURS:
                neighbour = (r + dr, c + dc)
                if neighbour in self.area_of and self.area_kind[self.area_of[neighbour]] == "room":
                    rooms.append((side, neighbour))
            if not rooms:
                self.note(f"{source} {label}", "no room is next to it, so it cannot become a door on a room's "
                                               "wall; left as an open passage")
                continue
            side, neighbour = rooms[0]
            segment = _edge(r, c, side)
            colour = LOCK_OF_KIND[kind]
            room = self.area_of[neighbour]
            door_id = self.builder.add_door(segment, [colour], f"door-{r - grid.off_r}-{c - grid.off_c}")
            self.closed_edges.add(frozenset(((r, c), neighbour)))
            self.locks_needed.setdefault(colour, []).append((source, label, door_id, room))

    # --- starts and exits --------------------------------------------------------------------
    def stairs(self) -> dict[str, list]:
        """Stair cells by direction (``up``/``down``): the cell bits, plus ``stairs`` entries
        whose cell lacks the bit."""
        found: dict[str, list[tuple[int, int]]] = {"up": [], "down": []}
        for (r, c) in sorted(self.area_of):
            value = self.grid.values[r][c]
            if self.flag(value, "stair_up"):
                found["up"].append((r, c))
            if self.flag(value, "stair_down"):
                found["down"].append((r, c))
        listed = self.data.get("stairs")
        if listed is None:
            return found
        if not isinstance(listed, list):
            self.note("stairs", "not a list; the stairs are read from the cells only")
            return found
        for index, stair in enumerate(listed[:1000]):
            if not isinstance(stair, dict):
                self.note(f"stairs {index}", "not an object; ignored")
                continue
            row, col = _int(stair.get("row")), _int(stair.get("col"))
            key = str(stair.get("key", "")).lower()
            direction = {"up": "up", "u": "up", "stair_up": "up", "down": "down", "d": "down",
                         "stair_down": "down"}.get(key)
            if row is None or col is None or direction is None:
                self.note(f"stairs {index}", "has no row, col and key up/down; ignored")
                continue
            cell = (row + self.grid.off_r, col + self.grid.off_c)
            if cell in found[direction]:
                continue
            if cell not in self.area_of:
                self.note(f"stairs {index} at ({row}, {col})", f"{direction} stairs on a rock cell; ignored")
                continue
            self.note(f"stairs {index} at ({row}, {col})", f"the cell has no stair_{direction} bit; the stairs are "
                                                           f"imported from the list")
            found[direction].append(cell)
        return found

    def make_starts(self) -> None:
        self.obstacles: list[tuple[float, float, float]] = []  # x, y, radius in cells
        self.start_areas: list[str] = []
        size = max(MIN_ELEMENT_MM, min(default_size_mm("start"), 1.2 * self.scale))
        self.stair_cells = self.stairs()
        # (cell, what it comes from, why it is placed there, the side to use)
        starts: list[tuple[tuple[int, int], str, str | None, str | None]] = []
        for cell in self.stair_cells["up"]:
            starts.append((cell, f"{self.grid.name(*cell)} stairs up", None, None))
        starts += self.egress_starts()
        if not starts:
            first = min(self.room_areas) if self.room_areas else None
            area = self.room_areas[first][0] if first is not None else next(iter(self.area_cells))
            where = f"room {first}" if first is not None else f"'{area}'"
            cells = self.area_cells[area]
            cy = sum(r for r, _ in cells) / len(cells)
            cx = sum(c for _, c in cells) / len(cells)
            cell = min(cells, key=lambda rc: ((rc[0] - cy) ** 2 + (rc[1] - cx) ** 2, rc))
            starts.append((cell, "the dungeon", f"has no stairs up and no egress; a Start is placed on the outer "
                                                f"wall nearest {where}", None))
        placed: dict = {}
        radius = size / 2 / self.scale
        buckets: dict[tuple[int, int], list] = {}  # placed Starts by square of side 2 x radius
        for cell, source, why, side in starts:
            spot = self.outer_spot(cell, source, why, side)
            if spot is None:
                continue
            (x, y), area = spot
            if len(placed) >= MAX_STARTS and (x, y) not in placed:
                self.cell_note("Starts past the most an import places", source,
                               f"the dungeon has {MAX_STARTS} Starts already, the most an import places; no Start "
                               f"placed for it", "stairs or egress")
                continue
            bx, by = math.floor(x / (2 * radius)), math.floor(y / (2 * radius))
            near = min((item for dx in (-1, 0, 1) for dy in (-1, 0, 1) for item in buckets.get((bx + dx, by + dy), ())
                        if math.hypot(x - item[1], y - item[2]) < 2 * radius), default=None)
            if near is not None:  # the first Start placed that this one would overlap
                if (x, y) not in placed:
                    self.cell_note("Starts merged with one nearby", source,
                                   f"its Start would overlap '{near[3]}'; that Start serves both", "stairs or egress")
                continue
            placed[(x, y)] = f"start-{len(placed) + 1}"
            buckets.setdefault((bx, by), []).append((len(placed), x, y, placed[(x, y)]))
            self.builder.add_element("start", (x, y), placed[(x, y)], size_mm=round(size, 2))
            self.obstacles.append((x, y, size / 2 / self.scale))
            self.start_areas.append(area)

    def egress_starts(self) -> list:
        egress = self.data.get("egress")
        if egress is None:
            return []
        if not isinstance(egress, list):
            self.note("egress", "not a list; ignored")
            return []
        found = []
        steps = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
        for index, item in enumerate(egress[:1000]):
            if not isinstance(item, dict):
                self.note(f"egress {index}", "not an object; ignored")
                continue
            row, col = _int(item.get("row")), _int(item.get("col"))
            side = str(item.get("dir", "")).lower()
            direction = steps.get(side)
            if row is None or col is None:
                self.note(f"egress {index}", "has no row and col; ignored")
                continue
            cell = (row + self.grid.off_r, col + self.grid.off_c)
            if cell not in self.area_of:
                self.note(f"egress {index} at ({row}, {col})", "lies on a rock cell; ignored")
                continue
            if direction is not None:  # follow the way out to its end at the edge of the map
                for _ in range(MAX_SIDE):
                    ahead = (cell[0] + direction[0], cell[1] + direction[1])
                    if ahead not in self.area_of or self.area_of[ahead] != self.area_of[cell]:
                        break
                    cell = ahead
            found.append((cell, f"egress {index} at ({row}, {col})", None, side))
        return found

    def outer_spot(self, cell, source: str, why: str | None, side: str | None = None):
        """Where the Start for ``cell`` goes: the middle of an outer edge of the cell (``side``
        if given, else the side facing away from a dead end's only way on, else the first of
        north, east, south, west), else of the nearest outer edge of its area, else of the
        dungeon. Returns ``((x, y), area)``."""
        area = self.area_of[cell]
        own = self.outer_edges.get(cell)
        if own:
            if side not in own:
                ways = [s for dr, dc, s in _NEIGHBOURS if (cell[0] + dr, cell[1] + dc) in self.area_of]
                side = _OPPOSITE.get(ways[0]) if len(ways) == 1 else None
            if why:
                self.note(source, why)
            return own.get(side) or next(iter(own.values())), area
        cy, cx = cell[0] + 0.5, cell[1] + 0.5
        by_area = self.__dict__.setdefault("_outer_by_area", {})
        if not by_area:
            grouped: dict = {None: []}
            for c, points in self.outer_edges.items():
                for p in points.values():
                    grouped.setdefault(self.area_of[c], []).append(p)
                    grouped[None].append(p)
            by_area.update({key: np.array(points, dtype=float).reshape(-1, 2) for key, points in grouped.items()})
        edges = by_area.get(area)
        where = f"its {self.area_kind[area]} '{area}'"
        if edges is None or not len(edges):
            edges = by_area[None]
            where = "the dungeon"
        if not len(edges):
            self.note(source, "the dungeon has no outer wall to put a Start on; no Start placed")
            return None
        # nearest to the cell's centre; ties to the topmost, then leftmost
        distance = np.round((edges[:, 0] - cx) ** 2 + (edges[:, 1] - cy) ** 2, 9)
        order = np.lexsort((edges[:, 0], edges[:, 1], distance))
        x, y = float(edges[order[0], 0]), float(edges[order[0], 1])
        area = self.area_of[self.cell_behind((x, y))]
        if why:
            self.note(source, why)
        else:
            self.cell_note("stairs or egress inside the dungeon, their Start on the nearest outer edge", source,
                           f"lies inside the dungeon, and a Start goes on an outer wall: the Start is on the "
                           f"nearest outer edge of {where}", "stairs or egress")
        return (x, y), area

    def find_outer_edges(self) -> dict:
        """For each dungeon cell with an outer wall, the middles of its edges that face rock
        outside the dungeon, by side."""
        found: dict = {}
        for (r, c) in sorted(self.area_of):
            for dr, dc, side in _NEIGHBOURS:
                if (r + dr, c + dc) in self.outer:
                    (x1, y1), (x2, y2) = _edge(r, c, side)
                    found.setdefault((r, c), {})[side] = ((x1 + x2) / 2, (y1 + y2) / 2)
        return found

    def cell_behind(self, point) -> tuple[int, int]:
        """The dungeon cell with an outer edge whose middle is ``point``."""
        x, y = point
        fx, fy = math.floor(x), math.floor(y)
        for cell in ((fy, fx), (fy - 1, fx), (fy, fx - 1)):
            if point in self.outer_edges.get(cell, {}).values():
                return cell
        raise ImportFailed("internal error: a Start is on no cell's outer edge")

    def clearance(self, cell) -> float:
        """How far the centre of ``cell`` is from its area's outline, in cells (at most 1.5)."""
        area = self.area_of[cell]
        ring = [self.area_of.get(n) == area for n in _ring_cells(cell)]
        if not all(ring[0::2]):
            return 0.5
        return 1.5 if all(ring) else math.sqrt(0.5)

    def report_unreachable(self) -> None:
        """One note for each part of the dungeon that no Start reaches, even through doors."""
        if not self.start_areas:
            return
        reached = self.reachable(through_doors=True)
        left = [cell for cell in sorted(self.area_of) if self.area_of[cell] not in reached]
        seen_areas: set = set()
        for cell in left:
            area = self.area_of[cell]
            if area in seen_areas:
                continue
            group = set()
            queue = deque([area])
            while queue:  # the areas joined to this one
                current = queue.popleft()
                if current in group:
                    continue
                group.add(current)
                for r, c in self.area_cells[current]:
                    for dr, dc, _ in _NEIGHBOURS:
                        other = self.area_of.get((r + dr, c + dc))
                        if other is not None and other not in group:
                            queue.append(other)
            seen_areas |= group
            names = sorted(group)
            listed = ", ".join(f"'{a}'" for a in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            self.cell_note("parts of the dungeon no Start reaches", f"cells from {self.grid.name(*cell)}",
                           f"not connected to any stairs up or egress: {listed} cannot be reached from a Start",
                           "parts")

    def make_exits(self) -> None:
        down = self.stair_cells["down"]
        placed = np.zeros((len(self.obstacles) + len(down), 3))  # Starts, then the exits so far
        placed[:len(self.obstacles)] = np.array(self.obstacles, dtype=float).reshape(-1, 3)
        count = len(self.obstacles)
        for number, cell in enumerate(down, 1):
            r, c = cell
            centre = (c + 0.5, r + 0.5)
            others = placed[:count]
            gaps = np.hypot(others[:, 0] - centre[0], others[:, 1] - centre[1]) - others[:, 2]
            room = min(self.clearance(cell), float(gaps.min()) if count else math.inf)
            size = max(MIN_ELEMENT_MM, min(default_size_mm("exit"), 2 * 0.9 * room * self.scale))
            if size / 2 / self.scale > room:
                self.note(f"{self.grid.name(r, c)} stairs down", "no room for its exit: it overlaps a Start or "
                                                                 "another exit")
            self.builder.add_element("exit", centre, f"exit-{number}", size_mm=round(size, 2))
            self.obstacles.append((centre[0], centre[1], size / 2 / self.scale))
            placed[count] = self.obstacles[-1]
            count += 1

    # --- labels -------------------------------------------------------------------------------
    def make_labels(self) -> None:
        mask, shift = self.bits["label"], _shift(self.bits["label"])
        if not mask:
            return
        height = max(MIN_TEXT_MM, min(3.0, 0.55 * self.scale))
        runs: list[list] = []
        grid = self.grid
        for r, row in enumerate(grid.values):
            for c, value in enumerate(row):
                code = (value & mask) >> shift
                if not code:
                    continue
                if not 32 < code < 127:
                    self.cell_note("label characters that are not printable", grid.name(r, c),
                                   f"label character code {code} is not a printable ASCII character; not printed")
                    continue
                last = runs[-1] if runs else None
                if last and last[0] == r and last[2] == c and self.area_of.get((r, c)) == self.area_of.get((r, c - 1)):
                    last[2] = c + 1
                    last[3] += chr(code)
                else:
                    runs.append([r, c, c + 1, chr(code)])
        for r, c0, c1, text in runs:
            x, y = (c0 + c1) / 2, r + 0.5 + 0.5 * height / self.scale
            self.builder.add_label(text, (x, y), f"label-{r - grid.off_r}-{c0 - grid.off_c}",
                                   text_height_mm=round(height, 2))
            width = 0.62 * height * len(text) / self.scale
            self.obstacles.append((x, r + 0.5, max(width, height / self.scale) / 2 + 0.1))

    # --- keys ---------------------------------------------------------------------------------
    def reachable(self, through_doors: bool = False) -> set[str]:
        """Areas reachable from the Starts through open passages (no door passed), or through
        doors too (every key is placed where it can be reached without passing a door)."""
        return self.reach_order(through_doors)[1]

    def reach_order(self, through_doors: bool) -> tuple[list[str], set[str]]:
        """The areas reachable from the Starts, breadth-first, and as a set (computed once)."""
        cache = self.__dict__.setdefault("_reach", {})
        if through_doors in cache:
            return cache[through_doors]
        links: dict[str, set] = {area: set() for area in self.area_cells}
        for (r, c), area in self.area_of.items():
            for dr, dc in ((0, 1), (1, 0)):
                other = self.area_of.get((r + dr, c + dc))
                if other is not None and other != area and (
                        through_doors or frozenset(((r, c), (r + dr, c + dc))) not in self.closed_edges):
                    links[area].add(other)
                    links[other].add(area)
        seen = set(self.start_areas)
        queue = deque(sorted(seen))
        order = []
        while queue:
            area = queue.popleft()
            order.append(area)
            for other in sorted(links[area]):
                if other not in seen:
                    seen.add(other)
                    queue.append(other)
        cache[through_doors] = (order, seen)
        return cache[through_doors]

    def place_keys(self) -> None:
        if not self.locks_needed:
            return
        order = self.reach_order(False)[0]
        candidates = sorted(order, key=lambda a: self.area_kind[a] != "room")  # rooms first, nearest first
        if not candidates:
            candidates = sorted(self.area_cells, key=lambda a: (self.area_kind[a] != "room", a))
        colours = [c for c in ("red", "green") if c in self.locks_needed]
        if "skeleton" in self.locks_needed and not colours:
            colours = ["red"]  # a skeleton lock takes any key: give the players one
        for colour in colours:
            self._obstacle_array = np.array(self.obstacles, dtype=float).reshape(-1, 3)
            spot = None
            for area in candidates[:MAX_KEY_AREAS]:
                spot = self.free_spot(area)
                if spot:
                    break
            if spot is None:
                for door in self.locks_needed.get(colour, []) + self.locks_needed.get("skeleton", []):
                    self.note(f"{door[0]} {door[1]}", f"no room has space for its {colour} key; the door can never "
                                                      f"be opened")
                continue
            (x, y), size, area = spot
            self.builder.add_element("key", (x, y), f"key-{colour}", size_mm=round(size, 2), colour=colour)
            self.obstacles.append((x, y, size / 2 / self.scale))
            where = f"{self.area_kind[area]} '{area}'"
            behind = "" if area in self.reachable() else " (no room is reachable from a Start without a door)"
            for source, label, door_id, _room in self.locks_needed.get(colour, []):
                self.note(f"{source} {label}", f"door '{door_id}' with a {colour} lock; its {colour} key is placed in "
                                               f"{where}{behind}")
            if colour == colours[0]:
                for source, label, door_id, _room in self.locks_needed.get("skeleton", []):
                    self.note(f"{source} {label}", f"door '{door_id}' with a skeleton lock (any key opens it; a "
                                                   f"printed door cannot be hidden); the {colour} key is placed in "
                                                   f"{where}{behind}")

    def free_spot(self, area: str):
        """A spot for a key in ``area``: ``((x, y), size_mm, area)`` clear of the outline and of
        everything placed, the biggest size first; ``None`` when nothing fits."""
        polygon = self.polygons[area]
        x0, y0, x1, y1 = polygon.bounds
        if min(x1 - x0, y1 - y0) < MIN_ELEMENT_MM / self.scale + 0.04:
            return None  # not even the smallest key fits across it
        spots = np.array(_spots(self.area_cells[area]), dtype=float)
        inside = shapely.contains_xy(polygon, spots[:, 0], spots[:, 1])
        spots = spots[inside]
        if not len(spots):
            return None
        clearance = shapely.distance(polygon.exterior, point_array(spots))
        others = self._obstacle_array
        if len(others):  # only those near the area matter
            x0, y0, x1, y1 = polygon.bounds
            near = ((others[:, 0] + others[:, 2] > x0 - 1) & (others[:, 0] - others[:, 2] < x1 + 1)
                    & (others[:, 1] + others[:, 2] > y0 - 1) & (others[:, 1] - others[:, 2] < y1 + 1))
            others = others[near]
        if len(others):
            # distance from each spot to the nearest obstacle's edge
            reach = np.full(len(spots), np.inf)
            for start in range(0, len(others), 256):
                chunk = others[start:start + 256]
                gaps = (np.hypot(spots[:, None, 0] - chunk[None, :, 0], spots[:, None, 1] - chunk[None, :, 1])
                        - chunk[None, :, 2])
                reach = np.minimum(reach, gaps.min(axis=1))
        else:
            reach = np.full(len(spots), 10.0)
        wanted = default_size_mm("key")
        for size in (wanted, min(wanted, 0.8 * self.scale), MIN_ELEMENT_MM):
            radius = size / 2 / self.scale
            gap = reach - radius
            fits = (clearance >= radius + 0.02) & (gap >= 0.15)
            if not fits.any():
                continue
            # clear of the others first, then central; ties go to the first spot (top-left)
            score = np.round(np.minimum(gap, 0.6), 6) * 1000 + np.round(clearance, 6)
            score[~fits] = -np.inf
            best = int(np.argmax(score))
            return (float(spots[best, 0]), float(spots[best, 1])), size, area
        return None

    # --- what is not mapped ---------------------------------------------------------------------
    def report_unmapped(self) -> None:
        rooms = self.data.get("rooms")
        listed = set()
        if isinstance(rooms, dict):
            rooms = list(rooms.values())
        if rooms is not None and not isinstance(rooms, list):
            self.note("rooms", "not a list of rooms; ignored (the rooms come from the cells)")
            rooms = []
        for index, room in enumerate(rooms or []):
            if room is None:
                if index:
                    self.note(f"rooms {index}", "null; ignored")
                continue
            if not isinstance(room, dict):
                self.note(f"rooms {index}", "not an object; ignored")
                continue
            room_id = _int(room.get("id"))
            if room_id is None:
                self.note(f"rooms {index}", "has no room id; ignored")
                continue
            listed.add(room_id)
            if room_id not in self.room_areas:
                self.note(f"room {room_id}", "listed in 'rooms' but no cell carries its id; not imported")
                continue
            contents = room.get("contents")
            summary = contents.get("summary") if isinstance(contents, dict) else contents
            text = str(summary).strip() if isinstance(summary, (str, int, float)) else ""
            if text and text.lower() != "empty":
                self.note(f"room {room_id}", f"its contents are not mapped: {_text(summary)}")
        if rooms:
            for room_id in sorted(set(self.room_areas) - listed - {0}):
                self.note(f"room {room_id}", "has cells but is not listed in 'rooms'; imported from the cells")
        features = self.data.get("corridor_features")
        if isinstance(features, dict):
            features = list(features.values())
        if isinstance(features, list):
            for index, feature in enumerate(features[:1000]):
                if isinstance(feature, dict):
                    key = _text(feature.get("key", index), 10)
                    summary = feature.get("summary") or feature.get("detail") or "a feature"
                    self.note(f"corridor feature {key}", f"not mapped: {_text(summary)} (its letter is printed as a "
                                                         f"label when the cells carry it)")
                else:
                    self.note(f"corridor feature {index}", "not mapped")
        monsters = self.data.get("wandering_monsters")
        if monsters:
            count = len(monsters) if isinstance(monsters, (dict, list)) else 1
            self.note("wandering_monsters", f"{count} wandering monster entr{'y is' if count == 1 else 'ies are'} "
                                            f"not mapped")
        details = self.data.get("details")
        if isinstance(details, dict) and any(details.values()):
            parts = ", ".join(sorted(str(k) for k, v in details.items() if v))
            self.note("details", f"the dungeon's description ({_text(parts, 200)}) is not mapped")


IMPORTER = DonjonImporter()


# --- grid helpers -----------------------------------------------------------------------------
def _edge(r: int, c: int, side: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The ``side`` edge of cell ``(r, c)`` as ``((x1, y1), (x2, y2))`` in cell units."""
    if side == "north":
        return (float(c), float(r)), (float(c + 1), float(r))
    if side == "south":
        return (float(c), float(r + 1)), (float(c + 1), float(r + 1))
    if side == "west":
        return (float(c), float(r)), (float(c), float(r + 1))
    return (float(c + 1), float(r)), (float(c + 1), float(r + 1))


def _row_runs(cells) -> np.ndarray:
    """The runs of consecutive cells in each row, as rows ``(row, first column, last column + 1)``."""
    runs: list[list[int]] = []
    for r, c in sorted(cells):
        if runs and runs[-1][0] == r and runs[-1][2] == c:
            runs[-1][2] = c + 1
        else:
            runs.append([r, c, c + 1])
    return np.array(runs, dtype=float)


def _components(cells: set) -> list[list]:
    """4-connected components of ``cells``, each sorted, in order of their first cell."""
    left = set(cells)
    found = []
    for start in sorted(cells):
        if start not in left:
            continue
        left.discard(start)
        part, queue = [start], deque([start])
        while queue:
            r, c = queue.popleft()
            for dr, dc, _ in _NEIGHBOURS:
                cell = (r + dr, c + dc)
                if cell in left:
                    left.discard(cell)
                    part.append(cell)
                    queue.append(cell)
        found.append(sorted(part))
    return found


def _simple_pieces(component: list) -> list[list]:
    """Split a 4-connected set of cells into pieces whose union is a simple polygon (no hole,
    no two cells meeting only at a corner), growing each piece breadth-first and adding a cell
    only when its 8 neighbours inside the piece form one unbroken run (a "simple point")."""
    left = set(component)
    pieces = []
    for seed in sorted(component):
        if seed not in left:
            continue
        left.discard(seed)
        piece = {seed}
        queue = deque([seed])
        while queue:
            r, c = queue.popleft()
            for dr, dc, _ in _NEIGHBOURS:
                cell = (r + dr, c + dc)
                if cell in left and _can_add(cell, piece):
                    left.discard(cell)
                    piece.add(cell)
                    queue.append(cell)
                    # neighbours refused earlier may fit now: look at the piece's border again
                    queue.extend(n for n in _ring_cells(cell) if n in piece)
        pieces.append(sorted(piece))
    return pieces


def _spots(cells) -> list[tuple[float, float]]:
    """Candidate element centres in an area of ``cells``: cell centres and cell corners."""
    found = set()
    for r, c in cells:
        found.add((c + 0.5, r + 0.5))
        found.update(((c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1)))
    return sorted(found, key=lambda p: (p[1], p[0]))


def _ring_cells(cell) -> list:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in _RING]


def _can_add(cell, piece: set) -> bool:
    ring = [n in piece for n in _ring_cells(cell)]
    for corner in (1, 3, 5, 7):  # a corner neighbour alone would pinch the outline at a point
        if ring[corner] and not ring[corner - 1] and not ring[(corner + 1) % 8]:
            return False
    runs = sum(1 for i in range(8) if ring[i] and not ring[i - 1])
    return runs == 1
