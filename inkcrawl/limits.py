"""The dungeon format's limits on numbers and text, checked before anything is drawn.

The JSON Schema (``schemas/dungeon.schema.json``, ``mm`` and ``positive_mm``, and its longest
text, a label's) refuses values beyond them, but ``--force`` and the editor still build a model
of a dungeon that fails its schema. The exporters' layout work grows with the size of what they
draw: a room 10^15 mm wide or a title of a million letters would take minutes and gigabytes.
So a dungeon holding such a value is not drawn at all; the schema's error says where it is.
"""

from __future__ import annotations

#: The largest coordinate or length the dungeon format allows, in mm (the schema's ``mm``).
FORMAT_LIMIT_MM = 10000
#: The longest text the dungeon format allows (a label's text).
FORMAT_LIMIT_TEXT = 500


def beyond_format_limits(dungeon_data, pointer: str = "") -> str | None:
    """The JSON pointer of the first number in ``dungeon_data`` (parsed JSON) beyond
    :data:`FORMAT_LIMIT_MM` either way, or the first text longer than :data:`FORMAT_LIMIT_TEXT`;
    ``None`` when there is none. ``pointer`` is the pointer of ``dungeon_data`` itself (RFC 6901:
    ``~`` and ``/`` in keys escaped). Never raises.

    Every dungeon opened is checked (:func:`inkcrawl.loading.open_dungeons`), so the values are
    first walked without pointers (about 0.1 ms a dungeon); the pointer is made only for a
    dungeon that holds such a value."""
    if not _holds_beyond(dungeon_data):
        return None
    stack = [(pointer, dungeon_data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{where}/{_escaped(key)}", item) for key, item in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((f"{where}/{index}", item) for index, item in reversed(list(enumerate(value))))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if not -FORMAT_LIMIT_MM <= value <= FORMAT_LIMIT_MM:  # NaN too
                return where or "/"
        elif isinstance(value, str) and len(value) > FORMAT_LIMIT_TEXT:
            return where or "/"
    return None


def _escaped(key) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _holds_beyond(value) -> bool:
    """Whether ``value`` holds a number or text beyond the format's limits (a NaN included)."""
    if type(value) is not dict and type(value) is not list:
        return _holds_beyond([value])
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        for child in item.values() if type(item) is dict else item:
            kind = type(child)
            if kind is dict or kind is list:
                push(child)
            elif kind is float or kind is int:
                if not -FORMAT_LIMIT_MM <= child <= FORMAT_LIMIT_MM:
                    return True
            elif kind is str and len(child) > FORMAT_LIMIT_TEXT:
                return True
    return False
