"""Tiled maps (TMX and JSON, from the old eras to today) -> inkcrawl dungeons.

Tiled has no notion of rooms or monsters: a map holds layers of tiles, images and objects, and
each object has a *class* (``type`` before Tiled 1.9 and again from 1.10, ``class`` in 1.9).
This importer reads the object layers and turns each object into a dungeon part through a
mapping of class names to element kinds (:data:`LINE_CLASSES` and :data:`GRID_CLASSES`,
overridable with ``inkcrawl import --map FILE``). docs/importing-tiled.md documents the mapping,
the properties each kind reads, the coordinate rules and every note.

What it handles: TMX (XML, parsed with entity expansion and external references refused) and
JSON (``.json``/``.tmj``); ``type`` and ``class``; the property list (Tiled 1.2+) and the old
property map with ``propertytypes``; ``version`` as number or string; rectangles, ellipses,
points, polygons, polylines, text and tile objects, rotated about their top-left corner (tile
objects: bottom-left); layer offsets added up through group layers; external tilesets and
templates read when present and reported when missing; duplicate or missing object ids
renumbered and reported; objects wholly outside the map skipped (the one edge rule).

Coordinates: pixels / tile size = cells, and cells * ``cell_mm`` (default 5 mm, shrunk to fit
the A4 drawing band) on the sheet. A map written by ``inkcrawl export tiled`` (map property
``inkcrawl_format_version``) is read back at its exact place in millimetres instead, unless
``--cell-mm`` is given.

The package: :mod:`.files` reads the files (TMX, TSX, templates, JSON) safely and turns TMX into
the JSON structure; :mod:`.properties` reads property values and numbers; :mod:`.mapping` holds
the class mappings and the ``--map`` file; :mod:`.objects` walks the layers into
:class:`~.objects.MapObject` objects; :mod:`.line` and :mod:`.grid` build the dungeon of each
family; :mod:`.sheet` reads the sheet of a map written by inkcrawl. This module is the plugin.
"""

from __future__ import annotations

import re
from pathlib import Path

from inkcrawl.importers import ImportFailed, ImportOptions, ImportResult
from inkcrawl.importers.tiled.files import MAX_FILE_BYTES, load_map
from inkcrawl.importers.tiled.grid import _build_grid
from inkcrawl.importers.tiled.line import _build_line
from inkcrawl.importers.tiled.objects import _Reader
from inkcrawl.importers.tiled.properties import version_number

NAME = "tiled"
#: Orientations refused: their tiles are offset rows or columns, no square grid.
OFFSET_ORIENTATIONS = ("staggered", "hexagonal")


# ------------------------------------------------------------------------------------------
# the plugin


class TiledImporter:
    """Tiled maps: TMX (XML) and JSON (.tmj/.json), every era."""

    name = NAME
    description = "Tiled map, TMX or JSON"

    def detect(self, path: Path, head: bytes) -> bool:
        stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if stripped.startswith(b"<"):
            # the root element; or, when a long prolog hides it, a document type naming it
            # (<!DOCTYPE map [...]>) or the file's own extension: an XML bomb's entity
            # declarations come before its root, and convert refuses them by name
            return bool(
                re.search(rb"<(map|tileset)[\s>/]", stripped)
                or re.search(rb"<!DOCTYPE\s+(map|tileset)[\s\[>]", stripped)
                or path.suffix.lower() in (".tmx", ".tsx")
            )
        if not stripped.startswith(b"{"):
            return False
        if _looks_like_tiled_json(head):
            return True
        if len(head) < 65536 or b'"layers"' not in head:
            return False
        # Tiled writes its keys in alphabetical order: 'orientation' and 'tiledversion' come after
        # 'layers', which can be far longer than the head; look through the rest of the file
        try:
            with path.open("rb") as handle:
                whole = handle.read(MAX_FILE_BYTES)
        except OSError:
            return False
        return _looks_like_tiled_json(whole)

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        data = load_map(path)
        if data.get("orientation") in OFFSET_ORIENTATIONS:
            raise ImportFailed(
                f"a {data['orientation']} map: its rows or columns of tiles are offset from one another, so "
                "they form no square grid, and its objects are placed in that drawing; inkcrawl imports "
                "orthogonal and isometric maps only. In Tiled, set Map > Map Properties > Orientation to "
                "Orthogonal, check the layout, save and import again"
            )
        try:
            reader = _Reader(path, data, options)
            orientation = data.get("orientation", "orthogonal")
            if orientation == "isometric":
                reader.note(
                    "the map",
                    "isometric: read on its tile grid, each diamond tile a square cell (the sheet is drawn from "
                    "above, not in Tiled's diamond view); tile and text objects stand at their anchor point",
                )
            elif orientation != "orthogonal":
                reader.note(
                    "the map", f"orientation {str(orientation)[:20]!r}: object positions are read as orthogonal pixels"
                )
            version = data.get("version")
            if version is not None and version_number(version) >= 2:
                reader.note(
                    "the map",
                    f"format version {str(version)[:20]!r} is newer than this importer knows (1.x); read as a 1.x map",
                )
            reader.read_tilesets()
            reader.walk(data.get("layers"), 0.0, 0.0, "", 0)
            reader.number_objects()
            reader.edge_rule()
            if reader.exact:  # our own export numbered the objects in the dungeon's order
                reader.objects.sort(key=lambda o: o.id)
            dungeon = _build_grid(reader) if reader.family == "grid" else _build_line(reader)
        except ImportFailed:
            raise
        except RecursionError:
            raise ImportFailed("the map is nested too deeply") from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
            raise ImportFailed(f"not a readable Tiled map ({type(exc).__name__}: {exc})"[:300]) from None
        return ImportResult(dungeon, reader.notes)


def _looks_like_tiled_json(text: bytes) -> bool:
    """Whether JSON text holds the keys of a Tiled map: 'tiledversion' (Tiled 1.0+), or
    'orientation', 'layers' and 'tilewidth' (every era)."""
    if b'"tiledversion"' in text:
        return True
    return b'"orientation"' in text and b'"layers"' in text and b'"tilewidth"' in text


IMPORTER = TiledImporter()
