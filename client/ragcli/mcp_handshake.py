"""`rag mcp` answers the MCP `initialize` request before the SDK has finished importing.

Importing the MCP SDK (its pydantic protocol types, both server transports) takes seconds
on a loaded machine, and an agent host waits for the `initialize` reply before anything
else, with a timeout of its own. That reply depends only on this server's code, the SDK's
version and the protocol version the host asks for, so it is remembered: the first start
relays the SDK's reply and stores it (`$XDG_CACHE_HOME/ragd/mcp-initialize.json`); a later
start with the same key answers from the file at once, then lets the SDK see the same
request (through a pipe standing in for stdin) and drops the SDK's own reply to it from
the pipe standing in for stdout. Everything else passes through unchanged, so the SDK
still runs the whole session. If the SDK's reply ever differs from the stored one, the
file is rewritten and the next start uses the new reply.

Standard library only: this runs before the SDK is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcli.mcp_lines import HostOut, InFlight, LineGate, refusal

CACHE_FILE = "mcp-initialize.json"
READ_BYTES = 65536
MAX_FIRST_LINE_BYTES = 1 << 20  # looked at for an `initialize` (a few hundred bytes)
MAX_CACHE_BYTES = 1 << 20  # the stored reply is ~2 KB
SERVER_SOURCE = Path(__file__).with_name("mcp_server.py")  # its tools and instructions
RELAY_DRAIN_S = 5.0  # after the SDK returns: time for its last replies to reach the host
# After the host's stdin ends: how long requests still unanswered are waited for (an `ask`
# answered by a model takes tens of seconds) before the SDK is told the input ended.
EOF_DRAIN_S = 300.0


def cache_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "ragd" / CACHE_FILE


def server_identity(server_source: Path = SERVER_SOURCE) -> str:
    """What the reply depends on besides the request: our code and the SDK's version."""
    from importlib.metadata import PackageNotFoundError, version

    parts = [hashlib.sha256(server_source.read_bytes()).hexdigest()[:16]]
    for package in ("ragd", "mcp", "mcp-types"):
        try:
            parts.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            parts.append(f"{package}=?")
    return " ".join(parts)


def serve(run_sdk: Callable[[], None], identity: Callable[[], str], cache: Path) -> None:
    """Run the SDK's stdio server (`run_sdk`) behind the handshake relay. `identity()`
    (`server_identity`) is asked only once an `initialize` has come: it reads package
    metadata, which nothing before the first request should wait for."""
    real_in, real_out = os.dup(0), os.dup(1)
    first, rest = _read_line(real_in)
    init_id, key = _initialize_key(first, identity)
    stored = _load(cache, key) if key else None
    host = HostOut(real_out)
    if stored is not None:
        host.write(_line({"jsonrpc": "2.0", "id": init_id, "result": stored}))
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    os.dup2(in_read, 0)
    os.dup2(out_write, 1)
    os.close(in_read)
    in_flight = InFlight()
    threading.Thread(
        target=_feed,
        args=(first + rest, real_in, in_write, host, in_flight),
        name="mcp-stdin",
        daemon=True,
    ).start()
    # The SDK keeps a private duplicate of fd 1 open until the process ends, so the relay
    # never sees EOF: a line no JSON message can be (a NUL byte), written behind the SDK's
    # last reply once it has returned, tells the relay it has drained everything.
    end = b"\0ragd-relay-end-" + os.urandom(8).hex().encode()
    relay = _Relay(out_read, host, init_id, stored, cache, key, end, in_flight)
    relay.start()
    try:
        run_sdk()
    finally:
        sys.stdout.flush()
        with contextlib.suppress(OSError):
            os.write(out_write, end + b"\n")
        os.close(out_write)
        os.close(1)
        relay.join(RELAY_DRAIN_S)  # bounded: a relay stuck writing to the host is given up


def _initialize_key(first: bytes, identity: Callable[[], str]) -> tuple[Any, str]:
    try:
        message = json.loads(first)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        return None, ""  # no initialize: the line gate answers it
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None, ""
    if refusal(first) is not None:  # the gate answers it with an error, the one reply
        return None, ""
    params = message.get("params")
    protocol = params.get("protocolVersion") if isinstance(params, dict) else None
    return message.get("id"), f"{identity()} protocol={protocol}"


def _load(cache: Path, key: str) -> dict[str, Any] | None:
    try:
        entry = json.loads(_read_small_file(cache))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    result = entry.get("result")
    return result if isinstance(result, dict) else None


def _read_small_file(path: Path) -> bytes:
    """The file's bytes if it is a regular file of at most MAX_CACHE_BYTES. Opened without
    blocking and checked before reading: a FIFO in its place would wait for a writer for
    ever, a symlink to /dev/zero would never end, and the host is waiting for our reply."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CACHE_BYTES:
            raise OSError(f"not a small regular file: {path}")
        if info.st_uid != os.geteuid():
            # In a shared folder (XDG_CACHE_HOME=/tmp/…) another user may have put it
            # there: its `instructions` would be what the agent is told about ragd.
            raise OSError(f"not our file: {path}")
        return os.read(fd, MAX_CACHE_BYTES + 1)
    finally:
        os.close(fd)


def _store(cache: Path, key: str, result: dict[str, Any]) -> None:
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_name(f".{cache.name}.{os.getpid()}")
        # A new file of ours, never one already there: a link planted at this name in a
        # shared folder would have had the reply written over the file it names.
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps({"key": key, "result": result}))
        partial.replace(cache)
    except OSError:
        pass  # no cache: the next start is as slow as this one, nothing worse


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _read_line(fd: int, limit: int = MAX_FIRST_LINE_BYTES) -> tuple[bytes, bytes]:
    """The first line read from `fd` (with its newline) and whatever came after it; past
    `limit` bytes without a newline, what was read (it is no `initialize`, which is a few
    hundred bytes: the SDK gets it as it came). Each chunk is searched once and joined
    once: appending to one bytes object and searching all of it at every chunk made a
    50 MB first line cost 45 s before the host got its `initialize` reply."""
    chunks: list[bytes] = []
    read = 0
    while read <= limit:
        chunk = os.read(fd, READ_BYTES)
        if not chunk:
            break
        chunks.append(chunk)
        read += len(chunk)
        if b"\n" in chunk:
            line, _, rest = b"".join(chunks).partition(b"\n")
            return line + b"\n", rest
    return b"".join(chunks), b""


def _feed(already_read: bytes, source: int, sink: int, host: HostOut, in_flight: InFlight) -> None:
    """The host's stdin into the SDK's: what we read first, then everything else; a line
    the SDK would drop without a word is answered to the host instead, and a request
    waits while MAX_IN_FLIGHT are unanswered (`mcp_lines`)."""
    gate = LineGate(HostOut(sink).write, host.write, in_flight=in_flight)
    try:
        gate.feed(already_read)
        while chunk := os.read(source, READ_BYTES):
            gate.feed(chunk)
        gate.close()
        # The host closed stdin with requests unanswered (`printf … | rag mcp`): the SDK
        # ends at its stdin's EOF and drops them, so that EOF waits for their replies.
        in_flight.settled(EOF_DRAIN_S)
    except OSError:
        pass  # the SDK stopped reading: it is shutting down
    finally:
        os.close(sink)  # the host closed stdin: so does the SDK's


class _Relay(threading.Thread):
    """The SDK's stdout to the host, minus its reply to an `initialize` already answered."""

    def __init__(
        self,
        source: int,
        sink: HostOut,
        init_id: Any,
        stored: dict[str, Any] | None,
        cache: Path,
        key: str,
        end: bytes,
        in_flight: InFlight | None = None,
    ) -> None:
        super().__init__(name="mcp-stdout", daemon=True)
        self.source, self.sink, self.end = source, sink, end
        self.in_flight = in_flight
        self.init_id, self.stored = init_id, stored
        self.cache, self.key = cache, key
        self.waiting = bool(key)  # for the SDK's reply to the initialize request

    def run(self) -> None:
        held: list[bytes] = []  # a line not yet complete, as it came
        host_gone = False
        ended = False
        while not ended and (chunk := os.read(self.source, READ_BYTES)):
            if b"\n" not in chunk:
                # Joined once its line ends: adding each chunk to the line and splitting it
                # all again made a 20 MB reply (`get` of a long document) cost n² (1.4 s).
                held.append(chunk)
                continue
            *lines, tail = b"".join([*held, chunk]).split(b"\n")
            ended, lines, tail = self._until_end(lines, tail)
            held = [tail]
            if self.in_flight is not None:
                for line in lines:  # settled as it leaves the SDK: the host may never read
                    self.in_flight.sdk_line(line)
            if host_gone:
                continue  # keep draining, so the SDK never blocks on a full pipe
            try:
                for line in lines:
                    if not self.waiting or self._forward(line):
                        self.sink.write(line + b"\n")
            except OSError:
                host_gone = True  # the host closed our stdout; its stdin EOF ends the SDK
        if self.in_flight is not None:
            self.in_flight.close()  # the SDK has returned: a request waiting for room goes on
        pending = b"".join(held)
        if pending and not host_gone:
            with contextlib.suppress(OSError):
                self.sink.write(pending)

    def _until_end(self, lines: list[bytes], pending: bytes) -> tuple[bool, list[bytes], bytes]:
        """(ended, lines, pending) with the end marker's line cut off: the SDK has returned,
        nothing follows it. What precedes it on its line is the SDK's unterminated last
        output, kept as pending like the tail of a stream that ended."""
        for at, line in enumerate(lines):
            if line.endswith(self.end):
                return True, lines[:at], line[: -len(self.end)]
        return False, lines, pending

    def _forward(self, line: bytes) -> bool:
        """Whether this line goes to the host (notes the SDK's initialize reply)."""
        try:
            message = json.loads(line)
        except ValueError:
            return True
        if not isinstance(message, dict) or message.get("id") != self.init_id:
            return True
        self.waiting = False
        result = message.get("result")
        if isinstance(result, dict) and result != self.stored:
            _store(self.cache, self.key, result)
        return self.stored is None  # already answered from the cache: drop the duplicate
