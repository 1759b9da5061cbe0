"""Problems found in files, and the catalogue of every check that can report one.

A :class:`Problem` names the file, a JSON pointer (RFC 6901) into that file, a stable code,
a severity and a message that names the object (kind, id, name). Codes are grouped by letter:

- ``F``: the file itself (unreadable, not JSON, too deep, too new);
- ``S``: JSON Schema (structure);
- ``P``: content packs;
- ``C``: checks common to both families (ids, references, ruleset, text);
- ``G``: grid family rule checks (RULES.md 1);
- ``L``: line family rule checks (RULES.md 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Severity(str, Enum):
    """How bad a problem is: errors fail validation; warnings only with ``--strict``."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Rule:
    """One check: its stable ``code``, a short kebab-case ``name``, severity and description."""

    code: str
    name: str
    severity: Severity
    description: str


_E, _W = Severity.ERROR, Severity.WARNING

#: Every check inkcrawl runs, in the order ``inkcrawl rules`` lists them.
RULES: tuple[Rule, ...] = (
    Rule(
        "F001",
        "file-unreadable",
        _E,
        "The file or folder cannot be opened (missing, a directory without pack.json, no permission).",
    ),
    Rule("F002", "invalid-json", _E, "The file is not valid JSON; the message gives the line and column."),
    Rule("F003", "not-utf8", _E, "The file is not UTF-8 text (binary or another encoding)."),
    Rule("F004", "empty-file", _E, "The file is empty or holds only whitespace."),
    Rule(
        "F005", "non-finite-number", _E, "NaN, Infinity or a number too large for a double: JSON does not allow them."
    ),
    Rule("F006", "too-large", _E, "The file is bigger or more deeply nested than inkcrawl accepts."),
    Rule("F007", "format-too-new", _E, "The file's format_version is newer than this inkcrawl understands."),
    Rule("F008", "unknown-file-type", _E, "The file does not say what it is: 'type' must be dungeon, pack or ruleset."),
    Rule("F009", "format-too-old", _E, "The file's format_version is older than any inkcrawl can migrate."),
    Rule(
        "F010",
        "format-outdated",
        _W,
        "The file is in an older format_version; it was migrated in memory. 'inkcrawl migrate' updates the file.",
    ),
    Rule("S001", "schema", _E, "The file does not match its JSON Schema; the pointer names the offending value."),
    Rule(
        "S002",
        "rule-checks-skipped",
        _W,
        "Some rule checks were skipped because of schema errors (all of them when the structure is broken, "
        "whole-dungeon checks when some objects are); fix the schema errors first.",
    ),
    Rule(
        "S003",
        "problems-not-listed",
        _W,
        "A file has more problems than are listed (200): the last one counts the rest (an error when any of "
        "them is one); fix the first ones and validate again.",
    ),
    Rule(
        "P001",
        "path-outside-pack",
        _E,
        "The manifest names a path outside the pack folder ('..', absolute, or a symlink leading out) "
        "or one that cannot be resolved.",
    ),
    Rule("P002", "missing-pack-file", _E, "A file the manifest names does not exist."),
    Rule("P003", "pack-ruleset-mismatch", _E, "A dungeon of the pack names another ruleset than the manifest."),
    Rule("P004", "duplicate-dungeon-id", _E, "Two dungeons of one pack have the same id."),
    Rule("P005", "not-a-dungeon", _E, "A file listed as a dungeon or ruleset is another kind of file."),
    Rule(
        "P006",
        "ruleset-id-taken",
        _E,
        "A pack ruleset uses the id of a bundled ruleset; a variant needs an id of its own.",
    ),
    Rule(
        "P007",
        "card-back-not-an-image",
        _E,
        "A deck's back image is not a PNG or JPEG file (by its first bytes) or is larger than 32 MB.",
    ),
    Rule("C001", "duplicate-id", _E, "Two objects of one dungeon share an id."),
    Rule("C002", "unknown-ruleset", _E, "The ruleset the file names is neither bundled nor shipped in its pack."),
    Rule("C003", "unknown-element-kind", _E, "An element kind the dungeon's ruleset does not define."),
    Rule(
        "C004",
        "unknown-value",
        _E,
        "A reference by name that does not resolve: a key or orb colour, a variant, "
        "a letter the ruleset does not define.",
    ),
    Rule("C005", "family-mismatch", _E, "The dungeon's family differs from its ruleset's family."),
    Rule(
        "C006",
        "ruleset-inconsistent",
        _E,
        "A ruleset contradicts itself (min above max, a deck card that is no segment shape).",
    ),
    Rule(
        "C007",
        "control-character",
        _E,
        "A text (title, name, reminder, label, description...) holds a control character (U+0000-U+001F but tab and "
        "newline, U+007F-U+009F) or the noncharacter U+FFFE or U+FFFF: it cannot print and XML/SVG cannot hold it.",
    ),
    Rule(
        "G001",
        "feature-count",
        _E,
        "A feature kind appears fewer or more times than the ruleset requires (RULES.md 1, Board).",
    ),
    Rule("G002", "weapon-without-monster", _E, "A weapon letter has no monster with that letter."),
    Rule("G003", "monster-without-weapon", _E, "A monster letter has no weapon with that letter."),
    Rule("G004", "duplicate-letter", _E, "Two weapons or two monsters share a letter."),
    Rule(
        "G005",
        "room-with-several-features",
        _E,
        "A room holds more than one feature (RULES.md 1: at most one per room).",
    ),
    Rule("G006", "entryway-not-outer", _E, "An entryway is not on an outer edge of the grid."),
    Rule("G007", "entryway-count", _E, "The number of entryways differs from the ruleset's."),
    Rule(
        "G008",
        "passage-on-outer-edge",
        _E,
        "A passage lies on an outer edge without an entryway there; passages join two rooms.",
    ),
    Rule("G009", "cell-outside-grid", _E, "A passage, entryway or feature names a room outside the grid."),
    Rule(
        "G010", "unreachable-feature", _E, "A room with a feature cannot be reached from any entryway through passages."
    ),
    Rule("G011", "isolated-room", _W, "A room has no passage on any side and no entryway: no path can ever enter it."),
    Rule("G012", "too-few-trap-rooms", _W, "Fewer empty rooms than trap cards in the deck."),
    Rule("G013", "deck-too-small", _E, "The deck has too few segment and trap cards to reveal every round."),
    Rule(
        "G014",
        "deck-unknown-card",
        _E,
        "The deck names a card that is neither a segment shape of the ruleset nor trap or draw_two.",
    ),
    Rule("G015", "duplicate-passage", _W, "The same edge is listed as a passage twice."),
    Rule("G016", "duplicate-entryway", _E, "Two entryways on the same edge."),
    Rule(
        "G017",
        "grid-off-paper",
        _E,
        "The grid or its cells do not fit the printable area, or the cells are smaller than the ruleset's minimum.",
    ),
    Rule("L001", "polygon-too-few-points", _E, "An area polygon has fewer than 3 distinct points."),
    Rule("L002", "polygon-repeated-vertex", _E, "An area polygon repeats a vertex; the message names the vertex."),
    Rule(
        "L003", "polygon-self-intersection", _E, "An area polygon crosses itself; the message names the crossing edges."
    ),
    Rule("L004", "areas-overlap", _E, "Two areas overlap; areas may share edges but not surface."),
    Rule("L005", "element-outside-areas", _E, "An element lies in no area."),
    Rule("L006", "element-straddles-wall", _E, "An element's footprint crosses an area boundary or a wall."),
    Rule("L007", "elements-overlap", _E, "Two elements overlap each other."),
    Rule(
        "L008",
        "door-not-on-wall",
        _E,
        "A door does not lie on the boundary between two areas (within the ruleset's snap tolerance).",
    ),
    Rule("L009", "door-bypassed", _W, "A door's two areas are also joined by an open gap, so the door locks nothing."),
    Rule("L010", "no-start", _E, "The dungeon has no Start."),
    Rule("L011", "start-not-on-outer-boundary", _E, "A Start is not on the outer boundary of the dungeon."),
    Rule("L012", "portal-entry-without-exit", _E, "A portal entry has no exit of its colour or letter."),
    Rule(
        "L013",
        "portal-exit-without-entry",
        _W,
        "A portal exit has no entry of its colour or letter; nothing ever arrives there.",
    ),
    Rule("L014", "artifact-numbering", _E, "Artifact stones are not numbered 1..3n without gaps or repeats."),
    Rule(
        "L015",
        "end-trigger-target-missing",
        _E,
        "An end trigger names something the dungeon lacks (boss, escape portal, exit, orb colour).",
    ),
    Rule("L016", "duplicate-end-trigger", _W, "The same end trigger is listed twice."),
    Rule("L017", "orb-tokens-missing", _E, "Orbs of a colour exist but the sheet gives no token values for it."),
    Rule(
        "L018",
        "unreachable-element",
        _E,
        "An element cannot be reached from any Start, given walls, doors, keys and one-way portals.",
    ),
    Rule(
        "L019",
        "door-never-opens",
        _E,
        "A locked door can never be opened: its keys cannot be reached before it, "
        "or it needs more distinct keys than exist.",
    ),
    Rule("L020", "unreachable-area", _W, "An area cannot be reached from any Start."),
    Rule("L021", "too-small-to-print", _E, "An element or text is smaller than the ruleset's printable minimum."),
    Rule(
        "L022", "outside-printable-area", _E, "Something lies outside the paper's printable area (inside the margin)."
    ),
    Rule(
        "L023",
        "components-mismatch",
        _W,
        "The sheet's components list does not match what the dungeon uses (orbs, keys, timer).",
    ),
    Rule("L024", "wall-degenerate", _E, "A wall has fewer than 2 distinct points."),
    Rule("L025", "unused-orb-tokens", _W, "The sheet gives token values for an orb colour no orb has."),
    Rule(
        "L026",
        "door-lock-repeated",
        _E,
        "A door lists the same key colour twice, but a player holds one key of each colour.",
    ),
    Rule(
        "L027",
        "reachability-not-checked",
        _W,
        "The reachability search stopped at its state limit; unreachable elements and doors were not checked.",
    ),
    Rule(
        "L028",
        "points-closer-than-precision",
        _E,
        "Two distinct points of an area polygon, a wall or a door round to the same point at the 0.001 mm files are "
        "saved with: saving would merge them (or rounding would leave the polygon degenerate).",
    ),
    Rule(
        "L029",
        "wall-ends-nearly-meet",
        _W,
        "A wall ends closer to another wall or an area's outline than the gap a line needs, without joining it: the "
        "printed gap is closed; join them or widen the gap.",
    ),
    Rule(
        "L030",
        "wall-across-door",
        _E,
        "A wall is drawn across a door, so the door cannot be passed even with its keys.",
    ),
    Rule("L031", "doors-stacked", _E, "Two doors lie on the same stretch of wall and print on top of each other."),
    Rule(
        "L032",
        "opening-too-narrow",
        _W,
        "The gap in the wall ink between two areas is narrower than the ruleset requires (the pen width or "
        "print.min_gap_mm, switch opening_min_width): it is closed for validation, analysis and the referee.",
    ),
    Rule("L033", "door-zero-length", _E, "A door's segment has both ends at the same point."),
    Rule(
        "L034",
        "area-too-narrow",
        _E,
        "No line of the required width fits anywhere in the area's paper (between its outline's ink and the ink of "
        "its walls): it is closed for validation, analysis and the referee.",
    ),
    Rule(
        "L035",
        "door-too-narrow",
        _E,
        "A door leaves less paper than the required width clear of the wall ink either side of it (the round ends of "
        "the outline or of walls): it is closed for validation, analysis and the referee, even with its keys.",
    ),
    Rule(
        "L036",
        "area-pinched",
        _W,
        "The area's paper narrows somewhere below the required width between two parts: a line cannot get from one "
        "part to the other without crossing a wall (validation and analysis still treat the area as one).",
    ),
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}


@dataclass(frozen=True)
class Problem:
    """One problem in one file.

    ``file`` is the path as given by the user (or derived from a pack manifest), ``pointer``
    a JSON pointer into that file (``""`` is the whole document), ``severity`` defaults to
    the rule's own. ``line``/``column`` are 1-based when known (JSON syntax errors).
    """

    code: str
    message: str
    file: str
    pointer: str = ""
    severity: Severity = Severity.ERROR
    line: int | None = None
    column: int | None = None

    @property
    def rule(self) -> Rule:
        """The catalogue entry of this problem's code."""
        return RULES_BY_CODE[self.code]

    def as_dict(self) -> dict:
        """The problem as the JSON object documented in docs/formats.md (``--format json``)."""
        data: dict[str, Any] = {
            "file": self.file,
            "pointer": self.pointer,
            "severity": self.severity.value,
            "code": self.code,
            "rule": self.rule.name,
            "message": self.message,
        }
        if self.line is not None:
            data["line"] = self.line
            data["column"] = self.column
        return data


def problem(
    code: str, message: str, file: str, pointer: str = "", *, line: int | None = None, column: int | None = None
) -> Problem:
    """Make a :class:`Problem` with the severity of its rule. Raises ``KeyError`` for an unknown code."""
    return Problem(code, message, file, pointer, RULES_BY_CODE[code].severity, line, column)


def describe(kind: str, obj_id: str | None, name: str | None = None) -> str:
    """Name an object the way every message does: ``monster 'm3' ("Cave troll")``."""
    text = kind
    if obj_id:
        text += f" '{obj_id}'"
    if name:
        text += f' ("{name}")'
    return text
