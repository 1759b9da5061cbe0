"""Reading JSON files defensively and writing them byte-stable and atomically.

Reading never raises for bad content: every failure becomes a :class:`~inkcrawl.problems.Problem`
(unreadable file, empty, not UTF-8, malformed JSON with line and column, NaN/Infinity, numbers
too large, nesting too deep, file too big).

Writing is canonical: keys in the order the model gives them, two-space indentation, short
arrays of numbers on one line, floats rounded to :data:`FLOAT_DECIMALS` decimals (0.001 mm)
and whole numbers written without a decimal point, so load -> save -> load -> save gives
identical bytes.

Every file inkcrawl writes goes through :func:`atomic_target` (directly, or through
:func:`write_bytes_atomic`, :func:`write_text_atomic` and :func:`write_json_atomic`): a temporary
file in the target's folder (``.NAME.inkcrawl-<pid>-<random>.tmp``), flushed, synced and renamed
over the target, so a crash never leaves a half-written file; the temporary file is removed on
any error, and those a killed earlier run left are removed by the next write of the same target.
The target is checked first (:func:`check_target`): a folder, a device, pipe or socket, or one of
the command's own inputs is refused, a read-only file too unless ``force=True``; a symlink is
written through to the file it points to and stays a link. A whole folder (a content pack) is
written by :func:`atomic_folder` the same way: made hidden beside it under the same name pattern,
then renamed into place, its stale copies removed by the next write of the same folder.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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
#: Most values (numbers, strings, arrays, objects) a JSON file inkcrawl reads may hold, counted
#: before it is parsed (:func:`json_values_bound`), so that a file of millions of tiny values is
#: refused before parsing it takes gigabytes. Real files hold a few tens of thousands. Every
#: reader of JSON text goes through :func:`parse_json_text`, which applies it.
MAX_JSON_VALUES = 5_000_000
#: Line width under which an array of scalars is written on one line.
_INLINE_WIDTH = 100


class _BadNumber(ValueError):
    def __init__(self, literal: str, reason: str):
        super().__init__(reason)
        self.literal = literal
        self.reason = reason


def _parse_float(text: str) -> float | int:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(text, f"the number {text} is too large for a double")
    # JSON has one number type: 3.0 is the integer 3 (JSON Schema's "integer" accepts it too)
    if value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _parse_constant(text: str) -> float:
    raise _BadNumber(text, f"{text} is not allowed in JSON")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_LIMIT = 10**MAX_INT_DIGITS


def _line_column(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def _find_token(text: str, literal: str) -> int:
    """Index of the first occurrence of ``literal`` outside JSON strings (0 if not found)."""
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif text.startswith(literal, index) and (index == 0 or not text[index - 1].isalnum()):
            return index
    return 0


def _scan(value: Any, check_strings: bool) -> tuple[str, str] | None:
    """Walk a parsed document once: nesting depth, integers too large, lone surrogates.

    Returns ``(code, detail)`` for the first defect found, else ``None``.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return "F006", ""
        if type(item) is dict:
            if check_strings and any(_LONE_SURROGATE.search(key) for key in item):
                return "F002", ""
            children = item.values()
        else:
            children = item
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif kind is int and not -_INT_LIMIT < child < _INT_LIMIT:
                return "F005", str(child)
            elif check_strings and kind is str and _LONE_SURROGATE.search(child):
                return "F002", ""
    return None


def json_values_bound(text: str | bytes) -> int:
    """An upper bound of the values (numbers, strings, arrays, objects) the JSON text holds,
    counted without parsing it: its commas plus its opening brackets (every value but the first
    of an array or object follows a comma). Commas inside strings count too, so the bound is never
    below the true count. Linear in the length of ``text``."""
    if isinstance(text, bytes):
        return text.count(b",") + text.count(b"[") + text.count(b"{")
    return text.count(",") + text.count("[") + text.count("{")


def too_many_values_problem(
    text: str | bytes, file: str, limit: int = MAX_JSON_VALUES, note: str = ""
) -> Problem | None:
    """F006 naming ``file`` when the JSON text holds more than ``limit`` values
    (:func:`json_values_bound`), else ``None``; ``note`` is added to the message. A text shorter
    than ``limit`` characters cannot hold more and is not counted. Never raises."""
    if len(text) <= limit:
        return None
    return value_count_problem(json_values_bound(text), file, limit, note)


def value_count_problem(count: int, file: str, limit: int = MAX_JSON_VALUES, note: str = "") -> Problem | None:
    """F006 naming ``file`` when ``count`` (values counted by :func:`json_values_bound`) is over
    ``limit``, else ``None``: the one message every reader gives for a file of too many values."""
    if count <= limit:
        return None
    return problem(
        "F006",
        f"the file holds about {count:,} values (numbers, strings, arrays, objects), more than the {limit:,} "
        f"inkcrawl reads{note}; it was not parsed",
        file,
    )


def parse_json_text(text: str, file: str) -> tuple[Any, list[Problem]]:
    """Parse JSON text; return ``(value, [])`` or ``(None, [problem])``. Never raises.

    A document that is just ``null`` parses to ``(None, [])``: check the problems, not the value.
    Text of more than :data:`MAX_JSON_VALUES` values is refused (F006, naming ``file``) before it
    is parsed, so every reader of JSON is bounded (docs/formats.md, "Limits").
    """
    if not text.strip():
        return None, [problem("F004", "the file is empty", file)]
    refused = too_many_values_problem(text, file)
    if refused is not None:
        return None, [refused]
    try:
        value = json.loads(text, parse_float=_parse_float, parse_constant=_parse_constant)
    except _BadNumber as exc:
        return None, [_number_problem(text, exc.literal, exc.reason, file)]
    except json.JSONDecodeError as exc:
        return None, [_syntax_problem(text, exc, file)]
    except RecursionError:
        return None, [problem("F006", f"the JSON is nested deeper than {MAX_DEPTH} levels", file)]
    except ValueError as exc:  # an integer literal beyond Python's digit limit
        match = re.search(rf"-?\d{{{MAX_INT_DIGITS + 1},}}", text)
        literal = match.group(0) if match else ""
        return None, [
            _number_problem(text, literal, f"an integer has more than {MAX_INT_DIGITS} digits ({exc})"[:200], file)
        ]
    if isinstance(value, (dict, list)):
        escape = _SURROGATE_ESCAPE.search(text)
        defect = _scan(value, check_strings=escape is not None)
        if defect:
            code, detail = defect
            if code == "F006":
                return None, [problem("F006", f"the JSON is nested deeper than {MAX_DEPTH} levels", file)]
            if code == "F005":
                return None, [
                    _number_problem(
                        text, detail, f"the integer {detail[:20]}... has more than {MAX_INT_DIGITS} digits", file
                    )
                ]
            # the only other defect is a lone surrogate, looked for only when ``escape`` matched
            index = escape.start() if escape is not None else 0
            line, column = _line_column(text, index)
            return None, [
                problem(
                    "F002",
                    f"invalid JSON: a string holds an unpaired UTF-16 surrogate escape (line {line}, column {column})",
                    file,
                    line=line,
                    column=column,
                )
            ]
    elif isinstance(value, str) and _LONE_SURROGATE.search(value):
        return None, [problem("F002", "invalid JSON: the string holds an unpaired UTF-16 surrogate escape", file)]
    return value, []


def _syntax_problem(text: str, exc: json.JSONDecodeError, file: str) -> Problem:
    """F002 for a JSON syntax error; a trailing comma (the commonest hand-editing slip) is
    named as such, at the comma rather than at the bracket after it."""
    before = text[: exc.pos].rstrip()
    if before.endswith(",") and exc.pos < len(text) and text[exc.pos] in "}]":
        line, column = _line_column(text, len(before) - 1)
        closing = "object" if text[exc.pos] == "}" else "array"
        return problem(
            "F002",
            f"invalid JSON: a comma after the last item of an {closing} (line {line}, column {column}); remove it",
            file,
            line=line,
            column=column,
        )
    return problem(
        "F002",
        f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
        file,
        line=exc.lineno,
        column=exc.colno,
    )


def _number_problem(text: str, literal: str, reason: str, file: str) -> Problem:
    line, column = _line_column(text, _find_token(text, literal) if literal else 0)
    return problem("F005", f"{reason} (line {line}, column {column})", file, line=line, column=column)


def read_json_file(path: Path, file: str | None = None) -> tuple[Any, list[Problem]]:
    """Read and parse a JSON file; return ``(value, problems)`` where value is ``None`` on failure.

    ``file`` is the name used in problems (defaults to ``str(path)``). Never raises. Bounded: a
    file over :data:`MAX_FILE_BYTES` bytes is not read and one of more than :data:`MAX_JSON_VALUES`
    values is not parsed (F006, by :func:`parse_json_text`).
    """
    file = file if file is not None else str(path)
    try:
        if path.is_dir():
            return None, [problem("F001", "this is a folder without pack.json, not a file", file)]
        if not path.exists():
            return None, [problem("F001", "no such file", file)]
        if not path.is_file():
            return None, [problem("F001", "not a regular file (a device, pipe or socket)", file)]
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            return None, [problem("F006", f"the file is larger than the limit of {MAX_FILE_BYTES} bytes", file)]
    except OSError as exc:
        return None, [problem("F001", f"cannot read the file: {exc.strerror or exc}", file)]
    if b"\x00" in data[:8192]:
        return None, [problem("F003", "the file is binary, not JSON text", file)]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = _line_column(prefix, len(prefix))
        return None, [
            problem(
                "F003",
                f"the file is not UTF-8: byte 0x{data[exc.start]:02x} at line {line}, column {column}",
                file,
                line=line,
                column=column,
            )
        ]
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
        inner = ",\n".join(
            f"{pad}  {json.dumps(key, ensure_ascii=False)}: {_encode(item, indent + 2)}" for key, item in value.items()
        )
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


class WriteRefused(OSError):
    """A write refused before anything was written, for a reason that retrying will not fix.

    ``reason`` says which: ``"read-only"`` (the file has no write permission; ``force=True``
    replaces it anyway), ``"special"`` (a device, pipe or socket: never written, even with
    ``force``), ``"folder"`` (the path is a folder), ``"input"`` (the path is one of the files
    the command reads), ``"no-folder"`` (the folder it would go in does not exist:
    :func:`inkcrawl.cli.common.check_output_file`) or ``"name"`` (a NUL character in the name).
    ``strerror`` is a sentence without the file's name (callers name it) and ``filename`` the
    path asked for."""

    def __init__(self, path: str | os.PathLike, reason: str, message: str):
        code = {"folder": errno.EISDIR, "no-folder": errno.ENOENT}.get(reason, errno.EPERM)
        super().__init__(code, message, os.fspath(path))
        self.reason = reason


#: The time this process started writing files, as far as it can tell (its import of this module):
#: a temporary file of a writer that is no longer running and older than this is stale.
_STARTED = time.time()
#: The longest part of a target's name kept in its temporary file's name (file names are limited
#: to 255 bytes, and the temporary name adds about 40).
_TEMP_NAME_PART = 100


def _temp_prefix(name: str) -> str:
    """The start of the temporary file names for a target called ``name``: the pattern is
    ``.NAME.inkcrawl-<pid>-<random>.tmp`` (NAME shortened to :data:`_TEMP_NAME_PART` characters)."""
    return f".{name[:_TEMP_NAME_PART]}.inkcrawl-"


def _pid_running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError, OSError):
        return True  # it exists (another user's), or we cannot tell: keep its file
    return True


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove the temporary files a killed earlier write of ``path`` left beside it, and the
    hidden folders a killed earlier :func:`atomic_folder` of ``path`` left (with what they hold);
    returns them.

    Only files and folders named as :func:`atomic_target` and :func:`atomic_folder` name their own
    (``.NAME.inkcrawl-<pid>-<random>.tmp``) are candidates, and only those whose writing process
    is no longer running and that were last changed before this process started. Never raises."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    prefix = _temp_prefix(target.name)
    pattern = re.compile(re.escape(prefix) + r"(\d+)-[A-Za-z0-9_]+\.tmp")
    removed: list[Path] = []
    try:
        with os.scandir(directory) as entries:
            candidates = [entry for entry in entries if entry.name.startswith(prefix)]
    except (OSError, ValueError):
        return removed
    for entry in candidates:
        match = pattern.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            folder = stat.S_ISDIR(info.st_mode)
            if not (folder or stat.S_ISREG(info.st_mode)) or info.st_mtime >= _STARTED:
                continue
            if _pid_running(int(match.group(1))):
                continue
            if folder:  # a hidden folder of :func:`atomic_folder`; its links are removed, not followed
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except (OSError, ValueError):
            continue
        removed.append(Path(entry.path))
    return removed


def _same_file(target: Path, target_stat: os.stat_result | None, other: str | os.PathLike) -> bool:
    try:
        if target_stat is not None:
            other_stat = os.stat(other)
            return (other_stat.st_dev, other_stat.st_ino) == (target_stat.st_dev, target_stat.st_ino)
        return Path(os.path.realpath(other)) == target
    except (OSError, ValueError):
        return False


def check_target(path: str | os.PathLike, force: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """The file a write of ``path`` replaces, after checking it may be written; raises
    :class:`WriteRefused` (an ``OSError``) otherwise, and ``OSError`` when it cannot be looked at.

    A symlink is written through: the result is the file it points to (resolved), so the link
    stays a link and everything else sharing that file sees the new content. Refused: a folder;
    a device, pipe or socket (even with ``force``); a read-only file (no write permission bits,
    or not writable by this user) unless ``force``; one of ``inputs`` (the same file, or the
    same resolved path when it does not exist yet), whatever ``force`` says."""
    asked = Path(path)
    if "\x00" in os.fspath(asked):
        raise WriteRefused(asked, "name", "the file name holds a NUL character")
    target = Path(os.path.realpath(asked))
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise WriteRefused(asked, "folder", "this is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise WriteRefused(
                asked,
                "special",
                "this is a device, pipe or socket, not a regular file; inkcrawl only writes regular files",
            )
    for other in inputs:
        if _same_file(target, info, other):
            raise WriteRefused(
                asked, "input", "this is one of the files the command reads; write the output to another file"
            )
    if info is not None and not force and (not info.st_mode & 0o222 or not os.access(target, os.W_OK)):
        raise WriteRefused(asked, "read-only", "the file is read-only and was left as it is")
    return target


def write_text_atomic(path: Path, text: str, force: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically; see :func:`write_bytes_atomic`."""
    write_bytes_atomic(path, text.encode("utf-8"), force, inputs)


def write_bytes_atomic(path: Path, data: bytes, force: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``data`` to ``path`` atomically: temporary file in the same folder, fsync, rename.

    The target is replaced only when everything was written; on any error the temporary file
    is removed and the exception (``OSError``) propagates, leaving the old file intact. The
    target is checked first (:func:`check_target`: ``force`` and ``inputs``)."""
    with atomic_target(Path(path), force, inputs) as tmp_name:
        with open(tmp_name, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())


@contextmanager
def atomic_target(path: Path, force: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> Iterator[str]:
    """Context manager yielding a temporary file name beside ``path``; when the block ends
    without an exception the temporary file replaces ``path`` (keeping its permissions and, where
    allowed, its owner), otherwise it is removed. For writers that need a file name (such as a
    PDF writer); every writer of inkcrawl goes through here.

    Before anything is written the target is checked (:func:`check_target`, which raises
    :class:`WriteRefused`: a folder, a special file, one of ``inputs``, a read-only file unless
    ``force``); a symlink is written through to the file it points to. Temporary files are named
    ``.NAME.inkcrawl-<pid>-<random>.tmp`` in the target's folder, and those a killed earlier
    write left are removed first (:func:`remove_stale_temporaries`)."""
    target = check_target(path, force, inputs)
    directory = target.parent
    remove_stale_temporaries(target)
    fd, tmp_name = tempfile.mkstemp(prefix=f"{_temp_prefix(target.name)}{os.getpid()}-", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        yield tmp_name
        try:
            info: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            info = None
        if info is not None:
            os.chmod(tmp_name, info.st_mode & 0o777)
            if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.chown(tmp_name, info.st_uid, info.st_gid)
                except OSError:
                    pass  # not allowed: the new file is ours
        else:
            os.chmod(tmp_name, 0o666 & ~_umask())
        os.replace(tmp_name, target)
        _sync_folder(directory)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise


@contextmanager
def atomic_folder(path: Path) -> Iterator[Path]:
    """Context manager yielding a new, empty hidden folder beside the folder ``path`` to fill;
    when the block ends without an exception it is renamed to ``path``, so the whole folder
    appears at once (a content pack: its manifest never without its dungeons), otherwise it is
    removed with everything in it (also on Ctrl+C or SIGTERM).

    ``path`` should not exist (on POSIX an empty folder is replaced by the rename, and its
    permissions kept; anything else makes the rename fail). The hidden folder is named like the
    temporary files of :func:`atomic_target` (``.NAME.inkcrawl-<pid>-<random>.tmp``, in the same
    parent folder, so the rename stays on one file system), and those a killed earlier run left
    are removed first (:func:`remove_stale_temporaries`). Raises ``OSError`` when the folder
    cannot be made or renamed (the caller names the folder)."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    remove_stale_temporaries(target)
    building = Path(tempfile.mkdtemp(prefix=f"{_temp_prefix(target.name)}{os.getpid()}-", suffix=".tmp", dir=parent))
    try:
        yield building
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o777 & ~_umask()
        os.chmod(building, mode)
        os.rename(building, target)  # the whole folder appears at once, or nothing
        _sync_folder(parent)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


def _sync_folder(directory: Path) -> None:
    """Make the rename durable (POSIX); best effort."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json_atomic(path: Path, value: Any, force: bool = False, inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write a JSON value canonically (see :func:`dumps_canonical`) and atomically."""
    write_text_atomic(path, dumps_canonical(value), force, inputs)
