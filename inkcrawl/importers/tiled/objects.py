"""The objects of a map: :class:`MapObject` (one object with its geometry made absolute) and
:class:`_Reader`, which walks the layers (group offsets, tilesets, templates), numbers the
objects, applies the edge rule and finds what the mapping makes of each object."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inkcrawl.importers import ImportFailed, ImportNote, ImportOptions, did_you_mean, json_kind
from inkcrawl.importers.tiled.files import (
    MAX_GROUP_DEPTH,
    _looks_like_xml,
    _parse_json,
    _read_bytes,
    _xml_object,
    _xml_tileset,
    parse_xml,
)
from inkcrawl.importers.tiled.mapping import GRID_CLASSES, IGNORE, LINE_CLASSES, _normal, _user_mapping
from inkcrawl.importers.tiled.paths import Folders, Refused
from inkcrawl.importers.tiled.properties import _number, _number_or, _positive, _Skip, read_properties

#: Most objects imported from one map.
MAX_OBJECTS = 50000
#: The map property that marks a map written by ``inkcrawl export tiled``.
MARKER = "inkcrawl_format_version"
#: The flip flags of a tile object's gid (Tiled keeps them in the 4 high bits).
_GID_MASK = 0x0FFFFFFF


# ------------------------------------------------------------------------------------------
# objects with their absolute geometry


def _rotate(dx: float, dy: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)


@dataclass
class MapObject:
    """One Tiled object with its position made absolute (layer offsets added, rotation applied)."""

    id: int
    name: str
    cls: str
    layer: str
    shape: str  # rect, ellipse, point, polygon, polyline, text, tile
    x: float
    y: float
    width: float
    height: float
    rotation: float
    points: list[tuple[float, float]] = field(default_factory=list)  # polygon/polyline, absolute px
    text: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)

    def at(self, dx: float, dy: float) -> tuple[float, float]:
        """The absolute pixel position of ``(dx, dy)`` in the object's own frame."""
        rx, ry = _rotate(dx, dy, self.rotation)
        return self.x + rx, self.y + ry

    def corners(self) -> list[tuple[float, float]]:
        """The outline in absolute pixels: polygon points, or the (rotated) box's corners."""
        if self.shape in ("polygon", "polyline"):
            return list(self.points)
        if self.shape == "point":
            return [(self.x, self.y)]
        top = -self.height if self.shape == "tile" else 0.0
        return [
            self.at(0, top),
            self.at(self.width, top),
            self.at(self.width, top + self.height),
            self.at(0, top + self.height),
        ]

    def centre(self) -> tuple[float, float]:
        """The centre: of the box (tile objects hang above their bottom-left corner), or the
        mean of a polygon's or polyline's points."""
        if self.shape in ("polygon", "polyline"):
            xs, ys = zip(*self.points)
            return sum(xs) / len(xs), sum(ys) / len(ys)
        if self.shape == "point":
            return self.x, self.y
        if self.shape == "tile":
            return self.at(self.width / 2, -self.height / 2)
        return self.at(self.width / 2, self.height / 2)

    def describe(self) -> str:
        text = f"object {self.id}"
        if self.name:
            text += f" {self.name[:60]!r}"
        if self.cls:
            text += f" (class {self.cls[:60]!r})"
        return f"{text} on layer {self.layer[:80]!r}"


# ------------------------------------------------------------------------------------------
# the importer


class _Reader:
    """One import: walks the map, collects objects and notes."""

    def __init__(self, path: Path, data: dict, options: ImportOptions):
        self.path = path
        self.data = data
        self.options = options
        self.notes: list[ImportNote] = []
        self.map_props = read_properties(data)
        self.objects: list[MapObject] = []
        self.tile_classes: list[tuple[int, dict[int, str]]] = []
        self._templates: dict[str, dict | str] = {}
        self.folders = Folders(path, options.allowed_folders)
        self.tile_w = _positive(data.get("tilewidth"), "tilewidth")
        self.tile_h = _positive(data.get("tileheight"), "tileheight")
        #: An isometric map keeps its objects on the floor, in pixels of tileheight per tile on
        #: both axes (Tiled's IsometricRenderer.pixelToTileCoords); tile and text objects have
        #: their size on the screen, so they stand at their anchor point.
        self.isometric = data.get("orientation") == "isometric"
        if self.isometric:
            self.tile_w = self.tile_h
        try:
            self.columns = int(float(data.get("width") or 0))
            self.rows = int(float(data.get("height") or 0))
        except (TypeError, ValueError):
            raise ImportFailed("the map's width and height must be numbers of tiles") from None
        self.infinite = bool(data.get("infinite")) and data.get("infinite") not in ("0", "false")
        self.mapping = _user_mapping(options.mapping)
        ours = self.map_props.get(MARKER) == 2
        family = self.mapping.get("family") or (self.map_props.get("family") if ours else None) or "line"
        if family not in ("line", "grid"):
            raise ImportFailed(f"family {family!r}: use 'line' or 'grid'")
        self.family = family
        self.exact = (
            ours
            and options.cell_mm is None
            and isinstance(self.map_props.get("px_per_mm"), (int, float))
            and 0 < self.map_props["px_per_mm"] <= 1000
        )

    def note(self, source: str, message: str) -> None:
        self.notes.append(ImportNote(source, message))

    # -- tilesets and templates ------------------------------------------------------------
    def _load_side_file(self, relative: str, what: str) -> Any:
        """A tileset or template file beside the map, as the JSON structure; ``None`` if missing;
        :class:`~.paths.Refused` if it lies outside the folders the map may read."""
        target = self.folders.locate(relative)
        if not target.is_file():
            return None
        data = _read_bytes(target, what)
        if _looks_like_xml(data):
            root = parse_xml(data)
            if root.tag == "tileset":
                return _xml_tileset(root)
            if root.tag == "template":
                found = root.find("object")
                template: dict[str, Any] = {"object": _xml_object(found) if found is not None else {}}
                tileset = root.find("tileset")
                if tileset is not None:
                    template["tileset"] = _xml_tileset(tileset)
                return template
            raise ImportFailed(f"the {what} {relative!r} is not a Tiled tileset or template (<{root.tag}>)")
        return _parse_json(data, f"{what} {relative!r}")

    def read_tilesets(self) -> None:
        tilesets = self.data.get("tilesets") or []
        if not isinstance(tilesets, list):
            return
        for _index, tileset in enumerate(tilesets, 1):
            if not isinstance(tileset, dict):
                continue
            firstgid = int(_number_or(tileset.get("firstgid"), 1))
            if isinstance(tileset.get("source"), str):
                source = tileset["source"]
                try:
                    loaded = self._load_side_file(source, "tileset")
                except Refused as exc:
                    self.note(f"tileset {source[:200]!r}", f"{exc}; tile objects using it get no class from it")
                    continue
                except ImportFailed as exc:
                    self.note(
                        f"tileset {source!r}", f"cannot be read ({exc}); tile objects using it get no class from it"
                    )
                    continue
                if not isinstance(loaded, dict):
                    self.note(
                        f"tileset {source!r}",
                        "the external tileset file is missing; tile objects using it get no class from it",
                    )
                    continue
                tileset = loaded
            self.tile_classes.append((firstgid, _tile_classes(tileset)))
        self.tile_classes.sort(key=lambda item: item[0])

    def tile_class(self, gid: Any) -> str:
        try:
            gid = int(gid) & _GID_MASK
        except (TypeError, ValueError):
            return ""
        found = ""
        for firstgid, classes in self.tile_classes:
            if gid >= firstgid:
                found = classes.get(gid - firstgid, "")
        return found

    def template(self, relative: str) -> dict | str:
        """The template file ``relative`` as the JSON structure, or why it cannot be used."""
        if relative not in self._templates:
            try:
                loaded = self._load_side_file(relative, "template")
            except Refused as exc:
                loaded = str(exc)
            except ImportFailed:
                loaded = None
            self._templates[relative] = loaded if isinstance(loaded, (dict, str)) else "is missing or unreadable"
        return self._templates[relative]

    # -- layers ----------------------------------------------------------------------------
    def walk(self, layers: Any, ox: float, oy: float, prefix: str, depth: int) -> None:
        if depth > MAX_GROUP_DEPTH:
            raise ImportFailed(f"group layers are nested deeper than {MAX_GROUP_DEPTH} levels")
        if not isinstance(layers, list):
            if layers is not None:
                self.note(f"{prefix.rstrip('/') or 'the map'}", f"'layers' is {json_kind(layers)}, not a list; ignored")
            return
        for index, layer in enumerate(layers):
            if not isinstance(layer, dict):
                self.note(
                    f"layer {index + 1} of {prefix.rstrip('/') or 'the map'}",
                    f"is {json_kind(layer)}, not a layer; ignored",
                )
                continue
            name = prefix + str(layer.get("name", ""))
            kind = layer.get("type")
            lox = ox + _number_or(layer.get("offsetx"), 0)
            loy = oy + _number_or(layer.get("offsety"), 0)
            source = f"{'group' if kind == 'group' else 'layer'} {name[:80]!r}"
            if kind == "group":
                self._layer_extras(layer, source)
                self.walk(layer.get("layers"), lox, loy, name + "/", depth + 1)
            elif kind == "objectgroup":
                self._layer_extras(layer, source)
                objects = layer.get("objects")
                if objects is not None and not isinstance(objects, list):
                    self.note(source, f"'objects' is {json_kind(objects)}, not a list; ignored")
                    objects = None
                for number, obj in enumerate(objects or [], 1):
                    if isinstance(obj, dict):
                        self.add_object(obj, lox, loy, name)
                    else:
                        self.note(f"object {number} of {source}", f"is {json_kind(obj)}, not an object; ignored")
            elif kind == "tilelayer":
                self.note(
                    f"tile layer {name[:80]!r}",
                    f"tiles ({layer.get('width', '?')} x "
                    f"{layer.get('height', '?')}) have no meaning for inkcrawl; "
                    f"ignored (only objects are imported)",
                )
            elif kind == "imagelayer":
                self.note(
                    f"image layer {name[:80]!r}",
                    f"the image {str(layer.get('image', ''))[:80]!r} has no meaning for inkcrawl; ignored",
                )
            else:
                self.note(f"layer {name[:80]!r}", f"unknown layer type {str(kind)[:40]!r}; ignored")

    def _layer_extras(self, layer: dict, source: str) -> None:
        extras = []
        if layer.get("class"):
            extras.append(f"class {str(layer['class'])[:60]!r}")
        props = read_properties(layer)
        if props:
            extras.append("properties " + ", ".join(sorted(props))[:200])
        if extras:
            self.note(source, " and ".join(extras) + " ignored (only objects are imported)")

    def add_object(self, raw: dict, ox: float, oy: float, layer: str) -> None:
        if len(self.objects) >= MAX_OBJECTS:
            raise ImportFailed(f"the map has more than {MAX_OBJECTS} objects")
        raw_id = raw.get("id")
        if isinstance(raw.get("template"), str):
            template = self.template(raw["template"])
            if isinstance(template, str):
                self.note(
                    f"object {raw_id} on layer {layer[:80]!r}",
                    f"its template {raw['template'][:200]!r} {template}; skipped",
                )
                return
            base = dict(template.get("object") or {})
            inherited = base.get("properties")
            base.update({k: v for k, v in raw.items() if k != "template"})
            if isinstance(inherited, list) and isinstance(raw.get("properties"), list):
                base["properties"] = inherited + raw["properties"]  # the instance's values win
            if isinstance(template.get("tileset"), dict) and "gid" in base:
                base.setdefault("class", self._template_tile_class(template["tileset"], base["gid"]))
            raw = base
        try:
            self.objects.append(self._object(raw, ox, oy, layer))
        except _Skip as exc:
            self.note(f"object {raw_id} on layer {layer[:80]!r}", f"{exc}; skipped")

    @staticmethod
    def _template_tile_class(tileset: dict, gid: Any) -> str:
        try:
            local = (int(gid) & _GID_MASK) - int(_number_or(tileset.get("firstgid"), 1))
        except (TypeError, ValueError):
            return ""
        return _tile_classes(tileset).get(local, "")

    def _object(self, raw: dict, ox: float, oy: float, layer: str) -> MapObject:
        x = _number(raw.get("x", 0), "x") + ox
        y = _number(raw.get("y", 0), "y") + oy
        width = abs(_number(raw.get("width", 0) or 0, "width"))
        height = abs(_number(raw.get("height", 0) or 0, "height"))
        rotation = _number(raw.get("rotation", 0) or 0, "rotation")
        cls = raw.get("class") or raw.get("type") or ""
        cls = cls if isinstance(cls, str) else str(cls)
        if not cls and raw.get("gid") is not None:
            cls = self.tile_class(raw.get("gid"))
        skipped: list[str] = []
        raw_id = raw.get("id")
        obj = MapObject(
            id=raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool) else -1,
            name=str(raw.get("name") or ""),
            cls=cls,
            layer=layer,
            shape="rect",
            x=x,
            y=y,
            width=width,
            height=height,
            rotation=rotation,
            properties=read_properties(raw, skipped),
        )
        obj.name = self.clean_text(obj.name, 200, obj, "name")
        if skipped:
            self.note(obj.describe(), f"{', '.join(skipped)[:300]}: not a property; ignored")
        if "id" in raw and obj.id <= 0:
            self.note(
                obj.describe().replace(f"object {obj.id}", f"object {json.dumps(raw['id'])[:30]}", 1),
                "its id is not a whole number above 0; numbered after the highest id",
            )
        for shape in ("polygon", "polyline"):
            if isinstance(raw.get(shape), list):
                obj.shape = shape
                points = []
                for point in raw[shape]:
                    if not isinstance(point, dict):
                        raise _Skip(f"a {shape} point is not an object with x and y")
                    points.append(obj.at(_number(point.get("x"), f"{shape} x"), _number(point.get("y"), f"{shape} y")))
                if not points:
                    raise _Skip(f"the {shape} has no points")
                obj.points = points
                return obj
        if raw.get("point") is True:
            obj.shape = "point"
        elif raw.get("ellipse") is True:
            obj.shape = "ellipse"
        elif isinstance(raw.get("text"), dict):
            obj.shape = "text"
            obj.text = str(raw["text"].get("text", ""))
        elif raw.get("gid") is not None:
            obj.shape = "tile"
        elif width == 0 and height == 0:
            obj.shape = "point"  # maps before Tiled 1.1 had no point objects: a rectangle of no size
        if self.isometric and obj.shape in ("text", "tile"):
            obj.width = obj.height = 0.0
        return obj

    def clean_text(self, text: str, limit: int, obj: MapObject, what: str) -> str:
        """``text`` without control characters (a sheet cannot print them, XML cannot hold them)
        and cut to ``limit`` characters, each change noted for ``obj``."""
        clean = "".join(c for c in text if c.isprintable() or c == " ")
        if clean != text:
            self.note(obj.describe(), f"its {what} holds control characters; removed")
        if len(clean) > limit:
            self.note(obj.describe(), f"its {what} has {len(clean)} characters; cut to {limit}")
            clean = clean[:limit]
        return clean

    def number_objects(self) -> None:
        """Missing ids numbered and duplicate ids renumbered, after the highest id in use."""
        highest = max(
            [o.id for o in self.objects if o.id > 0] + [int(_number_or(self.data.get("nextobjectid"), 1)) - 1, 0]
        )
        seen: dict[int, MapObject] = {}
        missing = 0
        for obj in self.objects:
            if obj.id <= 0:
                highest += 1
                obj.id = highest
                missing += 1
            elif obj.id in seen:
                old, source = obj.id, obj.describe()
                highest += 1
                obj.id = highest
                self.note(source, f"duplicate id {old}, also the id of {seen[old].describe()}; renumbered {obj.id}")
            seen[obj.id] = obj
        if missing:
            self.note(
                "the whole map",
                f"{missing} object(s) had no usable id (a map made before Tiled 0.11 has none); "
                f"numbered {highest - missing + 1} to {highest} in file order",
            )

    def edge_rule(self) -> None:
        """The one edge rule: an object whose outline lies wholly outside the map rectangle is
        skipped; one that touches or crosses the edge is kept whole (crossing is noted). Not for
        infinite maps, nor for maps written by inkcrawl (their rectangle is the paper: what lies
        off it is for ``validate`` to report)."""
        if self.infinite or self.columns <= 0 or self.rows <= 0 or self.exact:
            return
        right, bottom = self.columns * self.tile_w, self.rows * self.tile_h
        kept = []
        for obj in self.objects:
            xs, ys = zip(*obj.corners())
            if max(xs) < 0 or max(ys) < 0 or min(xs) > right or min(ys) > bottom:
                self.note(obj.describe(), f"lies wholly outside the map (0..{right:g} x 0..{bottom:g} px); skipped")
                continue
            imported = self.target(obj)[0] not in (None, IGNORE)  # the others get their own note
            if imported and (min(xs) < 0 or min(ys) < 0 or max(xs) > right or max(ys) > bottom):
                self.note(obj.describe(), "crosses the map edge; kept whole")
            kept.append(obj)
        self.objects = kept

    # -- mapping ---------------------------------------------------------------------------
    def mapped_objects(self):
        """Yield ``(object, kind, default members, source name)`` for every object the mapping
        turns into something, noting the ones it skips (no class, unknown class, ignored)."""
        for obj in self.objects:
            kind, defaults = self.target(obj)
            source = obj.describe()
            if kind is None:
                why = (
                    "has no class" if not obj.cls else f"has a class the mapping does not know{self.nearest_class(obj)}"
                )
                self.note(source, f"{why}; skipped (map it with --map)")
                continue
            if kind == IGNORE:
                self.note(source, "ignored by the mapping")
                continue
            yield obj, kind, defaults, source

    def nearest_class(self, obj: MapObject) -> str:
        """`` (did you mean 'monster'?)`` for a class name close to one the mapping knows (a typing
        slip such as ``Monstr``), or ``""``."""
        defaults = GRID_CLASSES if self.family == "grid" else LINE_CLASSES
        known = list(defaults) + [name for name in self.mapping.get("classes", {}) if name == _normal(name)]
        return did_you_mean(_normal(obj.cls), known)

    def target(self, obj: MapObject) -> tuple[str | None, dict]:
        """What ``obj`` becomes: ``(kind, default members)``; kind ``None`` when unmapped."""
        classes = self.mapping.get("classes", {})
        entry = classes.get(obj.cls)
        if entry is None:
            entry = classes.get(_normal(obj.cls)) if obj.cls else None
        if entry is None:
            defaults = GRID_CLASSES if self.family == "grid" else LINE_CLASSES
            entry = defaults.get(_normal(obj.cls)) if obj.cls else None
        if entry is None and not obj.cls and obj.shape == "text" and self.family == "line":
            entry = "label"
        if entry is None:
            return None, {}
        if isinstance(entry, dict):
            members = {k: v for k, v in entry.items() if k != "kind"}
            return entry["kind"], members
        return entry, {}


def _tile_classes(tileset: dict) -> dict[int, str]:
    """Tile id -> class of a tileset (list of tiles since 1.2, a map keyed by id before)."""
    tiles = tileset.get("tiles")
    out = {}
    items = tiles.items() if isinstance(tiles, dict) else enumerate(tiles) if isinstance(tiles, list) else []
    for key, tile in items:
        if not isinstance(tile, dict):
            continue
        tile_id = tile.get("id", key)
        cls = tile.get("class") or tile.get("type")
        try:
            if cls and tile_id is not None:
                out[int(tile_id)] = str(cls)
        except (TypeError, ValueError):
            continue
    return out
