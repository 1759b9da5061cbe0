"""Helpers shared by the editor tests: open bundled dungeons as documents and windows, and
drive the canvas with simulated mouse input in sheet millimetres."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

REPO = Path(__file__).resolve().parent.parent
LINE_DUNGEON = REPO / "content/packs/lantern-depths/dungeons/01-candlewick-cellars.json"
GRID_DUNGEON = REPO / "content/packs/ember-halls/dungeons/cinder-vault.json"
LINE_PACK = REPO / "content/packs/lantern-depths"
GRID_PACK = REPO / "content/packs/ember-halls"


def copy_pack(tmp_path: Path, source: Path = LINE_PACK) -> Path:
    """A copy of a bundled pack in ``tmp_path`` (tests edit and save it freely)."""
    import shutil

    target = tmp_path / source.name
    shutil.copytree(source, target)
    return target


def click_pack_row(browser, row: int) -> None:
    """Click dungeon ``row`` in the Pack dock's list."""
    rect = browser.list.visualItemRect(browser.list.item(row))
    QTest.mouseClick(browser.list.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())


def open_document(path: Path):
    """A :class:`editor.dungeon.document.DungeonDocument` of a dungeon file (asserts it opens)."""
    from editor.dungeon.document import load_document

    document, reason = load_document(path)
    assert document is not None, reason
    return document


def make_window(qtbot, path: Path | None = None):
    """A shown main window (offscreen) with ``path`` opened; unsaved-changes prompts answer
    Discard, the offer to renumber duplicate ids No."""
    from exporters.qt import ensure_app

    ensure_app()
    from editor.mainwindow import MainWindow

    window = MainWindow()
    window.confirm_discard = lambda document: True
    window.ask_renumber_duplicates = lambda document, shared: False  # tests that want Yes say so
    qtbot.addWidget(window)
    if path is not None:
        assert window.open_path(path)
    window.show()
    qtbot.waitExposed(window)
    return window


def view_point(view, x_mm: float, y_mm: float) -> QPoint:
    """The viewport pixel showing sheet point ``(x_mm, y_mm)``."""
    return view.mapFromScene(QPointF(x_mm, y_mm))


def click(
    view, x_mm: float, y_mm: float, button=Qt.MouseButton.LeftButton, modifiers=Qt.KeyboardModifier.NoModifier
) -> None:
    """Press and release the mouse at a sheet point."""
    QTest.mouseClick(view.viewport(), button, modifiers, view_point(view, x_mm, y_mm))


def drag(
    view, start: tuple[float, float], end: tuple[float, float], steps: int = 8, modifiers=Qt.KeyboardModifier.NoModifier
) -> None:
    """Drag with the left button from ``start`` to ``end`` (sheet mm) through ``steps`` moves."""
    viewport = view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifiers, view_point(view, *start))
    for i in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * i / steps
        y = start[1] + (end[1] - start[1]) * i / steps
        QTest.mouseMove(viewport, view_point(view, x, y))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifiers, view_point(view, *end))


def make_unwritable(folder, monkeypatch):
    """Make ``folder`` read-only; running as root (which writes anyway) the OS refusal is
    simulated where the atomic writer creates its temporary file."""
    folder.chmod(0o500)
    if os.access(folder, os.W_OK):
        import inkcrawl.jsonio

        real = inkcrawl.jsonio.tempfile.mkstemp

        def refuse(*args, dir=None, **kwargs):
            if dir is not None and os.path.samefile(dir, folder):
                raise PermissionError(13, "Permission denied")
            return real(*args, dir=dir, **kwargs)

        monkeypatch.setattr(inkcrawl.jsonio.tempfile, "mkstemp", refuse)
