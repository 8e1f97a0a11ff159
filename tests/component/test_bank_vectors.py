"""The shipped vectors of the off-subject bank: the model's own, and refused when not."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragd.query import bank_vectors
from ragd.query.offtopic_bank import OFFTOPIC_BANK


def test_shipped_vectors_are_the_models_for_every_question(embedder) -> None:  # type: ignore[no-untyped-def]
    """Fails when the bank or the model changed without `python -m ragd.query.bank_vectors`."""
    vectors = bank_vectors.shipped(embedder)
    assert vectors is not None and vectors.dtype == np.float32
    live = embedder.embed(list(OFFTOPIC_BANK), lane="index")
    cosines = [bank_vectors.cosine(a, b) for a, b in zip(vectors, live, strict=True)]
    assert min(cosines) >= bank_vectors.AGREEMENT


def store(path: Path, key: str, vectors: np.ndarray) -> Path:
    np.savez_compressed(path, key=np.array(key), vectors=vectors.astype(np.float16))
    return path


def test_vectors_that_disagree_with_the_model_are_not_used(embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    vectors = bank_vectors.shipped(embedder)
    assert vectors is not None
    key = bank_vectors.bank_key(embedder.model_id)
    # Real vectors of the bank, each under another question (rolled by one): a stale file.
    rolled = store(tmp_path / "rolled.npz", key, np.roll(vectors, 1, axis=0))
    assert bank_vectors.shipped(embedder, rolled) is None
    # The right vectors under another model's key, or a bank of another size.
    other = store(tmp_path / "other.npz", bank_vectors.bank_key("another/model"), vectors)
    assert bank_vectors.shipped(embedder, other) is None
    short = store(tmp_path / "short.npz", key, vectors[:-1])
    assert bank_vectors.shipped(embedder, short) is None
    assert bank_vectors.shipped(embedder, tmp_path / "absent.npz") is None
    # And the same file, unchanged, is used.
    same = store(tmp_path / "same.npz", key, vectors)
    kept = bank_vectors.shipped(embedder, same)
    assert kept is not None and np.array_equal(kept, vectors)
