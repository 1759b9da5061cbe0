"""Issue 17, "bounded memory or time": every read path is bounded before its expensive step
(docs/formats.md, "Limits"). Each hostile input is refused in a real process whose address
space is limited with ``resource.setrlimit(RLIMIT_AS)`` (1 GiB: the bundled content needs
under 500 MiB), within a timeout, with the exit code and the message worked out by hand.
Skipped where the platform has no ``resource`` module (Windows)."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PACKS, REPO

from inkcrawl.gamedata import game_document
from inkcrawl.loading import open_dungeons

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

needs_resource = pytest.mark.skipif(
    resource is None, reason="this platform has no 'resource' module to limit a process's memory"
)

#: The address-space limit of every hostile run.
MEMORY = 1 << 30
CANDLEWICK = PACKS / "lantern-depths" / "dungeons" / "01-candlewick-cellars.json"
SMALL_PLAY = {
    "type": "play",
    "format_version": 1,
    "dungeon": "candlewick-cellars",
    "path": [[[50, 35], [50, 45], [60, 64]]],
}


def _limit_memory() -> None:  # in the child, before it runs inkcrawl
    assert resource is not None
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _env() -> dict[str, str]:
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        PYTHONIOENCODING="utf-8",
    )


def run_bounded(*argv: str, timeout: float = 60) -> tuple[int, str, str, float]:
    """``python -m inkcrawl ARGV`` limited to :data:`MEMORY` of address space: (exit code,
    stdout, stderr, seconds). No traceback may appear, whatever the exit code."""
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=_env(),
        cwd=REPO,
        timeout=timeout,
        preexec_fn=_limit_memory,
    )
    seconds = time.monotonic() - started
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr[-2000:]
    return result.returncode, result.stdout, result.stderr, seconds


@pytest.fixture(scope="module")
def candlewick_entry() -> dict:
    opened = open_dungeons([str(CANDLEWICK)])
    return game_document(opened.dungeons)["dungeons"][0]


def _game(tmp_path: Path, entry: dict, name: str = "hostile.game.json") -> str:
    path = tmp_path / name
    document = {"type": "game", "format_version": 2, "generator": "tests", "dungeons": [entry]}
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def _play(tmp_path: Path) -> str:
    path = tmp_path / "small.play.json"
    path.write_text(json.dumps(SMALL_PLAY), encoding="utf-8")
    return str(path)


# -- plays ------------------------------------------------------------------------------------


@needs_resource
def test_a_play_of_ten_million_points_is_refused_before_it_is_parsed(tmp_path, candlewick_entry):
    """60 MB, under the 64 MiB file limit: took 3.4 GB and up to 55 s to be refused. Values,
    by hand: '{' 1, 3 commas in the header, '[' of path 1, per polyline '[' 1 + 1,000,000
    points of '[' and an inner comma + 999,999 commas between points = 3,000,000, 9 commas
    between the 10 polylines: 30,000,014."""
    play = tmp_path / "huge.play.json"
    polyline = "[" + ",".join(["[0,0]"] * 1_000_000) + "]"
    play.write_text(
        '{"type":"play","format_version":1,"dungeon":"candlewick-cellars","path":[' + ",".join([polyline] * 10) + "]}",
        encoding="utf-8",
    )
    assert play.stat().st_size < 64 * 1024 * 1024
    code, out, err, seconds = run_bounded("score", _game(tmp_path, candlewick_entry), str(play))
    assert code == 1
    assert err == (
        f"{play}:: error F006 the file holds about 30,000,014 values (numbers, strings, arrays, objects), more "
        f"than the 5,000,000 inkcrawl reads (a play's path has at most 1,000,000 points); it was not parsed\n"
    )
    assert seconds < 20


@needs_resource
def test_a_play_over_the_point_limit_is_refused_before_the_schema_and_the_referee(tmp_path, candlewick_entry):
    """1,500,001 points in three polylines (4.5 million values: parsed, then counted)."""
    play = tmp_path / "long.play.json"
    polyline = "[" + ",".join(["[50,35]"] * 500_000) + "]"
    play.write_text(
        '{"type":"play","format_version":1,"dungeon":"candlewick-cellars","path":['
        + ",".join([polyline] * 3)
        + ',[[1,2]]], "notes": "one more"}',
        encoding="utf-8",
    )
    code, out, err, seconds = run_bounded("score", _game(tmp_path, candlewick_entry), str(play), "--format", "json")
    assert code == 1
    message = "the path has 1,500,001 points, more than the 1,000,000 the referee accepts"
    assert err == f"{play}:/path: error F006 {message}\n"
    assert json.loads(out)["problems"] == [{"file": str(play), "pointer": "/path", "code": "F006", "message": message}]
    assert seconds < 30


def test_a_play_at_the_point_limit_is_checked_by_the_schema():
    from inkcrawl.play import MAX_PLAY_POINTS, play_data_problems

    play = dict(SMALL_PLAY, path=[[[0, 0]] * (MAX_PLAY_POINTS // 2), [[0, 0]] * (MAX_PLAY_POINTS // 2)])
    assert play_data_problems(play, "p.json") == []
    play["path"][1].append([0, 0])
    assert [(p.code, p.pointer) for p in play_data_problems(play, "p.json")] == [("F006", "/path")]


@needs_resource
def test_a_play_longer_than_100_m_is_refused_before_the_referee(tmp_path, candlewick_entry):
    """The referee's time grows with the walls the line crosses: 4,000 points zig-zagging
    through the walls took 13 s, 200,000 of them over 2 minutes. Here: 51 times from (50, 35)
    to (50, 1035) and back, 101 segments of 1,000 mm: 101.0 m."""
    play = tmp_path / "zigzag.play.json"
    play.write_text(json.dumps(dict(SMALL_PLAY, path=[[[50, 35], [50, 1035]] * 51])), encoding="utf-8")
    code, out, err, seconds = run_bounded("score", _game(tmp_path, candlewick_entry), str(play))
    assert code == 1
    assert err == f"{play}:/path: error F006 the drawn line is 101.0 m long, more than the 100 m the referee accepts\n"
    assert seconds < 20


def test_a_play_of_exactly_100_m_is_refereed():
    from inkcrawl.play import play_data_problems

    play = dict(SMALL_PLAY, path=[[[50, 35], [50, 1035]] * 50 + [[50, 35]]])  # 100 segments of 1,000 mm
    assert play_data_problems(play, "p.json") == []
    play["path"].append([[0, 0], [0, 0.01]])  # a new polyline (a portal exit) adds its own length
    assert [(p.code, p.pointer) for p in play_data_problems(play, "p.json")] == [("F006", "/path")]


# -- game data ----------------------------------------------------------------------------------


@needs_resource
def test_a_footprint_vertex_at_a_billion_mm_is_refused_by_the_schema(tmp_path, candlewick_entry):
    """The referee once tried to allocate 29.8 GiB for the cover lattice of this footprint."""
    entry = copy.deepcopy(candlewick_entry)
    element = entry["elements"][0]
    assert element["id"] == "m1" and element["interaction"] == "cover"
    element["footprint"][0][1] = 1e9
    element.pop("ink")
    game = _game(tmp_path, entry)
    code, out, err, _ = run_bounded("score", game, _play(tmp_path))
    assert code == 1
    assert (
        err
        == f"{game}:/dungeons/0/elements/0/footprint/0/1: error S001 1000000000 is greater than the maximum of 100000\n"
    )


@needs_resource
def test_a_sliver_footprint_is_refused_before_its_lattice_is_allocated(tmp_path, candlewick_entry):
    """Inside the coordinate range, but 1000 x 1000.01 mm for 5 mm² of area: the lattice at
    sqrt(5 / 2500) = 0.0447 mm would have ceil(1000 / 0.04472) x ceil(1000.01 / 0.04472) =
    22361 x 22361 = 500,014,321 cells."""
    entry = copy.deepcopy(candlewick_entry)
    element = entry["elements"][0]
    element["footprint"] = [[0, 0], [1000, 1000], [1000, 1000.01]]
    element.pop("ink")
    game = _game(tmp_path, entry)
    code, out, err, _ = run_bounded("score", game, _play(tmp_path))
    assert code == 1
    assert err == (
        f"inkcrawl score: error: {game}: dungeon 'candlewick-cellars' cannot be played: elements[0] (m1).footprint: "
        f"too thin to sample: its bounding box (1000 x 1000.01 mm) is too large for its area (5 mm²): "
        f"500,014,321 lattice cells, at most 1,000,000\n"
    )


@needs_resource
def test_traces_too_long_to_sample_are_refused_before_they_are_allocated(tmp_path, candlewick_entry):
    """One stroke across the whole coordinate range and back 500 times: 1000 segments of
    282,841 mm, 2.8 million samples each."""
    entry = copy.deepcopy(candlewick_entry)
    index, element = next((i, e) for i, e in enumerate(entry["elements"]) if e["interaction"] == "trace")
    element["trace"] = [[[-100000, -100000], [100000, 100000]] * 500]
    element.pop("outline", None)
    game = _game(tmp_path, entry)
    code, out, err, _ = run_bounded("score", game, _play(tmp_path))
    assert code == 1
    assert err == (
        f"inkcrawl score: error: {game}: dungeon 'candlewick-cellars' cannot be played: elements[{index}] "
        f"({element['id']}).trace: the traces are too long to sample (more than 2,000,000 points every 0.1 mm)\n"
    )


@needs_resource
def test_game_data_of_too_many_values_is_refused_before_it_is_parsed(tmp_path, candlewick_entry):
    """A wall of 6,000,000 points: '[0,0]' each is '[' + a comma, plus the commas between."""
    entry = copy.deepcopy(candlewick_entry)
    entry["walls"] = [{"id": "w", "points": []}]
    game = Path(_game(tmp_path, entry))
    text = game.read_text(encoding="utf-8")
    head, tail = text.split('"points": []', 1)
    before = head.count(",") + head.count("[") + head.count("{") + tail.count(",") + tail.count("[") + tail.count("{")
    game.write_text(head + '"points": [' + ",".join(["[0,0]"] * 6_000_000) + "]" + tail, encoding="utf-8")
    expected = before + 1 + 2 * 6_000_000 + 5_999_999
    code, out, err, seconds = run_bounded("simulate", str(game))
    assert code == 1
    assert err == (
        f"{game}:: error F006 the file holds about {expected:,} values (numbers, strings, arrays, objects), "
        f"more than the 5,000,000 inkcrawl reads; it was not parsed\n"
    )
    assert seconds < 20


# -- dungeons -----------------------------------------------------------------------------------


@needs_resource
def test_a_dungeon_of_too_many_values_is_refused_before_it_is_parsed(tmp_path):
    """validate, export, analyze, simulate all read dungeons through the same loader."""
    dungeon = json.loads(CANDLEWICK.read_text(encoding="utf-8"))
    dungeon["walls"] = [{"id": "w", "points": "HOLE"}]
    text = json.dumps(dungeon)
    head, tail = text.split('"HOLE"')
    before = sum(part.count(",") + part.count("[") + part.count("{") for part in (head, tail))
    path = tmp_path / "huge-dungeon.json"
    path.write_text(head + "[" + ",".join(["[1,2]"] * 6_000_000) + "]" + tail, encoding="utf-8")
    expected = before + 1 + 2 * 6_000_000 + 5_999_999
    message = (
        f"the file holds about {expected:,} values (numbers, strings, arrays, objects), more than the 5,000,000 "
        f"inkcrawl reads; it was not parsed"
    )
    code, out, err, seconds = run_bounded("validate", str(path), "--format", "json")
    assert code == 1
    assert [(p["code"], p["message"]) for p in json.loads(out)] == [("F006", message)]
    assert seconds < 20
    code, out, err, _ = run_bounded("analyze", str(path))
    assert code == 1
    assert f"{path}:: error F006 {message}\n" in err


# -- problems per file ------------------------------------------------------------------------


def _incomplete_elements(tmp_path: Path, count: int) -> Path:
    dungeon = json.loads((REPO / "tests" / "corpus" / "valid-tiny.json").read_text(encoding="utf-8"))
    dungeon["elements"] = [{}] * count
    path = tmp_path / f"incomplete-{count}.json"
    path.write_text(json.dumps(dungeon), encoding="utf-8")
    return path


@needs_resource
def test_a_million_incomplete_elements_are_one_problem(tmp_path):
    """Once 2,000,000 schema problems in 8.3 GB and 100 s: the list is longer than the schema's
    50,000, so its items are not checked one by one."""
    path = _incomplete_elements(tmp_path, 1_000_000)
    code, out, err, seconds = run_bounded("validate", str(path))
    assert code == 1
    assert out == (
        f"{path}:/elements: error S001 1,000,000 items, more than the 50,000 allowed; the items were not checked\n"
        f"{path}:: warning S002 rule checks skipped: fix the structure errors above first\n"
        f"checked 1 file (1 dungeon): 1 error, 1 warning\n"
    )
    assert seconds < 20


@needs_resource
def test_problems_beyond_200_per_file_are_counted_not_listed(tmp_path):
    """50,000 empty elements (as many as allowed), each missing "id" and "kind": elements 0 to
    99 give the first 200 problems, elements 100 to 49,999 are only counted (49,900, one error
    each at least). Listed: 199 S001 and the S002 note; the S003 counts the 200th S001 (element
    99's "kind") and the 49,900 objects: 49,901. Total errors 199 + 49,901 = 50,100."""
    path = _incomplete_elements(tmp_path, 50_000)
    code, out, err, seconds = run_bounded("validate", str(path), "--format", "json")
    assert code == 1
    problems = json.loads(out)
    assert len(problems) == 201
    assert [(p["code"], p["pointer"]) for p in problems[:3]] == [
        ("S001", "/elements/0"),
        ("S001", "/elements/0"),
        ("S001", "/elements/1"),
    ]
    assert (problems[198]["pointer"], problems[198]["message"]) == (
        "/elements/99",
        'element: "id" is a required property; write an id unique in the dungeon, such as "id": "element-1"',
    )
    assert problems[199]["code"] == "S002"
    assert problems[200] == {
        "file": str(path),
        "pointer": "",
        "severity": "error",
        "code": "S003",
        "rule": "problems-not-listed",
        "message": "and 49,901 more problems not listed (49,901 errors, 0 warnings, counting one for each of 49,900 "
        "more objects with schema errors): only the first 200 problems of a file are listed",
    }
    assert err == "checked 1 file (1 dungeon): 50100 errors, 1 warning\n"
    assert seconds < 30


def test_the_cap_counts_warnings_and_errors_apart():
    from inkcrawl.problems import problem
    from inkcrawl.validate import Report, capped_problems

    problems = [problem("G011", f"room {i}", "d.json", f"/rooms/{i}") for i in range(250)]
    problems.insert(3, problem("S002", "note", "d.json"))
    problems.append(problem("C001", "an error", "d.json", "/id"))
    capped = capped_problems(problems, "d.json")
    assert len(capped) == 201
    assert [p.code for p in capped[-2:]] == ["S002", "S003"]
    assert capped[-1].message == (
        "and 52 more problems not listed (1 error, 51 warnings): only the first 200 problems of a file are listed"
    )
    report = Report(capped)
    assert (report.errors, report.warnings) == (1, 250 + 1)
    assert capped_problems(problems[:200], "d.json") == problems[:200]


# -- simulate --games N -------------------------------------------------------------------------


def _rss_kib(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return None  # no /proc here: the address-space limit alone bounds the run
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))


@needs_resource
def test_a_hundred_million_games_start_at_once_in_flat_memory():
    """The seeds of every game were once listed up front: 5 GB and no output. Under a 1 GiB
    address-space limit the run must print its first progress line (after 100 games), and still
    be running, in the same memory, at its second (10 s later); then it is killed."""
    import queue
    import threading

    process = subprocess.Popen(
        [sys.executable, "-m", "inkcrawl", "simulate", str(PACKS / "ember-halls"), "--games", "100000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=_env(),
        cwd=REPO,
        preexec_fn=_limit_memory,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)
        lines.put("")  # the end of standard error: the process is gone

    threading.Thread(target=read, daemon=True).start()
    try:
        started = time.monotonic()
        first = lines.get(timeout=60)
        from inkcrawl.runs import FIRST_CHUNK  # the games of the first chunk (the first figures come at once)

        assert first == f"simulate: {FIRST_CHUNK} of 100,000,000 games played\n", first
        assert time.monotonic() - started < 30
        rss_first = _rss_kib(process.pid)
        second = lines.get(timeout=60)
        assert second.startswith("simulate: ") and second.endswith(" of 100,000,000 games played\n"), second
        assert process.poll() is None
        rss_second = _rss_kib(process.pid)
        if rss_first is not None and rss_second is not None:
            assert rss_second - rss_first < 20 * 1024, (rss_first, rss_second)
    finally:
        process.kill()
        process.wait(timeout=30)


# -- the small points ---------------------------------------------------------------------------


def test_simulate_plays_as_many_players_as_the_ruleset_allows(tmp_path, capsys):
    """A ruleset may allow up to 8 players (schemas/ruleset.schema.json); simulate once said
    "use 1 to 4 players" whatever the dungeon's ruleset allowed."""
    from inkcrawl.cli import main

    entry = game_document(open_dungeons([str(PACKS / "ember-halls")]).dungeons)["dungeons"][0]
    entry["players"] = {"min": 1, "max": 8}
    game = _game(tmp_path, entry)
    assert main(["simulate", game, "--players", "8", "--games", "5", "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["players"] == 8 and len(stats["seats"]) == 8
    entry["players"] = {"min": 1, "max": 6}
    game = _game(tmp_path, entry)
    assert main(["simulate", game, "--players", "8", "--games", "5"]) == 2
    assert capsys.readouterr().err == (
        f"inkcrawl simulate: error: dungeon {entry['id']!r} is for 1 to 6 players (its ruleset's range)\n"
    )
    assert main(["simulate", game, "--players", "9", "--games", "5"]) == 2
    assert capsys.readouterr().err == "inkcrawl simulate: error: use 1 to 8 players (the most any ruleset allows)\n"


def test_coordinates_of_1e308_are_named_short_and_raise_no_library_warning(tmp_path, candlewick_entry):
    """validate names the number as 1e+308 (not its 309 digits); export under --force leaves
    the dungeon out (a value beyond the format's limits is never drawn: an area that far took
    minutes and gigabytes) and says so, without shapely's RuntimeWarnings (overflow, invalid
    value) or a traceback; score names the play's point the same way."""
    dungeon = json.loads(CANDLEWICK.read_text(encoding="utf-8"))
    dungeon["walls"] = [*dungeon["walls"], {"id": "w-far", "points": [[0, 0], [-1e308, 1e308]]}]
    path = tmp_path / "far.json"
    path.write_text(json.dumps(dungeon), encoding="utf-8")
    pointer = f"/walls/{len(dungeon['walls']) - 1}/points/1"
    result = subprocess.run(
        [sys.executable, "-m", "inkcrawl", "export", "sheet", str(path), "-o", str(tmp_path / "far.pdf"), "--force"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=_env(),
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert "Warning" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert "inkcrawl export: error: no dungeon could be opened" in result.stderr
    assert not (tmp_path / "far.pdf").exists()
    far = f"{path}:{pointer}"
    assert f"{far}/0: error S001 wall 'w-far': -1e+308 is less than the minimum of -10000\n" in result.stderr
    assert f"{far}/1: error S001 wall 'w-far': 1e+308 is greater than the maximum of 10000\n" in result.stderr
    play = tmp_path / "far.play.json"
    play.write_text(json.dumps(dict(SMALL_PLAY, path=[[[50, 35], [1e308, 50]]])), encoding="utf-8")
    if resource is not None:
        code, out, err, _ = run_bounded("score", _game(tmp_path, candlewick_entry), str(play))
        assert (code, err) == (1, f"{play}:/path/0/1/0: error S001 1e+308 is greater than the maximum of 100000\n")


# -- every reader of JSON: rulesets, import mappings, sweep files ---------------------------------

#: The values of ``_padded`` text: '{' 1, '[' 1, the comma after "type" 1, and 5,000,000 zeros
#: with 4,999,999 commas between them, each comma one value: 5,000,002.
PADDED_VALUES = "5,000,002"


def _padded(path: Path, file_type: str) -> Path:
    """A JSON object of type ``file_type`` whose "pad" array holds 5,000,000 zeros (10 MB)."""
    path.write_text('{"type": "' + file_type + '", "pad": [' + ",".join(["0"] * 5_000_000) + "]}", encoding="utf-8")
    return path


def _over(file: Path | str) -> str:
    return (
        f"the file holds about {PADDED_VALUES} values (numbers, strings, arrays, objects), more than the 5,000,000 "
        f"inkcrawl reads; it was not parsed"
    )


def test_the_value_cap_is_applied_by_the_one_json_reader(tmp_path):
    from inkcrawl.jsonio import MAX_JSON_VALUES, parse_json_text, read_json_file

    path = _padded(tmp_path / "any.json", "anything")
    value, problems = read_json_file(path)
    assert value is None
    assert [(p.code, p.file, p.message) for p in problems] == [("F006", str(path), _over(path))]
    # the count is commas plus opening brackets: a flat array of n zeros counts '[' 1 and n - 1
    # commas, n in all; 5,000,000 zeros are at the limit and parsed, one more is refused
    text = "[" + ",".join(["0"] * MAX_JSON_VALUES) + "]"
    value, problems = parse_json_text(text, "flat.json")
    assert problems == [] and len(value) == 5_000_000
    value, problems = parse_json_text(text[:-1] + ",0]", "flat.json")
    assert value is None
    assert [(p.code, p.file) for p in problems] == [("F006", "flat.json")]
    assert problems[0].message.startswith("the file holds about 5,000,001 values")


@needs_resource
def test_a_pack_ruleset_of_too_many_values_is_refused_naming_it(tmp_path):
    """validate reads a pack's rulesets with load_ruleset_file, which did not count values."""
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "dungeons").mkdir()
    tiny = (REPO / "tests" / "corpus" / "valid-tiny.json").read_text(encoding="utf-8")
    (pack / "dungeons" / "tiny.json").write_text(tiny, encoding="utf-8")
    ruleset = _padded(pack / "huge-ruleset.json", "ruleset")
    manifest = {
        "type": "pack",
        "format_version": 1,
        "id": "big-rules",
        "name": "Big rules",
        "version": "1.0.0",
        "ruleset": "line-classic",
        "rulesets": ["huge-ruleset.json"],
        "dungeons": ["dungeons/tiny.json"],
    }
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    code, out, err, seconds = run_bounded("validate", str(pack))
    assert code == 1
    assert f"{ruleset}:: error F006 {_over(ruleset)}\n" in out
    assert seconds < 20


@needs_resource
def test_an_import_mapping_of_too_many_values_is_refused_naming_it(tmp_path):
    """import --map read the mapping with no cap (exit 2: nothing written, docs of import)."""
    mapping = _padded(tmp_path / "mapping.json", "mapping")
    output = tmp_path / "out.json"
    source = Path(__file__).resolve().parent / "import_samples" / "donjon" / "crypt.json"
    code, out, err, seconds = run_bounded("import", str(source), "--map", str(mapping), "-o", str(output))
    assert (code, out) == (2, "")
    assert err == f"inkcrawl import: error: {mapping}: {_over(mapping)}\n"
    assert not output.exists()
    assert seconds < 20


@needs_resource
def test_a_sweep_file_and_a_sweep_ruleset_of_too_many_values_are_refused_naming_them(tmp_path):
    spec = _padded(tmp_path / "sweep.json", "sweep")
    code, out, err, _ = run_bounded("sweep", str(spec))
    assert (code, out) == (2, "")
    assert err == f"inkcrawl sweep: error: {spec}:: {_over(spec)}\n"
    # a variant's ruleset file is read through load_ruleset_file too
    ruleset = _padded(tmp_path / "rules.json", "ruleset")
    spec.write_text(
        json.dumps(
            {
                "type": "sweep",
                "format_version": 1,
                "dungeons": [str(PACKS / "ember-halls")],
                "games": 2,
                "variants": [{"name": "big", "ruleset": "rules.json"}],
            }
        ),
        encoding="utf-8",
    )
    code, out, err, seconds = run_bounded("sweep", str(spec))
    assert (code, out) == (1, "")
    assert f"/variants/0/ruleset: {ruleset} is not a usable ruleset:  {_over(ruleset)}" in err
    assert seconds < 30


@needs_resource
def test_a_hundred_million_line_games_start_at_once_and_stop_on_sigterm(tmp_path):
    """Line dungeons listed every chunk of seeds up front (4,000,000 lists for 10^8 games): no
    output, and SIGTERM waited for every queued chunk. Now the first progress line comes after
    the first chunk of 25 games, under the 1 GiB limit, and SIGTERM ends the run (exit 143, as
    the exit codes of simulate say), its workers with it."""
    from test_kill_writers import _children, _gone
    from waiting import wait_for_line, wait_until

    process = subprocess.Popen(
        [sys.executable, "-m", "inkcrawl", "simulate", str(CANDLEWICK), "--games", "100000000", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=_env(),
        cwd=REPO,
        preexec_fn=_limit_memory,
    )
    workers: list[int] = []
    try:
        assert process.stderr is not None
        first = wait_for_line(process.stderr, "simulate: ", "the first progress line", timeout=60)
        assert first == "simulate: 25 of 100,000,000 games played\n"
        workers = _children(process.pid) if Path("/proc/self/stat").exists() else []
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 143
        assert process.stderr.read().endswith("inkcrawl: stopped by SIGTERM\n")
        wait_until(lambda: all(_gone(pid) for pid in workers), "the workers to end with the run")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
