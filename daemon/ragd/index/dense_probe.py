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
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ragd.core import parent_death

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


def probe(path: Path, want_ids: bool = False, timeout: float = TIMEOUT_S) -> ProbeResult:
    """Probe the ChromaDB folder `path` in a child process (which may write to it)."""
    if not (path / "chroma.sqlite3").exists():
        return ProbeResult()
    foreign = not_chroma_files(path)
    if foreign:
        return ProbeResult(problem=foreign)
    command = [sys.executable, "-m", "ragd.index.dense_probe", str(path), str(os.getpid())]
    try:
        done = subprocess.run(
            command + (["--ids"] if want_ids else []),
            capture_output=True,
            timeout=timeout,
            env=os.environ | {"ANONYMIZED_TELEMETRY": "False"},
        )
    except subprocess.TimeoutExpired:
        return ProbeResult(problem=f"reading it did not finish within {timeout:g} s")
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        return ProbeResult(problem=f"reading it crashed the reader ({name})")
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        return ProbeResult(problem=f"it will not open ({lines[-1] if lines else 'no reason'})")
    answer = json.loads(done.stdout)
    return ProbeResult(
        problem=answer["problem"],
        count=answer["count"],
        scopes=answer.get("scopes") or {},
        sample={k: np.asarray(v, dtype=np.float32) for k, v in answer["sample"].items()},
    )


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


if __name__ == "__main__":
    parent_death.die_with_parent(int(sys.argv[2]))
    print(json.dumps(_child(Path(sys.argv[1]), "--ids" in sys.argv[3:])))
