"""In-process measurements: the exact windows the daemon embeds, raw encode rates, and a
dense-only hit@5 on the eval questions.

Windows are rebuilt with the daemon's own planner (ingest/planner.py: parse → chunks →
windows with the embedder's tokenizer), so "the same texts" means the same bytes the
index writer hands to the encoder. The writer embeds each distinct window once (the
embedding cache is keyed by the window's text hash), so the raw rate is measured on the
distinct windows too.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragd.index.embedder import MiniLMEmbedder
from ragd.ingest.planner import Planner, Skip

_EMBEDDERS: dict[str, MiniLMEmbedder] = {}


def embedder(precision: str) -> MiniLMEmbedder:
    """One loaded model per precision for the whole bench run."""
    if precision not in _EMBEDDERS:
        # The daemon's entry module sets process-wide defaults before torch loads (offline
        # hub, the OpenMP wait policy, ...): import it first, so the encoder here runs under
        # exactly the settings `ragd serve` runs under.
        importlib.import_module("ragd.cli.main")
        _EMBEDDERS[precision] = MiniLMEmbedder(precision=precision)  # type: ignore[arg-type]
    return _EMBEDDERS[precision]


@dataclass
class ChunkWindows:
    source: str  # relative to its root, as the daemon labels it with one root
    heading: str
    windows: list[str]


def chunk_windows(root: Path, paths: Iterable[Path], model: MiniLMEmbedder) -> list[ChunkWindows]:
    planner = Planner(model)
    out = []
    for path in paths:
        rel = path.relative_to(root).as_posix()
        plan = planner.plan_bytes(str(root), rel, path.read_bytes())
        if isinstance(plan, Skip):
            continue
        out.extend(ChunkWindows(rel, p.row.heading, p.windows) for p in plan.chunks)
    return out


def distinct_windows(chunks: Sequence[ChunkWindows]) -> list[str]:
    """Every window once, in first-seen order (what the writer actually encodes)."""
    seen: set[str] = set()
    out = []
    for chunk in chunks:
        for window in chunk.windows:
            key = hashlib.sha256(window.encode()).hexdigest()
            if key not in seen:
                seen.add(key)
                out.append(window)
    return out


def time_encode(model: MiniLMEmbedder, texts: Sequence[str]) -> tuple[float, float, np.ndarray]:
    """Wall and CPU seconds for `model.embed(texts)` (the writer's call: same batch size,
    same lane), and the vectors."""
    model.embed(list(texts[: model.batch_size]), lane="index")  # warm the kernels
    cpu = time.process_time()
    started = time.perf_counter()
    vectors = model.embed(list(texts), lane="index")
    return time.perf_counter() - started, time.process_time() - cpu, vectors


@functools.cache
def library_model() -> Any:
    """sentence-transformers' own loading of the model ragd runs itself (index/minilm.py)."""
    from sentence_transformers import SentenceTransformer

    from ragd.index.embedder import model_path

    return SentenceTransformer(str(model_path()), device="cpu")


def time_raw_encode(model: MiniLMEmbedder, texts: Sequence[str]) -> tuple[float, float]:
    """Wall and CPU seconds for sentence-transformers' own `encode` on the same texts, batch size
    and model: the raw rate the daemon's ingest is compared with. (`model` gives the batch
    size; the encoder is the library's own load of the same weights.)"""
    st = library_model()
    st.encode(list(texts[: model.batch_size]), batch_size=model.batch_size)  # warm up
    cpu = time.process_time()
    started = time.perf_counter()
    st.encode(list(texts), batch_size=model.batch_size, normalize_embeddings=True)
    return time.perf_counter() - started, time.process_time() - cpu


def word_pieces(model: MiniLMEmbedder, texts: Iterable[str]) -> int:
    return sum(model.count_tokens(t) for t in texts)


# -- retrieval quality -------------------------------------------------------------------
def load_questions(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if r.get("answerable")]


def hit_at_k(
    model: MiniLMEmbedder,
    chunks: Sequence[ChunkWindows],
    window_vectors: np.ndarray,
    questions: Sequence[dict[str, Any]],
    k: int = 5,
) -> dict[str, Any]:
    """Dense-only retrieval by brute-force cosine, a chunk scored by its best window."""
    owner = np.array([i for i, c in enumerate(chunks) for _ in c.windows])
    query_vectors = model.embed([q["question"] for q in questions], lane="query")
    hits = 0
    misses = []
    for question, vector in zip(questions, query_vectors, strict=True):
        scores = window_vectors @ vector
        best = np.full(len(chunks), -2.0, dtype=np.float32)
        np.maximum.at(best, owner, scores)
        top = np.argsort(-best, kind="stable")[:k]
        expected = {(e["source"], e["heading"]) for e in question["expected"]}
        if any((chunks[i].source, chunks[i].heading) in expected for i in top):
            hits += 1
        else:
            misses.append(question["question"])
    return {
        "questions": len(questions),
        "hits": hits,
        "hit_at_5": round(hits / max(1, len(questions)), 4),
        "misses": misses,
    }


def flatten(chunks: Sequence[ChunkWindows]) -> list[str]:
    return [w for c in chunks for w in c.windows]
