"""File formats: schemas against the meta-schema, migration, version refusal, byte-stable saving."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest
from conftest import FIXTURES, REPO, bundled_dungeon_files

from inkcrawl.jsonio import dumps_canonical, read_json_file, write_json_atomic
from inkcrawl.migrate import CURRENT_VERSIONS, FormatVersionError, migrate
from inkcrawl.model import dungeon_from_dict
from inkcrawl.schema import schema_problems
from inkcrawl.validate import RulesetRegistry, check_dungeon_data, load_document

SCHEMAS = sorted((REPO / "schemas").glob("*.schema.json"))


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_schema_is_valid_draft_2020_12_with_id(path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].startswith("https://inkcrawl.org/schemas/")


def test_schemas_cover_every_file_type():
    assert {"dungeon", "pack", "ruleset", "game"} <= {p.name.split(".")[0] for p in SCHEMAS}


def test_element_errors_point_at_the_leaf_not_the_whole_object():
    data = json.loads(bundled_dungeon_files()[-1].read_text(encoding="utf-8"))
    index = next(i for i, e in enumerate(data["elements"]) if e["kind"] == "artifact_stone")
    data["elements"][index]["number"] = "three"
    problems = schema_problems(data, "dungeon", "x.json")
    assert [p.pointer for p in problems] == [f"/elements/{index}/number"]


def test_a_timer_without_seconds_is_reported_on_the_trigger():
    data = json.loads(bundled_dungeon_files()[-1].read_text(encoding="utf-8"))
    data["sheet"]["end_triggers"] = [{"kind": "timer"}]
    problems = schema_problems(data, "dungeon", "x.json")
    assert [(p.pointer, "seconds" in p.message) for p in problems] == [("/sheet/end_triggers/0", True)]


def test_old_format_fixture_is_migrated_and_validates():
    document = load_document(FIXTURES / "dungeon-format-1.json")
    assert [(p.code, p.severity.value, p.pointer) for p in document.problems] == [
        ("F010", "warning", "/format_version")
    ]
    assert "inkcrawl migrate" in document.problems[0].message
    assert document.migrated_from == 1
    data = document.data
    assert data["format_version"] == CURRENT_VERSIONS["dungeon"] == 2
    assert data["sheet"]["title"] == "The Old Cellar" and "title" not in data
    plant = next(e for e in data["elements"] if e["id"] == "p1")
    assert plant["at"] == [125.25, 90] and plant["rotation_deg"] == 45 and "x" not in plant
    monster = next(e for e in data["elements"] if e["id"] == "m1")
    assert monster["rotation_deg"] == 0
    problems, dungeon = check_dungeon_data(data, "old.json", RulesetRegistry())
    assert problems == []
    assert dungeon.sheet.title == "The Old Cellar"


def test_migration_does_not_modify_its_input():
    original = json.loads((FIXTURES / "dungeon-format-1.json").read_text(encoding="utf-8"))
    snapshot = json.dumps(original)
    migrate(original, "dungeon")
    assert json.dumps(original) == snapshot


def test_newer_format_is_refused_naming_both_versions():
    with pytest.raises(FormatVersionError) as caught:
        migrate({"type": "dungeon", "format_version": 7}, "dungeon")
    assert caught.value.code == "F007"
    assert "7" in str(caught.value) and "2" in str(caught.value)


def _roundtrip(text: str) -> str:
    data = json.loads(text)
    data, _ = migrate(data, "dungeon")
    return dumps_canonical(dungeon_from_dict(data).to_dict())


@pytest.mark.parametrize("path", [*bundled_dungeon_files(), FIXTURES / "dungeon-format-1.json"], ids=lambda p: p.name)
def test_saving_is_byte_stable(path):
    first = _roundtrip(path.read_text(encoding="utf-8"))
    second = _roundtrip(first)
    assert first == second


@pytest.mark.parametrize("path", bundled_dungeon_files(), ids=lambda p: p.name)
def test_bundled_dungeons_are_stored_in_canonical_layout(path):
    assert _roundtrip(path.read_text(encoding="utf-8")) == path.read_text(encoding="utf-8")


def test_floats_are_rounded_to_three_decimals_and_whole_floats_become_ints():
    text = dumps_canonical({"a": 1.23456, "b": 2.0, "c": -0.0001, "d": [0.1 + 0.2, 1e-9], "e": True})
    assert json.loads(text) == {"a": 1.235, "b": 2, "c": 0, "d": [0.3, 0], "e": True}
    assert '"b": 2,' in text


def test_migrated_fixture_rounds_coordinates_when_saved():
    text = _roundtrip((FIXTURES / "dungeon-format-1.json").read_text(encoding="utf-8"))
    data = json.loads(text)
    corridor = next(a for a in data["areas"] if a["id"] == "c1")
    assert corridor["polygon"][1] == [150, 80]
    exit_element = next(e for e in data["elements"] if e["id"] == "e1")
    assert exit_element["at"] == [70.5, 105.123]


def test_atomic_write_replaces_only_on_success(tmp_path, monkeypatch):
    target = tmp_path / "d.json"
    target.write_text("old contents\n", encoding="utf-8")

    class Boom(RuntimeError):
        pass

    def explode(value):
        raise Boom("disk full")

    monkeypatch.setattr("inkcrawl.jsonio.dumps_canonical", explode)
    with pytest.raises(Boom):
        write_json_atomic(target, {"a": 1})
    assert target.read_text(encoding="utf-8") == "old contents\n"
    monkeypatch.undo()

    def fail_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("inkcrawl.jsonio.os.replace", fail_replace)
    with pytest.raises(OSError):
        write_json_atomic(target, {"a": 1})
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "old contents\n"
    assert [p.name for p in tmp_path.iterdir()] == ["d.json"]
    write_json_atomic(target, {"a": 1.5})
    assert target.read_text(encoding="utf-8") == '{\n  "a": 1.5\n}\n'


def test_reader_reports_nan_with_position(tmp_path):
    path = tmp_path / "nan.json"
    path.write_text('{\n  "a": NaN\n}', encoding="utf-8")
    value, problems = read_json_file(path)
    assert value is None
    assert [(p.code, p.line, p.column) for p in problems] == [("F005", 2, 8)]


def test_reader_accepts_a_utf8_bom(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"type": "pack"}).encode())
    value, problems = read_json_file(path)
    assert problems == [] and value == {"type": "pack"}


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_canonical_writer_refuses_non_finite_numbers(bad):
    with pytest.raises(ValueError):
        dumps_canonical({"a": [1, bad]})
