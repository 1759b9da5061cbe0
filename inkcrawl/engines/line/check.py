"""Checking a line dungeon entry before it is compiled (:class:`~.rules.LineRules`).

First the game schema (``#/$defs/dungeon`` of ``schemas/game.schema.json``): members, types,
switch values, tolerances and VP. Then what a schema cannot say: the dungeon has areas, ids are
unique, and every area a connection, element or Start names exists. Geometry (outlines that
are valid polygons, a Start) is checked where it is compiled. Every refusal is a
:class:`~.errors.GameDataError` whose message starts with the member.
"""

from __future__ import annotations

from inkcrawl.engines.entry_schema import entry_problems, member, refusal
from inkcrawl.engines.line.errors import GameDataError

#: Defaults of the line switches (docs/formats.md), used for a switch whose value is null.
DEFAULT_SWITCHES = {
    "penalties_in": "rooms",
    "reentry": "final_state",
    "artifact_group_size": 3,
    "artifact_untouched_group_vp": -1,
    "artifact_partial_group_vp": 0,
    "unused_portal_entry_vp": -1,
    "wall_crossing_count": "per_excursion",
    "wall_crossing_vp": -1,
    "boss_after_illegal_crossing": "ends_scores_zero",
    "end_room_exempt": True,
    "wall_poke": "illegal_crossing",
}


def _nulls_as_defaults(entry: dict) -> dict:
    """The entry as the schema judges it: a null switch the referee knows reads as its default."""
    switches = entry.get("switches")
    if not isinstance(switches, dict) or not any(v is None and k in DEFAULT_SWITCHES for k, v in switches.items()):
        return entry
    filled = {k: DEFAULT_SWITCHES[k] if v is None and k in DEFAULT_SWITCHES else v for k, v in switches.items()}
    return {**entry, "switches": filled}


def _fail(entry: dict, parts: tuple, message: str) -> None:
    raise GameDataError(f"{member(entry, parts)}: {message}")


def _check_ids(entry: dict) -> None:
    """Areas exist and have unique ids, element ids are unique, every area named exists."""
    areas = entry["areas"]
    if not areas:
        _fail(entry, ("areas",), "the dungeon has no areas (rooms or corridors)")
    ids: set[str] = set()
    for i, area in enumerate(areas):
        if area["id"] in ids:
            _fail(entry, ("areas", i, "id"), f"duplicate area id {area['id']!r}")
        ids.add(area["id"])
    element_ids: set[str] = set()
    for i, element in enumerate(entry["elements"]):
        if element["id"] in element_ids:
            _fail(entry, ("elements", i, "id"), f"duplicate element id {element['id']!r}")
        element_ids.add(element["id"])

    def known_area(parts: tuple, value, nullable: bool) -> None:
        if value is None and nullable:
            return
        if value not in ids:
            _fail(entry, parts, f"no area has the id {value!r} (areas: {', '.join(sorted(ids))})")

    for i, connection in enumerate(entry["connections"]):
        known_area(("connections", i, "a"), connection["a"], False)
        known_area(("connections", i, "b"), connection["b"], False)
    for i, element in enumerate(entry["elements"]):
        known_area(("elements", i, "area"), element["area"], True)
    for i, start in enumerate(entry["starts"]):
        known_area(("starts", i, "area"), start.get("area"), True)


def check_entry(entry: dict) -> None:
    """Refuse game data the referee would misread. Raises :class:`GameDataError` naming the
    member (``switches.reentry: ...``, ``elements[3] (m1).area: ...``)."""
    problems = entry_problems(_nulls_as_defaults(entry))
    if problems:
        raise GameDataError(refusal(problems))
    _check_ids(entry)
