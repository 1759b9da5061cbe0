"""Reading JSON files defensively and writing them byte-stable and atomically.

Reading never raises for bad content: every failure becomes a :class:`~inkcrawl.problems.Problem`
(unreadable file, empty, not UTF-8, malformed JSON with line and column, NaN/Infinity, numbers
too large, nesting too deep, file too big).

Writing is canonical: keys in the order the model gives them, two-space indentation, short
arrays of numbers on one line, floats rounded to :data:`FLOAT_DECIMALS` decimals (0.001 mm)
and whole numbers written without a decimal point, so load -> save -> load -> save gives
identical bytes. Files are written to a temporary file in the same folder, flushed, synced
and then renamed over the target, so a crash never leaves a half-written file.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from inkcrawl.problems import Problem, problem

#: Decimals kept for floats when saving (0.001 mm = 1 micrometre for sheet coordinates).
FLOAT_DECIMALS = 3
#: Largest file inkcrawl reads, in bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted; real files need fewer than 10 levels.
MAX_DEPTH = 64
#: Longest integer literal accepted (digits); larger numbers are refused, not truncated.
MAX_INT_DIGITS = 30
#: Line width under which an array of scalars is written on one line.
_INLINE_WIDTH = 100


class _BadNumber(ValueError):
    def __init__(self, literal: str, reason: str):
        super().__init__(reason)
        self.literal = literal
        self.reason = reason


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(text, f"the number {text} is too large for a double")
    return value


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _BadNumber(text, f"the integer {text[:20]}... has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _parse_constant(text: str) -> float:
    raise _BadNumber(text, f"{text} is not allowed in JSON")


def _line_column(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def parse_json_text(text: str, file: str) -> tuple[Any, list[Problem]]:
    """Parse JSON text; return ``(value, [])`` or ``(None, [problem])``. Never raises."""
    if not text.strip():
        return None, [problem("F004", "the file is empty", file)]
    try:
        value = json.loads(text, parse_float=_parse_float, parse_int=_parse_int,
                           parse_constant=_parse_constant)
    except _BadNumber as exc:
        index = max(text.find(exc.literal), 0)
        line, column = _line_column(text, index)
        return None, [problem("F005", f"{exc.reason} (line {line}, column {column})", file,
                              line=line, column=column)]
    except json.JSONDecodeError as exc:
        return None, [problem("F002", f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                              file, line=exc.lineno, column=exc.colno)]
    except RecursionError:
        return None, [problem("F006", f"the JSON is nested deeper than {MAX_DEPTH} levels", file)]
    if _depth_exceeds(value, MAX_DEPTH):
        return None, [problem("F006", f"the JSON is nested deeper than {MAX_DEPTH} levels", file)]
    return value, []


def read_json_file(path: Path, file: str | None = None) -> tuple[Any, list[Problem]]:
    """Read and parse a JSON file; return ``(value, problems)`` where value is ``None`` on failure.

    ``file`` is the name used in problems (defaults to ``str(path)``). Never raises.
    """
    file = file if file is not None else str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, [problem("F006", f"the file is {size} bytes; the limit is {MAX_FILE_BYTES}", file)]
        data = path.read_bytes()
    except FileNotFoundError:
        return None, [problem("F001", "no such file", file)]
    except IsADirectoryError:
        return None, [problem("F001", "this is a folder without pack.json, not a file", file)]
    except OSError as exc:
        return None, [problem("F001", f"cannot read the file: {exc.strerror or exc}", file)]
    if b"\x00" in data[:8192]:
        return None, [problem("F003", "the file is binary, not JSON text", file)]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = _line_column(prefix, len(prefix))
        return None, [problem("F003", f"the file is not UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
                                      f"column {column}", file, line=line, column=column)]
    return parse_json_text(text, file)


def normalise_numbers(value: Any) -> Any:
    """Return ``value`` with floats rounded to :data:`FLOAT_DECIMALS` and whole floats made ints.

    Raises ``ValueError`` for NaN or infinite floats and ``TypeError`` for non-JSON values.
    """
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value} as JSON: only finite numbers are allowed")
        rounded = round(value, FLOAT_DECIMALS)
        if rounded.is_integer():
            return int(rounded)
        return rounded
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        return {key: normalise_numbers(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalise_numbers(item) for item in value]
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _encode(value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = ",\n".join(f'{pad}  {json.dumps(key, ensure_ascii=False)}: {_encode(item, indent + 2)}'
                           for key, item in value.items())
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(_is_scalar(item) or (isinstance(item, list) and all(map(_is_scalar, item))) for item in value):
            inline = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
            if indent + len(inline) <= _INLINE_WIDTH or all(_is_scalar(item) for item in value):
                return inline
        inner = ",\n".join(f"{pad}  {_encode(item, indent + 2)}" for item in value)
        return "[\n" + inner + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def dumps_canonical(value: Any) -> str:
    """Serialise a JSON value in inkcrawl's canonical, byte-stable layout (ends with a newline)."""
    return _encode(normalise_numbers(value), 0) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: temporary file, fsync, rename.

    The target is replaced only when the whole text was written; on any error the temporary
    file is removed and the exception (``OSError``) propagates, leaving the old file intact.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp_name, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp_name, 0o666 & ~_umask())
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json_atomic(path: Path, value: Any) -> None:
    """Write a JSON value canonically (see :func:`dumps_canonical`) and atomically."""
    write_text_atomic(path, dumps_canonical(value))
