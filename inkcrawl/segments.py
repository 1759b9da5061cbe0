"""Where straight segments pass near other segments: intervals along segments, vectorised.

The printed sheet (:mod:`inkcrawl.printed`) needs, for every segment of every area outline,
the stretches that lie within some distance of other lines: another area's outline (the
stretches two areas share), a door, a Start's entrance gap, the ink of a wall. Polygon overlay
of buffered lines does this but costs milliseconds per dungeon; here each question is a
capsule (a segment grown by a radius, round ends) or a band (flat ends) meeting a straight
line, which is an interval of the segment's parameter, computed for all pairs at once with
numpy. Coordinates are sheet mm; parameters run from 0 at a segment's first point to 1 at its
second.
"""

from __future__ import annotations

import numpy as np

_EPS = 1e-12


def _disc(p0: np.ndarray, d: np.ndarray, c: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parameters ``t`` where ``p0 + t d`` lies within ``r`` of ``c`` (empty: lo > hi)."""
    a = (d * d).sum(axis=1)
    w = p0 - c
    b = 2 * (d * w).sum(axis=1)
    cc = (w * w).sum(axis=1) - r * r
    disc = b * b - 4 * a * cc
    ok = (disc >= 0) & (a > _EPS)
    root = np.sqrt(np.where(ok, disc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.where(ok, (-b - root) / (2 * a), np.inf)
        hi = np.where(ok, (-b + root) / (2 * a), -np.inf)
    return lo, hi


def _slab(offset: np.ndarray, rate: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parameters ``t`` with ``low <= offset + t rate <= high``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (low - offset) / rate
        t2 = (high - offset) / rate
    flat = np.abs(rate) < _EPS
    inside = (offset >= low - 1e-9) & (offset <= high + 1e-9)
    lo = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
    hi = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
    return lo, hi


def near_intervals(
    p0: np.ndarray, p1: np.ndarray, a: np.ndarray, b: np.ndarray, r: np.ndarray, round_ends: np.ndarray | bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """For pairs of segments, the part of each target segment ``p0 -> p1`` lying within ``r``
    of the cutter segment ``a -> b``.

    All arrays have one row per pair (``(n, 2)`` points, ``(n,)`` radii in mm). With
    ``round_ends`` the cutter is a capsule (a stroke with round caps, or a disc when ``a == b``);
    without, a band with flat ends (a door's stretch). Returns ``(lo, hi)``, parameters clipped
    to ``[0, 1]`` along the target segment; ``lo >= hi`` where they do not meet.
    """
    p0, p1, a, b = (np.asarray(v, dtype=float).reshape(-1, 2) for v in (p0, p1, a, b))
    r = np.broadcast_to(np.asarray(r, dtype=float), (len(p0),))
    round_ends = np.broadcast_to(np.asarray(round_ends, dtype=bool), (len(p0),))
    d = p1 - p0
    v = b - a
    length = np.hypot(v[:, 0], v[:, 1])
    safe = np.where(length > _EPS, length, 1.0)
    u = v / safe[:, None]
    n = np.stack([-u[:, 1], u[:, 0]], axis=1)
    w = p0 - a
    lo1, hi1 = _slab((w * u).sum(axis=1), (d * u).sum(axis=1), np.zeros(len(p0)), length)
    lo2, hi2 = _slab((w * n).sum(axis=1), (d * n).sum(axis=1), -r, r)
    lo = np.maximum(lo1, lo2)
    hi = np.minimum(hi1, hi2)
    band = length > _EPS
    lo = np.where(band, lo, np.inf)
    hi = np.where(band, hi, -np.inf)
    for centre in (a, b):
        dlo, dhi = _disc(p0, d, centre, r)
        use = round_ends & (dlo <= dhi)
        lo = np.where(use, np.minimum(lo, dlo), lo)
        hi = np.where(use, np.maximum(hi, dhi), hi)
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def merge(intervals: list[tuple[float, float]], eps: float = 1e-9) -> list[tuple[float, float]]:
    """The union of intervals ``(lo, hi)`` as sorted, disjoint intervals (empty ones dropped)."""
    out: list[list[float]] = []
    for lo, hi in sorted(i for i in intervals if i[1] - i[0] > eps):
        if out and lo <= out[-1][1] + eps:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def subtract(
    keep: list[tuple[float, float]], cut: list[tuple[float, float]], eps: float = 1e-9
) -> list[tuple[float, float]]:
    """Sorted disjoint intervals ``keep`` minus the union ``cut`` (both on ``[0, 1]``)."""
    cut = merge(cut, eps)
    out = []
    for lo, hi in keep:
        start = lo
        for clo, chi in cut:
            if chi <= start or clo >= hi:
                continue
            if clo > start + eps:
                out.append((start, clo))
            start = max(start, chi)
            if start >= hi - eps:
                break
        if hi - start > eps:
            out.append((start, hi))
    return out


def chain(points: np.ndarray, kept: dict[int, list[tuple[float, float]]], closed: bool = True) -> list[np.ndarray]:
    """Polylines made of the kept stretches of a polyline's segments.

    ``points`` is ``(n + 1, 2)`` for ``n`` segments (a closed ring repeats its first point);
    ``kept`` maps a segment index to the sorted disjoint parameter intervals kept on it
    (segments not listed keep nothing). Stretches that meet at a vertex (one ends at 1, the
    next starts at 0) join into one polyline, also across the ring's closing vertex when
    ``closed``. Returns ``(m, 2)`` arrays of sheet mm.
    """
    eps = 1e-9
    n = len(points) - 1
    pieces: list[list] = []
    current: list | None = None
    previous = -2
    for k in sorted(kept):
        intervals = kept[k]
        if not intervals:
            continue
        if k != previous + 1:
            current = None
        a, b = points[k], points[k + 1]
        for lo, hi in intervals:
            end = a + hi * (b - a)
            if current is not None and lo <= eps:
                current.append(end)
            else:
                current = [a + lo * (b - a), end]
                pieces.append(current)
            if hi < 1 - eps:
                current = None
        previous = k
    if closed and len(pieces) > 1:
        first = kept.get(0) or []
        last = kept.get(n - 1) or []
        if first and last and first[0][0] <= eps and last[-1][1] >= 1 - eps:
            tail = pieces.pop()
            pieces[0] = tail + pieces[0][1:]
    return [np.array(piece) for piece in pieces]
