"""Canvas tools of the grid family (RULES.md 1, Board): walls and passages, entryways, room features.

Every tool snaps to the grid's cells and edges (:mod:`editor.tools.snapping`) and turns clicks into
edits of :mod:`editor.dungeon.edits` pushed on the document's undo stack; none changes the model itself.

- **Passage** (``P``): click near an edge between two rooms to toggle it between wall and
  passage. Dragging across several edges paints them: every edge crossed is set to the state
  opposite to the first edge's, once, and the whole drag is one undo step. Outer edges are
  always walls; clicking one says so (entryways go there).
- **Entryway** (``E``): click near an outer edge, or just outside it, to add an entryway arrow;
  click an existing arrow to remove it.
- **Loot** (``L``), **Dragon** (``D``), **Weapon** (``W``), **Monster** (``M``), and any other
  kind a bundled grid ruleset defines: click a room to place the feature. A room holds one
  feature (RULES.md 1, Board: "at most one per room"), so clicking a room that has one
  *replaces* it, in one undo step (the replaced feature is named in the status bar and comes
  back with Ctrl+Z). Lettered kinds (weapons, monsters) take a letter from the Tool Options
  bar; "Auto" picks the next letter missing its weapon/monster partner (RULES.md 1, lettered
  pairs), so placing weapon A and then a monster gives monster A.
- **Feature** (``F``): any kind the current dungeon's ruleset defines, chosen in the Tool
  Options bar (for rulesets with kinds of their own).

Units: sheet millimetres for points, ``(column, row)`` from 0 at the top-left for rooms.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from editor.dungeon.edits import (
    AddObjects,
    Compound,
    DeleteObjects,
    EditError,
    TogglePassage,
    new_id,
    passage_ref,
    passages_on,
    ref_of,
)
from editor.tools.catalogue import Tool, ToolSpec
from editor.tools.snapping import grid_cell_at, grid_edge_at
from inkcrawl.model import Cell, Entryway, Feature, GridDungeon, GridSpec, edge_key

#: How near an edge a click must be to pick it, as a fraction of the room side (a quarter of
#: a 24 mm room is 6 mm); never less than the snapping tolerance (8 screen pixels).
EDGE_REACH = 0.25
#: How far outside the grid a click still picks the outer edge it faces (entryway arrows are
#: drawn about 8 mm outside the grid), in mm.
ENTRYWAY_OUTSIDE_MM = 14.0
#: Letters of lettered kinds when a ruleset does not list them.
DEFAULT_LETTERS = "ABCDEF"
#: Colours of the tools' hover feedback (screen only, never printed).
HOVER_OK = QColor(30, 136, 229, 170)
HOVER_REFUSED = QColor(198, 40, 40, 170)

_PAINT_IDS = itertools.count(1)

Edge = tuple[Cell, str]


# geometry -------------------------------------------------------------------------------------
def edge_segment(grid: GridSpec, cell: Cell, side: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two ends (mm) of the ``side`` edge of room ``cell``."""
    x0 = grid.origin_mm[0] + cell[0] * grid.cell_mm
    y0 = grid.origin_mm[1] + cell[1] * grid.cell_mm
    x1, y1 = x0 + grid.cell_mm, y0 + grid.cell_mm
    return {
        "north": ((x0, y0), (x1, y0)),
        "south": ((x0, y1), (x1, y1)),
        "west": ((x0, y0), (x0, y1)),
        "east": ((x1, y0), (x1, y1)),
    }[side]


def edge_distance(grid: GridSpec, p: tuple[float, float], cell: Cell, side: str) -> float:
    """Distance in mm from point ``p`` to the ``side`` edge of room ``cell``."""
    (ax, ay), (bx, by) = edge_segment(grid, cell, side)
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def cell_rect(grid: GridSpec, cell: Cell) -> QRectF:
    """The square of room ``cell`` on the sheet (mm)."""
    return QRectF(
        grid.origin_mm[0] + cell[0] * grid.cell_mm,
        grid.origin_mm[1] + cell[1] * grid.cell_mm,
        grid.cell_mm,
        grid.cell_mm,
    )


def edges_crossed(grid: GridSpec, a: tuple[float, float], b: tuple[float, float]) -> list[Edge]:
    """The edges *between two rooms* that the straight stroke from ``a`` to ``b`` (mm) crosses,
    in the order crossed, each as its canonical ``(cell, side)`` (see :func:`edge_key`)."""
    ox, oy = grid.origin_mm
    ax, ay = (a[0] - ox) / grid.cell_mm, (a[1] - oy) / grid.cell_mm
    bx, by = (b[0] - ox) / grid.cell_mm, (b[1] - oy) / grid.cell_mm
    dx, dy = bx - ax, by - ay
    hits: list[tuple[float, Edge]] = []
    if dx:
        for k in range(math.ceil(min(ax, bx)), math.floor(max(ax, bx)) + 1):
            t = (k - ax) / dx
            row = math.floor(ay + t * dy)
            if 1 <= k <= grid.columns - 1 and 0 <= row < grid.rows:
                hits.append((t, ((k - 1, row), "east")))
    if dy:
        for k in range(math.ceil(min(ay, by)), math.floor(max(ay, by)) + 1):
            t = (k - ay) / dy
            col = math.floor(ax + t * dx)
            if 1 <= k <= grid.rows - 1 and 0 <= col < grid.columns:
                hits.append((t, ((col, k - 1), "south")))
    hits.sort(key=lambda hit: hit[0])
    return [edge for _, edge in hits]


def edges_along(
    grid: GridSpec, a: tuple[float, float], b: tuple[float, float], reach_mm: float, axis: str
) -> list[Edge]:
    """The edges between two rooms that lie *along* the stroke from ``a`` to ``b`` (mm): the
    stroke is followed in steps of an eighth of a room, and at each step the grid line of
    direction ``axis`` (``"h"`` horizontal, ``"v"`` vertical) nearest the pointer gives its edge
    when it lies within ``reach_mm``. In the order met, each canonical."""
    ox, oy = grid.origin_mm
    size = grid.cell_mm
    dx, dy = b[0] - a[0], b[1] - a[1]
    steps = max(1, math.ceil(math.hypot(dx, dy) / (size / 8)))
    out: list[Edge] = []
    for i in range(steps + 1):
        gx = (a[0] + dx * i / steps - ox) / size
        gy = (a[1] + dy * i / steps - oy) / size
        edge: Edge | None = None
        if axis == "h":
            line, column = round(gy), math.floor(gx)
            if abs(gy - line) * size <= reach_mm and 1 <= line <= grid.rows - 1 and 0 <= column < grid.columns:
                edge = ((column, line - 1), "south")
        else:
            line, row = round(gx), math.floor(gy)
            if abs(gx - line) * size <= reach_mm and 1 <= line <= grid.columns - 1 and 0 <= row < grid.rows:
                edge = ((line - 1, row), "east")
        if edge is not None and edge not in out:
            out.append(edge)
    return out


def near_edge(dungeon: GridDungeon, p: tuple[float, float], reach_mm: float, outside_mm: float = 0.0) -> Edge | None:
    """The edge of a room nearest ``p`` if it lies within ``reach_mm`` (points outside the grid,
    up to ``outside_mm`` beyond it, pick the outer edge they face); else ``None``."""
    found = grid_edge_at(dungeon, p, outside_mm=outside_mm)
    if found is None:
        return None
    cell, side = found
    g = dungeon.grid
    inside = (
        g.origin_mm[0] <= p[0] <= g.origin_mm[0] + g.columns * g.cell_mm
        and g.origin_mm[1] <= p[1] <= g.origin_mm[1] + g.rows * g.cell_mm
    )
    if inside and edge_distance(g, p, cell, side) > reach_mm:
        return None
    return cell, side


# model queries ---------------------------------------------------------------------------------
def is_passage(dungeon: GridDungeon, cell: Cell, side: str) -> bool:
    """Whether the edge is a passage (every edge not listed is a wall, RULES.md 1)."""
    return bool(passages_on(dungeon, passage_ref(cell, side)))


def features_in(dungeon: GridDungeon, cell: Cell) -> list[Feature]:
    """The features of room ``cell`` (one at most in a valid dungeon)."""
    return [f for f in dungeon.features if tuple(f.cell) == tuple(cell)]


def entryway_on(dungeon: GridDungeon, cell: Cell, side: str) -> Entryway | None:
    """The entryway on the ``side`` edge of room ``cell``, if any."""
    for entryway in dungeon.entryways:
        if tuple(entryway.cell) == tuple(cell) and entryway.side == side:
            return entryway
    return None


def kind_letters(ruleset, kind: str) -> str:
    """The letters a lettered kind takes in ``ruleset`` (``""`` for kinds without letters)."""
    if ruleset is None:
        return DEFAULT_LETTERS if kind in ("weapon", "monster") else ""
    definition = ruleset.elements.get(kind)
    if definition is None:
        return DEFAULT_LETTERS if kind in ("weapon", "monster") else ""
    return "".join(definition.get("letters", ""))


def partner_kinds(ruleset, kind: str) -> list[str]:
    """The kinds whose letters pair with ``kind`` (RULES.md 1: weapon A goes with monster A)."""
    if kind in ("weapon", "monster"):
        return ["monster" if kind == "weapon" else "weapon"]
    if ruleset is None:
        return []
    return [k for k, d in ruleset.elements.items() if k != kind and d.get("letters")]


def next_letter(dungeon: GridDungeon, ruleset, kind: str) -> str | None:
    """The letter a new ``kind`` feature gets by default (``None`` for kinds without letters).

    In the order of the ruleset's letters: first a letter whose partner (the monster of a
    weapon, the weapon of a monster) is placed but which has no ``kind`` yet; else a letter
    used by neither; else a letter not used by ``kind``; else the first letter.
    """
    letters = kind_letters(ruleset, kind)
    if not letters:
        return None
    mine = {f.letter for f in dungeon.features if f.kind == kind}
    partners = set(partner_kinds(ruleset, kind))
    theirs = {f.letter for f in dungeon.features if f.kind in partners}
    for wanted in (
        lambda x: x in theirs and x not in mine,
        lambda x: x not in theirs and x not in mine,
        lambda x: x not in mine,
    ):
        for letter in letters:
            if wanted(letter):
                return letter
    return letters[0]


def describe_feature(feature: Feature) -> str:
    """``weapon A``, ``loot``... as the status bar names a feature."""
    return feature.kind.replace("_", " ") + (f" {feature.letter}" if feature.letter else "")


def _count_note(dungeon: GridDungeon, ruleset, kind: str, collection: Iterable) -> str:
    if ruleset is None:
        return ""
    definition = ruleset.elements.get(kind) if kind != "entryway" else ruleset.data.get("entryways")
    count = (definition or {}).get("count") or {}
    have = sum(1 for _ in collection)
    if "max" in count and have > count["max"]:
        return f" ({have} now; the ruleset allows {count['max']})"
    return ""


# edits ---------------------------------------------------------------------------------------
class PaintPassages(Compound):
    """Passage toggles made by one drag of the Passage tool: one undo step. Pushes with the
    same ``merge_key`` merge into the first, so the history shows one entry however many edges
    the drag crossed; undo restores every edge in reverse order (exact, as each
    :class:`TogglePassage` is)."""

    def __init__(self, edits: list[TogglePassage], text: str, merge_key: str | None = None):
        super().__init__(list(edits), text)
        self.merge_key = merge_key

    def merge(self, other) -> bool:
        if not isinstance(other, PaintPassages) or self.merge_key is None or other.merge_key != self.merge_key:
            return False
        self.edits.extend(other.edits)
        return True


# tools ---------------------------------------------------------------------------------------
class GridTool(Tool):
    """Base of the grid tools: works only on grid dungeons, keeps a hover target for
    feedback, and reaches edges within :data:`EDGE_REACH` of a room side."""

    cursor = Qt.CursorShape.CrossCursor

    def __init__(self, ctx):
        super().__init__(ctx)
        self._hover = None  # (QRectF or QLineF, allowed)

    def grid_dungeon(self) -> GridDungeon | None:
        """The current dungeon if it is of the grid family, else ``None``."""
        dungeon = self.ctx.dungeon
        return dungeon if isinstance(dungeon, GridDungeon) else None

    def reach_mm(self) -> float:
        """How near an edge a click must be to pick it, in mm."""
        dungeon = self.grid_dungeon()
        cell = dungeon.grid.cell_mm if dungeon is not None else 24.0
        return max(self.ctx.tolerance_mm(), EDGE_REACH * cell)

    @staticmethod
    def point(pos: QPointF) -> tuple[float, float]:
        return (pos.x(), pos.y())

    def set_hover(self, view, shape, allowed: bool = True) -> None:
        """Show ``shape`` (a room ``QRectF`` or an edge ``QLineF``) under the pointer."""
        hover = None if shape is None else (shape, allowed)
        if hover != self._hover:
            self._hover = hover
            view.viewport().update()

    def pointer_left(self, view) -> None:
        self.set_hover(view, None)

    def edge_line(self, cell: Cell, side: str) -> QLineF:
        (ax, ay), (bx, by) = edge_segment(self.grid_dungeon().grid, cell, side)
        return QLineF(ax, ay, bx, by)

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self._hover is None:
            return
        shape, allowed = self._hover
        colour = HOVER_OK if allowed else HOVER_REFUSED
        pen = QPen(colour, 4 if isinstance(shape, QLineF) else 2)
        pen.setCosmetic(True)
        painter.setPen(pen)
        if isinstance(shape, QLineF):
            painter.drawLine(shape)
        else:
            painter.setBrush(QBrush(QColor(colour.red(), colour.green(), colour.blue(), 30)))
            painter.drawRect(shape)

    def cancel(self) -> None:
        self._hover = None
        if self.ctx.view is not None:
            self.ctx.view.viewport().update()

    def refuse_family(self) -> bool:
        """Say so and return ``True`` when the current dungeon is not of the grid family."""
        if self.ctx.document is None:
            return True
        if self.grid_dungeon() is None:
            self.ctx.status("This tool edits grid dungeons")
            return True
        return False


class PassageTool(GridTool):
    """Toggle edges between wall and passage; a drag paints the edges along the grid line it
    follows (as a wall brush does in Tiled) to the state opposite to the first edge's, as one
    undo step (RULES.md 1, Board: an edge is a wall or a passage). The line's direction follows
    the drag's (a turn after half a room changes it); with Shift the drag is held to one
    straight grid line through where it started. Outer edges are walls: clicking one says that
    entryways go there."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self._start: tuple[float, float] | None = None
        self._axis: str | None = None  # "h" or "v": the direction of the grid line painted
        self._axis_from: tuple[float, float] | None = None
        self._last: tuple[float, float] | None = None
        self._target: bool | None = None  # True: make passages; False: make walls
        self._visited: set[Edge] = set()
        self._key: str | None = None
        self._changed = 0
        self._pushing = False
        self._outer_pressed = False

    def undo_during_gesture(self) -> None:
        if not self._pushing and self._last is not None:
            self.end_gesture()  # undo or redo during a drag: stop painting, push nothing more

    def end_gesture(self) -> None:
        """Forget the drag in progress (the edges already painted stay one undo step)."""
        self._last = None
        self._start = self._axis = self._axis_from = None
        self._target = None
        self._visited = set()
        self._key = None

    def cancel(self) -> None:
        self.end_gesture()
        super().cancel()

    def _visit(self, edge: Edge) -> None:
        key = edge_key(*edge)
        if key in self._visited:
            return
        self._visited.add(key)
        dungeon = self.grid_dungeon()
        try:  # the edit finds whether the edge is a passage now (one walk over the passages)
            edit: TogglePassage | None = TogglePassage(dungeon, *key)
            now = not edit.adding
        except EditError as exc:
            edit, now, refused = None, is_passage(dungeon, *key), str(exc)
        if self._target is None:
            self._target = not now
        if now == self._target:
            return
        if edit is None:
            self.ctx.status(refused)
            return
        text = "Open passages" if self._target else "Wall up passages"
        self._pushing = True
        try:
            if self.ctx.push(PaintPassages([edit], text, merge_key=self._key)):
                self._changed += 1
        finally:
            self._pushing = False

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if event.button() != Qt.MouseButton.LeftButton or self.refuse_family():
            return False
        self.watch_undo_stack()
        dungeon = self.grid_dungeon()
        self.end_gesture()
        self._key = f"passages-{next(_PAINT_IDS)}"
        self._last = self._start = self._axis_from = self.point(pos)
        self._changed = 0
        self._outer_pressed = False
        edge = near_edge(dungeon, self._last, self.reach_mm())
        if edge is not None and dungeon.grid.is_outer_edge(*edge):
            self._outer_pressed = True
            self.ctx.status(
                f"The outer edge of {dungeon.grid.cell_label(edge[0])} is a wall: outer edges are "
                "always walls. Entryways go there (Entryway tool, E)."
            )
        elif edge is not None:
            self._visit(edge)
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        dungeon = self.grid_dungeon()
        if dungeon is None:
            return False
        p = self.point(pos)
        if self._last is not None and event.buttons() & Qt.MouseButton.LeftButton:
            self._paint_to(dungeon, p, bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        edge = near_edge(dungeon, p, self.reach_mm())
        self.set_hover(
            view,
            None if edge is None else self.edge_line(*edge),
            edge is not None and not dungeon.grid.is_outer_edge(*edge),
        )
        return self._last is not None

    def _paint_to(self, dungeon: GridDungeon, p: tuple[float, float], straight: bool) -> None:
        """Paint the edges along the drag from the last pointer position to ``p``."""
        grid, size = dungeon.grid, dungeon.grid.cell_mm
        if straight:  # Shift: one straight grid line through the start, in the drag's main direction
            sx, sy = self._start
            axis = "h" if abs(p[0] - sx) >= abs(p[1] - sy) else "v"
            ox, oy = grid.origin_mm
            if axis == "h":
                y = oy + round((sy - oy) / size) * size
                a, b = (sx, y), (p[0], y)
            else:
                x = ox + round((sx - ox) / size) * size
                a, b = (x, sy), (x, p[1])
            for edge in edges_along(grid, a, b, size / 2, axis):
                self._visit(edge)
            self._last = p
            return
        fx, fy = self._axis_from
        if math.hypot(p[0] - fx, p[1] - fy) >= size / 2 or (
            self._axis is None and math.hypot(p[0] - fx, p[1] - fy) >= size / 4
        ):
            turned = "h" if abs(p[0] - fx) >= abs(p[1] - fy) else "v"
            if turned != self._axis:
                self._axis = turned
                self._last = self._axis_from  # paint the stretch that showed the direction
            self._axis_from = p
        if self._axis is not None:
            for edge in edges_along(grid, self._last, p, self.reach_mm(), self._axis):
                self._visit(edge)
            self._last = p

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if event.button() != Qt.MouseButton.LeftButton or self._last is None:
            return False
        dungeon = self.grid_dungeon()
        if self._changed == 0 and not self._outer_pressed and not self._visited:
            self.ctx.status(
                "Click nearer an edge between two rooms to toggle it between wall and passage "
                "(drag across edges to change several)"
            )
        elif self._changed:
            state = "passages" if self._target else "walls"
            self.ctx.status(
                f"{self._changed} edge(s) made {state}"
                if self._changed > 1
                else f"Edge made a {'passage' if self._target else 'wall'}"
            )
        elif self._visited and dungeon is not None:
            self.ctx.status(f"The edges crossed were already {'passages' if self._target else 'walls'}")
        self.end_gesture()
        return True


class EntrywayTool(GridTool):
    """Add an entryway arrow on an outer edge (click on the edge or just outside it); click an
    existing arrow to remove it. One undo step each (RULES.md 1, Board: entryways are arrows
    on outer edges)."""

    def _edge(self, pos: QPointF) -> Edge | None:
        return near_edge(self.grid_dungeon(), self.point(pos), self.reach_mm(), ENTRYWAY_OUTSIDE_MM)

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if event.button() != Qt.MouseButton.LeftButton or self.refuse_family():
            return False
        dungeon = self.grid_dungeon()
        hits = [item for item in self.ctx.scene.object_items_at(pos) if isinstance(item.obj, Entryway)]
        existing = hits[0].obj if hits else None
        edge = self._edge(pos)
        if existing is None and edge is not None:
            existing = entryway_on(dungeon, *edge)
        label = dungeon.grid.cell_label
        if existing is not None:
            if self.ctx.push(DeleteObjects(dungeon, [ref_of(existing)], "Remove entryway")):
                self.ctx.status(
                    f"Removed the entryway on the {existing.side} edge of {label(existing.cell)} "
                    "(Ctrl+Z brings it back)"
                )
            return True
        if edge is None:
            self.ctx.status("Click an outer edge of the grid (or just outside it) to add an entryway")
            return True
        if not dungeon.grid.is_outer_edge(*edge):
            self.ctx.status(
                "Entryways go on the outer edges of the grid; edges between rooms are walls or "
                "passages (Passage tool, P)"
            )
            return True
        cell, side = edge
        entryway = Entryway(new_id(dungeon, "entryway"), cell, side)
        if self.ctx.push(AddObjects([("entryways", None, entryway)], "Add entryway")):
            note = _count_note(dungeon, self.ctx.document.ruleset, "entryway", dungeon.entryways)
            self.ctx.status(f"Entryway added on the {side} edge of {label(cell)}{note}")
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        dungeon = self.grid_dungeon()
        if dungeon is None:
            return False
        edge = self._edge(pos)
        self.set_hover(
            view,
            None if edge is None else self.edge_line(*edge),
            edge is not None and dungeon.grid.is_outer_edge(*edge),
        )
        return False


class FeatureTool(GridTool):
    """Place a room feature of ``kind`` (loot, dragon, weapon, monster...) with a click.

    A room holds one feature (RULES.md 1, Board): clicking a room that has another feature
    replaces it in one undo step (Compound of delete and add, the new feature taking the old
    one's place in the file); clicking a room that already holds this very feature changes
    nothing. Lettered kinds take the letter chosen in the options, by default
    :func:`next_letter`. With ``kind=None`` the options offer every kind of the ruleset.
    """

    def __init__(self, ctx, kind: str | None):
        super().__init__(ctx)
        self.fixed_kind = kind
        self.kind = kind
        self.letter_choice: str | None = None  # None: automatic (next_letter)
        self._letter_box: QComboBox | None = None
        self._kind_box: QComboBox | None = None
        self._document = None
        if self.kind is None:
            kinds = self.ruleset_kinds()
            self.kind = kinds[0] if kinds else None

    def ruleset(self):
        """The current dungeon's ruleset (``None`` without a dungeon)."""
        return self.ctx.document.ruleset if self.ctx.document is not None else None

    def activate(self) -> None:
        super().activate()
        self._watch_document()

    def deactivate(self) -> None:
        self._watch_document(None)
        super().deactivate()

    def _watch_document(self, document=...) -> None:
        """Keep the automatic letter up to date with the dungeon (edits, undo, another tab)."""
        document = self.ctx.document if document is ... else document
        if document is self._document:
            return
        if self._document is not None:
            try:
                self._document.changed.disconnect(self._on_document_changed)
            except (RuntimeError, TypeError):
                pass
        self._document = document
        if document is not None:
            document.changed.connect(self._on_document_changed)
            self.refresh_options()

    def _on_document_changed(self, _refs) -> None:
        self.refresh_options()

    def ruleset_kinds(self) -> list[str]:
        """The feature kinds the current dungeon's ruleset defines."""
        ruleset = self.ruleset()
        return list(ruleset.elements) if ruleset is not None else []

    def letters(self) -> str:
        """The letters the current kind takes (``""`` for none)."""
        return kind_letters(self.ruleset(), self.kind) if self.kind else ""

    def letter(self) -> str | None:
        """The letter the next placed feature gets."""
        if not self.letters():
            return None
        if self.letter_choice is not None:
            return self.letter_choice
        dungeon = self.grid_dungeon()
        return next_letter(dungeon, self.ruleset(), self.kind) if dungeon is not None else self.letters()[0]

    # options -------------------------------------------------------------------------------
    def options_widget(self):
        widget = QWidget()
        layout = QHBoxLayout(widget)
        layout.setContentsMargins(4, 0, 4, 0)
        if self.fixed_kind is None:
            layout.addWidget(QLabel("Kind:"))
            kind_box = QComboBox()
            kind_box.setObjectName("feature_kind")
            kind_box.setToolTip("The kind of feature to place (the kinds the dungeon's ruleset defines)")
            for kind in self.ruleset_kinds():
                kind_box.addItem(kind.replace("_", " "), kind)
            if self.kind is not None:
                kind_box.setCurrentIndex(max(kind_box.findData(self.kind), 0))
            kind_box.currentIndexChanged.connect(lambda _i: self._choose_kind(kind_box.currentData()))
            layout.addWidget(kind_box)
            self._kind_box = kind_box
        label = QLabel("Letter:")
        letter_box = QComboBox()
        letter_box.setObjectName("feature_letter")
        letter_box.setToolTip(
            "The letter of the weapon or monster to place. Auto: the next letter whose "
            "weapon/monster partner is missing (weapon A, then monster A)"
        )
        letter_box.currentIndexChanged.connect(lambda _i: self._choose_letter(letter_box.currentData()))
        layout.addWidget(label)
        layout.addWidget(letter_box)
        self._letter_box = letter_box
        self._letter_label = label
        self.refresh_options()
        return widget

    def _choose_kind(self, kind) -> None:
        if kind:
            self.kind = kind
            self.letter_choice = None
            self.refresh_options()

    def _choose_letter(self, data) -> None:
        if getattr(self, "_refreshing", False):
            return
        self.letter_choice = data or None

    def refresh_options(self) -> None:
        """Bring the letter list and the automatic letter up to date with the dungeon."""
        box = self._letter_box
        if box is None:
            return
        try:
            letters = self.letters()
            self._refreshing = True
            box.clear()
            if letters:
                auto = next_letter(self.grid_dungeon(), self.ruleset(), self.kind) if self.grid_dungeon() else None
                box.addItem(f"Auto ({auto})" if auto else "Auto", "")
                for letter in letters:
                    box.addItem(letter, letter)
                if self.letter_choice is not None:
                    box.setCurrentIndex(max(box.findData(self.letter_choice), 0))
            box.setVisible(bool(letters))
            self._letter_label.setVisible(bool(letters))
        except RuntimeError:  # the options bar was cleared: the widgets are gone
            self._letter_box = None
        finally:
            self._refreshing = False

    # placing -------------------------------------------------------------------------------
    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if event.button() != Qt.MouseButton.LeftButton or self.refuse_family():
            return False
        self._watch_document()
        dungeon = self.grid_dungeon()
        ruleset = self.ruleset()
        if self.kind is None or (ruleset is not None and self.kind not in ruleset.elements):
            self.ctx.status(
                f"The ruleset '{dungeon.ruleset}' has no feature '{self.kind}'"
                if self.kind
                else f"The ruleset '{dungeon.ruleset}' defines no room features"
            )
            return True
        cell = grid_cell_at(dungeon, self.point(pos))
        if cell is None:
            self.ctx.status(f"Click a room of the grid to place a {self.kind.replace('_', ' ')}")
            return True
        self.place(cell)
        return True

    def place(self, cell: Cell) -> bool:
        """Place the tool's feature in room ``cell`` (replacing the room's feature); ``True``
        if an edit was made."""
        dungeon = self.grid_dungeon()
        label = dungeon.grid.cell_label(cell)
        feature = Feature(new_id(dungeon, self.kind), self.kind, (int(cell[0]), int(cell[1])), letter=self.letter())
        there = features_in(dungeon, cell)
        if any(f.kind == feature.kind and f.letter == feature.letter for f in there) and len(there) == 1:
            self.ctx.status(f"{label} already holds {describe_feature(feature)}")
            return False
        if there:
            position = min(dungeon.features.index(f) for f in there)
            replaced = ", ".join(describe_feature(f) for f in there)
            edit = Compound(
                [DeleteObjects(dungeon, [ref_of(f) for f in there]), AddObjects([("features", position, feature)])],
                f"Replace {replaced} with {describe_feature(feature)}",
            )
            message = (
                f"Replaced {replaced} with {describe_feature(feature)} in {label}: a room holds one feature "
                "(Ctrl+Z brings it back)"
            )
        else:
            edit = AddObjects([("features", None, feature)], f"Place {describe_feature(feature)}")
            message = f"Placed {describe_feature(feature)} in {label}"
        if not self.ctx.push(edit):
            return False
        kind_features = [f for f in dungeon.features if f.kind == feature.kind]
        self.ctx.status(message + _count_note(dungeon, self.ruleset(), feature.kind, kind_features))
        if self.ctx.scene is not None:
            self.ctx.scene.select_refs([ref_of(feature)])
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        self._watch_document()
        dungeon = self.grid_dungeon()
        if dungeon is None:
            return False
        cell = grid_cell_at(dungeon, self.point(pos))
        self.set_hover(view, None if cell is None else cell_rect(dungeon.grid, cell))
        return False


# catalogue -------------------------------------------------------------------------------------
_FEATURE_TOOLS = {
    "loot": (
        "Loot",
        "L",
        "Place a loot bag: click a room (a room holds one feature; clicking a room with a feature replaces it)",
    ),
    "dragon": ("Dragon", "D", "Place the dragon: click a room (replaces the room's feature)"),
    "weapon": (
        "Weapon",
        "W",
        "Place a lettered weapon: click a room; the letter is in Tool Options (Auto: the "
        "next letter whose monster is missing its weapon)",
    ),
    "monster": (
        "Monster",
        "M",
        "Place a lettered monster: click a room; the letter is in Tool Options (Auto: "
        "the next letter whose weapon is missing its monster)",
    ),
}


def _ruleset_kinds() -> list[str]:
    """Feature kinds of the bundled grid rulesets, in file order (extra kinds get tools too)."""
    try:
        from inkcrawl.rulesets import bundled_rulesets

        kinds: list[str] = []
        for ruleset in bundled_rulesets().values():
            if ruleset.family == "grid":
                kinds += [k for k in ruleset.elements if k not in kinds]
        return kinds
    except Exception:
        return []


def _specs() -> list[ToolSpec]:
    specs = [
        ToolSpec(
            "grid_passage",
            "Passage",
            "P",
            "grid",
            "Wall or passage: click an edge between two rooms to toggle it; drag across edges to set them "
            "all alike (one undo step)",
            PassageTool,
        ),
        ToolSpec(
            "grid_entryway",
            "Entryway",
            "E",
            "grid",
            "Entryway: click an outer edge (or just outside it) to add an arrow; click an arrow to remove it",
            EntrywayTool,
        ),
    ]
    used = {"V", "P", "E", "F"} | {key for _, key, _ in _FEATURE_TOOLS.values()}
    kinds = list(_FEATURE_TOOLS) + [k for k in _ruleset_kinds() if k not in _FEATURE_TOOLS]
    for kind in kinds:
        if kind in _FEATURE_TOOLS:
            name, key, tooltip = _FEATURE_TOOLS[kind]
        else:
            name = kind.replace("_", " ").capitalize()
            key = next((c.upper() for c in kind if c.isalpha() and c.upper() not in used), "")
            used.add(key)
            tooltip = f"Place a {kind.replace('_', ' ')}: click a room (replaces the room's feature)"
        specs.append(ToolSpec(f"grid_{kind}", name, key, "grid", tooltip, lambda ctx, k=kind: FeatureTool(ctx, k)))
    specs.append(
        ToolSpec(
            "grid_feature",
            "Feature",
            "F",
            "grid",
            "Place a feature of any kind the dungeon's ruleset defines (kind and letter in Tool Options)",
            lambda ctx: FeatureTool(ctx, None),
        )
    )
    return specs


#: The grid family's tools for the tool bar and the Tools menu (see :func:`editor.tools.catalogue.tool_specs`).
TOOL_SPECS: list[ToolSpec] = _specs()

__all__ = [
    "EntrywayTool",
    "FeatureTool",
    "GridTool",
    "PaintPassages",
    "PassageTool",
    "TOOL_SPECS",
    "edge_distance",
    "edge_segment",
    "edges_crossed",
    "features_in",
    "is_passage",
    "near_edge",
    "next_letter",
]
