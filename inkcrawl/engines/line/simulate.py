"""Simulated players on a line dungeon (``inkcrawl simulate`` on a line dungeon; RULES.md 2).

Every game is a drawn play scored by the referee (:func:`inkcrawl.engines.line.referee`), so
what a simulated player scores is what the same line would score on paper.

Player models (``policy``)
    ``optimal``
        The par route (:func:`inkcrawl.engines.line.par.solve`, exact search) drawn exactly
        (:func:`inkcrawl.engines.line.route.draw_plan`): every game is the same play.
    ``greedy``
        A myopic planner: from the Start it enters next the area worth most at once (the same
        values as the par search, with no look-ahead) and stops when nothing more pays; drawn
        exactly.
    ``human``
        The par route's intent, drawn by a sloppy hand with a ``skill`` from 0 (sloppiest) to 1
        (exact). Per game, seeded:

        * **misses**: each element of the route is overlooked with probability
          ``MISS_RATE * (1 - skill)``: the line comes near it and turns away (a touch or an
          entry stops ``MISS_PULL_PENS`` pen widths short; a cover, trace or pass-through keeps
          only the first point of its stroke);
        * **pen jitter**: the line is resampled every ``JITTER_STEP_MM`` and pushed sideways by
          smooth random noise (a first-order autoregressive walk with correlation length
          ``JITTER_CORRELATION_MM`` and standard deviation ``JITTER_MM * (1 - skill)``); the
          first point of each polyline (the Start, a portal exit) stays where it is;
        * **speed**: the player draws at ``speed_mm_s`` times a log-normal factor (sigma
          ``SPEED_SPREAD * (1 - skill) + 0.05``). At a table (``players`` above 1) everyone stops
          at the first Scrawl End any seat sets off, or the sheet's timer (:func:`play_table`).

        The noise figures are stated assumptions, not measurements of players: they make a
        sheet's tolerance to sloppy drawing visible (narrow gaps, small glyphs, crowded rooms),
        and ``skill`` scales them.

Statistics (:func:`simulate_line`; floats rounded to 4 decimals)
    ``dungeon``, ``family`` ("line"), ``games``, ``seed``, ``policy``, ``skill``, ``speed_mm_s``,
    ``players`` (seats at the table), ``character``; ``par`` (the optimal route's score);
    ``seats``: per seat ``{"seat", "skill", "mean", "wins"}`` (``wins``: the share of games won, a
    tie of k sharing 1/k); ``score`` (over player-games) as for the grid
    family (mean, stdev, min, max, percentiles, distribution: score -> games); ``completion``: per element of the sheet
    ``{"element", "kind", "area", "vp", "completed"}`` (share of games the referee counted it
    completed, a key taken, an orb token scored or the boss covered); ``ended``: how the scrawls
    ended -> share of games, in the sheet's end-trigger words (``boss_covered``, ``exit_reached``,
    ``escape_portal``, ``orb_taken``, ``timer``), ``path_ended`` (the line stopped by itself) or
    ``illegal_crossing`` (the referee ignored the rest after one);
    ``length_mm``: mean drawn length; ``balance``: the grid family's seat measures
    (``seat_win_gap``, ``outcome_uniformity``, ``score_spread``, ``ties``, ``winning_margin``;
    :func:`inkcrawl.tally.outcome_balance`) and ``par_gap``, par minus the mean of this run (what
    the player model loses against the best route; line games have no rounds and no deck, so no
    lead changes or deck sensitivity); ``heatmap``: ``{"cell_mm", "origin_mm", "columns",
    "rows", "permille"}``, per cell of the sheet (row by row from the top) the share of games,
    in thousandths, whose line passed through it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from inkcrawl.engines.line.par import DEFAULT_SPEED_MM_S, STATE_BUDGET, draw_solution, solve
from inkcrawl.engines.line.rules import LineRules

#: The player models, in the order ``--help`` lists them.
POLICIES = ("optimal", "greedy", "human")
#: Chance that a player of skill 0 overlooks an element of the route (x ``1 - skill``).
MISS_RATE = 0.15
#: How far short of a touched element a miss stops, in pen widths.
MISS_PULL_PENS = 2.0
#: Pen jitter of a player of skill 0: standard deviation (mm), correlation length (mm) and the
#: resampling step (mm).
JITTER_MM = 1.2
JITTER_CORRELATION_MM = 6.0
JITTER_STEP_MM = 1.0
#: Spread (log-normal sigma) of a skill-0 player's drawing speed against the timer.
SPEED_SPREAD = 0.25
#: Side of a heatmap cell (mm).
HEATMAP_CELL_MM = 3.0
#: The end trigger an element of each kind sets off (docs/play-files.md, "Scrawl End").
ENDED_BY = {"boss": "boss_covered", "exit": "exit_reached", "escape_portal": "escape_portal", "orb": "orb_taken"}
#: Default skill of the human model.
DEFAULT_SKILL = 0.7


class SimulationError(ValueError):
    """The dungeon cannot be simulated (no Start, or its route cannot be drawn); the message says why."""


@dataclass
class Intent:
    """What a player model draws before any noise: the play, the element marks of
    :func:`~inkcrawl.engines.line.route.draw_plan` and the route's score on paper."""

    play: dict
    marks: list = field(default_factory=list)


def intent(rules: LineRules, policy: str, players: int = 1, character: str | None = None) -> Intent:
    """The exact drawing of ``policy``'s route (``optimal``: the par search; ``greedy``: the
    same search with no look-ahead; ``human``: the optimal route). Raises
    :class:`SimulationError` when there is no Start or the route cannot be drawn."""
    if not rules.starts:
        raise SimulationError("the sheet has no Start")
    if policy == "greedy":
        _, plan, _ = solve(rules, players, 0, character, myopic=True)
    else:
        _, plan, _ = solve(rules, players, STATE_BUDGET, character)
    drawn = draw_solution(rules, plan, players, character)
    if isinstance(drawn, str):
        raise SimulationError(f"the {policy} route could not be drawn: {drawn}")
    play, marks = drawn
    return Intent(play, marks)


def _resample(line: np.ndarray, step: float) -> np.ndarray:
    """The polyline ``(n, 2)`` with points every ``step`` mm along it (its vertices kept)."""
    out = [line[0]]
    for a, b in zip(line[:-1], line[1:]):
        length = float(np.hypot(*(b - a)))
        count = max(1, math.ceil(length / step))
        for k in range(1, count + 1):
            out.append(a + (b - a) * (k / count))
    return np.asarray(out)


def _jitter(line: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """``line`` resampled and pushed by smooth noise (AR(1), see the module); point 0 stays."""
    if sigma <= 0 or len(line) < 2:
        return line
    points = _resample(line, JITTER_STEP_MM)
    rho = math.exp(-JITTER_STEP_MM / JITTER_CORRELATION_MM)
    shocks = rng.normal(0.0, sigma * math.sqrt(1 - rho * rho), size=points.shape)
    noise = np.empty_like(points)
    noise[0] = rng.normal(0.0, sigma, size=2)
    for i in range(1, len(points)):
        noise[i] = rho * noise[i - 1] + shocks[i]
    noise[0] = 0.0
    return points + noise


def human_drawing(rules: LineRules, base: Intent, rng: np.random.Generator, skill: float) -> tuple[dict, float]:
    """One sloppy drawing of ``base`` by a player of ``skill`` (0..1), seeded by ``rng`` (the
    model of the module docstring), and the player's speed as a factor of the table's
    ``speed_mm_s`` (log-normal around 1)."""
    sloppiness = 1.0 - skill
    lines = [np.asarray(line, dtype=float) for line in base.play["path"]]
    pen = rules.pen_width_mm
    drop: dict[int, set[int]] = {}
    for element_id, index, first, last in base.marks:
        if rng.random() >= MISS_RATE * sloppiness:
            continue
        line = lines[index]
        element = rules.element_by_id[element_id]
        if element.kind == "portal_entry":
            continue  # the next polyline starts at its exit: the route goes on only through it
        if element.interaction in ("cover", "trace", "pass_through") and last > first:
            drop.setdefault(index, set()).update(range(first + 1, last + 1))
        elif first > 0:
            back = line[first - 1] - line[first]
            distance = float(np.hypot(*back))
            if distance > 0:
                line[first] = line[first] + back / distance * min(distance, MISS_PULL_PENS * pen)
    for index, dropped in drop.items():
        keep = [i for i in range(len(lines[index])) if i not in dropped]
        lines[index] = lines[index][keep]
    sigma = JITTER_MM * sloppiness
    paper = rules.entry.get("paper") or {}
    size = (float(paper.get("width_mm", 210)), float(paper.get("height_mm", 297)))
    drawn = [np.clip(_jitter(line, sigma, rng), (0.0, 0.0), size) for line in lines]  # the pen stays on the paper
    play = {key: value for key, value in base.play.items() if key != "path"}
    play["path"] = [[[round(float(x), 3), round(float(y), 3)] for x, y in line] for line in drawn]
    factor = math.exp(rng.normal(0.0, SPEED_SPREAD * sloppiness + 0.05))
    return play, factor


#: Rounds of sharing out the tokens at a table before its answer is kept (:func:`play_table`).
CONTEST_ROUNDS = 4
#: A token this close (mm of line) past the moment the scrawl ends still counts as reached: the
#: referee's breakdown gives lengths to 0.1 mm, and the token that sets off the end (the last orb
#: of a colour) lies at the end itself.
END_SLACK_MM = 0.05


def play_table(
    rules: LineRules,
    base: Intent,
    rngs: Sequence[np.random.Generator | None],
    skills: Sequence[float],
    speed_mm_s: float,
    tie_order: Sequence[int] | None = None,
) -> list[tuple[dict, dict]]:
    """One game at a table: each seat draws ``base`` (sloppily when its ``rngs`` entry is a
    generator, exactly when it is ``None``) at its own speed, and everyone stops when the first
    Scrawl End is set off (RULES.md 2, Drawing rules 4): a seat's own trigger (the boss, an exit,
    an escape portal, an orb) at the time its line reaches it, or the sheet's timer. Each seat's
    play is then cut where its line was at that moment (``end`` naming the trigger, as a play
    file states another player's end) and scored by the referee. Returns ``(play, breakdown)``
    per seat.

    The shared tokens are contested by time (RULES.md 2: the key supply for the table's players,
    the orb stacks): every key touch and orb cover of every seat happens at its length along the
    line over the seat's speed, and the tokens go in that order. A seat that touches a key of a
    colour whose tokens are gone gets it listed under ``keys_gone``, and each seat's
    ``orb_tokens`` give the stack positions it got (docs/play-files.md, "Where several players
    compete"), so the referee scores each play alone with what the table left it. A seat
    stopped by a locked door it could not open frees the tokens it would have reached later:
    the sharing is repeated (at most :data:`CONTEST_ROUNDS` times) until it no longer changes.
    Seats that reach a token at the same moment take it in ``tie_order`` (seat indexes, first
    first; default: seat order), which the simulation draws per game so that identical seats
    share the luck of the draw.
    Raises :class:`SimulationError` for a drawing the referee cannot read."""
    from inkcrawl.engines.line import PlayError, referee_with_tokens

    def scored(play: dict) -> tuple[dict, list]:
        try:
            return referee_with_tokens(rules, play)
        except PlayError as exc:  # the model drew something the referee cannot read
            raise SimulationError(f"a simulated drawing cannot be scored: {exc}") from None

    seats = []
    for rng, skill in zip(rngs, skills):
        play, factor = human_drawing(rules, base, rng, skill) if rng is not None else (base.play, 1.0)
        seats.append((play, speed_mm_s * factor))
    shares: list[dict] = [{} for _ in seats]
    judged = [scored(play) for play, _ in seats]
    for _ in range(CONTEST_ROUNDS):
        ending = _table_end(rules, [(speed, result) for (_, speed), (result, _) in zip(seats, judged)])
        until = math.inf if ending is None else ending[0]
        reached = [  # the token that sets off the end is reached (the breakdown's lengths are rounded)
            [t for t in tokens if t.length_mm <= until * speed + END_SLACK_MM]
            for (_, speed), (_, tokens) in zip(seats, judged)
        ]
        fresh = _share_tokens(rules, [speed for _, speed in seats], reached, tie_order)
        if fresh == shares:
            break
        changed = [i for i, share in enumerate(fresh) if share != shares[i]]
        shares = fresh
        for i in changed:
            judged[i] = scored({**seats[i][0], **shares[i]})
    ending = _table_end(rules, [(speed, result) for (_, speed), (result, _) in zip(seats, judged)])
    out = []
    for (play, speed), share, (result, _) in zip(seats, shares, judged):
        play = {**play, **share}
        if ending is None:
            out.append((play, result))
            continue
        seconds, trigger = ending
        reach = speed * seconds  # mm of line drawn when the scrawl ends
        if float((result.get("end") or {}).get("length_mm") or 0.0) <= reach + 1e-9:
            out.append((play, result))  # the line had ended (or set off the end) by then
            continue
        stopped = {**play, "end": {"trigger": trigger, "at": {"length_mm": round(reach, 3)}}}
        out.append((stopped, scored(stopped)[0]))
    return out


def _table_end(rules: LineRules, seats: Sequence[tuple[float, dict]]) -> tuple[float, str] | None:
    """``(seconds, trigger)`` of the first Scrawl End at a table, from each seat's ``(speed in
    mm/s, referee breakdown)``: a seat's own trigger reached on a legal line, or the sheet's
    timer; ``None`` when nothing ends the scrawl."""
    ends = []
    for speed, result in seats:
        end = result.get("end") or {}
        if end.get("element") and not result.get("ignored"):
            kind = rules.element_by_id[end["element"]].kind
            ends.append((float(end.get("length_mm") or 0.0) / speed, ENDED_BY.get(kind, kind)))
    timers = [t for t in rules.end_triggers if isinstance(t, dict) and t.get("kind") == "timer"]
    if timers:
        ends.append((float(timers[0].get("seconds") or 0), "timer"))
    return min(ends) if ends else None


def _share_tokens(
    rules: LineRules, speeds: Sequence[float], reached: Sequence[Sequence], tie_order: Sequence[int] | None = None
) -> list[dict]:
    """Each seat's ``keys_gone`` and ``orb_tokens`` (only where they differ from a lone
    player's) when the tokens ``reached`` (per seat, :class:`~inkcrawl.engines.line.TokenReach`
    in path order) go out in time order, seats at the same moment in ``tie_order``: a key token
    of each colour per seat while the supply for the table's players lasts (``keys.supply``),
    the orb stacks top first (RULES.md 2)."""
    supply = int(rules.key_supply.get(str(len(speeds)), 0))
    rank = {seat: i for i, seat in enumerate(tie_order if tie_order is not None else range(len(speeds)))}
    timeline = sorted(
        (token.length_mm / speeds[seat], rank[seat], seat, k, token)
        for seat, tokens in enumerate(reached)
        for k, token in enumerate(tokens)
    )
    left: dict[str, int] = {}
    held: list[set[str]] = [set() for _ in speeds]
    gone: list[list[str]] = [[] for _ in speeds]
    stacks: dict[str, int] = {}
    positions: list[dict[str, list[int]]] = [{} for _ in speeds]
    for _, _, seat, _, token in timeline:
        colour = token.colour
        if colour is None:
            continue  # a token without a colour (a skeleton key the play names none for) is not shared
        if token.kind == "key":
            if colour in held[seat]:
                continue
            if left.get(colour, supply) > 0:
                left[colour] = left.get(colour, supply) - 1
                held[seat].add(colour)
            else:
                gone[seat].append(token.element)
        else:
            stacks[colour] = stacks.get(colour, 0) + 1
            positions[seat].setdefault(colour, []).append(stacks[colour])
    shares: list[dict] = []
    for seat in range(len(speeds)):
        share: dict = {}
        if gone[seat]:
            share["keys_gone"] = gone[seat]
        taken = {c: p for c, p in positions[seat].items() if p != list(range(1, len(p) + 1))}
        if taken:
            share["orb_tokens"] = positions[seat]
        shares.append(share)
    return shares


@dataclass
class LineTally:
    """Sums over line games that add up in any order (whole numbers only, as
    :class:`inkcrawl.tally.GridTally`): scores, completions, how scrawls ended, drawn length (in
    hundredths of a mm) and heatmap cell counts."""

    elements: list[str]
    columns: int
    rows: int
    games: int = 0
    score_counts: dict[int, int] = field(default_factory=dict)
    completed: dict[str, int] = field(default_factory=dict)
    ended: dict[str, int] = field(default_factory=dict)
    length_cmm: int = 0
    cells: np.ndarray | None = None
    seat_sums: list[int] = field(default_factory=list)
    seat_wins: list[list[int]] = field(default_factory=list)  # [seat][k - 1]: won with k winners
    ties: int = 0
    margin_sum: int = 0

    def merge(self, other: LineTally) -> LineTally:
        """Add ``other``'s sums; returns self."""
        self.games += other.games
        for p, total in enumerate(other.seat_sums):
            self.seat_sums[p] += total
            for k, wins in enumerate(other.seat_wins[p]):
                self.seat_wins[p][k] += wins
        self.ties += other.ties
        self.margin_sum += other.margin_sum
        for value, count in other.score_counts.items():
            self.score_counts[value] = self.score_counts.get(value, 0) + count
        for key, count in other.completed.items():
            self.completed[key] = self.completed.get(key, 0) + count
        for key, count in other.ended.items():
            self.ended[key] = self.ended.get(key, 0) + count
        self.length_cmm += other.length_cmm
        if other.cells is not None:
            self.cells = other.cells.copy() if self.cells is None else self.cells + other.cells
        return self


def completed_elements(result: dict) -> set[str]:
    """The elements a referee breakdown counts as done: completed lines (the boss's too; an
    artifact group's line counts each of its stones), keys taken and orbs whose token scored."""
    done: set[str] = set()
    lines = [line for section in result.get("sections") or [] for line in section.get("lines") or []]
    lines += (result.get("boss") or {}).get("lines") or []
    for line in lines:
        if not line.get("element"):
            continue
        if line.get("kind") == "completed" or (line.get("kind") == "key" and line.get("taken")):
            done.update(str(line["element"]).split(","))  # an artifact group names its stones "a1,a2,a3"
    for line in (result.get("orbs") or {}).get("lines") or []:
        if line.get("scored") and line.get("element"):
            done.add(line["element"])
    return done


def heatmap_grid(rules: LineRules, cell_mm: float = HEATMAP_CELL_MM) -> tuple[tuple[float, float], int, int]:
    """The heatmap's origin (mm) and size in cells: the sheet's paper."""
    paper = rules.entry.get("paper") or {}
    width, height = float(paper.get("width_mm", 210)), float(paper.get("height_mm", 297))
    return (0.0, 0.0), max(1, math.ceil(width / cell_mm)), max(1, math.ceil(height / cell_mm))


def _visit(cells: np.ndarray, path: Sequence, cell_mm: float) -> None:
    """Mark (once) every cell the path's polylines pass through, sampled every half cell."""
    seen = np.zeros(cells.shape, dtype=bool)
    rows, columns = cells.shape
    for line in path:
        points = np.asarray(line, dtype=float)
        if len(points) > 1:
            points = _resample(points, cell_mm / 2)
        cx = np.clip((points[:, 0] // cell_mm).astype(int), 0, columns - 1)
        cy = np.clip((points[:, 1] // cell_mm).astype(int), 0, rows - 1)
        seen[cy, cx] = True
    cells += seen


#: The line dungeons compiled last in this process with their drawn routes, by (entry, route,
#: players, character), newest last (a worker plays many chunks of one run; a report asks for
#: the optimal and the greedy route of each dungeon).
_CACHE: dict = {}
_CACHE_SIZE = 4


def _prepared(entry: dict, policy: str, players: int, character: str | None) -> tuple[LineRules, Intent]:
    import json

    text = json.dumps(entry, sort_keys=True)
    route = "greedy" if policy == "greedy" else "optimal"  # the human draws the optimal route
    key = (text, route, players, character)
    if key not in _CACHE:
        same = next((v[0] for k, v in _CACHE.items() if k[0] == text), None)
        rules = same if same is not None else LineRules(entry)
        _CACHE[key] = (rules, intent(rules, route, players, character))
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
    return _CACHE[key]


def play_line_chunk(
    entry: dict,
    policy: str,
    seeds: Sequence[int],
    skill: float | Sequence[float] = DEFAULT_SKILL,
    speed_mm_s: float = DEFAULT_SPEED_MM_S,
    players: int = 1,
    character: str | None = None,
    cell_mm: float = HEATMAP_CELL_MM,
) -> LineTally:
    """Play the games of ``seeds`` on the line dungeon ``entry`` (game data), ``players`` seats
    at a table (:func:`play_table`) with one player model and a ``skill`` (one for every seat,
    or one per seat), and return their :class:`LineTally` (module-level, picklable arguments: a
    worker runs it). Seat ``s`` of game seed ``g`` draws with ``numpy.random.default_rng([g, s])``;
    seats reaching a shared token at the same moment take it in the order
    ``numpy.random.default_rng([g, players]).permutation(players)``.
    Raises :class:`SimulationError`, :class:`~inkcrawl.engines.line.GameDataError`."""
    rules, base = _prepared(entry, policy, players, character)
    skills = list(skill) if isinstance(skill, Sequence) else [float(skill)] * players
    _, columns, rows = heatmap_grid(rules, cell_mm)
    tally = LineTally(
        [e.id for e in rules.elements],
        columns,
        rows,
        cells=np.zeros((rows, columns), dtype=np.int64),
        seat_sums=[0] * players,
        seat_wins=[[0] * players for _ in range(players)],
    )
    for game_seed in seeds:
        rngs = [
            np.random.default_rng([game_seed, seat]) if policy == "human" and skills[seat] < 1 else None
            for seat in range(players)
        ]
        ties = (
            [int(x) for x in np.random.default_rng([game_seed, players]).permutation(players)] if players > 1 else None
        )
        table = play_table(rules, base, rngs, skills, speed_mm_s, ties)
        tally.games += 1
        totals = []
        for seat, (play, result) in enumerate(table):
            total = int(result["total"])
            totals.append(total)
            tally.seat_sums[seat] += total
            tally.score_counts[total] = tally.score_counts.get(total, 0) + 1
            for element_id in completed_elements(result):
                tally.completed[element_id] = tally.completed.get(element_id, 0) + 1
            end = result.get("end") or {}
            if result.get("ignored"):
                how = "illegal_crossing"
            elif end.get("element"):
                kind = rules.element_by_id[end["element"]].kind  # the element whose trigger ended it
                how = ENDED_BY.get(kind, kind)
            else:
                how = str((play.get("end") or {}).get("trigger") or "path_ended")
            tally.ended[how] = tally.ended.get(how, 0) + 1
            tally.length_cmm += round(float(end.get("length_mm") or 0.0) * 100)
            assert tally.cells is not None
            _visit(tally.cells, play["path"], cell_mm)
        best = max(totals)
        winners = [seat for seat, total in enumerate(totals) if total == best]
        for seat in winners:
            tally.seat_wins[seat][len(winners) - 1] += 1
        if len(winners) > 1:
            tally.ties += 1
        if players > 1:
            ranked = sorted(totals, reverse=True)
            tally.margin_sum += ranked[0] - ranked[1]
    return tally


def simulate_line(
    entry: dict,
    games: int,
    policy: str,
    seed: int,
    skill: float | Sequence[float] = DEFAULT_SKILL,
    speed_mm_s: float = DEFAULT_SPEED_MM_S,
    players: int = 1,
    character: str | None = None,
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
) -> dict:
    """Play ``games`` games of the line dungeon ``entry`` with the player model ``policy``
    (:data:`POLICIES`), ``players`` seats at a table (:func:`play_table`; ``skill`` one for
    every seat or one per seat), and return the statistics of the module docstring. The same
    seed gives the same statistics for any number of ``workers``. Raises
    :class:`SimulationError`, ``ValueError`` (an unknown policy or character, a skill outside
    0..1, a skill list that does not fit the seats)."""
    from inkcrawl.runs import play_chunks
    from inkcrawl.tally import PERCENTILES, _r, iter_game_seeds, outcome_balance, percentile_of_counts, win_shares

    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} for a line dungeon (use {', '.join(POLICIES)})")
    skills = [float(x) for x in skill] if isinstance(skill, Sequence) else [float(skill)] * players
    if len(skills) != players:
        raise ValueError(f"{len(skills)} skills for {players} players: give one, or one per player")
    if not all(0 <= x <= 1 for x in skills):
        raise ValueError("skill is from 0 (sloppiest) to 1 (exact)")
    rules = LineRules(entry)
    if character is not None and character not in rules.characters:
        known = ", ".join(sorted(rules.characters)) or "none"
        raise ValueError(f"unknown character {character!r} (this game has: {known})")
    from inkcrawl.engines.line import referee

    rules, _ = _prepared(entry, policy, players, character)  # the route is drawn once, here
    par_value = int(referee(rules, _prepared(entry, "optimal", players, character)[1].play)["total"])
    chunk = 25
    seeds = iter_game_seeds(seed, games)
    args = (skills, speed_mm_s, players, character)

    def calls() -> Iterator[tuple]:  # drawn as they are played: memory does not grow with games
        while True:
            part = list(itertools.islice(seeds, chunk))
            if not part:
                return
            yield None, play_line_chunk, (entry, policy, part, *args), len(part)

    parts: list[LineTally] = []

    def add(_, done: LineTally) -> None:
        if parts:
            parts[0].merge(done)
        else:
            parts.append(done)

    chunks = -(-games // chunk)
    # every game of an exact player is the same play: one process is enough
    local = min(workers, chunks) if policy == "human" else 1
    play_chunks(calls(), add, progress, workers=local)
    tally = parts[0] if parts else None
    assert tally is not None and tally.cells is not None
    ordered = sorted(tally.score_counts.items())
    n = tally.games
    samples = n * players  # player-games
    mean = sum(v * c for v, c in ordered) / samples
    stdev = math.sqrt(sum(c * (v - mean) ** 2 for v, c in ordered) / samples)
    percentiles = {str(p): _r(percentile_of_counts(ordered, p)) for p in PERCENTILES}
    (x0, y0), columns, rows = heatmap_grid(rules)
    wins = win_shares(tally.seat_wins, n)
    completion = []
    for e in rules.elements:
        if e.kind in ("start", "door", "portal_exit") or not e.interaction or e.interaction == "none":
            continue
        completion.append(
            {
                "element": e.id,
                "kind": e.kind,
                "area": rules.area_name(e.area) if e.area >= 0 else None,
                "vp": e.vp,
                "completed": _r(tally.completed.get(e.id, 0) / samples),
            }
        )
    return {
        "dungeon": {"id": rules.id, "title": rules.entry.get("title")},
        "family": "line",
        "games": games,
        "seed": seed,
        "policy": policy,
        "skill": (skills[0] if len(set(skills)) == 1 else skills) if policy == "human" else 1,
        "speed_mm_s": speed_mm_s,
        "players": players,
        "character": character,
        "par": par_value,
        "score": {
            "mean": _r(mean),
            "stdev": _r(stdev),
            "min": ordered[0][0],
            "max": ordered[-1][0],
            "percentiles": percentiles,
            "distribution": {str(value): count for value, count in ordered},
        },
        "completion": completion,
        "seats": [
            {
                "seat": seat + 1,
                "skill": skills[seat] if policy == "human" else 1,
                "mean": _r(tally.seat_sums[seat] / n),
                "wins": _r(wins[seat]),
            }
            for seat in range(players)
        ],
        "ended": {how: _r(count / samples) for how, count in sorted(tally.ended.items())},
        "length_mm": _r(tally.length_cmm / 100 / samples),
        "balance": {
            **outcome_balance(
                wins,
                tally.ties,
                tally.margin_sum,
                n,
                stdev,
                float(percentiles["75"]) - float(percentiles["25"]),
            ),
            "par_gap": _r(par_value - mean),
        },
        "heatmap": {
            "cell_mm": HEATMAP_CELL_MM,
            "origin_mm": [x0, y0],
            "columns": columns,
            "rows": rows,
            "permille": [[round(1000 * int(c) / samples) for c in row] for row in tally.cells],
        },
    }
