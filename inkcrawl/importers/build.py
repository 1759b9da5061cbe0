"""Building an inkcrawl line dungeon from another tool's geometry.

:class:`LineDungeonBuilder` collects areas, walls and elements in the source's own units
(cells, pixels), then :meth:`LineDungeonBuilder.build` scales and moves everything onto the
sheet: ``cell_mm`` per source unit, centred in the drawing band of an A4 sheet (below the
title, above the footer), shrunk to fit when the requested scale is too large (with a note).
Sheet coordinates are millimetres, origin top-left, y down.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from inkcrawl.importers import (
    MAX_AREAS,
    MAX_ELEMENTS,
    MAX_OUTLINE_POINTS,
    MAX_STARTS,
    MAX_WALLS,
    ImportFailed,
    ImportNote,
    printable_texts,
    too_many,
)
from inkcrawl.kinds import DEFAULT_SIZE_MM
from inkcrawl.model import LineDungeon, dungeon_from_dict
from inkcrawl.printed import sheet_of
from inkcrawl.rulesets import bundled_rulesets

#: The part of an A4 portrait sheet a dungeon may use: x0, y0, x1, y1 in mm (the title band is
#: above, the footer below; the same band as the bundled line dungeons).
DRAWING_BAND_MM = (15.0, 30.0, 195.0, 222.0)


def default_size_mm(kind: str, ruleset_id: str = "line-classic") -> float:
    """Printed diameter (mm) of a new element of ``kind``: its ruleset's ``size_mm``
    (:mod:`inkcrawl.kinds`; the bundled ruleset ``ruleset_id``, else ``line-classic``), or
    :data:`inkcrawl.kinds.DEFAULT_SIZE_MM` for a kind it does not define."""
    rulesets = bundled_rulesets()
    ruleset = rulesets.get(ruleset_id) or rulesets.get("line-classic")
    kind_def = ruleset.kinds.get(kind) if ruleset is not None and ruleset.family == "line" else None
    return kind_def.size_mm if kind_def is not None and kind_def.size_mm else DEFAULT_SIZE_MM


def safe_id(text: str, prefix: str = "x") -> str:
    """An inkcrawl id (letters, digits, ``_.-``, at most 64 characters) made from any text."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(text)).strip("-._")[:60]
    if not cleaned or not cleaned[0].isalnum():
        cleaned = f"{prefix}{cleaned}"[:60]
    return cleaned


@dataclass
class LineDungeonBuilder:
    """Collects a line dungeon in source units; ``build`` places it on the sheet.

    Points are ``(x, y)`` in source units with y down (flip before adding if the source has y up).
    """

    dungeon_id: str
    title: str
    ruleset: str = "line-classic"
    reminders: list[str] = field(default_factory=list)
    areas: list[dict] = field(default_factory=list)
    walls: list[dict] = field(default_factory=list)
    elements: list[dict] = field(default_factory=list)
    notes: list[ImportNote] = field(default_factory=list)
    _ids: set[str] = field(default_factory=set)
    _starts: int = 0

    def unique_id(self, wanted: str) -> str:
        """``wanted`` made safe and unique in this dungeon (``-2``, ``-3``... appended)."""
        base = safe_id(wanted)
        candidate, number = base, 2
        while candidate in self._ids:
            candidate = f"{base[:58]}-{number}"
            number += 1
        self._ids.add(candidate)
        return candidate

    def add_area(
        self, kind: str, polygon: list[tuple[float, float]], name: str | None = None, wanted_id: str | None = None
    ) -> str:
        """Add a room or corridor polygon (no repeated closing point); returns its id. Raises
        :class:`ImportFailed` past :data:`MAX_AREAS` areas or :data:`MAX_OUTLINE_POINTS` points."""
        if len(self.areas) >= MAX_AREAS:
            raise ImportFailed(too_many(f"more than {MAX_AREAS:,}", MAX_AREAS, "areas (rooms and corridors)"))
        if len(polygon) > MAX_OUTLINE_POINTS:
            raise ImportFailed(
                f"{kind} {name or wanted_id or len(self.areas) + 1!s:.64} has an outline of "
                f"{len(polygon)} corners; an area has at most {MAX_OUTLINE_POINTS}"
            )
        area_id = self.unique_id(wanted_id or f"{'r' if kind == 'room' else 'c'}{len(self.areas) + 1}")
        self.areas.append({"id": area_id, "kind": kind, "name": name, "polygon": [tuple(p) for p in polygon]})
        return area_id

    def add_wall(self, points: list[tuple[float, float]], wanted_id: str | None = None) -> str:
        """Add an explicit wall polyline; returns its id (of the first piece: a polyline longer
        than :data:`MAX_OUTLINE_POINTS` points becomes several walls joined end to end). Raises
        :class:`ImportFailed` past :data:`MAX_WALLS` walls."""
        points = [(p[0], p[1]) for p in points]
        step = MAX_OUTLINE_POINTS - 1
        pieces = [points[i : i + step + 1] for i in range(0, max(len(points) - 1, 1), step)]
        if len(self.walls) + len(pieces) > MAX_WALLS:
            raise ImportFailed(too_many(f"more than {MAX_WALLS:,}", MAX_WALLS, "walls"))
        wall_id = self.unique_id(wanted_id or f"w{len(self.walls) + 1}")
        self.walls.append({"id": wall_id, "points": pieces[0]})
        for piece in pieces[1:]:
            self.walls.append({"id": self.unique_id(f"{wall_id[:56]}-part"), "points": piece})
        if len(pieces) > 1:
            self.note(
                f"wall {wall_id}",
                f"has {len(points)} points; split into {len(pieces)} walls of at most "
                f"{MAX_OUTLINE_POINTS} points joined end to end",
            )
        return wall_id

    def _check_element_count(self) -> None:
        if len(self.elements) >= MAX_ELEMENTS:
            raise ImportFailed(
                too_many(f"more than {MAX_ELEMENTS:,}", MAX_ELEMENTS, "elements (doors, Starts, labels...)")
            )

    def add_element(
        self, kind: str, at: tuple[float, float], wanted_id: str | None = None, size_mm: float | None = None, **members
    ) -> str | None:
        """Add an element at ``at`` (source units); ``size_mm`` is its printed size (mm, not
        scaled); ``members`` are the kind's own members (``colour``, ``channel``...). Raises
        :class:`ImportFailed` past :data:`MAX_ELEMENTS` elements (doors included). A Start past
        :data:`MAX_STARTS` is not added (noted) and ``None`` is returned."""
        self._check_element_count()
        if kind == "start":
            if self._starts >= MAX_STARTS:
                self.note(
                    f"Start {wanted_id or ''} at ({at[0]:g}, {at[1]:g})".replace("  ", " "),
                    f"the dungeon has {MAX_STARTS} Starts already, the most an import places; not placed",
                )
                return None
            self._starts += 1
        element_id = self.unique_id(wanted_id or f"{kind[:2]}{len(self.elements) + 1}")
        element = {"id": element_id, "kind": kind, "at": tuple(at), **members}
        if kind not in ("door", "label"):
            element["size_mm"] = size_mm or default_size_mm(kind, self.ruleset)
            element.setdefault("rotation_deg", 0)
        self.elements.append(element)
        return element_id

    def add_door(
        self,
        segment: tuple[tuple[float, float], tuple[float, float]],
        locks: list[str],
        wanted_id: str | None = None,
        name: str | None = None,
    ) -> str:
        """Add a door on ``segment`` (source units) with ``locks`` (key colours or ``skeleton``)."""
        self._check_element_count()
        door_id = self.unique_id(wanted_id or f"d{len(self.elements) + 1}")
        door = {"id": door_id, "kind": "door", "segment": [tuple(segment[0]), tuple(segment[1])], "locks": list(locks)}
        if name:
            door["name"] = name
        self.elements.append(door)
        return door_id

    def add_label(
        self, text: str, at: tuple[float, float], wanted_id: str | None = None, text_height_mm: float = 3.0
    ) -> str:
        """Add a free text label whose baseline middle is at ``at`` (source units)."""
        label_id = self.add_element(
            "label", at, wanted_id, text=text[:500] or "?", text_height_mm=text_height_mm, rotation_deg=0
        )
        assert label_id is not None  # (only a Start is ever left out)
        return label_id

    def note(self, source: str, message: str) -> None:
        """Record something that could not be mapped or had to be repaired."""
        self.notes.append(ImportNote(source, message))

    # placing on the sheet --------------------------------------------------------------------
    def _bounds(self) -> tuple[float, float, float, float]:
        xs, ys = [], []
        for area in self.areas:
            xs += [p[0] for p in area["polygon"]]
            ys += [p[1] for p in area["polygon"]]
        for wall in self.walls:
            xs += [p[0] for p in wall["points"]]
            ys += [p[1] for p in wall["points"]]
        if not xs:
            for element in self.elements:
                points = element.get("segment") or [element["at"]]
                xs += [p[0] for p in points]
                ys += [p[1] for p in points]
        if not xs:
            return 0.0, 0.0, 1.0, 1.0
        return min(xs), min(ys), max(xs), max(ys)

    def build(self, cell_mm: float | None = None, default_cell_mm: float = 5.0) -> dict:
        """The dungeon file's data (format 2), everything scaled by ``cell_mm`` mm per source unit
        (default ``default_cell_mm``) and centred in :data:`DRAWING_BAND_MM`; shrunk to fit, with
        a note, when it would not fit."""
        x0, y0, x1, y1 = self._bounds()
        width, height = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
        band_w = DRAWING_BAND_MM[2] - DRAWING_BAND_MM[0]
        band_h = DRAWING_BAND_MM[3] - DRAWING_BAND_MM[1]
        scale = cell_mm if cell_mm is not None else default_cell_mm
        fit = min(band_w / width, band_h / height)
        if scale > fit:
            self.note(
                "the whole map",
                f"{scale:g} mm per unit would be {width * scale:.0f} x {height * scale:.0f} mm; "
                f"scaled down to {fit:.2f} mm per unit to fit the sheet",
            )
            scale = fit
        ox = DRAWING_BAND_MM[0] + (band_w - width * scale) / 2 - x0 * scale
        oy = DRAWING_BAND_MM[1] + (band_h - height * scale) / 2 - y0 * scale

        def place(point):
            return [round(ox + point[0] * scale, 3), round(oy + point[1] * scale, 3)]

        areas = []
        for area in self.areas:
            item = {"id": area["id"], "kind": area["kind"]}
            if area.get("name"):
                item["name"] = area["name"][:200]
            item["polygon"] = [place(p) for p in area["polygon"]]
            areas.append(item)
        walls = [{"id": w["id"], "points": [place(p) for p in w["points"]]} for w in self.walls]
        elements = []
        for element in self.elements:
            item = dict(element)
            if "at" in item:
                item["at"] = place(item["at"])
            if "segment" in item:
                item["segment"] = [place(p) for p in item["segment"]]
            elements.append(item)
        kinds = {e["kind"] for e in elements}
        components = sorted(
            {"keys" for k in kinds if k in ("key", "skeleton_key", "door")} | {"orbs" for k in kinds if k == "orb"}
        )
        triggers = []
        if "boss" in kinds:
            triggers.append({"kind": "boss_covered"})
        if "escape_portal" in kinds:
            triggers.append({"kind": "escape_portal"})
        if "exit" in kinds:
            triggers.append({"kind": "exit_reached"})
        orb_colours = sorted({e["colour"] for e in elements if e["kind"] == "orb"})
        return self._note_narrow_openings(
            printable_texts(
                {
                    "type": "dungeon",
                    "format_version": 2,
                    "id": safe_id(self.dungeon_id, "dungeon"),
                    "family": "line",
                    "ruleset": self.ruleset,
                    "sheet": {
                        "title": (self.title or self.dungeon_id)[:120],
                        "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
                        "reminders": [r[:300] for r in self.reminders[:20] if r],
                        "components": components,
                        "end_triggers": triggers,
                        "orb_tokens": {c: [4, 3, 2, 1] for c in orb_colours},
                    },
                    "areas": areas,
                    "walls": walls,
                    "elements": elements,
                },
                self.note,
            )
        )

    def _note_narrow_openings(self, dungeon: dict) -> dict:
        """Note each opening the printed sheet closes because the gap in its wall ink is narrower
        than the ruleset requires (validation warns about it as L032), so the note explains the
        warning. Returns ``dungeon``."""
        ruleset = bundled_rulesets().get(self.ruleset) or bundled_rulesets().get("line-classic")
        if ruleset is None or ruleset.family != "line" or len(dungeon["areas"]) < 2:
            return dungeon
        try:
            built = dungeon_from_dict(dungeon)
            if not isinstance(built, LineDungeon):
                return dungeon
            sheet = sheet_of(built, ruleset)
        except (KeyError, TypeError, ValueError):
            return dungeon  # validation reports what is wrong with it
        for opening in sheet.openings:
            if 0 < opening.width_mm < sheet.required_mm:
                self.note(
                    f"the opening between '{opening.a}' and '{opening.b}'",
                    f"{opening.width_mm:.2g} mm wide between the wall ink at the printed scale, narrower than "
                    f"the {sheet.required_mm:g} mm a line needs: closed (L032); a larger --cell-mm opens it",
                )
        return dungeon
