"""Printed pages: a sheet placed on paper (scale, margins, bleed, crop marks) as an SVG page."""

from __future__ import annotations

from dataclasses import dataclass, field

import svgwrite

from exporters import style
from exporters.canvas import SheetCanvas, fmt, svg_text
from exporters.paper import PageLayout, PaperError, layout_page
from exporters.sheet import draw_sheet_into
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
    (scale to the printable area), ``bleed_mm``, ``crop_marks``, ``grayscale``."""

    paper: tuple[float, float] | None = None
    orientation: str = "auto"
    margin_mm: float | None = None
    fit: bool = False
    bleed_mm: float = 0.0
    crop_marks: bool = False
    grayscale: bool = False


@dataclass
class Page:
    """One page ready to print: its SVG text, size in mm, a title, and warnings to show."""

    svg: str
    width_mm: float
    height_mm: float
    title: str
    texts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


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
            canvas.line((cx + sx * start, cy), (cx + sx * end, cy), stroke="#000000", width=style.CROP_MARK_MM,
                        parent=group, linecap="butt")
            canvas.line((cx, cy + sy * start), (cx, cy + sy * end), stroke="#000000", width=style.CROP_MARK_MM,
                        parent=group, linecap="butt")


def sheet_page(dungeon: Dungeon, ruleset: Ruleset, options: PageOptions = PageOptions()) -> Page:
    """The dungeon's sheet laid out on a page. Raises :class:`exporters.paper.PaperError` when
    the sheet does not fit the paper at its physical scale (and ``fit`` is off)."""
    paper = dungeon.sheet.paper
    try:
        layout = layout_page((paper.width_mm, paper.height_mm), paper.margin_mm, options.paper, options.orientation,
                             options.margin_mm, options.fit, options.bleed_mm, options.crop_marks)
    except PaperError as exc:
        raise type(exc)(f"{dungeon.id} ({dungeon.sheet.title}): {exc}") from None
    drawing = new_page_drawing(layout.page_width, layout.page_height)
    page_root = drawing.g()
    page_root["class"] = "page"
    drawing.add(page_root)
    palette = style.palette(options.grayscale)
    page_canvas = SheetCanvas(drawing, page_root, palette)
    x, y, w, h = layout.trim
    bleed = layout.bleed_mm
    page_canvas.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed, fill=palette.paper, kind="paper")
    sheet_root = page_canvas.group(css_class="sheet", transform=layout.transform)
    sheet_root.attribs["data-family"] = dungeon.family
    sheet_canvas = SheetCanvas(drawing, sheet_root, palette)
    draw_sheet_into(sheet_canvas, dungeon, ruleset)
    if layout.crop_marks:
        draw_crop_marks(page_canvas, layout)
    warnings = list(sheet_canvas.warnings)
    thinnest = style.MIN_LINE_MM * layout.scale
    if thinnest < style.MIN_LINE_MM - 1e-9:
        warnings.append(f"scaled to {layout.scale:.0%} to fit: the thinnest lines print {thinnest:.2f} mm wide, "
                        f"below the {style.MIN_LINE_MM} mm a printer reliably draws")
    title = printable_text(dungeon.sheet.title) if isinstance(dungeon.sheet.title, str) else dungeon.sheet.title
    return Page(svg_text(drawing), layout.page_width, layout.page_height, title,
                texts=sheet_canvas.texts, warnings=warnings)


#: Jobs with at least this many sheets build their SVGs in worker processes.
PARALLEL_SHEETS = 6


def _page_job(job) -> Page:
    dungeon, ruleset, options = job
    return sheet_page(dungeon, ruleset, options)


def _ignore_interrupts() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the pool
    # and a terminated worker ends quietly (the parent's SIGTERM handler, inherited through
    # fork, would print a KeyboardInterrupt traceback from each worker)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def build_pages(dungeons, options: PageOptions = PageOptions()):
    """The page of each opened dungeon (objects with ``dungeon`` and ``ruleset``), in order, as
    an iterator.

    Large jobs build the SVGs in worker processes (one per core, pure Python, no Qt), started
    right away, before the caller starts Qt, so PDF writing in this process overlaps SVG
    building. Iterating raises :class:`exporters.paper.PaperError` at the first sheet that does
    not fit.
    """
    import os

    jobs = [(opened.dungeon, opened.ruleset, options) for opened in dungeons]
    workers = min(os.cpu_count() or 1, 8)
    import multiprocessing

    if len(jobs) < PARALLEL_SHEETS or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return (_page_job(job) for job in jobs)
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_ignore_interrupts)
    futures = [pool.submit(_page_job, job) for job in jobs]

    def results():
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)

    return results()
