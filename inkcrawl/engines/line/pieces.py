"""Stage 2 of the referee: the path split at every boundary, each piece in its region.

:func:`refine` splits the path at every crossing of an area outline, a footprint or touch zone
boundary and a wall segment. The *refined vertices* ``V`` (positions ``T``) bound ``M``
pieces; each piece has a *region* (the area holding its midpoint, ``VOID`` outside every area,
``JUMP`` for a portal jump). It also finds the runs of pieces inside each touch zone and run
footprint, and the refined vertices where the path crosses a wall (a wall crossed within
``WALL_SNAP_MM`` of a change of area belongs to that change).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from inkcrawl.engines.line.path import Path
from inkcrawl.engines.line.rules import (
    JUMP,
    ROLE_AREA,
    ROLE_FOOT,
    ROLE_WALL,
    ROLE_ZONE,
    T_EPS,
    VOID,
    WALL_SNAP_MM,
    LineRules,
    PenGeometry,
)
from inkcrawl.engines.wall_network import crosses, separates
from inkcrawl.geoarrays import linestring_array

#: How far past the edge of the walls' ink the paper point of a passage is taken, mm.
LEAVE_MM = 0.02


@dataclass
class Pieces:
    """The refined path: positions ``T`` and points ``V`` of the refined vertices, ``M`` pieces
    (piece ``k`` runs from vertex ``k`` to ``k+1``), ``drawn[k]`` whether piece ``k`` is drawn,
    ``mids`` their midpoints, ``region`` their region, ``L`` the drawn length at each vertex;
    ``zone_runs`` (element index -> runs ``(first, last)`` of pieces in its touch zone),
    ``foot_runs`` (the same in the footprints of pass-through, enter and spell elements) and
    ``wall_vertices`` (refined vertex -> the wall network line crossed there; a passage through
    the ink is crossed where it leaves the ink) with ``wall_at``, the point on the wall that
    names such a crossing (refined vertex -> point)."""

    T: np.ndarray
    V: np.ndarray
    M: int
    drawn: np.ndarray
    mids: np.ndarray
    region: np.ndarray
    L: np.ndarray
    zone_runs: dict[int, list[tuple[int, int]]]
    foot_runs: dict[int, list[tuple[int, int]]]
    wall_vertices: dict[int, int]
    wall_at: dict[int, np.ndarray]


#: A passage of the path through the walls' solid ink: its first and last piece, how it was
#: judged (``judged``: whole, from the paper before it to the paper after it; ``touch``: the path
#: begins or ends in the ink; ``undecided``: the centre lines decided), the wall network line
#: it crosses (None: no crossing) and the point on that wall that names the crossing.
Passage = tuple[int, int, str, "int | None", "np.ndarray | None"]


def runs(ks: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive runs ``(first, last)`` of sorted piece indexes."""
    if not len(ks):
        return []
    breaks = np.flatnonzero(np.diff(ks) != 1)
    starts = ks[np.concatenate([[0], breaks + 1])]
    ends = ks[np.concatenate([breaks, [len(ks) - 1]])]
    return list(zip(starts.tolist(), ends.tolist()))


def _crossings(path: Path, pen: PenGeometry) -> tuple[np.ndarray, np.ndarray]:
    """Every point where a drawn segment meets a boundary or wall line: its position ``t`` and
    the line's index in ``pen.lines``."""
    P, drawn = path.P, path.drawn
    a, b = P[:-1], P[1:]
    v = b - a
    len2 = (v * v).sum(axis=1)
    live = np.flatnonzero(drawn & (len2 > 0))
    if not len(live):
        return np.zeros(0), np.zeros(0, dtype=int)
    geoms = linestring_array(np.stack([a[live], b[live]], axis=1))
    gi, li = pen.line_tree.query(geoms, predicate="intersects")
    if not len(gi):
        return np.zeros(0), np.zeros(0, dtype=int)
    inter = shapely.intersection(geoms[gi], pen.lines[li])
    coords, ci = shapely.get_coordinates(inter, return_index=True)
    seg = live[gi[ci]]
    f = np.clip(((coords - a[seg]) * v[seg]).sum(axis=1) / len2[seg], 0.0, 1.0)
    return seg + f, li[ci]


def _positions(path: Path, hit_t: np.ndarray) -> np.ndarray:
    """The sorted distinct positions of the refined vertices: every point of the path (exactly
    its integer position) and every crossing."""
    t_all = np.concatenate([np.arange(len(path.P), dtype=float), hit_t])
    rounded = np.round(t_all)
    t_all = np.where(np.abs(t_all - rounded) < T_EPS, rounded, t_all)
    t_all.sort()
    keep = np.ones(len(t_all), dtype=bool)
    keep[1:] = np.diff(t_all) > T_EPS
    return t_all[keep]


def _classify(rules: LineRules, pen: PenGeometry, mids: np.ndarray, drawn: np.ndarray):
    """The region of each piece, and the runs of pieces inside each zone and run footprint."""
    M = len(mids)
    region = np.full(M, VOID, dtype=int)
    region[~drawn] = JUMP
    live_sub = np.flatnonzero(drawn)
    runs_by_poly: dict[int, np.ndarray] = {}
    if len(live_sub):
        mi, qi = pen.poly_tree.query(shapely.points(mids[live_sub]), predicate="intersects")
        ks = live_sub[mi]
        roles = pen.roles[qi]
        area_mask = roles == ROLE_AREA
        region[ks[area_mask]] = pen.refs[qi[area_mask]]
        other = ~area_mask
        order = np.lexsort((ks[other], qi[other]))
        q_sorted, k_sorted = qi[other][order], ks[other][order]
        bounds = np.flatnonzero(np.diff(q_sorted)) + 1
        for q_group, k_group in zip(np.split(q_sorted, bounds), np.split(k_sorted, bounds)):
            if len(q_group):
                runs_by_poly[int(q_group[0])] = k_group
    zone_runs: dict[int, list[tuple[int, int]]] = {}
    foot_runs: dict[int, list[tuple[int, int]]] = {}
    for q, ks in runs_by_poly.items():
        if pen.roles[q] == ROLE_ZONE:
            zone_runs[rules.fp_elements[pen.refs[q]].index] = runs(ks)
        elif pen.roles[q] == ROLE_FOOT:
            foot_runs[rules.run_elements[pen.refs[q]].index] = runs(ks)
    return region, zone_runs, foot_runs


def _paper_beside(V: np.ndarray, vertex: int, piece: int, drawn: np.ndarray) -> np.ndarray | None:
    """The point :data:`LEAVE_MM` from refined vertex ``vertex`` along piece ``piece`` (one of
    the pieces either side of it, on the paper), or ``None`` when that piece does not exist or
    is not drawn (the path begins, ends or jumps in the ink)."""
    if piece < 0 or piece >= len(drawn) or not drawn[piece]:
        return None
    other = V[piece] if piece < vertex else V[piece + 1]
    step = other - V[vertex]
    length = float(np.hypot(*step))
    return V[vertex] + step * min(1.0, LEAVE_MM / length) if length > 0 else V[vertex].copy()


def _wall_vertices(
    rules: LineRules, pen: PenGeometry, hit_t, hit_line, T, V, mids, drawn
) -> tuple[dict[int, int], list[Passage]]:
    """The passages of the path through the walls' ink, and where it crosses a wall otherwise.

    The path is split where it enters and leaves the walls' solid ink (the printed ink with
    channels of paper narrower than the required gap filled, and the closures and bridges:
    :attr:`inkcrawl.engines.wall_network.WallNetwork.solid`); each run of pieces inside it is
    one passage through the ink, judged as a whole: it crosses when the paper where the path
    enters the ink and the paper where it leaves it are separated by the ink
    (:func:`inkcrawl.engines.wall_network.separates`), so clipping the corner where two walls
    meet is no crossing, running along a wall before leaving through another is one, and so is
    going through the ink of two walls whose paper between them is too narrow for a line.
    Where that cannot be told (the path begins or ends in the ink), each place where it meets a
    wall's centre line is judged on the centre lines.

    Returns the refined vertices crossed on the centre lines (vertex -> wall network line) and
    every passage through the ink (:data:`Passage`; :func:`_settle_passages` places them)."""
    M = len(T) - 1
    out: dict[int, int] = {}
    network = rules.network
    solid = network.solid
    if M <= 0 or solid is None or solid.is_empty:
        return out, []
    inside = drawn & shapely.contains_xy(solid, mids[:, 0], mids[:, 1])
    # where the path meets a wall's centre line: refined vertex -> [(network line, segment)]
    candidates: dict[int, list[tuple[int, int]]] = {}
    wall_hits = pen.line_roles[hit_line] == ROLE_WALL if len(hit_line) else np.zeros(0, dtype=bool)
    if wall_hits.any():
        t_w = hit_t[wall_hits]
        seg_w = pen.line_refs[hit_line[wall_hits]]
        k = np.clip(np.searchsorted(T, t_w - T_EPS * 2), 0, M)
        near = np.abs(T[np.minimum(k + 1, M)] - t_w) < np.abs(T[k] - t_w)
        k = np.where(near, np.minimum(k + 1, M), k)
        segments = rules.wall_segments
        for vertex, s in zip(k.tolist(), seg_w.tolist()):
            if 0 < vertex < M and drawn[vertex - 1] and drawn[vertex]:
                candidates.setdefault(vertex, []).append((int(segments.wall[s]), int(segments.index[s])))
    judged: set[int] = set()
    passages: list[Passage] = []
    for first, last in runs(np.flatnonzero(inside)):
        within = [v for v in range(first + 1, last + 1) if v in candidates]
        judged.update(within)
        before = _paper_beside(V, first, first - 1, drawn)
        after = _paper_beside(V, last + 1, last + 1, drawn)
        verdict = separates(network, before, after) if before is not None and after is not None else None
        if (before is None) != (after is None):
            # the path begins or ends in the ink: it touched the wall (RULES.md 2, touching is free)
            passages.append((first, last, "touch", None, None))
        elif verdict is None:  # all of the path in the ink, or the paper cannot be told: the centre lines decide
            for vertex in within:
                if any(
                    _centre_line_crossing(network, wall, index, vertex, V, mids, drawn)
                    for wall, index in candidates[vertex]
                ):
                    out[vertex] = candidates[vertex][0][0]
            passages.append((first, last, "undecided", None, None))
        else:
            wall, at = None, None
            if verdict:
                # named where the path meets the first centre line, else mid-way through the ink
                at = V[within[0]] if within else (V[first] + V[last + 1]) / 2
                wall = candidates[within[0]][0][0] if within else _nearest_wall(rules, at)
            passages.append((first, last, "judged", wall, at))
    for vertex, hits in candidates.items():  # a centre line met outside the solid ink (a hair's breadth)
        if vertex not in judged and any(
            _centre_line_crossing(network, wall, index, vertex, V, mids, drawn) for wall, index in hits
        ):
            out[vertex] = hits[0][0]
    return out, passages


def _nearest_wall(rules: LineRules, point: np.ndarray) -> int:
    """The wall network line nearest ``point``."""
    segments = rules.wall_segments
    if not len(segments.geoms):
        return -1
    distances = shapely.distance(segments.geoms, shapely.points(point))
    return int(segments.wall[int(np.argmin(distances))])


def _centre_line_crossing(network, wall: int, index: int, vertex: int, V, mids, drawn) -> bool:
    """The centre-line test at one vertex, asking with pieces further away while the nearest
    lie on the wall itself (the path runs along it)."""
    M = len(mids)
    for step in range(1, 6):
        lo, hi = vertex - step, vertex + step - 1
        if lo < 0 or hi >= M or not drawn[lo] or not drawn[hi]:
            return False
        verdict = crosses(network, wall, index, V[vertex], mids[lo], mids[hi])
        if verdict is not None:
            return verdict
    return False


def _settle_passages(
    passages: list[Passage],
    region: np.ndarray,
    drawn: np.ndarray,
    walls: dict[int, int],
    wall_at: dict[int, np.ndarray],
) -> None:
    """Place each passage through the ink (RULES.md 2, Drawing rules 2: touching a wall is free,
    it enters nothing). A passage that crosses keeps the area the path came from until it
    leaves the ink: it is recorded in ``walls`` where it leaves (the vertex where the path
    reaches the other paper) and named in ``wall_at`` on the wall. One that comes back out on
    the paper of the area it came from (a poke into the ink) stays in that area. One that goes
    along the ink from one area's paper to another's keeps the areas its pieces lie in (the
    openings it passes decide). One where the path begins or ends in the ink stays in the area
    of the paper next to it. Changes ``region``, ``walls`` and ``wall_at`` in place."""
    size = len(region)
    for first, last, how, wall, at in passages:
        came = int(region[first - 1]) if first > 0 and drawn[first - 1] else None
        goes = int(region[last + 1]) if last + 1 < size and drawn[last + 1] else None
        if how == "touch":
            side = came if came is not None else goes
            if side is not None:
                region[first : last + 1] = side
        elif how == "judged" and came is not None:
            if wall is not None and at is not None:
                region[first : last + 1] = came
                walls[last + 1] = wall  # (a judged passage ends on drawn paper: last + 1 < size)
                wall_at[last + 1] = at
            elif came == goes:
                region[first : last + 1] = came


def _snap_walls_to_changes(wall_vertices: dict[int, int], region, L, drawn) -> dict[int, int]:
    """A wall crossed within WALL_SNAP_MM (along the path) of a change of area belongs to
    that change: walls drawn a little off the shared boundary of two areas (within the
    snap tolerance) still close it."""
    if not wall_vertices:
        return wall_vertices
    k = np.arange(1, len(region))
    change = k[(region[1:] != region[:-1]) & (region[1:] != JUMP) & (region[:-1] != JUMP)]
    if not len(change):
        return wall_vertices
    moved: dict[int, int] = {}
    for vertex, wall in wall_vertices.items():
        if region[vertex - 1] != region[vertex]:
            moved[vertex] = wall
            continue
        i = int(np.argmin(np.abs(L[change] - L[vertex])))
        target = int(change[i])
        lo, hi = min(target, vertex), max(target, vertex)
        if abs(L[target] - L[vertex]) <= WALL_SNAP_MM and drawn[lo:hi].all():
            moved[target] = wall
        else:
            moved[vertex] = wall
    return moved


def refine(rules: LineRules, pen: PenGeometry, path: Path) -> Pieces:
    """Split ``path`` at every boundary and classify the pieces (see the module docstring)."""
    P = path.P
    hit_t, hit_line = _crossings(path, pen)
    T = _positions(path, hit_t)
    j = np.minimum(np.floor(T).astype(int), len(P) - 2)
    V = P[j] + (T - j)[:, None] * (P[j + 1] - P[j])
    drawn = path.drawn[np.minimum(np.floor(T[:-1] + T_EPS).astype(int), len(P) - 2)]
    mids = (V[:-1] + V[1:]) / 2
    region, zone_runs, foot_runs = _classify(rules, pen, mids, drawn)
    walls, passages = _wall_vertices(rules, pen, hit_t, hit_line, T, V, mids, drawn)
    # drawn length at each refined vertex
    seg_len = np.hypot(*(P[1:] - P[:-1]).T) * path.drawn
    jv = np.minimum(np.floor(T + T_EPS).astype(int), len(P) - 2)
    L = path.cum[jv] + (T - jv) * seg_len[jv]
    walls = _snap_walls_to_changes(walls, region, L, drawn)  # crossings judged on the centre lines
    wall_at: dict[int, np.ndarray] = {}
    _settle_passages(passages, region, drawn, walls, wall_at)
    return Pieces(T, V, len(T) - 1, drawn, mids, region, L, zone_runs, foot_runs, walls, wall_at)
