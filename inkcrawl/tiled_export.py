"""Our dungeons as Tiled maps (``inkcrawl export tiled``), as TMJ (JSON) or TMX (XML).

Pure Python (no Qt). The map is orthogonal; one Tiled pixel is ``1 / px_per_mm`` mm of the
sheet (default :data:`DEFAULT_PX_PER_MM`), the map's tiles are ``tile_mm`` mm square (default
:data:`DEFAULT_TILE_MM`, so 20 px tiles) and the map is as many tiles as cover the paper.
Sheet coordinates (mm, origin top-left, y down) times ``px_per_mm`` are Tiled pixels: both
have the origin top-left and y down.

Line dungeons: object layers ``areas`` (room and corridor polygons), ``walls`` (polylines),
``doors`` (two-point polylines), ``elements`` (every disc element as an ellipse object of its
printed diameter) and ``labels`` (text objects). Grid dungeons: ``rooms`` (one rectangle per
room, named by its coordinate), ``passages`` and ``entryways`` (two-point polylines on the
edge) and ``features`` (ellipses centred in their room). The element or feature kind is the
object's class, written as ``type`` (what Tiled up to 1.8 and from 1.10 reads) and ``class``
(what Tiled 1.9 reads). Our members are typed custom properties (``id``, ``vp``, ``number``,
``colour``, ``channel``, ``variant``, ``letter``, ``text_height_mm``; a door's ``locks`` as a
comma-separated string). Everything else the sheet needs is in map properties, with
``inkcrawl_format_version`` marking the map as ours so that ``inkcrawl import`` reads it back
at its exact place (docs/importing-tiled.md).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from inkcrawl.model import SIDE_OFFSETS, Dungeon, GridDungeon, LineDungeon

#: Tiled pixels per sheet millimetre.
DEFAULT_PX_PER_MM = 4.0
#: Side of a map tile in mm (the tile size in px is ``tile_mm * px_per_mm`` and must be whole).
DEFAULT_TILE_MM = 5.0
#: The Tiled map format version we write, and the Tiled release that defines it.
TILED_VERSION = "1.10"
TILED_RELEASE = "1.10.2"
#: The map property that marks a map written by inkcrawl (its value: our dungeon format version).
MARKER = "inkcrawl_format_version"
#: Diameter of a grid feature's ellipse, as a fraction of the room side.
FEATURE_FRACTION = 0.5


class TiledExportError(ValueError):
    """The options cannot make a valid Tiled map (the message says why)."""


def _typed(name: str, value: Any, kind: str | None = None) -> dict:
    """A Tiled custom property with its type: bool, int, float or string."""
    if kind is None:
        if isinstance(value, bool):
            kind = "bool"
        elif isinstance(value, int):
            kind = "int"
        elif isinstance(value, float):
            kind = "float"
        else:
            kind = "string"
    if kind == "float":
        value = float(value)
    elif kind == "string":
        value = str(value)
    return {"name": name, "type": kind, "value": value}


def _num(value: float) -> float | int:
    """A pixel value without float noise (6 decimals: far below 0.001 mm)."""
    value = round(float(value), 6)
    return int(value) if value.is_integer() else value


def _rotate(dx: float, dy: float, degrees: float) -> tuple[float, float]:
    """``(dx, dy)`` turned by ``degrees`` clockwise on screen (y down), as Tiled rotates objects."""
    a = math.radians(degrees)
    return dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)


class _MapWriter:
    def __init__(self, px_per_mm: float, tile_mm: float):
        if not (0.1 <= px_per_mm <= 100 and math.isfinite(px_per_mm)):
            raise TiledExportError("px-per-mm must be between 0.1 and 100")
        if not (0.5 <= tile_mm <= 200 and math.isfinite(tile_mm)):
            raise TiledExportError("tile-mm must be between 0.5 and 200 mm")
        tile_px = tile_mm * px_per_mm
        if abs(tile_px - round(tile_px)) > 1e-9 or round(tile_px) < 1:
            raise TiledExportError(
                f"a tile of {tile_mm:g} mm at {px_per_mm:g} px per mm is {tile_px:g} px; "
                f"Tiled needs a whole number of pixels"
            )
        self.px = px_per_mm
        self.tile_mm = tile_mm
        self.tile_px = int(round(tile_px))
        self.layers: list[dict] = []
        self.next_object = 1

    def pt(self, point) -> tuple[float, float]:
        return point[0] * self.px, point[1] * self.px

    def layer(self, name: str) -> list[dict]:
        objects: list[dict] = []
        self.layers.append(
            {
                "draworder": "topdown",
                "id": len(self.layers) + 1,
                "name": name,
                "objects": objects,
                "opacity": 1,
                "type": "objectgroup",
                "visible": True,
                "x": 0,
                "y": 0,
            }
        )
        return objects

    def obj(
        self,
        objects: list[dict],
        cls: str,
        name: str | None,
        x: float,
        y: float,
        width: float = 0,
        height: float = 0,
        rotation: float = 0,
        properties: list[dict] | None = None,
        **shape,
    ) -> dict:
        item = {
            "id": self.next_object,
            "name": name or "",
            "type": cls,
            "class": cls,
            "x": _num(x),
            "y": _num(y),
            "width": _num(width),
            "height": _num(height),
            "rotation": _num(rotation),
            "visible": True,
        }
        item.update(shape)
        if properties:
            item["properties"] = properties
        self.next_object += 1
        objects.append(item)
        return item

    def poly(self, objects, cls, name, points, closed: bool, properties=None) -> dict:
        px = [self.pt(p) for p in points]
        x0, y0 = px[0]
        relative = [{"x": _num(x - x0), "y": _num(y - y0)} for x, y in px]
        if closed:
            return self.obj(objects, cls, name, x0, y0, properties=properties, polygon=relative)
        return self.obj(objects, cls, name, x0, y0, properties=properties, polyline=relative)

    def disc(self, objects, cls, name, centre, diameter_mm: float, rotation: float, properties=None) -> dict:
        """An ellipse of ``diameter_mm`` whose centre stays at ``centre`` after Tiled's rotation
        about the object's top-left corner."""
        size = diameter_mm * self.px
        cx, cy = self.pt(centre)
        dx, dy = _rotate(size / 2, size / 2, rotation)
        return self.obj(objects, cls, name, cx - dx, cy - dy, size, size, rotation, properties, ellipse=True)


def _line_layers(writer: _MapWriter, dungeon: LineDungeon) -> list[dict]:
    areas = writer.layer("areas")
    for area in dungeon.areas:
        writer.poly(areas, area.kind, area.name, area.polygon, True, [_typed("id", area.id)])
    walls = writer.layer("walls")
    for wall in dungeon.walls:
        writer.poly(walls, "wall", None, wall.points, False, [_typed("id", wall.id)])
    doors = writer.layer("doors")
    elements = writer.layer("elements")
    labels = writer.layer("labels")
    for element in dungeon.elements:
        props = [_typed("id", element.id)]
        for key in ("vp", "number"):
            if getattr(element, key) is not None:
                props.append(_typed(key, int(getattr(element, key)), "int"))
        for key in ("variant", "colour", "channel"):
            if getattr(element, key) is not None:
                props.append(_typed(key, getattr(element, key), "string"))
        if element.kind == "door" and element.segment is not None:
            props.append(_typed("locks", ",".join(element.locks or []), "string"))
            writer.poly(doors, "door", element.name, list(element.segment), False, props)
        elif element.kind == "label" and element.at is not None:
            height_mm = element.text_height_mm or 3.0
            props.append(_typed("text_height_mm", height_mm, "float"))
            text = element.text or ""
            # a box about the text's size; its bottom middle is the baseline middle ``at``
            width = max(len(text), 1) * 0.75 * height_mm * writer.px
            height = 1.5 * height_mm * writer.px
            rotation = element.rotation_deg or 0
            ax, ay = writer.pt(element.at)
            dx, dy = _rotate(width / 2, height, rotation)
            writer.obj(
                labels,
                "label",
                element.name,
                ax - dx,
                ay - dy,
                width,
                height,
                rotation,
                props,
                text={
                    "text": text,
                    "pixelsize": max(1, int(round(height_mm / 0.7 * writer.px))),
                    "halign": "center",
                    "valign": "bottom",
                    "wrap": False,
                },
            )
        elif element.at is not None:
            writer.disc(
                elements, element.kind, element.name, element.at, element.size_mm or 6, element.rotation_deg or 0, props
            )
    return [
        _typed("components", json.dumps(dungeon.sheet.components or [])),
        _typed("end_triggers", json.dumps([t.to_dict() for t in dungeon.sheet.end_triggers or []])),
        _typed("orb_tokens", json.dumps(dungeon.sheet.orb_tokens or {})),
    ]


def _edge(grid, cell, side) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two end points (mm) of the ``side`` edge of room ``cell``."""
    x0 = grid.origin_mm[0] + cell[0] * grid.cell_mm
    y0 = grid.origin_mm[1] + cell[1] * grid.cell_mm
    x1, y1 = x0 + grid.cell_mm, y0 + grid.cell_mm
    return {
        "north": ((x0, y0), (x1, y0)),
        "south": ((x0, y1), (x1, y1)),
        "west": ((x0, y0), (x0, y1)),
        "east": ((x1, y0), (x1, y1)),
    }[side]


def _grid_layers(writer: _MapWriter, dungeon: GridDungeon) -> list[dict]:
    grid = dungeon.grid
    rooms = writer.layer("rooms")
    for row in range(grid.rows):
        for column in range(grid.columns):
            x, y = writer.pt((grid.origin_mm[0] + column * grid.cell_mm, grid.origin_mm[1] + row * grid.cell_mm))
            side = grid.cell_mm * writer.px
            writer.obj(rooms, "room", grid.cell_label((column, row)), x, y, side, side)
    passages = writer.layer("passages")
    for passage in dungeon.passages:
        if passage.side in SIDE_OFFSETS:
            writer.poly(passages, "passage", None, list(_edge(grid, passage.cell, passage.side)), False)
    entryways = writer.layer("entryways")
    for entryway in dungeon.entryways:
        writer.poly(
            entryways,
            "entryway",
            None,
            list(_edge(grid, entryway.cell, entryway.side)),
            False,
            [_typed("id", entryway.id)],
        )
    features = writer.layer("features")
    for feature in dungeon.features:
        props = [_typed("id", feature.id)]
        if feature.letter is not None:
            props.append(_typed("letter", feature.letter, "string"))
        centre = (
            grid.origin_mm[0] + (feature.cell[0] + 0.5) * grid.cell_mm,
            grid.origin_mm[1] + (feature.cell[1] + 0.5) * grid.cell_mm,
        )
        writer.disc(features, feature.kind, feature.name, centre, grid.cell_mm * FEATURE_FRACTION, 0, props)
    return [
        _typed("grid_columns", grid.columns, "int"),
        _typed("grid_rows", grid.rows, "int"),
        _typed("grid_cell_mm", grid.cell_mm, "float"),
        _typed("grid_origin_x_mm", grid.origin_mm[0], "float"),
        _typed("grid_origin_y_mm", grid.origin_mm[1], "float"),
        _typed("column_labels", grid.column_labels),
        _typed("row_labels", grid.row_labels),
    ]


def dungeon_to_map(dungeon: Dungeon, px_per_mm: float = DEFAULT_PX_PER_MM, tile_mm: float = DEFAULT_TILE_MM) -> dict:
    """The Tiled map (the data of a TMJ file) of ``dungeon``; raises :class:`TiledExportError`
    when ``px_per_mm`` and ``tile_mm`` do not give whole-pixel tiles."""
    writer = _MapWriter(px_per_mm, tile_mm)
    if isinstance(dungeon, GridDungeon):
        family_props = _grid_layers(writer, dungeon)
    elif isinstance(dungeon, LineDungeon):
        family_props = _line_layers(writer, dungeon)
    else:
        raise TiledExportError(f"a {dungeon.family} dungeon has no Tiled map")
    sheet = dungeon.sheet
    properties = [
        _typed(MARKER, 2, "int"),
        _typed("family", dungeon.family),
        _typed("id", dungeon.id),
        _typed("ruleset", dungeon.ruleset),
        _typed("title", sheet.title),
        _typed("paper_width_mm", sheet.paper.width_mm, "float"),
        _typed("paper_height_mm", sheet.paper.height_mm, "float"),
        _typed("paper_margin_mm", sheet.paper.margin_mm, "float"),
        _typed("px_per_mm", writer.px, "float"),
        _typed("reminders", json.dumps(list(sheet.reminders), ensure_ascii=False)),
        *family_props,
    ]
    properties.sort(key=lambda p: p["name"])  # Tiled keeps properties sorted by name
    columns = max(1, math.ceil(sheet.paper.width_mm / tile_mm - 1e-9))
    rows = max(1, math.ceil(sheet.paper.height_mm / tile_mm - 1e-9))
    return {
        "compressionlevel": -1,
        "height": rows,
        "infinite": False,
        "layers": writer.layers,
        "nextlayerid": len(writer.layers) + 1,
        "nextobjectid": writer.next_object,
        "orientation": "orthogonal",
        "properties": properties,
        "renderorder": "right-down",
        "tiledversion": TILED_RELEASE,
        "tileheight": writer.tile_px,
        "tilesets": [],
        "tilewidth": writer.tile_px,
        "type": "map",
        "version": TILED_VERSION,
        "width": columns,
    }


def map_to_tmj(tiled_map: dict) -> str:
    """The TMJ (JSON) text of a map."""
    return json.dumps(tiled_map, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _q(text: str) -> str:
    """An XML attribute value in quotes, without the characters XML 1.0 cannot hold."""
    return quoteattr(_XML_INVALID.sub("", str(text)))


def _e(text: str) -> str:
    """XML character data without the characters XML 1.0 cannot hold."""
    return escape(_XML_INVALID.sub("", str(text)))


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(_num(value)) if not float(value).is_integer() else str(int(value))
    return str(value)


def _properties_xml(properties: list[dict], indent: str) -> list[str]:
    if not properties:
        return []
    lines = [f"{indent}<properties>"]
    for prop in properties:
        type_attr = "" if prop["type"] == "string" else f" type={_q(prop['type'])}"
        value = _value_text(prop["value"])
        if "\n" in value:
            lines.append(f"{indent} <property name={_q(prop['name'])}{type_attr}>{_e(value)}</property>")
        else:
            lines.append(f"{indent} <property name={_q(prop['name'])}{type_attr} value={_q(value)}/>")
    lines.append(f"{indent}</properties>")
    return lines


def map_to_tmx(tiled_map: dict) -> str:
    """The TMX (XML) text of a map of object layers, such as :func:`dungeon_to_map` makes."""
    m = tiled_map
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<map version="{m.get("version", TILED_VERSION)}" tiledversion="{m.get("tiledversion", TILED_RELEASE)}" '
        f'orientation="{m.get("orientation", "orthogonal")}" renderorder="{m.get("renderorder", "right-down")}" '
        f'width="{m["width"]}" height="{m["height"]}" tilewidth="{m["tilewidth"]}" '
        f'tileheight="{m["tileheight"]}" infinite="0" nextlayerid="{m.get("nextlayerid", len(m["layers"]) + 1)}" '
        f'nextobjectid="{m.get("nextobjectid", 1)}">',
    ]
    out += _properties_xml(m.get("properties", []), " ")
    for number, layer in enumerate(m["layers"], 1):
        offsets = "".join(f' {key}="{_value_text(layer[key])}"' for key in ("offsetx", "offsety") if layer.get(key))
        out.append(f' <objectgroup id="{layer.get("id", number)}" name={_q(layer.get("name", ""))}{offsets}>')
        for o in layer["objects"]:
            attrs = f'id="{o["id"]}"'
            if o.get("name"):
                attrs += f" name={_q(o['name'])}"
            if o.get("type"):
                attrs += f" type={_q(o['type'])} class={_q(o['type'])}"
            attrs += f' x="{_value_text(o["x"])}" y="{_value_text(o["y"])}"'
            if o.get("width") or o.get("height"):
                attrs += f' width="{_value_text(o["width"])}" height="{_value_text(o["height"])}"'
            if o.get("rotation"):
                attrs += f' rotation="{_value_text(o["rotation"])}"'
            children = _properties_xml(o.get("properties", []), "   ")
            if o.get("ellipse"):
                children.append("   <ellipse/>")
            if o.get("point"):
                children.append("   <point/>")
            for shape in ("polygon", "polyline"):
                if shape in o:
                    points = " ".join(f"{_value_text(p['x'])},{_value_text(p['y'])}" for p in o[shape])
                    children.append(f'   <{shape} points="{points}"/>')
            if "text" in o:
                t = o["text"]
                children.append(
                    f'   <text pixelsize="{t.get("pixelsize", 16)}" halign="{t.get("halign", "left")}" '
                    f'valign="{t.get("valign", "top")}">{_e(t.get("text", ""))}</text>'
                )
            if children:
                out.append(f"  <object {attrs}>")
                out += children
                out.append("  </object>")
            else:
                out.append(f"  <object {attrs}/>")
        out.append(" </objectgroup>")
    out.append("</map>")
    return "\n".join(out) + "\n"


def export_tiled(
    dungeon: Dungeon, suffix: str, px_per_mm: float = DEFAULT_PX_PER_MM, tile_mm: float = DEFAULT_TILE_MM
) -> str:
    """The text of the Tiled file for ``dungeon``: TMX for ``suffix`` ``.tmx``, else TMJ."""
    tiled_map = dungeon_to_map(dungeon, px_per_mm, tile_mm)
    return map_to_tmx(tiled_map) if suffix.lower() == ".tmx" else map_to_tmj(tiled_map)
