"""The ``inkcrawl`` command line.

The core's commands, one module each (``register(subparsers)`` adds the parser and sets
``func`` on it): :mod:`~inkcrawl.cli.validate` (``validate`` and ``rules``),
:mod:`~inkcrawl.cli.migrate`, :mod:`~inkcrawl.cli.analyze`, :mod:`~inkcrawl.cli.simulate`,
:mod:`~inkcrawl.cli.score`, :mod:`~inkcrawl.cli.importing` (``import``) and
:mod:`~inkcrawl.cli.new`. What they share, the exit codes and reading dungeons as game data,
is in :mod:`~inkcrawl.cli.common`.

Other parts of inkcrawl (exporters, the editor) add subcommands through the ``inkcrawl.commands``
entry-point group: each entry point names a function ``register(subparsers)`` that adds its parser
and sets ``func`` on it, the way Tiled registers format plugins. The core never imports them.

Exit codes: 0 success (no errors), 1 errors found, 2 usage error, unreadable input or output that
cannot be written; 130 when interrupted by Ctrl+C (SIGINT) and 143 when stopped by SIGTERM (at any
moment from the start of :func:`main`), 128 + the signal's number as shells report it.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module
from importlib.metadata import entry_points

from inkcrawl import __version__
from inkcrawl.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS, EXIT_TERMINATED, EXIT_USAGE

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "Terminated",
    "build_parser",
    "main",
]

#: The core's command modules, in the order of ``inkcrawl --help``; each has ``register(subparsers)``.
_CORE_COMMANDS = (
    "inkcrawl.cli.validate",
    "inkcrawl.cli.migrate",
    "inkcrawl.cli.analyze",
    "inkcrawl.cli.simulate",
    "inkcrawl.cli.sweep",
    "inkcrawl.cli.score",
    "inkcrawl.cli.par",
    "inkcrawl.cli.importing",
    "inkcrawl.cli.new",
    "inkcrawl.cli.generate",
    "inkcrawl.cli.populate",
)


class SuggestingParser(argparse.ArgumentParser):
    """An argument parser whose "invalid choice" errors (a subcommand, ``--format``, any
    ``choices``) also name the nearest valid choice: ``invalid choice: 'jsno' (choose from
    'text', 'json'; did you mean 'json'?)``. Subcommand parsers are of the same class."""

    def _check_value(self, action: argparse.Action, value) -> None:
        if action.choices is not None and value not in action.choices:
            from inkcrawl.suggest import nearest

            choices = ", ".join(repr(choice) for choice in action.choices)
            found = nearest(value, [str(choice) for choice in action.choices])
            hint = f"; did you mean {found!r}?" if found is not None else ""
            raise argparse.ArgumentError(action, f"invalid choice: {value!r} (choose from {choices}{hint})")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with the core subcommands and every registered plugin command."""
    parser = SuggestingParser(
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
    for module in _CORE_COMMANDS:
        import_module(module).register(commands)
    for entry in entry_points(group="inkcrawl.commands"):
        try:
            entry.load()(commands)
        except Exception as exc:  # a broken plugin must not break the core commands
            print(f"inkcrawl: warning: command plugin {entry.name!r} failed to load: {exc}", file=sys.stderr)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, like Ctrl+C's ``KeyboardInterrupt`` (of which it is
    a kind, so every ``except KeyboardInterrupt`` and ``finally`` that cleans up after Ctrl+C
    cleans up after it too); :func:`main` tells them apart for the exit status."""


def _stop_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into :class:`Terminated` so writes in progress clean up after themselves.
    (A command may install its own handler instead: the editor does.)"""
    import signal
    import threading

    def terminate(signum, frame):
        raise Terminated

    if threading.current_thread() is threading.main_thread():
        try:
            signal.signal(signal.SIGTERM, terminate)
        except (ValueError, OSError):
            pass


def _quiet_geometry_warnings() -> None:
    """Shapely's RuntimeWarnings (overflow, invalid value: coordinates such as 1e308 that a command
    goes on with under ``--force``) are not for users: what is wrong with the file is in the
    validation report, naming the object."""
    import warnings

    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"shapely\.")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    # first of all: a SIGTERM while the parser is built (plugins load) or the arguments are
    # read ends as "stopped" too, not with the default action
    _stop_cleanly_on_sigterm()
    _quiet_geometry_warnings()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        return args.func(args)
    except Terminated:
        print("inkcrawl: stopped by SIGTERM", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("inkcrawl: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
