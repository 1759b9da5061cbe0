"""Keys and locked doors: the connections the validator will see, the locked doors taken in
the order the Starts reach them, and a key for each placed where it can be reached without
that door (or the door opened when no key fits)."""

from __future__ import annotations

import re
from collections import deque

from shapely.geometry import Point

from inkcrawl.geoarrays import as_point
from inkcrawl.importers.build import LineDungeonBuilder
from inkcrawl.importers.watabou.areas import _free_spot
from inkcrawl.importers.watabou.source import WALL_CLEARANCE_MM
from inkcrawl.importers.watabou.state import _State


class _Keys(_State):
    """The key step of a conversion."""

    # keys and locked doors ---------------------------------------------------------------------------
    def _connections(self) -> list:
        """The open gaps and door connections the validator will see (its own geometry code on
        the areas and locked doors scaled onto the sheet)."""
        from inkcrawl.geometry import build_geometry, door_areas
        from inkcrawl.model import LineDungeon, dungeon_from_dict
        from inkcrawl.printed import area_connections

        probe = LineDungeonBuilder(dungeon_id="probe", title="probe")
        for area in self.areas:
            probe.add_area(area.kind, [as_point(p) for p in area.polygon.exterior.coords[:-1]], wanted_id=area.id)
        for locked in self.locked:
            probe.add_door(tuple(locked["segment"].coords), [locked["lock"]], wanted_id=f"door-{locked['door'].index}")
        dungeon = dungeon_from_dict(probe.build(cell_mm=self.scale))
        assert isinstance(dungeon, LineDungeon)  # the builder makes line dungeons
        geometry = build_geometry(dungeon, snap_mm=self.snap_mm)
        doors = []
        for element in dungeon.elements_of("door"):
            found = door_areas(geometry, element, self.snap_mm)
            if len(found) == 2:
                doors.append((element, found[0], found[1]))
        return area_connections(geometry, doors, self.min_gap_mm)

    @staticmethod
    def _reach(starts: list[str], connections, opened: set[str]) -> dict[str, int]:
        neighbours: dict[str, list[str]] = {}
        for c in connections:
            if c.kind == "open" or (c.kind == "door" and c.door_id in opened):
                neighbours.setdefault(c.a, []).append(c.b)
                neighbours.setdefault(c.b, []).append(c.a)
        steps = {s: 0 for s in starts}
        queue = deque(starts)
        while queue:
            area = queue.popleft()
            for other in neighbours.get(area, ()):
                if other not in steps:
                    steps[other] = steps[area] + 1
                    queue.append(other)
        return steps

    def _plan_keys(self) -> None:
        connections = self._connections()
        placed_ids = {c.door_id for c in connections if c.kind == "door"}
        for locked in list(self.locked):
            if f"door-{locked['door'].index}" not in placed_ids:
                self.note(
                    locked["door"].source,
                    f"{locked['door'].label}: the door does not sit between two areas; imported as an open passage",
                )
                self.locked.remove(locked)
        open_pairs = {frozenset((c.a, c.b)) for c in connections if c.kind == "open"}
        for locked in self.locked:
            if frozenset(locked["areas"]) in open_pairs:
                self.note(
                    locked["door"].source,
                    f"{locked['door'].label}: its doorway also opens onto "
                    f"'{locked['areas'][1]}' beside the door, so the lock can be walked "
                    f"around (validation warns: L009)",
                )
        starts = sorted({a for a, _ in self.starts})
        opened: set[str] = set()
        colours_held: set[str] = set()  # key colours reachable so far ("any" for a skeleton key)
        pending = list(self.locked)
        self.opened_doors: list[dict] = []
        while pending:
            steps = self._reach(starts, connections, opened)
            ready = [d for d in pending if d["areas"][0] in steps or d["areas"][1] in steps]
            if not ready:
                break
            # coloured locks first: their key then opens the skeleton locks too
            locked = min(
                ready,
                key=lambda d: (
                    d["lock"] == "skeleton",
                    min(steps.get(a, 1 << 30) for a in d["areas"]),
                    d["door"].index,
                ),
            )
            pending.remove(locked)
            door, lock = locked["door"], locked["lock"]
            door_id = f"door-{door.index}"
            if lock == "skeleton" and colours_held:
                self.note(
                    door.source,
                    f"{door.label}: a door with a skeleton lock (any key opens it); the key already reachable opens it",
                )
            elif lock != "skeleton" and lock in colours_held:
                self.note(
                    door.source, f"{door.label}: a door with a {lock} lock; the {lock} key already reachable opens it"
                )
            else:
                kind = "skeleton_key" if lock == "skeleton" else "key"
                spot = self._key_spot(steps, kind)
                if spot is None:
                    self.note(
                        door.source,
                        f"{door.label}: no reachable room has space for its key; imported as an open passage",
                    )
                    connections = [c if c.door_id != door_id else type(c)(c.a, c.b, "open") for c in connections]
                    continue
                area_id, at, size = spot
                number = sum(1 for e in self.elements if e["kind"] == kind) + 1
                element = {
                    "kind": kind,
                    "id": f"{'key-' + lock if kind == 'key' else 'skeleton-key'}-{number}",
                    "at": at,
                    "size_mm": size,
                    "area": area_id,
                }
                if kind == "key":
                    element["colour"] = lock
                self.elements.append(element)
                self.obstacles.add(Point(at).buffer(self.mm(size / 2)))
                colours_held.add(lock if kind == "key" else "any")
                what = f"a {lock} key" if kind == "key" else "a skeleton key"
                lock_text = "a skeleton lock (any key opens it)" if lock == "skeleton" else f"a {lock} lock"
                self.note(
                    door.source,
                    f"{door.label}: a door with {lock_text}; {what} was placed in '{area_id}', "
                    f"reachable without this door",
                )
            if lock == "skeleton":
                colours_held.add("any")
            opened.add(door_id)
            self.elements.append(
                {
                    "kind": "door",
                    "id": door_id,
                    "segment": tuple(locked["segment"].coords),
                    "locks": [lock],
                    "name": door.label.capitalize(),
                }
            )
        for locked in pending:
            door = locked["door"]
            self.note(door.source, f"{door.label}: no Start reaches it; imported as an open passage")
            door_id = f"door-{door.index}"
            connections = [c if c.door_id != door_id else type(c)(c.a, c.b, "open") for c in connections]
            opened.add(door_id)
        self.final_reach = self._reach(starts, connections, opened)

    def _key_spot(self, steps: dict[str, int], kind: str):
        mentions: set[str] = set()
        for note in self.source.notes:
            if re.search(r"\bkeys?\b", note.text, re.IGNORECASE):
                mentions.update(a.id for a in self.space.containing((note.x, note.y)))
        order = {a.id: i for i, a in enumerate(self.areas)}
        holding = {e.get("area") for e in self.elements if e["kind"] in ("key", "skeleton_key")}
        candidates = sorted(
            (a for a in self.areas if a.id in steps),
            key=lambda a: (a.role != "room", a.id in holding, a.id not in mentions, -steps[a.id], order[a.id]),
        )
        # clear of the planned labels if possible, else the labels make way
        for obstacles in (self.obstacles + self.label_plan, self.obstacles):
            for size in (6.0, 4.5, self.min_element_mm):
                for area in candidates:
                    if (area.id, size, len(obstacles.items) == len(self.obstacles.items)) in self.no_room:
                        continue
                    spot = _free_spot(area.polygon, self.mm(size / 2), self.mm(WALL_CLEARANCE_MM), obstacles)
                    if spot is not None:
                        return area.id, spot, size
                    # obstacles only ever grow: no room now means no room later
                    self.no_room.add((area.id, size, len(obstacles.items) == len(self.obstacles.items)))
        return None
