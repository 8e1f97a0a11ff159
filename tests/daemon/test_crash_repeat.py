"""SIGKILL, again and again: nothing is lost, nothing is left behind.

Each test runs a real `ragd serve` with the real model and stores, kills it with SIGKILL
at moments defined by its progress (a seeded random threshold of files indexed, of
changes applied, of files removed), restarts it, lets it settle, and then asks
`ragd check --json` whether the manifest, ChromaDB, tantivy and the disk agree: every
file indexed once at its current hash, no orphan or missing entry in any store. The
ingest test also asks it of the data dir its first kill left, which must name the files
not yet indexed.

The seed is printed (shown with the output of a failing test) and every assertion names
it; rerun a failure with `RAGD_CRASH_SEED=<seed> pytest tests/daemon/test_crash_repeat.py`.
Files are one short paragraph each, so the real-model ingest stays quick.

The ingest is killed at two random moments of 300 files in `make test` (the second kill
lands on a daemon that is recovering from the first); its opt-in `stress` variant
(`make test-stress`) kills it at five moments of 1,000 files. Most of either's time is
the daemon start-ups (loading the model, one per kill), not the ingest.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import Daemon, wait_for

pytestmark = pytest.mark.slow

SEED = int(os.environ.get("RAGD_CRASH_SEED") or random.SystemRandom().randrange(2**31))
POLL_S = 0.01  # how often progress is sampled while waiting for a kill moment
SETTLE_S = 600.0  # deadline for an ingest to finish after the last restart


def rng_for(test: str) -> random.Random:
    print(f"RAGD_CRASH_SEED={SEED} ({test})", flush=True)
    return random.Random(f"{SEED}:{test}")


def tiny_doc(i: int, word: str = "record") -> str:
    return (
        f"# Note {i}\n\nThe {word} {i} says pump P-{i:04d} at site S{i % 37} was "
        f"serviced on day {i % 365} by crew {i % 11}.\n"
    )


def write_tiny(folder: Path, start: int, count: int, per_folder: int = 50) -> list[Path]:
    paths = []
    for i in range(start, start + count):
        sub = folder / f"g{(i - start) // per_folder:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"doc{i:04d}.md"
        path.write_text(tiny_doc(i))
        paths.append(path)
    return paths


def ragd_check(d: Daemon) -> tuple[int, dict[str, Any]]:
    out = d.ragd("check", "--data-dir", str(d.data_dir), "--json", timeout=300)
    try:
        return out.returncode, json.loads(out.stdout)
    except ValueError:
        raise AssertionError(f"ragd check said:\n{out.stdout}\n{out.stderr}") from None


def assert_clean(d: Daemon, files: int, context: str) -> dict[str, Any]:
    """`ragd check` (daemon stopped): each file once, at its hash; no orphans anywhere."""
    code, report = ragd_check(d)
    where = f"{context} (RAGD_CRASH_SEED={SEED}): {report}"
    assert code == 0 and report["ok"], where
    for key in ("dense_orphans", "dense_missing", "lexical_orphans", "lexical_missing"):
        assert report[key] == 0, where
    for key in ("not_indexed", "stale", "vanished", "file_chunk_mismatch"):
        assert report[key] == [], where
    assert report["files_on_disk"] == report["files_indexed"] == files, where
    # One chunk (and one window) per tiny file: any duplicate would show up here.
    assert report["manifest_chunks"] == files, where
    assert report["lexical_docs"] == report["dense_vectors"] == files, where
    return report


def settle(d: Daemon, files: int, context: str) -> dict[str, Any]:
    status = d.wait_idle(timeout=SETTLE_S)
    assert status["files"] == files, f"{context} (RAGD_CRASH_SEED={SEED}): {status}"
    assert status["errors"] == [], f"{context} (RAGD_CRASH_SEED={SEED}): {status['errors']}"
    return status


def kill_when(d: Daemon, reached: Any, what: str) -> dict[str, Any]:
    """Poll status until `reached(status)`, then SIGKILL; returns that status.

    Also stops (and the caller's assertion fails) if the daemon went idle after it had
    started on the work: the moment was missed. Idle *before* any work was seen only means
    the watcher has not delivered the events yet.
    """
    busy = False

    def moment() -> dict[str, Any] | None:
        nonlocal busy
        d.assert_alive()
        status = d.status()
        busy = busy or status["pending"] > 0
        return status if reached(status) or (busy and status["state"] == "idle") else None

    status = wait_for(moment, SETTLE_S, what, interval=POLL_S)
    d.kill9()
    return status


@pytest.mark.parametrize(
    ("files", "moments"), [(300, 2), pytest.param(1000, 5, marks=pytest.mark.stress)]
)
def test_sigkill_at_random_moments_of_an_ingest(tmp_path: Path, files: int, moments: int) -> None:
    rng = rng_for(f"ingest of {files}, {moments} kills")
    started = time.monotonic()
    root = tmp_path / "bulk"
    write_tiny(root, 0, files)
    # ≥ 100 files left after the last threshold: a writer batch is ≤ 64.
    thresholds = sorted(rng.sample(range(10, files - 100), moments))
    d = Daemon(tmp_path, [root]).start()
    kills = []
    for n, threshold in enumerate(thresholds, start=1):
        status = kill_when(
            d, lambda s, t=threshold: s["files"] >= t, f"kill {n}: {threshold} files indexed"
        )
        assert status["state"] != "idle", f"ingest ended before kill {n} (seed {SEED})"
        kills.append((threshold, status["files"]))
        if n == 1:  # `ragd check` on the killed data dir sees the interrupted ingest
            code, report = ragd_check(d)
            assert code != 0 and report["not_indexed"], f"(RAGD_CRASH_SEED={SEED}) {report}"
        d.start()
    settle(d, files, f"after kills at {kills}")
    assert d.stop() == 0
    assert_clean(d, files, f"after kills at (threshold, files) {kills}")
    # The kills really interrupted an ingest: the last restart still had files to do.
    assert kills[-1][1] < files
    print(f"kills at (threshold, files indexed): {kills}; {time.monotonic() - started:.1f} s")


def test_sigkill_during_a_rename_storm(tmp_path: Path) -> None:
    rng = rng_for("rename")
    started = time.monotonic()
    root = tmp_path / "storm"
    paths = write_tiny(root, 0, 200)
    d = Daemon(tmp_path, [root]).start()
    settle(d, 200, "initial ingest")
    # Changes applied (files indexed + removed) before the kill. The writer applies up to 64
    # files per batch, so the counters jump; a threshold in the last batch (of 400 changes)
    # is first seen when everything is done. Up to 120 there is always a batch left — but
    # a quick daemon can still finish between two polls (seen once in a clean-clone run):
    # then the files are renamed again, from where they are, and killed sooner.
    for attempt in range(STORM_ATTEMPTS):
        before = d.status()["activity"]
        threshold = rng.randint(5, 120 // (attempt + 1))
        targets = []
        for i, path in enumerate(paths):
            if i % 2:  # half renamed in place, half moved to another folder
                targets.append(path.with_name(f"renamed{attempt}-{i:04d}.md"))
            else:
                targets.append(root / f"moved{attempt}" / f"m{i % 5}" / f"doc{i:04d}.md")
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
        status = _storm(d, paths, targets, before, threshold)
        paths = targets
        if status["state"] != "idle":
            break
        d.start()
        settle(d, 200, f"rename storm {attempt}, applied whole before the kill")
    assert status["state"] != "idle", f"every storm was applied before the kill (seed {SEED})"
    d.start()
    settle(d, 200, f"rename storm, killed after {threshold} changes")
    assert d.sources("P-0001") == [f"g00/renamed{attempt}-0001.md"]
    assert d.sources("P-0002") == [f"moved{attempt}/m2/doc0002.md"]
    assert d.stop() == 0
    assert_clean(d, 200, f"rename storm, killed after {threshold} changes")
    print(f"rename storm: killed after {threshold} changes; {time.monotonic() - started:.1f} s")


STORM_ATTEMPTS = 3


def _storm(
    d: Daemon, paths: list[Path], targets: list[Path], before: dict[str, Any], threshold: int
) -> dict[str, Any]:
    """Rename every path to its target from a thread; SIGKILL the daemon once `threshold`
    changes are applied (or once it went idle: the moment was missed)."""
    storm_done = threading.Event()

    def storm() -> None:
        for source, target in zip(paths, targets, strict=True):
            os.rename(source, target)
        storm_done.set()

    renamer = threading.Thread(target=storm, name="rename-storm")
    renamer.start()

    def applied(s: dict[str, Any]) -> bool:
        a = s["activity"]
        done = a["files_indexed"] - before["files_indexed"]
        done += a["files_removed"] - before["files_removed"]
        return done >= threshold

    status = kill_when(d, applied, f"{threshold} renames applied")
    renamer.join(30)
    assert storm_done.is_set()
    return status


def test_sigkill_while_deleting_a_folder_of_200_files(tmp_path: Path) -> None:
    rng = rng_for("delete")
    started = time.monotonic()
    root = tmp_path / "tree"
    write_tiny(root / "keep", 0, 50)
    write_tiny(root / "doomed", 1000, 200, per_folder=200)
    d = Daemon(tmp_path, [root]).start()
    settle(d, 250, "initial ingest")
    removed = rng.randint(1, 150)  # files the daemon has dropped before the kill
    shutil.rmtree(root / "doomed")
    status = kill_when(d, lambda s: s["files"] <= 250 - removed, f"{removed} files removed")
    assert status["state"] != "idle", f"the delete was fully applied before the kill (seed {SEED})"
    d.start()
    settle(d, 50, f"folder delete, killed after {removed} removals")
    assert not d.sources("P-1000")
    assert d.stop() == 0
    assert_clean(d, 50, f"folder delete, killed after {removed} removals")
    print(f"folder delete: killed after {removed} removals; {time.monotonic() - started:.1f} s")
