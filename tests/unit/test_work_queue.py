import threading
from pathlib import Path

from ragd.core.config import Settings
from ragd.core.roots import Roots
from ragd.engine.components import Basics, Startup
from ragd.engine.health import Health, eta_s
from ragd.index.space import DiskGuard
from ragd.ingest.work_queue import Job, WorkQueue


def test_burst_of_puts_coalesces_into_one_job() -> None:
    q = WorkQueue(debounce_s=0.05)
    for _ in range(100):
        q.put(Job("sync", "/r", "a.md"))
    assert q.pending() == 1
    assert q.take(timeout=5) == Job("sync", "/r", "a.md")
    assert q.take(timeout=0.1) is None
    q.done()
    assert q.pending() == 0


def test_jobs_come_out_in_due_order_and_rescheduling_moves_them_back() -> None:
    q = WorkQueue(debounce_s=0.2, max_delay_s=10)
    q.put(Job("sync", "/r", "first"))
    q.put(Job("sync", "/r", "now"), debounce=False)
    assert q.take(timeout=1) == Job("sync", "/r", "now")
    q.put(Job("sync", "/r", "second"))
    q.put(Job("sync", "/r", "first"))  # touched again: now due after "second"
    assert q.take(timeout=2) == Job("sync", "/r", "second")
    assert q.take(timeout=2) == Job("sync", "/r", "first")


def test_debounce_is_capped_so_a_file_written_forever_is_still_indexed() -> None:
    q = WorkQueue(debounce_s=0.2, max_delay_s=0.3)
    job = Job("sync", "/r", "log.md")
    q.put(job)
    taken = None
    for _ in range(10_000):  # without the cap, writes every 10 ms would postpone it forever
        q.put(job)  # keeps "writing"
        taken = q.take(timeout=0.01)
        if taken is not None:
            break
    assert taken == job


def test_many_jobs() -> None:
    q = WorkQueue(debounce_s=0)
    for i in range(20_000):
        q.put(Job("sync", "/r", f"f{i}"), debounce=False)
    seen = set()
    while (job := q.take(timeout=0)) is not None:
        seen.add(job.relpath)
        q.done()
    assert len(seen) == 20_000 and q.pending() == 0


def test_a_reloaded_shorter_debounce_brings_waiting_changes_forward() -> None:
    from ragd.core.config import Settings

    q = WorkQueue(debounce_s=600)
    q.put(Job("sync", "/r", "a.md"))
    q.put(Job("sync", "/r", "a.md"))  # a second event of the same save
    assert q.take(timeout=0.05) is None
    q.reconfigure(Settings(debounce_ms=10))
    assert q.debounce_s == 0.01
    assert q.take(timeout=5) == Job("sync", "/r", "a.md")


# -- progress: files and bytes, each file once ------------------------------------------
def finish_all(q: WorkQueue) -> list[Job]:
    taken = []
    while (job := q.take(timeout=0)) is not None:
        taken.append(job)
        q.done(job=job)
    return taken


def test_a_big_file_left_dominates_the_bytes_and_the_eta() -> None:
    q = WorkQueue(debounce_s=0)
    for i in range(40):
        q.put(Job("sync", "/r", f"small{i}.md"), size=1_000)
    q.put(Job("sync", "/r", "changelog.txt"), size=1_000_000)  # queued last: still queued
    for _ in range(40):
        q.done(job=q.take(timeout=0))
    p = q.progress
    assert (p.done, p.total, p.bytes_done, p.bytes_total) == (40, 41, 40_000, 1_040_000)
    # As if the 40 small files took 100 s: by bytes, the changelog is 25 times that work;
    # by files (40 in 100 s, 1 left) the ETA would have said 2.5 s.
    assert p.working_since is not None
    p.working_since -= 100.0
    shown = health_of(q).progress()
    assert (shown["done"], shown["total"]) == (40, 41)
    assert (shown["bytes_done"], shown["bytes_total"]) == (40_000, 1_040_000)
    assert 2_500 <= shown["eta_s"] < 2_510  # 25 × the 100 s (and the moments since)


def test_no_eta_before_anything_is_done() -> None:
    q = WorkQueue(debounce_s=0)
    q.put(Job("sync", "/r", "a.md"), size=5_000)
    assert q.take(timeout=0) is not None
    assert health_of(q).progress()["eta_s"] is None  # nothing done: no rate to go on
    assert eta_s(5_000, 0.0) is None and eta_s(0, 10.0) is None
    assert eta_s(5_000, 100.0) == 50.0


def test_a_file_set_aside_counts_once_and_its_bytes_at_release() -> None:
    q = WorkQueue(debounce_s=0)
    for name, size in (("big.md", 900), ("a.md", 50), ("b.md", 50)):
        q.put(Job("sync", "/r", name), size=size)
    big = q.take(timeout=0)
    assert big is not None and big.relpath == "big.md"
    flight = q.hold("/r", "big.md")  # the writer sets the slow file aside ...
    q.done(job=big)  # ... and the job that did so returns
    assert (q.progress.done, q.progress.total, q.progress.bytes_done) == (0, 3, 0)
    finish_all(q)
    assert (q.progress.done, q.progress.bytes_done) == (2, 100)
    assert q.pending() == 1  # the slow file is still pending
    q.release(flight, chunks=7)
    p = q.progress
    assert (p.done, p.total, p.bytes_done, p.bytes_total, p.chunks) == (3, 3, 1_000, 1_000, 7)
    assert q.pending() == 0


def test_a_set_aside_file_superseded_or_requeued_unchanged_counts_once() -> None:
    q = WorkQueue(debounce_s=0)
    q.put(Job("sync", "/r", "big.md"), size=900)
    job = q.take(timeout=0)
    flight = q.hold("/r", "big.md")
    q.done(job=job)
    # Queued again unchanged (a rescan): still one file; the job finds it set aside and
    # hands the file back, adding nothing.
    q.put(Job("sync", "/r", "big.md"), size=900)
    assert (q.progress.total, q.progress.bytes_total) == (1, 900)  # the newest job's
    again = q.take(timeout=0)
    q.covered("/r", "big.md")
    q.done(job=again)
    assert (q.progress.done, q.progress.total, q.progress.bytes_total) == (0, 1, 900)
    # Edited meanwhile: the new version supersedes the slow work and carries the file.
    q.put(Job("sync", "/r", "big.md"), size=1_200)
    edited = q.take(timeout=0)
    q.release(flight, superseded=True)
    q.done(job=edited)
    p = q.progress
    assert (p.done, p.total, p.bytes_done, p.bytes_total) == (1, 1, 1_200, 1_200)
    assert q.pending() == 0


def test_a_file_indexed_version_after_version_counts_once() -> None:
    """A log appended to non-stop is applied version after version within one burst (a
    newer version is always queued): each version's bytes were added to the total and
    to what is done, so `rag status` said 44 MB of 48 MB for one 4 MB log, and a version
    being embedded while the next waited was in the total twice (12 MB of a 4 MB log)."""
    q = WorkQueue(debounce_s=0)
    q.put(Job("sync", "/r", "log.md"), size=1_000)
    for size in (1_100, 1_200):
        job = q.take(timeout=0)
        flight = q.hold("/r", "log.md")  # set aside (a large plan) ...
        q.done(job=job)
        q.put(Job("sync", "/r", "log.md"), size=size)  # ... written again meanwhile ...
        assert q.progress.bytes_total == size  # (the newest version carries the file)
        q.release(flight, chunks=3)  # ... and applied
    last = q.take(timeout=0)
    q.put(Job("sync", "/r", "a.md"), size=10)  # (the burst goes on)
    q.done(job=last)  # the last version, applied on its own
    p = q.progress
    assert (p.done, p.total, p.bytes_done, p.bytes_total) == (1, 2, 1_200, 1_210)
    q.put(Job("sync", "/r", "log.md"), size=1_300)  # written again once it was done
    finish_all(q)
    assert q.progress is p  # one burst all along
    assert (p.done, p.total, p.bytes_done, p.bytes_total) == (2, 2, 1_310, 1_310)


def test_a_forgotten_root_leaves_the_burst_done_under_way_or_queued() -> None:
    """attack24: `rag forget R; rag ingest R` while another root kept the burst going
    counted R's files twice, and a job of R under way at the forget credited its bytes to
    the ingest after it (`10/143 files · 4.2 MB of 8.2 MB`)."""
    q = WorkQueue(debounce_s=0)
    q.put(Job("sync", "/kept", "slow.md"), size=10)
    slow = q.take(timeout=0)
    kept = q.hold("/kept", "slow.md")  # set aside: the burst goes on past what follows
    q.done(job=slow)
    for name in ("a.md", "b.md", "c.md"):
        q.put(Job("sync", "/r", name), size=100)
    a = q.take(timeout=0)
    q.done(job=a)  # indexed
    b = q.take(timeout=0)  # under way in the writer's batch; c.md still queued
    q.put(Job("forget", "/r"), debounce=False)
    assert not q.waiting(Job("sync", "/r", "c.md"))  # the writer would only drop it
    p = q.progress
    assert (p.done, p.total, p.bytes_done, p.bytes_total) == (0, 1, 0, 10)
    q.done(job=b)  # b.md's work ends after the forget: it adds nothing
    assert (p.done, p.total, p.bytes_done, p.bytes_total) == (0, 1, 0, 10)
    for name in ("a.md", "b.md", "c.md"):  # `rag ingest R` again
        q.put(Job("sync", "/r", name), size=100)
    finish_all(q)
    q.release(kept, chunks=1)
    assert q.progress is p  # one burst all along
    assert (p.done, p.total, p.bytes_done, p.bytes_total) == (4, 4, 310, 310)
    assert (p.forgotten_done, p.forgotten_bytes_done) == (1, 100)  # still in the rates


def test_a_folder_is_not_a_file_and_a_growing_file_counts_its_last_size() -> None:
    q = WorkQueue(debounce_s=0)
    q.put(Job("sync", "/r", "moved-in"), folder=True)  # its scan queues its files
    q.put(Job("sync", "/r", "log.md"), size=100)
    q.put(Job("sync", "/r", "log.md"), size=300)  # written again before it was taken
    assert (q.progress.total, q.progress.bytes_total) == (1, 300)
    finish_all(q)
    assert (q.progress.done, q.progress.bytes_done) == (1, 300)


def health_of(q: WorkQueue) -> Health:
    """`rag status`'s progress over this queue (no components: nothing loaded yet)."""
    stopping = threading.Event()
    basics = Basics(q, Roots(), DiskGuard(Path("unused-data-dir"), stopping), stopping)
    return Health(basics, Startup(stopping), Settings().vector_target)


def test_pending_files_count_files_not_scans_or_forgets() -> None:
    # Every reply's `pending` is files: `rag ask` right after `rag forget` said "1 file is
    # still being indexed" for the forget job, and a root still to be scanned was "1 file".
    q = WorkQueue(debounce_s=0)
    q.put(Job("forget", "/gone"), debounce=False)
    q.put(Job("sync", "/r"), debounce=False, folder=True)  # a root's scan
    assert q.pending() == 2 and q.pending_files() == 0
    for name in ("a.md", "b.md", "c.md"):
        q.put(Job("sync", "/r", name), size=10)
    assert q.pending_files() == 3
    taken = [q.take(timeout=1) for _ in range(5)]
    files = [job for job in taken if job is not None and job.is_file]
    assert len(files) == 3 and q.pending_files() == 3  # taken is not done
    q.done(job=files[0])
    assert q.pending_files() == 2
    held = q.hold("/r", "slow.md")  # a slow file set aside stays pending until released
    assert q.pending_files() == 3
    for job in taken:
        if job != files[0]:
            q.done(job=job)
    assert q.pending_files() == 1
    q.release(held)
    assert q.pending() == q.pending_files() == 0


def test_files_in_the_writers_batch_are_said_underway_until_it_is_stored() -> None:
    """`rag ingest` showed "0/47 files" for 40 s while the writer read a first batch of 40
    (newuser44): done counts a batch once it is stored, so the batch is said apart."""
    q = WorkQueue(debounce_s=0)
    for name in ("a.md", "b.md", "slow.md", "c.md"):
        q.put(Job("sync", "/r", name), size=10)
    a, b, slow = (q.take(timeout=0) for _ in range(3))
    assert a is not None and b is not None and slow is not None
    assert q.underway() == 3 and q.progress.done == 0  # read and planned, not stored yet
    flight = q.hold("/r", "slow.md")  # set aside: no longer the batch's
    assert q.underway() == 2
    for job in (a, b, slow):
        q.done(job=job)  # the batch is stored
    assert q.underway() == 0 and q.progress.done == 2
    q.release(flight)
    assert q.underway() == 0 and q.progress.done == 3
