"""Load: 8 concurrent clients search while an ingest runs.

`make test` runs 8 clients × 40 searches during a 150-file ingest; the opt-in `stress`
variant (`make test-stress`) runs 8 × 250 during a 1,000-file ingest. The small one keeps
all eight clients' requests in flight together while the writer embeds and commits (most
of its cost is the searches themselves: each embeds its query); the long one is for
rarer interleavings. Every client is a
thread with its own `ragcli.transport.Connection` (its own DEALER socket), as separate
`rag` processes would have. Every request must get a well-formed search reply: no error,
no timeout, no reply to someone else's request. Latency is not asserted here; `make bench`
(bench/load.py) measures it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import Daemon, wait_for

pytestmark = pytest.mark.slow

CLIENTS = 8
RESULT_KEYS = {"rank", "source", "heading", "score", "text"}
QUERIES = [
    "which crew serviced pump P-0042",
    "site S12 service day",
    "pump maintenance record",
    "who serviced the pump at site S3",
    "serial number lookup",
    "record 512 pump",
    "crew 7 service history",
    "what happened on day 200",
]


def write_files(folder: Path, start: int, count: int) -> None:
    for i in range(start, start + count):
        sub = folder / f"batch{i // 100:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{i:04d}.md").write_text(
            f"# Note {i}\n\nPump P-{i:04d} at site S{i % 37} was serviced on day "
            f"{i % 365} by crew {i % 11}.\n"
        )


def well_formed(reply: dict[str, Any], query: str, top_k: int) -> str | None:
    """None if `reply` is a complete search reply to `query`, else what is wrong."""
    if reply.get("query") != query:
        return f"reply to another query: {reply.get('query')!r}"
    results = reply.get("results")
    if not isinstance(results, list) or len(results) > top_k:
        return f"bad results: {results!r}"
    for rank, result in enumerate(results, start=1):
        if not set(result) >= RESULT_KEYS or result["rank"] != rank:
            return f"bad result {rank}: {result!r}"
        if not isinstance(result["text"], str) or not isinstance(result["source"], str):
            return f"bad result {rank}: {result!r}"
    gate = reply.get("gate")
    if not isinstance(gate, dict) or not isinstance(gate.get("passed"), bool):
        return f"bad gate: {gate!r}"
    if not isinstance(reply.get("index"), dict):
        return "no index summary"
    return None


@pytest.mark.parametrize(
    ("files", "requests"), [(150, 40), pytest.param(1000, 250, marks=pytest.mark.stress)]
)
def test_eight_clients_search_while_files_are_indexed(
    tmp_path: Path, files: int, requests: int
) -> None:
    from ragcli.transport import Connection

    root = tmp_path / "notes"
    write_files(root, 0, 20)
    d = Daemon(tmp_path, [root]).start()
    d.wait_idle()
    write_files(root, 20, files)  # the watcher picks these up: the ingest under load
    wait_for(lambda: d.status()["pending"] > 0, 60, "the ingest to start")

    errors: list[str] = []
    replies = [0] * CLIENTS
    during_ingest = [0] * CLIENTS  # replies that said files were still pending
    go = threading.Barrier(CLIENTS)

    def client(n: int) -> None:
        conn = Connection(str(d.socket))
        try:
            go.wait(60)
            for i in range(requests):
                query = f"{QUERIES[(n + i) % len(QUERIES)]} {i}"
                top_k = 1 + (n + i) % 10
                try:
                    reply = conn.call("search", {"query": query, "top_k": top_k}, timeout_s=60)
                except Exception as exc:
                    errors.append(f"client {n} request {i}: {type(exc).__name__}: {exc}")
                    continue
                problem = well_formed(reply, query, top_k)
                if problem:
                    errors.append(f"client {n} request {i}: {problem}")
                replies[n] += 1
                during_ingest[n] += reply["_pending"] > 0
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    assert not any(t.is_alive() for t in threads), "a client hung"
    assert errors == [], errors[:20]
    assert replies == [requests] * CLIENTS
    # The load really overlapped the ingest.
    assert sum(during_ingest) > 0
    d.assert_alive()
    status = d.wait_idle(timeout=600)
    assert status["files"] == files + 20
    assert status["errors"] == []
    last = files + 19
    d.wait_searchable(f"P-{last:04d}", f"batch{last // 100:02d}/note{last:04d}.md")
    assert d.stop() == 0
