"""The pack's model and its edits without Qt (editor/pack/document.py, editor/pack/edits.py):
each edit applied and reverted restores the exact pack, random sequences undone leave
``pack.json`` byte for byte, edits that cannot be made are refused with the reason, the
modified state follows saving and undoing, and Save Pack's checks refuse what the old browser
refused. Documents are plain stand-ins: the model never needs a window."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editor.pack.document import ABSENT, PackChange, PackDocument, PackEntry, PackError, check_field
from editor.pack.edits import AddDungeon, ChangeManifestField, DuplicateDungeon, MoveDungeon, RemoveDungeon

REPO = Path(__file__).resolve().parent.parent
LINE_PACK = REPO / "content/packs/lantern-depths"


class FakeDocument:
    """What the model reads of an open dungeon: its id and title, file, modified state, registry."""

    def __init__(self, dungeon_id: str, title: str, path: Path | None, modified: bool = False):
        self.dungeon = SimpleNamespace(id=dungeon_id, sheet=SimpleNamespace(title=title))
        self.path = path
        self.modified = modified
        self.registry = None


def save_fake(document: FakeDocument) -> bool:
    """The window's ``save_document`` for a stand-in: write a small file, mark it saved."""
    document.path.write_text(json.dumps({"id": document.dungeon.id}), encoding="utf-8")
    document.modified = False
    return True


@pytest.fixture
def pack_dir(tmp_path) -> Path:
    target = tmp_path / "lantern-depths"
    shutil.copytree(LINE_PACK, target)
    return target


@pytest.fixture
def pack(pack_dir) -> PackDocument:
    model = PackDocument()
    model.load(pack_dir / "pack.json")
    return model


def state(pack: PackDocument):
    """Everything an edit may change: the entries (object, file, document), the manifest, the removed entries."""
    return (
        [(id(e), e.relative, e.document) for e in pack.entries],
        copy.deepcopy(pack.manifest),
        [id(e) for e in pack.removed],
    )


def new_entry(pack: PackDocument, title: str) -> PackEntry:
    dungeon_id = pack.unique_id(title.lower().replace(" ", "-"))
    relative = pack.new_relative(dungeon_id)
    return PackEntry(relative, FakeDocument(dungeon_id, title, pack.pack_dir / relative, modified=True), title)


def test_the_model_and_its_edits_import_no_qt():
    code = (
        "import sys, editor.pack.document, editor.pack.edits; "
        "sys.exit(any(m.startswith('PySide6') or m.startswith('shiboken') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_load_lists_the_manifests_dungeons_and_is_not_modified(pack, pack_dir):
    manifest = json.loads((pack_dir / "pack.json").read_text(encoding="utf-8"))
    assert pack.is_open and pack.manifest_path == pack_dir / "pack.json" and pack.pack_dir == pack_dir
    assert [e.relative for e in pack.entries] == manifest["dungeons"]
    assert all(e.document is None for e in pack.entries) and not pack.removed and not pack.modified
    other = PackDocument()
    other.load(pack_dir / "dungeons" / "01-candlewick-cellars.json")  # a dungeon, not a pack
    assert other.manifest is None and other.entries == [] and not other.is_open and not other.modified
    other.close()
    assert other.manifest_path is None and other.pack_dir is None


def test_link_documents_follows_open_and_closed_documents(pack, pack_dir):
    document = FakeDocument("candlewick-cellars", "The Candlewick Cellars", pack_dir / pack.entries[0].relative)
    heard: list[PackChange] = []
    pack.add_listener(heard.append)
    assert pack.link_documents([document]) == [document]
    assert pack.entries[0].document is document and pack.entries[0].title == "The Candlewick Cellars"
    assert [c.kind for c in heard] == ["linked"]
    assert pack.link_documents([]) == []  # closed: it stays in the pack with its last title
    assert pack.entries[0].document is None and pack.entries[0].title == "The Candlewick Cellars"
    assert not pack.modified  # opening and closing tabs is no pack edit


def test_each_edit_applied_and_reverted_restores_the_exact_pack(pack):
    heard: list[str] = []
    pack.add_listener(lambda change: heard.append(change.kind))
    start = state(pack)
    added = new_entry(pack, "Moss Gate")
    copied = new_entry(pack, "Moss Gate (copy)")
    edits = [
        (lambda: AddDungeon(pack, 1, added), "inserted", "Add dungeon 'Moss Gate'"),
        (lambda: DuplicateDungeon(pack, 3, copied, "Moss Gate"), "inserted", "Duplicate dungeon 'Moss Gate'"),
        (lambda: RemoveDungeon(pack, 2), "taken", "Remove dungeon 'dungeons/02-verdigris-bell-vault.json'"),
        (lambda: MoveDungeon(pack, 0, 1), "moved", "Move dungeon 'dungeons/01-candlewick-cellars.json' down"),
        (lambda: MoveDungeon(pack, 3, -1), "moved", "up"),
        (lambda: ChangeManifestField(pack, "name", "Deeper"), "field", "Change pack name to 'Deeper'"),
        (lambda: ChangeManifestField(pack, "version", "1.2.0-beta"), "field", "Change pack version to '1.2.0-beta'"),
        (lambda: ChangeManifestField(pack, "description", ABSENT), "field", "Change pack description"),
    ]
    made = []
    for make, kind, text in edits:
        edit = make()
        assert text in edit.text
        before = state(pack)
        heard.clear()
        pack.apply(edit)
        after = state(pack)
        assert after != before and heard == [kind] and pack.modified, text
        pack.revert(edit)
        assert state(pack) == before, text
        pack.apply(edit)
        assert state(pack) == after, text
        made.append(edit)
    assert "description" not in pack.manifest  # ABSENT leaves the member out
    removed = made[2]
    assert [e.relative for e in pack.removed] == ["dungeons/02-verdigris-bell-vault.json"]
    for edit in reversed(made):
        pack.revert(edit)
    assert state(pack) == start and not pack.modified and not pack.removed
    assert removed.entry in pack.entries  # the same entry object came back


EDIT = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 9)),
    st.tuples(st.sampled_from(["remove", "up", "down"]), st.integers(0, 9)),
    st.tuples(st.just("name"), st.sampled_from(["Deep", "Lantern Depths", ""])),
    st.tuples(st.just("version"), st.sampled_from(["2.0.0", "1.0.1-beta", "1.0"])),
    st.tuples(st.just("description"), st.sampled_from(["Short.", ABSENT, "x" * 2001])),
)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(EDIT, min_size=1, max_size=12))
def test_random_edits_reverted_leave_pack_json_byte_for_byte(tmp_path_factory, edits):
    pack_dir = tmp_path_factory.mktemp("pack") / "lantern-depths"
    shutil.copytree(LINE_PACK, pack_dir)
    original = (pack_dir / "pack.json").read_bytes()
    pack = PackDocument()
    pack.load(pack_dir / "pack.json")
    start = state(pack)
    made = []
    for kind, value in edits:
        n = len(pack.entries)
        try:
            if kind == "add":
                edit = AddDungeon(pack, value % (n + 1), new_entry(pack, f"Room {len(made)}"))
            elif kind == "remove":
                edit = RemoveDungeon(pack, value % n)
            elif kind in ("up", "down"):
                edit = MoveDungeon(pack, value % n, -1 if kind == "up" else 1)
            else:
                edit = ChangeManifestField(pack, kind, value, session=len(made))
        except PackError:
            continue  # refused: nothing changed
        pack.apply(edit)
        made.append(edit)
    for edit in reversed(made):
        pack.revert(edit)
    assert state(pack) == start and not pack.modified
    pack.save(save_fake)
    assert (pack_dir / "pack.json").read_bytes() == original


def test_edits_that_cannot_be_made_are_refused_with_the_reason(pack, tmp_path):
    with pytest.raises(PackError, match="lies outside the pack folder"):
        AddDungeon(pack, 0, PackEntry("../outside.json", None, "Outside"))
    with pytest.raises(PackError, match="lies outside the pack folder"):
        AddDungeon(pack, 0, PackEntry(str(tmp_path / "absolute.json"), None, "Absolute"))
    with pytest.raises(PackError, match="dungeons/01-candlewick-cellars.json is in the pack already"):
        AddDungeon(pack, 0, PackEntry("dungeons/01-candlewick-cellars.json", None, "Twice"))
    with pytest.raises(PackError, match="places 0 to 4"):
        AddDungeon(pack, 5, PackEntry("dungeons/new.json", None, "Far"))
    with pytest.raises(PackError, match="no dungeon 5"):
        RemoveDungeon(pack, 4)
    with pytest.raises(PackError, match="cannot move up"):
        MoveDungeon(pack, 0, -1)
    with pytest.raises(PackError, match="cannot move down"):
        MoveDungeon(pack, 3, 1)
    with pytest.raises(PackError, match="one place up"):
        MoveDungeon(pack, 1, 2)
    with pytest.raises(PackError, match="The pack's name cannot be empty"):
        ChangeManifestField(pack, "name", "  ")
    with pytest.raises(PackError, match="'1.0' is not a version: use semantic versioning such as 1.2.0"):
        ChangeManifestField(pack, "version", "1.0")
    with pytest.raises(PackError, match="at most 2000 characters"):
        ChangeManifestField(pack, "description", "x" * 2001)
    with pytest.raises(PackError, match="not a manifest member"):
        ChangeManifestField(pack, "id", "other")
    with pytest.raises(PackError, match="at most 200 characters"):
        check_field("name", "n" * 201)
    for row in (3, 2, 1):
        pack.apply(RemoveDungeon(pack, row))
    with pytest.raises(PackError, match="A pack holds at least one dungeon: add another before removing this one"):
        RemoveDungeon(pack, 0)
    closed = PackDocument()
    with pytest.raises(PackError, match="No content pack is open"):
        ChangeManifestField(closed, "name", "Deep")
    with pytest.raises(PackError, match="No content pack is open"):
        closed.save(save_fake)


def test_only_the_last_edit_can_be_reverted(pack):
    first = MoveDungeon(pack, 0, 1)
    pack.apply(first)
    second = MoveDungeon(pack, 2, 1)
    pack.apply(second)
    with pytest.raises(PackError, match="is not the last pack edit"):
        pack.revert(first)
    pack.revert(second)
    pack.revert(first)
    assert not pack.modified


def test_modified_follows_saving_and_undoing(pack):
    move = MoveDungeon(pack, 0, 1)
    pack.apply(move)
    assert pack.modified
    pack.save(save_fake)
    assert not pack.modified
    rename = ChangeManifestField(pack, "name", "Renamed")
    pack.apply(rename)
    assert pack.modified
    pack.revert(rename)
    assert not pack.modified  # back to the saved state
    pack.revert(move)
    assert pack.modified  # before the save: differs again
    pack.apply(move)
    assert not pack.modified
    back = MoveDungeon(pack, 1, -1)
    pack.apply(back)
    assert pack.modified  # new edits count even when they restore the saved order (as an undo stack)


def test_typing_merges_into_one_edit_and_typing_back_leaves_none(pack):
    original = pack.manifest["name"]
    first = ChangeManifestField(pack, "name", "L", session=1)
    pack.apply(first)
    second = ChangeManifestField(pack, "name", "La", session=1)
    pack.apply(second)
    assert pack.merge(first, second) and first.new == "La" and first.text == "Change pack name to 'La'"
    other_session = ChangeManifestField(pack, "name", "Lab", session=2)
    pack.apply(other_session)
    assert not pack.merge(first, other_session)  # the focus moved in between: a step of its own
    pack.revert(other_session)
    back = ChangeManifestField(pack, "name", original, session=1)
    pack.apply(back)
    assert pack.merge(first, back) and first.void
    assert not pack.modified and pack.manifest["name"] == original  # typed back: no step left
    # never merged into the edit the saved state ends with
    saved = ChangeManifestField(pack, "name", "Saved", session=3)
    pack.apply(saved)
    pack.mark_saved()
    more = ChangeManifestField(pack, "name", "Saved!", session=3)
    pack.apply(more)
    assert not pack.merge(saved, more) and pack.modified
    pack.revert(more)
    assert not pack.modified


def test_save_writes_new_and_modified_dungeons_then_the_manifest(pack, pack_dir):
    saved: list = []
    documents = [FakeDocument(f"d{n}", f"D {n}", pack_dir / e.relative) for n, e in enumerate(pack.entries)]
    pack.link_documents(documents)
    documents[1].modified = True
    entry = new_entry(pack, "Moss Gate")
    pack.apply(AddDungeon(pack, 4, entry))
    pack.apply(ChangeManifestField(pack, "description", ABSENT))
    data = pack.save(lambda d: saved.append(d) or save_fake(d))
    assert saved == [documents[1], entry.document]  # only the modified and the new one
    written = json.loads((pack_dir / "pack.json").read_text(encoding="utf-8"))
    assert written == data and written["dungeons"][-1] == "dungeons/moss-gate.json"
    assert list(written)[:6] == ["type", "format_version", "id", "name", "version", "ruleset"]
    assert "description" not in written and not pack.modified and (pack_dir / "dungeons/moss-gate.json").exists()
    assert not list(pack_dir.glob(".pack.json.*"))  # atomic: no leftovers


def test_save_refuses_and_leaves_pack_json_untouched(pack, pack_dir, tmp_path):
    original = (pack_dir / "pack.json").read_bytes()
    documents = [FakeDocument(f"d{n}", f"D {n}", pack_dir / e.relative) for n, e in enumerate(pack.entries)]
    pack.link_documents(documents)
    pack.apply(MoveDungeon(pack, 0, 1))
    documents[2].dungeon.id = "d0"
    with pytest.raises(PackError, match=r"two dungeons have the id 'd0' \(D 0\); change one in the Inspector"):
        pack.save(save_fake)
    documents[2].dungeon.id = "d2"
    documents[3].path = tmp_path / "elsewhere.json"
    with pytest.raises(PackError, match="'D 3' is saved outside the pack folder"):
        pack.manifest_data()
    documents[3].path = pack_dir / pack.entries[3].relative
    documents[1].modified = True
    with pytest.raises(PackError, match="The pack was not saved: 'D 1' could not be written"):
        pack.save(lambda d: False)
    pack.set_field("version", "one")  # a value the edits refuse, set directly: the schema check refuses it too
    with pytest.raises(PackError, match="The pack was not saved: /version"):
        pack.save(save_fake)
    pack.set_field("version", "1.0.0")
    (pack_dir / "pack.json").unlink()
    (pack_dir / "pack.json").mkdir()  # the manifest cannot be replaced
    with pytest.raises(PackError, match="could not be written: .* The file on disk is unchanged"):
        pack.save(save_fake)
    (pack_dir / "pack.json").rmdir()
    (pack_dir / "pack.json").write_bytes(original)
    assert pack.modified
    pack.save(save_fake)
    assert (
        not pack.modified
        and json.loads((pack_dir / "pack.json").read_text())["dungeons"][1] == "dungeons/01-candlewick-cellars.json"
    )


def test_file_of_refuses_files_outside_the_folder_or_missing(pack, pack_dir):
    assert pack.file_of(0) == (pack_dir / pack.entries[0].relative).resolve()
    pack.entries[0].relative = "../outside.json"  # as a hand-edited manifest may name it
    with pytest.raises(PackError, match="lies outside the pack folder: a pack may only name files inside it"):
        pack.file_of(0)
    (pack_dir / pack.entries[1].relative).unlink()
    with pytest.raises(PackError, match="is not on disk: remove it from the pack or restore the file"):
        pack.file_of(1)


def test_new_ids_and_files_never_clash(pack, pack_dir):
    documents = [FakeDocument("moss", "Moss", pack_dir / pack.entries[0].relative)]
    pack.link_documents(documents)
    assert pack.unique_id("moss") == "moss-2" and pack.unique_id("x" * 80) == "x" * 56
    (pack_dir / "dungeons" / "moss-gate.json").write_text("{}", encoding="utf-8")
    assert pack.new_relative("moss-gate") == "dungeons/moss-gate-2.json"
    assert pack.new_relative("fresh") == "dungeons/fresh.json"


def test_listeners_are_plain_callables_and_views_held_weakly(pack):
    class View:
        def __init__(self):
            self.heard: list[str] = []

        def changed(self, change: PackChange) -> None:
            self.heard.append(change.kind)

    view = View()
    pack.add_listener(view.changed)
    function_heard: list[str] = []

    def function(change):
        function_heard.append(change.kind)

    pack.add_listener(function)
    pack.apply(MoveDungeon(pack, 0, 1))
    assert view.heard == ["moved"] and function_heard == ["moved"]
    heard = view.heard
    del view  # a view that goes away stops listening
    pack.apply(MoveDungeon(pack, 1, 1))
    assert heard == ["moved"] and function_heard == ["moved", "moved"]
    pack.remove_listener(function)
    pack.mark_saved()
    assert function_heard == ["moved", "moved"]
