"""Playable game data: self-contained documents the rules engines play (docs/game-data.md).

:func:`dungeon_game_data` resolves one dungeon with its ruleset: definitions copied in, every
switch written, connectivity precomputed (grid: each room's open sides and entryways; line: the
area graph through wall gaps, doors with their locks, one-way portals, and every wall as a
polyline), each element with its interaction, geometry, VP and tolerance. The engines read
only this data, so any program can play a dungeon from it. Schema: ``schemas/game.schema.json``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import shapely

from inkcrawl import __version__, shapes
from inkcrawl.geometry import Connection
from inkcrawl.model import OPPOSITE_SIDE, SIDE_OFFSETS, Element, GridDungeon, LineDungeon
from inkcrawl.printed import DEFAULT_OPENING_MIN_WIDTH, PrintedSheet, sheet_of
from inkcrawl.rulesets import Ruleset

#: Format version of game documents.
GAME_FORMAT_VERSION = 2

_GRID_TERMS = (
    ("loot", "Loot rooms entered"),
    ("dragon", "Dragon room entered"),
    ("weapon", "Weapon rooms entered"),
    ("monster_matched", "Monsters with their weapon"),
    ("monster_unmatched", "Monsters without their weapon"),
    ("entryway_unlinked", "Entryways not linked to your paths"),
    ("tally", "Tally marks"),
    ("trap", "Traps that hit you"),
)


def _round(value):
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, (list, tuple)):
        return [_round(v) for v in value]
    return value


def _common(dungeon, ruleset: Ruleset) -> dict:
    return {
        "id": dungeon.id,
        "title": dungeon.sheet.title,
        "family": dungeon.family,
        "ruleset": {"id": ruleset.id, "name": ruleset.data["name"]},
        "players": dict(ruleset.data["players"]),
        "switches": dict(ruleset.switches),
    }


def grid_game_data(
    dungeon: GridDungeon, ruleset: Ruleset, deck: dict[str, int] | None = None, deck_name: str | None = None
) -> dict:
    """The game data of a grid dungeon (docs/game-data.md, "Grid family")."""
    grid = dungeon.grid
    open_sides: dict[tuple, set[str]] = defaultdict(set)
    for passage in dungeon.passages:
        dc, dr = SIDE_OFFSETS[passage.side]
        other = (passage.cell[0] + dc, passage.cell[1] + dr)
        if grid.contains(passage.cell) and grid.contains(other):
            open_sides[passage.cell].add(passage.side)
            open_sides[other].add(OPPOSITE_SIDE[passage.side])
    entryways_at: dict[tuple, list[str]] = defaultdict(list)
    for entryway in dungeon.entryways:
        if grid.is_outer_edge(entryway.cell, entryway.side):
            open_sides[entryway.cell].add(entryway.side)
            entryways_at[entryway.cell].append(entryway.id)
    features = {f.cell: f for f in dungeon.features}
    order = ("north", "east", "south", "west")
    rooms = []
    for row in range(grid.rows):
        for column in range(grid.columns):
            cell = (column, row)
            feature = features.get(cell)
            rooms.append(
                {
                    "cell": [column, row],
                    "label": grid.cell_label(cell),
                    "open": [side for side in order if side in open_sides[cell]],
                    "entryways": entryways_at[cell],
                    "feature": None
                    if feature is None
                    else {
                        "id": feature.id,
                        "kind": feature.kind,
                        **({"letter": feature.letter} if feature.letter else {}),
                    },
                }
            )
    elements = ruleset.elements
    switches = ruleset.switches
    vp = {
        "loot": elements.get("loot", {}).get("vp", 2),
        "dragon": elements.get("loot", {}).get("vp", 2),
        "weapon": elements.get("weapon", {}).get("vp", 1),
        "monster_matched": elements.get("monster", {}).get("vp", 4),
        "monster_unmatched": elements.get("monster", {}).get("unmatched_vp", -2),
        "entryway_unlinked": ruleset.data["entryways"]["unlinked_vp"],
        "tally": ruleset.data["tally_vp"],
        "trap": ruleset.data["trap_vp"],
    }
    scoring = [{"term": term, "label": label, "vp": vp[term]} for term, label in _GRID_TERMS]
    scoring[1]["mode"] = switches["dragon_doubling"]
    if switches["segment_skip"] == "voluntary_tally":
        scoring.append({"term": "segment_skip", "label": "Segments skipped", "vp": switches["segment_skip_vp"]})
    data = _common(dungeon, ruleset)
    data.update(
        {
            "board": grid.to_dict(),
            "rooms": rooms,
            "entryways": [
                {"id": e.id, "cell": list(e.cell), "side": e.side, "label": grid.cell_label(e.cell)}
                for e in dungeon.entryways
            ],
            "rounds": ruleset.data["rounds"],
            "reveal": ruleset.data["reveal"],
            "segments": {shape: list(sides) for shape, sides in ruleset.segment_shapes.items()},
            "deck": {
                "name": deck_name or ("pack deck" if deck is not None else "ruleset deck"),
                "cards": dict(deck if deck is not None else ruleset.deck),
            },
            "scoring": scoring,
        }
    )
    return data


def _walls(sheet: PrintedSheet) -> list[dict]:
    """Every wall line of the printed sheet (:mod:`inkcrawl.printed`): the outline walls of
    each area, the explicit walls, each with its printed width, then the closures and bridges
    (width 0, not printed) that close a gap narrower than the ruleset requires."""
    return [
        {
            "id": line.id,
            "kind": line.kind,
            "area": line.area,
            "width_mm": line.width_mm,
            "points": _round([list(p) for p in line.points]),
        }
        for line in sheet.lines
    ]


#: Game data simplifies glyph ink by this much (mm): far inside the 0.1 mm the ink keeps to the print.
INK_SIMPLIFY_MM = 0.01


def _ink_rings(geom) -> list:
    """The outer rings of a (multi)polygon's parts, simplified by :data:`INK_SIMPLIFY_MM` and
    rounded to 0.001 mm, each vertex once."""
    geom = shapely.simplify(geom, INK_SIMPLIFY_MM, preserve_topology=True)
    return [
        _round([list(p) for p in part.exterior.coords[:-1]])
        for part in shapely.get_parts(geom)
        if part.geom_type == "Polygon" and not part.is_empty
    ]


def _element_entry(element, area_id, ruleset: Ruleset, ink=None) -> dict:
    definition = ruleset.elements.get(element.kind, {})
    entry = {
        "id": element.id,
        "kind": element.kind,
        "name": element.name,
        "area": area_id,
        "interaction": definition.get("interaction", "none"),
        "vp": definition.get("vp"),
        "penalty": definition.get("penalty", False),
        "tolerance": {},
    }
    for key in ("min_coverage", "max_distance_pen_widths"):
        if key in definition:
            entry["tolerance"][key] = definition[key]
    spec = ruleset.kinds.get(element.kind) if ruleset.family == "line" else None
    footprint = spec.footprint if spec is not None else {"door": "segment", "label": "text"}.get(element.kind, "disc")
    glyph = spec.glyph if spec is not None else element.kind
    if spec is not None and "vp" in spec.members:
        entry["vp"] = element.vp  # printed on the sheet (the boss)
    if footprint == "segment":
        entry["segment"] = _round([list(p) for p in element.segment])
        entry["locks"] = list(element.locks or [])
        return entry
    entry["at"] = _round(list(element.at))
    entry["rotation_deg"] = element.rotation_deg or 0
    if footprint == "text":
        entry.update({"text": element.text, "text_height_mm": element.text_height_mm})
        return entry
    entry["size_mm"] = element.size_mm
    entry["footprint"] = _round([list(p) for p in shapes.element_footprint(element)])
    if ink is not None:
        entry["ink"] = _ink_rings(ink)
    rotation = element.rotation_deg or 0
    # the shapes a glyph asks players to trace or cover (inkcrawl.shapes), by the kind's glyph
    if glyph == "spell" and element.variant in shapes.SPELL_VARIANTS:
        entry["trace"] = _round(
            [
                [list(p) for p in stroke]
                for stroke in shapes.spell_trace(element.variant, element.at, element.size_mm, rotation)
            ]
        )
    elif glyph == "treasure" and element.variant in shapes.TREASURE_VARIANTS:
        entry["outline"] = _round(
            [list(p) for p in shapes.treasure_outline(element.variant, element.at, element.size_mm, rotation)]
        )
    elif glyph == "monster":
        entry["head"] = _round([list(p) for p in shapes.monster_head(element.at, element.size_mm, rotation)])
    for key in ("variant", "number", "colour", "channel"):
        value = getattr(element, key)
        if value is not None:
            entry[key] = value
    return entry


def line_game_data(dungeon: LineDungeon, ruleset: Ruleset) -> dict:
    """The game data of a line dungeon (docs/game-data.md, "Line family"). Areas with invalid
    polygons are left out (validation reports them)."""
    sheet = sheet_of(dungeon, ruleset)
    geometry = sheet.geometry
    placed = [e for e in dungeon.elements if e.at is not None]
    area_of: dict[str, str | None] = {}
    if placed and geometry.polygons:
        centres = np.array([e.at for e in placed], dtype=float)
        for element, found in zip(placed, geometry.areas_at(centres)):
            area_of[element.id] = geometry.areas[found[0]].id if len(found) == 1 else None
    for door, _, _ in sheet.doors:
        area_of[door.id] = None
    door_by_id = {d.id: d for d, _, _ in sheet.doors}
    opening_width = {frozenset((o.a, o.b)): o.width_mm for o in sheet.openings}
    graph = []
    for connection in sheet.connections:
        item: dict[str, Any] = {"a": connection.a, "b": connection.b, "kind": connection.kind}
        if connection.kind == "door" and connection.door_id is not None:
            door = door_by_id[connection.door_id]
            item.update(
                {
                    "door": door.id,
                    "locks": list(door.locks or []),
                    "segment": _round([list(p) for p in door.segment or ()]),
                }
            )
        else:
            item["width_mm"] = opening_width[frozenset((connection.a, connection.b))]
        graph.append(item)
    exits: defaultdict[str | None, list[Element]] = defaultdict(list)
    for portal_exit in dungeon.elements_of("portal_exit"):
        exits[portal_exit.channel].append(portal_exit)
    for entry in dungeon.elements_of("portal_entry"):
        for portal_exit in exits.get(entry.channel, []):
            a, b = area_of.get(entry.id), area_of.get(portal_exit.id)
            if a and b:
                graph.append(
                    {
                        "a": a,
                        "b": b,
                        "kind": "portal",
                        "channel": entry.channel,
                        "entry": entry.id,
                        "exit": portal_exit.id,
                    }
                )
    starts: list[dict[str, Any]] = []
    outline = geometry.outline if geometry.polygons else None
    start_kinds = {k for k, spec in ruleset.kinds.items() if spec.on_wall} or {"start"}
    for start in dungeon.elements_of(*start_kinds):
        if start.at is None:
            continue  # (the schema gives every Start its ``at``)
        nearest = None
        if outline is not None:
            point = shapely.points(start.at)
            nearest = min(
                range(len(geometry.polygons)), key=lambda i: float(shapely.distance(geometry.polygons[i], point))
            )
        starts.append(
            {
                "id": start.id,
                "at": _round(list(start.at)),
                "area": geometry.areas[nearest].id if nearest is not None else None,
            }
        )
        area_of[start.id] = starts[-1]["area"]
    keys = ruleset.data["keys"]
    switches = ruleset.switches
    elements_def = ruleset.elements
    scoring = [
        {"term": "element", "label": "Elements completed", "vp": "element"},
        {"term": "missed", "label": "Elements left in rooms", "vp": "minus element"},
        {
            "term": "artifact_group",
            "label": f"Artifact groups of {switches['artifact_group_size']} connected",
            "vp": elements_def.get("artifact_stone", {}).get("vp", 1),
        },
        {
            "term": "artifact_untouched_group",
            "label": "Artifact groups left untouched",
            "vp": switches["artifact_untouched_group_vp"],
        },
        {
            "term": "artifact_partial_group",
            "label": "Artifact groups partly connected",
            "vp": switches["artifact_partial_group_vp"],
        },
        {
            "term": "unused_portal_entry",
            "label": "Portal entries not used in entered rooms",
            "vp": switches["unused_portal_entry_vp"],
        },
        {"term": "wall_crossing", "label": "Wall crossings (out and back)", "vp": switches["wall_crossing_vp"]},
        {"term": "orb_token", "label": "Orb tokens", "vp": "token"},
        {"term": "boss", "label": "Boss", "vp": "boss"},
    ]
    data = _common(dungeon, ruleset)
    data["switches"].setdefault("wall_poke", "illegal_crossing")
    data["switches"].setdefault("opening_min_width", DEFAULT_OPENING_MIN_WIDTH)
    data.update(
        {
            "pen_width_mm": ruleset.data["pen_width_mm"],
            "paper": dungeon.sheet.paper.to_dict(),
            "areas": [
                {"id": a.id, "kind": a.kind, "name": a.name, "polygon": _round([list(p) for p in a.polygon])}
                for a in geometry.areas
            ],
            "required_gap_mm": sheet.required_mm,
            "walls": _walls(sheet),
            "connections": graph,
            "elements": [
                _element_entry(e, area_of.get(e.id), ruleset, sheet.element_ink(e))
                for e in dungeon.elements
                if e.kind not in start_kinds
            ],
            "starts": starts,
            "end_triggers": [t.to_dict() for t in dungeon.sheet.end_triggers or []],
            "orb_tokens": {k: list(v) for k, v in (dungeon.sheet.orb_tokens or {}).items()},
            "keys": {"colours": [dict(c) for c in keys["colours"]], "supply": dict(keys["supply"])},
            "characters": {k: dict(v) for k, v in ruleset.data["characters"].items()},
            "scoring": scoring,
        }
    )
    return data


def dungeon_game_data(opened) -> dict:
    """The game data of an opened dungeon (:class:`inkcrawl.loading.OpenedDungeon`)."""
    if isinstance(opened.dungeon, GridDungeon):
        return grid_game_data(opened.dungeon, opened.ruleset, opened.deck, getattr(opened, "deck_name", None))
    return line_game_data(opened.dungeon, opened.ruleset)


def game_document(opened_dungeons) -> dict:
    """The whole game document for some opened dungeons (a pack gives several), in order."""
    return {
        "type": "game",
        "format_version": GAME_FORMAT_VERSION,
        "generator": f"inkcrawl {__version__}",
        "dungeons": [dungeon_game_data(o) for o in opened_dungeons],
    }


def connections_from_data(data: dict) -> list[Connection]:
    """The area graph of a line dungeon's game data as :class:`inkcrawl.geometry.Connection`."""
    return [Connection(c["a"], c["b"], c["kind"], c.get("door")) for c in data["connections"]]


def game_entry_problems(entry: dict) -> list[str]:
    """What a schema cannot say about a (schema-valid) dungeon entry of game data: ids unique,
    and every area a Start, element or connection names exists. Empty when consistent."""
    problems: list[str] = []
    if entry.get("family") != "line":
        return problems
    areas = [a["id"] for a in entry["areas"]]
    if not areas and (entry["elements"] or entry["starts"] or entry["connections"]):
        problems.append("the data defines no areas, yet it has elements, Starts or connections")
        return problems
    duplicates = sorted({a for a in areas if areas.count(a) > 1})
    if duplicates:
        problems.append(f"area id(s) listed twice: {', '.join(duplicates)}")
    elements = [e["id"] for e in entry["elements"]] + [s["id"] for s in entry["starts"]]
    duplicates = sorted({e for e in elements if elements.count(e) > 1})
    if duplicates:
        problems.append(f"element id(s) listed twice: {', '.join(duplicates)}")
    known = set(areas)
    for kind, items in (("element", entry["elements"]), ("start", entry["starts"])):
        for item in items:
            if item.get("area") is not None and item["area"] not in known:
                problems.append(f"{kind} '{item['id']}' is in area '{item['area']}', which the data does not define")
    for index, connection in enumerate(entry["connections"]):
        for end in ("a", "b"):
            if connection[end] not in known:
                problems.append(f"connection {index} joins area '{connection[end]}', which the data does not define")
    return problems
