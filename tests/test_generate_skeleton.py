"""Skeleton-key doors (issue #14; RULES.md 2, Keys: a door with the lock ``"skeleton"`` opens with
a key of any colour): ``line.locks.skeleton_key_doors`` makes that many of the generated locked
doors skeleton-key doors, each opening with a key found without passing it (checked by the
reachability search of ``test_generate_line``); ``inkcrawl validate`` agrees, par's route scores
par under ``inkcrawl score``; impossible counts are refused fast naming the constraint; populate
keeps the skeleton-key doors of an imported layout openable; specs without the key are unchanged."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_generate_line import RICH, _check_result, _constraints, _errors, _graph, _reached, _waves
from test_populate import LANTERN, _chain_layout, _stripped

from inkcrawl.cli import main
from inkcrawl.generate import Infeasible, line_spec
from inkcrawl.generate.line import generate_line
from inkcrawl.generate.populate import layout_of, populate_line
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.rulesets import Ruleset
from inkcrawl.validate import RulesetRegistry

ROOT = Path(__file__).resolve().parent.parent
LINE = RulesetRegistry().get("line-classic")


def _doors(data: dict) -> list[dict]:
    return [e for e in data["elements"] if e["kind"] == "door"]


def _skeleton_doors(data: dict) -> list[dict]:
    return [d for d in _doors(data) if "skeleton" in d["locks"]]


# --- generate ------------------------------------------------------------------------------------
ASKED = {
    "one": ({"locks": {"skeleton_key_doors": 1}}, (1, 1)),
    "every door": ({"locks": {"skeleton_key_doors": 2}, "locked_doors": 2}, (2, 2)),
    "a range, keys 2 deep": ({"locks": {"skeleton_key_doors": [1, 2], "depth": 2}}, (1, 2)),
    "with a two-lock door": ({"locks": {"skeleton_key_doors": 1, "depth": 1, "multi_lock_doors": 1}}, (1, 1)),
    "three, depth 0": ({"locks": {"skeleton_key_doors": 3, "depth": 0}, "rooms": [5, 7]}, (3, 3)),
    "four players": ({"locks": {"skeleton_key_doors": 1}, "difficulty": {"players": 4}}, (1, 1)),
}


@pytest.mark.parametrize("name", sorted(ASKED))
def test_the_skeleton_key_doors_asked_are_generated_and_each_opens_with_a_key_found_before_it(name):
    line, (low, high) = ASKED[name]
    spec = line_spec(_constraints(**line), LINE)
    assert spec.skeleton_key_doors == (low, high)
    for seed in range(3):
        result = generate_line(spec, seed)
        data = result.data
        skeleton = _skeleton_doors(data)
        assert low <= len(skeleton) <= high, (seed, [d["locks"] for d in _doors(data)])
        # every check of the drawn constraint sets: zero errors, keys, depth, and each
        # skeleton-key door with a key picked up while that door stays shut
        _check_result(data, spec, result.populated)
        for door in skeleton:
            assert door["locks"] == ["skeleton"]
            assert _waves(data, closed=door["id"])[0], (seed, door["id"])


def test_doors_that_are_all_skeleton_key_doors_get_one_key_before_them():
    # no door asks for a colour and each asks for one key: one key of any colour is the puzzle
    spec = line_spec(_constraints(locks={"skeleton_key_doors": 2, "depth": 0}, locked_doors=2), LINE)
    for seed in range(3):
        data = generate_line(spec, seed).data
        assert [d["locks"] for d in _doors(data)] == [["skeleton"], ["skeleton"]]
        keys = [e for e in data["elements"] if e["kind"] == "key"]
        assert len(keys) == 1
        key_wave, area_wave = _waves(data)
        assert key_wave == {keys[0]["colour"]: 0}  # reached with no key
        assert len(set(area_wave.values())) == 2  # the areas behind the doors open with it


def test_inkcrawl_validate_agrees_and_names_each_skeleton_key_door_once_its_keys_are_gone(tmp_path, capsys):
    constraints = tmp_path / "skeleton.json"
    constraints.write_text(
        json.dumps(_constraints(locks={"skeleton_key_doors": 2, "depth": 0}, locked_doors=2)), encoding="utf-8"
    )
    out = tmp_path / "dungeon.json"
    assert main(["generate", "--family", "line", "--seed", "5", "--constraints", str(constraints), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["validate", str(out)]) == 0
    assert "0 errors" in capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    data["elements"] = [e for e in data["elements"] if e["kind"] not in ("key", "skeleton_key")]
    keyless = tmp_path / "keyless.json"
    keyless.write_text(json.dumps(data), encoding="utf-8")
    assert main(["validate", str(keyless)]) == 1
    printed = capsys.readouterr().out.splitlines()
    for door in _skeleton_doors(data):
        pointer = f"/elements/{data['elements'].index(door)}/locks: error L019 door '{door['id']}' (locks: skeleton)"
        assert any(pointer in line for line in printed), (door["id"], printed)


@pytest.mark.parametrize("seed", range(3))
def test_the_route_of_par_through_skeleton_key_doors_scores_par_under_inkcrawl_score(seed, tmp_path, capsys):
    spec = _constraints(locks={"skeleton_key_doors": 2, "depth": 0}, locked_doors=2, rooms=[4, 5])
    constraints = tmp_path / "skeleton.json"
    constraints.write_text(json.dumps(spec), encoding="utf-8")
    dungeon, route = tmp_path / "dungeon.json", tmp_path / "route.play.json"
    argv = ["generate", "--family", "line", "--seed", str(seed), "--constraints", str(constraints), "-o", str(dungeon)]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["par", str(dungeon), "--format", "json", "-o", str(route)]) == 0
    found = json.loads(capsys.readouterr().out)[0]
    assert main(["score", str(dungeon), str(route), "--format", "json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["total"] == found["par"]
    # the route goes through a skeleton-key door: it enters an area no player reaches keyless
    data = json.loads(dungeon.read_text(encoding="utf-8"))
    keyless = _reached(data, _graph(data), set())
    assert any(section["area"] not in keyless for section in scored["sections"]), seed


REFUSED = [
    ({"locks": {"skeleton_key_doors": 4}, "locked_doors": 3}, "line.locked_doors allows at most 3"),
    ({"locks": {"skeleton_key_doors": 2, "depth": 2}, "locked_doors": 4}, "5 locked doors in all"),
    ({"locks": {"skeleton_key_doors": 2, "multi_lock_doors": 2}, "locked_doors": 3}, "4 locked doors in all"),
    (
        {"locks": {"skeleton_key_doors": 1, "multi_lock_doors": 1, "depth": 1}, "locked_doors": [0, 2]},
        "3 locked doors in all",
    ),
    ({"locks": {"skeleton_key_doors": 2}, "rooms": 2}, "at most 1 corridor(s)"),
    ({"locks": {"skeleton_key_doors": 4}, "rooms": 4, "loops": 0}, "at most 3 corridor(s)"),
]


@pytest.mark.parametrize(("line", "reason"), REFUSED)
def test_skeleton_key_doors_beyond_the_locked_doors_or_corridors_are_refused_within_a_second(line, reason):
    started = time.monotonic()
    with pytest.raises(Infeasible) as caught:
        generate_line(line_spec(_constraints(**line), LINE), 1, time_limit=30)
    assert time.monotonic() - started < 1.0
    assert caught.value.constraint == "line.locks.skeleton_key_doors"
    assert reason in str(caught.value)


def _tokenless() -> Ruleset:
    """``line-classic`` with no key tokens for one player."""
    house = json.loads((ROOT / "content" / "rulesets" / "line-classic.json").read_text(encoding="utf-8"))
    house["id"] = "line-tokenless"
    house["keys"]["supply"]["1"] = 0
    return Ruleset(house)


def test_without_key_tokens_for_the_players_skeleton_key_and_locked_doors_are_refused():
    ruleset = _tokenless()
    with pytest.raises(Infeasible) as caught:
        generate_line(line_spec(_constraints(locks={"skeleton_key_doors": 1}), ruleset), 1)
    assert caught.value.constraint == "line.locks.skeleton_key_doors"
    assert "no key tokens for 1 player(s)" in str(caught.value)
    with pytest.raises(Infeasible) as caught:
        generate_line(line_spec(_constraints(locked_doors=1), ruleset), 1)
    assert caught.value.constraint == "line.locked_doors"
    # without doors asked none is drawn; with two players the tokens are there
    assert generate_line(line_spec(_constraints(locked_doors=[0, 3]), ruleset), 1).doors == 0
    two = line_spec(_constraints(locks={"skeleton_key_doors": 1}, difficulty={"players": 2}), ruleset)
    assert len(_skeleton_doors(generate_line(two, 1).data)) == 1


def test_the_default_locked_doors_hold_the_skeleton_key_doors_and_the_schema_has_the_key():
    from inkcrawl.schema import schema_problems

    assert line_spec(None, LINE).skeleton_key_doors == (0, 0)
    assert line_spec(_constraints(locks={"skeleton_key_doors": 2}), LINE).locked_doors == (2, 3)
    # keys 2 deep: three chain doors, and the skeleton-key door besides them
    assert line_spec(_constraints(locks={"skeleton_key_doors": 1, "depth": 2}), LINE).locked_doors == (4, 4)
    with pytest.raises(Infeasible) as caught:
        line_spec(_constraints(locks={"skeleton_key_doors": [2, 1]}), LINE)
    assert caught.value.constraint == "line.locks.skeleton_key_doors"
    schema = json.loads((ROOT / "schemas" / "constraints.schema.json").read_text(encoding="utf-8"))
    assert "skeleton_key_doors" in schema["$defs"]["line"]["properties"]["locks"]["properties"]
    bad = _constraints(locks={"skeleton_key_doors": -1})
    assert [p.pointer for p in schema_problems(bad, "constraints", "c.json")] == ["/line/locks/skeleton_key_doors"]
    assert "locks.skeleton_key_doors" in (ROOT / "docs" / "generating.md").read_text(encoding="utf-8")


def test_a_spec_without_skeleton_key_doors_gives_the_same_bytes_as_one_asking_for_none():
    for line in ({}, RICH["everything"], RICH["chain 3 deep, two-lock door"]):
        plain = line_spec(_constraints(**line), LINE)
        locks = {**line.get("locks", {}), "skeleton_key_doors": 0}
        none = line_spec(_constraints(**{**line, "locks": locks}), LINE)
        for seed in range(2):
            assert dumps_canonical(generate_line(plain, seed).data) == dumps_canonical(generate_line(none, seed).data)
    spec = line_spec(_constraints(locks={"skeleton_key_doors": [1, 2]}), LINE)
    assert dumps_canonical(generate_line(spec, 9).data) == dumps_canonical(generate_line(spec, 9).data)


# --- populate: a layout's own skeleton-key doors ---------------------------------------------------
@pytest.mark.parametrize(
    "locks",
    [("skeleton", "skeleton", "skeleton"), ("skeleton", "red", "green"), ("red", "skeleton", "green")],
    ids="-".join,
)
@pytest.mark.parametrize("depth", [None, 0, 1])
def test_populate_keeps_a_layouts_skeleton_key_doors_openable(locks, depth):
    layout = _chain_layout()  # rooms A-D in a row, doors d1-d3 into B, C, D
    for door in _doors(layout):
        door["locks"] = [locks[int(door["id"][1]) - 1]]
    spec = line_spec(_constraints(**({} if depth is None else {"locks": {"depth": depth}})), LINE)
    for seed in range(3):
        result = populate_line(layout, spec, seed)
        data = result.data
        assert _errors(data) == []
        kept = layout_of(layout)["elements"]
        assert {i: e for i, e in layout_of(data)["elements"].items() if i in kept} == kept
        key_wave, area_wave = _waves(data)
        assert set(area_wave) == {a["id"] for a in data["areas"]}
        for door in _skeleton_doors(data):
            assert _waves(data, closed=door["id"])[0], (seed, door["id"])
        if depth is not None:
            assert result.depth == depth == max(key_wave.values())


def test_populate_refuses_a_depth_the_skeleton_key_doors_cannot_hold():
    # three skeleton-key doors in a row: the first key opens them all, so no key waits behind
    # a second one
    layout = _chain_layout()
    for door in _doors(layout):
        door["locks"] = ["skeleton"]
    started = time.monotonic()
    with pytest.raises(Infeasible) as caught:
        populate_line(layout, line_spec(_constraints(locks={"depth": 2}), LINE), 1)
    assert time.monotonic() - started < 1.0
    assert caught.value.constraint == "line.locks.depth"
    assert "allows at most 1" in str(caught.value) and "skeleton-key door" in str(caught.value)


def test_populate_refuses_a_skeleton_key_door_no_key_token_opens():
    ruleset = _tokenless()
    layout = _chain_layout()
    layout["ruleset"] = ruleset.id
    for door in _doors(layout):
        door["locks"] = ["skeleton"]
    with pytest.raises(Infeasible) as caught:
        populate_line(layout, line_spec(_constraints(), ruleset), 1, registry=RulesetRegistry([ruleset]))
    assert caught.value.constraint == "line.locks"
    assert "door 'd1' has a skeleton lock" in str(caught.value)


def test_a_bundled_dungeon_with_a_skeleton_key_door_populated_opens_it_with_a_key_found_before_it():
    with_skeleton = [p for p in LANTERN if any("skeleton" in d["locks"] for d in _doors(_stripped(p)))]
    assert with_skeleton
    for path in with_skeleton:
        for seed in range(2):
            data = populate_line(_stripped(path), line_spec(None, LINE), seed, file=path.name).data
            assert _errors(data) == []
            for door in _skeleton_doors(data):
                assert _waves(data, closed=door["id"])[0], (path.name, seed, door["id"])
