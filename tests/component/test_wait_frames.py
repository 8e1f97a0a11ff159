"""`wait` frames outlast the model's deadline counted from the request's arrival.

The model call's own clock starts after the retrieval, the floor's wait and the SDK's first
import. Frames that ended one deadline after the request arrived left the client in
silence until the call's error came: at load 8 a 9 s client gave up first
(tests/daemon/test_ask_keepalive.py, flaky for two helpers). They now go on while the
answer is under way, up to FRAMES_SPAN deadlines, and never after it."""

from __future__ import annotations

import threading
import time

import pytest

from ragd.serve import ask
from ragd.serve.ask import WaitFrames
from tests.support.daemon import wait_for

DEADLINE_S = 2.0  # a frame each second (wait_interval's floor)


class Recorder:
    """A responder that notes when each `wait` frame was sent."""

    def __init__(self) -> None:
        self.frames: list[float] = []
        self.past_deadline = threading.Event()
        self.start = time.monotonic()

    def wait(self) -> None:
        now = time.monotonic()
        self.frames.append(now)
        if now - self.start > DEADLINE_S + 0.5:
            self.past_deadline.set()


def test_frames_go_on_past_one_deadline_while_the_answer_runs_and_stop_with_it() -> None:
    waits, recorder = WaitFrames(), Recorder()
    with waits.during(recorder, DEADLINE_S):  # type: ignore[arg-type]  # wait() is all it uses
        # the answer is still under way after its deadline: a frame still comes
        assert recorder.past_deadline.wait(timeout=30)
    # A finished answer is no longer scheduled: the sender sends only to what is (its
    # frames go out under the same lock the block's end takes, so none follows it).
    assert id(recorder) not in waits._answers


def test_frames_go_on_for_each_steps_span_from_when_the_step_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A step (the answerer's build, the model call) that starts after the span from
    arrival has ended (the retrieval and the SDK's import took 18 s and more at load 20,
    where a 12 s call's frames had stopped at 21.6 s and its error came past 30.6 s)
    still gets frames for its own span, counted from its start."""
    monkeypatch.setattr(ask, "FRAMES_SPAN", 0.5)  # frames until 1 s after arrival
    waits, recorder = WaitFrames(), Recorder()
    with waits.during(recorder, DEADLINE_S):  # type: ignore[arg-type]  # wait() is all it uses
        span_end = recorder.start + ask.FRAMES_SPAN * DEADLINE_S
        while time.monotonic() < span_end + 1.0:  # the span from arrival is over
            time.sleep(0.1)
        started = time.monotonic()
        waits.step(recorder, DEADLINE_S, DEADLINE_S)  # type: ignore[arg-type]  # the call
        wait_for(lambda: any(t > started for t in recorder.frames), 30, "a frame during the call")
    assert id(recorder) not in waits._answers
