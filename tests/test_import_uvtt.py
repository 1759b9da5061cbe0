"""The Universal VTT importer (``inkcrawl import`` of ``.dd2vtt``/``.uvtt``/``.df2vtt``).

The real sample (Imagix/uvtt2fgu's sampleMap, image stripped) is read from
``../shared/samples/uvtt/`` (beside the clone, as in CI; never copied here). The small inputs
in ``tests/import_samples/uvtt/`` are our own: :data:`SAMPLES` describes each map in local
cells and :func:`sample_data` writes it the way a VTT exporter would (absolute coordinates,
``map_origin``); ``test_samples_are_generated_from_this_file`` keeps the files and this script
in step, ``python tests/test_import_uvtt.py`` rewrites them.

Expected counts are computed from the source files (walls, portals, points), not copied from
the importer's output.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon

from inkcrawl.geometry import build_geometry, door_areas
from inkcrawl.importers import ImportFailed, ImportOptions, detect_format
from inkcrawl.importers.uvtt import COLLINEAR_CELLS, DUPLICATE_CELLS, IMPORTER, MAX_POINTS
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.model import dungeon_from_dict
from inkcrawl.printed import area_connections
from inkcrawl.problems import Severity
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

REPO = Path(__file__).resolve().parent.parent
SHARED_SAMPLE = REPO.parent / "shared" / "samples" / "uvtt" / "uvtt2fgu_sampleMap_image-stripped.dd2vtt"
SAMPLE_DIR = Path(__file__).resolve().parent / "import_samples" / "uvtt"
MIN_GAP_MM = 2.0  # line-classic print.min_gap_mm


def _portal(a, b, closed=False, freestanding=False):
    return {"a": a, "b": b, "closed": closed, "freestanding": freestanding}


#: Our own small maps, in local cells (before ``origin`` is added).
SAMPLES = {
    # A cropped map: two rooms and an open door, everything offset by map_origin (100, 50).
    "origin_crop": dict(
        origin=(100, 50),
        size=(12, 8),
        walls=[
            [(1, 1), (11, 1), (11, 7), (1, 7), (1, 1)],
            [(6, 1), (6, 3.5)],
            [(6, 4.5), (6, 7)],
        ],
        portals=[_portal((6, 3.5), (6, 4.5))],
        lights=2,
        image="iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    ),
    # Near-duplicate points, collinear points, a ring that almost closes, a wall that stops just
    # short of the outline: one room split in two by that wall, with an open gap.
    "duplicates": dict(
        origin=(0, 0),
        size=(10, 8),
        walls=[
            [
                (1, 1),
                (1.001, 1),
                (3, 1),
                (5, 1),
                (5.015, 1.0),
                (9, 1),
                (9, 4),
                (9, 4.005),
                (9, 7),
                (5, 7),
                (1, 7),
                (1, 4),
                (1, 1.01),
            ],
            [(5, 1.01), (5, 3)],
            [(5, 4), (5, 5.5), (5, 7)],
        ],
        portals=[_portal((5, 3), (5, 4))],
    ),
    # A hall (west) and two rooms (east): a closed door, an open door whose wall runs on under it,
    # a freestanding door, a door to the outside (the Start), a narrow door, a door standing in
    # the middle of the hall, and a door whose bounds stop short of the wall gap.
    "portals": dict(
        origin=(0, 0),
        size=(16, 10),
        walls=[
            [(1, 1), (15, 1), (15, 9), (1, 9), (1, 1)],
            [(7, 1), (7, 3)],
            [(7, 4), (7, 9)],
            [(7, 5), (11, 5)],
            [(11.3, 5), (15, 5)],
            [(3, 9), (3, 10)],
        ],
        portals=[
            _portal((7, 3), (7, 4), closed=True),
            _portal((7, 6), (7, 7)),
            _portal((11, 5), (11.3, 5)),
            _portal((3, 3), (4, 3), closed=True, freestanding=True),
            _portal((4, 1), (5, 1)),
            _portal((2, 6), (3, 6)),
        ],
    ),
    # A ring room around an inner room with a door, a pillar drawn as a wall ring and a statue
    # drawn as an object outline.
    "nested": dict(
        origin=(0, 0),
        size=(12, 12),
        walls=[
            [(1, 1), (11, 1), (11, 11), (1, 11), (1, 1)],
            [(5, 5), (7, 5), (7, 5.5)],
            [(7, 6.5), (7, 7), (5, 7), (5, 5)],
            [(2, 2), (3, 2), (3, 3), (2, 3), (2, 2)],
        ],
        objects=[[(8.5, 8.5), (9.5, 8.5), (9.5, 9.5), (8.5, 9.5), (8.5, 8.5)]],
        portals=[_portal((7, 5.5), (7, 6.5))],
    ),
    # Walls that never close a room: the whole map is one room with the walls inside.
    "open_walls": dict(origin=(0, 0), size=(10, 6), walls=[[(2, 2), (8, 2)], [(5, 2), (5, 5)]], portals=[]),
}


def sample_data(spec: dict) -> dict:
    """A Universal VTT document from a :data:`SAMPLES` entry (absolute coordinates)."""
    ox, oy = spec["origin"]

    def point(p):
        return {"x": p[0] + ox, "y": p[1] + oy}

    portals = []
    for portal in spec["portals"]:
        a, b = portal["a"], portal["b"]
        angle = math.atan2(b[1] - a[1], b[0] - a[0])
        portals.append(
            {
                "position": point(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)),
                "bounds": [point(a), point(b)],
                "rotation": round(angle, 6),
                "closed": portal["closed"],
                "freestanding": portal["freestanding"],
            }
        )
    return {
        "format": 0.3,
        "resolution": {
            "map_origin": {"x": ox, "y": oy},
            "map_size": {"x": spec["size"][0], "y": spec["size"][1]},
            "pixels_per_grid": 64,
        },
        "line_of_sight": [[point(p) for p in wall] for wall in spec["walls"]],
        "objects_line_of_sight": [[point(p) for p in line] for line in spec.get("objects", [])],
        "portals": portals,
        "environment": {"baked_lighting": False, "ambient_light": "ffffffff"},
        "lights": [
            {"position": point((2 + i, 2)), "range": 4, "intensity": 1, "color": "ffeccd8b", "shadows": True}
            for i in range(spec.get("lights", 0))
        ],
        "image": spec.get("image", ""),
    }


def sample_text(name: str) -> str:
    return json.dumps(sample_data(SAMPLES[name]), indent="\t") + "\n"


def write_samples() -> None:
    SAMPLE_DIR.mkdir(parents=True, exist_ok=True)
    for name in SAMPLES:
        (SAMPLE_DIR / f"{name}.dd2vtt").write_text(sample_text(name), encoding="utf-8")


# helpers -------------------------------------------------------------------------------------
def convert(path: Path, **options):
    return IMPORTER.convert(path, ImportOptions(**options))


def errors_of(data: dict) -> list:
    problems, _ = check_dungeon_data(data, "imported.json", RulesetRegistry())
    return [p for p in problems if p.severity == Severity.ERROR]


def warnings_of(data: dict) -> list:
    problems, _ = check_dungeon_data(data, "imported.json", RulesetRegistry())
    return [p for p in problems if p.severity == Severity.WARNING]


def notes_about(result, text: str) -> list:
    return [n for n in result.notes if text in n.message or text in n.source]


def assert_round_trip(data: dict) -> None:
    first = dumps_canonical(dungeon_from_dict(data).to_dict())
    again = dumps_canonical(dungeon_from_dict(json.loads(first)).to_dict())
    assert first == again


def local_lines(source: dict, member: str) -> list[list[tuple[float, float]]]:
    origin = source["resolution"].get("map_origin", {"x": 0, "y": 0})
    return [[(p["x"] - origin["x"], p["y"] - origin["y"]) for p in line] for line in source.get(member) or []]


def local_portals(source: dict) -> list[dict]:
    origin = source["resolution"].get("map_origin", {"x": 0, "y": 0})
    out = []
    for portal in source.get("portals") or []:
        a, b = ((p["x"] - origin["x"], p["y"] - origin["y"]) for p in portal["bounds"])
        out.append({**portal, "a": a, "b": b})
    return out


def source_faces(source: dict) -> list[Polygon]:
    """The regions the walls and set-in portals of the source enclose (shapely, independently)."""
    segments = [LineString(line) for line in local_lines(source, "line_of_sight") if len(line) >= 2]
    segments += [LineString([p["a"], p["b"]]) for p in local_portals(source) if not p["freestanding"]]
    return [
        f
        for f in shapely.get_parts(shapely.polygonize(shapely.get_parts(shapely.union_all(segments))))
        if f.area > 0.05
    ]


def sheet_transform(data: dict, faces: list[Polygon]):
    """Cells -> sheet mm, from the bounds of the source's rooms and the imported areas."""
    cx0, cy0, cx1, _ = shapely.union_all(faces).bounds
    mx0, my0, mx1, _ = shapely.union_all([Polygon(a["polygon"]) for a in data["areas"]]).bounds
    scale = (mx1 - mx0) / (cx1 - cx0)
    return scale, lambda p: (mx0 + (p[0] - cx0) * scale, my0 + (p[1] - cy0) * scale)


def simplification_counts(lines: list[list[tuple[float, float]]]) -> tuple[int, int]:
    """Near-duplicate and collinear points of the source, by the documented rule: a point closer
    than DUPLICATE_CELLS to the last kept one goes (the end point stays, a ring whose ends are
    that close is closed), then Douglas-Peucker within COLLINEAR_CELLS."""
    duplicates = collinear = 0
    for line in lines:
        kept = []
        for i, p in enumerate(line):
            if kept and math.dist(p, kept[-1]) < DUPLICATE_CELLS:
                if i == len(line) - 1 and len(kept) > 1:
                    kept[-1] = p
                continue
            kept.append(p)
        if len(kept) >= 4 and kept[0] != kept[-1] and math.dist(kept[0], kept[-1]) < DUPLICATE_CELLS:
            kept[-1] = kept[0]
        duplicates += len(line) - len(kept)
        if len(kept) >= 3:
            simple = shapely.get_coordinates(
                shapely.simplify(LineString(kept), COLLINEAR_CELLS, preserve_topology=False)
            )
            if not (kept[0] == kept[-1] and len(simple) < 4):
                collinear += len(kept) - len(simple)
    return duplicates, collinear


def portal_faces(portal: dict, faces: list[Polygon]) -> list[int | None]:
    """The source faces on either side of a portal's middle (``None``: none)."""
    (ax, ay), (bx, by) = portal["a"], portal["b"]
    length = math.dist(portal["a"], portal["b"])
    nx, ny = -(by - ay) / length * 0.05, (bx - ax) / length * 0.05
    mx, my = (ax + bx) / 2, (ay + by) / 2
    return [
        next((i for i, f in enumerate(faces) if f.contains(Point(mx + s * nx, my + s * ny))), None) for s in (1, -1)
    ]


def gap_is_open(data: dict, a_mm, b_mm) -> bool:
    """No explicit wall within 0.5 mm of the middle of a portal segment (sheet mm)."""
    middle = Point((a_mm[0] + b_mm[0]) / 2, (a_mm[1] + b_mm[1]) / 2)
    return all(LineString(w["points"]).distance(middle) > 0.5 for w in data["walls"])


def connections(data: dict) -> set[frozenset]:
    dungeon = dungeon_from_dict(data)
    geometry = build_geometry(dungeon)
    doors = [(d, *door_areas(geometry, d, 0.5)) for d in dungeon.elements_of("door")]
    return {frozenset((c.a, c.b)) for c in area_connections(geometry, doors, MIN_GAP_MM)}


# the real sample -----------------------------------------------------------------------------
needs_shared = pytest.mark.skipif(
    not SHARED_SAMPLE.is_file(), reason=f"third-party sample {SHARED_SAMPLE} absent (../shared beside the clone)"
)


@needs_shared
def test_shared_sample_counts_from_the_source():
    source = json.loads(SHARED_SAMPLE.read_text(encoding="utf-8"))
    assert detect_format(SHARED_SAMPLE) == "uvtt"
    result = convert(SHARED_SAMPLE)
    data = result.dungeon
    assert errors_of(data) == []
    assert warnings_of(data) == []
    assert_round_trip(data)

    faces = source_faces(source)
    assert len(data["areas"]) == len(faces) == 2
    # walls: the line_of_sight pieces that are not on the outline of the rooms (between two
    # rooms) plus every object outline (standing inside a room)
    outline = shapely.union_all(faces).exterior.buffer(1e-6)
    inner = [line for line in local_lines(source, "line_of_sight") if not outline.contains(LineString(line))]
    objects = local_lines(source, "objects_line_of_sight")
    assert len(data["walls"]) == len(inner) + len(objects)

    # portals: every one set in a wall becomes an open gap between the two rooms; closed ones are noted
    portals = [p for p in local_portals(source) if not p["freestanding"]]
    scale, to_mm = sheet_transform(data, faces)
    for portal in portals:
        assert gap_is_open(data, to_mm(portal["a"]), to_mm(portal["b"]))
    assert connections(data) == {frozenset(a["id"] for a in data["areas"])}
    assert not [e for e in data["elements"] if e["kind"] == "door"]
    closed = [p for p in portals if p["closed"]]
    assert len(notes_about(result, "closed door")) == len(closed) == 1
    for portal in closed:
        x, y = portal["position"]["x"], portal["position"]["y"]
        assert notes_about(result, f"at ({x:g}, {y:g})")

    # simplification counts, per list, as reported
    for member in ("line_of_sight", "objects_line_of_sight"):
        duplicates, collinear = simplification_counts(local_lines(source, member))
        notes = [n for n in result.notes if n.source == member and "simplified" in n.message]
        if duplicates or collinear:
            assert len(notes) == 1
            assert f"{duplicates} near-duplicate" in notes[0].message
            assert f"{collinear} collinear" in notes[0].message
        else:
            assert not notes
    assert simplification_counts(local_lines(source, "objects_line_of_sight"))[0] > 0

    # everything unmapped is named
    assert notes_about(result, f"{len(source['lights'])} light(s)")
    assert [n for n in result.notes if n.source == "image"]
    assert [n for n in result.notes if n.source == "environment"]
    starts = [e for e in data["elements"] if e["kind"] == "start"]
    assert len(starts) == 1 and notes_about(result, "no entrance")
    assert scale == pytest.approx(5.0)


@needs_shared
def test_shared_sample_through_the_command_line(tmp_path, capsys):
    from inkcrawl.cli import main

    out = tmp_path / "sample.json"
    assert main(["import", str(SHARED_SAMPLE), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "warning IMPORT portal 1 at (7, 3)" in captured.err
    assert json.loads(out.read_text(encoding="utf-8"))["family"] == "line"


# our own small inputs ------------------------------------------------------------------------
def test_samples_are_generated_from_this_file():
    for name in SAMPLES:
        path = SAMPLE_DIR / f"{name}.dd2vtt"
        assert path.read_text(encoding="utf-8") == sample_text(name), f"run python {__file__} to regenerate {name}"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_import_valid(name):
    path = SAMPLE_DIR / f"{name}.dd2vtt"
    assert detect_format(path) == "uvtt"
    result = convert(path)
    assert errors_of(result.dungeon) == []
    assert_round_trip(result.dungeon)
    assert len([e for e in result.dungeon["elements"] if e["kind"] == "start"]) == 1
    polygons = [Polygon(a["polygon"]) for a in result.dungeon["areas"]]
    assert all(p.is_valid and not p.interiors for p in polygons)
    assert shapely.union_all(polygons).area == pytest.approx(sum(p.area for p in polygons))


def test_map_origin_is_subtracted(tmp_path):
    path = SAMPLE_DIR / "origin_crop.dd2vtt"
    source = json.loads(path.read_text(encoding="utf-8"))
    result = convert(path)
    # the same map written without the crop offset imports to the same dungeon
    shifted = sample_data({**SAMPLES["origin_crop"], "origin": (0, 0)})
    plain = tmp_path / "origin_crop.dd2vtt"  # same name: same id and title
    plain.write_text(json.dumps(shifted), encoding="utf-8")
    assert convert(plain).dungeon == result.dungeon
    # notes name the source objects in the file's own (absolute) coordinates
    assert notes_about(result, f"{len(source['lights'])} light(s)")
    assert notes_about(result, f"{len(source['image']):,} characters of base64")
    start_note = notes_about(result, "no entrance")[0]
    x, y = (float(v) for v in start_note.source.removeprefix("Start at (").rstrip(")").split(", "))
    assert 100 <= x <= 112 and 50 <= y <= 58
    faces = source_faces(source)
    assert len(result.dungeon["areas"]) == len(faces) == 2
    assert connections(result.dungeon) == {frozenset(a["id"] for a in result.dungeon["areas"])}


def test_duplicates_and_collinear_points_are_simplified():
    path = SAMPLE_DIR / "duplicates.dd2vtt"
    source = json.loads(path.read_text(encoding="utf-8"))
    result = convert(path)
    duplicates, collinear = simplification_counts(local_lines(source, "line_of_sight"))
    assert duplicates > 0 and collinear > 0
    note = [n for n in result.notes if n.source == "line_of_sight" and "simplified" in n.message][0]
    assert f"{duplicates} near-duplicate" in note.message and f"{collinear} collinear" in note.message
    assert notes_about(result, "stopping short")  # the inner wall starts 0.01 cells below the outline
    # two clean rectangles joined by the gap
    areas = result.dungeon["areas"]
    assert len(areas) == 2 and all(len(a["polygon"]) == 4 for a in areas)
    assert connections(result.dungeon) == {frozenset(a["id"] for a in areas)}
    assert errors_of(result.dungeon) == [] and warnings_of(result.dungeon) == []


def test_closed_and_open_portals():
    path = SAMPLE_DIR / "portals.dd2vtt"
    source = json.loads(path.read_text(encoding="utf-8"))
    result = convert(path)
    data = result.dungeon
    faces = source_faces(source)
    assert len(data["areas"]) == len(faces) == 3
    portals = local_portals(source)

    def named(index):  # the notes about portal `index` (1-based, file order)
        return [n for n in result.notes if n.source.startswith(f"portal {index} at")]

    # freestanding -> noted and left out; closed -> an open gap, noted; none becomes a locked door
    for index, portal in enumerate(portals, start=1):
        if portal["freestanding"]:
            assert any("freestanding" in n.message for n in named(index))
        elif portal["closed"]:
            assert any("closed door" in n.message for n in named(index))
    assert not [e for e in data["elements"] if e["kind"] == "door"]
    # every portal between two of the source's rooms is a gap in the walls
    scale, to_mm = sheet_transform(data, faces)
    between = [p for p in portals if not p["freestanding"] and len(set(portal_faces(p, faces)) - {None}) == 2]
    assert len(between) == 3
    for portal in between:
        assert gap_is_open(data, to_mm(portal["a"]), to_mm(portal["b"]))
    # the hall reaches both rooms, the rooms reach each other
    assert len(connections(data)) == 3
    # the open door with the wall running under it: the wall is cut
    assert any("cut open" in n.message for n in named(2))
    # the narrow door (0.3 cells = 1.5 mm at 5 mm a cell) is widened to pass
    assert any("widened" in n.message for n in named(3))
    # the door on the outer wall is the entrance
    start = [e for e in data["elements"] if e["kind"] == "start"][0]
    door = portals[4]
    assert start["at"] == pytest.approx(to_mm(((door["a"][0] + door["b"][0]) / 2, door["a"][1])), abs=0.01)
    assert any("Start is placed there" in n.message for n in named(5))
    # the door standing in the middle of the hall
    assert any("inside" in n.message for n in named(6))
    # a wall sticking out of the building stays a wall (outside every room)
    assert any(min(p[1] for p in w["points"]) >= to_mm((0, 9))[1] - 0.01 for w in data["walls"])
    assert errors_of(data) == [] and warnings_of(data) == []


def test_portal_short_of_its_gap_is_stretched(tmp_path):
    spec = {**SAMPLES["origin_crop"], "portals": [_portal((6, 3.6), (6, 4.4))]}
    path = tmp_path / "short.dd2vtt"
    path.write_text(json.dumps(sample_data(spec)), encoding="utf-8")
    result = convert(path)
    assert notes_about(result, "2 end(s) moved up to 0.1 cells")
    assert len(result.dungeon["areas"]) == 2
    assert connections(result.dungeon) == {frozenset(a["id"] for a in result.dungeon["areas"])}


def test_nested_room_pillar_and_object():
    result = convert(SAMPLE_DIR / "nested.dd2vtt")
    data = result.dungeon
    # the ring room is cut in two around the inner room: 3 areas, all reachable
    assert len(data["areas"]) == 3
    assert notes_about(result, "split into 2 areas")
    assert notes_about(result, "kept as walls standing in the room")
    assert errors_of(data) == [] and warnings_of(data) == []
    # the pillar ring, the statue outline and the inner room's walls are explicit walls
    rings = [w for w in data["walls"] if w["points"][0] == w["points"][-1]]
    assert len(rings) == 2


def test_walls_without_rooms_make_one_room():
    result = convert(SAMPLE_DIR / "open_walls.dd2vtt")
    data = result.dungeon
    assert len(data["areas"]) == 1 and notes_about(result, "whole map is one room")
    spec = SAMPLES["open_walls"]
    xs = [p[0] for p in data["areas"][0]["polygon"]]
    scale = (max(xs) - min(xs)) / spec["size"][0]
    drawn = sum(LineString(w["points"]).length for w in data["walls"])
    assert drawn == pytest.approx(sum(LineString(w).length for w in spec["walls"]) * scale)
    assert errors_of(data) == []


def test_detection(tmp_path):
    assert IMPORTER.detect(Path("x.uvtt"), b"") and IMPORTER.detect(Path("x.DF2VTT"), b"{")
    head = json.dumps(sample_data(SAMPLES["origin_crop"])).encode()
    assert IMPORTER.detect(Path("map.json"), head)
    assert not IMPORTER.detect(Path("map.json"), b'{"format": 1.2, "resolution": {}, "line_of_sight": []}')
    assert not IMPORTER.detect(Path("map.json"), b'{"rects": [], "doors": []}')


def test_cell_mm_option():
    result = convert(SAMPLE_DIR / "origin_crop.dd2vtt", cell_mm=12)
    xs = [p[0] for a in result.dungeon["areas"] for p in a["polygon"]]
    assert max(xs) - min(xs) == pytest.approx(10 * 12)


# malformed and hostile input -------------------------------------------------------------------
def _valid_text() -> str:
    return sample_text("origin_crop")


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello {", "invalid JSON"),
        ("", "empty"),
        ("[1, 2]", "top level is a list"),
        ('{"format": 0.3, "line_of_sight": []}', "no 'resolution'"),
        (_valid_text().replace('"x": 101,', '"x": NaN,', 1), "NaN"),
        (_valid_text().replace('"x": 101,', '"x": 1e999,', 1), "too large"),
        (_valid_text().replace('"x": 101,', '"x": 1e300,', 1), "finite and within"),
        (_valid_text().replace('"x": 101,', '"x": "101",', 1), "must be a number"),
        (_valid_text().replace('"line_of_sight": [', '"line_of_sight": 3, "x": [', 1), "must be a list of polylines"),
        ('{"format": 0.3, "resolution": {"map_origin": {"x": 0}}}', "must be a point"),
        ('{"format": 0.3, "resolution": {}}', "nothing to import"),
        ('{"resolution": ' + "[" * 200 + "]" * 200 + "}", "nested deeper"),
        ('{"format": 0.3, "resolution": {"map_origin": {"x": ' + "9" * 40 + ', "y": 0}}}', "digits"),
    ],
)
def test_malformed_input_fails_clearly(tmp_path, text, message):
    path = tmp_path / "bad.dd2vtt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFailed, match=message):
        convert(path)


def test_a_million_points_are_refused(tmp_path):
    point = '{"x": 1.5, "y": 2.5}, '
    path = tmp_path / "million.dd2vtt"
    path.write_text(
        '{"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}}, "line_of_sight": [['
        + point * (10**6 - 1)
        + '{"x": 1, "y": 1}]]}',
        encoding="utf-8",
    )
    with pytest.raises(ImportFailed, match=f"more than {MAX_POINTS:,} points"):
        convert(path)


def test_a_100_mb_image_is_refused(tmp_path):
    path = tmp_path / "huge-image.dd2vtt"
    with path.open("w", encoding="utf-8") as handle:
        handle.write(_valid_text().rstrip().rstrip("}") + ', "image2": "')
        chunk = "A" * (1024 * 1024)
        for _ in range(100):
            handle.write(chunk)
        handle.write('"}')
    with pytest.raises(ImportFailed, match="embedded map image"):
        convert(path)


def test_binary_file_and_bad_portals(tmp_path):
    path = tmp_path / "binary.dd2vtt"
    path.write_bytes(b"\x00\x01\x02{")
    with pytest.raises(ImportFailed, match="binary"):
        convert(path)
    data = sample_data(SAMPLES["origin_crop"])
    data["portals"] += [
        None,
        {"bounds": [{"x": 1, "y": 1}]},
        {"bounds": [{"x": 1, "y": 1}, {"x": 1, "y": 1}]},
        {"bounds": [{"x": 101, "y": 51}, {"x": 102, "y": 51}], "closed": "yes"},
    ]
    data["mystery"] = 1
    path = tmp_path / "portals.dd2vtt"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = convert(path)
    assert errors_of(result.dungeon) == []
    for source in ("portal 2", "portal 3", "portal 4 at", "portal 5 at", "mystery"):
        assert [n for n in result.notes if n.source.startswith(source)], source


# properties ---------------------------------------------------------------------------------
@st.composite
def buildings(draw):
    """A building of rectangular rooms on a grid with walls, open and closed doors (walls cut
    at the door or running under it), near-duplicate and collinear points, at ``origin``.
    Returns ``(spec, expected number of areas)``."""
    widths = draw(st.lists(st.integers(2, 5), min_size=1, max_size=3))
    heights = draw(st.lists(st.integers(2, 5), min_size=1, max_size=3))
    xs = [1 + sum(widths[:i]) for i in range(len(widths) + 1)]
    ys = [1 + sum(heights[:i]) for i in range(len(heights) + 1)]
    walls = [[(xs[0], ys[0]), (xs[-1], ys[0]), (xs[-1], ys[-1]), (xs[0], ys[-1]), (xs[0], ys[0])]]
    if draw(st.booleans()):  # near-duplicate and collinear points on the outline
        walls[0][1:1] = [(xs[0] + 0.004, ys[0]), ((xs[0] + xs[-1]) / 2, ys[0])]
    portals = []
    doors = {(c, r): 0 for c in range(len(widths)) for r in range(len(heights))}
    edges = [
        ((xs[i], ys[j]), (xs[i], ys[j + 1]), (i - 1, j), (i, j))
        for i in range(1, len(xs) - 1)
        for j in range(len(heights))
    ]
    edges += [
        ((xs[i], ys[j]), (xs[i + 1], ys[j]), (i, j - 1), (i, j))
        for j in range(1, len(ys) - 1)
        for i in range(len(widths))
    ]
    for a, b, cell_a, cell_b in edges:
        kind = draw(st.sampled_from(["wall", "open", "closed"]))
        if kind == "wall":
            walls.append([a, b])
            continue
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        unit = ((b[0] - a[0]) / math.dist(a, b), (b[1] - a[1]) / math.dist(a, b))
        p = (mid[0] - unit[0] / 2, mid[1] - unit[1] / 2)
        q = (mid[0] + unit[0] / 2, mid[1] + unit[1] / 2)
        walls += [[a, p], [q, b]] if draw(st.booleans()) else [[a, b]]
        portals.append(_portal(p, q, closed=kind == "closed"))
        doors[cell_a] += 1
        doors[cell_b] += 1
    origin = (draw(st.integers(-40, 40)) / 2, draw(st.integers(-40, 40)) / 2)
    spec = dict(origin=origin, size=(xs[-1] + 1, ys[-1] + 1), walls=walls, portals=portals)
    # a room with no door that touches no outer wall is sealed rock, not a room
    inner = {(c, r) for (c, r) in doors if 0 < c < len(widths) - 1 and 0 < r < len(heights) - 1}
    return spec, sum(1 for cell, count in doors.items() if count or cell not in inner)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=buildings())
def test_property_import_dump_reload_is_stable(tmp_path, case):
    spec, expected_areas = case
    path = tmp_path / "building.dd2vtt"
    path.write_text(json.dumps(sample_data(spec)), encoding="utf-8")
    result = convert(path)
    data = result.dungeon
    assert errors_of(data) == []
    assert len(data["areas"]) == expected_areas
    first = dumps_canonical(dungeon_from_dict(data).to_dict())
    reloaded = dungeon_from_dict(json.loads(first)).to_dict()
    assert dumps_canonical(reloaded) == first
    assert errors_of(reloaded) == []
    # the origin only moves the source: the same map without it imports identically
    plain = tmp_path / "plain" / "building.dd2vtt"
    plain.parent.mkdir(exist_ok=True)
    plain.write_text(json.dumps(sample_data({**spec, "origin": (0, 0)})), encoding="utf-8")
    assert convert(plain).dungeon == data


coordinates = st.integers(-4, 24).map(lambda v: v / 2) | st.floats(-2, 12, allow_nan=False)
points = st.tuples(coordinates, coordinates)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    walls=st.lists(st.lists(points, min_size=1, max_size=6), max_size=8),
    portals=st.lists(st.tuples(points, points, st.booleans(), st.booleans()), max_size=4),
    objects=st.lists(st.lists(points, min_size=3, max_size=5).map(lambda p: p + p[:1]), max_size=2),
)
def test_property_random_walls_import_valid_or_fail_cleanly(tmp_path, walls, portals, objects):
    spec = dict(
        origin=(0, 0),
        size=(10, 10),
        walls=walls,
        objects=objects,
        portals=[_portal(a, b, closed=c, freestanding=f) for a, b, c, f in portals],
    )
    path = tmp_path / "random.dd2vtt"
    path.write_text(json.dumps(sample_data(spec)), encoding="utf-8")
    try:
        result = convert(path)
    except ImportFailed:
        return
    assert errors_of(result.dungeon) == []
    assert_round_trip(result.dungeon)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(-20, 20, allow_nan=False) | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["x", "y", "bounds", "position", "closed", "freestanding", "map_origin", "map_size"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=25,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    document=st.fixed_dictionaries(
        {},
        optional={
            key: json_values
            for key in (
                "format",
                "resolution",
                "line_of_sight",
                "objects_line_of_sight",
                "portals",
                "lights",
                "image",
                "environment",
            )
        },
    )
)
def test_property_hostile_structure_never_crashes(tmp_path, document):
    path = tmp_path / "hostile.dd2vtt"
    path.write_text(json.dumps(document), encoding="utf-8")
    try:
        result = convert(path)
    except ImportFailed as exc:
        assert str(exc)
        return
    assert errors_of(result.dungeon) == []


if __name__ == "__main__":
    write_samples()
