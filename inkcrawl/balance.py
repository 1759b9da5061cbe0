"""Variants of a grid dungeon's rules and deck, and the balance measures that play them:
the skill gap and the deck sensitivity (``inkcrawl simulate --balance``, ``inkcrawl sweep``,
``inkcrawl report``).

A *variant* is a JSON object that changes a grid dungeon's game data (docs/game-data.md,
"Grid family") before it is played; every member is optional:

``name``
    What to call it in reports (default: made from the changes).
``switches``
    Rules switches to set, e.g. ``{"trap_timing": "later_segments_only"}`` (RULES.md 1; the
    names and values of ``schemas/game.schema.json``).
``scoring``
    Term -> VP, e.g. ``{"trap": -4}``: the VP of those scoring rows.
``deck``
    Card -> change of its count, e.g. ``{"trap": 1, "straight": -2}`` (a card the deck lacks
    may be added with a positive change).
``deck_cards``
    Card -> count: the whole deck instead (``deck`` changes apply after it).
``rounds``, ``reveal``
    Rounds per game and cards revealed per round.

A variant that leaves the game data unplayable (a count below zero, an unknown card, a switch
value the rules do not have) raises :class:`VariantError`, naming the variant and the member.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from inkcrawl.runs import Run, run_tallies


class VariantError(ValueError):
    """A variant that cannot be applied; the message names the variant and what is wrong."""


def variant_name(variant: dict) -> str:
    """The variant's ``name``, else a short description of its changes (``"trap +1"``)."""
    if isinstance(variant.get("name"), str) and variant["name"]:
        return variant["name"]
    parts = []
    for card, change in (variant.get("deck") or {}).items():
        parts.append(f"{card} {change:+d}")
    for key, value in (variant.get("switches") or {}).items():
        parts.append(f"{key}={value}")
    for term, vp in (variant.get("scoring") or {}).items():
        parts.append(f"{term} {vp:+d} VP")
    for key in ("rounds", "reveal"):
        if key in variant:
            parts.append(f"{key}={variant[key]}")
    if "deck_cards" in variant:
        parts.insert(0, "deck " + ", ".join(f"{c} {n}" for c, n in variant["deck_cards"].items()))
    return ", ".join(parts) or "base"


def apply_variant(entry: dict, variant: dict) -> dict:
    """A copy of the grid game data ``entry`` with ``variant`` applied (see the module).
    Raises :class:`VariantError` for a change that cannot be made (a count below 0, a deck left
    with no segment card); the result is checked by compiling it (:class:`~inkcrawl.engines.grid.GridRules`)."""
    from inkcrawl.engines.grid import GameDataError, GridRules
    from inkcrawl.engines.grid.rules import DRAW_TWO, TRAP

    name = variant_name(variant)
    out = copy.deepcopy(entry)
    if "switches" in variant:
        out["switches"] = {**out.get("switches", {}), **variant["switches"]}
    if "scoring" in variant:
        rows = {row.get("term"): row for row in out.get("scoring", [])}
        for term, vp in variant["scoring"].items():
            if term not in rows:
                known = ", ".join(str(t) for t in rows)
                raise VariantError(f"variant {name!r}: no scoring term {term!r} (the terms are {known})")
            rows[term]["vp"] = vp
    if "deck_cards" in variant:
        out["deck"] = {**out["deck"], "cards": dict(variant["deck_cards"])}
    if "deck" in variant:
        cards = dict(out["deck"]["cards"])
        for card, change in variant["deck"].items():
            count = cards.get(card, 0) + change
            if count < 0:
                raise VariantError(
                    f"variant {name!r}: the deck has {cards.get(card, 0)} {card!r} cards; {change:+d} leaves {count}"
                )
            cards[card] = count
        out["deck"] = {**out["deck"], "cards": cards}
    for key in ("rounds", "reveal"):
        if key in variant:
            out[key] = variant[key]
    if ("deck" in variant or "deck_cards" in variant) and not any(
        count > 0 for card, count in out["deck"]["cards"].items() if card not in (TRAP, DRAW_TWO)
    ):
        raise VariantError(f"variant {name!r}: the deck has no segment cards left, so no path can be drawn")
    try:
        GridRules(out)
    except GameDataError as exc:
        raise VariantError(f"variant {name!r}: {exc}") from None
    return out


def deck_variants(entry: dict) -> list[dict]:
    """The one-card variants of the entry's deck: for each card in it, one fewer (when it has
    any) and one more, in deck order (``[{"name": "straight -1", "deck": {"straight": -1}}, ...]``)."""
    out = []
    for card, count in entry["deck"]["cards"].items():
        if count > 0:
            out.append({"name": f"{card} -1", "deck": {card: -1}})
        out.append({"name": f"{card} +1", "deck": {card: 1}})
    return out


def balance_extras(
    entry: dict,
    names: Sequence[str],
    seed: int,
    games: int,
    base,
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
) -> dict:
    """The skill gap and the deck sensitivity of the grid dungeon ``entry`` for a run of
    ``games`` games with the seats' policy ``names`` and ``seed`` whose sums are ``base`` (a
    :class:`~inkcrawl.tally.GridTally`); every run below uses the same seed, so the games differ only by what is
    measured.

    ``skill_gap``
        ``{"policies": {name: mean score with every seat playing it}, "best", "gap"}``: ``gap``
        is the best policy's mean minus the ``random`` policy's, in VP: how much skill pays.
    ``deck_sensitivity``
        ``{"variants": [{"variant", "mean", "delta", "standard_error"}], "max_abs_delta"}``: the
        mean score of each one-card deck variant (:func:`deck_variants`) with the run's
        policies, its change from the base run's mean and the standard error of that change
        (a change within about two standard errors may be chance); ``max_abs_delta`` is the
        largest change either way.

    Raises what :func:`~inkcrawl.runs.run_tallies` raises."""
    from inkcrawl.engines.grid_policies import policy_names
    from inkcrawl.tally import _r

    players = len(names)
    policies = policy_names()
    variants = deck_variants(entry)
    runs = [Run(entry, (policy,) * players, seed, games, leads=False) for policy in policies]
    runs += [Run(apply_variant(entry, v), tuple(names), seed, games, leads=False) for v in variants]
    tallies = run_tallies(runs, progress=progress, workers=workers, scheduler=scheduler)

    means = {policy: t.mean() for policy, t in zip(policies, tallies)}
    best = max(means, key=lambda p: (means[p], p != "random"))
    rows = []
    for v, tally in zip(variants, tallies[len(policies) :]):
        m = tally.mean()
        error = (tally.standard_error() ** 2 + base.standard_error() ** 2) ** 0.5
        rows.append({"variant": v["name"], "mean": _r(m), "delta": _r(m - base.mean()), "standard_error": _r(error)})
    return {
        "skill_gap": {
            "policies": {p: _r(m) for p, m in means.items()},
            "best": best,
            "gap": _r(means[best] - means.get("random", means[best])),
        },
        "deck_sensitivity": {
            "variants": rows,
            "max_abs_delta": _r(max((abs(float(r["delta"])) for r in rows), default=0.0)),
        },
    }


def extra_games(entry: dict, games: int) -> int:
    """How many games :func:`balance_extras` plays for a run of ``games`` (for progress bars)."""
    from inkcrawl.engines.grid_policies import policy_names

    return games * (len(policy_names()) + len(deck_variants(entry)))
