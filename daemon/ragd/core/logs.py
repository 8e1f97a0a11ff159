"""Logging to stderr: one line per event; journald-friendly under systemd.

When stderr is connected to the journal — systemd sets $JOURNAL_STREAM to the
``device:inode`` of that stream, and we check it still is our stderr, as sd-daemon(3)
advises — lines carry no timestamp (the journal adds one) and start with a syslog
``<N>`` priority, so `journalctl --user -u ragd -p warning` filters by level. Anywhere
else lines read ``12:34:56 WARNING ragd.indexer: …``. The lines are written by a thread of
their own (`log_queue`), so a stderr nobody reads never blocks the thread that logs.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from ragd.core import log_queue
from ragd.core.log_queue import QueuedHandler
from ragd.core.names import shown
from ragd.core.proc_stat import CLOCK_TICKS, proc_stat

# syslog priorities (sd-daemon.h): <2> crit, <3> err, <4> warning, <6> info, <7> debug.
_PRIORITY = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}
NOISY = (
    "chromadb",
    "httpx",
    "httpx2",  # the openai SDK's; at INFO it logs every request's URL
    "httpcore",
    "httpcore2",
    "sentence_transformers",
    "transformers",
    "urllib3",
    "watchdog",
    "anthropic",
    "openai",
    "filelock",
)


def priority(levelno: int) -> int:
    for level in sorted(_PRIORITY, reverse=True):
        if levelno >= level:
            return _PRIORITY[level]
    return 7


class OneLineFormatter(logging.Formatter):
    """A record's message is one line whatever it holds: control characters (a newline,
    ESC) are escaped as `names.shown` does for file names. A message that names a root
    by its folder's name (`watching new root …`) printed it raw, so a folder named with
    a newline forged a second log line, and one with ESC sequences retitled or cleared
    the terminal showing the log. (A traceback is added after, as the lines it is.)"""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = shown(record.message)
        return super().formatMessage(record)


class JournalFormatter(OneLineFormatter):
    """Each line of a record (a traceback too) gets the record's `<N>` prefix."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority(record.levelno)}>"
        text = super().format(record)
        return "\n".join(prefix + line for line in text.splitlines() or [""])


def journal_stream(environ: Mapping[str, str] | None = None, fd: int = 2) -> bool:
    """Is `fd` the stream systemd connected to the journal ($JOURNAL_STREAM = dev:inode)?"""
    env = os.environ if environ is None else environ
    device, sep, inode = env.get("JOURNAL_STREAM", "").partition(":")
    if not sep or not device.isdigit() or not inode.isdigit():
        return False
    try:
        st = os.fstat(fd)
    except OSError:
        return False
    return st.st_dev == int(device) and st.st_ino == int(inode)


def make_formatter(journal: bool) -> logging.Formatter:
    if journal:
        return JournalFormatter("%(name)s: %(message)s")
    return OneLineFormatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")


def setup_logging(level: str = "INFO", journal: bool | None = None) -> None:
    """The daemon's logging: lines queued to a writer thread (`log_queue`), so a stderr
    nobody reads never blocks the thread that logs."""
    handler = QueuedHandler(sys.stderr)
    handler.setFormatter(make_formatter(journal_stream() if journal is None else journal))
    log_queue.install(handler)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    set_level(level)
    # Python's warnings and a thread's uncaught exception are otherwise written to stderr
    # by the thread that raised them, past the queue (and block it when nobody reads).
    logging.captureWarnings(True)
    threading.excepthook = log_thread_exception


def log_thread_exception(args: threading.ExceptHookArgs) -> None:
    """`threading.excepthook`: a thread's uncaught exception as one logged error."""
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "a thread"
    logging.getLogger("ragd.thread").error(
        "uncaught exception in %s",
        name,
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),  # type: ignore[arg-type]
    )


def set_level(level: str) -> None:
    """Apply a level to ours; libraries stay at WARNING or above (they chatter at INFO)."""
    root = logging.getLogger()
    root.setLevel(level.upper())
    for noisy in NOISY:
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))


def error_line(message: str) -> str:
    """A fatal message printed before logging is set up, prefixed like a log line would be."""
    return f"<3>{message}" if journal_stream() else message


def process_clock() -> tuple[float, float]:
    """(wall s since this process was started, CPU s it used, all threads) — for start-up's
    debug lines, which count the interpreter and the imports too. The start time is the
    kernel's (/proc/self/stat, in clock ticks since boot); 0.0 where there is no /proc."""
    cpu = time.process_time()
    stat = proc_stat()
    try:
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except OSError:
        return 0.0, cpu
    if stat is None:
        return 0.0, cpu
    return max(0.0, uptime - stat.start_ticks / CLOCK_TICKS), cpu
