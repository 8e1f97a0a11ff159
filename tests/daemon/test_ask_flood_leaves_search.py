"""Asks stalled on a silent model server take no room from searches (attack61).

Every pooled request (ask, search, get, documents, stats, ingest) counted against one
limit of MAX_SLOW_IN_FLIGHT: 64 asks waiting on an `anthropic_base_url` that accepts and
never answers (each may wait its whole model deadline, 220 s with the defaults) left
every other client's `rag search` answered `ragd is busy (64 requests waiting)` for as
long as they waited. Each lane now has its own limit: a flood of asks is still refused
past it, and a search is answered meanwhile."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from ragd.serve.server import MAX_SLOW_IN_FLIGHT
from ragproto.protocol import PROTOCOL_VERSION
from tests.conftest import SAMPLE_CORPUS
from tests.support.daemon import Daemon
from tests.support.fake_anthropic import FakeAnthropic

pytestmark = pytest.mark.slow

REPLY_TIMEOUT_MS = 60_000  # a deadline for a reply that must come, not a pause


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def stalled_model(tmp_path: Path, fake: FakeAnthropic) -> Iterator[Daemon]:
    root = tmp_path / "sample_corpus"
    shutil.copytree(SAMPLE_CORPUS, root)
    config = tmp_path / "config.toml"
    config.write_text(
        f'anthropic_base_url = "{fake.base_url}"\napi_timeout_s = 120\napi_max_retries = 0\n'
    )
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    daemon = Daemon(tmp_path, [root], env=env, extra_args=["--config", str(config)]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


def send(sock: zmq.Socket[bytes], request_id: str, op: str, args: dict[str, Any]) -> None:
    body = {"v": PROTOCOL_VERSION, "id": request_id, "op": op, "args": args}
    sock.send(json.dumps(body).encode())


def finals_until(sock: zmq.Socket[bytes], request_id: str) -> dict[str, dict[str, Any]]:
    """Every final reply read, by id, up to the one to `request_id`."""
    finals: dict[str, dict[str, Any]] = {}
    for _ in range(10_000):  # bounded: wait frames come among them
        assert sock.poll(REPLY_TIMEOUT_MS), f"no reply to {request_id}"
        reply: dict[str, Any] = json.loads(sock.recv())
        if reply.get("kind") == "final":
            finals[reply["id"]] = reply
            if reply["id"] == request_id:
                return finals
    raise AssertionError(f"no final reply to {request_id}")


def test_asks_waiting_on_a_silent_model_leave_room_for_searches(
    stalled_model: Daemon, fake: FakeAnthropic
) -> None:
    fake.reply_hang(120, times=MAX_SLOW_IN_FLIGHT + 8)  # accepts, never answers
    flood: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    flood.setsockopt(zmq.LINGER, 0)
    flood.connect(f"ipc://{stalled_model.socket}")
    try:
        for n in range(MAX_SLOW_IN_FLIGHT + 1):
            send(flood, f"a{n}", "ask", {"question": "Can I bring my dog on the ferry?"})
        # the daemon reads one client's frames in order: once `ping` is answered, every
        # ask before it has been taken (and the one past the limit refused)
        send(flood, "p", "ping", {})
        finals = finals_until(flood, "p")
        assert [reply["error"]["type"] for reply in finals.values() if not reply["ok"]] == [
            "busy"
        ], finals
        # another client's search, while 64 asks wait on the model
        assert stalled_model.search("dogs")["results"]
    finally:
        flood.close(linger=0)
    stalled_model.assert_alive()
