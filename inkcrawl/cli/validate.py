"""``inkcrawl validate``: check dungeons, rulesets and packs; ``inkcrawl rules``: list the checks.

Validation itself is :func:`inkcrawl.validate.validate_paths`; the report formats are in
:mod:`inkcrawl.report`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from inkcrawl.cli.common import EXIT_OK, EXIT_USAGE, check_output_file, write_failure
from inkcrawl.problems import RULES

_EPILOG_VALIDATE = """\
examples:
  inkcrawl validate content/packs/lantern-depths
  inkcrawl validate my-dungeon.json --strict
  inkcrawl validate packs/* --format sarif -o inkcrawl.sarif

Each problem is one line: FILE:POINTER: SEVERITY CODE MESSAGE, where POINTER is a JSON
pointer into the file. 'inkcrawl rules' lists every code.
-o FILE is written atomically; a read-only FILE is refused unless --force, a device or one of
the PATHs always; a symlink is written through to its target.
exit codes: 0 no errors, 1 errors (or warnings with --strict), 2 usage error, unreadable input or
FILE cannot be written; 130 Ctrl+C, 143 SIGTERM
"""


def register(subparsers) -> None:
    """Add ``validate`` and ``rules`` to the ``inkcrawl`` command line."""
    validate = subparsers.add_parser(
        "validate",
        help="check dungeons, rulesets and content packs",
        description="Check dungeon files, ruleset files and content packs (folders with pack.json): "
        "first against their JSON Schema, then with the rule checks of their game family. "
        "Every problem is reported, not only the first.",
        epilog=_EPILOG_VALIDATE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a dungeon or ruleset file, a pack.json, a pack folder, or a folder of packs (every pack below it)",
    )
    validate.add_argument(
        "--format",
        choices=("text", "json", "sarif"),
        default="text",
        help="text: one line per problem (default); json: a list of problem objects; "
        "sarif: SARIF 2.1.0 for code scanning",
    )
    validate.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the report to FILE instead of standard output (never one of the PATHs)",
    )
    validate.add_argument("--force", action="store_true", help="replace FILE even when it is read-only")
    validate.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    validate.set_defaults(func=_cmd_validate)

    rules = subparsers.add_parser(
        "rules",
        help="list every check with its code, severity and description",
        description="List every check inkcrawl runs: code, name, severity, description.",
        epilog="exit codes: 0 listed, 2 usage error",
    )
    rules.add_argument(
        "--format", choices=("text", "json"), default="text", help="text table (default) or json for programs"
    )
    rules.set_defaults(func=_cmd_rules)


def _write_output(text: str, args: argparse.Namespace, inputs) -> int:
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    from inkcrawl.jsonio import write_text_atomic

    try:
        write_text_atomic(Path(args.output), text, force=args.force, inputs=inputs)
    except OSError as exc:
        print(f"inkcrawl validate: error: {write_failure(args.output, exc)}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    from inkcrawl.loading import input_files
    from inkcrawl.report import FORMATTERS, summary
    from inkcrawl.validate import validate_paths

    inputs = input_files(args.paths) if args.output is not None else []
    if args.output is not None:
        refused = check_output_file(args.output, args.force, inputs)
        if refused:
            print(f"inkcrawl validate: error: {refused}", file=sys.stderr)
            return EXIT_USAGE
    report = validate_paths(args.paths)
    status = _write_output(FORMATTERS[args.format](report), args, inputs)
    if status:
        return status
    if args.format != "text" or args.output:
        print(summary(report), file=sys.stderr)
    return report.exit_code(strict=args.strict)


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.format == "json":
        data = [
            {"code": r.code, "name": r.name, "severity": r.severity.value, "description": r.description} for r in RULES
        ]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return EXIT_OK
    width = max(len(r.name) for r in RULES)
    for rule in RULES:
        print(f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<7}  {rule.description}")
    return EXIT_OK
