"""Scoring a finished grid sheet drawn by hand: a grid play file (``schemas/grid-play.schema.json``,
docs/play-files.md) replayed on the dungeon and scored term by term (RULES.md 1, Play and Scoring).

The file lists the segments in drawing order with their round, room, shape and rotation, the
traps, the tally marks and the opponents' traps. :func:`score_sheet` replays it on a
:class:`~inkcrawl.engines.grid.game.PlayerMap` with the same legality test the simulator uses
(:meth:`~inkcrawl.engines.grid.game.PlayerMap.is_legal_segment`), so a sheet the simulator could
not have produced is refused, each problem naming the room and the rule it breaks; then
:func:`~inkcrawl.engines.grid.score.score_map` scores it, the opponents' traps standing for the
other players' maps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inkcrawl.engines.grid.game import PlayerMap
from inkcrawl.engines.grid.rules import SIDE_BIT, SIDES, GridRules, mask_of, rotate_mask, sides_of
from inkcrawl.engines.grid.score import Score, score_map

#: How each scoring term reads in a breakdown line (RULES.md 1, Scoring).
TERM_TEXT = {
    "loot": "loot rooms entered",
    "dragon": "dragon room entered (doubles an item)",
    "weapon": "weapon rooms entered",
    "monster_matched": "monster rooms entered with their weapon",
    "monster_unmatched": "monster rooms entered without their weapon",
    "entryway_unlinked": "entryways not linked",
    "tally": "tally marks",
    "segment_skip": "segments skipped",
    "trap": "traps that hit this sheet",
}


class SheetError(ValueError):
    """The sheet breaks the rules; ``problems`` lists ``(JSON pointer, message)`` pairs, each
    naming the room and the rule (RULES.md 1, Play)."""

    def __init__(self, problems: list[tuple[str, str]]):
        super().__init__("; ".join(message for _, message in problems))
        self.problems = problems


@dataclass
class SheetResult:
    """A scored sheet: the player's name, the :class:`Score` (terms, counts, total) and the
    rooms entered (labels, in room order)."""

    dungeon: str
    player: str
    score: Score
    entered: list[str]

    def as_dict(self, rules: GridRules) -> dict:
        """The result as JSON: ``{"type": "grid-score", "dungeon", "player", "terms": [{"term",
        "count", "vp", "text"}], "entered", "total"}``."""
        return {
            "type": "grid-score",
            "dungeon": self.dungeon,
            "player": self.player,
            "terms": [
                {"term": term, "count": self.score.counts[term], "vp": vp, "text": TERM_TEXT.get(term, term)}
                for term, vp in self.score.terms.items()
            ],
            "entered": self.entered,
            "total": self.score.total,
        }


def format_sheet(result: SheetResult) -> str:
    """The breakdown as text, one line per term that applies, then the total."""
    name = f" ({result.player})" if result.player else ""
    lines = [f"Dungeon {result.dungeon}{name}: {len(result.entered)} room(s) entered"]
    for term, vp in result.score.terms.items():
        count = result.score.counts[term]
        if count or vp:
            lines.append(f"  {vp:+4d}  {TERM_TEXT.get(term, term)}: {count}")
    lines.append(f"Total: {result.score.total} VP")
    return "\n".join(lines)


def _room(rules: GridRules, label: object, pointer: str, problems: list) -> int | None:
    if isinstance(label, str) and label.upper() in rules.labels:
        return rules.labels.index(label.upper())
    grid = f"rooms {rules.labels[0]} to {rules.labels[-1]}"
    problems.append((pointer, f"room {label!r} is not on this dungeon's grid ({grid})"))
    return None


def _why_illegal(rules: GridRules, pm: PlayerMap, room: int, mask: int) -> str:
    """Why a segment with ends ``mask`` may not be drawn in ``room`` now (RULES.md 1, Play 2)."""
    label = rules.labels[room]
    if pm.seg[room]:
        return f"room {label} already holds a segment (one segment per room)"
    if pm.trap[room]:
        return f"room {label} holds a trap (a trap's room takes no segment)"
    walls = mask & ~rules.open[room]
    if walls:
        sides = ", ".join(sides_of(walls))
        return (
            f"in room {label} its end on the {sides} side meets a wall "
            f"(every open end must meet a passage or an entryway)"
        )
    if not mask & pm.link[room]:
        first = not any(pm.seg)
        return (
            f"in room {label} no end links: the first segment must link to an entryway"
            if first
            else f"in room {label} no end links to an entryway or to an end of an earlier segment"
        )
    return f"room {label} does not take this segment here"


def score_sheet(rules: GridRules, play: dict) -> SheetResult:
    """Replay and score one grid play file (already checked against its schema).

    Segments are drawn in file order, grouped by round (rounds ascending, 1 to the dungeon's
    ``rounds``); a segment's rotation (degrees, clockwise) turns the shape's base ends. Traps go in
    empty rooms (no feature, segment or trap; an entryway room is allowed). Raises
    :class:`SheetError` naming every illegal segment or trap (the room and the rule)."""
    problems: list[tuple[str, str]] = []
    pm = PlayerMap(rules)
    segments = list(enumerate(play.get("segments") or []))
    traps = list(enumerate(play.get("traps") or []))
    for pointer, item in [(f"/segments/{k}", s) for k, s in segments] + [(f"/traps/{k}", t) for k, t in traps]:
        if not 1 <= int(item["round"]) <= rules.rounds:
            message = f"round {item['round']} is not a round of this game (1 to {rules.rounds})"
            problems.append((f"{pointer}/round", message))
    if problems:
        raise SheetError(problems)
    # drawing order: by round, then file order within a round (the trap's X occupies its room)
    events = sorted(
        [(int(s["round"]), 0, k, "segment", s) for k, s in segments]
        + [(int(t["round"]), 1, k, "trap", t) for k, t in traps],
        key=lambda e: (e[0], e[1], e[2]),
    )
    for round_number, _, k, kind, item in events:
        if kind == "segment":
            pointer = f"/segments/{k}"
            room = _room(rules, item["room"], f"{pointer}/room", problems)
            shape = item["shape"]
            if shape not in rules.shapes:
                known = ", ".join(sorted(rules.shapes))
                problems.append((f"{pointer}/shape", f"unknown segment shape {shape!r} (this dungeon's: {known})"))
                continue
            if room is None:
                continue
            base = mask_of(rules.entry["segments"][shape])
            mask = rotate_mask(base, int(item.get("rotation", 0)) // 90)
            if not pm.is_legal_segment(shape, room, mask):
                why = _why_illegal(rules, pm, room, mask)
                problems.append((pointer, f"round {round_number}, {shape} {sides_text(mask)}: {why}"))
                continue
            pm.place_segment(room, mask, round_number)
        else:
            pointer = f"/traps/{k}"
            room = _room(rules, item["room"], f"{pointer}/room", problems)
            if room is None:
                continue
            label = rules.labels[room]
            if rules.feature_kind[room] is not None:
                feature = rules.feature_kind[room]
                problems.append(
                    (pointer, f"round {round_number}: room {label} holds a {feature} (a trap goes in an empty room)")
                )
            elif pm.seg[room] or pm.trap[room]:
                rule = "a trap goes in a room with no segment or trap"
                problems.append((pointer, f"round {round_number}: room {label} is not empty ({rule})"))
            else:
                pm.place_trap(room, round_number)
    if problems:
        raise SheetError(problems)
    pm.tallies = int(play.get("tally", 0))
    pm.skips = int(play.get("skips", 0))
    if pm.skips and not rules.voluntary_skip:
        raise SheetError([("/skips", "this dungeon does not allow skipping a placeable segment (switch segment_skip)")])
    opponents = PlayerMap(rules)
    for k, item in enumerate(play.get("opponent_traps") or []):
        room = _room(rules, item["room"], f"/opponent_traps/{k}/room", problems)
        if room is not None:
            opponents.traps.append((room, int(item["round"])))
    if problems:
        raise SheetError(problems)
    score = score_map(rules, pm, [opponents])
    return SheetResult(rules.id, str(play.get("player") or ""), score, [rules.labels[i] for i in pm.entered()])


def sheet_of_map(rules: GridRules, pm: PlayerMap, opponents: Sequence[PlayerMap] = (), player: str = "") -> dict:
    """A played map written down as a grid play file (``schemas/grid-play.schema.json``): its
    segments in drawing order with round, room, shape and rotation, its traps, tally marks and
    skips, and the ``opponents``' traps. :func:`score_sheet` scores it as :func:`score_map` scored
    the map."""
    segments = []
    for round_number, card, room, mask in pm.history:
        if card in rules.shapes and room is not None and mask > 0:
            base = mask_of(rules.entry["segments"][card])
            quarter = next(q for q in range(4) if rotate_mask(base, q) == mask)
            segments.append(
                {"round": round_number, "room": rules.labels[room], "shape": card, "rotation": 90 * quarter}
            )
    sheet = {
        "type": "grid-play",
        "format_version": 1,
        "dungeon": rules.id,
        "segments": segments,
        "traps": [{"round": r, "room": rules.labels[room]} for room, r in pm.traps],
        "tally": pm.tallies,
        "skips": pm.skips,
        "opponent_traps": [{"round": r, "room": rules.labels[room]} for o in opponents for room, r in o.traps],
    }
    if player:
        sheet["player"] = player
    return sheet


def sides_text(mask: int) -> str:
    """``(north, east)``: a segment's open ends."""
    return "(" + ", ".join(side for side in SIDES if mask & SIDE_BIT[side]) + ")"
