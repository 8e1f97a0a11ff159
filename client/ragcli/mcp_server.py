"""`rag mcp`: a Model Context Protocol server on stdio that forwards to the running ragd.

Agents (Claude Code, Claude Desktop, editors) start it as a subprocess and talk JSON-RPC
over its stdin/stdout. It holds no index and loads no model: every tool call is one
request to the daemon over the same socket and transport the `rag` client uses, so the
answers, the gate and the citations are exactly what `rag ask` / `rag search` give.

Imported only by the `mcp` subcommand: the SDK (with pydantic and anyio) costs far more
start-up than the rest of the client, and `rag ask/search/status` never pay for it.

Failures a caller can act on (daemon not running, a source that does not exist, an
argument out of range) come back as tool errors with the daemon's one-line reason, never
as a crash of this process.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import quote

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import Resource, ToolAnnotations
from pydantic import Field, ValidationError

from ragcli.mcp_arguments import refused_in_one_line, wrong_types
from ragcli.mcp_lines import MAX_IN_FLIGHT
from ragcli.render import message
from ragcli.scope import named_whole, scope_paths
from ragcli.transport import Connection
from ragcli.version import installed_version
from ragproto.errors import OutsideRoots, RagError
from ragproto.protocol import (
    ASK_TIMEOUT_S,
    MAX_QUESTION_CHARS,
    REPLY_TIMEOUT_S,
    TOP_K_MAX,
    TOP_K_MIN,
    citation,
)

log = logging.getLogger("ragcli.mcp")
T = TypeVar("T")

URI_SCHEME = "ragd://"
DEFAULT_LINES = 40  # lines returned by `get` when only start_line is given

INSTRUCTIONS = (
    "ragd answers questions from the user's own indexed documents (local, private). "
    "Citations look like [source:heading path]: `source` is the document as `search` shows "
    "it, the heading path is its section (H1 > H2 > …). Pass both to `get` to read the "
    "whole section. A refusal ('I don't know — …') is a real answer: the documents do not "
    "support one, so do not retry with the same question or invent an answer."
)

SCOPE = (
    " `in` limits it to folders or files: absolute paths inside the watched folders, or "
    "sources/folders as results show them (e.g. 'flask/docs'); both retrievers and the "
    "gate see only what lies there, and `scope` in the result echoes it."
)

CITATIONS = (
    " Citations have the form [source:heading path]; `get` with that source and heading "
    "returns the cited section in full."
)

SEARCH_DOC = (
    "Search the user's indexed documents; returns ranked passages, no answer. Each result "
    "has its source (a document path relative to the watched folders), its heading path "
    "(the section, 'H1 > H2'), its location when known (`lines` [first, last] for text, "
    "Markdown and code — pass them to `get` as start_line/end_line; `page` for PDFs; "
    "`cells` [first, last] for notebooks, `slides` [first, last] for decks, `rows` "
    "[first, last] of the sheet named in the heading for spreadsheets), the support score "
    "the confidence gate uses, the fusion score that orders the list, and the passage "
    "text. `gate.passed` says whether the best passage clears the support floor: when it "
    "is false, the documents probably do not answer the query." + SCOPE + CITATIONS
)

ASK_DOC = (
    "Answer a question from the user's indexed documents, with citations. The confidence "
    "gate runs first: when no passage is supported enough the reply is a refusal "
    "(refused: true, answer 'I don't know — …') and no language model is called. A refusal "
    "is a correct answer, not a failure: tell the user the documents do not cover it. "
    "The daemon's answers come from Claude or a local OpenAI-compatible model when it has "
    "one, else they are extractive (passages quoted from the documents)." + SCOPE + CITATIONS
)

IN_FIELD = Field(
    validation_alias="in",  # a Python keyword: the wire name differs from the parameter's
    description="only documents under these folders or files (paths, or sources as "
    "results show them); default: everything",
)

GET_DOC = (
    "Read a passage of an indexed document so you can look around a search hit or a "
    "citation. Give `source` exactly as search/ask show it, and either `heading` (a heading "
    "path such as 'Setup > Ports'; the section and its subsections are returned) or "
    "`start_line`/`end_line` (1-based, text files only). With neither, the whole indexed "
    "document is returned (long ones are truncated; `truncated` says so)."
)

STATUS_DOC = (
    "What the ragd daemon is doing: state (idle/indexing), watched folders, files and "
    "chunks indexed, files pending, who writes answers (Claude, a local model, or "
    "extractive quotes), and "
    "files that could not be indexed with the reason."
)

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class _OneLine(logging.Formatter):
    """`rag mcp: warning: …` on one line, terminal-safe: the reason may quote a path or
    a daemon message (a newline in it would forge a second line)."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"rag mcp: {record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info:
            text += f" ({record.exc_info[1]!r})"
        return message(text)


class _NeverBlocks(logging.Handler):
    """Log lines to stderr, dropped (and counted) while stderr cannot take them.

    A host may pipe our stderr and never read it (the MCP spec lets it ignore the log):
    once the pipe was full, a warning's write blocked, and with it every later request.
    A line goes out only when stderr is writable now; a pipe that is writable takes a
    line of at most PIPE_BUF bytes whole, without blocking."""

    def __init__(self, fd: int = 2) -> None:
        super().__init__()
        self.fd = fd
        self.dropped = 0

    def emit(self, record: logging.LogRecord) -> None:
        line = self.format(record)
        if self.dropped:
            line = (
                f"rag mcp: warning: {self.dropped} earlier log lines dropped (stderr full)\n" + line
            )
        data = (line[:MAX_LOG_LINE] + "\n").encode(errors="replace")
        try:
            _, writable, _ = select.select([], [self.fd], [], 0)
            if not writable:
                self.dropped += 1
                return
            os.write(self.fd, data[: select.PIPE_BUF])
        except (OSError, ValueError):
            self.dropped += 1  # stderr closed: nowhere to say it
            return
        self.dropped = 0


MAX_LOG_LINE = 1000  # characters: with its escapes, well within one PIPE_BUF


def _log_in_one_line() -> None:
    """The SDK's server calls `logging.basicConfig` with a rich handler, which wraps a
    message to the console's width (a five-line warning at 80 columns, one word a line
    at 20) and adds a timestamp and our file name; basicConfig does nothing when the root
    logger already has a handler, so ours goes there first."""
    root = logging.getLogger()
    if not root.handlers:
        handler = _NeverBlocks()  # stderr: stdout carries the JSON-RPC stream
        handler.setFormatter(_OneLine())
        root.addHandler(handler)
        root.setLevel(logging.WARNING)


class RagdMCP(MCPServer[Any]):
    """The SDK's server with one resource per indexed document, listed live from ragd."""

    def __init__(self, socket: str | None) -> None:
        _log_in_one_line()
        super().__init__(
            name="ragd", version=installed_version(), instructions=INSTRUCTIONS, log_level="WARNING"
        )
        self.socket = socket

    def call(
        self,
        op: str,
        args: dict[str, Any],
        timeout_s: float = REPLY_TIMEOUT_S,
        stop: threading.Event | None = None,
    ) -> dict[str, Any]:
        """One request to the daemon; its failure becomes a tool error with its reason.
        `stop`, set from another thread, cancels it (the daemon stops working on it)."""
        try:
            conn = Connection(self.socket)
        except RagError as exc:
            raise ToolError(str(exc)) from None
        try:
            final: dict[str, Any] = {}
            for reply in conn.stream(op, args, timeout_s, stop):
                final = reply
            return dict(final.get("data") or {})
        except RagError as exc:
            if isinstance(exc, OutsideRoots):  # "--in etc" for /etc: say what was sent
                exc = named_whole(exc, args)
            raise ToolError(f"ragd: {exc}") from None
        finally:
            conn.close()

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """A call naming an argument the tool does not take is an error that names it: the
        SDK's validation drops unknown arguments, so `get` with `lines` (not start_line /
        end_line) answered with the whole document instead of the lines asked for. So is
        a value of the wrong JSON type, which the SDK converts (`start_line: true` read as
        line 1: `mcp_arguments.py`)."""
        enough_threads()  # (sync tools run on the same limiter as the stdin reader)
        tool = next((t for t in await self.list_tools() if t.name == name), None)
        if tool is not None:
            schema = tool.input_schema or {}
            takes = list(schema.get("properties", {}))
            unknown = [a for a in arguments if a not in takes]
            if unknown:
                raise ToolError(
                    f"{name} takes no argument {', '.join(map(repr, unknown))}; "
                    f"it takes {', '.join(takes) or 'none'}"
                )
            wrong = wrong_types(name, schema, arguments)
            if wrong is not None:
                raise ToolError(wrong)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # the schema refused an argument
                raise ToolError(refused_in_one_line(name, exc.__cause__.errors())) from None
            raise

    async def list_resources(self) -> list[Resource]:
        try:
            data = await anyio.to_thread.run_sync(lambda: self.call("documents", {}))
        except ToolError as exc:  # no daemon: nothing to list, and the host keeps going
            log.warning("cannot list documents: %s", exc)
            return []
        return [
            Resource(
                uri=URI_SCHEME + quote(doc["source"], safe="/"),
                name=doc["source"],
                description=f"indexed document ({doc['chunks']} chunks)",
                mime_type="text/markdown",
            )
            for doc in data.get("documents", [])
        ]


def build(socket: str | None) -> RagdMCP:
    """The server with its four tools and the document resource, each declared next to
    its argument schema (the SDK reads the annotations and descriptions from them)."""
    server = RagdMCP(socket)
    for add in (_add_search, _add_ask, _add_get, _add_status, _add_documents):
        add(server)
    return server


def _add_search(server: RagdMCP) -> None:
    @server.tool(description=SEARCH_DOC, annotations=READ_ONLY)
    def search(
        query: Annotated[
            str,
            Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="what to look for"),
        ],
        top_k: Annotated[
            int | None,
            Field(ge=TOP_K_MIN, le=TOP_K_MAX, description="how many passages (default: top_k)"),
        ] = None,
        mode: Annotated[
            Literal["hybrid", "vector", "bm25"],
            Field(description="hybrid (default), vector (meaning) or bm25 (exact words)"),
        ] = "hybrid",
        in_: Annotated[list[str] | None, IN_FIELD] = None,
    ) -> dict[str, Any]:
        args = {"query": query, "top_k": top_k, "mode": mode} | scope_paths(in_)
        data = server.call("search", args)
        reply = {
            "query": data["query"],
            "scope": data.get("scope"),
            "gate": data["gate"],
            "results": [passage(r) for r in data["results"]],
            "index": data["index"],
        }
        if data.get("note"):  # the vector store could not be asked: BM25 results only
            reply["note"] = data["note"]
        return reply


def _add_ask(server: RagdMCP) -> None:
    @server.tool(description=ASK_DOC, annotations=READ_ONLY)
    async def ask(
        question: Annotated[
            str,
            Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="the question, in full"),
        ],
        top_k: Annotated[
            int | None,
            Field(ge=TOP_K_MIN, le=TOP_K_MAX, description="passages given to the answer"),
        ] = None,
        in_: Annotated[list[str] | None, IN_FIELD] = None,
    ) -> dict[str, Any]:
        args: dict[str, Any] = {"question": question} | scope_paths(in_)
        if top_k is not None:
            args["top_k"] = top_k
        final = await cancellable(lambda stop: server.call("ask", args, ASK_TIMEOUT_S, stop))
        reply = {k: final.get(k) for k in ("answer", "refused", "confidence", "mode", "gate")}
        reply["citations"] = [
            {**c, "citation": citation(c["source"], c["heading"])} for c in final["citations"]
        ]
        if final.get("note"):
            reply["note"] = final["note"]
        if final.get("warnings"):
            reply["warnings"] = final["warnings"]
        return reply


async def cancellable(call: Callable[[threading.Event], T]) -> T:
    """`call(stop)` on a worker thread. The host's `notifications/cancelled` cancels this
    task (the SDK's default): the thread is left to end by itself, told to by `stop`, and
    sends the daemon `cancel` (its model call ends, its worker is free) within
    STOP_POLL_S (ragcli/transport.py). Waited for, as `to_thread` does unless told, the
    thread held the cancelled call, and the daemon answered nobody until its deadline."""
    stop = threading.Event()
    enough_threads()
    try:
        return await anyio.to_thread.run_sync(call, stop, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        stop.set()
        raise


# Threads for every request the SDK may hold (mcp_lines.MAX_IN_FLIGHT) and for the
# SDK's own reads of the host's stdin and writes to its stdout (`anyio.wrap_file`: a
# thread a line, from the same limiter, 40 by default). With 41 asks waiting on a hung
# model server, no line of the host's was read: not its `notifications/cancelled`
# either, and the cancelled asks ran to their deadlines (attack62).
THREADS = MAX_IN_FLIGHT + 8


def enough_threads() -> None:
    """anyio's default thread limiter, raised to THREADS (on the event loop's thread)."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    if limiter.total_tokens < THREADS:
        limiter.total_tokens = THREADS


def _add_get(server: RagdMCP) -> None:
    @server.tool(description=GET_DOC, annotations=READ_ONLY)
    def get(
        source: Annotated[str, Field(min_length=1, description="document, as results show it")],
        heading: Annotated[str | None, Field(description="heading path, 'A > B'")] = None,
        start_line: Annotated[int | None, Field(ge=1, description="first line (1-based)")] = None,
        end_line: Annotated[int | None, Field(ge=1, description="last line (inclusive)")] = None,
    ) -> dict[str, Any]:
        args: dict[str, Any] = {"source": source}
        if heading:
            args["heading"] = heading
        if start_line is not None or end_line is not None:
            start = start_line or 1
            args["lines"] = [start, end_line or start + DEFAULT_LINES - 1]
        return server.call("get", args)


def _add_status(server: RagdMCP) -> None:
    @server.tool(description=STATUS_DOC, annotations=READ_ONLY)
    def status() -> dict[str, Any]:
        data = server.call("status", {})
        keys = ("state", "roots", "files", "chunks", "pending", "answers", "answer_model")
        return {k: data.get(k) for k in keys} | {"errors": data.get("errors", [])[:20]}


def _add_documents(server: RagdMCP) -> None:
    @server.resource(
        URI_SCHEME + "{+source}",
        name="document",
        description="An indexed document's text, section by section (## heading path).",
        mime_type="text/markdown",
    )
    def document(source: str) -> str:
        try:
            return str(server.call("get", {"source": source})["text"])
        except ToolError as exc:
            raise ResourceError(str(exc)) from None


def passage(result: dict[str, Any]) -> dict[str, Any]:
    """A search result as an agent needs it: where it is, how good it is, what it says."""
    out = {
        "rank": result["rank"],
        "source": result["source"],
        "heading": result["heading"],
        "citation": citation(result["source"], result["heading"]),
        "score": result["score"],
        "fused": result["fused"],
        "vector_rank": result.get("vector_rank"),
        "bm25_rank": result.get("bm25_rank"),
        "text": result["text"],
    }
    # A location, when the daemon knows one.
    for where in ("page", "lines", "cells", "slides", "rows"):
        if result.get(where) is not None:
            out[where] = result[where]
    return out


def run(socket: str | None) -> int:
    build(socket).run("stdio")
    return 0
