"""The canvas: the printed sheet with one selectable item per object, zoom, pan and the grid.

- :mod:`~editor.canvas.scene`: :class:`DungeonScene`, the sheet underneath and the object items (Qt).
- :mod:`~editor.canvas.view`: :class:`CanvasView`, zoom, pan, the snapping grid, and input handed to
  the active tool (Qt).
- :mod:`~editor.canvas.sheet_worker`: drawing big sheets in a worker process (imports no Qt: its
  jobs run in a plain ``spawn`` process; Qt is imported inside the functions that need it).

The tools that turn input into edits are in :mod:`editor.tools`.
"""
