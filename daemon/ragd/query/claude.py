"""Answers written by Claude, through the Anthropic Messages API.

Only what is Anthropic's own lives here: the client, how a stream and a reply look, and
the 529 "overloaded" status. The flow (envelope, streaming, --json retry, citation
check, bounded retries) is model_answerer.py's, shared with the OpenAI-compatible
answerer. The SDK is imported inside the constructor because `import anthropic` is slow
and most processes that import this module never talk to the API.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from ragd.core.config import default
from ragd.query.call_deadline import deadline_client
from ragd.query.model_answerer import (
    CUT_OFF,
    REFUSAL,
    TRY_AGAIN_SHORTLY,
    UNFINISHED,
    Call,
    Message,
    ModelAnswerer,
    Stop,
)
from ragd.query.types import Mode
from ragproto.errors import ModelError, ModelUnavailableError

OVERLOADED_STATUS = 529
_STOPS = {"max_tokens": CUT_OFF, "refusal": REFUSAL}


class ClaudeAnswerer(ModelAnswerer):
    """Answer a question from retrieved chunks with the Anthropic Messages API."""

    mode: Mode = "claude"
    name = "the Anthropic API"
    key_env = "ANTHROPIC_API_KEY"
    reply_kind = "a Messages API reply"
    url_setting = "anthropic_base_url"

    def __init__(
        self,
        api_key: str,
        model: str = default("model"),
        base_url: str | None = None,
        timeout_s: float = default("api_timeout_s"),
        max_retries: int = default("api_max_retries"),
        max_tokens: int = 1024,
        *,
        budget_tokens: int = default("context_budget_tokens"),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not api_key.strip():
            raise ValueError("api_key is empty: use the extractive answerer without a key")
        super().__init__(
            api_key, model, timeout_s, max_retries, max_tokens,
            budget_tokens=budget_tokens, sleep=sleep,
        )  # fmt: skip
        import anthropic

        self._anthropic = anthropic
        # Every call ends by its deadline whatever the server sends (call_deadline.py).
        self._deadline, http_client = deadline_client(anthropic)
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout_s,
            max_retries=0,
            http_client=http_client,
        )
        url = self._client.base_url
        self.host = f"{url.host}:{url.port}" if url.port else str(url.host)

    def _request(self, call: Call) -> dict[str, Any]:
        return {"model": call.model, "max_tokens": self.max_tokens, "system": call.system}

    def _stream(self, call: Call, messages: list[Message]) -> Iterator[str | Stop]:
        sent: Any = messages  # the SDK's MessageParam is this dict shape
        wrote = False
        with (
            self._replies(call, lambda: wrote),
            self._client.messages.stream(**self._request(call), messages=sent) as stream,
        ):
            for event in stream:
                if event.type == "text" and event.text:
                    wrote = True
                    yield event.text
            try:
                final = stream.get_final_message()
            except AssertionError:  # the SDK's own check: no `message_start` event came
                raise self._malformed("a stream that never started a message") from None
            # The API always sends a stop reason (`message_delta`) before `message_stop`;
            # none means the connection closed mid-answer, which the SDK ends without an
            # error: the half answer is said to be one, as the OpenAI-compatible path does.
            reason = final.stop_reason
            stop = UNFINISHED if reason is None else _STOPS.get(str(reason))
            if not wrote and stop != REFUSAL:
                # An empty content list (or only blocks of other kinds) read as an empty
                # answer, exit 0: a reply without text is a failure, said in one line.
                raise self._no_text(_has_tool_use(final.content))
            yield Stop(stop)

    def _create(self, call: Call, messages: list[Message]) -> tuple[str, str | None]:
        sent: Any = messages
        with self._replies(call):
            message = self._client.messages.create(**self._request(call), messages=sent)
            text = "".join(block.text for block in message.content if block.type == "text")
            stop = _STOPS.get(str(message.stop_reason))
            if not text and stop != REFUSAL:
                raise self._no_text(_has_tool_use(message.content))
            return text, stop

    def _sdk(self) -> ModuleType:
        return self._anthropic

    def _status_detail(self, exc: Any) -> tuple[str, str]:
        return exc.type or "", exc.api_message or ""

    def _special_status(
        self, status: int, kind: str, detail: str, attempts: str
    ) -> ModelError | None:
        if status != OVERLOADED_STATUS and kind != "overloaded_error":
            return None
        return ModelUnavailableError(
            f"{self.name} is overloaded ({detail}) after {attempts}{TRY_AGAIN_SHORTLY}",
            status=status if status >= 400 else None,
        )


def _has_tool_use(content: Any) -> bool:
    return any(getattr(block, "type", None) == "tool_use" for block in content or ())
