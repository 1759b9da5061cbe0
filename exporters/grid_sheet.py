"""The play sheet of a grid-family dungeon (RULES.md 1, "Board" and "Scoring").

:func:`draw_grid_sheet` draws, in the dungeon's sheet millimetres and inside the paper's
printable area: the title and reminders, coordinate labels along the top and left, the rooms
with thick walls on every edge that is neither a passage nor an entryway, thin lines and a
diamond on each passage, a solid arrow pointing into each entryway, the round box in each
room's upper-left corner, a glyph per feature (:mod:`exporters.grid_glyphs`), and the scoring
area: one row per scoring term with its points (from the ruleset), write-in boxes, a tally
box for unplaceable segments, a name field and a total field.

The grid keeps its physical place (``grid.origin_mm``); the rest is laid out around it. The
scoring area goes below the grid (or to its right when that is the only room), at the
largest scale that fits; when nothing fits, :class:`SheetLayoutError` says how much room is
missing rather than overlapping. Every drawn thing carries ``data-kind`` (``title``,
``coordinates``, ``room``, ``wall``, ``passage``, ``entryway``, ``round-box``, each feature's
ruleset kind, ``scoring``, ``scoring-term``, ``tally``, ``name-field``, ``total-field``...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from exporters import style
from exporters.canvas import SheetCanvas, text_width_mm, wrap_text
from exporters.grid_glyphs import block_arrow, diamond_points, draw_feature, draw_icon
from exporters.paper import SheetLayoutError
from inkcrawl.model import SIDE_OFFSETS, Cell, GridDungeon, axis_label, edge_key
from inkcrawl.rulesets import Ruleset

#: Feature kinds with their own scoring rows (other ruleset kinds get a generic row).
CLASSIC_KINDS = ("loot", "dragon", "weapon", "monster")
#: Smallest text the sheet prints (mm), whatever the squeeze.
MIN_TEXT_MM = 2.0
#: Scales tried for the scoring area, largest first.
_SCALES = [round(1.0 - 0.05 * i, 2) for i in range(9)]  # 1.0 .. 0.6
#: Gap between a row label and the tail of a west entryway arrow (mm).
_LABEL_GAP = 1.0
#: Shortest entryway arrow drawn (mm).
_MIN_ARROW_MM = 3.2
#: Gap between an entryway arrow's point and its edge of the grid (mm).
_ARROW_GAP = 0.45
#: Outline of the total field, the thickest line of the scoring area (mm).
_TOTAL_OUTLINE_MM = style.OUTLINE_MM * 2.5
#: Inset of the scoring area from the printable edges: half the total field's outline (mm).
_FIELD_INSET = _TOTAL_OUTLINE_MM / 2 + 0.05
#: Row height factors tried when the scoring area has height to spare, largest first.
_STRETCHES = [round(1.3 - 0.05 * i, 2) for i in range(7)]  # 1.3 .. 1.0


@dataclass(frozen=True)
class ScoringTerm:
    """One row of the scoring area: an id, its label (and a short one for tight layouts), the
    points as printed and the name of its icon (:func:`exporters.grid_glyphs.draw_icon`)."""

    key: str
    label: str
    short: str
    points: str
    icon: str


def vp_text(value: int | float) -> str:
    """Points as printed: ``+2``, ``-3``, ``0``."""
    value = int(value) if float(value).is_integer() else value
    return f"{value:+g}" if value else "0"


def scoring_terms(ruleset: Ruleset) -> list[ScoringTerm]:
    """The scoring rows of RULES.md 1 "Scoring", with points taken from ``ruleset``."""
    elements = ruleset.elements
    switches = ruleset.switches
    data = ruleset.data
    terms: list[ScoringTerm] = []
    loot_vp = elements.get("loot", {}).get("vp", 0)
    if "loot" in elements:
        terms.append(ScoringTerm("loot", "Loot rooms entered", "Loot rooms", f"{vp_text(loot_vp)} each", "loot"))
    if "dragon" in elements:
        doubling = switches.get("dragon_doubling", "one_loot")
        if doubling == "all_loot":
            terms.append(
                ScoringTerm(
                    "dragon",
                    "Dragon room entered: doubles all loot",
                    "Dragon (x2 all loot)",
                    f"{vp_text(loot_vp)} per loot",
                    "dragon",
                )
            )
        elif doubling == "best_item":
            terms.append(
                ScoringTerm(
                    "dragon",
                    "Dragon room entered: doubles your best item",
                    "Dragon (x2 best item)",
                    "x2 best",
                    "dragon",
                )
            )
        else:
            terms.append(
                ScoringTerm(
                    "dragon",
                    "Dragon room entered: doubles one loot bag",
                    "Dragon (x2 one loot)",
                    vp_text(loot_vp),
                    "dragon",
                )
            )
    if "weapon" in elements:
        terms.append(
            ScoringTerm(
                "weapon",
                "Weapon rooms entered",
                "Weapon rooms",
                f"{vp_text(elements['weapon'].get('vp', 0))} each",
                "weapon",
            )
        )
    if "monster" in elements:
        monster = elements["monster"]
        matched = {
            "same_network": "Monsters with their weapon (same network)",
            "earlier_round": "Monsters with their weapon (entered earlier)",
        }.get(str(switches.get("weapon_order")), "Monsters with their weapon")
        terms.append(
            ScoringTerm(
                "monster_matched", matched, "Monster + its weapon", f"{vp_text(monster.get('vp', 0))} each", "matched"
            )
        )
        terms.append(
            ScoringTerm(
                "monster_unmatched",
                "Monsters without their weapon",
                "Monster, no weapon",
                f"{vp_text(monster.get('unmatched_vp', 0))} each",
                "unmatched",
            )
        )
    for kind, definition in elements.items():
        if kind not in CLASSIC_KINDS and definition.get("vp"):
            name = kind.replace("_", " ").capitalize()
            terms.append(
                ScoringTerm(kind, f"{name} rooms entered", f"{name} rooms", f"{vp_text(definition['vp'])} each", kind)
            )
    if "unlinked_vp" in data.get("entryways", {}):
        terms.append(
            ScoringTerm(
                "entryways",
                "Entryways not linked to your paths",
                "Unlinked entryways",
                f"{vp_text(data['entryways']['unlinked_vp'])} each",
                "entryway",
            )
        )
    if "tally_vp" in data:
        terms.append(ScoringTerm("tally", "Tally marks", "Tally marks", f"{vp_text(data['tally_vp'])} each", "tally"))
    if "trap_vp" in data:
        terms.append(
            ScoringTerm("traps", "Traps that hit you", "Traps hitting you", f"{vp_text(data['trap_vp'])} each", "trap")
        )
    return terms


def tally_caption(ruleset: Ruleset) -> str:
    """What earns a tally mark under the ruleset's switches."""
    reasons = ["unplaceable segments"]
    if ruleset.switches.get("segment_skip") == "voluntary_tally":
        reasons.append("skipped segments")
    if ruleset.switches.get("no_trap_room") == "tally":
        reasons.append("traps with no room")
    return ", ".join(reasons)


# Layout -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Arrangement:
    """How the scoring area is arranged: ``columns`` tables of terms side by side, and the tally,
    name and total fields in form ``fields`` (``column``: stacked; ``pair``: tally | name over
    total; ``row``: tally | name | total), placed beside the tables or ``below`` them;
    ``short`` picks the short term labels."""

    name: str
    columns: int
    fields: str
    short: bool
    below: bool = False


#: Arrangements tried at each scale, roomiest first.
ARRANGEMENTS = (
    _Arrangement("side", 1, "column", False),
    _Arrangement("side-short", 1, "column", True),
    _Arrangement("stacked", 1, "row", False, below=True),
    _Arrangement("stacked-pair", 1, "pair", False, below=True),
    _Arrangement("stacked-pair-short", 1, "pair", True, below=True),
    _Arrangement("split", 2, "column", True),
    _Arrangement("split-pair", 2, "pair", True),
    _Arrangement("stacked-row-short", 1, "row", True, below=True),
)


@dataclass
class _Footer:
    """A chosen scoring-area layout: its box, arrangement and sizes (``dims``)."""

    x: float
    y: float
    w: float
    h: float
    scale: float
    arrangement: _Arrangement
    dims: dict = field(default_factory=dict)
    reminders: list[str] = field(default_factory=list)


def _footer_dims(terms: list[ScoringTerm], scale: float, short: bool, stretch: float = 1.0) -> dict:
    """Sizes (mm) of the scoring area at ``scale``, with rows ``stretch`` times taller."""
    text = max(MIN_TEXT_MM, style.LABEL_MM * scale)
    small = max(MIN_TEXT_MM, style.SMALL_MM * scale)
    heading = max(2.6, style.HEADING_MM * scale)
    base_row = max(4.4, 6.6 * scale)
    row_h = base_row * stretch
    d = {
        "text": text,
        "small": small,
        "heading": heading,
        "row_h": row_h,
        "box_h": min(row_h - max(1.1, 1.5 * scale), base_row * 1.1),
        "heading_h": heading * 1.65,
        "colhead_h": small * 1.7,
        "icon_w": base_row * 1.55,
        "label_w": max(text_width_mm(t.short if short else t.label, text) for t in terms) + 2.5 * scale + 1,
        "points_w": max(text_width_mm(t.points, text, bold=True) for t in terms) + 2.5 * scale + 1,
        "count_w": max(7.0, 10.0 * scale),
        "eq_w": max(3.0, text * 1.3),
        "score_w": max(8.0, 12.0 * scale),
        "gap": max(3.0, 6.0 * scale),
        "field_min_w": max(32.0, 52.0 * scale),
        "field_max_w": 70.0,
    }
    d["table_w"] = d["icon_w"] + d["label_w"] + d["points_w"] + d["count_w"] + d["eq_w"] + d["score_w"]
    caption = small * 1.6
    d["caption_h"] = caption
    d["name_h"] = caption + row_h * 1.25
    d["total_h"] = caption + row_h * 1.55
    d["tally_min_h"] = caption * 2 + row_h * 1.6
    return d


def _fields_size(d: dict, fields: str) -> tuple[float, float]:
    """Smallest width and height of the tally, name and total fields in form ``fields``."""
    gap = d["gap"] * 0.5
    if fields == "column":
        return d["field_min_w"], d["tally_min_h"] + d["name_h"] + d["total_h"] + 2 * gap
    if fields == "pair":
        return 2 * d["field_min_w"] * 0.7 + gap, max(d["tally_min_h"], d["name_h"] + d["total_h"] + gap)
    return 3 * d["field_min_w"] * 0.7 + 2 * gap, max(d["tally_min_h"], d["total_h"])


def _footer_size(terms: list[ScoringTerm], d: dict, arrangement: _Arrangement) -> tuple[float, float]:
    """Smallest width and height (mm) the scoring area needs in ``arrangement``."""
    rows = math.ceil(len(terms) / arrangement.columns)
    tables_w = arrangement.columns * d["table_w"] + (arrangement.columns - 1) * d["gap"]
    table_h = d["colhead_h"] + rows * d["row_h"]
    fields_w, fields_h = _fields_size(d, arrangement.fields)
    if arrangement.below:
        return max(tables_w, fields_w), d["heading_h"] + table_h + d["gap"] + fields_h
    return tables_w + d["gap"] + fields_w, d["heading_h"] + max(table_h, fields_h)


def _fit_footer(terms, region, reminders, scale, arrangement, stretch) -> _Footer | None:
    x, y, w, h = region
    dims = _footer_dims(terms, scale, arrangement.short, stretch)
    need_w, need_h = _footer_size(terms, dims, arrangement)
    lines = [line for r in reminders for line in wrap_text(r, w, dims["small"])]
    need_h += len(lines) * dims["small"] * 1.35 + (dims["gap"] * 0.5 if lines else 0)
    if need_w <= w + 1e-6 and need_h <= h + 1e-6:
        return _Footer(x, y, w, need_h, scale, arrangement, dims, lines)
    return None


def _plan_footer(
    terms: list[ScoringTerm], regions: list[tuple[float, float, float, float]], reminders: list[str]
) -> _Footer | None:
    """The roomiest scoring-area layout that fits one of ``regions`` (``x, y, w, h``): largest
    scale first, then the arrangements in order; spare height then goes to taller rows (more
    room to write), up to the first of :data:`_STRETCHES`."""
    for scale in _SCALES:
        for arrangement in ARRANGEMENTS:
            for region in regions:
                if _fit_footer(terms, region, reminders, scale, arrangement, 1.0) is None:
                    continue
                for stretch in _STRETCHES:
                    footer = _fit_footer(terms, region, reminders, scale, arrangement, stretch)
                    if footer is not None:
                        return footer
    return None


def scoring_area_minimum(ruleset: Ruleset, width: float) -> tuple[float, float]:
    """The lowest scoring area (width, height in mm) that fits ``width`` for ``ruleset``
    (``(inf, inf)`` when none does)."""
    terms = scoring_terms(ruleset)
    sizes = [_footer_size(terms, _footer_dims(terms, _SCALES[-1], a.short), a) for a in ARRANGEMENTS]
    return min((size for size in sizes if size[0] <= width), key=lambda size: size[1], default=(math.inf, math.inf))


# Drawing -----------------------------------------------------------------------------------------


def draw_grid_sheet(canvas: SheetCanvas, dungeon: GridDungeon, ruleset: Ruleset) -> None:
    """Draw a grid dungeon's whole play sheet onto ``canvas`` (sheet mm, inside the printable area).

    Raises :class:`SheetLayoutError` when the grid leaves no room for the labels, the title or
    the scoring area.
    """
    sheet = _GridSheet(canvas, dungeon, ruleset)
    sheet.plan()
    sheet.draw()


class _GridSheet:
    def __init__(self, canvas: SheetCanvas, dungeon: GridDungeon, ruleset: Ruleset):
        self.canvas = canvas
        self.pal = canvas.palette
        self.dungeon = dungeon
        self.ruleset = ruleset
        self.grid = dungeon.grid
        self.c = float(self.grid.cell_mm)
        self.gx, self.gy = (float(v) for v in self.grid.origin_mm)
        self.right = self.gx + self.grid.columns * self.c
        self.bottom = self.gy + self.grid.rows * self.c
        self.x0, self.y0, self.x1, self.y1 = dungeon.sheet.paper.printable
        self.entry_sides = {
            e.side for e in dungeon.entryways if self.grid.contains(e.cell) and self.grid.is_outer_edge(e.cell, e.side)
        }
        self.terms = scoring_terms(ruleset)

    # planning ---------------------------------------------------------------------------------
    def plan(self) -> None:
        grid, c = self.grid, self.c
        self.label_size = style.LABEL_MM  # column labels; row labels may be smaller to fit the margin
        # entryway arrows: full length on top and bottom, as long as the margins allow on the
        # left (where the row labels sit outside the arrows) and on the right
        full = min(7.5, max(4.5, 0.3 * c))
        east = self.x1 - self.right - _ARROW_GAP - style.FINE_MM
        for size in (style.LABEL_MM, 2.5, MIN_TEXT_MM):
            label_w = max(text_width_mm(self._row_label(r), size, bold=True) for r in range(grid.rows))
            west = self.gx - self.x0 - label_w - _LABEL_GAP - _ARROW_GAP
            if west >= (_MIN_ARROW_MM if "west" in self.entry_sides else 0.6):
                self.row_label_size = size
                break
        else:
            raise SheetLayoutError(
                f"the grid leaves {self.gx - self.x0:g} mm on its left inside the margins; the row labels and "
                f"entryway arrows need {label_w + _LABEL_GAP + _ARROW_GAP + _MIN_ARROW_MM:.1f} mm"
            )
        if "east" in self.entry_sides and east < _MIN_ARROW_MM:
            raise SheetLayoutError(
                f"the grid leaves {self.x1 - self.right:g} mm on its right inside the margins; "
                f"the entryway arrows need {_MIN_ARROW_MM + _ARROW_GAP + style.FINE_MM:g} mm"
            )
        # when the row labels beside the west arrows would shrink them, the arrows take the whole
        # left margin and the labels of their rows move up, above the arrow, into the row's band
        self.lifted_rows: frozenset[int] = frozenset()
        beside = self.gx - self.x0 - _ARROW_GAP - style.FINE_MM
        if "west" in self.entry_sides and west < full and beside > west:
            lifted = min(full, beside)
            head = min(0.28 * c, 6.5, lifted * 1.05)
            label_w = max(text_width_mm(self._row_label(r), style.LABEL_MM, bold=True) for r in range(grid.rows))
            if c / 2 >= head / 2 + 1.2 + style.LABEL_MM and label_w + 1.8 <= self.gx - self.x0:
                west, self.row_label_size = lifted, style.LABEL_MM
                self.lifted_rows = frozenset(
                    e.cell[1] for e in self.dungeon.entryways if e.side == "west" and self.grid.contains(e.cell)
                )
        self.arrow_len = {"north": full, "south": full, "west": min(full, west), "east": min(full, east)}
        self.head_w = {side: min(0.28 * c, 6.5, length * 1.05) for side, length in self.arrow_len.items()}
        self.north_offset = self.arrow_len["north"] + _ARROW_GAP + 1.0 if "north" in self.entry_sides else 1.8
        beside_labels = "west" in self.entry_sides and not self.lifted_rows
        self.west_offset = self.arrow_len["west"] + _ARROW_GAP + _LABEL_GAP if beside_labels else 1.8
        self._plan_header()
        self._plan_scoring()

    def _row_label(self, row: int) -> str:
        return axis_label(row, self.grid.row_labels)

    def _plan_header(self) -> None:
        labels_top = self.gy - self.north_offset - self.label_size * 0.75
        available = labels_top - 2.0 - self.y0
        width = self.x1 - self.x0
        reminders = list(self.dungeon.sheet.reminders)
        # the title shrinks to the printable width when it is long
        unit_width = text_width_mm(self.dungeon.sheet.title, 1.0, bold=True)
        widest = max(MIN_TEXT_MM, (width - 1) / unit_width) if unit_width else style.TITLE_MM
        for title_size, small in (
            (style.TITLE_MM, style.SMALL_MM),
            (style.TITLE_MM, 2.2),
            (6.0, MIN_TEXT_MM),
            (5.0, MIN_TEXT_MM),
        ):
            title_size = min(title_size, widest)
            lines = [line for r in reminders for line in wrap_text(r, width, small)]
            height = title_size * 0.95 + (len(lines) * small * 1.35 + small * 0.5 if lines else 0)
            if height <= available:
                self.title_size, self.reminder_size, self.header_lines = title_size, small, lines
                self.footer_reminders = []
                return
        for title_size in (style.TITLE_MM, 6.0, 5.0, 4.0):
            title_size = min(title_size, widest)
            if title_size * 0.95 <= available:
                self.title_size, self.reminder_size, self.header_lines = title_size, MIN_TEXT_MM, []
                self.footer_reminders = reminders
                return
        raise SheetLayoutError(
            f"the grid starts {self.gy - self.y0:g} mm below the top margin; the title and "
            f"coordinate labels need at least {self.gy - labels_top + 2 + 4:g} mm"
        )

    def _plan_scoring(self) -> None:
        below_top = self.bottom + (self.arrow_len["south"] + 3.0 if "south" in self.entry_sides else 4.5)
        # inset by half the thickest field outline, so strokes stay inside the printable area
        inset = _FIELD_INSET
        regions = [(self.x0 + inset, below_top, self.x1 - self.x0 - 2 * inset, self.y1 - below_top - inset)]
        right_left = self.right + (self.arrow_len["east"] + 3.0 if "east" in self.entry_sides else 4.5)
        if self.x1 - right_left > 40:
            regions.append((right_left, self.gy, self.x1 - right_left - inset, self.y1 - self.gy - inset))
        footer = _plan_footer(self.terms, regions, self.footer_reminders)
        if footer is None:
            width, height = scoring_area_minimum(self.ruleset, self.x1 - self.x0)
            raise SheetLayoutError(
                f"the grid leaves {max(0, self.y1 - below_top):.0f} mm below it inside the margins; the scoring "
                f"area needs at least {height:.0f} mm there ({width:.0f} mm wide), or that much room beside the grid"
            )
        self.footer = footer

    # drawing ----------------------------------------------------------------------------------
    def draw(self) -> None:
        self._draw_header()
        self._draw_rooms()
        self._draw_passages()
        self._draw_entryways()
        self._draw_walls()
        self._draw_round_boxes()
        self._draw_features()
        self._draw_coordinates()
        self._draw_scoring()

    def _draw_header(self) -> None:
        canvas, pal = self.canvas, self.pal
        title = self.dungeon.sheet.title
        size = self.title_size
        width = text_width_mm(title, size, bold=True)
        centre = (self.gx + self.right) / 2
        centre = min(max(centre, self.x0 + width / 2), self.x1 - width / 2)
        baseline = self.y0 + size * 0.8
        group = canvas.group("title")
        canvas.text(title, (centre, baseline), size, anchor="middle", bold=True, parent=group)
        # a flourish either side of the title: a rule ending in a small diamond
        mid = baseline - size * 0.36
        gap = 3.0
        for sign in (-1, 1):
            inner = centre + sign * (width / 2 + gap)
            outer = min(max(centre + sign * (width / 2 + gap + 28), self.x0 + 1), self.x1 - 1)
            if sign * (outer - inner) < 6:
                continue
            canvas.line(
                (inner + sign * 2.6, mid), (outer, mid), stroke=pal.accent, width=style.OUTLINE_MM, parent=group
            )
            canvas.polyline(
                diamond_points((inner + sign * 1.1, mid), 1.1),
                closed=True,
                fill=pal.accent,
                stroke=pal.accent,
                width=style.FINE_MM,
                parent=group,
            )
        if self.header_lines:
            reminders = canvas.group("reminders")
            small = self.reminder_size
            y = baseline + size * 0.22 + small * 1.35
            for line in self.header_lines:
                half = text_width_mm(line, small) / 2
                x = min(max(centre, self.x0 + half), self.x1 - half)
                canvas.text(line, (x, y), small, anchor="middle", parent=reminders)
                y += small * 1.35

    def _cell_xy(self, cell: Cell) -> tuple[float, float]:
        return self.gx + cell[0] * self.c, self.gy + cell[1] * self.c

    def _edge_segment(self, cell: Cell, side: str) -> tuple[tuple[float, float], tuple[float, float]]:
        x, y = self._cell_xy(cell)
        c = self.c
        return {
            "north": ((x, y), (x + c, y)),
            "south": ((x, y + c), (x + c, y + c)),
            "west": ((x, y), (x, y + c)),
            "east": ((x + c, y), (x + c, y + c)),
        }[side]

    def _draw_rooms(self) -> None:
        group = self.canvas.group("rooms")
        for row in range(self.grid.rows):
            for col in range(self.grid.columns):
                x, y = self._cell_xy((col, row))
                self.canvas.rect(x, y, self.c, self.c, fill=self.pal.room_fill, parent=group, kind="room")

    def _open_edges(self) -> set:
        passages = {edge_key(p.cell, p.side) for p in self.dungeon.passages if self.grid.contains(p.cell)}
        entries = {edge_key(e.cell, e.side) for e in self.dungeon.entryways if self.grid.contains(e.cell)}
        return passages | entries

    def _draw_walls(self) -> None:
        grid, c = self.grid, self.c
        open_edges = self._open_edges()
        group = self.canvas.group("walls")

        def wall(cell: Cell, side: str) -> bool:
            return edge_key(cell, side) not in open_edges

        runs = []
        # horizontal lines: y index j from 0 (top boundary) to rows (bottom boundary)
        for j in range(grid.rows + 1):
            start = None
            for i in range(grid.columns + 1):
                is_wall = i < grid.columns and (wall((i, j), "north") if j < grid.rows else wall((i, j - 1), "south"))
                if is_wall and start is None:
                    start = i
                elif not is_wall and start is not None:
                    runs.append(((self.gx + start * c, self.gy + j * c), (self.gx + i * c, self.gy + j * c)))
                    start = None
        for i in range(grid.columns + 1):
            start = None
            for j in range(grid.rows + 1):
                is_wall = j < grid.rows and (wall((i, j), "west") if i < grid.columns else wall((i - 1, j), "east"))
                if is_wall and start is None:
                    start = j
                elif not is_wall and start is not None:
                    runs.append(((self.gx + i * c, self.gy + start * c), (self.gx + i * c, self.gy + j * c)))
                    start = None
        for a, b in runs:
            self.canvas.line(a, b, stroke=self.pal.ink, width=style.WALL_MM, parent=group, kind="wall")

    def _thin_edge(self, cell: Cell, side: str, group) -> None:
        (ax, ay), (bx, by) = self._edge_segment(cell, side)
        self.canvas.line(
            (ax, ay), (bx, by), stroke=self.pal.grid_line, width=style.OUTLINE_MM, parent=group, linecap="butt"
        )

    def _edge_mid(self, cell: Cell, side: str) -> tuple[float, float]:
        (ax, ay), (bx, by) = self._edge_segment(cell, side)
        return (ax + bx) / 2, (ay + by) / 2

    def _draw_passages(self) -> None:
        group = self.canvas.group("passages")
        half = min(max(0.115 * self.c, 1.8), 3.2)
        seen = set()
        for passage in self.dungeon.passages:
            key = edge_key(passage.cell, passage.side)
            if not self.grid.contains(passage.cell) or key in seen:
                continue
            seen.add(key)
            item = self.canvas.group("passage", parent=group)
            self._thin_edge(passage.cell, passage.side, item)
            self.canvas.polyline(
                diamond_points(self._edge_mid(passage.cell, passage.side), half),
                closed=True,
                fill=self.pal.paper,
                stroke=self.pal.ink,
                width=style.OUTLINE_MM * 1.5,
                parent=item,
                kind="diamond",
            )

    def _draw_entryways(self) -> None:
        group = self.canvas.group("entryways")
        for entryway in self.dungeon.entryways:
            if not (self.grid.contains(entryway.cell) and self.grid.is_outer_edge(entryway.cell, entryway.side)):
                continue
            item = self.canvas.group("entryway", parent=group, element_id=entryway.id)
            self._thin_edge(entryway.cell, entryway.side, item)
            dc, dr = SIDE_OFFSETS[entryway.side]
            mx, my = self._edge_mid(entryway.cell, entryway.side)
            tip = (mx + dc * _ARROW_GAP, my + dr * _ARROW_GAP)
            self.canvas.polyline(
                block_arrow(tip, (-dc, -dr), self.arrow_len[entryway.side], self.head_w[entryway.side]),
                closed=True,
                fill=self.pal.ink,
                stroke=self.pal.ink,
                width=style.FINE_MM,
                parent=item,
                kind="arrow",
            )

    def _round_box(self) -> tuple[float, float]:
        size = min(max(0.24 * self.c, 4.0), 7.0)
        return style.WALL_MM / 2 + 0.7, size

    def _draw_round_boxes(self) -> None:
        group = self.canvas.group("round-boxes")
        inset, size = self._round_box()
        for row in range(self.grid.rows):
            for col in range(self.grid.columns):
                x, y = self._cell_xy((col, row))
                self.canvas.rect(
                    x + inset,
                    y + inset,
                    size,
                    size,
                    stroke=self.pal.ink,
                    width=style.OUTLINE_MM,
                    fill=self.pal.paper,
                    radius=size * 0.22,
                    parent=group,
                    kind="round-box",
                )

    def _draw_features(self) -> None:
        group = self.canvas.group("features")
        inset, box = self._round_box()
        c = self.c
        size = min(c * 0.58, c - 2 * (inset + box) + c * 0.3)
        for feature in self.dungeon.features:
            if not self.grid.contains(feature.cell):
                continue
            x, y = self._cell_xy(feature.cell)
            centre = (x + c * 0.54, y + c * 0.55)
            draw_feature(
                self.canvas, feature.kind, centre, size, letter=feature.letter, parent=group, element_id=feature.id
            )

    def _draw_coordinates(self) -> None:
        group = self.canvas.group("coordinates")
        size = self.label_size
        grid, c = self.grid, self.c
        for col in range(grid.columns):
            x = self.gx + (col + 0.5) * c
            self.canvas.text(
                axis_label(col, grid.column_labels),
                (x, self.gy - self.north_offset),
                size,
                anchor="middle",
                bold=True,
                parent=group,
            )
        size = self.row_label_size
        for row in range(grid.rows):
            y = self.gy + (row + 0.5) * c + size * 0.365
            if row in self.lifted_rows:  # above the row's west arrow, clear of its head
                y = self.gy + (row + 0.5) * c - self.head_w["west"] / 2 - 1.2
            self.canvas.text(
                axis_label(row, grid.row_labels),
                (self.gx - self.west_offset, y),
                size,
                anchor="end",
                bold=True,
                parent=group,
            )

    # scoring ----------------------------------------------------------------------------------
    def _draw_scoring(self) -> None:
        f = self.footer
        d, arrangement = f.dims, f.arrangement
        canvas, pal = self.canvas, self.pal
        group = canvas.group("scoring")
        x, y = f.x, f.y
        heading_base = y + d["heading"] * 0.85
        canvas.text("Scoring", (x, heading_base), d["heading"], bold=True, parent=group, kind="scoring-heading")
        hint = "count what you reached, multiply by the points"
        hint_x = x + text_width_mm("Scoring", d["heading"], bold=True) + 3
        if hint_x + text_width_mm(hint, d["small"]) <= x + f.w:
            canvas.text(hint, (hint_x, heading_base), d["small"], parent=group)
        rule_y = y + d["heading_h"] - d["heading"] * 0.3
        canvas.line(
            (x, rule_y), (x + f.w, rule_y), stroke=pal.ink, width=style.OUTLINE_MM, parent=group, linecap="butt"
        )
        top = y + d["heading_h"]
        gap = d["gap"]
        rows = math.ceil(len(self.terms) / arrangement.columns)
        table_h = d["colhead_h"] + rows * d["row_h"]
        for column in range(arrangement.columns):
            terms = self.terms[column * rows : (column + 1) * rows]
            self._draw_table(group, terms, x + column * (d["table_w"] + gap), top, d["table_w"], arrangement.short)
        tables_w = arrangement.columns * d["table_w"] + (arrangement.columns - 1) * gap
        fields_w, fields_h = _fields_size(d, arrangement.fields)
        if arrangement.below:
            body_h = table_h + gap + fields_h
            self._draw_fields(group, arrangement.fields, x, top + table_h + gap, max(tables_w, fields_w), fields_h)
        else:
            body_h = max(table_h, fields_h)
            limit = d["field_max_w"] * (1 if arrangement.fields == "column" else 1.6)
            width = min(limit, f.w - tables_w - gap)
            self._draw_fields(group, arrangement.fields, x + f.w - width, top, width, body_h)
        if f.reminders:
            reminders = canvas.group("reminders", parent=group)
            ry = top + body_h + gap * 0.5 + d["small"]
            for line in f.reminders:
                canvas.text(line, (x, ry), d["small"], parent=reminders)
                ry += d["small"] * 1.35

    def _draw_fields(self, parent, form: str, x: float, y: float, w: float, h: float) -> None:
        """The tally, name and total fields in the box ``x, y, w, h``, in ``form`` (see
        :class:`_Arrangement`)."""
        d = self.footer.dims
        gap = d["gap"] * 0.5
        if form == "column":
            tally_h = h - d["name_h"] - d["total_h"] - 2 * gap
            self._draw_tally(parent, x, y, w, tally_h)
            self._draw_name(parent, x, y + tally_h + gap, w, d["name_h"])
            self._draw_total(parent, x, y + tally_h + gap + d["name_h"] + gap, w, d["total_h"])
        elif form == "pair":
            part = (w - gap) / 2
            self._draw_tally(parent, x, y, part, h)
            name_h = h - d["total_h"] - gap
            self._draw_name(parent, x + part + gap, y, part, name_h)
            self._draw_total(parent, x + part + gap, y + name_h + gap, part, d["total_h"])
        else:
            part = (w - 2 * gap) / 3
            self._draw_tally(parent, x, y, part, h)
            self._draw_name(parent, x + part + gap, y, part, d["name_h"])
            self._draw_total(parent, x + 2 * (part + gap), y, part, d["total_h"])

    def _draw_table(self, parent, terms: list[ScoringTerm], x: float, y: float, width: float, short: bool) -> None:
        canvas, pal, d = self.canvas, self.pal, self.footer.dims
        row_h, box_h, text, small = d["row_h"], d["box_h"], d["text"], d["small"]
        count_x = x + d["icon_w"] + d["label_w"] + d["points_w"]
        score_x = count_x + d["count_w"] + d["eq_w"]
        head_base = y + d["colhead_h"] - small * 0.45
        canvas.text("points", (count_x - 2.0, head_base), small, anchor="end", parent=parent)
        canvas.text("count", (count_x + d["count_w"] / 2, head_base), small, anchor="middle", parent=parent)
        canvas.text("score", (score_x + d["score_w"] / 2, head_base), small, anchor="middle", parent=parent)
        top = y + d["colhead_h"]
        for index, term in enumerate(terms):
            ry = top + index * row_h
            row = canvas.group("scoring-term", parent=parent)
            row.attribs["data-term"] = term.key
            if index % 2 == 0:
                canvas.rect(x, ry, width, row_h, fill=pal.corridor_fill, fill_opacity=0.55, parent=row)
            mid = ry + row_h / 2
            draw_icon(canvas, term.icon, (x + d["icon_w"] / 2, mid), min(row_h, d["icon_w"] / 1.55) * 0.78, row)
            base = mid + text * 0.36
            canvas.text(
                term.short if short else term.label, (x + d["icon_w"] + 0.8, base), text, parent=row, kind="term-label"
            )
            canvas.text(
                term.points, (count_x - 2.0, base), text, anchor="end", bold=True, parent=row, kind="term-points"
            )
            box_y = mid - box_h / 2
            canvas.write_in_box(count_x, box_y, d["count_w"], box_h, parent=row, kind="count-box")
            canvas.text("=", (count_x + d["count_w"] + d["eq_w"] / 2, base), text, anchor="middle", parent=row)
            canvas.write_in_box(score_x, box_y, d["score_w"], box_h, parent=row, kind="score-box")

    def _draw_tally(self, parent, x: float, y: float, w: float, h: float) -> None:
        canvas, pal, d = self.canvas, self.pal, self.footer.dims
        small = d["small"]
        group = canvas.group("tally", parent=parent)
        tally_vp = self.ruleset.data.get("tally_vp")
        title = "Tally marks" + (f" ({vp_text(tally_vp)} each)" if tally_vp is not None else "")
        canvas.text(title, (x, y + small * 1.05), small, bold=True, parent=group)
        caption = tally_caption(self.ruleset)
        lines = wrap_text(caption, w, small)
        if len(lines) > 1:
            caption = lines[0] + ("..." if len(lines) > 1 else "")
        canvas.text(caption, (x, y + small * 2.45), small, parent=group)
        box_y = y + d["caption_h"] * 2 - small * 0.4
        box_h = y + h - box_y
        canvas.rect(
            x,
            box_y,
            w,
            box_h,
            stroke=pal.ink,
            width=style.OUTLINE_MM,
            fill=pal.paper,
            radius=0.8,
            parent=group,
            kind="tally-box",
        )
        rounds = int(self.ruleset.data.get("rounds", 0) or 0)
        if 1 < rounds <= 12 and w / rounds >= 4.5 and box_h >= small * 3:
            step = w / rounds
            label = max(MIN_TEXT_MM, small * 0.85)
            for r in range(rounds):
                cx = x + step * (r + 0.5)
                canvas.text(
                    str(r + 1), (cx, box_y + label * 1.15), label, anchor="middle", fill=pal.grid_line, parent=group
                )
                if r:
                    canvas.line(
                        (x + step * r, box_y + 0.8),
                        (x + step * r, box_y + box_h - 0.8),
                        stroke=pal.grid_line,
                        width=style.FINE_MM,
                        dash=(0.8, 0.8),
                        parent=group,
                    )

    def _draw_name(self, parent, x: float, y: float, w: float, h: float) -> None:
        canvas, d = self.canvas, self.footer.dims
        group = canvas.group("name-field", parent=parent)
        canvas.text("Name", (x, y + d["small"] * 1.05), d["small"], bold=True, parent=group)
        canvas.write_in_box(x, y + d["caption_h"], w, h - d["caption_h"], parent=group, kind="name-box")

    def _draw_total(self, parent, x: float, y: float, w: float, h: float) -> None:
        canvas, pal, d = self.canvas, self.pal, self.footer.dims
        group = canvas.group("total-field", parent=parent)
        canvas.text("Total", (x, y + d["small"] * 1.05), d["small"], bold=True, parent=group)
        canvas.rect(
            x,
            y + d["caption_h"],
            w,
            h - d["caption_h"],
            stroke=pal.ink,
            width=_TOTAL_OUTLINE_MM,
            fill=pal.paper,
            radius=1.0,
            parent=group,
            kind="total-box",
        )
