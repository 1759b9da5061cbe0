"""``inkcrawl new``: start a dungeon (``inkcrawl new --family line -o first.json``) or a content
pack (``inkcrawl new pack my-pack``) that validates with no errors, to change rather than to
fill (:func:`inkcrawl.templates.starter_data`, the starting point the editor's templates give)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from inkcrawl.cli.common import EXIT_OK, EXIT_USAGE, check_output_file, terminal_safe, write_failure

_EPILOG = """\
examples:
  inkcrawl new --family line -o first-scrawl.json           a line dungeon: one room, a Start, a monster, an exit
  inkcrawl new --family grid --title "The Ash Cellar" -o ash-cellar.json
  inkcrawl new pack my-pack --family grid                   a pack folder: pack.json and dungeons/first-dungeon.json
  inkcrawl new --pack my-pack -o my-pack/dungeons/second.json   another dungeon, added to the pack's manifest
  inkcrawl new --ruleset my-variant --pack my-pack          the pack's own ruleset; -o is PACK/dungeons/ID.json

The dungeon validates with no errors ('inkcrawl validate' it, open it with 'inkcrawl edit'):
a grid dungeon has the ruleset's entryways and features spread over an open board, a line
dungeon one room with a Start, a monster and an exit. The family comes from --ruleset, else
--family, else the pack's ruleset, else line. An existing file is never replaced without
--force (a pack's pack.json never is); files are written atomically, and a pack folder that
did not exist appears whole or not at all (made hidden beside it, then renamed).
exit codes: 0 written, 2 nothing written (usage error, unknown ruleset, an existing file,
an unreadable pack, an output that cannot be written); 130 Ctrl+C, 143 SIGTERM
"""

#: The family of a new dungeon when nothing names one.
DEFAULT_FAMILY = "line"
#: The ruleset of each family when ``--ruleset`` names none.
FAMILY_RULESETS = {"grid": "grid-classic", "line": "line-classic"}
#: Folder of a pack's dungeons, and the name of the first one ``new pack`` writes.
PACK_DUNGEONS = "dungeons"
FIRST_DUNGEON = "first-dungeon"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def register(subparsers) -> None:
    """Add ``new`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "new",
        help="start a dungeon or a content pack that validates with no errors",
        description="Write a starting dungeon of either family (FILE), or with 'pack DIR' a new content pack "
        "folder holding one. With --pack, the new dungeon is also added to that pack's manifest.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "what", nargs="*", metavar="pack DIR", help="'pack DIR' makes a content pack folder DIR (it may exist, empty)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="the dungeon file to write")
    parser.add_argument("--family", choices=tuple(FAMILY_RULESETS), help="grid or line (default: see below)")
    parser.add_argument("--ruleset", metavar="ID", help="a bundled ruleset id, or one the pack ships")
    parser.add_argument("--pack", metavar="DIR", help="add the new dungeon to the pack in DIR (its pack.json)")
    parser.add_argument("--title", metavar="TEXT", help="the sheet's title (default: from the file name)")
    parser.add_argument("--id", metavar="ID", help="the dungeon's id (default: from the file name)")
    parser.add_argument("--force", action="store_true", help="replace an existing dungeon file")
    parser.set_defaults(func=_cmd_new)


def _fail(message: str) -> int:
    print(terminal_safe(f"inkcrawl new: error: {message}"), file=sys.stderr)
    return EXIT_USAGE


def _title_of(stem: str) -> str:
    words = re.split(r"[-_\s]+", stem.strip())
    return " ".join(word[:1].upper() + word[1:] for word in words if word) or "Untitled Dungeon"


class _Refused(Exception):
    """Nothing is written: the message says why."""


def _pack_manifest(folder: Path) -> tuple[Path, dict, list]:
    """``(manifest path, manifest, the pack's own rulesets)`` of the pack in ``folder``;
    raises :class:`_Refused` when it is not a valid pack manifest."""
    from inkcrawl.jsonio import read_json_file
    from inkcrawl.rulesets import load_ruleset_file
    from inkcrawl.schema import schema_problems
    from inkcrawl.validate import MANIFEST_NAME, path_inside_pack

    manifest_path = folder / MANIFEST_NAME
    if not manifest_path.is_file():
        raise _Refused(
            f"{folder}: no {MANIFEST_NAME} here, so it is not a content pack; "
            f"make one with 'inkcrawl new pack {folder}'"
        )
    manifest, problems = read_json_file(manifest_path)
    if not problems:
        problems = schema_problems(manifest, "pack", str(manifest_path))
    if problems:
        first = problems[0]
        raise _Refused(
            f"{first.file}:{first.pointer}: {first.message}; fix the manifest first ('inkcrawl validate {folder}')"
        )
    rulesets = []
    for relative in manifest.get("rulesets", []):
        target = path_inside_pack(folder, relative)
        ruleset = load_ruleset_file(target)[0] if target is not None and target.is_file() else None
        if ruleset is not None:
            rulesets.append(ruleset)
    return manifest_path, manifest, rulesets


def _choose_ruleset(args: argparse.Namespace, pack_ruleset: str | None, extra: list):
    """The ruleset of the new dungeon; raises :class:`_Refused` for an unknown id or one that
    contradicts ``--family`` or the pack."""
    from inkcrawl.suggest import expected
    from inkcrawl.validate import RulesetRegistry

    registry = RulesetRegistry(extra)
    wanted = args.ruleset or pack_ruleset or FAMILY_RULESETS[args.family or DEFAULT_FAMILY]
    ruleset = registry.get(wanted)
    if ruleset is None:
        raise _Refused(f"ruleset '{wanted}' is not known ({expected(wanted, registry.ids())})")
    if args.family and ruleset.family != args.family:
        raise _Refused(f"ruleset '{ruleset.id}' is for the {ruleset.family} family, not {args.family}")
    if pack_ruleset is not None and ruleset.id != pack_ruleset:
        raise _Refused(
            f"the pack plays every dungeon with ruleset '{pack_ruleset}', not '{ruleset.id}' "
            f"(leave out --ruleset, or make another pack)"
        )
    if ruleset.family not in FAMILY_RULESETS:
        raise _Refused(f"ruleset '{ruleset.id}' has an unknown family '{ruleset.family}'")
    return ruleset


def _dungeon_text(ruleset, title: str, dungeon_id: str) -> str:
    from inkcrawl.jsonio import dumps_canonical
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.templates import starter_data

    try:
        data = starter_data(ruleset, title, dungeon_id)
    except ValueError as exc:
        raise _Refused(str(exc)) from exc
    return dumps_canonical(dungeon_from_dict(data).to_dict())


def _check_new_file(path: Path, force: bool, what: str = "") -> None:
    if path.exists() and not force and not path.is_dir():
        raise _Refused(f"{path} already exists{what}; use --force to replace it, or give another name")
    message = check_output_file(path, force, new_folder=True)
    if message is not None:
        raise _Refused(message)


def _cmd_new(args: argparse.Namespace) -> int:
    from inkcrawl.textchars import text_problem

    try:
        refused = text_problem("--title", "the text", args.title, "", "") if args.title else None
        if refused is not None:  # the sheet's title would not validate (C007)
            raise _Refused(refused.message)
        if args.what:
            if len(args.what) != 2 or args.what[0] != "pack":
                from inkcrawl.suggest import did_you_mean

                hint = did_you_mean(args.what[0], ["pack"])
                raise _Refused(
                    f"unexpected {' '.join(args.what)!r}{hint}: 'inkcrawl new pack DIR' makes a pack, "
                    "'inkcrawl new -o FILE' a dungeon"
                )
            if args.output or args.pack:
                raise _Refused("'new pack DIR' writes DIR/pack.json and DIR/dungeons/; -o and --pack are not for it")
            return _new_pack(Path(args.what[1]), args)
        return _new_dungeon(args)
    except _Refused as exc:
        return _fail(str(exc))


def _new_dungeon(args: argparse.Namespace) -> int:
    from inkcrawl.jsonio import WriteRefused, check_target, write_json_atomic, write_text_atomic
    from inkcrawl.templates import slug

    pack_folder = Path(args.pack) if args.pack else None
    manifest_path: Path | None = None
    manifest: dict | None = None
    extra: list = []
    if pack_folder is not None:
        manifest_path, manifest, extra = _pack_manifest(pack_folder)
    if args.output is None and pack_folder is None:
        raise _Refused("give the file to write: -o FILE (or --pack DIR to write it into a pack)")
    ruleset = _choose_ruleset(args, manifest["ruleset"] if manifest else None, extra)
    stem = Path(args.output).stem if args.output else (args.id or args.title or "new-dungeon")
    dungeon_id = args.id or slug(stem)
    if not _ID.match(dungeon_id):
        raise _Refused(f"--id {dungeon_id!r} is not an id: a letter or digit, then letters, digits, '_', '.' or '-'")
    title = args.title or _title_of(stem)
    if args.output:
        output = Path(args.output)
    else:
        assert pack_folder is not None
        output = pack_folder / PACK_DUNGEONS / f"{dungeon_id}.json"
    if output.suffix.lower() != ".json":
        raise _Refused(f"{output}: a dungeon file's name ends in .json")
    relative = None
    if pack_folder is not None and manifest is not None:
        relative = _relative_in_pack(pack_folder, output)
        _check_pack_ids(pack_folder, manifest, dungeon_id, relative)
    _check_new_file(output, args.force)
    if manifest_path is not None:
        message = check_output_file(manifest_path, False, [output], new_folder=True)
        if message is not None:
            raise _Refused(message)
    text = _dungeon_text(ruleset, title, dungeon_id)
    created_folder = _make_folder(output.parent)
    try:
        write_text_atomic(output, text, force=args.force)
    except OSError as exc:
        raise _Refused(write_failure(output, exc)) from exc
    if manifest_path is not None and manifest is not None and relative is not None:
        if relative not in manifest["dungeons"]:
            updated = dict(manifest, dungeons=[*manifest["dungeons"], relative])
            try:
                check_target(manifest_path)
                write_json_atomic(manifest_path, updated)
            except (OSError, WriteRefused) as exc:
                _undo(output, created_folder, replaced=args.force)
                raise _Refused(write_failure(manifest_path, exc) + f"; {output} was not kept") from exc
        print(terminal_safe(f"wrote {output} ({ruleset.family} dungeon '{dungeon_id}', ruleset '{ruleset.id}')"))
        print(terminal_safe(f"added it to {manifest_path} as '{relative}'"))
    else:
        print(terminal_safe(f"wrote {output} ({ruleset.family} dungeon '{dungeon_id}', ruleset '{ruleset.id}')"))
    shown = pack_folder or output
    print(terminal_safe(f"next: inkcrawl edit {shown}   or   inkcrawl validate {shown}"))
    return EXIT_OK


def _relative_in_pack(folder: Path, output: Path) -> str:
    """How the manifest names ``output``: its path relative to the pack ``folder``, with '/';
    raises :class:`_Refused` when it lies outside the folder."""
    try:
        relative = Path(os.path.abspath(output)).relative_to(Path(os.path.abspath(folder)))
    except ValueError:
        raise _Refused(
            f"{output} is not inside the pack folder {folder}; a pack names only files inside it "
            f"(such as {folder / PACK_DUNGEONS / output.name})"
        ) from None
    return relative.as_posix()


def _check_pack_ids(folder: Path, manifest: dict, dungeon_id: str, relative: str) -> None:
    """Refuses (:class:`_Refused`) a dungeon id another dungeon of the pack already has."""
    from inkcrawl.jsonio import read_json_file
    from inkcrawl.validate import path_inside_pack

    for listed in manifest["dungeons"]:
        if listed == relative:
            continue
        path = path_inside_pack(folder, listed)
        if path is None or not path.is_file():
            continue
        data, problems = read_json_file(path)
        if not problems and isinstance(data, dict) and data.get("id") == dungeon_id:
            raise _Refused(f"the pack's dungeon '{listed}' already has the id '{dungeon_id}'; give another with --id")


def _make_folder(folder: Path) -> Path | None:
    """Make ``folder`` (and its parents) when missing; the topmost folder made, or ``None``."""
    missing = None
    for candidate in [folder, *folder.parents]:
        if candidate.exists():
            break
        missing = candidate
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _Refused(f"cannot make the folder {folder}: {exc.strerror or exc}") from exc
    return missing


def _undo(path: Path, created_folder: Path | None, replaced: bool) -> None:
    """Remove what a failed command wrote: the new file (not one it replaced) and folders it made."""
    if replaced:
        return
    try:
        path.unlink()
        if created_folder is not None:
            for folder in [path.parent, *path.parent.parents]:
                folder.rmdir()
                if folder == created_folder:
                    break
    except OSError:
        pass


def _write_whole_pack(folder: Path, dungeon: str, text: str, manifest: dict) -> None:
    """Write the new pack ``folder`` (not existing yet) whole or not at all: its manifest and the
    dungeon (``dungeon``, a path in the pack, holding ``text``) in a hidden folder beside it, then
    renamed into place (:func:`inkcrawl.jsonio.atomic_folder`), so a killed run never leaves a
    dungeon without its manifest. Missing parent folders are made first (and removed again when
    the write fails). Raises :class:`_Refused` naming the folder when it cannot be written."""
    from inkcrawl.jsonio import atomic_folder, write_json_atomic, write_text_atomic
    from inkcrawl.validate import MANIFEST_NAME

    parent = folder.parent if str(folder.parent) else Path(".")
    created = _make_folder(parent)
    try:
        with atomic_folder(folder) as building:
            (building / dungeon).parent.mkdir(parents=True)
            write_text_atomic(building / dungeon, text)
            write_json_atomic(building / MANIFEST_NAME, manifest)
    except OSError as exc:
        if created is not None:
            for made in [parent, *parent.parents]:
                try:
                    made.rmdir()
                except OSError:
                    break
                if made == created:
                    break
        raise _Refused(write_failure(folder, exc)) from exc


def _new_pack(folder: Path, args: argparse.Namespace) -> int:
    from inkcrawl.jsonio import write_json_atomic, write_text_atomic
    from inkcrawl.templates import slug
    from inkcrawl.validate import MANIFEST_NAME

    if folder.exists() and not folder.is_dir():
        raise _Refused(f"{folder} exists and is not a folder")
    manifest_path = folder / MANIFEST_NAME
    if manifest_path.exists():
        raise _Refused(
            f"{manifest_path} already exists: {folder} is a pack; add a dungeon with 'inkcrawl new --pack {folder}'"
        )
    ruleset = _choose_ruleset(args, None, [])
    pack_id = slug(Path(os.path.abspath(folder)).name, "pack")
    dungeon_id = args.id or FIRST_DUNGEON
    if not _ID.match(dungeon_id):
        raise _Refused(f"--id {dungeon_id!r} is not an id: a letter or digit, then letters, digits, '_', '.' or '-'")
    dungeon_path = folder / PACK_DUNGEONS / f"{dungeon_id}.json"
    _check_new_file(dungeon_path, args.force)
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": pack_id,
        "name": _title_of(pack_id),
        "version": "0.1.0",
        "description": "",
        "ruleset": ruleset.id,
        "dungeons": [f"{PACK_DUNGEONS}/{dungeon_id}.json"],
    }
    text = _dungeon_text(ruleset, args.title or _title_of(dungeon_id), dungeon_id)
    if not folder.exists() and not folder.is_symlink():
        _write_whole_pack(folder, f"{PACK_DUNGEONS}/{dungeon_id}.json", text, manifest)
    else:  # a folder the user made (perhaps the current one): the dungeon, then the manifest making it a pack
        created_folder = _make_folder(dungeon_path.parent)
        try:
            write_text_atomic(dungeon_path, text, force=args.force)
        except OSError as exc:
            raise _Refused(write_failure(dungeon_path, exc)) from exc
        try:
            write_json_atomic(manifest_path, manifest)
        except OSError as exc:
            _undo(dungeon_path, created_folder, replaced=args.force)
            raise _Refused(write_failure(manifest_path, exc)) from exc
    print(terminal_safe(f"wrote {manifest_path} (pack '{pack_id}', ruleset '{ruleset.id}')"))
    print(terminal_safe(f"wrote {dungeon_path} ({ruleset.family} dungeon '{dungeon_id}')"))
    print(terminal_safe(f"next: inkcrawl edit {folder}   or   inkcrawl validate {folder}"))
    return EXIT_OK
