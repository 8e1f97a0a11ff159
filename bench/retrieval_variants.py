"""Fusion and page-order variants scored offline on kept deep rankings, held out.

Usage::

    python bench/retrieval_variants.py collect RANKS.pkl [CORPUS ...]
    python bench/retrieval_variants.py score RANKS.pkl [MORE.pkl ...] [--headings]

`collect` opens the indexes `make eval` keeps under bench/out/eval/ (building a missing
one) and keeps, for every answerable question, each retriever's ranking DEEP chunks deep
(dense: each chunk's best window's rank and cosine; BM25: scores, for the question as
asked and for its content words only), dense rankings for other forms of the question
(its content words; pseudo-relevance feedback from the top dense or BM25 chunks), every
ranked chunk's support parts (support.py) and the ids of the chunks the question expects.
`score` replays the shipped page (candidates per retriever, RRF, fused + 0.04 × support,
release notes weighed down, anchors), checks that it agrees with `Retriever.search` on
every question, then prints hit@5 per corpus for each variant (`--headings` adds the
heading path's own cosine as a signal) and, for each grid of constants, every corpus
scored with the grid point chosen on the other corpora (leave-one-corpus-out).
`tests/unit/test_retrieval_variants.py` holds the replay to query/page.py. Chunk texts are
not kept, so the page's skip of a chunk whose text is already on it is not replayed: no
two files of the eval corpora are the same, so it changes none of their pages.
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpora import CORPORA  # noqa: E402

from ragd.harness.evaluation import load_questions  # noqa: E402

OUT = ROOT / "bench" / "out" / "eval"
DEEP = 100


@dataclass
class Kept:
    question: str
    expected: set[str]
    dense: list[tuple[str, int, float]]  # (chunk, rank of its best window, cosine)
    lexical: list[tuple[str, float]]
    lexical_content: list[tuple[str, float]]  # the question's stop words left out
    chunks: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → support parts
    hit: bool = False  # Retriever.search's own verdict
    alternatives: dict[str, list[tuple[str, int]]] = field(
        default_factory=dict
    )  # other dense queries


def collect_one(index: Any, q: Any) -> Kept:
    from ragd.index.shared_vectors import ranked_chunks
    from ragd.query.retrieval import best_cosines
    from ragd.query.support import chunk_texts, identifier_share

    r = index.retriever
    result = r.search(q.question, top_k=5)
    vector, analysis = result.query_vector, result.analysis
    (hits,) = r.stores.dense.query_many(vector.reshape(1, -1), DEEP * 3, None)
    dense = ranked_chunks(hits, r.stores.manifest.window_holders(h for h, _ in hits))
    lexical = r.stores.lexical.search(q.question, DEEP)
    content = r.stores.lexical.search(" ".join(analysis.words), DEEP) if analysis.words else []
    ids = set(dense) | {c for c, _ in lexical} | {c for c, _ in content}
    alternatives = alternative_rankings(
        r, vector, analysis, dense, lexical, r.stores.manifest.chunk_rows(ids)
    )
    ids |= {c for alt in alternatives.values() for c, _ in alt}
    rows = r.stores.manifest.chunk_rows(ids)
    rows = {c: row for c, row in rows.items() if row.root in r.roots}
    cosines = {c: v[1] for c, v in dense.items()}
    missing = [c for c in rows if c not in cosines]
    cosines.update(best_cosines(vector, missing, rows, r._window_vectors(missing, rows)))
    kept = Kept(
        q.question,
        set(),
        [(c, w, cos) for c, (w, cos) in dense.items() if c in rows],
        [(c, s) for c, s in lexical if c in rows],
        [(c, s) for c, s in content if c in rows],
    )
    for cid, row in rows.items():
        texts = chunk_texts(row)
        cov = r.support.coverage(analysis.weights, texts)
        ident = identifier_share(analysis.identifiers, texts)
        cos = float(cosines.get(cid, 0.0))
        source = r.roots.label(row.root, row.relpath)
        kept.chunks[cid] = {
            "source": source,
            "heading": row.heading,
            "cosine": cos,
            "coverage": cov,
            "identifiers": ident,
            "support": round(r.support.combine(cos, cov, ident), 4),
        }
        if any(e.matches(source, row.heading, row.text) for e in q.expected):
            kept.expected.add(cid)
    kept.alternatives = alternatives
    kept.hit = q.found_in(
        [{"source": c.source, "heading": c.heading, "text": c.text} for c in result.chunks]
    )
    return kept


def _ranked(r: Any, query: Any) -> list[tuple[str, int]]:
    import numpy as np

    from ragd.index.shared_vectors import ranked_chunks

    query = query / np.linalg.norm(query)
    (hits,) = r.stores.dense.query_many(query.reshape(1, -1).astype(np.float32), DEEP * 3, None)
    ranked = ranked_chunks(hits, r.stores.manifest.window_holders(h for h, _ in hits))
    return [(cid, rank) for cid, (rank, _) in ranked.items()]


def alternative_rankings(r, vector, analysis, dense, lexical, rows):  # type: ignore[no-untyped-def]
    """Dense rankings for other forms of the question (pseudo-relevance feedback)."""
    import numpy as np

    out = {}
    words = " ".join(analysis.words)
    if words:
        out["words"] = _ranked(r, r.embedder.embed([words], lane="query")[0])
    top_dense = sorted(dense, key=lambda c: dense[c][0])[:3]
    top_lex = [c for c, _ in lexical[:3] if c in rows]

    def best_vectors(ids):  # type: ignore[no-untyped-def]
        got = r._window_vectors(ids, rows)  # window text hash → vector
        best = {}
        for cid in ids:
            held = [got[h] for h in rows[cid].windows if h in got]
            if held:
                best[cid] = max(held, key=lambda vec: float(vec @ vector))
        return [best[c] for c in ids if c in best]

    dv = best_vectors([c for c in top_dense if c in rows])
    lv = best_vectors(top_lex)
    if dv:
        out["rocchio_dense3"] = _ranked(r, vector + 0.5 * np.mean(dv, axis=0))
    if lv:
        out["bm25_top1"] = _ranked(r, vector + 0.5 * lv[0])
        out["bm25_top3"] = _ranked(r, vector + 0.5 * np.mean(lv, axis=0))
    return out


def collect(target: Path, names: list[str]) -> None:
    from bench.inproc import embedder

    from ragd.harness.localindex import LocalIndex

    model = embedder("auto")
    runs: dict[str, list[Kept]] = pickle.loads(target.read_bytes()) if target.exists() else {}
    for corpus in CORPORA:
        if names and corpus.name not in names:
            continue
        index = LocalIndex(corpus.kept(OUT / "corpora"), OUT / "index" / corpus.name, model)
        try:
            asked = [q for q in load_questions(corpus.questions) if q.answerable and q.expected]
            runs[corpus.name] = [collect_one(index, q) for q in asked]
        finally:
            index.close()
        print(f"{corpus.name}: {len(runs[corpus.name])} questions", flush=True)
        target.write_bytes(pickle.dumps(runs))


# -- the pipeline, replayed -------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    candidates: int = 20  # per retriever
    rrf_k: int = 60
    dense_weight: float = 1.0  # RRF weights: w / (k + rank)
    lexical_weight: float = 1.0
    support_weight: float = 0.04  # the page: fused + this × support
    content_only: bool = False  # BM25 asked without the question's stop words
    extra: str = ""  # an alternative dense ranking (`alternative_rankings`) as a third list
    convex: float = -1.0  # ≥ 0: min-max cosine × this + BM25 score × (1 − this), no RRF
    repeat_weight: float = 1.0  # a chunk of a section (file) already on the page: × this
    repeat_by_file: bool = False
    heading_weight: float = 0.0  # × the heading path's own cosine (needs `headings`)
    release_anchor: bool = True  # the section of the release the question names is shown


def _lists(k: Kept, v: Variant) -> list[tuple[float, list[str]]]:
    n = v.candidates
    dense = [c for c, w, _ in k.dense if w < 3 * n][:n]
    lexical = [c for c, _ in (k.lexical_content if v.content_only else k.lexical)][:n]
    lists = [(v.dense_weight, dense), (v.lexical_weight, lexical)]
    if v.extra:
        alt = [c for c, w in k.alternatives.get(v.extra, []) if w < 3 * n and c in k.chunks]
        lists.append((1.0, alt[:n]))
    return lists


def _fused(k: Kept, v: Variant, lists: list[tuple[float, list[str]]]) -> dict[str, float]:
    fused: dict[str, float] = {}
    if v.convex >= 0:  # scores, each min-max normalised over the candidates
        ids = list(dict.fromkeys(c for _, ranking in lists for c in ranking))
        bm25 = dict(k.lexical)
        for weight, values in (
            (v.convex, {c: k.chunks[c]["cosine"] for c in ids}),
            (1 - v.convex, {c: bm25.get(c, 0.0) for c in ids}),
        ):
            low, high = min(values.values()), max(values.values())
            for c in ids:
                fused[c] = fused.get(c, 0.0) + weight * (values[c] - low) / (high - low + 1e-9)
        return fused
    for weight, ranking in lists:
        for rank, c in enumerate(ranking, start=1):
            fused[c] = fused.get(c, 0.0) + weight / (v.rrf_k + rank)
    return fused


def page_of(k: Kept, v: Variant) -> list[str]:
    """The five chunk ids the page would show (query/page.py's rules, with `v`'s changes)."""
    from ragd.query import releases
    from ragd.query.page import weight_for
    from ragd.query.question import identifiers

    lists = _lists(k, v)
    fused = _fused(k, v, lists)
    # Ties as the retriever breaks them: fused score, then support, then chunk id.
    ordered = sorted(fused, key=lambda c: (-fused[c], -k.chunks[c]["support"], c))
    position = {c: i for i, c in enumerate(ordered)}
    weight = weight_for(k.question)

    def relevance(c: str) -> float:
        part = k.chunks[c]
        score = fused[c] + v.support_weight * part["support"]
        score += v.heading_weight * part.get("heading_cosine", 0.0)
        return score * weight(part["heading"], part["source"])

    page = _diverse(k, v, sorted(ordered, key=lambda c: (-relevance(c), position[c])), relevance)
    anchors = {ranking[0] for _, ranking in lists[:2] if ranking}
    if v.release_anchor:
        asked = releases.asked(identifiers(k.question))
        anchors |= releases.section_of(asked, [(c, k.chunks[c]["heading"]) for c in ordered])
    for anchor in [c for c in ordered if c in anchors and c not in page]:
        for i in range(len(page) - 1, -1, -1):  # the weakest chunk that is no anchor
            if page[i] not in anchors:
                page[i] = anchor
                break
    return page


def _diverse(
    k: Kept, v: Variant, ranked: list[str], relevance: Callable[[str], float]
) -> list[str]:
    """The first five of `ranked`, a section's (file's) later chunks weighed down."""
    if v.repeat_weight == 1.0:
        return ranked[:5]

    def section(c: str) -> tuple[str, str]:
        return (k.chunks[c]["source"], "" if v.repeat_by_file else k.chunks[c]["heading"])

    chosen: list[str] = []
    rest = list(ranked)
    while rest and len(chosen) < 5:
        seen = {section(c) for c in chosen}
        best = max(
            rest, key=lambda c: relevance(c) * (v.repeat_weight if section(c) in seen else 1)
        )
        rest.remove(best)
        chosen.append(best)
    return chosen


def hits(runs: dict[str, list[Kept]], v: Variant) -> dict[str, tuple[int, int]]:
    return {
        name: (sum(bool(set(page_of(k, v)) & k.expected) for k in rows), len(rows))
        for name, rows in runs.items()
    }


def show(label: str, got: dict[str, tuple[int, int]]) -> None:
    cells = "  ".join(f"{n[:5]} {h:2d}/{t:2d}" for n, (h, t) in got.items())
    total = sum(h for h, _ in got.values())
    print(f"{label:30} {cells}  all {total}")


def held_out(runs: dict[str, list[Kept]], grid: list[Variant], label: str) -> None:
    """Each corpus scored with the grid's variant that does best on the other corpora
    (mean hit share; sample_corpus, the project's own, is never fitted on)."""
    table = [hits(runs, v) for v in grid]
    out = {}
    for name in runs:

        def others(t: dict[str, tuple[int, int]], name: str = name) -> float:
            return sum(h / n for c, (h, n) in t.items() if c not in (name, "sample"))

        best = max(range(len(grid)), key=lambda i: (others(table[i]), -i))
        out[name] = table[best][name]
    show(f"{label}, held out", out)


def add_heading_cosines(runs: dict[str, list[Kept]]) -> None:
    """Each kept chunk's heading path embedded alone, its cosine with the question."""
    from bench.inproc import embedder

    model = embedder("auto")
    for rows in runs.values():
        headings = sorted({part["heading"] for k in rows for part in k.chunks.values()})
        vectors = dict(zip(headings, model.embed(headings, lane="index"), strict=True))
        questions = model.embed([k.question for k in rows], lane="query")
        for k, q in zip(rows, questions, strict=True):
            for part in k.chunks.values():
                part["heading_cosine"] = float(vectors[part["heading"]] @ q)


def score(sources: list[Path], with_headings: bool) -> None:
    runs: dict[str, list[Kept]] = {}
    for source in sources:
        runs.update(pickle.loads(source.read_bytes()))
    if with_headings:
        add_heading_cosines(runs)
    base = Variant()
    agree = {
        n: sum(bool(set(page_of(k, base)) & k.expected) == k.hit for k in rows)
        for n, rows in runs.items()
    }
    print(
        "replay agrees with Retriever.search:", {n: f"{a}/{len(runs[n])}" for n, a in agree.items()}
    )
    show("shipped", hits(runs, base))
    for label, v in VARIANTS.items():
        if v.heading_weight and not with_headings:
            continue
        show(label, hits(runs, v))
    for label, grid in GRIDS.items():
        held_out(runs, grid, label)


VARIANTS: dict[str, Variant] = {
    "no release anchor": Variant(release_anchor=False),
    "candidates 30": Variant(candidates=30),
    "candidates 40": Variant(candidates=40),
    "rrf k 20": Variant(rrf_k=20),
    "rrf k 100": Variant(rrf_k=100),
    "dense weight 1.5": Variant(dense_weight=1.5),
    "support weight 0.1": Variant(support_weight=0.1),
    "bm25 without stop words": Variant(content_only=True),
    "+ dense of content words": Variant(extra="words"),
    "+ dense, rocchio top 3 dense": Variant(extra="rocchio_dense3"),
    "+ dense, with top bm25 chunk": Variant(extra="bm25_top1"),
    "+ dense, with top 3 bm25": Variant(extra="bm25_top3"),
    "section repeat x0.8": Variant(repeat_weight=0.8),
    "file repeat x0.8": Variant(repeat_weight=0.8, repeat_by_file=True),
    "convex 0.8 cosine": Variant(convex=0.8, support_weight=1.0),
    "heading cosine 0.04": Variant(heading_weight=0.04),
}
GRIDS: dict[str, list[Variant]] = {
    "fusion grid": [
        Variant(candidates=n, rrf_k=k, support_weight=sw, dense_weight=dw)
        for n in (20, 30, 40)
        for k in (30, 60, 100)
        for sw in (0.02, 0.04, 0.06)
        for dw in (1.0, 1.25)
    ],
    "convex grid": [
        Variant(convex=a, support_weight=sw) for a in (0.5, 0.6, 0.7, 0.8) for sw in (0, 0.5, 1, 2)
    ],
    "repeat grid": [Variant(repeat_weight=w) for w in (1.0, 0.9, 0.8, 0.7)],
}


def main(argv: list[str]) -> None:
    if argv[0] == "collect":
        collect(Path(argv[1]), argv[2:])
    else:
        score([Path(a) for a in argv[1:] if not a.startswith("--")], "--headings" in argv)


if __name__ == "__main__":
    main(sys.argv[1:])
