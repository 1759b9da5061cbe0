"""Cells and their values: donjon's cell bits, the import's limits and sizes, numbers read
from JSON numbers or strings of digits, the decoded grid (:class:`_Grid`), and grid helpers
(cell edges, row runs, connected and simply connected pieces, spots for elements)."""

from __future__ import annotations

import math
import re
from collections import deque

import numpy as np

#: Cell bits of donjon's generator, used when the file's ``cell_bit`` lacks one.
DEFAULT_BITS = {
    "blocked": 0x1,
    "room": 0x2,
    "corridor": 0x4,
    "perimeter": 0x10,
    "aperture": 0x20,
    "room_id": 0xFFC0,
    "arch": 0x10000,
    "door": 0x20000,
    "locked": 0x40000,
    "trapped": 0x80000,
    "secret": 0x100000,
    "portcullis": 0x200000,
    "stair_down": 0x400000,
    "stair_up": 0x800000,
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
        return value if abs(value) < 2**53 else None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() and abs(value) < 2**53 else None
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
