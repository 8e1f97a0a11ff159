"""Fitting the gate's model and the answer confidence (query/gate_model.py) on eval corpora.

Pure numpy, for `make eval` (crosseval.py), which fits on all corpora but one and reports
on the one left out. Each example is one question's retrieval signals (gate.signals) with
the margin measured from its own index's floor:

1. **The gate model** — an L2-regularised logistic regression, answerable (1) against
   off-topic and hard-negative questions and the 30 bank questions that score highest on
   each index (0), classes weighted equally.
2. **REFUSE_BELOW** — the middle of the widest range of thresholds that refuse every
   off-topic question of the training corpora and the fewest answerable ones.
3. **PASS_FROM** — the threshold (above REFUSE_BELOW) with the fewest hard negatives passed
   as "clearly supported" (counted twice) plus answerable questions left "unsure".
4. **Answer confidence** — a logistic regression of "the keyless answer holds its facts"
   on logit(p) and the first quote's coverage, over the answers the gate let through
   (hard negatives' count as wrong); `high` from the lowest cut whose answers are right
   ≥ 92 % of the time, `medium` from the lowest cut that keeps ≥ 85 % of the hard negatives'
   answers `low`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ragd.query import gate_model

# The features each model uses (gate_model.FEATURES; the others get weight 0).
USED = ("margin", "coverage", "unseen", "type_missing")
BANK_NEGATIVES = 30  # per index: the bank questions that score highest
L2 = 1.0
THRESHOLDS = np.round(np.arange(0.01, 0.991, 0.005), 3)
MARGINS = np.round(np.arange(-0.25, 0.25, 0.002), 3)  # over the index's floor
LIMITS = np.round(np.arange(0.30, 1.011, 0.01), 2)
RESCUE_GAP = 0.05  # the rescue cosine sits this far above the closest off-topic question
FEATURE_INDEX = {name: i for i, name in enumerate(gate_model.FEATURES)}
HIGH_PRECISION = 0.92
HARD_LOW = 0.85


@dataclass(frozen=True)
class Example:
    x: list[float]  # gate_model.features
    label: int  # 1 answerable, 0 not
    kind: str  # question kind ("bank" for bank questions)
    right: bool = False  # its keyless answer holds its facts (answerable only)
    quote_coverage: float = 0.0  # the first quote's share of the question's key terms


@dataclass(frozen=True)
class GateFit:
    center: tuple[float, ...]
    scale: tuple[float, ...]
    refuse_margin: float
    rescue_cosine: float
    unseen_limit: float
    weights: tuple[float, ...]
    bias: float
    pass_from: float
    answer_weights: tuple[float, float, float]
    cuts: tuple[float, float]

    def p(self, x: Sequence[float]) -> float:
        return gate_model.probability(x, self.weights, self.bias, self.center, self.scale)

    def refuses(self, x: Sequence[float]) -> bool:
        return gate_model.refuses(x, self.refuse_margin, self.rescue_cosine, self.unseen_limit)

    def verdict(self, x: Sequence[float]) -> str:
        if self.refuses(x):
            return "refuse"
        return "pass" if self.p(x) >= self.pass_from else "unsure"

    def answer_p(self, x: Sequence[float], quote_coverage: float) -> float:
        return gate_model.answer_probability(self.p(x), quote_coverage, self.answer_weights)


SHIPPED = GateFit(
    gate_model.CENTER,
    gate_model.SCALE,
    gate_model.REFUSE_MARGIN,
    gate_model.RESCUE_COSINE,
    gate_model.UNSEEN_LIMIT,
    gate_model.WEIGHTS,
    gate_model.BIAS,
    gate_model.PASS_FROM,
    gate_model.ANSWER_WEIGHTS,
    gate_model.CONFIDENCE_CUTS,
)


def logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = L2) -> np.ndarray:
    """Weighted L2-regularised logistic regression by Newton's method; the last
    coefficient is the bias (not regularised)."""
    design = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(design.shape[1])
    penalty = np.eye(design.shape[1]) * l2
    penalty[-1, -1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(design @ beta, -50, 50)))
        gradient = design.T @ (w * (p - y)) + penalty @ beta
        hessian = design.T @ (design * (w * p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian + 1e-9 * np.eye(len(beta)), gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def fit(examples: Sequence[Example]) -> GateFit:
    x = np.array([e.x for e in examples], dtype=np.float64)
    center, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    answerable = np.array([e.label == 1 for e in examples])
    answer = _coefficients((x - center) / scale, answerable, USED)
    asked = [e for e in examples if e.kind != "bank"]
    margin, rescue, limit = _refusal_rule(asked)
    partial = GateFit(
        _rounded(center),
        _rounded(scale),
        margin,
        rescue,
        limit,
        _rounded(answer[:-1]),
        round(float(answer[-1]), 5),
        0.5,
        gate_model.ANSWER_WEIGHTS,
        gate_model.CONFIDENCE_CUTS,
    )
    through = [e for e in asked if not partial.refuses(e.x)]
    p = {id(e): partial.p(e.x) for e in through}
    passing = _middle_of_best(THRESHOLDS, lambda t: _pass_cost(through, p, t))
    return _fit_confidence(_replace(partial, pass_from=passing), asked)


def _refusal_rule(asked: Sequence[Example]) -> tuple[float, float, float]:
    """(margin, rescue cosine, unseen limit): the margin that refuses every off-topic
    question and the fewest answerable ones; the cosine just above every off-topic
    question's (a paraphrase below the margin but closer than any off-topic question is
    let through); then the vocabulary limit with the fewest errors at that margin."""
    off = [e for e in asked if e.kind == "off_topic"]
    ans = [e for e in asked if e.label == 1]

    def cost(m: float, c: float, u: float) -> float:
        passed = sum(not gate_model.refuses(e.x, m, c, u) for e in off)
        refused = sum(gate_model.refuses(e.x, m, c, u) for e in ans)
        return 10 * passed + refused

    margin = _middle_of_best(MARGINS, lambda m: cost(m, 2.0, 2.0))
    cosine = FEATURE_INDEX["cosine"]
    rescue = round(max((e.x[cosine] for e in off), default=0.5) + RESCUE_GAP, 3)
    limit = _middle_of_best(LIMITS, lambda u: cost(margin, rescue, u))
    return margin, rescue, limit


def _coefficients(z: np.ndarray, positive: np.ndarray, used_names: Sequence[str]) -> np.ndarray:
    """A classifier's weights over every feature (0 for the unused ones) and its bias."""
    y = positive.astype(np.float64)
    used = np.array([name in used_names for name in gate_model.FEATURES])
    positives, negatives = max(1.0, y.sum()), max(1.0, len(y) - y.sum())
    weights = np.where(y == 1, len(y) / (2 * positives), len(y) / (2 * negatives))
    beta = logistic(z[:, used], y, weights)
    out = np.zeros(len(used) + 1)
    out[:-1][used] = beta[:-1]
    out[-1] = beta[-1]
    return out


def _rounded(values: np.ndarray) -> tuple[float, ...]:
    return tuple(round(float(v), 5) for v in values)


def _pass_cost(through: Sequence[Example], p: dict[int, float], t: float) -> float:
    hard = sum(p[id(e)] >= t for e in through if e.kind == "hard_negative")
    unsure = sum(p[id(e)] < t for e in through if e.label == 1)
    return 2 * hard + unsure


def _fit_confidence(fitted: GateFit, asked: Sequence[Example]) -> GateFit:
    through = [
        e
        for e in asked
        if (e.label == 1 or e.kind == "hard_negative") and fitted.verdict(e.x) != "refuse"
    ]
    if len({e.right for e in through}) < 2:
        return fitted
    x = np.array([[gate_model.logit(fitted.p(e.x)), e.quote_coverage] for e in through])
    y = np.array([float(e.right) for e in through])
    beta = logistic(x, y, np.ones(len(y)), l2=0.1)
    weights = (round(float(beta[0]), 5), round(float(beta[1]), 5), round(float(beta[2]), 5))
    probe = _replace(fitted, answer_weights=weights)
    scored = [(probe.answer_p(e.x, e.quote_coverage), e) for e in through]
    high = _lowest_cut(lambda t: _precision(scored, t) >= HIGH_PRECISION)
    medium = _lowest_cut(lambda t: _hard_low(scored, t) >= HARD_LOW)
    return _replace(probe, cuts=(min(medium, high), high))


def _precision(scored: Sequence[tuple[float, Example]], t: float) -> float:
    above = [e.right for p, e in scored if p >= t]
    return sum(above) / len(above) if above else 1.0


def _hard_low(scored: Sequence[tuple[float, Example]], t: float) -> float:
    hard = [p < t for p, e in scored if e.kind == "hard_negative"]
    return sum(hard) / len(hard) if hard else 1.0


def _lowest_cut(ok: Callable[[float], bool]) -> float:
    return float(next((t for t in THRESHOLDS if ok(float(t))), THRESHOLDS[-1]))


def _replace(fitted: GateFit, **changes: object) -> GateFit:
    from dataclasses import replace

    return replace(fitted, **changes)  # type: ignore[arg-type]


def _middle_of_best(grid: np.ndarray, cost: Callable[[float], float]) -> float:
    """The middle of the widest run of consecutive grid values with the lowest cost."""
    low, high = _best_run(grid, cost)
    return round((low + high) / 2, 3)


def _best_run(grid: np.ndarray, cost: Callable[[float], float]) -> tuple[float, float]:
    """The ends of the widest run of consecutive grid values with the lowest cost."""
    costs = [cost(float(v)) for v in grid]
    best = min(costs)
    runs: list[list[float]] = []
    previous = False
    for value, c in zip(grid, costs, strict=True):
        if c == best:
            if previous:
                runs[-1].append(float(value))
            else:
                runs.append([float(value)])
        previous = c == best
    widest = max(runs, key=len)
    return widest[0], widest[-1]


def render_constants(fitted: GateFit) -> str:
    """The fit as the lines to paste into query/gate_model.py."""
    return "\n".join(
        [
            f"CENTER = {fitted.center}",
            f"SCALE = {fitted.scale}",
            f"REFUSE_MARGIN = {fitted.refuse_margin}",
            f"RESCUE_COSINE = {fitted.rescue_cosine}",
            f"UNSEEN_LIMIT = {fitted.unseen_limit}",
            f"WEIGHTS = {fitted.weights}",
            f"BIAS = {fitted.bias}",
            f"PASS_FROM = {fitted.pass_from}",
            f"ANSWER_WEIGHTS = {fitted.answer_weights}",
            f"CONFIDENCE_CUTS = {fitted.cuts}",
        ]
    )
