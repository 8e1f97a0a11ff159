"""Keyless answers replayed on kept retrievals: the inner loop for tuning query/extractive.py.

Usage::

    python bench/keyless_replay.py retrieve RUNS.pkl [CORPUS ...] [--kept=DIR]
    python bench/keyless_replay.py retrieve-heldout RUNS.pkl NAME=FOLDER [NAME=FOLDER ...]
    python bench/keyless_replay.py retrieve-heldout RUNS.pkl NAME [NAME ...] --kept=DIR
    python bench/keyless_replay.py replay RUNS.pkl [CORPUS ...] [--verbose] [--deeper=N] [--gated]
        [--manifests=DIR]
    python bench/keyless_replay.py why RUNS.pkl [CORPUS ...] [--verbose] [--manifests=DIR]
    python bench/keyless_replay.py past RUNS.pkl [CORPUS ...] [--depth=N]
    python bench/keyless_replay.py beside RUNS.pkl [CORPUS ...]
    python bench/keyless_replay.py time RUNS.pkl [--passes=N]

`retrieve` opens the indexes `make eval` keeps under bench/out/eval/ and keeps, for every
answerable question, what the retriever returned (the page, every fused candidate, the
question's analysis and vector, the gate's decision); it brings each index in line with its
folder first, rebuilding it when the working tree's chunker differs. With `--kept=DIR` it
searches DIR/index/CORPUS as it is instead (a copy of another checkout's bench/out/eval,
say one a measurement of record used, on an older chunker): nothing is indexed or written
but what opening the stores writes, and the folder is the root the index recorded.
`retrieve-heldout` does the same for
folders of bench/heldout/ (NAME: its questions and labels; FOLDER: the folder they were
written for), indexing each under bench/out/heldout/NAME; a replay of those is no longer
held out for whoever tunes on it. With `--kept=DIR` it searches DIR/NAME as it is (a copy
of the index bench/crosseval.py left under bench/out/heldout/NAME for a measurement of
record) and asks NAME's answerable questions in the eval's form (bench/heldout_eval.py, as
that measurement did: a hard negative the folder answers counts too). `replay` runs the
keyless answerer of the working tree on them and prints, per corpus, the share of answers
holding every fact and at least half of them (refusals by the shipped gate not counted:
this measures the answerer alone), caching unit embeddings next to RUNS.pkl so a re-run
takes seconds.
`--deeper=N` gives the answerer, after the page, the next N candidates in the page's
order (what it would see if the daemon passed more than the page), for measuring whether
facts retrieved past the page would be quoted and what that costs elsewhere.
`--gated` gives the answerer each question's kept gate decision, as the daemon does, skips
the questions that gate refused, and adds the confidence column the replay can measure:
"right medium", answers holding every fact and not labelled `low` (soft coverage is not
replayed: it needs the embedder's pieces).
The answerer reads the page with the best chunk's neighbours among the candidates
(query/neighbours.py), found by each chunk's place in its file; runs kept before chunks
carried it get it with `--manifests=DIR`, from each DIR/CORPUS's manifest (a copy of the
index they were retrieved from; without one they replay the page alone).
`why` lists, for every answer holding less than half its facts, where the missing facts
were (the categories of bench/keyless_failures.py, without opening an index), and per
corpus the ceiling of an answerer quoting from the page: the share of questions that have
at least half their facts among the page's chunks (the others' were not retrieved to it).
`past` asks whether the answerer could tell when to read past the page: for every
question whose page holds under half its facts and whose next N candidates (5) hold half
or more, the page's chunks and those N are scored together as one answer would score
them, and it prints how the best unit holding the facts past the page compares with the
page's units (key-term coverage, score) and whether it is the best-scoring unit past the
page; then, over every question, how often a unit past the page out-covers or outscores
the whole page and how often the page already held the facts then.
`beside` counts, among the answers holding less than half their facts, those with an
unquoted unit of the page holding a missing fact, and of those the ones where such a unit
is right beside a quoted unit of its section (the next or the one before), printing both
units with their score, cosine, key-term coverage and how many of their content stems the
question lacks: the misses a rule about neighbours could mend.
`time` measures the answerer's own work on every kept page, as kept and with each chunk's
text four times over (each copy's lines marked, so its units are new): CPU time, the least of
N passes (2) after one that warms up, each unit embedded as a vector seeded by its text's
hash (the model's cost, linear in the text, left out); the ratio shows whether the answer
stays linear in the page's text.
`make eval` remains the measurement of record.
"""

from __future__ import annotations

import json
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpora import CORPORA  # noqa: E402

from ragd.harness.evaluation import load_questions  # noqa: E402

OUT = ROOT / "bench" / "out" / "eval"


def norm(text: str) -> str:
    return " ".join(text.lower().split())


def retrieve(target: Path, names: list[str], kept: Path | None = None) -> None:
    from bench.inproc import embedder

    from ragd.harness.localindex import LocalIndex

    model = embedder("auto")
    runs: dict[str, list[dict[str, Any]]] = (
        pickle.loads(target.read_bytes()) if target.exists() else {}
    )
    for corpus in CORPORA:
        if names and corpus.name not in names:
            continue
        index = (
            KeptIndex(kept / "index" / corpus.name, model)
            if kept is not None
            else LocalIndex(corpus.kept(OUT / "corpora"), OUT / "index" / corpus.name, model)
        )
        rows = []
        try:
            for q in load_questions(corpus.questions):
                if q.answerable and q.facts:
                    rows.append({"q": q, "result": index.retriever.search(q.question, top_k=5)})
        finally:
            index.close()
        runs[corpus.name] = rows
        print(f"{corpus.name}: {len(rows)} questions", flush=True)
        target.write_bytes(pickle.dumps(runs))


class KeptIndex:
    """An index searched as it was left: no fingerprint check, no sync (LocalIndex would
    rebuild an index of another chunker version), the root it recorded as the only root."""

    def __init__(self, data_dir: Path, model: Any) -> None:
        from ragd.core.config import LiveSettings, Settings
        from ragd.core.roots import Roots
        from ragd.index.store import Stores
        from ragd.query.retrieval import Retriever

        if not data_dir.is_dir():
            raise SystemExit(f"{data_dir}: no kept index there")
        self.stores = Stores.open(data_dir)
        roots = list(self.stores.manifest.counts_by_root())
        self.retriever = Retriever(self.stores, model, Roots(roots), LiveSettings(Settings()))

    def close(self) -> None:
        self.stores.lexical.close()
        self.stores.manifest.close()


def retrieve_heldout(target: Path, pairs: list[str]) -> None:
    from bench.inproc import embedder

    from ragd.harness.evaluation import Question
    from ragd.harness.localindex import LocalIndex

    model = embedder("auto")
    runs: dict[str, list[dict[str, Any]]] = (
        pickle.loads(target.read_bytes()) if target.exists() else {}
    )
    for pair in pairs:
        name, folder = pair.split("=", 1)
        where = ROOT / "bench" / "heldout" / name
        asked = [json.loads(line) for line in (where / "questions.jsonl").open() if line.strip()]
        labels = {
            row["id"]: row for row in (json.loads(line) for line in (where / "labels.jsonl").open())
        }
        questions = [
            Question(raw["question"], True, (), facts=tuple(labels[raw["id"]]["facts"]))
            for raw in asked
            if raw["kind"] == "answerable"
            and labels.get(raw["id"], {}).get("answerable")
            and labels[raw["id"]].get("facts")
        ]
        index = LocalIndex(Path(folder), OUT.parent / "heldout" / name, model)
        keep(target, runs, name, asked_of(index, questions))


def asked_of(index: Any, questions: list[Any]) -> list[dict[str, Any]]:
    """Each question with what the index's retriever returned for it; the index closed."""
    try:
        return [{"q": q, "result": index.retriever.search(q.question, top_k=5)} for q in questions]
    finally:
        index.close()


def keep(target: Path, runs: dict[str, list[dict[str, Any]]], name: str, rows: list[Any]) -> None:
    runs[name] = rows
    print(f"{name}: {len(rows)} questions", flush=True)
    target.write_bytes(pickle.dumps(runs))


def retrieve_kept_heldout(target: Path, names: list[str], kept: Path) -> None:
    from bench.heldout_eval import eval_rows
    from bench.inproc import embedder

    from ragd.harness.evaluation import Question

    model = embedder("auto")
    runs: dict[str, list[dict[str, Any]]] = (
        pickle.loads(target.read_bytes()) if target.exists() else {}
    )
    for name in names:
        questions = [
            Question(raw["question"], True, (), facts=tuple(raw["facts"]))
            for raw in eval_rows(ROOT / "bench" / "heldout" / name)
            if raw["answerable"] and raw.get("facts")
        ]
        keep(target, runs, name, asked_of(KeptIndex(kept / name, model), questions))


class CachedEmbed:
    def __init__(self, path: Path) -> None:
        from bench.inproc import embedder

        self.path = path
        self.known: dict[str, np.ndarray] = pickle.loads(path.read_bytes()) if path.exists() else {}
        self.model: Any = None
        self._embedder = embedder
        self.added = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self.known]
        if new:
            if self.model is None:
                self.model = self._embedder("auto")
            self.known.update(zip(new, self.model.embed(new, lane="query"), strict=True))
            self.added += len(new)
        if not texts:
            return np.zeros((0, 384), np.float32)
        return np.stack([self.known[t] for t in texts])

    def save(self) -> None:
        if self.added:
            self.path.write_bytes(pickle.dumps(self.known))


def fact_share(text: str, facts: tuple[str, ...]) -> float:
    body = norm(text)
    return sum(norm(f) in body for f in facts) / len(facts)


def shown(row: dict[str, Any], deeper: int) -> list[Any]:
    """The chunks the answerer is given: the page with its best chunk's neighbours (as the
    daemon gives them, query/neighbours.py), then `deeper` more candidates."""
    from ragd.query.neighbours import around_the_best

    result = row["result"]
    page = around_the_best(result.chunks, result.candidates)
    return [*page, *past_the_page(row, deeper)] if deeper > 0 else page


def with_ordinals(runs: dict[str, list[dict[str, Any]]], folder: Path) -> None:
    """Each kept chunk's place in its file, read from FOLDER/NAME's manifest (the
    index the runs were retrieved from), for runs kept before chunks carried it."""
    import sqlite3
    from dataclasses import replace

    from ragd.core import layout

    for name, rows in runs.items():
        where = folder / name / layout.MANIFEST
        if not where.exists():
            continue
        db = sqlite3.connect(f"file:{where}?mode=ro", uri=True)
        place = dict(db.execute("SELECT chunk_id, ordinal FROM chunks"))
        db.close()
        for row in rows:
            result = row["result"]
            chunks, candidates = (
                [replace(c, ordinal=place.get(c.chunk_id)) for c in kept]
                for kept in (result.chunks, result.candidates)
            )
            row["result"] = replace(result, chunks=chunks, candidates=tuple(candidates))


def load_runs(source: Path, rest: list[str]) -> dict[str, list[dict[str, Any]]]:
    runs: dict[str, list[dict[str, Any]]] = pickle.loads(source.read_bytes())
    for flag in rest:
        if flag.startswith("--manifests="):
            with_ordinals(runs, Path(flag.split("=", 1)[1]))
    return runs


def replay(
    source: Path,
    runs: dict[str, list[dict[str, Any]]],
    names: list[str],
    verbose: bool,
    deeper: int = 0,
    gated: bool = False,
) -> None:
    from ragd.query.extractive import ExtractiveAnswerer

    embed = CachedEmbed(source.with_suffix(".vectors.pkl"))
    answerer = ExtractiveAnswerer(embed)
    pooled = [0, 0, 0, 0, 0]
    for name, rows in runs.items():
        if names and name not in names:
            continue
        if gated:
            rows = [row for row in rows if row["result"].gate.passed]
        full = half = chars = medium = 0
        for row in rows:
            q, result = row["q"], row["result"]
            reply = answerer.answer(
                q.question,
                shown(row, deeper),
                gate=result.gate if gated else None,
                analysis=result.analysis,
                query_vector=result.query_vector,
            )
            share = fact_share(reply.text, q.facts)
            full += share == 1.0
            half += share >= 0.5
            medium += share == 1.0 and reply.confidence != "low"
            chars += len(reply.text)
            if verbose and share < 0.5:
                print(f"--- {share:.2f} {q.question}  facts={list(q.facts)}")
                print("\n".join(line[:200] for line in reply.text.splitlines()[2:]))
        n = len(rows)
        pooled = [a + b for a, b in zip(pooled, (full, half, n, chars, medium), strict=True)]
        print(line(name, full, half, n, chars, medium if gated else None))
    full, half, n, chars, medium = pooled
    print(line("pooled", full, half, n, chars, medium if gated else None))
    embed.save()


def line(name: str, full: int, half: int, n: int, chars: int, medium: int | None) -> str:
    """One corpus's figures, as shares and as counts (pooling several files needs these)."""
    shares = f"all {full / n:4.0%}  half {half / n:4.0%}  chars {chars / n:5.0f}  n {n}"
    counts = f"({full}/{half}/{n})" if medium is None else f"({full}/{half}/{n}, medium {medium})"
    return f"{name:12} {shares}  {counts}"


def why(
    source: Path, runs: dict[str, list[dict[str, Any]]], names: list[str], verbose: bool
) -> None:
    from bench.keyless_failures import answer_body, locate

    from ragd.query.extractive import ExtractiveAnswerer

    embed = CachedEmbed(source.with_suffix(".vectors.pkl"))
    answerer = ExtractiveAnswerer(embed)
    below: list[str] = []
    for name, rows in runs.items():
        if names and name not in names:
            continue
        tally: Counter[str] = Counter()
        held = bound = 0  # answers with half their facts; misses the page cannot mend
        for row in rows:
            q, result = row["q"], row["result"]
            analysis, vector = result.analysis, result.query_vector
            page = shown(row, 0)
            reply = answerer.answer(q.question, page, analysis=analysis, query_vector=vector)
            if fact_share(reply.text, q.facts) >= 0.5:
                held += 1
                continue
            scored = answerer.scored(q.question, page, analysis, vector)
            assert scored is not None
            body = answer_body(reply.text)
            quoted = [i for i, c in enumerate(scored.candidates) if norm(c.unit.text) in body]
            missing = [f for f in q.facts if norm(f) not in norm(reply.text)]
            where = [locate(f, result, scored.candidates, quoted, scored.scores) for f in missing]
            tally.update(w.split(" ")[-1].split("(")[0] for w in where)
            unretrieved = sum(w.startswith("retrieval") for w in where)
            bound += 2 * (len(q.facts) - unretrieved) < len(q.facts)
            print(f"  {q.question}\n       facts {list(q.facts)}\n       missing: {where}")
            if verbose:
                print("\n".join(f"         {line[:160]}" for line in reply.text.splitlines()[2:]))
        print(f"== {name}: missing facts by category: {dict(tally)}")
        ceiling = (len(rows) - bound) / max(len(rows), 1)
        print(
            f"   half their facts {held}/{len(rows)}; {bound} of the misses have under half"
            f" their facts on the page: quoting from the page reaches at most {ceiling:.0%}"
        )
        if ceiling < 0.8:
            below.append(f"{name} {ceiling:.0%}")
    print(f"corpora whose page caps answers with half their facts under 80 %: {below}")
    embed.save()


def past(source: Path, runs: dict[str, list[dict[str, Any]]], names: list[str], depth: int) -> None:
    from ragd.query.extractive import ExtractiveAnswerer

    embed = CachedEmbed(source.with_suffix(".vectors.pkl"))
    answerer = ExtractiveAnswerer(embed)
    fires: Counter[str] = Counter()  # signal -> questions it fires on; "+page": page had them
    asked = 0
    for name, rows in runs.items():
        if names and name not in names:
            continue
        for row in rows:
            q, result = row["q"], row["result"]
            page, extra = shown(row, 0), past_the_page(row, depth)
            scored = answerer.scored(
                q.question, [*page, *extra], result.analysis, result.query_vector
            )
            if scored is None or not extra:
                continue
            asked += 1
            beyond = {c.chunk_id for c in extra}
            units = [i for i, c in enumerate(scored.candidates) if not c.unit.instruction]
            on_page = [i for i in units if scored.candidates[i].chunk.chunk_id not in beyond]
            deeper = [i for i in units if scored.candidates[i].chunk.chunk_id in beyond]
            if not on_page or not deeper:
                continue
            covers = max(float(scored.coverage[i]) for i in on_page)
            best = max(float(scored.scores[i]) for i in on_page)
            top = max(deeper, key=lambda i: float(scored.scores[i]))
            page_held = max(fact_share(c.text, q.facts) for c in page) >= 0.5
            for signal, fired in (
                ("covers 0.1 more", float(scored.coverage[top]) >= covers + 0.1),
                ("outscores", float(scored.scores[top]) >= best),
            ):
                if fired:
                    fires[signal] += 1
                    fires[signal + " +page"] += page_held
            if page_held or max(fact_share(c.text, q.facts) for c in extra) < 0.5:
                continue
            holding = [i for i in deeper if fact_share(scored.candidates[i].unit.text, q.facts) > 0]
            if not holding:
                print(f"{name}: facts split across units past the page: {q.question}")
                continue
            j = max(holding, key=lambda i: float(scored.scores[i]))
            fires["facts past the page"] += 1
            fires["… its best-scoring unit"] += j == top
            fires["… out-covering the page"] += float(scored.coverage[j]) > covers
            print(
                f"{name}: coverage {float(scored.coverage[j]):.2f} (page {covers:.2f}),"
                f" score {float(scored.scores[j]) - best:+.2f} against the page's best,"
                f" best past the page: {j == top}  {q.question}"
            )
    print(f"{asked} questions with candidates past the page: {dict(fires)}")
    embed.save()


def beside(source: Path, runs: dict[str, list[dict[str, Any]]], names: list[str]) -> None:
    from ragd.query.candidates import stemmed
    from ragd.query.companions import _next_unit, _same_section, previous_unit
    from ragd.query.extractive import ExtractiveAnswerer

    embed = CachedEmbed(source.with_suffix(".vectors.pkl"))
    answerer = ExtractiveAnswerer(embed)
    missed = on_page = next_to = 0
    for name, rows in runs.items():
        if names and name not in names:
            continue
        for row in rows:
            q, result = row["q"], row["result"]
            page = shown(row, 0)
            analysis, vector = result.analysis, result.query_vector
            reply = answerer.answer(q.question, page, analysis=analysis, query_vector=vector)
            if fact_share(reply.text, q.facts) >= 0.5:
                continue
            missed += 1
            scored = answerer.scored(q.question, page, analysis, vector)
            assert scored is not None
            units, body = scored.candidates, norm(reply.text)
            quoted = [i for i, c in enumerate(units) if norm(c.unit.text) in body]
            holding = {
                i
                for i, c in enumerate(units)
                if i not in quoted and fact_share(c.unit.text, q.facts) > 0
            }
            if not holding:
                continue
            on_page += 1
            pairs = [
                (i, j, step)
                for i in quoted
                for step, j in (("next", _next_unit(i, units)), ("before", previous_unit(i, units)))
                if j in holding and _same_section(units[j], units[i])
            ]
            if not pairs:
                continue
            next_to += 1
            asked = stemmed(analysis.words)
            i, j, step = pairs[0]
            print(f"{name} ({step}): {q.question}  facts={list(q.facts)}")
            print(f"   quoted  {_described(scored, i, asked)}")
            print(f"   holding {_described(scored, j, asked)}")
    print(
        f"{missed} answers without half their facts; {on_page} with an unquoted unit of the"
        f" page holding a missing fact; {next_to} with one beside a quoted unit of its section"
    )
    embed.save()


def _described(scored: Any, k: int, asked: set[str]) -> str:
    """One unit's score, cosine, key-term coverage, content stems the question lacks, text."""
    from ragd.query.candidates import stems

    unit = scored.candidates[k].unit
    own = stems(unit.text)
    return (
        f"score {scored.scores[k]:.2f} cosine {scored.cosines[k]:.2f} coverage"
        f" {scored.coverage[k]:.2f} new {len(own - asked)}/{len(own)} {unit.kind} |"
        f" {unit.text[:160].replace(chr(10), ' / ')}"
    )


def past_the_page(row: dict[str, Any], depth: int) -> list[Any]:
    """The `depth` candidates after the page (as the answerer reads it) in the page's order."""
    from ragd.query.page import page_order

    on_page = {c.chunk_id for c in shown(row, 0)}
    ordered = page_order(row["q"].question, row["result"].candidates)
    return [c for c in ordered if c.chunk_id not in on_page][:depth]


def hashed_embed(texts: list[str]) -> np.ndarray:
    """A fixed vector for each text, seeded by its hash: no model, the same every run."""
    import hashlib

    vectors = [
        np.random.default_rng(
            int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
        ).standard_normal(384)
        for t in texts
    ]
    return np.stack(vectors).astype(np.float32) if vectors else np.zeros((0, 384), np.float32)


def timed(runs: dict[str, list[dict[str, Any]]], passes: int) -> None:
    import time
    from dataclasses import replace

    from ragd.query.extractive import ExtractiveAnswerer

    known: dict[str, np.ndarray] = {}

    def embed(texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in known]
        known.update(zip(new, hashed_embed(new), strict=True))
        return np.stack([known[t] for t in texts]) if texts else hashed_embed([])

    answerer = ExtractiveAnswerer(embed)
    rows = [row for kept in runs.values() for row in kept]
    spent = {}
    for times in (1, 4):
        pages = [
            [
                replace(c, text="\n\n".join(c.text.replace("\n", f" c{n}\n") for n in range(times)))
                if times > 1
                else c
                for c in shown(row, 0)
            ]
            for row in rows
        ]
        best = float("inf")
        for n in range(passes + 1):
            start = time.process_time()
            for row, page in zip(rows, pages, strict=True):
                result = row["result"]
                answerer.answer(
                    row["q"].question,
                    page,
                    analysis=result.analysis,
                    query_vector=result.query_vector,
                )
            if n:  # the first pass warms up
                best = min(best, time.process_time() - start)
        spent[times] = best
        print(f"{times}x the page text: {best:.2f} s CPU for {len(rows)} answers", flush=True)
    print(f"4x / 1x: {spent[4] / spent[1]:.2f}")


def main(argv: list[str]) -> None:
    command, target, rest = argv[0], Path(argv[1]), argv[2:]
    names = [a for a in rest if not a.startswith("--")]
    if command == "retrieve":
        kept = [Path(a.split("=", 1)[1]) for a in rest if a.startswith("--kept=")]
        retrieve(target, names, kept[-1] if kept else None)
    elif command == "retrieve-heldout":
        kept = [Path(a.split("=", 1)[1]) for a in rest if a.startswith("--kept=")]
        if kept:
            retrieve_kept_heldout(target, names, kept[-1])
        else:
            retrieve_heldout(target, names)
    elif command == "time":
        passes = [int(a.split("=", 1)[1]) for a in rest if a.startswith("--passes=")]
        timed(load_runs(target, rest), passes[-1] if passes else 2)
    elif command == "past":
        depth = [int(a.split("=", 1)[1]) for a in rest if a.startswith("--depth=")]
        past(target, load_runs(target, rest), names, depth[-1] if depth else 5)
    elif command == "beside":
        beside(target, load_runs(target, rest), names)
    elif command == "why":
        why(target, load_runs(target, rest), names, "--verbose" in rest)
    else:
        deeper = [int(a.split("=", 1)[1]) for a in rest if a.startswith("--deeper=")]
        runs = load_runs(target, rest)
        replay(
            target,
            runs,
            names,
            "--verbose" in rest,
            deeper[-1] if deeper else 0,
            "--gated" in rest,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
