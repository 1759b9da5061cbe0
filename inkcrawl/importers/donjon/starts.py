"""Starts and exits: stairs and egress, Starts on outer walls (merged when they would overlap),
exits on stairs down, the areas the Starts reach, and the parts they do not."""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from inkcrawl.importers import MAX_STARTS, ImportFailed
from inkcrawl.importers.build import default_size_mm
from inkcrawl.importers.donjon.areas import _Areas
from inkcrawl.importers.donjon.cells import (
    _NEIGHBOURS,
    _OPPOSITE,
    MAX_SIDE,
    MIN_ELEMENT_MM,
    MIN_TEXT_MM,
    _edge,
    _int,
    _ring_cells,
    _shift,
)

#: Most cells walked from one stairs to find the outer wall nearest along the dungeon, and from
#: all of them together (a hostile file of thousands of stairs far inside); past that, the
#: nearest outer wall as the crow flies.
MAX_WALK = 5000
MAX_WALKED = 200_000


class _Starts(_Areas):
    """The Starts and exits step of a conversion."""

    # --- starts and exits --------------------------------------------------------------------
    def stairs(self) -> dict[str, list]:
        """Stair cells by direction (``up``/``down``): the cell bits, plus ``stairs`` entries
        whose cell lacks the bit."""
        found: dict[str, list[tuple[int, int]]] = {"up": [], "down": []}
        for r, c in sorted(self.area_of):
            value = self.grid.values[r][c]
            if self.flag(value, "stair_up"):
                found["up"].append((r, c))
            if self.flag(value, "stair_down"):
                found["down"].append((r, c))
        listed = self.data.get("stairs")
        if listed is None:
            return found
        if not isinstance(listed, list):
            self.note("stairs", "not a list; the stairs are read from the cells only")
            return found
        for index, stair in enumerate(listed[:1000]):
            if not isinstance(stair, dict):
                self.note(f"stairs {index}", "not an object; ignored")
                continue
            row, col = _int(stair.get("row")), _int(stair.get("col"))
            key = str(stair.get("key", "")).lower()
            direction = {
                "up": "up",
                "u": "up",
                "stair_up": "up",
                "down": "down",
                "d": "down",
                "stair_down": "down",
            }.get(key)
            if row is None or col is None or direction is None:
                self.note(f"stairs {index}", "has no row, col and key up/down; ignored")
                continue
            cell = (row + self.grid.off_r, col + self.grid.off_c)
            if cell in found[direction]:
                continue
            if cell not in self.area_of:
                self.note(f"stairs {index} at ({row}, {col})", f"{direction} stairs on a rock cell; ignored")
                continue
            self.note(
                f"stairs {index} at ({row}, {col})",
                f"the cell has no stair_{direction} bit; the stairs are imported from the list",
            )
            found[direction].append(cell)
        return found

    def make_starts(self) -> None:
        self.obstacles: list[tuple[float, float, float]] = []  # x, y, radius in cells
        self.start_areas: list[str] = []
        size = max(MIN_ELEMENT_MM, min(default_size_mm("start"), 1.2 * self.scale))
        self.stair_cells = self.stairs()
        # (cell, what it comes from, why it is placed there, the side to use)
        starts: list[tuple[tuple[int, int], str, str | None, str | None]] = []
        for cell in self.stair_cells["up"]:
            starts.append((cell, f"{self.grid.name(*cell)} stairs up", None, None))
        starts += self.egress_starts()
        if not starts:
            first = min(self.room_areas) if self.room_areas else None
            area = self.room_areas[first][0] if first is not None else next(iter(self.area_cells))
            where = f"room {first}" if first is not None else f"'{area}'"
            cells = self.area_cells[area]
            cy = sum(r for r, _ in cells) / len(cells)
            cx = sum(c for _, c in cells) / len(cells)
            cell = min(cells, key=lambda rc: ((rc[0] - cy) ** 2 + (rc[1] - cx) ** 2, rc))
            starts.append(
                (
                    cell,
                    "the dungeon",
                    f"has no stairs up and no egress; a Start is placed on the outer wall nearest {where}",
                    None,
                )
            )
        placed: dict = {}
        radius = size / 2 / self.scale
        self.start_radius = radius
        self.labels_at = np.array(self.label_spots(), dtype=float).reshape(-1, 3)
        buckets: dict[tuple[int, int], list] = {}  # placed Starts by square of side 2 x radius
        for cell, source, why, side in starts:
            spot = self.outer_spot(cell, source, why, side) if len(placed) < MAX_STARTS else ((math.nan, 0.0), "")
            if spot is None:
                continue
            (x, y), area = spot
            if len(placed) >= MAX_STARTS:  # no need to look for its place (a walk through the dungeon)
                self.cell_note(
                    "Starts past the most an import places",
                    source,
                    f"the dungeon has {MAX_STARTS} Starts already, the most an import places; no Start placed for it",
                    "stairs or egress",
                )
                continue
            bx, by = math.floor(x / (2 * radius)), math.floor(y / (2 * radius))
            near = min(
                (
                    item
                    for dx in (-1, 0, 1)
                    for dy in (-1, 0, 1)
                    for item in buckets.get((bx + dx, by + dy), ())
                    if math.hypot(x - item[1], y - item[2]) < 2 * radius
                ),
                default=None,
            )
            if near is not None:  # the first Start placed that this one would overlap
                if (x, y) not in placed:
                    self.cell_note(
                        "Starts merged with one nearby",
                        source,
                        f"its Start would overlap '{near[3]}'; that Start serves both",
                        "stairs or egress",
                    )
                continue
            placed[(x, y)] = f"start-{len(placed) + 1}"
            buckets.setdefault((bx, by), []).append((len(placed), x, y, placed[(x, y)]))
            self.builder.add_element("start", (x, y), placed[(x, y)], size_mm=round(size, 2))
            self.obstacles.append((x, y, size / 2 / self.scale))
            self.start_areas.append(area)

    def egress_starts(self) -> list:
        egress = self.data.get("egress")
        if egress is None:
            return []
        if not isinstance(egress, list):
            self.note("egress", "not a list; ignored")
            return []
        found = []
        steps = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
        for index, item in enumerate(egress[:1000]):
            if not isinstance(item, dict):
                self.note(f"egress {index}", "not an object; ignored")
                continue
            row, col = _int(item.get("row")), _int(item.get("col"))
            side = str(item.get("dir", "")).lower()
            direction = steps.get(side)
            if row is None or col is None:
                self.note(f"egress {index}", "has no row and col; ignored")
                continue
            cell = (row + self.grid.off_r, col + self.grid.off_c)
            if cell not in self.area_of:
                self.note(f"egress {index} at ({row}, {col})", "lies on a rock cell; ignored")
                continue
            if direction is not None:  # follow the way out to its end at the edge of the map
                for _ in range(MAX_SIDE):
                    ahead = (cell[0] + direction[0], cell[1] + direction[1])
                    if ahead not in self.area_of or self.area_of[ahead] != self.area_of[cell]:
                        break
                    cell = ahead
            found.append((cell, f"egress {index} at ({row}, {col})", None, side))
        return found

    def outer_spot(self, cell, source: str, why: str | None, side: str | None = None):
        """Where the Start for ``cell`` goes: the middle of an outer edge of the cell (``side``
        if given, else the side facing away from a dead end's only way on, else the first of
        north, east, south, west), else of the outer edge of its area nearest along the area from
        the cell, else of the one nearest along open passages, else of the dungeon; never where
        it would cover a label (a room number) when another edge is free. Returns ``((x, y),
        area)``."""
        area = self.area_of[cell]
        own = {s: p for s, p in (self.outer_edges.get(cell) or {}).items() if self.clear_of_labels(p)}
        if own:
            if side not in own:
                ways = [s for dr, dc, s in _NEIGHBOURS if (cell[0] + dr, cell[1] + dc) in self.area_of]
                side = _OPPOSITE.get(ways[0]) if len(ways) == 1 else None
            if why:
                self.note(source, why)
            return own.get(side) or next(iter(own.values())), area
        where = f"its {self.area_kind[area]} '{area}'"
        found = self.walk_to_outer(cell, same_area=True)
        if found is None:
            found = self.walk_to_outer(cell, same_area=False)
            if found is not None:
                other = self.area_of[self.cell_behind(found)]
                where = (
                    f"the dungeon, reached from {where} (which has no free outer wall) through open passages, "
                    f"in {self.area_kind[other]} '{other}'"
                )
        if found is None:
            found = self.nearest_outer(cell, area)
            if found is None:
                self.note(source, "the dungeon has no outer wall to put a Start on; no Start placed")
                return None
            where = "the dungeon"
        x, y = found
        area = self.area_of[self.cell_behind((x, y))]
        if why:
            self.note(source, why)
        else:
            self.cell_note(
                "stairs or egress inside the dungeon, their Start on the nearest outer edge",
                source,
                f"lies inside the dungeon, and a Start goes on an outer wall: the Start is on the "
                f"nearest outer edge of {where}",
                "stairs or egress",
            )
        return (x, y), area

    def label_runs(self) -> list[tuple[int, int, int, str]]:
        """The label characters of the cells as runs ``(row, first column, end column, text)``
        (computed once; the Starts keep clear of them before the labels are added)."""
        cached = self.__dict__.get("_label_runs")
        if cached is not None:
            return cached
        runs: list = []
        self._label_runs = runs
        mask, shift = self.bits["label"], _shift(self.bits["label"])
        if not mask:
            return runs
        grid = self.grid
        for r, row in enumerate(grid.values):
            for c, value in enumerate(row):
                code = (value & mask) >> shift
                if not code:
                    continue
                if not 32 < code < 127:
                    self.cell_note(
                        "label characters that are not printable",
                        grid.name(r, c),
                        f"label character code {code} is not a printable ASCII character; not printed",
                    )
                    continue
                last = runs[-1] if runs else None
                if last and last[0] == r and last[2] == c and self.area_of.get((r, c)) == self.area_of.get((r, c - 1)):
                    last[2] = c + 1
                    last[3] += chr(code)
                else:
                    runs.append([r, c, c + 1, chr(code)])
        return runs

    def label_height(self) -> float:
        return max(MIN_TEXT_MM, min(3.0, 0.55 * self.scale))

    def label_spots(self) -> list[tuple[float, float, float]]:
        """Where each label is printed: ``(x, y, radius)`` in cells, the circle around its text."""
        height = self.label_height()
        spots = []
        for r, c0, c1, text in self.label_runs():
            width = 0.62 * height * len(text) / self.scale
            spots.append(((c0 + c1) / 2, r + 0.5, max(width, height / self.scale) / 2 + 0.1))
        return spots

    def clear_of_labels(self, point) -> bool:
        """Whether a Start at ``point`` (cells) keeps clear of every label (room numbers...)."""
        spots = self.__dict__.get("labels_at")
        if spots is None or not len(spots):
            return True
        gaps = np.hypot(spots[:, 0] - point[0], spots[:, 1] - point[1]) - spots[:, 2]
        return bool(gaps.min() >= self.start_radius)

    def walk_to_outer(self, cell, same_area: bool):
        """The middle of the free outer edge nearest to ``cell`` by walking: through its own area
        (``same_area``), or through any area without passing a door; among the cells first
        reached that have one, the edge nearest the cell's centre (then topmost, leftmost).
        ``None`` when there is none within :data:`MAX_WALK` cells."""
        area = self.area_of[cell]
        seen = {cell}
        layer = [cell]
        cy, cx = cell[0] + 0.5, cell[1] + 0.5
        budget = self.__dict__.setdefault("_walk_budget", [MAX_WALKED])
        while layer and len(seen) <= MAX_WALK and budget[0] > 0:
            budget[0] -= len(layer)
            points = [
                p for here in layer for p in (self.outer_edges.get(here) or {}).values() if self.clear_of_labels(p)
            ]
            if points:
                return min(points, key=lambda p: (round((p[0] - cx) ** 2 + (p[1] - cy) ** 2, 9), p[1], p[0]))
            following = []
            for r, c in layer:
                for dr, dc, _ in _NEIGHBOURS:
                    ahead = (r + dr, c + dc)
                    other = self.area_of.get(ahead)
                    if ahead in seen or other is None or (same_area and other != area):
                        continue
                    if frozenset(((r, c), ahead)) in self.closed_edges:
                        continue
                    seen.add(ahead)
                    following.append(ahead)
            layer = following
        return None

    def nearest_outer(self, cell, area):
        """The middle of the outer edge nearest to ``cell`` as the crow flies: of its area, else
        of the dungeon; ``None`` when the dungeon has no outer wall."""
        cy, cx = cell[0] + 0.5, cell[1] + 0.5
        by_area = self.__dict__.setdefault("_outer_by_area", {})
        if not by_area:
            grouped: dict = {None: []}
            for c, points in self.outer_edges.items():
                for p in points.values():
                    grouped.setdefault(self.area_of[c], []).append(p)
                    grouped[None].append(p)
            by_area.update({key: np.array(points, dtype=float).reshape(-1, 2) for key, points in grouped.items()})
        edges = by_area.get(area)
        if edges is None or not len(edges):
            edges = by_area[None]
        if not len(edges):
            return None
        # nearest to the cell's centre; ties to the topmost, then leftmost
        distance = np.round((edges[:, 0] - cx) ** 2 + (edges[:, 1] - cy) ** 2, 9)
        order = np.lexsort((edges[:, 0], edges[:, 1], distance))
        return float(edges[order[0], 0]), float(edges[order[0], 1])

    def find_outer_edges(self) -> dict:
        """For each dungeon cell with an outer wall, the middles of its edges that face rock
        outside the dungeon, by side."""
        found: dict = {}
        for r, c in sorted(self.area_of):
            for dr, dc, side in _NEIGHBOURS:
                if (r + dr, c + dc) in self.outer:
                    (x1, y1), (x2, y2) = _edge(r, c, side)
                    found.setdefault((r, c), {})[side] = ((x1 + x2) / 2, (y1 + y2) / 2)
        return found

    def cell_behind(self, point) -> tuple[int, int]:
        """The dungeon cell with an outer edge whose middle is ``point``."""
        x, y = point
        fx, fy = math.floor(x), math.floor(y)
        for cell in ((fy, fx), (fy - 1, fx), (fy, fx - 1)):
            if point in self.outer_edges.get(cell, {}).values():
                return cell
        raise ImportFailed("internal error: a Start is on no cell's outer edge")

    def clearance(self, cell) -> float:
        """How far the centre of ``cell`` is from its area's outline, in cells (at most 1.5)."""
        area = self.area_of[cell]
        ring = [self.area_of.get(n) == area for n in _ring_cells(cell)]
        if not all(ring[0::2]):
            return 0.5
        return 1.5 if all(ring) else math.sqrt(0.5)

    def report_unreachable(self) -> None:
        """One note for each part of the dungeon that no Start reaches, even through doors."""
        if not self.start_areas:
            return
        reached = self.reachable(through_doors=True)
        left = [cell for cell in sorted(self.area_of) if self.area_of[cell] not in reached]
        seen_areas: set = set()
        for cell in left:
            area = self.area_of[cell]
            if area in seen_areas:
                continue
            group = set()
            queue = deque([area])
            while queue:  # the areas joined to this one
                current = queue.popleft()
                if current in group:
                    continue
                group.add(current)
                for r, c in self.area_cells[current]:
                    for dr, dc, _ in _NEIGHBOURS:
                        other = self.area_of.get((r + dr, c + dc))
                        if other is not None and other not in group:
                            queue.append(other)
            seen_areas |= group
            names = sorted(group)
            listed = ", ".join(f"'{a}'" for a in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            self.cell_note(
                "parts of the dungeon no Start reaches",
                f"cells from {self.grid.name(*cell)}",
                f"not connected to any stairs up or egress: {listed} cannot be reached from a Start",
                "parts",
            )

    def make_exits(self) -> None:
        down = self.stair_cells["down"]
        placed = np.zeros((len(self.obstacles) + len(down), 3))  # Starts, then the exits so far
        placed[: len(self.obstacles)] = np.array(self.obstacles, dtype=float).reshape(-1, 3)
        count = len(self.obstacles)
        for number, cell in enumerate(down, 1):
            r, c = cell
            centre = (c + 0.5, r + 0.5)
            others = placed[:count]
            gaps = np.hypot(others[:, 0] - centre[0], others[:, 1] - centre[1]) - others[:, 2]
            room = min(self.clearance(cell), float(gaps.min()) if count else math.inf)
            size = max(MIN_ELEMENT_MM, min(default_size_mm("exit"), 2 * 0.9 * room * self.scale))
            if size / 2 / self.scale > room:
                self.note(
                    f"{self.grid.name(r, c)} stairs down", "no room for its exit: it overlaps a Start or another exit"
                )
            self.builder.add_element("exit", centre, f"exit-{number}", size_mm=round(size, 2))
            self.obstacles.append((centre[0], centre[1], size / 2 / self.scale))
            placed[count] = self.obstacles[-1]
            count += 1

    def reachable(self, through_doors: bool = False) -> set[str]:
        """Areas reachable from the Starts through open passages (no door passed), or through
        doors too (every key is placed where it can be reached without passing a door)."""
        return self.reach_order(through_doors)[1]

    def reach_order(self, through_doors: bool) -> tuple[list[str], set[str]]:
        """The areas reachable from the Starts, breadth-first, and as a set (computed once)."""
        cache = self.__dict__.setdefault("_reach", {})
        if through_doors in cache:
            return cache[through_doors]
        links: dict[str, set] = {area: set() for area in self.area_cells}
        for (r, c), area in self.area_of.items():
            for dr, dc in ((0, 1), (1, 0)):
                other = self.area_of.get((r + dr, c + dc))
                if (
                    other is not None
                    and other != area
                    and (through_doors or frozenset(((r, c), (r + dr, c + dc))) not in self.closed_edges)
                ):
                    links[area].add(other)
                    links[other].add(area)
        seen = set(self.start_areas)
        queue = deque(sorted(seen))
        order = []
        while queue:
            area = queue.popleft()
            order.append(area)
            for other in sorted(links[area]):
                if other not in seen:
                    seen.add(other)
                    queue.append(other)
        cache[through_doors] = (order, seen)
        return cache[through_doors]
