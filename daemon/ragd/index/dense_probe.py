"""Is ChromaDB's vector index readable, and does it agree with its SQLite?

Asked in a child process (`python -m ragd.index.dense_probe PATH PARENT_PID`): a damaged
HNSW file can crash ChromaDB's native code with SIGSEGV, which would take the daemon (or
`ragd check`) down with it and, under systemd, loop. The child ends with the thread that
started it: a daemon killed mid-probe must not leave a reader (which may write) in the
folder the next daemon opens. The child opens the store exactly as the
daemon does, reads a spread-out sample of stored vectors back and searches for each one;
the parent judges the answer, including a crash or a hang.

The parent also compares the sampled vectors with the embedding cache in the manifest
(the truth they were computed from): random bytes over the graph file can leave vectors
that load and even find themselves, but are not the vectors ragd stored.

`ragd check` starts its child ahead of the folder (`Reader`, `python -m
ragd.index.dense_probe - PARENT_PID`): the child imports ChromaDB (most of a probe's time)
while the command imports its own modules and copies the folder, then reads which folder
to probe from its stdin. This module imports no numpy at the top, so that the command can
start that child before it has imported numpy itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

from ragd.core import parent_death

if TYPE_CHECKING:
    import numpy as np

SAMPLE = 32
TIMEOUT_S = 600.0
MISS_SHARE = 0.1  # more stored vectors than this that search cannot find: damaged


@dataclass
class ProbeResult:
    problem: str | None = None  # one phrase saying what is wrong, None when sound
    count: int = 0
    scopes: dict[str, list[str]] = field(default_factory=dict)  # id → scope keys (asked for)
    sample: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def ids(self) -> set[str]:
        """Every vector id (when asked for)."""
        return set(self.scopes)


def probe(
    path: Path, want_ids: bool = False, timeout: float = TIMEOUT_S, reader: Reader | None = None
) -> ProbeResult:
    """Probe the ChromaDB folder `path` in a child process (which may write to it): in
    `reader`, a child started ahead of it, when given, else in one started now."""
    if not (path / "chroma.sqlite3").exists():
        return ProbeResult()
    foreign = not_chroma_files(path)
    if foreign:
        return ProbeResult(problem=foreign)
    if reader is None:
        reader = Reader([str(path), str(os.getpid()), *(["--ids"] if want_ids else [])])
        asked = b""
    else:
        asked = json.dumps({"path": str(path), "ids": want_ids}).encode() + b"\n"
    try:
        returncode, stdout, stderr = reader.answer(asked, timeout)
    except subprocess.TimeoutExpired:
        return ProbeResult(problem=f"reading it did not finish within {timeout:g} s")
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return ProbeResult(problem=f"reading it crashed the reader ({name})")
    if returncode != 0:
        lines = stderr.decode(errors="replace").strip().splitlines()
        return ProbeResult(problem=f"it will not open ({lines[-1] if lines else 'no reason'})")
    import numpy as np

    answer = json.loads(stdout)
    return ProbeResult(
        problem=answer["problem"],
        count=answer["count"],
        scopes=answer.get("scopes") or {},
        sample={k: np.asarray(v, dtype=np.float32) for k, v in answer["sample"].items()},
    )


class ReaderProcess(Protocol):
    """What `Reader` uses of its child: `subprocess.Popen`'s names, its three streams piped."""

    def communicate(
        self, input: bytes | None = None, timeout: float | None = None
    ) -> tuple[bytes, bytes]: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


def execute_reader(args: list[str]) -> ReaderProcess:
    """`python -m ragd.index.dense_probe ARGS`, its stdin, stdout and stderr piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "ragd.index.dense_probe", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ | {"ANONYMIZED_TELEMETRY": "False"},
    )


# How `Reader` starts its child, given its arguments (PATH PARENT_PID [--ids], or - and
# PARENT_PID). Looked up at each start: ragd always executes a fresh interpreter; the tests'
# fork server, whose processes have ChromaDB imported, puts in its own
# (tests/support/store_fork.py).
launch: Callable[[list[str]], ReaderProcess] = execute_reader


class Reader:
    """The probe's child process. `Reader()` starts one ahead of its folder: it imports
    ChromaDB and then waits for `{"path": …, "ids": …}` on its stdin (`probe(…,
    reader=…)` sends it), or ends at once when its stdin closes; `close` ends one that
    was never asked (killed: until asked it has only imported)."""

    def __init__(self, args: list[str] | None = None) -> None:
        self.proc = launch(args or ["-", str(os.getpid())])

    def answer(self, asked: bytes, timeout: float) -> tuple[int, bytes, bytes]:
        """Send `asked` and wait for the child to end: its status, stdout and stderr.
        TimeoutExpired (the child killed) when it has not ended within `timeout`."""
        try:
            stdout, stderr = self.proc.communicate(asked, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.close()
            raise
        return self.proc.wait(), stdout, stderr  # ended: communicate waited for it

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


def not_chroma_files(path: Path) -> str | None:
    """What under the ChromaDB folder `path` ChromaDB never writes, or None. It writes
    only files and folders; anything else was put there, and reading it costs without
    bound: a FIFO named header.bin held the probe, and so `ragd serve` at "starting", for
    the probe's whole timeout (600 s), and `ragd check` copied a link to /dev/zero into
    its temporary folder until the disk was full. Links are not followed (lstat)."""
    for folder, folders, files in os.walk(path):
        for name in [*folders, *files]:
            mode = os.lstat(os.path.join(folder, name)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                where = os.path.relpath(os.path.join(folder, name), path)
                return f"{where} is {_kind(mode)}, not a file ChromaDB writes"
    return None


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def _child(path: Path, want_ids: bool) -> dict[str, object]:
    from ragd.index.dense import ChromaStore

    store = ChromaStore(path)
    answer: dict[str, object] = {"count": store.count(), "problem": None, "sample": {}}
    if want_ids:
        answer["scopes"] = store.scopes(sorted(store.all_ids()))
    try:
        sample = store.sample(SAMPLE)
    except Exception as exc:
        answer["problem"] = f"its stored vectors cannot be read ({exc})"
        return answer
    answer["sample"] = {k: v.tolist() for k, v in sample.items()}
    expected = min(SAMPLE, store.count())
    if len(sample) < expected:
        answer["problem"] = (
            f"{expected - len(sample)} of {expected} sampled vectors listed in its SQLite "
            "are missing from its HNSW index"
        )
        return answer
    misses = store.unfindable(sample)
    if misses > len(sample) * MISS_SHARE:
        answer["problem"] = (
            f"searching finds {misses} of {len(sample)} sampled vectors not at all "
            "(its HNSW graph disagrees with its SQLite)"
        )
    return answer


def _import_chromadb() -> None:
    """Import what opening an embedded store imports (ChromaDB and its Rust bindings: most
    of a probe's time). What fails to import here is left for the open to meet and report
    as it always has."""
    import ragd.index.dense  # noqa: F401

    with contextlib.suppress(ImportError):
        import chromadb.api.rust
        import chromadb.config  # noqa: F401


def _asked(args: list[str], stdin: IO[str]) -> tuple[Path, bool] | None:
    """The folder to probe and whether its ids are wanted: from the arguments, or when the
    first is `-`, from a line on stdin, read once ChromaDB is imported (None: no line)."""
    if args[0] != "-":
        return Path(args[0]), "--ids" in args[2:]
    _import_chromadb()
    line = stdin.readline()
    if not line:
        return None
    asked = json.loads(line)
    return Path(asked["path"]), bool(asked["ids"])


if __name__ == "__main__":
    parent_death.die_with_parent(int(sys.argv[2]))
    what = _asked(sys.argv[1:], sys.stdin)
    if what is not None:
        print(json.dumps(_child(*what)))
