"""The line-family Edit Vertices tool: reshape rooms, corridors, walls and doors.

Drag a vertex of a room, corridor, wall or door end (one undo step per drag; corners of other
outlines lying on it move along unless Ctrl is held); double-click an edge to add a vertex;
Alt+click a vertex, or Delete/Backspace while the pointer is on it, to remove it (an area keeps
3 vertices, a wall 2).
"""

from __future__ import annotations

import itertools
import math

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPainter, QPolygonF

from editor.dungeon.edits import EditError, EditShape, find
from editor.dungeon.line_edits import EditShapes, coincident_vertices
from editor.tools.catalogue import DRAG_START_PX, CanvasContext
from editor.tools.line_base import (
    BACK_KEYS,
    PREVIEW_COLOUR,
    LineTool,
    cosmetic_pen,
    draw_handles,
    hint_label,
    is_left,
    left_held,
    qpoint,
    screen_distance,
)
from editor.tools.line_geometry import (
    SAME_POINT_MM,
    Outline,
    grid_point_on_segment,
    nearest_edge,
    nearest_vertex,
    outlines_of,
    polygon_refusal,
)
from inkcrawl.model import Point

_DRAG_IDS = itertools.count(1)


class VertexTool(LineTool):
    """Edit the outline of an area, a wall or a door: drag a vertex (one undo step per drag;
    corners of other areas and walls lying on it move along, unless Ctrl is held at the press),
    double-click an edge to insert a vertex, Alt+click a vertex or press Delete/Backspace while
    on it to remove it (an area keeps 3 vertices, a wall 2; a door's two ends only move).

    The outline worked on is the one under the pointer; the selected (or last clicked) one
    wins where outlines meet. Handles show its vertices at a constant screen size."""

    def __init__(self, ctx: CanvasContext):
        super().__init__(ctx)
        self.focus: str | None = None  # reference of the outline shown with handles
        self.vertex: int | None = None  # its active vertex (under the pointer or last clicked)
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
                ((ref, points),) = shapes.items()
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
        return event.key() in BACK_KEYS and self.focus is not None and self.vertex is not None

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if not is_left(event) or not self.ready():
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
            self._drag = {
                "ref": outline.ref,
                "index": index,
                "key": f"vertex-{next(_DRAG_IDS)}",
                "press": (pos.x(), pos.y()),
                "moving": False,
                "linked": linked,
            }
            return True
        edge = self.edge_at(pos)
        ref = edge[0].ref if edge is not None else self._body_at(pos)
        self.vertex = None
        self._set_focus(ref)
        self.update_view()
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        drag = self._drag
        if drag is not None and left_held(event):
            if not drag["moving"]:
                if screen_distance(view, (pos.x(), pos.y()), drag["press"]) < DRAG_START_PX:
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
        if not is_left(event) or self._drag is None:
            return False
        self.cancel()
        return True

    def mouse_double_click(self, view, event, pos: QPointF) -> bool:
        if not is_left(event) or not self.ready():
            return False
        if self.vertex_at(pos) is not None:
            return True
        edge = self.edge_at(pos)
        if edge is None:
            return True
        outline, index, point = edge
        if self.ctx.snap_enabled and not event.modifiers() & Qt.KeyboardModifier.AltModifier:
            a, b = outline.points[index], outline.points[(index + 1) % len(outline.points)]
            point = (
                grid_point_on_segment((pos.x(), pos.y()), a, b, self.ctx.grid_step_mm, self.ctx.tolerance_mm()) or point
            )
        self._set_focus(outline.ref)
        self.insert_vertex(outline.ref, index, point)
        return True

    def key_press(self, view, event) -> bool:
        if event.key() in BACK_KEYS and self.focus is not None and self.vertex is not None:
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
            painter.setPen(cosmetic_pen(PREVIEW_COLOUR, 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            polygon = QPolygonF([qpoint(p) for p in outline.points])
            if outline.closed:
                painter.drawPolygon(polygon)
            else:
                painter.drawPolyline(polygon)
            draw_handles(view, painter, outline.points, self.vertex if ref == self.focus else None)
        painter.restore()

    def options_widget(self):
        return hint_label(
            "Drag a vertex; double-click an edge to add one; Alt+click a vertex, or Delete while on it, to remove it"
        )
