"""Editor speed on a big dungeon: open, full repaint, a 100-step drag, validation after an edit.

Generates (seeded) a line-family dungeon with ``--elements`` elements (default 2,000) on an A2
sheet: 48 square rooms of 60 mm in a 6 x 8 block, sharing edges, with monsters, plants,
prisoners and treasures on an 8 mm lattice, one Start and one exit. The dungeon is valid (the
script prints the problem count, which should be 0), then in one process, offscreen:

- **open**: ``MainWindow.open_path`` until the window is shown with the sheet rendered and the
  first validation done (also shown: loading + validation, scene build, first sheet render);
- **repaint**: ``viewport().repaint()`` of the canvas at "fit sheet" zoom, 100 % and 200 %, best of
  ``--repeat`` (the aim is one 60 Hz frame, 16 ms); also the first frame right after each zoom
  change (a big sheet then shows its overview image and asks the worker for tiles) and how long
  the sharp tiles take to arrive; then repaints while panning at 200 %;
- **drag**: 100 mouse moves dragging one element with the select tool (press, 100 moves, release),
  the mean time per move and the total, and that it made one undo step;
- **validate after edit**: one edit (move an element 2 mm), then the document's full validation
  (JSON Schema + every rule check), best of ``--repeat`` (aim 100 ms);
- **re-render**: from an edit to its sheet on the canvas (drawn in the worker process), and the
  time the editor's UI thread spends taking the new images;
- **UI thread per operation** (aim 16 ms each), as p50 / p95 / max over ``--samples`` runs: an
  edit pushed (undo command, canvas items), the validation that follows it, an autosave, and
  typing in the Inspector (aim 30 ms per key). Validation and autosave of a big dungeon run in the
  background worker process (:mod:`editor.dungeon.background`): the UI thread takes a snapshot
  and later applies the answer; the figures are that time, the longest the event loop was held
  while the answer was on its way (a 1 ms timer ticking), and the time until the answer arrived;
- **100 x 100 grid** (``--grid-side``): the same on a grid dungeon of 10,000 rooms, half of its
  edges passages: a passage toggled by a click, painting along a grid line (per mouse move),
  deleting 50 selected passages (one undo step) and undoing that, the validation after an edit,
  an autosave.

Every figure is given twice: wall clock (what the designer waits) and the UI thread's CPU time
(``time.thread_time``: the work itself). On a shared machine the wall clock also holds the waits
for a core that other processes cause, so the script prints the machine's load average first.
Between the UI-thread operations the event loop runs for 25 ms, as it does between a designer's
actions: what one operation leaves for it (paints, a panel's delayed layout) is not counted in
the next one.

``--in-place`` validates and autosaves on the UI thread as the editor did before the background
worker (the "before" figures). ``--elements 0`` skips the line dungeon, ``--grid-side 0`` the grid.

Usage: ``PYTHONPATH=. .venv/bin/python benchmarks/editor_canvas.py [--elements N] [--grid-side N]
[--repeat R] [--seed S] [--samples N] [--in-place]``
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOM_MM = 60.0
COLUMNS, ROWS = 6, 8
ORIGIN = (30.0, 40.0)
KINDS = ("monster", "plant", "prisoner", "treasure")


def make_dungeon(elements: int, seed: int) -> dict:
    """Dungeon JSON data: 48 rooms of 60 mm and ``elements`` elements (at most 2,352)."""
    rng = random.Random(seed)
    areas = []
    for row in range(ROWS):
        for col in range(COLUMNS):
            x0, y0 = ORIGIN[0] + col * ROOM_MM, ORIGIN[1] + row * ROOM_MM
            areas.append(
                {
                    "id": f"room-{row}-{col}",
                    "kind": "room",
                    "polygon": [[x0, y0], [x0 + ROOM_MM, y0], [x0 + ROOM_MM, y0 + ROOM_MM], [x0, y0 + ROOM_MM]],
                }
            )
    spots = []
    for row in range(ROWS):
        for col in range(COLUMNS):
            for i in range(7):
                for j in range(7):
                    spots.append((ORIGIN[0] + col * ROOM_MM + 6 + 8 * i, ORIGIN[1] + row * ROOM_MM + 6 + 8 * j))
    rng.shuffle(spots)
    if elements > len(spots) - 1:
        raise SystemExit(f"at most {len(spots) - 1} elements fit this generator")
    items = [{"id": "start-1", "kind": "start", "at": [ORIGIN[0] + 30, ORIGIN[1]], "size_mm": 8, "rotation_deg": 0}]
    exit_at = spots.pop()
    items.append({"id": "exit-1", "kind": "exit", "at": list(exit_at), "size_mm": 5, "rotation_deg": 0})
    for n, (x, y) in enumerate(spots[: elements - 2]):
        kind = KINDS[n % len(KINDS)]
        item = {"id": f"{kind}-{n}", "kind": kind, "at": [x, y], "size_mm": 4, "rotation_deg": 0}
        if kind == "treasure":
            item["variant"] = rng.choice(["chest", "crown", "goblet"])
        items.append(item)
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "big-benchmark",
        "family": "line",
        "ruleset": "line-classic",
        "sheet": {
            "title": "Benchmark: two thousand elements",
            "paper": {"width_mm": 420, "height_mm": 594, "margin_mm": 10},
            "reminders": [],
            "components": [],
            "end_triggers": [{"kind": "exit_reached"}],
            "orb_tokens": {},
        },
        "areas": areas,
        "walls": [],
        "elements": items,
    }


def best(values: list[float]) -> str:
    return f"{min(values):8.1f} ms (median {statistics.median(values):.1f})"


def spread(values: list[float]) -> str:
    """``p50 / p95 / max`` of per-operation times in ms."""
    ordered = sorted(values)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    return f"p50 {statistics.median(ordered):7.1f} ms  p95 {p95:7.1f} ms  max {ordered[-1]:7.1f} ms  (n={len(ordered)})"


def p50_p95(values: list[float]) -> str:
    ordered = sorted(values)
    return f"p50 {statistics.median(ordered):.1f} ms, p95 {ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]:.1f} ms"


class Timings:
    """Milliseconds of operations on the UI thread, each with the events it posts handled: wall
    clock (what the user waits) and the UI thread's CPU time (``time.thread_time``: the work
    itself, without the waits for a core that other processes on a shared machine cause)."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def run(self, action) -> None:
        from PySide6.QtWidgets import QApplication

        settle()
        wall, cpu = time.perf_counter(), time.thread_time()
        action()
        QApplication.processEvents()
        self.wall.append(1000 * (time.perf_counter() - wall))
        self.cpu.append(1000 * (time.thread_time() - cpu))

    def line(self) -> str:
        return f"{spread(self.wall)}; UI-thread CPU {p50_p95(self.cpu)}"

    def __enter__(self) -> Timings:
        """``with timings:`` measures the block (without handling events)."""
        self._started = (time.perf_counter(), time.thread_time())
        return self

    def __exit__(self, *exc) -> None:
        wall, cpu = self._started
        self.wall.append(1000 * (time.perf_counter() - wall))
        self.cpu.append(1000 * (time.thread_time() - cpu))

    def best(self) -> str:
        """Best and median wall clock, then the same of the UI thread's CPU time."""
        return f"{best(self.wall)}; UI-thread CPU {min(self.cpu):.1f} ms (median {statistics.median(self.cpu):.1f})"

    def last(self) -> str:
        """The last measurement: wall clock and UI-thread CPU."""
        return f"{self.wall[-1]:.1f} ms (UI-thread CPU {self.cpu[-1]:.1f} ms)"


def settle(ms: int = 25) -> None:
    """Run the event loop for ``ms``: what earlier operations left for it (paints, a list's
    delayed layout, a panel refreshed by the last validation) is done before the next measured
    operation, as it is between a designer's actions, and is not counted in that operation."""
    from PySide6.QtTest import QTest

    QTest.qWait(ms)


def machine_load() -> str:
    """The machine's cores and load: wall-clock figures include the waits for a core that other
    processes cause (the UI thread's CPU time does not)."""
    try:
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    except (AttributeError, OSError):
        load = "unknown"
    return f"machine:   {os.cpu_count()} cores, load average {load} (1, 5, 15 min)"


def wait_measuring_stalls(condition, timeout_s: float = 120.0) -> tuple[float, float]:
    """Run the event loop until ``condition()`` holds: ``(ms until then, longest time in ms the
    UI thread did not get back to its event loop)``, measured by a timer ticking every 1 ms."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    ticks = [time.perf_counter()]
    deadline = ticks[0] + timeout_s

    def tick() -> None:
        ticks.append(time.perf_counter())
        if condition() or ticks[-1] > deadline:
            loop.quit()

    timer = QTimer()
    timer.setInterval(1)
    timer.timeout.connect(tick)
    timer.start()
    if not condition():
        loop.exec()
    timer.stop()
    if not condition():
        raise SystemExit(f"waited {timeout_s:.0f} s for the background worker")
    gaps = [b - a for a, b in zip(ticks, ticks[1:])] or [0.0]
    return 1000 * (time.perf_counter() - ticks[0]), 1000 * max(gaps)


def validation_figures(document, make_edit, samples: int, label: str) -> None:
    """Per edit: the validation that follows it, in the background (or in place when the
    document validates in place), UI-thread time and latency."""
    ui, stalls, latency, cpu = [], [], [], []
    for i in range(samples):
        make_edit(i)
        arrived = []
        document.problems_changed.connect(arrived.append)
        t, c = time.perf_counter(), time.thread_time()
        went = document.validate_in_background()
        submit = 1000 * (time.perf_counter() - t)
        cpu.append(1000 * (time.thread_time() - c))
        if went:
            waited, stall = wait_measuring_stalls(lambda: bool(arrived))
            ui.append(document.validation_ui_ms)
            stalls.append(stall)
            latency.append(submit + waited)
        else:
            ui.append(submit)
        document.problems_changed.disconnect(arrived.append)
    where = "background worker" if stalls else "in place, on the UI thread"
    print(f"validate:  {spread(ui)} UI thread per validation after an edit ({where}; {label})")
    print(f"           UI-thread CPU {p50_p95(cpu)} ({'the snapshot and hand-over' if stalls else 'all of it'})")
    if stalls:
        print(f"           {spread(stalls)} longest UI stall while it ran; answer after {spread(latency)}")


def autosave_figures(window, make_edit, samples: int, label: str) -> None:
    """Per edit: an autosave of the dungeon (the timer's path), UI-thread time and latency."""
    files = window.files
    ui, stalls, latency, cpu = [], [], [], []
    for i in range(samples):
        make_edit(i)
        t, c = time.perf_counter(), time.thread_time()
        files.autosave_in_background()
        submit = 1000 * (time.perf_counter() - t)
        cpu.append(1000 * (time.thread_time() - c))
        if files._writing:
            waited, stall = wait_measuring_stalls(lambda: not files._writing)
            stalls.append(stall)
            latency.append(submit + waited)
        ui.append(submit)
    where = "written by the background worker" if stalls else "written on the UI thread"
    print(f"autosave:  {spread(ui)} UI thread per autosave ({where}; {label})")
    print(f"           UI-thread CPU {p50_p95(cpu)} ({'the snapshot and hand-over' if stalls else 'all of it'})")
    if stalls:
        print(f"           {spread(stalls)} longest UI stall while it ran; file written after {spread(latency)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elements", type=int, default=2000, help="elements of the line dungeon (0: skip it)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--grid-side", type=int, default=100, help="columns and rows of the grid dungeon (0: skip)")
    parser.add_argument("--samples", type=int, default=20, help="runs of each UI-thread operation (p50 / p95)")
    parser.add_argument(
        "--in-place", action="store_true", help="validate and autosave on the UI thread (the editor before #16)"
    )
    args = parser.parse_args(argv)
    if args.in_place:
        from editor.dungeon.document import DungeonDocument

        DungeonDocument.BACKGROUND_AFTER_MS = math.inf
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    # the generated dungeon, the editor's settings and recovery files live in a scratch folder
    # removed at the end: the benchmark leaves nothing behind and reads none of your settings
    with tempfile.TemporaryDirectory(prefix="inkcrawl-bench-editor-") as scratch:
        os.environ["XDG_CONFIG_HOME"] = os.path.join(scratch, "config")
        os.environ["XDG_DATA_HOME"] = os.path.join(scratch, "data")
        return run(args, Path(scratch))


def run(args: argparse.Namespace, folder: Path) -> int:
    """Generate the dungeons in ``folder``, open them in the editor and print the figures."""
    from exporters.qt import ensure_app

    app = ensure_app()
    if args.elements > 0:
        run_line(args, folder, app)
    if args.grid_side > 0:
        run_grid(args, folder, app)
    from editor.canvas.sheet_worker import shared_worker
    from editor.dungeon.background import shared_background

    shared_worker().shutdown()
    shared_background().shutdown()
    return 0


def run_line(args: argparse.Namespace, folder: Path, app) -> None:
    """Open the generated line dungeon and print its figures."""
    from inkcrawl.jsonio import dumps_canonical, write_text_atomic

    path = folder / "big.json"
    data = make_dungeon(args.elements, args.seed)
    write_text_atomic(path, dumps_canonical(data))
    print(f"dungeon: {len(data['elements'])} elements, {len(data['areas'])} areas, {path}")
    print(machine_load())

    started = time.perf_counter()
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from editor.mainwindow import MainWindow

    imported = time.perf_counter()
    window = MainWindow()
    window.resize(1400, 900)
    opened_at = time.perf_counter()
    opening = Timings()
    with opening:
        assert window.open_path(path)
        window.show()
        app.processEvents()
    document, scene, view = window.current, window.scene, window.view
    scene.wait_for_sheet()
    sheet_ready = time.perf_counter()
    problems = document.problems
    print(f"problems found: {len(problems)} ({', '.join(sorted({p.problem.code for p in problems})) or 'none'})")
    print(
        f"open:      {opening.last()}  (window shown with every object and its problems; "
        f"imports {1000 * (imported - started):.0f} ms before, not counted)"
    )
    print(
        f"             validation {document.validation_ms:.1f} ms, {len(scene.items_by_ref)} canvas items; the "
        f"printed sheet (worker process) arrived {1000 * (sheet_ready - opened_at):.0f} ms after the start of open"
    )

    def repaint_times() -> Timings:
        out = Timings()
        for _ in range(args.repeat):
            with out:
                view.viewport().repaint()
        return out

    background = scene.background
    mode = "images drawn by the worker" if background.renderer is None else "vectors drawn in the editor"
    print(f"sheet:     shown as {mode}")
    for label, setup in (
        ("fit", view.zoom_to_fit),
        ("100 %", lambda: (view.set_zoom(1.0), view.centerOn(210, 297))),
        ("200 %", lambda: (view.set_zoom(2.0), view.centerOn(210, 297))),
    ):
        setup()
        app.processEvents()
        first = Timings()
        with first:
            view.viewport().repaint()  # first frame at the new zoom: the overview scaled, tiles asked for
        t = time.perf_counter()
        scene.wait_for_sheet()
        crisp = 1000 * (time.perf_counter() - t)
        print(
            f"repaint:   {repaint_times().best()} at {label} ({view.zoom() * 100:.0f} %); first frame after "
            f"the zoom change {first.last()}, sharp tiles {crisp:.0f} ms later"
        )
    pans = Timings()
    for _ in range(10):  # pan right at 200 %: a quarter of the view per step
        bar = view.horizontalScrollBar()
        bar.setValue(bar.value() + view.viewport().width() // 4)
        with pans:
            view.viewport().repaint()
        scene.wait_for_sheet()
    print(f"pan:       {pans.best()} per repaint, panning a quarter view at a time at 200 %")

    element = next(e for e in document.dungeon.elements if e.kind == "monster")
    view.set_zoom(1.0)
    view.centerOn(*element.at)
    app.processEvents()
    viewport = view.viewport()
    start = view.mapFromScene(*element.at)
    count_before = document.undo_stack.count()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    moves, release, whole = Timings(), Timings(), Timings()
    with whole:
        for i in range(1, 101):
            with moves:
                QTest.mouseMove(viewport, start + QPoint(i, (i // 3)))
                app.processEvents()
        with release:
            QTest.mouseRelease(
                viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(100, 33)
            )
            app.processEvents()
    print(
        f"drag:      {statistics.mean(moves.wall):8.1f} ms per move (max {max(moves.wall):.1f}; UI-thread CPU mean "
        f"{statistics.mean(moves.cpu):.1f}, max {max(moves.cpu):.1f}), 100 moves + release {whole.last()}, "
        f"release {release.last()}; undo steps added: {document.undo_stack.count() - count_before}"
    )

    from editor.dungeon.edits import MoveObjects

    validations = Timings()
    for i in range(args.repeat):
        document.push(MoveObjects(document.dungeon, [element.id], 0, 2 if i % 2 == 0 else -2))
        with validations:
            document.validate_now()
    print(f"validate:  {validations.best()} after one edit (JSON Schema + every rule check, on the UI thread)")

    # the sheet after an edit: time until the new sheet shows, and what taking it costs the UI
    scene.wait_for_sheet()
    taken = Timings()
    show = background.show_raster if background.renderer is None else background.show_svg

    def timed_show(*a, **k):
        with taken:
            show(*a, **k)

    if background.renderer is None:
        background.show_raster = timed_show
    arrivals = []
    for i in range(min(args.repeat, 3)):
        document.push(MoveObjects(document.dungeon, [element.id], 0, 2 if i % 2 == 0 else -2))
        t = time.perf_counter()
        scene.render_sheet()
        scene.wait_for_sheet()
        arrivals.append(1000 * (time.perf_counter() - t))
    if taken.wall:
        print(
            f"re-render: {best(arrivals)} from an edit to its sheet on the canvas (worker process); the editor "
            f"spends {max(taken.wall):.1f} ms of it taking the new images (UI-thread CPU {max(taken.cpu):.1f} ms)"
        )
    ui_thread_figures(app, window, element, args.samples)
    app.clipboard().clear()
    window.confirm_discard = lambda d: True
    window.close()


def ui_thread_figures(app, window, element, samples: int) -> None:
    """An edit, the validation after it, an autosave and typing in the Inspector, on the UI
    thread of the line dungeon."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from editor.dungeon.edits import MoveObjects

    document = window.current
    print(f"UI thread per operation on the {len(document.dungeon.elements)}-element line dungeon (aim 16 ms):")

    def nudge(i: int) -> None:
        document.push(MoveObjects(document.dungeon, [element.id], 0, 1 if i % 2 else -1))

    pushes = Timings()
    for i in range(samples):
        pushes.run(lambda i=i: nudge(i))
    print(f"edit:      {pushes.line()} to push an edit (undo command and canvas)")
    validation_figures(document, nudge, samples, "JSON Schema + every rule check")
    autosave_figures(window, nudge, samples, "canonical JSON, synced atomic write")
    window.scene.select_refs([element.id])
    app.processEvents()
    name = window.inspector.fields_by_name["name"].edit
    name.setFocus()
    text = ("Cave troll of the deep " * (1 + samples // 20))[: max(samples, 10)]
    keys = Timings()
    for c in text:
        keys.run(lambda c=c: QTest.keyClick(name, c))
    QTest.keyClick(name, Qt.Key.Key_Return)
    print(f"typing:    {keys.line()} per key in the Inspector's name field (aim 30 ms)")


def make_grid_dungeon(side: int, seed: int) -> dict:
    """A ``side`` x ``side`` grid dungeon of 5 mm rooms, half its inner edges passages, on paper
    with room below the grid for the scoring area: a sheet that prints, drawn under the canvas
    as a designer's would be (with 20 mm the canvas showed blank paper and outlines instead)."""
    rng = random.Random(seed)
    cell = 5.0
    paper = side * cell + 60
    passages = [
        {"cell": [c, r], "side": side_name}
        for r in range(side)
        for c in range(side)
        for side_name, inside in (("east", c < side - 1), ("south", r < side - 1))
        if inside and rng.random() < 0.5
    ]
    return {
        "type": "dungeon",
        "format_version": 2,
        "id": "big-grid-benchmark",
        "family": "grid",
        "ruleset": "grid-classic",
        "sheet": {
            "title": "Big grid benchmark",
            "paper": {"width_mm": paper, "height_mm": paper + 60, "margin_mm": 10},
            "reminders": [],
        },
        "grid": {
            "columns": side,
            "rows": side,
            "cell_mm": cell,
            "origin_mm": [30, 40],
            "column_labels": "numbers",
            "row_labels": "numbers",
        },
        "passages": passages,
        "entryways": [{"id": "entry-1", "cell": [0, 0], "side": "north"}],
        "features": [],
    }


def run_grid(args: argparse.Namespace, folder: Path, app) -> None:
    """Open the big grid dungeon and print the UI-thread figures of its edits."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from editor.dungeon.edits import passage_ref
    from editor.mainwindow import MainWindow
    from inkcrawl.jsonio import dumps_canonical, write_text_atomic

    side = args.grid_side
    data = make_grid_dungeon(side, args.seed)
    path = folder / "big-grid.json"
    write_text_atomic(path, dumps_canonical(data))
    window = MainWindow()
    window.headless = True  # messages to stderr: nobody is there to click
    window.resize(1400, 900)
    opened = Timings()
    with opened:
        window.open_path(path)
        app.processEvents()
    window.show()
    app.processEvents()
    document, view = window.current, window.view
    window.scene.wait_for_sheet()
    print(machine_load())
    print(f"grid:      {side} x {side} rooms, {len(data['passages'])} passages; open {opened.last()}")
    window.set_tool("grid_passage")
    view.set_zoom(4.0)
    grid = document.dungeon.grid
    centre = (grid.origin_mm[0] + grid.cell_mm * side / 2, grid.origin_mm[1] + grid.cell_mm * side / 2)
    view.centerOn(*centre)
    app.processEvents()
    viewport = view.viewport()

    def at(column: float, row: float) -> QPoint:
        return view.mapFromScene(grid.origin_mm[0] + column * grid.cell_mm, grid.origin_mm[1] + row * grid.cell_mm)

    middle = side // 2
    print(f"UI thread per operation on the {side} x {side} grid (aim 16 ms):")
    toggles = Timings()
    for i in range(args.samples):
        point = at(middle + 0.5 + i % 12, middle - 6 + i // 12)
        toggles.run(lambda p=point: QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=p))
    print(f"toggle:    {toggles.line()} for a passage clicked")
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(middle - 8, middle + 2))
    moves = Timings()
    for i in range(1, 61):
        moves.run(lambda i=i: QTest.mouseMove(viewport, at(middle - 8 + 0.25 * i, middle + 2)))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at(middle + 7, middle + 2))
    print(f"paint:     {moves.line()} per mouse move painting along a line")
    deletes, undos = Timings(), Timings()
    for _ in range(max(5, args.samples // 2)):
        document.validate_now()  # the validation after the last undo is not part of the delete
        refs = [passage_ref(p.cell, p.side) for p in document.dungeon.passages[:50]]
        window.scene.select_refs(refs)
        app.processEvents()
        steps, count = document.undo_stack.index(), len(document.dungeon.passages)
        deletes.run(window.action("delete").trigger)
        assert document.undo_stack.index() == steps + 1, "deleting 50 passages is one undo step"
        undos.run(window.action("undo").trigger)
        assert len(document.dungeon.passages) == count, "undo puts the 50 passages back"
    print(f"delete:    {deletes.line()} deleting 50 selected passages (one undo step)")
    print(f"undo:      {undos.line()} undoing that delete")

    def toggle(i: int) -> None:
        QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=at(middle + 0.5, middle + 4 + i % 4))

    validation_figures(document, toggle, args.samples, "JSON Schema + every rule check")
    autosave_figures(window, toggle, args.samples, "canonical JSON, synced atomic write")
    window.confirm_discard = lambda d: True
    window.close()


if __name__ == "__main__":
    sys.exit(main())
