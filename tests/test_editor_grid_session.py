"""The grid-family playtest game without Qt: :class:`editor.playtest.grid_session.GridSession`.

The session is played here card by card, as the Playtest dock plays it, with no window and no
QApplication, and compared with the engine's ``play_game`` on the same seed and choices. The
games played by mouse are in test_editor_playtest.py and test_editor_playtest_hotseat.py.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from conftest import REPO

from editor.playtest.grid_session import HOTSEAT, POLICY, GridSession
from inkcrawl.engines.grid import TRAP, GridRules, PolicyError, play_game
from inkcrawl.engines.grid_policies import make_policy
from inkcrawl.gamedata import grid_game_data
from inkcrawl.loading import open_dungeons

GRID_DUNGEON = REPO / "content/packs/ember-halls/dungeons/cinder-vault.json"


def _grid_rules() -> GridRules:
    """The engine's rules compiled straight from the file, as ``inkcrawl simulate`` does."""
    opened = open_dungeons([str(GRID_DUNGEON)]).dungeons[0]
    return GridRules(grid_game_data(opened.dungeon, opened.ruleset, opened.deck))


class _Choices:
    """A policy replaying one seat's recorded moves ``(round, card, choice)`` through the engine."""

    name = "replay"

    def __init__(self, moves):
        self.moves = list(moves)
        self.queue = []

    def order(self, state, cards, rng):
        self.queue = [m for m in self.moves if m[0] == state.round]
        return [m[1] for m in self.queue]

    def choose(self, state, card, options, rng):
        move = self.queue.pop(0)
        while move[2] is None and move[1] != card:  # tallies are not asked for
            move = self.queue.pop(0)
        if move[1] != card:
            raise PolicyError("out of step")
        return move[2]


def _play_seat(session: GridSession, chooser: random.Random) -> None:
    """Draw every pending card of the seat on turn: a random legal place, else a tally mark."""
    while session.pending():
        index = chooser.choice(session.pending())
        options = session.options(session.cards[index].card)
        if not options:
            choice = None
        elif session.cards[index].card == TRAP:
            choice = chooser.choice(options)[0]
        else:
            choice = chooser.choice(options)
        assert session.play(index, choice) is None


def test_the_session_module_imports_no_qt():
    code = (
        "import sys, editor.playtest.grid_session; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("seed,players", [(3, 1), (9, 2)])
def test_a_game_against_the_policy_equals_play_game(seed, players):
    rules = _grid_rules()
    session = GridSession(rules, seed, players, POLICY)
    chooser = random.Random(seed)
    while not session.finished:
        _play_seat(session, chooser)
        assert session.advance() is None
    moves = [(m.round, m.card, m.choice) for m in session.moves]
    policies = [_Choices(moves)] + [make_policy("greedy", rules) for _ in range(players - 1)]
    result = play_game(rules, policies, seed)
    assert session.reveals == result.reveals and session.round == result.rounds_played
    for mine, theirs in zip(session.maps, result.maps):
        assert mine.seg == theirs.seg and mine.traps == theirs.traps and mine.tallies == theirs.tallies
    assert session.scores() == result.scores and session.winners() == result.winners


def test_a_hotseat_game_equals_play_game():
    rules, seed, players = _grid_rules(), 21, 3
    session = GridSession(rules, seed, players, HOTSEAT)
    assert session.hotseat and session.opponents == []
    chooser = random.Random(seed)
    while not session.finished:
        for seat in range(players):
            assert session.seat == seat
            _play_seat(session, chooser)
            assert session.advance() is None
    policies = [_Choices([(m.round, m.card, m.choice) for m in session.moves if m.seat == p]) for p in range(players)]
    result = play_game(rules, policies, seed)
    assert session.reveals == result.reveals
    for mine, theirs in zip(session.maps, result.maps):
        assert mine.seg == theirs.seg and mine.traps == theirs.traps and mine.history == theirs.history
    assert session.scores() == result.scores and session.winners() == result.winners
    assert session.show_seat(players - 1) is None and session.me is session.maps[-1]


def test_the_session_refuses_what_the_rules_do_not_allow():
    rules = _grid_rules()
    with pytest.raises(ValueError, match="players"):
        GridSession(rules, 1, 9)
    with pytest.raises(ValueError, match="other seats"):
        GridSession(rules, 1, 2, "robots")
    session = GridSession(rules, 4, 1)
    index = next(i for i, c in enumerate(session.cards) if c.card != TRAP)
    card = session.cards[index].card
    legal = {room for room, _ in session.options(card)}
    room = next(r for r in range(rules.size) if r not in legal)
    refused = session.play(index, (room, rules.shapes[card][0]))
    assert refused == session.why_not(card, room) and rules.labels[room] in refused
    assert session.moves == [] and not any(session.me.seg)
    assert "Draw every revealed card first" in session.next_round()
    assert session.next_seat() == "The other seats are played by the policy"
    assert session.show_seat(0) == "Seats take turns while the game runs"


def test_a_played_session_written_down_as_a_sheet_scores_what_the_session_scores():
    # the designer's seat plays the first legal place of every card (a tally when there is none)
    # against the policy for 2 rounds; the sheet of that seat scores exactly its score now
    from inkcrawl.engines.grid.sheet import score_sheet
    from inkcrawl.schema import schema_problems

    rules = _grid_rules()
    session = GridSession(rules, seed=5, players=2)
    for _ in range(2):
        for index, card in enumerate(session.cards):
            if card.done:
                continue
            options = session.options(card.card)
            choice = None if not options else (options[0][0] if card.card == TRAP else options[0])
            assert session.play(index, choice) is None
        session.advance()
    sheet = session.sheet(0)
    assert schema_problems(sheet, "grid-play", "sheet.json") == []
    assert sheet["segments"] and sheet["player"]
    assert score_sheet(rules, sheet).score.total == session.score(0).total
