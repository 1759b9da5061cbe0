"""Play files (schemas/play.schema.json, inkcrawl.play) and the ``inkcrawl score`` command:
loading and checking plays, the examples of docs/play-files.md, exit codes, and scoring from a
game.json alone."""

from __future__ import annotations

import argparse
import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import PACKS, REPO

from inkcrawl.cli import score as score_command
from inkcrawl.engines.line import PlayError, referee
from inkcrawl.gamedata import game_document
from inkcrawl.loading import open_dungeons
from inkcrawl.play import load_play, play_data_problems

LANTERN = PACKS / "lantern-depths"
DOC = REPO / "docs" / "play-files.md"


def minimal_play(**extra) -> dict:
    return {
        "type": "play",
        "format_version": 1,
        "dungeon": "candlewick-cellars",
        "path": [[[50, 35], [50, 45], [60, 64], [76, 64], [84, 56], [116, 56]]],
        **extra,
    }


def codes(data) -> list[tuple[str, str]]:
    return [(p.code, p.pointer) for p in play_data_problems(data, "play.json")]


def run_score(argv: list[str], capsys) -> tuple[int, str, str]:
    """Run ``inkcrawl score ARGV`` in-process (the subcommand as :mod:`inkcrawl.cli.score` registers it)."""
    parser = argparse.ArgumentParser(prog="inkcrawl")
    score_command.register(parser.add_subparsers(dest="command"))
    try:
        args = parser.parse_args(["score", *argv])
        status = args.func(args)
    except SystemExit as exc:  # argparse usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def write(path: Path, data) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


# -- the schema ----------------------------------------------------------------------------------


def test_play_schema_is_a_valid_draft_2020_12_schema():
    schema = json.loads((REPO / "schemas" / "play.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "https://inkcrawl.org/schemas/play/1.schema.json"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["type"] == {"const": "play"}


def test_a_minimal_play_is_valid():
    assert codes(minimal_play()) == []
    full = minimal_play(
        player="Jane",
        character="ranger",
        pen_width_mm=0.8,
        players=3,
        orb_tokens={"blue": [2, 4]},
        keys_gone=["k1"],
        skeleton_keys={"sk1": "red"},
        end={"trigger": "orb_taken", "colour": "pink", "at": {"length_mm": 12.5}},
        notes="x",
    )
    assert codes(full) == []
    assert codes(minimal_play(character=None, end={"trigger": "timer", "at": {"polyline": 0, "point": 3}})) == []


@pytest.mark.parametrize(
    "change, pointer",
    [
        (lambda p: p.pop("path"), ""),
        (lambda p: p.pop("dungeon"), ""),
        (lambda p: p.update(path=[]), "/path"),
        (lambda p: p.update(path=[[]]), "/path/0"),
        (lambda p: p.update(path=[[[1, 2, 3]]]), "/path/0/0"),
        (lambda p: p.update(path=[[["1", 2]]]), "/path/0/0/0"),
        (lambda p: p.update(path=[[[1e9, 2]]]), "/path/0/0/0"),
        (lambda p: p.update(pen_width_mm=0), "/pen_width_mm"),
        (lambda p: p.update(players=0), "/players"),
        (lambda p: p.update(character=7), "/character"),
        (lambda p: p.update(orb_tokens={"blue": [0]}), "/orb_tokens/blue/0"),
        (lambda p: p.update(keys_gone=["k1", "k1"]), "/keys_gone"),
        (lambda p: p.update(end={"trigger": "timer"}), "/end"),
        (lambda p: p.update(end={"trigger": "nap", "at": {"length_mm": 1}}), "/end/trigger"),
        (lambda p: p.update(end={"trigger": "timer", "at": {}}), "/end/at"),
        (lambda p: p.update(end={"trigger": "timer", "at": {"length_mm": 1, "point": 2}}), "/end/at/point"),
        (lambda p: p.update(extra=True), ""),
        (lambda p: p.update(format_version=0), "/format_version"),
    ],
)
def test_schema_errors_point_at_the_bad_value(change, pointer):
    play = minimal_play()
    change(play)
    found = codes(play)
    assert found and all(code == "S001" for code, _ in found)
    assert pointer in [p for _, p in found]


def test_not_a_play_and_newer_formats():
    assert codes({"type": "dungeon"}) == [("F008", "/type")]
    assert codes([1, 2]) == [("F008", "")]
    assert codes(minimal_play(format_version=2)) == [("F007", "/format_version")]


def test_load_play_never_raises(tmp_path):
    assert load_play(tmp_path / "missing.json")[1][0].code == "F001"
    assert load_play(write(tmp_path / "bad.json", "{nope"))[1][0].code == "F002"
    assert load_play(write(tmp_path / "nan.json", '{"type": "play", "x": NaN}'))[1][0].code == "F005"
    (tmp_path / "binary.json").write_bytes(b"\x00\x01\x02")
    assert load_play(tmp_path / "binary.json")[1][0].code == "F003"
    data, problems = load_play(write(tmp_path / "ok.json", minimal_play()))
    assert problems == [] and data["dungeon"] == "candlewick-cellars"


# -- the documented examples --------------------------------------------------------------------------


def _doc_examples() -> list[tuple[dict, str]]:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```(json|text)\n(.*?)```", text, flags=re.S)
    examples = []
    for (kind, body), (next_kind, next_body) in zip(blocks, blocks[1:]):
        if kind == "json" and next_kind == "text":
            data = json.loads(body)
            if data.get("type") == "play":
                examples.append((data, next_body))
    return examples


def test_the_documented_examples_are_valid_and_score_as_shown(tmp_path, capsys):
    examples = _doc_examples()
    assert len(examples) == 2
    for i, (play, shown) in enumerate(examples):
        assert codes(play) == []
        status, out, err = run_score([str(LANTERN), write(tmp_path / f"play{i}.json", play)], capsys)
        assert (status, err) == (0, "")
        assert out == shown


# -- the command ----------------------------------------------------------------------------------


def test_score_json_output(tmp_path, capsys):
    status, out, _ = run_score(
        [str(LANTERN), write(tmp_path / "p.json", minimal_play(character="ranger")), "--format", "json"], capsys
    )
    result = json.loads(out)
    assert status == 0 and result["type"] == "score" and result["total"] == 3
    assert [(s["area"], s["subtotal"]) for s in result["sections"]] == [("r1", 1), ("c1", 2)]


def test_score_from_a_game_json_alone(tmp_path, capsys, monkeypatch):
    """The referee needs only the game data: no dungeon file, no ruleset, no pack."""
    opened = open_dungeons([str(LANTERN)])
    game = write(tmp_path / "lantern.game.json", game_document(opened.dungeons))
    play = write(tmp_path / "p.json", minimal_play(character="ranger"))

    def forbidden(*args, **kwargs):
        raise AssertionError("the referee must not read dungeons or rulesets")

    monkeypatch.setattr("inkcrawl.loading.open_dungeons", forbidden)
    monkeypatch.setattr("inkcrawl.rulesets.bundled_rulesets", forbidden)
    status, out, err = run_score([game, play], capsys)
    assert (status, err) == (0, "")
    assert out.endswith("Total: 3 VP\n")


def test_exit_codes(tmp_path, capsys):
    good = write(tmp_path / "good.json", minimal_play())
    # 2: unreadable play or dungeon, usage errors
    assert run_score([str(LANTERN), str(tmp_path / "missing.json")], capsys)[0] == 2
    assert run_score([str(tmp_path / "missing-pack"), good], capsys)[0] == 2
    assert run_score([str(LANTERN), good, "--format", "xml"], capsys)[0] == 2
    # 1: the play is invalid (schema), or cannot be drawn on the dungeon, or names another dungeon
    status, _, err = run_score([str(LANTERN), write(tmp_path / "s.json", minimal_play(players="two"))], capsys)
    assert status == 1 and "/players" in err
    status, _, err = run_score(
        [str(LANTERN), write(tmp_path / "far.json", minimal_play(path=[[[5, 5], [6, 6]]]))], capsys
    )
    assert status == 1 and "/path/0/0" in err and "Start" in err
    status, _, err = run_score([str(LANTERN), write(tmp_path / "o.json", minimal_play(dungeon="nowhere"))], capsys)
    assert status == 1 and "nowhere" in err
    status, _, err = run_score(
        [str(PACKS / "ember-halls"), write(tmp_path / "g.json", minimal_play(dungeon="cinder-vault"))], capsys
    )
    assert status == 1 and "grid" in err
    # 1: the dungeon has validation errors
    broken = json.loads((LANTERN / "dungeons" / "01-candlewick-cellars.json").read_text(encoding="utf-8"))
    broken["areas"][0]["polygon"] = [[0, 0], [1, 1], [2, 2]]
    status, _, err = run_score([write(tmp_path / "broken.json", broken), good], capsys)
    assert status == 1 and "error" in err


@pytest.mark.parametrize(
    "play, pointer",
    [
        (minimal_play(character="monk"), "/character"),
        (minimal_play(players=9), "/players"),
        (minimal_play(keys_gone=["m1"]), "/keys_gone/0"),
        (minimal_play(skeleton_keys={"m1": "red"}), "/skeleton_keys/m1"),
        (minimal_play(orb_tokens={"green": [1]}), "/orb_tokens/green"),
        (minimal_play(end={"trigger": "timer", "at": {"length_mm": 5}}), "/end/trigger"),
        (minimal_play(path=[[[50, 35], [50, 45]], [[60, 60]]]), "/path/1"),
        (minimal_play(end={"trigger": "exit_reached", "at": {"polyline": 3, "point": 0}}), "/end/at/polyline"),
    ],
)
def test_plays_that_cannot_be_drawn_on_the_dungeon(play, pointer):
    entry = game_document(open_dungeons([str(LANTERN / "dungeons" / "01-candlewick-cellars.json")]).dungeons)
    with pytest.raises(PlayError) as caught:
        referee(entry["dungeons"][0], play)
    assert pointer in [p for p, _ in caught.value.problems]


def test_every_problem_of_a_play_is_reported():
    entry = game_document(open_dungeons([str(LANTERN / "dungeons" / "01-candlewick-cellars.json")]).dungeons)
    play = minimal_play(character="monk", path=[[[5, 5], [6, 6]], [[7, 7]]])
    with pytest.raises(PlayError) as caught:
        referee(entry["dungeons"][0], play)
    assert [p for p, _ in caught.value.problems] == ["/character", "/path/0/0", "/path/1"]


HOSTILE = [
    "",
    "null",
    "[]",
    '{"type": "play"}',
    '{"type": "play", "format_version": 1, "dungeon": "x", "path": [[[1, 2]]]}',
    json.dumps(minimal_play(path=[[[50, 35]] * 3])),
    json.dumps(minimal_play(path=[[[50, 35], [1e5, -1e5]]])),
    json.dumps(minimal_play(end={"trigger": "exit_reached", "at": {"polyline": 0, "point": 99}})),
    "[" * 10000 + "]" * 10000,
]


@pytest.mark.parametrize("text", HOSTILE)
def test_never_a_traceback(tmp_path, text):
    play = write(tmp_path / "play.json", text)
    code = (
        "import sys; from inkcrawl.cli import score; import argparse; p = argparse.ArgumentParser(); "
        "score.register(p.add_subparsers()); a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "score", str(LANTERN), play],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 1, 2)


def test_plays_are_scored_independently_of_one_another():
    """A compiled dungeon is reused: scoring one play never changes the next one's score."""
    from inkcrawl.engines.line import LineRules

    entry = game_document(open_dungeons([str(LANTERN / "dungeons" / "01-candlewick-cellars.json")]).dungeons)
    rules = LineRules(entry["dungeons"][0])
    first = referee(rules, minimal_play(character="ranger"))
    referee(rules, minimal_play(pen_width_mm=3.0, path=[[[50, 35], [30, 50], [20, 60]]]))
    again = referee(rules, copy.deepcopy(minimal_play(character="ranger")))
    assert first == again


def test_the_referee_checks_the_play_schema_itself():
    entry = game_document(open_dungeons([str(LANTERN / "dungeons" / "01-candlewick-cellars.json")]).dungeons)
    with pytest.raises(PlayError) as caught:
        referee(entry["dungeons"][0], minimal_play(players="two"))
    assert caught.value.problems[0][0] == "/players"
