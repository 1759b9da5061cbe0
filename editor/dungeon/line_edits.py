"""Edits of the line-family tools that :mod:`editor.dungeon.edits` has no class for (Qt-free).

:class:`EditShapes` changes the outlines of several objects at once, so that dragging a corner
shared by two rooms (or a room and a wall) keeps them joined in one undo step.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

from editor.dungeon.edits import Edit, EditError, EditShape, ref_of
from inkcrawl.model import Dungeon, Point


class EditShapes(Edit):
    """Replace the outline of several areas, walls or doors (``shapes``: reference -> new
    points, in mm) as one step; edits with the same ``merge_key`` and the same references
    merge (one drag is one undo step). Undo restores every outline exactly. Raises
    :class:`editor.dungeon.edits.EditError` for an unknown reference or an object without an outline."""

    def __init__(
        self,
        dungeon: Dungeon,
        shapes: Mapping[str, Sequence[Point]],
        text: str = "Edit shape",
        merge_key: str | None = None,
    ):
        if not shapes:
            raise EditError("no outline to change")
        # EditShape checks each object and rounds the points as every outline edit does
        self.parts = {ref: EditShape(dungeon, ref, points, text) for ref, points in shapes.items()}
        self.text = text
        self.merge_key = merge_key

    def redo(self, dungeon: Dungeon) -> None:
        for part in self.parts.values():
            part.redo(dungeon)

    def undo(self, dungeon: Dungeon) -> None:
        for part in reversed(list(self.parts.values())):
            part.undo(dungeon)

    @property
    def refs(self) -> set[str]:
        return set(self.parts)

    def merge(self, other: Edit) -> bool:
        if (
            not isinstance(other, EditShapes)
            or self.merge_key is None
            or other.merge_key != self.merge_key
            or set(other.parts) != set(self.parts)
        ):
            return False
        for ref, part in other.parts.items():
            self.parts[ref].new = copy.deepcopy(part.new)
        return True


def coincident_vertices(
    dungeon: Dungeon, point: Point, exclude: str, tolerance_mm: float = 1e-3
) -> list[tuple[str, int]]:
    """``(reference, vertex index)`` of the area and wall vertices lying on ``point`` (within
    ``tolerance_mm``), other than those of object ``exclude``: the corners a drag carries along."""
    out = []
    for collection in ("areas", "walls"):
        for obj in getattr(dungeon, collection):
            if ref_of(obj) == exclude:
                continue
            points = obj.polygon if collection == "areas" else obj.points
            for index, p in enumerate(points):
                if abs(p[0] - point[0]) <= tolerance_mm and abs(p[1] - point[1]) <= tolerance_mm:
                    out.append((ref_of(obj), index))
    return out


__all__ = ["EditShapes", "coincident_vertices"]
