"""Benchmark: ``inkcrawl validate`` on a generated 1,000-dungeon content pack.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/validate_pack.py [--count 1000] [--seed 1] [--out DIR]
                                                   [--reuse] [--repeat 3] [--profile] [--no-cold]

What it does:

1. Generates realistic content with a seeded random generator (same ``--seed``, same files):
   a pack has one ruleset, so ``--count`` dungeons are split into two packs, half on
   ``grid-classic`` (7x7 grids, 4 loot, a dragon, weapons and monsters A-F, 6 entryways,
   about 60% of the inner edges as passages, every room reachable) and half on
   ``line-classic`` (10-16 rooms and corridors sharing edges exactly, 30-60 elements of every
   kind: monsters, boss with a ``boss_covered`` trigger, spells, treasures, artifact stones
   1..3n, plants, prisoners, orbs with their tokens, keys and locked doors on room/corridor
   boundaries, portals, Starts on the outer boundary; nothing overlaps and every locked door
   can be opened). Files go to a temporary folder, or to ``--out DIR`` (kept; ``--reuse``
   then skips generating again).
2. Validates both packs and prints the problems found by code; the generator aims at zero.
3. Times the validation: *cold* (a fresh ``python -m inkcrawl validate`` subprocess, so
   interpreter start-up, imports and schema compilation are included) and *warm*
   (``inkcrawl.validate.validate_paths`` in this process after one warm-up call on a single
   small dungeon file), as total seconds and dungeons per second. ``--profile`` adds a
   cProfile run of the warm call: time per validation stage and the top 15 functions by
   cumulative time.

The aim: the whole 1,000-dungeon pack, JSON Schema and every rule check, in under 2 seconds
(cold, end to end) on a 2-core machine.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import os
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

TARGET_SECONDS = 2.0
GRID_PACK_ID = "bench-grid-classic"
LINE_PACK_ID = "bench-line-classic"

# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------

_ADJECTIVES = [
    "Ashen",
    "Sunken",
    "Hollow",
    "Gilded",
    "Drowned",
    "Whispering",
    "Crimson",
    "Frozen",
    "Silent",
    "Broken",
    "Ember",
    "Moss",
    "Iron",
    "Shattered",
    "Forgotten",
    "Lantern",
    "Candle",
    "Bone",
    "Salt",
    "Thorn",
    "Copper",
    "Raven",
    "Gloom",
    "Velvet",
    "Rusted",
    "Weeping",
    "Twisted",
    "Smoldering",
]
_PLACES = [
    "Halls",
    "Vault",
    "Crypt",
    "Cellars",
    "Depths",
    "Catacombs",
    "Warrens",
    "Sanctum",
    "Mines",
    "Keep",
    "Undercroft",
    "Labyrinth",
    "Forge",
    "Archive",
    "Grotto",
    "Ossuary",
    "Barrow",
    "Cistern",
]
_ROOMS = [
    "Hall",
    "Gallery",
    "Chapel",
    "Kitchen",
    "Library",
    "Armoury",
    "Well",
    "Crypt",
    "Shrine",
    "Pantry",
    "Forge",
    "Stair",
    "Throne Room",
    "Garden",
    "Larder",
    "Cell Block",
    "Scriptorium",
    "Bath",
    "Vestry",
    "Kennel",
    "Observatory",
    "Counting House",
    "Wine Cellar",
    "Guardroom",
    "Furnace",
]
_MONSTERS = [
    "Ghoul",
    "Cave Troll",
    "Moth Swarm",
    "Bone Rat",
    "Slime",
    "Gargoyle",
    "Wight",
    "Kobold",
    "Cinder Crow",
    "Mire Toad",
    "Grave Hound",
    "Lamp Imp",
    "Rust Beetle",
    "Shade",
    "Goblin Archer",
]
_BOSSES = [
    "The Lantern King",
    "The Rot Queen",
    "The Ash Wyrm",
    "The Salt Lich",
    "The Hollow Abbot",
    "The Iron Matron",
    "The Weeping Colossus",
]
_PLANTS = ["Charcoal Thistle", "Wraithwick", "Bellmoss", "Gravebloom", "Ink Fern", "Lantern Lily"]
_PRISONERS = ["Caged Glassblower", "The Last Lamplighter", "Lost Cartographer", "Chained Bard", "Apprentice"]
_TREASURES = {
    "chest": ["Forge Chest", "Salt Chest", "Iron Coffer"],
    "crown": ["Inkwell Crown", "Moth Crown"],
    "goblet": ["Bone Goblet", "Silver Chalice"],
}
_SPELLS = {
    "bolt": ["Lamp-Bolt", "Cinder Bolt"],
    "ward": ["Ward of Ash", "Salt Ward"],
    "star": ["Falling Star", "Moth Star"],
}
_WEAPONS = ["Ember Blade", "Ash Spear", "Iron Maul", "Glass Bow", "Salt Axe", "Thorn Whip"]
_GRID_MONSTERS = ["Kiln Imp", "Slag Troll", "Soot Wraith", "Cinder Hound", "Ash Golem", "Flame Newt"]
_LABELS = ["Kneel, or burn.", "Mind the drop", "Here be moths", "Do not feed the troll", "Abandon hope"]


def _title(rng: random.Random, index: int) -> str:
    return f"The {rng.choice(_ADJECTIVES)} {rng.choice(_PLACES)} {index + 1}"


def _slug(title: str) -> str:
    return "-".join(title.lower().replace("the ", "", 1).split())


# --------------------------------------------------------------------------------------------
# Grid family
# --------------------------------------------------------------------------------------------


def make_grid_dungeon(rng: random.Random, index: int) -> dict:
    """A 7x7 grid-classic dungeon: spanning-tree maze (so every room is reachable) plus loops up
    to ~60% of the inner edges as passages, 6 entryways, 17 features in distinct rooms."""
    columns = rows = 7
    cells = [(c, r) for r in range(rows) for c in range(columns)]
    inner = [((c, r), "east") for r in range(rows) for c in range(columns - 1)]
    inner += [((c, r), "south") for r in range(rows - 1) for c in range(columns)]
    rng.shuffle(inner)
    parent = {cell: cell for cell in cells}

    def find(cell):
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    tree, rest = [], []
    for edge in inner:
        (c, r), side = edge
        other = (c + 1, r) if side == "east" else (c, r + 1)
        a, b = find((c, r)), find(other)
        if a != b:
            parent[a] = b
            tree.append(edge)
        else:
            rest.append(edge)
    target = round(len(inner) * rng.uniform(0.55, 0.65))
    chosen = tree + rest[: max(0, target - len(tree))]
    passages = []
    for (c, r), side in chosen:
        if rng.random() < 0.3:  # the same edge seen from the other room
            cell, side = ((c + 1, r), "west") if side == "east" else ((c, r + 1), "north")
        else:
            cell = (c, r)
        passages.append({"cell": list(cell), "side": side})
    passages.sort(key=lambda p: (p["cell"][1], p["cell"][0], p["side"]))

    outer = [((c, 0), "north") for c in range(columns)] + [((c, rows - 1), "south") for c in range(columns)]
    outer += [((0, r), "west") for r in range(rows)] + [((columns - 1, r), "east") for r in range(rows)]
    numbers: Counter = Counter()
    entryways = []
    for cell, side in sorted(rng.sample(outer, 6), key=lambda e: ("nesw".index(e[1][0]), e[0])):
        numbers[side] += 1
        entryways.append({"id": f"{side[0]}{numbers[side]}", "cell": list(cell), "side": side})

    rooms = rng.sample(cells, 17)
    features = [{"id": f"loot{i + 1}", "kind": "loot", "cell": list(rooms[i])} for i in range(4)]
    features.append({"id": "dragon", "kind": "dragon", "cell": list(rooms[4]), "name": "The Ember Wyrm"})
    for i, letter in enumerate("ABCDEF"):
        weapon = {"id": f"weapon_{letter.lower()}", "kind": "weapon", "cell": list(rooms[5 + i]), "letter": letter}
        if rng.random() < 0.5:
            weapon["name"] = _WEAPONS[i]
        features.append(weapon)
    for i, letter in enumerate("ABCDEF"):
        monster = {"id": f"monster_{letter.lower()}", "kind": "monster", "cell": list(rooms[11 + i]), "letter": letter}
        if rng.random() < 0.5:
            monster["name"] = _GRID_MONSTERS[i]
        features.append(monster)
    title = _title(rng, index)
    reminders = rng.sample(
        [
            "Gather your weapons before you face the monsters.",
            "The dragon doubles one loot bag.",
            "Entryways you never link score 1 VP each.",
            "Traps strike every player.",
        ],
        rng.randint(0, 2),
    )
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": f"grid-{index + 1:04d}",
        "family": "grid",
        "ruleset": "grid-classic",
        "sheet": {
            "title": title,
            "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
            "reminders": reminders,
        },
        "grid": {
            "columns": columns,
            "rows": rows,
            "cell_mm": 24,
            "origin_mm": [21, rng.randint(30, 100)],
            "column_labels": "letters",
            "row_labels": rng.choice(["numbers", "numbers", "letters"]),
        },
        "passages": passages,
        "entryways": entryways,
        "features": features,
    }


# --------------------------------------------------------------------------------------------
# Line family: plain-Python geometry (independent of inkcrawl's shapely code)
# --------------------------------------------------------------------------------------------


def _inside(x: float, y: float, polygon: list) -> bool:
    result = False
    j = len(polygon) - 1
    for i in range(len(polygon)):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            result = not result
        j = i
    return result


def _segment_distance(x: float, y: float, a, b) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length))
    return math.hypot(x - ax - t * dx, y - ay - t * dy)


def _boundary_distance(x: float, y: float, polygon: list) -> float:
    return min(_segment_distance(x, y, polygon[i - 1], polygon[i]) for i in range(len(polygon)))


def _polyline_distance(x: float, y: float, points: list) -> float:
    return min(_segment_distance(x, y, points[i - 1], points[i]) for i in range(1, len(points)))


class _Room:
    def __init__(self, cell, x0, y0, x1, y1):
        self.cell = cell
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1
        # side -> list of (lo, hi) intervals along the side that must stay straight
        self.keep: dict[str, list[tuple[int, int]]] = {"north": [], "south": [], "west": [], "east": []}
        self.polygon: list = []

    def shape(self, rng: random.Random) -> None:
        """Rectangle, or with one or two corners chamfered or notched where nothing attaches."""
        x0, y0, x1, y1 = self.x0, self.y0, self.x1, self.y1
        w, h = x1 - x0, y1 - y0
        cuts = {}
        if rng.random() < 0.45:
            for corner in rng.sample(["tl", "tr", "br", "bl"], rng.randint(1, 2)):
                if rng.random() < 0.5:
                    d = rng.randint(4, 9)
                    dx = dy = d
                    kind = "chamfer"
                else:
                    dx, dy = rng.randint(8, max(8, int(w * 0.3))), rng.randint(8, max(8, int(h * 0.3)))
                    kind = "notch"
                horizontal = "north" if corner[0] == "t" else "south"
                vertical = "west" if corner[1] == "l" else "east"
                hx = (x0, x0 + dx + 3) if corner[1] == "l" else (x1 - dx - 3, x1)
                vy = (y0, y0 + dy + 3) if corner[0] == "t" else (y1 - dy - 3, y1)
                clash = any(lo < hx[1] and hi > hx[0] for lo, hi in self.keep[horizontal]) or any(
                    lo < vy[1] and hi > vy[0] for lo, hi in self.keep[vertical]
                )
                if not clash and dx < w * 0.4 and dy < h * 0.4:
                    cuts[corner] = (kind, dx, dy)
        points = []
        for corner, (cx, cy) in (("tl", (x0, y0)), ("tr", (x1, y0)), ("br", (x1, y1)), ("bl", (x0, y1))):
            if corner not in cuts:
                points.append([cx, cy])
                continue
            kind, dx, dy = cuts[corner]
            sx = 1 if corner[1] == "l" else -1  # towards the inside along x
            sy = 1 if corner[0] == "t" else -1  # towards the inside along y
            arrive_vertical = corner in ("tl", "br")  # walking clockwise, tl and br are reached along a vertical side
            if kind == "chamfer":
                a, b = [cx, cy + sy * dy], [cx + sx * dx, cy]
                points += [a, b] if arrive_vertical else [b, a]
            else:
                a, m, b = [cx, cy + sy * dy], [cx + sx * dx, cy + sy * dy], [cx + sx * dx, cy]
                points += [a, m, b] if arrive_vertical else [b, m, a]
        self.polygon = points

    @property
    def area(self) -> float:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


_LAYOUTS = [  # (columns, rows, cells left out)
    (2, 3, ()),
    (3, 2, ()),
    (2, 4, ()),
    (4, 2, ()),
    (3, 3, ((2, 2),)),
    (3, 3, ((0, 0),)),
    (3, 3, ((0, 2), (2, 0))),
    (3, 4, ((0, 0), (2, 3), (2, 0), (0, 3))),
    (2, 3, ()),
    (3, 2, ()),
]
_SIZES = {
    "monster": (6, 8),
    "boss": (14, 16),
    "spell": (10, 10),
    "treasure": (10, 10),
    "artifact_stone": (5, 5),
    "plant": (7, 7),
    "prisoner": (7, 7),
    "orb": (8, 8),
    "key": (6, 6),
    "skeleton_key": (6, 6),
    "portal_entry": (8, 8),
    "portal_exit": (8, 8),
    "escape_portal": (10, 10),
    "exit": (10, 10),
    "start": (8, 8),
}
_MIN_GAP = 2.0  # line-classic print.min_gap_mm


class _Retry(Exception):
    pass


def make_line_dungeon(rng: random.Random, index: int) -> dict:
    for _ in range(50):
        try:
            return _line_dungeon(rng, index)
        except _Retry:
            continue
    raise RuntimeError("could not lay out a line dungeon")


def _line_dungeon(rng: random.Random, index: int) -> dict:
    columns, rows, missing = rng.choice(_LAYOUTS)
    X0, X1, Y0, Y1 = 16, 194, 32, 222  # the footer of the printed sheet needs the rest of the page
    cw, ch = (X1 - X0) / columns, (Y1 - Y0) / rows
    rooms: dict[tuple, _Room] = {}
    for r in range(rows):
        for c in range(columns):
            if (c, r) in missing:
                continue
            bx0, by0 = X0 + c * cw, Y0 + r * ch
            w = int(cw * rng.uniform(0.62, 0.82))
            h = int(ch * rng.uniform(0.62, 0.82))
            # keep 4 mm to the cell edge and cover the cell centre +-14 mm (corridors attach there)
            cx, cy = bx0 + cw / 2, by0 + ch / 2
            lo_x, hi_x = max(math.ceil(bx0 + 4), math.ceil(cx + 14 - w)), min(int(bx0 + cw - 4 - w), int(cx - 14))
            lo_y, hi_y = max(math.ceil(by0 + 4), math.ceil(cy + 14 - h)), min(int(by0 + ch - 4 - h), int(cy - 14))
            if lo_x > hi_x or lo_y > hi_y:
                raise _Retry
            x0, y0 = rng.randint(lo_x, hi_x), rng.randint(lo_y, hi_y)
            rooms[(c, r)] = _Room((c, r), x0, y0, x0 + w, y0 + h)

    # Room graph: a random spanning tree plus a few loops; each link is a corridor.
    links = [((c, r), (c + 1, r)) for (c, r) in rooms if (c + 1, r) in rooms]
    links += [((c, r), (c, r + 1)) for (c, r) in rooms if (c, r + 1) in rooms]
    rng.shuffle(links)
    parent = {cell: cell for cell in rooms}

    def find(cell):
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    tree, rest = [], []
    for a, b in links:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            tree.append((a, b))
        else:
            rest.append((a, b))
    budget = 16 - len(rooms) - len(tree)
    extra = [link for link in rest if rng.random() < 0.35][: max(0, budget)]

    room_order = sorted(rooms, key=lambda cell: (cell[1], cell[0]))
    room_ids = {cell: f"r{i + 1}" for i, cell in enumerate(room_order)}
    corridors = []  # (id, polygon, room a, room b, door segment at a, door segment at b)
    for number, (a, b) in enumerate(sorted(tree + extra, key=lambda l: (l[0][1], l[0][0], l[1])), start=1):
        ra, rb = rooms[a], rooms[b]
        width = rng.randint(10, 14)
        if a[1] == b[1]:  # side by side: a horizontal corridor
            lo, hi = max(ra.y0, rb.y0) + 4, min(ra.y1, rb.y1) - 4
            y = rng.randint(lo, hi - width)
            polygon = [[ra.x1, y], [rb.x0, y], [rb.x0, y + width], [ra.x1, y + width]]
            ra.keep["east"].append((y, y + width))
            rb.keep["west"].append((y, y + width))
            ends = ([[ra.x1, y], [ra.x1, y + width]], [[rb.x0, y], [rb.x0, y + width]])
        else:  # one above the other: a vertical corridor
            lo, hi = max(ra.x0, rb.x0) + 4, min(ra.x1, rb.x1) - 4
            x = rng.randint(lo, hi - width)
            polygon = [[x, ra.y1], [x + width, ra.y1], [x + width, rb.y0], [x, rb.y0]]
            ra.keep["south"].append((x, x + width))
            rb.keep["north"].append((x, x + width))
            ends = ([[x, ra.y1], [x + width, ra.y1]], [[x, rb.y0], [x + width, rb.y0]])
        corridors.append({"id": f"c{number}", "polygon": polygon, "a": a, "b": b, "ends": ends})

    # Starts on outer sides of border rooms.
    outer_sides = []
    for (c, r), room in rooms.items():
        if c == 0:
            outer_sides.append(((c, r), "west"))
        if c == columns - 1:
            outer_sides.append(((c, r), "east"))
        if r == 0:
            outer_sides.append(((c, r), "north"))
        if r == rows - 1:
            outer_sides.append(((c, r), "south"))
    starts = []
    for cell, side in rng.sample(outer_sides, min(len(outer_sides), rng.choice([1, 1, 2, 2, 2, 3]))):
        room = rooms[cell]
        if side in ("west", "east"):
            t = rng.randint(room.y0 + 14, room.y1 - 14)
            at = (room.x0 if side == "west" else room.x1, t)
        else:
            t = rng.randint(room.x0 + 14, room.x1 - 14)
            at = (t, room.y0 if side == "north" else room.y1)
        room.keep[side].append((t - 7, t + 7))
        starts.append((cell, at))
    for cell in room_order:
        rooms[cell].shape(rng)

    # Walls standing inside some rooms (straight or L-shaped).
    walls = []
    for cell in rng.sample(room_order, min(len(room_order), rng.choice([0, 0, 1, 1, 2]))):
        room = rooms[cell]
        w, h = room.x1 - room.x0, room.y1 - room.y0
        if h >= w:
            x = room.x0 + int(w * rng.uniform(0.4, 0.6))
            points = [[x, room.y0 + int(h * 0.3)], [x, room.y1 - int(h * 0.3)]]
            if rng.random() < 0.3:
                points.append([x + int(w * 0.15), points[-1][1]])
        else:
            y = room.y0 + int(h * rng.uniform(0.4, 0.6))
            points = [[room.x0 + int(w * 0.3), y], [room.x1 - int(w * 0.3), y]]
            if rng.random() < 0.3:
                points.append([points[-1][0], y + int(h * 0.15)])
        samples = [
            (a[0] + (b[0] - a[0]) * t / 4, a[1] + (b[1] - a[1]) * t / 4)
            for a, b in zip(points, points[1:])
            for t in range(5)
        ]
        if all(_inside(x, y, room.polygon) and _boundary_distance(x, y, room.polygon) >= 8 for x, y in samples):
            walls.append({"id": f"w{len(walls) + 1}", "points": points, "room": cell})

    # Areas as a graph (rooms and corridors) for doors, keys and the boss.
    areas = [
        {"id": room_ids[cell], "kind": "room", "polygon": rooms[cell].polygon, "cell": cell} for cell in room_order
    ]
    names = rng.sample(_ROOMS, len(areas))
    for area, name in zip(areas, names):
        if rng.random() < 0.85:
            area["name"] = f"{rng.choice(_ADJECTIVES)} {name}"
    start_rooms = {room_ids[cell] for cell, _ in starts}
    root = room_ids[starts[0][0]]
    graph: dict[str, list[tuple[str, str, int]]] = {a["id"]: [] for a in areas}
    for corridor in corridors:
        graph[corridor["id"]] = []
        for end, cell in enumerate((corridor["a"], corridor["b"])):
            graph[corridor["id"]].append((room_ids[cell], corridor["id"], end))
            graph[room_ids[cell]].append((corridor["id"], corridor["id"], end))
    depth = {root: 0}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for other, _, _ in graph[node]:
            if other not in depth:
                depth[other] = depth[node] + 1
                queue.append(other)

    # Doors: at the far end of some tree corridors, away from the Start rooms.
    tree_ids = {c["id"] for c in corridors if (c["a"], c["b"]) in tree}
    door_count = rng.choice([1, 2, 2, 3])
    candidates = []
    for corridor in corridors:
        if corridor["id"] not in tree_ids:
            continue
        far = max((0, 1), key=lambda e: depth[room_ids[(corridor["a"], corridor["b"])[e]]])
        if room_ids[(corridor["a"], corridor["b"])[far]] in start_rooms:
            continue
        candidates.append((corridor, far))
    doors_at = rng.sample(candidates, min(door_count, len(candidates)))
    blocked = {(c["id"], far) for c, far in doors_at}
    free = {root}  # keys lie where the first Start reaches without any door: every door opens from there
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for other, corridor_id, end in graph[node]:
            if (corridor_id, end) in blocked or other in free:
                continue
            free.add(other)
            queue.append(other)
    colours = ["red", "green", "blue", "yellow"]
    rng.shuffle(colours)
    doors, needed = [], []
    for corridor, far in doors_at:
        roll = rng.random()
        if roll < 0.6:
            locks = [colours[len(needed) % 4]]
        elif roll < 0.8:
            locks = ["skeleton"]
        else:
            locks = [colours[len(needed) % 4], colours[(len(needed) + 1) % 4]]
        needed += [lock for lock in locks if lock != "skeleton" and lock not in needed]
        doors.append({"segment": corridor["ends"][far], "locks": locks})
    key_colours = list(dict.fromkeys(needed))[:4]
    if doors and not key_colours:
        key_colours = [colours[0]]
    if key_colours and len(key_colours) < 4 and rng.random() < 0.3:
        key_colours.append(next(c for c in colours if c not in key_colours))

    # Elements -----------------------------------------------------------------------------
    area_polygons = {a["id"]: a["polygon"] for a in areas}
    area_polygons.update({c["id"]: c["polygon"] for c in corridors})
    room_cells = {room_ids[cell]: cell for cell in rooms}
    walls_by_area: dict[str, list] = {}
    for wall in walls:
        walls_by_area.setdefault(room_ids[wall["room"]], []).append(wall["points"])
    placed: list[tuple[float, float, float]] = []  # x, y, radius
    for _, (x, y) in starts:
        placed.append((x, y, _SIZES["start"][0] / 2))

    def place(kind: str, where: list[str], tries: int = 120):
        size = rng.randint(*_SIZES[kind])
        r = size / 2
        for _ in range(tries):
            area_id = rng.choice(where)
            polygon = area_polygons[area_id]
            xs = [p[0] for p in polygon]
            ys = [p[1] for p in polygon]
            lo_x, hi_x = math.ceil(min(xs) + r + 1), math.floor(max(xs) - r - 1)
            lo_y, hi_y = math.ceil(min(ys) + r + 1), math.floor(max(ys) - r - 1)
            if lo_x > hi_x or lo_y > hi_y:
                continue
            x, y = rng.randint(lo_x, hi_x), rng.randint(lo_y, hi_y)
            if not _inside(x, y, polygon) or _boundary_distance(x, y, polygon) < r + 1:
                continue
            if any(_polyline_distance(x, y, wall) < r + 1.5 for wall in walls_by_area.get(area_id, ())):
                continue
            if any(math.hypot(x - px, y - py) < r + pr + _MIN_GAP for px, py, pr in placed):
                continue
            placed.append((x, y, r))
            return [x, y], size
        return None

    room_list = list(room_cells)
    weights = {a: (rooms[room_cells[a]].area if a in room_cells else 0) for a in area_polygons}
    big_rooms = [a for a in room_list for _ in range(max(1, round(weights[a] / 1500)))]
    small_spots = big_rooms + [c["id"] for c in corridors if rng.random() < 0.5]
    far_rooms = sorted(room_list, key=lambda a: -depth[a])[: max(1, len(room_list) // 3)]
    free_rooms = [a for a in room_list if a in free]

    elements: list[dict] = []
    counters: Counter = Counter()

    def add(kind: str, prefix: str, where: list[str], required: bool = False, **extra) -> bool:
        spot = place(kind, where)
        if spot is None:
            if required:
                raise _Retry
            return False
        counters[prefix] += 1
        at, size = spot
        element = {"id": f"{prefix}{counters[prefix]}", "kind": kind}
        if "name" in extra:
            element["name"] = extra.pop("name")
        element.update({"at": at, "size_mm": size, "rotation_deg": rng.choice([0, 0, 0, 0, 10, -15, 45, 90])})
        element.update(extra)
        elements.append(element)
        return True

    for number, (cell, at) in enumerate(starts, start=1):
        elements.append({"id": f"st{number}", "kind": "start", "at": list(at), "size_mm": 8, "rotation_deg": 0})
    add("boss", "b", far_rooms, required=True, name=rng.choice(_BOSSES), vp=rng.randint(3, 8))
    channels = ["A"] + (["B"] if rng.random() < 0.25 else [])
    for channel in channels:
        add("portal_entry", "pe", big_rooms, required=True, channel=channel)
        for _ in range(rng.choice([1, 1, 2])):
            add("portal_exit", "px", big_rooms, required=True, channel=channel)
    for colour in key_colours:
        add("key", "k", free_rooms, required=True, colour=colour)
    if doors and rng.random() < 0.25:
        add("skeleton_key", "sk", big_rooms)
    has_escape = rng.random() < 0.4 and add("escape_portal", "e", far_rooms, name="Chimney Flue")
    has_exit = rng.random() < 0.2 and add("exit", "x", far_rooms, name="The Gate")
    for _ in range(rng.randint(2, 4)):
        variant = rng.choice(list(_SPELLS))
        add("spell", "s", big_rooms, name=rng.choice(_SPELLS[variant]), variant=variant)
    for _ in range(rng.randint(2, 4)):
        variant = rng.choice(list(_TREASURES))
        add("treasure", "t", big_rooms, name=rng.choice(_TREASURES[variant]), variant=variant)
    orb_colours: Counter = Counter()
    for _ in range(rng.randint(2, 6)):
        colour = rng.choice(["blue", "pink"])
        if add("orb", "o", big_rooms, colour=colour):
            orb_colours[colour] += 1
    groups = rng.randint(1, 3)
    stones = []
    for number in range(1, 3 * groups + 1):
        spot = place("artifact_stone", small_spots)
        if spot is None:
            break
        stones.append(spot)
    stones = stones[: len(stones) - len(stones) % 3]
    for number, (at, size) in enumerate(stones, start=1):
        elements.append(
            {
                "id": f"a{number}",
                "kind": "artifact_stone",
                "at": at,
                "size_mm": size,
                "rotation_deg": 0,
                "number": number,
            }
        )
    for _ in range(rng.randint(2, 5)):
        add("plant", "p", small_spots, name=rng.choice(_PLANTS))
    for _ in range(rng.randint(1, 3)):
        add("prisoner", "pr", big_rooms, name=rng.choice(_PRISONERS))
    target = rng.randint(30, 60)
    monsters = max(5, target - len(elements) - len(doors))
    for _ in range(min(monsters, 18)):
        if rng.random() < 0.6:
            add("monster", "m", small_spots, name=rng.choice(_MONSTERS))
        else:
            add("monster", "m", small_spots)
    door_names = ["Scorched Door", "Cobalt Door", "Twin-Sun Door", "King's Door", "Rusted Gate", None]
    for number, door in enumerate(doors, start=1):
        element = {"id": f"d{number}", "kind": "door"}
        name = rng.choice(door_names)
        if name:
            element["name"] = name
        element.update(door)
        elements.append(element)
    if rng.random() < 0.5:
        elements.append(
            {
                "id": "l1",
                "kind": "label",
                "at": [105, 24],
                "rotation_deg": 0,
                "text": rng.choice(_LABELS),
                "text_height_mm": 3,
            }
        )
    rng.shuffle(elements)  # designers add elements in no particular order

    triggers = [{"kind": "boss_covered"}]
    if rng.random() < 0.4:
        triggers.append({"kind": "timer", "seconds": rng.choice([120, 180, 240, 300])})
    if has_escape:
        triggers.append({"kind": "escape_portal"})
    if has_exit:
        triggers.append({"kind": "exit_reached"})
    if orb_colours and rng.random() < 0.2:
        triggers.append(
            {"kind": "orb_taken", "colour": rng.choice(sorted(orb_colours)), "when": rng.choice(["first", "last"])}
        )
    components = []
    if orb_colours:
        components.append("orbs")
    if doors or key_colours:
        components.append("keys")
    if any(t["kind"] == "timer" for t in triggers):
        components.append("timer")
    tokens = {"blue": [4, 3, 2, 1], "pink": [5, 3, 1, 0]}
    reminders = ["Covering the boss ends the scrawl."]
    if doors:
        reminders.append("Locked doors need one key per lock.")
    if len(channels) > 1 or rng.random() < 0.3:
        reminders.append("Portals are one-way.")

    area_list = []
    for area in areas:
        item = {"id": area["id"], "kind": "room"}
        if "name" in area:
            item["name"] = area["name"]
        item["polygon"] = area["polygon"]
        area_list.append(item)
    for corridor in corridors:
        item = {"id": corridor["id"], "kind": "corridor"}
        if rng.random() < 0.1:
            item["name"] = "Narrow Passage"
        item["polygon"] = corridor["polygon"]
        area_list.append(item)
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": f"line-{index + 1:04d}",
        "family": "line",
        "ruleset": "line-classic",
        "sheet": {
            "title": _title(rng, index),
            "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
            "reminders": reminders,
            "components": components,
            "end_triggers": triggers,
            "orb_tokens": {colour: tokens[colour] for colour in sorted(orb_colours)},
        },
        "areas": area_list,
        "walls": [{"id": w["id"], "points": w["points"]} for w in walls],
        "elements": elements,
    }


# --------------------------------------------------------------------------------------------
# Packs
# --------------------------------------------------------------------------------------------


def dumps(value) -> str:
    """``value`` as the text of a pack file, in the canonical layout inkcrawl writes."""
    try:  # the layout the editor writes
        from inkcrawl.jsonio import dumps_canonical
    except ImportError:  # pragma: no cover
        return json.dumps(value, indent=2) + "\n"
    return dumps_canonical(value)


def write_pack(folder: Path, pack_id: str, name: str, ruleset: str, dungeons: list[dict], decks=None) -> None:
    (folder / "dungeons").mkdir(parents=True)
    paths = []
    for dungeon in dungeons:
        relative = f"dungeons/{dungeon['id']}-{_slug(dungeon['sheet']['title'])}.json"
        (folder / relative).write_text(dumps(dungeon), encoding="utf-8")
        paths.append(relative)
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": pack_id,
        "name": name,
        "version": "1.0.0",
        "description": f"{len(dungeons)} generated {ruleset} dungeons for benchmarks/validate_pack.py.",
        "ruleset": ruleset,
        "dungeons": paths,
    }
    if decks:
        manifest["decks"] = decks
    (folder / "pack.json").write_text(dumps(manifest), encoding="utf-8")


def generate(out: Path, count: int, seed: int) -> tuple[Path, Path, dict]:
    grid_count = count // 2
    line_count = count - grid_count
    rng = random.Random(seed)
    grid = [make_grid_dungeon(rng, i) for i in range(grid_count)]
    line = [make_line_dungeon(rng, i) for i in range(line_count)]
    grid_dir, line_dir = out / GRID_PACK_ID, out / LINE_PACK_ID
    deck = {
        "id": "gentle",
        "name": "Gentle deck (2 traps)",
        "cards": {"straight": 8, "corner": 9, "t_junction": 7, "cross": 4, "dead_end": 4, "trap": 2, "draw_two": 2},
    }
    write_pack(grid_dir, GRID_PACK_ID, "Benchmark grid pack", "grid-classic", grid, [deck])
    write_pack(line_dir, LINE_PACK_ID, "Benchmark line pack", "line-classic", line)
    stats = {
        "grid": len(grid),
        "line": len(line),
        "passages": statistics.mean(len(d["passages"]) for d in grid) if grid else 0,
        "areas": statistics.mean(len(d["areas"]) for d in line) if line else 0,
        "areas_range": (min(len(d["areas"]) for d in line), max(len(d["areas"]) for d in line)) if line else (0, 0),
        "elements": statistics.mean(len(d["elements"]) for d in line) if line else 0,
        "elements_range": (min(len(d["elements"]) for d in line), max(len(d["elements"]) for d in line))
        if line
        else (0, 0),
        "kinds": Counter(e["kind"] for d in line for e in d["elements"]),
        "walls": sum(len(d["walls"]) for d in line),
    }
    return grid_dir, line_dir, stats


def prepare_out(out: Path) -> None:
    """Remove earlier benchmark packs from ``out`` (only folders holding our own pack.json)."""
    for pack_id in (GRID_PACK_ID, LINE_PACK_ID):
        folder = out / pack_id
        if not folder.exists():
            continue
        manifest = folder / "pack.json"
        try:
            ours = json.loads(manifest.read_text(encoding="utf-8")).get("id") == pack_id
        except (OSError, ValueError):
            ours = False
        if not ours:
            sys.exit(f"{folder} exists and is not a benchmark pack; choose another --out")
        shutil.rmtree(folder)


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def subprocess_env() -> dict:
    """The environment of a benchmark's child process: this one's, with the repository first on
    ``PYTHONPATH`` so the child imports the inkcrawl being measured."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env


def time_cold(paths: list[Path], repeat: int) -> tuple[list[float], list[float], int]:
    """Wall times of a fresh ``python -m inkcrawl validate`` and of bare start-up plus imports."""
    env = subprocess_env()
    command = [sys.executable, "-m", "inkcrawl", "validate", *map(str, paths)]
    imports = [sys.executable, "-c", "import inkcrawl.cli, inkcrawl.validate, inkcrawl.report"]
    runs, starts, code = [], [], 0
    for _ in range(repeat):
        begin = time.perf_counter()
        done = subprocess.run(imports, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        starts.append(time.perf_counter() - begin)
        if done.returncode:
            sys.exit(f"importing inkcrawl failed:\n{done.stderr.decode(errors='replace')}")
        begin = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        runs.append(time.perf_counter() - begin)
        code = done.returncode
        if code not in (0, 1):
            sys.exit(f"inkcrawl validate failed (exit {code}):\n{done.stderr.decode(errors='replace')}")
    return runs, starts, code


_STAGES = [
    ("pack paths (validate._pack_path)", "validate.py", "_pack_path"),
    ("read + parse JSON (jsonio.read_json_file)", "jsonio.py", "read_json_file"),
    ("JSON Schema (schema.schema_problems)", "schema.py", "schema_problems"),
    ("build model (model.dungeon_from_dict)", "model.py", "dungeon_from_dict"),
    ("rule checks (checks.check_dungeon)", "__init__.py", "check_dungeon"),
    ("  common checks (common_problems)", "common.py", "common_problems"),
    ("  grid checks (grid_problems)", "grid.py", "grid_problems"),
    ("  line checks (line_problems)", "line.py", "line_problems"),
    ("    polygon_defects", "geometry.py", "polygon_defects"),
    ("    build_geometry", "geometry.py", "build_geometry"),
    ("    _overlapping_areas", "line.py", "_overlapping_areas"),
    ("    _place_elements", "line.py", "_place_elements"),
    ("    _overlapping_elements", "line.py", "_overlapping_elements"),
    ("    LineGeometry.outline (Starts)", "geometry.py", "outline"),
    ("    door_areas", "geometry.py", "door_areas"),
    ("    printed_sheet (walls, openings)", "printed.py", "printed_sheet"),
    ("    _sheet_ink (L029-L032)", "line.py", "_sheet_ink"),
    ("    _reachability", "line.py", "_reachability"),
    ("      solvability.explore", "solvability.py", "explore"),
    ("    _printability", "line.py", "_printability"),
]


def _stage_table(stats: pstats.Stats) -> list[tuple[str, int, float]]:
    """Calls and cumulative time of the functions that make up each validation stage (those
    that exist in this version of inkcrawl)."""
    rows = []
    for label, filename, function in _STAGES:
        found = [
            value
            for (file, _, name), value in stats.stats.items()  # type: ignore[attr-defined]
            if name == function and file.endswith(filename) and "inkcrawl" in file
        ]
        if found:
            rows.append((label, sum(v[1] for v in found), sum(v[3] for v in found)))
    return rows


class _serial:
    """Check every dungeon in this process (inkcrawl checks big packs in worker processes,
    which cProfile here cannot see), by raising ``validate.PARALLEL_THRESHOLD`` for a while."""

    def __enter__(self):
        import inkcrawl.validate as module

        self.module = module
        self.saved = getattr(module, "PARALLEL_THRESHOLD", None)
        if self.saved is not None:
            module.PARALLEL_THRESHOLD = sys.maxsize
        return self.saved is not None

    def __exit__(self, *exc):
        if self.saved is not None:
            self.module.PARALLEL_THRESHOLD = self.saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--count", type=int, default=1000, help="dungeons in all, split over the two packs (default 1000)"
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed of the generator (default 1)")
    parser.add_argument("--out", type=Path, help="write the packs here and keep them (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="with --out: validate the packs already there")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs of each kind; the best is reported (default 3)"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the warm run: stages and top 15 functions")
    parser.add_argument("--no-cold", action="store_true", help="skip the subprocess (cold) timing")
    args = parser.parse_args(argv)
    if args.count < 2:
        parser.error("--count must be at least 2 (one dungeon per pack)")
    if args.reuse and not args.out:
        parser.error("--reuse needs --out")

    temporary = None
    if args.out:
        out = args.out.resolve()
        out.mkdir(parents=True, exist_ok=True)
    else:
        temporary = tempfile.TemporaryDirectory(prefix="inkcrawl-bench-")
        out = Path(temporary.name)
    try:
        grid_dir, line_dir = out / GRID_PACK_ID, out / LINE_PACK_ID
        if args.reuse and (grid_dir / "pack.json").is_file() and (line_dir / "pack.json").is_file():
            print(f"reusing the packs in {out}")
        else:
            prepare_out(out)
            begin = time.perf_counter()
            grid_dir, line_dir, info = generate(out, args.count, args.seed)
            print(
                f"generated {info['grid']} grid + {info['line']} line dungeons (seed {args.seed}) in "
                f"{time.perf_counter() - begin:.1f} s into {out}"
            )
            print(f"  grid: {info['passages']:.1f} passages of 84 inner edges on average")
            print(
                f"  line: {info['areas']:.1f} areas ({info['areas_range'][0]}-{info['areas_range'][1]}), "
                f"{info['elements']:.1f} elements ({info['elements_range'][0]}-{info['elements_range'][1]}), "
                f"{info['walls']} walls in all"
            )
            print("  element kinds: " + ", ".join(f"{k} {n}" for k, n in info["kinds"].most_common()))
        paths = [grid_dir, line_dir]
        size = sum(f.stat().st_size for p in paths for f in p.rglob("*.json"))
        print(f"  {size / 1e6:.1f} MB of JSON")

        from inkcrawl.problems import RULES_BY_CODE
        from inkcrawl.validate import validate_paths

        sample = min((line_dir / "dungeons").glob("*.json"))
        begin = time.perf_counter()
        validate_paths([sample])  # warm-up: imports done, schema compiled, rulesets loaded
        warm_up = time.perf_counter() - begin

        warm, report = [], None
        for _ in range(max(1, args.repeat)):
            begin = time.perf_counter()
            report = validate_paths(paths)
            warm.append(time.perf_counter() - begin)
        assert report is not None
        dungeons = report.dungeons

        print(
            f"\nproblems: {report.errors} errors, {report.warnings} warnings in {report.files} files "
            f"({dungeons} dungeons)"
        )
        by_code = Counter(p.code for p in report.problems)
        for code, number in sorted(by_code.items()):
            print(f"  {code} {RULES_BY_CODE[code].name:<30} {number}")
        for item in report.problems[:10]:
            print(f"  e.g. {Path(item.file).name}:{item.pointer}: {item.code} {item.message}")

        print(f"\ntiming (best of {max(1, args.repeat)}; median in brackets)")
        if not args.no_cold:
            cold, startup, code = time_cold(paths, max(1, args.repeat))
            best = min(cold)
            print(
                f"  cold  python -m inkcrawl validate: {best:6.3f} s  ({statistics.median(cold):.3f})  "
                f"{dungeons / best:7.0f} dungeons/s  exit {code}"
            )
            print(f"        of which start-up + imports: {min(startup):6.3f} s  ({statistics.median(startup):.3f})")
        best = min(warm)
        print(
            f"  warm  validate_paths in-process:   {best:6.3f} s  ({statistics.median(warm):.3f})  "
            f"{dungeons / best:7.0f} dungeons/s  ({1000 * best / dungeons:.2f} ms per dungeon)"
        )
        with _serial() as has_pool:
            if has_pool:
                serial = []
                for _ in range(max(1, args.repeat)):
                    begin = time.perf_counter()
                    validate_paths(paths)
                    serial.append(time.perf_counter() - begin)
                print(
                    f"        same, one process (no pool): {min(serial):6.3f} s  ({statistics.median(serial):.3f})  "
                    f"{dungeons / min(serial):7.0f} dungeons/s  ({1000 * min(serial) / dungeons:.2f} ms per dungeon)"
                )
        print(f"        warm-up call on one file:    {warm_up:6.3f} s")
        headline = min(cold) if not args.no_cold else best
        verdict = "within" if headline <= TARGET_SECONDS * dungeons / 1000 else "OVER"
        print(f"  aim: {TARGET_SECONDS:g} s per 1,000 dungeons ({'cold' if not args.no_cold else 'warm'}): {verdict}")

        if args.profile:
            profiler = cProfile.Profile()
            with _serial() as has_pool:
                begin = time.perf_counter()
                profiler.enable()
                validate_paths(paths)
                profiler.disable()
                total = time.perf_counter() - begin
            stats = pstats.Stats(profiler)
            how = "in one process, worker pool disabled" if has_pool else "in one process"
            print(f"\nprofile of one warm run ({how}): {total:.3f} s under cProfile")
            print(f"  {'stage':<48} {'calls':>7} {'cumulative s':>13}   share")
            for label, calls, seconds in _stage_table(stats):
                print(f"  {label:<48} {calls:7d} {seconds:13.3f}   {100 * seconds / total:5.1f}%")
            for order, title, count in (
                ("cumulative", "top 15 functions by cumulative time", 15),
                ("tottime", "top 10 functions by own time", 10),
            ):
                stream = io.StringIO()
                stats.stream = stream  # type: ignore[attr-defined]
                stats.sort_stats(order).print_stats(count)
                text = stream.getvalue()
                text = text[text.find("   ncalls") :].rstrip().replace(str(REPO) + os.sep, "")
                print(f"\n{title}:\n{text}")
        return 0 if report.errors == 0 else 1
    finally:
        if temporary is not None:
            temporary.cleanup()


if __name__ == "__main__":
    sys.exit(main())
