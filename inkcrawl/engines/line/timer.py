"""Par under the sheet's timer: an upper bound on the VP any line within the timer can score, from
a lower bound on the length of line that a set of elements needs, and the element orders that
reach it (the candidates :func:`inkcrawl.engines.line.par.par` draws and re-scores).

**The way between elements** (:class:`LengthBound`). To complete an element the line's centre
must come into the element's *reach*: its printed ink, footprint, head and traces grown by half
the pen width (``w/2``: touch, cover, connect in order), and for a traced element by a further
``trace_pen_widths * w`` (RULES.md 2, Gaps and defaults; the referee's tolerances,
:mod:`inkcrawl.engines.line`); a line begins in a Start's reach (its radius plus ``w/2``) and
resumes after a portal jump in an exit's. Order the elements a line completes by the moment it
first comes into their reach: between two consecutive first visits the line runs from a point of
one reach to a point of the next, so its length is at least the sum, along that order, of a lower
bound ``D`` of the distance between two reaches. ``D`` is:

* at least the straight distance between the two reaches (any curve is at least as long);
* for two reaches whose convex hulls no wall's centre line meets, at least the geodesic
  distance between their centres less both radii: a line that crosses no wall's centre line
  goes round the walls, and the shortest such path between two points bends only at the free
  ends and reflex corners of the walls' centre lines (the visibility graph of those points,
  exact for segment obstacles; round a joint of walls the graph bends a hair's breadth off it,
  with that breadth taken off the edge, so the distance is never longer). From a reach's centre
  every point of the reach is in straight sight (the hull meets no wall), so the geodesic from
  centre to centre is at most radius + line + radius;
* a portal jump costs nothing: the distances are closed over zero-length steps from a portal
  entry's reach to each exit of its channel (one way, as the jump goes; an entry may be used
  again: a relaxation), so ``D`` is a directed shortest-path distance (it obeys the triangle
  inequality, ``D[a, c] <= D[a, b] + D[b, c]``).

Doors are left open and keys are not needed (the bound only gets larger), narrow channels and
gaps are passable, and the pen may leave the dungeon: every relaxation lowers ``D``, so ``D``
stays a lower bound. The drawing step's routes cross no wall (they run in the free paper), nor
does any route of par's search. A line that crosses a wall and comes back (``wall_crossing_vp``
per crossing, RULES.md 2, Drawing rules 2) may be shorter: :func:`timer_bound` also bounds lines
that may cross every wall (straight distances) and takes the larger of the two bounds, that one
less one crossing's cost.

**The paper covering sweeps** (:func:`cover_weights`). A second lower bound holds for the whole
line: covering asks for lattice cells of the elements' ink under the stroke, all within
``w/2 + s * sqrt(2)`` of the line, and a connected line ``L`` mm long has no more paper than
``2 r L + pi r^2`` within ``r`` of it (one polyline from the Start and one after each portal
entry, each used at most once, as par's search uses them). A third bound (:class:`_Inside`) adds
the two: the way between the elements' reaches grown by a margin (a spanning tree over the
Start and the elements, as the pieces of line between them join them all) plus the line inside
the grown reaches (at least the margin in and out again, and what the covered cells ask). The
line is at least as long as the largest of the three. None counts the length an element's own
stroke takes beyond that (the rows the drawing step lays over a monster overlap, a traced
outline is long): the bound is loose where covering and tracing take much of the line.

**The VP a set of elements can score** (:func:`timer_bound`): an orienteering search (a
depth-first branch and bound over element orders from a Start) finds the best value of a set of
elements whose order fits the length. A set's value is optimistic: every element's positive VP
for this player (the character's), per orb colour the best sum of the first tokens, +1 for each
artifact triple whose three stones are in the set (in any order) and the untouched value of a
triple when it is positive; penalties, end triggers and the room rules are left out (they only
lower a score). A state is pruned when the value of all elements still within reach of it (by
``D`` from where the line is, within the length left) cannot beat the best found, or when the same
set was reached at the same element with less length. Past a budget of states or seconds the
remaining states count by that optimistic value: the bound stays sound, only looser.

Units: lengths in sheet mm; VP.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString

from inkcrawl.engines.line.areas import AreaModel
from inkcrawl.engines.line.rules import Element, LineRules, _densify

#: States the timer's branch and bound visits, and the seconds it may take, before the states
#: left count by their optimistic value (the bound stays an upper bound, a looser one).
TIMER_STATES = 200_000
TIMER_BUDGET_S = 3.0
#: How many of the best element orders the search keeps for drawing.
TIMER_ORDERS = 3
#: Slack (mm) added to every reach: rounding in the geometry never makes the bound too long.
_SLACK_MM = 1e-3
#: Interactions whose elements score VP when completed (besides orbs and artifact stones).
_VALUED = ("cover", "trace", "pass_through", "touch")


@dataclass
class Reach:
    """Where a line's centre must come: the ``base`` geometry grown by ``tol`` mm; ``centre``
    and ``radius`` (mm) hold it in a disc; ``clear``: no wall's centre line meets its hull."""

    name: str
    base: Any  # a shapely geometry
    tol: float
    centre: np.ndarray
    radius: float
    clear: bool


def element_reach(rules: LineRules, element: Element, walls: _Walls | None = None) -> Reach | None:
    """The reach of ``element`` (see the module docstring), or ``None`` when it has no geometry."""
    w = rules.pen_width_mm
    parts = [g for g in (element.ink, element.footprint, element.head) if g is not None]
    parts += [LineString(t) for t in element.traces if len(t) >= 2]
    if not parts:
        return None
    extra = element.trace_pen_widths * w if element.interaction == "trace" else 0.0
    return _reach(rules, element.id, shapely.union_all(parts), w / 2 + extra + _SLACK_MM, walls)


def start_reach(rules: LineRules, start: dict, walls: _Walls | None = None) -> Reach:
    """A Start's reach: its radius plus ``w/2`` around its point."""
    tol = start["radius"] + rules.pen_width_mm / 2 + _SLACK_MM
    return _reach(rules, start["id"], shapely.Point(start["at"]), tol, walls)


def _reach(rules: LineRules, name: str, base, tol: float, walls: _Walls | None) -> Reach:
    coords = shapely.get_coordinates(base)
    centre = np.asarray(base.centroid.coords[0], dtype=float) if not base.is_empty else coords.mean(axis=0)
    radius = float(np.max(np.hypot(*(coords - centre).T))) + tol
    # a buffer's polygon lies inside the true grown shape, by up to 1 - cos(pi / 8) < 8 % of the
    # distance with 4 segments a quarter: grown by 10 % more, it holds the whole reach
    hull = shapely.convex_hull(base).buffer(tol * 1.1 + _SLACK_MM, quad_segs=4)
    walls = walls or _walls(rules)
    clear = not len(walls.tree.query(hull, predicate="intersects"))
    return Reach(name, base, tol, centre, radius, clear)


#: How far (mm) from a joint of walls the shortest paths bend round it (one node in each angle
#: between the walls meeting there); each such node's edges are shortened by as much, so the
#: distances stay lower bounds.
_JOINT_MM = 0.01


@dataclass
class _Walls:
    """The walls' centre lines as 2-point segments (``tree`` over them), the points where
    shortest paths bend (``corners``: free ends, and beside each joint a node in every angle
    between its walls wider than a half turn; ``offset``: which are such nodes) and the joints as small discs a
    straight piece may not pass through (``joints``)."""

    segments: np.ndarray
    tree: shapely.STRtree
    corners: np.ndarray
    offset: np.ndarray
    joints: shapely.STRtree | None


def _walls(rules: LineRules) -> _Walls:
    """The wall geometry the length bound goes round (see :class:`_Walls`)."""
    pieces = []
    ends: dict[tuple[float, float], list[np.ndarray]] = {}
    for line in rules.network.lines:
        points = np.asarray(line, dtype=float)
        for a, b in zip(points[:-1], points[1:]):
            if np.allclose(a, b):
                continue
            pieces.append(LineString([a, b]))
            ends.setdefault((round(float(a[0]), 9), round(float(a[1]), 9)), []).append(b - a)
            ends.setdefault((round(float(b[0]), 9), round(float(b[1]), 9)), []).append(a - b)
    corners, offset, joints = [], [], []
    for point, directions in ends.items():
        p = np.array(point)
        if len(directions) == 1:  # a free end: paths go round it through its tip
            corners.append(p)
            offset.append(False)
            continue
        joints.append(shapely.Point(p).buffer(_JOINT_MM / 2, quad_segs=4))
        angles = sorted(math.atan2(d[1], d[0]) for d in directions)
        for k, a in enumerate(angles):
            b = angles[(k + 1) % len(angles)] + (2 * math.pi if k + 1 == len(angles) else 0.0)
            if b - a <= math.pi + 1e-9:  # a shortest path bends only round a reflex corner
                continue
            middle = (a + b) / 2
            corners.append(p + _JOINT_MM * np.array([math.cos(middle), math.sin(middle)]))
            offset.append(True)
    segments = np.array(pieces, dtype=object)
    return _Walls(
        segments,
        shapely.STRtree(segments),
        np.array(corners, dtype=float).reshape(-1, 2),
        np.array(offset, dtype=bool),
        shapely.STRtree(joints) if joints else None,
    )


def _no_walls() -> _Walls:
    """No walls at all: distances are straight (a line that may cross every wall)."""
    segments = np.array([], dtype=object)
    return _Walls(segments, shapely.STRtree(segments), np.zeros((0, 2)), np.zeros(0, dtype=bool), None)


def _floyd(d: np.ndarray) -> np.ndarray:
    """All-pairs shortest paths of the weight matrix ``d`` (``inf``: no edge), in place."""
    for k in range(len(d)):
        np.minimum(d, d[:, k, None] + d[None, k, :], out=d)
    return d


def geodesics(rules: LineRules, points, walls: _Walls | None = None) -> np.ndarray:
    """A lower bound (mm) of the length of a line between each pair of ``points`` ``(n, 2)``
    that never crosses a wall's centre line: the visibility graph of the points and the walls'
    corners (free ends, and beside each joint a node in each angle between its walls, with its
    edges shortened by the node's offset), closed by shortest paths. A straight piece is blocked
    where it crosses a wall segment at a point inside both, or passes through a joint; ``inf``
    where the walls shut two points apart. Shape ``(n, n)``."""
    walls = walls or _walls(rules)
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    n = len(points)
    nodes = np.vstack([points, walls.corners])
    shift = np.concatenate([np.zeros(n), np.where(walls.offset, _JOINT_MM, 0.0)])
    m = len(nodes)
    i, j = np.triu_indices(m, k=1)
    lengths = np.maximum(np.hypot(*(nodes[i] - nodes[j]).T) - shift[i] - shift[j], 0.0)
    d = np.full((m, m), math.inf)
    np.fill_diagonal(d, 0.0)
    visible = np.ones(len(i), dtype=bool)
    if len(walls.segments) and len(i):
        lines = shapely.linestrings(np.stack([nodes[i], nodes[j]], axis=1))
        hits = walls.tree.query(lines, predicate="crosses")
        visible[np.unique(hits[0])] = False
        if walls.joints is not None:
            hits = walls.joints.query(lines, predicate="intersects")
            visible[np.unique(hits[0])] = False
    d[i[visible], j[visible]] = lengths[visible]
    d[j[visible], i[visible]] = lengths[visible]
    return _floyd(d)[:n, :n]


class LengthBound:
    """A lower bound ``d[a, b]`` (mm) of the line from first coming into reach ``a`` to first
    coming into reach ``b`` afterwards (see the module docstring), over ``reaches``: the Starts
    first, then the elements given. Portal entries and exits are added as waypoints when
    ``portals`` (their jumps cost nothing). ``grow`` (mm) grows the given elements' reaches
    (not the Starts' nor the waypoints'): the bound is then between the grown reaches.
    ``like``: a bound over the same elements whose distances between the printed shapes and
    geodesics between centres are reused (they do not depend on the growth). ``walls``: the
    walls the line goes round (default: the sheet's, or ``like``'s; :func:`_no_walls` for a line
    that may cross them)."""

    def __init__(
        self,
        rules: LineRules,
        elements: list[Element],
        portals: bool = True,
        grow: float = 0.0,
        like: LengthBound | None = None,
        walls: _Walls | None = None,
    ):
        self.rules = rules
        if walls is None:
            walls = like.walls if like is not None else _walls(rules)
        self.walls: _Walls = walls
        starts = [start_reach(rules, s, walls) for s in rules.starts]
        chosen = list(elements)
        given = {e.id for e in chosen}
        if portals:
            chosen += [e for e in rules.elements if e.kind in ("portal_entry", "portal_exit") and e.id not in given]
        reaches: list[Reach] = list(starts)
        self.elements: list[Element] = []
        for e in chosen:
            reach = element_reach(rules, e, walls)
            if reach is not None and grow > 0 and e.id in given:
                reach = _reach(rules, e.id, reach.base, reach.tol + grow, walls)
            if reach is not None:
                reaches.append(reach)
                self.elements.append(e)
        self.starts = len(starts)
        self.reaches = reaches
        self.index = {r.name: k for k, r in enumerate(reaches) if k >= self.starts}
        n = len(reaches)
        same = like is not None and [r.name for r in like.reaches] == [r.name for r in reaches]
        self.gaps: np.ndarray
        self.geo: np.ndarray
        if like is not None and same:
            self.gaps, self.geo = like.gaps, like.geo
        else:
            bases = np.array([r.base for r in reaches], dtype=object)
            self.gaps = np.array([shapely.distance(bases[a], bases) for a in range(n)]).reshape(n, n)
            self.geo = geodesics(rules, np.array([r.centre for r in reaches]).reshape(-1, 2), walls)
        tols = np.array([r.tol for r in reaches])
        straight = np.maximum(self.gaps - tols[:, None] - tols[None, :], 0.0)
        clear = np.array([r.clear for r in reaches], dtype=bool)
        d = straight.copy()
        if clear.any():
            where = np.flatnonzero(clear)
            geo = self.geo[np.ix_(where, where)]
            radii = np.array([reaches[k].radius for k in where])
            around = geo - radii[:, None] - radii[None, :]
            sub = d[np.ix_(where, where)]
            d[np.ix_(where, where)] = np.maximum(sub, around)
        np.fill_diagonal(d, 0.0)
        if portals:
            for a, e in enumerate(self.elements):
                if e.kind != "portal_entry":
                    continue
                for b, x in enumerate(self.elements):
                    if x.kind == "portal_exit" and x.channel == e.channel:
                        d[a + self.starts, b + self.starts] = 0.0  # the jump: one way
        self.d = _floyd(d)

    def from_start(self) -> np.ndarray:
        """For each reach, the least ``d`` from any Start's reach."""
        return self.d[: self.starts].min(axis=0) if self.starts else np.full(len(self.reaches), math.inf)

    def route(self, ids: list[str]) -> float:
        """The least length (mm) of a line from a Start that first comes into the reaches of the
        elements ``ids`` in this order (``KeyError`` for an element not in the bound)."""
        if not ids:
            return 0.0
        order = [self.index[i] for i in ids]
        total = float(self.from_start()[order[0]])
        return total + float(sum(self.d[a, b] for a, b in zip(order, order[1:])))


def cover_weights(rules: LineRules, ability: str | None = None) -> tuple[dict[str, float], float]:
    """What covering each element asks of the line's length: ``({element id: k * s^2 mm^2},
    r mm)``. The referee covers an element when ``k`` (its ``min_coverage`` share) of the
    samples of its lattice (spacing ``s``, one sample in each cell) lie within ``w/2`` of the
    line's centre: each such cell lies within ``r = w/2 + s * sqrt(2)`` (the largest ``s``) of
    the line, and the cells are disjoint, so the covered elements take at least the sum of
    ``k * s^2`` of the area within ``r`` of the line, which for a connected line ``L`` mm long is
    at most ``2 r L + pi r^2`` (a straight stroke's). Elements whose cells may overlap another
    covered element's (inks closer than two cell diagonals) count 0, and so do monsters when
    the ``monster_by_head`` ability completes them by their head."""
    from inkcrawl.engines.line.rules import COVER_MAX_SPACING_MM, COVER_SAMPLES

    samples = getattr(rules, "cover", None)
    if samples is None or not len(samples.elements):
        return {}, rules.pen_width_mm / 2
    spacing, grown, need = {}, [], {}
    for e, piece in zip(samples.elements, samples.slices):
        area = e.ink.area
        s = min(COVER_MAX_SPACING_MM, math.sqrt(area / COVER_SAMPLES)) if area > 0 else COVER_MAX_SPACING_MM
        n = piece.stop - piece.start
        spacing[e.id] = s
        need[e.id] = max(1, math.ceil(e.min_coverage * n - 1e-9)) * s * s if n else 0.0
        grown.append(e.ink.buffer(s * math.sqrt(2) * 1.1 + _SLACK_MM, quad_segs=4))
    tree = shapely.STRtree(grown)
    left, right = tree.query(grown, predicate="intersects")
    crowded = {samples.elements[i].id for i, j in zip(left, right) if i != j}
    weights = {}
    for e in samples.elements:
        by_head = ability == "monster_by_head" and e.kind == "monster"
        weights[e.id] = 0.0 if e.id in crowded or by_head else need[e.id]
    r = rules.pen_width_mm / 2 + max(spacing.values()) * math.sqrt(2)
    return weights, r


#: How far (mm) the third length bound grows each element's reach (see :class:`_Inside`).
GROW_MM = 3.0


def own_stroke(rules: LineRules, element: Element, ability: str | None = None) -> float:
    """A lower bound (mm) of the line an element asks inside its reach, besides the way in and out
    (RULES.md 2, Gaps and defaults; the referee's tolerances):

    * passed through: the line enters the footprint and leaves it at least 90 degrees round the
      element's centre, both points at least ``rho`` (the centre's distance to the footprint's
      edge) from the centre: at least ``rho * sqrt(2)`` apart;
    * traced: every point of the trace lies within ``t = trace_pen_widths * w + w/2`` of the
      line. Points of the trace pairwise at least ``delta`` apart (picked greedily) have discs of
      radius ``t`` that are ``delta - 2 t`` apart, and the line visits every disc: ``m`` of them
      take ``(m - 1) (delta - 2 t)``. With ``delta - 2 t <= 2 g`` a visit split over several
      passes into the cluster costs no less (each pass takes ``2 g``);
    * otherwise 0 (a cover counts by its cells). The Wizard's spells (a circle) and the Rogue's
      treasures (a touch) count 0."""
    w = rules.pen_width_mm
    if element.interaction == "pass_through" and element.footprint is not None:
        centre = shapely.Point(element.at) if element.at is not None else element.footprint.centroid
        if not element.footprint.contains(centre):
            return 0.0
        return math.sqrt(2) * float(element.footprint.exterior.distance(centre))
    if element.interaction != "trace" or not element.traces:
        return 0.0
    if (ability == "spell_by_circle" and element.kind == "spell") or (
        ability == "treasure_by_touch" and element.kind == "treasure"
    ):
        return 0.0
    t = element.trace_pen_widths * w + w / 2
    points = np.concatenate([_densify(np.asarray(trace, dtype=float), 0.25) for trace in element.traces])
    best = 0.0
    for gap in np.linspace(0.25, 2 * GROW_MM, 12):
        delta = 2 * t + float(gap)
        picked: list[np.ndarray] = []
        for p in points:
            if all(float(np.hypot(*(p - q))) >= delta for q in picked):
                picked.append(p)
        best = max(best, (len(picked) - 1) * float(gap))
    return best


class _Inside:
    """The third lower bound of a line's length: the way between the elements' reaches grown by
    ``GROW_MM`` (``g``) plus the line inside them.

    Elements whose grown reaches overlap form a cluster (its region: their union). A part of the
    line inside a cluster's region that comes into one of its reaches went in over at least ``g``
    and comes out over at least ``g`` more (the region's edge is ``g`` from every reach), unless
    the line begins or ends there (a polyline begins at the Start and after each portal jump,
    and ends at each portal entry and at the end: ``2 P`` ends). Covered lattice cells lie within
    ``r`` of such parts, and a part ``l`` mm long has at most ``2 r l + pi r^2`` mm^2 of paper
    within ``r``: ``l (2 r + pi r^2 / (2 g))`` for ``l >= 2 g``. So a cluster holds at least
    ``max(2 g, A / f)`` mm of line, ``A`` the cells its covered elements need and
    ``f = 2 r + pi r^2 / (2 g)``, and at least ``2 g`` plus the longest stroke one of its
    elements asks inside its reach (:func:`own_stroke`), less ``max(g, pi r^2 / (2 f))`` for
    each end inside it. The
    clusters' regions are apart: between them the line runs outside all of them, and those
    pieces join every cluster it visits and the Start, so they are at least a spanning tree's
    length under the distance between grown reaches (:class:`LengthBound` with ``grow``, whose
    portal jumps cost nothing). The bound is that tree plus the clusters' share less the ends'."""

    def __init__(
        self,
        rules: LineRules,
        nodes: list[Element],
        area: list[float],
        r: float,
        like: LengthBound | None = None,
        ability: str | None = None,
    ):
        g = GROW_MM
        self.f = 2 * r + math.pi * r * r / (2 * g)
        polylines = 1 + sum(1 for e in rules.elements if e.kind == "portal_entry")
        self.ends = 2 * polylines * max(g, math.pi * r * r / (2 * self.f))
        self.area = area
        self.stroke = [own_stroke(rules, e, ability) for e in nodes]
        n = len(nodes)
        grown = LengthBound(rules, nodes, grow=g, like=like)
        at = [grown.index.get(e.id, -1) for e in nodes]
        shapes = []
        for k in at:  # a little larger than the grown reach: a cluster too many is still sound
            reach = grown.reaches[k] if k >= 0 else None
            shapes.append(reach.base.buffer(reach.tol * 1.02 + 0.01, quad_segs=8) if reach else shapely.Point())
        parent = list(range(n))

        def root(k: int) -> int:
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k

        if n:
            left, right = shapely.STRtree(shapes).query(shapes, predicate="intersects")
            for a, b in zip(left.tolist(), right.tolist()):
                parent[root(a)] = root(b)
        roots = sorted({root(k) for k in range(n)})
        self.cluster = [roots.index(root(k)) for k in range(n)]
        m = len(roots)
        d = np.minimum(grown.d, grown.d.T)
        starts = d[: grown.starts] if grown.starts else np.zeros((0, len(d)))
        self.between = np.full((m, m), math.inf)
        self.from_start = np.full(m, math.inf)
        members: list[list[int]] = [[] for _ in range(m)]
        for k in range(n):
            if at[k] >= 0:
                members[self.cluster[k]].append(at[k])
        for c in range(m):
            if not members[c]:
                self.from_start[c] = 0.0  # no geometry: costs no way
                self.between[c, :] = self.between[:, c] = 0.0
                continue
            self.from_start[c] = float(starts[:, members[c]].min()) if len(starts) else 0.0
            for e in range(c, m):
                if members[e]:
                    self.between[c, e] = self.between[e, c] = float(d[np.ix_(members[c], members[e])].min())

    def _share(self, a: float, x: float) -> float:
        return max(2 * GROW_MM + x, a / self.f)

    def own(self, clusters: dict) -> float:
        """The line inside the clusters ``{cluster: (cells' area, longest own stroke)}``, less the
        ends' share."""
        return sum(self._share(a, x) for a, x in clusters.values()) - self.ends

    def more(self, clusters: dict, k: int) -> float:
        """How much :meth:`own` grows with node ``k``."""
        a, x = clusters.get(self.cluster[k], (0.0, 0.0))
        before = self._share(a, x) if self.cluster[k] in clusters else 0.0
        return self._share(a + self.area[k], max(x, self.stroke[k])) - before

    def add(self, clusters: dict, k: int) -> dict:
        a, x = clusters.get(self.cluster[k], (0.0, 0.0))
        return {**clusters, self.cluster[k]: (a + self.area[k], max(x, self.stroke[k]))}

    def length(self, clusters: dict) -> float:
        """The bound for the clusters ``{cluster: cells' area}`` (mm)."""
        if not clusters:
            return 0.0
        cs = sorted(clusters)
        # Prim's spanning tree over the Start and the clusters
        best = self.from_start[cs].copy()
        done = np.zeros(len(cs), dtype=bool)
        total = 0.0
        for _ in range(len(cs)):
            k = int(np.argmin(np.where(done, math.inf, best)))
            total += float(best[k])
            done[k] = True
            best = np.minimum(best, self.between[cs[k], cs])
        return total + self.own(clusters)


@dataclass
class TimerBound:
    """``bound``: no line within ``limit_mm`` scores more (within the model of the module
    docstring); ``exhaustive``: the branch and bound ran to its end (else the budget's states
    counted by their optimistic value); ``orders``: the best element orders found, as
    ``(value, least length mm, Start id, element ids)``, best first; ``states`` visited."""

    bound: int
    limit_mm: float
    exhaustive: bool
    orders: list[tuple] = field(default_factory=list)
    states: int = 0


def timer_bound(
    rules: LineRules,
    limit_mm: float,
    players: int = 1,
    character: str | None = None,
    budget: int = TIMER_STATES,
    seconds: float = TIMER_BUDGET_S,
) -> TimerBound:
    """An upper bound on the VP of any line at most ``limit_mm`` mm long (the sheet's timer
    times the drawing speed) and the element orders that reach it: see the module docstring
    (RULES.md 2, Elements and Gaps and defaults). ``players`` is kept for the model's key supply
    (keys are not needed by the bound); ``character``: its plants' VP count. Never raises for a
    compiled dungeon.

    A line that crosses a wall and comes back into the same area pays ``wall_crossing_vp``
    (RULES.md 2, Drawing rules 2) but may be shorter: the bound is the larger of the bound for
    lines that cross no wall and, when the sheet has walls and a crossing costs at least 1 VP
    less, the bound for lines that may cross every wall (straight distances) less that cost."""
    walls = _walls(rules)
    walled = _timer_bound(rules, limit_mm, players, character, budget, seconds, walls)
    if not len(walls.segments):
        return walled
    cost = max(0, -int(rules.switch("wall_crossing_vp") or 0))
    crossing = _timer_bound(rules, limit_mm, players, character, budget, seconds, _no_walls())
    if crossing.bound - cost <= walled.bound:
        return walled
    return TimerBound(
        crossing.bound - cost,
        walled.limit_mm,
        walled.exhaustive and crossing.exhaustive,
        walled.orders,
        walled.states + crossing.states,
    )


def _timer_bound(
    rules: LineRules, limit_mm: float, players: int, character: str | None, budget: int, seconds: float, walls: _Walls
) -> TimerBound:
    """:func:`timer_bound` for lines that go round ``walls`` (cross none of their centre lines)."""
    model = AreaModel(rules, players, character)
    plain: list[Element] = []
    orbs: list[Element] = []
    stones: list[Element] = []
    for e in rules.elements:
        if e.kind == "orb" and e.colour in model.tokens:
            orbs.append(e)
        elif e.interaction == "connect_in_order":
            stones.append(e)
        elif e.interaction in _VALUED and e.kind not in ("key", "skeleton_key", "portal_entry") and model.vp(e) > 0:
            plain.append(e)
    group_of = {s.id: g for g, group in enumerate(rules.groups) for s in group.stones}
    stones = [s for s in stones if s.id in group_of]
    metric = LengthBound(rules, [*plain, *orbs, *stones], walls=walls)
    constant = len(rules.groups) * max(0, model.untouched)
    # elements with no geometry cost no length: counted as always reached
    placed = set(metric.index)
    constant += sum(model.vp(e) for e in plain if e.id not in placed)
    wanted = {x.id for x in (*plain, *orbs, *stones)}
    plain_ids, orb_ids, stone_ids = {e.id for e in plain}, {e.id for e in orbs}, {e.id for e in stones}
    nodes = [e for e in metric.elements if e.id in wanted]
    n = len(nodes)
    at = np.array([metric.index[e.id] for e in nodes], dtype=int)
    dist = metric.d[np.ix_(at, at)] if n else np.zeros((0, 0))
    first = metric.from_start()[at] if n else np.zeros(0)
    start_of = np.argmin(metric.d[: metric.starts][:, at], axis=0) if n and metric.starts else np.zeros(n, dtype=int)
    gain = [model.vp(e) if e.id in plain_ids else 0 for e in nodes]
    colour_of = [e.colour if e.id in orb_ids else None for e in nodes]
    group = [group_of.get(e.id, -1) if e.id in stone_ids else -1 for e in nodes]
    prefix: dict[str, list[int]] = {}
    for colour, stack in model.tokens.items():
        sums, best = [0], 0
        for k in range(len(stack)):
            best = max(best, sum(stack[: k + 1]))
            sums.append(best)
        prefix[colour] = sums
    group_size = [len(g.stones) for g in rules.groups]
    weights, r = cover_weights(rules, model.ability)
    area = [weights.get(e.id, 0.0) for e in nodes]
    # one polyline from the Start and one after each portal entry (each used at most once)
    caps = (1 + sum(1 for e in rules.elements if e.kind == "portal_entry")) * math.pi * r * r

    def swept(total_area: float) -> float:
        """The least length (mm) of a line that covers ``total_area`` mm^2 of lattice cells."""
        return max(0.0, (total_area - caps) / (2 * r))

    inside = _Inside(rules, nodes, area, r, metric, model.ability)

    def orb_value(colour: str, count: int) -> int:
        sums = prefix.get(colour, [0])
        return sums[min(count, len(sums) - 1)]

    def optimistic(value: int, mask: int, more: list[int], orb_count: dict, group_count: list) -> int:
        """The value of the set with every element of ``more`` added."""
        total = value
        extra_orbs: dict[str, int] = {}
        extra_groups: dict[int, int] = {}
        for k in more:
            colour = colour_of[k]
            if colour is not None:
                extra_orbs[colour] = extra_orbs.get(colour, 0) + 1
            elif group[k] >= 0:
                extra_groups[group[k]] = extra_groups.get(group[k], 0) + 1
            else:
                total += gain[k]
        for colour, k in extra_orbs.items():
            total += orb_value(colour, orb_count.get(colour, 0) + k) - orb_value(colour, orb_count.get(colour, 0))
        for g, k in extra_groups.items():
            if group_count[g] < group_size[g] <= group_count[g] + k:
                total += 1
        return total

    # Python ints: the sets are bit masks of any width (a numpy int would wrap at 64 elements)
    order_by = [np.argsort(dist[k], kind="stable").tolist() for k in range(n)]
    root_order = np.argsort(first, kind="stable").tolist()
    best_value = [-1]
    orders: list[tuple] = []  # (value, length, Start id, element ids, set of nodes)
    seen: dict[tuple[int, int], float] = {}
    states = [0]
    cut = [-1]  # the best optimistic value of the states left when the budget ran out
    over = [False]
    deadline = time.monotonic() + seconds

    def spent() -> bool:
        return over[0]

    def record(value: int, used: float, path: list[int], clusters: dict) -> None:
        if value < best_value[0] and len(orders) >= TIMER_ORDERS:
            return  # neither the best nor one of the orders kept: no need to check the set
        used = max(used, inside.length(clusters))
        if used > limit_mm + 1e-9:
            return
        best_value[0] = max(best_value[0], value)
        key = frozenset(path)
        for k, (v, u, _, _, other) in enumerate(orders):
            if other == key:
                if (value, -used) <= (v, -u):
                    return
                orders.pop(k)
                break
        start = rules.starts[int(start_of[path[0]])]["id"] if path else rules.starts[0]["id"]
        orders.append((value, used, start, [nodes[k].id for k in path], key))
        orders.sort(key=lambda o: (-o[0], o[1]))
        del orders[TIMER_ORDERS:]

    def search(
        here: int,
        mask: int,
        used: float,
        swept_area: float,
        value: int,
        orb_count: dict,
        group_count: list,
        path: list,
        clusters: dict,
    ):
        states[0] += 1
        if not over[0] and (states[0] > budget or time.monotonic() > deadline):
            over[0] = True
        record(value, max(used, swept(swept_area)), path, clusters)
        left = limit_mm - used
        row = first if here < 0 else dist[here]
        candidates = [k for k in (root_order if here < 0 else order_by[here]) if not mask >> k & 1]
        own = inside.own(clusters)
        reachable = [
            k
            for k in candidates
            if row[k] <= left + 1e-9
            and swept(swept_area + area[k]) <= limit_mm + 1e-9
            and own + inside.more(clusters, k) <= limit_mm + 1e-9
        ]
        if not reachable:
            return
        hope = optimistic(value, mask, reachable, orb_count, group_count)
        if hope <= best_value[0]:
            return
        if over[0]:
            cut[0] = max(cut[0], hope)
            return

        def step_gain(k: int) -> int:
            return optimistic(value, mask, [k], orb_count, group_count) - value

        ranked = sorted(reachable, key=lambda k: (-step_gain(k), row[k]))
        for k in ranked:
            if spent():  # out of budget: the children left count by this state's hope
                cut[0] = max(cut[0], hope)
                break
            used2 = used + float(row[k])
            mask2 = mask | (1 << k)
            if seen.get((k, mask2), math.inf) <= used2 + 1e-9:
                continue
            seen[(k, mask2)] = used2
            orb2 = dict(orb_count)
            group2 = list(group_count)
            colour = colour_of[k]
            if colour is not None:
                orb2[colour] = orb2.get(colour, 0) + 1
            elif group[k] >= 0:
                group2[group[k]] += 1
            gained = value + step_gain(k)
            search(k, mask2, used2, swept_area + area[k], gained, orb2, group2, [*path, k], inside.add(clusters, k))

    search(-1, 0, 0.0, 0.0, 0, {}, [0] * len(rules.groups), [], {})
    bound = max(best_value[0], cut[0]) + constant
    found = [(v + constant, u, s, p) for v, u, s, p, _ in orders]
    return TimerBound(int(bound), float(limit_mm), not over[0], found, states[0])


__all__ = [
    "LengthBound",
    "Reach",
    "TimerBound",
    "cover_weights",
    "element_reach",
    "geodesics",
    "own_stroke",
    "start_reach",
    "timer_bound",
]
