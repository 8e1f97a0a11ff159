"""hit@5 of the working tree's retriever on the indexes `make eval` keeps: the inner loop
for tuning retrieval (fusion, query analysis, the page's order).

Usage::

    python bench/retrieval_replay.py [CORPUS ...] [--misses] [--set MODULE.NAME=VALUE ...]

Opens each corpus's index under bench/out/eval/ (built as `make eval` builds them when missing;
a re-run only re-reads the files), asks every answerable question as the evaluation does
(`Retriever.search`, top_k 5) and prints hit@5 per corpus and pooled. `--misses` prints,
for each miss, where its expected chunks stand: their rank in the fused candidates, in
the dense ranking and in BM25's (searched 200 deep), and their support. `--set` overrides
a module constant for this run (e.g. `ragd.query.page.SUPPORT_WEIGHT=0.06`), so variants
are compared without editing the code. `make eval` remains the measurement of record.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpora import CORPORA  # noqa: E402

from ragd.harness.evaluation import Question, load_questions  # noqa: E402
from ragd.index.shared_vectors import ranked_chunks  # noqa: E402

OUT = ROOT / "bench" / "out" / "eval"
DEEP = 200  # how deep each retriever is searched for a miss's expected chunks


def override(assignment: str) -> None:
    """`module.NAME=value`: set that module constant (value read as a Python literal)."""
    import ast

    target, value = assignment.split("=", 1)
    module, name = target.rsplit(".", 1)
    setattr(importlib.import_module(module), name, ast.literal_eval(value))


def expected_ids(index: Any, q: Question) -> set[str]:
    out = set()
    for e in q.expected:
        for row in index.stores.manifest.chunks_of(index._root, e.source):
            if e.matches(e.source, row.heading, row.text):
                out.add(row.chunk_id)
    return out


def deep_ranks(index: Any, question: str, vector: Any) -> tuple[list[str], list[str]]:
    """Each retriever's chunks, best first, DEEP deep."""
    retriever = index.retriever
    (hits,) = retriever.stores.dense.query_many(vector.reshape(1, -1), DEEP * 3, None)
    holders = retriever.stores.manifest.window_holders(h for h, _ in hits)
    dense = list(ranked_chunks(hits, holders))
    lexical = [cid for cid, _ in retriever.stores.lexical.search(question, DEEP)]
    return dense, lexical


def rank_of(ids: set[str], ranking: list[str]) -> str:
    found = [i for i, cid in enumerate(ranking, start=1) if cid in ids]
    return str(found[0]) if found else "-"


def describe_miss(index: Any, q: Question, result: Any) -> str:
    ids = expected_ids(index, q)
    dense, lexical = deep_ranks(index, q.question, result.query_vector)
    candidates = [c.chunk_id for c in result.candidates]
    best = [c for c in result.candidates if c.chunk_id in ids]
    support = f"{max(c.support for c in best):.3f}" if best else "-"
    page = " | ".join(f"{c.source}:{c.heading[-50:]}" for c in result.chunks[:3])
    return (
        f"  MISS {q.question}\n"
        f"     expected {len(ids)} chunk(s): fused #{rank_of(ids, candidates)} of "
        f"{len(candidates)}, dense #{rank_of(ids, dense)}, bm25 #{rank_of(ids, lexical)}, "
        f"support {support}\n     page: {page}"
    )


def run(names: list[str], misses: bool) -> None:
    from bench.inproc import embedder

    from ragd.harness.localindex import LocalIndex

    model = embedder("auto")
    pooled = [0, 0]
    for corpus in CORPORA:
        if names and corpus.name not in names:
            continue
        index = LocalIndex(corpus.kept(OUT / "corpora"), OUT / "index" / corpus.name, model)
        hits, lines = 0, []
        asked = [q for q in load_questions(corpus.questions) if q.answerable and q.expected]
        try:
            for q in asked:
                result = index.retriever.search(q.question, top_k=5)
                hit = q.found_in(
                    [
                        {"source": c.source, "heading": c.heading, "text": c.text}
                        for c in result.chunks
                    ]
                )
                hits += hit
                if misses and not hit:
                    lines.append(describe_miss(index, q, result))
        finally:
            index.close()
        pooled = [pooled[0] + hits, pooled[1] + len(asked)]
        print(f"{corpus.name:12} hit@5 {hits / len(asked):.3f}  ({hits}/{len(asked)})", flush=True)
        for line in lines:
            print(line)
    print(f"{'pooled':12} hit@5 {pooled[0] / max(pooled[1], 1):.3f}  ({pooled[0]}/{pooled[1]})")


def main(argv: list[str]) -> None:
    names, i = [], 0
    while i < len(argv):
        if argv[i] == "--set":
            override(argv[i + 1])
            i += 2
            continue
        if not argv[i].startswith("--"):
            names.append(argv[i])
        i += 1
    run(names, "--misses" in argv)


if __name__ == "__main__":
    main(sys.argv[1:])
