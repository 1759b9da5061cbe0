"""Starting the editor: ``inkcrawl edit [PATH]`` and the ``inkcrawl-editor`` program.

``--screenshot OUT.png`` opens the window offscreen, lets it paint, saves a picture of the
whole window and exits (for the docs and smoke tests; no display needed).
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
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The editor's command-line arguments (shared by ``inkcrawl edit`` and ``inkcrawl-editor``)."""
    parser.add_argument("path", nargs="?", metavar="PATH", help="a dungeon file, a pack folder or a pack.json")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="render the window offscreen to a PNG and exit (no display needed)")
    parser.add_argument("--size", default="1400x900", metavar="WxH",
                        help="window size in pixels for --screenshot (default 1400x900)")


def register(subparsers) -> None:
    """Add ``edit`` to the ``inkcrawl`` command line (an ``inkcrawl.commands`` entry point)."""
    edit = subparsers.add_parser("edit", help="open the level editor (Qt)",
                                 description="Open dungeons and packs in inkcrawl's editor.", epilog=_EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
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
    return ("no display to show the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it in a "
            "desktop session (or with ssh -X), or use --screenshot OUT.png to save a picture of the window "
            "without a display")


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
    size = _window_size(args.size)
    if size is None:
        print(f"inkcrawl edit: --size must be WIDTHxHEIGHT in pixels (200-8000), not '{args.size}'", file=sys.stderr)
        return EXIT_USAGE
    if args.screenshot and not args.screenshot.lower().endswith(".png"):
        print("inkcrawl edit: --screenshot writes a PNG: give a file name ending in .png", file=sys.stderr)
        return EXIT_USAGE
    if args.path and not Path(args.path).exists():
        print(f"inkcrawl edit: {args.path} does not exist", file=sys.stderr)
        return EXIT_USAGE
    reason = None if args.screenshot else no_display_reason()
    if reason:
        print(f"inkcrawl edit: {reason}", file=sys.stderr)
        return EXIT_USAGE
    app = make_application(offscreen=bool(args.screenshot))
    from editor.mainwindow import MainWindow

    if args.screenshot:
        folder = Path(args.screenshot).resolve().parent
        if not folder.is_dir():
            print(f"inkcrawl edit: cannot write {args.screenshot}: the folder {folder} does not exist",
                  file=sys.stderr)
            return EXIT_USAGE
    window = MainWindow()
    window.headless = bool(args.screenshot)  # messages to stderr: nobody is there to click
    window.resize(*size)
    if args.path and not window.open_path(args.path) and args.screenshot:
        release_clipboard(app)
        return EXIT_PROBLEMS
    if args.screenshot:
        return _screenshot(app, window, Path(args.screenshot))
    window.show()
    _quit_on_signals(app, window)
    try:
        return app.exec()
    finally:
        release_clipboard(app)


def _quit_on_signals(app, window) -> None:
    """On SIGTERM or Ctrl+C in the terminal: write the recovery files of modified dungeons, then
    leave the event loop (they are offered again at the next start; nothing is lost)."""
    import signal

    from PySide6.QtCore import QTimer

    def stop(signum, _frame) -> None:
        files = getattr(window, "files", None)
        if files is not None:
            try:
                files.autosave_now()
            except Exception as exc:  # noqa: BLE001 - quitting must not fail
                print(f"inkcrawl edit: could not write recovery files: {exc}", file=sys.stderr)
        print(f"inkcrawl edit: stopped by {signal.Signals(signum).name}; unsaved dungeons are kept as recovery "
              f"files", file=sys.stderr)
        app.exit(130 if signum == signal.SIGINT else 143)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    # Python runs signal handlers only between bytecodes: wake the interpreter now and then
    ticker = QTimer(window)
    ticker.timeout.connect(lambda: None)
    ticker.start(250)


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
    parser = argparse.ArgumentParser(prog="inkcrawl-editor", description="inkcrawl's level editor.",
                                     epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
