"""An LDtk project read safely: the project file, its levels (top-level ``levels`` and, in
multi-world projects, ``worlds[].levels``), the level chosen for the import (``--level``), and a
level kept in its own ``.ldtkl`` file (``externalLevels``) found inside the project's folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inkcrawl.importers import ImportFailed, did_you_mean, json_kind
from inkcrawl.importers.tiled.files import _parse_json, _read_bytes
from inkcrawl.importers.tiled.paths import Folders, Refused

#: Most levels a project may hold (LDtk projects have a few dozen; this bounds hostile files).
MAX_LEVELS = 10000


@dataclass
class Level:
    """One level of a project: its ``number`` (1 for the first, in file order), ``name`` (its
    ``identifier``) and its JSON ``data`` (``layerInstances`` is ``None`` while the level is still
    in its own file, ``external`` its ``externalRelPath``)."""

    number: int
    name: str
    data: dict
    external: str | None = None

    def describe(self) -> str:
        return f"level {self.number} {self.name[:80]!r}"


def load_project(path: Path) -> dict:
    """The project file's JSON object; :class:`ImportFailed` when it is not a readable LDtk
    project (too large, not UTF-8, malformed or hostile JSON, a level file given instead)."""
    value = _parse_json(_read_bytes(path, "file"), "file")
    if not isinstance(value, dict):
        raise ImportFailed(f"an LDtk project is a JSON object, not {json_kind(value)}")
    if "layerInstances" in value and "defs" not in value:
        raise ImportFailed(
            "this is an LDtk level file (.ldtkl), which holds one level of a project saved with separate level "
            "files; import the project (.ldtk) instead and choose the level with --level"
        )
    if not isinstance(value.get("defs", {}), dict):
        raise ImportFailed(f"'defs' is {json_kind(value.get('defs'))}, not an object of definitions")
    return value


def project_levels(project: dict, note) -> list[Level]:
    """Every level of ``project`` in file order: ``levels``, then each world's ``levels``
    (LDtk 1.0+ multi-world projects). A level that is not an object is named in a ``note(source,
    message)`` and left out; :class:`ImportFailed` when there is no list of levels at all."""
    lists: list[tuple[str, Any]] = []
    if "levels" in project:
        lists.append(("the project", project["levels"]))
    worlds = project.get("worlds")
    if isinstance(worlds, list):
        for index, world in enumerate(worlds, 1):
            if isinstance(world, dict) and "levels" in world:
                lists.append((f"world {index} {str(world.get('identifier', ''))[:60]!r}", world["levels"]))
    elif worlds is not None:
        note("the project", f"'worlds' is {json_kind(worlds)}, not a list; ignored")
    if not any(isinstance(items, list) for _, items in lists):
        raise ImportFailed("not an LDtk project: no list of 'levels'")
    levels: list[Level] = []
    for owner, items in lists:
        if not isinstance(items, list):
            note(owner, f"'levels' is {json_kind(items)}, not a list; ignored")
            continue
        for index, item in enumerate(items, 1):
            if len(levels) >= MAX_LEVELS:
                raise ImportFailed(f"the project has more than {MAX_LEVELS} levels")
            if not isinstance(item, dict):
                note(f"level {index} of {owner}", f"is {json_kind(item)}, not a level; ignored")
                continue
            name = item.get("identifier")
            name = name if isinstance(name, str) and name else f"Level {len(levels) + 1}"
            external = item.get("externalRelPath")
            levels.append(
                Level(len(levels) + 1, name, item, external if isinstance(external, str) and external else None)
            )
    if not levels:
        raise ImportFailed("the project has no level")
    return levels


def choose_level(levels: list[Level], wanted: str | None, note) -> Level:
    """The level to import: ``wanted`` (``--level``) by identifier (exactly, then ignoring
    case), by ``iid``, or by its number (1 for the first); the first level when ``wanted`` is
    ``None``, naming the others in a note. :class:`ImportFailed` naming the levels when there
    is no such level."""
    if wanted is None:
        if len(levels) > 1:
            others = ", ".join(repr(level.name[:40]) for level in levels[1:21]) + (" ..." if len(levels) > 21 else "")
            note(
                "the project",
                f"has {len(levels)} levels; imported the first, {levels[0].name[:80]!r} (the others: {others}); "
                "choose one with --level NAME or --level NUMBER",
            )
        return levels[0]
    text = wanted.strip()
    for test in (
        lambda level: level.name == text,
        lambda level: level.name.lower() == text.lower(),
        lambda level: level.data.get("iid") == text,
    ):
        found = [level for level in levels if test(level)]
        if found:
            return found[0]
    if text.isdigit() and 1 <= int(text) <= len(levels):
        return levels[int(text) - 1]
    names = [level.name for level in levels]
    listed = ", ".join(repr(name[:40]) for name in names[:20]) + (" ..." if len(names) > 20 else "")
    raise ImportFailed(
        f"no level {text[:80]!r} in the project{did_you_mean(text, names)}; its levels: "
        f"{listed} (or a number from 1 to {len(levels)})"
    )


def level_layers(project_path: Path, level: Level, levels: list[Level], allowed, note) -> dict:
    """``level``'s data with its ``layerInstances``, read from its own ``.ldtkl`` file when the
    project keeps levels separately. The file must lie inside the project's folder (or an
    allowed one: ``--allow-folder``); a missing, refused or unreadable file of the chosen level
    raises :class:`ImportFailed` saying which file and what to do; a missing file of another
    level is named in a note (choosing that level would fail)."""
    folders = Folders(project_path, allowed)
    for other in levels:
        if other is level or other.external is None or isinstance(other.data.get("layerInstances"), list):
            continue
        try:
            if not folders.locate(other.external).is_file():
                note(other.describe(), f"its level file {other.external[:200]!r} is missing beside the project")
        except Refused as exc:
            note(other.describe(), f"its level file {other.external[:200]!r} {exc}")
    if isinstance(level.data.get("layerInstances"), list) or level.external is None:
        return level.data
    try:
        target = folders.locate(level.external)
    except Refused as exc:
        raise ImportFailed(
            f"{level.describe()} is kept in its own file {level.external[:200]!r}, which {exc}"
        ) from None
    if not target.is_file():
        raise ImportFailed(
            f"{level.describe()} is kept in its own file {level.external[:200]!r} (the project saves each level "
            f"separately), which is missing: copy the project's folder whole, the .ldtk file with its level "
            f"folder, and import again"
        )
    loaded = _parse_json(_read_bytes(target, f"level file {level.external[:200]!r}"), f"level file {level.external!r}")
    if not isinstance(loaded, dict) or not isinstance(loaded.get("layerInstances"), list):
        raise ImportFailed(f"the level file {level.external[:200]!r} holds no level (no 'layerInstances' list)")
    merged = dict(level.data)  # the project's entry wins, but for the layers and what it lacks
    for key, value in loaded.items():
        if key == "layerInstances" or merged.get(key) in (None, []):
            merged[key] = value
    return merged
