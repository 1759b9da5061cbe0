"""Where the data the program needs at run time lives: JSON Schemas and bundled content.

In a source checkout or an editable install the folders ``schemas/`` and ``content/`` sit
beside the ``inkcrawl`` package; a built wheel carries them inside the package as
``inkcrawl/_data/schemas`` and ``inkcrawl/_data/content`` (see ``pyproject.toml``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the folder of run-time data called ``name`` (``"schemas"`` or ``"content"``).

    Raises ``FileNotFoundError`` when neither the wheel layout nor the source layout has it.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"inkcrawl data folder {name!r} is missing from this installation")


def schema_path(file_type: str) -> Path:
    """Path of the JSON Schema for a file type: ``dungeon``, ``pack`` or ``ruleset``."""
    return data_dir("schemas") / f"{file_type}.schema.json"


def bundled_rulesets_dir() -> Path:
    """Folder of the rulesets shipped with inkcrawl (``content/rulesets``)."""
    return data_dir("content") / "rulesets"


def bundled_packs_dir() -> Path:
    """Folder of the sample content packs shipped with inkcrawl (``content/packs``)."""
    return data_dir("content") / "packs"
