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
    from ragd.config import Settings

    q = WorkQueue(debounce_s=600)
    q.put(Job("sync", "/r", "a.md"))
    q.put(Job("sync", "/r", "a.md"))  # a second event of the same save
    assert q.take(timeout=0.05) is None
    q.reconfigure(Settings(debounce_ms=10))
    assert q.debounce_s == 0.01
    assert q.take(timeout=5) == Job("sync", "/r", "a.md")
