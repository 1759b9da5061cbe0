"""The grid-family rules engine (RULES.md section 1): deck, legal placements, traps, scoring.

It plays one dungeon entry of a game document (docs/game-data.md, ``inkcrawl export game``)
and reads nothing else: no model, no ruleset file. :class:`GridRules` compiles the entry once
(rooms, open sides, entryways, features, segment rotations, switches, VP); :func:`play_game`
plays one seeded game with one policy per player (:mod:`inkcrawl.engines.grid_policies`);
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
"""

from __future__ import annotations

import random
from bisect import insort
from dataclasses import dataclass, field
from typing import Any, Sequence

SIDES = ("north", "east", "south", "west")
SIDE_BIT = {side: 1 << k for k, side in enumerate(SIDES)}
SIDE_OFFSET = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
_SIDE_OF_BIT = {bit: side for side, bit in SIDE_BIT.items()}

TRAP, DRAW_TWO = "trap", "draw_two"

#: RULES.md 1 defaults, used only for switches a document leaves out.
DEFAULT_SWITCHES: dict[str, Any] = {
    "dragon_doubling": "one_loot",
    "trap_drawn_by": "every_player",
    "trap_timing": "any_time",
    "no_trap_room": "skip",
    "segment_skip": "forbidden",
    "segment_skip_vp": -2,
    "weapon_order": "game_end",
    "tie": "shared",
    "deck_exhausted": "reshuffle_discards",
    "solo_removes_traps": True,
}
#: Allowed values of each enumerated switch (docs/formats.md).
SWITCH_VALUES: dict[str, tuple] = {
    "dragon_doubling": ("one_loot", "all_loot", "best_item"),
    "trap_drawn_by": ("every_player",),
    "trap_timing": ("any_time", "later_segments_only"),
    "no_trap_room": ("skip", "tally"),
    "segment_skip": ("forbidden", "voluntary_tally"),
    "weapon_order": ("game_end", "same_network", "earlier_round"),
    "tie": ("shared",),
    "deck_exhausted": ("reshuffle_discards", "end_game"),
    "solo_removes_traps": (True, False),
}
#: Scoring terms in RULES.md order, with RULES.md's VP for rows a document leaves out.
DEFAULT_VP: dict[str, int] = {
    "loot": 2, "dragon": 0, "weapon": 1, "monster_matched": 4, "monster_unmatched": -2,
    "entryway_unlinked": 1, "tally": -2, "segment_skip": -2, "trap": -3,
}


class GameDataError(ValueError):
    """The game data cannot be played: missing members, unknown sides, switch values or cards."""


def rotate_mask(mask: int, quarters: int) -> int:
    """``mask`` turned clockwise by ``quarters`` quarter turns (north -> east -> south -> west)."""
    quarters %= 4
    return ((mask << quarters) | (mask >> (4 - quarters))) & 15


def mask_of(sides: Sequence[str]) -> int:
    """The bit mask of side names."""
    mask = 0
    for side in sides:
        if side not in SIDE_BIT:
            raise GameDataError(f"unknown side {side!r} (use north, east, south, west)")
        mask |= SIDE_BIT[side]
    return mask


def sides_of(mask: int) -> list[str]:
    """The side names of a bit mask, in north-east-south-west order."""
    return [side for side in SIDES if mask & SIDE_BIT[side]]


def opposite_bit(bit: int) -> int:
    """The bit of the opposite side."""
    return rotate_mask(bit, 2)


def shape_rotations(sides: Sequence[str]) -> tuple[int, ...]:
    """The distinct rotations of a segment shape given by its open sides in the base rotation,
    in order of clockwise quarter turns (symmetric rotations appear once)."""
    base = mask_of(sides)
    if not base:
        raise GameDataError("a segment shape needs at least one open end")
    out: list[int] = []
    for quarters in range(4):
        mask = rotate_mask(base, quarters)
        if mask not in out:
            out.append(mask)
    return tuple(out)


def _require(entry: dict, key: str, kind: type | tuple) -> Any:
    value = entry.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise GameDataError(f"the dungeon entry needs {key!r} ({getattr(kind, '__name__', kind)})")
    return value


class GridRules:
    """One grid dungeon entry of a game document, compiled for fast play.

    Raises :class:`GameDataError` when the entry is not a playable grid dungeon.
    """

    def __init__(self, entry: dict):
        if not isinstance(entry, dict):
            raise GameDataError("a dungeon entry must be an object")
        if entry.get("family") != "grid":
            raise GameDataError(f"dungeon {entry.get('id')!r} is not a grid dungeon (family {entry.get('family')!r})")
        self.entry = entry
        self.id = str(entry.get("id", ""))
        self.title = str(entry.get("title", self.id))
        board = _require(entry, "board", dict)
        self.columns = int(board.get("columns", 0))
        self.rows = int(board.get("rows", 0))
        if self.columns < 1 or self.rows < 1:
            raise GameDataError("the board needs at least one column and one row")
        n = self.size = self.columns * self.rows
        players = entry.get("players") or {}
        self.min_players = int(players.get("min", 1))
        self.max_players = int(players.get("max", 4))
        self.rounds = int(_require(entry, "rounds", int))
        self.reveal = int(_require(entry, "reveal", int))
        if self.rounds < 0 or self.reveal < 0:
            raise GameDataError("rounds and reveal cannot be negative")

        # rooms -------------------------------------------------------------------------
        self.labels = [""] * n
        self.cells: list[tuple[int, int]] = [(i % self.columns, i // self.columns) for i in range(n)]
        self.open = [0] * n
        self.entry_mask = [0] * n
        self.feature_kind: list[str | None] = [None] * n
        self.feature_letter: list[str | None] = [None] * n
        self.feature_id: list[str | None] = [None] * n
        seen = [False] * n
        for room in _require(entry, "rooms", list):
            c, r = self._cell(room.get("cell") if isinstance(room, dict) else None)
            i = r * self.columns + c
            if seen[i]:
                raise GameDataError(f"room {c},{r} is listed twice")
            seen[i] = True
            self.labels[i] = str(room.get("label", f"{c},{r}"))
            self.open[i] = mask_of(room.get("open", []))
            feature = room.get("feature")
            if isinstance(feature, dict):
                self.feature_kind[i] = str(feature.get("kind"))
                self.feature_id[i] = feature.get("id")
                letter = feature.get("letter")
                self.feature_letter[i] = None if letter is None else str(letter)
        if not all(seen):
            raise GameDataError(f"the rooms list misses {seen.count(False)} of the board's {n} rooms")
        self.entryways: list[tuple[str, int, int]] = []  # (id, room, side bit)
        for way in entry.get("entryways", []):
            c, r = self._cell(way.get("cell") if isinstance(way, dict) else None)
            i = r * self.columns + c
            bit = mask_of([way.get("side")])
            self.entryways.append((str(way.get("id")), i, bit))
            self.entry_mask[i] |= bit
            self.open[i] |= bit  # an entryway side is open even if a room's list forgot it
        self.entryway_labels = [str(way.get("label", way.get("id"))) for way in entry.get("entryways", [])]
        # neighbours across each side (-1: outside the board)
        self.neighbour = [[-1] * 4 for _ in range(n)]
        for i, (c, r) in enumerate(self.cells):
            for k, side in enumerate(SIDES):
                dc, dr = SIDE_OFFSET[side]
                if 0 <= c + dc < self.columns and 0 <= r + dr < self.rows:
                    self.neighbour[i][k] = (r + dr) * self.columns + c + dc
        # the data must agree with itself: entryways on outer edges, no open side off the board
        # without an entryway, and a passage open from both of its rooms
        for way_id, i, bit in self.entryways:
            k = SIDES.index(_SIDE_OF_BIT[bit]) if bit in _SIDE_OF_BIT else -1
            if k < 0 or self.neighbour[i][k] != -1:
                raise GameDataError(f"entryway {way_id!r} is not on an outer edge of room {self.labels[i]}")
        for i in range(n):
            for k, side in enumerate(SIDES):
                bit = mask_of([side])
                if not self.open[i] & bit:
                    continue
                other = self.neighbour[i][k]
                if other == -1 and not self.entry_mask[i] & bit:
                    raise GameDataError(f"room {self.labels[i]} is open to the {side} but that is the board's "
                                        f"edge and no entryway is there")
                if other != -1 and not self.open[other] & mask_of([OPPOSITE[side]]):
                    raise GameDataError(f"room {self.labels[i]} is open to the {side} but room "
                                        f"{self.labels[other]} is not open back")
        self.rooms_of_kind: dict[str, list[int]] = {}
        for i, kind in enumerate(self.feature_kind):
            if kind is not None:
                self.rooms_of_kind.setdefault(kind, []).append(i)
        self.featureless = [i for i in range(n) if self.feature_kind[i] is None]
        self.weapon_rooms_by_letter: dict[str, list[int]] = {}
        for i in self.rooms_of_kind.get("weapon", []):
            self.weapon_rooms_by_letter.setdefault(self.feature_letter[i] or "", []).append(i)

        # segments and their precomputed legal placements --------------------------------
        shapes = _require(entry, "segments", dict)
        if not shapes:
            raise GameDataError("the dungeon entry defines no segment shapes")
        self.shapes: dict[str, tuple[int, ...]] = {name: shape_rotations(sides) for name, sides in shapes.items()}
        # reach[i][mask]: ((neighbour, the bit of its side facing room i), ...) for each end of
        # ``mask`` crossing a passage into a room that has that passage too
        self.reach: list[list[tuple[tuple[int, int], ...]]] = []
        for i in range(n):
            per_mask = []
            for mask in range(16):
                ends = []
                for k in range(4):
                    bit = 1 << k
                    j = self.neighbour[i][k]
                    if mask & bit and j >= 0 and self.open[j] & opposite_bit(bit) and self.open[i] & bit:
                        ends.append((j, opposite_bit(bit)))
                per_mask.append(tuple(ends))
            self.reach.append(per_mask)
        # table[shape][room][link mask] -> legal placements (room, mask) of that shape there
        self.table: dict[str, list[list[tuple[tuple[int, int], ...]]]] = {}
        for name, rotations in self.shapes.items():
            rooms = []
            for i in range(n):
                fitting = [m for m in rotations if not m & ~self.open[i]]
                rooms.append([tuple((i, m) for m in fitting if m & link) for link in range(16)])
            self.table[name] = rooms

        # deck -----------------------------------------------------------------------------
        deck = _require(entry, "deck", dict)
        cards = _require(deck, "cards", dict)
        self.deck_name = str(deck.get("name", ""))
        self.deck_cards: list[tuple[str, int]] = []
        for card, count in cards.items():
            if card not in self.shapes and card not in (TRAP, DRAW_TWO):
                raise GameDataError(f"the deck holds {card!r} cards, which is neither a segment shape, "
                                    f"'trap' nor 'draw_two'")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise GameDataError(f"the deck's count of {card!r} cards must be a whole number >= 0")
            self.deck_cards.append((card, count))

        # switches and scoring ---------------------------------------------------------------
        switches = dict(DEFAULT_SWITCHES)
        given = entry.get("switches") or {}
        if not isinstance(given, dict):
            raise GameDataError("'switches' must be an object")
        switches.update(given)
        scoring = entry.get("scoring") or []
        rows = {row.get("term"): row for row in scoring if isinstance(row, dict)}
        if "dragon_doubling" not in given and "mode" in rows.get("dragon", {}):
            switches["dragon_doubling"] = rows["dragon"]["mode"]
        for name, allowed in SWITCH_VALUES.items():
            if switches[name] not in allowed:
                raise GameDataError(f"switch {name!r} is {switches[name]!r}; this engine knows {list(allowed)}")
        self.switches = switches
        self.vp = dict(DEFAULT_VP)
        self.vp["segment_skip"] = switches["segment_skip_vp"]
        for term, row in rows.items():
            if term in self.vp and isinstance(row.get("vp"), (int, float)) and not isinstance(row.get("vp"), bool):
                self.vp[term] = row["vp"]
        self.dragon_mode = switches["dragon_doubling"]
        self.weapon_order = switches["weapon_order"]
        self.trap_timing = switches["trap_timing"]
        self.voluntary_skip = switches["segment_skip"] == "voluntary_tally"
        self.no_trap_room_tally = switches["no_trap_room"] == "tally"
        self.reshuffle = switches["deck_exhausted"] == "reshuffle_discards"
        #: the scoring terms reported, in RULES.md order (``segment_skip`` only when allowed)
        self.terms = [t for t in DEFAULT_VP if t != "segment_skip" or self.voluntary_skip or "segment_skip" in rows]

    def _cell(self, cell) -> tuple[int, int]:
        if (not isinstance(cell, (list, tuple)) or len(cell) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)):
            raise GameDataError(f"a cell must be [column, row], not {cell!r}")
        c, r = cell
        if not (0 <= c < self.columns and 0 <= r < self.rows):
            raise GameDataError(f"cell {c},{r} is outside the {self.columns} x {self.rows} board")
        return c, r

    @classmethod
    def from_document(cls, document: dict, dungeon_id: str | None = None) -> GridRules:
        """The grid dungeon ``dungeon_id`` (default: the first dungeon) of a game document."""
        if not isinstance(document, dict) or document.get("type") != "game":
            raise GameDataError("not a game document (type 'game')")
        dungeons = document.get("dungeons")
        if not isinstance(dungeons, list) or not dungeons:
            raise GameDataError("the game document has no dungeons")
        if dungeon_id is None:
            return cls(dungeons[0])
        for entry in dungeons:
            if isinstance(entry, dict) and entry.get("id") == dungeon_id:
                return cls(entry)
        raise GameDataError(f"the game document has no dungeon {dungeon_id!r}")

    def room(self, label: str) -> int:
        """The index of the room with this label, e.g. ``"C4"``."""
        return self.labels.index(label)

    def deck_list(self, players: int) -> list[str]:
        """The unshuffled deck for a player count (solo play may remove the traps)."""
        solo_no_traps = players == 1 and self.switches["solo_removes_traps"]
        cards: list[str] = []
        for card, count in self.deck_cards:
            if not (solo_no_traps and card == TRAP):
                cards.extend([card] * count)
        return cards


class PlayerMap:
    """One player's copy of the map: what is drawn in each room, tallies and skips.

    ``seg[i]`` is the end mask of the segment in room ``i`` (0: none); ``trap[i]`` whether this
    player's trap is there; ``round_of[i]`` the round number written in the room (0: unused);
    ``link[i]`` the sides of room ``i`` a new segment could link through (entryways plus ends of
    this player's segments facing it); ``frontier`` the sorted free rooms with a link side;
    ``empty`` the sorted rooms where a trap may go. ``traps`` lists ``(room, round)`` of the
    traps drawn, ``history`` every card drawn ``(round, card, room, mask)`` in order: a trap has
    mask 0; ``room`` is ``None`` for a tally (mask 0) or a voluntary skip (mask -1).
    During play the engine also sets ``round`` (the current round) and ``opponent_traps``
    (per room, how many traps opponents drew there in earlier rounds: public information).
    """

    __slots__ = ("rules", "seg", "trap", "round_of", "link", "frontier", "empty", "is_empty", "tallies",
                 "trap_tallies", "skips", "traps", "history", "segments_seen", "round", "opponent_traps")

    def __init__(self, rules: GridRules):
        n = rules.size
        self.rules = rules
        self.seg = [0] * n
        self.trap = [False] * n
        self.round_of = [0] * n
        self.link = list(rules.entry_mask)
        self.frontier = sorted(i for i in range(n) if self.link[i])
        self.empty = list(rules.featureless)
        self.is_empty = [rules.feature_kind[i] is None for i in range(n)]
        self.tallies = 0  # every tally mark (unplaceable segments and, with no_trap_room: tally, traps)
        self.trap_tallies = 0  # the part of ``tallies`` from traps with no empty room
        self.skips = 0
        self.traps: list[tuple[int, int]] = []
        self.history: list[tuple[int, str, int | None, int]] = []
        self.segments_seen = 0
        self.round = 0
        self.opponent_traps = [0] * n

    # legal moves ---------------------------------------------------------------------------
    def segment_options(self, shape: str) -> list[tuple[int, int]]:
        """Every legal placement ``(room, mask)`` of a segment of ``shape``, rooms in order."""
        table = self.rules.table[shape]
        link = self.link
        out: list[tuple[int, int]] = []
        for i in self.frontier:
            out += table[i][link[i]]
        return out

    def trap_options(self) -> list[int]:
        """Every room where this player may draw a trap, in order."""
        return list(self.empty)

    def is_legal_segment(self, shape: str, room: int, mask: int) -> bool:
        """Whether drawing ``shape`` as ``mask`` in ``room`` is legal now."""
        if not 0 <= room < self.rules.size or self.seg[room] or self.trap[room]:
            return False
        return (room, mask) in self.rules.table[shape][room][self.link[room]]

    # drawing -----------------------------------------------------------------------------
    def place_segment(self, room: int, mask: int, round_number: int, card: str = "segment") -> None:
        """Draw a segment (no legality check: see :meth:`is_legal_segment`)."""
        self.seg[room] = mask
        self.round_of[room] = round_number
        if self.link[room]:
            self.frontier.remove(room)
        if self.is_empty[room]:
            self.is_empty[room] = False
            self.empty.remove(room)
        seg, trap, link, frontier = self.seg, self.trap, self.link, self.frontier
        for j, bit in self.rules.reach[room][mask]:
            if not link[j] and not seg[j] and not trap[j]:
                insort(frontier, j)
            link[j] |= bit
        self.history.append((round_number, card, room, mask))

    def place_trap(self, room: int, round_number: int) -> None:
        """Draw a trap (no legality check: the room must be in :meth:`trap_options`)."""
        self.trap[room] = True
        self.round_of[room] = round_number
        self.is_empty[room] = False
        self.empty.remove(room)
        if self.link[room]:
            self.frontier.remove(room)
        self.traps.append((room, round_number))
        self.history.append((round_number, TRAP, room, 0))

    def entered(self) -> list[int]:
        """The rooms holding one of this player's segments."""
        return [i for i, mask in enumerate(self.seg) if mask]

    def networks(self) -> list[int]:
        """Per room, the id of the network its segment belongs to (-1: no segment). Segments
        are in one network when joined end to end across passages."""
        rules = self.rules
        seg = self.seg
        net = [-1] * rules.size
        count = 0
        for start in range(rules.size):
            if not seg[start] or net[start] >= 0:
                continue
            net[start] = count
            stack = [start]
            while stack:
                i = stack.pop()
                for j, bit in rules.reach[i][seg[i]]:
                    if seg[j] & bit and net[j] < 0:
                        net[j] = count
                        stack.append(j)
            count += 1
        return net


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
                ok = net[w] == net[i]
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


def score_map(rules: GridRules, pm: PlayerMap, opponents: Sequence[PlayerMap] = ()) -> Score:
    """Score one player's map against the opponents' traps (RULES.md 1, Scoring)."""
    vp = rules.vp
    seg = pm.seg
    loot = sum(1 for i in rules.rooms_of_kind.get("loot", ()) if seg[i])
    weapons = sum(1 for i in rules.rooms_of_kind.get("weapon", ()) if seg[i])
    matched, unmatched = matched_monsters(rules, pm)
    dragon_rooms = [i for i in rules.rooms_of_kind.get("dragon", ()) if seg[i]]
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
    linked = sum(1 for _, i, bit in rules.entryways if seg[i] & bit)
    unlinked = len(rules.entryways) - linked
    hits = trap_hits(rules, pm, opponents)
    counts = {"loot": loot, "dragon": len(dragon_rooms), "weapon": weapons, "monster_matched": len(matched),
              "monster_unmatched": len(unmatched), "entryway_unlinked": unlinked, "tally": pm.tallies,
              "segment_skip": pm.skips, "trap": hits}
    terms = {}
    for term in rules.terms:
        terms[term] = dragon if term == "dragon" else counts[term] * vp[term]
    counts = {term: counts[term] for term in rules.terms}
    return Score(terms, counts, sum(terms.values()))


class Deck:
    """The draw pile and discard pile of one game, shuffled by ``rng``."""

    __slots__ = ("cards", "discards", "rng", "reshuffle", "exhausted", "reshuffles")

    def __init__(self, cards: list[str], rng: random.Random, reshuffle: bool):
        self.cards = list(cards)
        rng.shuffle(self.cards)  # the top of the pile is the end of the list
        self.discards: list[str] = []
        self.rng = rng
        self.reshuffle = reshuffle
        self.exhausted = False
        self.reshuffles = 0

    def draw(self) -> str | None:
        """The top card, reshuffling the discards if allowed; ``None`` when none is left
        (``exhausted`` then tells that the deck ran out)."""
        if not self.cards:
            # nothing left to reshuffle, or only Draw 2 cards, which would chain for ever
            if not self.reshuffle or all(card == DRAW_TWO for card in self.discards):
                self.exhausted = True
                return None
            self.cards = self.discards
            self.discards = []
            self.rng.shuffle(self.cards)
            self.reshuffles += 1
        return self.cards.pop()

    def reveal(self, count: int) -> list[str]:
        """Reveal ``count`` cards; each Draw 2 is discarded and adds two more (chaining)."""
        revealed: list[str] = []
        need = count
        while need > 0:
            card = self.draw()
            if card is None:
                break
            need -= 1
            if card == DRAW_TWO:
                self.discards.append(card)
                need += 2
            else:
                revealed.append(card)
        return revealed


class PolicyError(RuntimeError):
    """A policy chose a move the rules do not allow."""


@dataclass
class GameResult:
    """A finished game: the ``seed``, the rounds played, the revealed cards of each round, each
    player's map and score, and the winners (indices; a tie is shared)."""

    seed: int
    rounds_played: int
    reveals: list[list[str]]
    maps: list[PlayerMap]
    scores: list[Score]
    winners: list[int] = field(default_factory=list)


def play_turn(pm: PlayerMap, cards: list[str], policy, rng: random.Random) -> None:
    """One player draws this round's revealed cards in the order the policy chooses."""
    rules = pm.rules
    round_number = pm.round
    order = policy.order(pm, list(cards), rng)
    if sorted(order) != sorted(cards):
        raise PolicyError(f"policy {policy.name!r} ordered {order} for the cards {cards}")
    for card in order:
        if card == TRAP:
            options = pm.empty
            if not options:
                if rules.no_trap_room_tally:
                    pm.tallies += 1
                    pm.trap_tallies += 1
                pm.history.append((round_number, TRAP, None, 0))
                continue
            room = policy.choose(pm, TRAP, list(options), rng)
            if room is None or not (0 <= room < rules.size) or not pm.is_empty[room]:
                raise PolicyError(f"policy {policy.name!r} chose {room!r} for a trap")
            pm.place_trap(room, round_number)
            continue
        pm.segments_seen += 1
        options = pm.segment_options(card)
        if not options:
            pm.tallies += 1
            pm.history.append((round_number, card, None, 0))
            continue
        choice = policy.choose(pm, card, options, rng)
        if choice is None:
            if not rules.voluntary_skip:
                raise PolicyError(f"policy {policy.name!r} skipped a placeable {card} (segment_skip is forbidden)")
            pm.skips += 1
            pm.history.append((round_number, card, None, -1))
            continue
        room, mask = choice
        if not pm.is_legal_segment(card, room, mask):
            raise PolicyError(f"policy {policy.name!r} chose an illegal placement {choice!r} for {card}")
        pm.place_segment(room, mask, round_number, card)


def play_game(rules: GridRules, policies: Sequence, seed: int) -> GameResult:
    """Play one game with one policy per player (1-4 players, within the entry's ``players``).

    The deck is shuffled by ``random.Random(seed)``; player ``p``'s decisions use
    ``random.Random(f"{seed}/{p}")``, so a seed fixes the whole game.
    """
    players = len(policies)
    if not 1 <= players <= 4 or not rules.min_players <= players <= rules.max_players:
        raise ValueError(f"{players} players: this dungeon is for {rules.min_players}-{min(rules.max_players, 4)}")
    deck = Deck(rules.deck_list(players), random.Random(seed), rules.reshuffle)
    rngs = [random.Random(f"{seed}/{p}") for p in range(players)]
    maps = [PlayerMap(rules) for _ in range(players)]
    reveals: list[list[str]] = []
    rounds_played = 0
    for round_number in range(1, rules.rounds + 1):
        cards = deck.reveal(rules.reveal)
        reveals.append(cards)
        rounds_played = round_number
        if players > 1 and round_number > 1:
            for p, pm in enumerate(maps):
                counts = [0] * rules.size
                for q, other in enumerate(maps):
                    if q != p:
                        for room, _ in other.traps:
                            counts[room] += 1
                pm.opponent_traps = counts
        for p, pm in enumerate(maps):
            pm.round = round_number
            play_turn(pm, cards, policies[p], rngs[p])
        deck.discards.extend(cards)
        if deck.exhausted and not rules.reshuffle:
            break
    scores = [score_map(rules, pm, [o for o in maps if o is not pm]) for pm in maps]
    best = max(s.total for s in scores)
    winners = [p for p, s in enumerate(scores) if s.total == best]
    return GameResult(seed, rounds_played, reveals, maps, scores, winners)
