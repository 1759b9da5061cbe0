"""Cells into areas: rooms by room id and corridors (each split into simply connected
pieces), the scale, the rock outside the dungeon, and the doors on room walls."""

from __future__ import annotations

from collections import deque

import shapely
from shapely.geometry import Polygon

from inkcrawl.importers import ImportFailed
from inkcrawl.importers.build import DRAWING_BAND_MM
from inkcrawl.importers.donjon.cells import (
    _NEIGHBOURS,
    DEFAULT_CELL_MM,
    DOOR_KINDS,
    LOCK_OF_KIND,
    MIN_ELEMENT_MM,
    _components,
    _edge,
    _row_runs,
    _shift,
    _simple_pieces,
)
from inkcrawl.importers.donjon.reading import _Reading


class _Areas(_Reading):
    """The areas and doors step of a conversion."""

    # --- cells into areas ---------------------------------------------------------------------
    def flag(self, value: int, name: str) -> bool:
        return bool(value & self.bits[name])

    def classify(self) -> None:
        """Room cells by room id, open (corridor, door, stair) cells, door cells."""
        grid = self.grid
        door_mask = 0
        for kind in (*DOOR_KINDS, "trapped"):
            door_mask |= self.bits[kind]
        id_mask, id_shift = self.bits["room_id"], _shift(self.bits["room_id"])
        stair_mask = self.bits["stair_down"] | self.bits["stair_up"]
        self.room_cells: dict[int, set] = {}
        self.open_cells: set = set()
        self.door_cells: dict = {}
        off_map = 0
        for r, row in enumerate(grid.values):
            for c, value in enumerate(row):
                if value & (self.bits["room"] | self.bits["corridor"] | door_mask | stair_mask) and not self.on_the_map(
                    r, c
                ):
                    off_map += 1  # a corridor leaving the map (egress) runs on into the padding
                    continue
                if self.flag(value, "room"):
                    room_id = (value & id_mask) >> id_shift
                    self.room_cells.setdefault(room_id, set()).add((r, c))
                    if value & door_mask:
                        self.cell_note(
                            "door bits on room cells", grid.name(r, c), "door bits on a room cell: read as room floor"
                        )
                elif value & (self.bits["corridor"] | door_mask | stair_mask):
                    self.open_cells.add((r, c))
                    if value & door_mask:
                        self.door_cells[(r, c)] = value
        if off_map:
            self.note(
                "settings bleed",
                f"{off_map} open cell(s) lie in the bleed padding around the map (corridors leaving it: egress); "
                f"off the map, so not imported: those corridors end at the map's edge, where their Starts go",
            )
        if 0 in self.room_cells:
            self.note("room 0", f"{len(self.room_cells[0])} room cells carry no room id; imported as one room 'room-0'")
        if not self.room_cells and not self.open_cells:
            raise ImportFailed("no cell is a room or a corridor: there is no dungeon in this file")

    def make_areas(self) -> None:
        self.area_of: dict = {}
        self.area_cells: dict[str, list] = {}
        self.area_kind: dict[str, str] = {}
        self.room_areas: dict[int, list[str]] = {}
        self.polygons: dict[str, Polygon] = {}
        for room_id in sorted(self.room_cells):
            components = _components(self.room_cells[room_id])
            if len(components) > 1:
                self.note(f"room {room_id}", f"its cells form {len(components)} separate parts; each is a room")
            pieces = []
            for component in components:
                parts = _simple_pieces(component)
                if len(parts) > 1:
                    self.note(
                        f"room {room_id}",
                        f"its cells enclose rock; split into {len(parts)} rooms so that no room has a hole",
                    )
                pieces += parts
            for number, piece in enumerate(pieces, 1):
                wanted = f"room-{room_id}" if len(pieces) == 1 else f"room-{room_id}-{number}"
                area_id = self.add_area("room", piece, wanted)
                self.room_areas.setdefault(room_id, []).append(area_id)
        number = 0
        for component in _components(self.open_cells):
            for piece in _simple_pieces(component):
                number += 1
                self.add_area("corridor", piece, f"corridor-{number}")

    def add_area(self, kind: str, cells: list, wanted: str) -> str:
        runs = _row_runs(cells)  # whole runs of a row, far fewer boxes than cells
        polygon = shapely.union_all(shapely.box(runs[:, 1], runs[:, 0], runs[:, 2], runs[:, 0] + 1))
        polygon = shapely.simplify(polygon, 0)
        if not isinstance(polygon, Polygon) or len(polygon.interiors):  # cannot happen: pieces are simple
            raise ImportFailed(f"internal error: the cells of {wanted} do not form a simple polygon")
        points = [(float(x), float(y)) for x, y in polygon.exterior.coords[:-1]]
        area_id = self.builder.add_area(kind, points, None, wanted)
        self.polygons[area_id] = polygon
        for cell in cells:
            self.area_of[cell] = area_id
        self.area_cells[area_id] = sorted(cells)
        self.area_kind[area_id] = kind
        return area_id

    def placed_scale(self) -> float:
        """The mm per cell :meth:`LineDungeonBuilder.build` will use (the same fit rule)."""
        xs = [c for r, c in self.area_of] + [c + 1 for r, c in self.area_of]
        ys = [r for r, c in self.area_of] + [r + 1 for r, c in self.area_of]
        width, height = max(xs) - min(xs), max(ys) - min(ys)
        x0, y0, x1, y1 = DRAWING_BAND_MM
        fit = min((x1 - x0) / width, (y1 - y0) / height)
        wanted = self.options.cell_mm if self.options.cell_mm is not None else DEFAULT_CELL_MM
        scale = min(wanted, fit)
        if scale * 0.9 < MIN_ELEMENT_MM:
            self.note(
                "the whole map",
                f"a cell prints {scale:.2f} mm wide: doors, keys and exits may be too small "
                f"to print or may not fit their cells; use a smaller dungeon",
            )
        return scale

    def exterior_void(self) -> set:
        """The rock cells (with a ring around the grid) connected to the outside: a cell edge
        facing one of them is an outer wall, where Starts go."""
        rows, cols = self.grid.rows, self.grid.cols
        seen = set()
        queue = deque([(-1, -1)])
        seen.add((-1, -1))
        while queue:
            r, c = queue.popleft()
            for dr, dc, _ in _NEIGHBOURS:
                cell = (r + dr, c + dc)
                if cell in seen or not (-1 <= cell[0] <= rows and -1 <= cell[1] <= cols) or cell in self.area_of:
                    continue
                seen.add(cell)
                queue.append(cell)
        return seen

    # --- doors ----------------------------------------------------------------------------------
    def make_doors(self) -> None:
        self.locks_needed: dict[str, list[tuple]] = {}  # colour -> (source, label, door id, room)
        self.closed_edges: set = set()
        grid = self.grid
        for (r, c), value in sorted(self.door_cells.items()):
            source = grid.name(r, c)
            kinds = [kind for kind in DOOR_KINDS if self.flag(value, kind)]
            trapped = self.flag(value, "trapped")
            kind = kinds[0] if kinds else "door"
            label = "trapped door" if not kinds else f"{kind} door" if kind != "door" else "door"
            if len(kinds) > 1:
                self.note(f"{source} {label}", f"carries several door kinds ({', '.join(kinds)}); read as {kind}")
            if trapped:
                self.note(f"{source} {label}", "the door's trap is not represented on the sheet")
            if kind not in LOCK_OF_KIND:
                continue  # arches and plain doors are open passages
            rooms = []
            for dr, dc, side in _NEIGHBOURS:
                neighbour = (r + dr, c + dc)
                if neighbour in self.area_of and self.area_kind[self.area_of[neighbour]] == "room":
                    rooms.append((side, neighbour))
            if not rooms:
                self.note(
                    f"{source} {label}",
                    "no room is next to it, so it cannot become a door on a room's wall; left as an open passage",
                )
                continue
            side, neighbour = rooms[0]
            segment = _edge(r, c, side)
            colour = LOCK_OF_KIND[kind]
            room = self.area_of[neighbour]
            door_id = self.builder.add_door(segment, [colour], f"door-{r - grid.off_r}-{c - grid.off_c}")
            self.closed_edges.add(frozenset(((r, c), neighbour)))
            self.locks_needed.setdefault(colour, []).append((source, label, door_id, room))
