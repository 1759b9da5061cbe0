"""Rule checks of the grid family (G001-G017), one mutation of a valid fixture per test.

The fixtures are described in tests/dungeon_builders.py: a 3x3 dungeon for the small test
ruleset ``grid-test`` and a 7x7 dungeon for the bundled ``grid-classic``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dungeon_builders import (
    FILE,
    add,
    assert_codes,
    check,
    classic_grid_dungeon,
    find,
    grid_dungeon,
    grid_registry,
    grid_ruleset_data,
    pack_deck,
)

from inkcrawl.checks.grid import deck_problems
from inkcrawl.problems import Severity
from inkcrawl.rulesets import Ruleset, bundled_rulesets

EMBER_HALLS = Path(__file__).resolve().parent.parent / "content" / "packs" / "ember-halls"


def feature_index(data: dict, feature_id: str) -> int:
    return next(i for i, f in enumerate(data["features"]) if f["id"] == feature_id)


def passage_index(data: dict, cell, side: str) -> int:
    return next(i for i, p in enumerate(data["passages"]) if p["cell"] == list(cell) and p["side"] == side)


def remove_passages(data: dict, *edges) -> None:
    for cell, side in edges:
        del data["passages"][passage_index(data, cell, side)]


# -- valid fixtures -----------------------------------------------------------------------------


def test_valid_small_grid_has_no_problem():
    assert check(grid_dungeon()) == []


def test_valid_classic_grid_has_no_problem():
    assert check(classic_grid_dungeon()) == []


def test_valid_classic_grid_with_each_ember_halls_deck_has_no_problem():
    for index in range(2):
        assert check(classic_grid_dungeon(), deck=pack_deck(EMBER_HALLS, index)) == []


# -- G001 feature counts --------------------------------------------------------------------------


def test_g001_missing_dragon():
    data = grid_dungeon()
    del data["features"][feature_index(data, "d1")]
    problems = check(data)
    assert_codes(problems, ["G001"])
    p = find(problems, "G001", "/features")
    assert "0 dragon" in p.message and "requires 1" in p.message and "grid-test" in p.message


def test_g001_too_much_loot():
    data = grid_dungeon()
    add(data, "features", {"id": "l2", "kind": "loot", "cell": [0, 2]})
    problems = check(data)
    assert_codes(problems, ["G001"])
    assert "2 loot" in find(problems, "G001", "/features").message


def test_g001_weapon_count_range_is_inclusive():
    # grid-test allows 1 to 2 weapons and monsters: one pair only is fine
    data = grid_dungeon()
    for feature_id in ("wB", "mB"):
        del data["features"][feature_index(data, feature_id)]
    assert check(data) == []


def test_g001_classic_needs_four_loot():
    data = classic_grid_dungeon()
    del data["features"][feature_index(data, "loot3")]
    problems = check(data)
    assert_codes(problems, ["G001"])
    p = find(problems, "G001", "/features")
    assert "3 loot" in p.message and "requires 4" in p.message and "grid-classic" in p.message


def test_g001_classic_needs_six_monsters():
    data = classic_grid_dungeon()
    add(data, "features", {"id": "mA2", "kind": "monster", "cell": [6, 6], "letter": "A"})
    problems = check(data)
    # a seventh monster is too many; it also repeats letter A
    assert_codes(problems, ["G001", "G004"])
    assert "7 monster" in find(problems, "G001", "/features").message


# -- G002 / G003 / G004 letters ---------------------------------------------------------------------


def test_g002_weapon_without_monster():
    data = grid_dungeon()
    del data["features"][feature_index(data, "mB")]
    problems = check(data)
    assert_codes(problems, ["G002"])
    p = find(problems, "G002", f"/features/{feature_index(data, 'wB')}/letter")
    assert "weapon 'wB'" in p.message and "letter B" in p.message


def test_g003_monster_without_weapon():
    data = grid_dungeon()
    del data["features"][feature_index(data, "wB")]
    problems = check(data)
    assert_codes(problems, ["G003"])
    p = find(problems, "G003", f"/features/{feature_index(data, 'mB')}/letter")
    assert "monster 'mB'" in p.message and "letter B" in p.message


def test_g004_duplicate_letters():
    data = grid_dungeon()
    data["features"][feature_index(data, "wB")]["letter"] = "A"
    data["features"][feature_index(data, "mB")]["letter"] = "A"
    problems = check(data)
    assert_codes(problems, ["G004", "G004"])
    weapon = find(problems, "G004", "/features/3/letter")
    assert "weapon 'wB'" in weapon.message and "letter A" in weapon.message and "'wA'" in weapon.message
    monster = find(problems, "G004", "/features/5/letter")
    assert "monster 'mB'" in monster.message and "'mA'" in monster.message


# -- G005 one feature per room ------------------------------------------------------------------------


def test_g005_two_features_in_a_room():
    data = grid_dungeon()
    data["features"][feature_index(data, "l1")]["cell"] = [1, 0]  # into the dragon's room B1
    problems = check(data)
    assert_codes(problems, ["G005"])
    p = find(problems, "G005", "/features/1/cell")
    assert "dragon 'd1'" in p.message and "B1" in p.message and "loot 'l1'" in p.message


# -- G006 / G007 / G016 entryways -------------------------------------------------------------------------


def test_g006_entryway_on_inner_edge():
    data = grid_dungeon()
    data["entryways"][1] = {"id": "e2", "cell": [1, 1], "side": "east"}
    problems = check(data)
    assert_codes(problems, ["G006"])
    p = find(problems, "G006", "/entryways/1/side")
    assert "entryway 'e2'" in p.message and "B2" in p.message


def test_g007_too_few_entryways():
    data = grid_dungeon()
    del data["entryways"][1]
    problems = check(data)
    assert_codes(problems, ["G007"])
    p = find(problems, "G007", "/entryways")
    assert "1 entryways" in p.message and "requires 2" in p.message


def test_g007_classic_needs_six_entryways():
    data = classic_grid_dungeon()
    add(data, "entryways", {"id": "w2", "cell": [0, 6], "side": "west"})
    problems = check(data)
    assert_codes(problems, ["G007"])
    assert "7 entryways" in find(problems, "G007", "/entryways").message


def test_g016_two_entryways_on_one_edge():
    data = grid_dungeon()
    data["entryways"][1] = {"id": "e2", "cell": [0, 0], "side": "west"}  # e1's edge
    problems = check(data)
    assert_codes(problems, ["G016"])
    p = find(problems, "G016", "/entryways/1")
    assert "entryway 'e2'" in p.message and "'e1'" in p.message


def test_entryway_on_a_corner_room_north_side_is_outer():
    data = grid_dungeon()
    data["entryways"][1] = {"id": "e2", "cell": [0, 0], "side": "north"}  # same room, other edge
    assert check(data) == []


# -- G008 / G015 passages -----------------------------------------------------------------------------------


def test_g008_passage_on_outer_edge():
    data = grid_dungeon()
    index = add(data, "passages", {"cell": [1, 2], "side": "south"})
    problems = check(data)
    assert_codes(problems, ["G008"])
    p = find(problems, "G008", f"/passages/{index}")
    assert "south side of room B3" in p.message


def test_passage_on_outer_edge_at_an_entryway_is_allowed():
    data = grid_dungeon()
    add(data, "passages", {"cell": [0, 0], "side": "west"})  # under entryway e1
    assert check(data) == []


def test_g015_same_edge_listed_twice():
    data = grid_dungeon()
    first = passage_index(data, [0, 0], "east")
    index = add(data, "passages", {"cell": [1, 0], "side": "west"})  # the same edge, seen from B1
    problems = check(data)
    assert_codes(problems, ["G015"])
    p = find(problems, "G015", f"/passages/{index}")
    assert p.severity is Severity.WARNING
    assert "west side of room B1" in p.message and f"/passages/{first}" in p.message


# -- G009 cells outside the grid ---------------------------------------------------------------------------


def test_g009_passage_outside_grid():
    data = grid_dungeon()
    index = add(data, "passages", {"cell": [5, 5], "side": "east"})
    problems = check(data)
    assert_codes(problems, ["G009"])
    assert "[5, 5]" in find(problems, "G009", f"/passages/{index}/cell").message


def test_g009_entryway_outside_grid():
    data = grid_dungeon()
    data["entryways"][1] = {"id": "e2", "cell": [3, 2], "side": "east"}
    problems = check(data)
    assert_codes(problems, ["G009"])
    p = find(problems, "G009", "/entryways/1/cell")
    assert "entryway 'e2'" in p.message and "3x3" in p.message


def test_g009_feature_outside_grid():
    data = grid_dungeon()
    data["features"][feature_index(data, "mB")]["cell"] = [4, 4]
    problems = check(data)
    assert_codes(problems, ["G009"])
    p = find(problems, "G009", "/features/5/cell")
    assert "monster 'mB'" in p.message and "[4, 4]" in p.message


# -- G010 / G011 reachability -----------------------------------------------------------------------------


def test_g010_feature_rooms_walled_off():
    data = grid_dungeon()
    # B1 and C1 stay joined to each other, but no passage leads to them
    remove_passages(data, ([0, 0], "east"), ([1, 0], "south"), ([2, 0], "south"))
    problems = check(data)
    assert_codes(problems, ["G010", "G010"])
    dragon = find(problems, "G010", "/features/1")
    assert "dragon 'd1'" in dragon.message and "B1" in dragon.message
    weapon = find(problems, "G010", "/features/2")
    assert "weapon 'wA'" in weapon.message and "C1" in weapon.message


def test_g010_entryway_room_reaches_itself():
    # A1 (loot) loses both passages but keeps its entryway; the rest is reached from e2
    data = grid_dungeon()
    remove_passages(data, ([0, 0], "east"), ([0, 0], "south"))
    assert check(data) == []


def test_g011_isolated_empty_room():
    data = grid_dungeon()
    remove_passages(data, ([0, 1], "south"), ([0, 2], "east"))  # A3 is empty
    problems = check(data)
    assert_codes(problems, ["G011"])
    p = find(problems, "G011", "/passages")
    assert p.severity is Severity.WARNING and "room A3" in p.message


def test_g010_and_g011_for_an_isolated_feature_room():
    data = grid_dungeon()
    remove_passages(data, ([0, 0], "east"), ([1, 0], "east"), ([1, 0], "south"))
    problems = check(data)
    assert_codes(problems, ["G010", "G011"])
    assert "dragon 'd1'" in find(problems, "G010", "/features/1").message
    assert "room B1" in find(problems, "G011", "/passages").message


# -- G012 / G013 / G014 deck ----------------------------------------------------------------------------------


def test_g012_more_traps_than_empty_rooms():
    problems = check(grid_dungeon(), deck={"straight": 4, "corner": 4, "trap": 4, "draw_two": 1})
    assert_codes(problems, ["G012"])
    p = find(problems, "G012", "/features")
    assert p.severity is Severity.WARNING and "4 trap" in p.message and "only 3 rooms" in p.message


def test_g012_traps_equal_to_empty_rooms_is_fine():
    assert check(grid_dungeon(), deck={"straight": 4, "corner": 4, "trap": 3, "draw_two": 1}) == []


def test_g012_from_the_ruleset_deck():
    data = grid_ruleset_data()
    data["deck"]["trap"] = 5
    problems = check(grid_dungeon(), registry=grid_registry(data))
    assert_codes(problems, ["G012"])


def test_bundled_pack_decks_are_sound():
    classic = bundled_rulesets()["grid-classic"]
    for index in range(2):
        assert deck_problems(pack_deck(EMBER_HALLS, index), classic, FILE, f"/decks/{index}/cards") == []


def test_g013_deck_too_small():
    # 2 rounds x 2 cards; the Draw 2 takes one revealed place and brings two cards: 4 + 1 = 5
    ruleset = Ruleset(grid_ruleset_data())
    problems = deck_problems({"straight": 3, "trap": 1, "draw_two": 1}, ruleset, FILE, "/decks/0/cards")
    assert_codes(problems, ["G013"])
    p = find(problems, "G013", "/decks/0/cards")
    assert "4 segment and trap cards" in p.message and "at least 5" in p.message


def test_g013_deck_just_big_enough():
    ruleset = Ruleset(grid_ruleset_data())
    assert deck_problems({"straight": 4, "trap": 1, "draw_two": 1}, ruleset, FILE, "/decks/0/cards") == []


def test_g013_classic_pack_deck_one_card_short():
    classic = bundled_rulesets()["grid-classic"]  # 7 rounds x 4 + 1 per Draw 2 (2 of them) = 30
    cards = dict(pack_deck(EMBER_HALLS, 0))
    playable = sum(n for card, n in cards.items() if card != "draw_two")
    cards["straight"] -= playable - 29
    problems = deck_problems(cards, classic, FILE, "/decks/0/cards")
    assert_codes(problems, ["G013"])
    assert "29 segment and trap cards" in problems[0].message and "at least 30" in problems[0].message


def test_g013_deck_without_segment_cards():
    ruleset = Ruleset(grid_ruleset_data())
    problems = deck_problems({"trap": 6}, ruleset, FILE, "/decks/0/cards")
    assert_codes(problems, ["G013"])
    assert "no segment cards" in problems[0].message


def test_g014_unknown_card():
    ruleset = Ruleset(grid_ruleset_data())
    problems = deck_problems({"straight": 6, "spiral": 1}, ruleset, FILE, "/decks/0/cards")
    assert_codes(problems, ["G014"])
    assert "'spiral'" in find(problems, "G014", "/decks/0/cards/spiral").message


# -- G017 printability ------------------------------------------------------------------------------------------


def test_g017_grid_off_paper():
    data = grid_dungeon()
    data["grid"]["origin_mm"] = [150, 20]  # 150 + 3 x 20 = 210 > 200 (210 mm paper, 10 mm margin)
    problems = check(data)
    assert_codes(problems, ["G017"])
    assert "150..210" in find(problems, "G017", "/grid").message


def test_g017_grid_fits_exactly():
    data = grid_dungeon()
    data["grid"]["origin_mm"] = [140, 227]  # right edge 200, bottom edge 287
    assert check(data) == []


def test_g017_cells_below_minimum():
    data = grid_dungeon()
    data["grid"]["cell_mm"] = 10  # grid-test prints rooms of at least 12 mm
    problems = check(data)
    assert_codes(problems, ["G017"])
    assert "10 mm" in find(problems, "G017", "/grid/cell_mm").message


@pytest.mark.parametrize(
    "mutate, code",
    [
        (lambda d: d["features"].pop(1), "G001"),
        (lambda d: d["entryways"].pop(1), "G007"),
    ],
)
def test_grid_problems_are_errors(mutate, code):
    data = grid_dungeon()
    mutate(data)
    problems = check(data)
    assert [p.severity for p in problems if p.code == code] == [Severity.ERROR]


def test_g013_unknown_cards_do_not_count_as_playable():
    ruleset = Ruleset(grid_ruleset_data())  # needs 2 x 2 + 2 x 1 = 6 segment/trap cards
    problems = deck_problems({"straight": 4, "spiral": 2, "draw_two": 1}, ruleset, FILE, "/decks/0/cards")
    assert_codes(problems, ["G013", "G014"])
    assert "4 segment and trap cards" in find(problems, "G013", "/decks/0/cards").message


def test_g015_duplicate_passage_under_an_entryway():
    data = grid_dungeon()
    add(data, "passages", {"cell": [0, 0], "side": "west"})  # under entryway e1: allowed once
    index = add(data, "passages", {"cell": [0, 0], "side": "west"})
    problems = check(data)
    assert_codes(problems, ["G015"])
    find(problems, "G015", f"/passages/{index}")
