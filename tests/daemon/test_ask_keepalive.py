"""A model call that takes longer than the client listens for silence is the daemon's to end.

`rag ask` stops waiting after ASK_TIMEOUT_S (180 s) without a frame, while the daemon's
model call may run for `(api_max_retries + 1) × api_timeout_s` plus its waits between
attempts (220 s by default). Found by attack: an `anthropic_base_url` that accepts the
connection and never answers, default settings: after 180 s `rag: ragd did not answer
within 180 s` (exit 4, the daemon blamed), where the daemon would have said which API
did not answer one and a half seconds later. Here the same with a client that listens for
9 s of silence and a model call allowed 12 s (`wait` frames every 3 s: a quarter of it).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragcli.transport import Connection
from ragd.serve.ask import wait_interval
from ragproto.errors import BadRequest, ModelUnavailableError
from ragproto.protocol import WAIT_INTERVAL_S
from tests.conftest import SAMPLE_CORPUS
from tests.support.daemon import Daemon
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.hung_stat import HungStat

pytestmark = pytest.mark.slow

DOGS = "Can I bring my dog on the ferry?"
SILENCE_S = 9.0  # what this client waits for a frame: under the call's 12 s


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def slow_model(tmp_path: Path, fake: FakeAnthropic) -> Iterator[Daemon]:
    root = tmp_path / "sample_corpus"
    shutil.copytree(SAMPLE_CORPUS, root)
    config = tmp_path / "config.toml"
    config.write_text(
        f'anthropic_base_url = "{fake.base_url}"\napi_timeout_s = 12\napi_max_retries = 0\n'
    )
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    daemon = Daemon(tmp_path, [root], env=env, extra_args=["--config", str(config)]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


def test_a_model_call_longer_than_the_clients_silence_ends_with_the_daemons_error(
    slow_model: Daemon, fake: FakeAnthropic
) -> None:
    fake.reply_hang(120)  # accepts, never answers (released when the fake closes)
    conn = Connection(str(slow_model.socket))
    kinds: list[str] = []
    try:
        with pytest.raises(ModelUnavailableError) as caught:
            for reply in conn.stream("ask", {"question": DOGS}, SILENCE_S):
                kinds.append(str(reply.get("kind")))
    finally:
        conn.close()
    assert "did not answer within 12 s (1 attempt)" in str(caught.value)
    assert "wait" in kinds  # the daemon said it was still at it while the model was silent
    assert slow_model.search("dogs")["results"]  # and it goes on serving


def test_a_short_model_deadline_gets_its_wait_frames_sooner() -> None:
    assert wait_interval(220.0) == WAIT_INTERVAL_S  # the defaults: every 10 s
    assert wait_interval(12.0) == 3.0  # four within a 12 s call
    assert wait_interval(2.0) == 1.0  # never more often than the sender's one-second tick


def test_the_wait_frames_cover_the_retrieval_too(tmp_path: Path, fake: FakeAnthropic) -> None:
    """`ask --in` a path on a stalled mount, with a model configured: the scope's look-up
    waits out `disk_deadline_s` (6 s) before any retrieval, longer than this client listens
    for silence (4.5 s). The wait frames used to start only once the retrieval was done,
    so the client gave up ("ragd did not answer within 4.5 s") before the daemon's own
    error; now they start when the request does (every 3 s for a 12 s model deadline)."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "dogs.md").write_text("# Dogs\n\nDogs travel on the car deck in a crate.\n")
    (tmp_path / "hung-mount").mkdir()
    hung = HungStat(tmp_path, "hung-*")
    config = tmp_path / "config.toml"
    config.write_text(
        f'anthropic_base_url = "{fake.base_url}"\napi_timeout_s = 12\napi_max_retries = 0\n'
        "disk_deadline_s = 6.0\n"
    )
    env = hung.env() | {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    daemon = Daemon(tmp_path / "d", [root], env=env, extra_args=["--config", str(config)])
    daemon.start()
    conn = Connection(str(daemon.socket))
    kinds: list[str] = []
    try:
        daemon.wait_idle()
        args = {"question": DOGS, "in": [str(tmp_path / "hung-mount" / "x.md")]}
        with pytest.raises(BadRequest) as caught:
            for reply in conn.stream("ask", args, 4.5):
                kinds.append(str(reply.get("kind")))
        assert "did not answer within 6 s" in str(caught.value)
        assert "wait" in kinds
    finally:
        conn.close()
        hung.release()
        assert daemon.stop() == 0
