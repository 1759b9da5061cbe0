"""Line dungeons from a seed and constraints (RULES.md 2; ``inkcrawl generate --family line``).

A layout first, then the content of :func:`inkcrawl.generate.populate.populate_line`:

* The paper's drawing region (``line.paper``, portrait, A4 by default, clear of the title above
  and the footer below) is cut into slots of about 57 x 48 mm (3 x 4 on A4 and Letter, 2 x 2 on
  A5, 5 x 7 on A3: :func:`inkcrawl.generate.constraints.sheet_for`). A random connected set of slots holds
  the rooms (``line.rooms``), grown from the first room; each room is a rectangle of random
  size inside its slot that covers the slot's middle, so the rooms of two neighbouring slots
  face each other across a gap of at least :data:`SLOT_MARGIN_MM` twice.
* Corridors ``line.corridor_width_mm`` wide join neighbouring rooms: a random spanning tree of
  the rooms, and with probability ``line.loops`` each other neighbouring pair. A corridor meets
  each room along a whole side of its end, so every opening is the corridor's full width, far
  above the ruleset's required gap; nothing is narrower than the printability minimums.
* ``line.locked_doors`` corridors get a door at the end away from the first room, its colour
  drawn from the ruleset's key colours (distinct while they last).
* A key chain ``line.locks.depth`` d deep: the rooms grow mostly as a snake, and d + 1 doors
  of distinct colours ``c0..cd`` go on tree corridors one behind another on the way to a far
  room. A room's zone is the number of chain doors on its way from the first room; loops join
  rooms of one zone only, and every other door in zone z takes a colour of ``c0..cz``.
  ``line.locks.multi_lock_doors`` doors get a second lock of a colour held where they stand
  (:func:`_door_locks`). ``line.locks.skeleton_key_doors`` doors off the chain, with one lock,
  take the lock ``"skeleton"`` instead (any key opens them; populate places a key before the
  first of them). A draw that cannot hold them is drawn again (:data:`MAX_DRAWS`).
* The rooms are moved to the middle of the region, whichever slots they took.
* Rooms get names (original word lists); the exporter prints them on free paper, and populate
  covers at most part of each room's paper so there is room for them.

The first room gets the Start (populate puts it on its outer wall). Every result is validated
with zero errors before it is returned (:class:`~inkcrawl.generate.grid.GeneratorBug`
otherwise). Determinism: dungeon ``i`` of seed ``S`` draws its layout from
``random.Random("inkcrawl-generate-line:S:i")`` and populates with a seed drawn from it.
Units: sheet millimetres.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace
from typing import Any

from inkcrawl.generate.constraints import MARGIN_MM, Infeasible, LayoutSheet, LineSpec, sheet_for
from inkcrawl.generate.grid import GeneratorBug, title_for
from inkcrawl.generate.populate import Populated, populate_line
from inkcrawl.model import SKELETON_LOCK

__all__ = ["GeneratedLine", "generate_line", "line_layout"]

#: Least paper (mm) between a room and its slot's edge.
SLOT_MARGIN_MM = 3.0
#: Layouts drawn for one dungeon before a spec populate finds impossible on each is given up.
MAX_LAYOUTS = 20
#: With a par range, populate's tries on one layout before the next layout is drawn (with fewer
#: rooms when par stayed above the range, more when below): a count, not a time, so the dungeon
#: found does not depend on the machine's speed.
PAR_TRIES_PER_LAYOUT = 8
#: A room's width and height as shares of its slot's.
ROOM_SHARE = (0.6, 0.85)
#: Draws of slots, tree and doors for one layout before a key chain or two-lock doors the
#: draws cannot hold is given up.
MAX_DRAWS = 200
#: With a key chain asked, the share of rooms grown next to the room taken last (long chains).
SNAKE_SHARE = 0.7

_PLACES = (
    "Hall", "Cellar", "Vault", "Chapel", "Kitchen", "Library", "Armoury", "Cistern", "Forge", "Gallery",
    "Larder", "Shrine", "Well", "Study", "Crypt", "Kennel", "Pantry", "Belfry", "Loom Room", "Scriptorium",
)  # fmt: skip
_QUALITIES = (
    "Ashen", "Brass", "Candle", "Chalk", "Copper", "Dusty", "Echoing", "Fungal", "Glass", "Hollow",
    "Inky", "Lamplit", "Mildewed", "Quiet", "Salt", "Smoky", "Sooty", "Tallow", "Velvet", "Wax",
)  # fmt: skip


@dataclass
class GeneratedLine:
    """One generated line dungeon: ``data`` (dungeon JSON), the ``populated`` result (par, key
    depth, tries), the number of ``rooms``, ``corridors`` and ``doors`` of its layout."""

    data: dict
    populated: Populated
    rooms: int
    corridors: int
    doors: int


def _span(rng: random.Random, low: float, high: float, middle: float, half: float, share: float) -> tuple[float, float]:
    """A random interval inside ``[low, high]`` (less the margin) of ``share`` of its length that
    covers ``middle +- half``."""
    length = (high - low) * share
    first = max(low + SLOT_MARGIN_MM, middle + half - length)
    last = min(high - SLOT_MARGIN_MM - length, middle - half)
    start = first if last <= first else rng.uniform(first, last)
    return round(start, 1), round(start + length, 1)


def _grow_slots(rng: random.Random, count: int, snake: bool, sheet: LayoutSheet) -> list[tuple[int, int]]:
    """A connected random set of ``count`` slots grown from a random first one; with ``snake``
    the next slot is mostly a neighbour of the last one taken (long chains of rooms)."""
    first = (rng.randrange(sheet.columns), rng.randrange(sheet.rows))
    chosen = [first]

    def free_next_to(slots: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return sorted(
            {
                (c + dc, r + dr)
                for c, r in slots
                for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= c + dc < sheet.columns and 0 <= r + dr < sheet.rows and (c + dc, r + dr) not in chosen
            }
        )

    while len(chosen) < count:
        near = free_next_to(chosen[-1:]) if snake and rng.random() < SNAKE_SHARE else []
        chosen.append(rng.choice(near or free_next_to(chosen)))
    return chosen


def _spanning_tree(rng: random.Random, chosen: list, pairs: list) -> list[tuple]:
    """A random spanning tree of the slots ``chosen`` over the neighbouring ``pairs``."""
    tree: list[tuple] = []
    joined = {chosen[0]}
    while len(joined) < len(chosen):
        options = [(a, b) for a, b in pairs if (a in joined) != (b in joined)]
        a, b = rng.choice(options)
        tree.append((a, b))
        joined |= {a, b}
    return tree


def _tree_paths(first: tuple, tree: list[tuple]) -> dict[tuple, list[tuple]]:
    """Slot -> the tree's edges (as in ``tree``) on the way from ``first`` to it."""
    paths: dict[tuple, list[tuple]] = {first: []}
    queue = [first]
    for slot in queue:
        for edge in tree:
            for here, there in ((edge[0], edge[1]), (edge[1], edge[0])):
                if here == slot and there not in paths:
                    paths[there] = [*paths[slot], edge]
                    queue.append(there)
    return paths


def _layout_limits(spec: LineSpec) -> None:
    """The counting checks of the layout members before any drawing (RULES.md 2, Keys):
    raises :class:`Infeasible` naming ``line.rooms``, ``line.corridors``, ``line.corridor_width_mm``,
    ``line.locks.depth``, ``line.locked_doors``, ``line.locks.multi_lock_doors`` or
    ``line.locks.skeleton_key_doors``."""
    sheet = sheet_for(spec)
    slots = sheet.slots
    if spec.corridors is not None:
        if spec.corridors[1] < spec.rooms[0] - 1:
            raise Infeasible(
                f"line.corridors asks for at most {spec.corridors[1]}; {spec.rooms[0]} rooms (line.rooms) need at "
                f"least {spec.rooms[0] - 1} corridors to be joined",
                "line.corridors",
            )
        # corridors join rooms in neighbouring slots: a full grid of slots has the most such pairs
        neighbours = sheet.columns * (sheet.rows - 1) + sheet.rows * (sheet.columns - 1)
        if spec.corridors[0] > neighbours:
            raise Infeasible(
                f"line.corridors asks for at least {spec.corridors[0]}; corridors join rooms in neighbouring "
                f"slots, and the {sheet.label} sheet's {sheet.columns} x {sheet.rows} slots (line.paper) have "
                f"{neighbours} neighbouring pairs",
                "line.corridors",
            )
    if spec.rooms[0] > slots:
        raise Infeasible(
            f"line.rooms asks for at least {spec.rooms[0]} rooms; the {sheet.label} sheet (line.paper) holds at most "
            f"{slots} with room for names ({sheet.columns} x {sheet.rows} slots)",
            "line.rooms",
        )
    sx0, sy0, sx1, sy1 = sheet.slot(0, 0)
    room_least = min(sx1 - sx0, sy1 - sy0) * ROOM_SHARE[0]
    if spec.corridor_mm + 4 > room_least:
        raise Infeasible(
            f"line.corridor_width_mm {spec.corridor_mm:g} is too wide: a corridor must meet a room "
            f"{room_least:.0f} mm across along a side of its own; use at most {room_least - 4:.0f} mm",
            "line.corridor_width_mm",
        )
    colours = _usable_colours(spec)
    most_rooms = min(spec.rooms[1], slots)
    if spec.depth:
        if spec.depth > len(colours) - 1:
            raise Infeasible(
                f"line.locks.depth asks for keys {spec.depth} deep: that needs {spec.depth + 1} doors of distinct "
                f"key colours one behind another, and ruleset '{spec.ruleset.id}' has {len(colours)} key colour(s) "
                f"for {spec.players} player(s), so no chain is deeper than {max(0, len(colours) - 1)}",
                "line.locks.depth",
            )
        if spec.depth + 1 > spec.locked_doors[1]:
            raise Infeasible(
                f"line.locks.depth asks for keys {spec.depth} deep: that needs {spec.depth + 1} locked doors one "
                f"behind another, and line.locked_doors allows at most {spec.locked_doors[1]}",
                "line.locked_doors",
            )
        if spec.depth + 2 > most_rooms:
            raise Infeasible(
                f"line.locks.depth asks for keys {spec.depth} deep: that needs {spec.depth + 1} doors one behind "
                f"another, so at least {spec.depth + 2} rooms, and line.rooms allows at most {most_rooms}",
                "line.rooms",
            )
    pairs = spec.portal_pairs[0]
    if pairs and (pairs > most_rooms or most_rooms < 2):
        raise Infeasible(
            f"line.portal_pairs asks for {pairs} portal pairs: each entry needs a room of its own and its exit "
            f"another area, and line.rooms allows at most {most_rooms} room(s)"
            + (" (one room has no corridor)" if most_rooms < 2 else ""),
            "line.portal_pairs",
        )
    multi = spec.multi_lock_doors[0]
    if multi:
        chain_first = 1 if spec.depth else 0  # the chain's first door has one lock: nothing is held before it
        if multi + chain_first > spec.locked_doors[1]:
            raise Infeasible(
                f"line.locks.multi_lock_doors asks for {multi} doors with two locks; line.locked_doors allows at "
                f"most {spec.locked_doors[1]} locked doors"
                + (", and the first door of the key chain (line.locks.depth) has one lock" if chain_first else ""),
                "line.locks.multi_lock_doors",
            )
        if len(colours) < 2:
            raise Infeasible(
                f"line.locks.multi_lock_doors: two locks need two key colours; ruleset '{spec.ruleset.id}' has "
                f"{len(colours)} for {spec.players} player(s)",
                "line.locks.multi_lock_doors",
            )
        if spec.depth is not None and spec.depth == 0:
            raise Infeasible(
                "line.locks.multi_lock_doors with line.locks.depth 0: every key lies before the first door, so a "
                "second lock would only repeat it; ask for depth 1 or more, or leave depth out",
                "line.locks.multi_lock_doors",
            )
    _skeleton_door_limits(spec, colours, _most_corridors(spec, most_rooms))
    if spec.locked_doors[0] and not colours:
        raise Infeasible(
            f"line.locked_doors asks for at least {spec.locked_doors[0]} locked doors; ruleset '{spec.ruleset.id}' "
            f"has no key tokens for {spec.players} player(s) (line.difficulty.players), so none would open",
            "line.locked_doors",
        )


def _most_corridors(spec: LineSpec, rooms: int) -> int:
    """The most corridors a layout of at most ``rooms`` rooms can have (one door each): the
    spanning tree alone with ``line.loops`` 0, else at most ``line.corridors``, the neighbouring
    pairs of the sheet's slots and one corridor a pair of rooms."""
    if spec.corridors is None and spec.loops <= 0:
        return max(0, rooms - 1)
    sheet = sheet_for(spec)
    neighbours = sheet.columns * (sheet.rows - 1) + sheet.rows * (sheet.columns - 1)
    most = min(neighbours, rooms * (rooms - 1) // 2)
    return most if spec.corridors is None else min(most, spec.corridors[1])


def _skeleton_door_limits(spec: LineSpec, colours: list[str], corridors: int) -> None:
    """The counting checks of ``line.locks.skeleton_key_doors`` (RULES.md 2, Keys): a
    skeleton-key door is a locked door with the one lock ``"skeleton"``, so it is neither a door
    of the key chain (their colours make the chain) nor a two-lock door, and any key opens it, so
    the player needs a key token of some colour; every locked door stands on a corridor of its
    own (``corridors``: the most a layout of ``line.rooms`` has). Raises :class:`Infeasible`
    naming ``line.locks.skeleton_key_doors``."""
    skeleton = spec.skeleton_key_doors[0]
    if not skeleton:
        return
    where = "line.locks.skeleton_key_doors"
    most = spec.locked_doors[1]
    if skeleton > most:
        raise Infeasible(
            f"{where} asks for {skeleton} skeleton-key doors; they are locked doors, and line.locked_doors allows "
            f"at most {most}",
            where,
        )
    chain = spec.depth + 1 if spec.depth else 0
    if skeleton + chain > most:
        raise Infeasible(
            f"{where} asks for {skeleton} skeleton-key doors besides the {chain} coloured doors of the key chain "
            f"(line.locks.depth {spec.depth}), {skeleton + chain} locked doors in all; line.locked_doors allows "
            f"at most {most}",
            where,
        )
    multi = spec.multi_lock_doors[0]
    first = 1 if spec.depth else 0  # the chain's first door has one lock, of a colour
    if multi and skeleton + multi + first > most:
        raise Infeasible(
            f"{where} asks for {skeleton} skeleton-key doors besides the {multi} two-lock doors of "
            f"line.locks.multi_lock_doors"
            + (" and the first door of the key chain (line.locks.depth)" if first else "")
            + f", {skeleton + multi + first} locked doors in all; line.locked_doors allows at most {most}",
            where,
        )
    doors = skeleton + max(chain, multi + first if multi else 0)
    if doors > corridors:
        raise Infeasible(
            f"{where} asks for {skeleton} skeleton-key doors"
            + (f", {doors} locked doors in all with the key chain and the two-lock doors" if doors > skeleton else "")
            + f"; a door stands on a corridor of its own, and line.rooms {list(spec.rooms)} with "
            + ("line.corridors" if spec.corridors else f"line.loops {spec.loops:g}")
            + f" give at most {corridors} corridor(s)",
            where,
        )
    if not colours:
        raise Infeasible(
            f"{where}: a skeleton-key door opens with a key of any colour, and ruleset '{spec.ruleset.id}' has no "
            f"key tokens for {spec.players} player(s) (line.difficulty.players)",
            where,
        )


def _usable_colours(spec: LineSpec) -> list[str]:
    """The key colours with tokens for the spec's player count."""
    return [c for c in spec.ruleset.key_colours if spec.ruleset.key_supply(spec.players) > 0]


def line_layout(spec: LineSpec, rng: random.Random, title: str, dungeon_id: str) -> dict:
    """A line layout (areas and doors, no Start or content yet) for ``spec`` drawn from ``rng``:
    a dungeon document on ``spec.paper`` whose rooms lie in the slots of :func:`sheet_for` (see the module
    docstring). Raises :class:`Infeasible` for more rooms than slots (``line.rooms``), a corridor
    too wide for the rooms (``line.corridor_width_mm``), a key chain the rooms, doors or colours
    cannot hold (``line.locks.depth``), more locked doors than corridors (``line.locked_doors``),
    two-lock doors the doors cannot carry (``line.locks.multi_lock_doors``) or skeleton-key doors
    beyond the doors the chain and the two-lock doors leave (``line.locks.skeleton_key_doors``)."""
    _layout_limits(spec)
    for _ in range(MAX_DRAWS):
        layout = _draw_layout(spec, rng, title, dungeon_id)
        if layout is not None:
            return layout
    raise Infeasible(
        f"no layout of {spec.rooms[0]}-{spec.rooms[1]} rooms (line.rooms) in {MAX_DRAWS} draws held "
        f"{spec.locked_doors[0]}-{spec.locked_doors[1]} locked doors (line.locked_doors) with keys "
        f"{spec.depth} deep (line.locks.depth) and {spec.multi_lock_doors[0]} two-lock doors"
        + (
            f" and {spec.skeleton_key_doors[0]} skeleton-key doors (line.locks.skeleton_key_doors)"
            if spec.skeleton_key_doors[0]
            else ""
        )
        + (f" with {spec.corridors[0]}-{spec.corridors[1]} corridors (line.corridors)" if spec.corridors else "")
        + "; ask for more rooms or line.loops, or fewer doors or corridors",
        "line.corridors" if spec.corridors else "line.locked_doors",
    )


def _draw_layout(spec: LineSpec, rng: random.Random, title: str, dungeon_id: str) -> dict | None:
    """One draw of :func:`line_layout`, or ``None`` when it cannot hold the doors asked."""
    sheet = sheet_for(spec)
    most = min(spec.rooms[1], sheet.slots)
    if spec.corridors is not None:  # a tree of the rooms is rooms - 1 corridors
        most = min(most, spec.corridors[1] + 1)
    count = rng.randint(spec.rooms[0], most)
    chain_doors = spec.depth + 1 if spec.depth else 0
    if chain_doors and count < chain_doors + 1:
        return None
    width = spec.corridor_mm
    chosen = _grow_slots(rng, count, chain_doors > 0, sheet)
    first = chosen[0]
    half = width / 2 + 2
    rooms: dict[tuple[int, int], tuple[float, float, float, float]] = {}
    for c, r in chosen:
        x0, y0, x1, y1 = sheet.slot(c, r)
        xa, xb = _span(rng, x0, x1, (x0 + x1) / 2, half, rng.uniform(*ROOM_SHARE))
        ya, yb = _span(rng, y0, y1, (y0 + y1) / 2, half, rng.uniform(*ROOM_SHARE))
        rooms[(c, r)] = (xa, ya, xb, yb)
    # a random spanning tree of neighbouring rooms, then loops
    pairs = sorted((a, b) for a in chosen for b in chosen if a < b and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1)
    tree = _spanning_tree(rng, chosen, pairs)
    paths = _tree_paths(first, tree)
    chain: list[tuple] = []
    if chain_doors:
        # the key chain: doors on tree edges one behind another on the way to a far room
        far = [slot for slot, path in paths.items() if len(path) >= chain_doors]
        if not far:
            return None
        path = paths[rng.choice(far)]
        chain = [path[i] for i in sorted(rng.sample(range(len(path)), chain_doors))]
    zone = {slot: sum(1 for edge in path if edge in chain) for slot, path in paths.items()}
    # a loop between rooms of different zones would go round a door of the chain
    if spec.corridors is None:
        loops = [p for p in pairs if p not in tree and zone[p[0]] == zone[p[1]] and rng.random() < spec.loops]
    else:  # as many loops as the corridors asked need
        spare = [p for p in pairs if p not in tree and zone[p[0]] == zone[p[1]]]
        low, high = max(spec.corridors[0], len(tree)), min(spec.corridors[1], len(tree) + len(spare))
        if low > high:
            return None  # this draw's rooms have too few neighbours: draw again
        loops = sorted(rng.sample(spare, rng.randint(low, high) - len(tree)))
    links = tree + loops
    order = {slot: i for i, slot in enumerate(chosen)}
    names = rng.sample([f"{q} {p}" for q in _QUALITIES for p in _PLACES], len(chosen))
    areas: list[dict[str, Any]] = [
        {
            "id": f"r{order[slot] + 1}",
            "kind": "room",
            "name": names[order[slot]],
            "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
        }
        for slot, (x0, y0, x1, y1) in sorted(rooms.items(), key=lambda item: order[item[0]])
    ]
    # steps from the first room: doors go at the far end of their corridor
    steps = {first: 0}
    queue = [first]
    for slot in queue:
        for a, b in links:
            for here, there in ((a, b), (b, a)):
                if here == slot and there not in steps:
                    steps[there] = steps[slot] + 1
                    queue.append(there)
    corridors: list[dict[str, Any]] = []
    ends: list[list[list[float]]] = []
    sorted_links = sorted(links, key=lambda p: (order[p[0]], order[p[1]]))
    for n, (a, b) in enumerate(sorted_links, 1):
        ra, rb = rooms[a], rooms[b]
        if a[1] == b[1]:  # side by side: a horizontal corridor at the row's middle
            _, y0, _, y1 = sheet.slot(*a)
            mid = round((y0 + y1) / 2, 1)
            left, right = (ra, rb) if a[0] < b[0] else (rb, ra)
            x0, x1 = left[2], right[0]
            polygon = [[x0, mid - width / 2], [x1, mid - width / 2], [x1, mid + width / 2], [x0, mid + width / 2]]
            end_a = [[x0, mid - width / 2], [x0, mid + width / 2]]
            end_b = [[x1, mid - width / 2], [x1, mid + width / 2]]
            far_end = end_b if (left is ra) == (steps[a] <= steps[b]) else end_a
        else:  # one above the other: a vertical corridor at the column's middle
            x0, _, x1, _ = sheet.slot(*a)
            mid = round((x0 + x1) / 2, 1)
            top, bottom = (ra, rb) if a[1] < b[1] else (rb, ra)
            y0, y1 = top[3], bottom[1]
            polygon = [[mid - width / 2, y0], [mid + width / 2, y0], [mid + width / 2, y1], [mid - width / 2, y1]]
            end_a = [[mid - width / 2, y0], [mid + width / 2, y0]]
            end_b = [[mid - width / 2, y1], [mid + width / 2, y1]]
            far_end = end_b if (top is ra) == (steps[a] <= steps[b]) else end_a
        corridors.append({"id": f"c{n}", "kind": "corridor", "polygon": polygon})
        ends.append(far_end)
    locks = _door_locks(spec, rng, sorted_links, chain, zone)
    if locks is None:
        return None
    doors: list[dict[str, Any]] = [
        {"id": f"d{n + 1}", "kind": "door", "segment": ends[index], "locks": lock}
        for n, (index, lock) in enumerate(sorted(locks.items()))
    ]
    # the rooms drawn centred in the region, whichever slots they took
    every: list[list[float]] = [p for area in areas + corridors for p in area["polygon"]]
    region = sheet.region
    dx = round((region[0] + region[2]) / 2 - (min(p[0] for p in every) + max(p[0] for p in every)) / 2, 1)
    dy = round((region[1] + region[3]) / 2 - (min(p[1] for p in every) + max(p[1] for p in every)) / 2, 1)
    for item in areas + corridors:
        item["polygon"] = [[round(x + dx, 1), round(y + dy, 1)] for x, y in item["polygon"]]
    for door in doors:
        door["segment"] = [[round(x + dx, 1), round(y + dy, 1)] for x, y in door["segment"]]
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": dungeon_id,
        "family": "line",
        "ruleset": spec.ruleset.id,
        "sheet": {
            "title": title,
            "paper": {"width_mm": sheet.width, "height_mm": sheet.height, "margin_mm": MARGIN_MM},
            "reminders": ["Room elements are not optional; corridor elements are."],
            "components": ["keys"] if doors else [],
            "end_triggers": [],
            "orb_tokens": {},
        },
        "areas": areas + corridors,
        "walls": [],
        "elements": doors,
    }


def _door_locks(
    spec: LineSpec, rng: random.Random, links: list[tuple], chain: list[tuple], zone: dict
) -> dict[int, list[str]] | None:
    """Corridor index (into ``links``) -> the locks of its door, or ``None`` when the corridors
    cannot carry the doors asked. The chain's doors (``chain``: tree edges one behind another)
    take the colours ``c0, c1, ...`` in order; another door in zone ``z`` (behind ``z`` doors of
    the chain) a colour of ``c0..cz``, so its key never waits behind it; a second lock on a door
    is a colour already held where the door stands (chain door ``k``: one of ``c0..c(k-1)``).
    Skeleton-key doors (``line.locks.skeleton_key_doors``) are doors off the chain whose one lock
    becomes ``"skeleton"``; the two-lock doors are drawn from the others."""
    colours = _usable_colours(spec)
    rng.shuffle(colours)
    low, high = spec.locked_doors
    if not colours:  # no key tokens for the player count: no door would open (low is 0, _layout_limits)
        high = 0
    skeleton_low = spec.skeleton_key_doors[0]
    low = max(low, len(chain) + skeleton_low, spec.multi_lock_doors[0] + (1 if chain else 0) + skeleton_low)
    if low > len(links):
        if spec.locked_doors[0] > len(links):
            raise Infeasible(
                f"line.locked_doors asks for at least {spec.locked_doors[0]} locked doors; this layout of "
                f"{len(zone)} rooms has {len(links)} corridors, one door each (ask for fewer, or more rooms or "
                "line.loops)",
                "line.locked_doors",
            )
        return None
    total = rng.randint(low, min(high, len(links)))
    index = {link: i for i, link in enumerate(links)}
    locks: dict[int, list[str]] = {index[edge]: [colours[k]] for k, edge in enumerate(chain)}
    others = [i for i in range(len(links)) if i not in locks]
    for i in sorted(rng.sample(others, total - len(chain))):
        if chain:
            z = min(zone[links[i][0]], zone[links[i][1]], len(chain) - 1)
            locks[i] = [colours[rng.randint(0, z)]]
        else:
            locks[i] = [colours[len(locks) % len(colours)]]
    skeleton: set[int] = set()
    if spec.skeleton_key_doors[1]:
        off_chain = sorted(set(locks) - {index[edge] for edge in chain})
        # leave the two-lock doors asked their doors: the chain's (but its first) and the others
        most = min(spec.skeleton_key_doors[1], len(off_chain), total - spec.multi_lock_doors[0] - (1 if chain else 0))
        skeleton = set(rng.sample(off_chain, rng.randint(skeleton_low, most)))
        for i in skeleton:
            locks[i] = [SKELETON_LOCK]
    multi = rng.randint(*spec.multi_lock_doors) if spec.multi_lock_doors[1] else 0
    if not multi:
        return locks
    if chain:
        held = {index[edge]: colours[:k] for k, edge in enumerate(chain)}
        for i in locks:
            if i not in held:
                z = min(zone[links[i][0]], zone[links[i][1]], len(chain) - 1)
                held[i] = colours[: z + 1]
        candidates = {i: [c for c in held[i] if c not in locks[i]] for i in locks}
    else:
        candidates = {i: [c for c in colours if c not in locks[i]] for i in locks}
    usable = sorted(i for i, options in candidates.items() if options and i not in skeleton)
    if len(usable) < multi:
        return None
    for i in rng.sample(usable, multi):
        locks[i] = sorted([*locks[i], rng.choice(candidates[i])])
    return locks


def _check_room_for_elements(spec: LineSpec, fill: float, smallest) -> None:
    """The counting check of ``line.elements`` before any layout: the elements asked (at their
    fewest and smallest) must fit the paper of the most and largest rooms the slots allow, at
    most ``fill`` of it covered. ``smallest(kind)`` is the least size (mm) a kind is printed at."""
    sheet = sheet_for(spec)
    sx0, sy0, sx1, sy1 = sheet.slot(0, 0)
    most_rooms = min(spec.rooms[1], sheet.slots)
    paper = most_rooms * fill * ((sx1 - sx0) * ROOM_SHARE[1]) * ((sy1 - sy0) * ROOM_SHARE[1])
    counts = spec.counts(spec.rooms[0], level=0.0)
    asked = sum(count * math.pi * (smallest(kind) / 2) ** 2 for kind, count in counts.items())
    if asked > paper:
        listed = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        raise Infeasible(
            f"line.elements asks for {listed}: {asked:.0f} mm² of elements at their smallest, and {most_rooms} rooms "
            f"(line.rooms) on {sheet.label} have at most {paper:.0f} mm² of paper for elements ({fill:.0%} of each "
            "room, the rest kept for names and lines); ask for fewer elements",
            "line.elements",
        )


def _miss(spec: LineSpec, par: float) -> float:
    """How far ``par`` lies outside ``spec.par_range`` (VP)."""
    low, high = spec.par_range  # type: ignore[misc]
    return low - par if par < low else max(0.0, par - high)


def _steer_rooms(drawn: LineSpec, spec: LineSpec, layout: dict, par: float) -> LineSpec:
    """The spec of the next layout after ``layout`` missed the par range with ``par`` at best:
    fewer rooms when par was above the range (populate already tried its fewest elements), more
    when below, within ``spec.rooms``."""
    rooms = sum(1 for a in layout["areas"] if a["kind"] == "room")
    low, high = drawn.rooms
    if par > spec.par_range[1]:  # type: ignore[index]
        high = max(spec.rooms[0], min(high, rooms - 1))
        low = min(low, high)
    else:
        low = min(spec.rooms[1], max(low, rooms + 1))
        high = max(high, low)
    return replace(drawn, rooms=(low, high))


def generate_line(
    spec: LineSpec,
    seed: int,
    index: int = 0,
    title: str | None = None,
    dungeon_id: str | None = None,
    time_limit: float = 5.0,
) -> GeneratedLine:
    """Dungeon ``index`` for ``spec`` and ``seed``: :func:`line_layout`, then
    :func:`~inkcrawl.generate.populate.populate_line` (the par target, keys, Start, end trigger).
    A layout populate cannot fill (its counting checks) is drawn again until ``time_limit``
    seconds pass. Raises :class:`Infeasible` naming the constraint (the last layout's reason)
    and :class:`GeneratorBug` for a result with a validation error. RULES.md 2."""
    from inkcrawl.generate.populate import MAX_FILL, _error_count, _sizes, sizes_of

    _check_room_for_elements(spec, MAX_FILL, lambda kind: _sizes(sizes_of(spec.ruleset, kind), spec.ruleset)[-1])
    started = time.monotonic()
    title = title or title_for(seed, index)
    dungeon_id = dungeon_id or f"generated-{seed}"
    from inkcrawl.validate import RulesetRegistry

    registry = RulesetRegistry([spec.ruleset])  # the spec's own ruleset (a pack's, say), as the grid's
    attempt = 0
    nearest: float | None = None  # the par nearest the range over the layouts tried
    drawn = spec
    while True:
        rng = random.Random(f"inkcrawl-generate-line:{seed}:{index}:{attempt}")
        layout = line_layout(drawn, rng, title, dungeon_id)
        left = max(0.1, time_limit - (time.monotonic() - started))
        tries = PAR_TRIES_PER_LAYOUT if spec.par_range is not None else None
        try:
            populated = populate_line(layout, spec, rng.randrange(2**32), left, dungeon_id, registry, tries)
        except Infeasible as exc:
            attempt += 1
            out_of_time = time.monotonic() - started >= time_limit
            if exc.constraint == "line.difficulty.par" and getattr(exc, "nearest", None) is not None:
                par = float(exc.nearest)  # type: ignore[attr-defined]
                nearest = par if nearest is None or _miss(spec, par) < _miss(spec, nearest) else nearest
                if not out_of_time and attempt < MAX_LAYOUTS:
                    drawn = _steer_rooms(drawn, spec, layout, par)
                    continue
                raise Infeasible(
                    f"line.difficulty.par [{spec.par_range[0]:g}, {spec.par_range[1]:g}] was not met by "  # type: ignore[index]
                    f"{attempt} layout(s) within --time-limit {time_limit:g} s; the nearest par found was "
                    f"{nearest:g} VP; widen the range, or change line.rooms or line.elements",
                    "line.difficulty.par",
                ) from None
            if out_of_time or exc.constraint == "line.difficulty.par" or attempt >= MAX_LAYOUTS:
                raise
            continue
        errors, problems = _error_count(populated.data, dungeon_id, registry)
        if errors:
            raise GeneratorBug(
                f"internal error: generated line dungeon {dungeon_id!r} has {errors} validation error(s) "
                f"(first: {problems[0].code} {problems[0].message})"
            )
        areas = populated.data["areas"]
        return GeneratedLine(
            populated.data,
            populated,
            sum(1 for a in areas if a["kind"] == "room"),
            sum(1 for a in areas if a["kind"] == "corridor"),
            sum(1 for e in populated.data["elements"] if e["kind"] == "door"),
        )
