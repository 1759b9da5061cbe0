"""Stage 5 of the referee: settling every element and artifact group into the sections.

:func:`settle` makes one :class:`Item` per thing that can score (elements with VP or a penalty,
orbs, portal entries, artifact groups) and settles each: completed in the section where it was
completed; missed, failed, exempt or optional in the section that settles it (``reentry``:
the last section of its area, or the departure that charged it); bosses on the boss lines.
The readings are those of the package docstring (:mod:`inkcrawl.engines.line`).
"""

from __future__ import annotations

from dataclasses import dataclass

from inkcrawl.engines.line.events import Events, fraction
from inkcrawl.engines.line.player import Player
from inkcrawl.engines.line.rules import ArtifactGroup, Element, LineRules, describe
from inkcrawl.engines.line.walk import Walk


@dataclass
class Item:
    """Something to settle: an element (``element``) or an artifact group (``group``), in
    ``area``, completed at ``done`` and first touched at ``touch``; ``vp`` when completed,
    ``missed_vp`` when missed, ``failed_vp`` when attempted but not completed, ``penalised``
    whether missing it can cost VP; ``what`` is ``element``, ``orb``, ``portal``, ``boss`` or
    ``group``."""

    label: str
    area: int
    done: float
    touch: float
    vp: int
    penalised: bool
    what: str = "element"
    missed_vp: int = 0
    failed_vp: int = 0
    element: Element | None = None
    group: ArtifactGroup | None = None

    @property
    def ident(self) -> str:
        """The element id, or the ids of the group's stones."""
        if self.group is not None:
            return ",".join(s.id for s in self.group.stones)
        return self.single.id

    @property
    def single(self) -> Element:
        """The element of an item that is not an artifact group."""
        if self.element is None:
            raise ValueError(f"{self.label}: an item is an element or an artifact group")
        return self.element


@dataclass
class Settled:
    """The lines of each section (in the order they were settled), the boss lines, and the
    section exempt from penalties (the one the scrawl ended in; ``None``: none)."""

    lines: list[list[dict]]
    boss_lines: list[dict]
    exempt: int | None


def element_vp(rules: LineRules, player: Player, e: Element) -> int:
    """What completing an element scores (the Ranger's plants: the ability's VP)."""
    if player.ability == "plant_vp" and e.kind == "plant" and isinstance(player.ability_vp, (int, float)):
        return int(player.ability_vp)
    if e.vp is not None:
        return int(e.vp)
    if e.kind == "boss":
        vp = e.data.get("boss_vp", rules.term_vp("boss", 0))
        return int(vp or 0)
    return 0


def items(rules: LineRules, player: Player, events: Events) -> list[Item]:
    """The things to settle: elements with a VP or a penalty, then artifact groups."""
    times = events.times
    out = []
    for e in rules.elements:
        label, done, touch = describe(e), float(times.done[e.index]), float(times.touch[e.index])
        if e.kind == "orb":  # its VP is a token (the orb lines); left uncovered: listed, no penalty
            out.append(Item(label, e.area, done, touch, 0, False, "orb", element=e))
            continue
        if e.interaction in ("connect_in_order", "none", "pass_with_keys"):
            continue
        if e.kind == "portal_entry":
            missed = int(rules.switch_vp("unused_portal_entry_vp", "unused_portal_entry"))
            out.append(Item(label, e.area, done, touch, 0, e.penalty, "portal", missed, 0, element=e))
            continue
        vp = element_vp(rules, player, e)
        if vp == 0 and not e.penalty:
            continue
        boss = e.kind == "boss"
        done = done if boss else float(times.complete[e.index])
        out.append(
            Item(
                label, e.area, done, touch, vp, e.penalty and vp != 0, "boss" if boss else "element", -vp, 0, element=e
            )
        )
    group_vp = int(
        rules.term_vp("artifact_group", next((s.vp for g in rules.groups for s in g.stones if s.vp is not None), 1))
    )
    untouched_vp = int(rules.switch_vp("artifact_untouched_group_vp", "artifact_untouched_group"))
    partial_vp = int(rules.switch_vp("artifact_partial_group_vp", "artifact_partial_group"))
    for g, group in enumerate(rules.groups):
        out.append(
            Item(
                group.label,
                group.area,
                events.groups.done[g],
                events.groups.touch[g],
                group_vp,
                any(s.penalty for s in group.stones),
                "group",
                untouched_vp,
                partial_vp,
                group=group,
            )
        )
    return out


class _Settler:
    """Settles items into the sections of a walk (see the module docstring)."""

    def __init__(self, rules: LineRules, player: Player, events: Events, walk: Walk):
        self.rules = rules
        self.player = player
        self.events = events
        self.walk = walk
        sections = walk.sections
        self.lines: list[list[dict]] = [[] for _ in sections]
        self.boss_lines: list[dict] = []
        self.exempt = len(sections) - 1 if (rules.switch("end_room_exempt") and not walk.illegal) else None
        self.last_of = {section.area: i for i, section in enumerate(sections)}
        self.each_visit = rules.switch("reentry") == "each_visit"

    def settle(self, item: Item) -> None:
        """Score one element (or artifact group): completed where it was completed; missed,
        failed or exempt in the section that settles it."""
        if item.what == "orb":
            # covered before the end: its token is on the orb lines (0 after an illegal crossing)
            if item.done > self.events.end.t and item.area in self.last_of:
                self.lines[self.last_of[item.area]].append(
                    {
                        "kind": "optional",
                        "vp": 0,
                        "element": item.ident,
                        "text": f"{item.label}: not covered (no penalty)",
                    }
                )
            return
        done = item.done <= self.walk.t_score
        if item.what == "boss":
            if self._boss(item, done):
                return
        elif done:
            self._completed(item)
        if item.area not in self.last_of:
            return  # never entered
        self._left(item, done)

    def _boss(self, item: Item, done: bool) -> bool:
        """The boss line; ``True`` when nothing else is settled (covered after the illegal crossing)."""
        t_score, walk = self.walk.t_score, self.walk
        if done:
            ends = " (ends the scrawl)" if self.events.end.element == item.single.index else ""
            covered = fraction(self.events.times.cover_times.get(item.single.index), t_score)
            self.boss_lines.append(
                {
                    "kind": "completed",
                    "vp": item.vp,
                    "element": item.ident,
                    "text": f"{item.label}: covered ({covered:.0%}){ends}",
                }
            )
        elif walk.illegal and item.done <= self.events.end.t:
            scores = self.rules.switch("boss_after_illegal_crossing") == "ends_scores_vp"
            self.boss_lines.append(
                {
                    "kind": "completed" if scores else "failed",
                    "vp": item.vp if scores else 0,
                    "element": item.ident,
                    "text": f"{item.label}: covered after the illegal crossing: ends the scrawl and "
                    f"{'scores its VP' if scores else 'scores 0'}",
                }
            )
            return True
        else:
            self.boss_lines.append(
                {"kind": "note", "vp": 0, "element": item.ident, "text": f"{item.label}: not covered"}
            )
        return False

    def _completed(self, item: Item) -> None:
        if item.what == "portal":
            line = {"kind": "portal", "vp": 0, "element": item.ident, "text": f"{item.label}: used (the pen lifts)"}
        else:
            line = {
                "kind": "completed",
                "vp": item.vp,
                "element": item.ident,
                "text": f"{item.label}: {self._done_text(item)}",
            }
        line["_t"] = item.done
        self.lines[self.walk.section_at(item.done)].append(line)

    def _left(self, item: Item, done: bool) -> None:
        """What leaving the item's area means for it: missed, failed, exempt or optional."""
        area, sections, exempt, last = item.area, self.walk.sections, self.exempt, self.last_of[item.area]
        if not (item.penalised and self.rules.penalised(area)):
            if not done:
                self.lines[last].append(
                    {
                        "kind": "optional",
                        "vp": 0,
                        "element": item.ident,
                        "text": f"{item.label}: not completed ({self._why_optional(area)})",
                    }
                )
            return
        visits = [i for i, s in enumerate(sections) if s.area == area]
        left = [i for i in visits if i != exempt]
        if self.each_visit:
            charged = next((i for i in left if item.touch > sections[i].t1 and item.done > sections[i].t1), None)
        else:
            charged = last if (not done and last != exempt and item.touch > self.walk.t_score) else None
        if charged is not None:
            portal = item.what == "portal"
            self.lines[charged].append(
                {
                    "kind": "unused_portal" if portal else "missed",
                    "vp": item.missed_vp,
                    "element": item.ident,
                    "text": f"{item.label}: "
                    + ("not used" if portal else "untouched" if item.group is not None else "missed"),
                }
            )
            return
        if done:
            return
        settled_left = bool(left) if self.each_visit else last != exempt
        if settled_left:
            self.lines[left[-1] if self.each_visit else last].append(
                {
                    "kind": "failed",
                    "vp": item.failed_vp,
                    "element": item.ident,
                    "text": f"{item.label}: {self._failed_text(item)}",
                }
            )
        else:
            self.lines[last].append(
                {
                    "kind": "exempt",
                    "vp": 0,
                    "element": item.ident,
                    "text": f"{item.label}: not completed, no penalty (the scrawl ended in this area)",
                }
            )

    # .. how the lines read ..

    def _done_text(self, item: Item) -> str:
        if item.group is not None:
            how = "any order (Cleric)" if self.player.ability == "artifacts_any_order" else "in order"
            return f"connected {how}"
        return self._completion_detail(item.single, item.done)

    def _completion_detail(self, e: Element, t: float) -> str:
        times, ability = self.events.times, self.player.ability
        if e.interaction == "cover" or (e.kind == "monster" and ability == "monster_by_head"):
            if times.head[e.index] <= t and times.done[e.index] > t:
                return "head covered (Barbarian)"
            return f"covered ({fraction(times.cover_times.get(e.index), self.walk.t_score):.0%})"
        if e.kind == "treasure" and ability == "treasure_by_touch" and times.done[e.index] > t:
            return "touched (Rogue)"
        if e.kind == "spell" and ability == "spell_by_circle" and times.done[e.index] > t:
            return "circle drawn inside it (Wizard)"
        return {"trace": "traced", "touch": "touched", "pass_through": "passed through", "enter": "entered"}.get(
            e.interaction, "completed"
        )

    def _failed_text(self, item: Item) -> str:
        times, t = self.events.times, self.walk.t_score
        if item.group is not None:
            touched = sum(times.touch[s.index] <= t for s in item.group.stones)
            return f"partly connected ({touched} of {len(item.group.stones)} stones touched)"
        e = item.single
        if e.interaction == "cover":
            return f"only {fraction(times.cover_times.get(e.index), t):.0%} covered (needs {e.min_coverage:.0%})"
        if e.interaction == "trace":
            return f"only {fraction(times.trace_times.get(e.index), t):.0%} traced"
        if e.interaction == "pass_through":
            return "touched but not passed through"
        return "attempted, not completed"

    def _why_optional(self, area: int) -> str:
        if not self.rules.penalised(area):
            return f"{self.rules.area_kinds[area]} elements are optional"
        return "no penalty"


def settle(rules: LineRules, player: Player, events: Events, walk: Walk) -> Settled:
    """Stage 5: every item settled, then the walk's wall, key and door lines added to their
    sections."""
    settler = _Settler(rules, player, events, walk)
    for item in items(rules, player, events):
        settler.settle(item)
    for s, line in [*walk.wall_lines, *walk.key_lines, *walk.door_lines]:
        settler.lines[s].append(line)
    return Settled(settler.lines, settler.boss_lines, settler.exempt)
