"""Answers written by Claude: stream (or, for --json, validate) and check every citation.

The SDK is imported inside the constructor because `import anthropic` is slow and most
processes that import this module (tests, the CLI's type checks) never talk to the API.

Retries are ours, not the SDK's (it gets `max_retries=0`): the SDK obeys any
`retry-after`, however long, which would let a busy API stall a query for minutes. Here
a retryable failure (429, 529, other 5xx, timeouts, connection errors) is retried at most
`max_retries` times, waiting what `retry-after` asks when that is at most
MAX_RETRY_AFTER_S (else we give up at once and say so) or a short exponential backoff.
So one `answer()` takes at most

    (max_retries + 1) × timeout_s  +  max_retries × MAX_RETRY_AFTER_S

and the streaming loop enforces that deadline too. A stream that already showed text is
never retried (the user would see the beginning twice). Every failure leaves as a
`ModelError` with its wire type; the API key never appears in a message.
"""

from __future__ import annotations

import errno
import html
import json
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ragd.config import default
from ragd.query.prompting import (
    build_envelope,
    build_user_message,
    system_prompt,
)
from ragd.query.types import Answer, ChatTurn, Citation, Confidence, RetrievedChunk
from ragproto.errors import (
    ModelAuthError,
    ModelError,
    ModelInvalidOutputError,
    ModelRequestError,
    ModelUnavailableError,
)
from ragproto.protocol import REFUSAL_SENTENCE

MAX_RETRY_AFTER_S = 20.0  # longer waits than this fail at once: a query should not stall
INITIAL_BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0
MAX_RETRIES_LIMIT = 10
MAX_TIMEOUT_S = 600.0
OVERLOADED_STATUS = 529

T = TypeVar("T")

if TYPE_CHECKING:
    from anthropic.types import MessageParam as Message


# --- the --json reply contract ------------------------------------------------------


class JsonCitation(BaseModel):
    model_config = ConfigDict(strict=True)
    source: str
    heading: str


class JsonReply(BaseModel):
    # Strict types (no "true" → True coercion) but extra keys are ignored: an extra
    # field is harmless, a wrong type means the model misunderstood the contract.
    model_config = ConfigDict(strict=True, extra="ignore")
    answer: str
    citations: list[JsonCitation]
    confidence: Literal["high", "medium", "low"]
    refused: bool


class InvalidReply(ValueError):
    """The model's --json reply could not be parsed or validated (the reason is the text)."""


_FENCE = re.compile(r"^```[ \t]*(?:json)?[ \t]*\n(?P<body>.*?)\n?```$", re.DOTALL | re.IGNORECASE)


def parse_json_reply(text: str) -> JsonReply:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group("body").strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise InvalidReply(
            f"it is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    try:
        return JsonReply.model_validate(value)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'the reply'}: {error['msg']}"
            for error in exc.errors()[:5]
        ]
        raise InvalidReply("it does not match the schema (" + "; ".join(problems) + ")") from None


# --- reading the model's text ---------------------------------------------------------


def _normalize(text: str) -> str:
    text = html.unescape(text)  # the model may copy an attribute as escaped (`Q&amp;A`)
    text = text.replace("’", "'").replace("‘", "'").replace("–", "-").replace("—", "-")
    text = re.sub(r"\s*>\s*", " > ", text)
    return " ".join(text.split()).casefold()


_REFUSAL_KEY = _normalize(REFUSAL_SENTENCE).rstrip(".")


def is_refusal(text: str) -> bool:
    return _normalize(text).startswith(_REFUSAL_KEY)


_CONFIDENCE_LINE = re.compile(
    # The lead-in stays on its line ([^\S\n]: a blank but not a line break): spanning
    # lines, every line start of a run of blank lines would rescan the rest of the run.
    r"^(?:[^\S\n]|[*_`>#-])*confidence[\s*_`]*:[\s*_`]*(high|medium|low)\b",
    re.IGNORECASE | re.MULTILINE,
)


def parse_confidence(text: str) -> Confidence:
    matches = _CONFIDENCE_LINE.findall(text)
    if not matches:
        return "low"
    value = matches[-1].lower()
    return "high" if value == "high" else "medium" if value == "medium" else "low"


# `[anything without brackets]` not followed by `(` (that would be a Markdown link).
_MARKER = re.compile(r"\[([^\[\]\n]{1,400})\](?!\()")


_NOT_A_CITATION = re.compile(r"[\d:.,\s]+")  # a time or a ratio: "[10:30]", "[3:2]"


def find_markers(text: str) -> list[str]:
    """Contents of the `[source:heading]` markers in `text`, in order, without brackets."""
    return [
        content
        for content in (match.group(1) for match in _MARKER.finditer(text))
        if ":" in content and not _NOT_A_CITATION.fullmatch(content)
    ]


def dropped_citation_warning(marker: str) -> str:
    return f"warning: dropped citation [{marker}] — not among the retrieved documents"


class CitationResolver:
    """Maps what the model cited back to retrieved chunks; the score is always retrieval's."""

    def __init__(
        self, chunks: Sequence[RetrievedChunk], earlier: Sequence[RetrievedChunk] = ()
    ) -> None:
        """`chunks` were retrieved for this question; `earlier` for past turns of a chat.

        A document retrieved now is scored by this retrieval; one seen only in an earlier
        turn keeps that turn's score. Several chunks under one heading: the best counts.
        """
        self._known: dict[tuple[str, str], Citation] = {}
        for group in (chunks, earlier):
            found: dict[tuple[str, str], Citation] = {}
            for chunk in group:
                key = (_normalize(chunk.source), _normalize(chunk.heading))
                best = found.get(key)
                if best is None or chunk.support > best.score:
                    found[key] = Citation(chunk.source, chunk.heading, chunk.support)
            for key, citation in found.items():
                self._known.setdefault(key, citation)

    def lookup(self, source: str, heading: str) -> Citation | None:
        return self._known.get((_normalize(source), _normalize(heading)))

    def lookup_marker(self, marker: str) -> Citation | None:
        # Either side may contain a colon ("Setup: Linux"), so try every split point.
        for position in (i for i, char in enumerate(marker) if char == ":"):
            found = self.lookup(marker[:position], marker[position + 1 :])
            if found is not None:
                return found
        return None

    def resolve(
        self, markers: Sequence[str], pairs: Sequence[tuple[str, str]] = ()
    ) -> tuple[list[Citation], list[str]]:
        citations: list[Citation] = []
        warnings: list[str] = []

        def keep(found: Citation | None, shown: str) -> None:
            if found is None:
                warning = dropped_citation_warning(shown)
                if warning not in warnings:
                    warnings.append(warning)
            elif found not in citations:
                citations.append(found)

        for source, heading in pairs:
            keep(self.lookup(source, heading), f"{source}:{heading}")
        for marker in markers:
            found = self.lookup_marker(marker)
            if found is None and ";" in marker:  # "[a.md:X; b.md:Y]" cites two documents
                for part in marker.split(";"):
                    if ":" in part:
                        keep(self.lookup_marker(part.strip()), part.strip())
                continue
            keep(found, marker)
        return citations, warnings


# --- talking to the API -------------------------------------------------------------


@dataclass(frozen=True)
class _Failure:
    error: ModelError
    retryable: bool
    wait_s: float | None = None  # what the server asked for (retry-after), if anything


def _retry_after_s(headers: Any) -> float | None:
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value:
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None
    return None


def _connection_refused(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError) or (
            isinstance(current, OSError) and current.errno == errno.ECONNREFUSED
        ):
            return True
        if "connection refused" in str(current).lower():
            return True
        current = current.__cause__ or current.__context__
    return False


class ClaudeAnswerer:
    """Answer a question from retrieved chunks with the Anthropic Messages API."""

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
        if not 0 < timeout_s <= MAX_TIMEOUT_S:
            raise ValueError(f"timeout_s must be in (0, {MAX_TIMEOUT_S:g}], got {timeout_s}")
        if not api_key.strip():
            raise ValueError("api_key is empty: use the extractive answerer without a key")
        if not 0 <= max_retries <= MAX_RETRIES_LIMIT:
            raise ValueError(f"max_retries must be in [0, {MAX_RETRIES_LIMIT}], got {max_retries}")
        import anthropic

        self._anthropic = anthropic
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0
        )
        self._api_key = api_key
        self.model = model
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.budget_tokens = budget_tokens
        self._sleep = sleep
        url = self._client.base_url
        self.host = f"{url.host}:{url.port}" if url.port else str(url.host)
        self._transport_errors = self._find_transport_errors()

    @property
    def total_deadline_s(self) -> float:
        """The most one `answer()` can take, retries and waits included."""
        attempts = self.max_retries + 1
        return attempts * self.timeout_s + self.max_retries * MAX_RETRY_AFTER_S

    def answer(
        self,
        question: str,
        chunks: list[RetrievedChunk],
        *,
        history: Sequence[ChatTurn] = (),
        json_mode: bool = False,
        model: str | None = None,
        on_delta: Callable[[str], None] | None = None,
    ) -> Answer:
        messages: list[Message] = []
        citable: list[RetrievedChunk] = []  # what past turns showed the model
        for turn in history:
            turn_envelope, turn_chunks = build_envelope(turn.chunks, self.budget_tokens)
            messages.append(_user(build_user_message(turn_envelope, turn.question)))
            messages.append(_assistant(turn.answer))
            citable.extend(turn_chunks)
        envelope, included = build_envelope(chunks, self.budget_tokens)
        messages.append(_user(build_user_message(envelope, question)))
        resolver = CitationResolver(included, earlier=citable)
        request: dict[str, Any] = {
            "model": model or self.model,
            "max_tokens": self.max_tokens,
            "system": system_prompt(json_mode),
        }
        deadline = time.monotonic() + self.total_deadline_s
        if json_mode:
            return self._answer_json(request, messages, resolver, deadline)
        return self._answer_streaming(request, messages, resolver, deadline, on_delta)

    # -- text mode: stream ------------------------------------------------------------

    def _answer_streaming(
        self,
        request: dict[str, Any],
        messages: list[Message],
        resolver: CitationResolver,
        deadline: float,
        on_delta: Callable[[str], None] | None,
    ) -> Answer:
        parts: list[str] = []
        stop_reason: list[str | None] = []

        def attempt() -> None:
            with self._client.messages.stream(**request, messages=messages) as stream:
                for event in stream:
                    if event.type == "text":
                        parts.append(event.text)
                        if on_delta is not None:
                            on_delta(event.text)
                    if time.monotonic() > deadline:
                        raise ModelUnavailableError(
                            f"the Anthropic API at {self.host} did not finish the answer "
                            f"within {self.total_deadline_s:g} s"
                        )
                stop_reason.append(stream.get_final_message().stop_reason)

        self._with_retries(attempt, deadline, started=lambda: bool(parts))
        text = "".join(parts)
        answer = self._answer_from(text, resolver, find_markers(text), parse_confidence(text))
        if stop_reason and stop_reason[-1] == "max_tokens":
            answer.warnings.append(
                f"warning: the answer was cut off at the {self.max_tokens}-token limit"
            )
        elif stop_reason and stop_reason[-1] == "refusal":
            # The model's own safety stop: whatever it wrote is not an answer.
            answer.refused, answer.confidence, answer.citations = True, "low", []
            answer.warnings.append("warning: the model declined to answer this question")
        return answer

    # -- --json: validate, retry once with the error -----------------------------------

    def _answer_json(
        self,
        request: dict[str, Any],
        messages: list[Message],
        resolver: CitationResolver,
        deadline: float,
    ) -> Answer:
        first_text, first_stop = self._create(request, messages, deadline)
        try:
            reply = parse_json_reply(first_text)
        except InvalidReply as first_error:
            reason = self._explain(first_error, first_stop)
            # The failed reply goes mid-conversation and the request ends on a user turn:
            # the model sees what it said and why it was rejected.
            retry_messages = [
                *messages,
                _assistant(first_text),
                _user(
                    f"Your reply was not valid: {reason}. Reply again with only the JSON "
                    "object described in the instructions: no code fence, no other text."
                ),
            ]
            second_text, second_stop = self._create(request, retry_messages, deadline)
            try:
                reply = parse_json_reply(second_text)
            except InvalidReply as second_error:
                raise ModelInvalidOutputError(
                    "the model's reply was not valid JSON twice: "
                    + self._redact(self._explain(second_error, second_stop))
                ) from None
        pairs = [(citation.source, citation.heading) for citation in reply.citations]
        answer = self._answer_from(
            reply.answer, resolver, find_markers(reply.answer), reply.confidence, pairs
        )
        answer.refused = answer.refused or reply.refused
        if answer.refused:
            answer.citations, answer.confidence = [], "low"
        return answer

    def _explain(self, error: InvalidReply, stop_reason: str | None) -> str:
        if stop_reason == "max_tokens":
            return f"{error} — the reply was cut off at the {self.max_tokens}-token limit"
        return str(error)

    def _create(
        self, request: dict[str, Any], messages: list[Message], deadline: float
    ) -> tuple[str, str | None]:
        def attempt() -> tuple[str, str | None]:
            message = self._client.messages.create(**request, messages=messages)
            text = "".join(block.text for block in message.content if block.type == "text")
            return text, message.stop_reason

        return self._with_retries(attempt, deadline, started=lambda: False)

    # -- shared ------------------------------------------------------------------------

    @staticmethod
    def _answer_from(
        text: str,
        resolver: CitationResolver,
        markers: list[str],
        confidence: Confidence,
        pairs: Sequence[tuple[str, str]] = (),
    ) -> Answer:
        if is_refusal(text):
            return Answer(text=text, refused=True, mode="claude", confidence="low")
        citations, warnings = resolver.resolve(markers, pairs)
        return Answer(
            text=text,
            citations=citations,
            confidence=confidence,
            refused=False,
            mode="claude",
            warnings=warnings,
        )

    def _with_retries(
        self, attempt: Callable[[], T], deadline: float, started: Callable[[], bool]
    ) -> T:
        tries = 0
        while True:
            tries += 1
            try:
                return attempt()
            except ModelError:
                raise
            except Exception as exc:
                failure = self._classify(exc, tries)
                if failure is None:
                    raise  # not an API failure (e.g. on_delta raised): not ours to translate
            if started():
                raise ModelUnavailableError(
                    f"{failure.error} — the answer stopped part-way", status=failure.error.status
                ) from None
            if not failure.retryable or tries > self.max_retries:
                raise failure.error from None
            if failure.wait_s is not None and failure.wait_s > MAX_RETRY_AFTER_S:
                raise ModelUnavailableError(
                    f"{failure.error} — the API asks to retry after {failure.wait_s:g} s",
                    status=failure.error.status,
                ) from None
            wait_s = failure.wait_s
            if wait_s is None:
                backoff = min(INITIAL_BACKOFF_S * 2 ** (tries - 1), MAX_BACKOFF_S)
                wait_s = backoff * random.uniform(0.75, 1.0)
            if time.monotonic() + wait_s + self.timeout_s > deadline:
                raise failure.error from None
            self._sleep(wait_s)

    def _classify(self, exc: Exception, tries: int) -> _Failure | None:
        anthropic = self._anthropic
        attempts = f"{tries} attempt" + ("" if tries == 1 else "s")
        if isinstance(exc, anthropic.APIStatusError):
            return self._classify_status(exc, attempts)
        if isinstance(exc, anthropic.APITimeoutError) or (
            isinstance(exc, self._transport_errors) and "timeout" in type(exc).__name__.lower()
        ):
            return _Failure(
                ModelUnavailableError(
                    f"the Anthropic API at {self.host} did not answer within "
                    f"{self.timeout_s:g} s ({attempts})"
                ),
                retryable=True,
            )
        if isinstance(exc, (anthropic.APIConnectionError, *self._transport_errors)):
            reason = "connection refused" if _connection_refused(exc) else "connection failed"
            return _Failure(
                ModelUnavailableError(
                    f"could not reach the Anthropic API at {self.host}: {reason} ({attempts})"
                ),
                retryable=True,
            )
        if isinstance(exc, anthropic.APIError):
            return _Failure(
                ModelUnavailableError(self._redact(f"the Anthropic API failed: {exc.message}")),
                retryable=False,
            )
        return None

    def _classify_status(self, exc: Any, attempts: str) -> _Failure:
        status: int = exc.status_code
        kind = exc.type or "error"
        # An `error` event inside a 200 stream carries its kind only in the body.
        where = f"{status} {kind}" if status >= 400 else f"{kind} during the stream"
        message_text = f": {exc.api_message}" if exc.api_message else ""
        detail = self._redact(where + message_text)
        headers = exc.response.headers
        if status in (401, 403):
            return _Failure(
                ModelAuthError(
                    f"the Anthropic API rejected the key ({detail}) — check ANTHROPIC_API_KEY",
                    status=status,
                ),
                retryable=False,
            )
        overloaded = status == OVERLOADED_STATUS or kind == "overloaded_error"
        if overloaded:
            message = (
                f"the Anthropic API is overloaded ({detail}) after {attempts} — try again shortly"
            )
        elif status == 429 or kind == "rate_limit_error":
            message = f"the Anthropic API is rate limiting this key ({detail}) after {attempts}"
        elif status >= 500 or status in (408, 409) or status < 400:
            message = f"the Anthropic API failed ({detail}) after {attempts}"
        else:
            return _Failure(
                ModelRequestError(
                    f"the Anthropic API rejected the request ({detail})", status=status
                ),
                retryable=False,
            )
        should_retry = headers.get("x-should-retry") if headers is not None else None
        return _Failure(
            ModelUnavailableError(message, status=status if status >= 400 else None),
            retryable=should_retry != "false",
            wait_s=_retry_after_s(headers),
        )

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[redacted]") if self._api_key else text

    @staticmethod
    def _find_transport_errors() -> tuple[type[Exception], ...]:
        # A failure while reading a stream's body surfaces as the HTTP library's own
        # exception, not the SDK's; which library that is depends on the SDK version.
        # Only libraries already imported (by the SDK) count: importing another is waste.
        modules = (sys.modules.get(name) for name in ("httpx2", "httpx"))
        return tuple(module.TransportError for module in modules if module is not None)


def _user(content: str) -> Message:
    return {"role": "user", "content": content}


def _assistant(content: str) -> Message:
    # The API rejects an empty assistant turn.
    return {"role": "assistant", "content": content if content.strip() else "(empty reply)"}
