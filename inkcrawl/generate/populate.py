"""``inkcrawl populate``: scoring content for an existing line layout (RULES.md 2), such as an
imported map, under the ``line`` section of a constraints file (docs/generating.md).

Every area, wall, door, label and Start of the layout is kept exactly as it was; populate adds
elements (monsters, plants, prisoners, treasures, spells, artifact stones, orbs, a boss, keys for
the locked doors), a Start when the layout has none (on the outer wall:
:func:`inkcrawl.importers.ldtk.starts.place_starts`), an end trigger when the sheet lists none,
and the sheet members they need (orb tokens, components). Keys the layout already holds are
replaced by a lock puzzle: each door's key lies where a player reaches it without that door,
chained behind other doors up to ``line.locks.depth`` keys deep. With ``line.locks.replace_keys``
false the layout's keys are kept and none is added: a locked door they never open is refused.

Elements go on free paper inside areas: their disc clear of the outline and wall ink, doors,
labels, Starts and each other by the ruleset's pen width (a line fits between them). The par of the result
(:func:`inkcrawl.engines.line.par.par`) measures difficulty against ``line.difficulty.par``.
Units: sheet millimetres, VP.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import time
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString

from inkcrawl.generate.constraints import GenerateError, Infeasible, LineSpec
from inkcrawl.generate.grid import GeneratorBug
from inkcrawl.locks import door_opens, lock_needs
from inkcrawl.model import SKELETON_LOCK, LineDungeon, dungeon_from_dict
from inkcrawl.rulesets import Ruleset
from inkcrawl.shapes import INNER_WALL_MM, OUTLINE_WALL_MM

__all__ = [
    "GRID_STEP_MM",
    "Populated",
    "free_spots",
    "key_depth_limit",
    "layout_of",
    "populate_line",
]

#: Spacing (mm) of the candidate centres tried on each area's paper.
GRID_STEP_MM = 1.5
#: The key depth when the constraints give none (at most what the doors allow).
DEFAULT_DEPTH = 2
#: The smallest an element is printed, as a share of its kind's default size, on paper too
#: crowded for the default (never below the ruleset's ``print.min_element_mm``).
SMALLEST_SHARE = 0.6
#: Tries in a row that find no room for every element before the spec is called infeasible.
MAX_FAILED_TRIES = 40
#: Share of an area's paper that elements may cover, leaving room for its printed name.
MAX_FILL = 0.35
#: Element kinds that are part of the layout: kept, never added or moved by populate.
LAYOUT_KINDS = ("door", "label", "start")
#: Kinds a line must not touch in passing (touching a portal entry lifts the pen, an escape
#: portal or an exit ends the scrawl): placed in rooms only, with paper free around them.
AVOIDED_KINDS = ("portal_entry", "escape_portal", "exit")
#: Pen widths of free paper kept round an :data:`AVOIDED_KINDS` element besides the usual one.
AVOID_ROOM_GAPS = 2.0
#: Kinds populate places itself (keys are placed by the lock puzzle).
KEY_KINDS = ("key", "skeleton_key")


@dataclass
class Populated:
    """One populated dungeon: ``data`` (the dungeon document), ``par`` (VP, the best solo score
    found), ``par_range`` (the target or ``None``), ``tries``, ``depth`` (the longest chain of
    keys behind doors), ``notes`` (what was added besides elements: a Start, an end trigger,
    keys replaced), ``errors_before`` and ``errors_after`` (validation errors of the input and
    of the result), ``timer``: ``None``, or when par's route takes longer than the sheet's timer
    (par's drawing speed, ``inkcrawl par --speed``) ``{"seconds", "speed_mm_s", "length_mm",
    "timer_vp"}`` (see :meth:`timer_note`)."""

    data: dict
    par: int
    par_range: tuple[float, float] | None
    tries: int
    depth: int
    notes: list[str] = field(default_factory=list)
    errors_before: int = 0
    errors_after: int = 0
    timer: dict | None = None

    def timer_note(self) -> str:
        """``""``, or when par's route does not fit the sheet's timer (``timer``: ``seconds``,
        ``speed_mm_s``, par's route ``length_mm``, ``timer_vp`` the best found within the timer,
        :class:`inkcrawl.engines.line.par.Par`) the sentence the success messages add, e.g.
        ``"its route, 1,320 mm, takes longer than the timer's 20 s at 50 mm/s: within the timer
        the best found is 9 VP"``. A par target is met by par, not within the timer
        (docs/generating.md). RULES.md 2, end triggers."""
        if self.timer is None:
            return ""
        t = self.timer
        return (
            f"its route, {t['length_mm']:,.0f} mm, takes longer than the timer's {t['seconds']:g} s at "
            f"{t['speed_mm_s']:g} mm/s: within the timer the best found is {t['timer_vp']} VP"
        )


def layout_of(data: dict) -> dict[str, Any]:
    """The layout of a line dungeon document that populate keeps: ``areas``, ``walls`` and the
    layout elements (doors, labels, Starts) by id, as plain JSON values."""
    return {
        "areas": copy.deepcopy(data.get("areas", [])),
        "walls": copy.deepcopy(data.get("walls", [])),
        "elements": {e["id"]: copy.deepcopy(e) for e in data.get("elements", []) if e.get("kind") in LAYOUT_KINDS},
    }


class _Paper:
    """Candidate centres on every area's free paper, with their clearance (mm) from the wall
    ink, doors, labels and the elements placed so far."""

    def __init__(self, dungeon: LineDungeon, ruleset: Ruleset, sheet, keep: list[dict]):
        from inkcrawl.checks.line import label_bounds

        # a pen line fits between an element and the ink around it
        self.gap = float(ruleset.data.get("pen_width_mm") or ruleset.print_limits.get("min_gap_mm", 2.0))
        geometry = sheet.geometry
        self.areas = geometry.areas
        self.polygons = geometry.polygons
        self.points: list[np.ndarray] = []
        self.clear: list[np.ndarray] = []
        self.fill = [0.0 for _ in self.areas]
        self.capacity = [MAX_FILL * p.area for p in self.polygons]
        obstacles = []  # (geometry, extra clearance)
        for wall in geometry.walls:
            obstacles.append(wall.buffer(INNER_WALL_MM / 2))
        for door, _, _ in sheet.doors:
            obstacles.append(LineString(door.segment).buffer(OUTLINE_WALL_MM))
        for element in dungeon.elements:
            if element.kind == "label" and element.at is not None:
                obstacles.append(shapely.box(*label_bounds(element)))
            elif element.at is not None and element.size_mm:
                obstacles.append(shapely.Point(element.at).buffer(element.radius_mm))
        ink = shapely.union_all(obstacles) if obstacles else None
        for polygon in self.polygons:
            x0, y0, x1, y1 = polygon.bounds
            xs = np.arange(x0 + GRID_STEP_MM / 2, x1, GRID_STEP_MM)
            ys = np.arange(y0 + GRID_STEP_MM / 2, y1, GRID_STEP_MM)
            grid = np.array(np.meshgrid(xs, ys)).reshape(2, -1).T if len(xs) and len(ys) else np.zeros((0, 2))
            inside = shapely.contains_xy(polygon, grid[:, 0], grid[:, 1]) if len(grid) else np.zeros(0, bool)
            grid = grid[inside]
            geoms = shapely.points(grid)
            clear = shapely.distance(polygon.exterior, geoms) - OUTLINE_WALL_MM / 2
            for ring in polygon.interiors:
                clear = np.minimum(clear, shapely.distance(ring, geoms) - OUTLINE_WALL_MM / 2)
            if ink is not None and len(grid):
                clear = np.minimum(clear, shapely.distance(ink, geoms))
            self.points.append(grid)
            self.clear.append(np.asarray(clear, dtype=float))

    def room_for(self, area: int, radius: float) -> np.ndarray:
        """Indexes of the candidate centres of ``area`` where a disc of ``radius`` mm fits."""
        if self.fill[area] + math.pi * radius**2 > self.capacity[area]:
            return np.zeros(0, dtype=int)
        return np.flatnonzero(self.clear[area] >= radius + self.gap)

    def place(self, area: int, index: int, radius: float) -> tuple[float, float]:
        """Take candidate ``index`` of ``area`` for a disc of ``radius``: the clearance of every
        candidate of the area drops by the disc."""
        x, y = self.points[area][index]
        pts = self.points[area]
        self.clear[area] = np.minimum(self.clear[area], np.hypot(pts[:, 0] - x, pts[:, 1] - y) - radius)
        self.fill[area] += math.pi * radius**2
        return round(float(x), 3), round(float(y), 3)

    def count_spots(self, area: int, radius: float) -> int:
        """How many discs of ``radius`` a greedy packing fits in ``area`` (the counting check's
        estimate of free spots; the fill cap included)."""
        clear = self.clear[area].copy()
        pts = self.points[area]
        fill, count = self.fill[area], 0
        while True:
            ok = np.flatnonzero(clear >= radius + self.gap)
            if not len(ok) or fill + math.pi * radius**2 > self.capacity[area]:
                return count
            x, y = pts[ok[0]]
            clear = np.minimum(clear, np.hypot(pts[:, 0] - x, pts[:, 1] - y) - radius)
            fill += math.pi * radius**2
            count += 1


def free_spots(dungeon_data: dict, ruleset: Ruleset, size_mm: float) -> int:
    """How many elements ``size_mm`` across fit on the free paper of a line dungeon document
    (a greedy packing, at most :data:`MAX_FILL` of each area's paper covered, each element
    a pen width clear of wall ink, doors, labels and other elements). Raises
    :class:`GenerateError` for a document that is not a line dungeon."""
    from inkcrawl.printed import sheet_of

    dungeon = dungeon_from_dict(dungeon_data)
    if not isinstance(dungeon, LineDungeon):
        raise GenerateError("not a line dungeon", "family")
    sheet = sheet_of(dungeon, ruleset)
    paper = _Paper(dungeon, ruleset, sheet, [])
    return sum(paper.count_spots(i, size_mm / 2) for i in range(len(paper.areas)))


class _Graph:
    """The area graph of the printed sheet: open gaps, doors with their locks, Start areas."""

    def __init__(self, sheet, start_areas: list[str]):
        self.ids = [a.id for a in sheet.geometry.areas]
        self.kinds = {a.id: a.kind for a in sheet.geometry.areas}
        self.links: dict[str, list[tuple[str, list[str] | None]]] = {i: [] for i in self.ids}
        locks = {door.id: list(door.locks or []) for door, _, _ in sheet.doors}
        for c in sheet.connections:
            lock = locks.get(c.door_id) if c.kind == "door" else None
            self.links.setdefault(c.a, []).append((c.b, lock))
            if c.kind != "portal":
                self.links.setdefault(c.b, []).append((c.a, lock))
        self.starts = start_areas
        self.door_locks = [v for v in locks.values()]

    def region(self, keys: frozenset[str]) -> dict[str, int]:
        """Areas reachable from the Starts holding ``keys`` -> fewest steps."""
        steps = {a: 0 for a in self.starts}
        queue = list(self.starts)
        for area in queue:
            for other, lock in self.links.get(area, []):
                if other in steps or (lock is not None and not door_opens(lock, keys)):
                    continue
                steps[other] = steps[area] + 1
                queue.append(other)
        return steps

    def colours(self) -> list[str]:
        """The key colours the doors ask for, sorted."""
        return sorted({lock for locks in self.door_locks for lock in locks if lock != SKELETON_LOCK})

    def keys_needed(self, usable: list[str]) -> list[str]:
        """The colours whose keys the doors need, plus spare colours for doors that ask more
        distinct keys than colours (skeleton locks), from ``usable``."""
        colours = self.colours()
        most = max((needs[1] for locks in self.door_locks if (needs := lock_needs(locks))), default=0)
        spare = [c for c in usable if c not in colours]
        return colours + spare[: max(0, most - len(colours))]


def _chain(graph: _Graph, order: list[str]) -> tuple[int, list[list[str]]]:
    """The deepest chain of keys in ``order``: key k placed in the areas the k keys before it
    opened (its depth), as deep as new areas appear. Returns ``(depth, levels)``:
    ``levels[k]`` the areas first reached holding the first ``k`` keys of ``order``."""
    levels: list[list[str]] = []
    seen: set[str] = set()
    held: list[str] = []
    for k in range(len(order) + 1):
        region = graph.region(frozenset(held))
        new = [a for a in region if a not in seen]
        seen |= set(region)
        levels.append(new)
        if k < len(order):
            held.append(order[k])
    depth = 0
    for k in range(1, len(order)):  # the last key opens areas, but no key waits there
        if not levels[k]:
            break
        depth = k
    return depth, levels


def key_depth_limit(graph: _Graph, keys: list[str]) -> int:
    """The longest chain of keys behind doors the door graph allows (every order of ``keys``
    tried: at most 4! with the classic colours): a key at depth k needs k keys collected first."""
    best = 0
    for order in permutations(keys):
        best = max(best, _chain(graph, list(order))[0])
    return best


def _start_areas(dungeon: LineDungeon, sheet) -> list[str]:
    geometry = sheet.geometry
    found: list[str] = []
    for element in dungeon.elements:
        if element.kind != "start" or element.at is None:
            continue
        point = shapely.Point(element.at)
        near = geometry.tree.query(point, predicate="dwithin", distance=element.radius_mm + 0.5).tolist()
        if near:  # the area nearest the Start's centre
            index = min(sorted(near), key=lambda i: geometry.polygons[i].distance(point))
            if geometry.areas[index].id not in found:
                found.append(geometry.areas[index].id)
    return found


def _new_id(prefix: str, taken: set[str]) -> str:
    n = 1
    while f"{prefix}-{n}" in taken:
        n += 1
    taken.add(f"{prefix}-{n}")
    return f"{prefix}-{n}"


def _error_count(data: dict, file: str, registry=None) -> tuple[int, list]:
    """Validation errors of the dungeon document ``data``: ``(count, problems)``, its ruleset
    looked up in ``registry`` (a :class:`~inkcrawl.validate.RulesetRegistry`; ``None``: the
    bundled rulesets)."""
    from inkcrawl.validate import RulesetRegistry, check_dungeon_data

    problems, _ = check_dungeon_data(data, file, registry if registry is not None else RulesetRegistry())
    errors = [p for p in problems if p.severity == "error"]
    return len(errors), errors


def _measure_par(data: dict, ruleset: Ruleset, players: int):
    """Par of ``data``: the :class:`~inkcrawl.engines.line.par.Par` of
    :func:`inkcrawl.engines.line.par.par` (``.par`` in VP; with a timer on the sheet whether its
    route fits it), or ``None`` when par cannot draw its route on this placement (the referee
    refuses the drawn play, or no route could be drawn): the try is dropped, so every result is
    one par solves. Raises :class:`GeneratorBug` for game data par cannot read (never expected)."""
    from inkcrawl.engines.line import GameDataError, LineRules, PlayError
    from inkcrawl.engines.line.par import par
    from inkcrawl.gamedata import line_game_data

    dungeon = dungeon_from_dict(data)
    assert isinstance(dungeon, LineDungeon)
    try:
        rules = LineRules(line_game_data(dungeon, ruleset))
    except (GameDataError, ValueError) as exc:
        raise GeneratorBug(f"internal error: par could not read the populated dungeon ({exc})") from exc
    try:
        found = par(rules, players)
    except PlayError:
        return None
    if found.play is None:  # "the route could not be drawn"
        return None
    return found


def _search_value(data: dict, ruleset: Ruleset, players: int) -> int:
    """Par's search value for ``data`` (VP) without drawing its route: the exact search for at
    most :data:`~inkcrawl.engines.line.par.PROVEN_CHECK_STATES` states, then greedy (a score
    some route makes). It steers the tries toward a par range; only a try whose value lies in
    the range is drawn and scored by :func:`_measure_par`, which takes ten times as long."""
    from inkcrawl.engines.line import GameDataError, LineRules
    from inkcrawl.engines.line.par import PROVEN_CHECK_STATES, solve
    from inkcrawl.gamedata import line_game_data

    dungeon = dungeon_from_dict(data)
    assert isinstance(dungeon, LineDungeon)
    try:
        return solve(LineRules(line_game_data(dungeon, ruleset)), players, PROVEN_CHECK_STATES)[0]
    except (GameDataError, ValueError) as exc:
        raise GeneratorBug(f"internal error: par could not be searched on the populated dungeon ({exc})") from exc


def populate_line(
    data: dict,
    spec: LineSpec,
    seed: int,
    time_limit: float = 5.0,
    file: str = "dungeon",
    registry=None,
    max_tries: int | None = None,
) -> Populated:
    """Populate the line dungeon document ``data`` (migrated, schema-valid) under ``spec`` with
    random choices from ``seed`` (the same seed, the same result). ``data`` is not changed.

    Counting checks run first and raise :class:`Infeasible` naming the constraint: more
    elements than free spots (``line.elements``), a boss with no room it fits
    (``line.elements.boss``), a key depth deeper than the door graph allows (``line.locks.depth``),
    a par range above the upper bound of the elements asked (``line.difficulty.par``). Then
    tries until the par lands in the target range, or raises :class:`Infeasible` after
    ``time_limit`` seconds naming ``line.difficulty.par``. Raises :class:`GeneratorBug` if a
    result has more validation errors than the input (never expected). ``registry``: the
    :class:`~inkcrawl.validate.RulesetRegistry` the result is validated with (a pack's rulesets
    for a dungeon of a pack; ``None``: the bundled ones). ``max_tries``: with a par range, give
    up after this many tries as after the time limit (a budget that does not depend on the
    machine's speed; the :class:`Infeasible` then has ``nearest``, the par found nearest the range,
    or ``None``). RULES.md 2.

    Besides the scoring elements: ``line.portal_pairs`` one-way portal pairs, each exit in an
    area that needs no key the entry's area does not (so a portal never goes round a door), and
    the ``line.end_triggers`` with what they need (an escape portal, an exit, a boss, an orb of
    a colour; a timer adds the timer component)."""
    from inkcrawl.checks.line import components_used
    from inkcrawl.printed import sheet_of

    ruleset = spec.ruleset
    started = time.monotonic()
    errors_before, _ = _error_count(data, file, registry)
    base = copy.deepcopy(data)
    notes: list[str] = []
    removed = [e["id"] for e in base["elements"] if e.get("kind") in KEY_KINDS]
    if removed and spec.replace_keys:
        base["elements"] = [e for e in base["elements"] if e.get("kind") not in KEY_KINDS]
        notes.append(f"replaced the layout's key(s) {', '.join(removed)} by a lock puzzle")
    if not any(e.get("kind") == "start" for e in base["elements"]):
        from inkcrawl.importers.ldtk.starts import place_starts

        place_starts(base, {}, lambda _source, message: notes.append(f"a Start: {message}"))
    if spec.starts is not None:
        from inkcrawl.importers.ldtk.starts import add_starts

        low, high = spec.starts
        want = random.Random(f"{seed}:starts").randint(low, high)
        have = add_starts(base, want, lambda _source, message: notes.append(message))
        if have < low:
            raise Infeasible(
                f"line.starts asks for at least {low} Starts; the layout has room for {have} (a Start stands on "
                "the outer wall of a room that has none yet, clear of the other elements)",
                "line.starts",
            )
    dungeon = dungeon_from_dict(base)
    if not isinstance(dungeon, LineDungeon):
        raise GenerateError(f"{file} is not a line dungeon", "family")
    sheet = sheet_of(dungeon, ruleset)
    graph = _Graph(sheet, _start_areas(dungeon, sheet))
    if not sheet.geometry.polygons:
        raise Infeasible(f"{file}: the layout has no valid area (room or corridor) to put elements in", "line")
    if not graph.starts:
        raise Infeasible(f"{file}: no Start lies on an area of the layout, so nothing can be reached", "line")
    usable = [c for c in ruleset.key_colours if ruleset.key_supply(spec.players) > 0]
    if not spec.replace_keys:  # the layout's own keys (or none) open its doors: no key is added
        _check_kept_keys(dungeon, ruleset, spec.players)
    keys = graph.keys_needed(usable) if spec.replace_keys else []
    missing = [c for c in graph.colours() if c not in usable]
    if missing:
        raise Infeasible(
            f"the doors ask for {', '.join(missing)} keys; ruleset '{ruleset.id}' has no such key tokens", "line.locks"
        )
    _check_skeleton_supply(sheet, usable, spec)
    limit = key_depth_limit(graph, keys)
    wanted = DEFAULT_DEPTH if spec.depth is None else spec.depth
    if keys and limit < wanted and any(SKELETON_LOCK in locks for locks in graph.door_locks):
        # a spare colour opens skeleton-key doors: a key of the doors' colours can wait behind them
        for spare in [c for c in usable if c not in keys]:
            deeper = key_depth_limit(graph, [*keys, spare])
            if deeper <= limit:
                break
            keys, limit = [*keys, spare], deeper
            if limit >= wanted:
                break
    depth = min(limit, DEFAULT_DEPTH) if spec.depth is None else spec.depth
    skeleton = any(SKELETON_LOCK in locks for locks in graph.door_locks)
    if depth > max(0, len(keys) - 1) and not skeleton:  # (with skeleton locks the spare keys are the door graph's)
        raise Infeasible(
            f"line.locks.depth asks for keys {depth} deep (that many keys needed before the deepest one); "
            f"the doors use {len(keys)} key colour(s) ({', '.join(keys) or 'none'}), so no chain is deeper "
            f"than {max(0, len(keys) - 1)}",
            "line.locks.depth",
        )
    if depth > limit:
        raise Infeasible(
            f"line.locks.depth asks for keys {depth} deep; the door graph allows at most {limit} "
            f"(every order of the {', '.join(keys)} keys tried: no door behind the last one opens new areas"
            + ("; a skeleton-key door opens with whichever key comes first" if skeleton else "")
            + ")",
            "line.locks.depth",
        )
    paper = _Paper(dungeon, ruleset, sheet, [])
    if keys:
        first = graph.region(frozenset())
        smallest = _sizes(sizes_of(ruleset, "key"), ruleset)[-1]
        if not any(len(paper.room_for(i, smallest / 2)) for i, a in enumerate(paper.areas) if a.id in first):
            raise Infeasible(
                f"line.locks: the doors ask for {', '.join(keys)} keys, and the areas reached without a key "
                f"({', '.join(sorted(first))}) have no free paper for a key {smallest:g} mm across",
                "line.locks",
            )
    reachable_all = graph.region(frozenset(keys))
    areas = [i for i, a in enumerate(paper.areas) if a.id in reachable_all]
    rooms = [i for i in areas if paper.areas[i].kind == "room"] or areas
    sizes = {kind: sizes_of(ruleset, kind) for kind in ruleset.elements}
    smallest_boss = _sizes(sizes["boss"], ruleset)[-1]
    if "boss" not in spec.elements and not any(len(paper.room_for(i, smallest_boss / 2)) for i in rooms):
        spec = dataclasses.replace(spec, elements={**spec.elements, "boss": (0, 0)})
        notes.append(f"no boss: no room has free paper for one {smallest_boss:g} mm across")
    if spec.portal_pairs[0] > len(rooms) or (spec.portal_pairs[0] and len(areas) < 2):
        raise Infeasible(
            f"line.portal_pairs asks for {spec.portal_pairs[0]} portal pairs: each entry needs a room of its own "
            f"and its exit another area, and {file!r} has {len(rooms)} room(s) and {len(areas)} area(s) a player "
            "reaches; ask for fewer",
            "line.portal_pairs",
        )
    counts_high = spec.counts(len(rooms), high=True)
    _check_spots(paper, rooms, spec.counts(len(rooms), level=0.0), sizes, spec, dungeon)
    if spec.par_range is not None:
        best = spec.best_par(counts_high, dungeon)
        if spec.par_range[0] > best:
            raise Infeasible(
                f"line.difficulty.par asks for at least {spec.par_range[0]:g} VP; the elements asked "
                f"(line.elements, at their most) give at most {best:g} VP, the upper bound of any route",
                "line.difficulty.par",
            )
    level = 0.5
    tries = failed = undrawn = 0
    best_try: tuple[float, dict, int] | None = None
    while True:
        tries += 1
        rng = random.Random(f"{seed}:{tries}")
        counts = spec.counts(len(rooms), level=level, rng=rng)
        result = _one_try(base, dungeon, ruleset, sheet, graph, keys, depth, counts, sizes, spec, rng)
        if result is not None:
            out, chain_depth = result
            target = spec.par_range
            if target is not None:
                estimate = _search_value(out, ruleset, spec.players)
                if not target[0] <= estimate <= target[1]:
                    miss = target[0] - estimate if estimate < target[0] else estimate - target[1]
                    if best_try is None or miss < best_try[0]:
                        best_try = (miss, out, estimate)
                    level = min(1.0, level + (1 - level) / 2) if estimate < target[0] else level / 2
                    if time.monotonic() - started > time_limit or (max_tries is not None and tries >= max_tries):
                        _par_missed(spec, time_limit, tries, best_try)
                    continue
            errors_after, errors = _error_count(out, file, registry)
            if errors_after > errors_before or (errors_before == 0 and errors_after):
                raise GeneratorBug(
                    f"internal error: the populated dungeon has {errors_after} validation error(s) "
                    f"(first: {errors[0].code} {errors[0].message})"
                )
            used = components_used(dungeon_from_dict(out))  # type: ignore[arg-type]
            listed = [c for c in out["sheet"].get("components", []) if c in used]
            out["sheet"]["components"] = listed + sorted(used - set(listed))
            measured = _measure_par(out, ruleset, spec.players)
            if measured is None:
                undrawn += 1
                if undrawn >= MAX_FAILED_TRIES:
                    raise GeneratorBug(f"internal error: par could not draw its route on {undrawn} placements in a row")
                if time.monotonic() - started > time_limit:
                    _par_missed(spec, time_limit, tries, best_try)
                continue
            value = measured.par
            if target is None or target[0] <= value <= target[1]:
                timer = None
                if measured.fits_timer is False:  # said in the success messages (Populated.timer_note)
                    timer = {
                        "seconds": measured.timer_s,
                        "speed_mm_s": measured.speed_mm_s,
                        "length_mm": measured.length_mm,
                        "timer_vp": measured.timer_vp,
                    }
                return Populated(out, value, target, tries, chain_depth, notes, errors_before, errors_after, timer)
            miss = target[0] - value if value < target[0] else value - target[1]
            if best_try is None or miss < best_try[0]:
                best_try = (miss, out, value)
            level = min(1.0, level + (1 - level) / 2) if value < target[0] else level / 2
            if max_tries is not None and tries >= max_tries:
                _par_missed(spec, time_limit, tries, best_try)
        else:
            level /= 2  # no room for every element: fewer next time
            failed += 1
            if failed >= MAX_FAILED_TRIES:
                raise Infeasible(
                    f"line.elements: {failed} tries found no free paper for every element asked "
                    f"({', '.join(f'{n} {k}' for k, n in counts.items() if n)}) besides the keys; ask for fewer",
                    "line.elements",
                )
        if time.monotonic() - started > time_limit:
            _par_missed(spec, time_limit, tries, best_try)


def _check_kept_keys(dungeon: LineDungeon, ruleset: Ruleset, players: int) -> None:
    """With ``line.locks.replace_keys`` false no key is added, so the layout's own keys and
    skeleton keys must open every locked door: raises :class:`Infeasible` naming
    ``line.locks.replace_keys`` and the doors that no order of collecting them opens
    (:func:`inkcrawl.solvability.analyze_line_game` on the layout's game data, the key supply of
    ``players``), rather than write a dungeon that cannot be won. RULES.md 2, Keys."""
    from inkcrawl.gamedata import line_game_data
    from inkcrawl.solvability import analyze_line_game

    if not any(e.kind == "door" and e.locks for e in dungeon.elements):
        return
    analysis = analyze_line_game(line_game_data(dungeon, ruleset), players)
    shut = [d for d in analysis.doors_never_open if d["locks"]]
    if shut:
        doors = ", ".join(f"{d['id']!r} ({'+'.join(d['locks'])})" for d in shut)
        held = sorted({e.colour or "?" for e in dungeon.elements if e.kind == "key"})
        has = f"keys {', '.join(held)}" if held else "no keys"
        raise Infeasible(
            f"line.locks.replace_keys is false, so the layout's own keys are kept and none is added; the layout has "
            f"{has}, and the locked door(s) {doors} never open with them: the dungeon could not be won "
            "(set replace_keys to true for a lock puzzle, or add the keys to the layout)",
            "line.locks.replace_keys",
        )


def _check_skeleton_supply(sheet, usable: list[str], spec: LineSpec) -> None:
    """A door with a ``"skeleton"`` lock opens with any key (RULES.md 2, Keys), so it asks for as
    many distinct keys as it has locks: raises :class:`Infeasible` naming ``line.locks`` when the
    ruleset has key tokens of fewer colours (``usable``) for the spec's player count."""
    for door, _, _ in sheet.doors:
        locks = list(door.locks or [])
        needs = lock_needs(locks)
        if SKELETON_LOCK in locks and needs is not None and needs[1] > len(usable):
            raise Infeasible(
                f"door {door.id!r} has a skeleton lock: it opens with {needs[1]} distinct key(s) of any colour, and "
                f"ruleset '{spec.ruleset.id}' has key tokens of {len(usable)} colour(s) for {spec.players} "
                "player(s) (line.difficulty.players)",
                "line.locks",
            )


def _par_missed(spec: LineSpec, time_limit: float, tries: int, best_try) -> None:
    """Raise the :class:`Infeasible` of a search that ran out of time: a par range missed (with
    the nearest par found), or no placement found."""
    found = f"; the nearest par found was {best_try[2]} VP" if best_try else ""
    missed = Infeasible(
        f"line.difficulty.par [{spec.par_range[0]:g}, {spec.par_range[1]:g}] was not met within "
        f"--time-limit {time_limit:g} s ({tries} tries){found}; widen the range or change line.elements"
        if spec.par_range
        else f"no placement of line.elements was found within --time-limit {time_limit:g} s ({tries} tries)",
        "line.difficulty.par" if spec.par_range else "line.elements",
    )
    missed.nearest = best_try[2] if best_try else None  # type: ignore[attr-defined]
    raise missed


def _check_spots(paper: _Paper, rooms: list[int], counts: dict[str, int], sizes, spec: LineSpec, dungeon) -> None:
    boss = counts.get("boss", 0)
    if boss:
        radius = _sizes(sizes["boss"], spec.ruleset)[-1] / 2
        if not any(len(paper.room_for(i, radius)) for i in rooms):
            raise Infeasible(
                f"line.elements.boss: no room of the layout has free paper for a boss {radius * 2:g} mm across "
                f"({paper.gap:g} mm clear of walls and labels); ask for no boss",
                "line.elements.boss",
            )
    total = sum(n for kind, n in counts.items() if kind != "boss")
    if not total:
        return
    mean = sum(_sizes(sizes[k], spec.ruleset)[-1] * n for k, n in counts.items() if k != "boss") / total
    spots = sum(paper.count_spots(i, mean / 2) for i in rooms)
    if total > spots:
        listed = ", ".join(f"{n} {k}" for k, n in counts.items() if n and k != "boss")
        raise Infeasible(
            f"line.elements asks for {total} elements ({listed}) but the rooms of {dungeon.id!r} have free paper "
            f"for about {spots} of {mean:.1f} mm (at most {MAX_FILL:.0%} of each room covered, "
            f"{paper.gap:g} mm apart); ask for fewer",
            "line.elements",
        )


def sizes_of(ruleset: Ruleset, kind: str) -> float:
    """The default size (mm) of ``kind`` in ``ruleset`` (8 when it gives none)."""
    return float(ruleset.elements.get(kind, {}).get("size_mm") or 8)


def _sizes(size: float, ruleset: Ruleset) -> list[float]:
    """The sizes (mm) an element of default ``size`` is tried at: the default, then smaller
    steps down to :data:`SMALLEST_SHARE` of it, never below ``print.min_element_mm``."""
    least = float(ruleset.print_limits.get("min_element_mm", 3.0))
    steps = [size, round(size * 0.8, 1), round(size * SMALLEST_SHARE, 1)]
    out = []
    for step in steps:
        step = max(step, least)
        if step not in out and step <= size:
            out.append(step)
    return out


def _pick(paper: _Paper, choices: list[int], radius: float, rng: random.Random) -> tuple[int, tuple] | None:
    """A random free spot for a disc of ``radius`` in one of the areas ``choices`` (weighted by
    their free candidates), or ``None``."""
    options = [(i, paper.room_for(i, radius)) for i in choices]
    options = [(i, spots) for i, spots in options if len(spots)]
    if not options:
        return None
    weights = [len(spots) ** 0.5 for _, spots in options]
    area, spots = rng.choices(options, weights)[0]
    index = int(spots[rng.randrange(len(spots))])
    return area, paper.place(area, index, radius)


def _one_try(base, dungeon, ruleset, sheet, graph, keys, depth, counts, sizes, spec, rng):
    out = copy.deepcopy(base)
    paper = _Paper(dungeon, ruleset, sheet, [])
    taken = {item["id"] for key in ("areas", "walls", "elements") for item in out[key]}
    index_of = {a.id: i for i, a in enumerate(paper.areas)}
    definitions = ruleset.elements

    def add(kind: str, area: int | list[int], spare: bool = True, **members) -> bool:
        choices = area if isinstance(area, list) else [area]
        # a line must pass these without touching them: keep paper free around them
        room = AVOID_ROOM_GAPS * paper.gap if kind in AVOIDED_KINDS and spare else 0.0
        for size in _sizes(sizes[kind], ruleset):
            found = _pick(paper, choices, size / 2 + room, rng)
            if found is not None:
                break
        else:
            return False
        element = {
            "id": _new_id(str(definitions[kind].get("id_prefix") or kind), taken),
            "kind": kind,
            "at": list(found[1]),
            "size_mm": size,
            "rotation_deg": 0,
            **members,
        }
        out["elements"].append(element)
        return True

    # the lock puzzle: keys in order, each behind the doors the keys before it open
    chain_depth = 0
    level_of = {a: 0 for a in graph.region(frozenset())}  # area -> keys needed before reaching it
    if keys:
        orders = [list(o) for o in permutations(keys)]
        rng.shuffle(orders)
        order, levels = next(((o, lv) for o in orders for d, lv in [_chain(graph, o)] if d >= depth), (None, None))
        if order is None or levels is None:
            return None
        for k, colour in enumerate(order):
            level = min(k, depth)
            while level > 0 and not levels[level]:
                level -= 1
            region = levels[level]
            # the deepest areas of the level first: a key away from where its level is entered
            far = graph.region(frozenset(order[:level]))
            ranked = sorted(region, key=lambda a: -far.get(a, 0))
            choices = [index_of[a] for a in ranked[: max(1, len(ranked) // 2 + 1)] if a in index_of]
            if not add("key", choices, colour=colour) and not add(
                "key", [index_of[a] for a in region if a in index_of], colour=colour
            ):
                return None
            chain_depth = max(chain_depth, level)
        level_of = {a: k for k, new in enumerate(levels) for a in new}
    reach = graph.region(frozenset(keys))
    areas = [index_of[a] for a in reach if a in index_of]
    rooms = [i for i in areas if paper.areas[i].kind == "room"] or areas
    room_ids = [paper.areas[i].id for i in rooms]
    with_keys = {_area_at(paper, e["at"]) for e in out["elements"] if e["kind"] in KEY_KINDS}
    free_rooms = [a for a in room_ids if a not in graph.starts and a not in with_keys]
    dead_ends = [a for a in free_rooms if len({b for b, _ in graph.links.get(a, [])}) == 1]
    # rooms with a key or a Start only when the others are taken
    rooms_in_order = free_rooms + [a for a in room_ids if a not in free_rooms]
    pairs = min(rng.randint(*spec.portal_pairs), max(spec.portal_pairs[0], len(room_ids)))
    portal_rooms = _portal_pairs(add, index_of, level_of, rooms_in_order, dead_ends, pairs, rng)
    if portal_rooms is None:
        return None
    # a room holding a portal entry holds nothing else: the line goes there only to take the portal
    areas = [i for i in areas if paper.areas[i].id not in portal_rooms]
    rooms = [i for i in rooms if paper.areas[i].id not in portal_rooms] or areas
    for _ in range(spec.skeleton_keys):
        if not add("skeleton_key", areas):
            return None
    if counts.get("boss"):
        far = sorted(rooms, key=lambda i: -reach.get(paper.areas[i].id, 0))
        if not any(add("boss", [i], vp=spec.boss_vp) for i in far):
            return None
    variants = {k: list(definitions[k].get("variants") or []) for k in ("spell", "treasure") if k in definitions}
    orb_colours = list(definitions.get("orb", {}).get("colours") or [])
    asked_orbs = [t["colour"] for t in spec.end_triggers if t["kind"] == "orb_taken"]
    orb_colours = asked_orbs + [c for c in orb_colours if c not in asked_orbs]  # a trigger's colour first
    stone = max((int(e.get("number") or 0) for e in out["elements"] if e["kind"] == "artifact_stone"), default=0)
    placed_orbs: list[str] = []
    for kind, count in counts.items():
        if kind == "boss":
            continue
        for n in range(count):
            members: dict[str, Any] = {}
            if kind in variants and variants[kind]:
                members["variant"] = variants[kind][n % len(variants[kind])]
            if kind == "orb":
                members["colour"] = orb_colours[n % len(orb_colours)]
                placed_orbs.append(members["colour"])
            if kind == "artifact_stone":
                stone += 1
                members["number"] = stone
            if not add(kind, rooms, **members):
                return None
    sheet_data = out["sheet"]
    tokens = dict(sheet_data.get("orb_tokens") or {})
    for colour in sorted(set(placed_orbs)):
        tokens.setdefault(colour, list(spec.orb_tokens.get(colour, [3, 2, 1, 0])))
    sheet_data["orb_tokens"] = tokens
    if spec.end_triggers:
        listed = list(sheet_data.get("end_triggers") or [])
        far = sorted(rooms, key=lambda i: -reach.get(paper.areas[i].id, 0))  # (in a corridor it bars the way)
        for trigger in spec.end_triggers:
            kind = {"escape_portal": "escape_portal", "exit_reached": "exit"}.get(trigger["kind"])
            if kind is not None and not any(e["kind"] == kind for e in out["elements"]):
                if not _add_far(add, kind, far, areas, reach, paper):
                    return None
            same = (trigger["kind"], trigger.get("colour"), trigger.get("when"))
            if not any((t.get("kind"), t.get("colour"), t.get("when")) == same for t in listed):
                listed.append(dict(trigger))  # (one the sheet lists already is kept as it is)
        sheet_data["end_triggers"] = listed
    elif not sheet_data.get("end_triggers"):
        if any(e["kind"] == "boss" for e in out["elements"]):
            sheet_data["end_triggers"] = [{"kind": "boss_covered"}]
        elif any(e["kind"] == "exit" for e in out["elements"]):
            sheet_data["end_triggers"] = [{"kind": "exit_reached"}]
        else:
            far = sorted(rooms, key=lambda i: -reach.get(paper.areas[i].id, 0))
            if not _add_far(add, "exit", far, areas, reach, paper):
                return None
            sheet_data["end_triggers"] = [{"kind": "exit_reached"}]
    return out, chain_depth


def _add_far(add, kind: str, far_rooms: list[int], areas: list[int], reach: dict, paper: _Paper) -> bool:
    """Place an exit or escape portal (``kind``) with ``add``: in the room farthest from the
    Start with free paper round it (``far_rooms``, farthest first), else, on crowded paper, in
    the farthest area it fits at all (a corridor included)."""
    if any(add(kind, [i]) for i in far_rooms):
        return True
    far = sorted(areas, key=lambda i: -reach.get(paper.areas[i].id, 0))
    return any(add(kind, [i], spare=False) for i in far)


def _area_at(paper: _Paper, at) -> str | None:
    """The id of the area of ``paper`` whose outline holds the point ``at``, or ``None``."""
    point = shapely.Point(at)
    return next((a.id for a, polygon in zip(paper.areas, paper.polygons) if polygon.covers(point)), None)


def _portal_pairs(
    add, index_of: dict[str, int], level_of: dict[str, int], rooms: list[str], dead_ends: list[str], pairs: int, rng
) -> set[str] | None:
    """Place ``pairs`` one-way portal pairs (RULES.md 2, Portals) with ``add``: channel ``A``,
    ``B``, ... in turn. The entry goes in one of ``rooms`` (area ids, those with no Start and no
    key first: in a corridor an entry would bar the way, as a line must not touch it in passing),
    one holding no portal yet, reached in the lock puzzle
    (``level_of``: area id -> keys needed before it), a room of ``dead_ends`` (one way in, no
    Start, no key) first: a line enters such a room only to take the portal, so it never
    touches the entry on its way elsewhere. The exit goes in another area (not a portal's room,
    nor a dead end while there are others) that needs no more keys, so a portal never takes the
    line past a door it has no key for.
    Returns the rooms holding an entry, or ``None`` when the paper has no room."""
    from inkcrawl.generate.constraints import PORTAL_CHANNELS

    placed = [a for a in level_of if a in index_of]
    used: set[str] = set()
    landed: set[str] = set()  # areas holding an exit
    for n in range(pairs):
        channel = PORTAL_CHANNELS[n]
        candidates = [a for a in rooms if a in level_of and a not in used and a not in landed]
        candidates = [a for a in candidates if any(level_of[b] <= level_of[a] and b != a for b in placed)]
        first = [a for a in candidates if a in dead_ends]
        rest = [a for a in candidates if a not in dead_ends]
        rng.shuffle(first)
        rest.sort(key=lambda a: (rooms.index(a), rng.random()))  # free rooms first, shuffled
        for entry in first + rest:
            if not add("portal_entry", [index_of[entry]], channel=channel):
                continue
            used.add(entry)
            exits = [b for b in placed if b not in used and level_of[b] <= level_of[entry]]
            exits = [b for b in exits if b not in dead_ends] or exits  # dead ends kept for entries
            rng.shuffle(exits)
            there = next((b for b in exits if add("portal_exit", [index_of[b]], channel=channel)), None)
            if there is not None:
                landed.add(there)
                break
            return None  # the entry is placed and its exit has no room: the try is dropped
        else:
            return None
    return used
