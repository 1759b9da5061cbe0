"""Stage 1 of validation: JSON Schema (Draft 2020-12) with jsonschema-rs.

The schemas in ``schemas/`` are compiled once per process and reused for every file.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jsonschema_rs

from inkcrawl.problems import Problem, problem
from inkcrawl.resources import schema_path

#: File types that have a schema, the value of their top-level ``type`` member.
FILE_TYPES = ("dungeon", "pack", "ruleset")
#: Documents inkcrawl writes for other programs (and reads back): game data, plays.
DATA_TYPES = ("game", "play", "grid-play")


@cache
def load_schema(file_type: str) -> dict:
    """Return the parsed JSON Schema for ``file_type`` (one of :data:`FILE_TYPES`)."""
    with schema_path(file_type).open(encoding="utf-8") as handle:
        return json.load(handle)


@cache
def schema_validator(file_type: str, definition: str | None = None):
    """The compiled jsonschema-rs validator of ``file_type``'s schema (one per process), or with
    ``definition`` of its sub-schema ``#/$defs/<definition>``. For callers that read the raw
    errors (``iter_errors``: kind, instance path) rather than the problems of
    :func:`schema_problems`; raises ``KeyError`` for a definition the schema lacks."""
    schema = load_schema(file_type)
    if definition is not None:
        if definition not in schema.get("$defs", {}):
            raise KeyError(f"the {file_type} schema defines no {definition!r}")
        # the schema's definitions under its own $id, with ``#/$defs/<definition>`` as the root
        schema = {
            "$schema": schema["$schema"],
            "$id": schema["$id"],
            "$defs": schema["$defs"],
            "$ref": f"#/$defs/{definition}",
        }
    return jsonschema_rs.validator_for(schema)


def json_pointer(parts) -> str:
    """Join path parts into a JSON pointer (RFC 6901): ``["areas", 3]`` -> ``/areas/3``."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


_LONG_NUMBER = re.compile(r"-?\d{16,}(?:\.\d+)?(?:[eE][-+]?\d+)?")

#: The schemas' patterns in words, for messages (a raw regular expression teaches nothing).
PATTERN_WORDS = {
    "^[a-z][a-z0-9_]{0,31}$": "a name in lower case: a letter a-z, then up to 31 letters a-z, digits or '_' "
    "(such as 'monster' or 'artifact_stone')",
    "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$": "an id: a letter or digit, then up to 63 letters, digits, '_', '.' "
    "or '-' (such as 'gob-1')",
    "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$": "an id: a letter or digit, then up to 127 letters, digits, '_', "
    "'.', ':' or '-'",
    "^[A-Z]$": "one capital letter, A to Z",
    "^[A-Z]{1,26}$": "capital letters A to Z (such as 'ABCDEF')",
    "^#[0-9a-fA-F]{6}$": "a colour written #rrggbb (such as '#2a6fb0')",
    "^[1-8]$": "a number of players, 1 to 8",
    "^[0-9]+\\.[0-9]+\\.[0-9]+([-+][0-9A-Za-z.-]+)?$": "a version MAJOR.MINOR.PATCH (such as '1.0.0')",
    "^[^\\\\\\u0000]+\\.json$": "a path to a .json file inside the pack, written with '/' "
    "(no '\\' and no NUL character; such as 'dungeons/first.json')",
}


def _schema_node(file_type: str, schema_path) -> Any:
    """The part of ``file_type``'s schema at ``schema_path`` (an error's path into the schema),
    or ``None`` when the path does not lead into it."""
    node: Any = load_schema(file_type)
    for part in schema_path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _quoted(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _friendly(error, file_type: str | None = None) -> str:
    """The validator's message, made readable: named members instead of "False schema", long
    numbers written short (``1e+308``, not its 309 digits), patterns in words, unknown values
    and members with what was expected and the nearest valid one ("did you mean 'weapon'?",
    :mod:`inkcrawl.suggest`), at most 300 characters."""
    from inkcrawl.suggest import did_you_mean, expected

    kind = type(error.kind).__name__
    if kind == "FalseSchema" and error.instance_path:
        return f"'{error.instance_path[-1]}' is not allowed here (not for this kind or family)"
    if kind == "Enum" and isinstance(error.instance, str):
        return f"{_quoted(error.instance)} is not a known value here: {expected(error.instance, error.kind.options)}"
    if kind == "Constant" and isinstance(error.instance, str):
        wanted = [error.kind.expected_value]
        return f"{_quoted(error.instance)} is not the value here: {expected(error.instance, wanted, 'the value')}"
    if kind == "Pattern" and error.kind.pattern in PATTERN_WORDS:
        return f"{_quoted(error.instance)} is not {PATTERN_WORDS[error.kind.pattern]}"
    if kind == "AdditionalProperties" and file_type is not None:
        node = _schema_node(file_type, list(error.schema_path)[:-1])
        allowed = sorted(node.get("properties", {})) if isinstance(node, dict) else []
        unexpected = [str(name) for name in error.kind.unexpected]
        if allowed and unexpected:
            names = ", ".join(repr(name[:40]) for name in unexpected[:5])
            hints = "".join(did_you_mean(name, allowed) for name in unexpected[:1])
            plural = "s" if len(unexpected) > 1 else ""
            return f"unknown member{plural} {names}{hints}; {expected(None, allowed, 'members among')}"[:300]
    message = _LONG_NUMBER.sub(lambda m: f"{float(m.group(0)):.6g}", error.message)
    if len(message) > 300:
        message = message[:297] + "..."
    return message


def _pointer_order(problem_: Problem) -> list:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in problem_.pointer.split("/")]


def schema_problems(data: Any, file_type: str, file: str, definition: str | None = None) -> list[Problem]:
    """Validate ``data`` against the schema of ``file_type``; one S001 problem per leaf error.
    With ``definition``, validate against that sub-schema (``#/$defs/<definition>``, e.g. one
    ``dungeon`` entry of game data); pointers are then relative to ``data``.

    Errors are sorted by pointer (array indexes numerically) so the report reads top to bottom.
    Raises ``ValueError`` when ``data`` holds values JSON cannot (a set, a numpy number).
    """
    problems = []
    for error in schema_validator(file_type, definition).iter_errors(data):
        pointer = json_pointer(error.instance_path)
        problems.append(problem("S001", _friendly(error, file_type), file, pointer))
    problems.sort(key=_pointer_order)
    return problems
