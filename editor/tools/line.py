"""Line-family canvas tools: rooms, corridors, walls, vertex editing, doors and every element.

Each tool turns mouse and keyboard input (sheet millimetres, y down) into one edit of
:mod:`editor.dungeon.edits` pushed on the document's undo stack; none changes the model itself.

- **Room** and **Corridor** (RULES.md 2, Sheet: areas separated by walls): press, drag and
  release for a rectangle; or click point after point for a polygon, closed by clicking the
  first point again, by a double-click or by Enter. Backspace takes back the last point,
  Escape abandons the outline. Degenerate outlines (fewer than 3 distinct points, no surface,
  crossing itself) are refused with a message.
- **Wall**: a polyline by clicks, finished by a double-click or Enter (a drag draws one
  straight wall).
- **Edit Vertices**: drag a vertex of a room, corridor, wall or door end (one undo step per
  drag); double-click an edge to add a vertex; Alt+click a vertex, or Delete/Backspace while
  the pointer is on it, to remove it (an area keeps 3 vertices, a wall 2).
- **Door** (RULES.md 2, locked doors): drag along a wall or the edge two areas share; a plain
  click makes a 12 mm door centred there. Its locks (key colours and ``skeleton``, several
  allowed) are chosen in the Tool Options bar.
- One placement tool per element kind of the line rules (monster, boss, spell, treasure,
  artifact stone, plant, orb, key, skeleton key, prisoner, portal entry and exit, escape
  portal, Start, exit, label): a click places the element centred at the snapped point.
  Artifact stones take the next free number; labels ask for their text through
  :meth:`ElementTool.ask_text` (a seam tests replace).

Snapping follows the window's settings (``ctx.snap``: vertices, then walls and outlines, then
the mm grid; Alt places freely). Elements snap to the grid only, except Starts, which snap onto
outer walls where they belong.

The tools live by what they do: :mod:`editor.tools.line_draw` (Room, Corridor, Wall, Door),
:mod:`editor.tools.line_vertices` (Edit Vertices), :mod:`editor.tools.line_elements` (the
placement tools and :func:`placement_specs`), on the base of :mod:`editor.tools.line_base`
(:class:`LineTool` and the drawing helpers). This module is the family's catalogue
(:func:`line_tool_specs`, read by :func:`editor.tools.catalogue.tool_specs`) and offers the names of
the tools.
"""

from __future__ import annotations

from collections.abc import Callable

from editor.tools.catalogue import CanvasContext, Tool, ToolSpec
from editor.tools.line_base import LineTool
from editor.tools.line_draw import AreaTool, DoorTool, PointsTool, WallTool
from editor.tools.line_elements import ELEMENT_KINDS, ElementTool, PlacementSpec, placement_specs
from editor.tools.line_vertices import VertexTool


def _factory(tool_id: str, cls, *args) -> Callable[[CanvasContext], Tool]:
    """A tool factory for the catalogue: ``cls(ctx, *args)`` whose options are kept under ``tool_id``."""

    def make(ctx: CanvasContext) -> Tool:
        tool = cls(ctx, *args)
        tool.tool_id = tool_id
        return tool

    return make


def line_tool_specs(ruleset=None) -> list[ToolSpec]:
    """The line-family tools for the catalogue (after Select, V): the drawing tools, then one
    placement tool per element kind of ``ruleset`` (default: the bundled ``line-classic``)."""
    placements = ELEMENT_KINDS if ruleset is None else placement_specs(ruleset)
    return [
        ToolSpec(
            "room",
            "Room",
            "R",
            "line",
            "Draw a room: drag a rectangle, or click its corners",
            _factory("room", AreaTool, "room"),
        ),
        ToolSpec(
            "corridor",
            "Corridor",
            "C",
            "line",
            "Draw a corridor: drag a rectangle, or click its corners",
            _factory("corridor", AreaTool, "corridor"),
        ),
        ToolSpec(
            "vertices",
            "Edit Vertices",
            "E",
            "line",
            "Edit outlines: drag a vertex, double-click an edge to add one, Alt+click or Delete to remove one",
            _factory("vertices", VertexTool),
        ),
        ToolSpec(
            "wall",
            "Wall",
            "W",
            "line",
            "Draw a wall: click its points, double-click or Enter to finish",
            _factory("wall", WallTool),
        ),
        ToolSpec(
            "door",
            "Door",
            "D",
            "line",
            "Put a door on a wall: drag along the wall (locks in Tool Options)",
            _factory("door", DoorTool),
        ),
    ] + [
        ToolSpec(spec.kind, spec.name, spec.key, "line", spec.tooltip, _factory(spec.kind, ElementTool, spec))
        for spec in placements
    ]


#: The line-family tools of the bundled ruleset, as the window's catalogue lists them.
TOOL_SPECS: list[ToolSpec] = line_tool_specs()
#: The catalogue of a dungeon's own ruleset (:func:`editor.tools.catalogue.tool_specs`).
tool_specs_for = line_tool_specs

__all__ = [
    "AreaTool",
    "DoorTool",
    "ELEMENT_KINDS",
    "ElementTool",
    "LineTool",
    "PlacementSpec",
    "PointsTool",
    "TOOL_SPECS",
    "VertexTool",
    "WallTool",
    "line_tool_specs",
    "placement_specs",
]
