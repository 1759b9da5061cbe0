"""Suggestions for misspelled names: the one place inkcrawl answers "did you mean ...?".

Every message about a name that is looked up and not found (an element kind, a rules switch,
a lock colour, a ruleset id, a command-line choice, a class in an import mapping) says what was
expected and, through :func:`did_you_mean`, names the nearest valid value (``difflib``'s
similarity ratio, compared without regard to case, so ``Weapon`` suggests ``weapon`` and ``a``
suggests ``A``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

#: How alike (``difflib.SequenceMatcher`` ratio, 0 to 1) a value and a choice must be for the
#: choice to be suggested: 0.6 suggests ``weapon`` for ``wepon`` but nothing for ``start``.
SIMILARITY_CUTOFF = 0.6


def nearest(value: Any, choices: Iterable[Any]) -> str | None:
    """The choice nearest to ``value`` (a string), compared without regard to case and to
    surrounding spaces, or ``None`` when ``value`` is not a string or no choice is alike enough
    (:data:`SIMILARITY_CUTOFF`). Choices that are not strings are compared as their ``str``."""
    if not isinstance(value, str):
        return None
    by_folded: dict[str, str] = {}
    for choice in choices:
        by_folded.setdefault(str(choice).casefold(), str(choice))
    wanted = value.strip().casefold()
    if wanted in by_folded:
        return by_folded[wanted]
    close = difflib.get_close_matches(wanted, list(by_folded), n=1, cutoff=SIMILARITY_CUTOFF)
    return by_folded[close[0]] if close else None


def did_you_mean(value: Any, choices: Iterable[Any]) -> str:
    """``" (did you mean 'x'?)"`` for the choice nearest to ``value`` (:func:`nearest`), to add
    to a message; ``""`` when there is none."""
    found = nearest(value, choices)
    return f" (did you mean {found!r}?)" if found is not None else ""


def expected(value: Any, choices: Iterable[Any], what: str = "one of") -> str:
    """``"expected one of: a, b, c; did you mean 'b'?"``: what a message about an unknown value
    ends with (the choices sorted as given, ``none`` when there are none)."""
    listed = [str(choice) for choice in choices]
    text = f"expected {what}: {', '.join(listed) if listed else 'none'}"
    found = nearest(value, listed)
    return text + (f"; did you mean {found!r}?" if found is not None else "")
