"""The line-family referee (RULES.md section 2): scores a drawn play on one line dungeon.

It reads one ``family: line`` entry of a game document (docs/game-data.md, ``inkcrawl export
game``) and a play (docs/play-files.md) and nothing else: no model, no ruleset file.
:class:`LineRules` compiles the entry once (shapely geometry, spatial indexes, sample points);
:func:`referee` scores one play and returns the breakdown as JSON-ready data;
:func:`format_breakdown` prints it the way a player checks a neighbour's sheet.

How a play is read
    The path is one or more polylines in sheet mm; the *stroke* is the path buffered by half
    the pen width ``w``. Positions along the path are a parameter ``t``: segment index plus the
    fraction along that segment, over all polylines in order (between two polylines lies an
    undrawn "jump" segment). Every event (an element completed, a wall crossed, a key taken, an
    end trigger) has a ``t``; the referee computes them all on the whole drawn path with
    shapely's vectorised functions and numpy, then walks the events in path order.

Interactions (tolerances from each element's ``tolerance``)
    * cover: at least ``min_coverage`` of the element's printed ink (``ink``, else its
      footprint) lies under the stroke. Coverage is measured on a lattice of about 2,500
      sample points inside the ink (spacing at most
      0.25 mm): a sample is under the stroke once the path has come within ``w/2`` of it; the
      element is covered when the ``min_coverage`` quantile of the samples is.
    * trace: every point of the trace (a spell's strokes, a treasure's outline) lies within
      ``max_distance_pen_widths * w`` of the stroke, that is within
      ``max_distance_pen_widths * w + w/2`` of the path's centre line (2.25 mm with one pen
      width of 1.5 mm), checked on points every 0.1 mm along the trace and at its vertices.
    * touch: the stroke meets the element's printed ink (the path comes within ``w/2`` of its
      ``ink``; of its footprint when the data gives no ink).
    * pass_through: the path enters the footprint through its boundary and leaves it through
      its boundary at a point at least 90 degrees around the element's centre from where it
      entered (it went from one side to the other, not in and back out the same side).
    * connect_in_order: the stroke touches stone k+1 after it touched stone k (each group of
      ``artifact_group_size`` stones by number is judged on its own).
    * enter (escape portal, exit): the path (the centre line) reaches the footprint.
    An element is *attempted* when the stroke touched its ink; an attempted element that
    is not completed has *failed* (0 VP, no penalty), an unattempted one is *missed*.

Areas, walls and doors
    The path is split at every crossing of an area outline or a wall, and each piece belongs
    to the area holding its midpoint (or to no area: outside). The walls are the game data's
    wall lines (printed walls, closures of gaps narrower than ``required_gap_mm`` and bridges
    between wall ends that nearly meet) made into one network (:mod:`inkcrawl.engines.wall_network`):
    free ends reach half the wall's printed width further (the round cap is ink) and a joint of
    walls is a node; a channel of paper narrower than ``required_gap_mm`` between walls is ink.
    Crossing a wall is a passage of the path through the ink from the paper on one side to the
    paper on the other (touching or running along a wall is free; through a joint, or through
    two walls with too narrow a strip between them, is one crossing); a wall crossed within
    ``WALL_SNAP_MM`` (along the path) of a change of area belongs to that change, so a wall drawn
    a little off a shared boundary still closes it.
    Going from the current area into another area is legal through an opening (no wall crossed
    on the way) or through a door whose locks the held keys open (the crossing lies within
    ``DOOR_TOLERANCE_MM`` of the door's segment, or the two areas are joined only by doors);
    through a wall, a locked door, or between two areas no opening or door joins, it is an
    *illegal crossing*: everything from the point where the line enters the other area is
    ignored (``wall_poke: illegal_crossing``). With ``wall_poke: out_and_back``, a line that
    crosses a wall into another area and next changes area straight back into the one it
    left makes an excursion instead (``wall_crossing_vp``, the play goes on).
    Leaving the current area through a wall and coming back to it, or crossing a wall inside
    it, costs ``wall_crossing_vp`` per excursion (``wall_crossing_count: per_excursion``) or per
    crossing point (``per_wall_segment``); an excursion that never comes back counts too.
    The path must begin at a Start (within the Start's radius, 4 mm when the data gives no
    size, plus ``w/2``: the Start's *reach*). The Start belongs to its area (the game data's
    ``starts[].area``, the area whose outline holds it) and the line is in that area from its
    first point, also when that point lies just outside the outline (a line beginning inside
    another area, within the Start's reach, is in that one). The Start's *entrance gap* is
    printed: the outline walls stop around the Start (game data ``walls``), so crossing the
    outline there is no wall crossing and the line may leave the dungeon there and come back
    there for free. Anywhere else, outside the dungeon is
    outside the current area: coming back into the same area through a wall is an excursion
    (``wall_crossing_vp``), entering another area through a wall is an illegal crossing (the
    area the line began in counts as entered and left).

Documented readings (RULES.md 2 "Gaps and defaults" leaves these open)
    * Sections: a section is a stretch of the path in one area; consecutive pieces in the same
      area (also an excursion out through a wall and back) are one section; re-entering an area
      later starts a new section. A completed element scores in the section in which it was
      completed (even one touched from a neighbouring area); a missed or failed element is
      settled in the *last* section of its area (``reentry: final_state``) or in the section
      whose departure charged it (``each_visit``: every departure from an area charges its
      elements not completed and not attempted by then, each element at most once). Wall
      crossings, keys and doors go to the section they happen in. Within a section, lines
      follow the path; what is settled on leaving comes last.
    * The area the scrawl ends in is exempt (``end_room_exempt``), also when the end came from
      another player or the path simply stops. After an illegal crossing no area is exempt: the
      line left the area through the wall.
    * A portal jump leaves the area of the entry. Touching a portal entry lifts the pen: points
      drawn after the touch in the same polyline are ignored (with a note when some of them
      lie off the entry); the next polyline must start at an exit of that entry's channel (its
      first point touching the exit), else the play is invalid.
    * Artifact groups belong to the area holding most of their stones (ties: the lowest
      numbered stone's area) and are settled there like an element: completed +group VP,
      untouched ``artifact_untouched_group_vp``, partly connected ``artifact_partial_group_vp``
      (the last two only where a missed element would be charged).
    * An element left not completed in an entered area where no penalty applies is listed at 0
      (``optional``): in a corridor (``penalties_in: rooms``), or when its ruleset ``penalty``
      is false and it has VP or a token: an orb not covered before the end reads "not covered
      (no penalty)" (a covered orb is on the orb token lines). Keys, exits and escape portals
      left alone (no VP, no penalty) are not listed.
    * An unused portal entry is settled like a missed element (entered room left, not the end
      room): ``unused_portal_entry_vp``.
    * The Ranger's plants are worth the ability's ``vp``, and so is the penalty for missing one.
    * Wizard: a loop of the path (it crosses or meets itself) lying inside the spell's
      footprint and enclosing at least a pen dot (pi (w/2)^2) casts it. Barbarian: covering the
      monster's ``head`` with the monster's ``min_coverage`` defeats it (not bosses).
    * End triggers the sheet lists (boss covered, escape portal entered, exit reached, orb
      colour taken first/last) cut the path where they happen; so does the play's ``end`` (a
      trigger another player caused). An escape portal or exit the sheet does not list does
      nothing. After an illegal crossing the line still exists: a trigger drawn there still
      ends the scrawl; a boss covered there scores 0 (``boss_after_illegal_crossing:
      ends_scores_zero``) or its VP (``ends_scores_vp``); an orb covered there takes its token
      (the position is used) but scores 0.
    * Orb tokens: the play may give the position of each token this player got per colour, in
      the order taken; otherwise this player's takes get positions 1, 2, ... A position past
      the stack gets nothing. Keys: one of each colour, none when the play lists the key under
      ``keys_gone`` (no token was left) or the supply for the number of players is 0. A
      skeleton key gives the colour the play names; otherwise the first colour, in key colour
      order, that a later door the path passes needs and the player lacks, else the first
      colour not held.

How the referee is built (each stage a module, taking the earlier stages' results)
    :mod:`.check` and :mod:`.rules` check the entry against the game schema and compile it
    (:class:`LineRules`); then for each play :mod:`.player` reads it against the dungeon
    (:class:`~.player.Player`), :mod:`.path` keeps its polylines and portal jumps
    (:class:`~.path.Path`), :mod:`.pieces` splits the path at every boundary
    (:class:`~.pieces.Pieces`), :mod:`.events` finds when each thing happens
    (:class:`~.events.Events`), :mod:`.walk` walks through the areas (:class:`~.walk.Walk`),
    :mod:`.score` settles every element (:class:`~.score.Settled`) and :mod:`.breakdown` lays
    out the result. The door/lock rule is :mod:`inkcrawl.locks`.
"""

from __future__ import annotations

from dataclasses import dataclass

from inkcrawl.engines.line.breakdown import breakdown, format_breakdown
from inkcrawl.engines.line.check import DEFAULT_SWITCHES
from inkcrawl.engines.line.errors import GameDataError, PlayError
from inkcrawl.engines.line.events import find_events
from inkcrawl.engines.line.path import build_path, first_touch
from inkcrawl.engines.line.pieces import refine
from inkcrawl.engines.line.player import read_play
from inkcrawl.engines.line.rules import (
    ABILITIES,
    COVER_MAX_SPACING_MM,
    COVER_SAMPLES,
    DEFAULT_START_RADIUS_MM,
    DOOR_TOLERANCE_MM,
    PASS_THROUGH_MIN_ANGLE,
    T_EPS,
    TRACE_SPACING_MM,
    WALL_SNAP_MM,
    LineRules,
)
from inkcrawl.engines.line.score import settle
from inkcrawl.engines.line.walk import walk

#: The editor's playtest imports the pen-lift test under its former name.
_first_touch = first_touch

__all__ = [
    "ABILITIES",
    "COVER_MAX_SPACING_MM",
    "COVER_SAMPLES",
    "DEFAULT_START_RADIUS_MM",
    "DEFAULT_SWITCHES",
    "DOOR_TOLERANCE_MM",
    "GameDataError",
    "LineRules",
    "PASS_THROUGH_MIN_ANGLE",
    "PlayError",
    "TokenReach",
    "T_EPS",
    "TRACE_SPACING_MM",
    "WALL_SNAP_MM",
    "first_touch",
    "format_breakdown",
    "referee",
    "referee_with_tokens",
]


@dataclass(frozen=True)
class TokenReach:
    """A shared token a play reached before its scrawl ended (RULES.md 2: the key supply, orb
    tokens): ``kind`` ``"key"`` (a key or skeleton key touched) or ``"orb"`` (an orb covered),
    the element's id, the token's ``colour`` (a skeleton key's: the colour the play names, else
    ``None``), ``length_mm`` of line drawn at that moment (sheet mm, portal jumps counting 0),
    and for a key whether this play ``took`` it as scored."""

    length_mm: float
    kind: str
    element: str
    colour: str | None
    took: bool = False


def referee(rules: LineRules | dict, play: dict) -> dict:
    """Score ``play`` (a play document, docs/play-files.md) on a line dungeon: ``rules`` is a
    :class:`LineRules` or the game data's dungeon entry. Returns the breakdown as JSON-ready
    data (see :func:`format_breakdown`). Raises :class:`PlayError` when the play cannot be
    scored on this dungeon (its schema errors included), :class:`GameDataError` when the
    entry is not playable."""
    return referee_with_tokens(rules, play)[0]


def referee_with_tokens(rules: LineRules | dict, play: dict) -> tuple[dict, list[TokenReach]]:
    """:func:`referee`'s breakdown and the shared tokens the play reached, in path order
    (:class:`TokenReach`): every key touched and every orb covered before the scrawl's end or
    an illegal crossing (an orb covered after one still uses its token, RULES.md 2). A table
    of players uses them to share out the key supply and the orb stacks by time
    (:func:`inkcrawl.engines.line.simulate.play_table`). Raises as :func:`referee`."""
    from inkcrawl.play import play_data_problems

    schema_problems = play_data_problems(play, "play")
    if schema_problems:
        raise PlayError([(p.pointer, p.message) for p in schema_problems])
    if not isinstance(rules, LineRules):
        rules = LineRules(rules)
    player, problems = read_play(rules, play)
    path, path_problems = build_path(rules, rules.for_pen(player.w), play.get("path") or [], player.w)
    if problems or path_problems or path is None:  # (the path is None only with problems)
        raise PlayError(problems + path_problems)
    pieces = refine(rules, rules.for_pen(player.w), path)
    events = find_events(rules, path, pieces, player, play)
    walked = walk(rules, play, player, path, pieces, events)
    settled = settle(rules, player, events, walked)
    by_id = rules.element_by_id
    named = play.get("skeleton_keys") or {}
    tokens = []
    for _, line in walked.key_lines:  # keys touched while the walk took them (before its end)
        e = by_id[line["element"]]
        colour = e.colour if e.kind == "key" else named.get(e.id)
        tokens.append(TokenReach(path.length_at(float(line["_t"])), "key", e.id, colour, bool(line.get("taken"))))
    for take in events.takes:
        if take.t <= events.end.t:
            tokens.append(TokenReach(path.length_at(take.t), "orb", take.element.id, take.colour))
    tokens.sort(key=lambda token: token.length_mm)
    return breakdown(rules, play, player, path, events, walked, settled), tokens
