"""The Pack dock offscreen: the dungeons of a pack with thumbnails, add from the template,
duplicate, remove, reorder, manifest properties, Save Pack (validated), copy and paste between
the pack's dungeons, and the prompt about unsaved pack changes."""

from __future__ import annotations

import json
import shutil

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inkcrawl.validate import validate_paths
from tests.editor_support import GRID_PACK, LINE_DUNGEON, LINE_PACK, make_window
from tests.editor_support import click_pack_row as _click_row
from tests.editor_support import copy_pack as _pack_copy


def _window(qtbot, pack):
    window = make_window(qtbot, pack)
    browser = window.pack_browser
    browser.ask_save_pack = lambda: "discard"
    return window, browser


def _manifest(pack) -> dict:
    return json.loads((pack / "pack.json").read_text(encoding="utf-8"))


def _errors(pack) -> list:
    """``code file message`` of every error ``inkcrawl validate`` finds in the pack."""
    report = validate_paths([str(pack)])
    return [f"{p.code} {p.file} {p.message}" for p in report.problems if p.severity.value == "error"]


def test_lists_the_dungeons_of_a_pack_with_thumbnails(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    assert browser.body.isVisibleTo(browser) and not browser.hint.isVisibleTo(browser)
    assert browser.list.count() == 4
    titles = [d.dungeon.sheet.title for d in window.documents]
    for row, title in enumerate(titles):
        assert browser.list.item(row).text().startswith(f"{row + 1}. {title}")
    assert [e.relative for e in browser.entries] == _manifest(pack)["dungeons"]
    browser.flush_thumbnails()
    for document in window.documents:
        revision, icon = browser.thumbnail(document)
        assert revision == document.revision
        image = icon.pixmap(browser.list.iconSize()).toImage()
        assert image.width() > 40
        inked = sum(
            1
            for x in range(3, image.width() - 3)
            for y in range(3, image.height() - 3)
            if image.pixelColor(x, y).lightness() < 200
        )
        assert inked > 300  # the sheet is drawn (walls, title...), not a placeholder
    # a click shows that dungeon on the canvas
    _click_row(browser, 2)
    assert window.current is window.documents[2]
    # an edit redraws its thumbnail after a quiet moment
    document = window.current
    before = browser.thumbnail(document)[0]
    window.scene.select_refs([document.dungeon.elements[0].id])
    window.action("delete").trigger()
    qtbot.waitUntil(lambda: browser.thumbnail(document)[0] == document.revision != before, timeout=60_000)


def test_add_duplicate_remove_reorder_and_save_pack(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    originals = list(window.documents)
    # add from the ruleset template, after the chosen dungeon
    browser.ask_title = lambda default: "Moss Gate"
    _click_row(browser, 3)
    QTest.mouseClick(browser.buttons["add"], Qt.MouseButton.LeftButton)
    assert len(window.documents) == 5
    added = window.documents[4]
    assert window.current is added and added.dungeon.sheet.title == "Moss Gate" and added.dungeon.id == "moss-gate"
    assert added.path == pack / "dungeons" / "moss-gate.json" and not added.path.exists()  # written by Save Pack
    assert browser.modified
    # duplicate the first one: right after it, new id, "(copy)" title
    _click_row(browser, 0)
    QTest.mouseClick(browser.buttons["duplicate"], Qt.MouseButton.LeftButton)
    copy = window.documents[1]
    assert copy.dungeon.sheet.title == originals[0].dungeon.sheet.title + " (copy)"
    assert copy.dungeon.id == originals[0].dungeon.id + "-copy"
    assert copy.canonical_text().replace(copy.dungeon.id, "X").replace(" (copy)", "") == originals[
        0
    ].canonical_text().replace(originals[0].dungeon.id, "X")
    # move the copy down twice
    _click_row(browser, 1)
    QTest.mouseClick(browser.buttons["down"], Qt.MouseButton.LeftButton)
    QTest.mouseClick(browser.buttons["down"], Qt.MouseButton.LeftButton)
    assert window.documents.index(copy) == 3
    assert [e.document for e in browser.entries] == window.documents
    QTest.mouseClick(browser.buttons["up"], Qt.MouseButton.LeftButton)
    assert window.documents.index(copy) == 2
    # remove the second original: undoable, so nothing is asked; its file stays on disk
    removed = originals[1]
    removed_file = removed.path
    _click_row(browser, 1)
    QTest.mouseClick(browser.buttons["delete"], Qt.MouseButton.LeftButton)
    assert removed not in window.documents and len(window.documents) == 5
    assert "stays on disk" in browser.message.text()
    assert removed_file.exists()
    # save the pack: the manifest lists the browser's order and new files are written
    QTest.mouseClick(browser.save_button, Qt.MouseButton.LeftButton)
    assert not browser.modified, browser.message.text()
    expected = [d.path.relative_to(pack).as_posix() for d in window.documents]
    assert _manifest(pack)["dungeons"] == expected
    assert expected == [
        "dungeons/01-candlewick-cellars.json",
        "dungeons/candlewick-cellars-copy.json",
        "dungeons/03-orchard-of-drowned-lanterns.json",
        "dungeons/04-lantern-kings-descent.json",
        "dungeons/moss-gate.json",
    ]
    assert added.path.exists() and copy.path.exists()
    manifest_text = (pack / "pack.json").read_text(encoding="utf-8")
    assert manifest_text.endswith("\n") and not list(pack.glob(".pack.json.*"))  # atomic: no leftovers
    errors = [e for e in _errors(pack) if "moss-gate" not in e]  # a fresh template has a to-do list
    assert errors == []
    assert not any(e.split()[1].endswith("pack.json") for e in _errors(pack))  # the manifest itself is valid
    # the saved pack opens in the same order
    again, _ = _window(qtbot, pack)
    assert [d.path for d in again.documents] == [d.path for d in window.documents]


def test_manifest_properties(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    browser.name_edit.selectAll()
    qtbot.keyClicks(browser.name_edit, "Lantern Depths Deluxe")
    QTest.keyClick(browser.name_edit, Qt.Key.Key_Return)
    browser.version_edit.selectAll()
    qtbot.keyClicks(browser.version_edit, "1.0")
    QTest.keyClick(browser.version_edit, Qt.Key.Key_Return)
    assert "not a version" in browser.message.text() and browser.version_edit.text() == "1.0.0"
    browser.version_edit.selectAll()
    qtbot.keyClicks(browser.version_edit, "1.1.0")
    QTest.keyClick(browser.version_edit, Qt.Key.Key_Return)
    browser.description_edit.selectAll()
    qtbot.keyClicks(browser.description_edit, "Four dungeons, one lantern.")
    assert browser.modified
    browser.save_action.trigger()
    manifest = _manifest(pack)
    assert (manifest["name"], manifest["version"], manifest["description"]) == (
        "Lantern Depths Deluxe",
        "1.1.0",
        "Four dungeons, one lantern.",
    )
    assert list(manifest)[:7] == ["type", "format_version", "id", "name", "version", "description", "ruleset"]
    assert _errors(pack) == []
    assert "Ctrl+Alt+S" in browser.save_action.toolTip()


def test_copy_paste_between_dungeons_of_the_pack(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    _click_row(browser, 0)
    monster = next(e for e in window.current.dungeon.elements if e.kind == "monster")
    window.scene.select_refs([monster.id])
    window.action("copy").trigger()
    _click_row(browser, 3)
    target = window.current
    assert target is window.documents[3]
    count = len(target.dungeon.elements)
    window.action("paste").trigger()
    assert len(target.dungeon.elements) == count + 1
    pasted = target.dungeon.elements[-1]
    assert pasted.kind == "monster" and pasted.size_mm == monster.size_mm
    assert "unsaved" in browser.list.item(3).text()
    QTest.mouseClick(browser.save_button, Qt.MouseButton.LeftButton)
    saved = json.loads(target.path.read_text(encoding="utf-8"))
    assert saved["elements"][-1]["id"] == pasted.id
    assert "unsaved" not in browser.list.item(3).text()


def test_closed_dungeon_stays_in_the_pack_and_close_asks_about_pack_changes(qtbot, tmp_path):
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    closed = window.documents[1]
    window.close_document(closed, ask=False)
    assert browser.list.count() == 4 and "closed" in browser.list.item(1).text()
    _click_row(browser, 1)  # opens it again
    assert window.current.path.resolve() == (pack / browser.entries[1].relative).resolve()
    assert browser.entries[1].document is window.current
    # unsaved pack changes: closing the window asks; Cancel keeps it open
    _click_row(browser, 0)
    QTest.mouseClick(browser.buttons["down"], Qt.MouseButton.LeftButton)
    asked = []
    browser.ask_save_pack = lambda: asked.append(1) or "cancel"
    assert not window.close()
    assert asked and window.isVisible()
    browser.ask_save_pack = lambda: "save"
    before = _manifest(pack)["dungeons"]
    assert window.close()
    after = _manifest(pack)["dungeons"]
    assert after == [before[1], before[0]] + before[2:]


def test_no_pack_open_shows_a_hint(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    browser = window.pack_browser
    assert browser.hint.isVisibleTo(browser) and not browser.body.isVisibleTo(browser)
    assert not browser.save_action.isEnabled()
    assert not browser.save_pack()


def test_grid_pack_add_and_save(qtbot, tmp_path):
    pack = tmp_path / "ember-halls"
    shutil.copytree(GRID_PACK, pack)
    window, browser = _window(qtbot, pack)
    count = len(window.documents)
    assert browser.list.count() == count
    document = browser.add_dungeon("Ash Gallery")
    assert document.dungeon.family == "grid" and len(window.documents) == count + 1
    assert browser.save_pack()
    assert _manifest(pack)["dungeons"][1] == "dungeons/ash-gallery.json"  # after the chosen (first) one
    assert not any(e.split()[1].endswith("pack.json") for e in _errors(pack))


def test_big_dungeons_get_their_thumbnails_from_the_worker_process(qtbot, tmp_path, monkeypatch):
    """Thumbnails of dungeons with many objects are drawn in the sheet worker (the window does
    not freeze for them) and show the same picture as one drawn in the editor."""
    import editor.pack.thumbnails as pack_thumbnails
    from editor.pack.thumbnails import render_thumbnail

    monkeypatch.setattr(pack_thumbnails, "THUMB_WORKER_OBJECTS", -1)  # every dungeon counts as big
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    browser.flush_thumbnails()
    for document in window.documents:
        revision, icon = browser.thumbnail(document)
        assert revision == document.revision
        shown = icon.pixmap(browser.list.iconSize()).toImage()
        drawn_here = render_thumbnail(document.dungeon, document.ruleset)
        differences = [
            abs(shown.pixelColor(x, y).lightness() - drawn_here.pixelColor(x, y).lightness())
            for x in range(0, shown.width(), 3)
            for y in range(0, shown.height(), 3)
        ]
        assert sum(differences) / len(differences) < 6, document.display_name
    # an edit while its thumbnail is being drawn is drawn again when the worker is done
    document = window.current
    before = browser.thumbnail(document)[0]
    window.scene.select_refs([document.dungeon.elements[0].id])
    window.action("delete").trigger()
    qtbot.waitUntil(lambda: browser.thumbnail(document)[0] == document.revision != before, timeout=30_000)


def test_the_pack_dock_shows_for_packs_and_steps_aside_for_lone_dungeons(qtbot):
    window = make_window(qtbot, LINE_DUNGEON)
    dock = window.pack_browser.parentWidget()
    assert not dock.isVisible()  # a lone dungeon: no empty dock taking room from the canvas
    assert window.open_path(LINE_PACK)
    assert dock.isVisible()


def test_a_worker_killed_while_replying_leaves_no_thumbnail_waiting_forever(qtbot, tmp_path, monkeypatch):
    """The sheet worker dies in the middle of a reply: the thumbnails queued behind it end
    (a marked placeholder), and the next edit's thumbnail is drawn by a new worker."""
    import time

    import editor.pack.thumbnails as pack_thumbnails
    from editor.canvas.sheet_worker import shared_worker
    from tests.test_editor_sheet_tiles import _die_mid_reply

    monkeypatch.setattr(pack_thumbnails, "THUMB_WORKER_OBJECTS", -1)  # every dungeon counts as big
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    browser.flush_thumbnails()
    shared_worker().submit(_die_mid_reply)
    document = window.current
    window.scene.select_refs([document.dungeon.elements[0].id])
    window.action("delete").trigger()
    started = time.perf_counter()
    browser.flush_thumbnails()
    assert time.perf_counter() - started < 20 and not browser.thumbnails.in_worker()

    def drawn() -> bool:  # the sheet itself, not the "!" placeholder
        shown = browser.thumbnail(document)
        if shown is None or shown[0] != document.revision:
            return False
        image = shown[1].pixmap(browser.list.iconSize()).toImage()
        return (
            sum(
                1
                for x in range(3, image.width() - 3, 2)
                for y in range(3, image.height() - 3, 2)
                if image.pixelColor(x, y).lightness() < 200
            )
            > 80
        )

    qtbot.waitUntil(drawn, timeout=30_000)  # drawn again by the new worker, without another edit
    window.action("undo").trigger()
    qtbot.waitUntil(lambda: browser.thumbnail(document)[0] == document.revision, timeout=30_000)


def test_big_thumbnails_wait_while_the_canvas_waits_for_the_worker(qtbot, tmp_path, monkeypatch):
    """Thumbnails and the canvas share one worker: while the canvas's sheet or tiles are being
    drawn, thumbnail jobs are not queued in front of the next ones."""
    import editor.pack.thumbnails as pack_thumbnails

    monkeypatch.setattr(pack_thumbnails, "THUMB_WORKER_OBJECTS", -1)
    pack = _pack_copy(tmp_path)
    window, browser = _window(qtbot, pack)
    browser.flush_thumbnails()
    document = window.documents[2]
    monkeypatch.setattr(window.scene, "worker_busy", lambda: True)
    browser.thumbnails.queue(document, delay=False)
    browser.thumbnails.render_next()
    assert not browser.thumbnails.in_worker() and document in browser.thumbnails.waiting()  # waits its turn
    monkeypatch.setattr(window.scene, "worker_busy", lambda: False)
    qtbot.waitUntil(lambda: not browser.thumbnails.waiting() and not browser.thumbnails.in_worker(), timeout=30_000)
