"""`rag mcp` driven by the MCP SDK's own client over a real stdio pipe, against a real daemon."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from ragd.core.roots import Roots
from ragd.index.manifest import ChunkRow
from ragd.serve.passages import join_chunks, section, strip_overlap
from ragproto.protocol import REFUSAL_SENTENCE
from tests.daemon.test_mcp_malformed import INITIALIZE, INITIALIZED
from tests.support.daemon import BIN, Daemon, base_env

if TYPE_CHECKING:  # imported where used: the SDK costs every test worker's collection 1.7 CPU s
    from mcp import ClientSession
    from mcp_types import CallToolResult

OFF_TOPIC = "What is the capital of Mongolia?"


Body = Callable[["ClientSession"], Awaitable[None]]


@asynccontextmanager
async def opened_session(env: dict[str, str]) -> AsyncIterator[ClientSession]:
    """Start `rag mcp` as an agent host would and hand over an initialised session."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=str(BIN / "rag"), args=["mcp"], env=env)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=120) as session,
    ):
        await session.initialize()
        yield session


def with_session(env: dict[str, str], body: Body) -> None:
    """Run `body` on a session of a `rag mcp` of its own, ended with it."""

    async def main() -> None:
        async with opened_session(env) as session:
            await body(session)

    anyio.run(main)


@pytest.fixture(scope="module")
def shared_session() -> Iterator[Callable[[dict[str, str], Body], None]]:
    """`with_session` on one `rag mcp` per environment for the module's tests, as a host
    keeps one session for all its calls: each start costs ≈ 1-1.5 CPU s of `import mcp`.
    The process is the module's; a test that needs its start or its end (initialize,
    end of input) starts its own. Each session is ended when the module is done."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal, ExitStack() as opened:
        sessions: dict[tuple[tuple[str, str], ...], ClientSession] = {}

        def run(env: dict[str, str], body: Body) -> None:
            key = tuple(sorted(env.items()))
            if key not in sessions:
                sessions[key] = opened.enter_context(
                    portal.wrap_async_context_manager(opened_session(env))
                )
            portal.call(body, sessions[key])

        yield run


def no_daemon_env(tmp: Path) -> dict[str, str]:
    return base_env(tmp) | {"RAG_SOCKET": str(tmp / "absent.sock")}


@pytest.fixture(scope="module")
def no_daemon(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a `rag mcp` whose daemon is not running, one for the module."""
    return no_daemon_env(tmp_path_factory.mktemp("mcp-no-daemon"))


def payload(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    from mcp_types import TextContent

    assert result.is_error
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def test_tools_resources_and_errors_against_a_real_daemon(
    sample_daemon: Daemon, shared_session: Callable[[dict[str, str], Body], None]
) -> None:
    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"search", "ask", "get", "status"}
        for name in ("search", "ask"):
            assert "[source:heading path]" in (tools[name].description or "")
        assert "refusal" in (tools["ask"].description or "").lower()

        found = payload(
            await session.call_tool(
                "search", {"query": "wind too strong to sail", "top_k": 3, "mode": "hybrid"}
            )
        )
        assert found["gate"]["passed"] is True and len(found["results"]) == 3
        top = found["results"][0]
        assert top["source"] == "operations-manual.md" and "Weather Limits" in top["heading"]
        assert top["citation"] == f"[{top['source']}:{top['heading']}]"
        assert {"score", "fused", "vector_rank", "bm25_rank", "text"} <= set(top)

        # Read around the hit: its whole section, then the first lines of the file.
        got = payload(
            await session.call_tool("get", {"source": top["source"], "heading": top["heading"]})
        )
        assert top["text"].split("\n\n")[0] in got["text"] and not got["truncated"]
        head = payload(
            await session.call_tool(
                "get", {"source": "operations-manual.md", "start_line": 1, "end_line": 3}
            )
        )
        assert head["lines"] == [1, 3]
        assert head["text"].splitlines()[0] == "# Kestrel Sound Ferries Operations Manual"
        # The hit's own location opens it: its lines hold its text.
        first, last = top["lines"]
        located = payload(
            await session.call_tool(
                "get", {"source": top["source"], "start_line": first, "end_line": last}
            )
        )
        assert " ".join(top["text"].split()) in " ".join(located["text"].split())

        answered = payload(
            await session.call_tool(
                "ask", {"question": "At what wind speed are R7 sailings suspended?"}
            )
        )
        assert answered["refused"] is False and answered["mode"] == "extractive"
        assert answered["citations"] and answered["citations"][0]["citation"].startswith("[")
        refused = payload(await session.call_tool("ask", {"question": OFF_TOPIC}))
        assert refused["refused"] is True and refused["mode"] == "refused"
        assert refused["answer"] == REFUSAL_SENTENCE and refused["citations"] == []
        assert "no model call" in refused["note"]

        state = payload(await session.call_tool("status", {}))
        assert state["state"] == "idle" and state["files"] == 7

        # Bad arguments: rejected by the schema or by the daemon, as tool errors.
        assert "top_k" in error_text(await session.call_tool("search", {"query": "x", "top_k": 0}))
        assert "mode" in error_text(await session.call_tool("search", {"query": "x", "mode": "?"}))
        for source in ("nope.md", "../../etc/passwd", "/etc/passwd", str(sample_daemon.roots[0])):
            message = error_text(await session.call_tool("get", {"source": source}))
            assert "no indexed document" in message or "source" in message, message
        message = error_text(
            await session.call_tool("get", {"source": top["source"], "heading": "No Such Part"})
        )
        assert "Weather Limits" in message  # the error lists the sections there are

        resources = (await session.list_resources()).resources
        uris = sorted(str(r.uri) for r in resources)
        assert len(uris) == 7 and "ragd://operations-manual.md" in uris
        read = await session.read_resource("ragd://passenger-handbook.md")
        text = read.contents[0].text  # type: ignore[union-attr]
        assert text.startswith("## ") and "Passenger" in text

    shared_session(sample_daemon.env, body)


def test_search_and_ask_take_a_scope(
    sample_daemon: Daemon, shared_session: Callable[[dict[str, str], Body], None]
) -> None:
    manual = sample_daemon.roots[0] / "operations-manual.md"

    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        for name in ("search", "ask"):
            assert "`in`" in (tools[name].description or "")
            assert tools[name].input_schema["properties"]["in"]["anyOf"][0]["type"] == "array"
        query = {"query": "dogs on board", "top_k": 5}
        for scope, label in ((str(manual), "operations-manual.md"), ("passenger-handbook.md",) * 2):
            found = payload(await session.call_tool("search", query | {"in": [scope]}))
            assert found["scope"] == [label]
            assert found["results"] and {r["source"] for r in found["results"]} == {label}
        everywhere = payload(await session.call_tool("search", query))
        assert everywhere["scope"] is None
        assert len({r["source"] for r in everywhere["results"]}) > 1
        question = {"question": "At what wind speed are R7 sailings suspended?"}
        inside = payload(await session.call_tool("ask", question | {"in": [str(manual)]}))
        assert inside["refused"] is False
        assert {c["source"] for c in inside["citations"]} == {"operations-manual.md"}
        outside = error_text(await session.call_tool("search", query | {"in": ["/etc"]}))
        assert "not inside a watched root" in outside and "sample_corpus" in outside
        assert "--in /etc:" in outside, outside  # the path sent, not only its last name

    shared_session(sample_daemon.env, body)


def test_no_daemon_is_a_tool_error_not_a_crash(
    no_daemon: dict[str, str], shared_session: Callable[[dict[str, str], Body], None]
) -> None:

    async def body(session: ClientSession) -> None:
        assert len((await session.list_tools()).tools) == 4
        for _ in range(2):  # the server keeps serving after the failure
            message = error_text(await session.call_tool("status", {}))
            assert "not running" in message and "ragd serve" in message
        message = error_text(await session.call_tool("search", {"query": "anything"}))
        assert "not running" in message
        assert (await session.list_resources()).resources == []

    shared_session(no_daemon, body)


def test_an_argument_a_tool_does_not_take_is_an_error_naming_it(
    no_daemon: dict[str, str], shared_session: Callable[[dict[str, str], Body], None]
) -> None:

    async def body(session: ClientSession) -> None:
        # `lines` is the daemon's own name; the tool's are start_line/end_line. Dropped
        # silently, the call asked for the whole document.
        message = error_text(await session.call_tool("get", {"source": "a.md", "lines": [1, 3]}))
        assert "get takes no argument 'lines'" in message
        assert "source, heading, start_line, end_line" in message
        assert "no argument 'k'" in error_text(await session.call_tool("status", {"k": 1}))
        # Known arguments still reach the daemon (here: none is running).
        assert "not running" in error_text(await session.call_tool("get", {"source": "a.md"}))

    shared_session(no_daemon, body)


def test_a_line_number_or_count_of_another_json_type_is_an_error_naming_it(
    no_daemon: dict[str, str], shared_session: Callable[[dict[str, str], Body], None]
) -> None:
    wrong: list[tuple[str, dict[str, Any], str]] = [
        # The SDK read `true` as 1: the document from line 1, as if asked.
        ("get", {"source": "a.md", "start_line": True}, "start_line must be an integer, not true"),
        ("get", {"source": "a.md", "end_line": False}, "end_line must be an integer, not false"),
        ("get", {"source": "a.md", "start_line": 3.5}, "start_line must be an integer, not 3.5"),
        ("get", {"source": "a.md", "start_line": "3"}, 'start_line must be an integer, not "3"'),
        ("search", {"query": "x", "top_k": True}, "top_k must be an integer, not true"),
        ("ask", {"question": "x", "top_k": 2.5}, "top_k must be an integer, not 2.5"),
    ]

    async def body(session: ClientSession) -> None:
        for tool, arguments, reason in wrong:
            message = error_text(await session.call_tool(tool, arguments))
            assert message == f"{tool}: {reason}", (tool, arguments)
        # Integers (3.0 is one in JSON) and an explicit null still reach the daemon.
        for arguments in ({"start_line": 3.0, "end_line": 4}, {"start_line": None}):
            message = error_text(await session.call_tool("get", {"source": "a.md"} | arguments))
            assert "not running" in message, arguments

    shared_session(no_daemon, body)


def test_an_argument_the_schema_refuses_is_one_line_naming_it(
    no_daemon: dict[str, str], shared_session: Callable[[dict[str, str], Body], None]
) -> None:
    """attack41: the SDK's validation error was pydantic's own text, over four lines
    ("1 validation error for searchArguments", the field, "Input should be less than or
    equal to 50 [type=less_than_equal, input_value=1000000000, input_type=int]", "For
    further information visit https://errors.pydantic.dev/…"), and quoted the start of
    a 10 MB question back."""
    wrong: list[tuple[str, dict[str, Any], str]] = [
        (
            "search",
            {"query": "x", "top_k": 10**9},
            "search: top_k: input should be less than or equal to 50 (got 1000000000)",
        ),
        (
            "search",
            {"query": "x", "mode": 5},
            "search: mode: input should be 'hybrid', 'vector' or 'bm25' (got 5)",
        ),
        (
            "ask",
            {"question": "y" * 100_000},
            "ask: question: string should have at most 4096 characters "
            "(got a string of 100,000 characters)",
        ),
        (
            "search",
            {"query": "x", "in": "/etc"},
            'search: in: input should be a valid list (got "/etc")',
        ),
        ("get", {}, "get: source: field required"),
    ]

    async def body(session: ClientSession) -> None:
        for tool, arguments, reason in wrong:
            assert error_text(await session.call_tool(tool, arguments)) == reason

    shared_session(no_daemon, body)


def test_a_request_sent_before_stdin_ends_is_answered(tmp_path: Path) -> None:
    """attack48: `printf '%s\\n' INIT INITIALIZED CALL | rag mcp` printed the initialize
    reply only: the SDK ended at its input's EOF and dropped the call still in flight."""
    import subprocess

    env = no_daemon_env(tmp_path)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "status", "arguments": {}}
    stdin = json.dumps(INITIALIZE).encode() + b"\n" + INITIALIZED + b"\n"
    stdin += json.dumps(call).encode() + b"\n"
    done = subprocess.run(
        [str(BIN / "rag"), "mcp"], input=stdin, capture_output=True, env=env, timeout=300
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2], done.stdout
    assert "not running" in json.dumps(replies[1]["result"])
    assert done.returncode == 0, done.stderr


def test_mcp_is_not_imported_by_the_other_commands(tmp_path: Path) -> None:
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from ragcli.main import main\n"
        "try:\n    main(['search', 'x'])\n"  # run, not only imported (no __main__ block)
        "except SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m for m in ('mcp', 'pydantic', 'anyio') if m in sys.modules)))\n"
    )
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "none.sock")}
    out = subprocess.run(
        [sys.executable, "-c", "import json\n" + probe], env=env, capture_output=True, text=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [], out.stdout + out.stderr


def row(heading: str, text: str, ordinal: int, page: int | None = None) -> ChunkRow:
    return ChunkRow(f"c{ordinal}", "/r", "a.md", ordinal, heading, text, page, ())


def test_reading_back_removes_the_chunkers_overlap() -> None:
    first = "Alpha one.\n\nAlpha two.\n\nAlpha three."
    second = "Alpha two.\n\nAlpha three.\n\nAlpha four."
    assert strip_overlap(first, second) == "Alpha four."
    assert strip_overlap(first, "Beta.") == "Beta."
    rows = [row("Doc > A", first, 0), row("Doc > A", second, 1), row("Doc > A > B", "Bee.", 2)]
    whole = join_chunks(rows, with_headings=True).text
    assert whole == (
        "## Doc > A\n\nAlpha one.\n\nAlpha two.\n\nAlpha three.\n\nAlpha four."
        "\n\n## Doc > A > B\n\nBee."
    )
    assert section(rows, "Doc > A > B").text == "Bee."
    assert "## Doc > A > B" in section(rows, "Doc  > A").text  # nested sections are named


def test_source_labels_resolve_back_to_their_root() -> None:
    one = Roots(["/data/notes"])
    assert one.resolve("sub/a.md") == ("/data/notes", "sub/a.md")
    two = Roots(["/data/notes", "/work/notes"])
    assert two.resolve("notes-2/a.md") == ("/work/notes", "a.md")
    assert two.resolve("notes/a.md") == ("/data/notes", "a.md")
    assert two.resolve("elsewhere/a.md") is None and two.resolve("notes") is None


# --- the handshake: version, and `initialize` answered before the SDK is imported --------


def initialize(
    env: dict[str, str], protocol: str = "2025-06-18", to_the_end: bool = True
) -> tuple[dict[str, Any], float]:
    """Start `rag mcp`, send `initialize`; its result and the seconds the reply took.

    `to_the_end`: close its input and check it exits cleanly without a second reply (it
    must first import the SDK, seconds); otherwise it is killed once it has replied."""
    import subprocess
    import time

    request = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "initialize",
        "params": {
            "protocolVersion": protocol,
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(BIN / "rag"), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(request).encode() + b"\n")
    process.stdin.flush()
    reply = json.loads(process.stdout.readline())
    took = time.perf_counter() - started
    assert reply["id"] == 7
    if not to_the_end:
        process.kill()
        process.wait(timeout=120)
        return reply["result"], took
    process.stdin.close()  # end of input: the server exits once the SDK has started
    assert process.wait(timeout=120) == 0
    assert process.stdout.read() == b""  # the SDK's own reply to it was not sent twice
    return reply["result"], took


def test_initialize_reports_the_version_and_is_answered_from_the_cache(tmp_path: Path) -> None:
    from importlib.metadata import version
    from statistics import median

    env = no_daemon_env(tmp_path)
    cache = Path(env["XDG_CACHE_HOME"]) / "ragd" / "mcp-initialize.json"
    cold: list[float] = []
    warm: list[float] = []
    for n in range(3):
        cache.unlink(missing_ok=True)
        first, took = initialize(env)  # relayed from the SDK, then stored
        cold.append(took)
        assert cache.is_file()
        # Answered from the file, before the SDK is imported; the first time run to its
        # end (the SDK's duplicate reply is dropped), then only the reply is timed.
        again, took = initialize(env, to_the_end=n == 0)
        warm.append(took)
        assert again == first
    assert first["serverInfo"] == {"name": "ragd", "version": version("ragd")}
    assert first["protocolVersion"] == "2025-06-18" and "tools" in first["capabilities"]
    # Measured in this run, not against a fixed time: the cached reply skips the SDK import.
    assert median(warm) * 2 < median(cold), (warm, cold)

    # another protocol version is another key: negotiated by the SDK, not taken from the file
    other, _ = initialize(env, protocol="2025-03-26")
    assert other["protocolVersion"] == "2025-03-26"

    # after a cached handshake the SDK still runs the whole session
    async def body(session: ClientSession) -> None:
        assert len((await session.list_tools()).tools) == 4

    with_session(env, body)
