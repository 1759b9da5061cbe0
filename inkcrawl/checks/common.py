"""Checks common to both families: unique ids, known kinds and values, matching family."""

from __future__ import annotations

from inkcrawl.model import Dungeon, GridDungeon, LineDungeon, SKELETON_LOCK
from inkcrawl.problems import Problem, describe, problem
from inkcrawl.rulesets import Ruleset


def common_problems(dungeon: Dungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    """C001 duplicate ids, C003 unknown element kinds, C004 unknown named values, C005 family."""
    problems: list[Problem] = []
    if dungeon.family != ruleset.family:
        problems.append(problem("C005", f"this is a {dungeon.family} dungeon but ruleset '{ruleset.id}' is for "
                                        f"the {ruleset.family} family", file, "/ruleset"))
        return problems
    seen: dict[str, str] = {}
    for obj in dungeon.objects_with_ids():
        kind = getattr(obj, "kind", None) or type(obj).__name__.lower()
        if obj.id in seen:
            problems.append(problem("C001", f"{describe(kind, obj.id, getattr(obj, 'name', None))}: the id is "
                                            f"already used by the object at {seen[obj.id]}", file, obj.pointer))
        else:
            seen[obj.id] = obj.pointer
    kinds = ruleset.elements
    items = dungeon.features if isinstance(dungeon, GridDungeon) else dungeon.elements  # type: ignore[union-attr]
    for item in items:
        if item.kind not in kinds:
            problems.append(problem("C003", f"{describe(item.kind, item.id, item.name)}: ruleset '{ruleset.id}' has "
                                            f"no element kind '{item.kind}' (it has: {', '.join(sorted(kinds))})",
                                    file, item.pointer + "/kind"))
    if isinstance(dungeon, GridDungeon):
        problems += _grid_values(dungeon, ruleset, file)
    elif isinstance(dungeon, LineDungeon):
        problems += _line_values(dungeon, ruleset, file)
    return problems


def _unknown(item, member: str, value: str, allowed: list[str], file: str, pointer: str) -> Problem:
    choices = ", ".join(allowed) if allowed else "none"
    return problem("C004", f"{describe(item.kind, item.id, item.name)}: {member} '{value}' is not defined by the "
                           f"ruleset (allowed: {choices})", file, pointer)


def _grid_values(dungeon: GridDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    problems = []
    for feature in dungeon.features:
        letters = ruleset.elements.get(feature.kind, {}).get("letters")
        if feature.letter is not None and letters is not None and feature.letter not in letters:
            problems.append(_unknown(feature, "letter", feature.letter, list(letters), file, feature.pointer + "/letter"))
    return problems


def _line_values(dungeon: LineDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    problems = []
    key_colours = ruleset.key_colours
    for element in dungeon.elements:
        if element.variant is not None:
            allowed = ruleset.element_values(element.kind, "variants")
            if element.variant not in allowed:
                problems.append(_unknown(element, "variant", element.variant, allowed, file, element.pointer + "/variant"))
        if element.colour is not None:
            allowed = key_colours if element.kind == "key" else ruleset.element_values(element.kind, "colours")
            if element.colour not in allowed:
                problems.append(_unknown(element, "colour", element.colour, allowed, file, element.pointer + "/colour"))
        for index, lock in enumerate(element.locks or []):
            if lock != SKELETON_LOCK and lock not in key_colours:
                problems.append(_unknown(element, "lock", lock, [*key_colours, SKELETON_LOCK], file,
                                         f"{element.pointer}/locks/{index}"))
    orb_colours = ruleset.element_values("orb", "colours")
    for trigger in dungeon.sheet.end_triggers or []:
        if trigger.colour is not None and trigger.colour not in orb_colours:
            problems.append(problem("C004", f"end trigger orb_taken: orb colour '{trigger.colour}' is not defined by "
                                            f"the ruleset (allowed: {', '.join(orb_colours) or 'none'})",
                                    file, trigger.pointer + "/colour"))
    for colour in dungeon.sheet.orb_tokens or {}:
        if colour not in orb_colours:
            problems.append(problem("C004", f"orb tokens: orb colour '{colour}' is not defined by the ruleset "
                                            f"(allowed: {', '.join(orb_colours) or 'none'})",
                                    file, f"/sheet/orb_tokens/{colour}"))
    return problems
