"""Could another confidence label meet issue #19's per-corpus targets more often, held out?

Replays the kept measurements (bench/corpora/measured.json, bench/heldout/measured.json)
leave-one-corpus-out, as bench/refit.py does: each fold's gate is the one fitted without
the corpus, and each label variant's confidence regression and `medium` cut are refitted
on that fold's training answers only. For every variant it prints, held out, right answers
`medium`/`high` and passed hard negatives `low` pooled, how many corpora miss each target
(60 %, 80 %) with (eval corpora, new users' folders), and the corpora missing either.
Variants: the training share of hard negatives kept `low` (gatefit.HARD_LOW), a cut
chosen for the fewest training corpora missing a target ("corpus", ties: lowest, middle
of the widest run, highest), one input more in the regression (the closest unit's key-term
coverage, gate signals, the index's floor or size, the gate's logit over the index's top
bank questions' mean "relp", interactions), and the regression fitted on right answers
against passed hard negatives only ("pop"); the shipped chance with its cut moved with the
index's size ("size"); two inputs with the share moved too ("grid"). docs/calibration.md
(session 54) keeps the figures.
Usage: python bench/label_rules.py [basic|extras|rel|pop|size|grid]
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.crosseval import kept_runs  # noqa: E402

from ragd.harness import gatefit  # noqa: E402
from ragd.harness.crosseval import fit, training_runs  # noqa: E402
from ragd.harness.gatefit import FEATURE_INDEX  # noqa: E402
from ragd.query import gate_model  # noqa: E402


@dataclass
class A:
    corpus: str
    kind: str  # answerable / hard_negative / off_topic
    x: list
    right: bool  # fact_share == 1 (answerable with facts)
    has_facts: bool
    qc: float
    uc: float
    ucov: float
    soft: float | None
    names_unseen: bool
    floor: float
    chunks: int


def load():
    runs = kept_runs()
    evals = set(json.loads((ROOT / "bench/corpora/measured.json").read_text()))
    items = {}
    for r in runs:
        out = []
        for a in r.asked:
            out.append(
                A(
                    r.name,
                    a.kind,
                    r.x(a.signals),
                    bool(a.question.answerable and a.fact_share() == 1.0),
                    bool(a.question.facts),
                    a.quote_coverage,
                    a.unit_cosine,
                    a.unit_coverage,
                    a.soft_coverage,
                    gate_model.names_unseen(a.signals),
                    r.floor,
                    r.chunks,
                )
            )
        items[r.name] = out
        BANKX[r.name] = [r.x(s) for s in r.bank_signals]
    folds = {r.name: fit(training_runs(runs, r.name)) for r in runs}
    return runs, evals, items, folds


def shares(labels):
    """labels: list of (A, label) for the corpus's answers let through."""
    right = [
        lab != "low" for a, lab in labels if a.kind == "answerable" and a.right and a.has_facts
    ]
    hard = [lab == "low" for a, lab in labels if a.kind == "hard_negative"]
    high = [a.right and a.has_facts for a, lab in labels if lab == "high"]
    return right, hard, high


def report(name, per_corpus, evals, quiet=False):
    """per_corpus: {corpus: [(A, label)]} (answers let through)."""
    tot = {"r": [0, 0], "h": [0, 0], "hi": [0, 0]}
    miss = {"r": set(), "h": set(), "hi": set()}
    for c, labels in per_corpus.items():
        right, hard, high = shares(labels)
        for key, flags, target in (("r", right, 0.6), ("h", hard, 0.8), ("hi", high, 0.9)):
            tot[key][0] += sum(flags)
            tot[key][1] += len(flags)
            if flags and sum(flags) / len(flags) < target:
                miss[key].add(c)
    either = miss["r"] | miss["h"] | miss["hi"]
    ev = lambda s: (len(s & evals), len(s - evals))  # noqa: E731
    line = (
        f"{name:<40} right med {tot['r'][0]}/{tot['r'][1]} ({tot['r'][0] / tot['r'][1]:.1%}) "
        f"miss {len(miss['r'])} {ev(miss['r'])} | hard low {tot['h'][0]}/{tot['h'][1]} "
        f"({tot['h'][0] / tot['h'][1]:.1%}) miss {len(miss['h'])} {ev(miss['h'])} | "
        f"high {tot['hi'][0]}/{tot['hi'][1]} miss {len(miss['hi'])} | "
        f"any {len(either)} {ev(either)}"
    )
    if not quiet:
        print(line, flush=True)
    return miss, tot


def labelled(items, folds, rule):
    """rule(fold_name, a) -> label; only answers the fold lets through."""
    out = {}
    for c, asked in items.items():
        f = folds[c]
        out[c] = [
            (a, rule(c, a))
            for a in asked
            if a.kind in ("answerable", "hard_negative")
            and (a.kind != "answerable" or a.has_facts)
            and not f.refuses(a.x)
        ]
    return out


# -- variants ------------------------------------------------------------------------------
EXTRA = {
    "ucov": lambda a: a.ucov,
    "margin": lambda a: a.x[FEATURE_INDEX["margin"]],
    "agreement": lambda a: a.x[FEATURE_INDEX["agreement"]],
    "identifiers": lambda a: a.x[FEATURE_INDEX["identifiers"]],
    "unseen": lambda a: a.x[FEATURE_INDEX["unseen"]],
    "type_missing": lambda a: a.x[FEATURE_INDEX["type_missing"]],
    "cosine": lambda a: a.x[FEATURE_INDEX["cosine"]],
    "floor": lambda a: a.floor,
    "logchunks": lambda a: math.log(a.chunks),
    "uc_x_cov": lambda a: a.uc * a.x[FEATURE_INDEX["coverage"]],
}


BANKX = {}
_RELP = {}


def relp(fold, a):
    key = (id(fold), a.corpus)
    if key not in _RELP:
        ps = [gate_model.logit(fold.p(x)) for x in BANKX[a.corpus]]
        _RELP[key] = float(np.mean(ps)) if ps else 0.0
    return gate_model.logit(fold.p(a.x)) - _RELP[key]


def inputs(fold, a, extras):
    soft = fold.soft_mean if a.soft is None else a.soft
    base = [gate_model.logit(fold.p(a.x)), a.qc, a.uc, soft]
    base += [a.x[FEATURE_INDEX[n]] for n in gate_model.ANSWER_FEATURES]
    more = []
    for e in extras:
        if e == "relp":
            more.append(relp(fold, a))
        elif e == "uc_x_lp":
            more.append(a.uc * base[0])
        else:
            more.append(EXTRA[e](a))
    return base + more


def sig(z):
    return 1 / (1 + np.exp(-np.clip(z, -50, 50)))


THR = np.round(np.arange(0.01, 0.991, 0.005), 3)


def corpus_misses(scores, t, wr=1.0, wh=1.0):
    """scores: {corpus: [(p, a)]}: corpora missing each target with cut t."""
    mr = mh = 0
    for lst in scores.values():
        right = [
            p >= t and not a.names_unseen for p, a in lst if a.kind == "answerable" and a.right
        ]
        hard = [p < t or a.names_unseen for p, a in lst if a.kind == "hard_negative"]
        if right and sum(right) < 0.6 * len(right):
            mr += 1
        if hard and sum(hard) < 0.8 * len(hard):
            mh += 1
    return wr * mr + wh * mh


def make_variant(extras=(), cut="hardlow", hard_low=0.90, population="all", tie="low"):
    cache = {}

    def fit_fold(c, folds, items):
        fold = folds[c]
        train = [
            a
            for name, asked in items.items()
            if name not in (c, "sample")
            for a in asked
            if a.kind in ("answerable", "hard_negative") and not fold.refuses(a.x)
        ]
        if population == "right_vs_hard":
            train = [a for a in train if a.kind == "hard_negative" or a.right]
        x = np.array([inputs(fold, a, extras) for a in train])
        y = np.array([float(a.right) for a in train])
        beta = gatefit._rising_logistic(x, y)
        p = sig(np.hstack([x, np.ones((len(x), 1))]) @ beta)
        if cut == "hardlow":
            hard = [(pi, a) for pi, a in zip(p, train, strict=True) if a.kind == "hard_negative"]
            t = next(
                (
                    t
                    for t in THR
                    if sum(pi < t or a.names_unseen for pi, a in hard) / len(hard) >= hard_low
                ),
                THR[-1],
            )
        else:
            scores = {}
            for pi, a in zip(p, train, strict=True):
                scores.setdefault(a.corpus, []).append((pi, a))
            costs = [corpus_misses(scores, t) for t in THR]
            best = min(costs)
            idx = [i for i, v in enumerate(costs) if v == best]
            if tie == "low":
                t = THR[idx[0]]
            elif tie == "high":
                t = THR[idx[-1]]
            else:  # middle of the widest run
                runs, cur = [], [idx[0]]
                for i in idx[1:]:
                    if i == cur[-1] + 1:
                        cur.append(i)
                    else:
                        runs.append(cur)
                        cur = [i]
                runs.append(cur)
                wid = max(runs, key=len)
                t = THR[(wid[0] + wid[-1]) // 2]
        return fold, beta, float(t)

    def rule(c, a, folds, items):
        if c not in cache:
            cache[c] = fit_fold(c, folds, items)
        fold, beta, t = cache[c]
        z = np.dot(beta[:-1], inputs(fold, a, extras)) + beta[-1]
        p = float(sig(z))
        if p < t or a.names_unseen:
            return "low"
        return "medium"

    rule.cache = cache
    return rule


SLOPES = np.round(np.arange(-0.10, 0.101, 0.02), 2)


def size_cut(hard_low=0.90):
    """The fold's own answer probability, its cut moved with the index's size: t + b *
    (log chunks - the training indexes' median), (t, b) with the fewest training corpora
    missing a target, then the most training hard negatives `low`."""
    cache = {}

    def fit_fold(c, folds, items):
        fold = folds[c]
        train = [
            (fold.answer_p(a.x, a.qc, a.uc, a.soft), a)
            for name, asked in items.items()
            if name not in (c, "sample")
            for a in asked
            if a.kind in ("answerable", "hard_negative") and not fold.refuses(a.x)
        ]
        middle = float(np.median([math.log(asked[0].chunks) for asked in items.values()]))
        names = sorted({a.corpus for _, a in train})
        where = {n: i for i, n in enumerate(names)}
        corpus = np.array([where[a.corpus] for _, a in train])
        p = np.array([pi for pi, _ in train])
        size = np.array([math.log(a.chunks) - middle for _, a in train])
        unseen = np.array([a.names_unseen for _, a in train])
        right = np.array([a.kind == "answerable" and a.right for _, a in train])
        hard = np.array([a.kind == "hard_negative" for _, a in train])
        n_right = np.bincount(corpus[right], minlength=len(names))
        n_hard = np.bincount(corpus[hard], minlength=len(names))
        best = None
        for b in SLOPES:
            shifted = p - b * size
            for t in THR[40:160]:
                medium = (shifted >= t) & ~unseen
                r = np.bincount(corpus[right & medium], minlength=len(names))
                h = np.bincount(corpus[hard & ~medium], minlength=len(names))
                cost = int(((n_right > 0) & (r < 0.6 * n_right)).sum())
                cost += int(((n_hard > 0) & (h < 0.8 * n_hard)).sum())
                if best is None or cost < best[0] or (cost == best[0] and abs(b) < abs(best[2])):
                    best = (cost, float(t), float(b))
        return fold, best[1], best[2], middle

    def rule(c, a, folds, items):
        if c not in cache:
            cache[c] = fit_fold(c, folds, items)
        fold, t, b, middle = cache[c]
        p = fold.answer_p(a.x, a.qc, a.uc, a.soft) - b * (math.log(a.chunks) - middle)
        return "low" if p < t or a.names_unseen else "medium"

    rule.cache = cache
    return rule


def run_variant(name, items, folds, evals, variant, quiet=False):
    res = labelled(items, folds, lambda c, a: variant(c, a, folds, items))
    return report(name, res, evals, quiet)


if __name__ == "__main__":
    runs, evals, items, folds = load()
    base = labelled(
        items, folds, lambda c, a: folds[c].label(a.x, a.qc, a.uc, a.soft, a.names_unseen)
    )
    report("shipped rule (per fold)", base, evals)
    which = sys.argv[1] if len(sys.argv) > 1 else "basic"
    V = []
    if which == "basic":
        V += [("replica hardlow .90", make_variant())]
        for h in (0.85, 0.88, 0.92):
            V += [(f"hardlow {h}", make_variant(hard_low=h))]
        for tie in ("low", "mid", "high"):
            V += [(f"corpus-miss cut tie={tie}", make_variant(cut="corpus", tie=tie))]
    elif which == "extras":
        for e in EXTRA:
            V += [(f"+{e} hardlow", make_variant(extras=(e,)))]
            V += [(f"+{e} corpus", make_variant(extras=(e,), cut="corpus", tie="mid"))]
    elif which == "rel":
        for e in (("relp",), ("uc_x_lp",), ("type_missing", "cosine")):
            V += [(f"+{e} hardlow", make_variant(extras=e))]
            V += [(f"+{e} corpus", make_variant(extras=e, cut="corpus", tie="mid"))]
    elif which == "grid":
        for e in ((), ("type_missing",), ("cosine",), ("type_missing", "cosine")):
            for h in (0.86, 0.88, 0.89, 0.91):
                V += [(f"+{e} hardlow {h}", make_variant(extras=e, hard_low=h))]
    elif which == "size":
        V += [("cut moved with log(chunks)", size_cut())]
    elif which == "pop":
        V += [("right_vs_hard hardlow", make_variant(population="right_vs_hard"))]
        V += [
            (
                "right_vs_hard corpus",
                make_variant(population="right_vs_hard", cut="corpus", tie="mid"),
            )
        ]
    for name, v in V:
        run_variant(name, items, folds, evals, v)
        fitted = {c: f[1:] for c, f in v.cache.items()}
        if which == "size":
            print("  (t, slope, median log chunks) per fold:", sorted(set(fitted.values())))
