"""Grid-family playtest: play rounds with a seeded deck on the canvas (RULES.md 1).

:class:`GridPanel` is the Playtest dock's page for a grid dungeon: the seed, the players and
who plays the other seats, the revealed cards, the buttons, the live score and every seat's
total. The game it shows is a Qt-free :class:`~editor.playtest.grid_session.GridSession` (the grid
engine's rules, the other seats, the score: :mod:`editor.playtest.grid_session`), played on the canvas
with :class:`~editor.playtest.grid_tool.GridPlaytestTool` (:mod:`editor.playtest.grid_tool`).
This module also offers the names of both, as it did before they moved.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
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

from editor.playtest.grid_session import (
    CARD_NAMES,
    HOTSEAT,
    OPPONENT_POLICY,
    OTHER_SEATS,
    POLICY,
    Card,
    GridSession,
    Move,
    card_name,
)
from editor.playtest.grid_tool import INK, SEAT_INKS, GridPlaytestTool, seat_ink
from inkcrawl.engines.grid import TRAP, GridRules

__all__ = [
    "CARD_NAMES",
    "HOTSEAT",
    "INK",
    "OPPONENT_POLICY",
    "OTHER_SEATS",
    "OTHER_SEATS_SETTING",
    "POLICY",
    "SEAT_COLUMNS",
    "SEAT_INKS",
    "Card",
    "GridPanel",
    "GridPlaytestTool",
    "GridSession",
    "Move",
    "card_name",
    "seat_ink",
]

#: The settings key remembering the last "Other seats" choice.
OTHER_SEATS_SETTING = "playtest/grid_other_seats"


class GridPanel(QWidget):
    """The Playtest dock's page for a grid dungeon: seed, players and who plays the other seats
    (New Game), the round and whose turn it is, the revealed cards (the selected one is the
    card to draw), Tally Mark / Skip and Next Seat / Next Round, the tallies and traps, the live
    score term by term of the seat on turn and every seat's total.

    ``others`` is :data:`POLICY` or :data:`HOTSEAT`; without it the last choice (kept in the
    editor's settings) is used, :data:`POLICY` the first time."""

    def __init__(
        self, rules: GridRules, controller, parent=None, seed: int = 1, players: int = 1, others: str | None = None
    ):
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
            "this screen, each seat in turn on the same revealed cards (hot-seat)"
        )
        self.others_box.activated.connect(lambda _index: self.change_other_seats())
        form.addRow("Other seats:", self.others_box)
        layout.addLayout(form)
        self.new_button = QPushButton("New Game")
        self.new_button.setToolTip(
            "Deal a new game with this seed, player count and other seats; every seat starts again"
        )
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
        self.cards.setToolTip(
            "The revealed cards: select the one to draw, then click a room (R, the wheel or a right-click turns it)"
        )
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
        self.save_button = QPushButton("Save Sheet\u2026")
        self.save_button.setObjectName("playtest_save_sheet")
        self.save_button.setToolTip(
            "Save this seat's sheet as a grid play file, for 'inkcrawl score' (docs/play-files.md)"
        )
        self.save_button.clicked.connect(self.save_sheet)
        layout.addWidget(self.save_button)
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
        # the total sits under whose turn it is, never below the fold of a short dock
        layout.insertWidget(layout.indexOf(self.turn_label) + 1, self.total)
        self.seats = QTreeWidget()
        self.seats.setObjectName("playtest_seats")
        self.seats.setColumnCount(len(SEAT_COLUMNS))
        self.seats.setHeaderLabels(list(SEAT_COLUMNS))
        self.seats.setRootIsDecorated(False)
        self.seats.setToolTip(
            "Every seat's tally marks, traps and live score; once the game is over, "
            "click a seat to see its map and score"
        )
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
    def save_sheet(self) -> None:
        """Ask for a file and save the seat's sheet as a grid play file."""
        path = self.controller.ask_play_path(f"{self.session.rules.id}.sheet.json")
        if not path:
            return
        from inkcrawl.jsonio import write_json_atomic

        sheet = self.session.sheet()
        # asks before replacing a read-only file, as File > Save does
        self.say(
            self.controller.write_file(Path(path), "the sheet", lambda p, force: write_json_atomic(p, sheet, force))
        )

    def new_game(self) -> None:
        """Deal a new game with the seed, player count and other seats in the boxes (every seat
        starts again)."""
        try:
            self.session = GridSession(self.rules, self.seed_box.value(), self.players_box.value(), self.other_seats())
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
            self.say(
                f"{session.seat_name()} has played round {session.round}: "
                + (
                    f"press Next Seat and hand over to {session.seat_name(session.seat + 1)}"
                    if not session.last_seat()
                    else "press Next Round"
                )
            )

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
        tool = self.controller.tool
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
            if passing
            else "End the round and reveal the next cards (Enter)"
        )
        self.next_button.setEnabled(not session.finished and (session.seat_done() if passing else session.round_done()))
        if card is not None and not placeable:
            self.message.setText(
                "No empty room for this trap: press No Empty Room"
                if card == TRAP
                else f"This {card_name(card).lower()} has no legal place: press Tally Mark"
            )

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
            self.round_label.setText(f"Game over after {session.round} round{'s' if session.round != 1 else ''}" + who)
        else:
            others = (
                ""
                if session.players == 1
                else (", played here in turn" if session.hotseat else f", other seats by the {OPPONENT_POLICY} policy")
            )
            self.round_label.setText(
                f"Round {session.round} of {rules.rounds} (seed {session.seed}, "
                f"{session.players} player{'s' if session.players != 1 else ''}{others})"
            )
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
        labels = {
            row.get("term"): row.get("label") for row in rules.entry.get("scoring") or [] if isinstance(row, dict)
        }
        self.score_tree.clear()
        named = session.hotseat or session.seat != 0
        self.score_tree.setHeaderLabels([f"Score ({session.seat_name()})" if named else "Score", "Count", "VP"])
        for term, points in score.terms.items():
            self.score_tree.addTopLevelItem(
                QTreeWidgetItem(
                    [
                        labels.get(term) or term.replace("_", " "),
                        str(score.counts[term]),
                        f"{points:+d}" if points else "0",
                    ]
                )
            )
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
                text = (
                    f"{session.seat_name()} of {session.players} has played: Next Seat hands over to "
                    f"{session.seat_name(session.seat + 1)}"
                )
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
                state = (
                    "on turn"
                    if seat == session.seat and not session.seat_done(seat)
                    else ("played" if session.seat_done(seat) else "to play")
                )
            else:
                state = "at Next Round"  # a policy seat draws when the round ends
            mark = "\u25b6 " if seat == session.seat and (session.hotseat or session.finished) else ""
            item = QTreeWidgetItem(
                [
                    mark + session.seat_name(seat),
                    state,
                    str(pm.tallies),
                    str(len(pm.traps)),
                    str(score.counts.get("trap", 0)),
                    f"{score.total}",
                ]
            )
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
        return [
            [self.seats.topLevelItem(i).text(c) for c in range(len(SEAT_COLUMNS))]
            for i in range(self.seats.topLevelItemCount())
        ]


#: The columns of the dock's seats table, and their tooltips.
SEAT_COLUMNS = ("Seat", "Round", "Tally", "Traps", "Hits", "VP")
SEAT_COLUMN_TIPS = (
    "The seat (\u25b6: its map is on the canvas)",
    "Whether the seat has played this round",
    "Tally marks",
    "Traps the seat has drawn",
    "Other seats' traps hitting the seat's segments",
    "The seat's live score (the engine's score_map)",
)


def _fit_columns(tree: QTreeWidget, stretch: int) -> None:
    """Size a table's columns to their contents, ``stretch`` taking the rest of the width."""
    header = tree.header()
    header.setStretchLastSection(False)
    for column in range(tree.columnCount()):
        header.setSectionResizeMode(
            column, QHeaderView.ResizeMode.Stretch if column == stretch else QHeaderView.ResizeMode.ResizeToContents
        )


def _remembered_other_seats() -> str:
    """The last "Other seats" choice from the editor's settings (:data:`POLICY` by default)."""
    try:
        from editor.settings import settings

        value = settings().value(OTHER_SEATS_SETTING, POLICY)
    except Exception:
        return POLICY
    return value if value in OTHER_SEATS else POLICY


def _remember_other_seats(mode: str) -> None:
    try:
        from editor.settings import settings

        settings().setValue(OTHER_SEATS_SETTING, mode)
    except Exception:
        pass
