"""Rendering the printed sheet away from the editor's UI thread.

A big dungeon's sheet takes the exporters a second or more to lay out (about 0.4 ms per
element), Qt a tenth of a second to parse its SVG, and 30-200 ms to draw its vectors at each
new zoom level; the canvas must not freeze for any of it (PySide6 keeps Python's GIL while Qt
draws, so a thread would not help). :class:`SheetWorker` runs these jobs in one persistent
worker process (an :class:`inkcrawl.workers.WorkerPool` of one worker, started with ``spawn``,
so it shares nothing with Qt's threads) and the scene polls for the results:

- :func:`render_raster_sheet` lays the sheet out, keeps its parsed SVG in the worker under a
  key, and returns an overview image of the whole sheet plus the tiles the canvas shows now;
- :func:`render_tiles` draws more tiles of a kept sheet (after a pan or a zoom) as images.

Tiles are :data:`TILE_PX` pixels square on a grid that depends on the zoom level only
(:func:`tile_level`), so the canvas draws the sheet by copying images, whatever its size.
Small sheets are still drawn in-process as vectors, which is faster than a round trip.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from concurrent.futures import Future

from inkcrawl.limits import FORMAT_LIMIT_MM, FORMAT_LIMIT_TEXT, beyond_format_limits
from inkcrawl.workers import WorkerPool, lower_priority


def render_svg(dungeon_data: dict, ruleset_data: dict) -> tuple[str, str]:
    """The sheet of a dungeon as SVG text: ``(svg, "")``, or ``("", reason)`` when the
    exporters cannot lay it out (or when a value is beyond the format's range, see
    :func:`inkcrawl.limits.beyond_format_limits`). Qt-free, so it runs in a plain worker process."""
    from exporters.sheet import render_sheet
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.rulesets import Ruleset

    beyond = beyond_format_limits(dungeon_data)
    if beyond is not None:
        return "", (
            f"the sheet is not drawn: {beyond} is beyond the format's limits (\u00b1{FORMAT_LIMIT_MM} mm, "
            f"{FORMAT_LIMIT_TEXT} characters); bring it back within them"
        )
    try:
        page = render_sheet(dungeon_from_dict(dungeon_data), Ruleset(ruleset_data))
    except Exception as exc:
        return "", f"the sheet cannot be printed as it is: {exc}"
    return page.svg, ""


#: Side of a sheet tile in device pixels.
TILE_PX = 256
#: Each tile's image reaches this many pixels into its neighbours: drawn at a zoom between two
#: levels, tile edges fall between pixels, and the overlap keeps them from showing as seams.
TILE_PAD_PX = 2
TILE_IMAGE_PX = TILE_PX + 2 * TILE_PAD_PX
#: Largest overview image side in pixels, and its finest resolution in pixels per mm.
OVERVIEW_MAX_PX = 4096
OVERVIEW_MAX_PX_PER_MM = 4.0
#: Parsed sheets the worker keeps (one per open big dungeon, plus the one being replaced).
KEPT_SHEETS = 6


def tile_level(px_per_mm: float) -> float:
    """The tile resolution (pixels per mm) used to show the sheet at ``px_per_mm`` device
    pixels per mm: the smallest power of the square root of 2 at least as fine, so a tile is
    never magnified and at most 1.41 times reduced. Levels are clamped to 1/16 .. 256 px/mm."""
    px_per_mm = min(max(px_per_mm, 1 / 16), 256.0)
    return 2 ** (math.ceil(round(2 * math.log2(px_per_mm), 6)) / 2)


def overview_scale(width_mm: float, height_mm: float) -> float:
    """Resolution of a sheet's overview image in pixels per mm (:data:`OVERVIEW_MAX_PX_PER_MM`,
    less for a paper so big its overview would pass :data:`OVERVIEW_MAX_PX`)."""
    return min(OVERVIEW_MAX_PX_PER_MM, OVERVIEW_MAX_PX / max(width_mm, height_mm, 1.0))


_KEPT: OrderedDict = OrderedDict()  # in the worker: key -> (QSvgRenderer, width_mm, height_mm)


def _draw(
    renderer, width_mm: float, height_mm: float, x_mm: float, y_mm: float, scale: float, width_px: int, height_px: int
):
    """Draw the part of a parsed sheet whose top-left corner is (``x_mm``, ``y_mm``) at
    ``scale`` pixels per mm into a new image of ``width_px`` x ``height_px`` pixels."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QColor, QImage, QPainter

    from exporters import style

    image = QImage(max(width_px, 1), max(height_px, 1), QImage.Format.Format_RGB32)
    image.fill(QColor(style.COLOUR.paper))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    painter.scale(scale, scale)
    painter.translate(-x_mm, -y_mm)
    renderer.render(painter, QRectF(0, 0, width_mm, height_mm))
    painter.end()
    return image


def _parsed_sheet(dungeon_data: dict, ruleset_data: dict):
    """The dungeon's sheet laid out and parsed by Qt: ``(QSvgRenderer,
    width_mm, height_mm)``, or the reason it cannot be drawn (see :func:`render_svg`). In the
    worker, Qt starts offscreen on first use (it draws images only: no window, no display);
    in the editor it uses the running application."""
    svg, error = render_svg(dungeon_data, ruleset_data)
    if error:
        return error
    from PySide6.QtGui import QGuiApplication

    from exporters.qt import ensure_app, qt_svg_renderer

    if QGuiApplication.instance() is None:  # the worker: no window, no display
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    ensure_app()
    renderer = qt_svg_renderer(svg)  # text at its designed size
    if not renderer.isValid():
        return "the sheet could not be drawn"
    paper = dungeon_data["sheet"]["paper"]
    return renderer, float(paper["width_mm"]), float(paper["height_mm"])


def _image_bytes(image) -> tuple[int, int, bytes]:
    return image.width(), image.height(), bytes(image.constBits())[: image.sizeInBytes()]


def _draw_tiles(key: str, level: float, tiles: list[tuple[int, int]]) -> list[tuple[int, int, bytes]]:
    """Draw ``tiles`` (column, row) of the kept sheet ``key`` at ``level`` pixels per mm in
    one pass over the sheet (the bounding block of the tiles), cut into images of
    :data:`TILE_IMAGE_PX` pixels: each tile with :data:`TILE_PAD_PX` pixels of its neighbours
    around it."""
    renderer, width_mm, height_mm = _KEPT[key]
    if not tiles:
        return []
    c0, c1 = min(c for c, _ in tiles), max(c for c, _ in tiles)
    r0, r1 = min(r for _, r in tiles), max(r for _, r in tiles)
    tile_mm, pad_mm = TILE_PX / level, TILE_PAD_PX / level
    block = _draw(
        renderer,
        width_mm,
        height_mm,
        c0 * tile_mm - pad_mm,
        r0 * tile_mm - pad_mm,
        level,
        (c1 - c0 + 1) * TILE_PX + 2 * TILE_PAD_PX,
        (r1 - r0 + 1) * TILE_PX + 2 * TILE_PAD_PX,
    )
    out = []
    for c, r in tiles:
        tile = block.copy((c - c0) * TILE_PX, (r - r0) * TILE_PX, TILE_IMAGE_PX, TILE_IMAGE_PX)
        out.append((c, r, _image_bytes(tile)[2]))
    return out


def render_raster_sheet(
    key: str, dungeon_data: dict, ruleset_data: dict, level: float, tiles: list[tuple[int, int]]
) -> dict:
    """Lay out and parse the sheet of a dungeon in the worker, keep it under ``key`` for
    :func:`render_tiles`, and draw its overview and ``tiles`` at ``level`` (pixels per mm).

    Returns ``{"error": reason}`` when the sheet cannot be laid out (see :func:`render_svg`),
    else ``{"error": "", "overview": (scale, width_px, height_px, RGB32 bytes), "tiles":
    [(column, row, RGB32 bytes of TILE_IMAGE_PX x TILE_IMAGE_PX)]}``. Runs in the worker process only
    (it starts Qt there, offscreen)."""
    sheet = _parsed_sheet(dungeon_data, ruleset_data)
    if isinstance(sheet, str):
        return {"error": sheet}
    renderer, width_mm, height_mm = _KEPT[key] = sheet
    while len(_KEPT) > KEPT_SHEETS:
        _KEPT.popitem(last=False)
    scale = overview_scale(width_mm, height_mm)
    overview = _draw(
        renderer, width_mm, height_mm, 0, 0, scale, math.ceil(width_mm * scale), math.ceil(height_mm * scale)
    )
    return {"error": "", "overview": (scale, *_image_bytes(overview)), "tiles": _draw_tiles(key, level, tiles)}


def render_thumbnail_image(dungeon_data: dict, ruleset_data: dict, width_px: int, height_px: int) -> dict:
    """A dungeon's printed sheet drawn small for the pack browser: ``{"image": (width_px,
    height_px, RGB32 bytes)}`` (the sheet scaled to fit, on white), or ``{"error": reason}``
    (see :func:`render_svg`). Runs in the worker process (Qt started there offscreen) or, for
    small dungeons, in the editor."""
    sheet = _parsed_sheet(dungeon_data, ruleset_data)
    if isinstance(sheet, str):
        return {"error": sheet}
    renderer, width_mm, height_mm = sheet
    scale = min(width_px / width_mm, height_px / height_mm)
    return {"image": _image_bytes(_draw(renderer, width_mm, height_mm, 0, 0, scale, width_px, height_px))}


def render_tiles(key: str, level: float, tiles: list[tuple[int, int]]) -> dict:
    """Draw more ``tiles`` of the sheet kept under ``key`` (see :func:`render_raster_sheet`):
    ``{"tiles": [...]}``, or ``{"missing": True}`` when the worker no longer keeps it (a
    restarted worker, or more big dungeons open than :data:`KEPT_SHEETS`)."""
    if key not in _KEPT:
        return {"missing": True}
    _KEPT.move_to_end(key)
    return {"tiles": _draw_tiles(key, level, tiles)}


class SheetWorker:
    """One worker process rendering sheets; ``submit(function, *args)`` returns a ``Future``
    of ``function(*args)`` run there (:func:`render_svg`, :func:`render_raster_sheet`,
    :func:`render_tiles`). ``shutdown()`` stops the process (also at exit).

    A worker that dies (killed, out of memory), even in the middle of a reply, fails the job
    it was running with :class:`inkcrawl.workers.WorkerDied` (a ``BrokenProcessPool``: the
    scene draws the sheet again once); a new process runs the jobs that follow. What the dead
    one kept is gone (:func:`render_tiles` then says ``missing``)."""

    def __init__(self):
        self._pool: WorkerPool | None = None

    def submit(self, function, *args) -> Future:
        """Queue a job; the worker process starts on first use."""
        return self._live_pool().submit(function, *args)

    def ready(self, timeout: float | None = None) -> bool:
        """Start the worker process if it is not running, and wait up to ``timeout`` seconds
        until it is ready for jobs; ``True`` then."""
        return self._live_pool().ready(timeout)

    def _live_pool(self) -> WorkerPool:
        if self._pool is None or self._pool.broken:
            self.shutdown()
            self._pool = WorkerPool(1, start="spawn", initializer=lower_priority, name="inkcrawl-sheet-worker")
        return self._pool

    def pids(self) -> list[int]:
        """The process id of the worker, while it runs (none before its first job)."""
        return self._pool.pids() if self._pool is not None else []

    def check(self) -> None:
        """Let go of a worker that can no longer run jobs (it could not start again), so the
        next job starts a new one. Cheap: callers call it while waiting for a job. (A death is
        noticed without it: the jobs of a dead worker fail at once.)"""
        if self._pool is not None and self._pool.broken:
            self.shutdown()

    def shutdown(self) -> None:
        """Stop the worker process, dropping queued renders."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


_WORKER: SheetWorker | None = None


def shared_worker() -> SheetWorker:
    """The process-wide sheet worker (one process for every open dungeon)."""
    global _WORKER
    if _WORKER is None:
        _WORKER = SheetWorker()
    return _WORKER
