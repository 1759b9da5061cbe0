"""inkcrawl exporters: printable SVG/PDF play sheets, PNG previews and card sheets.

Sheets are drawn with svgwrite in sheet millimetres (:mod:`exporters.canvas`, look in
:mod:`exporters.style`), one renderer per family (:mod:`exporters.grid_sheet`,
:mod:`exporters.line_sheet`); PDF and PNG come from rendering that SVG with Qt offscreen
(:mod:`exporters.qt`). The ``inkcrawl export`` command is registered through the
``inkcrawl.commands`` entry point (:mod:`exporters.commands`).
"""
