"""Could any rule on the kept signals give `Confidence: high` right ≥ 90 % on every corpus?

Replays the kept measurements (bench/corpora/measured.json, bench/heldout/measured.json)
leave-one-corpus-out, as bench/refit.py does: each corpus's answers are scored by the fit
made without it. For each candidate rule it prints the held-out precision/coverage curve
at one line for every corpus (fired, right, the share of all right answers it covers, the
corpora where it fires and is right under 90 %), then the line fitted per fold as
HIGH_MARGIN is (the lowest whose training answers show 90 % by Wilson's bound; and, for
comparison, by the point estimate ≥ 92 % alone). A hard negative labelled `high` counts
as wrong. docs/calibration.md keeps the figures of 5 Dec 2026.
Usage: python bench/high_rules.py
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.crosseval import kept_runs  # noqa: E402

from ragd.harness.crosseval import CorpusRun, fit, training_runs  # noqa: E402
from ragd.harness.gatefit import FEATURE_INDEX, HIGH_SUPPORT, GateFit, wilson_lower  # noqa: E402
from ragd.query import gate_model  # noqa: E402
from ragd.query.gate_model import COMPLETE  # noqa: E402


@dataclass(frozen=True)
class Scored:
    corpus: str
    right: bool
    chance: float  # the answer's probability under the fold
    medium: bool
    complete: bool  # first quote and best passage hold every key term
    unit_complete: bool  # the closest unit holds every key term
    margin: float
    standout: float
    agreement: float
    gate_p: float


def scored(run: CorpusRun, fitted: GateFit) -> list[Scored]:
    """The answers the fold lets through (answerable with facts, and hard negatives)."""
    out = []
    for a in run.asked:
        q = a.question
        if not (q.answerable and q.facts) and q.kind != "hard_negative":
            continue
        x = run.x(a.signals)
        if fitted.refuses(x):
            continue
        chance = fitted.answer_p(x, a.quote_coverage, a.unit_cosine, a.soft_coverage)
        coverage = x[FEATURE_INDEX["coverage"]]
        out.append(
            Scored(
                run.name,
                q.answerable and a.fact_share() == 1.0,
                chance,
                chance >= fitted.medium_from and not gate_model.names_unseen(a.signals),
                min(a.quote_coverage, coverage) >= COMPLETE,
                a.unit_coverage >= COMPLETE,
                x[FEATURE_INDEX["margin"]],
                x[FEATURE_INDEX["standout"]],
                x[FEATURE_INDEX["agreement"]],
                fitted.p(x),
            )
        )
    return out


Rule = Callable[[Scored, float], bool]
RULES: dict[str, tuple[Rule, list[float]]] = {
    "chance >= t": (lambda s, t: s.chance >= t, [0.8, 0.85, 0.9, 0.93, 0.95]),
    "complete, medium, margin >= t": (
        lambda s, t: s.complete and s.medium and s.margin >= t,
        [0.3, 0.4, 0.45, 0.5, 0.55],
    ),
    "complete, chance >= t": (lambda s, t: s.complete and s.chance >= t, [0.8, 0.9, 0.95]),
    "closest unit complete, chance >= t": (
        lambda s, t: s.unit_complete and s.chance >= t,
        [0.8, 0.9, 0.95],
    ),
    "both agree, medium, standout >= t": (
        lambda s, t: s.agreement >= 1.0 and s.medium and s.standout >= t,
        [3.0, 3.5, 4.0],
    ),
    "medium, gate p >= t": (lambda s, t: s.medium and s.gate_p >= t, [0.98, 0.99]),
}
FITTED_GRID = [round(0.01 * i, 2) for i in range(100)]


def report(fired: list[Scored], right_total: int) -> str:
    if not fired:
        return "fired 0"
    right = sum(s.right for s in fired)
    by_corpus: dict[str, list[bool]] = {}
    for s in fired:
        by_corpus.setdefault(s.corpus, []).append(s.right)
    under = [f"{c} {sum(v)}/{len(v)}" for c, v in by_corpus.items() if sum(v) < 0.9 * len(v)]
    return (
        f"fired {len(fired)}, right {right} ({right / len(fired):.1%}), "
        f"{right / right_total:.1%} of the {right_total} right; "
        f"under 90 % on {len(under)} of {len(by_corpus)}: {', '.join(under)}"
    )


def fitted_line(training: list[Scored], rule: Rule, wilson: bool) -> float | None:
    for t in FITTED_GRID:
        fired = [s.right for s in training if rule(s, t)]
        if len(fired) < HIGH_SUPPORT:
            continue
        rate_shown = wilson_lower(sum(fired), len(fired)) >= 0.90
        if rate_shown if wilson else sum(fired) >= 0.92 * len(fired):
            return t
    return None


def main() -> int:
    runs = kept_runs()
    folds = {run.name: fit(training_runs(runs, run.name)) for run in runs}
    held = {run.name: scored(run, folds[run.name]) for run in runs}
    right_total = sum(s.right for answers in held.values() for s in answers)
    # Each fold's training answers, scored by that fold (the sample corpus never trains).
    training = {
        run.name: [
            s for other in training_runs(runs, run.name) for s in scored(other, folds[run.name])
        ]
        for run in runs
    }
    for name, (rule, lines) in RULES.items():
        print(f"\n{name} (held out, one line for every corpus)")
        for t in lines:
            fired = [s for answers in held.values() for s in answers if rule(s, t)]
            print(f"  {t}: {report(fired, right_total)}")
        for wilson in (True, False):
            fired, never = [], 0
            for run in runs:
                line = fitted_line(training[run.name], rule, wilson)
                never += line is None
                fired += [s for s in held[run.name] if line is not None and rule(s, line)]
            how = "Wilson ≥ 90 %" if wilson else "point ≥ 92 %"
            print(f"  fitted per fold ({how}): never in {never} folds;", report(fired, right_total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
