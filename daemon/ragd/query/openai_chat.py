"""Answers written by a model behind the OpenAI Chat Completions API — in practice a
local one: Ollama, llama.cpp's `llama-server`, vLLM or LM Studio, all of which serve it.

Only the wire differs from Claude's: the system prompt is the first message, a stream is
`chat.completion.chunk` deltas ending in `[DONE]`, and a reply stops for `length` or
`content_filter`. Everything else (envelope, --json retry, citation check, bounded
retries, error wording) is model_answerer.py's. The SDK is imported in the constructor:
`import openai` takes seconds, and most processes never need it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from ragd.core.config import default
from ragd.core.network_policy import without_credentials
from ragd.query.call_deadline import deadline_client
from ragd.query.model_answerer import (
    CUT_OFF,
    REFUSAL,
    UNFINISHED,
    Call,
    Message,
    ModelAnswerer,
    Stop,
)
from ragd.query.types import Mode
from ragproto.errors import ModelError, ModelRequestError

# The SDK refuses to start without a key; local servers ignore the header, so without
# OPENAI_API_KEY this placeholder is sent (a server that checks keys answers 401).
NO_KEY = "no-key"
_STOPS = {"length": CUT_OFF, "content_filter": REFUSAL}


class OpenAIAnswerer(ModelAnswerer):
    """Answer a question from retrieved chunks with an OpenAI-compatible server."""

    mode: Mode = "openai"
    name = "the OpenAI-compatible server"
    reply_kind = "a Chat Completion"
    url_setting = "openai_base_url (an OpenAI-compatible /v1 URL)"
    key_env = "OPENAI_API_KEY"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout_s: float = default("api_timeout_s"),
        max_retries: int = default("api_max_retries"),
        max_tokens: int = 1024,
        *,
        budget_tokens: int = default("context_budget_tokens"),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url.strip() or not model.strip():
            raise ValueError("an OpenAI-compatible answerer needs a base URL and a model")
        super().__init__(
            api_key, model, timeout_s, max_retries, max_tokens,
            budget_tokens=budget_tokens, sleep=sleep,
        )  # fmt: skip
        import openai

        self._openai = openai
        # Every call ends by its deadline whatever the server sends (call_deadline.py).
        self._deadline, http_client = deadline_client(openai)
        self._client = openai.OpenAI(
            api_key=api_key or NO_KEY,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=0,
            http_client=http_client,
        )
        self.host = without_credentials(base_url).rstrip("/")

    def _request(self, call: Call, messages: list[Message]) -> dict[str, Any]:
        system: Message = {"role": "system", "content": call.system}
        return {"model": call.model, "max_tokens": self.max_tokens, "messages": [system, *messages]}

    def _stream(self, call: Call, messages: list[Message]) -> Iterator[str | Stop]:
        stop: str | None = None
        wrote, tool_call = False, False
        with (
            self._replies(call, lambda: wrote),
            self._client.chat.completions.create(
                **self._request(call, messages), stream=True
            ) as stream,
        ):
            for chunk in stream:
                for choice in chunk.choices[:1]:  # we ask for one; a server may send more
                    if choice.delta.content:
                        wrote = True
                        yield choice.delta.content
                    tool_call = tool_call or bool(choice.delta.tool_calls)
                    stop = choice.finish_reason or stop
                if stop is not None:
                    break  # the answer is complete: a server that never sends [DONE] is done
        if not wrote and stop != "content_filter":
            raise self._no_text(tool_call or stop == "tool_calls")
        # No stop reason: the stream ended (the connection closed) without finishing.
        yield Stop(UNFINISHED if stop is None else _STOPS.get(stop))

    def _create(self, call: Call, messages: list[Message]) -> tuple[str, str | None]:
        with self._replies(call):
            reply = self._client.chat.completions.create(**self._request(call, messages))
            if not getattr(reply, "choices", None):
                raise self._malformed(f"a {type(reply).__name__} without choices")
            choice = reply.choices[0]
            if not choice.message.content and choice.message.tool_calls:
                raise self._no_text(True)
            return choice.message.content or "", _STOPS.get(str(choice.finish_reason))

    def _sdk(self) -> ModuleType:
        return self._openai

    def _status_detail(self, exc: Any) -> tuple[str, str]:
        # The SDK keeps the body's `error` object; servers vary in what they put there.
        body = exc.body
        if isinstance(body, dict):
            kind = body.get("type") or body.get("code") or ""
            return str(kind), str(body.get("message") or "")
        return "", str(body or "")

    def _special_status(
        self, status: int, kind: str, detail: str, attempts: str
    ) -> ModelError | None:
        if status != 404:
            return None
        # Ollama and llama-server answer 404 for a model they do not have, and for a
        # base URL without its `/v1`.
        return ModelRequestError(
            f"{self.name} at {self.host} has no such model or route ({detail}) — check "
            "openai_model (for Ollama: `ollama pull MODEL`) and that openai_base_url ends "
            "in /v1",
            status=status,
        )
