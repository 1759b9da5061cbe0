"""Stage 4 of the referee: the walk through the areas, up to the end of the scrawl.

:func:`walk` follows the refined path from the Start through its changes of region and its wall
crossings: it opens a new :class:`Section` for each area entered (through an opening, a door
the held keys open, a portal), charges wall crossings (per excursion or per crossing point),
takes keys when they are touched (skeleton keys by the play's choice or the referee's), and
stops at an *illegal crossing* (through a wall, a locked door, or between areas nothing joins)
or at the end of the scrawl. Keys, doors and wall crossings become lines of the section they
happen in (:class:`Walk`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from inkcrawl.engines.line.events import Events
from inkcrawl.engines.line.path import Path
from inkcrawl.engines.line.pieces import Pieces
from inkcrawl.engines.line.player import Player
from inkcrawl.engines.line.rules import (
    DOOR_TOLERANCE_MM,
    INF,
    JUMP,
    VOID,
    Door,
    Element,
    LineRules,
    describe,
)
from inkcrawl.engines.wall_network import separates
from inkcrawl.locks import door_opens
from inkcrawl.model import SKELETON_LOCK


@dataclass
class Section:
    """A stretch of the path in one area (``VOID``: outside), from position ``t0`` to ``t1``,
    entered ``via`` (how the breakdown says it)."""

    area: int
    t0: float
    via: str
    t1: float = INF


@dataclass
class Illegal:
    """The illegal crossing: its position ``t``, point ``at`` (rounded) and what happened."""

    t: float
    at: list[float]
    text: str


@dataclass
class Walk:
    """The sections in path order; the lines of wall crossings, keys and doors, each with the
    index of its section; the illegal crossing if any; ``t_score`` (what is drawn after it is
    not scored: the end of the scrawl or the illegal crossing) and the area the walk ended in."""

    sections: list[Section]
    wall_lines: list[tuple[int, dict]]
    key_lines: list[tuple[int, dict]]
    door_lines: list[tuple[int, dict]]
    illegal: Illegal | None
    t_illegal: float
    t_score: float
    final_area: int

    def section_at(self, t: float) -> int:
        """The index of the section position ``t`` lies in."""
        return section_at(self.sections, t)


def section_at(sections: list[Section], t: float) -> int:
    """The index of the last section that began at or before position ``t``."""
    index = 0
    for i, section in enumerate(sections):
        if section.t0 <= t:
            index = i
    return index


def round_point(p) -> list[float]:
    """A point rounded to 0.1 mm, for the breakdown."""
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def _door_passes(rules: LineRules, pieces: Pieces) -> list[tuple[float, list[str]]]:
    """Where the path goes from one area straight into another near a door (the skeleton
    key's look-ahead): ``(t, locks)`` in path order."""
    if not rules.doors:
        return []
    region = pieces.region
    out = []
    for k in (np.flatnonzero((region[1:] != region[:-1]) & (region[1:] >= 0)) + 1).tolist():
        point = shapely.points(pieces.V[k])
        for door in rules.doors:
            if shapely.distance(door.geom, point) <= DOOR_TOLERANCE_MM:
                out.append((float(pieces.T[k]), door.locks))
                break
    return out


def _door_at(rules: LineRules, a: int, b: int, point) -> Door | None:
    """The door the path goes through from area ``a`` into ``b`` at ``point``, if any."""
    if a < 0 or b < 0:
        return None
    ids = frozenset((rules.areas[a]["id"], rules.areas[b]["id"]))
    candidates = [d for d in rules.doors if d.pair == ids]
    if not candidates:
        return None
    p = shapely.points(point)
    distances = [float(shapely.distance(d.geom, p)) for d in candidates]
    best = int(np.argmin(distances))
    if distances[best] <= DOOR_TOLERANCE_MM or ids not in rules.open_pairs:
        return candidates[best]
    return None


class _Keys:
    """The keys the player holds, taken as the path touches them."""

    def __init__(self, rules: LineRules, play: dict, player: Player, events: Events, door_passes: list):
        self.rules = rules
        self.supply = player.supply
        self.held: list[str] = []
        self.gone = set(play.get("keys_gone") or [])
        self.choices = dict(play.get("skeleton_keys") or {})
        touch = events.times.touch
        self.events = sorted(
            (float(touch[e.index]), e.index)
            for e in rules.elements
            if e.kind in ("key", "skeleton_key") and touch[e.index] < INF
        )
        self.next = 0
        self.door_passes = door_passes
        self.lines: list[tuple[int, dict]] = []

    def take_until(self, until: float, sections: list[Section]) -> None:
        """Take every key touched at or before position ``until``."""
        while self.next < len(self.events) and self.events[self.next][0] <= until:
            t, index = self.events[self.next]
            self.next += 1
            self.lines.append((section_at(sections, t), self._take(self.rules.elements[index], t)))

    def _take(self, e: Element, t: float) -> dict:
        line = {"_t": t, "kind": "key", "vp": 0, "element": e.id, "taken": False}
        if e.id in self.gone or self.supply <= 0:
            line["text"] = f"touched {describe(e)}: no token left"
        elif e.kind == "key":
            if e.colour is None:  # game data may leave a key's colour out: such a key opens nothing
                line["text"] = f"touched {describe(e)}: a key without a colour, nothing to take"
            elif e.colour in self.held:
                line["text"] = f"touched {describe(e)}: already holds a {e.colour} key"
            else:
                self.held.append(e.colour)
                line["taken"] = True
                line["text"] = f"took the {e.colour} key ({describe(e)})"
        else:
            colour = self.choices.get(e.id)
            if colour is None:
                colour = self._skeleton_choice(t)
            if colour is None or colour in self.held:
                line["text"] = f"touched {describe(e)}: no key colour left to take"
            else:
                self.held.append(colour)
                line["taken"] = True
                how = "named in the play" if e.id in self.choices else "the referee's choice: the play names none"
                line["text"] = f"took a {colour} key with {describe(e)} ({how})"
        return line

    def _skeleton_choice(self, t: float) -> str | None:
        """The first colour a later door the path passes needs and the player lacks, else the
        first colour not held."""
        free = [c for c in self.rules.key_colours if c not in self.held]
        if not free:
            return None
        for when, locks in self.door_passes:
            if when <= t or door_opens(locks, self.held):
                continue
            for colour in free:
                if colour in locks:
                    return colour
            if SKELETON_LOCK in locks:
                return free[0]
        return free[0]


class _Walker:
    """Walks the refined path vertex by vertex (see the module docstring)."""

    def __init__(self, rules: LineRules, play: dict, player: Player, path: Path, pieces: Pieces, events: Events):
        self.rules = rules
        self.path = path
        self.pieces = pieces
        self.t_end = events.end.t
        self.wall_vp = rules.switch_vp("wall_crossing_vp", "wall_crossing")
        self.per_excursion = rules.switch("wall_crossing_count") != "per_wall_segment"
        self.poke_back = rules.switch("wall_poke") == "out_and_back"
        self.keys = _Keys(rules, play, player, events, _door_passes(rules, pieces))
        self.sections: list[Section] = []
        self.wall_lines: list[tuple[int, dict]] = []
        self.door_lines: list[tuple[int, dict]] = []
        self.illegal: Illegal | None = None
        # where the walk is: the current area, whether the line is outside it, and the walls
        # crossed on the excursion out of it (and where the first was)
        self.cur = VOID
        self.outside = False
        self.excursion_walls = 0
        self.excursion_at: np.ndarray | None = None  # where the current excursion left the area

    def new_section(self, area: int, t: float, via: str) -> None:
        self.sections.append(Section(area, t, via))

    def penalty(self, count: int, at, t: float, what: str) -> None:
        vp = self.wall_vp if self.per_excursion else self.wall_vp * count
        self.wall_lines.append(
            (
                len(self.sections) - 1,
                {
                    "_t": t,
                    "kind": "wall_crossing",
                    "vp": vp,
                    "at": round_point(at),
                    "text": what + ("" if self.per_excursion or count == 1 else f" ({count} crossings)"),
                },
            )
        )

    def begin(self, start: dict) -> bool:
        """The line is in the Start's area from its first point (in another area when it begins
        inside one, within the Start's reach, on the same paper as the Start); begun outside
        the outline, it is outside that area, having left it through the Start's entrance gap.
        Begun on the far side of a wall from the Start (another area's paper that the walls'
        ink separates from the Start), it crossed that wall: an illegal crossing (``False``;
        RULES.md 2, Drawing rules 1 and 2)."""
        region = self.pieces.region
        live = np.flatnonzero(region != JUMP)
        first_region = int(region[live[0]]) if len(live) else VOID
        if 0 <= first_region != start["area"] and separates(
            self.rules.network, np.asarray(start["at"], dtype=float), self.pieces.V[live[0]]
        ):
            self.cur, self.outside = start["area"], False
            self.new_section(self.cur, 0.0, f"from Start {start['id']}")
            point = self.pieces.V[live[0]]
            self.illegal = Illegal(
                0.0,
                round_point(point),
                f"began across a wall from Start {start['id']}, in "
                f"{self.rules.area_name(first_region)}: everything "
                f"drawn from here on is ignored",
            )
            return False
        self.cur = first_region if first_region >= 0 else start["area"]
        self.outside = first_region < 0
        self.new_section(self.cur, 0.0, f"from Start {start['id']}")
        return True

    def land(self, t: float, r1: int) -> None:
        """A portal jump ends: the line is in the exit's area."""
        landing = self.path.landing.get(self.path.polyline_of(t))
        area = r1 if r1 >= 0 else (landing.area if landing is not None else self.cur)
        if area != self.cur:
            channel = landing.channel if landing is not None else "?"
            self.new_section(area, t, f"through portal {channel}" + (f" (exit {landing.id})" if landing else ""))
        self.cur, self.outside, self.excursion_walls = area, r1 < 0, 0

    def same_region(self, r1: int, walls: int, point, t: float) -> None:
        """A wall crossed without a change of region."""
        if walls and r1 == self.cur and r1 >= 0:
            self.penalty(1, point, t, f"crossed a wall at ({point[0]:.1f}, {point[1]:.1f}), staying in the same area")
        elif walls:
            self.excursion_walls += walls
            self.excursion_at = self.excursion_at if self.excursion_at is not None else point

    def leave(self, r0: int, walls: int, point) -> None:
        """Out of every area."""
        if r0 == self.cur:
            self.outside = True
            self.excursion_walls, self.excursion_at = walls, (point if walls else None)
        else:
            self.excursion_walls += walls

    def come_back(self, walls: int, point, t: float) -> None:
        """Back into the current area."""
        total = self.excursion_walls + walls
        if total:
            where = self.excursion_at if self.excursion_at is not None else point
            self.penalty(
                total, where, t, f"crossed a wall at ({where[0]:.1f}, {where[1]:.1f}) and came back into the same area"
            )
        self.outside, self.excursion_walls, self.excursion_at = False, 0, None

    def straight_back(self, k: int, area: int, home: int) -> bool:
        """Whether the path, having entered ``area`` at refined vertex ``k``, next changes area
        straight back into ``home`` (the ``wall_poke: out_and_back`` reading)."""
        region = self.pieces.region
        for j in range(k + 1, self.pieces.M):
            if region[j] == area:
                continue
            return int(region[j]) == home
        return False

    def enter(self, k: int, r1: int, walls: int, point, t: float, named=None) -> bool:
        """Into another area at ``point``; ``False`` when that is an illegal crossing (the walk
        stops; named at ``named``, the crossed wall, default ``point``)."""
        named = point if named is None else named
        rules, cur = self.rules, self.cur
        total = (self.excursion_walls if self.outside else 0) + walls
        door = _door_at(rules, cur, r1, point) if not total else None
        joined = (
            door is not None or frozenset((rules.areas[cur]["id"], rules.areas[r1]["id"])) in rules.open_pairs
            if cur >= 0
            else False
        )
        if not total and not joined:
            total = 1  # no opening or door joins the two areas: the line crossed their wall
        if total:
            if self.poke_back and self.straight_back(k, r1, cur):
                # out through a wall and straight back: an excursion (wall_poke: out_and_back)
                self.outside = True
                self.excursion_walls = total
                self.excursion_at = named if self.excursion_at is None else self.excursion_at
                return True
            self.illegal = Illegal(
                t,
                round_point(named),
                f"crossed a wall into {rules.area_name(r1)}: everything drawn from here on is ignored",
            )
            return False
        if door is not None:
            held = self.keys.held
            if not door_opens(door.locks, held):
                have = ", ".join(held) or "no key"
                self.illegal = Illegal(
                    t,
                    round_point(point),
                    f"went through locked door {door.id} (locks: "
                    f"{', '.join(door.locks)}) holding {have}: everything "
                    f"drawn from here on is ignored",
                )
                return False
            self.new_section(r1, t, f"through door {door.id}")
            self.door_lines.append(
                (
                    len(self.sections) - 1,
                    {
                        "_t": t,
                        "kind": "door",
                        "vp": 0,
                        "element": door.id,
                        "text": f"door {door.id} opened (locks: {', '.join(door.locks)}; keys held: {', '.join(held)})",
                    },
                )
            )
        else:
            self.new_section(r1, t, "through an opening")
        self.cur, self.outside, self.excursion_walls, self.excursion_at = r1, False, 0, None
        return True

    def step(self, k: int) -> bool:
        """Refined vertex ``k`` (a change of region or a wall crossing); ``False`` to stop."""
        pieces = self.pieces
        t = float(pieces.T[k])
        r0, r1 = int(pieces.region[k - 1]), int(pieces.region[k])
        walls = 1 if k in pieces.wall_vertices else 0
        point = pieces.V[k]
        named = pieces.wall_at.get(k, point)  # a crossing is named on the wall, not where the ink ends
        if r1 == JUMP:
            return True
        if r0 == JUMP:
            self.land(t, r1)
        elif r0 == r1:
            self.same_region(r1, walls, named, t)
        elif r1 == VOID:
            self.leave(r0, walls, named)
        elif r1 == self.cur:
            self.come_back(walls, named, t)
        else:
            return self.enter(k, r1, walls, point, t, named)
        return True

    def run(self) -> Walk:
        began = self.begin(self.path.start)
        region = self.pieces.region
        change = np.flatnonzero(region[1:] != region[:-1]) + 1
        for k in sorted(set(change.tolist()) | set(self.pieces.wall_vertices)) if began else []:
            t = float(self.pieces.T[k])
            if t >= self.t_end:
                break
            self.keys.take_until(t, self.sections)
            if not self.step(k):
                break
        t_illegal = self.illegal.t if self.illegal else INF
        t_score = min(self.t_end, t_illegal)
        self.keys.take_until(t_score, self.sections)
        if self.outside and self.excursion_walls and not self.illegal:
            at = self.excursion_at if self.excursion_at is not None else self.path.position(t_score)
            self.penalty(self.excursion_walls, at, t_score, "crossed a wall out of the area and never came back")
        for i, section in enumerate(self.sections):
            section.t1 = self.sections[i + 1].t0 if i + 1 < len(self.sections) else t_score
        return Walk(
            self.sections, self.wall_lines, self.keys.lines, self.door_lines, self.illegal, t_illegal, t_score, self.cur
        )


def walk(rules: LineRules, play: dict, player: Player, path: Path, pieces: Pieces, events: Events) -> Walk:
    """Stage 4: the :class:`Walk` of the play."""
    return _Walker(rules, play, player, path, pieces, events).run()
