"""The daemon's layers, as folders: nothing imports a layer above its own.

Every import counts — module level, under `if TYPE_CHECKING:`, and inside functions —
because a function-local import of a higher layer is the same dependency, only later.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

DAEMON = Path(__file__).resolve().parents[2] / "daemon"
PACKAGE = DAEMON / "ragd"

# Low to high. A module may import its own layer and any layer before it.
LAYERS = ("core", "index", "ingest", "query", "engine", "serve", "app", "harness", "cli")
# Only these layers may use the client (`ragcli`): the command line, and the harness that
# drives private daemons for `ragd eval`, the bench and the tests.
CLIENT_USERS = {"harness", "cli"}
# `ragd/__init__.py` (the version) sits below everything; `python -m ragd` above.
RANK = {"": -1, **{name: i for i, name in enumerate(LAYERS)}, "__main__": len(LAYERS)}


def module_name(path: Path) -> str:
    parts = path.relative_to(DAEMON).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    """`ragd.index.store` → index; `ragd` (its __init__) → ""; `ragd.__main__` → __main__."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import in the file, wherever it is."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                # `from ragd import serve` names a package: its layer is the name's.
                submodule = f"{base}.{alias.name}"
                is_module = (DAEMON / Path(*submodule.split("."))).exists() or (
                    DAEMON / Path(*submodule.split("."))
                ).with_suffix(".py").exists()
                yield node.lineno, submodule if is_module else base


def daemon_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_daemon_module_is_in_a_layer() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"], loose
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert packages == sorted(LAYERS), "a new subpackage needs a place in LAYERS"


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = []
    for path in daemon_modules():
        source = module_name(path)
        for line, target in imports(path):
            if target.split(".")[0] != "ragd":
                continue
            if RANK[layer_of(target)] > RANK[layer_of(source)]:
                upward.append(f"{source}:{line} imports {target}")
    assert upward == [], "\n".join(upward)


def test_only_the_command_line_and_harness_import_the_client() -> None:
    users = [
        f"{module_name(path)}:{line}"
        for path in daemon_modules()
        for line, target in imports(path)
        if target.split(".")[0] == "ragcli" and layer_of(module_name(path)) not in CLIENT_USERS
    ]
    assert users == [], users


def _nested_imports(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Modules imported inside functions, and under `if TYPE_CHECKING:`, found directly."""
    local: set[str] = set()
    typing_only: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            bucket = local
        elif isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            bucket = typing_only
        else:
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                bucket.add(inner.module)
    return local, typing_only


def test_the_checker_sees_every_kind_of_import() -> None:
    """The daemon has function-local and TYPE_CHECKING imports of ragd and ragcli, and the
    checker reports each of them, so the layer test cannot pass by missing them."""
    seen_local: set[str] = set()
    seen_typing: set[str] = set()
    for path in daemon_modules():
        local, typing_only = _nested_imports(ast.parse(path.read_text(encoding="utf-8")))
        found = {target for _, target in imports(path)}
        found |= {target.rpartition(".")[0] for target in found}
        assert (local | typing_only) <= found, path
        seen_local |= local
        seen_typing |= typing_only
    assert "ragcli.transport" in seen_local  # `ragd check` asking the running daemon
    assert any(m.startswith("ragd.") for m in seen_typing)
