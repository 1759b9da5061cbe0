"""Test setup shared by every test: headless Qt settings and paths to the bundled content."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# Headless everywhere: Qt aborts without a display unless told to draw offscreen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if "XDG_RUNTIME_DIR" not in os.environ:
    _runtime = tempfile.mkdtemp(prefix="inkcrawl-xdg-")
    os.chmod(_runtime, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = _runtime

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PACKS = REPO / "content" / "packs"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def bundled_dungeon_files() -> list[Path]:
    """Every dungeon file of the bundled packs."""
    return sorted(PACKS.glob("*/dungeons/*.json"))


@pytest.fixture
def repo() -> Path:
    return REPO
