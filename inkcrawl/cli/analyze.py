"""``inkcrawl analyze``: can a line dungeon be finished? Reachability with keys, doors and
one-way portals, and the shortest route to the boss, escape portals and exits; and for every
dungeon, what it still lacks to be played (:func:`missing_to_play`)."""

from __future__ import annotations

import argparse
import json
import sys

from inkcrawl.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, load_games, terminal_safe
from inkcrawl.textchars import json_terminal_safe


def register(subparsers) -> None:
    """Add ``analyze`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "analyze",
        help="solvability of line dungeons: reachability and shortest routes",
        description="Search every way through a line dungeon from its Starts (walls, doors and their keys, "
        "skeleton keys, one-way portals) and report unreachable elements, doors that never open, and "
        "the shortest route to each boss, escape portal and exit. For every dungeon (grid ones too), "
        "say what it still lacks to be played: an element that scores, an end trigger.",
        epilog="examples:\n  inkcrawl analyze content/packs/lantern-depths\n"
        "  inkcrawl analyze game.json --format json\n"
        "'to play it:' lines name what a dungeon lacks (as 'inkcrawl import' does); they do not change the\n"
        "exit code.\n"
        "exit codes: 0 everything reachable, 1 something unreachable or validation errors, 2 usage error",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a dungeon file, a pack folder, or a game.json")
    parser.add_argument(
        "--players",
        type=int,
        choices=range(1, 9),
        metavar="N",
        help="use the key supply for N players "
        "(default: a colour counts as usable if any player count the dungeon allows has a token of it)",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text for people (default) or json for programs"
    )
    parser.set_defaults(func=_cmd_analyze)


def _describe_route(steps) -> str:
    parts: list[tuple[str, str]] = []  # (area, how it was entered)
    for step in steps:
        via = step["via"].removeprefix("open, ").removeprefix("start, ")
        if parts and parts[-1][0] == step["area"] and via.startswith("skeleton"):
            parts[-1] = (step["area"], f"{parts[-1][1]}; {via}" if parts[-1][1] else via)
            continue
        parts.append((step["area"], "" if via in ("open", "start") else via))
    return " -> ".join(area + (f" ({via})" if via else "") for area, via in parts)


def _moves(steps) -> int:
    return sum(1 for before, after in zip(steps, steps[1:]) if before["area"] != after["area"])


def missing_to_play(entry: dict) -> list[str]:
    """What the dungeon of a game data entry still lacks to be played, one sentence each (an
    element that scores; for the line family, an end trigger): the words of ``inkcrawl
    import``'s summary, from its one source (:func:`inkcrawl.importers.missing_to_play`, which
    reads the members of a dungeon file, given here from the entry). Empty when nothing is
    missing or the ruleset is not a bundled one."""
    from inkcrawl.importers import missing_to_play as missing_in_dungeon

    ruleset = entry.get("ruleset")
    family = entry.get("family")
    dungeon: dict = {"family": family, "ruleset": ruleset.get("id") if isinstance(ruleset, dict) else ruleset}
    if family == "grid":
        dungeon["features"] = [room["feature"] for room in entry.get("rooms", []) if room.get("feature")]
    else:
        dungeon["elements"] = entry.get("elements", [])
        dungeon["sheet"] = {"end_triggers": entry.get("end_triggers", [])}
    return missing_in_dungeon(dungeon)


def _cmd_analyze(args: argparse.Namespace) -> int:
    from inkcrawl.solvability import analyze_line_game

    entries, status = load_games(args.paths)
    if status is not None:
        return status
    results = [analyze_line_game(e, args.players) for e in entries if e["family"] == "line"]
    skipped = [e["id"] for e in entries if e["family"] != "line"]
    missing = {e["id"]: missing_to_play(e) for e in entries}
    if not results:
        for dungeon_id in skipped:
            for sentence in missing[dungeon_id]:
                print(terminal_safe(f"{dungeon_id}: to play it: {sentence}"))
        print(
            "inkcrawl analyze: error: no line-family dungeon to analyse (the grid family has no keys or doors)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    trouble = any(r.unreachable_elements or r.doors_never_open or not r.complete for r in results)
    if args.format == "json":
        sys.stdout.write(
            json_terminal_safe(
                json.dumps(
                    [{**r.as_dict(), "missing_to_play": missing.get(r.dungeon, [])} for r in results],
                    indent=2,
                    ensure_ascii=False,
                )
            )
            + "\n"
        )
        return EXIT_PROBLEMS if trouble else EXIT_OK
    for result in results:
        print(terminal_safe(f"{result.dungeon}: {len(result.reached)} of {len(result.areas)} areas reachable"))
        if not result.complete:
            print("  the search stopped at its limit: results are incomplete")
        for element in result.unreachable_elements:
            print(terminal_safe(f"  unreachable: {element['kind']} '{element['id']}' in area '{element['area']}'"))
        for door in result.doors_never_open:
            print(terminal_safe(f"  never opens: door '{door['id']}' (locks: {', '.join(door['locks'])})"))
        for target, steps in result.routes.items():
            if steps is None:
                print(terminal_safe(f"  no route to {target}"))
            else:
                print(terminal_safe(f"  shortest route to {target} ({_moves(steps)} moves): {_describe_route(steps)}"))
        for sentence in missing.get(result.dungeon, []):
            print(terminal_safe(f"  to play it: {sentence}"))
    for dungeon_id in skipped:
        for sentence in missing[dungeon_id]:
            print(terminal_safe(f"{dungeon_id}: to play it: {sentence}"))
    if skipped:
        print(terminal_safe(f"(grid dungeons skipped: {', '.join(skipped)})"))
    return EXIT_PROBLEMS if trouble else EXIT_OK
