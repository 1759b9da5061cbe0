"""One dungeon's sheet as SVG, at the dungeon's own paper size and physical scale."""

from __future__ import annotations

from dataclasses import dataclass, field

import svgwrite

from exporters import style
from exporters.canvas import SheetCanvas, fmt
from inkcrawl.model import Dungeon, GridDungeon, LineDungeon
from inkcrawl.rulesets import Ruleset


@dataclass
class SheetDrawing:
    """A drawn sheet: the svgwrite document, its size in mm and the texts drawn on it."""

    drawing: svgwrite.Drawing
    width_mm: float
    height_mm: float
    texts: list[str] = field(default_factory=list)

    def svg(self) -> str:
        """The SVG document as text."""
        return self.drawing.tostring()


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


def render_sheet(dungeon: Dungeon, ruleset: Ruleset, grayscale: bool = False) -> SheetDrawing:
    """The dungeon's sheet on its own paper (``dungeon.sheet.paper``), 1 user unit = 1 mm."""
    paper = dungeon.sheet.paper
    width, height = paper.width_mm, paper.height_mm
    drawing = svgwrite.Drawing(size=(f"{fmt(width)}mm", f"{fmt(height)}mm"), profile="full", debug=False)
    drawing.viewbox(0, 0, width, height)
    root = drawing.g()
    root["class"] = "sheet"
    root.attribs["data-family"] = dungeon.family
    drawing.add(root)
    canvas = SheetCanvas(drawing, root, style.palette(grayscale))
    canvas.rect(0, 0, width, height, fill=canvas.palette.paper, kind="paper")
    draw_sheet_into(canvas, dungeon, ruleset)
    return SheetDrawing(drawing, width, height, canvas.texts)
