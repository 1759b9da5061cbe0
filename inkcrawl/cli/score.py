"""``inkcrawl score``: referee one drawn play on a line dungeon (RULES.md 2), or score one
finished grid sheet (a grid play file, RULES.md 1; :mod:`inkcrawl.engines.grid.sheet`).

The dungeon comes from a dungeon file, a pack (folder or pack.json; the play names the dungeon
by id) or a game.json (docs/game-data.md); dungeons and packs are validated and converted to
game data first, exactly as ``inkcrawl export game`` would. The play is a play file
(docs/play-files.md). The referee (:mod:`inkcrawl.engines.line`) reads only the game data.

The output is the breakdown section by section in path order (each room or corridor entered:
what was completed, failed, missed, crossed, and its subtotal), then the orb tokens, the boss,
how the scrawl ended and the total: ``--format text`` (default) as a player checking a
neighbour's sheet would say it, ``--format json`` as one object (docs/play-files.md, "Score").

When a play cannot be scored, the errors go to standard error as lines; with ``--format json``
standard output also gets one object, ``{"type": "score-error", "error": KIND, "problems": [{"file",
"pointer", "code", "message"}]}`` (``code`` ``null`` when the problem has none), KIND one of
``invalid-play`` (schema, or it cannot be drawn on this dungeon), ``unreadable`` (a file cannot
be read), ``dungeon`` (the dungeon is missing, has validation errors, is not a line dungeon or
cannot be played).

Exit codes: 0 scored; 1 the dungeon has validation errors or unplayable game data, or the play
is invalid (schema, or it cannot be drawn on this dungeon); 2 usage error or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys

from inkcrawl.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, load_games, terminal_safe
from inkcrawl.textchars import json_terminal_safe

_EPILOG = """\
examples:
  inkcrawl score content/packs/lantern-depths my-play.json
  inkcrawl score lantern-depths.game.json my-play.json --format json
  inkcrawl score content/packs/ember-halls/dungeons/cinder-vault.json my-sheet.json   (a grid sheet)

The play file names the dungeon it is a play of (its id); see docs/play-files.md.
exit codes: 0 scored, 1 validation errors in the dungeon or an invalid play, 2 usage error or unreadable input
"""


def register(subparsers) -> None:
    """Add ``score`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "score",
        help="referee a drawn play on a line dungeon, or score a finished grid sheet: breakdown and total",
        description="Score one player's drawn path on a line dungeon by the line family's rules: each room or "
        "corridor entered in path order with what was completed, failed, missed and crossed, then orb "
        "tokens, the boss and the total, the way a player checks a neighbour's sheet. On a grid dungeon, "
        "score a finished sheet (a grid play file: segments, traps, tally marks) term by term; an illegal "
        "segment or trap is refused naming its room and the rule.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "dungeon", metavar="DUNGEON_OR_GAME", help="a dungeon file, a pack folder or pack.json, or a game.json"
    )
    parser.add_argument("play", metavar="PLAY.json", help="the play file")
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: the breakdown as a player reads it (default); json: one object",
    )
    parser.set_defaults(func=_cmd_score)


def _refusal(args: argparse.Namespace, kind: str, problems: list[tuple[str, str, str | None, str]]) -> None:
    """With ``--format json``, the object that says why nothing was scored, on standard output
    (``problems``: ``(file, pointer, code or None, message)``)."""
    if args.format == "json":
        document = {
            "type": "score-error",
            "error": kind,
            "problems": [
                {"file": file, "pointer": pointer, "code": code, "message": message}
                for file, pointer, code, message in problems
            ],
        }
        sys.stdout.write(json_terminal_safe(json.dumps(document, indent=2, ensure_ascii=False)) + "\n")


def _error(args: argparse.Namespace, message: str, code: int, kind: str = "dungeon", file: str = "") -> int:
    print(terminal_safe(f"inkcrawl score: error: {message}"), file=sys.stderr)
    _refusal(args, kind, [(file or args.dungeon, "", None, message)])
    return code


def _cmd_score(args: argparse.Namespace) -> int:
    from inkcrawl.engines.line import GameDataError, LineRules, PlayError, format_breakdown, referee
    from inkcrawl.play import format_problems, load_play

    play, problems = load_play(args.play)
    if problems or play is None:  # (no play comes without problems)
        sys.stderr.write(format_problems(problems))
        unreadable = bool(problems) and problems[0].code == "F001"
        _refusal(
            args,
            "unreadable" if unreadable else "invalid-play",
            [(p.file, p.pointer, p.code, p.message) for p in problems],
        )
        return EXIT_USAGE if unreadable else EXIT_PROBLEMS
    entries, status = load_games([args.dungeon])
    if status is not None:
        what = "cannot be read" if status == EXIT_USAGE else "has errors"
        _refusal(
            args,
            "unreadable" if status == EXIT_USAGE else "dungeon",
            [(args.dungeon, "", None, f"the dungeon {what} (the errors are on standard error)")],
        )
        return status
    wanted = play["dungeon"]
    chosen = [e for e in entries if isinstance(e, dict) and e.get("id") == wanted]
    if not chosen:
        ids = ", ".join(str(e.get("id")) for e in entries if isinstance(e, dict)) or "none"
        message = f"the play is of dungeon {wanted!r}, and {args.dungeon} holds no such dungeon (it holds: {ids})"
        print(terminal_safe(f"{args.play}:/dungeon: error {message}"), file=sys.stderr)
        _refusal(args, "dungeon", [(args.play, "/dungeon", None, message)])
        return EXIT_PROBLEMS
    entry = chosen[0]
    family, kind = entry.get("family"), play.get("type")
    if (family, kind) not in (("line", "play"), ("grid", "grid-play")):
        wants = "a grid-play file (a finished grid sheet)" if family == "grid" else "a play file (a drawn path)"
        return _error(
            args,
            f"dungeon {wanted!r} is a {family} dungeon: it is scored from {wants}, and {args.play} is a "
            f"{kind!r} file (docs/play-files.md)",
            EXIT_PROBLEMS,
        )
    if family == "grid":
        return _score_grid(args, entry, play)
    try:
        rules = LineRules(entry)
        result = referee(rules, play)
    except GameDataError as exc:
        return _error(args, f"{args.dungeon}: dungeon {wanted!r} cannot be played: {exc}", EXIT_PROBLEMS)
    except PlayError as exc:
        return _invalid_play(args, exc.problems)
    except (ValueError, TypeError, KeyError, IndexError, ArithmeticError) as exc:  # never a traceback
        return _error(
            args,
            f"cannot score {args.play} on {wanted!r}: {type(exc).__name__}: {exc}",
            EXIT_PROBLEMS,
            "invalid-play",
            args.play,
        )
    if args.format == "json":
        sys.stdout.write(json_terminal_safe(json.dumps(result, indent=2, ensure_ascii=False)) + "\n")
    else:
        sys.stdout.write(terminal_safe(format_breakdown(result)))
    return EXIT_OK


def _invalid_play(args: argparse.Namespace, problems: list[tuple[str, str]]) -> int:
    """Report a play the rules refuse (``problems``: ``(pointer, message)``), one line each on
    standard error and, with ``--format json``, the refusal object; returns the exit code."""
    for pointer, message in problems:
        print(terminal_safe(f"{args.play}:{pointer}: error {message}"), file=sys.stderr)
    _refusal(args, "invalid-play", [(args.play, pointer, None, message) for pointer, message in problems])
    return EXIT_PROBLEMS


def _score_grid(args: argparse.Namespace, entry: dict, play: dict) -> int:
    """Score a grid sheet (RULES.md 1, Scoring): the breakdown by term, or each illegal segment
    or trap named with its room and rule (exit 1)."""
    from inkcrawl.engines.grid import GameDataError as GridDataError
    from inkcrawl.engines.grid import GridRules
    from inkcrawl.engines.grid.sheet import SheetError, format_sheet, score_sheet

    try:
        rules = GridRules(entry)
        result = score_sheet(rules, play)
    except GridDataError as exc:
        return _error(args, f"{args.dungeon}: dungeon {entry.get('id')!r} cannot be played: {exc}", EXIT_PROBLEMS)
    except SheetError as exc:
        return _invalid_play(args, exc.problems)
    if args.format == "json":
        text = json.dumps(result.as_dict(rules), indent=2, ensure_ascii=False)
        sys.stdout.write(json_terminal_safe(text) + "\n")
    else:
        print(terminal_safe(format_sheet(result)))
    return EXIT_OK
