"""Stage 3 of the referee: when each thing happens along the path.

:func:`find_events` computes, on the whole drawn path and with shapely's vectorised functions
and numpy, the position ``t`` at which each element is first touched, completed by its own
interaction and completed by the character's ability (:class:`ElementTimes`); when each
artifact group is completed and first touched (:class:`GroupTimes`); which orb tokens the
player takes in what order (:class:`OrbTake`); and where the scrawl ends (:class:`Ending`).
The interactions are those of the package docstring (:mod:`inkcrawl.engines.line`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely import STRtree

from inkcrawl.engines.line.errors import PlayError
from inkcrawl.engines.line.path import Path, dedupe_index
from inkcrawl.engines.line.pieces import Pieces
from inkcrawl.engines.line.player import Player
from inkcrawl.engines.line.rules import (
    INF,
    PASS_THROUGH_MIN_ANGLE,
    Element,
    LineRules,
    Samples,
    describe,
)
from inkcrawl.geoarrays import linestring_array

#: How the breakdown names a Scrawl End another player caused (the play's ``end``).
OTHER_END = {
    "timer": "the timer ran out",
    "boss_covered": "another player covered the boss",
    "escape_portal": "another player entered the escape portal",
    "exit_reached": "another player reached the exit",
    "orb_taken": "another player took the orb token that ends the scrawl",
}


@dataclass
class ElementTimes:
    """Positions per element index (``INF``: never): ``touch`` (the stroke meets its ink),
    ``done`` (its own interaction completed), ``ability`` (completed by the character's
    ability), ``head`` (the Barbarian's head covered), ``complete`` (the earlier of ``done`` and
    ``ability``); per sample, when the path reached it, for cover, head and trace."""

    touch: np.ndarray
    done: np.ndarray
    ability: np.ndarray
    head: np.ndarray
    complete: np.ndarray
    cover_times: dict[int, np.ndarray] = field(default_factory=dict)
    head_times: dict[int, np.ndarray] = field(default_factory=dict)
    trace_times: dict[int, np.ndarray] = field(default_factory=dict)


@dataclass
class GroupTimes:
    """Per artifact group (in ``rules.groups`` order): when it was completed and first touched."""

    done: list[float]
    touch: list[float]


@dataclass
class OrbTake:
    """An orb covered at ``t``: its token ``colour`` and stack ``position`` (1: the top)."""

    t: float
    element: Element
    colour: str | None
    position: int


@dataclass
class Ending:
    """Where the scrawl ends: position ``t``, the ``reason`` as the breakdown says it, and the
    index of the element whose trigger ended it (``None``: the path ended or another player)."""

    t: float
    reason: str
    element: int | None


@dataclass
class Events:
    """Everything :func:`find_events` found, and ``notes`` for the breakdown."""

    times: ElementTimes
    groups: GroupTimes
    takes: list[OrbTake]
    orb_notes: list[str]
    end: Ending
    notes: list[str]


# -- distances along the path ------------------------------------------------------------------


class PathReach:
    """When the path first comes within a distance of sample points (the drawn segments in a
    tree, built on first use)."""

    def __init__(self, path: Path):
        self.path = path
        self.built = False
        self.seg_idx = np.zeros(0, dtype=int)
        self.tree: STRtree | None = None

    def _build(self) -> None:
        P, drawn = self.path.P, self.path.drawn
        idx = np.flatnonzero(drawn)
        a, b = P[idx], P[idx + 1]
        zero = np.all(a == b, axis=1)
        segments = np.empty(len(idx), dtype=object)
        if (~zero).any():
            segments[~zero] = shapely.linestrings(np.stack([a[~zero], b[~zero]], axis=1))
        if zero.any():
            segments[zero] = shapely.points(a[zero])
        self.seg_idx = idx
        self.tree = STRtree(segments) if len(segments) else None
        self.built = True

    def earliest(self, samples: np.ndarray, geoms: np.ndarray, d: float) -> np.ndarray:
        """For each sample point (coordinates and shapely points), the first position at which
        the path is within ``d`` of it."""
        out = np.full(len(samples), INF)
        if not len(samples):
            return out
        if not self.built:
            self._build()
        if self.tree is None:
            return out
        pi, si = self.tree.query(geoms, predicate="dwithin", distance=d + 1e-9)
        if not len(pi):
            return out
        P = self.path.P
        seg = self.seg_idx[si]
        a = P[seg]
        v = P[seg + 1] - a
        ap = a - samples[pi]
        A = (v * v).sum(axis=1)
        B = 2 * (v * ap).sum(axis=1)
        C = (ap * ap).sum(axis=1) - d * d
        disc = np.maximum(B * B - 4 * A * C, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(C <= 0, 0.0, (-B - np.sqrt(disc)) / (2 * A))
        f = np.clip(np.nan_to_num(f, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
        t = seg + f
        order = np.lexsort((t, pi))
        pi_sorted = pi[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = pi_sorted[1:] != pi_sorted[:-1]
        out[pi_sorted[first]] = t[order][first]
        return out


def quantile_time(times: np.ndarray, fraction: float) -> float:
    """The first position at which at least ``fraction`` of the samples are reached."""
    n = len(times)
    if not n:
        return INF
    k = min(n, max(1, int(math.ceil(fraction * n - 1e-9))))
    return float(np.partition(times, k - 1)[k - 1])


def fraction(times: np.ndarray | None, t: float) -> float:
    """The share of samples reached by position ``t``."""
    if times is None or not len(times):
        return 0.0
    return float(np.count_nonzero(times <= t)) / len(times)


# -- elements ------------------------------------------------------------------------------------


def _covered(reach: PathReach, samples: Samples, w: float, done: np.ndarray) -> dict[int, np.ndarray]:
    """Sample times of each element of ``samples`` under the stroke; sets ``done`` to when its
    ``min_coverage`` share is covered."""
    per_element: dict[int, np.ndarray] = {}
    if not len(samples.points):
        return per_element
    times = reach.earliest(samples.points, samples.geoms, w / 2)
    for e, sl in zip(samples.elements, samples.slices):
        per_element[e.index] = times[sl]
        done[e.index] = quantile_time(times[sl], e.min_coverage)
    return per_element


def _traced(reach: PathReach, samples: Samples, w: float, done: np.ndarray) -> dict[int, np.ndarray]:
    """Sample times of each traced element; sets ``done`` to when its last point is reached."""
    per_element: dict[int, np.ndarray] = {}
    by_distance: dict[float, list[int]] = {}
    for i, e in enumerate(samples.elements):
        # within max_distance_pen_widths of the stroke: of the centre line plus half the pen
        by_distance.setdefault(e.trace_pen_widths * w + w / 2, []).append(i)
    for d, members in by_distance.items():
        parts = [samples.points[samples.slices[i]] for i in members]
        geoms = np.concatenate([samples.geoms[samples.slices[i]] for i in members])
        times = reach.earliest(np.concatenate(parts), geoms, d)
        start = 0
        for i, part in zip(members, parts):
            e = samples.elements[i]
            sample_times = times[start : start + len(part)]
            start += len(part)
            per_element[e.index] = sample_times
            done[e.index] = float(sample_times.max())
    return per_element


def _pass_through(e: Element, pieces: Pieces) -> float:
    """When the path first leaves the footprint at least PASS_THROUGH_MIN_ANGLE around the
    centre from where it entered."""
    M, T, V, drawn = pieces.M, pieces.T, pieces.V, pieces.drawn
    if e.at is None:
        return INF  # neither ``at`` nor a footprint in the game data: nothing to pass through
    cx, cy = e.at
    for k0, k1 in pieces.foot_runs.get(e.index) or []:
        if k0 == 0 or not drawn[k0 - 1] or k1 + 1 >= M or not drawn[k1 + 1]:
            continue
        p, q = V[k0], V[k1 + 1]
        a1 = math.atan2(p[1] - cy, p[0] - cx)
        a2 = math.atan2(q[1] - cy, q[0] - cx)
        angle = abs((math.degrees(a2 - a1) + 180) % 360 - 180)
        if angle >= PASS_THROUGH_MIN_ANGLE - 1e-9:
            return float(T[k1 + 1])
    return INF


def _segment_intersection(p1, p2, q1, q2):
    d1, d2 = p2 - p1, q2 - q1
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-15:
        # parallel: touching end to end counts as meeting
        for x in (q1, q2):
            if np.hypot(*(x - p1)) < 1e-9 or np.hypot(*(x - p2)) < 1e-9:
                return x.copy()
        return None
    diff = q1 - p1
    s = (diff[0] * d2[1] - diff[1] * d2[0]) / denom
    u = (diff[0] * d1[1] - diff[1] * d1[0]) / denom
    if -1e-9 <= s <= 1 + 1e-9 and -1e-9 <= u <= 1 + 1e-9:
        return p1 + s * d1
    return None


def _circle(e: Element, pieces: Pieces, w: float) -> float:
    """The Wizard's circle: the first time the path closes a loop inside the spell's
    footprint enclosing at least a pen dot."""
    min_area = math.pi * (w / 2) ** 2
    best = INF
    for k0, k1 in pieces.foot_runs.get(e.index) or []:
        pts = pieces.V[k0 : k1 + 2]
        ts = pieces.T[k0 : k1 + 2]
        if len(pts) - 1 < 3:
            continue
        segs = linestring_array(np.stack([pts[:-1], pts[1:]], axis=1))
        ii, jj = STRtree(segs).query(segs, predicate="intersects")
        sel = jj > ii + 1
        ii, jj = ii[sel], jj[sel]
        if not len(ii):
            continue
        cross = pts[:-1, 0] * pts[1:, 1] - pts[1:, 0] * pts[:-1, 1]
        prefix = np.concatenate([[0.0], np.cumsum(cross)])
        for i, j in sorted(zip(ii.tolist(), jj.tolist()), key=lambda ij: ij[1]):
            x = _segment_intersection(pts[i], pts[i + 1], pts[j], pts[j + 1])
            if x is None:
                continue
            # loop: x -> pts[i+1] -> ... -> pts[j] -> x
            s = prefix[j] - prefix[i + 1]
            s += pts[j][0] * x[1] - x[0] * pts[j][1]
            s += x[0] * pts[i + 1][1] - pts[i + 1][0] * x[1]
            if abs(s) / 2 >= min_area:
                seg_len2 = float(((pts[j + 1] - pts[j]) ** 2).sum())
                f = float(((x - pts[j]) @ (pts[j + 1] - pts[j])) / seg_len2) if seg_len2 > 0 else 0.0
                best = min(best, float(ts[j] + f * (ts[j + 1] - ts[j])))
                break
    return best


def element_times(rules: LineRules, path: Path, pieces: Pieces, player: Player) -> ElementTimes:
    """The :class:`ElementTimes` of every element."""
    w, T, ability = player.w, pieces.T, player.ability
    n = len(rules.elements)
    reach = PathReach(path)
    touch = np.full(n, INF)
    for index, element_runs in pieces.zone_runs.items():
        touch[index] = T[element_runs[0][0]]
    done = np.full(n, INF)
    cover_times = _covered(reach, rules.cover, w, done)
    head = np.full(n, INF)
    head_times = _covered(reach, rules.heads, w, head) if ability == "monster_by_head" else {}
    trace_times = _traced(reach, rules.traces, w, done)
    for e in rules.elements:
        if e.interaction == "touch":
            done[e.index] = touch[e.index]
        elif e.interaction == "enter":
            foot_runs = pieces.foot_runs.get(e.index)
            done[e.index] = T[foot_runs[0][0]] if foot_runs else INF
        elif e.interaction == "pass_through":
            done[e.index] = _pass_through(e, pieces)
    for use in path.portal_uses:
        done[use.entry.index] = min(done[use.entry.index], use.t)
        touch[use.entry.index] = min(touch[use.entry.index], use.t)
    by_ability = np.full(n, INF)
    for e in rules.elements:
        if ability == "treasure_by_touch" and e.kind == "treasure":
            by_ability[e.index] = touch[e.index]
        elif ability == "spell_by_circle" and e.kind == "spell":
            by_ability[e.index] = _circle(e, pieces, w)
        elif ability == "monster_by_head" and e.kind == "monster":
            by_ability[e.index] = head[e.index]
    return ElementTimes(
        touch, done, by_ability, head, np.minimum(done, by_ability), cover_times, head_times, trace_times
    )


# -- artifact groups -------------------------------------------------------------------------


def _touch_after(stone: Element, t: float, pieces: Pieces) -> float:
    for k0, k1 in pieces.zone_runs.get(stone.index, []):
        start, end = pieces.T[k0], pieces.T[k1 + 1]
        if end >= t:
            return float(max(start, t))
    return INF


def group_times(rules: LineRules, pieces: Pieces, times: ElementTimes, player: Player) -> GroupTimes:
    """When each artifact group is completed (its stones touched in number order, or in any
    order for the Cleric) and first touched."""
    any_order = player.ability == "artifacts_any_order"
    done: list[float] = []
    touch: list[float] = []
    for group in rules.groups:
        stones = group.stones
        touch.append(min(float(times.touch[s.index]) for s in stones))
        if any_order:
            done.append(max(float(times.touch[s.index]) for s in stones))
            continue
        t = -INF
        for stone in stones:
            t = _touch_after(stone, t, pieces)
            if t == INF:
                break
        done.append(t)
    return GroupTimes(done, touch)


# -- orbs and the end ------------------------------------------------------------------------


def orb_takes(rules: LineRules, play: dict, times: ElementTimes) -> tuple[list[OrbTake], list[str]]:
    """The orb tokens taken in path order with their stack positions, and notes on positions
    the play lists for orbs the path does not cover."""
    given = {c: list(v) for c, v in (play.get("orb_tokens") or {}).items()}
    covered = sorted(
        (float(times.done[e.index]), e.index) for e in rules.elements if e.kind == "orb" and times.done[e.index] < INF
    )
    takes = []
    counters: dict[str | None, int] = {}  # by token colour (game data may give an orb none)
    for t, index in covered:
        e = rules.elements[index]
        colour = e.colour
        i = counters.get(colour, 0)
        counters[colour] = i + 1
        positions = given.get(colour, [])
        if i < len(positions):
            position = int(positions[i])
        else:
            position = (int(positions[-1]) if positions else 0) + (i - len(positions)) + 1
        takes.append(OrbTake(t, e, colour, position))
    notes = []
    for colour, positions in given.items():
        if len(positions) > counters.get(colour, 0):
            notes.append(
                f"the play lists {len(positions)} {colour} token(s), the path covers "
                f"{counters.get(colour, 0)} {colour} orb(s)"
            )
    return takes, notes


def _end_position(end: dict, path: Path, raw: list) -> float:
    """The position of the play's ``end`` (another player's trigger) on the kept path."""
    at = end.get("at") or {}
    if "length_mm" in at:
        return path.t_at_length(float(at["length_mm"]))
    polyline, point = int(at.get("polyline", 0)), int(at.get("point", 0))
    if polyline >= len(raw):
        raise PlayError([("/end/at/polyline", f"the path has {len(raw)} polyline(s), no polyline {polyline}")])
    if point >= len(raw[polyline]):
        raise PlayError([("/end/at/point", f"polyline {polyline} has {len(raw[polyline])} point(s), no point {point}")])
    # the same point in the kept path: points are deduplicated and cut at portals
    original = dedupe_index(np.asarray(raw[polyline], dtype=float).reshape(-1, 2), point)
    first = path.poly_first[polyline]
    last = (path.poly_first[polyline + 1] - 1) if polyline + 1 < len(path.poly_first) else len(path.P) - 1
    t = float(min(first + original, last))
    if t >= len(path.P) - 1:
        return INF
    return t


def _trigger_ends(rules: LineRules, times: ElementTimes, takes: list[OrbTake]) -> list[tuple[float, str, int | None]]:
    """The end triggers the sheet lists, where the path sets them off."""
    ends: list[tuple[float, str, int | None]] = []
    for e in rules.elements:
        t = float(times.complete[e.index]) if e.kind != "boss" else float(times.done[e.index])
        if t == INF:
            continue
        if e.kind == "boss" and rules.lists_trigger("boss_covered"):
            ends.append((t, f"{describe(e)} covered", e.index))
        elif e.kind == "escape_portal" and rules.lists_trigger("escape_portal"):
            ends.append((t, f"{describe(e)} entered", e.index))
        elif e.kind == "exit" and rules.lists_trigger("exit_reached"):
            ends.append((t, f"{describe(e)} reached", e.index))
    for take in takes:
        stack = len(rules.orb_tokens.get(take.colour, []))
        for trigger in rules.end_triggers:
            if not isinstance(trigger, dict) or trigger.get("kind") != "orb_taken":
                continue
            if trigger.get("colour") not in (None, take.colour):
                continue
            when = trigger.get("when", "first")
            if (when == "first" and take.position == 1) or (when == "last" and take.position == stack):
                ends.append(
                    (take.t, f"the {when} {take.colour} orb token taken ({describe(take.element)})", take.element.index)
                )
    return ends


def ending(
    rules: LineRules, play: dict, path: Path, times: ElementTimes, takes: list[OrbTake]
) -> tuple[Ending, list[str]]:
    """Where the scrawl ends (the earliest of the path's end, the listed triggers it sets off
    and the play's ``end``), and notes."""
    notes = []
    ends: list[tuple[float, str, int | None]] = [(float(len(path.P) - 1), "the path ends", None)]
    ends += _trigger_ends(rules, times, takes)
    end = play.get("end")
    if end is not None:
        t = _end_position(end, path, play.get("path") or [])
        label = OTHER_END.get(end["trigger"], "another player ended the scrawl")
        if t == INF:
            notes.append(f"the play's end ({label}) lies after the end of the path")
        ends.append((t, label, None))
    ends.sort(key=lambda x: x[0])
    return Ending(*ends[0]), notes


def find_events(rules: LineRules, path: Path, pieces: Pieces, player: Player, play: dict) -> Events:
    """Stage 3: the :class:`Events` of the play."""
    times = element_times(rules, path, pieces, player)
    groups = group_times(rules, pieces, times, player)
    takes, orb_notes = orb_takes(rules, play, times)
    end, notes = ending(rules, play, path, times, takes)
    return Events(times, groups, takes, orb_notes, end, notes)
