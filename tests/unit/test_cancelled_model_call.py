"""A model call whose client gave up ends where it is, through the real SDKs (attack61).

4 `rag ask`s stopped with Ctrl-C on a model server that hangs kept the daemon calling it
for nobody until each call's deadline, every ask worker held: the next user waited 31 s.
A cancel (query/cancellation.py) now shuts the call's socket down from the cancelling
thread (call_deadline.py), which ends the read blocked on the silent server at once: the
server sees the connection closed, and `answer()` raises Cancelled without retrying.
Asserted by order, not by the clock's length: the answer has ended, and the server seen
its connection closed, while the call's deadline is still to come."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ragd.query.cancellation import Cancel
from ragd.query.claude import ClaudeAnswerer
from ragd.query.model_answerer import ModelAnswerer
from ragd.query.openai_chat import OpenAIAnswerer
from ragproto.errors import Cancelled
from tests.support.answering import DOGS
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_openai import FakeOpenAI
from tests.support.scripted_http import ScriptedServer

TIMEOUT_S = 30.0  # the call's own deadline: far beyond anything waited for here
WITHIN_S = 20.0  # how long an event that must come is waited for (not a measure)
QUESTION = "Can I bring my dog on the ferry?"
CHUNKS = [DOGS]


def claude(fake: ScriptedServer, retries: int) -> ModelAnswerer:
    return ClaudeAnswerer(
        "sk-test-not-a-real-key", base_url=fake.base_url, timeout_s=TIMEOUT_S, max_retries=retries
    )


def openai(fake: ScriptedServer, retries: int) -> ModelAnswerer:
    return OpenAIAnswerer(fake.base_url, "local-model", timeout_s=TIMEOUT_S, max_retries=retries)


SERVERS: list[tuple[type[ScriptedServer], Callable[[ScriptedServer, int], ModelAnswerer]]] = [
    (FakeAnthropic, claude),
    (FakeOpenAI, openai),
]


@pytest.fixture(params=SERVERS, ids=["anthropic", "openai"])
def served(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[ScriptedServer, Callable[[int], ModelAnswerer]]]:
    kind, build = request.param
    with kind() as fake:
        yield fake, lambda retries: build(fake, retries)


class Asking:
    """`answer()` on a thread of its own, as an ask worker runs it."""

    def __init__(self, answerer: ModelAnswerer, cancel: Cancel, json_mode: bool = False) -> None:
        self.outcome: BaseException | None = None
        self.ended = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(answerer, cancel, json_mode), daemon=True
        )
        self._thread.start()

    def _run(self, answerer: ModelAnswerer, cancel: Cancel, json_mode: bool) -> None:
        try:
            answerer.answer(QUESTION, CHUNKS, json_mode=json_mode, cancel=cancel)
        except BaseException as exc:
            self.outcome = exc
        finally:
            self.ended.set()


@pytest.mark.parametrize("json_mode", [False, True], ids=["stream", "json"])
def test_a_cancel_ends_a_call_blocked_on_a_silent_server(
    served: tuple[ScriptedServer, Callable[[int], ModelAnswerer]], json_mode: bool
) -> None:
    fake, build = served
    fake.reply_hang(120, times=3)
    cancel = Cancel()
    asking = Asking(build(2), cancel, json_mode)  # retries allowed: none must be made
    assert fake.wait_hanging(1, WITHIN_S)
    assert cancel.cancel()
    assert asking.ended.wait(WITHIN_S)
    assert fake.wait_hung_up(1, WITHIN_S)  # the server saw the connection closed
    assert isinstance(asking.outcome, Cancelled), asking.outcome
    assert time.monotonic() < fake.hang_began[0] + TIMEOUT_S  # before the call's own end
    assert len(fake.requests) == 1  # a cancelled call is not tried again


def test_a_cancel_before_the_call_sends_nothing(
    served: tuple[ScriptedServer, Callable[[int], ModelAnswerer]],
) -> None:
    fake, build = served
    cancel = Cancel()
    cancel.cancel()
    with pytest.raises(Cancelled):
        build(0).answer(QUESTION, CHUNKS, cancel=cancel)
    assert fake.requests == []


def test_a_cancel_ends_the_wait_between_attempts(
    served: tuple[ScriptedServer, Callable[[int], ModelAnswerer]],
) -> None:
    fake, build = served
    fake.reply_error(503, "overloaded_error", "busy", {"retry-after": "15"}, times=3)
    cancel = Cancel()
    asking = Asking(build(2), cancel)
    for _ in range(int(WITHIN_S / 0.05)):  # until the first attempt was answered
        if fake.requests:
            break
        time.sleep(0.05)
    assert cancel.cancel()
    assert asking.ended.wait(WITHIN_S)
    assert isinstance(asking.outcome, Cancelled), asking.outcome
    assert len(fake.requests) == 1


def test_an_answer_without_a_cancel_is_unchanged(
    served: tuple[ScriptedServer, Callable[[int], ModelAnswerer]],
) -> None:
    fake, build = served
    fake.reply_text("Dogs travel free [pets.md:Animals: dogs].\nConfidence: high")
    cancel = Cancel()
    answer: Any = build(0).answer(QUESTION, CHUNKS, cancel=cancel)
    assert answer.text.startswith("Dogs travel free")
    assert not cancel.cancelled
