"""What reading suffix-less files' `#!` lines costs the walk: its CPU on a tree of FILES
suffix-less files with script reading off (no script language included), on (the default
include) for a first walk, and on again for a later walk with the same filter (a root's
sync, a rescan: `shebang.ScriptHeads` remembers each file's verdict by its version).

    .venv/bin/python bench/walk_heads.py [--files 100000] [--work /tmp/walk-heads]

The walk runs in this process on the writer's code (ingest/walking.py, the daemon's
PathFilter); each figure is the least of three runs' process CPU seconds (the page cache
warm after the first). Nothing is asserted: the ratios are printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragd.core.config import Settings  # noqa: E402
from ragd.ingest.filters import PathFilter  # noqa: E402
from ragd.ingest.walking import walk  # noqa: E402

FOLDERS = 100
BODY = b"From: someone\nSubject: a message with no suffix, as a Maildir holds them\n\nbody\n"


def tree(base: Path, files: int) -> Path:
    """FILES small suffix-less files in FOLDERS folders, made once."""
    top = base / f"bare-{files}"
    if (top / "done").exists():
        return top
    for i in range(files):
        folder = top / f"d{i % FOLDERS:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i:07d}").write_bytes(BODY)
    (top / "done").write_text("")
    return top


def walk_cpu(top: Path, mode: str) -> float:
    """The least process CPU of three walks of `top`: `off` (no script read), `first`
    (a fresh filter each time) or `again` (one filter, already walked once)."""
    best = float("inf")
    kept = PathFilter(Settings().include)
    if mode == "again":
        sum(1 for _ in walk(top, str(top), kept, False))
    for _ in range(3):
        path_filter = kept if mode == "again" else PathFilter(Settings().include)
        if mode == "off":
            path_filter._script_suffixes = set()  # as with no script language included
        started = time.process_time()
        sum(1 for _ in walk(top, str(top), path_filter, False))
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/walk-heads"))
    args = parser.parse_args()
    top = tree(args.work, args.files)
    off, first, again = (walk_cpu(top, mode) for mode in ("off", "first", "again"))
    print(f"walk of {args.files:,} suffix-less files, CPU s: {off:.2f} reading no #! line,")
    print(f"  {first:.2f} reading them (x{first / off:.2f}),")
    print(f"  {again:.2f} walked again with the same filter (x{again / off:.2f})")


if __name__ == "__main__":
    main()
