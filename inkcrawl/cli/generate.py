"""``inkcrawl generate``: new dungeons that validate with no errors, from a seed and a
constraints file (:mod:`inkcrawl.generate`; the constraints' format is
``schemas/constraints.schema.json``, documented in docs/generating.md)."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from pathlib import Path

from inkcrawl.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    CommandStop,
    check_output_file,
    read_spec_file,
    terminal_safe,
    whole_number,
    write_failure,
)

_EPILOG = """\
examples:
  inkcrawl generate --family grid --seed 7 -o crypt.json              the ruleset's counts, a random layout
  inkcrawl generate --family grid --seed 7 --constraints hard.json -o hard-crypt.json
  inkcrawl generate --family grid --seed 3 --count 10 --constraints curve.json -o rising-pack
  inkcrawl generate --family grid --seed 1 --ruleset my-variant --time-limit 20 -o variant.json
  inkcrawl generate --family line --seed 4 -o cellars.json          rooms, corridors, doors, then content
  inkcrawl generate --family line --seed 4 --count 5 --constraints deep.json -o line-pack

A constraints file (docs/generating.md; schema schemas/constraints.schema.json):
  {"type": "constraints", "format_version": 1, "family": "grid",
   "grid": {"columns": 7, "rows": 7, "entryways": 6, "features": {"loot": 4, "dragon": 1, "pairs": 6},
            "passages": {"density": [0.6, 0.8], "every_room_reachable": true},
            "distances": {"dragon_from_entryways": 4, "monster_from_weapon": 3},
            "difficulty": {"mean_score": {"from": [0, 4], "to": [12, 16]}}}}
  {"type": "constraints", "format_version": 1, "family": "line",
   "line": {"rooms": [6, 9], "locked_doors": 2, "corridor_width_mm": 12, "loops": 0.3,
            "elements": {"monster": [3, 5], "boss": 1}, "locks": {"depth": 1},
            "difficulty": {"par": [18, 26]}}}
Members left out take the ruleset's values. The same seed and constraints give the same bytes.
With --count above 1, -o names a new pack folder (pack.json and dungeons/), written whole or not
at all, and a difficulty curve runs from the first dungeon to the last. An impossible spec is
explained before any search (the constraints in conflict named), or after --time-limit seconds
per dungeon with the constraint that could not be met. An existing file is never replaced
without --force; a pack folder must not exist yet.
exit codes: 0 written, 1 nothing written: the constraints cannot be met (or a constraints file with
schema errors, or an internal error), 2 nothing written: usage error, unknown ruleset, unreadable
constraints, an existing output, an output that cannot be written; 130 Ctrl+C, 143 SIGTERM
"""

#: Most dungeons one run generates.
MAX_COUNT = 1000
#: argparse types: ``--count`` (1 to :data:`MAX_COUNT`) and ``--seed`` (a whole number from 0).
_count = whole_number(1, MAX_COUNT)
_seed = whole_number(0, what="a seed is a whole number from 0")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("use more than 0 and at most 3600 seconds")
    return value


def register(subparsers) -> None:
    """Add ``generate`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "generate",
        help="generate dungeons that validate with no errors, from a seed and constraints",
        description="Generate a dungeon (or with --count N a pack of N) from a seed: grid size, entryways, "
        "features, passage density, distance rules and a difficulty target from a constraints file, the rest "
        "from the ruleset; line dungeons: rooms, corridors and locked doors, then the content of "
        "'inkcrawl populate' with a par target. Every dungeon is validated before it is written.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-o", "--output", metavar="OUT", required=True, help="the dungeon file (a pack folder with --count above 1)"
    )
    parser.add_argument("--family", choices=("grid", "line"), help="the family (default: the constraints', else grid)")
    parser.add_argument(
        "--seed", type=_seed, required=True, metavar="S", help="random seed: the same seed, the same dungeon"
    )
    parser.add_argument("--constraints", metavar="FILE", help="a constraints file (JSON, docs/generating.md)")
    parser.add_argument(
        "--count", type=_count, default=1, metavar="N", help="dungeons to generate (default 1; above 1 a pack)"
    )
    parser.add_argument(
        "--ruleset", metavar="ID", help="a bundled ruleset id (default: the constraints', else grid-classic)"
    )
    parser.add_argument(
        "--time-limit", type=_seconds, default=None, metavar="SEC", help="seconds of search per dungeon (default 5)"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing dungeon file")
    parser.set_defaults(func=_cmd_generate)


def _cmd_generate(args: argparse.Namespace) -> int:
    try:
        return _generate(args)
    except CommandStop as exc:
        print(terminal_safe(f"inkcrawl generate: error: {exc}"), file=sys.stderr)
        return exc.status


def _read_constraints(path_text: str) -> dict:
    """The constraints file (docs/generating.md): :func:`inkcrawl.cli.common.read_spec_file`."""
    return read_spec_file(path_text, "constraints", "docs/generating.md")


def _generate(args: argparse.Namespace) -> int:
    from inkcrawl.cli.new import FAMILY_RULESETS
    from inkcrawl.generate import DEFAULT_TIME_LIMIT
    from inkcrawl.suggest import expected
    from inkcrawl.validate import RulesetRegistry

    constraints = _read_constraints(args.constraints) if args.constraints else None
    family = args.family or (constraints or {}).get("family") or "grid"
    if constraints is not None and constraints["family"] != family:
        raise CommandStop(f"--family {family}, but {args.constraints} is for the {constraints['family']} family")
    registry = RulesetRegistry()
    wanted = args.ruleset or (constraints or {}).get("ruleset") or FAMILY_RULESETS[family]
    ruleset = registry.get(wanted)
    if ruleset is None:
        raise CommandStop(f"ruleset '{wanted}' is not known ({expected(wanted, registry.ids())})")
    if ruleset.family != family:
        raise CommandStop(f"ruleset '{ruleset.id}' is for the {ruleset.family} family, not {family}")
    output = Path(args.output)
    if args.count == 1:
        if output.suffix.lower() != ".json":
            raise CommandStop(f"{output}: a dungeon file's name ends in .json (a pack folder needs --count above 1)")
        if output.exists() and not args.force and not output.is_dir():
            raise CommandStop(f"{output} already exists; use --force to replace it, or give another name")
        refused = check_output_file(output, args.force, [args.constraints] if args.constraints else [])
        if refused is not None:
            raise CommandStop(refused)
    else:
        refused = _new_pack_folder(output)
        if refused is not None:
            raise CommandStop(refused)
    limit = args.time_limit or DEFAULT_TIME_LIMIT
    with contextlib.ExitStack() as resources:  # a grid difficulty target's helper process, stopped after
        if family == "line":
            make, describe = _line_family(constraints, ruleset, args.seed, args.count, limit)
        else:
            make, describe = _grid_family(constraints, ruleset, args.seed, args.count, limit, resources)
        return _generate_and_write(args, output, ruleset, make, describe)


def _generate_and_write(args: argparse.Namespace, output: Path, ruleset, make, describe) -> int:
    """Generate the ``args.count`` dungeons (``make(index, dungeon_id)``, either family), then
    write the file or the pack (whole or not at all) and a line per dungeon (``describe(result)``)."""
    from inkcrawl.cli.new import PACK_DUNGEONS
    from inkcrawl.generate import GenerateError, GeneratorBug
    from inkcrawl.jsonio import dumps_canonical
    from inkcrawl.templates import slug

    pack_id = slug(Path(os.path.abspath(output)).name, "pack")
    results = []
    for index in range(args.count):
        dungeon_id = (
            (slug(output.stem)[:64].strip("-") or "dungeon") if args.count == 1 else f"{pack_id[:56]}-{index + 1:02d}"
        )
        try:
            results.append(make(index, dungeon_id))
        except GeneratorBug as exc:
            raise CommandStop(f"{exc}; nothing written", EXIT_PROBLEMS) from exc
        except GenerateError as exc:
            where = f"dungeon {index + 1} of {args.count}: " if args.count > 1 else ""
            raise CommandStop(f"{where}{exc}; nothing written", EXIT_PROBLEMS) from exc
    if args.count == 1:
        _write_file(output, dumps_canonical(results[0].data), args.force)
    else:
        _write_pack(output, pack_id, ruleset.id, results, args.seed, PACK_DUNGEONS)
    for result in results:
        shown = output if args.count == 1 else output / PACK_DUNGEONS / f"{result.data['id']}.json"
        print(terminal_safe(f"wrote {shown} ('{result.data['sheet']['title']}': {describe(result)})"))
    print(terminal_safe(f"next: inkcrawl validate {output}   or   inkcrawl edit {output}"))
    return EXIT_OK


def _grid_family(
    constraints: dict | None, ruleset, seed: int, count: int, limit: float, resources: contextlib.ExitStack
):
    """``(make, describe)`` of :func:`_generate_and_write` for grid dungeons
    (:func:`inkcrawl.generate.generate_grid`); a difficulty target's games are shared with a
    helper process (:func:`inkcrawl.generate.measure.measure_helper`) that ``resources`` stops."""
    from inkcrawl.generate import GenerateError, generate_grid, grid_spec
    from inkcrawl.generate.measure import measure_helper

    try:
        spec = grid_spec(constraints, ruleset)
    except GenerateError as exc:
        raise CommandStop(f"{exc}; nothing written", EXIT_PROBLEMS) from exc
    helper = resources.enter_context(measure_helper()) if spec.difficulty is not None else None

    def make(index: int, dungeon_id: str):
        return generate_grid(spec, seed, index, count, dungeon_id=dungeon_id, time_limit=limit, helper=helper)

    def describe(result) -> str:
        tries = f"{result.tries} tr{'y' if result.tries == 1 else 'ies'}"
        note = f"{len(result.data['passages'])} passages ({result.density:.0%} of inner edges), {tries}"
        if result.mean_score is not None and result.score_range is not None:
            low, high = result.score_range
            difficulty = spec.difficulty or {}
            note += (
                f", mean score {result.mean_score:.2f} in {low:.2f}..{high:.2f} "
                f"({difficulty['policy']}, {difficulty['players']} players, {difficulty['games']} games, "
                f"seed {difficulty['seed']})"
            )
        return note

    return make, describe


def _line_family(constraints: dict | None, ruleset, seed: int, count: int, limit: float):
    """``(make, describe)`` of :func:`_generate_and_write` for line dungeons
    (:func:`inkcrawl.generate.line.generate_line`, a par curve followed over the pack)."""
    from inkcrawl.generate import GenerateError, line_spec
    from inkcrawl.generate.line import generate_line

    try:
        spec = line_spec(constraints, ruleset)
    except GenerateError as exc:
        raise CommandStop(f"{exc}; nothing written", EXIT_PROBLEMS) from exc

    def make(index: int, dungeon_id: str):
        return generate_line(spec.for_index(index, count), seed, index, dungeon_id=dungeon_id, time_limit=limit)

    def describe(result) -> str:
        populated = result.populated
        target = ""
        if populated.par_range is not None:
            target = f" in {populated.par_range[0]:g}..{populated.par_range[1]:g}"
        timer = populated.timer_note()
        return (
            f"{result.rooms} rooms, {result.corridors} corridors, {result.doors} locked "
            f"door{'' if result.doors == 1 else 's'} (keys {populated.depth} deep), par {populated.par} VP{target}"
            + (f"; {timer}" if timer else "")
        )

    return make, describe


def _new_pack_folder(folder: Path) -> str | None:
    """Why ``folder`` cannot be the new pack folder (``None`` when it can): it must not exist
    yet, its parent must, and it is a folder, not a ``.json`` file."""
    from inkcrawl.validate import unusable_path

    if folder.suffix.lower() == ".json":
        return f"with --count above 1, -o names the pack folder to create, not a .json file ({folder})"
    unusable = unusable_path(folder)
    if unusable is not None:
        return f"{folder}: {unusable}"
    if folder.exists() or folder.is_symlink():
        return f"{folder} already exists; --count writes a new pack folder: give a name not yet used"
    if not (folder.parent if str(folder.parent) else Path(".")).is_dir():
        return f"the folder {str(folder.parent)!r} does not exist"
    return None


def _write_file(output: Path, text: str, force: bool) -> None:
    from inkcrawl.jsonio import write_text_atomic

    try:
        write_text_atomic(output, text, force=force)
    except OSError as exc:
        raise CommandStop(write_failure(output, exc)) from exc


def _write_pack(folder: Path, pack_id: str, ruleset_id: str, results: list, seed: int, dungeons: str) -> None:
    """The pack folder ``folder`` with ``pack.json`` and ``dungeons/<id>.json``, whole or not at
    all: made in a hidden folder beside it, then renamed (as ``inkcrawl import --level all``)."""
    from inkcrawl.cli.new import _title_of
    from inkcrawl.jsonio import atomic_folder, dumps_canonical, write_text_atomic
    from inkcrawl.schema import schema_problems
    from inkcrawl.validate import MANIFEST_NAME

    files = {f"{dungeons}/{r.data['id']}.json": dumps_canonical(r.data) for r in results}
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": pack_id,
        "name": _title_of(pack_id)[:200],
        "version": "0.1.0",
        "description": f"{len(results)} dungeons generated by inkcrawl generate with seed {seed}.",
        "ruleset": ruleset_id,
        "dungeons": list(files),
    }
    problems = schema_problems(manifest, "pack", MANIFEST_NAME)
    if problems:
        raise CommandStop(
            f"internal error: the pack manifest does not validate ({problems[0].message}); nothing written", 1
        )
    files[MANIFEST_NAME] = dumps_canonical(manifest)
    try:  # made in a hidden folder beside it, then renamed: the whole pack appears at once, or nothing
        with atomic_folder(folder) as building:
            (building / dungeons).mkdir()
            for relative, text in files.items():
                write_text_atomic(building / relative, text)
    except OSError as exc:
        raise CommandStop(write_failure(folder, exc)) from exc
