"""Entities and floors as the Tiled importer's map objects, so that one mapping machinery
(``--map`` classes, default names, member properties, notes) turns both tools' objects into
elements: :class:`LevelObject` (an entity, or a piece of floor from the IntGrid layers) and
:class:`LevelReader` (the Tiled reader given a level instead of a map). Coordinates are level
pixels, y down; an entity's box is placed from its pivot point (``px``) and ``__pivot``."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inkcrawl.importers import ImportFailed, ImportOptions, json_kind
from inkcrawl.importers.build import safe_id
from inkcrawl.importers.tiled.mapping import GRID_CLASSES, IGNORE, LINE_CLASSES, _id_value, _normal, _prop
from inkcrawl.importers.tiled.objects import MapObject, _Reader
from inkcrawl.importers.tiled.properties import _number, _Skip

#: Most entities imported from one level.
MAX_ENTITIES = 50000
#: Entity identifiers (compared loosely) that mark where the player enters a level in LDtk
#: projects, made Starts in a line dungeon besides the Tiled defaults (``start``, ``spawn``,
#: ``player_start``, ``entrance``); a ``--map`` entry for them wins.
START_CLASSES = ("player", "player_spawn", "spawn_point")


@dataclass
class LevelObject(MapObject):
    """A map object made from an LDtk level: ``label`` names it in notes (``entity 'Door' #3 at
    cell (4, 7) on layer 'Entities'``); ``fixed_kind`` is what a piece of floor becomes (``room``
    or ``corridor``), whatever the mapping says."""

    label: str = ""
    fixed_kind: str | None = None

    def describe(self) -> str:
        return self.label or super().describe()


class LevelReader(_Reader):
    """The Tiled importer's reader for one LDtk level: its objects are the level's entities
    (class = the entity's identifier, properties = its fields) and pieces of floor; ``unit_px``
    pixels make one source unit (one cell of the project's grid)."""

    def __init__(self, path: Path, options: ImportOptions, size_px: tuple[int, int], unit_px: int, grid: bool):
        mapping = options.mapping
        if isinstance(mapping, dict):  # the LDtk-only member is read by .intgrid
            mapping = {key: value for key, value in mapping.items() if key != "intgrid"}
        columns, rows = (-(-size_px[0] // unit_px), -(-size_px[1] // unit_px)) if grid else (1, 1)
        tiled_like = {"tilewidth": unit_px, "tileheight": unit_px, "width": columns, "height": rows}
        super().__init__(path, tiled_like, replace(options, mapping=mapping))
        if not grid:  # the edge rule's rectangle: the level itself, to the pixel
            self.columns = size_px[0] / unit_px  # type: ignore[assignment]
            self.rows = size_px[1] / unit_px  # type: ignore[assignment]

    def target(self, obj: MapObject) -> tuple[str | None, dict]:
        """What ``obj`` becomes: a piece of floor its own kind; an entity by its identifier
        through the mapping (exact, loosely, then the defaults, also in the singular:
        ``Labels`` is a label; in a line dungeon :data:`START_CLASSES` are Starts)."""
        if isinstance(obj, LevelObject) and obj.fixed_kind is not None:
            return obj.fixed_kind, {}
        found = super().target(obj)
        if found[0] is None and obj.cls:
            single = _normal(obj.cls)
            defaults = GRID_CLASSES if self.family == "grid" else LINE_CLASSES
            if single.endswith("s") and single[:-1] in defaults and single[:-1] not in self.mapping.get("classes", {}):
                return defaults[single[:-1]], {}
            if self.family == "line" and single in START_CLASSES:
                return "start", {}
        return found

    def edge_rule(self) -> None:
        """The edge rule of Tiled maps (:meth:`_Reader.edge_rule`) on the level's rectangle, in
        LDtk's words: an object wholly outside the level (``0..pxWid x 0..pxHei`` px) is skipped,
        one imported across its edge is kept whole; both noted."""
        right, bottom = self.columns * self.tile_w, self.rows * self.tile_h
        kept = []
        for obj in self.objects:
            xs, ys = zip(*obj.corners())
            if max(xs) < 0 or max(ys) < 0 or min(xs) > right or min(ys) > bottom:
                self.note(obj.describe(), f"lies wholly outside the level (0..{right:g} x 0..{bottom:g} px); skipped")
                continue
            imported = self.target(obj)[0] not in (None, IGNORE)  # the others get their own note
            if imported and (min(xs) < 0 or min(ys) < 0 or max(xs) > right or max(ys) > bottom):
                self.note(obj.describe(), "crosses the level's edge; kept whole")
            kept.append(obj)
        self.objects = kept

    def start_sources(self) -> dict[str, str]:
        """The entity each Start element will come from, by the element id the Tiled builder
        gives it (its ``id`` field, else ``start`` + the entity's number), for the notes of
        :func:`.starts.place_starts`."""
        found: dict[str, str] = {}
        for obj in self.objects:
            if self.target(obj)[0] == "start":
                wanted = _id_value(_prop(obj.properties, set(), "id")) or f"start{obj.id}"
                found.setdefault(safe_id(wanted), obj.describe())
        return found


def _field_value(value: Any) -> Any:
    """A field's ``__value`` as a property value: numbers, text, true/false and lists of them as
    they are; points, entity references and other objects as their JSON text."""
    if isinstance(value, list):
        return [v if isinstance(v, (str, int, float, bool)) else json.dumps(v)[:200] for v in value]
    if isinstance(value, dict):
        return json.dumps(value)[:200]
    return value


def entity_objects(
    layer: dict, layer_name: str, offset: tuple[float, float], defs: dict[Any, dict], reader: LevelReader, start: int
) -> list[LevelObject]:
    """The entities of one Entities layer instance as objects, numbered from ``start``. An
    entity whose position cannot be read is named in a note and left out. ``defs`` are the
    project's entity definitions by ``uid`` and by identifier (size and pivot of old files)."""
    found: list[LevelObject] = []
    items = layer.get("entityInstances")
    if not isinstance(items, list):
        if items is not None:
            reader.note(f"layer {layer_name!r}", f"'entityInstances' is {json_kind(items)}, not a list; ignored")
        return found
    if len(items) > MAX_ENTITIES:
        raise ImportFailed(f"layer {layer_name!r} has {len(items)} entities; an import reads at most {MAX_ENTITIES}")
    for number, raw in enumerate(items, start):
        if not isinstance(raw, dict):
            reader.note(f"entity #{number} on layer {layer_name!r}", f"is {json_kind(raw)}, not an entity; ignored")
            continue
        definition = defs.get(raw.get("defUid")) or defs.get(raw.get("__identifier")) or {}
        ident = raw.get("__identifier", definition.get("identifier"))
        ident = ident if isinstance(ident, str) else ""
        where = raw.get("__grid")
        cell = f" at cell ({where[0]}, {where[1]})" if isinstance(where, list) and len(where) == 2 else ""
        label = f"entity {ident[:60]!r} #{number}{cell} on layer {layer_name[:80]!r}"
        try:
            found.append(_entity(raw, ident, label, number, layer_name, offset, definition, reader))
        except _Skip as exc:
            reader.note(label, f"{exc}; skipped")
    return found


def _entity(raw, ident, label, number, layer_name, offset, definition, reader: LevelReader) -> LevelObject:
    px = raw.get("px")
    if not isinstance(px, list) or len(px) != 2:
        raise _Skip(f"its position 'px' is {json_kind(px)}, not [x, y]")
    x, y = _number(px[0], "px x"), _number(px[1], "px y")
    width = abs(_number(raw.get("width", definition.get("width", 0)), "width"))
    height = abs(_number(raw.get("height", definition.get("height", 0)), "height"))
    pivot = raw.get("__pivot")
    if not (isinstance(pivot, list) and len(pivot) == 2):
        pivot = [definition.get("pivotX", 0), definition.get("pivotY", 0)]
    pivot_x, pivot_y = _number(pivot[0], "pivot x"), _number(pivot[1], "pivot y")
    obj = LevelObject(
        id=number,
        name="",
        cls=ident,
        layer=layer_name,
        shape="rect" if width > 0 and height > 0 else "point",
        x=x + offset[0] - pivot_x * width,
        y=y + offset[1] - pivot_y * height,
        width=width,
        height=height,
        rotation=0.0,
        label=label,
    )
    if obj.shape == "point":
        obj.x, obj.y = x + offset[0], y + offset[1]
    fields = raw.get("fieldInstances")
    if fields is not None and not isinstance(fields, list):
        reader.note(label, f"'fieldInstances' is {json_kind(fields)}, not a list; its fields are ignored")
        fields = []
    for index, item in enumerate(fields or [], 1):
        name = item.get("__identifier") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name:
            reader.note(label, f"field {index} has no identifier; ignored")
            continue
        value = item.get("__value")
        if value is None:
            continue  # a field left unset in LDtk: nothing to import
        if isinstance(value, float) and not math.isfinite(value):
            reader.note(label, f"field {name[:40]!r} is not a finite number; ignored")
            continue
        if name.strip().lower() == "name" and isinstance(value, str):
            obj.name = reader.clean_text(value, 200, obj, "name")
            continue
        obj.properties[name] = _field_value(value)
    return obj


def floor_object(kind: str, number: int, points: list[tuple[float, float]]) -> LevelObject:
    """A piece of floor (``kind`` ``room``, ``corridor`` or ``doorway``, corners in level pixels)
    as an object with the id ``room-1``, ``corridor-2``, ``doorway-3``...; a doorway is a corridor."""
    xs, ys = zip(*points)
    return LevelObject(
        id=number,
        name="",
        cls=kind,
        layer="IntGrid",
        shape="polygon",
        x=min(xs),
        y=min(ys),
        width=max(xs) - min(xs),
        height=max(ys) - min(ys),
        rotation=0.0,
        points=list(points),
        properties={"id": f"{kind}-{number}"},
        label=f"{kind} {number} of the IntGrid floor",
        fixed_kind="corridor" if kind == "doorway" else kind,
    )
