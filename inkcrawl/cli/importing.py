"""``inkcrawl import``: turn a dungeon made by another tool into an inkcrawl dungeon file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inkcrawl.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, check_output_file, terminal_safe, write_failure

_EPILOG = """\
examples:
  inkcrawl import prison.json -o prison-dungeon.json                 (watabou One Page Dungeon)
  inkcrawl import map.dd2vtt -o vtt-dungeon.json --cell-mm 6          (Universal VTT)
  inkcrawl import level.tmx -o level.json --map my-classes.json       (Tiled, with a class mapping)
  inkcrawl import world.ldtk -o cave.json --level Cave_2              (LDtk, one level of the project)
  inkcrawl import world.ldtk -o world-pack --level all                (LDtk, every level: a new pack)

The format is detected from the content; --format forces one. A Tiled map reads its external
tilesets and templates (an LDtk project its level files) only inside its own folder (and below)
unless --allow-folder names more. An LDtk project gives one dungeon per import: --level chooses
(any other format refuses --level); --level all makes every level a dungeon of a new pack folder
-o DIR (dungeons/*.json and pack.json, written whole or not at all, validated as a pack).
Everything the importer could not map or had to repair is listed as a warning naming the source
object; nothing is dropped silently. The result is then validated like 'inkcrawl validate' would.
The output is written atomically; it is never the FILE itself (or --map), a read-only output is
refused unless --force, a device always; a symlink is written through to its target.
exit codes: 0 written and valid, 1 written but validation found errors, 2 not written (usage
error, unreadable or malformed input, output that cannot be written); 130 Ctrl+C, 143 SIGTERM
"""


def register(subparsers) -> None:
    """Add ``import`` to the ``inkcrawl`` command line."""
    from inkcrawl.importers import importer_names  # names only: the importers load when used

    names = importer_names()
    parser = subparsers.add_parser(
        "import",
        help="import a dungeon from watabou, donjon, Universal VTT, Tiled or LDtk",
        description="Convert a dungeon made by another tool into an inkcrawl dungeon file. Formats: "
        + ", ".join(f"{n} ({names[n]})" for n in sorted(names))
        + ".",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", metavar="FILE", help="the file to import")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="DUNGEON.json",
        help="the dungeon file to write (with --level all: the pack folder to create)",
    )
    parser.add_argument(
        "--format",
        metavar="NAME",
        help=f"the source format: {', '.join(sorted(names))} (default: detected from the content)",
    )
    parser.add_argument(
        "--cell-mm",
        type=float,
        metavar="MM",
        help="printed size of one source grid cell in mm (default: the importer's, shrunk to fit A4)",
    )
    parser.add_argument("--ruleset", metavar="ID", help="ruleset of the result (default: the family's classic one)")
    parser.add_argument(
        "--map",
        metavar="FILE",
        help="Tiled, LDtk: a JSON file mapping object classes/types (LDtk: entity identifiers, and IntGrid "
        "values under 'intgrid') to element kinds",
    )
    parser.add_argument(
        "--level",
        metavar="NAME",
        help="LDtk: the level to import, by identifier or number (1 for the first; default: the first, the "
        "others named in a warning); 'all': every level, each a dungeon of the new pack folder -o DIR",
    )
    parser.add_argument(
        "--allow-folder",
        action="append",
        default=[],
        metavar="DIR",
        help="Tiled, LDtk: also read tilesets, templates and level files from DIR (and below); by default a "
        "map reads only "
        "inside its own folder (repeatable)",
    )
    parser.add_argument("--force", action="store_true", help="replace the output even when it is read-only")
    parser.set_defaults(func=_cmd_import)


def _fail(message: str) -> int:
    print(terminal_safe(f"inkcrawl import: error: {message}"), file=sys.stderr)
    return EXIT_USAGE


def _cmd_import(args: argparse.Namespace) -> int:
    from inkcrawl.importers import (
        ImportFailed,
        ImportOptions,
        MappingFailed,
        check_limits,
        condense_notes,
        detect_format,
        did_you_mean,
        importers,
        missing_to_play,
    )
    from inkcrawl.jsonio import dumps_canonical, read_json_file, write_text_atomic
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.report import format_text
    from inkcrawl.schema import schema_problems
    from inkcrawl.validate import unusable_path, validate_paths

    source = Path(args.file)
    unusable = unusable_path(source)
    if unusable is not None:
        return _fail(f"{args.file}: {unusable}")
    if not source.is_file():
        return _fail(f"{args.file}: no such file" if not source.exists() else f"{args.file}: not a regular file")
    output = Path(args.output)
    every_level = args.level is not None and args.level.strip().lower() == "all"
    inputs = [source] + ([Path(args.map)] if args.map else [])
    if every_level:
        refused = _new_pack_folder(output)
    elif output.suffix.lower() != ".json":
        refused = "the output is a dungeon file: its name must end in .json"
    elif not (output.parent if str(output.parent) else Path(".")).is_dir():
        refused = f"the folder {str(output.parent)!r} does not exist"
    else:
        refused = check_output_file(output, args.force, inputs)
    if refused:
        return _fail(refused)
    if args.cell_mm is not None and not 0.5 <= args.cell_mm <= 100:
        return _fail("--cell-mm must be between 0.5 and 100 mm")
    for folder in args.allow_folder:
        if unusable_path(Path(folder)) is not None or not Path(folder).is_dir():
            return _fail(f"--allow-folder {folder}: not a folder")
    mapping = None
    if args.map:
        mapping, problems = read_json_file(Path(args.map))
        if problems:
            return _fail(f"{args.map}: {problems[0].message}")
        if not isinstance(mapping, dict):
            return _fail(f"{args.map}: the mapping must be a JSON object")
    available = importers()
    if args.format is not None and args.format not in available:
        return _fail(
            f"unknown --format {args.format!r}{did_you_mean(args.format, sorted(available))}; "
            f"choose from {', '.join(sorted(available))}"
        )
    try:
        name = args.format or detect_format(source)
    except OSError as exc:
        return _fail(f"{args.file}: cannot read the file: {exc.strerror or exc}")
    if name is None:
        return _fail(
            f"{args.file}: not a format inkcrawl imports ({', '.join(sorted(available))}); "
            f"use --format if it is one of them"
        )
    if args.level is not None and name != "ldtk":
        return _fail(
            f"--level chooses a level of an LDtk project; {args.file} is a {name} file "
            f"({available[name].description}), which holds one dungeon: leave --level out"
        )
    options = ImportOptions(
        cell_mm=args.cell_mm,
        ruleset=args.ruleset,
        mapping=mapping,
        allowed_folders=tuple(args.allow_folder),
        level=None if every_level else args.level,
    )
    if every_level:
        return _import_every_level(available[name], args, options, output)
    try:
        result = available[name].convert(source, options)
        check_limits(result.dungeon)
    except MappingFailed as exc:  # the --map file is wrong, not the map
        return _fail(f"{args.map}: {exc}")
    except ImportFailed as exc:
        return _fail(f"{args.file}: {exc}")
    except (OSError, UnicodeError, ValueError, LookupError, TypeError, RecursionError) as exc:
        return _fail(f"{args.file}: not a readable {name} file ({type(exc).__name__}: {exc})"[:400])
    data = result.dungeon
    if args.ruleset:
        data["ruleset"] = args.ruleset
    problems = schema_problems(data, "dungeon", str(output))
    if problems:  # the importer's own bug: never write a file inkcrawl cannot read back
        return _fail(
            f"the imported dungeon does not match the dungeon schema ({problems[0].pointer}: "
            f"{_shortened(problems[0].message)}); please report this with the source file"
        )
    try:
        write_text_atomic(output, dumps_canonical(dungeon_from_dict(data).to_dict()), force=args.force, inputs=inputs)
    except OSError as exc:
        return _fail(write_failure(args.output, exc))
    for note in condense_notes(result.notes):
        print(terminal_safe(f"{args.file}: warning IMPORT {note.source}: {note.message}"), file=sys.stderr)
    report = validate_paths([str(output)])
    if report.problems:
        sys.stderr.write(format_text(report))
    print(
        terminal_safe(
            f"wrote {output} from {name} ({len(result.notes)} import warning{'s' if len(result.notes) != 1 else ''})"
        )
    )
    for missing in missing_to_play(data):
        print(f"to play it: {missing}")
    return EXIT_PROBLEMS if report.errors else EXIT_OK


def _shortened(text: str, most: int = 300) -> str:
    """``text`` cut to ``most`` characters (a schema message can quote a whole array)."""
    return text if len(text) <= most else text[: most - 1] + "…"


def _new_pack_folder(folder: Path) -> str | None:
    """Why ``folder`` cannot be the new pack folder of ``--level all`` (``None`` when it can): it
    must not exist yet, its parent must, and it is a folder, not a ``.json`` file."""
    from inkcrawl.validate import unusable_path

    if folder.suffix.lower() == ".json":
        return f"with --level all, -o names the pack folder to create, not a .json file ({folder})"
    unusable = unusable_path(folder)
    if unusable is not None:
        return f"{folder}: {unusable}"
    if folder.exists() or folder.is_symlink():
        return f"{folder} already exists; --level all writes a new pack folder: give a name not yet used"
    if not (folder.parent if str(folder.parent) else Path(".")).is_dir():
        return f"the folder {str(folder.parent)!r} does not exist"
    return None


def _import_every_level(importer, args: argparse.Namespace, options, folder: Path) -> int:
    """``--level all``: every level of an LDtk project a dungeon of a new pack folder
    (``dungeons/<level>.json`` and ``pack.json``, the format of docs/formats.md), written whole
    or not at all (made in a hidden folder beside it, then renamed), then validated as a pack.
    A level that cannot be imported is named in a warning and left out; none imported is exit 2."""
    from inkcrawl.importers import ImportFailed, MappingFailed, check_limits, condense_notes
    from inkcrawl.importers.build import safe_id
    from inkcrawl.jsonio import atomic_folder, dumps_canonical, write_text_atomic
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.report import format_text
    from inkcrawl.schema import schema_problems
    from inkcrawl.validate import MANIFEST_NAME, validate_paths

    source = Path(args.file)
    try:
        project_notes, levels = importer.convert_levels(source, options)
    except MappingFailed as exc:
        return _fail(f"{args.map}: {exc}")
    except ImportFailed as exc:
        return _fail(f"{args.file}: {exc}")
    except (OSError, UnicodeError, ValueError, LookupError, TypeError, RecursionError) as exc:
        return _fail(f"{args.file}: not a readable LDtk project ({type(exc).__name__}: {exc})"[:400])
    warnings = [f"{note.source}: {note.message}" for note in condense_notes(project_notes)]
    files: dict[str, str] = {}  # path in the pack -> the dungeon file's text
    rulesets = []
    taken: set[str] = set()  # dungeon ids in lower case
    for level, result in levels:
        if isinstance(result, ImportFailed):
            warnings.append(f"{level.describe()}: not imported: {result}")
            continue
        try:
            check_limits(result.dungeon)
        except ImportFailed as exc:
            warnings.append(f"{level.describe()}: not imported: {exc}")
            continue
        data = result.dungeon
        if args.ruleset:
            data["ruleset"] = args.ruleset
        problems = schema_problems(data, "dungeon", level.describe())
        if problems:  # the importer's own bug: never write a file inkcrawl cannot read back
            return _fail(
                f"{level.describe()}: the imported dungeon does not match the dungeon schema ({problems[0].pointer}: "
                f"{_shortened(problems[0].message)}); please report this with the source file"
            )
        base, number = data["id"], 2
        while data["id"].lower() in taken:  # one file per id, whatever the file system's case rules
            data["id"] = f"{base[:58]}-{number}"
            number += 1
        taken.add(data["id"].lower())
        files[f"dungeons/{data['id']}.json"] = dumps_canonical(dungeon_from_dict(data).to_dict())
        rulesets.append(data["ruleset"])
        warnings += [f"{level.describe()}: {note.source}: {note.message}" for note in condense_notes(result.notes)]
    for warning in warnings:
        print(terminal_safe(f"{args.file}: warning IMPORT {warning}"), file=sys.stderr)
    if not files:
        return _fail(f"{args.file}: no level could be imported; nothing written")
    if len(set(rulesets)) > 1:  # a pack plays every dungeon with one ruleset
        return _fail(
            f"the levels were imported on different rulesets ({', '.join(sorted(set(rulesets)))}); nothing written"
        )
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": safe_id(folder.name, "pack"),
        "name": source.stem[:200] or "LDtk levels",
        "version": "0.1.0",
        "description": f"The levels of the LDtk project {source.name[:200]}, imported by inkcrawl.",
        "ruleset": rulesets[0],
        "dungeons": list(files),
    }
    files[MANIFEST_NAME] = dumps_canonical(manifest)
    try:  # made in a hidden folder beside it, then renamed: the whole pack appears at once, or nothing
        with atomic_folder(folder) as building:
            (building / "dungeons").mkdir()
            for relative, text in files.items():
                write_text_atomic(building / relative, text)
    except OSError as exc:
        return _fail(write_failure(folder, exc))
    report = validate_paths([str(folder / MANIFEST_NAME)])
    if report.problems:
        sys.stderr.write(format_text(report))
    count = len(files) - 1
    print(terminal_safe(f"wrote {folder} from ldtk: {MANIFEST_NAME} and {count} dungeon{'s' if count != 1 else ''}"))
    return EXIT_PROBLEMS if report.errors else EXIT_OK
