"""A hard end for one model call, enforced where the server's bytes arrive.

An HTTP library's timeouts are per operation: a read times out only when *no* byte comes
for that long. A server that sends one byte a second (an SSE keep-alive comment, empty
deltas, a body it never finishes) never trips them, and `answer()` would never return.
So the answerer wraps its SDK's transport in this one: while a call is under way
(`with transport.until(deadline)`), every operation's timeout is cut to the time left,
and every piece of the response is checked against the deadline and against a size cap
(a reply of a few thousand tokens is kilobytes; a server sending megabytes is broken or
hostile, and what it sends is held in memory).

The HTTP library is passed in (the openai SDK uses `httpx2`, others `httpx`): both have
the same transport and stream types, and importing one the SDK does not use is waste.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

MAX_REPLY_BYTES = 8 * 1024 * 1024
_TIMEOUTS = ("connect", "read", "write", "pool")


class ReplyTooLarge(Exception):
    """The server sent more than MAX_REPLY_BYTES for one reply."""


def deadline_transport(http: ModuleType, inner: Any, max_bytes: int = MAX_REPLY_BYTES) -> Any:
    """`inner` (an `http.BaseTransport`) behind the deadline and the size cap."""

    class _CappedStream(http.SyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, stream: Any, deadline: float, request: Any) -> None:
            self._stream, self._deadline, self._request = stream, deadline, request

        def __iter__(self) -> Iterator[bytes]:
            received = 0
            for piece in self._stream:
                received += len(piece)
                if received > max_bytes:
                    raise ReplyTooLarge(f"the reply passed {max_bytes // 2**20} MB")
                if time.monotonic() > self._deadline:
                    raise http.ReadTimeout("the call's deadline passed", request=self._request)
                yield piece

        def close(self) -> None:
            self._stream.close()

    class _DeadlineTransport(http.BaseTransport):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self._local = threading.local()  # one call per thread at a time

        @contextmanager
        def until(self, deadline: float) -> Iterator[None]:
            previous = getattr(self._local, "deadline", None)
            self._local.deadline = deadline
            try:
                yield
            finally:
                self._local.deadline = previous

        def handle_request(self, request: Any) -> Any:
            deadline = getattr(self._local, "deadline", None)
            if deadline is None:
                return inner.handle_request(request)
            left = deadline - time.monotonic()
            if left <= 0:
                raise http.ReadTimeout("the call's deadline passed", request=request)
            timeouts = dict(request.extensions.get("timeout") or {})
            for name in _TIMEOUTS:
                timeouts[name] = min(timeouts.get(name) or left, left)
            request.extensions["timeout"] = timeouts
            response = inner.handle_request(request)
            response.stream = _CappedStream(response.stream, deadline, request)
            return response

        def close(self) -> None:
            inner.close()

    return _DeadlineTransport()
