"""The layers stay apart: no import circles anywhere in inkcrawl/, exporters/ and editor/, and the
core (inkcrawl/) imports neither the exporters nor the editor.

Every import counts, at module level or inside a function (an import moved into a function to
break a circle is still a circle); imports under ``if TYPE_CHECKING:`` do not (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("inkcrawl", "exporters", "editor")


def _modules() -> dict[str, Path]:
    modules = {}
    for root in ROOTS:
        for path in (REPO / root).rglob("*.py"):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (``from package import module`` names the module)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}

    class Imports(ast.NodeVisitor):
        def __init__(self, name: str, package: str):
            self.name, self.package = name, package

        def visit_If(self, node: ast.If) -> None:
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            graph[self.name].update(alias.name for alias in node.names if alias.name in modules)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            base = node.module or ""
            if node.level:
                parts = self.package.split(".")[: len(self.package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in modules:
                    graph[self.name].add(full)
                elif base in modules:
                    graph[self.name].add(base)

    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        Imports(name, package).visit(ast.parse(path.read_text(encoding="utf-8")))
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), and modules importing themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_detector_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    graph = import_graph()
    assert (
        "editor.mainwindow" in graph and "inkcrawl.printed" in graph["inkcrawl.checks.line"]
    )  # the graph sees the code
    assert circles(graph) == []


def test_the_core_imports_neither_the_exporters_nor_the_editor():
    for name, imported in import_graph().items():
        if name.startswith("inkcrawl"):
            assert not {m for m in imported if m.startswith(("editor", "exporters"))}, name
