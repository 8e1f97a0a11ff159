"""Equal BM25 scores come in chunk-id order, the cut included. Identical copies of a text
in several files score the same; tantivy returns equals in its document order, which
follows the index's history (segments, deletes, re-adds), so which copy a search showed
depended on what had been edited before (attack51)."""

from __future__ import annotations

import random
from pathlib import Path

from ragd.index.lexical import TIES_READ, LexicalDoc, TantivyIndex

TEXT = "Spring tides at the harbour mouth rise four metres above the sill."


def _copy(number: int) -> LexicalDoc:
    return LexicalDoc(chunk_id=f"c{number:03}", source=f"n{number:03}.md", heading="", text=TEXT)


def test_tied_copies_come_in_chunk_id_order_whatever_the_index_history(tmp_path: Path) -> None:
    numbers = list(range(40))
    random.Random(7).shuffle(numbers)
    index = TantivyIndex(tmp_path / "lexical")
    try:
        for start in range(0, 40, 10):  # four segments, in shuffled order
            index.add(_copy(n) for n in numbers[start : start + 10])
            index.commit()
        index.delete(f"c{n:03}" for n in range(0, 40, 3))  # and re-added: moved to the end
        index.commit()
        index.add(_copy(n) for n in range(0, 40, 3))
        index.commit()
        question = "how high do spring tides rise at the harbour mouth"
        for n in (1, 5, 20):
            hits = index.search(question, n)
            assert [chunk for chunk, _ in hits] == [f"c{k:03}" for k in range(n)], n
            assert len({score for _, score in hits}) == 1, "the copies score the same"
        assert TIES_READ >= 40
    finally:
        index.close()


def test_a_better_chunk_still_comes_before_the_tied_ones(tmp_path: Path) -> None:
    index = TantivyIndex(tmp_path / "lexical")
    try:
        index.add(_copy(n) for n in (9, 3, 5))
        better = "Spring tides: spring tides rise highest at the harbour mouth."
        index.add([LexicalDoc(chunk_id="z", source="tides.md", heading="Tides", text=better)])
        index.commit()
        hits = index.search("spring tides harbour mouth", 3)
        assert [chunk for chunk, _ in hits] == ["z", "c003", "c005"]
    finally:
        index.close()
