"""Would one more kept input help the confidence? Leave-one-corpus-out, from measured.json.

The confidence model (gate_model.answer_probability, fitted by ragd/harness/gatefit.py)
reads logit(p), the first quote's coverage, the closest unit's cosine and the retrieval's
ANSWER_FEATURES. This refits it, for every corpus, on the other real-document corpora with
the named inputs kept per answer appended (as measured, like the first quote's coverage),
cuts `medium` where gatefit cuts it (the lowest that keeps HARD_LOW of the training hard
negatives `low`), and prints, held out: right answers `medium`, passed hard negatives
`low`, pooled, and the corpora under issue #19's targets (60 % and 80 %). `high` is left
out (gatefit's rule gives it to no fold). With no input named it reproduces the shipped
model's columns of `bench/refit.py`.

Usage: python bench/confidence_inputs.py [INPUT ...]   (e.g. unit_coverage)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.crosseval import kept_runs  # noqa: E402

from ragd.harness import gatefit  # noqa: E402
from ragd.harness.crosseval import Asked, CorpusRun, fit, training_runs  # noqa: E402
from ragd.harness.gatefit import Example, GateFit  # noqa: E402

RIGHT_MEDIUM, HARD_LOW_TARGET = 0.60, 0.80


def answers(run: CorpusRun, fitted: GateFit) -> list[tuple[Asked, list[float]]]:
    """The answers `fitted` lets through (answerable and hard-negative questions), each
    with the confidence's own inputs, as gatefit fits them."""
    out = []
    for a in run.answerable() + run.of_kind("hard_negative"):
        x = run.x(a.signals)
        if fitted.refuses(x):
            continue
        example = Example(x, 0, a.kind, quote_coverage=a.quote_coverage, unit_cosine=a.unit_cosine)
        out.append((a, gatefit._answer_inputs(fitted, example)))
    return out


def design(rows: list[tuple[Asked, list[float]]], inputs: list[str]) -> np.ndarray:
    return np.array([base + [float(getattr(a, name)) for name in inputs] for a, base in rows])


def chance(
    rows: list[tuple[Asked, list[float]]], inputs: list[str], beta: np.ndarray
) -> np.ndarray:
    x = design(rows, inputs)
    return 1 / (1 + np.exp(-np.hstack([x, np.ones((len(x), 1))]) @ beta))


def right(a: Asked) -> bool:
    return a.question.answerable and a.fact_share() == 1.0


def held_out(runs: list[CorpusRun], inputs: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Per corpus: (name, right `medium`, right, passed hard negatives `low`, passed)."""
    out = []
    for run in runs:
        others = training_runs(runs, run.name)
        fitted = fit(others)
        train = [row for other in others for row in answers(other, fitted)]
        y = np.array([float(right(a)) for a, _ in train])
        beta = gatefit.logistic(design(train, inputs), y, np.ones(len(y)), l2=0.1)

        hard = chance(train, inputs, beta)[[not a.question.answerable for a, _ in train]]
        cut = next((t for t in gatefit.THRESHOLDS if (hard < t).mean() >= gatefit.HARD_LOW), 1.0)
        rows = answers(run, fitted)
        if not rows:
            continue
        p = chance(rows, inputs, beta)
        ok = [q >= cut for (a, _), q in zip(rows, p, strict=True) if right(a)]
        low = [q < cut for (a, _), q in zip(rows, p, strict=True) if not a.question.answerable]
        out.append((run.name, sum(ok), len(ok), sum(low), len(low)))
    return out


def main(argv: list[str]) -> int:
    runs = kept_runs()
    kept = [a for run in runs for a in run.asked]
    missing = [n for n in argv if not any(getattr(a, n, 0.0) for a in kept)]
    if missing:
        print(f"not in the kept measurements: {', '.join(missing)}", file=sys.stderr)
        return 2
    table = held_out(runs, argv)
    misses = []
    for name, ok, of, low, passed in table:
        if of and ok < RIGHT_MEDIUM * of:
            misses.append(f"{name} right medium {ok}/{of}")
        if passed and low < HARD_LOW_TARGET * passed:
            misses.append(f"{name} passed hard negatives low {low}/{passed}")
    ok, of, low, passed = (sum(row[i] for row in table) for i in range(1, 5))
    print(f"inputs added: {', '.join(argv) or 'none'}")
    print(f"held out, pooled: right answers medium {ok}/{of} ({ok / of:.1%}),")
    print(f"passed hard negatives low {low}/{passed} ({low / passed:.1%});")
    print(f"{len(misses)} per-corpus targets missed:")
    for miss in misses:
        print(f"  {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
