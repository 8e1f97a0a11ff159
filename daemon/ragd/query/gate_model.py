"""The gate's small model: several signals of one retrieval → how likely it supports an answer.

One support number cannot tell "the user paraphrased" from "the documents don't say it":
both score in the same band. So the gate reads several signals of the retrieval (gate.py
computes them from the candidates) and combines them with a logistic regression of a few
features — fitted leave-one-corpus-out by `make eval` (ragd/gatefit.py), coefficients
stored here:

* **margin** — the best candidate's support minus this index's null level (the 95th
  percentile of the off-subject bank's support, calibration.py): how far above "unrelated";
* **cosine** — the best window cosine of any candidate; for a question the refusal rule
  would refuse, the better of that and the best cosine of a leading candidate's block
  without its heading path (gate.judge, block_cosine.py);
* **coverage** — the IDF-weighted share of the question's terms the best chunk holds;
* **identifiers** — the share of the question's exact identifiers that chunk holds;
* **agreement** — the dense and the BM25 retriever both rank that chunk in their top 5;
* **standout** — how far the best support stands out from the candidates' (a
  query-performance predictor: a question the index can answer has one clear leader);
* **unseen** — the share of the question's term weight on words no chunk holds;
* **type missing** — the question asks for a value (answer_type.py) and none of the best
  candidates holds one near its key terms;
* **references** — the share of the identifiers the question names as references (a
  release, a constant, a call: not a plain name or an option it may have made up) that
  the best chunk holds (read by the refusal rule only);
* **names_unseen** — 1 when the question writes a name no chunk holds ("Rome", "YAML":
  question.names_written), else 0 (read by the refusal rule and the label only);
* **topicality** — the mean cosine of the dense retriever's candidates minus the same
  measure's 95th percentile over the off-subject bank on this index (calibration.py): how
  much more the index's nearest passages, together, are about the question than they are
  about questions on other subjects.

Three outcomes. A simple rule refuses locally what is clearly unsupported: support below
the index's floor (learned on this index from the off-subject bank) unless rescued — a
passage close in meaning (RESCUE_COSINE) to a question whose words the index knows
(RESCUE_UNSEEN) or whose nearest passages are RESCUE_CLOSE_TOPICAL more about it than
about the bank's questions, or nearest passages that are, together, RESCUE_TOPICAL more
about the question than about the bank's questions (a paraphrase in words the index lacks, or a
made-up example identifier in a question on the documents' subject) — or most of the
question's weight on words no chunk holds (UNSEEN_LIMIT): every off-topic question
measured, and a question naming an identifier no chunk holds, off the documents' subject
(its support is 0).
A logistic regression gives p, the chance the passages answer it (answerable against
hard-negative and off-topic questions): from PASS_FROM the gate passes (clearly
supported); below it the retrieval cannot tell a paraphrase from an absent answer, and the
question is **not** refused — a keyless answer quotes the passages and says the documents
may not answer it, a model reads them (its prompt requires the refusal sentence when they
do not answer).

The same fit gives the answer's confidence. `answer_probability` combines p with how much
of the question the first quoted passage covers, how close in meaning the passages' closest
quotable unit comes to the question (a passage on the question's subject that lacks what
it asks has no unit that says it: the input that tells right answers from passed hard
negatives best, held out), how well the units cover the question's least-covered content
word piece by piece (soft_coverage.py: a word the passages say in other words is covered,
a concept they lack is not), and three signals that tell a right answer
from a wrong one across corpora (ANSWER_FEATURES: how far the best passage stands out
from the other candidates, how much of the question it holds, and the retrieval's
topicality, which the fit weighs against an answer: a question whose nearest passages are
all about it, none standing out, is broad or in the documents' domain without an answer
there): the chance the keyless
answer is right, shown as `probability`. From MEDIUM_FROM the label is `medium`. `high` is
not a higher cut on that chance — held out, no cut on it is right 90 % of the time — but
a *complete look-up*: the first quote and the best passage both hold every key term of the
question (COMPLETE) and the passage's support stands HIGH_MARGIN above the floor, fitted
only where the training look-ups show 90 % right. On the 43 corpora none do (held out, the
best such line is right 41 of 45 but under 90 % on three corpora, docs/calibration.md):
HIGH_MARGIN is never, and a keyless answer is `medium` at most.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ragd.query.types import Confidence

FEATURES = (
    "margin",
    "cosine",
    "coverage",
    "identifiers",
    "agreement",
    "standout",
    "unseen",
    "type_missing",
    "topicality",
    "references",
    "names_unseen",
)
# Fitted by `make eval` on the real-document corpora (bench/crosseval.py prints them);
# features are standardised with CENTER/SCALE before the weights apply.
CENTER = (
    -0.01589,
    0.42534,
    0.44642,
    0.98911,
    0.3643,
    2.15491,
    0.35356,
    0.08372,
    0.08252,
    0.99283,
    0.16265,
)
SCALE = (
    0.18768,
    0.20485,
    0.22847,
    0.10288,
    0.48123,
    0.7424,
    0.3023,
    0.27696,
    0.17468,
    0.0835,
    0.36905,
)
# The refusal rule (clearly unsupported): support below the index's floor unless some
# passage is as close in meaning as RESCUE_COSINE (a paraphrase shares few words but keeps
# the meaning) and holds the identifiers the question names, while less than
# RESCUE_UNSEEN of the question's weight is on words the index does not hold (a paraphrase
# changes the words for other words of the same subject; an off-topic question close to
# some passage in meaning, "Which language is spoken in Brazil?" beside a locale example,
# names things the index never mentions), or whose nearest passages stand RESCUE_TOPICAL
# above the bank's topicality on this index (a question on the documents' subject in words
# they do not use: "I left my rucksack on the ferry" beside the lost-property page); or
# UNSEEN_LIMIT of its weight on unseen words.
RESCUE_COSINE = 0.44
RESCUE_UNSEEN = 0.55
RESCUE_TOPICAL = 0.09
# A close passage also rescues a question with RESCUE_UNSEEN or more of its weight on words
# the index lacks when its nearest passages stand RESCUE_CLOSE_TOPICAL above the bank's
# topicality: two weaker signs of the documents' subject together (1.0: never).
RESCUE_CLOSE_TOPICAL = 0.05
UNSEEN_LIMIT = 1.01
# Do the retrieved passages answer it? (p; "pass" from PASS_FROM, else "unsure")
WEIGHTS = (3.32053, 0.0, -1.81556, 0.0, 0.0, 0.0, -1.79711, -0.58011, 0.0, 0.0, 0.0)
BIAS = -1.35561
PASS_FROM = 0.6
# answer_probability: logit(p), the first quote's key-term coverage, the cosine of the
# quotable unit (sentence, list item, row, code block) closest in meaning to the question,
# the units' soft coverage of the question (soft_coverage.py), then ANSWER_FEATURES of
# the retrieval, then the bias. SOFT_MEAN: the soft coverage's mean over the fit's
# answers, standing in where none was measured (an embedder without pieces).
ANSWER_FEATURES = ("standout", "coverage", "topicality")
ANSWER_WEIGHTS = (0.32768, 0.40611, 4.00874, 1.50004, 0.31134, -0.6037, -3.7628, -3.37072)
SOFT_MEAN = 0.48103
# The label: `medium` from MEDIUM_FROM (answer_probability); `high` for a complete look-up
# (first quote and best passage hold COMPLETE of the question's key terms, not fitted: "all
# of them") whose support is HIGH_MARGIN over the floor (fitted; 1.0 means never: no
# support stands that far above a floor, as when no margin keeps complete look-ups right).
MEDIUM_FROM = 0.475
HIGH_MARGIN = 1.0
COMPLETE = 0.99


def refuses(
    x: Sequence[float],
    rescue: float = RESCUE_COSINE,
    rescue_unseen: float = RESCUE_UNSEEN,
    limit: float = UNSEEN_LIMIT,
    rescue_topical: float = RESCUE_TOPICAL,
    close_topical: float = RESCUE_CLOSE_TOPICAL,
) -> bool:
    """The refusal rule on a retrieval's features."""
    f = dict(zip(FEATURES, x, strict=True))
    # Nearest passages that are, together, about the question rescue a missing plain name
    # or option still: users make up examples ("words_like_this", a `node_modules` folder,
    # their own program's `--count`) in questions squarely on the documents' subject. A
    # missing reference — a release, a constant, a call (gate.references) — is never
    # rescued: it names a thing the documents do not have.
    rescued = _close_passage(f, rescue, rescue_unseen, close_topical) or (
        f["references"] >= 1.0 and f["topicality"] >= rescue_topical
    )
    return f["unseen"] >= limit or (f["margin"] < 0.0 and not rescued)


def _close_passage(
    f: Mapping[str, float],
    rescue: float,
    rescue_unseen: float,
    close_topical: float = RESCUE_CLOSE_TOPICAL,
) -> bool:
    """The rescue by one passage close in meaning to a question whose words the index
    knows, or whose nearest passages are, together, `close_topical` more about it than
    about the bank's questions (a paraphrase in words the documents do not use: "a
    passenger collapses halfway across" beside the medical-emergency procedure). A named
    identifier no passage holds, or a name the question writes that no chunk holds ("who
    was the first emperor of Rome?" beside a passage on a game's emperors), is not rescued
    this way: that passage is about another thing."""
    known = f["unseen"] < rescue_unseen or f["topicality"] >= close_topical
    return _names_held(f) and f["cosine"] >= rescue and known


def _names_held(f: Mapping[str, float]) -> bool:
    """Every identifier the question names is in that chunk, and every name it writes in
    some chunk of the index."""
    return f["identifiers"] >= 1.0 and f["names_unseen"] < 1.0


def rescued_by(x: Sequence[float]) -> str:
    """What lets a question under the floor through, in words ("" when it is over the
    floor or refused): the gate's line said "below the floor …; pass" and not why."""
    if refuses(x):
        return ""
    f = dict(zip(FEATURES, x, strict=True))
    if f["margin"] >= 0.0:
        return ""
    if _close_passage(f, RESCUE_COSINE, RESCUE_UNSEEN):
        close = f"a passage close in meaning (cosine {f['cosine']:.2f}, from {RESCUE_COSINE:.2f})"
        if f["unseen"] < RESCUE_UNSEEN:
            return close
        return f"{close} and its nearest passages about it (topicality {f['topicality']:.2f})"
    return (
        f"its nearest passages are, together, about it (topicality {f['topicality']:.2f}, "
        f"from {RESCUE_TOPICAL:.3f})"
    )


def closer_could_rescue(
    x: Sequence[float],
    rescue_unseen: float = RESCUE_UNSEEN,
    limit: float = UNSEEN_LIMIT,
    close_topical: float = RESCUE_CLOSE_TOPICAL,
) -> bool:
    """Could a closer passage (a higher cosine) lift `refuses` on these features? Not when
    a named identifier is missing or too much of the question is unseen: the gate's
    second look (block_cosine.py, an embedding per leading block) is then not taken."""
    f = dict(zip(FEATURES, x, strict=True))
    known = f["unseen"] < rescue_unseen or f["topicality"] >= close_topical
    return _names_held(f) and f["unseen"] < limit and known


def closer_could_rescue_under_any_rule(x: Sequence[float]) -> bool:
    """Could a closer passage lift `refuses` under *some* rescue constants? Under the floor
    with every named identifier held. `make eval` takes the second look for all of these,
    whatever the constants in force, so a refit scores each candidate rule on the cosine
    the daemon would read under it (a rule only ever reads the cosine here)."""
    f = dict(zip(FEATURES, x, strict=True))
    return f["margin"] < 0.0 and _names_held(f)


def features(signals: Mapping[str, float], null: float, topical_null: float) -> list[float]:
    """The model's inputs from a retrieval's raw signals and the index's null levels (the
    floor, and the bank's topicality: calibration.Floor)."""
    raw = dict(signals)
    # Measured before `references` was (kept measurements): every identifier counted as
    # one, as the rule then read them.
    raw.setdefault("references", raw["identifiers"])
    raw["margin"] = raw["support"] - null
    raw["topicality"] = raw.get("topical", 0.0) - topical_null
    raw["names_unseen"] = float(names_unseen(raw))  # a flag; 0 if measured before it was
    return [float(raw[name]) for name in FEATURES]


def probability(
    x: Sequence[float],
    weights: Sequence[float] = WEIGHTS,
    bias: float = BIAS,
    center: Sequence[float] = CENTER,
    scale: Sequence[float] = SCALE,
) -> float:
    z = bias + sum(w * (v - c) / s for w, v, c, s in zip(weights, x, center, scale, strict=True))
    return _sigmoid(z)


def answer_probability(
    gate_p: float,
    quote_coverage: float,
    unit_cosine: float,
    signals: Mapping[str, float] | None = None,
    weights: Sequence[float] = ANSWER_WEIGHTS,
    soft: float | None = None,
) -> float:
    """The chance a keyless answer holds what was asked, from the gate's p, how much of
    the question its first quote covers, the cosine of the quotable unit closest in
    meaning to the question, the units' soft coverage of the question (`soft`,
    soft_coverage.py) and the retrieval's ANSWER_FEATURES (`signals`, gate.signals; the
    fit's mean stands in for a signal not given, SOFT_MEAN for `soft`)."""
    mean = dict(zip(FEATURES, CENTER, strict=True))
    values = [(signals or {}).get(name, mean[name]) for name in ANSWER_FEATURES]
    soft = SOFT_MEAN if soft is None else soft
    inputs = [logit(gate_p), quote_coverage, unit_cosine, soft, *values, 1.0]
    return _sigmoid(sum(w * v for w, v in zip(weights, inputs, strict=True)))


def confidence(
    p: float,
    quote_coverage: float,
    coverage: float,
    margin: float,
    medium_from: float = MEDIUM_FROM,
    high_margin: float = HIGH_MARGIN,
    names_unseen: bool = False,
) -> Confidence:
    """The label of a keyless answer: `p` its answer_probability, `quote_coverage` the
    first quote's share of the question's key terms, `coverage` the best passage's
    (gate signal), `margin` its support over the index's floor. `names_unseen`: the
    question names something no chunk holds (QuestionAnalysis.unseen_names): `low`
    whatever the chance, as the quotes cannot be about it."""
    if p < medium_from or names_unseen:
        return "low"
    if min(quote_coverage, coverage) >= COMPLETE and margin >= high_margin:
        return "high"
    return "medium"


def names_unseen(signals: Mapping[str, float]) -> bool:
    """Does the question name something no chunk of the index holds (gate.signals)?"""
    return signals.get("names_unseen", 0.0) > 0


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def logit(p: float) -> float:
    """log(p / (1 - p)), kept finite."""
    p = min(1 - 1e-6, max(1e-6, p))
    return math.log(p / (1 - p))
