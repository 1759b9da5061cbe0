"""The PDF export draws its pages while the input is still being validated (issue #15, Speed).

:func:`inkcrawl.loading.open_dungeons` builds the dungeons' models first and hands them to its
``built`` callback before the rule checks; ``inkcrawl export sheet ... -o OUT.pdf`` starts drawing
the pages in worker processes there (:meth:`exporters.formats.SheetPdf.start`). A pack with
validation errors must still be refused as it was when nothing was drawn ahead: the same report
and message, the same exit code, no file written, and the workers stopped.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

from conftest import PACKS, REPO

from inkcrawl import loading


def test_built_gets_the_dungeons_before_the_rule_checks(monkeypatch):
    """The callback sees the very list the result holds, before validation starts."""
    order = []
    real = loading.validate_paths

    def validate(paths):
        order.append("validate")
        return real(paths)

    monkeypatch.setattr(loading, "validate_paths", validate)
    seen = []

    def built(dungeons):
        order.append("built")
        seen.append((dungeons, [opened.dungeon.id for opened in dungeons]))

    result = loading.open_dungeons([str(PACKS / "lantern-depths")], built)
    assert order == ["built", "validate"]
    assert seen[0][0] is result.dungeons
    # the pack lists four dungeons, all valid: built and listed in pack order
    manifest = json.loads((PACKS / "lantern-depths" / "pack.json").read_text(encoding="utf-8"))
    files = [opened.file for opened in result.dungeons]
    assert [f.rsplit("/", 1)[-1] for f in files] == [d.rsplit("/", 1)[-1] for d in manifest["dungeons"]]
    assert result.report.errors == 0


_SCRIPT = textwrap.dedent(
    """
    import contextlib, io, json, multiprocessing, sys
    from unittest import mock
    import exporters.formats as formats
    import exporters.pages as pages
    from inkcrawl.cli import main

    ahead = "ahead" in sys.argv[0]
    calls = []
    real_build = pages.build_pages

    def build(*args, **kwargs):
        calls.append(len(args[0]))
        return real_build(*args, **kwargs)

    err = io.StringIO()
    patches = [
        mock.patch("inkcrawl.workers.default_workers", return_value=2),
        mock.patch.object(pages, "build_pages", build),
    ]
    if not ahead:
        patches.append(mock.patch.object(formats.SheetPdf, "start", lambda self, dungeons, options=None: None))
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        with contextlib.redirect_stderr(err):
            code = main(["export", "sheet", *sys.argv[1:]])
    print(json.dumps({"code": code, "stderr": err.getvalue(), "builds": calls,
                      "children": len(multiprocessing.active_children())}))
    """
)


def _export(name: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT.replace("sys.argv[0]", repr(name)), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _pack_with_a_duplicate_id(tmp_path):
    """The bundled line pack with copies of its dungeons under new file names: eight dungeons
    (enough for worker processes), the copies repeating the ids (P004, an error)."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "lantern-depths", pack)
    manifest = json.loads((pack / "pack.json").read_text(encoding="utf-8"))
    for relative in list(manifest["dungeons"]):
        copy = relative.replace(".json", "-copy.json")
        shutil.copy(pack / relative, pack / copy)
        manifest["dungeons"].append(copy)
    (pack / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    return pack


def test_a_pack_with_errors_is_refused_as_without_drawing_ahead(tmp_path):
    pack = _pack_with_a_duplicate_id(tmp_path)
    out = tmp_path / "out.pdf"
    ahead = _export("ahead", str(pack), "-o", str(out))
    assert not out.exists()
    plain = _export("plain", str(pack), "-o", str(out))
    assert not out.exists()
    assert ahead["builds"] == [8], "the pages were not started before the rule checks"
    assert plain["builds"] == []
    assert ahead["code"] == plain["code"] == 1
    assert ahead["stderr"] == plain["stderr"]
    assert ahead["stderr"].count(" P004 ") == 4
    assert (
        ahead["stderr"]
        .rstrip()
        .endswith("inkcrawl export: refused: the input has validation errors (see above); fix them or use --force")
    )
    assert ahead["children"] == 0, "the workers drawing ahead were left running"


def test_with_force_the_pages_drawn_ahead_are_the_pdf(tmp_path):
    """--force: the same eight pages are written, drawn once (while the checks ran)."""
    pack = _pack_with_a_duplicate_id(tmp_path)
    out = tmp_path / "out.pdf"
    ahead = _export("ahead", str(pack), "-o", str(out), "--force")
    assert ahead["code"] == 0
    assert ahead["builds"] == [8]
    assert ahead["children"] == 0
    from pypdf import PdfReader

    assert len(PdfReader(out).pages) == 8
