"""Files on disk: what the File menu reads and writes.

- :mod:`~editor.files.manager`: New, Open, Open Recent, Save, Save As, the unsaved-changes prompt,
  autosave to recovery files and the recovery prompt (:class:`FileManager`, Qt).
- :mod:`~editor.files.recovery`: recovery files, the session locks that tell a crashed editor from
  a running one, and the clean-up of stale locks and temporary files (Qt).
- :mod:`~editor.files.export`: File > Export and Print Preview, an adapter over
  :mod:`exporters.formats` (Qt).

Every module here is Qt; new dungeons' templates are in :mod:`editor.dungeon.templates`.
"""
