"""The gate's `references` signal looks for a named reference where the retriever looked
for every named identifier (support.chunk_texts: heading, text, file path and the path's
words, the root folder's name among them).

It looked in the chunk's heading, text and source label only. With one root the label
is the file's path inside it, without the root folder's name, so a year or release held
only there was held for `identifiers` (1.0) and missing for `references` (0.0): the
topicality rescue, which now reads `references`, no longer applied to a question about
"the 2024 handbook" in a folder named `handbook_2024`."""

from __future__ import annotations

import shutil
from pathlib import Path

from ragd.harness.localindex import LocalIndex
from tests.support.daemon import REPO


def test_a_reference_held_in_the_root_folders_name_is_held(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "handbook_2024"
    folder.mkdir()
    shutil.copy(REPO / "sample_corpus" / "passenger-handbook.md", folder)
    index = LocalIndex(folder, tmp_path / "data", embedder)
    try:
        result = index.retriever.search("What does the 2024 handbook say about dogs?", top_k=5)
        assert result.analysis.identifiers == ("2024",)
        assert "2024" not in result.chunks[0].source  # the label has no root folder
        signals = result.gate.signals
        assert signals["identifiers"] == 1.0  # the year is in the root folder's name
        assert signals["references"] == signals["identifiers"]

        # A plain name beside it: only the year is a reference, and it is held.
        mixed = index.retriever.search(
            "Does the 2024 handbook allow dogs in words_like_this cabins?", top_k=5
        )
        assert mixed.analysis.identifiers == ("2024", "words_like_this")
        assert mixed.gate.signals["identifiers"] == 0.5
        assert mixed.gate.signals["references"] == 1.0
    finally:
        index.close()
