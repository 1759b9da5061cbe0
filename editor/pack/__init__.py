"""The open content pack: the Pack dock and the pack's model behind it.

- :mod:`~editor.pack.document`: :class:`PackDocument`, the pack as a model (manifest, dungeons in
  order, Save Pack's checks and writing) (Qt-free).
- :mod:`~editor.pack.edits`: one class per kind of pack edit, each undoable exactly (Qt-free).
- :mod:`~editor.pack.browser`: the Pack dock, a view of the model (Qt), with the manifest's
  editors (:mod:`~editor.pack.form`), the thumbnails (:mod:`~editor.pack.thumbnails`), the
  window's tabs following the pack (:mod:`~editor.pack.tabs`) and the pack's undo commands
  (:mod:`~editor.pack.undo`).
"""
