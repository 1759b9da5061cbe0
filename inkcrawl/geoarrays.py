"""Typed helpers around shapely 2's vectorised functions (DESIGN.md "Stack notes").

shapely's functions take and return numpy arrays of geometries, and a scalar geometry for a
scalar input; the stubs (``types-shapely``) type a call on an array as "a geometry or an array".
These helpers say which one it is, so the callers are checked as arrays (docs/typing.md). They
depend on numpy and shapely only: the rules engines use them too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import shapely

#: A numpy array of shapely geometries (what the vectorised functions take and return).
GeoArray = npt.NDArray[np.object_]


def point_array(xy: npt.NDArray[np.floating]) -> GeoArray:
    """``shapely.points`` of an ``(n, 2)`` array of coordinates: an array of ``n`` points."""
    return np.asarray(shapely.points(xy))


def linestring_array(coords: npt.NDArray[np.floating]) -> GeoArray:
    """``shapely.linestrings`` of an ``(n, k, 2)`` array: an array of ``n`` line strings."""
    return np.asarray(shapely.linestrings(coords))


def as_point(coords: Sequence[float] | npt.NDArray[np.floating]) -> tuple[float, float]:
    """A 2-D coordinate (a shapely or numpy row, a tuple) as a pair of Python floats."""
    return (float(coords[0]), float(coords[1]))
