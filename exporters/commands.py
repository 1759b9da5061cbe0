"""``inkcrawl export``: play sheets as SVG, PDF or PNG, card sheets as PDF, game data, Tiled maps.

Registered in the core CLI through the ``inkcrawl.commands`` entry point (see
:mod:`inkcrawl.cli`). A thin adapter over :mod:`exporters.formats`: it parses the options,
opens and validates the input, picks the format by the output's suffix, and phrases the
format's results, notes and errors in the command line's words (advice names our options).
Exit codes as ``inkcrawl validate``: 0 written, 1 the input has validation errors (the report
is printed; ``--force`` exports anyway), 2 usage error, unreadable input or output that cannot
be written (a read-only output is refused unless ``--force``; a device, pipe or socket and the
input files themselves always; a symlink is written through to its target). 130 Ctrl+C, 143 SIGTERM.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from exporters.presets import PRESETS
from inkcrawl.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE
from inkcrawl.cli.common import terminal_safe

if TYPE_CHECKING:
    from tqdm import tqdm

_SHEET_EPILOG = """\
examples:
  inkcrawl export sheet content/packs/lantern-depths -o lantern-depths.pdf --copies 4
  inkcrawl export sheet my-dungeon.json -o my-dungeon.png --dpi 200
  inkcrawl export sheet my-dungeon.json -o my-dungeon.svg --grayscale
  inkcrawl export sheet my-dungeon.json -o shop.pdf --paper A4 --bleed 3 --crop-marks
  inkcrawl export sheet my-dungeon.json -o shop.pdf --preset drivethrucards --pdfx 4
  inkcrawl export sheet content/packs/ember-halls -o letter.pdf --paper Letter
  inkcrawl export sheet content/packs/ember-halls -o shop.pdf --bleed 3 --pdfx 4 --output-profile FOGRA39.icc

OUT decides the format: .pdf (every sheet, one page per copy), .svg (one file per dungeon:
OUT itself for one dungeon, OUT-<dungeon id>.svg for several), .png (the sheet of one dungeon,
or a contact sheet of a whole pack). A sheet keeps its size on other --paper when its ink fits
the printable area; otherwise it is shrunk to fit, with a warning (--exact refuses it instead).
A dungeon with validation errors is refused unless --force.
OUT is written atomically; a read-only OUT is refused unless --force, a device or an input always.
exit codes: 0 written, 1 validation errors, 2 usage error, unreadable input or unwritable output
"""

_CARDS_EPILOG = """\
examples:
  inkcrawl export cards content/packs/ember-halls -o cards.pdf
  inkcrawl export cards content/packs/ember-halls -o cards.pdf --deck gentle --backs --crop-marks
  inkcrawl export cards content/packs/ember-halls -o cards.pdf --bleed 3 --pdfx 4

  inkcrawl export cards content/packs/ember-halls -o deck.pdf --preset drivethrucards
  inkcrawl export cards content/packs/ember-halls -o card.png --preset thegamecrafter

Poker-size cards (63 x 88 mm), as many per page as fit, from the pack's deck (or the
ruleset's). --backs adds a backs page after each fronts page, mirrored for duplex printing.
OUT decides the format: .pdf (card sheets), .png (one image per card face, OUT-<kind>.png,
and OUT-back.png). --preset drivethrucards: 1/8" bleed and safe zone, 2.5 x 3.5" cards one per
page, back, front, back, front; --preset thegamecrafter: 825 x 1125 px PNGs at 300 dpi.
Options given override the preset's values.
exit codes: 0 written, 1 validation errors, 2 usage error, unreadable input or unwritable output
"""


_TILED_EPILOG = """\
examples:
  inkcrawl export tiled my-dungeon.json -o my-dungeon.tmj
  inkcrawl export tiled my-dungeon.json -o my-dungeon.tmx --px-per-mm 8

OUT decides the format: .tmj or .json (Tiled JSON), .tmx (Tiled XML). One Tiled pixel is
1/PX mm of the sheet; the map is as many TILE-MM tiles as cover the paper. A dungeon with
validation errors is refused unless --force. OUT is written atomically; a read-only OUT is
refused unless --force, a device or the input always.
exit codes: 0 written, 1 validation errors, 2 usage error, unreadable input or unwritable output
"""


_PREFLIGHT_EPILOG = """\
examples:
  inkcrawl preflight shop.pdf
  inkcrawl preflight cards.pdf --bleed 3.175 --cmyk
  inkcrawl preflight shop.pdf --format json

Checks what a print shop's checker rejects, page by page: TrimBox inside BleedBox inside
MediaBox (ArtBox inside TrimBox), the bleed asked for, every font embedded (and as a subset),
no RGB where CMYK is required (a PDF/X file with a CMYK output intent, or --cmyk), total ink
at most --max-ink, raster images at least --min-dpi. Warnings (a font embedded whole) do not
change the exit code.
exit codes: 0 clean, 1 problems a shop would reject, 2 usage error or a file that cannot be read
"""


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage") from None
    if not 100 <= value <= 400:
        raise argparse.ArgumentTypeError("use 100 to 400 (% of total ink)")
    return value


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.1 <= value <= 100:
        raise argparse.ArgumentTypeError("use 0.1 to 100 pixels per mm")
    return value


def _mm_between(low: float, high: float):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of millimetres") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} mm is out of range ({low:g} to {high:g})")
        return value

    return parse


def _paper(text: str) -> tuple[float, float]:
    from exporters.paper import PaperError, parse_paper

    try:
        return parse_paper(text)
    except PaperError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError("use 1 to 100 copies")
    return value


def _dpi(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 10 <= value <= 1200:
        raise argparse.ArgumentTypeError("use a resolution from 10 to 1200 dpi")
    return value


def _add_page_options(parser: argparse.ArgumentParser, cards: bool = False) -> None:
    parser.add_argument(
        "--paper",
        type=_paper,
        metavar="SIZE",
        help="A4, Letter, A3, A5, Legal, Tabloid or WIDTHxHEIGHT with mm/cm/in/pt "
        + ("(default: A4)" if cards else "(default: the sheet's own paper)"),
    )
    parser.add_argument(
        "--orientation",
        choices=("auto", "portrait", "landscape"),
        default="auto",
        help="default auto: " + ("portrait" if cards else "landscape for sheets wider than tall"),
    )
    parser.add_argument(
        "--margin",
        type=_mm_between(0, 100),
        metavar="MM",
        help="page margin in mm (default: " + ("6)" if cards else "the sheet's)"),
    )
    parser.add_argument(
        "--preset",
        choices=tuple(PRESETS),
        help="set bleed, safe zone"
        + (", card size, layout and image resolution" if cards else " and image resolution")
        + " for a home printer or a print-on-demand shop (options given override it)",
    )
    parser.add_argument(
        "--bleed",
        type=_mm_between(0, 20),
        metavar="MM",
        help=(
            "extend every card by MM on each side for cutting (3 is usual; default 0 or the preset's)"
            if cards
            else "extend the page by MM on every side for a print shop (3 is usual; default 0 or the preset's)"
        ),
    )
    parser.add_argument(
        "--crop-marks",
        action="store_true",
        help=(
            "draw crop marks at the corners of every card"
            if cards
            else "draw crop marks at the corners of the paper (the page grows 10 mm on each side to hold them)"
        ),
    )
    parser.add_argument("--grayscale", action="store_true", help="print in greys only, for black-and-white printers")
    parser.add_argument(
        "--pdfx",
        choices=("4", "1a"),
        help="PDF: write PDF/X-4 for a print shop: CMYK (black as K only, at most 240%% ink) with the output "
        "intent of --output-profile (1a is not offered: Qt cannot write it)",
    )
    parser.add_argument(
        "--output-profile",
        metavar="ICC",
        help="with --pdfx: the shop's CMYK profile (.icc); default: $INKCRAWL_CMYK_PROFILE, else Ghostscript's "
        "SWOP profile where installed",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="export even when validation finds errors, and replace OUT even when it is read-only",
    )


def register(subparsers) -> None:
    """Add ``export`` with its ``sheet`` and ``cards`` subcommands to the ``inkcrawl`` CLI."""
    export = subparsers.add_parser(
        "export",
        help="export printable sheets (SVG, PDF, PNG) and card sheets",
        description="Export dungeons and packs for printing.",
    )
    kinds = export.add_subparsers(dest="export_kind", metavar="WHAT", required=True)

    sheet = kinds.add_parser(
        "sheet",
        help="play sheets as PDF, SVG or PNG",
        description="Export the play sheet of dungeons or whole packs at their exact printed size.",
        epilog=_SHEET_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sheet.add_argument("paths", nargs="+", metavar="PATH", help="a dungeon file, a pack folder or a pack.json")
    sheet.add_argument("-o", "--output", required=True, metavar="OUT", help="the file to write: .pdf, .svg or .png")
    _add_page_options(sheet)
    scaling = sheet.add_mutually_exclusive_group()
    scaling.add_argument("--fit", action="store_true", help="scale the sheet to the paper instead of keeping its size")
    scaling.add_argument(
        "--exact",
        action="store_true",
        help="refuse a sheet whose ink does not fit the paper at its size (by default it is shrunk to fit, "
        "with a warning giving the scale)",
    )
    sheet.add_argument(
        "--text-as-paths",
        action="store_true",
        help="SVG: draw text as the outlines of its letters (no font needed) instead of embedding the fonts",
    )
    sheet.add_argument(
        "--copies",
        type=_count,
        default=1,
        metavar="N",
        help="PDF: N copies of each sheet, one per player (1-100; default 1)",
    )
    sheet.add_argument(
        "--dpi",
        type=_dpi,
        help="PNG resolution (default 150, or the preset's; a contact sheet of several dungeons uses at most 60)",
    )
    sheet.set_defaults(func=_cmd_sheet)

    cards = kinds.add_parser(
        "cards",
        help="print-and-play card sheets of a grid pack's deck (PDF)",
        description="Export the deck of a grid-family pack as poker-size print-and-play cards.",
        epilog=_CARDS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cards.add_argument("paths", nargs=1, metavar="PACK", help="a grid pack folder, pack.json, or grid dungeon file")
    cards.add_argument("-o", "--output", required=True, metavar="OUT", help="the PDF or PNG to write")
    cards.add_argument("--deck", metavar="ID", help="which deck of the pack (default: its first, else the ruleset's)")
    cards.add_argument("--backs", action="store_true", help="add a backs page after each page, laid out for duplex")
    cards.add_argument("--dpi", type=_dpi, help="PNG resolution of card images (default 300)")
    _add_page_options(cards, cards=True)
    cards.set_defaults(func=_cmd_cards)

    game = kinds.add_parser(
        "game",
        help="playable game data (JSON) for inkcrawl's engines and other programs",
        description="Export self-contained game data: one entry per dungeon with the ruleset "
        "resolved, every rules switch written and connectivity precomputed "
        "(docs/game-data.md, schemas/game.schema.json).",
        epilog="example:\n  inkcrawl export game content/packs/lantern-depths -o lantern-depths.game.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    game.add_argument("paths", nargs="+", metavar="PATH", help="a dungeon file, a pack folder or a pack.json")
    game.add_argument("-o", "--output", required=True, metavar="OUT", help="the JSON file to write")
    game.add_argument(
        "--force",
        action="store_true",
        help="export even when validation finds errors, and replace OUT even when it is read-only",
    )
    game.set_defaults(func=_cmd_game)

    tiled = kinds.add_parser(
        "tiled",
        help="a dungeon as a Tiled map (TMJ or TMX)",
        description="Export one dungeon as a Tiled map: object layers per element group, element "
        "kinds as classes, our members as typed custom properties "
        "(docs/importing-tiled.md). 'inkcrawl import' reads it back.",
        epilog=_TILED_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    tiled.add_argument("paths", nargs=1, metavar="DUNGEON", help="a dungeon file")
    tiled.add_argument("-o", "--output", required=True, metavar="OUT", help="the map to write: .tmj (or .json) or .tmx")
    tiled.add_argument(
        "--px-per-mm",
        type=_positive_number,
        default=4.0,
        metavar="PX",
        help="Tiled pixels per sheet millimetre (default 4)",
    )
    tiled.add_argument(
        "--tile-mm",
        type=_mm_between(0.5, 200),
        default=5.0,
        metavar="MM",
        help="side of a map tile in mm (default 5; tile-mm x px-per-mm must be whole pixels)",
    )
    tiled.add_argument(
        "--force",
        action="store_true",
        help="export even when validation finds errors, and replace OUT even when it is read-only",
    )
    tiled.set_defaults(func=_cmd_tiled)

    preflight = subparsers.add_parser(
        "preflight",
        help="check a PDF as a print shop would (boxes, fonts, colour, ink, image resolution)",
        description="Check a PDF for what print shops reject, naming each problem with its page.",
        epilog=_PREFLIGHT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    preflight.add_argument("pdf", metavar="FILE.pdf", help="the PDF to check")
    preflight.add_argument(
        "--bleed",
        type=_mm_between(0, 20),
        metavar="MM",
        help="require this much bleed beyond the TrimBox on every side (3.175 = 1/8 inch)",
    )
    preflight.add_argument("--cmyk", action="store_true", help="require CMYK colour even in a file that is not PDF/X")
    preflight.add_argument(
        "--max-ink", type=_percent, default=240.0, metavar="PCT", help="the most total ink in %% (default 240)"
    )
    preflight.add_argument(
        "--min-dpi", type=_dpi, default=300.0, metavar="DPI", help="the least raster image resolution (default 300)"
    )
    preflight.add_argument(
        "--format", choices=("text", "json"), default="text", help="text lines (default) or json for programs"
    )
    preflight.set_defaults(func=_cmd_preflight)


def _error(message: str) -> int:
    print(terminal_safe(f"inkcrawl export: error: {message}"), file=sys.stderr)
    return EXIT_USAGE


def _open(paths: list[str], force: bool, built=None, meanwhile=None):
    """Validate and open the dungeons; returns ``(dungeons, exit code or None)``. ``built`` is
    called with the dungeons once their models are built, before the rule checks, and
    ``meanwhile`` runs while they run (:func:`inkcrawl.loading.open_dungeons`)."""
    from inkcrawl.loading import open_dungeons
    from inkcrawl.report import format_text

    result = open_dungeons(paths, built, meanwhile)
    report = result.report
    if report.problems:
        text = format_text(report)
        sys.stderr.write(text)
    if report.unreadable_input:
        return [], EXIT_USAGE
    if report.errors and not force:
        print(
            "inkcrawl export: refused: the input has validation errors (see above); fix them or use --force",
            file=sys.stderr,
        )
        return [], EXIT_PROBLEMS
    if not result.dungeons:
        print("inkcrawl export: error: no dungeon could be opened", file=sys.stderr)
        return [], EXIT_PROBLEMS if report.errors else EXIT_USAGE
    missing = report.dungeons - len(result.dungeons)
    if missing > 0:
        print(
            f"inkcrawl export: warning: {missing} dungeon(s) are too broken to draw and are left out (see above)",
            file=sys.stderr,
        )
    return result.dungeons, None


class _Progress:
    """A progress bar on stderr (only on a terminal, only for two units or more), fed by a
    format's ``progress(done, total)``."""

    def __init__(self, unit: str):
        self.unit = unit
        self.bar: tqdm | None = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < 2 or not sys.stderr.isatty():
                return  # no bar (and tqdm not even imported)
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                unit=self.unit,
                file=sys.stderr,
                disable=total < 2 or not sys.stderr.isatty(),
                leave=False,
                dynamic_ncols=True,
            )
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _phrase(error, args) -> str:
    """An export error in the command line's words: its advice names our options."""
    message = error.message
    if error.code == "does-not-fit":
        margin = error.margin_that_fits_mm
        message += (
            ("; leave out --exact to shrink it, use --fit" if getattr(args, "exact", False) else "; use --fit")
            + " to scale it"
            + (f", --margin {margin:g} (keeps the size)" if margin is not None else "")
            + ", or a larger --paper"
        )
    elif error.code == "image-too-large":
        message += "; lower --dpi"
    elif error.code == "wrong-family":
        message = f"{args.paths[0]}: {message}"
    elif error.code == "one-dungeon":
        message = f"a Tiled map holds one dungeon; {args.paths[0]} has {error.count} (export a dungeon file)"
    elif error.code == "pdfx" and "none was found" in message:
        message = message.replace(
            "give the print shop's profile", "give the print shop's profile with --output-profile"
        )
    elif error.code == "unwritable":
        message = f"cannot write {error.path or args.output}: {error.reason}"
        if getattr(error, "refused", None) == "read-only":
            message += "; use --force to replace it"
    return message


def _warn(notes) -> None:
    by_message: dict[str, list[str]] = {}
    for note in notes:
        if note.code == "sheet":
            titles = by_message.setdefault(note.message, [])
            if note.sheet not in titles:
                titles.append(note.sheet)
    for message, titles in by_message.items():  # the same warning for many sheets is said once
        where = f'sheet "{titles[0]}"' if len(titles) == 1 else f"{len(titles)} sheets"
        print(terminal_safe(f"inkcrawl export: warning: {where}: {message}"), file=sys.stderr)
    for note in notes:
        if note.code == "missing-characters":
            shown = " ".join(note.characters[:20]) + (" ..." if len(note.characters) > 20 else "")
            print(
                terminal_safe(
                    f'inkcrawl export: warning: sheet "{note.sheet}" has characters the shipped font '
                    f"(DejaVu Sans) cannot draw, printed as empty boxes: {shown}"
                ),
                file=sys.stderr,
            )


def _summary(result) -> str:
    """What was written, in the command line's words."""
    files = result.files
    plural = "s" if result.pages != 1 else ""
    if result.format == "sheet-pdf":
        return f"wrote {files[0]} ({result.pages} page{plural})"
    if result.format == "sheet-svg":
        return "wrote " + ", ".join(str(f) for f in files)
    if result.format == "sheet-png":
        return f"wrote {files[0]}" + (f" (contact sheet of {result.dungeons} sheets)" if result.contact_sheet else "")
    if result.format == "cards-png":
        faces = ", ".join(f"{kind} x{count}" for kind, count in result.faces)
        return (
            f"wrote {len(files)} card images of deck {result.deck_name!r} at {result.dpi:g} dpi, "
            f"{files[-1].parent / files[-1].name[: -len('back.png')]}*.png ({faces})"
        )
    if result.format == "cards-pdf":
        return f"wrote {files[0]} ({result.cards} cards of deck {result.deck_name!r}, {result.pages} page{plural})"
    if result.format == "game-json":
        return f"wrote {files[0]} ({result.dungeons} dungeon{'s' if result.dungeons != 1 else ''})"
    kind = "TMX" if result.format == "tiled-tmx" else "JSON"
    return f"wrote {files[0]} (Tiled {kind}, {result.px_per_mm:g} px per mm)"


def _export(args: argparse.Namespace, group: str, wrong_suffix: str, options=None, check=None) -> int:
    """One export through :mod:`exporters.formats`: the format by the output's suffix, the
    input validated and opened, the file written, the result told."""
    from dataclasses import replace

    from exporters.formats import ExportError, WriteOptions, check_output, format_for
    from inkcrawl.cli.common import check_output_file
    from inkcrawl.loading import input_files

    format_ = format_for(group, args.output)
    if format_ is None:
        return _error(wrong_suffix)
    try:
        output = check_output(args.output)
    except ExportError as exc:
        return _error(exc.message)
    refused = check_output_file(output, args.force, input_files(args.paths))
    if refused:
        return _error(refused)
    options = replace(options or WriteOptions(), replace_read_only=args.force)
    if check is not None:
        problem = check(format_)
        if problem:
            return _error(problem)
    started = []

    def start(built) -> None:  # the format's work that needs only the models runs during the rule checks
        try:
            ahead = format_.start(built, options)
        except OSError:  # no processes to be had now: the format starts it when it writes, as it would
            return
        if ahead is not None:
            started.append(ahead)

    try:
        dungeons, status = _open(args.paths, args.force, start, format_.meanwhile(options))
        if status is not None:
            return status  # refused exactly as without the work begun: nothing was written
        ahead = started[0] if started and started[0].dungeons is dungeons else None
        progress = _Progress(format_.unit)
        try:
            result = format_.write(dungeons, output, options, progress, started=ahead)
        except ExportError as exc:
            return _error(_phrase(exc, args))
        finally:
            progress.close()
    finally:
        for ahead in started:
            ahead.close()
    _warn(result.notes)
    print(terminal_safe(_summary(result)))
    return EXIT_OK


def _page_options(args, fit: bool = False):
    """The page options of ``args``, a preset's bleed where no ``--bleed`` is given."""
    from exporters.pages import PageOptions
    from exporters.presets import preset_named, resolve

    preset = preset_named(args.preset)
    return PageOptions(
        paper=args.paper,
        orientation=args.orientation,
        margin_mm=args.margin,
        fit=fit,
        bleed_mm=resolve(args.bleed, preset, "bleed_mm", 0.0),
        crop_marks=args.crop_marks,
        grayscale=args.grayscale,
    )


def _safe_mm(args) -> float:
    """The safe zone of ``--preset`` (mm inside the paper or card), 0 without one."""
    from exporters.presets import preset_named

    preset = preset_named(args.preset)
    return preset.safe_mm if preset is not None else 0.0


def _cmd_sheet(args: argparse.Namespace) -> int:
    from exporters.formats import WriteOptions

    def copies_for_pdf_only(format_) -> str | None:
        if args.text_as_paths and format_.name != "sheet-svg":
            return "--text-as-paths applies to SVG output only"
        if format_.name != "sheet-pdf" and (args.pdfx or args.output_profile):
            return "--pdfx and --output-profile apply to PDF output only"
        if args.pdfx or args.output_profile:
            return _pdfx_problem(args)
        return "--copies applies to PDF output only" if args.copies > 1 and format_.name != "sheet-pdf" else None

    from exporters.presets import preset_named, resolve

    options = WriteOptions(
        page=_page_options(args, fit=args.fit),
        copies=args.copies,
        dpi=resolve(args.dpi, preset_named(args.preset), "dpi", 150.0),
        safe_mm=_safe_mm(args),
        shrink=not args.exact,
        text_as_paths=args.text_as_paths,
        pdfx=args.pdfx,
        output_profile=args.output_profile,
    )
    return _export(
        args,
        "sheet",
        f"cannot tell the format of {args.output!r}: the output must end in .pdf, .svg or .png",
        options,
        copies_for_pdf_only,
    )


def _cmd_game(args: argparse.Namespace) -> int:
    return _export(args, "game", "game data is JSON: the output must end in .json")


def _cmd_cards(args: argparse.Namespace) -> int:
    from exporters.formats import WriteOptions
    from exporters.presets import preset_named, resolve

    preset = preset_named(args.preset)
    options = WriteOptions(
        page=_page_options(args),
        deck_source=args.paths[0],
        deck=args.deck,
        backs=args.backs,
        pdfx=args.pdfx,
        output_profile=args.output_profile,
        dpi=resolve(args.dpi, preset, "dpi", 300.0),
        card_layout="one-per-page" if preset is not None and preset.cards == "one-per-page" else "sheets",
        card_mm=preset.card_mm if preset is not None else None,
        safe_mm=_safe_mm(args),
    )

    def check(format_) -> str | None:
        if format_.name == "cards-png":
            if preset is not None and preset.cards == "one-per-page":
                return f"{preset.title} takes a deck as one PDF: the output must end in .pdf"
            if args.pdfx or args.output_profile or args.backs or args.crop_marks:
                return "--pdfx, --output-profile, --backs and --crop-marks apply to PDF output only"
        elif preset is not None and preset.cards == "images":
            return f"{preset.title} takes cards as PNG images: the output must end in .png"
        elif args.dpi is not None:
            return "--dpi applies to PNG output only"
        return _pdfx_problem(args) if args.pdfx or args.output_profile else None

    return _export(
        args,
        "cards",
        "the output must end in .pdf (card sheets) or .png (one image per card face)",
        options,
        check,
    )


def _pdfx_problem(args) -> str | None:
    """Why ``--pdfx``/``--output-profile`` cannot be used, checked before any drawing, or ``None``."""
    from exporters.pdfx import PdfxError, check_version, cmyk_output_intent

    if args.output_profile and not args.pdfx:
        return "--output-profile needs --pdfx 4"
    try:
        check_version(args.pdfx)
        cmyk_output_intent(args.output_profile)
    except PdfxError as exc:
        text = str(exc)
        return text.replace("give the print shop's profile", "give the print shop's profile with --output-profile")
    return None


def _cmd_tiled(args: argparse.Namespace) -> int:
    from exporters.formats import WriteOptions

    options = WriteOptions(px_per_mm=args.px_per_mm, tile_mm=args.tile_mm)
    return _export(
        args, "tiled", f"cannot tell the format of {args.output!r}: the output must end in .tmj, .json or .tmx", options
    )


def _cmd_preflight(args: argparse.Namespace) -> int:
    import json

    from exporters.preflight import PreflightError, preflight

    try:
        report = preflight(
            args.pdf, bleed_mm=args.bleed, cmyk=args.cmyk, max_ink=args.max_ink / 100, min_dpi=args.min_dpi
        )
    except PreflightError as exc:
        print(terminal_safe(f"inkcrawl preflight: error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n")
    else:
        for problem in report.problems:
            where = f"page {problem.page}" if problem.page is not None else "document"
            print(terminal_safe(f"{report.path}: {where}: {problem.severity}: {problem.message} [{problem.code}]"))
        errors, warnings = len(report.errors), len(report.problems) - len(report.errors)
        kind = report.pdfx or "PDF"
        pages = f"{report.pages} page{'s' if report.pages != 1 else ''}"
        if errors:
            verdict = f"{errors} problem{'s' if errors != 1 else ''} a print shop would reject"
        else:
            verdict = "ready for a print shop"
        extra = f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""
        print(terminal_safe(f"{report.path}: {kind}, {pages}: {verdict}{extra}"))
    return EXIT_PROBLEMS if report.errors else EXIT_OK
