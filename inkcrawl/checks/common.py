"""Checks common to both families: unique ids, known kinds and values, matching family, text
without control characters."""

from __future__ import annotations

from typing import Any

from inkcrawl.model import SKELETON_LOCK, Dungeon, GridDungeon, LineDungeon
from inkcrawl.problems import Problem, describe, problem
from inkcrawl.rulesets import Ruleset, bundled_rulesets
from inkcrawl.suggest import expected
from inkcrawl.textchars import owner_name, text_problem


def common_problems(dungeon: Dungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    """C001 duplicate ids, C003 unknown element kinds, C004 unknown named values, C005 family."""
    problems: list[Problem] = []
    if dungeon.family != ruleset.family:
        problems.append(
            problem(
                "C005",
                f"this is a {dungeon.family} dungeon but ruleset '{ruleset.id}' is for the {ruleset.family} family",
                file,
                "/ruleset",
            )
        )
        return problems
    seen: dict[str, str] = {}
    for obj in dungeon.objects_with_ids():
        kind = getattr(obj, "kind", None) or type(obj).__name__.lower()
        if obj.id in seen:
            problems.append(
                problem(
                    "C001",
                    f"{describe(kind, obj.id, getattr(obj, 'name', None))}: the id is "
                    f"already used by the object at {seen[obj.id]}",
                    file,
                    obj.pointer,
                )
            )
        else:
            seen[obj.id] = obj.pointer
    kinds = ruleset.elements
    items = (
        dungeon.features
        if isinstance(dungeon, GridDungeon)
        else dungeon.elements
        if isinstance(dungeon, LineDungeon)
        else []
    )
    for item in items:
        if item.kind not in kinds:
            problems.append(
                problem(
                    "C003",
                    f"{describe(item.kind, item.id, item.name)}: {unknown_kind(item.kind, ruleset)}",
                    file,
                    item.pointer + "/kind",
                )
            )
    if isinstance(dungeon, GridDungeon):
        problems += _grid_values(dungeon, ruleset, file)
    elif isinstance(dungeon, LineDungeon):
        problems += _line_values(dungeon, ruleset, file)
    return problems


# The lists of objects of a dungeon and what an object of each is called when it has no kind.
_OBJECT_LISTS = {"features": "feature", "areas": "area", "elements": "element"}
#: The free-text members of a dungeon's objects; every other string (ids, kinds, colours,
#: channels, locks) the schema restricts to a pattern or a list of values.
TEXT_MEMBERS = ("name", "text")


def text_problems(data: dict, file: str) -> list[Problem]:
    """C007 for every text of a dungeon document that holds a refused character
    (:mod:`inkcrawl.textchars`): the sheet's title and reminders, the names of features, areas
    and elements, label texts. Works on the document itself, so it also covers objects with
    schema errors elsewhere and runs before the ruleset is looked up."""
    problems: list[Problem] = []

    def check(owner: str, field: str, value: Any, pointer: str) -> None:
        found = text_problem(owner, field, value, file, pointer)
        if found is not None:
            problems.append(found)

    sheet = data.get("sheet")
    if isinstance(sheet, dict):
        check("sheet", "title", sheet.get("title"), "/sheet/title")
        reminders = sheet.get("reminders")
        for index, reminder in enumerate(reminders if isinstance(reminders, list) else []):
            check("sheet", f"reminder {index}", reminder, f"/sheet/reminders/{index}")
    for collection, noun in _OBJECT_LISTS.items():
        items = data.get(collection)
        for index, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, dict) or not any(isinstance(item.get(key), str) for key in TEXT_MEMBERS):
                continue
            kind = item.get("kind")
            owner = owner_name(
                kind if isinstance(kind, str) and kind.isidentifier() else noun, item.get("id"), item.get("name")
            )
            for key in TEXT_MEMBERS:
                check(owner, key, item.get(key), f"/{collection}/{index}/{key}")
    return problems


def unknown_kind(kind: str, ruleset: Ruleset) -> str:
    """Why ``kind`` is not an element kind of ``ruleset``, for C003 and the schema messages of
    objects whose kind is unknown: ``ruleset 'grid-classic' has no element kind 'wepon'
    (expected one of: dragon, loot, monster, weapon; did you mean 'weapon'?)``, with a note when
    the name is a kind of the other family (``start`` in a grid dungeon)."""
    text = f"ruleset '{ruleset.id}' has no element kind '{kind}' ({expected(kind, sorted(ruleset.elements))})"
    for other in bundled_rulesets().values():
        folded = str(kind).casefold()
        if other.family != ruleset.family and folded in other.elements and folded not in ruleset.elements:
            text += f"; '{folded}' is an element of the {other.family} family"
            break
    return text


def _unknown(item, member: str, value: str, allowed: list[str], file: str, pointer: str) -> Problem:
    return problem(
        "C004",
        f"{describe(item.kind, item.id, item.name)}: {member} '{value}' is not defined by the "
        f"ruleset ({expected(value, allowed, 'allowed')})",
        file,
        pointer,
    )


def _grid_values(dungeon: GridDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    problems = []
    for feature in dungeon.features:
        letters = ruleset.elements.get(feature.kind, {}).get("letters")
        if feature.letter is not None and letters is not None and feature.letter not in letters:
            problems.append(
                _unknown(feature, "letter", feature.letter, list(letters), file, feature.pointer + "/letter")
            )
    return problems


def _line_values(dungeon: LineDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    problems = []
    key_colours = ruleset.key_colours
    for element in dungeon.elements:
        if element.variant is not None:
            allowed = ruleset.element_values(element.kind, "variants")
            if element.variant not in allowed:
                problems.append(
                    _unknown(element, "variant", element.variant, allowed, file, element.pointer + "/variant")
                )
        if element.colour is not None:
            spec = ruleset.kinds.get(element.kind)
            allowed = (
                key_colours
                if spec is not None and spec.uses_key_colours
                else ruleset.element_values(element.kind, "colours")
            )
            if element.colour not in allowed:
                problems.append(_unknown(element, "colour", element.colour, allowed, file, element.pointer + "/colour"))
        for index, lock in enumerate(element.locks or []):
            if lock != SKELETON_LOCK and lock not in key_colours:
                problems.append(
                    _unknown(
                        element, "lock", lock, [*key_colours, SKELETON_LOCK], file, f"{element.pointer}/locks/{index}"
                    )
                )
    orb_colours = ruleset.element_values("orb", "colours")
    for trigger in dungeon.sheet.end_triggers or []:
        if trigger.colour is not None and trigger.colour not in orb_colours:
            problems.append(
                problem(
                    "C004",
                    f"end trigger orb_taken: orb colour '{trigger.colour}' is not defined by "
                    f"the ruleset ({expected(trigger.colour, orb_colours, 'allowed')})",
                    file,
                    trigger.pointer + "/colour",
                )
            )
    for colour in dungeon.sheet.orb_tokens or {}:
        if colour not in orb_colours:
            problems.append(
                problem(
                    "C004",
                    f"orb tokens: orb colour '{colour}' is not defined by the ruleset "
                    f"({expected(colour, orb_colours, 'allowed')})",
                    file,
                    f"/sheet/orb_tokens/{colour}",
                )
            )
    return problems
