"""Validation report output: ``text`` (one line per problem), ``json`` and ``sarif`` (SARIF 2.1.0).

Text lines read ``file:pointer: severity CODE message`` so editors and CI logs can jump to the
file; the JSON format is a list of problem objects (docs/formats.md, "Validation report"); SARIF
is what code-scanning services (GitHub code scanning and others) ingest.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from inkcrawl import __version__
from inkcrawl.problems import RULES, Problem, Severity
from inkcrawl.textchars import json_terminal_safe, terminal_safe
from inkcrawl.validate import Report

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://inkcrawl.org"


def format_text(report: Report) -> str:
    """One line per problem, then a summary line; control characters from the files (in names,
    ids, file names) shown escaped (:func:`~inkcrawl.textchars.terminal_safe`)."""
    lines = [terminal_safe(f"{p.file}:{p.pointer}: {p.severity.value} {p.code} {p.message}") for p in report.problems]
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def summary(report: Report) -> str:
    """``checked 3 files (2 dungeons): 1 error, 0 warnings``."""

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    return (
        f"checked {plural(report.files, 'file')} ({plural(report.dungeons, 'dungeon')}): "
        f"{plural(report.errors, 'error')}, {plural(report.warnings, 'warning')}"
    )


def format_json(report: Report) -> str:
    """The problems as a JSON array of objects (file, pointer, severity, code, rule, message,
    and line/column when known)."""
    return json_terminal_safe(json.dumps([p.as_dict() for p in report.problems], indent=2, ensure_ascii=False)) + "\n"


def _artifact(file: str) -> dict:
    path = Path(file)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(path.as_posix()), "uriBaseId": "SRCROOT"}


def _sarif_result(problem: Problem, rule_index: dict[str, int]) -> dict:
    location: dict = {"physicalLocation": {"artifactLocation": _artifact(problem.file)}}
    if problem.pointer:
        location["logicalLocations"] = [{"fullyQualifiedName": problem.pointer, "kind": "element"}]
    if problem.line is not None:
        location["physicalLocation"]["region"] = {"startLine": problem.line, "startColumn": problem.column}
    return {
        "ruleId": problem.code,
        "ruleIndex": rule_index[problem.code],
        "level": "error" if problem.severity is Severity.ERROR else "warning",
        "message": {"text": problem.message},
        "locations": [location],
        "properties": {"pointer": problem.pointer},
    }


def format_sarif(report: Report) -> str:
    """The report as a SARIF 2.1.0 log with one run; every rule is described in the driver."""
    rule_index = {rule.code: index for index, rule in enumerate(RULES)}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "inkcrawl",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [
                            {
                                "id": rule.code,
                                "name": rule.name,
                                "shortDescription": {"text": rule.description},
                                "defaultConfiguration": {
                                    "level": "error" if rule.severity is Severity.ERROR else "warning"
                                },
                            }
                            for rule in RULES
                        ],
                    }
                },
                "originalUriBaseIds": {"SRCROOT": {"uri": Path.cwd().as_uri() + "/"}},
                "results": [_sarif_result(p, rule_index) for p in report.problems],
            }
        ],
    }
    return json_terminal_safe(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"


FORMATTERS = {"text": format_text, "json": format_json, "sarif": format_sarif}
