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
from collections.abc import Callable, Sequence
from functools import lru_cache

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
    """Best immediate score change, then most open ends toward valuable rooms (see the module).

    :meth:`evaluate` values one placement; :meth:`choose` makes the same choice as valuing every
    option with :meth:`evaluate` (the same floating-point sums in the same order, one
    ``rng.random()`` per option), faster: what depends only on the rules is computed once here
    (the rooms each end mask leads into, each room's look-ahead term, the trap rooms' base
    value), what depends on the map once per call (a room's feature value is shared by its
    rotations). A subclass that replaces :meth:`evaluate` or a valuation helper is valued
    through :meth:`evaluate` option by option."""

    name = "greedy"
    OPEN_END = 0.5
    LOOKAHEAD = 0.3

    def __init__(self, rules: GridRules):
        super().__init__(rules)
        self.ends = {shape: bin(rotations[0]).count("1") for shape, rotations in rules.shapes.items()}
        self.entry_bits = [bin(m).count("1") for m in range(16)]
        n = rules.size
        vp = rules.vp
        # the rooms across a passage from each room (both sides open): a trap's neighbours
        self._across = [tuple(j for j, _ in rules.reach[i][rules.open[i]]) for i in range(n)]
        # static trap attractiveness of each room (independent of the map); every term is a
        # multiple of 0.5, so the sums below are exact in any order
        self.trap_base = [0.0] * n
        for i in range(n):
            value = 0.5 * bin(rules.open[i]).count("1") + (1.0 if rules.entry_mask[i] else 0.0)
            for j in self._across[i]:
                if rules.feature_kind[j] is not None:
                    value += 0.5
            self.trap_base[i] = value
        # caches derived from the rules alone (the policy keeps no other state)
        self._order_key = {card: (card == TRAP, -self.ends.get(card, 0), card) for card in (*rules.shapes, TRAP)}
        self._reach = [_rooms_reached(tuple(ends)) for ends in rules.reach]  # [room][mask]: rooms its ends enter
        self._vp_entry = vp["entryway_unlinked"]
        self._vp_trap = vp["trap"]
        self._weapons_of = {letter: tuple(rooms) for letter, rooms in rules.weapon_rooms_by_letter.items()}
        self._monsters_of: dict[str | None, tuple[int, ...]] = {}
        for m in rules.rooms_of_kind.get("monster", ()):
            self._monsters_of[rules.feature_letter[m]] = (*self._monsters_of.get(rules.feature_letter[m], ()), m)
        # per room: the value of entering it now as a function of the map (:meth:`_feature_value`),
        # ``None`` for a room with no feature; OPEN_END + LOOKAHEAD x its prospect
        # (:meth:`_prospect`), ``None`` for a monster, whose prospect depends on the map
        self._value = [None if kind is None else self._value_function(i) for i, kind in enumerate(rules.feature_kind)]
        self._look: list[float | None] = []
        self._monster_look: dict[int, Callable[[PlayerMap], float]] = {}
        for j, kind in enumerate(rules.feature_kind):
            prospect = 0.0 if kind is None else vp["loot"] if kind == "dragon" else vp.get(kind, 0)
            self._look.append(None if kind == "monster" else self.OPEN_END + self.LOOKAHEAD * prospect)
            if kind == "monster":
                self._monster_look[j] = self._look_function(j)
        #: what :meth:`choose` reads, in one tuple
        self._fixed = (
            self._value,
            rules.entry_mask,
            self.entry_bits,
            self._reach,
            self._look,
            self._monster_look,
            self._vp_entry,
            self._vp_trap,
        )
        cls = type(self)
        self._fast = all(
            getattr(cls, name) is getattr(GreedyPolicy, name)
            for name in ("evaluate", "_feature_value", "_prospect", "_weapon_held")
        )

    def order(self, state, cards, rng):
        try:  # the key of every card of the rules, computed once
            return sorted(cards, key=self._order_key.__getitem__)
        except KeyError:  # a card the rules do not know (a hand-made call)
            ends = self.ends
            return sorted(cards, key=lambda card: (card == TRAP, -ends.get(card, 0), card))

    # valuation ------------------------------------------------------------------------------
    def _weapon_held(self, state: PlayerMap, letter: str | None, room: int | None = None) -> bool:
        seg = state.seg
        weapons = self._weapons_of.get(letter or "", ())
        if self.rules.weapon_order == "earlier_round":
            round_of, now = state.round_of, state.round
            return any(seg[w] and round_of[w] < now for w in weapons)
        return any(map(seg.__getitem__, weapons))

    def _held_function(self, letter: str | None) -> Callable[[PlayerMap], bool]:
        """:meth:`_weapon_held` for ``letter`` as a function of the map: whether a weapon room
        of that letter is entered (with ``weapon_order: earlier_round``, in an earlier round)."""
        if type(self)._weapon_held is not GreedyPolicy._weapon_held:  # a subclass's own reading
            return lambda state: self._weapon_held(state, letter)
        weapons = self._weapons_of.get(letter or "", ())
        if self.rules.weapon_order == "earlier_round":

            def held(state: PlayerMap) -> bool:
                seg, round_of, now = state.seg, state.round_of, state.round
                return any(seg[w] and round_of[w] < now for w in weapons)

        elif len(weapons) == 1:
            (weapon,) = weapons

            def held(state: PlayerMap) -> bool:
                return bool(state.seg[weapon])

        else:

            def held(state: PlayerMap) -> bool:
                return any(map(state.seg.__getitem__, weapons))

        return held

    def _if_held(self, letter: str | None, held_value: float, other_value: float) -> Callable[[PlayerMap], float]:
        """A function of the map: ``held_value`` when a weapon of ``letter`` is held
        (:meth:`_weapon_held`), else ``other_value`` (one call when one plain weapon decides)."""
        weapons = self._weapons_of.get(letter or "", ())
        plain = type(self)._weapon_held is GreedyPolicy._weapon_held and self.rules.weapon_order != "earlier_round"
        if plain and len(weapons) == 1:
            (weapon,) = weapons

            def choice(state: PlayerMap) -> float:
                return held_value if state.seg[weapon] else other_value

        else:
            held = self._held_function(letter)

            def choice(state: PlayerMap) -> float:
                return held_value if held(state) else other_value

        return choice

    def _look_function(self, room: int) -> Callable[[PlayerMap], float]:
        """OPEN_END + LOOKAHEAD x :meth:`_prospect` of the monster room ``room``, as a function
        of the map: its VP matched when its weapon is held, unmatched otherwise."""
        vp = self.rules.vp
        matched = self.OPEN_END + self.LOOKAHEAD * vp["monster_matched"]
        unmatched = self.OPEN_END + self.LOOKAHEAD * vp["monster_unmatched"]
        return self._if_held(self.rules.feature_letter[room], matched, unmatched)

    def _feature_value(self, state: PlayerMap, room: int) -> float:
        """The score change of entering ``room`` now (its feature only)."""
        value = self._value[room]
        return 0.0 if value is None else value(state)

    def _value_function(self, room: int) -> Callable[[PlayerMap], float]:
        """:meth:`_feature_value` of ``room`` (which holds a feature) as a function of the map:
        the feature's VP, with the dragon's doubling of a loot bag, the matches a weapon makes
        under ``weapon_order: game_end``, a monster matched or not (RULES.md 1, Scoring)."""
        rules, vp = self.rules, self.rules.vp
        kind, letter = rules.feature_kind[room], rules.feature_letter[room]
        loot_rooms = tuple(rules.rooms_of_kind.get("loot", ()))
        dragons = tuple(rules.rooms_of_kind.get("dragon", ()))
        weapons = tuple(rules.rooms_of_kind.get("weapon", ()))
        monsters = tuple(rules.rooms_of_kind.get("monster", ()))
        mode = rules.dragon_mode
        held_own = self._held_function(letter)
        loot, weapon, matched, unmatched = vp["loot"], vp["weapon"], vp["monster_matched"], vp["monster_unmatched"]

        if kind == "loot":
            doubled = loot + loot  # a second loot bag's VP on top of the first, as scoring adds it

            def value(state: PlayerMap) -> float:
                seg = state.seg
                if (mode == "all_loot" or mode == "one_loot" and not any(map(seg.__getitem__, loot_rooms))) and any(
                    map(seg.__getitem__, dragons)
                ):
                    return doubled
                return loot

        elif kind == "weapon":
            same_letter = self._monsters_of.get(letter, ())
            game_end = rules.weapon_order == "game_end"
            match = matched - unmatched

            def value(state: PlayerMap) -> float:
                gain = weapon
                if game_end:
                    seg = state.seg
                    entered = [m for m in same_letter if seg[m]]
                    if entered and not held_own(state):
                        for _ in entered:
                            gain += match
                return gain

        elif kind == "monster":
            return self._if_held(letter, matched, unmatched)

        elif kind == "dragon":
            held_by_monster = [(m, self._held_function(rules.feature_letter[m])) for m in monsters]

            def value(state: PlayerMap) -> float:
                seg = state.seg
                if mode == "all_loot":
                    return loot * sum(1 for i in loot_rooms if seg[i])
                loot_in = any(map(seg.__getitem__, loot_rooms))
                if mode == "one_loot":
                    return loot if loot_in else 0.0
                items = [0]
                if loot_in:
                    items.append(loot)
                if any(map(seg.__getitem__, weapons)):
                    items.append(weapon)
                if any(seg[m] and held(state) for m, held in held_by_monster):
                    items.append(matched)
                return max(items)

        else:

            def value(state: PlayerMap) -> float:
                return 0.0

        return value

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
        if not self._fast:
            return self._choose_by_evaluate(state, options, rng)
        # :meth:`evaluate` inlined, term for term: gain = feature - entryways closed + traps,
        # options = the sum over open ends of OPEN_END + LOOKAHEAD x prospect, in end order
        seg, trap, opponent_traps = state.seg, state.trap, state.opponent_traps
        values, entry_mask, entry_bits, reach, look, monster_look, vp_entry, vp_trap = self._fixed
        random = rng.random
        best = None
        best_value = best_gain = 0.0
        last = -1
        feature = 0.0
        traps = 0
        entry = 0
        for option in options:
            room, mask = option
            if room != last:  # the rotations of one room are consecutive options
                last = room
                value_of = values[room]
                feature = 0.0 if value_of is None else value_of(state)
                traps = vp_trap * opponent_traps[room]
                entry = entry_mask[room]
            # (x - 0 is x: a room with no entryway closes none)
            gain = feature - vp_entry * entry_bits[mask & entry] + traps if entry else feature + traps
            extra = 0.0
            for j in reach[room][mask]:
                if seg[j] or trap[j]:
                    continue
                step = look[j]
                if step is None:  # a monster: its prospect depends on the weapons held
                    step = monster_look[j](state)
                extra += step
            value = gain + extra + random() * 1e-6
            if best is None or value > best_value:
                best, best_value, best_gain = option, value, gain
        return self._unless_skipped(best, best_gain)

    def _choose_by_evaluate(self, state, options, rng):
        best = None
        best_value = best_gain = 0.0
        for option in options:
            gain, extra = self.evaluate(state, *option)
            value = gain + extra + rng.random() * 1e-6
            if best is None or value > best_value:
                best, best_value, best_gain = option, value, gain
        return self._unless_skipped(best, best_gain)

    def _unless_skipped(self, best, best_gain: float):
        """``best``, or ``None`` (the segment skipped) when skipping is allowed and pays more
        than the best placement's immediate gain (RULES.md 1, Play: ``segment_skip``)."""
        if self.rules.voluntary_skip and best_gain < self.rules.vp["segment_skip"]:
            return None
        return best

    def _choose_trap(self, state, options, rng):
        # each option's value: trap_base, -3 on its own frontier (a linked room without a
        # segment), -1 per such room across a passage. Those rooms are the frontier (free rooms
        # with a link) and this player's trapped rooms with a link; every term is a multiple of
        # 0.5, so subtracting them room by room gives the same floats as option by option
        values = self.trap_base.copy()
        across = self._across
        link = state.link
        for j in state.frontier:
            values[j] -= 3.0
            for i in across[j]:
                values[i] -= 1.0
        for j, _ in state.traps:
            if link[j]:
                for i in across[j]:
                    values[i] -= 1.0
        random = rng.random
        scored = [values[room] + random() * 1e-6 for room in options]
        return options[scored.index(max(scored))]


@lru_cache(maxsize=8192)
def _rooms_reached(room_reach: tuple) -> tuple[tuple[int, ...], ...]:
    """One room's ``reach`` entries (:class:`~inkcrawl.engines.grid.GridRules`) without the
    side bits: by end mask, the rooms its ends lead into (shared between boards, as ``reach``)."""
    return tuple(tuple(j for j, _ in ends) for ends in room_reach)


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
