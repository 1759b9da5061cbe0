"""What Tiled objects become: the default mappings of class names to element kinds of both
families, the properties each kind reads, the ``--map`` file checked, and an object's
properties looked up by name (ids, locks)."""

from __future__ import annotations

import json
import re
from typing import Any

from inkcrawl.importers import MappingFailed, did_you_mean
from inkcrawl.rulesets import bundled_rulesets

#: Special targets of the mapping besides element kinds.
AREA_KINDS = ("room", "corridor")
IGNORE = "ignore"

#: Default mapping for the line family: normalised class name -> what it becomes.
LINE_CLASSES: dict[str, str] = {
    **{kind: kind for kind, spec in bundled_rulesets()["line-classic"].kinds.items() if spec.footprint == "disc"},
    "room": "room",
    "corridor": "corridor",
    "wall": "wall",
    "door": "door",
    "label": "label",
    "text": "label",
    # a few common names used in Tiled maps
    "enemy": "monster",
    "chest": "treasure",
    "spawn": "start",
    "player_start": "start",
    "entrance": "start",
    "portal": "portal_entry",
}
#: Default mapping for the grid family (``room`` objects are the grid's own rooms: accepted, not needed).
GRID_CLASSES: dict[str, str] = {
    "room": "room",
    "passage": "passage",
    "entryway": "entryway",
    "loot": "loot",
    "dragon": "dragon",
    "weapon": "weapon",
    "monster": "monster",
    "enemy": "monster",
    "treasure": "loot",
    "chest": "loot",
}

#: What a class may become, for suggestions when a mapping names something else.
_KNOWN_TARGETS = sorted(set(LINE_CLASSES.values()) | set(GRID_CLASSES.values()) | {IGNORE})

#: Per kind, the custom properties that set its members (names compared case-insensitively).
_MEMBER_PROPS = {
    "boss": ("vp",),
    "spell": ("variant",),
    "treasure": ("variant",),
    "artifact_stone": ("number",),
    "orb": ("colour",),
    "key": ("colour",),
    "portal_entry": ("channel",),
    "portal_exit": ("channel",),
}
_DEFAULT_MEMBERS = {"boss": ("vp", 10), "spell": ("variant", "bolt"), "treasure": ("variant", "chest")}
_PROP_ALIASES = {"color": "colour", "lock": "locks", "kind": "kind"}
_KIND_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _normal(name: str) -> str:
    """A class name compared loosely: lower case, spaces and hyphens as underscores."""
    return re.sub(r"[\s-]+", "_", str(name).strip().lower())


def _user_mapping(mapping: dict | None) -> dict:
    """The ``--map`` file checked: ``{"family"?: "line"|"grid", "classes": {name: kind or
    {"kind": kind, member: default...}}}``; :class:`MappingFailed` naming the member if not."""
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise MappingFailed("the mapping must be a JSON object")
    unknown = sorted(set(mapping) - {"classes", "family", "description", "$schema"})
    if unknown:
        raise MappingFailed(
            f"the mapping has unknown members {', '.join(map(repr, unknown))}"
            f"{did_you_mean(unknown[0], ('classes', 'family', 'description'))} (use 'classes' and 'family')"
        )
    if "family" in mapping and mapping["family"] not in ("line", "grid"):
        family = mapping["family"]
        raise MappingFailed(
            f"'family' is {str(family)[:40]!r}{did_you_mean(family, ('line', 'grid'))}: use 'line' or 'grid'"
        )
    classes = mapping.get("classes", {})
    if not isinstance(classes, dict):
        raise MappingFailed("'classes' must be an object of class name -> element kind")
    checked = {}
    for name, entry in classes.items():
        kind = entry.get("kind") if isinstance(entry, dict) else entry
        if not isinstance(kind, str) or not (kind == IGNORE or _KIND_PATTERN.match(kind)):
            raise MappingFailed(
                f"classes/{str(name)[:60]}: {json.dumps(kind)[:40] if kind is not None else 'no kind'} is not an "
                f"element kind{did_you_mean(kind, _KNOWN_TARGETS)}; give an element kind (lower case letters, "
                f"digits, '_'), 'ignore', or an object with such a 'kind', e.g. \"Goblin\": \"monster\""
            )
        checked[name] = entry
        checked.setdefault(_normal(name), entry)
    out = {"classes": checked}
    if "family" in mapping:
        out["family"] = mapping["family"]
    return out


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
