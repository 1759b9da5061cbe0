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
    "90"}, "distribution": {score: player-games}}`` of the final score; percentiles interpolate
    linearly between ranks (numpy's default method); the distribution's keys are strings, in
    increasing order of score.
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
``balance``
    How fair and how lively the games are:

    - ``seat_win_gap``: the largest seat's ``wins`` minus the smallest (0 for one player);
    - ``outcome_uniformity``: the Shannon entropy of the seats' ``wins`` divided by its
      largest possible value, ``ln(players)``: 1 when every seat wins equally often, 0 when one
      seat always wins (1 for one player);
    - ``score_spread``: ``{"stdev", "iqr"}`` of the final score (``iqr``: the 75th minus the
      25th percentile);
    - ``ties``: the share of games with more than one winner;
    - ``winning_margin``: the mean of the best score minus the second best (0 for one player);
    - with ``--balance`` only, ``lead_changes``: ``{"mean" (per game), "by_round": {round:
      share of games}}``. After
      each round every map is scored as if the game ended there (RULES.md 1, Scoring); the
      *sole leader* is the one player with the highest such score (none on a tie); a lead
      change is a round after which there is a sole leader other than the last sole leader
      before it (the first sole leader is not a change). Zero for one player.

    ``--balance`` also adds ``skill_gap`` and ``deck_sensitivity``
    (:func:`inkcrawl.balance.balance_extras`), which play the games again with every policy and
    with each one-card deck variant.

Floats are rounded to 4 decimals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from inkcrawl.tally import (
    DECIMALS,
    PERCENTILES,
    GridTally,
    LeadTracker,
    _compiled,
    game_seeds,
    iter_game_seeds,
    percentile,
    percentile_of_counts,
    play_chunk,
)

__all__ = [
    "DECIMALS",
    "PERCENTILES",
    "GridTally",
    "LeadTracker",
    "format_balance",
    "format_line_seats",
    "format_line_text",
    "format_text",
    "game_seeds",
    "iter_game_seeds",
    "percentile",
    "percentile_of_counts",
    "play_chunk",
    "simulate",
]


def simulate(
    entry: dict,
    games: int,
    players: int,
    policies: Sequence[str] | str,
    seed: int,
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    balance: bool = False,
) -> dict:
    """Play ``games`` games of the grid dungeon ``entry`` (game data) and return the statistics
    (the JSON document described in the module docstring). ``policies``: one name for every
    seat, or one per seat. ``progress(n)`` is called with the number of games just finished.
    ``workers``: processes to play in (the result is the same for any number);
    ``scheduler``: the address of a Dask distributed scheduler to play on instead
    (:mod:`inkcrawl.runs`). ``balance``: also count lead changes and add the skill gap and the
    deck sensitivity (:func:`inkcrawl.balance.balance_extras`, which plays more games: see
    :func:`inkcrawl.balance.extra_games`). Raises :class:`~inkcrawl.engines.grid.GameDataError`, ``KeyError``
    (unknown policy), ``ValueError`` (player count) and :class:`~inkcrawl.runs.RunError`
    (the workers or the scheduler failed)."""
    from inkcrawl.engines.grid import GridRules
    from inkcrawl.engines.grid.game import MAX_PLAYERS
    from inkcrawl.runs import run_tally

    rules = GridRules(entry)
    names = [policies] * players if isinstance(policies, str) else list(policies)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"{len(names)} policies for {players} players")
    if not 1 <= players <= MAX_PLAYERS or not rules.min_players <= players <= rules.max_players:
        raise ValueError(
            f"{players} players: this dungeon is for {rules.min_players}-{min(rules.max_players, MAX_PLAYERS)}"
        )
    _compiled(entry, names)  # unknown policies fail here, before any worker starts
    tally = run_tally(entry, names, seed, games, progress=progress, workers=workers, scheduler=scheduler, leads=balance)
    stats = tally.statistics(rules, seed, names, leads=balance)
    if balance:
        from inkcrawl.balance import balance_extras

        extras = balance_extras(
            entry, names, seed, games, tally, progress=progress, workers=workers, scheduler=scheduler
        )
        stats["balance"].update(extras)
    return stats


def format_balance(stats: dict) -> list[str]:
    """The ``balance`` section of the statistics as lines of text."""
    balance = stats["balance"]
    spread = balance["score_spread"]
    lines = ["Balance:"]
    if stats["players"] > 1:
        lines += [
            f"  seats: win shares differ by at most {balance['seat_win_gap'] * 100:.1f} points; "
            f"outcome uniformity {balance['outcome_uniformity']:.3f} (1 = every seat wins equally often)",
            f"  ties: {balance['ties'] * 100:.1f}% of games; "
            f"winning margin {balance['winning_margin']:.2f} VP on average",
        ]
    lines.append(f"  score spread: standard deviation {spread['stdev']:.2f}, interquartile range {spread['iqr']:g}")
    leads = balance.get("lead_changes")
    if leads is not None and stats["players"] > 1:
        by_round = ", ".join(f"{r}: {share * 100:.0f}%" for r, share in leads["by_round"].items())
        lines.append(f"  lead changes: {leads['mean']:.2f} per game; after round {by_round}")
    gap = balance.get("skill_gap")
    if gap is not None:
        means = ", ".join(f"{p} {m:.2f}" for p, m in gap["policies"].items())
        lines.append(f"  skill gap: {gap['gap']:+.2f} VP ({gap['best']} minus random; every seat: {means})")
    deck = balance.get("deck_sensitivity")
    if deck is not None:
        lines.append(f"  deck sensitivity: mean score moves by up to {deck['max_abs_delta']:.2f} VP with one card")
        for row in deck["variants"]:
            lines.append(
                f"    {row['variant']:<16} mean {row['mean']:7.2f}  {row['delta']:+6.2f}"
                f"  (standard error {row['standard_error']:.2f})"
            )
    return lines


def format_line_seats(stats: dict) -> list[str]:
    """The seats and the table's balance of a line simulation with several players, as lines."""
    if stats["players"] < 2:
        return []
    balance = stats["balance"]
    lines = ["Seats (everyone stops at the first Scrawl End):"]
    for seat in stats["seats"]:
        lines.append(
            f"  {seat['seat']}. skill {seat['skill']:<4g} mean {seat['mean']:6.2f}   wins {seat['wins'] * 100:5.1f}%"
        )
    lines.append(
        f"  ties {balance['ties'] * 100:.1f}% of games; winning margin {balance['winning_margin']:.2f} VP; "
        f"outcome uniformity {balance['outcome_uniformity']:.3f}"
    )
    return lines


def format_line_text(stats: dict) -> str:
    """A line dungeon's simulation (:func:`inkcrawl.engines.line.simulate.simulate_line`) as
    readable text."""
    score = stats["score"]
    skill = stats["skill"]
    skill_text = ",".join(f"{x:g}" for x in skill) if isinstance(skill, list) else f"{skill:g}"
    policy = stats["policy"] + (f" (skill {skill_text})" if stats["policy"] == "human" else "")
    lines = [
        f"{stats['dungeon']['title']} ({stats['dungeon']['id']}): {stats['games']} games, policy {policy}, "
        f"seed {stats['seed']}",
        "",
        f"Final score: mean {score['mean']:.2f}, standard deviation {score['stdev']:.2f}, "
        f"min {score['min']}, max {score['max']} (par {stats['par']})",
        "  percentiles: " + ", ".join(f"{p}%: {v:g}" for p, v in score["percentiles"].items()),
        f"  under par: {stats['balance']['par_gap']:+.2f} VP (par minus this mean)",
        *format_line_seats(stats),
        f"Line drawn: {stats['length_mm']:.0f} mm on average",
        "Scrawls ended: "
        + ", ".join(f"{how.replace('_', ' ')} {share * 100:.0f}%" for how, share in stats["ended"].items()),
        "",
        "Elements completed (% of games):" if stats["players"] == 1 else "Elements completed (% of player-games):",
    ]
    for row in stats["completion"]:
        vp = "" if row["vp"] is None else f"{row['vp']:+d} VP"
        lines.append(
            f"  {row['completed'] * 100:5.1f}%  {row['element']:<10} {row['kind']:<16} {vp:>6}  {row['area'] or ''}"
        )
    return "\n".join(lines) + "\n"


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
    lines += ["", *format_balance(stats)]
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
