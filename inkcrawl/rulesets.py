"""Rulesets: the definitions a dungeon is played with (DESIGN.md "Model", LDtk's split).

A ruleset file (``schemas/ruleset.schema.json``) defines element kinds with their interaction,
VP, tolerances and counts, the deck, characters, print limits and every rules switch of
RULES.md "Gaps and defaults". Bundled rulesets live in ``content/rulesets/``; a pack may ship
its own variants. :class:`Ruleset` gives typed access to the parts the checks and engines use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from inkcrawl.jsonio import read_json_file
from inkcrawl.kinds import ElementKind, element_kinds
from inkcrawl.migrate import FormatVersionError, migrate
from inkcrawl.problems import Problem, problem
from inkcrawl.resources import bundled_rulesets_dir
from inkcrawl.schema import schema_problems
from inkcrawl.textchars import document_text_problems, owner_name

#: The bundled line ruleset whose kind definitions fill what a variant leaves out (inkcrawl.kinds).
BUNDLED_LINE_RULESET = "line-classic"
#: Card kinds of a grid deck that are not segment shapes (RULES.md 1, Cards).
SPECIAL_CARDS = ("trap", "draw_two")


@dataclass(frozen=True)
class Ruleset:
    """A loaded, schema-valid ruleset. ``data`` is the file's JSON; ``path`` where it came from."""

    data: dict = field(repr=False)
    path: Path | None = None

    @property
    def id(self) -> str:
        """The ruleset's id, e.g. ``line-classic``."""
        return self.data["id"]

    @property
    def family(self) -> str:
        """``grid`` or ``line``."""
        return self.data["family"]

    @property
    def elements(self) -> dict[str, dict]:
        """Element kind -> its definition (interaction, vp, tolerances, counts...)."""
        return self.data["elements"]

    @property
    def switches(self) -> dict[str, Any]:
        """Rules switch name -> value (RULES.md "Gaps and defaults"; docs/formats.md lists them)."""
        return self.data["switches"]

    @property
    def print_limits(self) -> dict[str, float]:
        """Printability limits in mm (``min_element_mm``, ``min_text_mm``, tolerances...)."""
        return self.data["print"]

    # grid family -------------------------------------------------------------------------
    @property
    def deck(self) -> dict[str, int]:
        """Default deck composition: card kind -> count (grid family)."""
        return self.data.get("deck", {})

    @property
    def segment_shapes(self) -> dict[str, list[str]]:
        """Segment shape -> open sides in its base rotation (grid family)."""
        return self.data.get("segments", {})

    # line family -------------------------------------------------------------------------
    @property
    def key_colours(self) -> list[str]:
        """Ids of the key colours (line family), e.g. ``red``, ``green``, ``blue``, ``yellow``."""
        return [c["id"] for c in self.data.get("keys", {}).get("colours", [])]

    def key_supply(self, players: int) -> int:
        """Key tokens per colour for a player count (RULES.md 2: 2 with 2-3 players, 3 with 4)."""
        supply = self.data.get("keys", {}).get("supply", {})
        return int(supply.get(str(players), 0))

    @cached_property
    def kinds(self) -> dict[str, ElementKind]:
        """Every element kind of a line ruleset, resolved (:mod:`inkcrawl.kinds`): members the
        ruleset leaves out come from the bundled ``line-classic`` definition of the same kind."""
        bundled = _bundled_line_definitions() if self.id != BUNDLED_LINE_RULESET else {}
        return element_kinds(self.data, bundled)

    def element_values(self, kind: str, member: str) -> list[str]:
        """Allowed named values of an element kind: ``variants`` or ``colours`` (empty if none)."""
        return list(self.elements.get(kind, {}).get(member, []))


def ruleset_consistency_problems(data: dict, file: str) -> list[Problem]:
    """Checks a schema cannot express: min <= max in counts, deck cards are known shapes (C006),
    no control characters in its texts (C007)."""
    problems = document_text_problems(data, owner_name("ruleset", data.get("id"), data.get("name")), file)
    for kind, definition in data.get("elements", {}).items():
        count = definition.get("count")
        if isinstance(count, dict) and count.get("min", 0) > count.get("max", 0):
            problems.append(
                problem(
                    "C006",
                    f"element kind '{kind}': count min {count['min']} is above max {count['max']}",
                    file,
                    f"/elements/{kind}/count",
                )
            )
    if data.get("family") == "line":
        problems += _line_kind_problems(data, file)
    players = data.get("players", {})
    if players.get("min", 1) > players.get("max", 1):
        problems.append(problem("C006", "players: min is above max", file, "/players"))
    if data.get("family") == "grid":
        problems += _grid_ruleset_problems(data, file)
        shapes = set(data.get("segments", {}))
        for card in data.get("deck", {}):
            if card not in shapes and card not in SPECIAL_CARDS:
                problems.append(
                    problem(
                        "C006",
                        f"deck card '{card}' is not a segment shape of this ruleset "
                        f"({', '.join(sorted(shapes))}) nor trap or draw_two",
                        file,
                        f"/deck/{card}",
                    )
                )
    return problems


#: The kinds the dungeon schema gives a segment (doors) or text (labels) instead of a disc.
_SHAPED_KINDS = {"segment": "door", "text": "label"}


def _line_kind_problems(data: dict, file: str) -> list[Problem]:
    """A line kind may only take the footprint and placement the dungeon schema gives it: a
    segment between areas is a door's, text anywhere a label's; every other kind is a disc."""
    problems = []
    for kind, definition in data.get("elements", {}).items():
        footprint = definition.get("footprint")
        owner = _SHAPED_KINDS.get(footprint or "")
        if owner is not None and owner != kind:
            problems.append(
                problem(
                    "C006",
                    f"element kind '{kind}': footprint '{footprint}' is the {owner}'s; a "
                    f"dungeon gives every other kind a disc (at, size_mm)",
                    file,
                    f"/elements/{kind}/footprint",
                )
            )
        if definition.get("placement") == "between_areas" and kind != "door":
            problems.append(
                problem(
                    "C006",
                    f"element kind '{kind}': only doors are placed between areas (a door's "
                    f"segment); place it inside_area, on the outer_boundary or anywhere",
                    file,
                    f"/elements/{kind}/placement",
                )
            )
    return problems


def _grid_ruleset_problems(data: dict, file: str) -> list[Problem]:
    """A grid ruleset's counts must be possible: pairs match, letters suffice, features fit the
    board's rooms and entryways its outer edges."""
    problems = []
    elements = data.get("elements", {})
    counts = {kind: d["count"] for kind, d in elements.items() if isinstance(d.get("count"), dict)}
    if "weapon" in counts and "monster" in counts and counts["weapon"] != counts["monster"]:
        problems.append(
            problem(
                "C006",
                f"weapons ({counts['weapon']['min']}-{counts['weapon']['max']}) and monsters "
                f"({counts['monster']['min']}-{counts['monster']['max']}) must come in pairs: "
                f"give them the same count",
                file,
                "/elements/monster/count",
            )
        )
    for kind, definition in elements.items():
        letters = definition.get("letters")
        if letters is not None and kind in counts and counts[kind]["max"] > len(letters):
            problems.append(
                problem(
                    "C006",
                    f"element kind '{kind}': up to {counts[kind]['max']} of them but only "
                    f"{len(letters)} letters ({letters})",
                    file,
                    f"/elements/{kind}/letters",
                )
            )
    board = data.get("board", {})
    rooms = board.get("columns", 0) * board.get("rows", 0)
    needed = sum(count["min"] for count in counts.values())
    if rooms and needed > rooms:
        problems.append(
            problem(
                "C006",
                f"the features need at least {needed} rooms but the default board has {rooms}",
                file,
                "/elements",
            )
        )
    outer_edges = 2 * (board.get("columns", 0) + board.get("rows", 0))
    entryways = data.get("entryways", {}).get("count", {})
    if outer_edges and entryways.get("min", 0) > outer_edges:
        problems.append(
            problem(
                "C006",
                f"at least {entryways['min']} entryways but the default board has only {outer_edges} outer edges",
                file,
                "/entryways/count",
            )
        )
    return problems


def load_ruleset_file(path: Path, file: str | None = None) -> tuple[Ruleset | None, list[Problem]]:
    """Read, migrate and schema-check a ruleset file. Returns ``(ruleset or None, problems)``."""
    file = file if file is not None else str(path)
    data, problems = read_json_file(path, file)
    if problems:
        return None, problems
    if not isinstance(data, dict) or data.get("type") != "ruleset":
        return None, [problem("P005", "this file is not a ruleset ('type' is not \"ruleset\")", file)]
    try:
        data, _ = migrate(data, "ruleset")
    except FormatVersionError as exc:
        return None, [problem(exc.code, str(exc), file, "/format_version")]
    problems = schema_problems(data, "ruleset", file)
    if problems:
        return None, problems
    problems = ruleset_consistency_problems(data, file)
    return Ruleset(data, path), problems


@cache
def bundled_rulesets() -> dict[str, Ruleset]:
    """The rulesets shipped in ``content/rulesets``, by id. Raises ``RuntimeError`` if one is broken."""
    found = {}
    for path in sorted(bundled_rulesets_dir().glob("*.json")):
        ruleset, problems = load_ruleset_file(path)
        if ruleset is None or problems:
            details = "; ".join(p.message for p in problems)
            raise RuntimeError(f"bundled ruleset {path.name} is broken: {details}")
        found[ruleset.id] = ruleset
    return found


@cache
def _bundled_line_definitions() -> dict[str, dict]:
    """The element definitions of the bundled line ruleset (empty when it cannot be loaded)."""
    try:
        ruleset = bundled_rulesets().get(BUNDLED_LINE_RULESET)
    except RuntimeError:
        return {}
    return dict(ruleset.elements) if ruleset is not None else {}
