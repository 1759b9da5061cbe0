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
    ``usable_colours`` are the key colours with at least one token in the supply. The search
    stops after ``max_states`` states (far more than any printable dungeon needs).
    """
    neighbours: dict[str, list[Connection]] = defaultdict(list)
    for connection in connections:
        neighbours[connection.a].append(connection)
        if connection.kind != "portal":
            neighbours[connection.b].append(Connection(connection.b, connection.a, connection.kind,
                                                       connection.door_id, connection.channel))
    result = Reachability()
    empty: frozenset[str] = frozenset()
    queue: deque = deque()
    seen = set()
    for area in start_areas:
        state = (area, empty, empty)
        if state not in seen:
            seen.add(state)
            queue.append((state, 0))
    while queue and len(seen) < max_states:
        (area, keys, used), depth = queue.popleft()
        result.areas.add(area)
        result.steps[area] = min(result.steps.get(area, depth), depth)
        successors = []
        for colour in keys_in_area.get(area, ()):
            if colour in usable_colours and colour not in keys:
                successors.append(((area, keys | {colour}, used), depth))
        for skeleton in skeleton_keys_in_area.get(area, ()):
            if skeleton not in used:
                for colour in usable_colours - keys:
                    successors.append(((area, keys | {colour}, used | {skeleton}), depth))
        for connection in neighbours.get(area, ()):
            if connection.kind == "door":
                if not door_opens(door_locks.get(connection.door_id, []), keys):
                    continue
                result.doors_opened.add(connection.door_id)
            successors.append(((connection.b, keys, used), depth + 1))
        for state, next_depth in successors:
            if state not in seen:
                seen.add(state)
                queue.append((state, next_depth))
    return result
