"""No import circles in ragd, ragcli or ragproto.

Every import counts, wherever it is written: at the top, inside a function (a lazy import
is still a dependency) or under `if TYPE_CHECKING:` (a circle there is a design knot,
even if it never runs). Modules are found by walking the source folders and parsing each
file with `ast`; a circle is a strongly connected component of more than one module.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.daemon import REPO

PACKAGES = {
    "ragd": REPO / "daemon" / "ragd",
    "ragcli": REPO / "client" / "ragcli",
    "ragproto": REPO / "shared" / "ragproto",
}


def module_files() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = (package, *path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imported_names(module: str, path: Path, is_package: bool) -> set[str]:
    """Every module name `module` imports (`from a import b` names both a and a.b)."""
    names: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1 parents
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    graph = {}
    for module, path in files.items():
        names = imported_names(module, path, path.name == "__init__.py")
        graph[module] = {name for name in names if name in files and name != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_finder_sees_a_circle_through_lazy_and_type_checking_imports() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [{"a", "b", "c"}]
    source = REPO / "daemon" / "ragd" / "serve" / "handlers.py"
    names = imported_names("ragd.serve.handlers", source, False)
    assert "ragd.engine.checkup" in names  # imported inside a function
    assert "ragd.engine.components" in names


def test_no_import_circles() -> None:
    graph = import_graph()
    assert len(graph) > 80 and "ragd.app.service" in graph and "ragcli.main" in graph
    found = circles(graph)
    assert found == [], "import circles: " + "; ".join(" ↔ ".join(sorted(c)) for c in found)


def test_only_the_command_line_knows_the_daemon() -> None:
    """Handlers get the components they use: nothing but `ragd serve` imports the
    lifecycle (ragd.app.service)."""
    graph = import_graph()
    assert {module for module, deps in graph.items() if "ragd.app.service" in deps} == {
        "ragd.cli.main"
    }
