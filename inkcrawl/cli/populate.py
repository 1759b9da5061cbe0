"""``inkcrawl populate``: scoring content for an existing line layout, such as an imported map
(:mod:`inkcrawl.generate.populate`; the constraints' ``line`` section, docs/generating.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inkcrawl.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    CommandStop,
    check_output_file,
    existing_input,
    terminal_safe,
    write_failure,
)
from inkcrawl.cli.generate import _read_constraints, _seconds, _seed

_EPILOG = """\
examples:
  inkcrawl import prison.json -o prison-layout.json
  inkcrawl populate prison-layout.json --seed 7 -o prison.json     counts from the layout's rooms
  inkcrawl populate crypt.json --seed 2 --constraints deep-locks.json -o crypt-full.json
  inkcrawl populate crypt.json --seed 3 --time-limit 20 --constraints par-20-30.json -o crypt-hard.json

A constraints file (docs/generating.md; schema schemas/constraints.schema.json):
  {"type": "constraints", "format_version": 1, "family": "line",
   "line": {"elements": {"monster": [3, 5], "plant": 2, "artifact_stone": 3, "orb": 2, "boss": 1},
            "boss_vp": 5, "orb_tokens": {"blue": [4, 3, 2, 1]},
            "locks": {"depth": 2, "skeleton_keys": 0},
            "difficulty": {"par": [15, 25], "players": 1}}}
Every area, wall, door, label and Start of the layout stays exactly as it was. Added: the
elements, one key per colour the doors ask for (the layout's own keys replaced; each key where
a player reaches it without its doors, chained behind other doors up to line.locks.depth),
line.portal_pairs one-way portal pairs, a Start on the outer wall when there is none, the
line.end_triggers (default: one when the sheet lists none), the sheet's orb tokens and
components. A dungeon that a pack lists is populated with the pack's rulesets. The result is
validated before it is written: no more errors than the layout had (zero when it had none),
and par must draw its route. The same seed gives the same bytes.
An impossible spec is explained before any search (the constraint named), or after
--time-limit seconds. An existing file is never replaced without --force.
exit codes: 0 written, 1 nothing written: the constraints cannot be met (or a constraints file
with schema errors, a layout whose structure is broken, an internal error), 2 nothing written:
usage error, unreadable dungeon or constraints, not a line dungeon, unknown ruleset, an existing
output, an output that cannot be written; 130 Ctrl+C, 143 SIGTERM
"""


def register(subparsers) -> None:
    """Add ``populate`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "populate",
        help="add scoring content, keys, a Start and an end trigger to a line layout",
        description="Populate a line dungeon's layout (an imported map, say) with monsters, plants, prisoners, "
        "treasures, spells, artifact stones, orbs, a boss and a lock puzzle, from a seed and a constraints file; "
        "areas, walls, doors, labels and Starts are kept exactly. The result is validated before it is written.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dungeon", metavar="DUNGEON", help="a line dungeon file (JSON)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="the populated dungeon file")
    parser.add_argument(
        "--seed", type=_seed, required=True, metavar="S", help="random seed: the same seed, the same dungeon"
    )
    parser.add_argument("--constraints", metavar="FILE", help="a constraints file with a line section")
    parser.add_argument(
        "--time-limit", type=_seconds, default=None, metavar="SEC", help="seconds of search (default 5)"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing output file")
    parser.set_defaults(func=_cmd_populate)


def _cmd_populate(args: argparse.Namespace) -> int:
    try:
        return _populate(args)
    except CommandStop as exc:
        print(terminal_safe(f"inkcrawl populate: error: {exc}"), file=sys.stderr)
        return exc.status


def _read_dungeon(path_text: str) -> dict:
    from inkcrawl.validate import load_document

    loaded = load_document(existing_input(path_text), path_text)
    if loaded.data is None:
        first = loaded.problems[0]
        raise CommandStop(f"{first.file}:{first.pointer}: {first.message}")
    if loaded.file_type != "dungeon":
        raise CommandStop(f"{path_text}: a {loaded.file_type} file, not a dungeon; populate one dungeon file at a time")
    if loaded.data.get("family") != "line":
        raise CommandStop(
            f"{path_text}: a {loaded.data.get('family')!r} dungeon; populate adds content to line dungeons"
        )
    return loaded.data


def _populate(args: argparse.Namespace) -> int:
    from inkcrawl.generate import DEFAULT_TIME_LIMIT, GenerateError, GeneratorBug
    from inkcrawl.generate.constraints import line_spec
    from inkcrawl.generate.populate import populate_line
    from inkcrawl.jsonio import dumps_canonical, write_text_atomic
    from inkcrawl.suggest import expected
    from inkcrawl.validate import RulesetRegistry, check_dungeon_data, enclosing_pack

    data = _read_dungeon(args.dungeon)
    constraints = _read_constraints(args.constraints) if args.constraints else None
    if constraints is not None and constraints["family"] != "line":
        raise CommandStop(
            f"{args.constraints} is for the {constraints['family']} family; populate needs a line section"
        )
    output = Path(args.output)
    if output.suffix.lower() != ".json":
        raise CommandStop(f"{output}: a dungeon file's name ends in .json")
    inputs = [args.dungeon] + ([args.constraints] if args.constraints else [])
    if output.exists() and not args.force and not output.is_dir():
        raise CommandStop(f"{output} already exists; use --force to replace it, or give another name")
    refused = check_output_file(output, args.force, inputs)
    if refused is not None:
        raise CommandStop(refused)
    # a dungeon a pack lists is played with the pack's rulesets, as validate checks it
    pack_rulesets, _deck = enclosing_pack(Path(args.dungeon))
    registry = RulesetRegistry(pack_rulesets)
    ruleset = registry.get(str(data.get("ruleset")))
    if ruleset is None:
        wanted = data.get("ruleset")
        raise CommandStop(f"{args.dungeon}: ruleset '{wanted}' is not known ({expected(str(wanted), registry.ids())})")
    problems, dungeon = check_dungeon_data(data, args.dungeon, registry)
    if dungeon is None or any(p.code == "S002" for p in problems):
        first = next((p for p in problems if p.severity == "error"), problems[0])
        raise CommandStop(
            f"{args.dungeon}: the layout's structure is broken ({first.code} {first.message}); "
            f"'inkcrawl validate {args.dungeon}' lists every problem; nothing written",
            EXIT_PROBLEMS,
        )
    try:
        spec = line_spec(constraints, ruleset)
        result = populate_line(
            data, spec, args.seed, args.time_limit or DEFAULT_TIME_LIMIT, args.dungeon, registry=registry
        )
    except (GenerateError, GeneratorBug) as exc:
        raise CommandStop(f"{exc}; nothing written", EXIT_PROBLEMS) from exc
    try:
        write_text_atomic(output, dumps_canonical(result.data), force=args.force, inputs=inputs)
    except OSError as exc:
        raise CommandStop(write_failure(output, exc)) from exc
    added = len(result.data["elements"]) - len(data["elements"])
    target = ""
    if result.par_range is not None:
        target = f" in {result.par_range[0]:g}..{result.par_range[1]:g}"
    errors = (
        "0 validation errors"
        if not result.errors_after
        else f"{result.errors_after} validation error(s), as the layout had {result.errors_before}"
    )
    print(
        terminal_safe(
            f"wrote {output} ({added:+d} elements, par {result.par} VP{target}, keys {result.depth} deep, "
            f"{result.tries} tr{'y' if result.tries == 1 else 'ies'}, {errors})"
        )
    )
    if result.timer_note():  # par is met by the best route, which the sheet's timer cuts short
        print(terminal_safe(f"  par {result.par} VP: {result.timer_note()}"))
    for note in result.notes:
        print(terminal_safe(f"  {note}"))
    if ruleset.id not in RulesetRegistry().ids() and ruleset.id not in {r.id for r in enclosing_pack(output)[0]}:
        # validated with the input's pack; where it was written that ruleset is not known
        print(
            terminal_safe(
                f"  note: ruleset '{ruleset.id}' comes from the pack of {args.dungeon}; {output} lies outside that "
                f"pack, so validate, par and edit will not know it there: list the file in the pack, or write it "
                f"inside the pack's folder"
            )
        )
    print(terminal_safe(f"next: inkcrawl par {output}   or   inkcrawl edit {output}"))
    return EXIT_OK
