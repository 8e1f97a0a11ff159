"""`make eval` with another semantic view of a chunk, to see whether the gate would gain.

A window embeds the chunk's whole heading path before its block (ingest/windows.py), and
in a small corpus the document's title repeats in every window: "What is the purser
responsible for during a crossing?" has cosine 0.28 with the *Purser* window and 0.44
with its paragraph alone. Each variant embeds, in this process, the fused candidates'
blocks another way and reads their cosine instead of (or beside) the stored windows'; the
candidates themselves still come from the stored index, so nothing is re-indexed:

* `maxcos` — support's cosine is the better of the window's and the heading-free block's
  (support, the floor, topicality, the page and the answers all read it);
* `rescue` — only the gate's `cosine` signal (read by the refusal rule's rescue alone)
  is the better of the two; support, the page and the answers are as shipped;
* `lastlevel` — support's cosine is the window's with only the last heading level.

Writes the measurements to OUT_JSON (not bench/corpora/measured.json) and leaves
bench/out/eval/report.json as it was; `python bench/refit.py OUT_JSON` and
`bench/gate_misses.py` read them. docs/calibration.md has the figures (none is kept).
Usage: python bench/cosine_variants.py MODE OUT_JSON [CORPUS ...]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bench.crosseval as eval_script  # noqa: E402

from ragd.harness import crosseval  # noqa: E402
from ragd.ingest.chunking import split_blocks  # noqa: E402
from ragd.ingest.windows import make_windows  # noqa: E402
from ragd.query import gate, retrieval  # noqa: E402

MODES = ("maxcos", "rescue", "lastlevel")


class Variant:
    """The other view's vectors per chunk (an index's chunk ids: cleared per corpus)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.vectors: dict[str, np.ndarray] = {}
        self.query: np.ndarray | None = None

    def texts(self, row: Any, count_tokens: Any) -> list[str]:
        if self.mode == "lastlevel":
            return make_windows(row.heading.split(" > ")[-1], row.text, count_tokens)
        return split_blocks(row.text) or [row.text]

    def embed_missing(self, retriever: Any, chunk_ids: Sequence[str], rows: Any) -> None:
        owners: list[str] = []
        texts: list[str] = []
        for cid in chunk_ids:
            if cid not in self.vectors:
                for text in self.texts(rows[cid], retriever.embedder.count_tokens):
                    owners.append(cid)
                    texts.append(text)
        if texts:
            vectors = retriever.embedder.embed(texts, lane="index")
            grouped: dict[str, list[np.ndarray]] = {}
            for cid, vector in zip(owners, vectors, strict=True):
                grouped.setdefault(cid, []).append(vector)
            self.vectors.update({cid: np.stack(group) for cid, group in grouped.items()})

    def cosine(self, cid: str) -> float:
        assert self.query is not None
        return float((self.vectors[cid] @ self.query).max())


def install(variant: Variant) -> None:
    judged = retrieval.Retriever._judged
    signals = gate.signals

    def judged_with(self: Any, found: Any, top_k: int, floor: float | None, **kw: Any) -> Any:
        chunk_ids = [cid for cid, _ in found.fused]
        variant.embed_missing(self, chunk_ids, found.rows)
        variant.query = found.vector
        if variant.mode != "rescue":
            for cid in chunk_ids:
                other = variant.cosine(cid)
                window = found.cosines.get(cid, 0.0)
                found.cosines[cid] = max(other, window) if variant.mode == "maxcos" else other
        return judged(self, found, top_k, floor, **kw)

    def signals_with(analysis: Any, candidates: Any, analyze: Any) -> dict[str, float]:
        out = signals(analysis, candidates, analyze)
        if variant.mode == "rescue" and candidates:
            best = max(variant.cosine(c.chunk_id) for c in candidates)
            out["cosine"] = round(max(out["cosine"], best), 4)
        return out

    measure = crosseval.measure

    def measure_with(name: str, *args: Any, **kwargs: Any) -> Any:
        variant.vectors.clear()
        return measure(name, *args, **kwargs)

    retrieval.Retriever._judged = judged_with  # type: ignore[method-assign]
    gate.signals = signals_with
    eval_script.measure = measure_with


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in MODES:
        print(__doc__)
        return 2
    install(Variant(argv[0]))
    eval_script.MEASURED = Path(argv[1])
    report = eval_script.OUT / "report.json"
    kept = report.read_bytes() if report.exists() else None
    try:
        return eval_script.main(argv[2:])
    finally:
        if kept is not None:
            report.write_bytes(kept)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
