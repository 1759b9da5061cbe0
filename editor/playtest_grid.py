"""Grid-family playtest: play rounds with a seeded deck on the canvas (RULES.md 1).

:class:`GridSession` is the Qt-free state of one game, played by the grid engine
(:mod:`inkcrawl.engines.grid`) exactly as :func:`inkcrawl.engines.grid.play_game` plays it:
the deck is the engine's :class:`~inkcrawl.engines.grid.Deck` shuffled by
``random.Random(seed)``, each round reveals the engine's cards (Draw 2 chaining included), and
every card the designer plays goes through :func:`~inkcrawl.engines.grid.play_turn` with the
designer's choice, so legality, tallies, traps and round numbers are the engine's. With more
than one player the other seats are played by a bundled policy (``greedy``, the one
``inkcrawl simulate`` uses), after the designer's turn each round, with their own
``random.Random(f"{seed}/{p}")``; their traps can hit the designer's map. The score is
:func:`~inkcrawl.engines.grid.score_map` term by term.

:class:`GridPlaytestTool` is the canvas tool (hover a room to preview the current card, click
to draw it, R / wheel / right-click to turn it) and :class:`GridPanel` the dock's page.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QFormLayout, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QSpinBox, QTreeWidget,
    QTreeWidgetItem, QVBoxLayout, QWidget,
)

from editor.tools import Tool
from inkcrawl.engines.grid import (
    SIDES, TRAP, Deck, GridRules, PlayerMap, PolicyError, Score, play_turn, score_map, sides_of,
)
from inkcrawl.engines.grid_policies import make_policy

#: The policy playing the other seats.
OPPONENT_POLICY = "greedy"
#: Names of the cards as the dock shows them.
CARD_NAMES = {"straight": "Straight", "corner": "Corner", "t_junction": "T junction", "cross": "Cross",
              "dead_end": "Dead end", TRAP: "Trap", "draw_two": "Draw 2"}
#: Colours of the designer's segments, traps and the hover preview.
INK = QColor(20, 80, 200, 220)
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
    """One card the designer played: its ``round``, ``card``, ``choice`` (``(room, mask)`` for
    a segment, a room for a trap, ``None`` otherwise) and ``outcome``: ``drawn``, ``tally`` (no
    legal place), ``skip`` (a voluntary skip) or ``no_room`` (a trap with no empty room)."""

    round: int
    card: str
    choice: object
    outcome: str


@dataclass
class Card:
    """A revealed card of the current round and what became of it: ``done`` is ``""`` while
    it waits, else ``"drawn in C4"``, ``"tally mark"``..."""

    card: str
    done: str = ""


class GridSession:
    """One grid-family game on compiled game data (``rules``, a :class:`GridRules`), with
    ``seed`` and ``players`` (1-4; the designer is player 1). Raises ``ValueError`` for a
    player count the dungeon does not allow."""

    def __init__(self, rules: GridRules, seed: int = 1, players: int = 1):
        low, high = rules.min_players, min(rules.max_players, 4)
        if not low <= players <= high:
            raise ValueError(f"{players} players: this dungeon is for {low}-{high}")
        self.rules = rules
        self.seed = int(seed)
        self.players = int(players)
        self.deck = Deck(rules.deck_list(players), random.Random(self.seed), rules.reshuffle)
        self.rngs = [random.Random(f"{self.seed}/{p}") for p in range(players)]
        self.maps = [PlayerMap(rules) for _ in range(players)]
        self.me = self.maps[0]
        self.opponents = [make_policy(OPPONENT_POLICY, rules) for _ in range(players - 1)]
        self.reveals: list[list[str]] = []
        self.cards: list[Card] = []
        self.moves: list[Move] = []
        self.round = 0
        self.finished = False
        self._start_round()

    # .. rounds ..
    def _start_round(self) -> None:
        rules = self.rules
        if self.round >= rules.rounds:
            self.finished = True
            self.cards = []
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
        self.cards = [Card(card) for card in revealed]

    def pending(self) -> list[int]:
        """Indices of this round's cards still to draw."""
        return [i for i, card in enumerate(self.cards) if not card.done]

    def round_done(self) -> bool:
        """Whether every card of this round is drawn (or tallied)."""
        return not self.pending()

    def next_round(self) -> str | None:
        """End the round (the other players draw the same cards) and reveal the next one.
        Returns why not, or ``None``."""
        if self.finished:
            return "The game is over"
        if not self.round_done():
            return "Draw every revealed card first (or take a tally mark for a card with no legal place)"
        revealed = self.reveals[-1]
        for p, policy in enumerate(self.opponents, start=1):
            play_turn(self.maps[p], revealed, policy, self.rngs[p])
        self.deck.discards.extend(revealed)
        if self.deck.exhausted and not self.rules.reshuffle:
            self.finished = True
            self.cards = []
            return None
        self._start_round()
        return None

    # .. the designer's moves ..
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
            play_turn(me, [card], _OneMove(card, choice), self.rngs[0])
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
        self.moves.append(Move(self.round, card, choice, outcome))
        self.cards[index].done = done
        return None

    # .. score ..
    def score(self) -> Score:
        """The designer's score now (the engine's :func:`score_map`, against the other seats)."""
        return score_map(self.rules, self.me, self.maps[1:])

    def opponent_scores(self) -> list[Score]:
        """The other seats' scores now."""
        return [score_map(self.rules, pm, [o for o in self.maps if o is not pm]) for pm in self.maps[1:]]


class GridPlaytestTool(Tool):
    """The canvas tool while playtesting a grid dungeon: hover a room to preview the current
    card, click to draw it there, turn it with R, the mouse wheel or a right-click. Never
    edits the dungeon."""

    cursor = Qt.CursorShape.PointingHandCursor

    def __init__(self, ctx, panel: "GridPanel"):
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
        return False

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self.ctx.dungeon is None or self.ctx.dungeon.family != "grid":
            return
        session, rules = self.session, self.session.rules
        me = session.me
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = max(1.0, self.ctx.dungeon.grid.cell_mm / 18)
        for room in range(rules.size):
            if me.seg[room]:
                _draw_segment(painter, self.room_rect(room), me.seg[room], INK, width)
            if me.trap[room]:
                _draw_trap(painter, self.room_rect(room), TRAP_INK, width)
            if me.round_of[room]:
                _draw_round(painter, self.room_rect(room), me.round_of[room])
        # the other seats' traps (public: each hits you if your map has a segment there)
        for pm in session.maps[1:]:
            for room, _ in pm.traps:
                _draw_trap(painter, self.room_rect(room).adjusted(6, 6, -6, -6), QColor(120, 120, 120, 160), width / 2)
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

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
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


def _draw_round(painter: QPainter, rect: QRectF, number: int) -> None:
    painter.save()
    painter.translate(rect.left() + rect.width() * 0.06, rect.top() + rect.height() * 0.06)
    painter.scale(0.25, 0.25)
    font = QFont()
    font.setPixelSize(int(rect.height() * 0.18 * 4))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(INK)
    painter.drawText(QRectF(0, 0, rect.width(), rect.height()), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                     str(number))
    painter.restore()


class GridPanel(QWidget):
    """The Playtest dock's page for a grid dungeon: seed and players (New Game), the round,
    the revealed cards (the selected one is the card to draw), Tally Mark / Skip and Next
    Round, the tallies and traps, and the live score term by term."""

    def __init__(self, rules: GridRules, controller, parent=None, seed: int = 1, players: int = 1):
        super().__init__(parent)
        self.rules = rules
        self.controller = controller
        self.session = GridSession(rules, seed, players)
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
        self.players_box.setToolTip("Players at the table: you are player 1, the others are played by the "
                                    f"'{OPPONENT_POLICY}' policy. Solo play removes the traps.")
        form.addRow("Players:", self.players_box)
        layout.addLayout(form)
        self.new_button = QPushButton("New Game")
        self.new_button.setToolTip("Deal a new game with this seed and player count")
        self.new_button.clicked.connect(self.new_game)
        layout.addWidget(self.new_button)
        self.round_label = QLabel()
        self.round_label.setObjectName("playtest_round")
        bold = QFont(self.round_label.font())
        bold.setBold(True)
        self.round_label.setFont(bold)
        layout.addWidget(self.round_label)
        self.cards = QListWidget()
        self.cards.setObjectName("playtest_cards")
        self.cards.setToolTip("The revealed cards: select the one to draw, then click a room "
                              "(R, the wheel or a right-click turns it)")
        self.cards.setMinimumHeight(90)
        self.cards.currentRowChanged.connect(lambda _row: self.controller.repaint())
        layout.addWidget(self.cards, 1)
        buttons = QHBoxLayout()
        self.tally_button = QPushButton("Tally Mark")
        self.tally_button.setToolTip("The selected card has no legal place: take a tally mark")
        self.tally_button.clicked.connect(self.tally)
        self.skip_button = QPushButton("Skip")
        self.skip_button.setToolTip("Skip a placeable segment (the ruleset's voluntary skip)")
        self.skip_button.clicked.connect(self.tally)
        self.next_button = QPushButton("Next Round")
        self.next_button.setToolTip("End the round and reveal the next cards")
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
        layout.addWidget(self.tallies)
        self.score_tree = QTreeWidget()
        self.score_tree.setObjectName("playtest_score")
        self.score_tree.setColumnCount(3)
        self.score_tree.setHeaderLabels(["Score", "Count", "VP"])
        self.score_tree.setRootIsDecorated(False)
        self.score_tree.setMinimumHeight(170)
        layout.addWidget(self.score_tree, 1)
        self.total = QLabel()
        self.total.setObjectName("playtest_total")
        self.total.setFont(bold)
        layout.addWidget(self.total)
        self.others = QLabel()
        self.others.setWordWrap(True)
        layout.addWidget(self.others)
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

    def say(self, text: str) -> None:
        """Show a message (the dock and the status bar)."""
        self.message.setText(text)
        self.controller.status(text)

    # .. actions ..
    def new_game(self) -> None:
        """Deal a new game with the seed and player count in the boxes."""
        try:
            self.session = GridSession(self.rules, self.seed_box.value(), self.players_box.value())
        except ValueError as exc:
            self.say(str(exc))
            return
        self.message.setText("")
        self.refresh()
        self.controller.repaint()

    def played(self) -> None:
        """A card was drawn: select the next one and refresh."""
        self.message.setText("")
        self.refresh()
        self.controller.repaint()

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
        """End the round and reveal the next one."""
        refused = self.session.next_round()
        if refused:
            self.say(refused)
            return
        self.message.setText("The game is over: the score is final" if self.session.finished else "")
        self.refresh()
        self.controller.repaint()

    # .. showing the state ..
    def refresh(self) -> None:
        """Show the round, the cards, the tallies and the score."""
        session, rules = self.session, self.rules
        if session.finished:
            self.round_label.setText(f"Game over after {session.round} round{'s' if session.round != 1 else ''}")
        else:
            self.round_label.setText(f"Round {session.round} of {rules.rounds} (seed {session.seed}, "
                                     f"{session.players} player{'s' if session.players != 1 else ''})")
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
        card = self.current_card()
        placeable = bool(card and session.options(card))
        self.tally_button.setEnabled(card is not None and not placeable)
        self.tally_button.setText("No Empty Room" if card == TRAP else "Tally Mark")
        self.skip_button.setVisible(rules.voluntary_skip)
        self.skip_button.setEnabled(card is not None and card != TRAP and placeable)
        self.next_button.setEnabled(not session.finished and session.round_done())
        if card is not None and not placeable:
            self.message.setText(
                "No empty room for this trap: press No Empty Room" if card == TRAP else
                f"This {card_name(card).lower()} has no legal place: press Tally Mark")
        me = session.me
        traps = ", ".join(f"{rules.labels[room]} (round {r})" for room, r in me.traps) or "none"
        self.tallies.setText(f"Tally marks: {me.tallies}    Your traps: {traps}")
        score = session.score()
        labels = {row.get("term"): row.get("label") for row in rules.entry.get("scoring") or []
                  if isinstance(row, dict)}
        self.score_tree.clear()
        for term, points in score.terms.items():
            self.score_tree.addTopLevelItem(QTreeWidgetItem(
                [labels.get(term) or term.replace("_", " "), str(score.counts[term]),
                 f"{points:+d}" if points else "0"]))
        self.total.setText(f"Total: {score.total} VP")
        if session.players > 1:
            others = ", ".join(f"player {p + 2}: {s.total} VP" for p, s in enumerate(session.opponent_scores()))
            self.others.setText(f"Other seats ({OPPONENT_POLICY} policy): {others}")
        else:
            self.others.setText("")

    def card_texts(self) -> list[str]:
        """The card list as shown (for tests and screen readers)."""
        return [self.cards.item(i).text() for i in range(self.cards.count())]
