"""The answer given without an API key: the few retrieved sentences closest to the question.

Nothing is generated, so nothing can be invented: each chosen sentence is quoted verbatim
(as `> "…" [source:heading]`) and a sentence that reads like an instruction is shown, not
obeyed. Sentences are chosen by cosine similarity to the question, greedily with a
redundancy penalty (maximal marginal relevance) so two near-identical sentences from
overlapping chunks are not both quoted.

Confidence comes from the best sentence's cosine. Measured with all-MiniLM-L6-v2 on the
sample handbook: questions the handbook answers reach 0.55–0.83 with their answering
sentence, unrelated questions 0.10–0.19. Hence HIGH_SIMILARITY = 0.65 (a sentence that
practically restates the question) and MEDIUM_SIMILARITY = 0.45 (clearly on topic);
anything below is "low".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ragd.query.types import Answer, Citation, Confidence, RetrievedChunk
from ragproto.protocol import REFUSAL_SENTENCE

HEADER = (
    "Extractive answer (no ANTHROPIC_API_KEY set, so these are the passages closest to "
    "your question, quoted from the documents; set ANTHROPIC_API_KEY for the daemon to "
    "get answers written by Claude):"
)
NO_SENTENCE_NOTE = "The retrieved passages contain no quotable sentence (only code or tables):"

HIGH_SIMILARITY = 0.65
MEDIUM_SIMILARITY = 0.45
RELATIVE_WINDOW = 0.12  # a second or third sentence must be nearly as relevant as the first
NEAR_DUPLICATE = 0.85  # cosine between two sentences above which they say the same thing
MMR_RELEVANCE_WEIGHT = 0.75
MIN_SENTENCE_CHARS = 25
MIN_SENTENCE_WORDS = 4
MAX_SENTENCE_CHARS = 500
MAX_CANDIDATES = 200  # bounds the embedding work (chunks come best-first)

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class Sentence:
    text: str
    chunk: RetrievedChunk


_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_ROW = re.compile(r"^\|.*\|$")
# Codes, field names and flags ("KSF-E417", "boarding_cutoff_minutes", "--reprint-since",
# "v3.2.1"): the encoder barely sees them, so a sentence that repeats one gets a boost.
_EXACT_TOKEN = re.compile(r"(?:--)?[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+|\b\w*\d\w*\b")
EXACT_TOKEN_BOOST = 0.3
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE_MARKER = re.compile(r"^\s*>\s?")
# A sentence ends at . ! ? (plus closing quotes/brackets) followed by a capital or digit,
# so "e.g. the ferry" stays whole.
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])")


def _segments(text: str) -> list[str]:
    """Paragraphs and list items of a chunk, skipping code, tables and headings."""
    segments: list[str] = []
    current: list[str] = []
    in_fence = False

    def flush() -> None:
        if current:
            segments.append(" ".join(current))
            current.clear()

    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            flush()
            continue
        stripped = line.strip()
        if not in_fence and _TABLE_ROW.match(stripped):
            # A table row is a fact too ("KSF-E417 | Printer out of paper | …"): quote it
            # as one segment; the header/separator rows are too short or empty to qualify.
            flush()
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                segments.append(" | ".join(cells) + ".")
            continue
        if in_fence or not stripped or stripped.startswith(("|", "#")):
            flush()
            continue
        if _LIST_MARKER.match(line):
            flush()
            line = _LIST_MARKER.sub("", line, count=1)
        current.append(_QUOTE_MARKER.sub("", line).strip())
    flush()
    return segments


def split_sentences(text: str) -> list[str]:
    sentences = []
    for segment in _segments(text):
        for sentence in _SENTENCE_END.split(segment):
            sentence = " ".join(sentence.split())
            if len(sentence) < MIN_SENTENCE_CHARS or len(sentence.split()) < MIN_SENTENCE_WORDS:
                continue
            if len(sentence) > MAX_SENTENCE_CHARS:
                sentence = sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
            sentences.append(sentence)
    return sentences


def candidate_sentences(chunks: list[RetrievedChunk]) -> list[Sentence]:
    seen: set[str] = set()
    candidates: list[Sentence] = []
    for chunk in chunks:
        for text in split_sentences(chunk.text):
            if text in seen:  # overlapping chunks repeat sentences; keep the better-ranked
                continue
            seen.add(text)
            candidates.append(Sentence(text, chunk))
            if len(candidates) >= MAX_CANDIDATES:
                return candidates
    return candidates


def token_lines(chunks: list[RetrievedChunk], tokens: set[str]) -> list[Sentence]:
    """Lines of code or config that mention one of the question's exact tokens.

    Fenced code is not prose and is skipped as sentences, but `boarding_cutoff_minutes = 20`
    is precisely the answer to "what is boarding_cutoff_minutes set to?".
    """
    found: list[Sentence] = []
    if not tokens:
        return found
    for chunk in chunks:
        for line in chunk.text.splitlines():
            text = line.strip()
            mentions = any(t in text.lower() for t in tokens)
            fresh = not any(text in c.text for c in found)
            if text and not _FENCE.match(text) and mentions and fresh:
                found.append(Sentence(text[:MAX_SENTENCE_CHARS], chunk))
    return found[:20]


def choose(similarities: np.ndarray, vectors: np.ndarray, limit: int) -> list[int]:
    """Indices of up to `limit` sentences: relevant first, near-duplicates never."""
    if len(similarities) == 0 or limit <= 0:
        return []
    best = float(similarities.max())
    floor = best - RELATIVE_WINDOW
    chosen: list[int] = []
    while len(chosen) < limit:
        pick, pick_score = -1, float("-inf")
        for index in range(len(similarities)):
            if index in chosen or (chosen and similarities[index] < floor):
                continue
            redundancy = max((float(vectors[index] @ vectors[j]) for j in chosen), default=0.0)
            if redundancy >= NEAR_DUPLICATE:
                continue
            relevance = float(similarities[index])
            score = MMR_RELEVANCE_WEIGHT * relevance - (1 - MMR_RELEVANCE_WEIGHT) * redundancy
            if score > pick_score:
                pick, pick_score = index, score
        if pick < 0:
            break
        chosen.append(pick)
    return chosen


def confidence_for(similarity: float) -> Confidence:
    if similarity >= HIGH_SIMILARITY:
        return "high"
    if similarity >= MEDIUM_SIMILARITY:
        return "medium"
    return "low"


def quote(sentence: Sentence) -> str:
    return f'> "{sentence.text}" {sentence.chunk.citation}'


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

    def answer(self, question: str, chunks: list[RetrievedChunk], max_sentences: int = 3) -> Answer:
        tokens = {t.lower() for t in _EXACT_TOKEN.findall(question)}
        candidates = candidate_sentences(chunks) + token_lines(chunks, tokens)
        if not candidates:
            return self._without_sentences(chunks)
        vectors = np.asarray(self._embed([question] + [c.text for c in candidates]), np.float32)
        # Normalise defensively: the cosine below must not depend on the embedder's habits.
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        question_vector, sentence_vectors = vectors[0], vectors[1:]
        similarities = sentence_vectors @ question_vector
        if tokens:
            boost = np.array(
                [sum(t in c.text.lower() for t in tokens) / len(tokens) for c in candidates]
            )
            similarities = np.minimum(1.0, similarities + EXACT_TOKEN_BOOST * boost)
        chosen = choose(similarities, sentence_vectors, max_sentences)
        picked = [candidates[i] for i in chosen]
        lines = [HEADER, "", *(quote(sentence) for sentence in picked)]
        return Answer(
            text="\n".join(lines),
            citations=_citations([sentence.chunk for sentence in picked]),
            confidence=confidence_for(float(similarities[chosen[0]])),
            refused=False,
            mode="extractive",
        )

    @staticmethod
    def _without_sentences(chunks: list[RetrievedChunk]) -> Answer:
        if not chunks:
            # Only reachable if called past the gate with nothing retrieved.
            return Answer(text=REFUSAL_SENTENCE, refused=True, mode="extractive")
        top = chunks[:3]
        lines = [HEADER, "", NO_SENTENCE_NOTE, *(f"- {chunk.citation}" for chunk in top)]
        return Answer(
            text="\n".join(lines), citations=_citations(top), confidence="low", mode="extractive"
        )
