"""The gate: does what the retriever found support an answer? Decided before any model call.

It judges every fused candidate the retriever returns (not the page of `top_k` the caller
asked for), so the decision and the support it shows are the same for `--top-k 1` and
`--top-k 50`. From one question analysis (question.py) and the candidates with their
support (support.py) it computes the retrieval's signals, and the two small models in
gate_model.py turn them into a verdict and the chance p that the documents answer it:

* **refuse** locally what the refusal rule finds clearly unsupported;
* **pass** from the answer model's p of `PASS_FROM` (clearly supported);
* in between — **unsure**: the retrieval cannot tell a paraphrase from an absent answer, so
  the question is answered, not refused, and the answer says the documents may not hold it.

A floor set by the user (`support_floor`, `--min-score`) keeps its plain meaning: support
below it refuses, whatever the model says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ragd.query import gate_model
from ragd.query.answer_type import holds_value
from ragd.query.calibration import Floor
from ragd.query.question import QuestionAnalysis, is_constant
from ragd.query.types import GateDecision, RetrievedChunk

Analyze = Callable[[str], list[str]]
# The best heading-free block cosine of some candidates (block_cosine.BlockCosines.best,
# the question's vector bound): read only when the refusal rule would otherwise refuse.
BlockCosine = Callable[[Sequence[RetrievedChunk]], float]
LEADERS = 5  # the best-supported candidates the answer-type and agreement signals read


def value_nearby(
    analysis: QuestionAnalysis, chunks: Sequence[RetrievedChunk], analyze: Analyze
) -> bool:
    """Does one of `chunks` hold the kind of value the question asks for near its key
    terms? (True when it asks for none.)"""
    if analysis.asked is None:
        return True
    terms = analysis.key_terms(analyze)
    return any(holds_value(analysis.asked, terms, c.heading, c.text, analyze) for c in chunks)


def references(analysis: QuestionAnalysis) -> frozenset[str]:
    """The identifiers the question names as references: one with a digit (a release, an
    error code, `ed448`), a constant (`PINT_REGISTRY`) or a name the question calls or
    sets (`regexp_replace()`, `strict_types = True`; not in a URL, whose `?page_size=2`
    sets nothing the user named). Such a name points at something the documents would
    have. What is left is a plain name (`node_modules`, `words_like_this`) or an option
    (`--count`; `--lzma3` too, a digit notwithstanding), which users make up in questions
    on the documents' subject: an example
    folder, or the flags of their own program when the documents are a library for
    writing command lines ("my CLI should take several files after --files, how?").
    The topicality rescue may pass over a missing plain name or option, never a missing
    reference (gate_model.refuses); a passage lacking the name still has support 0, so
    the answer is labelled `low` and says the documents may not answer it. The share of
    them a chunk holds is
    `RetrievedChunk.references`, found by the retriever where it finds every identifier
    (support.chunk_texts: the file's path and the root folder's name included)."""
    return frozenset(t for t in analysis.identifiers if _refers(t, analysis.text))


def _refers(token: str, question: str) -> bool:
    if token.startswith("-"):
        return False  # an option, maybe the user's own (above)
    if is_constant(token) or any(ch.isdigit() for ch in token):
        return True
    lowered, name = question.lower(), token.lower()
    urls = iter(_url_spans(lowered))
    url = next(urls, None)
    at = lowered.find(name)
    while at >= 0:  # each place it is written: called or set there?
        while url is not None and url[1] <= at:
            url = next(urls, None)
        # ...not inside a URL: "?page_size=2" in a link the user pasted sets nothing.
        in_url = url is not None and url[0] <= at
        # ...as itself: "get_x" inside "my_get_x()" is the end of another name.
        whole = at == 0 or not _word_char(lowered[at - 1])
        if whole and not in_url and _next_visible(lowered, at + len(name)) in ("(", "="):
            return True
        at = lowered.find(name, at + 1)
    return False


def _next_visible(text: str, at: int) -> str:
    """The first non-blank character from `at` on ("" at the end): `name  (` and `name =`
    call and set as `name(` does. The blanks skipped run to the next occurrence of the
    name at most (a name holds no blank), so the scans of one name stay linear."""
    while at < len(text) and text[at].isspace():
        at += 1
    return text[at : at + 1]


def _url_spans(text: str) -> list[tuple[int, int]]:
    """Where each URL of the question starts and ends: a `scheme://…` run of non-blank
    characters, the scheme a letter then letters, digits, `+`, `-` or `.` (RFC 3986).
    One pass: each search starts past the last URL, and a scheme is read back only to
    where the previous search stopped."""
    spans: list[tuple[int, int]] = []
    floor = 0  # nothing before this is read again
    sep = text.find("://")
    while sep != -1:
        start = sep
        while start > floor and (text[start - 1].isalnum() or text[start - 1] in "+-."):
            start -= 1
        while start < sep and not text[start].isalpha():
            start += 1  # a scheme opens with a letter
        if start == sep:
            floor = sep + 3
            sep = text.find("://", floor)
            continue
        end = sep + 3
        while end < len(text) and not text[end].isspace():
            end += 1
        spans.append((start, end))
        floor = end
        sep = text.find("://", end)
    return spans


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def signals(
    analysis: QuestionAnalysis, candidates: Sequence[RetrievedChunk], analyze: Analyze
) -> dict[str, float]:
    """The raw signals of one retrieval (gate_model.FEATURES, with `support` and `topical`
    in place of `margin` and `topicality`, which need the index's floor)."""
    if not candidates:
        return dict.fromkeys(gate_model.FEATURES, 0.0) | {
            "support": 0.0,
            "topical": 0.0,
            "unseen": round(analysis.unseen, 4),
            "type_missing": float(analysis.asked is not None),
            "names_unseen": float(len(analysis.unseen_names)),
        }
    leaders = sorted(candidates, key=lambda c: -c.support)[:LEADERS]
    # How close in meaning the index's nearest passages are, taken together: a question
    # about the documents' subject, however worded, has many; one about another subject
    # comes close to one passage at most (a query-performance predictor, read against the
    # same measure of the off-subject bank on this index: calibration.Floor.topical).
    dense = [c.cosine for c in candidates if c.vector_rank is not None]
    best = leaders[0]
    supports = np.array([c.support for c in candidates])
    spread = float(supports.std()) if len(supports) > 1 else 0.0
    standout = (best.support - float(supports.mean())) / (spread + 0.02)
    agree = (best.vector_rank or 99) <= LEADERS and (best.bm25_rank or 99) <= LEADERS
    out = {
        "support": best.support,
        "cosine": max(c.cosine for c in candidates),
        "coverage": best.coverage,
        "identifiers": best.identifiers,
        "references": best.references,
        "agreement": float(agree),
        "standout": min(6.0, max(0.0, standout)),
        "unseen": analysis.unseen,
        "type_missing": float(not value_nearby(analysis, leaders, analyze)),
        "topical": float(np.mean(dense)) if dense else 0.0,
        # Not a feature of p: a keyless answer to a question naming what no chunk holds is
        # labelled `low` whatever its chance (gate_model.confidence).
        "names_unseen": float(len(analysis.unseen_names)),
    }
    return {k: round(v, 4) for k, v in out.items()}


def judge(
    analysis: QuestionAnalysis,
    candidates: Sequence[RetrievedChunk],
    floor: Floor,
    analyze: Analyze,
    reference: Floor | None = None,
    block_cosine: BlockCosine | None = None,
    every_look: bool = False,
) -> GateDecision:
    """The verdict on these candidates. `reference`: the index's own floor when `floor`
    is a request's override (the model's margin is measured from the index's).
    `block_cosine`: a second look for the rescue, taken only when the rule would refuse
    and a closer passage could rescue the question; with `every_look` (`make eval`'s
    measurements), whenever a closer passage could rescue it under some rescue constants.
    The refusal is the same either way (a higher cosine only matters where the daemon
    takes the look); only the signals recorded differ."""
    found = signals(analysis, candidates, analyze)
    own = floor if reference is None else reference
    x = gate_model.features(found, own.value, own.topical)
    rule = floor.origin not in ("configured", "request")
    if every_look:
        looks = gate_model.closer_could_rescue_under_any_rule(x)
    else:
        looks = gate_model.refuses(x) and gate_model.closer_could_rescue(x)
    if block_cosine is not None and rule and candidates and looks:
        # A window's heading path dilutes a paraphrase's cosine; the rescue reads the
        # better of the window and the block alone (the support is unchanged).
        block = round(block_cosine(candidates), 4)
        found["block_cosine"] = block
        found["cosine"] = max(found["cosine"], block)
        x = gate_model.features(found, own.value, own.topical)
    # Read against this index's bank, as the confidence (answer_probability) reads it.
    found["topicality"] = round(x[gate_model.FEATURES.index("topicality")], 4)
    p = round(gate_model.probability(x), 4)
    refuse = gate_model.refuses(x) if rule else found["support"] < floor.value
    # Its signals read vacuously well (unseen 0, every identifier held) and its vector is
    # the unknown word piece's: closeness to a passage says nothing. Refused under any floor.
    refuse = refuse or analysis.looks_for_nothing or analysis.out_of_reach
    verdict = "refuse" if refuse else "pass" if p >= gate_model.PASS_FROM else "unsure"
    return GateDecision(
        passed=not refuse,
        support=found["support"],
        floor=floor.value,
        floor_origin=floor.origin,
        floor_detail=floor.detail,
        unseen=round(analysis.unseen, 4),
        asked=analysis.asked,
        reason=_reason(found, floor, analysis) if refuse else "",
        rescue=gate_model.rescued_by(x) if rule and not refuse else "",
        verdict=verdict,
        probability=p,
        margin=round(x[gate_model.FEATURES.index("margin")], 4),
        signals=found,
    )


NOTHING_TO_LOOK_FOR = "has no word to look for (only stop words, punctuation, symbols or emoji)"
OUT_OF_REACH = "has no word the index holds, and the encoder reads none of it"
UNJUDGED = (NOTHING_TO_LOOK_FOR, OUT_OF_REACH)  # refusals neither the floor nor p decided


def _reason(found: dict[str, float], floor: Floor, analysis: QuestionAnalysis) -> str:
    if analysis.looks_for_nothing:
        return NOTHING_TO_LOOK_FOR
    if analysis.out_of_reach:
        return OUT_OF_REACH
    if analysis.unseen >= gate_model.UNSEEN_LIMIT:
        return f"puts {analysis.unseen:.0%} of its weight on words no indexed chunk holds"
    if found["support"] < floor.value:
        return "below the floor"
    return "is not supported by the retrieved passages"
