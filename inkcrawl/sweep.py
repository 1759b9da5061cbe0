"""Sweeps: grid dungeons x rule and deck variants x player counts x policies, each played for
the same seeded games (``inkcrawl sweep SPEC``; the file format is
``schemas/sweep.schema.json``, documented in docs/sweeps.md).

Every combination is one run of :mod:`inkcrawl.runs`, so a sweep plays on every local core, or
on a Dask cluster, with byte-identical results for a seed whatever the number of workers; its
memory does not grow with the number of games.

The result (``--format json``), one object:

``seed``, ``games``
    As in the spec.
``results``
    One object per combination, in the order dungeons x variants x players x policies: the
    statistics of :mod:`inkcrawl.simulate` (with ``balance`` and lead changes) plus
    ``"variant"`` (its name).
``comparisons``
    Per dungeon and player count: ``{"dungeon", "players", "skill_gap"?, "variants"?}``:
    ``skill_gap`` (when both ``random`` and another policy played every seat) is
    ``{"best", "gap"}`` per variant, as ``inkcrawl simulate --balance`` defines it;
    ``variants`` (when there are several) gives, per policy, each variant's mean score and
    its change from the first variant's, with the standard error of that change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inkcrawl.balance import VariantError, apply_variant, variant_name
from inkcrawl.runs import Run, run_tallies
from inkcrawl.suggest import expected


class SweepError(ValueError):
    """A sweep that cannot be played as written; the message names the member and says why."""


class SweepInputError(SweepError):
    """A file the sweep names cannot be read (missing, a folder, unreadable): a usage error."""


@dataclass
class Combination:
    """One run of a sweep: which dungeon, variant, player count and seat policies."""

    dungeon: str
    variant: str
    players: int
    policies: tuple[str, ...]
    run: Run


@dataclass
class Plan:
    """A sweep ready to play: its combinations, and notes for the user (dungeons skipped)."""

    seed: int
    games: int
    combinations: list[Combination] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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

    games = spec.get("games", 1000)
    seed = spec.get("seed", 0)
    plan = Plan(seed, games)
    known = policy_names()
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
    for entry, opened in entries_for(paths):
        if only is not None and entry.get("id") not in only:
            continue
        found.add(str(entry.get("id")))
        if entry.get("family") != "grid":
            plan.notes.append(f"dungeon {entry.get('id')!r} is a line dungeon: sweeps play grid dungeons; skipped")
            continue
        for i, variant in enumerate(variants):
            source = entry
            if i in rulesets:
                if opened is None:
                    raise SweepError(
                        f"/variants/{i}/ruleset: dungeon {entry.get('id')!r} comes from a game.json, which keeps "
                        f"no dungeon to apply another ruleset to; sweep the dungeon file or its pack"
                    )
                source = _with_ruleset(opened, rulesets[i], f"/variants/{i}/ruleset")
            changes = {k: v for k, v in variant.items() if k not in ("name", "ruleset")}
            try:
                played = apply_variant(source, changes) if changes else source
            except VariantError as exc:
                raise SweepError(f"/variants/{i}: {exc}") from None
            low = played.get("players", {}).get("min", 1)
            high = min(played.get("players", {}).get("max", 4), MAX_PLAYERS)
            for players in players_list:
                if not low <= players <= high:
                    plan.notes.append(
                        f"dungeon {entry.get('id')!r} is for {low} to {high} players: {players} players skipped"
                    )
                    continue
                for seats in seat_lists:
                    policies = (seats,) * players if isinstance(seats, str) else seats
                    if len(policies) != players:
                        raise SweepError(
                            f"/policies: {list(policies)} gives {len(policies)} seats for {players} players; "
                            f"give one name for every seat or one per seat"
                        )
                    plan.combinations.append(
                        Combination(
                            str(entry.get("id")), names[i], players, policies, Run(played, policies, seed, games)
                        )
                    )
    if only is not None:
        missing = [i for i in only if i not in found]
        if missing:
            raise SweepError(f"/only: no dungeon {missing[0]!r} in the sweep's dungeons")
    if not plan.combinations:
        why = f": {plan.notes[0]}" if plan.notes else ""
        more = f" (and {len(plan.notes) - 1} more skipped)" if len(plan.notes) > 1 else ""
        raise SweepError(f"/dungeons: nothing to play (no grid dungeon for the player counts asked){why}{more}")
    return plan


def _ruleset(path: Path, pointer: str):
    from inkcrawl.rulesets import load_ruleset_file

    if not path.is_file():
        raise SweepInputError(f"{pointer}: no ruleset file {str(path)!r}")
    ruleset, problems = load_ruleset_file(path)
    errors = [p for p in problems if p.severity.value == "error"]
    if ruleset is None or errors:
        first = (errors or problems)[0]
        raise SweepError(f"{pointer}: {path} is not a usable ruleset: {first.pointer} {first.message}")
    if ruleset.family != "grid":
        raise SweepError(f"{pointer}: {path} is a {ruleset.family} ruleset; sweeps play grid dungeons")
    return ruleset


def _with_ruleset(opened, ruleset, pointer: str) -> dict:
    from inkcrawl.engines.grid import GameDataError, GridRules
    from inkcrawl.gamedata import grid_game_data

    try:
        entry = grid_game_data(opened.dungeon, ruleset, opened.deck, opened.deck_name)
        GridRules(entry)
    except (GameDataError, KeyError, ValueError) as exc:
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
    from inkcrawl.tally import _r

    tallies = run_tallies([c.run for c in plan.combinations], progress=progress, workers=workers, scheduler=scheduler)
    results = []
    for combination, tally in zip(plan.combinations, tallies):
        stats = tally.statistics(GridRules(combination.run.entry), plan.seed, combination.policies, leads=True)
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


def format_sweep_text(result: dict) -> str:
    """The sweep's result as a table for people, one line per combination, then the comparisons."""
    lines = [f"{len(result['results'])} combinations, {result['games']:,} games each, seed {result['seed']}", ""]
    header = f"{'dungeon':<20} {'variant':<18} {'players':>7}  {'policies':<16} {'mean':>7} {'stdev':>6}"
    header += f" {'ties':>6} {'uniform':>7} {'leads':>6}  seat wins"
    lines.append(header)
    for r in result["results"]:
        policies = ",".join(dict.fromkeys(r["policies"])) if len(set(r["policies"])) == 1 else ",".join(r["policies"])
        b = r["balance"]
        wins = " ".join(f"{s['wins'] * 100:.0f}%" for s in r["seats"])
        lines.append(
            f"{r['dungeon']['id']:<20.20} {r['variant']:<18.18} {r['players']:>7}  {policies:<16.16} "
            f"{r['score']['mean']:>7.2f} {r['score']['stdev']:>6.2f} {b['ties'] * 100:>5.1f}% "
            f"{b['outcome_uniformity']:>7.3f} {b.get('lead_changes', {}).get('mean', 0):>6.2f}  {wins}"
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
