"""Validation of files and content packs: stage 1 JSON Schema, stage 2 rule checks, one report.

Entry point: :func:`validate_paths` takes dungeon files, ruleset files, pack manifests or pack
folders and returns a :class:`Report` with every problem found (not only the first).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from inkcrawl.checks import check_dungeon
from inkcrawl.checks.common import text_problems
from inkcrawl.checks.grid import deck_problems
from inkcrawl.explain import explain_schema_problems
from inkcrawl.jsonio import MAX_FILE_BYTES, MAX_JSON_VALUES, json_values_bound, read_json_file, value_count_problem
from inkcrawl.migrate import FormatVersionError, migrate
from inkcrawl.model import Dungeon, dungeon_from_dict
from inkcrawl.pathnames import existing_variant
from inkcrawl.problems import Problem, Severity, problem
from inkcrawl.rulesets import Ruleset, bundled_rulesets, load_ruleset_file, ruleset_consistency_problems
from inkcrawl.schema import FILE_TYPES, load_schema, schema_problems, schema_validator
from inkcrawl.suggest import expected
from inkcrawl.textchars import document_text_problems, owner_name

#: Name of the manifest file at the root of a content pack folder.
MANIFEST_NAME = "pack.json"
#: The largest card back image a deck may name, in bytes (a 300 dpi poker card is well under 5 MB).
MAX_BACK_IMAGE_BYTES = 32 * 1024 * 1024
#: The first bytes of the card back images a deck may name, and their media types.
BACK_IMAGE_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}


def back_image_type(path: Path) -> tuple[str | None, str]:
    """``(media type, "")`` of a deck's back image file, or ``(None, reason)`` when it cannot be
    read, is larger than :data:`MAX_BACK_IMAGE_BYTES` or is neither PNG nor JPEG by its first
    bytes (P007). Never raises."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as stream:
            start = stream.read(8)
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    if size > MAX_BACK_IMAGE_BYTES:
        return None, f"is larger than {MAX_BACK_IMAGE_BYTES // (1024 * 1024)} MB"
    kind = next((kind for magic, kind in BACK_IMAGE_TYPES.items() if start.startswith(magic)), None)
    return (kind, "") if kind is not None else (None, "is neither a PNG nor a JPEG image")


#: Most problems reported for one file; the rest are counted in a last "and N more" problem.
MAX_PROBLEMS_PER_FILE = 200

# List items whose schema errors leave the rest of the file checkable (see _prune_pointers).
_COLLECTIONS = (
    "/passages/",
    "/entryways/",
    "/features/",
    "/areas/",
    "/walls/",
    "/elements/",
    "/sheet/end_triggers/",
    "/sheet/reminders/",
    "/sheet/orb_tokens/",
)


#: Checks about the dungeon as a whole (counts, pairs, reachability): skipped while some of its
#: objects have schema errors, since those objects are left out of the rule checks.
WHOLE_DUNGEON_CODES = frozenset(
    {
        "G001",
        "G002",
        "G003",
        "G007",
        "G010",
        "G011",
        "G012",
        "L009",
        "L010",
        "L012",
        "L013",
        "L014",
        "L015",
        "L017",
        "L018",
        "L019",
        "L020",
        "L023",
        "L025",
    }
)


@dataclass(frozen=True)
class UnlistedProblems(Problem):
    """S003, the last problem of a file with more than :data:`MAX_PROBLEMS_PER_FILE`: how many
    more errors and warnings it has that are not listed (counted in the report's totals)."""

    hidden_errors: int = 0
    hidden_warnings: int = 0


@dataclass
class Report:
    """The outcome of validating some paths.

    ``problems`` in the order found; ``files`` the files read; ``dungeons`` how many dungeons
    were checked; ``unreadable_input`` is true when an input path could not be opened at all.
    """

    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    dungeons: int = 0
    unreadable_input: bool = False

    @property
    def errors(self) -> int:
        """How many problems are errors (with those counted but not listed: :class:`UnlistedProblems`)."""
        return sum(
            p.hidden_errors if isinstance(p, UnlistedProblems) else p.severity is Severity.ERROR for p in self.problems
        )

    @property
    def warnings(self) -> int:
        """How many problems are warnings (with those counted but not listed)."""
        return sum(
            p.hidden_warnings if isinstance(p, UnlistedProblems) else p.severity is Severity.WARNING
            for p in self.problems
        )

    def exit_code(self, strict: bool = False) -> int:
        """0 without errors (and without warnings when ``strict``), 1 with them, 2 when an input
        path could not be read."""
        if self.unreadable_input:
            return 2
        if self.errors or (strict and self.warnings):
            return 1
        return 0


_JSON_TYPE_NAMES = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


@dataclass
class LoadedDocument:
    """A parsed file: ``data`` migrated to the current format (``None`` when unusable)."""

    file: str
    data: Any
    file_type: str | None
    problems: list[Problem]
    migrated_from: int | None = None


def json_value_count(path: Path, limit: int = MAX_JSON_VALUES) -> int | None:
    """An upper bound of the values the JSON file ``path`` holds (its commas plus its opening
    brackets: every value but the first of an array or object follows a comma), counted
    without parsing it; ``None`` when it cannot be read or cannot hold more than ``limit``
    values (smaller than ``limit`` bytes; a file too large to read is refused by the reader).
    Commas inside strings count too: the bound is never below the true count. Never raises."""
    try:
        if not path.is_file() or path.stat().st_size <= limit:
            return None
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError):
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    return json_values_bound(data)


def too_many_values(path: Path, file: str, limit: int = MAX_JSON_VALUES, note: str = "") -> Problem | None:
    """F006 when the JSON file ``path`` holds more than ``limit`` values (:func:`json_value_count`),
    before it is parsed; ``None`` otherwise. ``note`` is added to the message. Never raises."""
    count = json_value_count(path, limit)
    if count is None:
        return None
    return value_count_problem(count, file, limit, note)


def load_document(path: Path, file: str | None = None) -> LoadedDocument:
    """Read a JSON file, find its type (``dungeon``, ``pack``, ``ruleset``) and migrate it.

    Never raises: failures are problems (F001-F009) and leave ``data`` as ``None``; a file of
    more than :data:`MAX_JSON_VALUES` values is refused (F006) before it is parsed.
    """
    file = file if file is not None else str(path)
    data, problems = read_json_file(path, file)  # (a file of too many values is refused before parsing)
    if problems:
        return LoadedDocument(file, None, None, problems)
    file_type = data.get("type") if isinstance(data, dict) else None
    if file_type not in FILE_TYPES:
        if isinstance(data, dict):
            found = (
                f'"type": {json.dumps(data.get("type"), ensure_ascii=False)[:60]}'
                if "type" in data
                else 'an object without "type"'
            )
        else:
            found = f"a JSON {_JSON_TYPE_NAMES.get(type(data), 'value')} at the top level"
        return LoadedDocument(
            file,
            None,
            None,
            [
                problem(
                    "F008",
                    f'not an inkcrawl file: expected an object with "type": "dungeon", "pack" or "ruleset", '
                    f"found {found}",
                    file,
                    "/type" if isinstance(data, dict) and "type" in data else "",
                )
            ],
        )
    try:
        data, original = migrate(data, file_type)
    except FormatVersionError as exc:
        return LoadedDocument(file, None, file_type, [problem(exc.code, str(exc), file, "/format_version")])
    notes = []
    if original is not None:
        notes.append(
            problem(
                "F010",
                f"format_version {original} is older than the current {data['format_version']}; "
                f"it was migrated in memory; 'inkcrawl migrate {file}' updates the file",
                file,
                "/format_version",
            )
        )
    return LoadedDocument(file, data, file_type, notes, original)


def _prune_pointers(problems: list[Problem]) -> tuple[frozenset[str], bool]:
    """From schema problems, the list items to leave out of rule checks, and whether the
    structure outside such items is broken (then rule checks are skipped)."""
    skip = set()
    broken = False
    for item in problems:
        pointer = item.pointer
        for prefix in _COLLECTIONS:
            if pointer.startswith(prefix):
                index = pointer[len(prefix) :].split("/", 1)[0]
                skip.add(prefix + index)
                break
        else:
            broken = True
    return frozenset(skip), broken


#: The dungeon's lists of objects, each item checked on its own against this definition of the
#: dungeon schema (``#/$defs/...``) by :func:`dungeon_schema_problems`.
_ITEM_DEFINITIONS = {
    "areas": "area",
    "elements": "element",
    "entryways": "entryway",
    "features": "feature",
    "passages": "passage",
    "walls": "wall",
}


def _pointer_key(item: Problem) -> list:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in item.pointer.split("/")]


def _family_lists(family: Any) -> dict[str, dict]:
    """The list members the dungeon schema allows for ``family`` (their maxItems and items)."""
    for branch in load_schema("dungeon").get("allOf", []):
        if branch["if"]["properties"]["family"].get("const") == family:
            return {k: v for k, v in branch["then"]["properties"].items() if isinstance(v, dict) and "items" in v}
    return {}


def dungeon_schema_problems(
    data: Any, file: str, limit: int = MAX_PROBLEMS_PER_FILE
) -> tuple[list[Problem], frozenset[str], int]:
    """Schema problems of a dungeon document (S001, sorted by pointer), bounded in time and memory
    however broken the file is: ``(problems, items, unlisted)``.

    The document is checked without its lists of objects, then each list: one longer than the
    schema allows is one problem (its items are not checked); otherwise each item is checked on
    its own, and once ``limit`` problems are listed the others only count (``unlisted``: items
    with errors not listed). ``items`` is the pointer of every item with errors, listed or not."""
    validator = schema_validator("dungeon")
    if validator.is_valid(data):
        return [], frozenset(), 0
    lists = (
        {k: v for k, v in data.items() if k in _ITEM_DEFINITIONS and isinstance(v, list)}
        if isinstance(data, dict)
        else {}
    )
    problems = schema_problems({**data, **{k: [] for k in lists}} if lists else data, "dungeon", file)
    allowed = _family_lists(data.get("family")) if lists else {}
    invalid: set[str] = set()
    unlisted = 0
    for key in sorted(lists):
        items, spec = lists[key], allowed.get(key)
        if spec is None:
            continue  # not a member of this family (reported above), or the family is unknown
        maximum = spec.get("maxItems")
        if isinstance(maximum, int) and len(items) > maximum:
            problems.append(
                problem(
                    "S001",
                    f"{len(items):,} items, more than the {maximum:,} allowed; the items were not checked",
                    file,
                    f"/{key}",
                )
            )
            continue
        item_validator = schema_validator("dungeon", _ITEM_DEFINITIONS[key])
        for index, item in enumerate(items):
            if item_validator.is_valid(item):
                continue
            pointer = f"/{key}/{index}"
            invalid.add(pointer)
            if len(problems) >= limit:
                unlisted += 1
                continue
            for found in schema_problems(item, "dungeon", file, definition=_ITEM_DEFINITIONS[key]):
                problems.append(problem("S001", found.message, file, pointer + found.pointer))
    problems.sort(key=_pointer_key)
    return problems, frozenset(invalid), unlisted


def capped_problems(
    problems: list[Problem], file: str, unlisted: int = 0, limit: int = MAX_PROBLEMS_PER_FILE
) -> list[Problem]:
    """``problems`` of one file, at most ``limit`` of them listed (the S002 notes always): the rest
    (and ``unlisted`` objects with schema errors, one error each at least) are counted in a last
    S003 problem (:class:`UnlistedProblems`, an error when any of them is one)."""
    if len(problems) <= limit and not unlisted:
        return problems
    notes = [p for p in problems if p.code == "S002"]  # why rule checks were skipped: always listed
    others = [p for p in problems if p.code != "S002"]
    listed, hidden = others[: limit - len(notes)], others[limit - len(notes) :]
    errors = sum(p.severity is Severity.ERROR for p in hidden) + unlisted
    warnings = len(hidden) + unlisted - errors

    def count(n: int, word: str) -> str:
        return f"{n:,} {word}{'' if n == 1 else 's'}"

    message = (
        f"and {count(len(hidden) + unlisted, 'more problem')} not listed ({count(errors, 'error')}, "
        f"{count(warnings, 'warning')}"
        + (f", counting one for each of {count(unlisted, 'more object')} with schema errors" if unlisted else "")
        + f"): only the first {limit} problems of a file are listed"
    )
    severity = Severity.ERROR if errors else Severity.WARNING
    return [
        *listed,
        *notes,
        UnlistedProblems("S003", message, file, "", severity, hidden_errors=errors, hidden_warnings=warnings),
    ]


class RulesetRegistry:
    """Rulesets by id: the bundled ones plus those a pack ships."""

    def __init__(self, extra: Iterable[Ruleset] = ()):
        self._rulesets = dict(bundled_rulesets())
        for ruleset in extra:
            self._rulesets[ruleset.id] = ruleset

    def get(self, ruleset_id: str) -> Ruleset | None:
        """The ruleset with this id, or ``None``."""
        return self._rulesets.get(ruleset_id)

    def ids(self) -> list[str]:
        """Every known ruleset id, sorted."""
        return sorted(self._rulesets)


def check_dungeon_data(
    data: dict, file: str, registry: RulesetRegistry, deck: dict[str, int] | None = None
) -> tuple[list[Problem], Dungeon | None]:
    """Validate one dungeon document (already migrated): schema, then rule checks (C007 on the
    document's texts first, so they are checked even when the ruleset is unknown).

    Returns ``(problems, dungeon)``; ``dungeon`` is ``None`` when the structure is too broken
    to build the model.
    """
    problems, invalid_items, unlisted = dungeon_schema_problems(data, file)
    skip, broken = _prune_pointers(problems)
    named_ruleset = data.get("ruleset") if isinstance(data, dict) else None
    problems = explain_schema_problems(
        problems, data, registry.get(named_ruleset) if isinstance(named_ruleset, str) else None, file
    )
    skip |= invalid_items
    if broken:
        problems.append(problem("S002", "rule checks skipped: fix the structure errors above first", file))
        return capped_problems(problems, file, unlisted), None
    problems += text_problems(data, file)
    try:
        dungeon = dungeon_from_dict(data, skip)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        problems.append(problem("S002", f"rule checks skipped: the model could not be built ({exc})", file))
        return capped_problems(problems, file, unlisted), None
    ruleset = registry.get(dungeon.ruleset)
    if ruleset is None:
        problems.append(
            problem(
                "C002",
                f"ruleset '{dungeon.ruleset}' is not known ({expected(dungeon.ruleset, registry.ids())})",
                file,
                "/ruleset",
            )
        )
        return capped_problems(problems, file, unlisted), dungeon
    rule_problems = check_dungeon(dungeon, ruleset, file, deck)
    if skip:
        # Objects left out for schema errors would make whole-dungeon checks report false problems.
        rule_problems = [p for p in rule_problems if p.code not in WHOLE_DUNGEON_CODES]
        problems.append(
            problem(
                "S002",
                f"{len(skip)} object(s) with schema errors were left out of the rule checks; "
                f"counts, pairs and reachability are checked once they are fixed",
                file,
            )
        )
    return capped_problems(problems + rule_problems, file, unlisted), dungeon


def path_inside_pack(base: Path, relative: str) -> Path | None:
    """Resolve a manifest path; ``None`` when it is absolute or leads outside ``base``."""
    return _resolve_in_pack(base, relative)[0]


def _resolve_in_pack(base: Path, relative: str) -> tuple[Path | None, str]:
    """Resolve a path a manifest names: ``(path, "")``, or ``(None, why it is refused)``. A name
    in one Unicode normal form finds the file the disk stores in the other (NFC/NFD,
    :func:`inkcrawl.pathnames.existing_variant`)."""
    pure = PurePosixPath(relative)
    if pure.is_absolute() or relative.startswith("\\") or (len(relative) > 1 and relative[1] == ":"):
        return None, "is an absolute path; packs may only name files inside their folder"
    if "\x00" in relative:
        return None, "holds a NUL character, which no file name can"
    # a name written composed (NFC) finds the file a disk stores decomposed (NFD), and the reverse
    target = existing_variant(base / Path(*pure.parts))
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError, ValueError):
        return None, "cannot be resolved (a symlink loop?)"
    try:
        os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        pass  # missing: the caller reports it (P002)
    except OSError as exc:  # a name longer than the system allows, no permission to look...
        return None, f"cannot be used as a file name here: {exc.strerror or exc}"
    try:
        resolved.relative_to(base.resolve())
    except (ValueError, OSError, RuntimeError):
        return None, "leads outside the pack folder; packs may only name files inside their folder"
    return target, ""


def validate_pack(manifest_path: Path, report: Report) -> None:
    """Validate a pack manifest and every file it names, adding problems to ``report``."""
    base = manifest_path.parent
    document = load_document(manifest_path)
    report.files += 1
    report.problems += document.problems
    if document.data is None:
        return
    if document.file_type != "pack":
        report.problems.append(
            problem("P005", f"expected a pack manifest, found a {document.file_type} file", document.file, "/type")
        )
        return
    manifest = document.data
    manifest_problems = schema_problems(manifest, "pack", document.file)
    report.problems += manifest_problems
    if manifest_problems:
        return
    report.problems += document_text_problems(
        manifest, owner_name("pack", manifest["id"], manifest["name"]), document.file
    )
    extra = []
    for index, relative in enumerate(manifest.get("rulesets", [])):
        path = _pack_path(base, relative, f"/rulesets/{index}", document.file, report)
        if path is not None:
            ruleset, problems = load_ruleset_file(path, str(path))
            report.files += 1
            report.problems += problems
            if ruleset is not None and ruleset.id in bundled_rulesets():
                report.problems.append(
                    problem(
                        "P006",
                        f"the pack's ruleset '{ruleset.id}' has the id of a bundled "
                        f"ruleset; give the variant an id of its own",
                        str(path),
                        "/id",
                    )
                )
            elif ruleset is not None:
                if ruleset.family == "grid":
                    report.problems += deck_problems(ruleset.deck, ruleset, str(path), "/deck")
                extra.append(ruleset)
    registry = RulesetRegistry(extra)
    pack_ruleset = registry.get(manifest["ruleset"])
    if pack_ruleset is None:
        report.problems.append(
            problem(
                "C002",
                f"ruleset '{manifest['ruleset']}' is not known ({expected(manifest['ruleset'], registry.ids())})",
                document.file,
                "/ruleset",
            )
        )
    deck = None
    for index, deck_definition in enumerate(manifest.get("decks", [])):
        if pack_ruleset is not None and pack_ruleset.family == "grid":
            report.problems += deck_problems(
                deck_definition["cards"], pack_ruleset, document.file, f"/decks/{index}/cards"
            )
        if deck is None:
            deck = deck_definition["cards"]
        if "back" in deck_definition:  # the deck's own card back: an image inside the pack
            back = deck_definition["back"]
            image = _pack_path(base, back, f"/decks/{index}/back", document.file, report)
            kind, reason = back_image_type(image) if image is not None else ("", "")
            if kind is None:
                report.problems.append(
                    problem("P007", f"the card back '{back}' {reason}", document.file, f"/decks/{index}/back")
                )
    jobs = []
    for index, relative in enumerate(manifest["dungeons"]):
        path = _pack_path(base, relative, f"/dungeons/{index}", document.file, report)
        if path is not None:
            jobs.append(DungeonJob(str(path), relative, index, tuple(extra), deck))
    ids: dict[str, str] = {}
    for job, outcome in zip(jobs, _run_jobs(jobs)):
        report.files += 1
        report.problems += outcome.problems
        if outcome.file_type is None:
            continue
        if outcome.file_type != "dungeon":
            report.problems.append(
                problem(
                    "P005",
                    f"'{job.relative}' is listed as a dungeon but is a {outcome.file_type} file",
                    document.file,
                    f"/dungeons/{job.index}",
                )
            )
            continue
        report.dungeons += 1
        if outcome.dungeon_id is None:
            continue
        if outcome.ruleset != manifest["ruleset"]:
            report.problems.append(
                problem(
                    "P003",
                    f"dungeon '{outcome.dungeon_id}' uses ruleset '{outcome.ruleset}' "
                    f"but the pack uses '{manifest['ruleset']}'",
                    job.file,
                    "/ruleset",
                )
            )
        if outcome.dungeon_id in ids:
            report.problems.append(
                problem(
                    "P004",
                    f"dungeon id '{outcome.dungeon_id}' is also used by {ids[outcome.dungeon_id]}",
                    job.file,
                    "/id",
                )
            )
        else:
            ids[outcome.dungeon_id] = job.file


@dataclass(frozen=True)
class DungeonJob:
    """One dungeon file of a pack to check: its path, how the manifest names it, the pack's own
    rulesets and the deck the checks use."""

    file: str
    relative: str
    index: int
    pack_rulesets: tuple[Ruleset, ...] = ()
    deck: dict[str, int] | None = None


@dataclass
class JobOutcome:
    """What checking one :class:`DungeonJob` found: problems, the file type, and for a dungeon
    whose model could be built its id and ruleset."""

    problems: list[Problem]
    file_type: str | None
    dungeon_id: str | None = None
    ruleset: str | None = None


def _check_job(job: DungeonJob) -> JobOutcome:
    document = load_document(Path(job.file), job.file)
    if document.data is None or document.file_type != "dungeon":
        return JobOutcome(document.problems, document.file_type if document.data is not None else None)
    problems, dungeon = check_dungeon_data(document.data, job.file, RulesetRegistry(job.pack_rulesets), job.deck)
    if dungeon is None:
        return JobOutcome(document.problems + problems, "dungeon")
    return JobOutcome(document.problems + problems, "dungeon", dungeon.id, dungeon.ruleset)


#: Packs with at least this many dungeons are checked in parallel, one process per core.
PARALLEL_THRESHOLD = 64


def _run_jobs(jobs: list[DungeonJob]) -> list[JobOutcome]:
    """Check dungeon files, in worker processes (:mod:`inkcrawl.workers`, one per core, forked
    where the platform can) when there are many and several cores; in this process when workers
    cannot be had, and in a process that runs Qt (the editor), which is never forked (spawned
    workers would take longer to start than they save)."""
    from inkcrawl.workers import WorkerPool, can_fork, default_workers, qt_running

    workers = default_workers()
    if len(jobs) < PARALLEL_THRESHOLD or workers < 2 or qt_running():
        return [_check_job(job) for job in jobs]
    try:
        with WorkerPool(workers, start="fork" if can_fork() else "spawn", name="inkcrawl-validate") as pool:
            return list(pool.map(_check_job, jobs, chunksize=max(1, len(jobs) // (workers * 4))))
    except (OSError, RuntimeError):  # no process support here, or a worker died: check in this process
        return [_check_job(job) for job in jobs]


def _pack_path(base: Path, relative: str, pointer: str, manifest_file: str, report: Report) -> Path | None:
    path, reason = _resolve_in_pack(base, relative)
    if path is None:
        report.problems.append(problem("P001", f"'{relative}' {reason}", manifest_file, pointer))
        return None
    if not path.is_file():
        report.problems.append(
            problem("P002", f"'{relative}' does not exist in the pack folder", manifest_file, pointer)
        )
        return None
    return path


def enclosing_pack(path: Path) -> tuple[list[Ruleset], dict[str, int] | None]:
    """For a dungeon file inside a pack folder, the pack's own rulesets and its first deck, so a
    single file is checked as it is in its pack. Looks in the file's folder and the one above."""
    for folder in (path.parent, path.parent.parent):
        manifest_path = folder / MANIFEST_NAME
        if not manifest_path.is_file():
            continue
        if too_many_values(manifest_path, str(manifest_path)) is not None:
            return [], None
        manifest, problems = read_json_file(manifest_path)
        if problems or schema_problems(manifest, "pack", str(manifest_path)):
            return [], None
        listed = {path_inside_pack(folder, rel) for rel in manifest["dungeons"]}
        if not any(p is not None and p.resolve() == path.resolve() for p in listed):
            return [], None
        rulesets = []
        for relative in manifest.get("rulesets", []):
            target = path_inside_pack(folder, relative)
            ruleset = load_ruleset_file(target)[0] if target is not None and target.is_file() else None
            if ruleset is not None:
                rulesets.append(ruleset)
        decks = manifest.get("decks") or [{}]
        return rulesets, decks[0].get("cards")
    return [], None


def _ruleset_file_problems(data: dict, file: str) -> list[Problem]:
    problems = schema_problems(data, "ruleset", file)
    if problems:
        return problems
    problems = ruleset_consistency_problems(data, file)
    if data["family"] == "grid":
        problems += deck_problems(data["deck"], Ruleset(data), file, "/deck")
    return problems


def validate_file(path: Path, report: Report, registry: RulesetRegistry) -> None:
    """Validate a single dungeon, ruleset or pack manifest file, adding to ``report``.

    A dungeon file that a pack folder lists is checked with that pack's rulesets and deck.
    """
    document = load_document(path)
    if document.file_type == "pack" and document.data is not None:
        validate_pack(path, report)
        return
    report.files += 1
    report.problems += document.problems
    if document.data is None:
        if any(p.code == "F001" for p in document.problems):
            report.unreadable_input = True
        return
    if document.file_type == "dungeon":
        pack_rulesets, deck = enclosing_pack(path)
        if pack_rulesets:
            registry = RulesetRegistry(pack_rulesets)
        problems, _ = check_dungeon_data(document.data, document.file, registry, deck)
        report.problems += problems
        report.dungeons += 1
    elif document.file_type == "ruleset":
        report.problems += _ruleset_file_problems(document.data, document.file)


def unusable_path(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot even be looked at (a name longer than the system allows, a NUL
    character, a symlink loop, a folder on the way that cannot be searched), or ``None`` when it
    can (a missing file can: it is reported as missing). Never raises."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    except ValueError:
        return "cannot be read: the name holds a NUL character"
    return None


#: How many folders below a folder given to ``validate`` packs are looked for.
PACK_SEARCH_DEPTH = 3


def packs_below(folder: Path, depth: int = PACK_SEARCH_DEPTH) -> list[Path]:
    """The pack manifests in the folders below ``folder`` (not in it), at most ``depth`` folders
    down, sorted by path; hidden folders are skipped; a folder that cannot be read is skipped.
    A pack's own folders are not searched further (packs do not nest)."""
    found: list[Path] = []
    level = [folder]
    for _ in range(depth):
        following = []
        for current in level:
            try:
                children = sorted(p for p in current.iterdir() if p.is_dir() and not p.name.startswith("."))
            except OSError:
                continue
            for child in children:
                if (child / MANIFEST_NAME).is_file():
                    found.append(child / MANIFEST_NAME)
                else:
                    following.append(child)
        level = following
    return sorted(found)


def validate_paths(paths: Iterable[str | os.PathLike], progress: Callable[[str], None] | None = None) -> Report:
    """Validate files and pack folders; see the module docstring. Never raises for bad input.

    ``progress`` is called with each path before it is checked.
    """
    report = Report()
    registry = RulesetRegistry()
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        unusable = unusable_path(path)
        if unusable is not None:
            report.problems.append(problem("F001", unusable, str(raw)))
            report.unreadable_input = True
            continue
        try:  # the same file or pack named twice (a folder and its pack.json too) is checked once
            key = (path / MANIFEST_NAME if path.is_dir() else path).resolve()
        except (OSError, RuntimeError):
            key = None
        if key is not None and key in seen:
            continue
        if key is not None:
            seen.add(key)
        if progress:
            progress(str(raw))
        if path.is_dir():
            manifest = path / MANIFEST_NAME
            below = [] if manifest.is_file() else packs_below(path)
            if manifest.is_file():
                validate_pack(manifest, report)
            elif below:  # a folder of packs: every pack below it
                for found in below:
                    try:
                        found_key = found.resolve()
                    except (OSError, RuntimeError):
                        found_key = found
                    if found_key not in seen:
                        seen.add(found_key)
                        validate_pack(found, report)
            else:
                report.problems.append(
                    problem(
                        "F001",
                        f"this folder has no {MANIFEST_NAME}, so it is not a content pack, and no pack lies below "
                        f"it (up to {PACK_SEARCH_DEPTH} folders down); give a pack folder, its {MANIFEST_NAME}, "
                        f"or dungeon files",
                        str(raw),
                    )
                )
                report.unreadable_input = True
        elif not path.exists():
            report.problems.append(problem("F001", "no such file or folder", str(raw)))
            report.unreadable_input = True
        else:
            validate_file(path, report, registry)
    return report
