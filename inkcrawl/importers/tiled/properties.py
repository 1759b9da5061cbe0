"""Values in a Tiled map: custom properties (the property list of Tiled 1.2+ and the old
property map), numbers checked for range, the map's ``version``, and :class:`_Skip`, which
turns a value one object cannot use into a note about that object."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from inkcrawl.importers import ImportFailed, json_kind

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
                kind = (
                    "bool"
                    if isinstance(value, bool)
                    else "int"
                    if isinstance(value, int)
                    else "float"
                    if isinstance(value, float)
                    else "string"
                )
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
