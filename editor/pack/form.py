"""The manifest's editors of the Pack dock: the pack's id and ruleset, name, version and description.

:class:`PackManifestForm` shows the manifest of the pack's model
(:class:`editor.pack.document.PackDocument`) and turns the user's typing into
:class:`editor.pack.edits.ChangeManifestField` edits, pushed as undo steps by the dock: a name
or version when its editor is left (Return, or the focus moving), the description as it is
typed (one stretch of typing is one step). A refused value (an empty name, a version that is
not semantic versioning, a description too long) is told, and the name or version editor shows
the manifest's value again.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QPlainTextEdit, QWidget

from editor.pack.document import ABSENT, NAME_MAX, PackDocument, PackError
from editor.pack.edits import ChangeManifestField, PackEdit


class PackManifestForm(QWidget):
    """The manifest's editors (``id_label``, ``name_edit``, ``version_edit``,
    ``description_edit``) for ``pack``. ``push(edit)`` makes an edit as an undo step,
    ``tell(text, error)`` shows a message, ``session()`` numbers the current stretch of typing."""

    def __init__(
        self,
        pack: PackDocument,
        push: Callable[[PackEdit], None],
        tell: Callable[[str, bool], None],
        session: Callable[[], int],
    ):
        super().__init__()
        self.pack = pack
        self._push = push
        self._tell = tell
        self._session = session
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.id_label = QLabel()
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("pack_name")
        self.name_edit.setMaxLength(NAME_MAX)
        self.version_edit = QLineEdit()
        self.version_edit.setObjectName("pack_version")
        self.version_edit.setToolTip("The pack's version, semantic versioning: 1.2.0")
        self.description_edit = QPlainTextEdit()
        self.description_edit.setObjectName("pack_description")
        self.description_edit.setMaximumHeight(70)
        self.description_edit.setTabChangesFocus(True)
        form.addRow("Pack", self.id_label)
        form.addRow("Name", self.name_edit)
        form.addRow("Version", self.version_edit)
        form.addRow("Description", self.description_edit)
        self.name_edit.editingFinished.connect(self.name_finished)
        self.version_edit.editingFinished.connect(self.version_finished)
        self.description_edit.textChanged.connect(self._description_changed)

    # the model's manifest, shown ---------------------------------------------------------
    def show_manifest(self) -> None:
        """Show the whole manifest (a pack was opened)."""
        manifest = self.pack.manifest
        if manifest is None:
            return
        self.name_edit.setText(manifest.get("name", ""))
        self.version_edit.setText(manifest.get("version", ""))
        self.description_edit.blockSignals(True)
        self.description_edit.setPlainText(manifest.get("description", ""))
        self.description_edit.blockSignals(False)
        self.id_label.setText(f"{manifest.get('id', '')} \u2014 ruleset {manifest.get('ruleset', '')}")

    def show_field(self, field: str, value) -> None:
        """Show manifest member ``field``'s new ``value`` (:data:`ABSENT`: empty) in its editor,
        unless the editor shows it already (the user is typing it)."""
        shown = "" if value is ABSENT else value
        if field == "description":
            if self.description_value() != value:
                self.description_edit.blockSignals(True)
                self.description_edit.setPlainText(shown)
                self.description_edit.blockSignals(False)
        else:
            edit = self.name_edit if field == "name" else self.version_edit
            if edit.text().strip() != shown:
                edit.setText(shown)

    def description_value(self):
        """The description as typed, or :data:`ABSENT` when it is blank (the member is left out)."""
        text = self.description_edit.toPlainText()
        return text if text.strip() else ABSENT

    # the user's typing, as edits ---------------------------------------------------------
    def change_field(self, field: str, value) -> bool:
        """One undo step setting manifest ``field`` to ``value`` (none when it is that already);
        ``False`` with a message when the value is refused."""
        try:
            edit = ChangeManifestField(self.pack, field, value, self._session())
        except PackError as exc:
            self._tell(str(exc), True)
            return False
        if not edit.void:
            self._push(edit)
        return True

    def name_finished(self) -> None:
        """The name editor was left: change the name, or show the manifest's again when refused."""
        if self.pack.manifest is not None and not self.change_field("name", self.name_edit.text().strip()):
            self.name_edit.setText(self.pack.manifest.get("name", ""))

    def version_finished(self) -> None:
        """The version editor was left: change the version, or show the manifest's again when refused."""
        if self.pack.manifest is not None and not self.change_field("version", self.version_edit.text().strip()):
            self.version_edit.setText(self.pack.manifest.get("version", ""))

    def commit(self) -> None:
        """Make what is typed in the name and version editors part of the manifest (before saving)."""
        self.name_finished()
        self.version_finished()

    def _description_changed(self) -> None:
        if self.pack.manifest is not None:
            self.change_field("description", self.description_value())
