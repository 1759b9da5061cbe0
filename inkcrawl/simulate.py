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

import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction

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


class GridTally:
    """Sums over finished grid games, from which :meth:`statistics` computes the JSON document of
    the module docstring. Every sum is a whole number, so tallies of parts of a run merged in any
    order (:meth:`merge`) give exactly the statistics of the whole run: a run split over any
    number of processes or machines prints the same bytes.

    ``size``: rooms of the dungeon; ``players``: seats; ``terms``: the scoring terms in order;
    ``rounds``: the rules' rounds (lead changes are counted per round, 1-based)."""

    def __init__(self, size: int, players: int, terms: Sequence[str], rounds: int):
        self.games = 0
        self.score_counts: dict[int, int] = {}  # score -> player-games: memory does not grow with the games
        self.term_sums = dict.fromkeys(terms, 0)
        self.entered = [0] * size
        self.trapped = [0] * size
        self.tally_counts: dict[int, int] = {}
        self.segments_seen = self.unplaced = self.trap_tallies = self.skips = self.rounds_played = 0
        self.seat_sums = [0] * players
        # seat_wins[p][k - 1]: games seat p won with k winners in all (a tie of k shares 1/k)
        self.seat_wins = [[0] * players for _ in range(players)]
        self.ties = 0  # games with more than one winner
        self.lead_changes = 0  # over all games
        self.lead_changes_at = [0] * (rounds + 1)  # index r: games whose sole leader changed after round r
        self.margin_sum = 0  # winner's score minus the runner-up's, over games with 2+ players

    def add(self, result, lead_changes: Sequence[int] = ()) -> None:
        """Count one finished game (:class:`~inkcrawl.engines.grid.GameResult`);
        ``lead_changes``: the rounds after which the sole leader changed (``balance`` in the module
        docstring)."""
        self.games += 1
        self.rounds_played += result.rounds_played
        winners = result.winners
        for p in winners:
            self.seat_wins[p][len(winners) - 1] += 1
        if len(winners) > 1:
            self.ties += 1
        totals = []
        for p, (pm, score) in enumerate(zip(result.maps, result.scores)):
            total = score.total
            totals.append(total)
            self.score_counts[total] = self.score_counts.get(total, 0) + 1
            self.seat_sums[p] += total
            term_sums = self.term_sums
            for term, points in score.terms.items():
                term_sums[term] += points
            entered = self.entered
            for i, mask in enumerate(pm.seg):
                if mask:
                    entered[i] += 1
            for i, _ in pm.traps:
                self.trapped[i] += 1
            self.tally_counts[pm.tallies] = self.tally_counts.get(pm.tallies, 0) + 1
            self.segments_seen += pm.segments_seen
            self.unplaced += pm.tallies - pm.trap_tallies
            self.trap_tallies += pm.trap_tallies
            self.skips += pm.skips
        if len(totals) > 1:
            totals.sort(reverse=True)
            self.margin_sum += totals[0] - totals[1]
        for r in lead_changes:
            self.lead_changes += 1
            self.lead_changes_at[r] += 1

    def merge(self, other: GridTally) -> GridTally:
        """Add ``other``'s sums (a tally of other games of the same run) to this one; returns self."""
        self.games += other.games
        for value, count in other.score_counts.items():
            self.score_counts[value] = self.score_counts.get(value, 0) + count
        for term, total in other.term_sums.items():
            self.term_sums[term] += total
        for mine, theirs in ((self.entered, other.entered), (self.trapped, other.trapped)):
            for i, n in enumerate(theirs):
                mine[i] += n
        for value, count in other.tally_counts.items():
            self.tally_counts[value] = self.tally_counts.get(value, 0) + count
        self.segments_seen += other.segments_seen
        self.unplaced += other.unplaced
        self.trap_tallies += other.trap_tallies
        self.skips += other.skips
        self.rounds_played += other.rounds_played
        for p, n in enumerate(other.seat_sums):
            self.seat_sums[p] += n
            for k, wins in enumerate(other.seat_wins[p]):
                self.seat_wins[p][k] += wins
        self.ties += other.ties
        self.lead_changes += other.lead_changes
        for r, n in enumerate(other.lead_changes_at):
            self.lead_changes_at[r] += n
        self.margin_sum += other.margin_sum
        return self

    def mean(self) -> float:
        """The mean final score over every player-game counted."""
        samples = sum(self.score_counts.values())
        return sum(value * count for value, count in self.score_counts.items()) / samples if samples else 0.0

    def standard_error(self) -> float:
        """The standard error of :meth:`mean` (population standard deviation / sqrt(samples))."""
        samples = sum(self.score_counts.values())
        if not samples:
            return 0.0
        mean = self.mean()
        variance = sum(count * (value - mean) ** 2 for value, count in self.score_counts.items()) / samples
        return math.sqrt(variance / samples)

    def seat_win_shares(self) -> list[float]:
        """Each seat's share of the games won, a tie of k winners counting 1/k (exact sums)."""
        games = self.games or 1
        return [float(sum(Fraction(wins, k + 1) for k, wins in enumerate(row)) / games) for row in self.seat_wins]

    def statistics(self, rules, seed: int, names: Sequence[str], leads: bool = False) -> dict:
        """The JSON document of the module docstring for the run these sums are of (``rules``: the
        dungeon's :class:`~inkcrawl.engines.grid.GridRules`; ``leads``: lead changes were counted)."""
        games = self.games
        players = len(names)
        ordered = sorted(self.score_counts.items())
        samples = sum(count for _, count in ordered)
        mean = sum(value * count for value, count in ordered) / samples
        rooms = []
        for i in range(rules.size):
            room: dict[str, object] = {
                "label": rules.labels[i],
                "cell": list(rules.cells[i]),
                "feature": rules.feature_kind[i],
            }
            if rules.feature_letter[i] is not None:
                room["letter"] = rules.feature_letter[i]
            room["entered"] = _r(self.entered[i] / samples)
            room["trapped"] = _r(self.trapped[i] / samples)
            rooms.append(room)
        tally_counts = self.tally_counts
        tallies_total = sum(k * v for k, v in tally_counts.items())
        wins = self.seat_win_shares()
        stdev = math.sqrt(sum(count * (value - mean) ** 2 for value, count in ordered) / samples)
        percentiles = {str(p): _r(percentile_of_counts(ordered, p)) for p in PERCENTILES}
        return {
            "dungeon": {"id": rules.id, "title": rules.title},
            "games": games,
            "players": players,
            "seed": seed,
            "policies": list(names),
            "switches": dict(rules.switches),
            "score": {
                "mean": _r(mean),
                "stdev": _r(stdev),
                "min": ordered[0][0],
                "max": ordered[-1][0],
                "percentiles": percentiles,
            },
            "terms": {term: _r(total / samples) for term, total in self.term_sums.items()},
            "seats": [
                {"seat": p + 1, "policy": names[p], "mean": _r(self.seat_sums[p] / games), "wins": _r(wins[p])}
                for p in range(players)
            ],
            "tallies": {
                "mean": _r(tallies_total / samples),
                "max": max(tally_counts),
                "share_with_tally": _r(1 - tally_counts.get(0, 0) / samples),
                "unplaceable_segments": _r(self.unplaced / self.segments_seen if self.segments_seen else 0),
                "from_traps": _r(self.trap_tallies / samples),
                "distribution": {str(k): tally_counts[k] for k in sorted(tally_counts)},
                "skips": _r(self.skips / samples),
            },
            "rounds_played": _r(self.rounds_played / games),
            "rooms": rooms,
            "balance": self.balance(wins, float(percentiles["75"]) - float(percentiles["25"]), stdev, leads),
        }

    def balance(self, wins: Sequence[float], iqr: float, stdev: float, leads: bool) -> dict:
        """The balance metrics of the module docstring (``balance``) from these sums
        (``lead_changes`` only when ``leads``: they were counted)."""
        games = self.games or 1
        players = len(wins)
        if players > 1:
            entropy = -sum(w * math.log(w) for w in wins if w > 0)
            uniformity = entropy / math.log(players)
            seat_gap = max(wins) - min(wins)
        else:
            uniformity, seat_gap = 1.0, 0.0
        out: dict[str, object] = {
            "seat_win_gap": _r(seat_gap),
            "outcome_uniformity": _r(uniformity),
            "score_spread": {"stdev": _r(stdev), "iqr": _r(iqr)},
            "ties": _r(self.ties / games),
            "winning_margin": _r(self.margin_sum / games) if players > 1 else 0,
        }
        if leads:
            out["lead_changes"] = {
                "mean": _r(self.lead_changes / games),
                "by_round": {str(r): _r(n / games) for r, n in enumerate(self.lead_changes_at) if r >= 1},
            }
        return out


class LeadTracker:
    """Finds the lead changes of one game from the players' scores after each round
    (``balance`` in the module docstring): the *sole leader* is the one player with the highest
    score (none on a tie); a lead change is a round after which there is a sole leader other
    than the last sole leader before it. :meth:`reset` before each game."""

    def __init__(self) -> None:
        self.changes: list[int] = []  # the rounds (1-based) after which the lead changed
        self.leader = -1  # the last sole leader (-1: none yet)

    def reset(self) -> None:
        self.changes.clear()
        self.leader = -1

    def after_round(self, round_number: int, totals: Sequence[int]) -> None:
        """Record the scores ``totals`` (one per seat) after round ``round_number``."""
        best = max(totals)
        if totals.count(best) == 1:
            leader = totals.index(best)
            if self.leader >= 0 and leader != self.leader:
                self.changes.append(round_number)
            self.leader = leader


def play_chunk(entry: dict, names: Sequence[str], seeds: Sequence[int], leads: bool = True) -> GridTally:
    """Play the games of ``seeds`` (game ``k`` seeded with ``seeds[k]``) of the grid dungeon
    ``entry`` (game data) with one policy name per seat and return their :class:`GridTally`.
    ``leads``: also count lead changes (:class:`LeadTracker`; every map is scored after every
    round, RULES.md 1, Scoring; players > 1 only). A module-level function of picklable
    arguments, so a worker process or a Dask worker runs it. Raises
    :class:`~inkcrawl.engines.grid.GameDataError` and ``KeyError`` (unknown policy)."""
    from inkcrawl.engines.grid import play_game
    from inkcrawl.engines.grid.score import score_total

    rules, seats = _compiled(entry, names)
    tally = GridTally(rules.size, len(names), rules.terms, rules.rounds)
    if not (leads and len(names) > 1):
        for game_seed in seeds:
            tally.add(play_game(rules, seats, game_seed))
        return tally
    tracker = LeadTracker()

    def on_round(round_number: int, maps) -> None:
        tracker.after_round(round_number, [score_total(rules, pm, [o for o in maps if o is not pm]) for pm in maps])

    for game_seed in seeds:
        tracker.reset()
        result = play_game(rules, seats, game_seed, on_round=on_round)
        tally.add(result, tracker.changes)
    return tally


#: The dungeon compiled last in this process (a worker plays many chunks of one run).
_COMPILED: list = []


def _compiled(entry: dict, names: Sequence[str]):
    from inkcrawl.engines.grid import GridRules
    from inkcrawl.engines.grid_policies import make_policy

    key = (json.dumps(entry, sort_keys=True), tuple(names))
    if _COMPILED and _COMPILED[0] == key:
        return _COMPILED[1], _COMPILED[2]
    rules = GridRules(entry)
    built = {name: make_policy(name, rules) for name in dict.fromkeys(names)}
    seats = [built[name] for name in names]
    _COMPILED[:] = [key, rules, seats]
    return rules, seats


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
