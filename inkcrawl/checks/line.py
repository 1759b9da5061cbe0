"""Rule checks of the line family (RULES.md 2): polygons, placement, pairs, numbering, end
triggers, reachability with keys and portals, printability. Geometry uses shapely 2 with
vectorised queries (DESIGN.md "Stack notes")."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np
import shapely

from inkcrawl.geoarrays import point_array
from inkcrawl.geometry import Connection, LineGeometry, build_geometry, door_areas, polygon_defects
from inkcrawl.model import SKELETON_LOCK, Element, LineDungeon
from inkcrawl.printed import PrintedSheet, printed_sheet, required_gap_mm, stacked_doors
from inkcrawl.problems import Problem, describe, problem
from inkcrawl.rulesets import Ruleset
from inkcrawl.shapes import OUTLINE_WALL_MM
from inkcrawl.solvability import explore, lock_needs
from inkcrawl.textmetrics import CAP_HEIGHT_EM, DESCENT_EM, text_width_mm

#: Which end trigger needs which element kind to exist.
_TRIGGER_TARGETS = {"boss_covered": "boss", "escape_portal": "escape_portal", "exit_reached": "exit"}
_WITH_ARTICLE = {"boss": "a boss", "escape_portal": "an escape portal", "exit": "an exit"}


def _name(element: Element) -> str:
    return describe(element.kind, element.id, element.name)


def line_problems(dungeon: LineDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    """Every line rule check (codes L001-L026) for one dungeon."""
    limits = ruleset.print_limits
    snap = limits["snap_tolerance_mm"]
    problems: list[Problem] = []

    valid_areas = []
    broken = []
    for area in dungeon.areas:
        defect = polygon_defects(area.polygon)
        if defect:
            code, message = defect
            problems.append(
                problem(code, f"{describe(area.kind, area.id, area.name)}: {message}", file, area.pointer + "/polygon")
            )
            if code != "L001":
                broken.append(shapely.make_valid(shapely.Polygon(area.polygon)))
        else:
            valid_areas.append(area)
    for wall in dungeon.walls:
        if len({tuple(p) for p in wall.points}) < 2:
            problems.append(
                problem(
                    "L024",
                    f"{describe('wall', wall.id)} has fewer than 2 distinct points",
                    file,
                    wall.pointer + "/points",
                )
            )
    geometry = build_geometry(dungeon, valid_areas, snap)
    problems += _overlapping_areas(geometry, limits["overlap_tolerance_mm"], file)

    placements = {kind: definition.get("placement") for kind, definition in ruleset.elements.items()}
    placed = [e for e in dungeon.elements if e.at is not None and e.size_mm is not None and e.kind in placements]
    inside = [e for e in placed if placements[e.kind] == "inside_area"]
    area_of, placement_problems = _place_elements(geometry, inside, snap, file, broken)
    problems += placement_problems
    problems += _overlapping_elements(placed, limits["overlap_tolerance_mm"], file)

    starts = [e for e in placed if placements[e.kind] == "outer_boundary"]
    start_areas = []
    if not starts:
        problems.append(
            problem(
                "L010", "the dungeon has no Start; players begin at a Start on the outer boundary", file, "/elements"
            )
        )
    elif geometry.polygons:
        # vectorised over Starts (an import can bring thousands): distances to the outline, and
        # each Start's nearest area through one STRtree query
        points = shapely.points([start.at for start in starts if start.at is not None])  # all placed
        gaps = shapely.distance(geometry.outline, points)
        tree = shapely.STRtree(geometry.polygons)
        nearest_area: dict[int, int] = {}
        for point_index, area_index in zip(*tree.query_nearest(points, return_distance=False, all_matches=True)):
            # ties (a Start on a shared wall) go to the area listed first in the file
            if int(area_index) < nearest_area.get(int(point_index), len(geometry.polygons)):
                nearest_area[int(point_index)] = int(area_index)
        for index, (start, gap) in enumerate(zip(starts, gaps)):
            gap = float(gap)
            if gap > snap:
                if any(shapely.dwithin(area, points[index], snap) for area in broken):
                    continue  # on an area whose polygon is already reported
                problems.append(
                    problem(
                        "L011",
                        f"{_name(start)} is {gap:.1f} mm from the outer boundary of the "
                        f"dungeon; a Start goes on an outer wall",
                        file,
                        start.pointer + "/at",
                    )
                )
                continue
            start_areas.append(geometry.areas[nearest_area[index]].id)

    doors = []
    placed_doors = []
    for door in dungeon.elements:
        if door.segment is None or placements.get(door.kind) != "between_areas":
            continue
        if tuple(door.segment[0]) == tuple(door.segment[1]):
            problems.append(
                problem(
                    "L033",
                    f"{_name(door)}: both ends of its segment are the same point "
                    f"({door.segment[0][0]:g}, {door.segment[0][1]:g}); a door spans a "
                    f"stretch of the wall between two areas",
                    file,
                    door.pointer + "/segment",
                )
            )
            continue
        found = door_areas(geometry, door, snap)
        if len(found) != 2:
            where = "no area" if not found else ("only one area" if len(found) == 1 else f"{len(found)} areas")
            problems.append(
                problem(
                    "L008",
                    f"{_name(door)} lies on the boundary of {where}; a door goes on the wall "
                    f"between two areas (within {snap:g} mm)",
                    file,
                    door.pointer + "/segment",
                )
            )
            continue
        doors.append((door, found[0], found[1]))
        placed_doors.append(door)
        locks = door.locks or []
        repeated = sorted({lock for lock in locks if locks.count(lock) > 1 and lock != SKELETON_LOCK})
        if lock_needs(locks) is None:
            problems.append(
                problem(
                    "L026",
                    f"{_name(door)} has two {repeated[0]} locks, but a player holds only one {repeated[0]} key",
                    file,
                    door.pointer + "/locks",
                )
            )
    for earlier, later, overlap in stacked_doors(placed_doors, snap):
        problems.append(
            problem(
                "L031",
                f"{_name(later)} lies on the same stretch of wall as {_name(earlier)} "
                f"({overlap:.1f} mm overlap): they print on top of each other; keep one "
                f"(a door may carry several locks)",
                file,
                later.pointer + "/segment",
            )
        )

    printed = printed_sheet(dungeon, geometry, doors, required_gap_mm(ruleset.data), starts)
    problems += _sheet_ink(dungeon, geometry, printed, file)
    connections = printed.connections
    problems += _bypassed_doors(geometry, connections, printed.doors, file)
    problems += _portals(dungeon, area_of, connections, file)
    problems += _artifacts(dungeon, ruleset, file)
    problems += _sheet(dungeon, ruleset, file)
    if start_areas:
        problems += _reachability(dungeon, ruleset, geometry, area_of, connections, start_areas, file)
    problems += _printability(dungeon, geometry, limits, file)
    return problems


def _overlapping_areas(geometry: LineGeometry, tolerance: float, file: str) -> list[Problem]:
    problems: list[Problem] = []
    polygons = geometry.polygons
    if len(polygons) < 2:
        return problems
    left, right = geometry.tree.query(polygons, predicate="intersects")
    for i, j in zip(left.tolist(), right.tolist()):
        if j <= i:
            continue
        shared = polygons[i].intersection(polygons[j])
        overlap = shared.area
        # within tolerance: the shared surface is a sliver narrower than the tolerance
        if overlap > 1e-9 and not shared.buffer(-tolerance / 2, join_style="mitre").is_empty:
            a, b = geometry.areas[i], geometry.areas[j]
            problems.append(
                problem(
                    "L004",
                    f"{describe(a.kind, a.id, a.name)} and {describe(b.kind, b.id, b.name)} "
                    f"overlap by {overlap:.1f} mm²; areas may share edges but not surface",
                    file,
                    b.pointer + "/polygon",
                )
            )
    return problems


def _place_elements(
    geometry: LineGeometry, elements: list[Element], snap: float, file: str, broken_areas: list
) -> tuple[dict[str, str], list[Problem]]:
    """Find each element's area: its centre inside exactly one area, its disc inside that area
    (within ``snap``) and clear of explicit walls. Elements inside an area whose polygon is
    itself invalid (``broken_areas``, already reported) are not reported again."""
    problems: list[Problem] = []
    area_of: dict[str, str] = {}
    if not elements:
        return area_of, problems
    centres = np.array([e.at for e in elements], dtype=float)
    radii = np.array([e.radius_mm for e in elements], dtype=float)
    points = point_array(centres)
    containing = geometry.areas_at(centres)
    holders = np.array([found[0] if len(found) == 1 else -1 for found in containing])
    placed = np.flatnonzero(holders >= 0)
    # A disc lies inside its area when its centre does and the outline is at least r away.
    clearance = (
        shapely.distance(shapely.boundary(np.array(geometry.polygons, dtype=object)[holders[placed]]), points[placed])
        if len(placed)
        else np.array([])
    )
    fit_by_element = dict(zip(placed.tolist(), (clearance >= radii[placed] - snap).tolist()))
    wall_hits: dict[int, str] = {}
    if geometry.walls:
        element_index, wall_index = shapely.STRtree(geometry.walls).query(
            points, predicate="dwithin", distance=float(radii.max())
        )
        gaps = shapely.distance(np.array(geometry.walls, dtype=object)[wall_index], points[element_index])
        for e, w, gap in zip(element_index.tolist(), wall_index.tolist(), gaps.tolist()):
            if gap < radii[e] - snap:
                wall_hits.setdefault(e, geometry.wall_ids[w])
    for index, element in enumerate(elements):
        found = containing[index]
        if not found:
            if element.at is None or any(shapely.intersects_xy(area, *element.at) for area in broken_areas):
                continue  # (every element here has its centre)
            problems.append(
                problem(
                    "L005",
                    f"{_name(element)} at ({element.at[0]:g}, {element.at[1]:g}) lies in no area",
                    file,
                    element.pointer + "/at",
                )
            )
            continue
        if len(found) > 1:
            names = " and ".join(f"'{geometry.areas[i].id}'" for i in found)
            problems.append(
                problem(
                    "L006", f"{_name(element)} sits on the wall between areas {names}", file, element.pointer + "/at"
                )
            )
            continue
        area = geometry.areas[found[0]]
        area_of[element.id] = area.id
        if not fit_by_element.get(index, True):
            problems.append(
                problem(
                    "L006",
                    f"{_name(element)} ({element.size_mm:g} mm) crosses the outline of "
                    f"{describe(area.kind, area.id, area.name)}",
                    file,
                    element.pointer + "/at",
                )
            )
        elif index in wall_hits:
            problems.append(
                problem("L006", f"{_name(element)} crosses wall '{wall_hits[index]}'", file, element.pointer + "/at")
            )
    return area_of, problems


def _overlapping_elements(elements: list[Element], tolerance: float, file: str) -> list[Problem]:
    if len(elements) < 2:
        return []
    centres = np.array([e.at for e in elements], dtype=float)
    radii = np.array([e.radius_mm for e in elements], dtype=float)
    boxes = shapely.box(centres[:, 0] - radii, centres[:, 1] - radii, centres[:, 0] + radii, centres[:, 1] + radii)
    left, right = shapely.STRtree(boxes).query(boxes, predicate="intersects")
    keep = right > left
    left, right = left[keep], right[keep]
    gaps = np.hypot(*(centres[left] - centres[right]).T) - radii[left] - radii[right]
    overlapping = gaps < -tolerance
    left, right, gaps = left[overlapping], right[overlapping], gaps[overlapping]
    # One problem per element (the later one of each pair), naming its deepest overlap and how
    # many more it has: a pile of n elements gives n problems, not n^2 / 2.
    order = np.lexsort((left, gaps, right))
    left, right, gaps = left[order], right[order], gaps[order]
    firsts, first_index, counts = np.unique(right, return_index=True, return_counts=True)
    problems = []
    for j, k, count in zip(firsts.tolist(), first_index.tolist(), counts.tolist()):
        a, b = elements[int(left[k])], elements[j]
        more = f" (and {count - 1} more element{'s' if count > 2 else ''})" if count > 1 else ""
        problems.append(
            problem(
                "L007", f"{_name(b)} overlaps {_name(a)} by {-float(gaps[k]):.1f} mm{more}", file, b.pointer + "/at"
            )
        )
    return problems


def _bypassed_doors(geometry: LineGeometry, connections: list[Connection], doors, file: str) -> list[Problem]:
    open_pairs = {frozenset((c.a, c.b)) for c in connections if c.kind == "open"}
    problems = []
    for door, a, b in doors:
        ids = (geometry.areas[a].id, geometry.areas[b].id)
        if ids[0] != ids[1] and frozenset(ids) in open_pairs:
            first, second = sorted(ids)
            problems.append(
                problem(
                    "L009",
                    f"{_name(door)}: areas '{first}' and '{second}' are also joined by an open "
                    f"gap, so the door locks nothing; close the gap with the door or a wall",
                    file,
                    door.pointer,
                )
            )
    return problems


def _sheet_ink(dungeon: LineDungeon, geometry: LineGeometry, printed: PrintedSheet, file: str) -> list[Problem]:
    """L029 wall ends that nearly meet, L030 walls drawn across doors, L032 openings narrower
    than the required gap (RULES.md 2, Drawing rules; inkcrawl.printed)."""
    problems = []
    walls = {w.id: w for w in dungeon.walls}
    areas = {a.id: a for a in geometry.areas}
    required = printed.required_mm
    for joint in printed.near_joints:
        wall = walls[joint.wall]
        if joint.other is not None:
            other = f"wall '{joint.other}'"
        elif joint.area is not None:
            area = areas[joint.area]
            other = f"the outline of {describe(area.kind, area.id, area.name)}"
        else:  # (a near joint names a wall or an area)
            other = "another wall"
        if joint.ink_gap_mm <= 0:
            text = (
                f"wall '{wall.id}' ends {joint.distance_mm:g} mm from {other} at ({joint.at[0]:g}, "
                f"{joint.at[1]:g}): their ink touches, so it prints as one wall, but the walls are not joined; "
                f"move the end onto the other wall"
            )
        else:
            text = (
                f"wall '{wall.id}' ends {joint.distance_mm:g} mm from {other} at ({joint.at[0]:g}, "
                f"{joint.at[1]:g}), leaving {math.floor(joint.ink_gap_mm * 100) / 100:g} mm of paper between "
                f"their ink, less than the "
                f"{required:g} mm a line needs: the gap is closed; join them (move the end onto the other wall) "
                f"or leave at least {required:g} mm of paper"
            )
        index = 0 if joint.end == 0 else len(wall.points) - 1
        problems.append(problem("L029", text, file, f"{wall.pointer}/points/{index}"))
    doors = {e.id: e for e in dungeon.elements}
    for door_id, wall_id in printed.blocked.items():
        door = doors[door_id]
        problems.append(
            problem(
                "L030",
                f"wall '{wall_id}' is drawn across {_name(door)}: the door cannot be passed "
                f"even with its keys; shorten the wall or move the door",
                file,
                door.pointer + "/segment",
            )
        )
    for opening in printed.openings:
        if 0 < opening.width_mm < required:
            a, b = areas[opening.a], areas[opening.b]
            pa = geometry.polygons[geometry.index_by_id[a.id]]
            pb = geometry.polygons[geometry.index_by_id[b.id]]
            if pa.intersection(pb).area > 1e-9:
                continue  # overlapping areas (L004) share no stretch of wall
            problems.append(
                problem(
                    "L032",
                    f"the opening between {describe(a.kind, a.id, a.name)} and "
                    f"{describe(b.kind, b.id, b.name)} at ({opening.at[0]:.1f}, "
                    f"{opening.at[1]:.1f}) is {opening.width_mm:.2g} mm wide between the wall "
                    f"ink, narrower than the {required:g} mm a line needs: it is closed; widen "
                    f"it or close it with a wall",
                    file,
                    b.pointer + "/polygon",
                )
            )
    for index, width in printed.narrow.items():
        area = geometry.areas[index]
        text = (
            f"{describe(area.kind, area.id, area.name)} is too narrow for a line: "
            + (
                f"its paper is at most {width:.2g} mm wide between the wall ink"
                if width > 0
                else "the wall ink leaves no paper in it"
            )
            + f", less than the {required:g} mm a line needs, so it is closed; widen it to at least "
            f"{required + OUTLINE_WALL_MM:g} mm between its outline's centre lines"
        )
        problems.append(problem("L034", text, file, area.pointer + "/polygon"))
    for index, (x, y, width) in printed.pinches.items():
        area = geometry.areas[index]
        problems.append(
            problem(
                "L036",
                f"{describe(area.kind, area.id, area.name)} narrows to about {width:.2g} mm "
                f"of paper near ({x:g}, {y:g}), less than the {required:g} mm a line needs: a "
                f"line cannot get from one part of it to the other without crossing a wall; "
                f"widen it there",
                file,
                area.pointer + "/polygon",
            )
        )
    for door_id, paper in printed.narrow_doors.items():
        door = doors[door_id]
        problems.append(
            problem(
                "L035",
                f"{_name(door)} leaves {paper:.2g} mm of paper clear of the wall ink "
                f"either side of it, less than the {required:g} mm a line needs: it is "
                f"closed even with its keys; make it longer (at least "
                f"{required + OUTLINE_WALL_MM:g} mm between walls that end at it) or move "
                f"the walls off it",
                file,
                door.pointer + "/segment",
            )
        )
    return problems


def _portals(dungeon: LineDungeon, area_of: dict[str, str], connections: list[Connection], file: str) -> list[Problem]:
    entries = dungeon.elements_of("portal_entry")
    exits = dungeon.elements_of("portal_exit")
    exit_channels = defaultdict(list)
    for portal_exit in exits:
        exit_channels[portal_exit.channel].append(portal_exit)
    entry_channels = {e.channel for e in entries}
    problems = []
    for entry in entries:
        if entry.channel not in exit_channels:
            problems.append(
                problem(
                    "L012",
                    f"{_name(entry)} has no portal exit of channel '{entry.channel}'",
                    file,
                    entry.pointer + "/channel",
                )
            )
            continue
        if entry.id in area_of:
            for portal_exit in exit_channels[entry.channel]:
                if portal_exit.id in area_of:
                    connections.append(Connection(area_of[entry.id], area_of[portal_exit.id], "portal"))
    for portal_exit in exits:
        if portal_exit.channel not in entry_channels:
            problems.append(
                problem(
                    "L013",
                    f"{_name(portal_exit)} has no portal entry of channel "
                    f"'{portal_exit.channel}'; nothing ever arrives there",
                    file,
                    portal_exit.pointer + "/channel",
                )
            )
    return problems


def _artifacts(dungeon: LineDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    stones = dungeon.elements_of("artifact_stone")
    if not stones:
        return []
    group = ruleset.switches.get("artifact_group_size", 3)
    numbers = Counter(s.number for s in stones if s.number is not None)
    problems: list[Problem] = []
    if not numbers:
        return problems  # (the schema requires a number)
    for stone in stones:
        if stone.number is not None and numbers[stone.number] > 1:
            first = next(s for s in stones if s.number == stone.number)
            if first is not stone:
                problems.append(
                    problem(
                        "L014",
                        f"{_name(stone)} repeats number {stone.number} of stone '{first.id}'",
                        file,
                        stone.pointer + "/number",
                    )
                )
    highest = max(numbers)
    missing = [n for n in range(1, highest + 1) if n not in numbers]
    if missing:
        problems.append(
            problem(
                "L014",
                f"artifact stones skip number(s) {', '.join(map(str, missing))}; number them 1..{highest} without gaps",
                file,
                "/elements",
            )
        )
    if highest % group:
        problems.append(
            problem(
                "L014",
                f"artifact stones are numbered up to {highest}, not a multiple of {group}; "
                f"stones score in groups of {group}",
                file,
                "/elements",
            )
        )
    return problems


def components_used(dungeon: LineDungeon) -> set[str]:
    """The components a line dungeon needs besides pens (RULES.md 2, Components): ``orbs``
    when it has orbs, ``keys`` when it has keys or doors, ``timer`` when an end trigger is a timer."""
    used = set()
    if dungeon.elements_of("orb"):
        used.add("orbs")
    if dungeon.elements_of("key", "skeleton_key", "door"):
        used.add("keys")
    if any(t.kind == "timer" for t in dungeon.sheet.end_triggers or []):
        used.add("timer")
    return used


def _sheet(dungeon: LineDungeon, ruleset: Ruleset, file: str) -> list[Problem]:
    sheet = dungeon.sheet
    orb_colours_known = set(ruleset.element_values("orb", "colours"))
    problems = []
    kinds = Counter(e.kind for e in dungeon.elements)
    seen_triggers: dict[tuple, str] = {}
    for trigger in sheet.end_triggers or []:
        key = (trigger.kind, trigger.colour, trigger.when)
        if key in seen_triggers:
            problems.append(
                problem(
                    "L016",
                    f"end trigger {trigger.kind} is listed twice (see {seen_triggers[key]})",
                    file,
                    trigger.pointer,
                )
            )
        seen_triggers.setdefault(key, trigger.pointer)
        target = _TRIGGER_TARGETS.get(trigger.kind)
        if target and not kinds[target]:
            problems.append(
                problem(
                    "L015",
                    f"end trigger {trigger.kind} needs {_WITH_ARTICLE[target]}, and the dungeon has none",
                    file,
                    trigger.pointer,
                )
            )
        if (
            trigger.kind == "orb_taken"
            and trigger.colour in orb_colours_known
            and not any(o.colour == trigger.colour for o in dungeon.elements_of("orb"))
        ):
            problems.append(
                problem(
                    "L015",
                    f"end trigger orb_taken names {trigger.colour} orbs, and the dungeon has none",
                    file,
                    trigger.pointer + "/colour",
                )
            )
    orb_colours = {o.colour for o in dungeon.elements_of("orb") if o.colour is not None}
    tokens = sheet.orb_tokens or {}
    for colour in sorted(orb_colours - set(tokens)):
        orb = next(o for o in dungeon.elements_of("orb") if o.colour == colour)
        problems.append(
            problem(
                "L017",
                f"{_name(orb)}: the sheet gives no token values for {colour} orbs (sheet.orb_tokens.{colour})",
                file,
                "/sheet/orb_tokens",
            )
        )
    for colour in sorted(set(tokens) - orb_colours):
        problems.append(
            problem(
                "L025",
                f"the sheet gives token values for {colour} orbs, and the dungeon has none",
                file,
                f"/sheet/orb_tokens/{colour}",
            )
        )
    used = components_used(dungeon)
    listed = set(sheet.components or [])
    for component in sorted(used - listed):
        problems.append(
            problem(
                "L023",
                f"the dungeon uses {component} but the sheet's components do not list them",
                file,
                "/sheet/components",
            )
        )
    for component in sorted(listed - used):
        problems.append(
            problem(
                "L023",
                f"the sheet lists {component} as a component, and the dungeon uses none",
                file,
                "/sheet/components",
            )
        )
    return problems


def _reachability(
    dungeon: LineDungeon,
    ruleset: Ruleset,
    geometry: LineGeometry,
    area_of: dict[str, str],
    connections: list[Connection],
    start_areas: list[str],
    file: str,
) -> list[Problem]:
    players = ruleset.data.get("players", {"min": 1, "max": 4})
    usable = {
        colour
        for colour in ruleset.key_colours
        if any(ruleset.key_supply(n) > 0 for n in range(players["min"], players["max"] + 1))
    }
    keys_in_area: dict[str, set[str]] = defaultdict(set)
    skeletons: dict[str, list[str]] = defaultdict(list)
    for key in dungeon.elements_of("key"):
        if key.id in area_of and key.colour is not None:
            keys_in_area[area_of[key.id]].add(key.colour)
    for key in dungeon.elements_of("skeleton_key"):
        if key.id in area_of:
            skeletons[area_of[key.id]].append(key.id)
    door_locks = {d.id: d.locks or [] for d in dungeon.elements_of("door")}
    reach = explore(start_areas, connections, keys_in_area, skeletons, door_locks, usable)
    problems = []
    for element in dungeon.elements:
        area_id = area_of.get(element.id)
        if area_id is not None and area_id not in reach.areas:
            problems.append(
                problem(
                    "L018",
                    f"{_name(element)} in area '{area_id}' cannot be reached from any Start "
                    f"(walls, locked doors and one-way portals block every way)",
                    file,
                    element.pointer,
                )
            )
    placed_doors = {c.door_id for c in connections if c.kind == "door"}
    known_locks = {*ruleset.key_colours, SKELETON_LOCK}
    if not reach.complete:
        return [
            problem(
                "L027",
                "the reachability search stopped at its limit (too many keys and skeleton keys "
                "to follow every choice); reachability was not checked",
                file,
                "/elements",
            )
        ]
    for door in dungeon.elements_of("door"):
        locks = door.locks or []
        # unknown colours (C004) and repeated colours (L026) are reported already
        already_reported = any(lock not in known_locks for lock in locks) or lock_needs(locks) is None
        if door.id in placed_doors and door.id not in reach.doors_opened and not already_reported:
            listed = ", ".join(locks)
            problems.append(
                problem(
                    "L019",
                    f"{_name(door)} (locks: {listed}) can never be opened: no route from a Start "
                    f"collects its keys before reaching it",
                    file,
                    door.pointer + "/locks",
                )
            )
    for area in geometry.areas:
        if area.id not in reach.areas:
            problems.append(
                problem(
                    "L020",
                    f"{describe(area.kind, area.id, area.name)} cannot be reached from any Start",
                    file,
                    area.pointer,
                )
            )
    return problems


def label_bounds(label: Element) -> tuple[float, float, float, float]:
    """Bounding box ``(x0, y0, x1, y1)`` in mm of a label's text: ``at`` is the middle of the
    baseline, ``text_height_mm`` the cap height, widths from the shipped font's metrics
    (:mod:`inkcrawl.textmetrics`), turned by ``rotation_deg`` about ``at``. A label without
    text or height has an empty box at ``at``; one without ``at`` raises ``ValueError``."""
    if label.at is None:
        raise ValueError(f"{_name(label)} has no position")
    height = label.text_height_mm or 0.0
    em = height / CAP_HEIGHT_EM
    half_width = text_width_mm(label.text or "", em) / 2
    angle = math.radians(label.rotation_deg or 0)
    cos, sin = math.cos(angle), math.sin(angle)
    x, y = label.at
    corners = [
        (x + dx * cos - dy * sin, y + dx * sin + dy * cos)
        for dx in (-half_width, half_width)
        for dy in (-height, DESCENT_EM * em)
    ]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _printability(dungeon: LineDungeon, geometry: LineGeometry, limits: dict, file: str) -> list[Problem]:
    x0, y0, x1, y1 = dungeon.sheet.paper.printable
    problems = []

    def outside(minx, miny, maxx, maxy) -> bool:
        return minx < x0 or miny < y0 or maxx > x1 or maxy > y1

    for area in dungeon.areas:
        xs = [p[0] for p in area.polygon]
        ys = [p[1] for p in area.polygon]
        if outside(min(xs), min(ys), max(xs), max(ys)):
            problems.append(
                problem(
                    "L022",
                    f"{describe(area.kind, area.id, area.name)} reaches outside the printable "
                    f"area x {x0:g}..{x1:g}, y {y0:g}..{y1:g} mm",
                    file,
                    area.pointer + "/polygon",
                )
            )
    for wall in dungeon.walls:
        xs = [p[0] for p in wall.points]
        ys = [p[1] for p in wall.points]
        if outside(min(xs), min(ys), max(xs), max(ys)):
            problems.append(
                problem(
                    "L022",
                    f"{describe('wall', wall.id)} reaches outside the printable area",
                    file,
                    wall.pointer + "/points",
                )
            )
    for element in dungeon.elements:
        if element.kind == "label":
            height = element.text_height_mm
            if height is not None and height < limits["min_text_mm"]:
                problems.append(
                    problem(
                        "L021",
                        f"{_name(element)}: text {height:g} mm high is below the printable "
                        f"minimum of {limits['min_text_mm']:g} mm",
                        file,
                        element.pointer + "/text_height_mm",
                    )
                )
            if element.at is not None and outside(*label_bounds(element)):
                problems.append(
                    problem(
                        "L022",
                        f'{_name(element)} ("{(element.text or "")[:30]}") runs outside the printable area',
                        file,
                        element.pointer + "/at",
                    )
                )
        elif element.kind == "door":
            if element.segment is None:
                continue
            (ax, ay), (bx, by) = element.segment
            if outside(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)):
                problems.append(
                    problem(
                        "L022", f"{_name(element)} lies outside the printable area", file, element.pointer + "/segment"
                    )
                )
        elif element.at is not None and element.size_mm is not None:
            if element.size_mm < limits["min_element_mm"]:
                problems.append(
                    problem(
                        "L021",
                        f"{_name(element)} is {element.size_mm:g} mm across, below the printable "
                        f"minimum of {limits['min_element_mm']:g} mm",
                        file,
                        element.pointer + "/size_mm",
                    )
                )
            r = element.radius_mm
            x, y = element.at
            if outside(x - r, y - r, x + r, y + r):
                problems.append(
                    problem("L022", f"{_name(element)} lies outside the printable area", file, element.pointer + "/at")
                )
    return problems
