"""L028: points that saving would merge.

Saving rounds every float to :data:`inkcrawl.jsonio.FLOAT_DECIMALS` decimals (0.001 mm,
:func:`inkcrawl.jsonio.normalise_numbers`). Two distinct points that round to the same point
become one when the file is saved (by the editor, ``inkcrawl migrate`` or an import): an area
polygon then repeats a vertex (L002) or has too few points (L001), a wall loses a point, a
door shrinks to a point. This check reports them on the file as it is, before anything
rewrites it: any two vertices of an area polygon (consecutive ones, last to first included, or
not), consecutive points of a wall, the two ends of a door. A polygon whose rounded copy is
degenerate without any merge (a sliver whose apex rounds onto its base) is reported too.

It runs on line dungeons from :func:`inkcrawl.checks.check_dungeon`, after the line checks.
Files saved by inkcrawl are already rounded, so for them it only compares coordinates.
"""

from __future__ import annotations

import math

from inkcrawl.geometry import polygon_defects
from inkcrawl.jsonio import FLOAT_DECIMALS, normalise_numbers
from inkcrawl.model import LineDungeon, Point
from inkcrawl.problems import Problem, describe, problem

#: The step coordinates are saved with, in mm, for messages.
SAVED_STEP_MM = 10**-FLOAT_DECIMALS


def saved_point(point: Point) -> Point:
    """``point`` as saving writes it (each coordinate rounded as :func:`~inkcrawl.jsonio.normalise_numbers` does)."""
    return (normalise_numbers(point[0]), normalise_numbers(point[1]))


def _changed_by_saving(points) -> bool:
    """Whether saving changes any coordinate of ``points`` (the quick test; most files are saved
    by inkcrawl, so already rounded)."""
    return any(round(x, FLOAT_DECIMALS) != x or round(y, FLOAT_DECIMALS) != y for x, y in points)


def _mm(distance: float) -> str:
    """A tiny distance in mm, readable: ``0.0004``, ``0.000412``, ``3e-07``."""
    return f"{distance:.3g}"


def _merge_text(distance: float, where: Point) -> str:
    return (
        f"{_mm(distance)} mm apart; saving rounds coordinates to {SAVED_STEP_MM:g} mm and would merge them "
        f"into one point at ({where[0]:g}, {where[1]:g}); move them apart or remove one"
    )


def precision_problems(dungeon: LineDungeon, file: str) -> list[Problem]:
    """L028 for every pair of distinct points of an area polygon, a wall or a door that saving
    would merge, and for every valid polygon that rounding would make invalid."""
    problems: list[Problem] = []
    for area in dungeon.areas:
        problems += _polygon(area, file)
    for wall in dungeon.walls:
        if not _changed_by_saving(wall.points):
            continue
        points = [(p[0], p[1]) for p in wall.points]
        saved = [saved_point(p) for p in points]
        for index in range(len(points) - 1):
            a, b = points[index], points[index + 1]
            if a != b and saved[index] == saved[index + 1]:
                problems.append(
                    problem(
                        "L028",
                        f"{describe('wall', wall.id)}: points {index} and {index + 1} are "
                        f"{_merge_text(math.dist(a, b), saved[index])}",
                        file,
                        f"{wall.pointer}/points/{index + 1}",
                    )
                )
    for door in dungeon.elements:
        if door.segment is None:
            continue
        a, b = ((p[0], p[1]) for p in door.segment)
        if a != b and saved_point(a) == saved_point(b):
            problems.append(
                problem(
                    "L028",
                    f"{describe(door.kind, door.id, door.name)}: segment ends 0 and 1 are {_mm(math.dist(a, b))} mm "
                    f"apart; "
                    f"saving rounds coordinates to {SAVED_STEP_MM:g} mm and would shrink the door to the point "
                    f"({saved_point(a)[0]:g}, {saved_point(a)[1]:g}); make it longer",
                    file,
                    f"{door.pointer}/segment/1",
                )
            )
    return problems


def _polygon(area, file: str) -> list[Problem]:
    if not _changed_by_saving(area.polygon):
        return []
    points = [tuple(p) for p in area.polygon]
    saved = [saved_point(p) for p in points]
    name = describe(area.kind, area.id, area.name)
    problems = []
    last_at: dict[Point, int] = {}
    for index, point in enumerate(saved):
        previous = last_at.get(point)
        last_at[point] = index
        # an exact repeat of the vertex before is L002's business already
        if previous is not None and points[previous] != points[index]:
            problems.append(
                problem(
                    "L028",
                    f"{name}: vertices {previous} and {index} are "
                    f"{_merge_text(math.dist(points[previous], points[index]), point)}",
                    file,
                    f"{area.pointer}/polygon/{index}",
                )
            )
    if problems or polygon_defects(points) is not None:
        return problems
    defect = polygon_defects(saved)
    if defect is not None:
        problems.append(
            problem(
                "L028",
                f"{name}: saving rounds coordinates to {SAVED_STEP_MM:g} mm, and the rounded "
                f"polygon fails {defect[0]}: {defect[1]}; move its vertices further apart",
                file,
                f"{area.pointer}/polygon",
            )
        )
    return problems
