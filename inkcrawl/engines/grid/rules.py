"""A grid dungeon entry compiled for play: rooms, open sides, entryways, features, segments.

:class:`GridRules` checks the entry with the game schema (:mod:`inkcrawl.engines.entry_schema`),
then compiles it in small steps, checking what a schema cannot say: every room of the board
listed once and on the board, entryways on outer edges, passages open from both rooms, deck
cards that name a segment shape, a trap or a Draw 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from inkcrawl.engines.entry_schema import entry_problems, refusal

SIDES = ("north", "east", "south", "west")
SIDE_BIT = {side: 1 << k for k, side in enumerate(SIDES)}
SIDE_OFFSET = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
_SIDE_OF_BIT = {bit: side for side, bit in SIDE_BIT.items()}

TRAP, DRAW_TWO = "trap", "draw_two"

#: RULES.md 1 defaults of the switches (game data writes every switch; tools and tests that
#: build entries start from these).
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
#: Scoring terms in RULES.md order, with RULES.md's VP for rows a document leaves out.
DEFAULT_VP: dict[str, int] = {
    "loot": 2,
    "dragon": 0,
    "weapon": 1,
    "monster_matched": 4,
    "monster_unmatched": -2,
    "entryway_unlinked": 1,
    "tally": -2,
    "segment_skip": -2,
    "trap": -3,
}


class GameDataError(ValueError):
    """The game data cannot be played: missing members, unknown sides, switch values or cards."""


def rotate_mask(mask: int, quarters: int) -> int:
    """``mask`` turned clockwise by ``quarters`` quarter turns (north -> east -> south -> west)."""
    quarters %= 4
    return ((mask << quarters) | (mask >> (4 - quarters))) & 15


def mask_of(sides: Sequence[object]) -> int:
    """The bit mask of side names (anything else is a :class:`GameDataError`)."""
    mask = 0
    for side in sides:
        if not isinstance(side, str) or side not in SIDE_BIT:
            raise GameDataError(f"unknown side {side!r} (use north, east, south, west)")
        mask |= SIDE_BIT[side]
    return mask


def sides_of(mask: int) -> list[str]:
    """The side names of a bit mask, in north-east-south-west order."""
    return [side for side in SIDES if mask & SIDE_BIT[side]]


def opposite_bit(bit: int) -> int:
    """The bit of the opposite side."""
    return rotate_mask(bit, 2)


#: The bit of the opposite side, by side bit.
_OPPOSITE_BIT = {1 << k: 1 << ((k + 2) % 4) for k in range(4)}
#: Rooms' precomputed tables kept between boards (a generator compiles many boards of one
#: size): a few thousand entries of 16 small tuples each.
_ROOM_CACHE = 8192


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


# -- compile steps ----------------------------------------------------------------------------


@dataclass
class Rooms:
    """Per room index: its label, open sides (mask), and its feature's kind, letter and id."""

    labels: list[str]
    open: list[int]
    feature_kind: list[str | None]
    feature_letter: list[str | None]
    feature_id: list[str | None]


def _cell(cell, columns: int, rows: int) -> tuple[int, int]:
    if (
        not isinstance(cell, (list, tuple))
        or len(cell) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
    ):
        raise GameDataError(f"a cell must be [column, row], not {cell!r}")
    c, r = cell
    if not (0 <= c < columns and 0 <= r < rows):
        raise GameDataError(f"cell {c},{r} is outside the {columns} x {rows} board")
    return c, r


def compile_rooms(rooms: list[dict], columns: int, rows: int) -> Rooms:
    """Every room of the board, each listed once."""
    n = columns * rows
    out = Rooms([""] * n, [0] * n, [None] * n, [None] * n, [None] * n)
    seen = [False] * n
    for room in rooms:
        c, r = _cell(room["cell"], columns, rows)
        i = r * columns + c
        if seen[i]:
            raise GameDataError(f"room {c},{r} is listed twice")
        seen[i] = True
        out.labels[i] = str(room.get("label", f"{c},{r}"))
        out.open[i] = mask_of(room.get("open", []))
        feature = room.get("feature")
        if isinstance(feature, dict):
            out.feature_kind[i] = str(feature.get("kind"))
            out.feature_id[i] = feature.get("id")
            letter = feature.get("letter")
            out.feature_letter[i] = None if letter is None else str(letter)
    if not all(seen):
        raise GameDataError(f"the rooms list misses {seen.count(False)} of the board's {n} rooms")
    return out


def compile_entryways(ways: list[dict], columns: int, rows: int) -> list[tuple[str, int, int]]:
    """Each entryway as ``(id, room, side bit)``."""
    out = []
    for way in ways:
        c, r = _cell(way.get("cell"), columns, rows)
        out.append((str(way.get("id")), r * columns + c, mask_of([way.get("side")])))
    return out


def neighbours(columns: int, rows: int) -> list[list[int]]:
    """For each room, the room across each side (-1: outside the board)."""
    out = []
    for i in range(columns * rows):
        c, r = i % columns, i // columns
        across = []
        for side in SIDES:
            dc, dr = SIDE_OFFSET[side]
            inside = 0 <= c + dc < columns and 0 <= r + dr < rows
            across.append((r + dr) * columns + c + dc if inside else -1)
        out.append(across)
    return out


def check_sides(rules: GridRules) -> None:
    """The data agrees with itself: entryways on outer edges, no open side off the board without
    an entryway, and a passage open from both of its rooms."""
    for way_id, i, bit in rules.entryways:
        k = SIDES.index(_SIDE_OF_BIT[bit]) if bit in _SIDE_OF_BIT else -1
        if k < 0 or rules.neighbour[i][k] != -1:
            raise GameDataError(f"entryway {way_id!r} is not on an outer edge of room {rules.labels[i]}")
    for i in range(rules.size):
        for k, side in enumerate(SIDES):
            bit = SIDE_BIT[side]
            if not rules.open[i] & bit:
                continue
            other = rules.neighbour[i][k]
            if other == -1 and not rules.entry_mask[i] & bit:
                raise GameDataError(
                    f"room {rules.labels[i]} is open to the {side} but that is the board's "
                    f"edge and no entryway is there"
                )
            if other != -1 and not rules.open[other] & SIDE_BIT[OPPOSITE[side]]:
                raise GameDataError(
                    f"room {rules.labels[i]} is open to the {side} but room {rules.labels[other]} is not open back"
                )


def reach_table(open_sides: list[int], neighbour: list[list[int]]) -> list[tuple[tuple[tuple[int, int], ...], ...]]:
    """``reach[i][mask]``: ``(neighbour, the bit of its side facing room i)`` for each end of
    ``mask`` crossing a passage into a room that has that passage too (sides in north, east,
    south, west order). A room's 16 entries depend only on its neighbours and which of its
    sides cross such a passage: they are shared between boards (:func:`_room_reach`)."""
    reach = []
    for i, across in enumerate(neighbour):
        crossing = 0
        for k in range(4):
            bit = 1 << k
            j = across[k]
            if open_sides[i] & bit and j >= 0 and open_sides[j] & _OPPOSITE_BIT[bit]:
                crossing |= bit
        reach.append(_room_reach(tuple(across), crossing))
    return reach


@lru_cache(maxsize=_ROOM_CACHE)
def _room_reach(across: tuple[int, ...], crossing: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """One room's :func:`reach_table` entries: ``across`` the room beyond each side (-1: none),
    ``crossing`` the sides that cross a passage (bits)."""
    return tuple(
        tuple((across[k], _OPPOSITE_BIT[1 << k]) for k in range(4) if mask & crossing & (1 << k)) for mask in range(16)
    )


def placement_table(
    shapes: dict[str, tuple[int, ...]], open_sides: list[int]
) -> dict[str, list[tuple[tuple[tuple[int, int], ...], ...]]]:
    """``table[shape][room][link mask]``: the legal placements ``(room, mask)`` of that shape
    there (every end on an open side, at least one end on a link side). A room's entries
    depend only on the shape's rotations, its open sides and its index: they are shared
    between boards (:func:`_room_placements`)."""
    return {
        name: [_room_placements(rotations, sides, i) for i, sides in enumerate(open_sides)]
        for name, rotations in shapes.items()
    }


@lru_cache(maxsize=_ROOM_CACHE)
def _room_placements(rotations: tuple[int, ...], sides: int, room: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """One room's :func:`placement_table` entries, by link mask."""
    fitting = [m for m in rotations if not m & ~sides]
    return tuple(tuple((room, m) for m in fitting if m & link) for link in range(16))


def compile_deck(deck: dict, shapes: dict) -> list[tuple[str, int]]:
    """The deck's ``(card, count)`` in document order; every card names a shape, a trap or a Draw 2."""
    cards = []
    for card, count in deck["cards"].items():
        if card not in shapes and card not in (TRAP, DRAW_TWO):
            raise GameDataError(
                f"the deck holds {card!r} cards, which is neither a segment shape, 'trap' nor 'draw_two'"
            )
        cards.append((card, count))
    return cards


def scoring_vp(switches: dict, rows: dict[str, dict]) -> dict[str, int]:
    """The VP of each scoring term: the entry's rows, else RULES.md's."""
    vp = dict(DEFAULT_VP)
    vp["segment_skip"] = switches["segment_skip_vp"]
    for term, row in rows.items():
        if term in vp and isinstance(row.get("vp"), (int, float)) and not isinstance(row.get("vp"), bool):
            vp[term] = row["vp"]
    return vp


# -- the compiled dungeon ---------------------------------------------------------------------


class GridRules:
    """One grid dungeon entry of a game document, compiled for fast play.

    Raises :class:`GameDataError` when the entry is not a playable grid dungeon.
    """

    def __init__(self, entry: dict):
        if not isinstance(entry, dict):
            raise GameDataError("a dungeon entry must be an object")
        if entry.get("family") != "grid":
            raise GameDataError(f"dungeon {entry.get('id')!r} is not a grid dungeon (family {entry.get('family')!r})")
        problems = entry_problems(entry)
        if problems:
            raise GameDataError(refusal(problems))
        self.entry = entry
        self.id = str(entry["id"])
        self.title = str(entry.get("title", self.id))
        self.columns = int(entry["board"]["columns"])
        self.rows = int(entry["board"]["rows"])
        n = self.size = self.columns * self.rows
        self.min_players = int(entry["players"]["min"])
        self.max_players = int(entry["players"]["max"])
        self.rounds = int(entry["rounds"])
        self.reveal = int(entry["reveal"])

        # rooms, entryways and features
        self.cells: list[tuple[int, int]] = [(i % self.columns, i // self.columns) for i in range(n)]
        rooms = compile_rooms(entry["rooms"], self.columns, self.rows)
        self.labels = rooms.labels
        self.open = rooms.open
        self.feature_kind = rooms.feature_kind
        self.feature_letter = rooms.feature_letter
        self.feature_id = rooms.feature_id
        self.entryways = compile_entryways(entry["entryways"], self.columns, self.rows)  # (id, room, side bit)
        self.entryway_labels = [str(way.get("label", way.get("id"))) for way in entry["entryways"]]
        self.entry_mask = [0] * n
        for _, i, bit in self.entryways:
            self.entry_mask[i] |= bit
            self.open[i] |= bit  # an entryway side is open even if a room's list forgot it
        self.neighbour = neighbours(self.columns, self.rows)
        check_sides(self)
        self.rooms_of_kind: dict[str, list[int]] = {}
        for i, kind in enumerate(self.feature_kind):
            if kind is not None:
                self.rooms_of_kind.setdefault(kind, []).append(i)
        self.featureless = [i for i in range(n) if self.feature_kind[i] is None]
        #: the loot, weapon, monster and dragon rooms, as scoring reads them (:mod:`.score`)
        self.scored_rooms = tuple(tuple(self.rooms_of_kind.get(k, ())) for k in ("loot", "weapon", "monster", "dragon"))
        #: ``(room, side bit)`` of each entryway
        self.entryway_sides = [(i, bit) for _, i, bit in self.entryways]
        #: a new map's ``is_empty`` and ``frontier`` (:class:`~inkcrawl.engines.grid.game.PlayerMap`),
        #: copied for each map rather than computed again
        self.start_is_empty = [kind is None for kind in self.feature_kind]
        self.start_frontier = [i for i in range(n) if self.entry_mask[i]]
        self.weapon_rooms_by_letter: dict[str, list[int]] = {}
        for i in self.rooms_of_kind.get("weapon", []):
            self.weapon_rooms_by_letter.setdefault(self.feature_letter[i] or "", []).append(i)

        # segments and their precomputed legal placements
        if not entry["segments"]:
            raise GameDataError("the dungeon entry defines no segment shapes")
        self.shapes = {name: shape_rotations(sides) for name, sides in entry["segments"].items()}
        self.reach = reach_table(self.open, self.neighbour)
        self.table = placement_table(self.shapes, self.open)

        # deck, switches and scoring
        self.deck_name = str(entry["deck"]["name"])
        self.deck_cards = compile_deck(entry["deck"], self.shapes)
        self.switches = dict(entry["switches"])
        rows = {row["term"]: row for row in entry["scoring"]}
        self.vp = scoring_vp(self.switches, rows)
        self.dragon_mode = self.switches["dragon_doubling"]
        self.weapon_order = self.switches["weapon_order"]
        self.trap_timing = self.switches["trap_timing"]
        self.voluntary_skip = self.switches["segment_skip"] == "voluntary_tally"
        self.no_trap_room_tally = self.switches["no_trap_room"] == "tally"
        self.reshuffle = self.switches["deck_exhausted"] == "reshuffle_discards"
        self._decks: dict[bool, list[str]] = {}  # deck_list by "solo without traps"
        #: the scoring terms reported, in RULES.md order (``segment_skip`` only when allowed)
        self.terms = [t for t in DEFAULT_VP if t != "segment_skip" or self.voluntary_skip or "segment_skip" in rows]
        #: term -> VP per application for every term of the rules' terms, 0 for the others
        #: (``dragon`` present only when it is a term: its points are not per application)
        self.term_weights = {t: (self.vp[t] if t in self.terms else 0) for t in DEFAULT_VP if t != "dragon"}
        if "dragon" in self.terms:
            self.term_weights["dragon"] = 1

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
        """The unshuffled deck for a player count (solo play may remove the traps); a new list."""
        solo_no_traps = bool(players == 1 and self.switches["solo_removes_traps"])
        cached = self._decks.get(solo_no_traps)
        if cached is None:
            cached = []
            for card, count in self.deck_cards:
                if not (solo_no_traps and card == TRAP):
                    cached.extend([card] * count)
            self._decks[solo_no_traps] = cached
        return list(cached)
