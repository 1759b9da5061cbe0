"""``inkcrawl par``: the best solo score of each line dungeon, with the route that scores it.

The dungeons come from a dungeon file, a pack (folder or pack.json) or a game.json, validated and
converted to game data as ``inkcrawl score`` does. For each line dungeon the exact search of
:mod:`inkcrawl.engines.line.par` finds the best route over areas, keys and portals, the drawing
step draws it and the referee scores the drawing: that score is par. ``-o`` writes the route as a
play file (a folder of ``ID.play.json`` files when there are several dungeons), ready for
``inkcrawl score``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from inkcrawl.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, load_games, terminal_safe, write_failure
from inkcrawl.textchars import json_terminal_safe

_EPILOG = """\
examples:
  inkcrawl par content/packs/lantern-depths
  inkcrawl par content/packs/lantern-depths/dungeons/01-candlewick-cellars.json -o best.play.json
  inkcrawl par lantern-depths.game.json --format json
  inkcrawl par content/packs/lantern-depths --character ranger --speed 30

--format json prints one object per dungeon: {"dungeon", "par", "proven", "bound", "length_mm",
"route", "note"}, with a timer on the sheet also {"timer_s", "speed_mm_s", "seconds",
"fits_timer", "timer_vp", "timer_length_mm", "timer_route", "timer_bound", "timer_proven"}.
proven is true when par is proven optimal: the search is exact for the rules it models and the
drawn route scores what it found; bound is the search's value (equal to par when proven). With a
timer on the sheet the route is held against it at --speed mm/s: par is proven only when it
fits. When it does not, timer_vp is the best score found within the timer (routes drawn and
scored by the referee), timer_bound an upper bound of the VP any line within the timer scores
(from the least length of line its elements need), and timer_proven whether timer_vp reaches
it; --timer-route makes -o write that route instead. --character plays as a character of the
game data (the Ranger's plants count double, the Cleric connects stones in any order).
exit codes: 0 par found for every dungeon, 1 a dungeon with errors or a route not drawn, 2 usage
error or unreadable input
"""


def register(subparsers) -> None:
    """Add ``par`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "par",
        help="the best solo score of each line dungeon and a route that scores it",
        description="Find par for line dungeons: the best score one player can make under the line "
        "family's rules (rooms all or nothing, corridor elements optional, keys and locked doors, "
        "portals, artifact stones, orbs, the boss and the end triggers), and draw a route that scores it.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="a line dungeon file, a pack folder or pack.json, or a game.json")
    parser.add_argument("--players", type=int, default=1, help="players at the table, for the key supply (default 1)")
    parser.add_argument(
        "--character", metavar="ID", help="play as this character of the game data (its ability counts)"
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="ROUTE.play.json",
        help="write the route as a play file (with several dungeons: a folder of ID.play.json files)",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=None,
        metavar="MM_PER_S",
        help="how fast a player draws, mm of line per second, to hold the route against the sheet's timer "
        "(default 50: a stated assumption, see docs/play-files.md)",
    )
    parser.add_argument(
        "--timer-route",
        action="store_true",
        help="with -o: write the best route found within the sheet's timer when the par route does not fit it",
    )
    parser.add_argument("--force", action="store_true", help="replace read-only output files")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text: a line per dungeon (default); json: objects"
    )
    parser.set_defaults(func=_cmd_par)


def _cmd_par(args: argparse.Namespace) -> int:
    from inkcrawl.cli.common import SPEED_RANGE_MM_S
    from inkcrawl.engines.line import GameDataError, LineRules
    from inkcrawl.engines.line.par import DEFAULT_SPEED_MM_S, par
    from inkcrawl.jsonio import WriteRefused, write_json_atomic

    speed = DEFAULT_SPEED_MM_S if args.speed is None else args.speed
    low, high = SPEED_RANGE_MM_S
    if not low <= speed <= high:
        message = f"--speed {args.speed}: give mm per second from {low:g} to {high:g}"
        print(f"inkcrawl par: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    if args.timer_route and not args.output:
        print(
            "inkcrawl par: error: --timer-route chooses the route -o writes: give -o ROUTE.play.json", file=sys.stderr
        )
        return EXIT_USAGE
    if not 1 <= args.players <= 16:
        print(f"inkcrawl par: error: --players {args.players}: use 1 to 16", file=sys.stderr)
        return EXIT_USAGE
    entries, status = load_games([args.path])
    if status is not None:
        return status
    lines = [e for e in entries if isinstance(e, dict) and e.get("family") == "line"]
    if not lines:
        print(terminal_safe(f"inkcrawl par: error: {args.path} holds no line dungeon"), file=sys.stderr)
        return EXIT_PROBLEMS
    results, code = [], EXIT_OK
    for entry in lines:
        try:
            result = par(LineRules(entry), args.players, speed, args.character)
        except ValueError as exc:  # a GameDataError, or an unknown character
            print(terminal_safe(f"{args.path}: dungeon {entry.get('id')!r} cannot be played: {exc}"), file=sys.stderr)
            code = EXIT_PROBLEMS
            continue
        except GameDataError as exc:
            print(terminal_safe(f"{args.path}: dungeon {entry.get('id')!r} cannot be played: {exc}"), file=sys.stderr)
            code = EXIT_PROBLEMS
            continue
        if result.play is None:
            code = EXIT_PROBLEMS
        results.append(result)
        if args.format == "text" and result.play is None:
            print(
                terminal_safe(
                    f"{result.dungeon}: no par: {result.note} (the search's best, {result.bound} VP, is only a bound)"
                )
            )
        elif args.format == "text":
            status_text = "proven" if result.proven else f"not proven (bound {result.bound})"
            note = f"; {result.note}" if result.note else ""
            if result.timer_s is not None and result.fits_timer:
                needs = result.length_mm / result.speed_mm_s
                note += f"; fits the {result.timer_s:g} s timer ({needs:.0f} s at {result.speed_mm_s:g} mm/s)"
            elif result.timer_s is not None:
                verdict = "proven" if result.timer_proven else "not proven"
                note += (
                    f"; within the {result.timer_s:g} s timer: {result.timer_vp} VP, {verdict} "
                    f"(bound {result.timer_bound})"
                )
            print(
                terminal_safe(
                    f"{result.dungeon}: par {result.par} VP, {status_text}, route {result.length_mm:.0f} mm "
                    f"through {len(result.route)} element(s){note}"
                )
            )
    if args.format == "json":
        text = json.dumps([r.as_dict() for r in results], indent=2, ensure_ascii=False)
        sys.stdout.write(json_terminal_safe(text) + "\n")
    if args.output:
        for r in results:
            if args.timer_route and r.timer_play is not None:
                r.play = r.timer_play
        drawn = [r for r in results if r.play is not None]
        try:
            if len(results) == 1 and drawn:
                write_json_atomic(Path(args.output), drawn[0].play, force=args.force, inputs=[args.path])
            elif drawn:
                folder = Path(args.output)
                folder.mkdir(parents=True, exist_ok=True)
                for r in drawn:
                    write_json_atomic(folder / f"{r.dungeon}.play.json", r.play, force=args.force, inputs=[args.path])
        except (WriteRefused, OSError) as exc:
            print(f"inkcrawl par: error: {write_failure(args.output, exc)}", file=sys.stderr)
            return EXIT_USAGE
    return code
