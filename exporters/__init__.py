"""inkcrawl exporters: printable SVG/PDF play sheets, PNG previews, card sheets, game data, Tiled maps.

Every export goes through one API without Qt, :mod:`exporters.formats`: a registry of output
formats, each with a name, suffixes, a description and ``write(dungeons, path, options)``;
the ``inkcrawl export`` command (:mod:`exporters.commands`, registered through the
``inkcrawl.commands`` entry point) and the editor's File > Export are adapters over it.
Sheets are drawn with svgwrite in sheet millimetres (:mod:`exporters.canvas`, look in
:mod:`exporters.style`), one renderer per family (:mod:`exporters.families`) and placed on
paper (:mod:`exporters.pages`, :mod:`exporters.paper`); PDF and PNG come from rendering that
SVG with Qt offscreen (:mod:`exporters.qt`).
"""
