"""Importers: dungeons made by other tools turned into inkcrawl dungeons (``inkcrawl import``).

Each format is a plugin, the way Tiled registers its map formats: an object with ``name``,
``description``, ``detect(path, head) -> bool`` (``head``: the first 64 KiB of the file) and
``convert(path, options) -> ImportResult``. The built-in importers live in this package;
other packages add theirs through the ``inkcrawl.importers`` entry-point group (each entry
point names an importer object).

An importer never drops anything silently: whatever it could not map, or had to repair, becomes
an :class:`ImportNote` naming the source object. Malformed or hostile input raises
:class:`ImportFailed` with a clear message (``inkcrawl import`` exits 2); it never crashes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol

from inkcrawl.suggest import did_you_mean  # noqa: F401  (re-exported: the importers' one source)
from inkcrawl.textchars import FORBIDDEN as FORBIDDEN_TEXT
from inkcrawl.textchars import printable_text

#: Built-in importer modules; each defines ``IMPORTER``.
BUILT_IN = (
    "inkcrawl.importers.watabou",
    "inkcrawl.importers.donjon",
    "inkcrawl.importers.uvtt",
    "inkcrawl.importers.tiled",
    "inkcrawl.importers.ldtk",
)
#: Name and description of each built-in importer (the ``name`` and ``description`` of its
#: module's ``IMPORTER``), so that the command line can list them without importing the modules
#: and their geometry libraries (numpy, shapely) on every ``inkcrawl`` start.
BUILT_IN_NAMES = {
    "watabou": "watabou One Page Dungeon JSON",
    "donjon": "donjon Random Dungeon Generator JSON",
    "uvtt": "Universal VTT .dd2vtt/.uvtt/.df2vtt: walls, portals",
    "tiled": "Tiled map, TMX or JSON",
    "ldtk": "LDtk project (.ldtk): IntGrid walls and floors, entities",
}


#: The most an import may write: areas (rooms and corridors), walls and elements of a line
#: dungeon, and points of one outline (the dungeon schema's own limit). An A4 sheet holds a few
#: dozen areas; these limits stop hostile files (a donjon grid of isolated cells makes tens of
#: thousands of areas) with a clear message instead of a file that takes long to check and print.
MAX_AREAS = 2000
MAX_WALLS = 5000
MAX_ELEMENTS = 5000
MAX_OUTLINE_POINTS = 2000
#: Most Starts an import places (a dungeon has a few; ``validate`` measures each Start against
#: every area, so thousands of Starts would make checking it slow).
MAX_STARTS = 50
#: Most warnings of one message printed one by one; the rest are summed up in one warning.
MAX_SAME_NOTES = 20


class ImportFailed(ValueError):
    """The file cannot be imported (malformed, hostile, not this format); the message says why."""


class MappingFailed(ImportFailed):
    """The user's mapping file (``inkcrawl import --map FILE``) is wrong, not the file imported;
    the message names the member and says why."""


@dataclass(frozen=True)
class ImportOptions:
    """``cell_mm``: printed size of one source grid cell (``None``: the importer's default, shrunk
    to fit the paper); ``ruleset``: the ruleset id of the result (``None``: the family's classic
    ruleset); ``mapping``: a user mapping file's data (Tiled: class/type names -> element kinds);
    ``allowed_folders``: folders besides the source file's own (and below) from which an importer
    that follows references (Tiled: external tilesets and templates; LDtk: level files) may read;
    ``level``: which level of a multi-level source to import (LDtk: its identifier or number;
    ``None``: the first)."""

    cell_mm: float | None = None
    ruleset: str | None = None
    mapping: dict | None = None
    allowed_folders: tuple[str | Path, ...] = ()
    level: str | None = None


@dataclass(frozen=True)
class ImportNote:
    """Something an importer could not map or had to repair: ``source`` names the object in the
    source file (``door 4 at (3, -2)``), ``message`` says what happened to it."""

    source: str
    message: str


@dataclass
class ImportResult:
    """A converted dungeon (the JSON data of a current-format dungeon file) and its notes."""

    dungeon: dict
    notes: list[ImportNote] = field(default_factory=list)


class Importer(Protocol):
    """What an importer plugin provides."""

    name: str
    description: str

    def detect(self, path: Path, head: bytes) -> bool:
        """Whether this file looks like this importer's format."""

    def convert(self, path: Path, options: ImportOptions) -> ImportResult:
        """Convert the file; raises :class:`ImportFailed` on input it cannot handle."""


def importers() -> dict[str, Any]:
    """Every available importer by name: the built-in ones, then plugins."""
    found = {}
    for module in BUILT_IN:
        try:
            importer = import_module(module).IMPORTER
        except ModuleNotFoundError:
            continue
        found[importer.name] = importer
    for entry in entry_points(group="inkcrawl.importers"):
        try:
            importer = entry.load()
        except Exception:  # a broken plugin must not break the others
            continue
        found.setdefault(importer.name, importer)
    return found


def importer_names() -> dict[str, str]:
    """The description of every available importer by name, without importing any of them: the
    built-in ones, then plugins by their entry point's name (a plugin's description is its
    entry point's value until it is loaded)."""
    found = dict(BUILT_IN_NAMES)
    for entry in entry_points(group="inkcrawl.importers"):
        found.setdefault(entry.name, f"plugin {entry.value}")
    return found


def detect_format(path: Path) -> str | None:
    """The name of the first importer that recognises ``path``, or ``None``."""
    with path.open("rb") as handle:
        head = handle.read(65536)
    for name, importer in importers().items():
        try:
            if importer.detect(path, head):
                return name
        except Exception:
            continue
    return None


def json_kind(value: Any) -> str:
    """What sort of JSON value ``value`` is, for messages: ``null``, ``a number``, ``a list``..."""
    if value is None:
        return "null"
    return {
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def check_limits(dungeon: dict) -> None:
    """Raise :class:`ImportFailed` when ``dungeon`` (a converted dungeon's data) holds more areas,
    walls, elements or outline points than an import may write (:data:`MAX_AREAS`...); the
    built-in importers stop earlier, this also covers plugins."""
    for member, limit, what in (
        ("areas", MAX_AREAS, "areas (rooms and corridors)"),
        ("walls", MAX_WALLS, "walls"),
        ("elements", MAX_ELEMENTS, "elements (doors, Starts, labels...)"),
    ):
        items = dungeon.get(member)
        if isinstance(items, list) and len(items) > limit:
            raise ImportFailed(too_many(f"{len(items):,}", limit, what))
    for member, key in (("areas", "polygon"), ("walls", "points")):
        for item in dungeon.get(member) or []:
            points = item.get(key) if isinstance(item, dict) else None
            if isinstance(points, list) and len(points) > MAX_OUTLINE_POINTS:
                raise ImportFailed(
                    f"{member[:-1]} {str(item.get('id'))[:64]!r} has {len(points)} points; a dungeon "
                    f"file holds at most {MAX_OUTLINE_POINTS} per outline"
                )


def missing_to_play(dungeon: dict) -> list[str]:
    """What an imported dungeon (its data) still needs before a game on it means something: an
    element that scores and, for the line family, an end trigger. One sentence each, saying what
    to add; empty when nothing is missing or the ruleset is not a bundled one (its kinds are not
    known here)."""
    from inkcrawl.rulesets import bundled_rulesets

    family = dungeon.get("family")
    ruleset = bundled_rulesets().get(str(dungeon.get("ruleset") or f"{family}-classic"))
    if ruleset is None or ruleset.family != family:
        return []
    missing = []
    scoring = sorted(kind for kind, spec in ruleset.kinds.items() if spec.vp is None or spec.vp > 0)
    items = dungeon.get("features" if family == "grid" else "elements") or []
    if not any(isinstance(item, dict) and item.get("kind") in scoring for item in items):
        missing.append(
            f"nothing on it scores: add {', '.join(scoring[:-1])} or {scoring[-1]} "
            f"{'features' if family == 'grid' else 'elements'} (the editor's palette, or the file)"
        )
    if family == "line" and not (dungeon.get("sheet") or {}).get("end_triggers"):
        missing.append(
            "no end trigger: the Scrawl ends only when everyone stops; add an exit (exit_reached), a boss "
            "(boss_covered), an escape portal, an orb or a timer to sheet.end_triggers (docs/formats.md)"
        )
    return missing


def too_many(count: int | str, limit: int, what: str) -> str:
    """The message for an import that would write ``count`` (a number, or words such as
    ``more than 2,000``) ``what`` where at most ``limit`` are allowed."""
    return (
        f"the dungeon would have {count} {what}; an import writes at most {limit:,} (a printed sheet "
        f"holds far fewer): choose a smaller map, or split it"
    )


def condense_notes(notes: list[ImportNote], most: int = MAX_SAME_NOTES) -> list[ImportNote]:
    """``notes`` with each message kept at most ``most`` times, in order; the rest of a message
    becomes one note that counts them and names the first and last source, so that a hostile
    file cannot bury the output in warnings and nothing is dropped without a word."""
    seen: dict[str, list[ImportNote]] = {}
    kept = []
    for note in notes:
        same = seen.setdefault(note.message, [])
        same.append(note)
        if len(same) <= most:
            kept.append(note)
    for message, same in seen.items():
        if len(same) > most:
            rest = same[most:]
            where = rest[0].source if len(rest) == 1 else f"{rest[0].source} ... {rest[-1].source}"
            kept.append(ImportNote(f"{len(rest)} more ({where})", f"the same as above: {message}"))
    return kept


def printable_texts(dungeon: dict, note) -> dict:
    """``dungeon`` (an imported document) with the characters validation refuses (C007:
    control characters, U+FFFE, U+FFFF) removed from every text a sheet prints: the title,
    reminders, and the names and texts of areas, elements and features. ``note(source,
    message)`` is called for each text changed, naming the object. Returns ``dungeon``."""
    sheet = dungeon.get("sheet") or {}

    def clean(owner: str, holder: dict, key: str) -> None:
        value = holder.get(key)
        if isinstance(value, str) and FORBIDDEN_TEXT.search(value):
            holder[key] = printable_text(value)
            note(owner, f"its {key} held control characters, which a sheet cannot print; removed")

    clean("the sheet", sheet, "title")
    reminders = sheet.get("reminders")
    if isinstance(reminders, list):
        for index, reminder in enumerate(reminders):
            if isinstance(reminder, str) and FORBIDDEN_TEXT.search(reminder):
                reminders[index] = printable_text(reminder)
                note(f"reminder {index + 1}", "it held control characters, which a sheet cannot print; removed")
    if isinstance(sheet.get("title"), str) and not sheet["title"].strip():
        sheet["title"] = str(dungeon.get("id") or "Imported dungeon")
    for collection in ("areas", "elements", "features"):
        items = dungeon.get(collection)
        if not isinstance(items, list):
            continue
        kept = []
        for item in items:
            owner = f"{item.get('kind', collection[:-1])} {item.get('id', '?')}"
            clean(owner, item, "name")
            clean(owner, item, "text")
            if item.get("name") == "":
                del item["name"]
            if item.get("text") == "":
                note(owner, "left out: its text was nothing but control characters")
                continue
            kept.append(item)
        dungeon[collection] = kept
    return dungeon
