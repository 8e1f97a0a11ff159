"""Protocol abuse against a real daemon over its real socket (issue 5, item 3).

More than 10,000 malformed frames from several DEALER sockets — invalid JSON, wrong
types, unknown ops, wrong protocol versions, empty and multi-part frames, JSON too deep
to parse, lone surrogates, non-finite numbers, frames over `max_message_bytes` — are
interleaved with valid searches. Every malformed frame gets its typed error reply, every
valid search its right answer, the daemon never exits, never logs per bad frame, and its
memory stays bounded. The RSS bound (150 MB of growth) is a leak guard, not a speed
threshold: a daemon that kept anything per frame would grow by far more.

A client that sends and never reads cannot block the daemon or grow it without bound:
its replies queue only up to the ROUTER's send high-water mark, then ZeroMQ drops them.
Nor can a flood of `ask` requests queue without limit on the worker pool: past
MAX_SLOW_IN_FLIGHT they are answered `busy` at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zmq

from ragcli.transport import Connection
from ragd.serve.server import MAX_SLOW_IN_FLIGHT, SEND_HWM
from ragproto import protocol
from ragproto.errors import VersionMismatch
from ragproto.protocol import PROTOCOL_VERSION
from tests.support.daemon import Daemon
from tests.support.processes import live_children

MAX_MESSAGE_BYTES = 64 * 1024  # small, so an oversize frame is cheap to send
RSS_GROWTH_LIMIT_KB = 150 * 1024  # leak guard (see the module docstring)
REPLY_TIMEOUT_MS = 60_000  # a deadline for a reply that must come, not a pause
TOKENS = {"quokkaferry": "ferry.md", "wombatgarden": "garden.md", "narwhalatlas": "atlas.md"}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("abuse")
    root = tmp / "docs"
    root.mkdir()
    for token, name in TOKENS.items():
        title = name.removesuffix(".md").title()
        (root / name).write_text(f"# {title}\n\nThe {title.lower()} notes carry {token}.\n")
    daemon = Daemon(tmp, [root], env={"RAG_MAX_MESSAGE_BYTES": str(MAX_MESSAGE_BYTES)})
    daemon.start()
    daemon.wait_idle()
    for token, name in TOKENS.items():
        daemon.wait_searchable(token, name)
    yield daemon
    daemon.stop()


def rss_kb(daemon: Daemon) -> int:
    """The daemon's resident memory and its door's: replies a client does not read wait in
    the door's ROUTER (serve/door.py), not in the daemon, and are bounded there."""
    assert daemon.proc is not None
    pids = [daemon.proc.pid, *live_children(daemon.proc.pid, "ragd.serve.door")]
    return sum(resident_kb(pid) for pid in pids)


def resident_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS line")


def dealer(daemon: Daemon) -> zmq.Socket[bytes]:
    sock: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"ipc://{daemon.socket}")
    return sock


def frame(**fields: object) -> bytes:
    return json.dumps(fields).encode()


def request(request_id: str, op: str, args: object = None, v: object = PROTOCOL_VERSION) -> bytes:
    body: dict[str, object] = {"v": v, "id": request_id, "op": op}
    if args is not None:
        body["args"] = args
    return frame(**body)


# Malformed requests. Each kind builds the frames for one request number `n` and says
# which error type the reply must carry and which id it must echo: every reply carries
# the id of the request it answers when that id can be read (a string of 1 to 128
# characters in a one-frame JSON object), whatever else is wrong with it (fix23, item 3:
# a bad `op`, `args` or version was answered with id "", which a client pipelining
# requests cannot match); only a frame without one is answered with id "".
def malformed(n: int) -> tuple[list[bytes], str, str]:
    """(frames, expected error type, expected reply id) for malformed request number n."""
    i = f"m{n}"
    v = PROTOCOL_VERSION
    kinds: list[tuple[list[bytes], str, str]] = [
        ([b"not json at all"], "bad_request", ""),
        ([b""], "bad_request", ""),  # an empty frame
        ([b"\xff\xfe\x00garbage"], "bad_request", ""),  # not UTF-8
        ([b"[1, 2, 3]"], "bad_request", ""),
        ([b"null"], "bad_request", ""),
        ([b'"just a string"'], "bad_request", ""),
        ([b"{" * 3000], "bad_request", ""),  # truncated JSON
        ([b"[" * 20_000 + b"]" * 20_000], "bad_request", ""),  # too deep for the parser
        ([request(i, "status", v=99)], "version_mismatch", i),
        ([request(i, "status", v="1")], "version_mismatch", i),
        ([frame(id=i, op="status")], "version_mismatch", i),  # no version at all
        ([frame(v=v, id=7, op="status")], "bad_request", ""),  # id of the wrong type
        ([frame(v=v, id="x" * 200, op="status")], "bad_request", ""),  # id too long
        ([frame(v=v, id=i, op=["search"])], "bad_request", i),  # op of the wrong type
        ([frame(v=v, id=i)], "bad_request", i),  # no op at all
        ([request(i, "explode")], "unknown_op", i),
        ([request(i, "__init__")], "unknown_op", i),
        ([request(i, "search", args=["query"])], "bad_request", i),  # args not an object
        ([request(i, "search", args={"query": 5})], "bad_request", i),
        ([request(i, "search", args={})], "bad_request", i),  # missing query
        ([request(i, "search", args={"query": "x", "top_k": "ten"})], "bad_request", i),
        ([request(i, "search", args={"query": "x", "top_k": 10**9})], "bad_request", i),
        ([request(i, "search", args={"query": "x", "top_k": True})], "bad_request", i),
        ([request(i, "search", args={"query": "x", "mode": "evil"})], "bad_request", i),
        ([request(i, "search", args={"query": "x" * 5000})], "bad_request", i),
        ([request(i, "search", args={"query": "x", "min_score": "high"})], "bad_request", i),
        (
            [b'{"v":1,"id":"%s","op":"search","args":{"query":"x","min_score":NaN}}' % i.encode()],
            "bad_request",
            i,
        ),
        (
            [b'{"v":1,"id":"%s","op":"search","args":{"query":"\\ud800"}}' % i.encode()],
            "bad_request",
            i,
        ),
        # A lone surrogate in the id is echoed in the reply (which UTF-8 cannot encode):
        # this frame used to stop the daemon.
        ([b'{"v":1,"id":"\\ud800%s","op":"explode"}' % i.encode()], "unknown_op", "\ud800" + i),
        ([request(i, "ingest", args={"path": "relative/path"})], "bad_request", i),
        ([request(i, "forget", args={"root": 42})], "bad_request", i),
        ([request(i, "ask", args={"question": 7})], "bad_request", i),  # the worker pool path
        ([request(i, "ask", args={"question": "x", "json": "yes"})], "bad_request", i),
        ([request(i, "chat_reset", args={})], "bad_request", i),
        ([b"{}", b"second part"], "bad_request", ""),  # multi-part
        ([request(i, "status"), b"extra"], "bad_request", ""),
        ([b"", b"", b""], "bad_request", ""),
    ]
    return kinds[n % len(kinds)]


def valid_search(n: int) -> tuple[bytes, str, str]:
    """(frame, request id, the source that must rank first) for valid query number n."""
    token = list(TOKENS)[n % len(TOKENS)]
    mode = "hybrid" if n % 2 else "bm25"
    request_id = f"q{n}"
    return (
        request(request_id, "search", args={"query": token, "top_k": 3, "mode": mode}),
        request_id,
        TOKENS[token],
    )


@dataclass
class Expectations:
    """What one socket is owed: anonymous error types in order, the rest by id."""

    anonymous: list[str] = field(default_factory=list)
    by_id: dict[str, str] = field(default_factory=dict)  # id → error type or "ok:<source>"

    def outstanding(self) -> int:
        return len(self.anonymous) + len(self.by_id)


def expect_malformed(sock: zmq.Socket[bytes], exp: Expectations, n: int) -> None:
    frames, error_type, reply_id = malformed(n)
    sock.send_multipart(frames)
    if reply_id:
        exp.by_id[reply_id] = error_type
    else:
        exp.anonymous.append(error_type)


def check_replies(sock: zmq.Socket[bytes], exp: Expectations, problems: list[str]) -> int:
    """Read every reply this socket is owed and check each; returns replies read."""
    read = 0
    while exp.outstanding():
        assert sock.poll(REPLY_TIMEOUT_MS), f"no reply; still owed {exp.outstanding()}"
        reply = json.loads(sock.recv())
        read += 1
        reply_id = reply.get("id", "")
        want = exp.anonymous.pop(0) if reply_id == "" else exp.by_id.pop(reply_id)
        if want.startswith("ok:"):
            if not reply["ok"]:
                problems.append(f"valid query {reply_id} failed: {reply['error']}")
            elif reply["data"]["results"][0]["source"] != want[3:]:
                problems.append(f"valid query {reply_id} ranked the wrong source first")
        elif reply["ok"] or reply["error"]["type"] != want:
            problems.append(f"wanted {want}, got {json.dumps(reply)[:200]}")
        elif not reply["error"]["message"]:
            problems.append(f"{want} reply without a message")
    return read


def assert_search_served(sock: zmq.Socket[bytes], n: int) -> None:
    """Send valid query number n on `sock` and check it is answered, and correctly."""
    data, request_id, source = valid_search(n)
    sock.send(data)
    problems: list[str] = []
    check_replies(sock, Expectations(by_id={request_id: f"ok:{source}"}), problems)
    assert problems == []


def test_ten_thousand_malformed_frames_interleaved_with_valid_queries(target: Daemon) -> None:
    sockets = [dealer(target) for _ in range(4)]
    try:
        # Warm-up: the first requests allocate caches that are not leaks.
        warm = Expectations()
        for n in range(200):
            expect_malformed(sockets[0], warm, n)
        for n in range(6):
            data, request_id, source = valid_search(n)
            sockets[0].send(data)
            warm.by_id[request_id] = f"ok:{source}"
        warm_problems: list[str] = []
        check_replies(sockets[0], warm, warm_problems)
        assert warm_problems == []
        log_lines_before = len(target.log().splitlines())
        rss_before = rss_kb(target)

        rounds, burst = 64, 40  # 4 sockets x 64 rounds x 40 = 10,240 malformed frames
        problems: list[str] = []
        malformed_sent = valid_sent = replies = 0
        started = time.monotonic()
        for r in range(rounds):
            owed = [Expectations() for _ in sockets]
            for s, sock in enumerate(sockets):
                for b in range(burst):
                    expect_malformed(sock, owed[s], (r * len(sockets) + s) * burst + b)
                    malformed_sent += 1
                    if b == burst // 2:  # one valid query in the middle of each burst
                        data, request_id, source = valid_search(valid_sent)
                        sock.send(data)
                        owed[s].by_id[request_id] = f"ok:{source}"
                        valid_sent += 1
            for s, sock in enumerate(sockets):
                replies += check_replies(sock, owed[s], problems)
        elapsed = time.monotonic() - started
        rss_after = rss_kb(target)
        target.assert_alive()

        assert malformed_sent >= 10_000
        assert replies == malformed_sent + valid_sent  # every frame answered, once
        assert problems == [], problems[:10]
        growth = rss_after - rss_before
        print(
            f"\nprotocol abuse: {malformed_sent} malformed + {valid_sent} valid frames on "
            f"{len(sockets)} sockets in {elapsed:.1f} s "
            f"({(malformed_sent + valid_sent) / elapsed:,.0f} frames/s); "
            f"daemon RSS {rss_before / 1024:.0f} MB → {rss_after / 1024:.0f} MB "
            f"({growth / 1024:+.1f} MB)"
        )
        assert growth < RSS_GROWTH_LIMIT_KB
        # Malformed frames are answered, not logged: no line per frame, no traceback.
        added = target.log().splitlines()[log_lines_before:]
        assert len(added) < 20, added[:20]
        assert "Traceback" not in target.log()
    finally:
        for sock in sockets:
            sock.close(linger=0)


def test_oversize_frame_drops_only_that_connection(target: Daemon) -> None:
    big = b'{"v":1,"id":"big","op":"search","args":{"query":"' + b"x" * (4 << 20) + b'"}}'
    assert len(big) > MAX_MESSAGE_BYTES
    rss_before = rss_kb(target)
    abuser, bystander = dealer(target), dealer(target)
    try:
        for attempt in range(24):  # ≈ 100 MB offered in all, none of it may be buffered whole
            abuser.send(big, copy=False)
            assert_search_served(bystander, attempt)  # the bystander is served meanwhile
        # The daemon never answers an oversize frame: it drops the connection at the
        # frame header. (Waiting here is for a reply that must not come.)
        assert not abuser.poll(1000)
        rss_after = rss_kb(target)
        # ZeroMQ reconnects the abuser, and it is served like anyone else afterwards.
        assert_search_served(abuser, 1)
    finally:
        abuser.close(linger=0)
        bystander.close(linger=0)
    target.assert_alive()
    growth = rss_after - rss_before
    print(
        f"\noversize frames: 24 x {len(big) >> 20} MB offered; daemon RSS "
        f"{rss_before / 1024:.0f} MB → {rss_after / 1024:.0f} MB ({growth / 1024:+.1f} MB)"
    )
    assert growth < 48 * 1024  # less than half of what was offered: nothing buffered whole
    assert "Traceback" not in target.log()


def test_a_client_of_another_version_is_told_so(
    target: Daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rag`'s transport reads only the reply carrying its request's id: the version
    mismatch, answered with id "", was skipped, and an older or newer client waited for
    its timeout ("ragd did not answer") instead of being told to upgrade (fix23, item 3)."""
    monkeypatch.setattr(protocol, "PROTOCOL_VERSION", PROTOCOL_VERSION + 1)
    conn = Connection(str(target.socket))
    try:
        with pytest.raises(VersionMismatch, match="upgrade the client and the daemon together"):
            conn.call("status", {}, timeout_s=REPLY_TIMEOUT_MS / 1000)
    finally:
        conn.close()


def test_client_that_never_reads_cannot_block_or_bloat_the_daemon(target: Daemon) -> None:
    hog, reader = dealer(target), dealer(target)
    hog.setsockopt(zmq.RCVHWM, 1000)
    flood = SEND_HWM * 3  # three times what the daemon queues for one client
    frames = [b"not json", request("h", "explode")]
    rss_before = rss_kb(target)
    sent = 0
    try:
        while sent < flood:
            if not hog.poll(REPLY_TIMEOUT_MS, zmq.POLLOUT):
                raise AssertionError(f"the daemon stopped reading after {sent} frames")
            hog.send(frames[sent % 2])
            sent += 1
            if sent % 5000 == 0:
                # Meanwhile another client is answered, and correctly.
                assert_search_served(reader, sent // 5000)
        rss_after = rss_kb(target)
        received = 0
        while hog.poll(1000):  # now read what reached the hog, until nothing more comes
            while True:
                try:
                    hog.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break
                received += 1
        # A last request: the daemon answers one client in order, so when its reply
        # arrives every frame of the flood has been handled (answered or dropped).
        hog.send(request("last", "ping"))
        while True:
            assert hog.poll(REPLY_TIMEOUT_MS), "no reply to the last request"
            if json.loads(hog.recv()).get("id") == "last":
                break
            received += 1
    finally:
        hog.close(linger=0)
        reader.close(linger=0)
    target.assert_alive()
    growth = rss_after - rss_before
    print(
        f"\nnon-reading client: {sent} frames sent, {received} replies still delivered "
        f"({sent - received} dropped at the high-water mark); daemon and door RSS "
        f"{rss_before / 1024:.0f} MB → {rss_after / 1024:.0f} MB ({growth / 1024:+.1f} MB)"
    )
    assert 0 < received < sent  # queued up to the high-water marks, the rest dropped
    assert growth < RSS_GROWTH_LIMIT_KB


def test_flood_of_slow_requests_is_bounded(target: Daemon) -> None:
    """`ask` runs on a worker pool; a flood of them cannot queue without limit: past
    MAX_SLOW_IN_FLIGHT the daemon answers `busy` at once, and every request still gets
    exactly one final reply."""
    flood = 600
    sock = dealer(target)
    rss_before = rss_kb(target)
    try:
        for n in range(flood):
            sock.send(request(f"a{n}", "ask", args={"question": "Which notes carry quokkaferry?"}))
        finals: dict[str, dict[str, Any]] = {}
        while len(finals) < flood:
            assert sock.poll(REPLY_TIMEOUT_MS), f"{flood - len(finals)} asks unanswered"
            reply = json.loads(sock.recv())
            if reply.get("kind") == "final":
                assert reply["id"] not in finals, "two final replies to one request"
                finals[reply["id"]] = reply
    finally:
        sock.close(linger=0)
    busy = [r for r in finals.values() if not r["ok"] and r["error"]["type"] == "busy"]
    answered = [r for r in finals.values() if r["ok"]]
    assert len(busy) + len(answered) == flood, [r for r in finals.values() if r not in busy][:3]
    assert busy and len(answered) >= MAX_SLOW_IN_FLIGHT
    assert all(r["data"]["answer"] for r in answered)
    target.assert_alive()
    growth = rss_kb(target) - rss_before
    print(
        f"\nask flood: {len(answered)} answered, {len(busy)} told busy; RSS {growth / 1024:+.1f} MB"
    )
    assert growth < RSS_GROWTH_LIMIT_KB
