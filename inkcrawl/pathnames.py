"""File names as a file system stores them: a name written in one Unicode normal form found on a
disk that stores it in the other.

macOS writes names decomposed (NFD: "e" + combining accent), most other systems and every text
editor composed (NFC: "é"); a path written in a pack manifest or a Tiled map on one machine must
still find the file on another. :func:`existing_variant` is the one place that looks: the
Tiled importer (:mod:`inkcrawl.importers.tiled.paths`) and pack manifests
(:func:`inkcrawl.validate.path_inside_pack`) use it.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

#: Most entries of one folder compared when looking for a name in the other Unicode form.
MAX_FOLDER_ENTRIES = 10000


def existing_variant(path: Path) -> Path:
    """``path``, or when it does not exist, the existing path whose names are the same text in
    another Unicode normal form (composed "é" as NFC, or "e" + combining accent as NFD, as macOS
    writes names): each missing part is looked for among its folder's entries by its NFC form.
    ``path`` itself when no such file exists (the caller reports it missing)."""
    try:
        if path.exists():
            return path
    except (OSError, ValueError):
        return path
    found = Path(path.anchor) if path.is_absolute() else Path()
    for part in path.parts[1:] if path.is_absolute() else path.parts:
        candidate = found / part
        try:
            if part in ("..", ".") or candidate.exists():
                found = candidate
                continue
        except (OSError, ValueError):
            return path
        match = _same_name(found, part)
        if match is None:
            return path
        found = found / match
    return found


def _same_name(folder: Path, name: str) -> str | None:
    """The entry of ``folder`` whose name is ``name`` in another Unicode normal form, or ``None``."""
    wanted = unicodedata.normalize("NFC", name)
    if wanted == name and unicodedata.normalize("NFD", name) == name:
        return None  # no character that has two forms: nothing else to look for
    try:
        with os.scandir(folder) as entries:
            for number, entry in enumerate(entries):
                if number >= MAX_FOLDER_ENTRIES:
                    return None
                if unicodedata.normalize("NFC", entry.name) == wanted:
                    return entry.name
    except (OSError, ValueError):
        return None
    return None
