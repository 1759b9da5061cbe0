"""Element kinds as data: one typed registry of what every layer needs to know about a kind.

A ruleset's ``elements`` define each kind (DESIGN.md "Definitions as data", LDtk's
definitions versus instances): its rules (interaction, VP, penalty, tolerances, placement,
variants, colours) and how it is made and shown: its display ``name``, the default
``size_mm`` of a new element, the editor's ``shortcut`` letter, the ``id_prefix`` of new
ids, the ``members`` an element of the kind takes besides its geometry (``vp``, ``variant``,
``number``, ``colour``, ``channel``), its ``footprint`` shape (``disc``, ``segment`` for
doors, ``text`` for labels), its printed ``glyph`` and the palette ``colour_role`` it prints
in. The schema (checked against the bundled rulesets by a test), the editor's tools and
inspector, the importers, the exporters, game data and the engines read
:func:`element_kinds`, so a designer's new kind with an existing interaction needs no code.

A member a ruleset leaves out is taken from the bundled definition of the same kind id (a
variant ruleset copied before these members existed keeps its look), else from generic
defaults: the id as name, an 8 mm disc, the generic glyph (a double ring with the kind's
initial), no shortcut.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Members an element may take besides its geometry (``at``, ``size_mm``, ``rotation_deg``).
VALUE_MEMBERS = ("vp", "variant", "number", "colour", "channel")
#: Footprint shapes: a disc at ``at`` of diameter ``size_mm``, a door's ``segment``, a label's text.
FOOTPRINTS = ("disc", "segment", "text")
#: Default diameter (mm) of a new element of a kind that gives none.
DEFAULT_SIZE_MM = 8.0
#: Glyph of a kind that names none (a double ring with the kind's initial).
GENERIC_GLYPH = "generic"


@dataclass(frozen=True)
class ElementKind:
    """One element kind of a ruleset, every member resolved.

    ``kind`` is the id (``monster``); ``name`` its display name; ``description`` the rule in a
    sentence; ``interaction``, ``vp`` (``None``: from the sheet or a token), ``penalty`` and
    ``placement`` as the ruleset defines them (RULES.md 2, Elements); ``size_mm`` the default
    diameter of a new element in mm (``None`` for doors and labels); ``shortcut`` the editor's
    letter (``None``: the editor picks a free one); ``id_prefix`` of new element ids;
    ``members`` the value members it takes (a subset of :data:`VALUE_MEMBERS`); ``footprint``
    one of :data:`FOOTPRINTS`; ``glyph`` the printed glyph's name (an unknown name prints the
    generic glyph); ``colour_role`` the palette role it prints in; ``variants`` and ``colours``
    its allowed named values (a ``colour`` member without ``colours`` takes the key colours).
    """

    kind: str
    name: str
    description: str
    interaction: str
    vp: int | None
    penalty: bool
    placement: str
    size_mm: float | None
    shortcut: str | None
    id_prefix: str
    members: tuple[str, ...]
    footprint: str
    glyph: str
    colour_role: str
    variants: tuple[str, ...] = ()
    colours: tuple[str, ...] = ()

    @property
    def on_wall(self) -> bool:
        """Whether elements of this kind sit on the dungeon's outer wall (Starts)."""
        return self.placement == "outer_boundary"

    @property
    def element_members(self) -> frozenset[str]:
        """Every member an element of this kind takes besides ``id`` and ``kind``: its
        geometry by footprint (a disc: ``at``, ``size_mm``, ``rotation_deg``; a segment:
        ``segment`` and ``locks``; text: ``at``, ``rotation_deg``, ``text``,
        ``text_height_mm``), ``name`` and its value members (schemas/dungeon.schema.json)."""
        geometry = {
            "disc": ("at", "size_mm", "rotation_deg"),
            "segment": ("segment", "locks"),
            "text": ("at", "rotation_deg", "text", "text_height_mm"),
        }[self.footprint]
        return frozenset((*geometry, "name", *self.members))

    @property
    def uses_key_colours(self) -> bool:
        """Whether its ``colour`` member takes a key colour of the ruleset (keys)."""
        return "colour" in self.members and not self.colours


def _footprint(definition: dict) -> str:
    placement = definition.get("placement")
    if placement == "between_areas":
        return "segment"
    if placement == "anywhere" and definition.get("interaction") == "none":
        return "text"
    return "disc"


def resolve_kind(kind: str, definition: dict, fallback: dict | None = None) -> ElementKind:
    """The :class:`ElementKind` of one line-family ruleset definition; ``fallback`` is the
    bundled definition of the same kind id (its members fill what ``definition`` leaves out).
    Expects a schema-valid definition (``schemas/ruleset.schema.json``)."""
    base = dict(fallback or {})

    def get(member: str, default):
        if member in definition:
            return definition[member]
        return base.get(member, default)

    footprint = get("footprint", _footprint(definition))
    size = get("size_mm", DEFAULT_SIZE_MM if footprint == "disc" else None)
    return ElementKind(
        kind=kind,
        name=get("name", kind.replace("_", " ").capitalize()),
        description=str(definition.get("description", "")),
        interaction=str(definition.get("interaction", "none")),
        vp=definition.get("vp"),
        penalty=bool(definition.get("penalty", False)),
        placement=str(definition.get("placement", "inside_area")),
        size_mm=float(size) if size is not None else None,
        shortcut=get("shortcut", None),
        id_prefix=get("id_prefix", kind.replace("_", "-")),
        members=tuple(get("members", ())),
        footprint=footprint,
        glyph=get("glyph", GENERIC_GLYPH),
        colour_role=get("colour_role", "ink"),
        variants=tuple(definition.get("variants", ())),
        colours=tuple(definition.get("colours", ())),
    )


def element_kinds(ruleset_data: dict, bundled: dict[str, dict] | None = None) -> dict[str, ElementKind]:
    """Every element kind of a line-family ruleset (``Ruleset.data``), in file order.

    ``bundled`` maps kind ids to the bundled line ruleset's definitions, whose members fill
    what a variant ruleset leaves out (:attr:`inkcrawl.rulesets.Ruleset.kinds` passes them).
    """
    bundled = bundled or {}
    return {
        kind: resolve_kind(kind, definition, bundled.get(kind))
        for kind, definition in (ruleset_data.get("elements") or {}).items()
    }
