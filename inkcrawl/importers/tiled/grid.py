"""The grid family: map objects turned into a grid dungeon's passages and entryways (on the
room edge nearest each object) and features (in the room holding each object)."""

from __future__ import annotations

import math
import re

from inkcrawl.importers import ImportFailed, printable_texts
from inkcrawl.importers.build import DRAWING_BAND_MM, safe_id
from inkcrawl.importers.tiled.mapping import _id_value, _prop
from inkcrawl.importers.tiled.objects import MARKER, MapObject, _Reader
from inkcrawl.importers.tiled.sheet import _exact_sheet, _map_props_note

#: Default side of a grid room when importing into the grid family (shrunk to fit A4).
DEFAULT_GRID_CELL_MM = 24.0


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
            reader.note(
                "the whole map",
                f"{cell_mm:g} mm rooms would be {columns * cell_mm:.0f} x "
                f"{rows * cell_mm:.0f} mm; scaled down to {math.floor(fit * 1000) / 1000:g} "
                f"mm to fit the sheet",
            )
            cell_mm = math.floor(fit * 1000) / 1000
        origin = (
            round(DRAWING_BAND_MM[0] + (band_w - columns * cell_mm) / 2, 3),
            round(DRAWING_BAND_MM[1] + (band_h - rows * cell_mm) / 2, 3),
        )
        labels = ("letters", "numbers")

        def cell_units(point):
            return point[0] / reader.tile_w, point[1] / reader.tile_h

    column_labels, row_labels = (
        label if label in ("letters", "numbers") else default for label, default in zip(labels, ("letters", "numbers"))
    )
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
        return (
            (side == "west" and cell[0] == 0)
            or (side == "east" and cell[0] == columns - 1)
            or (side == "north" and cell[1] == 0)
            or (side == "south" and cell[1] == rows - 1)
        )

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
                key = (
                    (cell, side)
                    if side in ("east", "south")
                    else (
                        (cell[0] - 1, cell[1]) if side == "west" else (cell[0], cell[1] - 1),
                        "east" if side == "west" else "south",
                    )
                )
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
                reader.note(
                    source,
                    f"a {kind} needs a letter (weapons and monsters pair up by letter); no "
                    f"'letter' property, so it is {feature['letter']} (the {kind}s in map order)",
                )
            occupied[cell] = f"{kind} {feature['id']}"
            features.append(feature)
        ignored = sorted(set(obj.properties) - obj_used)
        if ignored:
            reader.note(
                source,
                "properties "
                + ", ".join(repr(n[:40]) for n in ignored[:20])
                + f" have no meaning for a {kind}; ignored",
            )
    given_title = props.get("title")
    title = given_title if isinstance(given_title, str) and given_title else reader.path.stem
    if props.get("title") == title:
        used.add("title")
    data = {
        "type": "dungeon",
        "format_version": 2,
        "id": safe_id(reader.path.stem, "dungeon"),
        "family": "grid",
        "ruleset": reader.options.ruleset or "grid-classic",
        "sheet": {"title": title[:120], "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10}, "reminders": []},
        "grid": {
            "columns": columns,
            "rows": rows,
            "cell_mm": cell_mm,
            "origin_mm": list(origin),
            "column_labels": column_labels,
            "row_labels": row_labels,
        },
        "passages": passages,
        "entryways": entryways,
        "features": features,
    }
    if reader.exact:
        _exact_sheet(reader, data, used)
    _map_props_note(reader, used)
    return printable_texts(data, reader.note)
