"""The thumbnails of the Pack dock: a small picture of each dungeon's printed sheet.

:class:`PackThumbnails` draws them one at a time after a quiet moment in the editing (the
window stays responsive), small dungeons in this process and big ones in the sheet worker
process (:func:`editor.canvas.sheet_worker.shared_worker`), as the canvas draws their sheets
(editor/canvas/scene.py); the canvas's own work for the worker comes first. A thumbnail is kept with
the model revision it shows, so an edit made while it was being drawn draws it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap

from editor.canvas.scene import image_from_worker
from editor.canvas.sheet_worker import render_thumbnail_image, shared_worker
from editor.dungeon.edits import objects

#: Size of a thumbnail in pixels (an A4 sheet's proportions).
THUMB_SIZE = QSize(72, 102)
#: Quiet time after an edit before a dungeon's thumbnail is drawn again, in ms.
THUMB_DELAY_MS = 500
#: Dungeons with more objects than this get their thumbnails drawn in the sheet worker process
#: (as their sheets on the canvas are, see editor/canvas/scene.py).
THUMB_WORKER_OBJECTS = 400


def render_thumbnail(dungeon, ruleset, size: QSize = THUMB_SIZE) -> QImage:
    """The printed sheet of ``dungeon`` drawn small (the exporters' own SVG, so it shows what
    prints), in this process: the drawing the sheet worker makes for big dungeons
    (:func:`editor.canvas.sheet_worker.render_thumbnail_image`). Raises ``ValueError`` with the
    reason when the sheet cannot be laid out or drawn."""
    result = render_thumbnail_image(dungeon.to_dict(), ruleset.data, size.width(), size.height())
    if "image" not in result:
        raise ValueError(result["error"])
    return image_from_worker(*result["image"])


def placeholder(text: str) -> QIcon:
    """A grey thumbnail-sized icon reading ``text`` (a dungeon not drawn, closed, missing...)."""
    image = QImage(THUMB_SIZE, QImage.Format.Format_RGB32)
    image.fill(QColor("#eeeeee"))
    painter = QPainter(image)
    painter.setPen(QColor("#888888"))
    painter.drawRect(0, 0, THUMB_SIZE.width() - 1, THUMB_SIZE.height() - 1)
    painter.drawText(QRectF(0, 0, THUMB_SIZE.width(), THUMB_SIZE.height()), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return QIcon(QPixmap.fromImage(image))


class PackThumbnails(QObject):
    """The thumbnails of the documents it watches. ``window`` is the main window (its open
    ``documents`` and ``scene``), ``drawn()`` is called whenever thumbnails were drawn (the
    dock redraws its list). A child of ``parent``."""

    def __init__(self, window, drawn: Callable[[], None], parent: QObject):
        super().__init__(parent)
        self.window = window
        self._drawn = drawn
        self._thumbs: dict[int, tuple[int, QIcon]] = {}
        self._pending: list = []
        self._watched: set[int] = set()
        self._render_ms = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(THUMB_DELAY_MS)
        self._timer.timeout.connect(self.render_next)
        self._jobs: dict[int, tuple] = {}  # id(document) -> (future, revision, document) in the worker
        self._again: set[int] = set()  # edited while their thumbnail was being drawn
        self._retried: set[tuple[int, int]] = set()  # (document, revision) drawn again after a worker died
        self._poll = QTimer(self)
        self._poll.setInterval(50)
        self._poll.timeout.connect(lambda: self._collect())

    # what is drawn -----------------------------------------------------------------------
    def thumbnail(self, document) -> tuple[int, QIcon] | None:
        """``(model revision drawn, icon)`` of a dungeon's thumbnail, or ``None`` before it is drawn."""
        return self._thumbs.get(id(document))

    def icon(self, document) -> QIcon:
        """The thumbnail of ``document`` as last drawn, or a placeholder until it is."""
        cached = self._thumbs.get(id(document))
        return cached[1] if cached is not None else placeholder("\u2026")

    def waiting(self) -> list:
        """The documents whose thumbnails wait to be drawn, in turn."""
        return list(self._pending)

    def in_worker(self) -> list:
        """The documents whose thumbnails the sheet worker is drawing now."""
        return [job[2] for job in self._jobs.values()]

    # watching ----------------------------------------------------------------------------
    def watch(self, document) -> bool:
        """Keep ``document``'s thumbnail drawn (drawing it at once); ``False`` when already watched."""
        if id(document) in self._watched:
            return False
        self._watched.add(id(document))
        self.queue(document, delay=False)
        return True

    def forget(self, key: int) -> None:
        """Stop drawing the document with ``id`` ``key`` (it is gone) and drop its thumbnail."""
        self._watched.discard(key)
        self._thumbs.pop(key, None)
        self._pending = [d for d in self._pending if id(d) != key]

    def queue(self, document, delay: bool = True) -> None:
        """Draw ``document``'s thumbnail again after a quiet moment (at once without ``delay``):
        the longer a sheet takes to draw, the longer the pause it waits for."""
        if document not in self._pending:
            self._pending.append(document)
        wait = max(THUMB_DELAY_MS, int(self._render_ms * 10)) if delay else 0
        self._timer.start(wait)

    # drawing -----------------------------------------------------------------------------
    def render_next(self) -> None:
        """Draw one waiting thumbnail, then come back for the next (the window stays responsive)."""
        while self._pending:
            document = self._pending.pop(0)
            if id(document) in self._watched and document in self.window.documents:
                self._render(document, defer=True)
                break
        if self._pending and not self._timer.isActive():
            self._timer.start(0)
        self._drawn()

    def _render(self, document, defer: bool = False) -> None:
        if sum(1 for _ in objects(document.dungeon)) > THUMB_WORKER_OBJECTS:
            scene = self.window.scene
            if defer and scene is not None and scene.worker_busy():
                self.queue(document)  # the canvas's sheet and tiles come first
                return
            self._render_in_worker(document)
            return
        started = time.perf_counter()
        try:
            icon = QIcon(QPixmap.fromImage(render_thumbnail(document.dungeon, document.ruleset)))
        except Exception:
            icon = placeholder("!")
        self._render_ms = max(self._render_ms * 0.5, (time.perf_counter() - started) * 1000)
        self._thumbs[id(document)] = (document.revision, icon)

    def _render_in_worker(self, document) -> None:
        """Draw a big dungeon's thumbnail in the sheet worker process (a second of exporter
        work must not freeze the window); :meth:`_collect` takes it when ready."""
        key = id(document)
        if key in self._jobs:  # one at a time per dungeon: draw again when it is back
            self._again.add(key)
            return
        future = shared_worker().submit(
            render_thumbnail_image,
            document.dungeon.to_dict(),
            document.ruleset.data,
            THUMB_SIZE.width(),
            THUMB_SIZE.height(),
        )
        self._jobs[key] = (future, document.revision, document)
        self._poll.start()

    def _collect(self, wait: bool = False) -> None:
        for key, (future, revision, document) in list(self._jobs.items()):
            deadline = time.perf_counter() + 60
            while wait and not future.done() and time.perf_counter() < deadline:
                shared_worker().check()  # a worker that died mid-reply: the job fails instead of never ending
                try:
                    future.result(timeout=0.5)
                except Exception:
                    pass
            shared_worker().check()
            if not future.done():
                continue
            del self._jobs[key]
            try:
                result = future.result()
            except Exception:
                result = {"error": "the worker stopped", "retry": (key, revision) not in self._retried}
                self._retried.add((key, revision))
            if key not in self._watched:
                continue
            if "image" in result:
                self._thumbs[key] = (revision, QIcon(QPixmap.fromImage(image_from_worker(*result["image"]))))
            else:
                self._thumbs[key] = (revision, placeholder("!"))
            if key in self._again or revision != document.revision or result.get("retry"):
                self._again.discard(key)
                self.queue(document)
        if not self._jobs:
            self._poll.stop()
        self._drawn()

    def flush(self) -> None:
        """Draw every waiting thumbnail now, waiting for the worker's (for tests and screenshots)."""
        self._timer.stop()
        while self._pending:
            document = self._pending.pop(0)
            if id(document) in self._watched and document in self.window.documents:
                self._render(document)
        self._again.clear()
        self._collect(wait=True)
        self._drawn()
