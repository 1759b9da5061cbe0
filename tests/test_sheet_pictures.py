"""Each bundled sheet, rendered to PNG, looks like its stored reference (within a tolerance)."""

from __future__ import annotations

import pytest
from pictures import REFERENCE_DIR, bundled_sheets, difference, pixels, render_png

SHEETS = bundled_sheets()


def test_every_bundled_dungeon_has_a_reference():
    names = {name for name, _ in SHEETS}
    stored = {p.name for p in REFERENCE_DIR.glob("*.png")}
    assert names == stored, "run 'python tests/pictures.py' and look at the new pictures"


@pytest.mark.parametrize("name, opened", SHEETS, ids=[name for name, _ in SHEETS])
def test_sheet_matches_its_reference(name, opened):
    reference = REFERENCE_DIR / name
    mean, changed = difference(pixels(render_png(opened)), pixels(reference.read_bytes()))
    assert mean <= 1.5 and changed <= 0.005, f"{name}: mean difference {mean:.2f}, {changed:.2%} of pixels changed"


def test_the_comparison_notices_a_changed_sheet():
    name, opened = SHEETS[0]
    original = pixels(render_png(opened))
    altered = original.copy()
    altered[: altered.shape[0] // 3] = 0  # a third of the sheet blacked out
    mean, changed = difference(original, altered)
    assert mean > 1.5 and changed > 0.005
