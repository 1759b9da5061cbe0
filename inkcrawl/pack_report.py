"""A pack's play report: every dungeon played by the engines, and whether difficulty rises in
pack order (``inkcrawl report PACK``; the HTML is drawn by :mod:`exporters.report_html`).

For each dungeon, in the pack's order:

grid dungeons
    ``random`` and ``greedy``: the statistics of :mod:`inkcrawl.simulate` (every seat on that
    policy, ``players`` seats, ``games`` games, lead changes counted), and ``skill_gap``: the
    greedy mean minus the random mean (VP).
line dungeons
    ``par``: :func:`inkcrawl.engines.line.par.par` as ``inkcrawl par --format json`` prints it
    (with the route's length and whether it fits the sheet's timer at ``speed_mm_s``);
    ``human``: the sloppy-human simulation (:mod:`inkcrawl.engines.line.simulate`, ``skill``,
    ``line_games`` games: scores, completion per element, how scrawls ended, the heatmap of
    where lines go); ``greedy``: the no-look-ahead player's score.

``difficulty`` (per family present)
    ``{"family", "measure", "dungeons": [ids in pack order], "values": [...], "rises",
    "kendall_tau"}``. The measure, higher = harder:

    - line: ``1 - human mean / par``, the share of par a player of the given skill loses (0 when
      par is 0 or less);
    - grid: ``-(greedy mean)``, minus the mean score of skilled (greedy) players.

    ``rises``: every dungeon is at least as hard as the one before it; ``kendall_tau``: the rank
    correlation of the values with the pack order (1: strictly rising, -1: strictly falling;
    ``null`` for fewer than two dungeons).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from inkcrawl.engines.line.par import DEFAULT_SPEED_MM_S
from inkcrawl.engines.line.simulate import DEFAULT_SKILL


@dataclass(frozen=True)
class ReportOptions:
    """How much to play: ``games`` per grid policy, ``line_games`` sloppy-human games per line
    dungeon, ``players`` seats in grid games, ``skill`` of the human, ``speed_mm_s`` against
    timers, ``seed``, ``workers`` (local processes)."""

    games: int = 2000
    line_games: int = 200
    players: int = 2
    skill: float = DEFAULT_SKILL
    speed_mm_s: float = DEFAULT_SPEED_MM_S
    seed: int = 0
    workers: int = 1


def kendall_tau(values: list[float]) -> float | None:
    """Kendall's tau-a of ``values`` against their order (1: strictly rising, -1: strictly
    falling); ``None`` for fewer than two values."""
    n = len(values)
    if n < 2:
        return None
    score = 0
    for i in range(n):
        for j in range(i + 1, n):
            score += (values[j] > values[i]) - (values[j] < values[i])
    return round(score / (n * (n - 1) / 2), 4)


def games_of(entries: list[dict], options: ReportOptions) -> int:
    """How many games :func:`pack_report` plays for these entries (for a progress bar)."""
    total = 0
    for entry in entries:
        total += 2 * options.games if entry.get("family") == "grid" else options.line_games
    return total


def pack_report(
    entries: list[dict],
    options: ReportOptions,
    progress: Callable[[int], object] | None = None,
) -> dict:
    """The report of the module docstring for the game data ``entries`` of a pack, in pack
    order. Raises :class:`~inkcrawl.engines.grid.GameDataError`,
    :class:`~inkcrawl.engines.line.GameDataError` for entries that cannot be played."""
    from inkcrawl.engines.grid.game import MAX_PLAYERS
    from inkcrawl.engines.line import LineRules
    from inkcrawl.engines.line.par import par
    from inkcrawl.engines.line.simulate import SimulationError, simulate_line
    from inkcrawl.simulate import simulate
    from inkcrawl.tally import _r

    dungeons = []
    for order, entry in enumerate(entries, start=1):
        row: dict = {"order": order, "id": entry.get("id"), "title": entry.get("title"), "family": entry.get("family")}
        if entry.get("family") == "grid":
            limits = entry.get("players") or {}
            players = min(max(options.players, limits.get("min", 1)), limits.get("max", 4), MAX_PLAYERS)
            row["players"] = players
            for policy in ("random", "greedy"):
                row[policy] = simulate(
                    entry,
                    options.games,
                    players,
                    policy,
                    options.seed,
                    progress=progress,
                    workers=options.workers,
                    balance=False,
                )
            row["skill_gap"] = _r(row["greedy"]["score"]["mean"] - row["random"]["score"]["mean"])
            row["difficulty"] = _r(-row["greedy"]["score"]["mean"])
        else:
            rules = LineRules(entry)
            best_route = par(rules, speed_mm_s=options.speed_mm_s)
            row["par"] = best_route.as_dict()
            row["par"].pop("route", None)
            if best_route.play is None:  # no route could be drawn: nothing to simulate either
                row["note"] = best_route.note
                row["difficulty"] = None
                dungeons.append(row)
                continue
            try:
                row["human"] = simulate_line(
                    entry,
                    options.line_games,
                    "human",
                    options.seed,
                    skill=options.skill,
                    speed_mm_s=options.speed_mm_s,
                    progress=progress,
                    workers=options.workers,
                )
                row["greedy"] = simulate_line(entry, 1, "greedy", options.seed)["score"]["mean"]
            except SimulationError as exc:
                row["note"] = str(exc)
                row["difficulty"] = None
                dungeons.append(row)
                continue
            best = row["par"]["par"]
            row["difficulty"] = _r(1 - row["human"]["score"]["mean"] / best) if best > 0 else 0
        dungeons.append(row)
    difficulty = []
    for family in ("line", "grid"):
        rows = [d for d in dungeons if d["family"] == family and d.get("difficulty") is not None]
        if not rows:
            continue
        values = [float(d["difficulty"]) for d in rows]
        difficulty.append(
            {
                "family": family,
                "measure": "1 - human mean / par" if family == "line" else "-(greedy mean score)",
                "dungeons": [d["id"] for d in rows],
                "values": [d["difficulty"] for d in rows],
                "rises": all(b >= a for a, b in zip(values, values[1:])),
                "kendall_tau": kendall_tau(values),
            }
        )
    return {
        "games": options.games,
        "line_games": options.line_games,
        "players": options.players,
        "skill": options.skill,
        "speed_mm_s": options.speed_mm_s,
        "seed": options.seed,
        "dungeons": dungeons,
        "difficulty": difficulty,
    }
