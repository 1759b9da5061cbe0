"""The canvas shows big sheets as images drawn in the worker process (editor/canvas/sheet_worker.py,
SheetBackground in editor/canvas/scene.py): what it shows must be the printed sheet, sharp at every
zoom, up to date after an edit, and survive a worker that lost the sheet or died."""

from __future__ import annotations

import math
import os

import numpy
import pytest
from PySide6.QtCore import QByteArray, QRect, QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from editor.canvas.scene import DungeonScene, SheetBackground
from editor.canvas.sheet_worker import TILE_PX, render_svg, render_tiles, shared_worker, tile_level
from editor.dungeon.edits import MoveObjects
from exporters import style
from exporters.qt import svg_for_qt
from tests.editor_support import LINE_DUNGEON, make_window


def test_tile_level_is_the_next_power_of_root_two_at_least_as_fine():
    assert tile_level(1.0) == 1.0
    assert tile_level(1.2) == pytest.approx(math.sqrt(2))
    assert tile_level(2.0) == 2.0
    assert tile_level(3.78) == 4.0  # 100 % on a 96 dpi screen
    assert tile_level(0.3) == pytest.approx(2**-1.5)  # 0.354
    assert tile_level(1e-6) == 1 / 16 and tile_level(1e6) == 256.0


def test_tiles_for_covers_the_rect_on_the_paper_only():
    background = SheetBackground(300, 200)
    level = TILE_PX / 100  # tiles of 100 mm
    assert background.tiles_for(QRectF(50, 50, 100, 100), level) == [(0, 0), (1, 0), (0, 1), (1, 1)]
    assert background.tiles_for(QRectF(-500, -500, 10_000, 10_000), level) == [
        (c, r) for r in range(2) for c in range(3)
    ]
    assert background.tiles_for(QRectF(400, 0, 50, 50), level) == []


def test_a_sheet_the_worker_no_longer_keeps_is_reported_missing():
    assert shared_worker().submit(render_tiles, "no-such-sheet", 1.0, [(0, 0)]).result(timeout=60) == {"missing": True}


@pytest.fixture
def tiled_window(qtbot, monkeypatch):
    """A window whose sheets all go through the worker, as big dungeons' sheets do."""
    monkeypatch.setattr(DungeonScene, "ASYNC_OBJECTS", -1)
    monkeypatch.setattr(DungeonScene, "ASYNC_RENDER_MS", -1.0)
    window = make_window(qtbot, LINE_DUNGEON)
    window.resize(900, 700)
    window.view.show_grid = False
    assert window.scene.wait_for_sheet()
    return window


def _sharp(window) -> bool:
    """Whether every tile the view shows is kept at the view's zoom level."""
    view, background = window.view, window.scene.background
    level = tile_level(view.transform().m11() * view.viewport().devicePixelRatioF())
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    return all((level, *tile) in background.tiles for tile in background.tiles_for(visible, level))


def _vector_image(window) -> QImage:
    """The viewport as it would look with the sheet drawn from its vectors in this process."""
    document, view = window.current, window.view
    svg, error = render_svg(document.dungeon.to_dict(), document.ruleset.data)
    assert not error
    renderer = QSvgRenderer(QByteArray(svg_for_qt(svg).encode("utf-8")))  # text at its size, as printed
    image = QImage(view.viewport().size(), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setTransform(view.viewportTransform())
    paper = window.scene.background.boundingRect()
    painter.fillRect(paper, QColor(style.COLOUR.paper))
    renderer.render(painter, paper)
    painter.end()
    return image


def _pixels(image: QImage, rect: QRect) -> numpy.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32).copy(rect)
    data = numpy.frombuffer(image.constBits(), dtype=numpy.uint8, count=image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4].astype(int)


def _difference(window) -> tuple[float, float]:
    """Mean and 99th percentile of the per-channel difference between the canvas and the
    vector drawing, over the paper inside the viewport (inset 2 px: the paper's border line)."""
    view = window.view
    view.viewport().repaint()
    shown = view.viewport().grab().toImage()
    expected = _vector_image(window)
    paper = view.mapFromScene(window.scene.background.boundingRect()).boundingRect()
    rect = paper.intersected(view.viewport().rect()).adjusted(2, 2, -2, -2)
    assert rect.width() > 100 and rect.height() > 100
    ratio = shown.width() / view.viewport().width()
    if ratio != 1:  # grabs are in device pixels
        shown = shown.scaled(view.viewport().size())
    diff = numpy.abs(_pixels(shown, rect) - _pixels(expected, rect))
    return float(diff.mean()), float(numpy.percentile(diff, 99))


@pytest.mark.parametrize("zoom", [0.5, 1.0, 2.5])
def test_the_tiled_sheet_matches_the_vector_drawing_at_each_zoom(tiled_window, zoom):
    window = tiled_window
    background = window.scene.background
    assert background.renderer is None and background.overview is not None  # images, not vectors
    window.view.set_zoom(zoom)
    window.view.centerOn(90, 120)
    assert window.scene.wait_for_sheet()
    assert _sharp(window)
    mean, p99 = _difference(window)
    assert background.level == tile_level(window.view.transform().m11())  # painted from those tiles
    assert mean < 1.5 and p99 < 40, (mean, p99)


def test_the_first_frame_after_a_zoom_shows_the_overview_and_asks_for_tiles(tiled_window, qtbot):
    window = tiled_window
    scene, background = window.scene, window.scene.background
    window.view.set_zoom(3.0)
    window.view.centerOn(90, 120)  # the zoom anchors under the pointer, wherever an earlier test left it
    window.view.viewport().repaint()
    level = background.level
    assert not any(key[0] == level for key in background.tiles)  # nothing at this level yet
    assert scene._tile_timer.isActive() or scene._tile_job is not None  # asked for
    qtbot.waitUntil(lambda: any(key[0] == level for key in background.tiles), timeout=30_000)
    assert scene.wait_for_sheet()
    assert _difference(window)[0] < 1.5


def test_an_edit_brings_a_new_sheet_that_shows_it(tiled_window):
    window = tiled_window
    document, scene = window.current, window.scene
    element = next(e for e in document.dungeon.elements if e.at is not None and e.kind == "monster")
    window.view.set_zoom(1.5)
    window.view.centerOn(*element.at)
    assert scene.wait_for_sheet()
    before = scene.background.raster_key
    document.push(MoveObjects(document.dungeon, [element.id], 12, 6))
    assert scene.wait_for_sheet()
    assert scene.background.raster_key != before
    mean, p99 = _difference(window)  # against the vectors of the edited dungeon
    pids = shared_worker().pids()
    if hasattr(os, "getpriority") and os.getpriority(os.PRIO_PROCESS, 0) <= 9:
        # the worker runs at background priority: on two busy cores the UI thread gets a core first
        assert pids and os.getpriority(os.PRIO_PROCESS, pids[0]) == os.getpriority(os.PRIO_PROCESS, 0) + 10
    assert mean < 1.5 and p99 < 40, (mean, p99)


def test_a_restarted_worker_draws_the_sheet_again(tiled_window):
    window = tiled_window
    scene = window.scene
    shared_worker().shutdown()  # the worker and every sheet it kept are gone
    window.view.set_zoom(2.0)
    window.view.viewport().repaint()
    assert scene.wait_for_sheet()
    assert scene.wait_for_sheet()  # the tiles of the sheet drawn again
    assert _sharp(window)
    assert _difference(window)[0] < 1.5


def test_a_sheet_the_exporters_cannot_lay_out_shows_blank_paper_and_the_reason(tiled_window):
    window = tiled_window
    document, scene = window.current, window.scene
    area = document.dungeon.areas[0]
    document.push(MoveObjects(document.dungeon, [area.id], 0, document.dungeon.sheet.paper.height_mm))
    assert scene.wait_for_sheet()
    assert scene.background.error and not scene.background.has_sheet
    assert all(item.guide for item in scene.items_by_ref.values())  # objects outlined instead
    document.undo_stack.undo()
    assert scene.wait_for_sheet()
    assert not scene.background.error and scene.background.has_sheet


def test_a_screenshot_waits_for_the_sheet_drawn_in_the_worker(qtbot, monkeypatch, tmp_path):
    from editor.app import _screenshot
    from exporters.qt import ensure_app

    monkeypatch.setattr(DungeonScene, "ASYNC_OBJECTS", -1)
    monkeypatch.setattr(DungeonScene, "ASYNC_RENDER_MS", -1.0)
    monkeypatch.setattr("editor.app.release_clipboard", lambda app: None)
    window = make_window(qtbot, LINE_DUNGEON)
    seen = {}
    grab = window.grab

    def grab_and_look():
        seen["sheet"] = window.scene.background.has_sheet
        seen["sharp"] = _sharp(window)
        return grab()

    monkeypatch.setattr(window, "grab", grab_and_look)
    assert _screenshot(ensure_app(), window, tmp_path / "shot.png") == 0
    assert seen == {"sheet": True, "sharp": True}
    assert (tmp_path / "shot.png").stat().st_size > 10_000


def test_tiles_of_every_open_sheet_share_one_memory_bound(qtbot, monkeypatch):
    """With several big dungeons open, the tiles of the tabs not shown give way first."""
    from tests.editor_support import LINE_PACK

    monkeypatch.setattr(DungeonScene, "ASYNC_OBJECTS", -1)
    monkeypatch.setattr(DungeonScene, "ASYNC_RENDER_MS", -1.0)
    monkeypatch.setattr(SheetBackground, "TILE_MEMORY", 60 * TILE_PX * TILE_PX * 4)  # 60 tiles
    window = make_window(qtbot, LINE_PACK)
    window.resize(900, 700)
    backgrounds = []
    for document in window.documents:
        window.set_current(document)
        window.view.set_zoom(2.0)
        window.view.centerOn(90, 120)
        assert window.scene.wait_for_sheet()
        backgrounds.append(window.scene.background)
        assert len(window.scene.background.tiles) > 0
    assert sum(len(b.tiles) for b in backgrounds) <= 60
    assert _sharp(window)  # the tab shown keeps every tile it shows
    assert len(backgrounds[0].tiles) < len(backgrounds[-1].tiles)  # the first tab gave its tiles up first


def _kill_worker() -> list[int]:
    """SIGKILL the worker process; returns the process ids killed."""
    import os
    import signal

    pids = shared_worker().pids()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


def test_a_killed_worker_mid_render_is_replaced_and_the_sheet_drawn_again(tiled_window, qtbot):
    window = tiled_window
    document, scene = window.current, window.scene
    element = next(e for e in document.dungeon.elements if e.at is not None)
    document.push(MoveObjects(document.dungeon, [element.id], 5, 0))
    scene.render_sheet()
    assert scene._pending is not None
    _kill_worker()  # SIGKILL mid-job, as the out-of-memory killer would
    qtbot.waitUntil(lambda: scene._pending is None, timeout=30_000)
    assert scene.wait_for_sheet()
    assert scene.background.has_sheet and not scene.background.error
    document.push(MoveObjects(document.dungeon, [element.id], 5, 0))  # the next edit renders too
    scene.render_sheet()
    assert scene.wait_for_sheet()
    assert scene.background.has_sheet and not scene.background.error
    assert _difference(window)[0] < 1.5


def test_a_worker_killed_between_jobs_is_replaced_on_the_next_job(tiled_window):
    from tests.waiting import wait_until

    killed = _kill_worker()
    assert killed
    # dead before the next job is sent: really between jobs
    wait_until(lambda: not set(killed) & set(shared_worker().pids()), "the killed worker to be gone")
    document = tiled_window.current
    future = shared_worker().submit(render_svg, document.dungeon.to_dict(), document.ruleset.data)
    svg, error = future.result(timeout=60)
    assert svg and not error


@pytest.mark.parametrize("zoom", [0.28, 2.0])
def test_no_seams_where_tiles_meet_between_two_zoom_levels(tiled_window, zoom):
    """At a zoom between two tile levels, tile edges fall between pixels: the lines of pixels
    along them must look like the vector drawing, not like a faint grid."""
    window = tiled_window
    view, background = window.view, window.scene.background
    view.set_zoom(zoom)
    view.centerOn(100, 140)
    assert window.scene.wait_for_sheet() and _sharp(window)
    level = tile_level(view.transform().m11())
    assert level != pytest.approx(view.transform().m11())  # really between two levels
    view.viewport().repaint()
    shown, expected = view.viewport().grab().toImage(), _vector_image(window)
    paper = view.mapFromScene(background.boundingRect()).boundingRect().intersected(view.viewport().rect())
    inner = paper.adjusted(3, 3, -3, -3)
    tile_mm = TILE_PX / level
    lines = []
    for column in range(1, int(background.width_mm / tile_mm) + 1):
        x = view.mapFromScene(column * tile_mm, 0).x()
        if inner.left() < x < inner.right():
            lines.append(QRect(x - 1, inner.top(), 3, inner.height()))
    for row in range(1, int(background.height_mm / tile_mm) + 1):
        y = view.mapFromScene(0, row * tile_mm).y()
        if inner.top() < y < inner.bottom():
            lines.append(QRect(inner.left(), y - 1, inner.width(), 3))
    assert lines
    for line in lines:
        diff = numpy.abs(_pixels(shown, line) - _pixels(expected, line))
        assert diff.mean() < 2.0, (line, diff.mean())


def test_the_reason_a_sheet_cannot_print_is_shown_whole(qtbot):
    """A long reason runs to several lines over the canvas: none of it is cut off."""
    window = make_window(qtbot, LINE_DUNGEON)
    scene = window.scene
    scene.background.error = "the sheet cannot be printed as it is: " + "a room reaches the footer; " * 12
    image = QImage(420, 240, QImage.Format.Format_RGB32)  # the top 60 mm of the sheet, 7 px per mm
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.scale(7, 7)
    scene.drawForeground(painter, QRectF(0, 0, 60, 60))  # the text over the canvas, alone
    painter.end()
    pixels = _pixels(image, QRect(0, 0, 420, 240))
    red = pixels[:, 2::4] - pixels[:, 0::4]  # red minus blue, per pixel (BGRA bytes)
    rows_with_text = sorted({int(y) for y in numpy.nonzero(red > 60)[0]})
    assert rows_with_text and rows_with_text[-1] > 14 * 7  # past the 12 mm band it once was cut to


def _die_mid_reply():
    """A worker job that starts its reply and dies before the end of it (as a worker killed
    while sending megabytes of tiles does): the worker replies over a ``multiprocessing``
    connection, whose ``send_bytes`` here writes the header of a 1000-byte message and no more."""
    import os
    import signal
    import struct
    from multiprocessing.connection import Connection

    def send_the_start_and_die(connection, data):
        os.write(connection.fileno(), struct.pack("!i", 1000))  # a header, then nothing
        os.kill(os.getpid(), signal.SIGKILL)

    Connection.send_bytes = send_the_start_and_die
    return "never arrives"


def test_a_worker_killed_while_replying_never_leaves_the_canvas_waiting(tiled_window):
    window = tiled_window
    document, scene = window.current, window.scene
    shared_worker().submit(_die_mid_reply)
    element = next(e for e in document.dungeon.elements if e.at is not None)
    document.push(MoveObjects(document.dungeon, [element.id], 5, 0))
    scene.render_sheet()
    assert scene._pending is not None
    assert scene.wait_for_sheet(30)
    assert scene.background.has_sheet and not scene.background.error
    assert _difference(window)[0] < 1.5
