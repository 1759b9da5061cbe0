"""The line family's play sheet (exporters/line_sheet.py): kinds, locks, footer facts, Qt-safe SVG,
grayscale, and glyph geometry equal to the referee's shapes (inkcrawl.shapes)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from conftest import PACKS
from dungeon_builders import line_dungeon
from shapely.geometry import LineString, Point, Polygon
from svg_tree import sheet_tree

from exporters.sheet import render_sheet
from inkcrawl import shapes
from inkcrawl.loading import open_dungeons
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import bundled_rulesets

SVG_NS = "{http://www.w3.org/2000/svg}"
LINE_PACK = PACKS / "lantern-depths"


@pytest.fixture(scope="module")
def bundled():
    """Every bundled line dungeon with its colour and grayscale SVG (parsed once)."""
    result = open_dungeons([str(LINE_PACK)])
    assert result.dungeons, "the line pack should open"
    out = []
    for opened in result.dungeons:
        colour = render_sheet(opened.dungeon, opened.ruleset).svg
        gray = render_sheet(opened.dungeon, opened.ruleset, grayscale=True).svg
        out.append((opened, colour, sheet_tree(colour), gray, sheet_tree(gray)))
    return out


def _kinds(root) -> set[str]:
    return {node.get("data-kind") for node in root.iter() if node.get("data-kind")}


def _texts(root) -> list[str]:
    return [node.text or "" for node in root.iter(f"{SVG_NS}text")]


def _by_id(root, kind: str) -> dict[str, ET.Element]:
    return {node.get("data-id"): node for node in root.iter() if node.get("data-kind") == kind and node.get("data-id")}


def _path_points(d: str) -> tuple[list[tuple[float, float]], bool]:
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", d)]
    points = list(zip(numbers[0::2], numbers[1::2]))
    closed = d.strip().endswith("Z")
    return (points + [points[0]] if closed else points), closed


def _assert_points_equal(found, expected, tolerance=0.0006):
    assert len(found) == len(expected)
    for (x1, y1), (x2, y2) in zip(found, expected):
        assert abs(x1 - x2) <= tolerance and abs(y1 - y2) <= tolerance


# -- what appears -------------------------------------------------------------------------------


def test_every_element_kind_of_each_dungeon_appears(bundled):
    for opened, _, root, _, _ in bundled:
        kinds = _kinds(root)
        expected = {e.kind for e in opened.dungeon.elements}
        expected |= {a.kind for a in opened.dungeon.areas}
        expected |= {"wall", "footer", "end-trigger", "title", "name-field", "score-field"}
        assert expected <= kinds, f"{opened.file}: missing {sorted(expected - kinds)}"
        # one group per element, tagged with its id
        for element in opened.dungeon.elements:
            assert element.id in _by_id(root, element.kind), f"{opened.file}: {element.kind} {element.id}"


def test_the_pack_shows_every_kind_of_line_classic(bundled):
    kinds = set().union(*(_kinds(root) for _, _, root, _, _ in bundled))
    ruleset_kinds = set(bundled_rulesets()["line-classic"].elements)
    assert ruleset_kinds <= kinds, sorted(ruleset_kinds - kinds)


def test_each_door_shows_one_symbol_per_lock(bundled):
    doors_seen = 0
    for opened, _, root, _, _ in bundled:
        groups = _by_id(root, "door")
        for door in opened.dungeon.elements_of("door"):
            locks = [n for n in groups[door.id].iter() if n.get("data-kind") == "lock"]
            assert [n.get("data-lock") for n in locks] == door.locks
            doors_seen += 1
    assert doors_seen >= 8


def test_boss_vp_and_timer_seconds_are_printed(bundled):
    checked = 0
    for opened, _, root, _, _ in bundled:
        texts = _texts(root)
        for boss in opened.dungeon.elements_of("boss"):
            badge = _by_id(root, "boss-vp")[boss.id]
            assert any(t == f"{boss.vp} VP" for t in (n.text for n in badge.iter(f"{SVG_NS}text")))
            assert any(f"{boss.vp} VP" in t and (boss.name or "") in t for t in texts)  # and in the footer
            checked += 1
        for trigger in opened.dungeon.sheet.end_triggers or []:
            if trigger.kind == "timer":
                triggers = [n for n in root.iter() if n.get("data-kind") == "end-trigger"]
                assert any(f"{trigger.seconds} s" in (t.text or "") for g in triggers for t in g.iter(f"{SVG_NS}text"))
                checked += 1
    assert checked >= 4


def test_every_end_trigger_and_reminder_is_listed(bundled):
    for opened, _, root, _, _ in bundled:
        triggers = [n for n in root.iter() if n.get("data-kind") == "end-trigger"]
        assert len(triggers) == len(opened.dungeon.sheet.end_triggers or [])
        reminders = [n for n in root.iter() if n.get("data-kind") == "reminder"]
        assert len(reminders) == len(opened.dungeon.sheet.reminders)
        for group, text in zip(reminders, opened.dungeon.sheet.reminders):
            printed = " ".join(t.text for t in group.iter(f"{SVG_NS}text"))
            assert printed == text


def test_start_markers_say_start_and_labels_keep_their_text(bundled):
    for opened, _, root, _, _ in bundled:
        starts = _by_id(root, "start")
        for start in opened.dungeon.elements_of("start"):
            group = starts[start.id]
            assert [t.text for t in group.iter(f"{SVG_NS}text")] == ["Start"]
            assert any(n.get("data-kind") == "start-arrow" for n in group.iter())
        labels = _by_id(root, "label")
        for label in opened.dungeon.elements_of("label"):
            (text,) = labels[label.id].iter(f"{SVG_NS}text")
            assert text.text == label.text and text.get("text-anchor") == "middle"
            assert (float(text.get("x")), float(text.get("y"))) == pytest.approx(label.at, abs=1e-3)


def test_footer_lies_inside_the_printable_area_below_the_dungeon(bundled):
    for opened, _, root, _, _ in bundled:
        x0, y0, x1, y1 = opened.dungeon.sheet.paper.printable
        (frame,) = [n for n in root.iter() if n.get("data-kind") == "footer-frame"]
        fx, fy, fw, fh = (float(frame.get(a)) for a in ("x", "y", "width", "height"))
        assert x0 - 1e-6 <= fx and fx + fw <= x1 + 1e-6 and fy + fh <= y1 + 1e-6
        lowest = max(y for area in opened.dungeon.areas for _, y in area.polygon)
        assert fy > lowest


# -- Qt-safe, printable SVG ---------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["colour", "gray"])
def test_svg_uses_only_what_qt_draws(bundled, variant):
    for _, colour, root, gray, groot in bundled:
        text, tree = (colour, root) if variant == "colour" else (gray, groot)
        assert "clip-path" not in text and "clipPath" not in text and "<mask" not in text
        assert "marker" not in text
        for node in tree.iter():
            assert "opacity" not in node.attrib, node.tag  # only fill-opacity / stroke-opacity
            assert "opacity" not in (node.get("style") or "")


def test_line_widths_and_text_sizes_are_printable(bundled):
    for _, _, root, _, groot in bundled:
        for tree in (root, groot):
            # every line drawn is printable (a shape with no stroke carries a zero width for Qt's
            # PDF output: exporters.canvas, tests/test_pdf_fill_outline.py)
            stroked = [n for n in tree.iter() if n.get("stroke-width") and n.get("stroke", "none") != "none"]
            widths = [float(n.get("stroke-width")) for n in stroked]
            assert widths and min(widths) >= 0.25
            sizes = [float(n.get("font-size")) for n in tree.iter(f"{SVG_NS}text")]
            assert sizes and min(sizes) >= 2.0
            for node in tree.iter(f"{SVG_NS}text"):
                assert node.get("font-family") == "DejaVu Sans"


def test_grayscale_uses_only_greys(bundled):
    colour_attrs = ("fill", "stroke", "stop-color", "color")
    for _, _, _, gray, groot in bundled:
        for node in groot.iter():
            for attr in colour_attrs:
                value = node.get(attr)
                if value is None or value == "none":
                    continue
                match = re.fullmatch(r"#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})", value)
                assert match, f"{attr}={value!r} is not a #rrggbb colour"
                assert match.group(1) == match.group(2) == match.group(3), f"{attr}={value} is not grey"
        assert "rgb(" not in gray


def test_colour_sheet_prints_keys_in_their_ruleset_colours(bundled):
    rgb = {c["id"]: c["rgb"].lower() for c in bundled_rulesets()["line-classic"].data["keys"]["colours"]}
    for opened, _, root, _, _ in bundled:
        keys = _by_id(root, "key")
        for key in opened.dungeon.elements_of("key"):
            fills = {(n.get("fill") or "").lower() for n in keys[key.id].iter()}
            assert rgb[key.colour] in fills


# -- geometry shared with the referee ------------------------------------------------------------


def test_spells_follow_spell_trace(bundled):
    seen = set()
    for opened, _, root, _, _ in bundled:
        spells = _by_id(root, "spell")
        for spell in opened.dungeon.elements_of("spell"):
            paths = [n for n in spells[spell.id].iter() if n.get("data-kind") == "spell-trace"]
            expected = shapes.spell_trace(spell.variant, spell.at, spell.size_mm, spell.rotation_deg or 0)
            assert len(paths) == len(expected)
            for path, stroke in zip(paths, expected):
                points, closed = _path_points(path.get("d"))
                assert closed == (stroke[0] == stroke[-1])
                _assert_points_equal(points, stroke)
                assert path.get("stroke-dasharray")  # a dashed guide to trace
            seen.add(spell.variant)
    assert seen == set(shapes.SPELL_VARIANTS)


def test_treasures_and_monster_heads_follow_the_shapes(bundled):
    treasures_seen = set()
    heads = 0
    for opened, _, root, _, gray_root in bundled:
        palette_yellow = "#d4a017"
        groups = _by_id(root, "treasure")
        for treasure in opened.dungeon.elements_of("treasure"):
            (path,) = [n for n in groups[treasure.id].iter() if n.get("data-kind") == "treasure-outline"]
            points, closed = _path_points(path.get("d"))
            assert closed
            _assert_points_equal(
                points,
                shapes.treasure_outline(treasure.variant, treasure.at, treasure.size_mm, treasure.rotation_deg or 0),
            )
            assert path.get("stroke") == palette_yellow
            gray_path = [
                n for n in _by_id(gray_root, "treasure")[treasure.id].iter() if n.get("data-kind") == "treasure-outline"
            ][0]
            assert gray_path.get("stroke") not in ("#1b1b1b", "#ffffff")  # dark grey, distinct from the ink
            treasures_seen.add(treasure.variant)
        monsters = _by_id(root, "monster")
        for monster in opened.dungeon.elements_of("monster"):
            (path,) = [n for n in monsters[monster.id].iter() if n.get("data-kind") == "monster-head"]
            points, closed = _path_points(path.get("d"))
            assert closed
            _assert_points_equal(
                points[:-1], shapes.monster_head(monster.at, monster.size_mm, monster.rotation_deg or 0)
            )
            heads += 1
    assert treasures_seen == set(shapes.TREASURE_VARIANTS) and heads >= 5


def test_walls_leave_openings_between_areas_and_an_entrance_at_each_start(bundled):
    for opened, _, root, _, _ in bundled:
        walls = [LineString(_path_points(n.get("d"))[0]) for n in root.iter() if n.get("data-kind") == "wall"]
        openings = [LineString(_path_points(n.get("d"))[0]) for n in root.iter() if n.get("data-kind") == "opening"]
        assert walls and openings
        for start in opened.dungeon.elements_of("start"):
            assert min(w.distance(Point(start.at)) for w in walls) >= 2.0  # the entrance is open
        for door in opened.dungeon.elements_of("door"):
            middle = Point((door.segment[0][0] + door.segment[1][0]) / 2, (door.segment[0][1] + door.segment[1][1]) / 2)
            assert min(w.distance(middle) for w in walls) > 1.0  # the door replaces the wall
        for opening in openings:  # every opening lies on two areas' outlines
            touching = [a for a in opened.dungeon.areas if Polygon(a.polygon).exterior.distance(opening.centroid) < 0.6]
            assert len(touching) >= 2


# -- unusual input ------------------------------------------------------------------------------


def test_unusual_dungeon_renders_every_lock_and_unknown_kinds():
    data = line_dungeon()
    data["elements"] += [
        {"id": "d1", "kind": "door", "segment": [[120, 40], [120, 60]], "locks": ["red", "skeleton", "purple"]},
        {"id": "d2", "kind": "door", "segment": [[80, 42], [80, 58]], "locks": ["green", "blue", "yellow", "red"]},
        {"id": "st2", "kind": "start", "at": [20, 60], "size_mm": 6, "rotation_deg": 0},
        {"id": "pe", "kind": "portal_entry", "at": [35, 35], "size_mm": 8, "rotation_deg": 0, "channel": "red"},
        {"id": "px", "kind": "portal_exit", "at": [35, 65], "size_mm": 8, "rotation_deg": 0, "channel": "red"},
        {"id": "f1", "kind": "fountain", "at": [65, 65], "size_mm": 8, "rotation_deg": 0},
        {"id": "s1", "kind": "spell", "at": [165, 30], "size_mm": 8, "rotation_deg": 0, "variant": "weird"},
        {"id": "l2", "kind": "label", "at": [150, 100], "rotation_deg": 30, "text": "Tilted", "text_height_mm": 2.5},
    ]
    data["sheet"]["end_triggers"] += [{"kind": "timer", "seconds": 95}]
    dungeon = dungeon_from_dict(data)
    sheet = render_sheet(dungeon, bundled_rulesets()["line-classic"], grayscale=True)
    root = sheet_tree(sheet.svg)
    doors = _by_id(root, "door")
    for door_id, locks in (("d1", ["red", "skeleton", "purple"]), ("d2", ["green", "blue", "yellow", "red"])):
        assert [n.get("data-lock") for n in doors[door_id].iter() if n.get("data-kind") == "lock"] == locks
    assert {"fountain", "portal_entry", "portal_exit", "spell", "label"} <= _kinds(root)
    assert "1:35 (95 s)" in " ".join(_texts(root))
    (label,) = _by_id(root, "label")["l2"].iter(f"{SVG_NS}text")
    assert "rotate(30 150 100)" == label.get("transform")
    assert len([n for n in root.iter() if n.get("data-kind") == "start"]) == 2


def test_qt_renders_a_bundled_sheet(bundled):
    from exporters.qt import svg_to_png

    opened, colour, _, _, _ = bundled[-1]
    png = svg_to_png(colour, opened.dungeon.sheet.paper.width_mm, opened.dungeon.sheet.paper.height_mm, dpi=30)
    assert png.startswith(b"\x89PNG")
