"""``inkcrawl simulate``: play many seeded games of a grid dungeon and report how it plays.

The games and their statistics are :func:`inkcrawl.simulate.simulate` (the docstring of
:mod:`inkcrawl.simulate` describes the JSON output); this module reads the dungeon, checks
the options and prints.
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
    check_output_file,
    load_games,
    terminal_safe,
    write_failure,
)
from inkcrawl.simulate import format_text, simulate

_EPILOG = """\
examples:
  inkcrawl simulate content/packs/ember-halls --games 10000 --players 2 --policy greedy --seed 1
  inkcrawl simulate content/packs/ember-halls --dungeon cinder-vault --policy greedy,random --format json
  inkcrawl simulate ember.game.json --dungeon cinder-vault --games 5000 --heatmap cinder-vault-heat.png
  inkcrawl simulate content/packs/ember-halls --games 2000 --balance
  inkcrawl simulate content/packs/ember-halls --games 1000000 --scheduler tcp://10.0.0.5:8786

Statistics are over every player of every game. The same seed gives the same output, whatever the
number of workers and wherever the games are played (--workers, --scheduler).
--balance adds lead changes by round, the skill gap (the best policy's mean score minus random's) and
the deck sensitivity (the mean score with one card more or fewer of each kind): it plays the games
again for each policy and each deck variant (16 times as many games for the bundled deck).
--scheduler plays on a Dask distributed cluster (pip install 'inkcrawl[dask]'; its workers must have
this version of inkcrawl installed).
policies: random (uniformly random legal placements), greedy (best immediate score, then open ends)
The heatmap is written atomically; a read-only file is refused unless --force, a device or PATH itself always.
exit codes: 0 done, 1 validation errors in the dungeon, 2 usage error, unreadable input, a heatmap that cannot
be written or workers that failed (a Dask scheduler out of reach); 130 Ctrl+C, 143 SIGTERM
"""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("use at least 1")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def register(subparsers) -> None:
    """Add ``simulate`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "simulate",
        help="play many seeded games of a grid dungeon and report scores, rooms and tallies",
        description="Play N seeded games of a grid dungeon with simulated players and report the final score "
        "(mean, spread, percentiles), the average of each scoring term, how often each room is used "
        "and how often segments could not be placed.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="a grid dungeon file, a pack folder or pack.json, or a game.json")
    parser.add_argument("--dungeon", metavar="ID", help="which dungeon of a pack or game.json (default: the first)")
    parser.add_argument("--games", type=_positive, default=1000, metavar="N", help="games to play (default 1000)")
    parser.add_argument(
        "--players",
        type=_positive,
        default=2,
        metavar="P",
        help="players per game, as many as the dungeon's ruleset allows (at most 8; default 2)",
    )
    parser.add_argument(
        "--policy",
        default="random",
        metavar="NAME",
        help="how the players play: random or greedy (default random); NAME,NAME,... gives each seat its own",
    )
    parser.add_argument("--seed", type=_seed, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text for people (default) or json for programs"
    )
    parser.add_argument(
        "--balance",
        action="store_true",
        help="also measure lead changes, the skill gap and the deck sensitivity (plays more games)",
    )
    parser.add_argument(
        "--workers",
        type=_positive,
        default=None,
        metavar="N",
        help="processes to play in (default: one per core, up to 8); the output is the same for any N",
    )
    parser.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="play on this Dask distributed scheduler instead (needs pip install 'inkcrawl[dask]')",
    )
    parser.add_argument("--heatmap", metavar="OUT.png", help="also draw how often each room is entered over the sheet")
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
    from inkcrawl.engines.grid import GameDataError
    from inkcrawl.engines.grid_policies import policy_names

    names = [name.strip() for name in args.policy.split(",")]
    known = policy_names()
    unknown = [name for name in names if name not in known]
    if unknown:
        return _usage(f"unknown policy {unknown[0]!r} (known: {', '.join(known)})")
    from inkcrawl.engines.grid.game import MAX_PLAYERS

    if not 1 <= args.players <= MAX_PLAYERS:
        return _usage(f"use 1 to {MAX_PLAYERS} players (the most any ruleset allows)")
    if len(names) not in (1, args.players):
        return _usage(f"{len(names)} policies for {args.players} players: give one, or one per player")
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
            )
        entry = chosen[0]
    elif entries:
        entry = entries[0]
    else:
        return _usage(f"no dungeon found in {args.path}")
    if entry.get("family") != "grid":
        return _usage(f"dungeon {entry.get('id')!r} is a {entry.get('family')} dungeon; simulate plays grid dungeons")
    players = entry.get("players") or {}
    low, high = players.get("min", 1), min(players.get("max", 4), MAX_PLAYERS)
    if not low <= args.players <= high:
        return _usage(f"dungeon {entry.get('id')!r} is for {low} to {high} players (its ruleset's range)")
    renderer = None
    if args.heatmap:
        try:
            renderer = find_renderer("heatmap")
        except Exception as exc:  # a broken plugin: say so, do not crash
            return _usage(f"the heatmap renderer failed to load: {exc}")
        if renderer is None:
            return _usage("no heatmap renderer is installed (entry point 'heatmap' in group 'inkcrawl.renderers')")

    from tqdm import tqdm

    from inkcrawl.balance import extra_games
    from inkcrawl.runs import RunError
    from inkcrawl.workers import default_workers

    total = args.games + (extra_games(entry, args.games) if args.balance else 0)
    workers = args.workers or default_workers()
    bar = tqdm(
        total=total,
        unit="game",
        file=sys.stderr,
        disable=not sys.stderr.isatty() or total < 1000,
        leave=False,
        dynamic_ncols=True,
    )
    lines = ProgressLines(total) if not sys.stderr.isatty() and total >= PROGRESS_LINES_FROM else None

    def progress(done: int) -> None:
        bar.update(done)
        if lines is not None:
            lines.update(done)

    try:
        stats = simulate(
            entry,
            args.games,
            args.players,
            names,
            args.seed,
            progress=progress,
            workers=workers,
            scheduler=args.scheduler,
            balance=args.balance,
        )
    except RunError as exc:
        print(terminal_safe(f"inkcrawl simulate: error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except GameDataError as exc:
        print(
            terminal_safe(f"{args.path}: error: dungeon {entry.get('id')!r} cannot be played: {exc}"), file=sys.stderr
        )
        return EXIT_PROBLEMS
    finally:
        bar.close()
    if args.format == "json":
        sys.stdout.write(json.dumps(stats, indent=2) + "\n")
    else:
        sys.stdout.write(terminal_safe(format_text(stats, int(entry["board"]["columns"]))))
    if renderer is not None:
        usage = [room["entered"] for room in stats["rooms"]]
        try:
            caption = f"{args.games} games, {args.players} players, policy {args.policy}, seed {args.seed}"
            extra = {"force": True} if args.force else {}  # (a renderer written before --force takes no such option)
            renderer(args.heatmap, entry, usage, source=args.path, dpi=args.dpi, caption=caption, **extra)
        except OSError as exc:
            return _usage(write_failure(args.heatmap, exc))
        except ValueError as exc:
            return _usage(f"cannot draw the heatmap: {exc}")
        print(terminal_safe(f"wrote {args.heatmap}"), file=sys.stderr)
    return EXIT_OK
