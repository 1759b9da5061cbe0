"""The grid-family rules engine (inkcrawl.engines.grid): legality, deck, traps, every scoring
term and every rules switch, with expected values worked out by hand from RULES.md 1.

The engine reads only game data (docs/game-data.md); the entries here are built by hand in
that format. The test board (4 x 3, every inner edge a passage except the wall B2|C2)::

            A        B        C          D
      1  >  .        loot     weapon A   monster A        (w1: west of A1; n1: north of C1)
                              ^n1
      2     dragon   .     |  monster B  weapon B
      3     loot     .        .          .                (s1: south of D3)
                                         v s1
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from conftest import PACKS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl.engines.grid import (
    DEFAULT_SWITCHES,
    Deck,
    GameDataError,
    GridRules,
    PlayerMap,
    PolicyError,
    mask_of,
    play_game,
    play_turn,
    rotate_mask,
    score_map,
    shape_rotations,
)
from inkcrawl.engines.grid_policies import POLICIES, GreedyPolicy, Policy, RandomPolicy, make_policy

SIDES = ("north", "east", "south", "west")
OFFSET = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
SEGMENTS = {
    "straight": ["north", "south"],
    "corner": ["north", "east"],
    "t_junction": ["west", "north", "east"],
    "cross": ["north", "east", "south", "west"],
    "dead_end": ["south"],
}
SCORING = [
    {"term": "loot", "label": "Loot rooms entered", "vp": 2},
    {"term": "dragon", "label": "Dragon room entered", "vp": 2, "mode": "one_loot"},
    {"term": "weapon", "label": "Weapon rooms entered", "vp": 1},
    {"term": "monster_matched", "label": "Monsters with their weapon", "vp": 4},
    {"term": "monster_unmatched", "label": "Monsters without their weapon", "vp": -2},
    {"term": "entryway_unlinked", "label": "Entryways not linked to your paths", "vp": 1},
    {"term": "tally", "label": "Tally marks", "vp": -2},
    {"term": "trap", "label": "Traps that hit you", "vp": -3},
]


def label(c: int, r: int) -> str:
    return "ABCDEFGHIJ"[c] + str(r + 1)


def grid_entry(
    columns: int,
    rows: int,
    walls=(),
    entryways=(),
    features=None,
    *,
    switches=None,
    deck=None,
    rounds: int = 7,
    reveal: int = 4,
    players=(1, 4),
    dungeon_id: str = "test-board",
) -> dict:
    """A grid dungeon entry in the game-data format. Every inner edge is a passage except
    ``walls`` (pairs of labels); ``entryways``: ``(id, label, side)``; ``features``:
    label -> kind or (kind, letter)."""
    walls = {frozenset(w) for w in walls}
    features = features or {}
    ways = [
        {"id": way_id, "cell": [ord(at[0]) - 65, int(at[1:]) - 1], "side": side, "label": at}
        for way_id, at, side in entryways
    ]
    rooms = []
    for r in range(rows):
        for c in range(columns):
            here = label(c, r)
            open_sides = []
            for side in SIDES:
                dc, dr = OFFSET[side]
                inside = 0 <= c + dc < columns and 0 <= r + dr < rows
                if inside and frozenset((here, label(c + dc, r + dr))) not in walls:
                    open_sides.append(side)
                elif any(w["label"] == here and w["side"] == side for w in ways):
                    open_sides.append(side)
            feature = features.get(here)
            if isinstance(feature, str):
                feature = {"id": f"{feature}-{here}", "kind": feature}
            elif feature is not None:
                feature = {"id": f"{feature[0]}-{feature[1]}", "kind": feature[0], "letter": feature[1]}
            rooms.append(
                {
                    "cell": [c, r],
                    "label": here,
                    "open": open_sides,
                    "entryways": [w["id"] for w in ways if w["label"] == here],
                    "feature": feature,
                }
            )
    all_switches = dict(DEFAULT_SWITCHES)
    all_switches.update(switches or {})
    scoring = copy.deepcopy(SCORING)
    scoring[1]["mode"] = all_switches["dragon_doubling"]
    if all_switches["segment_skip"] == "voluntary_tally":
        scoring.append({"term": "segment_skip", "label": "Segments skipped", "vp": all_switches["segment_skip_vp"]})
    return {
        "id": dungeon_id,
        "title": "Test board",
        "family": "grid",
        "ruleset": {"id": "grid-classic", "name": "Grid family, classic rules"},
        "players": {"min": players[0], "max": players[1]},
        "switches": all_switches,
        "scoring": scoring,
        "board": {
            "columns": columns,
            "rows": rows,
            "cell_mm": 24,
            "origin_mm": [21, 40],
            "column_labels": "letters",
            "row_labels": "numbers",
        },
        "rooms": rooms,
        "entryways": ways,
        "rounds": rounds,
        "reveal": reveal,
        "segments": copy.deepcopy(SEGMENTS),
        "deck": {
            "name": "test deck",
            "cards": deck
            or {"straight": 7, "corner": 8, "t_junction": 6, "cross": 3, "dead_end": 4, "trap": 6, "draw_two": 2},
        },
    }


def board(**switches) -> GridRules:
    """The 4 x 3 test board of the module docstring."""
    return GridRules(
        grid_entry(
            4,
            3,
            walls=[("B2", "C2")],
            entryways=[("w1", "A1", "west"), ("n1", "C1", "north"), ("s1", "D3", "south")],
            features={
                "B1": "loot",
                "C1": ("weapon", "A"),
                "D1": ("monster", "A"),
                "A2": "dragon",
                "C2": ("monster", "B"),
                "D2": ("weapon", "B"),
                "A3": "loot",
            },
            switches=switches,
        )
    )


def draw(rules: GridRules, pm: PlayerMap, shape: str, at: str, sides: list[str], round_number: int) -> None:
    """Draw a segment, asserting the engine finds it legal."""
    room, mask = rules.room(at), mask_of(sides)
    assert pm.is_legal_segment(shape, room, mask), f"{shape} {sides} in {at} should be legal"
    assert (room, mask) in pm.segment_options(shape)
    pm.place_segment(room, mask, round_number, shape)


def legal(rules: GridRules, pm: PlayerMap, shape: str, at: str, sides: list[str]) -> bool:
    return pm.is_legal_segment(shape, rules.room(at), mask_of(sides))


def full_map(rules: GridRules) -> PlayerMap:
    """A1 T (w1), B1 loot, A2 dragon, A3 loot, C1 weapon A, D1 monster A (round 4)."""
    pm = PlayerMap(rules)
    draw(rules, pm, "t_junction", "A1", ["west", "east", "south"], 1)
    draw(rules, pm, "straight", "B1", ["east", "west"], 1)
    draw(rules, pm, "straight", "A2", ["north", "south"], 2)
    draw(rules, pm, "dead_end", "A3", ["north"], 2)
    draw(rules, pm, "straight", "C1", ["east", "west"], 3)
    draw(rules, pm, "dead_end", "D1", ["west"], 4)
    return pm


# shapes and rotations ------------------------------------------------------------------------


def test_rotations_are_deduplicated_per_shape():
    counts = {name: len(shape_rotations(sides)) for name, sides in SEGMENTS.items()}
    assert counts == {"straight": 2, "corner": 4, "t_junction": 4, "cross": 1, "dead_end": 4}
    assert rotate_mask(mask_of(["north"]), 1) == mask_of(["east"])
    assert rotate_mask(mask_of(["north", "east"]), 3) == mask_of(["west", "north"])
    assert set(shape_rotations(["north", "east"])) == {
        mask_of(p) for p in (["north", "east"], ["east", "south"], ["south", "west"], ["west", "north"])
    }


def test_every_rotation_of_a_shape_can_be_drawn():
    rules = board()
    pm = PlayerMap(rules)
    # C1 has an entryway north and passages east, south and west: all four dead-end rotations fit,
    # but only the one on the entryway links
    options = [(rules.labels[room], sorted(sides_of(mask))) for room, mask in pm.segment_options("dead_end")]
    assert ("C1", ["north"]) in options and ("C1", ["east"]) not in options
    # the cross fits only C1 (A1 has a wall north, D3 a wall east)
    assert [(rules.labels[room], mask) for room, mask in pm.segment_options("cross")] == [("C1", 15)]


def sides_of(mask: int) -> list[str]:
    return [side for k, side in enumerate(SIDES) if mask & (1 << k)]


# placement legality --------------------------------------------------------------------------


def test_first_segment_must_be_on_an_entryway():
    rules = board()
    pm = PlayerMap(rules)
    assert not legal(rules, pm, "straight", "B1", ["east", "west"])  # passages, but no link
    assert not legal(rules, pm, "corner", "A1", ["east", "south"])  # entry room, end not on the arrow
    assert legal(rules, pm, "corner", "A1", ["west", "south"])
    rooms = {rules.labels[room] for room, _ in pm.segment_options("straight")}
    assert rooms == {"A1", "C1", "D3"}


def test_no_open_end_on_a_wall():
    rules = board()
    pm = PlayerMap(rules)
    assert not legal(rules, pm, "straight", "A1", ["north", "south"])  # north of A1 is the outer wall
    assert not legal(rules, pm, "t_junction", "D3", ["north", "east", "south"])  # east of D3 is the outer wall
    draw(rules, pm, "straight", "A1", ["west", "east"], 1)
    draw(rules, pm, "corner", "B1", ["west", "south"], 1)
    assert not legal(rules, pm, "t_junction", "B2", ["north", "east", "south"])  # B2|C2 is a wall
    assert legal(rules, pm, "t_junction", "B2", ["north", "west", "south"])
    # the dead end's closed side may face a wall
    assert legal(rules, pm, "dead_end", "B2", ["north"])


def test_linking_rule_needs_an_end_facing_an_end():
    rules = board()
    pm = PlayerMap(rules)
    draw(rules, pm, "corner", "A1", ["west", "south"], 1)
    # B1 is next to A1, but A1 has no end towards it
    assert not legal(rules, pm, "straight", "B1", ["east", "west"])
    assert legal(rules, pm, "straight", "A2", ["north", "south"])
    # an end facing a room whose segment has no end back does not link
    draw(rules, pm, "dead_end", "A2", ["north"], 1)
    assert not legal(rules, pm, "straight", "A3", ["north", "south"])
    # the same round counts: A1 drawn this round lets A2 be drawn this round (done above)
    # separate networks from different entryways are allowed
    draw(rules, pm, "dead_end", "D3", ["south"], 1)


def test_one_segment_per_room_and_own_trap_blocks_the_room():
    rules = board()
    pm = PlayerMap(rules)
    draw(rules, pm, "straight", "A1", ["west", "east"], 1)
    assert not legal(rules, pm, "t_junction", "A1", ["west", "east", "south"])
    assert all(rules.labels[room] != "A1" for room, _ in pm.segment_options("t_junction"))
    pm.place_trap(rules.room("B2"), 1)  # B2 is empty on this map
    draw(rules, pm, "corner", "B1", ["west", "south"], 2)
    assert not legal(rules, pm, "straight", "B2", ["north", "south"])


def test_traps_go_to_empty_rooms_only():
    rules = board()
    pm = PlayerMap(rules)
    empty = {rules.labels[i] for i in pm.trap_options()}
    assert empty == {"A1", "B2", "B3", "C3", "D3"}  # entryway rooms allowed, feature rooms not
    draw(rules, pm, "straight", "A1", ["west", "east"], 1)
    pm.place_trap(rules.room("B2"), 1)
    assert {rules.labels[i] for i in pm.trap_options()} == {"B3", "C3", "D3"}


def test_unplaceable_segment_is_a_tally_and_costs_two():
    # one room, open only to its entryway: a cross never fits
    rules = GridRules(grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"cross": 2}, rounds=1, reveal=2))
    result = play_game(rules, [RandomPolicy(rules)], seed=1)
    pm = result.maps[0]
    assert pm.tallies == 2 and not pm.entered()
    assert result.scores[0].terms["tally"] == -4
    assert result.scores[0].terms["entryway_unlinked"] == 1
    assert result.scores[0].total == -3


# deck ----------------------------------------------------------------------------------------


def stacked_deck(top_first: list[str], reshuffle: bool = True) -> Deck:
    deck = Deck([], random.Random(0), reshuffle)
    deck.cards = list(reversed(top_first))
    return deck


def test_draw_two_adds_two_cards_and_chains():
    deck = stacked_deck(["corner", "draw_two", "straight", "draw_two", "cross", "trap", "dead_end", "corner", "x"])
    assert deck.reveal(4) == ["corner", "straight", "cross", "trap", "dead_end", "corner"]
    assert deck.discards == ["draw_two", "draw_two"]
    assert deck.cards == ["x"]


def test_draw_two_at_the_end_of_the_reveal():
    deck = stacked_deck(["corner", "straight", "cross", "draw_two", "trap", "dead_end", "x"])
    assert deck.reveal(4) == ["corner", "straight", "cross", "trap", "dead_end"]


def test_a_deck_of_only_draw_two_cards_runs_out_instead_of_chaining_for_ever():
    deck = stacked_deck(["draw_two", "draw_two"], reshuffle=True)
    assert deck.reveal(4) == [] and deck.exhausted
    deck = stacked_deck(["straight", "draw_two", "draw_two"], reshuffle=True)
    assert deck.reveal(4) == ["straight"] and deck.exhausted


def test_solo_game_with_a_deck_of_traps_and_draw_twos_ends():
    # solo play removes the 30 traps: 3 straights and 2 Draw 2 remain, and the discards hold
    # only Draw 2 cards once the straights are out (this used to loop for ever)
    entry = grid_entry(
        4,
        3,
        entryways=[("w1", "A1", "west")],
        switches={"solo_removes_traps": True, "deck_exhausted": "reshuffle_discards"},
        deck={"straight": 3, "trap": 30, "draw_two": 2},
    )
    rules = GridRules(entry)
    result = play_game(rules, [make_policy("random", rules)], seed=3)
    assert result.rounds_played == 7
    # the discarded straights come back at each reshuffle; a Draw 2 never reveals a trap here
    assert {card for cards in result.reveals for card in cards} == {"straight"}


def test_deck_is_shuffled_by_the_seed():
    rules = board()
    a = play_game(rules, [RandomPolicy(rules)] * 2, seed=5).reveals
    assert a == play_game(rules, [RandomPolicy(rules)] * 2, seed=5).reveals
    assert a != play_game(rules, [RandomPolicy(rules)] * 2, seed=6).reveals
    assert len(a) == 7 and all(len(cards) >= 4 for cards in a)
    assert all("draw_two" not in cards for cards in a)


def test_switch_deck_exhausted():
    entry = dict(grid_entry(4, 3, entryways=[("w1", "A1", "west")], deck={"dead_end": 5}, rounds=7, reveal=2))
    ended = play_game(
        GridRules(dict(entry, switches=dict(entry["switches"], deck_exhausted="end_game"))),
        [RandomPolicy(GridRules(entry))],
        seed=3,
    )
    # rounds 1 and 2 reveal 2 cards each, round 3 only 1 and ends the game
    assert ended.rounds_played == 3 and [len(c) for c in ended.reveals] == [2, 2, 1]
    reshuffled = play_game(GridRules(entry), [RandomPolicy(GridRules(entry))], seed=3)
    # the discards come back: round 3 gets its second card from the 4 discarded ones
    assert reshuffled.rounds_played == 7 and [len(c) for c in reshuffled.reveals] == [2] * 7


def test_switch_solo_removes_traps():
    entry = grid_entry(2, 1, entryways=[("w1", "A1", "west")], deck={"trap": 3}, rounds=1, reveal=1)
    solo = play_game(GridRules(entry), [RandomPolicy(GridRules(entry))], seed=1)
    assert solo.reveals == [[]] and solo.maps[0].traps == []
    keep = GridRules(dict(entry, switches=dict(entry["switches"], solo_removes_traps=False)))
    game = play_game(keep, [RandomPolicy(keep)], seed=1)
    assert game.reveals == [["trap"]] and len(game.maps[0].traps) == 1
    two = play_game(GridRules(entry), [RandomPolicy(GridRules(entry))] * 2, seed=1)
    assert two.reveals == [["trap"]] and all(len(pm.traps) == 1 for pm in two.maps)


# traps ---------------------------------------------------------------------------------------


def test_trap_hits_each_opponent_once_per_trap():
    rules = board()
    me, left, right = PlayerMap(rules), PlayerMap(rules), PlayerMap(rules)
    draw(rules, me, "straight", "A1", ["west", "east"], 1)
    draw(rules, me, "corner", "B1", ["west", "south"], 2)
    draw(rules, me, "straight", "B2", ["north", "south"], 3)
    left.place_trap(rules.room("B2"), 1)
    right.place_trap(rules.room("B2"), 2)
    right.place_trap(rules.room("A1"), 4)
    right.place_trap(rules.room("C3"), 4)  # I have no segment there
    score = score_map(rules, me, [left, right])
    assert score.counts["trap"] == 3 and score.terms["trap"] == -9
    # my own traps never hit me
    me.place_trap(rules.room("C3"), 4)
    assert score_map(rules, me, [left, right]).terms["trap"] == -9
    assert score_map(rules, me, []).terms["trap"] == 0


def test_switch_trap_timing():
    maps = {}
    for timing in ("any_time", "later_segments_only"):
        rules = board(trap_timing=timing)
        me, other = PlayerMap(rules), PlayerMap(rules)
        draw(rules, me, "straight", "A1", ["west", "east"], 1)  # before the trap in A1 (round 2)
        draw(rules, me, "corner", "B1", ["west", "south"], 2)
        draw(rules, me, "straight", "B2", ["north", "south"], 2)  # same round as the trap in B2
        draw(rules, me, "dead_end", "B3", ["north"], 3)  # after the trap in B3 (round 2)
        for at in ("A1", "B2", "B3"):
            other.place_trap(rules.room(at), 2)
        maps[timing] = score_map(rules, me, [other])
    assert maps["any_time"].terms["trap"] == -9  # all three rooms
    assert maps["later_segments_only"].terms["trap"] == -3  # only B3, drawn in a later round
    assert maps["any_time"].total - maps["later_segments_only"].total == -6


def test_switch_no_trap_room():
    # the only room holds loot: a trap finds no empty room
    entry = grid_entry(
        1,
        1,
        entryways=[("w1", "A1", "west")],
        features={"A1": "loot"},
        deck={"trap": 1},
        rounds=1,
        reveal=1,
        switches={"solo_removes_traps": False},
    )
    skip = play_game(GridRules(entry), [RandomPolicy(GridRules(entry))], seed=0)
    assert skip.scores[0].terms["tally"] == 0 and skip.scores[0].total == 1  # the unlinked entryway
    tally_rules = GridRules(dict(entry, switches=dict(entry["switches"], no_trap_room="tally")))
    tally = play_game(tally_rules, [RandomPolicy(tally_rules)], seed=0)
    assert tally.maps[0].tallies == 1 and tally.scores[0].terms["tally"] == -2 and tally.scores[0].total == -1


# scoring terms -------------------------------------------------------------------------------


def test_term_loot():
    rules = board()
    score = score_map(rules, full_map(rules))
    assert score.counts["loot"] == 2 and score.terms["loot"] == 4


def test_term_weapon_and_matched_monster():
    rules = board()
    score = score_map(rules, full_map(rules))
    assert score.terms["weapon"] == 1
    assert score.terms["monster_matched"] == 4 and score.terms["monster_unmatched"] == 0


def test_term_monster_unmatched():
    rules = board()
    pm = PlayerMap(rules)
    draw(rules, pm, "straight", "D3", ["north", "south"], 1)
    draw(rules, pm, "t_junction", "D2", ["north", "south", "west"], 1)  # weapon B
    draw(rules, pm, "dead_end", "D1", ["south"], 2)  # monster A, no weapon A
    draw(rules, pm, "dead_end", "C2", ["east"], 2)  # monster B, weapon B
    score = score_map(rules, pm)
    assert score.terms["weapon"] == 1
    assert score.terms["monster_matched"] == 4
    assert score.terms["monster_unmatched"] == -2
    # w1 and n1 unlinked: +2; total 1 + 4 - 2 + 2
    assert score.terms["entryway_unlinked"] == 2 and score.total == 5


def test_term_entryway_unlinked_needs_an_end_on_the_arrow():
    rules = board()
    pm = PlayerMap(rules)
    draw(rules, pm, "straight", "A1", ["west", "east"], 1)
    draw(rules, pm, "straight", "B1", ["west", "east"], 1)
    draw(rules, pm, "t_junction", "C1", ["west", "east", "south"], 2)  # in n1's room, but not on its arrow
    score = score_map(rules, pm)
    assert score.counts["entryway_unlinked"] == 2 and score.terms["entryway_unlinked"] == 2
    assert score_map(rules, PlayerMap(rules)).terms["entryway_unlinked"] == 3


def test_term_tally_and_total():
    rules = board()
    pm = full_map(rules)
    pm.tallies = 3
    score = score_map(rules, pm)
    assert score.terms["tally"] == -6
    # loot 4, dragon 2, weapon 1, matched 4, entryways n1 and s1 unlinked 2, tallies -6
    assert score.total == 4 + 2 + 1 + 4 + 2 - 6
    assert list(score.terms) == [
        "loot",
        "dragon",
        "weapon",
        "monster_matched",
        "monster_unmatched",
        "entryway_unlinked",
        "tally",
        "trap",
    ]


def test_term_trap():
    rules = board()
    me, other = full_map(rules), PlayerMap(rules)
    other.place_trap(rules.room("A1"), 1)
    assert score_map(rules, me, [other]).terms["trap"] == -3


def test_term_dragon_default_doubles_one_loot_bag():
    rules = board()
    assert score_map(rules, full_map(rules)).terms["dragon"] == 2  # two loot bags, one doubled
    pm = PlayerMap(rules)
    draw(rules, pm, "corner", "A1", ["west", "south"], 1)
    draw(rules, pm, "dead_end", "A2", ["north"], 1)
    assert score_map(rules, pm).terms["dragon"] == 0  # dragon without loot doubles nothing


def test_switch_dragon_doubling():
    totals = {}
    for mode in ("one_loot", "all_loot", "best_item"):
        rules = board(dragon_doubling=mode)
        score = score_map(rules, full_map(rules))
        totals[mode] = (score.terms["dragon"], score.total)
    # base (no dragon): loot 4 + weapon 1 + matched 4 + entryways 2 = 11
    assert totals["one_loot"] == (2, 13)  # one bag: +2
    assert totals["all_loot"] == (4, 15)  # both bags again: +4
    assert totals["best_item"] == (4, 15)  # the matched monster (+4) is the best item
    # best_item without the monster: the best item is a loot bag (+2), not the weapon (+1)
    rules = board(dragon_doubling="best_item")
    pm = PlayerMap(rules)
    draw(rules, pm, "t_junction", "A1", ["west", "east", "south"], 1)
    draw(rules, pm, "straight", "B1", ["east", "west"], 1)
    draw(rules, pm, "dead_end", "A2", ["north"], 2)
    draw(rules, pm, "straight", "C1", ["east", "west"], 3)
    assert score_map(rules, pm).terms["dragon"] == 2
    # the dragon and only a weapon: +1
    pm = PlayerMap(rules)
    draw(rules, pm, "corner", "A1", ["west", "south"], 1)
    draw(rules, pm, "dead_end", "A2", ["north"], 1)
    draw(rules, pm, "dead_end", "C1", ["north"], 2)
    score = score_map(rules, pm)
    assert (score.terms["loot"], score.terms["weapon"], score.terms["dragon"]) == (0, 1, 1)
    # an unmatched monster is never doubled
    pm = PlayerMap(rules)
    draw(rules, pm, "corner", "A1", ["west", "south"], 1)
    draw(rules, pm, "dead_end", "A2", ["north"], 1)
    draw(rules, pm, "straight", "D3", ["north", "south"], 1)
    draw(rules, pm, "straight", "D2", ["north", "south"], 2)
    draw(rules, pm, "dead_end", "D1", ["south"], 3)
    score = score_map(rules, pm)
    assert (score.terms["monster_unmatched"], score.terms["weapon"], score.terms["dragon"]) == (-2, 1, 1)


def weapon_after_monster(rules: GridRules) -> PlayerMap:
    """Monster B (C2) in round 2, its weapon (D2) in round 3, one network from s1."""
    pm = PlayerMap(rules)
    draw(rules, pm, "t_junction", "D3", ["north", "west", "south"], 1)
    draw(rules, pm, "corner", "C3", ["east", "north"], 1)
    draw(rules, pm, "dead_end", "C2", ["south"], 2)
    draw(rules, pm, "dead_end", "D2", ["south"], 3)
    return pm


def weapon_in_another_network(rules: GridRules) -> PlayerMap:
    """Weapon A (C1) in round 1 alone from n1; monster A (D1) in round 3 from s1."""
    pm = PlayerMap(rules)
    draw(rules, pm, "dead_end", "C1", ["north"], 1)
    draw(rules, pm, "straight", "D3", ["north", "south"], 1)
    draw(rules, pm, "straight", "D2", ["north", "south"], 2)
    draw(rules, pm, "dead_end", "D1", ["south"], 3)
    return pm


def test_switch_weapon_order():
    results = {}
    for order in ("game_end", "same_network", "earlier_round"):
        rules = board(weapon_order=order)
        results[order] = (
            score_map(rules, weapon_after_monster(rules)),
            score_map(rules, weapon_in_another_network(rules)),
        )
    # weapon B in round 3 after monster B in round 2, same network
    after = {order: (s[0].terms["monster_matched"], s[0].terms["monster_unmatched"]) for order, s in results.items()}
    assert after == {"game_end": (4, 0), "same_network": (4, 0), "earlier_round": (0, -2)}
    # weapon A in round 1 in another network than monster A in round 3 (weapon B entered too)
    apart = {order: (s[1].terms["monster_matched"], s[1].terms["monster_unmatched"]) for order, s in results.items()}
    assert apart == {"game_end": (4, 0), "same_network": (0, -2), "earlier_round": (4, 0)}
    # the totals differ by exactly 6 (+4 -> -2)
    assert results["game_end"][0].total - results["earlier_round"][0].total == 6
    assert results["game_end"][1].total - results["same_network"][1].total == 6
    # weapon_in_another_network by hand: weapons A and B +2, monster A +4, w1 unlinked +1 -> 7
    assert results["game_end"][1].total == 7


class SkipPolicy(Policy):
    name = "skip"

    def choose(self, state, card, options, rng):
        return None if card != "trap" else options[0]


def test_switch_segment_skip():
    entry = grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"dead_end": 1}, rounds=1, reveal=1)
    rules = GridRules(entry)
    with pytest.raises(PolicyError):
        play_game(rules, [SkipPolicy(rules)], seed=0)
    placed = play_game(rules, [RandomPolicy(rules)], seed=0).scores[0]
    assert placed.total == 0 and "segment_skip" not in placed.terms  # the dead end links w1
    voluntary = GridRules(
        grid_entry(
            1,
            1,
            entryways=[("w1", "A1", "west")],
            deck={"dead_end": 1},
            rounds=1,
            reveal=1,
            switches={"segment_skip": "voluntary_tally"},
        )
    )
    skipped = play_game(voluntary, [SkipPolicy(voluntary)], seed=0).scores[0]
    assert skipped.terms["segment_skip"] == -2 and skipped.terms["entryway_unlinked"] == 1 and skipped.total == -1


def test_switch_segment_skip_vp_comes_from_the_data():
    entry = grid_entry(
        1,
        1,
        entryways=[("w1", "A1", "west")],
        deck={"dead_end": 1},
        rounds=1,
        reveal=1,
        switches={"segment_skip": "voluntary_tally", "segment_skip_vp": -5},
    )
    rules = GridRules(entry)
    assert play_game(rules, [SkipPolicy(rules)], seed=0).scores[0].terms["segment_skip"] == -5


def test_tie_is_shared():
    rules = GridRules(grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"dead_end": 1}, rounds=1, reveal=1))
    result = play_game(rules, [RandomPolicy(rules), GreedyPolicy(rules)], seed=0)
    assert [s.total for s in result.scores] == [0, 0] and result.winners == [0, 1]


# players, policies, data errors ---------------------------------------------------------------


def test_one_to_four_players_play_the_same_cards():
    rules = board()
    for players in (1, 2, 3, 4):
        result = play_game(rules, [RandomPolicy(rules)] * players, seed=11)
        assert len(result.maps) == players == len(result.scores)
        for pm in result.maps:
            drawn = [card for _, card, _, _ in pm.history]
            assert sorted(drawn) == sorted(card for cards in result.reveals for card in cards)
    with pytest.raises(ValueError):
        play_game(rules, [RandomPolicy(rules)] * 5, seed=1)


def test_greedy_beats_random_on_the_bundled_dungeons():
    from inkcrawl.gamedata import game_document
    from inkcrawl.loading import open_dungeons

    entry = game_document(open_dungeons([str(PACKS / "ember-halls")]).dungeons)["dungeons"][0]
    rules = GridRules(entry)
    greedy, rnd = make_policy("greedy", rules), make_policy("random", rules)
    totals = [0, 0]
    for seed in range(60):
        result = play_game(rules, [greedy, rnd], seed)
        totals[0] += result.scores[0].total
        totals[1] += result.scores[1].total
    assert totals[0] > totals[1] + 60 * 5


def test_policy_registry():
    assert {"random", "greedy"} <= set(POLICIES)
    rules = board()
    assert isinstance(make_policy("greedy", rules), GreedyPolicy)
    with pytest.raises(KeyError):
        make_policy("nope", rules)


def test_bad_game_data_is_refused():
    entry = grid_entry(2, 2, entryways=[("w1", "A1", "west")])
    with pytest.raises(GameDataError, match="weapon_order"):
        GridRules(dict(entry, switches=dict(entry["switches"], weapon_order="whenever")))
    with pytest.raises(GameDataError, match="misses"):
        GridRules(dict(entry, rooms=entry["rooms"][:-1]))
    with pytest.raises(GameDataError, match="'joker'"):
        GridRules(dict(entry, deck={"name": "d", "cards": {"joker": 1}}))
    with pytest.raises(GameDataError, match="not a grid"):
        GridRules(dict(entry, family="line"))


def test_engine_reads_a_game_document_alone(tmp_path):
    from inkcrawl.gamedata import game_document
    from inkcrawl.loading import open_dungeons

    document = game_document(open_dungeons([str(PACKS / "ember-halls")]).dungeons)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document))
    rules = GridRules.from_document(json.loads(path.read_text()), "cinder-vault")
    result = play_game(rules, [RandomPolicy(rules), GreedyPolicy(rules)], seed=2)
    assert result.rounds_played == 7 and len(result.scores) == 2


# property: random games only ever place legal segments ----------------------------------------


def brute_force_options(entry: dict, placed: dict, traps: set, shape: str) -> set:
    """Every legal (label, sides) of a shape, straight from RULES.md 1 (no engine code)."""
    rooms = {r["label"]: r for r in entry["rooms"]}
    cells = {tuple(r["cell"]): r["label"] for r in entry["rooms"]}
    ways = {(w["label"], w["side"]) for w in entry["entryways"]}
    base = SEGMENTS[shape]
    out = set()
    for at, room in rooms.items():
        if at in placed or at in traps:
            continue
        for quarter in range(4):
            sides = frozenset(SIDES[(SIDES.index(s) + quarter) % 4] for s in base)
            if not sides <= set(room["open"]):
                continue
            c, r = room["cell"]
            links = False
            for side in sides:
                if (at, side) in ways:
                    links = True
                dc, dr = OFFSET[side]
                other = cells.get((c + dc, r + dr))
                if other in placed and OPPOSITE[side] in placed[other]:
                    links = True
            if links:
                out.add((at, sides))
    return out


@st.composite
def random_boards(draw_):
    columns, rows = draw_(st.integers(1, 5)), draw_(st.integers(1, 5))
    inner = [(label(c, r), label(c + 1, r)) for r in range(rows) for c in range(columns - 1)]
    inner += [(label(c, r), label(c, r + 1)) for r in range(rows - 1) for c in range(columns)]
    walls = [edge for edge in inner if draw_(st.booleans())]
    outer = [(label(c, 0), "north") for c in range(columns)] + [(label(c, rows - 1), "south") for c in range(columns)]
    outer += [(label(0, r), "west") for r in range(rows)] + [(label(columns - 1, r), "east") for r in range(rows)]
    chosen = draw_(st.lists(st.sampled_from(outer), min_size=1, max_size=4, unique=True))
    ways = [(f"e{k}", at, side) for k, (at, side) in enumerate(chosen)]
    kinds = st.one_of(
        st.none(),
        st.sampled_from(["loot", "dragon", ("weapon", "A"), ("monster", "A"), ("weapon", "B"), ("monster", "B")]),
    )
    features = {label(c, r): f for r in range(rows) for c in range(columns) if (f := draw_(kinds)) is not None}
    return grid_entry(columns, rows, walls=walls, entryways=ways, features=features)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entry=random_boards(),
    seed=st.integers(0, 2**32),
    players=st.integers(1, 4),
    policy=st.sampled_from(["random", "greedy"]),
)
def test_games_only_place_legal_segments(entry, seed, players, policy):
    rules = GridRules(entry)
    result = play_game(rules, [make_policy(policy, rules)] * players, seed)
    for pm in result.maps:
        placed: dict[str, frozenset] = {}
        traps: set[str] = set()
        for _round_number, card, room, mask in pm.history:
            if card == "trap":
                empties = {r["label"] for r in entry["rooms"] if r["feature"] is None} - set(placed) - traps
                if room is None:
                    assert not empties
                else:
                    assert rules.labels[room] in empties
                    traps.add(rules.labels[room])
                continue
            options = brute_force_options(entry, placed, traps, card)
            if room is None:
                assert not options  # a tally only when nothing fits
                continue
            at, sides = rules.labels[room], frozenset(sides_of(mask))
            assert (at, sides) in options
            placed[at] = sides
        assert pm.tallies == sum(1 for _, card, room, _ in pm.history if room is None and card != "trap")


@settings(max_examples=40, deadline=None)
@given(entry=random_boards(), seed=st.integers(0, 2**32))
def test_generator_finds_every_legal_placement(entry, seed):
    rules = GridRules(entry)
    rng = random.Random(seed)
    pm = PlayerMap(rules)
    placed: dict[str, frozenset] = {}
    for step in range(12):
        shape = rng.choice(sorted(SEGMENTS))
        expected = brute_force_options(entry, placed, set(), shape)
        got = {(rules.labels[room], frozenset(sides_of(mask))) for room, mask in pm.segment_options(shape)}
        assert got == expected
        if not got:
            continue
        room, mask = rng.choice(pm.segment_options(shape))
        pm.place_segment(room, mask, 1 + step // 4, shape)
        placed[rules.labels[room]] = frozenset(sides_of(mask))


def test_play_turn_refuses_an_illegal_choice():
    rules = board()

    class Cheat(Policy):
        name = "cheat"

        def choose(self, state, card, options, rng):
            return (rules.room("B2"), mask_of(["north", "south"]))

    pm = PlayerMap(rules)
    pm.round = 1
    with pytest.raises(PolicyError):
        play_turn(pm, ["straight"], Cheat(rules), random.Random(0))


def test_inconsistent_open_sides_are_refused():
    entry = grid_entry(4, 3, entryways=[("w1", "A1", "west")])
    entry["rooms"][1]["open"].append("north")  # B1 open off the top of the board, no entryway there
    with pytest.raises(GameDataError, match="B1 is open to the north"):
        GridRules(entry)
    entry = grid_entry(4, 3, walls=[("A1", "B1")], entryways=[("w1", "A1", "west")])
    entry["rooms"][0]["open"].append("east")  # A1 open towards B1, which has a wall there
    with pytest.raises(GameDataError, match="not open back"):
        GridRules(entry)
    entry = grid_entry(4, 3, entryways=[("w1", "A1", "west")])
    entry["entryways"].append({"id": "x", "cell": [1, 1], "side": "east", "label": "B2"})
    with pytest.raises(GameDataError, match="not on an outer edge"):
        GridRules(entry)


# the simulation's fast path ------------------------------------------------------------------


def _map_state(pm: PlayerMap) -> tuple:
    return (
        pm.seg,
        pm.trap,
        pm.round_of,
        pm.link,
        pm.frontier,
        pm.empty,
        pm.is_empty,
        pm.tallies,
        pm.trap_tallies,
        pm.skips,
        pm.traps,
        pm.history,
        pm.segments_seen,
        pm.opponent_traps,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entry=random_boards(),
    seed=st.integers(0, 2**64 - 1),
    players=st.integers(1, 4),
    policy=st.sampled_from(["random", "greedy"]),
    skip=st.sampled_from(["forbidden", "voluntary_tally"]),
    no_room=st.sampled_from(["skip", "tally"]),
    deck=st.sampled_from([None, {"trap": 9, "dead_end": 3, "cross": 2, "draw_two": 2}]),
)
def test_bundled_policies_play_exactly_as_their_checked_subclasses(entry, seed, players, policy, skip, no_room, deck):
    # the engine does not check the moves of the bundled policies again (they choose among the
    # options it computed) and plays them through an inlined turn; a subclass, like any other
    # policy, goes through the checked turn: both must play the same game, move for move
    entry = copy.deepcopy(entry)
    entry["switches"].update(segment_skip=skip, no_trap_room=no_room, solo_removes_traps=False)
    if deck is not None:
        entry["deck"]["cards"] = deck
    rules = GridRules(entry)
    trusted = make_policy(policy, rules)
    checked = type("Checked", (type(trusted),), {})(rules)
    fast = play_game(rules, [trusted] * players, seed)
    slow = play_game(rules, [checked] * players, seed)
    assert fast.reveals == slow.reveals and fast.winners == slow.winners
    assert [s.terms for s in fast.scores] == [s.terms for s in slow.scores]
    assert [_map_state(pm) for pm in fast.maps] == [_map_state(pm) for pm in slow.maps]
    for pm in fast.maps:  # every segment card revealed was seen once
        assert pm.segments_seen == sum(1 for cards in fast.reveals for card in cards if card != "trap")


def test_a_subclass_of_a_bundled_policy_is_still_checked():
    rules = board()

    class Cheat(RandomPolicy):
        def choose(self, state, card, options, rng):
            return (rules.room("B2"), mask_of(["north", "south"])) if card != "trap" else options[0]

    class Reorder(GreedyPolicy):
        def order(self, state, cards, rng):
            return ["cross"] * len(cards)

    for policy in (Cheat(rules), Reorder(rules)):
        with pytest.raises(PolicyError):
            play_game(rules, [policy], seed=1)


def test_a_bundled_policy_whose_moves_were_replaced_is_checked_again(monkeypatch):
    # on the instance: choose replaced by a placement that is not among the options; on the class:
    # order replaced by cards that were not revealed. Both are checked as any other policy is.
    rules = board()
    patched = RandomPolicy(rules)
    patched.choose = lambda state, card, options, rng: (  # type: ignore[method-assign]
        (rules.room("B2"), mask_of(["north", "south"])) if card != "trap" else options[0]
    )
    with pytest.raises(PolicyError):
        play_game(rules, [patched], seed=1)
    monkeypatch.setattr(GreedyPolicy, "order", lambda self, state, cards, rng: ["cross"] * len(cards))
    with pytest.raises(PolicyError):
        play_game(rules, [GreedyPolicy(rules)], seed=1)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), size=st.integers(0, 300))
def test_the_deck_is_shuffled_as_random_shuffle_does(seed, size):
    cards = [f"c{k}" for k in range(size)]
    expected = list(cards)
    random.Random(seed).shuffle(expected)
    assert Deck(cards, random.Random(seed), True).cards == expected


def test_reveal_takes_the_top_cards_top_first():
    deck = stacked_deck(["corner", "straight", "cross", "trap"])
    assert deck.reveal(4) == ["corner", "straight", "cross", "trap"] and deck.cards == [] and not deck.exhausted
    deck = stacked_deck(["corner", "straight", "cross", "trap", "dead_end"])
    assert deck.reveal(0) == [] and deck.reveal(2) == ["corner", "straight"]
    assert deck.cards == ["dead_end", "trap", "cross"]


def test_deck_list_is_a_new_list_each_time():
    rules = board()
    first = rules.deck_list(2)
    first.clear()
    assert len(rules.deck_list(2)) == sum(count for _, count in rules.deck_cards)


def test_opponent_traps_count_the_other_players_traps_of_earlier_rounds():
    rules = board()
    seen: list[list[list[int]]] = []

    def on_round(round_number, maps):
        seen.append([list(pm.opponent_traps) for pm in maps])

    result = play_game(rules, [RandomPolicy(rules)] * 3, seed=4, on_round=on_round)
    # the seed draws traps in two rounds before the last: counts change, then stay
    assert sorted({r for pm in result.maps for _, r in pm.traps}) == [2, 4]
    for r, counts in enumerate(seen, start=1):
        for p, row in enumerate(counts):
            expected = [0] * rules.size
            for q, pm in enumerate(result.maps):
                for room, trap_round in pm.traps:
                    if q != p and trap_round < r:
                        expected[room] += 1
            assert row == expected, (r, p)
