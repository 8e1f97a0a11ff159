"""Rescue rules on bench/rescue_signals.py's measurements, fitted leave-one-corpus-out.

Each corpus keeps the rest of its fold's gate (bench/refit.py's fit without it, from the
kept measurements); the new rescue's line is fitted on the other corpora of the signals
file (the sample corpus never: it is ours): the lowest line at which, of what the fold's
rule refuses, no off-topic question and at most BANK_SHARE of the bank questions are
rescued. Prints, per rule, per corpus (held out): false refusals, hard negatives refused,
off-topic and bank questions not refused, before → after.
Usage: python bench/rescue_fit.py SIGNALS.json [SIGNALS.json ...]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.crosseval import kept_runs  # noqa: E402

from ragd.harness.crosseval import OUR_OWN, fit, training_runs  # noqa: E402
from ragd.harness.gatefit import GateFit  # noqa: E402
from ragd.query import gate_model  # noqa: E402

BANK_SHARE = 0.002  # as gatefit.TOPICAL_BANK_SHARE
GRID = np.round(np.arange(0.30, 0.701, 0.005), 3)
COSINE = gate_model.FEATURES.index("cosine")
Rule = Callable[[dict[str, Any], list[float], float], bool]


def best_look(a: dict[str, Any], x: list[float]) -> float:
    return max(x[COSINE], a.get("unit", 0.0))


RULES: dict[str, Rule] = {
    "window or block cosine": lambda a, x, t: x[COSINE] >= t,
    "window, block or unit cosine": lambda a, x, t: best_look(a, x) >= t,
    "unit cosine": lambda a, x, t: a.get("unit", 0.0) >= t,
    "unit cosine with context": lambda a, x, t: a.get("unit_ctx", 0.0) >= t,
    "last heading cosine": lambda a, x, t: a.get("head_last", 0.0) >= t,
    "heading path cosine": lambda a, x, t: a.get("head_full", 0.0) >= t,
}
for _lead in (0.05, 0.10, 0.15):
    RULES[f"best look, {_lead:.2f} over the nearest bank question"] = lambda a, x, t, lead=_lead: (
        best_look(a, x) >= t and best_look(a, x) - a.get("bank_near", 1.0) >= lead
    )


def examples(data: dict[str, Any]) -> list[tuple[str, list[float], dict[str, Any]]]:
    """(kind, features, row) per question and bank question; the cosine the rescue reads
    is the better of the window's and the block's, as gate.judge's second look gives it."""
    out = []
    for a in data["asked"] + data["bank"]:
        signals = dict(a["signals"])
        signals["cosine"] = max(signals["cosine"], a.get("block", 0.0))
        x = gate_model.features(signals, data["floor"], data["topical"])
        out.append(("answerable" if a["answerable"] else a["kind"], x, a))
    return out


def rescues(rule: Rule, fold: GateFit, x: list[float], a: dict[str, Any], t: float) -> bool:
    """Refused by the fold's rule, and a question the cosine rescue could take (every
    identifier held, known words), that `rule` lifts at line `t`."""
    f = dict(zip(gate_model.FEATURES, x, strict=True))
    eligible = f["identifiers"] >= 1.0 and f["unseen"] < min(fold.rescue_unseen, fold.unseen_limit)
    return fold.refuses(x) and eligible and rule(a, x, t)


# The unit look read into the second look's cosine, at the fold's own RESCUE_COSINE
# (not a line of its own): what wiring it into block_cosine.py would do before a refit.
AT_THE_FOLDS_LINE = "window, block or unit cosine, at the fold's RESCUE_COSINE"
RULES[AT_THE_FOLDS_LINE] = RULES["window, block or unit cosine"]


def line(rule: Rule, fold: GateFit, training: list[list[Any]]) -> float:
    bank = sum(k == "bank" for rows in training for k, _, _ in rows)
    for t in GRID:
        rescued = [k for rows in training for k, x, a in rows if rescues(rule, fold, x, a, t)]
        if "off_topic" not in rescued and rescued.count("bank") <= BANK_SHARE * bank:
            return float(t)
    return 9.0  # never


def main(paths: list[str]) -> int:
    measured: dict[str, Any] = {}
    for path in paths:
        measured |= json.loads(Path(path).read_text())
    runs = kept_runs()
    folds = {r.name: fit(training_runs(runs, r.name)) for r in runs if r.name in measured}
    rows = {name: examples(data) for name, data in measured.items()}
    for title, rule in RULES.items():
        print(f"\n{title}: corpus line  false ref  hard neg refused  off-topic passed  bank passed")
        total = np.zeros(8, dtype=int)
        for name, fold in folds.items():
            training = [rows[n] for n in rows if n not in (name, OUR_OWN)]
            t = fold.rescue_cosine if title == AT_THE_FOLDS_LINE else line(rule, fold, training)
            c = np.zeros(8, dtype=int)
            for kind, x, a in rows[name]:
                before = fold.refuses(x)
                after = before and not rescues(rule, fold, x, a, t)
                at = {"answerable": 0, "hard_negative": 2, "off_topic": 4, "bank": 6}.get(kind)
                if at is not None:
                    flags = (before, after) if at < 4 else (not before, not after)
                    c[at : at + 2] += flags
            total += c
            print(
                f"  {name:<12} {t:5.3f}  {c[0]:>3} → {c[1]:<3}  {c[2]:>5} → {c[3]:<5}"
                f"  {c[4]:>5} → {c[5]:<5}  {c[6]:>5} → {c[7]}"
            )
        print(
            f"  {'pooled':<12}        {total[0]:>3} → {total[1]:<3}  {total[2]:>5} → {total[3]:<5}"
            f"  {total[4]:>5} → {total[5]:<5}  {total[6]:>5} → {total[7]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
