"""``inkcrawl migrate``: rewrite files in the current format version and canonical layout.

The work is :func:`inkcrawl.migrate_files.migrate_paths`, which says what it rewrote or refused.
"""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    """Add ``migrate`` to the ``inkcrawl`` command line."""
    migrate = subparsers.add_parser(
        "migrate",
        help="rewrite files in the current format version and canonical layout",
        description="Rewrite dungeon, ruleset and pack files (or every file of a pack folder) in the current "
        "format_version and inkcrawl's canonical, byte-stable layout. Files with errors that would lose "
        "data, and files that rounding numbers to 0.001 would break (L028), are left untouched and "
        "reported. Exit codes: 0 done (or nothing to do), 1 files would change (--check) or were refused, "
        "2 usage error, a file that cannot be read or written (a read-only file is left alone unless "
        "--force); 130 Ctrl+C, 143 SIGTERM.",
    )
    migrate.add_argument("paths", nargs="+", metavar="PATH", help="a file or a pack folder")
    migrate.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 if any file is not already in the current format and layout",
    )
    migrate.add_argument("--force", action="store_true", help="rewrite read-only files too")
    migrate.set_defaults(func=_cmd_migrate)


def _cmd_migrate(args: argparse.Namespace) -> int:
    from inkcrawl.migrate_files import migrate_paths

    return migrate_paths(args.paths, check=args.check, force=args.force)
