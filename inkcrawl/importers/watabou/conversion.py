"""One conversion from start to end: :meth:`_Conversion.run` reads the areas, runs the door,
label and key steps, reports what no Start reaches and what has no counterpart (columns,
water), and hands everything to the builder."""

from __future__ import annotations

import re

from inkcrawl.geoarrays import as_point
from inkcrawl.importers import ImportFailed
from inkcrawl.importers.build import LineDungeonBuilder
from inkcrawl.importers.watabou.areas import _build_areas, _Obstacles, _Space
from inkcrawl.importers.watabou.doors import _Doors
from inkcrawl.importers.watabou.keys import _Keys
from inkcrawl.importers.watabou.labels import KEY_ENTRY_CHARS, _Labels
from inkcrawl.importers.watabou.source import STORY_CHARS
from inkcrawl.importers.watabou.text import _shorten

#: Most reminders a sheet holds (the dungeon schema's limit).
MAX_REMINDERS = 20


class _Conversion(_Doors, _Labels, _Keys):
    def run(self) -> LineDungeonBuilder:
        source = self.source
        title = source.title or self.path.stem
        if len(title) > 120:
            self.note("title", "longer than 120 characters; shortened")
            title = _shorten(title, 120)
        builder = LineDungeonBuilder(dungeon_id=title, title=title, ruleset=self.options.ruleset or "line-classic")
        if source.version is not None and not str(source.version).startswith("1."):
            self.note(
                "version", f"{str(source.version)[:20]!r} is not a known One Page Dungeon version (1.x); read as 1.x"
            )
        if source.story:
            story = _shorten(source.story, STORY_CHARS)
            if story != source.story:
                self.note("story", f"shortened to {STORY_CHARS} characters for the sheet's reminders")
            builder.reminders.append(story)
        self.areas, self.doorways = _build_areas(source, self.note)
        if not self.areas:
            raise ImportFailed("no area is left once the rects are merged and cut")
        self.space = _Space(self.areas)
        self.scale = self._scale()
        self.obstacles = _Obstacles()  # starts, exits, keys and labels placed
        self.elements: list[dict] = []  # pending builder elements: kind, at, size_mm, members
        self.locked: list[dict] = []  # locked doors: door, segment, lock, areas
        self.starts: list[tuple[str, tuple[float, float]]] = []  # (area id, point)
        self.no_room: set[tuple[str, float, bool]] = set()  # (area, key size, labels ignored) with no space
        for door in source.doors:
            self._door(door)
        if not self.starts:
            self._fallback_start()
        self.label_plan = self._labels(commit=False)  # keys keep clear of where the notes will go
        self._plan_keys()
        self.notes_key = []
        self._labels()
        builder.reminders += self._key_reminders(MAX_REMINDERS - len(builder.reminders))
        self._unreachable()
        self._columns_and_water()

        for area in self.areas:
            builder.add_area(area.kind, [as_point(p) for p in area.polygon.exterior.coords[:-1]], wanted_id=area.id)
        for element in self.elements:
            kind = element.pop("kind")
            if kind == "door":
                builder.add_door(
                    element["segment"], element["locks"], wanted_id=element["id"], name=element.get("name")
                )
            elif kind == "label":
                builder.add_label(element["text"], element["at"], wanted_id=element["id"], text_height_mm=self.label_mm)
            else:
                members = {k: v for k, v in element.items() if k not in ("at", "id", "size_mm")}
                builder.add_element(kind, element["at"], wanted_id=element["id"], size_mm=element["size_mm"], **members)
        self.builder = builder
        return builder

    def _key_reminders(self, free: int) -> list[str]:
        """The key of the notes printed as their ref (or not at all) as sheet reminders: one entry
        each, packed several to a reminder when there are more than ``free`` reminders left."""
        ordered = sorted(self.notes_key, key=_by_ref)
        entries = [entry for _, entry in ordered]
        if len(entries) <= free:
            return entries
        packed: list[str] = []
        for source, entry in ordered:
            if packed and len(packed[-1]) + 2 + len(entry) <= KEY_ENTRY_CHARS:
                packed[-1] += "  " + entry
            elif len(packed) < free:
                packed.append(entry)
            else:
                self.note(source, f'the sheet\'s reminders are full; left out of the key: "{entry}"')
        return packed

    def _unreachable(self) -> None:
        reach = self.final_reach
        missing = [a.id for a in self.areas if a.id not in reach]
        kept = []
        for element in self.elements:
            area = element.pop("area", None)
            source = element.pop("source", None)
            if element["kind"] == "exit" and area is not None and area not in reach:
                self.note(source, f"its exit in '{area}' cannot be reached from any Start; not imported")
                continue
            kept.append(element)
        self.elements = kept
        if missing:
            shown = ", ".join(missing[:12]) + (f" and {len(missing) - 12} more" if len(missing) > 12 else "")
            self.note(
                "rects",
                f"{len(missing)} area(s) cannot be reached from the entrance (no opening or door "
                f"leads there): {shown}; validation warns about them (L020)",
            )

    def _columns_and_water(self) -> None:
        for member, items, what in (
            ("columns", self.source.columns, "column"),
            ("water", self.source.water, "water cell"),
        ):
            if not items:
                continue
            where: dict[str, int] = {}
            outside = 0
            for x, y in items:
                probe = (x, y) if member == "columns" else (x + 0.5, y + 0.5)
                holders = self.space.containing(probe)
                if holders:
                    where[holders[0].id] = where.get(holders[0].id, 0) + 1
                else:
                    outside += 1
            inside = ", ".join(f"{area} ({count})" for area, count in sorted(where.items()))
            detail = f" in {inside}" if inside else ""
            if outside:
                detail += f"{';' if inside else ''} {outside} outside the dungeon"
            self.note(
                member,
                f"{len(items)} {what}{'s' if len(items) != 1 else ''}{detail} not imported: inkcrawl "
                f"has no decoration element and they are no obstacle for the line",
            )


def _by_ref(item: tuple[str, str]) -> tuple[int, float, str]:
    """The order of the notes' key: numbered refs by number, then the others by text."""
    number = re.match(r"\d+", item[1])
    return (0, int(number.group()), item[1]) if number else (1, 0, item[1])
