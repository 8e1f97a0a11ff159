"""Fusion and page-order variants scored offline on kept deep rankings, held out.

Usage::

    python bench/retrieval_variants.py collect RANKS.pkl [CORPUS ...] [--kept=DIR] [--quick]
    python bench/retrieval_variants.py score RANKS.pkl [MORE.pkl ...] [--headings] [--wide]
    python bench/retrieval_variants.py where RANKS.pkl [MORE.pkl ...]

`collect` opens the indexes `make eval` keeps under bench/out/eval/ (building a missing
one) and keeps, for every answerable question, each retriever's ranking DEEP chunks deep
(dense: each chunk's best window's rank and cosine; BM25: scores, for the question as
asked and for its content words only), dense rankings for other forms of the question
(its content words; pseudo-relevance feedback from the top dense or BM25 chunks), every
ranked chunk's support parts (support.py) and the ids of the chunks the question expects.
A CORPUS is an eval corpus (bench/corpora.py) or a new user's folder (bench/heldout_corpora.py,
its answerable questions in the eval's form: bench/heldout_eval.py). `--kept=DIR` searches the
indexes a measurement left as they are (DIR/index/NAME for an eval corpus, DIR/heldout/NAME
for a new user's folder, opened as bench/keyless_replay.py's `KeptIndex`: nothing is
rebuilt); without it a missing index is built. `--quick` leaves out the other forms of the
question (four dense searches each). Every kept chunk also records which of the question's
facts its text holds, so `score` reports, beside hit@5, how many pages hold at least half
their question's facts: the ceiling of a keyless answer quoting from the page. BM25 is also
kept under other field boosts (`LEXICAL_BOOSTS`).
`score` replays the shipped page (candidates per retriever, RRF, fused + 0.04 × support,
release notes weighed down, anchors), checks that it agrees with `Retriever.search` on
every question, then prints hit@5 per corpus for each variant (`--headings` adds the
heading path's own cosine as a signal) and, for each grid of constants, every corpus
scored with the grid point chosen on the other corpora (leave-one-corpus-out). With more
than a dozen corpora (`--wide` prints them all) each line gives the eval corpora and the new
users' folders apart: hits, corpora under 0.9 (hit@5) or 0.8 (facts on the page).
`where` classifies every page that misses (no expected chunk, or under half the facts): the
best rank of an expected (fact-holding) chunk in the dense list, in BM25's and fused; and
counts the keyless answers the last measurement kept (measured.json) by whether they and
the page held half the facts (a miss with the facts on the page is the answerer's).
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
    facts: int = 0  # how many facts the question lists (each chunk's "facts": those it holds)
    facts_in_folder: int = 0  # how many of them some chunk of the whole index holds
    lexical_alt: dict[str, list[tuple[str, float]]] = field(
        default_factory=dict
    )  # BM25 under other field boosts (LEXICAL_BOOSTS)


# BM25 asked with other field boosts (shipped: heading 1.5, text 1, path 0.75); a field
# left out is not searched.
LEXICAL_BOOSTS: dict[str, dict[str, float]] = {
    "heading 1": {"heading": 1.0, "text": 1.0, "path": 0.75},
    "heading 3": {"heading": 3.0, "text": 1.0, "path": 0.75},
    "no path": {"heading": 1.5, "text": 1.0},
    "path 1.5": {"heading": 1.5, "text": 1.0, "path": 1.5},
}


def lexical_boosted(r: Any, question: str, boosts: dict[str, float]) -> list[tuple[str, float]]:
    """BM25's DEEP best chunks for `question` with these field boosts (as `search` asks)."""
    from ragd.index.lexical import query_terms

    terms = query_terms(question)
    if not terms:
        return []
    index = r.stores.lexical._index
    parsed = index.parse_query(
        " ".join(terms), default_field_names=list(boosts), field_boosts=boosts
    )
    searcher = index.searcher()
    hits = searcher.search(parsed, limit=DEEP).hits
    out = [(str(searcher.doc(a)["chunk_id"][0]), float(score)) for score, a in hits]
    return sorted(out, key=lambda hit: (-hit[1], hit[0]))


def facts_held(text: str, facts: tuple[str, ...]) -> frozenset[int]:
    """Which of `facts` `text` holds, compared as the eval compares an answer's (lower case,
    runs of white space as one space)."""
    body = " ".join(text.lower().split())
    return frozenset(i for i, f in enumerate(facts) if " ".join(f.lower().split()) in body)


def folder_texts(index: Any) -> list[str]:
    """Every chunk's heading and text in the index, as `facts_held` reads them."""
    manifest = index.retriever.stores.manifest
    return [
        f"{row.heading}\n{row.text}"
        for root in manifest.counts_by_root()
        for f in manifest.files(root)
        for row in manifest.chunks_of(root, f.relpath)
    ]


def collect_one(index: Any, q: Any, quick: bool = False, texts: list[str] | None = None) -> Kept:
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
    lexical_alt = {name: lexical_boosted(r, q.question, b) for name, b in LEXICAL_BOOSTS.items()}
    ids = set(dense) | {c for c, _ in lexical} | {c for c, _ in content}
    ids |= {c for ranking in lexical_alt.values() for c, _ in ranking}
    alternatives = (
        {}
        if quick
        else alternative_rankings(
            r, vector, analysis, dense, lexical, r.stores.manifest.chunk_rows(ids)
        )
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
        facts=len(q.facts),
        facts_in_folder=len(set().union(*(facts_held(t, q.facts) for t in texts or []))),
        lexical_alt={
            n: [(c, s) for c, s in ranking if c in rows] for n, ranking in lexical_alt.items()
        },
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
            "facts": facts_held(f"{row.heading}\n{row.text}", q.facts),
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


def collect(target: Path, names: list[str], kept: Path | None, quick: bool) -> None:
    from bench.inproc import embedder

    model = embedder("auto")
    runs: dict[str, list[Kept]] = pickle.loads(target.read_bytes()) if target.exists() else {}
    for corpus, heldout in corpora_named(names):
        index = open_index(corpus, heldout, kept, model)
        try:
            asked = [q for q in load_questions(questions_of(corpus, heldout)) if q.answerable]
            texts = folder_texts(index)
            runs[corpus.name] = [collect_one(index, q, quick, texts) for q in asked if q.expected]
        finally:
            index.close()
        print(f"{corpus.name}: {len(runs[corpus.name])} questions", flush=True)
        target.write_bytes(pickle.dumps(runs))


def corpora_named(names: list[str]) -> list[tuple[Any, bool]]:
    """The named corpora (all eval corpora when none is named), each with whether it is a
    new user's folder."""
    from bench.heldout_corpora import HELDOUT

    every = [(c, False) for c in CORPORA] + [(c, True) for c in HELDOUT]
    unknown = set(names) - {c.name for c, _ in every}
    if unknown:
        raise SystemExit(f"no corpus named {', '.join(sorted(unknown))}")
    return [(c, h) for c, h in every if (c.name in names if names else not h)]


def questions_of(corpus: Any, heldout: bool) -> Path:
    """The corpus's question file in the eval's form (a new user's folder's, converted)."""
    from bench.heldout_eval import eval_questions

    if not heldout:
        return Path(corpus.questions)
    return eval_questions(corpus.questions.parent, OUT / "heldout-questions")


def open_index(corpus: Any, heldout: bool, kept: Path | None, model: Any) -> Any:
    """The corpus's index: the one under `kept` as it is, or this checkout's, built as
    `make eval` builds it when missing."""
    from bench.keyless_replay import KeptIndex

    from ragd.harness.localindex import LocalIndex

    if kept is not None:
        return KeptIndex(kept / ("heldout" if heldout else "index") / corpus.name, model)
    if heldout:
        folder = corpus.build(OUT / "heldout-corpora")
        return LocalIndex(folder, OUT.parent / "heldout" / corpus.name, model)
    return LocalIndex(corpus.kept(OUT / "corpora"), OUT / "index" / corpus.name, model)


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
    lexical_form: str = ""  # BM25 under other field boosts (a name of LEXICAL_BOOSTS)


def _lists(k: Kept, v: Variant) -> list[tuple[float, list[str]]]:
    n = v.candidates
    dense = [c for c, w, _ in k.dense if w < 3 * n][:n]
    asked = k.lexical_alt[v.lexical_form] if v.lexical_form else k.lexical
    lexical = [c for c, _ in (k.lexical_content if v.content_only else asked)][:n]
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


def hit(k: Kept, page: list[str]) -> bool | None:
    """hit@5: an expected chunk is on the page."""
    return bool(set(page) & k.expected)


def half_facts(k: Kept, page: list[str]) -> bool | None:
    """The page's chunks hold at least half the question's facts (None: it lists none)."""
    if not k.facts:
        return None
    held = set().union(*(k.chunks[c].get("facts", frozenset()) for c in page))
    return 2 * len(held) >= k.facts


# Each measure of a page, and the share under which a corpus counts as short of it.
METRICS: dict[str, tuple[Callable[[Kept, list[str]], bool | None], float]] = {
    "hit@5": (hit, 0.9),
    "half facts on the page": (half_facts, 0.8),
}


def hits(
    runs: dict[str, list[Kept]], v: Variant, measure: Callable[[Kept, list[str]], bool | None] = hit
) -> dict[str, tuple[int, int]]:
    out = {}
    for name, rows in runs.items():
        verdicts = [measure(k, page_of(k, v)) for k in rows]
        known = [x for x in verdicts if x is not None]
        out[name] = (sum(known), len(known))
    return out


def new_users() -> set[str]:
    from bench.heldout_corpora import HELDOUT

    return {c.name for c in HELDOUT}


def show(label: str, got: dict[str, tuple[int, int]], bar: float = 0.9, wide: bool = False) -> None:
    total = sum(h for h, _ in got.values())
    if wide or len(got) <= 12:
        cells = "  ".join(f"{n[:5]} {h:2d}/{t:2d}" for n, (h, t) in got.items())
        print(f"{label:30} {cells}  all {total}")
        return
    theirs = new_users()
    cells = []
    for group, names in (
        ("eval", [n for n in got if n not in theirs]),
        ("new users", [n for n in got if n in theirs]),
    ):
        h = sum(got[n][0] for n in names)
        t = sum(got[n][1] for n in names)
        short = sum(got[n][0] < bar * got[n][1] for n in names)
        cells.append(f"{group} {h}/{t} ({short} of {len(names)} < {bar})")
    print(f"{label:34} {'   '.join(cells)}   all {total}", flush=True)


def held_out(
    runs: dict[str, list[Kept]],
    grid: list[Variant],
    label: str,
    measure: Callable[[Kept, list[str]], bool | None] = hit,
    bar: float = 0.9,
    wide: bool = False,
) -> None:
    """Each corpus scored with the grid's variant that does best on the other corpora
    (mean hit share; sample_corpus, the project's own, is never fitted on)."""
    table = [hits(runs, v, measure) for v in grid]
    out = {}
    chosen = []
    for name in runs:

        def others(t: dict[str, tuple[int, int]], name: str = name) -> float:
            return sum(h / n for c, (h, n) in t.items() if c not in (name, "sample") and n)

        best = max(range(len(grid)), key=lambda i: (others(table[i]), -i))
        out[name] = table[best][name]
        chosen.append(best)
    show(f"{label}, held out", out, bar, wide)
    picked = sorted(set(chosen), key=chosen.count, reverse=True)[:3]
    print(f"    chosen: {'; '.join(f'{chosen.count(i)}x {grid[i]}' for i in picked)}")


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


def load_runs(sources: list[Path]) -> dict[str, list[Kept]]:
    runs: dict[str, list[Kept]] = {}
    for source in sources:
        runs.update(pickle.loads(source.read_bytes()))
    return runs


def score(sources: list[Path], with_headings: bool, wide: bool = False) -> None:
    runs = load_runs(sources)
    if with_headings:
        add_heading_cosines(runs)
    base = Variant()
    agree = {
        n: sum(bool(set(page_of(k, base)) & k.expected) == k.hit for k in rows)
        for n, rows in runs.items()
    }
    wrong = {n: f"{a}/{len(runs[n])}" for n, a in agree.items() if a < len(runs[n])}
    print(f"replay agrees with Retriever.search on {sum(agree.values())} questions; not on:", wrong)
    for metric, (measure, bar) in METRICS.items():
        print(f"-- {metric}")
        show("shipped", hits(runs, base, measure), bar, wide)
        for label, v in VARIANTS.items():
            if v.heading_weight and not with_headings:
                continue
            if kept_for(runs, v):
                show(label, hits(runs, v, measure), bar, wide)
        for label, grid in GRIDS.items():
            if all(kept_for(runs, v) for v in grid):
                held_out(runs, grid, label, measure, bar, wide)


def kept_for(runs: dict[str, list[Kept]], v: Variant) -> bool:
    """Do the runs hold what `v` reads (runs kept before BM25's other boosts do not)?"""
    return not v.lexical_form or all(
        v.lexical_form in k.lexical_alt for r in runs.values() for k in r
    )


def where(runs: dict[str, list[Kept]]) -> None:
    """Where each page's miss stands in the lists: for hit@5 the expected chunks, for half
    the facts the chunks holding at least half of them (else any of them)."""
    from collections import Counter

    base = Variant()
    theirs = new_users()
    for metric, (measure, _) in METRICS.items():
        counts: dict[str, Counter[str]] = {"eval": Counter(), "new users": Counter()}
        for name, rows in runs.items():
            for k in rows:
                page = page_of(k, base)
                if measure(k, page) is not False:
                    continue
                facts = measure is half_facts
                wanted = facts_wanted(k) if facts else k.expected
                why = standing(k, base, wanted, facts)
                counts["new users" if name in theirs else "eval"][why] += 1
        print(f"-- {metric} misses")
        for group, counted in counts.items():
            print(f"  {group}: {sum(counted.values())}")
            for why, n in counted.most_common():
                print(f"    {n:4d}  {why}")
    answers_and_pages(runs, theirs)


def answers_and_pages(runs: dict[str, list[Kept]], theirs: set[str]) -> None:
    """The keyless answers the last measurement kept (`fact_share` in measured.json), by
    whether they held half their facts and whether the shipped page did."""
    import json
    from collections import Counter

    kept: dict[str, Any] = {}
    for measured in (ROOT / "bench" / "corpora" / "measured.json", new_users_measured()):
        if measured.exists():
            kept |= json.loads(measured.read_text("utf-8"))
    counted: Counter[tuple[str, bool, bool]] = Counter()
    for name, rows in runs.items():
        asked = {a["question"]: a for a in kept.get(name, {}).get("asked", [])}
        for k in rows:
            a = asked.get(k.question)
            if a is None or not a.get("facts") or not k.facts:
                continue
            page = half_facts(k, page_of(k, Variant()))
            group = "new users" if name in theirs else "eval"
            counted[(group, a["fact_share"] >= 0.5, bool(page))] += 1
    print("-- kept keyless answers: (set, answer holds half the facts, page does): count")
    for key in sorted(counted):
        print(f"  {key}: {counted[key]}")


def new_users_measured() -> Path:
    from bench.heldout_eval import MEASURED

    return MEASURED


def facts_wanted(k: Kept) -> set[str]:
    held = {c: len(part.get("facts", ())) for c, part in k.chunks.items()}
    half = {c for c, n in held.items() if 2 * n >= k.facts}
    return half or {c for c, n in held.items() if n}


def standing(k: Kept, v: Variant, wanted: set[str], facts: bool = False) -> str:
    """Where the best of `wanted` stands: on the candidates (in which lists), deeper in a
    list (which), or in neither list DEEP deep."""
    if facts and not wanted and 2 * k.facts_in_folder < k.facts:
        return "under half the facts are in the folder's chunks as written"
    if not wanted:
        return "no kept chunk holds it (neither list 100 deep)"
    lists = _lists(k, v)
    dense, lexical = lists[0][1], lists[1][1]
    deep_dense = [c for c, _, _ in k.dense]
    deep_lexical = [c for c, _ in k.lexical]
    in_d = any(c in wanted for c in dense)
    in_l = any(c in wanted for c in lexical)
    if in_d or in_l:
        which = "both lists" if in_d and in_l else "dense only" if in_d else "bm25 only"
        return f"a candidate ({which}), not on the page"
    d = min((i for i, c in enumerate(deep_dense) if c in wanted), default=None)
    b = min((i for i, c in enumerate(deep_lexical) if c in wanted), default=None)
    if d is None and b is None:
        return "no kept chunk holds it (neither list 100 deep)"
    if d is not None and b is not None:
        return "past the candidates in both lists (21-100)"
    return f"past the candidates, {'dense' if d is not None else 'bm25'} list only (21-100)"


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
    "rrf k 30": Variant(rrf_k=30),
    "bm25 weight 1.25": Variant(lexical_weight=1.25),
    "bm25 weight 0.8": Variant(lexical_weight=0.8),
    "dense weight 1.25": Variant(dense_weight=1.25),
    "support weight 0.02": Variant(support_weight=0.02),
    "support weight 0.06": Variant(support_weight=0.06),
    **{f"bm25 boosts: {name}": Variant(lexical_form=name) for name in LEXICAL_BOOSTS},
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
    "list weights grid": [
        Variant(dense_weight=d, lexical_weight=b)
        for d in (0.8, 1.0, 1.25, 1.5)
        for b in (0.8, 1.0, 1.25, 1.5)
    ],
    "bm25 boosts grid": [Variant(), *(Variant(lexical_form=name) for name in LEXICAL_BOOSTS)],
}


def main(argv: list[str]) -> None:
    flags = [a for a in argv if a.startswith("--")]
    argv = [a for a in argv if not a.startswith("--")]
    if argv[0] == "collect":
        kept = [Path(a.split("=", 1)[1]) for a in flags if a.startswith("--kept=")]
        collect(Path(argv[1]), argv[2:], kept[-1] if kept else None, "--quick" in flags)
    elif argv[0] == "where":
        where(load_runs([Path(a) for a in argv[1:]]))
    else:
        score([Path(a) for a in argv[1:]], "--headings" in flags, "--wide" in flags)


if __name__ == "__main__":
    main(sys.argv[1:])
