"""The canvas scene: the printed sheet underneath, one selectable item per object on top.

Scene units are sheet millimetres (origin at the paper's top-left, y down), so 100 % zoom is
a matter of the view's scale only. The sheet is drawn by the exporters themselves
(:func:`exporters.sheet.render_sheet`), so the canvas shows exactly what prints; it is
re-rendered shortly after each edit. Above it, :class:`ObjectItem` subclasses give every
object a hit shape, a hover and selection outline, and a preview while it is dragged.
"""

from __future__ import annotations

import itertools
import math
import time
import weakref
from collections import OrderedDict
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QGraphicsScene, QStyleOptionGraphicsItem

from editor.canvas.sheet_worker import (
    TILE_IMAGE_PX,
    TILE_PAD_PX,
    TILE_PX,
    render_raster_sheet,
    render_svg,
    render_tiles,
    shared_worker,
    tile_level,
)
from editor.dungeon.document import DungeonDocument
from editor.dungeon.edits import duplicate_refs, objects, ref_of
from exporters import style
from exporters.qt import qt_svg_renderer
from inkcrawl.model import SIDE_OFFSETS, Area, Element, Entryway, Feature, GridDungeon, Passage, Wall

#: Colour of selection outlines and handles (a screen colour; it never prints).
SELECTION_COLOUR = QColor("#1e88e5")
HOVER_COLOUR = QColor(30, 136, 229, 110)
#: Width of selection outlines in screen pixels (cosmetic pens keep it constant at any zoom).
SELECTION_PX = 2.0


class SheetBackground(QGraphicsObject):
    """The dungeon's sheet as the exporters print it, as one item behind every object.

    Two ways to hold it:

    - **vectors** (small sheets): ``refresh(dungeon, ruleset)`` or ``show_svg`` keep a parsed
      SVG (``renderer``) drawn by Qt, cached per zoom level (device coordinate cache);
    - **images** (big sheets, drawn in the worker process, see :mod:`editor.canvas.sheet_worker`):
      ``show_raster`` keeps an ``overview`` image of the whole sheet and ``tiles`` of
      ``TILE_PX`` pixels at zoom levels (:func:`editor.canvas.sheet_worker.tile_level`); painting
      only copies images, and where a tile of the current level is missing the overview is
      drawn scaled and ``tiles_wanted`` is emitted so the scene asks the worker for it.

    When the exporters cannot lay the sheet out (e.g. a room reaches the footer), the paper
    is drawn blank and ``error`` holds the reason, shown over the canvas.
    """

    rendered = Signal()
    tiles_wanted = Signal()

    #: Memory the tiles of every open sheet together may take, in bytes: the sheets not drawn
    #: lately give theirs up first, then the least recently drawn tiles go.
    TILE_MEMORY = 160 * 1024 * 1024
    _instances: weakref.WeakSet = weakref.WeakSet()

    def __init__(self, width_mm: float, height_mm: float):
        super().__init__()
        self.width_mm = width_mm
        self.height_mm = height_mm
        self.renderer: QSvgRenderer | None = None
        self.raster_key: str | None = None
        self.overview: QImage | None = None
        self.overview_scale = 1.0
        self.tiles: OrderedDict[tuple[float, int, int], QImage] = OrderedDict()
        self.level = 0.0  # tile level of the last paint (pixels per mm)
        self.painted_at = 0.0  # time.monotonic() of the last paint from tiles
        SheetBackground._instances.add(self)
        self.error = ""
        self.render_ms = 0.0
        self.setZValue(-100)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self.width_mm, self.height_mm)

    @property
    def has_sheet(self) -> bool:
        """Whether the sheet's drawing is shown (else blank paper)."""
        return self.renderer is not None or self.overview is not None

    def refresh(self, dungeon, ruleset) -> None:
        """Render the sheet of ``dungeon`` again, in this process (about 20-50 ms for a
        typical sheet; see :class:`DungeonScene` for big ones)."""
        started = time.perf_counter()
        svg, error = render_svg(dungeon.to_dict(), ruleset.data)
        self.show_svg(dungeon.sheet.paper, svg, error)
        self.render_ms = (time.perf_counter() - started) * 1000

    def _set_paper(self, paper) -> None:
        if (paper.width_mm, paper.height_mm) != (self.width_mm, self.height_mm):
            self.prepareGeometryChange()
            self.width_mm, self.height_mm = paper.width_mm, paper.height_mm

    def _drop_raster(self) -> None:
        self.raster_key, self.overview = None, None
        self.tiles.clear()

    def show_svg(self, paper, svg: str, error: str) -> None:
        """Show a rendered sheet (``svg``) or, when ``error`` is set, blank paper and the reason."""
        self._set_paper(paper)
        renderer = qt_svg_renderer(svg) if svg else None  # text at its size
        if renderer is not None and not renderer.isValid():
            renderer, error = None, "the sheet could not be drawn"
        self.renderer = renderer
        self._drop_raster()
        self.error = error
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.update()
        self.rendered.emit()

    def show_raster(self, paper, key: str, result: dict, level: float) -> None:
        """Show a sheet drawn by the worker (:func:`editor.canvas.sheet_worker.render_raster_sheet`'s
        ``result``, kept there under ``key``, with tiles at ``level`` pixels per mm), or blank
        paper and the reason when ``result["error"]`` is set."""
        self._set_paper(paper)
        self.renderer = None
        self._drop_raster()
        self.error = result.get("error", "")
        if not self.error:
            scale, width, height, data = result["overview"]
            self.overview = image_from_worker(width, height, data)
            self.overview_scale = scale
            self.raster_key = key
            self.add_tiles(key, level, result.get("tiles", []))
        # images are copied, not drawn: caching them again would only cost memory
        self.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        self.update()
        self.rendered.emit()

    def add_tiles(self, key: str, level: float, tiles) -> None:
        """Keep ``tiles`` ((column, row, RGB32 bytes)) of sheet ``key`` at ``level``; tiles of
        another sheet are ignored (it was replaced while they were drawn)."""
        if key != self.raster_key:
            return
        tile_mm = TILE_PX / level
        for column, row, data in tiles:
            self.tiles[(level, column, row)] = image_from_worker(TILE_IMAGE_PX, TILE_IMAGE_PX, data)
            self.update(QRectF(column * tile_mm, row * tile_mm, tile_mm, tile_mm))
        self._evict_tiles(max(self.TILE_MEMORY // (TILE_PX * TILE_PX * 4), 1))

    def _evict_tiles(self, limit: int) -> None:
        """Drop tiles until all sheets together keep at most ``limit``: first those of sheets
        drawn longest ago (other dungeons' tabs), this one's last."""
        sheets = [b for b in SheetBackground._instances if shiboken6.isValid(b) and b.tiles]
        excess = sum(len(b.tiles) for b in sheets) - limit
        for sheet in sorted(sheets, key=lambda b: (b is self, b.painted_at)):
            while excess > 0 and sheet.tiles:
                sheet.tiles.popitem(last=False)
                excess -= 1

    def tiles_for(self, rect: QRectF, level: float) -> list[tuple[int, int]]:
        """The tiles (column, row) at ``level`` that cover ``rect`` (mm) on the paper."""
        rect = rect.intersected(self.boundingRect())
        if rect.isEmpty():
            return []
        tile_mm = TILE_PX / level
        columns = range(max(int(math.floor(rect.left() / tile_mm)), 0), int(math.ceil(rect.right() / tile_mm)))
        rows = range(max(int(math.floor(rect.top() / tile_mm)), 0), int(math.ceil(rect.bottom() / tile_mm)))
        return [(c, r) for r in rows for c in columns]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        rect = self.boundingRect()
        if self.renderer is not None:
            painter.fillRect(rect, QColor(style.COLOUR.paper))
            self.renderer.render(painter, rect)
        elif self.overview is not None:
            self._paint_raster(painter, option.exposedRect.intersected(rect))
        else:
            painter.fillRect(rect, QColor(style.COLOUR.paper))
        painter.setPen(QPen(QColor("#b0b0b0"), 0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)

    def _paint_raster(self, painter: QPainter, exposed: QRectF) -> None:
        transform = painter.worldTransform()
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        self.level = level = tile_level(math.hypot(transform.m11(), transform.m12()) * ratio)
        self.painted_at = time.monotonic()
        tile_mm, pad_mm = TILE_PX / level, TILE_PAD_PX / level
        paper = self.boundingRect()
        found, missing = [], False
        for column, row in self.tiles_for(exposed, level):
            image = self.tiles.get((level, column, row))
            if image is None:
                missing = True
                continue
            self.tiles.move_to_end((level, column, row))
            # each image overlaps its neighbours by the pad (no seams where edges fall between
            # pixels); along the paper's right and bottom edges it reaches past it: draw only paper
            x, y = column * tile_mm - pad_mm, row * tile_mm - pad_mm
            target = QRectF(x, y, tile_mm + 2 * pad_mm, tile_mm + 2 * pad_mm).intersected(paper)
            source = QRectF(
                (target.x() - x) * level, (target.y() - y) * level, target.width() * level, target.height() * level
            )
            found.append((target, image, source))
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        if not missing:  # under the tiles' soft edges: paper, not the canvas's grey
            painter.fillRect(exposed, QColor(style.COLOUR.paper))
        if missing:
            s = self.overview_scale
            painter.drawImage(
                exposed,
                self.overview,
                QRectF(exposed.x() * s, exposed.y() * s, exposed.width() * s, exposed.height() * s),
            )
        for target, image, source in found:
            painter.drawImage(target, image, source)
        if missing:
            self.tiles_wanted.emit()


def image_from_worker(width: int, height: int, data: bytes) -> QImage:
    """An RGB32 image of ``width`` x ``height`` pixels from the sheet worker's bytes (copied,
    so it owns its pixels)."""
    return QImage(data, width, height, width * 4, QImage.Format.Format_RGB32).copy()


def _cosmetic(colour: QColor, width: float = SELECTION_PX, dash: bool = False) -> QPen:
    pen = QPen(colour, width)
    pen.setCosmetic(True)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


class ObjectItem(QGraphicsItem):
    """A model object on the canvas: hit shape, hover and selection outline, drag preview.

    ``ref`` is the object's reference (:func:`editor.dungeon.edits.ref_of`); ``sync(obj)`` updates
    the item from the model object. Subclasses give the outline as a ``QPainterPath`` in mm.
    """

    def __init__(self, ref: str, obj):
        super().__init__()
        self.ref = ref
        self.obj = obj
        self.entry_number = 0  # its place in the scene's ``items_by_ref`` (DungeonScene._enter)
        self.hovered = False
        self.locked = False  # another object shares the reference (a passage listed twice): not editable
        self.guide = False  # draw the outline even when not selected (sheet not rendered)
        self._path = QPainterPath()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        self.sync(obj)
        self.refresh_contents()

    def refresh_contents(self) -> None:
        """Skip painting while there is nothing to draw (the sheet shows the object): with
        thousands of objects, a repaint then costs only the sheet."""
        empty = not (self.isSelected() or self.hovered or self.guide)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, empty)

    def outline(self, obj) -> QPainterPath:  # pragma: no cover - interface
        raise NotImplementedError

    def sync(self, obj) -> None:
        """Take the geometry of the model object ``obj``."""
        self.prepareGeometryChange()
        self.obj = obj
        self._path = self.outline(obj)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._path.boundingRect().adjusted(-1.5, -1.5, 1.5, 1.5)

    def shape(self) -> QPainterPath:
        return self._path

    def hoverEnterEvent(self, event) -> None:
        self.hovered = True
        self.setToolTip(self.tooltip_text())
        self.refresh_contents()
        self.update()

    def tooltip_text(self) -> str:
        """What hovering shows: the object's kind, id and name, and its problems."""
        obj = self.obj
        kind = getattr(obj, "kind", None) or type(obj).__name__.lower()
        if isinstance(obj, Passage):
            head = f"passage on the {obj.side} edge of room {tuple(obj.cell)}"
        else:
            head = f"{kind.replace('_', ' ')} '{obj.id}'"
        name = getattr(obj, "name", None)
        if name:
            head += f" — {name}"
        if self.locked:
            head += "\nlocked: this edge is listed twice (G015): remove the second listing from the Problems panel"
        elif not isinstance(obj, Passage) and self.ref != obj.id:
            head += "\nanother object has this id (C001): Dungeon > Renumber Duplicate Ids"
        scene = self.scene()
        document = getattr(scene, "document", None)
        problems = [p.problem for p in getattr(document, "problems", []) if p.ref == self.ref]
        lines = [head] + [f"{p.code} ({p.severity.value}): {p.message}" for p in problems[:6]]
        if len(problems) > 6:
            lines.append(f"... and {len(problems) - 6} more in the Problems panel")
        return "\n".join(lines)

    def hoverLeaveEvent(self, event) -> None:
        self.hovered = False
        self.refresh_contents()
        self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        if self.isSelected():
            painter.setPen(_cosmetic(SELECTION_COLOUR))
            painter.setBrush(QBrush(QColor(30, 136, 229, 40)))
            painter.drawPath(self._path)
        elif self.hovered:
            painter.setPen(_cosmetic(HOVER_COLOUR))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._path)
        elif self.guide:
            painter.setPen(_cosmetic(QColor("#777777"), 1, dash=True))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._path)


def _polygon(points) -> QPolygonF:
    return QPolygonF([QPointF(x, y) for x, y in points])


class AreaItem(ObjectItem):
    """A room or corridor: its polygon. Areas lie under walls and elements for picking."""

    def __init__(self, ref: str, obj: Area):
        super().__init__(ref, obj)
        self.setZValue(0)

    def outline(self, obj: Area) -> QPainterPath:
        path = QPainterPath()
        if obj.polygon:
            path.addPolygon(_polygon(obj.polygon))
            path.closeSubpath()
        return path


def _stroke(path: QPainterPath, width_mm: float) -> QPainterPath:
    stroker = QPainterPathStroker()
    stroker.setWidth(width_mm)
    stroker.setCapStyle(Qt.PenCapStyle.RoundCap)
    return stroker.createStroke(path)


class WallItem(ObjectItem):
    """An explicit wall: its polyline, picked within 1.5 mm."""

    def __init__(self, ref: str, obj: Wall):
        super().__init__(ref, obj)
        self.setZValue(10)

    def outline(self, obj: Wall) -> QPainterPath:
        path = QPainterPath()
        if obj.points:
            path.addPolygon(_polygon(obj.points))
        return _stroke(path, 3.0)


class ElementItem(ObjectItem):
    """A line element: a disc at ``at`` of diameter ``size_mm``; a door's bar along its
    segment; a label's text box."""

    def __init__(self, ref: str, obj: Element):
        super().__init__(ref, obj)
        self.setZValue(20)

    def outline(self, obj: Element) -> QPainterPath:
        path = QPainterPath()
        if obj.segment is not None:
            line = QPainterPath(QPointF(*obj.segment[0]))
            line.lineTo(QPointF(*obj.segment[1]))
            return _stroke(line, 3.0)
        if obj.at is None:
            return path
        x, y = obj.at
        if obj.kind == "label":
            from inkcrawl.checks.line import label_bounds

            x0, y0, x1, y1 = label_bounds(obj)
            path.addRect(QRectF(x0, y0, x1 - x0, y1 - y0))
            return path
        r = max(obj.radius_mm, 1.5)
        path.addEllipse(QPointF(x, y), r, r)
        return path


class GridObjectItem(ObjectItem):
    """Base of grid-family items: knows the grid to turn cells into sheet millimetres."""

    def __init__(self, ref: str, obj, dungeon: GridDungeon):
        self.dungeon = dungeon
        super().__init__(ref, obj)

    def cell_rect(self, cell) -> QRectF:
        g = self.dungeon.grid
        return QRectF(g.origin_mm[0] + cell[0] * g.cell_mm, g.origin_mm[1] + cell[1] * g.cell_mm, g.cell_mm, g.cell_mm)

    def edge_mid(self, cell, side) -> QPointF:
        rect = self.cell_rect(cell)
        centre = rect.center()
        dx, dy = SIDE_OFFSETS[side]
        return QPointF(centre.x() + dx * rect.width() / 2, centre.y() + dy * rect.height() / 2)


class FeatureItem(GridObjectItem):
    """A grid room's feature (loot, dragon, weapon, monster): the inner part of its room."""

    def __init__(self, ref: str, obj: Feature, dungeon: GridDungeon):
        super().__init__(ref, obj, dungeon)
        self.setZValue(20)

    def outline(self, obj: Feature) -> QPainterPath:
        rect = self.cell_rect(obj.cell)
        inset = rect.width() * 0.18
        path = QPainterPath()
        path.addEllipse(rect.adjusted(inset, inset, -inset, -inset))
        return path


class PassageItem(GridObjectItem):
    """A passage diamond on a grid edge."""

    def __init__(self, ref: str, obj: Passage, dungeon: GridDungeon):
        super().__init__(ref, obj, dungeon)
        self.setZValue(15)

    def outline(self, obj: Passage) -> QPainterPath:
        mid = self.edge_mid(obj.cell, obj.side)
        half = min(max(0.115 * self.dungeon.grid.cell_mm, 1.8), 3.2) + 0.6
        path = QPainterPath()
        path.addPolygon(
            QPolygonF(
                [
                    QPointF(mid.x(), mid.y() - half),
                    QPointF(mid.x() + half, mid.y()),
                    QPointF(mid.x(), mid.y() + half),
                    QPointF(mid.x() - half, mid.y()),
                ]
            )
        )
        path.closeSubpath()
        return path


class EntrywayItem(GridObjectItem):
    """An entryway arrow outside an outer edge of the grid."""

    def __init__(self, ref: str, obj: Entryway, dungeon: GridDungeon):
        super().__init__(ref, obj, dungeon)
        self.setZValue(15)

    def outline(self, obj: Entryway) -> QPainterPath:
        mid = self.edge_mid(obj.cell, obj.side)
        dx, dy = SIDE_OFFSETS.get(obj.side, (0, 0))
        length, half = 8.0, 3.5
        centre = QPointF(mid.x() + dx * length / 2, mid.y() + dy * length / 2)
        path = QPainterPath()
        path.addRect(
            QRectF(
                centre.x() - (half if dx == 0 else length / 2),
                centre.y() - (half if dy == 0 else length / 2),
                2 * half if dx == 0 else length,
                2 * half if dy == 0 else length,
            )
        )
        return path


def make_item(obj, dungeon) -> ObjectItem:
    """The canvas item for a model object."""
    ref = ref_of(obj)
    if isinstance(obj, Area):
        return AreaItem(ref, obj)
    if isinstance(obj, Wall):
        return WallItem(ref, obj)
    if isinstance(obj, Element):
        return ElementItem(ref, obj)
    if isinstance(obj, Feature):
        return FeatureItem(ref, obj, dungeon)
    if isinstance(obj, Passage):
        return PassageItem(ref, obj, dungeon)
    if isinstance(obj, Entryway):
        return EntrywayItem(ref, obj, dungeon)
    raise TypeError(f"no canvas item for {type(obj).__name__}")


class DungeonScene(QGraphicsScene):
    """The scene of one document: the sheet background plus one item per object, kept in
    step with the document's ``changed`` signal. ``items_by_ref`` maps references to items.

    The sheet is re-rendered after edits, at most every :attr:`min_render_interval_ms` and
    never while ``dragging`` is set (a drag shows item previews; the sheet follows on release).
    """

    selection_refs_changed = Signal(object)

    def __init__(self, document: DungeonDocument, parent=None):
        super().__init__(parent)
        self.document = document
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        paper = document.dungeon.sheet.paper
        self.background = SheetBackground(paper.width_mm, paper.height_mm)
        self.addItem(self.background)
        self.items_by_ref: dict[str, ObjectItem] = {}
        # numbers items in the order of ``items_by_ref`` (each gets the next number as it is
        # put there): the selection is put in that order without a walk over every item
        self._entry_numbers = itertools.count()
        self.shared_items: list[ObjectItem] = []  # objects sharing a reference: locked
        self._shared_edit = False  # the objects of the last edit include a shared reference
        self._painted_selection: set[ObjectItem] = set()
        self.dragging = False
        self.min_render_interval_ms = 60
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.timeout.connect(self.render_sheet)
        self._pending = None  # (future, started, paper, key, level) of a sheet render in the worker
        self._dirty = False  # the model changed while a render was running
        self._poll = QTimer(self)
        self._poll.setInterval(25)
        self._poll.timeout.connect(self._collect)
        self._generation = 0  # numbers the sheets sent to the worker
        self._retried = False  # the render in the worker is a retry after the worker died
        self._tile_job = None  # (future, key, level) of tiles being drawn in the worker
        self._tile_timer = QTimer(self)
        self._tile_timer.setSingleShot(True)
        self._tile_timer.setInterval(30)  # a wheel's zoom steps settle before tiles are asked
        self._tile_timer.timeout.connect(self._request_tiles)
        self.background.tiles_wanted.connect(self._want_tiles)
        self.rebuild()
        self.render_sheet()
        self.update_scene_rect()
        document.changed.connect(self.on_changed)
        self.selectionChanged.connect(self._on_selection_changed)

    # model -> items ----------------------------------------------------------------------
    def rebuild(self) -> None:
        """Recreate every object item from the model (after a whole-model change)."""
        selected = set(self.selected_refs())
        with self._one_selection_signal():
            self._rebuild_items(selected)

    def _rebuild_items(self, selected: set[str]) -> None:
        for item in self.items_by_ref.values():
            self.removeItem(item)
        self.items_by_ref = {}
        self._entry_numbers = itertools.count()
        self._painted_selection = set()
        for item in self.shared_items:
            self.removeItem(item)
        self.shared_items = []
        dungeon = self.document.dungeon
        shared = duplicate_refs(dungeon)
        for _, _, obj in objects(dungeon):
            item = make_item(obj, dungeon)
            self.addItem(item)
            if item.ref in shared:
                self._lock(item)
                continue
            self._enter(item)
            item.setSelected(item.ref in selected)
        self._update_guides()

    def _enter(self, item: ObjectItem) -> None:
        """Put ``item`` in ``items_by_ref`` under its reference (last in its order)."""
        item.entry_number = next(self._entry_numbers)
        self.items_by_ref[item.ref] = item

    def _lock(self, item: ObjectItem) -> None:
        """An object whose reference another object shares: shown, but never selected or
        edited (an edit by that reference could touch the other one) until ids are renumbered."""
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, False)
        item.locked = True
        self.shared_items.append(item)

    @contextmanager
    def _one_selection_signal(self):
        """Change many items with the scene's signals held back, then report the selection once
        if it changed. Qt reports a selection change for every selected item removed or
        selected, and each report refreshes the inspector: dragging 2,000 selected objects took
        minutes per step that way."""
        before = self.selected_refs() if shiboken6.isValid(self) else []
        blocked = self.blockSignals(True)
        try:
            yield
        finally:
            self.blockSignals(blocked)
        if blocked or not shiboken6.isValid(self):
            return
        if self.selected_refs() != before:
            self._on_selection_changed()
        else:
            self._repaint_selection()  # new items of selected objects show their selection

    def on_changed(self, refs: set[str]) -> None:
        """Bring the items of ``refs`` in step with the model and schedule a sheet render."""
        dungeon = self.document.dungeon
        with self._one_selection_signal():
            if "*" in refs or "sheet" in refs:
                self._rebuild_items(set(self.selected_refs()))
            else:
                found, self._shared_edit = self.document.locate(refs) if refs else ({}, False)
                current = {ref: obj for ref, (_, _, obj) in found.items()}
                if len(refs) > 200 and any((ref in current) != (ref in self.items_by_ref) for ref in refs):
                    # many objects come or go: new items in file order (their stacking order)
                    self._rebuild_items(set(self.selected_refs()))
                else:
                    self._rect_fresh = False
                    self._sync_items(refs, current, dungeon)
        if not getattr(self, "_rect_fresh", False):
            self.update_scene_rect()
        self._rect_fresh = False
        self.schedule_render()

    def _sync_items(self, refs: set[str], current: dict, dungeon) -> None:
        if self.shared_items or self._shared_edit:
            self._rebuild_items(set(self.selected_refs()))  # references are shared: lock them
            return
        for ref in refs:
            item = self.items_by_ref.get(ref)
            obj = current.get(ref)
            if obj is None and item is not None:
                self.removeItem(item)
                del self.items_by_ref[ref]
            elif obj is not None and item is None:
                item = make_item(obj, dungeon)
                self.addItem(item)
                self._enter(item)
            elif obj is not None:
                item.sync(obj)
        # an id change gives the item a new reference (an edit changing ids names both, old and new)
        for ref in refs:
            item = self.items_by_ref.get(ref)
            if item is not None and ref_of(item.obj) != ref:
                del self.items_by_ref[ref]
                item.ref = ref_of(item.obj)
                self._enter(item)
        changed = [self.items_by_ref[r] for r in refs if r in self.items_by_ref]
        self._grow_scene_rect(changed)

    #: Room around the paper (and around objects off the paper) the view may scroll to, in mm.
    SCROLL_MARGIN_MM = 30.0

    def _grow_scene_rect(self, items) -> None:
        """After an edit of a few objects: grow the scroll area to hold them (measuring every
        item of a 10,000-room grid at each edit took 100 ms); it shrinks back on a rebuild."""
        m = self.SCROLL_MARGIN_MM
        rect = self.sceneRect()
        for item in items[:200]:
            rect = rect.united(item.sceneBoundingRect().adjusted(-m, -m, m, m))
        if len(items) > 200:
            self.update_scene_rect()
        elif rect != self.sceneRect():
            self.setSceneRect(rect)
        self._rect_fresh = True

    def update_scene_rect(self) -> None:
        """Let the view scroll over the paper and every object, even one dragged off the paper."""
        m = self.SCROLL_MARGIN_MM
        rect = self.background.boundingRect().adjusted(-m, -m, m, m)
        if self.items_by_ref:
            rect = rect.united(self.itemsBoundingRect().adjusted(-m, -m, m, m))
        if rect != self.sceneRect():
            self.setSceneRect(rect)

    def schedule_render(self) -> None:
        """Render the sheet again soon (adaptive: slow sheets are rendered less often)."""
        if self.dragging:
            return
        interval = max(self.min_render_interval_ms, int(self.background.render_ms * 2))
        if not self._render_timer.isActive():
            self._render_timer.start(interval)

    #: Sheets slower than this (ms) are rendered in the worker process, as are dungeons with
    #: more objects than :attr:`ASYNC_OBJECTS` before their first render.
    ASYNC_RENDER_MS = 80.0
    ASYNC_OBJECTS = 400

    def render_sheet(self) -> None:
        """Render the sheet again: now for small sheets, in the worker process for big ones
        (the canvas stays responsive; the new sheet replaces the old one when it arrives,
        drawn as images: see :class:`SheetBackground`)."""
        self._render_timer.stop()
        slow = self.background.render_ms > self.ASYNC_RENDER_MS or (
            self.background.render_ms == 0 and len(self.items_by_ref) > self.ASYNC_OBJECTS
        )
        if not slow:
            self.background.refresh(self.document.dungeon, self.document.ruleset)
            self._update_guides()
            return
        if self._pending is not None:
            self._dirty = True
            return
        dungeon = self.document.dungeon
        self._generation += 1
        key = f"{id(self)}:{self._generation}"
        level, tiles = self._visible_tiles()
        future = shared_worker().submit(
            render_raster_sheet, key, dungeon.to_dict(), self.document.ruleset.data, level, tiles
        )
        self._pending = (future, time.perf_counter(), dungeon.sheet.paper, key, level)
        self._dirty = False
        self._poll.start()

    def worker_busy(self) -> bool:
        """Whether the scene waits for the sheet worker (its sheet or tiles being drawn); other
        work for the worker (the pack's thumbnails) waits, so the canvas is served first."""
        return self._pending is not None or self._tile_job is not None

    def _visible_tiles(self) -> tuple[float, list[tuple[int, int]]]:
        """The tile level of the first view and the tiles of the sheet it shows, with one
        tile of margin around them (a short pan needs nothing new); tiles already kept are
        left out."""
        views = [view for view in self.views() if view.isVisible()] or self.views()
        if not views:
            return 1.0, []
        view = views[0]
        viewport = view.viewport()
        level = tile_level(math.hypot(view.transform().m11(), view.transform().m12()) * viewport.devicePixelRatioF())
        margin = TILE_PX / level
        visible = view.mapToScene(viewport.rect()).boundingRect().adjusted(-margin, -margin, margin, margin)
        kept = self.background.tiles
        return level, [tile for tile in self.background.tiles_for(visible, level) if (level, *tile) not in kept]

    def _want_tiles(self) -> None:
        if self._tile_job is None and not self._tile_timer.isActive():
            self._tile_timer.start()

    def _request_tiles(self) -> None:
        """Ask the worker for the tiles the view lacks at its zoom level (one job at a time:
        during a zoom gesture only the level the view settles on is drawn)."""
        key = self.background.raster_key
        if self._tile_job is not None or key is None or self._pending is not None:
            return
        level, tiles = self._visible_tiles()
        if not tiles:
            return
        self._tile_job = (shared_worker().submit(render_tiles, key, level, tiles), key, level)
        self._poll.start()

    def _collect(self) -> None:
        shared_worker().check()  # a worker that died mid-reply: its jobs fail instead of never ending
        self._collect_tiles()
        if self._pending is None:
            if self._tile_job is None:
                self._poll.stop()
            return
        future, started, paper, key, level = self._pending
        if not future.done():
            return
        self._pending = None
        try:
            result = future.result()
        except BrokenProcessPool:  # the worker died (killed, out of memory): one more try in a new one
            if not self._retried:
                self._retried = True
                self.render_sheet()
                return
            result = {"error": "the sheet could not be rendered: the sheet worker process stopped twice"}
        except Exception as exc:
            result = {"error": f"the sheet could not be rendered: {exc}"}
        self._retried = False
        self.background.show_raster(paper, key, result, level)
        self.background.render_ms = (time.perf_counter() - started) * 1000
        self._update_guides()
        if self._dirty:
            self.render_sheet()
        elif self._tile_job is None:
            self._poll.stop()

    def _collect_tiles(self) -> None:
        if self._tile_job is None or not self._tile_job[0].done():
            return
        future, key, level = self._tile_job
        self._tile_job = None
        try:
            result = future.result()
        except Exception:
            result = {"missing": True}
        if result.get("missing"):
            if key == self.background.raster_key:
                self.render_sheet()
            return
        self.background.add_tiles(key, level, result["tiles"])

    def wait_for_sheet(self, timeout_s: float = 60.0) -> bool:
        """Block until a worker render in progress has arrived, with the tiles the views show
        (benchmarks, screenshots, tests); ``True`` when the sheet is up to date."""
        deadline = time.perf_counter() + timeout_s
        while True:
            if self._render_timer.isActive() and self._pending is None:
                self.render_sheet()
                continue
            if self._pending is None and self._tile_job is None:
                self._tile_timer.stop()
                self._request_tiles()  # the tiles the view still lacks, if any
                if self._tile_job is None:
                    return True
            job = self._pending or self._tile_job
            try:
                job[0].result(timeout=min(0.5, max(0.0, deadline - time.perf_counter())))
            except Exception:
                pass
            self._collect()
            if time.perf_counter() > deadline:
                return False

    def _update_guides(self) -> None:
        guide = not self.background.has_sheet
        for item in self.items_by_ref.values():
            if item.guide != guide:
                item.guide = guide
                item.refresh_contents()
                item.update()

    def set_dragging(self, dragging: bool) -> None:
        """Mark a drag in progress (the sheet is re-rendered when it ends)."""
        self.dragging = dragging
        if not dragging:
            self.schedule_render()

    # selection ---------------------------------------------------------------------------
    def _on_selection_changed(self) -> None:
        if not shiboken6.isValid(self):  # not while the scene is being destroyed
            return
        self._repaint_selection()
        self.selection_refs_changed.emit(self.selected_refs())

    def _repaint_selection(self) -> None:
        # items paint only while selected, hovered or guiding (see ObjectItem.refresh_contents);
        # overriding itemChange for this is unsafe in PySide6 (reference-count crash)
        selected = {item for item in self.selectedItems() if isinstance(item, ObjectItem)}
        for item in selected ^ self._painted_selection:
            if shiboken6.isValid(item):
                item.refresh_contents()
        self._painted_selection = selected

    def selected_refs(self) -> list[str]:
        """References of the selected objects, in file order."""
        chosen = {item.ref for item in self.selectedItems() if isinstance(item, ObjectItem)}
        # sorted by entry number, the order of ``items_by_ref``: no walk over every item (a
        # 100 x 100 grid has some 10,000) at each of the several calls an edit makes
        entries = [(item.entry_number, ref) for ref in chosen if (item := self.items_by_ref.get(ref)) is not None]
        return [ref for _, ref in sorted(entries)]

    def select_refs(self, refs, add: bool = False) -> None:
        """Select the objects ``refs`` (replacing the selection unless ``add``)."""
        self.blockSignals(True)
        try:
            if not add:
                self.clearSelection()
            for ref in refs:
                item = self.items_by_ref.get(ref)
                if item is not None:
                    item.setSelected(True)
        finally:
            self.blockSignals(False)
        self._on_selection_changed()

    def object_items_at(self, pos: QPointF) -> list[ObjectItem]:
        """Object items under a scene point, topmost first, down to the first one locked because
        another object shares its reference (a click on it reaches nothing beneath either)."""
        hits = []
        for item in self.items(pos):
            if isinstance(item, ObjectItem):
                if item.locked:
                    break
                hits.append(item)
        return hits

    def locked_item_at(self, pos: QPointF) -> ObjectItem | None:
        """The topmost object item under ``pos`` when it is locked (its reference is shared)."""
        for item in self.items(pos):
            if isinstance(item, ObjectItem):
                return item if item.locked else None
        return None

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if self.background.error:
            painter.save()
            painter.setPen(QPen(QColor("#b71c1c")))
            font = QFont(style.FONT_FAMILY)
            font.setPointSizeF(4)
            painter.setFont(font)
            # as tall as the whole reason needs (it may run to several lines), on a light band
            flags = int(Qt.TextFlag.TextWordWrap)
            room = QRectF(5, 2, self.background.width_mm - 10, self.background.height_mm - 4)
            needed = painter.boundingRect(room, flags, self.background.error)
            band = QRectF(room.left(), room.top(), room.width(), needed.height())
            painter.fillRect(band.adjusted(-1, -1, 1, 1), QColor(255, 255, 255, 215))
            painter.drawText(band, flags, self.background.error)
            painter.restore()
