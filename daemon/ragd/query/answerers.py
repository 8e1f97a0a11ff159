"""Who writes the answer once the gate has passed: one `Answerer` protocol, three backends.

* Claude (claude.py) when the daemon has ANTHROPIC_API_KEY,
* an OpenAI-compatible server (openai_chat.py: Ollama, llama-server, vLLM, LM Studio)
  when `openai_base_url` is set,
* otherwise the keyless answerer, which quotes the documents (extractive.py).

`answers = "auto"` picks in that order; `claude`, `openai` or `extractive` pins one.
`choose_backend` decides without importing any SDK (status calls it on every request);
`build_answerer` builds the chosen one. The keys are `Settings.api_keys` (core/config.py
resolves them from the environment as secrets that are never shown); only the SDK call
reveals one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ragd.core.network_policy import without_credentials
from ragproto.errors import ModelAuthError

if TYPE_CHECKING:
    import numpy as np

    from ragd.core.config import Settings
    from ragd.index.embedder import PieceFold, PieceVectors
    from ragd.query.cancellation import Cancel
    from ragd.query.extractive import ExtractiveAnswerer
    from ragd.query.question import QuestionAnalysis
    from ragd.query.types import Answer, ChatTurn, GateDecision, Mode, RetrievedChunk

Kind = Literal["claude", "openai", "extractive"]
Embed = Callable[[list[str]], "np.ndarray"]
EmbedPieces = Callable[[list[str], "PieceFold"], "np.ndarray"]  # Embedder.fold_pieces


class Answerer(Protocol):
    """Writes the answer to a question from the chunks retrieved for it."""

    mode: Mode

    def answer(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        *,
        gate: GateDecision | None = None,
        history: Sequence[ChatTurn] = (),
        json_mode: bool = False,
        model: str | None = None,
        on_delta: Callable[[str], None] | None = None,
        analysis: QuestionAnalysis | None = None,
        query_vector: np.ndarray | None = None,
        query_pieces: PieceVectors | None = None,
        cancel: Cancel | None = None,
    ) -> Answer:
        """`on_delta` receives the text as it is written (never in `json_mode`); `model`
        overrides the configured model (a backend without one ignores it); `analysis`,
        `query_vector` and `query_pieces` are the retriever's (RetrievalResult), so the
        keyless answerer neither analyses nor embeds the question again (a model reads the
        question). `cancel`, once set, ends a model call where it is (Cancelled raised,
        its connection shut down); the keyless answerer, quick anyway, ignores it."""
        ...


@dataclass(frozen=True)
class Backend:
    """The answer backend the settings and keys select, as `status` reports it."""

    kind: Kind
    model: str = ""
    url: str = ""
    problem: str = ""  # why every ask will fail (a pinned backend that cannot work)

    def as_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"answers": self.kind, "answer_model": self.model}
        if self.url:
            shown["answer_url"] = self.url
        if self.problem:
            shown["answers_problem"] = self.problem
        return shown


NO_ANTHROPIC_KEY = 'answers = "claude" but the daemon has no ANTHROPIC_API_KEY in its environment'


def choose_backend(settings: Settings) -> Backend:
    keys = settings.api_keys
    choice = settings.answers
    if choice == "auto":
        if keys.anthropic:
            choice = "claude"
        elif settings.openai_base_url:
            choice = "openai"
        else:
            choice = "extractive"
    if choice == "claude":
        return Backend("claude", settings.model, problem="" if keys.anthropic else NO_ANTHROPIC_KEY)
    if choice == "openai":  # config guarantees a base URL and a model
        shown_url = without_credentials(settings.openai_base_url)
        return Backend("openai", settings.openai_model, shown_url)
    # `answer_model` keeps naming the Claude model here: what setting a key would enable.
    return Backend("extractive", settings.model)


def build_answerer(
    settings: Settings, embed: Embed, embed_pieces: EmbedPieces | None = None
) -> Answerer:
    """The chosen backend's answerer; ModelAuthError if it cannot work at all."""
    backend = choose_backend(settings)
    keys = settings.api_keys
    if backend.problem:
        raise ModelAuthError(backend.problem)
    if backend.kind == "claude":
        from ragd.query.claude import ClaudeAnswerer

        return ClaudeAnswerer(
            keys.anthropic.reveal(),
            model=settings.model,
            base_url=settings.anthropic_base_url or None,
            timeout_s=settings.api_timeout_s,
            max_retries=settings.api_max_retries,
            budget_tokens=settings.context_budget_tokens,
        )
    if backend.kind == "openai":
        from ragd.query.openai_chat import OpenAIAnswerer

        return OpenAIAnswerer(
            settings.openai_base_url,
            settings.openai_model,
            keys.openai.reveal(),
            timeout_s=settings.api_timeout_s,
            max_retries=settings.api_max_retries,
            budget_tokens=settings.context_budget_tokens,
        )
    return KeylessAnswerer(embed, embed_pieces)


class KeylessAnswerer:
    """The extractive answerer behind the `Answerer` signature: quotes, no model."""

    mode: Mode = "extractive"

    def __init__(self, embed: Embed, embed_pieces: EmbedPieces | None = None) -> None:
        from ragd.query.extractive import ExtractiveAnswerer

        self._quotes: ExtractiveAnswerer = ExtractiveAnswerer(embed, embed_pieces)

    def answer(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        *,
        gate: GateDecision | None = None,
        history: Sequence[ChatTurn] = (),
        json_mode: bool = False,
        model: str | None = None,
        on_delta: Callable[[str], None] | None = None,
        analysis: QuestionAnalysis | None = None,
        query_vector: np.ndarray | None = None,
        query_pieces: PieceVectors | None = None,
        cancel: Cancel | None = None,
    ) -> Answer:
        # Quotes are chosen for this question alone: a chat's history does not change them.
        answer = self._quotes.answer(
            question,
            chunks,
            gate=gate,
            analysis=analysis,
            query_vector=query_vector,
            query_pieces=query_pieces,
        )
        if on_delta is not None and not json_mode:
            on_delta(answer.text)  # all at once: nothing is being written
        return answer
