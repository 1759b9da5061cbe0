"""``inkcrawl populate`` (issue #14, line family): scoring content and a lock puzzle for an existing
line layout. The layout (areas, walls, doors, labels, Starts) is compared field by field; keys are
checked against a breadth-first search written here; par is measured again by the engine."""

from __future__ import annotations

import copy
import json
import math
import time
from pathlib import Path

import pytest
import shapely

from inkcrawl.cli import main
from inkcrawl.engines.line import LineRules
from inkcrawl.engines.line.par import par
from inkcrawl.gamedata import line_game_data
from inkcrawl.generate import Infeasible, line_spec
from inkcrawl.generate.populate import layout_of, populate_line
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.model import Element, dungeon_from_dict
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

ROOT = Path(__file__).resolve().parent.parent
LANTERN = sorted((ROOT / "content" / "packs" / "lantern-depths" / "dungeons").glob("*.json"))
DONJON = sorted((ROOT / "tests" / "import_samples" / "donjon").glob("*.json"))
WATABOU = Path("/work/shared/samples/watabou/prison_of_raianai.json")
REGISTRY = RulesetRegistry()
LINE = REGISTRY.get("line-classic")
LAYOUT_KINDS = ("door", "label", "start")


def _constraints(**line) -> dict:
    return {"type": "constraints", "format_version": 1, "family": "line", "line": line}


def _stripped(path: Path) -> dict:
    """A bundled dungeon with only its layout: areas, walls, doors, labels and Starts."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["elements"] = [e for e in data["elements"] if e["kind"] in LAYOUT_KINDS]
    data["sheet"].update(end_triggers=[], orb_tokens={}, components=[])
    return data


def _imported(source: Path, tmp_path: Path) -> dict:
    out = tmp_path / f"{source.stem}-layout.json"
    assert main(["import", str(source), "-o", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _errors(data: dict) -> list:
    problems, _ = check_dungeon_data(json.loads(dumps_canonical(data)), "t", REGISTRY)
    return [(p.code, p.message) for p in problems if p.severity == "error"]


def _chain_layout() -> dict:
    """Four rooms in a row, A (with the Start) to D, each joined to the next by a corridor whose
    far end is a door: red into B, green into C, blue into D."""
    areas, elements = [], [{"id": "st1", "kind": "start", "at": [32, 20], "size_mm": 8, "rotation_deg": 0}]
    for i, name in enumerate("ABCD"):
        x = 15 + 45 * i
        areas.append({"id": name, "kind": "room", "polygon": [[x, 20], [x + 35, 20], [x + 35, 60], [x, 60]]})
        if i < 3:
            areas.append(
                {
                    "id": f"c{i + 1}",
                    "kind": "corridor",
                    "polygon": [[x + 35, 34], [x + 45, 34], [x + 45, 46], [x + 35, 46]],
                }
            )
            colour = ("red", "green", "blue")[i]
            elements.append(
                {"id": f"d{i + 1}", "kind": "door", "segment": [[x + 45, 34], [x + 45, 46]], "locks": [colour]}
            )
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "chain",
        "family": "line",
        "ruleset": "line-classic",
        "sheet": {
            "title": "Chain",
            "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
            "reminders": [],
            "components": ["keys"],
            "end_triggers": [],
            "orb_tokens": {},
        },
        "areas": areas,
        "walls": [],
        "elements": elements,
    }


def _area_of(data: dict, element: dict) -> str:
    point = shapely.Point(element["at"])
    inside = [a["id"] for a in data["areas"] if shapely.Polygon(a["polygon"]).contains(point)]
    assert len(inside) == 1, (element, inside)
    return inside[0]


def _reached(data: dict, keys: set[str]) -> set[str]:
    """Areas a player holding ``keys`` reaches from the Starts: areas joined where their outlines
    share a stretch, through a door only when every lock's colour is held (hand-written BFS; no
    skeleton locks in the layouts it is used on)."""
    polygons = {a["id"]: shapely.Polygon(a["polygon"]) for a in data["areas"]}
    doors = [e for e in data["elements"] if e["kind"] == "door"]
    starts = [e for e in data["elements"] if e["kind"] == "start"]
    seen = {a for a, p in polygons.items() for s in starts if p.distance(shapely.Point(s["at"])) < 0.5}
    queue = list(seen)
    while queue:
        a = queue.pop()
        for b, p in polygons.items():
            shared = polygons[a].boundary.intersection(p.boundary)
            if b in seen or shared.length < 1:
                continue
            door = next((d for d in doors if shapely.LineString(d["segment"]).distance(shared) < 0.5), None)
            if door is not None and not set(door["locks"]) <= keys:
                continue
            seen.add(b)
            queue.append(b)
    return seen


# --- the layout is kept -------------------------------------------------------------------------
def _layouts(tmp_path: Path) -> list[tuple[str, dict]]:
    cases = [(p.name, _stripped(p)) for p in LANTERN]
    cases += [(p.name, _imported(p, tmp_path)) for p in DONJON]
    if WATABOU.is_file():
        cases.append((WATABOU.name, _imported(WATABOU, tmp_path)))
    return cases


def test_the_layout_is_kept_field_by_field_and_the_result_validates_with_zero_errors(tmp_path):
    for name, layout in _layouts(tmp_path):
        before = copy.deepcopy(layout)
        result = populate_line(layout, line_spec(None, LINE), 5, file=name)
        assert layout == before, f"{name}: the input was changed"
        kept, now = layout_of(before), layout_of(result.data)
        assert now["areas"] == kept["areas"], name
        assert now["walls"] == kept["walls"], name
        for element_id, element in kept["elements"].items():
            assert now["elements"][element_id] == element, f"{name}: {element_id} changed"
        added = set(now["elements"]) - set(kept["elements"])
        assert all(now["elements"][i]["kind"] == "start" for i in added), name  # only a missing Start
        # every other element of the input is still there, the keys excepted (the lock puzzle replaces them)
        old = {e["id"]: e for e in before["elements"] if e["kind"] not in ("key", "skeleton_key")}
        new = {e["id"]: e for e in result.data["elements"]}
        assert all(new[i] == e for i, e in old.items()), name
        # zero errors: the imports had none, the stripped dungeons had some (their doors' keys gone)
        assert _errors(result.data) == [], name
        assert result.errors_after == 0
        scoring = [e for e in result.data["elements"] if e["kind"] in ("monster", "plant", "boss", "treasure")]
        assert scoring, name
        assert result.data["sheet"]["end_triggers"], name


def test_a_stripped_bundled_dungeon_had_errors_and_the_populated_one_has_none():
    layout = _stripped(LANTERN[-1])  # four keyed doors and a skeleton door: every key stripped
    assert any(code == "L019" for code, _ in _errors(layout))
    result = populate_line(layout, line_spec(None, LINE), 1)
    assert result.errors_before == len(_errors(layout)) > 0
    assert _errors(result.data) == []


def test_elements_lie_on_free_paper_clear_of_walls_labels_and_each_other(tmp_path):
    from inkcrawl.checks.line import label_bounds

    for name, layout in _layouts(tmp_path):
        data = populate_line(layout, line_spec(None, LINE), 9, file=name).data
        kept = {e["id"] for e in layout["elements"]}
        added = [e for e in data["elements"] if e["id"] not in kept and "at" in e and e["kind"] != "start"]
        labels = [shapely.box(*label_bounds(Element.from_dict(e))) for e in data["elements"] if e["kind"] == "label"]
        others = [e for e in data["elements"] if "at" in e and e.get("size_mm")]
        for element in added:
            r = element["size_mm"] / 2
            centre = shapely.Point(element["at"])
            area = next(a for a in data["areas"] if a["id"] == _area_of(data, element))
            # the outline's ink is 1.2 mm wide: half of it lies inside the area, plus a pen width
            assert shapely.Polygon(area["polygon"]).exterior.distance(centre) >= r + 0.6 + 1.5 - 1e-6, (name, element)
            assert all(box.distance(centre) >= r + 1.5 - 1e-6 for box in labels), (name, element)
            for other in others:
                if other["id"] != element["id"]:
                    gap = math.dist(other["at"], element["at"]) - r - other["size_mm"] / 2
                    assert gap >= 1.5 - 1e-6, (name, element["id"], other["id"], gap)
            assert element["size_mm"] >= LINE.print_limits["min_element_mm"]


# --- lock puzzles -----------------------------------------------------------------------------------
def _keys(data: dict) -> dict[str, str]:
    return {e["colour"]: _area_of(data, e) for e in data["elements"] if e["kind"] == "key"}


def test_keys_two_deep_lie_one_behind_each_door_of_the_chain():
    result = populate_line(_chain_layout(), line_spec(_constraints(locks={"depth": 2}), LINE), 3)
    keys = _keys(result.data)
    # red opens B, green opens C, blue opens D: red before the red door, green behind it, blue behind green
    assert keys["red"] in {"A", "c1"}
    assert keys["green"] in {"B", "c2"}
    assert keys["blue"] in {"C", "c3"}
    assert result.depth == 2
    assert _errors(result.data) == []


def test_keys_zero_deep_all_lie_before_the_first_door():
    result = populate_line(_chain_layout(), line_spec(_constraints(locks={"depth": 0}), LINE), 3)
    assert set(_keys(result.data).values()) <= {"A", "c1"}
    assert result.depth == 0


def test_every_key_is_reached_without_the_doors_it_opens(tmp_path):
    cases = [("chain", _chain_layout())] + [(p.name, _imported(p, tmp_path)) for p in DONJON]
    for name, layout in cases:
        for seed in range(4):
            data = populate_line(layout, line_spec(None, LINE), seed, file=name).data
            keys = _keys(data)
            if any("skeleton" in e.get("locks", []) for e in data["elements"]):
                continue  # the hand-written search knows no skeleton locks
            for colour, area in keys.items():
                others = set(keys) - {colour}
                assert area in _reached(data, others), (name, seed, colour, area)


def test_a_donjon_map_of_ten_red_doors_gets_its_key_on_the_way_in(tmp_path):
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from test_import_donjon import donjon_json

    rows = [
        "#####################",
        "#111#222#333#444#555#",
        "#111#222#333#444#555#",
        "#111#222#333#444#555#",
        "##L###L###L###L###L##",
        "<...................#",
        "##L###L###L###L###L##",
        "#666#777#888#999#aaa#",
        "#666#777#888#999#aaa#",
        "#666#777#888#999#aaa#",
        "#####################",
    ]
    source = tmp_path / "ten-doors.json"
    source.write_text(json.dumps(donjon_json(rows)), encoding="utf-8")
    layout = _imported(source, tmp_path)
    assert [e["locks"] for e in layout["elements"] if e["kind"] == "door"] == [["red"]] * 10
    result = populate_line(layout, line_spec(None, LINE), 2)
    keys = [e for e in result.data["elements"] if e["kind"] == "key"]
    assert [k["colour"] for k in keys] == ["red"]
    assert _area_of(result.data, keys[0]) == "corridor-1"  # the only area before a red door
    assert _errors(result.data) == []
    with pytest.raises(Infeasible) as caught:
        populate_line(layout, line_spec(_constraints(locks={"depth": 1}), LINE), 2)
    assert caught.value.constraint == "line.locks.depth"


# --- infeasible specs -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "named", "reason"),
    [
        ({"elements": {"monster": 400}}, "line.elements", "free paper"),
        ({"locks": {"depth": 1}, "elements": {"monster": 1}}, "line.locks.depth", "no chain is deeper than 0"),
        ({"locks": {"depth": 1}}, "line.locks.depth", "the door graph allows at most 0"),
        ({"difficulty": {"par": [500, 600]}}, "line.difficulty.par", "upper bound"),
        ({"elements": {"boss": 1}}, "line.elements.boss", "no room"),
    ],
)
def test_an_impossible_spec_is_explained_within_a_second_naming_the_constraint(line, named, reason):
    layout = _stripped(LANTERN[0]) if named != "line.elements.boss" else _small_rooms()
    if named == "line.locks.depth":
        layout = _one_red_door()
        if "graph" in reason:  # one door with two locks: neither key alone opens anything
            layout["elements"][1]["locks"] = ["red", "green"]
    started = time.monotonic()
    with pytest.raises(Infeasible) as caught:
        populate_line(layout, line_spec(_constraints(**line), LINE), 1, time_limit=30)
    assert time.monotonic() - started < 1.0
    assert caught.value.constraint == named
    assert reason in str(caught.value)


def _one_red_door() -> dict:
    data = _chain_layout()
    data["areas"] = data["areas"][:3]  # A, c1, B
    data["elements"] = [e for e in data["elements"] if e["id"] in ("st1", "d1")]
    return data


def _small_rooms() -> dict:
    data = _one_red_door()
    # rooms 35 x 40 mm hold a boss; a label across each leaves no room for one
    for i, area in enumerate(a for a in data["areas"] if a["kind"] == "room"):
        x = area["polygon"][0][0] + 17.5
        for j, y in enumerate((30, 38, 46, 54)):
            data["elements"].append(
                {
                    "id": f"l{i}-{j}",
                    "kind": "label",
                    "at": [x, y],
                    "rotation_deg": 0,
                    "text": "WWWWWWW",
                    "text_height_mm": 4,
                }
            )
    return data


def test_a_par_range_no_placement_meets_ends_at_the_time_limit_naming_it():
    spec = line_spec(_constraints(elements={"monster": 1}, difficulty={"par": [40, 41]}), LINE)
    started = time.monotonic()
    with pytest.raises(Infeasible) as caught:
        populate_line(_one_red_door(), spec, 1, time_limit=0.5)
    assert caught.value.constraint in ("line.difficulty.par",)
    assert time.monotonic() - started < 5


# --- difficulty, determinism ------------------------------------------------------------------------
def test_par_lands_in_the_target_range_as_measured_again_by_the_engine():
    layout = _stripped(LANTERN[2])
    spec = line_spec(_constraints(difficulty={"par": [14, 18]}), LINE)
    result = populate_line(layout, spec, 4, time_limit=20)
    measured = par(LineRules(line_game_data(dungeon_from_dict(result.data), LINE)), 1).par
    assert 14 <= measured <= 18
    assert measured == result.par


def test_seeds_give_distinct_results_and_the_same_seed_the_same_bytes(tmp_path, capsys):
    source = tmp_path / "layout.json"
    source.write_text(dumps_canonical(_stripped(LANTERN[0])), encoding="utf-8")
    outputs = []
    for seed in (1, 1, 2, 3, 4):
        out = tmp_path / f"out-{len(outputs)}.json"
        assert main(["populate", str(source), "--seed", str(seed), "-o", str(out)]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(set(outputs)) == 4


def test_a_layout_without_a_start_gets_one_on_its_outer_wall():
    layout = _chain_layout()
    layout["elements"] = [e for e in layout["elements"] if e["kind"] != "start"]
    result = populate_line(layout, line_spec(None, LINE), 1)
    starts = [e for e in result.data["elements"] if e["kind"] == "start"]
    assert len(starts) == 1
    outline = shapely.union_all([shapely.Polygon(a["polygon"]) for a in layout["areas"]]).exterior
    assert outline.distance(shapely.Point(starts[0]["at"])) <= LINE.print_limits["snap_tolerance_mm"]
    assert _errors(result.data) == []
    assert any("Start" in note for note in result.notes)


def test_orbs_get_the_sheet_tokens_of_their_colours_and_a_boss_its_trigger():
    spec = line_spec(_constraints(elements={"orb": 1, "boss": 1}, orb_tokens={"blue": [6, 2]}), LINE)
    data = populate_line(_chain_layout(), spec, 1).data
    orbs = [e for e in data["elements"] if e["kind"] == "orb"]
    assert [o["colour"] for o in orbs] == ["blue"]
    assert data["sheet"]["orb_tokens"] == {"blue": [6, 2]}
    assert data["sheet"]["end_triggers"] == [{"kind": "boss_covered"}]
    assert [e["vp"] for e in data["elements"] if e["kind"] == "boss"] == [5]
    assert data["sheet"]["components"] == ["keys", "orbs"]


# --- the command line -------------------------------------------------------------------------------
def test_help_has_examples_and_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["populate", "--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and "exit codes:" in out and "--seed" in out


def test_cli_refuses_an_existing_output_bad_input_and_a_grid_dungeon(tmp_path, capsys):
    source = tmp_path / "layout.json"
    source.write_text(dumps_canonical(_chain_layout()), encoding="utf-8")
    out = tmp_path / "out.json"
    out.write_text("keep", encoding="utf-8")
    assert main(["populate", str(source), "--seed", "1", "-o", str(out)]) == 2
    assert out.read_text(encoding="utf-8") == "keep"
    assert main(["populate", str(source), "--seed", "1", "-o", str(out), "--force"]) == 0
    assert _errors(json.loads(out.read_text(encoding="utf-8"))) == []
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert main(["populate", str(broken), "--seed", "1", "-o", str(tmp_path / "b.json")]) == 2
    grid = tmp_path / "grid.json"
    assert main(["generate", "--family", "grid", "--seed", "1", "-o", str(grid)]) == 0
    assert main(["populate", str(grid), "--seed", "1", "-o", str(tmp_path / "g.json")]) == 2
    assert not (tmp_path / "b.json").exists() and not (tmp_path / "g.json").exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err


def test_cli_impossible_constraints_exit_1_and_write_nothing(tmp_path, capsys):
    source = tmp_path / "layout.json"
    source.write_text(dumps_canonical(_one_red_door()), encoding="utf-8")
    constraints = tmp_path / "deep.json"
    constraints.write_text(json.dumps(_constraints(locks={"depth": 3})), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["populate", str(source), "--seed", "1", "--constraints", str(constraints), "-o", str(out)]) == 1
    assert not out.exists()
    assert "line.locks.depth" in capsys.readouterr().err


# --- inkcrawl generate --family line ----------------------------------------------------------------
def _generated(seed: int, **line) -> dict:
    from inkcrawl.generate.line import generate_line

    return generate_line(line_spec(_constraints(**line) if line else None, LINE), seed).data


def test_forty_seeds_validate_with_zero_errors_and_give_forty_distinct_dungeons():
    seen = set()
    for seed in range(40):
        data = _generated(seed)
        assert _errors(data) == [], seed
        seen.add(dumps_canonical({k: data[k] for k in ("areas", "elements")}))
    assert len(seen) == 40


def test_generated_layouts_print_well(tmp_path):
    required = max(LINE.print_limits["min_gap_mm"], LINE.data["pen_width_mm"])
    for seed in range(8):
        data = _generated(seed)
        rooms = [a for a in data["areas"] if a["kind"] == "room"]
        corridors = [a for a in data["areas"] if a["kind"] == "corridor"]
        assert 5 <= len(rooms) <= 8
        assert len({r["name"] for r in rooms}) == len(rooms)  # every room named, no two alike
        polygons = {a["id"]: shapely.Polygon(a["polygon"]) for a in data["areas"]}
        for corridor in corridors:
            shape = polygons[corridor["id"]]
            x0, y0, x1, y1 = shape.bounds
            width = min(x1 - x0, y1 - y0) if (x1 - x0) != (y1 - y0) else x1 - x0
            ends = [
                shape.boundary.intersection(polygons[r["id"]].boundary).length
                for r in rooms
                if shape.boundary.intersection(polygons[r["id"]].boundary).length > 0
            ]
            # a corridor meets two rooms, each along its whole end: openings as wide as the corridor
            assert ends == [pytest.approx(12.0), pytest.approx(12.0)], (seed, corridor["id"], ends)
            assert width >= 12.0 - 1e-9 or max(x1 - x0, y1 - y0) >= 12.0
        assert 12.0 >= 3 * required
        # nothing outside the region between the title and the footer
        every = [p for a in data["areas"] for p in a["polygon"]]
        assert min(p[0] for p in every) >= 20 - 1e-9 and max(p[0] for p in every) <= 190 + 1e-9
        assert min(p[1] for p in every) >= 35 - 1e-9 and max(p[1] for p in every) <= 225 + 1e-9
        for element in data["elements"]:
            if element.get("size_mm"):
                assert element["size_mm"] >= LINE.print_limits["min_element_mm"]


def test_generate_line_same_seed_same_bytes_and_another_seed_another_dungeon(tmp_path, capsys):
    paths = [tmp_path / f"{n}.json" for n in range(3)]
    for path, seed in zip(paths, (6, 6, 7)):
        assert main(["generate", "--family", "line", "--seed", str(seed), "-o", str(path)]) == 0
    # the file name becomes the id: compare everything else
    texts = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    for data in texts:
        data.pop("id")
    assert texts[0] == texts[1] and texts[0] != texts[2]
    again = tmp_path / "again"
    again.mkdir()
    assert main(["generate", "--family", "line", "--seed", "6", "-o", str(again / "0.json")]) == 0
    assert (again / "0.json").read_bytes() == paths[0].read_bytes()


def test_generate_line_meets_a_par_range_and_locked_doors_as_measured():
    data = _generated(3, rooms=7, locked_doors=2, difficulty={"par": [20, 24]})
    measured = par(LineRules(line_game_data(dungeon_from_dict(data), LINE)), 1).par
    assert 20 <= measured <= 24
    assert sum(1 for e in data["elements"] if e["kind"] == "door") == 2
    assert sum(1 for a in data["areas"] if a["kind"] == "room") == 7


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ({"rooms": 13}, "line.rooms"),
        ({"rooms": 2, "locked_doors": 3}, "line.locked_doors"),
        ({"corridor_width_mm": 30}, "line.corridor_width_mm"),
        ({"corridor_width_mm": 4}, "line.corridor_width_mm"),
        ({"rooms": 5, "elements": {"monster": 300}}, "line.elements"),
    ],
)
def test_generate_line_explains_an_impossible_spec_within_a_second(line, named):
    from inkcrawl.generate.line import generate_line

    started = time.monotonic()
    with pytest.raises(Infeasible) as caught:
        generate_line(line_spec(_constraints(**line), LINE), 1, time_limit=30)
    assert time.monotonic() - started < 1.0
    assert caught.value.constraint == named


def test_the_documented_line_section_validates_and_populates_and_the_schema_describes_it():
    from inkcrawl.schema import schema_problems

    schema = json.loads((ROOT / "schemas" / "constraints.schema.json").read_text(encoding="utf-8"))
    members = schema["$defs"]["line"]["properties"]
    assert {"elements", "locks", "difficulty", "rooms", "locked_doors", "corridor_width_mm", "loops"} <= set(members)
    assert all("description" in member for member in members.values())
    text = (ROOT / "docs" / "generating.md").read_text(encoding="utf-8")
    example = next(
        json.loads(block.split("```")[0]) for block in text.split("```json\n")[1:] if '"family": "line"' in block
    )
    assert schema_problems(example, "constraints", "docs/generating.md") == []
    spec = line_spec(example, LINE)
    assert spec.elements["monster"] == (3, 5) and spec.depth == 2 and spec.par_range == (15, 25)
    result = populate_line(_stripped(LANTERN[3]), spec, 1, time_limit=30)
    assert 15 <= result.par <= 25 and result.depth == 2
    assert _errors(result.data) == []
    bad = _constraints(elements={"monster": "many"}, locks={"depth": -1})
    assert [p.pointer for p in schema_problems(bad, "constraints", "c.json")] == [
        "/line/elements/monster",
        "/line/locks/depth",
    ]
