"""The window's tabs follow the pack: what a pack edit means for the open dungeons.

The pack model (:class:`editor.pack.document.PackDocument`) knows nothing of tabs; the Pack
dock hands its changes to :class:`PackTabs`, which keeps the window in step: a dungeon put
into the pack (added, duplicated, a removal undone) gets its tab back, in the pack's order; one
taken out closes its tab without a question while its document object is *parked* (kept
alive, unsaved edits and undo history included) for an undo or redo; a move reorders the
tabs. When the pack's undo history goes (another pack opens, the window closes), the removed
dungeons' unsaved edits are asked about, and the parked documents are let go;
:class:`CloseGuard` asks about unsaved pack changes before the window closes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import shiboken6
from PySide6.QtCore import QEvent, QObject

from editor.pack.document import PackDocument, PackEntry


class PackTabs:
    """Keeps ``window``'s documents in step with ``pack``; parked documents are children of
    ``keeper`` (the Pack dock) while only the pack's undo history holds them. ``syncing`` is
    true while it changes the window's documents itself (the dock then ignores the window's
    ``documents_changed``)."""

    def __init__(self, window, pack: PackDocument, keeper):
        self.window = window
        self.pack = pack
        self.keeper = keeper
        self.syncing = False
        self._parked: list = []

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        self.syncing = True
        try:
            yield
        finally:
            self.syncing = False

    def placed(self, row: int, entry: PackEntry) -> None:
        """``entry`` was put into the pack at ``row``: its document (if it has one, still
        alive) gets its tab back, after the pack's open dungeons before it, and becomes current."""
        document = entry.document
        if document is not None and not shiboken6.isValid(document):
            entry.document = document = None
        if document is None:
            return
        if document not in self.window.documents:
            if document in self._parked:
                self._parked.remove(document)
            neighbours = [
                e.document
                for e in self.pack.entries[:row]
                if e.document is not None and e.document in self.window.documents
            ]
            index = self.window.documents.index(neighbours[-1]) + 1 if neighbours else 0
            with self._quiet():
                self.window.add_document(document, make_current=True, index=index)
        else:
            self.window.set_current(document)

    def taken(self, entry: PackEntry) -> None:
        """``entry`` was taken out of the pack: its tab closes without a question and its
        document is parked for an undo or redo. No file is touched."""
        document = entry.document
        if document is not None and shiboken6.isValid(document) and document in self.window.documents:
            with self._quiet():
                self.window.close_document(document, ask=False, keep=True)
            document.setParent(self.keeper)  # lives while the undo history may bring it back
            self._parked.append(document)

    def follow_order(self) -> None:
        """Reorder the window's documents so the pack's open dungeons follow the pack's order."""
        wanted = [d for d in self.pack.documents() if d in self.window.documents]
        slots = sorted(self.window.documents.index(d) for d in wanted)
        with self._quiet():
            for document, slot in zip(wanted, slots):
                at = self.window.documents.index(document)
                if at != slot:
                    self.window.move_document(at, slot)

    def removed_with_edits(self) -> list:
        """The documents of dungeons removed from the pack that hold unsaved edits."""
        return [
            entry.document
            for entry in self.pack.removed
            if entry.document is not None and shiboken6.isValid(entry.document) and entry.document.modified
        ]

    def settle_removed(self) -> bool:
        """Before the undo history goes: ask about the unsaved edits of dungeons removed from
        the pack (Save writes them to their own file, outside the pack). ``False`` when the
        user cancelled."""
        return all(self.window.confirm_discard(document) for document in self.removed_with_edits())

    def keep_unsettled_removed(self) -> None:
        """Another pack replaces this one, and its undo history goes: ask about each removed
        dungeon's unsaved edits; one the user did not save or discard (Cancel, or a failed
        save) comes back in a tab of its own, outside the pack, so its edits are not lost."""
        for document in self.removed_with_edits():
            if self.window.confirm_discard(document):
                continue
            if document in self._parked:
                self._parked.remove(document)
            with self._quiet():
                self.window.add_document(document, make_current=False)

    def release_parked(self) -> None:
        """The undo history went: the documents it alone kept go too."""
        parked, self._parked = self._parked, []
        for document in parked:
            if shiboken6.isValid(document) and document not in self.window.documents:
                document.deleteLater()


class CloseGuard(QObject):
    """Asks about unsaved pack changes before the window closes (an event filter of the window,
    so it runs before the window's own close handling): ``browser`` is the Pack dock, whose
    seams ask (:meth:`editor.pack.browser.PackBrowser.ask_save_pack`); then the removed
    dungeons' unsaved edits are asked about. A Cancel keeps the window open."""

    def __init__(self, browser):
        super().__init__(browser)
        self.browser = browser

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Close:
            if self.browser.modified:
                answer = self.browser.ask_save_pack()
                if answer == "cancel" or (answer == "save" and not self.browser.save_pack()):
                    event.ignore()
                    return True
            if not self.browser.settle_removed():
                event.ignore()
                return True
        return False
