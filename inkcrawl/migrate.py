"""Format versions and migration of older files.

Every file carries ``format_version``. Loading an older file migrates it step by step to the
current version; a newer file is refused with a message naming both versions.

Version history (docs/formats.md has the details):

- dungeon 1 (pre-release draft): the title at top level; line elements placed with ``x`` and
  ``y`` members; no ``rotation_deg``.
- dungeon 2 (current): the title in ``sheet.title``; ``at: [x, y]``; ``rotation_deg`` written.
- pack 1, ruleset 1 (current).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

#: The format version this inkcrawl writes, per file type.
CURRENT_VERSIONS: dict[str, int] = {"dungeon": 2, "pack": 1, "ruleset": 1}


class FormatVersionError(ValueError):
    """A file's format_version cannot be handled: ``code`` is F007 (too new) or F009 (too old)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _dungeon_1_to_2(data: dict) -> dict:
    """Move ``title`` into ``sheet``; turn element ``x``/``y`` into ``at``; add ``rotation_deg``."""
    sheet = data.setdefault("sheet", {})
    if isinstance(sheet, dict) and "title" in data:
        sheet = {"title": data.pop("title"), **sheet}
        data["sheet"] = sheet
    elements = data.get("elements")
    if isinstance(elements, list):
        for element in elements:
            if not isinstance(element, dict):
                continue
            if "x" in element or "y" in element:
                x, y = element.pop("x", None), element.pop("y", None)
                element["at"] = [x, y]
            if element.get("kind") not in ("door", None) and "rotation_deg" not in element:
                element["rotation_deg"] = 0
    data["format_version"] = 2
    return data


#: Migration steps: (file type, from version) -> function returning the next version's data.
MIGRATIONS: dict[tuple[str, int], Callable[[dict], dict]] = {
    ("dungeon", 1): _dungeon_1_to_2,
}


def migrate(data: dict, file_type: str) -> tuple[dict, int | None]:
    """Bring ``data`` (a parsed file of ``file_type``) to the current format version.

    Returns ``(data, original_version)``; ``original_version`` is ``None`` when nothing was
    migrated. The input is not modified. A missing or non-integer ``format_version`` is left
    for the JSON Schema to report. Raises :class:`FormatVersionError` for a version newer
    than :data:`CURRENT_VERSIONS` or older than any migration.
    """
    current = CURRENT_VERSIONS[file_type]
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version == current:
        return data, None
    if version > current:
        raise FormatVersionError(
            "F007",
            f"this {file_type} file has format_version {version}, but this inkcrawl reads "
            f"{file_type} format_version {current} and older; update inkcrawl",
        )
    oldest = min((v for (kind, v) in MIGRATIONS if kind == file_type), default=current)
    if version < oldest:
        raise FormatVersionError(
            "F009",
            f"format_version {version} is older than the oldest {file_type} format inkcrawl "
            f"can migrate ({oldest}); the current format is {current}",
        )
    migrated = copy.deepcopy(data)
    while migrated["format_version"] < current:
        migrated = MIGRATIONS[(file_type, migrated["format_version"])](migrated)
    return migrated, version
