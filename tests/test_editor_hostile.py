"""Hostile and broken input in the editor: every file of the bad-input corpus, values of the
wrong type or beyond the format's limits, members the format does not know, hostile pack
manifests and members outside the pack folder. Each opens, or is refused with a message
naming the reason; none raises, crashes or hangs, and a refused file is never half-shown."""

from __future__ import annotations

import json
import shutil
import time

import pytest

from tests.editor_support import GRID_DUNGEON, LINE_DUNGEON, REPO, make_window

CORPUS = REPO / "tests" / "corpus"
TINY = CORPUS / "valid-tiny.json"


@pytest.fixture
def messages(monkeypatch):
    """The warnings the window shows (title, text), instead of modal message boxes."""
    import editor.mainwindow

    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(
        editor.mainwindow.QMessageBox,
        "warning",
        lambda parent, title, text, *args, **kwargs: shown.append((title, text)),
    )
    return shown


def _mutated(tmp_path, source, change, name="broken.json"):
    data = json.loads(source.read_text(encoding="utf-8"))
    change(data)
    target = tmp_path / name
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


def _assert_refused(window, messages, path, *needles):
    assert window.open_path(path) is False
    assert window.documents == [] and window.current is None
    assert messages and messages[-1][0] == "Cannot open"
    for needle in needles:
        assert needle in messages[-1][1], messages[-1][1]


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.iterdir()))
def test_every_corpus_file_opens_or_is_refused_with_a_reason(qtbot, messages, name):
    window = make_window(qtbot)
    if window.open_path(CORPUS / name):
        assert window.current is not None
        window.current.validate_now()
        window.action("select_all").trigger()
        window.grab()
    else:
        assert window.documents == []
        assert messages and "cannot be opened" in messages[-1][1]
        assert messages[-1][1].split("\n\n", 1)[1].strip(), "the message names the reason"


@pytest.mark.parametrize(
    "source, change, pointer",
    [
        (TINY, lambda d: d["sheet"]["paper"].__setitem__("width_mm", "210"), "/sheet/paper/width_mm"),
        # a text rotation reached Qt as a number and crashed the process (segmentation fault)
        (LINE_DUNGEON, lambda d: d["elements"][3].__setitem__("rotation_deg", "x"), "/elements/3/rotation_deg"),
        (LINE_DUNGEON, lambda d: d["elements"][3].__setitem__("at", [1]), "/elements/3/at"),
        (LINE_DUNGEON, lambda d: d["areas"][1].__setitem__("kind", [1]), "/areas/1/kind"),
        (LINE_DUNGEON, lambda d: d.__setitem__("elements", "x"), "/elements"),
        (LINE_DUNGEON, lambda d: d.__setitem__("ruleset", [[0, 0]]), "/ruleset"),
        (GRID_DUNGEON, lambda d: d["passages"][3].__setitem__("side", "x"), "/passages/3/side"),
        (GRID_DUNGEON, lambda d: d["grid"].__setitem__("columns", "9"), "/grid/columns"),
    ],
)
def test_values_of_the_wrong_type_or_shape_are_refused_naming_them(qtbot, messages, tmp_path, source, change, pointer):
    window = make_window(qtbot)
    _assert_refused(window, messages, _mutated(tmp_path, source, change), pointer, "text editor")


def test_a_member_missing_from_an_object_is_refused(qtbot, messages, tmp_path):
    def drop_text_height(data):
        label = next(e for e in data["elements"] if e["kind"] == "label")
        del label["text_height_mm"]

    window = make_window(qtbot)
    source = REPO / "content/packs/lantern-depths/dungeons/04-lantern-kings-descent.json"
    _assert_refused(window, messages, _mutated(tmp_path, source, drop_text_height), "text_height_mm")


def test_numbers_and_texts_beyond_the_format_are_refused_at_once(qtbot, messages, tmp_path):
    """A vertex 10^9 mm away made the sheet exporter allocate gigabytes, a title of five million
    letters kept it busy for minutes: both are refused before anything is drawn."""
    window = make_window(qtbot)
    far = _mutated(tmp_path, LINE_DUNGEON, lambda d: d["areas"][4]["polygon"][2].__setitem__(1, 1e9), "far.json")
    long = _mutated(tmp_path, TINY, lambda d: d["sheet"].__setitem__("title", "T" * 5_000_000), "long.json")
    started = time.perf_counter()
    _assert_refused(window, messages, far, "/areas/4/polygon/2/1")
    _assert_refused(window, messages, long, "/sheet/title")
    assert time.perf_counter() - started < 10


def test_the_canvas_does_not_draw_a_sheet_beyond_the_format(qtbot):
    """Edits cannot carry a value that far either (the inspector keeps to the schema's ranges),
    but the sheet renderer refuses one quickly rather than hanging the editor."""
    from editor.canvas.sheet_worker import render_svg
    from inkcrawl.rulesets import bundled_rulesets

    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    data["areas"][4]["polygon"][2][1] = 1e9
    started = time.perf_counter()
    svg, error = render_svg(data, bundled_rulesets()["line-classic"].data)
    assert svg == "" and "/areas/4/polygon/2/1" in error
    data = json.loads(LINE_DUNGEON.read_text(encoding="utf-8"))
    data["sheet"]["title"] = "T" * 1_000_000
    svg, error = render_svg(data, bundled_rulesets()["line-classic"].data)
    assert svg == "" and "/sheet/title" in error
    assert time.perf_counter() - started < 5


def test_members_the_format_does_not_know_are_named_on_opening(qtbot, messages, tmp_path):
    """The model keeps only the format's members: saving drops the others, so the designer is
    told which on opening (nothing goes without a word)."""

    def add_notes(data):
        data["elements"][0]["notes"] = "keep me"
        data["comment"] = "top"

    window = make_window(qtbot)
    path = _mutated(tmp_path, TINY, add_notes)
    assert window.open_path(path)
    assert messages and "/elements/0/notes" in messages[-1][1] and "/comment" in messages[-1][1]


def test_rule_errors_open_and_stay_editable(qtbot, messages, tmp_path):
    """Designers open dungeons with errors to fix them: an unknown element kind, an element
    outside every area and overlapping areas open, are listed, and can be edited and saved."""
    from editor.dungeon.edits import MoveObjects

    def break_rules(data):
        data["elements"][0]["kind"] = "wyvern"
        data["elements"][1]["at"] = [195, 280]
        data["areas"].append({"id": "r2", "kind": "room", "polygon": [[60, 60], [140, 60], [140, 140], [60, 140]]})

    window = make_window(qtbot)
    path = _mutated(tmp_path, TINY, break_rules)
    assert window.open_path(path), messages
    problems = window.current.validate_now()
    errors = [p for p in problems if p.problem.severity.value == "error"]
    assert len(errors) >= 2
    window.select_refs(["x1"])
    assert window.inspector.isEnabled()
    window.current.push(MoveObjects(window.current.dungeon, ["x1"], 1.0, 0.0))
    window.action("select_all").trigger()
    window.delete_selection()
    window.current.undo_stack.undo()
    window.current.undo_stack.undo()
    assert window.current.canonical_text() == _canonical(path)


def _canonical(path) -> str:
    from inkcrawl.jsonio import dumps_canonical
    from inkcrawl.model import dungeon_from_dict

    return dumps_canonical(dungeon_from_dict(json.loads(path.read_text(encoding="utf-8"))).to_dict())


def test_an_older_format_opens_and_saves_as_the_current_one(qtbot, messages, tmp_path):
    source = REPO / "tests/fixtures/dungeon-format-1.json"
    path = tmp_path / "old.json"
    shutil.copy(source, path)
    window = make_window(qtbot)
    assert window.open_path(path)
    assert window.current.save() == path
    assert json.loads(path.read_text(encoding="utf-8"))["format_version"] == 2


def _pack(tmp_path, **manifest):
    folder = tmp_path / "pack"
    (folder / "dungeons").mkdir(parents=True)
    shutil.copy(TINY, folder / "dungeons" / "tiny.json")
    data = {
        "type": "pack",
        "format_version": 1,
        "id": "p",
        "name": "P",
        "version": "1.0.0",
        "ruleset": "line-classic",
        "dungeons": ["dungeons/tiny.json"],
    }
    data.update(manifest)
    (folder / "pack.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "member", [{"name": 5}, {"description": [1]}, {"rulesets": 5}, {"decks": 5}, {"version": None}]
)
def test_a_manifest_with_members_of_the_wrong_type_is_refused(qtbot, messages, tmp_path, member):
    """``"rulesets": 5`` and ``"decks": 5`` raised inside the loader; a number as the pack's name
    raised in the Pack browser after the dungeons had opened."""
    window = make_window(qtbot)
    _assert_refused(window, messages, _pack(tmp_path, **member), "pack.json has errors", next(iter(member)))


def test_a_pack_member_outside_its_folder_is_named_and_never_opened(qtbot, messages, tmp_path):
    folder = _pack(tmp_path, dungeons=["dungeons/tiny.json", "../outside.json", "dungeons/nope.json"])
    outside = json.loads(TINY.read_text(encoding="utf-8"))
    outside["id"] = "outsider"
    (tmp_path / "outside.json").write_text(json.dumps(outside), encoding="utf-8")
    window = make_window(qtbot)
    assert window.open_path(folder)
    assert [d.dungeon.id for d in window.documents] == ["tiny"]
    text = messages[-1][1]
    assert "../outside.json is not opened" in text and "dungeons/nope.json is not opened" in text
    browser = window.pack_browser
    row = [e.relative for e in browser.entries].index("../outside.json")
    browser.show_entry(row)  # clicking it in the Pack browser opened the file outside the pack
    assert [d.dungeon.id for d in window.documents] == ["tiny"]


def test_a_pack_with_a_broken_member_opens_the_others(qtbot, messages, tmp_path):
    folder = _pack(tmp_path, dungeons=["dungeons/tiny.json", "dungeons/bad.json"])
    bad = json.loads(TINY.read_text(encoding="utf-8"))
    bad["id"] = "bad"
    bad["elements"][0]["size_mm"] = "eight"
    (folder / "dungeons" / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    window = make_window(qtbot)
    assert window.open_path(folder)
    assert [d.dungeon.id for d in window.documents] == ["tiny"]
    assert "dungeons/bad.json is not opened" in messages[-1][1] and "/elements/0/size_mm" in messages[-1][1]
    # the Pack list says so too, rather than calling it closed
    items = [window.pack_browser.list.item(row).text() for row in range(2)]
    assert "could not be opened" in items[1] and "closed" not in items[1]
    (folder / "dungeons" / "bad.json").unlink()
    window.pack_browser.refresh_list()
    assert "missing: not on disk" in window.pack_browser.list.item(1).text()


@pytest.mark.parametrize("stored", ["abc", "nan", "inf", "-5", "0", "1e308"])
def test_a_damaged_grid_step_setting_gives_the_default(qtbot, stored):
    """Text in the settings file stopped the window from being made at all; infinity made
    snapping put NaN coordinates into the model."""
    from PySide6.QtCore import QPointF

    from editor.settings import DEFAULT_GRID_STEP_MM, settings

    settings().setValue("canvas/grid_step_mm", stored)
    window = make_window(qtbot, TINY)
    assert window.ctx.grid_step_mm == DEFAULT_GRID_STEP_MM
    x, y = window.ctx.snap(QPointF(33.3, 44.4))
    assert (x, y) == (35.0, 45.0)
    window.set_grid_step(float("inf"))
    assert window.ctx.grid_step_mm == DEFAULT_GRID_STEP_MM
    window.set_grid_step(2.5)
    assert window.ctx.grid_step_mm == 2.5 and float(settings().value("canvas/grid_step_mm")) == 2.5
