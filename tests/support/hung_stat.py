"""A file system that hangs on some names, for a real daemon (see
`hung_stat_hook/sitecustomize.py`): `HungStat(tmp, "hung-*")` gives the environment to
start the daemon with, says whether the daemon is stuck in a stat (`entered`), lets
every stuck call go on (`release`), and makes the next matching stat hang again (`rearm`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragproto.errors import BadRequest

if TYPE_CHECKING:
    from tests.support.daemon import Daemon

HOOK_DIR = Path(__file__).parent / "hung_stat_hook"
# A request's file system calls wait `disk_deadline_s` (5 s by default) on a stalled path;
# the tests that stall one on purpose wait 1 s, so each hung call costs a second, not five.
SHORT_DEADLINE = {"RAG_DISK_DEADLINE_S": "1"}


class HungStat:
    def __init__(
        self, tmp: Path, glob: str, opens: bool = False, for_s: float | None = None
    ) -> None:
        self.glob = glob
        self.opens = opens  # `os.open` of such a name hangs too
        self.for_s = for_s  # each call waits at most this long: a slow mount, not a stalled one
        self.entered_path = tmp / "stat-hook-entered"
        self.release_path = tmp / "stat-hook-release"

    def env(self) -> dict[str, str]:
        path = [str(HOOK_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]
        return {
            "PYTHONPATH": os.pathsep.join(path),
            "RAGD_TEST_HUNG_STAT": self.glob,
            "RAGD_TEST_HUNG_ENTERED": str(self.entered_path),
            "RAGD_TEST_HUNG_RELEASE": str(self.release_path),
            "RAGD_TEST_HUNG_OPEN": "1" if self.opens else "",
            "RAGD_TEST_HUNG_FOR_S": "" if self.for_s is None else str(self.for_s),
        }

    def entered(self) -> bool:
        return self.entered_path.exists()

    def release(self) -> None:
        """Every stuck call goes on, and every later one passes."""
        self.release_path.write_text("")

    def calls(self) -> list[str]:
        """The names of the hung calls so far, in order (numbered from 1)."""
        return self.entered_path.read_text().splitlines() if self.entered() else []

    def release_first(self, count: int) -> None:
        """Only calls 1 to `count` go on; later ones hang until `release`."""
        self.release_path.write_text(str(count))

    def rearm(self) -> None:
        """Without the release file (and the entered file, which numbers the calls), the
        next matching call is number 1 again and hangs: one daemon serves several tests."""
        self.release_path.unlink(missing_ok=True)
        self.entered_path.unlink(missing_ok=True)


def answers_of_many_calls(
    daemon: Daemon, op: str, count: int, timeout: float, **args: Any
) -> list[str]:
    """Make `count` calls of `op` at once (more than the search pool's workers and the
    parked look-ups together, for the stalled-mount tests) and return each one's answer:
    "answered", a BadRequest's text, or another error's name and text (a DaemonTimeout
    when a call held a worker)."""
    answers: list[str] = []

    def call() -> None:
        try:
            daemon.call(op, timeout=timeout, **args)
            answers.append("answered")
        except BadRequest as exc:
            answers.append(str(exc))
        except Exception as exc:
            answers.append(f"{type(exc).__name__}: {exc}")

    callers = [threading.Thread(target=call) for _ in range(count)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    return answers
