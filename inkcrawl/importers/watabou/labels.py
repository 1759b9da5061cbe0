"""Notes as labels: each laid out in the area holding it, wrapped to the area's width there,
moved just enough to stay inside, shortened when it does not fit."""

from __future__ import annotations

import shapely
from shapely.geometry import LineString, Point, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points, polylabel

from inkcrawl.importers.watabou.areas import _Obstacles
from inkcrawl.importers.watabou.source import _EPS, ELEMENT_GAP_MM, WALL_CLEARANCE_MM, _Area, _Note
from inkcrawl.importers.watabou.state import _State
from inkcrawl.importers.watabou.text import _fit, _shorten, _wrap
from inkcrawl.textmetrics import CAP_HEIGHT_EM, DESCENT_EM, text_width_mm

#: Most characters of one entry of the notes' key (a sheet reminder holds at most 300).
KEY_ENTRY_CHARS = 300
#: A shortened label keeps at least this share of its note's characters; a note with a ref
#: shortened more is printed as its ref, its text in the key on the sheet.
MIN_SHORTENED_SHARE = 1 / 3


def _keeps_enough(lines: list[str], text: str) -> bool:
    """Whether ``lines`` (a note's label, maybe shortened) keep enough of ``text`` to be read."""
    printed = " ".join(line.rstrip("…") for line in lines)
    return printed == text or len(printed) >= MIN_SHORTENED_SHARE * len(text)


class _Labels(_State):
    """The label step of a conversion."""

    # labels --------------------------------------------------------------------------------------
    def _labels(self, commit: bool = True) -> _Obstacles:
        """Lay out the notes as labels; with ``commit`` false only where they would go (their
        boxes, so that keys can keep clear of them), without adding anything."""
        em = self.label_mm / CAP_HEIGHT_EM
        line_mm = em * 1.2
        obstacles = self.obstacles if commit else self.obstacles + _Obstacles()
        planned = _Obstacles()
        for note in self.source.notes:
            holders = self.space.containing((note.x, note.y))
            point = (note.x, note.y)
            if holders:
                area = next((a for a in holders if a.role == "room"), holders[0])
            else:
                area = self.space.nearest(point)
                spot = polylabel(area.polygon, tolerance=0.01)
                point = (spot.x, spot.y)
                if commit:
                    self.note(note.source, f"lies outside every area; its label is in the nearest area, '{area.id}'")
            layout = self._place_text(note, area, point, em, line_mm, obstacles)
            if layout is None:
                if commit:
                    entry = self._key_entry(note, area.id)
                    self.note(
                        note.source,
                        f"does not fit in '{area.id}' at this scale, not even its ref; in the key on the sheet "
                        f'instead: "{entry}"',
                    )
                continue
            lines, boxes = layout
            for _, _, shape in boxes:
                obstacles.add(shape)
                planned.add(shape)
            if not commit:
                continue
            key = note.ref or str(note.index)
            for number, (text, at, _) in enumerate(boxes, 1):
                element_id = f"note-{key}" if number == 1 else f"note-{key}-{number}"
                self.elements.append({"kind": "label", "id": element_id, "text": text, "at": at})
            printed = " ".join(lines)
            if lines == [note.ref] and printed != note.text:
                entry = self._key_entry(note)
                self.note(
                    note.source,
                    f"too long for '{area.id}' at this scale: only its ref is printed there, its text in the key "
                    f'on the sheet: "{entry}"',
                )
            elif printed != note.text:
                self.note(
                    note.source,
                    f'shortened to fit \'{area.id}\': printed as "{printed}"; full text: "{_shorten(note.text, 300)}"',
                )
        return planned

    def _place_text(
        self, note: _Note, area: _Area, point: tuple[float, float], em: float, line_mm: float, obstacles: _Obstacles
    ):
        """The lines of the note's label and their ``(text, at, box)`` in ``area`` around ``point``,
        clear of ``obstacles``; ``None`` when not even its ref fits."""
        inner: BaseGeometry = area.polygon.buffer(-self.mm(WALL_CLEARANCE_MM), join_style="mitre")
        near = obstacles.near(area.polygon, self.mm(ELEMENT_GAP_MM))
        if near:
            inner = inner.difference(shapely.union_all(near).buffer(self.mm(ELEMENT_GAP_MM)))
        if inner.is_empty:
            return None
        if not inner.covers(Point(point)):
            nearest = nearest_points(inner, Point(point))[0]
            point = (nearest.x, nearest.y)
        minx, miny, maxx, maxy = inner.bounds
        across = inner.intersection(LineString([(minx - 1, point[1]), (maxx + 1, point[1])]))
        pieces = [g for g in shapely.get_parts(across) if g.geom_type == "LineString" and g.length > _EPS]
        if not pieces:
            return None
        piece = min(pieces, key=lambda g: g.distance(Point(point)))
        x0, _, x1, _ = piece.bounds
        width_mm = (x1 - x0) * self.scale
        wrapped = _wrap(note.text, width_mm, em)
        candidates = []
        for count in range(min(len(wrapped), int((maxy - miny) * self.scale // line_mm)), 0, -1):
            lines = wrapped[:count]
            if count < len(wrapped):
                lines[-1] = _fit(" ".join(wrapped[count - 1 :]), width_mm, em)
            lines = [_fit(line, width_mm, em) for line in lines]
            if all(lines) and (not note.ref or _keeps_enough(lines, note.text)):
                candidates.append(lines)
        if note.ref and text_width_mm(note.ref, em) <= width_mm:
            candidates.append([note.ref])
        for lines in candidates:
            # centred on the note's position, moved just enough to stay inside the area
            half = self.mm(max(text_width_mm(line, em) for line in lines)) / 2
            centre_x = min(max(point[0], x0 + half), x1 - half)
            down = inner.intersection(LineString([(centre_x, miny - 1), (centre_x, maxy + 1)]))
            pieces = [g for g in shapely.get_parts(down) if g.geom_type == "LineString" and g.length > _EPS]
            if not pieces:
                continue
            _, y0, _, y1 = min(pieces, key=lambda g: g.distance(Point(centre_x, point[1]))).bounds
            if (y1 - y0) * self.scale < line_mm * len(lines):
                continue
            boxes = self._layout(lines, centre_x, point[1], y0, y1, em, line_mm)
            if all(inner.covers(b) for _, _, b in boxes):
                return lines, boxes
        return None

    def _key_entry(self, note: _Note, area: str | None = None) -> str:
        """Add ``note`` to the key printed on the sheet (its ref, the area when the ref is not on
        the map, its text) and return the entry."""
        ref = note.ref or f"note {note.index}"
        where = f" ({area})" if area is not None else ""
        entry = _shorten(f"{ref}{where}: {note.text}", KEY_ENTRY_CHARS)
        self.notes_key.append((note.source, entry))
        return entry

    def _layout(self, lines, centre_x, centre_y, top_limit, bottom_limit, em, line_mm):
        block = self.mm(line_mm * len(lines))
        top = min(max(centre_y - block / 2, top_limit), bottom_limit - block)
        result = []
        for i, text in enumerate(lines):
            baseline = top + self.mm(i * line_mm + (line_mm + (CAP_HEIGHT_EM - DESCENT_EM) * em) / 2)
            half = self.mm(text_width_mm(text, em)) / 2
            shape = box(
                centre_x - half,
                baseline - self.mm(CAP_HEIGHT_EM * em),
                centre_x + half,
                baseline + self.mm(DESCENT_EM * em),
            )
            result.append((text, (centre_x, baseline), shape))
        return result
