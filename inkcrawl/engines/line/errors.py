"""The referee's two refusals: a play it cannot score, game data it cannot play."""

from __future__ import annotations


class PlayError(ValueError):
    """The play cannot be scored on this dungeon. ``problems`` lists ``(pointer, message)``
    pairs, the pointer into the play file (RFC 6901)."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{p or '/'}: {m}" for p, m in problems))


class GameDataError(ValueError):
    """The dungeon entry of the game data cannot be played (missing or malformed members,
    unknown switch values, ids that do not resolve, tolerances out of range). The message
    starts with the member, relative to the dungeon entry (``switches.reentry: ...``)."""
