"""Edge cases found by reviewing inkcrawl as a hostile user would."""

from __future__ import annotations

import json
import os

import pytest
from conftest import PACKS
from dungeon_builders import add, add_door, assert_codes, check, classic_grid_dungeon, disc, line_dungeon

from inkcrawl.cli import main
from inkcrawl.geometry import Connection
from inkcrawl.schema import schema_problems
from inkcrawl.solvability import explore


def _validate(capsys, *paths):
    code = main(["validate", *map(str, paths), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_whole_numbers_written_as_floats_are_integers(tmp_path, capsys):
    data = classic_grid_dungeon()
    data["grid"]["rows"] = 7.0
    data["passages"][0]["cell"] = [float(v) for v in data["passages"][0]["cell"]]
    path = tmp_path / "floats.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, problems = _validate(capsys, path)
    assert (code, problems) == (0, [])


def test_a_fractional_cell_is_a_schema_error_not_a_crash(tmp_path, capsys):
    data = classic_grid_dungeon()
    data["passages"][0]["cell"] = [0.5, 0]
    path = tmp_path / "half.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, problems = _validate(capsys, path)
    assert code == 1 and [p["pointer"] for p in problems if p["code"] == "S001"] == ["/passages/0/cell/0"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_pipes_and_devices_are_refused_without_reading_them(tmp_path, capsys):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    paths = [fifo] + ([os.devnull] if os.path.exists(os.devnull) else [])
    code, problems = _validate(capsys, *paths)
    assert code == 2
    assert [p["code"] for p in problems] == ["F001"] * len(paths)
    assert "not a regular file" in problems[0]["message"]


def test_a_start_on_a_courtyard_edge_is_not_on_the_outer_boundary():
    data = line_dungeon()
    # a ring of four rooms around an empty courtyard (x 60..100, y 120..160)
    ring = [
        ("q1", [[40, 100], [120, 100], [120, 120], [40, 120]]),
        ("q2", [[40, 160], [120, 160], [120, 180], [40, 180]]),
        ("q3", [[40, 120], [60, 120], [60, 160], [40, 160]]),
        ("q4", [[100, 120], [120, 120], [120, 160], [100, 160]]),
    ]
    data = {
        **data,
        "areas": [{"id": i, "kind": "room", "polygon": p} for i, p in ring],
        "walls": [],
        "elements": [disc("st1", "start", (80, 120), 6), disc("ex1", "exit", (50, 170), 6)],
    }
    problems = check(data)
    assert_codes(problems, ["L011"])
    data["elements"][0]["at"] = [80, 100]  # the outer edge of the ring
    assert check(data) == []


def test_many_skeleton_keys_do_not_explode_the_search():
    rooms = [f"r{i}" for i in range(6)]
    connections = [Connection(a, b, "open") for a, b in zip(rooms, rooms[1:])]
    connections.append(Connection("r5", "vault", "door", "d1"))
    skeletons = {"r0": [f"s{i}" for i in range(40)]}
    reach = explore(["r0"], connections, {}, skeletons, {"d1": ["skeleton"] * 4}, {"red", "green", "blue", "yellow"})
    assert reach.complete and reach.areas == {*rooms, "vault"} and reach.doors_opened == {"d1"}
    reach = explore(["r0"], connections, {}, skeletons, {"d1": ["skeleton"] * 5}, {"red", "green", "blue", "yellow"})
    assert reach.complete and "vault" not in reach.areas  # five locks, four colours


def test_search_limit_is_reported_not_silent():
    connections = [Connection("a", "b", "open")]
    reach = explore(["a"], connections, {"a": {"red"}}, {}, {}, {"red"}, max_states=1)
    assert not reach.complete


def test_a_pack_ruleset_may_not_take_a_bundled_id(tmp_path, capsys):
    pack = tmp_path / "pack"
    (pack / "rulesets").mkdir(parents=True)
    ruleset = json.loads((PACKS.parent / "rulesets" / "line-classic.json").read_text(encoding="utf-8"))
    (pack / "rulesets" / "line-classic.json").write_text(json.dumps(ruleset), encoding="utf-8")
    (pack / "dungeons").mkdir()
    source = next((PACKS / "lantern-depths" / "dungeons").glob("*.json"))
    (pack / "dungeons" / "a.json").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": "p",
        "name": "P",
        "version": "1.0.0",
        "ruleset": "line-classic",
        "rulesets": ["rulesets/line-classic.json"],
        "dungeons": ["dungeons/a.json"],
    }
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    code, problems = _validate(capsys, pack)
    assert code == 1 and [(p["code"], p["pointer"]) for p in problems] == [("P006", "/id")]


def test_schema_messages_stay_readable():
    data = line_dungeon()
    data["elements"][1]["at"] = [1e300, 90]
    messages = {p.pointer: p.message for p in schema_problems(data, "dungeon", "x.json")}
    assert messages["/elements/1/at/0"] == "1e+300 is greater than the maximum of 10000"  # not 301 digits
    grid = classic_grid_dungeon()
    dragon = next(i for i, f in enumerate(grid["features"]) if f["kind"] == "dragon")
    grid["features"][dragon]["letter"] = "A"
    messages = {p.pointer: p.message for p in schema_problems(grid, "dungeon", "x.json")}
    assert messages == {f"/features/{dragon}/letter": "'letter' is not allowed here (not for this kind or family)"}


def test_schema_errors_are_sorted_by_index_numerically():
    data = line_dungeon()
    for index in range(12):
        add(data, "elements", {"id": f"x{index}", "kind": "plant", "at": "nowhere", "size_mm": 5, "rotation_deg": 0})
    pointers = [p.pointer for p in schema_problems(data, "dungeon", "x.json")]
    indexes = [int(p.split("/")[2]) for p in pointers]
    assert indexes == sorted(indexes)


def test_a_door_with_four_skeleton_locks_and_four_skeleton_keys_opens():
    data = line_dungeon()
    add_door(data, ["skeleton"] * 4)
    for index, spot in enumerate([(30, 30), (45, 30), (60, 30), (30, 70)]):
        add(data, "elements", disc(f"sk{index}", "skeleton_key", spot, 5))
    data["sheet"]["components"] = ["keys"]
    assert check(data) == []


def test_trailing_comma_is_named_at_the_comma(tmp_path):
    from inkcrawl.jsonio import parse_json_text

    _, problems = parse_json_text('{\n  "a": [1, 2,],\n  "b": 1\n}', "t.json")
    assert problems[0].code == "F002"
    assert "comma after the last item of an array" in problems[0].message
    assert (problems[0].line, problems[0].column) == (2, 13)
    _, problems = parse_json_text('{"a": 1 "b": 2}', "t.json")
    assert "Expecting ',' delimiter" in problems[0].message  # other slips keep the parser's words
