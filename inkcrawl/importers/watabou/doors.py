"""Doors by type: open passages, locked doors (collected for :mod:`.keys`), entrances and their
Starts on the outer boundary (or the nearest outer wall when an entrance opens onto a
courtyard), a Start when there is no entrance, and stairs off the map as exits."""

from __future__ import annotations

import shapely
from shapely.geometry import LineString, Point

from inkcrawl.geoarrays import as_point
from inkcrawl.importers.watabou.areas import _free_spot
from inkcrawl.importers.watabou.source import (
    _DIRECTIONS,
    DOWN,
    ELEMENT_GAP_MM,
    ENTRANCE,
    NARROW,
    PORTCULLIS,
    SECRET,
    STAIRWELL,
    STEEL,
    _Area,
    _Door,
)
from inkcrawl.importers.watabou.state import _State


class _Doors(_State):
    """The door step of a conversion."""

    # doors ---------------------------------------------------------------------------------------
    def _door(self, door: _Door) -> None:
        area = self.doorways.get(door.index)
        if area is None:
            if door.type == ENTRANCE:
                self.note(door.source, "entrance without a doorway; no Start placed for it")
            return
        direction = door.direction or self._infer_direction(door, area)
        if door.direction is None:
            self.note(
                door.source,
                f"has no valid 'dir'; taken as ({direction[0]}, {direction[1]}) from the neighbouring areas",
            )
        dx, dy = direction
        into, into_piece = self.space.beyond(area, door.edge(dx, dy))
        back, back_piece = self.space.beyond(area, door.edge(-dx, -dy))
        kind = door.type
        if kind is None:
            self.note(door.source, "unknown door type; imported as an open passage")
        elif kind in (NARROW, PORTCULLIS):
            self.note(
                door.source,
                f"{door.label}: imported as an open passage (the line family has no closed door without a lock)",
            )
        elif kind == ENTRANCE:
            self._entrance(door, area, direction)
        elif kind in (SECRET, STEEL):
            lock = "skeleton" if kind == SECRET else self.steel_colour
            if into is not None:
                self.locked.append({"door": door, "segment": into_piece, "lock": lock, "areas": (area.id, into.id)})
            elif back is not None:
                self.locked.append({"door": door, "segment": back_piece, "lock": lock, "areas": (area.id, back.id)})
            else:
                self.note(door.source, f"{door.label} with no area on either side; imported as a dead-end doorway")
        elif kind in (DOWN, STAIRWELL):
            if into is not None and back is not None:
                self.note(
                    door.source,
                    f"{door.label} between '{back.id}' and '{into.id}': imported as an open "
                    f"passage (inkcrawl has one level)",
                )
            else:
                self._exit(door, area, into or back)

    def _infer_direction(self, door: _Door, area: _Area) -> tuple[int, int]:
        best = (0, -1)
        best_score = -1
        for dx, dy in _DIRECTIONS:
            into = self.space.beyond(area, door.edge(dx, dy))[0]
            back = self.space.beyond(area, door.edge(-dx, -dy))[0]
            score = (into is not None) * 2 + (back is not None if door.type != ENTRANCE else back is None)
            if score > best_score:
                best, best_score = (dx, dy), score
        return best

    def _entrance(self, door: _Door, area: _Area, direction: tuple[int, int]) -> None:
        dx, dy = direction
        order = [(-dx, -dy)] + [d for d in _DIRECTIONS if d != (-dx, -dy)]
        for side in order:
            segment = door.edge(*side)
            line = LineString(segment)
            if self.space.outer_near.covers(line) and self.space.beyond(area, segment)[0] is None:
                point = ((segment[0][0] + segment[1][0]) / 2, (segment[0][1] + segment[1][1]) / 2)
                if side != (-dx, -dy):
                    self.note(
                        door.source,
                        "the side the entrance faces is not an outer wall; the Start is on "
                        "another outer edge of its cell",
                    )
                self._add_start(door, area.id, point)
                return
        found = self._outer_spot(area, door.cell.centroid)
        if found is None:
            self.note(
                door.source,
                "no area reachable from the entrance has an outer wall long enough for a Start; no Start placed for it",
            )
            return
        owner, point, steps = found
        self.note(
            door.source,
            f"the entrance opens onto a courtyard (a space the dungeon encloses), and a Start "
            f"goes on the outer boundary: the Start is on the outer wall of '{owner.id}', "
            f"{steps} area(s) from the entrance",
        )
        self._add_start(door, owner.id, point)

    def _outer_spot(self, first: _Area, towards: Point):
        """The area nearest to ``first`` (in areas passed, not through secret or steel doorways)
        with a stretch of outer wall long enough for a Start, the point of that stretch nearest
        ``towards``, and the number of areas passed."""
        blocked = {
            self.doorways[d.index].id
            for d in self.source.doors
            if d.type in (SECRET, STEEL) and d.index in self.doorways
        }
        need = self.mm(8.0)
        index = {a.id: i for i, a in enumerate(self.areas)}
        seen = {first.id}
        layer = [first]
        steps = 0
        while layer:
            best = None
            for area in layer:
                points = list(area.polygon.exterior.coords)
                for a, b in zip(points, points[1:]):  # each straight side
                    shared = LineString([a, b]).intersection(self.space.outer_near)
                    for piece in shapely.get_parts(shared):
                        if piece.geom_type != "LineString" or piece.length < need:
                            continue
                        along = min(max(piece.project(towards), need / 2), piece.length - need / 2)
                        point = piece.interpolate(along)
                        # a short stub of wall (beside a doorway) only when there is no longer side
                        key = (piece.length < 2 * need, point.distance(towards), index[area.id])
                        if best is None or key < best[0]:
                            best = (key, area, (point.x, point.y))
            if best is not None:
                return best[1], best[2], steps
            following = []
            for area in layer:
                for other_index in self.space.tree.query(area.polygon, predicate="touches").tolist():
                    other = self.areas[other_index]
                    if other.id in seen or other.id in blocked:
                        continue
                    if other.polygon.boundary.intersection(area.polygon.boundary).length < self.mm(self.min_gap_mm):
                        continue
                    seen.add(other.id)
                    following.append(other)
            layer = sorted(following, key=lambda a: index[a.id])
            steps += 1
        return None

    def _add_start(self, door: _Door | None, area_id: str, point: tuple[float, float]) -> None:
        size = 8.0
        element_id = f"start-{door.index}" if door is not None else "start"
        disc = Point(point).buffer(self.mm(size / 2 + ELEMENT_GAP_MM))
        if self.obstacles.near(disc, 0):
            self.note(door.source if door else "doors", "its Start would overlap another Start; the other one serves")
            return
        self.elements.append({"kind": "start", "id": element_id, "at": point, "size_mm": size})
        self.obstacles.add(Point(point).buffer(self.mm(size / 2)))
        self.starts.append((area_id, point))

    def _fallback_start(self) -> None:
        first = next((a for a in self.areas if a.role == "room"), self.areas[0])
        found = self._outer_spot(first, first.polygon.centroid)
        if found is None:  # no wall long enough anywhere: the outline's first point
            point = self.space.outline.interpolate(0)
            found = (self.space.nearest((point.x, point.y)), (point.x, point.y), 0)
        owner, point, _ = found
        self.note("doors", f"no entrance (door type 3); a Start was added on the outer wall of '{owner.id}'")
        self._add_start(None, owner.id, point)

    def _exit(self, door: _Door, area: _Area, neighbour: _Area | None) -> None:
        size = max(self.min_element_mm, min(8.0, 0.75 * self.scale))
        for place in [area] + ([neighbour] if neighbour else []):
            spot = _free_spot(
                place.polygon,
                self.mm(size / 2),
                self.mm(ELEMENT_GAP_MM),
                self.obstacles,
                prefer=as_point(door.cell.centroid.coords[0]) if place is area else None,
            )
            if spot is not None:
                self.elements.append(
                    {
                        "kind": "exit",
                        "id": f"exit-{door.index}",
                        "at": spot,
                        "size_mm": size,
                        "name": f"the {door.label}",
                        "area": place.id,
                        "source": door.source,
                    }
                )
                self.obstacles.add(Point(spot).buffer(self.mm(size / 2)))
                self.note(
                    door.source,
                    f"{door.label} leading off the map: an exit in '{place.id}' (reaching it ends the scrawl)",
                )
                return
        self.note(door.source, f"{door.label} leading off the map: no room for an exit there; not imported")
