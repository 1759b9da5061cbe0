"""``inkcrawl report``: a pack's play report, its difficulty curve, HTML that needs no server."""

from __future__ import annotations

import json
import re

import pytest
from conftest import PACKS
from test_grid_engine import grid_entry
from test_line_simulate import _lure_dungeon
from test_referee import entry_of

from inkcrawl.cli import main
from inkcrawl.gamedata import GAME_FORMAT_VERSION
from inkcrawl.pack_report import ReportOptions, kendall_tau, pack_report


def _all_tallies() -> dict:
    # one room open only to its entryway and a deck of crosses: every cross is a tally for every
    # player: -2 x 4 + the unlinked entryway's +1 = -7 for random and greedy alike
    entry = grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"cross": 8}, rounds=2, reveal=2)
    entry["id"], entry["title"] = "tallies", "All Tallies"
    return entry


def _loot_walk() -> dict:
    # the straight goes to A1 (the entryway), the dead end on into B1 (the loot): greedy scores 2
    entry = grid_entry(
        2, 1, entryways=[("w1", "A1", "west")], features={"B1": "loot"}, deck={"straight": 1, "dead_end": 1}, rounds=1
    )
    entry["id"], entry["title"] = "loot-walk", "Loot Walk"
    entry["reveal"] = 2
    return entry


def test_kendall_tau_by_hand():
    assert kendall_tau([1, 2, 3]) == 1
    assert kendall_tau([3, 2, 1]) == -1
    assert kendall_tau([1, 3, 2]) == round(1 / 3, 4)  # pairs (1,3) +, (1,2) +, (3,2) -
    assert kendall_tau([5]) is None


def test_the_difficulty_curve_of_grid_dungeons_follows_the_greedy_mean():
    options = ReportOptions(games=20, players=2)
    rising = pack_report([_loot_walk(), _all_tallies()], options)
    # greedy means 2 then -7: difficulty -2 then 7, rising
    assert [d["difficulty"] for d in rising["dungeons"]] == [-2, 7]
    (curve,) = rising["difficulty"]
    assert curve["family"] == "grid" and curve["rises"] and curve["kendall_tau"] == 1
    assert curve["dungeons"] == ["loot-walk", "tallies"]
    falling = pack_report([_all_tallies(), _loot_walk()], options)
    assert not falling["difficulty"][0]["rises"] and falling["difficulty"][0]["kendall_tau"] == -1
    assert rising["dungeons"][1]["skill_gap"] == 0  # every policy scores -7 there


def test_a_line_dungeon_reports_par_the_human_and_the_greedy_player():
    options = ReportOptions(line_games=6, skill=1.0)
    report = pack_report([entry_of(_lure_dungeon())], options)
    (row,) = report["dungeons"]
    # par 5 (the three monsters, then the boss); the greedy player takes the boss at once: 2;
    # a human of full skill draws the par route exactly: 5 in every game, so nothing is lost
    assert row["par"]["par"] == 5 and row["par"]["proven"]
    assert row["greedy"] == 2
    assert row["human"]["score"]["mean"] == 5 and row["difficulty"] == 0
    assert report["difficulty"][0]["family"] == "line" and report["difficulty"][0]["kendall_tau"] is None


def _game_file(tmp_path, *entries) -> str:
    path = tmp_path / "mixed.game.json"
    document = {"type": "game", "format_version": GAME_FORMAT_VERSION, "generator": "test", "dungeons": list(entries)}
    path.write_text(json.dumps(document))
    return str(path)


def test_the_html_report_is_one_self_contained_page(tmp_path, capsys):
    source = _game_file(tmp_path, _loot_walk(), _all_tallies(), entry_of(_lure_dungeon()))
    out = tmp_path / "report.html"
    status = main(["report", source, "-o", str(out), "--games", "10", "--line-games", "3", "--workers", "1"])
    assert status == 0, capsys.readouterr().err
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # nothing to fetch: no src or href outside the page but data URIs and anchors
    assert not re.findall(r'(?:src|href)=["\'](?!data:|#)', page)
    assert page.count("data:image/png;base64,") == 3  # a heatmap per dungeon
    assert "<svg" in page and "Difficulty in pack order" in page
    for title in ("Loot Walk", "All Tallies", "Test Keep"):
        assert title in page
    assert "Par <b>5</b>" in page


def test_the_json_report_and_bad_outputs(tmp_path, capsys):
    source = _game_file(tmp_path, _all_tallies())
    out = tmp_path / "report.json"
    assert main(["report", source, "-o", str(out), "--games", "5", "--workers", "1"]) == 0
    data = json.loads(out.read_text())
    assert data["dungeons"][0]["id"] == "tallies" and data["dungeons"][0]["random"]["score"]["mean"] == -7
    capsys.readouterr()
    assert main(["report", source, "-o", str(tmp_path / "report.txt")]) == 2
    assert "ends in .html" in capsys.readouterr().err
    locked = tmp_path / "locked.html"
    locked.write_text("keep me")
    locked.chmod(0o444)
    assert main(["report", source, "-o", str(locked), "--games", "5"]) == 2
    assert "read-only" in capsys.readouterr().err and locked.read_text() == "keep me"
    assert main(["report", source, "-o", source]) == 2  # never the input itself
    capsys.readouterr()
    missing = tmp_path / "no-such-folder" / "r.json"  # refused before the games are played
    assert main(["report", source, "-o", str(missing), "--games", "10000000000"]) == 2
    assert f"cannot write {missing}: the folder {missing.parent} does not exist" in capsys.readouterr().err
    assert main(["report", source, "-o", str(out), "--workers", "100000"]) == 2
    assert "--workers 100000: use 1 to 256" in capsys.readouterr().err
    assert json.loads(open(source).read())["type"] == "game"


@pytest.mark.parametrize("argv", [["--skill", "2"], ["--games", "0"], ["--speed", "-1"]])
def test_bad_numbers_are_usage_errors(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(["report", str(PACKS / "ember-halls"), "-o", "x.html", *argv])
    assert stop.value.code == 2


def test_histogram_tick_labels_stay_inside_the_chart():
    import re

    from exporters.report_html import _bars

    svg = _bars({"-33": 1, "15": 2}, label="final score")
    # 49 whole scores from -33 to 15 over 420 px: the first label "-33" is centred at 420 / 49 / 2 = 4.3 px
    # from the bars' left edge; the bars sit 24 px right of the chart's edge, so its 3 characters
    # (about 6 px each at font size 10) start at 24 + 4.3 - 9 = 19.3 px, inside the 468 px chart
    assert 'width="468"' in svg and 'transform="translate(24 0)"' in svg
    labels = re.findall(r'<text x="([\d.]+)"[^>]*>([^<]+)</text>', svg)
    first_x, first = labels[0]
    last_x, last = labels[-2]  # the last is the caption
    assert first == "-33" and float(first_x) == 4.3
    assert 24 + float(first_x) - len(first) * 3 > 0 and 24 + float(last_x) + len(last) * 3 < 468


def _walled_start_entry() -> dict:
    # the Lure with a closed wall square around its Start: no line can leave it, so no route can
    # be drawn (the area search, which knows no walls inside an area, still finds 5)
    from test_line_simulate import _lure_dungeon

    dungeon = _lure_dungeon()
    dungeon["walls"] = [{"id": "cage", "points": [[44, 21], [56, 21], [56, 33], [44, 33], [44, 21]]}]
    return entry_of(dungeon, validate=False)


def test_a_dungeon_whose_route_cannot_be_drawn_is_reported_not_given_a_par(tmp_path, capsys):
    source = _game_file(tmp_path, _walled_start_entry())
    out = tmp_path / "report.html"
    assert main(["report", source, "-o", str(out), "--line-games", "2", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "dungeon 'test-keep' cannot be played: the route could not be drawn" in err
    page = out.read_text()  # written all the same, saying why
    assert "No par: the route could not be drawn" in page and "is only a bound" in page
    assert main(["par", source]) == 1
    assert "no par: the route could not be drawn" in capsys.readouterr().out
