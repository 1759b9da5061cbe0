"""The canvas view: zoom, pan, the snapping grid, and mouse and keys handed to the active tool.

Zoom is a scale factor of *screen pixels per sheet millimetre*; 100 % means true size on the
screen (the screen's physical dots per inch, falling back to its logical DPI), so a 24 mm room
measures 24 mm on a ruler held to the monitor.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsView

#: Zoom limits, as fractions of true size.
MIN_ZOOM, MAX_ZOOM = 0.1, 16.0
#: Each wheel notch zooms by this factor.
WHEEL_STEP = 1.15


class CanvasView(QGraphicsView):
    """A ``QGraphicsView`` of a :class:`editor.canvas.scene.DungeonScene`.

    Mouse and key events go to ``tool`` (an :class:`editor.tools.catalogue.Tool`) first; the middle
    button, or the left button with Space held, pans. ``zoom_changed(float)`` reports the
    zoom as a fraction of true size. ``show_grid`` and ``grid_step_mm`` draw the snapping grid.
    """

    zoom_changed = Signal(float)
    cursor_moved = Signal(QPointF)

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.tool = None
        self.show_grid = False
        self.grid_step_mm = 5.0
        self._panning: QPointF | None = None
        self._space = False
        self.setRenderHints(
            QPainter.RenderHint.Antialiasing
            | QPainter.RenderHint.TextAntialiasing
            | QPainter.RenderHint.SmoothPixmapTransform
        )
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setMouseTracking(True)
        self.setBackgroundBrush(QColor("#d9d9d9"))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)

    # zoom --------------------------------------------------------------------------------
    def pixels_per_mm(self) -> float:
        """Screen pixels per millimetre at 100 % (true size)."""
        screen = self.screen()
        if screen is None:
            return 96.0 / 25.4
        physical = screen.physicalDotsPerInch()
        if 30 < physical < 1000:
            # physical dots are device pixels; the view works in device-independent pixels
            return physical / max(screen.devicePixelRatio(), 1.0) / 25.4
        return screen.logicalDotsPerInch() / 25.4

    def zoom(self) -> float:
        """Current zoom as a fraction of true size (1.0 = 100 %)."""
        return self.transform().m11() / self.pixels_per_mm()

    def set_zoom(self, fraction: float) -> None:
        """Zoom to ``fraction`` of true size, clamped to 10 %..1600 %."""
        fraction = min(max(fraction, MIN_ZOOM), MAX_ZOOM)
        scale = fraction * self.pixels_per_mm()
        self.setTransform(self.transform().fromScale(scale, scale))
        self.zoom_changed.emit(fraction)

    def zoom_by(self, factor: float) -> None:
        """Multiply the zoom by ``factor`` (anchored under the mouse)."""
        self.set_zoom(self.zoom() * factor)

    def zoom_to_fit(self) -> None:
        """Fit the whole paper in the window."""
        rect = self.scene().background.boundingRect().adjusted(-5, -5, 5, 5)
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        self.zoom_changed.emit(self.zoom())

    def zoom_to_rect(self, rect: QRectF, margin_mm: float = 15.0) -> None:
        """Centre and zoom on a rectangle of the sheet (clicking a problem)."""
        target = rect.adjusted(-margin_mm, -margin_mm, margin_mm, margin_mm)
        self.fitInView(target, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 4:
            self.set_zoom(4)
            self.centerOn(rect.center())
        self.zoom_changed.emit(self.zoom())

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            bar = self.horizontalScrollBar()  # Shift+wheel scrolls sideways
            bar.setValue(bar.value() - int(event.angleDelta().y() or event.angleDelta().x()))
            event.accept()
            return
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(WHEEL_STEP**steps)
        event.accept()

    # mouse and keys ------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.MiddleButton or (
            self._space and event.button() == Qt.MouseButton.LeftButton
        ):
            self._panning = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if self.tool is not None and self.tool.mouse_press(self, event, self.mapToScene(event.position().toPoint())):
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        scene_pos = self.mapToScene(event.position().toPoint())
        self.cursor_moved.emit(scene_pos)
        if self._panning is not None:
            delta = event.position() - self._panning
            self._panning = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(delta.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(delta.y()))
            event.accept()
            return
        if self.tool is not None and self.tool.mouse_move(self, event, scene_pos):
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._panning is not None:
            self._panning = None
            self.viewport().unsetCursor()
            event.accept()
            return
        if self.tool is not None and self.tool.mouse_release(self, event, self.mapToScene(event.position().toPoint())):
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        if self.tool is not None and self.tool.mouse_double_click(
            self, event, self.mapToScene(event.position().toPoint())
        ):
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def leaveEvent(self, event) -> None:
        """The pointer left the canvas: no hover highlight stays behind."""
        if self.tool is not None:
            self.tool.pointer_left(self)
        super().leaveEvent(event)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
        if self.tool is not None and self.tool.key_press(self, event):
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
        super().keyReleaseEvent(event)

    # drawing -----------------------------------------------------------------------------
    def _draw_cells(self, painter: QPainter, grid) -> None:
        """The snapping grid of a grid-family dungeon: its rooms' cells (what tools snap to,
        cells and their edges), not a mm grid."""
        painter.setPen(QPen(QColor(30, 136, 229, 70), 0))
        x0, y0 = grid.origin_mm
        width, height = grid.columns * grid.cell_mm, grid.rows * grid.cell_mm
        for column in range(grid.columns + 1):
            x = x0 + column * grid.cell_mm
            painter.drawLine(QPointF(x, y0), QPointF(x, y0 + height))
        for row in range(grid.rows + 1):
            y = y0 + row * grid.cell_mm
            painter.drawLine(QPointF(x0, y), QPointF(x0 + width, y))

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        super().drawForeground(painter, rect)
        dungeon = getattr(getattr(self.scene(), "document", None), "dungeon", None)
        if self.show_grid and getattr(dungeon, "family", "") == "grid":
            self._draw_cells(painter, dungeon.grid)
        elif self.show_grid and self.grid_step_mm > 0:
            step = self.grid_step_mm
            while step * self.transform().m11() < 6:  # keep at least 6 px between grid lines
                step *= 2
            pen = QPen(QColor(30, 136, 229, 45), 0)
            painter.setPen(pen)
            left = int(rect.left() // step) * step
            top = int(rect.top() // step) * step
            x = left
            while x <= rect.right():
                painter.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
                x += step
            y = top
            while y <= rect.bottom():
                painter.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
                y += step
        if self.tool is not None:
            self.tool.paint_overlay(self, painter)
