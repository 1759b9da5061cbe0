"""Pages built in worker processes and, ahead of their turn, in the process that renders them.

:func:`exporters.pages.build_pages` for a PDF (``rendered=True``) forks one worker fewer than the
cores and, while the next page is not ready, builds the last page no worker has started. These
tests run it in a fresh interpreter (a process running Qt is never forked, and pytest's may) with
two cores assumed, so one worker builds from the first page on while the caller builds from the
last one back.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from conftest import PACKS, REPO

_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from unittest import mock
    import exporters.pages as pages
    from exporters.paper import PaperError
    from inkcrawl.loading import open_dungeons

    opened = open_dungeons(sys.argv[1:]).dungeons
    opened = (opened * 3)[:14]  # enough sheets for workers, the bundled ones again
    here = []  # the pages this process built (a forked worker records in its own memory)
    real = pages._page_job
    fail_last = "fail-last" in sys.argv[0]

    def job(dungeon, *rest):
        here.append(dungeon.id)
        if fail_last and dungeon is opened[-1].dungeon:
            raise PaperError("the last sheet does not fit")
        return real(dungeon, *rest)

    out = {"svgs": [], "error": None}
    with mock.patch("inkcrawl.workers.default_workers", return_value=2), mock.patch.object(pages, "_page_job", job):
        try:
            for page in pages.build_pages(opened, rendered=True):
                out["svgs"].append(page.svg)
        except PaperError as exc:
            out["error"] = str(exc)
    out["expected"] = [real(o.dungeon, o.ruleset, pages.PageOptions()).svg for o in opened]
    out["here"] = here
    print(json.dumps(out))
    """
)


def _run(name: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT.replace("sys.argv[0]", repr(name)), *(str(p) for p in sorted(PACKS.iterdir()))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_pages_built_ahead_come_in_their_turn():
    """Every page is the sheet drawn on its own, in the dungeons' order, and the caller built
    some of them itself (from the last one back) while it waited for the first."""
    out = _run("in-order")
    assert out["error"] is None
    assert out["svgs"] == out["expected"]
    assert len(out["svgs"]) == 14
    assert out["here"], "the caller waited for the worker without building a page"


def test_a_sheet_built_ahead_that_fails_raises_in_its_turn():
    """The last sheet cannot be laid out: every sheet before it comes first, then the error,
    whoever built the last one and however early."""
    out = _run("fail-last")
    assert out["svgs"] == out["expected"][:13]
    assert out["error"] == "the last sheet does not fit"
