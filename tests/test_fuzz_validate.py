"""Property test: randomly damaged bundled dungeons never crash validation.

Each example takes one bundled dungeon (content/packs/*/dungeons/*.json), applies one to four
random mutations (delete a key, replace a value with a JSON value of another type, duplicate or
drop list items, swap or duplicate ids, degenerate polygons, move elements or cells) and runs
:func:`inkcrawl.validate.check_dungeon_data` on it. Whatever the damage, validation must return
problems with catalogued codes and never raise.

Deterministic in CI: ``derandomize=True`` and no example database, so every run draws the same
examples; about 300 examples in all take a few seconds.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl.problems import RULES_BY_CODE, Problem
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

PACKS = Path(__file__).resolve().parent.parent / "content" / "packs"
DUNGEON_FILES = sorted(PACKS.glob("*/dungeons/*.json"))
DUNGEONS = [json.loads(path.read_text(encoding="utf-8")) for path in DUNGEON_FILES]
REGISTRY = RulesetRegistry()

FUZZ_SETTINGS = settings(
    max_examples=220,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

JsonPath = tuple  # a path into the document: keys and indices

# -- random JSON values -------------------------------------------------------------------------

# Integers a file can hold (jsonio refuses literals of more than 30 digits).
_BIG = 10**30 - 1
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.integers(-_BIG, _BIG),
    st.sampled_from([0, -1, 2**31, 2**53 + 1, 2**63, 2**64, -(2**63) - 1, _BIG, -_BIG]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-500, 500, allow_nan=False),
    # Hypothesis text excludes lone surrogates by default: those crash schema validation (see
    # test_bad_input.py, corpus case lone-surrogate-id.json), which no example here should hide.
    st.text(max_size=12),
    st.sampled_from(["", " ", "room", "door", "start", "exit", "r1", "st1", "\u202e\u0000", "ü" * 300]),
)
json_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


# -- navigating the document --------------------------------------------------------------------


def _walk(value: Any, path: JsonPath = ()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, path + (index,))


def _get(doc: Any, path: JsonPath) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _set(doc: Any, path: JsonPath, value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


def _pick(draw, doc: Any, keep) -> JsonPath | None:
    paths = [path for path, value in _walk(doc) if keep(path, value)]
    if not paths:
        return None
    return draw(st.sampled_from(paths))


def _coordinate(draw) -> float:
    return draw(st.one_of(st.integers(-50, 450), st.floats(-50, 450, allow_nan=False)))


# -- mutations ----------------------------------------------------------------------------------


def delete_key(draw, doc: dict) -> None:
    path = _pick(draw, doc, lambda p, v: isinstance(v, dict) and v)
    if path is not None:
        container = _get(doc, path)
        del container[draw(st.sampled_from(sorted(container)))]


def replace_value(draw, doc: dict) -> None:
    path = _pick(draw, doc, lambda p, v: bool(p))
    if path is not None:
        old_type = _json_type(_get(doc, path))
        _set(doc, path, draw(json_values.filter(lambda v: _json_type(v) != old_type)))


def tweak_number(draw, doc: dict) -> None:
    """A number stays a number but becomes negative, zero, tiny or huge."""
    path = _pick(draw, doc, lambda p, v: isinstance(v, (int, float)) and not isinstance(v, bool))
    if path is not None:
        _set(
            doc,
            path,
            draw(st.sampled_from([0, -1, -0.0005, 0.0004, 1e-300, 1e300, -1e300, 10**29, 3.5, -250, 1_000_000])),
        )


def duplicate_item(draw, doc: dict) -> None:
    path = _pick(draw, doc, lambda p, v: isinstance(v, list) and v)
    if path is not None:
        items = _get(doc, path)
        item = copy.deepcopy(items[draw(st.integers(0, len(items) - 1))])
        items.insert(draw(st.integers(0, len(items))), item)


def drop_items(draw, doc: dict) -> None:
    path = _pick(draw, doc, lambda p, v: isinstance(v, list) and v)
    if path is not None:
        items = _get(doc, path)
        for _ in range(draw(st.integers(1, len(items)))):
            items.pop(draw(st.integers(0, len(items) - 1)))


def swap_ids(draw, doc: dict) -> None:
    """Swap the ids of two objects, or give one the id of another (a duplicate)."""
    paths = [path for path, value in _walk(doc) if isinstance(value, dict) and "id" in value and path]
    if len(paths) < 2:
        return
    first, second = draw(st.lists(st.sampled_from(paths), min_size=2, max_size=2, unique=True))
    a, b = _get(doc, first), _get(doc, second)
    if draw(st.booleans()):
        a["id"], b["id"] = b["id"], a["id"]
    else:
        b["id"] = a["id"]


def degenerate_polygon(draw, doc: dict) -> None:
    """Collinear, repeated or too few points in an area polygon (line) or a wall."""
    path = _pick(draw, doc, lambda p, v: len(p) >= 2 and p[-1] in ("polygon", "points") and isinstance(v, list))
    if path is None:
        return
    x, y = _coordinate(draw), _coordinate(draw)
    dx, dy = draw(st.sampled_from([(0, 0), (10, 0), (0, 10), (7.5, 7.5), (0.0001, 0)]))
    shape = draw(st.sampled_from(["collinear", "same", "repeat", "two", "bowtie", "closed"]))
    points = _get(doc, path)
    if shape == "collinear":
        new = [[x + i * dx, y + i * dy] for i in range(draw(st.integers(3, 6)))]
    elif shape == "same":
        new = [[x, y]] * draw(st.integers(1, 5))
    elif shape == "repeat" and points:
        new = copy.deepcopy(points)
        new.insert(draw(st.integers(0, len(new))), copy.deepcopy(new[draw(st.integers(0, len(new) - 1))]))
    elif shape == "two":
        new = [[x, y], [x + dx, y + dy]]
    elif shape == "bowtie":
        new = [[x, y], [x + 20, y + 20], [x + 20, y], [x, y + 20]]
    else:
        new = copy.deepcopy(points) + [copy.deepcopy(points[0])] if points else [[x, y]]
    _set(doc, path, new)


def move_element(draw, doc: dict) -> None:
    """Move an element, a door segment, a grid cell or the grid origin somewhere random."""
    path = _pick(
        draw, doc, lambda p, v: bool(p) and p[-1] in ("at", "segment", "cell", "origin_mm") and isinstance(v, list)
    )
    if path is None:
        return
    if path[-1] in ("at", "origin_mm"):
        _set(doc, path, [_coordinate(draw), _coordinate(draw)])
    elif path[-1] == "segment":
        _set(doc, path, [[_coordinate(draw), _coordinate(draw)], [_coordinate(draw), _coordinate(draw)]])
    else:
        _set(doc, path, [draw(st.integers(-3, 30)), draw(st.integers(-3, 30))])


MUTATIONS = (
    delete_key,
    replace_value,
    tweak_number,
    duplicate_item,
    drop_items,
    swap_ids,
    degenerate_polygon,
    move_element,
)


@st.composite
def mutated_dungeons(draw) -> dict:
    """A bundled dungeon with one to four random mutations."""
    doc = copy.deepcopy(draw(st.sampled_from(DUNGEONS)))
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4)):
        mutation(draw, doc)
    return doc


# -- the property -------------------------------------------------------------------------------


def test_bundled_dungeons_load():
    assert len(DUNGEONS) >= 2
    for path, doc in zip(DUNGEON_FILES, DUNGEONS):
        problems, dungeon = check_dungeon_data(doc, str(path), REGISTRY)
        assert dungeon is not None, path
        assert not [p for p in problems if p.severity.value == "error"], (path, problems)


@FUZZ_SETTINGS
@given(mutated_dungeons())
def test_mutated_dungeons_never_crash_validation(doc):
    result = check_dungeon_data(doc, "fuzz.json", REGISTRY)
    assert isinstance(result, tuple) and len(result) == 2
    problems, _ = result
    assert isinstance(problems, list)
    for item in problems:
        assert isinstance(item, Problem)
        assert item.code in RULES_BY_CODE, item
        assert item.file == "fuzz.json"
        assert item.pointer == "" or item.pointer.startswith("/"), item
        assert isinstance(item.message, str) and item.message


@pytest.mark.parametrize("family", ["grid", "line"])
def test_every_mutation_applies_to_each_family(family):
    """Guard against a fuzzer that silently does nothing: each mutation changes some dungeon."""
    docs = [d for d in DUNGEONS if d.get("family") == family]
    assert docs
    changed = set()

    @settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def probe(mutation, data):
        doc = copy.deepcopy(data.draw(st.sampled_from(docs)))
        before = json.dumps(doc, sort_keys=True)
        mutation(data.draw, doc)
        if json.dumps(doc, sort_keys=True) != before:
            changed.add(mutation.__name__)

    for mutation in MUTATIONS:  # each mutation gets its own examples (not a share of a random sample)
        probe(mutation)
    expected = {m.__name__ for m in MUTATIONS}
    if family == "grid":
        expected.discard("degenerate_polygon")  # grid dungeons have no polygons or wall points
    assert expected <= changed, expected - changed
