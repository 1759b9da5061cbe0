"""Edits of a dungeon model, without Qt: one class per kind of edit, each undoable exactly.

The editor's undo stack wraps these (``editor.dungeon.document.EditCommand``); keeping them Qt-free
means the model, the edits and their undo can be tested and fuzzed without a display
(DESIGN.md "Editor": one undo command class per kind of edit, drags merge into one command).

Objects are addressed by *reference* strings, never by list position: an object's ``id``, or
for a grid passage (which has no id) ``passage:COL,ROW,SIDE`` of its canonical edge
(:func:`passage_ref`). Objects that share an id (a file ``validate`` reports with C001) each get
an editor key instead (``ID#N``, :func:`key_shared_ids`): kept on the object while it is edited,
never saved, so every edit acts on the right one and saving writes both back unchanged.
Every edit remembers what it needs to restore the model exactly:
``undo`` after ``redo`` gives a model whose canonical JSON is byte-identical to the original.

Errors: constructing an edit for a reference that does not exist raises :class:`EditError`.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inkcrawl.model import (
    Area,
    Dungeon,
    Element,
    Entryway,
    Feature,
    GridDungeon,
    GridSpec,
    LineDungeon,
    Passage,
    Point,
    Wall,
    edge_key,
)

#: The lists of a dungeon that hold editable objects, by family.
COLLECTIONS = {"grid": ("passages", "entryways", "features"), "line": ("areas", "walls", "elements")}


class EditError(ValueError):
    """An edit that cannot be made (unknown object, value of the wrong kind...)."""


def passage_ref(cell: Sequence[int], side: str) -> str:
    """The reference of the passage on ``side`` of room ``cell``; both rooms of an edge give the same one."""
    return _passage_ref(int(cell[0]), int(cell[1]), side)


@functools.lru_cache(maxsize=1 << 16)
def _passage_ref(column: int, row: int, side: str) -> str:
    # cached: a 100 x 100 grid has some 20,000 edges, and every edit looks objects up by reference
    (col, row), canonical_side = edge_key((column, row), side)
    return f"passage:{col},{row},{canonical_side}"


def _edge_cells(ref: str) -> set[tuple[int, int]]:
    """The two rooms of the edge a passage reference names (a passage lists either)."""
    column, row, side = ref[len("passage:") :].split(",")
    c, r = int(column), int(row)
    return {(c, r), (c + 1, r) if side == "east" else (c, r + 1)}


def passages_on(dungeon: GridDungeon, ref: str) -> list[tuple[int, Passage]]:
    """``(index, passage)`` of the passages of ``dungeon`` on the edge of passage reference
    ``ref`` (:func:`passage_ref`), in file order: one, none, or more when the edge is listed
    twice (G015). Only the passages of the edge's two rooms have their reference computed (a
    100 x 100 grid has some 10,000 passages)."""
    cells = _edge_cells(ref)
    passages = dungeon.passages
    try:  # cells are tuples in the model: compared as they are, the quickest
        near = [i for i, p in enumerate(passages) if p.cell in cells]
    except TypeError:  # a cell given as a list
        near = [i for i, p in enumerate(passages) if tuple(p.cell) in cells]
    return [(i, passages[i]) for i in near if ref_of(passages[i]) == ref]


def objects_for(dungeon: Dungeon, refs: Iterable[str]) -> tuple[dict[str, Any], bool]:
    """The objects of ``refs`` that exist (``ref -> object``), found without computing every
    object's reference, and whether one of them is shared by two objects."""
    found, shared = locate(dungeon, refs)
    return {ref: obj for ref, (_, _, obj) in found.items()}, shared


def locate(dungeon: Dungeon, refs: Iterable[str]) -> tuple[dict[str, tuple[str, int, Any]], bool]:
    """``ref -> (collection, index, object)`` for the objects of ``refs`` that exist, in one pass
    over the dungeon that computes the reference of a passage only on the edges asked for (a
    100 x 100 grid has some 20,000), and whether one of them is shared by two objects."""
    wanted = set(refs)
    cells: set[tuple[int, int]] = set()
    for ref in wanted:
        if ref.startswith("passage:"):
            try:
                cells |= _edge_cells(ref)
            except ValueError:
                continue
    found: dict[str, tuple[str, int, Any]] = {}
    shared = False
    keyed = bool(dungeon.__dict__.get(KEYED_MARK))
    for name in COLLECTIONS[dungeon.family]:
        items = getattr(dungeon, name)
        if name == "passages":
            if not cells:
                continue
            try:  # cells are tuples in the model: compared as they are, the quickest
                hits = [(i, ref_of(obj)) for i, obj in enumerate(items) if obj.cell in cells]
            except TypeError:  # a cell given as a list
                hits = [(i, ref_of(obj)) for i, obj in enumerate(items) if tuple(obj.cell) in cells]
        elif keyed:
            hits = [(i, obj.__dict__.get(KEY_ATTRIBUTE) or obj.id) for i, obj in enumerate(items)]
        else:  # no object of this dungeon was ever keyed: its id is its reference
            hits = [(i, obj.id) for i, obj in enumerate(items) if obj.id in wanted]
        for i, ref in hits:
            if ref in wanted:
                shared = shared or ref in found
                found[ref] = (name, i, items[i])
    return found, shared


#: The attribute holding the editor's key of an object whose id another object shares: set by
#: :func:`key_shared_ids`, read by :func:`ref_of`, never written to a file (``to_dict`` lists the
#: format's members only).
KEY_ATTRIBUTE = "editor_key"
#: Set on a dungeon (an instance attribute, never saved) once one of its objects got an editor key:
#: lookups of dungeons without it read ids alone, the quickest way through thousands of objects.
KEYED_MARK = "editor_keyed"


def ref_of(obj: Any) -> str:
    """The reference of a model object: its editor key when its id is shared
    (:func:`key_shared_ids`), else its id, or :func:`passage_ref` for a grid passage."""
    if type(obj) is Passage:
        return passage_ref(obj.cell, obj.side)
    return obj.__dict__.get(KEY_ATTRIBUTE) or obj.id


def key_shared_ids(dungeon: Dungeon) -> list[str]:
    """Give every object whose id another object of ``dungeon`` also has an editor key
    ``ID#N`` (N counting the objects with that id in file order, from 1; a key some object
    already uses as its id is skipped), so each is addressed on its own while ids collide.
    Objects keyed earlier keep their key. Returns the keys given. Keys are not saved: the file
    keeps its ids, and ``validate`` reports them (C001) until they are renumbered."""
    counts: dict[str, int] = {}
    for _, _, obj in objects(dungeon):
        if not isinstance(obj, Passage):
            counts[obj.id] = counts.get(obj.id, 0) + 1
    shared = {value for value, count in counts.items() if count > 1}
    if not shared:
        return []
    used = {ref_of(obj) for _, _, obj in objects(dungeon)} | set(counts)
    given: list[str] = []
    numbers: dict[str, int] = {}
    for _, _, obj in objects(dungeon):
        if isinstance(obj, Passage) or obj.id not in shared or obj.__dict__.get(KEY_ATTRIBUTE):
            continue
        n = numbers.get(obj.id, 0)
        while True:
            n += 1
            key = f"{obj.id}#{n}"
            if key not in used:
                break
        numbers[obj.id] = n
        used.add(key)
        setattr(obj, KEY_ATTRIBUTE, key)
        given.append(key)
    setattr(dungeon, KEYED_MARK, True)
    return given


def without_key(obj: Any) -> Any:
    """``obj`` without an editor key (a copy pasted or duplicated is a new object); returns it."""
    obj.__dict__.pop(KEY_ATTRIBUTE, None)
    return obj


def collection_of(obj: Any) -> str:
    """The name of the dungeon list an object belongs in (``areas``, ``features``...)."""
    for cls, name in (
        (Area, "areas"),
        (Wall, "walls"),
        (Element, "elements"),
        (Passage, "passages"),
        (Entryway, "entryways"),
        (Feature, "features"),
    ):
        if isinstance(obj, cls):
            return name
    raise EditError(f"{type(obj).__name__} is not an object of a dungeon")


def objects(dungeon: Dungeon) -> Iterable[tuple[str, int, Any]]:
    """Every editable object as ``(collection, index, object)``, in file order."""
    for name in COLLECTIONS[dungeon.family]:
        for index, obj in enumerate(getattr(dungeon, name)):
            yield name, index, obj


def find(dungeon: Dungeon, ref: str) -> tuple[str, int, Any]:
    """``(collection, index, object)`` of the object with reference ``ref``; raises :class:`EditError`."""
    for name, index, obj in objects(dungeon):
        if ref_of(obj) == ref:
            return name, index, obj
    raise EditError(f"no object '{ref}' in dungeon '{dungeon.id}'")


def index_by_ref(dungeon: Dungeon) -> dict[str, tuple[str, int, Any]]:
    """Every object by reference: ``ref -> (collection, index, object)``."""
    return {ref_of(obj): (name, index, obj) for name, index, obj in objects(dungeon)}


def new_id(dungeon: Dungeon, prefix: str, taken: set[str] | None = None) -> str:
    """An id ``PREFIX-N`` not used in ``dungeon`` (as an id or an editor key, nor in ``taken``),
    N counting from 1."""
    used = {ref_of(obj) for _, _, obj in objects(dungeon)} | (taken or set())
    used |= {obj.id for _, _, obj in objects(dungeon) if not isinstance(obj, Passage)}
    n = 1
    while f"{prefix}-{n}" in used:
        n += 1
    return f"{prefix}-{n}"


class Edit:
    """One undoable change of a dungeon model.

    ``redo(dungeon)`` makes the change, ``undo(dungeon)`` restores the model exactly.
    ``refs`` are the references of the objects touched (for views to refresh); ``text`` is what
    the undo history shows. An edit with a ``merge_key`` absorbs the next edit with the same
    key (a drag or a run of typing is one undo step).
    """

    text = "Edit"
    merge_key: str | None = None

    def redo(self, dungeon: Dungeon) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def undo(self, dungeon: Dungeon) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def refs(self) -> set[str]:
        """References of the objects this edit touches."""
        return set()

    def merge(self, other: Edit) -> bool:
        """Absorb ``other`` (already applied after this one); ``False`` if it cannot."""
        return False


@dataclass
class AddObjects(Edit):
    """Insert objects into their lists (at ``index``, or at the end when ``None``)."""

    items: list[tuple[str, int | None, Any]]
    text: str = "Add"
    _placed: list[tuple[str, int]] = field(default_factory=list, repr=False)

    def redo(self, dungeon: Dungeon) -> None:
        self._placed = []
        for name, index, obj in self.items:
            target = getattr(dungeon, name)
            position = len(target) if index is None else index
            target.insert(position, copy.deepcopy(obj))
            self._placed.append((name, position))

    def undo(self, dungeon: Dungeon) -> None:
        for name, position in reversed(self._placed):
            del getattr(dungeon, name)[position]

    @property
    def refs(self) -> set[str]:
        return {ref_of(obj) for _, _, obj in self.items}


class DeleteObjects(Edit):
    """Remove objects by reference; undo puts each back at its old position."""

    def __init__(
        self,
        dungeon: Dungeon,
        refs: Iterable[str],
        text: str = "Delete",
        located: dict[str, tuple[str, int, Any]] | None = None,
    ):
        """``located`` may give what :func:`locate` answers for ``refs`` on ``dungeon`` as it is
        now (the window has it from the selection): no second pass over the dungeon then.
        Raises :class:`EditError` for a reference of no object."""
        wanted = list(dict.fromkeys(refs))
        if located is None or any(ref not in located for ref in wanted):
            located, _ = locate(dungeon, wanted)  # one pass, however many are deleted
        missing = [ref for ref in wanted if ref not in located]
        if missing:
            raise EditError(f"no object '{missing[0]}' in dungeon '{dungeon.id}'")
        found = [located[ref] for ref in wanted]
        # Remember positions in ascending order so undo can re-insert them in that order.
        self.removed = sorted(
            ((name, index, copy.deepcopy(obj)) for name, index, obj in found), key=lambda item: (item[0], item[1])
        )
        self.text = text

    @classmethod
    def at_positions(
        cls, dungeon: Dungeon, positions: Iterable[tuple[str, int]], text: str = "Delete"
    ) -> DeleteObjects:
        """Remove the objects at ``(collection, index)`` positions: for objects that share a
        reference, such as the same grid edge listed twice as a passage. Raises
        :class:`EditError` for a position that does not exist."""
        edit = cls.__new__(cls)
        removed = []
        for name, index in dict.fromkeys(positions):
            items = getattr(dungeon, name, None)
            if name not in COLLECTIONS[dungeon.family] or not 0 <= index < len(items):
                raise EditError(f"no object at /{name}/{index}")
            removed.append((name, index, copy.deepcopy(items[index])))
        edit.removed = sorted(removed, key=lambda item: (item[0], item[1]))
        edit.text = text
        return edit

    def redo(self, dungeon: Dungeon) -> None:
        for name, index, _ in reversed(self.removed):
            del getattr(dungeon, name)[index]

    def undo(self, dungeon: Dungeon) -> None:
        for name, index, obj in self.removed:
            getattr(dungeon, name).insert(index, copy.deepcopy(obj))

    @property
    def refs(self) -> set[str]:
        return {ref_of(obj) for _, _, obj in self.removed}


class ChangeProperties(Edit):
    """Set attributes of objects: ``changes`` is a list of ``(ref, attribute, new value)``.

    The generic "change value" command (as in Tiled): the inspector, renumbering and
    quick-fixes use it. With a ``merge_key``, successive changes of the same attributes merge
    (typing a name is one undo step).
    """

    def __init__(
        self,
        dungeon: Dungeon,
        changes: Iterable[tuple[str, str, Any]],
        text: str = "Change",
        merge_key: str | None = None,
    ):
        self.changes = []
        #: references that are editor keys: they stay the same when the object's id changes
        self.keyed: set[str] = set()
        changes = list(changes)
        located = locate(dungeon, [ref for ref, _, _ in changes])[0]
        for ref, attribute, value in changes:
            if ref not in located:
                raise EditError(f"no object '{ref}' in dungeon '{dungeon.id}'")
            _, _, obj = located[ref]
            if not hasattr(obj, attribute) or attribute in ("pointer", KEY_ATTRIBUTE):
                raise EditError(f"{ref} has no property '{attribute}'")
            if obj.__dict__.get(KEY_ATTRIBUTE):
                self.keyed.add(ref)
            self.changes.append((ref, attribute, copy.deepcopy(getattr(obj, attribute)), copy.deepcopy(value)))
        self.text = text
        self.merge_key = merge_key

    def _apply(self, dungeon: Dungeon, new: bool) -> None:
        # only the objects changed are looked up (every object, at each keystroke, lagged)
        wanted = {ref for ref, _, _, _ in self.changes}
        wanted |= {value for _, attribute, _, value in self.changes if attribute == "id" and isinstance(value, str)}
        index = locate(dungeon, wanted)[0]
        for ref, attribute, old, value in self.changes if new else reversed(self.changes):
            # undoing an id change finds the object under the id it was given (a keyed object
            # keeps its key as its reference)
            key = value if (attribute == "id" and not new and ref not in self.keyed) else ref
            setattr(index[key][2], attribute, copy.deepcopy(value if new else old))
            if attribute == "id":  # the object's reference changes with its id
                index = locate(dungeon, wanted)[0]

    def redo(self, dungeon: Dungeon) -> None:
        self._apply(dungeon, True)

    def undo(self, dungeon: Dungeon) -> None:
        self._apply(dungeon, False)

    @property
    def refs(self) -> set[str]:
        out = {ref for ref, _, _, _ in self.changes}
        out |= {value for ref, attribute, _, value in self.changes if attribute == "id" and ref not in self.keyed}
        return out

    def merge(self, other: Edit) -> bool:
        if not isinstance(other, ChangeProperties) or self.merge_key is None or other.merge_key != self.merge_key:
            return False
        if [(r, a) for r, a, _, _ in self.changes] != [(r, a) for r, a, _, _ in other.changes]:
            return False
        self.changes = [(r, a, old, new) for (r, a, old, _), (_, _, _, new) in zip(self.changes, other.changes)]
        return True


def _translate_point(p: Point, dx: float, dy: float) -> Point:
    return (round(p[0] + dx, 3), round(p[1] + dy, 3))


def translate_onto(target: Any, source: Any, dx: float, dy: float) -> None:
    """Give ``target`` the geometry of ``source`` moved by ``(dx, dy)``: mm for line objects
    (areas, walls, element centres and door segments, rounded to 0.001 mm), whole cells for
    grid features and entryways. ``target`` and ``source`` may be the same object."""
    if isinstance(source, Area):
        target.polygon = [_translate_point(p, dx, dy) for p in source.polygon]
    elif isinstance(source, Wall):
        target.points = [_translate_point(p, dx, dy) for p in source.points]
    elif isinstance(source, Element):
        if source.at is not None:
            target.at = _translate_point(source.at, dx, dy)
        if source.segment is not None:
            target.segment = tuple(_translate_point(p, dx, dy) for p in source.segment)
    elif isinstance(source, (Feature, Entryway)):
        target.cell = (source.cell[0] + int(dx), source.cell[1] + int(dy))


class _TransformsOriginals(Edit):
    """Base of edits that recompute objects from copies kept in ``originals`` (ref -> object):
    undo puts the copies back, so it is exact whatever the transform rounded."""

    originals: dict[str, Any]

    def undo(self, dungeon: Dungeon) -> None:
        index = locate(dungeon, self.originals)[0]
        for ref, original in self.originals.items():
            name, position, _ = index[ref]
            getattr(dungeon, name)[position] = copy.deepcopy(original)

    @property
    def refs(self) -> set[str]:
        return set(self.originals)


class MoveObjects(_TransformsOriginals):
    """Move objects of a line dungeon by ``(dx, dy)`` mm, or grid features and entryways by
    whole cells. Edits with the same ``merge_key`` (one drag) merge into one step whose
    offset is the total; undo restores the exact original geometry."""

    def __init__(
        self,
        dungeon: Dungeon,
        refs: Iterable[str],
        dx: float,
        dy: float,
        text: str = "Move",
        merge_key: str | None = None,
        joined: dict[str, list[int]] | None = None,
    ):
        self.originals = {}
        #: areas of which only some vertices move (corridor joins on a moved room's outline)
        self.joined = {ref: sorted(indices) for ref, indices in (joined or {}).items()}
        for ref in dict.fromkeys([*refs, *self.joined]):
            _, _, obj = find(dungeon, ref)
            if isinstance(obj, Passage):
                raise EditError("a passage stays on its edge: toggle edges instead of moving them")
            self.originals[ref] = copy.deepcopy(obj)
        self.dx, self.dy = dx, dy
        self.text = text
        self.merge_key = merge_key

    def _place(self, dungeon: Dungeon, dx: float, dy: float) -> None:
        index = locate(dungeon, self.originals)[0]
        for ref, original in self.originals.items():
            vertices = self.joined.get(ref)
            if vertices is not None:
                index[ref][2].polygon = [
                    _translate_point(p, dx, dy) if i in vertices else p for i, p in enumerate(original.polygon)
                ]
            else:
                translate_onto(index[ref][2], original, dx, dy)

    def redo(self, dungeon: Dungeon) -> None:
        self._place(dungeon, self.dx, self.dy)

    def merge(self, other: Edit) -> bool:
        if not isinstance(other, MoveObjects) or self.merge_key is None or other.merge_key != self.merge_key:
            return False
        if set(other.originals) != set(self.originals) or other.joined != self.joined:
            return False
        self.dx += other.dx
        self.dy += other.dy
        return True


def _rotate_point(p: Point, centre: Point, angle_deg: float) -> Point:
    a = math.radians(angle_deg)
    dx, dy = p[0] - centre[0], p[1] - centre[1]
    # y points down on the sheet, so a positive angle turns clockwise on the page
    return (
        round(centre[0] + dx * math.cos(a) - dy * math.sin(a), 3),
        round(centre[1] + dx * math.sin(a) + dy * math.cos(a), 3),
    )


def _normal_angle(value: float) -> float:
    angle = round(value % 360, 3)
    return 0 if angle == 360 else (int(angle) if angle == int(angle) else angle)


class RotateObjects(_TransformsOriginals):
    """Turn line-family objects by ``angle_deg`` (clockwise on the page) about ``centre``
    (mm; default the centre of their bounding box): area outlines, walls and door segments
    turn about it, elements move about it and their ``rotation_deg`` grows by the angle.
    Grid objects do not rotate (raises :class:`EditError`)."""

    def __init__(
        self,
        dungeon: Dungeon,
        refs: Iterable[str],
        angle_deg: float,
        centre: Point | None = None,
        text: str | None = None,
    ):
        self.originals = {}
        points: list[Point] = []
        for ref in dict.fromkeys(refs):
            _, _, obj = find(dungeon, ref)
            if not isinstance(obj, (Area, Wall, Element)):
                raise EditError("grid rooms, passages and features keep their orientation")
            self.originals[ref] = copy.deepcopy(obj)
            points += list(getattr(obj, "polygon", None) or getattr(obj, "points", None) or [])
            if isinstance(obj, Element):
                points += [obj.at] if obj.at is not None else list(obj.segment or [])
        if not points:
            raise EditError("nothing to rotate")
        if centre is None:
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            centre = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
        self.centre = centre
        self.angle = angle_deg
        self.text = text or f"Rotate {angle_deg:g}°"

    def redo(self, dungeon: Dungeon) -> None:
        index = locate(dungeon, self.originals)[0]
        c, angle = self.centre, self.angle
        for ref, original in self.originals.items():
            obj = index[ref][2]
            if isinstance(obj, Area):
                obj.polygon = [_rotate_point(p, c, angle) for p in original.polygon]
            elif isinstance(obj, Wall):
                obj.points = [_rotate_point(p, c, angle) for p in original.points]
            else:
                if original.at is not None:
                    obj.at = _rotate_point(original.at, c, angle)
                if original.segment is not None:
                    obj.segment = tuple(_rotate_point(p, c, angle) for p in original.segment)
                if original.rotation_deg is not None:
                    obj.rotation_deg = _normal_angle(original.rotation_deg + angle)


class EditShape(Edit):
    """Replace the outline of an area (``polygon``) or the points of a wall, or a door's
    ``segment``: vertex moves, insertions and removals. Merges within one drag."""

    def __init__(
        self,
        dungeon: Dungeon,
        ref: str,
        points: Sequence[Point],
        text: str = "Edit shape",
        merge_key: str | None = None,
    ):
        _, _, obj = find(dungeon, ref)
        self.attribute = {Area: "polygon", Wall: "points"}.get(type(obj))
        if self.attribute is None:
            if isinstance(obj, Element) and obj.segment is not None:
                self.attribute = "segment"
            else:
                raise EditError(f"{ref} has no outline to edit")
        self.ref = ref
        old = getattr(obj, self.attribute)
        self.old = copy.deepcopy(old)
        new = [(round(float(x), 3), round(float(y), 3)) for x, y in points]
        self.new = tuple(new) if self.attribute == "segment" else new
        if self.attribute == "segment" and len(self.new) != 2:
            raise EditError("a door's segment has exactly two points")
        self.text = text
        self.merge_key = merge_key

    def redo(self, dungeon: Dungeon) -> None:
        setattr(find(dungeon, self.ref)[2], self.attribute, copy.deepcopy(self.new))

    def undo(self, dungeon: Dungeon) -> None:
        setattr(find(dungeon, self.ref)[2], self.attribute, copy.deepcopy(self.old))

    @property
    def refs(self) -> set[str]:
        return {self.ref}

    def merge(self, other: Edit) -> bool:
        if (
            not isinstance(other, EditShape)
            or self.merge_key is None
            or other.merge_key != self.merge_key
            or other.ref != self.ref
        ):
            return False
        self.new = other.new
        return True


class ChangeSheet(Edit):
    """Set a member of the dungeon's sheet data (``title``, ``reminders``, ``components``,
    ``end_triggers``, ``orb_tokens``, ``paper``) or of the dungeon itself (``id``, ``ruleset``)."""

    SHEET_MEMBERS = ("title", "reminders", "components", "end_triggers", "orb_tokens", "paper")
    DUNGEON_MEMBERS = ("id", "ruleset")

    def __init__(
        self, dungeon: Dungeon, member: str, value: Any, text: str | None = None, merge_key: str | None = None
    ):
        if member in self.SHEET_MEMBERS:
            self.owner = "sheet"
            old = getattr(dungeon.sheet, member)
        elif member in self.DUNGEON_MEMBERS:
            self.owner = "dungeon"
            old = getattr(dungeon, member)
        else:
            raise EditError(f"the sheet has no member '{member}'")
        self.member = member
        self.old = copy.deepcopy(old)
        self.new = copy.deepcopy(value)
        self.text = text or f"Change {member.replace('_', ' ')}"
        self.merge_key = merge_key

    def _target(self, dungeon: Dungeon) -> Any:
        return dungeon.sheet if self.owner == "sheet" else dungeon

    def redo(self, dungeon: Dungeon) -> None:
        setattr(self._target(dungeon), self.member, copy.deepcopy(self.new))

    def undo(self, dungeon: Dungeon) -> None:
        setattr(self._target(dungeon), self.member, copy.deepcopy(self.old))

    @property
    def refs(self) -> set[str]:
        return {"sheet"}

    def merge(self, other: Edit) -> bool:
        if (
            not isinstance(other, ChangeSheet)
            or self.merge_key is None
            or other.merge_key != self.merge_key
            or other.member != self.member
        ):
            return False
        self.new = other.new
        return True


class TogglePassage(Edit):
    """Turn a grid edge from wall to passage or back (RULES.md 1, Board: every edge not a
    passage is a wall). The edge must lie between two rooms of the grid."""

    def __init__(self, dungeon: GridDungeon, cell: Sequence[int], side: str):
        if not isinstance(dungeon, GridDungeon):
            raise EditError("passages belong to grid dungeons")
        cell = (int(cell[0]), int(cell[1]))
        if not dungeon.grid.contains(cell) or dungeon.grid.is_outer_edge(cell, side):
            raise EditError("only an edge between two rooms of the grid can be a passage")
        self.ref = passage_ref(cell, side)
        existing = passages_on(dungeon, self.ref)
        if existing:
            self.index, passage = existing[0]
            self.passage = copy.deepcopy(passage)
            self.adding = False
            self.text = "Wall up passage"
        else:
            self.index = len(dungeon.passages)
            self.passage = Passage(cell, side)
            self.adding = True
            self.text = "Open passage"

    def _insert(self, dungeon: GridDungeon) -> None:
        dungeon.passages.insert(self.index, copy.deepcopy(self.passage))

    def _remove(self, dungeon: GridDungeon) -> None:
        del dungeon.passages[self.index]

    def redo(self, dungeon: Dungeon) -> None:
        (self._insert if self.adding else self._remove)(dungeon)

    def undo(self, dungeon: Dungeon) -> None:
        (self._remove if self.adding else self._insert)(dungeon)

    @property
    def refs(self) -> set[str]:
        return {self.ref}


def _cell_inside(grid: GridSpec, cell) -> bool:
    return grid.contains((cell[0], cell[1]))


def objects_outside(dungeon: GridDungeon, columns: int, rows: int) -> list[Any]:
    """The grid objects that would fall outside a ``columns`` x ``rows`` grid: features in
    removed rooms, passages touching them, entryways no longer on an outer edge."""
    grid = GridSpec(
        columns, rows, dungeon.grid.cell_mm, dungeon.grid.origin_mm, dungeon.grid.column_labels, dungeon.grid.row_labels
    )
    out: list[Any] = []
    for passage in dungeon.passages:
        (col, row), side = edge_key(passage.cell, passage.side)
        if not grid.contains((col, row)) or grid.is_outer_edge((col, row), side):
            out.append(passage)
    out += [e for e in dungeon.entryways if not grid.is_outer_edge(e.cell, e.side)]
    out += [f for f in dungeon.features if not _cell_inside(grid, f.cell)]
    return out


class ResizeGrid(Edit):
    """Change the number of columns and rows of a grid dungeon. Objects that fall outside
    (see :func:`objects_outside`) are removed *by this edit* and listed in ``removed`` so the
    editor can show them first; undo brings every one of them back (never a silent deletion)."""

    def __init__(self, dungeon: GridDungeon, columns: int, rows: int):
        if not isinstance(dungeon, GridDungeon):
            raise EditError("only a grid dungeon has columns and rows")
        if columns < 1 or rows < 1:
            raise EditError("a grid has at least one column and one row")
        self.old_grid = copy.deepcopy(dungeon.grid)
        self.new_grid = copy.deepcopy(dungeon.grid)
        self.new_grid.columns, self.new_grid.rows = int(columns), int(rows)
        outside = {id(obj) for obj in objects_outside(dungeon, columns, rows)}
        self.removed = [
            (name, index, copy.deepcopy(obj)) for name, index, obj in objects(dungeon) if id(obj) in outside
        ]
        self.text = f"Resize grid to {columns} x {rows}"

    def redo(self, dungeon: Dungeon) -> None:
        for name, index, _ in reversed(self.removed):
            del getattr(dungeon, name)[index]
        dungeon.grid = copy.deepcopy(self.new_grid)

    def undo(self, dungeon: Dungeon) -> None:
        dungeon.grid = copy.deepcopy(self.old_grid)
        for name, index, obj in self.removed:
            getattr(dungeon, name).insert(index, copy.deepcopy(obj))

    @property
    def refs(self) -> set[str]:
        return {"sheet"} | {ref_of(obj) for _, _, obj in self.removed}


class Compound(Edit):
    """Several edits as one undo step (e.g. delete a selection and the doors on it)."""

    def __init__(self, edits: list[Edit], text: str):
        self.edits = edits
        self.text = text

    def redo(self, dungeon: Dungeon) -> None:
        for edit in self.edits:
            edit.redo(dungeon)

    def undo(self, dungeon: Dungeon) -> None:
        for edit in reversed(self.edits):
            edit.undo(dungeon)

    @property
    def refs(self) -> set[str]:
        return set().union(*(edit.refs for edit in self.edits)) if self.edits else set()


def renumber_stones(dungeon: LineDungeon) -> ChangeProperties | None:
    """The edit that numbers the artifact stones 1, 2, 3... in reading order (top to bottom,
    then left to right, by rows of 10 mm), or ``None`` if they already are (RULES.md 2,
    Artifact stones: numbered, collected in order)."""
    stones = [e for e in dungeon.elements if e.kind == "artifact_stone" and e.at is not None]
    ordered = sorted(stones, key=lambda e: (math.floor(e.at[1] / 10), e.at[0], e.at[1], e.id))
    changes = [(ref_of(e), "number", n) for n, e in enumerate(ordered, start=1) if e.number != n]
    if not changes:
        return None
    return ChangeProperties(dungeon, changes, "Renumber artifact stones")


def paste_copies(dungeon: Dungeon, clipboard: list[Any], dx: float, dy: float, text: str = "Paste") -> AddObjects:
    """An edit adding copies of ``clipboard`` objects with fresh ids, offset by ``(dx, dy)``
    (mm for line objects, cells for grid features). Passages and entryways keep their edge."""
    taken: set[str] = set()
    items = []
    for original in clipboard:
        obj = without_key(copy.deepcopy(original))
        obj.pointer = ""
        name = collection_of(obj)
        if name not in COLLECTIONS[dungeon.family]:
            raise EditError(f"a {name[:-1]} cannot be pasted into a {dungeon.family} dungeon")
        if not isinstance(obj, Passage):
            prefix = obj.id.rsplit("-", 1)[0] if "-" in obj.id else obj.id
            obj.id = new_id(dungeon, prefix, taken)
            taken.add(obj.id)
        if not isinstance(obj, Entryway):  # an entryway keeps its outer edge
            translate_onto(obj, obj, dx, dy)
        items.append((name, None, obj))
    return AddObjects(items, text)


def clone_dungeon(dungeon: Dungeon) -> Dungeon:
    """A deep copy of a dungeon, for the pack browser's duplicate and for tests."""
    return copy.deepcopy(dungeon)


__all__ = [
    "AddObjects",
    "ChangeProperties",
    "ChangeSheet",
    "Compound",
    "DeleteObjects",
    "Edit",
    "EditError",
    "EditShape",
    "MoveObjects",
    "ResizeGrid",
    "RotateObjects",
    "TogglePassage",
    "clone_dungeon",
    "collection_of",
    "find",
    "index_by_ref",
    "key_shared_ids",
    "locate",
    "new_id",
    "objects",
    "objects_outside",
    "passage_ref",
    "paste_copies",
    "ref_of",
    "renumber_stones",
    "without_key",
    "COLLECTIONS",
]


def duplicate_refs(dungeon: Dungeon) -> set[str]:
    """References used by more than one object: the same grid edge listed twice as a passage
    (G015; objects sharing an id have editor keys, :func:`key_shared_ids`). While a reference is
    shared it does not address one object, so the editor never acts on it."""
    seen: set[str] = set()
    shared: set[str] = set()
    for _, _, obj in objects(dungeon):
        ref = ref_of(obj)
        (shared if ref in seen else seen).add(ref)
    return shared


def _fresh_like(value: str, used: set[str]) -> str:
    """An unused id in the style of ``value``: ``m1`` gives ``m4`` when m1 to m3 are used,
    ``room-2`` gives ``room-N``, ``hall`` gives ``hall-N``."""
    base = value.rstrip("0123456789")
    separator = ""
    if base == value or not base:
        base, separator = value, "-"
    elif base.endswith("-"):
        base, separator = base[:-1], "-"
    n = 1
    while f"{base}{separator}{n}" in used:
        n += 1
    return f"{base}{separator}{n}"


class RenumberIds(Edit):
    """Give every object whose id an earlier object (in file order) already has a fresh id
    in the same style (one undo step). Objects are addressed by list position, the only thing that
    tells two objects with the same id apart. Once ids are unique the editor keys go (each object's
    reference is its id again); undo gives them back with the shared ids."""

    text = "Renumber duplicate ids"

    def __init__(self, dungeon: Dungeon):
        self.changes: list[tuple[str, int, str, str]] = []  # (collection, index, old id, new id)
        #: (collection, index, editor key) of the objects that had one
        self.keys: list[tuple[str, int, str]] = []
        seen: set[str] = set()
        used = {ref_of(obj) for _, _, obj in objects(dungeon)}
        used |= {obj.id for _, _, obj in objects(dungeon) if not isinstance(obj, Passage)}
        for name, index, obj in objects(dungeon):
            if isinstance(obj, Passage):
                continue  # a passage has no id; its edge is its reference
            if obj.__dict__.get(KEY_ATTRIBUTE):
                self.keys.append((name, index, obj.__dict__[KEY_ATTRIBUTE]))
            if obj.id in seen:
                fresh = _fresh_like(obj.id, used)
                used.add(fresh)
                self.changes.append((name, index, obj.id, fresh))
            seen.add(obj.id)

    def redo(self, dungeon: Dungeon) -> None:
        for name, index, _old, new in self.changes:
            getattr(dungeon, name)[index].id = new
        for name, index, _key in self.keys:
            without_key(getattr(dungeon, name)[index])

    def undo(self, dungeon: Dungeon) -> None:
        for name, index, old, _new in self.changes:
            getattr(dungeon, name)[index].id = old
        for name, index, key in self.keys:
            setattr(getattr(dungeon, name)[index], KEY_ATTRIBUTE, key)
        if self.keys:
            setattr(dungeon, KEYED_MARK, True)

    @property
    def refs(self) -> set[str]:
        return {"*"}


def renumber_duplicates(dungeon: Dungeon) -> RenumberIds | None:
    """The edit giving objects with a duplicate id fresh ids, or ``None`` when ids are unique."""
    edit = RenumberIds(dungeon)
    return edit if edit.changes else None


def _on_segment(p: Point, a: Point, b: Point, tolerance: float) -> bool:
    ax, ay, bx, by = a[0], a[1], b[0], b[1]
    length2 = (bx - ax) ** 2 + (by - ay) ** 2
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * (bx - ax) + (p[1] - ay) * (by - ay)) / length2))
    return math.hypot(p[0] - (ax + t * (bx - ax)), p[1] - (ay + t * (by - ay))) <= tolerance


def on_outline(p: Point, polygon: Sequence[Point], tolerance: float = 0.05) -> bool:
    """Whether ``p`` lies on the closed outline of ``polygon`` (within ``tolerance`` mm)."""
    n = len(polygon)
    return any(_on_segment(p, polygon[i], polygon[(i + 1) % n], tolerance) for i in range(n))


def inside_or_on(p: Point, polygon: Sequence[Point], tolerance: float = 0.05) -> bool:
    """Whether ``p`` lies inside ``polygon`` or on its outline."""
    if on_outline(p, polygon, tolerance):
        return True
    inside = False
    n = len(polygon)
    for i in range(n):
        (x1, y1), (x2, y2) = polygon[i], polygon[(i + 1) % n]
        if (y1 > p[1]) != (y2 > p[1]) and p[0] < x1 + (p[1] - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def contents_of(dungeon: Dungeon, refs: Iterable[str]) -> tuple[list[str], dict[str, list[int]]]:
    """What moves with the areas among ``refs`` (a line dungeon): the elements, walls and areas
    lying inside one of them (doors on its outline too), and the corridor joins: for each other
    area, the vertices on a moved area's outline. Returns ``(refs inside, joined)``."""
    if dungeon.family != "line":
        return [], {}
    moved = set(refs)
    rooms = [obj.polygon for ref in moved for obj in [find(dungeon, ref)[2]] if isinstance(obj, Area) and obj.polygon]
    if not rooms:
        return [], {}
    inside: list[str] = []
    joined: dict[str, list[int]] = {}

    def within(points) -> bool:
        return bool(points) and any(all(inside_or_on(p, room) for p in points) for room in rooms)

    for element in dungeon.elements:
        points = [element.at] if element.at is not None else list(element.segment or [])
        if ref_of(element) not in moved and within(points):
            inside.append(ref_of(element))
    for wall in dungeon.walls:
        if ref_of(wall) not in moved and within(wall.points):
            inside.append(ref_of(wall))
    for area in dungeon.areas:
        if ref_of(area) in moved or not area.polygon:
            continue
        touching = [i for i, p in enumerate(area.polygon) if any(on_outline(p, room) for room in rooms)]
        if within(area.polygon) and len(touching) < len(area.polygon):
            inside.append(ref_of(area))  # an area drawn inside the room
        elif touching and len(touching) < len(area.polygon):
            joined[ref_of(area)] = touching
    return inside, joined
