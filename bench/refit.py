"""The gate refitted from the kept measurements, in seconds instead of `make eval`'s minutes.

For a change to the decision rule or the fit (ragd/harness/gatefit.py, query/gate_model.py)
that leaves the retrieval's signals as they were: prints the held-out table, the
trade-off and the constants `make eval` would print, and what the shipped constants refuse,
from bench/corpora/measured.json and bench/heldout/measured.json (what the last `make eval`
kept per corpus and per new user's folder). A change to the signals themselves (support,
identifiers, the question analysis, retrieval) needs `make eval`.
Usage: python bench/refit.py [MEASURED_JSON ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.crosseval import TOPICAL_GRID, TRADEOFF_GRID, kept_runs  # noqa: E402

from ragd.harness.crosseval import (  # noqa: E402
    OUR_OWN,
    CorpusRun,
    fit,
    leave_one_out,
    load_measurements,
    render,
    topical_tradeoff,
    tradeoff,
    training_runs,
)
from ragd.harness.gatefit import SHIPPED, render_constants  # noqa: E402


def main(argv: list[str]) -> int:
    if argv:
        kept = {}
        for path in map(Path, argv):
            kept |= load_measurements(path)
        runs = list(kept.values())
    else:
        runs = kept_runs()
    print(render(leave_one_out(runs)))
    print("\ntrade-off, held out and pooled (refusal threshold on p: false refusals, hard")
    print("negatives not refused, off-topic not refused):")
    for t, false_ref, hard_through, off_through in tradeoff(runs, TRADEOFF_GRID):
        print(f"  p < {t:.2f}: {false_ref:6.1%}  {hard_through:6.1%}  {off_through:6.1%}")
    print("\nthe topicality rescue's line, held out and pooled (RESCUE_TOPICAL: false refusals,")
    print("hard negatives not refused, off-topic not refused, bank questions not refused):")
    for t, false_ref, hard_through, off_through, bank in topical_tradeoff(runs, TOPICAL_GRID):
        line = "never" if t >= 1.0 else f"{t:.2f}"
        print(f"  {line:>5}: {false_ref:6.1%}  {hard_through:6.1%}  {off_through:6.1%}  {bank:4d}")
    print("\nfitted on the real-document corpora (query/gate_model.py holds these):")
    print(render_constants(fit(training_runs(runs, OUR_OWN))))
    print("\n" + shipped_on_kept(runs))
    return 0


def shipped_on_kept(runs: list[CorpusRun]) -> str:
    """The shipped constants (query/gate_model.py) on every kept measurement, not held out:
    what a user of these folders gets today (each corpus was in the fit)."""
    off = [SHIPPED.refuses(r.x(a.signals)) for r in runs for a in r.of_kind("off_topic")]
    ans = [SHIPPED.refuses(r.x(a.signals)) for r in runs for a in r.answerable()]
    return (
        f"the shipped constants on the kept measurements (not held out): off-topic refused "
        f"{sum(off)}/{len(off)}, answerable questions refused {sum(ans)}/{len(ans)}"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
