"""Four loose ends of ``inkcrawl generate`` / ``inkcrawl populate`` and the editor's Generate
dialog (docs/generating.md): a constraints file's counts and par range show in the dialog's
fields; a reversed range is refused by the dialog as the command refuses it; a par whose route
does not fit a tight timer is said in the success line; ``line.locks.replace_keys: false`` adds
no key and refuses doors the layout's own keys never open."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from editor.dungeon.generating import generate_job, merge_constraints, populate_job
from inkcrawl.cli import main
from inkcrawl.engines.line import LineRules
from inkcrawl.engines.line.par import DEFAULT_SPEED_MM_S, par
from inkcrawl.gamedata import line_game_data
from inkcrawl.generate import Infeasible, line_spec
from inkcrawl.generate.line import generate_line
from inkcrawl.generate.populate import LAYOUT_KINDS, populate_line
from inkcrawl.model import dungeon_from_dict
from inkcrawl.rulesets import bundled_rulesets
from tests.editor_support import make_window

RULESETS = bundled_rulesets()
LINE = RULESETS["line-classic"]
GRID = RULESETS["grid-classic"]


def _constraints(family: str = "line", **section) -> dict:
    return {"type": "constraints", "format_version": 1, "family": family, family: section}


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _line_dialog(window):
    dialog = window.generator.generate()
    dialog.family_box.setCurrentIndex(dialog.family_box.findData("line"))
    assert dialog.chosen_ruleset().id == "line-classic"
    return dialog


def _no_job(dialog, monkeypatch) -> list:
    """Record (and refuse) any job the dialog would submit to its worker."""
    submitted: list = []
    monkeypatch.setattr(dialog.worker, "submit", lambda *args: submitted.append(args))
    return submitted


# --- 1. a file's values show in the fields ------------------------------------------------------
def test_a_files_counts_and_par_range_show_in_the_fields_and_generating_uses_them(qtbot, tmp_path):
    window = make_window(qtbot)
    dialog = _line_dialog(window)
    counts = dialog.line_counts
    assert counts["rooms"].text() == "ruleset"  # no file: the ruleset's default
    line = {
        "rooms": 6,
        "locked_doors": [1, 2],
        "elements": {"monster": [2, 4], "boss": 1},
        "difficulty": {"par": [10, 30.5]},
    }
    assert dialog.set_constraints_file(_write(tmp_path / "six.json", _constraints(**line))) is True
    # the count fields left at "ruleset" show the file's count or range, not "ruleset"
    assert counts["rooms"].text() == "6 (file)"
    assert counts["locked_doors"].text() == "1 to 2 (file)"
    assert counts["monster"].text() == "2 to 4 (file)"
    assert counts["boss"].text() == "1 (file)"
    assert counts["plant"].text() == "ruleset"  # the file sets no plants
    # the par range is ticked at the file's ends
    assert dialog.par_check.isChecked()
    assert (dialog.par_range[0].value(), dialog.par_range[1].value()) == (10.0, 30.5)
    merged = dialog.constraints()["line"]
    assert merged["rooms"] == 6 and merged["locked_doors"] == [1, 2]
    assert merged["elements"] == {"monster": [2, 4], "boss": 1}
    assert merged["difficulty"] == {"par": [10.0, 30.5]}
    # generating uses them: 6 rooms, one or two locked doors, 2 to 4 monsters, one boss
    answer = generate_job("line", LINE, dialog.constraints(), 5, 30.0)
    assert answer["ok"], answer
    kinds = [e["kind"] for e in answer["data"]["elements"]]
    assert sum(1 for a in answer["data"]["areas"] if a["kind"] == "room") == 6
    assert 1 <= sum(1 for e in answer["data"]["elements"] if e["kind"] == "door" and e.get("locks")) <= 2
    assert 2 <= kinds.count("monster") <= 4 and kinds.count("boss") == 1
    # clearing the file puts the fields back: "ruleset", par unticked
    dialog.set_constraints_file("")
    assert counts["rooms"].text() == "ruleset" and counts["monster"].text() == "ruleset"
    assert not dialog.par_check.isChecked()
    # a file that cannot be used leaves nothing of the previous one in the fields
    assert dialog.set_constraints_file(_write(tmp_path / "six.json", _constraints(**line))) is True
    bad = _write(tmp_path / "bad.json", _constraints(rooms="six"))
    assert dialog.set_constraints_file(bad) is False
    assert counts["rooms"].text() == "ruleset" and not dialog.par_check.isChecked()
    dialog.reject()


def test_a_grid_files_counts_and_mean_score_show_in_the_fields(qtbot, tmp_path):
    window = make_window(qtbot)
    dialog = window.generator.generate()
    grid = {"entryways": 6, "features": {"loot": 4, "pairs": 6}, "difficulty": {"mean_score": [-2, 6]}}
    assert dialog.set_constraints_file(_write(tmp_path / "g.json", _constraints("grid", **grid))) is True
    assert dialog.family() == "grid"
    assert dialog.grid_counts["entryways"].text() == "6 (file)"
    assert dialog.grid_counts["loot"].text() == "4 (file)" and dialog.grid_counts["pairs"].text() == "6 (file)"
    assert dialog.grid_counts["dragon"].text() == "ruleset"
    assert dialog.score_check.isChecked()
    assert (dialog.score_range[0].value(), dialog.score_range[1].value()) == (-2.0, 6.0)
    assert dialog.constraints()["grid"]["difficulty"] == {"mean_score": [-2.0, 6.0]}
    # a curve over a pack cannot show in one range: the field stays unticked and the file's curve is used
    curve = {"difficulty": {"mean_score": {"from": [0, 4], "to": [12, 16]}}}
    assert dialog.set_constraints_file(_write(tmp_path / "curve.json", _constraints("grid", **curve))) is True
    assert not dialog.score_check.isChecked() and dialog.grid_counts["loot"].text() == "ruleset"
    assert dialog.constraints()["grid"]["difficulty"] == {"mean_score": {"from": [0, 4], "to": [12, 16]}}
    dialog.reject()


# --- 2. a reversed range: refused by the dialog as by the command -------------------------------
def _cli_error(tmp_path: Path, capsys, family: str, section: dict) -> str:
    path = _write(tmp_path / f"reversed-{family}.json", _constraints(family, **section))
    out = tmp_path / "never.json"
    code = main(["generate", "--family", family, "--seed", "1", "--constraints", str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    return err


@pytest.mark.parametrize(
    ("field", "ends", "section", "said"),
    [
        ("corridors", (6, 4), {"corridors": [6, 4]}, "line.corridors [6, 4]: the low end is above the high end"),
        ("starts", (3, 1), {"starts": [3, 1]}, "line.starts [3, 1]: the low end is above the high end"),
        ("par", (25.0, 15.0), {"difficulty": {"par": [25, 15]}}, "line.difficulty.par [25, 15]: the low end is above"),
    ],
)
def test_a_reversed_line_range_is_refused_as_the_cli_refuses_it(
    qtbot, tmp_path, capsys, monkeypatch, field, ends, section, said
):
    assert said in _cli_error(tmp_path, capsys, "line", section)
    window = make_window(qtbot)
    dialog = _line_dialog(window)
    submitted = _no_job(dialog, monkeypatch)
    check, boxes = (dialog.par_check, dialog.par_range) if field == "par" else dialog.line_ranges[field]
    check.setChecked(True)
    for box, end in zip(boxes, ends):
        box.setValue(end)
    dialog.run_button.click()
    assert submitted == [] and not dialog.running and dialog.isVisible()
    assert dialog.message.isVisible() and said in dialog.message.text()
    assert "Nothing was generated" in dialog.message.text()
    assert tuple(b.value() for b in boxes) == ends  # what the designer typed is kept, not swapped
    # the same reversed range from a file is shown as it is and refused the same way
    check.setChecked(False)
    assert dialog.set_constraints_file(_write(tmp_path / "file.json", _constraints(**section))) is True
    assert check.isChecked() and tuple(b.value() for b in boxes) == ends
    dialog.run_button.click()
    assert submitted == [] and said in dialog.message.text()
    dialog.reject()


def test_a_reversed_mean_score_is_refused_as_the_cli_refuses_it(qtbot, tmp_path, capsys, monkeypatch):
    said = "grid.difficulty.mean_score [10, 0]: the low end is above the high end"
    assert said in _cli_error(tmp_path, capsys, "grid", {"difficulty": {"mean_score": [10, 0]}})
    window = make_window(qtbot)
    dialog = window.generator.generate()
    dialog.family_box.setCurrentIndex(dialog.family_box.findData("grid"))
    submitted = _no_job(dialog, monkeypatch)
    dialog.score_check.setChecked(True)
    dialog.score_range[0].setValue(10.0)
    dialog.score_range[1].setValue(0.0)
    dialog.run_button.click()
    assert submitted == [] and said in dialog.message.text()
    assert (dialog.score_range[0].value(), dialog.score_range[1].value()) == (10.0, 0.0)
    dialog.reject()


def test_merge_constraints_keeps_a_reversed_range_as_typed():
    merged = merge_constraints(None, "line", "line-classic", {"corridors": (6, 4), "starts": (2, 2), "par": (9, 3)})
    assert merged["line"] == {"corridors": [6, 4], "starts": 2, "difficulty": {"par": [9.0, 3.0]}}


# --- 3. par met, its route longer than a tight timer ---------------------------------------------
TEN_SECONDS = {"rooms": [5, 6], "end_triggers": [{"kind": "timer", "seconds": 10}], "difficulty": {"par": [5, 40]}}


def test_a_par_route_longer_than_the_timer_is_said_in_the_success_line(tmp_path, capsys):
    path = _write(tmp_path / "ten-seconds.json", _constraints(**TEN_SECONDS))
    out = tmp_path / "t.json"
    assert main(["generate", "--family", "line", "--seed", "0", "--constraints", str(path), "-o", str(out)]) == 0
    line = capsys.readouterr().out
    # par measured again here: 10 s at 50 mm/s holds 500 mm of line
    data = json.loads(out.read_text(encoding="utf-8"))
    found = par(LineRules(line_game_data(dungeon_from_dict(data), LINE)))
    assert DEFAULT_SPEED_MM_S == 50.0 and found.fits_timer is False and found.length_mm > 500
    assert 5 <= found.par <= 40 and found.timer_vp is not None and found.timer_vp < found.par
    assert f"par {found.par} VP in 5..40" in line
    assert (
        f"its route, {found.length_mm:,.0f} mm, takes longer than the timer's 10 s at 50 mm/s: "
        f"within the timer the best found is {found.timer_vp} VP"
    ) in line
    # populate says it too
    populated = tmp_path / "p.json"
    args = ["populate", str(out), "--seed", "1", "--constraints", str(path), "-o", str(populated)]
    assert main(args) == 0
    assert "takes longer than the timer's 10 s at 50 mm/s" in capsys.readouterr().out


def test_a_route_that_fits_the_timer_adds_nothing_and_the_editor_notes_say_it():
    spec = line_spec(_constraints(**TEN_SECONDS), LINE)
    result = generate_line(spec, 0)
    assert result.populated.timer is not None and result.populated.timer["seconds"] == 10
    answer = generate_job("line", LINE, _constraints(**TEN_SECONDS), 0, 30.0)
    assert answer["ok"] and "takes longer than the timer's 10 s at 50 mm/s" in answer["note"]
    roomy = {**TEN_SECONDS, "end_triggers": [{"kind": "timer", "seconds": 3600}]}  # 180,000 mm of line
    fits = generate_line(line_spec(_constraints(**roomy), LINE), 0)
    assert fits.populated.timer is None and fits.populated.timer_note() == ""
    answer = populate_job(result.data, LINE, _constraints(**TEN_SECONDS), 1, 30.0, "t")
    assert answer["ok"] and "takes longer than the timer's 10 s" in answer["note"]


# --- 4. replace_keys: false ---------------------------------------------------------------------
def _locked_layout() -> tuple[dict, dict]:
    """A generated line dungeon with two locked doors, and its layout (its keys and scoring
    elements taken out)."""
    full = generate_line(line_spec(_constraints(locked_doors=2, rooms=5), LINE), 3).data
    layout = copy.deepcopy(full)
    layout["elements"] = [e for e in layout["elements"] if e["kind"] in LAYOUT_KINDS]
    return full, layout


KEEP = _constraints(locks={"replace_keys": False})


def test_replace_keys_false_adds_no_key_and_refuses_doors_that_never_open(tmp_path, capsys):
    full, layout = _locked_layout()
    doors = {e["id"]: e["locks"] for e in layout["elements"] if e["kind"] == "door" and e.get("locks")}
    assert len(doors) == 2
    with pytest.raises(Infeasible) as caught:
        populate_line(layout, line_spec(KEEP, LINE), 1)
    assert caught.value.constraint == "line.locks.replace_keys"
    assert all(repr(door) in str(caught.value) for door in doors) and "no keys" in str(caught.value)
    # the command writes nothing
    source, out = _write(tmp_path / "layout.json", layout), tmp_path / "out.json"
    keep = _write(tmp_path / "keep.json", KEEP)
    assert main(["populate", str(source), "--seed", "1", "--constraints", str(keep), "-o", str(out)]) == 1
    assert "line.locks.replace_keys" in capsys.readouterr().err and not out.exists()
    # with its own keys, the layout keeps exactly them and gets no other
    keys = [e for e in full["elements"] if e["kind"] in ("key", "skeleton_key")]
    result = populate_line(full, line_spec(KEEP, LINE), 1)
    assert [e for e in result.data["elements"] if e["kind"] in ("key", "skeleton_key")] == keys
    # one key taken away: the door of its colour never opens and is named
    gone = keys[0]
    shut = [door for door, locks in doors.items() if gone["colour"] in locks]
    fewer = copy.deepcopy(full)
    fewer["elements"] = [e for e in fewer["elements"] if e["id"] != gone["id"]]
    with pytest.raises(Infeasible) as caught:
        populate_line(fewer, line_spec(KEEP, LINE), 1)
    assert caught.value.constraint == "line.locks.replace_keys" and all(repr(d) in str(caught.value) for d in shut)


def test_replace_keys_true_still_puts_a_lock_puzzle_on_the_layout():
    _, layout = _locked_layout()
    result = populate_line(layout, line_spec(_constraints(), LINE), 1)
    colours = {c for e in layout["elements"] if e["kind"] == "door" for c in e.get("locks") or []}
    assert {e["colour"] for e in result.data["elements"] if e["kind"] == "key"} == colours


def test_replace_keys_false_still_places_the_skeleton_keys_asked_for():
    """``replace_keys: false`` adds no key for the doors; skeleton keys asked for by
    ``skeleton_keys`` are placed all the same (docs/generating.md): a layout with its own keys
    keeps them and gets exactly the two skeleton keys asked for."""
    full, _ = _locked_layout()
    own = [e for e in full["elements"] if e["kind"] in ("key", "skeleton_key")]
    assert own and all(e["kind"] == "key" for e in own)
    spec = line_spec(_constraints(locks={"replace_keys": False, "skeleton_keys": 2}), LINE)
    result = populate_line(full, spec, 1)
    keys = [e for e in result.data["elements"] if e["kind"] in ("key", "skeleton_key")]
    assert [e for e in keys if e["kind"] == "key"] == own
    assert sum(e["kind"] == "skeleton_key" for e in keys) == 2


def test_a_file_grid_larger_than_the_fields_is_refused_not_cut(qtbot, tmp_path):
    """A file's 100 x 100 grid is refused as ``inkcrawl generate`` refuses it (the printable
    minimum), not cut to the size fields' largest side and generated at that size."""
    window = make_window(qtbot)
    dialog = window.generator.generate()
    submitted = []
    dialog.worker.submit = lambda *args: submitted.append(args)  # type: ignore[method-assign]
    columns_before = dialog.columns.value()
    big = _write(tmp_path / "big.json", _constraints("grid", columns=100, rows=100))
    assert dialog.set_constraints_file(big) is False
    assert "grid.columns/grid.rows: a 100x100 grid" in dialog.message.text() and "big.json" in dialog.message.text()
    assert dialog.columns.value() == columns_before
    assert dialog.start() is False and submitted == []
    dialog.reject()


def test_generate_checks_the_file_against_the_ruleset_of_its_family(qtbot, tmp_path):
    """A line file, the family then switched to grid by hand: Generate reads the file again,
    which chooses its family back, and checks it against that family's ruleset (it named the
    grid ruleset before: "ruleset 'grid-classic' is for the grid family, not line")."""
    window = make_window(qtbot)
    dialog = _line_dialog(window)
    submitted = []
    dialog.worker.submit = lambda *args: submitted.append(args)  # type: ignore[method-assign]
    assert dialog.set_constraints_file(_write(tmp_path / "l.json", _constraints(rooms=6))) is True
    dialog.family_box.setCurrentIndex(dialog.family_box.findData("grid"))
    assert dialog.start() is True, dialog.message.text()
    assert dialog.family() == "line" and "is for the grid family" not in dialog.message.text()
    (job,) = submitted
    assert job[2] == "line" and job[3].id == "line-classic"
    dialog.cancel_job()
    dialog.reject()
