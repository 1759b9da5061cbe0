"""Policies: how a simulated player draws the revealed cards of a grid game.

A policy is a class registered under a name (:data:`POLICIES`, :func:`register_policy`, or the
``inkcrawl.grid_policies`` entry-point group for plugins: ``name = "module:Class"``). It is
built once per simulation with the compiled rules, ``Policy(rules)``, and must keep no state
between calls other than caches derived from the rules. The engine calls, for each player and
round:

``order(state, cards, rng) -> list[str]``
    The order in which to draw this round's revealed ``cards`` (a permutation of them).
    ``state`` is the player's :class:`~inkcrawl.engines.grid.PlayerMap`, with ``state.round``
    and ``state.opponent_traps`` set.

``choose(state, card, options, rng)``
    For a segment ``card`` (a shape name), ``options`` is the non-empty list of legal
    placements ``(room, mask)``; return one of them, or ``None`` to skip the card when the
    switch ``segment_skip`` is ``voluntary_tally`` (the engine refuses it otherwise). For
    ``card == "trap"``, ``options`` lists the rooms where a trap may go; return one.
    A segment with no legal placement, or a trap with no room, never reaches the policy.

``rng`` is the player's own ``random.Random``: using only it keeps games reproducible.

The engine checks every move a policy makes (:class:`~inkcrawl.engines.grid.PolicyError`),
except those of the bundled classes themselves (not their subclasses), which only permute the
cards and pick among the options the engine computed
(:func:`~inkcrawl.engines.grid.game.trust_policy_class`).

Bundled policies
    ``random``: draws the cards in a random order and each card at a uniformly random legal
    placement (every room and distinct rotation equally likely); traps in a uniformly random
    empty room; never skips.

    ``greedy``: draws segments with more ends first (they open more of the map), traps last.
    Each placement is valued as (1) the immediate change of its own score: the feature of the
    room (loot, weapon, monster matched or not under the ``weapon_order`` switch as far as it
    can be judged now, the dragon's doubling), -1 per entryway its ends close, -3 per trap an
    opponent drew there in an earlier round; then (2) keeping options open: +0.5 per end
    leading into a room it could still use, plus 0.3 x the value of that room's feature
    (positive for loot, the dragon, weapons and monsters whose weapon it holds, negative for
    the others). Ties go to the first option after a tiny random jitter. With
    ``voluntary_tally`` it skips when the best immediate change is worse than the skip's VP.
    Traps go to the empty room that blocks its own plans least and is likeliest to be crossed
    by others: -3 on its own frontier, -1 next to it, +0.5 per open side, +0.5 per neighbouring
    feature reached through a passage, +1 on an entryway.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from inkcrawl.engines.grid import TRAP, GridRules, PlayerMap
from inkcrawl.engines.grid.game import trust_policy_class

Placement = tuple[int, int]


class Policy:
    """Base class: draws the cards as revealed; subclasses implement :meth:`choose`."""

    name = "base"

    def __init__(self, rules: GridRules):
        self.rules = rules

    def order(self, state: PlayerMap, cards: list[str], rng: random.Random) -> list[str]:
        """The order to draw ``cards`` in (default: as revealed)."""
        return cards

    def choose(self, state: PlayerMap, card: str, options: Sequence, rng: random.Random):
        """A placement ``(room, mask)`` for a segment, or a room for a trap; see the module."""
        raise NotImplementedError


class RandomPolicy(Policy):
    """Random order, uniformly random legal placement per card."""

    name = "random"

    def order(self, state, cards, rng):
        # Fisher-Yates with rng.random(): every order equally likely, as random.shuffle, at a
        # fraction of its cost (it draws through a Python-level _randbelow); a hot path of simulate
        random = rng.random
        for i in range(len(cards) - 1, 0, -1):
            j = int(random() * (i + 1))
            cards[i], cards[j] = cards[j], cards[i]
        return cards

    def choose(self, state, card, options, rng):
        return options[int(rng.random() * len(options))]


class GreedyPolicy(Policy):
    """Best immediate score change, then most open ends toward valuable rooms (see the module)."""

    name = "greedy"
    OPEN_END = 0.5
    LOOKAHEAD = 0.3

    def __init__(self, rules: GridRules):
        super().__init__(rules)
        self.ends = {shape: bin(rotations[0]).count("1") for shape, rotations in rules.shapes.items()}
        self.entry_bits = [bin(m).count("1") for m in range(16)]
        n = rules.size
        # static trap attractiveness of each room (independent of the map)
        self.trap_base = [0.0] * n
        for i in range(n):
            value = 0.5 * bin(rules.open[i]).count("1") + (1.0 if rules.entry_mask[i] else 0.0)
            for j, _ in rules.reach[i][rules.open[i]]:
                if rules.feature_kind[j] is not None:
                    value += 0.5
            self.trap_base[i] = value

    def order(self, state, cards, rng):
        ends = self.ends
        return sorted(cards, key=lambda card: (card == TRAP, -ends.get(card, 0), card))

    # valuation ------------------------------------------------------------------------------
    def _weapon_held(self, state: PlayerMap, letter: str | None, room: int | None = None) -> bool:
        rules = self.rules
        for w in rules.weapon_rooms_by_letter.get(letter or "", ()):
            if state.seg[w]:
                if rules.weapon_order == "earlier_round" and state.round_of[w] >= state.round:
                    continue
                return True
        return False

    def _feature_value(self, state: PlayerMap, room: int) -> float:
        """The score change of entering ``room`` now (its feature only)."""
        rules, vp, seg = self.rules, self.rules.vp, state.seg
        kind = rules.feature_kind[room]
        if kind is None:
            return 0.0
        dragon_in = any(seg[d] for d in rules.rooms_of_kind.get("dragon", ()))
        loot_in = any(seg[i] for i in rules.rooms_of_kind.get("loot", ()))
        if kind == "loot":
            gain = vp["loot"]
            if dragon_in and (rules.dragon_mode == "all_loot" or rules.dragon_mode == "one_loot" and not loot_in):
                gain += vp["loot"]
            return gain
        if kind == "weapon":
            gain = vp["weapon"]
            letter = rules.feature_letter[room]
            if rules.weapon_order == "game_end":
                for m in rules.rooms_of_kind.get("monster", ()):
                    if seg[m] and rules.feature_letter[m] == letter and not self._weapon_held(state, letter):
                        gain += vp["monster_matched"] - vp["monster_unmatched"]
            return gain
        if kind == "monster":
            return (
                vp["monster_matched"]
                if self._weapon_held(state, rules.feature_letter[room])
                else vp["monster_unmatched"]
            )
        if kind == "dragon":
            if rules.dragon_mode == "all_loot":
                return vp["loot"] * sum(1 for i in rules.rooms_of_kind.get("loot", ()) if seg[i])
            if rules.dragon_mode == "one_loot":
                return vp["loot"] if loot_in else 0.0
            items = [0]
            if loot_in:
                items.append(vp["loot"])
            if any(seg[i] for i in rules.rooms_of_kind.get("weapon", ())):
                items.append(vp["weapon"])
            if any(
                seg[m] and self._weapon_held(state, rules.feature_letter[m])
                for m in rules.rooms_of_kind.get("monster", ())
            ):
                items.append(vp["monster_matched"])
            return max(items)
        return 0.0

    def _prospect(self, state: PlayerMap, room: int) -> float:
        """How promising an unentered neighbouring room is (its feature's likely value)."""
        rules, vp = self.rules, self.rules.vp
        kind = rules.feature_kind[room]
        if kind is None:
            return 0.0
        if kind == "monster":
            return (
                vp["monster_matched"]
                if self._weapon_held(state, rules.feature_letter[room])
                else vp["monster_unmatched"]
            )
        if kind == "dragon":
            return vp["loot"]
        return vp.get(kind, 0)

    def evaluate(self, state: PlayerMap, room: int, mask: int) -> tuple[float, float]:
        """``(immediate score change, option value)`` of drawing ``mask`` in ``room``."""
        rules, vp = self.rules, self.rules.vp
        gain = self._feature_value(state, room)
        gain -= vp["entryway_unlinked"] * self.entry_bits[mask & rules.entry_mask[room]]
        gain += vp["trap"] * state.opponent_traps[room]
        options = 0.0
        seg, trap = state.seg, state.trap
        for j, _ in rules.reach[room][mask]:
            if seg[j] or trap[j]:
                continue
            options += self.OPEN_END + self.LOOKAHEAD * self._prospect(state, j)
        return gain, options

    def choose(self, state, card, options, rng):
        if card == TRAP:
            return self._choose_trap(state, options, rng)
        best = None
        best_value = best_gain = 0.0
        for option in options:
            gain, extra = self.evaluate(state, *option)
            value = gain + extra + rng.random() * 1e-6
            if best is None or value > best_value:
                best, best_value, best_gain = option, value, gain
        if self.rules.voluntary_skip and best_gain < self.rules.vp["segment_skip"]:
            return None
        return best

    def _choose_trap(self, state, options, rng):
        rules = self.rules
        link = state.link
        best, best_value = None, 0.0
        for room in options:
            value = self.trap_base[room]
            if link[room]:
                value -= 3.0
            for j, _ in rules.reach[room][rules.open[room]]:
                if link[j] and not state.seg[j]:
                    value -= 1.0
            value += rng.random() * 1e-6
            if best is None or value > best_value:
                best, best_value = room, value
        return best


#: Bundled policies by name.
POLICIES: dict[str, type[Policy]] = {"random": RandomPolicy, "greedy": GreedyPolicy}
# both permute the revealed cards and choose among the options the engine computed: the engine
# need not check their moves again (a subclass, a plugin or a person is still checked)
for _bundled in POLICIES.values():
    trust_policy_class(_bundled)


def register_policy(name: str, cls: type[Policy]) -> None:
    """Make a policy class available under ``name`` (e.g. for ``inkcrawl simulate --policy``)."""
    POLICIES[name] = cls


def _plugin_policies() -> dict[str, type[Policy]]:
    from importlib.metadata import entry_points

    found: dict[str, type[Policy]] = {}
    for entry in entry_points(group="inkcrawl.grid_policies"):
        try:
            found[entry.name] = entry.load()
        except Exception:  # a broken plugin must not break the bundled policies
            continue
    return found


def policy_names() -> list[str]:
    """Every known policy name: bundled, registered and from plugins."""
    return sorted({**_plugin_policies(), **POLICIES})


def make_policy(name: str, rules: GridRules) -> Policy:
    """Build the policy registered as ``name`` for ``rules``; ``KeyError`` if unknown."""
    cls = POLICIES.get(name) or _plugin_policies().get(name)
    if cls is None:
        raise KeyError(name)
    return cls(rules)
