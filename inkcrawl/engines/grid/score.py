"""Scoring a finished grid map term by term (RULES.md 1, Scoring; the readings of
:mod:`inkcrawl.engines.grid`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inkcrawl.engines.grid.game import PlayerMap
    from inkcrawl.engines.grid.rules import GridRules


@dataclass
class Score:
    """A player's score: ``terms`` (term -> points, in the rules' order), ``counts`` (term -> how
    many times it applied) and ``total``."""

    terms: dict[str, int]
    counts: dict[str, int]
    total: int


def matched_monsters(rules: GridRules, pm: PlayerMap) -> tuple[list[int], list[int]]:
    """The entered monster rooms with and without their weapon under ``weapon_order``."""
    seg, round_of = pm.seg, pm.round_of
    net = pm.networks() if rules.weapon_order == "same_network" else None
    matched: list[int] = []
    unmatched: list[int] = []
    for i in rules.rooms_of_kind.get("monster", ()):
        if not seg[i]:
            continue
        ok = False
        for w in rules.weapon_rooms_by_letter.get(rules.feature_letter[i] or "", ()):
            if not seg[w]:
                continue
            if rules.weapon_order == "game_end":
                ok = True
            elif rules.weapon_order == "same_network":
                ok = net is not None and net[w] == net[i]
            else:  # earlier_round
                ok = round_of[w] < round_of[i]
            if ok:
                break
        (matched if ok else unmatched).append(i)
    return matched, unmatched


def trap_hits(rules: GridRules, pm: PlayerMap, opponents: Sequence[PlayerMap]) -> int:
    """How many opponents' traps hit this map under ``trap_timing``."""
    hits = 0
    later_only = rules.trap_timing == "later_segments_only"
    seg, round_of = pm.seg, pm.round_of
    for other in opponents:
        for room, trap_round in other.traps:
            if seg[room] and (not later_only or round_of[room] > trap_round):
                hits += 1
    return hits


def _applied(rules: GridRules, pm: PlayerMap, opponents: Sequence[PlayerMap]) -> tuple[int, ...]:
    """How many times each term applies and the dragon's points: ``(loot, dragon rooms, dragon
    points, weapons, matched monsters, unmatched monsters, unlinked entryways, trap hits)``
    (RULES.md 1, Scoring). The one source of :func:`score_map` and :func:`score_total`."""
    vp = rules.vp
    seg = pm.seg
    loot_rooms, weapon_rooms, monster_rooms, dragon_rooms_all = rules.scored_rooms
    loot = len([i for i in loot_rooms if seg[i]])
    weapons = len([i for i in weapon_rooms if seg[i]])
    if monster_rooms:
        matched_rooms, unmatched_rooms = matched_monsters(rules, pm)
        matched, unmatched = len(matched_rooms), len(unmatched_rooms)
    else:
        matched = unmatched = 0
    dragon_rooms = len([i for i in dragon_rooms_all if seg[i]])
    dragon = 0
    if dragon_rooms:
        mode = rules.dragon_mode
        if mode == "one_loot":
            dragon = vp["loot"] if loot else 0
        elif mode == "all_loot":
            dragon = vp["loot"] * loot
        else:  # best_item
            items = [vp["loot"]] * bool(loot) + [vp["weapon"]] * bool(weapons) + [vp["monster_matched"]] * bool(matched)
            dragon = max([0, *items])
    unlinked = len([i for i, bit in rules.entryway_sides if not seg[i] & bit])
    hits = trap_hits(rules, pm, opponents) if opponents else 0
    return loot, dragon_rooms, dragon, weapons, matched, unmatched, unlinked, hits


def score_map(rules: GridRules, pm: PlayerMap, opponents: Sequence[PlayerMap] = ()) -> Score:
    """Score one player's map against the opponents' traps (RULES.md 1, Scoring)."""
    vp = rules.vp
    loot, dragon_rooms, dragon, weapons, matched, unmatched, unlinked, hits = _applied(rules, pm, opponents)
    counts = {
        "loot": loot,
        "dragon": dragon_rooms,
        "weapon": weapons,
        "monster_matched": matched,
        "monster_unmatched": unmatched,
        "entryway_unlinked": unlinked,
        "tally": pm.tallies,
        "segment_skip": pm.skips,
        "trap": hits,
    }
    terms = {}
    for term in rules.terms:
        terms[term] = dragon if term == "dragon" else counts[term] * vp[term]
    counts = {term: counts[term] for term in rules.terms}
    return Score(terms, counts, sum(terms.values()))


def score_total(rules: GridRules, pm: PlayerMap, opponents: Sequence[PlayerMap] = ()) -> int:
    """:func:`score_map`'s ``total`` alone, without the breakdown (for scoring every map after
    every round, as lead changes need)."""
    w = rules.term_weights
    loot, _, dragon, weapons, matched, unmatched, unlinked, hits = _applied(rules, pm, opponents)
    return (
        loot * w["loot"]
        + (dragon if "dragon" in w else 0)
        + weapons * w["weapon"]
        + matched * w["monster_matched"]
        + unmatched * w["monster_unmatched"]
        + unlinked * w["entryway_unlinked"]
        + pm.tallies * w["tally"]
        + pm.skips * w["segment_skip"]
        + hits * w["trap"]
    )
