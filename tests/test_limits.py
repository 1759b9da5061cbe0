"""``inkcrawl.limits``: the format's limits on numbers and text, found by JSON pointer."""

from __future__ import annotations

import json

from conftest import PACKS

from inkcrawl.limits import FORMAT_LIMIT_MM, FORMAT_LIMIT_TEXT, beyond_format_limits


def test_every_bundled_dungeon_is_within_the_limits():
    files = sorted(PACKS.glob("*/dungeons/*.json"))
    assert len(files) > 5
    for file in files:
        assert beyond_format_limits(json.loads(file.read_text(encoding="utf-8"))) is None, file


def test_the_first_value_beyond_them_is_named_by_its_pointer():
    assert beyond_format_limits({"a": [1, 2, {"x": FORMAT_LIMIT_MM + 0.5}], "b": 1e9}) == "/a/2/x"
    assert beyond_format_limits({"a": [-FORMAT_LIMIT_MM, FORMAT_LIMIT_MM], "t": "x" * FORMAT_LIMIT_TEXT}) is None
    assert beyond_format_limits({"t": "x" * (FORMAT_LIMIT_TEXT + 1)}) == "/t"
    assert beyond_format_limits([0, [-20000]]) == "/1/0"
    assert beyond_format_limits({"a~b/c": 1e12}) == "/a~0b~1c"  # RFC 6901 escapes
    assert beyond_format_limits(float("nan")) == "/"
    assert beyond_format_limits({"flag": True, "none": None}) is None
