"""Parts get what they need when they are built: nothing is wired in afterwards."""

from __future__ import annotations

import ast
from pathlib import Path

from ragd.index.space import DiskGuard

DAEMON = Path(__file__).resolve().parents[2] / "daemon" / "ragd"


def test_the_disk_guard_holds_no_hook_to_set_later(tmp_path: Path) -> None:
    guard = DiskGuard(tmp_path)
    hooks = [name for name, value in vars(guard).items() if callable(value)]
    assert hooks == []


def test_the_engine_and_the_lifecycle_set_attributes_only_on_self() -> None:
    """`part.attr = value` in the code that builds and runs the parts is wiring after
    construction; a part's own state (`self.x = ...`) is not."""
    found = []
    for folder in ("engine", "app"):
        for path in sorted((DAEMON / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                targets = node.targets if isinstance(node, ast.Assign) else []
                for target in targets:
                    owner = _owner(target)
                    if owner is not None and owner not in ("self", "cls"):
                        found.append(f"{path.name}:{node.lineno} {ast.unparse(target)}")
    assert found == []


def _owner(target: ast.expr) -> str | None:
    """`a` for `a.b.c = ...`; None when the target is not an attribute."""
    if not isinstance(target, ast.Attribute):
        return None
    while isinstance(target, ast.Attribute):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None
