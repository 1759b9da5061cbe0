"""``inkcrawl generate`` for the grid family (issue #14): every dungeon validates with no errors,
seeds give distinct dungeons and the same seed the same bytes, impossible constraints are
explained naming the constraint, distance rules and difficulty targets hold as measured here."""

from __future__ import annotations

import copy
import json
import time
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkcrawl.cli import main
from inkcrawl.gamedata import grid_game_data
from inkcrawl.generate import Infeasible, generate_grid, grid_spec
from inkcrawl.jsonio import dumps_canonical
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import Ruleset
from inkcrawl.schema import schema_problems
from inkcrawl.simulate import simulate
from inkcrawl.validate import RulesetRegistry, check_dungeon_data, validate_paths

CLASSIC = RulesetRegistry().get("grid-classic")
STEP = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


def _constraints(**grid) -> dict:
    return {"type": "constraints", "format_version": 1, "family": "grid", "grid": grid}


def _loose_ruleset() -> Ruleset:
    """grid-classic with wide count ranges, so constraint sets can vary every count."""
    data = copy.deepcopy(CLASSIC.data)
    data["id"] = "grid-loose"
    for kind in ("loot", "weapon", "monster"):
        data["elements"][kind]["count"] = {"min": 0, "max": 8}
    data["elements"]["dragon"]["count"] = {"min": 0, "max": 1}
    data["entryways"]["count"] = {"min": 0, "max": 40}
    data["deck"]["trap"] = 2
    return Ruleset(data)


LOOSE = _loose_ruleset()


def _errors(data: dict, ruleset: Ruleset) -> list:
    problems, _ = check_dungeon_data(json.loads(dumps_canonical(data)), "t", RulesetRegistry([ruleset]))
    return [(p.code, p.pointer, p.message) for p in problems if p.severity == "error"]


def _graph(data: dict) -> dict[tuple, set[tuple]]:
    """Hand-built passage graph: room -> rooms one passage away."""
    columns, rows = data["grid"]["columns"], data["grid"]["rows"]
    graph: dict[tuple, set[tuple]] = {(c, r): set() for c in range(columns) for r in range(rows)}
    for passage in data["passages"]:
        a = tuple(passage["cell"])
        dc, dr = STEP[passage["side"]]
        b = (a[0] + dc, a[1] + dr)
        graph[a].add(b)
        graph[b].add(a)
    return graph


def _bfs(graph: dict, start: set[tuple]) -> dict[tuple, int]:
    seen = dict.fromkeys(start, 0)
    queue = deque(start)
    while queue:
        room = queue.popleft()
        for other in graph[room]:
            if other not in seen:
                seen[other] = seen[room] + 1
                queue.append(other)
    return seen


def _layout(data: dict) -> str:
    return json.dumps([data["passages"], data["entryways"], data["features"]], sort_keys=True)


# Validity, variety, determinism -------------------------------------------------------------


def test_200_seeds_validate_with_no_errors_and_give_200_distinct_dungeons():
    spec = grid_spec(None, CLASSIC)
    layouts = set()
    for seed in range(200):
        data = generate_grid(spec, seed).data
        assert _errors(data, CLASSIC) == []
        layouts.add(_layout(data))
    assert len(layouts) == 200


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    columns=st.integers(3, 9),
    rows=st.integers(3, 9),
    loot=st.integers(0, 8),
    dragon=st.integers(0, 1),
    pairs=st.integers(0, 6),
    entryways=st.integers(1, 12),
    density=st.floats(0.3, 1.0),
    reachable=st.booleans(),
    dragon_steps=st.integers(0, 4),
    monster_steps=st.integers(0, 4),
)
def test_any_constraint_set_gives_a_valid_dungeon_or_names_the_constraint(
    seed, columns, rows, loot, dragon, pairs, entryways, density, reachable, dragon_steps, monster_steps
):
    constraints = _constraints(
        columns=columns,
        rows=rows,
        entryways=entryways,
        features={"loot": loot, "dragon": dragon, "pairs": pairs},
        passages={"density": density, "every_room_reachable": reachable},
        distances={"dragon_from_entryways": dragon_steps, "monster_from_weapon": monster_steps},
    )
    spec = grid_spec(constraints, LOOSE)
    try:
        result = generate_grid(spec, seed, time_limit=2.0)
    except Infeasible as exc:
        assert exc.constraint.startswith("grid.")
        assert exc.constraint in str(exc)
        return
    data = result.data
    assert _errors(data, LOOSE) == []
    kinds = [f["kind"] for f in data["features"]]
    assert (kinds.count("loot"), kinds.count("dragon"), kinds.count("weapon")) == (loot, dragon, pairs)
    assert kinds.count("monster") == pairs and len(data["entryways"]) == entryways
    graph = _graph(data)
    entry_rooms = {tuple(e["cell"]) for e in data["entryways"]}
    reach = _bfs(graph, entry_rooms)
    if reachable:
        assert len(reach) == columns * rows
    for feature in data["features"]:
        assert tuple(feature["cell"]) in reach
        if feature["kind"] == "dragon":
            assert reach[tuple(feature["cell"])] >= dragon_steps
    inner = columns * (rows - 1) + rows * (columns - 1)
    if not reachable:  # pruned to the density, unless a feature or a lonely room needs more
        assert len(data["passages"]) >= min(round(density * inner), columns * rows - len(entry_rooms))


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_dungeon(tmp_path, capsys):
    first, again, other = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    for path, seed in ((first, 11), (again, 11), (other, 12)):
        assert main(["generate", "--family", "grid", "--seed", str(seed), "-o", str(path)]) == 0
    capsys.readouterr()
    # the id comes from the file name: compare everything else
    a, b, c = (json.loads(p.read_text()) for p in (first, again, other))
    b["id"] = a["id"]
    assert dumps_canonical(a) == dumps_canonical(b)
    assert _layout(a) != _layout(c)
    spec = grid_spec(None, CLASSIC)
    assert dumps_canonical(generate_grid(spec, 5).data) == dumps_canonical(generate_grid(spec, 5).data)


# Distance rules, measured by hand -----------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_distance_rules_hold_when_measured_by_breadth_first_search(seed):
    spec = grid_spec(_constraints(distances={"dragon_from_entryways": 6, "monster_from_weapon": 7}), CLASSIC)
    data = generate_grid(spec, seed).data
    graph = _graph(data)
    entry_rooms = [tuple(e["cell"]) for e in data["entryways"]]
    dragon = next(tuple(f["cell"]) for f in data["features"] if f["kind"] == "dragon")
    for room in entry_rooms:
        assert _bfs(graph, {room}).get(dragon, 10**6) >= 6
    weapons = {f["letter"]: tuple(f["cell"]) for f in data["features"] if f["kind"] == "weapon"}
    for monster in (f for f in data["features"] if f["kind"] == "monster"):
        assert _bfs(graph, {weapons[monster["letter"]]}).get(tuple(monster["cell"]), 10**6) >= 7


# Difficulty targets, measured by simulate ---------------------------------------------------


def _mean(data: dict, ruleset: Ruleset = CLASSIC) -> float:
    entry = grid_game_data(dungeon_from_dict(data), ruleset)
    return simulate(entry, 200, 2, "greedy", 1)["score"]["mean"]


def test_a_difficulty_range_is_met_as_measured_by_simulate():
    spec = grid_spec(_constraints(difficulty={"mean_score": [6, 9]}), CLASSIC)
    result = generate_grid(spec, 4, time_limit=60)
    assert 6 <= _mean(result.data) <= 9
    assert result.mean_score == _mean(result.data)


def test_a_pack_follows_the_difficulty_curve(tmp_path, capsys):
    path = tmp_path / "constraints.json"
    path.write_text(json.dumps(_constraints(difficulty={"mean_score": {"from": [0, 4], "to": [12, 16]}})))
    pack = tmp_path / "rising"
    argv = ["generate", "--seed", "3", "--count", "3", "--constraints", str(path), "-o", str(pack)]
    code = main([*argv, "--time-limit", "60"])  # a loaded machine must not fail the test
    assert code == 0, capsys.readouterr().err
    manifest = json.loads((pack / "pack.json").read_text())
    assert manifest["dungeons"] == ["dungeons/rising-01.json", "dungeons/rising-02.json", "dungeons/rising-03.json"]
    assert validate_paths([str(pack)]).problems == []
    # from [0, 4] to [12, 16] over 3 dungeons: [0, 4], [6, 10], [12, 16]
    for relative, (low, high) in zip(manifest["dungeons"], [(0, 4), (6, 10), (12, 16)]):
        assert low <= _mean(json.loads((pack / relative).read_text())) <= high


# Impossible specs, explained fast -----------------------------------------------------------

_IMPOSSIBLE = [
    (_constraints(columns=20, rows=7), CLASSIC, "grid.columns", "printable minimum of 12 mm"),
    (_constraints(columns=3, rows=3, entryways=13), LOOSE, "grid.entryways", "only 12 outer edges"),
    (_constraints(entryways=0), LOOSE, "grid.entryways", "no path can start"),
    (_constraints(columns=4, rows=4), CLASSIC, "grid.features", "17 features"),
    (_constraints(columns=5, rows=4), CLASSIC, "grid.features", "6 traps"),
    (_constraints(features={"loot": 5}), CLASSIC, "grid.features.loot", "requires 4"),
    (_constraints(entryways=7), CLASSIC, "grid.entryways", "requires 6"),
    (_constraints(passages={"density": 0.3}), CLASSIC, "grid.passages.density", "at least 43"),
    (
        _constraints(passages={"density": 0.05, "every_room_reachable": False}),
        CLASSIC,
        "grid.passages.density",
        "at least 22",
    ),
    (_constraints(distances={"dragon_from_entryways": 49}), CLASSIC, "grid.distances.dragon_from_entryways", "48"),
    (
        _constraints(passages={"density": 1.0}, distances={"monster_from_weapon": 13}),
        CLASSIC,
        "grid.distances.monster_from_weapon",
        "diameter, 12 steps",
    ),
    (
        _constraints(
            columns=3,
            rows=3,
            entryways=8,
            features={"loot": 0, "dragon": 0, "pairs": 1},
            distances={"monster_from_weapon": 7},
            passages={"density": 0.5},
        ),  # fmt: skip
        LOOSE,
        "grid.distances.monster_from_weapon",
        "allows only 6 passages",
    ),
    (_constraints(difficulty={"mean_score": [47, 50]}), CLASSIC, "grid.difficulty.mean_score", "more than 46"),
]


@pytest.mark.parametrize(("constraints", "ruleset", "named", "reason"), _IMPOSSIBLE)
def test_each_counting_check_names_the_conflicting_constraint_within_a_second(constraints, ruleset, named, reason):
    started = time.perf_counter()
    with pytest.raises(Infeasible) as caught:
        generate_grid(grid_spec(constraints, ruleset), 1)
    assert time.perf_counter() - started < 1.0
    assert caught.value.constraint == named
    assert named in str(caught.value) and reason in str(caught.value)


def test_more_pairs_than_letters_is_explained():
    data = copy.deepcopy(LOOSE.data)
    data["elements"]["weapon"]["letters"] = data["elements"]["monster"]["letters"] = "AB"
    with pytest.raises(Infeasible, match="only 2 letters") as caught:
        generate_grid(grid_spec(_constraints(features={"pairs": 3}), Ruleset(data)), 1)
    assert caught.value.constraint == "grid.features.pairs"


def test_a_distance_rule_no_layout_meets_ends_at_the_time_limit_naming_it():
    # 6 entryways in distinct border rooms of a 7x7 board: no room is 12 steps from all of
    # them once nearly every inner edge is a passage, yet no counting check can tell
    spec = grid_spec(_constraints(passages={"density": 0.97}, distances={"dragon_from_entryways": 12}), CLASSIC)
    started = time.perf_counter()
    with pytest.raises(Infeasible) as caught:
        generate_grid(spec, 1, time_limit=0.5)
    assert time.perf_counter() - started < 1.5
    assert caught.value.constraint == "grid.distances.dragon_from_entryways"
    assert "no dungeon meets grid.distances.dragon_from_entryways 12 in" in str(caught.value)


def test_a_score_range_above_what_the_features_allow_is_explained_by_the_layouts_at_the_limit():
    """Greedy play on grid-classic's features scores a mean near 25 VP with every inner edge a
    passage (the most the steered density allows), far below 40: the layouts at that limit
    cannot be repaired upward, and a few of them in a row end the search with that reason, long
    before the time limit (60 s here) or the tries limit."""
    from inkcrawl.generate.grid import MAX_TRIES, STUCK_TRIES

    spec = grid_spec(_constraints(difficulty={"mean_score": [40, 41]}), CLASSIC)
    with pytest.raises(Infeasible) as caught:
        generate_grid(spec, 1, time_limit=60)
    message = str(caught.value)
    assert caught.value.constraint == "grid.difficulty.mean_score"
    assert "no dungeon within grid.difficulty.mean_score 40..41 in" in message
    assert "with the most passages the features and grid.passages.density allow (1.00 of the inner edges)" in message
    assert f"{STUCK_TRIES} layouts in a row scored a mean of " in message and "lower the range" in message
    tries = int(message.split(" in ")[1].split(" tr")[0])
    assert STUCK_TRIES <= tries < MAX_TRIES
    assert float(message.split("scored a mean of ")[1].split(" ")[0]) < 40


def test_a_score_range_below_what_the_sparsest_layouts_score_is_explained_too():
    """Every room reachable needs a spanning forest of passages: no repair can remove a passage
    below it, so layouts that still score above the range there (greedy play scores about -21 VP
    on such sparse boards) end the search with that reason, on the other side."""
    spec = grid_spec(_constraints(difficulty={"mean_score": [-45, -44]}), CLASSIC)
    with pytest.raises(Infeasible) as caught:
        generate_grid(spec, 1, time_limit=60)
    message = str(caught.value)
    assert "with the fewest passages the features and grid.passages.density allow" in message
    assert "raise the range" in message
    assert float(message.split("scored a mean of ")[1].split(" ")[0]) > -44


def test_a_narrow_range_missed_within_the_time_limit_names_the_nearest_mean():
    spec = grid_spec(_constraints(difficulty={"mean_score": [7.0, 7.0001]}), CLASSIC)
    started = time.perf_counter()
    with pytest.raises(Infeasible) as caught:
        generate_grid(spec, 1, time_limit=0.3)
    assert time.perf_counter() - started < 4.0  # the limit, plus at most one try's measures
    message = str(caught.value)
    assert caught.value.constraint == "grid.difficulty.mean_score"
    assert "no dungeon within grid.difficulty.mean_score 7..7.0001 in" in message
    assert "the nearest had mean " in message


# The command line ---------------------------------------------------------------------------


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_help_has_examples_and_exit_codes(capsys):
    with pytest.raises(SystemExit) as done:
        main(["generate", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "exit codes: 0 written, 1" in out and "--time-limit" in out


def test_cli_writes_a_valid_dungeon_and_refuses_to_replace_it_without_force(tmp_path, capsys):
    path = tmp_path / "deep.json"
    code, out, _ = _run(capsys, "generate", "--family", "grid", "--seed", 2, "-o", path)
    assert code == 0 and f"wrote {path}" in out
    assert validate_paths([str(path)]).problems == []
    assert json.loads(path.read_text())["id"] == "deep"
    before = path.read_bytes()
    code, _, err = _run(capsys, "generate", "--seed", 3, "-o", path)
    assert code == 2 and "already exists; use --force" in err
    assert path.read_bytes() == before
    code, _, _ = _run(capsys, "generate", "--seed", 3, "-o", path, "--force")
    assert code == 0 and path.read_bytes() != before


def test_cli_impossible_constraints_exit_1_and_write_nothing(tmp_path, capsys):
    constraints = tmp_path / "c.json"
    constraints.write_text(json.dumps(_constraints(columns=4, rows=4)))
    code, _, err = _run(capsys, "generate", "--seed", 1, "--constraints", constraints, "-o", tmp_path / "x.json")
    assert code == 1 and "grid.features asks for 17 features" in err and "nothing written" in err
    code, _, err = _run(
        capsys, "generate", "--seed", 1, "--count", 3, "--constraints", constraints, "-o", tmp_path / "p"
    )
    assert code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]


def test_cli_schema_errors_exit_1_and_usage_errors_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_constraints(columns="seven")))
    code, _, err = _run(capsys, "generate", "--seed", 1, "--constraints", bad, "-o", tmp_path / "x.json")
    assert code == 1 and "/grid/columns" in err
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert _run(capsys, "generate", "--seed", 1, "--constraints", broken, "-o", tmp_path / "x.json")[0] == 2
    code, _, err = _run(capsys, "generate", "--seed", 1, "--ruleset", "grid-clasic", "-o", tmp_path / "x.json")
    assert code == 2 and "grid-classic" in err
    code, _, err = _run(
        capsys, "generate", "--family", "line", "--ruleset", "grid-classic", "--seed", 1, "-o", tmp_path / "x.json"
    )
    assert code == 2 and "for the grid family, not line" in err
    assert _run(capsys, "generate", "--seed", 1, "-o", tmp_path / "x.txt")[0] == 2
    existing = tmp_path / "taken"
    existing.mkdir()
    code, _, err = _run(capsys, "generate", "--seed", 1, "--count", 2, "-o", existing)
    assert code == 2 and "already exists" in err
    with pytest.raises(SystemExit) as done:
        main(["generate", "--seed", "x", "-o", str(tmp_path / "x.json")])
    assert done.value.code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "broken.json", "taken"]


def test_a_pack_is_written_whole_and_validates(tmp_path, capsys):
    pack = tmp_path / "ten"
    code, out, _ = _run(capsys, "generate", "--seed", 9, "--count", 10, "-o", pack)
    assert code == 0
    assert sorted(p.name for p in (pack / "dungeons").iterdir()) == [f"ten-{i:02d}.json" for i in range(1, 11)]
    assert validate_paths([str(pack)]).problems == []
    layouts = {_layout(json.loads(p.read_text())) for p in (pack / "dungeons").iterdir()}
    assert len(layouts) == 10
    assert [p.name for p in tmp_path.iterdir()] == ["ten"]  # no hidden building folder left


def test_the_schema_is_in_the_schemas_folder_and_describes_every_member():
    schema = json.loads((Path(__file__).resolve().parent.parent / "schemas" / "constraints.schema.json").read_text())
    grid = schema["$defs"]["grid"]["properties"]
    assert {"columns", "rows", "entryways", "features", "passages", "distances", "difficulty"} <= set(grid)
    assert all("description" in member for member in grid.values())


def test_the_documented_constraints_file_validates_and_generates():
    text = (Path(__file__).resolve().parent.parent / "docs" / "generating.md").read_text(encoding="utf-8")
    example = json.loads(text.split("```json\n")[1].split("```")[0])
    assert schema_problems(example, "constraints", "docs/generating.md") == []
    spec = grid_spec(example, CLASSIC)
    assert spec.score_range(0, 3) == (0, 4) and spec.score_range(1, 3) == (6, 10)
    result = generate_grid(spec, 1, time_limit=60)
    assert _errors(result.data, CLASSIC) == []
    assert 0 <= _mean(result.data) <= 4


def test_schema_errors_point_at_the_leaf():
    bad = _constraints(passages={"density": [0.5, 3]}, difficulty={"mean_score": {"from": [0, 4]}})
    problems = schema_problems(bad, "constraints", "c.json")
    assert [p.pointer for p in problems] == ["/grid/difficulty/mean_score", "/grid/passages/density/1"]


def test_a_pack_that_cannot_be_written_whole_leaves_nothing(tmp_path, capsys, monkeypatch):
    import inkcrawl.jsonio

    real = inkcrawl.jsonio.write_text_atomic
    written = []

    def fail_on_the_third(path, text, **kwargs):
        written.append(path)
        if len(written) == 3:
            raise OSError(28, "No space left on device")
        return real(path, text, **kwargs)

    monkeypatch.setattr(inkcrawl.jsonio, "write_text_atomic", fail_on_the_third)
    code, _, err = _run(capsys, "generate", "--seed", 1, "--count", 4, "-o", tmp_path / "full")
    assert code == 2 and "No space left on device" in err
    assert len(written) == 3
    assert list(tmp_path.iterdir()) == []  # neither the pack nor its hidden building folder


def test_one_dungeon_of_a_curve_meets_its_from_alone():
    # a curve whose 'to' (90-95) lies above the best score of grid-classic's features (46): a pack
    # cannot follow it, but a single dungeon gets 'from' (0-4), which it can meet
    spec = grid_spec(_constraints(difficulty={"mean_score": {"from": [0, 4], "to": [90, 95]}}), CLASSIC)
    with pytest.raises(Infeasible) as caught:
        generate_grid(spec, 1, 0, 3)
    assert "at least 90 (to)" in str(caught.value)
    result = generate_grid(spec, 1, 0, 1, time_limit=60)
    assert result.score_range == (0, 4) and 0 <= result.mean_score <= 4
