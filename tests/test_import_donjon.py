"""The donjon importer (``inkcrawl import`` of donjon Random Dungeon Generator JSON).

The inputs in ``tests/import_samples/donjon/`` are our own: :func:`donjon_json` draws them from
the ASCII maps in :data:`SAMPLES` the way donjon lays out a dungeon (rooms ringed by perimeter
cells, door cells in the perimeter carrying a door bit and the corridor bit, the room number as
label characters at the room's centre, ``bleed`` cells of padding around the map, a ``null``
first room). ``test_samples_are_generated_from_this_file`` keeps the files and this script in
step; ``python tests/test_import_donjon.py`` rewrites them.

Expected counts are computed from the source data (cell bits), not copied from the importer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl.importers import ImportFailed, ImportOptions, detect_format, importers
from inkcrawl.importers.donjon import IMPORTER
from inkcrawl.importers.donjon.cells import DEFAULT_BITS
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.model import dungeon_from_dict
from inkcrawl.schema import schema_problems

REPO = Path(__file__).resolve().parent.parent
SAMPLE_DIR = Path(__file__).resolve().parent / "import_samples" / "donjon"
BITS = DEFAULT_BITS
DOOR_CHARS = {"A": "arch", "D": "door", "L": "locked", "T": "trapped", "S": "secret", "G": "portcullis"}
DOOR_TYPE_NAMES = {
    "arch": "arch",
    "door": "open",
    "locked": "lock",
    "trapped": "trap",
    "secret": "secret",
    "portcullis": "portc",
}

# Legend: '#' rock, 'P' perimeter, 'X' blocked, '1'-'9' and 'a'-'c' (ids 10-12) room cells,
# '.' corridor, door cells A arch, D door, L locked, T trapped, S secret, G portcullis,
# '<' stairs up, '>' stairs down, 'f'-'z' a corridor cell with that corridor-feature letter.
ROOM_CHARS = {**{str(i): i for i in range(1, 10)}, "a": 10, "b": 11, "c": 12}

SAMPLES = {
    # Three rooms: an arch, a plain door, a trapped door, a locked door in front of room 3 (its
    # key must go in room 1 or 2), stairs up on the west edge, stairs down beyond room 3, a
    # corridor feature 'k'. No bleed.
    "crypt": dict(
        bleed=0,
        contents={2: "Goblin Boss and 1 x Goblin"},
        features={"k": "Net Trap"},
        rows=[
            "#####################",
            "#PPPPPPP#####PPPPPPP#",
            "#P11111P#####P22222P#",
            "#P11111A.....D22222P#",
            "#P11111P#####P22222P#",
            "#PPPAPPP#####PPPTPPP#",
            "####.###########.####",
            "<...........k....####",
            "########.############",
            "######PPLPPPP########",
            "######P33333P########",
            "######P33333A..>#####",
            "######P33333P########",
            "######PPPPPPP########",
            "#####################",
        ],
    ),
    # Everything as strings, bleed 2, a null first room, a corridor loop around a block of rock,
    # a secret door and a portcullis, stairs up in the middle of the map (its Start goes on
    # the nearest outer edge), an egress corridor leaving east, two-digit room ids (10, 11).
    "vault-strings": dict(
        bleed=2,
        strings=True,
        egress=[(9, 14, "east")],
        rows=[
            "###############",
            "#PPPPPPP#PPPPP#",
            "#P44444P#PaaaP#",
            "#P44444S.GaaaP#",
            "#P44444P.PaaaP#",
            "#PPPAPPP.PPPPP#",
            "####.....######",
            "####.#<#.######",
            "####.###.######",
            "####...........",
            "####.#######.##",
            "#PPPAPPPPPPPAP#",
            "#PbbbbbbbbbbbP#",
            "#PPPPPPPPPPPPP#",
            "###############",
        ],
    ),
    # No stairs and no egress (a Start is placed on the outer wall nearest room 1), blocked
    # cells, room 12 listed in 'rooms' but with no cells, a locked door between two rooms.
    "cellar-nostairs": dict(
        bleed=1,
        ghost_room=12,
        rows=[
            "XXXXXXXXXXXXX",
            "XPPPPPPPPPPPX",
            "XP111L22222PX",
            "XP111P22222PX",
            "XP111P22222PX",
            "XPAPPPPPPPPPX",
            "XX.XXXXXXXXXX",
            "XX.XXXXXXXXXX",
        ],
    ),
}


def _cell_value(char: str) -> int:
    if char in ("#", " "):
        return 0
    if char == "P":
        return BITS["perimeter"]
    if char == "X":
        return BITS["blocked"]
    if char in ROOM_CHARS:
        return BITS["room"] | ROOM_CHARS[char] << 6
    if char == ".":
        return BITS["corridor"]
    if char in DOOR_CHARS:
        return BITS[DOOR_CHARS[char]] | BITS["corridor"]
    if char == "<":
        return BITS["stair_up"] | BITS["corridor"]
    if char == ">":
        return BITS["stair_down"] | BITS["corridor"]
    return BITS["corridor"] | ord(char) << 24  # a corridor-feature letter


def donjon_json(
    rows: list[str],
    bleed: int = 0,
    strings: bool = False,
    contents: dict | None = None,
    features: dict | None = None,
    egress: list | None = None,
    ghost_room: int | None = None,
) -> dict:
    """A donjon export (as donjon structures it) of the ASCII map ``rows``."""
    n_rows, n_cols = len(rows), len(rows[0])
    cells = [[0] * (n_cols + 2 * bleed) for _ in range(n_rows + 2 * bleed)]
    bounds: dict[int, list[int]] = {}
    for r, row in enumerate(rows):
        assert len(row) == n_cols
        for c, char in enumerate(row):
            cells[r + bleed][c + bleed] = _cell_value(char)
            if char in ROOM_CHARS:
                b = bounds.setdefault(ROOM_CHARS[char], [r, r, c, c])
                b[0], b[1], b[2], b[3] = min(b[0], r), max(b[1], r), min(b[2], c), max(b[3], c)
    rooms: list = [None]
    for room_id in sorted(bounds):
        north, south, west, east = bounds[room_id]
        label = str(room_id)
        lr, lc = (north + south) // 2, (west + east - len(label)) // 2 + 1
        for i, char in enumerate(label):
            cells[lr + bleed][lc + i + bleed] |= ord(char) << 24
        doors: dict[str, list] = {}
        for r, row in enumerate(rows):
            for c, char in enumerate(row):
                if char not in DOOR_CHARS:
                    continue
                side = (
                    "north"
                    if r == north - 1 and west <= c <= east
                    else "south"
                    if r == south + 1 and west <= c <= east
                    else "west"
                    if c == west - 1 and north <= r <= south
                    else "east"
                    if c == east + 1 and north <= r <= south
                    else None
                )
                if side:
                    kind = DOOR_TYPE_NAMES[DOOR_CHARS[char]]
                    doors.setdefault(side, []).append({"row": r, "col": c, "type": kind, "desc": kind.title()})
        height, width = south - north + 1, east - west + 1
        summary = (contents or {}).get(room_id, "Empty")
        rooms.append(
            {
                "id": room_id,
                "row": north,
                "col": west,
                "north": north,
                "south": south,
                "west": west,
                "east": east,
                "height": height * 10,
                "width": width * 10,
                "area": height * width * 100,
                "shape": "square",
                "doors": doors,
                "contents": {"summary": summary},
            }
        )
    if ghost_room:
        rooms.append(
            {
                "id": ghost_room,
                "row": 1,
                "col": 1,
                "north": 1,
                "south": 1,
                "west": 1,
                "east": 1,
                "height": 10,
                "width": 10,
                "area": 100,
                "doors": {},
                "contents": {"summary": "Empty"},
            }
        )
    stairs = [
        {"row": r, "col": c, "key": "up" if char == "<" else "down", "dir": "east"}
        for r, row in enumerate(rows)
        for c, char in enumerate(row)
        if char in "<>"
    ]
    feature_list = {}
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char in (features or {}):
                feature_list[char] = {
                    "key": char,
                    "summary": features[char],
                    "detail": features[char],
                    "marks": [{"row": r, "col": c}],
                }
    data = {
        "cell_bit": {
            "nothing": 0,
            "block": BITS["blocked"],
            "room": BITS["room"],
            "corridor": BITS["corridor"],
            "aperture": BITS["aperture"],
            "perimeter": BITS["perimeter"],
            "room_id": BITS["room_id"],
            "arch": BITS["arch"],
            "door": BITS["door"],
            "locked": BITS["locked"],
            "trapped": BITS["trapped"],
            "secret": BITS["secret"],
            "portcullis": BITS["portcullis"],
            "stair_down": BITS["stair_down"],
            "stair_up": BITS["stair_up"],
            "label": BITS["label"],
        },
        "cells": cells,
        "corridor_features": feature_list,
        "egress": [{"row": r, "col": c, "dir": d, "depth": 0, "type": "corridor"} for r, c, d in (egress or [])],
        "rooms": rooms,
        "settings": {
            "bleed": bleed,
            "n_rows": n_rows,
            "n_cols": n_cols,
            "name": "Sample dungeon",
            "dungeon_layout": "Rectangle",
            "seed": 1,
        },
        "stairs": stairs,
    }
    return _stringify(data) if strings else data


def _stringify(value):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return [_stringify(v) for v in value]
    if isinstance(value, dict):
        return {k: _stringify(v) for k, v in value.items()}
    return value


def sample_text(name: str) -> str:
    return json.dumps(donjon_json(**SAMPLES[name]), indent=1) + "\n"


def write_samples() -> None:
    SAMPLE_DIR.mkdir(parents=True, exist_ok=True)
    for name in SAMPLES:
        (SAMPLE_DIR / f"{name}.json").write_text(sample_text(name), encoding="utf-8")


# --- counting from the source --------------------------------------------------------------------
def _number(value) -> int:
    return int(value)


def source_counts(data: dict) -> dict:
    """What the import of ``data`` must hold, computed from its cells and lists."""
    cells = [[_number(v) for v in row] for row in data["cells"]]
    door_kinds = ("locked", "portcullis", "secret", "door", "arch")
    room_ids, open_cells, doors, up, down = set(), set(), [], [], []
    for r, row in enumerate(cells):
        for c, v in enumerate(row):
            if v & BITS["room"]:
                room_ids.add((v & BITS["room_id"]) >> 6)
            elif v & (
                BITS["corridor"]
                | BITS["stair_up"]
                | BITS["stair_down"]
                | sum(BITS[k] for k in (*door_kinds, "trapped"))
            ):
                open_cells.add((r, c))
                kinds = [k for k in door_kinds if v & BITS[k]] or (["door"] if v & BITS["trapped"] else [])
                if kinds:
                    doors.append(((r, c), kinds[0], bool(v & BITS["trapped"])))
            if v & BITS["stair_up"]:
                up.append((r, c))
            if v & BITS["stair_down"]:
                down.append((r, c))
    # outer rock: 4-connected to the outside of the grid
    rows, cols = len(cells), len(cells[0])
    passable = open_cells | {(r, c) for r, row in enumerate(cells) for c, v in enumerate(row) if v & BITS["room"]}
    outside, queue = {(-1, -1)}, deque([(-1, -1)])
    while queue:
        r, c = queue.popleft()
        for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if n not in outside and -1 <= n[0] <= rows and -1 <= n[1] <= cols and n not in passable:
                outside.add(n)
                queue.append(n)

    def on_outer_wall(cell) -> bool:
        r, c = cell
        return any(n in outside for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)))

    # courtyards: rock regions not connected to the outside and ringed by corridor cells only;
    # each one makes its corridor loop be cut into one more piece
    rock = {(r, c) for r in range(rows) for c in range(cols)} - passable - outside
    courtyards = 0
    while rock:
        region, queue = set(), deque([rock.pop()])
        while queue:
            r, c = queue.popleft()
            region.add((r, c))
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n in rock:
                    rock.discard(n)
                    queue.append(n)
        ring = {(r + dr, c + dc) for r, c in region for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))} - region
        courtyards += ring <= open_cells
    locked_like = [d for d in doors if d[1] in ("locked", "portcullis", "secret")]
    rooms = [room for room in data.get("rooms") or [] if room]
    listed_ids = {_number(room["id"]) for room in rooms}
    warnings = (
        len(locked_like)  # each lock and where its key is
        + sum(1 for d in doors if d[2])  # each trap
        + sum(1 for cell in up if not on_outer_wall(cell))  # Starts moved to an outer wall
        + (0 if up or data.get("egress") else 1)  # no way in: a Start placed
        + sum(1 for room in rooms if str(room["contents"]["summary"]) != "Empty" and _number(room["id"]) in room_ids)
        + len(data.get("corridor_features") or {})
        + len(listed_ids - room_ids)
    )  # listed rooms without cells
    return {
        "rooms": len(room_ids),
        "corridor_cells": open_cells,
        "corridors": _components(open_cells) + courtyards,
        "doors": len(locked_like),
        "exits": len(down),
        "starts": len(up) + len(data.get("egress") or []) or 1,
        "keys": len(
            {"green" if d[1] == "portcullis" else "red" for d in locked_like if d[1] != "secret"}
            or {"red" for d in locked_like}
        ),
        "labels_text": _label_texts(cells),
        "warnings": warnings,
    }


def _label_texts(cells) -> list[str]:
    texts = []
    for row in cells:
        run = ""
        for v in [*row, 0]:
            char = (v & BITS["label"]) >> 24
            if char:
                run += chr(char)
            elif run:
                texts.append(run)
                run = ""
    return sorted(texts)


def _components(cells: set) -> int:
    left, count = set(cells), 0
    while left:
        count += 1
        queue = deque([left.pop()])
        while queue:
            r, c = queue.popleft()
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n in left:
                    left.discard(n)
                    queue.append(n)
    return count


def convert(path: Path, **options):
    return IMPORTER.convert(path, ImportOptions(**options))


def validate_data(data: dict, tmp_path: Path) -> list:
    from inkcrawl.validate import validate_paths

    out = tmp_path / "imported.json"
    out.write_text(dumps_canonical(dungeon_from_dict(data).to_dict()), encoding="utf-8")
    return validate_paths([str(out)]).problems


# --- tests -----------------------------------------------------------------------------------------
def test_samples_are_generated_from_this_file():
    for name in SAMPLES:
        path = SAMPLE_DIR / f"{name}.json"
        assert path.read_text(encoding="utf-8") == sample_text(name), f"run python {__file__} to regenerate {name}"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_imports_with_counts_from_the_source(name, tmp_path):
    path = SAMPLE_DIR / f"{name}.json"
    assert detect_format(path) == "donjon"
    source = json.loads(path.read_text(encoding="utf-8"))
    expected = source_counts(source)
    result = convert(path)
    data = result.dungeon
    assert schema_problems(data, "dungeon", "x") == []
    areas = data["areas"]
    elements = data["elements"]
    kinds = [e["kind"] for e in elements]
    assert sum(a["kind"] == "room" for a in areas) == expected["rooms"]
    corridors = [a for a in areas if a["kind"] == "corridor"]
    # one corridor per connected piece of corridor cells, one more per loop cut open
    assert len(corridors) == expected["corridors"]
    assert kinds.count("door") == expected["doors"]
    assert kinds.count("exit") == expected["exits"]
    assert kinds.count("start") == expected["starts"]
    assert kinds.count("key") == expected["keys"]
    assert sorted(e["text"] for e in elements if e["kind"] == "label") == expected["labels_text"]
    assert len(result.notes) == expected["warnings"], [f"{n.source}: {n.message}" for n in result.notes]
    assert all(n.source and n.message for n in result.notes)
    if expected["exits"]:
        assert {"kind": "exit_reached"} in data["sheet"]["end_triggers"]
    problems = validate_data(data, tmp_path)
    assert [p for p in problems if p.severity == "error"] == []


def test_corridor_pieces_cover_the_corridor_cells_without_holes():
    import shapely

    path = SAMPLE_DIR / "vault-strings.json"
    source = json.loads(path.read_text(encoding="utf-8"))
    cells = source_counts(source)["corridor_cells"]
    data = convert(path, cell_mm=5).dungeon
    corridors = [shapely.Polygon(a["polygon"]) for a in data["areas"] if a["kind"] == "corridor"]
    assert len(corridors) > _components(cells)  # the loop around the rock block was cut open
    assert all(p.is_valid and not p.interiors for p in corridors)
    assert sum(p.area for p in corridors) == pytest.approx(len(cells) * 25)
    assert shapely.union_all(corridors).area == pytest.approx(len(cells) * 25)


def test_bleed_padding_is_honoured(tmp_path):
    rows = SAMPLES["crypt"]["rows"]
    plain = convert(_write(tmp_path / "plain.json", donjon_json(rows, bleed=0)))
    padded = convert(_write(tmp_path / "padded.json", donjon_json(rows, bleed=4)))
    assert padded.dungeon["areas"] == plain.dungeon["areas"]
    assert padded.dungeon["elements"] == plain.dungeon["elements"]
    assert [(n.source, n.message) for n in padded.notes] == [(n.source, n.message) for n in plain.notes]
    # notes name cells in donjon's coordinates, without the padding
    assert any(n.source.startswith("cell (9, 8) locked door") for n in padded.notes)


def test_bleed_setting_without_padding_in_the_grid(tmp_path):
    data = donjon_json(SAMPLES["crypt"]["rows"], bleed=0)
    data["settings"]["bleed"] = 3  # claimed, but the grid is exactly n_rows x n_cols
    result = convert(_write(tmp_path / "x.json", data))
    assert any(n.source == "settings bleed" for n in result.notes)
    assert sum(e["kind"] == "door" for e in result.dungeon["elements"]) == 1


def test_string_numbers_import_like_numbers(tmp_path):
    spec = dict(SAMPLES["vault-strings"], strings=False)
    numbers = convert(_write(tmp_path / "numbers.json", donjon_json(**spec)))
    strings = convert(_write(tmp_path / "strings.json", donjon_json(**dict(spec, strings=True))))
    assert strings.dungeon["areas"] == numbers.dungeon["areas"]
    assert strings.dungeon["elements"] == numbers.dungeon["elements"]
    assert len(strings.notes) == len(numbers.notes)


def test_null_first_room_is_normal_and_later_nulls_are_reported(tmp_path):
    data = donjon_json(SAMPLES["crypt"]["rows"])
    assert data["rooms"][0] is None
    quiet = convert(_write(tmp_path / "a.json", data))
    assert not any(n.source.startswith("rooms") for n in quiet.notes)
    data["rooms"].append(None)
    loud = convert(_write(tmp_path / "b.json", data))
    assert [n.source for n in loud.notes if n.source.startswith("rooms")] == [f"rooms {len(data['rooms']) - 1}"]


def test_locked_door_gets_a_reachable_key(tmp_path):
    result = convert(SAMPLE_DIR / "crypt.json")
    data = result.dungeon
    door = next(e for e in data["elements"] if e["kind"] == "door")
    assert door["locks"] == ["red"]
    key = next(e for e in data["elements"] if e["kind"] == "key")
    assert key["colour"] == "red"
    note = next(n for n in result.notes if n.source == "cell (9, 8) locked door")
    assert "red key is placed in room 'room-1'" in note.message
    codes = {p.code for p in validate_data(data, tmp_path)}
    assert not codes & {"L018", "L019", "L010", "L011"}


def test_secret_and_portcullis_doors(tmp_path):
    result = convert(SAMPLE_DIR / "vault-strings.json")
    doors = {tuple(e["locks"]) for e in result.dungeon["elements"] if e["kind"] == "door"}
    assert doors == {("skeleton",), ("green",)}
    keys = {e["colour"] for e in result.dungeon["elements"] if e["kind"] == "key"}
    assert keys == {"green"}
    assert any("nearest outer edge" in n.message for n in result.notes)
    codes = {p.code for p in validate_data(result.dungeon, tmp_path)}
    assert not codes & {"L018", "L019", "L011"}


def test_cli_import_and_export_sheet(tmp_path, capsys):
    from inkcrawl.cli import main

    out = tmp_path / "crypt-dungeon.json"
    run = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "import", str(SAMPLE_DIR / "crypt.json"), "-o", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert run.returncode == 0, run.stderr
    assert "from donjon" in run.stdout
    assert "warning IMPORT cell (9, 8) locked door" in run.stderr
    png = tmp_path / "crypt.png"
    assert main(["export", "sheet", str(out), "-o", str(png)]) == 0
    assert png.stat().st_size > 10_000


def _env():
    import os

    return {**os.environ, "PYTHONPATH": str(REPO)}


def _write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


MALFORMED = {
    "not json": "{ this is not json",
    "array": "[1, 2, 3]",
    "no cells": json.dumps({"cell_bit": {}, "settings": {}}),
    "cells not a list": json.dumps({"cells": "lots", "cell_bit": {}}),
    "empty cells": json.dumps({"cells": [], "cell_bit": {}}),
    "row not a list": json.dumps({"cells": [[0, 4], 7], "cell_bit": {}}),
    "empty rows": json.dumps({"cells": [[], []], "cell_bit": {}}),
    "only rock": json.dumps({"cells": [[0, 16], [1, 0]], "cell_bit": {}}),
    "too many rows": json.dumps({"cells": [[4]] * 401, "cell_bit": {}}),
    "too many cells": json.dumps({"cells": [[4] * 350] * 350, "cell_bit": {}}),
    "deep nesting": '{"cells": ' + "[" * 200 + "]" * 200 + ', "cell_bit": {}}',
    "huge number": '{"cells": [[1' + "0" * 400 + ']], "cell_bit": {}}',
    "nan": '{"cells": [[NaN]], "cell_bit": {}}',
    "binary": "\x00\x01\x02",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_input_fails_cleanly(name, tmp_path):
    path = _write(tmp_path / "bad.json", MALFORMED[name])
    with pytest.raises(ImportFailed) as caught:
        convert(path)
    assert str(caught.value)
    run = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "import", str(path), "-o", str(tmp_path / "out.json"), "--format", "donjon"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "out.json").exists()


def test_hostile_values_are_repaired_and_reported(tmp_path):
    data = donjon_json(SAMPLES["crypt"]["rows"])
    data["cells"][0][0] = "abc"
    data["cells"][0][1] = -5
    data["cells"][0][2] = 2**40
    data["cells"][0][3] = True
    data["cells"][1] = data["cells"][1][:5]  # a short row
    data["cell_bit"]["room"] = "lots"
    data["settings"]["bleed"] = "x"
    data["settings"]["name"] = {"a": 1}
    data["rooms"] = "not a list"
    data["stairs"] = [7, {"row": "a"}, {"row": 0, "col": 0, "key": "up"}]
    data["egress"] = {"no": "list"}
    data["corridor_features"] = [1, 2]
    result = convert(_write(tmp_path / "x.json", data))
    sources = [n.source for n in result.notes]
    for expected in (
        "cell (0, 0)",
        "cell (0, 1)",
        "cell (0, 2)",
        "cell (0, 3)",
        "cells row 1",
        "cell_bit room",
        "settings bleed",
        "rooms",
        "stairs 0",
        "stairs 1",
        "stairs 2 at (0, 0)",
        "egress",
        "corridor feature 0",
    ):
        assert expected in sources, (expected, sources)
    assert schema_problems(result.dungeon, "dungeon", "x") == []


def test_many_bad_cells_are_summed_up(tmp_path):
    data = donjon_json(SAMPLES["crypt"]["rows"])
    data["cells"][0] = ["?"] * len(data["cells"][0])
    data["cells"][14] = ["?"] * len(data["cells"][14])
    result = convert(_write(tmp_path / "x.json", data))
    cell_notes = [n for n in result.notes if n.source.startswith("cell (")]
    assert len([n for n in cell_notes if "not a cell number" in n.message]) == 20
    assert any(n.source == "22 more cells" for n in result.notes)


def test_detect():
    assert IMPORTER.detect(Path("x.json"), b'{"cell_bit": {}, "cells": [[0]]}')
    assert IMPORTER.detect(Path("x.json"), b'\xef\xbb\xbf {"cells": [[0]], "settings": {}}')
    assert not IMPORTER.detect(Path("x.json"), b'{"cells": [[0]]}')
    assert not IMPORTER.detect(Path("x.json"), b'{"rects": [], "doors": []}')
    assert not IMPORTER.detect(Path("x.json"), b'[{"cells": [], "cell_bit": {}}]')
    assert "donjon" in importers()


def test_large_head_keys_after_the_grid(tmp_path):
    data = donjon_json(SAMPLES["crypt"]["rows"])
    data["cells"] = [row + [0] * 300 for row in data["cells"]] * 8
    text = json.dumps({"cells": data["cells"], "settings": data["settings"]})
    path = _write(tmp_path / "big.json", text)
    assert len(text) > 65536
    assert detect_format(path) == "donjon"


# --- property: import -> canonical dump -> reload -> dump is stable -------------------------------
_CHARS = "#P.1122AL<>"


@st.composite
def random_maps(draw):
    rows = draw(st.integers(3, 9))
    cols = draw(st.integers(3, 9))
    grid = [[draw(st.sampled_from(_CHARS)) for _ in range(cols)] for _ in range(rows)]
    return ["".join(row) for row in grid], draw(st.integers(0, 2)), draw(st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(random_maps())
def test_import_dump_reload_is_stable(tmp_path, case):
    rows, bleed, strings = case
    path = _write(tmp_path / "random.json", donjon_json(rows, bleed=bleed, strings=strings))
    try:
        result = convert(path)
    except ImportFailed:
        assert not any(ch in "12.AL<>" for row in rows for ch in row)  # only when there is no dungeon
        return
    assert schema_problems(result.dungeon, "dungeon", "x") == []
    first = dumps_canonical(dungeon_from_dict(result.dungeon).to_dict())
    again = dumps_canonical(dungeon_from_dict(json.loads(first)).to_dict())
    assert first == again
    import shapely

    polygons = [shapely.Polygon(a["polygon"]) for a in result.dungeon["areas"]]
    assert all(p.is_valid and not p.interiors for p in polygons)
    assert shapely.union_all(polygons).area == pytest.approx(sum(p.area for p in polygons))


_BIT_VALUES = [
    0,
    1,
    2,
    4,
    16,
    32,
    BITS["room"] | 1 << 6,
    BITS["room"] | 3 << 6,
    BITS["room"] | 0x31000000,
    BITS["arch"] | 4,
    BITS["door"] | 4,
    BITS["locked"] | 4,
    BITS["trapped"] | 4,
    BITS["secret"] | 4,
    BITS["portcullis"] | 4,
    BITS["locked"] | BITS["secret"] | BITS["trapped"],
    BITS["stair_up"] | 4,
    BITS["stair_down"],
    BITS["stair_up"] | BITS["stair_down"] | 2,
    0x07000004,
    0xFF000000,
    0xFFFFFFFF,
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.sampled_from(_BIT_VALUES),
                st.integers(-5, 2**33),
                st.text(max_size=3),
                st.none(),
                st.floats(allow_nan=False, allow_infinity=False),
            ),
            min_size=0,
            max_size=8,
        ),
        min_size=1,
        max_size=8,
    ),
    st.dictionaries(
        st.sampled_from(["bleed", "n_rows", "n_cols", "name"]),
        st.one_of(st.integers(-3, 12), st.text(max_size=4), st.none()),
    ),
    st.lists(
        st.dictionaries(
            st.sampled_from(["row", "col", "key", "dir"]),
            st.one_of(st.integers(-3, 12), st.sampled_from(["up", "down", "east", "x"])),
        ),
        max_size=3,
    ),
)
def test_hostile_grids_never_crash(tmp_path, cells, settings_, stairs):
    path = _write(
        tmp_path / "hostile.json",
        {
            "cells": cells,
            "cell_bit": {},
            "settings": settings_,
            "stairs": stairs,
            "egress": stairs,
            "rooms": [None, 5, {"id": "x"}],
        },
    )
    try:
        result = convert(path)
    except ImportFailed as exc:
        assert str(exc)
        return
    assert schema_problems(result.dungeon, "dungeon", "x") == []
    first = dumps_canonical(dungeon_from_dict(result.dungeon).to_dict())
    assert dumps_canonical(dungeon_from_dict(json.loads(first)).to_dict()) == first


if __name__ == "__main__":
    write_samples()


def test_numbers_as_text_with_control_whitespace():
    """Whitespace that int() refuses (e.g. U+001F) around digits is stripped, not crashed on."""
    from inkcrawl.importers.donjon.cells import _int

    assert _int("0\x1f") == 0
    assert _int(" 12 ") == 12
    assert _int("7.0") == 7
    assert _int("1\x1f2") is None
    assert _int("x") is None


# --- Starts where docs/importing-donjon.md puts them (issue 18) ----------------------------------
CELL_MM = 5.0


def _starts_from_the_corner(dungeon: dict) -> list[tuple[float, float]]:
    """Each Start's place in cells from the top-left corner of the areas' bounding box."""
    xs = [p[0] for a in dungeon["areas"] for p in a["polygon"]]
    ys = [p[1] for a in dungeon["areas"] for p in a["polygon"]]
    return [
        (round((s["at"][0] - min(xs)) / CELL_MM, 3), round((s["at"][1] - min(ys)) / CELL_MM, 3))
        for s in dungeon["elements"]
        if s["kind"] == "start"
    ]


def test_an_egress_corridor_ends_at_the_maps_edge_not_in_the_bleed(tmp_path):
    rows = [
        "##########",
        "#PPPPP####",
        "#P111P####",
        "#P111A....",  # the egress: (3, 9), leaving east
        "#P111P####",
        "#PPPPP####",
        "##########",
    ]
    data = donjon_json(rows, bleed=2, egress=[(3, 9, "east")])
    for col in (12, 13):  # as donjon writes it: the corridor runs on through the 2 cells of padding
        data["cells"][3 + 2][col] = BITS["corridor"]
    result = convert(_write(tmp_path / "egress.json", data), cell_mm=CELL_MM)
    # areas from column 2 (room 1) to the map's east edge at column 10; the Start on the east wall
    # of the egress cell (3, 9): 10 - 2 = 8 cells right of the rooms' west side, 3.5 - 2 = 1.5 down
    xs = [p[0] for a in result.dungeon["areas"] for p in a["polygon"]]
    assert (max(xs) - min(xs)) / CELL_MM == pytest.approx(8)
    assert _starts_from_the_corner(result.dungeon) == [(8, 1.5)]
    assert any(
        n.source == "settings bleed" and "2 open cell(s) lie in the bleed padding" in n.message for n in result.notes
    )
    assert not [p for p in validate_data(result.dungeon, tmp_path) if p.severity == "error"]


def test_stairs_inside_get_the_outer_wall_nearest_along_their_corridor(tmp_path):
    rows = [
        "#############",
        "#...........#",
        "#.#########.#",
        "#.#<......#.#",  # stairs (3, 3) at the end of a spur in enclosed rock
        "#.#######.#.#",
        "#...........#",  # the spur joins the loop at (5, 9)
        "#############",
    ]
    result = convert(_write(tmp_path / "spur.json", donjon_json(rows)), cell_mm=CELL_MM)
    # as the crow flies the nearest outer walls are across the rock (north of (1, 3), west of
    # (3, 1)); along the corridor the first cell with an outer wall is (5, 9), 8 cells away: its
    # south edge's middle is (9.5, 6), 8.5 and 5 cells from the corner (1, 1)
    assert _starts_from_the_corner(result.dungeon) == [(8.5, 5)]


def test_a_start_never_covers_a_label(tmp_path):
    data = donjon_json(SAMPLES["crypt"]["rows"])
    data["cells"][7][0] |= ord("7") << 24  # a number printed on the stairs' own cell
    result = convert(_write(tmp_path / "crypt-label.json", data), cell_mm=CELL_MM)
    # the stairs (7, 0) would put their Start on their west wall, over the '7' (0.5 cells away):
    # the next cell along, (7, 1), has free outer walls north and south, equally near; the
    # northern one, (1.5, 7), is 1.5 and 5 cells from the corner (0, 2)
    assert _starts_from_the_corner(result.dungeon) == [(1.5, 5)]
    label = next(e for e in result.dungeon["elements"] if e["kind"] == "label" and e["text"] == "7")
    start = next(e for e in result.dungeon["elements"] if e["kind"] == "start")
    assert abs(label["at"][0] - start["at"][0]) >= CELL_MM
