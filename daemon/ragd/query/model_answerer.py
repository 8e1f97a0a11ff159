"""What every answerer that calls a model does the same way, whichever API it speaks.

The flow: each past chat turn and the new question get their own document envelope
(prompting.py), the reply is streamed (text) or validated and retried once with the
error (--json), and every citation is checked against what was retrieved
(model_replies.py). A subclass (claude.py, openai_chat.py) only says how to stream, how
to make one request, and how its SDK's errors map onto ours.

Retries are ours, not the SDK's (it gets `max_retries=0`): an SDK obeys any
`retry-after`, however long, which would let a busy server stall a query for minutes.
Here a retryable failure (429, 529, other 5xx, timeouts, connection errors) is retried
at most `max_retries` times, waiting what `retry-after` asks when that is at most
MAX_RETRY_AFTER_S (else we give up at once and say so) or a short exponential backoff.
So one `answer()` takes at most

    (max_retries + 1) × timeout_s  +  max_retries × MAX_RETRY_AFTER_S

and the streaming loop enforces that deadline too. A stream that already showed text is
never retried (the user would see the beginning twice). Every failure leaves as a
`ModelError` with its wire type; the API key never appears in a message.
"""

from __future__ import annotations

import errno
import math
import random
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from ragd.core.config import MAX_API_RETRIES, MAX_API_TIMEOUT_S, default
from ragd.query.call_deadline import ReplyTooLarge, ReplyUndecodable
from ragd.query.cancellation import CANCELLED, Cancel
from ragd.query.cited_stream import CitationGuard
from ragd.query.confidence_line import parse_confidence, split_confidence
from ragd.query.model_replies import (
    CitationResolver,
    InvalidReply,
    find_markers,
    is_refusal,
    parse_json_reply,
)
from ragd.query.model_text import WholeText, mended
from ragd.query.prompting import (
    build_envelope,
    build_user_message,
    estimate_tokens,
    render_document,
    system_prompt,
)
from ragd.query.types import Answer, ChatTurn, Confidence, GateDecision, Mode, RetrievedChunk

if TYPE_CHECKING:
    import numpy as np

    from ragd.index.embedder import PieceVectors
    from ragd.query.question import QuestionAnalysis

from ragproto.errors import (
    Cancelled,
    ModelAuthError,
    ModelError,
    ModelInvalidOutputError,
    ModelRequestError,
    ModelUnavailableError,
)

TRY_AGAIN_SHORTLY = " — try again shortly"  # ends an overloaded server's error
# A token is a few characters; a reply longer than this many per token asked for comes
# from a server that ignores max_tokens, and would fill the terminal up to the byte cap.
MAX_CHARS_PER_TOKEN = 32
MAX_RETRY_AFTER_S = 20.0  # longer waits than this fail at once: a query should not stall
INITIAL_BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0

CUT_OFF = "cut_off"  # the reply hit the token limit
REFUSAL = "refusal"  # the model's own safety stop
UNFINISHED = "unfinished"  # the stream ended without a stop reason (the connection closed)

T = TypeVar("T")
Message = dict[str, str]  # {"role": "user" | "assistant", "content": …} in both APIs


@dataclass(frozen=True)
class Stop:
    """The end of a stream: why the model stopped (CUT_OFF, REFUSAL or None)."""

    reason: str | None


@dataclass(frozen=True)
class Failure:
    error: ModelError
    retryable: bool
    wait_s: float | None = None  # what the server asked for (retry-after), if anything


@dataclass(frozen=True)
class Call:
    """One `answer()`: the model asked, its system prompt, and when it must be done by."""

    model: str
    system: str
    deadline: float  # time.monotonic() value
    cancel: Cancel | None = None  # set when the client gives up: the call ends there


def retry_after_s(headers: Any) -> float | None:
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


def _asked_wait(seconds: float) -> str:
    """What a long retry-after asked, in whole seconds: `{:g}` wrote a date in 2099 as
    "2.29964e+09 s" and "1e999" as "inf s" (attack61)."""
    if math.isfinite(seconds):
        return f"the API asks to retry after {seconds:.0f} s"
    return "the API asks to retry after a wait without end (its retry-after is infinite)"


def connection_refused(exc: BaseException) -> bool:
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


def user(content: str) -> Message:
    return {"role": "user", "content": content}


def assistant(content: str) -> Message:
    # The APIs reject (or choke on) an empty assistant turn.
    return {"role": "assistant", "content": content if content.strip() else "(empty reply)"}


class ModelAnswerer(ABC):
    """Answer a question from retrieved chunks with a model behind an HTTP API."""

    mode: Mode  # what the reply's `mode` says
    name: str  # "the Anthropic API": how messages name the service
    key_env: str  # the variable to check when the key is rejected
    reply_kind: str  # "a Chat Completion": what the API answers, for the error when it did not
    url_setting: str  # the setting naming the API's address, for that error
    _deadline: Any  # the subclass's `call_deadline` guard: every call ends by its deadline

    def __init__(
        self,
        api_key: str,
        model: str,
        timeout_s: float = default("api_timeout_s"),
        max_retries: int = default("api_max_retries"),
        max_tokens: int = 1024,
        *,
        budget_tokens: int = default("context_budget_tokens"),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not 0 < timeout_s <= MAX_API_TIMEOUT_S:
            raise ValueError(f"timeout_s must be in (0, {MAX_API_TIMEOUT_S}], got {timeout_s}")
        if not 0 <= max_retries <= MAX_API_RETRIES:
            raise ValueError(f"max_retries must be in [0, {MAX_API_RETRIES}], got {max_retries}")
        self._api_key = api_key
        self.model = model
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.budget_tokens = budget_tokens
        self._sleep = sleep
        self.host = ""  # where the service is, for messages (set by the subclass)

    @contextmanager
    def _replies(self, call: Call, wrote: Callable[[], bool] = lambda: False) -> Iterator[None]:
        """The call ends by its deadline; a reply that is not what the API sends (an HTML
        page with a 200, broken, empty or too deeply nested JSON, events of another API) is
        one clear error: the SDKs hand such a reply back as a str or a half-built object,
        and reading it raised AttributeError, TypeError or a JSON error (RecursionError
        for `[[[[…` nested past the reader's depth), an internal error in `rag`.
        `wrote`: has the stream given answer text yet? Then it was the API's (the address
        is right) and the server broke it part-way, which is what the error says."""
        try:
            with self._deadline.until(call.deadline, call.cancel):
                yield
        except (ValueError, AttributeError, TypeError, IndexError, KeyError, RecursionError) as exc:
            why = f"{type(exc).__name__}: {exc}"[:200]
            if wrote():
                raise ModelUnavailableError(
                    f"{self.name} at {self.host} broke the stream ({why}) — "
                    "the answer stopped part-way"
                ) from None
            raise self._malformed(why) from None

    def _malformed(self, why: str) -> ModelError:
        return ModelUnavailableError(
            f"{self.name} at {self.host} sent a reply that is not {self.reply_kind} "
            f"({why[:200]}) — is {self.url_setting} right?"
        )

    def _no_passage_fits(self, chunks: list[RetrievedChunk]) -> ModelError:
        """`context_budget_tokens` below what any passage costs: every passage the gate
        passed would be dropped and the model asked with none (attack77), so none is."""
        least = min(estimate_tokens(render_document(1, chunk)) for chunk in chunks)
        return ModelRequestError(
            f"context_budget_tokens = {self.budget_tokens} holds none of the {len(chunks)} "
            f"passages (the smallest needs {least} tokens), so nothing was sent to {self.name}: "
            "raise context_budget_tokens"
        )

    def _no_text(self, tool_call: bool) -> ModelError:
        """A finished reply that holds no answer: said so, never shown as an empty answer."""
        what = "a tool call instead of an answer" if tool_call else "no answer text"
        return ModelUnavailableError(f"{self.name} at {self.host} sent {what}")

    @property
    def total_deadline_s(self) -> float:
        """The most one `answer()` can take, retries and waits included."""
        return total_deadline_s(self.timeout_s, self.max_retries)

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
        """The `Answerer` signature (answerers.py); the gate already passed and the model
        reads the question itself, so `gate`, `query_vector` and `query_pieces` are
        unused, and of `analysis` only the names no document holds are told it."""
        messages: list[Message] = []
        citable: list[RetrievedChunk] = []  # what past turns showed the model
        for turn in history:
            turn_envelope, turn_chunks = build_envelope(turn.chunks, self.budget_tokens)
            messages.append(user(build_user_message(turn_envelope, turn.question)))
            messages.append(assistant(turn.answer))
            citable.extend(turn_chunks)
        envelope, included = build_envelope(chunks, self.budget_tokens)
        if chunks and not included:
            raise self._no_passage_fits(chunks)
        unseen = analysis.unseen_names if analysis is not None else ()
        messages.append(user(build_user_message(envelope, question, unseen)))
        resolver = CitationResolver(included, earlier=citable)
        deadline = time.monotonic() + self.total_deadline_s
        call = Call(model or self.model, system_prompt(json_mode), deadline, cancel)
        if json_mode:
            return self._answer_json(call, messages, resolver)
        return self._answer_streaming(call, messages, resolver, on_delta)

    # -- what a subclass provides -------------------------------------------------------

    @abstractmethod
    def _stream(self, call: Call, messages: list[Message]) -> Iterator[str | Stop]:
        """The reply's text pieces as they arrive, then one Stop."""

    @abstractmethod
    def _create(self, call: Call, messages: list[Message]) -> tuple[str, str | None]:
        """One whole reply (no streaming) and why it stopped (CUT_OFF, REFUSAL or None)."""

    @abstractmethod
    def _sdk(self) -> ModuleType:
        """The SDK module, whose exception classes (APIStatusError, …) we translate."""

    @abstractmethod
    def _status_detail(self, exc: Any) -> tuple[str, str]:
        """(error kind, the server's message) from an APIStatusError; either may be ''."""

    def _special_status(
        self, status: int, kind: str, detail: str, attempts: str
    ) -> ModelError | None:
        """A status this service words its own way (Anthropic's 529 overloaded, a local
        server's 404 for a model it does not have). A ModelUnavailableError is retried
        like any 5xx; any other error is final."""
        return None

    # -- text mode: stream ------------------------------------------------------------

    def _answer_streaming(
        self,
        call: Call,
        messages: list[Message],
        resolver: CitationResolver,
        on_delta: Callable[[str], None] | None,
    ) -> Answer:
        parts: list[str] = []  # as the model wrote it
        shown: list[str] = []  # as the user sees it: each citation checked (cited_stream.py)
        stops: list[str | None] = []
        guard = CitationGuard(resolver)
        whole = WholeText()
        received = [0]  # characters of text so far

        def show(piece: str) -> None:
            if piece:
                shown.append(piece)
                if on_delta is not None:
                    on_delta(piece)

        def attempt() -> None:
            for item in self._stream(call, messages):
                if isinstance(item, Stop):
                    stops.append(item.reason)
                    continue
                text = whole.feed(item)
                received[0] += len(text)
                self._within_max_tokens(received[0])
                parts.append(text)
                show(guard.feed(text))
                if time.monotonic() > call.deadline:
                    raise ModelUnavailableError(
                        f"{self.name} at {self.host} did not finish the answer "
                        f"within {self.total_deadline_s:g} s"
                    )

        def flush() -> None:
            last = whole.flush()
            parts.append(last)
            show(guard.feed(last) + guard.flush())

        try:
            self._with_retries(attempt, call, started=lambda: bool(parts))
        except ModelError:
            flush()  # what was held back is shown before the error
            raise
        flush()
        text = "".join(parts)
        answer = self._answer_from(
            "".join(shown), resolver, find_markers(text, resolver), parse_confidence(text)
        )
        if stops and stops[-1] == CUT_OFF:
            answer.warnings.append(
                f"warning: the answer was cut off at the {self.max_tokens}-token limit"
            )
        elif stops and stops[-1] == UNFINISHED:
            answer.warnings.append(
                f"warning: {self.name} ended the stream without finishing the answer"
            )
        elif stops and stops[-1] == REFUSAL:
            # The model's own safety stop: whatever it wrote is not an answer.
            answer.refused, answer.confidence, answer.citations = True, "low", []
            answer.warnings.append("warning: the model declined to answer this question")
        return answer

    # -- --json: validate, retry once with the error -----------------------------------

    def _answer_json(
        self, call: Call, messages: list[Message], resolver: CitationResolver
    ) -> Answer:
        first_text, first_stop = self._create_with_retries(call, messages)
        try:
            reply = parse_json_reply(first_text)
        except InvalidReply as first_error:
            reason = self._explain(first_error, first_stop)
            # The failed reply goes mid-conversation and the request ends on a user turn:
            # the model sees what it said and why it was rejected.
            retry_messages = [
                *messages,
                assistant(first_text),
                user(
                    f"Your reply was not valid: {reason}. Reply again with only the JSON "
                    "object described in the instructions: no code fence, no other text."
                ),
            ]
            second_text, second_stop = self._create_with_retries(call, retry_messages)
            try:
                reply = parse_json_reply(second_text)
            except InvalidReply as second_error:
                raise ModelInvalidOutputError(
                    "the model's reply was not valid JSON twice: "
                    + self._redact(self._explain(second_error, second_stop))
                ) from None
        pairs = [(citation.source, citation.heading) for citation in reply.citations]
        guard = CitationGuard(resolver)
        said = mended(reply.answer)  # JSON's own escapes may hold half a pair too
        answer = self._answer_from(
            guard.feed(said) + guard.flush(),
            resolver,
            find_markers(said, resolver),
            reply.confidence,
            pairs,
        )
        answer.refused = answer.refused or reply.refused
        if answer.refused:
            answer.citations, answer.confidence = [], "low"
        return answer

    def _explain(self, error: InvalidReply, stop_reason: str | None) -> str:
        if stop_reason == CUT_OFF:
            return f"{error} — the reply was cut off at the {self.max_tokens}-token limit"
        return str(error)

    def _create_with_retries(self, call: Call, messages: list[Message]) -> tuple[str, str | None]:
        text, stop = self._with_retries(
            lambda: self._create(call, messages), call, started=lambda: False
        )
        self._within_max_tokens(len(text))
        return mended(text), stop

    def _within_max_tokens(self, characters: int) -> None:
        if characters > self.max_tokens * MAX_CHARS_PER_TOKEN:
            raise ModelUnavailableError(
                f"{self.name} at {self.host} sent more text than {self.max_tokens} tokens "
                f"can hold (over {self.max_tokens * MAX_CHARS_PER_TOKEN} characters): does "
                "it ignore max_tokens?"
            )

    def _answer_from(
        self,
        text: str,
        resolver: CitationResolver,
        markers: list[str],
        confidence: Confidence,
        pairs: Sequence[tuple[str, str]] = (),
    ) -> Answer:
        body, stated = split_confidence(text)  # the Answer carries the confidence
        if is_refusal(body):
            return Answer(
                text=body, refused=True, mode=self.mode, confidence_in_text=stated is not None
            )
        citations, warnings = resolver.resolve(markers, pairs)
        return Answer(
            text=body,
            citations=citations,
            confidence=confidence,
            refused=False,
            mode=self.mode,
            warnings=warnings,
            confidence_in_text=stated is not None,
        )

    # -- retries and errors --------------------------------------------------------------

    def _with_retries(self, attempt: Callable[[], T], call: Call, started: Callable[[], bool]) -> T:
        deadline, cancel = call.deadline, call.cancel
        tries = 0
        while True:
            tries += 1
            began = time.monotonic()
            try:
                if cancel is not None:
                    cancel.check()  # (before each attempt: a cancel during the last wait)
                return attempt()
            except Exception as exc:
                # A cancelled call's socket was shut down under it: whatever the SDK made
                # of that (a connection error, a half stream) is the cancel, never retried.
                if cancel is not None and cancel.cancelled:
                    raise Cancelled(CANCELLED) from None
                if isinstance(exc, ModelError):
                    raise
                ended = time.monotonic()
                # which limit ended a timeout: the answer's deadline only once it has come
                cut = ended >= deadline - DEADLINE_SLACK_S
                failure = self._classify(exc, tries, ended - began, cut)
                if failure is None:
                    raise  # not an API failure (e.g. on_delta raised): not ours to translate
            if started():
                raise ModelUnavailableError(
                    f"{failure.error} — the answer stopped part-way", status=failure.error.status
                ) from None
            if not failure.retryable or tries > self.max_retries:
                raise failure.error from None
            if failure.wait_s is not None and failure.wait_s > MAX_RETRY_AFTER_S:
                # (The server's wait replaces an overload's "try again shortly".)
                said = str(failure.error).removesuffix(TRY_AGAIN_SHORTLY)
                raise ModelUnavailableError(
                    f"{said} — {_asked_wait(failure.wait_s)}", status=failure.error.status
                ) from None
            wait_s = failure.wait_s
            if wait_s is None:
                backoff = min(INITIAL_BACKOFF_S * 2 ** (tries - 1), MAX_BACKOFF_S)
                wait_s = backoff * random.uniform(0.75, 1.0)
            if time.monotonic() + wait_s + self.timeout_s > deadline:
                raise failure.error from None
            if cancel is not None:
                cancel.sleep(wait_s)  # a cancel ends the wait
            else:
                self._sleep(wait_s)

    def _classify(
        self, exc: Exception, tries: int, took_s: float = 0.0, deadline_passed: bool = False
    ) -> Failure | None:
        too_large = _cause_of_kind(exc, ReplyTooLarge)
        if too_large is not None:  # (the anthropic SDK wraps it as a connection error)
            message = f"{self.name} at {self.host} sent too long a reply ({too_large})"
            return Failure(ModelUnavailableError(message), retryable=False)
        undecodable = _cause_of_kind(exc, ReplyUndecodable)
        if undecodable is not None:  # the server answered: "could not reach" would be false
            message = f"{self.name} at {self.host} sent a reply that cannot be decompressed"
            return Failure(ModelUnavailableError(f"{message} ({undecodable})"), retryable=False)
        sdk, transport = self._sdk(), _transport_errors()
        attempts = f"{tries} attempt" + ("" if tries == 1 else "s")
        if isinstance(exc, sdk.APIStatusError):
            return self._classify_status(exc, attempts)
        if isinstance(exc, sdk.APITimeoutError) or (
            isinstance(exc, transport) and "timeout" in type(exc).__name__.lower()
        ):
            message = self._timed_out(took_s, deadline_passed)
            return Failure(ModelUnavailableError(f"{message} ({attempts})"), retryable=True)
        if isinstance(exc, (sdk.APIConnectionError, *transport)):
            reason = "connection refused" if connection_refused(exc) else "connection failed"
            return Failure(
                ModelUnavailableError(
                    f"could not reach {self.name} at {self.host}: {reason} ({attempts})"
                ),
                retryable=True,
            )
        if isinstance(exc, sdk.APIError):
            return Failure(
                ModelUnavailableError(self._redact(f"{self.name} failed: {exc.message}")),
                retryable=False,
            )
        return None

    def _timed_out(self, took_s: float, deadline_passed: bool) -> str:
        """Which limit ended the attempt. A silent server trips the per-request timeout;
        one that sends a byte now and then never does, and runs on until the whole
        answer's deadline (call_deadline.py) cuts it, possibly many times timeout_s
        later: naming timeout_s then would understate the wait the user just sat through.
        Told apart by the clock, not by the attempt's length: a server that sent for a
        while and then fell silent took longer than timeout_s, yet the per-request
        timeout ended it, long before the answer's limit (review22)."""
        if not deadline_passed or self.total_deadline_s <= self.timeout_s:
            return f"{self.name} at {self.host} did not answer within {self.timeout_s:g} s"
        return (
            f"{self.name} at {self.host} kept the connection open for {took_s:.0f} s without "
            f"finishing the answer, until the answer's time limit of {self.total_deadline_s:g} s "
            "(api_max_retries + 1 times api_timeout_s, plus retry waits) ended it"
        )

    def _classify_status(self, exc: Any, attempts: str) -> Failure:
        status: int = exc.status_code
        kind, server_message = self._status_detail(exc)
        kind = kind or "error"
        # An `error` event inside a 200 stream carries its kind only in the body.
        where = f"{status} {kind}" if status >= 400 else f"{kind} during the stream"
        detail = self._redact(where + (f": {server_message}" if server_message else ""))
        headers = exc.response.headers
        if 300 <= status < 400:  # not followed (call_deadline.py): said, not retried
            return Failure(self._redirected(status, headers), retryable=False)
        if status in (401, 403):
            message = f"{self.name} rejected the key ({detail}) — check {self.key_env}"
            return Failure(ModelAuthError(message, status=status), retryable=False)
        # The request's own fault (not retried), unless the server says it timed out (408)
        # or conflicted (409); a status < 400 is an error event inside a 200 stream.
        client_error = 400 <= status < 500 and status not in (408, 409)
        shown_status = status if status >= 400 else None
        special = self._special_status(status, kind, detail, attempts)
        if special is not None and not isinstance(special, ModelUnavailableError):
            return Failure(special, retryable=False)
        if special is not None:
            error: ModelError = special
        elif status == 429 or kind == "rate_limit_error":
            message = f"{self.name} is rate limiting this key ({detail}) after {attempts}"
            error = ModelUnavailableError(message, status=shown_status)
        elif not client_error:
            message = f"{self.name} failed ({detail}) after {attempts}"
            error = ModelUnavailableError(message, status=shown_status)
        else:
            message = f"{self.name} rejected the request ({detail})"
            return Failure(ModelRequestError(message, status=status), retryable=False)
        should_retry = headers.get("x-should-retry") if headers is not None else None
        return Failure(error, retryable=should_retry != "false", wait_s=retry_after_s(headers))

    def _redirected(self, status: int, headers: Any) -> ModelError:
        location = headers.get("location") if headers is not None else None
        where = f"redirecting to {location[:200]}" if location else "redirecting nowhere"
        return ModelUnavailableError(
            self._redact(
                f"{self.name} at {self.host} answered {status} {where}; ragd follows no "
                f"redirect (it would send the question and its documents on) — is "
                f"{self.url_setting} right?"
            ),
            status=status,
        )

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[redacted]") if self._api_key else text


def _transport_errors() -> tuple[type[Exception], ...]:
    # A failure while reading a stream's body surfaces as the HTTP library's own
    # exception, not the SDK's; which library that is depends on the SDK version.
    # Only libraries already imported (by the SDK) count: importing another is waste.
    modules = (sys.modules.get(name) for name in ("httpx2", "httpx"))
    return tuple(module.TransportError for module in modules if module is not None)


def _cause_of_kind(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """`exc` or the first exception of `kind` in what caused it (a short chain: SDKs wrap
    transport errors once or twice; a cycle cannot loop)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


# A timeout this close to the answer's deadline is the deadline's (the transport cuts each
# operation's timeout to the time left, and a socket timeout can fire a hair early).
DEADLINE_SLACK_S = 0.05


def total_deadline_s(timeout_s: float, max_retries: int) -> float:
    """The most one `answer()` of a model answerer with these settings can take, retries
    and waits included (known before the answerer, and its SDK, is built)."""
    return (max_retries + 1) * timeout_s + max_retries * MAX_RETRY_AFTER_S
