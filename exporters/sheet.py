"""One dungeon's sheet as SVG, at the dungeon's own paper size and physical scale."""

from __future__ import annotations

from exporters.pages import Page, PageOptions, sheet_page
from inkcrawl.model import Dungeon
from inkcrawl.rulesets import Ruleset


def render_sheet(dungeon: Dungeon, ruleset: Ruleset, grayscale: bool = False) -> Page:
    """The dungeon's sheet on its own paper, exactly as ``inkcrawl export`` prints it with no
    paper options: an :class:`exporters.pages.Page` (``svg``, ``width_mm``, ``height_mm``).
    Raises :class:`exporters.paper.PaperError` when it cannot be laid out."""
    return sheet_page(dungeon, ruleset, PageOptions(grayscale=grayscale))
