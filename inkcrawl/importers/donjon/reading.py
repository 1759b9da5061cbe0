"""The first step of a conversion: the builder and its notes (per-cell notes capped), the cell
bits, the grid of cells, and where donjon's cell (0, 0) is in it (the bleed)."""

from __future__ import annotations

from pathlib import Path

from inkcrawl.importers import ImportFailed, ImportOptions
from inkcrawl.importers.build import LineDungeonBuilder, safe_id
from inkcrawl.importers.donjon.cells import (
    BIT_ALIASES,
    DEFAULT_BITS,
    MAX_CELL_NOTES,
    MAX_CELLS,
    MAX_SIDE,
    _Grid,
    _int,
    _text,
)


class _Reading:
    """Reading the file; the later steps (:mod:`.areas`, :mod:`.starts`, :mod:`.conversion`)
    subclass it."""

    # set by _Conversion.run
    bits: dict[str, int]
    grid: _Grid
    scale: float
    outer: set
    outer_edges: dict
    map_size: tuple[int, int]  # rows and columns of donjon's map, without the bleed padding

    def __init__(self, path: Path, data: dict, options: ImportOptions):
        self.data = data
        self.options = options
        settings = data.get("settings")
        self.settings = settings if isinstance(settings, dict) else {}
        title = self.settings.get("name")
        title = _text(title, 120) if isinstance(title, (str, int, float)) and not isinstance(title, bool) else ""
        self.builder = LineDungeonBuilder(
            dungeon_id=safe_id(path.stem, "donjon"), title=title or path.stem, ruleset=options.ruleset or "line-classic"
        )
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
            if number is None or not 0 <= number < 2**32:
                self.note(
                    f"cell_bit {_text(key, 30)}",
                    f"value {_text(value, 30)!s} is not a 32-bit mask; donjon's "
                    f"standard value {DEFAULT_BITS[name]} is used",
                )
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
            raise ImportFailed(
                f"the grid of {len(cells)} x {width} cells is larger than inkcrawl imports "
                f"(at most {MAX_SIDE} per side and {MAX_CELLS} in all)"
            )
        off_r, off_c = self.offsets(len(cells), width)
        grid = _Grid([], off_r, off_c)
        for r, row in enumerate(cells):
            values = []
            for c, value in enumerate(row):
                number = _int(value)
                if number is None or not 0 <= number < 2**32:
                    grid_name = f"cell ({r - off_r}, {c - off_c})"
                    self.cell_note(
                        "cell values that are not cell numbers",
                        grid_name,
                        f"value {_text(value, 30)} is not a cell number (a whole number from 0 to "
                        f"2^32 - 1); read as rock",
                    )
                    number = 0
                values.append(number)
            if len(values) < width:
                self.note(
                    f"cells row {r - off_r}", f"has {len(values)} cells, the longest row {width}; filled with rock"
                )
                values += [0] * (width - len(values))
            grid.values.append(values)
        grid.rows, grid.cols = len(grid.values), width
        return grid

    def on_the_map(self, r: int, c: int) -> bool:
        """Whether stored cell ``(r, c)`` is on donjon's map, not in the ``bleed`` padding around it
        (where only corridors leaving the map, the egress, run)."""
        rows, cols = self.map_size
        return 0 <= r - self.grid.off_r < rows and 0 <= c - self.grid.off_c < cols

    def offsets(self, rows: int, cols: int) -> tuple[int, int]:
        """Where donjon's cell (0, 0) is in the stored grid: ``bleed`` cells of padding on every
        side when the grid is that much larger than ``n_rows`` x ``n_cols``."""
        raw = self.settings.get("bleed")
        bleed = _int(raw) if raw is not None else 0
        if bleed is None or bleed < 0:
            self.note("settings bleed", f"{_text(raw, 30)} is not a number of cells; read as 0")
            bleed = 0
        result = []
        sizes = []
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
                    sizes.append(count)
                else:
                    result.append(bleed)
                    sizes.append(count - 2 * bleed)
            elif count == n + 2 * bleed:
                result.append(bleed)
                sizes.append(n)
            elif count == n:
                if bleed:
                    self.note(
                        "settings bleed",
                        f"the grid has {count} {key[2:]}, exactly {key} = {n}: it carries no "
                        f"padding, so bleed {bleed} is not applied",
                    )
                result.append(0)
                sizes.append(n)
            else:
                guess = max(0, (count - n) // 2)
                self.note(
                    f"settings {key}",
                    f"the grid has {count} {key[2:]}, not {key} + 2 x bleed = "
                    f"{n + 2 * bleed}; read with {guess} cells of padding",
                )
                result.append(guess)
                sizes.append(min(n, count - guess))
        self.map_size = (sizes[0], sizes[1])
        return result[0], result[1]
