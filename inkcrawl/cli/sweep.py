"""``inkcrawl sweep``: play dungeons under rule and deck variants, player counts and policies,
and compare them (:mod:`inkcrawl.sweep`; the spec's format is
``schemas/sweep.schema.json``, documented in docs/sweeps.md).

Exit codes: 0 done, 1 errors in a dungeon or a spec that breaks its schema or the rules, 2 usage
error, unreadable input, an output that cannot be written or workers that failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from inkcrawl.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CommandStop,
    add_run_options,
    check_output_file,
    load_games_with_sources,
    read_spec_file,
    terminal_safe,
    write_failure,
)

_EPILOG = """\
examples:
  inkcrawl sweep traps.sweep.json
  inkcrawl sweep traps.sweep.json --format json -o traps-result.json
  inkcrawl sweep traps.sweep.json --workers 2
  inkcrawl sweep big.sweep.json --scheduler tcp://10.0.0.5:8786

A sweep file (docs/sweeps.md; schema schemas/sweep.schema.json):
  {"type": "sweep", "format_version": 1,
   "dungeons": ["../content/packs/ember-halls"],
   "variants": [{"name": "as printed"}, {"name": "three traps", "deck": {"trap": 1}},
                {"name": "harsh tallies", "scoring": {"tally": -3}}],
   "players": [2, 3], "policies": ["random", "greedy"], "games": 2000, "seed": 1}
Line dungeons play the policies optimal, greedy and human ("skill", "speed_mm_s" in the file) and
take switches and line rulesets as variants; what belongs to the other family is skipped with a note.
Paths in it are relative to the sweep file. Every combination plays the same game seeds, so
differences come from the variants and not from luck of the draw alone. The same seed gives the same
output whatever the number of workers and wherever the games run (--scheduler: a Dask distributed
cluster, pip install 'inkcrawl[dask]').
exit codes: 0 done, 1 errors in a dungeon or in the sweep file, 2 usage error, unreadable input, an
output that cannot be written or workers that failed; 130 Ctrl+C, 143 SIGTERM
"""


def register(subparsers) -> None:
    """Add ``sweep`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "sweep",
        help="play dungeons under rule and deck variants, player counts and policies, and compare",
        description="Play every combination of a sweep file's dungeons (grid and line), rule and deck variants, "
        "player counts and policies for the same seeded games, and report each one's scores and balance (seat "
        "wins, ties, lead changes) with the skill gap and each variant's change against the first.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", metavar="SPEC", help="a sweep file (JSON, docs/sweeps.md)")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text for people (default) or json for programs"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE instead of standard output")
    parser.add_argument("--force", action="store_true", help="replace FILE even when it is read-only")
    add_run_options(parser)
    parser.set_defaults(func=_cmd_sweep)


def _error(message: str, status: int) -> int:
    print(terminal_safe(f"inkcrawl sweep: error: {message}"), file=sys.stderr)
    return status


def _cmd_sweep(args: argparse.Namespace) -> int:
    from inkcrawl.jsonio import write_text_atomic
    from inkcrawl.runs import MAX_WORKERS, RunError
    from inkcrawl.sweep import SweepError, SweepInputError, format_sweep_text, plan_sweep, play_sweep
    from inkcrawl.workers import default_workers

    if args.workers is not None and args.workers > MAX_WORKERS:
        return _error(
            f"--workers {args.workers}: use 1 to {MAX_WORKERS} (more processes than cores only slow the games down)",
            EXIT_USAGE,
        )
    spec_path = Path(args.spec)
    try:
        spec = read_spec_file(args.spec, "sweep", "docs/sweeps.md")
    except CommandStop as exc:
        return _error(str(exc), exc.status)
    if args.output:
        refused = check_output_file(args.output, args.force, [args.spec])
        if refused:
            return _error(refused, EXIT_USAGE)
    status: list[int] = []

    def entries_for(paths: list[str]):
        pairs, code = load_games_with_sources(paths)
        if code is not None:
            status.append(code)
        return pairs

    try:
        plan = plan_sweep(spec, spec_path.parent, entries_for)
    except SweepError as exc:
        if status:
            return status[0]
        return _error(f"{args.spec}:{exc}", EXIT_USAGE if isinstance(exc, SweepInputError) else EXIT_PROBLEMS)
    if status:
        return status[0]
    if args.scheduler and any(c.family == "line" for c in plan.combinations):
        plan.notes.append("line dungeons play on this machine's workers; the grid games go to the scheduler")
    for note in dict.fromkeys(plan.notes):  # each note once, however many variants it holds for
        print(terminal_safe(f"inkcrawl sweep: note: {note}"), file=sys.stderr)

    from tqdm import tqdm

    bar = tqdm(
        total=plan.total_games,
        unit="game",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
        dynamic_ncols=True,
    )
    print(
        terminal_safe(
            f"inkcrawl sweep: {len(plan.combinations)} combinations x {plan.games:,} games = {plan.total_games:,} games"
        ),
        file=sys.stderr,
    )
    from inkcrawl.cli.simulate import PROGRESS_LINES_FROM, ProgressLines

    lines = (
        ProgressLines(plan.total_games, "sweep")
        if not sys.stderr.isatty() and plan.total_games >= PROGRESS_LINES_FROM
        else None
    )

    def progress(done: int) -> None:
        bar.update(done)
        if lines is not None:
            lines.update(done)

    try:
        result = play_sweep(
            plan, progress=progress, workers=args.workers or default_workers(), scheduler=args.scheduler
        )
    except RunError as exc:
        return _error(str(exc), EXIT_USAGE)
    finally:
        bar.close()
    text = json.dumps(result, indent=2) + "\n" if args.format == "json" else format_sweep_text(result)
    if args.output:
        try:
            write_text_atomic(Path(args.output), text, force=args.force, inputs=[args.spec])
        except OSError as exc:
            return _error(write_failure(args.output, exc), EXIT_USAGE)
        print(terminal_safe(f"wrote {args.output}"), file=sys.stderr)
    else:
        sys.stdout.write(text if args.format == "json" else terminal_safe(text))
    return EXIT_OK
