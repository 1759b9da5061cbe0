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
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inkcrawl.importers import ImportFailed, ImportNote, ImportOptions, ImportResult, json_kind, printable_texts
from inkcrawl.importers.build import DRAWING_BAND_MM, LineDungeonBuilder, safe_id
from inkcrawl.rulesets import bundled_rulesets

NAME = "tiled"
#: Largest map, template or tileset file read, in bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Deepest nesting of group layers accepted.
MAX_GROUP_DEPTH = 50
#: Most objects imported from one map.
MAX_OBJECTS = 50000
#: Default printed size of one map tile (the builder's default, shrunk to fit A4).
DEFAULT_CELL_MM = 5.0
#: Default side of a grid room when importing into the grid family (shrunk to fit A4).
DEFAULT_GRID_CELL_MM = 24.0
#: The map property that marks a map written by ``inkcrawl export tiled``.
MARKER = "inkcrawl_format_version"
#: The flip flags of a tile object's gid (Tiled keeps them in the 4 high bits).
_GID_MASK = 0x0FFFFFFF

#: Special targets of the mapping besides element kinds.
AREA_KINDS = ("room", "corridor")
IGNORE = "ignore"

#: Default mapping for the line family: normalised class name -> what it becomes.
LINE_CLASSES: dict[str, str] = {
    **{kind: kind for kind, spec in bundled_rulesets()["line-classic"].kinds.items() if spec.footprint == "disc"},
    "room": "room", "corridor": "corridor", "wall": "wall", "door": "door", "label": "label", "text": "label",
    # a few common names used in Tiled maps
    "enemy": "monster", "chest": "treasure", "spawn": "start", "player_start": "start", "entrance": "start",
    "portal": "portal_entry",
}
#: Default mapping for the grid family (``room`` objects are the grid's own rooms: accepted, not needed).
GRID_CLASSES: dict[str, str] = {
    "room": "room", "passage": "passage", "entryway": "entryway", "loot": "loot", "dragon": "dragon",
    "weapon": "weapon", "monster": "monster", "enemy": "monster", "treasure": "loot", "chest": "loot",
}

#: Per kind, the custom properties that set its members (names compared case-insensitively).
_MEMBER_PROPS = {"boss": ("vp",), "spell": ("variant",), "treasure": ("variant",), "artifact_stone": ("number",),
                 "orb": ("colour",), "key": ("colour",), "portal_entry": ("channel",), "portal_exit": ("channel",)}
_DEFAULT_MEMBERS = {"boss": ("vp", 10), "spell": ("variant", "bolt"), "treasure": ("variant", "chest")}
_PROP_ALIASES = {"color": "colour", "lock": "locks", "kind": "kind"}
_KIND_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _normal(name: str) -> str:
    """A class name compared loosely: lower case, spaces and hyphens as underscores."""
    return re.sub(r"[\s-]+", "_", str(name).strip().lower())


# ------------------------------------------------------------------------------------------
# reading files safely


def _read_bytes(path: Path, what: str) -> bytes:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ImportFailed(f"cannot read the {what}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ImportFailed(f"the {what} is larger than {MAX_FILE_BYTES} bytes")
    return data


def parse_xml(data: bytes):
    """The root element of an XML document; entity declarations and external references are
    refused (billion laughs, quadratic blowup, XXE) with :class:`ImportFailed`."""
    try:
        import defusedxml.ElementTree as safe_et
        from defusedxml import DefusedXmlException
    except ModuleNotFoundError:  # pragma: no cover - defusedxml is a dependency; this is a safety net
        return _parse_xml_without_dtd(data)
    from xml.etree.ElementTree import ParseError

    try:
        return safe_et.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise ImportFailed(f"the XML declares entities or external references, which are refused ({exc})") from None
    except ParseError as exc:
        raise ImportFailed(f"malformed XML: {exc}") from None
    except LookupError as exc:  # <?xml encoding="..."?> names an encoding Python does not know
        raise ImportFailed(_unknown_encoding(exc)) from None


def _unknown_encoding(exc: LookupError) -> str:
    return f"the XML declares a text encoding Python cannot read ({str(exc)[:100]}); save it as UTF-8"


def _parse_xml_without_dtd(data: bytes):
    """Plain ElementTree after an expat pass that refuses any document type declaration, so no
    entity can be declared (the fallback when defusedxml is not installed)."""
    from xml.etree.ElementTree import ParseError, fromstring
    from xml.parsers import expat

    def refuse(*_args):
        raise ImportFailed("the XML has a document type declaration (DTD), which is refused")

    scanner = expat.ParserCreate()
    scanner.StartDoctypeDeclHandler = refuse
    scanner.EntityDeclHandler = refuse
    try:
        scanner.Parse(data, True)
        return fromstring(data)
    except (expat.ExpatError, ParseError) as exc:
        raise ImportFailed(f"malformed XML: {exc}") from None
    except LookupError as exc:
        raise ImportFailed(_unknown_encoding(exc)) from None


def _parse_json(data: bytes, what: str) -> Any:
    from inkcrawl.jsonio import parse_json_text

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportFailed(f"the {what} is not UTF-8 text") from None
    value, problems = parse_json_text(text, what)
    if problems:
        raise ImportFailed(problems[0].message)
    return value


def _looks_like_xml(data: bytes) -> bool:
    return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


# ------------------------------------------------------------------------------------------
# TMX (XML) -> the JSON structure, so one reader handles both


def _xml_number(text: str | None, default: float | int = 0) -> float | int:
    if text is None or text == "":
        return default
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def _xml_value(text: str | None, default: Any = 0) -> Any:
    """An object's attribute as a number, or as its text when it is not a finite number (the
    object is then skipped with a note naming it, as in a JSON map)."""
    try:
        return _xml_number(text, default)
    except ValueError:
        return text


def _xml_properties(element) -> list[dict] | None:
    props = element.find("properties")
    if props is None:
        return None
    out = []
    for prop in props.findall("property"):
        value = prop.get("value")
        if value is None:  # multi-line strings are the element's text
            value = prop.text or ""
        out.append({"name": prop.get("name", ""), "type": prop.get("type", "string"), "value": value})
    return out


def _xml_points(text: str | None) -> list[dict]:
    points = []
    for pair in (text or "").split():
        x, comma, y = pair.partition(",")
        points.append({"x": _xml_value(x, None), "y": _xml_value(y, None) if comma else None})
    return points


def _xml_object(element) -> dict:
    obj: dict[str, Any] = {}
    for key in ("id", "gid", "x", "y", "width", "height", "rotation"):
        if element.get(key) is not None:
            obj[key] = _xml_value(element.get(key))
    for key in ("name", "type", "class", "template"):
        if element.get(key) is not None:
            obj[key] = element.get(key)
    if element.get("visible") is not None:
        obj["visible"] = element.get("visible") != "0"
    properties = _xml_properties(element)
    if properties is not None:
        obj["properties"] = properties
    if element.find("ellipse") is not None:
        obj["ellipse"] = True
    if element.find("point") is not None:
        obj["point"] = True
    for shape in ("polygon", "polyline"):
        found = element.find(shape)
        if found is not None:
            obj[shape] = _xml_points(found.get("points"))
    text = element.find("text")
    if text is not None:
        obj["text"] = {"text": text.text or "", "pixelsize": _xml_number(text.get("pixelsize"), 16)}
    return obj


def _xml_tileset(element) -> dict:
    tileset: dict[str, Any] = {"firstgid": _xml_number(element.get("firstgid"), 1)}
    if element.get("source") is not None:
        tileset["source"] = element.get("source")
    tileset["name"] = element.get("name", "")
    tiles = []
    for tile in element.findall("tile"):
        tiles.append({"id": _xml_number(tile.get("id"), 0), "type": tile.get("type") or tile.get("class") or ""})
    tileset["tiles"] = tiles
    return tileset


def _xml_layers(parent, depth: int = 0) -> list[dict]:
    if depth > MAX_GROUP_DEPTH:
        raise ImportFailed(f"group layers are nested deeper than {MAX_GROUP_DEPTH} levels")
    layers = []
    kinds = {"layer": "tilelayer", "objectgroup": "objectgroup", "imagelayer": "imagelayer", "group": "group"}
    for child in parent:
        if child.tag not in kinds:
            continue
        layer: dict[str, Any] = {"type": kinds[child.tag], "name": child.get("name", "")}
        for key in ("id", "offsetx", "offsety", "width", "height"):
            if child.get(key) is not None:
                layer[key] = _xml_number(child.get(key))
        if child.get("class"):
            layer["class"] = child.get("class")
        properties = _xml_properties(child)
        if properties is not None:
            layer["properties"] = properties
        if child.tag == "objectgroup":
            layer["objects"] = [_xml_object(o) for o in child.findall("object")]
        elif child.tag == "imagelayer":
            image = child.find("image")
            layer["image"] = image.get("source", "") if image is not None else ""
        elif child.tag == "group":
            layer["layers"] = _xml_layers(child, depth + 1)
        layers.append(layer)
    return layers


def tmx_to_dict(root) -> dict:
    """The JSON structure (as Tiled writes it in TMJ files) of a TMX ``<map>`` element."""
    if root.tag != "map":
        raise ImportFailed(f"the XML root is <{root.tag}>, not a Tiled <map>")
    data: dict[str, Any] = {"type": "map"}
    for key in ("width", "height", "tilewidth", "tileheight", "nextobjectid"):
        data[key] = _xml_number(root.get(key), 0)
    for key in ("version", "tiledversion", "orientation"):
        if root.get(key) is not None:
            data[key] = root.get(key)
    data["infinite"] = root.get("infinite") == "1"
    if root.get("class"):
        data["class"] = root.get("class")
    properties = _xml_properties(root)
    if properties is not None:
        data["properties"] = properties
    data["tilesets"] = [_xml_tileset(t) for t in root.findall("tileset")]
    data["layers"] = _xml_layers(root)
    return data


# ------------------------------------------------------------------------------------------
# properties, values


def _typed_value(kind: str, value: Any) -> Any:
    """A property value as Python: ints, floats, bools and strings (TMX gives text)."""
    if kind == "int" or kind == "object":
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, str):
            return int(float(value))
        return int(value) if isinstance(value, (int, float)) and math.isfinite(value) else value
    if kind == "float":
        number = float(value)
        return number if math.isfinite(number) else 0.0
    if kind == "bool":
        return value if isinstance(value, bool) else str(value).strip().lower() in ("true", "1")
    if kind == "class":
        return value
    return value if isinstance(value, str) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def read_properties(holder: dict, skipped: list[str] | None = None) -> dict[str, Any]:
    """The custom properties of a map, layer, tile or object as ``{name: value}``: the list of
    ``{name, type, value}`` (Tiled 1.2+) or the old ``{name: value}`` map with its
    ``propertytypes``. Entries that are not a property (no name, a ``null`` value) are left out
    and described in ``skipped`` when it is given."""
    raw = holder.get("properties")
    out: dict[str, Any] = {}
    skipped = skipped if skipped is not None else []
    if isinstance(raw, list):
        for number, prop in enumerate(raw, 1):
            if not isinstance(prop, dict) or not isinstance(prop.get("name"), str):
                skipped.append(f"property {number} ({json_kind(prop)} without a name)")
                continue
            if prop.get("value", "") is None:
                skipped.append(f"property {prop['name'][:60]!r} (no value)")
                continue
            try:
                out[prop["name"]] = _typed_value(str(prop.get("type", "string")), prop.get("value", ""))
            except (TypeError, ValueError, OverflowError):
                out[prop["name"]] = str(prop.get("value"))
    elif raw is not None and not isinstance(raw, dict):
        skipped.append(f"'properties' ({json_kind(raw)}, not a list or an object)")
    elif isinstance(raw, dict):
        declared = holder.get("propertytypes")
        types = declared if isinstance(declared, dict) else {}
        for name, value in raw.items():
            if value is None:
                skipped.append(f"property {str(name)[:60]!r} (no value)")
                continue
            kind = types.get(name)
            if kind is None:
                kind = ("bool" if isinstance(value, bool) else "int" if isinstance(value, int)
                        else "float" if isinstance(value, float) else "string")
            try:
                out[str(name)] = _typed_value(str(kind), value)
            except (TypeError, ValueError, OverflowError):
                out[str(name)] = str(value)
    return out


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or value is None:
        raise _Skip(f"{what} is not a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _Skip(f"{what} {value!r} is not a number") from None
    if not math.isfinite(number) or abs(number) > 1e9:
        raise _Skip(f"{what} {value!r} is out of range")
    return number


def version_number(value: Any) -> float:
    """The ``version`` of a map as a number: Tiled wrote it as a number before 1.6 (``1.2``)
    and as a string since (``"1.10"`` is 1.10, compared part by part)."""
    text = str(value).strip() if value is not None else ""
    major, _, minor = text.partition(".")
    digits = re.match(r"\d*", minor)  # (always matches, maybe nothing)
    try:
        return int(major) + int((digits.group(0) if digits else "") or 0) / 1000
    except ValueError:
        return 0.0


class _Skip(Exception):
    """One object cannot be imported; the message says why (it becomes a note)."""


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
        return [self.at(0, top), self.at(self.width, top), self.at(self.width, top + self.height),
                self.at(0, top + self.height)]

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
        self._templates: dict[Path, dict | None] = {}
        self.tile_w = _positive(data.get("tilewidth"), "tilewidth")
        self.tile_h = _positive(data.get("tileheight"), "tileheight")
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
        self.exact = (ours and options.cell_mm is None
                      and isinstance(self.map_props.get("px_per_mm"), (int, float))
                      and 0 < self.map_props["px_per_mm"] <= 1000)

    def note(self, source: str, message: str) -> None:
        self.notes.append(ImportNote(source, message))

    # -- tilesets and templates ------------------------------------------------------------
    def _sibling(self, relative: str) -> Path:
        return (self.path.parent / relative) if not Path(relative).is_absolute() else Path(relative)

    def _load_side_file(self, relative: str, what: str) -> Any:
        """A tileset or template file beside the map, as the JSON structure; ``None`` if missing."""
        target = self._sibling(relative)
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
        for _number, tileset in enumerate(tilesets, 1):
            if not isinstance(tileset, dict):
                continue
            firstgid = int(_number_or(tileset.get("firstgid"), 1))
            if isinstance(tileset.get("source"), str):
                source = tileset["source"]
                try:
                    loaded = self._load_side_file(source, "tileset")
                except ImportFailed as exc:
                    self.note(f"tileset {source!r}", f"cannot be read ({exc}); tile objects using it get no class "
                                                     f"from it")
                    continue
                if not isinstance(loaded, dict):
                    self.note(f"tileset {source!r}", "the external tileset file is missing; tile objects using it "
                                                     "get no class from it")
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

    def template(self, relative: str) -> dict | None:
        target = self._sibling(relative)
        if target not in self._templates:
            try:
                loaded = self._load_side_file(relative, "template")
            except ImportFailed:
                loaded = None
            self._templates[target] = loaded if isinstance(loaded, dict) else None
        return self._templates[target]

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
                self.note(f"layer {index + 1} of {prefix.rstrip('/') or 'the map'}",
                          f"is {json_kind(layer)}, not a layer; ignored")
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
                self.note(f"tile layer {name[:80]!r}", f"tiles ({layer.get('width', '?')} x "
                                                       f"{layer.get('height', '?')}) have no meaning for inkcrawl; "
                                                       f"ignored (only objects are imported)")
            elif kind == "imagelayer":
                self.note(f"image layer {name[:80]!r}", f"the image {str(layer.get('image', ''))[:80]!r} has no "
                                                        f"meaning for inkcrawl; ignored")
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
            if template is None:
                self.note(f"object {raw_id} on layer {layer[:80]!r}",
                          f"its template {raw['template'][:80]!r} is missing or unreadable; skipped")
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
        obj = MapObject(id=raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool)
                        else -1, name=str(raw.get("name") or ""), cls=cls, layer=layer, shape="rect", x=x, y=y,
                        width=width, height=height, rotation=rotation, properties=read_properties(raw, skipped))
        obj.name = self.clean_text(obj.name, 200, obj, "name")
        if skipped:
            self.note(obj.describe(), f"{', '.join(skipped)[:300]}: not a property; ignored")
        if "id" in raw and obj.id <= 0:
            self.note(obj.describe().replace(f"object {obj.id}", f"object {json.dumps(raw['id'])[:30]}", 1),
                      "its id is not a whole number above 0; numbered after the highest id")
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
        highest = max([o.id for o in self.objects if o.id > 0] + [int(_number_or(self.data.get("nextobjectid"), 1)) - 1,
                                                                   0])
        seen: dict[int, MapObject] = {}
        missing = 0
        for obj in self.objects:
            if obj.id <= 0:
                highest += 1
                obj.id = highest
                missing += 1
            elif obj.id in seen:
                old = obj.id
                highest += 1
                obj.id = highest
                first = seen[old]
                self.note(f"object {old} on layer {obj.layer[:80]!r}",
                          f"duplicate id {old} (also used on layer {first.layer[:80]!r}); renumbered {obj.id}")
            seen[obj.id] = obj
        if missing:
            self.note("the whole map", f"{missing} object(s) had no usable id (a map made before Tiled 0.11 has none); "
                                       f"numbered {highest - missing + 1} to {highest} in file order")

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
            if min(xs) < 0 or min(ys) < 0 or max(xs) > right or max(ys) > bottom:
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
                why = "has no class" if not obj.cls else "has a class the mapping does not know"
                self.note(source, f"{why}; skipped (map it with --map)")
                continue
            if kind == IGNORE:
                self.note(source, "ignored by the mapping")
                continue
            yield obj, kind, defaults, source

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


def _number_or(value: Any, default: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def _positive(value: Any, what: str) -> float:
    number = _number_or(value, 0)
    if not 0 < number <= 100000:
        raise ImportFailed(f"the map's {what} must be a positive number of pixels (it is {value!r})")
    return number


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


def _user_mapping(mapping: dict | None) -> dict:
    """The ``--map`` file checked: ``{"family"?: "line"|"grid", "classes": {name: kind or
    {"kind": kind, member: default...}}}``."""
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise ImportFailed("the mapping must be a JSON object")
    unknown = sorted(set(mapping) - {"classes", "family", "description", "$schema"})
    if unknown:
        raise ImportFailed(f"the mapping has unknown members {', '.join(unknown)} (use 'classes' and 'family')")
    classes = mapping.get("classes", {})
    if not isinstance(classes, dict):
        raise ImportFailed("the mapping's 'classes' must be an object of class name -> element kind")
    checked = {}
    for name, entry in classes.items():
        kind = entry.get("kind") if isinstance(entry, dict) else entry
        if not isinstance(kind, str) or not (kind == IGNORE or _KIND_PATTERN.match(kind)):
            raise ImportFailed(f"the mapping of class {name!r} must be an element kind (lower case letters, digits, "
                               f"'_'), 'ignore', or an object with such a 'kind'")
        checked[name] = entry
        checked.setdefault(_normal(name), entry)
    out = {"classes": checked}
    if "family" in mapping:
        out["family"] = mapping["family"]
    return out


def _clean_polygon(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for point in points:
        if not out or math.dist(out[-1], point) > 1e-9:
            out.append(point)
    while len(out) > 1 and math.dist(out[0], out[-1]) <= 1e-9:
        out.pop()
    return out


def _ellipse_polygon(obj: MapObject, sides: int = 16) -> list[tuple[float, float]]:
    rx, ry = obj.width / 2, obj.height / 2
    return [obj.at(rx + rx * math.cos(2 * math.pi * i / sides), ry + ry * math.sin(2 * math.pi * i / sides))
            for i in range(sides)]


def _repair_polygon(points, source: str, reader: _Reader) -> list[tuple[float, float]] | None:
    from shapely.geometry import Polygon
    from shapely.validation import make_valid

    polygon = Polygon(points)
    if polygon.is_valid and polygon.area > 0:
        return points
    fixed = make_valid(polygon)
    parts = [g for g in getattr(fixed, "geoms", [fixed]) if g.geom_type == "Polygon" and g.area > 0]
    if not parts:
        reader.note(source, "the polygon has no area; skipped")
        return None
    largest = max(parts, key=lambda g: g.area)
    reader.note(source, f"the polygon crosses itself; repaired to its largest part ({len(parts)} part(s))")
    return _clean_polygon([tuple(p) for p in largest.exterior.coords])


def _prop(props: dict[str, Any], used: set[str], name: str) -> Any:
    """A property by name (case-insensitive, ``color`` for ``colour``), marked as used."""
    for key, value in props.items():
        lowered = key.lower()
        if _PROP_ALIASES.get(lowered, lowered) == name:
            used.add(key)
            return value
    return None


def _id_value(value: Any, lower: bool = False) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    text = text.lower() if lower else text
    return text if _ID_PATTERN.match(text) else None


def _locks(value: Any) -> list[str]:
    if isinstance(value, list):
        parts = [str(v) for v in value]
    else:
        parts = re.split(r"[\s,;]+", str(value or ""))
    return [p.strip().lower() for p in parts if p.strip()]


def _fmod_rotation(degrees: float) -> float:
    return round(math.fmod(degrees, 360.0), 6)


# ------------------------------------------------------------------------------------------
# line family


def _build_line(reader: _Reader) -> dict:
    props = reader.map_props
    used_map_props = {MARKER, "family"}
    title = props.get("title") if isinstance(props.get("title"), str) and props.get("title") else None
    if title:
        used_map_props.add("title")
    builder = LineDungeonBuilder(dungeon_id=str(props.get("id") or reader.path.stem) if reader.exact
                                 else reader.path.stem, title=title or reader.path.stem,
                                 ruleset=reader.options.ruleset or "line-classic")
    if reader.exact:
        mm = 1.0 / float(props["px_per_mm"])

        def unit(point):
            return point[0] * mm, point[1] * mm
    else:
        def unit(point):
            return point[0] / reader.tile_w, point[1] / reader.tile_h

    artifact_numbers = iter(range(1, 1000))
    for obj, kind, defaults, source in reader.mapped_objects():
        used: set[str] = set()
        wanted = _id_value(_prop(obj.properties, used, "id"))
        fallback_id = f"{kind}{obj.id}"
        try:
            if kind in AREA_KINDS:
                if obj.shape in ("rect", "tile"):
                    points = obj.corners()
                elif obj.shape == "polygon":
                    points = obj.points
                elif obj.shape == "ellipse":
                    points = _ellipse_polygon(obj)
                    reader.note(source, "an ellipse; imported as a 16-sided polygon")
                else:
                    raise _Skip(f"a {kind} must be a rectangle or a polygon, not a {obj.shape}")
                points = _clean_polygon([unit(p) for p in points])
                if len(points) < 3:
                    raise _Skip(f"the {kind} has fewer than 3 distinct points")
                points = _repair_polygon(points, source, reader)
                if points is None:
                    continue
                builder.add_area(kind, points, obj.name[:200] or None, wanted or fallback_id)
            elif kind == "wall":
                if obj.shape == "polyline":
                    points = obj.points
                elif obj.shape in ("polygon", "rect", "tile"):
                    points = obj.corners()
                    points = points + points[:1]
                else:
                    raise _Skip(f"a wall must be a polyline, polygon or rectangle, not a {obj.shape}")
                points = [unit(p) for p in points]
                if len(_clean_polygon(points)) < 2:
                    raise _Skip("the wall has fewer than 2 distinct points")
                builder.add_wall(points, wanted or fallback_id)
            elif kind == "door":
                _add_door(builder, reader, obj, unit, used, defaults, wanted or fallback_id)
            elif kind == "label":
                text = obj.text if obj.shape == "text" else None
                text = text or _prop(obj.properties, used, "text") or obj.name
                if isinstance(text, str):
                    text = reader.clean_text(text, 500, obj, "text").strip()
                if not isinstance(text, str) or not text:
                    raise _Skip("a label needs text (a text object, or a 'text' property)")
                at = obj.at(obj.width / 2, obj.height) if obj.shape == "text" else obj.centre()
                height = _prop(obj.properties, used, "text_height_mm") or defaults.get("text_height_mm") or 3.0
                height = min(max(_number(height, "text_height_mm"), 0.1), 100)
                builder.add_element("label", unit(at), wanted or fallback_id, text=text[:500],
                                    text_height_mm=round(height, 3), rotation_deg=_fmod_rotation(obj.rotation),
                                    **({"name": obj.name[:200]} if obj.name and obj.shape == "text" else {}))
            else:
                _add_disc(builder, reader, obj, kind, unit, used, defaults, wanted or fallback_id, artifact_numbers)
        except _Skip as exc:
            reader.note(source, f"{exc}; skipped")
            continue
        ignored = sorted(set(obj.properties) - used)
        if ignored:
            reader.note(source, "properties " + ", ".join(repr(n[:40]) for n in ignored[:20])
                        + f" have no meaning for a {kind}; ignored")
    if reader.exact:
        data = builder.build(cell_mm=0)
        _place_exact(builder, data)
        _exact_sheet(reader, data, used_map_props)
    else:
        data = builder.build(cell_mm=reader.options.cell_mm, default_cell_mm=DEFAULT_CELL_MM)
    reader.notes.extend(builder.notes)
    _map_props_note(reader, used_map_props)
    return printable_texts(data, reader.note)


def _add_door(builder, reader, obj, unit, used, defaults, wanted) -> None:
    if obj.shape in ("polyline", "polygon") and len(obj.points) >= 2:
        segment = (obj.points[0], obj.points[-1] if obj.shape == "polyline" else obj.points[1])
        if len(obj.points) > 2:
            reader.note(obj.describe(), f"a door {obj.shape} of {len(obj.points)} points: "
                                        f"its {'first and last' if obj.shape == 'polyline' else 'first two'} "
                                        f"points are the door")
    elif obj.shape in ("rect", "tile") and (obj.width > 0 or obj.height > 0):
        top = -obj.height if obj.shape == "tile" else 0.0
        if obj.width >= obj.height:  # the middle line along the longer side
            segment = (obj.at(0, top + obj.height / 2), obj.at(obj.width, top + obj.height / 2))
        else:
            segment = (obj.at(obj.width / 2, top), obj.at(obj.width / 2, top + obj.height))
    elif obj.shape in ("polyline", "polygon"):
        raise _Skip(f"a door {obj.shape} needs 2 points, this one has {len(obj.points)}")
    else:
        raise _Skip(f"a door must be a line (polyline) or a rectangle, not a {obj.shape}")
    if math.dist(segment[0], segment[1]) <= 1e-9:
        raise _Skip("the door has no length")
    value = _prop(obj.properties, used, "locks")
    if value is None:
        value = _prop(obj.properties, used, "colour")
    if value is None:
        value = defaults.get("locks")
    locks = [lock for lock in _locks(value)]
    bad = [lock for lock in locks if not _ID_PATTERN.match(lock)]
    if bad:
        raise _Skip(f"locks {', '.join(map(repr, bad))} are not key colours")
    if not locks:
        raise _Skip("a door without locks is an open doorway (where two areas meet); give it a 'locks' property "
                    "(key colours or 'skeleton') to make it a door")
    if len(locks) > 4:
        reader.note(obj.describe(), f"{len(locks)} locks; the first 4 kept")
        locks = locks[:4]
    builder.add_door((unit(segment[0]), unit(segment[1])), locks, wanted, obj.name[:200] or None)


def _add_disc(builder, reader, obj, kind, unit, used, defaults, wanted, artifact_numbers) -> None:
    members: dict[str, Any] = {}
    for member in _MEMBER_PROPS.get(kind, ()):
        value = _prop(obj.properties, used, member)
        if value is None:
            value = defaults.get(member)
        if member in ("vp", "number"):
            if value is not None:
                number = _number(value, member)
                if not number.is_integer():
                    raise _Skip(f"{member} {value!r} is not a whole number")
                value = int(number)
                if member == "vp" and not -99 <= value <= 99 or member == "number" and not 1 <= value <= 999:
                    raise _Skip(f"{member} {value} is out of range")
            elif member == "number":
                value = next(artifact_numbers)
                reader.note(obj.describe(), f"an artifact stone without a 'number' property; numbered {value}")
        else:
            text = _id_value(value, lower=member in ("colour", "variant"))
            if value is not None and text is None:
                raise _Skip(f"{member} {str(value)[:40]!r} is not a name (letters, digits, '_', '.', '-')")
            value = text
        if value is None and kind in _DEFAULT_MEMBERS and _DEFAULT_MEMBERS[kind][0] == member:
            value = _DEFAULT_MEMBERS[kind][1]
            reader.note(obj.describe(), f"a {kind} without a {member!r} property; {member} {value} assumed")
        if value is None:
            raise _Skip(f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} needs a {member!r} property")
        members[member] = value
    size = _prop(obj.properties, used, "size_mm")
    if size is None:
        size = defaults.get("size_mm")
    if size is not None:
        size = _number(size, "size_mm")
        if not 0.1 <= size <= 500:
            raise _Skip(f"size_mm {size:g} is out of range (0.1 to 500)")
    elif reader.exact and obj.shape in ("ellipse", "rect", "tile") and min(obj.width, obj.height) > 0:
        size = min(obj.width, obj.height) / float(reader.map_props["px_per_mm"])
    if obj.name:
        members["name"] = obj.name[:200]
    builder.add_element(kind, unit(obj.centre()), wanted, round(size, 3) if size else None,
                        rotation_deg=_fmod_rotation(obj.rotation), **members)


def _place_exact(builder: LineDungeonBuilder, data: dict) -> None:
    """Coordinates already in sheet mm: replace the builder's centred placement by identity."""
    def place(point):
        return [round(point[0], 3), round(point[1], 3)]

    for area, source in zip(data["areas"], builder.areas):
        area["polygon"] = [place(p) for p in source["polygon"]]
    for wall, source in zip(data["walls"], builder.walls):
        wall["points"] = [place(p) for p in source["points"]]
    for element, source in zip(data["elements"], builder.elements):
        if "at" in element:
            element["at"] = place(source["at"])
        if "segment" in element:
            element["segment"] = [place(p) for p in source["segment"]]


def _json_prop(reader: _Reader, used: set[str], name: str, kind: type) -> Any:
    value = reader.map_props.get(name)
    if not isinstance(value, str):
        return None
    used.add(name)
    try:
        parsed = json.loads(value)
    except ValueError:
        reader.note(f"map property {name!r}", "is not valid JSON; the default is used")
        return None
    return parsed if isinstance(parsed, kind) else None


def _exact_sheet(reader: _Reader, data: dict, used: set[str]) -> None:
    """The sheet of a map written by ``inkcrawl export tiled``, from its map properties."""
    props = reader.map_props
    for name in ("id", "ruleset", "px_per_mm"):
        used.add(name)
    if _ID_PATTERN.match(str(props.get("id", ""))):
        data["id"] = props["id"]
    if not reader.options.ruleset and _ID_PATTERN.match(str(props.get("ruleset", ""))):
        data["ruleset"] = props["ruleset"]
    paper = data["sheet"]["paper"]
    for key, name in (("width_mm", "paper_width_mm"), ("height_mm", "paper_height_mm"),
                      ("margin_mm", "paper_margin_mm")):
        if isinstance(props.get(name), (int, float)) and not isinstance(props.get(name), bool):
            used.add(name)
            value = float(props[name])
            paper[key] = int(value) if value.is_integer() else value
    reminders = _json_prop(reader, used, "reminders", list)
    if reminders is not None:
        data["sheet"]["reminders"] = [str(r)[:300] for r in reminders if r][:20]
    if data["family"] == "line":
        for name, kind in (("components", list), ("end_triggers", list), ("orb_tokens", dict)):
            value = _json_prop(reader, used, name, kind)
            if value is not None:
                data["sheet"][name] = value


def _map_props_note(reader: _Reader, used: set[str]) -> None:
    if reader.exact:
        used |= {"grid_columns", "grid_rows", "grid_cell_mm", "grid_origin_x_mm", "grid_origin_y_mm",
                 "column_labels", "row_labels"}
    left = sorted(set(reader.map_props) - used)
    if left:
        reader.note("the map", "properties " + ", ".join(repr(n[:40]) for n in left[:20]) + " ignored")
    if reader.data.get("class"):
        reader.note("the map", f"class {str(reader.data['class'])[:60]!r} ignored")


# ------------------------------------------------------------------------------------------
# grid family

_SIDE_NAMES = ("north", "east", "south", "west")


def _build_grid(reader: _Reader) -> dict:
    props = reader.map_props
    used = {MARKER, "family"}
    if reader.exact:
        try:
            columns, rows = int(props["grid_columns"]), int(props["grid_rows"])
            cell_mm = float(props["grid_cell_mm"])
            origin = (float(props["grid_origin_x_mm"]), float(props["grid_origin_y_mm"]))
        except (KeyError, TypeError, ValueError):
            raise ImportFailed("an inkcrawl grid map needs the grid_* map properties") from None
        labels = (props.get("column_labels"), props.get("row_labels"))
        mm = 1.0 / float(props["px_per_mm"])

        def cell_units(point):
            return (point[0] * mm - origin[0]) / cell_mm, (point[1] * mm - origin[1]) / cell_mm
    else:
        columns, rows = reader.columns, reader.rows
        if not (1 <= columns <= 100 and 1 <= rows <= 100):
            raise ImportFailed(f"a grid dungeon has 1 to 100 columns and rows; this map is {columns} x {rows} tiles")
        band_w = DRAWING_BAND_MM[2] - DRAWING_BAND_MM[0]
        band_h = DRAWING_BAND_MM[3] - DRAWING_BAND_MM[1]
        cell_mm = reader.options.cell_mm or DEFAULT_GRID_CELL_MM
        fit = min(band_w / columns, band_h / rows)
        if cell_mm > fit:
            if fit < 5:
                raise ImportFailed(f"{columns} x {rows} rooms do not fit on A4 at the smallest room size (5 mm)")
            reader.note("the whole map", f"{cell_mm:g} mm rooms would be {columns * cell_mm:.0f} x "
                                         f"{rows * cell_mm:.0f} mm; scaled down to {math.floor(fit * 1000) / 1000:g} "
                                         f"mm to fit the sheet")
            cell_mm = math.floor(fit * 1000) / 1000
        origin = (round(DRAWING_BAND_MM[0] + (band_w - columns * cell_mm) / 2, 3),
                  round(DRAWING_BAND_MM[1] + (band_h - rows * cell_mm) / 2, 3))
        labels = ("letters", "numbers")

        def cell_units(point):
            return point[0] / reader.tile_w, point[1] / reader.tile_h
    column_labels, row_labels = (label if label in ("letters", "numbers") else default
                                 for label, default in zip(labels, ("letters", "numbers")))
    ids: set[str] = set()

    def unique(wanted: str) -> str:
        base = safe_id(wanted)
        candidate, number = base, 2
        while candidate in ids:
            candidate = f"{base[:58]}-{number}"
            number += 1
        ids.add(candidate)
        return candidate

    def inside(cell) -> bool:
        return 0 <= cell[0] < columns and 0 <= cell[1] < rows

    def nearest_edge(obj: MapObject):
        """The room edge nearest the object's centre (a passage or entryway sits on one)."""
        u, v = cell_units(obj.centre())
        du, dv = abs(u - round(u)), abs(v - round(v))
        if du <= dv:
            line, row = round(u), math.floor(v)
            return ((line - 1, row), "east") if line >= 1 else ((line, row), "west")
        line, column = round(v), math.floor(u)
        return ((column, line - 1), "south") if line >= 1 else ((column, line), "north")

    def outer(cell, side) -> bool:
        return ((side == "west" and cell[0] == 0) or (side == "east" and cell[0] == columns - 1)
                or (side == "north" and cell[1] == 0) or (side == "south" and cell[1] == rows - 1))

    passages: list[dict] = []
    seen_edges: set = set()
    entryways: list[dict] = []
    features: list[dict] = []
    occupied: dict[tuple[int, int], str] = {}
    for obj, kind, defaults, source in reader.mapped_objects():
        obj_used: set[str] = set()
        wanted = _id_value(_prop(obj.properties, obj_used, "id"))
        if kind == "room":
            continue  # the grid's rooms are every cell; room objects only draw them
        if kind in ("passage", "entryway"):
            cell, side = nearest_edge(obj)
            if not inside(cell):
                reader.note(source, "is not on an edge of the grid; skipped")
                continue
            if kind == "passage":
                if outer(cell, side):
                    reader.note(source, "a passage on the grid's outer edge leads nowhere; skipped")
                    continue
                key = (cell, side) if side in ("east", "south") else (
                    (cell[0] - 1, cell[1]) if side == "west" else (cell[0], cell[1] - 1),
                    "east" if side == "west" else "south")
                if key in seen_edges:
                    reader.note(source, "a second passage on the same edge; skipped")
                    continue
                seen_edges.add(key)
                passages.append({"cell": list(cell), "side": side})
            else:
                if not outer(cell, side):
                    reader.note(source, "an entryway must be on the grid's outer edge; skipped")
                    continue
                entryways.append({"id": unique(wanted or f"e{obj.id}"), "cell": list(cell), "side": side})
        else:
            u, v = cell_units(obj.centre())
            cell = (math.floor(u), math.floor(v))
            if not inside(cell):
                reader.note(source, "is not in a room of the grid; skipped")
                continue
            if cell in occupied:
                reader.note(source, f"room {list(cell)} already has {occupied[cell]}; one feature per room; skipped")
                continue
            feature = {"id": unique(wanted or f"{kind}{obj.id}"), "kind": kind, "cell": list(cell)}
            if obj.name:
                feature["name"] = obj.name[:200]
            letter = _prop(obj.properties, obj_used, "letter") or defaults.get("letter")
            lettered = kind in ("weapon", "monster")  # weapons and monsters pair up by letter
            if letter is not None and not lettered:
                reader.note(source, f"a {kind} has no letter; letter {str(letter)[:10]!r} ignored")
            elif letter is not None:
                letter = str(letter).strip().upper()
                if not re.fullmatch(r"[A-Z]", letter):
                    reader.note(source, f"letter {letter[:10]!r} is not one letter A-Z; skipped")
                    continue
                feature["letter"] = letter
            elif lettered:
                given = sum(f["kind"] == kind for f in features)
                feature["letter"] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[given % 26]
                reader.note(source, f"a {kind} needs a letter (weapons and monsters pair up by letter); no "
                                    f"'letter' property, so it is {feature['letter']} (the {kind}s in map order)")
            occupied[cell] = f"{kind} {feature['id']}"
            features.append(feature)
        ignored = sorted(set(obj.properties) - obj_used)
        if ignored:
            reader.note(source, "properties " + ", ".join(repr(n[:40]) for n in ignored[:20])
                        + f" have no meaning for a {kind}; ignored")
    given_title = props.get("title")
    title = given_title if isinstance(given_title, str) and given_title else reader.path.stem
    if props.get("title") == title:
        used.add("title")
    data = {
        "type": "dungeon", "format_version": 2, "id": safe_id(reader.path.stem, "dungeon"), "family": "grid",
        "ruleset": reader.options.ruleset or "grid-classic",
        "sheet": {"title": title[:120], "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
                  "reminders": []},
        "grid": {"columns": columns, "rows": rows, "cell_mm": cell_mm, "origin_mm": list(origin),
                 "column_labels": column_labels, "row_labels": row_labels},
        "passages": passages, "entryways": entryways, "features": features,
    }
    if reader.exact:
        _exact_sheet(reader, data, used)
    _map_props_note(reader, used)
    return printable_texts(data, reader.note)


# ------------------------------------------------------------------------------------------
# the plugin


def load_map(path: Path) -> dict:
    """A Tiled map file (TMX or JSON) as the JSON structure; :class:`ImportFailed` if it is not
    a readable Tiled map."""
    data = _read_bytes(path, "file")
    if _looks_like_xml(data):
        root = parse_xml(data)
        if root.tag == "tileset":
            raise ImportFailed("this is a Tiled tileset (.tsx), not a map; import the map that uses it")
        try:
            return tmx_to_dict(root)
        except (ValueError, TypeError) as exc:
            raise ImportFailed(f"not a readable TMX map ({exc})"[:300]) from None
    value = _parse_json(data, "file")
    if not isinstance(value, dict):
        raise ImportFailed("a Tiled JSON map is an object")
    if value.get("type") == "tileset":
        raise ImportFailed("this is a Tiled tileset, not a map; import the map that uses it")
    if value.get("type") not in (None, "map") or not isinstance(value.get("layers"), list):
        raise ImportFailed("not a Tiled map: no 'layers' list")
    return value


class TiledImporter:
    """Tiled maps: TMX (XML) and JSON (.tmj/.json), every era."""

    name = NAME
    description = "Tiled map, TMX or JSON"

    def detect(self, path: Path, head: bytes) -> bool:
        stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if stripped.startswith(b"<"):
            return bool(re.search(rb"<(map|tileset)[\s>/]", stripped[:4096]))
        if not stripped.startswith(b"{"):
            return False
        if b'"tiledversion"' in head:
            return True
        return b'"orientation"' in head and b'"layers"' in head and b'"tilewidth"' in head

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        data = load_map(path)
        try:
            reader = _Reader(path, data, options)
            orientation = data.get("orientation", "orthogonal")
            if orientation != "orthogonal":
                reader.note("the map", f"orientation {str(orientation)[:20]!r}: object positions are read as "
                                       f"orthogonal pixels")
            version = data.get("version")
            if version is not None and version_number(version) >= 2:
                reader.note("the map", f"format version {str(version)[:20]!r} is newer than this importer knows "
                                       f"(1.x); read as a 1.x map")
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


IMPORTER = TiledImporter()
