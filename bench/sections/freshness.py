"""(b) save → searchable latency, for an in-place write and an editor-style atomic save."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from common import TARGETS, Plan, ms, say, token
from harness import BenchDaemon, wait_for

POLL_S = 0.01  # between searches while waiting for a saved token (each embeds a query)


def write(path: Path, text: str, atomic: bool) -> None:
    if atomic:  # what editors do: a temp file renamed over the original
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    else:
        path.write_text(text, encoding="utf-8")


def note_text(k: int, edit: int, marker: str) -> str:
    return (
        f"# Bench note {k}\n\n## Edit {edit}\n\n"
        f"This note was saved by the benchmark (edit {edit}). Its marker word is {marker}.\n"
    )


def time_to_searchable(
    daemon: BenchDaemon, path: Path, text: str, marker: str, atomic: bool
) -> float | None:
    started = time.perf_counter()
    write(path, text, atomic)
    deadline = started + 20.0
    while time.perf_counter() < deadline:
        if daemon.found(marker):
            return time.perf_counter() - started
        time.sleep(POLL_S)
    return None


def bench_freshness(daemon: BenchDaemon, root: Path, plan: Plan) -> dict[str, Any]:
    folder = root / "bench-edits"
    folder.mkdir()
    notes = [folder / f"note-{k}.md" for k in range(5)]
    markers = [token() for _ in notes]
    for k, (path, marker) in enumerate(zip(notes, markers, strict=True)):
        path.write_text(note_text(k, 0, marker), encoding="utf-8")
    for marker in markers:  # a new folder full of files: wait until all are in
        wait_for(lambda m=marker: daemon.found(m), 60, f"note with {marker}", 0.05)
    daemon.wait_idle(60)
    out: dict[str, Any] = {"target_median_s": TARGETS["b_median_s"]}
    for flavour, atomic in (("in_place_write", False), ("atomic_save", True)):
        say(f"(b) {plan.reps} × {flavour.replace('_', ' ')} → searchable")
        latencies, timeouts = [], 0
        for edit in range(1, plan.reps + 1):
            k = edit % len(notes)
            marker = token()
            took = time_to_searchable(daemon, notes[k], note_text(k, edit, marker), marker, atomic)
            if took is None:
                timeouts += 1
            else:
                latencies.append(took)
            daemon.wait_idle(30)
        out[flavour] = ms(latencies) | {"timeouts": timeouts}
    return out
