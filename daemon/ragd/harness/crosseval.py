"""Cross-corpus evaluation of the gate, leave-one-corpus-out.

For each corpus (bench/corpora.py) the folder is indexed in-process (ragd.harness.localindex), the
off-subject bank is scored against it (the daemon's own floor measurement), and every
question is searched once. What is kept per question is enough to replay the gate at any
floor: the best support, the kind of value it asks for, and for each retrieved chunk its
support and whether it holds such a value near the question's key terms.

Two constants are fitted: the margin above the bank's 95th percentile and the vocabulary
check's limit. A corpus's row in the report uses the constants fitted on the *other*
corpora (leave-one-corpus-out); the ones the daemon ships are fitted on the real-document
corpora only, so the sample corpus's row is held out from them too.

`make eval` keeps each corpus's measurements (bench/corpora/measured.json; enough to fit,
not to report): the guard in `make test` measures one corpus afresh and fits on the
others' kept measurements, so its fit is held out without re-indexing every corpus.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragd.harness.evaluation import FACT_TARGET, TARGETS, Question, load_questions
from ragd.harness.localindex import LocalIndex
from ragd.query.answer_type import asked_type, holds_value, key_terms
from ragd.query.calibration import QUANTILE, bank_supports
from ragd.query.offtopic_bank import OFFTOPIC_BANK

if TYPE_CHECKING:
    from ragd.index.embedder import Embedder

MARGIN_GRID = np.round(np.arange(-0.10, 0.40, 0.001), 3)
LIMIT_GRID = np.round(np.arange(0.30, 1.011, 0.01), 2)


@dataclass
class Asked:
    question: Question
    support: float
    unseen: float  # share of the question's term weight on words no chunk holds
    asked: str | None
    chunk_evidence: list[tuple[float, bool]]  # (support, holds the asked value) per chunk
    hit: bool = False
    answer: str = ""

    def passes(self, floor: float, limit: float = 2.0, type_check: bool = True) -> bool:
        """The gate's decision at this floor and vocabulary limit (2: no vocabulary check)."""
        if self.support < floor or self.unseen >= limit:
            return False
        if not type_check or self.asked is None:
            return True
        return any(s >= floor and holds for s, holds in self.chunk_evidence)

    def has_facts(self) -> bool:
        """Every fact is in the answer (a line break counts as a space)."""
        text = _words(self.answer)
        return bool(self.question.facts) and all(_words(f) in text for f in self.question.facts)


def _words(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class CorpusRun:
    name: str
    chunks: int
    bank: list[float]
    asked: list[Asked] = field(default_factory=list)

    @property
    def null(self) -> float:
        return float(np.quantile(self.bank, QUANTILE))

    def of_kind(self, *kinds: str) -> list[Asked]:
        return [a for a in self.asked if a.question.kind in kinds]

    def answerable(self) -> list[Asked]:
        return [a for a in self.asked if a.question.answerable]


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
    from ragd.query.extractive import ExtractiveAnswerer

    if bank_vectors is None:
        bank_vectors = model.embed(list(OFFTOPIC_BANK), lane="index")
    answerer = ExtractiveAnswerer(EmbedOnce(lambda texts: model.embed(texts, lane="query")))
    index = LocalIndex(folder, data_dir, model)
    try:
        return run_corpus(
            name,
            index,
            load_questions(questions),
            bank_vectors,
            lambda q, chunks: answerer.answer(q, chunks).text,
        )
    finally:
        index.close()


class EmbedOnce:
    """An embedding function that embeds each distinct text once: a corpus's questions
    retrieve the same chunks again and again, so the answerer sees the same units."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray]) -> None:
        self._embed = embed
        self._known: dict[str, np.ndarray] = {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self._known]
        if new:
            self._known.update(zip(new, self._embed(new), strict=True))
        if not texts:
            return self._embed([])
        return np.stack([self._known[t] for t in texts])


def run_corpus(
    name: str,
    index: LocalIndex,
    questions: Sequence[Question],
    bank_vectors: np.ndarray,
    answer,  # type: ignore[no-untyped-def]  # (question, chunks) → answer text
) -> CorpusRun:
    retriever = index.retriever
    supports = bank_supports(retriever, bank_vectors, lambda: False) or []
    run = CorpusRun(name, index.chunk_count(), supports)
    analyze = retriever.support.lexical.analyze
    for q in questions:
        result = retriever.search(q.question, top_k=5, floor=0.0)
        kind = asked_type(q.question)
        weights, unseen = retriever.support.question_profile(q.question)
        terms = key_terms(weights, analyze)
        evidence = [
            (c.support, kind is not None and holds_value(kind, terms, c.heading, c.text, analyze))
            for c in result.chunks
        ]
        asked = Asked(q, result.gate.support, unseen, kind, evidence)
        if q.answerable:
            results = [
                {"source": c.source, "heading": c.heading, "text": c.text} for c in result.chunks
            ]
            asked.hit = q.found_in(results)
            asked.answer = answer(q.question, result.chunks)
        run.asked.append(asked)
    return run


# -- fitting -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Fit:
    margin: float  # over each index's bank quantile
    limit: float  # the vocabulary check's unseen share


def fit(runs: Sequence[CorpusRun]) -> Fit:
    """The margin, then the vocabulary limit, that make the fewest errors on these corpora.

    Margin errors: off-topic questions above the floor, answerable ones below it. Limit
    errors (at that margin): off-topic and hard negatives it lets through, and answerable
    questions it refuses, counted three times (a false refusal costs more).
    """
    margin = _middle_of_best(MARGIN_GRID, lambda m: sum(_margin_errors(r, m) for r in runs))
    limit = _middle_of_best(LIMIT_GRID, lambda t: sum(_limit_errors(r, margin, t) for r in runs))
    return Fit(margin, limit)


def _middle_of_best(grid: np.ndarray, cost) -> float:  # type: ignore[no-untyped-def]
    """The middle of the widest run of consecutive grid values with the lowest cost."""
    costs = [cost(float(v)) for v in grid]
    best = min(costs)
    runs: list[list[float]] = []
    previous_best = False
    for value, c in zip(grid, costs, strict=True):
        if c == best:
            if previous_best:
                runs[-1].append(float(value))
            else:
                runs.append([float(value)])
        previous_best = c == best
    widest = max(runs, key=len)
    return round((widest[0] + widest[-1]) / 2, 3)


def _margin_errors(run: CorpusRun, margin: float) -> int:
    floor = run.null + margin
    accepted = sum(a.support >= floor for a in run.of_kind("off_topic"))
    refused = sum(a.support < floor for a in run.answerable())
    return accepted + refused


def _limit_errors(run: CorpusRun, margin: float, limit: float) -> int:
    floor = run.null + margin
    wrong = run.of_kind("off_topic", "hard_negative")
    accepted = sum(a.passes(floor, limit, type_check=False) for a in wrong)
    refused = sum(
        a.support >= floor and not a.passes(floor, limit, type_check=False)
        for a in run.answerable()
    )
    return accepted + 3 * refused


# -- the report --------------------------------------------------------------------------
@dataclass
class Row:
    name: str
    chunks: int
    margin: float
    limit: float
    floor: float
    off_topic: float  # share of off-topic questions refused
    false_refusals: float  # share of answerable questions refused
    hard_negatives: float  # share of hard negatives refused
    facts: float  # share of answerable questions whose keyless answer holds every fact
    hit_at_5: float
    # The same with fewer checks, to show what each check adds: (floor only, + vocabulary)
    hard_by_check: tuple[float, float] = (0.0, 0.0)
    false_by_check: tuple[float, float] = (0.0, 0.0)
    notes: list[str] = field(default_factory=list)

    def misses(self) -> list[str]:
        out = []
        if self.off_topic < TARGETS["off_topic"]:
            out.append(f"off-topic refused {self.off_topic:.0%} < 100%")
        if self.false_refusals > TARGETS["false_refusals"]:
            out.append(f"false refusals {self.false_refusals:.1%} > 2%")
        if self.hard_negatives < TARGETS["hard_negatives"]:
            out.append(f"hard negatives refused {self.hard_negatives:.0%} < 40%")
        if self.hit_at_5 < TARGETS["hit_at_5"]:
            out.append(f"hit@5 {self.hit_at_5:.2f} < 0.90")
        if self.facts < FACT_TARGET:  # False for NaN: a corpus whose questions name no facts
            out.append(f"keyless fact presence {self.facts:.0%} < {FACT_TARGET:.0%}")
        return out


def row(run: CorpusRun, fitted: Fit) -> Row:
    floor, limit = run.null + fitted.margin, fitted.limit
    off, ans, hard = run.of_kind("off_topic"), run.answerable(), run.of_kind("hard_negative")

    def passes(a: Asked) -> bool:
        return a.passes(floor, limit)

    notes = [f"off-topic passed: {a.question.question}" for a in off if passes(a)]
    notes += [f"false refusal: {a.question.question}" for a in ans if not passes(a)]
    notes += [f"miss@5: {a.question.question}" for a in ans if not a.hit]
    notes += [f"hard negative passed: {a.question.question}" for a in hard if passes(a)]
    with_facts = [a for a in ans if a.question.facts]
    return Row(
        name=run.name,
        chunks=run.chunks,
        margin=fitted.margin,
        limit=limit,
        floor=round(floor, 3),
        off_topic=_share([not passes(a) for a in off]),
        false_refusals=_share([not passes(a) for a in ans]),
        hard_negatives=_share([not passes(a) for a in hard]),
        facts=_share([passes(a) and a.has_facts() for a in with_facts]),
        hit_at_5=_share([a.hit for a in ans]),
        hard_by_check=(
            _share([not a.passes(floor, type_check=False) for a in hard]),
            _share([not a.passes(floor, limit, type_check=False) for a in hard]),
        ),
        false_by_check=(
            _share([not a.passes(floor, type_check=False) for a in ans]),
            _share([not a.passes(floor, limit, type_check=False) for a in ans]),
        ),
        notes=notes,
    )


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else float("nan")


OUR_OWN = "sample"  # the corpus this project wrote: reported, never fitted on


def training_runs(runs: Sequence[CorpusRun], held_out: str) -> list[CorpusRun]:
    """What a fit reported on `held_out` may see: the other real-document corpora.

    The shipped constants are fitted on the real corpora only, so each row is fitted the
    same way minus its own corpus. Letting the sample corpus into the fit pulled the margin
    for the 997-chunk pydocs corpus down to +0.041 (its weakest answerable question sits
    only +0.082 over its bank quantile) and let an off-topic question through there.
    """
    return [r for r in runs if r.name not in (held_out, OUR_OWN)]


def leave_one_out(runs: Sequence[CorpusRun]) -> list[Row]:
    return [row(run, fit(training_runs(runs, run.name))) for run in runs]


HEADER = (
    "corpus        chunks  margin  limit  floor  off-topic  false ref  hard neg  "
    "facts  hit@5   hard neg / false ref by check: floor, +vocabulary, +answer type"
)


def render(rows: Sequence[Row]) -> str:
    lines = [HEADER, "-" * len(HEADER)]
    for r in rows:
        by_check = " / ".join(
            f"{h:.0%} {f:.0%}"
            for h, f in zip(
                (*r.hard_by_check, r.hard_negatives),
                (*r.false_by_check, r.false_refusals),
                strict=True,
            )
        )
        lines.append(
            f"{r.name:<12}{r.chunks:>8}  {r.margin:+.3f}  {r.limit:.2f}  {r.floor:.3f}  "
            f"{r.off_topic:>9.0%}  {r.false_refusals:>9.1%}  {r.hard_negatives:>8.0%}  "
            f"{_pct(r.facts):>5}  {r.hit_at_5:>5.2f}   {by_check}"
        )
    for r in rows:
        for note in r.notes:
            lines.append(f"  {r.name}: {note}")
    return "\n".join(lines)


def _pct(value: float) -> str:
    """A percentage, or "—" for NaN (a corpus whose questions name no facts)."""
    return "—" if value != value else f"{value:.0%}"


# -- measurements kept between runs ------------------------------------------------------
def to_json(run: CorpusRun) -> dict[str, Any]:
    """What fitting needs of a run (the answers and hits are left out)."""
    return {
        "chunks": run.chunks,
        "bank": [round(s, 6) for s in run.bank],
        "asked": [
            {
                "question": a.question.question,
                "answerable": a.question.answerable,
                "kind": a.question.kind,
                "support": round(a.support, 6),
                "unseen": round(a.unseen, 6),
                "asked": a.asked,
                "evidence": [[round(s, 6), holds] for s, holds in a.chunk_evidence],
            }
            for a in run.asked
        ],
    }


def from_json(name: str, data: dict[str, Any]) -> CorpusRun:
    run = CorpusRun(name, int(data["chunks"]), [float(s) for s in data["bank"]])
    for a in data["asked"]:
        question = Question(str(a["question"]), bool(a["answerable"]), (), str(a["kind"]))
        evidence = [(float(s), bool(holds)) for s, holds in a["evidence"]]
        run.asked.append(
            Asked(question, float(a["support"]), float(a["unseen"]), a["asked"], evidence)
        )
    return run


def save_measurements(path: Path, runs: Sequence[CorpusRun]) -> None:
    """Replace these corpora's entries in the file, keeping the others'."""
    kept = json.loads(path.read_text()) if path.exists() else {}
    kept.update({run.name: to_json(run) for run in runs})
    lines = [f"{json.dumps(name)}: {json.dumps(kept[name])}" for name in sorted(kept)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # one corpus a line


def load_measurements(path: Path) -> dict[str, CorpusRun]:
    return {name: from_json(name, data) for name, data in json.loads(path.read_text()).items()}
