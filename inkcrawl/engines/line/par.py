"""Par for a line dungeon: the best solo score under the rules, found by an exact search over the
areas, keys and portals, then drawn (:mod:`inkcrawl.engines.line.route`) and scored by the referee.

The search works on the game data's area graph (``open`` connections, doors with their locks,
one-way portals) and the value of each area under the line family's rules (RULES.md 2):

* Backtracking is free, so within a *phase* (from a Start, or from a portal exit) the line can be
  anywhere in the areas it has entered that openings and the doors its keys open join. A step
  enters one more area next to them (through an opening, or a door its keys open), uses a portal
  entry (a new phase from an exit of that channel; the entry's penalty is lifted), or ends.
* Entering a room obliges completing every element in it, so a room is worth the VP of all its
  elements; a corridor's elements are optional (only those worth something are done). Keys are
  taken as their area is entered (one of each colour, while the supply for the player count
  lasts; a skeleton key takes a colour of the search's choice). An unused portal entry in a room
  costs ``unused_portal_entry_vp``. Orbs are covered while their next token is worth something.
  Artifact stones count by triple at the end: all three entered (in phases in number order)
  +1, none touched in an entered home area ``artifact_untouched_group_vp``, else 0.
* The scrawl ends when the line chooses to stop, or by a trigger the sheet lists: covering the
  boss, entering an escape portal or an exit. The area it ends in is exempt from penalties
  (switch ``end_room_exempt``). A boss whose covering ends the scrawl is covered as its room is
  entered, or passed by (the line goes on through its room) and covered last from wherever the
  line is then, or never: the drawing then touches it on the way through its room, a failed
  attempt that scores 0 and costs no penalty (RULES.md 2, Drawing rules 3). On a tie in VP the
  route that comes back for no boss wins.

* A character changes the values and the stones' order (the Ranger's plants, the Cleric's stones in
  any order); the other abilities change how an element is drawn, which the drawing step does.
  The number of players sets the key supply.

The search is a depth-first search with memoisation over (entered areas, where the line is, keys,
orbs taken, portals used); it is exact for this model, so ``proven`` holds when the drawn route,
re-scored by the referee, scores the searched value. Outside the model: the other players at the
table (they may take keys and orb tokens first: :func:`inkcrawl.engines.line.simulate.play_table`
plays that), lengths (the timer is held against the drawn route afterwards; when the route does
not fit, :mod:`inkcrawl.engines.line.timer` bounds the VP of any line within the timer from a
lower bound of the length a set of elements needs, and routes found within it are drawn and
re-scored: ``timer_vp``, proven when it reaches ``timer_bound``), and a line that crosses a
wall and comes back (par's routes never do; the timer's bound counts them). Leaving an element of
an entered room undone on purpose is in the model where it can pay: touched, it is a failed
attempt (0 VP, no penalty), and an element completed at any time counts (RULES.md 2, Drawing
rules 3, Gaps and defaults), so it pays only where completing the element ends the scrawl: a boss
(passed by, above) and an orb whose token ends it (covered last or never). Units: VP; lengths in
sheet mm.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cache

from inkcrawl.engines.line.areas import AreaModel
from inkcrawl.engines.line.route import RouteError, draw_plan
from inkcrawl.engines.line.rules import Element, LineRules
from inkcrawl.locks import door_opens
from inkcrawl.suggest import did_you_mean

#: Interactions whose elements a room obliges the line to complete (and penalises when left).
_SCORED = ("cover", "trace", "pass_through", "touch")
#: How fast a player draws, mm of line per second, to hold a route against the sheet's timer. A
#: stated assumption, not a measurement: a careful line with a felt pen (quick handwriting moves
#: the pen tip at several cm/s; a player steering round walls and covering monsters draws
#: slower). Set it to your players' pace (``inkcrawl par --speed``).
DEFAULT_SPEED_MM_S = 50.0


@dataclass
class Par:
    """The best solo score found: ``par`` (what the drawn route scores through the referee),
    ``bound`` (the search's value: an upper bound of the model), ``proven`` (the two agree),
    the route as element ids in drawing order, the play file and its drawn length (mm)."""

    dungeon: str
    par: int
    bound: int
    proven: bool
    route: list[str] = field(default_factory=list)
    play: dict | None = None
    length_mm: float = 0.0
    note: str = ""
    timer_s: float | None = None
    speed_mm_s: float = DEFAULT_SPEED_MM_S
    fits_timer: bool | None = None
    timer_vp: int | None = None
    timer_length_mm: float | None = None
    timer_route: list[str] | None = None
    timer_play: dict | None = None
    timer_bound: int | None = None
    timer_proven: bool | None = None

    def as_dict(self) -> dict:
        """``{"dungeon", "par", "proven", "bound", "length_mm", "route", "note"}``, and with a timer
        on the sheet ``{"timer_s", "speed_mm_s", "seconds", "fits_timer", "timer_vp",
        "timer_length_mm", "timer_route", "timer_bound", "timer_proven"}``: the best score found
        within the timer, its route's length and element ids (the par route's when it fits), an
        upper bound of the VP any line within the timer scores, and whether ``timer_vp`` is
        proven the best (it reaches the bound)."""
        out = {
            "dungeon": self.dungeon,
            "par": self.par,
            "proven": self.proven,
            "bound": self.bound,
            "length_mm": round(self.length_mm, 1),
            "route": self.route,
            "note": self.note,
        }
        if self.timer_s is not None:
            out.update(
                timer_s=self.timer_s,
                speed_mm_s=self.speed_mm_s,
                seconds=round(self.length_mm / self.speed_mm_s, 1),
                fits_timer=self.fits_timer,
                timer_vp=self.timer_vp,
                timer_length_mm=round(self.timer_length_mm or 0.0, 1),
                timer_route=self.timer_route,
                timer_bound=self.timer_bound,
                timer_proven=self.timer_proven,
            )
        return out


def _enter_value(model: AreaModel, area: int, keys: frozenset, orbs: frozenset) -> list[tuple]:
    """Entering ``area``, each way it can go (a skeleton key may take any free colour; a boss
    whose covering ends the scrawl is covered, or passed by for later): a list of
    ``(VP, keys after, orbs covered after, elements to complete in order, ends)``, the first the
    one that completes everything."""
    room = model.rooms[area]
    value = 0
    todo: list[str] = []
    keys_after = set(keys)
    covered = set(orbs)
    bosses: list[Element] = []
    skeletons: list[Element] = []
    for e in sorted(model.by_area[area], key=lambda e: (e.kind != "key", e.kind == "boss", e.index)):
        if e.kind == "key" and e.colour and e.colour not in keys_after and model.supply > 0:
            keys_after.add(e.colour)
            todo.append(e.id)
        elif e.kind == "skeleton_key" and model.supply > 0:
            skeletons.append(e)
        elif e.kind == "boss":
            bosses.append(e)
        elif e.kind == "orb" and e.colour is not None and e.colour in model.tokens:
            token = model.next_token(e.colour, covered)
            if token is not None and token > 0 and not model.orb_ends(e.colour, covered):
                covered.add(e.id)
                value += token
                todo.append(e.id)
        elif e.kind == "portal_entry":
            if room:
                value += model.unused_entry
        elif e.interaction in _SCORED and e.kind not in ("key", "skeleton_key", "portal_entry"):
            if room or model.vp(e) > 0:
                value += model.vp(e)
                todo.append(e.id)
    keys_done, orbs_done = frozenset(keys_after), frozenset(covered)
    if bosses and model.boss_ends:
        # covering a boss ends the scrawl: the area's best boss covered last (the others stay
        # undone in the room the scrawl ends in), or each passed by for later (an element
        # completed at any time counts): covered last from wherever the line is (``solve``'s
        # ``best``), or touched on the way and never covered (a failed attempt, no penalty)
        ranked = sorted(bosses, key=lambda b: -model.vp(b))
        outcomes = [(value + model.vp(b), keys_done, orbs_done, [*todo, b.id], True) for b in ranked]
        outcomes.append((value, keys_done, orbs_done, list(todo), False))
    else:
        for boss in bosses:  # bosses that do not end the scrawl count as any element
            if room or model.vp(boss) > 0:
                value += model.vp(boss)
                todo.append(boss.id)
        outcomes = [(value, keys_done, orbs_done, todo, False)]
    for skeleton in skeletons:  # each takes one free colour of the search's choice (or none is left)
        branched = []
        for value_, keys_, covered_, todo_, ends_ in outcomes:
            free: list[str | None] = [c for c in model.colours if c not in keys_]
            for colour in free or [None]:
                taken = keys_ | {colour} if colour else keys_
                branched.append((value_, taken, covered_, [skeleton.id, *todo_] if colour else todo_, ends_))
        outcomes = branched
    return outcomes


#: States the exact search visits before it goes on greedily (one way on from each new state),
#: and the seconds it may take (whichever comes first; the bundled dungeons need a few thousand
#: states and a fraction of a second, so the limits only bind on big sheets).
STATE_BUDGET = 200_000
TIME_BUDGET_S = 5.0
#: States of the short exact search run when a greedy route already reaches the upper bound.
PROVEN_CHECK_STATES = 5_000


def upper_bound(rules: LineRules, players: int = 1, character: str | None = None) -> int:
    """A score no route beats: every element's positive VP for this player (the character's),
    every positive orb token (as many per colour as there are orbs of it) and the best an
    artifact triple can give (+1 connected, or the untouched value when positive)."""
    model = AreaModel(rules, players, character)
    total = sum(max(0, model.vp(e)) for e in rules.elements if e.kind != "orb" and e.interaction != "connect_in_order")
    for colour, stack in rules.orb_tokens.items():
        count = sum(1 for e in rules.elements if e.kind == "orb" and e.colour == colour)
        total += sum(v for v in stack[:count] if v > 0)
    return total + len(rules.groups) * max(1, model.untouched)


def solve(
    rules: LineRules,
    players: int = 1,
    budget: int = STATE_BUDGET,
    character: str | None = None,
    forbidden: frozenset[int] = frozenset(),
    myopic: bool = False,
) -> tuple[int, list, bool]:
    """The search's best value, its plan and whether the search was exhaustive (it goes on
    greedily, one way on from each new state, after ``budget`` states: the value is then a
    score some route makes, not a proven best). The plan is a list of steps
    ``("start", start id, area)``,
    ``("enter", area, [element ids], keys held after)``, ``("portal", entry id, exit id, area)``,
    ``("orb", orb id)`` (covering it ends the scrawl), ``("last", boss id)`` (a boss passed by
    earlier, covered last: it ends the scrawl) and ``("end", area)``. ``forbidden``: areas
    (indexes) the route may not enter (the timer's search leaves some out). The greedy steps
    take the area worth most at once, one whose entering does not end the scrawl first;
    ``myopic``: worth most at once, endings included (the greedy player of
    :mod:`inkcrawl.engines.line.simulate`)."""
    model = AreaModel(rules, players, character)
    groups = list(rules.groups)
    orbs_by_area = [
        [e for e in model.by_area[a] if e.kind == "orb" and e.colour in model.tokens] for a in range(model.n)
    ]

    # bosses whose covering ends the scrawl: one passed by is covered last, or never; one never
    # covered costs nothing, as the drawing touches it on the way (a failed attempt scores 0 and
    # no penalty, RULES.md 2, Drawing rules 3)
    ending_bosses = [e for e in rules.elements if e.kind == "boss" and model.boss_ends and e.area >= 0]

    def finish(entered: frozenset, phases: tuple, area: int, used: frozenset) -> int:
        """Stopping in ``area``: the stones' triples, and the area's own penalties lifted."""
        value = _stone_value(model, groups, entered, dict(phases))
        if model.exempt and model.rooms[area]:
            value -= model.unused_entry * sum(
                1 for e in model.by_area[area] if e.kind == "portal_entry" and e.id not in used
            )
        return value

    def entering(area, entered, keys, orbs, used, phase, phases, prefix):
        """Every way of entering ``area`` next, with the best continuation of each:
        ``(VP, plan, detours)``, ``detours`` the bosses passed by and covered last in the plan
        (on a tie in VP, the plan with fewer wins: the line does not come back for nothing)."""
        out = []
        outcomes = _enter_value(model, area, keys, orbs)
        boss_here = any(e in ending_bosses for e in model.by_area[area])
        if myopic and boss_here:
            outcomes = [o for o in outcomes if o[4]]  # the greedy player covers a boss it meets
        for gain, keys2, orbs2, todo, ends in outcomes:
            entered2 = entered | {area}
            phases2 = phases if area in dict(phases) else tuple(sorted({**dict(phases), area: phase}.items()))
            step = ("enter", area, todo, keys2)
            if ends:  # the boss, covered last
                out.append((gain + finish(entered2, phases2, area, used), [*prefix, step, ("end", area)], 0))
                continue
            value, plan, detours = best(entered2, area, keys2, orbs2, used, phase, phases2)
            passed = 1 if boss_here and model.boss_ends else 0
            out.append((gain + value, [*prefix, step, *plan], detours + passed))
        return out

    def better(option: tuple) -> tuple:
        return option[0], -option[2]

    visited = [0]
    deadline = time.monotonic() + TIME_BUDGET_S
    over = [budget <= 0]

    def greedy_value(area: int, keys: frozenset, orbs: frozenset) -> tuple:
        """How the greedy step ranks an area: one whose entering does not end the scrawl first
        (an ending is worth taking last), then the VP it is worth at once."""
        gain, _, _, _, ends = _enter_value(model, area, keys, orbs)[0]
        return (True, gain) if myopic else (not ends, gain)

    @cache
    def best(
        entered: frozenset, here: int, keys: frozenset, orbs: frozenset, used: frozenset, phase: int, phases: tuple
    ):
        visited[0] += 1
        if not over[0] and (visited[0] > budget or (visited[0] % 1024 == 0 and time.monotonic() > deadline)):
            over[0] = True
        region = model.reach(here, entered, keys)
        options: list[tuple[int, list, int]] = [(finish(entered, phases, here, used), [("end", here)], 0)]
        # a boss passed by on the way, covered last (after the other options: on a tie the
        # route that does not come back for it wins)
        lasts = [
            (model.vp(boss) + finish(entered, phases, boss.area, used), [("last", boss.id), ("end", boss.area)], 0)
            for boss in ending_bosses
            if boss.area in region
        ]
        frontier = [a for a in model.frontier(region, entered, keys) if a not in forbidden]
        if over[0] and frontier:  # greedy from here: the area worth most next
            frontier = [max(frontier, key=lambda a: greedy_value(a, keys, orbs))]
            return max(
                entering(frontier[0], entered, keys, orbs, used, phase, phases, []) + options + lasts, key=better
            )
        for area in frontier:
            options += entering(area, entered, keys, orbs, used, phase, phases, [])
        for area in region:  # an orb whose token ends the scrawl: covered last
            for orb in orbs_by_area[area]:
                token = model.next_token(orb.colour, orbs)
                if orb.id not in orbs and token is not None and model.orb_ends(orb.colour, orbs):
                    options.append((token + finish(entered, phases, area, used), [("orb", orb.id), ("end", area)], 0))
        for e in rules.elements:
            if e.kind != "portal_entry" or e.id in used or e.area not in region:
                continue
            refund = -model.unused_entry if model.rooms[e.area] else 0
            for x in rules.elements:
                if x.kind != "portal_exit" or x.channel != e.channel or x.area < 0 or x.area in forbidden:
                    continue
                step: tuple = ("portal", e.id, x.id, x.area)
                used2 = used | {e.id}
                if x.area in entered:
                    value, plan, detours = best(entered, x.area, keys, orbs, used2, phase + 1, phases)
                    options.append((refund + value, [step, *plan], detours))
                else:
                    for value, plan, detours in entering(x.area, entered, keys, orbs, used2, phase + 1, phases, [step]):
                        options.append((refund + value, plan, detours))
        return max(options + lasts, key=better)

    results = []
    for start in rules.starts:
        area = start["area"]
        if area in forbidden:
            continue
        results += entering(
            area, frozenset(), frozenset(), frozenset(), frozenset(), 0, (), [("start", start["id"], area)]
        )
    if not results:
        return 0, [], True
    value, plan, _ = max(results, key=better)
    return value, plan, not over[0]


def _stone_value(model: AreaModel, groups, entered: frozenset, phases: dict) -> int:
    """The artifact triples at the end: all stones' areas entered, in phases in number order, +1
    each; none entered and the home area entered: the untouched value; else 0."""
    total = 0
    for group in groups:
        areas = [s.area for s in group.stones]
        if all(a in entered for a in areas):
            order = [phases.get(a, 0) for a in areas]
            total += 1 if model.ability == "artifacts_any_order" or order == sorted(order) else 0
        elif not any(a in entered for a in areas) and group.area in entered:
            total += model.untouched
    return total


def par(
    rules: LineRules, players: int = 1, speed_mm_s: float = DEFAULT_SPEED_MM_S, character: str | None = None
) -> Par:
    """Search, draw and re-score (see the module docstring). Never raises for a playable entry:
    a route the drawing step cannot draw is reported with ``proven`` false and a note; raises
    ``ValueError`` for a ``character`` the game data does not define (its ability counts: the
    Ranger's plants, the Cleric's stones in any order).

    With a timer on the sheet, the route is held against it at ``speed_mm_s`` (mm of line per
    second): ``fits_timer``. When it fits, it is the best within the timer too (``timer_vp``,
    ``timer_bound`` and ``timer_proven`` are ``par``, ``bound`` and ``proven``). When it does not,
    ``timer_bound`` is :func:`inkcrawl.engines.line.timer.timer_bound`'s upper bound of the VP
    any line within the timer scores, and ``timer_vp`` the best score found within the timer:
    every prefix (ending after one of its elements) of the par route, of the greedy route, of the
    best route that leaves out each area the par route enters and of the routes through the
    bound's best element orders (drawn in that order, and the best route over their areas),
    drawn and scored by the referee, and the par route stopped by the timer; ``timer_play`` is
    that route. ``timer_proven``: ``timer_vp`` reaches ``timer_bound``. ``proven`` (of ``par``)
    is then false: par does not fit the timer."""
    from inkcrawl.engines.line import referee

    if character is not None and character not in rules.characters:
        known = ", ".join(sorted(rules.characters)) or "none"
        hint = did_you_mean(character, rules.characters)
        raise ValueError(f"unknown character {character!r} (this game has: {known}){hint}")
    # a greedy route that reaches the upper bound is the best there is: no long search needed. A
    # short exact search still runs, as its route usually takes the areas in a tighter order
    # (the search knows no lengths; the greedy order wanders)
    ceiling = upper_bound(rules, players, character)
    bound, plan, exhaustive = solve(rules, players, 0, character)
    if bound < ceiling:
        bound, plan, exhaustive = solve(rules, players, STATE_BUDGET, character)
    else:
        exact = solve(rules, players, PROVEN_CHECK_STATES, character)
        if exact[2] and exact[0] >= bound:
            bound, plan = exact[0], exact[1]
        exhaustive = True
    route = _drawing_steps(rules, plan)[1]
    drawn = draw_solution(rules, plan, players, character)
    if isinstance(drawn, str):
        return Par(rules.id, bound, bound, False, route, None, 0.0, f"the route could not be drawn: {drawn}")
    play, marks = drawn
    result = referee(rules, play)
    length = float((result.get("end") or {}).get("length_mm") or 0.0)
    score = int(result["total"])
    notes = [] if score == bound else [f"the drawn route scores {score}, the search {bound}"]
    if not exhaustive:
        bound = ceiling
        if score < bound:
            notes.append(
                f"the search went on greedily after {STATE_BUDGET:,} state{'s' if STATE_BUDGET != 1 else ''} "
                f"or {TIME_BUDGET_S:g} s: "
                f"{bound} bounds the best"
            )
    timers = [t for t in rules.end_triggers if isinstance(t, dict) and t.get("kind") == "timer"]
    proven = score == bound and (exhaustive or score == ceiling)  # reaching the upper bound proves it too
    result_par = Par(rules.id, score, max(bound, score), proven, route, play, length)
    if timers:
        # the timer only cuts routes short: when the best route fits it, it is the best within it
        seconds = float(timers[0].get("seconds") or 0)
        limit = seconds * speed_mm_s
        result_par.timer_s, result_par.speed_mm_s = seconds, speed_mm_s
        result_par.fits_timer = length <= limit
        result_par.timer_vp, result_par.timer_length_mm, result_par.timer_route = score, length, list(route)
        result_par.timer_bound, result_par.timer_proven = result_par.bound, proven
        if not result_par.fits_timer:
            from inkcrawl.engines.line.timer import timer_bound

            timed = {**play, "end": {"trigger": "timer", "at": {"length_mm": round(limit, 1)}}}
            stopped = int(referee(rules, timed)["total"])
            deadline = time.monotonic() + TIMER_SEARCH_S
            within = timer_bound(rules, limit, players, character)
            # the routes through the bound's best orders first: when one reaches the bound, the
            # other candidates (a search and a drawing for each area left out) cannot beat it
            candidates = [(play, marks, route), *_order_routes(rules, within.orders, players, character, deadline)]
            best = _best_within_timer(rules, limit, candidates, deadline)
            if (best is None or best[0] < min(within.bound, ceiling)) and time.monotonic() < deadline:
                others = _alternatives(rules, plan, players, character, deadline)
                more = _best_within_timer(rules, limit, others, deadline)
                if more is not None and (best is None or (more[0], -more[2]) > (best[0], -best[2])):
                    best = more
            if best is None or best[0] < stopped:
                best = (stopped, timed, limit, list(route))
            result_par.timer_vp, result_par.timer_play, result_par.timer_length_mm, result_par.timer_route = best
            found = result_par.timer_vp
            if found >= score:  # a route that scores par (or more) fits the timer: it is par's route
                result_par.par, result_par.play, result_par.length_mm, result_par.route = (
                    found,
                    *best[1:3],
                    list(best[3]),
                )
                result_par.bound = max(result_par.bound, found)
                result_par.proven = found == result_par.bound and (exhaustive or found == ceiling)
                result_par.fits_timer = True
                result_par.timer_bound, result_par.timer_proven = result_par.bound, result_par.proven
                notes = [n for n in notes if not n.startswith("the drawn route scores")]
                if found < result_par.bound:
                    notes.append(f"the drawn route scores {found}, the search {result_par.bound}")
                result_par.note = "; ".join(notes)
                return result_par
            result_par.proven = False
            # no line within the timer beats the upper bound of every positive VP either
            bound_within = min(within.bound, ceiling)
            result_par.timer_bound = max(bound_within, found)
            result_par.timer_proven = found == bound_within
            if result_par.timer_proven:
                verdict = "proven the best: no line within the timer scores more"
            elif found > bound_within:  # outside the bound's model: say so, claim nothing
                verdict = f"not proven: the length bound's model gave {bound_within}, below this route"
            else:
                verdict = f"not proven: no line within the timer scores more than {result_par.timer_bound}"
                if not within.exhaustive:
                    verdict += f" (a bound loosened after {within.states:,} states of its search)"
                if time.monotonic() >= deadline:
                    verdict += f"; the search for routes within the timer stopped after {TIMER_SEARCH_S:g} s"
            notes.append(
                f"the route needs {length / speed_mm_s:.0f} s at {speed_mm_s:g} mm/s and the timer gives "
                f"{seconds:g} s: the best route found within the timer scores {found} "
                f"({result_par.timer_length_mm:.0f} mm), {verdict}"
            )
    result_par.note = "; ".join(notes)
    return result_par


#: How many of the longest prefixes of each candidate route that fit the timer are scored.
TIMER_CUTS = 8
#: Seconds the search for routes within the timer may take after the bound's own search (the
#: par route's prefixes are always scored): on a 200-element sheet each candidate costs a search,
#: a drawing and eight referee runs, and there are dozens.
TIMER_SEARCH_S = 10.0
#: States of each search for a route within the timer (then greedy, as :data:`STATE_BUDGET`): the
#: bundled sheets need a few thousand; on big sheets many short searches beat a few long ones.
TIMER_STATES = 20_000


def draw_solution(rules: LineRules, plan: list, players: int, character: str | None) -> tuple[dict, list] | str:
    """A plan of :func:`solve` drawn as a play file (with the table's ``players``, the
    ``character`` and the skeleton keys' colours) and its element marks (:func:`draw_plan`), or
    why it could not be drawn (the :class:`RouteError`'s message)."""
    steps, _, skeletons = _drawing_steps(rules, plan)
    start = next(step[1] for step in plan if step[0] == "start")
    marks: list = []
    try:
        play = draw_plan(rules, start, steps, marks)
    except RouteError as exc:
        # a boss's centre walled in: drawn without touching it (the referee then charges it)
        untouched = [step for step in steps if not (len(step) > 4 and step[4] == "touch")]
        if len(untouched) == len(steps):
            return str(exc)
        marks = []
        try:
            play = draw_plan(rules, start, untouched, marks)
        except RouteError:
            return str(exc)
    if players > 1:
        play["players"] = players
    if character is not None:
        play["character"] = character
    if skeletons:
        play["skeleton_keys"] = skeletons
    return play, marks


def _alternatives(rules: LineRules, plan: list, players: int, character: str | None, deadline: float = math.inf):
    """Shorter routes for the timer: the greedy route, and the best route that leaves out each area
    the plan enters (but its first), each drawn, as they are found: ``(play, marks, route)``; none
    more once ``time.monotonic()`` passes ``deadline``."""
    entered = [step[1] for step in plan if step[0] == "enter"][1:]
    seen = {tuple(_drawing_steps(rules, plan)[1])}
    for left_out in [None, *entered]:
        if time.monotonic() > deadline:
            return
        if left_out is None:
            other = solve(rules, players, 0, character)[1]
        else:
            other = solve(rules, players, TIMER_STATES, character, frozenset({left_out}))[1]
        if not other:
            continue
        route = _drawing_steps(rules, other)[1]
        if tuple(route) in seen:
            continue
        seen.add(tuple(route))
        drawn = draw_solution(rules, other, players, character)
        if not isinstance(drawn, str):
            yield (*drawn, route)


def _order_routes(
    rules: LineRules, orders: list[tuple], players: int, character: str | None, deadline: float = math.inf
) -> list[tuple]:
    """Routes for the timer through the timer bound's best element orders
    (:class:`inkcrawl.engines.line.timer.TimerBound`): each order drawn as it is (through doors no
    key opens only where the drawing step finds a way round), and the best route of the search
    that stays out of the areas whose positive-VP elements the order leaves out; each drawn:
    ``[(play, marks, route)]``. Orders that cannot be drawn are skipped, and those left once
    ``time.monotonic()`` passes ``deadline``."""
    model = AreaModel(rules, players, character)
    valued: dict[int, set[str]] = {}
    for e in rules.elements:
        if e.area >= 0 and (model.vp(e) > 0 or e.kind == "orb" or e.interaction == "connect_in_order"):
            valued.setdefault(e.area, set()).add(e.id)
    shut = [d.geom for d in rules.doors if not door_opens(list(d.locks), frozenset())]
    out: list[tuple] = []
    for _, _, start, ids in orders:
        if not ids:
            continue
        if out and time.monotonic() > deadline:
            break
        marks: list = []
        try:
            play = draw_plan(rules, start, [(i, None, shut) for i in ids], marks)
        except RouteError:
            pass
        else:
            if players > 1:
                play["players"] = players
            if character is not None:
                play["character"] = character
            out.append((play, marks, list(ids)))
        chosen = set(ids)
        starts = {s["area"] for s in rules.starts}
        forbidden = frozenset(a for a, members in valued.items() if not members & chosen and a not in starts)
        plan = solve(rules, players, TIMER_STATES, character, forbidden)[1]
        if plan:
            drawn = draw_solution(rules, plan, players, character)
            if not isinstance(drawn, str):
                out.append((*drawn, _drawing_steps(rules, plan)[1]))
    return out


def _drawn_length(path: list) -> float:
    return sum(math.dist(a, b) for line in path for a, b in zip(line, line[1:]))


def _best_within_timer(rules: LineRules, limit: float, candidates, deadline: float = math.inf) -> tuple | None:
    """The best ``(score, play, length, route)`` among the prefixes of the candidate routes
    (an iterable; each ending right after one of its elements) whose drawn length fits ``limit``
    mm, scored by the referee; ``None`` when no prefix fits. Candidates after the first are
    skipped once ``time.monotonic()`` passes ``deadline``."""
    from inkcrawl.engines.line import referee

    best = None
    for n, (play, marks, route) in enumerate(candidates):
        if n and time.monotonic() > deadline:
            break
        cuts = []
        for k, (_, index, _, last) in enumerate(marks):
            path = [list(line) for line in play["path"][:index]] + [list(play["path"][index][: last + 1])]
            if _drawn_length(path) > limit:
                break
            cuts.append((k, path))
        for k, path in cuts[-TIMER_CUTS:]:
            cut = {**play, "path": path}
            result = referee(rules, cut)
            length = float((result.get("end") or {}).get("length_mm") or 0.0)
            total = int(result["total"])
            if length <= limit and (best is None or (total, -length) > (best[0], -best[2])):
                best = (total, cut, length, list(route[: k + 1]))
    return best


def _drawing_steps(rules: LineRules, plan: list) -> tuple[list, list[str], dict[str, str]]:
    """The plan as drawing steps ``(element id, areas the line may be in, doors it may not pass)``
    (a portal entry's with its exit; a boss passed by and never covered with ``(None, "touch")``:
    see :func:`inkcrawl.engines.line.route.draw_plan`), the stones of each phase last and in
    number order; the route's element ids; and the colour each skeleton key takes (skeleton key
    id -> colour)."""
    skeletons: dict[str, str] = {}
    steps: list = []
    route: list[str] = []
    entered: set[int] = set()
    keys: frozenset = frozenset()
    phase_stones: list[Element] = []
    by_id = rules.element_by_id

    def closed(keys_now: frozenset):
        return [d.geom for d in rules.doors if not door_opens(list(d.locks), keys_now)]

    # a boss whose covering ends the scrawl, passed by and never covered, and not in the area
    # the scrawl ends in: touched as the line passes it, a failed attempt (0 VP, no penalty)
    done = {t for step in plan if step[0] == "enter" for t in step[2]}
    done |= {step[1] for step in plan if step[0] in ("last", "orb")}
    ends_in = next((step[1] for step in reversed(plan) if step[0] == "end"), None)
    untouched: dict[int, list[str]] = {}
    exempt = bool(rules.switch("end_room_exempt"))
    boss_ends = rules.lists_trigger("boss_covered")
    if boss_ends:
        for e in rules.elements:
            if e.kind != "boss" or e.area < 0 or e.id in done or rules.area_kinds[e.area] != "room":
                continue
            if not (exempt and e.area == ends_in):
                untouched.setdefault(e.area, []).append(e.id)

    def flush():
        for stone in sorted(phase_stones, key=lambda s: s.number or 0):
            steps.append((stone.id, set(entered), closed(keys)))
            route.append(stone.id)
        phase_stones.clear()

    for step in plan:
        if step[0] == "enter":
            _, area, todo, keys_after = step
            entered.add(area)
            phase_stones.extend(e for e in rules.elements if e.area == area and e.interaction == "connect_in_order")
            # a boss whose covering ends the scrawl is drawn last (at most one in a plan's step)
            ends_with = [t for t in todo if by_id[t].kind == "boss"] if boss_ends else []
            for element_id in [t for t in todo if t not in ends_with]:
                steps.append((element_id, set(entered), closed(keys)))
                route.append(element_id)
                element = by_id[element_id]
                if element.kind in ("key", "skeleton_key") and element.colour:
                    keys = keys | {element.colour}
            taken = set(keys_after) - set(keys) - {by_id[t].colour for t in todo if by_id[t].kind == "key"}
            for element_id in todo:
                if by_id[element_id].kind == "skeleton_key" and taken:
                    skeletons[element_id] = sorted(taken).pop(0)
                    taken.discard(skeletons[element_id])
            keys = frozenset(keys_after)
            if ends_with:
                flush()
                steps.append((ends_with[0], set(entered), closed(keys)))
                route.append(ends_with[0])
            for boss in untouched.get(area, ()):  # passed by, never covered: touched on the way
                steps.append((boss, set(entered), closed(keys), None, "touch"))
                route.append(boss)
        elif step[0] == "portal":
            flush()
            steps.append((step[1], set(entered), closed(keys), step[2]))
            route.append(step[1])
        elif step[0] in ("orb", "last"):
            flush()
            steps.append((step[1], set(entered), closed(keys)))
            route.append(step[1])
        elif step[0] == "end":
            flush()
    return steps, route, skeletons


__all__ = ["Par", "draw_solution", "par", "solve"]
