"""The family, ruleset and grid size fields that File > New and File > Generate share (Qt).

:class:`RulesetPicker` owns the widgets and what ties them together: the family chosen lists its
rulesets (bundled, or the open pack's), and a grid ruleset sets the grid size to the board of
that ruleset, or to the starting size the dialog was given (the open pack's). The dialog lays the
widgets out and reacts to :attr:`RulesetPicker.changed` (which parts to show for the family).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSpinBox, QWidget

from inkcrawl.rulesets import Ruleset


class RulesetPicker(QObject):
    """Family and ruleset combo boxes and a grid size row (``columns`` x ``rows`` spin boxes of
    1 to ``max_side``) over ``rulesets``, starting at ``chosen`` (else the first) and, for a grid
    ruleset, at ``size`` ``(columns, rows)`` (else the ruleset's board). ``changed`` is emitted
    once the ruleset (and with it the size) changed."""

    changed = Signal()

    def __init__(
        self,
        rulesets: list[Ruleset],
        chosen: Ruleset | None,
        size: tuple[int, int] | None,
        max_side: int,
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self.rulesets = rulesets
        self._default_size = size
        self.family_box = QComboBox()
        self.family_box.setObjectName("family")
        for family in dict.fromkeys(r.family for r in rulesets):
            self.family_box.addItem(f"{family.capitalize()} family", family)
        self.ruleset_box = QComboBox()
        self.ruleset_box.setObjectName("ruleset")
        self.columns = QSpinBox()
        self.rows = QSpinBox()
        for box, name in ((self.columns, "columns"), (self.rows, "rows")):
            box.setRange(1, max_side)
            box.setObjectName(name)
        self.size_row = QWidget()
        size_layout = QHBoxLayout(self.size_row)
        size_layout.setContentsMargins(0, 0, 0, 0)
        size_layout.addWidget(self.columns)
        size_layout.addWidget(QLabel("columns \u00d7"))
        size_layout.addWidget(self.rows)
        size_layout.addWidget(QLabel("rows"))
        size_layout.addStretch(1)
        chosen = chosen if chosen in rulesets else (rulesets[0] if rulesets else None)
        self.family_box.currentIndexChanged.connect(lambda _i: self._fill(None))
        self.ruleset_box.currentIndexChanged.connect(lambda _i: self._ruleset_changed())
        if chosen is not None:
            self.family_box.blockSignals(True)
            self.family_box.setCurrentIndex(self.family_box.findData(chosen.family))
            self.family_box.blockSignals(False)
        self._fill(chosen)

    def _fill(self, chosen: Ruleset | None) -> None:
        family = self.family_box.currentData()
        self.ruleset_box.blockSignals(True)
        self.ruleset_box.clear()
        for index, ruleset in enumerate(self.rulesets):
            if ruleset.family == family:
                self.ruleset_box.addItem(f"{ruleset.data.get('name', ruleset.id)} ({ruleset.id})", index)
                if ruleset is chosen:
                    self.ruleset_box.setCurrentIndex(self.ruleset_box.count() - 1)
        self.ruleset_box.blockSignals(False)
        self._ruleset_changed(keep_size=chosen is not None)

    def _ruleset_changed(self, keep_size: bool = False) -> None:
        ruleset = self.ruleset()
        if ruleset is not None and ruleset.family == "grid":
            board = ruleset.data.get("board", {})
            size = self._default_size if keep_size and self._default_size else None
            size = size or (int(board.get("columns", 7)), int(board.get("rows", 7)))
            self.columns.setValue(size[0])
            self.rows.setValue(size[1])
        self.changed.emit()

    def ruleset(self) -> Ruleset | None:
        """The ruleset chosen now (``None`` when none is offered)."""
        index = self.ruleset_box.currentData()
        return self.rulesets[index] if index is not None else None

    def family(self) -> str:
        """The family chosen now (``"grid"`` or ``"line"``)."""
        return str(self.family_box.currentData())

    def size(self) -> tuple[int, int]:
        """The grid size in the fields, ``(columns, rows)``."""
        return self.columns.value(), self.rows.value()
