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
  at the map edge; their cells in the bleed padding are off the map, not imported): a Start on
  an outer wall of that cell, else on the outer edge of its area nearest along it, else the
  nearest along open passages (reported), never over a label. Without either, one Start on the
  outer wall nearest the first room.
  Starts that would overlap are merged, and parts no Start reaches are reported.
- Label characters: text labels (the room numbers, corridor feature letters).
- Room contents, corridor features, wandering monsters and details are reported, not mapped.

Numbers may be JSON numbers or strings of digits anywhere. Cell values that are not numbers
are read as rock, with a note. Malformed or oversized input raises :class:`ImportFailed`.

The package: :mod:`.cells` holds the cell bits, limits, number reading and grid helpers; the
conversion is built in steps, each a class on the one before: :mod:`.reading` (bits, cells,
bleed), :mod:`.areas` (areas and doors), :mod:`.starts` (Starts, exits, what they reach) and
:mod:`.conversion` (labels, keys, what is not mapped, and ``run``). This module is the
plugin.
"""

from __future__ import annotations

import re
from pathlib import Path

from inkcrawl.importers import ImportFailed, ImportOptions, ImportResult, json_kind
from inkcrawl.importers.donjon.conversion import _Conversion
from inkcrawl.jsonio import MAX_FILE_BYTES, read_json_file


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


IMPORTER = DonjonImporter()
