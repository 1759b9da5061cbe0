"""Stage 2 of validation: rule checks on the model (counts, geometry, reachability, printability).

:func:`check_dungeon` runs the checks common to both families and those of the dungeon's family
(for the line family also :mod:`inkcrawl.checks.precision`, points that saving would merge).
Each check returns :class:`~inkcrawl.problems.Problem` objects; the catalogue of codes is
:data:`inkcrawl.problems.RULES`.
"""

from __future__ import annotations

from inkcrawl.checks.common import common_problems
from inkcrawl.checks.grid import grid_problems
from inkcrawl.checks.line import line_problems
from inkcrawl.checks.precision import precision_problems
from inkcrawl.model import Dungeon, GridDungeon, LineDungeon
from inkcrawl.problems import Problem
from inkcrawl.rulesets import Ruleset


def check_dungeon(dungeon: Dungeon, ruleset: Ruleset, file: str, deck: dict[str, int] | None = None) -> list[Problem]:
    """Run every rule check on a dungeon played with ``ruleset``.

    ``deck`` overrides the ruleset's deck composition (a pack's deck). Returns the problems
    in check order; never raises for any schema-valid dungeon.
    """
    problems = common_problems(dungeon, ruleset, file)
    if dungeon.family != ruleset.family:
        return problems
    if isinstance(dungeon, GridDungeon):
        problems += grid_problems(dungeon, ruleset, file, deck)
    elif isinstance(dungeon, LineDungeon):
        problems += line_problems(dungeon, ruleset, file)
        problems += precision_problems(dungeon, file)
    return problems
