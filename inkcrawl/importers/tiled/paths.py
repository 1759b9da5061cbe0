"""The files a map refers to (external tilesets and templates): where a reference leads, and
whether it may be read. A map reads only inside its own folder (and below), unless the user
allows more folders (``inkcrawl import --allow-folder DIR``): a path that is absolute or climbs
out with ``..`` (or through a symbolic link) to anywhere else is refused, with a message naming
the reference and where it leads, so that a map cannot make the importer open any file on the
machine (``/etc/passwd``) and copy parts of it into the dungeon."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from inkcrawl.pathnames import existing_variant

#: How to allow a folder, for messages.
ALLOW_HINT = "to read it, allow its folder: inkcrawl import --allow-folder DIR"


#: A Windows drive path: ``C:/...``, ``C:\\...`` or drive-relative ``C:a.tsx``.
_DRIVE = re.compile(r"[A-Za-z]:")


class Refused(Exception):
    """A reference that may not be read; the message says why and names where it leads."""


def _resolved(path: Path) -> Path:
    """``path`` made absolute with ``..`` and symbolic links resolved, as far as they exist."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):  # a NUL byte, a name over the system's limit
        return Path(os.path.abspath(path))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class Folders:
    """The folders a map's references may lead into: the map's own folder, then the allowed ones."""

    def __init__(self, map_path: Path, allowed: Iterable[str | Path] = ()):
        self.base = Path(os.path.abspath(map_path)).parent
        self.folders = [_resolved(self.base)] + [_resolved(Path(folder)) for folder in allowed]

    def locate(self, reference: str) -> Path:
        """The file ``reference`` (a tileset's or template's ``source``, relative to the map's
        folder) names; raises :class:`Refused` when it leads outside every readable folder.

        A map saved on Windows may separate folders with ``\\`` (``..\\tiles\\a.tsx``): read as
        ``/``. A drive path (``C:/Users/x/a.tsx``) or a network path (``\\\\server\\share``) names
        a place on another computer, never a file under the map's folder: refused. A name saved in
        composed Unicode (NFC) is found when the disk has it decomposed (NFD, as macOS writes it),
        and the reverse (:func:`existing_variant`)."""
        if "\0" in reference:
            raise Refused("holds a NUL character; not read")
        if _DRIVE.match(reference):
            raise Refused(
                f"is a Windows drive path ({reference[:2]}), a place on the computer the map was made on; "
                "not read: save the map with its tilesets and templates referenced relative to it"
            )
        if reference.startswith(("\\\\", "//")):
            raise Refused(
                "is a Windows network path, a place on the network the map was made on; not read: save the "
                "map with its tilesets and templates referenced relative to it"
            )
        target = Path(reference.replace("\\", "/")) if os.sep == "/" else Path(reference)
        joined = target if target.is_absolute() else self.base / target
        joined = existing_variant(joined)
        resolved = _resolved(joined)
        if any(_inside(resolved, folder) for folder in self.folders):
            return joined
        how = "is absolute and leads" if target.is_absolute() else "leads"
        raise Refused(f"{how} outside the map's folder, to {str(resolved)[:200]!r}; not read ({ALLOW_HINT})")
