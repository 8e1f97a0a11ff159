"""A request already in flight when the daemon is stopped by a signal (attack73).

The door answers every *new* request of a stopped daemon (SIGSTOP, a debugger) with
`stopped` at once. One already sent was answered by nobody: a `rag ask` waiting on the
model when the daemon was stopped heard no more `wait` frames and waited out its whole
silence bound (ASK_TIMEOUT_S, 180 s), then said `ragd did not answer within 180 s`, exit
4, about a daemon that was only stopped. Now a client that meets a long silence asks the
door whether the daemon is stopped (one `ping` on a fresh connection), and says so in the
door's words, exit 3. Asserted by the outcome: the stopped line and exit 3, where the old
client ends on a timeout.

A daemon stopped only for a moment (Ctrl-Z then `fg`, a debugger attaching) at the
instant of that look had ended a healthy ask the same way (fixes74): now a second look a
second later must find it stopped too. The test continues the daemon between the two,
the client's first look held until it has (`tests/support/stopped_look.py`).

The clients look after LOOK_S of silence, not STOPPED_LOOK_S's 15 s (the test hook sets
the client's constant): what is asserted is what a look does, not when it comes.
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
from tests.support.daemon import BIN, Daemon, wait_for
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.stopped_look import StoppedLook, looking_after

pytestmark = pytest.mark.slow

WITHIN_S = 90.0  # how long an event that must come is waited for (not a measure)
LOOK_S = 4.0  # the clients' silence before a look (STOPPED_LOOK_S: 15 s)
HANG_S = 10.0  # the continued test's hung model call: past the client's first look


@pytest.fixture()
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def keyed_daemon(tmp_path: Path, fake: FakeAnthropic, retries: int) -> Daemon:
    """A daemon over sample_corpus whose model is `fake`, started and idle."""
    root = tmp_path / "sample_corpus"
    shutil.copytree(SAMPLE_CORPUS, root)
    config = tmp_path / "config.toml"
    config.write_text(f'anthropic_base_url = "{fake.base_url}"\napi_max_retries = {retries}\n')
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    d = Daemon(tmp_path, [root], env=env, extra_args=["--config", str(config)]).start()
    d.wait_idle()
    return d


def ask(d: Daemon, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(BIN / "rag"), "ask", "Can I bring my dog on the ferry?"],
        env=d.env | (env or {}),
        cwd=d.tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_an_ask_in_flight_when_the_daemon_is_stopped_says_so(
    tmp_path: Path, fake: FakeAnthropic
) -> None:
    d = keyed_daemon(tmp_path, fake, retries=0)
    fake.reply_hang(300)  # accepts the model call and says nothing
    asking = ask(d, looking_after(LOOK_S))
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


def test_an_ask_whose_daemon_is_continued_between_two_looks_is_answered(
    tmp_path: Path, fake: FakeAnthropic
) -> None:
    d = keyed_daemon(tmp_path, fake, retries=1)
    # The model call hangs past the client's first look (LOOK_S), then its connection
    # closes; the call made again is answered.
    fake.reply_hang(HANG_S)
    fake.reply_text("FERRYMARK: dogs travel on a lead.\n\nConfidence: high")
    look = StoppedLook(tmp_path)
    asking = ask(d, look.env(LOOK_S))
    try:
        assert fake.wait_hanging(1, WITHIN_S), "the ask never reached the model"
        d.signal(signal.SIGSTOP)
        try:
            wait_for(look.entered, WITHIN_S, "the client's look to find the daemon stopped")
        finally:
            d.signal(signal.SIGCONT)
        look.release()  # the client goes on from its look, which found the daemon stopped
        stdout, stderr = asking.communicate(timeout=400)
    finally:
        look.release()
        if asking.poll() is None:
            asking.kill()
    assert asking.returncode == 0, stderr
    assert "FERRYMARK" in stdout, stdout
    assert "is stopped" not in stderr, stderr
    assert d.stop() == 0
