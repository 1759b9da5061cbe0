"""The constraints of ``inkcrawl generate`` (``schemas/constraints.schema.json``, documented in
docs/generating.md): reading them, filling in the ruleset's defaults, and the cheap counting
checks that explain an impossible spec before any search.

Every message names the constraint it is about as a dotted path in the constraints file
(``grid.passages.density``) and, where the ruleset is the other side of the conflict, the
ruleset's id.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from inkcrawl.rulesets import Ruleset

__all__ = [
    "DEFAULT_DENSITY",
    "DEFAULT_DIFFICULTY",
    "STEERED_DENSITY",
    "GenerateError",
    "GridSpec",
    "Infeasible",
    "LineSpec",
    "check_grid_spec",
    "grid_spec",
    "line_spec",
    "inner_edge_count",
    "outer_edge_count",
]

#: Share of inner edges that are passages when the constraints give none: each dungeon picks
#: a share in this range (with a difficulty target, the generator steers within it).
DEFAULT_DENSITY = (0.6, 0.9)
#: The density range without a density in the constraints but with a difficulty target: wide,
#: so the generator can steer the mean score from low (sparse boards, many tally marks) to high.
STEERED_DENSITY = (0.4, 1.0)
#: How a difficulty target is measured when the constraints leave a member out (RULES.md 1,
#: played by :func:`inkcrawl.simulate.simulate`).
DEFAULT_DIFFICULTY = {"policy": "greedy", "players": 2, "games": 200, "seed": 1}
#: The weapon/monster kinds that come in letter pairs (RULES.md 1, Board).
PAIR_KINDS = ("weapon", "monster")
#: Members of ``line.locks`` that count locked doors of a kind (``generate`` only, RULES.md 2,
#: Keys): doors with two locks, and skeleton-key doors (the lock ``"skeleton"``, any key opens).
LOCK_DOOR_MEMBERS = ("multi_lock_doors", "skeleton_key_doors")


class GenerateError(ValueError):
    """The constraints cannot be used or met. ``constraint`` names the constraint at fault (a
    dotted path in the constraints file, e.g. ``grid.distances.dragon_from_entryways``)."""

    def __init__(self, message: str, constraint: str = ""):
        super().__init__(message)
        self.constraint = constraint


class Infeasible(GenerateError):
    """No dungeon can meet the constraints (a counting check), or none was found within the
    search's limits (time, tries); the message names the constraints that conflict."""


@dataclass(frozen=True)
class GridSpec:
    """Resolved grid constraints: every member has its value, from the file or the ruleset.

    ``features``: unlettered kind -> count; ``pairs``: weapon/monster letter pairs;
    ``density``: ``(low, high)`` share of inner edges that are passages; ``dragon_steps`` and
    ``monster_steps``: least steps (passages crossed) of the distance rules; ``difficulty``:
    ``None`` or the resolved target (``ranges``: ``(from, to)`` pairs of ``(low, high)``
    VP, plus ``policy``, ``players``, ``games``, ``seed``)."""

    ruleset: Ruleset
    columns: int
    rows: int
    entryways: int
    features: dict[str, int]
    pairs: int
    density: tuple[float, float]
    density_given: bool
    every_room_reachable: bool
    dragon_steps: int
    monster_steps: int
    difficulty: dict[str, Any] | None

    @property
    def rooms(self) -> int:
        """Rooms on the board: ``columns x rows``."""
        return self.columns * self.rows

    @property
    def feature_total(self) -> int:
        """Features to place: the unlettered ones and two per pair."""
        return sum(self.features.values()) + 2 * self.pairs

    def score_range(self, index: int, count: int) -> tuple[float, float] | None:
        """The mean-score range (VP) dungeon ``index`` of ``count`` must meet: the curve's
        ``from`` and ``to`` interpolated linearly (the first dungeon gets ``from``, the last
        ``to``); ``None`` without a difficulty target."""
        if self.difficulty is None:
            return None
        start, end = self.difficulty["ranges"]
        t = index / (count - 1) if count > 1 else 0.0
        return (start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)


def inner_edge_count(columns: int, rows: int) -> int:
    """Edges between two rooms of a ``columns x rows`` grid."""
    return columns * (rows - 1) + rows * (columns - 1)


def outer_edge_count(columns: int, rows: int) -> int:
    """Edges on the grid's border, where entryways go."""
    return 2 * (columns + rows)


def _count_range(definition: dict) -> tuple[int, int]:
    count = definition.get("count") or {}
    return int(count.get("min", 0)), int(count.get("max", 10**9))


def _in_ruleset_range(value: int, low: int, high: int, what: str, constraint: str, ruleset: Ruleset) -> None:
    if not low <= value <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        raise Infeasible(
            f"{constraint} asks for {value} {what}; ruleset '{ruleset.id}' requires {wanted}, so the dungeon "
            f"would not validate (choose a count in that range, or a ruleset that allows it)",
            constraint,
        )


def grid_spec(constraints: dict | None, ruleset: Ruleset) -> GridSpec:
    """The :class:`GridSpec` of ``constraints`` (a schema-valid constraints document, or
    ``None`` for the ruleset's defaults) for the grid ruleset ``ruleset``.

    Defaults: the ruleset's board size, its minimum of entryways and of each feature kind,
    density :data:`DEFAULT_DENSITY`, every room reachable, no distance rule, no difficulty
    target (:data:`DEFAULT_DIFFICULTY` fills the target's missing members). Raises
    :class:`GenerateError` for a feature kind the ruleset lacks or a policy that does not
    exist, and :class:`Infeasible` for counts outside the ruleset's ranges (a dungeon with them
    would not validate: RULES.md 1, rule checks G001 and G007)."""
    from inkcrawl.suggest import did_you_mean

    if ruleset.family != "grid":
        raise GenerateError(f"ruleset '{ruleset.id}' is for the {ruleset.family} family, not grid", "ruleset")
    section = dict((constraints or {}).get("grid") or {})
    board = ruleset.data.get("board", {})
    columns = int(section.get("columns", board.get("columns", 7)))
    rows = int(section.get("rows", board.get("rows", 7)))
    low, high = _count_range(ruleset.data.get("entryways", {}))
    entryways = int(section.get("entryways", low))
    _in_ruleset_range(entryways, low, high, "entryways", "grid.entryways", ruleset)

    asked = dict(section.get("features") or {})
    elements = ruleset.elements
    unlettered = [kind for kind, spec in elements.items() if not spec.get("letters")]
    lettered = [kind for kind, spec in elements.items() if spec.get("letters")]
    for kind in asked:
        if kind != "pairs" and kind not in unlettered:
            hint = did_you_mean(kind, [*unlettered, "pairs"])
            also = " (weapons and monsters are counted in 'pairs')" if kind in lettered else ""
            raise GenerateError(
                f"grid.features.{kind}: ruleset '{ruleset.id}' has no unlettered feature kind '{kind}'{hint}{also}; "
                f"the kinds are {', '.join([*unlettered, 'pairs'])}",
                f"grid.features.{kind}",
            )
    features: dict[str, int] = {}
    for kind in unlettered:
        low, high = _count_range(elements[kind])
        features[kind] = int(asked.get(kind, low))
        _in_ruleset_range(features[kind], low, high, kind, f"grid.features.{kind}", ruleset)
    pairs = 0
    if all(kind in elements for kind in PAIR_KINDS):
        ranges = [_count_range(elements[kind]) for kind in PAIR_KINDS]
        low, high = max(r[0] for r in ranges), min(r[1] for r in ranges)
        pairs = int(asked.get("pairs", low))
        _in_ruleset_range(pairs, low, high, "weapon/monster pairs", "grid.features.pairs", ruleset)
    elif asked.get("pairs"):
        raise GenerateError(f"ruleset '{ruleset.id}' has no weapon and monster kinds", "grid.features.pairs")

    passages = section.get("passages") or {}
    given = passages.get("density")
    if given is None:
        density = DEFAULT_DENSITY if section.get("difficulty") is None else STEERED_DENSITY
    elif isinstance(given, (int, float)):
        density = (float(given), float(given))
    else:
        density = (float(given[0]), float(given[1]))
    if density[0] > density[1]:
        raise Infeasible(
            f"grid.passages.density [{density[0]:g}, {density[1]:g}]: the low end is above the high end",
            "grid.passages.density",
        )
    distances = section.get("distances") or {}
    difficulty = None
    if section.get("difficulty") is not None:
        difficulty = _difficulty(section["difficulty"], ruleset)
    return GridSpec(
        ruleset=ruleset,
        columns=columns,
        rows=rows,
        entryways=entryways,
        features=features,
        pairs=pairs,
        density=density,
        density_given=given is not None,
        every_room_reachable=bool(passages.get("every_room_reachable", True)),
        dragon_steps=int(distances.get("dragon_from_entryways", 0)),
        monster_steps=int(distances.get("monster_from_weapon", 0)),
        difficulty=difficulty,
    )


def _difficulty(section: dict, ruleset: Ruleset) -> dict[str, Any]:
    from inkcrawl.engines.grid_policies import policy_names
    from inkcrawl.suggest import expected

    resolved = {**DEFAULT_DIFFICULTY, **{k: v for k, v in section.items() if k != "mean_score"}}
    score = section["mean_score"]
    ranges = (tuple(score["from"]), tuple(score["to"])) if isinstance(score, dict) else (tuple(score), tuple(score))
    for end, (low, high) in zip(("from", "to"), ranges):
        if not (math.isfinite(low) and math.isfinite(high)) or low > high:
            where = "grid.difficulty.mean_score" + (f".{end}" if isinstance(score, dict) else "")
            raise Infeasible(f"{where} [{low:g}, {high:g}]: the low end is above the high end", where)
    resolved["ranges"] = ranges
    names = policy_names()
    if resolved["policy"] not in names:
        raise GenerateError(
            f"grid.difficulty.policy: no policy '{resolved['policy']}' ({expected(resolved['policy'], names)})",
            "grid.difficulty.policy",
        )
    players = ruleset.data.get("players", {})
    if not int(players.get("min", 1)) <= resolved["players"] <= int(players.get("max", 8)):
        raise Infeasible(
            f"grid.difficulty.players is {resolved['players']}; ruleset '{ruleset.id}' is played by "
            f"{players.get('min', 1)} to {players.get('max', 8)} players",
            "grid.difficulty.players",
        )
    return resolved


def _cell_size(spec: GridSpec) -> float:
    from inkcrawl.templates import template_data

    return float(template_data(spec.ruleset, size=(spec.columns, spec.rows))["grid"]["cell_mm"])


def best_possible_score(spec: GridSpec) -> float:
    """An upper bound on one player's score (VP) in a dungeon of ``spec``: every loot bag, the
    dragon's doubling of a loot bag, every weapon and matched monster, every entryway unlinked
    (RULES.md 1, Scoring); no tally or trap."""
    elements = spec.ruleset.elements
    loot_vp = float(elements.get("loot", {}).get("vp", 2))
    total = sum(float(elements[kind].get("vp", 0)) * count for kind, count in spec.features.items())
    if spec.features.get("dragon", 0):
        total += max(loot_vp, 0.0)
    total += spec.pairs * (
        float(elements.get("weapon", {}).get("vp", 1)) + float(elements.get("monster", {}).get("vp", 4))
    )
    total += spec.entryways * float(spec.ruleset.data.get("entryways", {}).get("unlinked_vp", 1))
    return total


def check_grid_spec(spec: GridSpec, count: int = 2) -> None:
    """The counting checks run before any search (each in microseconds): raises
    :class:`Infeasible` naming the constraints that conflict when no dungeon can meet
    ``spec``:

    - rooms too small to print (the ruleset's ``print.min_cell_mm``) for the grid size;
    - more entryways than outer edges;
    - more features than rooms; too few featureless rooms for the deck's traps (G012);
    - more pairs than the ruleset has letters;
    - a density giving fewer passages than every room needs (each room a passage or an
      entryway, and with ``every_room_reachable`` a forest joining every room to one);
    - a distance rule of more steps than the passages or the rooms allow, or (all inner edges
      passages) than the grid's diameter, ``columns + rows - 2``;
    - a difficulty range above the best possible score (:func:`best_possible_score`): for a
      pack of ``count`` dungeons both ends of a curve, for one dungeon its ``from`` alone.
    """
    ruleset = spec.ruleset
    size = f"{spec.columns}x{spec.rows}"
    minimum = float(ruleset.print_limits.get("min_cell_mm", 0))
    cell = _cell_size(spec)
    if cell < minimum:
        raise Infeasible(
            f"grid.columns/grid.rows: a {size} grid fits A4 only with rooms of {cell:g} mm, under ruleset "
            f"'{ruleset.id}''s printable minimum of {minimum:g} mm (print.min_cell_mm); use a smaller grid",
            "grid.columns",
        )
    outer = outer_edge_count(spec.columns, spec.rows)
    if spec.entryways > outer:
        raise Infeasible(
            f"grid.entryways asks for {spec.entryways} entryways; a {size} grid has only {outer} outer edges",
            "grid.entryways",
        )
    rooms = spec.rooms
    if spec.feature_total > rooms:
        listed = ", ".join(f"{count} {kind}" for kind, count in spec.features.items() if count)
        raise Infeasible(
            f"grid.features asks for {spec.feature_total} features ({listed}, {spec.pairs} pairs = "
            f"{2 * spec.pairs} weapons and monsters) but a {size} grid (grid.columns x grid.rows) has only "
            f"{rooms} rooms, one feature a room",
            "grid.features",
        )
    traps = int(ruleset.deck.get("trap", 0))
    if traps > rooms - spec.feature_total:
        raise Infeasible(
            f"grid.features leaves {rooms - spec.feature_total} of the {rooms} rooms without a feature; the deck of "
            f"ruleset '{ruleset.id}' has {traps} traps, each needing an empty room (rule G012)",
            "grid.features",
        )
    letters = min((len(ruleset.elements[k].get("letters", "")) for k in PAIR_KINDS if k in ruleset.elements), default=0)
    if spec.pairs > letters:
        raise Infeasible(
            f"grid.features.pairs asks for {spec.pairs} weapon/monster pairs; ruleset '{ruleset.id}' has only "
            f"{letters} letters",
            "grid.features.pairs",
        )
    inner = inner_edge_count(spec.columns, spec.rows)
    most = round(spec.density[1] * inner)
    entry_rooms = min(spec.entryways, rooms)
    if spec.every_room_reachable:
        need, why = rooms - entry_rooms, "every room reachable (grid.passages.every_room_reachable) needs"
    else:
        need, why = math.ceil((rooms - entry_rooms) / 2), "a passage into every room without an entryway needs"
    if spec.entryways == 0 and rooms:
        raise Infeasible(
            "grid.entryways is 0: with no entryway no path can start, so no room can be reached", "grid.entryways"
        )
    if most < need:
        raise Infeasible(
            f"grid.passages.density {spec.density[1]:g} gives at most {most} passages on the {inner} inner edges; "
            f"{why} at least {need} with {spec.entryways} entryways",
            "grid.passages.density",
        )
    diameter = spec.columns + spec.rows - 2
    for steps, name, what in (
        (spec.dragon_steps, "grid.distances.dragon_from_entryways", "the dragon from every entryway"),
        (spec.monster_steps, "grid.distances.monster_from_weapon", "each monster from its weapon"),
    ):
        if not steps or (name.endswith("dragon_from_entryways") and not spec.features.get("dragon")):
            continue
        if name.endswith("monster_from_weapon") and not spec.pairs:
            continue
        if steps > rooms - 1:
            raise Infeasible(
                f"{name} asks for {what} at least {steps} steps; no path in a {size} grid is longer than "
                f"{rooms - 1} steps",
                name,
            )
        if steps > most:
            raise Infeasible(
                f"{name} asks for {what} at least {steps} steps, but grid.passages.density {spec.density[1]:g} "
                f"allows only {most} passages",
                name,
            )
        if spec.density[0] >= 1.0 and steps > diameter:
            raise Infeasible(
                f"{name} asks for {what} at least {steps} steps; with every inner edge a passage "
                f"(grid.passages.density 1) the longest shortest path is the grid's diameter, {diameter} steps",
                name,
            )
    if spec.difficulty is not None:
        best = best_possible_score(spec)
        ranges = spec.difficulty["ranges"]
        ends = list(zip(("from", "to"), ranges))[: 1 if count == 1 else 2]  # one dungeon meets 'from' alone
        for end, (low, _high) in ends:
            named = f" ({end})" if ranges[0] != ranges[1] else ""
            if low > best:
                raise Infeasible(
                    f"grid.difficulty.mean_score asks for a mean of at least {low:g}{named}; no player can score "
                    f"more than {best:g} with grid.features and grid.entryways as they are",
                    "grid.difficulty.mean_score",
                )


#: The scoring kinds ``inkcrawl populate`` places (RULES.md 2, Elements), in placing order.
LINE_SCORING_KINDS = ("boss", "monster", "plant", "prisoner", "treasure", "spell", "artifact_stone", "orb")
#: Default orb token stacks (VP, top first) for orb colours the constraints give none for.
DEFAULT_ORB_TOKENS = {"blue": [4, 3, 2, 1], "pink": [5, 3, 1, 0]}
#: Defaults of the layout members of ``inkcrawl generate --family line``: rooms, corridor
#: width (mm), the chance of a loop between neighbouring rooms, locked doors.
DEFAULT_ROOMS = (5, 8)
DEFAULT_CORRIDOR_MM = 12.0
DEFAULT_LOOPS = 0.25
DEFAULT_LOCKED_DOORS = (0, 3)
#: Default boss VP printed on the sheet.
DEFAULT_BOSS_VP = 5
#: Default length (s) of a timer end trigger asked without ``seconds``: long enough for a
#: careful route on an A4 sheet at par's drawing speed (``inkcrawl par --speed``, 50 mm/s).
DEFAULT_TIMER_S = 180
#: Default ``when`` of an ``orb_taken`` end trigger: the colour's last token taken.
DEFAULT_ORB_WHEN = "last"
#: Portal channels in the order pairs take them (RULES.md 2: a colour or letter pairs them).
PORTAL_CHANNELS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
#: Default counts per room of the layout, ``(low, high)`` per room: the count is this share of
#: the rooms, rounded down for the low end and up for the high end, at least one monster
#: (``artifact_stone`` and ``orb``: fixed counts when there are rooms enough, from none up to
#: them with a par target, :meth:`LineSpec.count_range`).
DEFAULT_PER_ROOM = {
    "monster": (0.3, 0.5),
    "plant": (0.2, 0.35),
    "prisoner": (0.1, 0.25),
    "treasure": (0.1, 0.25),
    "spell": (0.1, 0.25),
}


#: The paper's margin (mm) and the edges of the region the rooms are drawn in: this far from the
#: paper's left, top, right and bottom edges (below the title, above the footer and legend).
MARGIN_MM = 10
REGION_EDGES_MM = (20.0, 35.0, 20.0, 72.0)
#: The size a slot aims at, width x height in mm (A4's region cut 3 x 4); a room per chosen slot.
SLOT_MM = (170 / 3, 47.5)


@dataclass(frozen=True)
class LayoutSheet:
    """The paper a layout is drawn for: its ``name`` (``inkcrawl.papers.PAPER_SIZES``), size
    (mm, portrait), the ``region`` ``(x0, y0, x1, y1)`` (mm) the rooms go in and the ``columns``
    x ``rows`` slots it is cut into."""

    name: str
    width: float
    height: float
    region: tuple[float, float, float, float]
    columns: int
    rows: int

    @property
    def label(self) -> str:
        """The paper's name as printed: ``A4``, ``Letter``."""
        return self.name.upper() if len(self.name) == 2 else self.name.capitalize()

    @property
    def slots(self) -> int:
        return self.columns * self.rows

    def slot(self, c: int, r: int) -> tuple[float, float, float, float]:
        """Slot ``(c, r)``'s box ``(x0, y0, x1, y1)`` in mm."""
        x0, y0, x1, y1 = self.region
        w, h = (x1 - x0) / self.columns, (y1 - y0) / self.rows
        return x0 + c * w, y0 + r * h, x0 + (c + 1) * w, y0 + (r + 1) * h


def sheet_for(spec: LineSpec) -> LayoutSheet:
    """The :class:`LayoutSheet` of ``spec.paper``: the region :data:`REGION_EDGES_MM` in from the
    paper's edges, cut into slots as near :data:`SLOT_MM` as whole numbers of them allow."""
    return paper_sheet(spec.paper)


def paper_sheet(paper: str) -> LayoutSheet:
    """:func:`sheet_for` of a paper name (``inkcrawl.papers.PAPER_SIZES``)."""
    from inkcrawl.papers import PAPER_SIZES

    width, height = PAPER_SIZES[paper]
    left, top, right, bottom = REGION_EDGES_MM
    region = (left, top, width - right, height - bottom)
    columns = max(1, round((region[2] - region[0]) / SLOT_MM[0]))
    rows = max(1, round((region[3] - region[1]) / SLOT_MM[1]))
    return LayoutSheet(paper, float(width), float(height), region, columns, rows)


@dataclass(frozen=True)
class LineSpec:
    """Resolved ``line`` constraints for ``inkcrawl populate`` (RULES.md 2).

    ``elements``: kind -> ``(low, high)`` count asked (kinds left out take defaults from the
    layout's number of rooms, :data:`DEFAULT_PER_ROOM`); ``boss_vp`` (VP); ``orb_tokens``:
    colour -> token values top first; ``depth``: the longest chain of keys behind doors
    (``None``: the deepest the doors allow, at most 2); ``skeleton_keys``; ``replace_keys``:
    the layout's keys are replaced by the lock puzzle; ``par_range``: ``(low, high)`` VP or
    ``None`` (a pack's curve: ``par_curve``, ``(from, to)`` ranges, :meth:`for_index` gives each
    dungeon its range); ``players``: the player count par and the key supply use. For ``generate`` only:
    ``rooms`` and ``locked_doors`` ``(low, high)``, ``corridor_mm`` (corridor width, mm) and
    ``loops`` (the chance that two neighbouring rooms the spanning tree leaves apart are joined),
    ``multi_lock_doors`` ``(low, high)`` (locked doors with two locks), ``skeleton_key_doors``
    ``(low, high)`` (locked doors with the one lock ``"skeleton"`` that any key opens),
    ``corridors`` ``(low, high)`` or ``None`` (the spanning tree and ``loops``); ``starts``
    ``(low, high)`` or ``None`` (a Start only when the layout has none). ``portal_pairs``:
    ``(low, high)`` one-way portal pairs to add; ``end_triggers``: the triggers the sheet must
    list, resolved (timer ``seconds``, orb ``when`` filled in), empty for the default; ``paper``:
    the named paper size the layout is drawn for (``a4``, ``letter``...:
    :data:`inkcrawl.papers.PAPER_SIZES`)."""

    ruleset: Ruleset
    elements: dict[str, tuple[int, int]]
    boss_vp: int
    orb_tokens: dict[str, list[int]]
    depth: int | None
    skeleton_keys: int
    replace_keys: bool
    par_range: tuple[float, float] | None
    players: int
    rooms: tuple[int, int] = DEFAULT_ROOMS
    corridor_mm: float = DEFAULT_CORRIDOR_MM
    loops: float = DEFAULT_LOOPS
    locked_doors: tuple[int, int] = DEFAULT_LOCKED_DOORS
    multi_lock_doors: tuple[int, int] = (0, 0)
    skeleton_key_doors: tuple[int, int] = (0, 0)
    corridors: tuple[int, int] | None = None
    starts: tuple[int, int] | None = None
    portal_pairs: tuple[int, int] = (0, 0)
    end_triggers: tuple[dict, ...] = ()
    par_curve: tuple[tuple[float, float], tuple[float, float]] | None = None
    paper: str = "a4"

    def for_index(self, index: int, count: int) -> LineSpec:
        """The spec of dungeon ``index`` of a pack of ``count``: with a par curve its
        :attr:`par_range` is the curve's ``from`` and ``to`` interpolated linearly (the first
        dungeon gets ``from``, the last ``to``), as :meth:`GridSpec.score_range` does; else
        this spec."""
        if self.par_curve is None:
            return self
        start, end = self.par_curve
        t = index / (count - 1) if count > 1 else 0.0
        par = (start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)
        return replace(self, par_range=par)

    def trigger_kinds(self) -> set[str]:
        """The kinds of :attr:`end_triggers`."""
        return {str(t["kind"]) for t in self.end_triggers}

    def count_range(self, kind: str, rooms: int) -> tuple[int, int]:
        """``(low, high)`` of ``kind`` for a layout of ``rooms`` rooms: the count ``line.elements``
        asks, else the default. With a par target, the default artifact stones and orbs may be
        left out (low end 0), so a low target can be met on a small layout (their VP alone is
        about half of a 10-14 VP target)."""
        if kind in self.elements:
            return self.elements[kind]
        if kind == "boss":
            return (1, 1) if rooms else (0, 0)
        optional = self.par_range is not None or self.par_curve is not None
        if kind == "artifact_stone":
            return (0 if optional else 3, 3) if rooms >= 4 else (0, 0)
        if kind == "orb":
            return (0 if optional else 2, 2) if rooms >= 3 else (0, 0)
        low, high = DEFAULT_PER_ROOM.get(kind, (0.0, 0.0))
        least = 1 if kind == "monster" and rooms else 0  # something to score on the smallest layout
        return max(least, math.floor(low * rooms)), max(least, math.ceil(high * rooms))

    def counts(self, rooms: int, level: float = 0.5, high: bool = False, rng=None) -> dict[str, int]:
        """A count per scoring kind: at ``level`` (0 the low end, 1 the high end) of each range,
        with a random step of one from ``rng``; artifact stones in whole groups of 3."""
        out = {}
        for kind in LINE_SCORING_KINDS:
            if kind not in self.ruleset.elements:
                continue
            low, top = self.count_range(kind, rooms)
            if high:
                value = top
            else:
                wobble = (rng.random() - 0.5) if rng is not None else 0.0
                value = min(top, max(low, round(low + (top - low) * level + wobble)))
            if kind == "artifact_stone":
                group = int(self.ruleset.switches.get("artifact_group_size", 3))
                value -= value % group
            out[kind] = int(value)
        return out

    def best_par(self, counts: dict[str, int], dungeon) -> float:
        """An upper bound (VP) of par with ``counts`` added to ``dungeon``'s own elements: every
        element's VP, the boss's, the best orb tokens, one VP per artifact group."""
        elements = self.ruleset.elements
        total = 0.0
        for kind, count in counts.items():
            if kind == "boss":
                total += max(0, self.boss_vp) * count
            elif kind == "orb":
                stacks = sorted((v for stack in self.orb_tokens.values() for v in stack if v > 0), reverse=True)
                total += sum(stacks[:count])
            elif kind == "artifact_stone":
                total += count // int(self.ruleset.switches.get("artifact_group_size", 3))
            else:
                total += max(0.0, float(elements[kind].get("vp") or 0)) * count
        for element in dungeon.elements:
            if element.kind == "boss":
                total += max(0, element.vp or 0)
            elif element.kind in elements and element.kind not in ("orb", "artifact_stone"):
                total += max(0.0, float(elements[element.kind].get("vp") or 0))
        return total


def line_spec(constraints: dict | None, ruleset: Ruleset) -> LineSpec:
    """The :class:`LineSpec` of ``constraints`` (schema-valid, or ``None`` for the defaults) for
    the line ruleset ``ruleset``. Raises :class:`GenerateError` for a kind the ruleset lacks, and
    :class:`Infeasible` for a range whose low end is above its high end, artifact stones not in
    whole groups, a player count the ruleset does not allow, more portal pairs than
    :data:`PORTAL_CHANNELS` or an end trigger whose element ``line.elements`` rules out; a
    ``timer`` trigger without ``seconds`` gets :data:`DEFAULT_TIMER_S`, an ``orb_taken`` one
    without ``when`` :data:`DEFAULT_ORB_WHEN`, and ``line.locked_doors`` left out holds the key
    chain, the two-lock doors and the skeleton-key doors asked (RULES.md 2, Keys)."""
    from inkcrawl.suggest import did_you_mean

    if ruleset.family != "line":
        raise GenerateError(f"ruleset '{ruleset.id}' is for the {ruleset.family} family, not line", "ruleset")
    section = dict((constraints or {}).get("line") or {})
    kinds = [k for k in LINE_SCORING_KINDS if k in ruleset.elements]
    elements: dict[str, tuple[int, int]] = {}
    for kind, value in (section.get("elements") or {}).items():
        where = f"line.elements.{kind}"
        if kind not in kinds:
            raise GenerateError(
                f"{where}: ruleset '{ruleset.id}' has no scoring kind '{kind}'{did_you_mean(kind, kinds)}; "
                f"the kinds are {', '.join(kinds)}",
                where,
            )
        low, high = (int(value), int(value)) if isinstance(value, int) else (int(value[0]), int(value[1]))
        if low > high:
            raise Infeasible(f"{where} [{low}, {high}]: the low end is above the high end", where)
        if kind == "boss" and high > 1:
            raise Infeasible(f"{where} asks for {high} bosses; a sheet has at most one", where)
        group = int(ruleset.switches.get("artifact_group_size", 3))
        if kind == "artifact_stone" and (low % group or high % group):
            raise Infeasible(
                f"{where} [{low}, {high}]: stones score in groups of {group} (artifact_group_size of ruleset "
                f"'{ruleset.id}'); ask for a multiple of {group}",
                where,
            )
        elements[kind] = (low, high)
    tokens = {**DEFAULT_ORB_TOKENS, **{k: list(v) for k, v in (section.get("orb_tokens") or {}).items()}}
    known = list(ruleset.elements.get("orb", {}).get("colours") or [])
    for colour in section.get("orb_tokens") or {}:
        if colour not in known:
            raise GenerateError(
                f"line.orb_tokens.{colour}: ruleset '{ruleset.id}' has no orb colour '{colour}'"
                f"{did_you_mean(colour, known)}",
                f"line.orb_tokens.{colour}",
            )
    locks = section.get("locks") or {}
    difficulty = section.get("difficulty") or {}
    par_range = None
    par_curve = None
    if "par" in difficulty:
        given = difficulty["par"]
        ends = [given["from"], given["to"]] if isinstance(given, dict) else [given]
        for end, name in zip(ends, ("from", "to") if isinstance(given, dict) else ("",)):
            if float(end[0]) > float(end[1]):
                where = f"line.difficulty.par{'.' + name if name else ''}"
                raise Infeasible(f"{where} [{end[0]:g}, {end[1]:g}]: the low end is above the high end", where)
        start = (float(ends[0][0]), float(ends[0][1]))
        par_range = start
        if isinstance(given, dict):
            par_curve = (start, (float(ends[1][0]), float(ends[1][1])))
    players = int(difficulty.get("players", 1))
    allowed = ruleset.data.get("players", {})
    if not int(allowed.get("min", 1)) <= players <= int(allowed.get("max", 4)):
        raise Infeasible(
            f"line.difficulty.players is {players}; ruleset '{ruleset.id}' is played by "
            f"{allowed.get('min', 1)} to {allowed.get('max', 4)} players",
            "line.difficulty.players",
        )
    layout: dict[str, Any] = {}
    members = {**section, **{m: locks[m] for m in LOCK_DOOR_MEMBERS if m in locks}}
    for member, least in (
        ("rooms", 1),
        ("locked_doors", 0),
        ("portal_pairs", 0),
        ("multi_lock_doors", 0),
        ("skeleton_key_doors", 0),
        ("corridors", 0),
        ("starts", 1),
    ):
        if member in members:
            value = members[member]
            pair = (int(value), int(value)) if isinstance(value, int) else (int(value[0]), int(value[1]))
            where = f"line.locks.{member}" if member in LOCK_DOOR_MEMBERS else f"line.{member}"
            if pair[0] > pair[1]:
                raise Infeasible(f"{where} {list(pair)}: the low end is above the high end", where)
            if pair[1] < least:
                raise Infeasible(f"{where} asks for fewer than {least}", where)
            layout[member] = pair
    if layout.get("portal_pairs", (0, 0))[0] > len(PORTAL_CHANNELS):
        raise Infeasible(
            f"line.portal_pairs asks for {layout['portal_pairs'][0]} portal pairs; there are {len(PORTAL_CHANNELS)} "
            "channels (A to Z), one a pair",
            "line.portal_pairs",
        )
    elements, triggers = _end_triggers(section, elements, ruleset)
    layout["end_triggers"] = triggers
    depth = None if locks.get("depth") is None else int(locks["depth"])
    if "locked_doors" not in layout:  # the default holds the chain, the two-lock and skeleton-key doors asked
        need = max(depth + 1 if depth else 0, layout.get("multi_lock_doors", (0, 0))[0] + (1 if depth else 0))
        need += layout.get("skeleton_key_doors", (0, 0))[0]
        layout["locked_doors"] = (max(DEFAULT_LOCKED_DOORS[0], need), max(DEFAULT_LOCKED_DOORS[1], need))
    if "corridor_width_mm" in section:
        width = float(section["corridor_width_mm"])
        least_width = max(
            float(ruleset.print_limits.get("min_gap_mm", 2.0)), float(ruleset.data.get("pen_width_mm", 1))
        )
        if width < 3 * least_width:
            raise Infeasible(
                f"line.corridor_width_mm {width:g} leaves no room for elements: corridors of ruleset "
                f"'{ruleset.id}' need at least {3 * least_width:g} mm (three times its widest gap or pen)",
                "line.corridor_width_mm",
            )
        layout["corridor_mm"] = width
    if "loops" in section:
        layout["loops"] = float(section["loops"])
    if "paper" in section:
        layout["paper"] = str(section["paper"]).lower()
    if "rooms" not in layout:  # the default, as many as the paper holds
        slots = paper_sheet(layout.get("paper", "a4")).slots
        layout["rooms"] = (min(DEFAULT_ROOMS[0], slots), min(DEFAULT_ROOMS[1], slots))
    return LineSpec(
        **layout,
        ruleset=ruleset,
        elements=elements,
        boss_vp=int(section.get("boss_vp", DEFAULT_BOSS_VP)),
        orb_tokens=tokens,
        depth=depth,
        skeleton_keys=int(locks.get("skeleton_keys", 0)),
        replace_keys=bool(locks.get("replace_keys", True)),
        par_range=par_range,
        par_curve=par_curve,
        players=players,
    )


def _end_triggers(
    section: dict, elements: dict[str, tuple[int, int]], ruleset: Ruleset
) -> tuple[dict[str, tuple[int, int]], tuple[dict, ...]]:
    """``line.end_triggers`` resolved (timer ``seconds`` and orb ``when`` filled in) and the
    element counts they need: a boss for ``boss_covered``, an orb of the colour for
    ``orb_taken``. Raises :class:`GenerateError` for an orb colour the ruleset lacks and a
    trigger listed twice, :class:`Infeasible` for a trigger whose element ``line.elements``
    rules out (RULES.md 2, end triggers)."""
    from inkcrawl.suggest import did_you_mean

    elements = dict(elements)
    resolved: list[dict] = []
    seen: set[tuple] = set()
    for n, trigger in enumerate(section.get("end_triggers") or []):
        where = f"line.end_triggers[{n}]"
        kind = trigger["kind"]
        item: dict[str, Any] = {"kind": kind}
        if kind == "timer":
            item["seconds"] = int(trigger.get("seconds", DEFAULT_TIMER_S))
        if kind == "orb_taken":
            colour = trigger["colour"]
            known = list(ruleset.elements.get("orb", {}).get("colours") or [])
            if colour not in known:
                raise GenerateError(
                    f"{where}: ruleset '{ruleset.id}' has no orb colour '{colour}'{did_you_mean(colour, known)}", where
                )
            item.update(colour=colour, when=trigger.get("when", DEFAULT_ORB_WHEN))
        key = (kind, item.get("colour"), item.get("when"))
        if key in seen or (kind == "timer" and any(k[0] == "timer" for k in seen)):
            raise GenerateError(f"{where}: end trigger {kind} is listed twice", where)
        seen.add(key)
        needs = {"boss_covered": "boss", "orb_taken": "orb"}.get(kind)
        if needs is not None:
            if needs not in ruleset.elements:
                raise GenerateError(f"{where}: ruleset '{ruleset.id}' has no {needs} kind", where)
            low, high = elements.get(needs, (1, 1) if needs == "boss" else (1, 2))
            if high < 1:
                raise Infeasible(
                    f"{where} ({kind}) needs a {needs}, and line.elements.{needs} asks for none; "
                    f"ask for at least one or drop the trigger",
                    where,
                )
            elements[needs] = (max(1, low), high)
        resolved.append(item)
    return elements, tuple(resolved)
