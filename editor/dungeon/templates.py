"""New dungeons from a ruleset: the starting point of File > New and the pack browser's Add.

A grid template is the ruleset's board (columns, rows, cell size, axis labels) on A4 with a
passage on every inner edge (the designer walls rooms off with the edge tool), and no
entryway or feature yet. A line template is an empty A4 sheet with the
ruleset's end trigger "exit reached" listed, so the designer starts drawing rooms at once.
Both are valid JSON for ``schemas/dungeon.schema.json`` (the rule checks then list what the
ruleset still asks for, which is the designer's to-do list).
"""

from __future__ import annotations

import math
import re

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
    common = {
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
