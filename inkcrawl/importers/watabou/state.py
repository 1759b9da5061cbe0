"""The state of one conversion that every step shares: the source read, the ruleset's print
limits, the scale (mm per cell), and what the steps place (the attributes declared below are
set by :meth:`_Conversion.run`)."""

from __future__ import annotations

import math
from pathlib import Path

from inkcrawl.importers import ImportOptions
from inkcrawl.importers.build import DRAWING_BAND_MM
from inkcrawl.importers.watabou.areas import _Obstacles, _Space
from inkcrawl.importers.watabou.source import _EPS, DEFAULT_CELL_MM, LABEL_CAP_MM, _Area, _read


class _State:
    """One conversion's shared state; the door, label and key steps (:mod:`.doors`,
    :mod:`.labels`, :mod:`.keys`) build on it."""

    # set by _Conversion.run
    areas: list[_Area]
    doorways: dict[int, _Area]
    space: _Space
    scale: float
    obstacles: _Obstacles
    elements: list[dict]
    locked: list[dict]
    starts: list[tuple[str, tuple[float, float]]]
    no_room: set[tuple[str, float, bool]]
    label_plan: _Obstacles
    notes_key: list[tuple[str, str]]  # (note's source, entry): notes printed as their ref, or not at all

    def __init__(self, path: Path, options: ImportOptions):
        self.path = path
        self.options = options
        self.notes: list[tuple[str, str]] = []
        self.source = _read(path, self.notes)
        from inkcrawl.rulesets import bundled_rulesets

        rulesets = bundled_rulesets()
        self.ruleset = rulesets.get(options.ruleset or "line-classic") or rulesets["line-classic"]
        if self.ruleset.family != "line":
            self.ruleset = rulesets["line-classic"]
        limits = self.ruleset.print_limits
        self.snap_mm = float(limits.get("snap_tolerance_mm", 0.5))
        self.min_gap_mm = float(limits.get("min_gap_mm", 2.0))
        self.min_element_mm = float(limits.get("min_element_mm", 3.0))
        self.label_mm = max(LABEL_CAP_MM, float(limits.get("min_text_mm", 2.0)))
        colours = self.ruleset.key_colours
        self.steel_colour = "red" if "red" in colours or not colours else colours[0]

    def note(self, source: str, message: str) -> None:
        self.notes.append((source, message))

    # scale --------------------------------------------------------------------------------------
    def _scale(self) -> float:
        x0, y0, x1, y1 = self.space.union.bounds
        width, height = max(x1 - x0, _EPS), max(y1 - y0, _EPS)
        band_w = DRAWING_BAND_MM[2] - DRAWING_BAND_MM[0]
        band_h = DRAWING_BAND_MM[3] - DRAWING_BAND_MM[1]
        fit = min(band_w / width, band_h / height)
        wanted = self.options.cell_mm
        scale = wanted if wanted is not None else DEFAULT_CELL_MM
        if scale > fit:
            if wanted is not None:
                self.note(
                    "the whole map",
                    f"{wanted:g} mm per cell would make it {width * wanted:.0f} x "
                    f"{height * wanted:.0f} mm; scaled down to {fit:.2f} mm per cell to fit",
                )
            scale = fit
        scale = math.floor(scale * 1000) / 1000
        if scale * 1 < self.min_gap_mm + 1:
            self.note(
                "the whole map",
                f"is {width:g} x {height:g} cells; at {scale:.2f} mm per cell a one-cell "
                f"corridor is too narrow to draw through",
            )
        return scale

    def mm(self, value_mm: float) -> float:
        """A length in mm in source units (cells)."""
        return value_mm / self.scale
