"""Test setup shared by every test: headless Qt settings and paths to the bundled content."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# Headless everywhere: Qt aborts without a display unless told to draw offscreen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if "XDG_RUNTIME_DIR" not in os.environ:
    _runtime = tempfile.mkdtemp(prefix="inkcrawl-xdg-")
    os.chmod(_runtime, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = _runtime
# The editor keeps settings (recent files, window layout) and recovery files in the platform's
# locations: point them at a throw-away folder so tests never touch the user's.
_config = tempfile.mkdtemp(prefix="inkcrawl-config-")
os.environ["XDG_CONFIG_HOME"] = _config
os.environ["XDG_DATA_HOME"] = os.path.join(_config, "data")
os.environ["XDG_STATE_HOME"] = os.path.join(_config, "state")
os.environ["XDG_CACHE_HOME"] = os.path.join(_config, "cache")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# In CI every property test is derandomized: the same examples on every run, so a red run is a
# real regression, never a new random example (run locally without CI=true to explore).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
PACKS = REPO / "content" / "packs"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def bundled_dungeon_files() -> list[Path]:
    """Every dungeon file of the bundled packs."""
    return sorted(PACKS.glob("*/dungeons/*.json"))


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session", autouse=True)
def _release_qt_clipboard():
    """Empty Qt's clipboard before the interpreter exits: a clipboard still holding data while
    Qt shuts down crashes the offscreen platform (the editor does the same on quit)."""
    yield
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is not None:
        QGuiApplication.clipboard().clear()


@pytest.fixture(autouse=True)
def _no_modal_message_boxes(monkeypatch):
    """A modal message box waits for a click that never comes in a headless run, and the test
    hangs: any ``QMessageBox.information/warning/critical/question`` a test did not replace
    fails it at once instead, saying what it would have shown. (Tests that expect one replace
    it with their own answer, as before.)"""
    import sys

    if "PySide6.QtWidgets" not in sys.modules and "editor" not in sys.modules:
        try:
            import PySide6.QtWidgets  # noqa: F401 (the editor's tests import it anyway)
        except ImportError:
            yield
            return
    from PySide6.QtWidgets import QMessageBox

    def refuse(kind):
        def shown(parent, title, text, *args, **kwargs):
            raise AssertionError(f"a modal QMessageBox.{kind} would wait for a click: {title}: {text}")

        return shown

    for kind in ("information", "warning", "critical", "question"):
        monkeypatch.setattr(QMessageBox, kind, refuse(kind))
    yield


@pytest.fixture(autouse=True)
def _fresh_editor_settings():
    """Each test starts with empty editor settings (recent files, grid step, window layout),
    so no test depends on what an earlier one stored."""
    import sys

    yield
    if "PySide6.QtCore" in sys.modules:
        from PySide6.QtCore import QSettings

        QSettings("inkcrawl", "inkcrawl-editor").clear()


class _ModulesThatGatherStayTogether:
    """Parallel runs (pytest-xdist, the README's ``pytest -n auto``) share the tests out one by
    one between processes, except a module with a ``test_zz_*`` test: that test runs after the
    module's other tests and reads what they gathered in their process (the sheet oracle's
    statistics), so such a module runs whole in one process, in file order. (xdist's own
    ``xdist_group`` marks are not used: pytest 9.2 ignores the node ids xdist 3.8 renames for them.)"""

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config, log):
        if config.getvalue("dist") not in ("load", "loadgroup"):
            return None  # an explicit choice (loadfile, loadscope, each, worksteal) stands
        from xdist.scheduler import LoadScopeScheduling

        class Scheduling(LoadScopeScheduling):
            together: set[str] | None = None

            def _split_scope(self, nodeid: str) -> str:
                if self.together is None:
                    collection = next(iter(self.registered_collections.values()))
                    self.together = {
                        n.split("::", 1)[0] for n in collection if n.split("::")[-1].startswith("test_zz_")
                    }
                module = nodeid.split("::", 1)[0]
                return module if module in self.together else nodeid

        return Scheduling(config, log)


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_ModulesThatGatherStayTogether(), "inkcrawl-modules-that-gather")
