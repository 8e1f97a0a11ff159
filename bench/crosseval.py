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
    training_runs,
)

OUT = ROOT / "bench" / "out" / "eval"
# Kept in the repository: the guard in `make test` fits on the corpora it does not measure.
MEASURED = ROOT / "bench" / "corpora" / "measured.json"


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
    if len(runs) < 2:
        print("need at least two corpora for leave-one-corpus-out")
        return 2
    rows = leave_one_out(runs)
    print()
    print(render(rows))
    shipped = fit(training_runs(runs, OUR_OWN))
    print(
        f"\nfitted on the real-document corpora (the daemon's constants): MARGIN "
        f"{shipped.margin:+.3f}, UNSEEN_LIMIT {shipped.limit:.2f}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "report.json").write_text(json.dumps([asdict(r) for r in rows], indent=1))
    save_measurements(MEASURED, runs)
    missed = [f"{r.name}: {m}" for r in rows for m in r.misses()]
    for miss in missed:
        print(f"TARGET MISSED {miss}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
