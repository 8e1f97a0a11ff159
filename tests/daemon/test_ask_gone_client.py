"""Asks whose clients gave up stop costing the daemon (attack61).

Measured on main: 4 `rag ask`s against a model server that hangs, each stopped with
Ctrl-C, kept all 4 ask workers calling the model for nobody until their deadlines, and
the next user's `rag ask` took 31.3 s. Now `rag` sends `cancel` for its request on
Ctrl-C, `rag mcp` on its host's `notifications/cancelled`, and a client killed without a
word is noticed at its ask's next `wait` frame (which finds no connection): each hung
call's socket is shut down (the fake server sees its connection closed) and its worker
is free. Asserted by order, not by a duration: the hung calls are ended by their clients,
and the next answer arrives, while their own deadline (`api_timeout_s`) is still to
come."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from ragd.serve.ask import wait_interval
from tests.conftest import SAMPLE_CORPUS
from tests.daemon.test_mcp_malformed import INITIALIZE, INITIALIZED
from tests.support.daemon import BIN, Daemon
from tests.support.fake_anthropic import FakeAnthropic

pytestmark = pytest.mark.slow

DOGS = "Can I bring my dog on the ferry?"
DEADLINE_S = 40.0  # api_timeout_s, one attempt: the hung calls' own end
ASKS = 4  # the ask pool's workers: all of them held while the calls hang
WITHIN_S = 90.0  # how long an event that must come is waited for (not a measure)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory, fake: FakeAnthropic) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("gone")
    root = tmp / "sample_corpus"
    shutil.copytree(SAMPLE_CORPUS, root)
    config = tmp / "config.toml"
    config.write_text(
        f'anthropic_base_url = "{fake.base_url}"\napi_timeout_s = {DEADLINE_S:g}\n'
        "api_max_retries = 0\n"
    )
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    started = Daemon(tmp, [root], env=env, extra_args=["--config", str(config)]).start()
    started.wait_idle()
    yield started
    started.stop()


# Run as from a terminal, SIGINT at its default: a test run started in the background by
# a non-interactive shell (`make test &`, a CI script) ignores SIGINT, every child inherits
# that, and `rag ask` rightly keeps it (only `rag chat` takes SIGINT back), so Ctrl-C never
# reached it and it waited out the call's deadline (exit 7). exec keeps a default handler.
AS_FROM_A_TERMINAL = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def asking(daemon: Daemon) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", AS_FROM_A_TERMINAL, str(BIN / "rag"), "ask", DOGS],
        env=daemon.env,
        cwd=daemon.tmp,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def hang_every_worker(daemon: Daemon, fake: FakeAnthropic) -> list[subprocess.Popen[bytes]]:
    """ASKS `rag ask`s, each with its model call hanging at the fake server."""
    before = len(fake.hang_began)
    fake.reply_hang(120, times=ASKS)
    clients = [asking(daemon) for _ in range(ASKS)]
    assert fake.wait_hanging(before + ASKS, WITHIN_S), "the asks never reached the model"
    return clients


def the_next_ask_is_answered_before_the_hung_calls_end(daemon: Daemon, fake: FakeAnthropic) -> None:
    fake.reply_text("Dogs ride free.\nConfidence: high")
    done = daemon.rag("ask", DOGS)
    answered = time.monotonic()
    assert done.returncode == 0, done.stderr
    assert "Dogs ride free." in done.stdout
    # every hung call's deadline is still to come: its worker was freed by the client
    assert answered < min(fake.hang_began[-ASKS:]) + DEADLINE_S


def test_asks_stopped_with_ctrl_c_are_abandoned_at_once(
    daemon: Daemon, fake: FakeAnthropic
) -> None:
    hung_up = len(fake.hung_up)
    clients = hang_every_worker(daemon, fake)
    for client in clients:
        client.send_signal(signal.SIGINT)
    for client in clients:
        assert client.wait(WITHIN_S) == 130, client.stderr.read() if client.stderr else ""
    # the daemon closed every hung call: its clients said so
    assert fake.wait_hung_up(hung_up + ASKS, WITHIN_S)
    the_next_ask_is_answered_before_the_hung_calls_end(daemon, fake)


def test_asks_of_clients_killed_without_a_word_are_abandoned_at_the_next_wait_frame(
    daemon: Daemon, fake: FakeAnthropic
) -> None:
    assert wait_interval(DEADLINE_S) < DEADLINE_S  # a frame comes before the deadline
    hung_up = len(fake.hung_up)
    clients = hang_every_worker(daemon, fake)
    for n, client in enumerate(clients):
        client.send_signal(signal.SIGKILL if n % 2 else signal.SIGTERM)  # no word either way
    for client in clients:
        assert client.wait(WITHIN_S) < 0
    assert fake.wait_hung_up(hung_up + ASKS, WITHIN_S)
    the_next_ask_is_answered_before_the_hung_calls_end(daemon, fake)


def test_an_mcp_hosts_cancel_abandons_the_daemons_ask(daemon: Daemon, fake: FakeAnthropic) -> None:
    hung_up, began = len(fake.hung_up), len(fake.hang_began)
    fake.reply_hang(120)
    mcp = subprocess.Popen(
        [str(BIN / "rag"), "mcp"],
        env=daemon.env,
        cwd=daemon.tmp,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert mcp.stdin is not None and mcp.stdout is not None
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "ask", "arguments": {"question": DOGS}}
    cancelled = {"jsonrpc": "2.0", "method": "notifications/cancelled"}
    cancelled["params"] = {"requestId": 2, "reason": "the user stopped it"}
    try:
        for message in (json.dumps(INITIALIZE).encode(), INITIALIZED, json.dumps(call).encode()):
            mcp.stdin.write(message + b"\n")
        mcp.stdin.flush()
        assert fake.wait_hanging(began + 1, WITHIN_S)
        mcp.stdin.write(json.dumps(cancelled).encode() + b"\n")
        mcp.stdin.flush()
        assert fake.wait_hung_up(hung_up + 1, WITHIN_S)  # while `rag mcp` runs on
        assert time.monotonic() < fake.hang_began[-1] + DEADLINE_S
        assert mcp.poll() is None
        mcp.stdin.close()  # end of input: it exits, the cancelled call never answered
        assert mcp.wait(WITHIN_S) == 0, mcp.stderr.read() if mcp.stderr else ""
        replies = [json.loads(line) for line in mcp.stdout.read().splitlines() if line]
        assert [reply.get("id") for reply in replies] == [1], replies
    finally:
        if mcp.poll() is None:
            mcp.kill()
            mcp.wait(10)
