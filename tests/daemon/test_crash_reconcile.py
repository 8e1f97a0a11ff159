"""kill -9 mid-ingest loses nothing; changes made while the daemon was down are applied."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.daemon import BIN, Daemon, wait_for


def ragd_check(d: Daemon) -> tuple[int, dict]:
    out = subprocess.run(
        [str(BIN / "ragd"), "check", "--data-dir", str(d.data_dir), "--json"],
        env=d.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.returncode, json.loads(out.stdout)


def write_corpus(root: Path, n: int) -> None:
    for i in range(n):
        folder = root / f"group{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{i:04d}.md").write_text(
            f"# Document {i}\n\n## Part A\n\nRecord {i} describes widget {i * 7} and its "
            f"maintenance schedule in detail.\n\n## Part B\n\nA second section with serial "
            f"SN-{i:05d} for lookups.\n"
        )


# Two chunks each; the kill comes after 40, while writer batches (≤ 64 files) remain.
KILLED_INGEST_FILES = 160


def test_kill9_mid_ingest_then_restart_is_consistent(tmp_path: Path) -> None:
    files = KILLED_INGEST_FILES
    root = tmp_path / "bulk"
    write_corpus(root, files)
    d = Daemon(tmp_path, [root]).start()
    wait_for(lambda: d.status()["files"] >= 40, 120, "ingest to be under way")
    assert d.status()["pending"] > 0, "ingest finished before the kill; corpus too small"
    d.kill9()
    code, report = ragd_check(d)
    assert code != 0 and report["not_indexed"]  # the check notices the interrupted ingest
    d.start()
    status = d.wait_idle(timeout=300)
    assert status["files"] == files
    d.stop()
    code, report = ragd_check(d)
    assert code == 0, report
    assert report["manifest_chunks"] == report["lexical_docs"] == 2 * files
    assert report["dense_vectors"] == 2 * files
    assert report["files_indexed"] == report["files_on_disk"] == files


def test_startup_reconcile_applies_offline_changes_without_reading_unchanged_files(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    write_corpus(root, 12)
    d = Daemon(tmp_path, [root]).start()
    d.wait_idle()
    assert d.stop() == 0
    changed = root / "group1" / "doc0001.md"
    changed.write_text("# Document 1\n\nRewritten offline with token offlineedit.\n")
    (root / "group1" / "new.md").write_text("# New\n\nAdded offline with token offlineadd.\n")
    (root / "group2" / "doc0002.md").unlink()
    d.start()
    status = d.wait_idle()
    assert status["files"] == 12
    assert status["activity"]["files_read"] == 2  # only the changed and the new file
    d.wait_searchable("offlineedit", "group1/doc0001.md")
    d.wait_searchable("offlineadd", "group1/new.md")
    assert not d.sources("SN-00002")
    d.stop()
    assert ragd_check(d)[0] == 0


def test_a_lost_vector_store_is_restored_from_the_manifest(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "docs"
    write_corpus(root, 6)
    d = Daemon(tmp_path, [root]).start()
    d.wait_idle()
    assert d.stop() == 0  # a clean stop: only the size check can notice what follows
    shutil.rmtree(d.data_dir / "chroma")
    d.start()
    status = d.wait_idle()
    assert status["embeddings"]["computed"] == 0  # restored from the embedding cache
    # Start-up says what it found, not "an unclean stop" after a clean one (issue 10).
    assert "repairing the indexes (the index sizes disagree with the manifest)" in d.log()
    assert "unclean" not in d.log()
    hits = d.search("widget maintenance schedule", mode="vector")["results"]
    assert hits and hits[0]["vector_rank"] == 1
    d.stop()
    assert ragd_check(d)[0] == 0
