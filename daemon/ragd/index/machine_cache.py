"""Per-machine decisions in the user's cache folder, shared by every data dir.

`$XDG_CACHE_HOME/ragd/<name>` (default ~/.cache/ragd): a list of entries, each the
machine's identity (ragd.index.machine.identity) with what was decided there, so a home
folder shared by several machines keeps one entry per machine. Written atomically (a
temporary file renamed over it), so two daemons starting together never leave half a file;
the later one wins, and both wrote an equally valid decision.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

log = logging.getLogger(__name__)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragd"


def read(path: Path, machine: dict[str, str]) -> dict[str, Any] | None:
    """The decision stored for `machine`, or None (never stored, or unreadable)."""
    for entry in _entries(path):
        if entry.get("machine") == machine and isinstance(entry.get("decision"), dict):
            return dict(entry["decision"])
    return None


def write(path: Path, machine: dict[str, str], decision: dict[str, Any]) -> None:
    """Store `decision` for `machine`, keeping other machines' entries. An unwritable cache
    folder only means deciding again next time."""
    entries = [e for e in _entries(path) if e.get("machine") != machine]
    entries.append({"machine": machine, "decision": decision})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"machines": entries}, indent=2))
        tmp.replace(path)
    except OSError as exc:
        log.warning("could not cache a per-machine decision in %s (%s)", path, exc)


MAX_BYTES = 1 << 20  # a few entries of a few hundred bytes each: far more is not ours


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading if it is a regular file, else OSError. The cache folder
    is the user's: a FIFO put there would hold the reader (start-up) until a writer came."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path.name} is not a regular file")
    return os.fdopen(fd, "rb")


def _entries(path: Path) -> list[dict[str, Any]]:
    try:
        with open_regular(path) as stream:
            text = stream.read(MAX_BYTES + 1)
        if len(text) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES} bytes")
        data = json.loads(text)
        entries = data["machines"]
        if not isinstance(entries, list):
            raise TypeError("machines is not a list")
        return [e for e in entries if isinstance(e, dict)]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring an unreadable %s (%s)", path, exc)
        return []
