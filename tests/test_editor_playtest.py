"""Playtest in the editor (issue #5, "Playtest"), driven by simulated mouse and keys offscreen.

Line family: the path drawn with the mouse is refereed exactly as the referee scores the same
points on game data compiled independently from the file; Escape and Clear reset; portal jumps.
Grid family: the revealed cards are the engine's deck order for the seed; clicks place legal
segments and the score equals the engine's for the same moves (replayed through play_game);
illegal clicks are refused with a message. Playtesting never edits the dungeon.
"""

from __future__ import annotations

import json
import random

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from editor.playtest.grid import GridPlaytestTool
from editor.playtest.line import LinePlaytestTool
from inkcrawl.engines.grid import TRAP, Deck, GridRules, PolicyError, play_game
from inkcrawl.engines.grid_policies import make_policy
from inkcrawl.engines.line import LineRules, referee
from inkcrawl.gamedata import grid_game_data, line_game_data
from inkcrawl.loading import open_dungeons
from tests.editor_support import GRID_DUNGEON, LINE_DUNGEON, LINE_PACK, click, drag, make_window, view_point

DESCENT = LINE_PACK / "dungeons/04-lantern-kings-descent.json"


def _line_rules(path) -> LineRules:
    """The referee's rules compiled straight from the file, as ``inkcrawl score`` does."""
    opened = open_dungeons([str(path)]).dungeons[0]
    return LineRules(line_game_data(opened.dungeon, opened.ruleset))


def _grid_rules(path) -> GridRules:
    opened = open_dungeons([str(path)]).dungeons[0]
    return GridRules(grid_game_data(opened.dungeon, opened.ruleset, opened.deck))


def _press_f5(window) -> None:
    """Press F5 in the window, as the user would (the shortcut of Start/Stop Playtest)."""
    window.activateWindow()
    QTest.qWaitForWindowActive(window)
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F5)


def _start(qtbot, path, zoom: float = 2.0):
    window = make_window(qtbot, path)
    window.view.set_zoom(zoom)
    window.view.setFocus()
    _press_f5(window)
    assert window.playtest.playing, window.playtest.reason.text()
    return window


def _draw(window, points, steps: int = 6) -> None:
    """Draw a path through ``points`` (mm): one drag per stretch, each press continuing it."""
    for a, b in zip(points, points[1:]):
        window.view.centerOn(QPointF(*a))
        drag(window.view, a, b, steps=steps)


# -- line family ------------------------------------------------------------------------------


def test_menu_action_has_shortcut_in_tooltip_and_dock(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    action = window.playtest.action
    assert action in window.menu("Playtest").actions()
    assert action.shortcut().toString() == "F5"
    assert "(F5)" in action.toolTip()
    assert window.playtest.dock.windowTitle() == "Playtest"


def test_line_path_drawn_with_the_mouse_is_refereed_like_the_referee(qtbot):
    window = _start(qtbot, LINE_DUNGEON)
    panel = window.playtest.active
    assert isinstance(window.view.tool, LinePlaytestTool)
    assert panel.total.text() == "Total: \u2014"
    panel.character_box.setCurrentIndex(panel.character_box.findData("ranger"))
    # the Candlewick Cellars example of docs/play-files.md
    points = [(50, 35), (50, 45), (60, 64), (76, 64), (84, 56), (116, 56)]
    _draw(window, points)
    session = panel.session
    assert len(session.polylines) == 1
    drawn = session.polylines[0]
    for point in points:  # the path passes within a screen pixel or two of every corner
        assert min(abs(x - point[0]) + abs(y - point[1]) for x, y in drawn) < 1.0
    play = {
        "type": "play",
        "format_version": 1,
        "dungeon": "candlewick-cellars",
        "character": "ranger",
        "path": [[list(p) for p in line] for line in session.polylines],
    }
    expected = referee(_line_rules(LINE_DUNGEON), play)
    assert session.result == expected
    assert panel.total.text() == f"Total: {expected['total']} VP"
    shown = panel.section_texts()
    assert len([t for t in shown if t[0].isdigit()]) == len(expected["sections"]) == 2
    assert shown[0].startswith("1. Room r1 (Wax Store), from Start st1")
    assert shown[1].startswith("2. Corridor c1 (Drip Passage), through an opening")
    # the same path through the documented corners scores as the documentation says
    ideal = referee(_line_rules(LINE_DUNGEON), {**play, "path": [[list(p) for p in points]]})
    assert ideal["total"] == expected["total"] == 3
    # the character changes the referee's reading at once
    panel.character_box.setCurrentIndex(0)
    assert session.result == referee(_line_rules(LINE_DUNGEON), {**play, "character": None})
    assert session.result["total"] == 1


def test_line_escape_and_clear_reset_the_path(qtbot):
    window = _start(qtbot, LINE_DUNGEON)
    panel = window.playtest.active
    _draw(window, [(50, 35), (50, 60), (70, 60)])
    assert panel.session.result is not None and panel.tree.topLevelItemCount() > 0
    QTest.keyClick(window.view, Qt.Key.Key_Escape)
    assert panel.session.polylines == [] and panel.session.result is None
    assert panel.tree.topLevelItemCount() == 0 and panel.total.text() == "Total: \u2014"
    assert window.playtest.playing  # Escape clears, it does not stop
    _draw(window, [(50, 35), (50, 60)])
    assert panel.session.polylines
    QTest.mouseClick(panel.clear_button, Qt.MouseButton.LeftButton)
    assert panel.session.polylines == [] and panel.tree.topLevelItemCount() == 0


def test_line_breakdown_updates_while_the_button_is_held(qtbot):
    window = _start(qtbot, LINE_DUNGEON)
    panel = window.playtest.active
    viewport = window.view.viewport()
    window.view.centerOn(60, 50)
    QTest.mousePress(
        viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(window.view, 50, 35)
    )
    for y in range(36, 62, 2):
        QTest.mouseMove(viewport, view_point(window.view, 50, y))
    qtbot.waitUntil(lambda: panel.session.result is not None, timeout=15_000)  # throttled, not on release
    assert panel.session.drawing and panel.total.text().startswith("Total: ")
    assert panel.section_texts()[0].startswith("1. Room r1")
    QTest.mouseRelease(
        viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view_point(window.view, 50, 62)
    )
    assert not panel.session.drawing


def test_line_path_must_begin_at_a_start(qtbot):
    window = _start(qtbot, LINE_DUNGEON)
    panel = window.playtest.active
    window.view.centerOn(100, 70)
    drag(window.view, (100, 70), (110, 70))
    assert panel.session.polylines == []
    assert "begins at a Start" in panel.message.text() and "st1 at (50, 35)" in panel.message.text()
    assert window.statusBar().currentMessage() == panel.message.text()


def test_line_portal_jump_and_breakdown(qtbot):
    window = _start(qtbot, DESCENT)
    panel = window.playtest.active
    first = [(42, 35), (50, 70), (53, 73), (62, 61), (90, 61), (118, 66), (130, 51), (158, 54), (164, 69)]
    _draw(window, first)
    session = panel.session
    assert session.lifted_at is not None and session.lifted_at.id == "pe1"
    assert "portal entry pe1" in panel.hint.text()
    # pressing anywhere but an exit of the channel is refused
    window.view.centerOn(100, 200)
    click(window.view, 100, 200)
    assert len(session.polylines) == 1 and "exit of channel" in panel.message.text()
    second = [(31, 140), (50, 143), (66, 128), (64, 114)]
    _draw(window, second)
    assert len(session.polylines) == 2 and session.polylines[1][0] == pytest.approx(second[0], abs=1.0)
    play = {
        "type": "play",
        "format_version": 1,
        "dungeon": "lantern-kings-descent",
        "path": [[list(p) for p in line] for line in session.polylines],
    }
    expected = referee(_line_rules(DESCENT), play)
    assert session.result == expected
    assert any(line["kind"] == "portal" for s in expected["sections"] for line in s["lines"])
    assert any("through portal" in t for t in panel.section_texts())


def test_line_playtest_never_edits_the_dungeon(qtbot, tmp_path):
    window = make_window(qtbot, LINE_DUNGEON)
    document = window.current
    before, count = document.canonical_text(), document.undo_stack.count()
    window.view.set_zoom(2.0)
    _press_f5(window)
    assert window.playtest.playing
    monster = next(e for e in document.dungeon.elements if e.kind == "monster")
    window.view.centerOn(*monster.at)
    drag(window.view, monster.at, (monster.at[0] + 20, monster.at[1] + 10))  # would move it with Select
    _draw(window, [(50, 35), (50, 60), (70, 60)])
    QTest.keyClick(window.view, Qt.Key.Key_Escape)
    window.playtest.ask_play_path = lambda suggested: str(tmp_path / suggested)
    _draw(window, [(50, 35), (50, 60)])
    QTest.mouseClick(window.playtest.active.save_button, Qt.MouseButton.LeftButton)
    saved = json.loads((tmp_path / "candlewick-cellars.play.json").read_text(encoding="utf-8"))
    assert referee(_line_rules(LINE_DUNGEON), saved) == window.playtest.active.session.result
    assert document.canonical_text() == before and document.undo_stack.count() == count
    assert not document.modified
    _press_f5(window)
    assert not window.playtest.playing
    assert window.view.tool is window.tool and window.tool.spec.id == "select"
    assert document.canonical_text() == before and document.undo_stack.count() == count


def test_playtest_stops_when_the_dungeon_or_the_tool_changes(qtbot):
    window = make_window(qtbot, LINE_PACK)
    assert len(window.documents) > 1
    window.view.setFocus()
    _press_f5(window)
    assert window.playtest.playing
    window.set_current(window.documents[1])
    assert not window.playtest.playing
    assert not isinstance(window.view.tool, LinePlaytestTool)
    assert "another dungeon" in window.playtest.reason.text()
    assert window.playtest.start()
    document = window.current
    monster = next(e for e in document.dungeon.elements if e.kind == "monster")
    from editor.dungeon.edits import MoveObjects

    document.push(MoveObjects(document.dungeon, [monster.id], 5, 0))  # e.g. the inspector edits it
    assert not window.playtest.playing and "dungeon changed" in window.playtest.reason.text()
    window.action("undo").trigger()
    assert window.playtest.start()
    window.tool_actions["select"].trigger()
    assert not window.playtest.playing and window.view.tool is window.tool


def test_unplayable_dungeon_shows_the_reason(qtbot):
    from editor.dungeon.document import new_document

    window = make_window(qtbot, LINE_DUNGEON)
    data = window.current.dungeon.to_dict()
    data["id"] = "no-start"
    data["elements"] = [e for e in data["elements"] if e["kind"] != "start"]
    window.add_document(new_document(data, window.current.ruleset, window.current.registry))
    before = window.current.canonical_text()
    _press_f5(window)
    assert not window.playtest.playing
    reason = window.playtest.reason.text()
    assert "cannot be playtested" in reason and "no Start" in reason
    assert "Validation errors" in reason
    assert window.current.canonical_text() == before and window.current.undo_stack.count() == 0
    assert not isinstance(window.view.tool, LinePlaytestTool)


# -- grid family ------------------------------------------------------------------------------


class _Replay:
    """Plays the designer's recorded moves again through the engine's play_game."""

    name = "replay"

    def __init__(self, moves):
        self.moves = list(moves)
        self.queue = []

    def order(self, state, cards, rng):
        self.queue = [m for m in self.moves if m.round == state.round]
        return [m.card for m in self.queue]

    def choose(self, state, card, options, rng):
        while self.queue[0].outcome in ("tally", "no_room"):
            self.queue.pop(0)
        move = self.queue.pop(0)
        if move.card != card:
            raise PolicyError("out of step")
        return move.choice


def _room_centre(window, room: int) -> tuple[float, float]:
    grid = window.current.dungeon.grid
    rules = window.playtest.active.rules
    col, row = rules.cells[room]
    return (grid.origin_mm[0] + (col + 0.5) * grid.cell_mm, grid.origin_mm[1] + (row + 0.5) * grid.cell_mm)


def _new_game(window, seed: int, players: int):
    panel = window.playtest.active
    panel.seed_box.setValue(seed)
    panel.players_box.setValue(players)
    QTest.mouseClick(panel.new_button, Qt.MouseButton.LeftButton)
    return panel


def _play_card_by_mouse(window, chooser: random.Random) -> None:
    """Draw the selected card: click a legal room (turning it with R to the wanted rotation),
    or press Tally Mark when it has no legal place."""
    panel = window.playtest.active
    session = panel.session
    card = panel.current_card()
    options = session.options(card)
    if not options:
        assert panel.tally_button.isEnabled()
        QTest.mouseClick(panel.tally_button, Qt.MouseButton.LeftButton)
        return
    assert not panel.tally_button.isEnabled()
    room, mask = chooser.choice(options)
    x, y = _room_centre(window, room)
    QTest.mouseMove(window.view.viewport(), view_point(window.view, x, y))
    if card != TRAP:
        masks = session.masks_in(card, room)
        for _ in range(masks.index(mask)):
            QTest.keyClick(window.view, Qt.Key.Key_R)
        assert window.view.tool.preview() == (card, mask, True)
    click(window.view, x, y)


@pytest.mark.parametrize("seed,players", [(7, 1), (11, 2)])
def test_grid_game_by_mouse_matches_the_engine(qtbot, seed, players):
    window = _start(qtbot, GRID_DUNGEON, zoom=0.5)
    document = window.current
    before, count = document.canonical_text(), document.undo_stack.count()
    assert isinstance(window.view.tool, GridPlaytestTool)
    panel = _new_game(window, seed, players)
    rules = _grid_rules(GRID_DUNGEON)
    deck = Deck(rules.deck_list(players), random.Random(seed), rules.reshuffle)
    first = deck.reveal(rules.reveal)
    assert [c.card for c in panel.session.cards] == first
    assert [t.split(" \u2014")[0] for t in panel.card_texts()] == [
        {"t_junction": "T junction", "dead_end": "Dead end"}.get(c, c.capitalize()) for c in first
    ]
    assert panel.round_label.text().startswith(f"Round 1 of {rules.rounds}")
    chooser = random.Random(seed)
    while not panel.session.finished:
        while panel.session.pending():
            moves = len(panel.session.moves)
            _play_card_by_mouse(window, chooser)
            assert len(panel.session.moves) == moves + 1, panel.message.text()
        QTest.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
    policies = [_Replay(panel.session.moves)] + [make_policy("greedy", rules) for _ in range(players - 1)]
    result = play_game(rules, policies, seed)
    assert panel.session.reveals == result.reveals
    assert panel.session.me.seg == result.maps[0].seg and panel.session.me.tallies == result.maps[0].tallies
    score = panel.session.score()
    assert score == result.scores[0]
    assert panel.total.text() == f"Total: {result.scores[0].total} VP"
    shown = {
        panel.score_tree.topLevelItem(i).text(0): panel.score_tree.topLevelItem(i).text(2)
        for i in range(panel.score_tree.topLevelItemCount())
    }
    assert shown["Tally marks"] == (f"{score.terms['tally']:+d}" if score.terms["tally"] else "0")
    assert sum(int(v) for v in shown.values()) == score.total
    assert "Game over" in panel.round_label.text()
    assert document.canonical_text() == before and document.undo_stack.count() == count


def test_grid_click_places_a_legal_rotation_and_turning_cycles(qtbot):
    window = _start(qtbot, GRID_DUNGEON, zoom=0.5)
    panel = _new_game(window, 3, 1)
    tool = window.view.tool
    session = panel.session
    index = next(i for i, c in enumerate(session.cards) if c.card != TRAP and session.options(c.card))
    panel.cards.setCurrentRow(index)
    card = session.cards[index].card
    room = max(set(r for r, _ in session.options(card)), key=lambda r: len(session.masks_in(card, r)))
    masks = session.masks_in(card, room)
    x, y = _room_centre(window, room)
    QTest.mouseMove(window.view.viewport(), view_point(window.view, x, y))
    assert tool.hover == room and tool.preview() == (card, masks[0], True)
    seen = []
    for _ in range(len(masks)):
        seen.append(tool.preview()[1])
        click(window.view, x, y, button=Qt.MouseButton.RightButton)
    assert sorted(seen) == sorted(masks) and tool.preview()[1] == masks[0]
    wheel = QWheelEvent(
        QPointF(view_point(window.view, x, y)),
        QPointF(window.view.mapToGlobal(view_point(window.view, x, y))),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    zoom = window.view.zoom()
    QApplication.sendEvent(window.view.viewport(), wheel)
    assert window.view.zoom() == zoom  # the wheel turned the segment instead of zooming
    wanted = tool.preview()[1]
    assert wanted == masks[1 % len(masks)]
    click(window.view, x, y)
    assert session.me.seg[room] == wanted and session.cards[index].done.startswith("drawn in")
    assert session.me.round_of[room] == 1
    assert session.score() == _score_now(session)
    window.view.grab()  # the segment and the preview paint without error


def _score_now(session):
    from inkcrawl.engines.grid import score_map

    return score_map(session.rules, session.me, session.maps[1:])


def test_grid_illegal_click_is_refused_with_a_message(qtbot):
    window = _start(qtbot, GRID_DUNGEON, zoom=0.5)
    panel = _new_game(window, 5, 1)
    session = panel.session
    index = next(i for i, c in enumerate(session.cards) if c.card != TRAP)
    panel.cards.setCurrentRow(index)
    card = session.cards[index].card
    legal = {r for r, _ in session.options(card)}
    room = next(r for r in range(session.rules.size) if r not in legal)
    x, y = _room_centre(window, room)
    QTest.mouseMove(window.view.viewport(), view_point(window.view, x, y))
    assert window.view.tool.preview()[2] is False
    click(window.view, x, y)
    assert session.moves == [] and not any(session.me.seg)
    assert session.rules.labels[room] in panel.message.text()
    assert "link" in panel.message.text() or "fit" in panel.message.text()
    assert window.statusBar().currentMessage() == panel.message.text()
    # a placeable segment cannot be tallied, and the round cannot end early
    QTest.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
    assert session.round == 1
    assert session.play(index, None) and session.moves == []


def test_grid_unplaceable_segment_takes_a_tally_mark(qtbot):
    from editor.dungeon.document import new_document

    window = make_window(qtbot, GRID_DUNGEON)
    data = window.current.dungeon.to_dict()
    data["id"] = "walled-in"
    data["passages"] = []  # every room walled: only dead ends fit, and only on an entryway
    window.add_document(new_document(data, window.current.ruleset, window.current.registry))
    window.view.setFocus()
    _press_f5(window)
    assert window.playtest.playing
    panel = window.playtest.active
    session = panel.session
    index = next(i for i, c in enumerate(session.cards) if c.card not in (TRAP, "dead_end"))
    panel.cards.setCurrentRow(index)
    assert session.options(session.cards[index].card) == []
    assert panel.tally_button.isEnabled() and "Tally Mark" in panel.message.text()
    QTest.mouseClick(panel.tally_button, Qt.MouseButton.LeftButton)
    assert session.me.tallies == 1 and session.cards[index].done == "tally mark"
    assert session.score().terms["tally"] == session.rules.vp["tally"]


def test_on_a_short_window_the_grid_panel_scrolls_instead_of_overlapping_its_rows(qtbot):
    window = _start(qtbot, GRID_DUNGEON, zoom=0.5)
    window.resize(1200, 560)
    panel = _new_game(window, 3, 3)
    qtbot.wait(50)
    rows = [panel.layout().itemAt(i).widget() for i in range(panel.layout().count())]
    shown = [w for w in rows if w is not None and w.isVisible()]
    assert len(shown) >= 6
    for upper, lower in zip(shown, shown[1:]):
        assert upper.geometry().bottom() < lower.geometry().top(), (upper.objectName(), lower.objectName())
    scroll = window.playtest.scroll
    assert scroll.verticalScrollBar().maximum() > 0  # the rest is a scroll away


def test_the_grid_playtest_saves_its_sheet_for_inkcrawl_score(qtbot, tmp_path, capsys):
    # a game played by mouse for two rounds, saved with Save Sheet...: inkcrawl score gives the
    # panel's score for the seat back
    from inkcrawl.cli import main

    window = _start(qtbot, GRID_DUNGEON, zoom=0.5)
    panel = _new_game(window, 3, 2)
    chooser = random.Random(3)
    for _ in range(2):
        while panel.session.pending():
            _play_card_by_mouse(window, chooser)
        QTest.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
    window.playtest.ask_play_path = lambda suggested: str(tmp_path / suggested)
    QTest.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    saved = tmp_path / f"{panel.session.rules.id}.sheet.json"
    assert saved.is_file(), panel.message.text()
    expected = panel.session.score(0).total
    assert main(["score", str(GRID_DUNGEON), str(saved), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == expected
