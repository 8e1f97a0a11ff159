"""`make eval`: the gate and keyless answers on every evaluation corpus, leave-one-corpus-out.

Builds each corpus (bench/corpora.py; a corpus whose pinned sources are missing is skipped
with the reason), indexes it in this process with the daemon's own code (the index is
kept under bench/out/eval/ so a re-run only re-reads the files), checks that every hard
negative's answer really is absent, and prints one row per corpus with the margin fitted
on the other corpora. Each corpus's measurements are kept in bench/corpora/measured.json
for the guard in `make test` (tests/daemon/test_eval.py). Exits 1 when a target is missed on
any corpus (keyless fact presence included).
Usage: python bench/crosseval.py [CORPUS ...]
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpora import CORPORA, CorpusUnavailable, question_problems  # noqa: E402

from ragd.harness.crosseval import (  # noqa: E402
    OUR_OWN,
    CorpusRun,
    fit,
    leave_one_out,
    measure,
    render,
    save_measurements,
    topical_tradeoff,
    tradeoff,
    training_runs,
)
from ragd.harness.gatefit import render_constants  # noqa: E402

OUT = ROOT / "bench" / "out" / "eval"
# Kept in the repository: the guard in `make test` fits on the corpora it does not measure.
MEASURED = ROOT / "bench" / "corpora" / "measured.json"
FROZEN = ROOT / "bench" / "corpora" / "frozen.json"


def evaluate_corpora(names: list[str]) -> list[CorpusRun]:
    from bench.inproc import embedder

    from ragd.query.offtopic_bank import OFFTOPIC_BANK

    model = embedder("auto")
    bank_vectors = model.embed(list(OFFTOPIC_BANK), lane="index")
    runs = []
    for corpus in CORPORA:
        if names and corpus.name not in names:
            continue
        if not corpus.has_questions():
            print(f"{corpus.name}: SKIPPED — no questions yet in {corpus.questions.name}")
            continue
        try:
            folder = corpus.build(OUT / "corpora")
        except CorpusUnavailable as exc:
            print(f"{corpus.name}: SKIPPED — {exc}")
            continue
        problems = question_problems(folder, corpus.questions)
        if problems:
            raise SystemExit(
                f"{corpus.name}: questions do not fit the corpus:\n" + "\n".join(problems)
            )
        started = time.perf_counter()
        index_dir = OUT / "index" / corpus.name
        run = measure(corpus.name, folder, corpus.questions, index_dir, model, bank_vectors)
        print(
            f"{corpus.name}: {run.chunks} chunks, {len(run.asked)} questions, bank q95 "
            f"{run.null:.3f} ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        runs.append(run)
    return runs


def main(argv: list[str]) -> int:
    runs = evaluate_corpora(argv)
    if len(runs) < 3:
        print("need at least three corpora for leave-one-corpus-out")
        return 2
    print("\nquestion files (sha256; = the digest bench/corpora/frozen.json recorded):")
    frozen = json.loads(FROZEN.read_text()) if FROZEN.exists() else {}
    for corpus in CORPORA:
        if corpus.name in {r.name for r in runs}:
            name = str(corpus.questions.relative_to(ROOT))
            digest = hashlib.sha256(corpus.questions.read_bytes()).hexdigest()
            recorded = frozen.get(name, {}).get("sha256")
            mark = "= frozen" if recorded == digest else "not frozen" if not recorded else "CHANGED"
            print(f"  {name}  {digest}  {mark}")
    rows = leave_one_out(runs)
    print()
    print(render(rows))
    print("\ntrade-off, held out and pooled (refusal threshold on p: false refusals, hard")
    print("negatives not refused, off-topic not refused):")
    for t, false_ref, hard_through, off_through in tradeoff(runs, TRADEOFF_GRID):
        print(f"  p < {t:.2f}: {false_ref:6.1%}  {hard_through:6.1%}  {off_through:6.1%}")
    print("\nthe topicality rescue's line, held out and pooled (RESCUE_TOPICAL: false refusals,")
    print("hard negatives not refused, off-topic not refused, bank questions not refused):")
    for t, false_ref, hard_through, off_through, bank in topical_tradeoff(runs, TOPICAL_GRID):
        line = "never" if t >= 1.0 else f"{t:.2f}"
        print(f"  {line:>5}: {false_ref:6.1%}  {hard_through:6.1%}  {off_through:6.1%}  {bank:4d}")
    shipped = fit(training_runs(runs, OUR_OWN))
    print("\nfitted on the real-document corpora (paste into query/gate_model.py):")
    print(render_constants(shipped))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "report.json").write_text(json.dumps([asdict(r) for r in rows], indent=1))
    save_measurements(MEASURED, runs)
    missed = [f"{r.name}: {m}" for r in rows for m in r.misses()]
    for miss in missed:
        print(f"TARGET MISSED {miss}")
    return 1 if missed else 0


TRADEOFF_GRID = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7)
TOPICAL_GRID = (1.0, 0.25, 0.2, 0.17, 0.15, 0.13, 0.12, 0.1, 0.08, 0.05, 0.0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
