"""Grid dungeons from a seed and constraints (RULES.md 1; ``inkcrawl generate --family grid``).

Randomized construction with repair, no solver: each try draws the entryways, grows a
random spanning forest of passages from the entryways' rooms (a "growing tree" maze: a
share ``q`` of the steps extends the newest room, giving long winding corridors, the rest a
random room, giving short bushy ones), adds passages on random other inner edges up to the
density, places the features under the distance rules (steps counted by breadth-first
search through passages), and, when not every room need be reachable, removes passages down
to the density while every feature stays reachable and every room keeps a passage or an
entryway. A try that misses a distance rule is dropped and the next try is drawn. With a
difficulty target the density is steered toward the range (a denser board lets a player place
more segments: more rooms entered, fewer tally marks), and a try whose mean score misses the
range is repaired a few times (passages added or removed, every other rule kept) before it
is dropped.

Every dungeon is checked with :func:`inkcrawl.validate.check_dungeon_data` before it is
returned: a problem there is a generator bug, raised as :class:`GeneratorBug`, never a file.

Determinism: try ``t`` of dungeon ``i`` draws from ``random.Random("inkcrawl-generate:S:i:t")``
for seed ``S``; the time limit only ends the search, it never changes what a try builds, so
the same seed and constraints give the same bytes on any machine that finds the dungeon in
time.
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inkcrawl.generate.constraints import GridSpec, Infeasible, check_grid_spec, inner_edge_count
from inkcrawl.templates import _outer_edges, template_data

__all__ = ["DEFAULT_TIME_LIMIT", "MAX_TRIES", "Generated", "GeneratorBug", "generate_grid", "title_for"]

Cell = tuple[int, int]

#: Seconds the search for one dungeon may take before it gives up with an explanation.
DEFAULT_TIME_LIMIT = 5.0
#: Tries for one dungeon before the search gives up (whichever comes first with the time limit).
MAX_TRIES = 200
#: The measure of a layout's mean score (its games, its early stop, the helper process that
#: shares its games) is :func:`inkcrawl.generate.measure.mean_score`.
#: Repairs of one try that missed the score range: each adds or removes about one passage per
#: VP the mean is off the middle of the range, then measures again.
REPAIRS = 6
#: Tries in a row whose mean score missed the range on the same side with no passage left to
#: change the way that side needs (the density's bound, or every change breaking a rule): the
#: search then ends with that explanation instead of waiting for the time limit.
STUCK_TRIES = 5

_OFFSETS = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}

_ADJECTIVES = (
    "Ashen", "Crooked", "Drowned", "Ember", "Gilded", "Hollow", "Iron", "Lantern", "Mossy", "Rusted",
    "Silent", "Smoking", "Sunken", "Tangled", "Whispering", "Winding",
)  # fmt: skip
_NOUNS = (
    "Barrows", "Catacombs", "Cellars", "Cisterns", "Crypts", "Delve", "Galleries", "Halls", "Kennels",
    "Labyrinth", "Mines", "Pits", "Undercroft", "Vaults", "Warrens", "Workings",
)  # fmt: skip


class GeneratorBug(RuntimeError):
    """A generated dungeon failed validation: a bug in the generator, never the user's input.
    The message lists the problems; nothing is written."""


@dataclass
class Generated:
    """One generated dungeon: ``data`` (dungeon JSON, canonical), the ``tries`` it took, the
    share of inner edges that are passages, and with a difficulty target the measured
    ``mean_score`` (VP), the ``score_range`` it met and the ``games`` its measures played in
    all (the accepted dungeon's full count, plus those of the layouts dropped or repaired)."""

    data: dict
    tries: int
    density: float
    mean_score: float | None = None
    score_range: tuple[float, float] | None = None
    games: int = 0


@dataclass
class _Search:
    """What the tries of one dungeon found: misses per constraint, the nearest mean score."""

    misses: dict[str, int] = field(default_factory=dict)
    nearest: float | None = None
    nearest_gap: float = math.inf
    nearest_games: int = 0
    #: games played by every measure so far
    games: int = 0
    low: float = 0.0
    high: float = 1.0
    #: consecutive tries stuck at the limit on one side (``more``: the mean was too low), and
    #: the mean nearest the range among them
    stuck: int = 0
    stuck_more: bool = False
    stuck_mean: float = 0.0
    stuck_density: float = 0.0

    def miss(self, constraint: str) -> None:
        self.misses[constraint] = self.misses.get(constraint, 0) + 1


def title_for(seed: int, index: int) -> str:
    """A sheet title drawn from the seed: "The <adjective> <noun>" (original word lists)."""
    rng = random.Random(f"inkcrawl-title:{seed}:{index}")
    return f"The {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"


def _inner_edges(columns: int, rows: int) -> list[tuple[Cell, str]]:
    edges = [((c, r), "east") for r in range(rows) for c in range(columns - 1)]
    edges += [((c, r), "south") for r in range(rows - 1) for c in range(columns)]
    return edges


def _other(cell: Cell, side: str) -> Cell:
    dc, dr = _OFFSETS[side]
    return (cell[0] + dc, cell[1] + dr)


def _choose_entryways(rng: random.Random, spec: GridSpec) -> list[tuple[Cell, str]]:
    """``spec.entryways`` distinct outer edges, in distinct rooms while there are rooms left."""
    outer = _outer_edges(spec.columns, spec.rows)
    by_room: dict[Cell, list[int]] = {}
    for index, (cell, _side) in enumerate(outer):
        by_room.setdefault(cell, []).append(index)
    rooms = list(by_room)
    rng.shuffle(rooms)
    chosen = [rng.choice(by_room[room]) for room in rooms[: spec.entryways]]
    if len(chosen) < spec.entryways:
        rest = [i for i in range(len(outer)) if i not in set(chosen)]
        chosen += rng.sample(rest, spec.entryways - len(chosen))
    return [outer[i] for i in sorted(chosen)]


def _forest(rng: random.Random, spec: GridSpec, roots: list[Cell], q: float) -> set[int]:
    """A random spanning forest joining every room to one of ``roots`` (edge indexes of
    :func:`_inner_edges`): the growing-tree maze, extending the newest room with probability
    ``q``, a random one otherwise."""
    columns, rows = spec.columns, spec.rows
    index = {edge: i for i, edge in enumerate(_inner_edges(columns, rows))}
    seen = set(roots)
    active = list(roots)
    rng.shuffle(active)
    chosen: set[int] = set()
    while active:
        at = len(active) - 1 if rng.random() < q else rng.randrange(len(active))
        cell = active[at]
        options = []
        for side in ("north", "east", "south", "west"):
            other = _other(cell, side)
            if 0 <= other[0] < columns and 0 <= other[1] < rows and other not in seen:
                options.append((side, other))
        if not options:
            active[at] = active[-1]
            active.pop()
            continue
        side, other = rng.choice(options)
        key = (cell, side) if side in ("east", "south") else (other, "south" if side == "north" else "east")
        chosen.add(index[key])
        seen.add(other)
        active.append(other)
    return chosen


def _adjacency(spec: GridSpec, edges: list[tuple[Cell, str]], passages: set[int]) -> dict[Cell, list[Cell]]:
    graph: dict[Cell, list[Cell]] = {(c, r): [] for r in range(spec.rows) for c in range(spec.columns)}
    for i in passages:
        cell, side = edges[i]
        other = _other(cell, side)
        graph[cell].append(other)
        graph[other].append(cell)
    return graph


def steps_from(graph: dict[Cell, list[Cell]], sources: list[Cell] | set[Cell]) -> dict[Cell, int]:
    """Room -> least steps (passages crossed) from the nearest of ``sources`` (breadth-first
    search); rooms no passage joins to them are left out (infinitely far)."""
    distance = dict.fromkeys(sources, 0)
    queue = deque(distance)
    while queue:
        room = queue.popleft()
        for other in graph[room]:
            if other not in distance:
                distance[other] = distance[room] + 1
                queue.append(other)
    return distance


def _place(
    rng: random.Random, spec: GridSpec, graph: dict[Cell, list[Cell]], entry_rooms: set[Cell], search: _Search
) -> dict[Cell, tuple[str, str | None]] | None:
    """Room -> ``(kind, letter)`` for every feature, or ``None`` (and a miss counted) when a
    distance rule cannot be met on this layout."""
    free = set(graph)
    placed: dict[Cell, tuple[str, str | None]] = {}
    if spec.features.get("dragon"):
        reach = steps_from(graph, entry_rooms)
        far = sorted(room for room in free if reach.get(room, math.inf) >= spec.dragon_steps)
        if not far:
            search.miss("grid.distances.dragon_from_entryways")
            return None
        room = rng.choice(far)
        placed[room] = ("dragon", None)
        free.discard(room)
    letters = spec.ruleset.elements.get("weapon", {}).get("letters", "")
    for letter in letters[: spec.pairs]:
        for _ in range(8):
            weapon = rng.choice(sorted(free))
            if spec.monster_steps:
                near = steps_from(graph, [weapon])
                options = sorted(r for r in free if r != weapon and near.get(r, math.inf) >= spec.monster_steps)
            else:
                options = sorted(free - {weapon})
            if options:
                monster = rng.choice(options)
                placed[weapon], placed[monster] = ("weapon", letter), ("monster", letter)
                free -= {weapon, monster}
                break
        else:
            search.miss("grid.distances.monster_from_weapon")
            return None
    for kind, count in spec.features.items():
        if kind == "dragon":
            continue
        for room in rng.sample(sorted(free), count):
            placed[room] = (kind, None)
            free.discard(room)
    return placed


def _prune(
    rng: random.Random,
    spec: GridSpec,
    edges: list[tuple[Cell, str]],
    passages: set[int],
    target: int,
    entry_rooms: set[Cell],
    features: set[Cell],
) -> None:
    """Remove passages (in place) down to ``target`` while every feature room stays reachable
    from an entryway and every room keeps a passage or an entryway."""
    for i in rng.sample(sorted(passages), len(passages)):
        if len(passages) <= target:
            return
        passages.discard(i)
        graph = _adjacency(spec, edges, passages)
        reach = steps_from(graph, entry_rooms)
        lonely = any(not graph[room] and room not in entry_rooms for room in graph)
        if lonely or not features <= reach.keys():
            passages.add(i)


@dataclass
class _Layout:
    """One try's board: inner edges (:func:`_inner_edges`), the passages among them (indexes),
    the entryways ``(room, side)`` and the features, room -> ``(kind, letter)``."""

    edges: list[tuple[Cell, str]]
    passages: set[int]
    entries: list[tuple[Cell, str]]
    placed: dict[Cell, tuple[str, str | None]]

    @property
    def entry_rooms(self) -> set[Cell]:
        return {cell for cell, _side in self.entries}


def _build(rng: random.Random, spec: GridSpec, density: float, search: _Search) -> _Layout | None:
    """One try's layout, or ``None`` when a distance rule was missed."""
    edges = _inner_edges(spec.columns, spec.rows)
    entries = _choose_entryways(rng, spec)
    entry_rooms = {cell for cell, _side in entries}
    misses = sum(search.misses.values())
    # more winding corridors (longer distances) after tries that missed a distance rule
    q = rng.random() ** (1.0 / (1.0 + misses))
    passages = _forest(rng, spec, sorted(entry_rooms), q)
    target = round(density * inner_edge_count(spec.columns, spec.rows))
    spare = [i for i in range(len(edges)) if i not in passages]
    if target > len(passages):
        passages.update(rng.sample(spare, min(len(spare), target - len(passages))))
    graph = _adjacency(spec, edges, passages)
    placed = _place(rng, spec, graph, entry_rooms, search)
    if placed is None:
        return None
    if target < len(passages) and not spec.every_room_reachable:
        _prune(rng, spec, edges, passages, target, entry_rooms, set(placed))
    return _Layout(edges, passages, entries, placed)


def _data(spec: GridSpec, layout: _Layout) -> dict:
    """Dungeon JSON data of ``layout``: :func:`~inkcrawl.templates.template_data`'s board."""
    edges = layout.edges
    data = template_data(spec.ruleset, size=(spec.columns, spec.rows))
    data["passages"] = [{"cell": list(edges[i][0]), "side": edges[i][1]} for i in sorted(layout.passages)]
    data["entryways"] = [
        {"id": f"entry-{number}", "cell": list(cell), "side": side}
        for number, (cell, side) in enumerate(layout.entries, 1)
    ]
    features: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for room in sorted(layout.placed, key=lambda cell: (cell[1], cell[0])):
        kind, letter = layout.placed[room]
        counts[kind] = counts.get(kind, 0) + 1
        feature: dict[str, Any] = {"id": f"{kind}-{counts[kind]}", "kind": kind, "cell": list(room)}
        if letter is not None:
            feature["id"], feature["letter"] = f"{kind}-{letter.lower()}", letter
        features.append(feature)
    data["features"] = features
    return data


def _keeps_rules(spec: GridSpec, layout: _Layout) -> bool:
    """Whether ``layout`` still meets what passages decide: every feature (every room, with
    ``every_room_reachable``) reachable from an entryway, every room a passage or an entryway,
    the distance rules."""
    graph = _adjacency(spec, layout.edges, layout.passages)
    entry_rooms = layout.entry_rooms
    reach = steps_from(graph, entry_rooms)
    if any(not graph[room] and room not in entry_rooms for room in graph):
        return False
    if not layout.placed.keys() <= reach.keys():
        return False
    if spec.every_room_reachable and len(reach) < len(graph):
        return False
    weapons = {letter: room for room, (kind, letter) in layout.placed.items() if kind == "weapon"}
    for room, (kind, letter) in layout.placed.items():
        if kind == "dragon" and reach[room] < spec.dragon_steps:
            return False
        if kind == "monster" and spec.monster_steps and letter in weapons:
            if steps_from(graph, [weapons[letter]]).get(room, math.inf) < spec.monster_steps:
                return False
    return True


def _repair(rng: random.Random, spec: GridSpec, layout: _Layout, more: bool, wanted: int) -> bool:
    """Move the layout's mean score toward the range: ``wanted`` passages added (``more``) or
    removed, within the constraints' density and keeping every rule (:func:`_keeps_rules`).
    ``False`` when no passage could be changed."""
    inner = len(layout.edges)
    bound = round(spec.density[1] * inner) if more else round(spec.density[0] * inner)
    changed = 0
    if more:
        spare = [i for i in range(inner) if i not in layout.passages]
        for i in rng.sample(spare, len(spare)):
            if changed >= wanted or len(layout.passages) >= bound:
                break
            layout.passages.add(i)  # adding a passage only shortens steps: check the distance rules
            if _keeps_rules(spec, layout):
                changed += 1
            else:
                layout.passages.discard(i)
    else:
        for i in rng.sample(sorted(layout.passages), len(layout.passages)):
            if changed >= wanted or len(layout.passages) <= bound:
                break
            layout.passages.discard(i)
            if _keeps_rules(spec, layout):
                changed += 1
            else:
                layout.passages.add(i)
    return changed > 0


def _mean_score(
    data: dict, spec: GridSpec, wanted: tuple[float, float] | None = None, helper: Any = None
) -> tuple[float, int]:
    """The mean score (VP per seat and game) of ``spec.difficulty["games"]`` games of the grid
    dungeon ``data`` (dungeon JSON) with the difficulty's policy, players and seed, exactly as
    ``inkcrawl simulate`` reports ``score.mean``, and the games played; with ``wanted`` (a score
    range in VP) it may stop early, a miss (:func:`inkcrawl.generate.measure.mean_score`, which
    ``helper`` speeds up). RULES.md 1 (Scoring) through the grid engine."""
    from inkcrawl.generate.measure import mean_score

    assert spec.difficulty is not None
    return mean_score(data, spec.ruleset, spec.difficulty, wanted, helper)


def _steer(
    search: _Search, density: float, mean: float, wanted: tuple[float, float], bounds: tuple[float, float]
) -> None:
    """Narrow the density bracket within ``bounds`` (the constraints' range): too low a mean
    score wants more passages, too high fewer."""
    if mean < wanted[0]:
        search.low = max(search.low, density)
    elif mean > wanted[1]:
        search.high = min(search.high, density)
    if search.high - search.low < 0.02:  # a bracket closed by chance (layouts vary): open it again
        middle = (search.low + search.high) / 2
        search.low, search.high = max(bounds[0], middle - 0.1), min(bounds[1], middle + 0.1)


def _failure(spec: GridSpec, search: _Search, tries: int, elapsed: float, wanted: tuple[float, float] | None) -> str:
    counted = f"in {tries} tr{'y' if tries == 1 else 'ies'} ({elapsed:.2f} s)"
    difficulty = spec.difficulty or {}
    if wanted is not None and search.stuck >= STUCK_TRIES:
        side = "most" if search.stuck_more else "fewest"
        return (
            f"no dungeon within grid.difficulty.mean_score {wanted[0]:g}..{wanted[1]:g} {counted}: with the {side} "
            f"passages the features and grid.passages.density allow ({search.stuck_density:.2f} of the inner "
            f"edges), {search.stuck} layouts in a row scored a mean of {search.stuck_mean:.2f} at "
            f"{'most' if search.stuck_more else 'least'} ({difficulty.get('policy')}, {difficulty.get('players')} "
            f"players); {'lower' if search.stuck_more else 'raise'} the range, or change the features or "
            f"grid.passages.density"
        )
    if search.misses:
        constraint = max(search.misses, key=lambda name: search.misses[name])
        steps = spec.dragon_steps if constraint.endswith("dragon_from_entryways") else spec.monster_steps
        return (
            f"no dungeon meets {constraint} {steps} {counted}: it was missed {search.misses[constraint]} time(s); "
            f"lower it, or allow fewer passages (grid.passages.density) for longer corridors"
        )
    if wanted is not None and search.nearest is not None:
        return (
            f"no dungeon within grid.difficulty.mean_score {wanted[0]:g}..{wanted[1]:g} {counted}; the nearest had "
            f"mean {search.nearest:.2f} ({difficulty.get('policy')}, {difficulty.get('players')} players, "
            f"{search.nearest_games} games); widen the range, or change grid.passages.density or the features"
        )
    return f"no dungeon found {counted}; raise --time-limit"


def generate_grid(
    spec: GridSpec,
    seed: int,
    index: int = 0,
    count: int = 1,
    title: str | None = None,
    dungeon_id: str | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    max_tries: int = MAX_TRIES,
    clock: Callable[[], float] = time.perf_counter,
    helper: Any = None,
) -> Generated:
    """Dungeon ``index`` of ``count`` (a pack's curve position) for ``spec`` and ``seed``.

    Runs :func:`~inkcrawl.generate.constraints.check_grid_spec` first, then tries until one
    dungeon meets every constraint (the difficulty target as
    :meth:`~inkcrawl.generate.constraints.GridSpec.score_range` gives it for ``index``).
    ``title`` and ``dungeon_id`` default to :func:`title_for` and ``generated-<seed>``.
    Raises :class:`~inkcrawl.generate.constraints.Infeasible` (counting checks; or no try met
    the constraints within ``time_limit`` seconds or ``max_tries`` tries, the message naming
    the constraint missed most and, for a difficulty target, the nearest mean score) and
    :class:`GeneratorBug` (a result that does not validate). ``helper``
    (:func:`inkcrawl.generate.measure.measure_helper`) plays some of a difficulty target's games in
    another process: the same dungeon, sooner.
    """
    check_grid_spec(spec, count)
    started = clock()
    search = _Search(low=spec.density[0], high=spec.density[1])
    wanted = spec.score_range(index, count)
    tries = 0

    def out_of_time() -> bool:  # ends repairs too: a try cut short is never returned
        return clock() - started >= time_limit

    while tries < max_tries and (tries == 0 or not out_of_time()) and search.stuck < STUCK_TRIES:
        rng = random.Random(f"inkcrawl-generate:{seed}:{index}:{tries}")
        tries += 1
        density = rng.uniform(search.low, search.high)
        layout = _build(rng, spec, density, search)
        if layout is None:
            continue
        mean = None
        if wanted is not None:
            mean = _difficulty(rng, spec, layout, wanted, search, density, out_of_time, helper)
            if mean is None:
                continue
        data = _data(spec, layout)
        data["id"] = dungeon_id or f"generated-{seed}"
        data["sheet"]["title"] = title or title_for(seed, index)
        final = _checked(data, spec)
        share = round(len(final["passages"]) / max(1, _inner(spec)), 4)
        return Generated(final, tries, share, mean, wanted, search.games)
    raise Infeasible(_failure(spec, search, tries, clock() - started, wanted), _named(search, wanted))


def _difficulty(
    rng: random.Random,
    spec: GridSpec,
    layout: _Layout,
    wanted: tuple[float, float],
    search: _Search,
    density: float,
    out_of_time: Callable[[], bool],
    helper: Any = None,
) -> float | None:
    """The mean score of ``layout`` when it meets ``wanted`` (after up to :data:`REPAIRS`
    repairs, each changing a few passages, none once ``out_of_time()``), else ``None``; steers
    the density bracket by the first measure."""
    assert spec.difficulty is not None
    full_games = int(spec.difficulty["games"])
    for repair in range(REPAIRS + 1):
        mean, games = _mean_score(_data(spec, layout), spec, wanted, helper)
        search.games += games
        _note_nearest(search, mean, wanted, games)
        if games == full_games and wanted[0] <= mean <= wanted[1]:
            return mean
        if repair == 0 and spec.density[0] < spec.density[1]:
            _steer(search, density, mean, wanted, spec.density)
        more = mean < wanted[0]
        if repair == REPAIRS or out_of_time():
            search.stuck = 0
            return None
        # about one passage per VP off the middle of the range: aiming at the edge left many
        # repaired layouts just outside it, where a measure must play most of its games to tell
        gap = abs((wanted[0] + wanted[1]) / 2 - mean)
        if not _repair(rng, spec, layout, more, max(1, min(8, round(gap)))):
            _note_stuck(search, spec, layout, mean, more)
            return None
    return None


def _note_stuck(search: _Search, spec: GridSpec, layout: _Layout, mean: float, more: bool) -> None:
    """A try missed the range (``more``: too low) and no passage could be changed that way."""
    if search.stuck and search.stuck_more == more:
        search.stuck += 1
        search.stuck_mean = max(search.stuck_mean, mean) if more else min(search.stuck_mean, mean)
    else:
        search.stuck, search.stuck_more, search.stuck_mean = 1, more, mean
    search.stuck_density = len(layout.passages) / max(1, _inner(spec))


def _inner(spec: GridSpec) -> int:
    return inner_edge_count(spec.columns, spec.rows)


def _named(search: _Search, wanted: tuple[float, float] | None) -> str:
    if wanted is not None and search.stuck >= STUCK_TRIES:
        return "grid.difficulty.mean_score"
    if search.misses:
        return max(search.misses, key=lambda name: search.misses[name])
    return "grid.difficulty.mean_score" if wanted is not None else ""


def _note_nearest(search: _Search, mean: float, wanted: tuple[float, float], games: int) -> None:
    gap = wanted[0] - mean if mean < wanted[0] else max(0.0, mean - wanted[1])
    if gap < search.nearest_gap:
        search.nearest, search.nearest_gap, search.nearest_games = mean, gap, games


def _checked(data: dict, spec: GridSpec) -> dict:
    """``data`` in canonical form after :func:`~inkcrawl.validate.check_dungeon_data` found no
    error; raises :class:`GeneratorBug` otherwise."""
    from inkcrawl.model import dungeon_from_dict
    from inkcrawl.validate import RulesetRegistry, check_dungeon_data

    problems, dungeon = check_dungeon_data(data, "<generated>", RulesetRegistry([spec.ruleset]))
    errors = [p for p in problems if p.severity == "error"]
    if errors or dungeon is None:
        listed = "; ".join(f"{p.code} {p.pointer}: {p.message}" for p in errors[:5]) or "the model was not built"
        raise GeneratorBug(f"internal error: the generated dungeon does not validate ({listed}); please report it")
    return dungeon_from_dict(data).to_dict()
