"""Hybrid retrieval: dense ∥ BM25 → RRF → support scores → the gate's decision.

Dense search returns *windows*; a chunk's cosine is its best window's. The support
score the gate decides on is computed for every fused candidate (see `support.py`), so
a chunk that only BM25 found still gets an honest semantic score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragd.index.dense import chunk_of, window_id
from ragd.index.embedder import Embedder
from ragd.index.server_store import VectorStoreUnavailable
from ragd.index.store import Stores
from ragd.query.fusion import fuse
from ragd.query.support import SupportScorer, identifier_share, identifiers
from ragd.query.types import GateDecision, RetrievedChunk
from ragd.roots import Roots


@dataclass(frozen=True)
class RetrievalResult:
    query: str
    chunks: list[RetrievedChunk]
    gate: GateDecision
    query_vector: np.ndarray
    note: str = ""  # e.g. the vector store was unreachable: BM25 only


class Retriever:
    def __init__(
        self,
        stores: Stores,
        embedder: Embedder,
        roots: Roots,
        candidates: int = 20,
        floor: float = 0.42,
    ) -> None:
        self.stores = stores
        self.embedder = embedder
        self.roots = roots
        self.candidates = candidates
        self.floor = floor
        self.support = SupportScorer(stores.lexical)

    def dense_ranking(self, vector: np.ndarray) -> tuple[list[str], dict[str, float]]:
        best: dict[str, float] = {}
        for wid, similarity in self.stores.dense.query(vector, self.candidates * 3):
            cid = chunk_of(wid)
            if similarity > best.get(cid, -2.0):
                best[cid] = similarity
        ranking = sorted(best, key=lambda c: -best[c])[: self.candidates]
        return ranking, best

    def search(
        self, query: str, top_k: int = 5, mode: str = "hybrid", floor: float | None = None
    ) -> RetrievalResult:
        vector = self.embedder.embed([query], lane="query")[0]
        note = ""
        try:
            dense, cosines = self.dense_ranking(vector) if mode != "bm25" else ([], {})
        except VectorStoreUnavailable as exc:
            dense, cosines = [], {}
            note = f"vector store unreachable ({exc}): BM25 results only"
        lexical = (
            [cid for cid, _ in self.stores.lexical.search(query, self.candidates)]
            if mode != "vector"
            else []
        )
        rows = self.stores.manifest.chunk_rows(set(dense) | set(lexical))
        # Ids an index holds before the manifest commit are not served.
        dense = [c for c in dense if c in rows]
        lexical = [c for c in lexical if c in rows]
        fused = fuse([dense, lexical], top_k)
        missing = [cid for cid, _ in fused if cid not in cosines]
        cosines.update(self._cosines(vector, missing, rows))
        weights = self.support.question_terms(query)
        wanted = identifiers(query)
        dense_rank = {cid: i for i, cid in enumerate(dense, start=1)}
        bm25_rank = {cid: i for i, cid in enumerate(lexical, start=1)}
        chunks = []
        for cid, fused_score in fused:
            row = rows[cid]
            cosine = float(cosines.get(cid, 0.0))
            texts = (row.heading, row.text, row.relpath)
            coverage = self.support.coverage(weights, texts)
            exact = identifier_share(wanted, texts)
            chunks.append(
                RetrievedChunk(
                    chunk_id=cid,
                    source=self.roots.label(row.root, row.relpath),
                    heading=row.heading,
                    text=row.text,
                    support=round(self.support.combine(cosine, coverage, exact), 4),
                    cosine=round(cosine, 4),
                    coverage=round(coverage, 4),
                    identifiers=round(exact, 4),
                    fused=round(fused_score, 6),
                    vector_rank=dense_rank.get(cid),
                    bm25_rank=bm25_rank.get(cid),
                    page=row.page,
                )
            )
        # Equal fused scores (e.g. BM25's #1 and the vector retriever's #1, both 1/61) are
        # broken by support, so the better-supported chunk comes first.
        chunks.sort(key=lambda c: (-c.fused, -c.support))
        threshold = self.floor if floor is None else floor
        best = max((c.support for c in chunks), default=0.0)
        gate = GateDecision(passed=best >= threshold, support=best, floor=threshold)
        return RetrievalResult(query, chunks, gate, vector, note)

    def _cached_vectors(self, chunk_ids: list[str], rows) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
        """Window vectors from the manifest's embedding cache (no vector store needed)."""
        hashes = {window_id(c, i): h for c in chunk_ids for i, h in enumerate(rows[c].windows)}
        cached = self.stores.manifest.cached_vectors(self.embedder.model_id, list(hashes.values()))
        return {wid: cached[h] for wid, h in hashes.items() if h in cached}

    def _cosines(self, vector: np.ndarray, chunk_ids: list[str], rows) -> dict[str, float]:  # type: ignore[no-untyped-def]
        """Best-window cosine for chunks the dense retriever did not return."""
        ids = [window_id(c, i) for c in chunk_ids for i in range(len(rows[c].windows))]
        try:
            vectors = self.stores.dense.vectors(ids)
        except VectorStoreUnavailable:  # the embedding cache holds the same vectors
            vectors = self._cached_vectors(chunk_ids, rows)
        out: dict[str, float] = {}
        for wid, vec in vectors.items():
            cid = chunk_of(wid)
            out[cid] = max(out.get(cid, -2.0), float(np.dot(vector, vec)))
        return out
