"""The Qt-free state of one grid-family playtest game (RULES.md 1): :class:`GridSession`.

A session is one game, played by the grid engine
(:mod:`inkcrawl.engines.grid`) exactly as :func:`inkcrawl.engines.grid.play_game` plays it:
the deck is the engine's :class:`~inkcrawl.engines.grid.Deck` shuffled by
``random.Random(seed)``, each round reveals the engine's cards (Draw 2 chaining included), and
every card the designer plays goes through :func:`~inkcrawl.engines.grid.play_turn` with the
designer's choice, so legality, tallies, traps and round numbers are the engine's. With more
than one player the other seats are played either

* by a bundled policy (``greedy``, the one ``inkcrawl simulate`` uses), after the designer's
  turn each round, with their own ``random.Random(f"{seed}/{p}")``; or
* by hand on this screen (**hot-seat**): each round seat 1 draws every revealed card on its own
  map, then seat 2 draws the same cards on its map, and so on; the next round is revealed when
  every seat has played. The engine plays all seats "at once" (RULES.md 1, "Play"): a seat's
  moves never depend on another's map, so playing them one after the other is the same game.

Traps of every seat can hit the others (RULES.md 1, "Gaps and defaults": judged by
:func:`~inkcrawl.engines.grid.score_map`). The score is ``score_map`` term by term.

The canvas tool (:mod:`editor.playtest.grid_tool`) and the Playtest dock's page
(:mod:`editor.playtest.grid`) show and play it; this module imports no Qt, so the game can be
tested without a display.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from inkcrawl.engines.grid import (
    TRAP,
    Deck,
    GridRules,
    PlayerMap,
    PolicyError,
    Score,
    play_turn,
    score_map,
    sides_of,
)
from inkcrawl.engines.grid_policies import make_policy

#: The policy playing the other seats.
OPPONENT_POLICY = "greedy"
#: How the seats after the first are played: by :data:`OPPONENT_POLICY`, or by hand (hot-seat).
POLICY, HOTSEAT = "policy", "hotseat"
#: The "Other seats" choices as the dock shows them.
OTHER_SEATS = {POLICY: f"played by the {OPPONENT_POLICY} policy", HOTSEAT: "played here (hot-seat)"}
#: Names of the cards as the dock shows them.
CARD_NAMES = {
    "straight": "Straight",
    "corner": "Corner",
    "t_junction": "T junction",
    "cross": "Cross",
    "dead_end": "Dead end",
    TRAP: "Trap",
    "draw_two": "Draw 2",
}


def card_name(card: str) -> str:
    """The name of a card kind for people: ``t_junction`` -> ``T junction``."""
    return CARD_NAMES.get(card, card.replace("_", " ").capitalize())


class _OneMove:
    """A policy for one card: the designer's choice, handed to the engine's ``play_turn``."""

    name = "designer"

    def __init__(self, card: str, choice):
        self.card, self.choice = card, choice

    def order(self, state, cards, rng):
        return list(cards)

    def choose(self, state, card, options, rng):
        return self.choice


@dataclass
class Move:
    """One card played by hand: its ``round``, ``card``, ``choice`` (``(room, mask)`` for a
    segment, a room for a trap, ``None`` otherwise), ``outcome``: ``drawn``, ``tally`` (no
    legal place), ``skip`` (a voluntary skip) or ``no_room`` (a trap with no empty room), and
    the ``seat`` (0-based) that played it."""

    round: int
    card: str
    choice: object
    outcome: str
    seat: int = 0


@dataclass
class Card:
    """A revealed card of the current round and what became of it: ``done`` is ``""`` while
    it waits, else ``"drawn in C4"``, ``"tally mark"``..."""

    card: str
    done: str = ""


class GridSession:
    """One grid-family game on compiled game data (``rules``, a :class:`GridRules`), with
    ``seed``, ``players`` (1-4) and ``others``: how the seats after the first are played,
    :data:`POLICY` (by the bundled ``greedy`` policy, after the designer each round) or
    :data:`HOTSEAT` (every seat by hand on this screen, one after the other each round, on the
    same revealed cards). Raises ``ValueError`` for a player count the dungeon does not allow
    or an unknown ``others``.

    ``seat`` is the seat on turn (0-based; always 0 with the policy), ``me`` its map; ``maps``
    every seat's :class:`PlayerMap`; ``hands[s]`` the revealed cards of this round as seat
    ``s`` drew them; ``moves`` every card played by hand (:class:`Move`, with its seat)."""

    def __init__(self, rules: GridRules, seed: int = 1, players: int = 1, others: str = "policy"):
        low, high = rules.min_players, min(rules.max_players, 4)
        if not low <= players <= high:
            raise ValueError(f"{players} players: this dungeon is for {low}-{high}")
        if others not in OTHER_SEATS:
            raise ValueError(f"other seats {others!r}: use one of {', '.join(OTHER_SEATS)}")
        self.rules = rules
        self.seed = int(seed)
        self.players = int(players)
        self.others = others
        #: every seat is played by hand on this screen
        self.hotseat = others == HOTSEAT and self.players > 1
        #: how many seats are played by hand
        self.hands_played = self.players if self.hotseat else 1
        self.deck = Deck(rules.deck_list(players), random.Random(self.seed), rules.reshuffle)
        self.rngs = [random.Random(f"{self.seed}/{p}") for p in range(players)]
        self.maps = [PlayerMap(rules) for _ in range(players)]
        self.opponents = [] if self.hotseat else [make_policy(OPPONENT_POLICY, rules) for _ in range(players - 1)]
        self.reveals: list[list[str]] = []
        self.hands: list[list[Card]] = []
        self.moves: list[Move] = []
        self.seat = 0
        self.round = 0
        self.finished = False
        self._start_round()

    @property
    def me(self) -> PlayerMap:
        """The map of the seat on turn (the designer's with the policy)."""
        return self.maps[self.seat]

    @property
    def cards(self) -> list[Card]:
        """This round's revealed cards as the seat on turn drew them (empty once the game is over)."""
        return self.hands[self.seat] if self.seat < len(self.hands) else []

    def seat_name(self, seat: int | None = None) -> str:
        """``Seat 2`` (hot-seat), ``You`` / ``Seat 2 (greedy)`` (policy)."""
        seat = self.seat if seat is None else seat
        if self.hotseat or self.players == 1:
            return f"Seat {seat + 1}" if self.players > 1 else "You"
        return "You (seat 1)" if seat == 0 else f"Seat {seat + 1} ({OPPONENT_POLICY})"

    # .. rounds ..
    def _start_round(self) -> None:
        rules = self.rules
        self.seat = 0
        if self.round >= rules.rounds:
            self._finish()
            return
        self.round += 1
        revealed = self.deck.reveal(rules.reveal)
        self.reveals.append(revealed)
        if self.players > 1 and self.round > 1:  # as play_game: traps drawn in earlier rounds
            for p, pm in enumerate(self.maps):
                counts = [0] * rules.size
                for q, other in enumerate(self.maps):
                    if q != p:
                        for room, _ in other.traps:
                            counts[room] += 1
                pm.opponent_traps = counts
        for pm in self.maps:
            pm.round = self.round
        self.hands = [[Card(card) for card in revealed] for _ in range(self.hands_played)]

    def _finish(self) -> None:
        self.finished = True
        self.hands = []
        self.seat = 0

    def pending(self) -> list[int]:
        """Indices of this round's cards the seat on turn has still to draw."""
        return [i for i, card in enumerate(self.cards) if not card.done]

    def seat_done(self, seat: int | None = None) -> bool:
        """Whether a seat (default: the one on turn) has drawn every card of this round."""
        seat = self.seat if seat is None else seat
        return seat < len(self.hands) and all(card.done for card in self.hands[seat])

    def round_done(self) -> bool:
        """Whether every seat played by hand has drawn (or tallied) every card of this round."""
        return bool(self.hands) and all(self.seat_done(s) for s in range(len(self.hands)))

    def last_seat(self) -> bool:
        """Whether the seat on turn is the last to play this round by hand."""
        return self.seat >= self.hands_played - 1

    def next_seat(self) -> str | None:
        """Hot-seat: pass the turn to the next seat once the seat on turn has drawn every card.
        Returns why not, or ``None``."""
        if self.finished:
            return "The game is over"
        if not self.hotseat:
            return "The other seats are played by the policy"
        if not self.seat_done():
            return f"{self.seat_name()} has cards left to draw (or a tally mark to take)"
        if self.last_seat():
            return "Every seat has played this round: press Next Round"
        self.seat += 1
        return None

    def next_round(self) -> str | None:
        """End the round (with the policy, the other seats draw the same cards now) and reveal
        the next one. Returns why not, or ``None``."""
        if self.finished:
            return "The game is over"
        if not self.round_done():
            waiting = [s for s in range(len(self.hands)) if not self.seat_done(s)]
            if self.hotseat and waiting != [self.seat]:
                names = ", ".join(self.seat_name(s) for s in waiting)
                return f"Every seat draws the revealed cards before the next round: waiting for {names}"
            return "Draw every revealed card first (or take a tally mark for a card with no legal place)"
        revealed = self.reveals[-1]
        for p, policy in enumerate(self.opponents, start=1):
            play_turn(self.maps[p], revealed, policy, self.rngs[p])
        self.deck.discards.extend(revealed)
        if self.deck.exhausted and not self.rules.reshuffle:
            self._finish()
            return None
        self._start_round()
        return None

    def advance(self) -> str | None:
        """The dock's Next button: the next seat (hot-seat) or the next round. Returns why not."""
        if self.hotseat and not self.finished and not self.last_seat():
            return self.next_seat()
        return self.next_round()

    def show_seat(self, seat: int) -> str | None:
        """Once the game is over, show another seat's map and score. Returns why not."""
        if not self.finished:
            return "Seats take turns while the game runs"
        if not 0 <= seat < self.players:
            return f"There is no seat {seat + 1}"
        self.seat = seat
        return None

    # .. the moves of the seat on turn ..
    def options(self, card: str) -> list[tuple[int, int]]:
        """The engine's legal placements ``(room, mask)`` of a segment card, or trap rooms
        ``(room, 0)`` for a trap."""
        if card == TRAP:
            return [(room, 0) for room in self.me.trap_options()]
        return self.me.segment_options(card)

    def masks_in(self, card: str, room: int) -> list[int]:
        """The legal rotations (end masks) of a segment card in ``room`` (empty: none)."""
        return [mask for i, mask in self.options(card) if i == room]

    def why_not(self, card: str, room: int) -> str:
        """Why ``card`` cannot be drawn in ``room`` (RULES.md 1, "Play")."""
        rules, me = self.rules, self.me
        label = rules.labels[room]
        if card == TRAP:
            if me.seg[room] or me.trap[room]:
                return f"Room {label} is already used: a trap goes in an empty room"
            return f"Room {label} holds a {rules.feature_kind[room]}: a trap goes in an empty room"
        name = card_name(card).lower()
        if me.seg[room]:
            return f"Room {label} already holds one of your segments (one per room)"
        if me.trap[room]:
            return f"Room {label} holds your trap: no segment can go there"
        fitting = [m for m in rules.shapes[card] if not m & ~rules.open[room]]
        if not fitting:
            opened = ", ".join(sides_of(rules.open[room])) or "none"
            return (
                f"A {name} does not fit room {label}: every end must meet a passage or an entryway "
                f"(open sides: {opened})"
            )
        if not me.entered():
            return f"The first segment must link to an entryway: room {label} cannot reach one with a {name}"
        return (
            f"A {name} in room {label} would not link: one end must meet an entryway or an end of one of your segments"
        )

    def play(self, index: int, choice) -> str | None:
        """Draw card ``index`` of this round: ``choice`` is ``(room, mask)`` for a segment, a
        room for a trap, ``None`` for a tally mark (a segment with no legal place, a trap with
        no empty room) or a voluntary skip. Returns why it is refused, or ``None``."""
        if self.finished:
            return "The game is over"
        if not 0 <= index < len(self.cards) or self.cards[index].done:
            return "That card is already drawn"
        card = self.cards[index].card
        me = self.me
        if card == TRAP:
            if choice is None:
                if me.trap_options():
                    return "There is an empty room: the trap must be drawn there"
            elif choice not in me.trap_options():
                return self.why_not(card, choice)
        else:
            if choice is None:
                if me.segment_options(card) and not self.rules.voluntary_skip:
                    return f"This {card_name(card).lower()} has a legal place: it must be drawn"
            elif not me.is_legal_segment(card, *choice):
                return self.why_not(card, choice[0])
        tallies, skips = me.tallies, me.skips
        try:
            play_turn(me, [card], _OneMove(card, choice), self.rngs[self.seat])
        except PolicyError as exc:  # the checks above make this unreachable; never a traceback
            return str(exc)
        if me.skips > skips:
            outcome, done = "skip", "skipped"
        elif choice is None and card != TRAP:
            outcome, done = "tally", "tally mark"
        elif choice is None:
            outcome, done = "no_room", "no empty room: tally mark" if me.tallies > tallies else "no empty room"
        else:
            room = choice if card == TRAP else choice[0]
            outcome, done = "drawn", f"drawn in {self.rules.labels[room]}"
        self.moves.append(Move(self.round, card, choice, outcome, self.seat))
        self.cards[index].done = done
        return None

    # .. score ..
    def sheet(self, seat: int | None = None) -> dict:
        """The seat's map (default: the seat on turn) written down as a grid play file, with the
        other seats' traps (:func:`inkcrawl.engines.grid.sheet.sheet_of_map`)."""
        from inkcrawl.engines.grid.sheet import sheet_of_map

        seat = self.seat if seat is None else seat
        others = [m for k, m in enumerate(self.maps) if k != seat]
        return sheet_of_map(self.rules, self.maps[seat], others, self.seat_name(seat))

    def score(self, seat: int | None = None) -> Score:
        """A seat's score now (default: the seat on turn; the engine's :func:`score_map`,
        against every other seat's traps)."""
        pm = self.maps[self.seat if seat is None else seat]
        return score_map(self.rules, pm, [o for o in self.maps if o is not pm])

    def scores(self) -> list[Score]:
        """Every seat's score now, seat by seat."""
        return [self.score(seat) for seat in range(self.players)]

    def opponent_scores(self) -> list[Score]:
        """The scores of the seats after the first."""
        return self.scores()[1:]

    def winners(self) -> list[int]:
        """The seats with the best score now (a tie is shared, RULES.md 1)."""
        scores = self.scores()
        best = max(s.total for s in scores)
        return [seat for seat, s in enumerate(scores) if s.total == best]
