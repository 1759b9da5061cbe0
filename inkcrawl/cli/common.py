"""What the commands of :mod:`inkcrawl.cli` share: the exit codes, checking and phrasing the
files they write, and reading the dungeons a command plays or analyses as game data.

Text a command prints that it did not write itself (names, titles, ids, file names, messages
quoting them) goes through :func:`inkcrawl.textchars.terminal_safe`, re-exported here."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from inkcrawl.textchars import terminal_safe

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "CommandStop",
    "add_run_options",
    "check_output_file",
    "existing_input",
    "load_games",
    "load_games_with_sources",
    "positive_int",
    "read_spec_file",
    "terminal_safe",
    "write_failure",
]

#: Exit codes of every ``inkcrawl`` command: success (no errors), errors found, usage error or
#: unreadable input or output that cannot be written. Plugin commands (``inkcrawl.commands``
#: entry points) use them too.
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
#: Stopped by Ctrl+C (SIGINT) and by SIGTERM: 128 + the signal's number, as shells report it.
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143

#: The drawing speeds (mm of line per second) ``par`` and ``simulate`` accept: a slow, shaky hand
#: to far past any hand (a careful line is about 50).
SPEED_RANGE_MM_S = (0.1, 10_000.0)


def write_failure(path: str | os.PathLike, exc: OSError) -> str:
    """Why ``path`` could not be written, in the command line's words: ``cannot write PATH:
    REASON``, with ``; use --force to replace it`` for a read-only file
    (:class:`inkcrawl.jsonio.WriteRefused`)."""
    from inkcrawl.jsonio import WriteRefused

    reason = exc.strerror or str(exc)
    if isinstance(exc, WriteRefused) and exc.reason == "read-only":
        reason += "; use --force to replace it"
    return terminal_safe(f"cannot write {os.fspath(path)}: {reason}")


def check_output_file(
    path: str | os.PathLike, force: bool = False, inputs: Iterable[str | os.PathLike] = (), new_folder: bool = False
) -> str | None:
    """Before a command does its work: ``None`` when ``path`` may be written, else the message
    of :func:`write_failure` (a folder, a device, one of ``inputs``, read-only without
    ``force``, a name the system refuses, a folder that does not exist, so that a long command
    fails at once rather than after its work; ``new_folder``: the command makes that folder
    itself). The write itself checks again."""
    from inkcrawl.jsonio import WriteRefused, check_target

    try:
        target = check_target(path, force, inputs)
        if not new_folder and not target.exists() and not target.parent.is_dir():
            folder = os.fspath(Path(path).parent) or "."
            raise WriteRefused(path, "no-folder", f"the folder {folder} does not exist")
    except OSError as exc:
        return write_failure(path, exc)
    return None


class CommandStop(Exception):
    """A command stops before it has written anything: ``status`` (an exit code) and the message
    say why. The command prints ``inkcrawl COMMAND: error: MESSAGE``."""

    def __init__(self, message: str, status: int = EXIT_USAGE):
        super().__init__(message)
        self.status = status


def whole_number(low: int | None = None, high: int | None = None, what: str = ""):
    """An argparse type: a whole number from ``low`` to ``high`` (either end open when ``None``);
    the refusal names the range (``use 1 to 100``, ``use at least 1``), ``what`` may say it in
    the field's own words (``a seed is a whole number from 0``)."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if (low is not None and value < low) or (high is not None and value > high):
            if what:
                raise argparse.ArgumentTypeError(what)
            span = f"{low} to {high}" if low is not None and high is not None else f"at least {low}"
            if low is None:
                span = f"at most {high}"
            raise argparse.ArgumentTypeError(f"use {span}")
        return value

    return parse


#: An argparse type: a whole number of at least 1 (``--games``, ``--workers``...).
positive_int = whole_number(1)


def add_run_options(parser) -> None:
    """``--workers N`` and ``--scheduler tcp://HOST:PORT``: where the games of ``simulate`` and
    ``sweep`` run (:mod:`inkcrawl.runs`)."""
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="processes to play in (default: one per core, up to 8); the output is the same for any N",
    )
    parser.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="play on this Dask distributed scheduler instead (needs pip install 'inkcrawl[dask]')",
    )


def existing_input(path_text: str) -> Path:
    """The input file ``path_text`` names; raises :class:`CommandStop` (exit 2) for a name the
    system refuses or a file that does not exist."""
    from inkcrawl.validate import unusable_path

    path = Path(path_text)
    unusable = unusable_path(path)
    if unusable is not None:
        raise CommandStop(f"{path_text}: {unusable}")
    if not path.is_file():
        raise CommandStop(f"{path_text}: no such file")
    return path


def read_spec_file(path_text: str, file_type: str, guide: str) -> dict:
    """Read a JSON file a command is driven by (a sweep, a constraints file): its top-level
    ``type`` must be ``file_type`` and it must pass ``schemas/<file_type>.schema.json``. Raises
    :class:`CommandStop`: exit 2 for a file that cannot be read, 1 for the wrong type or schema
    errors (every one printed, the first in the stop's message; ``guide`` names the doc)."""
    from inkcrawl.jsonio import read_json_file
    from inkcrawl.schema import schema_problems

    data, problems = read_json_file(existing_input(path_text))  # (a file of too many values is refused before parsing)
    if problems:
        first = problems[0]
        raise CommandStop(f"{first.file}:{first.pointer}: {first.message}")
    if not isinstance(data, dict) or data.get("type") != file_type:
        raise CommandStop(
            f'{path_text}: not a {file_type} file (its "type" is not "{file_type}"; see {guide})', EXIT_PROBLEMS
        )
    problems = schema_problems(data, file_type, path_text)
    if problems:
        for p in problems[1:]:
            print(terminal_safe(f"{p.file}:{p.pointer}: error {p.code} {p.message}"), file=sys.stderr)
        first = problems[0]
        raise CommandStop(f"{first.file}:{first.pointer}: error {first.code} {first.message}", EXIT_PROBLEMS)
    return data


def load_games(paths: list[str]) -> tuple[list[dict], int | None]:
    """Game data entries for ``paths`` (game.json files are read as they are; dungeons and packs
    are validated and converted). Returns ``(entries, exit code or None)``; errors go to stderr."""
    pairs, status = load_games_with_sources(paths)
    return [entry for entry, _ in pairs], status


def load_games_with_sources(paths: list[str]) -> tuple[list[tuple[dict, Any]], int | None]:
    """:func:`load_games`, each entry paired with the :class:`~inkcrawl.loading.OpenedDungeon`
    it was converted from (``None`` for an entry read from a game.json): the game.json entries
    first, then the converted ones, each in their paths' order."""
    from inkcrawl.gamedata import game_document, game_entry_problems
    from inkcrawl.jsonio import read_json_file
    from inkcrawl.loading import open_dungeons
    from inkcrawl.report import format_text
    from inkcrawl.schema import schema_problems
    from inkcrawl.validate import unusable_path

    entries: list[tuple[dict, Any]] = []
    others: list[str] = []
    status = None
    for raw in paths:
        path = Path(raw)
        data = None
        unusable = unusable_path(path)
        if unusable is not None:
            print(terminal_safe(f"{raw}:: error F001 {unusable}"), file=sys.stderr)
            return [], EXIT_USAGE
        if path.is_file():
            data, problems = read_json_file(path)  # (a file of too many values is refused before parsing)
            if problems:
                for p in problems:
                    print(terminal_safe(f"{p.file}:{p.pointer}: error {p.code} {p.message}"), file=sys.stderr)
                return [], EXIT_USAGE if problems[0].code == "F001" else EXIT_PROBLEMS
        if isinstance(data, dict) and data.get("type") == "game":
            if data.get("format_version") == 1:
                print(
                    terminal_safe(
                        f"{raw}:/format_version: error F009 game data format 1 was written by an older "
                        f"inkcrawl: its walls lack the printed widths and closures the referee judges on; "
                        f"write it again with 'inkcrawl export game'"
                    ),
                    file=sys.stderr,
                )
                return [], EXIT_PROBLEMS
            problems = schema_problems(data, "game", raw)
            if problems:
                print(terminal_safe(f"{raw}:{problems[0].pointer}: error S001 {problems[0].message}"), file=sys.stderr)
                return [], EXIT_PROBLEMS
            for index, entry in enumerate(data["dungeons"]):
                for message in game_entry_problems(entry):
                    print(terminal_safe(f"{raw}:/dungeons/{index}: error {message}"), file=sys.stderr)
                    status = EXIT_PROBLEMS
            entries += [(entry, None) for entry in data["dungeons"]]
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
        entries += list(zip(game_document(result.dungeons)["dungeons"], result.dungeons))
    if status is not None:
        return [], status
    return entries, None
