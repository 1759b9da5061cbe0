"""Solvability of line dungeons: a search over (area, keys held) from every Start.

RULES.md 2: the line is continuous and may backtrack freely, so within the connected part of
the dungeon a player can go anywhere; keys are kept once taken (one of each colour, only if a
token is left in the supply); a locked door passes with its key, a skeleton-key door with any
key, a door with several locks with one distinct key per lock; portals are one-way. The
search explores states ``(area, keys held, skeleton keys used)`` breadth-first and reports
which areas can be reached and which doors can ever be opened.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from inkcrawl.geometry import Connection
from inkcrawl.model import SKELETON_LOCK


def door_opens(locks: list[str], keys: frozenset[str]) -> bool:
    """Whether a player holding ``keys`` opens a door with ``locks`` (RULES.md 2, Keys).

    Colour locks need their colour; each ``"skeleton"`` lock needs one more key of any colour,
    distinct from those used for the colour locks. A colour listed twice never opens, since a
    player holds at most one key of each colour.
    """
    colours = [lock for lock in locks if lock != SKELETON_LOCK]
    if len(set(colours)) != len(colours) or not set(colours) <= keys:
        return False
    return len(keys) - len(colours) >= len(locks) - len(colours)


@dataclass
class Reachability:
    """Result of :func:`explore`: reached area ids, doors passed at least once (ids), and for
    each reached area the fewest area steps from a Start (``steps``)."""

    areas: set[str] = field(default_factory=set)
    doors_opened: set[str] = field(default_factory=set)
    steps: dict[str, int] = field(default_factory=dict)


def explore(start_areas: list[str], connections: list[Connection], keys_in_area: dict[str, set[str]],
            skeleton_keys_in_area: dict[str, list[str]], door_locks: dict[str, list[str]],
            usable_colours: set[str], max_states: int = 200_000) -> Reachability:
    """Breadth-first search over ``(area, keys held, skeleton keys used)``.

    ``connections`` are open gaps and doors (both ways) and portals (one-way, ``a`` to ``b``);
    ``keys_in_area`` maps an area id to the key colours lying in it; ``skeleton_keys_in_area``
    to the ids of its skeleton keys; ``door_locks`` maps door ids to their locks;
    ``usable_colours`` are the key colours with at least one token in the supply. Entering an
    area takes its keys at once (holding more keys never closes a way); a skeleton key is a
    choice of colour, so each choice is explored. The search stops after ``max_states`` states
    (far more than any printable dungeon needs).
    """
    colours = sorted(usable_colours)
    bit = {colour: 1 << i for i, colour in enumerate(colours)}
    all_colours = (1 << len(colours)) - 1
    skeleton_ids = sorted({s for ids in skeleton_keys_in_area.values() for s in ids})
    skeleton_bit = {s: 1 << i for i, s in enumerate(skeleton_ids)}
    area_keys: dict[str, int] = defaultdict(int)
    for area, found in keys_in_area.items():
        for colour in found:
            area_keys[area] |= bit.get(colour, 0)
    area_skeletons = {area: [skeleton_bit[s] for s in ids] for area, ids in skeleton_keys_in_area.items()}
    door_need: dict[str, tuple[int, int] | None] = {}
    for door, locks in door_locks.items():
        plain = [lock for lock in locks if lock != SKELETON_LOCK]
        if len(set(plain)) != len(plain) or any(lock not in bit for lock in plain):
            door_need[door] = None
        else:
            door_need[door] = (sum(bit[lock] for lock in plain), len(locks))
    neighbours: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for connection in connections:
        door = connection.door_id if connection.kind == "door" else None
        neighbours[connection.a].append((connection.b, door))
        if connection.kind != "portal":
            neighbours[connection.b].append((connection.a, door))

    result = Reachability()
    seen: set[tuple[str, int, int]] = set()
    queue: deque = deque()

    def push(area: str, keys: int, used: int, depth: int) -> None:
        state = (area, keys | area_keys[area], used)
        if state not in seen:
            seen.add(state)
            queue.append((state, depth))

    for area in start_areas:
        push(area, 0, 0, 0)
    while queue and len(seen) < max_states:
        (area, keys, used), depth = queue.popleft()
        result.areas.add(area)
        if depth < result.steps.get(area, depth + 1):
            result.steps[area] = depth
        for skeleton in area_skeletons.get(area, ()):
            if not used & skeleton:
                free = all_colours & ~keys
                while free:
                    lowest = free & -free
                    push(area, keys | lowest, used | skeleton, depth)
                    free ^= lowest
        for other, door in neighbours.get(area, ()):
            if door is not None:
                need = door_need.get(door)
                if need is None or keys & need[0] != need[0] or keys.bit_count() < need[1]:
                    continue
                result.doors_opened.add(door)
            push(other, keys, used, depth + 1)
    return result
