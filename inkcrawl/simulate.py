"""Play many seeded games of a grid dungeon and gather how it plays (``inkcrawl simulate``,
whose command line is :mod:`inkcrawl.cli.simulate`).

The games are played by :mod:`inkcrawl.engines.grid` from the dungeon's game data alone
(docs/game-data.md): the command reads a game.json as it is, and validates and converts a
dungeon file or pack first (a pack plays its first dungeon unless ``--dungeon ID``). Game ``k`` is
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

Floats are rounded to 4 decimals.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence

PERCENTILES = (10, 25, 50, 75, 90)
DECIMALS = 4


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


def iter_game_seeds(seed: int, games: int) -> Iterator[int]:
    """The seed of each game of a run, drawn one at a time (memory does not grow with ``games``)."""
    master = random.Random(seed)
    for _ in range(games):
        yield master.getrandbits(64)


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each game of a run, as a list (:func:`iter_game_seeds` for long runs)."""
    return list(iter_game_seeds(seed, games))


def percentile_of_counts(counts: Sequence[tuple[int, int]], p: float) -> float:
    """:func:`percentile` of the values that ``counts`` (``(value, how many)`` by increasing
    value) holds, without listing them."""
    total = sum(n for _, n in counts)
    if not total:
        return 0.0
    position = (total - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, total - 1)

    def at(rank: int) -> int:
        seen = 0
        for value, n in counts:
            seen += n
            if rank < seen:
                return value
        return counts[-1][0]

    return at(low) + (at(high) - at(low)) * (position - low)


def simulate(
    entry: dict,
    games: int,
    players: int,
    policies: Sequence[str] | str,
    seed: int,
    progress: Callable[[int], object] | None = None,
) -> dict:
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
    score_counts: dict[int, int] = {}  # score -> how many player-games: memory does not grow with the games
    term_sums = dict.fromkeys(rules.terms, 0)
    entered = [0] * n
    trapped = [0] * n
    tally_counts: dict[int, int] = {}
    segments_seen = unplaced = trap_tallies = skips = rounds = 0
    seat_sums = [0] * players
    seat_wins = [0.0] * players
    batch = 0
    for game_seed in iter_game_seeds(seed, games):
        result = play_game(rules, seats, game_seed)
        rounds += result.rounds_played
        share = 1 / len(result.winners)
        for p in result.winners:
            seat_wins[p] += share
        for p, (pm, score) in enumerate(zip(result.maps, result.scores)):
            score_counts[score.total] = score_counts.get(score.total, 0) + 1
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

    ordered = sorted(score_counts.items())
    samples = sum(count for _, count in ordered)
    mean = sum(value * count for value, count in ordered) / samples
    rooms = []
    for i in range(n):
        room: dict[str, object] = {
            "label": rules.labels[i],
            "cell": list(rules.cells[i]),
            "feature": rules.feature_kind[i],
        }
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
            "stdev": _r(math.sqrt(sum(count * (value - mean) ** 2 for value, count in ordered) / samples)),
            "min": ordered[0][0],
            "max": ordered[-1][0],
            "percentiles": {str(p): _r(percentile_of_counts(ordered, p)) for p in PERCENTILES},
        },
        "terms": {term: _r(total / samples) for term, total in term_sums.items()},
        "seats": [
            {"seat": p + 1, "policy": names[p], "mean": _r(seat_sums[p] / games), "wins": _r(seat_wins[p] / games)}
            for p in range(players)
        ],
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
            lines.append(
                f"  {seat['seat']}. {seat['policy']:<8} mean {seat['mean']:6.2f}   wins {seat['wins'] * 100:5.1f}%"
            )
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
    lines += [
        "",
        f"Rounds played: {stats['rounds_played']:g} on average",
        "",
        "Rooms entered (% of players; L loot, D dragon, w weapon, m monster):",
    ]
    rooms = stats["rooms"]
    rows = [rooms[k : k + columns] for k in range(0, len(rooms), columns)]
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
