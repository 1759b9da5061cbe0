"""Stage 1 of the referee: the drawn path, cut at portal touches (the pen lifts).

:func:`build_path` reads the play's polylines: the first must begin at a Start; touching a
portal entry lifts the pen (the rest of that polyline is dropped) and the next polyline must
begin at an exit of the entry's channel. It returns the kept polylines flattened into one
:class:`Path` (positions along it are the parameter ``t``: segment index plus fraction; the
segment between two polylines is an undrawn jump) with the Start, the portal uses and notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely import STRtree

from inkcrawl.engines.line.rules import INF, T_EPS, Element, LineRules, PenGeometry
from inkcrawl.geoarrays import linestring_array


@dataclass
class PortalUse:
    """Polyline ``polyline`` touched portal ``entry`` at position ``t`` (the end of the kept
    polyline); ``exit`` is where the next polyline began, when it began at one."""

    entry: Element
    polyline: int
    exit: Element | None = None
    t: float = 0.0


@dataclass
class Path:
    """The kept path: ``P`` its points in order, ``drawn[i]`` whether segment ``i -> i+1`` is
    drawn (false: a portal jump), ``poly_first`` the index in ``P`` of each kept polyline's
    first point, ``cum`` the drawn length up to each point; the ``start`` it began at,
    ``portal_uses`` in order, ``landing`` (polyline -> the portal exit it began at) and ``notes``
    for the breakdown (later stages add theirs)."""

    P: np.ndarray
    drawn: np.ndarray
    poly_first: list[int]
    cum: np.ndarray
    start: dict
    portal_uses: list[PortalUse] = field(default_factory=list)
    landing: dict[int, Element] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def position(self, t: float) -> tuple[float, float]:
        """The point at position ``t``."""
        n = len(self.P)
        if n == 1 or t <= 0:
            return float(self.P[0][0]), float(self.P[0][1])
        if t >= n - 1:
            return float(self.P[-1][0]), float(self.P[-1][1])
        j = int(math.floor(t))
        f = t - j
        p = self.P[j] + f * (self.P[j + 1] - self.P[j])
        return float(p[0]), float(p[1])

    def length_at(self, t: float) -> float:
        """The drawn length (mm) up to position ``t``."""
        n = len(self.P)
        if t >= n - 1:
            return float(self.cum[-1])
        j = int(math.floor(max(t, 0)))
        seg = float(np.hypot(*(self.P[j + 1] - self.P[j]))) if self.drawn[j] else 0.0
        return float(self.cum[j] + (t - j) * seg)

    def t_at_length(self, length: float) -> float:
        """The position at a drawn length (mm); ``INF`` past the end."""
        if length >= self.cum[-1]:
            return INF
        j = int(np.searchsorted(self.cum, length, side="right")) - 1
        j = min(max(j, 0), len(self.P) - 2)
        seg = self.cum[j + 1] - self.cum[j]
        return j + ((length - self.cum[j]) / seg if seg > 0 else 0.0)

    def polyline_of(self, t: float) -> int:
        """The index of the kept polyline position ``t`` lies on."""
        index = 0
        for i, first in enumerate(self.poly_first):
            if first <= t + T_EPS:
                index = i
        return index


def dedupe(points: np.ndarray) -> np.ndarray:
    """The polyline without consecutive duplicate points."""
    if len(points) < 2:
        return points
    keep = np.ones(len(points), dtype=bool)
    keep[1:] = np.any(points[1:] != points[:-1], axis=1)
    return points[keep]


def dedupe_index(points: np.ndarray, index: int) -> int:
    """Where point ``index`` of a polyline lands once consecutive duplicates are removed."""
    if len(points) < 2:
        return 0
    keep = np.ones(len(points), dtype=bool)
    keep[1:] = np.any(points[1:] != points[:-1], axis=1)
    return int(np.count_nonzero(keep[: index + 1])) - 1


def first_touch(points: np.ndarray, zones: list, tree) -> tuple[int, float, int] | None:
    """The first position ``(segment, fraction, zone)`` where the polyline enters one of the
    zones, or ``None``. (The editor's playtest lifts the pen with it, as the referee does.)"""
    if tree is None:
        return None
    if len(points) == 1:
        hits = tree.query(shapely.points(points[0]), predicate="intersects")
        return (0, 0.0, int(hits.min())) if len(hits) else None
    segs = linestring_array(np.stack([points[:-1], points[1:]], axis=1))
    seg_i, zone_i = tree.query(segs, predicate="intersects")
    if not len(seg_i):
        return None
    j = int(seg_i.min())
    best = (INF, -1)
    a, b = points[j], points[j + 1]
    v = b - a
    for q in zone_i[seg_i == j].tolist():
        zone = zones[q]
        if shapely.intersects_xy(zone, a[0], a[1]):
            f = 0.0
        else:
            coords = shapely.get_coordinates(shapely.intersection(segs[j], zone))
            if not len(coords):
                continue
            f = float(np.clip(((coords - a) @ v).min() / (v @ v), 0, 1))
        best = min(best, (f, q))
    if best[1] < 0:
        return None
    return j, best[0], best[1]


def _nearest_start(rules: LineRules, first: np.ndarray, w: float, problems: list) -> dict:
    """The Start nearest the path's first point; a problem when the point is beyond its reach."""
    best = min(rules.starts, key=lambda s: math.hypot(first[0] - s["at"][0], first[1] - s["at"][1]))
    gap = math.hypot(first[0] - best["at"][0], first[1] - best["at"][1])
    if gap > best["radius"] + w / 2 + 1e-9:
        problems.append(
            (
                "/path/0/0",
                f"the path begins at ({first[0]:g}, {first[1]:g}), {gap:.1f} mm from the "
                f"nearest Start {best['id']} at ({best['at'][0]:g}, {best['at'][1]:g}): a "
                f"path begins at a Start",
            )
        )
    return best


class _PortalReader:
    """Reads the polylines one by one: where each begins (a Start, or an exit of the channel the
    previous one touched) and where it touches a portal entry (the pen lifts there)."""

    def __init__(self, rules: LineRules, pen: PenGeometry):
        self.entries = [e for e in rules.fp_elements if e.kind == "portal_entry"]
        self.zone_of = {e.index: pen.zones[i] for i, e in enumerate(rules.fp_elements)}
        self.entry_zones = [self.zone_of[e.index] for e in self.entries]
        self.entry_tree = STRtree(self.entry_zones) if self.entry_zones else None
        self.exits = [e for e in rules.fp_elements if e.kind == "portal_exit"]
        self.uses: list[PortalUse] = []
        self.landing: dict[int, Element] = {}
        self.notes: list[str] = []
        self.previous: Element | None = None  # the entry the previous polyline touched

    def land(self, i: int, points: np.ndarray, problems: list) -> None:
        """Polyline ``i`` (not the first) must begin at an exit of the touched entry's channel."""
        if self.previous is None:
            problems.append(
                (
                    f"/path/{i}",
                    f"polyline {i} follows polyline {i - 1}, which touches no portal "
                    f"entry: a new polyline starts only after a portal jump",
                )
            )
            return
        channel = self.previous.channel
        candidates = [e for e in self.exits if e.channel == channel]
        point = shapely.points(points[0])
        landing = next((e for e in candidates if shapely.intersects(self.zone_of[e.index], point)), None)
        if landing is None:
            where = (
                "; ".join(f"{e.id} at ({e.at[0]:g}, {e.at[1]:g})" if e.at is not None else e.id for e in candidates)
                or "none"
            )
            problems.append(
                (
                    f"/path/{i}/0",
                    f"polyline {i} starts at ({points[0][0]:g}, {points[0][1]:g}), not at "
                    f"a portal exit of channel {channel!r} (polyline {i - 1} touched portal "
                    f"entry {self.previous.id}); exits of that channel: {where}",
                )
            )
            return
        self.landing[i] = landing
        self.uses[-1].exit = landing

    def lift(self, i: int, points: np.ndarray) -> np.ndarray:
        """Polyline ``i`` up to its first touch of a portal entry (the pen lifts there)."""
        hit = first_touch(points, self.entry_zones, self.entry_tree)
        self.previous = None
        if hit is None:
            return points
        j, f, q = hit
        entry = self.entries[q]
        if len(points) > 1:
            cut = points[j] + f * (points[j + 1] - points[j])
            head = points[: j + 1]
            kept = head if f == 0 else np.vstack([head, cut])
            # points still on the entry are the pen coming down on it; the rest were drawn on
            rest = points[j + 1 :]
            zone = self.entry_zones[q]
            dropped = int(np.count_nonzero(~shapely.intersects_xy(zone, rest[:, 0], rest[:, 1]))) if len(rest) else 0
            if dropped > 0:
                self.notes.append(
                    f"polyline {i}: the pen lifts on touching portal entry {entry.id}; {dropped} later "
                    f"point{'s' if dropped != 1 else ''} of this polyline "
                    f"{'are' if dropped != 1 else 'is'} ignored"
                )
            points = kept
        self.previous = entry
        self.uses.append(PortalUse(entry, i))
        return points


def _flatten(kept: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, list[int], np.ndarray]:
    """The kept polylines as one point array, which segments are drawn, each polyline's first
    point and the drawn length up to each point."""
    chunks, drawn, poly_first = [], [], []
    count = 0
    for i, points in enumerate(kept):
        if i:
            drawn.append(False)
        poly_first.append(count)
        if len(points) == 1:
            points = np.vstack([points, points])
        chunks.append(points)
        drawn.extend([True] * (len(points) - 1))
        count += len(points)
    P = np.vstack(chunks)
    drawn_arr = np.array(drawn, dtype=bool)
    seg_len = np.hypot(*(P[1:] - P[:-1]).T) * drawn_arr
    cum = np.concatenate([[0.0], np.cumsum(seg_len)])
    return P, drawn_arr, poly_first, cum


def build_path(rules: LineRules, pen: PenGeometry, raw: list, w: float) -> tuple[Path | None, list]:
    """The :class:`Path` of the play's polylines ``raw`` for pen width ``w``, and the problems
    found (``(pointer, message)``); the path is ``None`` when there are problems."""
    problems: list[tuple[str, str]] = []
    reader = _PortalReader(rules, pen)
    kept: list[np.ndarray] = []
    start = rules.starts[0]
    for i, line in enumerate(raw):
        points = dedupe(np.asarray(line, dtype=float).reshape(-1, 2))
        if i == 0:
            start = _nearest_start(rules, points[0], w, problems)
        else:
            reader.land(i, points, problems)
        kept.append(reader.lift(i, points))
    if problems:
        return None, problems
    P, drawn, poly_first, cum = _flatten(kept)
    # the position of each portal touch: the end of its polyline
    for use in reader.uses:
        use.t = float(poly_first[use.polyline] + max(len(kept[use.polyline]), 2) - 1)
    return Path(P, drawn, poly_first, cum, start, reader.uses, reader.landing, reader.notes), problems
