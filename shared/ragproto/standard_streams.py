"""Standard descriptors a parent closed (`ragd serve … <&- >&- 2>&-`, a cron job's or a
unit's closed output), opened on /dev/null before anything else opens a file (attack77).

With descriptor 1 or 2 closed, the next file opened takes its number: `ragd serve` held
its socket's lock file as descriptor 1 and its data dir's `ragd.lock` as 2, so whatever
wrote to standard error (a library's warning, a child process inheriting it, the forced
exit's line) wrote into a lock file; Python makes `sys.stdin`/`sys.stdout`/`sys.stderr`
None for such a descriptor, and `rag chat <&-` or `rag status >&-` ended in an
AttributeError traceback. Held on /dev/null, input reads as empty and output goes nowhere.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys

_STREAMS = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))


def hold_standard_descriptors() -> None:
    """Descriptors 0, 1 and 2 each open (on /dev/null when they were closed), and the
    `sys` stream of each one that was closed a text stream on it."""
    for fd, name, mode in _STREAMS:
        try:
            os.fstat(fd)
        except OSError:
            # The lowest free number: this one, as every lower one is open by now.
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:  # (only if a lower one closed meanwhile: leave it as it is)
                os.close(opened)
                continue
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115


# A full disk or quota, a file over its size limit, a device that fails: `rag search … >
# results.txt` and `ragd config > /dev/full` ended in a traceback (attack77).
OUTPUT_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def output_dropped() -> None:
    """stdout points at /dev/null from now on, so what is still buffered is dropped at exit
    without a second error."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def say_output_failed(program: str, exc: OSError) -> None:
    """After a write to stdout failed for space (`OUTPUT_FULL`): stdout dropped, and the
    one line saying so on stderr, as `rag` and `ragd` print it."""
    output_dropped()
    print(f"{program}: cannot write the output: {exc.strerror}", file=sys.stderr)
