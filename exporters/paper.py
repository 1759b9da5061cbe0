"""Paper sizes, orientation and where a sheet sits on the printed page.

Sizes are millimetres. ``A4`` 210 x 297, ``Letter`` 215.9 x 279.4, ``A3`` 297 x 420, or a custom
``WIDTHxHEIGHT`` with a unit (``210x297mm``, ``8.5x11in``, ``595x842pt``). A dungeon keeps its
physical scale (1 mm on the sheet = 1 mm on paper) unless ``fit`` is asked for.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from inkcrawl.papers import PAPER_SIZES

_UNITS_MM = {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72}
_CUSTOM = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*(mm|cm|in|pt)\s*$", re.IGNORECASE)


class PaperError(ValueError):
    """A paper size or layout that cannot be used; the message says why in neutral words
    (no command-line option or dialog name: the caller phrases how to fix it, see
    :class:`SheetDoesNotFit`)."""

    def about(self, subject: str) -> PaperError:
        """The same error (same class and attributes), its message prefixed by ``subject``
        (which sheet it is about)."""
        other = copy.copy(self)
        other.args = (f"{subject}: {self}",)
        return other


class SheetDoesNotFit(PaperError):
    """A sheet's printable content is larger than the paper's printable area at the sheet's
    physical scale. Scaling to the paper fixes it (``needs_fit``, always true), as do larger
    paper or, when ``margin_that_fits_mm`` is not ``None``, margins that narrow (mm, which
    keeps the size). ``content_mm`` and ``printable_mm`` are ``(width, height)`` in mm."""

    needs_fit = True

    def __init__(
        self,
        message: str,
        content_mm: tuple[float, float] = (0.0, 0.0),
        printable_mm: tuple[float, float] = (0.0, 0.0),
        margin_that_fits_mm: float | None = None,
    ):
        super().__init__(message)
        self.content_mm = content_mm
        self.printable_mm = printable_mm
        self.margin_that_fits_mm = margin_that_fits_mm


class SheetLayoutError(PaperError):
    """A sheet's parts (title, dungeon, footer or scoring area) cannot all fit on the paper
    without overlapping; the message says how much room is missing."""


def parse_paper(text: str) -> tuple[float, float]:
    """``"A4"``, ``"letter"``, ``"210x297mm"``, ``"8.5x11in"`` -> (width, height) in mm.

    Raises :class:`PaperError` for anything else, listing the accepted forms.
    """
    key = text.strip().lower()
    if key in PAPER_SIZES:
        return PAPER_SIZES[key]
    match = _CUSTOM.match(text)
    if match:
        factor = _UNITS_MM[match.group(3).lower()]
        width, height = float(match.group(1)) * factor, float(match.group(2)) * factor
        if not (50 <= width <= 2000 and 50 <= height <= 2000):
            raise PaperError(f"paper {text!r} is {width:.0f} x {height:.0f} mm; sizes from 50 to 2000 mm are accepted")
        return width, height
    names = ", ".join(name.upper() if len(name) == 2 else name.capitalize() for name in PAPER_SIZES)
    raise PaperError(f"unknown paper {text!r}: use {names} or a size like 210x297mm or 8.5x11in")


def orient(size: tuple[float, float], orientation: str, content: tuple[float, float]) -> tuple[float, float]:
    """Turn ``size`` portrait or landscape; ``auto`` follows the content's aspect (wider than
    tall -> landscape). Raises :class:`PaperError` for another orientation word."""
    short, long_ = sorted(size)
    if orientation == "portrait":
        return short, long_
    if orientation == "landscape":
        return long_, short
    if orientation == "auto":
        return (long_, short) if content[0] > content[1] else (short, long_)
    raise PaperError(f"unknown orientation {orientation!r}: use auto, portrait or landscape")


@dataclass(frozen=True)
class PageLayout:
    """Where one sheet goes on the page.

    ``page_width``/``page_height``: the whole page in mm (paper plus bleed, plus room for crop
    marks); ``trim``: the paper's rectangle on the page ``(x, y, w, h)``; ``scale`` and
    ``offset``: the transform from sheet mm to page mm; ``shrunk``: the sheet was shrunk
    (``scale`` below 1) because its ink did not fit the paper's printable area at its size;
    ``printable_mm``: that area's ``(width, height)``.
    """

    page_width: float
    page_height: float
    trim: tuple[float, float, float, float]
    scale: float
    offset: tuple[float, float]
    bleed_mm: float
    crop_marks: bool
    shrunk: bool = False
    printable_mm: tuple[float, float] = (0.0, 0.0)

    @property
    def transform(self) -> str:
        """The SVG ``transform`` placing the sheet on the page."""
        from exporters.canvas import fmt

        text = f"translate({fmt(self.offset[0])} {fmt(self.offset[1])})"
        if abs(self.scale - 1) > 1e-9:
            text += f" scale({self.scale:.6f})"
        return text


#: Room around the bleed for crop marks, in mm.
CROP_MARK_SPACE_MM = 10.0


def layout_page(
    sheet_size: tuple[float, float],
    sheet_margin: float,
    paper: tuple[float, float] | None = None,
    orientation: str = "auto",
    margin_mm: float | None = None,
    fit: bool = False,
    bleed_mm: float = 0.0,
    crop_marks: bool = False,
    ink: tuple[float, float, float, float] | Callable[[], tuple[float, float, float, float] | None] | None = None,
    shrink: bool = False,
) -> PageLayout:
    """Place a sheet of ``sheet_size`` mm (its printable content inside ``sheet_margin``) on paper.

    ``paper`` defaults to the sheet's own size, ``margin_mm`` to the sheet's margin. With
    ``fit`` the content is scaled to fill the printable area. Without it the sheet keeps its
    physical scale when it fits: its printable content centred in the paper's printable area
    when that fits, else its ``ink`` (the bounding box ``(x0, y0, x1, y1)`` in sheet mm of what
    it draws, see :attr:`exporters.canvas.SheetCanvas.ink`) centred when that fits. When not
    even the ink fits, ``shrink`` scales the ink down to the printable area (``shrunk`` in the
    result), and otherwise :class:`SheetDoesNotFit` is raised. ``ink`` may be a function
    returning it, called only when the printable content does not fit.
    """
    if bleed_mm < 0 or bleed_mm > 20:
        raise PaperError(f"bleed {bleed_mm:g} mm: use 0 to 20 mm (3 mm is usual)")
    sheet_w, sheet_h = sheet_size
    margin = sheet_margin if margin_mm is None else margin_mm
    paper_w, paper_h = orient(paper or sheet_size, orientation, sheet_size)
    if margin < 0 or 2 * margin >= min(paper_w, paper_h):
        raise PaperError(f"margin {margin:g} mm leaves no printable area on {paper_w:g} x {paper_h:g} mm paper")
    content = (sheet_margin, sheet_margin, sheet_w - sheet_margin, sheet_h - sheet_margin)
    content_w, content_h = content[2] - content[0], content[3] - content[1]
    avail_w, avail_h = paper_w - 2 * margin, paper_h - 2 * margin
    shrunk = False

    def fits(box) -> bool:
        return box[2] - box[0] <= avail_w + 0.01 and box[3] - box[1] <= avail_h + 0.01

    if fit:
        placed, scale = content, min(avail_w / content_w, avail_h / content_h)
    elif fits(content):
        placed, scale = content, 1.0
    elif callable(ink):
        return layout_page(
            sheet_size, sheet_margin, paper, orientation, margin_mm, fit, bleed_mm, crop_marks, ink(), shrink
        )
    elif ink is not None and fits(ink):
        placed, scale = ink, 1.0
    else:
        placed = ink if ink is not None else content
        placed_w, placed_h = placed[2] - placed[0], placed[3] - placed[1]
        if not shrink:
            room = min(paper_w - placed_w, paper_h - placed_h) / 2  # the widest margin that would fit
            what = "printed ink" if ink is not None else "printable content"
            raise SheetDoesNotFit(
                f"the sheet's {what} is {placed_w:.1f} x {placed_h:.1f} mm but the paper's printable area "
                f"is {avail_w:g} x {avail_h:g} mm",
                (placed_w, placed_h),
                (avail_w, avail_h),
                math.floor(room * 10) / 10 if room >= 1 else None,
            )
        scale, shrunk = min(avail_w / placed_w, avail_h / placed_h), True
    extra = bleed_mm + (CROP_MARK_SPACE_MM if crop_marks else 0.0)
    trim_x = trim_y = extra
    placed_w, placed_h = placed[2] - placed[0], placed[3] - placed[1]
    offset_x = trim_x + margin + (avail_w - placed_w * scale) / 2 - placed[0] * scale
    offset_y = trim_y + margin + (avail_h - placed_h * scale) / 2 - placed[1] * scale
    return PageLayout(
        paper_w + 2 * extra,
        paper_h + 2 * extra,
        (trim_x, trim_y, paper_w, paper_h),
        scale,
        (offset_x, offset_y),
        bleed_mm,
        crop_marks,
        shrunk,
        (avail_w, avail_h),
    )
