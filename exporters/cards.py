"""Print-and-play card sheets of the grid family's deck (RULES.md 1, Cards).

Poker-size cards (63 x 88 mm) laid out as many per page as fit the printable area, with a
gutter between them (:data:`CARD_GUTTER_MM` where the paper has room, narrower where a
wider one would cost a row or a column, and 2 x bleed when a bleed is asked for, so each
card's bleed ends where its neighbour's begins). Light cut lines run along every card edge
through the gutters and margins of the fronts pages (the cards cover them), optional crop
marks along the cut lines outside the cards, and an optional backs page after each fronts
page, mirrored left-to-right so it lines up when printed duplex (flip on the long edge). The
backs carry the pack's name, or the deck's own image (its ``back`` in ``pack.json``, read by
:func:`deck_back` and :func:`back_art_uri`) over the card and its bleed.
"""

from __future__ import annotations

import base64
import hashlib
import math
from pathlib import Path

from exporters import style
from exporters.canvas import SheetCanvas, regular_polygon, svg_text, wrap_text
from exporters.pages import Page, PageOptions, new_page_drawing
from exporters.paper import PAPER_SIZES, orient
from inkcrawl.rulesets import Ruleset
from inkcrawl.textchars import printable_text
from inkcrawl.textmetrics import CAP_HEIGHT_EM, text_width_mm
from inkcrawl.validate import (
    MANIFEST_NAME,
    MAX_BACK_IMAGE_BYTES,
    back_image_type,
    load_document,
    path_inside_pack,
)

#: Poker card size in mm.
CARD_WIDTH_MM, CARD_HEIGHT_MM = 63.0, 88.0
#: Margin of card pages when none is given (home printers print to about 5 mm of the edge).
CARD_PAGE_MARGIN_MM = 6.0
#: Gutter between cards when the paper has room for it (mm): two cuts, one per card.
CARD_GUTTER_MM = 3.0
#: How far cut lines run past the outer cards into the margins (mm).
CUT_LINE_OVERRUN_MM = 5.0
_SIDE_VECTORS = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
_CARD_NAMES = {
    "straight": "Straight",
    "corner": "Corner",
    "t_junction": "T junction",
    "cross": "Cross",
    "dead_end": "Dead end",
    "trap": "Trap",
    "draw_two": "Draw 2",
}


class CardError(ValueError):
    """The deck cannot be printed (unknown deck id, no cards, cards too big for the paper)."""


def _manifest(path: str) -> tuple[Path, dict] | None:
    """``(manifest file, its data)`` of the pack of ``path`` (a pack folder or its ``pack.json``),
    or ``None`` for anything else (a dungeon file of no pack, a manifest that cannot be read)."""
    manifest_path = Path(path)
    if manifest_path.is_dir():
        manifest_path = manifest_path / MANIFEST_NAME
    if manifest_path.name != MANIFEST_NAME or not manifest_path.is_file():
        return None
    document = load_document(manifest_path)
    return (manifest_path, document.data) if isinstance(document.data, dict) else None


def deck_for(path: str, opened, deck_id: str | None) -> tuple[str, dict[str, int]]:
    """The deck to print: ``(name, card kind -> count)`` from the pack of ``path`` (by
    ``deck_id``, else its first deck) or else the ruleset's default deck. Raises
    :class:`CardError` for an unknown ``deck_id``."""
    manifest = _manifest(path)
    decks = manifest[1].get("decks", []) if manifest is not None else []
    if deck_id is not None:
        for deck in decks:
            if deck.get("id") == deck_id:
                return deck["name"], dict(deck["cards"])
        known = ", ".join(d.get("id", "?") for d in decks) or "none"
        raise CardError(f"the pack has no deck {deck_id!r} (its decks: {known})")
    if decks:
        return decks[0]["name"], dict(decks[0]["cards"])
    return f"{opened.ruleset.data['name']} deck", dict(opened.ruleset.deck)


def pack_name(path: str) -> str | None:
    """The name of the pack of ``path`` (a pack folder or its ``pack.json``), or ``None`` for
    anything else (a dungeon file of no pack, a manifest that cannot be read)."""
    manifest = _manifest(path)
    name = manifest[1].get("name") if manifest is not None else None
    return name if isinstance(name, str) and name.strip() else None


def deck_back(path: str, deck_id: str | None) -> tuple[Path, str] | None:
    """The image file of the deck's own card back (the ``back`` of the deck ``deck_id`` of the
    pack of ``path``, else of its first deck) and its path as the pack names it, or ``None``
    when it has none or ``path`` is no pack. Raises :class:`CardError` when the file is outside
    the pack folder or missing."""
    manifest = _manifest(path)
    if manifest is None:
        return None
    manifest_path, data = manifest
    decks = data.get("decks", [])
    chosen = [d for d in decks if isinstance(d, dict) and (deck_id is None or d.get("id") == deck_id)][:1]
    relative = chosen[0].get("back") if chosen else None
    if not isinstance(relative, str):
        return None
    file = path_inside_pack(manifest_path.parent, relative)
    if file is None:
        raise CardError(f"the deck's back image '{relative}' is outside the pack folder")
    if not file.is_file():
        raise CardError(f"the deck's back image '{relative}' does not exist in the pack folder")
    return file, relative


def back_art_uri(file: Path, check=None, label: str | None = None) -> str:
    """A PNG or JPEG image file as a ``data:`` URI for an SVG ``<image>``: the card back's art.
    ``check(data)``, when given, vets the image's bytes (the Qt exporters read it whole once:
    :func:`exporters.qt.read_image`) and raises ``ValueError`` saying why it cannot be used.
    Raises :class:`CardError` for a file that cannot be read, is larger than
    :data:`inkcrawl.validate.MAX_BACK_IMAGE_BYTES`, is neither PNG nor JPEG (by its first bytes) or that ``check``
    refuses, naming the file ``label`` (as its pack names it; default its file name)."""
    name = f"the deck's back image '{label or file.name}'"
    mime, reason = back_image_type(file)
    try:
        with open(file, "rb") as stream:
            data = stream.read(MAX_BACK_IMAGE_BYTES + 1)
    except OSError as exc:
        mime, reason = None, f"cannot be read: {exc.strerror or exc}"
    if mime is None or len(data) > MAX_BACK_IMAGE_BYTES:
        raise CardError(f"{name} {reason or 'changed while it was read'}")
    if check is not None:
        try:
            check(data)
        except ValueError as exc:
            raise CardError(f"{name} cannot be used: {exc}") from None
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _cards_along(length: float, card: float, least_gap: float) -> tuple[int, float]:
    """How many cards of ``card`` mm fit in ``length`` mm at least ``least_gap`` apart, and the
    gap between them: :data:`CARD_GUTTER_MM` when that leaves the count as it is, else what
    the room allows (never less than ``least_gap``)."""
    count = int((length + least_gap) // (card + least_gap))
    if count < 2:
        return count, max(least_gap, CARD_GUTTER_MM)
    room = (length - count * card) / (count - 1)
    return count, max(least_gap, min(CARD_GUTTER_MM, room))


def _grid_of_cards(options: PageOptions) -> tuple[tuple[float, float], int, int, float, float, float, float]:
    paper = options.paper or PAPER_SIZES["a4"]
    margin = CARD_PAGE_MARGIN_MM if options.margin_mm is None else options.margin_mm
    width, height = orient(paper, options.orientation if options.orientation != "auto" else "portrait", paper)
    columns, gap_x = _cards_along(width - 2 * margin, CARD_WIDTH_MM, 2 * options.bleed_mm)
    rows, gap_y = _cards_along(height - 2 * margin, CARD_HEIGHT_MM, 2 * options.bleed_mm)
    if columns < 1 or rows < 1:
        raise CardError(
            f"a {CARD_WIDTH_MM:g} x {CARD_HEIGHT_MM:g} mm card does not fit on {width:g} x {height:g} mm "
            f"paper with {margin:g} mm margins"
        )
    block_w = columns * CARD_WIDTH_MM + (columns - 1) * gap_x
    block_h = rows * CARD_HEIGHT_MM + (rows - 1) * gap_y
    return (width, height), columns, rows, gap_x, gap_y, (width - block_w) / 2, (height - block_h) / 2


def card_pages(
    cards: dict[str, int],
    ruleset: Ruleset,
    options: PageOptions,
    backs: bool = False,
    back_name: str | None = None,
    back_art: str | None = None,
) -> list[Page]:
    """The pages of a deck (card kind -> count): fronts, each followed by its backs page when
    ``backs``, whose cards carry ``back_name`` (the pack's name; ``None``: the ruleset's), or
    the deck's own art ``back_art`` (an image ``data:`` URI, :func:`back_art_uri`) over the card
    and its bleed. Raises :class:`CardError` for an empty deck or paper too small for a card."""
    sequence = [kind for kind, count in cards.items() for _ in range(count)]
    if not sequence:
        raise CardError("the deck has no cards")
    if back_name is None:
        back_name = str(ruleset.data.get("name", ruleset.id))
    (width, height), columns, rows, gap_x, gap_y, left, top = _grid_of_cards(options)
    per_page = columns * rows
    palette = style.palette(options.grayscale)
    pages = []
    for first in range(0, len(sequence), per_page):
        chunk = sequence[first : first + per_page]
        number = first // per_page + 1
        for side in ("front", "back") if backs else ("front",):
            drawing = new_page_drawing(width, height)
            root = drawing.g()
            root["class"] = f"card-page {side}"
            drawing.add(root)
            canvas = SheetCanvas(drawing, root, palette)
            used_rows = min(rows, math.ceil(len(chunk) / columns))
            if side == "front":  # under the cards: they show in the gutters and margins only
                _cut_lines(canvas, columns, used_rows, gap_x, gap_y, left, top)
            for index, kind in enumerate(chunk):
                row, column = divmod(index, columns)
                if side == "back":  # flipped on the long edge: mirror across the long axis of the paper
                    if width <= height:
                        column = columns - 1 - column
                    else:
                        row = rows - 1 - row
                x = left + column * (CARD_WIDTH_MM + gap_x)
                y = top + row * (CARD_HEIGHT_MM + gap_y)
                if side == "front":
                    _draw_front(canvas, kind, ruleset, x, y, options.bleed_mm)
                else:
                    _draw_back(canvas, x, y, options.bleed_mm, back_name, back_art)
            if options.crop_marks:
                _card_crop_marks(canvas, columns, used_rows, gap_x, gap_y, left, top, options.bleed_mm)
            pages.append(Page(svg_text(drawing), width, height, f"cards page {number} ({side})", texts=canvas.texts))
    return pages


def _single_card_page(
    side: str,
    kind: str,
    ruleset: Ruleset,
    options: PageOptions,
    card_mm: tuple[float, float],
    back_name: str,
    safe_mm: float = 0.0,
    back_art: str | None = None,
) -> Page:
    """One card alone on a page of its cut size ``card_mm`` plus ``options.bleed_mm`` on every
    side: the card's TrimBox is its cut, its ArtBox ``safe_mm`` inside it. The drawing
    (63 x 88 mm) is centred on the cut and its background (a back's art) runs to the page's
    edges."""
    bleed = options.bleed_mm
    cut_w, cut_h = card_mm
    width, height = cut_w + 2 * bleed, cut_h + 2 * bleed
    drawing = new_page_drawing(width, height)
    root = drawing.g()
    root["class"] = f"card-page {side}"
    drawing.add(root)
    canvas = SheetCanvas(drawing, root, style.palette(options.grayscale))
    x, y = (width - CARD_WIDTH_MM) / 2, (height - CARD_HEIGHT_MM) / 2
    reach = max(x, y)  # the card's background covers the whole page
    if side == "front":
        _draw_front(canvas, kind, ruleset, x, y, reach)
    else:
        _draw_back(canvas, x, y, reach, back_name, back_art, (0.0, 0.0, width, height))
    title = f"card {_CARD_NAMES.get(kind, kind)} ({side})" if side == "front" else "card back"
    return Page(
        svg_text(drawing),
        width,
        height,
        title,
        texts=canvas.texts,
        trim_mm=(bleed, bleed, cut_w, cut_h),
        bleed_mm=bleed,
        safe_mm=safe_mm,
    )


def single_card_pages(
    cards: dict[str, int],
    ruleset: Ruleset,
    options: PageOptions,
    card_mm: tuple[float, float],
    back_name: str | None = None,
    safe_mm: float = 0.0,
    back_art: str | None = None,
) -> list[Page]:
    """A deck (card kind -> count) for print on demand: one card per page, each card's back
    then its front (back, front, back, front...), pages of the cut size ``card_mm`` (mm) plus
    the bleed, with a safe zone (ArtBox) ``safe_mm`` inside the cut (see
    :func:`_single_card_page`); the backs carry ``back_art`` when given (see
    :func:`card_pages`). Raises :class:`CardError` for an empty deck."""
    sequence = [kind for kind, count in cards.items() for _ in range(count)]
    if not sequence:
        raise CardError("the deck has no cards")
    name = back_name if back_name is not None else str(ruleset.data.get("name", ruleset.id))
    back = _single_card_page("back", "card-back", ruleset, options, card_mm, name, safe_mm, back_art)
    fronts: dict[str, Page] = {}
    pages = []
    for kind in sequence:
        if kind not in fronts:
            fronts[kind] = _single_card_page("front", kind, ruleset, options, card_mm, name, safe_mm)
        pages += [back, fronts[kind]]
    return pages


def card_faces(
    cards: dict[str, int],
    ruleset: Ruleset,
    options: PageOptions,
    card_mm: tuple[float, float],
    back_name: str | None = None,
    back_art: str | None = None,
) -> list[tuple[str, int, Page]]:
    """Every face of a deck once, for shops that take one image per face: ``(kind, count,
    page)`` for each card kind in deck order, then ``("back", total, page)``; pages as
    :func:`single_card_pages`, ``back_art`` too. Raises :class:`CardError` for an empty deck."""
    counts = {kind: count for kind, count in cards.items() if count > 0}
    if not counts:
        raise CardError("the deck has no cards")
    name = back_name if back_name is not None else str(ruleset.data.get("name", ruleset.id))
    faces = [
        (kind, count, _single_card_page("front", kind, ruleset, options, card_mm, name))
        for kind, count in counts.items()
    ]
    faces.append(
        (
            "back",
            sum(counts.values()),
            _single_card_page("back", "card-back", ruleset, options, card_mm, name, back_art=back_art),
        )
    )
    return faces


def _card_frame(canvas: SheetCanvas, x: float, y: float, bleed: float, kind: str):
    group = canvas.group(kind, css_class="card")
    palette = canvas.palette
    if bleed:
        canvas.rect(
            x - bleed,
            y - bleed,
            CARD_WIDTH_MM + 2 * bleed,
            CARD_HEIGHT_MM + 2 * bleed,
            fill=palette.room_fill,
            parent=group,
        )
    canvas.rect(
        x,
        y,
        CARD_WIDTH_MM,
        CARD_HEIGHT_MM,
        stroke=palette.grid_line,
        width=style.FINE_MM,
        fill=palette.room_fill,
        radius=3,
        parent=group,
    )
    canvas.rect(
        x + 3,
        y + 3,
        CARD_WIDTH_MM - 6,
        CARD_HEIGHT_MM - 6,
        stroke=palette.ink,
        width=style.OUTLINE_MM,
        radius=2,
        parent=group,
    )
    return group


def _draw_front(canvas: SheetCanvas, kind: str, ruleset: Ruleset, x: float, y: float, bleed: float) -> None:
    group = _card_frame(canvas, x, y, bleed, kind)
    palette = canvas.palette
    name = _CARD_NAMES.get(kind, kind.replace("_", " ").capitalize())
    canvas.text(name, (x + CARD_WIDTH_MM / 2, y + 12), style.HEADING_MM, anchor="middle", bold=True, parent=group)
    cx, cy, half = x + CARD_WIDTH_MM / 2, y + CARD_HEIGHT_MM / 2 + 4, 20.0
    if kind in ruleset.segment_shapes:
        canvas.rect(
            cx - half,
            cy - half,
            2 * half,
            2 * half,
            stroke=palette.grid_line,
            width=style.OUTLINE_MM,
            fill=palette.paper,
            parent=group,
        )
        sides = ruleset.segment_shapes[kind]
        for side in sides:
            dx, dy = _SIDE_VECTORS[side]
            canvas.line(
                (cx, cy),
                (cx + dx * half, cy + dy * half),
                stroke=palette.ink,
                width=3.2,
                parent=group,
                kind="segment-path",
                linecap="butt",
            )
        canvas.circle((cx, cy), 1.6, fill=palette.ink, parent=group)
        if len(sides) == 1:  # a dead end: its closed end is a bar
            dx, dy = _SIDE_VECTORS[sides[0]]
            canvas.line(
                (cx - dy * 4, cy - dx * 4), (cx + dy * 4, cy + dx * 4), stroke=palette.ink, width=1.6, parent=group
            )
        caption = "rotate freely"
    elif kind == "trap":
        canvas.circle((cx, cy), 16, stroke=palette.trap, width=1.0, parent=group)
        canvas.line((cx - 10, cy - 10), (cx + 10, cy + 10), stroke=palette.trap, width=2.8, parent=group)
        canvas.line((cx - 10, cy + 10), (cx + 10, cy - 10), stroke=palette.trap, width=2.8, parent=group)
        caption = f"X in an empty room; {ruleset.data.get('trap_vp', -3)} to each opponent whose path is there"
    elif kind == "draw_two":
        for offset in (-5, 5):
            canvas.rect(
                cx - 9 + offset,
                cy - 13 + offset,
                18,
                26,
                stroke=palette.ink,
                width=style.OUTLINE_MM,
                fill=palette.paper,
                radius=1.5,
                parent=group,
            )
        canvas.text("+2", (cx + 5, cy + 9), 8, anchor="middle", bold=True, parent=group)
        caption = "reveal 2 more cards"
    else:
        caption = ""
    if caption:
        for line_no, line in enumerate(wrap_text(caption, CARD_WIDTH_MM - 10, style.SMALL_MM)):
            canvas.text(
                line,
                (x + CARD_WIDTH_MM / 2, y + CARD_HEIGHT_MM - 12 + 3.2 * line_no),
                style.SMALL_MM,
                anchor="middle",
                parent=group,
            )


def _draw_back(
    canvas: SheetCanvas,
    x: float,
    y: float,
    bleed: float,
    name: str,
    art: str | None = None,
    art_box: tuple[float, float, float, float] | None = None,
) -> None:
    """A card back at ``(x, y)``: the pack's ``name`` on the card, or the image ``art`` (a
    ``data:`` URI) stretched over ``art_box`` (``x, y, width, height`` mm; default the card and
    ``bleed`` mm round it)."""
    group = _card_frame(canvas, x, y, bleed, "card-back")
    if art is not None:
        box_x, box_y, box_w, box_h = art_box or (
            x - bleed,
            y - bleed,
            CARD_WIDTH_MM + 2 * bleed,
            CARD_HEIGHT_MM + 2 * bleed,
        )
        # defined once a page and used on every back of it: Qt decodes it once a page
        canvas.reused(
            ("back-art", hashlib.sha1(art.encode("ascii")).hexdigest(), round(box_w, 3), round(box_h, 3)),
            (box_x, box_y),
            group,
            lambda parent, origin: canvas.image(art, *origin, box_w, box_h, parent=parent, kind="back-art"),
        )
        return
    palette = canvas.palette
    cx, cy = x + CARD_WIDTH_MM / 2, y + CARD_HEIGHT_MM / 2
    for radius in (22, 16, 10):
        canvas.polyline(
            regular_polygon(cx, cy, radius, 4, 0),
            closed=True,
            stroke=palette.accent,
            width=style.OUTLINE_MM,
            parent=group,
        )
    size, lines = _back_lines(name)
    step = size * 1.2
    block = step * (len(lines) - 1) + size * CAP_HEIGHT_EM
    widest = max(text_width_mm(line, size, bold=True) for line in lines)
    canvas.rect(
        cx - widest / 2 - 1.5,
        cy - block / 2 - 1.5,
        widest + 3,
        block + 3,
        fill=palette.room_fill,
        radius=1,
        parent=group,
        kind="back-name-plate",
    )
    baseline = cy - block / 2 + size * CAP_HEIGHT_EM
    for number, line in enumerate(lines):
        canvas.text(
            line, (cx, baseline + number * step), size, anchor="middle", bold=True, parent=group, kind="back-name"
        )


#: Widest line of the name on a card back (mm) and the most lines it takes.
BACK_NAME_WIDTH_MM = CARD_WIDTH_MM - 16
BACK_NAME_LINES = 4


def _back_lines(name: str) -> tuple[float, list[str]]:
    """The font size and lines of ``name`` on a card back: the body size when it fits in two
    lines, else smaller, and cut short with an ellipsis past :data:`BACK_NAME_LINES` lines."""
    name = " ".join(printable_text(name).split()) or "?"
    for size in (style.BODY_MM, style.SMALL_MM):
        lines = wrap_text(name, BACK_NAME_WIDTH_MM, size, bold=True)
        if len(lines) <= (2 if size == style.BODY_MM else BACK_NAME_LINES):
            return size, lines
    lines = lines[:BACK_NAME_LINES]
    last = lines[-1]
    while last and text_width_mm(last + "…", style.SMALL_MM, bold=True) > BACK_NAME_WIDTH_MM:
        last = last[:-1]
    lines[-1] = last.rstrip() + "…"
    return style.SMALL_MM, lines


def _cut_lines(canvas: SheetCanvas, columns: int, rows: int, gap_x: float, gap_y: float, left: float, top: float):
    """Light lines along every card edge, across the whole block of cards and
    :data:`CUT_LINE_OVERRUN_MM` into the margins (drawn first: the cards cover them)."""
    group = canvas.group("cut-lines")
    xs = sorted({left + c * (CARD_WIDTH_MM + gap_x) + dx for c in range(columns) for dx in (0, CARD_WIDTH_MM)})
    ys = sorted({top + r * (CARD_HEIGHT_MM + gap_y) + dy for r in range(rows) for dy in (0, CARD_HEIGHT_MM)})
    over_x = min(CUT_LINE_OVERRUN_MM, left - 0.5)
    over_y = min(CUT_LINE_OVERRUN_MM, top - 0.5)
    colour = canvas.palette.grid_line
    for cut in xs:
        canvas.line(
            (cut, ys[0] - over_y), (cut, ys[-1] + over_y), stroke=colour, width=style.CROP_MARK_MM, parent=group
        )
    for cut in ys:
        canvas.line(
            (xs[0] - over_x, cut), (xs[-1] + over_x, cut), stroke=colour, width=style.CROP_MARK_MM, parent=group
        )


def _card_crop_marks(
    canvas: SheetCanvas,
    columns: int,
    rows: int,
    gap_x: float,
    gap_y: float,
    left: float,
    top: float,
    bleed: float = 0.0,
) -> None:
    group = canvas.group("crop-marks")
    start = bleed + 1.0  # outside the bleed of the outer cards
    length = min(left, top, 8.0 + start) - start
    if length <= 1:
        return
    xs = sorted({left + c * (CARD_WIDTH_MM + gap_x) + dx for c in range(columns) for dx in (0, CARD_WIDTH_MM)})
    ys = sorted({top + r * (CARD_HEIGHT_MM + gap_y) + dy for r in range(rows) for dy in (0, CARD_HEIGHT_MM)})
    bottom = ys[-1]
    right = xs[-1]
    for cut in xs:
        canvas.line(
            (cut, top - start - length), (cut, top - start), stroke="#000000", width=style.CROP_MARK_MM, parent=group
        )
        canvas.line(
            (cut, bottom + start),
            (cut, bottom + start + length),
            stroke="#000000",
            width=style.CROP_MARK_MM,
            parent=group,
        )
    for cut in ys:
        canvas.line(
            (left - start - length, cut), (left - start, cut), stroke="#000000", width=style.CROP_MARK_MM, parent=group
        )
        canvas.line(
            (right + start, cut),
            (right + start + length, cut),
            stroke="#000000",
            width=style.CROP_MARK_MM,
            parent=group,
        )
