"""Checking a dungeon entry of game data before an engine compiles it.

Both engines first validate the entry with the game schema's ``#/$defs/dungeon``
(``schemas/game.schema.json``, through :func:`inkcrawl.schema.schema_problems`): members,
types, enumerations and ranges. What a schema cannot say (ids that resolve, geometry) stays in
each engine. Problems name the member relative to the entry, with the id of each list item on
the way: ``switches.reentry``, ``elements[3] (m1).tolerance.min_coverage``, ``areas[1].id``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from inkcrawl.schema import schema_problems

#: At most this many problems are quoted in an engine's error.
QUOTED_PROBLEMS = 5


def _item_name(item: Any) -> str | None:
    """How a list item is named in a member: its ``id``, else a door's id, else a room's label."""
    if isinstance(item, dict):
        for key in ("id", "door", "label"):
            if isinstance(item.get(key), str):
                return item[key]
    return None


def _walk(entry: Any, parts) -> tuple[str, Any]:
    """The member text of ``parts`` (see :func:`member`) and the value there (``None``: none)."""
    parts = list(parts)
    text, node = "", entry
    for k, part in enumerate(parts):
        if isinstance(node, list):
            index = int(part)
            node = node[index] if -len(node) <= index < len(node) else None
            text += f"[{index}]"
            name = _item_name(node)
            if name is not None and (k + 1 == len(parts) or parts[k + 1] != "id"):
                text += f" ({name})"
        else:
            text += ("." if text else "") + str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return text or "the dungeon entry", node


def member(entry: Any, parts) -> str:
    """The member at ``parts`` (keys and list indexes) of ``entry`` as the engines' errors
    write it: ``elements[3] (m1).tolerance.min_coverage``; ``the dungeon entry`` for the root.
    A list item is named by its id unless the member is that id itself (``areas[1].id``)."""
    return _walk(entry, parts)[0]


def _pointer_parts(pointer: str) -> list[str]:
    """The reference tokens of a JSON pointer (RFC 6901)."""
    if not pointer:
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def _plain(value):
    """A numpy number or array as the Python value JSON holds (for ``json.dumps``)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def entry_problems(entry: dict) -> list[str]:
    """What the game schema says is wrong with a dungeon entry, one ``member: message`` each,
    in document order; empty when the entry is schema-valid. An entry built in Python may hold
    numpy numbers: they are judged as the numbers they are."""
    try:
        problems = schema_problems(entry, "game", "", definition="dungeon")
    except ValueError:  # a value the validator cannot read (a numpy number, a set)
        try:
            plain = json.loads(json.dumps(entry, default=_plain))
        except (TypeError, ValueError) as exc:
            return [f"the dungeon entry is not JSON data ({exc})"]
        problems = schema_problems(plain, "game", "", definition="dungeon")
    out = []
    for p in problems:
        text, value = _walk(entry, _pointer_parts(p.pointer))
        if isinstance(value, float) and not math.isfinite(value):  # the validator reads it as null
            out.append(f"{text}: {value} is not a finite number")
        else:
            out.append(f"{text}: {p.message}")
    return out


def refusal(problems: list[str]) -> str:
    """One error message quoting the first problems."""
    text = "; ".join(problems[:QUOTED_PROBLEMS])
    if len(problems) > QUOTED_PROBLEMS:
        text += f"; and {len(problems) - QUOTED_PROBLEMS} more"
    return text
