"""Preflight: what a print shop's checker would reject in a PDF, page by page, read with pypdf.

:func:`preflight` checks every page of a PDF (any PDF, not only inkcrawl's):

- **boxes**: the TrimBox inside the BleedBox inside the MediaBox (and an ArtBox inside the
  TrimBox); with ``bleed_mm``, a TrimBox and at least that much bleed on every side;
- **fonts**: every font a page uses embedded (Type 3 fonts are drawn by the PDF itself), and
  embedded as a subset (a warning: shops accept whole fonts);
- **colour**: where CMYK is required (the file declares PDF/X with a CMYK output intent, or
  ``cmyk`` is asked), no colour set and no image in device RGB (with ``cmyk``, no RGB at all,
  ICC-based included); a PDF/X file has an output intent;
- **total ink**: no CMYK colour, and no pixel of an uncompressed, Flate-compressed or JPEG 8-bit
  CMYK image, above ``max_ink`` (2.4 = 240 %); other images are not computable and are left out;
- **resolution**: every raster image at least ``min_dpi`` where it is drawn (its pixels over its
  size on the page, the lower of the two directions).

Units: boxes in PDF points (1/72 inch), bleed in millimetres, ink as a fraction (1 = 100 %).
RULES.md has no section on print output; the shops' requirements are in docs/exporting.md.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

#: The most ink shops accept (240 %), as a fraction.
DEFAULT_MAX_INK = 2.4
#: The least resolution of a raster image shops accept, in dots per inch.
DEFAULT_MIN_DPI = 300.0
#: Points per millimetre.
PT_PER_MM = 72 / 25.4
#: How far one box may stick out of another and still count as inside it (points): rounding.
BOX_TOLERANCE_PT = 0.01
#: The most operators read from one page's content (a hostile file cannot keep the check going).
MAX_OPERATIONS = 5_000_000
#: Form XObjects nested deeper than this are not followed.
MAX_FORM_DEPTH = 12


class PreflightError(ValueError):
    """The file cannot be checked: missing, not a PDF, damaged or encrypted. The message says
    which and why."""


@dataclass(frozen=True)
class Problem:
    """One thing a shop would reject (``severity`` ``"error"``) or should be told
    (``"warning"``): a stable ``code``, the ``page`` (1-based; ``None`` for the whole document)
    and a ``message`` that names the box, font, colour space or image."""

    code: str
    severity: str
    page: int | None
    message: str


@dataclass
class PreflightReport:
    """What :func:`preflight` found in ``path``: its ``pages``, the PDF/X version it declares
    (``pdfx``, e.g. ``"PDF/X-4"``, or ``None``), whether CMYK was required (``cmyk_required``)
    and every :class:`Problem`, in page order."""

    path: str
    pages: int
    pdfx: str | None
    cmyk_required: bool
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        """The problems a shop would reject the file for."""
        return [problem for problem in self.problems if problem.severity == "error"]

    def to_json(self) -> dict:
        """The report as JSON-ready data: ``path``, ``pages``, ``pdfx``, ``cmyk_required``,
        ``errors`` (a count) and ``problems`` (objects with ``code``, ``severity``, ``page``,
        ``message``)."""
        return {
            "path": self.path,
            "pages": self.pages,
            "pdfx": self.pdfx,
            "cmyk_required": self.cmyk_required,
            "errors": len(self.errors),
            "problems": [asdict(problem) for problem in self.problems],
        }


def preflight(
    path: str | os.PathLike,
    *,
    bleed_mm: float | None = None,
    cmyk: bool = False,
    max_ink: float = DEFAULT_MAX_INK,
    min_dpi: float = DEFAULT_MIN_DPI,
) -> PreflightReport:
    """Check the PDF at ``path`` as a print shop would (see the module's list). ``bleed_mm``:
    the bleed the shop asks for (mm; ``None``: no bleed required); ``cmyk``: require CMYK
    colour even when the file does not declare PDF/X; ``max_ink``: the most total ink (2.4 =
    240 %); ``min_dpi``: the least image resolution. Raises :class:`PreflightError` when the
    file cannot be read as a PDF."""
    import logging

    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # pypdf's notes on damaged files: the report says what matters
    try:
        return _preflight(Path(path), bleed_mm, cmyk, max_ink, min_dpi)
    finally:
        logger.setLevel(level)


def _preflight(path: Path, bleed_mm: float | None, cmyk: bool, max_ink: float, min_dpi: float) -> PreflightReport:
    import pypdf
    from pypdf.errors import PdfReadError, PyPdfError

    try:
        reader = pypdf.PdfReader(path, strict=False)
        if reader.is_encrypted:
            raise PreflightError(f"{path} is encrypted: a shop cannot print it")
        pages = list(reader.pages)
        root = reader.trailer["/Root"].get_object()
        pdfx = _pdfx_version(reader, root)
        intents = _output_intents(root)
    except FileNotFoundError:
        raise PreflightError(f"{path} does not exist") from None
    except IsADirectoryError:
        raise PreflightError(f"{path} is a folder, not a PDF") from None
    except OSError as exc:
        raise PreflightError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (PdfReadError, PyPdfError, KeyError, ValueError, TypeError, AttributeError, RecursionError) as exc:
        raise PreflightError(f"{path} is not a readable PDF ({exc})") from None
    cmyk_intent = any(components == 4 for components in intents)
    report = PreflightReport(str(path), len(pages), pdfx, cmyk or (pdfx is not None and cmyk_intent))
    if pdfx is not None and not intents:
        report.problems.append(
            Problem("no-output-intent", "error", None, f"the file says it is {pdfx} but has no PDF/X output intent")
        )
    elif pdfx is not None and not cmyk_intent:
        report.problems.append(
            Problem("output-intent", "warning", None, f"the {pdfx} output intent is not a CMYK printing condition")
        )
    fonts_seen: set[int] = set()
    for number, page in enumerate(pages, 1):
        try:
            report.problems += _boxes(page, number, bleed_mm)
            report.problems += _content(page, number, report.cmyk_required, cmyk, max_ink, min_dpi, fonts_seen)
        except (PdfReadError, PyPdfError, KeyError, ValueError, TypeError, AttributeError, RecursionError) as exc:
            report.problems.append(Problem("unreadable-page", "error", number, f"the page cannot be read ({exc})"))
    return report


def _pdfx_version(reader, root) -> str | None:
    info = reader.metadata or {}
    version = info.get("/GTS_PDFXVersion")
    if version:
        return str(version)
    metadata = root.get("/Metadata")
    if metadata is not None:
        import re

        text = metadata.get_object().get_data()[:200_000].decode("utf-8", "replace")
        match = re.search(r"GTS_PDFXVersion(?:=\"|>)([^\"<]+)", text)
        if match:
            return match.group(1).strip()
    return None


def _output_intents(root) -> list[int]:
    """The number of colour components of each PDF/X output intent's profile (0 when unknown)."""
    found = []
    for intent in root.get("/OutputIntents", []) or []:
        intent = intent.get_object()
        if intent.get("/S") != "/GTS_PDFX":
            continue
        profile = intent.get("/DestOutputProfile")
        components = int(profile.get_object().get("/N", 0)) if profile is not None else 0
        found.append(components)
    return found


# --------------------------------------------------------------------------------------------
# Boxes
# --------------------------------------------------------------------------------------------


def _box(page, name: str) -> tuple[float, float, float, float] | None:
    value = page.get(name)
    if value is None:
        return None
    left, bottom, right, top = (float(v) for v in value.get_object())
    return min(left, right), min(bottom, top), max(left, right), max(bottom, top)


def _inside(inner, outer) -> bool:
    t = BOX_TOLERANCE_PT
    return (
        inner[0] >= outer[0] - t and inner[1] >= outer[1] - t and inner[2] <= outer[2] + t and inner[3] <= outer[3] + t
    )


def _fmt(box) -> str:
    return "[" + " ".join(f"{value:.2f}" for value in box) + "]"


def _boxes(page, number: int, bleed_mm: float | None) -> list[Problem]:
    problems = []
    media = _box(page, "/MediaBox")
    if media is None:
        return [Problem("no-mediabox", "error", number, "the page has no MediaBox")]
    trim, bleed, art = _box(page, "/TrimBox"), _box(page, "/BleedBox"), _box(page, "/ArtBox")
    if bleed is not None and not _inside(bleed, media):
        problems.append(
            Problem(
                "bleedbox-outside-mediabox",
                "error",
                number,
                f"BleedBox {_fmt(bleed)} is outside the MediaBox {_fmt(media)}",
            )
        )
    if trim is not None and not _inside(trim, bleed or media):
        outer = "BleedBox" if bleed is not None else "MediaBox"
        problems.append(
            Problem(
                f"trimbox-outside-{outer.lower()}",
                "error",
                number,
                f"TrimBox {_fmt(trim)} is outside the {outer} {_fmt(bleed or media)}",
            )
        )
    if art is not None and trim is not None and not _inside(art, trim):
        problems.append(
            Problem(
                "artbox-outside-trimbox", "error", number, f"ArtBox {_fmt(art)} is outside the TrimBox {_fmt(trim)}"
            )
        )
    if bleed_mm:
        wanted = bleed_mm * PT_PER_MM - BOX_TOLERANCE_PT
        if trim is None:
            problems.append(
                Problem(
                    "no-trimbox",
                    "error",
                    number,
                    f"no TrimBox: the shop cannot tell where to cut ({bleed_mm:g} mm bleed asked)",
                )
            )
        else:
            edge = bleed or media
            sides = (trim[0] - edge[0], trim[1] - edge[1], edge[2] - trim[2], edge[3] - trim[3])
            least = min(sides)
            if least < wanted:
                problems.append(
                    Problem(
                        "no-bleed",
                        "error",
                        number,
                        f"the bleed is {max(0.0, least) / PT_PER_MM:.2f} mm, less than the {bleed_mm:g} mm asked "
                        f"(TrimBox {_fmt(trim)}, {'BleedBox' if bleed else 'MediaBox'} {_fmt(edge)})",
                    )
                )
    return problems


# --------------------------------------------------------------------------------------------
# Content: fonts, colour, ink, images
# --------------------------------------------------------------------------------------------

_DEVICE = {
    "/DeviceRGB": "rgb",
    "/RGB": "rgb",
    "/DeviceCMYK": "cmyk",
    "/CMYK": "cmyk",
    "/DeviceGray": "gray",
    "/G": "gray",
}


def _space_kind(space, resources) -> tuple[str, int]:
    """``(kind, components)`` of a colour space (a name or an array), ``kind`` one of ``rgb``
    (device), ``icc-rgb``, ``cmyk``, ``gray``, ``pattern``, ``indexed``, ``separation``, ``lab``
    or ``other``."""
    space = space.get_object() if hasattr(space, "get_object") else space
    if isinstance(space, str):
        if space in _DEVICE:
            kind = _DEVICE[space]
            return kind, {"rgb": 3, "cmyk": 4, "gray": 1}[kind]
        if space == "/Pattern":
            return "pattern", 0
        named = (resources or {}).get("/ColorSpace", {})
        named = named.get_object() if hasattr(named, "get_object") else named
        if space in named:
            return _space_kind(named[space], None)
        return "other", 0
    if isinstance(space, list) and space:
        family = space[0]
        if family == "/ICCBased":
            components = int(space[1].get_object().get("/N", 0))
            return {3: "icc-rgb", 4: "cmyk", 1: "gray"}.get(components, "other"), components
        if family == "/CalRGB":
            return "icc-rgb", 3
        if family == "/CalGray":
            return "gray", 1
        if family == "/Lab":
            return "lab", 3
        if family in ("/Indexed", "/I"):
            base, _ = _space_kind(space[1], resources)
            return ("indexed-" + base), 1
        if family in ("/Separation", "/DeviceN"):
            return "separation", 1 if family == "/Separation" else len(space[1])
        if family == "/Pattern":
            return "pattern", 0
    return "other", 0


class _Scan:
    """One page's findings: RGB uses, ink over the limit, fonts, images below the resolution."""

    def __init__(self, number: int, cmyk_required: bool, strict_cmyk: bool, max_ink: float, min_dpi: float):
        self.number = number
        self.cmyk_required = cmyk_required
        self.strict_cmyk = strict_cmyk
        self.max_ink = max_ink
        self.min_dpi = min_dpi
        self.rgb: dict[str, int] = {}
        self.most_ink = 0.0
        self.over_ink = 0
        self.images: list[Problem] = []
        self.fonts: list[Problem] = []
        self.operations = 0

    def colour(self, kind: str, values, where: str) -> None:
        if kind == "rgb" or (kind == "icc-rgb" and self.strict_cmyk):
            label = "device RGB" if kind == "rgb" else "ICC-based RGB"
            self.rgb[f"{label} {where}"] = self.rgb.get(f"{label} {where}", 0) + 1
        elif kind == "cmyk" and len(values) == 4:
            total = sum(float(v) for v in values)
            if total > self.max_ink + 1e-6:
                self.over_ink += 1
                self.most_ink = max(self.most_ink, total)


def _content(page, number, cmyk_required, strict_cmyk, max_ink, min_dpi, fonts_seen) -> list[Problem]:
    scan = _Scan(number, cmyk_required, strict_cmyk, max_ink, min_dpi)
    resources = page.get("/Resources")
    resources = resources.get_object() if resources is not None else {}
    contents = page.get_contents()
    if contents is not None:
        _walk(contents, resources, page.pdf, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), scan, fonts_seen, 0)
    problems = list(scan.fonts)
    if scan.cmyk_required:
        for what, count in sorted(scan.rgb.items()):
            problems.append(
                Problem(
                    "rgb-colour",
                    "error",
                    number,
                    f"{what} ({count} time{'s' if count != 1 else ''}) where CMYK is required",
                )
            )
    if scan.over_ink:
        problems.append(
            Problem(
                "total-ink",
                "error",
                number,
                f"{scan.over_ink} colour(s) or image(s) lay down more than {max_ink:.0%} ink "
                f"(up to {scan.most_ink:.0%})",
            )
        )
    problems += scan.images
    return problems


def _multiply(m, n):
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + b * c2,
        a * b2 + b * d2,
        c * a2 + d * c2,
        c * b2 + d * d2,
        e * a2 + f * c2 + e2,
        e * b2 + f * d2 + f2,
    )


def _walk(contents, resources, pdf, matrix, scan: _Scan, fonts_seen: set[int], depth: int) -> None:
    """Read one content stream: colour operators, fonts set, images and forms drawn."""
    from pypdf.generic import ContentStream

    stream = contents if isinstance(contents, ContentStream) else ContentStream(contents, pdf)
    ctm = matrix
    fill, stroke = ("gray", 1), ("gray", 1)
    stack: list = []
    xobjects = resources.get("/XObject", {}) if resources else {}
    xobjects = xobjects.get_object() if hasattr(xobjects, "get_object") else xobjects
    fonts = resources.get("/Font", {}) if resources else {}
    fonts = fonts.get_object() if hasattr(fonts, "get_object") else fonts
    for operands, operator in stream.operations:
        scan.operations += 1
        if scan.operations > MAX_OPERATIONS:
            raise ValueError(f"more than {MAX_OPERATIONS} operators")
        if operator == b"q":
            stack.append((ctm, fill, stroke))
        elif operator == b"Q":
            if stack:
                ctm, fill, stroke = stack.pop()
        elif operator == b"cm" and len(operands) == 6:
            ctm = _multiply(tuple(float(v) for v in operands), ctm)
        elif operator in (b"cs", b"CS") and operands:
            kind = _space_kind(operands[0], resources)
            if operator == b"cs":
                fill = kind
            else:
                stroke = kind
        elif operator in (b"rg", b"RG"):
            scan.colour("rgb", operands, "colour")
        elif operator in (b"k", b"K"):
            scan.colour("cmyk", operands, "colour")
        elif operator in (b"sc", b"scn", b"SC", b"SCN"):
            space, components = fill if operator in (b"sc", b"scn") else stroke
            numbers = [v for v in operands if not isinstance(v, str)]
            if numbers and space in ("rgb", "icc-rgb", "cmyk"):
                scan.colour(space, numbers[:components], "colour")
        elif operator == b"Tf" and operands:
            font = fonts.get(operands[0]) if fonts else None
            if font is not None:
                _check_font(font, operands[0], scan, fonts_seen)
        elif operator == b"Do" and operands:
            xobject = xobjects.get(operands[0]) if xobjects else None
            if xobject is None:
                continue
            obj = xobject.get_object()
            subtype = obj.get("/Subtype")
            if subtype == "/Image":
                _check_image(obj, operands[0], ctm, resources, scan)
            elif subtype == "/Form" and depth < MAX_FORM_DEPTH:
                form_matrix = tuple(float(v) for v in obj.get("/Matrix", [1, 0, 0, 1, 0, 0]))
                inner = obj.get("/Resources")
                inner = inner.get_object() if inner is not None else resources
                _walk(obj, inner, pdf, _multiply(form_matrix, ctm), scan, fonts_seen, depth + 1)
        elif operator == b"INLINE IMAGE":
            settings = operands[0] if operands else {}
            _check_image(settings, "inline image", ctm, resources, scan, inline=True)


def _check_font(reference, name, scan: _Scan, fonts_seen: set[int]) -> None:
    font = reference.get_object()
    key = id(font) if not hasattr(reference, "idnum") else reference.idnum
    if key in fonts_seen:
        return
    fonts_seen.add(key)
    base = str(font.get("/BaseFont", name)).lstrip("/")
    subtype = font.get("/Subtype")
    if subtype == "/Type3":
        return
    part = font
    if subtype == "/Type0" and font.get("/DescendantFonts"):
        part = font["/DescendantFonts"][0].get_object()
    descriptor = part.get("/FontDescriptor")
    descriptor = descriptor.get_object() if descriptor is not None else None
    embedded = descriptor is not None and any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3"))
    if not embedded:
        scan.fonts.append(
            Problem(
                "font-not-embedded", "error", scan.number, f"font {base} ({str(subtype).lstrip('/')}) is not embedded"
            )
        )
        return
    tagged = len(base) > 7 and base[6] == "+" and base[:6].isalpha() and base[:6].isupper()
    if not tagged:
        scan.fonts.append(
            Problem("font-not-subset", "warning", scan.number, f"font {base} is embedded whole, not as a subset")
        )


def _check_image(image, name, ctm, resources, scan: _Scan, inline: bool = False) -> None:
    width = int(image.get("/Width", image.get("/W", 0)) or 0)
    height = int(image.get("/Height", image.get("/H", 0)) or 0)
    label = f"image {str(name).lstrip('/')}" if not inline else "an inline image"
    if image.get("/ImageMask", image.get("/IM", False)):
        space = ("mask", 0)
    else:
        raw_space = image.get("/ColorSpace", image.get("/CS"))
        space = _space_kind(raw_space, resources) if raw_space is not None else ("other", 0)
    kind = space[0]
    if kind in ("rgb", "indexed-rgb"):
        scan.colour("rgb", (), f"image ({label})")
    elif kind in ("icc-rgb", "indexed-icc-rgb"):
        scan.colour("icc-rgb", (), f"image ({label})")
    elif kind == "cmyk" and not inline:
        _image_ink(image, label, scan)
    a, b, c, d = ctm[:4]
    shown_w, shown_h = math.hypot(a, b) / 72, math.hypot(c, d) / 72  # inches
    if width and height and shown_w > 0 and shown_h > 0 and not image.get("/ImageMask", False):
        dpi = min(width / shown_w, height / shown_h)
        if dpi < scan.min_dpi - 0.5:
            scan.images.append(
                Problem(
                    "low-resolution",
                    "error",
                    scan.number,
                    f"{label} ({width} x {height} px) prints at {dpi:.0f} dpi, below {scan.min_dpi:g} dpi",
                )
            )


def _image_ink(image, label: str, scan: _Scan) -> None:
    """The most ink of an 8-bit CMYK image's pixels, where its data can be decoded: no filter
    or Flate (without an image library), or a DeviceCMYK JPEG (through Qt,
    :func:`_jpeg_cmyk_pixels`); otherwise nothing is said."""
    filters = image.get("/Filter")
    filters = [filters] if isinstance(filters, str) else list(filters or [])
    if int(image.get("/BitsPerComponent", 8)) != 8:
        return
    import numpy as np

    if filters in (["/DCTDecode"], ["/DCT"]):
        pixels = _jpeg_cmyk_pixels(image)
        if pixels is None:
            return
    else:
        if any(f not in ("/FlateDecode", "/Fl") for f in filters) or image.get("/DecodeParms") is not None:
            return
        pixels = np.frombuffer(image.get_data(), dtype=np.uint8)
    count = len(pixels) // 4
    if count == 0:
        return
    totals = pixels[: count * 4].reshape(count, 4).astype(np.uint32).sum(axis=1) / 255
    worst = float(totals.max())
    if worst > scan.max_ink + 1e-6:
        scan.over_ink += 1
        scan.most_ink = max(scan.most_ink, worst)


#: The largest JPEG preflight decodes to measure its ink, in pixels (larger ones are not measured).
MAX_MEASURED_PIXELS = 64_000_000


def _jpeg_cmyk_pixels(image):
    """The ink of every pixel of a DeviceCMYK JPEG image XObject as a flat ``uint8`` array (C, M,
    Y, K per pixel, 255 = 100 %), or ``None`` when it is no DeviceCMYK JPEG Qt can decode or it
    is larger than :data:`MAX_MEASURED_PIXELS`. A JPEG with Adobe's APP14 marker stores its
    inks inverted, as PDF readers take it; a ``/Decode`` of ``[1 0 1 0 1 0 1 0]`` inverts them."""
    import numpy as np
    from PySide6.QtGui import QImage

    from exporters.qt import read_image

    if image.get("/ColorSpace") != "/DeviceCMYK":
        return None
    data = image.get_data()
    try:
        decoded = read_image(data, MAX_MEASURED_PIXELS)
    except ValueError:
        return None
    if decoded.format() != QImage.Format.Format_CMYK8888:
        return None
    width, height, stride = decoded.width(), decoded.height(), decoded.bytesPerLine()
    rows = np.frombuffer(decoded.constBits(), dtype=np.uint8)[: stride * height].reshape(height, stride)
    pixels = rows[:, : width * 4].reshape(-1)
    inverted = _has_adobe_marker(data)
    decode = image.get("/Decode")
    if decode is not None and [float(v) for v in decode] == [1, 0] * 4:
        inverted = not inverted
    return 255 - pixels if inverted else pixels


def _has_adobe_marker(data: bytes) -> bool:
    """Whether a JPEG's markers before its image data include Adobe's APP14 segment."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker, length = data[at + 1], int.from_bytes(data[at + 2 : at + 4], "big")
        if marker == 0xEE and data[at + 4 : at + 9] == b"Adobe":
            return True
        if marker == 0xDA:  # start of scan: the markers are over
            return False
        at += 2 + length
    return False
