"""Playtest: play the current dungeon in the editor with the rules engines (F5).

- :mod:`~editor.playtest.controller`: the Playtest menu and dock, compiling the game data and
  starting the family's session (Qt).
- :mod:`~editor.playtest.line`: the line family, drawing a path and reading the referee's
  breakdown (Qt; its :class:`LineSession` is Qt-free).
- :mod:`~editor.playtest.grid`: the grid family's dock page, and :mod:`~editor.playtest.grid_tool`
  its canvas tool (Qt).
- :mod:`~editor.playtest.grid_session`: :class:`GridSession`, one grid game played by the engine
  (Qt-free).
"""
