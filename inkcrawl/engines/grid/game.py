"""Playing a grid game: each player's map, the deck, one player's turn and a whole game
(RULES.md 1, Play; the readings of :mod:`inkcrawl.engines.grid`)."""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from inkcrawl.engines.grid.rules import DRAW_TWO, TRAP, GridRules
from inkcrawl.engines.grid.score import Score, score_map, score_total


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
        self.frontier = list(rules.start_frontier)
        self.empty = list(rules.featureless)
        self.is_empty = list(rules.start_is_empty)
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
            if not link[j]:
                if not seg[j] and not trap[j]:
                    insort(frontier, j)
                link[j] = bit
            else:
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


def _shuffle(cards: list, rng: random.Random) -> None:
    """``rng.shuffle(cards)``, with the same result, at a fraction of its cost: the Fisher-Yates
    shuffle of :meth:`random.Random.shuffle` with its ``_randbelow`` (``getrandbits`` of the
    bound's bit length, drawn again while out of range) written out; a plain ``random.Random``
    only (a subclass may draw its numbers another way)."""
    if type(rng) is not random.Random:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = _BIT_LENGTH[n] if n < len(_BIT_LENGTH) else n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


_BIT_LENGTH = [n.bit_length() for n in range(257)]


class Deck:
    """The draw pile and discard pile of one game, shuffled by ``rng``."""

    __slots__ = ("cards", "discards", "rng", "reshuffle", "exhausted", "reshuffles")

    def __init__(self, cards: list[str], rng: random.Random, reshuffle: bool):
        self.cards = list(cards)
        _shuffle(self.cards, rng)  # the top of the pile is the end of the list
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
        cards = self.cards
        if 0 < count <= len(cards):
            top = cards[-count:]
            if DRAW_TWO not in top:  # the usual case: the top ``count`` cards, top first
                del cards[-count:]
                top.reverse()
                return top
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


#: Policy classes whose moves the engine does not check again, with the ``order`` and ``choose``
#: they had when trusted (:func:`trust_policy_class`).
_TRUSTED: dict[type, tuple] = {}


def trust_policy_class(cls: type) -> None:
    """Let :func:`play_turn` skip checking the moves of policies of exactly this class (not of its
    subclasses): for the bundled policies, which order the revealed cards by permuting them and
    choose one of the legal options the engine hands them, so a check could never fail. A policy
    whose ``order`` or ``choose`` was replaced since (on the class or on the instance), every other
    policy and every move a person makes are still checked (RULES.md 1, Play)."""
    _TRUSTED[cls] = (cls.order, cls.choose)  # type: ignore[attr-defined]


def _trusted(policy) -> bool:
    methods = _TRUSTED.get(type(policy))
    if methods is None:
        return False
    own = getattr(policy, "__dict__", {})
    cls = type(policy)
    return "order" not in own and "choose" not in own and (cls.order, cls.choose) == methods


def play_turn(pm: PlayerMap, cards: list[str], policy, rng: random.Random) -> None:
    """One player draws this round's revealed cards in the order the policy chooses.

    Raises :class:`PolicyError` when the policy orders cards that were not revealed or chooses
    a move the rules do not allow (RULES.md 1, Play); the moves of a trusted bundled policy
    (:func:`trust_policy_class`) are not checked again: it only permutes the revealed cards and
    picks among the options the engine hands it."""
    _play_turn(pm, cards, policy, rng, not _trusted(policy))


def _play_turn(pm: PlayerMap, cards: list[str], policy, rng: random.Random, checked: bool) -> None:
    """:func:`play_turn`, told whether to check the policy's moves (``checked``: not a trusted
    policy; :func:`play_game` asks once per game). A trusted policy is handed the engine's own
    list of trap rooms (it only picks one); any other policy gets a copy."""
    rules = pm.rules
    round_number = pm.round
    history = pm.history
    choose = policy.choose
    table, link, frontier = rules.table, pm.link, pm.frontier
    order = policy.order(pm, list(cards), rng)
    if checked and sorted(order) != sorted(cards):
        raise PolicyError(f"policy {policy.name!r} ordered {order} for the cards {cards}")
    seen = 0
    for card in order:
        if card == TRAP:
            trap_rooms = pm.empty
            if not trap_rooms:
                if rules.no_trap_room_tally:
                    pm.tallies += 1
                    pm.trap_tallies += 1
                history.append((round_number, TRAP, None, 0))
                continue
            room = choose(pm, TRAP, list(trap_rooms) if checked else trap_rooms, rng)
            if checked and (room is None or not (0 <= room < rules.size) or not pm.is_empty[room]):
                raise PolicyError(f"policy {policy.name!r} chose {room!r} for a trap")
            pm.place_trap(room, round_number)
            continue
        seen += 1
        shape_table = table[card]  # PlayerMap.segment_options, inlined
        options: list[tuple[int, int]] = []
        for i in frontier:
            options += shape_table[i][link[i]]
        if not options:
            pm.tallies += 1
            history.append((round_number, card, None, 0))
            continue
        choice = choose(pm, card, options, rng)
        if choice is None:
            if checked and not rules.voluntary_skip:
                raise PolicyError(f"policy {policy.name!r} skipped a placeable {card} (segment_skip is forbidden)")
            pm.skips += 1
            history.append((round_number, card, None, -1))
            continue
        room, mask = choice
        if checked and not pm.is_legal_segment(card, room, mask):
            raise PolicyError(f"policy {policy.name!r} chose an illegal placement {choice!r} for {card}")
        pm.place_segment(room, mask, round_number, card)
    pm.segments_seen += seen


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
    rounds_played, reveals, maps = _play(rules, policies, seed, on_round)
    scores = [score_map(rules, pm, [o for o in maps if o is not pm]) for pm in maps]
    best = max(s.total for s in scores)
    winners = [p for p, s in enumerate(scores) if s.total == best]
    return GameResult(seed, rounds_played, reveals, maps, scores, winners)


def play_totals(rules: GridRules, policies: Sequence, seed: int) -> list[int]:
    """The final score (VP) of each player of the game :func:`play_game` plays for these
    arguments, ``[s.total for s in play_game(...).scores]``, without the term-by-term
    breakdown (:func:`~inkcrawl.engines.grid.score.score_total`; RULES.md 1, Scoring): for
    measuring a dungeon's mean score over many games."""
    maps = _play(rules, policies, seed, None)[2]
    return [score_total(rules, pm, [o for o in maps if o is not pm]) for pm in maps]


def _play(
    rules: GridRules,
    policies: Sequence,
    seed: int,
    on_round: Callable[[int, list[PlayerMap]], object] | None,
) -> tuple[int, list[list[str]], list[PlayerMap]]:
    """The play of :func:`play_game` before scoring: the rounds played, each round's revealed
    cards and each player's finished map."""
    players = len(policies)
    if not 1 <= players <= MAX_PLAYERS or not rules.min_players <= players <= rules.max_players:
        raise ValueError(
            f"{players} players: this dungeon is for {rules.min_players}-{min(rules.max_players, MAX_PLAYERS)}"
        )
    deck = Deck(rules.deck_list(players), random.Random(seed), rules.reshuffle)
    rngs = [random.Random(f"{seed}/{p}") for p in range(players)]
    maps = [PlayerMap(rules) for _ in range(players)]
    seats = [(pm, policy, rng, not _trusted(policy)) for pm, policy, rng in zip(maps, policies, rngs)]
    reveals: list[list[str]] = []
    rounds_played = 0
    traps_counted = 0  # the traps drawn when ``opponent_traps`` was last computed
    for round_number in range(1, rules.rounds + 1):
        cards = deck.reveal(rules.reveal)
        reveals.append(cards)
        rounds_played = round_number
        if players > 1 and round_number > 1:
            traps_drawn = sum(len(pm.traps) for pm in maps)
            if traps_drawn != traps_counted:  # else every map's counts are still right
                traps_counted = traps_drawn
                # every trap drawn so far, then each player's copy without their own
                drawn = [0] * rules.size
                for other in maps:
                    for room, _ in other.traps:
                        drawn[room] += 1
                for pm in maps:
                    counts = drawn.copy()
                    for room, _ in pm.traps:
                        counts[room] -= 1
                    pm.opponent_traps = counts
        for pm, policy, rng, checked in seats:
            pm.round = round_number
            _play_turn(pm, cards, policy, rng, checked)
        if on_round is not None:
            on_round(round_number, maps)
        deck.discards.extend(cards)
        if deck.exhausted and not rules.reshuffle:
            break
    return rounds_played, reveals, maps
