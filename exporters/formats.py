"""Output formats: every file inkcrawl exports, behind one API without Qt.

A format is an object (in the spirit of Tiled's ``MapFormat``) with a :attr:`~Format.name`,
file :attr:`~Format.suffixes`, a :attr:`~Format.description` and
``write(dungeons, path, options, progress) -> ExportResult``:

==============  =========  ===============  ===================================================
name            group      suffixes         writes
==============  =========  ===============  ===================================================
``sheet-pdf``   ``sheet``  ``.pdf``         every sheet, ``copies`` pages each, one PDF
``sheet-svg``   ``sheet``  ``.svg``         one SVG per dungeon (``OUT-<id>.svg`` for several)
``sheet-png``   ``sheet``  ``.png``         one sheet's image, or a contact sheet of several
``cards-pdf``   ``cards``  ``.pdf``         print-and-play cards of a grid deck
``cards-png``   ``cards``  ``.png``         one image per card face of a grid deck, and the back
``game-json``   ``game``   ``.json``        playable game data (``schemas/game.schema.json``)
``tiled-json``  ``tiled``  ``.tmj .json``   one dungeon as a Tiled map (JSON)
``tiled-tmx``   ``tiled``  ``.tmx``         one dungeon as a Tiled map (XML)
==============  =========  ===============  ===================================================

``dungeons`` are opened dungeons: objects with ``dungeon`` (:class:`inkcrawl.model.Dungeon`),
``ruleset`` (:class:`inkcrawl.rulesets.Ruleset`) and ``file`` (where it came from), such as
:class:`inkcrawl.loading.OpenedDungeon`; validating them first is the caller's choice. Lengths
are millimetres (paper, margins, bleed, Tiled tiles), images are in dots per inch. Every file
is written atomically (:func:`inkcrawl.jsonio.atomic_target`): a failed export leaves no partial
file and never replaces a good one; a read-only file is refused unless
``WriteOptions.replace_read_only``, a device, pipe or socket and the dungeon files exported always;
a symlink is written through to the file it points to.

The callers are adapters: ``inkcrawl export`` (:mod:`exporters.commands`) and the editor's
File > Export (:mod:`editor.files.export`). Formats say what happened in neutral words and
facts: an :class:`ExportError` has a :attr:`~ExportError.code` and fields such as
``needs_fit``, and :class:`ExportNote` tells what the user should know about a file written;
each adapter phrases advice its own way (``--fit`` on the command line, "Fit to paper" in the
editor). This module imports no Qt: the formats that need it (PDF, PNG, the font check of the
notes) import :mod:`exporters.qt` when they write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from exporters.pages import Page, PageOptions
from inkcrawl.tiled_export import DEFAULT_PX_PER_MM, DEFAULT_TILE_MM

#: ``progress(done, total)``: called after each unit of work (a page or a sheet, see
#: :attr:`Format.unit`), ``total`` units in all.
Progress = Callable[[int, int], None]

#: The most dots per inch of a contact sheet of several dungeons.
CONTACT_SHEET_MAX_DPI = 60.0


@dataclass(frozen=True)
class WriteOptions:
    """How a format writes. Each format reads the members it needs.

    - ``page``: paper and page layout of sheets and cards (:class:`exporters.pages.PageOptions`:
      ``paper`` ``(width, height)`` mm or ``None`` for the sheet's own (A4 for cards),
      ``orientation``, ``margin_mm``, ``fit``, ``bleed_mm`` 0 to 20, ``crop_marks``,
      ``grayscale``);
    - ``copies``: pages per sheet in a sheet PDF, 1 to 100;
    - ``dpi``: resolution of a sheet PNG, 10 to 1200 (a contact sheet of several dungeons uses
      at most :data:`CONTACT_SHEET_MAX_DPI`);
    - ``deck_source``: the pack (folder or ``pack.json``, or a dungeon file of none) whose
      decks card sheets print, ``None`` for the ruleset's deck; ``deck``: which deck of that
      pack by id (``None``: its first, else the ruleset's); ``backs``: a backs page after each
      fronts page, mirrored for duplex printing;
    - ``px_per_mm`` (Tiled pixels per sheet mm, 0.1 to 100) and ``tile_mm`` (side of a map
      tile in mm, 0.5 to 200; ``tile_mm * px_per_mm`` must be whole pixels);
    - ``shrink``: a sheet whose printed ink does not fit the paper's printable area at its
      size is shrunk to fit, with a ``sheet`` note giving the scale (otherwise refused, a
      ``"does-not-fit"`` error); the command line shrinks unless ``--exact``;
    - ``text_as_paths``: SVG files draw their text as the outlines of its glyphs (no font
      needed, text no longer selectable) instead of embedding the fonts;
    - ``pdfx``: ``"4"`` writes PDFs as PDF/X-4 in CMYK with the output intent of
      ``output_profile`` (a CMYK ICC profile; ``None``: a standard one installed on the
      machine, see :func:`exporters.pdfx.find_cmyk_profile`), colours within 240 % total ink;
      ``None``: plain RGB PDFs (``"1a"`` is refused, an ``"pdfx"`` error saying why);
    - ``card_layout``: how card sheets lay out cards: ``"sheets"`` (as many to a page as fit,
      with cut lines), ``"one-per-page"`` (print on demand: one card per page, back, front,
      back, front...); card images are always one per face; ``card_mm``: ``(width, height)``
      of a card as the shop cuts it for one-per-page cards and card images (``None``: 63 x 88);
      the bleed is ``page.bleed_mm`` (see :mod:`exporters.presets`);
    - ``safe_mm``: a safe zone that far inside the paper (or a card alone on its page), written
      as each PDF page's ArtBox (0: none);
    - ``replace_read_only``: replace an output file that is read-only (otherwise refused, an
      ``"unwritable"`` error with ``refused`` ``"read-only"``). Every format, whatever it reads.
    """

    page: PageOptions = field(default_factory=PageOptions)
    copies: int = 1
    dpi: float = 150.0
    deck_source: str | Path | None = None
    deck: str | None = None
    backs: bool = False
    px_per_mm: float = DEFAULT_PX_PER_MM
    tile_mm: float = DEFAULT_TILE_MM
    shrink: bool = False
    text_as_paths: bool = False
    pdfx: str | None = None
    output_profile: str | Path | None = None
    card_layout: str = "sheets"
    card_mm: tuple[float, float] | None = None
    safe_mm: float = 0.0
    replace_read_only: bool = False


@dataclass(frozen=True)
class ExportNote:
    """Something the user should know about a file that was written.

    ``code`` ``"sheet"``: a note of the drawing itself in ``message`` (a title shortened, lines
    scaled below what a printer draws...); ``"missing-characters"``: the shipped font cannot
    draw ``characters``, which print as empty boxes. ``sheet`` is the title of the sheet."""

    code: str
    sheet: str
    message: str = ""
    characters: tuple[str, ...] = ()


@dataclass
class ExportResult:
    """What a format wrote: ``files`` (in order), the number of ``dungeons`` exported, the
    ``pages`` of a PDF, the ``sheets`` drawn (:class:`exporters.pages.Page`, one per dungeon;
    empty for game data and Tiled maps), ``notes`` for the user, and per format:
    ``contact_sheet`` and ``dpi`` (PNG), ``deck_name`` and ``cards`` (card sheets), ``faces``
    (card images: ``(card kind or "back", how many cards show it)`` per file), ``px_per_mm``
    (Tiled)."""

    format: str
    files: list[Path]
    dungeons: int
    pages: int = 0
    sheets: list[Page] = field(default_factory=list)
    notes: list[ExportNote] = field(default_factory=list)
    contact_sheet: bool = False
    dpi: float | None = None
    deck_name: str | None = None
    cards: int = 0
    px_per_mm: float | None = None
    faces: list[tuple[str, int]] = field(default_factory=list)


class ExportError(Exception):
    """An export that cannot be done. ``message`` (also ``str(error)``) says why in neutral
    words, ``code`` what kind of failure it is, and the other fields give facts an adapter
    phrases advice from:

    - ``"options"``: a value out of range (``message`` gives the range);
    - ``"no-dungeons"``: nothing to export;
    - ``"no-folder"``: the output's folder does not exist (``path``: the folder);
    - ``"unwritable"``: the file cannot be written (``path``; ``reason``, the system's words or
      why it was refused; ``refused``: ``None`` for a failure of the system, else why the file
      was refused before anything was written: ``"read-only"`` (``replace_read_only`` writes it),
      ``"special"`` (a device, pipe or socket), ``"folder"``, ``"input"`` (one of the dungeon
      files exported), ``"name"``, see :class:`inkcrawl.jsonio.WriteRefused`);
    - ``"paper"``: paper, orientation, margins or bleed that cannot be used;
    - ``"does-not-fit"``: a sheet is larger than the paper's printable area at its physical
      scale. ``needs_fit`` is true (scaling to the paper fixes it), larger paper fixes it, and
      margins of ``margin_that_fits_mm`` (when not ``None``) keep its size;
    - ``"layout"``: a sheet's parts (title, dungeon, footer...) do not fit its own paper;
    - ``"image-too-large"``: ``needs_lower_dpi`` is true;
    - ``"internal"``: inkcrawl made something it should not have (a page Qt cannot parse, game
      data that does not match its schema): a bug of ours, the message says to report it;
    - ``"cards"``: an unknown deck, an empty one, or cards larger than the paper;
    - ``"wrong-family"``: card sheets of a ``family`` other than grid;
    - ``"one-dungeon"``: a Tiled map holds one dungeon, the input has ``count``;
    - ``"tiled"``: the map cannot be made (pixel sizes);
    - ``"game-data"``: the game data cannot be built from the dungeon (fixing its validation
      errors fixes it);
    - ``"pdfx"``: PDF/X cannot be made (a version not offered, no CMYK profile found, a profile
      that is not a CMYK output profile; the message says what to do).

    ``dungeon_index``: the position, in the ``dungeons`` given, of the one at fault (or ``None``).
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        dungeon_index: int | None = None,
        needs_fit: bool = False,
        margin_that_fits_mm: float | None = None,
        needs_lower_dpi: bool = False,
        family: str | None = None,
        count: int | None = None,
        path: Path | None = None,
        reason: str | None = None,
        refused: str | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.dungeon_index = dungeon_index
        self.needs_fit = needs_fit
        self.margin_that_fits_mm = margin_that_fits_mm
        self.needs_lower_dpi = needs_lower_dpi
        self.family = family
        self.count = count
        self.path = path
        self.reason = reason
        self.refused = refused


class Started:
    """Work a format began ahead of writing (:meth:`Format.start`): the pages of
    ``dungeons`` being drawn. :meth:`close` stops it."""

    def __init__(self, dungeons: Sequence, pages: Iterator[Page]):
        self.dungeons = dungeons
        self.pages = pages

    def close(self) -> None:
        """Stop the work (worker processes are stopped); it cannot be used after."""
        close = getattr(self.pages, "close", None)
        if close is not None:
            close()


class Format:
    """One output format. ``group`` is what it exports (``sheet``, ``cards``, ``game``,
    ``tiled``); ``suffixes`` the file suffixes it writes, lower case, the usual one first;
    ``many``: whether it takes several dungeons; ``unit``: what :data:`Progress` counts;
    ``reads``: the members of :class:`WriteOptions` it uses."""

    name: str = ""
    group: str = ""
    suffixes: tuple[str, ...] = ()
    description: str = ""
    many: bool = True
    unit: str = "sheet"
    reads: frozenset[str] = frozenset()

    def accepts(self, path: str | Path) -> bool:
        """Whether ``path`` ends in one of :attr:`suffixes` (any case)."""
        return Path(path).suffix.lower() in self.suffixes

    def start(self, dungeons: Sequence, options: WriteOptions = WriteOptions()) -> Started | None:
        """Begin, ahead of :meth:`write`, the work writing ``dungeons`` needs of their models
        alone, so it runs while the caller is still validating them: the PDF of sheets starts
        drawing its pages in worker processes. Returns ``None`` when the format begins nothing
        ahead. Give what it returns to :meth:`write` (``started``) with the same ``dungeons`` and
        ``options``, or :meth:`Started.close` it to drop the work (nothing is written either way
        until :meth:`write`). Never raises :class:`ExportError`: what is wrong is told by
        :meth:`write`."""
        return None

    def meanwhile(self, options: WriteOptions = WriteOptions()) -> Callable[[], None] | None:
        """Work of :meth:`write` that needs no dungeon and no report, to run while the input is
        validated (:func:`inkcrawl.loading.open_dungeons` ``meanwhile``): the PDF of sheets starts
        Qt. ``None`` when the format has none."""
        return None

    def write(
        self,
        dungeons: Sequence,
        path: str | Path,
        options: WriteOptions = WriteOptions(),
        progress: Progress | None = None,
        started: Started | None = None,
    ) -> ExportResult:
        """Write ``dungeons`` to ``path`` (and, for some formats, files beside it); ``started``:
        what :meth:`start` began for the same ``dungeons`` and ``options``. Raises
        :class:`ExportError`."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Format {self.name}>"


# --------------------------------------------------------------------------------------------
# Shared steps
# --------------------------------------------------------------------------------------------


def check_output(path: str | Path) -> Path:
    """``path`` as a ``Path``; raises :class:`ExportError` ``"no-folder"`` when its folder does
    not exist (adapters call it before the work starts, formats before writing)."""
    path = Path(path)
    if not path.parent.exists():
        raise ExportError("no-folder", f"the folder {str(path.parent)!r} does not exist", path=path.parent)
    return path


def check_options(options: WriteOptions, reads: Iterable[str] = ("page", "copies", "dpi")) -> None:
    """Raise :class:`ExportError` ``"options"`` for a member of ``options`` out of range, among
    those named in ``reads`` (a format checks those it reads, :attr:`Format.reads`)."""
    if "copies" in reads and not 1 <= options.copies <= 100:
        raise ExportError("options", "use 1 to 100 copies")
    if "dpi" in reads and not 10 <= options.dpi <= 1200:
        raise ExportError("options", "use a resolution from 10 to 1200 dpi")
    if "page" in reads and not 0 <= options.page.bleed_mm <= 20:
        raise ExportError("options", f"bleed {options.page.bleed_mm:g} mm: use 0 to 20 mm (3 mm is usual)")


def paper_error(exc: Exception, dungeon_index: int | None = None) -> ExportError:
    """An :class:`exporters.paper.PaperError` as an :class:`ExportError` (``"paper"``,
    ``"does-not-fit"`` or ``"layout"``)."""
    from exporters.paper import SheetDoesNotFit, SheetLayoutError

    if isinstance(exc, SheetDoesNotFit):
        return ExportError(
            "does-not-fit",
            str(exc),
            dungeon_index=dungeon_index,
            needs_fit=True,
            margin_that_fits_mm=exc.margin_that_fits_mm,
        )
    return ExportError(
        "layout" if isinstance(exc, SheetLayoutError) else "paper", str(exc), dungeon_index=dungeon_index
    )


def iter_sheets(
    dungeons: Sequence,
    page: PageOptions = PageOptions(),  # noqa: B008 - frozen, never changed
    progress: Progress | None = None,
    shrink: bool = False,
    rendered: bool = False,
) -> Iterator[Page]:
    """The printed page of each dungeon, in order, as they are drawn. Big jobs start drawing
    in worker processes at once, before the caller starts Qt (see
    :func:`exporters.pages.build_pages`; ``rendered``: the caller renders each page as it comes,
    and keeps a core for that). ``shrink`` as :attr:`WriteOptions.shrink`.
    Iterating raises :class:`ExportError` (``paper``, ``does-not-fit``, ``layout``) at the
    first sheet that cannot be laid out."""
    from exporters.pages import build_pages

    return _numbered_sheets(build_pages(dungeons, page, shrink, rendered), len(dungeons), progress)


def _numbered_sheets(pages: Iterator[Page], total: int, progress: Progress | None) -> Iterator[Page]:
    from exporters.paper import PaperError

    index = 0
    while True:
        try:
            sheet = next(pages)
        except StopIteration:
            return
        except PaperError as exc:
            raise paper_error(exc, index) from None
        index += 1
        if progress:
            progress(index, total)
        yield sheet


def draw_sheets(
    dungeons: Sequence,
    page: PageOptions = PageOptions(),  # noqa: B008 - frozen, never changed
    progress: Progress | None = None,
    shrink: bool = False,
) -> list[Page]:
    """The printed page of each dungeon (see :func:`iter_sheets`), as a list: what a print
    preview shows."""
    return list(iter_sheets(dungeons, page, progress, shrink))


def notes_of(sheets: Iterable[Page]) -> list[ExportNote]:
    """What the user should know about ``sheets``: each one's own notes, and the characters
    the shipped font cannot draw (this asks Qt's font database, so it starts Qt)."""
    from exporters.qt import unsupported_characters

    notes = []
    for sheet in sheets:
        notes += [ExportNote("sheet", sheet.title, message) for message in sheet.warnings]
        missing = unsupported_characters(sheet.texts)
        if missing:
            notes.append(ExportNote("missing-characters", sheet.title, characters=tuple(missing)))
    return notes


def _start(format_: Format, dungeons: Sequence, path, options: WriteOptions) -> tuple[list, Path]:
    dungeons = list(dungeons)
    path = check_output(path)
    check_options(options, format_.reads)
    if not dungeons:
        raise ExportError("no-dungeons", "there is no dungeon to export")
    if not format_.many and len(dungeons) != 1:
        raise ExportError(
            "one-dungeon",
            f"{format_.description} holds one dungeon; the input has {len(dungeons)}",
            count=len(dungeons),
        )
    return dungeons, path


def _unwritable(exc: OSError, path: Path) -> ExportError:
    from inkcrawl.jsonio import WriteRefused

    reason = exc.strerror or str(exc)
    return ExportError(
        "unwritable",
        f"{path} cannot be written: {reason}",
        path=path,
        reason=reason,
        refused=exc.reason if isinstance(exc, WriteRefused) else None,
    )


def _inputs(dungeons: Sequence) -> list[str]:
    """The files the dungeons came from: an export never replaces one of them."""
    return [str(opened.file) for opened in dungeons if getattr(opened, "file", None)]


def _ticker(progress: Progress | None, total: int) -> Callable[[], None] | None:
    """A no-argument callback counting up to ``total`` on ``progress``."""
    if progress is None:
        return None
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        progress(done, total)

    return tick


def output_intent(options: WriteOptions):
    """The :class:`exporters.pdfx.OutputIntent` of ``options.pdfx`` (``None`` for plain PDFs).
    Raises :class:`ExportError` ``"pdfx"``."""
    if options.pdfx is None:
        return None
    from exporters.pdfx import PdfxError, check_version, cmyk_output_intent

    try:
        check_version(options.pdfx)
        return cmyk_output_intent(options.output_profile)
    except PdfxError as exc:
        raise ExportError("pdfx", str(exc)) from None


def _start_qt_for_pdf() -> None:
    """What writing a PDF starts first, needing no page: Qt with the shipped fonts, and pypdf."""
    import pypdf  # noqa: F401

    from exporters.qt import ensure_app

    ensure_app()


def _write_pdf(pages, path: Path, title: str, progress, force: bool = False, inputs: Sequence = (), pdfx=None) -> int:
    from exporters import qt
    from exporters.pdfx import PdfxError
    from inkcrawl.jsonio import check_target

    try:
        check_target(path, force, inputs)  # before the drawing: refused at once
        return qt.write_pdf(pages, path, title=title, progress=progress, force=force, inputs=inputs, pdfx=pdfx)
    except PdfxError as exc:
        raise ExportError("pdfx", str(exc)) from None
    except OSError as exc:
        raise _unwritable(exc, path) from None
    except ValueError as exc:  # Qt cannot parse a page: ours to fix
        raise ExportError("internal", f"{exc}; please report this") from None


def _sheet_title(dungeons: Sequence) -> str:
    return dungeons[0].dungeon.sheet.title if len(dungeons) == 1 else "inkcrawl play sheets"


# --------------------------------------------------------------------------------------------
# The formats
# --------------------------------------------------------------------------------------------


class SheetPdf(Format):
    name, group, suffixes, unit = "sheet-pdf", "sheet", (".pdf",), "page"
    reads = frozenset({"page", "copies", "shrink", "pdfx", "output_profile", "safe_mm"})
    description = "play sheets as one vector PDF, each sheet at its printed size, options.copies pages each"

    def start(self, dungeons, options=WriteOptions()) -> Started | None:
        if not dungeons:
            return None
        from exporters.pages import build_pages

        # the drawing starts now, before Qt, which renders each page as it comes
        return Started(dungeons, build_pages(dungeons, options.page, options.shrink, rendered=True))

    def meanwhile(self, options=WriteOptions()) -> Callable[[], None] | None:
        return _start_qt_for_pdf

    def write(self, dungeons, path, options=WriteOptions(), progress=None, started=None) -> ExportResult:
        try:
            dungeons, path = _start(self, dungeons, path, options)
            intent = output_intent(options)
        except ExportError:
            if started is not None:
                started.close()
            raise
        if started is None:
            started = self.start(dungeons, options)
        assert started is not None  # _start refuses an empty list
        drawn, sheets = _numbered_sheets(started.pages, len(dungeons), None), []

        def sequence():
            for sheet in drawn:
                sheet.safe_mm = options.safe_mm
                sheets.append(sheet)
                for _ in range(options.copies):
                    yield sheet

        count = _write_pdf(
            sequence(),
            path,
            _sheet_title(dungeons),
            _ticker(progress, len(dungeons) * options.copies),
            options.replace_read_only,
            _inputs(dungeons),
            intent,
        )
        return ExportResult(self.name, [path], len(dungeons), pages=count, sheets=sheets, notes=notes_of(sheets))


class SheetSvg(Format):
    name, group, suffixes, reads = "sheet-svg", "sheet", (".svg",), frozenset({"page", "shrink", "text_as_paths"})
    description = (
        "play sheets as self-contained SVG (the fonts embedded as subsets), in mm at their printed size: "
        "the file asked for one dungeon, OUT-<dungeon id>.svg beside it for each of several"
    )

    def write(self, dungeons, path, options=WriteOptions(), progress=None, started=None) -> ExportResult:
        from exporters.svgfile import font_faces, self_contained, text_as_paths
        from inkcrawl.jsonio import write_text_atomic

        dungeons, path = _start(self, dungeons, path, options)
        sheets = draw_sheets(dungeons, options.page, progress, options.shrink)
        if len(sheets) == 1:
            targets = [path]
        else:
            ids = [opened.dungeon.id for opened in dungeons]
            targets = [
                path.with_name(f"{path.stem}-{id_ if ids.count(id_) == 1 else f'{number}-{id_}'}.svg")
                for number, id_ in enumerate(ids, 1)
            ]
        if options.text_as_paths:
            texts = [self_contained(text_as_paths(sheet.svg), "") for sheet in sheets]
        else:
            faces = font_faces(
                [text for sheet in sheets for text in sheet.texts],
                bold=any('font-weight="bold"' in sheet.svg for sheet in sheets),
            )
            texts = [self_contained(sheet.svg, faces) for sheet in sheets]
        for text, target in zip(texts, targets):
            try:
                write_text_atomic(target, text, options.replace_read_only, _inputs(dungeons))
            except OSError as exc:
                raise _unwritable(exc, target) from None
        return ExportResult(self.name, targets, len(dungeons), sheets=sheets, notes=notes_of(sheets))


class SheetPng(Format):
    name, group, suffixes, reads = "sheet-png", "sheet", (".png",), frozenset({"page", "dpi", "shrink"})
    description = (
        "a play sheet as a PNG image at options.dpi, or a contact sheet of several "
        f"(at most {CONTACT_SHEET_MAX_DPI:g} dpi)"
    )

    def write(self, dungeons, path, options=WriteOptions(), progress=None, started=None) -> ExportResult:
        from exporters.qt import ImageTooLarge, contact_sheet_png, svg_to_png
        from inkcrawl.jsonio import write_bytes_atomic

        dungeons, path = _start(self, dungeons, path, options)
        sheets = draw_sheets(dungeons, options.page, progress, options.shrink)
        contact = len(sheets) > 1
        dpi = min(options.dpi, CONTACT_SHEET_MAX_DPI) if contact else options.dpi
        try:
            if contact:
                data = contact_sheet_png(sheets, dpi=dpi)
            else:
                data = svg_to_png(sheets[0].svg, sheets[0].width_mm, sheets[0].height_mm, dpi)
        except ImageTooLarge as exc:
            raise ExportError("image-too-large", str(exc), needs_lower_dpi=True) from None
        except ValueError as exc:
            raise ExportError("internal", f"{exc}; please report this") from None
        try:
            write_bytes_atomic(path, data, options.replace_read_only, _inputs(dungeons))
        except OSError as exc:
            raise _unwritable(exc, path) from None
        return ExportResult(
            self.name, [path], len(dungeons), sheets=sheets, notes=notes_of(sheets), contact_sheet=contact, dpi=dpi
        )


class CardsPdf(Format):
    name, group, suffixes, unit = "cards-pdf", "cards", (".pdf",), "page"
    reads = frozenset(
        {"page", "deck_source", "deck", "backs", "pdfx", "output_profile", "card_layout", "card_mm", "safe_mm"}
    )
    description = (
        "print-and-play card sheets (63 x 88 mm poker cards) of a grid deck as PDF, or one card per page "
        "(back, front, back, front...) for print on demand"
    )

    def write(self, dungeons, path, options=WriteOptions(), progress=None, started=None) -> ExportResult:
        from exporters.cards import CARD_HEIGHT_MM, CARD_WIDTH_MM, CardError, card_pages, single_card_pages

        dungeons, path = _start(self, dungeons, path, options)
        intent = output_intent(options)
        try:
            backs = options.backs or options.card_layout == "one-per-page"
            deck_name, cards, back_name, back_art, opened = _deck(dungeons, options, backs)
            if options.card_layout == "one-per-page":
                card_mm = options.card_mm or (CARD_WIDTH_MM, CARD_HEIGHT_MM)
                pages = single_card_pages(
                    cards, opened.ruleset, options.page, card_mm, back_name, options.safe_mm, back_art
                )
            else:
                pages = card_pages(
                    cards, opened.ruleset, options.page, backs=options.backs, back_name=back_name, back_art=back_art
                )
        except CardError as exc:
            raise ExportError("cards", str(exc)) from None
        count = _write_pdf(
            pages,
            path,
            f"{deck_name} cards",
            _ticker(progress, len(pages)),
            options.replace_read_only,
            _inputs(dungeons),
            intent,
        )
        return ExportResult(
            self.name, [path], len(dungeons), pages=count, deck_name=deck_name, cards=sum(cards.values())
        )


def _deck(dungeons: Sequence, options: WriteOptions, backs: bool = True):
    """``(deck name, card kind -> count, back name, back art, opened dungeon)`` of a card export,
    the back art the deck's own image as a ``data:`` URI, or ``None`` when it has none or no
    back is drawn (``backs`` false). Raises :class:`ExportError` ``"wrong-family"``,
    :class:`exporters.cards.CardError`."""
    from exporters.cards import CardError, back_art_uri, deck_back, deck_for, pack_name
    from exporters.qt import read_image

    opened = dungeons[0]
    family = opened.ruleset.family
    if family != "grid":
        raise ExportError(
            "wrong-family",
            f"card sheets are for the grid family's deck; this is a {family}-family "
            f"{'pack' if len(dungeons) > 1 else 'dungeon'}",
            family=family,
        )
    if options.deck_source is not None:
        deck_name, cards = deck_for(str(options.deck_source), opened, options.deck)
    elif options.deck is not None:
        raise CardError(f"there is no pack to take the deck {options.deck!r} from")
    else:
        deck_name = f"{opened.ruleset.data.get('name', opened.ruleset.id)} deck"
        cards = dict(opened.ruleset.deck)
    back_name = pack_name(str(options.deck_source)) if options.deck_source is not None else None
    back = deck_back(str(options.deck_source), options.deck) if options.deck_source is not None and backs else None
    back_art = back_art_uri(back[0], read_image, back[1]) if back is not None else None
    return deck_name, cards, back_name, back_art, opened


class CardsPng(Format):
    name, group, suffixes, unit = "cards-png", "cards", (".png",), "card"
    reads = frozenset({"page", "deck_source", "deck", "dpi", "card_mm"})
    description = (
        "one PNG image per card face of a grid deck (and one of the back), each the card as cut plus its "
        "bleed at options.dpi: OUT-<card kind>.png and OUT-back.png beside OUT"
    )

    def write(self, dungeons, path, options=WriteOptions(), progress=None, started=None) -> ExportResult:
        from exporters.cards import CARD_HEIGHT_MM, CARD_WIDTH_MM, CardError, card_faces
        from exporters.qt import ImageTooLarge, svg_to_png
        from inkcrawl.jsonio import check_target, write_bytes_atomic

        dungeons, path = _start(self, dungeons, path, options)
        try:
            deck_name, cards, back_name, back_art, opened = _deck(dungeons, options)
            faces = card_faces(
                cards,
                opened.ruleset,
                options.page,
                options.card_mm or (CARD_WIDTH_MM, CARD_HEIGHT_MM),
                back_name,
                back_art,
            )
        except CardError as exc:
            raise ExportError("cards", str(exc)) from None
        targets = [path.with_name(f"{path.stem}-{kind.replace('_', '-')}.png") for kind, _, _ in faces]
        for target in targets:  # refused before anything is drawn
            try:
                check_target(target, options.replace_read_only, _inputs(dungeons))
            except OSError as exc:
                raise _unwritable(exc, target) from None
        tick = _ticker(progress, len(faces))
        for (_, _, page), target in zip(faces, targets):
            try:
                data = svg_to_png(page.svg, page.width_mm, page.height_mm, options.dpi)
            except ImageTooLarge as exc:
                raise ExportError("image-too-large", str(exc), needs_lower_dpi=True) from None
            except ValueError as exc:
                raise ExportError("internal", f"{exc}; please report this") from None
            try:
                write_bytes_atomic(target, data, options.replace_read_only, _inputs(dungeons))
            except OSError as exc:
                raise _unwritable(exc, target) from None
            if tick:
                tick()
        return ExportResult(
            self.name,
            targets,
            len(dungeons),
            deck_name=deck_name,
            cards=sum(cards.values()),
            dpi=options.dpi,
            faces=[(kind, count) for kind, count, _ in faces],
        )


class GameJson(Format):
    name, group, suffixes = "game-json", "game", (".json",)
    description = (
        "self-contained game data: definitions resolved, every rules switch written, connectivity "
        "precomputed (docs/game-data.md)"
    )

    def write(self, dungeons, path, options=WriteOptions(), progress=None, started=None) -> ExportResult:
        from inkcrawl.gamedata import game_document
        from inkcrawl.jsonio import dumps_canonical, write_text_atomic
        from inkcrawl.schema import schema_problems

        dungeons, path = _start(self, dungeons, path, options)
        try:
            document = game_document(dungeons)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ExportError("game-data", f"the game data cannot be built from this dungeon ({exc})") from None
        problems = schema_problems(document, "game", str(path))
        if problems:  # values beyond the game data's bounds (a forced export of a broken dungeon), or a bug of ours
            raise ExportError(
                "game-data",
                f"the game data cannot be written: it would not match schemas/game.schema.json "
                f"({problems[0].pointer}: {problems[0].message}); the dungeon holds values the game data does "
                f"not allow (inkcrawl validate lists its errors); if it validates clean, please report this",
            )
        try:
            write_text_atomic(path, dumps_canonical(document), options.replace_read_only, _inputs(dungeons))
        except OSError as exc:
            raise _unwritable(exc, path) from None
        if progress:
            progress(len(dungeons), len(dungeons))
        return ExportResult(self.name, [path], len(dungeons))


class TiledMap(Format):
    group, many, reads = "tiled", False, frozenset({"px_per_mm", "tile_mm"})

    def __init__(self, name: str, suffixes: tuple[str, ...], description: str):
        self.name, self.suffixes, self.description = name, suffixes, description

    def write(self, dungeons, path, options=WriteOptions(), progress=None, started=None) -> ExportResult:
        from inkcrawl.jsonio import write_text_atomic
        from inkcrawl.tiled_export import TiledExportError, export_tiled

        dungeons, path = _start(self, dungeons, path, options)
        try:
            text = export_tiled(dungeons[0].dungeon, self.suffixes[0], options.px_per_mm, options.tile_mm)
        except TiledExportError as exc:
            raise ExportError("tiled", str(exc)) from None
        try:
            write_text_atomic(path, text, options.replace_read_only, _inputs(dungeons))
        except OSError as exc:
            raise _unwritable(exc, path) from None
        if progress:
            progress(1, 1)
        return ExportResult(self.name, [path], 1, px_per_mm=options.px_per_mm)


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------

SHEET_PDF = SheetPdf()
SHEET_SVG = SheetSvg()
SHEET_PNG = SheetPng()
CARDS_PDF = CardsPdf()
CARDS_PNG = CardsPng()
GAME_JSON = GameJson()
TILED_JSON = TiledMap("tiled-json", (".tmj", ".json"), "a Tiled map (JSON)")
TILED_TMX = TiledMap("tiled-tmx", (".tmx",), "a Tiled map (TMX)")

#: Every format, in the order they are listed to users.
FORMATS: tuple[Format, ...] = (
    SHEET_PDF,
    SHEET_SVG,
    SHEET_PNG,
    CARDS_PDF,
    CARDS_PNG,
    GAME_JSON,
    TILED_JSON,
    TILED_TMX,
)


def format_named(name: str) -> Format:
    """The format called ``name`` (``sheet-pdf``...); raises ``KeyError`` for an unknown one."""
    for format_ in FORMATS:
        if format_.name == name:
            return format_
    raise KeyError(name)


def formats_in(group: str) -> list[Format]:
    """The formats that export ``group`` (``sheet``, ``cards``, ``game``, ``tiled``)."""
    return [format_ for format_ in FORMATS if format_.group == group]


def format_for(group: str, path: str | Path) -> Format | None:
    """The format of ``group`` that writes files such as ``path`` (by suffix), or ``None``."""
    return next((format_ for format_ in formats_in(group) if format_.accepts(path)), None)


def suffixes_of(group: str) -> list[str]:
    """Every suffix the formats of ``group`` write, in order."""
    return [suffix for format_ in formats_in(group) for suffix in format_.suffixes]
