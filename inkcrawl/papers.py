"""Named paper sizes (portrait, width x height in mm), the one table the exporters
(:mod:`exporters.paper`, ``--paper``) and the line generator (``line.paper``) read."""

from __future__ import annotations

#: Named paper sizes, portrait, in mm.
PAPER_SIZES: dict[str, tuple[float, float]] = {
    "a5": (148, 210),
    "a4": (210, 297),
    "a3": (297, 420),
    "letter": (215.9, 279.4),
    "legal": (215.9, 355.6),
    "tabloid": (279.4, 431.8),
}
