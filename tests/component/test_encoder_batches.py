"""The encoder's batches (issue 20 item 5): texts are tokenized once and batched by exact
word-piece length, and the writer hands the encoder its windows shortest first. Neither
may change a vector or give a window another window's vector: every vector here is
checked against the text embedded on its own (a batch of one has no padding) and against
sentence-transformers' own `encode`."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragd.index import writer as writer_module
from ragd.index.store import Stores
from ragd.index.writer import IndexWriter
from ragd.ingest.planner import FileRules, Planner

SAME = 0.9999  # cosine: the same vector up to float32 rounding in another batch shape


def mixed_texts() -> list[str]:
    """Lengths from one word to past the encoder's limit, prose, code and a table."""
    long_paragraph = " ".join(f"Sentence {i} of the long paragraph about tides." for i in range(60))
    return [
        "Tides",
        "# Harbour\nThe harbour opens at dawn.",
        "def tide(hour):\n    return hour % 12  # a semidiurnal approximation",
        "| port | high water |\n|---|---|\n| Brest | 06:12 |\n| Cherbourg | 07:40 |",
        long_paragraph,
        "https://example.org/tides/brest/2026/table-of-coefficients-and-heights.html",
        "The keeper logs the wind, the swell and the visibility every four hours.",
        "Ébauche: marées, coefficients, « vives-eaux » et « mortes-eaux ».",
        "x",
        "A" * 40,
    ]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1))


def test_each_text_gets_its_own_vector_in_a_batch_of_mixed_lengths(embedder: Any) -> None:
    texts = mixed_texts() * 2
    random.Random(4).shuffle(texts)
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert together.shape == (len(texts), embedder.dimension)
    assert cosines(together, alone).min() >= SAME
    # Each row is its own text's: distinct texts' vectors are not interchangeable.
    distinct = {t: alone[i] for i, t in enumerate(texts)}
    assert len(distinct) == len(mixed_texts())
    others = [
        float(v @ together[texts.index(t)]) for t in distinct for u, v in distinct.items() if u != t
    ]
    assert max(others) < SAME


def test_vectors_match_the_library_encode(embedder: Any) -> None:
    """The batches built from ids tokenized once are the tokenizer's own padded batches:
    sentence-transformers' `encode` (its own tokenization, truncation and padding) agrees."""
    texts = mixed_texts()
    ours = embedder.embed(texts)
    library = embedder._model.encode(texts, batch_size=4, normalize_embeddings=True)
    assert cosines(ours, np.asarray(library, dtype=np.float32)).min() >= SAME


def test_a_text_past_the_limit_is_cut_at_the_limit(embedder: Any) -> None:
    long_text = mixed_texts()[4]
    assert embedder.count_tokens(long_text) > embedder.max_tokens
    ids = embedder._counter(long_text, add_special_tokens=False)["input_ids"]
    kept = embedder._counter.decode(ids[: embedder.max_tokens - 2])
    full, cut = embedder.embed([long_text, kept])
    assert float(full @ cut) >= SAME


@pytest.fixture
def stores(tmp_path: Path) -> Stores:
    return Stores.open(tmp_path / "data")


def write_files(root: Path) -> list[str]:
    """Three files whose windows run from one line to a long paragraph, interleaved."""
    texts = mixed_texts()
    names = []
    for n in range(3):
        body = "\n\n".join(texts[(n + i) % len(texts)] + f" (file {n}, part {i})" for i in range(9))
        (root / f"note{n}.md").write_text(f"# Note {n}\n\n{body}\n")
        names.append(f"note{n}.md")
    return names


def test_files_indexed_together_keep_each_window_its_own_vector(
    tmp_path: Path, stores: Stores, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One batch of files, embedded in slices (scaled down to 4 windows) of one length band
    each: every stored vector is its own window's, and every file is committed."""
    monkeypatch.setattr(writer_module, "EMBED_SLICE", 4)
    root = tmp_path / "root"
    root.mkdir()
    names = write_files(root)
    slices: list[list[str]] = []

    class Recording:
        def __getattr__(self, name: str) -> Any:
            return getattr(embedder, name)

        def embed(self, texts: list[str], lane: str = "index") -> Any:
            slices.append(list(texts))
            return embedder.embed(texts, lane=lane)

    writer = IndexWriter(stores, Recording())  # type: ignore[arg-type]
    planner = Planner(embedder, rules=lambda: FileRules(20 << 20))
    plans = [planner.plan_bytes(str(root), name, (root / name).read_bytes()) for name in names]
    writer.index_files(plans)  # type: ignore[arg-type]

    # Slices are length bands: each one's longest text is no longer than the next one's shortest.
    assert len(slices) > 2 and all(len(s) <= 4 for s in slices)
    for before, after in itertools.pairwise(slices):
        assert max(map(len, before)) <= min(map(len, after))
    assert sum(map(len, slices)) == len({w for p in plans for w in p.windows().values()})  # type: ignore[union-attr]

    for name in names:
        assert stores.manifest.file(str(root), name) is not None
    rows = [(c, w) for p in plans for c in p.chunks for w in c.windows]  # type: ignore[union-attr]
    ids, texts = [], []
    for chunk in {id(c): c for c, _ in rows}.values():
        for text_hash, text in zip(chunk.row.windows, chunk.windows, strict=True):
            ids.append(text_hash)  # a vector's id is its window's text hash
            texts.append(text)
    stored = stores.dense.vectors(ids)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert cosines(np.stack([stored[i] for i in ids]), alone).min() >= SAME


def test_a_file_embedded_slice_by_slice_is_embedded_shortest_first(
    tmp_path: Path, stores: Stores, embedder: Any
) -> None:
    """A large file's missing windows come back from `to_embed` as length bands too, so
    each of its slices is one encoder call with little padding."""
    root = tmp_path / "root"
    root.mkdir()
    name = write_files(root)[0]
    plan = Planner(embedder).plan_bytes(str(root), name, (root / name).read_bytes())
    windows = plan.windows()  # type: ignore[union-attr]
    missing = IndexWriter(stores, embedder).to_embed(windows)
    assert sorted(missing) == sorted(windows)
    assert [len(windows[h]) for h in missing] == sorted(len(w) for w in windows.values())
