"""The interaction shapes of inkcrawl.shapes: inside the disc, closed where needed, rotation, variants."""

from __future__ import annotations

import math

import pytest
from shapely.geometry import LineString, Polygon

from inkcrawl import shapes
from inkcrawl.model import Element

PLACEMENTS = [((50.0, 80.0), 10.0, 0.0), ((12.5, 200.0), 6.0, 37.0), ((100.0, 100.0), 16.0, -90.0)]


def _all_points(value):
    if value and isinstance(value[0], list):
        return [p for stroke in value for p in stroke]
    return value


def _max_distance(points, at):
    return max(math.hypot(x - at[0], y - at[1]) for x, y in points)


def _rotate90(point, at):
    """Where a point lands after a 90 degree turn about ``at`` (clockwise on the sheet, y down)."""
    dx, dy = point[0] - at[0], point[1] - at[1]
    return (at[0] - dy, at[1] + dx)


SHAPES = (
    [("spell", v) for v in shapes.SPELL_VARIANTS]
    + [("treasure", v) for v in shapes.TREASURE_VARIANTS]
    + [("head", None)]
)


def _shape(kind, variant, at, size, rotation):
    if kind == "spell":
        return shapes.spell_trace(variant, at, size, rotation)
    if kind == "treasure":
        return shapes.treasure_outline(variant, at, size, rotation)
    return shapes.monster_head(at, size, rotation)


@pytest.mark.parametrize("kind,variant", SHAPES)
@pytest.mark.parametrize("at,size,rotation", PLACEMENTS)
def test_shapes_fit_inside_the_disc(kind, variant, at, size, rotation):
    points = _all_points(_shape(kind, variant, at, size, rotation))
    assert len(points) >= 4
    assert _max_distance(points, at) <= size / 2 * 0.95
    # and they use the disc: not a speck in the middle
    assert _max_distance(points, at) >= size / 2 * 0.6


def test_spell_strokes_closed_where_they_must_be():
    at, size = (40.0, 40.0), 10.0
    (bolt,) = shapes.spell_trace("bolt", at, size)
    assert bolt[0] != bolt[-1]  # a zigzag is an open stroke
    assert len(bolt) >= 5  # several zigs
    for variant in ("ward", "star"):
        strokes = shapes.spell_trace(variant, at, size)
        assert len(strokes) == 1
        assert strokes[0][0] == strokes[0][-1]
        assert LineString(strokes[0]).is_ring or variant == "star"  # the pentagram crosses itself on purpose
    ward = shapes.spell_trace("ward", at, size)[0]
    radii = [math.hypot(x - at[0], y - at[1]) for x, y in ward]
    assert max(radii) - min(radii) < 1e-9  # a true ring


def test_star_is_a_five_pointed_pentagram():
    (star,) = shapes.spell_trace("star", (0.0, 0.0), 10.0)
    assert len(star) == 6  # five tips, closed
    tips = {(round(x, 6), round(y, 6)) for x, y in star}
    assert len(tips) == 5
    top = min(star, key=lambda p: p[1])
    assert abs(top[0]) < 1e-9  # one tip straight up


@pytest.mark.parametrize("variant", shapes.TREASURE_VARIANTS)
def test_treasure_outlines_are_closed_simple_polygons(variant):
    outline = shapes.treasure_outline(variant, (30.0, 30.0), 10.0, 15)
    assert outline[0] == outline[-1]
    polygon = Polygon(outline)
    assert polygon.is_valid and polygon.area > 0.25 * math.pi * 25  # covers a good part of the disc


def test_monster_head_is_a_simple_polygon_in_the_upper_part():
    at, size = (60.0, 60.0), 8.0
    head = shapes.monster_head(at, size)
    assert head[0] != head[-1]  # regions list each vertex once
    polygon = Polygon(head)
    assert polygon.is_valid
    assert polygon.centroid.y < at[1] - size * 0.1  # above the centre
    assert 0.08 < polygon.area / (math.pi * (size / 2) ** 2) < 0.35  # a head, not the whole monster


@pytest.mark.parametrize("kind,variant", SHAPES)
def test_a_quarter_turn_maps_points_as_expected(kind, variant):
    at, size = (70.0, 30.0), 12.0
    straight = _all_points(_shape(kind, variant, at, size, 0))
    turned = _all_points(_shape(kind, variant, at, size, 90))
    assert len(straight) == len(turned)
    for p, q in zip(straight, turned):
        expected = _rotate90(p, at)
        assert q == pytest.approx(expected, abs=1e-9)


def test_rotation_turns_clockwise_on_the_sheet():
    # the ward's first point is straight above the centre; after 90 degrees it is to the right
    (ward,) = shapes.spell_trace("ward", (0.0, 0.0), 10.0, 90)
    assert ward[0] == pytest.approx((3.5, 0.0), abs=1e-9)
    assert shapes.place([(1.0, 0.0)], (5.0, 5.0), 4.0, 90)[0] == pytest.approx((5.0, 7.0))


def test_size_and_position_scale_and_translate():
    small = shapes.treasure_outline("crown", (0.0, 0.0), 10.0)
    big = shapes.treasure_outline("crown", (100.0, 50.0), 20.0)
    for (x1, y1), (x2, y2) in zip(small, big):
        assert (x2, y2) == pytest.approx((100 + 2 * x1, 50 + 2 * y1))


def test_variants_differ():
    at, size = (0.0, 0.0), 10.0
    spells = [LineString(_all_points(shapes.spell_trace(v, at, size))) for v in shapes.SPELL_VARIANTS]
    treasures = [LineString(shapes.treasure_outline(v, at, size)) for v in shapes.TREASURE_VARIANTS]
    for group in (spells, treasures):
        for i in range(len(group)):
            for j in range(i + 1, len(group)):
                assert group[i].hausdorff_distance(group[j]) > size * 0.1


@pytest.mark.parametrize(
    "function,variant",
    [
        (shapes.spell_trace, "fireball"),
        (shapes.spell_trace, "chest"),
        (shapes.treasure_outline, "bolt"),
        (shapes.treasure_outline, "ring"),
    ],
)
def test_unknown_variant_names_it(function, variant):
    with pytest.raises(ValueError, match=variant):
        function(variant, (0.0, 0.0), 10.0, 0)


def test_non_positive_size_is_refused():
    with pytest.raises(ValueError, match="size_mm"):
        shapes.spell_trace("bolt", (0.0, 0.0), 0)


def test_element_footprint_is_the_disc():
    element = Element("m1", "monster", at=(20.0, 30.0), size_mm=8.0, rotation_deg=0)
    footprint = shapes.element_footprint(element)
    assert len(footprint) == shapes.FOOTPRINT_SEGMENTS and footprint[0] != footprint[-1]
    polygon = Polygon(footprint)
    assert polygon.is_valid
    assert polygon.area == pytest.approx(math.pi * 16, rel=0.01)
    assert polygon.centroid.coords[0] == pytest.approx((20.0, 30.0))
    assert all(math.hypot(x - 20, y - 30) == pytest.approx(4.0) for x, y in footprint)
    # every interaction shape of that element lies inside its footprint
    assert polygon.buffer(1e-6).covers(Polygon(shapes.monster_head(element.at, element.size_mm)))


@pytest.mark.parametrize(
    "element",
    [
        Element("d1", "door", segment=((0, 0), (0, 10)), locks=["red"]),
        Element("l1", "label", at=(5, 5), text="Hi", text_height_mm=3),
    ],
)
def test_elements_without_a_disc_have_no_footprint(element):
    with pytest.raises(ValueError, match=element.id):
        shapes.element_footprint(element)
