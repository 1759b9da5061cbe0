"""What every line-family canvas tool shares: :class:`LineTool` and the helpers of the tools.

:class:`LineTool` checks the family, snaps with the window's settings (vertices, then walls
and outlines, then the mm grid; Alt places freely), keeps each tool's options for the session
and claims the keys a gesture needs from the window's shortcuts. The helpers draw the
previews (cosmetic pens, vertex handles, the pointer's cross), read mouse buttons and make the
Tool Options hint. The tools are in :mod:`editor.tools.line_draw`,
:mod:`editor.tools.line_vertices` and :mod:`editor.tools.line_elements`; the catalogue in
:mod:`editor.tools.line`.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QLabel

from editor.tools.catalogue import CanvasContext, Tool
from editor.tools.line_geometry import grid_point_on_segment, nearest_edge, outlines_of, rounded
from editor.tools.snapping import snap_point
from inkcrawl.model import Point

#: Colour of drawing previews and vertex handles (a screen colour; it never prints).
PREVIEW_COLOUR = QColor("#1e88e5")
#: Side of a vertex handle, in screen pixels.
HANDLE_PX = 8


def cosmetic_pen(colour: QColor, width: float = 1.5, dash: bool = False) -> QPen:
    pen = QPen(colour, width)
    pen.setCosmetic(True)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def qpoint(p: Point) -> QPointF:
    return QPointF(p[0], p[1])


def screen_distance(view, a: Point, b: Point) -> float:
    return math.dist(a, b) * view.transform().m11()


def is_valid(widget) -> bool:
    try:
        from shiboken6 import isValid
    except ImportError:  # pragma: no cover - shiboken ships with PySide6
        return widget is not None
    return widget is not None and isValid(widget)


class _KeyClaim(QObject):
    """Event filter on the canvas view that keeps keys the active tool needs (Backspace,
    Delete, Enter) from triggering the window's shortcuts while a gesture is in progress."""

    def __init__(self, tool: LineTool, parent: QObject):
        super().__init__(parent)
        self.tool = tool

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and self.tool.claims_key(event):
            event.accept()
            return True
        return False


class LineTool(Tool):
    """Base of the line-family tools: family check, snapping helpers, per-tool options kept
    for the session (``options``), and keys claimed from the window's shortcuts."""

    cursor = Qt.CursorShape.CrossCursor
    #: Tool id, set by the catalogue (:data:`TOOL_SPECS`).
    tool_id = "line"

    def __init__(self, ctx: CanvasContext):
        super().__init__(ctx)
        self._claim: _KeyClaim | None = None

    # options kept while the editor runs, per tool id ---------------------------------------
    @property
    def options(self) -> dict[str, Any]:
        """This tool's options (size, colour, locks...), kept on the canvas context so they
        survive switching tools."""
        store = getattr(self.ctx, "line_tool_options", None)
        if store is None:
            store = {}
            self.ctx.line_tool_options = store
        return store.setdefault(self.tool_id, {})

    # activation and keys -----------------------------------------------------------------
    def activate(self) -> None:
        super().activate()
        view = self.ctx.view
        if view is not None:
            self._claim = _KeyClaim(self, view)
            view.installEventFilter(self._claim)

    def deactivate(self) -> None:
        super().deactivate()
        if self._claim is not None and is_valid(self._claim):
            view = self.ctx.view
            if view is not None and is_valid(view):
                view.removeEventFilter(self._claim)
            self._claim.deleteLater()
        self._claim = None

    def claims_key(self, event) -> bool:
        """Whether the key ``event`` belongs to this tool now rather than to a window shortcut."""
        return False

    # helpers -----------------------------------------------------------------------------
    def ready(self) -> bool:
        """Whether a line dungeon is open (else the tool does nothing and says why)."""
        dungeon = self.ctx.dungeon
        if dungeon is None:
            return False
        if dungeon.family != "line":
            self.ctx.status("This tool draws on line-family dungeons")
            return False
        return True

    def snap(self, pos: QPointF, modifiers, exclude: set[str] = frozenset(), to_walls: bool = True) -> Point:
        """``pos`` snapped with the window's settings, as ``ctx.snap`` does (vertices, then walls
        and outlines, then the mm grid; Alt: free), except that a point snapped onto a wall
        slides to where the wall crosses a grid line when one is within reach."""
        ctx = self.ctx
        point = (pos.x(), pos.y())
        if not ctx.snap_enabled or modifiers & Qt.KeyboardModifier.AltModifier:
            return rounded(point)
        tolerance = ctx.tolerance_mm()
        found = snap_point(
            ctx.dungeon, point, step_mm=ctx.grid_step_mm, tolerance_mm=tolerance, exclude=exclude, to_walls=to_walls
        )
        if found.target == "wall" and found.ref is not None:
            outline = next((o for o in outlines_of(ctx.dungeon) if o.ref == found.ref), None)
            if outline is not None:
                edge = nearest_edge(outline.points, found.point, outline.closed)
                if edge is not None:
                    a = outline.points[edge[0]]
                    b = outline.points[(edge[0] + 1) % len(outline.points)]
                    on_grid = grid_point_on_segment(point, a, b, ctx.grid_step_mm, tolerance)
                    if on_grid is not None:
                        return on_grid
        return tuple(found.point)

    def snap_to_grid(self, pos: QPointF, modifiers) -> Point:
        """``pos`` snapped to the mm grid only (elements sit inside areas, not on outlines)."""
        point = (pos.x(), pos.y())
        if not self.ctx.snap_enabled or modifiers & Qt.KeyboardModifier.AltModifier:
            return rounded(point)
        return tuple(
            snap_point(
                self.ctx.dungeon,
                point,
                step_mm=self.ctx.grid_step_mm,
                tolerance_mm=self.ctx.tolerance_mm(),
                to_vertices=False,
                to_walls=False,
            ).point
        )

    def update_view(self) -> None:
        if self.ctx.view is not None:
            self.ctx.view.viewport().update()


def is_left(event) -> bool:
    return event.button() == Qt.MouseButton.LeftButton


def left_held(event) -> bool:
    return bool(event.buttons() & Qt.MouseButton.LeftButton)


ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
BACK_KEYS = (Qt.Key.Key_Backspace, Qt.Key.Key_Delete)


def draw_handles(view, painter: QPainter, points, active: int | None = None) -> None:
    """Square handles of constant screen size at ``points``; ``active`` filled."""
    half = HANDLE_PX / 2 / max(view.transform().m11(), 1e-6)
    painter.setPen(cosmetic_pen(PREVIEW_COLOUR, 1.5))
    for i, (x, y) in enumerate(points):
        painter.setBrush(QBrush(PREVIEW_COLOUR if i == active else QColor("white")))
        painter.drawRect(QRectF(x - half, y - half, 2 * half, 2 * half))


def draw_cross(view, painter: QPainter, p: Point) -> None:
    half = 5 / max(view.transform().m11(), 1e-6)
    painter.setPen(cosmetic_pen(PREVIEW_COLOUR, 1))
    painter.drawLine(QPointF(p[0] - half, p[1]), QPointF(p[0] + half, p[1]))
    painter.drawLine(QPointF(p[0], p[1] - half), QPointF(p[0], p[1] + half))


def hint_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("tool_hint")
    return label
