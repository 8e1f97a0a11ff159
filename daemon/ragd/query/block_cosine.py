"""The cosine of a candidate's heading-free blocks with the question: the refusal rule's
second look at a question it would otherwise refuse.

A window embeds the chunk's whole heading path before its block (ingest/windows.py), and
in a small manual the document's title repeats in every window, which dilutes a
paraphrase's cosine: "What is the purser responsible for during a crossing?" has cosine
0.28 with the *Crew Roles > Purser* window and 0.44 with its paragraph alone. Only the
rescue reads it (docs/calibration.md), so it is computed only when the rule would refuse,
and only for the few candidates that can hold the best block (LEADERS by support and by
window cosine, measured against every candidate in bench/block_ranks.py): their blocks
are embedded in one batch, and a block seen before comes from a small cache.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ragd.index.embedder import Embedder
from ragd.ingest.chunking import split_blocks
from ragd.query.types import RetrievedChunk

LEADERS = 4  # candidates read by each ranking (support, window cosine)
MAX_BLOCKS = 64  # at most this many blocks are embedded per question (the leaders' first)
CACHED = 2048  # block vectors kept (384 floats each: about 3 MB)


class BlockCosines:
    """Best heading-free block cosine of a question's leading candidates."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def best(self, vector: np.ndarray, candidates: Sequence[RetrievedChunk]) -> float:
        """The highest cosine of `vector` with a block of the leading candidates (0.0 if
        they have none)."""
        blocks = blocks_of(leaders(candidates))
        if not blocks:
            return 0.0
        vectors = self._embedded(blocks)
        return float((vectors @ vector).max())

    def _embedded(self, blocks: list[str]) -> np.ndarray:
        keys = [hashlib.blake2b(b.encode("utf-8"), digest_size=16).digest() for b in blocks]
        with self._lock:  # searches may run on several threads
            known = {k: self._vectors[k] for k in keys if k in self._vectors}
            for key in known:
                self._vectors.move_to_end(key)
        missing = {k: b for k, b in zip(keys, blocks, strict=True) if k not in known}
        if missing:
            # One batch for every new block (the query lane: this runs inside a search).
            fresh = self.embedder.embed(list(missing.values()), lane="query")
            known.update(zip(missing, fresh, strict=True))
            with self._lock:
                self._vectors.update((k, known[k]) for k in missing)
                while len(self._vectors) > CACHED:
                    self._vectors.popitem(last=False)
        return np.stack([known[k] for k in keys])


def leaders(candidates: Sequence[RetrievedChunk], count: int = LEADERS) -> list[RetrievedChunk]:
    """The best `count` candidates by support and the best `count` by window cosine (the
    best block sits in one of them: bench/block_ranks.py), without repeats."""
    by_support = sorted(candidates, key=lambda c: -c.support)[:count]
    by_cosine = sorted(candidates, key=lambda c: -c.cosine)[:count]
    # Taken in turn, so a cap on blocks (blocks_of) drops the last of both rankings.
    paired = [c for pair in zip(by_support, by_cosine, strict=True) for c in pair]
    return list({c.chunk_id: c for c in paired}.values())


def blocks_of(chunks: Sequence[RetrievedChunk], limit: int = MAX_BLOCKS) -> list[str]:
    """The chunks' distinct blocks, in order, at most `limit` (a chunk of one block is
    that block)."""
    out: dict[str, None] = {}
    for chunk in chunks:
        for block in split_blocks(chunk.text) or [chunk.text]:
            if len(out) >= limit:
                return list(out)
            if block.strip():
                out[block] = None
    return list(out)
