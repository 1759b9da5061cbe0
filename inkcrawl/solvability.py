"""Solvability of line dungeons: a search over (area, keys held) from every Start.

RULES.md 2: the line is continuous and may backtrack freely, so within the connected part of
the dungeon a player can go anywhere; keys are kept once taken (one of each colour, only if a
token is left in the supply); a locked door passes with its key, a skeleton-key door with any
key, a door with several locks with one distinct key per lock (the rule is
:mod:`inkcrawl.locks`, which the referee reads too); portals are one-way. The
search explores states ``(area, keys held, skeleton keys used)`` breadth-first and reports
which areas can be reached and which doors can ever be opened.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from inkcrawl.geometry import Connection
from inkcrawl.locks import door_opens, lock_needs, mask_needs, mask_opens

__all__ = ["Analysis", "Reachability", "analyze_line_game", "door_opens", "explore", "lock_needs"]


@dataclass
class Reachability:
    """Result of :func:`explore`: reached area ids, doors passed at least once (ids), for each
    reached area the fewest area steps from a Start (``steps``), and ``complete`` (false when
    the search hit its state limit, so unreached areas may in fact be reachable)."""

    areas: set[str] = field(default_factory=set)
    doors_opened: set[str] = field(default_factory=set)
    steps: dict[str, int] = field(default_factory=dict)
    complete: bool = True
    colours: list[str] = field(default_factory=list, repr=False)
    _parents: dict = field(default_factory=dict, repr=False)
    _order: list = field(default_factory=list, repr=False)

    def route(self, targets: set[str]) -> list[dict] | None:
        """The shortest way (fewest area steps) from a Start into one of the ``targets`` area
        ids, as steps ``{"area", "via"}`` (``via``: ``start``, ``open``, ``door <id>``,
        ``portal``, ``key <colour>`` or ``skeleton key: <colour>``); ``None`` if unreachable."""
        goal = next((state for state in self._order if state[0] in targets), None)
        if goal is None:
            return None
        steps = []
        state = goal
        while state is not None:
            previous, via = self._parents[state]
            steps.append({"area": state[0], "via": via})
            state = previous
        steps.reverse()
        return steps

    def keys_of(self, mask: int) -> list[str]:
        """The colour ids of a key mask of this search."""
        return [colour for i, colour in enumerate(self.colours) if mask >> i & 1]


def explore(
    start_areas: list[str],
    connections: list[Connection],
    keys_in_area: dict[str, set[str]],
    skeleton_keys_in_area: dict[str, list[str]],
    door_locks: dict[str, list[str]],
    usable_colours: set[str],
    max_states: int = 200_000,
) -> Reachability:
    """Breadth-first search over ``(area, keys held, skeleton keys used)`` from every Start.

    ``connections`` are open gaps and doors (both ways) and portals (one-way, ``a`` to ``b``);
    ``keys_in_area`` maps an area id to the key colours lying in it; ``skeleton_keys_in_area``
    to the ids of its skeleton keys (each gives one key of the player's choice, once);
    ``door_locks`` maps door ids to their locks; ``usable_colours`` are the key colours with
    at least one token in the supply. Entering an area takes its keys at once (holding more
    keys never closes a way). Skeleton keys of one area are interchangeable, so the state counts
    how many of each area's were used, and never more than there are colours. The search stops
    after ``max_states`` states and then says so (``complete`` false).
    """
    colours = sorted(usable_colours)
    bit = {colour: 1 << i for i, colour in enumerate(colours)}
    all_colours = (1 << len(colours)) - 1
    area_keys: dict[str, int] = defaultdict(int)
    for area, found in keys_in_area.items():
        for colour in found:
            area_keys[area] |= bit.get(colour, 0)
    skeleton_areas = sorted(a for a, ids in skeleton_keys_in_area.items() if ids)
    slot = {area: i for i, area in enumerate(skeleton_areas)}
    capacity = [min(len(skeleton_keys_in_area[a]), len(colours)) for a in skeleton_areas]
    door_need = {door: mask_needs(locks, bit) for door, locks in door_locks.items()}
    neighbours: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    portal_pairs = {(c.a, c.b) for c in connections if c.kind == "portal"}
    for connection in connections:
        door = connection.door_id if connection.kind == "door" else None
        neighbours[connection.a].append((connection.b, door))
        if connection.kind != "portal":
            neighbours[connection.b].append((connection.a, door))

    result = Reachability(colours=colours)
    seen: set[tuple[str, int, tuple[int, ...]]] = set()
    queue: deque = deque()
    parents = result._parents

    def push(area: str, keys: int, used: tuple[int, ...], depth: int, parent=None, via: str = "start") -> None:
        gained = area_keys[area] & ~keys
        state = (area, keys | area_keys[area], used)
        if state not in seen:
            seen.add(state)
            if gained:
                via = f"{via}, takes key {', '.join(result.keys_of(gained))}"
            parents[state] = (parent, via)
            result._order.append(state)
            queue.append((state, depth))

    for area in start_areas:
        push(area, 0, (0,) * len(skeleton_areas), 0)
    while queue:
        if len(seen) >= max_states:
            result.complete = False
            break
        state, depth = queue.popleft()
        area, keys, used = state
        result.areas.add(area)
        if depth < result.steps.get(area, depth + 1):
            result.steps[area] = depth
        index = slot.get(area)
        if index is not None and used[index] < capacity[index]:
            more = used[:index] + (used[index] + 1,) + used[index + 1 :]
            free = all_colours & ~keys
            while free:
                lowest = free & -free
                push(area, keys | lowest, more, depth, state, f"skeleton key: {result.keys_of(lowest)[0]}")
                free ^= lowest
        for other, door in neighbours.get(area, ()):
            if door is not None:
                if not mask_opens(door_need.get(door), keys):
                    continue
                result.doors_opened.add(door)
            push(
                other,
                keys,
                used,
                depth + 1,
                state,
                "open"
                if door is None and (area, other) not in portal_pairs
                else ("portal" if door is None else f"door {door}"),
            )
    return result


@dataclass
class Analysis:
    """What :func:`analyze_line_game` found: reached and unreached areas, elements out of reach,
    doors that never open, and the shortest route to each end-trigger target (boss, escape
    portal, exit), or ``None`` where there is none."""

    dungeon: str
    areas: list[str]
    reached: list[str]
    unreachable_elements: list[dict]
    doors_never_open: list[dict]
    routes: dict[str, list[dict] | None]
    complete: bool = True

    def as_dict(self) -> dict:
        """The analysis as JSON data (``inkcrawl analyze --format json``)."""
        return {
            "dungeon": self.dungeon,
            "areas": len(self.areas),
            "reached": self.reached,
            "unreached": [a for a in self.areas if a not in self.reached],
            "unreachable_elements": self.unreachable_elements,
            "doors_never_open": self.doors_never_open,
            "routes": self.routes,
            "complete": self.complete,
        }


def analyze_line_game(data: dict, players: int | None = None) -> Analysis:
    """Solvability of a line dungeon from its game data alone (docs/game-data.md).

    ``players`` picks the key supply (default: every player count of the dungeon; a colour is
    usable when any of them leaves a token). Routes lead to each boss, escape portal and exit.
    """
    supply = data["keys"]["supply"]
    counts = [players] if players else range(data["players"]["min"], data["players"]["max"] + 1)
    usable = {c["id"] for c in data["keys"]["colours"] if any(supply.get(str(n), 0) > 0 for n in counts)}
    keys_in_area: dict[str, set[str]] = defaultdict(set)
    skeletons: dict[str, list[str]] = defaultdict(list)
    for element in data["elements"]:
        if element["area"] is None:
            continue
        if element["kind"] == "key":
            keys_in_area[element["area"]].add(element["colour"])
        elif element["kind"] == "skeleton_key":
            skeletons[element["area"]].append(element["id"])
    connections = [Connection(c["a"], c["b"], c["kind"], c.get("door")) for c in data["connections"]]
    door_locks = {c["door"]: c["locks"] for c in data["connections"] if c["kind"] == "door"}
    reach = explore(
        [s["area"] for s in data["starts"] if s["area"]], connections, keys_in_area, skeletons, door_locks, usable
    )
    unreachable = [
        {"id": e["id"], "kind": e["kind"], "name": e.get("name"), "area": e["area"]}
        for e in data["elements"]
        if e["area"] is not None and e["area"] not in reach.areas
    ]
    never_open = [{"id": door, "locks": locks} for door, locks in door_locks.items() if door not in reach.doors_opened]
    routes = {}
    for element in data["elements"]:
        if element["kind"] in ("boss", "escape_portal", "exit") and element["area"]:
            routes[f"{element['kind']} {element['id']}"] = reach.route({element["area"]})
    areas = [a["id"] for a in data["areas"]]
    return Analysis(
        data["id"], areas, [a for a in areas if a in reach.areas], unreachable, never_open, routes, reach.complete
    )
