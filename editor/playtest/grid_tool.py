"""Grid-family playtest on the canvas: :class:`GridPlaytestTool` and how it paints the game.

The tool plays the :class:`~editor.playtest.grid_session.GridSession` of the Playtest dock's page
(:class:`editor.playtest.grid.GridPanel`): hover a room to preview the current card, click to
draw it, R / wheel / right-click to turn it. It paints the seat on turn's segments, traps and
round numbers, the other seats' traps and the preview over the sheet; it never edits the
dungeon.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from editor.tools.catalogue import Tool
from inkcrawl.engines.grid import SIDES, TRAP

if TYPE_CHECKING:
    from editor.playtest.grid import GridPanel
    from editor.playtest.grid_session import GridSession

#: Colours of the designer's segments, traps and the hover preview.
INK = QColor(20, 80, 200, 220)
#: The ink of each seat's segments in hot-seat play (seat 1 keeps :data:`INK`).
SEAT_INKS = (INK, QColor(27, 122, 62, 230), QColor(126, 48, 160, 230), QColor(184, 98, 0, 230))
#: Other seats' traps on the map of the seat on turn.
OTHER_TRAP_INK = QColor(120, 120, 120, 170)
TRAP_INK = QColor("#c62828")
PREVIEW_OK = QColor(46, 125, 50, 170)
PREVIEW_BAD = QColor(198, 40, 40, 150)


class _PanelKeys(QObject):
    """R and Shift+R pressed in the playtest panel's card list turn the previewed card, as on
    the canvas."""

    def __init__(self, tool: GridPlaytestTool):
        super().__init__()
        self.tool = tool

    def eventFilter(self, watched, event) -> bool:
        turning = event.type() in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride) and event.key() == Qt.Key.Key_R
        if turning and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()  # R is the key that turns the card here, not a window shortcut
            else:
                self.tool.rotate(-1 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
            return True
        return False


class GridPlaytestTool(Tool):
    """The canvas tool while playtesting a grid dungeon: hover a room to preview the current
    card, click to draw it there, turn it with R, the mouse wheel or a right-click. Never
    edits the dungeon."""

    cursor = Qt.CursorShape.PointingHandCursor

    def __init__(self, ctx, panel: GridPanel):
        super().__init__(ctx)
        self.panel = panel
        self.hover: int | None = None
        self.turn = 0
        self._filter = _WheelFilter(self)
        # R turns the card whatever has the keyboard in the panel (the card list once clicked)
        self._panel_keys = _PanelKeys(self)
        panel.cards.installEventFilter(self._panel_keys)

    @property
    def session(self) -> GridSession:
        return self.panel.session

    def activate(self) -> None:
        super().activate()
        if self.ctx.view is not None:
            self.ctx.view.viewport().installEventFilter(self._filter)

    def deactivate(self) -> None:
        if self.ctx.view is not None:
            self.ctx.view.viewport().removeEventFilter(self._filter)
        super().deactivate()

    # geometry
    def room_at(self, pos: QPointF) -> int | None:
        """The room (engine index) under a sheet point, or ``None``."""
        g = self.ctx.dungeon.grid if self.ctx.dungeon is not None else None
        if g is None:
            return None
        col = int((pos.x() - g.origin_mm[0]) // g.cell_mm)
        row = int((pos.y() - g.origin_mm[1]) // g.cell_mm)
        rules = self.session.rules
        if 0 <= col < rules.columns and 0 <= row < rules.rows:
            return row * rules.columns + col
        return None

    def room_rect(self, room: int) -> QRectF:
        g = self.ctx.dungeon.grid
        col, row = self.session.rules.cells[room]
        return QRectF(g.origin_mm[0] + col * g.cell_mm, g.origin_mm[1] + row * g.cell_mm, g.cell_mm, g.cell_mm)

    # what the hovered room would get
    def preview(self) -> tuple[str, int, bool] | None:
        """``(card, mask, legal)`` for the hovered room and the current card, or ``None``."""
        card = self.panel.current_card()
        if card is None or self.hover is None:
            return None
        if card == TRAP:
            return card, 0, (self.hover, 0) in self.session.options(card)
        masks = self.session.masks_in(card, self.hover)
        if masks:
            return card, masks[self.turn % len(masks)], True
        rotations = self.session.rules.shapes[card]
        return card, rotations[self.turn % len(rotations)], False

    def rotate(self, steps: int = 1) -> None:
        """Turn the previewed segment to its next legal rotation."""
        self.turn += steps
        self._update()

    def _update(self) -> None:
        if self.ctx.view is not None:
            self.ctx.view.viewport().update()

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        self.hover = self.room_at(pos)
        if event.button() == Qt.MouseButton.RightButton:
            self.rotate()
            return True
        if event.button() != Qt.MouseButton.LeftButton:
            return True
        self.click_room(self.hover)
        return True

    def click_room(self, room: int | None) -> None:
        """Draw the current card in ``room`` (refused with a message when illegal)."""
        index = self.panel.current_index()
        if index is None:
            self.panel.say("No card to draw: press Next Round" if not self.session.finished else "The game is over")
            return
        if room is None:
            self.panel.say("Click a room of the grid")
            return
        card = self.session.cards[index].card
        if card == TRAP:
            choice = room
        else:
            masks = self.session.masks_in(card, room)
            if not masks:
                self.panel.say(self.session.why_not(card, room))
                self._update()
                return
            choice = (room, masks[self.turn % len(masks)])
        refused = self.session.play(index, choice)
        if refused:
            self.panel.say(refused)
        else:
            self.turn = 0
            self.panel.played()
        self._update()

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        room = self.room_at(pos)
        if room != self.hover:
            self.hover = room
            self._update()
        return True

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        return True

    def mouse_double_click(self, view, event, pos: QPointF) -> bool:
        return True

    def key_press(self, view, event) -> bool:
        if event.key() == Qt.Key.Key_R:
            self.rotate(-1 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
            return True
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):  # Next Seat / Next Round
            button = self.panel.next_button
            if button.isEnabled():
                button.click()
            else:
                self.panel.say(
                    "The game is over: New Game deals another"
                    if self.session.finished
                    else f"{button.text()} not yet: draw every revealed card first (or take a Tally Mark)"
                )
            return True
        return False

    def pointer_left(self, view) -> None:
        self.hover = None
        self._update()

    def paint_overlay(self, view, painter: QPainter) -> None:
        if self.ctx.dungeon is None or self.ctx.dungeon.family != "grid":
            return
        session, rules = self.session, self.session.rules
        me = session.me
        ink = seat_ink(session.seat) if session.hotseat else INK
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = max(1.0, self.ctx.dungeon.grid.cell_mm / 18)
        for room in range(rules.size):
            if me.seg[room]:
                _draw_segment(painter, self.room_rect(room), me.seg[room], ink, width)
            if me.trap[room]:
                _draw_trap(painter, self.room_rect(room), TRAP_INK, width)
            if me.round_of[room]:
                _draw_round(painter, self.room_rect(room), me.round_of[room], ink)
        # the other seats' traps: each hits this seat if its map has a segment there
        for seat, pm in enumerate(session.maps):
            if seat == session.seat:
                continue
            for room, _ in pm.traps:
                rect = self.room_rect(room)
                _draw_trap(painter, rect.adjusted(6, 6, -6, -6), OTHER_TRAP_INK, width / 2)
                if session.hotseat:
                    _draw_seat_mark(painter, rect, seat)
        preview = self.preview()
        if preview is not None:
            card, mask, legal = preview
            colour = PREVIEW_OK if legal else PREVIEW_BAD
            rect = self.room_rect(self.hover)
            if card == TRAP:
                _draw_trap(painter, rect, colour, width)
            else:
                _draw_segment(painter, rect, mask, colour, width)
            frame = QPen(colour, 0)
            frame.setCosmetic(True)
            painter.setPen(frame)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
        painter.restore()


class _WheelFilter(QObject):
    """Turns the previewed segment with the mouse wheel over the grid (Ctrl+wheel still zooms)."""

    def __init__(self, tool: GridPlaytestTool):
        super().__init__()
        self.tool = tool

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Wheel and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            view = self.tool.ctx.view
            if view is not None and self.tool.room_at(view.mapToScene(event.position().toPoint())) is not None:
                delta = event.angleDelta().y()
                if delta:
                    self.tool.rotate(1 if delta < 0 else -1)
                return True
        return False


def _draw_segment(painter: QPainter, rect: QRectF, mask: int, colour: QColor, width: float) -> None:
    centre = rect.center()
    pen = QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    ends = [side for side in SIDES if mask & (1 << SIDES.index(side))]
    half = rect.width() / 2
    offsets = {"north": (0, -half), "east": (half, 0), "south": (0, half), "west": (-half, 0)}
    for side in ends:
        dx, dy = offsets[side]
        painter.drawLine(centre, QPointF(centre.x() + dx, centre.y() + dy))
    if len(ends) == 1:  # a dead end's closed end: a bar across the centre
        dx, dy = offsets[ends[0]]
        bar = width * 2.5 / max(half, 1e-6)
        painter.drawLine(
            QPointF(centre.x() - dy * bar, centre.y() - dx * bar), QPointF(centre.x() + dy * bar, centre.y() + dx * bar)
        )


def _draw_trap(painter: QPainter, rect: QRectF, colour: QColor, width: float) -> None:
    inner = rect.adjusted(rect.width() * 0.25, rect.height() * 0.25, -rect.width() * 0.25, -rect.height() * 0.25)
    painter.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.drawLine(inner.topLeft(), inner.bottomRight())
    painter.drawLine(inner.topRight(), inner.bottomLeft())


def seat_ink(seat: int) -> QColor:
    """The ink of a seat's segments (hot-seat), seat 0-based."""
    return SEAT_INKS[seat % len(SEAT_INKS)]


def _draw_seat_mark(painter: QPainter, rect: QRectF, seat: int) -> None:
    """A small seat number by another seat's trap (lower right corner of the room)."""
    painter.save()
    painter.translate(rect.right() - rect.width() * 0.3, rect.bottom() - rect.height() * 0.3)
    painter.scale(0.25, 0.25)
    font = QFont()
    font.setPixelSize(int(rect.height() * 0.16 * 4))
    painter.setFont(font)
    painter.setPen(OTHER_TRAP_INK.darker(130))
    painter.drawText(
        QRectF(0, 0, rect.width(), rect.height()), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, str(seat + 1)
    )
    painter.restore()


def _draw_round(painter: QPainter, rect: QRectF, number: int, ink: QColor = INK) -> None:
    painter.save()
    painter.translate(rect.left() + rect.width() * 0.06, rect.top() + rect.height() * 0.06)
    painter.scale(0.25, 0.25)
    font = QFont()
    font.setPixelSize(int(rect.height() * 0.18 * 4))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(ink)
    painter.drawText(
        QRectF(0, 0, rect.width(), rect.height()), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, str(number)
    )
    painter.restore()
