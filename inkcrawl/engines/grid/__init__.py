"""The grid-family rules engine (RULES.md section 1): deck, legal placements, traps, scoring.

It plays one dungeon entry of a game document (docs/game-data.md, ``inkcrawl export game``)
and reads nothing else: no model, no ruleset file. :class:`GridRules` compiles the entry once
(rooms, open sides, entryways, features, segment rotations, switches, VP); :func:`play_game`
plays one seeded game with one policy per player (:mod:`inkcrawl.engines.grid_policies`),
:func:`play_totals` the same game for its final scores alone;
:func:`score_map` scores a finished map term by term.

Representation
    Rooms are numbered row by row (``index = row * columns + column``). A room's sides are
    bits: north 1, east 2, south 4, west 8. A segment drawn in a room is the mask of its open
    ends; a placement is the pair ``(room, mask)``. Each shape's rotations are precomputed and
    deduplicated (a straight has 2, a cross 1), and for every room, every "link" mask and every
    shape the legal placements are precomputed, so generating the legal placements of a card is
    a few list concatenations.

Rules as implemented (RULES.md 1; the switch names are the game data's ``switches``)
    * Deck: the entry's ``deck.cards`` in document order, shuffled with ``random.Random(seed)``.
      With one player and ``solo_removes_traps`` the traps are taken out first.
    * Reveal: each round reveals ``reveal`` cards; a revealed Draw 2 is discarded and two more
      cards are revealed, chaining when one of those is a Draw 2 too.
    * ``deck_exhausted``: ``reshuffle_discards`` shuffles the discard pile (earlier rounds'
      cards and discarded Draw 2s) into a new deck when a card is needed and the deck is empty;
      if the discard pile is empty as well, the round is played with the cards revealed so far.
      ``end_game``: the round in which the deck runs out is played with the cards revealed so far
      and is the last one.
    * Segment legality: the room holds none of this player's segments or traps; every open end
      is on a side listed in the room's ``open`` (passage or entryway); and at least one end
      *links*: it is on an entryway of the room, or it faces a neighbouring room through a
      passage where an earlier segment of this player has an end on that same edge (segments
      drawn earlier in the same round count). With no segment drawn yet only entryways can link,
      which is the "first segment on an entryway" rule. Several networks are allowed.
    * A segment with no legal placement: one tally mark. ``segment_skip: voluntary_tally`` lets
      a policy skip a placeable segment; that scores ``segment_skip_vp`` (term ``segment_skip``).
    * Traps (``trap_drawn_by: every_player``): each player draws each trap on their own map in
      an *empty* room: no feature, none of their segments, none of their traps (an entryway room
      is allowed). Reading: the X occupies the room, so that player can no longer draw a segment
      there (one thing per room, one round number per room). No empty room: ``no_trap_room``
      ``skip`` (nothing happens) or ``tally`` (one tally mark).
    * Trap hits: a trap drawn by player P in room c hits each opponent Q whose map has a segment
      in c, once per trap (two opponents' traps in the same room hit twice). ``trap_timing``
      ``any_time``: judged on the final maps; ``later_segments_only``: only if Q drew that
      segment in a strictly later round than the round in which P drew the trap (segments of
      the same round were drawn simultaneously, so they are not hit).
    * The round number is written in every room used (segment or trap): ``PlayerMap.round_of``.

Scoring (term names and VP from the entry's ``scoring`` rows; RULES.md values as fallback)
    ``loot`` per loot room entered; ``weapon`` per weapon room entered; ``monster_matched`` /
    ``monster_unmatched`` per monster room entered with / without its weapon, where
    ``weapon_order`` decides what "with" means: ``game_end`` a weapon room of that letter is
    entered at game end; ``same_network`` such a weapon room is in the same network (segments
    joined end to end across passages) as the monster room; ``earlier_round`` such a weapon
    room's round number is strictly smaller than the monster room's. ``dragon`` (dragon room
    entered), by ``dragon_doubling``: ``one_loot`` + one loot bag's VP if a loot room is
    entered; ``all_loot`` + every entered loot bag's VP again; ``best_item`` + the VP of the
    single best-scoring item entered, an item being one feature room: a loot bag (+2), a weapon
    (+1) or a matched monster (+4, the monster's own row; the weapon's +1 is another item in
    another room, so the pair is not doubled as 5). Negative items are never doubled.
    ``entryway_unlinked`` per entryway with no segment end on its edge; ``tally`` per tally mark;
    ``segment_skip`` per voluntary skip; ``trap`` per trap hit. Features of other kinds (a
    ruleset may define them) block traps and score nothing here.

Modules
    :mod:`.rules` checks the entry against the game schema and compiles it
    (:class:`GridRules`); :mod:`.game` holds a player's map, the deck and the play of a turn and
    a game; :mod:`.score` scores a finished map.
"""

from __future__ import annotations

from inkcrawl.engines.grid.game import (
    Deck,
    GameResult,
    PlayerMap,
    PolicyError,
    play_game,
    play_totals,
    play_turn,
)
from inkcrawl.engines.grid.rules import (
    DEFAULT_SWITCHES,
    DEFAULT_VP,
    DRAW_TWO,
    OPPOSITE,
    SIDE_BIT,
    SIDE_OFFSET,
    SIDES,
    TRAP,
    GameDataError,
    GridRules,
    mask_of,
    opposite_bit,
    rotate_mask,
    shape_rotations,
    sides_of,
)
from inkcrawl.engines.grid.score import Score, matched_monsters, score_map, trap_hits

__all__ = [
    "DEFAULT_SWITCHES",
    "DEFAULT_VP",
    "DRAW_TWO",
    "OPPOSITE",
    "SIDES",
    "SIDE_BIT",
    "SIDE_OFFSET",
    "TRAP",
    "Deck",
    "GameDataError",
    "GameResult",
    "GridRules",
    "PlayerMap",
    "PolicyError",
    "Score",
    "mask_of",
    "matched_monsters",
    "opposite_bit",
    "play_game",
    "play_totals",
    "play_turn",
    "rotate_mask",
    "score_map",
    "shape_rotations",
    "sides_of",
    "trap_hits",
]
