"""A hard end for one model call, enforced where the server's bytes arrive.

An HTTP library's timeouts are per operation: a read times out only when *no* byte comes
for that long. A server that sends one byte a second (an SSE keep-alive comment, empty
deltas, a body it never finishes) never trips them, and `answer()` would never return.
So each answerer gives its SDK an HTTP client whose transports are wrapped: while a call
is under way (`with deadline.until(t)`), every operation's timeout is cut to the time
left, and every piece of the response is checked against the deadline and a size cap (a
reply of a few thousand tokens is kilobytes; megabytes mean a broken or hostile server,
and what it sends is held in memory). The cap counts the reply as the SDK reads it: a
compressed body (`Content-Encoding: gzip`) is inflated here, piece by bounded piece,
and counted as it grows, since 8 MB of gzip inflate to about 8 GB (attack61).

The client is the SDK's own default one (its connection limits, and the proxies the
environment names: those are transports too, so they are wrapped as well), except that
it follows no redirect: an API does not redirect a POST, and following one sent the
question and its documents wherever a server pointed (another host too), a loop taking
21 requests an attempt (attack61). A 3xx reaches the answerer, which names it. Both SDKs
use `httpx2`; it is imported only here, when an answerer is built.

A call can be cancelled too (query/cancellation.py: its client gave up). The connections
the pools open are wrapped (`_WakeableBackend`): while the calling thread reads from or
writes to one, a cancel of that thread's call shuts its socket down, which ends the
blocked read at once (end-of-file; `close()` from another thread would not), waiting
for headers or in the middle of a stream alike, and the SDK's error ends the attempt.
Which socket is the call's is known by the thread: the SDKs read on the calling thread.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragd.query.cancellation import Cancel

MAX_REPLY_BYTES = 8 * 1024 * 1024
_TIMEOUTS = ("connect", "read", "write", "pool")


class ReplyTooLarge(Exception):
    """The server sent more than MAX_REPLY_BYTES for one reply."""


class ReplyUndecodable(Exception):
    """The reply's body is not in the compression its Content-Encoding names."""


class CallDeadline:
    """When the call under way in this thread must end (None: no call under way)."""

    def __init__(self) -> None:
        self._local = threading.local()  # answers run in several threads at once

    @property
    def at(self) -> float | None:
        return getattr(self._local, "at", None)

    @property
    def cancel(self) -> Cancel | None:
        """The cancellation of the call under way in this thread, if it can be cancelled."""
        return getattr(self._local, "cancel", None)

    @contextmanager
    def until(self, at: float, cancel: Cancel | None = None) -> Iterator[None]:
        previous = self.at, self.cancel
        self._local.at, self._local.cancel = at, cancel
        try:
            yield
        finally:
            self._local.at, self._local.cancel = previous


def deadline_client(sdk: ModuleType, max_bytes: int = MAX_REPLY_BYTES) -> tuple[CallDeadline, Any]:
    """The SDK's default HTTP client with every transport behind one CallDeadline."""
    import httpx2

    deadline = CallDeadline()
    client = sdk.DefaultHttpxClient()
    client.follow_redirects = False
    # httpx2 keeps no public way to wrap the transports it built (the default one and
    # one per proxy from the environment); these two attributes are where it keeps them.
    client._transport = _wrap(httpx2, client._transport, deadline, max_bytes)
    client._mounts = {
        pattern: None if inner is None else _wrap(httpx2, inner, deadline, max_bytes)
        for pattern, inner in client._mounts.items()
    }
    for transport in (client._transport, *client._mounts.values()):
        _wakeable_connections(getattr(transport, "inner", None), deadline)
    return deadline, client


def _wakeable_connections(transport: Any, deadline: CallDeadline) -> None:
    """Every connection `transport`'s pool opens from now on, wakeable by a cancel.
    (httpx2 keeps its connection pool as `_pool`, and the pool the backend that opens its
    connections as `_network_backend`, read at each connection it opens.)"""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is not None:
        pool._network_backend = _WakeableBackend(backend, deadline)  # type: ignore[union-attr]


class _WakeableBackend:
    """httpcore2's network backend, its streams wrapped in `_WakeableStream`."""

    def __init__(self, inner: Any, deadline: CallDeadline) -> None:
        self._inner, self._deadline = inner, deadline

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        return _WakeableStream(self._inner.connect_tcp(*args, **kwargs), self._deadline)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> Any:
        return _WakeableStream(self._inner.connect_unix_socket(*args, **kwargs), self._deadline)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _WakeableStream:
    """A connection whose blocking reads and writes a cancel of the calling thread's call
    ends, by shutting its socket down."""

    def __init__(self, inner: Any, deadline: CallDeadline) -> None:
        self._inner, self._deadline = inner, deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        cancel = self._deadline.cancel
        if cancel is None:
            return bytes(self._inner.read(max_bytes, timeout))
        with cancel.waking(self._shut_down):
            return bytes(self._inner.read(max_bytes, timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        cancel = self._deadline.cancel
        if cancel is None:
            self._inner.write(buffer, timeout)
            return
        with cancel.waking(self._shut_down):
            self._inner.write(buffer, timeout)

    def _shut_down(self) -> None:
        sock = self._inner.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            # socket.socket's own shutdown, not SSLSocket's (which drops its TLS state
            # under the thread still reading it): the kernel ends the blocked read.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, *args: Any, **kwargs: Any) -> Any:
        return _WakeableStream(self._inner.start_tls(*args, **kwargs), self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


def _wrap(http: ModuleType, inner: Any, deadline: CallDeadline, max_bytes: int) -> Any:
    inner_transport = inner

    class _CappedStream(http.SyncByteStream):  # type: ignore[misc, name-defined]
        """The body as the SDK will read it (inflated, when it came compressed),
        ended by the cap and the deadline. `encoding`: the Content-Encoding taken off
        the response, so the client does not inflate it a second time, unchecked."""

        def __init__(self, stream: Any, at: float, request: Any, encoding: str) -> None:
            self._stream, self._at, self._request = stream, at, request
            self._encoding = encoding

        def __iter__(self) -> Iterator[bytes]:
            received = 0
            for piece in self._pieces():
                received += len(piece)
                if received > max_bytes:
                    raise ReplyTooLarge(f"the reply passed {max_bytes // 2**20} MB{self._how}")
                if time.monotonic() > self._at:
                    raise http.ReadTimeout("the call's deadline passed", request=self._request)
                yield piece

        @property
        def _how(self) -> str:
            return " once decompressed" if self._encoding else ""

        def _pieces(self) -> Iterator[bytes]:
            if not self._encoding:
                yield from self._stream
                return
            # The library's own decoders, through its public Response: they inflate a
            # piece at a time (at most 64 KB each), so the count above stops a bomb early.
            compressed = http.Response(
                200, headers={"content-encoding": self._encoding}, stream=self._stream
            )
            try:
                yield from compressed.iter_bytes()
            except http.DecodingError as exc:
                why = f"{self._encoding}: {exc}"[:200]
                raise ReplyUndecodable(why) from None

        def close(self) -> None:
            self._stream.close()

    class _DeadlineTransport(http.BaseTransport):  # type: ignore[misc, name-defined]
        inner = inner_transport  # (its pool's connections are made wakeable)

        def handle_request(self, request: Any) -> Any:
            at = deadline.at
            if at is None:
                return inner.handle_request(request)
            left = at - time.monotonic()
            if left <= 0:
                raise http.ReadTimeout("the call's deadline passed", request=request)
            timeouts = dict(request.extensions.get("timeout") or {})
            for name in _TIMEOUTS:
                timeouts[name] = min(timeouts.get(name) or left, left)
            request.extensions["timeout"] = timeouts
            response = inner.handle_request(request)
            encoding = response.headers.get("content-encoding", "")
            if encoding.strip().lower() in ("", "identity"):
                encoding = ""  # nothing to inflate
            else:
                del response.headers["content-encoding"]  # inflated (and counted) here
            response.stream = _CappedStream(response.stream, at, request, encoding)
            return response

        def close(self) -> None:
            inner.close()

    return _DeadlineTransport()
