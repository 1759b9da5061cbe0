"""Play files: one player's drawn path on a line dungeon (docs/play-files.md).

:func:`load_play` reads a play file and checks it against ``schemas/play.schema.json``
(Draft 2020-12, with jsonschema-rs). It never raises for bad input: every problem comes back
as a :class:`inkcrawl.problems.Problem` with a JSON pointer into the file (F001-F006 for an
unreadable file, F007 for a newer format, F008 for a file that is not a play, S001 for each
schema error). Checks against the dungeon itself (the character exists, the path begins at a
Start, portals) are the referee's: :class:`inkcrawl.engines.line.PlayError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inkcrawl.jsonio import read_json_file
from inkcrawl.problems import Problem, problem
from inkcrawl.schema import schema_problems

#: The play format version this inkcrawl reads and writes.
PLAY_FORMAT_VERSION = 1
#: Most points a play's path may have, all polylines together (the referee takes about 3 s and
#: 300 MB for a million); counted before the schema and the referee look at the play.
MAX_PLAY_POINTS = 1_000_000
#: Longest drawn line (mm, all polylines together, portal jumps not counted) the referee
#: accepts: 100 m, fifty times across the largest sheet. The referee's time grows with the
#: walls the line crosses (about 50 ms a metre on the bundled sheets, zig-zagging through
#: walls), so a longer line is refused before it is refereed.
MAX_PLAY_LENGTH_MM = 100_000


def _point_count_problem(data: dict, file: str) -> Problem | None:
    """F006 when the path has more than :data:`MAX_PLAY_POINTS` points, else ``None``."""
    path = data.get("path")
    if not isinstance(path, list):
        return None
    count = sum(len(polyline) for polyline in path if isinstance(polyline, list))
    if count <= MAX_PLAY_POINTS:
        return None
    return problem(
        "F006",
        f"the path has {count:,} points, more than the {MAX_PLAY_POINTS:,} the referee accepts",
        file,
        "/path",
    )


def _length_problem(data: dict, file: str) -> Problem | None:
    """F006 when the drawn line (schema-valid) is longer than :data:`MAX_PLAY_LENGTH_MM`."""
    import numpy as np

    length = 0.0
    for polyline in data["path"]:
        points = np.asarray(polyline, dtype=float)
        if len(points) > 1:
            length += float(np.hypot(*np.diff(points, axis=0).T).sum())
    if length <= MAX_PLAY_LENGTH_MM:
        return None
    return problem(
        "F006",
        f"the drawn line is {length / 1000:,.1f} m long, more than the {MAX_PLAY_LENGTH_MM // 1000:,} m the referee "
        f"accepts",
        file,
        "/path",
    )


#: The play files: a line dungeon's drawn path (``play``), a grid sheet (``grid-play``), each with its schema.
PLAY_TYPES = ("play", "grid-play")


def play_data_problems(data: Any, file: str) -> list[Problem]:
    """Problems of parsed play data: not a play or grid play (F008), a newer format (F007),
    a line path of more than :data:`MAX_PLAY_POINTS` points (F006, before the schema), schema
    errors (S001, one per leaf error, by pointer) against its type's schema, then a line
    longer than :data:`MAX_PLAY_LENGTH_MM` (F006)
    (``schemas/play.schema.json`` or ``schemas/grid-play.schema.json``)."""
    if not isinstance(data, dict) or data.get("type") not in PLAY_TYPES:
        found = (
            f'"type": {json.dumps(data.get("type"), ensure_ascii=False)[:60]}'
            if isinstance(data, dict) and "type" in data
            else 'an object without "type"'
            if isinstance(data, dict)
            else "something other than a JSON object"
        )
        return [
            problem(
                "F008",
                f'not a play file: expected an object with "type": "play" (a line dungeon\'s drawn path) or '
                f'"grid-play" (a grid sheet), found {found}',
                file,
                "/type" if isinstance(data, dict) and "type" in data else "",
            )
        ]
    version = data.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > PLAY_FORMAT_VERSION:
        return [
            problem(
                "F007",
                f"play format_version {version} is newer than this inkcrawl understands "
                f"({PLAY_FORMAT_VERSION}); update inkcrawl",
                file,
                "/format_version",
            )
        ]
    too_long = _point_count_problem(data, file) if data["type"] == "play" else None
    if too_long is not None:
        return [too_long]
    problems = schema_problems(data, data["type"], file)
    too_long = _length_problem(data, file) if data["type"] == "play" and not problems else None
    return [too_long] if too_long is not None else problems


def load_play(path: str | Path, file: str | None = None) -> tuple[dict | None, list[Problem]]:
    """Read and check a play file. Returns ``(data, problems)``; ``data`` is ``None`` when the
    file cannot be used (any error). A file of more values than
    :data:`inkcrawl.validate.MAX_JSON_VALUES` is refused (F006) before it is parsed. Never raises."""
    from inkcrawl.validate import too_many_values

    path = Path(path)
    file = file if file is not None else str(path)
    refused = too_many_values(path, file, note=f" (a play's path has at most {MAX_PLAY_POINTS:,} points)")
    if refused is not None:
        return None, [refused]
    data, problems = read_json_file(path, file)
    if problems:
        return None, problems
    problems = play_data_problems(data, file)
    return (None if problems else data), problems


def format_problems(problems: list[Problem]) -> str:
    """One line per problem: ``FILE:POINTER: error CODE MESSAGE`` (control characters escaped:
    :func:`~inkcrawl.textchars.terminal_safe`)."""
    from inkcrawl.textchars import terminal_safe

    return "".join(
        terminal_safe(f"{p.file}:{p.pointer}: {p.severity.value} {p.code} {p.message}") + "\n" for p in problems
    )
