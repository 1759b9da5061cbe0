"""IntGrid layers into floors: what each IntGrid value means (a wall, a room's floor, a
corridor's floor, or nothing), the layers drawn onto one grid, the floor cells found, and the
floor cut into areas (one polygon per simply connected piece of floor).

A value's meaning comes from the ``--map`` file's ``intgrid`` member, else from its identifier
(:data:`ROLE_NAMES`: ``walls`` is a wall, ``floor`` a room...), else, for a value without an
identifier, from its layer's identifier (a layer ``Walls`` of one unnamed value). Any other value
is named in a note and ignored. Coordinates are level pixels, y down."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

from inkcrawl.importers import MAX_AREAS, ImportFailed, MappingFailed, did_you_mean, json_kind, too_many
from inkcrawl.importers.donjon.cells import _components, _row_runs, _simple_pieces
from inkcrawl.importers.tiled.mapping import _normal

#: What an IntGrid value can mean, and the cell codes of the combined grid (a higher code wins
#: where layers overlap: a wall in any layer is a wall).
EMPTY, ROOM, CORRIDOR, WALL = 0, 1, 2, 3
#: The cells of a doorway (floor under a door entity: :func:`cut_doorway`), set after the floor.
DOORWAY = 4
ROLES = {"room": ROOM, "floor": ROOM, "corridor": CORRIDOR, "wall": WALL, "ignore": EMPTY}
#: Identifiers read as a role (compared loosely: case, spaces and hyphens do not matter).
ROLE_NAMES = {
    **dict.fromkeys(
        (
            "wall",
            "walls",
            "solid",
            "solids",
            "rock",
            "rocks",
            "stone",
            "stones",
            "block",
            "blocks",
            "collision",
            "collisions",
        ),
        WALL,
    ),
    **dict.fromkeys(("floor", "floors", "ground", "room", "rooms", "dungeon_floor", "walkable"), ROOM),
    **dict.fromkeys(("corridor", "corridors", "passage", "passages", "hall", "hallway", "path", "paths"), CORRIDOR),
}
#: Most cells of the combined grid (and of one layer); a level beyond it is refused (at 16 px a
#: cell, 400 x 250 cells: a cell would print under half a millimetre wide on A4).
MAX_CELLS = 100_000


@dataclass
class IntGridLayer:
    """One IntGrid layer instance: ``values`` (rows x columns, 0 empty), its cell size and
    offset in pixels, and the definition of each value: value -> identifier (``None``: none)."""

    name: str
    grid_px: int
    offset_px: tuple[int, int]
    values: np.ndarray
    names: dict[int, str | None] = field(default_factory=dict)


def _whole(value: Any, what: str, low: int = 0, high: int = 10**9) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ImportFailed(f"{what} is {json_kind(value)}, not a whole number")
    if not float(value).is_integer() or not low <= value <= high:
        raise ImportFailed(f"{what} is {value!r}; it must be a whole number from {low} to {high}")
    return int(value)


def read_layer(instance: dict, definition: dict | None, note) -> IntGridLayer | None:
    """An IntGrid layer instance read: ``intGridCsv`` (LDtk 0.7+), or the sparse ``intGrid``
    list of older files (``{coordId, v}``, value ``v + 1``). ``definition`` is the layer's entry
    of ``defs.layers`` (its ``intGridValues``). A layer whose cells cannot be read is named in a
    ``note`` and ``None`` returned; a layer larger than :data:`MAX_CELLS` raises
    :class:`ImportFailed`."""
    name = str(instance.get("__identifier") or (definition or {}).get("identifier") or "?")[:80]
    source = f"IntGrid layer {name!r}"
    columns = _whole(instance.get("__cWid"), f"{source}: __cWid", 0, 100_000)
    rows = _whole(instance.get("__cHei"), f"{source}: __cHei", 0, 100_000)
    if columns * rows > MAX_CELLS:
        raise ImportFailed(
            f"{source} is {columns} x {rows} cells; an import reads at most {MAX_CELLS:,} cells (a printed sheet "
            f"shows far fewer): choose a smaller level"
        )
    grid = _whole(instance.get("__gridSize", (definition or {}).get("gridSize")), f"{source}: __gridSize", 1, 4096)
    offset = (
        _offset(instance, definition, "X"),
        _offset(instance, definition, "Y"),
    )
    values = np.zeros(columns * rows, dtype=np.int64)
    csv = instance.get("intGridCsv")
    if isinstance(csv, list):
        if len(csv) != columns * rows:
            note(source, f"'intGridCsv' has {len(csv)} values for {columns} x {rows} cells; the layer is ignored")
            return None
        if not all(type(v) is int and 0 <= v <= 1_000_000 for v in csv):
            note(source, "'intGridCsv' holds something other than whole numbers from 0; the layer is ignored")
            return None
        values[:] = csv
    elif isinstance(instance.get("intGrid"), list):
        for number, item in enumerate(instance["intGrid"], 1):
            coord = item.get("coordId") if isinstance(item, dict) else None
            value = item.get("v") if isinstance(item, dict) else None
            if type(coord) is not int or type(value) is not int or not 0 <= coord < columns * rows or value < 0:
                note(f"{source}, cell entry {number}", "is not a cell of the layer ({coordId, v}); ignored")
                continue
            values[coord] = value + 1  # the old sparse list stores the value minus one
    else:
        note(source, "has neither 'intGridCsv' nor 'intGrid' cells; ignored")
        return None
    names: dict[int, str | None] = {}
    defined = (definition or {}).get("intGridValues")
    for index, entry in enumerate(defined if isinstance(defined, list) else [], 1):
        if not isinstance(entry, dict):
            continue
        value = entry.get("value", index)  # very old files list the values in order, from 1
        if type(value) is int:
            ident = entry.get("identifier")
            names[value] = ident if isinstance(ident, str) and ident.strip() else None
    return IntGridLayer(name, grid, offset, values.reshape(rows, columns), names)


def _offset(instance: dict, definition: dict | None, axis: str) -> int:
    total = instance.get(f"__pxTotalOffset{axis}")
    if total is None:
        total = (instance.get(f"pxOffset{axis}") or 0) + ((definition or {}).get(f"pxOffset{axis}") or 0)
    return _whole(total, f"the offset {axis} of a layer", -(10**6), 10**6)


# ------------------------------------------------------------------------------------------
# what the values mean


def user_roles(mapping: dict | None) -> dict[str, int]:
    """The ``intgrid`` member of a ``--map`` file checked: ``{"walls": "wall", "2": "room",
    "Layer:water": "ignore"}`` (a value's identifier or number, optionally ``Layer:`` first,
    to ``wall``, ``room``/``floor``, ``corridor`` or ``ignore``) as key -> cell code;
    :class:`MappingFailed` naming the member when it is wrong."""
    if not mapping:
        return {}
    members = ("classes", "family", "intgrid", "description", "$schema")
    unknown = sorted(str(key) for key in mapping if key not in members)
    if unknown:
        raise MappingFailed(
            f"the mapping has unknown members {', '.join(map(repr, unknown))}{did_you_mean(unknown[0], members)} "
            "(an LDtk mapping has 'classes', 'family' and 'intgrid')"
        )
    if "intgrid" not in mapping:
        return {}
    raw = mapping["intgrid"]
    if not isinstance(raw, dict):
        raise MappingFailed(
            f"'intgrid' is {json_kind(raw)}; it must be an object of IntGrid value -> meaning, "
            f'e.g. {{"walls": "wall", "2": "room"}}'
        )
    out = {}
    for key, role in raw.items():
        if not isinstance(role, str) or role.strip().lower() not in ROLES:
            shown = role if isinstance(role, str) else json_kind(role)
            raise MappingFailed(
                f"intgrid/{str(key)[:60]}: {str(shown)[:40]!r} is not a meaning of an IntGrid value"
                f"{did_you_mean(role, ROLES)}; use wall, room (or floor), corridor or ignore"
            )
        out[str(key)] = ROLES[role.strip().lower()]
    return out


def _role_of(layer: IntGridLayer, value: int, roles: dict[str, int]) -> tuple[int | None, str]:
    """The cell code of ``value`` in ``layer`` and why (for notes); ``None`` when unknown."""
    ident = layer.names.get(value)
    for key in (f"{layer.name}:{ident}" if ident else None, f"{layer.name}:{value}", ident, str(value)):
        if key is not None and key in roles:
            return roles[key], "the mapping"
    if ident is not None:
        found = ROLE_NAMES.get(_normal(ident))
        return found, f"its identifier {ident!r}"
    found = ROLE_NAMES.get(_normal(layer.name))
    return found, f"its layer's identifier {layer.name!r}"


def value_label(layer: IntGridLayer, value: int) -> str:
    ident = layer.names.get(value)
    return f"IntGrid value {value}{f' {ident[:60]!r}' if ident else ''} of layer {layer.name!r}"


def combined_grid(layers: list[IntGridLayer], size_px: tuple[int, int], roles: dict[str, int], note):
    """The layers drawn onto one grid of square cells of ``unit`` pixels (the greatest common
    divisor of their cell sizes and offsets), each cell the highest code any layer gives it.
    Returns ``(codes, unit)``; ``codes`` is rows x columns covering the level (``size_px``)."""
    unit = 0
    for layer in layers:
        unit = math.gcd(unit, layer.grid_px, abs(layer.offset_px[0]), abs(layer.offset_px[1]))
    unit = unit or 1
    columns, rows = -(-size_px[0] // unit), -(-size_px[1] // unit)
    if columns * rows > MAX_CELLS:
        raise ImportFailed(
            f"the level's IntGrid layers make {columns} x {rows} cells of {unit} px (their cell sizes and offsets "
            f"have {unit} px in common); an import reads at most {MAX_CELLS:,} cells: choose a smaller level"
        )
    codes = np.zeros((rows, columns), dtype=np.int8)
    used_keys: set[str] = set()
    for layer in layers:
        table = {}
        for value in np.unique(layer.values).tolist():
            if value == 0:
                continue
            count = int(np.count_nonzero(layer.values == value))
            if value not in layer.names:
                note(value_label(layer, value), f"{count} cell(s) hold a value the layer does not define; ignored")
                continue
            role, why = _role_of(layer, value, roles)
            if why == "the mapping":
                used_keys.update(k for k in roles if k.split(":")[-1] in (str(value), layer.names.get(value)))
            if role is None:
                ident = layer.names.get(value) or str(value)
                note(
                    value_label(layer, value),
                    f"{count} cell(s): {why if layer.names.get(value) else 'it has no identifier and ' + why} "
                    f"says neither wall nor floor{did_you_mean(_normal(ident), ROLE_NAMES)}; ignored (give it a "
                    f'meaning with --map: "intgrid": {{"{ident}": "wall"}})',
                )
                continue
            table[value] = role
        if not table:
            continue
        lookup = np.zeros(int(layer.values.max()) + 1, dtype=np.int8)
        for value, role in table.items():
            lookup[value] = role
        layer_codes = lookup[layer.values]
        k = layer.grid_px // unit
        if k > 1:
            layer_codes = np.repeat(np.repeat(layer_codes, k, axis=0), k, axis=1)
        ox, oy = layer.offset_px[0] // unit, layer.offset_px[1] // unit
        _paste_max(codes, layer_codes, ox, oy)
    unused = sorted(key for key in roles if key not in used_keys)
    if unused:
        note("the mapping's intgrid", f"{', '.join(map(repr, unused[:20]))} name no IntGrid value used in this level")
    return codes, unit


def _paste_max(target: np.ndarray, source: np.ndarray, ox: int, oy: int) -> None:
    rows, columns = target.shape
    y0, x0 = max(oy, 0), max(ox, 0)
    y1, x1 = min(oy + source.shape[0], rows), min(ox + source.shape[1], columns)
    if y0 >= y1 or x0 >= x1:
        return
    part = source[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
    np.maximum(target[y0:y1, x0:x1], part, out=target[y0:y1, x0:x1])


# ------------------------------------------------------------------------------------------
# floors and areas


def floor_codes(codes: np.ndarray, note) -> np.ndarray:
    """``codes`` with the floor filled in when no value is a floor: the empty cells walled in
    (not joined to the level's edge through empty cells) become room floor; when walls enclose
    none, every empty cell does. Each case is noted."""
    if np.any((codes == ROOM) | (codes == CORRIDOR)) or not np.any(codes == WALL):
        return codes
    empty = codes == EMPTY
    outside = np.zeros_like(empty)
    rows, columns = codes.shape
    stack = [(r, c) for r in range(rows) for c in (0, columns - 1)] + [
        (r, c) for c in range(columns) for r in (0, rows - 1)
    ]
    while stack:
        r, c = stack.pop()
        if 0 <= r < rows and 0 <= c < columns and empty[r, c] and not outside[r, c]:
            outside[r, c] = True
            stack.extend(((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
    enclosed = empty & ~outside
    filled = codes.copy()
    if np.any(enclosed):
        filled[enclosed] = ROOM
        left_out = int(np.count_nonzero(outside))
        note(
            "the level",
            "no IntGrid value is a floor: the empty cells the walls enclose are read as room floor"
            + (f", the {left_out} empty cells joined to the level's edge as outside" if left_out else ""),
        )
    else:
        filled[empty] = ROOM
        note(
            "the level",
            "no IntGrid value is a floor and the walls enclose no empty cell (the level is open to its edge): "
            "every empty cell is read as room floor",
        )
    return filled


def narrow_passages(codes: np.ndarray, cells: int, note) -> np.ndarray:
    """``codes`` with the room floor of passages one cell wide made corridor floor, when no
    IntGrid value is a corridor (the level does not tell rooms from corridors): a room cell
    stays a room only when some square of 2 x 2 cells of the level's grid (``cells`` x ``cells``
    cells of ``codes`` each) holding it is floor throughout, so corridors, their corners and
    doorways in walls become corridors and the rooms they join areas of their own (RULES.md 2,
    "Sheet": areas are rooms and corridors). Noted with the count of cells changed."""
    if np.any(codes == CORRIDOR):
        return codes
    floor = codes == ROOM
    side = 2 * max(cells, 1)
    rows, columns = codes.shape
    if rows < side or columns < side:
        in_square = np.zeros_like(floor)
    else:
        total = np.zeros((rows + 1, columns + 1), dtype=np.int64)  # sums over rectangles
        total[1:, 1:] = np.cumsum(np.cumsum(floor, axis=0), axis=1)
        full = total[side:, side:] - total[:-side, side:] - total[side:, :-side] + total[:-side, :-side]
        squares = full == side * side  # the square whose top-left cell is (r, c) is all floor
        reach = np.zeros((rows + 1, columns + 1), dtype=np.int64)  # cells covered by such a square
        reach[1:, 1:] = np.cumsum(np.cumsum(np.pad(squares, ((0, side - 1), (0, side - 1))), axis=0), axis=1)
        window = np.zeros((rows, columns), dtype=np.int64)
        padded = np.pad(reach, ((side - 1, 0), (side - 1, 0)))
        window[:, :] = (
            padded[side : side + rows, side : side + columns]
            - padded[:rows, side : side + columns]
            - padded[side : side + rows, :columns]
            + padded[:rows, :columns]
        )
        in_square = window > 0
    narrow = (codes == ROOM) & ~in_square
    if narrow.any():
        codes = codes.copy()
        codes[narrow] = CORRIDOR
        note(
            "the level",
            f"{int(np.count_nonzero(narrow)) // max(cells, 1) ** 2} room floor cell(s) lie in passages one cell wide "
            "(a room is at least 2 x 2 cells): read as corridors, so the rooms they join are areas of their own",
        )
    return codes


def floor_areas(codes: np.ndarray, unit: int, note) -> list[tuple[str, list[tuple[float, float]]]]:
    """The floor cut into areas: for rooms, corridors and doorways, each 4-connected piece of
    floor, split further where it encloses a wall (an area has no hole), as ``(kind, polygon)``
    (kind ``room``, ``corridor`` or ``doorway``) with the polygon's corners in level pixels (no
    repeated closing point), in reading order (RULES.md 2, "Sheet": a maze of areas separated by
    walls). :class:`ImportFailed` past :data:`~inkcrawl.importers.MAX_AREAS` pieces."""
    found: list[tuple[str, list[tuple[float, float]]]] = []
    pieces_of: list[tuple[str, list]] = []
    for code, kind in ((ROOM, "room"), (CORRIDOR, "corridor"), (DOORWAY, "doorway")):
        rows, columns = np.nonzero(codes == code)
        cells = set(zip(rows.tolist(), columns.tolist()))
        for component in _components(cells):
            if len(pieces_of) > MAX_AREAS:  # before cutting and outlining thousands of pieces
                break
            outline = _polygon(component)
            if outline.geom_type == "Polygon" and not outline.interiors and outline.exterior.is_simple:
                pieces_of.append((kind, component))  # already one simple polygon: nothing to cut
                continue
            pieces = _simple_pieces(component)
            if len(pieces) > 1:
                r, c = component[0]
                note(
                    f"the {kind} floor at ({c * unit}, {r * unit}) px",
                    f"encloses walls; cut into {len(pieces)} areas so that no area has a hole",
                )
            pieces_of += [(kind, piece) for piece in pieces]
    if len(pieces_of) > MAX_AREAS:
        raise ImportFailed(too_many(f"more than {MAX_AREAS:,}", MAX_AREAS, "areas (pieces of floor)"))
    for kind, piece in pieces_of:
        found.append((kind, _outline(piece, unit)))
    found.sort(key=lambda item: (min(p[1] for p in item[1]), min(p[0] for p in item[1])))
    return found


def _polygon(cells: list):
    """The union of ``cells`` (``(row, column)``) in cell units, without needless corners."""
    runs = _row_runs(cells)  # whole runs of a row: far fewer boxes than cells
    return shapely.simplify(shapely.union_all(shapely.box(runs[:, 1], runs[:, 0], runs[:, 2], runs[:, 0] + 1)), 0)


def _outline(cells: list, unit: int) -> list[tuple[float, float]]:
    polygon = _polygon(cells)
    if polygon.geom_type != "Polygon" or len(polygon.interiors):  # cannot happen: pieces are simple
        raise ImportFailed("internal error: a piece of floor does not form a simple polygon")
    return [(float(x) * unit, float(y) * unit) for x, y in polygon.exterior.coords[:-1]]


def cut_doorway(
    codes: np.ndarray, unit: int, box: tuple[float, float, float, float]
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Make the floor under a door entity a doorway of its own, so that the door can stand on
    the edge between two areas: the floor cells whose centre lies in ``box`` (``x0, y0, x1, y1``
    in level pixels) become :data:`DOORWAY` cells in ``codes`` (changed in place). Returns the
    door's segment in level pixels: the side of those cells that faces other floor (the passage
    runs across the door), the left or top side first; ``None`` (``codes`` unchanged) when the
    box covers no floor cell or no floor lies beside it. (RULES.md 2, "Elements": a locked door
    stands in the wall between two areas.)"""
    rows, columns = codes.shape
    c0, c1 = max(math.ceil(box[0] / unit - 0.5), 0), min(math.floor(box[2] / unit - 0.5), columns - 1)
    r0, r1 = max(math.ceil(box[1] / unit - 0.5), 0), min(math.floor(box[3] / unit - 0.5), rows - 1)
    if c0 > c1 or r0 > r1:
        return None
    under = codes[r0 : r1 + 1, c0 : c1 + 1]
    floor = (under == ROOM) | (under == CORRIDOR)
    if not floor.any():
        return None
    taken_r, taken_c = np.nonzero(floor)
    r0, r1 = r0 + int(taken_r.min()), r0 + int(taken_r.max())
    c0, c1 = c0 + int(taken_c.min()), c0 + int(taken_c.max())

    def floor_beside(rs: slice, cs: slice) -> int:
        part = codes[rs, cs]
        return int(np.count_nonzero((part == ROOM) | (part == CORRIDOR)))

    left = floor_beside(slice(r0, r1 + 1), slice(c0 - 1, c0)) if c0 > 0 else 0
    right = floor_beside(slice(r0, r1 + 1), slice(c1 + 1, c1 + 2))
    top = floor_beside(slice(r0 - 1, r0), slice(c0, c1 + 1)) if r0 > 0 else 0
    bottom = floor_beside(slice(r1 + 1, r1 + 2), slice(c0, c1 + 1))
    if left + right == 0 and top + bottom == 0:
        return None
    region = codes[r0 : r1 + 1, c0 : c1 + 1]
    region[(region == ROOM) | (region == CORRIDOR)] = DOORWAY
    if left + right >= top + bottom:  # the passage runs left to right: the door stands upright
        x = c0 * unit if left else (c1 + 1) * unit
        return (float(x), float(r0 * unit)), (float(x), float((r1 + 1) * unit))
    y = r0 * unit if top else (r1 + 1) * unit
    return (float(c0 * unit), float(y)), (float((c1 + 1) * unit), float(y))
