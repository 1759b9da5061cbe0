"""Schema problems of a dungeon, explained for the person who wrote the file.

JSON Schema knows the structure; the dungeon's ruleset knows the names. :func:`explain_schema_problems`
joins them (DESIGN.md, Validation: a message names the object):

- an object of a list is named as well as pointed at: ``element 'gob-1' (monster): ...``;
- a required member that is missing comes with a sensible value to write, from the ruleset
  (a monster's default size) or the template of a new dungeon (:mod:`inkcrawl.templates`);
- an element or feature whose kind the ruleset does not define gets that problem first (C003,
  with the nearest valid kind, :mod:`inkcrawl.suggest`), before what follows from it (a
  ``letter`` on what is not a weapon or a monster).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from inkcrawl.problems import Problem, problem
from inkcrawl.rulesets import Ruleset

#: The dungeon's lists of objects and what one of their items is called.
ITEM_NOUNS = {
    "elements": "element",
    "features": "feature",
    "areas": "area",
    "walls": "wall",
    "passages": "passage",
    "entryways": "entryway",
}

_ITEM_POINTER = re.compile(r"^/(elements|features|areas|walls|passages|entryways)/(\d+)(/.*)?$")
_REQUIRED = re.compile(r'^"([^"]{1,64})" is a required property$')
_LOWER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def object_label(collection: str, item: Any) -> str:
    """How messages name an item of a dungeon list: ``element 'gob-1' (monster, "Goblin")``,
    ``area 'r1' (room)``, ``passage (cell [0, 0], east)``; only what the item has that can be
    shown (an id that is a string, a kind that is a name)."""
    noun = ITEM_NOUNS.get(collection, "object")
    if not isinstance(item, dict):
        return noun
    text = noun
    if isinstance(item.get("id"), str) and item["id"]:
        text += f" '{item['id'][:64]}'"
    details = []
    kind = item.get("kind")
    if isinstance(kind, str) and kind:
        details.append(kind[:32])
    if isinstance(item.get("name"), str) and item["name"]:
        details.append(f'"{item["name"][:60]}"')
    if collection in ("passages", "entryways") and isinstance(item.get("cell"), list):
        details.append(f"cell {json.dumps(item['cell'])[:20]}")
        if isinstance(item.get("side"), str):
            details.append(item["side"][:10])
    return text + (f" ({', '.join(details)})" if details else "")


def _example(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def required_hint(member: str, collection: str | None, item: Any, ruleset: Ruleset | None, family: Any) -> str:
    """A sensible value for the missing required ``member`` of ``item`` (an item of the list
    ``collection``, or ``None`` for the document and ``"sheet"`` for its sheet), as words to add
    to the message: ``write "size_mm": 8 (a monster's size in ruleset 'line-classic', in mm)``;
    ``""`` when there is nothing useful to say. Sizes and positions are millimetres on the sheet."""
    kind = item.get("kind") if isinstance(item, dict) else None
    if not isinstance(kind, str):
        kind = None  # a kind that is no string (a list, a number) names nothing to look up
    spec = ruleset.kinds.get(kind) if ruleset is not None and ruleset.family == "line" and kind else None
    if collection == "elements":
        if member == "size_mm":
            size = spec.size_mm if spec is not None and spec.size_mm is not None else 8
            whose = f"a {kind}'s size in ruleset '{ruleset.id}'" if spec is not None and ruleset else "a typical size"
            return f'write "size_mm": {size:g} ({whose}: its diameter in mm)'
        if member == "rotation_deg":
            return 'write "rotation_deg": 0 (degrees clockwise; 0 prints it upright)'
        if member == "at":
            return 'write "at": [x, y], its centre in mm from the sheet\'s top-left corner (y down), inside its area'
        if member == "id":
            prefix = spec.id_prefix if spec is not None else (kind if isinstance(kind, str) else "element")
            return f'write an id unique in the dungeon, such as "id": "{prefix}-1"'
        if member == "segment":
            return 'write "segment": [[x1, y1], [x2, y2]], the door across its opening in mm'
        if member == "locks":
            colours = ruleset.key_colours if ruleset is not None and ruleset.family == "line" else []
            return f'write "locks": ["{colours[0] if colours else "red"}"], the key colours that open it' + (
                f" (colours: {', '.join(colours)}, or 'skeleton')" if colours else ""
            )
        if member == "text":
            return 'write "text": "Mind the hot wax", the words the label prints'
        if member == "text_height_mm":
            return 'write "text_height_mm": 3 (the height of its letters in mm)'
        if member == "vp":
            return 'write "vp": 3, the victory points printed on it'
        if member == "number":
            return 'write "number": 1 (stones are connected in number order, 1, 2, 3...)'
        if member == "channel":
            return 'write "channel": "A" (an entry leads to the exits of its channel)'
        if member in ("variant", "colour") and ruleset is not None and isinstance(kind, str):
            values = ruleset.element_values(kind, "variants" if member == "variant" else "colours")
            if member == "colour" and not values:
                values = ruleset.key_colours
            if values:
                return f'write "{member}": "{values[0]}" (one of: {", ".join(values)})'
    if collection == "features":
        if member == "cell":
            return 'write "cell": [column, row], counted from 0 at the top-left room'
        if member == "letter":
            letters = (
                ruleset.elements.get(kind, {}).get("letters") if ruleset is not None and isinstance(kind, str) else None
            )
            return f'write "letter": "A" (one of {letters or "A-Z"}; a monster is met by the weapon of its letter)'
    if collection in ("passages", "entryways"):
        if member == "cell":
            return 'write "cell": [column, row], counted from 0 at the top-left room'
        if member == "side":
            return 'write "side": "north" (or "east", "south", "west")'
    if collection == "areas":
        if member == "polygon":
            return 'write "polygon": [[x, y], ...], its outline in mm (3 corners or more)'
        if member == "kind":
            return 'write "kind": "room" (or "corridor")'
    if collection == "walls" and member == "points":
        return 'write "points": [[x1, y1], [x2, y2]], the wall\'s line in mm'
    if member == "kind" and ruleset is not None and collection in ("elements", "features"):
        return f'write "kind": one of {", ".join(sorted(ruleset.elements))}'
    if collection in (None, "sheet") and ruleset is not None and family in ("grid", "line"):
        from inkcrawl.templates import template_data

        template = template_data(ruleset)
        source = template if collection is None else template.get("sheet", {})
        if member in source:
            return f'write "{member}": {_example(source[member])} (what a new dungeon starts with)'
    return ""


def _item_of(data: dict, pointer: str) -> tuple[str, int, Any, str] | None:
    match = _ITEM_POINTER.match(pointer)
    if match is None:
        return None
    collection, index = match.group(1), int(match.group(2))
    items = data.get(collection)
    if not isinstance(items, list) or index >= len(items):
        return None
    return collection, index, items[index], match.group(3) or ""


def explain_schema_problems(problems: list[Problem], data: Any, ruleset: Ruleset | None, file: str) -> list[Problem]:
    """``problems`` (schema problems of the dungeon document ``data``, sorted by pointer) with
    their messages explained (see the module docstring), plus a C003 for each object that has
    schema errors and a kind ``ruleset`` does not define (its other problems follow from it, so
    it comes first among them). ``ruleset`` is ``None`` when the dungeon's is not known. Never
    raises."""
    if not isinstance(data, dict) or not problems:
        return problems
    from inkcrawl.checks.common import unknown_kind

    family = data.get("family")
    explained: list[Problem] = []
    kind_problems: dict[str, Problem] = {}
    for found in problems:
        if found.code != "S001":
            explained.append(found)
            continue
        located = _item_of(data, found.pointer)
        message = found.message
        required = _REQUIRED.match(message)
        if located is None:
            if required is not None and found.pointer in ("", "/sheet"):
                hint = required_hint(required.group(1), "sheet" if found.pointer else None, data, ruleset, family)
                message += f"; {hint}" if hint else ""
            explained.append(replace(found, message=message))
            continue
        collection, index, item, rest = located
        kind = item.get("kind") if isinstance(item, dict) else None
        base = f"/{collection}/{index}"
        if (
            collection in ("elements", "features")
            and isinstance(kind, str)
            and ruleset is not None
            and kind not in ruleset.elements
        ):
            if base not in kind_problems:
                kind_problems[base] = problem(
                    "C003" if _LOWER_NAME.match(kind) else "S001",
                    f"{object_label(collection, item)}: {unknown_kind(kind, ruleset)}",
                    file,
                    base + "/kind",
                )
            if rest == "/kind":
                continue  # the pattern error of the kind: said better by the problem above
            message += "; it follows from the unknown kind: fix the kind first"
        if required is not None and not rest:
            hint = required_hint(required.group(1), collection, item, ruleset, family)
            message += f"; {hint}" if hint else ""
        explained.append(replace(found, message=f"{object_label(collection, item)}: {message}"))
    if not kind_problems:
        return explained
    ordered: list[Problem] = []
    placed: set[str] = set()
    for found in explained:
        match = _ITEM_POINTER.match(found.pointer)
        owner = f"/{match.group(1)}/{match.group(2)}" if match else None
        if owner is not None and owner in kind_problems and owner not in placed:
            ordered.append(kind_problems[owner])
            placed.add(owner)
        ordered.append(found)
    ordered += [p for base, p in kind_problems.items() if base not in placed]
    return ordered
