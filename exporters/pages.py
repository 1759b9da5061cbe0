"""Printed pages: a sheet placed on paper (scale, margins, bleed, crop marks) as an SVG page."""

from __future__ import annotations

from dataclasses import dataclass, field

import svgwrite

from exporters import style
from exporters.canvas import SheetCanvas, fmt, svg_text
from exporters.families import draw_sheet_into
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


def sheet_page(dungeon: Dungeon, ruleset: Ruleset, options: PageOptions = PageOptions()) -> Page:
    """The dungeon's sheet laid out on a page. Raises :class:`exporters.paper.PaperError` for
    paper that cannot be used, :class:`exporters.paper.SheetDoesNotFit` when the sheet does not
    fit the paper at its physical scale (and ``fit`` is off), and
    :class:`exporters.paper.SheetLayoutError` when its parts do not fit its own paper."""
    paper = dungeon.sheet.paper
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
        )
    except PaperError as exc:
        raise exc.about(f"{dungeon.id} ({dungeon.sheet.title})") from None
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
        warnings.append(
            f"scaled to {layout.scale:.0%} to fit: the thinnest lines print {thinnest:.2f} mm wide, "
            f"below the {style.MIN_LINE_MM} mm a printer reliably draws"
        )
    title = printable_text(dungeon.sheet.title) if isinstance(dungeon.sheet.title, str) else dungeon.sheet.title
    return Page(
        svg_text(drawing), layout.page_width, layout.page_height, title, texts=sheet_canvas.texts, warnings=warnings
    )


#: Jobs with at least this many sheets build their SVGs in worker processes.
PARALLEL_SHEETS = 6


def _page_job(dungeon: Dungeon, ruleset: Ruleset, options: PageOptions) -> Page:
    return sheet_page(dungeon, ruleset, options)


def build_pages(dungeons, options: PageOptions = PageOptions()):
    """The page of each opened dungeon (objects with ``dungeon`` and ``ruleset``), in order, as
    an iterator.

    Large jobs build the SVGs in worker processes (:class:`inkcrawl.workers.WorkerPool`, one per
    core, forked: pure Python, no Qt), started right away, before the caller starts Qt, so PDF
    writing in this process overlaps SVG building; a process that runs Qt already builds them
    itself. A sheet whose worker died is built here. Iterating raises
    :class:`exporters.paper.PaperError` at the first sheet that cannot be laid out.
    """
    import weakref

    from inkcrawl.workers import WorkerPool, default_workers, fork_is_safe

    jobs = [(opened.dungeon, opened.ruleset, options) for opened in dungeons]
    workers = default_workers()
    if len(jobs) < PARALLEL_SHEETS or workers < 2 or not fork_is_safe():
        return (_page_job(*job) for job in jobs)
    # no restart: a new worker would be forked from a helper thread, perhaps after Qt started
    pool = WorkerPool(workers, start="fork", restart=False, name="inkcrawl-pages")
    futures = [pool.submit(_page_job, *job) for job in jobs]

    def results():
        from concurrent.futures.process import BrokenProcessPool

        try:
            for job, future in zip(jobs, futures):
                try:
                    yield future.result()
                except BrokenProcessPool:  # its worker died (or could not start): build it here
                    yield _page_job(*job)
        finally:
            pool.terminate()

    pages = results()
    weakref.finalize(pages, pool.terminate)  # also when the pages are dropped unread
    return pages
