"""Tiled interoperability: importing Tiled maps (TMX and JSON, every era) and exporting our
dungeons as Tiled maps that the real Tiled reads (docs/importing-tiled.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from conftest import PACKS, REPO, bundled_dungeon_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl.cli import main
from inkcrawl.importers import ImportFailed, ImportOptions, detect_format, importers
from inkcrawl.importers.tiled import IMPORTER
from inkcrawl.importers.tiled.mapping import LINE_CLASSES
from inkcrawl.importers.tiled.properties import version_number
from inkcrawl.model import dungeon_from_dict, edge_key
from inkcrawl.rulesets import bundled_rulesets
from inkcrawl.schema import schema_problems
from inkcrawl.tiled_export import TiledExportError, dungeon_to_map, export_tiled, map_to_tmx

SAMPLES = REPO.parent / "shared" / "samples" / "tiled"
LINE_DUNGEON = PACKS / "lantern-depths" / "dungeons" / "02-verdigris-bell-vault.json"
GRID_DUNGEON = PACKS / "ember-halls" / "dungeons" / "cinder-vault.json"
TILED = shutil.which("tiled")


def _load(path: Path):
    return dungeon_from_dict(json.loads(path.read_text(encoding="utf-8")))


def _import(path: Path, **options):
    result = IMPORTER.convert(path, ImportOptions(**options))
    assert not schema_problems(result.dungeon, "dungeon", str(path)), schema_problems(result.dungeon, "dungeon", "x")
    return result


def _canonical(data: dict) -> dict:
    """The canonical form of a dungeon, with grid passages named by their edge (either room)."""
    out = dungeon_from_dict(data).to_dict() if "type" in data else data
    if out["family"] == "grid":
        out["passages"] = sorted(edge_key(tuple(p["cell"]), p["side"]) for p in out["passages"])
    return out


def assert_equivalent(expected, actual, path: str = "") -> None:
    """Same structure and values, numbers within 0.01 (mm)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and set(expected) == set(actual), (path, expected, actual)
        for key in expected:
            assert_equivalent(expected[key], actual[key], f"{path}/{key}")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(expected) == len(actual), (path, expected, actual)
        for number, (a, b) in enumerate(zip(expected, actual)):
            assert_equivalent(a, b, f"{path}/{number}")
    elif isinstance(expected, (int, float)) and not isinstance(expected, bool):
        assert isinstance(actual, (int, float)) and abs(expected - actual) <= 0.01, (path, expected, actual)
    else:
        assert expected == actual, (path, expected, actual)


def _write_map(tmp_path: Path, data: dict, name: str = "map.json") -> Path:
    target = tmp_path / name
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


def _map(layers: list, **extra) -> dict:
    return {
        "type": "map",
        "version": "1.10",
        "tiledversion": "1.10.2",
        "orientation": "orthogonal",
        "width": 40,
        "height": 30,
        "tilewidth": 16,
        "tileheight": 16,
        "infinite": False,
        "tilesets": [],
        "nextobjectid": 100,
        "layers": layers,
        **extra,
    }


def _layer(name: str, objects: list, **extra) -> dict:
    return {"type": "objectgroup", "name": name, "objects": objects, **extra}


def _rect(oid, cls, x, y, w, h, **extra) -> dict:
    return {"id": oid, "name": "", "type": cls, "x": x, "y": y, "width": w, "height": h, "rotation": 0, **extra}


def _props(**values) -> list:
    kinds = {bool: "bool", int: "int", float: "float", str: "string"}
    return [{"name": k, "type": kinds[type(v)], "value": v} for k, v in values.items()]


# ------------------------------------------------------------------------------------------
# the shared samples: counts computed from the source files


def _sample_files():
    return sorted(SAMPLES.glob("*")) if SAMPLES.is_dir() else []


def _source_summary(path: Path) -> dict:
    """Counts read straight from a sample (trusted file): layers by type, objects and classes."""
    if path.suffix == ".tmx":
        root = ET.parse(path).getroot()
        summary = {
            "tile": len(list(root.iter("layer"))),
            "image": len(list(root.iter("imagelayer"))),
            "objects": [],
            "missing_tilesets": 0,
            "layer_extras": 0,
            "map_props": len(root.findall("properties/property")),
        }
        for tileset in root.findall("tileset"):
            if tileset.get("source") and not (path.parent / tileset.get("source")).exists():
                summary["missing_tilesets"] += 1
        for group in root.iter("objectgroup"):
            if group.get("class") or group.find("properties") is not None:
                summary["layer_extras"] += 1
            for obj in group.findall("object"):
                summary["objects"].append(
                    {
                        "class": obj.get("class") or obj.get("type") or "",
                        "template": obj.get("template"),
                        "text": obj.find("text") is not None,
                        "props": len(obj.findall("properties/property")),
                    }
                )
        summary["map_class"] = bool(root.get("class"))
        return summary
    data = json.loads(path.read_text(encoding="utf-8"))
    summary = {
        "tile": 0,
        "image": 0,
        "objects": [],
        "layer_extras": 0,
        "missing_tilesets": sum(
            1 for t in data.get("tilesets", []) if t.get("source") and not (path.parent / t["source"]).exists()
        ),
        "map_props": len(data.get("properties", [])),
        "map_class": bool(data.get("class")),
    }

    def walk(layers):
        for layer in layers:
            if layer["type"] == "group":
                walk(layer["layers"])
            elif layer["type"] == "tilelayer":
                summary["tile"] += 1
            elif layer["type"] == "imagelayer":
                summary["image"] += 1
            elif layer["type"] == "objectgroup":
                if layer.get("class") or layer.get("properties"):
                    summary["layer_extras"] += 1
                for obj in layer["objects"]:
                    summary["objects"].append(
                        {
                            "class": obj.get("class") or obj.get("type") or "",
                            "template": obj.get("template"),
                            "text": "text" in obj,
                            "props": len(obj.get("properties", [])),
                        }
                    )

    walk(data["layers"])
    return summary


@pytest.mark.parametrize(
    "path",
    _sample_files()
    or [
        pytest.param(
            None, marks=pytest.mark.skip(reason=f"the shared Tiled samples are not beside the clone ({SAMPLES})")
        )
    ],
    ids=lambda p: p.name if p else "absent",
)
def test_tiled_samples_import_with_counts_from_the_source(path):
    assert detect_format(path) == "tiled"
    summary = _source_summary(path)
    result = _import(path)
    notes = result.notes
    by_start = Counter(note.source.split(" ")[0] + " " + note.source.split(" ")[1] for note in notes)
    # every tile layer and image layer is reported: they have no meaning here
    assert by_start["tile layer"] == summary["tile"]
    assert by_start["image layer"] == summary["image"]
    assert sum(1 for n in notes if n.source.startswith("tileset ")) == summary["missing_tilesets"]
    templates = [o for o in summary["objects"] if o["template"]]
    assert sum(1 for n in notes if "template" in n.message) == len(templates)
    plain = [o for o in summary["objects"] if not o["template"]]
    mapped = [o for o in plain if LINE_CLASSES.get(o["class"].lower()) or (not o["class"] and o["text"])]
    unmapped = [o for o in plain if o not in mapped]
    assert sum(1 for n in notes if "skipped (map it with --map)" in n.message) == len(unmapped)
    elements = result.dungeon["elements"]
    assert len(elements) + len(result.dungeon["areas"]) + len(result.dungeon["walls"]) == len(mapped)
    assert Counter(e["kind"] for e in elements) == Counter(
        "label" if not o["class"] else LINE_CLASSES[o["class"].lower()] for o in mapped
    )
    with_props = [o for o in mapped if o["props"]]  # none of the samples' properties mean anything here
    assert sum(1 for n in notes if "have no meaning for a " in n.message) == len(with_props)
    expected_total = (
        summary["tile"]
        + summary["image"]
        + summary["missing_tilesets"]
        + len(templates)
        + len(unmapped)
        + len(with_props)
        + summary["layer_extras"]
        + (1 if summary["map_props"] else 0)
        + (1 if summary["map_class"] else 0)
    )
    assert len(notes) == expected_total, [f"{n.source}: {n.message}" for n in notes]


def test_the_tmx_and_json_samples_of_one_map_agree():
    tmx, tmj = SAMPLES / "pytiled_all_layer_types.tmx", SAMPLES / "pytiled_all_layer_types.json"
    if not (tmx.exists() and tmj.exists()):
        pytest.skip(f"the shared Tiled samples are not beside the clone ({SAMPLES})")
    a, b = _import(tmx), _import(tmj)
    assert [n.source.replace(".tsx", ".json") for n in a.notes] == [n.source for n in b.notes]
    assert "object 1 on layer 'Group 1/Object Layer 1'" in {n.source for n in a.notes}
    assert a.dungeon["areas"] == b.dungeon["areas"] == [] and a.dungeon["elements"] == b.dungeon["elements"] == []


def test_sample_cli_import_writes_a_dungeon_and_names_the_objects(tmp_path, capsys):
    sample = SAMPLES / "tileson_ultimate_test_v1.9.json"
    if not sample.exists():
        pytest.skip(f"the shared Tiled samples are not beside the clone ({SAMPLES})")
    out = tmp_path / "tileson.json"
    code = main(["import", str(sample), "-o", str(out)])
    _, err = capsys.readouterr()
    assert code == 1 and out.exists()  # written; the goombas stand in no room, which validate reports
    assert "object 1 'coin' (class 'Coin') on layer 'Object Layer'" in err
    assert "object 13 on layer 'Object Layer': its template 'useless_template_object.tx' is missing" in err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert Counter(e["kind"] for e in data["elements"]) == {"monster": 2, "label": 1}
    assert any(e.get("text") == "Tileson - Demo Map" for e in data["elements"])


# ------------------------------------------------------------------------------------------
# our export: the real Tiled reads it, and importing it gives the dungeon back


@pytest.mark.parametrize("source", sorted(bundled_dungeon_files()), ids=lambda p: p.stem)
@pytest.mark.parametrize("suffix", [".tmj", ".tmx"])
def test_export_then_import_gives_the_same_dungeon(tmp_path, source, suffix):
    dungeon = _load(source)
    target = tmp_path / f"map{suffix}"
    target.write_text(export_tiled(dungeon, suffix), encoding="utf-8")
    assert detect_format(target) == "tiled"
    result = _import(target)
    assert result.notes == []
    assert_equivalent(_canonical(dungeon.to_dict()), _canonical(result.dungeon))


def test_export_layers_classes_and_typed_properties():
    tiled_map = dungeon_to_map(_load(LINE_DUNGEON))
    assert tiled_map["tilewidth"] == 20 and (tiled_map["width"], tiled_map["height"]) == (42, 60)
    layers = {layer["name"]: layer for layer in tiled_map["layers"]}
    assert list(layers) == ["areas", "walls", "doors", "elements", "labels"]
    assert all(o.get("polygon") for o in layers["areas"]["objects"])
    assert {o["type"] for o in layers["areas"]["objects"]} <= {"room", "corridor"}
    assert all(o["type"] == o["class"] for layer in layers.values() for o in layer["objects"])
    boss = next(o for o in layers["elements"]["objects"] if o["type"] == "boss")
    assert {"name": "vp", "type": "int", "value": 6} in boss["properties"] or any(
        p["name"] == "vp" and p["type"] == "int" for p in boss["properties"]
    )
    door = layers["doors"]["objects"][0]
    assert len(door["polyline"]) == 2 and any(
        p["name"] == "locks" and p["type"] == "string" for p in door["properties"]
    )
    label = layers["labels"]["objects"][0]
    assert label["text"]["text"] and any(
        p["name"] == "text_height_mm" and p["type"] == "float" for p in label["properties"]
    )
    ids = [o["id"] for layer in layers.values() for o in layer["objects"]]
    assert sorted(ids) == list(range(1, len(ids) + 1)) and tiled_map["nextobjectid"] == len(ids) + 1
    marker = {p["name"]: p for p in tiled_map["properties"]}
    assert marker["inkcrawl_format_version"] == {"name": "inkcrawl_format_version", "type": "int", "value": 2}
    ET.fromstring(map_to_tmx(tiled_map))  # well-formed XML


def test_export_px_per_mm_and_tile_size():
    dungeon = _load(LINE_DUNGEON)
    tiled_map = dungeon_to_map(dungeon, px_per_mm=10, tile_mm=3)
    assert tiled_map["tilewidth"] == 30 and (tiled_map["width"], tiled_map["height"]) == (70, 99)
    first = tiled_map["layers"][0]["objects"][0]
    assert (first["x"], first["y"]) == (dungeon.areas[0].polygon[0][0] * 10, dungeon.areas[0].polygon[0][1] * 10)
    with pytest.raises(TiledExportError, match="whole number of pixels"):
        dungeon_to_map(dungeon, px_per_mm=3.3, tile_mm=5)


def _classes_in_tmx(path: Path) -> Counter:
    root = ET.parse(path).getroot()
    return Counter(o.get("class") or o.get("type") or "" for o in root.iter("object"))


def _classes_in_map(tiled_map: dict) -> Counter:
    return Counter(o["type"] for layer in tiled_map["layers"] for o in layer["objects"])


@pytest.mark.skipif(TILED is None, reason="Tiled is not installed (Debian package 'tiled'; .ci/run installs it)")
@pytest.mark.parametrize("source", [LINE_DUNGEON, GRID_DUNGEON], ids=["line", "grid"])
@pytest.mark.parametrize("suffix", [".tmj", ".tmx"])
def test_the_real_tiled_reads_our_export(tmp_path, source, suffix):
    dungeon = _load(source)
    ours = tmp_path / f"ours{suffix}"
    ours.write_text(export_tiled(dungeon, suffix), encoding="utf-8")
    converted = tmp_path / "converted-by-tiled.tmx"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run(
        [TILED, "--export-map", str(ours), str(converted)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 0 and converted.exists(), run.stdout + run.stderr
    # every object survived with its class, counted per class
    assert _classes_in_tmx(converted) == _classes_in_map(dungeon_to_map(dungeon))
    # and importing what Tiled wrote gives our dungeon back
    result = _import(converted)
    assert result.notes == []
    assert_equivalent(_canonical(dungeon.to_dict()), _canonical(result.dungeon))


def test_cli_export_tiled(tmp_path, capsys):
    out = tmp_path / "vault.tmx"
    assert main(["export", "tiled", str(LINE_DUNGEON), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out and ET.parse(out).getroot().tag == "map"
    back = tmp_path / "back.json"
    assert main(["import", str(out), "-o", str(back)]) == 0
    capsys.readouterr()
    assert_equivalent(_canonical(_load(LINE_DUNGEON).to_dict()), _canonical(json.loads(back.read_text())))
    # usage errors
    assert main(["export", "tiled", str(LINE_DUNGEON), "-o", str(tmp_path / "x.png")]) == 2
    assert main(["export", "tiled", str(PACKS / "lantern-depths"), "-o", str(tmp_path / "x.tmj")]) == 2
    assert main(["export", "tiled", str(LINE_DUNGEON), "-o", str(tmp_path / "x.tmj"), "--px-per-mm", "3.3"]) == 2
    assert main(["export", "tiled", str(LINE_DUNGEON), "-o", str(tmp_path / "nope" / "x.tmj")]) == 2
    assert "must end in .tmj, .json or .tmx" in capsys.readouterr().err


def test_cli_export_tiled_refuses_invalid_dungeons_unless_forced_and_writes_atomically(tmp_path, capsys, monkeypatch):
    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    data["elements"] = [e for e in data["elements"] if e["kind"] != "start"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out.tmj"
    out.write_text("old", encoding="utf-8")
    assert main(["export", "tiled", str(broken), "-o", str(out)]) == 1
    assert "--force" in capsys.readouterr().err and out.read_text() == "old"

    def explode(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("inkcrawl.jsonio.write_text_atomic", explode)
    assert main(["export", "tiled", str(broken), "-o", str(out), "--force"]) == 2
    assert "No space left" in capsys.readouterr().err and out.read_text() == "old"
    monkeypatch.undo()
    assert main(["export", "tiled", str(broken), "-o", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["type"] == "map"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json", "out.tmj"]


# ------------------------------------------------------------------------------------------
# inputs of our own: eras, ids, offsets, the edge rule, templates, tilesets, mapping

OLD_TMX = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE map SYSTEM "http://mapeditor.org/dtd/1.0/map.dtd">
<map version="1.0" orientation="orthogonal" width="40" height="20" tilewidth="32" tileheight="32">
 <properties>
  <property name="title" value="The Old Keep"/>
 </properties>
 <objectgroup name="Rooms">
  <object name="Hall" type="room" x="64" y="64" width="256" height="192"/>
  <object type="corridor" x="320" y="128" width="128" height="64"/>
  <object name="Vault" type="Room" x="448" y="64" width="192" height="192"/>
 </objectgroup>
 <objectgroup name="Things">
  <object type="start" x="64" y="160"/>
  <object type="key" x="160" y="128" width="0" height="0">
   <properties>
    <property name="colour" value="Red"/>
   </properties>
  </object>
  <object type="door" x="448" y="128">
   <properties>
    <property name="locks" value="red"/>
   </properties>
   <polyline points="0,0 0,64"/>
  </object>
  <object type="boss" x="544" y="160">
   <properties>
    <property name="vp" value="7"/>
   </properties>
  </object>
 </objectgroup>
</map>
"""


def _old_json() -> dict:
    return {
        "version": 1,
        "orientation": "orthogonal",
        "width": 40,
        "height": 20,
        "tilewidth": 32,
        "tileheight": 32,
        "properties": {"title": "The Old Keep"},
        "propertytypes": {"title": "string"},
        "tilesets": [],
        "nextobjectid": 8,
        "layers": [
            {
                "type": "objectgroup",
                "name": "Rooms",
                "x": 0,
                "y": 0,
                "opacity": 1,
                "visible": True,
                "objects": [
                    {
                        "id": 1,
                        "name": "Hall",
                        "type": "room",
                        "x": 64,
                        "y": 64,
                        "width": 256,
                        "height": 192,
                        "rotation": 0,
                        "visible": True,
                    },
                    {
                        "id": 2,
                        "name": "",
                        "type": "corridor",
                        "x": 320,
                        "y": 128,
                        "width": 128,
                        "height": 64,
                        "rotation": 0,
                        "visible": True,
                    },
                    {
                        "id": 3,
                        "name": "Vault",
                        "type": "Room",
                        "x": 448,
                        "y": 64,
                        "width": 192,
                        "height": 192,
                        "rotation": 0,
                        "visible": True,
                    },
                ],
            },
            {
                "type": "objectgroup",
                "name": "Things",
                "objects": [
                    {"id": 4, "name": "", "type": "start", "x": 64, "y": 160, "width": 0, "height": 0, "rotation": 0},
                    {
                        "id": 5,
                        "name": "",
                        "type": "key",
                        "x": 160,
                        "y": 128,
                        "width": 0,
                        "height": 0,
                        "rotation": 0,
                        "properties": {"colour": "Red"},
                        "propertytypes": {"colour": "string"},
                    },
                    {
                        "id": 6,
                        "name": "",
                        "type": "door",
                        "x": 448,
                        "y": 128,
                        "width": 0,
                        "height": 0,
                        "rotation": 0,
                        "polyline": [{"x": 0, "y": 0}, {"x": 0, "y": 64}],
                        "properties": {"locks": "red"},
                        "propertytypes": {"locks": "string"},
                    },
                    {
                        "id": 7,
                        "name": "",
                        "type": "boss",
                        "x": 544,
                        "y": 160,
                        "width": 0,
                        "height": 0,
                        "rotation": 0,
                        "properties": {"vp": 7},
                        "propertytypes": {"vp": "int"},
                    },
                ],
            },
        ],
    }


@pytest.mark.parametrize("era", ["tmx-1.0", "json-1.0"])
def test_old_era_maps(tmp_path, era):
    if era == "tmx-1.0":
        path = tmp_path / "old.tmx"
        path.write_text(OLD_TMX, encoding="utf-8")
    else:
        path = _write_map(tmp_path, _old_json(), "old.json")
    assert detect_format(path) == "tiled"
    result = _import(path)
    data = result.dungeon
    assert data["sheet"]["title"] == "The Old Keep"
    assert [(a["kind"], a.get("name")) for a in data["areas"]] == [
        ("room", "Hall"),
        ("corridor", None),
        ("room", "Vault"),
    ]
    kinds = {e["kind"]: e for e in data["elements"]}
    assert set(kinds) == {"start", "key", "door", "boss"}
    assert kinds["key"]["colour"] == "red" and kinds["door"]["locks"] == ["red"] and kinds["boss"]["vp"] == 7
    # 32 px tiles, 5 mm per tile (the map fits): the hall is 8 x 6 tiles = 40 x 30 mm
    hall = data["areas"][0]["polygon"]
    assert (hall[1][0] - hall[0][0], hall[2][1] - hall[1][1]) == (40, 30)
    sources = [n.source for n in result.notes]
    if era == "tmx-1.0":  # no object ids before Tiled 0.11: numbered, reported once
        assert sources == ["the whole map"] and "7 object(s) had no usable id" in result.notes[0].message
    else:
        assert result.notes == []
    main_code = main(["import", str(path), "-o", str(tmp_path / "old-dungeon.json")])
    assert main_code == 0  # valid: the start is on the outer wall, the key before the locked door


def test_version_as_number_or_string():
    assert version_number(1) == 1.0
    assert version_number(1.2) == pytest.approx(1.002)
    assert version_number("1.10") > version_number("1.9") > version_number(1.2)
    assert version_number(None) == 0.0 and version_number("junk") == 0.0


def test_a_future_format_version_is_noted(tmp_path):
    result = _import(_write_map(tmp_path, _map([_layer("L", [_rect(1, "room", 0, 0, 64, 64)])], version="2.0")))
    assert [n.message for n in result.notes] == [
        "format version '2.0' is newer than this importer knows (1.x); read as a 1.x map"
    ]


def test_type_and_class_and_both_property_forms(tmp_path):
    objects = [
        _rect(1, "", 0, 0, 160, 160, **{"class": "room"}),  # 1.9: class
        _rect(2, "monster", 40, 40, 16, 16),  # other eras: type
        {**_rect(3, "", 100, 100, 16, 16), "class": "key", "properties": _props(color="blue")},
        {**_rect(4, "orb", 60, 100, 16, 16), "properties": {"colour": "pink"}},  # old property map
        {**_rect(5, "portal_entry", 120, 40, 16, 16), "properties": _props(channel=7)},
    ]
    result = _import(_write_map(tmp_path, _map([_layer("Stuff", objects)])))
    elements = {e["kind"]: e for e in result.dungeon["elements"]}
    assert elements["key"]["colour"] == "blue" and elements["orb"]["colour"] == "pink"
    assert elements["portal_entry"]["channel"] == "7"
    assert result.dungeon["sheet"]["components"] == ["keys", "orbs"] and "pink" in result.dungeon["sheet"]["orb_tokens"]
    assert result.notes == []


def test_duplicate_ids_are_reported_and_renumbered(tmp_path):
    layers = [
        _layer("A", [_rect(5, "room", 0, 0, 160, 160, name="Hall"), _rect(6, "monster", 20, 20, 16, 16)]),
        _layer("B", [_rect(5, "monster", 60, 60, 16, 16, name="Orc"), _rect(6, "plant", 90, 90, 16, 16)]),
    ]
    result = _import(_write_map(tmp_path, _map(layers, nextobjectid=40)))
    duplicates = [f"{n.source}: {n.message}" for n in result.notes if "duplicate id" in n.message]
    # both objects named: the one renumbered (as the source) and the one that keeps the id
    assert duplicates == [
        "object 5 'Orc' (class 'monster') on layer 'B': duplicate id 5, also the id of object 5 'Hall' "
        "(class 'room') on layer 'A'; renumbered 40",
        "object 6 (class 'plant') on layer 'B': duplicate id 6, also the id of object 6 (class 'monster') "
        "on layer 'A'; renumbered 41",
    ]
    ids = [e["id"] for e in result.dungeon["elements"]]
    assert ids == ["monster6", "monster40", "plant41"] and len(set(ids)) == 3


def test_offsets_add_up_through_groups_and_rotation_turns_about_the_corner(tmp_path):
    inner = _layer("Inner", [_rect(2, "monster", 10, 20, 16, 16)], offsetx=4, offsety=8)
    group = {
        "type": "group",
        "name": "Outer",
        "offsetx": 100,
        "offsety": 200,
        "layers": [{"type": "group", "name": "Middle", "offsetx": 10, "offsety": 20, "layers": [inner]}],
    }
    turned = _rect(3, "plant", 0, 0, 32, 16, rotation=90)  # centre (16, 8) turned 90 clockwise: (-8, 16)
    polygon = {
        "id": 4,
        "type": "room",
        "x": 50,
        "y": 50,
        "rotation": 90,
        "polygon": [{"x": 0, "y": 0}, {"x": 10, "y": 0}, {"x": 10, "y": 20}, {"x": 0, "y": 20}],
    }
    result = _import(_write_map(tmp_path, _map([group, _layer("Top", [turned, polygon], offsetx=200)])), cell_mm=1.0)
    data = result.dungeon
    room = data["areas"][0]["polygon"]
    # the room, turned 90 degrees about (250, 50): x from 230 to 250, y from 50 to 60 (px); 16 px tiles, 1 mm each
    width = max(p[0] for p in room) - min(p[0] for p in room)
    height = max(p[1] for p in room) - min(p[1] for p in room)
    assert (width, height) == pytest.approx((20 / 16, 10 / 16), abs=0.002)
    origin_x = min(p[0] for p in room) - 230 / 16
    origin_y = min(p[1] for p in room) - 50 / 16
    at = {e["kind"]: e["at"] for e in data["elements"]}
    monster_px = (100 + 10 + 4 + 10 + 8, 200 + 20 + 8 + 20 + 8)  # offsets, position, half the size
    assert at["monster"] == pytest.approx([origin_x + monster_px[0] / 16, origin_y + monster_px[1] / 16], abs=0.002)
    assert at["plant"] == pytest.approx([origin_x + (200 - 8) / 16, origin_y + 16 / 16], abs=0.002)
    plant = next(e for e in data["elements"] if e["kind"] == "plant")
    assert plant["rotation_deg"] == 90


def test_the_map_edge_rule(tmp_path):
    objects = [
        _rect(1, "room", 0, 0, 320, 240),
        _rect(2, "monster", 624, 100, 16, 16),  # inside, touching the right edge (640 px)
        _rect(3, "monster", 700, 100, 16, 16),  # wholly outside: skipped
        _rect(4, "room", 600, 300, 100, 100),  # crossing the edge: kept whole, noted
        _rect(5, "plant", -16, -16, 16, 16),
    ]  # outside but touching the corner: meets the map, kept
    result = _import(_write_map(tmp_path, _map([_layer("L", objects)])), cell_mm=1.0)
    assert [e["id"] for e in result.dungeon["elements"]] == ["monster2", "plant5"]
    assert [a["id"] for a in result.dungeon["areas"]] == ["room1", "room4"]
    notes = {n.source: n.message for n in result.notes}
    assert "wholly outside the map" in notes["object 3 (class 'monster') on layer 'L'"]
    assert "crosses the map edge" in notes["object 4 (class 'room') on layer 'L'"]
    assert "crosses the map edge" in notes["object 5 (class 'plant') on layer 'L'"]
    assert len(result.notes) == 3


def test_templates_and_external_tilesets_present_or_missing(tmp_path):
    (tmp_path / "goblin.tx").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<template>\n <object name="Goblin" type="monster" width="16" '
        'height="16"><properties><property name="size_mm" type="float" value="9"/></properties></object>\n'
        "</template>\n",
        encoding="utf-8",
    )
    (tmp_path / "things.tsj").write_text(
        json.dumps({"type": "tileset", "tiles": [{"id": 2, "type": "treasure"}]}), encoding="utf-8"
    )
    objects = [
        _rect(1, "room", 0, 0, 320, 240),
        {"id": 2, "template": "goblin.tx", "x": 40, "y": 40},
        {"id": 3, "template": "lost.tx", "x": 80, "y": 40},
        {
            "id": 4,
            "gid": 3 | 0x80000000,
            "x": 100,
            "y": 100,
            "width": 16,
            "height": 16,
            "properties": _props(variant="Goblet"),
        },  # tile 2 of things.tsj, flipped
        {"id": 5, "gid": 30, "x": 150, "y": 100, "width": 16, "height": 16},
    ]  # a tile of the missing set
    tilesets = [{"firstgid": 1, "source": "things.tsj"}, {"firstgid": 20, "source": "missing.tsx"}]
    result = _import(_write_map(tmp_path, _map([_layer("L", objects)], tilesets=tilesets)))
    elements = {e["kind"]: e for e in result.dungeon["elements"]}
    assert elements["monster"]["name"] == "Goblin" and elements["monster"]["size_mm"] == 9
    assert elements["treasure"]["variant"] == "goblet"
    # the tile object hangs above its bottom-left corner: centre y = 100 - 8 px
    assert elements["treasure"]["at"][1] - elements["monster"]["at"][1] == pytest.approx((92 - 48) / 16 * 5, abs=0.01)
    notes = [f"{n.source}: {n.message}" for n in result.notes]
    assert any(n.startswith("tileset 'missing.tsx': the external tileset file is missing") for n in notes)
    assert any(n.startswith("object 3 on layer 'L': its template 'lost.tx' is missing") for n in notes)
    assert any(n.startswith("object 5 on layer 'L': has no class") for n in notes)
    assert len(notes) == 3


def test_user_mapping_file(tmp_path, capsys):
    objects = [
        _rect(1, "Cave", 0, 0, 320, 240),
        _rect(2, "Goblin", 40, 40, 16, 16),
        _rect(3, "RedKey", 100, 100, 16, 16),
        _rect(4, "Decoration", 150, 150, 16, 16),
        {"id": 5, "type": "Entrance", "x": 0, "y": 120, "point": True},
    ]
    source = _write_map(tmp_path, _map([_layer("L", objects)]))
    mapping = tmp_path / "classes.json"
    mapping.write_text(
        json.dumps(
            {
                "classes": {
                    "cave": "room",
                    "Goblin": "monster",
                    "RedKey": {"kind": "key", "colour": "red"},
                    "Decoration": "ignore",
                }
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.json"
    assert main(["import", str(source), "-o", str(out), "--map", str(mapping)]) == 0
    err = capsys.readouterr().err
    assert "object 4 (class 'Decoration') on layer 'L': ignored by the mapping" in err
    data = json.loads(out.read_text())
    assert Counter(e["kind"] for e in data["elements"]) == {"monster": 1, "key": 1, "start": 1}
    assert next(e for e in data["elements"] if e["kind"] == "key")["colour"] == "red"
    for bad in ({"classes": {"Goblin": "Not A Kind"}}, {"classes": []}, {"rooms": {}}, {"family": "hex"}):
        mapping.write_text(json.dumps(bad), encoding="utf-8")
        assert main(["import", str(source), "-o", str(out), "--map", str(mapping)]) == 2
        assert "inkcrawl import: error" in capsys.readouterr().err


def test_grid_family_import_through_the_mapping(tmp_path):
    objects = [
        {"id": 1, "type": "passage", "x": 16, "y": 0, "polyline": [{"x": 0, "y": 0}, {"x": 0, "y": 16}]},
        {"id": 2, "type": "entryway", "x": 0, "y": 0, "polyline": [{"x": 0, "y": 0}, {"x": 0, "y": 16}]},
        _rect(3, "Loot", 20, 4, 8, 8),
        {**_rect(4, "monster", 4, 20, 8, 8), "properties": _props(letter="a")},
        _rect(5, "dragon", 22, 22, 8, 8),
        _rect(6, "dragon", 24, 24, 4, 4),
        {"id": 7, "type": "passage", "x": 8, "y": 48, "point": True},
    ]  # the outer edge: leads nowhere
    path = _write_map(tmp_path, _map([_layer("L", objects)], width=3, height=3))
    result = IMPORTER.convert(path, ImportOptions(mapping={"family": "grid"}))
    data = result.dungeon
    assert not schema_problems(data, "dungeon", "x")
    assert data["family"] == "grid" and (data["grid"]["columns"], data["grid"]["rows"]) == (3, 3)
    assert data["passages"] == [{"cell": [0, 0], "side": "east"}]
    assert data["entryways"] == [{"id": "e2", "cell": [0, 0], "side": "west"}]
    assert [(f["kind"], f["cell"], f.get("letter")) for f in data["features"]] == [
        ("loot", [1, 0], None),
        ("monster", [0, 1], "A"),
        ("dragon", [1, 1], None),
    ]
    messages = {n.source: n.message for n in result.notes}
    assert "already has dragon" in messages["object 6 (class 'dragon') on layer 'L'"]
    assert "outer edge leads nowhere" in messages["object 7 (class 'passage') on layer 'L'"]


@pytest.mark.parametrize(
    "content, message",
    [
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol2 "&lol;&lol;&lol;&lol;">\n'
            b' <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;">\n]>\n<map orientation="orthogonal">&lol3;</map>',
            "entities",
        ),
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE map [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<map>&xxe;</map>',
            "entities",
        ),
        (b'<?xml version="1.0"?>\n<map orientation="orthogonal" width="2"', "malformed XML"),
        (b'<?xml version="1.0"?>\n<tileset name="t" tilewidth="16" tileheight="16"/>', "tileset"),
        (b'<map tilewidth="0" tileheight="16" width="2" height="2"/>', "tilewidth"),
        (b'<map tilewidth="x" tileheight="16" width="2" height="2"/>', "not a readable TMX map"),
        (b'{"tiledversion": "1.9", "layers": 3}', "no 'layers' list"),
        (b'{"tiledversion": "1.9", "layers": [], "tilewidth": 16, "tileheight": 16, "width": NaN}', "NaN"),
        (b'{"tiledversion": "1.9", "layers": [', "invalid JSON"),
        (b'{"tiledversion": "1.9", "type": "tileset"}', "tileset"),
        (b'["tiledversion", "orientation"]', "object"),
        (
            b'{"tiledversion": "1.9", "tilewidth": 16, "tileheight": 16, "width": 2, "height": 2, "layers": ['
            + b'{"type": "group", "layers": [' * 60
            + b"]}" * 60
            + b"]}",
            "nested",
        ),
        (
            b'<map tilewidth="16" tileheight="16" width="2" height="2">'
            + b"<group>" * 60
            + b"</group>" * 60
            + b"</map>",
            "nested deeper than 50",
        ),
    ],
)
def test_malformed_or_hostile_input_fails_cleanly(tmp_path, content, message):
    path = tmp_path / "bad.tmx"
    path.write_bytes(content)
    with pytest.raises(ImportFailed, match=message):
        IMPORTER.convert(path, ImportOptions())
    assert main(["import", str(path), "-o", str(tmp_path / "out.json"), "--format", "tiled"]) == 2


def test_broken_objects_are_skipped_with_a_note(tmp_path):
    objects = [
        _rect(1, "room", 0, 0, 320, 240),
        _rect(2, "monster", "left", 10, 16, 16),
        {"id": 3, "type": "room", "x": 10, "y": 10, "polygon": [{"x": 0, "y": 0}, {"x": 5, "y": 5}]},
        {
            "id": 4,
            "type": "room",
            "x": 400,
            "y": 10,
            "polygon": [{"x": 0, "y": 0}, {"x": 40, "y": 40}, {"x": 40, "y": 0}, {"x": 0, "y": 40}],
        },
        {"id": 5, "type": "door", "x": 50, "y": 50, "polyline": [{"x": 0, "y": 0}, {"x": 20, "y": 0}]},
        {"id": 6, "type": "key", "x": 50, "y": 50, "point": True},
        {"id": 7, "type": "boss", "x": 80, "y": 80, "point": True},
    ]
    result = _import(_write_map(tmp_path, _map([_layer("L", objects)])))
    notes = {n.source: n.message for n in result.notes}
    assert "not a number" in notes["object 2 on layer 'L'"]
    assert "fewer than 3 distinct points" in notes["object 3 (class 'room') on layer 'L'"]
    assert "repaired" in notes["object 4 (class 'room') on layer 'L'"]
    assert "open doorway" in notes["object 5 (class 'door') on layer 'L'"]
    assert "needs a 'colour' property" in notes["object 6 (class 'key') on layer 'L'"]
    assert "vp 10 assumed" in notes["object 7 (class 'boss') on layer 'L'"]
    assert [a["id"] for a in result.dungeon["areas"]] == ["room1", "room4"]
    assert [e["kind"] for e in result.dungeon["elements"]] == ["boss"]


def test_xml_fallback_without_defusedxml_refuses_any_dtd(monkeypatch):
    from inkcrawl.importers.tiled import files

    with pytest.raises(ImportFailed, match="document type declaration"):
        files._parse_xml_without_dtd(b'<!DOCTYPE m [<!ENTITY a "b">]><map>&a;</map>')
    assert files._parse_xml_without_dtd(b'<map width="3"/>').get("width") == "3"
    with pytest.raises(ImportFailed, match="malformed"):
        files._parse_xml_without_dtd(b"<map")


def test_detect():
    tiled = importers()["tiled"]
    assert tiled.detect(Path("a.tmx"), b'<?xml version="1.0"?>\n<map version="1.10" orientation="orthogonal">')
    assert tiled.detect(Path("a.tsx"), b'\xef\xbb\xbf<?xml version="1.0"?><tileset name="x">')
    assert tiled.detect(Path("a.json"), b'{ "compressionlevel":-1, "height":6, "tiledversion":"1.9.1"')
    assert tiled.detect(Path("a.json"), b'{"version": 1, "orientation": "orthogonal", "layers": [], "tilewidth": 32}')
    assert not tiled.detect(Path("d.json"), LINE_DUNGEON.read_bytes()[:65536])
    assert not tiled.detect(Path("a.json"), b'{"rects": [], "doors": [], "notes": []}')
    assert not tiled.detect(Path("a.svg"), b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg">')


# ------------------------------------------------------------------------------------------
# property: import -> export -> import is stable

_KINDS = sorted(k for k, spec in bundled_rulesets()["line-classic"].kinds.items() if spec.footprint == "disc")
_MEMBERS = {
    "boss": ("vp", "int"),
    "spell": ("variant", "string"),
    "treasure": ("variant", "string"),
    "artifact_stone": ("number", "int"),
    "orb": ("colour", "string"),
    "key": ("colour", "string"),
    "portal_entry": ("channel", "string"),
    "portal_exit": ("channel", "string"),
}


@st.composite
def tiled_maps(draw):
    tile = draw(st.sampled_from([8, 16, 32]))
    objects = []
    next_id = iter(range(1, 10000))
    for column in range(draw(st.integers(1, 4))):
        width, height = draw(st.integers(2, 6)), draw(st.integers(2, 6))
        x, y = column * 7 * tile, draw(st.integers(0, 4)) * tile
        if draw(st.booleans()):
            objects.append(
                _rect(
                    next(next_id),
                    draw(st.sampled_from(["room", "corridor"])),
                    x,
                    y,
                    width * tile,
                    height * tile,
                    rotation=draw(st.sampled_from([0, 0, 90, 30.5])),
                )
            )
        else:
            objects.append(
                {
                    "id": next(next_id),
                    "type": "room",
                    "x": x,
                    "y": y,
                    "polygon": [
                        {"x": 0, "y": 0},
                        {"x": width * tile, "y": 0},
                        {"x": width * tile / 2, "y": height * tile},
                    ],
                }
            )
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(_KINDS))
        obj = _rect(
            next(next_id),
            kind,
            draw(st.floats(0, 30)) * tile,
            draw(st.floats(0, 10)) * tile,
            tile,
            tile,
            rotation=draw(st.sampled_from([0, 45, -90, 270])),
            name=draw(st.sampled_from(["", "Grim"])),
        )
        if draw(st.booleans()):
            obj["ellipse"] = True
        if kind in _MEMBERS:
            member, kind_name = _MEMBERS[kind]
            value = draw(st.integers(1, 9)) if kind_name == "int" else draw(st.sampled_from(["red", "blue", "A"]))
            obj["properties"] = _props(**{member: value})
        objects.append(obj)
    if draw(st.booleans()):
        objects.append(
            {
                "id": next(next_id),
                "type": "door",
                "x": 3 * tile,
                "y": 0,
                "polyline": [{"x": 0, "y": 0}, {"x": 0, "y": tile}],
                "properties": _props(locks="red, blue"),
            }
        )
    if draw(st.booleans()):
        objects.append(
            {
                "id": next(next_id),
                "type": "wall",
                "x": tile,
                "y": tile,
                "polyline": [{"x": 0, "y": 0}, {"x": tile, "y": tile}, {"x": 2 * tile, "y": 0}],
            }
        )
    if draw(st.booleans()):
        objects.append(
            {
                "id": next(next_id),
                "name": "",
                "x": tile,
                "y": 2 * tile,
                "width": 60,
                "height": 12,
                "rotation": draw(st.sampled_from([0, 15])),
                "text": {"text": "Beware", "wrap": True},
            }
        )
    layers = [_layer("L", objects, offsetx=draw(st.sampled_from([0, 7, -3])))]
    return _map(layers, tilewidth=tile, tileheight=tile, width=40, height=30), draw(st.sampled_from([".json", ".tmx"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tiled_maps())
def test_import_export_import_is_stable(tmp_path, generated):
    tiled_map, suffix = generated
    source = tmp_path / f"gen{suffix}"
    source.write_text(map_to_tmx(tiled_map) if suffix == ".tmx" else json.dumps(tiled_map), encoding="utf-8")
    first = IMPORTER.convert(source, ImportOptions()).dungeon
    assert not schema_problems(first, "dungeon", "first")
    exported = tmp_path / "exported.tmj"
    exported.write_text(export_tiled(dungeon_from_dict(first), ".tmj"), encoding="utf-8")
    second = IMPORTER.convert(exported, ImportOptions())
    assert second.notes == []
    assert_equivalent(_canonical(first), _canonical(second.dungeon))
    exported.write_text(export_tiled(dungeon_from_dict(second.dungeon), ".tmx"), encoding="utf-8")
    third = IMPORTER.convert(exported, ImportOptions()).dungeon
    assert dungeon_from_dict(third).to_dict() == dungeon_from_dict(second.dungeon).to_dict()
