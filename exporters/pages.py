"""Printed pages: a sheet placed on paper (scale, margins, bleed, crop marks) as an SVG page."""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

import svgwrite

from exporters import style
from exporters.canvas import SheetCanvas, fmt, svg_text
from exporters.families import draw_sheet_into, preload_renderer
from exporters.paper import PageLayout, PaperError, layout_page
from inkcrawl.model import Dungeon
from inkcrawl.rulesets import Ruleset
from inkcrawl.textchars import printable_text

#: Length of a crop mark and its gap from the bleed edge, in mm.
CROP_MARK_LENGTH_MM = 6.0
CROP_MARK_GAP_MM = 1.5


@dataclass(frozen=True)
class PageOptions:
    """How sheets are printed: ``paper`` (mm, ``None`` = the sheet's own), ``orientation``
    (``auto``, ``portrait``, ``landscape``), ``margin_mm`` (``None`` = the sheet's), ``fit``
    (scale to the printable area), ``bleed_mm``, ``crop_marks``, ``grayscale``. A sheet keeps
    its size whenever its printed ink fits the paper's printable area, even when its nominal
    printable area (the sheet minus its margins) does not: see
    :func:`exporters.paper.layout_page` and :func:`sheet_page`'s ``shrink``."""

    paper: tuple[float, float] | None = None
    orientation: str = "auto"
    margin_mm: float | None = None
    fit: bool = False
    bleed_mm: float = 0.0
    crop_marks: bool = False
    grayscale: bool = False


@dataclass
class Page:
    """One page ready to print: its SVG text, size in mm, a title, and warnings to show.

    ``trim_mm`` is the paper's rectangle on the page, ``(x, y, w, h)`` mm from the page's
    top-left corner (``None``: the whole page), and ``bleed_mm`` how far the drawing runs past
    it: a PDF page gets them as its TrimBox and BleedBox. ``safe_mm``, when positive, is how
    far inside the paper the safe zone starts (what a shop may cut off lies outside it): a PDF
    page gets it as its ArtBox."""

    svg: str
    width_mm: float
    height_mm: float
    title: str
    texts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    trim_mm: tuple[float, float, float, float] | None = None
    bleed_mm: float = 0.0
    safe_mm: float = 0.0


def new_page_drawing(width_mm: float, height_mm: float) -> svgwrite.Drawing:
    """An empty SVG document of the given size whose user unit is 1 mm."""
    drawing = svgwrite.Drawing(size=(f"{fmt(width_mm)}mm", f"{fmt(height_mm)}mm"), profile="full", debug=False)
    drawing.viewbox(0, 0, width_mm, height_mm)
    return drawing


def draw_crop_marks(canvas: SheetCanvas, layout: PageLayout) -> None:
    """Crop marks at the four corners of the trim box, outside the bleed (page mm)."""
    x, y, w, h = layout.trim
    start = layout.bleed_mm + CROP_MARK_GAP_MM
    end = start + CROP_MARK_LENGTH_MM
    group = canvas.group("crop-marks")
    for cx, sx in ((x, -1), (x + w, 1)):
        for cy, sy in ((y, -1), (y + h, 1)):
            canvas.line(
                (cx + sx * start, cy),
                (cx + sx * end, cy),
                stroke="#000000",
                width=style.CROP_MARK_MM,
                parent=group,
                linecap="butt",
            )
            canvas.line(
                (cx, cy + sy * start),
                (cx, cy + sy * end),
                stroke="#000000",
                width=style.CROP_MARK_MM,
                parent=group,
                linecap="butt",
            )


def sheet_page(dungeon: Dungeon, ruleset: Ruleset, options: PageOptions = PageOptions(), shrink: bool = False) -> Page:
    """The dungeon's sheet laid out on a page. ``shrink``: a sheet whose ink does not fit the
    paper's printable area at its size is shrunk to fit, with a warning giving the scale.
    Raises :class:`exporters.paper.PaperError` for paper that cannot be used,
    :class:`exporters.paper.SheetDoesNotFit` when the sheet's ink does not fit the paper at its
    physical scale (and neither ``options.fit`` nor ``shrink`` is on), and
    :class:`exporters.paper.SheetLayoutError` when its parts do not fit its own paper."""
    paper = dungeon.sheet.paper
    palette = style.palette(options.grayscale)
    # the sheet is drawn first, in sheet mm: where it goes on the page depends on its ink
    scratch = new_page_drawing(paper.width_mm, paper.height_mm)
    sheet_root = scratch.g()
    sheet_root["class"] = "sheet"
    sheet_canvas = SheetCanvas(scratch, sheet_root, palette)
    draw_sheet_into(sheet_canvas, dungeon, ruleset)
    try:
        layout = layout_page(
            (paper.width_mm, paper.height_mm),
            paper.margin_mm,
            options.paper,
            options.orientation,
            options.margin_mm,
            options.fit,
            options.bleed_mm,
            options.crop_marks,
            ink=lambda: sheet_canvas.ink,  # measured only when the sheet's own area does not fit
            shrink=shrink,
        )
    except PaperError as exc:
        raise exc.about(f"{dungeon.id} ({dungeon.sheet.title})") from None
    drawing = new_page_drawing(layout.page_width, layout.page_height)
    page_root = drawing.g()
    page_root["class"] = "page"
    drawing.add(page_root)
    page_canvas = SheetCanvas(drawing, page_root, palette)
    x, y, w, h = layout.trim
    bleed = layout.bleed_mm
    page_canvas.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed, fill=palette.paper, kind="paper")
    sheet_root["transform"] = layout.transform
    sheet_root.attribs["data-family"] = dungeon.family
    page_root.add(sheet_root)
    if layout.crop_marks:
        draw_crop_marks(page_canvas, layout)
    warnings = list(sheet_canvas.warnings)
    thinnest = style.MIN_LINE_MM * layout.scale
    thin = (
        f"the thinnest lines print {thinnest:.2f} mm wide, below the {style.MIN_LINE_MM} mm a printer reliably draws"
        if thinnest < style.MIN_LINE_MM - 1e-9
        else ""
    )
    if layout.shrunk:
        printable_w, printable_h = layout.printable_mm
        warnings.append(
            f"shrunk to {math.floor(layout.scale * 1000) / 10:g}% to fit the paper's printable area "
            f"({printable_w:g} x {printable_h:g} mm)" + (f": {thin}" if thin else "")
        )
    elif thin:
        warnings.append(f"scaled to {layout.scale:.0%} to fit: {thin}")
    title = printable_text(dungeon.sheet.title) if isinstance(dungeon.sheet.title, str) else dungeon.sheet.title
    return Page(
        svg_text(drawing),
        layout.page_width,
        layout.page_height,
        title,
        texts=sheet_canvas.texts,
        warnings=warnings,
        trim_mm=layout.trim,
        bleed_mm=layout.bleed_mm,
    )


#: Jobs with at least this many sheets build their SVGs in worker processes.
PARALLEL_SHEETS = 6


def _page_job(dungeon: Dungeon, ruleset: Ruleset, options: PageOptions, shrink: bool = False) -> Page:
    return sheet_page(dungeon, ruleset, options, shrink)


def build_pages(dungeons, options: PageOptions = PageOptions(), shrink: bool = False, rendered: bool = False):
    """The page of each opened dungeon (objects with ``dungeon`` and ``ruleset``), in order, as
    an iterator (``shrink`` as :func:`sheet_page`).

    Large jobs build the SVGs in worker processes (:class:`inkcrawl.workers.WorkerPool`, forked:
    pure Python, no Qt), started right away, before the caller starts Qt, so PDF writing in this
    process overlaps SVG building; a process that runs Qt already builds them itself. There is a
    worker per core, but for one core left to this process when the caller renders each page as
    it comes (``rendered``, as the PDF export does): Qt then renders a page about as fast as a
    worker builds one, and on two cores a second worker would only take turns with Qt on them
    and finish the SVGs early while the PDF waits. Then, whenever the next page is not ready,
    this process builds the last page no worker has started (the workers go from the first page
    on, this process from the last one back) instead of waiting. A sheet whose worker died is
    built here. Iterating raises :class:`exporters.paper.PaperError` at the first sheet that
    cannot be laid out (a sheet built ahead raises when its turn comes).
    """
    from inkcrawl.workers import WINDOW, WorkerPool, default_workers, fork_is_safe

    jobs = [(opened.dungeon, opened.ruleset, options, shrink) for opened in dungeons]
    cores = default_workers()
    workers = cores - 1 if rendered else cores
    if len(jobs) < PARALLEL_SHEETS or cores < 2 or not fork_is_safe():
        return (_page_job(*job) for job in jobs)
    # the renderers of the families drawn, imported once here rather than in each worker
    for family in sorted({dungeon.family for dungeon, *_ in jobs}):
        preload_renderer(family)
    # no restart: a new worker would be forked from a helper thread, perhaps after Qt started
    pool = WorkerPool(workers, start="fork", restart=False, name="inkcrawl-pages")
    futures = [pool.submit(_page_job, *job) for job in jobs]

    def results():
        from concurrent.futures.process import BrokenProcessPool

        built: dict[int, Page | Exception] = {}  # pages built here ahead of their turn
        tail = len(jobs)  # the pages from here on are built here
        near = 1 + workers * WINDOW  # pages this close to the next one may be sent to a worker already
        try:
            for index, (job, future) in enumerate(zip(jobs, futures)):
                # while the next page is not ready, build the last one no worker has (cancel()
                # fails once a worker started it: the workers have caught up)
                while rendered and not future.done() and tail - 1 > index + near and futures[tail - 1].cancel():
                    tail -= 1
                    try:
                        built[tail] = _page_job(*jobs[tail])
                    except Exception as exc:  # raised when its page's turn comes
                        built[tail] = exc
                if index in built:
                    page = built.pop(index)
                    if isinstance(page, Exception):
                        raise page
                    yield page
                    continue
                try:
                    yield future.result()
                except BrokenProcessPool:  # its worker died (or could not start): build it here
                    yield _page_job(*job)
        finally:
            pool.terminate()

    return PoolPages(results(), pool)


class PoolPages(Iterator[Page]):
    """The pages :func:`build_pages` has worker processes build, as an iterator of
    :class:`Page`; :meth:`close` stops the workers (so does dropping it unread)."""

    def __init__(self, pages: Iterator[Page], pool):
        self._pages = pages
        self._pool = pool
        weakref.finalize(self, pool.terminate)

    def __next__(self) -> Page:
        return next(self._pages)

    def close(self) -> None:
        """Stop building: the workers are killed, the pages not yet built are never built."""
        self._pool.terminate()
        close = getattr(self._pages, "close", None)
        if close is not None:
            close()
