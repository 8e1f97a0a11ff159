"""Child processes that end with their parent, in one place: Linux's parent-death
signal (`prctl(PR_SET_PDEATHSIG, sig)`), which the kernel sends when the *thread* that
started the process ends, however it ends (`kill -9` included).

Used by the parse worker, the vector index probe and the vector store's worker
(index/store_worker.py) for themselves (`die_with_parent`, at start: a daemon killed
mid-parse must not leave it parsing for an hour, nor one killed mid-probe or mid-write
leave a process in its ChromaDB folder while the next daemon opens it), by the
parse worker for tesseract and by the bench for its daemons (`preexec`, run in the child
between fork and exec). Off Linux there is no
prctl and nothing is armed: pipes closing and timeouts still bound those children.
"""

from __future__ import annotations

import ctypes
import os
import signal
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # linux/prctl.h

Prctl = Callable[..., int]


def libc_prctl() -> Prctl | None:
    """libc's prctl, or None without one. Looked up in the parent: loading a library
    between fork and exec is not safe in a threaded process."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


def arm(signal_number: int, prctl: Prctl | None) -> None:
    """Have the kernel send `signal_number` to this process when its parent thread ends."""
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal_number, 0, 0, 0)


def preexec(signal_number: int) -> Callable[[], None]:
    """A `preexec_fn` that arms the child before it runs its program."""
    prctl = libc_prctl()
    return lambda: arm(signal_number, prctl)


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when the thread of `parent` that started it ends. The parent
    (its pid passed on the command line) may have died before this was armed: then exit
    now. Without prctl (not Linux) nothing is armed."""
    arm(signal.SIGKILL, libc_prctl())
    if os.getppid() != parent:
        os._exit(0)
