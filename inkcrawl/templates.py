"""New dungeons from a ruleset: the starting point of the editor's File > New and the pack
browser's Add (:func:`template_data`), and of ``inkcrawl new`` (:func:`starter_data`).

A grid template is the ruleset's board (columns, rows, cell size, axis labels) on A4 with a
passage on every inner edge (the designer walls rooms off with the edge tool), and no
entryway or feature yet. A line template is an empty A4 sheet with the
ruleset's end trigger "exit reached" listed, so the designer starts drawing rooms at once.
Both are valid JSON for ``schemas/dungeon.schema.json`` (the rule checks then list what the
ruleset still asks for, which is the designer's to-do list).

A starter (:func:`starter_data`) is a template that already validates with no errors: a grid
board with the ruleset's entryways and features placed, a line sheet with one room holding a
Start, a monster and an exit. The designer changes it rather than fills it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from inkcrawl.rulesets import Ruleset

#: A4 portrait, as every bundled sheet.
A4 = {"width_mm": 210, "height_mm": 297, "margin_mm": 10}


def slug(text: str, fallback: str = "dungeon") -> str:
    """A file-and-id-friendly version of a title: lower case, dashes, ASCII letters and digits."""
    value = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return value or fallback


def template_data(
    ruleset: Ruleset,
    title: str = "Untitled Dungeon",
    dungeon_id: str | None = None,
    size: tuple[int, int] | None = None,
) -> dict:
    """Dungeon JSON data for a new dungeon played with ``ruleset`` (a dict the caller owns).

    Grid family: the ruleset's ``board`` sizes (or ``size``, ``(columns, rows)``, with rooms
    made smaller, to a whole or half mm, when the ruleset's would not fit the paper), the grid
    centred across the printable width with room above it for the title, every inner edge a
    passage. Line family: an empty sheet. Raises ``ValueError`` for a ruleset of an unknown
    family.
    """
    common: dict[str, Any] = {
        "type": "dungeon",
        "format_version": 2,
        "id": dungeon_id or slug(title),
        "family": ruleset.family,
        "ruleset": ruleset.id,
        "sheet": {"title": title, "paper": dict(A4), "reminders": []},
    }
    if ruleset.family == "grid":
        board = ruleset.data.get("board", {})
        columns, rows = int(board.get("columns", 7)), int(board.get("rows", 7))
        cell = float(board.get("cell_mm", 24))
        if size is not None and (int(size[0]), int(size[1])) != (columns, rows):
            columns, rows = max(1, int(size[0])), max(1, int(size[1]))
            room_x = A4["width_mm"] - 2 * (A4["margin_mm"] + 11)
            room_y = A4["height_mm"] - 40 - A4["margin_mm"] - 11
            fitting = min(cell, room_x / columns, room_y / rows)
            cell = cell if fitting >= cell else max(0.5, math.floor(fitting * 2) / 2)
        width = columns * cell
        origin_x = round(max(A4["margin_mm"] + 11, (A4["width_mm"] - width) / 2), 3)
        common["grid"] = {
            "columns": columns,
            "rows": rows,
            "cell_mm": cell,
            "origin_mm": [origin_x, 40],
            "column_labels": board.get("column_labels", "letters"),
            "row_labels": board.get("row_labels", "numbers"),
        }
        passages = [{"cell": [c, r], "side": "east"} for r in range(rows) for c in range(columns - 1)]
        passages += [{"cell": [c, r], "side": "south"} for r in range(rows - 1) for c in range(columns)]
        common.update(passages=passages, entryways=[], features=[])
        return common
    if ruleset.family == "line":
        common["sheet"].update(components=[], end_triggers=[{"kind": "exit_reached"}], orb_tokens={})
        common.update(areas=[], walls=[], elements=[])
        return common
    raise ValueError(f"ruleset '{ruleset.id}' has an unknown family '{ruleset.family}'")


#: The starter line dungeon's room, in mm on the A4 sheet: (left, top, right, bottom).
STARTER_ROOM = (30.0, 60.0, 180.0, 160.0)


def _spread(count: int, slots: int) -> list[int]:
    """``count`` distinct slot indexes of ``range(slots)``, as evenly spaced as they can be."""
    count = min(count, slots)
    return [int((index + 0.5) * slots / count) for index in range(count)] if count else []


def _outer_edges(columns: int, rows: int) -> list[tuple[tuple[int, int], str]]:
    """The grid's outer edges clockwise from the top-left room: ``((column, row), side)``."""
    edges = [((c, 0), "north") for c in range(columns)]
    edges += [((columns - 1, r), "east") for r in range(rows)]
    edges += [((c, rows - 1), "south") for c in reversed(range(columns))]
    edges += [((0, r), "west") for r in reversed(range(rows))]
    return edges


def starter_data(ruleset: Ruleset, title: str = "Untitled Dungeon", dungeon_id: str | None = None) -> dict:
    """A new dungeon played with ``ruleset`` that validates with no errors (a dict the caller owns).

    Grid family: :func:`template_data`'s board with the ruleset's minimum of entryways spread
    along the outer edges and of each feature kind spread over the rooms (lettered kinds take
    the ruleset's letters in order, so weapon A meets monster A), one feature a room. Line
    family: :func:`template_data`'s sheet with one room (:data:`STARTER_ROOM`, mm) holding a
    Start on its top wall, a monster and an exit at the ruleset's sizes (the end trigger
    "exit reached" is already listed); a kind the ruleset lacks is left out. Raises
    ``ValueError`` for a ruleset of an unknown family, or a grid too small for its features.
    """
    data = template_data(ruleset, title, dungeon_id)
    if ruleset.family == "grid":
        columns, rows = data["grid"]["columns"], data["grid"]["rows"]
        need = int(ruleset.data.get("entryways", {}).get("count", {}).get("min", 0))
        edges = _outer_edges(columns, rows)
        data["entryways"] = [
            {"id": f"entry-{number}", "cell": list(edges[slot][0]), "side": edges[slot][1]}
            for number, slot in enumerate(_spread(need, len(edges)), start=1)
        ]
        wanted: list[tuple[str, str | None]] = []
        for kind, spec in ruleset.elements.items():
            letters = spec.get("letters")
            for index in range(int(spec.get("count", {}).get("min", 0))):
                wanted.append((kind, letters[index % len(letters)] if letters else None))
        if len(wanted) > columns * rows:
            raise ValueError(
                f"ruleset '{ruleset.id}' asks for {len(wanted)} features, more than the {columns * rows} rooms"
            )
        # interleave the kinds so that a weapon and its monster are not neighbours
        order = sorted(range(len(wanted)), key=lambda i: (wanted[i][1] or "", i))
        cells = _spread(len(wanted), columns * rows)
        features: list[dict[str, Any]] = []
        for slot, index in zip(cells, order):
            kind, letter = wanted[index]
            feature = {"id": f"{kind}-{len(features) + 1}", "kind": kind, "cell": [slot % columns, slot // columns]}
            if letter is not None:
                feature["letter"] = letter
                feature["id"] = f"{kind}-{letter.lower()}"
            features.append(feature)
        data["features"] = sorted(features, key=lambda f: (f["cell"][1], f["cell"][0]))
        return data
    left, top, right, bottom = STARTER_ROOM
    outline = [[left, top], [right, top], [right, bottom], [left, bottom]]
    data["areas"] = [{"id": "room-1", "kind": "room", "name": "First Hall", "polygon": outline}]
    places = {
        "start": ((left + right) / 2, top),
        "monster": (left + (right - left) / 3, (top + bottom) / 2),
        "exit": (right - 20, bottom - 20),
    }
    for kind, (x, y) in places.items():
        defined = ruleset.kinds.get(kind)
        if defined is None or defined.size_mm is None:
            continue
        element = {"id": f"{defined.id_prefix}-1", "kind": kind, "at": [x, y], "size_mm": defined.size_mm}
        element["rotation_deg"] = 0
        if kind == "exit":
            element["name"] = "Way Out"
        data["elements"].append(element)
    if "exit" not in ruleset.kinds:
        data["sheet"]["end_triggers"] = []
    return data
