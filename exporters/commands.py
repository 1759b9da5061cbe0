"""``inkcrawl export``: play sheets as SVG, PDF or PNG, and card sheets as PDF.

Registered in the core CLI through the ``inkcrawl.commands`` entry point (see
:mod:`inkcrawl.cli`). Exit codes as ``inkcrawl validate``: 0 written, 1 the input has
validation errors (the report is printed; ``--force`` exports anyway), 2 usage error,
unreadable input or output that cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inkcrawl.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE

_SHEET_EPILOG = """\
examples:
  inkcrawl export sheet content/packs/lantern-depths -o lantern-depths.pdf --copies 4
  inkcrawl export sheet my-dungeon.json -o my-dungeon.png --dpi 200
  inkcrawl export sheet my-dungeon.json -o my-dungeon.svg --grayscale
  inkcrawl export sheet my-dungeon.json -o shop.pdf --paper A4 --bleed 3 --crop-marks

OUT decides the format: .pdf (every sheet, one page per copy), .svg (one file per dungeon:
OUT itself for one dungeon, OUT-<dungeon id>.svg for several), .png (the sheet of one dungeon,
or a contact sheet of a whole pack). A dungeon with validation errors is refused unless --force.
exit codes: 0 written, 1 validation errors, 2 usage error, unreadable input or unwritable output
"""

_CARDS_EPILOG = """\
examples:
  inkcrawl export cards content/packs/ember-halls -o cards.pdf
  inkcrawl export cards content/packs/ember-halls -o cards.pdf --deck gentle --backs --crop-marks

Poker-size cards (63 x 88 mm), as many per page as fit, from the pack's deck (or the
ruleset's). --backs adds a backs page after each fronts page, mirrored for duplex printing.
"""


_TILED_EPILOG = """\
examples:
  inkcrawl export tiled my-dungeon.json -o my-dungeon.tmj
  inkcrawl export tiled my-dungeon.json -o my-dungeon.tmx --px-per-mm 8

OUT decides the format: .tmj or .json (Tiled JSON), .tmx (Tiled XML). One Tiled pixel is
1/PX mm of the sheet; the map is as many TILE-MM tiles as cover the paper. A dungeon with
validation errors is refused unless --force.
exit codes: 0 written, 1 validation errors, 2 usage error, unreadable input or unwritable output
"""


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
    parser.add_argument("--paper", type=_paper, metavar="SIZE",
                        help="A4, Letter, A3, A5, Legal, Tabloid or WIDTHxHEIGHT with mm/cm/in/pt "
                             + ("(default: A4)" if cards else "(default: the sheet's own paper)"))
    parser.add_argument("--orientation", choices=("auto", "portrait", "landscape"), default="auto",
                        help="default auto: " + ("portrait" if cards
                                                 else "landscape for sheets wider than tall"))
    parser.add_argument("--margin", type=_mm_between(0, 100), metavar="MM",
                        help="page margin in mm (default: " + ("6)" if cards else "the sheet's)"))
    parser.add_argument("--bleed", type=_mm_between(0, 20), default=0.0, metavar="MM",
                        help=("extend every card by MM on each side for cutting (3 is usual)" if cards
                              else "extend the page by MM on every side for a print shop (3 is usual)"))
    parser.add_argument("--crop-marks", action="store_true",
                        help=("draw crop marks at the corners of every card" if cards else
                              "draw crop marks at the corners of the paper (the page grows 10 mm on each side "
                              "to hold them)"))
    parser.add_argument("--grayscale", action="store_true", help="print in greys only, for black-and-white printers")
    parser.add_argument("--force", action="store_true", help="export even when validation finds errors")


def register(subparsers) -> None:
    """Add ``export`` with its ``sheet`` and ``cards`` subcommands to the ``inkcrawl`` CLI."""
    export = subparsers.add_parser("export", help="export printable sheets (SVG, PDF, PNG) and card sheets",
                                   description="Export dungeons and packs for printing.")
    kinds = export.add_subparsers(dest="export_kind", metavar="WHAT", required=True)

    sheet = kinds.add_parser("sheet", help="play sheets as PDF, SVG or PNG",
                             description="Export the play sheet of dungeons or whole packs at their exact printed "
                                         "size.", epilog=_SHEET_EPILOG,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    sheet.add_argument("paths", nargs="+", metavar="PATH", help="a dungeon file, a pack folder or a pack.json")
    sheet.add_argument("-o", "--output", required=True, metavar="OUT", help="the file to write: .pdf, .svg or .png")
    _add_page_options(sheet)
    sheet.add_argument("--fit", action="store_true", help="scale the sheet to the paper instead of keeping its size")
    sheet.add_argument("--copies", type=_count, default=1, metavar="N", help="PDF: N copies of each sheet, one per player (1-100; default 1)")
    sheet.add_argument("--dpi", type=_dpi, default=150,
                       help="PNG resolution (default 150; a contact sheet of several dungeons uses at most 60)")
    sheet.set_defaults(func=_cmd_sheet)

    cards = kinds.add_parser("cards", help="print-and-play card sheets of a grid pack's deck (PDF)",
                             description="Export the deck of a grid-family pack as poker-size print-and-play cards.",
                             epilog=_CARDS_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    cards.add_argument("paths", nargs=1, metavar="PACK", help="a grid pack folder, pack.json, or grid dungeon file")
    cards.add_argument("-o", "--output", required=True, metavar="OUT", help="the PDF to write")
    cards.add_argument("--deck", metavar="ID", help="which deck of the pack (default: its first, else the ruleset's)")
    cards.add_argument("--backs", action="store_true", help="add a backs page after each page, laid out for duplex")
    _add_page_options(cards, cards=True)
    cards.set_defaults(func=_cmd_cards)

    game = kinds.add_parser("game", help="playable game data (JSON) for inkcrawl's engines and other programs",
                            description="Export self-contained game data: one entry per dungeon with the ruleset "
                                        "resolved, every rules switch written and connectivity precomputed "
                                        "(docs/game-data.md, schemas/game.schema.json).",
                            epilog="example:\n  inkcrawl export game content/packs/lantern-depths -o lantern-depths.game.json",
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    game.add_argument("paths", nargs="+", metavar="PATH", help="a dungeon file, a pack folder or a pack.json")
    game.add_argument("-o", "--output", required=True, metavar="OUT", help="the JSON file to write")
    game.add_argument("--force", action="store_true", help="export even when validation finds errors")
    game.set_defaults(func=_cmd_game)

    tiled = kinds.add_parser("tiled", help="a dungeon as a Tiled map (TMJ or TMX)",
                             description="Export one dungeon as a Tiled map: object layers per element group, element "
                                         "kinds as classes, our members as typed custom properties "
                                         "(docs/importing-tiled.md). 'inkcrawl import' reads it back.",
                             epilog=_TILED_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    tiled.add_argument("paths", nargs=1, metavar="DUNGEON", help="a dungeon file")
    tiled.add_argument("-o", "--output", required=True, metavar="OUT", help="the map to write: .tmj (or .json) or .tmx")
    tiled.add_argument("--px-per-mm", type=_positive_number, default=4.0, metavar="PX",
                       help="Tiled pixels per sheet millimetre (default 4)")
    tiled.add_argument("--tile-mm", type=_mm_between(0.5, 200), default=5.0, metavar="MM",
                       help="side of a map tile in mm (default 5; tile-mm x px-per-mm must be whole pixels)")
    tiled.add_argument("--force", action="store_true", help="export even when validation finds errors")
    tiled.set_defaults(func=_cmd_tiled)


def _error(message: str) -> int:
    print(f"inkcrawl export: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _open(paths: list[str], force: bool):
    """Validate and open the dungeons; returns ``(dungeons, exit code or None)``."""
    from inkcrawl.loading import open_dungeons
    from inkcrawl.report import format_text

    result = open_dungeons(paths)
    report = result.report
    if report.problems:
        text = format_text(report)
        sys.stderr.write(text)
    if report.unreadable_input:
        return [], EXIT_USAGE
    if report.errors and not force:
        print("inkcrawl export: refused: the input has validation errors (see above); fix them or use --force",
              file=sys.stderr)
        return [], EXIT_PROBLEMS
    if not result.dungeons:
        print("inkcrawl export: error: no dungeon could be opened", file=sys.stderr)
        return [], EXIT_PROBLEMS if report.errors else EXIT_USAGE
    missing = report.dungeons - len(result.dungeons)
    if missing > 0:
        print(f"inkcrawl export: warning: {missing} dungeon(s) are too broken to draw and are left out (see above)",
              file=sys.stderr)
    return result.dungeons, None


def _checked_output(args, suffixes: tuple[str, ...], wrong_suffix: str) -> Path | int:
    """The output path, or the exit code of a usage error (wrong extension, missing folder)."""
    output = Path(args.output)
    if output.suffix.lower() not in suffixes:
        return _error(wrong_suffix)
    if not output.parent.exists():
        return _error(f"the folder {str(output.parent)!r} does not exist")
    return output


def _progress(total: int, unit: str):
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, file=sys.stderr, disable=total < 2 or not sys.stderr.isatty(),
                leave=False, dynamic_ncols=True)


def _warn_characters(pages) -> None:
    from exporters.qt import unsupported_characters

    by_warning: dict[str, list[str]] = {}
    for page in pages:
        for warning in page.warnings:
            titles = by_warning.setdefault(warning, [])
            if page.title not in titles:
                titles.append(page.title)
    for warning, titles in by_warning.items():  # the same warning for many sheets is said once
        where = f"sheet \"{titles[0]}\"" if len(titles) == 1 else f"{len(titles)} sheets"
        print(f"inkcrawl export: warning: {where}: {warning}", file=sys.stderr)
    for page in pages:
        missing = unsupported_characters(page.texts)
        if missing:
            shown = " ".join(missing[:20]) + (" ..." if len(missing) > 20 else "")
            print(f"inkcrawl export: warning: sheet \"{page.title}\" has characters the shipped font (DejaVu Sans) "
                  f"cannot draw, printed as empty boxes: {shown}", file=sys.stderr)


def _page_options(args, fit: bool = False):
    from exporters.pages import PageOptions

    return PageOptions(paper=args.paper, orientation=args.orientation, margin_mm=args.margin, fit=fit,
                       bleed_mm=args.bleed, crop_marks=args.crop_marks, grayscale=args.grayscale)


def _cmd_sheet(args: argparse.Namespace) -> int:
    output = _checked_output(args, (".pdf", ".svg", ".png"),
                             f"cannot tell the format of {args.output!r}: the output must end in .pdf, .svg or .png")
    if isinstance(output, int):
        return output
    suffix = output.suffix.lower()
    if args.copies > 1 and suffix != ".pdf":
        return _error("--copies applies to PDF output only")
    dungeons, status = _open(args.paths, args.force)
    if status is not None:
        return status
    from exporters.pages import build_pages
    from exporters.paper import PaperError

    options = _page_options(args, fit=args.fit)
    pages: list = []
    try:
        if suffix == ".pdf":
            written = _write_pdf(build_pages(dungeons, options), pages, output, args.copies, dungeons)
        else:
            with _progress(len(dungeons), "sheet") as bar:
                for page in build_pages(dungeons, options):
                    pages.append(page)
                    bar.update()
            written = _write_svgs(pages, output, dungeons) if suffix == ".svg" else _write_png(pages, output, args.dpi)
    except PaperError as exc:
        return _error(str(exc))
    except (ValueError, MemoryError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot write {args.output}: {exc.strerror or exc}")
    _warn_characters(pages)
    print(written)
    return EXIT_OK


def _write_pdf(page_source, pages: list, output: Path, copies: int, dungeons) -> str:
    """Write pages as they come from ``page_source`` (each ``copies`` times), collecting them in
    ``pages``; the file appears only when every page was written."""
    from exporters.qt import write_pdf

    def sequence():
        for page in page_source:
            pages.append(page)
            for _ in range(copies):
                yield page

    title = dungeons[0].dungeon.sheet.title if len(dungeons) == 1 else "inkcrawl play sheets"
    with _progress(len(dungeons) * copies, "page") as bar:
        count = write_pdf(sequence(), output, title=title, progress=bar.update,
                          expected_pages=len(dungeons) * copies)
    return f"wrote {output} ({count} page{'s' if count != 1 else ''})"


def _write_svgs(pages, output: Path, dungeons) -> str:
    from inkcrawl.jsonio import write_text_atomic

    if len(pages) == 1:
        write_text_atomic(output, pages[0].svg)
        return f"wrote {output}"
    names = []
    ids = [opened.dungeon.id for opened in dungeons]
    for number, (page, opened) in enumerate(zip(pages, dungeons), 1):
        name = opened.dungeon.id if ids.count(opened.dungeon.id) == 1 else f"{number}-{opened.dungeon.id}"
        target = output.with_name(f"{output.stem}-{name}.svg")
        write_text_atomic(target, page.svg)
        names.append(str(target))
    return "wrote " + ", ".join(names)


def _write_png(pages, output: Path, dpi: float) -> str:
    from exporters.qt import contact_sheet_png, svg_to_png
    from inkcrawl.jsonio import write_bytes_atomic

    if len(pages) == 1:
        page = pages[0]
        write_bytes_atomic(output, svg_to_png(page.svg, page.width_mm, page.height_mm, dpi))
        return f"wrote {output}"
    write_bytes_atomic(output, contact_sheet_png(pages, dpi=min(dpi, 60)))
    return f"wrote {output} (contact sheet of {len(pages)} sheets)"


def _cmd_game(args: argparse.Namespace) -> int:
    output = _checked_output(args, (".json",), "game data is JSON: the output must end in .json")
    if isinstance(output, int):
        return output
    dungeons, status = _open(args.paths, args.force)
    if status is not None:
        return status
    from inkcrawl.gamedata import game_document
    from inkcrawl.jsonio import dumps_canonical, write_text_atomic
    from inkcrawl.schema import schema_problems

    document = game_document(dungeons)
    problems = schema_problems(document, "game", str(output))
    if problems:  # a bug of ours, never the user's: say so plainly
        return _error(f"the game data does not match schemas/game.schema.json ({problems[0].pointer}: "
                      f"{problems[0].message}); please report this")
    try:
        write_text_atomic(output, dumps_canonical(document))
    except OSError as exc:
        return _error(f"cannot write {args.output}: {exc.strerror or exc}")
    print(f"wrote {output} ({len(dungeons)} dungeon{'s' if len(dungeons) != 1 else ''})")
    return EXIT_OK


def _cmd_cards(args: argparse.Namespace) -> int:
    output = _checked_output(args, (".pdf",), "card sheets are written as PDF: the output must end in .pdf")
    if isinstance(output, int):
        return output
    dungeons, status = _open(args.paths, args.force)
    if status is not None:
        return status
    opened = dungeons[0]
    if opened.ruleset.family != "grid":
        return _error(f"{args.paths[0]}: card sheets are for the grid family's deck; this is a "
                      f"{opened.ruleset.family}-family {'pack' if len(dungeons) > 1 else 'dungeon'}")
    from exporters.cards import CardError, card_pages, deck_for
    from exporters.qt import write_pdf

    try:
        deck_name, cards = deck_for(args.paths[0], opened, args.deck)
        pages = card_pages(cards, opened.ruleset, _page_options(args), backs=args.backs)
    except CardError as exc:
        return _error(str(exc))
    try:
        with _progress(len(pages), "page") as bar:
            count = write_pdf(pages, output, title=f"{deck_name} cards", progress=bar.update)
    except OSError as exc:
        return _error(f"cannot write {args.output}: {exc.strerror or exc}")
    print(f"wrote {output} ({sum(cards.values())} cards of deck {deck_name!r}, {count} page{'s' if count != 1 else ''})")
    return EXIT_OK


def _cmd_tiled(args: argparse.Namespace) -> int:
    output = _checked_output(args, (".tmj", ".json", ".tmx"),
                             f"cannot tell the format of {args.output!r}: the output must end in .tmj, .json or .tmx")
    if isinstance(output, int):
        return output
    dungeons, status = _open(args.paths, args.force)
    if status is not None:
        return status
    if len(dungeons) != 1:
        return _error(f"a Tiled map holds one dungeon; {args.paths[0]} has {len(dungeons)} (export a dungeon file)")
    from inkcrawl.jsonio import write_text_atomic
    from inkcrawl.tiled_export import TiledExportError, export_tiled

    try:
        text = export_tiled(dungeons[0].dungeon, output.suffix, args.px_per_mm, args.tile_mm)
    except TiledExportError as exc:
        return _error(str(exc))
    try:
        write_text_atomic(output, text)
    except OSError as exc:
        return _error(f"cannot write {args.output}: {exc.strerror or exc}")
    print(f"wrote {output} (Tiled {'TMX' if output.suffix.lower() == '.tmx' else 'JSON'}, "
          f"{args.px_per_mm:g} px per mm)")
    return EXIT_OK
