"""The last steps and the whole run: label characters as labels, a key for each lock colour,
the parts of the file that are not mapped, and :meth:`_Conversion.run`."""

from __future__ import annotations

import numpy as np
import shapely

from inkcrawl.geoarrays import point_array
from inkcrawl.importers import ImportResult
from inkcrawl.importers.build import default_size_mm
from inkcrawl.importers.donjon.cells import (
    DEFAULT_CELL_MM,
    MAX_KEY_AREAS,
    MIN_ELEMENT_MM,
    _int,
    _spots,
    _text,
)
from inkcrawl.importers.donjon.starts import _Starts


class _Conversion(_Starts):
    def run(self) -> ImportResult:
        self.bits = self.read_bits()
        self.grid = self.read_cells()
        self.classify()
        self.make_areas()
        self.scale = self.placed_scale()
        self.outer = self.exterior_void()
        self.outer_edges = self.find_outer_edges()
        self.make_doors()
        self.make_starts()
        self.report_unreachable()
        self.make_exits()
        self.make_labels()
        self.place_keys()
        self.report_unmapped()
        self.flush_cell_notes()
        dungeon = self.builder.build(self.options.cell_mm, DEFAULT_CELL_MM)
        return ImportResult(dungeon, list(self.builder.notes))

    # --- labels -------------------------------------------------------------------------------
    def make_labels(self) -> None:
        height = self.label_height()
        grid = self.grid
        for (r, c0, c1, text), spot in zip(self.label_runs(), self.label_spots()):
            x, y = (c0 + c1) / 2, r + 0.5 + 0.5 * height / self.scale
            self.builder.add_label(
                text, (x, y), f"label-{r - grid.off_r}-{c0 - grid.off_c}", text_height_mm=round(height, 2)
            )
            self.obstacles.append(spot)

    # --- keys ---------------------------------------------------------------------------------
    def place_keys(self) -> None:
        if not self.locks_needed:
            return
        order = self.reach_order(False)[0]
        candidates = sorted(order, key=lambda a: self.area_kind[a] != "room")  # rooms first, nearest first
        if not candidates:
            candidates = sorted(self.area_cells, key=lambda a: (self.area_kind[a] != "room", a))
        colours = [c for c in ("red", "green") if c in self.locks_needed]
        if "skeleton" in self.locks_needed and not colours:
            colours = ["red"]  # a skeleton lock takes any key: give the players one
        for colour in colours:
            self._obstacle_array = np.array(self.obstacles, dtype=float).reshape(-1, 3)
            spot = None
            for area in candidates[:MAX_KEY_AREAS]:
                spot = self.free_spot(area)
                if spot:
                    break
            if spot is None:
                for door in self.locks_needed.get(colour, []) + self.locks_needed.get("skeleton", []):
                    self.note(
                        f"{door[0]} {door[1]}", f"no room has space for its {colour} key; the door can never be opened"
                    )
                continue
            (x, y), size, area = spot
            self.builder.add_element("key", (x, y), f"key-{colour}", size_mm=round(size, 2), colour=colour)
            self.obstacles.append((x, y, size / 2 / self.scale))
            where = f"{self.area_kind[area]} '{area}'"
            behind = "" if area in self.reachable() else " (no room is reachable from a Start without a door)"
            for source, label, door_id, _room in self.locks_needed.get(colour, []):
                self.note(
                    f"{source} {label}",
                    f"door '{door_id}' with a {colour} lock; its {colour} key is placed in {where}{behind}",
                )
            if colour == colours[0]:
                for source, label, door_id, _room in self.locks_needed.get("skeleton", []):
                    self.note(
                        f"{source} {label}",
                        f"door '{door_id}' with a skeleton lock (any key opens it; a "
                        f"printed door cannot be hidden); the {colour} key is placed in "
                        f"{where}{behind}",
                    )

    def free_spot(self, area: str):
        """A spot for a key in ``area``: ``((x, y), size_mm, area)`` clear of the outline and of
        everything placed, the biggest size first; ``None`` when nothing fits."""
        polygon = self.polygons[area]
        x0, y0, x1, y1 = polygon.bounds
        if min(x1 - x0, y1 - y0) < MIN_ELEMENT_MM / self.scale + 0.04:
            return None  # not even the smallest key fits across it
        spots = np.array(_spots(self.area_cells[area]), dtype=float)
        inside = shapely.contains_xy(polygon, spots[:, 0], spots[:, 1])
        spots = spots[inside]
        if not len(spots):
            return None
        clearance = shapely.distance(polygon.exterior, point_array(spots))
        others = self._obstacle_array
        if len(others):  # only those near the area matter
            x0, y0, x1, y1 = polygon.bounds
            near = (
                (others[:, 0] + others[:, 2] > x0 - 1)
                & (others[:, 0] - others[:, 2] < x1 + 1)
                & (others[:, 1] + others[:, 2] > y0 - 1)
                & (others[:, 1] - others[:, 2] < y1 + 1)
            )
            others = others[near]
        if len(others):
            # distance from each spot to the nearest obstacle's edge
            reach = np.full(len(spots), np.inf)
            for start in range(0, len(others), 256):
                chunk = others[start : start + 256]
                gaps = (
                    np.hypot(spots[:, None, 0] - chunk[None, :, 0], spots[:, None, 1] - chunk[None, :, 1])
                    - chunk[None, :, 2]
                )
                reach = np.minimum(reach, gaps.min(axis=1))
        else:
            reach = np.full(len(spots), 10.0)
        wanted = default_size_mm("key")
        for size in (wanted, min(wanted, 0.8 * self.scale), MIN_ELEMENT_MM):
            radius = size / 2 / self.scale
            gap = reach - radius
            fits = (clearance >= radius + 0.02) & (gap >= 0.15)
            if not fits.any():
                continue
            # clear of the others first, then central; ties go to the first spot (top-left)
            score = np.round(np.minimum(gap, 0.6), 6) * 1000 + np.round(clearance, 6)
            score[~fits] = -np.inf
            best = int(np.argmax(score))
            return (float(spots[best, 0]), float(spots[best, 1])), size, area
        return None

    # --- what is not mapped ---------------------------------------------------------------------
    def report_unmapped(self) -> None:
        rooms = self.data.get("rooms")
        listed = set()
        if isinstance(rooms, dict):
            rooms = list(rooms.values())
        if rooms is not None and not isinstance(rooms, list):
            self.note("rooms", "not a list of rooms; ignored (the rooms come from the cells)")
            rooms = []
        for index, room in enumerate(rooms or []):
            if room is None:
                if index:
                    self.note(f"rooms {index}", "null; ignored")
                continue
            if not isinstance(room, dict):
                self.note(f"rooms {index}", "not an object; ignored")
                continue
            room_id = _int(room.get("id"))
            if room_id is None:
                self.note(f"rooms {index}", "has no room id; ignored")
                continue
            listed.add(room_id)
            if room_id not in self.room_areas:
                self.note(f"room {room_id}", "listed in 'rooms' but no cell carries its id; not imported")
                continue
            contents = room.get("contents")
            summary = contents.get("summary") if isinstance(contents, dict) else contents
            text = str(summary).strip() if isinstance(summary, (str, int, float)) else ""
            if text and text.lower() != "empty":
                self.note(f"room {room_id}", f"its contents are not mapped: {_text(summary)}")
        if rooms:
            for room_id in sorted(set(self.room_areas) - listed - {0}):
                self.note(f"room {room_id}", "has cells but is not listed in 'rooms'; imported from the cells")
        features = self.data.get("corridor_features")
        if isinstance(features, dict):
            features = list(features.values())
        if isinstance(features, list):
            for index, feature in enumerate(features[:1000]):
                if isinstance(feature, dict):
                    key = _text(feature.get("key", index), 10)
                    summary = feature.get("summary") or feature.get("detail") or "a feature"
                    self.note(
                        f"corridor feature {key}",
                        f"not mapped: {_text(summary)} (its letter is printed as a label when the cells carry it)",
                    )
                else:
                    self.note(f"corridor feature {index}", "not mapped")
        monsters = self.data.get("wandering_monsters")
        if monsters:
            count = len(monsters) if isinstance(monsters, (dict, list)) else 1
            self.note(
                "wandering_monsters", f"{count} wandering monster entr{'y is' if count == 1 else 'ies are'} not mapped"
            )
        details = self.data.get("details")
        if isinstance(details, dict) and any(details.values()):
            parts = ", ".join(sorted(str(k) for k, v in details.items() if v))
            self.note("details", f"the dungeon's description ({_text(parts, 200)}) is not mapped")
