"""The children a restart in place leaves to the new image, and waiting for them.

`ragd` re-executes itself (`os.execv`, same pid: app/service.py, when its data dir was
replaced). Every child of the old image is then the new image's child, and when the old
image could not close them (the vector store's worker after an abandoned writer, a parse
worker) they end at or soon after the exec — their parent-death signal follows a thread
the exec ends, or they read their pipe's close — and nothing in the new image waited for
them: each stayed `<defunct>` for the daemon's life (review46/47, reap48).

Waiting for "every child this image has" is wrong: the new image's own children (its
store worker, which the tests' fork server even starts before any ragd code runs) would
be waited for too, and their exit status taken from the code that owns them (a SIGKILLed
worker read as "exit status 0"; df629bb, reverted). So the old image names the children
it leaves, with each one's start time, in an environment mark (`mark_for_exec`, just
before the exec), and the new image (`reap_inherited`, first thing in `Daemon.start`)
takes the mark out of its environment — no child of its own ever sees it — and waits,
on a daemon thread each, for exactly those that are still its children and started when
the mark says (a pid reused since is not one of them), one log line each when reaped.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from ragd.core.proc_stat import proc_stat

log = logging.getLogger("ragd")

MARK_ENV = "RAGD_LEFT_AT_EXEC"  # set by the old image, taken out by the new one


@dataclass(frozen=True)
class Child:
    pid: int
    start_ticks: int  # /proc/PID/stat's start time: a reused pid has another
    what: str  # for the log: its module (`-m`), program or command name


def children(parent: int | None = None) -> list[Child]:
    """The processes whose parent is `parent` (this process by default), ended and
    unreaped ones included, from a scan of /proc ([] without one)."""
    parent = os.getpid() if parent is None else parent
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.isdigit() and (stat := proc_stat(entry)) is not None and stat.ppid == parent:
            found.append(Child(int(entry), stat.start_ticks, describe(int(entry))))
    return sorted(found, key=lambda child: child.pid)


def describe(pid: int) -> str:
    """A process's name for the log: `python -m MODULE`'s module, else its program's
    file name, else the kernel's command name (all an ended process keeps)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        argv = []
    words = [word.decode(errors="replace") for word in argv if word]
    if "-m" in words[:-1]:
        return words[words.index("-m") + 1]
    if words:
        return os.path.basename(words[0])
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() or "a process"
    except OSError:
        return "a process"


def mark_for_exec(environ: MutableMapping[str, str] | None = None) -> list[Child]:
    """Name this process's children in the environment the exec passes on (none: no
    mark). Called just before `os.execv`; returns them."""
    env = os.environ if environ is None else environ
    left = children()
    if left:
        env[MARK_ENV] = json.dumps([[c.pid, c.start_ticks, c.what] for c in left])
    else:
        env.pop(MARK_ENV, None)
    return left


def take_mark(environ: MutableMapping[str, str] | None = None) -> list[Child]:
    """The children the previous image named that are still this process's own: same
    pid, this process their parent, the same start time. The mark is removed from the
    environment whatever it held (a malformed one names nothing)."""
    env = os.environ if environ is None else environ
    text = env.pop(MARK_ENV, None)
    if not text:
        return []
    try:
        named = [Child(int(pid), int(ticks), str(what)) for pid, ticks, what in json.loads(text)]
    except (ValueError, TypeError):
        return []
    me = os.getpid()
    return [
        child
        for child in named
        if (stat := proc_stat(child.pid)) is not None
        and stat.ppid == me
        and stat.start_ticks == child.start_ticks
    ]


def reap_inherited(
    environ: MutableMapping[str, str] | None = None,
    wait: Callable[[int, int], tuple[int, int]] = os.waitpid,
) -> list[Child]:
    """Take the mark and wait for each child it names, on a daemon thread each (the
    caller goes on at once); returns them. Call before this image starts any child:
    the mark then names none of its own, and none inherits the mark."""
    left = take_mark(environ)
    for child in left:
        name = f"ragd-reap-{child.pid}"
        threading.Thread(target=_reap, args=(child, wait), name=name, daemon=True).start()
    return left


def _reap(child: Child, wait: Callable[[int, int], tuple[int, int]]) -> None:
    try:
        _, status = wait(child.pid, 0)
    except ChildProcessError:  # reaped already: nothing is left of it
        return
    log.info(
        "reaped %s (pid %d), left by the previous image at the restart in place: %s",
        child.what,
        child.pid,
        ending(status),
    )


def ending(status: int) -> str:
    """A wait status in words: `exit status N` or `killed by SIGNAME`."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return f"exit status {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"
