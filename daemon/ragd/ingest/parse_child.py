"""The parse worker process: `python -m ragd.ingest.parse_child MEMORY_MB DAEMON_PID`.

It imports the loaders and nothing else of the daemon (no torch, no indexes), asks the
kernel to kill it when the daemon dies (`die_with_parent`: a daemon killed with -9 in
the middle of a long parse must not leave it running for hours), caps its own address
space (RLIMIT_AS) before reading any file, then answers requests on stdin/stdout until
stdin closes (the daemon closed it, or exited: only it holds the pipe's write end, which
is close-on-exec and never inherited by another child). A parse that runs away in memory
fails here with a MemoryError (answered as a reason, after which the process exits so
the next file gets a fresh one); one that runs away in time is killed by the daemon
(`parse_pool`). Either way the daemon only loses this process.

Frames (big-endian): request = header length (4 bytes), data length (8), JSON header
{"name", "max_text_chars", "timeout_s", "folder"}, file bytes; reply = length (8), JSON
{"document": {...}} or {"skip": reason}, after any number of frames {"progress": [done,
total]} from a slow parse (OCR, page by page). JSON, not pickle: a parser tricked by a
file must not be able to make the daemon run code by what it sends back.
"""

from __future__ import annotations

import dataclasses
import json
import resource
import struct
import sys
import time
from typing import BinaryIO

from ragd.core import parent_death
from ragd.ingest.document import OutOfMemory

REQUEST = struct.Struct("!IQ")
REPLY = struct.Struct("!Q")
DEADLINE_SHARE = 0.9


def limit_memory(memory_mb: int) -> None:
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def read_exact(stream: BinaryIO, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def printable(text: str) -> str:
    """Lone surrogates (from a broken PDF text map) cannot be stored: replace them."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def answer(
    name: str,
    data: bytes,
    max_text_chars: int | None,
    timeout_s: float | None = None,
    stdout: BinaryIO | None = None,
    folder: str | None = None,
) -> dict[str, object]:
    from ragd.ingest.loaders import SkipFile, parse

    # OCR stops a little before the daemon's deadline, so the file gets a reason, not a kill.
    deadline = time.monotonic() + timeout_s * DEADLINE_SHARE if timeout_s else None

    def progress(done: int, total: int) -> None:
        if stdout is not None:
            send(stdout, {"progress": [done, total]})

    try:
        document = parse(name, data, max_text_chars, deadline, progress, folder)
    except OutOfMemory:
        raise  # `serve` replies, then ends this process
    except SkipFile as exc:
        return {"skip": str(exc)}
    fields = dataclasses.asdict(document)
    fields["text"] = printable(document.text)
    fields["pages"] = [(n, printable(t)) for n, t in document.pages]
    fields["outline"] = [(n, d, printable(t)) for n, d, t in document.outline]
    return {"document": fields}


def send(stdout: BinaryIO, message: dict[str, object]) -> None:
    body = json.dumps(message).encode("utf-8")
    stdout.write(REPLY.pack(len(body)) + body)
    stdout.flush()


def serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    while True:
        head = read_exact(stdin, REQUEST.size)
        if head is None:
            return  # the daemon closed the pipe: done
        header_size, data_size = REQUEST.unpack(head)
        exhausted = False
        try:
            header = json.loads(read_exact(stdin, header_size) or b"{}")
            data = read_exact(stdin, data_size) or b""
            reply = answer(
                header["name"],
                data,
                header.get("max_text_chars"),
                header.get("timeout_s"),
                stdout,
                header.get("folder"),
            )
        except MemoryError:
            data = b""
            exhausted = True
            reply = {"skip": "out of memory while parsing"}
        except OutOfMemory as exc:  # a reader caught its MemoryError: the heap is as spent
            data = b""
            exhausted = True
            reply = {"skip": str(exc)}
        except Exception as exc:  # a loader bug: a reason for this file, not a dead worker
            reply = {"skip": f"parser failed ({type(exc).__name__}: {str(exc)[:120]})"}
        if exhausted:
            reply["retiring"] = True  # the pool starts a fresh worker for the next file
        send(stdout, reply)
        if exhausted:
            return  # a heap that hit its limit is not trusted with the next file


def main() -> None:
    # Armed first: it lives as long as the pool's thread that started it (the daemon);
    # without prctl the end of stdin still ends an idle worker.
    parent_death.die_with_parent(int(sys.argv[2]))
    limit_memory(int(sys.argv[1]))
    serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
