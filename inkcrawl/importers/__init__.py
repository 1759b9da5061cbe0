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

#: Built-in importer modules; each defines ``IMPORTER``.
BUILT_IN = ("inkcrawl.importers.watabou", "inkcrawl.importers.donjon", "inkcrawl.importers.uvtt",
            "inkcrawl.importers.tiled")


class ImportFailed(ValueError):
    """The file cannot be imported (malformed, hostile, not this format); the message says why."""


@dataclass(frozen=True)
class ImportOptions:
    """``cell_mm``: printed size of one source grid cell (``None``: the importer's default, shrunk
    to fit the paper); ``ruleset``: the ruleset id of the result (``None``: the family's classic
    ruleset); ``mapping``: a user mapping file's data (Tiled: class/type names -> element kinds)."""

    cell_mm: float | None = None
    ruleset: str | None = None
    mapping: dict | None = None


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
