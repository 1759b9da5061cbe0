"""Rendering the printed sheet away from the editor's UI thread.

A big dungeon's sheet takes the exporters a second or more to draw (about 0.4 ms per element);
the canvas must not freeze for it. :class:`SheetWorker` runs :func:`render_svg` in one
persistent worker process (started with ``spawn``, so it shares nothing with Qt's threads) and
the scene polls for the result. Small sheets are still drawn in-process, which is faster than
a round trip.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor


#: The largest coordinate or length the dungeon format allows, in mm (the schema's ``mm``).
FORMAT_LIMIT_MM = 10000
#: The longest text the dungeon format allows (a label's text).
FORMAT_LIMIT_TEXT = 500


def out_of_range(dungeon_data, pointer: str = "") -> str | None:
    """The JSON pointer of the first number in ``dungeon_data`` beyond the format's limit
    (:data:`FORMAT_LIMIT_MM`) or text longer than any it allows (:data:`FORMAT_LIMIT_TEXT`),
    or ``None``. The exporters' layout work grows with the size of what they draw, so a sheet
    holding such a value is not drawn at all (a room 10^9 mm tall or a title of a million
    letters would take them minutes and gigabytes)."""
    if isinstance(dungeon_data, dict):
        items = dungeon_data.items()
    elif isinstance(dungeon_data, list):
        items = enumerate(dungeon_data)
    else:
        if isinstance(dungeon_data, (int, float)) and not isinstance(dungeon_data, bool) \
                and not -FORMAT_LIMIT_MM <= dungeon_data <= FORMAT_LIMIT_MM:
            return pointer or "/"
        if isinstance(dungeon_data, str) and len(dungeon_data) > FORMAT_LIMIT_TEXT:
            return pointer or "/"
        return None
    for key, value in items:
        found = out_of_range(value, f"{pointer}/{key}")
        if found is not None:
            return found
    return None


def render_svg(dungeon_data: dict, ruleset_data: dict) -> tuple[str, str]:
    """The sheet of a dungeon as SVG text: ``(svg, "")``, or ``("", reason)`` when the
    exporters cannot lay it out (or when a value is beyond the format's range, see
    :func:`out_of_range`). Qt-free, so it runs in a plain worker process."""
    from exporters.sheet import render_sheet
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.rulesets import Ruleset

    beyond = out_of_range(dungeon_data)
    if beyond is not None:
        return "", (f"the sheet is not drawn: {beyond} is beyond the format's limits (\u00b1{FORMAT_LIMIT_MM} mm, "
                    f"{FORMAT_LIMIT_TEXT} characters); bring it back within them")
    try:
        page = render_sheet(dungeon_from_dict(dungeon_data), Ruleset(ruleset_data))
    except Exception as exc:  # noqa: BLE001 - any renderer failure is reported, not raised
        return "", f"the sheet cannot be printed as it is: {exc}"
    return page.svg, ""


class SheetWorker:
    """One worker process rendering sheets; ``submit`` returns a ``Future`` of
    :func:`render_svg`'s result. ``shutdown()`` stops the process (also at exit)."""

    def __init__(self):
        self._pool: ProcessPoolExecutor | None = None

    def submit(self, dungeon_data: dict, ruleset_data: dict) -> Future:
        """Queue a render; the worker process starts on first use."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool.submit(render_svg, dungeon_data, ruleset_data)

    def shutdown(self) -> None:
        """Stop the worker process, dropping queued renders."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


_WORKER: SheetWorker | None = None


def shared_worker() -> SheetWorker:
    """The process-wide sheet worker (one process for every open dungeon)."""
    global _WORKER
    if _WORKER is None:
        _WORKER = SheetWorker()
    return _WORKER
