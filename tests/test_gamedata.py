"""Playable game data (``inkcrawl export game``) and solvability (``inkcrawl analyze``)."""

from __future__ import annotations

import json

import jsonschema_rs
import pytest
from conftest import PACKS, REPO
from dungeon_builders import add, add_door, add_key, disc, line_dungeon

from inkcrawl.cli import main
from inkcrawl.gamedata import game_document, line_game_data
from inkcrawl.loading import open_dungeons
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import bundled_rulesets
from inkcrawl.solvability import analyze_line_game

GAME_SCHEMA = jsonschema_rs.validator_for(json.loads((REPO / "schemas" / "game.schema.json").read_text()))


@pytest.fixture(scope="module")
def document():
    return game_document(open_dungeons([str(PACKS / "lantern-depths"), str(PACKS / "ember-halls")]).dungeons)


def test_document_of_the_bundled_packs_matches_its_schema(document):
    assert list(GAME_SCHEMA.iter_errors(json.loads(json.dumps(document)))) == []
    assert [d["family"] for d in document["dungeons"]] == ["line"] * 4 + ["grid"] * 4


def test_grid_rooms_list_open_sides_and_entryways(document):
    grid = json.loads((PACKS / "ember-halls" / "dungeons" / "cinder-vault.json").read_text())
    data = next(d for d in document["dungeons"] if d["id"] == grid["id"])
    rooms = {tuple(r["cell"]): r for r in data["rooms"]}
    assert len(rooms) == grid["grid"]["columns"] * grid["grid"]["rows"]
    first = grid["passages"][0]
    assert first["side"] in rooms[tuple(first["cell"])]["open"]
    entry = grid["entryways"][0]
    assert entry["side"] in rooms[tuple(entry["cell"])]["open"]
    assert entry["id"] in rooms[tuple(entry["cell"])]["entryways"]
    opposite = {"east": "west", "south": "north", "west": "east", "north": "south"}[first["side"]]
    dc, dr = {"east": (1, 0), "south": (0, 1), "west": (-1, 0), "north": (0, -1)}[first["side"]]
    assert opposite in rooms[(first["cell"][0] + dc, first["cell"][1] + dr)]["open"]
    assert data["deck"]["name"] == json.loads((PACKS / "ember-halls" / "pack.json").read_text())["decks"][0]["name"]
    assert [t["term"] for t in data["scoring"]][:3] == ["loot", "dragon", "weapon"]
    assert data["switches"]["dragon_doubling"] == "one_loot" and data["rounds"] == 7


def _line_data(data):
    ruleset = bundled_rulesets()["line-classic"]
    return line_game_data(dungeon_from_dict(data), ruleset)


def test_line_connectivity_walls_and_elements():
    data = line_dungeon()
    add_door(data, ["red"])
    add_key(data, "red", (30, 30))
    game = _line_data(data)
    kinds = sorted((c["a"], c["b"], c["kind"]) for c in game["connections"])
    assert kinds == [("c1", "r2", "door"), ("r1", "c1", "open")]
    door = next(c for c in game["connections"] if c["kind"] == "door")
    assert door["locks"] == ["red"] and door["segment"] == [[120, 40], [120, 60]]
    assert {w["id"] for w in game["walls"]} >= {"w1"}
    r1_walls = [w for w in game["walls"] if w["area"] == "r1"]
    # r1's outline is 240 mm long, as printed: the stretch it shares with the corridor (20 mm,
    # grown by the 0.5 mm snap tolerance at each end: 21 mm) and the entrance gap of the 6 mm
    # Start (a disc of 0.8 * 6 = 4.8 mm across) are no wall: 240 - 21 - 4.8
    assert sum(_length(w["points"]) for w in r1_walls) == pytest.approx(214.2, abs=0.01)
    assert {w["kind"] for w in r1_walls} == {"outline"} and {w["width_mm"] for w in r1_walls} == {1.2}
    monster = next(e for e in game["elements"] if e["kind"] == "monster")
    assert (
        monster["area"] == "r1" and monster["interaction"] == "cover" and monster["tolerance"] == {"min_coverage": 0.9}
    )
    assert len(monster["footprint"]) >= 16 and monster["head"]
    assert game["starts"] == [{"id": "st1", "at": data["elements"][0]["at"], "area": "r1"}]


def _length(points):
    return sum(((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) ** 0.5 for a, b in zip(points, points[1:]))


def test_portals_are_one_way_connections():
    data = line_dungeon()
    add(data, "elements", disc("pe", "portal_entry", (150, 30), 6, channel="A"))
    add(data, "elements", disc("px", "portal_exit", (30, 70), 6, channel="A"))
    game = _line_data(data)
    portals = [c for c in game["connections"] if c["kind"] == "portal"]
    assert portals == [{"a": "r2", "b": "r1", "kind": "portal", "channel": "A", "entry": "pe", "exit": "px"}]


def test_analysis_reports_a_key_behind_its_door_and_routes():
    data = line_dungeon()
    add_door(data, ["red"])
    add_key(data, "red", (150, 30))  # behind the red door, in r2
    analysis = analyze_line_game(_line_data(data))
    assert analysis.reached == ["r1", "c1"]
    assert {e["id"] for e in analysis.unreachable_elements} >= {"ex1"}
    assert analysis.doors_never_open == [{"id": "d1", "locks": ["red"]}]
    data = line_dungeon()
    add_door(data, ["red"])
    add_key(data, "red", (30, 30))
    data["elements"].append(disc("b1", "boss", (160, 70), 8, vp=3))
    analysis = analyze_line_game(_line_data(data))
    route = analysis.routes["boss b1"]
    assert [s["area"] for s in route] == ["r1", "c1", "r2"]
    assert "takes key red" in route[0]["via"] and route[2]["via"].startswith("door d1")


def test_export_game_and_analyze_from_the_game_file_alone(tmp_path, capsys):
    out = tmp_path / "game.json"
    assert main(["export", "game", str(PACKS / "lantern-depths"), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["analyze", str(out), "--format", "json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert len(results) == 4 and all(r["unreached"] == [] and r["doors_never_open"] == [] for r in results)
    assert any(r["routes"] for r in results)
    bytes_once = out.read_bytes()
    assert main(["export", "game", str(PACKS / "lantern-depths"), "-o", str(out)]) == 0
    assert out.read_bytes() == bytes_once


def test_analyze_exits_1_when_something_is_unreachable(tmp_path, capsys):
    data = line_dungeon()
    add_door(data, ["red"])
    add_key(data, "red", (150, 30))
    data["sheet"]["components"] = ["keys"]
    path = tmp_path / "locked.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    # validation already refuses it (L019), so analysis stops with exit 1 and the report
    assert main(["analyze", str(path)]) == 1
    assert "L019" in capsys.readouterr().err


def _game_file(tmp_path, document, change):
    data = json.loads(json.dumps(document))
    change(data["dungeons"][0])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["switches"].update(reentry="bogus"), "reentry"),
        (lambda d: d["connections"][0].update(a="nowhere"), "'nowhere'"),
        (lambda d: d["areas"].append(dict(d["areas"][0])), "listed twice"),
        (lambda d: d["elements"][0].update(area="nowhere"), "'nowhere'"),
        (lambda d: d.update(areas=[]), "areas"),
    ],
)
def test_inconsistent_game_data_is_refused_clearly(tmp_path, capsys, document, change, message):
    path = _game_file(tmp_path, document, change)
    assert main(["analyze", str(path)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
