"""Stage 1 of validation: JSON Schema (Draft 2020-12) with jsonschema-rs.

The schemas in ``schemas/`` are compiled once per process and reused for every file.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema_rs

from inkcrawl.problems import Problem, problem
from inkcrawl.resources import schema_path

#: File types that have a schema, the value of their top-level ``type`` member.
FILE_TYPES = ("dungeon", "pack", "ruleset")


@cache
def load_schema(file_type: str) -> dict:
    """Return the parsed JSON Schema for ``file_type`` (one of :data:`FILE_TYPES`)."""
    with schema_path(file_type).open(encoding="utf-8") as handle:
        return json.load(handle)


@cache
def _validator(file_type: str):
    return jsonschema_rs.validator_for(load_schema(file_type))


def json_pointer(parts) -> str:
    """Join path parts into a JSON pointer (RFC 6901): ``["areas", 3]`` -> ``/areas/3``."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _friendly(error) -> str:
    message = error.message
    if len(message) > 300:
        message = message[:297] + "..."
    return message


def schema_problems(data: Any, file_type: str, file: str) -> list[Problem]:
    """Validate ``data`` against the schema of ``file_type``; one S001 problem per leaf error.

    Errors are sorted by pointer so the report reads top to bottom.
    """
    problems = []
    for error in _validator(file_type).iter_errors(data):
        pointer = json_pointer(error.instance_path)
        problems.append(problem("S001", _friendly(error), file, pointer))
    problems.sort(key=lambda p: p.pointer)
    return problems
