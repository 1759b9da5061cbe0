"""One dungeon's sheet as SVG, at the dungeon's own paper size and physical scale."""

from __future__ import annotations

from exporters.canvas import SheetCanvas
from inkcrawl.model import Dungeon, GridDungeon, LineDungeon
from inkcrawl.rulesets import Ruleset


def draw_sheet_into(canvas: SheetCanvas, dungeon: Dungeon, ruleset: Ruleset) -> None:
    """Draw a dungeon's whole sheet onto ``canvas`` with the renderer of its family."""
    if isinstance(dungeon, GridDungeon):
        from exporters.grid_sheet import draw_grid_sheet

        draw_grid_sheet(canvas, dungeon, ruleset)
    elif isinstance(dungeon, LineDungeon):
        from exporters.line_sheet import draw_line_sheet

        draw_line_sheet(canvas, dungeon, ruleset)
    else:  # pragma: no cover - the model has two families
        raise TypeError(f"no renderer for {type(dungeon).__name__}")


def render_sheet(dungeon: Dungeon, ruleset: Ruleset, grayscale: bool = False):
    """The dungeon's sheet on its own paper, exactly as ``inkcrawl export`` prints it with no
    paper options: an :class:`exporters.pages.Page` (``svg``, ``width_mm``, ``height_mm``)."""
    from exporters.pages import PageOptions, sheet_page

    return sheet_page(dungeon, ruleset, PageOptions(grayscale=grayscale))
