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
from pathlib import Path
from typing import Any

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


def _entries(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text())
        entries = data["machines"]
        if not isinstance(entries, list):
            raise TypeError("machines is not a list")
        return [e for e in entries if isinstance(e, dict)]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring an unreadable %s (%s)", path, exc)
        return []
