"""``inkcrawl simulate``: play many seeded games of a dungeon and report how it plays.

The games and their statistics are :func:`inkcrawl.simulate.simulate` for a grid dungeon (the
docstring of :mod:`inkcrawl.simulate` describes the JSON output) and
:func:`inkcrawl.engines.line.simulate.simulate_line` for a line dungeon (player models optimal,
greedy and a sloppy human); this module reads the dungeon, checks the options and prints.
With ``--heatmap OUT.png`` the ``entered`` shares are also drawn over the dungeon's sheet by
the renderer registered as ``heatmap`` in the ``inkcrawl.renderers`` entry-point group
(``exporters.heatmap``); the core never imports it. It is called as
``renderer(path, entry, usage, source=..., dpi=..., caption=...)``, plus ``force=True`` with
``--force`` (replace a read-only file).

Exit codes: 0 done, 1 validation errors in the dungeon (or unplayable game data), 2 usage
error, unreadable input or an output that cannot be written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from inkcrawl.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    add_run_options,
    check_output_file,
    load_games,
    positive_int,
    terminal_safe,
    whole_number,
    write_failure,
)
from inkcrawl.simulate import format_text, simulate
from inkcrawl.suggest import did_you_mean

_EPILOG = """\
examples:
  inkcrawl simulate content/packs/ember-halls --games 10000 --players 2 --policy greedy --seed 1
  inkcrawl simulate content/packs/ember-halls --dungeon cinder-vault --policy greedy,random --format json
  inkcrawl simulate ember.game.json --dungeon cinder-vault --games 5000 --heatmap cinder-vault-heat.png
  inkcrawl simulate content/packs/ember-halls --games 2000 --balance
  inkcrawl simulate content/packs/ember-halls --games 1000000 --scheduler tcp://10.0.0.5:8786
  inkcrawl simulate content/packs/lantern-depths --games 200 --skill 0.5 --heatmap cellars-lines.png
  inkcrawl simulate content/packs/lantern-depths --dungeon lantern-kings-descent --policy greedy

Statistics are over every player of every game. The same seed gives the same output, whatever the
number of workers and wherever the games are played (--workers, --scheduler).
--balance adds lead changes by round, the skill gap (the best policy's mean score minus random's) and
the deck sensitivity (the mean score with one card more or fewer of each kind): it plays the games
again for each policy and each deck variant (16 times as many games for the bundled deck).
--scheduler plays on a Dask distributed cluster (pip install 'inkcrawl[dask]'; its workers must have
this version of inkcrawl installed).
grid policies: random (uniformly random legal placements), greedy (best immediate score, then open ends)
line policies: optimal (the par route, drawn exactly), greedy (the area worth most next, no look-ahead),
human (the par route drawn by a sloppy hand: misses, pen jitter and a varying speed, scaled by --skill)
The heatmap is written atomically; a read-only file is refused unless --force, a device or PATH itself always.
exit codes: 0 done, 1 validation errors in the dungeon, 2 usage error, unreadable input, a heatmap that cannot
be written or workers that failed (a Dask scheduler out of reach); 130 Ctrl+C, 143 SIGTERM
"""


def _skills(text: str) -> list[float]:
    try:
        values = [float(part) + 0.0 for part in text.split(",")]  # + 0.0: -0 is skill 0, not "-0"
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number, or numbers separated by commas") from None
    if any(value != value for value in values):  # NaN
        raise argparse.ArgumentTypeError("a skill is a number from 0 to 1")
    return values


_seed = whole_number()


def register(subparsers) -> None:
    """Add ``simulate`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "simulate",
        help="play many seeded games of a dungeon and report scores, completion, balance and where play goes",
        description="Play N seeded games of a dungeon with simulated players and report the final score "
        "(mean, spread, percentiles) and its balance. A grid dungeon: the average of each scoring term, how "
        "often each room is used and how often segments could not be placed. A line dungeon: how often each "
        "element is completed, how the scrawls end and where the lines go.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="a dungeon file, a pack folder or pack.json, or a game.json")
    parser.add_argument("--dungeon", metavar="ID", help="which dungeon of a pack or game.json (default: the first)")
    parser.add_argument("--games", type=positive_int, default=1000, metavar="N", help="games to play (default 1000)")
    parser.add_argument(
        "--players",
        type=positive_int,
        default=None,
        metavar="P",
        help="players per game, as many as the dungeon's ruleset allows (at most 8; default 2 for a grid "
        "dungeon, 1 for a line dungeon, where it sets the key supply)",
    )
    parser.add_argument(
        "--policy",
        default=None,
        metavar="NAME",
        help="how the players play. Grid: random or greedy (default random); NAME,NAME,... gives each seat its "
        "own. Line: optimal, greedy or human (default human)",
    )
    parser.add_argument(
        "--skill",
        type=_skills,
        default=[0.7],
        metavar="S",
        help="line, policy human: how exactly the players draw, 0 (sloppiest) to 1 (exact; default 0.7); "
        "S,S,... gives each seat its own",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=50.0,
        metavar="MM_PER_S",
        help="line: drawing speed against the sheet's timer, mm of line per second (default 50, as inkcrawl par)",
    )
    parser.add_argument("--character", metavar="ID", help="line: play as this character of the game data")
    parser.add_argument("--seed", type=_seed, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text for people (default) or json for programs"
    )
    parser.add_argument(
        "--balance",
        action="store_true",
        help="also measure lead changes, the skill gap and the deck sensitivity (plays more games)",
    )
    add_run_options(parser)
    parser.add_argument(
        "--heatmap",
        metavar="OUT.png",
        help="also draw over the sheet how often each room is entered (grid) or where the lines go (line)",
    )
    parser.add_argument("--dpi", type=float, default=150, help="heatmap resolution (default 150)")
    parser.add_argument("--force", action="store_true", help="replace the heatmap file even when it is read-only")
    parser.set_defaults(func=_cmd_simulate)


def _usage(message: str) -> int:
    print(terminal_safe(f"inkcrawl simulate: error: {message}"), file=sys.stderr)
    return EXIT_USAGE


#: Runs of at least this many games print progress lines to standard error when it is not a
#: terminal (a log, a pipe): the first after the first 100 games, then one every
#: :data:`PROGRESS_SECONDS` (on a terminal, a progress bar from 1,000 games).
PROGRESS_LINES_FROM = 10_000
PROGRESS_SECONDS = 10.0


class ProgressLines:
    """``simulate: 200 of 100,000,000 games played`` lines for a long run without a terminal
    (``command`` names the command: ``sweep`` prints them too)."""

    def __init__(self, total: int, command: str = "simulate"):
        self.total = total
        self.command = command
        self.done = 0
        self.last: float | None = None

    def update(self, done: int) -> None:
        import time

        self.done += done
        now = time.monotonic()
        if self.last is None or now - self.last >= PROGRESS_SECONDS or self.done == self.total:
            self.last = now
            print(f"{self.command}: {self.done:,} of {self.total:,} games played", file=sys.stderr, flush=True)


def find_renderer(name: str):
    """The renderer registered as ``name`` in the ``inkcrawl.renderers`` entry-point group, or ``None``."""
    from importlib.metadata import entry_points

    for entry in entry_points(group="inkcrawl.renderers", name=name):
        return entry.load()
    return None


def _cmd_simulate(args: argparse.Namespace) -> int:
    from inkcrawl.cli.common import SPEED_RANGE_MM_S
    from inkcrawl.engines.grid.game import MAX_PLAYERS
    from inkcrawl.runs import MAX_WORKERS

    if args.players is not None and not 1 <= args.players <= MAX_PLAYERS:
        return _usage(f"use 1 to {MAX_PLAYERS} players (the most any ruleset allows)")
    if args.workers is not None and args.workers > MAX_WORKERS:
        return _usage(
            f"--workers {args.workers}: use 1 to {MAX_WORKERS} (more processes than cores only slow the games down)"
        )
    if not all(0 <= skill <= 1 for skill in args.skill):
        return _usage("--skill is from 0 (the sloppiest hand) to 1 (exact)")
    low, high = SPEED_RANGE_MM_S
    if not low <= args.speed <= high:
        return _usage(f"--speed is in mm per second, from {low:g} to {high:g} (a careful line is about 50)")
    if not 10 <= args.dpi <= 1200:
        return _usage("use a heatmap resolution from 10 to 1200 dpi")
    if args.heatmap and not args.heatmap.lower().endswith(".png"):
        return _usage("the heatmap is a PNG: its file name must end in .png")
    if args.heatmap and not (Path(args.heatmap).parent if str(Path(args.heatmap).parent) else Path(".")).is_dir():
        return _usage(f"the folder of {args.heatmap!r} does not exist")
    if args.heatmap:
        from inkcrawl.loading import input_files

        refused = check_output_file(args.heatmap, args.force, input_files([args.path]))
        if refused:
            return _usage(refused)
    entries, status = load_games([args.path])
    if status is not None:
        return status
    if args.dungeon is not None:
        chosen = [e for e in entries if e.get("id") == args.dungeon]
        if not chosen:
            return _usage(
                f"no dungeon {args.dungeon!r} in {args.path} (there are: "
                f"{', '.join(str(e.get('id')) for e in entries)})"
                + did_you_mean(args.dungeon, [str(e.get("id")) for e in entries])
            )
        entry = chosen[0]
    elif entries:
        entry = entries[0]
    else:
        return _usage(f"no dungeon found in {args.path}")
    line = entry.get("family") == "line"
    players_wanted = args.players if args.players is not None else (1 if line else 2)
    players = entry.get("players") or {}
    low, high = players.get("min", 1), min(players.get("max", 4), MAX_PLAYERS)
    if not low <= players_wanted <= high:
        return _usage(f"dungeon {entry.get('id')!r} is for {low} to {high} players (its ruleset's range)")
    renderer = None
    if args.heatmap:
        try:
            renderer = find_renderer("heatmap")
        except Exception as exc:  # a broken plugin: say so, do not crash
            return _usage(f"the heatmap renderer failed to load: {exc}")
        if renderer is None:
            return _usage("no heatmap renderer is installed (entry point 'heatmap' in group 'inkcrawl.renderers')")
    if line:
        stats_or_status = _simulate_line(args, entry, players_wanted)
    else:
        stats_or_status = _simulate_grid(args, entry, players_wanted)
    if isinstance(stats_or_status, int):
        return stats_or_status
    stats = stats_or_status
    if args.format == "json":
        sys.stdout.write(json.dumps(stats, indent=2) + "\n")
    elif line:
        from inkcrawl.simulate import format_line_text

        sys.stdout.write(terminal_safe(format_line_text(stats)))
    else:
        sys.stdout.write(terminal_safe(format_text(stats, int(entry["board"]["columns"]))))
    if renderer is not None:
        usage = stats["heatmap"] if line else [room["entered"] for room in stats["rooms"]]
        try:
            policy = stats["policy"] if line else ",".join(dict.fromkeys(stats["policies"]))
            caption = f"{args.games} games, {players_wanted} player{'s' if players_wanted > 1 else ''}, "
            skills = ",".join(f"{skill:g}" for skill in args.skill)
            caption += f"policy {policy}" + (f" (skill {skills})" if line and policy == "human" else "")
            caption += f", seed {args.seed}"
            extra = {"force": True} if args.force else {}  # (a renderer written before --force takes no such option)
            renderer(args.heatmap, entry, usage, source=args.path, dpi=args.dpi, caption=caption, **extra)
        except OSError as exc:
            return _usage(write_failure(args.heatmap, exc))
        except ValueError as exc:
            return _usage(f"cannot draw the heatmap: {exc}")
        print(terminal_safe(f"wrote {args.heatmap}"), file=sys.stderr)
    return EXIT_OK


def _progress(total: int):
    """A progress bar on a terminal (from 1,000 games), progress lines in a log (from
    :data:`PROGRESS_LINES_FROM`); returns ``(update, close)``."""
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        unit="game",
        file=sys.stderr,
        disable=not sys.stderr.isatty() or total < 1000,
        leave=False,
        dynamic_ncols=True,
    )
    lines = ProgressLines(total) if not sys.stderr.isatty() and total >= PROGRESS_LINES_FROM else None

    def update(done: int) -> None:
        bar.update(done)
        if lines is not None:
            lines.update(done)

    return update, bar.close


def _simulate_grid(args: argparse.Namespace, entry: dict, players: int) -> dict | int:
    from inkcrawl.balance import extra_games
    from inkcrawl.engines.grid import GameDataError
    from inkcrawl.engines.grid_policies import policy_names
    from inkcrawl.runs import RunError
    from inkcrawl.workers import default_workers

    names = [name.strip() for name in (args.policy or "random").split(",")]
    known = policy_names()
    unknown = [name for name in names if name not in known]
    if unknown:
        return _usage(f"unknown policy {unknown[0]!r} (known: {', '.join(known)}){did_you_mean(unknown[0], known)}")
    if len(names) not in (1, players):
        return _usage(f"{len(names)} policies for {players} players: give one, or one per player")
    total = args.games + (extra_games(entry, args.games) if args.balance else 0)
    progress, close = _progress(total)
    try:
        return simulate(
            entry,
            args.games,
            players,
            names,
            args.seed,
            progress=progress,
            workers=args.workers or default_workers(),
            scheduler=args.scheduler,
            balance=args.balance,
        )
    except RunError as exc:
        return _usage(str(exc))
    except GameDataError as exc:
        print(
            terminal_safe(f"{args.path}: error: dungeon {entry.get('id')!r} cannot be played: {exc}"), file=sys.stderr
        )
        return EXIT_PROBLEMS
    finally:
        close()


def _simulate_line(args: argparse.Namespace, entry: dict, players: int) -> dict | int:
    from inkcrawl.engines.line import GameDataError, PlayError
    from inkcrawl.engines.line.simulate import POLICIES, SimulationError, simulate_line
    from inkcrawl.workers import default_workers

    policy = (args.policy or "human").strip()
    if policy not in POLICIES:
        known = ", ".join(POLICIES)
        if "," in policy:  # NAME,NAME,... is the grid's seat by seat
            return _usage(
                f"--policy {policy!r}: a line dungeon plays one policy for every player (one of {known}); "
                "a policy per seat (NAME,NAME,...) is for grid dungeons"
            )
        return _usage(f"unknown policy {policy!r} for a line dungeon (known: {known}){did_you_mean(policy, POLICIES)}")
    if args.scheduler:
        return _usage("--scheduler plays grid dungeons; line dungeons play on the local cores (--workers)")
    if args.balance:
        return _usage("--balance measures grid dungeons; a line dungeon's simulation always reports its spread")
    progress, close = _progress(args.games)
    try:
        return simulate_line(
            entry,
            args.games,
            policy,
            args.seed,
            skill=args.skill if len(args.skill) > 1 else args.skill[0],
            speed_mm_s=args.speed,
            players=players,
            character=args.character,
            progress=progress,
            workers=args.workers or default_workers(),
        )
    except ValueError as exc:  # an unknown character
        if isinstance(exc, SimulationError):
            print(
                terminal_safe(f"{args.path}: error: dungeon {entry.get('id')!r} cannot be simulated: {exc}"),
                file=sys.stderr,
            )
            return EXIT_PROBLEMS
        return _usage(str(exc))
    except (GameDataError, PlayError) as exc:
        print(
            terminal_safe(f"{args.path}: error: dungeon {entry.get('id')!r} cannot be played: {exc}"), file=sys.stderr
        )
        return EXIT_PROBLEMS
    finally:
        close()
