"""watabou One Page Dungeon JSON -> inkcrawl line dungeon (``inkcrawl import prison.json``).

The One Page Dungeon generator (watabou.itch.io) exports ``rects`` ``{x, y, w, h}`` in grid cells
(y down, negative and half-cell values allowed; flags ``rotunda`` and ``ending``), ``doors``
``{x, y, dir: {x, y}, type}`` (each door occupies the cell at ``x, y``; ``dir`` points from the
side nearer the entrance into the area the door leads to), ``notes`` ``{text, ref, pos}``,
``columns`` and ``water`` cell lists, a ``title`` and a ``story``. It has no walls: the walls are
the outline of the union of the rects.

Mapping (docs/importing-watabou.md says the same for users):

* **Areas.** Every door cell is cut out as an area of its own, a *doorway* (kind ``corridor``,
  id ``doorway-N`` after door N), whether the file lists it as a 1x1 rect (the usual case) or it
  lies inside a corridor rect. A rect whose shorter side is at most 1 cell is a corridor; any
  other rect is a room. Rects of one kind that overlap are merged into one area (rooms win over
  corridors where they overlap, reported); rects that only touch stay separate areas, and the
  stretch they share is an opening. An area with a hole is cut into simple polygons.
  ``rotunda`` rooms are imported as their square (reported); the ``ending`` flag has no
  inkcrawl counterpart (reported).
* **Walls** are implicit, as in inkcrawl: an area's outline is a wall where it touches no other
  area. Openings between areas follow from the shared edges.
* **Doors** by ``type``: 0 open, 1 door and 5 double door are open passages (the doorway touches
  the areas on both sides; inkcrawl has no closed-but-unlocked door); 2 narrow and 4 portcullis
  are open passages too, reported. 3 entrance: a Start at the middle of the doorway's outer edge
  (the side ``dir`` comes from, else another outer edge of the cell). 6 secret: a door locked with
  ``skeleton`` (any key opens it: the secret must be found), on the doorway's edge towards the
  area ``dir`` points to. 7 steel: a door locked ``red`` (the ruleset's first colour if it has no
  red) on the same edge. 8 stairs down and 9 stairwell: when the stairs lead off the map (an area
  on one side only) an ``exit`` in the doorway (end trigger ``exit_reached``); when they join two
  areas, an open passage (reported). Unknown types are open passages (reported).
* **Starts** must be on the outer boundary. An entrance that opens onto a courtyard (a space the
  dungeon encloses) gets its Start on the nearest outer wall, counted in areas walked from the
  entrance (not through secret or steel doorways), preferring a side longer than a stub beside a
  doorway (reported). Without an entrance, the first room's outer wall gets one (reported).
* **Keys.** Locked doors are taken in the order the Starts reach them, coloured locks first. A
  steel door gets a red key unless one is reachable already; a secret door gets a skeleton key
  unless some key is reachable already. The key goes in an area reachable without that door:
  rooms before corridors, rooms without a key first, then rooms whose note mentions a key, then
  the room farthest from the Start; clear of the notes' planned labels if possible. Every
  placement is reported. A locked door that no Start reaches, or whose key fits nowhere, becomes
  an open passage (reported).
* **Notes** become labels (cap height 2 mm) centred on ``pos`` (half cells fine) in the area
  holding it, wrapped to the width of the area there, moved just enough to stay inside, and
  shortened at a word with "..." when they do not fit, keeping at least a third of the text
  (reported with the full text); otherwise the ``ref`` alone, its text in the key on the sheet
  (the reminders), or only in the key when not even the ref fits (reported): no note is lost. A
  note outside every area goes to the nearest area (reported).
* **Columns and water** have no inkcrawl counterpart (no decoration element; they are not
  obstacles for the line): one report each, with the count and the areas they lie in.
* **Title** from ``title`` (else the file name); the **story** becomes the sheet's reminder,
  shortened to 300 characters at a word (reported when shortened).
* **Scale**: ``--cell-mm`` per cell, default 10 mm, shrunk to fit the drawing band of an A4
  sheet (reported only when the requested size was shrunk).
* Areas no Start reaches (validation warning L020) and locked doors their doorway can walk
  around (L009) are reported too, so each validation warning of the result is explained.

Everything that could not be mapped or was repaired is an import note naming the source object
(``door 7 at (6, -6) type 6``). Malformed input (not JSON, no ``rects`` list, non-numeric or
non-finite coordinates, more than :data:`MAX_RECTS` rects...) raises :class:`ImportFailed`.

The package: :mod:`.source` reads the file into source objects; :mod:`.areas` turns rects
and door cells into areas and answers spatial questions; :mod:`.text` shortens and wraps
text; :class:`~.conversion._Conversion` places doors, Starts and exits (:mod:`.doors`), note
labels (:mod:`.labels`) and keys (:mod:`.keys`) on the state of :mod:`.state`. This module is
the plugin.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import shapely

from inkcrawl.importers import ImportFailed, ImportOptions, ImportResult
from inkcrawl.importers.watabou.conversion import _Conversion


class WatabouImporter:
    """The watabou One Page Dungeon importer plugin."""

    name = "watabou"
    description = "watabou One Page Dungeon JSON"

    def detect(self, path: Path, head: bytes) -> bool:
        """A JSON object with ``rects`` and ``doors`` lists."""
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not text.startswith(b"{"):
            return False
        try:
            data = json.loads(head.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            # cut at 64 KiB, or broken: look for both lists (only the rects when the head is cut
            # inside a long rects list)
            rects = re.search(rb'"rects"\s*:\s*\[\s*(\{\s*"[xywh]"|\])', head)
            doors = re.search(rb'"doors"\s*:\s*\[', head)
            return bool(rects and (doors or len(head) >= 65536))
        return isinstance(data, dict) and isinstance(data.get("rects"), list) and isinstance(data.get("doors"), list)

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        """Convert a One Page Dungeon JSON file (see the module docstring for the mapping)."""
        from inkcrawl.importers import ImportNote

        conversion = _Conversion(path, options)
        try:
            builder = conversion.run()
        except (shapely.errors.GEOSException, ValueError) as exc:
            if isinstance(exc, ImportFailed):
                raise
            raise ImportFailed(f"the geometry could not be built ({type(exc).__name__}: {exc})"[:300]) from None
        dungeon = builder.build(cell_mm=conversion.scale)
        notes = [ImportNote(source, message) for source, message in conversion.notes] + builder.notes
        return ImportResult(dungeon, notes)


IMPORTER = WatabouImporter()
