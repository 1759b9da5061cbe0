"""Line dungeons from a seed and constraints (RULES.md 2; ``inkcrawl generate --family line``).

A layout first, then the content of :func:`inkcrawl.generate.populate.populate_line`:

* The paper's drawing region (A4 portrait, clear of the title above and the footer below) is cut
  into :data:`SLOT_COLUMNS` x :data:`SLOT_ROWS` slots. A random connected set of slots holds
  the rooms (``line.rooms``), grown from the first room; each room is a rectangle of random
  size inside its slot that covers the slot's middle, so the rooms of two neighbouring slots
  face each other across a gap of at least :data:`SLOT_MARGIN_MM` twice.
* Corridors ``line.corridor_width_mm`` wide join neighbouring rooms: a random spanning tree of
  the rooms, and with probability ``line.loops`` each other neighbouring pair. A corridor meets
  each room along a whole side of its end, so every opening is the corridor's full width, far
  above the ruleset's required gap; nothing is narrower than the printability minimums.
* ``line.locked_doors`` corridors get a door at the end away from the first room, its colour
  drawn from the ruleset's key colours (distinct while they last).
* The rooms are moved to the middle of the region, whichever slots they took.
* Rooms get names (original word lists); the exporter prints them on free paper, and populate
  covers at most part of each room's paper so there is room for them.

The first room gets the Start (populate puts it on its outer wall). Every result is validated
with zero errors before it is returned (:class:`~inkcrawl.generate.grid.GeneratorBug`
otherwise). Determinism: dungeon ``i`` of seed ``S`` draws its layout from
``random.Random("inkcrawl-generate-line:S:i")`` and populates with a seed drawn from it.
Units: sheet millimetres.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from inkcrawl.generate.constraints import Infeasible, LineSpec
from inkcrawl.generate.grid import GeneratorBug, title_for
from inkcrawl.generate.populate import Populated, populate_line

__all__ = ["SLOT_COLUMNS", "SLOT_ROWS", "GeneratedLine", "generate_line", "line_layout"]

#: The paper (A4 portrait, mm) and the region the rooms are drawn in: below the title, above
#: the footer, inside the margins.
PAPER = {"width_mm": 210, "height_mm": 297, "margin_mm": 10}
REGION = (20.0, 35.0, 190.0, 225.0)
#: Slots the region is cut into; a room per chosen slot.
SLOT_COLUMNS = 3
SLOT_ROWS = 4
#: Least paper (mm) between a room and its slot's edge.
SLOT_MARGIN_MM = 3.0
#: Layouts drawn for one dungeon before a spec populate finds impossible on each is given up.
MAX_LAYOUTS = 20
#: A room's width and height as shares of its slot's.
ROOM_SHARE = (0.6, 0.85)

_PLACES = (
    "Hall", "Cellar", "Vault", "Chapel", "Kitchen", "Library", "Armoury", "Cistern", "Forge", "Gallery",
    "Larder", "Shrine", "Well", "Study", "Crypt", "Kennel", "Pantry", "Belfry", "Loom Room", "Scriptorium",
)  # fmt: skip
_QUALITIES = (
    "Ashen", "Brass", "Candle", "Chalk", "Copper", "Dusty", "Echoing", "Fungal", "Glass", "Hollow",
    "Inky", "Lamplit", "Mildewed", "Quiet", "Salt", "Smoky", "Sooty", "Tallow", "Velvet", "Wax",
)  # fmt: skip


@dataclass
class GeneratedLine:
    """One generated line dungeon: ``data`` (dungeon JSON), the ``populated`` result (par, key
    depth, tries), the number of ``rooms``, ``corridors`` and ``doors`` of its layout."""

    data: dict
    populated: Populated
    rooms: int
    corridors: int
    doors: int


def _slot(c: int, r: int) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = REGION
    w, h = (x1 - x0) / SLOT_COLUMNS, (y1 - y0) / SLOT_ROWS
    return x0 + c * w, y0 + r * h, x0 + (c + 1) * w, y0 + (r + 1) * h


def _span(rng: random.Random, low: float, high: float, middle: float, half: float, share: float) -> tuple[float, float]:
    """A random interval inside ``[low, high]`` (less the margin) of ``share`` of its length that
    covers ``middle +- half``."""
    length = (high - low) * share
    first = max(low + SLOT_MARGIN_MM, middle + half - length)
    last = min(high - SLOT_MARGIN_MM - length, middle - half)
    start = first if last <= first else rng.uniform(first, last)
    return round(start, 1), round(start + length, 1)


def line_layout(spec: LineSpec, rng: random.Random, title: str, dungeon_id: str) -> dict:
    """A line layout (areas and doors, no Start or content yet) for ``spec`` drawn from ``rng``:
    a dungeon document on A4 whose rooms lie in the slots of :data:`REGION` (see the module
    docstring). Raises :class:`Infeasible` for more rooms than slots (``line.rooms``), a corridor
    too wide for the rooms (``line.corridor_width_mm``) or more locked doors than corridors
    (``line.locked_doors``)."""
    slots = SLOT_COLUMNS * SLOT_ROWS
    low, high = spec.rooms
    if low > slots:
        raise Infeasible(
            f"line.rooms asks for at least {low} rooms; the A4 sheet holds at most {slots} with room for names "
            f"({SLOT_COLUMNS} x {SLOT_ROWS} slots)",
            "line.rooms",
        )
    count = rng.randint(low, min(high, slots))
    width = spec.corridor_mm
    sx0, sy0, sx1, sy1 = _slot(0, 0)
    room_least = min(sx1 - sx0, sy1 - sy0) * ROOM_SHARE[0]
    if width + 4 > room_least:
        raise Infeasible(
            f"line.corridor_width_mm {width:g} is too wide: a corridor must meet a room {room_least:.0f} mm across "
            f"along a side of its own; use at most {room_least - 4:.0f} mm",
            "line.corridor_width_mm",
        )
    # a connected random set of slots, grown from a random first one
    first = (rng.randrange(SLOT_COLUMNS), rng.randrange(SLOT_ROWS))
    chosen = [first]
    while len(chosen) < count:
        frontier = sorted(
            {
                (c + dc, r + dr)
                for c, r in chosen
                for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= c + dc < SLOT_COLUMNS and 0 <= r + dr < SLOT_ROWS and (c + dc, r + dr) not in chosen
            }
        )
        chosen.append(rng.choice(frontier))
    half = width / 2 + 2
    rooms: dict[tuple[int, int], tuple[float, float, float, float]] = {}
    for c, r in chosen:
        x0, y0, x1, y1 = _slot(c, r)
        xa, xb = _span(rng, x0, x1, (x0 + x1) / 2, half, rng.uniform(*ROOM_SHARE))
        ya, yb = _span(rng, y0, y1, (y0 + y1) / 2, half, rng.uniform(*ROOM_SHARE))
        rooms[(c, r)] = (xa, ya, xb, yb)
    # a random spanning tree of neighbouring rooms, then loops
    pairs = sorted((a, b) for a in chosen for b in chosen if a < b and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1)
    tree: list[tuple] = []
    joined = {first}
    while len(joined) < len(chosen):
        options = [(a, b) for a, b in pairs if (a in joined) != (b in joined)]
        a, b = rng.choice(options)
        tree.append((a, b))
        joined |= {a, b}
    links = tree + [p for p in pairs if p not in tree and rng.random() < spec.loops]
    order = {slot: i for i, slot in enumerate(chosen)}
    names = rng.sample([f"{q} {p}" for q in _QUALITIES for p in _PLACES], len(chosen))
    areas: list[dict[str, Any]] = [
        {
            "id": f"r{order[slot] + 1}",
            "kind": "room",
            "name": names[order[slot]],
            "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
        }
        for slot, (x0, y0, x1, y1) in sorted(rooms.items(), key=lambda item: order[item[0]])
    ]
    # steps from the first room through the tree: doors go at the far end of their corridor
    steps = {first: 0}
    queue = [first]
    for slot in queue:
        for a, b in links:
            for here, there in ((a, b), (b, a)):
                if here == slot and there not in steps:
                    steps[there] = steps[slot] + 1
                    queue.append(there)
    corridors: list[dict[str, Any]] = []
    ends: list[list[list[float]]] = []
    for n, (a, b) in enumerate(sorted(links, key=lambda p: (order[p[0]], order[p[1]])), 1):
        ra, rb = rooms[a], rooms[b]
        if a[1] == b[1]:  # side by side: a horizontal corridor at the row's middle
            _, y0, _, y1 = _slot(*a)
            mid = round((y0 + y1) / 2, 1)
            left, right = (ra, rb) if a[0] < b[0] else (rb, ra)
            x0, x1 = left[2], right[0]
            polygon = [[x0, mid - width / 2], [x1, mid - width / 2], [x1, mid + width / 2], [x0, mid + width / 2]]
            end_a = [[x0, mid - width / 2], [x0, mid + width / 2]]
            end_b = [[x1, mid - width / 2], [x1, mid + width / 2]]
            near_end, far_end = (end_a, end_b) if (left is ra) == (steps[a] <= steps[b]) else (end_b, end_a)
        else:  # one above the other: a vertical corridor at the column's middle
            x0, _, x1, _ = _slot(*a)
            mid = round((x0 + x1) / 2, 1)
            top, bottom = (ra, rb) if a[1] < b[1] else (rb, ra)
            y0, y1 = top[3], bottom[1]
            polygon = [[mid - width / 2, y0], [mid + width / 2, y0], [mid + width / 2, y1], [mid - width / 2, y1]]
            end_a = [[mid - width / 2, y0], [mid + width / 2, y0]]
            end_b = [[mid - width / 2, y1], [mid + width / 2, y1]]
            near_end, far_end = (end_a, end_b) if (top is ra) == (steps[a] <= steps[b]) else (end_b, end_a)
        del near_end
        corridors.append({"id": f"c{n}", "kind": "corridor", "polygon": polygon})
        ends.append(far_end)
    low, high = spec.locked_doors
    if low > len(corridors):
        raise Infeasible(
            f"line.locked_doors asks for at least {low} locked doors; this layout of {len(chosen)} rooms has "
            f"{len(corridors)} corridors, one door each (ask for fewer, or more rooms or line.loops)",
            "line.locked_doors",
        )
    doors: list[dict[str, Any]] = []
    colours = list(spec.ruleset.key_colours)
    rng.shuffle(colours)
    for n, index in enumerate(sorted(rng.sample(range(len(ends)), rng.randint(low, min(high, len(ends)))))):
        doors.append({"id": f"d{n + 1}", "kind": "door", "segment": ends[index], "locks": [colours[n % len(colours)]]})
    # the rooms drawn centred in the region, whichever slots they took
    every: list[list[float]] = [p for area in areas + corridors for p in area["polygon"]]
    dx = round((REGION[0] + REGION[2]) / 2 - (min(p[0] for p in every) + max(p[0] for p in every)) / 2, 1)
    dy = round((REGION[1] + REGION[3]) / 2 - (min(p[1] for p in every) + max(p[1] for p in every)) / 2, 1)
    for item in areas + corridors:
        item["polygon"] = [[round(x + dx, 1), round(y + dy, 1)] for x, y in item["polygon"]]
    for door in doors:
        door["segment"] = [[round(x + dx, 1), round(y + dy, 1)] for x, y in door["segment"]]
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": dungeon_id,
        "family": "line",
        "ruleset": spec.ruleset.id,
        "sheet": {
            "title": title,
            "paper": dict(PAPER),
            "reminders": ["Room elements are not optional; corridor elements are."],
            "components": ["keys"] if doors else [],
            "end_triggers": [],
            "orb_tokens": {},
        },
        "areas": areas + corridors,
        "walls": [],
        "elements": doors,
    }


def _check_room_for_elements(spec: LineSpec, fill: float, smallest) -> None:
    """The counting check of ``line.elements`` before any layout: the elements asked (at their
    fewest and smallest) must fit the paper of the most and largest rooms the slots allow, at
    most ``fill`` of it covered. ``smallest(kind)`` is the least size (mm) a kind is printed at."""
    sx0, sy0, sx1, sy1 = _slot(0, 0)
    most_rooms = min(spec.rooms[1], SLOT_COLUMNS * SLOT_ROWS)
    paper = most_rooms * fill * ((sx1 - sx0) * ROOM_SHARE[1]) * ((sy1 - sy0) * ROOM_SHARE[1])
    counts = spec.counts(spec.rooms[0], level=0.0)
    asked = sum(count * math.pi * (smallest(kind) / 2) ** 2 for kind, count in counts.items())
    if asked > paper:
        listed = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        raise Infeasible(
            f"line.elements asks for {listed}: {asked:.0f} mm² of elements at their smallest, and {most_rooms} rooms "
            f"(line.rooms) on A4 have at most {paper:.0f} mm² of paper for elements ({fill:.0%} of each room, the rest "
            "kept for names and lines); ask for fewer elements",
            "line.elements",
        )


def generate_line(
    spec: LineSpec,
    seed: int,
    index: int = 0,
    title: str | None = None,
    dungeon_id: str | None = None,
    time_limit: float = 5.0,
) -> GeneratedLine:
    """Dungeon ``index`` for ``spec`` and ``seed``: :func:`line_layout`, then
    :func:`~inkcrawl.generate.populate.populate_line` (the par target, keys, Start, end trigger).
    A layout populate cannot fill (its counting checks) is drawn again until ``time_limit``
    seconds pass. Raises :class:`Infeasible` naming the constraint (the last layout's reason)
    and :class:`GeneratorBug` for a result with a validation error. RULES.md 2."""
    from inkcrawl.generate.populate import MAX_FILL, _error_count, _sizes, sizes_of

    _check_room_for_elements(spec, MAX_FILL, lambda kind: _sizes(sizes_of(spec.ruleset, kind), spec.ruleset)[-1])
    started = time.monotonic()
    title = title or title_for(seed, index)
    dungeon_id = dungeon_id or f"generated-{seed}"
    attempt = 0
    while True:
        rng = random.Random(f"inkcrawl-generate-line:{seed}:{index}:{attempt}")
        layout = line_layout(spec, rng, title, dungeon_id)
        left = max(0.1, time_limit - (time.monotonic() - started))
        try:
            populated = populate_line(layout, spec, rng.randrange(2**32), left, dungeon_id)
        except Infeasible as exc:
            attempt += 1
            if (
                time.monotonic() - started >= time_limit
                or exc.constraint in ("line.difficulty.par",)
                or attempt >= MAX_LAYOUTS
            ):
                raise
            continue
        errors, problems = _error_count(populated.data, dungeon_id)
        if errors:
            raise GeneratorBug(
                f"internal error: generated line dungeon {dungeon_id!r} has {errors} validation error(s) "
                f"(first: {problems[0].code} {problems[0].message})"
            )
        areas = populated.data["areas"]
        return GeneratedLine(
            populated.data,
            populated,
            sum(1 for a in areas if a["kind"] == "room"),
            sum(1 for a in areas if a["kind"] == "corridor"),
            sum(1 for e in populated.data["elements"] if e["kind"] == "door"),
        )
