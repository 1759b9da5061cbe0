"""Map properties for either family: the sheet (id, ruleset, paper, reminders, components...)
of a map written by ``inkcrawl export tiled``, and the note naming the map properties and
class left unused."""

from __future__ import annotations

import json
from typing import Any

from inkcrawl.importers.tiled.mapping import _ID_PATTERN
from inkcrawl.importers.tiled.objects import _Reader


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
    for key, name in (
        ("width_mm", "paper_width_mm"),
        ("height_mm", "paper_height_mm"),
        ("margin_mm", "paper_margin_mm"),
    ):
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
        used |= {
            "grid_columns",
            "grid_rows",
            "grid_cell_mm",
            "grid_origin_x_mm",
            "grid_origin_y_mm",
            "column_labels",
            "row_labels",
        }
    left = sorted(set(reader.map_props) - used)
    if left:
        reader.note("the map", "properties " + ", ".join(repr(n[:40]) for n in left[:20]) + " ignored")
    if reader.data.get("class"):
        reader.note("the map", f"class {str(reader.data['class'])[:60]!r} ignored")
