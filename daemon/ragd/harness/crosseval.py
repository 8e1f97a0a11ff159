"""Cross-corpus evaluation of the gate and keyless answers, leave-one-corpus-out.

For each corpus (bench/corpora.py) the folder is indexed in-process (ragd.harness.localindex), the
off-subject bank is scored against it (the daemon's own floor measurement), and every
question is searched once and answered keyless once. What is kept per question is enough to
replay the gate and the confidence under any fit: the retrieval's signals (query/gate.py),
whether an expected passage was retrieved, the keyless answer and how much of the question
its first quote covers.

The gate model and the confidence (query/gate_model.py) are fitted by ragd/gatefit.py. A
corpus's row uses the fit on the *other* real-document corpora (leave-one-corpus-out); the
constants the daemon ships are fitted on all real-document corpora, so the sample corpus's
row is held out from them too.

`make eval` keeps each corpus's measurements (bench/corpora/measured.json): the guard in
`make test` measures one corpus afresh and fits on the others' kept measurements.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragd.harness import gatefit
from ragd.harness.evaluation import TARGETS, Question, load_questions
from ragd.harness.gatefit import BANK_ANY, BANK_NEGATIVES, Example, GateFit
from ragd.harness.localindex import LocalIndex
from ragd.query import calibration, gate_model
from ragd.query.calibration import DEFAULT_TOPICAL, MARGIN, QUANTILE
from ragd.query.neighbours import around_the_best
from ragd.query.offtopic_bank import OFFTOPIC_BANK

if TYPE_CHECKING:
    from ragd.index.embedder import Embedder, PieceFold, PieceVectors
    from ragd.query.extractive import ExtractiveAnswerer
    from ragd.query.types import Answer, RetrievedChunk

    AnswerFn = Callable[[str, Any], Answer]


@dataclass
class Asked:
    question: Question
    signals: dict[str, float]  # gate.signals of the retrieval
    hit: bool = False
    answer: str = ""  # the keyless answer (answerable and hard-negative questions)
    quote_coverage: float = 0.0
    unit_cosine: float = 0.0  # the keyless answerer's closest unit (Answer.unit_cosine)
    unit_coverage: float = 0.0  # the key terms that unit holds (Answer.unit_coverage)
    soft_coverage: float | None = None  # the units' soft coverage (Answer.soft_coverage)
    kept_share: float | None = None  # fact_share as kept in measured.json (no answer text)

    @property
    def kind(self) -> str:
        return "answerable" if self.question.answerable else self.question.kind

    def fact_share(self) -> float:
        """The share of the question's facts in the answer (a line break counts as a space)."""
        if self.kept_share is not None:
            return self.kept_share
        if not self.question.facts:
            return float("nan")
        text = _words(self.answer)
        return sum(_words(f) in text for f in self.question.facts) / len(self.question.facts)


def _words(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class CorpusRun:
    name: str
    chunks: int
    bank: list[float]  # every bank question's support
    bank_signals: list[dict[str, float]] = field(default_factory=list)  # the top ones'
    asked: list[Asked] = field(default_factory=list)
    bank_topical: list[float] = field(default_factory=list)  # every bank question's topical

    @property
    def null(self) -> float:
        return float(np.quantile(self.bank, QUANTILE))

    @property
    def floor(self) -> float:
        """The floor the daemon learns on this index (the model's margin is measured from
        it), rounded as the daemon rounds it (`calibration.learn`)."""
        return calibration.floor_value(self.null, MARGIN)

    @property
    def topical_null(self) -> float:
        """The bank's topicality the daemon learns on this index (calibration.Floor)."""
        if not self.bank_topical:
            return DEFAULT_TOPICAL
        return round(float(np.quantile(self.bank_topical, QUANTILE)), 4)

    def x(self, signals: dict[str, float]) -> list[float]:
        return gate_model.features(signals, self.floor, self.topical_null)

    def of_kind(self, *kinds: str) -> list[Asked]:
        return [a for a in self.asked if a.question.kind in kinds]

    def answerable(self) -> list[Asked]:
        return [a for a in self.asked if a.question.answerable]

    def examples(self) -> list[Example]:
        # The floor and the bank's topicality once, not a quantile of the bank per example
        # (thousands of bank questions: ≈ 6 CPU s a fit).
        floor, topical = self.floor, self.topical_null

        def x(signals: dict[str, float]) -> list[float]:
            return gate_model.features(signals, floor, topical)

        out = [
            Example(
                x(a.signals),
                int(a.question.answerable),
                a.kind,
                right=a.fact_share() == 1.0,
                quote_coverage=a.quote_coverage,
                unit_cosine=a.unit_cosine,
                soft_coverage=a.soft_coverage,
                names_unseen=gate_model.names_unseen(a.signals),
            )
            for a in self.asked
        ]
        out += [Example(x(s), 0, "bank") for s in self.bank_signals]
        # Every bank question, as the topicality rescue sees it (gatefit._topical_rescue).
        return out + [
            Example(
                x({"support": s, "topical": t} | _ALL_HELD | _NEUTRAL),
                0,
                BANK_ANY,
            )
            for s, t in zip(self.bank, self.bank_topical, strict=True)
        ]


# A bank question's other signals, for the topicality rescue's fit (they are not read).
_NEUTRAL = {"cosine": 0.0, "coverage": 0.0, "agreement": 0.0, "standout": 0.0, "unseen": 0.0}
_NEUTRAL |= {"type_missing": 0.0}
_ALL_HELD = {"identifiers": 1.0, "references": 1.0}  # a bank question names none


def measure(
    name: str,
    folder: Path,
    questions: Path,
    data_dir: Path,
    model: Embedder,
    bank_vectors: np.ndarray | None = None,
) -> CorpusRun:
    """Index `folder` in this process (kept in `data_dir`: a re-run only re-reads the
    files), score the bank against it and ask every question, keyless answers included."""
    if bank_vectors is None:
        bank_vectors = model.embed(list(OFFTOPIC_BANK), lane="index")
    answerer = keyless_answerer(model)
    index = LocalIndex(folder, data_dir, model)

    def answer(question: str, result: Any) -> Answer:
        # What the daemon hands its answerer (serve/ask.py): the question's vector and word
        # pieces from the retriever's pass, so the answer embeds its units only.
        return answerer.answer(
            question,
            around_the_best(result.chunks, result.candidates),
            analysis=result.analysis,
            query_vector=result.query_vector,
            query_pieces=result.query_pieces,
        )

    try:
        return run_corpus(name, index, load_questions(questions), bank_vectors, answer)
    finally:
        index.close()


def keyless_answerer(model: Embedder) -> ExtractiveAnswerer:
    """The keyless answerer as `make eval` (and the bench's keyless reports) run it: each
    distinct text embedded once, with its word pieces for the soft coverage."""
    from ragd.query.extractive import ExtractiveAnswerer

    once = EmbedOnce(model)
    return ExtractiveAnswerer(once.vectors, once.with_pieces)


# The word pieces EmbedOnce keeps, most recently shown first: ≈ 170 units of 256 pieces.
PIECE_BUDGET_BYTES = 64 * 2**20


class EmbedOnce:
    """The answerer's embedding seams, embedding each distinct text once: a corpus's
    questions retrieve the same chunks again and again, so the answerer sees the same
    units. Each text's vector and word pieces come from one pass (`fold_pieces`).

    What it keeps: every text's vector (1.5 KB; scores are read from it) and the word
    pieces of the texts shown most recently, up to PIECE_BUDGET_BYTES (a unit's pieces
    are 256 × 384 float32 at most, and a big corpus's held them all: ≈ 225 MB). A text
    whose pieces were let go is embedded again when it is shown again; its vector stays
    the one first made."""

    def __init__(self, model: Embedder, piece_budget: int = PIECE_BUDGET_BYTES) -> None:
        self._model = model
        self._vectors: dict[str, np.ndarray] = {}
        self._pieces: OrderedDict[str, PieceVectors] = OrderedDict()
        self._piece_bytes = 0
        self._budget = piece_budget

    @property
    def piece_bytes(self) -> int:
        """The bytes of word-piece vectors kept now."""
        return self._piece_bytes

    def vectors(self, texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            self._vectors.update(zip(new, self._model.embed(new, lane="query"), strict=True))
        return self._stacked(texts)

    def with_pieces(self, texts: list[str], fold: PieceFold) -> np.ndarray:
        """`fold_pieces` over `texts`, from what is kept where it can: the first text's
        pieces handed first, as the embedder does."""
        places: dict[str, list[int]] = {}
        for index, text in enumerate(texts):
            places.setdefault(text, []).append(index)
        # What is kept now (a learning below may let some of it go from the cache).
        kept = {t: self._pieces[t] for t in places if t in self._pieces and t in self._vectors}
        missing = [t for t in places if t not in kept]  # texts[0] first when it is here

        def hand(text: str, pieces: PieceVectors) -> None:
            for index in places[text]:
                fold(index, pieces)

        def learn(index: int, pieces: PieceVectors) -> None:
            hand(missing[index], pieces)
            self._keep(missing[index], pieces._replace(vectors=pieces.vectors.copy()))

        if missing and texts[0] in missing:
            self._learn(missing, learn)
        for text, pieces in kept.items():
            if text in self._pieces:
                self._pieces.move_to_end(text)
            hand(text, pieces)
        if missing and texts[0] not in missing:
            self._learn(missing, learn)
        return self._stacked(texts)

    def _learn(self, texts: list[str], fold: PieceFold) -> None:
        vectors = self._model.fold_pieces(texts, fold, lane="query")
        for text, vector in zip(texts, vectors, strict=True):
            self._vectors.setdefault(text, vector)

    def _keep(self, text: str, pieces: PieceVectors) -> None:
        replaced = self._pieces.pop(text, None)
        if replaced is not None:
            self._piece_bytes -= replaced.vectors.nbytes
        self._pieces[text] = pieces
        self._piece_bytes += pieces.vectors.nbytes
        while self._piece_bytes > self._budget and len(self._pieces) > 1:
            _, dropped = self._pieces.popitem(last=False)
            self._piece_bytes -= dropped.vectors.nbytes

    def _stacked(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._model.dimension), np.float32)
        return np.stack([self._vectors[t] for t in texts])


def run_corpus(
    name: str,
    index: LocalIndex,
    questions: Sequence[Question],
    bank_vectors: np.ndarray,
    answer: AnswerFn,
) -> CorpusRun:
    retriever = index.retriever
    # Every question's second look recorded, whatever the constants in force: a refit
    # replays the rescue under other constants on these signals (gate.judge).
    retriever.every_second_look = True
    # The bank as the daemon's floor measurement reads it, then that floor in force, as in
    # the daemon: the gate's verdict, and what it reads for a question it would refuse
    # (the leaders' blocks, gate.judge), depend on it.
    gates = calibration.bank_gates(retriever, bank_vectors, lambda: False)
    if gates is None:
        raise RuntimeError(f"{name}: the vector store could not be asked")
    supports = [g.support for g in gates]
    topicals = [g.signals["topical"] for g in gates]
    retriever.learned = calibration.learn(supports, index.chunk_count(), topicals=topicals)
    # The bank questions that score highest, asked as a user would ask them.
    ranked = sorted(range(len(gates)), key=lambda i: -gates[i].support)[:BANK_NEGATIVES]
    top = [retriever.search(OFFTOPIC_BANK[i], top_k=5, vector=bank_vectors[i]).gate for i in ranked]
    run = CorpusRun(name, index.chunk_count(), supports, [g.signals for g in top])
    run.bank_topical = topicals
    for q in questions:
        result = retriever.search(q.question, top_k=5)
        asked = Asked(q, result.gate.signals)
        if q.answerable or q.kind == "hard_negative":
            reply = answer(q.question, result)
            asked.answer, asked.quote_coverage = reply.text, reply.quote_coverage or 0.0
            asked.unit_cosine = reply.unit_cosine or 0.0
            asked.unit_coverage = reply.unit_coverage or 0.0
            asked.soft_coverage = reply.soft_coverage
        if q.answerable:
            asked.hit = q.found_in([_as_result(c) for c in result.chunks])
        run.asked.append(asked)
    return run


def _as_result(chunk: RetrievedChunk) -> dict[str, Any]:
    return {"source": chunk.source, "heading": chunk.heading, "text": chunk.text}


# -- fitting -----------------------------------------------------------------------------
def fit(runs: Sequence[CorpusRun]) -> GateFit:
    return gatefit.fit([e for run in runs for e in run.examples()])


OUR_OWN = "sample"  # the corpus this project wrote: reported, never fitted on


def training_runs(runs: Sequence[CorpusRun], held_out: str) -> list[CorpusRun]:
    """What a fit reported on `held_out` may see: the other real-document corpora."""
    return [r for r in runs if r.name not in (held_out, OUR_OWN)]


# -- the report --------------------------------------------------------------------------
@dataclass
class Row:
    name: str
    chunks: int
    floor: float
    off_topic: float  # share of off-topic questions refused
    false_refusals: float  # share of answerable questions refused
    hard_refused: float  # share of hard negatives refused
    hard_unsure: float  # share of hard negatives answered as "unsure"
    facts: float  # answerable: the keyless answer holds every fact
    half_facts: float  # answerable: the keyless answer holds at least half its facts
    hit_at_5: float
    high_right: float  # answers labelled high that hold every fact
    right_confident: float  # right answers labelled medium or high
    hard_low: float  # hard negatives the gate let through, labelled low
    notes: list[str] = field(default_factory=list)
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # POOLED: (yes, of)

    def misses(self) -> list[str]:
        checks = [
            ("off-topic refused", self.off_topic, TARGETS["off_topic"], 1),
            ("false refusals", self.false_refusals, TARGETS["false_refusals"], -1),
            ("keyless answers with half their facts", self.half_facts, TARGETS["half_facts"], 1),
            ("hit@5", self.hit_at_5, TARGETS["hit_at_5"], 1),
            ("high answers right", self.high_right, TARGETS["high_right"], 1),
            ("right answers medium/high", self.right_confident, TARGETS["right_confident"], 1),
            ("passed hard negatives low", self.hard_low, TARGETS["hard_low"], 1),
        ]
        # NaN (nothing to measure, e.g. no answer labelled high) compares False: no miss.
        return [
            f"{name} {value:.1%} {'<' if sign > 0 else '>'} {target:.0%}"
            for name, value, target, sign in checks
            if (value < target if sign > 0 else value > target)
        ]


def label_of(run: CorpusRun, fitted: GateFit, a: Asked) -> str:
    """The label `fitted` gives the keyless answer to `a`, as the daemon would."""
    return fitted.label(
        run.x(a.signals),
        a.quote_coverage,
        a.unit_cosine,
        a.soft_coverage,
        gate_model.names_unseen(a.signals),
    )


def row(run: CorpusRun, fitted: GateFit) -> Row:
    verdict = {id(a): fitted.verdict(run.x(a.signals)) for a in run.asked}
    off, ans, hard = run.of_kind("off_topic"), run.answerable(), run.of_kind("hard_negative")
    through = [a for a in ans + hard if verdict[id(a)] != "refuse"]
    label = {id(a): label_of(run, fitted, a) for a in through}
    with_facts = [a for a in ans if a.question.facts]
    answered = [a for a in with_facts if verdict[id(a)] != "refuse"]
    right = [a for a in answered if a.fact_share() == 1.0]
    notes = [f"off-topic passed: {a.question.question}" for a in off if verdict[id(a)] != "refuse"]
    notes += [f"false refusal: {a.question.question}" for a in ans if verdict[id(a)] == "refuse"]
    notes += [f"miss@5: {a.question.question}" for a in ans if not a.hit]
    notes += [
        f"keyless answer without half its facts: {a.question.question}"
        for a in answered
        if a.fact_share() < 0.5
    ]
    notes += [
        f"hard negative passed as {label[id(a)]}: {a.question.question}"
        for a in hard
        if verdict[id(a)] == "pass"
    ]
    # `high` promises a right answer: a hard negative labelled `high` is a wrong one.
    high = [a in right for a in answered + hard if label.get(id(a)) == "high"]
    counts = {
        "off-topic refused": [verdict[id(a)] == "refuse" for a in off],
        "false refusals": [verdict[id(a)] == "refuse" for a in ans],
        "high right": high,
        "right medium/high": [label[id(a)] != "low" for a in right],
        "passed hard negatives low": [label[id(a)] == "low" for a in hard if id(a) in label],
        # refused, or answered with "may not answer" (said exactly when the label is low)
        "hard negatives refused or warned": [label.get(id(a), "low") == "low" for a in hard],
        "keyless answers with half their facts": [
            a in answered and a.fact_share() >= 0.5 for a in with_facts
        ],
        "hit@5": [a.hit for a in ans],
    }
    return Row(
        name=run.name,
        chunks=run.chunks,
        floor=round(run.floor, 3),
        off_topic=_share([verdict[id(a)] == "refuse" for a in off]),
        false_refusals=_share([verdict[id(a)] == "refuse" for a in ans]),
        hard_refused=_share([verdict[id(a)] == "refuse" for a in hard]),
        hard_unsure=_share([verdict[id(a)] == "unsure" for a in hard]),
        facts=_share([a in right for a in with_facts]),
        half_facts=_share([a in answered and a.fact_share() >= 0.5 for a in with_facts]),
        hit_at_5=_share([a.hit for a in ans]),
        high_right=_share(high),
        right_confident=_share([label[id(a)] != "low" for a in right]),
        hard_low=_share([label[id(a)] == "low" for a in hard if id(a) in label]),
        notes=notes,
        counts={name: (sum(flags), len(flags)) for name, flags in counts.items()},
    )


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else float("nan")


def leave_one_out(runs: Sequence[CorpusRun]) -> list[Row]:
    return [row(run, fit(training_runs(runs, run.name))) for run in runs]


HEADER = (
    "corpus        chunks  off-topic  false ref  hard neg: refused unsure  facts  ≥half  "
    "hit@5  high right  right med/high  hard low"
)


def render(rows: Sequence[Row]) -> str:
    lines = [HEADER, "-" * len(HEADER)]
    for r in rows:
        lines.append(
            f"{r.name:<12}{r.chunks:>8}  {_pct(r.off_topic):>9}  {_pct(r.false_refusals, 1):>9}"
            f"  {_pct(r.hard_refused):>17} {_pct(r.hard_unsure):>6}  {_pct(r.facts):>5}  "
            f"{_pct(r.half_facts):>5}  {r.hit_at_5:>5.2f}  {_pct(r.high_right):>10}  "
            f"{_pct(r.right_confident):>14}  {_pct(r.hard_low):>8}"
        )
    lines.append(pooled(rows))
    lines.append(missed_by_target(rows))
    for r in rows:
        for note in r.notes:
            lines.append(f"  {r.name}: {note}")
    return "\n".join(lines)


POOLED = tuple(
    "off-topic refused, false refusals, high right, right medium/high, "
    "passed hard negatives low, hard negatives refused or warned, "
    "keyless answers with half their facts, hit@5".split(", ")
)


def pooled(rows: Sequence[Row]) -> str:
    """One line: the counts behind the gate and confidence columns, summed over `rows`."""
    parts = []
    for name in POOLED:
        yes = sum(r.counts.get(name, (0, 0))[0] for r in rows)
        of = sum(r.counts.get(name, (0, 0))[1] for r in rows)
        parts.append(f"{name} {yes}/{of}" + (f" ({yes / of:.1%})" if of else ""))
    return "pooled, held out: " + ", ".join(parts)


def missed_by_target(rows: Sequence[Row]) -> str:
    """One line: for each target, how many corpora miss it (issue #19 asks for every one)."""
    counts: dict[str, int] = {}
    for r in rows:
        for miss in r.misses():
            name = miss.rsplit(" ", 3)[0]  # "false refusals 10.0% > 3%" → "false refusals"
            counts[name] = counts.get(name, 0) + 1
    parts = [f"{name} {n}" for name, n in counts.items()]
    return f"corpora missing a target, of {len(rows)}: " + (", ".join(parts) or "none")


def _pct(value: float, decimals: int = 0) -> str:
    """A percentage, or "—" for NaN (nothing to measure)."""
    return "—" if value != value else f"{value:.{decimals}%}"


def tradeoff(runs: Sequence[CorpusRun], grid: Sequence[float]) -> list[tuple[float, ...]]:
    """Held out, pooled over corpora: (refusal threshold, false refusals, hard negatives
    not refused, off-topic not refused) as the threshold moves, each corpus scored by
    the gate model fitted without it."""
    scored: list[tuple[str, float]] = []
    for run in runs:
        fitted = fit(training_runs(runs, run.name))
        scored += [
            (
                a.question.kind if not a.question.answerable else "answerable",
                fitted.p(run.x(a.signals)),
            )
            for a in run.asked
        ]
    out = []
    for t in grid:
        shares = [
            _share([(p < t) == (kind == "answerable") for k, p in scored if k == kind])
            for kind in ("answerable", "hard_negative", "off_topic")
        ]
        out.append((t, *shares))
    return out


def topical_tradeoff(runs: Sequence[CorpusRun], grid: Sequence[float]) -> list[tuple[float, ...]]:
    """Held out, pooled: (RESCUE_TOPICAL, false refusals, hard negatives not refused,
    off-topic not refused, bank questions not refused on any index) as the topicality
    rescue's line moves, each corpus with the rest of the fit made without it."""
    from dataclasses import replace

    folds = {run.name: fit(training_runs(runs, run.name)) for run in runs}
    out: list[tuple[float, ...]] = []
    for t in grid:
        refused: dict[str, list[bool]] = {"answerable": [], "hard_negative": [], "off_topic": []}
        bank = 0
        for run in runs:
            fitted = replace(folds[run.name], rescue_topical=t)
            for a in run.asked:
                refused.setdefault(a.kind, []).append(fitted.refuses(run.x(a.signals)))
            bank += sum(not fitted.refuses(e.x) for e in run.examples() if e.kind == BANK_ANY)
        out.append(
            (
                t,
                _share(refused["answerable"]),
                1 - _share(refused["hard_negative"]),
                1 - _share(refused["off_topic"]),
                bank,
            )
        )
    return out


# -- measurements kept between runs ------------------------------------------------------
def to_json(run: CorpusRun) -> dict[str, Any]:
    """What fitting needs of a run (answers themselves and hits are left out)."""
    return {
        "chunks": run.chunks,
        "bank": [round(s, 6) for s in run.bank],
        "bank_signals": run.bank_signals,
        "bank_topical": [round(t, 6) for t in run.bank_topical],
        "asked": [
            {
                "question": a.question.question,
                "answerable": a.question.answerable,
                "kind": a.question.kind,
                "signals": a.signals,
                "facts": len(a.question.facts),
                "fact_share": None if a.fact_share() != a.fact_share() else a.fact_share(),
                "quote_coverage": a.quote_coverage,
                "unit_cosine": a.unit_cosine,
                "unit_coverage": a.unit_coverage,
                "soft_coverage": a.soft_coverage,
                "hit": a.hit,
            }
            for a in run.asked
        ],
    }


def from_json(name: str, data: dict[str, Any]) -> CorpusRun:
    run = CorpusRun(name, int(data["chunks"]), [float(s) for s in data["bank"]])
    run.bank_signals = [dict(s) for s in data["bank_signals"]]
    run.bank_topical = [float(t) for t in data.get("bank_topical", [])]
    for a in data["asked"]:
        # Stand-in facts: only their number matters once the share is kept.
        facts = tuple(f"fact {i}" for i in range(int(a["facts"])))
        question = Question(str(a["question"]), bool(a["answerable"]), (), str(a["kind"]), facts)
        share = a["fact_share"]
        run.asked.append(
            Asked(
                question,
                dict(a["signals"]),
                hit=bool(a["hit"]),
                quote_coverage=float(a["quote_coverage"]),
                unit_cosine=float(a.get("unit_cosine", 0.0)),
                unit_coverage=float(a.get("unit_coverage", 0.0)),
                soft_coverage=_optional(a.get("soft_coverage")),
                kept_share=float("nan") if share is None else float(share),
            )
        )
    return run


def save_measurements(path: Path, runs: Sequence[CorpusRun]) -> None:
    """Replace these corpora's entries in the file, keeping the others'."""
    kept = json.loads(path.read_text()) if path.exists() else {}
    kept.update({run.name: to_json(run) for run in runs})
    write_measurements(path, kept)


def write_measurements(path: Path, kept: dict[str, Any]) -> None:
    """The kept measurements' file, one corpus a line, replaced whole."""
    lines = [f"{json.dumps(name)}: {json.dumps(kept[name])}" for name in sorted(kept)]
    # Written beside and renamed over: an interrupted `make eval` leaves the old file whole.
    partial = path.with_name(path.name + ".partial")
    partial.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # one corpus a line
    partial.replace(path)


def load_measurements(path: Path) -> dict[str, CorpusRun]:
    return {name: from_json(name, data) for name, data in json.loads(path.read_text()).items()}


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)
