"""File > Generate Dungeon... and File > Populate Dungeon... (issue #14): the dialog opened
window-modal without blocking, driven through its fields and buttons; generation runs in the
dialog's worker process, answers arrive on the event loop."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from editor.dungeon.generating import default_paper, merge_constraints, populate_edit, read_constraints_file
from editor.dungeon.templates import slug
from inkcrawl.generate import generate_grid, grid_spec, line_spec
from inkcrawl.generate.line import generate_line
from inkcrawl.generate.populate import layout_of, populate_line
from inkcrawl.papers import paper_name
from inkcrawl.rulesets import bundled_rulesets
from tests.editor_support import GRID_DUNGEON, GRID_PACK, LINE_DUNGEON, LINE_PACK, copy_pack, make_window

#: A spawned worker starts a fresh interpreter: allow for a loaded 2-core machine.
JOB_TIMEOUT_MS = 90_000
LAYOUT_KINDS = ("door", "label", "start")


def _run(qtbot, dialog) -> None:
    """Click the dialog's Generate (Populate) button and wait until the job's answer arrived."""
    with qtbot.waitSignal(dialog.finished_job, timeout=JOB_TIMEOUT_MS):
        dialog.run_button.click()


def _set_family(dialog, family: str) -> None:
    dialog.family_box.setCurrentIndex(dialog.family_box.findData(family))


def _errors(document) -> list:
    return [p for p in document.validate_now() if p.problem.severity == "error"]


def test_generate_grid_opens_a_new_unsaved_dungeon_with_zero_problems(qtbot):
    window = make_window(qtbot)
    window.action("generate").trigger()
    dialog = window.generator.dialog
    assert dialog.isVisible() and dialog.isModal()
    _set_family(dialog, "grid")
    assert dialog.chosen_ruleset().id == "grid-classic"
    assert (dialog.columns.value(), dialog.rows.value()) == (7, 7)  # grid-classic's board
    dialog.seed.setValue(7)
    _run(qtbot, dialog)
    assert not dialog.isVisible()
    assert len(window.documents) == 1
    document = window.current
    assert document.path is None and not document.modified  # new and unsaved, as File > New
    assert document.dungeon.family == "grid" and document.ruleset.id == "grid-classic"
    assert document.validate_now() == []  # zero problems, warnings included
    # the same seed and constraints give the dungeon the CLI would (the id made from the title)
    ruleset = bundled_rulesets()["grid-classic"]
    constraints = {"type": "constraints", "format_version": 1, "family": "grid", "grid": {"columns": 7, "rows": 7}}
    expected = generate_grid(grid_spec(constraints, ruleset), 7).data
    expected["id"] = slug(expected["sheet"]["title"])
    assert document.dungeon.to_dict() == expected
    # grid-classic's counts (RULES.md 1): 6 entryways, 4 loot, 1 dragon, 6 letter pairs
    kinds = [f.kind for f in document.dungeon.features]
    assert len(document.dungeon.entryways) == 6
    assert (kinds.count("loot"), kinds.count("dragon"), kinds.count("weapon"), kinds.count("monster")) == (4, 1, 6, 6)


def test_generate_line_with_fields_and_a_second_dungeon_gets_its_own_id(qtbot):
    window = make_window(qtbot)
    for expected_rooms in (5, 6):
        window.action("generate").trigger()
        dialog = window.generator.dialog
        _set_family(dialog, "line")
        assert dialog.chosen_ruleset().id == "line-classic"
        assert dialog.line_group.isVisibleTo(dialog) and not dialog.grid_group.isVisibleTo(dialog)
        dialog.seed.setValue(4)
        dialog.line_counts["rooms"].setValue(expected_rooms)
        dialog.line_counts["monster"].setValue(3)
        _run(qtbot, dialog)
        assert not dialog.isVisible(), dialog.message.text()
        document = window.current
        areas = document.dungeon.areas
        assert sum(1 for a in areas if a.kind == "room") == expected_rooms
        assert sum(1 for e in document.dungeon.elements if e.kind == "monster") == 3
        assert _errors(document) == []
    first, second = window.documents
    assert first.dungeon.id != second.dungeon.id  # unique among the open dungeons


def _job_until_stopped(*_args) -> dict:
    """Stands in for the generator in the worker: a job that runs until its process is stopped
    (the real search ends early on the specs that would take long, so it cannot be held open)."""
    import time

    time.sleep(3600)
    return {"ok": False, "message": "ran to the end"}


def _start_endless_job(qtbot, window, monkeypatch):
    from editor.panels import generate_dialog

    monkeypatch.setattr(generate_dialog, "generate_job", _job_until_stopped)
    dialog = window.generator.generate()
    _set_family(dialog, "grid")
    dialog.run_button.click()
    assert dialog.running and dialog.busy.isVisible() and not dialog.run_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.job_started, timeout=JOB_TIMEOUT_MS)  # the worker runs it now
    monkeypatch.undo()  # the next run generates for real
    return dialog, window.generator.worker.pids()[0]


def test_cancel_kills_the_job_and_keeps_the_dialog_open(qtbot, monkeypatch):
    window = make_window(qtbot)
    dialog, pid = _start_endless_job(qtbot, window, monkeypatch)
    if hasattr(os, "getpriority"):  # the designer waits for it: normal priority, unlike validation
        assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0)
    dialog.cancel_button.click()
    assert not dialog.running and dialog.isVisible()
    assert not dialog.busy.isVisible() and dialog.run_button.isEnabled()
    assert "Cancelled" in dialog.message.text()
    assert not Path(f"/proc/{pid}").exists() or "Z" in _proc_state(pid)  # killed (at most a zombie)
    assert window.generator.worker.pids() == []
    assert window.documents == []
    # the next run starts a new worker and succeeds
    _run(qtbot, dialog)
    assert not dialog.isVisible() and len(window.documents) == 1


def _proc_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1]
    except (OSError, IndexError):
        return "Z"


def test_an_infeasible_spec_is_explained_in_the_dialog(qtbot):
    window = make_window(qtbot)
    window.action("generate").trigger()
    dialog = window.generator.dialog
    _set_family(dialog, "grid")
    dialog.columns.setValue(3)
    dialog.rows.setValue(3)
    dialog.run_button.click()  # the counting checks refuse it at once, as the command does: no job runs
    assert dialog.isVisible() and not dialog.running  # still open: change the fields and retry
    text = dialog.message.text()
    assert dialog.message.isVisible()
    # 4 loot + 1 dragon + 6 pairs x 2 = 17 features, one a room, but 3 x 3 = 9 rooms
    assert "grid.features" in text and "17 features" in text and "9 rooms" in text
    assert "Traceback" not in text
    assert window.documents == []
    assert (dialog.columns.value(), dialog.rows.value()) == (3, 3)  # the choices are kept


def test_a_spec_the_search_cannot_meet_is_explained_by_the_job(qtbot, tmp_path):
    """A spec the counting checks let through but no layout meets: the job's search ends with
    the generator's explanation, shown in the dialog, which stays open."""
    window = make_window(qtbot)
    window.action("generate").trigger()
    dialog = window.generator.dialog
    path = tmp_path / "far.json"
    grid = {"passages": {"density": 0.97}, "distances": {"dragon_from_entryways": 12}}
    path.write_text(json.dumps({"type": "constraints", "format_version": 1, "family": "grid", "grid": grid}))
    assert dialog.set_constraints_file(str(path))
    _run(qtbot, dialog)
    assert dialog.isVisible() and not dialog.running
    assert "grid.distances.dragon_from_entryways 12" in dialog.message.text()
    assert window.documents == []


def test_a_bad_constraints_file_is_shown_by_json_pointer_and_nothing_runs(qtbot, tmp_path):
    window = make_window(qtbot)
    window.action("generate").trigger()
    dialog = window.generator.dialog
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps({"type": "constraints", "format_version": 1, "family": "grid", "grid": {"columns": "seven"}}),
        encoding="utf-8",
    )
    assert dialog.set_constraints_file(bad) is False
    assert "bad.json: /grid/columns:" in dialog.message.text()
    dialog.run_button.click()
    assert not dialog.running and window.documents == []  # refused before any job
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert dialog.set_constraints_file(broken) is False
    assert "broken.json:" in dialog.message.text()
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"type": "sweep"}), encoding="utf-8")
    assert dialog.set_constraints_file(other) is False
    assert "/type:" in dialog.message.text()
    # a good file for the line family switches the family and clears the message
    good = tmp_path / "line.json"
    good.write_text(
        json.dumps({"type": "constraints", "format_version": 1, "family": "line", "line": {"rooms": 5}}),
        encoding="utf-8",
    )
    _set_family(dialog, "grid")
    assert dialog.set_constraints_file(good) is True
    assert dialog.family() == "line" and not dialog.message.isVisible()
    assert dialog.constraints()["line"]["rooms"] == 5


def test_fields_override_the_file_and_ruleset_fields_keep_it():
    base = {
        "type": "constraints",
        "format_version": 1,
        "family": "grid",
        "grid": {"columns": 5, "features": {"loot": 3, "dragon": 1}, "difficulty": {"mean_score": [1, 2], "games": 50}},
    }
    merged = merge_constraints(base, "grid", "grid-classic", {"columns": None, "loot": 4, "mean_score": (3, 6)})
    assert merged["ruleset"] == "grid-classic"
    assert merged["grid"]["columns"] == 5  # left at "ruleset": the file's member
    assert merged["grid"]["features"] == {"loot": 4, "dragon": 1}
    assert merged["grid"]["difficulty"] == {"mean_score": [3.0, 6.0], "games": 50}
    assert base["grid"]["features"]["loot"] == 3  # the file's data is not changed
    populate = merge_constraints(None, "line", "line-classic", {"rooms": 5, "monster": 2}, populate=True)
    assert populate["line"] == {"elements": {"monster": 2}}  # rooms is for generate only
    with pytest.raises(ValueError):
        merge_constraints(base, "line", "line-classic", {})


def test_read_constraints_file_lists_every_schema_problem(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps(
            {"type": "constraints", "format_version": 1, "family": "grid", "grid": {"rows": 0, "entryways": -1}}
        ),
        encoding="utf-8",
    )
    data, problems = read_constraints_file(path)
    assert data is None
    assert [p.split(":")[0] for p in problems] == ["/grid/entryways", "/grid/rows"]


def _layout_file(tmp_path) -> Path:
    """The first bundled line dungeon stripped to its layout: areas, walls, label and Start."""
    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    data["elements"] = [e for e in data["elements"] if e["kind"] in LAYOUT_KINDS]
    data["sheet"]["end_triggers"] = []
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_populate_is_one_undo_step_that_keeps_the_layout(qtbot, tmp_path):
    path = _layout_file(tmp_path)
    window = make_window(qtbot, path)
    document = window.current
    assert window.action("populate").isEnabled()
    before_text = document.canonical_text()
    before = document.dungeon.to_dict()
    window.action("populate").trigger()
    dialog = window.generator.dialog
    assert dialog.populating and not dialog.family_box.isEnabled() and "rooms" not in dialog.line_counts
    dialog.seed.setValue(3)
    dialog.line_counts["monster"].setValue(2)
    _run(qtbot, dialog)
    assert not dialog.isVisible(), dialog.message.text()
    assert document.undo_stack.count() == 1
    after = document.dungeon.to_dict()
    assert layout_of(after) == layout_of(before)  # every area, wall, door, label and Start kept
    added = [e for e in after["elements"] if e["kind"] not in LAYOUT_KINDS]
    assert sum(1 for e in added if e["kind"] == "monster") == 2
    assert after["sheet"]["end_triggers"]  # the sheet listed none: populate added one
    assert _errors(document) == []
    # what the CLI's populate makes with the same seed and constraints
    constraints = {"type": "constraints", "format_version": 1, "family": "line", "line": {"elements": {"monster": 2}}}
    expected = populate_line(before, line_spec(constraints, document.ruleset), 3, 5.0, document.file_label).data
    assert after == expected
    window.action("undo").trigger()
    assert document.canonical_text() == before_text
    window.action("redo").trigger()
    assert document.dungeon.to_dict() == expected


def test_populate_refuses_a_grid_file_and_is_off_for_grid_dungeons(qtbot, tmp_path):
    window = make_window(qtbot, GRID_DUNGEON)
    assert not window.action("populate").isEnabled()
    assert window.generator.populate() is None
    assert window.documents[0].undo_stack.count() == 0
    assert window.open_path(_layout_file(tmp_path))
    dialog = window.generator.populate()
    grid_file = tmp_path / "grid.json"
    grid_file.write_text(json.dumps({"type": "constraints", "format_version": 1, "family": "grid"}), encoding="utf-8")
    assert dialog.set_constraints_file(grid_file) is False
    assert "/family:" in dialog.message.text() and dialog.family() == "line"
    dialog.reject()
    assert not dialog.isVisible()


def test_populate_edit_refuses_a_changed_layout():
    from editor.dungeon.edits import EditError
    from inkcrawl.model import dungeon_from_dict

    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    dungeon = dungeon_from_dict(data)
    moved = json.loads(json.dumps(data))
    moved["areas"][0]["polygon"][0][0] += 1
    with pytest.raises(EditError, match="areas"):
        populate_edit(dungeon, moved)
    assert dungeon.to_dict() == data


@pytest.mark.parametrize(
    ("pack", "family", "ruleset"), [(GRID_PACK, "grid", "grid-classic"), (LINE_PACK, "line", "line-classic")]
)
def test_the_dialog_starts_at_the_open_packs_family_and_ruleset(qtbot, pack, family, ruleset):
    window = make_window(qtbot, pack)
    dialog = window.generator.generate()
    assert dialog.family() == family and dialog.chosen_ruleset().id == ruleset
    assert dialog.grid_group.isVisibleTo(dialog) == (family == "grid")
    if family == "grid":
        grid = window.current.dungeon.grid
        assert (dialog.columns.value(), dialog.rows.value()) == (grid.columns, grid.rows)
    first = dialog.seed.value()
    seeds = {dialog.randomize_seed() for _ in range(5)} | {first}
    assert len(seeds) > 1 and all(0 <= s < 2**31 for s in seeds)
    assert dialog.seed.value() in seeds
    dialog.reject()


def test_a_worker_that_dies_is_said_in_the_dialog(qtbot, monkeypatch):
    """The generation process killed from outside (out of memory, say): the dialog says so and
    stays open; the next run starts a new worker."""
    import os
    import signal

    window = make_window(qtbot)
    dialog, pid = _start_endless_job(qtbot, window, monkeypatch)
    with qtbot.waitSignal(dialog.finished_job, timeout=JOB_TIMEOUT_MS) as answer:
        os.kill(pid, signal.SIGKILL)  # the worker this test started
    assert answer.args[0]["ok"] is False
    assert dialog.isVisible() and not dialog.running and dialog.run_button.isEnabled()
    assert "the generator stopped" in dialog.message.text() and "Traceback" not in dialog.message.text()
    _run(qtbot, dialog)
    assert not dialog.isVisible() and len(window.documents) == 1


def test_a_constraints_files_grid_size_shows_in_the_size_fields(qtbot, tmp_path):
    # the size fields always hold a size, so the file's 5 x 4 must show there, else the dialog's
    # 7 x 7 (grid-classic's board) would override it
    window = make_window(qtbot)
    window.action("generate").trigger()
    dialog = window.generator.dialog
    _set_family(dialog, "grid")
    sized = tmp_path / "sized.json"
    sized.write_text(
        json.dumps({"type": "constraints", "format_version": 1, "family": "grid", "grid": {"columns": 5, "rows": 4}}),
        encoding="utf-8",
    )
    assert dialog.set_constraints_file(sized) is True
    assert (dialog.columns.value(), dialog.rows.value()) == (5, 4)
    grid = dialog.constraints()["grid"]
    assert (grid["columns"], grid["rows"]) == (5, 4)
    dialog.reject()


# line.paper, line.corridors and line.starts (issue #14: the dialog lacked them) --------------------


def _line_dialog(window):
    dialog = window.generator.generate()
    _set_family(dialog, "line")
    assert dialog.chosen_ruleset().id == "line-classic"
    return dialog


def _set_range(dialog, name: str, low: int, high: int) -> None:
    check, (low_box, high_box) = dialog.line_ranges[name]
    check.setChecked(True)
    low_box.setValue(low)
    high_box.setValue(high)


def _count_kind(data: dict, member: str, kind: str) -> int:
    return sum(1 for item in data[member] if item["kind"] == kind)


def test_paper_corridors_and_starts_reach_the_generated_dungeon(qtbot):
    window = make_window(qtbot)
    dialog = _line_dialog(window)
    assert dialog.paper.currentData() == "a4"  # nothing open names a paper: the generator's default
    assert [dialog.paper.itemData(i) for i in range(dialog.paper.count())] == [
        "a5",
        "a4",
        "a3",
        "letter",
        "legal",
        "tabloid",
    ]
    assert dialog.paper.itemText(dialog.paper.findData("letter")).startswith("Letter")
    # unticked ranges are "any": their keys are left out, so the generator's defaults apply
    assert not dialog.line_ranges["corridors"][0].isChecked() and not dialog.line_ranges["starts"][0].isChecked()
    assert "corridors" not in dialog.constraints().get("line", {})
    assert "starts" not in dialog.constraints().get("line", {})
    any_note = dialog.findChild(QLabel, "corridors_any")
    assert any_note.text() == "any" and any_note.isVisibleTo(dialog)
    _set_range(dialog, "corridors", 6, 4)  # typed backwards: kept as typed (Generate refuses it, as the CLI)
    assert not any_note.isVisibleTo(dialog)
    assert dialog.constraints()["line"]["corridors"] == [6, 4]
    dialog.seed.setValue(4)
    dialog.paper.setCurrentIndex(dialog.paper.findData("letter"))
    dialog.line_counts["rooms"].setValue(5)
    _set_range(dialog, "corridors", 5, 5)  # both ends equal: a count
    _set_range(dialog, "starts", 3, 3)
    expected_line = {"paper": "letter", "rooms": 5, "corridors": 5, "starts": 3}
    assert dialog.constraints()["line"] == expected_line
    _run(qtbot, dialog)
    assert not dialog.isVisible(), dialog.message.text()
    data = window.current.dungeon.to_dict()
    # Letter is 8.5 x 11 in = 215.9 x 279.4 mm; 5 rooms joined by 5 corridors (one loop); 3 Starts
    assert (data["sheet"]["paper"]["width_mm"], data["sheet"]["paper"]["height_mm"]) == (215.9, 279.4)
    assert _count_kind(data, "areas", "room") == 5
    assert _count_kind(data, "areas", "corridor") == 5
    assert _count_kind(data, "elements", "start") == 3
    assert _errors(window.current) == []
    # the dungeon the command line makes from the same constraints file and seed
    ruleset = bundled_rulesets()["line-classic"]
    constraints = {"type": "constraints", "format_version": 1, "family": "line", "line": expected_line}
    expected = generate_line(line_spec(constraints, ruleset), 4).data
    expected["id"] = slug(expected["sheet"]["title"])
    assert data == expected


def test_the_paper_starts_at_the_current_dungeons_else_the_packs(qtbot, tmp_path):
    pack = copy_pack(tmp_path)
    papers = {"01-candlewick-cellars": (250, 250), "02-verdigris-bell-vault": (215.9, 279.4)}
    for stem, (width, height) in papers.items():
        path = pack / "dungeons" / f"{stem}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        data["sheet"]["paper"].update(width_mm=width, height_mm=height)
        path.write_text(json.dumps(data), encoding="utf-8")
    window = make_window(qtbot, pack)
    by_stem = {Path(d.path).stem: d for d in window.documents}
    # a 250 x 250 mm sheet has no name: the first of the pack's sheets that has one, Letter
    window.set_current(by_stem["01-candlewick-cellars"])
    assert window.generator.generate().paper.currentData() == "letter"
    window.set_current(by_stem["03-orchard-of-drowned-lanterns"])  # an A4 sheet
    assert window.generator.generate().paper.currentData() == "a4"
    window.generator.dialog.reject()


def test_paper_names_of_sheet_sizes():
    assert paper_name(215.9, 279.4) == "letter"
    assert paper_name(297, 210) == "a4"  # landscape A4 is A4 paper (the generator draws portrait)
    assert paper_name(148.4, 209.6) == "a5"  # within half a millimetre
    assert paper_name(149, 210) is None
    assert default_paper([(250, 250), (420, 297), (210, 297)]) == "a3"
    assert default_paper([(250, 250)]) is None


def test_a_constraints_files_paper_corridors_and_starts_show_in_the_fields(qtbot, tmp_path):
    window = make_window(qtbot)
    dialog = window.generator.generate()
    _set_family(dialog, "grid")
    first = tmp_path / "first.json"
    first.write_text(
        json.dumps(
            {
                "type": "constraints",
                "format_version": 1,
                "family": "line",
                "line": {"rooms": 4, "paper": "a5", "corridors": [3, 4], "starts": 2},
            }
        ),
        encoding="utf-8",
    )
    assert dialog.set_constraints_file(first) is True
    assert dialog.family() == "line"
    assert dialog.paper.currentData() == "a5"
    corridors_on, (corridors_low, corridors_high) = dialog.line_ranges["corridors"]
    starts_on, (starts_low, starts_high) = dialog.line_ranges["starts"]
    assert corridors_on.isChecked() and (corridors_low.value(), corridors_high.value()) == (3, 4)
    assert starts_on.isChecked() and (starts_low.value(), starts_high.value()) == (2, 2)
    assert dialog.constraints()["line"] == {"rooms": 4, "paper": "a5", "corridors": [3, 4], "starts": 2}
    # a field changed overrides the file; a second file that sets none of them gets the defaults
    # back in the fields the first file filled, and keeps the one the user changed
    starts_high.setValue(3)
    second = tmp_path / "second.json"
    second.write_text(
        json.dumps({"type": "constraints", "format_version": 1, "family": "line", "line": {"rooms": 5}}),
        encoding="utf-8",
    )
    assert dialog.set_constraints_file(second) is True
    assert dialog.paper.currentData() == "a4" and not corridors_on.isChecked()
    assert starts_on.isChecked() and (starts_low.value(), starts_high.value()) == (2, 3)
    assert dialog.constraints()["line"] == {"rooms": 5, "paper": "a4", "starts": [2, 3]}
    dialog.reject()


def test_too_many_starts_and_too_few_corridors_are_explained_in_the_dialog(qtbot):
    window = make_window(qtbot)
    dialog = _line_dialog(window)
    dialog.seed.setValue(4)
    dialog.line_counts["rooms"].setValue(5)
    _set_range(dialog, "starts", 9, 9)
    _run(qtbot, dialog)
    assert dialog.isVisible() and dialog.message.isVisible()
    text = dialog.message.text()
    # one Start a room, on a room's outer wall: 5 rooms hold 5 at most
    assert "Nothing was generated" in text and "line.starts" in text and "9 Starts" in text and "room for 5" in text
    assert window.documents == []
    _set_range(dialog, "starts", 1, 1)
    _set_range(dialog, "corridors", 2, 3)
    _run(qtbot, dialog)
    text = dialog.message.text()
    # a spanning tree of 5 rooms has 4 corridors
    assert "line.corridors" in text and "at least 4 corridors" in text and "Traceback" not in text
    assert dialog.isVisible() and window.documents == []
    assert dialog.line_ranges["corridors"][0].isChecked()  # the choices are kept
    assert (dialog.line_ranges["corridors"][1][0].value(), dialog.line_ranges["corridors"][1][1].value()) == (2, 3)


def test_the_line_fields_are_hidden_for_grid_and_the_dialog_fits_1280_px(qtbot, tmp_path):
    window = make_window(qtbot)
    dialog = window.generator.generate()
    fields = [dialog.paper, dialog.line_ranges["corridors"][0], dialog.line_ranges["starts"][0]]
    screen = window.screen().availableGeometry()
    for family in ("grid", "line"):
        _set_family(dialog, family)
        qtbot.wait(10)
        assert all(field.isVisibleTo(dialog) == (family == "line") for field in fields)
        assert max(dialog.minimumSizeHint().width(), dialog.minimumWidth()) <= 1280
        assert dialog.minimumSizeHint().height() <= screen.height()
    _set_family(dialog, "grid")
    assert "line" not in dialog.constraints()  # the grid family's constraints never carry them
    dialog.reject()
    # populate: the layout is drawn already, so no paper and no corridors; the Starts stay
    assert window.open_path(_layout_file(tmp_path))
    populate = window.generator.populate()
    assert "corridors" not in populate.line_ranges and not populate.paper.isVisibleTo(populate)
    assert populate.line_ranges["starts"][0].isVisibleTo(populate)
    _set_range(populate, "starts", 2, 2)
    assert populate.constraints()["line"] == {"starts": 2}
    populate.reject()


def test_merge_constraints_writes_paper_corridors_and_starts():
    base = {"type": "constraints", "format_version": 1, "family": "line", "line": {"paper": "a5", "starts": 4}}
    fields = {"paper": "letter", "corridors": (6, 4), "starts": (2, 2)}
    merged = merge_constraints(base, "line", "line-classic", fields)
    # a reversed range stays as typed: refused on Generate as the CLI refuses it, never put in order
    assert merged["line"] == {"paper": "letter", "corridors": [6, 4], "starts": 2}
    kept = merge_constraints(base, "line", "line-classic", {"paper": None, "corridors": None, "starts": None})
    assert kept["line"] == {"paper": "a5", "starts": 4}  # "any": the file's members
    populate = merge_constraints(None, "line", "line-classic", fields, populate=True)
    assert populate["line"] == {"starts": 2}  # paper and corridors are for generate only
