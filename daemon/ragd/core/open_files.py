"""As many open files as the system lets the daemon have.

libzmq aborts the whole process ("Too many open files (src/ipc_listener.cpp:…)",
SIGABRT) when it accepts a connection past RLIMIT_NOFILE. The soft limit is 1,024 for a
login shell and for systemd services (whose hard limit is 524,288), so about a thousand
idle connections to the socket — a script running `rag` in parallel, or any program of
the user's — killed the daemon mid-index. The daemon waits on descriptors with epoll
and poll, never select() (which cannot watch one numbered 1,024 or more:
`ingest/parse_pool.py`), so the soft limit can be raised to the hard one, as systemd
advises such programs to do; exhausting that takes hundreds of thousands of connections.

A hard limit of a few dozen (`prlimit --nofile=48:48`, a container's or a service's
`LimitNOFILE=`) cannot be raised: the daemon used 43 descriptors by itself over a
7-file folder (its databases, ChromaDB's, the parse workers' pipes, libzmq's eventfds),
could not list its root, and libzmq ended it at the first client. Below MIN_OPEN_FILES
`ragd serve` refuses to start (`too_few_open_files`), saying how to raise the limit.
"""

from __future__ import annotations

import logging
import resource

log = logging.getLogger("ragd")

CEILING = 1 << 20  # a hard limit of "unlimited" is not taken literally
# The daemon's own descriptors (≈ 45–50) and room for a couple of hundred clients.
MIN_OPEN_FILES = 256


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


def too_few_open_files() -> str | None:
    """Why the daemon cannot serve under the open-file limit it can have, or None. (The
    soft limit is raised first: only the hard limit can make it too few.)"""
    limit = raise_open_file_limit()
    if limit == resource.RLIM_INFINITY or limit >= MIN_OPEN_FILES:
        return None
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return (
        f"ragd may have only {limit} open files (RLIMIT_NOFILE; its hard limit is {hard}); "
        "it uses about 50 itself and one for each client connected, and libzmq ends the "
        f"process when none is left: raise the limit to at least {MIN_OPEN_FILES} "
        f"(`ulimit -n {MIN_OPEN_FILES}` before `ragd serve`, LimitNOFILE= in a systemd unit)"
    )
