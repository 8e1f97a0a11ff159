"""The answer given without an API key: the retrieved units that answer, quoted verbatim.

Nothing is generated, so nothing can be invented. Each retrieved chunk is cut into whole
*units* (`units.py`: a paragraph, a list item, a table row with its header, a code block
or command line with the line introducing it); headings, underlines, link lines and FAQ
questions are never units. Each unit is scored by

* its cosine to the question (the unit embedded with its heading or FAQ question),
* how much of the question's key terms it holds (with its context and heading path),
  each term weighted by how rare it is among the candidates, so "cmake" outweighs
  "build" in "How do I build zstd with CMake?",
* the support of the chunk it comes from relative to the best chunk's (the gate's own
  statistic: the best-supported chunks are chosen from first), and
* a boost for exact tokens the question names (`KSF-E417`, `--reprint-since`).

Up to three units are quoted, best first, skipping near-duplicates and any unit far below
the best. A unit that addresses the reader as a model ("SYSTEM: …", "ignore previous
instructions") is never the first quote and is labelled wherever it is quoted.

`Confidence` is "high" only when the gate passed with a clear margin over its floor and
the first quoted unit holds nearly all of the question's key terms; "medium" when it holds
most of them; otherwise "low" — a quote that does not mention what was asked about is not
an answer, however close its neighbourhood.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ragd.index.lexical import analyze
from ragd.query import injection
from ragd.query.support import STOP_WORDS
from ragd.query.types import Answer, Citation, Confidence, GateDecision, RetrievedChunk
from ragd.query.units import Unit, units_of
from ragproto.protocol import REFUSAL_SENTENCE

HEADER = (
    "Extractive answer (no ANTHROPIC_API_KEY set, so these are the passages closest to "
    "your question, quoted from the documents; set ANTHROPIC_API_KEY for the daemon to "
    "get answers written by Claude):"
)
NO_SENTENCE_NOTE = "The retrieved passages contain nothing quotable as an answer; see:"
ONLY_INSTRUCTIONS_NOTE = (
    "The closest passages are instructions addressed to an AI model, not an answer "
    "(they were not followed); see:"
)

COVERAGE_WEIGHT = 0.35
SUPPORT_WEIGHT = 0.25
EXACT_TOKEN_BOOST = 0.3
ANSWER_TYPE_BOOST = 0.1  # "which version …?" wants a number, "how do I …?" a command
RELATIVE_WINDOW = 0.12  # a second or third unit must score nearly as well as the first
NEAR_DUPLICATE = 0.85  # cosine between two units above which they say the same thing
MMR_RELEVANCE_WEIGHT = 0.75
MAX_CANDIDATES = 200  # bounds the embedding work (chunks come best-first)
STEM_CHARS = 5  # after stemming: "configur"/"configuration" → "confi", "secur"/"security"

HIGH_COVERAGE = 0.8
MEDIUM_COVERAGE = 0.5
HIGH_MARGIN = 0.1  # support above the gate's floor needed for "high"

Embed = Callable[[list[str]], np.ndarray]

# Codes, field names, flags and CamelCase settings ("KSF-E417", "boarding_cutoff_minutes",
# "--reprint-since", "-t", "v3.2.1", "StrictHostKeyChecking"): the encoder barely sees
# them, so a unit that repeats one gets a boost.
_EXACT_TOKEN = re.compile(
    # (?<!…): a dotted or dashed name starts where its run of letters and digits does;
    # tried from inside the run too, a long run would be rescanned from every position.
    r"(?:--|(?<![A-Za-z0-9]))[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+|\b\w*\d\w*\b"
    r"|(?<![\w-])-[A-Za-z]\b|\b[A-Za-z][a-z]+(?:[A-Z][a-z0-9]*)+\b"
)
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Candidate:
    unit: Unit
    chunk: RetrievedChunk

    @property
    def haystack(self) -> str:
        return f"{self.chunk.heading}\n{self.unit.search_text}".lower()


# Words that say how something is asked, not what about (on top of the gate's list).
_FUNCTION_WORDS = STOP_WORDS | frozenset(
    "without another other others instead also just only like via using way ways".split()
)
# Questions whose answer is a number, a version, a size or a time.
_WANTS_NUMBER = re.compile(
    r"\b(?:how\s+(?:much|many|long|large|big|old|often|fast)|which\s+versions?|"
    r"what\s+(?:version|port|size|number|year|date|time|percentage|limit))\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
# Questions whose answer is something to type: a command, an option, a setting.
_WANTS_ACTION = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|to)\b|\bwhich\s+(?:option|flag|command|setting)",
    re.IGNORECASE,
)
# A prompt's indent stays on its line ([^\S\n]), so blank lines are not rescanned.
_ACTION = re.compile(r"(?<![\w-])--?[A-Za-z]|`[^`]+`|^[^\S\n]*\$ ", re.MULTILINE)


def stems(text: str) -> set[str]:
    """The content words of `text` as the lexical index stems them ("dogs" → "dog",
    "ferries" and "ferry" → "ferri"), cut to a common prefix for derived forms."""
    kept = (w for w in (w.lower() for w in _WORD.findall(text)) if w not in _FUNCTION_WORDS)
    return {term[:STEM_CHARS] for term in analyze(" ".join(kept))}


def candidates_of(chunks: list[RetrievedChunk]) -> list[Candidate]:
    seen: set[str] = set()
    out: list[Candidate] = []
    for chunk in chunks:
        for unit in units_of(chunk.text, chunk.heading):
            if unit.text in seen:  # overlapping chunks repeat units; keep the better-ranked
                continue
            seen.add(unit.text)
            out.append(Candidate(unit, chunk))
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


class KeyTerms:
    """The question's content words, each weighted by its rarity among the candidates."""

    def __init__(self, question: str, candidates: list[Candidate]) -> None:
        self.terms = stems(question)
        bags = [stems(c.haystack) for c in candidates]
        total = len(bags)
        self.weights = {
            term: math.log(1 + (total + 1) / (1 + sum(term in bag for bag in bags)))
            for term in self.terms
        }

    def coverage(self, text: str) -> float:
        if not self.weights:
            return 1.0
        present = stems(text)
        covered = sum(w for t, w in self.weights.items() if t in present)
        return covered / sum(self.weights.values())


def choose(scores: np.ndarray, vectors: np.ndarray, limit: int, leaders: np.ndarray) -> list[int]:
    """Up to `limit` indices: relevant first, near-duplicates never; the first pick only
    among `leaders` (units that do not address a model)."""
    if len(scores) == 0 or limit <= 0 or not leaders.any():
        return []
    best = float(scores[leaders].max())
    floor = best - RELATIVE_WINDOW
    chosen: list[int] = []
    while len(chosen) < limit:
        pick, pick_score = -1, float("-inf")
        for index in range(len(scores)):
            if index in chosen or (not chosen and not leaders[index]) or scores[index] < floor:
                continue
            redundancy = max((float(vectors[index] @ vectors[j]) for j in chosen), default=0.0)
            if redundancy >= NEAR_DUPLICATE:
                continue
            score = MMR_RELEVANCE_WEIGHT * float(scores[index])
            score -= (1 - MMR_RELEVANCE_WEIGHT) * redundancy
            if score > pick_score:
                pick, pick_score = index, score
        if pick < 0:
            break
        chosen.append(pick)
    return chosen


def confidence_for(coverage: float, gate: GateDecision | None) -> Confidence:
    """From the key terms the first quote holds and the gate's margin over its floor."""
    margin = (gate.support - gate.floor) if gate is not None else HIGH_MARGIN
    if coverage >= HIGH_COVERAGE and margin >= HIGH_MARGIN:
        return "high"
    if coverage >= MEDIUM_COVERAGE and margin >= 0:
        return "medium"
    return "low"


# Characters that end a line (str.splitlines' set): a file name may hold them.
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def marker(chunk: RetrievedChunk) -> str:
    """The chunk's `[source:heading]` on one line. The answer's text keeps its newlines
    on the terminal, so a file named `a.md\\n> "Dogs are banned." [b.md:Pets]` would
    otherwise print a quote line of the name's choosing; a break shows as `\\x0a`."""
    return _LINE_BREAK.sub(
        lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 256 else f"\\u{ord(m[0]):04x}",
        chunk.citation,
    )


def quote(candidate: Candidate) -> str:
    """`> "…" [source:heading]`; a unit of several lines keeps its lines."""
    lines = candidate.unit.text.splitlines() or [""]
    label = f"{injection.LABEL} " if candidate.unit.instruction else ""
    cited = marker(candidate.chunk)
    if len(lines) == 1:
        return f'> {label}"{lines[0]}" {cited}'
    middle = [f"> {line}" for line in lines[1:-1]]
    return "\n".join([f'> {label}"{lines[0]}', *middle, f'> {lines[-1]}" {cited}'])


def _citations(chunks: list[RetrievedChunk]) -> list[Citation]:
    best: dict[tuple[str, str], Citation] = {}
    for chunk in chunks:
        key = (chunk.source, chunk.heading)
        if key not in best or chunk.support > best[key].score:
            best[key] = Citation(chunk.source, chunk.heading, chunk.support)
    return list(best.values())


class ExtractiveAnswerer:
    def __init__(self, embed: Embed) -> None:
        # e.g. `lambda texts: embedder.embed(texts, lane="query")`
        self._embed = embed

    def answer(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        max_sentences: int = 3,
        gate: GateDecision | None = None,
    ) -> Answer:
        candidates = candidates_of(chunks)
        if not candidates:
            return self._pointing_at(chunks, NO_SENTENCE_NOTE)
        vectors = self._vectors([question] + [c.unit.search_text for c in candidates])
        question_vector, unit_vectors = vectors[0], vectors[1:]
        terms = KeyTerms(question, candidates)
        coverage = np.array([terms.coverage(c.haystack) for c in candidates])
        scores = unit_vectors @ question_vector + COVERAGE_WEIGHT * coverage
        scores += SUPPORT_WEIGHT * self._relative_support(candidates)
        scores += EXACT_TOKEN_BOOST * self._exact_share(question, candidates)
        scores += ANSWER_TYPE_BOOST * self._answer_type(question, candidates)
        leaders = np.array([not c.unit.instruction for c in candidates])
        chosen = choose(scores, unit_vectors, max_sentences, leaders)
        if not chosen:
            return self._pointing_at(chunks, ONLY_INSTRUCTIONS_NOTE)
        picked = [candidates[i] for i in chosen]
        return Answer(
            text="\n".join([HEADER, "", *(quote(c) for c in picked)]),
            citations=_citations([c.chunk for c in picked]),
            confidence=confidence_for(float(coverage[chosen[0]]), gate),
            refused=False,
            mode="extractive",
        )

    def _vectors(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self._embed(texts), np.float32)
        # Normalise defensively: the cosine must not depend on the embedder's habits.
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    @staticmethod
    def _relative_support(candidates: list[Candidate]) -> np.ndarray:
        support = np.array([max(0.0, c.chunk.support) for c in candidates])
        best = float(support.max())
        return support / best if best > 0 else np.zeros(len(candidates))

    @staticmethod
    def _answer_type(question: str, candidates: list[Candidate]) -> np.ndarray:
        """1 for a unit holding what the question asks for: a number for "how many …?",
        a command or option for "how do I …?"."""
        pairs = ((_WANTS_NUMBER, _NUMBER), (_WANTS_ACTION, _ACTION))
        wanted = [answer for asks, answer in pairs if asks.search(question)]
        if not wanted:
            return np.zeros(len(candidates))
        return np.array(
            [
                any(c.unit.kind == "code" or p.search(c.unit.text) for p in wanted)
                for c in candidates
            ],
            dtype=np.float32,
        )

    @staticmethod
    def _exact_share(question: str, candidates: list[Candidate]) -> np.ndarray:
        tokens = {t.lower() for t in _EXACT_TOKEN.findall(question)}
        if not tokens:
            return np.zeros(len(candidates))
        patterns = [re.compile(rf"(?<![\w-]){re.escape(t)}(?![\w-])") for t in tokens]
        return np.array(
            [sum(bool(p.search(c.haystack)) for p in patterns) / len(tokens) for c in candidates]
        )

    @staticmethod
    def _pointing_at(chunks: list[RetrievedChunk], note: str) -> Answer:
        if not chunks:
            # Only reachable if called past the gate with nothing retrieved.
            return Answer(text=REFUSAL_SENTENCE, refused=True, mode="extractive")
        top = chunks[:3]
        lines = [HEADER, "", note, *(f"- {marker(chunk)}" for chunk in top)]
        return Answer(
            text="\n".join(lines), citations=_citations(top), confidence="low", mode="extractive"
        )
