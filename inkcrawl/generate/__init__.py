"""``inkcrawl generate``: new dungeons that validate with no errors, from a seed and a
constraints file (``schemas/constraints.schema.json``; docs/generating.md).

:mod:`~inkcrawl.generate.constraints` reads the constraints, fills in the ruleset's defaults
and runs the counting checks; :mod:`~inkcrawl.generate.grid` builds grid dungeons (RULES.md
1); :mod:`~inkcrawl.generate.populate` adds scoring content to a line layout (RULES.md 2).
"""

from __future__ import annotations

from inkcrawl.generate.constraints import (
    GenerateError,
    GridSpec,
    Infeasible,
    LineSpec,
    check_grid_spec,
    grid_spec,
    line_spec,
)
from inkcrawl.generate.grid import DEFAULT_TIME_LIMIT, Generated, GeneratorBug, generate_grid

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "GenerateError",
    "Generated",
    "GeneratorBug",
    "GridSpec",
    "Infeasible",
    "LineSpec",
    "check_grid_spec",
    "generate_grid",
    "grid_spec",
    "line_spec",
]
