"""inkcrawl's level editor (PySide6), in sub-packages by feature.

- :mod:`editor.app`: the entry point (``inkcrawl edit``, ``inkcrawl-editor``);
  :mod:`editor.mainwindow`: the window that wires documents, canvas, tools and features;
  :mod:`editor.actions`: every menu command with its shortcut.
- :mod:`editor.dungeon`: the open dungeon, its Qt-free edits and undo stack, new-dungeon templates.
- :mod:`editor.canvas`: the scene and view that show the printed sheet, and its worker process.
- :mod:`editor.tools`: the canvas tools of both families, with their snapping and geometry.
- :mod:`editor.panels`: the Inspector and Problems docks and the Resize Grid dialog.
- :mod:`editor.playtest`: playing the current dungeon with the rules engines.
- :mod:`editor.files`: New, Open, Save, autosave and recovery; Export and Print.
- :mod:`editor.pack`: the Pack dock and its Qt-free pack model and edits.

Each package's docstring names its Qt-free modules (testable without a display). The package
``__init__`` modules import nothing, so importing one module never pulls in the whole editor.
"""
