"""Line-family playtest: draw a path with the mouse and read the referee's live breakdown.

:class:`LineSession` is the Qt-free state of one playtest: the path as polylines (sheet mm),
the chosen character and player count, and the referee's result for that path
(:func:`inkcrawl.engines.line.referee`, the same breakdown ``inkcrawl score`` prints).
:class:`LinePlaytestTool` turns mouse drags on the canvas into the path, and
:class:`LinePanel` is the Playtest dock's page showing the breakdown section by section.

Drawing follows docs/play-files.md ("The path", RULES.md 2 "Drawing rules"):

* the first press must be within a Start's reach (its radius plus half the pen width);
* the line is continuous: releasing the button and pressing again continues the same polyline
  from its last point (a straight stretch to where the pen comes down again);
* a stroke is independent of drawing speed: every input sample is used (Qt's merging of
  mouse moves is off while playtesting) and the path between samples follows a centripetal
  Catmull-Rom curve through them (a point every :data:`CURVE_STEP_MM`), not the chord, so a
  fast stroke's sparse samples give the route a slow stroke of the same curve gives;
* touching a portal entry lifts the pen (the referee ignores what follows in that polyline, so
  the session stops adding points); the next press must then be on a portal exit of the same
  channel, which starts a new polyline: the portal jump.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import shapely
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from editor.tools.catalogue import Tool
from inkcrawl.engines.line import LineRules, PlayError, first_touch, format_breakdown, referee

#: A new point is added to the path only this far (mm) from the last one (fewer points, same line).
MIN_STEP_MM = 0.25
#: Between input samples the path follows the curve through them, a point every this many mm.
CURVE_STEP_MM = 0.5
#: Where the pen lifts on a portal entry, the path ends this far (mm) inside the entry's touch zone.
LIFT_DEPTH_MM = 0.05
#: The breakdown is recomputed at most this often while drawing (ms); on release it is at once.
REFRESH_MS = 60
#: Colour of the playtest line on the canvas (a marker's blue, distinct from the sheet's black ink).
PATH_COLOUR = QColor(20, 80, 200, 200)


def _beyond(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> tuple[float, float]:
    """The point before ``p`` on the parabola through ``p``, ``q``, ``r`` (equally spaced): what
    the curve's first or last stretch bends by, where there is no sample beyond the end."""
    return (3 * p[0] - 3 * q[0] + r[0], 3 * p[1] - 3 * q[1] + r[1])


def _curve(
    p0: tuple[float, float], p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float]
) -> list[tuple[float, float]]:
    """Points of the centripetal Catmull-Rom curve from ``p1`` (excluded) to ``p2`` (included),
    with ``p0`` and ``p3`` the samples around them, a point every :data:`CURVE_STEP_MM`."""
    length = math.dist(p1, p2)
    steps = max(1, math.ceil(length / CURVE_STEP_MM))
    if length == 0:
        return [p2]

    def knot(t: float, a, b) -> float:
        return t + max(math.dist(a, b), 1e-9) ** 0.5

    t0 = 0.0
    t1 = knot(t0, p0, p1) if p0 != p1 else t0 + 1e-9
    t2 = knot(t1, p1, p2)
    t3 = knot(t2, p2, p3) if p3 != p2 else t2 + 1e-9

    def lerp(a, b, ta: float, tb: float, t: float):
        w = (t - ta) / (tb - ta)
        return (a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w)

    out = []
    for i in range(1, steps + 1):
        t = t1 + (t2 - t1) * i / steps
        a1, a2, a3 = lerp(p0, p1, t0, t1, t), lerp(p1, p2, t1, t2, t), lerp(p2, p3, t2, t3, t)
        b1, b2 = lerp(a1, a2, t0, t2, t), lerp(a2, a3, t1, t3, t)
        c = lerp(b1, b2, t1, t2, t)
        out.append((round(c[0], 3), round(c[1], 3)))
    out[-1] = p2
    return out


class LineSession:
    """One line-family playtest on compiled game data.

    ``rules`` is the :class:`inkcrawl.engines.line.LineRules` of the dungeon's game data entry.
    ``polylines`` is the path (lists of ``(x, y)`` in sheet mm); ``character`` a character id of
    the game data's ``characters`` or ``None``; ``players`` the number of players at the table
    (for the key supply). ``pen_width_mm`` comes from the game data (the ruleset's
    ``pen_width_mm``). ``lifted_at`` is the portal entry element (game data dict) the last
    polyline touched, when the pen is lifted for a portal jump, else ``None``.
    """

    def __init__(self, rules: LineRules):
        self.rules = rules
        self.entry = rules.entry
        self.pen_width_mm = float(rules.pen_width_mm)
        self.polylines: list[list[tuple[float, float]]] = []
        self.character: str | None = None
        self.players = max(1, int(rules.players.get("min", 1)))
        self.lifted_at: dict | None = None
        self.drawing = False
        self._samples: list[tuple[float, float]] = []  # input samples of the stroke being drawn
        self._tail = 0  # where the straight stretch to the newest sample starts in the polyline
        self.result: dict | None = None
        self.problems: list[tuple[str, str]] = []
        self.error: str | None = None
        self._zones = rules.for_pen(self.pen_width_mm)["zones"]
        self._fp = list(rules.fp_elements)
        self._entries = [e for e in self._fp if e.kind == "portal_entry"]
        self._entry_zones = [self._zones[self._fp.index(e)] for e in self._entries]
        self._entry_tree = shapely.STRtree(self._entry_zones) if self._entry_zones else None

    # .. characters and starts ..
    def characters(self) -> list[tuple[str, str]]:
        """``(id, name)`` of every character of the game data, in the data's order."""
        return [(key, (value or {}).get("name") or key) for key, value in (self.rules.characters or {}).items()]

    def start_near(self, point: tuple[float, float]) -> dict | None:
        """The Start whose reach (radius plus half the pen width) holds ``point``, or ``None``."""
        reach = [
            (math.dist(point, s["at"]), s)
            for s in self.rules.starts
            if math.dist(point, s["at"]) <= s["radius"] + self.pen_width_mm / 2
        ]
        return min(reach, key=lambda pair: pair[0])[1] if reach else None

    def starts_text(self) -> str:
        """Where the Starts are, for hints: ``st1 at (50, 35)``."""
        return ", ".join(f"{s['id']} at ({s['at'][0]:g}, {s['at'][1]:g})" for s in self.rules.starts)

    def _exits_of(self, channel) -> list:
        return [e for e in self._fp if e.kind == "portal_exit" and e.channel == channel]

    def exits_text(self, channel) -> str:
        """Where the exits of a portal channel are, for hints."""
        return ", ".join(f"{e.id} at ({e.at[0]:g}, {e.at[1]:g})" for e in self._exits_of(channel)) or "none"

    # .. drawing ..
    def press(self, point: tuple[float, float]) -> str | None:
        """The pen comes down at ``point`` (mm). Returns ``None`` when drawing goes on, or the
        reason it cannot start here (the path then stays as it was)."""
        point = (float(point[0]), float(point[1]))
        if not self.polylines:
            if self.start_near(point) is None:
                return f"A path begins at a Start: press within its circle ({self.starts_text() or 'no Start'})"
            self.polylines.append([point])
        elif self.lifted_at is not None:
            channel = self.lifted_at.channel
            landing = next(
                (e for e in self._exits_of(channel) if shapely.intersects_xy(self._zones[self._fp.index(e)], *point)),
                None,
            )
            if landing is None:
                return (
                    f"The pen lifted at portal entry {self.lifted_at.id}: continue at an exit of channel "
                    f"{channel} ({self.exits_text(channel)})"
                )
            self.polylines.append([point])
            self.lifted_at = None
        else:
            self._append(point)
        self.drawing = True
        self._samples = [point]
        self._tail = len(self.polylines[-1])
        self._check_lift()
        return None

    def move(self, point: tuple[float, float]) -> bool:
        """The pen moves to ``point`` while down; ``True`` when the path changed."""
        if not self.drawing or self.lifted_at is not None or not self.polylines:
            return False
        point = (float(point[0]), float(point[1]))
        if math.dist(self._samples[-1] if self._samples else self.polylines[-1][-1], point) < MIN_STEP_MM:
            return False
        self._samples.append(point)
        self._extend_curve(final=False)
        self._check_lift()
        return True

    def release(self) -> None:
        """The pen comes up (the next press continues the path)."""
        if self.drawing and self.lifted_at is None and len(self._samples) >= 2:
            self._extend_curve(final=True)
            self._check_lift()
        self.drawing = False
        self._samples = []

    def _extend_curve(self, final: bool) -> None:
        """Replace the straight stretch to the previous sample by the curve through the
        samples, and draw a straight stretch to the newest one (the curve there needs the next
        sample); ``final`` (the pen comes up) curves the last stretch too."""
        line, samples = self.polylines[-1], self._samples
        del line[self._tail :]
        if final:
            a, b = samples[-2], samples[-1]
            before = samples[-3] if len(samples) >= 3 else a
            line.extend(_curve(before, a, b, _beyond(b, a, before)))
            self._tail = len(line)
            return
        if len(samples) >= 3:
            a, b = samples[-3], samples[-2]
            before = samples[-4] if len(samples) >= 4 else _beyond(a, b, samples[-1])
            line.extend(_curve(before, a, b, samples[-1]))
        self._tail = len(line)
        line.append(samples[-1])

    def clear(self) -> None:
        """Forget the path (the breakdown empties)."""
        self.polylines = []
        self.lifted_at = None
        self.drawing = False
        self._samples = []
        self._tail = 0
        self.result = None
        self.problems = []
        self.error = None

    def _append(self, point: tuple[float, float]) -> bool:
        line = self.polylines[-1]
        if math.dist(line[-1], point) < MIN_STEP_MM:
            return False
        line.append(point)
        return True

    def _check_lift(self) -> None:
        """Lift the pen when the last polyline touches a portal entry, as the referee reads it:
        the points after the touch are dropped and the next polyline must start at an exit."""
        if self._entry_tree is None or not self.polylines:
            return
        points = np.asarray(self.polylines[-1], dtype=float)
        hit = first_touch(points, self._entry_zones, self._entry_tree)
        if hit is None:
            return
        segment, fraction, which = hit
        kept = [tuple(p) for p in self.polylines[-1][: segment + 1]]
        if fraction > 0 and segment + 1 < len(points):
            # end just inside the entry's touch zone, so the saved (rounded) point still touches it
            a, b = points[segment], points[segment + 1]
            length = float(np.hypot(*(b - a)))
            inside = min(1.0, fraction + LIFT_DEPTH_MM / length) if length else 1.0
            cut = a + inside * (b - a)
            kept.append((round(float(cut[0]), 3), round(float(cut[1]), 3)))
        self.polylines[-1] = kept
        self.lifted_at = self._entries[which]
        self.drawing = False

    # .. the referee ..
    def play(self) -> dict:
        """The play document of the current path (docs/play-files.md)."""
        play = {
            "type": "play",
            "format_version": 1,
            "dungeon": self.rules.id,
            "path": [[[round(x, 3), round(y, 3)] for x, y in line] for line in self.polylines],
            "character": self.character,
            "players": self.players,
        }
        return play

    def judge(self) -> dict | None:
        """Run the referee on the current path: sets ``result`` (the breakdown), or ``problems``
        (the play cannot be scored, e.g. not from a Start) or ``error``; returns ``result``."""
        self.result, self.problems, self.error = None, [], None
        if not self.polylines:
            return None
        try:
            self.result = referee(self.rules, self.play())
        except PlayError as exc:
            self.problems = list(exc.problems)
        except (ValueError, TypeError, KeyError, IndexError, ArithmeticError, shapely.errors.ShapelyError) as exc:
            self.error = f"the referee could not score this path: {type(exc).__name__}: {exc}"
        return self.result

    def breakdown_text(self) -> str:
        """The breakdown as ``inkcrawl score`` prints it (empty without a result)."""
        return format_breakdown(self.result) if self.result is not None else ""

    def save_play(self, path: Path, force: bool = False) -> None:
        """Write the play file atomically (a symlink is written through). Raises
        :class:`inkcrawl.jsonio.WriteRefused` for a read-only file unless ``force``, and
        ``OSError`` when it cannot be written; the file on disk is then unchanged."""
        from inkcrawl.jsonio import write_text_atomic

        write_text_atomic(Path(path), json.dumps(self.play(), indent=2, ensure_ascii=False) + "\n", force=force)


class LinePlaytestTool(Tool):
    """The canvas tool while playtesting a line dungeon: drag to draw the path (pen width from
    the ruleset), press again to continue it, Escape to clear it. Never edits the dungeon."""

    cursor = Qt.CursorShape.CrossCursor

    def __init__(self, ctx, panel: LinePanel):
        super().__init__(ctx)
        self.panel = panel

    @property
    def session(self) -> LineSession:
        return self.panel.session

    def mouse_press(self, view, event, pos: QPointF) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return True
        refused = self.session.press((pos.x(), pos.y()))
        if refused:
            self.panel.say(refused)
        else:
            self.panel.message.clear()
            self.panel.changed(now=False)
        view.viewport().update()
        return True

    def mouse_move(self, view, event, pos: QPointF) -> bool:
        if event.buttons() & Qt.MouseButton.LeftButton and self.session.move((pos.x(), pos.y())):
            self.panel.changed(now=False)
            view.viewport().update()
        return True

    def mouse_release(self, view, event, pos: QPointF) -> bool:
        if event.button() == Qt.MouseButton.LeftButton:
            if self.session.drawing:
                self.session.move((pos.x(), pos.y()))
            self.session.release()
            self.panel.changed(now=True)
            view.viewport().update()
        return True

    def mouse_double_click(self, view, event, pos: QPointF) -> bool:
        return self.mouse_press(view, event, pos)

    def key_press(self, view, event) -> bool:
        if event.key() == Qt.Key.Key_Escape:
            self.panel.clear()
            return True
        return False

    def cancel(self) -> None:
        self.session.release()

    def activate(self) -> None:
        """Every mouse sample counts while drawing: Qt's merging of mouse moves (on by default
        under X11) is off while this tool is active."""
        super().activate()
        app = QGuiApplication.instance()
        attribute = Qt.ApplicationAttribute.AA_CompressHighFrequencyEvents
        self._compressed = QGuiApplication.testAttribute(attribute)
        if app is not None:
            QGuiApplication.setAttribute(attribute, False)

    def deactivate(self) -> None:
        super().deactivate()
        if getattr(self, "_compressed", None) is not None:
            QGuiApplication.setAttribute(Qt.ApplicationAttribute.AA_CompressHighFrequencyEvents, self._compressed)
            self._compressed = None

    def paint_overlay(self, view, painter: QPainter) -> None:
        session = self.session
        w = session.pen_width_mm
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(PATH_COLOUR, w, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        previous = None
        for line in session.polylines:
            if previous is not None:  # the portal jump: a thin dashed hop, not ink
                jump = QPen(PATH_COLOUR, 0, Qt.PenStyle.DashLine)
                jump.setCosmetic(True)
                painter.setPen(jump)
                painter.drawLine(QPointF(*previous), QPointF(*line[0]))
            painter.setPen(pen)
            if len(line) == 1:
                painter.setBrush(QBrush(PATH_COLOUR))
                painter.setPen(Qt.PenStyle.NoPen)
                painter.drawEllipse(QPointF(*line[0]), w / 2, w / 2)
                painter.setBrush(Qt.BrushStyle.NoBrush)
            else:
                path = QPainterPath(QPointF(*line[0]))
                for x, y in line[1:]:
                    path.lineTo(x, y)
                painter.drawPath(path)
            previous = line[-1]
        result = session.result
        if result is not None and result.get("ignored"):
            at = result["ignored"]["at"]
            ring = QPen(QColor("#d32f2f"), 0.6)
            painter.setPen(ring)
            painter.drawEllipse(QPointF(at[0], at[1]), 3, 3)
        if session.lifted_at is not None:
            ring = QPen(QColor("#2e7d32"), 0.5, Qt.PenStyle.DashLine)
            painter.setPen(ring)
            for e in session._exits_of(session.lifted_at.channel):
                radius = float(e.data.get("size_mm") or 8) / 2 + 2
                painter.drawEllipse(QPointF(e.at[0], e.at[1]), radius, radius)
        painter.restore()


class LinePanel(QWidget):
    """The Playtest dock's page for a line dungeon: character, players, the breakdown section
    by section (the referee's, as ``inkcrawl score`` prints it), the total, Clear and Save."""

    def __init__(self, session: LineSession, controller, parent=None):
        super().__init__(parent)
        self.session = session
        self.controller = controller
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.character_box = QComboBox()
        self.character_box.setObjectName("playtest_character")
        self.character_box.addItem("No character", None)
        for key, name in session.characters():
            self.character_box.addItem(name, key)
        self.character_box.setToolTip("The character's ability changes how elements are completed (RULES.md 2)")
        self.character_box.currentIndexChanged.connect(self._character_changed)
        form.addRow("Character:", self.character_box)
        self.players_box = QSpinBox()
        self.players_box.setObjectName("playtest_players")
        low = int(session.rules.players.get("min", 1))
        self.players_box.setRange(low, max(low, int(session.rules.players.get("max", 4))))
        self.players_box.setValue(session.players)
        self.players_box.setToolTip("Players at the table: sets the key supply")
        self.players_box.valueChanged.connect(self._players_changed)
        form.addRow("Players:", self.players_box)
        form.addRow("Pen:", QLabel(f"{session.pen_width_mm:g} mm (the ruleset's pen width)"))
        layout.addLayout(form)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("playtest_hint")
        layout.addWidget(self.hint)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setObjectName("playtest_message")
        self.message.setStyleSheet("color: #b71c1c")
        layout.addWidget(self.message)
        self.tree = QTreeWidget()
        self.tree.setObjectName("playtest_breakdown")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["VP", "Breakdown"])
        self.tree.setRootIsDecorated(True)
        self.tree.setColumnWidth(0, 48)
        self.tree.setMinimumHeight(180)
        layout.addWidget(self.tree, 1)
        self.total = QLabel()
        self.total.setObjectName("playtest_total")
        bold = QFont(self.total.font())
        bold.setBold(True)
        self.total.setFont(bold)
        layout.addWidget(self.total)
        buttons = QHBoxLayout()
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Clear the path and start again (Esc)")
        self.clear_button.clicked.connect(self.clear)
        self.save_button = QPushButton("Save Play File\u2026")
        self.save_button.setToolTip("Save the path as a play file for 'inkcrawl score'")
        self.save_button.clicked.connect(self.save_play)
        buttons.addWidget(self.clear_button)
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self.refresh()

    # .. inputs ..
    def _character_changed(self, _index: int) -> None:
        self.session.character = self.character_box.currentData()
        self.refresh()

    def _players_changed(self, value: int) -> None:
        self.session.players = int(value)
        self.refresh()

    def say(self, text: str) -> None:
        """Show a message about the last action (status bar and the hint line)."""
        self.message.setText(text)
        self.controller.status(text)

    def changed(self, now: bool) -> None:
        """The path changed: refresh the breakdown now, or at most every ``REFRESH_MS``."""
        if now:
            self.refresh()
        elif not self._timer.isActive():
            self._timer.start()

    def clear(self) -> None:
        """Clear the path and the breakdown."""
        self.session.clear()
        self.message.clear()
        self.refresh()
        self.controller.repaint()

    def save_play(self) -> None:
        """Ask for a file and save the path as a play file."""
        if not self.session.polylines:
            self.say("Draw a path first")
            return
        path = self.controller.ask_play_path(f"{self.session.rules.id}.play.json")
        if not path:
            return
        # asks before replacing a read-only file, as File > Save does
        self.say(self.controller.write_file(Path(path), "the play file", self.session.save_play))

    # .. showing the breakdown ..
    def refresh(self) -> None:
        """Run the referee on the path and show its breakdown."""
        self._timer.stop()
        session = self.session
        session.judge()
        self.tree.clear()
        if not session.polylines:
            self.hint.setText(
                f"Press on a Start ({session.starts_text() or 'none'}) and drag to draw the path. "
                "Release and press again to continue; touching a portal entry lifts the pen."
            )
            self.total.setText("Total: \u2014")
            return
        if session.lifted_at is not None:
            self.hint.setText(
                f"The pen lifted at portal entry {session.lifted_at.id}: press on an exit of channel "
                f"{session.lifted_at.channel} ({session.exits_text(session.lifted_at.channel)})."
            )
        else:
            self.hint.setText("Drag to continue the path; Esc or Clear starts again.")
        if session.result is None:
            messages = [message for _pointer, message in session.problems] or [session.error or "not scored"]
            item = QTreeWidgetItem(["", "The path cannot be scored"])
            for message in messages:
                item.addChild(QTreeWidgetItem(["", message]))
            self.tree.addTopLevelItem(item)
            item.setExpanded(True)
            self.total.setText("Total: \u2014")
            return
        result = session.result
        for section in result["sections"]:
            title = section["title"][0].upper() + section["title"][1:]
            item = QTreeWidgetItem(
                [
                    f"{section['subtotal']:+d}" if section["subtotal"] else "0",
                    f"{section['number']}. {title}, {section['entered']} "
                    f"({section['from_mm']:g}\u2013{section['to_mm']:g} mm)",
                ]
            )
            for line in section["lines"] or [{"vp": None, "text": "nothing to score"}]:
                item.addChild(QTreeWidgetItem([_vp(line["vp"]), line["text"]]))
            self.tree.addTopLevelItem(item)
            item.setExpanded(True)
        for key, title in (("orbs", "Orb tokens"), ("boss", "Boss")):
            part = result[key]
            if part["lines"]:
                item = QTreeWidgetItem([_vp(part["subtotal"]), title])
                for line in part["lines"]:
                    item.addChild(QTreeWidgetItem([_vp(line["vp"]), line["text"]]))
                self.tree.addTopLevelItem(item)
                item.setExpanded(True)
        if result.get("ignored"):
            ignored = result["ignored"]
            self.tree.addTopLevelItem(
                QTreeWidgetItem(
                    [
                        "",
                        f"Illegal crossing at ({ignored['at'][0]:g}, {ignored['at'][1]:g}), "
                        f"{ignored['length_mm']:g} mm along the path: {ignored['reason']}",
                    ]
                )
            )
        end = result["end"]
        exempt = f"; no penalties in {end['exempt_area']}" if end.get("exempt_area") else ""
        self.tree.addTopLevelItem(
            QTreeWidgetItem(
                ["", f"End: {end['reason']} at ({end['at'][0]:g}, {end['at'][1]:g}), {end['length_mm']:g} mm{exempt}"]
            )
        )
        for note in result.get("notes") or []:
            self.tree.addTopLevelItem(QTreeWidgetItem(["", f"Note: {note}"]))
        self.total.setText(f"Total: {result['total']} VP")

    def section_texts(self) -> list[str]:
        """The top-level lines of the breakdown as shown (for tests and screen readers)."""
        return [self.tree.topLevelItem(i).text(1) for i in range(self.tree.topLevelItemCount())]


def _vp(value) -> str:
    if value is None:
        return ""
    return f"{value:+d}" if value else "0"
