"""The index writer thread only schedules (issue 21, item 1).

`ingest/indexer.py` keeps the thread loop and the batching; the per-file pipeline is the
planner's, the slow-file steps are `ingest/slow_files.py`'s, path reconciliation is
`ingest/reconcile.py`'s, and every count of reused embeddings is the writer's. Read from
the source with `ast`, so nothing is imported or run.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "daemon" / "ragd"
INDEXER = PACKAGE / "ingest" / "indexer.py"
MAX_METHODS = 15

# What the pipeline is made of: the indexer hands paths to the reconciler and files to
# the planner, so it needs none of these (nor `os`/`stat`: it never looks at the disk).
PIPELINE = {
    "os",
    "stat",
    "ragd.core.names",
    "ragd.index.manifest",
    "ragd.index.embedder",
    "ragd.ingest.chunking",
    "ragd.ingest.filters",
    "ragd.ingest.loaders",
    "ragd.ingest.parse_pool",
    "ragd.ingest.walking",
    "ragd.ingest.windows",
}


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def imported(module: ast.Module) -> set[str]:
    """Every module named by an import, wherever it is written (TYPE_CHECKING too)."""
    names: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_indexer_class_has_at_most_fifteen_methods() -> None:
    (indexer,) = [
        node
        for node in tree(INDEXER).body
        if isinstance(node, ast.ClassDef) and node.name == "Indexer"
    ]
    # Nested functions count too: a helper inside a method is still the class's code.
    methods = [
        node.name
        for node in ast.walk(indexer)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    assert 0 < len(methods) <= MAX_METHODS, methods


def test_the_indexer_imports_none_of_the_pipeline() -> None:
    found = imported(tree(INDEXER)) & PIPELINE
    assert not found, f"ingest/indexer.py imports {sorted(found)}: that work is not its own"


def test_only_the_writer_counts_reused_embeddings() -> None:
    """No flag passes reuse counting between the writer and its callers: the counter is
    changed in `index/writer.py` alone."""
    counting = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(tree(path)):
            target = node.target if isinstance(node, ast.AugAssign) else None
            if isinstance(target, ast.Attribute) and target.attr == "embeddings_reused":
                counting.append(path.relative_to(PACKAGE).as_posix())
    assert counting and set(counting) == {"index/writer.py"}, counting
