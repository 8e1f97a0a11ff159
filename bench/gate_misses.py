"""What the gate and the confidence still get wrong, held out, with the signals behind each.

Reads bench/corpora/measured.json (what the last `make eval` kept) and, each corpus scored
by the fit on the other real-document corpora (as `make eval` reports it), prints:

* every answerable question refused, with how many of the bank questions kept for the
  fit (each index's 30 highest-scoring off-subject questions) score at least as well on
  every signal a rescue could read — margin, cosine, coverage, topicality, standout higher
  or equal, unseen lower or equal. Any rule that is monotone in those signals and answers
  the question also answers each of those bank questions;
* every hard negative the gate let through that is not labelled `low`, and every right
  answer labelled `low`, with the answer model's inputs.

Usage: python bench/gate_misses.py [CORPUS ...]   (default: every corpus)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.crosseval import MEASURED  # noqa: E402

from ragd.harness.crosseval import (  # noqa: E402
    Asked,
    CorpusRun,
    fit,
    label_of,
    load_measurements,
    training_runs,
)
from ragd.harness.gatefit import GateFit  # noqa: E402
from ragd.query import gate_model  # noqa: E402

INDEX = {name: i for i, name in enumerate(gate_model.FEATURES)}
HIGHER = ("margin", "cosine", "coverage", "topicality", "standout")  # more is more supported


def dominating_bank(x: list[float], runs: list[CorpusRun]) -> list[str]:
    """The corpora of the kept bank questions at least as supported as `x` on every signal."""
    out = []
    for run in runs:
        for signals in run.bank_signals:
            y = run.x(signals)
            higher = all(y[INDEX[n]] >= x[INDEX[n]] for n in HIGHER)
            if higher and y[INDEX["unseen"]] <= x[INDEX["unseen"]]:
                out.append(run.name)
    return out


def line(run: CorpusRun, fitted: GateFit, a: Asked) -> str:
    x = run.x(a.signals)
    verdict = fitted.verdict(x)
    label = "-" if verdict == "refuse" else label_of(run, fitted, a)
    chance = fitted.answer_p(x, a.quote_coverage, a.unit_cosine, a.soft_coverage)
    signals = " ".join(f"{n}={v:+.2f}" for n, v in zip(gate_model.FEATURES, x, strict=True))
    return (
        f"  {verdict} {label} p={fitted.p(x):.2f} answer_p={chance:.2f} "
        f"(medium from {fitted.medium_from}) quote_coverage={a.quote_coverage:.2f} "
        f"unit_cosine={a.unit_cosine:.2f}\n    {signals}\n    {a.question.question}"
    )


def report(run: CorpusRun, runs: list[CorpusRun]) -> list[str]:
    fitted = fit(training_runs(runs, run.name))
    out = []
    for a in run.answerable():
        x = run.x(a.signals)
        if fitted.refuses(x):
            dominated = dominating_bank(x, runs)
            out.append(f"{run.name}: false refusal; {len(dominated)} bank questions score at")
            out.append(f"  least as well on every signal ({', '.join(sorted(set(dominated)))})")
            out.append(line(run, fitted, a))
    for a in run.of_kind("hard_negative"):
        x = run.x(a.signals)
        if not fitted.refuses(x) and label_of(run, fitted, a) != "low":
            out += [f"{run.name}: hard negative passed, not low", line(run, fitted, a)]
    for a in run.answerable():
        x = run.x(a.signals)
        right = a.fact_share() == 1.0 and not fitted.refuses(x)
        if right and label_of(run, fitted, a) == "low":
            out += [f"{run.name}: right answer labelled low", line(run, fitted, a)]
    return out


def main(argv: list[str]) -> int:
    runs = list(load_measurements(MEASURED).values())
    for run in runs:
        if not argv or run.name in argv:
            print("\n".join(report(run, runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
