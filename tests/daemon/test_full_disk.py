"""A full disk is a state, not a hang: the data dir on a 40 MB tmpfs with 9 MB free.

Index writes pause (shown by `rag status` and systemd's STATUS= with the data dir and the
free space), searches go on being answered, SIGTERM stops the daemon cleanly, and
indexing resumes by itself once space returns. Mounting a tmpfs needs root; elsewhere
the test is skipped, saying so.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, NotifyListener, wait_for
from tests.support.mounts import mount_tmpfs, unmount

pytestmark = pytest.mark.slow

FREE_MB = 9  # under index.space.RESERVE_BYTES (32 MB): every index write waits
LATE_NOTES = 60  # written once the disk is full


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    mount_tmpfs(mount, "40m")
    try:
        yield mount
    finally:
        unmount(mount, lazy=True)


def fill(mount: Path, leave_mb: int) -> Path:
    filler = mount / "filler"
    st = os.statvfs(mount)
    size = st.f_bavail * st.f_frsize - leave_mb * (1 << 20)
    with open(filler, "wb") as f:
        os.posix_fallocate(f.fileno(), 0, size)
    return filler


def write_notes(root: Path, start: int, count: int) -> None:
    for i in range(start, start + count):
        folder = root / f"g{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i:04d}.md").write_text(
            f"# Note {i}\n\nPump P-{i:04d} at site S{i % 37} was serviced on day {i % 365}.\n"
        )


def test_a_full_disk_pauses_indexing_and_the_daemon_stays_responsive(
    tmp_path: Path, small_disk: Path
) -> None:
    root = tmp_path / "notes"
    write_notes(root, 0, 3)
    listener = NotifyListener(tmp_path / "notify.sock")
    d = Daemon(tmp_path, [root], env=listener.env())
    d.data_dir = small_disk / "data"
    try:
        d.start()
        d.wait_idle()
        filler = fill(small_disk, FREE_MB)
        # Below the writer's reserve from the first write on: a few dozen notes are enough
        # to pause it, and to see it carry on with all of them once space returns.
        write_notes(root, 3, LATE_NOTES)

        def paused() -> dict | None:
            d.assert_alive()
            status = d.status()
            return status if status["state"] == "paused" else None

        status = wait_for(paused, 120, "indexing to pause for disk space")
        reason = next(e["reason"] for e in status["errors"] if e["source"] == "disk")
        assert "MB free on the data dir" in reason, reason  # replies name no absolute path
        assert status["disk"]["free_bytes"] < 16 << 20
        wait_for(
            lambda: any(
                s.startswith("paused: disk: disk full") and str(d.data_dir) in s
                for s in listener.values("STATUS")
            ),
            10,
            "systemd's STATUS= to say the disk is full",
        )
        assert d.sources("P-0001") == ["g0/n0001.md"]  # searches answer from what is indexed
        assert d.stop() == 0  # SIGTERM while paused: a clean stop, not a hang
        assert "shutting down (SIGTERM)" in d.log() and "stopped" in d.log()

        d.start()  # starting on a full disk: ready, paused, answering
        assert d.sources("P-0002") == ["g0/n0002.md"]
        wait_for(paused, 60, "the restarted daemon to pause")
        filler.unlink()  # space returns: indexing carries on by itself
        status = d.wait_idle(timeout=300)
        assert status["files"] == 3 + LATE_NOTES and not status["errors"], status
        last = 2 + LATE_NOTES
        d.wait_searchable(f"P-{last:04d}", f"g{last // 50}/n{last:04d}.md")
        assert d.stop() == 0
        done = d.ragd("check", "--data-dir", str(d.data_dir), timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        listener.close()
        d.stop()


WEDGE = """
import sys, numpy as np
from pathlib import Path
from ragd.index.dense import ChromaStore, DenseIndexError
store = ChromaStore(Path(sys.argv[1]))  # no guard: let ChromaDB hit the full disk
rng = np.random.default_rng(0)
try:
    for n in range(0, 200_000, 500):
        store.upsert([f"c{n + i}#0" for i in range(500)], rng.random((500, 384), np.float32))
except Exception as exc:
    print("failed", type(exc).__name__)
assert store.wedged, "ChromaDB never failed a write"
assert store.query(np.ones(384, np.float32), 3) == []  # no native call: no hang
try:
    store.upsert(["x#0"], np.ones((1, 384), np.float32))
except DenseIndexError:
    print("refused")
"""


def test_after_a_failed_chroma_write_no_native_call_can_hang(small_disk: Path) -> None:
    """The hang's cause (py-spy: the next ChromaDB call blocks with the GIL held after a
    write failed for space) cannot recur: a wedged store makes no further native call."""
    fill(small_disk, 6)
    import sys

    done = subprocess.run(
        [sys.executable, "-c", WEDGE, str(small_disk / "chroma")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["failed", "InternalError", "refused"]


def test_a_root_added_on_a_full_disk_is_not_kept_half_added(
    tmp_path: Path, small_disk: Path
) -> None:
    """`rag ingest NEW` on a full disk fails as a whole: the root is neither remembered
    nor listed, so the same command once space returns adds and watches it."""
    root = tmp_path / "notes"
    write_notes(root, 0, 1)
    later = tmp_path / "later"
    later.mkdir()
    (later / "pump.md").write_text("# Pump\n\nThe quillpump valve was replaced in spring.\n")
    d = Daemon(tmp_path, [root])
    d.data_dir = small_disk / "data"
    try:
        d.start()
        d.wait_idle()
        filler = fill(small_disk, FREE_MB)
        refused = d.rag("ingest", "--no-wait", str(later))
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "disk" in refused.stderr and "Traceback" not in refused.stderr
        assert [r["name"] for r in d.status()["roots"]] == ["notes"]
        filler.unlink()
        added = d.rag("ingest", "--no-wait", str(later))
        assert added.returncode == 0 and "watching new root later" in added.stderr, added.stderr
        d.wait_searchable("quillpump", "later/pump.md", timeout=120)
        (later / "fresh.md").write_text("# Fresh\n\nThe zorbitank was drained today.\n")
        d.wait_searchable("zorbitank", "later/fresh.md", timeout=120)  # and it is watched
        assert d.stop() == 0
        d.start()  # remembered across a restart
        assert "later" in [r["name"] for r in d.status()["roots"]]
    finally:
        d.stop()


def test_a_restart_on_a_full_disk_with_a_new_root_is_ready_and_answers(
    tmp_path: Path, small_disk: Path
) -> None:
    """`ragd serve notes later` on a full disk, where the index was built for `notes`
    alone: the new root must be remembered in the manifest, a write. Before: the loader
    waited for disk space on that write, so the daemon stayed "starting" for as long as the
    disk was full: every search refused (`ragd is starting (checking and opening the
    indexes)`) though `notes` was indexed, and `rag status` said nothing of the disk. Now
    the roots are written with the first index write, which waits for space like any."""
    root = tmp_path / "notes"
    write_notes(root, 0, 3)
    later = tmp_path / "later"
    later.mkdir()
    (later / "pump.md").write_text("# Pump\n\nThe quillpump valve was replaced in spring.\n")
    d = Daemon(tmp_path, [root])
    d.data_dir = small_disk / "data"
    try:
        d.start()
        d.wait_idle()
        assert d.stop() == 0
        filler = fill(small_disk, FREE_MB)
        d.roots.append(later)
        d.start(wait=False)

        def answered() -> list[str] | None:
            d.assert_alive()
            reply = d.rag("search", "P-0001", "--json")
            return json.loads(reply.stdout)["results"] if reply.returncode == 0 else None

        results = wait_for(answered, 120, "a search answered on the full disk")
        assert results[0]["source"] == "notes/g0/n0001.md"
        status = wait_for(
            lambda: (s := d.status())["state"] == "paused" and s, 60, "the daemon to pause"
        )
        assert [r["name"] for r in status["roots"]] == ["notes", "later"]
        filler.unlink()  # space returns: the new root is indexed and remembered
        d.wait_searchable("quillpump", "later/pump.md", timeout=120)
        assert d.stop() == 0
        d.roots.remove(later)
        d.start()  # no longer on the command line: remembered
        assert [r["name"] for r in d.status()["roots"]] == ["notes", "later"]
    finally:
        d.stop()


def test_a_new_data_dir_on_a_full_disk_says_why_it_is_still_starting(
    tmp_path: Path, small_disk: Path
) -> None:
    """A first start with the data dir on a full disk cannot create its index until space
    returns. Before: every search said only `ragd is starting (checking and opening the
    indexes)`, for as long as the disk stayed full; now the line says what start-up waits
    for, and once space returns the folder is indexed."""
    root = tmp_path / "notes"
    write_notes(root, 0, 3)
    filler = fill(small_disk, FREE_MB)
    d = Daemon(tmp_path, [root])
    d.data_dir = small_disk / "data"
    try:
        d.start(wait=False)

        def refused_for_space() -> str | None:
            d.assert_alive()
            reply = d.rag("search", "P-0001")
            said = reply.stderr.strip()
            return said if reply.returncode != 0 and "disk full" in said else None

        said = wait_for(refused_for_space, 120, "a search refused naming the full disk")
        assert said.startswith("rag: ragd is starting (") and "free on the data dir" in said
        assert len(said.splitlines()) == 1 and str(d.data_dir) not in said
        filler.unlink()
        d.wait_ready()
        d.wait_searchable("P-0001", "g0/n0001.md", timeout=120)
    finally:
        d.stop()
