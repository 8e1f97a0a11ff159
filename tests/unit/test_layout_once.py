"""The data dir's layout is spelled once, in ragd/core/layout.py: no other module of the
packages or the bench builds one of its paths from the name itself (`data / "chroma"`,
"…/manifest.sqlite3"). Tests are left out on purpose: they spell the layout on their own
so that a change to it, which strands every existing data dir, is seen."""

from __future__ import annotations

import ast

from ragd.core import layout
from tests.support.sources import REPO, our_sources

HOME = REPO / "daemon" / "ragd" / "core" / "layout.py"
NAMES = {layout.MANIFEST, layout.VECTORS, layout.LEXICAL, layout.DATA_LOCK}
FILE_NAMES = {layout.MANIFEST, layout.DATA_LOCK}  # distinctive anywhere in a string


def spelled(tree: ast.AST) -> list[int]:
    """Lines that build a layout path from its name."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            right = node.right
            if isinstance(right, ast.Constant) and right.value in NAMES:
                lines.append(node.lineno)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "\n" not in node.value  # a docstring may describe the layout
            and any(name in node.value for name in FILE_NAMES)
        ):
            lines.append(node.lineno)
    return lines


def test_layout_names_are_spelled_only_in_layout_py() -> None:
    found = []
    for path in our_sources():
        if path != HOME:
            found += [f"{path.relative_to(REPO)}:{n}" for n in spelled(ast.parse(path.read_text()))]
    assert found == []
    assert spelled(ast.parse(HOME.read_text())), "the scan finds nothing: it is broken"
