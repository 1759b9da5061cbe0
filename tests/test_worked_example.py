"""The rulebook's scoring example, replayed on a dungeon of our own: it still scores 17 VP.

Issue "One sheet, one geometry": "the rulebook's worked example still scores 17". The example
(seeds/dungeon-scrawlers-rulebook.txt, "Scoring Example") is prose about a published sheet we do
not copy; this module builds an ORIGINAL line dungeon with the same structure, "The Inkwell
Warren", draws a line that follows the example's route, and checks every number by hand.

Every expected number is computed by hand from RULES.md section 2 (the line family: the Elements
table, the Drawing rules and the "Gaps and defaults") and follows the rulebook's example.
Sections are areas in path order (docs/play-files.md, "The breakdown")::

    area    what the line does (the rulebook's example)                  VP  source
    r1-r4   2 elements completed in each room                            +8  Elements: 1 VP each
    r5      monsters m3, m4 covered (+2); treasure t2 left undone (-1)   +1  Drawing rule 3
    c1      plants p3, p4 passed through (+2); touches the wall at the   +1  Drawing rule 2; Gaps, last
            entrance (free); crosses the stub w9, staying in c1 (-1)         bullet: printed 2, is 1
    r6, r7  2 elements completed in each room                            +4  Elements
    c2      plant p6 passed through (+1); out through c2's bottom wall    0  Drawing rule 2; Gaps:
            and back into c2 (-1)                                            per excursion
    r8      monster m6 only half covered: a failed attempt                0  Drawing rule 3
    r9      stones 1-3 connected in order (+1), 4-6 untouched (-1)        0  Gaps: artifacts
    r10     spells s4, s5, s6 traced                                     +3  Elements
    r11     entered through wall w8: illegal, the rest is ignored; the    0  Drawing rule 2; Gaps: "A
            boss b1 covered there still ends the scrawl, scores 0            boss covered after ..."
    total   8 + 1 + 1 + 4 + 0 + 0 + 3, the rulebook's sections (r6, r7   17  the rulebook example
            and c2 are its "4VP" section; r10 and the boss its "3VP")

The Inkwell Warren (line-classic, A4, 10 mm margin; 1 column = 4 mm; rows at the y values shown).
``|`` and ``-`` are area outlines; ``:`` and ``.`` openings in a shared edge (a shared edge is open
wherever no wall lies on it); ``#`` explicit walls: on shared edges of rooms, closing all but a
10 mm opening, and the stub w9 jutting down from c1's top wall (x=112, y 72..80)::

    y=20   +--st1----+---------+---------+---------+
    y=28   | r1      # pr1     #  s1     #  p2     |
    y=40   | m1      :  r2     :  r3     :  r4  s2 |
    y=50   |      p1 #     t1  #      m2 #         |
    y=60   +---------+---------+---------+######..#+
    y=66                                 |   r5    |
    y=70        +---------+              |         |
    y=72        | r6      +----- c1 -----+  m3   m4|
    y=80        |  pr2    :   p4  #w9 p3 :         |
    y=88        |         +--------------+     t2  |
    y=96        |    m5   |              |         |
    y=100       |         |              +---------+
    y=110       +###...###+              +---------+
    y=116       | r7      |              |   r8    |
    y=122       |  s3     +----- c2 -----+    m6   |
    y=130       |         :    p6        :         |
    y=138       |      p5 +--------------+         |
    y=144       |         |              |         |
    y=150       +---------+    +---------+###...###+
    y=156                      |  r10    # a1    a2|
    y=160       +--------------+  s5   s4#         |
    y=168       | r11          #         :       a3|
    y=176       |              :    s6   #     r9  |
    y=184       |      b1   w8 #         # a4 a5 a6|
    y=190       |              +---------+---------+
    y=200       |              |
    y=210       +--------------+
           x=20 x=40      x=80 x=100     x=140     x=180

Areas: r1 Gatehouse (x 20..60), r2 Guardroom (60..100), r3 Chapel (100..140), r4 Armoury
(140..180), all y 20..60; r5 Kennels (140..180, y 60..100); corridor c1 (80..140, y 72..88);
r6 Cells (40..80, y 70..110); r7 Garden (40..80, y 110..150); corridor c2 (80..140, y 122..138);
r8 Larder (140..180, y 110..150); r9 Reliquary (140..180, y 150..190); r10 Library (100..140,
y 150..190); r11 Throne Room (40..100, y 160..210). Openings: r1|r2, r2|r3, r3|r4 at y 35..45;
r4|r5 x 165..175; r6|r7 x 55..65; r8|r9 x 155..165; r9|r10 y 165..175; r10|r11 y 170..180
(w8 closes y 180..190); the corridors open over their whole 16 mm ends. Start st1 on r1's top
wall. The sheet's only end trigger: boss covered (b1, 5 VP). Pen 1.5 mm (line-classic).

The route (``ROUTE``, one polyline): r1 -> r2 -> r3 -> r4 -> r5 -> c1 (entering along its top wall,
touching it; across the stub w9 at (112, 77)) -> r6 -> r7 -> c2 (out through its bottom wall at
x=118, back at x=122) -> r8 -> r9 -> r10 -> through wall w8 at (100, 186) into r11 -> cover b1.
"""

from __future__ import annotations

import functools
import json

import shapely
from test_referee import cover

from inkcrawl import shapes
from inkcrawl.cli import main
from inkcrawl.engines.line import LineRules, format_breakdown, referee
from inkcrawl.gamedata import line_game_data
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import bundled_rulesets
from inkcrawl.validate import RulesetRegistry, check_dungeon_data

W = 1.5  # line-classic pen width (mm)
BOSS_VP = 5

# -- the dungeon ----------------------------------------------------------------------------------


def _room(ident: str, name: str, x0: float, y0: float, x1: float, y1: float, kind: str = "room") -> dict:
    area = {"id": ident, "kind": kind, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}
    if name:
        area["name"] = name
    return area


def _el(ident: str, kind: str, at, size: float, **extra) -> dict:
    return {"id": ident, "kind": kind, "at": list(at), "size_mm": size, "rotation_deg": 0, **extra}


def _wall(ident: str, a, b) -> dict:
    return {"id": ident, "points": [list(a), list(b)]}


def warren_dungeon() -> dict:
    """The Inkwell Warren (see the module docstring for the map)."""
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "inkwell-warren",
        "family": "line",
        "ruleset": "line-classic",
        "sheet": {
            "title": "The Inkwell Warren",
            "paper": {"width_mm": 210, "height_mm": 297, "margin_mm": 10},
            "reminders": ["Cover the Ink Tyrant to end the scrawl."],
            "components": [],
            "end_triggers": [{"kind": "boss_covered"}],
            "orb_tokens": {},
        },
        "areas": [
            _room("r1", "Gatehouse", 20, 20, 60, 60),
            _room("r2", "Guardroom", 60, 20, 100, 60),
            _room("r3", "Chapel", 100, 20, 140, 60),
            _room("r4", "Armoury", 140, 20, 180, 60),
            _room("r5", "Kennels", 140, 60, 180, 100),
            _room("c1", "", 80, 72, 140, 88, kind="corridor"),
            _room("r6", "Cells", 40, 70, 80, 110),
            _room("r7", "Garden", 40, 110, 80, 150),
            _room("c2", "", 80, 122, 140, 138, kind="corridor"),
            _room("r8", "Larder", 140, 110, 180, 150),
            _room("r9", "Reliquary", 140, 150, 180, 190),
            _room("r10", "Library", 100, 150, 140, 190),
            _room("r11", "Throne Room", 40, 160, 100, 210),
        ],
        "walls": [
            # room to room: each shared edge closed but for a 10 mm opening
            _wall("w1", (60, 20), (60, 35)),
            _wall("w2", (60, 45), (60, 60)),  # r1|r2, open y 35..45
            _wall("w3", (100, 20), (100, 35)),
            _wall("w4", (100, 45), (100, 60)),  # r2|r3
            _wall("w5", (140, 20), (140, 35)),
            _wall("w6", (140, 45), (140, 60)),  # r3|r4
            _wall("w7", (140, 60), (165, 60)),
            _wall("w10", (175, 60), (180, 60)),  # r4|r5, open x 165..175
            _wall("w11", (40, 110), (55, 110)),
            _wall("w12", (65, 110), (80, 110)),  # r6|r7, open x 55..65
            _wall("w13", (140, 150), (155, 150)),
            _wall("w14", (165, 150), (180, 150)),  # r8|r9, open x 155..165
            _wall("w15", (140, 150), (140, 165)),
            _wall("w16", (140, 175), (140, 190)),  # r9|r10, open y 165..175
            _wall("w17", (100, 160), (100, 170)),
            _wall("w8", (100, 180), (100, 190)),  # r10|r11, open y 170..180
            # a stub jutting down from c1's top wall into the corridor
            _wall("w9", (112, 72), (112, 80)),
        ],
        "elements": [
            _el("st1", "start", (40, 20), 8),
            # r1 Gatehouse
            _el("m1", "monster", (30, 35), 8, name="Gate Rat"),
            _el("p1", "plant", (48, 47), 7),
            # r2 Guardroom
            _el("pr1", "prisoner", (70, 28), 7, name="Lost Scribe"),
            _el("t1", "treasure", (86, 46), 10, variant="chest", name="Pay Chest"),
            # r3 Chapel
            _el("s1", "spell", (112, 32), 10, variant="bolt"),
            _el("m2", "monster", (128, 47), 8),
            # r4 Armoury
            _el("p2", "plant", (152, 32), 7),
            _el("s2", "spell", (168, 44), 10, variant="ward"),
            # r5 Kennels
            _el("m3", "monster", (152, 74), 8, name="Blot Hound"),
            _el("m4", "monster", (170, 72), 8, name="Blot Hound"),
            _el("t2", "treasure", (165, 90), 10, variant="goblet"),
            # c1
            _el("p3", "plant", (128, 81), 7),
            _el("p4", "plant", (96, 81), 7),
            # r6 Cells
            _el("pr2", "prisoner", (50, 80), 7),
            _el("m5", "monster", (62, 96), 8),
            # r7 Garden
            _el("s3", "spell", (50, 126), 10, variant="star"),
            _el("p5", "plant", (66, 140), 7),
            # c2
            _el("p6", "plant", (100, 130), 7),
            # r8 Larder
            _el("m6", "monster", (160, 125), 8, name="Quill Mite"),
            # r9 Reliquary: stones 1-3 near the door, 4-6 along the bottom
            _el("a1", "artifact_stone", (150, 158), 5, number=1),
            _el("a2", "artifact_stone", (170, 158), 5, number=2),
            _el("a3", "artifact_stone", (170, 170), 5, number=3),
            _el("a4", "artifact_stone", (150, 181), 5, number=4),
            _el("a5", "artifact_stone", (160, 184), 5, number=5),
            _el("a6", "artifact_stone", (172, 182), 5, number=6),
            # r10 Library
            _el("s4", "spell", (131, 161), 10, variant="bolt"),
            _el("s5", "spell", (113, 163), 10, variant="ward"),
            _el("s6", "spell", (121, 179), 10, variant="star"),
            # r11 Throne Room
            _el("b1", "boss", (70, 185), 16, vp=BOSS_VP, name="The Ink Tyrant"),
        ],
    }


# -- the play: the rulebook's route, drawn on the Warren ------------------------------------------------


def spell(variant: str, at, size: float = 10) -> list:
    return shapes.spell_trace(variant, at, size)[0]


def treasure(variant: str, at, size: float = 10) -> list:
    return shapes.treasure_outline(variant, at, size)


#: From r5 into c1 1 mm below c1's top wall (y=72): the stroke touches the wall's ink at the
#: corridor entrance, the centre line stays on the paper (no crossing).
C1_ENTRANCE = [(143, 73), (136, 73)]
#: Across wall stub w9 (x=112, y 72..80) at y=77, staying in c1.
ACROSS_W9 = [(116, 77), (108, 77)]
#: Out of c2 through its bottom wall (y=138) at x=118 and back in at x=122.
OUT_OF_C2_AND_BACK = [(118, 134), (118, 142), (122, 142), (122, 134)]
#: From r10 through wall w8 (x=100, y 180..190) into r11: illegal.
INTO_R11 = [(104, 186), (96, 186)]

ROUTE = {
    # r1: from the Start, cover m1 (+1), through plant p1 west to east (+1), to r2
    "r1": [(40, 20), (40, 28)] + cover(30, 35, 8) + [(42, 47), (54, 47), (58, 40)],
    # r2: touch prisoner pr1 (+1), trace chest t1 (+1), to r3
    "r2": [(62, 40), (70, 28)] + treasure("chest", (86, 46)) + [(97, 40)],
    # r3: trace bolt s1 (+1), cover m2 (+1), to r4
    "r3": [(102, 40)] + spell("bolt", (112, 32)) + cover(128, 47, 8) + [(137, 40)],
    # r4: through plant p2 bottom to top (+1), trace ward s2 (+1), down to r5
    "r4": [(142, 40), (152, 40), (152, 24)] + spell("ward", (168, 44)) + [(170, 58)],
    # r5: cover m4 and m3 (+2); goblet t2 never touched (-1 when r5 is left)
    "r5": [(170, 62)] + cover(170, 72, 8) + cover(152, 74, 8),
    # c1: in along its top wall (touching it: free), through p3 (+1), across w9 (-1), through p4 (+1)
    "c1": C1_ENTRANCE + [(134, 81), (122, 81)] + ACROSS_W9 + [(102, 81), (90, 81)],
    # r6: touch prisoner pr2 (+1), cover m5 (+1), down to r7
    "r6": [(78, 81), (50, 80)] + cover(62, 96, 8) + [(60, 106)],
    # r7: trace star s3 (+1), through plant p5 (+1), to c2
    "r7": [(60, 112)] + spell("star", (50, 126)) + [(60, 140), (72, 140), (76, 130)],
    # c2: through plant p6 (+1), out through the bottom wall and back (-1), to r8
    "c2": [(82, 130), (94, 130), (106, 130)] + OUT_OF_C2_AND_BACK + [(138, 130)],
    # r8: cover only the top half of m6 (failed: 0), round it, down to r9
    "r8": [(142, 130)] + cover(160, 125, 8, fraction=0.5) + [(154, 134), (160, 146)],
    # r9: stones 1, 2, 3 in order (+1); 4, 5, 6 untouched (-1); to r10
    "r9": [(160, 152), (150, 158), (170, 158), (170, 170), (142, 170)],
    # r10: trace s4, s5, s6 (+3), then through wall w8 into r11
    "r10": [(138, 170)]
    + spell("bolt", (131, 161))
    + spell("ward", (113, 163))
    + spell("star", (121, 179))
    + INTO_R11[:1],
    # r11 (ignored after the illegal crossing): the boss covered ends the scrawl and scores 0
    "r11": INTO_R11[1:] + cover(70, 185, 16),
}

PATH = [point for piece in ROUTE.values() for point in piece]
PLAY = {
    "type": "play",
    "format_version": 1,
    "dungeon": "inkwell-warren",
    "player": "Jane",
    "path": [[[float(x), float(y)] for x, y in PATH]],
}

# -- the expected breakdown, by hand (see the module docstring) -------------------------------------

EXPECTED_SECTIONS = [
    ("r1", 2),
    ("r2", 2),
    ("r3", 2),
    ("r4", 2),  # rulebook: "2VP from each room ... 8VP"
    ("r5", 1),  # 2 monsters +2, one element left -1
    ("c1", 1),  # 2 plants +2, one crossing -1 (RULES.md 2: not 2)
    ("r6", 2),
    ("r7", 2),  # "2 rooms without a mistake, getting 4VP"
    ("c2", 0),  # 1 plant +1, one crossing -1
    ("r8", 0),  # the monster only partly covered: 0
    ("r9", 0),  # first triple +1, other triple -1
    ("r10", 3),  # 3 spells
]
#: The rulebook's own sections: 8, 1, 1 (printed 2; RULES.md 2), 4, 0, 0, 3.
RULEBOOK_SECTIONS = [
    (("r1", "r2", "r3", "r4"), 8),
    (("r5",), 1),
    (("c1",), 1),
    (("r6", "r7", "c2"), 4),
    (("r8",), 0),
    (("r9",), 0),
    (("r10",), 3),
]
TOTAL = 17


def _registry_problems(dungeon: dict) -> list:
    problems, _ = check_dungeon_data(dungeon, "inkwell-warren.json", RulesetRegistry())
    return problems


def _entry() -> dict:
    return line_game_data(dungeon_from_dict(warren_dungeon()), bundled_rulesets()["line-classic"])


def score(path: list) -> dict:
    """The referee's breakdown of a play of ``path`` (one polyline) on the Warren."""
    return referee(LineRules(_entry()), {**PLAY, "path": [[[float(x), float(y)] for x, y in path]]})


@functools.cache
def result() -> dict:
    """The referee's breakdown of the play (computed once; the tests only read it)."""
    return referee(LineRules(_entry()), PLAY)


def section(area: str) -> dict:
    [found] = [s for s in result()["sections"] if s["area"] == area]
    return found


def kinds(area: str) -> dict[str, tuple[str, int]]:
    """element id -> (line kind, VP) for the lines of an area's section."""
    return {line["element"]: (line["kind"], line["vp"]) for line in section(area)["lines"] if line.get("element")}


def crossings(area: str) -> list[dict]:
    return [line for line in section(area)["lines"] if line["kind"] == "wall_crossing"]


# -- the tests ---------------------------------------------------------------------------------------


def test_the_warren_validates_without_errors():
    problems = _registry_problems(warren_dungeon())
    errors = [f"{p.pointer}: {p.code} {p.message}" for p in problems if p.severity.value == "error"]
    assert errors == []


def test_sections_follow_the_route_with_the_subtotals_computed_by_hand():
    assert [(s["area"], s["subtotal"]) for s in result()["sections"]] == EXPECTED_SECTIONS
    by_area = {s["area"]: s["subtotal"] for s in result()["sections"]}
    assert [(areas, sum(by_area[a] for a in areas)) for areas, _ in RULEBOOK_SECTIONS] == RULEBOOK_SECTIONS


def test_first_four_rooms_two_elements_each():
    assert kinds("r1") == {"m1": ("completed", 1), "p1": ("completed", 1)}
    assert kinds("r2") == {"pr1": ("completed", 1), "t1": ("completed", 1)}
    assert kinds("r3") == {"s1": ("completed", 1), "m2": ("completed", 1)}
    assert kinds("r4") == {"p2": ("completed", 1), "s2": ("completed", 1)}
    assert all(crossings(area) == [] for area in ("r1", "r2", "r3", "r4"))


def test_two_monsters_covered_and_one_element_left_undone():
    # Drawing rule 3: leaving a room with an element not completed costs its VP
    assert kinds("r5") == {"m3": ("completed", 1), "m4": ("completed", 1), "t2": ("missed", -1)}


def test_first_corridor_touch_at_the_entrance_is_free_and_the_crossing_costs_one():
    assert kinds("c1") == {"p3": ("completed", 1), "p4": ("completed", 1)}
    # The entrance piece really touches printed wall ink (the game data's walls, each printed
    # width_mm wide): the stroke (the line buffered by half the pen) reaches the ink of c1's top
    # wall, while the centre line stays on the paper.
    entrance = shapely.LineString(C1_ENTRANCE)
    gaps = [
        entrance.distance(shapely.LineString(wall["points"])) - wall["width_mm"] / 2
        for wall in _entry()["walls"]
        if wall["width_mm"] > 0
    ]
    assert 0 < min(gaps) <= W / 2
    # RULES.md 2, Drawing rule 2: touching is free; the one crossing (-1) is the stub w9 at y=77
    [crossing] = crossings("c1")
    assert crossing["vp"] == -1 and crossing["at"] == [112.0, 77.0]
    assert "staying in the same area" in crossing["text"]
    assert section("c1")["subtotal"] == 1  # 2 + (-1), not the 2 the rulebook prints


def test_the_entrance_touch_changes_nothing():
    """Control: entering c1 through the middle of its opening, off every wall, scores the same."""
    route = {**ROUTE, "c1": [(143, 80), (136, 80)] + ROUTE["c1"][len(C1_ENTRANCE) :]}
    path = [point for piece in route.values() for point in piece]
    outcome = score(path)
    assert [(s["area"], s["subtotal"]) for s in outcome["sections"]] == EXPECTED_SECTIONS
    assert outcome["total"] == TOTAL


def test_two_rooms_without_a_mistake_and_a_corridor_with_one_plant_and_one_crossing():
    assert kinds("r6") == {"pr2": ("completed", 1), "m5": ("completed", 1)}
    assert kinds("r7") == {"s3": ("completed", 1), "p5": ("completed", 1)}
    assert kinds("c2") == {"p6": ("completed", 1)}
    # out through c2's bottom wall and back into c2: one excursion, -1
    [crossing] = crossings("c2")
    assert crossing["vp"] == -1 and crossing["at"] == [118.0, 138.0]
    assert "came back into the same area" in crossing["text"]
    assert section("r6")["subtotal"] + section("r7")["subtotal"] + section("c2")["subtotal"] == 4


def test_partly_covered_monster_scores_nothing_and_costs_nothing():
    # Drawing rule 3: a failed attempt scores 0 and no penalty
    assert kinds("r8") == {"m6": ("failed", 0)}


def test_artifact_triples_one_connected_one_untouched():
    # RULES.md 2 Gaps: a completed triple +1, an untouched triple -1
    assert kinds("r9") == {"a1,a2,a3": ("completed", 1), "a4,a5,a6": ("missed", -1)}


def test_three_spells_then_an_illegal_crossing_into_the_boss_room():
    outcome = result()
    assert kinds("r10") == {"s4": ("completed", 1), "s5": ("completed", 1), "s6": ("completed", 1)}
    # Drawing rule 2: through wall w8 (x=100) into r11, everything after is ignored: r11 is no section
    assert outcome["ignored"] is not None and outcome["ignored"]["at"] == [100.0, 186.0]
    assert "r11" in outcome["ignored"]["reason"]
    assert "r11" not in [s["area"] for s in outcome["sections"]]
    # RULES.md 2 Gaps: the boss covered after the illegal crossing ends the scrawl, scores 0
    assert outcome["boss"]["subtotal"] == 0
    [boss_line] = outcome["boss"]["lines"]
    assert boss_line["element"] == "b1" and boss_line["vp"] == 0
    assert "after the illegal crossing" in boss_line["text"]
    assert "covered" in outcome["end"]["reason"]
    assert outcome["end"]["exempt_area"] is None  # no area is exempt after an illegal crossing
    assert outcome["orbs"]["subtotal"] == 0


def test_total_is_seventeen():
    outcome = result()
    assert outcome["total"] == TOTAL == 8 + 1 + 1 + 4 + 0 + 0 + 3
    assert sum(s["subtotal"] for s in outcome["sections"]) + outcome["boss"]["subtotal"] == TOTAL
    # everything scored is listed: no element met outside the lines checked above
    listed = {line.get("element") for s in outcome["sections"] for line in s["lines"]} - {None}
    assert listed == {
        e["id"] for e in warren_dungeon()["elements"] if e["kind"] not in ("start", "boss", "artifact_stone")
    } | {"a1,a2,a3", "a4,a5,a6"}
    text = format_breakdown(outcome)
    assert "Total: 17 VP" in text


def test_the_boss_would_score_its_vp_without_the_illegal_crossing():
    """Control: the same route through the r10|r11 opening (y 170..180) instead of wall w8 is
    legal; the boss then scores its printed VP and r10 is left normally."""
    legal = PATH[: PATH.index(INTO_R11[0])] + [(104, 175), (96, 175)] + cover(70, 185, 16)
    outcome = score(legal)
    assert outcome["ignored"] is None
    assert [s["area"] for s in outcome["sections"]][-1] == "r11"
    assert outcome["boss"]["subtotal"] == BOSS_VP and outcome["total"] == TOTAL + BOSS_VP


def test_cli_score_prints_total_17(tmp_path, capsys):
    dungeon_file = tmp_path / "inkwell-warren.json"
    dungeon_file.write_text(json.dumps(warren_dungeon(), indent=1), encoding="utf-8")
    play_file = tmp_path / "jane.play.json"
    play_file.write_text(json.dumps(PLAY), encoding="utf-8")
    status = main(["score", str(dungeon_file), str(play_file)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "Total: 17 VP" in out
    assert "1. Room r1 (Gatehouse)" in out
