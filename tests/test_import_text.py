"""Imported texts never carry characters validation refuses (C007): importers remove them and
say so (inkcrawl.importers.printable_texts)."""

from __future__ import annotations

from inkcrawl.importers import printable_texts


def test_control_characters_are_removed_with_a_note_and_empty_labels_left_out():
    notes = []
    dungeon = {
        "id": "x",
        "sheet": {"title": "Vault\x07 of Bells", "reminders": ["ok", "\x1bRun"]},
        "areas": [{"id": "r1", "kind": "room", "name": "\x00\x01"}],
        "elements": [{"id": "l1", "kind": "label", "text": "\x1b"}, {"id": "l2", "kind": "label", "text": "A\x7fB"}],
    }
    printable_texts(dungeon, lambda source, message: notes.append((source, message)))
    assert dungeon["sheet"] == {"title": "Vault of Bells", "reminders": ["ok", "Run"]}
    assert "name" not in dungeon["areas"][0]  # nothing printable was left of it
    assert [e["id"] for e in dungeon["elements"]] == ["l2"] and dungeon["elements"][0]["text"] == "AB"
    sources = [source for source, _ in notes]
    assert sources == ["the sheet", "reminder 2", "room r1", "label l1", "label l1", "label l2"]
    assert "left out" in notes[4][1]
