"""File > Generate Dungeon... and File > Populate Dungeon...: ``inkcrawl generate`` and
``inkcrawl populate`` in the editor (issue #14, docs/generating.md).

:class:`GenerateDialog` asks for the family and ruleset (starting, as File > New does, at the open
pack's: :meth:`editor.files.manager.FileManager.new_defaults`), a seed (with a Random Seed
button), the common constraints as fields (grid size, entryways and feature counts, or rooms,
locked doors and element counts; a difficulty target: a mean-score range for grid dungeons, a
par range for line ones), the line layout's paper (at the open dungeon's or pack's, else A4),
corridors and Starts (each "any", a count or a range), and an optional constraints file,
checked against ``schemas/constraints.schema.json`` when chosen and again on Generate (each
problem shown in the dialog with its JSON pointer). A field left at "ruleset" (a range left unticked: "any") keeps
the file's member, else the ruleset's (the generator's) value; a field set overrides the file
(:func:`editor.dungeon.generating.merge_constraints`). A chosen file's grid size, paper,
corridors, Starts and par or mean-score range show in their fields, and a count field left at
"ruleset" shows the file's count or range (``"7 (file)"``, ``"2 to 4 (file)"``). A range is taken
as typed: one whose low end is above its high end is refused on Generate with the explanation
``inkcrawl generate --constraints`` gives (:func:`editor.dungeon.generating.spec_problem`), and
no job starts.

Generation runs in a worker process of its own (:class:`GenerationWorker`, one
:class:`inkcrawl.workers.WorkerPool` process started with ``spawn``) while the dialog shows a busy
bar; **Cancel** stops it at once (the process is killed; the next run starts a new one) and
leaves the dialog open. An infeasible spec shows the generator's explanation in the dialog, the
constraint it names included; the fields stay as they were so the user can change them. A result
opens as a new unsaved dungeon, like File > New (:meth:`FileManager.open_generated`).

Populate works on the current line dungeon, with the same dialog less the family, ruleset and
layout fields (paper, rooms, corridors, locked doors; the Starts field stays): its result is
pushed as **one undo step** (:func:`editor.dungeon.generating.populate_edit`) that adds the
scoring content and changes nothing of the layout's areas, walls, doors, labels and Starts.
Ctrl+Z takes the whole of it back.

Tests drive the dialog without ``exec()``: :meth:`Generator.generate` and :meth:`Generator.populate`
open it window-modal with ``open()`` and return it; the tests set its fields and click its buttons.
"""

from __future__ import annotations

import random
from concurrent.futures import Future
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from editor.dungeon.background import BackgroundWorker
from editor.dungeon.generating import (
    GRID_FIELD_KINDS,
    LINE_FIELD_KINDS,
    LINE_RANGE_FIELDS,
    default_paper,
    generate_job,
    merge_constraints,
    paper_label,
    populate_edit,
    populate_job,
    read_constraints_file,
    spec_problem,
)
from editor.panels.grid_dialogs import MAX_SIDE
from editor.panels.ruleset_picker import RulesetPicker
from inkcrawl.papers import PAPER_SIZES
from inkcrawl.rulesets import Ruleset

#: Largest seed the dialog offers (the CLI takes any whole number from 0).
MAX_SEED = 2**31 - 1
#: The spin boxes' value meaning "the file's member, else the ruleset's default".
RULESET_DEFAULT = -1
#: Seconds of search per dungeon the dialog starts with (``inkcrawl generate --time-limit``).
DEFAULT_TIME_LIMIT_S = 5.0
#: Largest count a field offers (the schema allows 1,000; no A4 sheet holds more).
MAX_FIELD_COUNT = 200
#: The paper the dialog starts at when neither the open dungeon nor its pack names one (the
#: generator's default, ``line.paper``).
DEFAULT_PAPER = "a4"
#: Largest count a range field offers: the schema's, so any constraints file's value shows.
MAX_RANGE_COUNT = 1000
#: Per range field of :data:`~editor.dungeon.generating.LINE_RANGE_FIELDS`: the least value
#: it offers, the range it starts at when ticked, and its tooltip.
LINE_RANGES = {
    "corridors": (
        0,
        (4, 6),
        "Corridors of the layout, a count (both ends equal) or a range; unticked: any (the spanning "
        "tree of the rooms plus loops). At least rooms - 1 join every room",
    ),
    "starts": (
        0,  # 0 is refused by the generator, with its explanation; a file's 0 shows as it is
        (1, 1),
        "Starts the sheet has, a count (both ends equal) or a range; unticked: any (one, when the "
        "layout has none). Each stands on the outer wall of a room that has none",
    ),
}


class GenerationWorker(BackgroundWorker):
    """The worker process of File > Generate and Populate: a :class:`BackgroundWorker` (jobs
    answered on the UI thread) that :meth:`cancel` can stop in the middle of a job. It runs at
    normal priority: the designer waits for it, and its time limit is wall-clock time."""

    BACKGROUND = False
    NAME = "inkcrawl-editor-generate"

    def cancel(self) -> None:
        """Kill the worker process now: the job running fails (its ``on_done`` still runs, with
        a failed future) and the next :meth:`submit` starts a new process."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()


#: What a count field left at :data:`RULESET_DEFAULT` shows when no constraints file sets its member
#: (a file's member shows as ``"7 (file)"`` or ``"2 to 4 (file)"``: :func:`_file_text`).
RULESET_TEXT = "ruleset"


def _file_text(value: object) -> str:
    """What a count field left at :data:`RULESET_DEFAULT` shows for a constraints file's member
    ``value`` (a count, ``[low, high]``, or ``None``: not set, :data:`RULESET_TEXT`)."""
    if value is None:
        return RULESET_TEXT
    if isinstance(value, list):
        return f"{value[0]} to {value[1]} (file)"
    return f"{value} (file)"


def _count_box(maximum: int, name: str, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(RULESET_DEFAULT, maximum)
    box.setSpecialValueText(RULESET_TEXT)
    box.setValue(RULESET_DEFAULT)
    box.setObjectName(name)
    box.setToolTip(tip)
    return box


def _range_row(
    low: float, high: float, name: str, minimum: float = -1000.0, whole: bool = False, unticked: str = ""
) -> tuple[QWidget, QCheckBox, tuple]:
    """A range field: a tick box (unticked: no range asked) and its low and high ends, VP with
    one decimal, or with ``whole`` counts from ``minimum`` to :data:`MAX_RANGE_COUNT`;
    ``unticked`` is a note shown after them while the box is unticked (``""``: none)."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    check = QCheckBox()
    check.setObjectName(f"{name}_on")
    boxes = []
    for value, part in ((low, "low"), (high, "high")):
        box: QSpinBox | QDoubleSpinBox
        if whole:
            box = QSpinBox()
            box.setRange(int(minimum), MAX_RANGE_COUNT)
            box.setValue(int(value))
        else:
            box = QDoubleSpinBox()
            box.setRange(minimum, 1000.0)
            box.setDecimals(1)
            box.setValue(value)
            box.setSuffix(" VP")
        box.setObjectName(f"{name}_{part}")
        box.setEnabled(False)
        check.toggled.connect(box.setEnabled)
        boxes.append(box)
    layout.addWidget(check)
    layout.addWidget(boxes[0])
    layout.addWidget(QLabel("to"))
    layout.addWidget(boxes[1])
    if unticked:
        note = QLabel(unticked)
        note.setObjectName(f"{name}_any")
        note.setEnabled(False)  # greyed, as the ends it stands for
        check.toggled.connect(lambda on: note.setVisible(not on))
        layout.addWidget(note)
    layout.addStretch(1)
    return row, check, tuple(boxes)


#: Count fields whose member is in the constraints section itself (the others are in its
#: ``elements`` or ``features``).
COUNT_MEMBERS = ("rooms", "locked_doors", "entryways")


def _holds(box: QSpinBox | QDoubleSpinBox, value: float) -> bool:
    """Whether the spin box ``box`` shows ``value`` exactly (a whole number, or one with no more
    decimals than the box has)."""
    if isinstance(box, QDoubleSpinBox):
        return round(value, box.decimals()) == value
    return float(value).is_integer()


class GenerateDialog(QDialog):
    """Generate a dungeon (or, with ``document``, populate that line dungeon): see the module
    docstring. ``rulesets`` are those offered (``document``: its own only), ``defaults`` a
    :class:`~editor.files.manager.NewDefaults` (ruleset id, grid size) to start at, ``worker``
    the :class:`GenerationWorker` jobs run in, ``paper`` the name
    (:data:`inkcrawl.papers.PAPER_SIZES`) the paper field starts at (``None``: A4).

    Signal ``finished_job(dict)``: a job's answer arrived (``{"ok": ...}``, see
    :func:`~editor.dungeon.generating.generate_job`). Once accepted, :attr:`answer` holds the
    successful answer and :meth:`chosen_ruleset` the ruleset it was made with.
    """

    finished_job = Signal(object)

    def __init__(
        self,
        rulesets: list[Ruleset],
        defaults,
        worker: GenerationWorker,
        parent=None,
        document=None,
        paper: str | None = None,
    ):
        super().__init__(parent)
        self.document = document
        self.populating = document is not None
        self.setWindowTitle("Populate Dungeon" if self.populating else "Generate Dungeon")
        self.rulesets = [document.ruleset] if document is not None else list(rulesets)
        self.worker = worker
        self.answer: dict | None = None
        self.constraints_data: dict | None = None
        self._job: Future | None = None
        self._token = 0
        self._revision = document.revision if document is not None else 0
        chosen_id = document.ruleset.id if document is not None else (defaults.ruleset if defaults else None)
        chosen = next((r for r in self.rulesets if r.id == chosen_id), None)
        size = defaults.size if defaults is not None else None
        self.picker = RulesetPicker(self.rulesets, chosen, size, MAX_SIDE, self)
        self.family_box, self.ruleset_box = self.picker.family_box, self.picker.ruleset_box
        self.columns, self.rows = self.picker.columns, self.picker.rows
        self.seed = QSpinBox()
        self.seed.setObjectName("seed")
        self.seed.setRange(0, MAX_SEED)
        self.seed.setToolTip("The same seed, constraints and ruleset give the same dungeon")
        self.random_seed_button = QPushButton("&Random Seed")
        self.random_seed_button.setToolTip("Draw a new seed")
        self.random_seed_button.clicked.connect(self.randomize_seed)
        seed_row = QWidget()
        seed_layout = QHBoxLayout(seed_row)
        seed_layout.setContentsMargins(0, 0, 0, 0)
        seed_layout.addWidget(self.seed, 1)
        seed_layout.addWidget(self.random_seed_button)
        self.time_limit = QDoubleSpinBox()
        self.time_limit.setObjectName("time_limit")
        self.time_limit.setRange(0.5, 600.0)
        self.time_limit.setDecimals(1)
        self.time_limit.setSuffix(" s")
        self.time_limit.setValue(DEFAULT_TIME_LIMIT_S)
        self.time_limit.setToolTip("Seconds of search before the generator gives up and explains why")
        self.constraints_edit = QLineEdit()
        self.constraints_edit.setObjectName("constraints")
        self.constraints_edit.setPlaceholderText("none: the fields and the ruleset's defaults")
        self.constraints_edit.setToolTip("A constraints file (docs/generating.md); fields you set override it")
        self.constraints_edit.editingFinished.connect(lambda: self.set_constraints_file(self.constraints_edit.text()))
        browse = QPushButton("&Browse\u2026")
        browse.clicked.connect(self._browse)
        clear = QPushButton("C&lear")
        clear.clicked.connect(lambda: self.set_constraints_file(""))
        file_row = QWidget()
        file_layout = QHBoxLayout(file_row)
        file_layout.setContentsMargins(0, 0, 0, 0)
        file_layout.addWidget(self.constraints_edit, 1)
        file_layout.addWidget(browse)
        file_layout.addWidget(clear)

        form = QFormLayout()
        form.addRow("&Family:", self.family_box)
        form.addRow("R&uleset:", self.ruleset_box)
        form.addRow("&Seed:", seed_row)
        form.addRow("&Time limit:", self.time_limit)
        form.addRow("Constraints &file:", file_row)
        if self.populating:
            for widget in (self.family_box, self.ruleset_box):
                widget.setEnabled(False)

        # grid fields
        self.grid_group = QGroupBox("Grid constraints")
        grid_form = QFormLayout(self.grid_group)
        grid_form.addRow("Grid size:", self.picker.size_row)
        self.grid_counts = {"entryways": _count_box(100, "entryways", "Entryway arrows on outer edges")}
        for kind in GRID_FIELD_KINDS:
            what = "weapon/monster letter pairs" if kind == "pairs" else f"{kind} features"
            self.grid_counts[kind] = _count_box(MAX_FIELD_COUNT, kind, f"Number of {what}")
        for name, box in self.grid_counts.items():
            grid_form.addRow(f"{name.capitalize()}:", box)
        score_row, self.score_check, self.score_range = _range_row(0.0, 10.0, "mean_score")
        self.score_check.setToolTip(
            "Difficulty target: the mean simulated score (inkcrawl simulate, greedy, 2 players)"
        )
        grid_form.addRow("Mean score:", score_row)

        # line fields
        self.line_group = QGroupBox("Line constraints")
        line_form = QFormLayout(self.line_group)
        self.default_paper = paper if paper in PAPER_SIZES else DEFAULT_PAPER
        self.paper = QComboBox(self.line_group)
        self.paper.setObjectName("paper")
        self.paper.setToolTip("The paper the layout is drawn for, portrait (line.paper)")
        for name, (width, height) in PAPER_SIZES.items():
            self.paper.addItem(f"{paper_label(name)} ({width:g} \u00d7 {height:g} mm)", name)
        self.paper.setCurrentIndex(self.paper.findData(self.default_paper))
        self.line_counts: dict[str, QSpinBox] = {}
        self.line_ranges: dict[str, tuple[QCheckBox, tuple]] = {}
        range_rows: dict[str, QWidget] = {}
        for name in LINE_RANGE_FIELDS:
            if name == "corridors" and self.populating:
                continue  # generate only, as rooms and locked doors
            least, (low, high), tip = LINE_RANGES[name]
            row, check, boxes = _range_row(low, high, name, minimum=least, whole=True, unticked="any")
            check.setToolTip(tip)
            self.line_ranges[name] = (check, boxes)
            range_rows[name] = row
        if not self.populating:
            line_form.addRow("Pa&per:", self.paper)
            self.line_counts["rooms"] = _count_box(12, "rooms", "Rooms of the layout (at most 12 fit A4)")
            line_form.addRow("Rooms:", self.line_counts["rooms"])
            line_form.addRow("Corridors:", range_rows["corridors"])
            self.line_counts["locked_doors"] = _count_box(12, "locked_doors", "Corridors ending in a locked door")
            line_form.addRow("Locked doors:", self.line_counts["locked_doors"])
        else:
            self.paper.hide()  # generate only: the layout is drawn already
        line_form.addRow("Starts:", range_rows["starts"])
        for kind in LINE_FIELD_KINDS:
            self.line_counts[kind] = _count_box(1 if kind == "boss" else MAX_FIELD_COUNT, kind, f"Number of {kind}s")
            line_form.addRow(f"{kind.capitalize()}:", self.line_counts[kind])
        self._file_shown: dict[str, object] = {}  # field -> the value the constraints file put there
        par_row, self.par_check, self.par_range = _range_row(15.0, 25.0, "par", minimum=0.0)
        self.par_check.setToolTip("Difficulty target: par, the best solo score (inkcrawl par)")
        line_form.addRow("Par:", par_row)

        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b71c1c")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self.busy = QProgressBar()
        self.busy.setObjectName("busy")
        self.busy.setRange(0, 0)  # an indeterminate bar: the generator cannot tell how long it takes
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = self.buttons.addButton(
            "&Populate" if self.populating else "&Generate", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.run_button.setDefault(True)
        self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.grid_group)
        layout.addWidget(self.line_group)
        layout.addWidget(self.message)
        layout.addWidget(self.busy)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(520)
        self._inputs = [self.family_box, self.ruleset_box, seed_row, self.time_limit, file_row]
        self._inputs += [self.grid_group, self.line_group]

        self.picker.changed.connect(self._ruleset_changed)
        self._ruleset_changed()
        self.randomize_seed()

    # choices -----------------------------------------------------------------------------
    def _ruleset_changed(self) -> None:
        ruleset = self.chosen_ruleset()
        grid = ruleset is not None and ruleset.family == "grid"
        self.grid_group.setVisible(grid)
        self.line_group.setVisible(not grid)

    def chosen_ruleset(self) -> Ruleset | None:
        """The ruleset chosen now."""
        return self.picker.ruleset()

    def family(self) -> str:
        """The family chosen now (``"grid"`` or ``"line"``)."""
        return self.picker.family()

    def randomize_seed(self) -> int:
        """Put a new random seed (0 to :data:`MAX_SEED`) in the seed field; returns it."""
        value = random.SystemRandom().randint(0, MAX_SEED)
        self.seed.setValue(value)
        return value

    def ask_constraints_path(self) -> str:
        """Ask for a constraints file (a file dialog); ``""`` when cancelled."""
        start = self.constraints_edit.text() or str(Path.cwd())
        chosen, _ = QFileDialog.getOpenFileName(self, "Constraints file", start, "Constraints (*.json);;All files (*)")
        return chosen

    def _browse(self) -> None:
        chosen = self.ask_constraints_path()
        if chosen:
            self.set_constraints_file(chosen)

    def set_constraints_file(self, path: str | Path) -> bool:
        """Use the constraints file ``path`` (``""``: none) and check it now. A valid file for
        the other family switches the family (generate) or is refused (populate, line only); a
        file naming a ruleset that is offered selects it. Returns whether the file can be used;
        otherwise the dialog lists its problems, each with its JSON pointer."""
        text = str(path)
        if self.constraints_edit.text() != text:
            self.constraints_edit.setText(text)
        self.constraints_data = None
        if not text.strip():
            self._show_file_values({})
            self.show_message("")
            return True
        data, problems = read_constraints_file(Path(text))
        if data is None:
            self._show_file_values({})  # nothing of a file that cannot be used shows in the fields
            self.show_message(self._file_problems(text, problems))
            return False
        if data["family"] != self.family():
            if self.populating:
                self._show_file_values({})
                self.show_message(
                    f"{Path(text).name}: /family: the file is for the {data['family']} family; "
                    "populate adds content to line dungeons and needs a line section"
                )
                return False
            self.family_box.setCurrentIndex(self.family_box.findData(data["family"]))
        if not self.populating and isinstance(data.get("ruleset"), str):
            for row in range(self.ruleset_box.count()):
                if self.rulesets[self.ruleset_box.itemData(row)].id == data["ruleset"]:
                    self.ruleset_box.setCurrentIndex(row)
        grid = data.get("grid") or {}
        if self.family() == "grid":  # the size fields show the file's size (a field set overrides the file)
            sides = ((self.columns, "columns"), (self.rows, "rows"))
            for box, member in sides:
                value = grid.get(member)
                if isinstance(value, int) and not box.minimum() <= value <= box.maximum():
                    # never cut to the field's range: the command's reason, or the dialog's limit
                    ruleset = self.chosen_ruleset()
                    reason = (spec_problem("grid", data, ruleset) if ruleset is not None else "") or (
                        f"/grid/{member}: {value} is outside the sides this dialog offers "
                        f"({box.minimum()} to {box.maximum()}); inkcrawl generate --constraints can make it"
                    )
                    self._show_file_values({})
                    self.show_message(f"{Path(text).name}: {reason}")
                    return False
            for box, member in sides:
                if isinstance(grid.get(member), int):
                    box.setValue(grid[member])
        self._show_file_values(data.get(self.family()) or {})
        self.constraints_data = data
        self.show_message("")
        return True

    def _range_fields(self) -> dict[str, tuple[QCheckBox, tuple]]:
        """Every range field by name: :attr:`line_ranges`, ``par`` and ``mean_score``."""
        return {
            **self.line_ranges,
            "par": (self.par_check, self.par_range),
            "mean_score": (self.score_check, self.score_range),
        }

    def _field_value(self, name: str) -> object:
        """What the field ``name`` (``paper`` or a range of :meth:`_range_fields`) asks now: a
        paper name, ``(low, high)`` as typed (never put in order: a reversed range is refused
        on Generate, as ``inkcrawl generate`` refuses it), or ``None`` (a range unticked)."""
        if name == "paper":
            return self.paper.currentData()
        check, boxes = self._range_fields()[name]
        return tuple(b.value() for b in boxes) if check.isChecked() else None

    def _show_file_values(self, section: dict) -> None:
        """Show a constraints file's section of the family chosen (``section``: ``line`` or
        ``grid``) in the fields, as the grid size is shown: the paper, a range member (corridors,
        Starts, a par or mean-score range, not a curve) fills and ticks its range field, and a
        count field left at "ruleset" shows the file's count or range (``"7 (file)"``), which
        generating uses. A field the previous file filled and nobody changed since goes back to
        its default (A4 or the open pack's paper; a range unticked), so a second file does not
        inherit the first's values."""
        ranges = self._range_fields()
        for name, shown in self._file_shown.items():
            if name in ranges and self._field_value(name) == shown:
                ranges[name][0].setChecked(False)
            elif name == "paper" and self._field_value(name) == shown:
                self.paper.setCurrentIndex(self.paper.findData(self.default_paper))
        self._file_shown = {}
        line = self.family() == "line"
        if line and not self.populating and section.get("paper") in PAPER_SIZES:
            self.paper.setCurrentIndex(self.paper.findData(section["paper"]))
            self._file_shown["paper"] = section["paper"]
        difficulty = section.get("difficulty") or {}
        values = {name: section.get(name) for name in self.line_ranges} if line else {}
        values["par" if line else "mean_score"] = difficulty.get("par" if line else "mean_score")
        for name, value in values.items():
            if value is None or isinstance(value, dict):  # a curve over a pack: the file's, used as it is
                continue
            check, boxes = ranges[name]
            ends = (value, value) if isinstance(value, (int, float)) else (value[0], value[1])
            if not all(b.minimum() <= end <= b.maximum() and _holds(b, end) for b, end in zip(boxes, ends)):
                continue  # a field that cannot hold it exactly leaves the file's value to be used as it is
            for box, end in zip(boxes, ends):
                box.setValue(int(end) if isinstance(box, QSpinBox) else float(end))
            check.setChecked(True)
            self._file_shown[name] = self._field_value(name)
        for box in [*self.line_counts.values(), *self.grid_counts.values()]:
            box.setSpecialValueText(RULESET_TEXT)
        elements = section.get("elements" if line else "features") or {}
        for name, box in (self.line_counts if line else self.grid_counts).items():
            box.setSpecialValueText(_file_text(section.get(name) if name in COUNT_MEMBERS else elements.get(name)))

    @staticmethod
    def _file_problems(path: str, problems: list[str], shown: int = 6) -> str:
        lines = [f"{Path(path).name}: {p}" for p in problems[:shown]]
        if len(problems) > shown:
            lines.append(f"\u2026and {len(problems) - shown} more problem(s)")
        return "The constraints file cannot be used:\n" + "\n".join(lines)

    def fields(self) -> dict:
        """The values of the constraint fields (``None`` for a field left at "ruleset" or a
        range left unticked; ``paper`` a name, generate only; ``corridors``, ``starts``, ``par``
        and ``mean_score`` ``(low, high)`` as typed, never put in order), as
        :func:`~editor.dungeon.generating.merge_constraints` takes them."""
        out: dict = {}
        if self.family() == "grid":
            out["columns"], out["rows"] = self.columns.value(), self.rows.value()
            for name, box in self.grid_counts.items():
                out[name] = None if box.value() == RULESET_DEFAULT else box.value()
            out["mean_score"] = self._field_value("mean_score")
        else:
            for name, box in self.line_counts.items():
                out[name] = None if box.value() == RULESET_DEFAULT else box.value()
            if not self.populating:
                out["paper"] = self.paper.currentData()
            for name in self.line_ranges:
                out[name] = self._field_value(name)
            out["par"] = self._field_value("par")
        return out

    def constraints(self) -> dict:
        """The constraints document the job runs with: the file's, the fields laid over it.
        Raises ``ValueError`` (said in the dialog by :meth:`start`) for a file of the other family."""
        ruleset = self.chosen_ruleset()
        assert ruleset is not None
        return merge_constraints(self.constraints_data, self.family(), ruleset.id, self.fields(), self.populating)

    # running -----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether a job runs now."""
        return self._job is not None

    @property
    def job_started(self) -> bool:
        """Whether the worker process has taken the job running now (it may still be starting)."""
        return self._job is not None and self._job.running()

    def show_message(self, text: str) -> None:
        """Show ``text`` (an explanation, a file's problems) in the dialog; ``""`` hides it."""
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _set_running(self, running: bool) -> None:
        for widget in self._inputs:
            widget.setEnabled(not running)
        if self.populating:
            self.family_box.setEnabled(False)
            self.ruleset_box.setEnabled(False)
        self.run_button.setEnabled(not running)
        self.busy.setVisible(running)
        self.cancel_button.setToolTip("Stop generating" if running else "Close without generating")

    def start(self) -> bool:
        """Generate (or populate) with the choices made: checks the constraints file again,
        then runs the job in the worker; ``False`` (the reason shown) when it could not start."""
        if self.running:
            return False
        # the file first: reading it again may choose its family and ruleset
        if self.constraints_edit.text().strip() and not self.set_constraints_file(self.constraints_edit.text()):
            return False
        ruleset = self.chosen_ruleset()
        if ruleset is None:
            self.show_message("No ruleset of this family is available.")
            return False
        try:
            constraints = self.constraints()
        except ValueError as exc:
            self.show_message(str(exc))
            return False
        from inkcrawl.schema import schema_problems

        problems = schema_problems(constraints, "constraints", "the fields")
        if problems:  # the fields' ranges keep to the schema; said plainly should one not
            self.show_message("\n".join(f"{p.pointer}: {p.message}" for p in problems[:6]))
            return False
        refused = spec_problem(self.family(), constraints, ruleset)
        if refused:  # a reversed range, say: refused as inkcrawl generate --constraints refuses it
            self.show_message(f"Nothing was {'populated' if self.populating else 'generated'}: {refused}")
            return False
        seed, limit = self.seed.value(), self.time_limit.value()
        args: tuple
        if self.populating:
            self._revision = self.document.revision
            data = self.document.dungeon.to_dict()
            args = (populate_job, data, ruleset, constraints, seed, limit, self.document.file_label)
        else:
            args = (generate_job, self.family(), ruleset, constraints, seed, limit)
        self._token += 1
        token = self._token
        try:
            self._job = self.worker.submit(lambda future: self._arrived(token, future), *args)
        except Exception as exc:  # a pool that cannot start a worker: said, nothing changed
            self.show_message(f"The generator could not start: {exc}")
            return False
        self.show_message("")
        self._set_running(True)
        return True

    def cancel_job(self) -> bool:
        """Stop the job running (its worker is killed); ``False`` when none runs."""
        if not self.running:
            return False
        self._token += 1  # the killed job's answer is dropped when it arrives
        self._job = None
        self.worker.cancel()
        self._set_running(False)
        self.show_message("Cancelled: nothing was generated." if not self.populating else "Cancelled: nothing changed.")
        return True

    def _arrived(self, token: int, future: Future) -> None:
        if token != self._token:
            return  # a cancelled job
        self._job = None
        self._set_running(False)
        try:
            answer = future.result()
        except Exception as exc:  # the worker died or the job failed unexpectedly: said, never a traceback
            answer = {"ok": False, "message": f"internal error: the generator stopped ({type(exc).__name__}: {exc})"}
        self.finished_job.emit(answer)
        if not answer.get("ok"):
            what = "populated" if self.populating else "generated"
            self.show_message(f"Nothing was {what}: {answer.get('message')}")
            return
        if self.populating and self.document.revision != self._revision:
            self.show_message("The dungeon changed while it was being populated; nothing changed. Try again.")
            return
        self.answer = answer
        self.accept()

    def reject(self) -> None:
        """Cancel: stops a job that runs (the dialog stays open), else closes the dialog."""
        if self.cancel_job():
            return
        super().reject()

    def done(self, code: int) -> None:
        if self.running:  # closed by other means while a job runs: the job is stopped too
            self._token += 1
            self._job = None
            self.worker.cancel()
        super().done(code)


class Generator(QObject):
    """File > Generate Dungeon... and File > Populate Dungeon... of a window (``window.generator``).

    ``dialog`` is the dialog open now (or last). ``worker`` the :class:`GenerationWorker`."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.worker = GenerationWorker()
        self.dialog: GenerateDialog | None = None
        window.destroyed.connect(lambda *_args, worker=self.worker: worker.cancel())

    def generate(self) -> GenerateDialog:
        """Open the Generate dialog (window-modal, not blocking) at the open pack's ruleset and
        grid size, and at the paper of the current dungeon (else of the first open dungeon whose
        sheet is a named paper, else A4); a result opens as a new unsaved dungeon. Returns the
        dialog."""
        files = self.window.files
        rulesets = files.available_rulesets()
        documents = [self.window.current, *self.window.documents]
        sheets = [d.dungeon.sheet.paper for d in documents if d is not None]
        paper = default_paper([(p.width_mm, p.height_mm) for p in sheets])
        dialog = GenerateDialog(rulesets, files.new_defaults(rulesets), self.worker, self.window, paper=paper)
        dialog.accepted.connect(lambda: self._open_result(dialog))
        return self._show(dialog)

    def populate(self) -> GenerateDialog | None:
        """Open the Populate dialog for the current line dungeon (``None``, said in the status
        bar, for a grid dungeon or none); a result is pushed as one undo step."""
        document = self.window.current
        if document is None or document.dungeon.family != "line":
            self.window.show_status("Populate adds content to a line dungeon: open or choose one first")
            return None
        dialog = GenerateDialog([], None, self.worker, self.window, document)
        dialog.accepted.connect(lambda: self._apply_populated(dialog))
        return self._show(dialog)

    def _show(self, dialog: GenerateDialog) -> GenerateDialog:
        if self.dialog is not None and self.dialog is not dialog:
            self.dialog.deleteLater()
        self.dialog = dialog
        dialog.open()
        return dialog

    def _open_result(self, dialog: GenerateDialog) -> None:
        ruleset = dialog.chosen_ruleset()
        if dialog.answer is None or ruleset is None:
            return
        self.window.files.open_generated(dialog.answer["data"], ruleset, dialog.answer.get("note", ""))

    def _apply_populated(self, dialog: GenerateDialog) -> bool:
        from editor.dungeon.edits import EditError

        document = dialog.document
        if dialog.answer is None or document is None or document not in self.window.documents:
            return False
        try:
            edit = populate_edit(document.dungeon, dialog.answer["data"])
        except EditError as exc:
            self.window.tell("error", "Populate", f"Nothing changed: {exc}")
            return False
        document.push(edit)
        notes = "; ".join(dialog.answer.get("notes", []))
        self.window.show_status(
            f"Populated: {dialog.answer.get('note', '')}" + (f" ({notes})" if notes else "") + "; Ctrl+Z takes it back"
        )
        return True


def install(window) -> Generator:
    """Connect File > Generate Dungeon... and File > Populate Dungeon... of ``window``; returns
    the :class:`Generator` (kept as ``window.generator``)."""
    generator = Generator(window)
    window.action("generate").triggered.connect(lambda _checked=False: generator.generate())
    window.action("populate").triggered.connect(lambda _checked=False: generator.populate())
    return generator


__all__ = ["GenerateDialog", "GenerationWorker", "Generator", "install"]
