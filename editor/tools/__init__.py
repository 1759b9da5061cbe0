"""The canvas tools: mouse and keys in sheet millimetres turned into edits of the dungeon.

- :mod:`~editor.tools.catalogue`: the :class:`Tool` base, :class:`ToolSpec`, the select tool and
  :func:`tool_specs`, the catalogue the tool bar and Tools menu are made from (Qt).
- :mod:`~editor.tools.grid`: the grid family's tools (Qt).
- :mod:`~editor.tools.line`: the line family's catalogue, over :mod:`~editor.tools.line_base`,
  :mod:`~editor.tools.line_draw`, :mod:`~editor.tools.line_vertices` and
  :mod:`~editor.tools.line_elements` (Qt).
- :mod:`~editor.tools.snapping` and :mod:`~editor.tools.line_geometry`: where points snap, and the
  geometry the line tools decide with (Qt-free).
"""
