"""Opening dungeons for the commands that use them (export, simulate, edit...).

:func:`open_dungeons` validates the paths (the same report as ``inkcrawl validate``) and
returns each dungeon as a model with its ruleset and deck, in pack order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inkcrawl.limits import beyond_format_limits
from inkcrawl.model import Dungeon, dungeon_from_dict
from inkcrawl.rulesets import Ruleset, load_ruleset_file
from inkcrawl.validate import (
    MANIFEST_NAME,
    Report,
    RulesetRegistry,
    enclosing_pack,
    load_document,
    path_inside_pack,
    unusable_path,
    validate_paths,
)


@dataclass
class OpenedDungeon:
    """A dungeon ready to use: its file, model, ruleset and the deck of its pack (card kind ->
    count, and its name; ``None`` when the pack has no deck)."""

    file: str
    dungeon: Dungeon
    ruleset: Ruleset
    deck: dict[str, int] | None = None
    deck_name: str | None = None


@dataclass
class OpenResult:
    """The validation report of the paths and the dungeons that could be built."""

    report: Report
    dungeons: list[OpenedDungeon] = field(default_factory=list)


def _pack_members(manifest_path: Path) -> tuple[list[Path], list[Ruleset], dict | None]:
    document = load_document(manifest_path)
    manifest = document.data if isinstance(document.data, dict) else {}
    base = manifest_path.parent

    def listed(member: str) -> list:  # a member of the wrong type is reported by validation; here it lists nothing
        value = manifest.get(member)
        return value if isinstance(value, list) else []

    files = [
        p
        for p in (path_inside_pack(base, rel) for rel in listed("dungeons") if isinstance(rel, str))
        if p is not None and p.is_file()
    ]
    rulesets = []
    for relative in listed("rulesets"):
        target = path_inside_pack(base, relative) if isinstance(relative, str) else None
        ruleset = load_ruleset_file(target)[0] if target is not None and target.is_file() else None
        if ruleset is not None:
            rulesets.append(ruleset)
    decks = listed("decks") or [None]
    return files, rulesets, decks[0] if isinstance(decks[0], dict) else None


def open_dungeons(
    paths: list[str],
    built: Callable[[list[OpenedDungeon]], None] | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> OpenResult:
    """Validate ``paths`` (dungeon files, pack folders or manifests) and build every dungeon
    whose structure allows it. Never raises for bad input; see ``result.report``.

    ``built``, when given, is called with the list of dungeons (``result.dungeons``, in pack
    order) once they are built and before they are validated, so a caller can start work that
    only needs the models (the PDF export starts drawing its pages) while the rule checks run;
    whether to keep that work is the caller's choice once it has the report. The dungeons built
    do not depend on the report: those whose structure allows it are built either way.

    ``meanwhile``, when given, is work of this process that needs neither (the PDF export starts
    Qt): the rule checks then run in a forked process while this one does it
    (:func:`_validate_beside`), the same report."""
    dungeons = _build_dungeons(paths)
    if built is not None:
        built(dungeons)
    if meanwhile is None:
        return OpenResult(validate_paths(paths), dungeons)
    return OpenResult(_validate_beside(paths, meanwhile), dungeons)


def _validate_beside(paths: list[str], meanwhile: Callable[[], None]) -> Report:
    """:func:`~inkcrawl.validate.validate_paths` of ``paths`` in a forked process while this one
    runs ``meanwhile()``; in this process, after ``meanwhile()``, where no process can be forked
    (one core, Qt running, a daemonic worker) or the forked one fails. The report is the same."""
    import multiprocessing
    import pickle

    from inkcrawl.workers import default_workers, fork_is_safe

    if default_workers() < 2 or not fork_is_safe() or multiprocessing.current_process().daemon:
        meanwhile()
        return validate_paths(paths)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    # not daemonic: the checks of a big pack start worker processes of their own
    process = context.Process(target=_validate_child, args=(send, receive, paths), name="inkcrawl-validate")
    try:
        process.start()
    except Exception:  # no process to be had: the checks run here
        receive.close()
        send.close()
        meanwhile()
        return validate_paths(paths)
    send.close()
    report = None
    try:
        meanwhile()
        try:
            report = pickle.loads(receive.recv_bytes())
        except Exception:  # the process died or could not answer: the checks run here
            report = None
    finally:
        receive.close()
        if report is None and process.is_alive():
            process.terminate()
        process.join()
    return report if isinstance(report, Report) else validate_paths(paths)


def _validate_child(send, receive, paths: list[str]) -> None:
    """The forked process of :func:`_validate_beside`: the report, pickled, down the pipe."""
    import pickle
    import signal

    receive.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    try:
        send.send_bytes(pickle.dumps(validate_paths(paths), pickle.HIGHEST_PROTOCOL))
    except Exception:
        pass  # the parent checks in its own process
    finally:
        send.close()


def _build_dungeons(paths: list[str]) -> list[OpenedDungeon]:
    """Every dungeon of ``paths`` whose structure allows building its model, with its ruleset
    and deck, in pack order, each file once; not one holding a value beyond the format's limits
    (:func:`inkcrawl.limits.beyond_format_limits`), which its schema refuses and whose drawing
    would take minutes and gigabytes. Never raises for bad input."""
    dungeons: list[OpenedDungeon] = []
    opened_files: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if unusable_path(path) is not None:
            continue  # the report says why
        if path.is_dir():
            path = path / MANIFEST_NAME
        if not path.is_file():
            continue
        document = load_document(path)
        deck_name = None
        if document.file_type == "pack" and document.data is not None:
            files, rulesets, deck_definition = _pack_members(path)
            deck = deck_definition.get("cards") if deck_definition else None
            deck_name = deck_definition.get("name") if deck_definition else None
        elif document.file_type == "dungeon":
            files = [path]
            rulesets, deck = enclosing_pack(path)
        else:
            continue
        registry = RulesetRegistry(rulesets)
        for file in files:
            try:
                key = Path(file).resolve()
            except (OSError, RuntimeError):
                key = Path(file)
            if key in opened_files:
                continue  # named twice (a pack and one of its files, or the same path again)
            opened_files.add(key)
            loaded = load_document(file, str(file))
            if loaded.file_type != "dungeon" or loaded.data is None:
                continue
            if beyond_format_limits(loaded.data) is not None:
                continue  # too large to draw or play in any reasonable time: the schema's error says where
            try:
                dungeon = dungeon_from_dict(loaded.data)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                continue  # too broken to build: the report says why
            ruleset = registry.get(dungeon.ruleset) if isinstance(dungeon.ruleset, str) else None
            if ruleset is not None and ruleset.family == dungeon.family:
                dungeons.append(OpenedDungeon(str(file), dungeon, ruleset, deck, deck_name))
    return dungeons


def input_files(paths: list[str]) -> list[Path]:
    """Every file a command reads for ``paths``: the files named, and for a pack (its folder or
    its ``pack.json``) the manifest and every dungeon and ruleset it lists inside its folder
    (those that exist): what an output must never be (:func:`inkcrawl.jsonio.check_target`).
    Never raises."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            manifest = path / MANIFEST_NAME if path.is_dir() else path
            if not manifest.is_file():
                continue
            files.append(manifest)
            document = load_document(manifest)
            if document.file_type != "pack" or not isinstance(document.data, dict):
                continue
            for key in ("dungeons", "rulesets"):
                listed = document.data.get(key)
                for relative in listed if isinstance(listed, list) else []:
                    member = path_inside_pack(manifest.parent, relative) if isinstance(relative, str) else None
                    if member is not None and member.is_file():
                        files.append(member)
        except (OSError, ValueError):
            continue
    return files
