"""The door and lock rule of the line family (RULES.md 2, Keys), in one place.

A locked door passes with its colour's key, a skeleton-key door (lock ``"skeleton"``) with any
key, a door with several locks with one distinct key per lock. A player holds at most one key
of each colour, so a door listing a colour twice never opens. The referee
(:mod:`inkcrawl.engines.line`), the solvability search (:mod:`inkcrawl.solvability`) and the
rule checks read this module.
"""

from __future__ import annotations

from collections.abc import Iterable

from inkcrawl.model import SKELETON_LOCK


def lock_needs(locks: list[str]) -> tuple[frozenset[str], int] | None:
    """What a door with ``locks`` asks of a player: ``(colours, keys)`` where ``colours`` must
    all be held and ``keys`` is how many distinct keys are needed in all (a ``"skeleton"`` lock
    takes any key besides those). ``None`` when no player can ever open it: a colour listed
    twice, since a player holds at most one key of each colour."""
    colours = [lock for lock in locks if lock != SKELETON_LOCK]
    if len(set(colours)) != len(colours):
        return None
    return frozenset(colours), len(locks)


def door_opens(locks: list[str], keys: Iterable[str]) -> bool:
    """Whether a player holding ``keys`` (colour ids) opens a door with ``locks``."""
    needs = lock_needs(locks)
    if needs is None:
        return False
    held = frozenset(keys)
    return needs[0] <= held and len(held) >= needs[1]


def mask_needs(locks: list[str], bit: dict[str, int]) -> tuple[int, int] | None:
    """:func:`lock_needs` with the key colours as bits (``bit``: colour -> its bit), for searches
    that hold keys as a bit mask: ``(colour mask, keys)``, or ``None`` when the door never
    opens (also when it needs a colour that has no bit: no token of it)."""
    needs = lock_needs(locks)
    if needs is None or any(colour not in bit for colour in needs[0]):
        return None
    return sum(bit[colour] for colour in needs[0]), needs[1]


def mask_opens(needs: tuple[int, int] | None, keys: int) -> bool:
    """:func:`door_opens` for a key mask and the door's :func:`mask_needs`."""
    return needs is not None and keys & needs[0] == needs[0] and keys.bit_count() >= needs[1]
