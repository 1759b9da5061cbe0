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

The format is detected from the content; --format forces one. A Tiled map reads its external
tilesets and templates (an LDtk project its level files) only inside its own folder (and below)
unless --allow-folder names more. An LDtk project gives one dungeon per import: --level chooses.
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
    parser.add_argument("-o", "--output", required=True, metavar="DUNGEON.json", help="the dungeon file to write")
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
        "others named in a warning)",
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
    if output.suffix.lower() != ".json":
        return _fail("the output is a dungeon file: its name must end in .json")
    if not (output.parent if str(output.parent) else Path(".")).is_dir():
        return _fail(f"the folder {str(output.parent)!r} does not exist")
    inputs = [source] + ([Path(args.map)] if args.map else [])
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
    options = ImportOptions(
        cell_mm=args.cell_mm,
        ruleset=args.ruleset,
        mapping=mapping,
        allowed_folders=tuple(args.allow_folder),
        level=args.level,
    )
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
