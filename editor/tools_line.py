"""Line-family canvas tools: rooms, corridors, walls, vertex editing, doors and every element.

Each tool turns mouse and keyboard input (sheet millimetres, y down) into one edit of
:mod:`editor.edits` pushed on the document's undo stack; none changes the model itself.

- **Room** and **Corridor** (RULES.md 2, Sheet: areas separated by walls): press, drag and
  release for a rectangle; or click point after point for a polygon, closed by clicking the
  first point again, by a double-click or by Enter. Backspace takes back the last point,
  Escape abandons the outline. Degenerate outlines (fewer than 3 distinct points, no surface,
  crossing itself) are refused with a message.
- **Wall**: a polyline by clicks, finished by a double-click or Enter (a drag draws one
  straight wall).
- **Edit Vertices**: drag a vertex of a room, corridor, wall or door end (one undo step per
  drag); double-click an edge to add a vertex; Alt+click a vertex, or Delete/Backspace while
  the pointer is on it, to remove it (an area keeps 3 vertices, a wall 2).
- **Door** (RULES.md 2, locked doors): drag along a wall or the edge two areas share; a plain
  click makes a 12 mm door centred there. Its locks (key colours and ``skeleton``, several
  allowed) are chosen in the Tool Options bar.
- One placement tool per element kind of the line rules (monster, boss, spell, treasure,
  artifact stone, plant, orb, key, skeleton key, prisoner, portal entry and exit, escape
  portal, Start, exit, label): a click places the element centred at the snapped point.
  Artifact stones take the next free number; labels ask for their text through
  :meth:`LabelTool.ask_text` (a seam tests replace).

Snapping follows the window's settings (``ctx.snap``: vertices, then walls and outlines, then
the mm grid; Alt places freely). Elements snap to the grid only, except Starts, which snap onto
outer walls where they belong.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QSpinBox,
    QWidget,
)

from editor.edits import AddObjects, EditError, EditShape, find, new_id
from editor.line_edits import EditShapes, coincident_vertices
from editor.line_geometry import (
    SAME_POINT_MM,
    Outline,
    distinct_points,
    grid_point_on_segment,
    nearest_edge,
    nearest_on_segment,
    nearest_vertex,
    next_stone_number,
    outlines_of,
    polygon_refusal,
    polyline_refusal,
    project_on_line,
    rounded,
    tidy_number,
)
from editor.snapping import snap_point
from editor.tools import DRAG_START_PX, SNAP_PX, CanvasContext, Tool, ToolSpec
from exporters import style
from inkcrawl.kinds import ElementKind as KindDefinition
from inkcrawl.model import SKELETON_LOCK, Area, Element, Point, Wall
from inkcrawl.rulesets import bundled_rulesets

#: Colour of drawing previews and vertex handles (a screen colour; it never prints).
PREVIEW_COLOUR = QColor("#1e88e5")
#: Side of a vertex handle, in screen pixels.
HANDLE_PX = 8
#: Length of a door made by a plain click, in mm (the bundled dungeons' doors are 12 mm).
DEFAULT_DOOR_MM = 12.0
#: A dragged door shorter than this (mm) is refused.
MIN_DOOR_MM = 1.0
#: The id pattern of the dungeon schema (portal channels are ids).
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Channel colours offered besides the letters A-Z (any id may be typed).
CHANNEL_COLOURS = ("red", "green", "blue", "yellow", "pink", "purple", "orange")
_DRAG_IDS = itertools.count(1)


def _cosmetic(colour: QColor, width: float = 1.5, dash: bool = False) -> QPen:
    pen = QPen(colour, width)
    pen.setCosmetic(True)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def _qpoint(p: Point) -> QPointF:
    return QPointF(p[0], p[1])


def _screen_distance(view, a: Point, b: Point) -> float:
    return math.dist(a, b) * view.transform().m11()


def _is_valid(widget) -> bool:
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
        if self._claim is not None and _is_valid(self._claim):
            view = self.ctx.view
            if view is not None and _is_valid(view):
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
        found = snap_point(ctx.dungeon, point, step_mm=ctx.grid_step_mm, tolerance_mm=tolerance,
                           exclude=exclude, to_walls=to_walls)
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
        return tuple(snap_point(self.ctx.dungeon, point, step_mm=self.ctx.grid_step_mm,
                                tolerance_mm=self.ctx.tolerance_mm(), to_vertices=False, to_walls=False).point)

    def update_view(self) -> None:
        if self.ctx.view is not None:
            self.ctx.view.viewport().update()


def _left(event) -> bool:
    return event.button() == Qt.MouseButton.LeftButton


def _left_held(event) -> bool:
    return bool(event.buttons() & Qt.MouseButton.LeftButton)


_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
_BACK_KEYS = (Qt.Key.Key_Backspace, Qt.Key.Key_Delete)


class PointsTool(LineTool):
    """Base of the tools that draw an outline point by point (areas and walls).

    ``points`` are the points placed so far (snapped, mm). A press-drag-release before the
    first point makes :meth:`drag_shape`; clicks add points; :meth:`finish` makes the edit.
    """

    #: Whether the outline is closed (an area) or open (a wall).
    closed = True

    def __init__(self, ctx: CanvasContext):
        super().__init__(ctx)
        self.points: list[Point] = []
        self._press: QPointF | None = None
        self._press_point: Point | None = None
        self._drag_end: Point | None = None
        self._hover: Point | None = None

    def cancel(self) -> None:
        self.points = []
        self._press = None
        self._press_point = None
        self._drag_end = None
        self.update_view()

    def claims_key(self, event) -> bool:
        return bool(self.points) and event.key() in _BACK_KEYS + _ENTER_KEYS

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or not self.ready():
            return False
        self._press = pos
        self._press_point = self.snap(pos, event.modifiers())
        self._drag_end = None
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        if self.ctx.dungeon is None or self.ctx.dungeon.family != "line":
            return False
        point = self.snap(pos, event.modifiers())
        self._hover = point
        busy = bool(self.points) or self._press is not None
        if self._press is not None and _left_held(event) and not self.points:
            if self._drag_end is not None or math.dist((pos.x(), pos.y()), (self._press.x(), self._press.y())) \
                    * view.transform().m11() >= DRAG_START_PX:
                self._drag_end = point
        self.update_view()
        return busy

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or self._press is None:
            return False
        start, end = self._press_point, self._drag_end
        press = self._press
        self._press = self._press_point = self._drag_end = None
        if end is not None:
            end = self.snap(pos, event.modifiers())
            self.commit(self.drag_shape(start, end))
        else:
            self.click(view, start, (press.x(), press.y()))
        self.update_view()
        return True

    def mouse_double_click(self, view, event, pos: QPointF) -> bool:
        if not _left(event):
            return False
        if self._press is not None and self._drag_end is None:
            # a double-click whose first release never came: take its press as a click
            point, press = self._press_point, self._press
            self._press = self._press_point = None
            self.click(view, point, (press.x(), press.y()))
        if not self.points:
            return False
        self.finish()
        return True

    def key_press(self, view, event) -> bool:
        key = event.key()
        if key in _ENTER_KEYS and self.points:
            self.finish()
            return True
        if key in _BACK_KEYS and self.points:
            self.points.pop()
            self.update_view()
            return True
        return super().key_press(view, event)

    def click(self, view, point: Point, raw: Point) -> None:
        """A click at ``point`` (snapped; ``raw`` unsnapped): add a point, or close the outline
        when it hits the first point."""
        on_first = self.points and (_screen_distance(view, raw, self.points[0]) <= SNAP_PX
                                    or math.dist(point, self.points[0]) <= SAME_POINT_MM)
        if self.closed and len(self.points) >= 3 and on_first:
            self.finish()
            return
        if not self.points or math.dist(self.points[-1], point) > SAME_POINT_MM:
            self.points.append(point)

    def finish(self) -> None:
        """Make the outline drawn so far (refused with a message when degenerate)."""
        if self.commit(self.points, keep_on_refusal=True):
            self.cancel()

    def drag_shape(self, start: Point, end: Point) -> list[Point]:  # pragma: no cover - interface
        raise NotImplementedError

    def commit(self, points: list[Point], keep_on_refusal: bool = False) -> bool:  # pragma: no cover
        raise NotImplementedError

    def paint_overlay(self, view, painter: QPainter) -> None:
        painter.save()
        painter.setPen(_cosmetic(PREVIEW_COLOUR, 1.5))
        painter.setBrush(QBrush(QColor(30, 136, 229, 30)))
        if self._drag_end is not None and self._press_point is not None:
            shape = self.drag_shape(self._press_point, self._drag_end)
            if self.closed:
                painter.drawPolygon(QPolygonF([_qpoint(p) for p in shape]))
            else:
                painter.drawPolyline(QPolygonF([_qpoint(p) for p in shape]))
        elif self.points:
            chain = list(self.points) + ([self._hover] if self._hover is not None else [])
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPolyline(QPolygonF([_qpoint(p) for p in chain]))
            if self.closed and len(chain) >= 3:
                painter.setPen(_cosmetic(PREVIEW_COLOUR, 1, dash=True))
                painter.drawLine(_qpoint(chain[-1]), _qpoint(chain[0]))
            _draw_handles(view, painter, self.points, active=0 if self.closed else None)
        if self._hover is not None:
            _draw_cross(view, painter, self._hover)
        painter.restore()


def _draw_handles(view, painter: QPainter, points, active: int | None = None) -> None:
    """Square handles of constant screen size at ``points``; ``active`` filled."""
    half = HANDLE_PX / 2 / max(view.transform().m11(), 1e-6)
    painter.setPen(_cosmetic(PREVIEW_COLOUR, 1.5))
    for i, (x, y) in enumerate(points):
        painter.setBrush(QBrush(PREVIEW_COLOUR if i == active else QColor("white")))
        painter.drawRect(QRectF(x - half, y - half, 2 * half, 2 * half))


def _draw_cross(view, painter: QPainter, p: Point) -> None:
    half = 5 / max(view.transform().m11(), 1e-6)
    painter.setPen(_cosmetic(PREVIEW_COLOUR, 1))
    painter.drawLine(QPointF(p[0] - half, p[1]), QPointF(p[0] + half, p[1]))
    painter.drawLine(QPointF(p[0], p[1] - half), QPointF(p[0], p[1] + half))


class AreaTool(PointsTool):
    """Draw a room or corridor (``kind``): a rectangle by press-drag-release, or a polygon by
    clicks closed on its first point, by a double-click or by Enter."""

    closed = True

    def __init__(self, ctx: CanvasContext, kind: str):
        super().__init__(ctx)
        self.kind = kind

    def drag_shape(self, start: Point, end: Point) -> list[Point]:
        (x0, y0), (x1, y1) = start, end
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]

    def commit(self, points: list[Point], keep_on_refusal: bool = False) -> bool:
        polygon = distinct_points(points, closed=True)
        reason = polygon_refusal(polygon)
        if reason is not None:
            hint = " (Backspace takes back a point, Escape starts again)" if keep_on_refusal else ""
            self.ctx.status(f"No {self.kind} made: {reason}{hint}")
            return False
        dungeon = self.ctx.dungeon
        area = Area(new_id(dungeon, self.kind), self.kind, polygon)
        if self.ctx.push(AddObjects([("areas", None, area)], f"Draw {self.kind}")):
            self.ctx.status(f"Drew {self.kind} '{area.id}' ({len(polygon)} corners)")
            return True
        return False

    def options_widget(self):
        return _hint(f"Drag for a rectangular {self.kind}, or click its corners and click the first one again "
                     "(or double-click, or Enter); Backspace takes back a corner; Alt places freely")


class WallTool(PointsTool):
    """Draw an explicit wall: a polyline by clicks, finished by a double-click or Enter; a
    drag draws one straight wall. Points snap to vertices and walls."""

    closed = False

    def drag_shape(self, start: Point, end: Point) -> list[Point]:
        return [start, end]

    def commit(self, points: list[Point], keep_on_refusal: bool = False) -> bool:
        line = distinct_points(points, closed=False)
        reason = polyline_refusal(line)
        if reason is not None:
            self.ctx.status(f"No wall made: {reason}")
            return False
        wall = Wall(new_id(self.ctx.dungeon, "wall"), line)
        if self.ctx.push(AddObjects([("walls", None, wall)], "Draw wall")):
            self.ctx.status(f"Drew wall '{wall.id}' ({len(line)} points)")
            return True
        return False

    def options_widget(self):
        return _hint("Click the wall's points, double-click or Enter to finish; drag for one straight wall; "
                     "Backspace takes back a point")


def _hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("tool_hint")
    return label


class VertexTool(LineTool):
    """Edit the outline of an area, a wall or a door: drag a vertex (one undo step per drag;
    corners of other areas and walls lying on it move along, unless Ctrl is held at the press),
    double-click an edge to insert a vertex, Alt+click a vertex or press Delete/Backspace while
    on it to remove it (an area keeps 3 vertices, a wall 2; a door's two ends only move).

    The outline worked on is the one under the pointer; the selected (or last clicked) one
    wins where outlines meet. Handles show its vertices at a constant screen size."""

    def __init__(self, ctx: CanvasContext):
        super().__init__(ctx)
        self.focus: str | None = None      # reference of the outline shown with handles
        self.vertex: int | None = None     # its active vertex (under the pointer or last clicked)
        self._drag: dict | None = None
        self._pushing = False

    # state ------------------------------------------------------------------------------
    def cancel(self) -> None:
        if self._drag is not None and self.ctx.scene is not None:
            self.ctx.scene.set_dragging(False)
        self._drag = None
        self.update_view()

    def undo_during_gesture(self) -> None:
        if not self._pushing and self._drag is not None:
            self.cancel()  # undo or redo during the drag: end it without another edit

    def outline(self, ref: str | None) -> Outline | None:
        """The current outline of object ``ref`` in the model, or ``None``."""
        if ref is None or self.ctx.dungeon is None:
            return None
        try:
            return Outline.of(find(self.ctx.dungeon, ref)[2])
        except EditError:
            return None

    def _groups(self) -> list[list[Outline]]:
        every = outlines_of(self.ctx.dungeon)
        preferred = list(self.ctx.scene.selected_refs()) if self.ctx.scene is not None else []
        if self.focus and self.focus not in preferred:
            preferred.append(self.focus)
        first = [o for ref in preferred for o in every if o.ref == ref]
        return [first, [o for o in every if o.ref not in preferred]]

    def vertex_at(self, pos: QPointF) -> tuple[Outline, int] | None:
        """The outline and vertex index under ``pos`` (within 8 screen pixels)."""
        p = (pos.x(), pos.y())
        tolerance = self.ctx.tolerance_mm()
        for group in self._groups():
            best = None
            for o in group:
                found = nearest_vertex(o.points, p)
                if found is not None and found[1] <= tolerance and (best is None or found[1] < best[2]):
                    best = (o, found[0], found[1])
            if best is not None:
                return best[0], best[1]
        return None

    def edge_at(self, pos: QPointF) -> tuple[Outline, int, Point] | None:
        """The outline, edge index and nearest point of the edge under ``pos``."""
        p = (pos.x(), pos.y())
        tolerance = self.ctx.tolerance_mm()
        for group in self._groups():
            best = None
            for o in group:
                found = nearest_edge(o.points, p, o.closed)
                if found is not None and found[2] <= tolerance and (best is None or found[2] < best[3]):
                    best = (o, found[0], found[1], found[2])
            if best is not None:
                return best[0], best[1], best[2]
        return None

    def _body_at(self, pos: QPointF) -> str | None:
        if self.ctx.scene is None:
            return None
        for item in self.ctx.scene.object_items_at(pos):
            if self.outline(item.ref) is not None:
                return item.ref
        return None

    def _set_focus(self, ref: str | None) -> None:
        self.focus = ref
        if self.ctx.scene is not None:
            self.ctx.scene.select_refs([ref] if ref else [])

    # editing ----------------------------------------------------------------------------
    def _push_shape(self, ref: str, points: list[Point], text: str, merge_key: str | None = None) -> bool:
        return self._push_shapes({ref: points}, text, merge_key)

    def _push_shapes(self, shapes: dict[str, list[Point]], text: str, merge_key: str | None = None) -> bool:
        self._pushing = True
        try:
            if len(shapes) == 1 and merge_key is None:
                (ref, points), = shapes.items()
                return self.ctx.push(EditShape(self.ctx.dungeon, ref, points, text))
            return self.ctx.push(EditShapes(self.ctx.dungeon, shapes, text, merge_key=merge_key))
        except EditError as exc:
            self.ctx.status(str(exc))
            return False
        finally:
            self._pushing = False

    def remove_vertex(self, ref: str, index: int) -> bool:
        """Remove vertex ``index`` of outline ``ref`` (one undo step); ``False`` with a message
        when the outline would become too small."""
        outline = self.outline(ref)
        if outline is None or not 0 <= index < len(outline.points):
            return False
        try:
            points = outline.removed(index)
        except ValueError as exc:
            self.ctx.status(f"Vertex kept: {exc}")
            return False
        if outline.closed and polygon_refusal(points):
            self.ctx.status(f"Vertex kept: without it {polygon_refusal(points)}")
            return False
        if self._push_shape(ref, points, "Remove vertex"):
            self.vertex = None
            self.update_view()
            return True
        return False

    def insert_vertex(self, ref: str, edge: int, point: Point) -> bool:
        """Insert ``point`` on edge ``edge`` of outline ``ref`` (one undo step)."""
        outline = self.outline(ref)
        if outline is None:
            return False
        try:
            points = outline.inserted(edge, point)
        except ValueError as exc:
            self.ctx.status(str(exc))
            return False
        if self._push_shape(ref, points, "Insert vertex"):
            self.vertex = edge + 1
            self.update_view()
            return True
        return False

    # events -----------------------------------------------------------------------------
    def claims_key(self, event) -> bool:
        return event.key() in _BACK_KEYS and self.focus is not None and self.vertex is not None

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or not self.ready():
            return False
        self.watch_undo_stack()
        hit = self.vertex_at(pos)
        if hit is not None:
            outline, index = hit
            if self.focus != outline.ref:
                self._set_focus(outline.ref)
            self.vertex = index
            if event.modifiers() & Qt.KeyboardModifier.AltModifier:
                self.remove_vertex(outline.ref, index)
                return True
            detach = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier) or outline.fixed
            linked = [] if detach else coincident_vertices(self.ctx.dungeon, outline.points[index], outline.ref)
            self._drag = {"ref": outline.ref, "index": index, "key": f"vertex-{next(_DRAG_IDS)}",
                          "press": (pos.x(), pos.y()), "moving": False, "linked": linked}
            return True
        edge = self.edge_at(pos)
        ref = edge[0].ref if edge is not None else self._body_at(pos)
        self.vertex = None
        self._set_focus(ref)
        self.update_view()
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        drag = self._drag
        if drag is not None and _left_held(event):
            if not drag["moving"]:
                if _screen_distance(view, (pos.x(), pos.y()), drag["press"]) < DRAG_START_PX:
                    return True
                drag["moving"] = True
                self.ctx.scene.set_dragging(True)
            outline = self.outline(drag["ref"])
            if outline is None or drag["index"] >= len(outline.points):
                self.cancel()
                return True
            linked = drag["linked"]
            point = self.snap(pos, event.modifiers(), exclude={drag["ref"]} | {ref for ref, _ in linked})
            if math.dist(point, outline.points[drag["index"]]) > SAME_POINT_MM:
                shapes = {drag["ref"]: outline.moved(drag["index"], point)}
                for ref, index in linked:
                    other = self.outline(ref)
                    if other is not None and index < len(other.points):
                        shapes[ref] = other.moved(index, point)
                self._push_shapes(shapes, "Move vertex", drag["key"])
            self.update_view()
            return True
        if self.ctx.dungeon is None or self.ctx.dungeon.family != "line":
            return False
        hit = self.vertex_at(pos)
        if hit is not None:
            self.vertex = hit[1]
            if hit[0].ref != self.focus:
                self.focus = hit[0].ref
        elif self._drag is None:
            self.vertex = None
        self.update_view()
        return False

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or self._drag is None:
            return False
        self.cancel()
        return True

    def mouse_double_click(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or not self.ready():
            return False
        if self.vertex_at(pos) is not None:
            return True
        edge = self.edge_at(pos)
        if edge is None:
            return True
        outline, index, point = edge
        if self.ctx.snap_enabled and not event.modifiers() & Qt.KeyboardModifier.AltModifier:
            a, b = outline.points[index], outline.points[(index + 1) % len(outline.points)]
            point = grid_point_on_segment((pos.x(), pos.y()), a, b, self.ctx.grid_step_mm,
                                          self.ctx.tolerance_mm()) or point
        self._set_focus(outline.ref)
        self.insert_vertex(outline.ref, index, point)
        return True

    def key_press(self, view, event) -> bool:
        if event.key() in _BACK_KEYS and self.focus is not None and self.vertex is not None:
            self.remove_vertex(self.focus, self.vertex)
            return True
        if event.key() == Qt.Key.Key_Escape and self._drag is not None and self._drag["moving"]:
            # Escape during a drag puts the vertex back: undo the drag's one step
            stack = self.ctx.document.undo_stack
            self.cancel()
            stack.undo()
            return True
        return super().key_press(view, event)

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self.ctx.dungeon is None:
            return
        refs = ([self.focus] if self.focus else []) + (self.ctx.scene.selected_refs() if self.ctx.scene else [])
        painter.save()
        for ref in dict.fromkeys(refs):
            outline = self.outline(ref)
            if outline is None:
                continue
            painter.setPen(_cosmetic(PREVIEW_COLOUR, 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            polygon = QPolygonF([_qpoint(p) for p in outline.points])
            if outline.closed:
                painter.drawPolygon(polygon)
            else:
                painter.drawPolyline(polygon)
            _draw_handles(view, painter, outline.points, self.vertex if ref == self.focus else None)
        painter.restore()

    def options_widget(self):
        return _hint("Drag a vertex; double-click an edge to add one; Alt+click a vertex, or Delete while on it, "
                     "to remove it")


class DoorTool(LineTool):
    """Put a door on a wall or on the edge two areas share (RULES.md 2: locked, skeleton-key
    and multi-lock doors): drag along the wall from one end of the door to the other, or click
    for a 12 mm door centred there. The locks come from the Tool Options bar: key colours of
    the ruleset and ``skeleton``, one to four of them."""

    tool_id = "door"

    def __init__(self, ctx: CanvasContext):
        super().__init__(ctx)
        self._start: Point | None = None
        self._edge: tuple[Point, Point] | None = None
        self._end: Point | None = None
        self._press: Point | None = None
        self._moving = False

    @property
    def locks(self) -> list[str]:
        """The locks the next door gets (key colours or ``skeleton``)."""
        if "locks" not in self.options:
            colours = self.ctx.document.ruleset.key_colours if self.ctx.document is not None else []
            self.options["locks"] = colours[:1] or [SKELETON_LOCK]
        return list(self.options["locks"])

    def set_locks(self, locks: list[str]) -> None:
        """Choose the locks of the next doors."""
        self.options["locks"] = list(locks)

    def cancel(self) -> None:
        self._start = self._edge = self._end = self._press = None
        self._moving = False
        self.update_view()

    def _edge_near(self, p: Point) -> tuple[Point, Point] | None:
        best = None
        for o in outlines_of(self.ctx.dungeon):
            if o.fixed:
                continue
            found = nearest_edge(o.points, p, o.closed)
            if found is not None and (best is None or found[2] < best[0]):
                index = found[0]
                a = o.points[index]
                b = o.points[(index + 1) % len(o.points)]
                best = (found[2], (a, b))
        if best is None or best[0] > max(self.ctx.tolerance_mm(), 0.01):
            return None
        return best[1]

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or not self.ready():
            return False
        start = self.snap(pos, event.modifiers(), to_walls=True)
        edge = self._edge_near(start)
        if edge is None:
            self.ctx.status("A door goes on a wall: press on a wall or on the edge of an area")
            return True
        self._start = rounded(nearest_on_segment(start, *edge)[0])
        self._edge = edge
        self._press = (pos.x(), pos.y())
        self._end = None
        self._moving = False
        return True

    def _end_point(self, pos: QPointF, modifiers) -> Point:
        snapped = self.snap(pos, modifiers, to_walls=True)
        a, b = self._edge
        return rounded(nearest_on_segment(project_on_line(snapped, a, b), a, b)[0])

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        if self._start is None or not _left_held(event):
            return False
        if not self._moving and _screen_distance(view, (pos.x(), pos.y()), self._press) < DRAG_START_PX:
            return True
        self._moving = True
        self._end = self._end_point(pos, event.modifiers())
        self.update_view()
        return True

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or self._start is None:
            return False
        start, edge = self._start, self._edge
        end = self._end_point(pos, event.modifiers()) if self._moving else None
        self.cancel()
        if end is None:
            start, end = sorted(_centred_door(start, edge, DEFAULT_DOOR_MM))
        if math.dist(start, end) < MIN_DOOR_MM:
            self.ctx.status(f"No door made: drag along the wall for at least {MIN_DOOR_MM:g} mm")
            return True
        self.make_door(start, end)
        return True

    def make_door(self, start: Point, end: Point) -> bool:
        """Add a door from ``start`` to ``end`` (mm) with the chosen locks (one undo step)."""
        locks = self.locks
        known = set(self.ctx.document.ruleset.key_colours) | {SKELETON_LOCK}
        locks = [lock for lock in locks if lock in known]
        if not locks:
            self.ctx.status("No door made: choose at least one lock in the Tool Options bar")
            return False
        if len(locks) > 4:
            self.ctx.status("No door made: a door has at most 4 locks")
            return False
        if "door" not in self.ctx.document.ruleset.elements:
            self.ctx.status(f"The ruleset '{self.ctx.document.ruleset.id}' has no doors")
            return False
        door = Element(new_id(self.ctx.dungeon, "door"), "door", segment=(rounded(start), rounded(end)), locks=locks)
        if self.ctx.push(AddObjects([("elements", None, door)], "Add door")):
            self.ctx.status(f"Added door '{door.id}' ({', '.join(locks)})")
            return True
        return False

    def claims_key(self, event) -> bool:
        return False

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self._start is None:
            return
        painter.save()
        end = self._end or self._start
        pen = _cosmetic(PREVIEW_COLOUR, 5)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        painter.drawLine(_qpoint(self._start), _qpoint(end))
        _draw_handles(view, painter, [self._start, end])
        painter.restore()

    def options_widget(self):
        widget = QWidget()
        layout = QHBoxLayout(widget)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(QLabel("Locks:"))
        ruleset = self.ctx.document.ruleset if self.ctx.document is not None else None
        choices = (ruleset.key_colours if ruleset is not None else []) + [SKELETON_LOCK]
        chosen = set(self.locks) if self.ctx.document is not None else set()
        self.lock_boxes: dict[str, QCheckBox] = {}
        for lock in choices:
            box = QCheckBox(lock)
            box.setObjectName(f"lock_{lock}")
            box.setChecked(lock in chosen)
            box.setToolTip("Any key opens a skeleton lock" if lock == SKELETON_LOCK else
                           f"A {lock} key opens this lock")
            box.toggled.connect(self._locks_toggled)
            layout.addWidget(box)
            self.lock_boxes[lock] = box
        layout.addWidget(QLabel("(one key per lock; up to 4)"))
        return widget

    def _locks_toggled(self, _on: bool) -> None:
        self.set_locks([lock for lock, box in self.lock_boxes.items() if _is_valid(box) and box.isChecked()])


def _centred_door(centre: Point, edge: tuple[Point, Point], length: float) -> tuple[Point, Point]:
    """A door of ``length`` mm centred at ``centre`` along ``edge``, kept within the edge."""
    a, b = edge
    edge_length = math.dist(a, b)
    if edge_length <= length:
        return rounded(a), rounded(b)
    ux, uy = (b[0] - a[0]) / edge_length, (b[1] - a[1]) / edge_length
    t = (centre[0] - a[0]) * ux + (centre[1] - a[1]) * uy
    t = min(max(t, length / 2), edge_length - length / 2)
    start = (a[0] + ux * (t - length / 2), a[1] + uy * (t - length / 2))
    end = (a[0] + ux * (t + length / 2), a[1] + uy * (t + length / 2))
    return rounded(start), rounded(end)


@dataclass(frozen=True)
class PlacementSpec:
    """What a placement tool makes, from the ruleset's kind definition (:mod:`inkcrawl.kinds`):
    ``kind`` (ruleset element name), ``name`` (tool name), ``key`` (shortcut), ``size_mm``
    (default footprint diameter, ``None`` for labels), ``prefix`` of new ids, ``tooltip``, and
    which option the tool offers (``vp``, ``variant``, ``colour``, ``key_colour``, ``channel``,
    ``number``, ``text``), ``on_wall`` for kinds placed on the outer wall (Starts)."""

    kind: str
    name: str
    key: str
    size_mm: float | None
    prefix: str
    tooltip: str
    option: str | None = None
    on_wall: bool = False


#: Letters the fixed line tools take (Select, Room, Corridor, Edit Vertices, Wall, Door).
_FIXED_KEYS = {"V", "R", "C", "E", "W", "D"}


def _option_of(spec: KindDefinition) -> str | None:
    if spec.footprint == "text":
        return "text"
    for member in ("vp", "variant", "number", "colour", "channel"):
        if member in spec.members:
            return "key_colour" if member == "colour" and spec.uses_key_colours else member
    return None


def _tooltip(spec: KindDefinition, option: str | None) -> str:
    what = spec.name.lower()
    rule = spec.description.rstrip(".")
    hint = {
        "vp": "; set its VP in Tool Options", "variant": "; its type in Tool Options",
        "colour": "; its colour in Tool Options", "key_colour": "; its colour in Tool Options",
        "channel": "; its letter or colour in Tool Options",
        "number": ", numbered automatically (renumber: Dungeon > Renumber Artifact Stones)",
        "text": ": click, then type its text",
    }.get(option or "", "")
    where = " on the outer wall of the dungeon (snaps onto walls)" if spec.on_wall else ""
    return f"Place a {what}{where}" + (f" ({rule[:1].lower()}{rule[1:]})" if rule and option != "text" else "") + hint


def placement_specs(ruleset) -> tuple[PlacementSpec, ...]:
    """One placement tool per element kind of a line ``ruleset`` (doors have the Door tool), in
    the ruleset's order, from its kind definitions: a designer's new kind gets a tool with no
    code. A kind without a shortcut (or with one already taken) gets the first free letter of
    its name."""
    used = set(_FIXED_KEYS)
    out = []
    for spec in ruleset.kinds.values():
        if spec.footprint == "segment":
            continue
        key = spec.shortcut if spec.shortcut and spec.shortcut not in used else \
            next((c.upper() for c in spec.name + spec.kind if c.isalpha() and c.upper() not in used), "")
        used.add(key)
        option = _option_of(spec)
        out.append(PlacementSpec(spec.kind, spec.name, key, spec.size_mm if spec.footprint == "disc" else None,
                                 spec.id_prefix, _tooltip(spec, option), option, spec.on_wall))
    return tuple(out)


def _bundled_line_ruleset():
    return bundled_rulesets()["line-classic"]


#: The placement tools of the bundled line ruleset (a dungeon's own ruleset may add more).
ELEMENT_KINDS: tuple[PlacementSpec, ...] = placement_specs(_bundled_line_ruleset())


class ElementTool(LineTool):
    """Place one element of ``spec.kind`` centred at the snapped point of a click (one undo
    step). Its size and kind-specific value (boss VP, spell or treasure type, orb or key
    colour, portal channel) come from the Tool Options bar; artifact stones take the next
    free number. Elements snap to the mm grid; Starts snap onto walls."""

    def __init__(self, ctx: CanvasContext, spec: PlacementSpec):
        super().__init__(ctx)
        self.kind_spec = spec
        self.tool_id = spec.kind
        self._press = False
        self._hover: Point | None = None
        self._number_label: QLabel | None = None

    # option values ----------------------------------------------------------------------
    def _ruleset(self):
        return self.ctx.document.ruleset if self.ctx.document is not None else None

    def choices(self) -> list[str]:
        """The values the kind-specific option offers (variants, colours, channels)."""
        ruleset = self._ruleset()
        option = self.kind_spec.option
        if ruleset is None:
            return []
        if option == "variant":
            return ruleset.element_values(self.kind_spec.kind, "variants")
        if option == "colour":
            return ruleset.element_values(self.kind_spec.kind, "colours")
        if option == "key_colour":
            return ruleset.key_colours
        if option == "channel":
            return [chr(c) for c in range(ord("A"), ord("Z") + 1)] + list(CHANNEL_COLOURS)
        return []

    @property
    def size_mm(self) -> float:
        """Footprint diameter of the next element (mm)."""
        return float(self.options.get("size_mm", self.kind_spec.size_mm or 8))

    @property
    def value(self):
        """The kind-specific value of the next element (VP, variant, colour, channel, text height)."""
        if self.kind_spec.option == "vp":
            return int(self.options.get("vp", 5))
        if self.kind_spec.option == "text":
            ruleset = self._ruleset()
            minimum = ruleset.print_limits.get("min_text_mm", 0) if ruleset is not None else 0
            return float(self.options.get("text_height_mm", max(style.LABEL_MM, minimum)))
        choices = self.choices()
        default = choices[0] if choices else ""
        return self.options.get(self.kind_spec.option, default)

    def set_value(self, value) -> None:
        """Choose the kind-specific value of the next elements."""
        key = "text_height_mm" if self.kind_spec.option == "text" else self.kind_spec.option
        self.options[key] = value

    def ask_text(self, view) -> str | None:
        """Ask for a label's text; ``None`` when cancelled. Tests replace this seam."""
        text, ok = QInputDialog.getText(view, "Label", "Text of the label:")
        return text if ok else None

    # placing ----------------------------------------------------------------------------
    def point_for(self, pos: QPointF, modifiers) -> Point:
        """Where an element pressed at ``pos`` goes: on the grid, or on a wall for a Start."""
        if self.kind_spec.on_wall:
            return self.snap(pos, modifiers, to_walls=True)
        return self.snap_to_grid(pos, modifiers)

    def make(self, at: Point, view=None) -> Element | None:
        """The element to place at ``at``, or ``None`` (with a message) when it cannot be made."""
        spec = self.kind_spec
        ruleset = self._ruleset()
        if spec.kind not in ruleset.elements:
            self.ctx.status(f"The ruleset '{ruleset.id}' has no {spec.name.lower()}")
            return None
        dungeon = self.ctx.dungeon
        element = Element(new_id(dungeon, spec.prefix), spec.kind, at=rounded(at), rotation_deg=0)
        if spec.option == "text":
            text = self.ask_text(view)
            text = (text or "").strip()
            if not text:
                self.ctx.status("No label made: it needs some text")
                return None
            element.text = text[:500]
            element.text_height_mm = tidy_number(self.value)
            return element
        element.size_mm = tidy_number(self.size_mm)
        option = spec.option
        if option == "vp":
            element.vp = int(self.value)
        elif option == "number":
            element.number = next_stone_number(dungeon)
        elif option in ("variant", "colour", "key_colour", "channel"):
            value = str(self.value).strip()
            if option == "channel":
                if not _ID_PATTERN.match(value):
                    self.ctx.status("No portal made: its channel is a letter A-Z or a colour name")
                    return None
                element.channel = value
            else:
                if value not in self.choices():
                    self.ctx.status(f"No {spec.name.lower()} made: choose its {_OPTION_NAMES[option]} in Tool Options")
                    return None
                if option == "variant":
                    element.variant = value
                else:
                    element.colour = value
        return element

    def place(self, at: Point, view=None) -> bool:
        """Place an element at ``at`` (mm): one undo step."""
        element = self.make(at, view)
        if element is None:
            return False
        if not self.ctx.push(AddObjects([("elements", None, element)], f"Add {self.kind_spec.name.lower()}")):
            return False
        what = f" {element.number}" if element.number is not None else ""
        self.ctx.status(f"Added {self.kind_spec.name.lower()}{what} '{element.id}'")
        self._update_number_label()
        return True

    # events -----------------------------------------------------------------------------
    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or not self.ready():
            return False
        self._press = True
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        if self.ctx.dungeon is None or self.ctx.dungeon.family != "line":
            return False
        self._hover = self.point_for(pos, event.modifiers())
        self.update_view()
        return self._press

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if not _left(event) or not self._press:
            return False
        self._press = False
        self.place(self.point_for(pos, event.modifiers()), view)
        return True

    def cancel(self) -> None:
        self._press = False
        self.update_view()

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self._hover is None:
            return
        painter.save()
        if self.kind_spec.size_mm is not None:
            painter.setPen(_cosmetic(PREVIEW_COLOUR, 1, dash=True))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            r = self.size_mm / 2
            painter.drawEllipse(_qpoint(self._hover), r, r)
        _draw_cross(view, painter, self._hover)
        painter.restore()

    # options bar ------------------------------------------------------------------------
    def options_widget(self):
        widget = QWidget()
        layout = QHBoxLayout(widget)
        layout.setContentsMargins(4, 0, 4, 0)
        ruleset = self._ruleset()
        minimum = ruleset.print_limits.get("min_element_mm", 0.5) if ruleset is not None else 0.5
        option = self.kind_spec.option
        if option != "text":
            layout.addWidget(QLabel("Size:"))
            size = QDoubleSpinBox()
            size.setObjectName("size_mm")
            size.setRange(max(minimum, 0.5), 100.0)
            size.setDecimals(1)
            size.setSingleStep(0.5)
            size.setSuffix(" mm")
            size.setValue(self.size_mm)
            size.setToolTip(f"Diameter of the {self.kind_spec.name.lower()} (at least {minimum:g} mm to print)")
            size.valueChanged.connect(lambda v: self.options.__setitem__("size_mm", v))
            layout.addWidget(size)
        if option == "vp":
            layout.addWidget(QLabel("VP:"))
            vp = QSpinBox()
            vp.setObjectName("vp")
            vp.setRange(0, 99)
            vp.setValue(int(self.value))
            vp.setToolTip("Victory points printed on the sheet for covering this boss")
            vp.valueChanged.connect(self.set_value)
            layout.addWidget(vp)
        elif option in ("variant", "colour", "key_colour", "channel"):
            layout.addWidget(QLabel(_OPTION_NAMES[option].capitalize() + ":"))
            combo = QComboBox()
            combo.setObjectName(option)
            combo.addItems(self.choices())
            if option == "channel":
                combo.setEditable(True)
                combo.setToolTip("Portal entries and exits of the same letter or colour are linked")
                combo.setEditText(str(self.value))
                combo.currentTextChanged.connect(self.set_value)
            else:
                combo.setCurrentText(str(self.value))
                combo.currentTextChanged.connect(self.set_value)
            layout.addWidget(combo)
        elif option == "number":
            self._number_label = QLabel()
            self._number_label.setObjectName("next_number")
            self._update_number_label()
            layout.addWidget(self._number_label)
        elif option == "text":
            layout.addWidget(QLabel("Text height:"))
            height = QDoubleSpinBox()
            height.setObjectName("text_height_mm")
            text_minimum = ruleset.print_limits.get("min_text_mm", 0.5) if ruleset is not None else 0.5
            height.setRange(max(text_minimum, 0.5), 50.0)
            height.setDecimals(1)
            height.setSingleStep(0.5)
            height.setSuffix(" mm")
            height.setValue(float(self.value))
            height.setToolTip(f"Cap height of the label's text (at least {text_minimum:g} mm to print)")
            height.valueChanged.connect(self.set_value)
            layout.addWidget(height)
        return widget

    def _update_number_label(self) -> None:
        label = self._number_label
        if label is None or not _is_valid(label) or self.ctx.dungeon is None:
            return
        label.setText(f"Next number: {next_stone_number(self.ctx.dungeon)} "
                      "(Dungeon > Renumber Artifact Stones numbers them in reading order)")


_OPTION_NAMES = {"variant": "type", "colour": "colour", "key_colour": "colour", "channel": "channel"}


def _factory(tool_id: str, cls, *args) -> Callable[[CanvasContext], Tool]:
    """A tool factory for the catalogue: ``cls(ctx, *args)`` whose options are kept under ``tool_id``."""
    def make(ctx: CanvasContext) -> Tool:
        tool = cls(ctx, *args)
        tool.tool_id = tool_id
        return tool
    return make


def line_tool_specs(ruleset=None) -> list[ToolSpec]:
    """The line-family tools for the catalogue (after Select, V): the drawing tools, then one
    placement tool per element kind of ``ruleset`` (default: the bundled ``line-classic``)."""
    placements = ELEMENT_KINDS if ruleset is None else placement_specs(ruleset)
    return [
        ToolSpec("room", "Room", "R", "line", "Draw a room: drag a rectangle, or click its corners",
                 _factory("room", AreaTool, "room")),
        ToolSpec("corridor", "Corridor", "C", "line", "Draw a corridor: drag a rectangle, or click its corners",
                 _factory("corridor", AreaTool, "corridor")),
        ToolSpec("vertices", "Edit Vertices", "E", "line",
                 "Edit outlines: drag a vertex, double-click an edge to add one, Alt+click or Delete to remove one",
                 _factory("vertices", VertexTool)),
        ToolSpec("wall", "Wall", "W", "line", "Draw a wall: click its points, double-click or Enter to finish",
                 _factory("wall", WallTool)),
        ToolSpec("door", "Door", "D", "line", "Put a door on a wall: drag along the wall (locks in Tool Options)",
                 _factory("door", DoorTool)),
    ] + [ToolSpec(spec.kind, spec.name, spec.key, "line", spec.tooltip, _factory(spec.kind, ElementTool, spec))
         for spec in placements]


#: The line-family tools of the bundled ruleset, as the window's catalogue lists them.
TOOL_SPECS: list[ToolSpec] = line_tool_specs()
#: The catalogue of a dungeon's own ruleset (:func:`editor.tools.tool_specs`).
tool_specs_for = line_tool_specs

__all__ = ["AreaTool", "DoorTool", "ELEMENT_KINDS", "ElementTool", "LineTool", "PlacementSpec", "PointsTool",
           "TOOL_SPECS", "VertexTool", "WallTool", "line_tool_specs", "placement_specs"]
