"""``inkcrawl simulate``: play many seeded games of a grid dungeon and report how it plays.

The games are played by :mod:`inkcrawl.engines.grid` from the dungeon's game data alone
(docs/game-data.md): a game.json is read as it is; a dungeon file or pack is validated and
converted first (a pack plays its first dungeon unless ``--dungeon ID``). Game ``k`` is
seeded with the ``k``-th 64-bit number drawn from ``random.Random(SEED)``, so the same seed,
dungeon, game count, player count and policies give byte-identical output.

Statistics are over player-games (``games x players`` samples), scores in VP:

JSON output (``--format json``), one object:

``dungeon``
    ``{"id", "title"}``.
``games``, ``players``, ``seed``, ``policies``
    The run: ``policies`` lists the policy of each seat (``--policy a,b`` gives seats their
    own; one name plays every seat).
``switches``
    The rules switches the games were played with.
``score``
    ``{"mean", "stdev" (population), "min", "max", "percentiles": {"10", "25", "50", "75",
    "90"}}`` of the final score; percentiles interpolate linearly between ranks (numpy's
    default method).
``terms``
    Scoring term -> average points per player-game, in the rules' order (they add up to the
    mean score).
``seats``
    Per seat: ``{"seat" (1-based), "policy", "mean", "wins"}``; ``wins`` is the share of games
    won, a tie counting 1/k for each of k winners.
``tallies``
    ``{"mean", "max"}`` tally marks per player-game, ``"share_with_tally"`` (player-games with
    at least one), ``"unplaceable_segments"`` (share of the segment cards drawn that could
    not be placed), ``"from_traps"`` (mean tallies from traps with no room, switch
    ``no_trap_room: tally``), ``"distribution"`` (tally count -> player-games, as strings),
    and ``"skips"`` (mean voluntary skips, switch ``segment_skip: voluntary_tally``).
``rounds_played``
    Mean rounds per game (below the rules' rounds only with ``deck_exhausted: end_game``).
``rooms``
    Every room row by row: ``{"label", "cell", "feature" (kind or null), "letter"?,
    "entered" (share of player-games with a segment there), "trapped" (share with the
    player's own trap there)}``.

Floats are rounded to 4 decimals. With ``--heatmap OUT.png`` the ``entered`` shares are also
drawn over the dungeon's sheet by the renderer registered as ``heatmap`` in the
``inkcrawl.renderers`` entry-point group (``exporters.heatmap``); the core never imports it.

Exit codes: 0 done, 1 validation errors in the dungeon (or unplayable game data), 2 usage
error, unreadable input or an output that cannot be written.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from inkcrawl.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE

PERCENTILES = (10, 25, 50, 75, 90)
DECIMALS = 4

_EPILOG = """\
examples:
  inkcrawl simulate content/packs/ember-halls --games 10000 --players 2 --policy greedy --seed 1
  inkcrawl simulate content/packs/ember-halls --dungeon cinder-vault --policy greedy,random --format json
  inkcrawl simulate ember.game.json --dungeon cinder-vault --games 5000 --heatmap cinder-vault-heat.png

Statistics are over every player of every game. The same seed gives the same output.
policies: random (uniformly random legal placements), greedy (best immediate score, then open ends)
exit codes: 0 done, 1 validation errors in the dungeon, 2 usage error or unreadable input
"""


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile of sorted values, interpolating linearly between ranks."""
    if not sorted_values:
        return 0.0
    position = (len(sorted_values) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def _r(value: float) -> float | int:
    value = round(value, DECIMALS)
    return int(value) if float(value).is_integer() else value


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each game of a run."""
    master = random.Random(seed)
    return [master.getrandbits(64) for _ in range(games)]


def simulate(entry: dict, games: int, players: int, policies: Sequence[str] | str, seed: int,
             progress: Callable[[int], object] | None = None) -> dict:
    """Play ``games`` games of the grid dungeon ``entry`` (game data) and return the statistics
    (the JSON document described in the module docstring). ``policies``: one name for every
    seat, or one per seat. ``progress(n)`` is called with the number of games just finished.
    Raises :class:`~inkcrawl.engines.grid.GameDataError`, ``KeyError`` (unknown policy) and
    ``ValueError`` (player count)."""
    from inkcrawl.engines.grid import GridRules, play_game
    from inkcrawl.engines.grid_policies import make_policy

    rules = GridRules(entry)
    names = [policies] * players if isinstance(policies, str) else list(policies)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"{len(names)} policies for {players} players")
    built = {name: make_policy(name, rules) for name in dict.fromkeys(names)}
    seats = [built[name] for name in names]

    n = rules.size
    scores: list[int] = []
    term_sums = dict.fromkeys(rules.terms, 0)
    entered = [0] * n
    trapped = [0] * n
    tally_counts: dict[int, int] = {}
    segments_seen = unplaced = trap_tallies = skips = rounds = 0
    seat_sums = [0] * players
    seat_wins = [0.0] * players
    batch = 0
    for game_seed in game_seeds(seed, games):
        result = play_game(rules, seats, game_seed)
        rounds += result.rounds_played
        share = 1 / len(result.winners)
        for p in result.winners:
            seat_wins[p] += share
        for p, (pm, score) in enumerate(zip(result.maps, result.scores)):
            scores.append(score.total)
            seat_sums[p] += score.total
            for term, points in score.terms.items():
                term_sums[term] += points
            for i, mask in enumerate(pm.seg):
                if mask:
                    entered[i] += 1
            for i, _ in pm.traps:
                trapped[i] += 1
            tally_counts[pm.tallies] = tally_counts.get(pm.tallies, 0) + 1
            segments_seen += pm.segments_seen
            unplaced += pm.tallies - pm.trap_tallies
            trap_tallies += pm.trap_tallies
            skips += pm.skips
        batch += 1
        if progress is not None and batch == 100:
            progress(batch)
            batch = 0
    if progress is not None and batch:
        progress(batch)

    samples = len(scores)
    mean = sum(scores) / samples
    ordered = sorted(scores)
    rooms = []
    for i in range(n):
        room: dict[str, object] = {"label": rules.labels[i], "cell": list(rules.cells[i]),
                                   "feature": rules.feature_kind[i]}
        if rules.feature_letter[i] is not None:
            room["letter"] = rules.feature_letter[i]
        room["entered"] = _r(entered[i] / samples)
        room["trapped"] = _r(trapped[i] / samples)
        rooms.append(room)
    tallies_total = sum(k * v for k, v in tally_counts.items())
    return {
        "dungeon": {"id": rules.id, "title": rules.title},
        "games": games,
        "players": players,
        "seed": seed,
        "policies": names,
        "switches": dict(rules.switches),
        "score": {
            "mean": _r(mean),
            "stdev": _r(math.sqrt(sum((s - mean) ** 2 for s in scores) / samples)),
            "min": ordered[0],
            "max": ordered[-1],
            "percentiles": {str(p): _r(percentile(ordered, p)) for p in PERCENTILES},
        },
        "terms": {term: _r(total / samples) for term, total in term_sums.items()},
        "seats": [{"seat": p + 1, "policy": names[p], "mean": _r(seat_sums[p] / games), "wins": _r(seat_wins[p] / games)}
                  for p in range(players)],
        "tallies": {
            "mean": _r(tallies_total / samples),
            "max": max(tally_counts),
            "share_with_tally": _r(1 - tally_counts.get(0, 0) / samples),
            "unplaceable_segments": _r(unplaced / segments_seen if segments_seen else 0),
            "from_traps": _r(trap_tallies / samples),
            "distribution": {str(k): tally_counts[k] for k in sorted(tally_counts)},
            "skips": _r(skips / samples),
        },
        "rounds_played": _r(rounds / games),
        "rooms": rooms,
    }


_TAGS = {"loot": "L", "dragon": "D", "weapon": "w", "monster": "m"}


def _signed(value: float) -> str:
    return f"{value:+.2f}"


def format_text(stats: dict, columns: int) -> str:
    """The statistics as readable text."""
    score = stats["score"]
    lines = [
        f"{stats['dungeon']['title']} ({stats['dungeon']['id']}): {stats['games']} games, "
        f"{stats['players']} player{'s' if stats['players'] != 1 else ''}, "
        f"policy {', '.join(dict.fromkeys(stats['policies']))}, seed {stats['seed']}",
        "",
        f"Final score: mean {score['mean']:.2f}, standard deviation {score['stdev']:.2f}, "
        f"min {score['min']}, max {score['max']}",
        "  percentiles: " + ", ".join(f"{p}%: {v:g}" for p, v in score["percentiles"].items()),
        "",
        "Scoring terms (average points per player and game):",
    ]
    width = max(len(term) for term in stats["terms"])
    for term, value in stats["terms"].items():
        lines.append(f"  {term:<{width}}  {_signed(value)}")
    if stats["players"] > 1:
        lines += ["", "Seats:"]
        for seat in stats["seats"]:
            lines.append(f"  {seat['seat']}. {seat['policy']:<8} mean {seat['mean']:6.2f}   wins {seat['wins'] * 100:5.1f}%")
    tallies = stats["tallies"]
    lines += [
        "",
        f"Tally marks: {tallies['mean']:.2f} per player and game (max {tallies['max']}); "
        f"{tallies['share_with_tally'] * 100:.1f}% of players have at least one; "
        f"{tallies['unplaceable_segments'] * 100:.1f}% of segment cards could not be placed",
        "  distribution: " + ", ".join(f"{k}: {v}" for k, v in tallies["distribution"].items()),
    ]
    if tallies["from_traps"]:
        lines.append(f"  from traps with no empty room: {tallies['from_traps']:.2f} per player and game")
    if stats["switches"].get("segment_skip") == "voluntary_tally":
        lines.append(f"  voluntary skips: {tallies['skips']:.2f} per player and game")
    lines += ["", f"Rounds played: {stats['rounds_played']:g} on average", "",
              "Rooms entered (% of players; L loot, D dragon, w weapon, m monster):"]
    rooms = stats["rooms"]
    rows = [rooms[k:k + columns] for k in range(0, len(rooms), columns)]
    col_labels = ["".join(ch for ch in room["label"] if not ch.isdigit()) or room["label"] for room in rows[0]]
    lines.append("      " + "".join(f"{label:>7}" for label in col_labels))
    for row in rows:
        row_label = "".join(ch for ch in row[0]["label"] if ch.isdigit()) or ""
        cells = []
        for room in row:
            tag = _TAGS.get(room["feature"], "?" if room["feature"] else "") + (room.get("letter") or "")
            cells.append(f"{round(room['entered'] * 100):>4d}{tag:<3}")
        lines.append(f"  {row_label:>3} " + "".join(cells))
    return "\n".join(lines) + "\n"


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
        "simulate", help="play many seeded games of a grid dungeon and report scores, rooms and tallies",
        description="Play N seeded games of a grid dungeon with simulated players and report the final score "
                    "(mean, spread, percentiles), the average of each scoring term, how often each room is used "
                    "and how often segments could not be placed.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", metavar="PATH", help="a grid dungeon file, a pack folder or pack.json, or a game.json")
    parser.add_argument("--dungeon", metavar="ID", help="which dungeon of a pack or game.json (default: the first)")
    parser.add_argument("--games", type=_positive, default=1000, metavar="N", help="games to play (default 1000)")
    parser.add_argument("--players", type=_positive, default=2, metavar="P", help="players per game, 1-4 (default 2)")
    parser.add_argument("--policy", default="random", metavar="NAME",
                        help="how the players play: random or greedy (default random); NAME,NAME,... gives each "
                             "seat its own")
    parser.add_argument("--seed", type=_seed, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text for people (default) or json for programs")
    parser.add_argument("--heatmap", metavar="OUT.png", help="also draw how often each room is entered over the sheet")
    parser.add_argument("--dpi", type=float, default=150, help="heatmap resolution (default 150)")
    parser.set_defaults(func=_cmd_simulate)


def _usage(message: str) -> int:
    print(f"inkcrawl simulate: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def find_renderer(name: str):
    """The renderer registered as ``name`` in the ``inkcrawl.renderers`` entry-point group, or ``None``."""
    from importlib.metadata import entry_points

    for entry in entry_points(group="inkcrawl.renderers", name=name):
        return entry.load()
    return None


def _cmd_simulate(args: argparse.Namespace) -> int:
    from inkcrawl.analyze_cli import load_games
    from inkcrawl.engines.grid import GameDataError
    from inkcrawl.engines.grid_policies import policy_names

    names = [name.strip() for name in args.policy.split(",")]
    known = policy_names()
    unknown = [name for name in names if name not in known]
    if unknown:
        return _usage(f"unknown policy {unknown[0]!r} (known: {', '.join(known)})")
    if not 1 <= args.players <= 4:
        return _usage("use 1 to 4 players")
    if len(names) not in (1, args.players):
        return _usage(f"{len(names)} policies for {args.players} players: give one, or one per player")
    if not 10 <= args.dpi <= 1200:
        return _usage("use a heatmap resolution from 10 to 1200 dpi")
    if args.heatmap and not args.heatmap.lower().endswith(".png"):
        return _usage("the heatmap is a PNG: its file name must end in .png")
    if args.heatmap and not (Path(args.heatmap).parent if str(Path(args.heatmap).parent) else Path(".")).is_dir():
        return _usage(f"the folder of {args.heatmap!r} does not exist")
    entries, status = load_games([args.path])
    if status is not None:
        return status
    if args.dungeon is not None:
        chosen = [e for e in entries if e.get("id") == args.dungeon]
        if not chosen:
            return _usage(f"no dungeon {args.dungeon!r} in {args.path} (there are: "
                          f"{', '.join(str(e.get('id')) for e in entries)})")
        entry = chosen[0]
    elif entries:
        entry = entries[0]
    else:
        return _usage(f"no dungeon found in {args.path}")
    if entry.get("family") != "grid":
        return _usage(f"dungeon {entry.get('id')!r} is a {entry.get('family')} dungeon; simulate plays grid dungeons")
    players = entry.get("players") or {}
    if not players.get("min", 1) <= args.players <= players.get("max", 4):
        return _usage(f"dungeon {entry.get('id')!r} is for {players.get('min', 1)} to {players.get('max', 4)} players")
    renderer = None
    if args.heatmap:
        try:
            renderer = find_renderer("heatmap")
        except Exception as exc:  # a broken plugin: say so, do not crash
            return _usage(f"the heatmap renderer failed to load: {exc}")
        if renderer is None:
            return _usage("no heatmap renderer is installed (entry point 'heatmap' in group 'inkcrawl.renderers')")

    from tqdm import tqdm

    bar = tqdm(total=args.games, unit="game", file=sys.stderr, disable=not sys.stderr.isatty() or args.games < 1000,
               leave=False, dynamic_ncols=True)
    try:
        stats = simulate(entry, args.games, args.players, names, args.seed, progress=bar.update)
    except GameDataError as exc:
        print(f"{args.path}: error: dungeon {entry.get('id')!r} cannot be played: {exc}", file=sys.stderr)
        return EXIT_PROBLEMS
    finally:
        bar.close()
    if args.format == "json":
        sys.stdout.write(json.dumps(stats, indent=2) + "\n")
    else:
        sys.stdout.write(format_text(stats, int(entry["board"]["columns"])))
    if renderer is not None:
        usage = [room["entered"] for room in stats["rooms"]]
        try:
            caption = (f"{args.games} games, {args.players} players, policy {args.policy}, seed {args.seed}")
            renderer(args.heatmap, entry, usage, source=args.path, dpi=args.dpi, caption=caption)
        except OSError as exc:
            return _usage(f"cannot write {args.heatmap}: {exc.strerror or exc}")
        except ValueError as exc:
            return _usage(f"cannot draw the heatmap: {exc}")
        print(f"wrote {args.heatmap}", file=sys.stderr)
    return EXIT_OK
