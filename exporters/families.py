"""The sheet renderer of each game family: :func:`draw_sheet_into` draws a dungeon's whole
sheet onto a canvas, in sheet millimetres, with :mod:`exporters.grid_sheet` or
:mod:`exporters.line_sheet`."""

from __future__ import annotations

from exporters.canvas import SheetCanvas
from inkcrawl.model import Dungeon, GridDungeon, LineDungeon
from inkcrawl.rulesets import Ruleset


def draw_sheet_into(canvas: SheetCanvas, dungeon: Dungeon, ruleset: Ruleset) -> None:
    """Draw a dungeon's whole sheet onto ``canvas`` with the renderer of its family. Raises
    :class:`exporters.paper.SheetLayoutError` when the sheet's parts cannot all fit its paper."""
    if isinstance(dungeon, GridDungeon):
        from exporters.grid_sheet import draw_grid_sheet

        draw_grid_sheet(canvas, dungeon, ruleset)
    elif isinstance(dungeon, LineDungeon):
        from exporters.line_sheet import draw_line_sheet

        draw_line_sheet(canvas, dungeon, ruleset)
    else:  # pragma: no cover - the model has two families
        raise TypeError(f"no renderer for {type(dungeon).__name__}")


def preload_renderer(family: str) -> None:
    """Import the sheet renderer of ``family`` (``grid`` or ``line``; any other does nothing),
    which :func:`draw_sheet_into` otherwise imports at its first sheet: a process about to fork
    workers that draw sheets imports it once for all of them."""
    if family == "grid":
        import exporters.grid_sheet
    elif family == "line":
        import exporters.line_sheet  # noqa: F401
