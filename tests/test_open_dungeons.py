"""Opening dungeons with the rule checks beside other work (inkcrawl.loading.open_dungeons).

With ``meanwhile`` the rule checks run in a forked process while this one does other work (the
PDF export starts Qt); the report must be the one ``inkcrawl validate`` gives, errors and
warnings alike, wherever the checks ran.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from inkcrawl import loading
from inkcrawl.cli import main
from inkcrawl.loading import open_dungeons
from inkcrawl.validate import PARALLEL_THRESHOLD, validate_paths
from inkcrawl.workers import fork_is_safe
from tests.editor_support import GRID_PACK, LINE_PACK


def _problems(report) -> list[tuple]:
    return [(p.code, p.severity, p.file, p.pointer, p.message) for p in report.problems]


def _broken_pack(tmp_path):
    """A copy of the bundled line pack with one dungeon given an error (an area of two points)
    and a warning-prone title."""
    pack = tmp_path / "broken"
    shutil.copytree(LINE_PACK, pack)
    dungeon = sorted((pack / "dungeons").glob("*.json"))[0]
    data = json.loads(dungeon.read_text(encoding="utf-8"))
    data["areas"][0]["polygon"] = data["areas"][0]["polygon"][:2]
    dungeon.write_text(json.dumps(data), encoding="utf-8")
    return pack


@pytest.mark.parametrize("cores", [2, 1])
def test_the_checks_beside_other_work_give_the_validate_report(tmp_path, monkeypatch, cores):
    pack = _broken_pack(tmp_path)
    paths = [str(pack), str(GRID_PACK)]
    expected = validate_paths(paths)
    assert expected.errors > 0
    if cores == 1:  # no process is forked: the checks run here, after the work
        monkeypatch.setattr("inkcrawl.workers.default_workers", lambda limit=8: 1)
    calls = []
    checked_by = _checked_where(tmp_path, monkeypatch)
    result = open_dungeons(paths, meanwhile=lambda: calls.append("qt"))
    assert calls == ["qt"]
    # in this process when no process may be forked (one core, or Qt running in this test process)
    here = cores == 1 or not fork_is_safe()
    assert checked_by() == [os.getpid()] if here else (len(checked_by()) == 1 and checked_by()[0] != os.getpid())
    assert _problems(result.report) == _problems(expected)
    assert (result.report.errors, result.report.warnings, result.report.dungeons) == (
        expected.errors,
        expected.warnings,
        expected.dungeons,
    )
    assert [o.dungeon.id for o in result.dungeons] == [o.dungeon.id for o in open_dungeons(paths).dungeons]


def test_a_forked_checker_that_fails_is_replaced_by_checks_here(tmp_path, monkeypatch):
    def broken_child(send, receive, paths):
        receive.close()
        send.close()  # answers nothing, as a process that died would

    monkeypatch.setattr(loading, "_validate_child", broken_child)
    pack = _broken_pack(tmp_path)
    expected = validate_paths([str(pack)])
    assert _problems(open_dungeons([str(pack)], meanwhile=lambda: None).report) == _problems(expected)


def _checked_where(tmp_path, monkeypatch):
    """Record the process id of every call of the checks (in a file: the forked process's
    calls are not seen here otherwise)."""
    log = tmp_path / "checked-by.txt"
    real = loading.validate_paths

    def recorded(paths):
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")
        return real(paths)

    monkeypatch.setattr(loading, "validate_paths", recorded)
    return lambda: [int(line) for line in log.read_text(encoding="utf-8").split()] if log.exists() else []


def test_a_big_pack_is_checked_beside_by_workers_of_its_own(tmp_path, capsys, monkeypatch):
    """A pack large enough to be checked by worker processes (PARALLEL_THRESHOLD dungeons): the
    forked checker may start them (a daemonic process could not), and it is that process which
    gives the report, not this one after it failed."""
    pack = tmp_path / "big"
    count = PARALLEL_THRESHOLD
    assert main(["generate", "--family", "grid", "--seed", "1", "--count", str(count), "-o", str(pack)]) == 0
    capsys.readouterr()
    expected = validate_paths([str(pack)])
    assert expected.dungeons == count
    checked_by = _checked_where(tmp_path, monkeypatch)
    result = open_dungeons([str(pack)], meanwhile=lambda: None)
    assert _problems(result.report) == _problems(expected) and result.report.dungeons == count
    assert len(result.dungeons) == count
    pids = checked_by()
    assert len(pids) == 1 and (pids[0] != os.getpid() or not fork_is_safe())


def test_the_pdf_export_refuses_an_input_with_errors_as_before(tmp_path, capsys):
    pack = _broken_pack(tmp_path)
    out = tmp_path / "sheets.pdf"
    assert main(["export", "sheet", str(pack), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "refused: the input has validation errors" in err and not out.exists()
