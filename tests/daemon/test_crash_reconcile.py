"""Changes made while the daemon was down are applied; a lost vector store is restored.

kill -9 mid-ingest is tests/daemon/test_crash_repeat.py's (random moments, `ragd check`
both on the killed data dir and after the restart).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import Daemon


def ragd_check(d: Daemon) -> tuple[int, dict]:
    out = d.ragd("check", "--data-dir", str(d.data_dir), "--json", timeout=120)
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


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A 12-file corpus indexed once and cleanly stopped. Each test changes the disk or the
    data dir while it is down, starts it, checks, and leaves it cleanly stopped again (so
    the module pays one first ingest, not one per test)."""
    tmp = tmp_path_factory.mktemp("reconcile")
    root = tmp / "docs"
    write_corpus(root, 12)
    d = Daemon(tmp, [root]).start()
    d.wait_idle()
    assert d.stop() == 0  # a clean stop: only what the tests do can need repairing
    yield d
    d.stop()


def test_startup_reconcile_applies_offline_changes_without_reading_unchanged_files(
    stopped: Daemon,
) -> None:
    d = stopped
    root = d.roots[0]
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
    assert d.stop() == 0
    assert ragd_check(d)[0] == 0


def test_a_lost_vector_store_is_restored_from_the_manifest(stopped: Daemon) -> None:
    d = stopped  # cleanly stopped: only the size check can notice what follows
    shutil.rmtree(d.data_dir / "chroma")
    d.start()
    status = d.wait_idle()
    assert status["embeddings"]["computed"] == 0  # restored from the embedding cache
    # Start-up says what it found, not "an unclean stop" after a clean one (issue 10).
    assert "repairing the indexes (the index sizes disagree with the manifest)" in d.log()
    assert "unclean" not in d.log()
    hits = d.search("widget maintenance schedule", mode="vector")["results"]
    assert hits and hits[0]["vector_rank"] == 1
    assert d.stop() == 0
    assert ragd_check(d)[0] == 0
