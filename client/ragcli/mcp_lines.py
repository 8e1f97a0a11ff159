"""`rag mcp`: host lines the SDK would drop without a word are answered here.

JSON-RPC 2.0 answers a line that is not JSON with a parse error (id null) and a request
without a method with an invalid-request error carrying its id. The MCP SDK logs
nothing and replies nothing to either, so a host that sent `{"jsonrpc":"2.0","id":5}`
waited for reply 5 for ever. The same holds for every line the SDK's message model
refuses (a method that is not a string, `jsonrpc` other than "2.0", params that are not
an object, nesting deeper than its parser reads) and for an id that is not a string or
an integer (`15.0`: the SDK reads the request as a notification), so each of those is
answered too, with its id; a line nested too deep for Python's own parser is a parse
error, never an exception that ends the relay. `LineGate` splits what the host writes
into lines on the way to the SDK: a complete line that is one of those is answered to the
host and not passed on; everything else goes through as it came. Every line is checked,
however long: a bad request of 2 MB (a pasted question cut inside an emoji) was passed on
unchecked and dropped by the SDK, so its host waited for ever. A line is gathered as a
list of its reads and joined once, and parsed once, before the SDK (which gathers and
parses it in turn) sees it, so the two never hold a long line's objects at once. One past
`MAX_LINE` is dropped as it comes (a parse error to the host), since the SDK would gather
whatever it is given.

Standard library only: this runs before the SDK is imported.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from typing import Any

# The longest line passed on at all. The SDK gathers a line whole before it parses it, so
# a host writing without end (`rag mcp < /dev/zero`, a runaway host) made `rag mcp` grow
# by 0.5 GB a second (10 GB in 20 s, by hand). Past this, what was held of the line is let
# go and the rest is read and dropped here (the SDK sees none of it), and the host gets a
# parse error for it, so the next line is served as usual.
MAX_LINE = 64 << 20
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
# The deepest nesting the SDK reads: its JSON parser (pydantic-core's) refuses a line
# deeper than this, and the SDK then drops it without a reply.
MAX_DEPTH = 201
# The most JSON values a line may hold before anything parses it. Python's parser and the
# SDK's each build an object per value: a 50 MB line of empty arrays (17 million) made
# `rag mcp` 3.2 GB and took 89 s. A request this server answers holds a few dozen (a
# question, up to 32 `in` paths); its commas and brackets, counted in C, bound its values.
MAX_VALUES = 100_000
# Methods the SDK serves only once a session is initialised (`ping` is always served; a
# method it does not serve is "Method not found" before and after).
SESSION_METHODS = frozenset(
    (
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "prompts/list",
        "prompts/get",
    )
)
HEAD_BYTES = 4096  # where the id of a line too large to read is looked for


def refusal(line: bytes) -> bytes | None:
    """The error reply for a line the SDK would drop without a word, or None to pass it on."""
    return _checked(line)[0]


def _checked(line: bytes) -> tuple[bytes | None, Any]:
    """(the error reply or None, the line read as JSON): one parse serves the check and
    the count of requests in flight (a line may be megabytes)."""
    text = line.strip()
    if not text:
        return None, None
    if sum(text.count(mark) for mark in (b",", b"[", b"{")) > MAX_VALUES:
        too_many = f"Invalid Request: more than {MAX_VALUES:,} JSON values"
        return _error(_leading_id(text), INVALID_REQUEST, too_many), None
    try:
        message = json.loads(text)
    except ValueError:  # (UnicodeDecodeError is one)
        return _error(None, PARSE_ERROR, "Parse error: the line is not JSON"), None
    except RecursionError:  # valid JSON nested past the interpreter's depth
        depth = f"Parse error: nested deeper than {MAX_DEPTH} levels"
        return _error(None, PARSE_ERROR, depth), None
    if not isinstance(message, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: not a JSON object"), None
    if "method" not in message and {"result", "error"} & message.keys():
        return None, message  # the host's reply to a request of ours: nobody waits for one
    problem = _request_problem(message)
    if problem is None:
        return None, message
    return _error(message.get("id"), INVALID_REQUEST, f"Invalid Request: {problem}"), None


def _leading_id(text: bytes) -> Any:
    """The id of a line too large to parse, when it comes ahead of the params, as hosts
    write it (`{"jsonrpc":"2.0","id":9,"method":…,"params":…}`); else None. Only the
    line's head is read, and only the small values of those three keys."""
    head = text[:HEAD_BYTES].decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    at = _past_spaces(head, 0)
    if not head.startswith("{", at):
        return None
    at += 1
    try:
        while True:
            key, at = decoder.raw_decode(head, _past_spaces(head, at))
            at = _past_spaces(head, at)
            if key not in ("jsonrpc", "id", "method") or not head.startswith(":", at):
                return None
            value, at = decoder.raw_decode(head, _past_spaces(head, at + 1))
            if key == "id":
                return value
            at = _past_spaces(head, at)
            if not head.startswith(",", at):
                return None
            at += 1
    except ValueError:  # the head ends inside a value, or is not JSON there
        return None


def _past_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _request_problem(message: dict[str, Any]) -> str | None:
    """Why the SDK's JSON-RPC model would refuse this request or notification (it then
    drops it), or None. Each rule is one the SDK applies: a request whose id is not a
    string or an integer (`15.0`, `true`, `null`) it even reads as a notification."""
    if "method" not in message:
        return "no method"
    if not isinstance(message["method"], str):
        return "the method is not a string"
    if message.get("jsonrpc") != "2.0":
        return 'jsonrpc is not "2.0"'
    if "id" in message and not _is_sdk_id(message["id"]):
        return "the id is neither a string nor an integer"
    if message.get("params") is not None and not isinstance(message["params"], dict):
        return "params is not an object"
    if _depth(message) > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} levels"
    if _holds_a_lone_surrogate(message):
        return "a string holds half of a UTF-16 surrogate pair (a lone \\ud800-\\udfff)"
    return None


def _is_sdk_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _holds_a_lone_surrogate(message: dict[str, Any]) -> bool:
    """Does a string of `message`, a key or a value, hold half of a surrogate pair? JSON
    may escape one (`"ferry \\ud83d"`: JavaScript's JSON.stringify writes a string cut
    inside an emoji so) and Python reads it, but the SDK's parser refuses the whole line
    and drops it: no reply, and the request counted in flight for good (64 of them and
    the gate passed nothing more). No UTF-8 can carry one, which is how it is found."""
    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _depth(value: Any) -> int:
    """How deep objects and arrays nest in `value` (1: a flat object); one visit per value."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        deepest = max(deepest, level)
        stack.extend((c, level + 1) for c in children if isinstance(c, dict | list))
    return deepest


def _error(request_id: Any, code: int, message: str) -> bytes:
    if isinstance(request_id, float) and request_id == request_id and abs(request_id) < 1e300:
        pass  # a number id (`15.0`) is echoed as sent: the host matches replies by it
    elif not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None  # an id JSON-RPC does not allow is answered as unknown
    reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(reply, separators=(",", ":")).encode() + b"\n"


# Requests handed to the SDK and not yet answered, at most. The SDK reads every line it is
# given at once and starts a task for each request, whose reply then waits to be written:
# a host that writes requests and never reads our stdout (or reads slower than it writes)
# grew `rag mcp` by 12 MB a second, 354 MB in 30 s, by hand. Past this many, the host's
# stdin is not read until a reply goes out, so the host meets a full pipe instead.
MAX_IN_FLIGHT = 64
_REPLY_HEAD = '{"jsonrpc":"2.0","id":'  # how the SDK writes every reply it sends
_HEAD_CHARS = 1 << 16


class InFlight:
    """The ids of the requests the SDK holds unanswered. `admit` waits while `limit` are;
    a reply, or the host's `notifications/cancelled` (the SDK never answers a request it
    was told to cancel), settles one."""

    def __init__(self, limit: int = MAX_IN_FLIGHT) -> None:
        self.limit = limit
        self._ids: set[str] = set()
        self._cond = threading.Condition()
        self._closed = False

    def host_line(self, line: bytes) -> None:
        """A complete line from the host, on its way to the SDK (waits for room)."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return
        self.host_message(message)

    def host_message(self, message: Any) -> None:
        """`host_line` for a line already read as JSON."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return  # the host's reply to a request of ours
        if "id" in message:
            self._admit(_key(message["id"]))
        elif message["method"] == "notifications/cancelled":
            params = message.get("params")
            if isinstance(params, dict) and "requestId" in params:
                self._settle(_key(params["requestId"]))

    def sdk_line(self, line: bytes) -> None:
        """A line the SDK wrote: a reply settles its request. Its id is read from the head
        the SDK writes (a `get` reply may be megabytes), the whole line only otherwise."""
        head = line[:_HEAD_CHARS].decode("utf-8", "replace")
        if head.startswith(_REPLY_HEAD):
            try:
                request_id, end = json.JSONDecoder().raw_decode(head, len(_REPLY_HEAD))
            except ValueError:
                pass
            else:
                if head.startswith((',"result"', ',"error"'), end):
                    self._settle(_key(request_id))
                return
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return
        if isinstance(message, dict) and "method" not in message and "id" in message:
            self._settle(_key(message["id"]))

    def settled(self, timeout: float) -> bool:
        """Wait until no request is unanswered (or the SDK has stopped), `timeout` at
        most; whether none is."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._ids or self._closed, timeout)

    def close(self) -> None:
        """The SDK has stopped: nothing waits for its replies any more."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _admit(self, key: str) -> None:
        with self._cond:
            while len(self._ids) >= self.limit and key not in self._ids and not self._closed:
                self._cond.wait()
            self._ids.add(key)

    def _settle(self, key: str) -> None:
        with self._cond:
            self._ids.discard(key)
            self._cond.notify_all()

    def __len__(self) -> int:
        with self._cond:
            return len(self._ids)


def _key(request_id: Any) -> str:
    """One spelling for an id as the SDK reads it: a string `int()` takes is that integer
    ("7" and 7 are one request to the SDK, which cancels request 7 on a
    `notifications/cancelled` naming "7" and never answers it; kept apart here, request 7
    stayed in flight, and `rag mcp` waited EOF_DRAIN_S at the end of its input)."""
    if isinstance(request_id, str) and (number := _int_or_none(request_id)) is not None:
        request_id = number
    return json.dumps(request_id, sort_keys=True)


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:  # (not a number, or past Python's digit limit for int())
        return None


class LineGate:
    """The host's bytes, line by line, to `forward`; refused lines' replies to `answer`;
    with `in_flight`, a request waits there for room before it is forwarded."""

    def __init__(
        self,
        forward: Callable[[bytes], None],
        answer: Callable[[bytes], None],
        longest: int = MAX_LINE,
        in_flight: InFlight | None = None,
    ) -> None:
        self.forward, self.answer, self.longest = forward, answer, longest
        self.in_flight = in_flight
        self._initialized = False  # an `initialize` request went on to the SDK
        self._held: list[bytes] = []  # the line so far, as it came: joined once, at its end
        self._held_bytes = 0
        self._dropping = False  # this line passed `longest`: read and dropped to its end

    def feed(self, chunk: bytes) -> None:
        start = 0
        while start < len(chunk):
            cut = chunk.find(b"\n", start)
            end = len(chunk) if cut < 0 else cut + 1
            self._part(chunk[start:end], complete=cut >= 0)
            start = end

    def close(self) -> None:
        """The host closed its end: a last line without its newline goes on unchecked."""
        if self._held:
            self.forward(b"".join(self._held))
        self._held, self._held_bytes = [], 0

    def _part(self, part: bytes, complete: bool) -> None:
        if not self._dropping and self._held_bytes + len(part) > self.longest:
            self._held, self._held_bytes, self._dropping = [], 0, True  # let go at once
        if not self._dropping:
            self._held.append(part)
            self._held_bytes += len(part)
        if complete:
            if self._dropping:
                self.answer(_error(None, PARSE_ERROR, f"Parse error: {self._too_long()}"))
            else:
                line = b"".join(self._held)
                self._held, self._held_bytes = [], 0
                self._line(line)
            self._held, self._held_bytes, self._dropping = [], 0, False

    def _session_problem(self, request: dict[str, Any]) -> bytes | None:
        """The error for a request the SDK would answer only with `-32602 Invalid request
        parameters` and empty data: one of the methods it serves sent before `initialize`
        (good params and all), or a `tools/call` whose name or arguments have no shape.
        The same code, with what is wrong in the message."""
        method = request.get("method")
        if method == "initialize":
            self._initialized = True
            return None
        problem = None
        if not self._initialized and method in SESSION_METHODS:
            problem = f"{method} before initialize; send initialize first"
        elif method == "tools/call":
            params = request.get("params") or {}
            if not isinstance(params.get("name"), str):
                problem = "tools/call: params.name must be a string (the tool's name)"
            elif not isinstance(params.get("arguments", {}), dict | None):
                problem = "tools/call: params.arguments must be an object (name: value)"
        if problem is None:
            return None
        return _error(request["id"], INVALID_PARAMS, f"Invalid request parameters: {problem}")

    def _too_long(self) -> str:
        return f"the line is longer than {self.longest >> 20} MiB"

    def _line(self, line: bytes) -> None:
        reply, message = _checked(line)
        if reply is None and isinstance(message, dict) and "id" in message:
            reply = self._session_problem(message)
        if reply is not None:
            self.answer(reply)
            return
        if self.in_flight is not None:
            self.in_flight.host_message(message)
        del message  # a long line's objects go before the SDK builds its own
        self.forward(line)


class HostOut:
    """Our stdout to the host, written whole lines at a time by two threads (the SDK's
    relay and the gate's replies), so no reply lands inside another."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
