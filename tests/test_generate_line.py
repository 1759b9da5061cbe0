"""``inkcrawl generate --family line`` (issue #14): lock puzzles (key chains of a requested depth,
two-lock doors, skeleton keys, skeleton-key doors), one-way portal pairs and end triggers, checked against a
reachability search written here; 200 constraint sets drawn by hypothesis validate with zero
errors; 1,000 seeds give 1,000 distinct dungeons in both families; the same seed gives the same
bytes, in another process too; par draws a route on every result; populate reads a pack's
ruleset."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl.cli import main
from inkcrawl.engines.line import LineRules, referee
from inkcrawl.engines.line.par import par
from inkcrawl.gamedata import line_game_data
from inkcrawl.generate import GenerateError, Infeasible, generate_grid, grid_spec, line_spec
from inkcrawl.generate.line import generate_line
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import Ruleset
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = RulesetRegistry()
LINE = REGISTRY.get("line-classic")
GRID = REGISTRY.get("grid-classic")


def _constraints(**line) -> dict:
    return {"type": "constraints", "format_version": 1, "family": "line", "line": line}


def _errors(data: dict, registry: RulesetRegistry = REGISTRY) -> list:
    problems, _ = check_dungeon_data(json.loads(dumps_canonical(data)), "t", registry)
    return [(p.code, p.message) for p in problems if p.severity == "error"]


# --- a reachability search written here --------------------------------------------------------
def _graph(data: dict) -> tuple[dict[str, set[str]], dict[frozenset, list[str]], dict[frozenset, str]]:
    """Areas joined where their outlines share a stretch of at least 1 mm: ``(neighbours, locks,
    door_ids)``, ``locks`` the locks of the door on a shared stretch (none for an opening),
    ``door_ids`` that door's id."""
    polygons = {a["id"]: shapely.Polygon(a["polygon"]) for a in data["areas"]}
    doors = [e for e in data["elements"] if e["kind"] == "door"]
    neighbours: dict[str, set[str]] = {a: set() for a in polygons}
    locks: dict[frozenset, list[str]] = {}
    door_ids: dict[frozenset, str] = {}
    ids = sorted(polygons)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            shared = polygons[a].boundary.intersection(polygons[b].boundary)
            if shared.length < 1:
                continue
            neighbours[a].add(b)
            neighbours[b].add(a)
            door = next((d for d in doors if shapely.LineString(d["segment"]).distance(shared) < 0.5), None)
            locks[frozenset((a, b))] = list(door["locks"]) if door else []
            if door:
                door_ids[frozenset((a, b))] = door["id"]
    return neighbours, locks, door_ids


def _opens(locks: list[str], held: set[str]) -> bool:
    """RULES.md 2, Keys: every lock colour held, and one distinct key a lock in all (a
    ``"skeleton"`` lock takes any key besides those the colours use)."""
    colours = [lock for lock in locks if lock != "skeleton"]
    return set(colours) <= held and len(held) >= len(locks)


def _start_areas(data: dict) -> set[str]:
    starts = [shapely.Point(e["at"]) for e in data["elements"] if e["kind"] == "start"]
    return {a["id"] for a in data["areas"] for s in starts if shapely.Polygon(a["polygon"]).distance(s) < 0.5}


def _reached(data: dict, graph, held: set[str], closed: str | None = None) -> set[str]:
    """Areas a player holding the key colours ``held`` walks to from the Starts (portals left
    out: a door opens by :func:`_opens`; the door ``closed``, an id, never opens)."""
    neighbours, locks, door_ids = graph
    seen = _start_areas(data)
    queue = list(seen)
    while queue:
        a = queue.pop()
        for b in neighbours[a]:
            pair = frozenset((a, b))
            if b not in seen and _opens(locks[pair], held) and (closed is None or door_ids.get(pair) != closed):
                seen.add(b)
                queue.append(b)
    return seen


def _area_of(data: dict, element: dict) -> str:
    point = shapely.Point(element["at"])
    inside = [a["id"] for a in data["areas"] if shapely.Polygon(a["polygon"]).contains(point)]
    assert len(inside) == 1, (element, inside)
    return inside[0]


def _waves(data: dict, closed: str | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """Keys picked up in waves: wave 0 the keys reached with none, wave w those reached with the
    keys of the waves before (the door ``closed`` never opens). Returns ``(key colour -> wave,
    area -> the wave from which it is reached)``; a key's wave is its depth behind doors."""
    graph = _graph(data)
    keys = {e["colour"]: _area_of(data, e) for e in data["elements"] if e["kind"] == "key"}
    held: set[str] = set()
    key_wave: dict[str, int] = {}
    area_wave: dict[str, int] = {}
    wave = 0
    while True:
        reach = _reached(data, graph, held, closed)
        for area in reach:
            area_wave.setdefault(area, wave)
        new = {colour for colour, area in keys.items() if area in reach and colour not in held}
        if not new:
            break
        key_wave.update(dict.fromkeys(new, wave))
        held |= new
        wave += 1
    return key_wave, area_wave


def _check_result(data: dict, spec, populated) -> None:
    """Everything a generated line dungeon must be, checked by hand."""
    assert _errors(data) == []
    areas = {a["id"] for a in data["areas"]}
    rooms = {a["id"] for a in data["areas"] if a["kind"] == "room"}
    elements = data["elements"]
    doors = [e for e in elements if e["kind"] == "door"]
    assert spec.rooms[0] <= len(rooms) <= spec.rooms[1]
    assert spec.locked_doors[0] <= len(doors) <= spec.locked_doors[1]
    skeleton = [d for d in doors if "skeleton" in d["locks"]]
    for door in doors:
        assert len(set(door["locks"])) == len(door["locks"])
    assert all(d["locks"] == ["skeleton"] for d in skeleton)  # one lock, never with a colour
    assert spec.skeleton_key_doors[0] <= len(skeleton) <= spec.skeleton_key_doors[1]
    multi = sum(1 for d in doors if len(d["locks"]) == 2)
    assert spec.multi_lock_doors[0] <= multi <= spec.multi_lock_doors[1]
    assert all(len(d["locks"]) <= 2 for d in doors)
    # the lock puzzle: every key picked up, every area reached, keys as deep as asked
    key_wave, area_wave = _waves(data)
    keys = [e for e in elements if e["kind"] == "key"]
    assert len(key_wave) == len(keys) == len({k["colour"] for k in keys})
    assert {c for d in doors for c in d["locks"] if c != "skeleton"} <= set(key_wave)
    assert set(area_wave) == areas  # on foot: no area needs a portal
    for door in skeleton:  # a key of some colour is picked up without passing the door
        assert _waves(data, closed=door["id"])[0], door["id"]
    if not any(e["kind"] == "skeleton_key" for e in elements):
        assert max(key_wave.values(), default=0) == populated.depth
        if spec.depth is not None:
            assert populated.depth == spec.depth
    assert sum(1 for e in elements if e["kind"] == "skeleton_key") == spec.skeleton_keys
    # one-way portals: one entry and one exit a channel, the exit reached with no more keys
    entries = {e["channel"]: e for e in elements if e["kind"] == "portal_entry"}
    exits = {e["channel"]: e for e in elements if e["kind"] == "portal_exit"}
    assert sorted(entries) == sorted(exits) == list("ABCDEFGH"[: len(entries)])
    assert spec.portal_pairs[0] <= len(entries) <= spec.portal_pairs[1]
    for channel, entry in entries.items():
        here, there = _area_of(data, entry), _area_of(data, exits[channel])
        assert here in rooms and here != there
        assert area_wave[there] <= area_wave[here]
        # an entry's room holds nothing else a line would come for
        others = [e for e in elements if "at" in e and e["id"] != entry["id"] and e["kind"] not in ("start", "key")]
        assert all(_area_of(data, e) != here for e in others), channel
    # the end triggers asked, with what they need
    listed = data["sheet"]["end_triggers"]
    kinds = {e["kind"] for e in elements}
    for trigger in spec.end_triggers:
        assert trigger in listed
    for trigger in listed:
        need = {"boss_covered": "boss", "escape_portal": "escape_portal", "exit_reached": "exit"}.get(trigger["kind"])
        assert need is None or need in kinds
        if trigger["kind"] == "orb_taken":
            assert any(e["kind"] == "orb" and e["colour"] == trigger["colour"] for e in elements)
    assert ("timer" in data["sheet"]["components"]) == any(t["kind"] == "timer" for t in listed)


# --- 200 constraint sets -----------------------------------------------------------------------
_TRIGGERS = st.lists(
    st.sampled_from(
        [
            {"kind": "boss_covered"},
            {"kind": "timer", "seconds": 240},
            {"kind": "timer"},
            {"kind": "escape_portal"},
            {"kind": "exit_reached"},
            {"kind": "orb_taken", "colour": "pink", "when": "first"},
            {"kind": "orb_taken", "colour": "blue"},
        ]
    ),
    max_size=3,
    unique_by=lambda t: t["kind"],
)


@st.composite
def _line_constraints(draw) -> dict:
    """A feasible line constraint set: rooms 2-6, a key chain the rooms can hold, two-lock
    doors, skeleton-key doors on the corridors the chain and the two-lock doors leave (a count
    or a range), portals, skeleton keys, end triggers, a few element counts."""
    low = draw(st.integers(2, 5))
    rooms = [low, low + draw(st.integers(0, 1))]
    depth = draw(st.one_of(st.none(), st.integers(0, min(3, low - 2))))
    multi = draw(st.integers(0, 1)) if depth != 0 else 0
    doors_low = max(depth + 1 if depth else 0, multi + (1 if depth else 0))
    skeleton = draw(st.integers(0, min(2, low - 1 - doors_low)))  # the fewest rooms' tree has low - 1 corridors
    skeleton_asked = skeleton if draw(st.booleans()) else [skeleton, skeleton + draw(st.integers(0, 1))]
    doors_low += skeleton
    line: dict = {
        "rooms": rooms,
        "locked_doors": [doors_low, doors_low + draw(st.integers(0, 2))],
        "portal_pairs": draw(st.integers(0, min(2, low - 1))),
        "end_triggers": draw(_TRIGGERS),
        "elements": {"monster": draw(st.integers(1, 3)), "plant": [0, 1], "artifact_stone": 0},
        "loops": draw(st.sampled_from([0.0, 0.3, 1.0])),
        "locks": {
            "skeleton_keys": draw(st.integers(0, 1)),
            "multi_lock_doors": multi,
            "skeleton_key_doors": skeleton_asked,
        },
        "difficulty": {"players": draw(st.integers(1, 2))},
    }
    if depth is not None:
        line["locks"]["depth"] = depth
    return _constraints(**line)


@settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraints=_line_constraints(), seed=st.integers(0, 2**32))
def test_200_drawn_constraint_sets_give_dungeons_with_zero_errors_as_asked(constraints, seed):
    spec = line_spec(constraints, LINE)
    result = generate_line(spec, seed, time_limit=20)
    _check_result(result.data, spec, result.populated)


# --- lock puzzles, portals, triggers: fixed cases ----------------------------------------------
RICH = {
    "chain 3 deep, two-lock door": {"rooms": [6, 8], "locks": {"depth": 3, "multi_lock_doors": 1}},
    "two portal pairs, timer": {"portal_pairs": 2, "end_triggers": [{"kind": "timer", "seconds": 300}]},
    "escape portal, orb trigger": {
        "end_triggers": [{"kind": "escape_portal"}, {"kind": "orb_taken", "colour": "pink", "when": "last"}]
    },
    "everything": {
        "rooms": [6, 7],
        "locks": {"depth": 2, "multi_lock_doors": [1, 2], "skeleton_keys": 1},
        "locked_doors": [3, 4],
        "portal_pairs": 1,
        "end_triggers": [{"kind": "boss_covered"}, {"kind": "exit_reached"}],
    },
}


@pytest.mark.parametrize("name", sorted(RICH))
def test_par_draws_a_route_the_referee_scores_at_par(name):
    spec = line_spec(_constraints(**RICH[name]), LINE)
    for seed in range(2):
        result = generate_line(spec, seed)
        _check_result(result.data, spec, result.populated)
        rules = LineRules(line_game_data(dungeon_from_dict(result.data), LINE))
        found = par(rules, spec.players)
        assert found.play is not None, found.note
        assert referee(rules, found.play)["total"] == found.par == result.populated.par


def test_a_key_chain_lies_one_door_behind_another():
    spec = line_spec(_constraints(rooms=[5, 6], locks={"depth": 3}, locked_doors=4), LINE)
    for seed in range(3):
        data = generate_line(spec, seed).data
        key_wave, _ = _waves(data)
        assert sorted(key_wave.values()) == [0, 1, 2, 3]  # four colours, one a wave
        assert sum(1 for e in data["elements"] if e["kind"] == "door") == 4


@pytest.mark.parametrize(
    ("line", "named", "reason"),
    [
        ({"locks": {"depth": 4}}, "line.locks.depth", "no chain is deeper than 3"),
        ({"locks": {"depth": 2}, "locked_doors": [0, 2]}, "line.locked_doors", "3 locked doors"),
        ({"locks": {"depth": 3}, "rooms": [2, 4]}, "line.rooms", "at least 5 rooms"),
        ({"locks": {"multi_lock_doors": 3}, "locked_doors": 2}, "line.locks.multi_lock_doors", "at most 2"),
        ({"locks": {"multi_lock_doors": 1, "depth": 0}}, "line.locks.multi_lock_doors", "depth 0"),
        (
            {"end_triggers": [{"kind": "boss_covered"}], "elements": {"boss": 0}},
            "line.end_triggers[0]",
            "asks for none",
        ),
        (
            {"end_triggers": [{"kind": "orb_taken", "colour": "blue"}], "elements": {"orb": 0}},
            "line.end_triggers[0]",
            "asks for none",
        ),
        ({"portal_pairs": 27}, "line.portal_pairs", "26 channels"),
        ({"portal_pairs": 1, "rooms": 1}, "line.portal_pairs", "one room has no corridor"),
        ({"portal_pairs": 4, "rooms": [2, 3]}, "line.portal_pairs", "at most 3 room(s)"),
    ],
)
def test_an_impossible_lock_portal_or_trigger_spec_is_explained_within_a_second(line, named, reason):
    started = time.monotonic()
    with pytest.raises(Infeasible) as caught:
        generate_line(line_spec(_constraints(**line), LINE), 1, time_limit=30)
    assert time.monotonic() - started < 1.0
    assert caught.value.constraint == named
    assert reason in str(caught.value)


def test_an_unknown_orb_colour_or_a_trigger_twice_is_an_error_naming_it():
    with pytest.raises(GenerateError) as caught:
        line_spec(_constraints(end_triggers=[{"kind": "orb_taken", "colour": "pnik"}]), LINE)
    assert caught.value.constraint == "line.end_triggers[0]" and "pink" in str(caught.value)
    with pytest.raises(GenerateError) as caught:
        line_spec(_constraints(end_triggers=[{"kind": "timer"}, {"kind": "timer", "seconds": 60}]), LINE)
    assert caught.value.constraint == "line.end_triggers[1]"


def test_the_new_members_are_in_the_schema_with_defaults_and_point_at_the_leaf():
    from inkcrawl.schema import schema_problems

    schema = json.loads((ROOT / "schemas" / "constraints.schema.json").read_text(encoding="utf-8"))
    members = schema["$defs"]["line"]["properties"]
    assert {"portal_pairs", "end_triggers"} <= set(members)
    assert "multi_lock_doors" in members["locks"]["properties"]
    spec = line_spec(_constraints(end_triggers=[{"kind": "timer"}, {"kind": "orb_taken", "colour": "pink"}]), LINE)
    assert spec.end_triggers == (
        {"kind": "timer", "seconds": 180},
        {"kind": "orb_taken", "colour": "pink", "when": "last"},
    )
    assert line_spec(None, LINE).portal_pairs == (0, 0) and line_spec(None, LINE).multi_lock_doors == (0, 0)
    bad = _constraints(end_triggers=[{"kind": "timer", "seconds": 5}, {"kind": "escape_portal", "colour": "blue"}])
    pointers = [p.pointer for p in schema_problems(bad, "constraints", "c.json")]
    assert "/line/end_triggers/0/seconds" in pointers and any(p.startswith("/line/end_triggers/1") for p in pointers)


# --- variety and determinism -------------------------------------------------------------------
#: The cheapest line dungeon: one room, one monster, nothing else to score.
ONE_ROOM = _constraints(
    rooms=1,
    locked_doors=0,
    elements={k: 0 for k in ("boss", "plant", "prisoner", "treasure", "spell", "artifact_stone", "orb")}
    | {"monster": 1},
)


def test_1000_seeds_give_1000_distinct_dungeons_in_both_families():
    line = line_spec(ONE_ROOM, LINE)
    grid = grid_spec(None, GRID)
    seen_line = {dumps_canonical(generate_line(line, seed).data) for seed in range(1000)}
    seen_grid = {dumps_canonical(generate_grid(grid, seed).data) for seed in range(1000)}
    assert len(seen_line) == 1000
    assert len(seen_grid) == 1000


_SCRIPT = """
import sys
from inkcrawl.cli import main
sys.exit(main(["generate", "--family", "line", "--seed", "31", "--constraints", sys.argv[1], "-o", sys.argv[2]]))
"""


def test_the_same_seed_gives_the_same_bytes_in_another_process(tmp_path):
    constraints = tmp_path / "rich.json"
    constraints.write_text(json.dumps(_constraints(**RICH["everything"])), encoding="utf-8")
    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / hash_seed / "dungeon.json"
        out.parent.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT, str(constraints), str(out)], env=env, capture_output=True, cwd=ROOT
        )
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    spec = line_spec(_constraints(**RICH["everything"]), LINE)
    assert dumps_canonical(generate_line(spec, 31, dungeon_id="dungeon").data).encode() == outputs[0]


# --- populate with a pack's ruleset ------------------------------------------------------------
def test_populate_uses_the_ruleset_of_the_pack_that_lists_the_dungeon(tmp_path, capsys):
    house = json.loads((ROOT / "content" / "rulesets" / "line-classic.json").read_text(encoding="utf-8"))
    house["id"] = "line-small-monsters"
    house["elements"]["monster"]["size_mm"] = 5
    pack = tmp_path / "pack"
    (pack / "dungeons").mkdir(parents=True)
    (pack / "small.ruleset.json").write_text(json.dumps(house), encoding="utf-8")
    layout = generate_line(line_spec(ONE_ROOM, LINE), 3).data
    layout["ruleset"] = house["id"]
    layout["elements"] = [e for e in layout["elements"] if e["kind"] in ("door", "start")]
    layout["sheet"].update(end_triggers=[], orb_tokens={}, components=[])
    (pack / "dungeons" / "cellar.json").write_text(dumps_canonical(layout), encoding="utf-8")
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": "house",
        "name": "House",
        "version": "1.0.0",
        "ruleset": house["id"],
        "rulesets": ["small.ruleset.json"],
        "dungeons": ["dungeons/cellar.json"],
    }
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    constraints = tmp_path / "c.json"
    constraints.write_text(json.dumps(_constraints(elements={"monster": 3})), encoding="utf-8")
    out = tmp_path / "out.json"
    args = ["populate", str(pack / "dungeons" / "cellar.json"), "--seed", "2", "--constraints", str(constraints)]
    assert main([*args, "-o", str(out)]) == 0, capsys.readouterr().err
    # written outside the pack (or into its folder unlisted), where its ruleset is not known: the
    # summary says so; written over a dungeon the pack lists, it is known there
    assert "note: ruleset 'line-small-monsters' comes from the pack of" in capsys.readouterr().out
    assert main([*args, "-o", str(pack / "dungeons" / "unlisted.json")]) == 0
    assert "note: ruleset" in capsys.readouterr().out
    (pack / "pack.json").write_text(
        json.dumps({**manifest, "dungeons": [*manifest["dungeons"], "dungeons/full.json"]}), encoding="utf-8"
    )
    assert main([*args, "-o", str(pack / "dungeons" / "full.json")]) == 0
    assert "note: ruleset" not in capsys.readouterr().out
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    data = json.loads(out.read_text(encoding="utf-8"))
    monsters = [e for e in data["elements"] if e["kind"] == "monster"]
    assert len(monsters) == 3 and all(m["size_mm"] <= 5 for m in monsters)  # the pack's size, not line-classic's 8
    assert _errors(data, RulesetRegistry([Ruleset(house)])) == []
    # outside the pack the ruleset is unknown: refused, nothing written
    alone = tmp_path / "alone.json"
    alone.write_text(dumps_canonical(layout), encoding="utf-8")
    assert main(["populate", str(alone), "--seed", "2", "-o", str(tmp_path / "x.json")]) == 2
    assert "line-small-monsters" in capsys.readouterr().err and not (tmp_path / "x.json").exists()


def test_populate_keeps_the_triggers_a_sheet_lists_and_adds_those_asked():
    from inkcrawl.generate.populate import populate_line

    layout = generate_line(line_spec(_constraints(rooms=3, locked_doors=0), LINE), 5).data
    layout["elements"] = [e for e in layout["elements"] if e["kind"] in ("door", "start")]
    layout["sheet"].update(end_triggers=[{"kind": "timer", "seconds": 100}], orb_tokens={}, components=["timer"])
    asked = [{"kind": "timer"}, {"kind": "escape_portal"}]
    result = populate_line(layout, line_spec(_constraints(end_triggers=asked), LINE), 1)
    assert result.data["sheet"]["end_triggers"] == [{"kind": "timer", "seconds": 100}, {"kind": "escape_portal"}]
    assert sum(1 for e in result.data["elements"] if e["kind"] == "escape_portal") == 1
    assert _errors(result.data) == []


def test_a_par_curve_rises_across_a_pack(tmp_path, capsys):
    # par from [10, 14] to [26, 30] over 3 dungeons: linearly, the middle one gets [18, 22]; each
    # dungeon's par, computed again here, lies in its own range
    spec = line_spec(_constraints(difficulty={"par": {"from": [10, 14], "to": [26, 30]}}), LINE)
    assert spec.for_index(0, 3).par_range == (10, 14)
    assert spec.for_index(1, 3).par_range == (18, 22)
    assert spec.for_index(2, 3).par_range == (26, 30)
    assert spec.for_index(0, 1).par_range == (10, 14)  # a single dungeon gets 'from'
    path = tmp_path / "curve.json"
    path.write_text(json.dumps(_constraints(difficulty={"par": {"from": [10, 14], "to": [26, 30]}})))
    out = tmp_path / "pack"
    assert (
        main(
            [
                "generate",
                "--family",
                "line",
                "--seed",
                "3",
                "--count",
                "3",
                "--constraints",
                str(path),
                "--time-limit",
                "120",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    pars = []
    for number in (1, 2, 3):
        data = json.loads((out / "dungeons" / f"pack-0{number}.json").read_text())
        pars.append(par(LineRules(line_game_data(dungeon_from_dict(data), LINE))).par)
    assert 10 <= pars[0] <= 14 and 18 <= pars[1] <= 22 and 26 <= pars[2] <= 30


def test_a_par_curve_with_a_reversed_end_names_it():
    with pytest.raises(Infeasible) as caught:
        line_spec(_constraints(difficulty={"par": {"from": [10, 14], "to": [30, 26]}}), LINE)
    assert caught.value.constraint == "line.difficulty.par.to"
    assert "line.difficulty.par.to [30, 26]: the low end is above the high end" in str(caught.value)


def test_generate_line_under_a_ruleset_that_is_not_bundled():
    # a house ruleset (an id no bundled ruleset has, monsters 5 mm): the dungeon is generated,
    # populated and validated under it, so its monsters are printed at 5 mm
    house = json.loads((ROOT / "content" / "rulesets" / "line-classic.json").read_text(encoding="utf-8"))
    house["id"] = "line-house"
    house["elements"]["monster"]["size_mm"] = 5
    ruleset = Ruleset(house)
    result = generate_line(line_spec(_constraints(), ruleset), 2)
    assert result.data["ruleset"] == "line-house"
    assert _errors(result.data, RulesetRegistry([ruleset])) == []
    monsters = [e for e in result.data["elements"] if e["kind"] == "monster"]
    assert monsters and all(e["size_mm"] <= 5 for e in monsters)


@pytest.mark.parametrize(
    "paper, size, slots",
    [("letter", (215.9, 279.4), 12), ("a5", (148, 210), 4), ("a3", (297, 420), 35)],
)
def test_a_layout_is_drawn_for_the_paper_asked(paper, size, slots):
    # The rooms' region is 20 mm in from the sides, 35 mm from the top and 72 mm from the bottom
    # (the footer's room), cut into slots of about 56.7 x 47.5 mm: Letter 175.9 x 172.4 mm of
    # region, 3 x 4 slots; A5 108 x 103 mm, 2 x 2; A3 257 x 313 mm, 5 x 7. With no line.rooms the
    # default 5-8 rooms is held to the slots (A5: 4).
    from inkcrawl.generate.constraints import paper_sheet

    sheet = paper_sheet(paper)
    assert sheet.slots == slots
    spec = line_spec(_constraints(paper=paper), LINE)
    assert spec.rooms[1] <= slots
    result = generate_line(spec, 5)
    assert result.data["sheet"]["paper"] == {"width_mm": size[0], "height_mm": size[1], "margin_mm": 10}
    assert _errors(result.data) == []
    corners = [p for a in result.data["areas"] for p in a["polygon"]]
    assert all(20 <= x <= size[0] - 20 and 35 <= y <= size[1] - 72 for x, y in corners)


def test_more_rooms_than_the_paper_holds_names_the_paper():
    with pytest.raises(Infeasible) as caught:
        generate_line(line_spec(_constraints(paper="a5", rooms=6), LINE), 1)
    assert caught.value.constraint == "line.rooms"
    assert "the A5 sheet (line.paper) holds at most 4 with room for names (2 x 2 slots)" in str(caught.value)


def test_a_low_par_range_draws_smaller_layouts_until_it_is_met():
    # par 10-14 lies below what 8 rooms of default elements give at their fewest (about 16-17):
    # populate's tries on such a layout miss it, and the next layouts have fewer rooms until one
    # meets it. The budget is a number of tries per layout, so the result does not depend on the
    # machine (a generous time limit only guards against a hang).
    spec = line_spec(_constraints(difficulty={"par": [10, 14]}), LINE)
    for seed in (1, 3):
        result = generate_line(spec, seed, time_limit=120)
        assert 10 <= result.populated.par <= 14
        again = generate_line(spec, seed, time_limit=120)
        assert dumps_canonical(again.data) == dumps_canonical(result.data)


def test_the_corridors_asked_join_the_rooms():
    # 6 rooms joined by a spanning tree are 5 corridors; 6 asked adds one loop. Fewer than 5 cannot
    # join 6 rooms; more than the A4 slots' neighbouring pairs (3 x 4 slots: 3 x 3 + 4 x 2 = 17)
    # cannot be drawn.
    result = generate_line(line_spec(_constraints(rooms=6, corridors=6), LINE), 2)
    kinds = [a["kind"] for a in result.data["areas"]]
    assert kinds.count("room") == 6 and kinds.count("corridor") == 6
    assert _errors(result.data) == []
    for line, message in (
        ({"rooms": 6, "corridors": 4}, "line.corridors asks for at most 4; 6 rooms (line.rooms) need at least 5"),
        ({"corridors": 30}, "the A4 sheet's 3 x 4 slots (line.paper) have 17 neighbouring pairs"),
    ):
        with pytest.raises(Infeasible) as caught:
            generate_line(line_spec(_constraints(**line), LINE), 1)
        assert caught.value.constraint == "line.corridors" and message in str(caught.value)


def test_the_starts_asked_stand_on_the_outer_walls_of_different_rooms():
    # 3 Starts: each on the outline of its own room (a room holds at most one added Start), so 5
    # rooms have room for 5 and 9 is refused naming line.starts
    result = generate_line(line_spec(_constraints(starts=3), LINE), 2)
    starts = [e for e in result.data["elements"] if e["kind"] == "start"]
    rooms = [shapely.Polygon(a["polygon"]) for a in result.data["areas"] if a["kind"] == "room"]
    homes = {
        next(i for i, room in enumerate(rooms) if room.exterior.distance(shapely.Point(s["at"])) <= 0.6) for s in starts
    }
    assert len(starts) == 3 and len(homes) == 3
    assert _errors(result.data) == []
    with pytest.raises(Infeasible) as caught:
        generate_line(line_spec(_constraints(starts=9, rooms=5), LINE), 1)
    assert caught.value.constraint == "line.starts"
    assert "line.starts asks for at least 9 Starts; the layout has room for 5" in str(caught.value)
