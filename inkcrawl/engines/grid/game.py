"""Playing a grid game: each player's map, the deck, one player's turn and a whole game
(RULES.md 1, Play; the readings of :mod:`inkcrawl.engines.grid`)."""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from inkcrawl.engines.grid.rules import DRAW_TWO, TRAP, GridRules
from inkcrawl.engines.grid.score import Score, score_map


class PlayerMap:
    """One player's copy of the map: what is drawn in each room, tallies and skips.

    ``seg[i]`` is the end mask of the segment in room ``i`` (0: none); ``trap[i]`` whether this
    player's trap is there; ``round_of[i]`` the round number written in the room (0: unused);
    ``link[i]`` the sides of room ``i`` a new segment could link through (entryways plus ends of
    this player's segments facing it); ``frontier`` the sorted free rooms with a link side;
    ``empty`` the sorted rooms where a trap may go. ``traps`` lists ``(room, round)`` of the
    traps drawn, ``history`` every card drawn ``(round, card, room, mask)`` in order: a trap has
    mask 0; ``room`` is ``None`` for a tally (mask 0) or a voluntary skip (mask -1).
    During play the engine also sets ``round`` (the current round) and ``opponent_traps``
    (per room, how many traps opponents drew there in earlier rounds: public information).
    """

    __slots__ = (
        "rules",
        "seg",
        "trap",
        "round_of",
        "link",
        "frontier",
        "empty",
        "is_empty",
        "tallies",
        "trap_tallies",
        "skips",
        "traps",
        "history",
        "segments_seen",
        "round",
        "opponent_traps",
    )

    def __init__(self, rules: GridRules):
        n = rules.size
        self.rules = rules
        self.seg = [0] * n
        self.trap = [False] * n
        self.round_of = [0] * n
        self.link = list(rules.entry_mask)
        self.frontier = sorted(i for i in range(n) if self.link[i])
        self.empty = list(rules.featureless)
        self.is_empty = [rules.feature_kind[i] is None for i in range(n)]
        self.tallies = 0  # every tally mark (unplaceable segments and, with no_trap_room: tally, traps)
        self.trap_tallies = 0  # the part of ``tallies`` from traps with no empty room
        self.skips = 0
        self.traps: list[tuple[int, int]] = []
        self.history: list[tuple[int, str, int | None, int]] = []
        self.segments_seen = 0
        self.round = 0
        self.opponent_traps = [0] * n

    # legal moves ---------------------------------------------------------------------------
    def segment_options(self, shape: str) -> list[tuple[int, int]]:
        """Every legal placement ``(room, mask)`` of a segment of ``shape``, rooms in order."""
        table = self.rules.table[shape]
        link = self.link
        out: list[tuple[int, int]] = []
        for i in self.frontier:
            out += table[i][link[i]]
        return out

    def trap_options(self) -> list[int]:
        """Every room where this player may draw a trap, in order."""
        return list(self.empty)

    def is_legal_segment(self, shape: str, room: int, mask: int) -> bool:
        """Whether drawing ``shape`` as ``mask`` in ``room`` is legal now."""
        if not 0 <= room < self.rules.size or self.seg[room] or self.trap[room]:
            return False
        return (room, mask) in self.rules.table[shape][room][self.link[room]]

    # drawing -----------------------------------------------------------------------------
    def place_segment(self, room: int, mask: int, round_number: int, card: str = "segment") -> None:
        """Draw a segment (no legality check: see :meth:`is_legal_segment`)."""
        self.seg[room] = mask
        self.round_of[room] = round_number
        if self.link[room]:
            self.frontier.remove(room)
        if self.is_empty[room]:
            self.is_empty[room] = False
            self.empty.remove(room)
        seg, trap, link, frontier = self.seg, self.trap, self.link, self.frontier
        for j, bit in self.rules.reach[room][mask]:
            if not link[j] and not seg[j] and not trap[j]:
                insort(frontier, j)
            link[j] |= bit
        self.history.append((round_number, card, room, mask))

    def place_trap(self, room: int, round_number: int) -> None:
        """Draw a trap (no legality check: the room must be in :meth:`trap_options`)."""
        self.trap[room] = True
        self.round_of[room] = round_number
        self.is_empty[room] = False
        self.empty.remove(room)
        if self.link[room]:
            self.frontier.remove(room)
        self.traps.append((room, round_number))
        self.history.append((round_number, TRAP, room, 0))

    def entered(self) -> list[int]:
        """The rooms holding one of this player's segments."""
        return [i for i, mask in enumerate(self.seg) if mask]

    def networks(self) -> list[int]:
        """Per room, the id of the network its segment belongs to (-1: no segment). Segments
        are in one network when joined end to end across passages."""
        rules = self.rules
        seg = self.seg
        net = [-1] * rules.size
        count = 0
        for start in range(rules.size):
            if not seg[start] or net[start] >= 0:
                continue
            net[start] = count
            stack = [start]
            while stack:
                i = stack.pop()
                for j, bit in rules.reach[i][seg[i]]:
                    if seg[j] & bit and net[j] < 0:
                        net[j] = count
                        stack.append(j)
            count += 1
        return net


class Deck:
    """The draw pile and discard pile of one game, shuffled by ``rng``."""

    __slots__ = ("cards", "discards", "rng", "reshuffle", "exhausted", "reshuffles")

    def __init__(self, cards: list[str], rng: random.Random, reshuffle: bool):
        self.cards = list(cards)
        rng.shuffle(self.cards)  # the top of the pile is the end of the list
        self.discards: list[str] = []
        self.rng = rng
        self.reshuffle = reshuffle
        self.exhausted = False
        self.reshuffles = 0

    def draw(self) -> str | None:
        """The top card, reshuffling the discards if allowed; ``None`` when none is left
        (``exhausted`` then tells that the deck ran out)."""
        if not self.cards:
            # nothing left to reshuffle, or only Draw 2 cards, which would chain for ever
            if not self.reshuffle or all(card == DRAW_TWO for card in self.discards):
                self.exhausted = True
                return None
            self.cards = self.discards
            self.discards = []
            self.rng.shuffle(self.cards)
            self.reshuffles += 1
        return self.cards.pop()

    def reveal(self, count: int) -> list[str]:
        """Reveal ``count`` cards; each Draw 2 is discarded and adds two more (chaining)."""
        revealed: list[str] = []
        need = count
        while need > 0:
            card = self.draw()
            if card is None:
                break
            need -= 1
            if card == DRAW_TWO:
                self.discards.append(card)
                need += 2
            else:
                revealed.append(card)
        return revealed


class PolicyError(RuntimeError):
    """A policy chose a move the rules do not allow."""


@dataclass
class GameResult:
    """A finished game: the ``seed``, the rounds played, the revealed cards of each round, each
    player's map and score, and the winners (indices; a tie is shared)."""

    seed: int
    rounds_played: int
    reveals: list[list[str]]
    maps: list[PlayerMap]
    scores: list[Score]
    winners: list[int] = field(default_factory=list)


def play_turn(pm: PlayerMap, cards: list[str], policy, rng: random.Random) -> None:
    """One player draws this round's revealed cards in the order the policy chooses."""
    rules = pm.rules
    round_number = pm.round
    order = policy.order(pm, list(cards), rng)
    if sorted(order) != sorted(cards):
        raise PolicyError(f"policy {policy.name!r} ordered {order} for the cards {cards}")
    for card in order:
        if card == TRAP:
            trap_rooms = pm.empty
            if not trap_rooms:
                if rules.no_trap_room_tally:
                    pm.tallies += 1
                    pm.trap_tallies += 1
                pm.history.append((round_number, TRAP, None, 0))
                continue
            room = policy.choose(pm, TRAP, list(trap_rooms), rng)
            if room is None or not (0 <= room < rules.size) or not pm.is_empty[room]:
                raise PolicyError(f"policy {policy.name!r} chose {room!r} for a trap")
            pm.place_trap(room, round_number)
            continue
        pm.segments_seen += 1
        options = pm.segment_options(card)
        if not options:
            pm.tallies += 1
            pm.history.append((round_number, card, None, 0))
            continue
        choice = policy.choose(pm, card, options, rng)
        if choice is None:
            if not rules.voluntary_skip:
                raise PolicyError(f"policy {policy.name!r} skipped a placeable {card} (segment_skip is forbidden)")
            pm.skips += 1
            pm.history.append((round_number, card, None, -1))
            continue
        room, mask = choice
        if not pm.is_legal_segment(card, room, mask):
            raise PolicyError(f"policy {policy.name!r} chose an illegal placement {choice!r} for {card}")
        pm.place_segment(room, mask, round_number, card)


#: Most players of one game: the most a ruleset may allow (``players.max`` of
#: ``schemas/ruleset.schema.json``); the entry's ``players`` narrows it.
MAX_PLAYERS = 8


def play_game(
    rules: GridRules,
    policies: Sequence,
    seed: int,
    on_round: Callable[[int, list[PlayerMap]], object] | None = None,
) -> GameResult:
    """Play one game with one policy per player (1 to :data:`MAX_PLAYERS` players, within the
    entry's ``players``).

    The deck is shuffled by ``random.Random(seed)``; player ``p``'s decisions use
    ``random.Random(f"{seed}/{p}")``, so a seed fixes the whole game. ``on_round(round, maps)``
    is called after every player has played each round (the maps must not be changed).
    """
    players = len(policies)
    if not 1 <= players <= MAX_PLAYERS or not rules.min_players <= players <= rules.max_players:
        raise ValueError(
            f"{players} players: this dungeon is for {rules.min_players}-{min(rules.max_players, MAX_PLAYERS)}"
        )
    deck = Deck(rules.deck_list(players), random.Random(seed), rules.reshuffle)
    rngs = [random.Random(f"{seed}/{p}") for p in range(players)]
    maps = [PlayerMap(rules) for _ in range(players)]
    reveals: list[list[str]] = []
    rounds_played = 0
    for round_number in range(1, rules.rounds + 1):
        cards = deck.reveal(rules.reveal)
        reveals.append(cards)
        rounds_played = round_number
        if players > 1 and round_number > 1:
            for p, pm in enumerate(maps):
                counts = [0] * rules.size
                for q, other in enumerate(maps):
                    if q != p:
                        for room, _ in other.traps:
                            counts[room] += 1
                pm.opponent_traps = counts
        for p, pm in enumerate(maps):
            pm.round = round_number
            play_turn(pm, cards, policies[p], rngs[p])
        if on_round is not None:
            on_round(round_number, maps)
        deck.discards.extend(cards)
        if deck.exhausted and not rules.reshuffle:
            break
    scores = [score_map(rules, pm, [o for o in maps if o is not pm]) for pm in maps]
    best = max(s.total for s in scores)
    winners = [p for p, s in enumerate(scores) if s.total == best]
    return GameResult(seed, rounds_played, reveals, maps, scores, winners)
