"""``inkcrawl migrate``: rewrite files in the current format version and canonical layout.

A dungeon is rewritten through the model (so defaults are written and members ordered); a
pack manifest or ruleset is rewritten with its members in their existing order. A file is
only rewritten when it is schema-valid after migration, so no data is ever dropped.
"""

from __future__ import annotations

import sys
from pathlib import Path

from inkcrawl.jsonio import dumps_canonical, write_text_atomic
from inkcrawl.model import dungeon_from_dict
from inkcrawl.schema import schema_problems
from inkcrawl.validate import MANIFEST_NAME, path_inside_pack, load_document


def canonical_text(data: dict, file_type: str) -> str:
    """The canonical text of a schema-valid, current-version document."""
    if file_type == "dungeon":
        return dumps_canonical(dungeon_from_dict(data).to_dict())
    return dumps_canonical(data)


def _files_of(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    manifest = path / MANIFEST_NAME
    files = [manifest]
    document = load_document(manifest)
    if isinstance(document.data, dict):
        for key in ("rulesets", "dungeons"):
            for relative in document.data.get(key, []) if isinstance(document.data.get(key), list) else []:
                target = path_inside_pack(path, relative) if isinstance(relative, str) else None
                if target is not None and target.is_file():
                    files.append(target)
    return files


def migrate_paths(paths: list[str], check: bool = False) -> int:
    """Rewrite (or with ``check`` only inspect) every file; returns the exit code
    (0 done or nothing to do, 1 files would change or were refused, 2 unreadable input)."""
    status = 0
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            print(f"{raw}: error: no such file or folder", file=sys.stderr)
            status = 2
            continue
        if path.is_dir() and not (path / MANIFEST_NAME).is_file():
            print(f"{raw}: error: this folder has no {MANIFEST_NAME}", file=sys.stderr)
            status = 2
            continue
        for file in _files_of(path):
            document = load_document(file)
            if document.data is None:
                for p in document.problems:
                    print(f"{p.file}:{p.pointer or '/'}: error {p.code} {p.message}", file=sys.stderr)
                status = max(status, 1)
                continue
            problems = schema_problems(document.data, document.file_type, str(file))
            if problems:
                print(f"{file}: not rewritten: {len(problems)} schema error(s); run 'inkcrawl validate {file}'",
                      file=sys.stderr)
                status = max(status, 1)
                continue
            text = canonical_text(document.data, document.file_type)
            current = file.read_text(encoding="utf-8-sig")
            if text == current:
                continue
            what = f"format_version {document.migrated_from} -> current" if document.migrated_from else "layout"
            if check:
                print(f"{file}: would be rewritten ({what})")
                status = max(status, 1)
            else:
                write_text_atomic(file, text)
                print(f"{file}: rewritten ({what})")
    return status
