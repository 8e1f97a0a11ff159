"""ragd's own MiniLM forward pass (ragd.index.minilm) against sentence-transformers' `encode`
of the same model: the same vectors to float rounding, the same word-piece counts, the same
truncation at 256 word pieces, in both precisions."""

from __future__ import annotations

import numpy as np
import pytest

from ragd.index.embedder import MAX_TOKENS, MiniLMEmbedder, model_path
from ragd.index.minilm import MiniLM, load_tokenizer
from tests.conftest import SAMPLE_CORPUS


def sample_texts() -> list[str]:
    """Pieces of sample_corpus of very different lengths (some past 256 word pieces),
    plus the edge cases: empty, one letter, non-Latin scripts, a long repetition."""
    texts = []
    for path in sorted(p for p in SAMPLE_CORPUS.rglob("*") if p.suffix in (".md", ".txt")):
        text = path.read_text(errors="replace")
        texts += [text[:60], text[900:1300], text[1800:4300]]
    return [*texts, "", "a", "Ünïcödé, 日本語 und العربية", "word " * 700]


@pytest.fixture(scope="module")
def library():  # type: ignore[no-untyped-def]
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_path()), device="cpu")


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_vectors_agree_with_the_library(library, embedder: MiniLMEmbedder, precision: str) -> None:  # type: ignore[no-untyped-def]
    import torch

    texts = sample_texts()
    assert len(texts) > 15
    ours = embedder.embed(texts, precision=precision)  # type: ignore[arg-type]
    autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16")
    with torch.inference_mode(), autocast:
        theirs = library.encode(texts, batch_size=8, normalize_embeddings=True)
    cosines = (ours * np.asarray(theirs, dtype=np.float32)).sum(axis=1)
    floor = 0.9999 if precision == "float32" else 0.999  # bfloat16 rounds in a batch order
    assert cosines.min() > floor, (precision, float(cosines.min()))
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_word_piece_counts_and_truncation_agree(library, embedder: MiniLMEmbedder) -> None:  # type: ignore[no-untyped-def]
    texts = sample_texts()
    theirs = library.tokenizer(texts, add_special_tokens=False)["input_ids"]
    assert [embedder.count_tokens(t) for t in texts] == [len(ids) for ids in theirs]
    long = max(texts, key=embedder.count_tokens)
    assert embedder.count_tokens(long) > MAX_TOKENS  # the cut below is exercised
    cut = library.tokenizer([long], truncation=True, max_length=MAX_TOKENS)["input_ids"][0]
    ids, mask = MiniLM.tokenize(load_tokenizer(model_path(), MAX_TOKENS), [long, "a"])
    assert ids[0].tolist() == cut
    assert mask[1].sum().item() == 3  # [CLS] a [SEP], the rest padding
