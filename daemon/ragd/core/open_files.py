"""As many open files as the system lets the daemon have.

libzmq aborts the whole process ("Too many open files (src/ipc_listener.cpp:…)",
SIGABRT) when it accepts a connection past RLIMIT_NOFILE. The soft limit is 1,024 for a
login shell and for systemd services (whose hard limit is 524,288), so about a thousand
idle connections to the socket — a script running `rag` in parallel, or any program of
the user's — killed the daemon mid-index. The daemon waits on descriptors with epoll
and poll, never select() (which cannot watch one numbered 1,024 or more:
`ingest/parse_pool.py`), so the soft limit can be raised to the hard one, as systemd
advises such programs to do; exhausting that takes hundreds of thousands of connections.
"""

from __future__ import annotations

import logging
import resource

log = logging.getLogger("ragd")

CEILING = 1 << 20  # a hard limit of "unlimited" is not taken literally


def raise_open_file_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard one (at most CEILING); returns the limit
    in force afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = CEILING if hard == resource.RLIM_INFINITY else min(hard, CEILING)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open-file limit from %d (%s)", soft, exc)
            return soft
        return target
    return soft
