"""Reads of a manifest that only tests make (the daemon never needs them): through a
connection of their own, so the production class carries no test-only methods."""

from __future__ import annotations

import contextlib
import json
import sqlite3

from ragd.index.manifest import Manifest


def windows_in_use(manifest: Manifest) -> set[str]:
    """Every distinct window hash some chunk of the manifest uses."""
    with contextlib.closing(sqlite3.connect(manifest.path)) as db:
        rows = db.execute("SELECT windows FROM chunks").fetchall()
    return {window for (windows,) in rows for window in json.loads(windows)}


def embedding_count(manifest: Manifest, model: str) -> int:
    """How many vectors the embedding cache holds for `model`."""
    with contextlib.closing(sqlite3.connect(manifest.path)) as db:
        row = db.execute("SELECT COUNT(*) FROM embeddings WHERE model=?", (model,)).fetchone()
    return int(row[0])
