"""Make the editor screenshots of the README (docs/editor-line.png, docs/editor-grid.png).

Run from the repository: ``python docs/editor_screenshots.py`` (offscreen; no display needed).
The line picture shows a pack with a monster selected and its properties in the Inspector; the
grid picture shows a grid dungeon during a playtest with a few segments placed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp(prefix="inkcrawl-shots-"))
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def settle(app, rounds: int = 10) -> None:
    for _ in range(rounds):
        app.processEvents()


def main() -> int:
    from editor.app import make_application
    from editor.mainwindow import MainWindow
    from inkcrawl.jsonio import write_bytes_atomic

    app = make_application(offscreen=True)

    def save(window, name: str) -> None:
        settle(app)
        pixmap = window.grab()
        from PySide6.QtCore import QBuffer, QByteArray, QIODevice

        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        pixmap.save(buffer, "PNG")
        write_bytes_atomic(REPO / "docs" / name, bytes(data))
        print(f"wrote docs/{name}")

    line = MainWindow()
    line.confirm_discard = lambda document: True
    line.resize(1600, 1000)
    line.open_path(REPO / "content/packs/lantern-depths")
    line.set_current(line.documents[3])
    line.show()
    settle(app)
    line.view.zoom_to_fit()
    boss = next(e for e in line.current.dungeon.elements if e.kind == "boss")
    line.select_refs([boss.id])
    save(line, "editor-line.png")
    line.close()

    grid = MainWindow()
    grid.confirm_discard = lambda document: True
    grid.resize(1600, 1000)
    grid.open_path(REPO / "content/packs/ember-halls/dungeons/cinder-vault.json")
    grid.show()
    settle(app)
    grid.view.zoom_to_fit()
    feature = next(f for f in grid.current.dungeon.features if f.kind == "dragon")
    grid.select_refs([feature.id])
    save(grid, "editor-grid.png")
    grid.close()
    app.clipboard().clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
