"""Rule checks of the grid family (RULES.md 1): counts, letters, edges, reachability, deck."""

from __future__ import annotations

from collections import Counter, defaultdict, deque

from inkcrawl.model import SIDE_OFFSETS, Cell, GridDungeon, edge_key
from inkcrawl.problems import Problem, describe, problem
from inkcrawl.rulesets import SPECIAL_CARDS, Ruleset


def open_neighbours(dungeon: GridDungeon) -> dict[Cell, set[Cell]]:
    """Room -> rooms joined to it by a passage (walls elsewhere). Passages outside the grid
    or on outer edges are ignored."""
    graph: dict[Cell, set[Cell]] = defaultdict(set)
    grid = dungeon.grid
    for passage in dungeon.passages:
        a = passage.cell
        dc, dr = SIDE_OFFSETS[passage.side]
        b = (a[0] + dc, a[1] + dr)
        if grid.contains(a) and grid.contains(b):
            graph[a].add(b)
            graph[b].add(a)
    return graph


def grid_problems(
    dungeon: GridDungeon, ruleset: Ruleset, file: str, deck: dict[str, int] | None = None
) -> list[Problem]:
    """Every grid rule check (codes G001-G017) for one dungeon."""
    problems: list[Problem] = []
    grid = dungeon.grid
    label = grid.cell_label

    def outside(obj, what: str) -> Problem:
        return problem(
            "G009",
            f"{what} names room {list(obj.cell)}, outside the {grid.columns}x{grid.rows} grid",
            file,
            obj.pointer + "/cell",
        )

    # Edges: passages -------------------------------------------------------------------
    entry_edges: dict[tuple, str] = {}
    for entryway in dungeon.entryways:
        if not grid.contains(entryway.cell):
            problems.append(outside(entryway, describe("entryway", entryway.id)))
            continue
        if not grid.is_outer_edge(entryway.cell, entryway.side):
            problems.append(
                problem(
                    "G006",
                    f"{describe('entryway', entryway.id)} is on the {entryway.side} side of "
                    f"room {label(entryway.cell)}, an inner edge; entryways go on outer edges",
                    file,
                    entryway.pointer + "/side",
                )
            )
            continue
        key = edge_key(entryway.cell, entryway.side)
        if key in entry_edges:
            problems.append(
                problem(
                    "G016",
                    f"{describe('entryway', entryway.id)} is on the same edge as entryway "
                    f"'{entry_edges[key]}' ({entryway.side} of {label(entryway.cell)})",
                    file,
                    entryway.pointer,
                )
            )
        else:
            entry_edges[key] = entryway.id
    count = ruleset.data.get("entryways", {}).get("count")
    if count and not count["min"] <= len(dungeon.entryways) <= count["max"]:
        problems.append(
            problem(
                "G007",
                f"the dungeon has {len(dungeon.entryways)} entryways; ruleset '{ruleset.id}' requires {_range(count)}",
                file,
                "/entryways",
            )
        )

    seen_edges: dict[tuple, str] = {}
    for passage in dungeon.passages:
        where = f"passage on the {passage.side} side of room {list(passage.cell)}"
        if not grid.contains(passage.cell):
            problems.append(outside(passage, "a passage"))
            continue
        where = f"passage on the {passage.side} side of room {label(passage.cell)}"
        key = edge_key(passage.cell, passage.side)
        if grid.is_outer_edge(passage.cell, passage.side) and key not in entry_edges:
            problems.append(
                problem(
                    "G008",
                    f"{where} is on the outer edge of the grid with no entryway there; passages join two rooms",
                    file,
                    passage.pointer,
                )
            )
            continue
        if key in seen_edges:
            problems.append(
                problem("G015", f"{where} is the same edge as the passage at {seen_edges[key]}", file, passage.pointer)
            )
        else:
            seen_edges[key] = passage.pointer

    # Features ---------------------------------------------------------------------------
    by_room: dict[Cell, list] = defaultdict(list)
    for feature in dungeon.features:
        if not grid.contains(feature.cell):
            problems.append(outside(feature, describe(feature.kind, feature.id, feature.name)))
            continue
        by_room[feature.cell].append(feature)
    for cell, features in by_room.items():
        for extra in features[1:]:
            problems.append(
                problem(
                    "G005",
                    f"{describe(extra.kind, extra.id, extra.name)} shares room {label(cell)} "
                    f"with {describe(features[0].kind, features[0].id)}; a room holds at most "
                    f"one feature",
                    file,
                    extra.pointer + "/cell",
                )
            )
    kinds = Counter(f.kind for f in dungeon.features)
    for kind, definition in ruleset.elements.items():
        count = definition.get("count")
        if count and not count["min"] <= kinds[kind] <= count["max"]:
            problems.append(
                problem(
                    "G001",
                    f"the dungeon has {kinds[kind]} {kind} feature(s); ruleset '{ruleset.id}' requires {_range(count)}",
                    file,
                    "/features",
                )
            )
    problems += _letters(dungeon, file)

    # Reachability ------------------------------------------------------------------------
    graph = open_neighbours(dungeon)
    entry_rooms = {e.cell for e in dungeon.entryways if grid.contains(e.cell)}
    reached = set(entry_rooms)
    queue = deque(entry_rooms)
    while queue:
        room = queue.popleft()
        for other in graph.get(room, ()):
            if other not in reached:
                reached.add(other)
                queue.append(other)
    for cell, features in by_room.items():
        if cell not in reached:
            feature = features[0]
            problems.append(
                problem(
                    "G010",
                    f"{describe(feature.kind, feature.id, feature.name)} in room {label(cell)} "
                    f"cannot be reached from any entryway through passages",
                    file,
                    feature.pointer,
                )
            )
    for row in range(grid.rows):
        for column in range(grid.columns):
            cell = (column, row)
            if cell not in graph and cell not in entry_rooms:
                problems.append(
                    problem(
                        "G011",
                        f"room {label(cell)} has no passage and no entryway: no path can enter it",
                        file,
                        "/passages",
                    )
                )

    # Deck -------------------------------------------------------------------------------
    problems += _deck(dungeon, ruleset, file, deck if deck is not None else ruleset.deck, len(by_room))
    problems += _print(dungeon, ruleset, file)
    return problems


def _range(count: dict) -> str:
    return str(count["min"]) if count["min"] == count["max"] else f"{count['min']} to {count['max']}"


def _letters(dungeon: GridDungeon, file: str) -> list[Problem]:
    problems = []
    letters: dict[str, dict[str, list]] = {"weapon": defaultdict(list), "monster": defaultdict(list)}
    for feature in dungeon.features:
        if feature.kind in letters and feature.letter:
            letters[feature.kind][feature.letter].append(feature)
    for kind, by_letter in letters.items():
        for letter, features in by_letter.items():
            for extra in features[1:]:
                problems.append(
                    problem(
                        "G004",
                        f"{describe(kind, extra.id, extra.name)} has letter {letter}, already "
                        f"used by {kind} '{features[0].id}'",
                        file,
                        extra.pointer + "/letter",
                    )
                )
    for letter, weapons in sorted(letters["weapon"].items()):
        if letter not in letters["monster"]:
            problems.append(
                problem(
                    "G002",
                    f"{describe('weapon', weapons[0].id, weapons[0].name)} has letter {letter} but no monster has it",
                    file,
                    weapons[0].pointer + "/letter",
                )
            )
    for letter, monsters in sorted(letters["monster"].items()):
        if letter not in letters["weapon"]:
            problems.append(
                problem(
                    "G003",
                    f"{describe('monster', monsters[0].id, monsters[0].name)} has letter {letter} but no weapon has it",
                    file,
                    monsters[0].pointer + "/letter",
                )
            )
    return problems


def deck_problems(cards: dict[str, int], ruleset: Ruleset, file: str, pointer: str) -> list[Problem]:
    """G013/G014: a deck (card kind -> count) has known cards and enough of them for the rounds.

    Each round reveals ``reveal`` cards; a Draw 2 among them is discarded and adds two more
    (RULES.md 1, Play), so each Draw 2 takes one revealed place and brings two cards: the deck
    needs at least ``rounds * reveal + draw_two`` segment and trap cards.
    """
    problems = []
    shapes = ruleset.segment_shapes
    for card in cards:
        if card not in shapes and card not in SPECIAL_CARDS:
            problems.append(
                problem(
                    "G014",
                    f"deck card '{card}' is not a segment shape of ruleset '{ruleset.id}' "
                    f"({', '.join(shapes)}) nor trap or draw_two",
                    file,
                    f"{pointer}/{card}",
                )
            )
    rounds, reveal = ruleset.data.get("rounds", 7), ruleset.data.get("reveal", 4)
    draw_two = cards.get("draw_two", 0)
    playable = sum(n for card, n in cards.items() if card in shapes or card == "trap")
    needed = rounds * reveal + draw_two
    if playable < needed:
        problems.append(
            problem(
                "G013",
                f"the deck has {playable} segment and trap cards; {rounds} rounds of {reveal} "
                f"with {draw_two} Draw 2 need at least {needed}",
                file,
                pointer,
            )
        )
    if not any(cards.get(shape, 0) for shape in shapes):
        problems.append(problem("G013", "the deck has no segment cards", file, pointer))
    return problems


def _deck(
    dungeon: GridDungeon, ruleset: Ruleset, file: str, cards: dict[str, int], feature_rooms: int
) -> list[Problem]:
    problems = []
    traps = cards.get("trap", 0)
    empty_rooms = dungeon.grid.columns * dungeon.grid.rows - feature_rooms
    if traps > empty_rooms:
        problems.append(
            problem(
                "G012",
                f"the deck has {traps} trap cards but the dungeon has only {empty_rooms} rooms without a feature",
                file,
                "/features",
            )
        )
    return problems


def _print(dungeon: GridDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    grid = dungeon.grid
    x0, y0, x1, y1 = dungeon.sheet.paper.printable
    gx, gy = grid.origin_mm
    width, height = grid.columns * grid.cell_mm, grid.rows * grid.cell_mm
    problems = []
    if gx < x0 or gy < y0 or gx + width > x1 or gy + height > y1:
        problems.append(
            problem(
                "G017",
                f"the grid spans x {gx:g}..{gx + width:g} mm and y {gy:g}..{gy + height:g} mm; "
                f"the printable area is x {x0:g}..{x1:g}, y {y0:g}..{y1:g}",
                file,
                "/grid",
            )
        )
    minimum = ruleset.print_limits.get("min_cell_mm", 0)
    if grid.cell_mm < minimum:
        problems.append(
            problem(
                "G017",
                f"rooms of {grid.cell_mm:g} mm are smaller than the printable minimum of {minimum:g} mm",
                file,
                "/grid/cell_mm",
            )
        )
    return problems
