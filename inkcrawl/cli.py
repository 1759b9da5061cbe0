"""The ``inkcrawl`` command line.

Subcommands of the core: ``validate``, ``rules`` and ``migrate``. Other parts of inkcrawl
(exporters, the editor) add subcommands through the ``inkcrawl.commands`` entry-point group:
each entry point names a function ``register(subparsers)`` that adds its parser and sets
``func`` on it, the way Tiled registers format plugins. The core never imports them.

Exit codes: 0 success (no errors), 1 errors found, 2 usage error or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path

from inkcrawl import __version__
from inkcrawl.problems import RULES

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
#: Core commands defined in their own modules, each with ``register(subparsers)``.
_CORE_COMMANDS = ("inkcrawl.analyze_cli", "inkcrawl.simulate", "inkcrawl.score_cli", "inkcrawl.import_cli")

_EPILOG_VALIDATE = """\
examples:
  inkcrawl validate content/packs/lantern-depths
  inkcrawl validate my-dungeon.json --strict
  inkcrawl validate packs/* --format sarif -o inkcrawl.sarif

Each problem is one line: FILE:POINTER: SEVERITY CODE MESSAGE, where POINTER is a JSON
pointer into the file. 'inkcrawl rules' lists every code.
exit codes: 0 no errors, 1 errors (or warnings with --strict), 2 usage error or unreadable input
"""


def _write_output(text: str, output: str | None) -> int:
    if output is None:
        sys.stdout.write(text)
        return EXIT_OK
    from inkcrawl.jsonio import write_text_atomic
    try:
        write_text_atomic(Path(output), text)
    except OSError as exc:
        print(f"inkcrawl: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    from inkcrawl.report import FORMATTERS, summary
    from inkcrawl.validate import validate_paths

    report = validate_paths(args.paths)
    status = _write_output(FORMATTERS[args.format](report), args.output)
    if status:
        return status
    if args.format != "text" or args.output:
        print(summary(report), file=sys.stderr)
    return report.exit_code(strict=args.strict)


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.format == "json":
        data = [{"code": r.code, "name": r.name, "severity": r.severity.value, "description": r.description}
                for r in RULES]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return EXIT_OK
    width = max(len(r.name) for r in RULES)
    for rule in RULES:
        print(f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<7}  {rule.description}")
    return EXIT_OK


def _cmd_migrate(args: argparse.Namespace) -> int:
    from inkcrawl.migrate_files import migrate_paths

    return migrate_paths(args.paths, check=args.check)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with the core subcommands and every registered plugin command."""
    parser = argparse.ArgumentParser(
        prog="inkcrawl",
        description="Level editor and content toolkit for paper draw-your-path dungeon games: validate "
                    "dungeons and content packs, print them, play them with the rules engines, and import "
                    "dungeons made by other tools.",
        epilog="examples:\n  inkcrawl validate content/packs/*\n  inkcrawl export sheet content/packs/* -o sheets.pdf\n"
               "  inkcrawl simulate content/packs/ember-halls --games 1000 --policy greedy\n\n"
               "Run 'inkcrawl COMMAND --help' for a command's options and examples.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"inkcrawl {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    validate = commands.add_parser(
        "validate", help="check dungeons, rulesets and content packs",
        description="Check dungeon files, ruleset files and content packs (folders with pack.json): "
                    "first against their JSON Schema, then with the rule checks of their game family. "
                    "Every problem is reported, not only the first.",
        epilog=_EPILOG_VALIDATE, formatter_class=argparse.RawDescriptionHelpFormatter)
    validate.add_argument("paths", nargs="+", metavar="PATH", help="a dungeon or ruleset file, a pack.json, or a pack folder")
    validate.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                          help="text: one line per problem (default); json: a list of problem objects; "
                               "sarif: SARIF 2.1.0 for code scanning")
    validate.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of standard output")
    validate.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    validate.set_defaults(func=_cmd_validate)

    rules = commands.add_parser("rules", help="list every check with its code, severity and description",
                                description="List every check inkcrawl runs: code, name, severity, description.")
    rules.add_argument("--format", choices=("text", "json"), default="text",
                       help="text table (default) or json for programs")
    rules.set_defaults(func=_cmd_rules)

    migrate = commands.add_parser(
        "migrate", help="rewrite files in the current format version and canonical layout",
        description="Rewrite dungeon, ruleset and pack files (or every file of a pack folder) in the current "
                    "format_version and inkcrawl's canonical, byte-stable layout. Files with errors that would lose "
                    "data, and files that rounding numbers to 0.001 would break (L028), are left untouched and "
                    "reported.")
    migrate.add_argument("paths", nargs="+", metavar="PATH", help="a file or a pack folder")
    migrate.add_argument("--check", action="store_true",
                         help="change nothing; exit 1 if any file is not already in the current format and layout")
    migrate.set_defaults(func=_cmd_migrate)

    for module in _CORE_COMMANDS:
        import_module(module).register(commands)
    for entry in entry_points(group="inkcrawl.commands"):
        try:
            entry.load()(commands)
        except Exception as exc:  # a broken plugin must not break the core commands
            print(f"inkcrawl: warning: command plugin {entry.name!r} failed to load: {exc}", file=sys.stderr)
    return parser


def _stop_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into ``KeyboardInterrupt`` so writes in progress clean up after themselves."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        try:
            signal.signal(signal.SIGTERM, interrupt)
        except (ValueError, OSError):
            pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _stop_cleanly_on_sigterm()
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("inkcrawl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
