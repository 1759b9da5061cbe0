"""PDF/X-4 for print shops: a CMYK output intent from a standard profile, colours kept within
the total ink a shop accepts, and the PDF's fonts named as the subsets they are.

Qt's ``QPdfWriter`` writes PDF/X-4 itself (``PdfVersion_X4``: the XMP ``pdfxid:GTS_PDFXVersion``
and a ``/GTS_PDFX`` output intent with the profile embedded) and, in its CMYK colour model,
turns every colour into ``DeviceCMYK`` by the plain formula (``k = 1 - max(r, g, b)``; the other
inks share what is left), so greys and black are K only. This module:

- finds the CMYK profile of the output intent (:func:`find_cmyk_profile`): the one given, else
  a standard profile installed on the machine (Ghostscript's SWOP profile, which Debian's
  ``libgs-common`` ships; inkcrawl ships none: the usual press profiles may not be
  redistributed);
- brings the colours of an SVG within :data:`MAX_TOTAL_INK` before Qt converts them
  (:func:`limit_total_ink`);
- finishes the PDF (:func:`finish_pdfx`): the document's ``/GTS_PDFXVersion`` also in its
  Info dictionary, a title, and the RGB colour spaces Qt declares on every page (unused in its
  CMYK model) declared as CMYK, so no page names an RGB space.

PDF/X-1a is not offered: Qt writes no PDF 1.3 or PDF/X-1a file (its versions are 1.4, 1.6,
PDF/A-1b and PDF/X-4), see :data:`PDFX_1A_REFUSAL`. RULES.md has no section on print output;
the shops' requirements are in docs/exporting.md.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass
from pathlib import Path

#: The PDF/X versions ``--pdfx`` takes, and the one inkcrawl writes.
PDFX_CHOICES = ("4", "1a")
#: Why ``--pdfx 1a`` is refused.
PDFX_1A_REFUSAL = (
    "PDF/X-1a is not offered: Qt, which writes inkcrawl's PDFs, writes PDF 1.4, 1.6, PDF/A-1b and PDF/X-4 "
    "but no PDF/X-1a (a PDF 1.3 file without transparency); use PDF/X-4 where the shop accepts it"
)
#: The most ink a colour may lay down, as a fraction (2.4 = 240 %: the sum of C, M, Y and K).
MAX_TOTAL_INK = 2.4
#: Environment variable naming a CMYK profile, used when none is given on the command line.
PROFILE_VARIABLE = "INKCRAWL_CMYK_PROFILE"
#: Standard CMYK profiles looked for, in order, when none is given: Ghostscript's SWOP profile
#: (Debian's and Ubuntu's ``libgs-common``, Homebrew's and MacPorts' ``ghostscript``).
CMYK_PROFILE_PLACES = (
    Path("/usr/share/color/icc/ghostscript/default_cmyk.icc"),
    Path("/opt/homebrew/share/ghostscript/iccprofiles/default_cmyk.icc"),
    Path("/usr/local/share/ghostscript/iccprofiles/default_cmyk.icc"),
    Path("/opt/local/share/ghostscript/iccprofiles/default_cmyk.icc"),
)
#: The largest profile read (press profiles are at most a few MB).
MAX_PROFILE_BYTES = 20 * 1024 * 1024


class PdfxError(ValueError):
    """PDF/X output that cannot be made: no CMYK profile found, a profile that cannot be read
    or is not a CMYK output profile, or a version that is not offered. The message says why and
    what to do, in neutral words."""


@dataclass(frozen=True)
class OutputIntent:
    """The printing condition a PDF/X file is made for: the ICC ``profile`` bytes (a CMYK
    output profile), its ``description`` (from the profile), the ``condition_identifier`` a
    shop's preflight reads and the file it came from (``source``)."""

    profile: bytes
    description: str
    condition_identifier: str
    source: Path


def find_cmyk_profile(path: str | os.PathLike | None = None) -> Path:
    """The CMYK profile to use: ``path`` when given, else the file named by
    :data:`PROFILE_VARIABLE`, else the first of :data:`CMYK_PROFILE_PLACES` that exists.
    Raises :class:`PdfxError` when none is found (the message says how to get one)."""
    if path is not None:
        return Path(path)
    named = os.environ.get(PROFILE_VARIABLE)
    if named:
        return Path(named)
    for place in CMYK_PROFILE_PLACES:
        if place.is_file():
            return place
    raise PdfxError(
        "PDF/X needs a CMYK output profile and none was found: give the print shop's profile "
        "(a FOGRA39, GRACoL or SWOP .icc file) or install Ghostscript's profiles (Debian and Ubuntu: "
        f"apt install libgs-common); looked in {', '.join(str(p) for p in CMYK_PROFILE_PLACES)}"
    )


def _profile_description(data: bytes) -> str:
    """The ``desc`` tag of an ICC profile (v2 ``desc`` or v4 ``mluc``), or ``""``."""
    import struct

    try:
        (count,) = struct.unpack_from(">I", data, 128)
        for index in range(min(count, 200)):
            signature, offset, size = struct.unpack_from(">4sII", data, 132 + 12 * index)
            if signature != b"desc":
                continue
            tag = data[offset : offset + size]
            if tag[:4] == b"desc":
                (length,) = struct.unpack_from(">I", tag, 8)
                return tag[12 : 12 + length].split(b"\0")[0].decode("latin-1").strip()
            if tag[:4] == b"mluc":
                records, _ = struct.unpack_from(">II", tag, 8)
                if records:
                    _, text_size, text_offset = struct.unpack_from(">4sII", tag, 16)
                    return tag[text_offset : text_offset + text_size].decode("utf-16-be", "replace").strip("\0 ")
    except (struct.error, UnicodeDecodeError):
        pass
    return ""


def read_output_intent(path: str | os.PathLike) -> OutputIntent:
    """The output intent of the CMYK profile at ``path``. Raises :class:`PdfxError` when the
    file cannot be read, is not an ICC profile, or is not a CMYK output (printer) profile."""
    path = Path(path)
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_PROFILE_BYTES + 1)
    except OSError as exc:
        raise PdfxError(f"cannot read the CMYK profile {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_PROFILE_BYTES:
        raise PdfxError(f"{path} is larger than {MAX_PROFILE_BYTES // 2**20} MB: not a CMYK profile")
    if len(data) < 132 or data[36:40] != b"acsp":
        raise PdfxError(f"{path} is not an ICC colour profile")
    if data[16:20] != b"CMYK":
        space = data[16:20].decode("latin-1").strip() or "?"
        raise PdfxError(f"{path} is a profile of {space} colour, not CMYK: PDF/X for print needs a CMYK profile")
    if data[12:16] != b"prtr":
        raise PdfxError(f"{path} is not an output (printer) profile")
    description = _profile_description(data) or path.stem
    return OutputIntent(data, description, description, path)


def cmyk_output_intent(path: str | os.PathLike | None = None) -> OutputIntent:
    """The output intent of :func:`find_cmyk_profile` ``(path)``, read and checked
    (:func:`read_output_intent`). Raises :class:`PdfxError`."""
    return read_output_intent(find_cmyk_profile(path))


def check_version(version: str) -> None:
    """Raise :class:`PdfxError` unless ``version`` is the PDF/X version inkcrawl writes (``"4"``)."""
    if version == "1a":
        raise PdfxError(PDFX_1A_REFUSAL)
    if version != "4":
        raise PdfxError(f"PDF/X-{version} is not offered: use PDF/X-4")


def qt_cmyk(rgb: tuple[float, float, float]) -> tuple[float, float, float, float]:
    """The ``(c, m, y, k)`` (0 to 1) Qt's CMYK colour model writes for ``rgb`` (0 to 1 each):
    ``k = 1 - max(r, g, b)``, each other ink ``(1 - x - k) / (1 - k)`` (``QColor::toCmyk``)."""
    r, g, b = rgb
    k = 1 - max(r, g, b)
    if k >= 1:
        return 0.0, 0.0, 0.0, 1.0
    return (1 - r - k) / (1 - k), (1 - g - k) / (1 - k), (1 - b - k) / (1 - k), k


def ink_limited(rgb: str, limit: float = MAX_TOTAL_INK) -> str:
    """``rgb`` (``#rrggbb``) changed as little as needed for its CMYK in Qt's model
    (:func:`qt_cmyk`) to lay down at most ``limit`` ink: K is kept (black text stays K only)
    and C, M and Y are scaled down together; ``rgb`` itself when it is within the limit."""
    r, g, b = (int(rgb[i : i + 2], 16) / 255 for i in (1, 3, 5))
    c, m, y, k = qt_cmyk((r, g, b))
    if c + m + y + k <= limit + 1e-9:
        return rgb
    scale = max(0.0, (limit - k)) / (c + m + y)
    # QColor rounds to whole 8-bit levels: floor the darkness once more, so rounding never adds ink
    levels = []
    for ink in (c, m, y):
        value = (1 - ink * scale) * (1 - k)
        levels.append(min(255, int(value * 255 + 0.999)))
    return "#" + "".join(f"{level:02x}" for level in levels)


_COLOUR = re.compile(r'((?:fill|stroke|stop-color|color)=")(#[0-9a-fA-F]{6})(")')


def limit_total_ink(svg: str, limit: float = MAX_TOTAL_INK) -> str:
    """``svg`` with every ``fill``, ``stroke``, ``stop-color`` and ``color`` of the form
    ``#rrggbb`` replaced by :func:`ink_limited` ``(colour, limit)``: in Qt's CMYK output no
    colour then lays down more than ``limit`` ink (2.4 = 240 %)."""
    cache: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        colour = match.group(2).lower()
        if colour not in cache:
            cache[colour] = ink_limited(colour, limit)
        return match.group(1) + cache[colour] + match.group(3)

    return _COLOUR.sub(replace, svg)


_IMAGE = re.compile(r'(xlink:href=")data:image/(?:png|jpeg);base64,([A-Za-z0-9+/=]+)(")')


def cmyk_images(svg: str, intent: OutputIntent, limit: float = MAX_TOTAL_INK) -> str:
    """``svg`` with every embedded PNG or JPEG image (a card back's art) converted to a CMYK
    JPEG in ``intent``'s profile, no pixel laying down more than ``limit`` ink: Qt writes an RGB
    image as DeviceRGB, which PDF/X-4 with a CMYK output intent does not allow, and a CMYK one
    as DeviceCMYK. Needs the QApplication. Raises :class:`PdfxError` for an image Qt cannot
    read or convert."""
    cache: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        data = match.group(2)
        if data not in cache:
            cache[data] = _cmyk_jpeg(base64.b64decode(data), intent, limit)
        return f"{match.group(1)}data:image/jpeg;base64,{cache[data]}{match.group(3)}"

    return _IMAGE.sub(replace, svg)


def _cmyk_jpeg(data: bytes, intent: OutputIntent, limit: float) -> str:
    import numpy as np
    from PySide6.QtCore import QBuffer, QIODevice
    from PySide6.QtGui import QColorSpace, QImage

    image = QImage.fromData(data)
    if image.isNull():
        raise PdfxError("an embedded image cannot be read")
    if image.format() == QImage.Format.Format_CMYK8888 or not image.colorSpace().isValid():
        # a CMYK image (for another press, or with no profile) or one with no colour space: taken
        # as the RGB Qt shows it, in sRGB, and converted into the intent's CMYK as any other
        image = image.convertToFormat(QImage.Format.Format_RGB32)
        image.setColorSpace(QColorSpace(QColorSpace.NamedColorSpace.SRgb))
    if image.hasAlphaChannel():  # onto white paper, as it prints
        flat = QImage(image.size(), QImage.Format.Format_RGB32)
        flat.fill(0xFFFFFFFF)
        flat.setColorSpace(image.colorSpace())
        from PySide6.QtGui import QPainter

        painter = QPainter(flat)
        painter.drawImage(0, 0, image)
        painter.end()
        image = flat
    cmyk = image.convertedToColorSpace(QColorSpace.fromIccProfile(intent.profile), QImage.Format.Format_CMYK8888)
    if cmyk.isNull() or cmyk.format() != QImage.Format.Format_CMYK8888:
        raise PdfxError(f"an embedded image cannot be converted to CMYK in {intent.source}")
    width, height, stride = cmyk.width(), cmyk.height(), cmyk.bytesPerLine()
    pixels = np.frombuffer(cmyk.constBits(), dtype=np.uint8)[: stride * height].reshape(height, stride)
    inks = pixels[:, : width * 4].reshape(height, width, 4).astype(np.float64)
    colour, black = inks[..., :3].sum(axis=2), inks[..., 3]
    room = np.maximum(limit * 255 - black, 0.0)
    scale = np.where(colour > room, room / np.maximum(colour, 1e-9), 1.0)  # C, M and Y down, K kept
    inks[..., :3] *= scale[..., None]
    limited = np.floor(inks).astype(np.uint8)
    out = QImage(limited.tobytes(), width, height, width * 4, QImage.Format.Format_CMYK8888).copy()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not out.save(buffer, "JPEG", 95):  # type: ignore[call-overload]  # PySide takes the format as str
        raise PdfxError("an embedded image cannot be written as a CMYK JPEG")
    # QByteArray has the buffer protocol; PySide6's stubs do not declare it
    return base64.b64encode(bytes(buffer.data())).decode("ascii")  # type: ignore[call-overload]


def configure_writer(writer, intent: OutputIntent) -> None:
    """Set a ``QPdfWriter`` to write PDF/X-4 in CMYK with ``intent`` as its output intent.
    Raises :class:`PdfxError` when Qt cannot read the profile."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QColorSpace, QPagedPaintDevice, QPdfOutputIntent, QPdfWriter

    space = QColorSpace.fromIccProfile(intent.profile)
    if not space.isValid() or space.colorModel() != QColorSpace.ColorModel.Cmyk:
        raise PdfxError(f"Qt cannot use the CMYK profile {intent.source} (an ICC profile it does not read)")
    writer.setPdfVersion(QPagedPaintDevice.PdfVersion.PdfVersion_X4)
    writer.setColorModel(QPdfWriter.ColorModel.CMYK)
    output = QPdfOutputIntent()
    output.setOutputProfile(space)
    output.setOutputConditionIdentifier(intent.condition_identifier)
    output.setOutputCondition(intent.description)
    output.setRegistryName(QUrl("http://www.color.org"))
    writer.setOutputIntent(output)


def finish_pdfx(writer, title: str) -> None:
    """Finish a PDF/X-4 document in a ``pypdf.PdfWriter``: ``/GTS_PDFXVersion`` ``PDF/X-4`` and
    a non-empty ``/Title`` (``title``) in its Info dictionary (PDF/X requires a title), and on
    every page the device RGB colour spaces Qt declares but never paints with in its CMYK
    model declared as CMYK. Raises ``ValueError`` when a page sets a colour in one of them
    (inkcrawl's own bug: Qt was not in its CMYK model)."""
    from pypdf.generic import ArrayObject, NameObject

    current = writer.metadata or {}
    writer.add_metadata(
        {
            "/GTS_PDFXVersion": "PDF/X-4",
            "/Title": str(current.get("/Title", "")).strip() or title or "inkcrawl",
        }
    )
    for number, page in enumerate(writer.pages, 1):
        resources = page.get("/Resources")
        spaces = resources.get_object().get("/ColorSpace") if resources is not None else None
        if spaces is None:
            continue
        spaces = spaces.get_object()
        rgb_names = [name for name, value in spaces.items() if value == "/DeviceRGB"]
        if not rgb_names:
            continue
        if _sets_colour_in(page, rgb_names):
            raise ValueError(f"page {number} paints in RGB: it cannot be PDF/X with a CMYK output intent")
        for name, value in list(spaces.items()):
            value = value.get_object()
            if value == "/DeviceRGB":
                spaces[NameObject(name)] = NameObject("/DeviceCMYK")
            elif isinstance(value, ArrayObject) and list(value) == ["/Pattern", "/DeviceRGB"]:
                spaces[NameObject(name)] = ArrayObject([NameObject("/Pattern"), NameObject("/DeviceCMYK")])


def _sets_colour_in(page, names: list[str]) -> bool:
    """Whether a page's content sets a colour (``sc``/``scn`` with values) while one of the
    colour spaces ``names`` is selected (a plain scan of the operators, enough for Qt's output)."""
    data = page.get_contents().get_data() if page.get_contents() is not None else b""
    wanted = {name.encode("latin-1").lstrip(b"/") for name in names}
    current: dict[bytes, bytes] = {b"cs": b"", b"CS": b""}
    for token in re.finditer(rb"/(\S+)\s+(cs|CS)\b|((?:[-\d.]+\s+)+)(sc|scn|SC|SCN)\b", data):
        if token.group(2):
            current[token.group(2)] = token.group(1)
        else:
            kind = b"cs" if token.group(4) in (b"sc", b"scn") else b"CS"
            if current[kind] in wanted:
                return True
    return False
