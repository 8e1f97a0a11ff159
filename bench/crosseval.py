"""`make eval`: the gate and keyless answers on every evaluation corpus, leave-one-corpus-out.

Two sets of corpora: the eval corpora (bench/corpora.py, questions in bench/corpora/) and
the new users' folders (bench/heldout_corpora.py, questions in bench/heldout/: written
from a table of contents only by someone who had not read the folder, labelled after).
Builds each (a corpus whose pinned sources are missing is skipped with the reason),
indexes it in this process with the daemon's own code (the index is kept under bench/out/
so a re-run only re-reads the files), checks that every hard negative's answer really is
absent (for an eval corpus; a new user's labels that do not fit the folder are printed and
the questions kept), and prints one row per corpus with the gate and confidence fitted on
all the other corpora of both sets. The measurements are kept in bench/corpora/measured.json
and bench/heldout/measured.json, for the guard in `make test` (tests/daemon/test_eval.py)
and bench/refit.py. Exits 1 when a target is missed on any corpus (keyless fact presence
included).
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

from bench.corpora import CORPORA, Corpus, CorpusUnavailable, question_problems  # noqa: E402
from bench.heldout_corpora import HELDOUT, question_digest  # noqa: E402
from bench.heldout_eval import MEASURED as HELDOUT_MEASURED  # noqa: E402
from bench.heldout_eval import eval_questions  # noqa: E402

from ragd.harness.crosseval import (  # noqa: E402
    OUR_OWN,
    CorpusRun,
    fit,
    leave_one_out,
    load_measurements,
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
    """Measure the named corpora of both sets (all when `names` is empty), keeping each
    set's measurements in its own file."""
    from bench.inproc import embedder

    from ragd.query.offtopic_bank import OFFTOPIC_BANK

    model = embedder("auto")
    bank_vectors = model.embed(list(OFFTOPIC_BANK), lane="index")
    runs = []
    for corpus, heldout in [(c, False) for c in CORPORA] + [(c, True) for c in HELDOUT]:
        if names and corpus.name not in names:
            continue
        if not corpus.has_questions():
            print(f"{corpus.name}: SKIPPED — no questions yet in {corpus.questions.name}")
            continue
        try:
            folder = corpus.build(OUT / ("heldout-corpora" if heldout else "corpora"))
        except CorpusUnavailable as exc:
            print(f"{corpus.name}: SKIPPED — {exc}")
            continue
        questions = _questions(corpus, heldout)
        # A new user's hard negatives were grep-checked by their writer, not by patterns.
        problems = question_problems(folder, questions, require_absent=not heldout)
        if problems and not heldout:
            raise SystemExit(
                f"{corpus.name}: questions do not fit the corpus:\n" + "\n".join(problems)
            )
        for problem in problems:  # a new user's label, kept as written: the answer is judged
            print(f"{corpus.name}: label does not fit the folder: {problem}")
        started = time.perf_counter()
        index_dir = (OUT.parent / "heldout" if heldout else OUT / "index") / corpus.name
        run = measure(corpus.name, folder, questions, index_dir, model, bank_vectors)
        save_measurements(HELDOUT_MEASURED if heldout else MEASURED, [run])
        print(
            f"{corpus.name}: {run.chunks} chunks, {len(run.asked)} questions, bank q95 "
            f"{run.null:.3f} ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        runs.append(run)
    return runs


def _questions(corpus: Corpus, heldout: bool) -> Path:
    """The corpus's questions in the eval's form (a new user's, converted)."""
    if not heldout:
        return corpus.questions
    return eval_questions(corpus.questions.parent, OUT / "heldout-questions")


def kept_runs() -> list[CorpusRun]:
    """Every corpus's kept measurements, both sets, eval corpora first."""
    kept = load_measurements(MEASURED)
    if HELDOUT_MEASURED.exists():
        kept |= load_measurements(HELDOUT_MEASURED)
    order = [c.name for c in CORPORA] + [c.name for c in HELDOUT]
    return sorted(kept.values(), key=lambda r: order.index(r.name) if r.name in order else 99)


def main(argv: list[str]) -> int:
    measured = {run.name: run for run in evaluate_corpora(argv)}
    # A partial run (names given) reports and fits with the other corpora as last kept.
    runs = [measured.get(run.name, run) for run in kept_runs()] if argv else list(measured.values())
    if len(runs) < 3:
        print("need at least three corpora for leave-one-corpus-out")
        return 2
    print("\nquestion files (sha256; = the digest recorded when they were frozen, in")
    print("bench/corpora/frozen.json or bench/heldout/README.md):")
    frozen = json.loads(FROZEN.read_text()) if FROZEN.exists() else {}
    for corpus in (*CORPORA, *HELDOUT):
        if corpus.name in {r.name for r in runs}:
            name = str(corpus.questions.relative_to(ROOT))
            digest = hashlib.sha256(corpus.questions.read_bytes()).hexdigest()
            recorded = frozen.get(name, {}).get("sha256") or question_digest(corpus.name)
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
    missed = [f"{r.name}: {m}" for r in rows for m in r.misses()]
    for miss in missed:
        print(f"TARGET MISSED {miss}")
    return 1 if missed else 0


TRADEOFF_GRID = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7)
TOPICAL_GRID = (1.0, 0.25, 0.2, 0.17, 0.15, 0.13, 0.12, 0.1, 0.08, 0.05, 0.0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
