"""`ragd check` from the command line: ask the daemon holding the data dir, or check offline.

The checks themselves live in `ragd.engine.checkup`; this module only decides who runs them
(the running daemon, over its socket through the client's transport, or this process) and
prints the result. It is in the cli layer because it is the daemon's one use of the client.

Checking offline, the vector index's probe child (`dense_probe.Reader`) is started as soon
as this module knows it will be wanted, before `ragd.engine.checkup` and what it needs
are imported: the child imports ChromaDB meanwhile, which was most of a check's time.
`ragd.engine.checkup` is imported only then, inside the functions, for that reason.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragd.core.exit_codes import CheckExit
from ragd.core.layout import DataDir
from ragd.core.vector_store import VectorStoreConfigError
from ragd.index.dense_probe import Reader

if TYPE_CHECKING:
    from ragd.core.config import Settings


# -- beside a running daemon ---------------------------------------------------------
def _lock_fd(data_dir: Path) -> int | None:
    """The data dir's lock file, read-only; None when there is none, or when something
    else is there (a FIFO: opened without O_NONBLOCK, it held `ragd check` for ever),
    which no daemon can be holding."""
    try:
        fd = os.open(DataDir(data_dir).lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _holder_record(fd: int) -> dict[str, Any]:
    """What the daemon holding the lock wrote into it (pid, socket)."""
    try:
        value = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
    except (OSError, ValueError):
        value = {}
    return value if isinstance(value, dict) else {}


def ask_daemon(data_dir: Path, record: dict[str, Any]) -> dict[str, Any]:
    from ragcli.transport import Connection
    from ragd.engine.checkup import QUIET_TIMEOUT_S
    from ragproto.errors import RagError

    pid, address = record.get("pid", "unknown"), record.get("socket")
    if not address:
        line = f"ragd pid {pid} holds {data_dir} but recorded no socket; stop it and rerun"
        return {"ok": False, "exit": CheckExit.UNANSWERED, "problems": [line]}
    conn = None
    try:
        # Connecting is inside: a daemon that is stopped or hung never completes the
        # handshake, and one whose socket was removed has none; both are its silence.
        conn = Connection(str(address))
        answer = conn.call("check", {}, timeout_s=QUIET_TIMEOUT_S + 60)
    except RagError as exc:
        line = (
            f"ragd pid {pid} holds {data_dir} and did not check it ({exc}); "
            "rerun when `rag status` says idle"
        )
        return {"ok": False, "exit": CheckExit.UNANSWERED, "problems": [line]}
    finally:
        if conn is not None:
            conn.close()
    answer.setdefault("exit", CheckExit.CONSISTENT if answer.get("ok") else CheckExit.REPAIRABLE)
    # The daemon names no absolute path in a reply: say which data dir here.
    answer["problems"] = [
        p.replace("`ragd reset`", f"`ragd reset --data-dir {data_dir}`")
        for p in answer.get("problems") or []
    ]
    return answer


def run(settings: Settings) -> dict[str, Any]:
    """`ragd check`: ask the daemon holding the data dir, or check it offline."""
    data_dir = settings.data_path
    if not DataDir(data_dir).manifest.exists():
        from ragd.engine.checkup import damaged

        return damaged(
            f"no index in {data_dir}; a daemon started with --data-dir DIR (`make run` uses "
            ".data) keeps its index there: pass the same --data-dir DIR"
        )
    fd = _lock_fd(data_dir)
    if fd is None:
        return _offline(settings)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return ask_daemon(data_dir, _holder_record(fd))
        return _offline(settings)  # the lock is ours until the descriptor closes
    finally:
        os.close(fd)


def _offline(settings: Settings) -> dict[str, Any]:
    """`offline_check`, its probe child started first when there is a vector index here
    to probe (ended unasked when the check stops short of probing)."""
    try:
        embedded = settings.vector_target.embedded
    except VectorStoreConfigError:  # offline_check meets it again, and says so as before
        embedded = False
    wanted = embedded and (DataDir(settings.data_path).vectors / "chroma.sqlite3").exists()
    reader = Reader() if wanted else None
    try:
        from ragd.engine.checkup import offline_check

        return offline_check(settings, reader)
    finally:
        if reader is not None:
            reader.close()


def render(result: dict[str, Any]) -> str:
    shown = {k: v for k, v in result.items() if k != "problems" and not k.startswith("_")}
    lines = [f"{key:>20}: {value}" for key, value in shown.items()]
    lines += [f"problem: {p}" for p in result.get("problems") or []]
    lines.append("consistent" if result.get("ok") else "INCONSISTENT")
    return "\n".join(lines)
