"""What a save costs the daemon inside a folder of many files, and beside it.

    .venv/bin/python bench/save_in_a_big_folder.py [--files 20000] [--saves 6] [--code DIR]

A root holding FILES empty notes in `empties/` and one note (hostile70's root). Once the
daemon is idle, SAVES notes are written beside the folder, then SAVES empty notes inside
it are filled; for each, the daemon's CPU seconds over the SETTLE_S after the save (no
search meanwhile: only the save's own work and that much idling), then an append to the
same note and how soon a search finds it. `--code DIR` runs the daemon from another
source tree (as `bench/loop_stall.py`), e.g. the commit before a change:

    git archive 962a9a17 daemon shared | tar -x -C /tmp/base
    .venv/bin/python bench/save_in_a_big_folder.py --code /tmp/base
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import BenchDaemon, code_env  # noqa: E402

SETTLE_S = 5.0  # after a save: its debounce, plan, embedding and apply fit well inside
IDLE_S = 20.0


def found_within(daemon: BenchDaemon, token: str, source: str, limit: float) -> float | None:
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        if daemon.found(token, source) is not None:
            return time.perf_counter() - started
        time.sleep(0.1)
    return None


def saves(daemon: BenchDaemon, root: Path, where: str, count: int) -> dict[str, object]:
    cpu, found = [], []
    for k in range(count):
        rel = f"{where}{k}.md" if where == "beside" else f"empties/e{1000 + k * 997:05d}.md"
        before = daemon.cpu_seconds()
        (root / rel).write_text(f"# Note {k}\n\nThis note holds {where}tok{k}x.\n")
        time.sleep(SETTLE_S)
        cpu.append(daemon.cpu_seconds() - before)
        if daemon.found(f"{where}tok{k}x", rel) is None:
            raise SystemExit(f"{rel} was not indexed within {SETTLE_S:g} s")
        with (root / rel).open("a") as note:
            note.write(f"\nAnd now {where}lat{k}y.\n")
        took = found_within(daemon, f"{where}lat{k}y", rel, 60.0)
        if took is None:
            raise SystemExit(f"{rel}'s append was not found within 60 s")
        found.append(took)
        daemon.wait_idle()
    return {
        "cpu_s": [round(c, 2) for c in cpu],
        "cpu_s_median": round(statistics.median(cpu), 2),
        "found_s": [round(f, 2) for f in found],
        "found_s_median": round(statistics.median(found), 2),
    }


def measure(code: Path | None, files: int, count: int) -> dict[str, object]:
    tmp = Path(tempfile.mkdtemp(prefix="ragd-big-folder-"))
    root = tmp / "root"
    (root / "empties").mkdir(parents=True)
    (root / "seed.md").write_text("# Seed\n\nThe seed note carries seedtoken.\n")
    for i in range(files):
        (root / "empties" / f"e{i:05d}.md").touch()
    daemon = BenchDaemon(tmp, "big-folder", [root], code_env(tmp, code))
    daemon.start()
    try:
        daemon.wait_idle()
        before = daemon.cpu_seconds()
        time.sleep(IDLE_S)
        idle = daemon.cpu_seconds() - before
        beside = saves(daemon, root, "beside", count)
        inside = saves(daemon, root, "inside", count)
    finally:
        daemon.stop()
    return {
        "code": str(code) if code else "this tree",
        "files_in_folder": files,
        "idle_cpu_s_per_settle": round(idle * SETTLE_S / IDLE_S, 3),
        "beside": beside,
        "inside": inside,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--saves", type=int, default=6)
    parser.add_argument("--code", type=Path, help="run the daemon from this source tree")
    args = parser.parse_args()
    print(json.dumps(measure(args.code, args.files, args.saves), indent=2))


if __name__ == "__main__":
    main()
