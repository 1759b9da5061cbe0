"""Make the editor screenshots of the README (docs/editor-line.png, docs/editor-grid.png).

Run from the repository: ``.venv/bin/python docs/editor_screenshots.py`` (offscreen; no display
needed). The line picture shows a pack with the boss of its last dungeon selected and its
properties in the Inspector; the grid picture shows a hot-seat playtest of a grid dungeon for
three players, in round 2, with the second seat on turn.
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


def play_hotseat(app, window) -> None:
    """Start a three-seat hot-seat playtest (seed 4) and play round 1 and half of round 2 with
    the first legal placement of each card (a tally mark where there is none)."""
    from editor.playtest.grid import HOTSEAT

    window.playtest.toggle()
    panel = window.playtest.active
    panel.seed_box.setValue(4)
    panel.players_box.setValue(3)
    panel.others_box.setCurrentIndex(panel.others_box.findData(HOTSEAT))
    panel.new_button.click()
    panel = window.playtest.active
    session, tool = panel.session, window.view.tool

    def play_seat() -> None:
        while session.pending():
            options = session.options(panel.current_card())
            if options:
                room, mask = options[len(options) // 3]
                masks = session.masks_in(panel.current_card(), room) if isinstance(mask, int) else []
                tool.turn = masks.index(mask) if mask in masks else 0
                tool.click_room(room)
            else:
                panel.tally()
        settle(app)

    for _ in range(3):  # round 1, every seat
        play_seat()
        panel.next_round()
    play_seat()  # round 2: seat 1, then hand over to seat 2
    panel.next_round()
    settle(app)


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
    play_hotseat(app, grid)
    save(grid, "editor-grid.png")
    grid.close()
    app.clipboard().clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
