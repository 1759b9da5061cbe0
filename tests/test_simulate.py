"""``inkcrawl simulate``: statistics, determinism, exit codes and the heatmap."""

from __future__ import annotations

import argparse
import json

import pytest
from conftest import PACKS
from dungeon_builders import classic_grid_dungeon
from test_grid_engine import grid_entry

from inkcrawl import simulate as sim
from inkcrawl.cli import simulate as simulate_command
from inkcrawl.gamedata import GAME_FORMAT_VERSION, game_document
from inkcrawl.loading import open_dungeons

EMBER = str(PACKS / "ember-halls")


def run(argv: list[str]) -> int:
    """Run the ``simulate`` command as the inkcrawl CLI would."""
    parser = argparse.ArgumentParser(prog="inkcrawl")
    simulate_command.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def write_game(tmp_path, *entries) -> str:
    path = tmp_path / "game.json"
    path.write_text(
        json.dumps(
            {"type": "game", "format_version": GAME_FORMAT_VERSION, "generator": "test", "dungeons": list(entries)}
        )
    )
    return str(path)


def test_percentiles_interpolate_linearly():
    assert sim.percentile([1, 2, 3, 4], 50) == 2.5
    assert sim.percentile([1, 2, 3, 4], 10) == pytest.approx(1.3)
    assert sim.percentile([7], 90) == 7
    assert sim.percentile([0, 10], 25) == 2.5


def test_statistics_of_a_game_with_known_outcome():
    # one room open only to its entryway and a deck of crosses: every cross is a tally
    entry = grid_entry(1, 1, entryways=[("w1", "A1", "west")], deck={"cross": 8}, rounds=2, reveal=2)
    stats = sim.simulate(entry, games=5, players=3, policies="random", seed=1)
    assert stats["score"] == {
        "mean": -7,
        "stdev": 0,
        "min": -7,
        "max": -7,
        "percentiles": {"10": -7, "25": -7, "50": -7, "75": -7, "90": -7},
        "distribution": {"-7": 15},  # 5 games x 3 players
    }
    assert stats["terms"]["tally"] == -8 and stats["terms"]["entryway_unlinked"] == 1
    assert stats["tallies"]["mean"] == 4 and stats["tallies"]["share_with_tally"] == 1
    assert stats["tallies"]["unplaceable_segments"] == 1 and stats["tallies"]["distribution"] == {"4": 15}
    assert stats["rooms"] == [{"label": "A1", "cell": [0, 0], "feature": None, "entered": 0, "trapped": 0}]
    assert [s["wins"] for s in stats["seats"]] == [pytest.approx(1 / 3, abs=1e-4)] * 3


def test_room_usage_counts_player_games():
    entry = grid_entry(
        2,
        1,
        entryways=[("w1", "A1", "west")],
        features={"B1": "loot"},
        deck={"straight": 1, "dead_end": 1},
        rounds=1,
        reveal=2,
    )
    stats = sim.simulate(entry, games=4, players=2, policies="greedy", seed=0)
    # the straight goes to A1 (the entryway), the dead end continues into B1 (the loot)
    assert [r["entered"] for r in stats["rooms"]] == [1, 1]
    assert stats["rooms"][1]["feature"] == "loot"
    assert stats["score"]["mean"] == 2 and stats["tallies"]["mean"] == 0


def test_terms_add_up_to_the_mean_on_a_bundled_dungeon():
    entry = game_document(open_dungeons([EMBER]).dungeons)["dungeons"][1]
    stats = sim.simulate(entry, games=200, players=2, policies=["greedy", "random"], seed=4)
    assert sum(stats["terms"].values()) == pytest.approx(stats["score"]["mean"], abs=1e-3)
    values = list(stats["score"]["percentiles"].values())
    assert values == sorted(values) and stats["score"]["min"] <= values[0] and values[-1] <= stats["score"]["max"]
    assert len(stats["rooms"]) == 49 and stats["seats"][0]["policy"] == "greedy"
    assert stats["seats"][0]["mean"] > stats["seats"][1]["mean"]
    assert stats["rounds_played"] == 7


def test_same_seed_gives_identical_output(capsys):
    outputs = []
    for seed in ("7", "7", "8"):
        for fmt in ("text", "json"):
            assert (
                run(["simulate", EMBER, "--games", "300", "--policy", "greedy", "--seed", seed, "--format", fmt]) == 0
            )
            outputs.append(capsys.readouterr().out.encode())
    assert outputs[0] == outputs[2] and outputs[1] == outputs[3]
    assert outputs[0] != outputs[4] and outputs[1] != outputs[5]
    stats = json.loads(outputs[1])
    assert stats["games"] == 300 and stats["seed"] == 7 and stats["policies"] == ["greedy", "greedy"]


def test_text_output_is_readable(capsys):
    assert run(["simulate", EMBER, "--dungeon", "cinder-vault", "--games", "50", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The Cinder Vault (cinder-vault): 50 games, 3 players, policy random, seed 0")
    for text in (
        "Final score: mean",
        "percentiles: 10%",
        "monster_unmatched",
        "Tally marks:",
        "Rooms entered",
        "Seats:",
    ):
        assert text in out
    assert sum(1 for line in out.splitlines() if line.strip()[:1].isdigit() and "%" not in line) >= 7


def test_game_json_alone_gives_the_same_output(tmp_path, capsys):
    document = game_document(open_dungeons([EMBER]).dungeons)
    path = write_game(tmp_path, *document["dungeons"])
    assert run(["simulate", path, "--dungeon", "long-kiln", "--games", "100", "--format", "json"]) == 0
    from_game = capsys.readouterr().out
    assert run(["simulate", EMBER, "--dungeon", "long-kiln", "--games", "100", "--format", "json"]) == 0
    assert capsys.readouterr().out == from_game


def test_switches_change_the_statistics():
    base = grid_entry(
        4,
        3,
        entryways=[("w1", "A1", "west"), ("s1", "D3", "south")],
        features={"B1": ("monster", "A"), "C3": ("weapon", "A"), "B2": "loot", "C2": "dragon"},
    )
    early = dict(base, switches=dict(base["switches"], weapon_order="earlier_round"))
    a = sim.simulate(base, games=300, players=2, policies="random", seed=3)
    b = sim.simulate(early, games=300, players=2, policies="random", seed=3)
    # same games, stricter weapon order: fewer matched monsters, more unmatched ones
    assert a["rooms"] == b["rooms"]
    assert b["terms"]["monster_matched"] < a["terms"]["monster_matched"]
    assert b["terms"]["monster_unmatched"] < a["terms"]["monster_unmatched"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--policy", "clever"], "unknown policy 'clever'"),
        (["--players", "5"], "is for 1 to 4 players (its ruleset's range)"),
        (["--players", "9"], "use 1 to 8 players (the most any ruleset allows)"),
        (["--policy", "random,greedy,random"], "3 policies for 2 players"),
        (["--dungeon", "nowhere"], "no dungeon 'nowhere'"),
        (["--heatmap", "out.svg"], "must end in .png"),
    ],
)
def test_usage_errors_exit_2(argv, message, capsys):
    assert run(["simulate", EMBER, "--games", "3", *argv]) == 2
    assert message in capsys.readouterr().err


def test_usage_errors_from_argparse():
    with pytest.raises(SystemExit) as raised:
        run(["simulate", EMBER, "--games", "0"])
    assert raised.value.code == 2


def test_unreadable_input_and_grid_options_on_a_line_dungeon_exit_2(tmp_path, capsys):
    assert run(["simulate", str(tmp_path / "missing.json")]) == 2
    # line dungeons are simulated too (tests/test_line_simulate.py), but not with the grid's options
    assert run(["simulate", str(PACKS / "lantern-depths"), "--games", "2", "--balance"]) == 2
    assert "--balance measures grid dungeons" in capsys.readouterr().err
    assert run(["simulate", str(PACKS / "lantern-depths"), "--games", "2", "--policy", "random"]) == 2
    assert "unknown policy 'random' for a line dungeon" in capsys.readouterr().err


def test_validation_errors_exit_1(tmp_path, capsys):
    data = classic_grid_dungeon()
    data["features"] = [f for f in data["features"] if f["kind"] != "dragon"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    assert run(["simulate", str(path), "--games", "2"]) == 1
    assert "error" in capsys.readouterr().err


def test_unplayable_game_data_exits_1(tmp_path, capsys):
    entry = grid_entry(2, 2, entryways=[("w1", "A1", "west")])
    entry["deck"]["cards"] = {"joker": 3}
    assert run(["simulate", write_game(tmp_path, entry), "--games", "2"]) == 1
    assert "joker" in capsys.readouterr().err


def test_heatmap_is_found_through_the_renderer_registry(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(simulate_command, "find_renderer", lambda name: None)
    assert run(["simulate", EMBER, "--games", "2", "--heatmap", str(tmp_path / "h.png")]) == 2
    assert "no heatmap renderer" in capsys.readouterr().err
    monkeypatch.undo()
    assert simulate_command.find_renderer("no-such-renderer") is None


def test_heatmap_over_the_sheet(tmp_path, monkeypatch, capsys):
    from exporters.heatmap import write_heatmap_png

    monkeypatch.setattr(
        simulate_command, "find_renderer", lambda name: write_heatmap_png if name == "heatmap" else None
    )
    out = tmp_path / "heat.png"
    assert run(["simulate", EMBER, "--games", "40", "--heatmap", str(out), "--dpi", "40"]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    from PySide6.QtGui import QImage

    image = QImage.fromData(data, "PNG")
    # A4 at 40 dpi plus the legend strip
    assert image.width() == round(210 / 25.4 * 40) and image.height() > round(297 / 25.4 * 40)


def test_heatmap_from_game_data_alone_tints_rooms_by_usage(tmp_path):
    from PySide6.QtGui import QColor, QImage

    from exporters.heatmap import heatmap_png, tint

    entry = grid_entry(3, 1, entryways=[("w1", "A1", "west")])
    image = QImage.fromData(heatmap_png(entry, [1.0, 0.5, 0.0], dpi=50), "PNG")
    board = entry["board"]
    margin = max(12.0, board["cell_mm"] * 0.6)
    px = 50 / 25.4

    def colour_at(column: int) -> QColor:
        # a point in the room's lower-left quarter, away from text, walls and passages
        x = (margin + (column + 0.2) * board["cell_mm"]) * px
        y = (margin + 0.8 * board["cell_mm"]) * px
        return QColor(image.pixel(round(x), round(y)))

    assert colour_at(0).getRgb()[:3] == tint(1.0)
    assert colour_at(1).getRgb()[:3] == tint(0.5)
    assert colour_at(2).getRgb()[:3] == (255, 255, 255)
    with pytest.raises(ValueError):
        heatmap_png(entry, [0.5], dpi=50)


def test_simulate_is_an_inkcrawl_command(capsys):
    from inkcrawl.cli import main

    assert main(["simulate", EMBER, "--games", "20", "--seed", "3", "--format", "json"]) == 0
    through_cli = capsys.readouterr().out
    assert run(["simulate", EMBER, "--games", "20", "--seed", "3", "--format", "json"]) == 0
    assert capsys.readouterr().out == through_cli
