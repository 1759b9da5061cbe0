"""Stage 6 of the referee: the breakdown, as JSON-ready data and as text.

:func:`breakdown` lays out what the earlier stages found the way a player checks a neighbour's
sheet: the sections in path order with their lines and subtotals, the orb tokens, the boss,
how the scrawl ended, what was ignored after an illegal crossing, notes and the total.
:func:`format_breakdown` prints it.
"""

from __future__ import annotations

from inkcrawl.engines.line.events import Events, OrbTake
from inkcrawl.engines.line.path import Path
from inkcrawl.engines.line.player import Player
from inkcrawl.engines.line.rules import INF, LineRules, describe
from inkcrawl.engines.line.score import Settled
from inkcrawl.engines.line.walk import Walk, round_point


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _in_path_order(section_lines: list[dict]) -> list[dict]:
    """A section's lines in the order the path met them: completions, keys, doors and wall
    crossings where they happened, then what was settled when the area was left (missed,
    failed, exempt, optional), in element order."""
    ordered = sorted(section_lines, key=lambda line: line.get("_t", INF))
    for line in ordered:
        line.pop("_t", None)
    return ordered


def _orb_line(rules: LineRules, take: OrbTake, t_illegal: float) -> dict:
    e = take.element
    values = rules.orb_tokens.get(take.colour, [])
    position = take.position
    ordinal = _ordinal(position)
    if take.t > t_illegal:
        return {
            "kind": "orb",
            "vp": 0,
            "element": e.id,
            "position": position,
            "text": f"{describe(e)}: {take.colour} token {ordinal} taken after the illegal crossing, 0",
        }
    if position > len(values):
        return {
            "kind": "orb",
            "vp": 0,
            "element": e.id,
            "position": position,
            "text": f"{describe(e)}: covered, no {take.colour} token left",
        }
    return {
        "kind": "orb",
        "vp": int(values[position - 1]),
        "element": e.id,
        "position": position,
        "scored": True,
        "text": f"{describe(e)}: {take.colour} token {ordinal}",
    }


def orb_lines(rules: LineRules, events: Events, walk: Walk) -> list[dict]:
    """The orb tokens taken before the end (0 after an illegal crossing), then notes."""
    out = [_orb_line(rules, take, walk.t_illegal) for take in events.takes if take.t <= events.end.t]
    out += [{"kind": "note", "vp": 0, "text": note} for note in events.orb_notes]
    return out


def _sections(rules: LineRules, path: Path, walk: Walk, settled: Settled) -> list[dict]:
    out = []
    for i, section in enumerate(walk.sections):
        area = section.area
        lines = settled.lines[i]
        out.append(
            {
                "number": i + 1,
                "area": rules.areas[area]["id"] if area >= 0 else None,
                "area_kind": rules.area_kinds[area] if area >= 0 else None,
                "name": rules.areas[area].get("name") if area >= 0 else None,
                "title": rules.area_name(area),
                "entered": section.via,
                "from_mm": round(path.length_at(section.t0), 1),
                "to_mm": round(path.length_at(section.t1), 1),
                "lines": _in_path_order(lines),
                "subtotal": sum(line["vp"] for line in lines),
            }
        )
    return out


def breakdown(
    rules: LineRules, play: dict, player: Player, path: Path, events: Events, walk: Walk, settled: Settled
) -> dict:
    """The score of the play as JSON-ready data (see :func:`format_breakdown`)."""
    sections = _sections(rules, path, walk, settled)
    orbs = orb_lines(rules, events, walk)
    orb_total = sum(line["vp"] for line in orbs)
    boss_total = sum(line["vp"] for line in settled.boss_lines)
    total = sum(s["subtotal"] for s in sections) + orb_total + boss_total
    end_t = min(events.end.t, len(path.P) - 1)
    exempt_area = walk.sections[settled.exempt].area if settled.exempt is not None else -1
    end = {
        "reason": events.end.reason,
        "element": rules.elements[events.end.element].id if events.end.element is not None else None,
        "at": round_point(path.position(end_t)),
        "length_mm": round(path.length_at(end_t), 1),
        "exempt_area": rules.areas[exempt_area]["id"] if exempt_area >= 0 else None,
    }
    illegal = walk.illegal
    return {
        "type": "score",
        "dungeon": {"id": rules.id, "title": rules.title},
        "player": play.get("player"),
        "character": play.get("character"),
        "character_name": player.character_name,
        "pen_width_mm": player.w,
        "players": player.players,
        "sections": sections,
        "orbs": {"lines": orbs, "subtotal": orb_total},
        "boss": {"lines": settled.boss_lines, "subtotal": boss_total},
        "end": end,
        "ignored": illegal
        and {"reason": illegal.text, "at": illegal.at, "length_mm": round(path.length_at(illegal.t), 1)},
        "notes": [*path.notes, *events.notes],
        "total": total,
    }


# -- text output --------------------------------------------------------------------------------


def _vp_text(vp: int) -> str:
    return f"{vp:+d}" if vp else " 0"


def format_breakdown(result: dict) -> str:
    """The breakdown as text: section by section in path order, then orb tokens, the boss,
    how the scrawl ended and the total, the way a player checks a neighbour's sheet."""
    out = []
    dungeon = result["dungeon"]
    who = result.get("player") or "the player"
    character = result.get("character_name") or "no character"
    out.append(
        f"{dungeon['title']} ({dungeon['id']}): {who}, {character}, pen {result['pen_width_mm']:g} mm, "
        f"{result['players']} player{'s' if result['players'] != 1 else ''}"
    )
    out.append("")
    for section in result["sections"]:
        title = section["title"][0].upper() + section["title"][1:]
        out.append(
            f"{section['number']}. {title}, {section['entered']} "
            f"({section['from_mm']:g}-{section['to_mm']:g} mm along the path)"
        )
        for line in section["lines"]:
            out.append(f"   {_vp_text(line['vp']):>3}  {line['text']}")
        if not section["lines"]:
            out.append("        nothing to score")
        out.append(f"   subtotal: {section['subtotal']:+d}" if section["subtotal"] else "   subtotal: 0")
    if result["orbs"]["lines"]:
        out.append("Orb tokens")
        for line in result["orbs"]["lines"]:
            out.append(f"   {_vp_text(line['vp']):>3}  {line['text']}")
        out.append(f"   subtotal: {result['orbs']['subtotal']}")
    if result["boss"]["lines"]:
        out.append("Boss")
        for line in result["boss"]["lines"]:
            out.append(f"   {_vp_text(line['vp']):>3}  {line['text']}")
        out.append(f"   subtotal: {result['boss']['subtotal']}")
    if result.get("ignored"):
        ignored = result["ignored"]
        out.append(
            f"Illegal crossing at ({ignored['at'][0]:g}, {ignored['at'][1]:g}), "
            f"{ignored['length_mm']:g} mm along the path: {ignored['reason']}"
        )
    end = result["end"]
    exempt = f"; no penalties in {end['exempt_area']}, the area it ended in" if end.get("exempt_area") else ""
    out.append(
        f"End: {end['reason']} at ({end['at'][0]:g}, {end['at'][1]:g}), {end['length_mm']:g} mm along the path{exempt}"
    )
    for note in result.get("notes") or []:
        out.append(f"Note: {note}")
    out.append(f"Total: {result['total']} VP")
    return "\n".join(out) + "\n"
