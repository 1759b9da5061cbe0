"""Grid-family playtest: play rounds with a seeded deck on the canvas (RULES.md 1).

:class:`GridSession` is the Qt-free state of one game, played by the grid engine
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

:class:`GridPlaytestTool` is the canvas tool (hover a room to preview the current card, click
to draw it, R / wheel / right-click to turn it) and :class:`GridPanel` the dock's page.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from editor.tools import Tool
from inkcrawl.engines.grid import (
    SIDES,
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
#: The settings key remembering the last "Other seats" choice.
OTHER_SEATS_SETTING = "playtest/grid_other_seats"
#: Names of the cards as the dock shows them.
CARD_NAMES = {"straight": "Straight", "corner": "Corner", "t_junction": "T junction", "cross": "Cross",
              "dead_end": "Dead end", TRAP: "Trap", "draw_two": "Draw 2"}
#: Colours of the designer's segments, traps and the hover preview.
INK = QColor(20, 80, 200, 220)
#: The ink of each seat's segments in hot-seat play (seat 1 keeps :data:`INK`).
SEAT_INKS = (INK, QColor(27, 122, 62, 230), QColor(126, 48, 160, 230), QColor(184, 98, 0, 230))
#: Other seats' traps on the map of the seat on turn.
OTHER_TRAP_INK = QColor(120, 120, 120, 170)
TRAP_INK = QColor("#c62828")
PREVIEW_OK = QColor(46, 125, 50, 170)
PREVIEW_BAD = QColor(198, 40, 40, 150)


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
            return (f"A {name} does not fit room {label}: every end must meet a passage or an entryway "
                    f"(open sides: {opened})")
        if not me.entered():
            return f"The first segment must link to an entryway: room {label} cannot reach one with a {name}"
        return (f"A {name} in room {label} would not link: one end must meet an entryway or an end of "
                "one of your segments")

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


class GridPlaytestTool(Tool):
    """The canvas tool while playtesting a grid dungeon: hover a room to preview the current
    card, click to draw it there, turn it with R, the mouse wheel or a right-click. Never
    edits the dungeon."""

    cursor = Qt.CursorShape.PointingHandCursor

    def __init__(self, ctx, panel: GridPanel):
        super().__init__(ctx)
        self.panel = panel
        self.hover: int | None = None
        self.turn = 0
        self._filter = _WheelFilter(self)

    @property
    def session(self) -> GridSession:
        return self.panel.session

    def activate(self) -> None:
        super().activate()
        if self.ctx.view is not None:
            self.ctx.view.viewport().installEventFilter(self._filter)

    def deactivate(self) -> None:
        if self.ctx.view is not None:
            self.ctx.view.viewport().removeEventFilter(self._filter)
        super().deactivate()

    # geometry
    def room_at(self, pos: QPointF) -> int | None:
        """The room (engine index) under a sheet point, or ``None``."""
        g = self.ctx.dungeon.grid if self.ctx.dungeon is not None else None
        if g is None:
            return None
        col = int((pos.x() - g.origin_mm[0]) // g.cell_mm)
        row = int((pos.y() - g.origin_mm[1]) // g.cell_mm)
        rules = self.session.rules
        if 0 <= col < rules.columns and 0 <= row < rules.rows:
            return row * rules.columns + col
        return None

    def room_rect(self, room: int) -> QRectF:
        g = self.ctx.dungeon.grid
        col, row = self.session.rules.cells[room]
        return QRectF(g.origin_mm[0] + col * g.cell_mm, g.origin_mm[1] + row * g.cell_mm, g.cell_mm, g.cell_mm)

    # what the hovered room would get
    def preview(self) -> tuple[str, int, bool] | None:
        """``(card, mask, legal)`` for the hovered room and the current card, or ``None``."""
        card = self.panel.current_card()
        if card is None or self.hover is None:
            return None
        if card == TRAP:
            return card, 0, (self.hover, 0) in self.session.options(card)
        masks = self.session.masks_in(card, self.hover)
        if masks:
            return card, masks[self.turn % len(masks)], True
        rotations = self.session.rules.shapes[card]
        return card, rotations[self.turn % len(rotations)], False

    def rotate(self, steps: int = 1) -> None:
        """Turn the previewed segment to its next legal rotation."""
        self.turn += steps
        self._update()

    def _update(self) -> None:
        if self.ctx.view is not None:
            self.ctx.view.viewport().update()

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        self.hover = self.room_at(pos)
        if event.button() == Qt.MouseButton.RightButton:
            self.rotate()
            return True
        if event.button() != Qt.MouseButton.LeftButton:
            return True
        self.click_room(self.hover)
        return True

    def click_room(self, room: int | None) -> None:
        """Draw the current card in ``room`` (refused with a message when illegal)."""
        index = self.panel.current_index()
        if index is None:
            self.panel.say("No card to draw: press Next Round" if not self.session.finished else "The game is over")
            return
        if room is None:
            self.panel.say("Click a room of the grid")
            return
        card = self.session.cards[index].card
        if card == TRAP:
            choice = room
        else:
            masks = self.session.masks_in(card, room)
            if not masks:
                self.panel.say(self.session.why_not(card, room))
                self._update()
                return
            choice = (room, masks[self.turn % len(masks)])
        refused = self.session.play(index, choice)
        if refused:
            self.panel.say(refused)
        else:
            self.turn = 0
            self.panel.played()
        self._update()

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        room = self.room_at(pos)
        if room != self.hover:
            self.hover = room
            self._update()
        return True

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        return True

    def mouse_double_click(self, view, event, pos: QPointF) -> bool:
        return True

    def key_press(self, view, event) -> bool:
        if event.key() == Qt.Key.Key_R:
            self.rotate(-1 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
            return True
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):  # Next Seat / Next Round
            button = self.panel.next_button
            if button.isEnabled():
                button.click()
            else:
                self.panel.say("The game is over: New Game deals another" if self.session.finished else
                               f"{button.text()} not yet: draw every revealed card first (or take a Tally Mark)")
            return True
        return False

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self.ctx.dungeon is None or self.ctx.dungeon.family != "grid":
            return
        session, rules = self.session, self.session.rules
        me = session.me
        ink = seat_ink(session.seat) if session.hotseat else INK
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = max(1.0, self.ctx.dungeon.grid.cell_mm / 18)
        for room in range(rules.size):
            if me.seg[room]:
                _draw_segment(painter, self.room_rect(room), me.seg[room], ink, width)
            if me.trap[room]:
                _draw_trap(painter, self.room_rect(room), TRAP_INK, width)
            if me.round_of[room]:
                _draw_round(painter, self.room_rect(room), me.round_of[room], ink)
        # the other seats' traps: each hits this seat if its map has a segment there
        for seat, pm in enumerate(session.maps):
            if seat == session.seat:
                continue
            for room, _ in pm.traps:
                rect = self.room_rect(room)
                _draw_trap(painter, rect.adjusted(6, 6, -6, -6), OTHER_TRAP_INK, width / 2)
                if session.hotseat:
                    _draw_seat_mark(painter, rect, seat)
        preview = self.preview()
        if preview is not None:
            card, mask, legal = preview
            colour = PREVIEW_OK if legal else PREVIEW_BAD
            rect = self.room_rect(self.hover)
            if card == TRAP:
                _draw_trap(painter, rect, colour, width)
            else:
                _draw_segment(painter, rect, mask, colour, width)
            frame = QPen(colour, 0)
            frame.setCosmetic(True)
            painter.setPen(frame)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
        painter.restore()


class _WheelFilter(QObject):
    """Turns the previewed segment with the mouse wheel over the grid (Ctrl+wheel still zooms)."""

    def __init__(self, tool: GridPlaytestTool):
        super().__init__()
        self.tool = tool

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Wheel and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            view = self.tool.ctx.view
            if view is not None and self.tool.room_at(view.mapToScene(event.position().toPoint())) is not None:
                delta = event.angleDelta().y()
                if delta:
                    self.tool.rotate(1 if delta < 0 else -1)
                return True
        return False


def _draw_segment(painter: QPainter, rect: QRectF, mask: int, colour: QColor, width: float) -> None:
    centre = rect.center()
    pen = QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    ends = [side for side in SIDES if mask & (1 << SIDES.index(side))]
    half = rect.width() / 2
    offsets = {"north": (0, -half), "east": (half, 0), "south": (0, half), "west": (-half, 0)}
    for side in ends:
        dx, dy = offsets[side]
        painter.drawLine(centre, QPointF(centre.x() + dx, centre.y() + dy))
    if len(ends) == 1:  # a dead end's closed end: a bar across the centre
        dx, dy = offsets[ends[0]]
        bar = width * 2.5 / max(half, 1e-6)
        painter.drawLine(QPointF(centre.x() - dy * bar, centre.y() - dx * bar),
                         QPointF(centre.x() + dy * bar, centre.y() + dx * bar))


def _draw_trap(painter: QPainter, rect: QRectF, colour: QColor, width: float) -> None:
    inner = rect.adjusted(rect.width() * 0.25, rect.height() * 0.25, -rect.width() * 0.25, -rect.height() * 0.25)
    painter.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.drawLine(inner.topLeft(), inner.bottomRight())
    painter.drawLine(inner.topRight(), inner.bottomLeft())


def seat_ink(seat: int) -> QColor:
    """The ink of a seat's segments (hot-seat), seat 0-based."""
    return SEAT_INKS[seat % len(SEAT_INKS)]


def _draw_seat_mark(painter: QPainter, rect: QRectF, seat: int) -> None:
    """A small seat number by another seat's trap (lower right corner of the room)."""
    painter.save()
    painter.translate(rect.right() - rect.width() * 0.3, rect.bottom() - rect.height() * 0.3)
    painter.scale(0.25, 0.25)
    font = QFont()
    font.setPixelSize(int(rect.height() * 0.16 * 4))
    painter.setFont(font)
    painter.setPen(OTHER_TRAP_INK.darker(130))
    painter.drawText(QRectF(0, 0, rect.width(), rect.height()),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, str(seat + 1))
    painter.restore()


def _draw_round(painter: QPainter, rect: QRectF, number: int, ink: QColor = INK) -> None:
    painter.save()
    painter.translate(rect.left() + rect.width() * 0.06, rect.top() + rect.height() * 0.06)
    painter.scale(0.25, 0.25)
    font = QFont()
    font.setPixelSize(int(rect.height() * 0.18 * 4))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(ink)
    painter.drawText(QRectF(0, 0, rect.width(), rect.height()), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                     str(number))
    painter.restore()


class GridPanel(QWidget):
    """The Playtest dock's page for a grid dungeon: seed, players and who plays the other seats
    (New Game), the round and whose turn it is, the revealed cards (the selected one is the
    card to draw), Tally Mark / Skip and Next Seat / Next Round, the tallies and traps, the live
    score term by term of the seat on turn and every seat's total.

    ``others`` is :data:`POLICY` or :data:`HOTSEAT`; without it the last choice (kept in the
    editor's settings) is used, :data:`POLICY` the first time."""

    def __init__(self, rules: GridRules, controller, parent=None, seed: int = 1, players: int = 1,
                 others: str | None = None):
        super().__init__(parent)
        self.rules = rules
        self.controller = controller
        if others not in OTHER_SEATS:
            others = _remembered_other_seats()
        self.session = GridSession(rules, seed, players, others)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.seed_box = QSpinBox()
        self.seed_box.setObjectName("playtest_seed")
        self.seed_box.setRange(0, 2_000_000_000)
        self.seed_box.setValue(seed)
        self.seed_box.setToolTip("The deck is shuffled by this seed: the same seed deals the same cards")
        form.addRow("Seed:", self.seed_box)
        self.players_box = QSpinBox()
        self.players_box.setObjectName("playtest_players")
        self.players_box.setRange(rules.min_players, max(rules.min_players, min(rules.max_players, 4)))
        self.players_box.setValue(players)
        self.players_box.setToolTip("Players at the table (applies at New Game). Solo play removes the traps.")
        self.players_box.valueChanged.connect(lambda _value: self._update_others_box())
        form.addRow("Players:", self.players_box)
        self.others_box = QComboBox()
        self.others_box.setObjectName("playtest_other_seats")
        for key, text in OTHER_SEATS.items():
            self.others_box.addItem(text, key)
        self.others_box.setCurrentIndex(self.others_box.findData(others))
        self.others_box.setToolTip(
            f"Who plays seats 2 and up: the '{OPPONENT_POLICY}' policy after your turn, or friends around "
            "this screen, each seat in turn on the same revealed cards (hot-seat)")
        self.others_box.activated.connect(lambda _index: self.change_other_seats())
        form.addRow("Other seats:", self.others_box)
        layout.addLayout(form)
        self.new_button = QPushButton("New Game")
        self.new_button.setToolTip("Deal a new game with this seed, player count and other seats; every seat "
                                   "starts again")
        self.new_button.clicked.connect(self.new_game)
        layout.addWidget(self.new_button)
        self.round_label = QLabel()
        self.round_label.setObjectName("playtest_round")
        self.round_label.setWordWrap(True)
        bold = QFont(self.round_label.font())
        bold.setBold(True)
        self.round_label.setFont(bold)
        layout.addWidget(self.round_label)
        self.turn_label = QLabel()
        self.turn_label.setObjectName("playtest_turn")
        self.turn_label.setWordWrap(True)
        big = QFont(bold)
        if big.pointSizeF() > 0:
            big.setPointSizeF(big.pointSizeF() * 1.2)
        self.turn_label.setFont(big)
        layout.addWidget(self.turn_label)
        self.cards = QListWidget()
        self.cards.setObjectName("playtest_cards")
        self.cards.setToolTip("The revealed cards: select the one to draw, then click a room "
                              "(R, the wheel or a right-click turns it)")
        self.cards.setMinimumHeight(90)
        self.cards.currentRowChanged.connect(lambda _row: self._card_changed())
        layout.addWidget(self.cards, 1)
        buttons = QHBoxLayout()
        self.tally_button = QPushButton("Tally Mark")
        self.tally_button.setToolTip("The selected card has no legal place: take a tally mark")
        self.tally_button.clicked.connect(self.tally)
        self.skip_button = QPushButton("Skip")
        self.skip_button.setToolTip("Skip a placeable segment (the ruleset's voluntary skip)")
        self.skip_button.clicked.connect(self.tally)
        self.next_button = QPushButton("Next Round")
        self.next_button.setObjectName("playtest_next")
        self.next_button.clicked.connect(self.next_round)
        buttons.addWidget(self.tally_button)
        buttons.addWidget(self.skip_button)
        buttons.addWidget(self.next_button)
        layout.addLayout(buttons)
        self.message = QLabel()
        self.message.setObjectName("playtest_message")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.tallies = QLabel()
        self.tallies.setObjectName("playtest_tallies")
        self.tallies.setWordWrap(True)
        layout.addWidget(self.tallies)
        self.score_tree = QTreeWidget()
        self.score_tree.setObjectName("playtest_score")
        self.score_tree.setColumnCount(3)
        self.score_tree.setHeaderLabels(["Score", "Count", "VP"])
        self.score_tree.setRootIsDecorated(False)
        self.score_tree.setMinimumHeight(170)
        _fit_columns(self.score_tree, stretch=0)
        layout.addWidget(self.score_tree, 1)
        self.total = QLabel()
        self.total.setObjectName("playtest_total")
        self.total.setFont(bold)
        layout.addWidget(self.total)
        self.seats = QTreeWidget()
        self.seats.setObjectName("playtest_seats")
        self.seats.setColumnCount(len(SEAT_COLUMNS))
        self.seats.setHeaderLabels(list(SEAT_COLUMNS))
        self.seats.setRootIsDecorated(False)
        self.seats.setToolTip("Every seat's tally marks, traps and live score; once the game is over, "
                              "click a seat to see its map and score")
        self.seats.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for column, tip in enumerate(SEAT_COLUMN_TIPS):
            self.seats.headerItem().setToolTip(column, tip)
        _fit_columns(self.seats, stretch=0)
        rows = self.seats.fontMetrics().height() + 6
        self.seats.setMinimumHeight(rows * 5 + 8)  # the header and four seats
        self.seats.itemClicked.connect(self._seat_clicked)
        layout.addWidget(self.seats)
        self._update_others_box()
        self.refresh()

    # .. state ..
    def current_index(self) -> int | None:
        """The index (in this round's cards) of the selected card still to draw, or ``None``."""
        pending = self.session.pending()
        if not pending:
            return None
        row = self.cards.currentRow()
        return row if row in pending else pending[0]

    def current_card(self) -> str | None:
        """The kind of the card to draw now, or ``None``."""
        index = self.current_index()
        return None if index is None else self.session.cards[index].card

    def other_seats(self) -> str:
        """The "Other seats" choice in the box: :data:`POLICY` or :data:`HOTSEAT`."""
        return self.others_box.currentData() or POLICY

    def say(self, text: str) -> None:
        """Show a message (the dock and the status bar)."""
        self.message.setText(text)
        self.controller.status(text)

    # .. actions ..
    def new_game(self) -> None:
        """Deal a new game with the seed, player count and other seats in the boxes (every seat
        starts again)."""
        try:
            self.session = GridSession(self.rules, self.seed_box.value(), self.players_box.value(),
                                       self.other_seats())
        except ValueError as exc:
            self.say(str(exc))
            return
        self.message.setText("")
        self._reset_tool()
        self.refresh()
        self.controller.repaint()
        if self.session.hotseat:
            self.say(f"New game: {self.session.players} seats play here in turn; Seat 1 starts")

    def change_other_seats(self) -> None:
        """The "Other seats" box changed: remember it, and deal a new game at once when no card
        was played yet (or the game is over); a game under way goes on until New Game."""
        mode = self.other_seats()
        _remember_other_seats(mode)
        session = self.session
        if mode == session.others:
            return
        if session.players == 1 and self.players_box.value() == 1:
            session.others = mode  # no other seat: nothing changes in the game
            return
        if session.moves and not session.finished:
            self.say(f"This game goes on; New Game deals one with the other seats {OTHER_SEATS[mode]}")
            return
        self.new_game()

    def played(self) -> None:
        """A card was drawn: select the next one and refresh."""
        self.message.setText("")
        self.refresh()
        self.controller.repaint()
        if self.session.hotseat and self.session.seat_done():
            session = self.session
            self.say(f"{session.seat_name()} has played round {session.round}: "
                     + (f"press Next Seat and hand over to {session.seat_name(session.seat + 1)}"
                        if not session.last_seat() else "press Next Round"))

    def tally(self) -> None:
        """Take a tally mark (or skip) for the selected card."""
        index = self.current_index()
        if index is None:
            return
        refused = self.session.play(index, None)
        if refused:
            self.say(refused)
            return
        self.played()

    def next_round(self) -> None:
        """The Next button: pass to the next seat (hot-seat) or end the round and reveal the next one."""
        session = self.session
        passing = session.hotseat and not session.finished and not session.last_seat()
        refused = session.advance()
        if refused:
            self.say(refused)
            return
        self._reset_tool()
        if session.finished:
            self.refresh()
            self.say(f"{self.round_label.text()}: the score is final")
        elif passing:
            self.say(f"{session.seat_name()}'s turn: round {session.round}")
        else:
            self.message.setText("")
        self.refresh()
        self.controller.repaint()

    def _reset_tool(self) -> None:
        tool = getattr(self.controller, "tool", None)
        if tool is not None and hasattr(tool, "turn"):
            tool.turn = 0

    def _card_changed(self) -> None:
        self._show_buttons()
        self._show_turn()
        self.controller.repaint()

    def _show_buttons(self) -> None:
        """Enable Tally Mark / Skip / Next for the selected card and the seat on turn, with the
        hint for a card that has no legal place."""
        session, rules = self.session, self.rules
        card = self.current_card()
        placeable = bool(card and session.options(card))
        self.tally_button.setEnabled(card is not None and not placeable)
        self.tally_button.setText("No Empty Room" if card == TRAP else "Tally Mark")
        self.skip_button.setVisible(rules.voluntary_skip)
        self.skip_button.setEnabled(card is not None and card != TRAP and placeable)
        passing = session.hotseat and not session.finished and not session.last_seat()
        self.next_button.setText("Next Seat" if passing else "Next Round")
        self.next_button.setToolTip(
            f"Hand over to {session.seat_name(session.seat + 1)}: same revealed cards, their own map (Enter)"
            if passing else "End the round and reveal the next cards (Enter)")
        self.next_button.setEnabled(not session.finished and (session.seat_done() if passing else session.round_done()))
        if card is not None and not placeable:
            self.message.setText(
                "No empty room for this trap: press No Empty Room" if card == TRAP else
                f"This {card_name(card).lower()} has no legal place: press Tally Mark")

    def _seat_clicked(self, item, _column=0) -> None:
        seat = self.seats.indexOfTopLevelItem(item)
        if not self.session.finished or seat == self.session.seat:
            return
        if self.session.show_seat(seat) is None:
            self.refresh()
            self.controller.repaint()

    def _update_others_box(self) -> None:
        self.others_box.setEnabled(self.players_box.value() > 1 or self.session.players > 1)

    # .. showing the state ..
    def refresh(self) -> None:
        """Show the round, whose turn it is, the cards, the tallies, the score and every seat's total."""
        session, rules = self.session, self.rules
        if session.finished:
            winners = session.winners()
            if session.players == 1:
                who = ""
            elif len(winners) == 1:
                who = f" \u2014 {session.seat_name(winners[0])} wins"
            else:
                who = " \u2014 shared win: " + ", ".join(session.seat_name(w) for w in winners)
            self.round_label.setText(f"Game over after {session.round} round{'s' if session.round != 1 else ''}"
                                     + who)
        else:
            others = "" if session.players == 1 else (
                ", played here in turn" if session.hotseat else f", other seats by the {OPPONENT_POLICY} policy")
            self.round_label.setText(f"Round {session.round} of {rules.rounds} (seed {session.seed}, "
                                     f"{session.players} player{'s' if session.players != 1 else ''}{others})")
        previous = self.cards.currentRow()
        self.cards.blockSignals(True)
        self.cards.clear()
        for card in session.cards:
            item = QListWidgetItem(card_name(card.card) + (f" \u2014 {card.done}" if card.done else ""))
            if card.done:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                item.setForeground(QColor("#888888"))
            self.cards.addItem(item)
        pending = session.pending()
        if pending:
            self.cards.setCurrentRow(previous if previous in pending else pending[0])
        self.cards.blockSignals(False)
        self._show_buttons()
        self._show_turn()
        me = session.me
        whose = f"{session.seat_name()} \u2014 " if session.players > 1 else ""
        traps = ", ".join(f"{rules.labels[room]} (round {r})" for room, r in me.traps) or "none"
        facing = [(seat, room) for seat, pm in enumerate(session.maps) if seat != session.seat for room, _ in pm.traps]
        against = ", ".join(f"{rules.labels[room]} (seat {seat + 1})" for seat, room in facing) or "none"
        text = f"{whose}Tally marks: {me.tallies}    Own traps: {traps}"
        if session.players > 1:
            text += f"\nOther seats' traps (each hits a segment in that room): {against}"
        self.tallies.setText(text)
        score = session.score()
        labels = {row.get("term"): row.get("label") for row in rules.entry.get("scoring") or []
                  if isinstance(row, dict)}
        self.score_tree.clear()
        named = session.hotseat or session.seat != 0
        self.score_tree.setHeaderLabels([f"Score ({session.seat_name()})" if named else "Score", "Count", "VP"])
        for term, points in score.terms.items():
            self.score_tree.addTopLevelItem(QTreeWidgetItem(
                [labels.get(term) or term.replace("_", " "), str(score.counts[term]),
                 f"{points:+d}" if points else "0"]))
        self.total.setText(f"{session.seat_name()} total: {score.total} VP" if named else f"Total: {score.total} VP")
        self._show_seats()

    def _show_turn(self) -> None:
        session = self.session
        card = self.current_card()
        if session.finished:
            whose = "your" if not session.hotseat and session.seat == 0 else f"{session.seat_name()}'s"
            text = f"Showing {whose} map: click a seat below to see another" if session.players > 1 else ""
        elif card is None:
            if session.hotseat and not session.last_seat():
                text = (f"{session.seat_name()} of {session.players} has played: Next Seat hands over to "
                        f"{session.seat_name(session.seat + 1)}")
            else:
                text = "Every seat has played: Next Round" if session.hotseat else "Every card is drawn: Next Round"
        else:
            verb = "draw the" if card == TRAP else "place the"
            name = card_name(card)
            if session.hotseat:
                text = f"{session.seat_name()} of {session.players} \u2014 {verb} {name}"
            else:
                text = f"Your turn \u2014 {verb} {name}"
        self.turn_label.setText(text)
        if session.hotseat and not session.finished:
            self.turn_label.setStyleSheet(f"color: {seat_ink(session.seat).name()}")
        else:
            self.turn_label.setStyleSheet("")

    def _show_seats(self) -> None:
        session = self.session
        self.seats.setVisible(session.players > 1)
        self.seats.clear()
        for seat, score in enumerate(session.scores()):
            pm = session.maps[seat]
            if session.finished:
                state = "final"
            elif seat < len(session.hands):
                state = "on turn" if seat == session.seat and not session.seat_done(seat) else (
                    "played" if session.seat_done(seat) else "to play")
            else:
                state = "at Next Round"  # a policy seat draws when the round ends
            mark = "\u25b6 " if seat == session.seat and (session.hotseat or session.finished) else ""
            item = QTreeWidgetItem([mark + session.seat_name(seat), state, str(pm.tallies), str(len(pm.traps)),
                                    str(score.counts.get("trap", 0)), f"{score.total}"])
            if seat == session.seat:
                font = QFont(item.font(0))
                font.setBold(True)
                for column in range(len(SEAT_COLUMNS)):
                    item.setFont(column, font)
            self.seats.addTopLevelItem(item)

    def card_texts(self) -> list[str]:
        """The card list as shown (for tests and screen readers)."""
        return [self.cards.item(i).text() for i in range(self.cards.count())]

    def seat_rows(self) -> list[list[str]]:
        """The seats table as shown: one row per seat, :data:`SEAT_COLUMNS` (for tests and
        screen readers)."""
        return [[self.seats.topLevelItem(i).text(c) for c in range(len(SEAT_COLUMNS))]
                for i in range(self.seats.topLevelItemCount())]


#: The columns of the dock's seats table, and their tooltips.
SEAT_COLUMNS = ("Seat", "Round", "Tally", "Traps", "Hits", "VP")
SEAT_COLUMN_TIPS = ("The seat (\u25b6: its map is on the canvas)", "Whether the seat has played this round",
                    "Tally marks", "Traps the seat has drawn", "Other seats' traps hitting the seat's segments",
                    "The seat's live score (the engine's score_map)")


def _fit_columns(tree: QTreeWidget, stretch: int) -> None:
    """Size a table's columns to their contents, ``stretch`` taking the rest of the width."""
    header = tree.header()
    header.setStretchLastSection(False)
    for column in range(tree.columnCount()):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if column == stretch
                                    else QHeaderView.ResizeMode.ResizeToContents)


def _remembered_other_seats() -> str:
    """The last "Other seats" choice from the editor's settings (:data:`POLICY` by default)."""
    try:
        from editor.mainwindow import settings

        value = settings().value(OTHER_SEATS_SETTING, POLICY)
    except Exception:
        return POLICY
    return value if value in OTHER_SEATS else POLICY


def _remember_other_seats(mode: str) -> None:
    try:
        from editor.mainwindow import settings

        settings().setValue(OTHER_SEATS_SETTING, mode)
    except Exception:
        pass
