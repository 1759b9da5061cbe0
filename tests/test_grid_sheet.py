"""The grid-family play sheet (exporters/grid_sheet.py): content, Qt-safe SVG, print rules, layout."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from functools import cache

import pytest
from conftest import PACKS
from svg_tree import sheet_tree

from exporters.canvas import text_width_mm
from exporters.grid_sheet import SheetLayoutError, scoring_terms, vp_text
from exporters.sheet import render_sheet
from inkcrawl.loading import open_dungeons
from inkcrawl.model import Feature, edge_key
from inkcrawl.rulesets import Ruleset

SVG_NS = "{http://www.w3.org/2000/svg}"
COLOUR_ATTRS = ("fill", "stroke")


@cache
def _opened():
    result = open_dungeons([str(PACKS / "ember-halls")])
    assert result.report.problems == []
    return [d for d in result.dungeons if d.dungeon.family == "grid"]


def _ids():
    return [d.dungeon.id for d in _opened()]


@cache
def _svg(dungeon_id: str, grayscale: bool) -> str:
    opened = next(d for d in _opened() if d.dungeon.id == dungeon_id)
    return render_sheet(opened.dungeon, opened.ruleset, grayscale=grayscale).svg


def _opened_by_id(dungeon_id: str):
    return next(d for d in _opened() if d.dungeon.id == dungeon_id)


def _tree(svg: str) -> ET.Element:
    return sheet_tree(svg)


def _kinds(root: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("data-kind") == kind]


def _texts(root: ET.Element) -> list[str]:
    return [e.text or "" for e in root.iter(f"{SVG_NS}text")]


def _bounds(root: ET.Element):
    """Yield (element, x0, y0, x1, y1) of every drawn element except the paper, strokes included."""
    for element in root.iter():
        tag = element.tag.replace(SVG_NS, "")
        if element.get("data-kind") == "paper":
            continue
        half = float(element.get("stroke-width", 0)) / 2 if element.get("stroke", "none") != "none" else 0
        if tag == "path":
            data = element.get("d")
            assert not re.search(r"[a-ln-y]", data.replace("e-", "")), f"relative path commands in {data!r}"
            numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", data)]
            xs, ys = numbers[0::2], numbers[1::2]
        elif tag == "rect":
            x, y = float(element.get("x")), float(element.get("y"))
            xs, ys = [x, x + float(element.get("width"))], [y, y + float(element.get("height"))]
        elif tag == "circle":
            cx, cy, r = (float(element.get(k)) for k in ("cx", "cy", "r"))
            xs, ys = [cx - r, cx + r], [cy - r, cy + r]
        elif tag == "text":
            x, y, size = float(element.get("x")), float(element.get("y")), float(element.get("font-size"))
            width = text_width_mm(element.text or "", size, bold=element.get("font-weight") == "bold")
            start = {"middle": x - width / 2, "end": x - width}.get(element.get("text-anchor"), x)
            xs, ys = [start, start + width], [y - size * 0.76, y + size * 0.24]  # DejaVu caps, descenders
        else:
            continue
        yield element, min(xs) - half, min(ys) - half, max(xs) + half, max(ys) + half


# Content ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dungeon_id", _ids())
def test_every_feature_kind_appears_with_its_ruleset_kind(dungeon_id):
    opened = _opened_by_id(dungeon_id)
    root = _tree(_svg(dungeon_id, False))
    for kind in {f.kind for f in opened.dungeon.features}:
        assert kind in opened.ruleset.elements
        drawn = _kinds(root, kind)
        assert len(drawn) == sum(f.kind == kind for f in opened.dungeon.features), kind
    # each feature group carries its id, and lettered features show their letter
    by_id = {e.get("data-id"): e for e in root.iter() if e.get("data-id")}
    for feature in opened.dungeon.features:
        group = by_id[feature.id]
        assert group.get("data-kind") == feature.kind
        if feature.letter:
            assert feature.letter in _texts(group)


@pytest.mark.parametrize("dungeon_id", _ids())
def test_one_diamond_per_passage_and_one_arrow_per_entryway(dungeon_id):
    dungeon = _opened_by_id(dungeon_id).dungeon
    root = _tree(_svg(dungeon_id, False))
    passages = {edge_key(p.cell, p.side) for p in dungeon.passages}
    assert len(_kinds(root, "passage")) == len(passages) == len(dungeon.passages)
    assert len(_kinds(root, "diamond")) == len(passages)
    entryways = _kinds(root, "entryway")
    assert len(entryways) == len(dungeon.entryways)
    assert sorted(e.get("data-id") for e in entryways) == sorted(e.id for e in dungeon.entryways)
    for group in entryways:  # the arrow is a filled path, never a marker
        arrows = _kinds(group, "arrow")
        assert len(arrows) == 1 and arrows[0].tag == f"{SVG_NS}path" and arrows[0].get("fill", "none") != "none"


@pytest.mark.parametrize("dungeon_id", _ids())
def test_board_parts_and_coordinates(dungeon_id):
    dungeon = _opened_by_id(dungeon_id).dungeon
    grid = dungeon.grid
    root = _tree(_svg(dungeon_id, False))
    rooms = grid.columns * grid.rows
    assert len(_kinds(root, "room")) == rooms
    assert len(_kinds(root, "round-box")) == rooms
    walls = _kinds(root, "wall")
    assert walls and all(float(w.get("stroke-width")) >= 1.0 for w in walls)
    (title,) = _kinds(root, "title")
    assert dungeon.sheet.title in _texts(title)
    reminders = " ".join(" ".join(_texts(g)) for g in _kinds(root, "reminders"))
    for reminder in dungeon.sheet.reminders:
        assert reminder.split()[-1] in reminders
    (coordinates,) = _kinds(root, "coordinates")
    labels = _texts(coordinates)
    first = grid.cell_label((0, 0))
    last = grid.cell_label((grid.columns - 1, grid.rows - 1))
    assert first[0] in labels and last[0] in labels  # column letters A and the last one
    assert "1" in labels and str(grid.rows) in labels
    assert len(labels) == grid.columns + grid.rows


def test_wall_runs_cover_exactly_the_closed_edges():
    opened = _opened_by_id(_ids()[0])
    dungeon, grid = opened.dungeon, opened.dungeon.grid
    root = _tree(_svg(dungeon.id, False))
    c, (gx, gy) = grid.cell_mm, grid.origin_mm
    covered = set()
    for wall in _kinds(root, "wall"):
        x0, y0, x1, y1 = (float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", wall.get("d")))
        if y0 == y1:
            for i in range(round((x0 - gx) / c), round((x1 - gx) / c)):
                row = round((y0 - gy) / c)
                covered.add(edge_key((i, row), "north") if row < grid.rows else edge_key((i, row - 1), "south"))
        else:
            for j in range(round((y0 - gy) / c), round((y1 - gy) / c)):
                col = round((x0 - gx) / c)
                covered.add(edge_key((col, j), "west") if col < grid.columns else edge_key((col - 1, j), "east"))
    every_edge = {
        edge_key((i, j), side)
        for i in range(grid.columns)
        for j in range(grid.rows)
        for side in ("north", "east", "south", "west")
    }
    open_edges = {edge_key(p.cell, p.side) for p in dungeon.passages} | {
        edge_key(e.cell, e.side) for e in dungeon.entryways
    }
    assert covered == every_edge - open_edges


@pytest.mark.parametrize("dungeon_id", _ids())
def test_scoring_area_has_every_term_with_ruleset_points_and_fields(dungeon_id):
    opened = _opened_by_id(dungeon_id)
    data = opened.ruleset.data
    root = _tree(_svg(dungeon_id, False))
    (scoring,) = _kinds(root, "scoring")
    texts = _texts(scoring)
    rows = _kinds(scoring, "scoring-term")
    assert [r.get("data-term") for r in rows] == [
        "loot",
        "dragon",
        "weapon",
        "monster_matched",
        "monster_unmatched",
        "entryways",
        "tally",
        "traps",
    ]
    expected = {
        "loot": vp_text(data["elements"]["loot"]["vp"]) + " each",
        "weapon": vp_text(data["elements"]["weapon"]["vp"]) + " each",
        "monster_matched": vp_text(data["elements"]["monster"]["vp"]) + " each",
        "monster_unmatched": vp_text(data["elements"]["monster"]["unmatched_vp"]) + " each",
        "entryways": vp_text(data["entryways"]["unlinked_vp"]) + " each",
        "tally": vp_text(data["tally_vp"]) + " each",
        "traps": vp_text(data["trap_vp"]) + " each",
        "dragon": vp_text(data["elements"]["loot"]["vp"]),
    }
    for row in rows:
        row_texts = _texts(row)
        assert expected[row.get("data-term")] in row_texts
        assert len(_kinds(row, "count-box")) == 1 and len(_kinds(row, "score-box")) == 1
    assert {"+2 each", "+1 each", "+4 each", "-2 each", "-3 each"} <= set(texts)
    assert any("Loot rooms" in t for t in texts) and any("Traps" in t for t in texts)
    for kind in ("tally", "name-field", "total-field"):
        assert len(_kinds(scoring, kind)) == 1, kind
    assert len(_kinds(scoring, "tally-box")) == 1


def _ruleset_with(changes: dict, switches: dict | None = None) -> Ruleset:
    base = _opened()[0].ruleset
    data = copy.deepcopy(base.data)
    for path, value in changes.items():
        target = data
        *parents, last = path.split(".")
        for key in parents:
            target = target[key]
        target[last] = value
    data["switches"].update(switches or {})
    return Ruleset(data)


def test_points_come_from_the_ruleset_not_constants():
    ruleset = _ruleset_with(
        {
            "elements.loot.vp": 3,
            "elements.weapon.vp": 2,
            "elements.monster.vp": 5,
            "elements.monster.unmatched_vp": -4,
            "entryways.unlinked_vp": 0,
            "tally_vp": -1,
            "trap_vp": -6,
        }
    )
    terms = {t.key: t.points for t in scoring_terms(ruleset)}
    assert terms == {
        "loot": "+3 each",
        "dragon": "+3",
        "weapon": "+2 each",
        "monster_matched": "+5 each",
        "monster_unmatched": "-4 each",
        "entryways": "0 each",
        "tally": "-1 each",
        "traps": "-6 each",
    }
    svg = render_sheet(_opened()[0].dungeon, ruleset).svg
    texts = _texts(_tree(svg))
    for points in terms.values():
        assert points in texts
    assert "Tally marks (-1 each)" in texts


@pytest.mark.parametrize(
    "switch, words", [("one_loot", "one loot bag"), ("all_loot", "all loot"), ("best_item", "best item")]
)
def test_dragon_row_follows_the_doubling_switch(switch, words):
    ruleset = _ruleset_with({}, {"dragon_doubling": switch})
    (dragon,) = [t for t in scoring_terms(ruleset) if t.key == "dragon"]
    assert words in dragon.label


def test_a_feature_kind_of_another_ruleset_gets_a_glyph_with_its_kind():
    opened = _opened()[0]
    dungeon = copy.deepcopy(opened.dungeon)
    taken = {f.cell for f in dungeon.features}
    free = next((i, j) for j in range(dungeon.grid.rows) for i in range(dungeon.grid.columns) if (i, j) not in taken)
    dungeon.features.append(Feature("relic1", "relic", free, letter="C"))
    root = _tree(render_sheet(dungeon, opened.ruleset).svg)
    (relic,) = _kinds(root, "relic")
    assert relic.get("data-id") == "relic1" and "RC" in _texts(relic)


# What Qt draws and what prints ------------------------------------------------------------------------


@pytest.mark.parametrize("grayscale", [False, True], ids=["colour", "grayscale"])
@pytest.mark.parametrize("dungeon_id", _ids())
def test_svg_uses_only_what_qt_draws_and_printable_sizes(dungeon_id, grayscale):
    svg = _svg(dungeon_id, grayscale)
    assert "clip-path" not in svg and "clipPath" not in svg
    assert not re.search(r"[\s\"]opacity=", svg), "group opacity is rasterised by Qt"
    assert "marker" not in svg
    # every line drawn is printable (a shape with no stroke carries a zero width for Qt's PDF
    # output: exporters.canvas, tests/test_pdf_fill_outline.py)
    widths = [float(w) for w in re.findall(r'stroke="(?!none)[^"]*"[^>]*?stroke-width="([^"]+)"', svg)]
    assert widths and min(widths) >= 0.25
    assert all(float(w) == 0 for w in re.findall(r'stroke="none"[^>]*?stroke-width="([^"]+)"', svg))
    sizes = [float(s) for s in re.findall(r'font-size="([^"]+)"', svg)]
    assert sizes and min(sizes) >= 2.0
    families = set(re.findall(r'font-family="([^"]+)"', svg))
    assert families == {"DejaVu Sans"}


@pytest.mark.parametrize("dungeon_id", _ids())
def test_grayscale_sheet_uses_only_greys(dungeon_id):
    root = _tree(_svg(dungeon_id, True))
    colours = {e.get(a) for e in root.iter() for a in COLOUR_ATTRS if e.get(a) not in (None, "none")}
    assert colours
    for colour in colours:
        assert re.fullmatch(r"#[0-9a-f]{6}", colour), colour
        assert colour[1:3] == colour[3:5] == colour[5:7], colour
    colour_svg = _svg(dungeon_id, False)
    assert re.search(r'fill="#(?!(..)\1\1)[0-9a-f]{6}"', colour_svg), "the colour sheet has some colour"


def _assert_inside_printable(svg: str, paper) -> None:
    x0, y0, x1, y1 = paper.printable
    outside = [
        (e.get("data-kind") or e.tag, round(a, 2), round(b, 2), round(c, 2), round(d, 2))
        for e, a, b, c, d in _bounds(_tree(svg))
        if a < x0 - 1e-6 or b < y0 - 1e-6 or c > x1 + 1e-6 or d > y1 + 1e-6
    ]
    assert outside == []


@pytest.mark.parametrize("grayscale", [False, True], ids=["colour", "grayscale"])
@pytest.mark.parametrize("dungeon_id", _ids())
def test_everything_inside_the_printable_area(dungeon_id, grayscale):
    _assert_inside_printable(_svg(dungeon_id, grayscale), _opened_by_id(dungeon_id).dungeon.sheet.paper)


# Layout ------------------------------------------------------------------------------------------------


def _scoring_box(root):
    (scoring,) = _kinds(root, "scoring")
    boxes = [b[1:] for b in _bounds(scoring)]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _variant(**changes):
    opened = _opened()[0]
    dungeon = copy.deepcopy(opened.dungeon)
    for key, value in changes.items():
        if key == "paper":
            dungeon.sheet.paper.width_mm, dungeon.sheet.paper.height_mm = value
        elif key == "title":
            dungeon.sheet.title = value
            dungeon.sheet.reminders = [value * 3]
        else:
            setattr(dungeon.grid, key, value)
    return dungeon, opened.ruleset


@pytest.mark.parametrize(
    "changes",
    [
        {"origin_mm": (21, 70)},  # 39 mm left below the grid
        {"origin_mm": (22, 30), "cell_mm": 22, "paper": (297, 210)},  # landscape: beside the grid
        {"origin_mm": (17.5, 40), "cell_mm": 25},  # a wide grid
        {"origin_mm": (17, 40), "cell_mm": 20, "title": "The Very Long Halls Of The Forgotten Ember King"},
    ],
    ids=["low-grid", "landscape", "wide-grid", "off-centre"],
)
def test_scoring_area_shrinks_or_moves_and_never_overlaps_the_grid(changes):
    dungeon, ruleset = _variant(**changes)
    svg = render_sheet(dungeon, ruleset).svg
    _assert_inside_printable(svg, dungeon.sheet.paper)
    root = _tree(svg)
    sx0, sy0, sx1, sy1 = _scoring_box(root)
    board = [b[1:] for b in _bounds(root) if b[0].get("data-kind") in ("room", "wall", "arrow", "diamond")]
    bx1, by1 = max(b[2] for b in board), max(b[3] for b in board)
    assert sy0 >= by1 or sx0 >= bx1, "the scoring area overlaps the grid"
    texts = _texts(root)
    assert "Total" in texts and "Name" in texts
    assert len(_kinds(root, "scoring-term")) == 8


def test_a_grid_that_leaves_no_room_for_scoring_is_refused_with_the_reason():
    dungeon, ruleset = _variant(origin_mm=(21, 100))
    with pytest.raises(SheetLayoutError, match="scoring area needs at least"):
        render_sheet(dungeon, ruleset)


def test_qt_renders_the_sheet():
    from PySide6.QtGui import QImage

    from exporters.qt import svg_to_png

    opened = _opened()[0]
    sheet = render_sheet(opened.dungeon, opened.ruleset, grayscale=True)
    png = svg_to_png(sheet.svg, sheet.width_mm, sheet.height_mm, dpi=40)
    image = QImage.fromData(png)
    assert image.width() == round(210 / 25.4 * 40)
    gx, gy = opened.dungeon.grid.origin_mm
    k = 40 / 25.4
    assert image.pixelColor(round(gx * k), round(gy * k)).lightness() < 100  # the wall corner is dark ink
    assert image.pixelColor(round(3 * k), round(3 * k)).lightness() == 255  # the margin stays blank
