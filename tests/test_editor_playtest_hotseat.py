"""Grid playtest in hot-seat mode (issue #5, "Playtest": grid family), driven by simulated
mouse clicks on the rooms and on the dock's widgets, offscreen.

With N players every seat is played by hand on the one screen: each round seat 1 draws the
revealed cards on its map, Next Seat hands over to seat 2 (same cards, its own map), and so on;
Next Round reveals the next cards once every seat has played. The tests check a hand-worked
3-seat round (maps, tally marks, traps of one seat hitting another, round number, score per
seat) against the engine's play_turn fed the same choices, a whole 3-seat game against
play_game, and that switching the "Other seats" choice and New Game reset every seat.
"""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from editor.playtest.grid import HOTSEAT, OTHER_SEATS_SETTING, POLICY, GridPlaytestTool
from inkcrawl.engines.grid import TRAP, Deck, GridRules, PlayerMap, play_game, play_turn, score_map
from inkcrawl.gamedata import grid_game_data
from inkcrawl.loading import open_dungeons
from tests.editor_support import GRID_DUNGEON, click, make_window, view_point
from tests.test_editor_grid_session import _Choices

N, E, S, W = 1, 2, 4, 8  # the engine's side bits


def _grid_rules() -> GridRules:
    """The engine's rules compiled straight from the file, as ``inkcrawl simulate`` does."""
    opened = open_dungeons([str(GRID_DUNGEON)]).dungeons[0]
    return GridRules(grid_game_data(opened.dungeon, opened.ruleset, opened.deck))


def _start(qtbot):
    window = make_window(qtbot, GRID_DUNGEON)
    window.view.set_zoom(0.5)
    window.activateWindow()
    QTest.qWaitForWindowActive(window)
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F5)
    assert window.playtest.playing, window.playtest.reason.text()
    return window


def _choose_other_seats(panel, mode: str) -> None:
    """Pick an "Other seats" entry with the keyboard, as a user does on the closed combo box."""
    box = panel.others_box
    box.setFocus()
    target = box.findData(mode)
    key = Qt.Key.Key_Down if target > box.currentIndex() else Qt.Key.Key_Up
    while box.currentIndex() != target:
        QTest.keyClick(box, key)


def _set_spin(box, value: int) -> None:
    """Type a value in a spin box."""
    box.setFocus()
    box.selectAll()
    QTest.keyClicks(box, str(value))
    QTest.keyClick(box, Qt.Key.Key_Enter)
    assert box.value() == value


def _hotseat_game(window, seed: int, players: int):
    panel = window.playtest.active
    _set_spin(panel.seed_box, seed)
    _set_spin(panel.players_box, players)
    _choose_other_seats(panel, HOTSEAT)
    QTest.mouseClick(panel.new_button, Qt.MouseButton.LeftButton)
    return window.playtest.active


def _click_card(panel, index: int) -> None:
    """Click row ``index`` of the revealed cards in the dock."""
    item = panel.cards.item(index)
    panel.cards.scrollToItem(item)
    QTest.mouseClick(
        panel.cards.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        panel.cards.visualItemRect(item).center(),
    )
    assert panel.cards.currentRow() == index and panel.current_index() == index


def _room_centre(window, room: int) -> tuple[float, float]:
    grid = window.current.dungeon.grid
    col, row = window.playtest.active.rules.cells[room]
    return (grid.origin_mm[0] + (col + 0.5) * grid.cell_mm, grid.origin_mm[1] + (row + 0.5) * grid.cell_mm)


def _place(window, room: int, mask: int = 0) -> None:
    """Hover ``room``, turn the selected card with R to ``mask`` (segments) and click the room."""
    panel = window.playtest.active
    tool = window.view.tool
    card = panel.current_card()
    x, y = _room_centre(window, room)
    window.view.centerOn(x, y)
    QTest.mouseMove(window.view.viewport(), view_point(window.view, x, y))
    assert tool.hover == room
    if card != TRAP:
        for _ in range(4):
            if tool.preview()[1] == mask:
                break
            QTest.keyClick(window.view, Qt.Key.Key_R)
        assert tool.preview() == (card, mask, True), (card, room, mask, tool.preview())
    moves = len(panel.session.moves)
    click(window.view, x, y)
    assert len(panel.session.moves) == moves + 1, panel.message.text()


def _play_seat(window, panel) -> None:
    """The seat on turn draws every revealed card in its first legal place by mouse (a tally
    mark where there is none)."""
    session = panel.session
    while session.pending():
        options = session.options(panel.current_card())
        if options:
            _place(window, *options[0])
        else:
            QTest.mouseClick(panel.tally_button, Qt.MouseButton.LeftButton)


def _next(panel, text: str) -> None:
    assert panel.next_button.text() == text and panel.next_button.isEnabled()
    QTest.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)


def _ink_at(window, room: int):
    """The colour painted at the centre of a room on the canvas (the mouse moved off the grid
    first, so no preview covers it)."""
    grid = window.current.dungeon.grid
    QTest.mouseMove(window.view.viewport(), view_point(window.view, grid.origin_mm[0] - 8, grid.origin_mm[1] - 8))
    assert window.view.tool.hover is None
    image = window.view.viewport().grab().toImage()
    ratio = image.devicePixelRatio()
    point = view_point(window.view, *_room_centre(window, room))
    return image.pixelColor(int(point.x() * ratio), int(point.y() * ratio))


def test_hotseat_round_by_mouse_matches_the_engine_hand_worked(qtbot):
    window = _start(qtbot)
    document = window.current
    before = document.canonical_text()
    panel = window.playtest.active
    assert panel.other_seats() == POLICY  # the first time: the other seats by the policy
    assert not panel.others_box.isEnabled()  # solo: no other seats
    panel = _hotseat_game(window, 2, 3)
    session = panel.session
    rules = session.rules
    room = rules.room
    assert session.hotseat and session.players == 3 and session.opponents == []
    # seed 2 reveals a Draw 2 in round 1: it is discarded and two more cards come (5 cards)
    assert [c.card for c in session.cards] == ["straight", "straight", "t_junction", "corner", TRAP]
    assert session.reveals[0] == Deck(rules.deck_list(3), random.Random(2), rules.reshuffle).reveal(rules.reveal)
    assert panel.turn_label.text() == "Seat 1 of 3 \u2014 place the Straight"
    assert panel.round_label.text().startswith("Round 1 of 7")
    assert panel.next_button.text() == "Next Seat" and not panel.next_button.isEnabled()
    assert [row[0] for row in panel.seat_rows()] == ["\u25b6 Seat 1", "Seat 2", "Seat 3"]

    # the same choices per seat: (card index in the dock, room, mask) in the order clicked
    plan = {
        0: [(0, "F1", N | S), (1, "F2", N | S), (2, "F3", N | E | S), (3, "B1", N | E), (4, "B7", 0)],
        1: [(4, "F1", 0), (0, "B7", N | S), (1, "A3", E | W), (2, "G5", N | E | W), (3, "E7", E | S)],
        2: [(0, "G5", E | W), (1, "B1", N | S), (2, "A3", E | S | W), (3, "E7", S | W), (4, "B7", 0)],
    }
    for seat, moves in plan.items():
        assert session.seat == seat
        assert panel.turn_label.text().startswith(f"Seat {seat + 1} of 3 \u2014 ")
        for index, label, mask in moves:
            _click_card(panel, index)
            card = session.cards[index].card
            verb = "draw" if card == TRAP else "place"
            shown = panel.cards.item(index).text()
            assert panel.turn_label.text() == f"Seat {seat + 1} of 3 \u2014 {verb} the {shown}"
            if seat == 0 and index == 1:  # the canvas shows seat 1's map in seat 1's ink
                ink = _ink_at(window, room("F1"))
                assert ink.blue() > ink.red() + 60, ink.name()
            _place(window, room(label), mask)
        assert session.seat_done() and all(c.done for c in session.cards)
        if seat < 2:
            QTest.mouseClick(panel.tally_button, Qt.MouseButton.LeftButton)  # nothing left to tally
            assert len(session.moves) == 5 * (seat + 1)
            _next(panel, "Next Seat")
            assert panel.session.round == 1 and session.seat == seat + 1
            assert not any(session.me.seg)  # the next seat's own, empty map
            assert [c.done for c in session.cards] == [""] * 5  # the same cards, still to draw
    # seat 3's map is shown: seat 1's segment in F1 is not (only seat 2's grey trap is there)
    ink = _ink_at(window, room("F1"))
    assert ink.blue() < ink.red() + 40, ink.name()

    # hand-worked state after round 1
    maps = session.maps
    assert {rules.labels[i]: m for i, m in enumerate(maps[0].seg) if m} == {"F1": 5, "F2": 5, "F3": 7, "B1": 3}
    assert {rules.labels[i]: m for i, m in enumerate(maps[1].seg) if m} == {"B7": 5, "A3": 10, "G5": 11, "E7": 6}
    assert {rules.labels[i]: m for i, m in enumerate(maps[2].seg) if m} == {"G5": 10, "B1": 5, "A3": 14, "E7": 12}
    assert [(rules.labels[r], n) for r, n in maps[0].traps] == [("B7", 1)]
    assert [(rules.labels[r], n) for r, n in maps[1].traps] == [("F1", 1)]
    assert [(rules.labels[r], n) for r, n in maps[2].traps] == [("B7", 1)]
    assert [pm.tallies for pm in maps] == [0, 0, 0]
    # traps cross seats: seat 2's trap in F1 hits seat 1 once; seats 1 and 3 trapped B7, where
    # seat 2 has a segment: two hits; nothing hits seat 3
    scores = session.scores()
    assert [s.counts["trap"] for s in scores] == [1, 2, 0]
    assert [s.counts["entryway_unlinked"] for s in scores] == [4, 2, 2]
    assert [s.total for s in scores] == [4 - 3, 2 - 6, 2 - 0]
    assert [row[5] for row in panel.seat_rows()] == ["1", "-4", "2"]
    assert [row[4] for row in panel.seat_rows()] == ["1", "2", "0"]
    assert panel.total.text() == "Seat 3 total: 2 VP"
    assert "B7 (seat 1)" in panel.tallies.text() and "F1 (seat 2)" in panel.tallies.text()
    for seat, score in enumerate(scores):
        assert score == score_map(rules, maps[seat], [m for m in maps if m is not maps[seat]])

    # the same choices straight through the engine's play_turn
    deck = Deck(rules.deck_list(3), random.Random(2), rules.reshuffle)
    revealed = deck.reveal(rules.reveal)
    engine = [PlayerMap(rules) for _ in range(3)]
    for seat, pm in enumerate(engine):
        pm.round = 1
        cards = [revealed[i] for i, _, _ in plan[seat]]
        choices = [
            (1, revealed[i], room(label) if revealed[i] == TRAP else (room(label), mask))
            for i, label, mask in plan[seat]
        ]
        assert sorted(cards) == sorted(revealed)
        play_turn(pm, revealed, _Choices(choices), random.Random(f"2/{seat}"))
    for mine, theirs in zip(maps, engine):
        assert mine.seg == theirs.seg and mine.trap == theirs.trap and mine.traps == theirs.traps
        assert mine.round_of == theirs.round_of and mine.tallies == theirs.tallies
        assert mine.history == theirs.history
    assert [score_map(rules, pm, [o for o in engine if o is not pm]) for pm in engine] == scores

    # every seat has played: the next round, seat 1 again, the other seats' traps now public
    _next(panel, "Next Round")
    assert session.round == 2 and session.seat == 0
    assert session.reveals[1] == deck.reveal(rules.reveal) == ["cross", "t_junction", "cross", "corner"]
    assert [c.card for c in session.cards] == session.reveals[1]
    assert panel.round_label.text().startswith("Round 2 of 7")
    assert panel.turn_label.text() == "Seat 1 of 3 \u2014 place the Cross"
    assert maps[0].opponent_traps[room("F1")] == 1 and maps[0].opponent_traps[room("B7")] == 1
    assert maps[1].opponent_traps[room("B7")] == 2 and maps[2].opponent_traps[room("F1")] == 1
    assert all(pm.round == 2 for pm in maps)
    window.view.grab()  # seat 1's map, the other seats' traps and their seat numbers paint
    assert document.canonical_text() == before and document.undo_stack.count() == 0


@pytest.mark.parametrize("seed,players", [(5, 2), (15, 3)])
def test_hotseat_whole_game_by_mouse_equals_play_game(qtbot, seed, players):
    window = _start(qtbot)
    panel = _hotseat_game(window, seed, players)
    session = panel.session
    rules = session.rules
    chooser = random.Random(seed)
    rounds_seen = []
    while not session.finished:
        rounds_seen.append(session.round)
        for seat in range(players):
            assert session.seat == seat
            while session.pending():
                index = chooser.choice(session.pending())
                _click_card(panel, index)
                card = session.cards[index].card
                options = session.options(card)
                if not options:
                    assert panel.tally_button.isEnabled()
                    QTest.mouseClick(panel.tally_button, Qt.MouseButton.LeftButton)
                    continue
                room, mask = chooser.choice(options)
                _place(window, room, mask)
            _next(panel, "Next Seat" if seat < players - 1 else "Next Round")
    assert rounds_seen == list(range(1, rules.rounds + 1))
    policies = [_Choices([(m.round, m.card, m.choice) for m in session.moves if m.seat == p]) for p in range(players)]
    result = play_game(rules, policies, seed)
    assert session.reveals == result.reveals and session.round == result.rounds_played
    for mine, theirs in zip(session.maps, result.maps):
        assert mine.seg == theirs.seg and mine.traps == theirs.traps and mine.round_of == theirs.round_of
        assert mine.tallies == theirs.tallies and mine.history == theirs.history
    assert session.scores() == result.scores
    assert session.winners() == result.winners
    rows = panel.seat_rows()
    assert [int(row[5]) for row in rows] == [s.total for s in result.scores]
    assert [row[1] for row in rows] == ["final"] * players
    assert "Game over after 7 rounds" in panel.round_label.text()
    assert ("wins" if len(result.winners) == 1 else "shared win") in panel.round_label.text()
    assert "Game over after 7 rounds" in window.statusBar().currentMessage()  # not "press Next Round"
    assert "Game over" in panel.message.text()
    assert not panel.next_button.isEnabled()
    # once over, clicking a seat shows its map and its score term by term
    last = panel.seats.topLevelItem(players - 1)
    QTest.mouseClick(
        panel.seats.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        panel.seats.visualItemRect(last).center(),
    )
    assert session.seat == players - 1 and session.me is session.maps[-1]
    assert panel.total.text() == f"Seat {players} total: {result.scores[-1].total} VP"
    shown = [int(panel.score_tree.topLevelItem(i).text(2)) for i in range(panel.score_tree.topLevelItemCount())]
    assert shown == list(result.scores[-1].terms.values())
    window.view.grab()


def test_switching_modes_and_new_game_reset_every_seat(qtbot):
    window = _start(qtbot)
    panel = window.playtest.active
    _set_spin(panel.players_box, 3)
    assert panel.others_box.isEnabled()
    # no card played yet: choosing hot-seat deals the hot-seat game at once
    _choose_other_seats(panel, HOTSEAT)
    session = panel.session
    assert session.hotseat and session.players == 3 and session.seat == 0 and session.round == 1
    assert "Seat 1 starts" in panel.message.text()
    # seat 1 plays a card, then the mode is switched back: the game under way goes on
    index = next(i for i, c in enumerate(session.cards) if c.card != TRAP and session.options(c.card))
    _click_card(panel, index)
    room, mask = session.options(session.cards[index].card)[0]
    _place(window, room, mask)
    _choose_other_seats(panel, POLICY)
    assert panel.session is session and session.hotseat and len(session.moves) == 1
    assert "New Game" in panel.message.text()
    # the choice is remembered for the next playtest
    from editor.settings import settings

    assert settings().value(OTHER_SEATS_SETTING) == POLICY
    # New Game: the policy plays seats 2 and 3 again, every map empty, round 1 of the same seed
    QTest.mouseClick(panel.new_button, Qt.MouseButton.LeftButton)
    fresh = panel.session
    assert fresh is not session and not fresh.hotseat and len(fresh.opponents) == 2
    assert fresh.round == 1 and fresh.seat == 0 and fresh.moves == []
    assert all(not any(pm.seg) and not pm.traps and pm.tallies == 0 for pm in fresh.maps)
    assert fresh.reveals == session.reveals[:1]
    assert panel.next_button.text() == "Next Round"
    assert panel.turn_label.text().startswith("Your turn \u2014 ")
    assert panel.seat_rows()[0][0] == "You (seat 1)"
    # back to hot-seat (no card played: at once), play into round 2 and deal again from the menu
    _choose_other_seats(panel, HOTSEAT)
    game = panel.session
    assert game.hotseat and game is not fresh
    for seat in range(3):
        while game.pending():
            card = panel.current_card()
            options = game.options(card)
            if options:
                _place(window, *options[-1])
            else:
                QTest.mouseClick(panel.tally_button, Qt.MouseButton.LeftButton)
        _next(panel, "Next Seat" if seat < 2 else "Next Round")
    assert game.round == 2 and any(game.maps[2].seg)
    window.playtest.clear_action.trigger()  # Playtest > Clear Path / New Game
    again = panel.session
    assert again is not game and again.hotseat and again.round == 1 and again.seat == 0
    assert again.reveals == game.reveals[:1] and again.moves == []
    assert all(not any(pm.seg) and not pm.traps for pm in again.maps)
    assert [row[1] for row in panel.seat_rows()] == ["on turn", "to play", "to play"]
    # a restarted playtest opens on the remembered choice
    QTest.keyClick(window.view, Qt.Key.Key_F5)
    QTest.keyClick(window.view, Qt.Key.Key_F5)
    assert window.playtest.active is not panel and window.playtest.active.other_seats() == HOTSEAT
    assert isinstance(window.view.tool, GridPlaytestTool)


def test_hotseat_refuses_to_pass_or_end_the_round_early(qtbot):
    window = _start(qtbot)
    panel = _hotseat_game(window, 7, 2)
    session = panel.session
    assert not panel.next_button.isEnabled()
    assert session.next_seat() and session.next_round() and session.seat == 0  # refused
    _play_seat(window, panel)
    assert "press Next Seat" in panel.message.text()
    refused = session.next_round()
    assert refused and "Seat 2" in refused and session.round == 1
    _next(panel, "Next Seat")
    assert session.seat == 1 and "Seat 2's turn" in panel.message.text()
    assert session.next_seat() and session.seat == 1  # the last seat passes with Next Round only
    assert not panel.next_button.isEnabled() and panel.next_button.text() == "Next Round"


def test_enter_on_the_canvas_passes_to_the_next_seat_and_ends_the_round(qtbot):
    window = _start(qtbot)
    panel = _hotseat_game(window, 7, 2)
    session = panel.session
    viewport = window.view.viewport()
    QTest.keyClick(viewport, Qt.Key.Key_Return)  # too early: refused with a message
    assert session.seat == 0 and "not yet" in panel.message.text()
    for seat in (0, 1):
        _play_seat(window, panel)
        QTest.keyClick(viewport, Qt.Key.Key_Return)
        assert (session.seat, session.round) == ((1, 1) if seat == 0 else (0, 2))
    assert "(Enter)" in panel.next_button.toolTip()
