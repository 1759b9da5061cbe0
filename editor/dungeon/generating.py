"""File > Generate and File > Populate without Qt: the constraints the dialog builds, the jobs
the generation worker runs, and the one undo step that populates an open layout (issue #14).

- :func:`read_constraints_file` reads a constraints file and checks it against
  ``schemas/constraints.schema.json``: every problem as ``"<JSON pointer>: <message>"``.
- :func:`merge_constraints` lays the dialog's fields over a file's constraints: a field left at
  its ruleset default keeps the file's member (or the ruleset's value, when the file has none).
- :func:`spec_problem` is the check ``inkcrawl generate --constraints`` makes before searching
  (a reversed range, say), so the dialog refuses what the command refuses, in its words.
- :func:`generate_job` and :func:`populate_job` run :mod:`inkcrawl.generate` in the editor's
  generation worker process; each returns a plain dict (``{"ok": True, ...}``, or ``{"ok":
  False, "message": ...}`` naming the constraint at fault), never raising for the user's input.
- :func:`populate_edit` turns a populated copy of the open layout into one
  :class:`~editor.dungeon.edits.Compound` edit: the elements added (and the layout's keys the
  lock puzzle replaces) and the sheet members changed; areas, walls, doors, labels and Starts are
  never touched (docs/generating.md, "Populating a line layout").
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from editor.dungeon.edits import AddObjects, ChangeSheet, Compound, DeleteObjects, Edit, EditError
from inkcrawl.model import Dungeon, dungeon_from_dict
from inkcrawl.papers import paper_name
from inkcrawl.rulesets import Ruleset

#: Line element kinds the dialog offers a count for (docs/generating.md, ``line.elements``).
LINE_FIELD_KINDS = ("monster", "plant", "treasure", "orb", "boss")
#: Grid feature counts the dialog offers (``grid.features``: the unlettered kinds and ``pairs``).
GRID_FIELD_KINDS = ("loot", "dragon", "pairs")
#: Line layout members the dialog offers as a count or a range (``line.corridors``: generate
#: only; ``line.starts``: generate and populate).
LINE_RANGE_FIELDS = ("corridors", "starts")


def paper_label(name: str) -> str:
    """The printed name of the paper ``name`` (a key of :data:`inkcrawl.papers.PAPER_SIZES`):
    ``"A4"``, ``"Letter"``. Raises ``KeyError`` for a name not there."""
    from inkcrawl.generate.constraints import paper_sheet

    return paper_sheet(name).label


def default_paper(papers: list[tuple[float, float]]) -> str | None:
    """The paper the Generate dialog starts at: the name (:func:`inkcrawl.papers.paper_name`) of the first of
    ``papers`` (``(width_mm, height_mm)`` of the current dungeon's sheet, then the open pack's)
    that has one; ``None`` when none has (the dialog then starts at A4, the generator's default)."""
    for width, height in papers:
        name = paper_name(width, height)
        if name is not None:
            return name
    return None


def _count(value: Any) -> int | list[int]:
    """A field's count or ``(low, high)`` range as the schema's ``count``: a range whose ends
    are equal is that count; the ends stay as typed (a reversed range is refused by
    :func:`spec_problem`, as ``inkcrawl generate`` refuses it, never silently put in order)."""
    if isinstance(value, (tuple, list)):
        low, high = (int(v) for v in value)
        return low if low == high else [low, high]
    return int(value)


def spec_problem(family: str, constraints: dict, ruleset: Ruleset) -> str:
    """The explanation ``inkcrawl generate --constraints`` (and ``inkcrawl populate``) gives
    before any search for the schema-valid ``constraints`` of ``family`` with the ruleset object
    ``ruleset``, or ``""`` when they are accepted: the same check
    (:func:`inkcrawl.generate.grid_spec` with the grid's counting checks,
    :func:`~inkcrawl.generate.check_grid_spec`, or :func:`~inkcrawl.generate.line_spec`), so the dialog
    refuses what the command refuses, in its words, the constraint named (a range whose low end
    is above its high end, say). Milliseconds; never raises for the user's input. RULES.md 1
    and 2; docs/generating.md."""
    from inkcrawl.generate import GenerateError, check_grid_spec, grid_spec, line_spec

    try:
        if family == "grid":
            check_grid_spec(grid_spec(constraints, ruleset))  # and the grid's counting checks
        else:
            line_spec(constraints, ruleset)
    except GenerateError as exc:
        return str(exc)
    return ""


def read_constraints_file(path: Path) -> tuple[dict | None, list[str]]:
    """Read the constraints file ``path`` (docs/generating.md) and check it: its ``type`` must be
    ``"constraints"`` and it must pass ``schemas/constraints.schema.json``. Returns ``(data,
    [])`` or ``(None, problems)``, each problem ``"<JSON pointer>: <message>"`` (``/`` for the
    whole file: unreadable, not JSON). Never raises."""
    from inkcrawl.jsonio import read_json_file
    from inkcrawl.schema import schema_problems

    data, problems = read_json_file(Path(path))
    if problems:
        return None, [f"{p.pointer or '/'}: {p.message}" for p in problems]
    if not isinstance(data, dict) or data.get("type") != "constraints":
        return None, ['/type: not a constraints file (its "type" is not "constraints"; see docs/generating.md)']
    try:
        problems = schema_problems(data, "constraints", str(path))
    except ValueError as exc:  # never for parsed JSON; said plainly all the same
        return None, [f"/: {exc}"]
    if problems:
        return None, [f"{p.pointer or '/'}: {p.message}" for p in problems]
    return data, []


def merge_constraints(
    base: dict | None, family: str, ruleset_id: str, fields: dict[str, Any], populate: bool = False
) -> dict:
    """The constraints document to generate (or populate) with: ``base`` (a schema-valid
    constraints file, or ``None``) for ``family`` with ``ruleset`` set to ``ruleset_id`` and the
    dialog's ``fields`` laid over its ``family`` section. ``base`` is not changed.

    ``fields`` (every member optional; ``None`` keeps the file's or the ruleset's value):
    grid: ``columns``, ``rows``, ``entryways``, ``loot``, ``dragon``, ``pairs`` (counts),
    ``mean_score`` (``(low, high)`` VP); line: ``rooms``, ``locked_doors``, ``corridors``
    (a count or ``(low, high)``) and ``paper`` (a key of :data:`inkcrawl.papers.PAPER_SIZES`),
    all generate only (left out with ``populate``), ``starts`` (a count or ``(low, high)``),
    a count per kind of :data:`LINE_FIELD_KINDS` and ``par`` (``(low, high)`` VP). A range
    whose ends are equal is written as that count; the ends are written as given (a reversed
    range is :func:`spec_problem`'s to refuse). Raises ``ValueError`` when ``base`` is for
    the other family. RULES.md 1 and 2; docs/generating.md."""
    out: dict[str, Any] = (
        copy.deepcopy(base) if base is not None else {"type": "constraints", "format_version": 1, "family": family}
    )
    if out.get("family") != family:
        raise ValueError(f"the constraints file is for the {out.get('family')} family, not {family}")
    out["ruleset"] = ruleset_id
    section: dict[str, Any] = out.setdefault(family, {})
    given = {k: v for k, v in fields.items() if v is not None}
    if family == "grid":
        for member in ("columns", "rows", "entryways"):
            if member in given:
                section[member] = int(given[member])
        features = {k: int(given[k]) for k in GRID_FIELD_KINDS if k in given}
        if features:
            section["features"] = {**section.get("features", {}), **features}
        if "mean_score" in given:
            low, high = given["mean_score"]
            section["difficulty"] = {**section.get("difficulty", {}), "mean_score": [float(low), float(high)]}
    else:
        if not populate:
            for member in ("rooms", "locked_doors"):
                if member in given:
                    section[member] = int(given[member])
            if "paper" in given:
                section["paper"] = str(given["paper"])
        for member in LINE_RANGE_FIELDS:
            if member in given and (member == "starts" or not populate):
                section[member] = _count(given[member])
        elements = {k: int(given[k]) for k in LINE_FIELD_KINDS if k in given}
        if elements:
            section["elements"] = {**section.get("elements", {}), **elements}
        if "par" in given:
            low, high = given["par"]
            section["difficulty"] = {**section.get("difficulty", {}), "par": [float(low), float(high)]}
    if not section:
        del out[family]
    return out


def _failure(exc: BaseException) -> dict:
    return {"ok": False, "message": str(exc), "constraint": getattr(exc, "constraint", "")}


def generate_job(family: str, ruleset: Ruleset, constraints: dict, seed: int, time_limit: float) -> dict:
    """Generate one dungeon (run in the generation worker): ``inkcrawl generate --family
    <family> --seed <seed>`` with ``constraints`` (schema-valid; see :func:`merge_constraints`)
    and the ruleset object ``ruleset`` (bundled, or the open pack's), searching at most
    ``time_limit`` seconds. Returns ``{"ok": True, "data": <dungeon document>, "note": <what
    was made>}`` or ``{"ok": False, "message": <the generator's explanation>, "constraint":
    <dotted path>}`` (an infeasible spec, or a generator bug). RULES.md 1 and 2."""
    from inkcrawl.generate import DEFAULT_TIME_LIMIT, GenerateError, GeneratorBug, generate_grid, grid_spec, line_spec
    from inkcrawl.generate.line import generate_line

    limit = time_limit or DEFAULT_TIME_LIMIT
    try:
        if family == "grid":
            # no measure helper: this runs in the editor's generation worker, a daemonic pool
            # worker, which may not start processes (inkcrawl.generate.measure.measure_helper)
            result = generate_grid(grid_spec(constraints, ruleset), seed, time_limit=limit)
            note = f"{len(result.data['passages'])} passages ({result.density:.0%} of inner edges)"
            if result.mean_score is not None:
                note += f", mean score {result.mean_score:.2f} VP"
            return {"ok": True, "data": result.data, "note": note}
        line = generate_line(line_spec(constraints, ruleset), seed, time_limit=limit)
        doors = f"{line.doors} locked door{'' if line.doors == 1 else 's'}"
        note = f"{line.rooms} rooms, {line.corridors} corridors, {doors}, par {line.populated.par} VP"
        if line.populated.timer_note():
            note += f"; {line.populated.timer_note()}"
        return {"ok": True, "data": line.data, "note": note}
    except (GenerateError, GeneratorBug) as exc:
        return _failure(exc)


def populate_job(
    data: dict, ruleset: Ruleset, constraints: dict | None, seed: int, time_limit: float, file: str
) -> dict:
    """Populate the line dungeon document ``data`` (run in the generation worker): ``inkcrawl
    populate`` with ``constraints`` and ``seed``. Returns ``{"ok": True, "data": <populated
    document>, "note": ..., "notes": [...]}`` or ``{"ok": False, "message": ...}`` (a layout
    whose structure is broken, an infeasible spec, a generator bug). RULES.md 2."""
    from inkcrawl.generate import DEFAULT_TIME_LIMIT, GenerateError, GeneratorBug, line_spec
    from inkcrawl.generate.populate import populate_line
    from inkcrawl.validate import RulesetRegistry, check_dungeon_data

    registry = RulesetRegistry([ruleset])
    problems, dungeon = check_dungeon_data(data, file, registry)
    if dungeon is None or any(p.code == "S002" for p in problems):
        first = next((p for p in problems if p.severity == "error"), problems[0])
        return {
            "ok": False,
            "message": f"the layout's structure is broken ({first.code} {first.message}); "
            "fix the problems listed first",
            "constraint": "",
        }
    try:
        spec = line_spec(constraints, ruleset)
        result = populate_line(data, spec, seed, time_limit or DEFAULT_TIME_LIMIT, file, registry)
    except (GenerateError, GeneratorBug) as exc:
        return _failure(exc)
    added = len(result.data["elements"]) - len(data["elements"])
    note = f"{added:+d} elements, par {result.par} VP, keys {result.depth} deep"
    if result.timer_note():
        note += f"; {result.timer_note()}"
    return {"ok": True, "data": result.data, "note": note, "notes": list(result.notes)}


def populate_edit(dungeon: Dungeon, populated: dict) -> Edit:
    """The one undo step that makes ``dungeon`` (a line dungeon's model) equal to ``populated``
    (its document as :func:`populate_job` returned it): the elements ``populated`` lacks (the
    layout's keys the lock puzzle replaces) deleted, its new elements added after the others,
    and the sheet members it changed (components, end triggers, orb tokens...) set. Raises
    :class:`~editor.dungeon.edits.EditError` when ``populated`` changes anything else (an area,
    a wall, an element kept) or the edit would not give exactly ``populated``: nothing is then
    changed."""
    target = dungeon_from_dict(populated)
    if target.family != dungeon.family or target.id != dungeon.id:
        raise EditError("the populated dungeon is not the open one")
    old = dungeon.to_dict()
    for member in ("areas", "walls"):
        if old.get(member) != populated.get(member):
            raise EditError(f"populate changed the layout's {member}; nothing was changed")
    new_by_id = {e["id"]: e for e in populated["elements"]}
    old_ids = [e["id"] for e in old["elements"]]
    gone = [i for i in old_ids if i not in new_by_id]
    changed = [e["id"] for e in old["elements"] if e["id"] in new_by_id and new_by_id[e["id"]] != e]
    if changed:
        raise EditError(f"populate changed the element '{changed[0]}' of the layout; nothing was changed")
    kept = set(old_ids)
    added: list[tuple[str, int | None, Any]] = [
        ("elements", None, element)
        for element in target.elements  # type: ignore[attr-defined]
        if element.id not in kept
    ]
    edits: list[Edit] = []
    if gone:
        edits.append(DeleteObjects(dungeon, [f"{i}" for i in gone], "Replace keys"))
    if added:
        edits.append(AddObjects(added, "Add elements"))
    new_sheet = populated["sheet"]
    for member in ChangeSheet.SHEET_MEMBERS:
        if old["sheet"].get(member) != new_sheet.get(member):
            edits.append(ChangeSheet(dungeon, member, getattr(target.sheet, member)))
    edit = Compound(edits, "Populate")
    trial = copy.deepcopy(dungeon)
    edit.redo(trial)
    if trial.to_dict() != populated:
        raise EditError("the populated dungeon differs from the open one in more than its content; nothing was changed")
    return edit


__all__ = [
    "GRID_FIELD_KINDS",
    "LINE_FIELD_KINDS",
    "LINE_RANGE_FIELDS",
    "default_paper",
    "generate_job",
    "merge_constraints",
    "paper_label",
    "populate_edit",
    "populate_job",
    "read_constraints_file",
    "spec_problem",
]
