"""The area graph of a line dungeon, as the searches over it (par, the timer's bound) read it."""

from __future__ import annotations

from inkcrawl.engines.line.rules import Element, LineRules
from inkcrawl.locks import door_opens


class AreaModel:
    """The area graph of a line dungeon and the value of each element for one player, compiled
    from :class:`LineRules` (RULES.md 2): ``open`` (area index -> the areas an opening joins it
    to), ``doors`` ``(a, b, locks)``, ``supply`` (key tokens per colour for ``players``),
    ``by_area`` (the elements of each area), the end triggers listed, the orb token stacks, the
    switches the searches read, and :meth:`vp` (an element's VP for ``character``). Read by par's
    search (:mod:`inkcrawl.engines.line.par`) and the timer's bound
    (:mod:`inkcrawl.engines.line.timer`)."""

    def __init__(self, rules: LineRules, players: int, character: str | None = None):
        self.rules = rules
        definition = (rules.characters.get(character) or {}) if character else {}
        self.ability = definition.get("ability")
        self.ability_vp = definition.get("vp")
        n = len(rules.areas)
        self.n = n
        self.rooms = [kind == "room" for kind in rules.area_kinds]
        self.open: list[list[int]] = [[] for _ in range(n)]
        for pair in rules.open_pairs:
            a, b = (rules.area_index[x] for x in pair)
            self.open[a].append(b)
            self.open[b].append(a)
        self.doors = []  # (a, b, locks)
        for door in rules.doors:
            a, b = (rules.area_index[x] for x in door.pair)
            self.doors.append((a, b, tuple(door.locks)))
        self.supply = int(rules.key_supply.get(str(players), 0))
        self.by_area: list[list[Element]] = [[] for _ in range(n)]
        for e in rules.elements:
            if 0 <= e.area < n:
                self.by_area[e.area].append(e)
        self.boss_ends = rules.lists_trigger("boss_covered")
        self.exit_ends = rules.lists_trigger("exit_reached")
        self.tokens = {colour: list(values) for colour, values in rules.orb_tokens.items()}
        self.unused_entry = int(rules.switch("unused_portal_entry_vp"))
        self.untouched = int(rules.switch("artifact_untouched_group_vp"))
        self.exempt = bool(rules.switch("end_room_exempt"))
        # the colours a skeleton key may take: the game's key colours and any colour a key has
        self.colours = sorted(
            {e.colour for e in rules.elements if e.kind == "key" and e.colour} | set(rules.key_colours)
        )

    def vp(self, e: Element) -> int:
        """An element's VP for this player (the Ranger's plants are worth the character's VP)."""
        if self.ability == "plant_vp" and e.kind == "plant" and isinstance(self.ability_vp, (int, float)):
            return int(self.ability_vp)
        return int(e.vp or 0)

    def next_token(self, colour: str, covered) -> int | None:
        """The value of the next token of ``colour`` after the orbs ``covered`` (ids), or None."""
        taken = sum(1 for orb_id in covered if self.rules.element_by_id[orb_id].colour == colour)
        stack = self.tokens.get(colour, [])
        return stack[taken] if taken < len(stack) else None

    def orb_ends(self, colour: str, covered) -> bool:
        """Whether taking the next token of ``colour`` sets off an ``orb_taken`` end trigger."""
        taken = sum(1 for orb_id in covered if self.rules.element_by_id[orb_id].colour == colour)
        position, stack = taken + 1, len(self.tokens.get(colour, []))
        for trigger in self.rules.end_triggers:
            if (
                isinstance(trigger, dict)
                and trigger.get("kind") == "orb_taken"
                and trigger.get("colour") in (None, colour)
            ):
                when = trigger.get("when", "first")
                if (when == "first" and position == 1) or (when == "last" and position == stack):
                    return True
        return False

    def reach(self, start: int, entered: frozenset, keys: frozenset) -> frozenset:
        """The entered areas the line can be in from ``start`` (openings, doors its keys open)."""
        seen = {start}
        stack = [start]
        while stack:
            a = stack.pop()
            for b in self._next(a, keys):
                if b in entered and b not in seen:
                    seen.add(b)
                    stack.append(b)
        return frozenset(seen)

    def _next(self, a: int, keys: frozenset):
        yield from self.open[a]
        for x, y, locks in self.doors:
            if a in (x, y) and door_opens(list(locks), keys):
                yield y if a == x else x

    def frontier(self, region: frozenset, entered: frozenset, keys: frozenset) -> list[int]:
        return sorted({b for a in region for b in self._next(a, keys) if b not in entered})


__all__ = ["AreaModel"]
