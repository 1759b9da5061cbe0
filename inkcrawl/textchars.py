"""Characters that text in inkcrawl files may not hold (check C007), shared by the checks and the
exporters.

XML 1.0, and so SVG, cannot hold the C0 control characters other than tab, newline and carriage
return, nor the noncharacters U+FFFE and U+FFFF; and no control character prints. So no string of a
dungeon, pack manifest or ruleset (titles, names, reminders, label texts, descriptions) may hold:

- a C0 control character U+0000-U+001F other than tab (U+0009) and newline (U+000A); carriage
  return (U+000D) is refused too (a line break is a newline);
- DEL (U+007F) or a C1 control character (U+0080-U+009F): XML allows them, but they never print
  and are almost always left over from text decoded with the wrong encoding;
- the noncharacters U+FFFE and U+FFFF.

Positions in messages count characters (code points) from 0, like vertex indexes.
The exporters drop these characters (and lone surrogates) from whatever they write, so an SVG
is well-formed even for a file exported with ``--force`` (:func:`printable_text`).
"""

from __future__ import annotations

import re
from typing import Any

from inkcrawl.problems import Problem, describe, problem

#: The characters check C007 refuses in text (see the module docstring).
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
# ... and what the exporters remove: those plus lone surrogates, which UTF-8 cannot encode.
_UNWRITABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")

#: How many offending characters one message names before saying "and N more".
_SHOWN = 3


def code_point(char: str) -> str:
    """A character as ``U+0007``."""
    return f"U+{ord(char):04X}"


def forbidden_characters(text: str) -> list[tuple[int, str]]:
    """``(position, character)`` of every character of ``text`` that C007 refuses."""
    return [(match.start(), match.group()) for match in FORBIDDEN.finditer(text)]


def printable_text(text: str) -> str:
    """``text`` without the characters C007 refuses nor lone surrogates: safe in XML and in a message."""
    return _UNWRITABLE.sub("", text) if _UNWRITABLE.search(text) else text


# What text output to a terminal shows escaped: C0 controls except tab and newline (so ESC, which
# starts every terminal escape sequence, and CR, which returns to the start of the line), DEL,
# the C1 controls (CSI U+009B and OSC U+009D start sequences on some terminals too) and lone
# surrogates (which UTF-8 output cannot encode).
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    value = ord(match.group())
    return f"\\x{value:02x}" if value < 0x100 else f"\\u{value:04x}"


def terminal_safe(text: str) -> str:
    """``text`` safe to print on a terminal: every control character but tab and newline shown
    escaped as Python writes it (ESC as ``\\x1b``, DEL as ``\\x7f``, CSI as ``\\x9b``), lone
    surrogates as ``\\udc80``; everything else unchanged. Every command's text output passes the
    strings it did not write itself (names, titles, ids, file names, messages quoting them)
    through here, so a dungeon cannot clear the screen, retitle the window or rewrite a line."""
    return _TERMINAL_UNSAFE.sub(_escaped, text) if _TERMINAL_UNSAFE.search(text) else text


_JSON_RAW_CONTROLS = re.compile("[\x7f-\x9f]")


def json_terminal_safe(json_text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``, which escapes C0 controls but not DEL
    nor the C1 controls) with DEL and C1 escaped too (``\\u009b``): the same JSON value, and
    safe on a terminal. Only strings can hold those characters, so escaping them keeps the JSON
    valid."""
    if not _JSON_RAW_CONTROLS.search(json_text):
        return json_text
    return _JSON_RAW_CONTROLS.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)


def text_problem(owner: str, field: str, text: Any, file: str, pointer: str) -> Problem | None:
    """C007 for the string ``text`` of ``field`` of ``owner`` (a :func:`describe` text), or ``None``
    when it is clean (or not a string)."""
    if not isinstance(text, str) or not FORBIDDEN.search(text):
        return None
    found = forbidden_characters(text)
    kinds = ["noncharacter" if char in "\ufffe\uffff" else "control character" for _, char in found]
    named = [f"{code_point(char)} at position {position}" for position, char in found[:_SHOWN]]
    if len(set(kinds)) == 1:  # "the control characters U+0001 at position 0 and U+0002 at position 3"
        named[0] = f"the {kinds[0]}{'s' if len(found) > 1 else ''} {named[0]}"
    else:
        named = [f"the {kind} {text}" for kind, text in zip(kinds, named)]
    if len(found) > _SHOWN:
        listed = ", ".join(named) + f" and {len(found) - _SHOWN} more"
    elif len(named) > 1:
        listed = ", ".join(named[:-1]) + " and " + named[-1]
    else:
        listed = named[0]
    return problem(
        "C007", f"{owner}: {field} contains {listed}; remove {'it' if len(found) == 1 else 'them'}", file, pointer
    )


def owner_name(kind: str, obj_id: Any, name: Any = None) -> str:
    """:func:`~inkcrawl.problems.describe` for data that may not follow the schema, with the
    refused characters left out of the name so the message itself stays clean."""
    return describe(
        kind,
        printable_text(obj_id) if isinstance(obj_id, str) else None,
        printable_text(name) if isinstance(name, str) else None,
    )


# Collections of a pack manifest or ruleset whose members are named objects, and what each is.
_NAMED_LISTS = {"decks": "deck", "colours": "key colour"}
_NAMED_MAPS = {"elements": "element kind", "characters": "character", "segments": "segment"}


def document_text_problems(value: Any, owner: str, file: str, pointer: str = "", field: str = "") -> list[Problem]:
    """C007 for every string anywhere in ``value`` (a pack manifest or ruleset document, or part
    of one), in document order, each named by its nearest named owner (a deck, an element
    kind...) and its field as a path below that owner (``description``, ``decks/0/name``)."""
    if isinstance(value, str):
        found = text_problem(owner, field or "the value", value, file, pointer)
        return [found] if found is not None else []
    problems: list[Problem] = []
    if isinstance(value, dict):
        for key, child in value.items():
            key = str(key)
            where = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            if field in _NAMED_MAPS and isinstance(child, dict):
                problems += document_text_problems(
                    child, owner_name(_NAMED_MAPS[field], key, child.get("name")), file, where
                )
            else:
                problems += document_text_problems(child, owner, file, where, f"{field}/{key}" if field else key)
    elif isinstance(value, list):
        kind = _NAMED_LISTS.get(field.rsplit("/", 1)[-1])
        for index, child in enumerate(value):
            where = f"{pointer}/{index}"
            if kind and isinstance(child, dict) and "id" in child:
                problems += document_text_problems(
                    child, owner_name(kind, child.get("id"), child.get("name")), file, where
                )
            else:
                problems += document_text_problems(child, owner, file, where, f"{field}/{index}")
    return problems
