"""Checks common to both families (C001-C007), one mutation of a valid fixture per test."""

from __future__ import annotations

import copy
import json

import pytest
from dungeon_builders import (
    FILE,
    add,
    add_door,
    add_key,
    assert_codes,
    check,
    classic_grid_dungeon,
    codes,
    describe_problems,
    disc,
    find,
    grid_dungeon,
    grid_registry,
    grid_ruleset_data,
    line_dungeon,
)

from inkcrawl.rulesets import bundled_rulesets, ruleset_consistency_problems
from inkcrawl.validate import RulesetRegistry, validate_paths


def test_valid_fixtures_have_no_problem():
    assert check(grid_dungeon()) == []
    assert check(classic_grid_dungeon()) == []
    assert check(line_dungeon()) == []


# -- C001 duplicate ids ---------------------------------------------------------------------------------------


def test_c001_two_elements_share_an_id():
    data = line_dungeon()
    data["elements"][3]["id"] = "m1"  # the treasure takes the monster's id
    problems = check(data)
    assert_codes(problems, ["C001"])
    p = find(problems, "C001", "/elements/3")
    assert "treasure 'm1' (\"Iron Chest\")" in p.message and "/elements/1" in p.message


def test_c001_wall_and_area_share_an_id():
    data = line_dungeon()
    data["walls"][0]["id"] = "r1"
    problems = check(data)
    assert_codes(problems, ["C001"])
    p = find(problems, "C001", "/walls/0")
    assert "wall 'r1'" in p.message and "/areas/0" in p.message


def test_c001_three_objects_share_an_id():
    data = line_dungeon()
    data["areas"][1]["id"] = "r1"
    data["elements"][2]["id"] = "r1"
    problems = check(data)
    assert_codes(problems, ["C001", "C001"])
    assert "corridor 'r1'" in find(problems, "C001", "/areas/1").message
    assert "plant 'r1'" in find(problems, "C001", "/elements/2").message


def test_c001_grid_entryway_and_feature_share_an_id():
    data = grid_dungeon()
    data["entryways"][1]["id"] = "l1"
    problems = check(data)
    assert_codes(problems, ["C001"])
    # entryways come before features in file order, so the loot is the duplicate
    p = find(problems, "C001", "/features/0")
    assert "loot 'l1' (\"Coin purse\")" in p.message and "/entryways/1" in p.message


def test_ids_are_case_sensitive():
    data = line_dungeon()
    data["elements"][3]["id"] = "M1"
    assert check(data) == []


# -- C002 unknown ruleset ----------------------------------------------------------------------------------------


def test_c002_unknown_ruleset():
    data = line_dungeon()
    data["ruleset"] = "line-deluxe"
    problems = check(data)
    assert_codes(problems, ["C002"])
    p = find(problems, "C002", "/ruleset")
    assert "'line-deluxe'" in p.message and "line-classic" in p.message and "grid-classic" in p.message


def test_c002_pack_ruleset_is_only_known_with_the_pack():
    assert_codes(check(grid_dungeon(), RulesetRegistry()), ["C002"])
    assert check(grid_dungeon(), grid_registry()) == []


# -- C003 unknown element kind ---------------------------------------------------------------------------------


def test_c003_unknown_line_element_kind():
    data = line_dungeon()
    index = add(data, "elements", disc("g1", "ghost", (30, 30), 6, name="Wisp"))
    problems = check(data)
    assert_codes(problems, ["C003"])
    p = find(problems, "C003", f"/elements/{index}/kind")
    assert "ghost 'g1' (\"Wisp\")" in p.message and "line-classic" in p.message and "monster" in p.message


def test_c003_unknown_grid_feature_kind():
    data = grid_dungeon()
    index = add(data, "features", {"id": "x1", "kind": "chest", "cell": [0, 2]})
    problems = check(data)
    assert_codes(problems, ["C003"])
    p = find(problems, "C003", f"/features/{index}/kind")
    assert "chest 'x1'" in p.message and "grid-test" in p.message


def test_c003_kind_known_to_a_pack_ruleset():
    variant = grid_ruleset_data()
    variant["elements"]["chest"] = {
        "description": "Chest.",
        "interaction": "enter",
        "vp": 1,
        "count": {"min": 0, "max": 1},
    }
    data = grid_dungeon()
    add(data, "features", {"id": "x1", "kind": "chest", "cell": [0, 2]})
    assert check(data, grid_registry(variant)) == []


# -- C004 unknown named values ---------------------------------------------------------------------------------


def test_c004_unknown_variant():
    data = line_dungeon()
    data["elements"][3]["variant"] = "sword"
    problems = check(data)
    assert_codes(problems, ["C004"])
    p = find(problems, "C004", "/elements/3/variant")
    assert "treasure 't1'" in p.message and "'sword'" in p.message and "chest, crown, goblet" in p.message


def test_c004_unknown_key_colour():
    data = line_dungeon()
    index = add_key(data, "purple", (30, 30), key_id="k1")
    problems = check(data)
    assert_codes(problems, ["C004"])
    p = find(problems, "C004", f"/elements/{index}/colour")
    assert "key 'k1'" in p.message and "'purple'" in p.message and "red, green, blue, yellow" in p.message


def test_c004_unknown_orb_colour():
    data = line_dungeon()
    index = add(data, "elements", disc("o1", "orb", (30, 30), colour="green"))
    data["sheet"]["components"] = ["orbs"]
    data["sheet"]["orb_tokens"] = {"green": [2, 1]}
    problems = check(data)
    assert_codes(problems, ["C004", "C004"])
    assert "orb 'o1'" in find(problems, "C004", f"/elements/{index}/colour").message
    assert "'green'" in find(problems, "C004", "/sheet/orb_tokens/green").message


def test_c004_unknown_lock_colour():
    data = line_dungeon()
    index = add_door(data, ["red", "purple"])
    add_key(data, "red", (30, 30))
    problems = check(data)
    p = find(problems, "C004", f"/elements/{index}/locks/1")
    assert "door 'd1'" in p.message and "'purple'" in p.message and "skeleton" in p.message
    # no key fits the purple lock: r2 behind it is out of reach; L019 is not repeated for a lock
    # C004 already reports
    assert_codes(problems, ["C004", "L018", "L018", "L020"])


def test_c004_skeleton_lock_is_known():
    data = line_dungeon()
    add_door(data, ["skeleton"])
    add_key(data, "red", (30, 30))
    assert check(data) == []


def test_c004_unknown_orb_colour_in_an_end_trigger():
    data = line_dungeon()
    data["sheet"]["end_triggers"].append({"kind": "orb_taken", "colour": "green", "when": "first"})
    problems = check(data)
    p = find(problems, "C004", "/sheet/end_triggers/1/colour")
    assert "orb_taken" in p.message and "'green'" in p.message
    # green is no orb colour at all: C004 says so once, L015 does not repeat it
    assert_codes(problems, ["C004"])


def test_c004_unknown_grid_letters():
    data = grid_dungeon()
    data["features"][2]["letter"] = "C"  # weapon wA
    data["features"][4]["letter"] = "C"  # monster mA: the pair stays matched
    problems = check(data)
    assert_codes(problems, ["C004", "C004"])
    assert "weapon 'wA' (\"Axe\")" in find(problems, "C004", "/features/2/letter").message
    assert "monster 'mA' (\"Ogre\")" in find(problems, "C004", "/features/4/letter").message


def test_c004_letters_follow_the_ruleset():
    # grid-classic allows A-F, so letter C is fine there (and the classic fixture uses C..F)
    data = classic_grid_dungeon()
    assert {f.get("letter") for f in data["features"]} >= {"C", "D", "E", "F"}
    assert check(data) == []


# -- C005 family mismatch ------------------------------------------------------------------------------------


def test_c005_grid_dungeon_with_a_line_ruleset():
    data = grid_dungeon()
    data["ruleset"] = "line-classic"
    del data["entryways"][1]  # would be G007, but family checks are skipped
    problems = check(data)
    assert_codes(problems, ["C005"])
    p = find(problems, "C005", "/ruleset")
    assert "grid dungeon" in p.message and "'line-classic'" in p.message


def test_c005_line_dungeon_with_a_grid_ruleset():
    data = line_dungeon()
    data["ruleset"] = "grid-classic"
    problems = check(data)
    assert_codes(problems, ["C005"])
    assert "line dungeon" in find(problems, "C005", "/ruleset").message


# -- C006 inconsistent ruleset -------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", ["grid-classic", "line-classic"])
def test_bundled_rulesets_are_consistent(ruleset_id):
    assert ruleset_consistency_problems(bundled_rulesets()[ruleset_id].data, FILE) == []


def test_c006_count_min_above_max():
    data = grid_ruleset_data()
    data["elements"]["weapon"]["count"] = {"min": 3, "max": 2}
    data["elements"]["monster"]["count"] = {"min": 3, "max": 2}  # pairs stay equal
    problems = ruleset_consistency_problems(data, FILE)
    assert_codes(problems, ["C006", "C006"])
    p = find(problems, "C006", "/elements/weapon/count")
    assert "'weapon'" in p.message and "min 3" in p.message and "max 2" in p.message


def test_c006_weapons_and_monsters_come_in_pairs():
    data = copy.deepcopy(bundled_rulesets()["grid-classic"].data)
    data["elements"]["monster"]["count"] = {"min": 5, "max": 5}
    problems = ruleset_consistency_problems(data, FILE)
    assert_codes(problems, ["C006"])
    assert "pairs" in find(problems, "C006", "/elements/monster/count").message


def test_c006_letters_must_suffice():
    data = copy.deepcopy(bundled_rulesets()["grid-classic"].data)
    data["elements"]["weapon"]["letters"] = "ABC"
    problems = ruleset_consistency_problems(data, FILE)
    assert_codes(problems, ["C006"])
    assert "only 3 letters" in find(problems, "C006", "/elements/weapon/letters").message


def test_c006_features_and_entryways_must_fit_the_board():
    data = copy.deepcopy(bundled_rulesets()["grid-classic"].data)
    data["elements"]["loot"]["count"] = {"min": 40, "max": 40}  # 40 + 1 + 6 + 6 = 53 > 49 rooms
    data["entryways"]["count"] = {"min": 30, "max": 30}  # a 7x7 board has 28 outer edges
    problems = ruleset_consistency_problems(data, FILE)
    assert_codes(problems, ["C006", "C006"])
    assert "53 rooms" in find(problems, "C006", "/elements").message
    assert "28 outer edges" in find(problems, "C006", "/entryways/count").message


def test_c006_players_min_above_max():
    data = copy.deepcopy(bundled_rulesets()["line-classic"].data)
    data["players"] = {"min": 4, "max": 2}
    problems = ruleset_consistency_problems(data, FILE)
    assert_codes(problems, ["C006"])
    find(problems, "C006", "/players")


def test_c006_deck_card_is_no_segment_shape():
    data = grid_ruleset_data()
    data["deck"]["spiral"] = 2
    problems = ruleset_consistency_problems(data, FILE)
    assert_codes(problems, ["C006"])
    assert "'spiral'" in find(problems, "C006", "/deck/spiral").message


def test_c006_reported_when_validating_a_ruleset_file(tmp_path):
    data = grid_ruleset_data()
    data["elements"]["loot"]["count"] = {"min": 2, "max": 1}
    path = tmp_path / "grid-test.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = validate_paths([path])
    assert codes(report.problems) == ["C006"], describe_problems(report.problems)
    assert report.problems[0].pointer == "/elements/loot/count"
    assert report.exit_code() == 1


# -- C007 control characters in text --------------------------------------------------------------------------
# Refused: U+0000-U+001F but tab and newline, U+007F-U+009F, U+FFFE and U+FFFF (inkcrawl/textchars.py).
# Positions count characters from 0: in "Entry Hall\x07" the BEL follows the 10 characters of "Entry Hall".


def test_c007_area_name_names_object_field_character_and_position():
    data = line_dungeon()
    data["areas"][0]["name"] = "Entry Hall\x07"
    problems = check(data)
    assert_codes(problems, ["C007"])
    p = find(problems, "C007", "/areas/0/name")
    assert p.message == (
        "room 'r1' (\"Entry Hall\"): name contains the control character U+0007 at position 10; remove it"
    )
    assert p.severity.value == "error" and p.rule.name == "control-character"


def test_c007_sheet_title_reminder_label_and_element_name():
    data = line_dungeon()
    data["sheet"]["title"] = "Tiny\x01 Line\x7f"  # U+0001 at 4; "Tiny\x01 Line" is 10 characters
    data["sheet"]["reminders"].append("Mind the \x1bstep")  # reminder 1; "Mind the " is 9 characters
    data["elements"][5]["text"] = "\x00Cellars"  # label lb1: position 0
    data["elements"][1]["name"] = "Gh\uffffoul"  # monster m1: the noncharacter at 2
    problems = check(data)
    assert_codes(problems, ["C007"] * 4)
    assert find(problems, "C007", "/sheet/title").message == (
        "sheet: title contains the control characters U+0001 at position 4 and U+007F at position 10; remove them"
    )
    assert find(problems, "C007", "/sheet/reminders/1").message == (
        "sheet: reminder 1 contains the control character U+001B at position 9; remove it"
    )
    assert find(problems, "C007", "/elements/5/text").message == (
        "label 'lb1': text contains the control character U+0000 at position 0; remove it"
    )
    # the name shown in the message leaves the refused character out
    assert find(problems, "C007", "/elements/1/name").message == (
        "monster 'm1' (\"Ghoul\"): name contains the noncharacter U+FFFF at position 2; remove it"
    )


def test_c007_grid_feature_name():
    data = grid_dungeon()
    data["features"][0]["name"] = "Coin\x85purse"  # U+0085 (a C1 control, NEL) after the 4 letters of "Coin"
    problems = check(data)
    assert_codes(problems, ["C007"])
    assert find(problems, "C007", "/features/0/name").message == (
        "loot 'l1' (\"Coinpurse\"): name contains the control character U+0085 at position 4; remove it"
    )


def test_c007_many_characters_are_summed_up():
    data = line_dungeon()
    data["areas"][2]["name"] = "\x01\x02V\x03a\x04u\x05lt\ufffe"  # 6 refused: at 0, 1, 3, 5, 7 and 10
    p = find(check(data), "C007", "/areas/2/name")
    assert p.message == (
        "room 'r2' (\"Vault\"): name contains the control character U+0001 at position 0, the "
        "control character U+0002 at position 1, the control character U+0003 at position 3 and "
        "3 more; remove them"
    )


def test_c007_tab_newline_and_other_unicode_are_fine():
    data = line_dungeon()
    data["sheet"]["title"] = "Tiny\tLine"
    data["sheet"]["reminders"] = ["Reach the exit.\nThen leave.", "Crypte d'Éloïse 地下牢 \u00a0 \ufffd"]
    data["areas"][0]["name"] = "Entry\u00a0Hall \U0001f56f"
    assert check(data) == []


def test_c007_is_reported_even_when_the_ruleset_is_unknown():
    data = line_dungeon()
    data["ruleset"] = "line-deluxe"
    data["sheet"]["title"] = "Tiny\x0bLine"
    problems = check(data)
    assert_codes(problems, ["C002", "C007"])
    assert "U+000B at position 4" in find(problems, "C007", "/sheet/title").message


def test_c007_on_an_object_with_a_schema_error_elsewhere():
    data = line_dungeon()
    data["elements"][1]["size_mm"] = "big"  # schema error: m1 is left out of the rule checks
    data["elements"][1]["name"] = "Ghoul\r"
    problems = check(data)
    assert_codes(problems, ["S001", "S002", "C007"])
    assert "U+000D at position 5" in find(problems, "C007", "/elements/1/name").message


@pytest.mark.parametrize("bad_id", ["r\x07", "r1\n", "\tr1"])
def test_ids_with_control_characters_are_schema_errors_not_c007(bad_id):
    data = line_dungeon()
    data["areas"][0]["id"] = bad_id
    problems = check(data)
    assert find(problems, "S001", "/areas/0/id")
    assert "C007" not in codes(problems)


def test_c007_in_a_ruleset():
    data = copy.deepcopy(bundled_rulesets()["line-classic"].data)
    data["characters"]["rogue"]["name"] = "Rog\x08ue"
    data["elements"]["monster"]["description"] = "\x1f" + data["elements"]["monster"]["description"]
    problems = ruleset_consistency_problems(data, FILE)
    assert_codes(problems, ["C007", "C007"])
    assert find(problems, "C007", "/characters/rogue/name").message == (
        "character 'rogue' (\"Rogue\"): name contains the control character U+0008 at position 3; remove it"
    )
    assert find(problems, "C007", "/elements/monster/description").message == (
        "element kind 'monster' (\"Monster\"): description contains the control character U+001F at position 0; "
        "remove it"
    )  # the kind's display name (inkcrawl.kinds) names it


def test_c007_in_a_pack_manifest_and_its_ruleset(tmp_path):
    import shutil

    from conftest import PACKS

    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "lantern-depths", pack)
    manifest = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    manifest["name"] = "Lantern\x00Depths"
    manifest["description"] = "Four dungeons.\x1a"
    manifest["rulesets"] = ["variant.json"]
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    variant = copy.deepcopy(bundled_rulesets()["line-classic"].data)
    variant["id"] = "line-variant"
    variant["name"] = "Variant\x9b"
    (pack / "variant.json").write_text(json.dumps(variant), encoding="utf-8")
    report = validate_paths([pack])
    assert codes(report.problems) == ["C007", "C007", "C007"], describe_problems(report.problems)
    by_pointer = {(p.file.split("/")[-1], p.pointer): p.message for p in report.problems}
    assert by_pointer[("pack.json", "/name")] == (
        "pack 'lantern-depths' (\"LanternDepths\"): name contains the control character U+0000 at position 7; remove it"
    )
    assert by_pointer[("pack.json", "/description")] == (
        "pack 'lantern-depths' (\"LanternDepths\"): description contains the control character U+001A at "
        "position 14; remove it"
    )
    assert by_pointer[("variant.json", "/name")] == (
        "ruleset 'line-variant' (\"Variant\"): name contains the control character U+009B at position 7; remove it"
    )
    assert report.exit_code() == 1


def test_c007_pack_deck_name():
    from inkcrawl.textchars import document_text_problems

    manifest = {"type": "pack", "id": "p", "name": "P", "decks": [{"id": "d1", "name": "Short\x03", "cards": {}}]}
    problems = document_text_problems(manifest, "pack 'p' (\"P\")", FILE)
    assert [(p.code, p.pointer, p.message) for p in problems] == [
        (
            "C007",
            "/decks/0/name",
            "deck 'd1' (\"Short\"): name contains the control character U+0003 at position 5; remove it",
        )
    ]
