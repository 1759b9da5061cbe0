"""The docks and dialogs beside the canvas that show and edit the current dungeon through forms.

- :mod:`~editor.panels.inspector`: the Inspector dock, the properties of the selection or the
  sheet data, with its fields in :mod:`~editor.panels.inspector_fields` and
  :mod:`~editor.panels.inspector_sheet` (Qt).
- :mod:`~editor.panels.problems`: the Problems dock, live validation with quick-fixes (Qt).
- :mod:`~editor.panels.grid_dialogs`: Dungeon > Resize Grid (Qt).
- :mod:`~editor.panels.generate_dialog`: File > Generate Dungeon and File > Populate Dungeon (Qt).
- :mod:`~editor.panels.ruleset_picker`: the family, ruleset and grid size fields of File > New and Generate (Qt).

Every module here is Qt; the edits they push are the Qt-free ones of :mod:`editor.dungeon.edits`.
"""
