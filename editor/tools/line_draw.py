"""Line-family drawing tools: rooms and corridors, walls and doors.

**Room** and **Corridor** (:class:`AreaTool`, RULES.md 2, Sheet: areas separated by walls):
press, drag and release for a rectangle; or click point after point for a polygon, closed by
clicking the first point again, by a double-click or by Enter. **Wall** (:class:`WallTool`): a
polyline by clicks, finished by a double-click or Enter (a drag draws one straight wall). Both
draw through :class:`PointsTool`. **Door** (:class:`DoorTool`, RULES.md 2, locked doors): drag
along a wall or the edge two areas share; a plain click makes a 12 mm door centred there.
Each makes one :class:`editor.dungeon.edits.AddObjects` edit, or refuses with a message.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPolygonF
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QWidget

from editor.dungeon.edits import AddObjects, new_id
from editor.tools.catalogue import DRAG_START_PX, SNAP_PX, CanvasContext
from editor.tools.line_base import (
    BACK_KEYS,
    ENTER_KEYS,
    PREVIEW_COLOUR,
    LineTool,
    cosmetic_pen,
    draw_cross,
    draw_handles,
    hint_label,
    is_left,
    is_valid,
    left_held,
    qpoint,
    screen_distance,
)
from editor.tools.line_geometry import (
    SAME_POINT_MM,
    distinct_points,
    nearest_edge,
    nearest_on_segment,
    outlines_of,
    polygon_refusal,
    polyline_refusal,
    project_on_line,
    rounded,
)
from inkcrawl.model import SKELETON_LOCK, Area, Element, Point, Wall

#: Length of a door made by a plain click, in mm (the bundled dungeons' doors are 12 mm).
DEFAULT_DOOR_MM = 12.0
#: A dragged door shorter than this (mm) is refused.
MIN_DOOR_MM = 1.0


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
        return bool(self.points) and event.key() in BACK_KEYS + ENTER_KEYS

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if not is_left(event) or not self.ready():
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
        if self._press is not None and left_held(event) and not self.points:
            if (
                self._drag_end is not None
                or math.dist((pos.x(), pos.y()), (self._press.x(), self._press.y())) * view.transform().m11()
                >= DRAG_START_PX
            ):
                self._drag_end = point
        self.update_view()
        return busy

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if not is_left(event) or self._press is None:
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
        if not is_left(event):
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
        if key in ENTER_KEYS and self.points:
            self.finish()
            return True
        if key in BACK_KEYS and self.points:
            self.points.pop()
            self.update_view()
            return True
        return super().key_press(view, event)

    def click(self, view, point: Point, raw: Point) -> None:
        """A click at ``point`` (snapped; ``raw`` unsnapped): add a point, or close the outline
        when it hits the first point."""
        on_first = self.points and (
            screen_distance(view, raw, self.points[0]) <= SNAP_PX or math.dist(point, self.points[0]) <= SAME_POINT_MM
        )
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
        painter.setPen(cosmetic_pen(PREVIEW_COLOUR, 1.5))
        painter.setBrush(QBrush(QColor(30, 136, 229, 30)))
        if self._drag_end is not None and self._press_point is not None:
            shape = self.drag_shape(self._press_point, self._drag_end)
            if self.closed:
                painter.drawPolygon(QPolygonF([qpoint(p) for p in shape]))
            else:
                painter.drawPolyline(QPolygonF([qpoint(p) for p in shape]))
        elif self.points:
            chain = list(self.points) + ([self._hover] if self._hover is not None else [])
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPolyline(QPolygonF([qpoint(p) for p in chain]))
            if self.closed and len(chain) >= 3:
                painter.setPen(cosmetic_pen(PREVIEW_COLOUR, 1, dash=True))
                painter.drawLine(qpoint(chain[-1]), qpoint(chain[0]))
            draw_handles(view, painter, self.points, active=0 if self.closed else None)
        if self._hover is not None:
            draw_cross(view, painter, self._hover)
        painter.restore()


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
        return hint_label(
            f"Drag for a rectangular {self.kind}, or click its corners and click the first one again "
            "(or double-click, or Enter); Backspace takes back a corner; Alt places freely"
        )


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
        return hint_label(
            "Click the wall's points, double-click or Enter to finish; drag for one straight wall; "
            "Backspace takes back a point"
        )


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
        if not is_left(event) or not self.ready():
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
        if self._start is None or not left_held(event):
            return False
        if not self._moving and screen_distance(view, (pos.x(), pos.y()), self._press) < DRAG_START_PX:
            return True
        self._moving = True
        self._end = self._end_point(pos, event.modifiers())
        self.update_view()
        return True

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if not is_left(event) or self._start is None:
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
        pen = cosmetic_pen(PREVIEW_COLOUR, 5)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        painter.drawLine(qpoint(self._start), qpoint(end))
        draw_handles(view, painter, [self._start, end])
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
            box.setToolTip(
                "Any key opens a skeleton lock" if lock == SKELETON_LOCK else f"A {lock} key opens this lock"
            )
            box.toggled.connect(self._locks_toggled)
            layout.addWidget(box)
            self.lock_boxes[lock] = box
        layout.addWidget(QLabel("(one key per lock; up to 4)"))
        return widget

    def _locks_toggled(self, _on: bool) -> None:
        self.set_locks([lock for lock, box in self.lock_boxes.items() if is_valid(box) and box.isChecked()])


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
