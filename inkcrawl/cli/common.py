"""What the commands of :mod:`inkcrawl.cli` share: the exit codes and reading the dungeons a
command plays or analyses as game data."""

from __future__ import annotations

import sys
from pathlib import Path

#: Exit codes of every ``inkcrawl`` command: success (no errors), errors found, usage error or
#: unreadable input. Plugin commands (``inkcrawl.commands`` entry points) use them too.
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def load_games(paths: list[str]) -> tuple[list[dict], int | None]:
    """Game data entries for ``paths`` (game.json files are read as they are; dungeons and packs
    are validated and converted). Returns ``(entries, exit code or None)``; errors go to stderr."""
    from inkcrawl.gamedata import game_document, game_entry_problems
    from inkcrawl.jsonio import read_json_file
    from inkcrawl.loading import open_dungeons
    from inkcrawl.report import format_text
    from inkcrawl.schema import schema_problems

    entries, others = [], []
    status = None
    for raw in paths:
        path = Path(raw)
        data = None
        if path.is_file():
            data, problems = read_json_file(path)
            if problems:
                for p in problems:
                    print(f"{p.file}:{p.pointer}: error {p.code} {p.message}", file=sys.stderr)
                return [], EXIT_USAGE if problems[0].code == "F001" else EXIT_PROBLEMS
        if isinstance(data, dict) and data.get("type") == "game":
            if data.get("format_version") == 1:
                print(f"{raw}:/format_version: error F009 game data format 1 was written by an older inkcrawl: its "
                      f"walls lack the printed widths and closures the referee judges on; write it again with "
                      f"'inkcrawl export game'", file=sys.stderr)
                return [], EXIT_PROBLEMS
            problems = schema_problems(data, "game", raw)
            if problems:
                print(f"{raw}:{problems[0].pointer}: error S001 {problems[0].message}", file=sys.stderr)
                return [], EXIT_PROBLEMS
            for index, entry in enumerate(data["dungeons"]):
                for message in game_entry_problems(entry):
                    print(f"{raw}:/dungeons/{index}: error {message}", file=sys.stderr)
                    status = EXIT_PROBLEMS
            entries += data["dungeons"]
        else:
            others.append(raw)
    if others:
        result = open_dungeons(others)
        if result.report.problems:
            sys.stderr.write(format_text(result.report))
        if result.report.unreadable_input:
            return [], EXIT_USAGE
        if result.report.errors:
            return [], EXIT_PROBLEMS
        entries += game_document(result.dungeons)["dungeons"]
    if status is not None:
        return [], status
    return entries, None
