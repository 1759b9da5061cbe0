"""Stage 0 of the referee: the play read against the dungeon (who drew it, with what pen).

:func:`read_play` checks the play's members that only the dungeon can judge (its id, the
character, the pen width, the number of players, orb token positions, keys gone, skeleton key
colours, the end trigger) and returns a :class:`Player` with every problem found; the referee
reports them together with the path's (:mod:`.path`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from inkcrawl.engines.line.rules import ABILITIES, LineRules
from inkcrawl.suggest import did_you_mean


@dataclass
class Player:
    """Who drew the play: the character's ``ability`` (and its ``ability_vp``) and name, the
    pen width ``w`` (mm), the number of ``players`` and the key ``supply`` per colour."""

    ability: str | None
    ability_vp: object
    character_name: str | None
    w: float
    players: int
    supply: int


def _character(rules: LineRules, character, problems: list) -> tuple[str | None, object, str | None]:
    if character is None:
        return None, None, None
    if character not in rules.characters:
        known = ", ".join(sorted(rules.characters)) or "none"
        hint = did_you_mean(character, rules.characters)
        problems.append(("/character", f"unknown character {character!r} (this game has: {known}){hint}"))
        return None, None, None
    definition = rules.characters[character] or {}
    ability = definition.get("ability")
    if ability not in ABILITIES:
        problems.append(
            ("/character", f"character {character!r} has the ability {ability!r}, which this referee does not know")
        )
    return ability, definition.get("vp"), definition.get("name") or character


def _check_tokens_and_keys(rules: LineRules, play: dict, problems: list) -> None:
    orb_colours = {e.colour for e in rules.elements if e.kind == "orb"}
    for colour, positions in (play.get("orb_tokens") or {}).items():
        if colour not in rules.orb_tokens and colour not in orb_colours:
            problems.append((f"/orb_tokens/{colour}", f"this dungeon has no {colour} orb tokens"))
        elif len(set(positions)) != len(positions):
            problems.append((f"/orb_tokens/{colour}", "a token position is listed twice"))
    for i, key_id in enumerate(play.get("keys_gone") or []):
        element = rules.element_by_id.get(key_id)
        if element is None or element.kind not in ("key", "skeleton_key"):
            problems.append((f"/keys_gone/{i}", f"{key_id!r} is not a key of this dungeon"))
    for key_id, colour in (play.get("skeleton_keys") or {}).items():
        element = rules.element_by_id.get(key_id)
        if element is None or element.kind != "skeleton_key":
            problems.append((f"/skeleton_keys/{key_id}", f"{key_id!r} is not a skeleton key of this dungeon"))
        elif colour not in rules.key_colours:
            problems.append(
                (f"/skeleton_keys/{key_id}", f"unknown key colour {colour!r} (known: {', '.join(rules.key_colours)})")
            )


def read_play(rules: LineRules, play: dict) -> tuple[Player, list[tuple[str, str]]]:
    """The :class:`Player` of a (schema-valid) play and the problems found, ``(pointer, message)``."""
    problems: list[tuple[str, str]] = []
    if play.get("dungeon") not in (None, rules.id):
        problems.append(("/dungeon", f"the play is of dungeon {play.get('dungeon')!r}, not {rules.id!r}"))
    ability, ability_vp, character_name = _character(rules, play.get("character"), problems)
    w = float(play.get("pen_width_mm") or rules.pen_width_mm)
    if not (w > 0 and math.isfinite(w)):
        problems.append(("/pen_width_mm", "the pen width must be a positive number of mm"))
        w = rules.pen_width_mm
    players = int(play.get("players") or 1)
    low, high = int(rules.players.get("min", 1)), int(rules.players.get("max", 4))
    if not low <= players <= high:
        problems.append(("/players", f"{players} players: this dungeon is for {low} to {high}"))
    _check_tokens_and_keys(rules, play, problems)
    end = play.get("end")
    if end is not None:
        trigger = end.get("trigger")
        if not rules.lists_trigger(trigger):
            # (the game schema leaves a trigger's kind untyped: name whatever it is)
            listed = (
                ", ".join(sorted({str(t.get("kind")) for t in rules.end_triggers if isinstance(t, dict)})) or "none"
            )
            problems.append(
                ("/end/trigger", f"the sheet does not list the end trigger {trigger!r} (it lists: {listed})")
            )
    player = Player(ability, ability_vp, character_name, w, players, rules.key_supply.get(str(players), 0))
    return player, problems
