"""`wait` frames outlast the model's deadline counted from the request's arrival.

The model call's own clock starts after the retrieval, the floor's wait and the SDK's first
import. Frames that ended one deadline after the request arrived left the client in
silence until the call's error came: at load 8 a 9 s client gave up first
(tests/daemon/test_ask_keepalive.py, flaky for two helpers). They now go on while the
answer is under way, up to FRAMES_SPAN deadlines, and never after it."""

from __future__ import annotations

import threading
import time

from ragd.serve.ask import WaitFrames

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
