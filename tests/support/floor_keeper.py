"""A floor keeper over a one-note index, measured only when a test asks (no thread)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragd.harness.localindex import LocalIndex
from ragd.query.calibration import FloorKeeper


def one_note_keeper(tmp_path: Path, embedder: Any) -> tuple[LocalIndex, FloorKeeper]:
    """A lighthouse note indexed under `tmp_path`, and a FloorKeeper on it whose index
    never changes (signature 1) and whose floor is saved nowhere. Close the index."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "lighthouse.md").write_text("# Lighthouse\n\nThe fog horn sounds at dusk.\n")
    index = LocalIndex(folder, tmp_path / "data", embedder)
    keeper = FloorKeeper(
        index.retriever,
        embedder,
        index.stores.manifest,
        signature=lambda: 1,
        busy=lambda: False,
        save=lambda key, value: None,
    )
    return index, keeper
