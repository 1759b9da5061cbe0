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

#: How far (mm) a sheet's paper may be from a named size and still be called by its name.
PAPER_TOLERANCE_MM = 0.5


def paper_name(width_mm: float, height_mm: float) -> str | None:
    """The name (a key of :data:`inkcrawl.papers.PAPER_SIZES`, ``line.paper``) of a sheet's
    paper ``width_mm`` x ``height_mm`` (mm, portrait or landscape: the generator draws portrait),
    within :data:`PAPER_TOLERANCE_MM`; ``None`` for a size that has no name."""
    for name, (width, height) in PAPER_SIZES.items():
        for w, h in ((width, height), (height, width)):
            if abs(w - width_mm) <= PAPER_TOLERANCE_MM and abs(h - height_mm) <= PAPER_TOLERANCE_MM:
                return name
    return None
