"""Small builders of VALID dungeons and rulesets for the rule-check tests.

Every builder returns fresh JSON-like data (dicts and lists), so a test may mutate it freely.
The valid fixtures must produce no problem at all (see the ``test_valid_*`` tests); each rule
test then changes one thing and expects exactly the codes that change causes.

Grid fixtures
-------------
``grid_ruleset_data()`` is a pack-local test ruleset ``grid-test`` with small counts (3x3 board,
1 loot, 1 dragon, 1-2 weapons and 1-2 monsters lettered A-B, 2 entryways, 2 rounds of 2 cards),
so the fixture stays readable. ``grid_dungeon()`` is a valid 3x3 dungeon for it::

        A       B       C
    1 > loot    dragon  weapon A        (entryway e1 on the west side of A1)
    2   weapon B monster A monster B
    3   .       .       .      <        (entryway e2 on the east side of C3)

with a passage on every one of the 12 inner edges. ``classic_grid_dungeon()`` is a valid 7x7
dungeon for the bundled ``grid-classic`` ruleset (4 loot, 1 dragon, 6 weapon/monster pairs A-F,
6 entryways).

Line fixture
------------
``line_dungeon()`` (ruleset ``line-classic``, A4 paper, 10 mm margin)::

    y=20  +---------r1---------+                    +---------r2---------+
          |   st1 (on the top) |      c1 (corridor) |                    |
    y=40  |                    +--------------------+                    |
          |        m1          |        p1          |   t1               |
    y=60  |                    +--------------------+              ex1   |
          |                    |                    |   w1 (wall)        |
    y=80  +--------------------+                    +--------------------+
         x=20                 x=80                x=120                x=180

r1 and c1 share the edge x=80, y 40..60 (an open gap), c1 and r2 the edge x=120, y 40..60.
The Start st1 sits on the top wall of r1 (the outer boundary). The sheet lists the
``exit_reached`` end trigger (ex1 is the exit), no components and no orb tokens.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from inkcrawl.problems import Problem
from inkcrawl.rulesets import Ruleset, bundled_rulesets
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

FILE = "test.json"

# --------------------------------------------------------------------------------------------
# Grid family
# --------------------------------------------------------------------------------------------

GRID_SWITCHES = {
    "dragon_doubling": "one_loot",
    "trap_drawn_by": "every_player",
    "trap_timing": "any_time",
    "no_trap_room": "skip",
    "segment_skip": "forbidden",
    "segment_skip_vp": -2,
    "weapon_order": "game_end",
    "tie": "shared",
    "deck_exhausted": "reshuffle_discards",
    "solo_removes_traps": True,
}


def grid_ruleset_data() -> dict:
    """A small, schema-valid grid ruleset ``grid-test``.

    Deck: 2 rounds of 2 cards plus 1 Draw 2 need 2*2 + 2*1 = 6 segment/trap cards; it has
    exactly 6 (2 straight, 2 corner, 2 trap). 2 traps fit the 3 empty rooms of grid_dungeon().
    """
    return {
        "type": "ruleset",
        "format_version": 1,
        "id": "grid-test",
        "family": "grid",
        "name": "Grid test ruleset",
        "board": {"columns": 3, "rows": 3, "cell_mm": 20, "column_labels": "letters", "row_labels": "numbers"},
        "elements": {
            "loot": {"description": "Loot.", "interaction": "enter", "vp": 2, "count": {"min": 1, "max": 1}},
            "dragon": {"description": "Dragon.", "interaction": "enter", "vp": 0, "count": {"min": 1, "max": 1}},
            "weapon": {
                "description": "Weapon.",
                "interaction": "enter",
                "vp": 1,
                "count": {"min": 1, "max": 2},
                "letters": "AB",
            },
            "monster": {
                "description": "Monster.",
                "interaction": "enter",
                "vp": 4,
                "unmatched_vp": -2,
                "count": {"min": 1, "max": 2},
                "letters": "AB",
            },
        },
        "entryways": {"count": {"min": 2, "max": 2}, "unlinked_vp": 1},
        "rounds": 2,
        "reveal": 2,
        "players": {"min": 1, "max": 4},
        "tally_vp": -2,
        "trap_vp": -3,
        "segments": {
            "straight": ["north", "south"],
            "corner": ["north", "east"],
            "t_junction": ["west", "north", "east"],
            "cross": ["north", "east", "south", "west"],
            "dead_end": ["south"],
        },
        "deck": {"straight": 2, "corner": 2, "trap": 2, "draw_two": 1},
        "switches": dict(GRID_SWITCHES),
        "print": {"min_cell_mm": 12, "min_text_mm": 2.0},
    }


def grid_registry(data: dict | None = None) -> RulesetRegistry:
    """The bundled rulesets plus the test grid ruleset (or ``data``, a variant of it)."""
    return RulesetRegistry(extra=[Ruleset(data if data is not None else grid_ruleset_data())])


def inner_passages(columns: int, rows: int) -> list[dict]:
    """A passage on every inner edge of a columns x rows grid (east sides, then south sides)."""
    passages = [{"cell": [c, r], "side": "east"} for r in range(rows) for c in range(columns - 1)]
    passages += [{"cell": [c, r], "side": "south"} for r in range(rows - 1) for c in range(columns)]
    return passages


def grid_dungeon() -> dict:
    """A valid 3x3 dungeon for ``grid-test`` (see the module docstring for the map).

    Features (index: id kind cell): 0 l1 loot A1, 1 d1 dragon B1, 2 wA weapon A C1,
    3 wB weapon B A2, 4 mA monster A B2, 5 mB monster B C2. Passages 0-5 are east sides
    (row by row), 6-11 south sides.
    """
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "tiny-grid",
        "family": "grid",
        "ruleset": "grid-test",
        "sheet": {"title": "Tiny Grid", "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10}, "reminders": []},
        "grid": {
            "columns": 3,
            "rows": 3,
            "cell_mm": 20,
            "origin_mm": [20, 20],
            "column_labels": "letters",
            "row_labels": "numbers",
        },
        "passages": inner_passages(3, 3),
        "entryways": [
            {"id": "e1", "cell": [0, 0], "side": "west"},
            {"id": "e2", "cell": [2, 2], "side": "east"},
        ],
        "features": [
            {"id": "l1", "kind": "loot", "cell": [0, 0], "name": "Coin purse"},
            {"id": "d1", "kind": "dragon", "cell": [1, 0], "name": "Old Smoky"},
            {"id": "wA", "kind": "weapon", "cell": [2, 0], "letter": "A", "name": "Axe"},
            {"id": "wB", "kind": "weapon", "cell": [0, 1], "letter": "B", "name": "Bow"},
            {"id": "mA", "kind": "monster", "cell": [1, 1], "letter": "A", "name": "Ogre"},
            {"id": "mB", "kind": "monster", "cell": [2, 1], "letter": "B", "name": "Bat"},
        ],
    }


def classic_grid_dungeon() -> dict:
    """A valid 7x7 dungeon for the bundled ``grid-classic`` ruleset: every inner edge a
    passage, 6 entryways on outer edges, 4 loot, 1 dragon, weapons and monsters A-F."""
    features = [{"id": f"loot{i}", "kind": "loot", "cell": [i, 0]} for i in range(4)]
    features.append({"id": "dragon", "kind": "dragon", "cell": [3, 3]})
    for i, letter in enumerate("ABCDEF"):
        features.append({"id": f"w{letter}", "kind": "weapon", "cell": [i, 2], "letter": letter})
        features.append({"id": f"m{letter}", "kind": "monster", "cell": [i, 5], "letter": letter})
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "classic-grid",
        "family": "grid",
        "ruleset": "grid-classic",
        "sheet": {
            "title": "Classic Grid",
            "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
            "reminders": ["Find the dragon."],
        },
        "grid": {
            "columns": 7,
            "rows": 7,
            "cell_mm": 24,
            "origin_mm": [21, 40],
            "column_labels": "letters",
            "row_labels": "numbers",
        },
        "passages": inner_passages(7, 7),
        "entryways": [
            {"id": "n1", "cell": [0, 0], "side": "north"},
            {"id": "n2", "cell": [4, 0], "side": "north"},
            {"id": "e1", "cell": [6, 3], "side": "east"},
            {"id": "s1", "cell": [6, 6], "side": "south"},
            {"id": "s2", "cell": [2, 6], "side": "south"},
            {"id": "w1", "cell": [0, 4], "side": "west"},
        ],
        "features": features,
    }


# --------------------------------------------------------------------------------------------
# Line family
# --------------------------------------------------------------------------------------------


def line_dungeon() -> dict:
    """A valid line dungeon for ``line-classic`` (see the module docstring for the map).

    Areas: 0 r1 room, 1 c1 corridor, 2 r2 room. Walls: 0 w1 (inside r2).
    Elements: 0 st1 start, 1 m1 monster (r1), 2 p1 plant (c1), 3 t1 treasure (r2),
    4 ex1 exit (r2), 5 lb1 label.
    """
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "tiny-line",
        "family": "line",
        "ruleset": "line-classic",
        "sheet": {
            "title": "Tiny Line",
            "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
            "reminders": ["Reach the exit."],
            "components": [],
            "end_triggers": [{"kind": "exit_reached"}],
            "orb_tokens": {},
        },
        "areas": [
            {"id": "r1", "kind": "room", "name": "Entry Hall", "polygon": [[20, 20], [80, 20], [80, 80], [20, 80]]},
            {"id": "c1", "kind": "corridor", "polygon": [[80, 40], [120, 40], [120, 60], [80, 60]]},
            {"id": "r2", "kind": "room", "name": "Vault", "polygon": [[120, 20], [180, 20], [180, 80], [120, 80]]},
        ],
        "walls": [{"id": "w1", "points": [[130, 70], [140, 70]]}],
        "elements": [
            {"id": "st1", "kind": "start", "at": [50, 20], "size_mm": 6, "rotation_deg": 0},
            {"id": "m1", "kind": "monster", "name": "Ghoul", "at": [50, 50], "size_mm": 8, "rotation_deg": 0},
            {"id": "p1", "kind": "plant", "at": [100, 50], "size_mm": 6, "rotation_deg": 0},
            {
                "id": "t1",
                "kind": "treasure",
                "name": "Iron Chest",
                "at": [150, 50],
                "size_mm": 8,
                "rotation_deg": 0,
                "variant": "chest",
            },
            {"id": "ex1", "kind": "exit", "at": [165, 65], "size_mm": 8, "rotation_deg": 0},
            {"id": "lb1", "kind": "label", "at": [100, 150], "rotation_deg": 0, "text": "Cellars", "text_height_mm": 4},
        ],
    }


#: An area with no shared edge with the fixture's areas (below r1), for portals and isolation.
ISLAND_POLYGON = [[20, 120], [80, 120], [80, 180], [20, 180]]


def add(data: dict, collection: str, item: dict) -> int:
    """Append ``item`` to ``data[collection]`` and return its index (for JSON pointers)."""
    data[collection].append(item)
    return len(data[collection]) - 1


def disc(element_id: str, kind: str, at, size: float = 6, **members) -> dict:
    """A disc element (any kind but door and label)."""
    return {"id": element_id, "kind": kind, "at": list(at), "size_mm": size, "rotation_deg": 0, **members}


def add_door(data: dict, locks: list[str], segment=((120, 40), (120, 60)), door_id: str = "d1") -> int:
    """Add a door (by default closing the whole c1/r2 edge) and list keys as a component."""
    if "keys" not in data["sheet"]["components"]:
        data["sheet"]["components"].append("keys")
    return add(
        data, "elements", {"id": door_id, "kind": "door", "segment": [list(p) for p in segment], "locks": list(locks)}
    )


def add_key(data: dict, colour: str, at, key_id: str | None = None) -> int:
    """Add a key of ``colour`` at ``at`` (size 5)."""
    if "keys" not in data["sheet"]["components"]:
        data["sheet"]["components"].append("keys")
    return add(data, "elements", disc(key_id or f"k-{colour}-{at[0]}-{at[1]}", "key", at, 5, colour=colour))


def line_ruleset_variant(ruleset_id: str, **changes) -> dict:
    """A deep copy of the bundled line-classic data with a new id; ``changes`` replace top-level members."""
    data = copy.deepcopy(bundled_rulesets()["line-classic"].data)
    data["id"] = ruleset_id
    data.update(changes)
    return data


def pack_deck(pack_dir: Path, index: int = 0) -> dict[str, int]:
    """The cards of deck ``index`` of a bundled pack manifest."""
    manifest = json.loads((pack_dir / "pack.json").read_text(encoding="utf-8"))
    return manifest["decks"][index]["cards"]


# --------------------------------------------------------------------------------------------
# Running the checks
# --------------------------------------------------------------------------------------------


def check(data: dict, registry: RulesetRegistry | None = None, deck: dict[str, int] | None = None) -> list[Problem]:
    """Schema plus rule checks of one dungeon document, as ``inkcrawl validate`` runs them."""
    problems, _ = check_dungeon_data(data, FILE, registry if registry is not None else grid_registry(), deck)
    return problems


def codes(problems: list[Problem]) -> list[str]:
    return sorted(p.code for p in problems)


def describe_problems(problems: list[Problem]) -> str:
    return "\n".join(f"{p.pointer}: {p.severity.value} {p.code} {p.message}" for p in problems)


def find(problems: list[Problem], code: str, pointer: str) -> Problem:
    """The one problem with ``code`` at ``pointer``; fails with the full list otherwise."""
    found = [p for p in problems if p.code == code and p.pointer == pointer]
    assert len(found) == 1, f"expected one {code} at {pointer!r}, got:\n{describe_problems(problems)}"
    return found[0]


def assert_codes(problems: list[Problem], expected: list[str]) -> None:
    """The problems have exactly these codes (with repeats), so nothing else cascades."""
    assert codes(problems) == sorted(expected), describe_problems(problems)
