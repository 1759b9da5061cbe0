"""The watabou One Page Dungeon importer: the real sample from ../shared/samples (counts computed
from the source file), small hand-made dungeons for every door type and the edge cases,
malformed input, and import -> canonical JSON -> import stability."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl.cli import main
from inkcrawl.importers import ImportFailed, ImportOptions, detect_format
from inkcrawl.importers.watabou import IMPORTER
from inkcrawl.importers.watabou.source import DOOR_TYPES, MAX_RECTS
from inkcrawl.jsonio import dumps_canonical, parse_json_text
from inkcrawl.model import dungeon_from_dict
from inkcrawl.schema import schema_problems
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

SAMPLES = REPO.parent / "shared" / "samples"
SAMPLE = SAMPLES / "watabou" / "prison_of_raianai.json"
#: How an import note names its source object.
SOURCE = re.compile(
    r"^(rect \d+ at \(-?[\d.]+, -?[\d.]+\) [\d.]+x[\d.]+|door \d+ at \(-?[\d.]+, -?[\d.]+\) type .+"
    r"|note \d+( \(ref [^)]*\))? at \(-?[\d.]+, -?[\d.]+\)|note \d+|columns|water|doors|notes|rects"
    r"|title|story|version|the whole map)$"
)


def _sample() -> Path:
    if not SAMPLE.is_file():
        pytest.skip(f"the third-party samples are not beside the clone ({SAMPLES} is missing; CI puts ../shared there)")
    return SAMPLE


def _write(tmp_path: Path, data, name: str = "dungeon.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _import(path: Path, **options):
    result = IMPORTER.convert(path, ImportOptions(**options))
    assert not schema_problems(result.dungeon, "dungeon", str(path))
    return result


def _problems(dungeon: dict):
    problems, _ = check_dungeon_data(dungeon, "imported.json", RulesetRegistry())
    return problems


def _kinds(dungeon: dict, kind: str) -> list[dict]:
    return [e for e in dungeon["elements"] if e["kind"] == kind]


def _canonical(dungeon: dict) -> str:
    return dumps_canonical(dungeon_from_dict(dungeon).to_dict())


# -- the real sample ---------------------------------------------------------------------------


def _covered(rects: list[dict], x: float, y: float) -> bool:
    """Whether the cell centred at (x, y) lies in a rect."""
    return any(r["x"] < x < r["x"] + r["w"] and r["y"] < y < r["y"] + r["h"] for r in rects)


def test_sample_counts_match_the_source_file():
    path = _sample()
    source = json.loads(path.read_text(encoding="utf-8"))
    result = _import(path)
    dungeon = result.dungeon

    types = Counter(d["type"] for d in source["doors"])
    door_cells = {(d["x"], d["y"]) for d in source["doors"]}
    own_cells = [r for r in source["rects"] if r["w"] == 1 and r["h"] == 1 and (r["x"], r["y"]) in door_cells]
    rooms = [r for r in source["rects"] if r not in own_cells and min(r["w"], r["h"]) > 1]
    corridors = [r for r in source["rects"] if r not in own_cells and min(r["w"], r["h"]) <= 1]
    areas = Counter(a["kind"] for a in dungeon["areas"])
    assert areas["room"] == len(rooms)
    assert areas["corridor"] == len(corridors) + len(door_cells)
    assert sum(1 for a in dungeon["areas"] if a["id"].startswith("doorway-")) == len(door_cells)

    # stairs leading off the map (a rect on one side of the cell only) become exits
    off_map = 0
    for door in source["doors"]:
        if door["type"] in (8, 9):
            cx, cy, dx, dy = door["x"] + 0.5, door["y"] + 0.5, door["dir"]["x"], door["dir"]["y"]
            off_map += _covered(source["rects"], cx + dx, cy + dy) != _covered(source["rects"], cx - dx, cy - dy)
    assert len(_kinds(dungeon, "start")) == types[3]
    assert len(_kinds(dungeon, "exit")) == off_map
    doors = _kinds(dungeon, "door")
    assert len(doors) == types[6] + types[7]
    assert Counter(lock for d in doors for lock in d["locks"]) == Counter(
        {"skeleton": types[6], "red": types[7]} if types[6] else {"red": types[7]}
    )
    red_keys = [k for k in _kinds(dungeon, "key") if k["colour"] == "red"]
    assert (len(red_keys) >= 1) == (types[7] > 0)
    if types[6] and not types[7]:
        assert _kinds(dungeon, "skeleton_key")

    labels = _kinds(dungeon, "label")
    assert {lab["id"] for lab in labels if "-" not in lab["id"][len("note-") :]} == {
        f"note-{n['ref']}" for n in source["notes"]
    }
    assert dungeon["sheet"]["title"] == source["title"]
    assert dungeon["sheet"]["reminders"] == [source["story"][:300]] or dungeon["sheet"]["reminders"][0].endswith("…")
    assert ("exit_reached" in {t["kind"] for t in dungeon["sheet"]["end_triggers"]}) == (off_map > 0)

    problems = _problems(dungeon)
    assert not [p for p in problems if p.severity == "error"], problems
    assert not problems, "warnings must be explained by an import note"


def test_sample_notes_name_their_sources():
    path = _sample()
    source = json.loads(path.read_text(encoding="utf-8"))
    notes = _import(path).notes
    for note in notes:
        assert SOURCE.match(note.source), note.source
        assert note.message
    sources = {n.source for n in notes}
    for index, door in enumerate(source["doors"]):
        if door["type"] in (2, 4, 6, 7, 8, 9):
            assert f"door {index} at ({door['x']}, {door['y']}) type {door['type']}" in sources
    by_source = {n.source: n.message for n in notes}
    if source.get("columns"):
        assert by_source["columns"].startswith(f"{len(source['columns'])} columns")
    if source.get("water"):
        assert by_source["water"].startswith(f"{len(source['water'])} water cells")
    for index, rect in enumerate(source["rects"]):
        if rect.get("ending") or rect.get("rotunda"):
            assert any(n.source.startswith(f"rect {index} at ") for n in notes)
    # the steel door's key is reported where it was placed
    steel = [n for n in notes if n.source.endswith("type 7")]
    assert all("red key" in n.message for n in steel)


def test_sample_through_the_command_line(tmp_path, capsys):
    path = _sample()
    out = tmp_path / "prison.json"
    assert main(["import", str(path), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "from watabou" in captured.out
    assert "warning IMPORT door 12 at (2, 3) type 7" in captured.err
    assert main(["validate", str(out)]) == 0
    assert main(["export", "sheet", str(out), "-o", str(tmp_path / "prison.svg")]) == 0
    assert (tmp_path / "prison.svg").stat().st_size > 1000
    # byte-stable: the written file is canonical
    text = out.read_text(encoding="utf-8")
    value, problems = parse_json_text(text, str(out))
    assert not problems and _canonical(value) == text


def test_detection():
    path = _sample()
    assert detect_format(path) == "watabou"
    for other in sorted(SAMPLES.rglob("*")):
        if other.is_file() and other.parent.name != "watabou":
            assert not IMPORTER.detect(other, other.read_bytes()[:65536]), other.name
    assert not IMPORTER.detect(path, b'{"rects": 1, "doors": []}')
    assert not IMPORTER.detect(path, b"[1, 2]")


# -- hand-made dungeons ------------------------------------------------------------------------


def _two_rooms(door_type, direction=(1, 0), entrance=True) -> dict:
    """Room A (0,0 3x3) -- door cell (3,1) -- room B (4,0 3x3), entrance below A at (1,3)."""
    data = {
        "title": f"door type {door_type}",
        "rects": [{"x": 0, "y": 0, "w": 3, "h": 3}, {"x": 3, "y": 1, "w": 1, "h": 1}, {"x": 4, "y": 0, "w": 3, "h": 3}],
        "doors": [{"x": 3, "y": 1, "dir": {"x": direction[0], "y": direction[1]}, "type": door_type}],
        "notes": [],
    }
    if entrance:
        data["rects"].append({"x": 1, "y": 3, "w": 1, "h": 1})
        data["doors"].append({"x": 1, "y": 3, "dir": {"x": 0, "y": -1}, "type": 3})
    return data


@pytest.mark.parametrize("door_type", [*DOOR_TYPES, 10, "odd"])
def test_each_door_type(tmp_path, door_type):
    result = _import(_write(tmp_path, _two_rooms(door_type)))
    dungeon = result.dungeon
    problems = _problems(dungeon)
    assert not problems, problems
    doors = _kinds(dungeon, "door")
    starts = _kinds(dungeon, "start")
    sources = {n.source: n.message for n in result.notes}
    source = f"door 0 at (3, 1) type {door_type}"
    assert [a["id"] for a in dungeon["areas"]] == ["room-1", "room-2", "doorway-0", "doorway-1"]
    if door_type == 6:
        assert [d["locks"] for d in doors] == [["skeleton"]]
        assert len(_kinds(dungeon, "skeleton_key")) == 1
        assert "skeleton key was placed in 'room-1'" in sources[source]
    elif door_type == 7:
        assert [d["locks"] for d in doors] == [["red"]]
        assert [k["colour"] for k in _kinds(dungeon, "key")] == ["red"]
        assert "red key was placed in 'room-1'" in sources[source]
    else:
        assert not doors and not _kinds(dungeon, "key") and not _kinds(dungeon, "skeleton_key")
    if door_type in (6, 7):
        # the door sits on the doorway's edge towards room B (dir points there), one cell long
        (x1, y1), (x2, y2) = doors[0]["segment"]
        assert x1 == x2 and abs(y2 - y1) > 5
        room_b = next(a for a in dungeon["areas"] if a["id"] == "room-2")
        assert x1 == min(p[0] for p in room_b["polygon"])
    assert len(starts) == (2 if door_type == 3 else 1)
    assert not _kinds(dungeon, "exit")  # stairs between two rooms are a passage
    if door_type in (2, 4, 8, 9, 10, "odd"):
        assert source in sources
    if door_type in (0, 1, 5):
        assert source not in sources


def test_stairs_off_the_map_are_an_exit(tmp_path):
    data = {
        "rects": [
            {"x": -3, "y": -3, "w": 3, "h": 3},
            {"x": 0, "y": -2, "w": 1, "h": 1},
            {"x": -2, "y": 0, "w": 1, "h": 1},
        ],
        "doors": [
            {"x": 0, "y": -2, "dir": {"x": 1, "y": 0}, "type": 8},
            {"x": -2, "y": 0, "dir": {"x": 0, "y": -1}, "type": 3},
        ],
    }
    result = _import(_write(tmp_path, data))
    exits = _kinds(result.dungeon, "exit")
    assert [e["id"] for e in exits] == ["exit-0"]
    assert result.dungeon["sheet"]["end_triggers"] == [{"kind": "exit_reached"}]
    assert any(n.source == "door 0 at (0, -2) type 8" and "exit" in n.message for n in result.notes)
    assert not _problems(result.dungeon)


def test_negative_coordinates_and_half_cells(tmp_path):
    data = {
        "title": "Negative",
        "rects": [
            {"x": -20.5, "y": -14, "w": 4, "h": 3},
            {"x": -16.5, "y": -13, "w": 1, "h": 1},
            {"x": -15.5, "y": -14.5, "w": 3, "h": 4},
            {"x": -19, "y": -11, "w": 1, "h": 1},
        ],
        "doors": [
            {"x": -16.5, "y": -13, "dir": {"x": 1, "y": 0}, "type": 1},
            {"x": -19, "y": -11, "dir": {"x": 0, "y": -1}, "type": 3},
        ],
        "notes": [
            {"text": "West", "ref": "1", "pos": {"x": -18.5, "y": -12.5}},
            {"text": "East", "ref": "2", "pos": {"x": -14, "y": -12.5}},
        ],
    }
    result = _import(_write(tmp_path, data))
    dungeon = result.dungeon
    assert not _problems(dungeon)
    assert [a["kind"] for a in dungeon["areas"]] == ["room", "room", "corridor", "corridor"]
    xs = [p[0] for a in dungeon["areas"] for p in a["polygon"]]
    ys = [p[1] for a in dungeon["areas"] for p in a["polygon"]]
    assert min(xs) >= 15 and max(xs) <= 195 and min(ys) >= 30 and max(ys) <= 222
    # each label lies in the room of its note, the west one left of the east one
    labels = {lab["text"]: lab["at"] for lab in _kinds(dungeon, "label")}
    rooms = {a["id"]: a["polygon"] for a in dungeon["areas"]}
    west, east = rooms["room-1"], rooms["room-2"]
    assert min(p[0] for p in west) < labels["West"][0] < max(p[0] for p in west)
    assert min(p[0] for p in east) < labels["East"][0] < max(p[0] for p in east)


def test_half_cell_note_position_maps_onto_the_sheet(tmp_path):
    data = {
        "rects": [{"x": 0, "y": 0, "w": 9, "h": 9}],
        "doors": [],
        "notes": [{"text": "here", "ref": "1", "pos": {"x": 2.5, "y": 6.5}}],
    }
    result = _import(_write(tmp_path, data))
    room = result.dungeon["areas"][0]["polygon"]
    x0, y0 = min(p[0] for p in room), min(p[1] for p in room)
    cell = (max(p[0] for p in room) - x0) / 9
    (label,) = _kinds(result.dungeon, "label")
    assert label["at"][0] == pytest.approx(x0 + 2.5 * cell, abs=0.01)
    assert abs(label["at"][1] - (y0 + 6.5 * cell)) < 2.5  # the baseline sits around the note's centre


def test_long_notes_are_wrapped_and_shortened_with_a_note(tmp_path):
    text = "A very long description " * 12
    data = {
        "rects": [{"x": 0, "y": 0, "w": 40, "h": 3}, {"x": 0, "y": 3, "w": 3, "h": 3}],
        "doors": [],
        "notes": [{"text": text, "ref": "9", "pos": {"x": 1.5, "y": 4.5}}],
    }
    result = _import(_write(tmp_path, data))
    labels = _kinds(result.dungeon, "label")
    # 287 characters in a room 3 cells wide: a label keeping a third of them does not fit, so the
    # room shows the ref and the sheet's key holds the whole text (3 + 287 characters, under 300)
    assert [label["text"] for label in labels] == ["9"]
    assert result.dungeon["sheet"]["reminders"] == [f"9: {text.strip()}"]
    assert any(
        n.source == "note 0 (ref 9) at (1.5, 4.5)" and "in the key on the sheet" in n.message for n in result.notes
    )
    assert not _problems(result.dungeon)


def _note_words_in_order(note: str, printed: str) -> bool:
    """Whether ``printed`` (a label, maybe shortened) is whole words of ``note`` from its start."""
    words = printed.removesuffix("…").split()
    return bool(words) and note.split()[: len(words)] == words


def _check_notes_on_the_sheet(source: dict, dungeon: dict) -> None:
    """Every note is on the sheet: its label holds whole words from its start (a word is never cut,
    a shortened label keeps at least a third of the text), or it is its ref with the text in the
    key (the sheet's reminders), or only in the key."""
    labels: dict[str, list[str]] = {}
    for label in _kinds(dungeon, "label"):
        ref = label["id"].removeprefix("note-").split("-")[0]
        labels.setdefault(ref, []).append(label["text"])
    key = dungeon["sheet"]["reminders"]
    for index, note in enumerate(source["notes"]):
        text, ref = note["text"].strip(), note.get("ref") or str(index)
        printed = labels.get(ref, [])
        if printed and printed != [ref]:
            assert _note_words_in_order(text, " ".join(printed)), (text, printed)
            assert len(" ".join(printed).removesuffix("…")) >= len(text) / 3 or " ".join(printed) == text
        else:
            assert any(entry.startswith(f"{ref}: {text}") or entry.startswith(f"{ref} (") for entry in key), (
                text,
                printed,
                key,
            )


CHAINMAIL = {
    "title": "Chainmail",
    "rects": [{"x": 0, "y": 0, "w": 2, "h": 2}, {"x": 2, "y": 0, "w": 4, "h": 2}, {"x": 6, "y": 0, "w": 1, "h": 1}],
    "doors": [{"x": 6, "y": 0, "dir": {"x": -1, "y": 0}, "type": 3}],
    "notes": [
        {"text": "A chainmail in a basket.", "ref": "1", "pos": {"x": 1, "y": 1}},
        {"text": "A dying human, a leather armour nearby.", "ref": "2", "pos": {"x": 4, "y": 1}},
        {"text": "Bones.", "ref": "3", "pos": {"x": 3, "y": 0.5}},
    ],
}


@pytest.mark.parametrize("cell_mm", [3, 4, 5, 6, 8, 10, 12, 16])
def test_notes_are_shortened_at_words_and_none_is_lost(tmp_path, cell_mm):
    result = _import(_write(tmp_path, CHAINMAIL), cell_mm=cell_mm)
    _check_notes_on_the_sheet(CHAINMAIL, result.dungeon)


def test_a_note_that_fits_nowhere_is_in_the_key_with_its_area(tmp_path):
    data = {
        "rects": [{"x": 0, "y": 0, "w": 1, "h": 1}, {"x": 1, "y": 0, "w": 3, "h": 3}],
        "doors": [],
        "notes": [{"text": "A tiny shrine.", "ref": "12", "pos": {"x": 0.5, "y": 0.5}}],
    }
    result = _import(_write(tmp_path, data), cell_mm=3)
    # a 1-cell corridor of 3 mm: not even '12' fits between its walls
    assert _kinds(result.dungeon, "label") == []
    (entry,) = result.dungeon["sheet"]["reminders"]
    assert re.fullmatch(r"12 \((room|corridor)-\d+\): A tiny shrine\.", entry), entry
    assert any("not even its ref; in the key on the sheet" in n.message for n in result.notes)


@pytest.mark.parametrize("cell_mm", [3, 4, 5, 7, 10])
def test_sample_notes_are_all_on_the_sheet(cell_mm):
    path = _sample()
    source = json.loads(path.read_text(encoding="utf-8"))
    _check_notes_on_the_sheet(source, _import(path, cell_mm=cell_mm).dungeon)


def test_shortening_never_cuts_a_word():
    from inkcrawl.importers.watabou.text import _fit, _shorten
    from inkcrawl.textmetrics import text_width_mm

    em = 2 / 0.7
    text = "A chainmail in a basket."
    for width in range(1, 60):
        fitted = _fit(text, width, em)
        assert fitted == "" or _note_words_in_order(text, fitted), (width, fitted)
        assert text_width_mm(fitted, em) <= width
    assert _fit(text, text_width_mm("A chainmail…", em), em) == "A chainmail…"
    assert _fit(text, text_width_mm("A chain…", em), em) == "A…"
    assert _shorten(text, 13) == _shorten(text, 12) == "A chainmail…"
    assert _shorten(text, 10) == "A…" and _shorten("Unbreakable", 5) == "Unbr…"


def test_a_note_outside_the_dungeon_goes_to_the_nearest_area(tmp_path):
    data = {
        "rects": [{"x": 0, "y": 0, "w": 4, "h": 4}],
        "doors": [],
        "notes": [{"text": "far", "ref": "", "pos": {"x": 50, "y": 50}}],
    }
    result = _import(_write(tmp_path, data))
    assert [lab["text"] for lab in _kinds(result.dungeon, "label")] == ["far"]
    assert any(n.source == "note 0 at (50, 50)" and "nearest area" in n.message for n in result.notes)


def test_entrance_onto_a_courtyard_moves_the_start_to_the_outer_boundary(tmp_path):
    # four rooms around a courtyard; the entrance doorway opens from the courtyard
    data = {
        "rects": [
            {"x": 0, "y": 0, "w": 9, "h": 3},
            {"x": 0, "y": 6, "w": 9, "h": 3},
            {"x": 0, "y": 3, "w": 3, "h": 3},
            {"x": 6, "y": 3, "w": 3, "h": 3},
            {"x": 4, "y": 3, "w": 1, "h": 1},
        ],
        "doors": [{"x": 4, "y": 3, "dir": {"x": 0, "y": -1}, "type": 3}],
    }
    result = _import(_write(tmp_path, data))
    assert len(_kinds(result.dungeon, "start")) == 1
    assert any("courtyard" in n.message for n in result.notes)
    assert not _problems(result.dungeon)


def test_no_entrance_adds_a_start(tmp_path):
    result = _import(_write(tmp_path, {"rects": [{"x": 0, "y": 0, "w": 3, "h": 3}], "doors": []}))
    assert len(_kinds(result.dungeon, "start")) == 1
    assert any(n.source == "doors" and "no entrance" in n.message for n in result.notes)
    assert not _problems(result.dungeon)


def test_rooms_corridors_overlaps_and_holes(tmp_path):
    data = {
        "rects": [
            {"x": 0, "y": 0, "w": 3, "h": 3},  # room
            {"x": 3, "y": 1, "w": 5, "h": 1},  # corridor with a door cell at each end
            {"x": 5, "y": -3, "w": 1, "h": 5},  # a crossing corridor: merged with the first
            {"x": 8, "y": 0, "w": 3, "h": 3},  # room
            {"x": 20, "y": 0, "w": 5, "h": 2},
            {"x": 20, "y": 0, "w": 2, "h": 5},  # a ring of rooms
            {"x": 23, "y": 0, "w": 2, "h": 5},
            {"x": 20, "y": 3, "w": 5, "h": 2},
            {"x": 1, "y": 3, "w": 1, "h": 1},
        ],
        "doors": [
            {"x": 3, "y": 1, "dir": {"x": 1, "y": 0}, "type": 7},
            {"x": 7, "y": 1, "dir": {"x": 1, "y": 0}, "type": 6},
            {"x": 1, "y": 3, "dir": {"x": 0, "y": -1}, "type": 3},
            {"x": 40, "y": 40, "dir": {"x": 1, "y": 0}, "type": 1},
        ],
    }
    result = _import(_write(tmp_path, data))
    dungeon = result.dungeon
    ids = [a["id"] for a in dungeon["areas"]]
    assert ids == ["room-1", "room-2", "room-3", "room-4", "corridor-1", "doorway-0", "doorway-1", "doorway-2"]
    messages = "\n".join(f"{n.source}: {n.message}" for n in result.notes)
    assert "rect 1 at (3, 1) 5x1: overlaps rect(s) 2; merged into one corridor" in messages
    assert "rect 4 at (20, 0) 5x2: overlaps rect(s) 5, 6, 7; merged into one room" in messages
    assert "was cut into 2 simple polygons" in messages
    assert "door 3 at (40, 40) type 1: lies outside every rect" in messages
    # the steel door's red key also opens the secret door, so no skeleton key is needed
    assert [k["colour"] for k in _kinds(dungeon, "key")] == ["red"] and not _kinds(dungeon, "skeleton_key")
    problems = _problems(dungeon)
    assert [p.code for p in problems] == ["L020", "L020"]  # the ring is not connected: reported by a note
    assert "2 area(s) cannot be reached from the entrance" in messages


def test_cell_size_option_and_shrinking(tmp_path):
    path = _write(tmp_path, _two_rooms(1))
    small = _import(path, cell_mm=5).dungeon
    room = small["areas"][0]["polygon"]
    assert max(p[0] for p in room) - min(p[0] for p in room) == pytest.approx(15)
    big = _import(path, cell_mm=60)
    assert any(n.source == "the whole map" and "scaled down" in n.message for n in big.notes)
    assert not _problems(big.dungeon)


def test_story_is_shortened_and_title_falls_back_to_the_file_name(tmp_path):
    data = {"rects": [{"x": 0, "y": 0, "w": 3, "h": 3}], "doors": [], "story": "word " * 200, "title": 5}
    result = _import(_write(tmp_path, data, "my_crypt.json"))
    sheet = result.dungeon["sheet"]
    assert sheet["title"] == "my_crypt"
    assert len(sheet["reminders"][0]) <= 300 and sheet["reminders"][0].endswith("…")
    assert {"story", "title"} <= {n.source for n in result.notes}


# -- malformed input ---------------------------------------------------------------------------

MALFORMED = [
    ("not JSON", '{"rects": [', "invalid JSON"),
    ("empty", "", "empty"),
    ("top-level array", "[1, 2]", "not a JSON object"),
    ("no rects", '{"doors": []}', "no 'rects' list"),
    ("rects not a list", '{"rects": {}, "doors": []}', "not a list"),
    ("no rooms", '{"rects": [], "doors": []}', "no rooms"),
    ("string coordinate", '{"rects": [{"x": "a", "y": 0, "w": 1, "h": 1}], "doors": []}', "rect 0: 'x' is \"a\""),
    ("missing size", '{"rects": [{"x": 0, "y": 0, "w": 1}], "doors": []}', "'h' is missing"),
    ("boolean coordinate", '{"rects": [{"x": true, "y": 0, "w": 1, "h": 1}], "doors": []}', "not a number"),
    ("NaN", '{"rects": [{"x": NaN, "y": 0, "w": 1, "h": 1}], "doors": []}', "NaN"),
    ("Infinity", '{"rects": [{"x": 0, "y": Infinity, "w": 1, "h": 1}], "doors": []}', "Infinity"),
    ("huge number", '{"rects": [{"x": 1e300, "y": 0, "w": 1, "h": 1}], "doors": []}', "within"),
    (
        "door coordinate",
        '{"rects": [{"x": 0, "y": 0, "w": 2, "h": 2}], "doors": [{"x": null, "y": 0}]}',
        "door 0: 'x' is missing",
    ),
    (
        "note position",
        '{"rects": [{"x": 0, "y": 0, "w": 2, "h": 2}], "doors": [], '
        '"notes": [{"text": "t", "pos": {"x": [], "y": 0}}]}',
        "note 0: 'pos.x'",
    ),
    ("deep nesting", '{"rects": ' + "[" * 3000 + "]" * 3000 + ', "doors": []}', "nested"),
    ("rect not an object", '{"rects": [5], "doors": []}', "rect 0 is not an object"),
    ("only slivers", '{"rects": [{"x": 0, "y": 0, "w": 0.1, "h": 5}], "doors": []}', "no rooms"),
]


@pytest.mark.parametrize("name, text, expected", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_input_fails_clearly(tmp_path, name, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(ImportFailed) as failure:
        IMPORTER.convert(path, ImportOptions())
    assert expected in str(failure.value)


def test_too_many_rects_fail_clearly(tmp_path):
    rects = [{"x": i, "y": 0, "w": 1, "h": 1} for i in range(100_000)]
    path = _write(tmp_path, {"rects": rects, "doors": []})
    with pytest.raises(ImportFailed, match=f"100000 rects; at most {MAX_RECTS}"):
        IMPORTER.convert(path, ImportOptions())


def test_malformed_input_through_the_command_line_exits_2(tmp_path, capsys):
    path = _write(tmp_path, '{"rects": [{"x": NaN, "y": 0, "w": 1, "h": 1}], "doors": []}')
    out = tmp_path / "out.json"
    assert main(["import", str(path), "-o", str(out), "--format", "watabou"]) == 2
    err = capsys.readouterr().err
    assert "inkcrawl import: error:" in err and "NaN" in err and "Traceback" not in err
    assert not out.exists()


# -- stability ---------------------------------------------------------------------------------

_half = st.integers(-16, 16).map(lambda v: v / 2)
_rects = st.lists(
    st.fixed_dictionaries(
        {
            "x": _half,
            "y": _half,
            "w": st.integers(1, 10).map(lambda v: v / 2),
            "h": st.integers(1, 10).map(lambda v: v / 2),
        },
        optional={"rotunda": st.booleans(), "ending": st.booleans()},
    ),
    min_size=1,
    max_size=12,
)
_doors = st.lists(
    st.fixed_dictionaries(
        {
            "x": st.integers(-8, 8),
            "y": st.integers(-8, 8),
            "dir": st.sampled_from([{"x": 1, "y": 0}, {"x": -1, "y": 0}, {"x": 0, "y": 1}, {"x": 0, "y": -1}]),
            "type": st.integers(0, 10),
        }
    ),
    max_size=8,
)
_notes = st.lists(
    st.fixed_dictionaries(
        {
            "text": st.text(max_size=60),
            "ref": st.text(max_size=3),
            "pos": st.fixed_dictionaries({"x": _half, "y": _half}),
        }
    ),
    max_size=4,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rects=_rects, doors=_doors, notes=_notes)
def test_import_then_canonical_json_then_import_is_stable(tmp_path, rects, doors, notes):
    path = _write(tmp_path, {"title": "Fuzz", "rects": rects, "doors": doors, "notes": notes})
    first = _import(path)
    text = _canonical(first.dungeon)
    value, problems = parse_json_text(text, "first.json")
    assert not problems
    assert _canonical(value) == text  # load -> save gives the same bytes
    assert _canonical(_import(path).dungeon) == text  # importing again gives the same dungeon
    reported = " ".join(n.message for n in first.notes)
    for found in _problems(value):
        assert found.severity == "warning" and found.code in reported, found
