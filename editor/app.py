"""Starting the editor: ``inkcrawl edit [PATH]`` and the ``inkcrawl-editor`` program.

``--screenshot OUT.png`` opens the window offscreen, lets it paint, saves a picture of the
whole window and exits (for the docs and smoke tests; no display needed).

Once its window is open, the editor prints :data:`READY_LINE` (with its process id) on standard
output, so scripts and tests can wait for it instead of guessing how long start-up takes.
SIGTERM, or Ctrl+C in the terminal, stops it cleanly at any moment from then on and during its
start-up too: unsaved dungeons are written as recovery files, the exit status is 143 (130 for
Ctrl+C).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2

_EPILOG = """\
examples:
  inkcrawl edit                                        an empty window (File > New, or open a file)
  inkcrawl edit content/packs/lantern-depths           a whole pack, one tab per dungeon
  inkcrawl edit my-dungeon.json                        one dungeon
  inkcrawl edit my-dungeon.json --screenshot shot.png  save a picture of the window and exit

keys: V select, then one key per tool (see the Tools menu); Ctrl+Z / Ctrl+Shift+Z undo and redo;
Ctrl+C, Ctrl+V, Ctrl+D copy, paste, duplicate; Del deletes; Ctrl+S saves; wheel zooms; middle
button or Space+drag pans; Ctrl+0 fits the sheet, Ctrl+1 shows it at true size.

for scripts: once the window is open, the editor prints the line
  inkcrawl edit: ready (process PID)
on standard output (wait for it rather than sleeping). SIGTERM or Ctrl+C stops the editor at any
moment, start-up included: unsaved dungeons are kept as recovery files (offered at the next
start) and the exit status is 143 (130 for Ctrl+C).

a file that cannot be opened at all (malformed JSON, not an inkcrawl file, a newer format): the
window opens and says why; with --screenshot, its problems are printed as 'inkcrawl validate'
prints them and nothing is written. A dungeon with schema or rule errors opens, its problems
in the Problems panel.
exit codes: 0 closed (or screenshot written), 1 the file cannot be opened (malformed, as
'inkcrawl validate' exits for it), 2 usage error, a missing or unreadable path, no display;
130 Ctrl+C, 143 SIGTERM
"""

#: The start of the line printed on standard output once the window is open.
READY_LINE = "inkcrawl edit: ready"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The editor's command-line arguments (shared by ``inkcrawl edit`` and ``inkcrawl-editor``)."""
    parser.add_argument("path", nargs="?", metavar="PATH", help="a dungeon file, a pack folder or a pack.json")
    parser.add_argument(
        "--screenshot", metavar="OUT.png", help="render the window offscreen to a PNG and exit (no display needed)"
    )
    parser.add_argument(
        "--size", default="1400x900", metavar="WxH", help="window size in pixels for --screenshot (default 1400x900)"
    )


def register(subparsers) -> None:
    """Add ``edit`` to the ``inkcrawl`` command line (an ``inkcrawl.commands`` entry point)."""
    edit = subparsers.add_parser(
        "edit",
        help="open the level editor (Qt)",
        description="Open dungeons and packs in inkcrawl's editor.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(edit)
    edit.set_defaults(func=run)


def _window_size(text: str) -> tuple[int, int] | None:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        return None
    return (width, height) if 200 <= width <= 8000 and 200 <= height <= 8000 else None


def no_display_reason() -> str | None:
    """Why a window would not be seen, or ``None``: on Linux with neither ``DISPLAY`` nor
    ``WAYLAND_DISPLAY`` set and no Qt platform chosen (``QT_QPA_PLATFORM``), Qt would draw
    the window offscreen where nobody can see or close it."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display to show the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it in a "
        "desktop session (or with ssh -X), or use --screenshot OUT.png to save a picture of the window "
        "without a display"
    )


def make_application(offscreen: bool = False):
    """The process's ``QApplication`` with the shipped fonts registered (offscreen when asked,
    or when there is no display)."""
    if offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from exporters.qt import ensure_app

    app = ensure_app()
    app.setApplicationName("inkcrawl-editor")
    app.setOrganizationName("inkcrawl")
    return app


def run(args: argparse.Namespace) -> int:
    """Open the editor for parsed arguments; returns the exit code."""
    # first of all: from here on, a signal at any moment of the start-up stops the editor cleanly
    stopper = None if args.screenshot else _SignalStop()
    size = _checked_size(args)
    if size is None:
        if stopper is not None:
            stopper.uninstall()
        return EXIT_USAGE
    if stopper is None:
        return _run_screenshot(args, size)
    return _run_window(args, size, stopper)


def _checked_size(args: argparse.Namespace) -> tuple[int, int] | None:
    """The window size, or ``None`` after saying what is wrong with the arguments."""
    size = _window_size(args.size)
    if size is None:
        print(f"inkcrawl edit: --size must be WIDTHxHEIGHT in pixels (200-8000), not '{args.size}'", file=sys.stderr)
        return None
    if args.screenshot and not args.screenshot.lower().endswith(".png"):
        print("inkcrawl edit: --screenshot writes a PNG: give a file name ending in .png", file=sys.stderr)
        return None
    if args.path and not Path(args.path).exists():
        print(f"inkcrawl edit: {args.path} does not exist", file=sys.stderr)
        return None
    reason = None if args.screenshot else no_display_reason()
    if reason:
        print(f"inkcrawl edit: {reason}", file=sys.stderr)
        return None
    return size


def _run_window(args: argparse.Namespace, size: tuple[int, int], stopper: _SignalStop) -> int:
    """Start the editor's window and run it until it closes or a signal stops it."""
    app = None
    try:
        app = make_application()
        stopper.watch(app)
        stopper.checkpoint()
        from editor.mainwindow import MainWindow

        window = MainWindow()
        stopper.window = window
        window.resize(*size)
        stopper.checkpoint()
        if args.path:
            window.open_path(args.path)  # a file that cannot open says why; the window opens anyway
            stopper.checkpoint()
        window.show()
        stopper.checkpoint()
        stopper.when_running(_announce_ready)
        return app.exec()
    except _Stopped:
        return stopper.exit_code
    finally:
        if app is not None:
            release_clipboard(app)


def unopenable_file(path: str | os.PathLike) -> tuple[int, list[str]] | None:
    """For a dungeon file the editor cannot open at all (unreadable, malformed JSON, not an
    inkcrawl file, a newer format: F001-F009), ``(exit code, problem lines)``: the lines as
    ``inkcrawl validate`` prints them, and the code it exits with (2 when the file cannot be
    read, 1 otherwise). ``None`` for a file that opens (schema and rule problems are shown in
    the Problems panel) and for packs, which the window opens member by member."""
    from inkcrawl.textchars import terminal_safe
    from inkcrawl.validate import MANIFEST_NAME, load_document

    target = Path(path)
    if target.is_dir() or target.name == MANIFEST_NAME:
        return None
    document = load_document(target)
    if document.data is not None:  # it opens (a pack manifest under another name too)
        return None
    lines = [terminal_safe(f"{p.file}:{p.pointer}: error {p.code} {p.message}") for p in document.problems]
    code = EXIT_USAGE if any(p.code == "F001" for p in document.problems) else EXIT_PROBLEMS
    return code, lines


def _run_screenshot(args: argparse.Namespace, size: tuple[int, int]) -> int:
    refused = unopenable_file(args.path) if args.path else None
    if refused is not None:
        code, lines = refused
        for line in lines:
            print(line, file=sys.stderr)
        print(f"inkcrawl edit: error: {args.path} cannot be opened; no screenshot written", file=sys.stderr)
        return code
    app = make_application(offscreen=True)
    from editor.mainwindow import MainWindow

    folder = Path(args.screenshot).resolve().parent
    if not folder.is_dir():
        print(f"inkcrawl edit: cannot write {args.screenshot}: the folder {folder} does not exist", file=sys.stderr)
        return EXIT_USAGE
    window = MainWindow()
    window.headless = True  # messages to stderr: nobody is there to click
    window.resize(*size)
    if args.path and not window.open_path(args.path):
        release_clipboard(app)
        return EXIT_PROBLEMS
    return _screenshot(app, window, Path(args.screenshot))


def _announce_ready() -> None:
    """Tell whoever started the editor that its window is open (see :data:`READY_LINE`)."""
    try:
        print(f"{READY_LINE} (process {os.getpid()})", flush=True)
    except (OSError, ValueError):  # no one reads standard output any more (a closed pipe)
        pass


class _Stopped(Exception):
    """Raised at a start-up checkpoint after SIGTERM or SIGINT: leave ``run`` at once."""


class _SignalStop:
    """SIGTERM, or Ctrl+C in the terminal (SIGINT), stops the editor cleanly at any moment:
    the recovery files of modified dungeons are written (offered again at the next start;
    nothing is lost), one line says so on stderr, and the exit status is 143 (130 for Ctrl+C).

    Installed first thing in :func:`run`, before Qt loads, and it replaces the command line's
    own handler (which would end start-up with an ``interrupted`` exception, status 130). The
    handler itself only notes the signal and, when an event loop runs (the main one, or a
    dialog's during start-up), asks that loop to stop; the work happens in the loop or at the
    next start-up :meth:`checkpoint`, never in the middle of whatever the signal interrupted.
    """

    def __init__(self) -> None:
        import signal

        self.signum: int | None = None
        self.app = None
        self.window = None
        self._stopping = False
        self._ticker = None
        self._previous: dict[int, object] = {}
        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                self._previous[signum] = signal.signal(signum, self._received)
            except (ValueError, OSError):  # not the main thread (an embedding program)
                pass

    def uninstall(self) -> None:
        """Put back the handlers found (the editor did not start after all)."""
        import signal

        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    @property
    def exit_code(self) -> int:
        import signal

        return 130 if self.signum == signal.SIGINT else 143

    def watch(self, app) -> None:
        """From now on a signal also ends Qt's event loops. Python runs signal handlers only
        between bytecodes, so a timer wakes the interpreter while Qt waits for events."""
        from PySide6.QtCore import QTimer

        self.app = app
        self._ticker = QTimer(app)
        self._ticker.timeout.connect(lambda: None)
        self._ticker.start(200)

    def checkpoint(self) -> None:
        """Between start-up steps: stop now if a signal came (raises :class:`_Stopped`)."""
        if self.signum is not None:
            self._stop()
            raise _Stopped

    def when_running(self, ready) -> None:
        """Once the main event loop runs: stop if a signal came since the last checkpoint,
        otherwise call ``ready()``."""
        from PySide6.QtCore import QTimer

        def started() -> None:
            if self.signum is not None:
                self._stop()
            else:
                ready()

        QTimer.singleShot(0, started)

    def _received(self, signum, _frame) -> None:
        if self.signum is None:
            self.signum = signum
        if self.app is None or self._stopping:
            return
        from PySide6.QtCore import QThread, QTimer

        if QThread.currentThread().loopLevel() > 0:  # the main loop, or a dialog's during start-up
            QTimer.singleShot(0, self._stop)

    def _stop(self) -> None:
        import signal

        if self._stopping:
            return
        self._stopping = True
        files = self.window.files if self.window is not None else None  # None: still starting up
        if files is not None:
            try:
                files.autosave_now()
            except Exception as exc:
                print(f"inkcrawl edit: could not write recovery files: {exc}", file=sys.stderr)
        print(
            f"inkcrawl edit: stopped by {signal.Signals(self.signum).name}; unsaved dungeons are kept as "
            f"recovery files",
            file=sys.stderr,
            flush=True,
        )
        if self.app is not None:
            self.app.exit(self.exit_code)  # every running loop returns, a start-up dialog's included


def release_clipboard(app) -> None:
    """Empty the clipboard before Qt shuts down (a clipboard still holding the editor's data
    at exit crashes some platform plugins, the offscreen one included)."""
    app.clipboard().clear()


def _screenshot(app, window, out: Path) -> int:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from inkcrawl.jsonio import write_bytes_atomic

    window.show()
    for _ in range(5):
        app.processEvents()
    if window.current is not None:
        window.view.zoom_to_fit()
        window.current.validate_now()
    for _ in range(5):
        app.processEvents()
    if window.scene is not None:
        window.scene.wait_for_sheet()  # a big dungeon's sheet is drawn in the worker process
    pixmap = window.grab()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pixmap.save(buffer, "PNG")
    buffer.close()
    try:
        write_bytes_atomic(out, bytes(data))
    except OSError as exc:
        print(f"inkcrawl edit: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {out} ({pixmap.width()}x{pixmap.height()} px)")
    window.close()
    release_clipboard(app)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """The ``inkcrawl-editor`` program."""
    parser = argparse.ArgumentParser(
        prog="inkcrawl-editor",
        description="inkcrawl's level editor.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
