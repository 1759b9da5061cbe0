"""Installation: the core stays Qt-free, and a built wheel carries schemas and content."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile

from conftest import REPO


def test_core_does_not_import_qt_editor_or_exporters():
    pattern = re.compile(r"^\s*(from|import)\s+(PySide6|PyQt\d|editor|exporters)\b", re.MULTILINE)
    offenders = [str(p.relative_to(REPO)) for p in (REPO / "inkcrawl").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []
    code = (
        "import sys, inkcrawl.cli, inkcrawl.validate, inkcrawl.report, inkcrawl.migrate_files, "
        "inkcrawl.loading, inkcrawl.solvability; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'editor', 'exporters')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_cli_finds_export_through_the_plugin_registry_without_loading_qt():
    code = (
        "import sys, inkcrawl.cli; parser = inkcrawl.cli.build_parser(); "
        "assert 'export' in parser._subparsers._group_actions[0].choices; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'PySide6']; print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_wheel_carries_data_and_runs_outside_the_checkout(tmp_path):
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("inkcrawl-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for needed in (
            "inkcrawl/_data/schemas/dungeon.schema.json",
            "inkcrawl/_data/schemas/pack.schema.json",
            "inkcrawl/_data/schemas/ruleset.schema.json",
            "inkcrawl/_data/content/rulesets/grid-classic.json",
            "inkcrawl/_data/content/rulesets/line-classic.json",
            "inkcrawl/_data/content/packs/lantern-depths/pack.json",
            "inkcrawl/_data/content/packs/ember-halls/pack.json",
            "inkcrawl/cli/__init__.py",
            "exporters/commands.py",
            "exporters/fonts/DejaVuSans.ttf",
            "exporters/fonts/DejaVuSans-Bold.ttf",
            "exporters/fonts/LICENSE-DejaVu.txt",
        ):
            assert needed in names, needed
        assert not any(name.startswith(("tests/", "benchmarks/")) for name in names)
        archive.extractall(tmp_path / "site")
    site = tmp_path / "site"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import sys; from inkcrawl.resources import data_dir; "
        "print(data_dir('schemas')); from inkcrawl.cli import main; "
        f"sys.exit(main(['validate', {str(site / 'inkcrawl/_data/content/packs/lantern-depths')!r}, "
        f"{str(site / 'inkcrawl/_data/content/packs/ember-halls')!r}, '--strict']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0].startswith(str(site / "inkcrawl" / "_data"))
    assert "0 errors, 0 warnings" in result.stdout
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "exporters.commands:register" in (site / entry_points).read_text()
    code = (
        "import sys; from exporters.commands import register; import argparse; "
        "parser = argparse.ArgumentParser(); register(parser.add_subparsers(dest='c')); "
        "args = parser.parse_args(['export', 'sheet', sys.argv[1], '-o', sys.argv[2]]); sys.exit(args.func(args))"
    )
    pdf = elsewhere / "sheets.pdf"
    result = subprocess.run(
        [sys.executable, "-c", code, str(site / "inkcrawl/_data/content/packs/ember-halls"), str(pdf)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert pdf.read_bytes().startswith(b"%PDF")
