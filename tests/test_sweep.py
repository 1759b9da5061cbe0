"""``inkcrawl sweep``: combinations, comparisons, the same bytes for any number of workers,
and clear errors for a bad sweep file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PACKS, REPO
from test_grid_engine import grid_entry

from inkcrawl.cli import main

EMBER = PACKS / "ember-halls"


def write_spec(tmp_path: Path, **members) -> Path:
    spec = {"type": "sweep", "format_version": 1, "dungeons": [str(EMBER)], **members}
    path = tmp_path / "s.sweep.json"
    path.write_text(json.dumps(spec))
    return path


def sweep(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["sweep", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_every_combination_is_played_in_order(tmp_path, capsys):
    spec = write_spec(
        tmp_path,
        only=["cinder-vault"],
        variants=[{"name": "as printed"}, {"name": "more traps", "deck": {"trap": 2}}],
        players=[2, 3],
        policies=["random", "greedy"],
        games=40,
    )
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    result = json.loads(out)
    combos = [(r["variant"], r["players"], r["policies"]) for r in result["results"]]
    assert combos == [
        (variant, players, [policy] * players)
        for variant in ("as printed", "more traps")
        for players in (2, 3)
        for policy in ("random", "greedy")
    ]
    assert all(r["dungeon"]["id"] == "cinder-vault" and r["games"] == 40 for r in result["results"])
    assert "lead_changes" in result["results"][0]["balance"]


def test_a_policy_per_seat(tmp_path, capsys):
    spec = write_spec(tmp_path, only=["cinder-vault"], players=[2], policies=[["greedy", "random"]], games=30)
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    (result,) = json.loads(out)["results"]
    assert [s["policy"] for s in result["seats"]] == ["greedy", "random"]
    assert result["seats"][0]["mean"] > result["seats"][1]["mean"]  # greedy outscores random on this dungeon


def test_a_per_seat_policy_list_must_fit_the_player_count(tmp_path, capsys):
    spec = write_spec(tmp_path, only=["cinder-vault"], players=[3], policies=[["greedy", "random"]], games=5)
    status, _, err = sweep(capsys, str(spec))
    assert status == 1
    assert "['greedy', 'random'] gives 2 seats for 3 players" in err


def test_variants_are_compared_with_the_first_on_the_same_games(tmp_path, capsys):
    # tallies at -3 instead of -2 play exactly the same games: each player-game loses one VP per tally
    spec = write_spec(
        tmp_path,
        only=["long-kiln"],
        variants=[{}, {"name": "harsh", "scoring": {"tally": -3}}],
        policies=["random"],
        games=120,
    )
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    result = json.loads(out)
    base, harsh = result["results"]
    assert base["variant"] == "base" and harsh["variant"] == "harsh"
    assert harsh["tallies"] == base["tallies"]
    change = result["comparisons"][0]["variants"]["changes"][0]
    assert change["delta"] == pytest.approx(-base["tallies"]["mean"], abs=2e-4)


def test_skill_gap_is_best_minus_random(tmp_path, capsys):
    spec = write_spec(tmp_path, only=["cinder-vault"], policies=["random", "greedy"], games=60)
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    result = json.loads(out)
    means = {r["policies"][0]: r["score"]["mean"] for r in result["results"]}
    gap = result["comparisons"][0]["skill_gap"]["base"]
    assert gap["best"] == "greedy"
    assert gap["gap"] == pytest.approx(means["greedy"] - means["random"], abs=2e-4)


def test_the_same_seed_gives_the_same_bytes_for_any_number_of_workers(tmp_path, capsys):
    spec = write_spec(tmp_path, only=["smoldering-stair"], variants=[{}, {"deck": {"cross": 1}}], games=2300)
    outputs = []
    for workers in ("1", "2"):
        out_file = tmp_path / f"r{workers}.json"
        status, _, err = sweep(capsys, str(spec), "--format", "json", "-o", str(out_file), "--workers", workers)
        assert status == 0, err
        outputs.append(out_file.read_bytes())
    assert outputs[0] == outputs[1]


def test_relative_paths_are_read_from_the_sweep_files_folder(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "sweeps"
    folder.mkdir()
    entry = grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"cross": 8}, rounds=2, reveal=2)
    (folder / "tiny.game.json").write_text(
        json.dumps({"type": "game", "format_version": 2, "generator": "test", "dungeons": [entry]})
    )
    (folder / "s.sweep.json").write_text(
        json.dumps({"type": "sweep", "format_version": 1, "dungeons": ["tiny.game.json"], "games": 3})
    )
    monkeypatch.chdir(REPO)
    status, out, err = sweep(capsys, str(folder / "s.sweep.json"), "--format", "json", "--workers", "1")
    assert status == 0, err
    # every cross is a tally: -2 x 4 + the unlinked entryway's +1, for every policy
    assert {r["score"]["mean"] for r in json.loads(out)["results"]} == {-7}


@pytest.mark.parametrize(
    "members, message",
    [
        ({"policies": ["gredy"]}, "unknown policy 'gredy'; expected one of: "),
        ({"variants": [{"deck": {"trap": -9}}]}, "/variants/0: variant 'trap -9': the deck has 2 'trap' cards"),
        ({"only": ["no-such-room"]}, "/only: no dungeon 'no-such-room'"),
        ({"variants": [{"name": "a"}, {"name": "a"}]}, "two variants have the same name"),
        # a line ruleset has nothing to say to the grid dungeons of ember-halls
        (
            {"variants": [{"name": "line rules", "ruleset": str(REPO / "content/rulesets/line-classic.json")}]},
            "nothing to play (no dungeon for the player counts and policies asked): variant 'line rules' is a line "
            "ruleset: skipped for the grid dungeon",
        ),
        # a whole deck of no segment card: nobody could draw a path, so nothing would be measured
        ({"variants": [{"deck_cards": {"trap": 0}}]}, "/variants/0: variant 'deck trap 0': the deck has no segment"),
        ({"variants": [{"deck_cards": {}}]}, "the deck has no segment cards left"),
        # line dungeons and only a grid policy: the refusal says why there is nothing to play
        (
            {"dungeons": [str(PACKS / "lantern-depths")], "policies": ["random"]},
            "nothing to play (no dungeon for the player counts and policies asked): policy 'random' does not play "
            "line dungeons: skipped for 'candlewick-cellars' (line policies: greedy, human, optimal) (and 3 more",
        ),
    ],
)
def test_a_bad_sweep_names_the_member(tmp_path, capsys, members, message):
    status, out, err = sweep(capsys, str(write_spec(tmp_path, games=2, **members)))
    assert status == 1 and out == ""
    assert message in err and "Traceback" not in err


def test_a_schema_error_points_into_the_sweep_file(tmp_path, capsys):
    path = write_spec(tmp_path, games=0)
    status, _, err = sweep(capsys, str(path))
    assert status == 1
    assert f"{path}:/games: error S001" in err


def test_not_a_sweep_file(tmp_path, capsys):
    status, _, err = sweep(capsys, str(EMBER / "pack.json"))
    assert status == 1 and 'not a sweep file (its "type" is not "sweep"' in err
    status, _, err = sweep(capsys, str(tmp_path / "nothing.json"))
    assert status == 2 and "no such file" in err


def test_a_ruleset_variant_plays_the_dungeon_under_that_ruleset(tmp_path, capsys):
    ruleset = json.loads((REPO / "content/rulesets/grid-classic.json").read_text())
    ruleset["switches"]["no_trap_room"] = "tally"
    (tmp_path / "strict.json").write_text(json.dumps(ruleset))
    spec = write_spec(
        tmp_path, only=["cinder-vault"], variants=[{}, {"name": "strict", "ruleset": "strict.json"}], games=20
    )
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    results = json.loads(out)["results"]
    assert [r["switches"]["no_trap_room"] for r in results if r["variant"] == "strict"] == ["tally", "tally"]


def test_the_text_table_and_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    text = capsys.readouterr().out
    assert "exit codes:" in text and "docs/sweeps.md" in text and "--scheduler" in text


def test_an_output_in_a_missing_folder_is_refused_before_any_game(tmp_path, capsys):
    spec = write_spec(tmp_path, games=10**12, policies=["random"])  # would never end if played
    target = tmp_path / "no-such-folder" / "r.json"
    status, out, err = sweep(capsys, str(spec), "-o", str(target), "--workers", "1")
    assert status == 2 and out == ""
    assert f"cannot write {target}: the folder {target.parent} does not exist" in err
    assert not target.parent.exists()


def test_the_example_of_docs_sweeps_md_runs(tmp_path, capsys):
    import re
    import shutil

    text = (REPO / "docs" / "sweeps.md").read_text(encoding="utf-8")
    spec = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    spec["games"] = 2
    folder = tmp_path / "sweeps"  # the example's "../content/packs/ember-halls" from here
    folder.mkdir()
    (tmp_path / "content").symlink_to(REPO / "content")
    shutil.copy(REPO / "content" / "rulesets" / "grid-classic.json", folder / "house-rules.json")
    (folder / "traps.sweep.json").write_text(json.dumps(spec))
    status, out, err = sweep(capsys, str(folder / "traps.sweep.json"), "--workers", "1")
    assert status == 0, err
    # 2 dungeons x 5 variants x 1 player count x 3 policies
    assert out.startswith("30 combinations, 2 games each, seed 1")


def test_too_many_workers_is_a_usage_error(tmp_path, capsys):
    status, out, err = sweep(capsys, str(write_spec(tmp_path, games=2)), "--workers", "100000")
    assert status == 2 and out == "" and "--workers 100000: use 1 to 256" in err


@pytest.mark.parametrize("address", ["nonsense", "tcp://host-without-port", "tcp://host:port"])
def test_a_scheduler_address_without_a_port_is_refused_at_once(tmp_path, capsys, address):
    pytest.importorskip("distributed")
    status, out, err = sweep(capsys, str(write_spec(tmp_path, games=2)), "--scheduler", address)
    assert status == 2 and out == ""
    assert f"--scheduler {address}: give the Dask scheduler's address as tcp://HOST:PORT" in err
    assert "Traceback" not in err


def test_a_missing_ruleset_file_is_a_usage_error_like_any_missing_input(tmp_path, capsys):
    status, out, err = sweep(capsys, str(write_spec(tmp_path, games=2, variants=[{"ruleset": "missing.json"}])))
    assert status == 2 and out == ""
    assert "/variants/0/ruleset: no ruleset file" in err


# Line dungeons ---------------------------------------------------------------------------------


def _line_file(tmp_path: Path, dungeon: dict) -> Path:
    path = tmp_path / f"{dungeon['id']}.json"
    path.write_text(json.dumps(dungeon))
    return path


def test_a_line_dungeon_is_swept_with_the_line_policies(tmp_path, capsys):
    # The Lure of test_line_simulate: greedy covers the boss it sees at once and ends the scrawl
    # (2 VP); optimal goes round the den first (3 monsters) and covers the boss last: 5. A grid
    # policy ('random') is skipped for it with a note.
    from test_line_simulate import _lure_dungeon

    spec = write_spec(
        tmp_path,
        dungeons=[str(_line_file(tmp_path, _lure_dungeon()))],
        players=[1],
        policies=["optimal", "greedy", "random"],
        games=3,
    )
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    assert "note: policy 'random' does not play line dungeons" in err
    results = json.loads(out)["results"]
    assert [(r["family"], r["policy"], r["score"]["mean"]) for r in results] == [
        ("line", "optimal", 5),
        ("line", "greedy", 2),
    ]
    assert [r["balance"]["par_gap"] for r in results] == [0, 3]


def test_a_line_switch_variant_is_compared_with_the_first(tmp_path, capsys):
    # The choice dungeon of test_par: to the boss (4) with the portal entry pe1 unused (-1): 3, the
    # best. With unused_portal_entry_vp 0 the unused entry costs nothing: 4. Every optimal game is
    # the same play, so the change is +1 with a standard error of 0.
    from test_par import _choice_dungeon

    dungeon = _choice_dungeon()
    dungeon["id"] = "choice"
    spec = write_spec(
        tmp_path,
        dungeons=[str(_line_file(tmp_path, dungeon))],
        variants=[{"name": "as printed"}, {"name": "free entries", "switches": {"unused_portal_entry_vp": 0}}],
        players=[1],
        policies=["optimal"],
        games=2,
    )
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    result = json.loads(out)
    assert [r["score"]["mean"] for r in result["results"]] == [3, 4]
    [comparison] = result["comparisons"]
    assert comparison["variants"]["changes"] == [
        {"variant": "free entries", "policies": ["optimal"], "mean": 4, "delta": 1, "standard_error": 0}
    ]
    text_status, text, _ = sweep(capsys, str(spec), "--workers", "1")
    assert text_status == 0 and "choice, 1 players, optimal: free entries +1.00 VP against as printed" in text


def test_grid_only_variants_skip_line_dungeons_with_a_note(tmp_path, capsys):
    from test_line_simulate import _lure_dungeon

    spec = write_spec(
        tmp_path,
        dungeons=[str(EMBER), str(_line_file(tmp_path, _lure_dungeon()))],
        only=["cinder-vault", _lure_dungeon()["id"]],
        variants=[{"name": "as printed"}, {"name": "more traps", "deck": {"trap": 1}}],
        players=[2],
        policies=["greedy"],
        games=4,
    )
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    assert "variant 'more traps' changes deck, which a line dungeon has not" in err
    combos = [(r["dungeon"]["id"], r["variant"]) for r in json.loads(out)["results"]]
    lure = _lure_dungeon()["id"]
    assert combos == [("cinder-vault", "as printed"), ("cinder-vault", "more traps"), (lure, "as printed")]


def test_a_switch_of_one_family_is_skipped_for_the_other_familys_dungeons(tmp_path, capsys):
    from test_line_simulate import _lure_dungeon

    lure = _lure_dungeon()["id"]
    spec = write_spec(
        tmp_path,
        dungeons=[str(EMBER), str(_line_file(tmp_path, _lure_dungeon()))],
        only=["cinder-vault", lure],
        variants=[
            {"name": "as printed"},
            {"name": "free entries", "switches": {"unused_portal_entry_vp": 0}},
            {"name": "late traps", "switches": {"trap_timing": "later_segments_only"}},
        ],
        players=[2],
        policies=["greedy"],
        games=3,
    )
    status, out, err = sweep(capsys, str(spec), "--format", "json", "--workers", "1")
    assert status == 0, err
    assert "variant 'free entries' sets unused_portal_entry_vp, a switch of the other family's dungeons: " in err
    assert "variant 'late traps' sets trap_timing" in err
    combos = [(r["dungeon"]["id"], r["variant"]) for r in json.loads(out)["results"]]
    assert combos == [
        ("cinder-vault", "as printed"),
        ("cinder-vault", "late traps"),
        (lure, "as printed"),
        (lure, "free entries"),
    ]


def test_a_switch_no_dungeon_has_is_an_error_naming_the_variant(tmp_path, capsys):
    from test_line_simulate import _lure_dungeon

    spec = write_spec(
        tmp_path,
        dungeons=[str(_line_file(tmp_path, _lure_dungeon()))],
        variants=[{"name": "typo", "switches": {"wal_poke": "out_and_back"}}],
        players=[1],
        policies=["optimal"],
        games=2,
    )
    status, out, err = sweep(capsys, str(spec))
    assert status == 1 and out == ""
    assert "/variants/0: variant 'typo'" in err and "wal_poke" in err and "Traceback" not in err


def test_the_table_never_cuts_a_long_dungeon_id_or_variant_short():
    from inkcrawl.sweep import format_sweep_text

    row = {
        "dungeon": {"id": "the-very-long-dungeon-id-of-a-real-pack"},
        "variant": "house-rules-with-three-traps",
        "players": 2,
        "policies": ["greedy", "random"],
        "score": {"mean": 7.5, "stdev": 1.25},
        "balance": {"ties": 0.1, "outcome_uniformity": 0.5},
        "seats": [{"wins": 0.55}, {"wins": 0.45}],
    }
    short = {**row, "dungeon": {"id": "keep"}, "variant": "base"}
    text = format_sweep_text({"results": [row, short], "games": 10, "seed": 1, "comparisons": []})
    lines = text.splitlines()
    assert lines[3].startswith("the-very-long-dungeon-id-of-a-real-pack house-rules-with-three-traps ")
    # the columns stay aligned: each row's mean sits under the header's
    assert lines[2].index("mean") + 4 == lines[3].index("7.50") + 4 == lines[4].index("7.50") + 4
    assert lines[3].endswith("55% 45%") and "greedy,random" in lines[3]
