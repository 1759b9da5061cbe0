"""The line family's play sheet (RULES.md 2, Sheet): title, the dungeon, its elements and the footer.

:func:`draw_line_sheet` draws in the dungeon's own sheet coordinates (mm), so the sheet prints at
the exact size the dungeon was designed at. Drawing order, bottom to top: area fills, openings
between areas (a faint dashed threshold), walls (every area outline except the stretches it
shares with another area, plus the explicit walls; entrances at the Starts are left open),
element glyphs (:mod:`exporters.line_glyphs`), doors with one badge per lock, Start arrows,
labels, area names, the boss VP badges, and the footer (Scrawl End triggers, components,
special scoring, reminders, name and score fields).

Everything drawn carries ``data-kind``: the element kind for elements (``monster``, ``door``,
``start``, ``label``...), ``room``/``corridor`` for areas, ``wall``, ``opening``, ``lock``,
``footer``, ``end-trigger``, ``component``, ``reminder``, ``boss-vp``, ``name-field``,
``score-field``. Only what Qt's SVG renderer draws is used (no clip-path, group opacity or
markers); colour never carries meaning alone.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon, box
from shapely.geometry import Point as ShapelyPoint
from shapely.ops import unary_union

from exporters import line_glyphs as glyphs
from exporters import style
from exporters.canvas import SheetCanvas, path_data, wrap_text
from exporters.paper import SheetLayoutError
from inkcrawl import shapes
from inkcrawl.model import Area, Element, LineDungeon
from inkcrawl.printed import sheet_of
from inkcrawl.rulesets import Ruleset
from inkcrawl.textmetrics import CAP_HEIGHT_EM, DESCENT_EM, text_width_mm

Point = tuple[float, float]

#: Cap height (em fraction) of DejaVu Sans; labels give their height as a cap height.
CAP = CAP_HEIGHT_EM
#: Descent below the baseline (em fraction) used for text boxes.
DESCENT = DESCENT_EM
#: Thickness of a door across its wall, mm.
DOOR_THICKNESS_MM = 3.8
#: Longest Start arrow, mm.
START_ARROW_MM = 9.0
#: How far names and badges keep from an explicit wall's centre line, mm.
WALL_KEEP_OUT_MM = 0.9
#: How far an area's name keeps from an opening into a neighbouring area, mm: a name printed at a
#: threshold reads as the name of the area beyond it.
NAME_OPENING_KEEP_OUT_MM = 2.5


def draw_line_sheet(canvas: SheetCanvas, dungeon: LineDungeon, ruleset: Ruleset) -> None:
    """Draw ``dungeon``'s whole play sheet onto ``canvas`` (sheet mm, inside ``sheet.paper.printable``)."""
    _LineSheet(canvas, dungeon, ruleset).draw()


# -- text measurement ---------------------------------------------------------------------------

# -- small geometry helpers ---------------------------------------------------------------------


def _text_box(text: str, at: Point, size: float, anchor: str = "start", bold: bool = False) -> tuple:
    width = text_width_mm(text, size, bold)
    x = at[0] - {"start": 0, "middle": width / 2, "end": width}[anchor]
    return (x, at[1] - CAP * size - 0.2, x + width, at[1] + DESCENT * size)


def _line_path(line: LineString) -> str:
    coords = [(x, y) for x, y in line.coords]
    closed = len(coords) > 3 and coords[0] == coords[-1]
    return path_data(coords[:-1] if closed else coords, closed)


def _mmss(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _players_text(supply: dict) -> str:
    """Key tokens per colour by player count, e.g. ``tokens per colour: 2 (1-3 players), 3 (4 players)``."""
    counts = sorted(((int(p), int(n)) for p, n in supply.items() if str(p).isdigit()))
    if not counts:
        return ""
    runs: list[list] = []
    for players, tokens in counts:
        if runs and runs[-1][2] == tokens and runs[-1][1] == players - 1:
            runs[-1][1] = players
        else:
            runs.append([players, players, tokens])
    parts = []
    for low, high, tokens in runs:
        who = f"{low}\u00a0player{'s' if high > 1 else ''}" if low == high else f"{low}-{high}\u00a0players"
        parts.append(f"{tokens} ({who})")
    return "tokens per colour: " + ", ".join(parts)


# -- the sheet ----------------------------------------------------------------------------------


@dataclass
class _Row:
    """One footer row: an icon (glyph kind and options) and wrapped text lines."""

    icon: str | None
    lines: list[str]
    kind: str
    icon_extra: dict = field(default_factory=dict)
    icons: list[tuple[str, dict]] | None = None  # several icons in a line before the text


class _LineSheet:
    def __init__(self, canvas: SheetCanvas, dungeon: LineDungeon, ruleset: Ruleset):
        self.canvas = canvas
        self.pal = canvas.palette
        self.dungeon = dungeon
        self.ruleset = ruleset
        self.printable = dungeon.sheet.paper.printable
        limits = ruleset.data.get("print", {})
        self.snap = float(limits.get("snap_tolerance_mm", 0.5))
        channels = [e.channel for e in dungeon.elements if e.kind in ("portal_entry", "portal_exit") and e.channel]
        self.gstyle = glyphs.GlyphStyle.for_sheet(ruleset.data, channels)
        self.printed = sheet_of(dungeon, ruleset, repair=True)
        self.areas: list[tuple[Area, Polygon]] = list(zip(self.printed.geometry.areas, self.printed.geometry.polygons))
        self.union = unary_union([p for _, p in self.areas]) if self.areas else Polygon()
        self.doors: list[tuple[Element, tuple[Point, Point]]] = [
            (e, e.segment) for e in dungeon.elements if e.kind == "door" and e.segment and e.segment[0] != e.segment[1]
        ]
        start_kinds = {k for k, spec in ruleset.kinds.items() if spec.on_wall} if ruleset.family == "line" else set()
        self.starts: list[tuple[Element, Point]] = [
            (e, e.at) for e in dungeon.elements if e.kind in (start_kinds or {"start"}) and e.at is not None
        ]
        # obstacles for placing names and badges: element discs, doors, labels
        obstacles = []
        for wall in dungeon.walls:
            if len({tuple(p) for p in wall.points}) >= 2:
                obstacles.append(LineString(wall.points).buffer(WALL_KEEP_OUT_MM))
        centres, radii = [], []  # element discs, buffered in one call below
        for element in dungeon.elements:
            if element.kind == "door" and element.segment:
                obstacles.append(LineString(element.segment).buffer(DOOR_THICKNESS_MM / 2 + 0.6))
            elif element.kind == "label" and element.at is not None and element.text:
                obstacles.append(box(*self._label_box(element)))
            elif element.at is not None and element.size_mm:
                centres.append(element.at)
                radii.append(element.radius_mm + 0.8)
        if centres:  # quad_segs as a shapely geometry's own buffer() has it
            obstacles += shapely.buffer(shapely.points(centres), radii, quad_segs=16).tolist()
        self.obstacles = obstacles
        self.title_box: tuple | None = None

    # --------------------------------------------------------------------------------------
    def draw(self) -> None:
        self.draw_title()
        self.draw_areas()
        self.draw_walls()
        self.draw_elements()
        self.draw_doors()
        self.draw_starts()
        self.draw_labels()
        self.draw_area_names()
        self.draw_boss_badges()
        self.draw_footer()

    # title -------------------------------------------------------------------------------
    def draw_title(self) -> None:
        x0, y0, x1, _ = self.printable
        g = self.canvas.group("title")
        title = self.dungeon.sheet.title or self.dungeon.id
        size = style.TITLE_MM
        while size > 4 and text_width_mm(title, size, True) > (x1 - x0):
            size -= 0.5
        if text_width_mm(title, size, True) > (x1 - x0):  # still too wide: shorten it visibly
            while len(title) > 1 and text_width_mm(title + "…", size, True) > (x1 - x0):
                title = title[:-1]
            title = title.rstrip() + "…"
            self.canvas.warnings.append(f"the title is too long for the paper and is printed shortened: {title}")
        baseline = y0 + CAP * size + 2.0
        if baseline + DESCENT * size + 1.0 > self._dungeon_top():  # a dungeon drawn high up: title to the top
            baseline = y0 + CAP * size + 0.3
        self.canvas.text(
            title, ((x0 + x1) / 2, baseline), size, anchor="middle", bold=True, parent=g, kind="title-text"
        )
        half = min(text_width_mm(title, size, True) / 2 + 6, (x1 - x0) / 2)
        cx = (x0 + x1) / 2
        rule_y = baseline + 2.2
        tx0, ty0, tx1, _ = _text_box(title, (cx, baseline), size, "middle", True)
        self.title_box = (min(tx0, cx - half - 1), ty0, max(tx1, cx + half + 1), rule_y + 1.0)
        if rule_y + 1.5 > self._dungeon_top():  # no room for the rule above the dungeon
            self.title_box = (tx0, ty0, tx1, baseline + DESCENT * size)
            return
        self.canvas.line((cx - half, rule_y), (cx + half, rule_y), stroke=self.pal.accent, width=0.5, parent=g)
        for side in (-1, 1):
            self.canvas.polyline(
                [
                    (cx + side * half, rule_y - 0.9),
                    (cx + side * (half + 0.9), rule_y),
                    (cx + side * half, rule_y + 0.9),
                    (cx + side * (half - 0.9), rule_y),
                ],
                closed=True,
                fill=self.pal.accent,
                parent=g,
            )

    def _dungeon_top(self) -> float:
        if self.union.is_empty:
            return self.printable[1] + 20
        return self.union.bounds[1]

    def _dungeon_bottom(self) -> float:
        bottoms = [self.union.bounds[3]] if not self.union.is_empty else [self.printable[1] + 20]
        for element in self.dungeon.elements:
            if element.kind == "label" and element.at is not None and element.text:
                bottoms.append(self._label_box(element)[3])
            elif element.at is not None and element.size_mm:
                bottoms.append(element.at[1] + element.radius_mm)
        for _, at in self.starts:
            if self._inward(at)[1] < -0.5:  # a Start on a bottom wall: its arrow and word hang below
                bottoms.append(at[1] + START_ARROW_MM + 5)
        return max(bottoms)

    # areas and walls -----------------------------------------------------------------------
    def draw_areas(self) -> None:
        for area, polygon in self.areas:
            fill = self.pal.room_fill if area.kind == "room" else self.pal.corridor_fill
            coords = [(x, y) for x, y in polygon.exterior.coords][:-1]
            self.canvas.polyline(coords, closed=True, fill=fill, stroke=None, kind=area.kind, css_class="area").attribs[
                "data-id"
            ] = area.id

    def draw_walls(self) -> None:
        """The walls of the printed sheet model (:mod:`inkcrawl.printed`): the faint dashed
        guide along openings, the outline walls, then the explicit walls."""
        g = self.canvas.group("walls")
        for guide in self.printed.guide_lines():
            self.canvas.path(
                _line_path(guide),
                stroke=self.pal.grid_line,
                width=style.FINE_MM,
                dash=(0.8, 1.0),
                parent=g,
                kind="opening",
                linecap="butt",
            )
        for line in self.printed.printed_lines:
            if line.kind == "outline":
                self.canvas.path(
                    _line_path(line.geom),
                    stroke=self.pal.ink,
                    width=line.width_mm,
                    parent=g,
                    kind="wall",
                    linecap="round",
                    linejoin="round",
                )
        for line in self.printed.printed_lines:
            if line.kind == "wall":
                item = self.canvas.path(
                    _line_path(line.geom),
                    stroke=self.pal.ink,
                    width=line.width_mm,
                    parent=g,
                    kind="wall",
                    css_class="inner-wall",
                )
                item.attribs["data-id"] = line.id

    # elements -----------------------------------------------------------------------------
    def draw_elements(self) -> None:
        layer = self.canvas.group("elements")
        kinds = self.ruleset.kinds if self.ruleset.family == "line" else {}
        for element in self.dungeon.elements:
            spec = kinds.get(element.kind)
            drawn_elsewhere = (
                (spec.footprint != "disc" or spec.on_wall)
                if spec is not None
                else element.kind in ("door", "start", "label")
            )
            if drawn_elsewhere or element.at is None or not element.size_mm or element.size_mm <= 0:
                continue
            glyph = spec.glyph if spec is not None else element.kind
            g = self.canvas.group(element.kind, layer, css_class="element", element_id=element.id)
            extra: dict[str, object] = {"glyph_style": self.gstyle}
            if element.variant is not None:
                extra["variant"] = element.variant
            if element.colour is not None:
                extra["colour"] = element.colour
            if element.channel is not None:
                extra["channel"] = element.channel
            if element.number is not None:
                extra["number"] = element.number
            if glyph not in glyphs.GLYPHS or (
                glyph in ("spell", "treasure") and element.variant not in _known_variants(glyph)
            ):
                glyphs.generic(
                    self.canvas, g, element.at, element.size_mm, element.rotation_deg or 0, kind=element.kind
                )
                continue
            glyphs.draw_glyph(self.canvas, g, glyph, element.at, element.size_mm, element.rotation_deg or 0, **extra)

    def draw_doors(self) -> None:
        layer = self.canvas.group("doors")
        for door, segment in self.doors:
            (ax, ay), (bx, by) = segment
            length = math.hypot(bx - ax, by - ay)
            ux, uy = (bx - ax) / length, (by - ay) / length
            nx, ny = -uy, ux
            t = min(DOOR_THICKNESS_MM, max(2.0, length * 0.45)) / 2
            g = self.canvas.group("door", layer, css_class="element", element_id=door.id)
            corners = [
                (ax + nx * t, ay + ny * t),
                (bx + nx * t, by + ny * t),
                (bx - nx * t, by - ny * t),
                (ax - nx * t, ay - ny * t),
            ]
            self.canvas.polyline(
                corners, closed=True, fill=self.pal.paper, stroke=self.pal.ink, width=0.5, parent=g, kind="door-leaf"
            )
            locks = door.locks or []
            if not locks:
                continue
            slot = length / len(locks)
            size = max(2.0, min(t * 2 + 0.8, slot - 0.6, 4.4))
            for i, lock_id in enumerate(locks):
                centre = (ax + ux * slot * (i + 0.5), ay + uy * slot * (i + 0.5))
                glyphs.lock(self.canvas, g, centre, size, lock_id, self.gstyle)

    # starts --------------------------------------------------------------------------------
    @functools.cached_property
    def _union_grown(self) -> Polygon:
        """The dungeon's areas grown by 0.01 mm (made once: each Start asks)."""
        return self.union.buffer(0.01)

    @functools.cached_property
    def _obstacle_tree(self) -> shapely.STRtree:
        """:attr:`obstacles` in a search tree (made once: every area name asks)."""
        return shapely.STRtree(self.obstacles)

    def _obstacles_apart_from(self, at: Point) -> list:
        """:attr:`obstacles` that do not hold ``at`` (a Start's or a boss's own keep-out holds
        it), in their order: judged in one call, not one point per obstacle."""
        holding = shapely.contains(self._obstacle_tree.geometries, ShapelyPoint(at))
        return [obstacle for obstacle, held in zip(self.obstacles, holding) if not held]

    def _inward(self, at: Point) -> tuple[float, float]:
        """Unit vector pointing from ``at`` (on the outer boundary) into the dungeon."""
        point = ShapelyPoint(at)
        best = None
        for _, polygon in self.areas:
            d = polygon.exterior.distance(point)
            if best is None or d < best[0]:
                best = (d, polygon)
        if best is None:
            return (0.0, 1.0)
        ring = best[1].exterior
        s = ring.project(point)
        p1, p2 = ring.interpolate(max(0.0, s - 0.6)), ring.interpolate(min(ring.length, s + 0.6))
        tx, ty = p2.x - p1.x, p2.y - p1.y
        norm = math.hypot(tx, ty)
        if norm < 1e-9:
            c = best[1].centroid
            vx, vy = c.x - at[0], c.y - at[1]
            norm = math.hypot(vx, vy) or 1.0
            return (vx / norm, vy / norm)
        nx, ny = -ty / norm, tx / norm
        if not self._union_grown.contains(ShapelyPoint(at[0] + nx * 1.0, at[1] + ny * 1.0)):
            nx, ny = -nx, -ny
        # snap near-axis directions to the axis (tidier arrows)
        if abs(nx) < 0.02:
            nx, ny = 0.0, math.copysign(1.0, ny)
        elif abs(ny) < 0.02:
            nx, ny = math.copysign(1.0, nx), 0.0
        return (nx, ny)

    def draw_starts(self) -> None:
        x0, y0, x1, y1 = self.printable
        colour = self.pal.start
        size = style.BODY_MM
        keep_out = [self.union] + ([box(*self.title_box)] if self.title_box else [])
        page = box(x0, y0, x1, y1)
        inside = page.buffer(-0.5)
        for start, start_at in self.starts:
            g = self.canvas.group("start", css_class="element", element_id=start.id)
            ax, ay = start_at
            nx, ny = self._inward(start_at)
            # the longest arrow (up to START_ARROW_MM) whose tail stays on the page, clear of the title
            length = 4.0
            for half_mm in range(int(START_ARROW_MM * 2), 7, -1):
                tail = ShapelyPoint(ax - nx * half_mm / 2, ay - ny * half_mm / 2)
                if inside.contains(tail) and not any(k.intersects(tail.buffer(0.8)) for k in keep_out[1:]):
                    length = half_mm / 2
                    break
            tail_at = (ax - nx * length, ay - ny * length)
            tip = (ax + nx * 2.0, ay + ny * 2.0)
            self.canvas.arrow(tail_at, tip, head_mm=2.6, stroke=colour, width=0.8, parent=g, kind="start-arrow")
            mid = ((tail_at[0] + ax) / 2, (tail_at[1] + ay) / 2)
            others = self._obstacles_apart_from(start_at)
            up, down = CAP * size + 0.2, DESCENT * size
            candidates = []
            if abs(ny) >= abs(nx):  # top or bottom edge
                beyond_y = tail_at[1] - 1.2 - down if ny > 0 else tail_at[1] + 1.2 + up
                candidates += [
                    ((tail_at[0], beyond_y), "middle"),
                    ((mid[0] + 2.0, mid[1] + up / 2), "start"),
                    ((mid[0] - 2.0, mid[1] + up / 2), "end"),
                ]
            else:  # left or right edge
                beyond_x = tail_at[0] - 1.2 if nx > 0 else tail_at[0] + 1.2
                beyond_anchor = "end" if nx > 0 else "start"
                near_anchor = "end" if nx > 0 else "start"
                near_x = ax - 1.6 if nx > 0 else ax + 1.6
                candidates += [
                    ((near_x, ay - 1.8), near_anchor),
                    ((near_x, ay + 1.8 + up), near_anchor),
                    ((beyond_x, ay + up / 2 - 0.2), beyond_anchor),
                ]
            chosen = candidates[0]
            for at, anchor in candidates:
                rect = box(*_text_box("Start", at, size, anchor, True))
                if page.covers(rect) and not any(k.intersects(rect) for k in keep_out + others):
                    chosen = (at, anchor)
                    break
            else:  # keep the first choice, pushed onto the page
                at, anchor = chosen
                bx0, by0, bx1, by1 = _text_box("Start", at, size, anchor, True)
                dx = max(0.0, x0 - bx0) - max(0.0, bx1 - x1)
                dy = max(0.0, y0 - by0) - max(0.0, by1 - y1)
                chosen = ((at[0] + dx, at[1] + dy), anchor)
            self.canvas.text(
                "Start", chosen[0], size, anchor=chosen[1], bold=True, fill=colour, parent=g, kind="start-text"
            )

    # labels and names ----------------------------------------------------------------------
    @staticmethod
    def _label_size(label: Element) -> float:
        return max(2.0, (label.text_height_mm or style.LABEL_MM * CAP) / CAP)

    def _label_box(self, label: Element) -> tuple[float, float, float, float]:
        if label.at is None:
            raise ValueError(f"label '{label.id}' has no position")
        size = self._label_size(label)
        width = text_width_mm(label.text or "", size)
        angle = math.radians(label.rotation_deg or 0)
        cos, sin = math.cos(angle), math.sin(angle)
        x, y = label.at
        corners = [
            (x + dx * cos - dy * sin, y + dx * sin + dy * cos)
            for dx in (-width / 2, width / 2)
            for dy in (-CAP * size, DESCENT * size)
        ]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        return min(xs), min(ys), max(xs), max(ys)

    def draw_labels(self) -> None:
        for label in self.dungeon.elements:
            if label.kind != "label" or label.at is None or not label.text:
                continue
            g = self.canvas.group("label", css_class="element", element_id=label.id)
            self.canvas.text(
                label.text,
                label.at,
                self._label_size(label),
                anchor="middle",
                parent=g,
                rotate_deg=label.rotation_deg or 0,
                fill=self.pal.ink,
                kind="label-text",
            )

    def draw_area_names(self) -> None:
        placed: list[Polygon] = []
        # a name keeps clear of the openings, so that it reads as its own area's, where it can
        # (a short corridor may have no room for it elsewhere: better at a threshold than lost)
        guides = self.printed.guide_lines()
        thresholds = list(shapely.buffer(np.array(guides, dtype=object), NAME_OPENING_KEEP_OUT_MM)) if guides else []
        for area, polygon in self.areas:
            if not area.name:
                continue
            tries = [(size, keep_out) for keep_out in (thresholds, []) for size in (style.SMALL_MM, 2.0)]
            inner = polygon.buffer(-(style.WALL_MM / 2 + 0.7), join_style="mitre")  # once for all tries
            shapely.prepare(inner)  # judged against many candidate boxes, up to four times
            for size, keep_out in tries:
                spot = self._name_spot(area.name, inner, size, placed + keep_out)
                if spot is not None:
                    break
            else:
                continue
            at, rotate, bounds = spot
            placed.append(box(*bounds))
            self.canvas.text(
                area.name, at, size, rotate_deg=rotate, fill=self.pal.ink, kind="area-name", css_class=area.kind
            ).attribs["data-id"] = area.id

    def _name_spot(self, name: str, inner: Polygon, size: float, placed: list):
        """Where an area's name fits inside it (``inner``: the area inside its wall, with a
        margin), clear of elements: along its top or bottom side (left first), else reading
        upwards along its left or right side."""
        if inner.is_empty:
            return None
        minx, miny, maxx, maxy = inner.bounds
        width = text_width_mm(name, size)
        up, down = CAP * size + 0.2, DESCENT * size
        candidates = []
        steps = max(0, int((maxx - minx - width) // 2))
        xs = [minx + 2 * i for i in range(steps + 1)] + [maxx - width]
        for y in (miny + up, maxy - down):
            for x in xs:
                candidates.append(((x, y), 0, (x, y - up, x + width, y + down)))
        steps = max(0, int((maxy - miny - width) // 2))
        ys = [maxy - 2 * i for i in range(steps + 1)] + [miny + width]
        for x in (minx + up, maxx - down):  # vertical, reading upwards, along a side
            for y in ys:
                candidates.append(((x, y), -90, (x - up, y - width, x + down, y)))
        # the first candidate inside the area and clear of every obstacle, all judged at once
        rects = shapely.box(*np.array([bounds for _, _, bounds in candidates], dtype=float).T)
        free = shapely.covers(inner, rects)
        for tree in (self._obstacle_tree, shapely.STRtree(placed) if placed else None):
            if tree is not None:
                hit, _ = tree.query(rects, predicate="intersects")
                free[hit] = False
        found = np.flatnonzero(free)
        return candidates[int(found[0])] if len(found) else None

    def draw_boss_badges(self) -> None:
        for boss in self.dungeon.elements:
            if boss.kind != "boss" or boss.at is None or not boss.size_mm:
                continue
            text = f"{boss.vp if boss.vp is not None else '?'} VP"
            size = style.BODY_MM
            w, h = text_width_mm(text, size, True) + 2.4, CAP * size + 2.4
            container = self._area_of(boss.at)
            others = self._obstacles_apart_from(boss.at)
            r = boss.radius_mm + 1.0
            bx, by = boss.at
            candidates = [
                (bx + r, by - h / 2),
                (bx - r - w, by - h / 2),
                (bx - w / 2, by + r),
                (bx - w / 2, by - r - h),
                (bx + r * 0.75, by + r * 0.5),
                (bx - r * 0.75 - w, by + r * 0.5),
                (bx + r * 0.75, by - r * 0.5 - h),
                (bx - r * 0.75 - w, by - r * 0.5 - h),
            ]
            spot = candidates[0]
            for x, y in candidates:
                rect = box(x, y, x + w, y + h)
                inside = container is None or container.buffer(-(style.WALL_MM / 2 + 0.3)).covers(rect)
                if inside and not any(rect.intersects(o) for o in others):
                    spot = (x, y)
                    break
            g = self.canvas.group("boss-vp")
            g.attribs["data-id"] = boss.id
            self.canvas.rect(
                spot[0], spot[1], w, h, fill=self.pal.paper, stroke=self.pal.accent, width=0.5, radius=1.2, parent=g
            )
            self.canvas.text(
                text,
                (spot[0] + w / 2, spot[1] + h / 2 + CAP * size / 2),
                size,
                anchor="middle",
                bold=True,
                fill=self.pal.accent,
                parent=g,
                kind="boss-vp-text",
            )

    def _area_of(self, at: Point) -> Polygon | None:
        point = ShapelyPoint(at)
        for _, polygon in self.areas:
            if polygon.contains(point):
                return polygon
        return None

    # footer --------------------------------------------------------------------------------
    def _trigger_rows(self, width: float, size: float) -> list[_Row]:
        rows = []
        bosses = [e for e in self.dungeon.elements if e.kind == "boss"]
        for trigger in self.dungeon.sheet.end_triggers or []:
            icon, extra = None, {}
            if trigger.kind == "boss_covered":
                who = bosses[0].name if len(bosses) == 1 and bosses[0].name else "A boss"
                text, icon = f"{who} is covered", "boss"
            elif trigger.kind == "timer":
                seconds = trigger.seconds or 0
                text, icon = f"Time is up: {_mmss(seconds)} ({seconds} s)", "timer"
            elif trigger.kind == "escape_portal":
                text, icon = "Someone enters an escape portal", "escape_portal"
            elif trigger.kind == "orb_taken":
                colour = trigger.colour or "?"
                which = "last" if trigger.when == "last" else "first"
                text, icon, extra = f"The {which} {colour} orb token is taken", "orb", {"colour": colour}
            elif trigger.kind == "exit_reached":
                exits = [e for e in self.dungeon.elements if e.kind == "exit"]
                where = exits[0].name if len(exits) == 1 and exits[0].name else "an exit"
                text, icon = f"Someone reaches {where}", "exit"
            else:
                text = trigger.kind.replace("_", " ")
            rows.append(_Row(icon, wrap_text(text, width, size), "end-trigger", extra))
        if not rows:
            rows.append(
                _Row(
                    None,
                    wrap_text("No Scrawl End trigger: play until everyone stops.", width, size),
                    "end-trigger-none",
                )
            )
        return rows

    def _component_rows(self, width: float, size: float) -> list[_Row]:
        sheet = self.dungeon.sheet
        components = set(sheet.components or [])
        kinds = {e.kind for e in self.dungeon.elements}
        rows = []
        if "orbs" in components or "orb" in kinds:
            colours = list(
                dict.fromkeys(
                    [
                        *(sheet.orb_tokens or {}),
                        *(e.colour for e in self.dungeon.elements if e.kind == "orb" and e.colour),
                    ]
                )
            )
            for colour in colours:
                values = (sheet.orb_tokens or {}).get(colour)
                text = f"{colour.capitalize()} orb tokens: " + (
                    ", ".join(f"{v}" for v in values) + " VP (1st to last)" if values else "see tokens"
                )
                rows.append(_Row("orb", wrap_text(text, width, size), "component", {"colour": colour}))
        if "keys" in components or kinds & {"key", "skeleton_key"} or any(d.locks for d, _ in self.doors):
            key_icons = [("key", {"colour": c}) for c in self.gstyle.keys]
            supply = _players_text(self.ruleset.data.get("keys", {}).get("supply", {}))
            rows.append(
                _Row(None, wrap_text(f"Key {supply}" if supply else "Keys", width, size), "component", icons=key_icons)
            )
        if "timer" in components or any(t.kind == "timer" for t in sheet.end_triggers or []):
            seconds = [t.seconds for t in sheet.end_triggers or [] if t.kind == "timer" and t.seconds]
            text = f"Timer: {_mmss(seconds[0])} ({seconds[0]} s)" if seconds else "Timer"
            rows.append(_Row("timer", wrap_text(text, width, size), "component"))
        if not rows:
            rows.append(_Row(None, wrap_text("No special components.", width, size), "component-none"))
        for boss in (e for e in self.dungeon.elements if e.kind == "boss"):
            name = boss.name or "Boss"
            rows.append(
                _Row("boss", wrap_text(f"{name}: {boss.vp if boss.vp is not None else '?'} VP", width, size), "boss-vp")
            )
        return rows

    def _reminder_rows(self, width: float, size: float) -> list[_Row]:
        return [_Row("bullet", wrap_text(text, width, size), "reminder") for text in self.dungeon.sheet.reminders]

    @staticmethod
    def _rows_height(rows: list[_Row], size: float, icon: float) -> float:
        line = size * 1.3
        total = 0.0
        for row in rows:
            text_h = len(row.lines) * line + (icon + 0.8 if row.icons else 0)
            total += max(text_h, icon if row.icon and row.icon != "bullet" else 0) + 1.2
        return total

    def draw_footer(self) -> None:
        x0, y0, x1, y1 = self.printable
        width = x1 - x0
        gap, pad = 4.0, 2.0
        name_h = 9.0
        widths = [0.31 * (width - 2 * gap), 0.31 * (width - 2 * gap), 0.38 * (width - 2 * gap)]
        top_limit = self._dungeon_bottom() + 4.0
        for size in (3.0, 2.8, 2.6, 2.4, 2.2, 2.0):
            icon = max(4.0, size * 1.7)
            heading = min(3.6, size + 0.8)
            text_widths = [widths[0] - icon - 2 - 2 * pad, widths[1] - icon - 2 - 2 * pad, widths[2] - 3 - 2 * pad]
            panels = [
                ("Scrawl ends when", self._trigger_rows(text_widths[0], size)),
                ("Components & scoring", self._component_rows(text_widths[1], size)),
                ("Reminders", self._reminder_rows(text_widths[2], size)),
            ]
            body = max(self._rows_height(rows, size, icon) for _, rows in panels)
            height = pad + heading * 1.5 + body + name_h + pad
            top = y1 - height
            if top >= top_limit:
                break
        else:
            raise SheetLayoutError(
                f"the dungeon reaches {top_limit - 4:.0f} mm down the page, but the footer (end triggers, components, "
                f"reminders, name and score) needs {height:.0f} mm above the bottom margin at {y1:g} mm; move the "
                f"dungeon up or shorten the reminders"
            )
        g = self.canvas.group("footer")
        self.canvas.rect(
            x0,
            top,
            width,
            y1 - top,
            stroke=self.pal.ink,
            width=style.OUTLINE_MM,
            fill=self.pal.paper,
            radius=2.0,
            parent=g,
            kind="footer-frame",
        )
        x = x0
        for (title, rows), panel_w in zip(panels, widths):
            self._draw_panel(g, title, rows, x + pad, top + pad, panel_w - 2 * pad, size, icon, heading)
            x += panel_w + gap
            if x < x1:
                self.canvas.line(
                    (x - gap / 2, top + pad),
                    (x - gap / 2, y1 - name_h - pad),
                    stroke=self.pal.grid_line,
                    width=style.FINE_MM,
                    parent=g,
                )
        self._draw_name_score(g, x0 + pad, y1 - name_h - 0.5, width - 2 * pad, name_h - 1.5)

    def _draw_panel(
        self,
        parent,
        title: str,
        rows: list[_Row],
        x: float,
        y: float,
        w: float,
        size: float,
        icon: float,
        heading: float,
    ) -> None:
        self.canvas.text(
            title,
            (x, y + CAP * heading + 0.3),
            heading,
            bold=True,
            fill=self.pal.accent,
            parent=parent,
            kind="footer-heading",
        )
        cursor = y + heading * 1.5
        line = size * 1.3
        for row in rows:
            g = self.canvas.group(row.kind, parent)
            text_x = x + icon + 2 if row.icon and row.icon != "bullet" else x + 3
            top = cursor
            if row.icons:
                for i, (kind, extra) in enumerate(row.icons):
                    glyphs.draw_glyph(
                        self.canvas,
                        g,
                        kind,
                        (x + icon / 2 + i * (icon + 1.5), cursor + icon / 2),
                        icon,
                        -35 if kind == "key" else 0,
                        glyph_style=self.gstyle,
                        **extra,
                    )
                cursor += icon + 0.8
                text_x = x
            text_h = len(row.lines) * line
            block = max(text_h, icon if row.icon and row.icon != "bullet" else 0)
            first = cursor + (block - text_h) / 2 + CAP * size + (line - size) / 2
            if row.icon == "bullet":
                self.canvas.circle((x + 1.0, first - CAP * size / 2), 0.55, fill=self.pal.ink, parent=g)
            elif row.icon:
                glyphs.draw_glyph(
                    self.canvas,
                    g,
                    row.icon,
                    (x + icon / 2, cursor + block / 2),
                    icon,
                    0,
                    glyph_style=self.gstyle,
                    **row.icon_extra,
                )
            for i, text in enumerate(row.lines):
                self.canvas.text(text, (text_x, first + i * line), size, parent=g, kind="footer-text")
            cursor = max(cursor + block, top) + 1.2

    def _draw_name_score(self, parent, x: float, y: float, w: float, h: float) -> None:
        size = style.BODY_MM
        baseline = y + h / 2 + CAP * size / 2
        right = x + w
        vp_w = text_width_mm("VP", size, True)
        score_box_w = 26.0
        score_label_w = text_width_mm("Score", size, True)
        g2 = self.canvas.group("score-field", parent)
        self.canvas.text("VP", (right, baseline), size, bold=True, anchor="end", parent=g2)
        box_x = right - vp_w - 1.5 - score_box_w
        self.canvas.write_in_box(box_x, y, score_box_w, h, parent=g2, kind="score-box")
        score_x = box_x - 1.5 - score_label_w
        self.canvas.text("Score", (score_x, baseline), size, bold=True, parent=g2)
        g = self.canvas.group("name-field", parent)
        self.canvas.text("Name", (x, baseline), size, bold=True, parent=g)
        name_x = x + text_width_mm("Name", size, True) + 1.5
        self.canvas.write_in_box(name_x, y, score_x - 8 - name_x, h, parent=g, kind="name-box")


def _known_variants(kind: str) -> tuple[str, ...]:
    return shapes.SPELL_VARIANTS if kind == "spell" else shapes.TREASURE_VARIANTS
