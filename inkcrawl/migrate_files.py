"""``inkcrawl migrate``: rewrite files in the current format version and canonical layout.

A dungeon is rewritten through the model (so defaults are written and members ordered); a
pack manifest or ruleset is rewritten with its members in their existing order. A file is
only rewritten when it is schema-valid after migration, so no data is ever dropped, and when
rounding its numbers to 0.001 as saving does creates no error it did not have (two polygon
vertices merged into one, a tolerance rounded to 0: L028 warns about the points beforehand).
"""

from __future__ import annotations

import sys
from pathlib import Path

from inkcrawl.jsonio import WriteRefused, dumps_canonical, normalise_numbers, parse_json_text, write_text_atomic
from inkcrawl.model import dungeon_from_dict
from inkcrawl.problems import Problem, Severity
from inkcrawl.rulesets import ruleset_consistency_problems
from inkcrawl.schema import schema_problems
from inkcrawl.textchars import terminal_safe
from inkcrawl.validate import (
    MANIFEST_NAME,
    RulesetRegistry,
    check_dungeon_data,
    enclosing_pack,
    load_document,
    path_inside_pack,
    unusable_path,
)


def canonical_text(data: dict, file_type: str) -> str:
    """The canonical text of a schema-valid, current-version document."""
    if file_type == "dungeon":
        return dumps_canonical(dungeon_from_dict(data).to_dict())
    return dumps_canonical(data)


def _errors(data, file_type: str, file: Path) -> list[Problem]:
    """The errors ``inkcrawl validate`` reports for one document (``data`` as loaded and migrated)."""
    if file_type == "dungeon":
        pack_rulesets, deck = enclosing_pack(file)
        problems, _ = check_dungeon_data(data, str(file), RulesetRegistry(pack_rulesets), deck)
    else:
        problems = schema_problems(data, file_type, str(file))
        if not problems and file_type == "ruleset":
            problems = ruleset_consistency_problems(data, str(file))
    return [p for p in problems if p.severity is Severity.ERROR]


def errors_rounding_creates(data: dict, file_type: str, file: Path, text: str) -> list[Problem]:
    """The errors the canonical ``text`` of a document has that the document itself (``data``)
    has not: what rounding numbers to 0.001 when saving would break (an error is new when no
    error of its code was reported at its pointer before). Empty when rounding changes no number."""
    written = dungeon_from_dict(data).to_dict() if file_type == "dungeon" else data
    if normalise_numbers(written) == written:
        return []
    rounded, problems = parse_json_text(text, str(file))
    if problems:
        return problems
    before = {(p.code, p.pointer) for p in _errors(data, file_type, file)}
    return [p for p in _errors(rounded, file_type, file) if (p.code, p.pointer) not in before]


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


def migrate_paths(paths: list[str], check: bool = False, force: bool = False) -> int:
    """Rewrite (or with ``check`` only inspect) every file; returns the exit code
    (0 done or nothing to do, 1 files would change or were refused, 2 a path or file that
    cannot be read, or a file that cannot be written: read-only without ``force``, a folder
    that refuses new files, a full disk). Messages name the file; control characters in them
    are shown escaped."""
    status = 0
    current_files = 0  # already in the current format and layout
    changed = 0  # rewritten (or, with check, that would be)

    def say(text: str, error: bool = False) -> None:
        print(terminal_safe(text), file=sys.stderr if error else sys.stdout)

    for raw in paths:
        path = Path(raw)
        unusable = unusable_path(path)
        if unusable is not None:
            say(f"{raw}: error: {unusable}", error=True)
            status = 2
            continue
        if not path.exists():
            say(f"{raw}: error: no such file or folder", error=True)
            status = 2
            continue
        if path.is_dir() and not (path / MANIFEST_NAME).is_file():
            say(f"{raw}: error: this folder has no {MANIFEST_NAME}", error=True)
            status = 2
            continue
        for file in _files_of(path):
            document = load_document(file)
            if document.data is None or document.file_type is None:  # (a type comes with the data)
                for p in document.problems:
                    say(f"{p.file}:{p.pointer or '/'}: error {p.code} {p.message}", error=True)
                status = max(status, 2 if any(p.code == "F001" for p in document.problems) else 1)
                continue
            problems = schema_problems(document.data, document.file_type, str(file))
            if problems:
                say(
                    f"{file}: not rewritten: {len(problems)} schema error(s); run 'inkcrawl validate {file}'",
                    error=True,
                )
                status = max(status, 1)
                continue
            text = canonical_text(document.data, document.file_type)
            try:
                current = file.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeError) as exc:
                say(f"{file}: error: cannot read the file: {getattr(exc, 'strerror', None) or exc}", error=True)
                status = 2
                continue
            if text == current:
                current_files += 1
                continue
            created = errors_rounding_creates(document.data, document.file_type, file, text)
            if created:
                say(
                    f"{file}: not rewritten: rounding its numbers to 0.001 as saving does would create "
                    f"{len(created)} new error(s), below; change those values so they survive rounding "
                    f"('inkcrawl validate {file}' reports points that would merge as L028):",
                    error=True,
                )
                for p in created:
                    say(f"  after rounding: {p.pointer or '/'}: error {p.code} {p.message}", error=True)
                status = max(status, 1)
                continue
            what = f"format_version {document.migrated_from} -> current" if document.migrated_from else "layout"
            if check:
                say(f"{file}: would be rewritten ({what})")
                changed += 1
                status = max(status, 1)
                continue
            try:
                write_text_atomic(file, text, force=force)
            except OSError as exc:
                reason = exc.strerror or str(exc)
                if isinstance(exc, WriteRefused) and exc.reason == "read-only":
                    reason += "; use --force to rewrite it"
                say(f"{file}: error: not rewritten, cannot write the file: {reason}", error=True)
                status = 2
                continue
            say(f"{file}: rewritten ({what})")
            changed += 1
    if current_files:
        verb = "would be rewritten" if check else "rewritten"
        say(f"{current_files} file(s) already current, left as they are" + (f"; {changed} {verb}" if changed else ""))
    return status
