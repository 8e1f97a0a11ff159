"""`--in PATH` (and the MCP tools' `in`) as the daemon reads it.

The daemon has no idea where the client runs, so a path is made absolute here, against
this process's working directory. A value that is neither absolute nor an existing path
goes as written: the daemon reads it as a source label as results show it (`flask/docs`),
and, told this process's working folder (`cwd`), says a path that names no root but lies
in one from here is not there (`--in nosuchdir`), instead of outside every root.
A path through a link that names this process's own things (`/proc/self/cwd`, `/dev/fd/3`)
goes as the place it leads to here: the daemon, another process, would read its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from ragcli import render
from ragproto.errors import OutsideRoots
from ragproto.file_names import name_key

# Links the kernel points at the process that reads them: `rag ingest /proc/self/cwd` made
# the daemon's working folder a root (the repository it was started in, by hand; `/`
# under systemd) instead of the folder the user stood in.
_OWN_LINKS = (
    "/proc/self/",
    "/proc/thread-self/",
    "/dev/fd/",
    "/dev/stdin/",
    "/dev/stdout/",
    "/dev/stderr/",
)


def absolute(path: str) -> str:
    """`path` made absolute here, as the daemon is to read it."""
    full = os.path.abspath(path)
    return os.path.realpath(full) if (full + "/").startswith(_OWN_LINKS) else full


def scope_paths(values: Iterable[str] | None, printed: bool = False) -> dict[str, Any]:
    """The request's `in` argument, and `cwd` when a value goes as written ({} when there
    is no scope). `printed`: the values were
    typed by a user, who may have copied a source as `rag` prints it, control characters
    escaped (`evil\\x0aname.md`); one that is not an existing path is read back to the
    name itself, as `rag forget` reads a root's name."""
    paths = []
    as_written = False
    for value in values or []:
        if printed and not os.path.exists(os.path.expanduser(value)):
            value = render.unshown(value)
        path = os.path.expanduser(value)
        here = os.path.isabs(path) or os.path.exists(path)
        as_written = as_written or not here
        # a name that is not UTF-8 as its key: how the daemon prints and reads it
        paths.append(name_key(absolute(path) if here else value))
    if not paths:
        return {}
    # A value sent as written is read as a source label; one that names no root may be a
    # path typed in a folder inside a root that is not there (`--in nosuchdir`): with this
    # folder the daemon can say it is missing there, not outside every root.
    return {"in": paths} | (_working_folder() if as_written else {})


def _working_folder() -> dict[str, str]:
    """The request's `cwd`: this process's working folder ({} when it was deleted)."""
    try:
        return {"cwd": name_key(os.getcwd())}
    except OSError:
        return {}


def named_whole(exc: OutsideRoots, scope: dict[str, Any]) -> OutsideRoots:
    """`exc` naming the path this client sent rather than its last name. The daemon puts
    no absolute path in a reply, so `--in /etc` came back as "--in etc: not inside a
    watched root"; the client knows what it sent and says that."""
    text = str(exc)
    sent = [p for p in scope.get("in", []) if os.path.isabs(p) and os.path.basename(p.rstrip("/"))]
    said = {p: f"--in {render.shown(os.path.basename(p.rstrip('/')))}: " for p in sent}
    named = [p for p in sent if text.startswith(said[p])]
    if len(named) != 1:  # none, or `--in /a/etc --in /b/etc`: which one, the reply cannot say
        return exc
    (path,) = named
    return OutsideRoots(f"--in {render.shown(path)}: {text.removeprefix(said[path])}")
