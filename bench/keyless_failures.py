"""Why keyless answers miss their facts, by category (for tuning query/extractive.py).

Usage: python bench/keyless_failures.py [CORPUS ...] [--verbose]

Opens the indexes `make eval` keeps under bench/out/eval/ (a re-run only re-reads the
files), asks every answerable question as the evaluation does and, for each answer holding
less than half its facts, says where the missing facts were:

* ``retrieval``: in no chunk of the page (``cand#N``: the fused candidate N holds it);
* ``lost``: in a page chunk but in none of its quotable units (units.py dropped it);
* ``lead-in``: in a list item / table row / code block right after a lead-in;
* ``neighbour``: in a unit next to (±2) a quoted one in the same chunk;
* ``same-chunk``, ``same-file``, ``other-file``: in a unit of the page further away;
* ``beside``: in a unit of a neighbour of the best chunk (query/neighbours.py).

The gate is not applied (answers are produced for every question); the ``gated`` column
counts the questions the shipped gate would refuse.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpora import CORPORA  # noqa: E402

from ragd.harness.evaluation import load_questions  # noqa: E402
from ragd.harness.localindex import LocalIndex  # noqa: E402
from ragd.query.neighbours import around_the_best  # noqa: E402

OUT = ROOT / "bench" / "out" / "eval"
_TOTALS = ("answerable", "hit", "gated", "half")


def norm(text: str) -> str:
    return " ".join(text.lower().split())


def answer_body(text: str) -> str:
    """The quotes' text without the `> "` framing, for finding which units were quoted."""
    lines = [line[2:] if line.startswith("> ") else line for line in text.splitlines()]
    return norm("\n".join(lines).replace('"', " "))


def locate(fact: str, result, candidates, quoted: list[int], scores) -> str:  # type: ignore[no-untyped-def]
    wanted = norm(fact)
    units = [i for i, c in enumerate(candidates) if wanted in norm(c.unit.text)]
    if units:
        order = list(np.argsort(-scores))
        best_unit = min(units, key=order.index)
        top = float(scores[order[0]])
        rank = f"#{order.index(best_unit) + 1} {float(scores[best_unit]) - top:+.2f} "
        return rank + _where(best_unit, result, candidates, quoted)
    return _where(-1, result, candidates, quoted, wanted)


def _where(best, result, candidates, quoted, wanted=""):  # type: ignore[no-untyped-def]
    if best < 0:
        page = [i for i, ch in enumerate(result.chunks) if wanted in norm(ch.text)]
        if page:
            return f"lost(p{page[0]})"
        for rank, ch in enumerate(result.candidates, start=1):
            if wanted in norm(ch.text):
                return f"retrieval(cand#{rank})"
        return "retrieval(none)"
    here = candidates[best]
    if not quoted:
        return "no-quote"
    first = candidates[quoted[0]]
    kind = here.unit.kind
    for q in quoted:
        if candidates[q].chunk is here.chunk and abs(q - best) <= 2:
            if candidates[q].leads_in or (best > 0 and candidates[best - 1].leads_in):
                return f"lead-in({kind})"
            return f"neighbour({kind})"
    if any(candidates[q].chunk is here.chunk for q in quoted):
        return f"same-chunk({kind})"
    if here.chunk.source == first.chunk.source:
        return f"same-file({kind})"
    rank = next((i for i, ch in enumerate(result.chunks) if ch is here.chunk), None)
    if rank is None:  # a neighbour of the best chunk (query/neighbours.py), not on the page
        return f"beside({kind})"
    return f"other-file(p{rank},{kind})"


def analyse_corpus(corpus, model, verbose: bool) -> Counter[str]:  # type: ignore[no-untyped-def]
    from ragd.harness.crosseval import keyless_answerer

    index = LocalIndex(corpus.kept(OUT / "corpora"), OUT / "index" / corpus.name, model)
    answerer = keyless_answerer(model)
    tally: Counter[str] = Counter()
    try:
        for q in load_questions(corpus.questions):
            if not q.answerable or not q.facts:
                continue
            result = index.retriever.search(q.question, top_k=5)
            shown = around_the_best(result.chunks, result.candidates)
            reply = answerer.answer(
                q.question,
                shown,
                analysis=result.analysis,
                query_vector=result.query_vector,
                query_pieces=result.query_pieces,
            )
            body = norm(reply.text)
            found = [f for f in q.facts if norm(f) in body]
            hit = q.found_in(
                [{"source": c.source, "heading": c.heading, "text": c.text} for c in result.chunks]
            )
            tally["answerable"] += 1
            tally["hit"] += hit
            tally["gated"] += not result.gate.passed
            half = len(found) >= len(q.facts) / 2
            tally["half"] += half
            if half:
                continue
            scored = answerer.scored(
                q.question, shown, result.analysis, result.query_vector, result.query_pieces
            )
            assert scored is not None
            candidates, scores = scored.candidates, scored.scores
            quoted_text = answer_body(reply.text)
            quoted = [i for i, c in enumerate(candidates) if norm(c.unit.text) in quoted_text]
            where = [
                locate(f, result, candidates, quoted, scores) for f in q.facts if f not in found
            ]
            for w in where:
                tally[w.split(" ")[-1].split("(")[0]] += 1
            print(f"  {'HIT ' if hit else 'MISS'} {q.question}")
            print(f"       facts {list(q.facts)}")
            print(f"       missing: {where}  expected: {[e.source for e in q.expected]}")
            if verbose:
                for line in reply.text.splitlines()[2:]:
                    print(f"         {line[:160]}")
    finally:
        index.close()
    return tally


def main(argv: list[str]) -> None:
    from bench.inproc import embedder

    verbose = "--verbose" in argv
    names = [a for a in argv if not a.startswith("--")]
    model = embedder("auto")
    for corpus in CORPORA:
        if names and corpus.name not in names:
            continue
        print(f"== {corpus.name}")
        tally = analyse_corpus(corpus, model, verbose)
        n = max(1, tally["answerable"])
        print(
            f"== {corpus.name}: half {tally['half']}/{n} = {tally['half'] / n:.0%}, "
            f"hit@5 {tally['hit'] / n:.2f}, gated {tally['gated']}; missing facts by "
            f"category: {dict((k, v) for k, v in tally.items() if k not in _TOTALS)}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
