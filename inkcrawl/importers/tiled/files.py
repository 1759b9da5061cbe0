"""Reading Tiled files safely: size limits, XML parsed with entity declarations and external
references refused, JSON, TMX (``<map>``, ``<tileset>``, ``<template>``) turned into the JSON
structure Tiled writes in TMJ files (so one reader handles both), and :func:`load_map`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from inkcrawl.importers import ImportFailed

#: Largest map, template or tileset file read, in bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Deepest nesting of group layers accepted.
MAX_GROUP_DEPTH = 50


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
        from defusedxml import DefusedXmlException, EntitiesForbidden, ExternalReferenceForbidden
    except ModuleNotFoundError:  # pragma: no cover - defusedxml is a dependency; this is a safety net
        return _parse_xml_without_dtd(data)
    from xml.etree.ElementTree import ParseError

    try:
        return safe_et.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except EntitiesForbidden as exc:
        if exc.sysid is None:
            raise ImportFailed(_XML_BOMB.format(name=str(exc.name)[:60])) from None
        raise ImportFailed(
            _XML_EXTERNAL.format(what=f"entity {str(exc.name)[:60]!r}", where=str(exc.sysid)[:100])
        ) from None
    except ExternalReferenceForbidden as exc:
        raise ImportFailed(_XML_EXTERNAL.format(what="document", where=str(exc.sysid)[:100])) from None
    except DefusedXmlException as exc:  # pragma: no cover - the two above are all defusedxml raises here
        raise ImportFailed(f"the XML is refused ({exc})"[:300]) from None
    except ParseError as exc:
        raise ImportFailed(f"malformed XML: {exc}") from None
    except LookupError as exc:  # <?xml encoding="..."?> names an encoding Python does not know
        raise ImportFailed(_unknown_encoding(exc)) from None


#: What a TMX or TSX declaring an entity is told (Tiled never writes entity declarations).
_XML_BOMB = (
    "refused as a possible XML bomb: the XML declares the entity {name!r}, and expanding entities (a "
    "billion-laughs or quadratic-blowup file) can take gigabytes; inkcrawl never expands them. Tiled never "
    "writes entities: save the map again from Tiled"
)
#: What an XML file referring to another file or address is told.
_XML_EXTERNAL = (
    "refused: the XML's {what} refers to {where!r} outside the file; inkcrawl never reads external XML "
    "entities or references. Tiled never writes them: save the map again from Tiled"
)


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


def _xml_attribute(element, key: str, owner: str, default: float | int = 0) -> float | int:
    """The number in attribute ``key`` of ``element`` (``default`` when it is absent);
    :class:`ImportFailed` naming ``owner`` (the map, a layer, a tileset) and the attribute when
    it is not a finite number, since the whole map depends on it."""
    text = element.get(key)
    try:
        return _xml_number(text, default)
    except (ValueError, OverflowError):
        raise ImportFailed(f"{owner}: {key} {str(text)[:40]!r} is not a finite number") from None


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
        owner = f"the text of object {str(element.get('id', '?'))[:20]!r}"
        obj["text"] = {"text": text.text or "", "pixelsize": _xml_attribute(text, "pixelsize", owner, 16)}
    return obj


def _xml_tileset(element) -> dict:
    owner = f"tileset {element.get('name', element.get('source', ''))[:60]!r}"
    tileset: dict[str, Any] = {"firstgid": _xml_attribute(element, "firstgid", owner, 1)}
    if element.get("source") is not None:
        tileset["source"] = element.get("source")
    tileset["name"] = element.get("name", "")
    tiles = []
    for tile in element.findall("tile"):
        number = _xml_attribute(tile, "id", f"a tile of {owner}", 0)
        tiles.append({"id": number, "type": tile.get("type") or tile.get("class") or ""})
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
                layer[key] = _xml_attribute(child, key, f"layer {child.get('name', '')[:60]!r} (<{child.tag}>)")
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
        data[key] = _xml_attribute(root, key, "the <map>", 0)
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
# a map file


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
