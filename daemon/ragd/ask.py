"""The `ask` and `chat_reset` ops: retrieve → gate → answer (Claude or extractive).

The gate runs first and alone decides whether any model is called: below the support
floor the reply is the fixed refusal and no request leaves the machine. Above it, Claude
answers when the daemon has ANTHROPIC_API_KEY in its environment (the key never leaves
the daemon: not in replies, not in logs), otherwise the extractive answerer quotes the
best sentences. Chat sessions keep their memory here, keyed by a client-chosen id.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ragd.arguments import arg_bool, arg_float, arg_int, arg_str
from ragd.components import Startup
from ragd.handlers import result_json
from ragd.query.chat_memory import ChatMemory
from ragd.query.types import Answer, ChatTurn, GateDecision
from ragd.server import Request, Responder
from ragproto.errors import BadRequest
from ragproto.protocol import REFUSAL_SENTENCE

if TYPE_CHECKING:
    from ragd.config import Settings
    from ragd.index.embedder import Embedder
    from ragd.query.claude import ClaudeAnswerer
    from ragd.query.extractive import ExtractiveAnswerer

log = logging.getLogger("ragd.ask")

MAX_SESSIONS = 64
MODEL_WITHOUT_KEY = (
    "note: --model has no effect: ragd has no ANTHROPIC_API_KEY, so answers are extractive "
    "(quoted from the documents) and no model is called"
)
_LEVELS = ("high", "medium", "low")
_LABEL = "confidence:"


def strip_confidence_line(text: str) -> tuple[str, bool]:
    """The answer without its closing `**Confidence:** high` line, and whether it had one.

    Cut from the end with str methods (blanks, bold stars, the level, the label): a regex
    searching for the line from every position is quadratic on a long run of blanks, and
    the text is a model's reply."""
    body = text.rstrip().rstrip("*")
    level = next((w for w in _LEVELS if body[-len(w) :].lower() == w), None)
    if level is None:
        return text.strip(), False
    body = body[: -len(level)].rstrip().rstrip("*")
    if body[-len(_LABEL) :].lower() != _LABEL:
        return text.strip(), False
    return body[: -len(_LABEL)].rstrip("*").strip(), True


def refusal_note(gate: GateDecision) -> str:
    if gate.support < gate.floor:
        why = f"no chunk cleared the {gate.floor:.3f} support floor ({gate.floor_origin})"
    else:
        why = f"the question {gate.reason}"
    return f"refused locally — {why}, so no model call was made."


class AskService:
    """`ask` and `chat_reset`: owns the answerers, their settings and the chat sessions."""

    def __init__(self, startup: Startup, settings: Settings, api_key: str) -> None:
        self.startup = startup
        self.settings = settings
        self.api_key = api_key  # never in a reply or a log line
        self._sessions: OrderedDict[str, ChatMemory] = OrderedDict()
        self._lock = threading.Lock()
        self._claude: ClaudeAnswerer | None = None
        self._extractive: ExtractiveAnswerer | None = None
        self.model_calls = 0
        self.local_refusals = 0

    # -- answerers ---------------------------------------------------------------
    def claude(self) -> ClaudeAnswerer:
        with self._lock:
            if self._claude is None:
                from ragd.query.claude import ClaudeAnswerer

                s = self.settings
                self._claude = ClaudeAnswerer(
                    self.api_key,
                    model=s.model,
                    base_url=s.anthropic_base_url or None,
                    timeout_s=s.api_timeout_s,
                    max_retries=s.api_max_retries,
                    budget_tokens=s.context_budget_tokens,
                )
            return self._claude

    def extractive(self, embedder: Embedder) -> ExtractiveAnswerer:
        if self._extractive is None:
            from ragd.query.extractive import ExtractiveAnswerer

            self._extractive = ExtractiveAnswerer(lambda texts: embedder.embed(texts, lane="query"))
        return self._extractive

    def reconfigure(self, settings: Settings) -> None:
        """SIGHUP: `top_k`, and the Claude client's model, base URL, timeout, retries and
        context budget (the client is built again on next use)."""
        with self._lock:
            self.settings = settings
            self._claude = None

    # -- sessions ----------------------------------------------------------------
    def memory(self, session: str) -> ChatMemory | None:
        if not session:
            return None
        with self._lock:
            memory = self._sessions.pop(session, None) or ChatMemory()
            self._sessions[session] = memory
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
            return memory

    def chat_reset(self, request: Request) -> dict[str, Any]:
        session = arg_str(request.args, "session", max_len=128)
        with self._lock:
            self._sessions.pop(session, None)
        return {"reset": True}

    # -- ask ---------------------------------------------------------------------
    def ask(self, request: Request, responder: Responder) -> None:
        components = self.startup.require()
        args = request.args
        question = arg_str(args, "question")
        top_k = arg_int(args, "top_k", self.settings.top_k, 1, 50)
        floor = arg_float(args, "min_score", None, 0.0, 1.0)
        model = args.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise BadRequest("'model' must be a non-empty string")
        json_mode = arg_bool(args, "json")
        memory = self.memory(str(args.get("session") or ""))
        # Said, not silently ignored: without a key no model is ever called.
        keyless = [MODEL_WITHOUT_KEY] if model is not None and not self.api_key else []
        result = components.retriever.search(question, top_k=top_k, floor=floor)
        sources = [result_json(i, c) for i, c in enumerate(result.chunks, start=1)]
        gate = result.gate.as_json()
        if not result.gate.passed:
            self.local_refusals += 1
            responder.final(refused_reply(result.gate, sources, keyless))
            return
        history = memory.turns() if memory is not None else []
        answer: Answer
        if self.api_key:
            self.model_calls += 1
            answer = self.claude().answer(
                question,
                result.chunks,
                history=history,
                json_mode=json_mode,
                model=model,
                on_delta=lambda text: responder.delta({"text": text}),
            )
        else:
            extractive = self.extractive(components.embedder)
            answer = extractive.answer(question, result.chunks, gate=result.gate)
            if not json_mode:
                responder.delta({"text": answer.text})
        if memory is not None:
            memory.add(ChatTurn(question, answer.text, list(result.chunks)))
        reply = answer_reply(answer, gate, sources, keyless)
        reply["confidence_in_text"] = reply["confidence_in_text"] and self.api_key != ""
        responder.final(reply)


def refused_reply(
    gate: GateDecision, sources: list[dict[str, Any]], warnings: list[str]
) -> dict[str, Any]:
    """The gate refused: the fixed sentence, and why (no model was called)."""
    return {
        "answer": REFUSAL_SENTENCE,
        "citations": [],
        "confidence": "low",
        "refused": True,
        "mode": "refused",
        "gate": gate.as_json(),
        "sources": sources,
        "warnings": warnings,
        "note": refusal_note(gate),
    }


def answer_reply(
    answer: Answer, gate: dict[str, Any], sources: list[dict[str, Any]], warnings: list[str]
) -> dict[str, Any]:
    body, confidence_in_text = strip_confidence_line(answer.text)
    return {
        "answer": body,
        "citations": [
            {"source": c.source, "heading": c.heading, "score": c.score} for c in answer.citations
        ],
        "confidence": answer.confidence,
        "refused": answer.refused,
        "mode": answer.mode,
        "gate": gate,
        "sources": sources,
        "warnings": warnings + answer.warnings,
        "confidence_in_text": confidence_in_text,
    }
