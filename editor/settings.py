"""The editor's stored settings: where they live and how a stored value is read back.

Qt keeps them in the platform's settings location (recent files, grid step, window layout,
playtest seats). Every feature reads and writes them through :func:`settings`; this module
imports nothing of the editor, so any feature may use it without importing the main window.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSettings

#: The snapping grid step, in mm: its default and the range Grid Step... offers.
DEFAULT_GRID_STEP_MM, MIN_GRID_STEP_MM, MAX_GRID_STEP_MM = 5.0, 0.5, 100.0


def grid_step_setting(value) -> float:
    """The grid step a stored setting holds, or the default when the settings file holds
    something else (text, infinity, zero...): snapping to such a step put NaN into the model."""
    try:
        step = float(value)
    except (TypeError, ValueError):
        return DEFAULT_GRID_STEP_MM
    return step if math.isfinite(step) and MIN_GRID_STEP_MM <= step <= MAX_GRID_STEP_MM else DEFAULT_GRID_STEP_MM


def settings() -> QSettings:
    """The editor's settings in the platform's settings location (recent files, grid step,
    window layout)."""
    return QSettings("inkcrawl", "inkcrawl-editor")
