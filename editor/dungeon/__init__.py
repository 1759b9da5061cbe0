"""The open dungeon: its model and undo stack, the edits that change it, and new dungeons.

- :mod:`~editor.dungeon.document`: :class:`DungeonDocument`, one open dungeon (model, ``QUndoStack``,
  file, live validation), and the undo command wrapping an edit (Qt).
- :mod:`~editor.dungeon.edits`: one class per kind of edit of a dungeon, each undoable exactly (Qt-free).
- :mod:`~editor.dungeon.background`: validation and autosave of big dungeons in a worker process,
  from snapshots, their answers delivered on the UI thread.
- :mod:`~editor.dungeon.line_edits`: the line-family edits that move several outlines at once (Qt-free).
- :mod:`~editor.dungeon.templates`: new dungeons from a ruleset, for File > New and the Pack dock's
  Add (Qt-free).
- :mod:`~editor.dungeon.generating`: File > Generate and Populate's constraints, worker jobs and
  the one undo step that populates a layout (Qt-free).
"""
