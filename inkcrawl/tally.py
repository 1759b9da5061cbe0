"""Sums over many grid games that add up in any order: the statistics of ``inkcrawl simulate``
(the JSON document of :mod:`inkcrawl.simulate`'s docstring) and of ``inkcrawl sweep``.

:func:`play_chunk` plays the games of some seeds and returns their :class:`GridTally`;
:mod:`inkcrawl.runs` sends chunks to wherever they are played and merges the tallies.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import compress

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
        score_counts, tally_counts, term_sums = self.score_counts, self.tally_counts, self.term_sums
        entered, trapped, rooms = self.entered, self.trapped, range(len(self.entered))
        for p, (pm, score) in enumerate(zip(result.maps, result.scores)):
            total = score.total
            totals.append(total)
            score_counts[total] = score_counts.get(total, 0) + 1
            self.seat_sums[p] += total
            for term, points in score.terms.items():
                term_sums[term] += points
            for i in compress(rooms, pm.seg):  # the rooms holding a segment
                entered[i] += 1
            for i, _ in pm.traps:
                trapped[i] += 1
            tallies = pm.tallies
            tally_counts[tallies] = tally_counts.get(tallies, 0) + 1
            self.segments_seen += pm.segments_seen
            self.unplaced += tallies - pm.trap_tallies
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
        return win_shares(self.seat_wins, self.games)

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
                "distribution": {str(value): count for value, count in ordered},
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
        out = outcome_balance(wins, self.ties, self.margin_sum, self.games, stdev, iqr)
        if leads:
            out["lead_changes"] = {
                "mean": _r(self.lead_changes / games),
                "by_round": {str(r): _r(n / games) for r, n in enumerate(self.lead_changes_at) if r >= 1},
            }
        return out


def win_shares(seat_wins: Sequence[Sequence[int]], games: int) -> list[float]:
    """Each seat's share of ``games`` won, from ``seat_wins[p][k - 1]`` (games seat p won with k
    winners in all); a tie of k shares 1/k each, summed exactly."""
    games = games or 1
    return [float(sum(Fraction(wins, k + 1) for k, wins in enumerate(row)) / games) for row in seat_wins]


def outcome_balance(wins: Sequence[float], ties: int, margin_sum: int, games: int, stdev: float, iqr: float) -> dict:
    """The balance measures both families share (``balance`` in :mod:`inkcrawl.simulate`):
    ``seat_win_gap``, ``outcome_uniformity`` (the win shares' entropy over ``ln(players)``),
    ``score_spread``, ``ties`` and ``winning_margin``, from the seats' win shares, the number of
    tied games, the summed margins and the number of games."""
    games = games or 1
    players = len(wins)
    if players > 1:
        entropy = -sum(w * math.log(w) for w in wins if w > 0)
        uniformity, seat_gap = entropy / math.log(players), max(wins) - min(wins)
    else:
        uniformity, seat_gap = 1.0, 0.0
    return {
        "seat_win_gap": _r(seat_gap),
        "outcome_uniformity": _r(uniformity),
        "score_spread": {"stdev": _r(stdev), "iqr": _r(iqr)},
        "ties": _r(ties / games),
        "winning_margin": _r(margin_sum / games) if players > 1 else 0,
    }


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
