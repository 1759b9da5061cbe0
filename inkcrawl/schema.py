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


def _friendly(error) -> str:
    """The validator's message, made readable: named members instead of "False schema", long
    numbers written short (``1e+308``, not its 309 digits), at most 300 characters."""
    if type(error.kind).__name__ == "FalseSchema" and error.instance_path:
        return f"'{error.instance_path[-1]}' is not allowed here (not for this kind or family)"
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
        problems.append(problem("S001", _friendly(error), file, pointer))
    problems.sort(key=_pointer_order)
    return problems
