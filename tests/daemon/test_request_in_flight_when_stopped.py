"""A request already in flight when the daemon is stopped by a signal (attack73).

The door answers every *new* request of a stopped daemon (SIGSTOP, a debugger) with
`stopped` at once. One already sent was answered by nobody: a `rag ask` waiting on the
model when the daemon was stopped heard no more `wait` frames and waited out its whole
silence bound (ASK_TIMEOUT_S, 180 s), then said `ragd did not answer within 180 s`, exit
4, about a daemon that was only stopped. Now a client that meets a long silence asks the
door whether the daemon is stopped (one `ping` on a fresh connection), and says so in the
door's words, exit 3. Asserted by the outcome: the stopped line and exit 3, where the old
client ends on a timeout.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragproto.errors import ExitCode
from tests.conftest import SAMPLE_CORPUS
from tests.support.daemon import BIN, Daemon
from tests.support.fake_anthropic import FakeAnthropic

pytestmark = pytest.mark.slow

WITHIN_S = 90.0  # how long an event that must come is waited for (not a measure)


@pytest.fixture()
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def test_an_ask_in_flight_when_the_daemon_is_stopped_says_so(
    tmp_path: Path, fake: FakeAnthropic
) -> None:
    root = tmp_path / "sample_corpus"
    shutil.copytree(SAMPLE_CORPUS, root)
    config = tmp_path / "config.toml"
    config.write_text(f'anthropic_base_url = "{fake.base_url}"\napi_max_retries = 0\n')
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    d = Daemon(tmp_path, [root], env=env, extra_args=["--config", str(config)]).start()
    d.wait_idle()
    fake.reply_hang(300)  # accepts the model call and says nothing
    asking = subprocess.Popen(
        [str(BIN / "rag"), "ask", "Can I bring my dog on the ferry?"],
        env=d.env,
        cwd=d.tmp,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.wait_hanging(1, WITHIN_S), "the ask never reached the model"
        d.signal(signal.SIGSTOP)
        _, stderr = asking.communicate(timeout=400)  # past the old client's 180 s
    finally:
        d.signal(signal.SIGCONT)
        if asking.poll() is None:
            asking.kill()
    assert asking.returncode == ExitCode.NOT_RUNNING, stderr
    assert stderr.count("\n") == 1, stderr
    assert "is stopped and cannot answer" in stderr and "kill -CONT" in stderr, stderr
    # Let go, the daemon serves on.
    assert d.status()["state"] in ("idle", "indexing"), d.status()
    assert d.stop() == 0
