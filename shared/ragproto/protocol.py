"""Wire format: one JSON object per ZeroMQ frame.

Request (client → daemon, one frame on a DEALER socket)::

    {"v": 1, "id": "c1f3…", "op": "search", "args": {"query": "…", "top_k": 5}}

Reply frames (daemon → client; a request gets zero or more non-final frames, then
exactly one final frame)::

    {"v": 1, "id": "c1f3…", "ok": true,  "kind": "delta",    "data": {"text": "…"}, "pending": 0}
    {"v": 1, "id": "c1f3…", "ok": true,  "kind": "wait",     "data": {},           "pending": 0}
    {"v": 1, "id": "c1f3…", "ok": true,  "kind": "final",    "data": {…},          "pending": 2}
    {"v": 1, "id": "c1f3…", "ok": false, "kind": "final",
     "error": {"type": "bad_request", "message": "…"}, "pending": 0}

A `wait` frame says an answer is still being worked on: sent every WAIT_INTERVAL_S (or a
quarter of the model call's deadline, when that is shorter) while a model call runs, so a
client that bounds the silence between frames (ASK_TIMEOUT_S) leaves the model call's own
deadline to end it, with the error that names what did not answer. Readers skip it.

A client that stops listening to a request (Ctrl-C in `rag ask` or `rag chat`, an MCP
host's `notifications/cancelled`) sends, on the same connection::

    {"v": 1, "id": "9a0b…", "op": "cancel", "args": {"id": "c1f3…"}}

The daemon stops working on that request of that connection (ids are per connection:
another client's cancel for the same id reaches nothing), sends the cancelled request
nothing more, and answers the cancel itself with `{"cancelled": true}` (false when it had
no such request under way: already answered, or never sent). A daemon that does not know
the op answers `unknown_op`, which a client leaving anyway ignores. A client that goes
away without a word is noticed at the next `wait` frame (the connection is gone).

`pending` is on every frame: how many files the index writer still has to apply, so a
reader always knows how fresh the answer is. Errors are typed (see ragproto.errors).
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

PROTOCOL_VERSION = 1

# Frames larger than this are refused by the daemon's socket (ZMQ_MAXMSGSIZE) without
# being buffered whole; the default leaves ample room for any legitimate request.
DEFAULT_MAX_MESSAGE_BYTES = 1 << 20

# The daemon's limit, told in its ZMTP handshake (READY carries this property, libzmq's
# ZMQ_METADATA): a socket that refuses a frame drops the connection and cannot reply, so
# a client that knows the limit refuses a request over it itself, in one line, where a
# drop looked like the daemon going away. Absent from an older daemon's handshake.
MAX_MESSAGE_PROPERTY = "X-Max-Message-Bytes"

# The gate's fixed refusal: what the user sees when nothing in the documents supports
# an answer. It is also the sentence the model is told to use (the second gate).
REFUSAL_SENTENCE = (
    "I don't know — the indexed documents don't contain enough relevant information to answer that."
)

Kind = Literal["delta", "wait", "final"]


class ErrorBody(TypedDict):
    type: str
    message: str


class Request(TypedDict):
    v: int
    id: str
    op: str
    args: dict[str, Any]


class Reply(TypedDict, total=False):
    v: int
    id: str
    ok: bool
    kind: Kind
    data: dict[str, Any]
    error: ErrorBody
    pending: int


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def decode(frame: bytes) -> dict[str, Any]:
    """Parse one frame; raises ValueError with a human-readable reason."""
    try:
        value = json.loads(frame.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"frame is not UTF-8 ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"frame is not JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:  # `[[[[…` past the reader's depth, from either side of the socket
        raise ValueError("frame is not JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise ValueError(f"frame must be a JSON object, got {type(value).__name__}")
    if _deeper_than(value, MAX_FRAME_DEPTH):
        raise ValueError(f"frame is not JSON (nested too deeply: past {MAX_FRAME_DEPTH} levels)")
    return value


# No frame either side sends nests more than a few levels (a status's roots, a search's
# results and their spans); past this a frame is hostile or broken. Python's reader takes
# up to about 1,000 levels, and the walks that read a reply afterwards (`rag`'s
# terminal-safe rendering, two frames a level) ran out of stack at about 490: review77's
# peer nesting `[` 600 deep in `data` was a RecursionError traceback from every command.
MAX_FRAME_DEPTH = 64


def _deeper_than(value: Any, limit: int) -> bool:
    """Does `value` hold lists or objects nested more than `limit` deep? A walk with its
    own stack (no recursion), each value seen once."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def make_request(op: str, args: dict[str, Any], request_id: str) -> Request:
    return {"v": PROTOCOL_VERSION, "id": request_id, "op": op, "args": args}


def ok_reply(request_id: str, data: dict[str, Any], pending: int, kind: Kind = "final") -> Reply:
    return {
        "v": PROTOCOL_VERSION,
        "id": request_id,
        "ok": True,
        "kind": kind,
        "data": data,
        "pending": pending,
    }


def error_reply(request_id: str, type_name: str, message: str, pending: int) -> Reply:
    return {
        "v": PROTOCOL_VERSION,
        "id": request_id,
        "ok": False,
        "kind": "final",
        "error": {"type": type_name, "message": message},
        "pending": pending,
    }


# -- request limits, checked by both sides: the client (argparse, the MCP tools' schema)
# refuses before sending, the daemon (ragd/serve) answers a typed bad_request --------
TOP_K_MIN, TOP_K_MAX = 1, 50  # search results / passages given to an answer
# A question or query longer than this is refused: the encoder reads its first ≈ 200 words
# (256 word pieces) and BM25 a few dozen terms, so a pasted page would be judged by a fraction.
MAX_QUESTION_CHARS = 4096
MIN_SCORE_MIN, MIN_SCORE_MAX = 0.0, 1.0  # `min_score`: a support score floor

# -- how long a client waits for the daemon: the silence allowed between frames --------
REPLY_TIMEOUT_S = 30.0  # any op but `ask`
ASK_TIMEOUT_S = 180.0  # silence during an answer (a model call sends `wait` frames)
# A `wait` frame at least this often while a model call runs: also how soon the daemon
# notices an asking client that went away without a word (the frame has nowhere to go).
WAIT_INTERVAL_S = 10.0
CANCEL_OP = "cancel"  # {"id": the request to stop}: see the module docstring


def citation(source: str, heading: str) -> str:
    """How a cited section is written, in answers and wherever a citation is shown. A
    bracket that could close the citation, or open another inside it, is written after a
    backslash, so a heading cannot close its own citation and write another: `Fares] ›
    "Dogs ride free." [handbook.md:Pets` made a keyless answer show a quote that seemed to
    be another document's (`ragd.query.model_replies.find_markers` reads them back). A
    pair of brackets holding no colon, backslash or bracket is written as it is, as
    `rag search` shows the heading: `Change Log > [2.3.9] - 2023-01-02` (a Markdown
    change log's `## \\[2.3.9\\]`), not `… > \\[2.3.9\\] - …`."""
    return f"[{_in_brackets(source)}:{_in_brackets(heading)}]"


_IN_A_PLAIN_PAIR = frozenset("[]\\:\n")  # what a pair written as it is never holds


def _in_brackets(text: str) -> str:
    """`text` with its backslashes that an unescape would read (before a bracket, a
    backslash or the end) and its brackets outside plain pairs escaped. Linear: the
    scan for a pair's `]` stops at the first character a plain pair cannot hold, and
    the pair is then passed over whole."""
    out: list[str] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char == "[":
            end = at + 1
            while end < len(text) and text[end] not in _IN_A_PLAIN_PAIR:
                end += 1
            if end < len(text) and text[end] == "]":  # a plain pair: as it is
                out.append(text[at : end + 1])
                at = end + 1
                continue
            out.append("\\[")
        elif char == "]":
            out.append("\\]")
        elif char == "\\" and (at + 1 == len(text) or text[at + 1] in "[]\\"):
            out.append("\\\\")
        else:
            out.append(char)
        at += 1
    return "".join(out)
