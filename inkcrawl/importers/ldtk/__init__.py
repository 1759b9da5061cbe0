"""LDtk projects (``.ldtk``, every era from 0.x to 1.x) -> inkcrawl dungeons.

LDtk keeps definitions (``defs``: layers, entities, enums) apart from the levels that use them.
One import makes one dungeon from one level (``--level NAME``; the first by default, the others
named in a warning): its IntGrid layers give the floor (each value a wall, a room's floor, a
corridor's floor or nothing: :mod:`.intgrid`), its entities give the elements through the same
class mapping as Tiled objects (the entity's identifier is its class, its fields are its
properties, ``--map`` overrides both: :mod:`.entities`); in a line dungeon its Starts go on the
outer wall, and a level without one gets one (:mod:`.starts`). A project saved with separate level
files (``externalLevels``) has its levels read from their ``.ldtkl`` files inside the project's
folder (:mod:`.project`). docs/importing-ldtk.md documents the rules and every note.

Coordinates: level pixels / ``defaultGridSize`` = cells; cells x ``cell_mm`` (default 5 mm, shrunk
to fit the A4 drawing band) on the sheet, as for Tiled maps.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inkcrawl.checks.line import label_bounds
from inkcrawl.importers import ImportFailed, ImportNote, ImportOptions, ImportResult, MappingFailed, json_kind
from inkcrawl.importers.build import safe_id
from inkcrawl.importers.ldtk.entities import LevelObject, LevelReader, entity_objects, floor_object
from inkcrawl.importers.ldtk.intgrid import (
    IntGridLayer,
    combined_grid,
    cut_doorway,
    floor_areas,
    floor_codes,
    narrow_passages,
    read_layer,
    user_roles,
)
from inkcrawl.importers.ldtk.project import Level, choose_level, level_layers, load_project, project_levels
from inkcrawl.importers.ldtk.starts import place_starts
from inkcrawl.importers.tiled.grid import _build_grid
from inkcrawl.importers.tiled.line import _build_line
from inkcrawl.model import LineDungeon, dungeon_from_dict

NAME = "ldtk"
#: The grid cell (pixels) of a project that names none.
DEFAULT_GRID_PX = 16


class LdtkImporter:
    """LDtk projects: levels, IntGrid layers as walls and floors, entities as elements."""

    name = NAME
    description = "LDtk project (.ldtk): IntGrid walls and floors, entities"

    def detect(self, path: Path, head: bytes) -> bool:
        stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not stripped.startswith(b"{"):
            return False
        if b'"jsonVersion"' in head and (b'"defs"' in head or b'"levels"' in head or b'"__header__"' in head):
            return True
        return bool(re.search(rb'"app"\s*:\s*"LDtk"', head[:4096]))

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        notes: list[ImportNote] = []

        def note(source: str, message: str) -> None:
            notes.append(ImportNote(source, message))

        project = load_project(path)
        with _readable():
            levels = project_levels(project, note)
            level = choose_level(levels, options.level, note)
            data = level_layers(path, level, levels, options.allowed_folders, note)
            dungeon, reader_notes = _convert_level(path, project, level, data, options)
        return ImportResult(dungeon, notes + reader_notes)

    def convert_levels(
        self, path: Path, options: ImportOptions
    ) -> tuple[list[ImportNote], list[tuple[Level, ImportResult | ImportFailed]]]:
        """Every level of the project (``inkcrawl import --level all``), each converted as
        :meth:`convert` converts one (``options.level`` is not read). Returns the notes on the
        project itself and, in file order, each level with its result, or with the
        :class:`ImportFailed` saying why it cannot be imported (its level file missing, no size,
        too many cells...). Raises :class:`ImportFailed` when the project cannot be read and
        :class:`MappingFailed` for a wrong mapping (the same for every level)."""
        notes: list[ImportNote] = []
        project = load_project(path)
        with _readable():
            levels = project_levels(project, lambda source, message: notes.append(ImportNote(source, message)))
        results: list[tuple[Level, ImportResult | ImportFailed]] = []
        for level in levels:
            try:
                with _readable():
                    data = level_layers(path, level, [], options.allowed_folders, lambda source, message: None)
                    dungeon, reader_notes = _convert_level(path, project, level, data, options)
            except MappingFailed:
                raise
            except ImportFailed as exc:
                results.append((level, exc))
                continue
            results.append((level, ImportResult(dungeon, reader_notes)))
        return notes, results


@contextmanager
def _readable() -> Iterator[None]:
    """Reading a project: what a malformed one raises in Python (a wrong type, a missing key, a
    too deep nesting) becomes :class:`ImportFailed` saying so."""
    try:
        yield
    except ImportFailed:
        raise
    except RecursionError:
        raise ImportFailed("the project is nested too deeply") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        raise ImportFailed(f"not a readable LDtk project ({type(exc).__name__}: {exc})"[:300]) from None


def _grid_px(project: dict) -> int:
    value = project.get("defaultGridSize")
    if type(value) is int and 1 <= value <= 4096:
        return value
    return DEFAULT_GRID_PX


def _size(data: dict, level: Level) -> tuple[int, int]:
    size = []
    for key in ("pxWid", "pxHei"):
        value = data.get(key)
        if type(value) is not int or not 1 <= value <= 1_000_000:
            raise ImportFailed(f"{level.describe()}: {key} is {value!r}, not a size in pixels (1 to 1,000,000)")
        size.append(value)
    return size[0], size[1]


def _layer_defs(project: dict) -> dict[Any, dict]:
    layers = (project.get("defs") or {}).get("layers")
    found: dict[Any, dict] = {}
    for item in layers if isinstance(layers, list) else []:
        if isinstance(item, dict):
            found.setdefault(item.get("uid"), item)
            found.setdefault(item.get("identifier"), item)
    return found


def _entity_defs(project: dict) -> dict[Any, dict]:
    entities = (project.get("defs") or {}).get("entities")
    found: dict[Any, dict] = {}
    for item in entities if isinstance(entities, list) else []:
        if isinstance(item, dict):
            found.setdefault(item.get("uid"), item)
            found.setdefault(item.get("identifier"), item)
    return found


def _level_fields(data: dict, reader: LevelReader, level: Level) -> None:
    """The level's own fields: a String field ``title`` titles the sheet (it becomes the map
    property the Tiled builder reads); the others are named in one note as ignored."""
    fields = data.get("fieldInstances")
    if not isinstance(fields, list):
        return
    ignored = []
    for item in fields:
        if not isinstance(item, dict) or not isinstance(item.get("__identifier"), str):
            continue
        name, value = item["__identifier"], item.get("__value")
        if name.strip().lower() == "title" and isinstance(value, str) and value.strip():
            reader.map_props["title"] = value.strip()
        elif value is not None:
            ignored.append(name)
    if ignored:
        reader.note(
            level.describe(),
            f"fields {', '.join(repr(n[:40]) for n in ignored[:20])} have no meaning for inkcrawl; ignored",
        )


def _convert_level(
    path: Path, project: dict, level: Level, data: dict, options: ImportOptions
) -> tuple[dict, list[ImportNote]]:
    """One level (``data``: the level with its ``layerInstances``) made a dungeon: the IntGrid
    layers drawn onto one grid, the floor found and cut into areas (line family), the entities
    made objects, all built by the Tiled importer's builders (sheet coordinates in mm, the level
    centred on A4). Returns the dungeon's data and the notes; :class:`ImportFailed` on a level
    that cannot be read (no size, no layers, too many cells or areas)."""
    family_wanted = (options.mapping or {}).get("family") if isinstance(options.mapping, dict) else None
    grid_family = family_wanted == "grid"
    size = _size(data, level)
    unit = _grid_px(project)
    roles = user_roles(options.mapping)
    reader = LevelReader(path, options, size, unit, grid_family)
    _level_fields(data, reader, level)
    layer_defs, entity_defs = _layer_defs(project), _entity_defs(project)
    instances = data.get("layerInstances")
    if not isinstance(instances, list):
        raise ImportFailed(f"{level.describe()} has no list of layers ('layerInstances' is {json_kind(instances)})")
    background = data.get("bgRelPath")
    if isinstance(background, str) and background:
        reader.note(level.describe(), f"its background image {background[:200]!r} is a picture; ignored")
    intgrids: list[IntGridLayer] = []
    entities: list[LevelObject] = []
    for index, instance in enumerate(instances, 1):
        if not isinstance(instance, dict):
            reader.note(f"layer {index} of {level.describe()}", f"is {json_kind(instance)}, not a layer; ignored")
            continue
        definition = layer_defs.get(instance.get("layerDefUid")) or layer_defs.get(instance.get("__identifier"))
        kind = instance.get("__type") or (definition or {}).get("type")
        name = str(instance.get("__identifier") or (definition or {}).get("identifier") or f"layer {index}")[:80]
        offset = (instance.get("__pxTotalOffsetX") or 0, instance.get("__pxTotalOffsetY") or 0)
        if kind == "IntGrid":
            layer = read_layer(instance, definition, reader.note)
            if layer is not None:
                intgrids.append(layer)
        elif kind == "Entities":
            if not all(type(v) in (int, float) for v in offset):
                reader.note(f"layer {name!r}", "its offset is not a number of pixels; read as 0")
                offset = (0, 0)
            entities += entity_objects(instance, name, offset, entity_defs, reader, len(entities) + 1)
        elif kind in ("Tiles", "AutoLayer"):
            tiles = sum(
                len(v) for v in (instance.get("gridTiles"), instance.get("autoLayerTiles")) if isinstance(v, list)
            )
            if tiles:
                reader.note(
                    f"{'tile' if kind == 'Tiles' else 'auto-layer'} layer {name!r}",
                    f"{tiles} tiles are pictures with no meaning for inkcrawl; ignored (walls and floors come "
                    "from IntGrid layers)",
                )
        else:
            reader.note(f"layer {name!r}", f"unknown layer type {str(kind)[:40]!r}; ignored")
    floors: list[LevelObject] = []
    if intgrids and grid_family:
        reader.note(
            "the level",
            f"IntGrid layers ({', '.join(repr(layer.name) for layer in intgrids)}) are not read for a grid "
            "dungeon: its rooms are the grid's cells; only entities are imported",
        )
    elif intgrids:
        codes, fine = combined_grid(intgrids, size, roles, reader.note)
        codes = floor_codes(codes, reader.note)
        codes = narrow_passages(codes, max(layer.grid_px for layer in intgrids) // fine, reader.note)
        _doorways(codes, fine, entities, reader)
        for number, (kind, points) in enumerate(floor_areas(codes, fine, reader.note), 1):
            floors.append(floor_object(kind, number, points))
    elif roles:
        reader.note("the mapping's intgrid", "the level has no IntGrid layer; ignored")
    if not intgrids and not grid_family:
        reader.note(
            "the level",
            "has no IntGrid layer: no walls or floors are imported (only entities mapped to rooms or corridors "
            "make areas)",
        )
    reader.objects = [*floors, *entities]
    reader.edge_rule()
    if reader.family == "grid":
        dungeon = _build_grid(reader)
    else:
        dungeon = _build_line(reader)
        place_starts(dungeon, reader.start_sources(), reader.note)
        _labels_on_paper(dungeon, reader.note)
    title = reader.map_props.get("title")
    if not (isinstance(title, str) and title):
        dungeon["sheet"]["title"] = level.name[:120]
    dungeon["id"] = safe_id(level.name, "level")
    return dungeon, reader.notes


def _labels_on_paper(dungeon: dict, note) -> None:
    """Each label whose text runs off the printable area (the paper less its margin, in mm),
    as a label at a level's edge often does once the level fills the sheet's width, moved just
    inside it (noted; validation would report L022). Text wider or taller than the printable
    area stays where it is."""
    built = dungeon_from_dict(dungeon)
    if not isinstance(built, LineDungeon):
        return
    x0, y0, x1, y1 = built.sheet.paper.printable
    for element, data in zip(built.elements, dungeon["elements"]):
        if element.kind != "label" or element.at is None:
            continue
        left, top, right, bottom = label_bounds(element)
        if right - left > x1 - x0 or bottom - top > y1 - y0:
            continue
        inset = 0.001  # rounded to 0.001 mm, the label stays inside
        dx = x0 + inset - left if left < x0 else x1 - inset - right if right > x1 else 0.0
        dy = y0 + inset - top if top < y0 else y1 - inset - bottom if bottom > y1 else 0.0
        if dx or dy:
            data["at"] = [round(element.at[0] + dx, 3), round(element.at[1] + dy, 3)]
            note(
                f"label {data['id']!r} ({str(data.get('text', ''))[:30]!r})",
                f"its text ran off the printable area; moved {math.hypot(dx, dy):.1f} mm inside it",
            )


def _doorways(codes, unit: int, entities: list[LevelObject], reader: LevelReader) -> None:
    """Each door entity (a box the mapping makes a door) standing on floor: the floor under it
    becomes a doorway of its own (:func:`.intgrid.cut_doorway`) and the door its side facing the
    passage, so that it stands between two areas as a door must; each such door is noted."""
    for obj in entities:
        if obj.shape != "rect" or reader.target(obj)[0] != "door":
            continue
        segment = cut_doorway(codes, unit, (obj.x, obj.y, obj.x + obj.width, obj.y + obj.height))
        if segment is None:
            continue
        obj.shape, obj.points = "polyline", [segment[0], segment[1]]
        reader.note(
            obj.describe(),
            "stands on the floor: the floor under it is made a doorway (a corridor of its own) and the door its "
            f"side facing the passage, from ({segment[0][0]:g}, {segment[0][1]:g}) to ({segment[1][0]:g}, "
            f"{segment[1][1]:g}) px",
        )


IMPORTER = LdtkImporter()
