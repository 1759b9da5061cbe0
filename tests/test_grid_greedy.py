"""The greedy grid policy's fast choice against its reference, and the engine's shortcuts
against their definitions (RULES.md 1, Play and Scoring).

:class:`~inkcrawl.engines.grid_policies.GreedyPolicy` values every option once per call with
what it computed from the rules in advance. :class:`ReferenceGreedy` below is the policy as it
was before that: every option valued through ``evaluate``, every helper recomputed per option
(its own valuation kept verbatim; ``evaluate`` and ``_prospect`` are the policy's plain ones).
Both must make the same choice move for move (the same room and rotation, the same trap room,
the same skips) and draw the same random numbers, on random boards under every rules switch and
VP, and on the bundled dungeons. The engine's shared room tables are checked against a
computation from scratch and :func:`play_totals` against :func:`play_game`'s scores.
"""

from __future__ import annotations

import random

from conftest import PACKS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_grid_engine import grid_entry, label

from inkcrawl.engines.grid import TRAP, Deck, GridRules, PlayerMap, play_game, play_totals, play_turn
from inkcrawl.engines.grid.rules import opposite_bit
from inkcrawl.engines.grid_policies import GreedyPolicy


class ReferenceGreedy(GreedyPolicy):
    """The greedy policy as it was before its choice was made faster, kept as the reference: its
    feature values, weapon test, card order and trap choice verbatim, every helper recomputed
    per option; it replaces ``_feature_value``, so :class:`GreedyPolicy` values it option by
    option through the plain ``evaluate`` and ``_prospect``, never through the fast tables."""

    name = "greedy-reference"

    def __init__(self, rules: GridRules):
        super().__init__(rules)
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


# boards, switches and VP ---------------------------------------------------------------------

FEATURES = [
    "loot",
    "dragon",
    ("weapon", "A"),
    ("monster", "A"),
    ("weapon", "B"),
    ("monster", "B"),
    ("monster", "C"),  # no weapon of its letter
    "shrine",  # a kind of the ruleset's own: blocks traps, scores nothing
]


@st.composite
def played_entries(draw_):
    """A grid entry: random walls, 1-4 entryways, features (several of a kind or letter
    allowed), every rules switch and random VP per scoring row."""
    columns, rows = draw_(st.integers(1, 6)), draw_(st.integers(1, 6))
    inner = [(label(c, r), label(c + 1, r)) for r in range(rows) for c in range(columns - 1)]
    inner += [(label(c, r), label(c, r + 1)) for r in range(rows - 1) for c in range(columns)]
    walls = [edge for edge in inner if draw_(st.integers(0, 3)) == 0]
    outer = [(label(c, 0), "north") for c in range(columns)] + [(label(c, rows - 1), "south") for c in range(columns)]
    outer += [(label(0, r), "west") for r in range(rows)] + [(label(columns - 1, r), "east") for r in range(rows)]
    chosen = draw_(st.lists(st.sampled_from(outer), min_size=1, max_size=4, unique=True))
    ways = [(f"e{k}", at, side) for k, (at, side) in enumerate(chosen)]
    kinds = st.one_of(st.none(), st.none(), st.sampled_from(FEATURES))
    features = {label(c, r): f for r in range(rows) for c in range(columns) if (f := draw_(kinds)) is not None}
    switches = {
        "dragon_doubling": draw_(st.sampled_from(["one_loot", "all_loot", "best_item"])),
        "weapon_order": draw_(st.sampled_from(["game_end", "same_network", "earlier_round"])),
        "trap_timing": draw_(st.sampled_from(["any_time", "later_segments_only"])),
        "no_trap_room": draw_(st.sampled_from(["skip", "tally"])),
        "segment_skip": draw_(st.sampled_from(["forbidden", "voluntary_tally"])),
        "segment_skip_vp": draw_(st.integers(-3, 3)),
        "solo_removes_traps": draw_(st.booleans()),
    }
    deck = draw_(st.sampled_from([None, {"trap": 9, "dead_end": 3, "cross": 2, "draw_two": 2}]))
    entry = grid_entry(columns, rows, walls=walls, entryways=ways, features=features, switches=switches, deck=deck)
    for row in entry["scoring"]:
        if row["term"] != "segment_skip":
            row["vp"] = draw_(st.integers(-5, 6))
    return entry


def _histories(result) -> list:
    return [pm.history for pm in result.maps]


# the same choices --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry=played_entries(), seed=st.integers(0, 2**64 - 1), players=st.integers(1, 4))
def test_greedy_plays_every_game_as_the_reference(entry, seed, players):
    rules = GridRules(entry)
    assert GreedyPolicy(rules)._fast and not ReferenceGreedy(rules)._fast  # the two paths compared
    fast = play_game(rules, [GreedyPolicy(rules)] * players, seed)
    slow = play_game(rules, [ReferenceGreedy(rules)] * players, seed)
    assert _histories(fast) == _histories(slow)  # every card: the same room and rotation, trap or skip
    assert [s.terms for s in fast.scores] == [s.terms for s in slow.scores]
    assert fast.winners == slow.winners


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry=played_entries(), seed=st.integers(0, 2**32), data=st.data())
def test_greedy_chooses_as_the_reference_turn_by_turn(entry, seed, data):
    # one map per policy, the same cards, opponents' traps drawn at random each round: after
    # every turn both maps are the same and both random generators drew the same numbers
    rules = GridRules(entry)
    fast, slow = GreedyPolicy(rules), ReferenceGreedy(rules)
    maps = PlayerMap(rules), PlayerMap(rules)
    rngs = random.Random(seed), random.Random(seed)
    deck = Deck(rules.deck_list(2), random.Random(seed), rules.reshuffle)
    for round_number in range(1, rules.rounds + 1):
        cards = deck.reveal(rules.reveal)
        traps = data.draw(st.lists(st.integers(0, 2), min_size=rules.size, max_size=rules.size))
        for pm, policy, rng in zip(maps, (fast, slow), rngs):
            pm.round = round_number
            pm.opponent_traps = list(traps)
            play_turn(pm, cards, policy, rng)
        assert maps[0].history == maps[1].history
        assert maps[0].link == maps[1].link and maps[0].frontier == maps[1].frontier
        assert rngs[0].getstate() == rngs[1].getstate()
        deck.discards.extend(cards)


def test_greedy_plays_the_bundled_dungeons_as_the_reference():
    from inkcrawl.gamedata import game_document
    from inkcrawl.loading import open_dungeons

    document = game_document(open_dungeons([str(PACKS / "ember-halls")]).dungeons)
    assert document["dungeons"]
    for entry in document["dungeons"]:
        rules = GridRules(entry)
        for seed in range(15):
            players = 1 + seed % 4
            fast = play_game(rules, [GreedyPolicy(rules)] * players, seed)
            slow = play_game(rules, [ReferenceGreedy(rules)] * players, seed)
            assert _histories(fast) == _histories(slow), (entry["id"], seed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry=played_entries(), seed=st.integers(0, 2**32))
def test_a_subclass_replacing_a_valuation_helper_is_valued_through_it(entry, seed):
    # a subclass that reads "weapon held" its own way (every weapon counts as held) values
    # through evaluate and its own helper, as the reference does with the same helper
    def held(self, state, letter, room=None):
        return True

    rules = GridRules(entry)
    Fast = type("Fast", (GreedyPolicy,), {"_weapon_held": held})
    Slow = type("Slow", (ReferenceGreedy,), {"_weapon_held": held})
    fast = play_game(rules, [Fast(rules)] * 2, seed)
    slow = play_game(rules, [Slow(rules)] * 2, seed)
    assert _histories(fast) == _histories(slow)
    # and a subclass replacing evaluate by itself is valued through it
    Same = type("Same", (GreedyPolicy,), {"evaluate": lambda self, *a: GreedyPolicy.evaluate(self, *a)})
    same = play_game(rules, [Same(rules)] * 2, seed)
    assert _histories(same) == _histories(play_game(rules, [ReferenceGreedy(rules)] * 2, seed))


def test_greedy_orders_unknown_cards_as_the_reference():
    rules = GridRules(grid_entry(2, 2, entryways=[("w1", "A1", "west")]))
    cards = ["dead_end", "joker", TRAP, "cross", "straight"]
    rng = random.Random(1)
    expected = ReferenceGreedy(rules).order(PlayerMap(rules), list(cards), rng)
    assert expected == ["cross", "straight", "dead_end", "joker", TRAP]  # most ends first, then by name, traps last
    assert GreedyPolicy(rules).order(PlayerMap(rules), list(cards), rng) == expected


# the engine's shortcuts ----------------------------------------------------------------------


def _reach_from_scratch(rules: GridRules) -> list:
    reach = []
    for i in range(rules.size):
        per_mask = []
        for mask in range(16):
            ends = []
            for k, j in enumerate(rules.neighbour[i]):
                bit = 1 << k
                if mask & bit and j >= 0 and rules.open[j] & opposite_bit(bit) and rules.open[i] & bit:
                    ends.append((j, opposite_bit(bit)))
            per_mask.append(tuple(ends))
        reach.append(per_mask)
    return reach


def _placements_from_scratch(rules: GridRules, shape: str) -> list:
    return [
        [tuple((i, m) for m in rules.shapes[shape] if not m & ~rules.open[i] and m & link) for link in range(16)]
        for i in range(rules.size)
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=played_entries(), second=played_entries())
def test_shared_room_tables_match_a_computation_from_scratch(first, second):
    # the second board is compiled after the first (room tables cached between boards)
    for entry in (first, second):
        rules = GridRules(entry)
        assert [list(per_room) for per_room in rules.reach] == _reach_from_scratch(rules)
        for shape in rules.shapes:
            assert [list(per_room) for per_room in rules.table[shape]] == _placements_from_scratch(rules, shape)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry=played_entries(), seed=st.integers(0, 2**32), players=st.integers(1, 4))
def test_play_totals_are_the_games_scores(entry, seed, players):
    rules = GridRules(entry)
    seats = [GreedyPolicy(rules), ReferenceGreedy(rules), GreedyPolicy(rules), ReferenceGreedy(rules)][:players]
    assert play_totals(rules, seats, seed) == [s.total for s in play_game(rules, seats, seed).scores]
