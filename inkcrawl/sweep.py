"""Sweeps: dungeons x rule and deck variants x player counts x policies, each played for the
same seeded games (``inkcrawl sweep SPEC``; the file format is ``schemas/sweep.schema.json``,
documented in docs/sweeps.md).

Every grid combination is one run of :mod:`inkcrawl.runs`, so a sweep plays on every local core,
or on a Dask cluster, with byte-identical results for a seed whatever the number of workers; its
memory does not grow with the number of games. A line dungeon's combination is one
:func:`inkcrawl.engines.line.simulate.simulate_line` (its policies ``optimal``, ``greedy`` and
``human`` at the spec's ``skill`` and ``speed_mm_s``, one policy for every seat; rule variants
are ``switches`` and a line ``ruleset``), played on the local cores: the same seed gives the same
result whatever the number of workers there too. Policies, variants and rulesets of the other
family are skipped for a dungeon with a note.

The result (``--format json``), one object:

``seed``, ``games``
    As in the spec.
``results``
    One object per combination, in the order dungeons x variants x players x policies: the
    statistics of :mod:`inkcrawl.simulate` (with ``balance`` and lead changes) or, for a line
    dungeon, of :func:`~inkcrawl.engines.line.simulate.simulate_line`, plus ``"variant"`` (its
    name).
``comparisons``
    Per dungeon and player count: ``{"dungeon", "players", "skill_gap"?, "variants"?}``:
    ``skill_gap`` (when both ``random`` and another policy played every seat) is
    ``{"best", "gap"}`` per variant, as ``inkcrawl simulate --balance`` defines it;
    ``variants`` (when there are several) gives, per policy, each variant's mean score and
    its change from the first variant's, with the standard error of that change.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inkcrawl.balance import VariantError, apply_variant, variant_name
from inkcrawl.runs import Run, run_tallies
from inkcrawl.suggest import expected

#: The members of a variant a line dungeon has nothing for (it has no deck and no rounds).
GRID_ONLY_CHANGES = ("scoring", "deck", "deck_cards", "rounds", "reveal")


class SweepError(ValueError):
    """A sweep that cannot be played as written; the message names the member and says why."""


class SweepInputError(SweepError):
    """A file the sweep names cannot be read (missing, a folder, unreadable): a usage error."""


@dataclass
class Combination:
    """One run of a sweep: which dungeon (of which ``family``), variant, player count and seat
    policies; ``run`` holds the game data entry played, the seed and the games."""

    dungeon: str
    variant: str
    players: int
    policies: tuple[str, ...]
    run: Run
    family: str = "grid"


@dataclass
class Plan:
    """A sweep ready to play: its combinations, and notes for the user (dungeons skipped)."""

    seed: int
    games: int
    combinations: list[Combination] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skill: float = 0.7
    speed_mm_s: float = 50.0

    @property
    def total_games(self) -> int:
        return self.games * len(self.combinations)


def plan_sweep(spec: dict, base: Path, entries_for: Callable[[list[str]], list[tuple[dict, object]]]) -> Plan:
    """The combinations of the sweep ``spec`` (already checked against its schema), paths
    relative to ``base``. ``entries_for(paths)`` gives the game data entries of some paths with,
    for each, the opened dungeon it came from (``None`` for a game.json entry), which a
    ``ruleset`` variant needs. Raises :class:`SweepError` naming the member."""
    from inkcrawl.engines.grid.game import MAX_PLAYERS
    from inkcrawl.engines.grid_policies import policy_names
    from inkcrawl.engines.line.simulate import DEFAULT_SKILL, DEFAULT_SPEED_MM_S
    from inkcrawl.engines.line.simulate import POLICIES as LINE_POLICIES

    games = spec.get("games", 1000)
    seed = spec.get("seed", 0)
    plan = Plan(
        seed, games, skill=spec.get("skill", DEFAULT_SKILL), speed_mm_s=spec.get("speed_mm_s", DEFAULT_SPEED_MM_S)
    )
    family_policies = {"grid": set(policy_names()), "line": set(LINE_POLICIES)}
    known = sorted(family_policies["grid"] | family_policies["line"])
    seat_lists: list[tuple[str, ...] | str] = []
    for i, policy in enumerate(spec.get("policies", ["random", "greedy"])):
        names = [policy] if isinstance(policy, str) else list(policy)
        for name in names:
            if name not in known:
                raise SweepError(f"/policies/{i}: unknown policy {name!r}; {expected(name, known)}")
        seat_lists.append(policy if isinstance(policy, str) else tuple(policy))
    players_list = spec.get("players", [2])
    variants = spec.get("variants", [{}])
    names = [variant_name(v) for v in variants]
    if len(set(names)) != len(names):
        raise SweepError("/variants: two variants have the same name; give each a 'name'")
    rulesets = {}
    for i, variant in enumerate(variants):
        if "ruleset" in variant:
            rulesets[i] = _ruleset(base / variant["ruleset"], f"/variants/{i}/ruleset")
    paths = [str(base / p) for p in spec["dungeons"]]
    only = spec.get("only")
    found: set[str] = set()
    pairs = list(entries_for(paths))
    # the switches each family's dungeons have: a variant's switch of the other family only is
    # skipped for a dungeon (a switch no dungeon has is an error, from the variant's check)
    family_switches: dict[str, set[str]] = {}
    for entry, _ in pairs:
        family = "line" if entry.get("family") == "line" else "grid"
        family_switches.setdefault(family, set()).update(entry.get("switches") or {})
    for entry, opened in pairs:
        if only is not None and entry.get("id") not in only:
            continue
        found.add(str(entry.get("id")))
        family = "line" if entry.get("family") == "line" else "grid"
        dungeon_id = entry.get("id")
        for i, variant in enumerate(variants):
            source = entry
            if i in rulesets:
                if rulesets[i].family != family:
                    plan.notes.append(
                        f"variant {names[i]!r} is a {rulesets[i].family} ruleset: skipped for the {family} dungeon "
                        f"{dungeon_id!r}"
                    )
                    continue
                if opened is None:
                    raise SweepError(
                        f"/variants/{i}/ruleset: dungeon {dungeon_id!r} comes from a game.json, which keeps "
                        f"no dungeon to apply another ruleset to; sweep the dungeon file or its pack"
                    )
                source = _with_ruleset(opened, rulesets[i], f"/variants/{i}/ruleset")
            changes = {k: v for k, v in variant.items() if k != "ruleset"}  # "name" names it in messages
            theirs = sorted(
                name
                for name in changes.get("switches") or {}
                if name not in (entry.get("switches") or {})
                and any(name in known for other, known in family_switches.items() if other != family)
            )
            if theirs:
                plan.notes.append(
                    f"variant {names[i]!r} sets {', '.join(theirs)}, a switch of the other family's dungeons: "
                    f"skipped for the {family} dungeon {dungeon_id!r}"
                )
                continue
            if family == "line":
                grid_only = [k for k in GRID_ONLY_CHANGES if k in changes]
                if grid_only:
                    plan.notes.append(
                        f"variant {names[i]!r} changes {', '.join(grid_only)}, which a line dungeon has not: "
                        f"skipped for {dungeon_id!r}"
                    )
                    continue
            try:
                played = _applied(source, changes, family) if set(changes) - {"name"} else source
            except VariantError as exc:
                raise SweepError(f"/variants/{i}: {exc}") from None
            low = played.get("players", {}).get("min", 1)
            high = min(played.get("players", {}).get("max", 4), MAX_PLAYERS)
            for players in players_list:
                if not low <= players <= high:
                    plan.notes.append(
                        f"dungeon {dungeon_id!r} is for {low} to {high} players: {players} players skipped"
                    )
                    continue
                for seats in seat_lists:
                    policies = (seats,) * players if isinstance(seats, str) else seats
                    if len(policies) != players:
                        raise SweepError(
                            f"/policies: {list(policies)} gives {len(policies)} seats for {players} players; "
                            f"give one name for every seat or one per seat"
                        )
                    other = [name for name in dict.fromkeys(policies) if name not in family_policies[family]]
                    if other:
                        plan.notes.append(
                            f"policy {other[0]!r} does not play {family} dungeons: skipped for {dungeon_id!r} "
                            f"({family} policies: {', '.join(sorted(family_policies[family]))})"
                        )
                        continue
                    if family == "line" and len(set(policies)) > 1:
                        plan.notes.append(
                            f"policies {list(policies)}: a line table plays one policy for every seat; skipped for "
                            f"{dungeon_id!r}"
                        )
                        continue
                    plan.combinations.append(
                        Combination(
                            str(dungeon_id), names[i], players, policies, Run(played, policies, seed, games), family
                        )
                    )
    if only is not None:
        missing = [i for i in only if i not in found]
        if missing:
            raise SweepError(f"/only: no dungeon {missing[0]!r} in the sweep's dungeons")
    if not plan.combinations:
        why = f": {plan.notes[0]}" if plan.notes else ""
        more = f" (and {len(plan.notes) - 1} more skipped)" if len(plan.notes) > 1 else ""
        raise SweepError(f"/dungeons: nothing to play (no dungeon for the player counts and policies asked){why}{more}")
    return plan


def _applied(entry: dict, changes: dict, family: str) -> dict:
    """``entry`` with a variant's ``changes``: :func:`~inkcrawl.balance.apply_variant` for a grid
    dungeon; for a line dungeon its ``switches`` set, checked by compiling the result
    (:class:`~inkcrawl.engines.line.LineRules`). Raises :class:`~inkcrawl.balance.VariantError`."""
    if family == "grid":
        return apply_variant(entry, changes)
    from inkcrawl.engines.line import GameDataError, LineRules

    out = copy.deepcopy(entry)
    out["switches"] = {**out.get("switches", {}), **changes.get("switches", {})}
    try:
        LineRules(out)
    except GameDataError as exc:
        raise VariantError(f"variant {variant_name(changes)!r}: {exc}") from None
    return out


def _ruleset(path: Path, pointer: str):
    from inkcrawl.rulesets import load_ruleset_file

    if not path.is_file():
        raise SweepInputError(f"{pointer}: no ruleset file {str(path)!r}")
    ruleset, problems = load_ruleset_file(path)
    errors = [p for p in problems if p.severity.value == "error"]
    if ruleset is None or errors:
        first = (errors or problems)[0]
        raise SweepError(f"{pointer}: {path} is not a usable ruleset: {first.pointer} {first.message}")
    return ruleset


def _with_ruleset(opened, ruleset, pointer: str) -> dict:
    from inkcrawl.engines.grid import GameDataError, GridRules
    from inkcrawl.engines.line import GameDataError as LineGameDataError
    from inkcrawl.engines.line import LineRules
    from inkcrawl.gamedata import grid_game_data, line_game_data

    try:
        if ruleset.family == "line":
            entry = line_game_data(opened.dungeon, ruleset)
            LineRules(entry)
        else:
            entry = grid_game_data(opened.dungeon, ruleset, opened.deck, opened.deck_name)
            GridRules(entry)
    except (GameDataError, LineGameDataError, KeyError, ValueError) as exc:
        raise SweepError(
            f"{pointer}: dungeon {opened.dungeon.id!r} cannot be played under that ruleset: {exc}"
        ) from None
    return entry


def play_sweep(
    plan: Plan,
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
) -> dict:
    """Play every combination of ``plan`` and return the result of the module docstring.
    Raises what :func:`~inkcrawl.runs.run_tallies` raises."""
    from inkcrawl.engines.grid import GridRules
    from inkcrawl.engines.line.simulate import simulate_line
    from inkcrawl.tally import _r

    grid = [k for k, c in enumerate(plan.combinations) if c.family == "grid"]
    tallies: list = [None] * len(plan.combinations)
    played = run_tallies(
        [plan.combinations[k].run for k in grid], progress=progress, workers=workers, scheduler=scheduler
    )
    for k, tally in zip(grid, played):
        tallies[k] = tally
    results = []
    for k, combination in enumerate(plan.combinations):
        if combination.family == "grid":
            stats = tallies[k].statistics(GridRules(combination.run.entry), plan.seed, combination.policies, leads=True)
        else:
            stats = simulate_line(
                combination.run.entry,
                plan.games,
                combination.policies[0],
                plan.seed,
                skill=plan.skill,
                speed_mm_s=plan.speed_mm_s,
                players=combination.players,
                progress=progress,
                workers=workers,
            )
            stats["policies"] = list(combination.policies)  # as a grid result names them, one per seat
            tallies[k] = _Measured.of(stats)
        results.append({"variant": combination.variant, **stats})
    comparisons = []
    groups: dict[tuple[str, int], list[int]] = {}
    for k, c in enumerate(plan.combinations):
        groups.setdefault((c.dungeon, c.players), []).append(k)
    for (dungeon, players), members in groups.items():
        comparison: dict[str, object] = {"dungeon": dungeon, "players": players}
        variants = list(dict.fromkeys(plan.combinations[k].variant for k in members))
        gaps = {}
        for variant in variants:
            uniform = {
                plan.combinations[k].policies[0]: tallies[k]
                for k in members
                if plan.combinations[k].variant == variant and len(set(plan.combinations[k].policies)) == 1
            }
            if "random" in uniform and len(uniform) > 1:
                best = max(uniform, key=lambda p: (uniform[p].mean(), p != "random"))
                gaps[variant] = {"best": best, "gap": _r(uniform[best].mean() - uniform["random"].mean())}
        if gaps:
            comparison["skill_gap"] = gaps
        if len(variants) > 1:
            rows = []
            for k in members:
                c = plan.combinations[k]
                if c.variant == variants[0]:
                    continue
                base = next(
                    j
                    for j in members
                    if plan.combinations[j].variant == variants[0] and plan.combinations[j].policies == c.policies
                )
                error = (tallies[k].standard_error() ** 2 + tallies[base].standard_error() ** 2) ** 0.5
                rows.append(
                    {
                        "variant": c.variant,
                        "policies": list(c.policies),
                        "mean": _r(tallies[k].mean()),
                        "delta": _r(tallies[k].mean() - tallies[base].mean()),
                        "standard_error": _r(error),
                    }
                )
            comparison["variants"] = {"base": variants[0], "changes": rows}
        comparisons.append(comparison)
    return {"seed": plan.seed, "games": plan.games, "results": results, "comparisons": comparisons}


@dataclass
class _Measured:
    """A line combination's mean score and its standard error (VP), as a grid tally gives them."""

    score_mean: float
    error: float

    @classmethod
    def of(cls, stats: dict) -> _Measured:
        samples = stats["games"] * stats["players"]
        return cls(float(stats["score"]["mean"]), float(stats["score"]["stdev"]) / math.sqrt(samples))

    def mean(self) -> float:
        return self.score_mean

    def standard_error(self) -> float:
        return self.error


def format_sweep_text(result: dict) -> str:
    """The sweep's result as a table for people, one line per combination, then the comparisons."""
    lines = [f"{len(result['results'])} combinations, {result['games']:,} games each, seed {result['seed']}", ""]

    def policies_of(r: dict) -> str:
        return ",".join(dict.fromkeys(r["policies"])) if len(set(r["policies"])) == 1 else ",".join(r["policies"])

    # columns as wide as their longest entry: ids and variant names are never cut short
    rows = result["results"]
    dungeon_w = max([20, *(len(r["dungeon"]["id"]) for r in rows)])
    variant_w = max([18, *(len(r["variant"]) for r in rows)])
    policies_w = max([16, *(len(policies_of(r)) for r in rows)])
    header = f"{'dungeon':<{dungeon_w}} {'variant':<{variant_w}} {'players':>7}  {'policies':<{policies_w}} "
    header += f"{'mean':>7} {'stdev':>6} {'ties':>6} {'uniform':>7} {'leads':>6}  seat wins"
    lines.append(header)
    for r in rows:
        b = r["balance"]
        leads = f"{b['lead_changes']['mean']:.2f}" if "lead_changes" in b else "-"  # line games have no rounds
        wins = " ".join(f"{s['wins'] * 100:.0f}%" for s in r["seats"])
        lines.append(
            f"{r['dungeon']['id']:<{dungeon_w}} {r['variant']:<{variant_w}} {r['players']:>7}  "
            f"{policies_of(r):<{policies_w}} "
            f"{r['score']['mean']:>7.2f} {r['score']['stdev']:>6.2f} {b['ties'] * 100:>5.1f}% "
            f"{b['outcome_uniformity']:>7.3f} {leads:>6}  {wins}"
        )
    for c in result["comparisons"]:
        for variant, gap in c.get("skill_gap", {}).items():
            lines.append(
                f"skill gap, {c['dungeon']}, {c['players']} players, {variant}: {gap['gap']:+.2f} VP "
                f"({gap['best']} minus random)"
            )
        if "variants" in c:
            for row in c["variants"]["changes"]:
                lines.append(
                    f"{c['dungeon']}, {c['players']} players, {','.join(row['policies'])}: {row['variant']} "
                    f"{row['delta']:+.2f} VP against {c['variants']['base']} "
                    f"(standard error {row['standard_error']:.2f})"
                )
    return "\n".join(lines) + "\n"
