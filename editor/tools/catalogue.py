"""Canvas tools: the base class, the tool catalogue, and the select tool.

A tool receives the canvas's mouse and key events in sheet millimetres and turns them into
edits pushed on the document's undo stack; it never changes the model itself. Every tool is
declared by a :class:`ToolSpec` (name, single-key shortcut, family, tooltip) in one catalogue,
:func:`tool_specs`, from which the toolbar, the Tools menu and the tooltips are made
(napari's habit: commands and shortcuts declared in one place).

Family tools live in :mod:`editor.tools.line` and :mod:`editor.tools.grid`; each module
exports ``TOOL_SPECS``.
"""

from __future__ import annotations

import importlib
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from editor.dungeon.edits import EditError, MoveObjects, contents_of, on_outline
from editor.tools.snapping import snap_point
from inkcrawl.model import Area

_DRAG_IDS = itertools.count(1)
#: Pointer travel before a press becomes a drag, in screen pixels.
DRAG_START_PX = 4
#: A press this close to a room's outline, in screen pixels, grabs the room (further in, a drag
#: draws a rubber band); as close to its centre handle, too.
OUTLINE_GRAB_PX = 5
HANDLE_PX = 6
#: What the status bar says about dragging inside a room.
ROOM_DRAG_HINT = (
    "Drag inside a room draws a selection rectangle; drag its outline or its centre handle, "
    "or Alt+drag, to move it with everything inside"
)
#: Snapping tolerance in screen pixels.
SNAP_PX = 8


class CanvasContext:
    """What a tool works with: the window's current ``document``, ``scene`` and ``view``,
    the snapping settings (``snap_enabled``, ``grid_step_mm``) and ``status(text)`` to show
    a message. The main window keeps one and updates it when the current dungeon changes."""

    def __init__(self, status: Callable[[str], None] = lambda text: None):
        self.document = None
        self.scene = None
        self.view = None
        self.snap_enabled = True
        self.grid_step_mm = 5.0
        self.status = status
        self.clipboard: list = []

    @property
    def dungeon(self):
        """The current dungeon model (read it; change it only through edits)."""
        return self.document.dungeon if self.document is not None else None

    def tolerance_mm(self, px: float = SNAP_PX) -> float:
        """``px`` screen pixels in sheet mm at the current zoom."""
        scale = self.view.transform().m11() if self.view is not None else 4.0
        return px / max(scale, 1e-6)

    def snap(
        self,
        pos: QPointF,
        exclude: set[str] = frozenset(),
        to_walls: bool = True,
        modifiers=Qt.KeyboardModifier.NoModifier,
    ) -> tuple[float, float]:
        """Snap a scene point (mm) with the current settings; Alt turns snapping off for one move."""
        point = (pos.x(), pos.y())
        if not self.snap_enabled or modifiers & Qt.KeyboardModifier.AltModifier:
            return (round(point[0], 3), round(point[1], 3))
        return snap_point(
            self.dungeon,
            point,
            step_mm=self.grid_step_mm,
            tolerance_mm=self.tolerance_mm(),
            exclude=exclude,
            to_walls=to_walls,
        ).point

    def push(self, edit) -> bool:
        """Push an edit on the current document; show the reason and return ``False`` if it
        cannot be made."""
        try:
            self.document.push(edit)
        except EditError as exc:
            self.status(str(exc))
            return False
        return True


@dataclass(frozen=True)
class ToolSpec:
    """A tool in the catalogue: ``name`` (menu text), ``key`` (single-key shortcut),
    ``family`` (``grid``, ``line`` or ``both``), ``tooltip``, and ``factory(ctx)`` making it."""

    id: str
    name: str
    key: str
    family: str
    tooltip: str
    factory: Callable[[CanvasContext], Tool]


class Tool:
    """Base of canvas tools. Event methods get the view, the Qt event and the scene point
    (mm); they return ``True`` when they handled the event. ``paint_overlay`` draws
    transient feedback (rubber band, polygon in progress) in scene coordinates."""

    cursor = Qt.CursorShape.ArrowCursor

    def __init__(self, ctx: CanvasContext):
        self.ctx = ctx

    def activate(self) -> None:
        """Called when the tool becomes the active one."""
        if self.ctx.view is not None:
            self.ctx.view.viewport().setCursor(self.cursor)

    def deactivate(self) -> None:
        """Called when another tool takes over; drop any half-made object."""
        self.cancel()

    def cancel(self) -> None:
        """Abandon what is in progress (Escape, undo during a gesture, switching dungeons)."""

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        return False

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        return False

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        return False

    def mouse_double_click(self, view, event, pos: QPointF) -> bool:
        return False

    _pushing = False
    _watched_stack = None

    def watch_undo_stack(self) -> None:
        """Call when a gesture (drag, polygon) starts: from then on an undo or redo that the
        tool did not push itself (``_pushing`` unset) calls :meth:`undo_during_gesture`, so
        Ctrl+Z in the middle of a drag ends it safely instead of editing on top of the undo."""
        stack = self.ctx.document.undo_stack
        if stack is self._watched_stack:
            return
        if self._watched_stack is not None:
            try:
                self._watched_stack.indexChanged.disconnect(self._undo_stack_moved)
            except (RuntimeError, TypeError):
                pass
        stack.indexChanged.connect(self._undo_stack_moved)
        self._watched_stack = stack

    def _undo_stack_moved(self, _index: int) -> None:
        if not self._pushing:
            self.undo_during_gesture()

    def undo_during_gesture(self) -> None:
        """An undo or redo happened while the tool was watching (see :meth:`watch_undo_stack`):
        end any gesture in progress without another edit."""

    def key_press(self, view, event) -> bool:
        if event.key() == Qt.Key.Key_Escape:
            self.cancel()
            view.viewport().update()
            return True
        return False

    def pointer_left(self, view) -> None:
        """The pointer left the canvas: drop any hover feedback."""

    def paint_overlay(self, view, painter: QPainter) -> None:
        """Draw transient feedback over the scene (scene coordinates, mm)."""

    def options_widget(self):
        """A widget with the tool's options (kind, colour, letter...), shown in the window's
        Tool Options bar while the tool is active; ``None`` for none. Made anew each time."""
        return None


def _distance_px(view, a: QPointF, b: QPointF) -> float:
    scale = view.transform().m11()
    return math.hypot(a.x() - b.x(), a.y() - b.y()) * scale


def anchor_point(obj) -> tuple[float, float] | None:
    """The point of an object that snaps while it is dragged: an element's centre, a door's
    first end, the first vertex of an area or wall."""
    for attribute in ("at",):
        value = getattr(obj, attribute, None)
        if value is not None:
            return value
    segment = getattr(obj, "segment", None)
    if segment:
        return segment[0]
    for attribute in ("polygon", "points"):
        value = getattr(obj, attribute, None)
        if value:
            return value[0]
    return None


def area_handle(area: Area) -> tuple[float, float]:
    """The centre handle of a room or corridor: the mean of its vertices."""
    xs = [p[0] for p in area.polygon]
    ys = [p[1] for p in area.polygon]
    return (sum(xs) / len(xs), sum(ys) / len(ys))


class SelectTool(Tool):
    """Select (click; Shift+click adds or removes; drag on empty paper for a rubber band) and
    move the selection by dragging. A drag is one undo step; Escape or Ctrl+Z during a drag
    ends it safely. Grid features move by whole rooms.

    As in Tiled, a drag that starts inside a room (not on anything in it) draws a rubber band;
    a drag on the room's outline, on its centre handle or with Alt moves the room, and with it
    everything inside it (elements, walls, doors on its outline) and the corridor vertices
    joined to its outline: one undo step. A click inside a room still selects it."""

    def __init__(self, ctx: CanvasContext):
        super().__init__(ctx)
        self._press: QPointF | None = None
        self._band: QRectF | None = None
        self._dragging = False
        self._drag_key: str | None = None
        self._applied = (0.0, 0.0)
        self._anchor: tuple[float, float] | None = None
        self._refs: list[str] = []
        self._joined: dict[str, list[int]] = {}
        self._room_click = None  # the room whose interior was pressed (a click selects it)
        self._pushing = False

    def undo_during_gesture(self) -> None:
        if not self._pushing and self._press is not None:
            self.cancel()  # an undo or redo happened during the gesture: end it without another edit

    def cancel(self) -> None:
        if self._dragging and self.ctx.scene is not None:
            self.ctx.scene.set_dragging(False)
        self._press = None
        self._band = None
        self._room_click = None
        self._dragging = False
        self._drag_key = None
        if self.ctx.view is not None:
            self.ctx.view.viewport().update()

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if event.button() != Qt.MouseButton.LeftButton or self.ctx.document is None:
            return False
        self.watch_undo_stack()
        scene = self.ctx.scene
        shift = bool(event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier))
        hits = scene.object_items_at(pos)
        locked = scene.locked_item_at(pos)
        if locked is not None:
            self.ctx.status(
                f"Another object shares the id '{locked.ref}': it cannot be selected until ids are renumbered "
                "(Dungeon > Renumber Duplicate Ids)"
            )
        self._press = pos
        outline = self._outline_at(view, pos)
        if outline is not None and (not hits or isinstance(hits[0].obj, Area)):
            hits = [outline]  # on a room's outline, inside or just outside it: the room
        if hits:
            item = hits[0]
            if shift:
                item.setSelected(not item.isSelected())
                self._press = None
            elif isinstance(item.obj, Area) and not self._grabs_room(view, item, pos, event.modifiers()):
                self._room_click = item
                self._band = QRectF(pos, pos)
                self.ctx.status(ROOM_DRAG_HINT)
                return True
            elif not item.isSelected():
                scene.select_refs([item.ref])
            self._anchor = anchor_point(item.obj)
        else:
            if not shift:
                scene.clearSelection()
            self._band = QRectF(pos, pos)
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        if self._press is None or not (event.buttons() & Qt.MouseButton.LeftButton):
            return False
        if self._band is not None:
            if self._room_click is not None:
                if _distance_px(view, pos, self._press) < DRAG_START_PX:
                    return True
                self._room_click = None  # a drag, not a click: a rubber band from inside the room
                if not (event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier)):
                    self.ctx.scene.clearSelection()
            self._band = QRectF(self._press, pos).normalized()
            view.viewport().update()
            return True
        if not self._dragging:
            if _distance_px(view, pos, self._press) < DRAG_START_PX:
                return True
            self._refs = [r for r in self.ctx.scene.selected_refs() if not r.startswith("passage:")]
            if not self._refs:
                return True
            inside, self._joined = contents_of(self.ctx.dungeon, self._refs)
            if inside or self._joined:
                self._refs += inside
                self.ctx.status(
                    f"Moving with {len(inside)} object(s) inside and {len(self._joined)} joined corridor(s)"
                )
            self._dragging = True
            self._drag_key = f"drag-{next(_DRAG_IDS)}"
            self._applied = (0.0, 0.0)
            self.ctx.scene.set_dragging(True)
        dx, dy = self._delta(pos, event.modifiers())
        step = (dx - self._applied[0], dy - self._applied[1])
        if step != (0.0, 0.0) and step != (0, 0):
            self._pushing = True
            try:
                ok = self.ctx.push(
                    MoveObjects(
                        self.ctx.dungeon,
                        self._refs,
                        step[0],
                        step[1],
                        merge_key=self._drag_key,
                        joined=self._joined,
                    )
                )
            finally:
                self._pushing = False
            if ok:
                self._applied = (dx, dy)
        return True

    def _delta(self, pos: QPointF, modifiers) -> tuple[float, float]:
        raw = (pos.x() - self._press.x(), pos.y() - self._press.y())
        dungeon = self.ctx.dungeon
        if dungeon.family == "grid":
            cell = dungeon.grid.cell_mm
            return (float(round(raw[0] / cell)), float(round(raw[1] / cell)))
        if self._anchor is None:
            return (round(raw[0], 3), round(raw[1], 3))
        target = self.ctx.snap(
            QPointF(self._anchor[0] + raw[0], self._anchor[1] + raw[1]),
            exclude=set(self._refs) | set(self._joined),
            modifiers=modifiers,
        )
        return (round(target[0] - self._anchor[0], 3), round(target[1] - self._anchor[1], 3))

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if event.button() != Qt.MouseButton.LeftButton or self._press is None:
            return False
        if self._room_click is not None:  # a click inside a room selects it
            if shiboken6.isValid(self._room_click) and self._room_click.scene() is self.ctx.scene:
                self.ctx.scene.select_refs([self._room_click.ref])
            self.cancel()
            return True
        if self._band is not None:
            rect = self._band
            add = bool(event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier))
            if max(rect.width(), rect.height()) * view.transform().m11() >= DRAG_START_PX:
                refs = [
                    item.ref
                    for item in self.ctx.scene.items(rect, Qt.ItemSelectionMode.IntersectsItemShape)
                    if hasattr(item, "ref")
                ]
                self.ctx.scene.select_refs(refs, add=add)
            view.viewport().update()
        self.cancel()
        return True

    def _outline_at(self, view, pos: QPointF):
        """The topmost room or corridor whose outline passes within :data:`OUTLINE_GRAB_PX` of
        ``pos``, or ``None``."""
        tolerance = OUTLINE_GRAB_PX / max(view.transform().m11(), 1e-6)
        near = QRectF(pos.x() - tolerance, pos.y() - tolerance, 2 * tolerance, 2 * tolerance)
        for item in self.ctx.scene.items(near):
            obj = getattr(item, "obj", None)
            if (
                isinstance(obj, Area)
                and not item.locked
                and obj.polygon
                and on_outline((pos.x(), pos.y()), obj.polygon, tolerance)
            ):
                return item
        return None

    def _grabs_room(self, view, item, pos: QPointF, modifiers) -> bool:
        """Whether a press at ``pos`` on room ``item`` grabs it (and says how in the status bar):
        on its outline, on its centre handle, or with Alt."""
        area = item.obj
        scale = view.transform().m11()
        point = (pos.x(), pos.y())
        if modifiers & Qt.KeyboardModifier.AltModifier:
            self.ctx.status(f"Alt: moving {area.kind} '{area.id}' from inside it")
            return True
        if on_outline(point, area.polygon, OUTLINE_GRAB_PX / scale):
            self.ctx.status(f"Moving {area.kind} '{area.id}' by its outline")
            return True
        handle = area_handle(area)
        if math.hypot(point[0] - handle[0], point[1] - handle[1]) * scale <= HANDLE_PX:
            self.ctx.status(f"Moving {area.kind} '{area.id}' by its handle")
            return True
        return False

    def paint_overlay(self, view, painter: QPainter) -> None:
        scene = self.ctx.scene
        if scene is not None:
            size = HANDLE_PX / max(view.transform().m11(), 1e-6)
            pen = QPen(QColor("#1e88e5"), 1)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(QBrush(QColor("#ffffff")))
            for item in scene.selectedItems():
                if isinstance(getattr(item, "obj", None), Area) and item.obj.polygon:
                    x, y = area_handle(item.obj)
                    painter.drawRect(QRectF(x - size / 2, y - size / 2, size, size))
        if self._band is not None:
            pen = QPen(QColor("#1e88e5"), 1)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(QBrush(QColor(30, 136, 229, 35)))
            painter.drawRect(self._band)


def _select_spec() -> ToolSpec:
    return ToolSpec(
        "select",
        "Select",
        "V",
        "both",
        "Select and move: click, Shift+click to add, drag on empty paper for a rubber band",
        SelectTool,
    )


#: Modules that export ``TOOL_SPECS`` for the family tools.
TOOL_MODULES = ("editor.tools.grid", "editor.tools.line")


def tool_specs(family: str, ruleset=None) -> list[ToolSpec]:
    """Every tool for a family (``grid`` or ``line``), the select tool first; with a
    ``ruleset`` of the family, one placement tool per element kind it defines (a module may
    export ``tool_specs_for(ruleset)`` besides its ``TOOL_SPECS``)."""
    specs = [_select_spec()]
    for name in TOOL_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        found = getattr(module, "TOOL_SPECS", [])
        if ruleset is not None and ruleset.family == family and hasattr(module, "tool_specs_for"):
            found = module.tool_specs_for(ruleset)
        specs += [spec for spec in found if spec.family in (family, "both")]
    return specs
