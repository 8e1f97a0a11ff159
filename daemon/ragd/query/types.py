"""Values that flow along the read path (retrieval → gate → answer)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ragproto.protocol import citation

Mode = Literal["claude", "openai", "extractive", "refused"]
Confidence = Literal["high", "medium", "low"]


@dataclass(frozen=True)
class RetrievedChunk:
    """One chunk as the retrievers and the fusion saw it."""

    chunk_id: str
    source: str  # relative source label, never absolute (e.g. "handbook.md")
    heading: str  # the full heading path joined with " > "
    text: str
    support: float  # the statistic the gate decides on (higher = better supported)
    fused: float  # reciprocal-rank-fusion score that orders the list
    vector_rank: int | None  # 1-based rank in the dense retriever, None if absent
    bm25_rank: int | None  # 1-based rank in the lexical retriever, None if absent
    page: int | None = None  # PDF page (1-based) when known
    lines: tuple[int, int] | None = None  # the file's lines it spans (1-based), when known
    cells: tuple[int, int] | None = None  # the notebook cells it spans (1-based)
    slides: tuple[int, int] | None = None  # the slides of a deck it spans (1-based)
    rows: tuple[int, int] | None = None  # the rows of its sheet it spans (1-based)
    cosine: float = 0.0  # best window cosine (the semantic half of support)
    coverage: float = 0.0  # IDF-weighted share of question terms present (the lexical half)
    identifiers: float = 1.0  # share of the question's identifiers present (a factor)
    # the same share of the identifiers the question names as references (gate.references)
    references: float = 1.0
    # its place among its file's chunks (0-based, the manifest's ordinal), when known: the
    # keyless answer reads the chunks right before and after the best one (neighbours.py)
    ordinal: int | None = None

    @property
    def citation(self) -> str:
        return citation(self.source, self.heading)


@dataclass(frozen=True)
class GateDecision:
    passed: bool
    support: float  # the best support among the candidates
    floor: float
    floor_origin: str = "default"  # learned, configured, default or request
    floor_detail: str = ""  # what the floor came from, in one line
    unseen: float = 0.0  # share of the question's term weight on words no chunk holds
    asked: str | None = None  # kind of value the question asks for (answer-type check)
    reason: str = ""  # why it refused ("" when it passed)
    rescue: str = ""  # what let it through under the floor ("" when over it or refused)
    # "pass" (clearly supported), "unsure" (cannot tell paraphrase from absent: answered,
    # flagged) or "refuse" (clearly unsupported: no model call); see query/gate_model.py
    verdict: str = "pass"
    probability: float = 1.0  # the gate model's chance that the documents answer it
    margin: float = 0.0  # support over the index's own floor (the models' margin feature)
    signals: dict[str, float] = field(default_factory=dict)  # what it was computed from

    def as_json(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "support": self.support,
            "floor": self.floor,
            "floor_origin": self.floor_origin,
            "floor_detail": self.floor_detail,
            "unseen": self.unseen,
            "asked": self.asked,
            "reason": self.reason,
            "rescue": self.rescue,
            "verdict": self.verdict,
            "probability": self.probability,
            "signals": self.signals,
        }


@dataclass(frozen=True)
class Citation:
    source: str
    heading: str
    score: float  # from retrieval, never from the model


@dataclass
class Answer:
    text: str
    citations: list[Citation] = field(default_factory=list)
    confidence: Confidence = "low"
    refused: bool = False
    mode: Mode = "refused"
    warnings: list[str] = field(default_factory=list)  # shown on the client's stderr
    # The model's text stated a `Confidence:` line (cut from `text`, already streamed):
    # the client must not print another (confidence_line.py is the one parser).
    confidence_in_text: bool = False
    probability: float | None = None  # calibrated chance the answer is right (gate_model.py)
    quote_coverage: float | None = None  # keyless: share of the question the first quote holds
    unit_cosine: float | None = None  # keyless: cosine of the unit closest to the question
    # keyless: share of the question's key terms that closest unit holds (measured by
    # `make eval` for the confidence, docs/calibration.md; not yet read by the label)
    unit_coverage: float | None = None
    # keyless: the question's worst-covered content word piece, its best cosine to any
    # piece of the quotable units (query/soft_coverage.py; read by the confidence)
    soft_coverage: float | None = None


@dataclass(frozen=True)
class ChatTurn:
    """One answered turn of a chat, kept so a follow-up can be answered in context.

    `chunks` are the chunks that turn was answered from: the next request re-sends them
    (in that turn's own envelope) so every past answer stays next to its evidence.
    """

    question: str
    answer: str
    chunks: list[RetrievedChunk] = field(default_factory=list)
