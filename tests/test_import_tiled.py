"""The Tiled importer on the files real users have (issue 18): maps over 64 KiB, paths outside
the map's folder, Windows and Unicode paths, non-orthogonal maps, and the warnings that name
what was dropped. The expectations are worked out by hand from the inputs built here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import PACKS
from test_tiled import _canonical, _layer, _map, _props, _rect, assert_equivalent

from inkcrawl.cli import main
from inkcrawl.importers import ImportOptions, detect_format
from inkcrawl.importers.tiled import IMPORTER
from inkcrawl.model import dungeon_from_dict
from inkcrawl.tiled_export import dungeon_to_map, export_tiled

TILED = shutil.which("tiled")
BIG_DUNGEON = PACKS / "ember-halls" / "dungeons" / "ash-wyrm-forge.json"


def _dungeon(path: Path):
    return dungeon_from_dict(json.loads(path.read_text(encoding="utf-8")))


def _convert(path: Path, **options):
    return IMPORTER.convert(path, ImportOptions(**options))


def _messages(result) -> list[str]:
    return [f"{n.source}: {n.message}" for n in result.notes]


# ------------------------------------------------------------------------------------------
# 1. a Tiled JSON map over 64 KiB, keys in alphabetical order as Tiled writes them


def _alphabetical_big_map(tmp_path: Path) -> Path:
    """Our export of a bundled dungeon, written the way Tiled writes JSON (keys sorted), with a
    tile layer and an embedded tileset large enough that neither the first nor the last 64 KiB
    hold 'orientation' or 'tiledversion' (they sort between 'layers' and 'tilesets')."""
    tiled_map = dungeon_to_map(_dungeon(BIG_DUNGEON))
    tiled_map["tiledversion"] = "1.10.2"
    width, height = tiled_map["width"], tiled_map["height"]
    for name in ("decor", "walls", "floor"):
        tiles_layer = {
            "type": "tilelayer",
            "name": name,
            "width": width,
            "height": height,
            "data": [1] * (width * height),
        }
        tiled_map["layers"].insert(0, tiles_layer)
    tiles = [{"id": n, "type": "decor", "probability": 0.5} for n in range(3000)]
    tiled_map["tilesets"] = [{"firstgid": 1, "name": "decor", "tilecount": 3000, "tiles": tiles}]
    target = tmp_path / "forge.json"
    target.write_text(json.dumps(tiled_map, sort_keys=True, indent=1), encoding="utf-8")
    text = target.read_bytes()
    assert len(text) > 3 * 65536
    for key in (b'"orientation"', b'"tiledversion"'):
        assert key not in text[:65536] and key not in text[-65536:]
    return target


def test_a_big_alphabetical_tiled_json_is_recognised_and_imports_without_format(tmp_path, capsys):
    path = _alphabetical_big_map(tmp_path)
    assert detect_format(path) == "tiled"
    out = tmp_path / "back.json"
    code = main(["import", str(path), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "wrote" in captured.out and "from tiled" in captured.out
    # the only warnings: the three tile layers (the tileset's classes go to no tile object)
    assert captured.err.count("warning IMPORT") == 3
    assert all(f"tile layer {name!r}" in captured.err for name in ("floor", "walls", "decor"))
    back = json.loads(out.read_text(encoding="utf-8"))
    assert_equivalent(_canonical(_dungeon(BIG_DUNGEON).to_dict()), _canonical(back))


def test_a_big_json_of_another_kind_is_not_taken_for_tiled(tmp_path):
    # 'layers' early and 'tilewidth' late, but neither 'orientation' nor 'tiledversion' anywhere
    other = {"layers": [{"name": f"l{n}", "data": list(range(50))} for n in range(400)], "tilewidth": 3}
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other), encoding="utf-8")
    assert path.stat().st_size > 65536
    assert detect_format(path) is None


@pytest.mark.skipif(TILED is None, reason="Tiled is not installed (Debian package 'tiled'; .ci/run installs it)")
def test_the_real_tileds_json_of_a_big_dungeon_imports_back_without_format(tmp_path, capsys):
    ours = tmp_path / "ours.tmx"
    ours.write_text(export_tiled(_dungeon(BIG_DUNGEON), ".tmx"), encoding="utf-8")
    converted = tmp_path / "by-tiled.tmj"
    run = subprocess.run(
        [TILED, "--export-map", str(ours), str(converted)],
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
        cwd=tmp_path,
    )
    assert run.returncode == 0 and converted.exists(), run.stdout + run.stderr
    assert converted.stat().st_size > 65536 and b'"orientation"' not in converted.read_bytes()[:65536]
    assert detect_format(converted) == "tiled"
    assert main(["import", str(converted), "-o", str(tmp_path / "back.json")]) == 0, capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# 2. a map reads only inside its own folder, unless --allow-folder names more (issue 17)

_SPY = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<template>\n <object name="Spy" type="monster" width="16" height="16"/>\n'
    "</template>\n"
)


def _outside_setup(tmp_path: Path) -> tuple[Path, Path]:
    """A map in maps/ whose tilesets and templates lead to secret/ beside it: by '..', by an
    absolute path, and through a symbolic link inside maps/; and one tileset inside maps/sub."""
    secret, maps = tmp_path / "secret", tmp_path / "maps"
    (maps / "sub").mkdir(parents=True)
    secret.mkdir()
    (secret / "spy.tx").write_text(_SPY, encoding="utf-8")
    (secret / "things.tsj").write_text(json.dumps({"type": "tileset", "tiles": [{"id": 2, "type": "treasure"}]}))
    (maps / "sub" / "inside.tsj").write_text(json.dumps({"type": "tileset", "tiles": [{"id": 0, "type": "plant"}]}))
    (maps / "link.tx").symlink_to(secret / "spy.tx")
    objects = [
        _rect(1, "room", 0, 0, 320, 240),
        {"id": 2, "template": "../secret/spy.tx", "x": 40, "y": 40},
        {"id": 3, "template": str(secret / "spy.tx"), "x": 80, "y": 40},
        {"id": 4, "gid": 3, "x": 100, "y": 100, "width": 16, "height": 16},  # tile 2 of things.tsj
        {"id": 5, "template": "link.tx", "x": 120, "y": 40},
        {"id": 6, "gid": 101, "x": 150, "y": 100, "width": 16, "height": 16},  # tile 0 of sub/inside.tsj
    ]
    tilesets = [
        {"firstgid": 1, "source": "../secret/things.tsj"},
        {"firstgid": 50, "source": "/etc/passwd"},
        {"firstgid": 101, "source": "sub/inside.tsj"},
    ]
    path = maps / "map.json"
    path.write_text(json.dumps(_map([_layer("L", objects)], tilesets=tilesets)), encoding="utf-8")
    return path, secret


def test_tilesets_and_templates_outside_the_maps_folder_are_refused_and_named(tmp_path):
    path, secret = _outside_setup(tmp_path)
    result = _convert(path)
    notes = _messages(result)
    spy = str((secret / "spy.tx").resolve())
    hint = "not read (to read it, allow its folder: inkcrawl import --allow-folder DIR)"
    assert notes == [
        f"tileset '../secret/things.tsj': leads outside the map's folder, to {str(secret / 'things.tsj')!r}; "
        f"{hint}; tile objects using it get no class from it",
        f"tileset '/etc/passwd': is absolute and leads outside the map's folder, to '/etc/passwd'; {hint}; "
        "tile objects using it get no class from it",
        f"object 2 on layer 'L': its template '../secret/spy.tx' leads outside the map's folder, to {spy!r}; "
        f"{hint}; skipped",
        f"object 3 on layer 'L': its template {spy!r} is absolute and leads outside the map's folder, to {spy!r}; "
        f"{hint}; skipped",
        f"object 5 on layer 'L': its template 'link.tx' leads outside the map's folder, to {spy!r}; {hint}; skipped",
        "object 4 on layer 'L': has no class; skipped (map it with --map)",
    ]
    # nothing from outside came into the dungeon; the tileset inside maps/sub was read
    assert [e["kind"] for e in result.dungeon["elements"]] == ["plant"]
    assert "Spy" not in json.dumps(result.dungeon)


def test_an_allowed_folder_is_read_and_nothing_else(tmp_path, capsys):
    path, secret = _outside_setup(tmp_path)
    result = _convert(path, allowed_folders=(secret,))
    kinds = {e["id"]: (e["kind"], e.get("name")) for e in result.dungeon["elements"]}
    assert kinds == {
        "monster2": ("monster", "Spy"),
        "monster3": ("monster", "Spy"),
        "treasure4": ("treasure", None),
        "monster5": ("monster", "Spy"),
        "plant6": ("plant", None),
    }
    # /etc is still refused; the treasure has no variant (the doc's default, reported)
    assert [n.source for n in result.notes] == ["tileset '/etc/passwd'", "object 4 (class 'treasure') on layer 'L'"]
    assert "variant" in result.notes[1].message
    # the same through the command line; a folder that does not exist is a usage error
    out = tmp_path / "out.json"
    main(["import", str(path), "-o", str(out), "--allow-folder", str(secret)])
    err = capsys.readouterr().err
    assert err.count("warning IMPORT") == 2 and "tileset '/etc/passwd'" in err and out.exists()
    assert main(["import", str(path), "-o", str(out), "--allow-folder", str(tmp_path / "nope")]) == 2
    assert "--allow-folder" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# 3. paths: Windows separators, drive paths, names in either Unicode form

CAFE_NFC = "Caf\u00e9.tx"  # é as one character
CAFE_NFD = "Cafe\u0301.tx"  # e + combining acute accent
CREME_NFC = "Cr\u00e8me.tsj"
CREME_NFD = "Cre\u0300me.tsj"


def _tileset(cls: str) -> str:
    return json.dumps({"type": "tileset", "tiles": [{"id": 0, "type": cls}]})


def _template(name: str, cls: str) -> str:
    return json.dumps({"type": "template", "object": {"name": name, "type": cls, "width": 16, "height": 16}})


def test_windows_separators_drive_paths_and_unicode_forms(tmp_path):
    maps, shared = tmp_path / "maps", tmp_path / "shared"
    (maps / "tiles").mkdir(parents=True)
    shared.mkdir()
    (maps / "tiles" / "crates.tsj").write_text(_tileset("treasure"), encoding="utf-8")
    (maps / "tiles" / "plants.tsj").write_text(_tileset("plant"), encoding="utf-8")
    (maps / "tiles" / "gob.tx").write_text(_template("Goblin", "monster"), encoding="utf-8")
    (maps / CAFE_NFD).write_text(_template("Waiter", "monster"), encoding="utf-8")  # on disk decomposed
    (maps / CREME_NFC).write_text(_tileset("prisoner"), encoding="utf-8")  # on disk composed
    (shared / "exits.tsj").write_text(_tileset("exit"), encoding="utf-8")
    tilesets = [
        {"firstgid": 1, "source": "tiles\\crates.tsj"},
        {"firstgid": 10, "source": "..\\maps\\tiles\\plants.tsj"},  # out and back in: inside
        {"firstgid": 20, "source": "C:/Users/x/a.tsx"},
        {"firstgid": 30, "source": "C:\\Users\\x\\b.tsx"},
        {"firstgid": 40, "source": CREME_NFD},  # the map names it decomposed
        {"firstgid": 50, "source": "..\\shared\\exits.tsj"},
    ]
    tile = {"width": 16, "height": 16}
    objects = [
        _rect(1, "room", 0, 0, 320, 240),
        {"id": 2, "gid": 1, "x": 20, "y": 40, **tile, "properties": _props(variant="chest")},
        {"id": 3, "gid": 10, "x": 40, "y": 40, **tile},
        {"id": 4, "gid": 20, "x": 60, "y": 40, **tile},
        {"id": 5, "template": "tiles\\gob.tx", "x": 80, "y": 40},
        {"id": 6, "template": CAFE_NFC, "x": 100, "y": 40},  # the map names it composed
        {"id": 7, "gid": 40, "x": 120, "y": 40, **tile},
        {"id": 8, "gid": 50, "x": 140, "y": 40, **tile},
        {"id": 9, "template": "D:tiles\\gob.tx", "x": 160, "y": 40},
        {"id": 10, "template": "\\\\server\\share\\gob.tx", "x": 180, "y": 40},
    ]
    path = maps / "map.json"
    path.write_text(json.dumps(_map([_layer("L", objects)], tilesets=tilesets)), encoding="utf-8")
    advice = "not read: save the map with its tilesets and templates referenced relative to it"
    drive = "a place on the computer the map was made on; " + advice
    for allowed in ((), (shared,)):
        result = _convert(path, allowed_folders=allowed)
        kinds = {e["id"]: (e["kind"], e.get("name")) for e in result.dungeon["elements"]}
        expected = {
            "treasure2": ("treasure", None),
            "plant3": ("plant", None),
            "monster5": ("monster", "Goblin"),
            "monster6": ("monster", "Waiter"),
            "prisoner7": ("prisoner", None),
        }
        if allowed:
            expected["exit8"] = ("exit", None)
        assert kinds == expected
        notes = _messages(result)
        no_class = "tile objects using it get no class from it"
        assert notes[:2] == [
            f"tileset 'C:/Users/x/a.tsx': is a Windows drive path (C:), {drive}; {no_class}",
            f"tileset 'C:\\\\Users\\\\x\\\\b.tsx': is a Windows drive path (C:), {drive}; {no_class}",
        ]
        outside = [] if allowed else [notes[2]]
        if not allowed:
            assert notes[2].startswith("tileset '..\\\\shared\\\\exits.tsj': leads outside the map's folder, to ")
        assert notes[2 + len(outside) :] == [
            f"object 9 on layer 'L': its template 'D:tiles\\\\gob.tx' is a Windows drive path (D:), {drive}; skipped",
            "object 10 on layer 'L': its template '\\\\\\\\server\\\\share\\\\gob.tx' is a Windows network path, a "
            f"place on the network the map was made on; {advice}; skipped",
            "object 4 on layer 'L': has no class; skipped (map it with --map)",
        ] + ([] if allowed else ["object 8 on layer 'L': has no class; skipped (map it with --map)"])


def test_a_folder_name_in_the_other_unicode_form_is_found_and_a_missing_file_stays_missing(tmp_path):
    from inkcrawl.importers.tiled.paths import existing_variant

    folder = tmp_path / "Re\u0301gions"  # decomposed on disk
    folder.mkdir()
    (folder / "Forêt.tsj").write_text(_tileset("plant"), encoding="utf-8")
    composed = tmp_path / "R\u00e9gions" / "Fore\u0302t.tsj"  # the folder composed, the file decomposed
    assert not composed.exists()
    assert existing_variant(composed) == folder / "Forêt.tsj"
    missing = tmp_path / "R\u00e9gions" / "nowhere.tsj"
    assert existing_variant(missing) == missing


# ------------------------------------------------------------------------------------------
# 4. isometric maps converted on their tile grid; staggered and hexagonal refused


def _iso_map(**extra) -> dict:
    # 64 x 32 px diamonds: Tiled keeps isometric objects on the floor, 32 px (tileheight) a tile
    # on both axes. The room covers tiles (1, 2) to (5, 6): 4 x 4 tiles, as Tiled draws it.
    objects = [
        _rect(1, "room", 32, 64, 128, 128),
        _rect(2, "monster", 96, 128, 0, 0, point=True),  # tile (3, 4): 2 tiles right and down of the corner
        {"id": 3, "type": "plant", "gid": 1, "x": 64, "y": 160, "width": 64, "height": 64},  # at tile (2, 5)
        {"id": 4, "type": "", "x": 128, "y": 96, "width": 200, "height": 40, "text": {"text": "Hall"}},  # (4, 3)
    ]
    data = _map([_layer("L", objects)], orientation="isometric", width=10, height=10, tilewidth=64, tileheight=32)
    data.update(extra)
    return data


def test_an_isometric_map_keeps_its_rooms_square(tmp_path):
    path = tmp_path / "iso.json"
    path.write_text(json.dumps(_iso_map()), encoding="utf-8")
    result = _convert(path, cell_mm=5)
    (room,) = result.dungeon["areas"]
    xs, ys = [p[0] for p in room["polygon"]], [p[1] for p in room["polygon"]]
    assert (max(xs) - min(xs), max(ys) - min(ys)) == pytest.approx((20, 20))  # 4 x 4 tiles of 5 mm
    corner = (min(xs), min(ys))  # tile (1, 2)
    at = {e["kind"]: e["at"] for e in result.dungeon["elements"]}
    expected = {"monster": (2, 2), "plant": (1, 3), "label": (3, 1)}  # in tiles from the room's corner
    for kind, (dx, dy) in expected.items():
        assert (at[kind][0] - corner[0], at[kind][1] - corner[1]) == pytest.approx((dx * 5, dy * 5)), kind
    assert [n.source for n in result.notes] == ["the map"]
    assert result.notes[0].message.startswith("isometric: read on its tile grid, each diamond tile a square cell")


@pytest.mark.parametrize("orientation", ["staggered", "hexagonal"])
def test_staggered_and_hexagonal_maps_are_refused_with_what_to_do(tmp_path, capsys, orientation):
    path = tmp_path / "offset.tmj"
    extra = {"staggeraxis": "y", "staggerindex": "odd"} | ({"hexsidelength": 16} if orientation == "hexagonal" else {})
    path.write_text(json.dumps(_iso_map(orientation=orientation, **extra)), encoding="utf-8")
    assert main(["import", str(path), "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert f"a {orientation} map: its rows or columns of tiles are offset" in err
    assert "imports orthogonal and isometric maps only" in err and "Orientation to Orthogonal" in err
    assert not (tmp_path / "out.json").exists()


# ------------------------------------------------------------------------------------------
# 5. warnings that name what they are about, once


def test_an_object_skipped_for_its_class_gets_no_edge_warning(tmp_path):
    # map 40 x 30 tiles of 16 px: 640 x 480 px
    objects = [
        _rect(1, "room", 0, 0, 320, 240),
        _rect(2, "", 630, 100, 32, 32),  # crosses the right edge, no class
        _rect(3, "Barrel", 630, 140, 32, 32),  # crosses the right edge, a class nobody maps
        _rect(4, "plant", 630, 180, 32, 32),  # crosses the right edge, imported
        _rect(5, "", 700, 100, 16, 16),  # wholly outside, no class
    ]
    path = tmp_path / "edge.json"
    path.write_text(json.dumps(_map([_layer("L", objects)])), encoding="utf-8")
    assert _messages(_convert(path)) == [
        "object 4 (class 'plant') on layer 'L': crosses the map edge; kept whole",
        "object 5 on layer 'L': lies wholly outside the map (0..640 x 0..480 px); skipped",
        "object 2 on layer 'L': has no class; skipped (map it with --map)",
        "object 3 (class 'Barrel') on layer 'L': has a class the mapping does not know; skipped (map it with --map)",
    ]


def _door_map(tmp_path: Path, locks: str, **options):
    objects = [
        _rect(1, "room", 0, 0, 160, 160),
        _rect(2, "room", 160, 0, 160, 160),
        {**_rect(3, "door", 160, 40, 0, 0), "polyline": [{"x": 0, "y": 0}, {"x": 0, "y": 32}]},
    ]
    objects[2]["properties"] = _props(locks=locks)
    path = tmp_path / "door.json"
    path.write_text(json.dumps(_map([_layer("L", objects)])), encoding="utf-8")
    result = _convert(path, **options)
    doors = [e for e in result.dungeon["elements"] if e["kind"] == "door"]
    return doors, _messages(result)


DOOR = "object 3 (class 'door') on layer 'L'"
COLOURS = "of ruleset line-classic (red, green, blue, yellow or skeleton)"


def test_a_doors_unknown_lock_is_named_and_dropped_and_the_valid_ones_kept(tmp_path):
    doors, notes = _door_map(tmp_path, "red, blue, purple, green, yellow")
    assert doors[0]["locks"] == ["red", "blue", "green", "yellow"]
    assert notes == [f"{DOOR}: lock 'purple' is not a key colour {COLOURS}; left out"]


def test_a_doors_locks_beyond_four_and_repeats_are_named(tmp_path):
    doors, notes = _door_map(tmp_path, "Red; skeleton, red, blue, green, y@llow, yellow")
    assert doors[0]["locks"] == ["red", "skeleton", "blue", "green"]
    assert notes == [
        f"{DOOR}: lock 'y@llow' is not a key colour {COLOURS}; left out",
        f"{DOOR}: 'red': a colour locks a door once; repeat left out",
        f"{DOOR}: 5 locks; a door holds at most 4: 'yellow' left out",
    ]


def test_a_door_with_no_known_lock_is_skipped_naming_them_and_other_rulesets_keep_their_names(tmp_path):
    doors, notes = _door_map(tmp_path, "purple, teal")
    assert doors == []
    assert notes == [f"{DOOR}: its locks 'purple', 'teal' are not key colours {COLOURS}; skipped"]
    doors, notes = _door_map(tmp_path, "purple, teal", ruleset="my-ruleset")  # not bundled: validate checks it
    assert doors[0]["locks"] == ["purple", "teal"] and notes == []


# ------------------------------------------------------------------------------------------
# 8. a wrong --map file is blamed on itself, naming the member and the nearest valid value


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        (
            {"classes": {"Goblin": "Monster"}},
            "classes/Goblin: \"Monster\" is not an element kind (did you mean 'monster'?)",
        ),
        ({"classes": {"Goblin": {"kind": 5}}}, "classes/Goblin: 5 is not an element kind;"),
        ({"classes": {}, "family": "lin"}, "'family' is 'lin' (did you mean 'line'?): use 'line' or 'grid'"),
        ({"clases": {}}, "the mapping has unknown members 'clases' (did you mean 'classes'?)"),
        ([], "the mapping must be a JSON object"),
    ],
    ids=["kind", "not-a-name", "family", "member", "list"],
)
def test_a_wrong_mapping_file_is_named_not_the_map(tmp_path, capsys, mapping, message):
    path = tmp_path / "level.json"
    path.write_text(json.dumps(_map([_layer("L", [_rect(1, "room", 0, 0, 320, 240)])])), encoding="utf-8")
    classes = tmp_path / "classes.json"
    classes.write_text(json.dumps(mapping), encoding="utf-8")
    assert main(["import", str(path), "-o", str(tmp_path / "out.json"), "--map", str(classes)]) == 2
    err = capsys.readouterr().err
    assert f"error: {classes}: " in err and message in err, err
    assert str(path) not in err


def test_the_import_summary_says_what_is_missing_to_play(tmp_path, capsys):
    room, start = _rect(1, "room", 0, 0, 320, 240), _rect(2, "start", 0, 100, 0, 0, point=True)
    monster = _rect(3, "monster", 100, 100, 16, 16)
    lines = {}
    for name, objects in (("bare", [room, start]), ("monster", [room, start, monster])):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(_map([_layer("L", objects)])), encoding="utf-8")
        main(["import", str(path), "-o", str(tmp_path / f"{name}-out.json")])
        out = capsys.readouterr().out
        lines[name] = [line.split(":")[1].strip() for line in out.splitlines() if line.startswith("to play it:")]
    # line-classic scores monsters, treasure...; a Tiled map names no end trigger
    assert lines["bare"] == ["nothing on it scores", "no end trigger"]
    assert lines["monster"] == ["no end trigger"]


def test_a_misspelled_class_or_format_gets_the_nearest_valid_name(tmp_path, capsys):
    objects = [_rect(1, "room", 0, 0, 320, 240), _rect(2, "Monstr", 40, 40, 16, 16), _rect(3, "Barrel", 80, 40, 16, 16)]
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(_map([_layer("L", objects)])), encoding="utf-8")
    assert _messages(_convert(path)) == [
        "object 2 (class 'Monstr') on layer 'L': has a class the mapping does not know (did you mean 'monster'?); "
        "skipped (map it with --map)",
        "object 3 (class 'Barrel') on layer 'L': has a class the mapping does not know; skipped (map it with --map)",
    ]
    assert main(["import", str(path), "-o", str(tmp_path / "out.json"), "--format", "tild"]) == 2
    assert "unknown --format 'tild' (did you mean 'tiled'?); choose from" in capsys.readouterr().err
