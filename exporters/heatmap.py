"""Heatmaps as PNG, for ``inkcrawl simulate --heatmap``: room usage of grid dungeons, and where
the lines go on line dungeons (:func:`line_heatmap_image`).

Registered as the renderer ``heatmap`` of the ``inkcrawl.renderers`` entry-point group (the
core finds it there and never imports exporters):

``write_heatmap_png(path, entry, usage, source=None, dpi=150, caption=None)``
    ``entry`` is the dungeon's game data (docs/game-data.md), ``usage`` one share in 0..1 per
    room, row by row (``inkcrawl simulate``'s ``rooms[].entered``); for a line dungeon, the
    simulation's ``heatmap`` object. When ``source`` (a dungeon
    file, pack folder or pack.json) holds the dungeon with the entry's id, its real play sheet
    is rendered (:func:`exporters.pages.sheet_page`, :func:`exporters.qt.svg_to_png`);
    otherwise (a game.json) a plain board is drawn from the game data alone: rooms, walls,
    passages, entryways and feature letters. Each room is then tinted by multiplying its
    pixels with a colour from pale yellow (rarely entered) to deep red (the most entered room),
    so the ink of walls and glyphs stays readable, and its percentage is printed in its
    upper-right corner. A strip under the sheet gives the colour scale and ``caption``.
"""

from __future__ import annotations

from pathlib import Path

from exporters import style

#: Colour stops of the tint, from share 0 (no tint) to the largest share.
STOPS = ((0.0, (255, 255, 255)), (0.15, (255, 236, 160)), (0.5, (247, 160, 64)), (1.0, (196, 32, 36)))
#: Height of the legend strip under the sheet (mm).
LEGEND_MM = 14.0


def tint(t: float) -> tuple[int, int, int]:
    """The tint colour for a relative share ``t`` in 0..1."""
    t = min(max(t, 0.0), 1.0)
    for (t0, c0), (t1, c1) in zip(STOPS, STOPS[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0) if t1 > t0 else 0.0
            red, green, blue = (round(a + (b - a) * f) for a, b in zip(c0, c1))
            return red, green, blue
    return STOPS[-1][1]


def _text(
    painter, rect_mm: tuple[float, float, float, float], px: float, size_mm: float, flags, text: str, bold: bool = False
) -> None:
    """Draw ``text`` in a rectangle given in mm on a painter scaled to mm, at a font size in mm."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QFont

    painter.save()
    painter.resetTransform()
    font = QFont(style.FONT_FAMILY)
    font.setBold(bold)
    font.setPixelSize(max(1, round(size_mm * px)))
    painter.setFont(font)
    x, y, w, h = rect_mm
    painter.drawText(QRectF(x * px, y * px, w * px, h * px), flags, text)
    painter.restore()


def _legend(painter, sheet_bottom_mm: float, width_mm: float, px: float, top: str, what: str, caption) -> None:
    """The strip under the sheet: the colour scale from 0% to ``top`` and ``what: caption``."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor

    painter.setPen(QColor(style.palette().ink))
    legend_y = sheet_bottom_mm + 2
    bar_x, bar_w, bar_h = 10.0, min(80.0, width_mm - 20), 4.0
    steps = 64
    for k in range(steps):
        painter.fillRect(
            QRectF(bar_x + bar_w * k / steps, legend_y, bar_w / steps + 0.05, bar_h), QColor(*tint(k / (steps - 1)))
        )
    small = style.SMALL_MM
    _text(painter, (bar_x, legend_y + bar_h + 0.5, 20, 4), px, small, Qt.AlignmentFlag.AlignLeft, "0%")
    _text(painter, (bar_x + bar_w - 20, legend_y + bar_h + 0.5, 20, 4), px, small, Qt.AlignmentFlag.AlignRight, top)
    _text(
        painter,
        (bar_x + bar_w + 4, legend_y - 1, max(width_mm - bar_w - 24, 20), 10),
        px,
        small,
        Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap,
        what + (f": {caption}" if caption else ""),
    )


def _sheet_image(entry: dict, source: str | None, dpi: float):
    """The rendered sheet as a QImage and the transform (offset mm, scale) from sheet mm to
    image mm, or ``None`` when the source does not hold this dungeon."""
    if source is None:
        return None
    from PySide6.QtGui import QImage

    from exporters.pages import PageOptions, sheet_page
    from exporters.paper import PaperError, layout_page
    from exporters.qt import svg_to_png
    from inkcrawl.loading import open_dungeons

    opened = next(
        (
            o
            for o in open_dungeons([source]).dungeons
            if o.dungeon.id == entry.get("id") and o.dungeon.family == entry.get("family")
        ),
        None,
    )
    if opened is None:
        return None
    options = PageOptions()
    try:
        page = sheet_page(opened.dungeon, opened.ruleset, options)
    except PaperError:
        return None
    paper = opened.dungeon.sheet.paper
    layout = layout_page(
        (paper.width_mm, paper.height_mm),
        paper.margin_mm,
        options.paper,
        options.orientation,
        options.margin_mm,
        options.fit,
        options.bleed_mm,
        options.crop_marks,
    )
    # PySide6 takes the format as a str (bytes are refused); its stubs say bytes
    image = QImage.fromData(svg_to_png(page.svg, page.width_mm, page.height_mm, dpi), "PNG")  # type: ignore[arg-type]
    return image, (page.width_mm, page.height_mm), layout.offset, layout.scale


def _plain_board(entry: dict, dpi: float):
    """A plain board drawn from the game data alone (no sheet available)."""
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPolygonF

    from exporters.qt import ensure_app

    ensure_app()
    board = entry["board"]
    columns, rows, cell = board["columns"], board["rows"], float(board["cell_mm"])
    margin = max(12.0, cell * 0.6)
    width_mm, height_mm = columns * cell + 2 * margin, rows * cell + 2 * margin
    px = dpi / 25.4
    image = QImage(round(width_mm * px), round(height_mm * px), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.scale(px, px)
    ink = QColor(style.palette().ink)
    offsets = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
    for room in entry["rooms"]:
        c, r = room["cell"]
        x, y = margin + c * cell, margin + r * cell
        painter.setPen(QPen(QColor(style.palette().grid_line), style.OUTLINE_MM))
        painter.drawRect(QRectF(x, y, cell, cell))
        ends = {
            "north": ((x, y), (x + cell, y)),
            "east": ((x + cell, y), (x + cell, y + cell)),
            "south": ((x, y + cell), (x + cell, y + cell)),
            "west": ((x, y), (x, y + cell)),
        }
        for side, (a, b) in ends.items():
            if side not in room["open"]:
                painter.setPen(QPen(ink, style.WALL_MM))
                painter.drawLine(QPointF(*a), QPointF(*b))
            elif side not in [w["side"] for w in entry["entryways"] if list(w["cell"]) == [c, r]]:
                mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
                h = cell * 0.07
                painter.setPen(QPen(ink, style.FINE_MM))
                painter.setBrush(ink)
                painter.drawPolygon(
                    QPolygonF([QPointF(mx, my - h), QPointF(mx + h, my), QPointF(mx, my + h), QPointF(mx - h, my)])
                )
                painter.setBrush(Qt.BrushStyle.NoBrush)
        feature = room.get("feature")
        if feature:
            text = {"loot": "L", "dragon": "D", "weapon": "w", "monster": "m"}.get(feature["kind"], "?")
            text += feature.get("letter", "")
            painter.setPen(ink)
            _text(painter, (x, y, cell, cell), px, max(cell * 0.25, 2.0), Qt.AlignmentFlag.AlignCenter, text, True)
        _text(
            painter,
            (x + cell * 0.06, y + cell * 0.04, cell, cell * 0.3),
            px,
            max(cell * 0.12, 1.5),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
            room.get("label", ""),
        )
    for way in entry["entryways"]:
        c, r = way["cell"]
        dc, dr = offsets[way["side"]]
        cx, cy = margin + (c + 0.5) * cell + dc * cell * 0.5, margin + (r + 0.5) * cell + dr * cell * 0.5
        tip = QPointF(cx + dc * 1.0, cy + dr * 1.0)
        tail = QPointF(cx + dc * cell * 0.4, cy + dr * cell * 0.4)
        painter.setPen(QPen(ink, style.GLYPH_MM * 2))
        painter.drawLine(tail, tip)
        nx, ny = -dr, dc
        head = cell * 0.12
        painter.setBrush(ink)
        painter.drawPolygon(
            QPolygonF(
                [
                    tip,
                    QPointF(tip.x() + dc * head + nx * head, tip.y() + dr * head + ny * head),
                    QPointF(tip.x() + dc * head - nx * head, tip.y() + dr * head - ny * head),
                ]
            )
        )
        painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.end()
    return (
        image,
        (width_mm, height_mm),
        (margin - float(board["origin_mm"][0]), margin - float(board["origin_mm"][1])),
        1.0,
    )


def _plain_line_sheet(entry: dict, dpi: float):
    """A line sheet drawn from the game data alone: the paper, area outlines and walls."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPolygonF

    from exporters.qt import ensure_app

    ensure_app()
    paper = entry.get("paper") or {}
    width_mm, height_mm = float(paper.get("width_mm", 210)), float(paper.get("height_mm", 297))
    px = dpi / 25.4
    image = QImage(round(width_mm * px), round(height_mm * px), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(px, px)
    faint = QPen(QColor("#b8b8b8"), 0.3)
    painter.setPen(faint)
    for area in entry.get("areas") or []:
        painter.drawPolygon(QPolygonF([QPointF(float(x), float(y)) for x, y in area.get("polygon") or []]))
    for wall in entry.get("walls") or []:
        pen = QPen(QColor(style.palette().ink), float(wall.get("width_mm") or 1.0))
        painter.setPen(pen)
        points = [QPointF(float(x), float(y)) for x, y in wall.get("points") or []]
        if len(points) > 1:
            painter.drawPolyline(QPolygonF(points))
    painter.end()
    return image, (width_mm, height_mm), (0.0, 0.0), 1.0


def line_heatmap_image(entry: dict, heatmap: dict, source: str | None = None, dpi: float = 150, caption=None):
    """Where lines go on a line sheet, as a QImage: each cell of ``heatmap`` (``inkcrawl
    simulate``'s ``heatmap`` of a line dungeon: ``cell_mm``, ``origin_mm``, ``permille`` rows)
    tinted by the share of games whose line passed through it, over the sheet (from ``source``
    when it holds the dungeon, else drawn from the game data). Raises ``ValueError`` for a
    heatmap whose rows do not match its size."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QColor, QImage, QPainter

    from exporters.qt import ensure_app

    ensure_app()
    cells = heatmap["permille"]
    if len(cells) != heatmap["rows"] or any(len(row) != heatmap["columns"] for row in cells):
        raise ValueError("the heatmap's rows do not match its size")
    sheet = _sheet_image(entry, source, dpi) or _plain_line_sheet(entry, dpi)
    base, (width_mm, _), (ox, oy), scale = sheet
    px = dpi / 25.4
    image = QImage(base.width(), base.height() + round(LEGEND_MM * px), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.drawImage(0, 0, base)
    painter.scale(px, px)
    cell = float(heatmap["cell_mm"]) * scale
    x0, y0 = ox + float(heatmap["origin_mm"][0]) * scale, oy + float(heatmap["origin_mm"][1]) * scale
    top = max((max(row) for row in cells if row), default=0) or 1
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Multiply)
    for r, row in enumerate(cells):
        for c, value in enumerate(row):
            if value:
                painter.fillRect(QRectF(x0 + c * cell, y0 + r * cell, cell, cell), QColor(*tint(value / top)))
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
    _legend(painter, base.height() / px, width_mm, px, f"{top / 10:.0f}%", "Where lines go (% of games)", caption)
    painter.end()
    return image


def heatmap_image(entry: dict, usage, source: str | None = None, dpi: float = 150, caption: str | None = None):
    """The heatmap as a QImage (see the module docstring; a line dungeon's ``usage`` is the
    ``heatmap`` of its simulation: :func:`line_heatmap_image`)."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QImage, QPainter

    from exporters.qt import ensure_app

    if entry.get("family") == "line":
        return line_heatmap_image(entry, usage, source, dpi, caption)
    ensure_app()
    board = entry["board"]
    rooms = entry["rooms"]
    if len(usage) != len(rooms):
        raise ValueError(f"{len(usage)} usage values for {len(rooms)} rooms")
    sheet = _sheet_image(entry, source, dpi) or _plain_board(entry, dpi)
    base, (width_mm, height_mm), (ox, oy), scale = sheet
    px = dpi / 25.4
    image = QImage(base.width(), base.height() + round(LEGEND_MM * px), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.drawImage(0, 0, base)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.scale(px, px)
    cell = float(board["cell_mm"]) * scale
    x0, y0 = ox + float(board["origin_mm"][0]) * scale, oy + float(board["origin_mm"][1]) * scale
    top = max(usage) if usage and max(usage) > 0 else 1.0
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Multiply)
    for room, share in zip(rooms, usage):
        c, r = room["cell"]
        painter.fillRect(QRectF(x0 + c * cell, y0 + r * cell, cell, cell), QColor(*tint(share / top)))
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
    painter.setPen(QColor(style.palette().ink))
    pad = cell * 0.05
    for room, share in zip(rooms, usage):
        c, r = room["cell"]
        box = (x0 + c * cell + pad, y0 + r * cell + pad, cell - 2 * pad, cell - 2 * pad)
        _text(
            painter,
            box,
            px,
            max(cell * 0.16, 1.6),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop,
            f"{share * 100:.0f}%",
            True,
        )
    _legend(painter, base.height() / px, width_mm, px, f"{top * 100:.0f}%", "Rooms entered (% of players)", caption)
    painter.end()
    return image


def heatmap_png(entry: dict, usage, source: str | None = None, dpi: float = 150, caption: str | None = None) -> bytes:
    """The heatmap as PNG bytes."""
    from PySide6.QtCore import QBuffer, QIODevice

    from exporters.qt import byte_string

    image = heatmap_image(entry, usage, source, dpi, caption)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return byte_string(buffer.data())


def write_heatmap_png(
    path,
    entry: dict,
    usage,
    source: str | None = None,
    dpi: float = 150,
    caption: str | None = None,
    force: bool = False,
) -> None:
    """Write the heatmap PNG to ``path`` (atomically; ``force`` replaces a read-only file, see
    :func:`inkcrawl.jsonio.atomic_target`). Raises ``OSError`` when it cannot be written
    (:class:`inkcrawl.jsonio.WriteRefused` when refused) and ``ValueError`` for usage values
    that do not match the rooms."""
    from inkcrawl.jsonio import check_target, write_bytes_atomic

    check_target(path, force)  # before the drawing: refused at once
    write_bytes_atomic(Path(path), heatmap_png(entry, usage, source, dpi, caption), force)
