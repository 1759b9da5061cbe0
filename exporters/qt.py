"""Qt, offscreen: the shipped fonts, and SVG rendered to PDF pages and PNG images.

Qt needs a display unless told to draw offscreen; :func:`ensure_app` sets
``QT_QPA_PLATFORM=offscreen`` when no display is configured, starts one ``QApplication`` and
registers the fonts in :data:`exporters.style.FONT_FILES`, so output is identical on every
machine, including one with no fonts installed.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from exporters import style
from inkcrawl.textchars import printable_text

if TYPE_CHECKING:
    from PySide6.QtCore import QByteArray

#: Largest PNG inkcrawl renders, in pixels (A3 at 600 dpi is about 70 million).
MAX_PNG_PIXELS = 120_000_000


#: Qt messages that say nothing to a user (the offscreen platform's routine notices).
QUIET_QT_MESSAGES = ("This plugin does not support propagateSizeHints()",)


def _qt_message(mode, context, message: str) -> None:
    """Qt's messages on stderr as Qt prints them, minus :data:`QUIET_QT_MESSAGES`."""
    if message in QUIET_QT_MESSAGES:
        return
    print(message, file=sys.stderr)


@cache
def ensure_app():
    """The process's ``QApplication`` (created offscreen if needed), with our fonts registered.

    Raises ``RuntimeError`` when a shipped font cannot be loaded.
    """
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") and sys.platform.startswith("linux"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if "XDG_RUNTIME_DIR" not in os.environ and sys.platform.startswith("linux"):
        runtime = os.path.join(tempfile.gettempdir(), f"inkcrawl-xdg-{os.getuid()}")
        try:
            os.makedirs(runtime, mode=0o700, exist_ok=True)
            if os.stat(runtime).st_uid == os.getuid():
                os.chmod(runtime, 0o700)
                os.environ["XDG_RUNTIME_DIR"] = runtime
        except OSError:
            pass  # Qt only warns without it
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtGui import QFontDatabase
    from PySide6.QtWidgets import QApplication

    qInstallMessageHandler(_qt_message)

    # A QApplication (not just a QGuiApplication), so the editor's widgets can share the
    # process with the exporters whichever of the two starts Qt first.
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "inkcrawl"])
    for font_file in style.FONT_FILES:
        if QFontDatabase.addApplicationFont(str(font_file)) < 0:
            raise RuntimeError(f"cannot load the sheet font {font_file}")
    return app


@cache
def _raw_fonts():
    ensure_app()
    from PySide6.QtGui import QRawFont

    return [QRawFont(str(path), 12) for path in style.FONT_FILES]


def unsupported_characters(texts) -> list[str]:
    """Characters of ``texts`` the shipped fonts cannot draw (they would print as boxes), sorted."""
    fonts = _raw_fonts()
    missing = set()
    for text in texts:
        for char in text:
            if char.isspace() or char in missing:
                continue
            if not all(font.supportsCharacter(ord(char)) for font in fonts):
                missing.add(char)
    return sorted(missing)


#: Qt's SVG renderer rounds a font size to whole user units (a sheet's user unit is the mm: a
#: 2.5 mm name would print at 2 mm), so :func:`svg_for_qt` draws text this many times larger
#: and scales it back down: sizes come out right to 1/100 mm.
QT_TEXT_SCALE = 100
_TEXT_TAG = re.compile(r"<text\b([^>]*)>")
_ATTRIBUTE = re.compile(r'([\w:.-]+)="([^"]*)"')


def _scaled_text_tag(match: re.Match[str]) -> str:
    return _scaled_text(match.group(0), match.group(1))


@lru_cache(maxsize=4096)
def _scaled_text(tag: str, inside: str) -> str:
    """The ``<text ...>`` start tag ``tag`` (its attributes ``inside``) scaled for Qt; cached, as
    the pages of an export repeat most of theirs (a grid's coordinates, the scoring terms)."""
    attributes = dict(_ATTRIBUTE.findall(inside))
    try:
        size = float(attributes["font-size"])
        x, y = float(attributes.get("x", "0")), float(attributes.get("y", "0"))
    except (KeyError, ValueError):  # no size of its own, or lists of positions: left as it is
        return tag
    attributes["font-size"] = f"{size * QT_TEXT_SCALE:.6g}"
    attributes["x"], attributes["y"] = f"{x * QT_TEXT_SCALE:.9g}", f"{y * QT_TEXT_SCALE:.9g}"
    attributes["transform"] = f"{attributes.get('transform', '')} scale({1 / QT_TEXT_SCALE:g})".lstrip()
    closing = "/" if inside.rstrip().endswith("/") else ""
    return "<text " + " ".join(f'{name}="{value}"' for name, value in attributes.items()) + closing + ">"


def svg_for_qt(svg: str) -> str:
    """``svg`` as Qt's SVG renderer should get it: every ``<text>`` with its own ``font-size``
    drawn :data:`QT_TEXT_SCALE` times larger in a ``scale()`` as much smaller (its ``x``, ``y``
    and ``font-size`` multiplied, its ``transform`` followed by the scale), so it prints at its
    designed size. The SVG written for browsers keeps its plain text; every Qt rendering of a
    sheet (PDF, PNG, contact sheet) goes through this."""
    return _TEXT_TAG.sub(_scaled_text_tag, svg)


def qt_svg_renderer(svg: str):
    """A ``QSvgRenderer`` of ``svg``, an SVG inkcrawl wrote (a sheet, card or contact sheet), as
    every Qt rendering of one needs it: through :func:`svg_for_qt`, and trusted
    (``QtSvg::AssumeTrustedSource``, Qt 6.8 and later). Unchecked; ``isValid()`` tells whether Qt
    could parse it. The QApplication must exist.

    Trusted, Qt does not measure every shape's bounds before drawing it to skip a shape larger
    than its raster limit (a fifth of the PDF step's time). The SVGs inkcrawl writes are
    trusted by construction: their structure is the exporters' own (one level of ``<use>``, no
    cycles); what comes from a file is numbers and text, every text and attribute value escaped.
    Shapes far beyond the page draw in milliseconds into a PDF or an image, and are drawn,
    clipped to the page, rather than silently left out (``tests/test_qt_trusted.py``), up to
    single-precision range (about 3e38), past which Qt leaves them out either way."""
    from PySide6.QtCore import QByteArray
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer()
    trusted = _trusted_option()
    if trusted is not None:
        renderer.setOptions(trusted)
    renderer.load(QByteArray(svg_for_qt(svg).encode("utf-8")))
    return renderer


@cache
def _trusted_option():
    from PySide6 import QtSvg

    options = getattr(QtSvg, "QtSvg", None)
    return getattr(getattr(options, "Option", None), "AssumeTrustedSource", None)


def svg_renderer(svg: str):
    """A ``QSvgRenderer`` of ``svg`` (see :func:`qt_svg_renderer`). Raises ``ValueError`` when Qt
    cannot parse it."""
    ensure_app()
    renderer = qt_svg_renderer(svg)
    if not renderer.isValid():
        raise ValueError("the SVG could not be parsed by Qt")
    return renderer


class ImageTooLarge(ValueError):
    """An image too large to draw (over :data:`MAX_PNG_PIXELS`, or more than the memory at
    hand); a lower resolution fixes it. ``size_px``: ``(width, height)`` asked for."""

    def __init__(self, message: str, size_px: tuple[int, int] = (0, 0)):
        super().__init__(message)
        self.size_px = size_px


def svg_to_png(svg_text: str, width_mm: float, height_mm: float, dpi: float = 150) -> bytes:
    """Render an SVG (whose size is ``width_mm`` x ``height_mm``) to PNG bytes at ``dpi``, on white.
    Raises ``ValueError`` when Qt cannot parse the SVG, :class:`ImageTooLarge` for an image too
    large to draw."""
    ensure_app()
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QColor, QImage, QPainter

    renderer = svg_renderer(svg_text)
    width_px = max(1, round(width_mm / 25.4 * dpi))
    height_px = max(1, round(height_mm / 25.4 * dpi))
    if width_px * height_px > MAX_PNG_PIXELS:
        raise ImageTooLarge(
            f"a {width_px} x {height_px} pixel image is too large (limit {MAX_PNG_PIXELS // 10**6} megapixels)",
            (width_px, height_px),
        )
    image = QImage(width_px, height_px, QImage.Format.Format_RGB32)
    if image.isNull():
        raise ImageTooLarge(f"not enough memory for a {width_px} x {height_px} pixel image", (width_px, height_px))
    image.fill(QColor("white"))
    dots_per_metre = round(dpi / 0.0254)
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter, QRectF(0, 0, width_px, height_px))
    painter.end()
    return _png_bytes(image)


def _png_bytes(image) -> bytes:
    from PySide6.QtCore import QBuffer, QIODevice

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG") or buffer.data().size() == 0:
        raise OSError("Qt could not encode the PNG image")
    return byte_string(buffer.data())


def byte_string(array: QByteArray) -> bytes:
    """The bytes of a ``QByteArray``, copied once."""
    # QByteArray has the buffer protocol; PySide6's stubs do not declare it (no __buffer__)
    return bytes(array)  # type: ignore[call-overload]


#: The most pixels an embedded image (a card back's art) may have: a poker card with its bleed
#: at 1200 dpi is 14.9 million.
MAX_IMAGE_PIXELS = 16_000_000


def read_image(data: bytes, max_pixels: int = MAX_IMAGE_PIXELS):
    """The ``QImage`` of the image file bytes ``data`` (PNG, JPEG...), decoded once. Raises
    ``ValueError`` saying why when Qt cannot read it or it has more than ``max_pixels`` pixels
    (checked from its header, before it is decoded)."""
    ensure_app()
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImageReader

    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if not reader.canRead() or not size.isValid():
        raise ValueError(f"it cannot be read as an image ({reader.errorString()})")
    if size.width() * size.height() > max_pixels:
        raise ValueError(f"it is {size.width()} x {size.height()} pixels, more than {max_pixels // 1_000_000} million")
    reader.setAllocationLimit(max(256, max_pixels * 8 // (1024 * 1024) + 1))
    image = reader.read()
    if image.isNull():
        raise ValueError(f"it cannot be read as an image ({reader.errorString()})")
    return image


PDF_RESOLUTION = 1200
#: PDF points per millimetre.
PT_PER_MM = 72 / 25.4

#: A PDF page box, ``(left, bottom, right, top)`` in points (PDF coordinates: y up).
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class PageBoxes:
    """The boxes of one PDF page, in points: ``media`` (the whole page, from ``(0, 0)``),
    ``trim`` (the paper: where the shop cuts), ``bleed`` (the trim grown by the bleed, within
    the media box) and ``art`` (the safe zone inside the trim, where nothing is cut off;
    ``None``: none is set, so it is the MediaBox)."""

    media: Box
    trim: Box
    bleed: Box
    art: Box | None = None


def page_boxes(
    width_mm: float,
    height_mm: float,
    trim_mm: tuple[float, float, float, float] | None = None,
    bleed_mm: float = 0.0,
    safe_mm: float = 0.0,
) -> PageBoxes:
    """The boxes of a page ``width_mm`` x ``height_mm`` whose paper is ``trim_mm`` (``(x, y, w, h)``
    from the page's top-left corner, mm; ``None``: the whole page) with ``bleed_mm`` of bleed
    and, when ``safe_mm`` is positive, an ArtBox that far inside the trim (the safe zone)."""
    width, height = width_mm * PT_PER_MM, height_mm * PT_PER_MM
    media = (0.0, 0.0, width, height)
    if trim_mm is None:
        trim_mm = (0.0, 0.0, width_mm, height_mm)
    x, y, w, h = trim_mm
    trim = (x * PT_PER_MM, height - (y + h) * PT_PER_MM, (x + w) * PT_PER_MM, height - y * PT_PER_MM)
    grow = bleed_mm * PT_PER_MM
    bleed = (
        max(0.0, trim[0] - grow),
        max(0.0, trim[1] - grow),
        min(width, trim[2] + grow),
        min(height, trim[3] + grow),
    )
    inset = safe_mm * PT_PER_MM
    art = (trim[0] + inset, trim[1] + inset, trim[2] - inset, trim[3] - inset) if safe_mm > 0 else None
    return PageBoxes(media, trim, bleed, art)


def set_page_boxes(data: bytes, boxes: Sequence[PageBoxes], pdfx_title: str | None = None) -> bytes:
    """``data``, a PDF, with the MediaBox, TrimBox, BleedBox and ArtBox of each page set to
    ``boxes`` (in page order; the CropBox is left out, so it is the MediaBox, as is an ArtBox of
    ``None``), its fonts named as the subsets they are (:func:`tag_subset_fonts`), and, when
    ``pdfx_title`` is not ``None``, finished as PDF/X-4 (:func:`exporters.pdfx.finish_pdfx`),
    rewritten with pypdf. Raises ``ValueError`` when the page count differs from ``boxes``."""
    from io import BytesIO

    import pypdf
    from pypdf.generic import NameObject, RectangleObject

    reader = pypdf.PdfReader(BytesIO(data))
    writer = pypdf.PdfWriter(clone_from=reader)
    writer.pdf_header = reader.pdf_header
    if len(writer.pages) != len(boxes):
        raise ValueError(f"the PDF has {len(writer.pages)} pages, not {len(boxes)}")
    for page, box in zip(writer.pages, boxes):
        for name, rect in (
            ("/MediaBox", box.media),
            ("/TrimBox", box.trim),
            ("/BleedBox", box.bleed),
            ("/ArtBox", box.art),
        ):
            if rect is None:
                page.pop(NameObject(name), None)
            else:
                page[NameObject(name)] = RectangleObject([round(value, 4) for value in rect])
        page.pop(NameObject("/CropBox"), None)
    tag_subset_fonts(writer)
    if pdfx_title is not None:
        from exporters.pdfx import finish_pdfx

        finish_pdfx(writer, pdfx_title)
    out = BytesIO()
    writer.write(out)
    return out.getvalue()


_SUBSET_TAG = re.compile(r"^/?([A-Z]{6})\+")


def tag_subset_fonts(writer) -> int:
    """Name every subset font of a ``pypdf.PdfWriter`` as the subset it is: Qt embeds only
    the glyphs used, once per document, tags the descriptor's ``/FontName`` (``QGCAAA+DejaVuSans``)
    but not the font's ``/BaseFont``, so readers (poppler's ``pdffonts``, shops' preflight)
    took the subsets for whole fonts. Returns how many font objects were renamed."""
    from pypdf.generic import NameObject

    renamed, seen = 0, set()
    for page in writer.pages:
        resources = page.get("/Resources")
        fonts = resources.get_object().get("/Font") if resources is not None else None
        if fonts is None:
            continue
        for reference in fonts.get_object().values():
            font = reference.get_object()
            if id(font) in seen:
                continue
            seen.add(id(font))
            parts = [font] + [d.get_object() for d in font.get("/DescendantFonts", [])]
            for part in parts:
                descriptor = part.get("/FontDescriptor")
                tag = _SUBSET_TAG.match(str(descriptor.get_object().get("/FontName", ""))) if descriptor else None
                if tag is None and part is font and len(parts) > 1:
                    descriptor = parts[1].get("/FontDescriptor")
                    tag = _SUBSET_TAG.match(str(descriptor.get_object().get("/FontName", ""))) if descriptor else None
                base = str(part.get("/BaseFont", ""))
                if tag and base and not _SUBSET_TAG.match(base):
                    part[NameObject("/BaseFont")] = NameObject(f"/{tag.group(1)}+{base.lstrip('/')}")
                    renamed += 1
    return renamed


class PdfDocument:
    """A PDF being written in memory by ``QPdfWriter``: :meth:`add` renders an SVG page
    (``copies`` times, at its exact size), :meth:`finish` returns the bytes.

    Qt sizes pages in whole points, so each page is rendered at its exact size in the
    bottom-left corner of a Qt page rounded up, and :meth:`finish` sets the exact MediaBox,
    with the TrimBox, BleedBox and ArtBox (:func:`page_boxes`), through pypdf.

    ``pdfx``: an :class:`exporters.pdfx.OutputIntent` makes the document PDF/X-4 in CMYK with
    that output intent, each page's colours kept within the total ink a shop accepts
    (:func:`exporters.pdfx.limit_total_ink`); ``None``: a plain RGB PDF. Raises
    :class:`exporters.pdfx.PdfxError` when Qt cannot use the profile."""

    def __init__(self, title: str = "", pdfx=None):
        ensure_app()
        # what :meth:`finish` needs, imported now: a long export builds its pages in other
        # processes meanwhile, while at the end nothing else is left to do (a tenth of a second)
        import pypdf  # noqa: F401
        from PySide6.QtCore import QBuffer, QIODevice
        from PySide6.QtGui import QPainter, QPdfWriter

        self.buffer = QBuffer()
        self.buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        self.writer = QPdfWriter(self.buffer)
        self.writer.setResolution(PDF_RESOLUTION)
        self.writer.setCreator("inkcrawl")
        if title or pdfx is not None:  # PDF/X requires a title
            self.writer.setTitle(printable_text(title) if title else "inkcrawl")
        self.pdfx = pdfx
        self.title = printable_text(title) if title else ""
        if pdfx is not None:
            from exporters.pdfx import configure_writer

            configure_writer(self.writer, pdfx)
        self.painter = QPainter()
        self.count = 0
        self.boxes: list[PageBoxes] = []
        self._size: tuple[int, int] | None = None
        # the renderers of pages with images (a deck's back between its fronts): each parsed
        # once, so its images are the same images, which Qt embeds once in the document
        self._with_images: dict[bytes, Any] = {}

    def add(
        self,
        svg: bytes,
        width_mm: float,
        height_mm: float,
        copies: int = 1,
        trim_mm: tuple[float, float, float, float] | None = None,
        bleed_mm: float = 0.0,
        safe_mm: float = 0.0,
    ) -> None:
        """Render ``svg`` (UTF-8 bytes) on ``copies`` new pages of ``width_mm`` x ``height_mm``,
        whose paper is ``trim_mm`` with ``bleed_mm`` of bleed and a safe zone ``safe_mm`` inside
        it (see :func:`page_boxes`). Raises ``ValueError`` when Qt cannot parse the SVG."""
        from PySide6.QtCore import QMarginsF, QRectF, QSize
        from PySide6.QtGui import QPageLayout, QPageSize

        renderer = self._with_images.get(svg)
        if renderer is None:
            text = svg.decode("utf-8")
            if self.pdfx is not None:
                from exporters.pdfx import cmyk_images, limit_total_ink

                text = cmyk_images(limit_total_ink(text), self.pdfx)
            renderer = svg_renderer(text)
            if b"<image" in svg and len(self._with_images) < 8:
                self._with_images[svg] = renderer
        writer = self.writer
        boxes = page_boxes(width_mm, height_mm, trim_mm, bleed_mm, safe_mm)
        width_pt, height_pt = boxes.media[2], boxes.media[3]
        size = (math.ceil(width_pt - 1e-6), math.ceil(height_pt - 1e-6))
        # device pixels per point; the page is drawn at its exact size with its bottom edge on
        # the Qt page's (PDF y = 0), so its MediaBox is (0, 0, width, height)
        pixels = PDF_RESOLUTION / 72
        target = QRectF(0, (size[1] - height_pt) * pixels, width_pt * pixels, height_pt * pixels)
        for _ in range(copies):
            if size != self._size:
                # ExactMatch: Qt would otherwise snap a custom size to a nearby standard one
                page_size = QPageSize(QSize(*size), "", QPageSize.SizeMatchPolicy.ExactMatch)
                writer.setPageLayout(QPageLayout(page_size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
                self._size = size
            if self.count == 0:
                if not self.painter.begin(writer):
                    raise OSError("Qt could not start the PDF")
            else:
                writer.newPage()
            renderer.render(self.painter, target)
            self.boxes.append(boxes)
            self.count += 1

    def finish(self) -> bytes:
        if self.painter.isActive():
            self.painter.end()
        data = byte_string(self.buffer.data())
        pdfx_title = None if self.pdfx is None else self.title
        return set_page_boxes(data, self.boxes, pdfx_title) if self.boxes else data

    def abort(self) -> None:
        if self.painter.isActive():
            self.painter.end()


def _sheets(pages):
    """``(page, copies)`` for runs of the same page object in ``pages`` (a sheet printed N
    times comes N times in a row), in order."""
    run, copies = None, 0
    for page in pages:
        if run is not None and page.svg is run.svg and (page.width_mm, page.height_mm) == (run.width_mm, run.height_mm):
            copies += 1
            continue
        if run is not None:
            yield run, copies
        run, copies = page, 1
    if run is not None:
        yield run, copies


def pdf_bytes(pages, title: str = "", progress=None, pdfx=None) -> tuple[bytes, int]:
    """Render SVG pages (objects with ``svg``, ``width_mm``, ``height_mm``, and optionally
    ``trim_mm``, ``bleed_mm`` and ``safe_mm``, see :class:`exporters.pages.Page`) into one vector
    PDF, each page at its exact size (MediaBox to a hundredth of a point) with its TrimBox and
    BleedBox (and ArtBox for a safe zone), fonts embedded as subsets shared by all pages;
    returns ``(pdf bytes, page count)``. ``pdfx``: an :class:`exporters.pdfx.OutputIntent` for
    PDF/X-4 in CMYK (see :class:`PdfDocument`), ``None`` for RGB.

    ``pages`` may be an iterator: pages are rendered as they come (a sheet printed N times
    comes N times in a row and is parsed once). The PDF is built in memory, so the caller
    writes it atomically and a full disk or an interruption never leaves a truncated file.
    ``progress`` is called once per page. Raises ``ValueError`` naming the page whose SVG Qt
    cannot parse.
    """
    from exporters.pdfx import PdfxError

    document = PdfDocument(title, pdfx)
    count = 0
    try:
        for page, copies in _sheets(pages):
            try:
                document.add(
                    page.svg.encode("utf-8"),
                    page.width_mm,
                    page.height_mm,
                    copies,
                    getattr(page, "trim_mm", None),
                    getattr(page, "bleed_mm", 0.0),
                    getattr(page, "safe_mm", 0.0),
                )
            except PdfxError:  # a page's content PDF/X cannot take: said as it is
                raise
            except ValueError:
                raise ValueError(f"the SVG of page {count + 1} could not be parsed by Qt") from None
            count += copies
            if progress:
                for _ in range(copies):
                    progress()
        return document.finish(), count
    finally:
        document.abort()


def write_pdf(pages, path, title: str = "", progress=None, force: bool = False, inputs=(), pdfx=None) -> int:
    """Render pages into a PDF (see :func:`pdf_bytes`, ``pdfx`` too) and write it to ``path`` atomically
    (:func:`inkcrawl.jsonio.write_bytes_atomic`: ``force`` replaces a read-only file, ``inputs``
    are files it must never replace). Returns the number of pages; raises ``OSError`` when the
    file cannot be written."""
    from pathlib import Path

    from inkcrawl.jsonio import write_bytes_atomic

    data, count = pdf_bytes(pages, title, progress, pdfx)
    write_bytes_atomic(Path(path), data, force, inputs)
    return count


def contact_sheet_png(pages, dpi: float = 50, columns: int | None = None) -> bytes:
    """One PNG with a thumbnail of every page (in order) and its title under it, on white."""
    import math

    ensure_app()
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen

    count = len(pages)
    columns = columns or max(1, math.ceil(math.sqrt(count)))
    rows = math.ceil(count / columns)
    scale = dpi / 25.4
    cell_w = max(p.width_mm for p in pages) * scale
    cell_h = max(p.height_mm for p in pages) * scale
    gap, caption = 12 * scale, 10 * scale
    width = round(columns * cell_w + (columns + 1) * gap)
    height = round(rows * (cell_h + caption) + (rows + 1) * gap)
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#e9e6df"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    font = QFont("DejaVu Sans")
    font.setPixelSize(max(8, round(4 * scale)))
    painter.setFont(font)
    for index, page in enumerate(pages):
        row, column = divmod(index, columns)
        x = gap + column * (cell_w + gap)
        y = gap + row * (cell_h + caption + gap)
        w, h = page.width_mm * scale, page.height_mm * scale
        box = QRectF(x + (cell_w - w) / 2, y, w, h)
        painter.fillRect(box, QColor("white"))
        svg_renderer(page.svg).render(painter, box)
        painter.setPen(QPen(QColor("#7a766c"), 1))
        painter.drawRect(box)
        painter.setPen(QColor("#1b1b1b"))
        painter.drawText(
            QRectF(x, y + cell_h, cell_w, caption), Qt.AlignmentFlag.AlignCenter, f"{index + 1}. {page.title}"
        )
    painter.end()
    return _png_bytes(image)
