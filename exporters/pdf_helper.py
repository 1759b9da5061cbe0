"""A second process that renders part of a large PDF job, so both cores draw pages.

:func:`exporters.qt.pdf_bytes` starts one helper (``python -m exporters.pdf_helper``, a fresh
interpreter: Qt must not be forked) and hands it sheets while it renders others itself: the
helper never has more than :data:`exporters.qt.HELPER_QUEUE` sheets waiting, so the two share
the work by speed. The helper writes its pages into a PDF in memory and sends it back at the
end; the parent merges the two PDFs in page order. Nothing is written to disk here, so an
interrupted job leaves no file behind.

The helper runs in its own session (a Ctrl+C in the terminal reaches the parent only, which
stops the helper) and ignores SIGINT; it ends when its input closes. If it cannot start or
dies, the parent renders its sheets itself.

Protocol, over the helper's standard input and output (lengths little-endian):

- parent to helper: ``T`` + u32 length + title (UTF-8), once; then per sheet ``P`` + u32
  copies + f64 width mm + f64 height mm + u32 length + SVG (UTF-8); then ``F`` (finish);
- helper to parent: ``.`` per sheet rendered; at the end ``R`` + u64 length + the PDF, or
  ``E`` + u32 length + a message when a sheet's SVG cannot be parsed (then it exits).
"""

from __future__ import annotations

import os
import queue
import select
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path

_SHEET = struct.Struct("<IddI")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


class Helper:
    """The parent's side of one helper process."""

    def __init__(self, process: subprocess.Popen, title: str):
        self.process = process
        self.jobs: list[tuple[bytes, float, float, int, int]] = []  # svg, w, h, copies, first page
        self.done = 0               # sheets the helper reported rendered
        self.alive = True
        self._inbox = bytearray()
        self._outbox: queue.Queue = queue.Queue()
        encoded = title.encode("utf-8")
        self._outbox.put(b"T" + _U32.pack(len(encoded)) + encoded)
        self._sender = threading.Thread(target=self._send_loop, name="pdf-helper-send", daemon=True)
        self._sender.start()

    @classmethod
    def start(cls, title: str) -> Helper | None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parent.parent)  # where the exporters package is
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        try:
            process = subprocess.Popen([sys.executable, "-m", "exporters.pdf_helper"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, env=env, start_new_session=True)
        except (OSError, ValueError):
            return None
        return cls(process, title)

    @property
    def queued(self) -> int:
        """Sheets sent and not yet rendered."""
        return len(self.jobs) - self.done

    def send(self, page, copies: int, first_page: int) -> None:
        """Hand the helper a sheet (``page.svg``, ``page.width_mm``, ``page.height_mm``) to render
        ``copies`` times; ``first_page`` is its page number in the whole document."""
        svg = page.svg.encode("utf-8")
        self.jobs.append((svg, page.width_mm, page.height_mm, copies, first_page))
        self._outbox.put(b"P" + _SHEET.pack(copies, page.width_mm, page.height_mm, len(svg)))
        self._outbox.put(svg)

    def _send_loop(self) -> None:
        pipe = self.process.stdin
        try:
            while (item := self._outbox.get()) is not None:
                pipe.write(item)
                if self._outbox.empty():
                    pipe.flush()
            pipe.close()
        except (OSError, ValueError):  # the helper is gone (or was stopped)
            self.alive = False

    def poll(self, progress=None) -> None:
        """Take the helper's news without waiting; ``progress`` is called per page rendered."""
        if self.alive:
            self._read(progress, block=False)

    def finish(self, progress=None) -> bytes | None:
        """Wait for the helper's PDF; ``None`` when the helper failed. Raises ``ValueError``
        when one of its sheets cannot be parsed."""
        self._outbox.put(b"F")
        self._outbox.put(None)
        if not self.alive:
            return None
        return self._read(progress, block=True)

    def pages_not_reported(self) -> int:
        return sum(job[3] for job in self.jobs[self.done:])

    def _read(self, progress, block: bool) -> bytes | None:
        fd = self.process.stdout.fileno()
        while True:
            result = self._parse(progress)
            if result is not None:
                return result
            if not block and not select.select([fd], [], [], 0)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:  # the helper ended without its PDF
                self.alive = False
                return None
            self._inbox += chunk

    def _parse(self, progress) -> bytes | None:
        inbox = self._inbox
        while inbox:
            kind = inbox[:1]
            if kind == b".":
                del inbox[:1]
                copies = self.jobs[self.done][3]
                self.done += 1
                if progress:
                    for _ in range(copies):
                        progress()
            elif kind == b"R":
                if len(inbox) < 9:
                    return None
                size = _U64.unpack_from(inbox, 1)[0]
                if len(inbox) < 9 + size:
                    return None
                data = bytes(inbox[9:9 + size])
                del inbox[:9 + size]
                return data
            elif kind == b"E":
                if len(inbox) < 5:
                    return None
                size = _U32.unpack_from(inbox, 1)[0]
                if len(inbox) < 5 + size:
                    return None
                self.alive = False
                first_page = self.jobs[self.done][4]
                raise ValueError(f"the SVG of page {first_page} could not be parsed by Qt")
            else:
                self.alive = False
                raise RuntimeError(f"the PDF helper process sent {bytes(inbox[:16])!r}")
        return None

    def close(self) -> None:
        """Stop the helper (if it still runs) and release its pipes."""
        self.alive = False
        if self.process.poll() is None:
            self.process.kill()
        self._outbox.put(None)
        self._sender.join()
        self.process.wait()
        self.process.stdout.close()


# --------------------------------------------------------------------------------------------
# The helper process
# --------------------------------------------------------------------------------------------

def _read_exactly(stream, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError
    return data


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not break the protocol
    requests = sys.stdin.buffer
    from exporters.qt import PdfDocument

    try:
        if _read_exactly(requests, 1) != b"T":
            return 2
        title = _read_exactly(requests, _U32.unpack(_read_exactly(requests, 4))[0]).decode("utf-8")
        document = PdfDocument(title)
        while True:
            kind = _read_exactly(requests, 1)
            if kind == b"P":
                copies, width_mm, height_mm, size = _SHEET.unpack(_read_exactly(requests, _SHEET.size))
                try:
                    document.add(_read_exactly(requests, size), width_mm, height_mm, copies)
                except ValueError as exc:
                    message = str(exc).encode("utf-8")
                    replies.write(b"E" + _U32.pack(len(message)) + message)
                    replies.flush()
                    return 1
                replies.write(b".")
                replies.flush()
            elif kind == b"F":
                data = document.finish()
                replies.write(b"R" + _U64.pack(len(data)))
                replies.write(data)
                replies.flush()
                return 0
            else:
                return 2
    except (EOFError, BrokenPipeError):  # the parent is gone or stopped us
        return 1


if __name__ == "__main__":
    sys.exit(main())
