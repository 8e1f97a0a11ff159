"""Which candidates hold the best heading-free block, for the questions the gate would refuse?

The refusal rule's second look (query/block_cosine.py) embeds the blocks of a few leading
candidates only, not of every fused candidate. This measures the bound: on each corpus
`make eval` kept under bench/out/eval/ (the index is re-read, not rebuilt), for every
question under the floor whose passages hold its identifiers (the eval questions and the
index's 30 top bank questions), the best block cosine over every candidate against the
best over the first K by support and the first K by window cosine. A question lost is one
whose best block is missed where it would beat the windows' cosine near the rescue line.
Usage: python bench/block_ranks.py [CORPUS ...]   (writes bench/out/block_ranks.json)
       python bench/block_ranks.py --kept          (summarises that file again)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.corpora import CORPORA  # noqa: E402
from bench.inproc import embedder  # noqa: E402

from ragd.harness.gatefit import BANK_NEGATIVES  # noqa: E402
from ragd.harness.localindex import LocalIndex  # noqa: E402
from ragd.ingest.chunking import split_blocks  # noqa: E402
from ragd.query.calibration import MARGIN, QUANTILE  # noqa: E402
from ragd.query.offtopic_bank import OFFTOPIC_BANK  # noqa: E402

EVAL = ROOT / "bench" / "out" / "eval"
OUT = ROOT / "bench" / "out" / "block_ranks.json"
BOUNDS = (1, 2, 3, 4, 5, 6, 8, 10)
NEAR_LINE = 0.38  # a block cosine that could matter to the rescue (its line: 0.43–0.44)


def measure_corpus(corpus: Any, model: Any, bank_vectors: np.ndarray, kept: dict) -> list[dict]:  # type: ignore[type-arg]
    floor = float(np.quantile(kept["bank"], QUANTILE)) + MARGIN
    index = LocalIndex(corpus.kept(EVAL / "corpora"), EVAL / "index" / corpus.name, model)
    vectors: dict[str, np.ndarray] = {}

    def best_block(text: str, question: np.ndarray) -> float:
        blocks = split_blocks(text) or [text]
        new = [b for b in dict.fromkeys(blocks) if b not in vectors]
        if new:
            vectors.update(zip(new, model.embed(new, lane="index"), strict=True))
        return max(float(vectors[b] @ question) for b in blocks)

    top_bank = sorted(range(len(OFFTOPIC_BANK)), key=lambda i: -kept["bank"][i])[:BANK_NEGATIVES]
    asked = [(OFFTOPIC_BANK[i], "bank", bank_vectors[i]) for i in top_bank]
    asked += [(a["question"], a["kind"], None) for a in kept["asked"]]
    out = []
    try:
        for question, kind, vector in asked:
            result = index.retriever.search(question, top_k=5, vector=vector)
            gate = result.gate
            if gate.support >= floor or gate.signals["identifiers"] < 1:
                continue
            block = {c.chunk_id: best_block(c.text, result.query_vector) for c in result.candidates}
            by_support = sorted(result.candidates, key=lambda c: -c.support)
            by_cosine = sorted(result.candidates, key=lambda c: -c.cosine)
            out.append(
                {
                    "corpus": corpus.name,
                    "question": question,
                    "kind": kind,
                    "window": max(c.cosine for c in result.candidates),
                    "block": round(max(block.values()), 4),
                    "by_support": [round(block[c.chunk_id], 4) for c in by_support],
                    "by_cosine": [round(block[c.chunk_id], 4) for c in by_cosine],
                }
            )
    finally:
        index.close()
    return out


def bounded(row: dict, k: int) -> float:  # type: ignore[type-arg]
    return max(max(row["by_support"][:k]), max(row["by_cosine"][:k]))


def main(names: list[str]) -> int:
    if names == ["--kept"]:
        summarise(json.loads(OUT.read_text()))
        return 0
    kept = json.loads((ROOT / "bench" / "corpora" / "measured.json").read_text())
    model = embedder("auto")
    bank_vectors = model.embed(list(OFFTOPIC_BANK), lane="index")
    rows: list[dict] = []  # type: ignore[type-arg]
    for corpus in CORPORA:
        if (names and corpus.name not in names) or corpus.name not in kept:
            continue
        rows += measure_corpus(corpus, model, bank_vectors, kept[corpus.name])
    OUT.write_text(json.dumps(rows))
    summarise(rows)
    return 0


def summarise(rows: list[dict]) -> None:  # type: ignore[type-arg]
    print(f"{len(rows)} questions under the floor")
    for k in BOUNDS:
        # Rounded to 4 places like the kept cosines: a difference under 1e-4 is not a loss.
        lost = [
            r
            for r in rows
            if bounded(r, k) < round(r["block"], 4) - 1e-4
            and r["block"] >= NEAR_LINE
            and r["block"] > r["window"]
        ]
        print(f"K={k:2}: best block missed near the line on {len(lost)}")
        for r in lost:
            print(
                f"    {r['corpus']} {r['kind']}: {r['question'][:70]!r} block {r['block']:.3f}"
                f" -> {bounded(r, k):.3f} (window {r['window']:.3f})"
            )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
