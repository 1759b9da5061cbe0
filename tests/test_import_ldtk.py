"""The LDtk importer (docs/importing-ldtk.md): levels, IntGrid layers as walls and floors,
entities through the class mapping, separate level files, old formats, hostile input. The
projects here are small hand-made ones with expectations worked out by hand; the bundled LDtk
samples (/work/shared/samples/ldtk, third-party, read in place) are imported when present."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from inkcrawl.checks.line import label_bounds
from inkcrawl.cli import main
from inkcrawl.importers import ImportFailed, ImportOptions, MappingFailed, detect_format, importers
from inkcrawl.model import dungeon_from_dict
from tests.test_tiled import _layer, _map, _rect, _write_map

SAMPLES = Path("/work/shared/samples/ldtk")
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason="the LDtk samples folder is missing")
LDTK = importers()["ldtk"]

# A 10 x 6 level of 16 px cells. Values: 1 wall, 2 floor, 3 corridor, 4 water (not a role name).
#   row 0  1111111111
#   row 1  1222112221    room A: columns 1-3, rows 1-3
#   row 2  1222332221    corridor: columns 4-5, row 2
#   row 3  1222112221    room B: columns 6-8, rows 1-4
#   row 4  1111112221
#   row 5  1111441111    water: named in a warning and ignored


def _codes() -> list[int]:
    rows = [
        "1111111111",
        "1222112221",
        "1222332221",
        "1222112221",
        "1111112221",
        "1111441111",
    ]
    return [int(ch) for row in rows for ch in row]


def _field(name: str, value, kind: str = "String") -> dict:
    return {"__identifier": name, "__type": kind, "__value": value, "defUid": 1, "realEditorValues": []}


def _entity(ident: str, cx: int, cy: int, width: int = 16, height: int = 16, pivot=(0.5, 0.5), **fields) -> dict:
    """An entity whose box is the cell (cx, cy) (for 16 x 16 entities with a centred pivot)."""
    return {
        "__identifier": ident,
        "__grid": [cx, cy],
        "__pivot": list(pivot),
        "__tags": [],
        "__tile": None,
        "iid": f"iid-{ident}-{cx}-{cy}",
        "width": width,
        "height": height,
        "defUid": 100,
        "px": [cx * 16 + pivot[0] * width, cy * 16 + pivot[1] * height],
        "fieldInstances": [_field(k, v) for k, v in fields.items()],
    }


def _intgrid_layer(name: str, csv: list[int], columns: int = 10, rows: int = 6, grid: int = 16, uid: int = 1):
    return {
        "__identifier": name,
        "__type": "IntGrid",
        "__cWid": columns,
        "__cHei": rows,
        "__gridSize": grid,
        "__pxTotalOffsetX": 0,
        "__pxTotalOffsetY": 0,
        "layerDefUid": uid,
        "intGridCsv": csv,
        "autoLayerTiles": [],
        "gridTiles": [],
        "entityInstances": [],
    }


def _entities_layer(entities: list[dict]) -> dict:
    return {
        "__identifier": "Entities",
        "__type": "Entities",
        "__cWid": 10,
        "__cHei": 6,
        "__gridSize": 16,
        "__pxTotalOffsetX": 0,
        "__pxTotalOffsetY": 0,
        "layerDefUid": 2,
        "intGridCsv": [],
        "entityInstances": entities,
    }


def _level(name: str, layers: list[dict], width: int = 160, height: int = 96, **extra) -> dict:
    return {
        "identifier": name,
        "iid": f"iid-{name}",
        "pxWid": width,
        "pxHei": height,
        "layerInstances": layers,
        **extra,
    }


def _project(levels: list[dict], values=None, layer_name: str = "Dungeon", **extra) -> dict:
    values = values or [(1, "wall"), (2, "floor"), (3, "corridor"), (4, "water")]
    return {
        "__header__": {"fileType": "LDtk Project JSON", "app": "LDtk"},
        "jsonVersion": "1.5.3",
        "defaultGridSize": 16,
        "externalLevels": False,
        "defs": {
            "layers": [
                {
                    "identifier": layer_name,
                    "type": "IntGrid",
                    "uid": 1,
                    "gridSize": 16,
                    "intGridValues": [{"value": v, "identifier": n, "color": "#000000"} for v, n in values],
                },
                {"identifier": "Entities", "type": "Entities", "uid": 2, "gridSize": 16, "intGridValues": []},
            ],
            "entities": [],
        },
        "levels": levels,
        **extra,
    }


def _write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def _convert(path: Path, **options):
    return LDTK.convert(path, ImportOptions(**options))


def _messages(result) -> list[str]:
    return [f"{note.source}: {note.message}" for note in result.notes]


def _corners(polygon) -> set[tuple[float, float]]:
    return {(round(x, 3), round(y, 3)) for x, y in polygon}


def _dungeon_project(tmp_path: Path, entities: list[dict] | None = None, **extra) -> Path:
    layers = [_entities_layer(entities or []), _intgrid_layer("Dungeon", _codes())]
    return _write(tmp_path / "dungeon.ldtk", _project([_level("Crypt", layers)], **extra))


# ------------------------------------------------------------------------------------------
# IntGrid layers: walls and floors


def test_floor_and_corridor_values_become_areas_at_their_cells(tmp_path):
    result = _convert(_dungeon_project(tmp_path), cell_mm=10)
    data = result.dungeon
    assert data["family"] == "line" and data["id"] == "Crypt" and data["sheet"]["title"] == "Crypt"
    # Floor spans columns 1..9 and rows 1..5 (8 x 4 cells = 80 x 40 mm at 10 mm a cell), centred in
    # the drawing band x 15..195, y 30..222: x = 55 + 10 * column, y = 96 + 10 * row.
    areas = {area["id"]: area for area in data["areas"]}
    assert set(areas) == {"room-1", "corridor-3", "room-2"}
    assert areas["room-1"]["kind"] == "room"
    assert _corners(areas["room-1"]["polygon"]) == {(65, 106), (95, 106), (95, 136), (65, 136)}
    assert _corners(areas["room-2"]["polygon"]) == {(115, 106), (145, 106), (145, 146), (115, 146)}
    assert areas["corridor-3"]["kind"] == "corridor"
    assert _corners(areas["corridor-3"]["polygon"]) == {(95, 116), (115, 116), (115, 126), (95, 126)}
    water = [m for m in _messages(result) if "'water'" in m]
    assert len(water) == 1 and "2 cell(s)" in water[0] and "IntGrid value 4 'water' of layer 'Dungeon'" in water[0]


def test_walls_alone_make_the_walled_in_empty_cells_the_floor(tmp_path):
    # layer 'Walls' with one value without an identifier: a wall by the layer's name
    rows = ["......", ".1111.", ".1..1.", ".1..1.", ".1111.", "......"]
    csv = [1 if ch == "1" else 0 for row in rows for ch in row]
    layers = [_intgrid_layer("Walls", csv, 6, 6)]
    project = _project([_level("Cell", layers, 96, 96)], values=[(1, None)], layer_name="Walls")
    result = _convert(_write(tmp_path / "walls.ldtk", project), cell_mm=10)
    (area,) = result.dungeon["areas"]
    # the 2 x 2 empty cells at columns 2-3, rows 2-3, centred: x0 = 15 + (180 - 20) / 2 = 95
    assert _corners(area["polygon"]) == {(95, 116), (115, 116), (115, 136), (95, 136)}
    assert any("the empty cells the walls enclose are read as room floor" in m for m in _messages(result))


def test_passages_one_cell_wide_are_corridors_when_no_value_says_corridor(tmp_path):
    rows = [
        "111111111",
        "1..11..11",  # room A: columns 1-2, rows 1-2; room B: columns 5-6, rows 1-2
        "1..11..11",
        "11.11.111",  # a U-shaped passage one cell wide joins them
        "11....111",
        "111111111",
    ]
    csv = [1 if ch == "1" else 0 for row in rows for ch in row]
    project = _project([_level("U", [_intgrid_layer("Walls", csv, 9, 6)], 144, 96)], values=[(1, "wall")])
    result = _convert(_write(tmp_path / "u.ldtk", project), cell_mm=10)
    areas = {area["id"]: area for area in result.dungeon["areas"]}
    assert [areas[i]["kind"] for i in ("room-1", "room-2", "corridor-3")] == ["room", "room", "corridor"]
    # floor spans x 1..7, y 1..5 cells: x = 65 + 10 * column, y = 96 + 10 * row
    assert _corners(areas["room-1"]["polygon"]) == {(75, 106), (95, 106), (95, 126), (75, 126)}
    assert _corners(areas["corridor-3"]["polygon"]) == {
        (85, 126),
        (95, 126),
        (95, 136),
        (115, 136),
        (115, 126),
        (125, 126),
        (125, 146),
        (85, 146),
    }
    assert any("6 room floor cell(s) lie in passages one cell wide" in m for m in _messages(result))


def test_the_mapping_gives_intgrid_values_their_meaning(tmp_path):
    path = _dungeon_project(tmp_path)
    result = _convert(path, cell_mm=10, mapping={"intgrid": {"water": "corridor", "Dungeon:3": "room"}})
    kinds = sorted(area["kind"] for area in result.dungeon["areas"])
    # value 3 is now room floor: room A, the old corridor and room B are one room; the water a corridor
    assert kinds == ["corridor", "room"]
    assert not any("'water'" in m for m in _messages(result))
    with pytest.raises(MappingFailed, match=r"intgrid/water: 'lava' is not a meaning.*use wall, room"):
        _convert(path, mapping={"intgrid": {"water": "lava"}})
    with pytest.raises(MappingFailed, match=r"intgrid/water: 'wal' .*did you mean 'wall'"):
        _convert(path, mapping={"intgrid": {"water": "wal"}})
    with pytest.raises(MappingFailed, match=r"unknown members 'intgird' \(did you mean 'intgrid'\?\)"):
        _convert(path, mapping={"intgird": {"water": "wall"}})
    named = _messages(_convert(path, mapping={"intgrid": {"lava": "wall"}}))
    assert any("'lava' name no IntGrid value" in m for m in named)


def test_layers_of_different_cell_sizes_are_combined_on_their_common_grid(tmp_path):
    # 16 px walls ring a 2 x 2 cell floor; an 8 px layer marks one 8 px cell of it as a wall
    rows = ["1111", "1..1", "1..1", "1111"]
    walls = [1 if ch == "1" else 0 for row in rows for ch in row]
    fine = [0] * 64
    fine[2 * 8 + 2] = 1  # the 8 px cell (2, 2): the top-left quarter of the 16 px cell (1, 1)
    layers = [_intgrid_layer("Walls", walls, 4, 4), _intgrid_layer("Rocks", fine, 8, 8, grid=8, uid=3)]
    project = _project([_level("Two", layers, 64, 64)], values=[(1, "wall")], layer_name="Walls")
    project["defs"]["layers"].append(
        {"identifier": "Rocks", "type": "IntGrid", "uid": 3, "gridSize": 8, "intGridValues": [{"value": 1}]}
    )
    result = _convert(_write(tmp_path / "two.ldtk", project), cell_mm=10)
    (area,) = result.dungeon["areas"]
    # floor: cells 1..3 x 1..3 (in 16 px cells) less the quarter at (1, 1)-(1.5, 1.5): an L of 6 corners
    # (a rock layer value without identifier is a wall by the layer's name 'Rocks')
    assert len(area["polygon"]) == 6
    xs = sorted({p[0] for p in area["polygon"]})
    assert xs == [95.0, 100.0, 115.0]  # x0 = 15 + (180 - 20) / 2 = 95; the notch ends half a cell in


# ------------------------------------------------------------------------------------------
# entities


def test_entities_become_elements_through_the_class_mapping(tmp_path):
    entities = [
        _entity("Monster", 2, 2),
        _entity("Door", 4, 2, width=4, height=16, pivot=(0, 0), locks="red"),
        _entity("Torch", 7, 3),
        _entity("Monstr", 7, 2),
        _entity("Labels", 2, 1, width=48, height=16, pivot=(0, 0), text="Hall", color="#FFFFFF"),
        _entity("Goblin", 6, 4, name="Grub"),
    ]
    path = _dungeon_project(tmp_path, entities)
    result = _convert(path, cell_mm=10, mapping={"classes": {"Goblin": "monster"}})
    elements = {e["id"]: e for e in result.dungeon["elements"]}
    # Monster centred in cell (2, 2): x = 55 + 10 * 2.5, y = 96 + 10 * 2.5
    assert elements["monster1"]["kind"] == "monster" and elements["monster1"]["at"] == [80, 121]
    # a 4 x 16 px door box at (64, 32): its middle line along the longer side, x = 66 px = 4.125 cells
    door = elements["door2"]
    assert door["locks"] == ["red"] and door["segment"] == [[96.25, 116], [96.25, 126]]
    # Labels (plural) is a label; its text from the 'text' field; the box (32..80, 16..32) px centred
    label = elements["label5"]
    assert label["kind"] == "label" and label["text"] == "Hall" and label["at"] == [90, 111]
    goblin = elements["monster6"]
    assert goblin["name"] == "Grub" and goblin["at"] == [120, 141]
    messages = _messages(result)
    assert "entity 'Torch' #3 at cell (7, 3) on layer 'Entities': has a class the mapping does not know; skipped" in (
        "\n".join(messages)
    )
    assert any(m.startswith("entity 'Monstr' #4") and "did you mean 'monster'" in m for m in messages)
    assert any(m.startswith("entity 'Labels' #5") and "'color' have no meaning for a label" in m for m in messages)


def test_a_door_on_the_floor_gets_a_doorway_and_stands_between_two_areas(tmp_path, capsys):
    # two rooms walled apart but for a gap at column 3, row 2, where a 16 x 16 door entity stands
    rows = ["1111111", "1..1..1", "1.....1", "1..1..1", "1111111"]
    csv = [1 if ch == "1" else 0 for row in rows for ch in row]
    door = _entity("Door", 3, 2, locks=["Red"])
    layers = [_entities_layer([door]), _intgrid_layer("Walls", csv, 7, 5)]
    project = _project([_level("Gate", layers, 112, 80)], values=[(1, "walls")], layer_name="Walls")
    path = _write(tmp_path / "gate.ldtk", project)
    result = _convert(path, cell_mm=10)
    areas = {area["id"]: area for area in result.dungeon["areas"]}
    assert set(areas) == {"room-1", "room-2", "doorway-3"} and areas["doorway-3"]["kind"] == "corridor"
    # floor spans x 1..6, y 1..4 cells: x = 70 + 10 * column, y = 101 + 10 * row
    assert _corners(areas["doorway-3"]["polygon"]) == {(100, 121), (110, 121), (110, 131), (100, 131)}
    (gate,) = [e for e in result.dungeon["elements"] if e["kind"] != "start"]
    assert gate["kind"] == "door" and gate["locks"] == ["red"]
    assert gate["segment"] == [[100, 121], [100, 131]]  # the doorway's left side, facing room-1
    assert any(m.startswith("entity 'Door' #1 at cell (3, 2)") and "made a doorway" in m for m in _messages(result))
    main(["import", str(path), "-o", str(tmp_path / "gate.json"), "--cell-mm", "10"])
    assert "L008" not in capsys.readouterr().err  # the door lies on the wall between two areas


def test_an_entity_with_an_unreadable_position_is_named_and_skipped(tmp_path):
    broken = _entity("Monster", 2, 2)
    broken["px"] = "here"
    result = _convert(_dungeon_project(tmp_path, [broken, _entity("Monster", 6, 2)]))
    assert [e["kind"] for e in result.dungeon["elements"]] == ["monster", "start"]  # the Start added
    assert any(
        m.startswith("entity 'Monster' #1 at cell (2, 2)") and "not [x, y]; skipped" in m for m in _messages(result)
    )


def test_a_grid_family_mapping_puts_entities_in_grid_rooms(tmp_path):
    entities = [_entity("Monster", 2, 2, letter="B"), _entity("Chest", 6, 1)]
    path = _dungeon_project(tmp_path, entities)
    result = _convert(path, mapping={"family": "grid"})
    data = result.dungeon
    assert data["family"] == "grid" and data["grid"]["columns"] == 10 and data["grid"]["rows"] == 6
    features = {f["kind"]: f for f in data["features"]}
    assert features["monster"]["cell"] == [2, 2] and features["monster"]["letter"] == "B"
    assert features["loot"]["cell"] == [6, 1]
    assert any("are not read for a grid dungeon" in m for m in _messages(result))


def test_entities_wholly_outside_the_level_or_across_its_edge_are_named_in_the_levels_words(tmp_path):
    entities = [_entity("Monster", 12, 2), _entity("Monster", 9, 2, width=32)]  # 192 px; 144..176 px
    messages = _messages(_convert(_dungeon_project(tmp_path, entities)))
    assert (
        "entity 'Monster' #1 at cell (12, 2) on layer 'Entities': lies wholly outside the level (0..160 x 0..96 px); "
        "skipped" in messages
    )
    assert "entity 'Monster' #2 at cell (9, 2) on layer 'Entities': crosses the level's edge; kept whole" in messages
    assert not any("outside the map" in m or "the map edge" in m for m in messages)


# ------------------------------------------------------------------------------------------
# Starts on the outer wall
# (the _dungeon_project level at 10 mm a cell: x = 55 + 10 * column, y = 96 + 10 * row; room-1 is
# x 65..95, y 106..136, the corridor x 95..115, y 116..126, room-2 x 115..145, y 106..146; a Start
# is 8 mm across by default, a treasure 10 mm)


def _point_entity(ident: str, x: float, y: float) -> dict:
    """An entity of no size at (x, y) px."""
    entity = _entity(ident, int(x // 16), int(y // 16), width=0, height=0)
    entity["px"] = [x, y]
    return entity


def _starts(result) -> list[dict]:
    return [e for e in result.dungeon["elements"] if e["kind"] == "start"]


def test_a_start_entity_moves_to_the_nearest_outer_wall_and_validates(tmp_path, capsys):
    # a Start in room-1's cell (1, 2): centre (24, 40) px = (70, 121) mm, 5 mm from the west wall x = 65
    path = _dungeon_project(tmp_path, [_entity("Start", 1, 2), _entity("Monster", 7, 2)])
    result = _convert(path, cell_mm=10)
    (start,) = _starts(result)
    assert start["id"] == "start1" and start["at"] == [65, 121]
    assert (
        "entity 'Start' #1 at cell (1, 2) on layer 'Entities': a Start goes on the outer wall: moved 5.0 mm, from "
        "(70, 121) to (65, 121) mm, the nearest place on the outer wall clear of the other elements"
        in _messages(result)
    )
    out = tmp_path / "crypt.json"
    assert main(["import", str(path), "-o", str(out), "--cell-mm", "10"]) == 0
    captured = capsys.readouterr()
    assert "error" not in captured.err and "to play it: no end trigger" in captured.out
    assert main(["validate", str(out)]) == 0
    assert "0 errors" in capsys.readouterr().out


@pytest.mark.parametrize("ident", ["Player", "Spawn", "Entrance", "player_start", "Starts"])
def test_the_names_of_a_level_start_become_starts(tmp_path, ident):
    # a point entity 2.5 mm from the west wall: (20, 40) px = (67.5, 121) mm
    (start,) = _starts(_convert(_dungeon_project(tmp_path, [_point_entity(ident, 20, 40)]), cell_mm=10))
    assert start["at"] == [65, 121]


def test_a_start_already_on_the_outer_wall_stays_and_the_mapping_wins(tmp_path):
    path = _dungeon_project(tmp_path, [_point_entity("Player", 16, 40)])  # (65, 121) mm: on the west wall
    result = _convert(path, cell_mm=10)
    assert [s["at"] for s in _starts(result)] == [[65, 121]]
    assert not any("Start" in m for m in _messages(result))
    # mapped to something else, the Player is no Start: one is added (see below)
    result = _convert(path, cell_mm=10, mapping={"classes": {"Player": "monster"}})
    assert [s["id"] for s in _starts(result)] == ["start"]


def test_a_start_clears_the_elements_beside_the_wall(tmp_path):
    # the nearest place (65, 121) is 5 mm from a treasure at (70, 121): a Start (radius 4) and the
    # treasure (radius 5) need 9 - 0.2 (the overlap tolerance) = 8.8 mm between centres. Along the
    # wall in steps of 2 mm, up first: y = 121 - 2k at sqrt(25 + 4k^2) >= 8.8 first for k = 4, y = 113
    entities = [_point_entity("Start", 20, 40), _entity("Treasure", 1, 2, variant="chest")]
    result = _convert(_dungeon_project(tmp_path, entities), cell_mm=10)
    (start,) = _starts(result)
    assert start["at"] == [65, 113]


def test_a_level_without_a_start_gets_one_on_the_first_rooms_outer_wall(tmp_path, capsys):
    # room-1's outer walls: west, north and south, 30 mm each (its east side is 10 + 10 mm beside
    # the corridor); of equal ones the highest: the north wall, its middle (80, 106)
    path = _dungeon_project(tmp_path, [_entity("Monster", 7, 2)])
    result = _convert(path, cell_mm=10)
    (start,) = _starts(result)
    assert start == {"id": "start", "kind": "start", "at": [80, 106], "size_mm": 8, "rotation_deg": 0}
    assert (
        "the level: has no entity that is a Start (Start, Spawn, Entrance, Player...); a Start 'start' was added on "
        "the outer wall of room 'room-1', at (80.000, 106.000) mm: move it where the party enters"
    ) in _messages(result)
    assert main(["import", str(path), "-o", str(tmp_path / "crypt.json"), "--cell-mm", "10"]) == 0
    assert "error" not in capsys.readouterr().err


def test_a_label_running_off_the_paper_is_moved_just_inside_it(tmp_path):
    # at 18 mm a cell the floor (columns 1..9, rows 1..5: 144 x 72 mm) is centred in the drawing band
    # (x 15..195, y 30..222): x = 15 + 18 * column, y = 72 + 18 * row. A label centred on cell (0, 1),
    # at (24, 99) mm, with text far wider than 2 x 14 mm runs past the printable area's left edge x = 10
    label = _entity("Label", 0, 1, text="The long hall of the sunken crypt")
    result = _convert(_dungeon_project(tmp_path, [label]), cell_mm=18)
    data = result.dungeon
    (moved,) = [e for e in dungeon_from_dict(data).elements if e.kind == "label"]
    left, _, right, _ = label_bounds(moved)
    assert 10 < left < 10.01 and right < 200 and moved.at[1] == 99  # moved sideways only
    assert any(
        m.startswith("label 'label1' ('The long hall of the sunken cr'): its text ran off the printable area; moved")
        for m in _messages(result)
    )


def test_a_level_without_floor_gets_no_start_and_says_why(tmp_path):
    result = _convert(_write(tmp_path / "bare.ldtk", _project([_level("Bare", [_entities_layer([])])])))
    assert _starts(result) == [] and result.dungeon["areas"] == []
    assert "the level: has no floor: no Start can be placed on an outer wall" in _messages(result)


# ------------------------------------------------------------------------------------------
# levels, level files, old formats


def _three_levels(tmp_path: Path) -> Path:
    small = [_intgrid_layer("Dungeon", [2] * 4, 2, 2)]
    levels = [_level(name, small, 32, 32) for name in ("Entry", "Cellar", "Tower")]
    return _write(tmp_path / "three.ldtk", _project(levels))


def test_the_first_level_by_default_and_the_others_named(tmp_path):
    result = _convert(_three_levels(tmp_path))
    assert result.dungeon["id"] == "Entry"
    assert any(
        "has 3 levels; imported the first, 'Entry' (the others: 'Cellar', 'Tower')" in m for m in _messages(result)
    )


@pytest.mark.parametrize("wanted", ["Tower", "tower", "3", "iid-Tower"])
def test_a_level_chosen_by_name_number_or_iid(tmp_path, wanted):
    result = _convert(_three_levels(tmp_path), level=wanted)
    assert result.dungeon["id"] == "Tower" and result.dungeon["sheet"]["title"] == "Tower"
    assert not any("levels; imported the first" in m for m in _messages(result))


def test_an_unknown_level_names_the_levels_and_the_nearest(tmp_path, capsys):
    path = _three_levels(tmp_path)
    code = main(["import", str(path), "-o", str(tmp_path / "out.json"), "--level", "Towr"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no level 'Towr' in the project (did you mean 'Tower'?)" in err
    assert "'Entry', 'Cellar', 'Tower' (or a number from 1 to 3)" in err
    assert not (tmp_path / "out.json").exists()


def _external_project(tmp_path: Path, level_path: str = "dungeon/0000-Crypt.ldtkl") -> Path:
    levels = [
        {"identifier": "Crypt", "pxWid": 160, "pxHei": 96, "layerInstances": None, "externalRelPath": level_path},
        {
            "identifier": "Attic",
            "pxWid": 160,
            "pxHei": 96,
            "layerInstances": None,
            "externalRelPath": "dungeon/a.ldtkl",
        },
    ]
    return _write(tmp_path / "dungeon.ldtk", _project(levels, externalLevels=True))


def test_a_level_in_its_own_file_is_read_and_a_missing_one_named(tmp_path):
    (tmp_path / "dungeon").mkdir()
    level = _level("Crypt", [_intgrid_layer("Dungeon", _codes())])
    level["__header__"] = {"fileType": "LDtk Level JSON", "app": "LDtk"}
    _write(tmp_path / "dungeon" / "0000-Crypt.ldtkl", level)
    path = _external_project(tmp_path)
    result = _convert(path, cell_mm=10)
    assert len(result.dungeon["areas"]) == 3
    assert any("level 2 'Attic': its level file 'dungeon/a.ldtkl' is missing" in m for m in _messages(result))
    with pytest.raises(ImportFailed, match=r"level 2 'Attic' is kept in its own file 'dungeon/a.ldtkl'.*missing"):
        _convert(path, level="Attic")
    # the level file itself given to the importer: told to import the project
    with pytest.raises(ImportFailed, match=r"an LDtk level file \(\.ldtkl\).*import the project"):
        _convert(tmp_path / "dungeon" / "0000-Crypt.ldtkl")


def test_a_level_file_outside_the_projects_folder_is_refused(tmp_path):
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    _write(tmp_path / "secret.ldtkl", _level("Crypt", [_intgrid_layer("Dungeon", _codes())]))
    path = _external_project(project_dir, "../secret.ldtkl")
    with pytest.raises(ImportFailed, match=r"leads outside the map's folder.*--allow-folder"):
        _convert(path)
    assert len(_convert(path, allowed_folders=(str(tmp_path),)).dungeon["areas"]) == 3


def test_the_old_sparse_intgrid_list_is_read_as_value_plus_one(tmp_path):
    # LDtk before 0.7 wrote only the cells holding a value, each {coordId, v} with v = value - 1
    layer = _intgrid_layer("Dungeon", [])
    del layer["intGridCsv"]
    layer["intGrid"] = [{"coordId": i, "v": value - 1} for i, value in enumerate(_codes()) if value]
    project = _project([_level("Crypt", [layer])], jsonVersion="0.6.2")
    result = _convert(_write(tmp_path / "old.ldtk", project), cell_mm=10)
    assert sorted(a["id"] for a in result.dungeon["areas"]) == ["corridor-3", "room-1", "room-2"]


def test_level_all_makes_a_new_pack_of_every_level(tmp_path, capsys):
    # Crypt (two rooms and a corridor), Cellar and cellar (2 x 2 floor cells each: ids that differ
    # only by case get their own file names), all validating without errors
    small = [_intgrid_layer("Dungeon", [2] * 4, 2, 2)]
    levels = [_level("Crypt", [_intgrid_layer("Dungeon", _codes())])]
    levels += [_level(name, small, 32, 32) for name in ("Cellar", "cellar")]
    path = _write(tmp_path / "world.ldtk", _project(levels))
    pack = tmp_path / "world-pack"
    assert main(["import", str(path), "-o", str(pack), "--level", "all"]) == 0
    captured = capsys.readouterr()
    assert f"wrote {pack} from ldtk: pack.json and 3 dungeons" in captured.out
    assert "level 2 'Cellar': the level: has no entity that is a Start" in captured.err
    manifest = json.loads((pack / "pack.json").read_text())
    assert manifest["type"] == "pack" and manifest["id"] == "world-pack" and manifest["ruleset"] == "line-classic"
    assert manifest["dungeons"] == ["dungeons/Crypt.json", "dungeons/Cellar.json", "dungeons/cellar-2.json"]
    ids = [json.loads((pack / relative).read_text())["id"] for relative in manifest["dungeons"]]
    assert ids == ["Crypt", "Cellar", "cellar-2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["world-pack", "world.ldtk"]  # no temporary left
    assert main(["validate", str(pack)]) == 0
    # the folder exists now: refused, nothing changed
    assert main(["import", str(path), "-o", str(pack), "--level", "ALL"]) == 2
    assert "already exists; --level all writes a new pack folder" in capsys.readouterr().err
    assert main(["import", str(path), "-o", str(tmp_path / "pack.json"), "--level", "all"]) == 2
    assert "-o names the pack folder to create, not a .json file" in capsys.readouterr().err


def test_level_all_leaves_out_the_levels_it_cannot_read_and_writes_nothing_without_one(tmp_path, capsys):
    (tmp_path / "dungeon").mkdir()
    _write(tmp_path / "dungeon" / "0000-Crypt.ldtkl", _level("Crypt", [_intgrid_layer("Dungeon", _codes())]))
    path = _external_project(tmp_path)  # Crypt's level file is there, Attic's is missing
    assert main(["import", str(path), "-o", str(tmp_path / "pack"), "--level", "all"]) == 0
    err = capsys.readouterr().err
    assert "level 2 'Attic': not imported: level 2 'Attic' is kept in its own file 'dungeon/a.ldtkl'" in err
    assert json.loads((tmp_path / "pack" / "pack.json").read_text())["dungeons"] == ["dungeons/Crypt.json"]
    # a wrong mapping is the mapping's fault, for every level: nothing written
    mapping = _write(tmp_path / "map.json", {"intgrid": {"water": "lava"}})
    assert main(["import", str(path), "-o", str(tmp_path / "bad"), "--level", "all", "--map", str(mapping)]) == 2
    assert f"{mapping}: intgrid/water: 'lava' is not a meaning" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
    (tmp_path / "dungeon" / "0000-Crypt.ldtkl").unlink()
    assert main(["import", str(path), "-o", str(tmp_path / "none"), "--level", "all"]) == 2
    assert "no level could be imported; nothing written" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dungeon", "dungeon.ldtk", "map.json", "pack"]


# ------------------------------------------------------------------------------------------
# hostile and malformed input


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda p: p.update(levels="many"), "no list of 'levels'"),
        (lambda p: p.update(levels=[]), "the project has no level"),
        (lambda p: p["levels"][0].update(pxWid="wide"), "pxWid is 'wide', not a size in pixels"),
        (lambda p: p["levels"][0].update(layerInstances=None), "has no list of layers"),
        (lambda p: p["levels"][0]["layerInstances"][1].update(__cWid=1000, __cHei=1000), "an import reads at most"),
        (lambda p: p["levels"][0]["layerInstances"][1].update(__gridSize="big"), "__gridSize is a string"),
        (lambda p: p.update(defs=[]), "'defs' is a list, not an object"),
    ],
)
def test_malformed_projects_get_a_clear_error(tmp_path, change, message):
    project = json.loads(_dungeon_project(tmp_path).read_text())
    change(project)
    with pytest.raises(ImportFailed, match=re.escape(message)):
        _convert(_write(tmp_path / "bad.ldtk", project))


def test_bad_cells_are_named_and_their_layer_ignored(tmp_path):
    project = json.loads(_dungeon_project(tmp_path).read_text())
    project["levels"][0]["layerInstances"][1]["intGridCsv"] = [1, 2]
    messages = _messages(_convert(_write(tmp_path / "short.ldtk", project)))
    assert any("IntGrid layer 'Dungeon': 'intGridCsv' has 2 values for 10 x 6 cells" in m for m in messages)
    project["levels"][0]["layerInstances"][1]["intGridCsv"] = ["1"] * 60
    messages = _messages(_convert(_write(tmp_path / "text.ldtk", project)))
    assert any("holds something other than whole numbers" in m for m in messages)


def test_hostile_files_exit_2_and_leave_the_output_alone(tmp_path, capsys):
    out = tmp_path / "out.json"
    out.write_text("keep me")
    nested = tmp_path / "nested.ldtk"
    nested.write_text('{"jsonVersion": "1.5.3", "defs": {}, "levels": ' + "[" * 5000 + "]" * 5000 + "}")
    nan = tmp_path / "nan.ldtk"
    nan.write_text('{"jsonVersion": "1.5.3", "defs": {}, "levels": [{"pxWid": NaN}]}')
    latin = tmp_path / "latin.ldtk"
    latin.write_bytes(b'{"jsonVersion": "1.5.3", "defs": {}, "levels": [{"identifier": "Caf\xe9"}]}')
    for path in (nested, nan, latin):
        assert main(["import", str(path), "-o", str(out), "--force"]) == 2
        err = capsys.readouterr().err
        assert "inkcrawl import: error:" in err and "Traceback" not in err
    assert out.read_text() == "keep me"


# ------------------------------------------------------------------------------------------
# the command line


def test_detected_imported_validated_and_told_what_is_missing(tmp_path, capsys):
    entities = [_entity("Start", 1, 2), _entity("Monster", 7, 2)]
    path = _dungeon_project(tmp_path, entities)
    assert detect_format(path) == "ldtk"
    out = tmp_path / "crypt.json"
    code = main(["import", str(path), "-o", str(out), "--cell-mm", "10"])
    captured = capsys.readouterr()
    assert code in (0, 1) and out.exists()
    assert "wrote" in captured.out and "from ldtk" in captured.out
    assert "to play it: no end trigger" in captured.out
    assert "nothing on it scores" not in captured.out  # the monster scores


def test_level_is_refused_for_a_format_without_levels(tmp_path, capsys):
    tiled = _write_map(tmp_path, _map([_layer("Rooms", [_rect(1, "room", 0, 0, 160, 96)])]))
    out = tmp_path / "out.json"
    assert main(["import", str(tiled), "-o", str(out), "--level", "2"]) == 2
    err = capsys.readouterr().err
    assert f"--level chooses a level of an LDtk project; {tiled} is a tiled file" in err
    assert "leave --level out" in err and not out.exists()
    assert main(["import", str(tiled), "-o", str(out)]) in (0, 1) and out.exists()  # the same map without it


def test_help_names_ldtk_and_the_level_option(capsys):
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    out = capsys.readouterr().out
    assert "ldtk (LDtk project" in out and "--level NAME" in out and "exit codes:" in out
    assert "-o world-pack --level all" in out  # every level: a new pack folder


# ------------------------------------------------------------------------------------------
# the bundled samples (third-party, read in place)


@needs_samples
def test_sample_all_features_imports_with_every_skip_named(tmp_path):
    path = SAMPLES / "ldtk_Test_file_for_API_showing_all_features.ldtk"
    assert detect_format(path) == "ldtk"
    result = _convert(path)
    messages = "\n".join(_messages(result))
    for ident in ("EntityFieldsTest", "RectRegion", "CircleRegion", "EntityRefTest"):
        assert f"entity {ident!r}" in messages
    assert "'first' of layer 'IntGrid_without_rules'" in messages
    labels = [e for e in result.dungeon["elements"] if e["kind"] == "label"]
    assert sorted(e["text"] for e in labels)[0] == "IntGrid (classic)" and len(labels) == 5
    # the 6 x 6 cell block of 'walls' (columns 11-16, rows 7-12) is a hole cut out of the floor
    areas = result.dungeon["areas"]
    assert len(areas) == 2 and "cut into 2 areas" in messages


@needs_samples
@pytest.mark.parametrize("level", ["Everything", "Autolayer", "Tiles_and_intgrid", "Background_image"])
def test_sample_levels_validate_without_errors(tmp_path, capsys, level):
    path = SAMPLES / "ldtk_Test_file_for_API_showing_all_features.ldtk"
    out = tmp_path / "level.json"
    assert main(["import", str(path), "-o", str(out), "--level", level]) == 0
    err = capsys.readouterr().err
    assert " error " not in err and "a Start 'start' was added on the outer wall of room 'room-1'" in err
    data = json.loads(out.read_text())
    assert [e["kind"] for e in data["elements"]].count("start") == 1
    x0, y0, x1, y1 = dungeon_from_dict(data).sheet.paper.printable
    for label in dungeon_from_dict(data).elements:
        if label.kind == "label":  # the level's labels at its edge moved onto the printable area
            left, top, right, bottom = label_bounds(label)
            assert x0 <= left and right <= x1 and y0 <= top and bottom <= y1
    if level == "Everything":
        assert "label 'label9' ('IntGrid with a 8px grid size'): its text ran off the printable area" in err


@needs_samples
def test_sample_autolayer_level_is_the_walled_in_room(tmp_path):
    result = _convert(SAMPLES / "ldtk_Test_file_for_API_showing_all_features.ldtk", level="Autolayer")
    (area,) = result.dungeon["areas"]
    xs = [p[0] for p in area["polygon"]]
    ys = [p[1] for p in area["polygon"]]
    # walls ring columns 4-11 and rows 4-11: 8 x 8 cells of 5 mm
    assert (max(xs) - min(xs), max(ys) - min(ys), len(area["polygon"])) == (40, 40, 4)


@needs_samples
def test_sample_with_separate_level_files_names_the_missing_file(tmp_path, capsys):
    path = SAMPLES / "ldtk_0.9.3_SeparateLevelFiles.ldtk"
    assert detect_format(path) == "ldtk"
    assert main(["import", str(path), "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert "level 1 'Level_0' is kept in its own file 'SeparateLevelFiles/0000-Level_0.ldtkl'" in err
    assert "which is missing" in err


@needs_samples
def test_sample_empty_project_imports_an_empty_level(tmp_path):
    result = _convert(SAMPLES / "ldtk_empty.ldtk")
    assert result.dungeon["id"] == "Level_0" and result.dungeon["areas"] == []
    assert any("has no IntGrid layer" in m for m in _messages(result))


def _old_level_file(name: str, uid: int, cells: dict[int, int], sparse: bool) -> dict:
    """A level file as LDtk 0.9.3 wrote it (15 x 14 cells of 16 px, one IntGrid layer 'IntGrid'
    whose value 1 is 'walls'); ``cells``: coordId -> value. Hand-made, not LDtk's own file."""
    layer = {
        "__identifier": "IntGrid",
        "__type": "IntGrid",
        "__cWid": 15,
        "__cHei": 14,
        "__gridSize": 16,
        "__opacity": 1,
        "__pxTotalOffsetX": 0,
        "__pxTotalOffsetY": 0,
        "__tilesetDefUid": None,
        "__tilesetRelPath": None,
        "levelId": uid,
        "layerDefUid": 1,
        "pxOffsetX": 0,
        "pxOffsetY": 0,
        "visible": True,
        "optionalRules": [],
        "autoLayerTiles": [],
        "seed": 1,
        "overrideTilesetUid": None,
        "gridTiles": [],
        "entityInstances": [],
    }
    if sparse:
        layer["intGrid"] = [{"coordId": coord, "v": value - 1} for coord, value in sorted(cells.items())]
    else:
        layer["intGridCsv"] = [cells.get(coord, 0) for coord in range(15 * 14)]
    return {
        "__header__": {"fileType": "LDtk Level", "app": "LDtk", "appVersion": "0.9.3"},
        "identifier": name,
        "uid": uid,
        "pxWid": 240,
        "pxHei": 224,
        "fieldInstances": [],
        "layerInstances": [layer],
    }


@needs_samples
@pytest.mark.parametrize("sparse", [False, True])
def test_sample_0_9_3_project_reads_its_level_files_in_both_cell_formats(tmp_path, sparse):
    project = tmp_path / "SeparateLevelFiles.ldtk"  # the sample beside hand-made level files
    project.write_bytes((SAMPLES / "ldtk_0.9.3_SeparateLevelFiles.ldtk").read_bytes())
    (tmp_path / "SeparateLevelFiles").mkdir()
    # walls ring columns 2-6, rows 3-7: the empty cells they enclose, columns 3-5 x rows 4-6, are the floor
    ring = {r * 15 + c: 1 for r in range(3, 8) for c in range(2, 7) if r in (3, 7) or c in (2, 6)}
    level = _old_level_file("Level_0", 0, ring, sparse)
    _write(tmp_path / "SeparateLevelFiles" / "0000-Level_0.ldtkl", level)
    result = _convert(project, cell_mm=10)
    (area,) = result.dungeon["areas"]
    # 3 x 3 cells of 10 mm centred in the drawing band: x 15 + (180 - 30) / 2 = 90, y 30 + (192 - 30) / 2 = 111
    assert _corners(area["polygon"]) == {(90, 111), (120, 111), (120, 141), (90, 141)}
    messages = "\n".join(_messages(result))
    assert "level 2 'Level_1': its level file 'SeparateLevelFiles/0001-Level_1.ldtkl' is missing" in messages
    assert "level 1 'Level_0': fields 'tutorial', 'textColor' have no meaning for inkcrawl; ignored" in messages


@needs_samples
def test_sample_background_image_is_named_as_ignored(tmp_path):
    result = _convert(SAMPLES / "ldtk_Test_file_for_API_showing_all_features.ldtk", level="Background_image")
    assert "level 4 'Background_image': its background image 'atlas/Beach by deepnight.png' is a picture; ignored" in (
        _messages(result)
    )
