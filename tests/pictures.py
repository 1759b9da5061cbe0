"""Rendering bundled sheets to small PNGs, and comparing pictures with a tolerance.

``python tests/pictures.py`` rewrites the reference PNGs in ``tests/reference/`` (run it after
an intended change to the look of the sheets, then look at the pictures before committing).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REFERENCE_DIR = HERE / "reference"
REFERENCE_DPI = 40


def bundled_sheets():
    """``(reference name, OpenedDungeon)`` for every bundled dungeon, in pack order."""
    from inkcrawl.loading import open_dungeons

    packs = sorted((HERE.parent / "content" / "packs").iterdir())
    result = open_dungeons([str(p) for p in packs])
    return [(f"{Path(o.file).parent.parent.name}-{o.dungeon.id}.png", o) for o in result.dungeons]


def render_png(opened, dpi: float = REFERENCE_DPI) -> bytes:
    """The sheet of an opened dungeon as PNG bytes, at its own paper size."""
    from exporters.pages import sheet_page
    from exporters.qt import svg_to_png

    page = sheet_page(opened.dungeon, opened.ruleset)
    return svg_to_png(page.svg, page.width_mm, page.height_mm, dpi)


def pixels(png: bytes) -> np.ndarray:
    """A PNG as an ``(height, width, 3)`` uint8 array (RGB)."""
    from PySide6.QtGui import QImage

    image = QImage.fromData(png).convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * height).reshape(height, stride)
    return raw[:, : width * 3].reshape(height, width, 3).copy()


def difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """``(mean absolute difference per channel, fraction of pixels differing by more than 48)``."""
    if a.shape != b.shape:
        return 255.0, 1.0
    delta = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return float(delta.mean()), float((delta.max(axis=2) > 48).mean())


def main() -> int:
    from exporters.qt import ensure_app

    ensure_app()
    REFERENCE_DIR.mkdir(exist_ok=True)
    for name, opened in bundled_sheets():
        (REFERENCE_DIR / name).write_bytes(render_png(opened))
        print(f"wrote {REFERENCE_DIR / name}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    sys.exit(main())
