"""Grid play files: a finished grid sheet scored term by term (inkcrawl.engines.grid.sheet,
schemas/grid-play.schema.json, ``inkcrawl score``), illegal sheets refused naming the room and
the rule. Expected values are worked out by hand from RULES.md 1 on the 4 x 3 test board of
tests/test_grid_engine.py::

            A        B        C          D
      1  >  .        loot     weapon A   monster A        (w1: west of A1; n1: north of C1)
                              ^n1
      2     dragon   .     |  monster B  weapon B
      3     loot     .        .          .                (s1: south of D3)
                                         v s1

Shapes (base ends): straight north-south, corner north-east, t_junction west-north-east, cross,
dead_end south; a rotation turns them clockwise (90: north -> east).
"""

from __future__ import annotations

import copy
import json

import pytest
from conftest import REPO
from test_grid_engine import board

from inkcrawl.cli import main
from inkcrawl.engines.grid.sheet import SheetError, format_sheet, score_sheet, sheet_of_map
from inkcrawl.schema import schema_problems

#: The sheet worked out in the module docstring's terms:
#: A1 straight turned 90 (west-east): its west end on the entryway w1 links;
#: B1 corner turned 180 (south-west): west links to A1's east end; B1 is the loot;
#: B2 straight (north-south): north links to B1's south end;
#: C1 corner (north-east): north on the entryway n1; C1 is weapon A;
#: D1 dead_end turned 90 (west): links to C1's east end; D1 is monster A, with its weapon;
#: a trap in D3 (empty), one tally mark, an opponent's trap in B1 (which holds a segment).
SHEET = {
    "type": "grid-play",
    "format_version": 1,
    "dungeon": "test-board",
    "player": "Ada",
    "segments": [
        {"round": 1, "room": "A1", "shape": "straight", "rotation": 90},
        {"round": 1, "room": "B1", "shape": "corner", "rotation": 180},
        {"round": 2, "room": "B2", "shape": "straight"},
        {"round": 2, "room": "C1", "shape": "corner"},
        {"round": 3, "room": "D1", "shape": "dead_end", "rotation": 90},
    ],
    "traps": [{"round": 3, "room": "D3"}],
    "tally": 1,
    "opponent_traps": [{"round": 2, "room": "B1"}, {"round": 4, "room": "A3"}],
}


def test_the_sheet_is_valid_by_its_schema():
    assert schema_problems(SHEET, "grid-play", "sheet.json") == []
    bad = {**SHEET, "segments": [{"round": 0, "room": "A1", "shape": "straight", "rotation": 45}]}
    pointers = {p.pointer for p in schema_problems(bad, "grid-play", "sheet.json")}
    assert pointers == {"/segments/0/round", "/segments/0/rotation"}


def test_every_term_of_a_hand_scored_sheet():
    result = score_sheet(board(), SHEET)
    assert result.entered == ["A1", "B1", "C1", "D1", "B2"]
    # loot B1 +2; weapon C1 +1; monster D1 with weapon A +4; entryway s1 unlinked +1;
    # one tally -2; the opponent's trap in B1 hits (A3 holds no segment) -3: total 3
    assert result.score.terms == {
        "loot": 2,
        "dragon": 0,
        "weapon": 1,
        "monster_matched": 4,
        "monster_unmatched": 0,
        "entryway_unlinked": 1,
        "tally": -2,
        "trap": -3,
    }
    assert result.score.total == 3
    text = format_sheet(result)
    assert "Dungeon test-board (Ada): 5 room(s) entered" in text and text.endswith("Total: 3 VP")
    assert "  +4  monster rooms entered with their weapon: 1" in text


def test_the_dragon_doubles_a_loot_bag():
    # A1 drawn as a t_junction turned 180 (east, south, west) instead: west on w1, east to B1,
    # south to A2; the dragon room A2 then takes a dead_end turned 180 (north), linking to A1.
    # C2 (straight, north-south) links to nothing: C1's corner has no south end, C3 is empty.
    sheet = copy.deepcopy(SHEET)
    sheet["segments"][0] = {"round": 1, "room": "A1", "shape": "t_junction", "rotation": 180}
    sheet["segments"].append({"round": 4, "room": "A2", "shape": "dead_end", "rotation": 180})
    sheet["segments"].append({"round": 4, "room": "C2", "shape": "straight"})
    with pytest.raises(SheetError) as refused:
        score_sheet(board(), sheet)
    assert refused.value.problems == [
        (
            "/segments/6",
            "round 4, straight (north, south): in room C2 no end links to an entryway or to an end of an "
            "earlier segment",
        )
    ]
    del sheet["segments"][6]
    result = score_sheet(board(), sheet)
    # the dragon room A2 entered doubles one loot bag (one_loot): +2 more: total 5
    assert result.score.terms["dragon"] == 2 and result.score.total == 5


@pytest.mark.parametrize(
    "change, pointer, message",
    [
        (
            {"segments": [{"round": 1, "room": "B2", "shape": "straight"}]},
            "/segments/0",
            "round 1, straight (north, south): in room B2 no end links: the first segment must link to an entryway",
        ),
        (
            {
                "segments": [
                    {"round": 1, "room": "A1", "shape": "straight", "rotation": 90},
                    {"round": 1, "room": "B1", "shape": "corner", "rotation": 180},
                    {"round": 2, "room": "B2", "shape": "corner"},
                ]
            },
            "/segments/2",
            "round 2, corner (north, east): in room B2 its end on the east side meets a wall (every open end "
            "must meet a passage or an entryway)",
        ),
        (
            {
                "segments": [
                    {"round": 1, "room": "A1", "shape": "straight", "rotation": 90},
                    {"round": 2, "room": "A1", "shape": "straight", "rotation": 90},
                ]
            },
            "/segments/1",
            "round 2, straight (east, west): room A1 already holds a segment (one segment per room)",
        ),
        (
            {"traps": [{"round": 1, "room": "B1"}]},
            "/traps/0",
            "round 1: room B1 holds a loot (a trap goes in an empty room)",
        ),
        (
            {"traps": [{"round": 2, "room": "A1"}]},
            "/traps/0",
            "round 2: room A1 is not empty (a trap goes in a room with no segment or trap)",
        ),
        (
            {"traps": [{"round": 9, "room": "D3"}]},
            "/traps/0/round",
            "round 9 is not a round of this game (1 to 7)",
        ),
        (
            {"segments": [{"round": 1, "room": "Z9", "shape": "straight"}]},
            "/segments/0/room",
            "room 'Z9' is not on this dungeon's grid (rooms A1 to D3)",
        ),
        (
            {"segments": [{"round": 1, "room": "A1", "shape": "hook"}]},
            "/segments/0/shape",
            "unknown segment shape 'hook' (this dungeon's: corner, cross, dead_end, straight, t_junction)",
        ),
    ],
)
def test_an_illegal_sheet_is_refused_naming_the_room_and_the_rule(change, pointer, message):
    sheet = {**SHEET, "traps": [], "opponent_traps": [], **change}
    with pytest.raises(SheetError) as refused:
        score_sheet(board(), sheet)
    assert (pointer, message) in refused.value.problems, refused.value.problems


def test_a_trap_drawn_before_a_segment_in_a_later_round_keeps_the_room():
    sheet = {**SHEET, "traps": [{"round": 1, "room": "B2"}], "opponent_traps": []}
    with pytest.raises(SheetError) as refused:
        score_sheet(board(), sheet)
    assert refused.value.problems == [
        ("/segments/2", "round 2, straight (north, south): room B2 holds a trap (a trap's room takes no segment)")
    ]


def test_trap_timing_later_segments_only():
    # the opponent's trap in B1 came in round 2; this sheet's B1 segment in round 1 is not later: no hit
    result = score_sheet(board(trap_timing="later_segments_only"), SHEET)
    assert result.score.terms["trap"] == 0 and result.score.total == 6


def _game_file(tmp_path, entry: dict):
    from inkcrawl.gamedata import GAME_FORMAT_VERSION

    game = {"type": "game", "format_version": GAME_FORMAT_VERSION, "generator": "tests", "dungeons": [entry]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game), encoding="utf-8")
    return path


def test_inkcrawl_score_scores_a_grid_sheet(tmp_path, capsys):
    sheet_path = tmp_path / "sheet.json"
    sheet_path.write_text(json.dumps(SHEET), encoding="utf-8")
    game = _game_file(tmp_path, grid_entry_of_board())
    assert main(["score", str(game), str(sheet_path)]) == 0
    out = capsys.readouterr().out
    assert "Total: 3 VP" in out
    assert main(["score", str(game), str(sheet_path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["type"] == "grid-score" and data["total"] == 3
    assert {t["term"]: t["vp"] for t in data["terms"]}["monster_matched"] == 4


def test_inkcrawl_score_refuses_an_illegal_grid_sheet(tmp_path, capsys):
    sheet = {**SHEET, "traps": [{"round": 1, "room": "B1"}]}
    sheet_path = tmp_path / "sheet.json"
    sheet_path.write_text(json.dumps(sheet), encoding="utf-8")
    game = _game_file(tmp_path, grid_entry_of_board())
    assert main(["score", str(game), str(sheet_path)]) == 1
    err = capsys.readouterr().err
    assert f"{sheet_path}:/traps/0: error round 1: room B1 holds a loot (a trap goes in an empty room)" in err
    assert "Traceback" not in err


def grid_entry_of_board() -> dict:
    return board().entry


@pytest.mark.parametrize("seed", [1, 7, 42])
def test_a_simulated_game_written_down_scores_what_the_simulator_scored(seed, tmp_path, capsys):
    # the bundled grid dungeon, two greedy players: each player's map transcribed as a sheet
    # scores through inkcrawl score exactly what play_game scored
    from inkcrawl.cli.common import load_games
    from inkcrawl.engines.grid import GridRules, play_game
    from inkcrawl.engines.grid_policies import make_policy

    path = next(iter(sorted((REPO / "content" / "packs" / "ember-halls" / "dungeons").glob("*.json"))))
    entries, status = load_games([str(path)])
    assert status is None
    rules = GridRules(entries[0])
    result = play_game(rules, [make_policy("greedy", rules), make_policy("random", rules)], seed)
    for p, pm in enumerate(result.maps):
        sheet = sheet_of_map(rules, pm, [o for o in result.maps if o is not pm])
        assert schema_problems(sheet, "grid-play", "sheet.json") == []
        assert score_sheet(rules, sheet).score.total == result.scores[p].total
        sheet_path = tmp_path / f"sheet-{p}.json"
        sheet_path.write_text(json.dumps(sheet), encoding="utf-8")
        assert main(["score", str(path), str(sheet_path), "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["total"] == result.scores[p].total
