"""The line family: map objects turned into areas, walls, doors, labels and disc elements
through :class:`LineDungeonBuilder` (polygons cleaned and repaired, ellipses made polygons,
member properties read), and a map written by inkcrawl placed back at its exact millimetres."""

from __future__ import annotations

import math
from typing import Any

from inkcrawl.importers import printable_texts
from inkcrawl.importers.build import LineDungeonBuilder
from inkcrawl.importers.tiled.mapping import (
    _DEFAULT_MEMBERS,
    _ID_PATTERN,
    _MEMBER_PROPS,
    AREA_KINDS,
    _id_value,
    _locks,
    _prop,
)
from inkcrawl.importers.tiled.objects import MARKER, MapObject, _Reader
from inkcrawl.importers.tiled.properties import _number, _Skip
from inkcrawl.importers.tiled.sheet import _exact_sheet, _map_props_note
from inkcrawl.model import SKELETON_LOCK
from inkcrawl.rulesets import bundled_rulesets

#: Most locks a door holds (the dungeon schema's limit).
MAX_LOCKS = 4
#: Default printed size of one map tile (the builder's default, shrunk to fit A4).
DEFAULT_CELL_MM = 5.0


def _clean_polygon(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for point in points:
        if not out or math.dist(out[-1], point) > 1e-9:
            out.append(point)
    while len(out) > 1 and math.dist(out[0], out[-1]) <= 1e-9:
        out.pop()
    return out


def _ellipse_polygon(obj: MapObject, sides: int = 16) -> list[tuple[float, float]]:
    rx, ry = obj.width / 2, obj.height / 2
    return [
        obj.at(rx + rx * math.cos(2 * math.pi * i / sides), ry + ry * math.sin(2 * math.pi * i / sides))
        for i in range(sides)
    ]


def _repair_polygon(points, source: str, reader: _Reader) -> list[tuple[float, float]] | None:
    from shapely.geometry import Polygon
    from shapely.validation import make_valid

    polygon = Polygon(points)
    if polygon.is_valid and polygon.area > 0:
        return points
    fixed = make_valid(polygon)
    parts = [g for g in getattr(fixed, "geoms", [fixed]) if g.geom_type == "Polygon" and g.area > 0]
    if not parts:
        reader.note(source, "the polygon has no area; skipped")
        return None
    largest = max(parts, key=lambda g: g.area)
    reader.note(source, f"the polygon crosses itself; repaired to its largest part ({len(parts)} part(s))")
    return _clean_polygon([tuple(p) for p in largest.exterior.coords])


def _fmod_rotation(degrees: float) -> float:
    return round(math.fmod(degrees, 360.0), 6)


# ------------------------------------------------------------------------------------------
# line family


def _build_line(reader: _Reader) -> dict:
    props = reader.map_props
    used_map_props = {MARKER, "family"}
    title = props.get("title") if isinstance(props.get("title"), str) and props.get("title") else None
    if title:
        used_map_props.add("title")
    builder = LineDungeonBuilder(
        dungeon_id=str(props.get("id") or reader.path.stem) if reader.exact else reader.path.stem,
        title=title or reader.path.stem,
        ruleset=reader.options.ruleset or "line-classic",
    )
    if reader.exact:
        mm = 1.0 / float(props["px_per_mm"])

        def unit(point):
            return point[0] * mm, point[1] * mm
    else:

        def unit(point):
            return point[0] / reader.tile_w, point[1] / reader.tile_h

    artifact_numbers = iter(range(1, 1000))
    for obj, kind, defaults, source in reader.mapped_objects():
        used: set[str] = set()
        wanted = _id_value(_prop(obj.properties, used, "id"))
        fallback_id = f"{kind}{obj.id}"
        try:
            if kind in AREA_KINDS:
                if obj.shape in ("rect", "tile"):
                    points = obj.corners()
                elif obj.shape == "polygon":
                    points = obj.points
                elif obj.shape == "ellipse":
                    points = _ellipse_polygon(obj)
                    reader.note(source, "an ellipse; imported as a 16-sided polygon")
                else:
                    raise _Skip(f"a {kind} must be a rectangle or a polygon, not a {obj.shape}")
                points = _clean_polygon([unit(p) for p in points])
                if len(points) < 3:
                    raise _Skip(f"the {kind} has fewer than 3 distinct points")
                points = _repair_polygon(points, source, reader)
                if points is None:
                    continue
                builder.add_area(kind, points, obj.name[:200] or None, wanted or fallback_id)
            elif kind == "wall":
                if obj.shape == "polyline":
                    points = obj.points
                elif obj.shape in ("polygon", "rect", "tile"):
                    points = obj.corners()
                    points = points + points[:1]
                else:
                    raise _Skip(f"a wall must be a polyline, polygon or rectangle, not a {obj.shape}")
                points = [unit(p) for p in points]
                if len(_clean_polygon(points)) < 2:
                    raise _Skip("the wall has fewer than 2 distinct points")
                builder.add_wall(points, wanted or fallback_id)
            elif kind == "door":
                _add_door(builder, reader, obj, unit, used, defaults, wanted or fallback_id)
            elif kind == "label":
                text = obj.text if obj.shape == "text" else None
                text = text or _prop(obj.properties, used, "text") or obj.name
                if isinstance(text, str):
                    text = reader.clean_text(text, 500, obj, "text").strip()
                if not isinstance(text, str) or not text:
                    raise _Skip("a label needs text (a text object, or a 'text' property)")
                at = obj.at(obj.width / 2, obj.height) if obj.shape == "text" else obj.centre()
                height = _prop(obj.properties, used, "text_height_mm") or defaults.get("text_height_mm") or 3.0
                height = min(max(_number(height, "text_height_mm"), 0.1), 100)
                builder.add_element(
                    "label",
                    unit(at),
                    wanted or fallback_id,
                    text=text[:500],
                    text_height_mm=round(height, 3),
                    rotation_deg=_fmod_rotation(obj.rotation),
                    **({"name": obj.name[:200]} if obj.name and obj.shape == "text" else {}),
                )
            else:
                _add_disc(builder, reader, obj, kind, unit, used, defaults, wanted or fallback_id, artifact_numbers)
        except _Skip as exc:
            reader.note(source, f"{exc}; skipped")
            continue
        ignored = sorted(set(obj.properties) - used)
        if ignored:
            reader.note(
                source,
                "properties "
                + ", ".join(repr(n[:40]) for n in ignored[:20])
                + f" have no meaning for a {kind}; ignored",
            )
    if reader.exact:
        data = builder.build(cell_mm=0)
        _place_exact(builder, data)
        _exact_sheet(reader, data, used_map_props)
    else:
        data = builder.build(cell_mm=reader.options.cell_mm, default_cell_mm=DEFAULT_CELL_MM)
    reader.notes.extend(builder.notes)
    _map_props_note(reader, used_map_props)
    return printable_texts(data, reader.note)


def _add_door(builder, reader, obj, unit, used, defaults, wanted) -> None:
    if obj.shape in ("polyline", "polygon") and len(obj.points) >= 2:
        segment = (obj.points[0], obj.points[-1] if obj.shape == "polyline" else obj.points[1])
        if len(obj.points) > 2:
            reader.note(
                obj.describe(),
                f"a door {obj.shape} of {len(obj.points)} points: "
                f"its {'first and last' if obj.shape == 'polyline' else 'first two'} "
                f"points are the door",
            )
    elif obj.shape in ("rect", "tile") and (obj.width > 0 or obj.height > 0):
        top = -obj.height if obj.shape == "tile" else 0.0
        if obj.width >= obj.height:  # the middle line along the longer side
            segment = (obj.at(0, top + obj.height / 2), obj.at(obj.width, top + obj.height / 2))
        else:
            segment = (obj.at(obj.width / 2, top), obj.at(obj.width / 2, top + obj.height))
    elif obj.shape in ("polyline", "polygon"):
        raise _Skip(f"a door {obj.shape} needs 2 points, this one has {len(obj.points)}")
    else:
        raise _Skip(f"a door must be a line (polyline) or a rectangle, not a {obj.shape}")
    if math.dist(segment[0], segment[1]) <= 1e-9:
        raise _Skip("the door has no length")
    value = _prop(obj.properties, used, "locks")
    if value is None:
        value = _prop(obj.properties, used, "colour")
    if value is None:
        value = defaults.get("locks")
    locks = _door_locks(reader, obj, _locks(value))
    builder.add_door((unit(segment[0]), unit(segment[1])), locks, wanted, obj.name[:200] or None)


def _door_locks(reader: _Reader, obj: MapObject, locks: list[str]) -> list[str]:
    """The locks a door keeps: each a key colour of the ruleset (any name when the ruleset is not
    a bundled one: ``validate`` checks it) or ``skeleton``, a colour once, at most 4. Every lock
    left out is named in a note; a door left with none is skipped."""
    if not locks:
        raise _Skip(
            "a door without locks is an open doorway (where two areas meet); give it a 'locks' property "
            "(key colours or 'skeleton') to make it a door"
        )
    ours = reader.map_props.get("ruleset") if reader.exact else None  # our export names its ruleset
    ruleset_id = reader.options.ruleset or (ours if isinstance(ours, str) and ours else "line-classic")
    ruleset = bundled_rulesets().get(ruleset_id)
    colours = list(ruleset.key_colours) if ruleset is not None else None
    kept: list[str] = []
    unknown: list[str] = []
    twice: list[str] = []
    for lock in locks:
        if lock != SKELETON_LOCK and (not _ID_PATTERN.match(lock) or colours is not None and lock not in colours):
            unknown.append(lock)
        elif lock != SKELETON_LOCK and lock in kept:
            twice.append(lock)
        else:
            kept.append(lock)
    known = f"{', '.join(colours)} or {SKELETON_LOCK}" if colours is not None else "names"
    if unknown:
        named = ", ".join(repr(lock[:40]) for lock in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        several = len(unknown) > 1
        what = (
            f"lock{'s' if several else ''} {named} {'are not key colours' if several else 'is not a key colour'} "
            f"of ruleset {ruleset_id} ({known})"
        )
        if not kept:
            raise _Skip(f"its {what}")
        reader.note(obj.describe(), f"{what}; left out")
    if twice:
        reader.note(obj.describe(), f"{', '.join(map(repr, twice))}: a colour locks a door once; repeat left out")
    if len(kept) > MAX_LOCKS:
        extra = ", ".join(map(repr, kept[MAX_LOCKS:]))
        reader.note(obj.describe(), f"{len(kept)} locks; a door holds at most {MAX_LOCKS}: {extra} left out")
        kept = kept[:MAX_LOCKS]
    return kept


def _add_disc(builder, reader, obj, kind, unit, used, defaults, wanted, artifact_numbers) -> None:
    members: dict[str, Any] = {}
    for member in _MEMBER_PROPS.get(kind, ()):
        value = _prop(obj.properties, used, member)
        if value is None:
            value = defaults.get(member)
        if member in ("vp", "number"):
            if value is not None:
                number = _number(value, member)
                if not number.is_integer():
                    raise _Skip(f"{member} {value!r} is not a whole number")
                value = int(number)
                if member == "vp" and not -99 <= value <= 99 or member == "number" and not 1 <= value <= 999:
                    raise _Skip(f"{member} {value} is out of range")
            elif member == "number":
                value = next(artifact_numbers)
                reader.note(obj.describe(), f"an artifact stone without a 'number' property; numbered {value}")
        else:
            text = _id_value(value, lower=member in ("colour", "variant"))
            if value is not None and text is None:
                raise _Skip(f"{member} {str(value)[:40]!r} is not a name (letters, digits, '_', '.', '-')")
            value = text
        if value is None and kind in _DEFAULT_MEMBERS and _DEFAULT_MEMBERS[kind][0] == member:
            value = _DEFAULT_MEMBERS[kind][1]
            reader.note(obj.describe(), f"a {kind} without a {member!r} property; {member} {value} assumed")
        if value is None:
            raise _Skip(f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} needs a {member!r} property")
        members[member] = value
    size = _prop(obj.properties, used, "size_mm")
    if size is None:
        size = defaults.get("size_mm")
    if size is not None:
        size = _number(size, "size_mm")
        if not 0.1 <= size <= 500:
            raise _Skip(f"size_mm {size:g} is out of range (0.1 to 500)")
    elif reader.exact and obj.shape in ("ellipse", "rect", "tile") and min(obj.width, obj.height) > 0:
        size = min(obj.width, obj.height) / float(reader.map_props["px_per_mm"])
    if obj.name:
        members["name"] = obj.name[:200]
    builder.add_element(
        kind,
        unit(obj.centre()),
        wanted,
        round(size, 3) if size else None,
        rotation_deg=_fmod_rotation(obj.rotation),
        **members,
    )


def _place_exact(builder: LineDungeonBuilder, data: dict) -> None:
    """Coordinates already in sheet mm: replace the builder's centred placement by identity."""

    def place(point):
        return [round(point[0], 3), round(point[1], 3)]

    for area, source in zip(data["areas"], builder.areas):
        area["polygon"] = [place(p) for p in source["polygon"]]
    for wall, source in zip(data["walls"], builder.walls):
        wall["points"] = [place(p) for p in source["points"]]
    for element, source in zip(data["elements"], builder.elements):
        if "at" in element:
            element["at"] = place(source["at"])
        if "segment" in element:
            element["segment"] = [place(p) for p in source["segment"]]
