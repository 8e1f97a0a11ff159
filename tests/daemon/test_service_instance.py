"""One daemon per data dir and socket; crashes, forced exits and bounded shutdowns.

Real `ragd serve` processes and real signals; every wait polls with a deadline.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.fork_server import MODEL_ENV
from tests.support.processes import is_live, live_children, zombie_children

pytestmark = pytest.mark.slow


def small_corpus(folder: Path) -> Path:
    folder.mkdir()
    (folder / "ferry.md").write_text(
        "# Ferry timetable\n\nThe FERRYTOKEN ferry leaves the north pier at seven.\n"
    )
    (folder / "fares.md").write_text("# Fares\n\nA FARETOKEN day pass costs twelve crowns.\n")
    return folder


def test_second_daemon_exits_naming_the_first_and_a_stale_socket_never_blocks(
    tmp_path: Path,
) -> None:
    docs = small_corpus(tmp_path / "docs")
    first = Daemon(tmp_path, [docs]).start(wait=False)
    try:
        wait_for(lambda: first.answering(), 60, "the first daemon's socket to answer")
        pid = first.proc.pid  # type: ignore[union-attr]

        # same data dir, another socket
        other_socket = tmp_path / "run" / "other.sock"
        same_dir = first.ragd(
            "serve", str(docs), "--data-dir", str(first.data_dir), "--socket", str(other_socket)
        )
        assert same_dir.returncode == 3, same_dir.stderr
        assert f"another ragd (pid {pid}" in same_dir.stderr
        assert f"already using the data dir {first.data_dir}" in same_dir.stderr
        assert not other_socket.exists()

        # same socket, another data dir
        same_socket = first.ragd(
            "serve", str(docs), "--data-dir", str(tmp_path / "data2"), "--socket", str(first.socket)
        )
        assert same_socket.returncode == 3, same_socket.stderr
        assert f"another ragd (pid {pid}, data dir {first.data_dir})" in same_socket.stderr
        assert "already listening on" in same_socket.stderr
        assert first.answering() is not None  # the loser removed nothing

        # a crash leaves the socket file behind ...
        first.kill9()
        assert first.socket.exists()
        client = first.rag("status")
        assert client.returncode == 3 and "stale socket" in client.stderr
    finally:
        first.stop(signal.SIGKILL)

    # ... and it does not block the next start, on the same data dir and socket
    second = Daemon(tmp_path, [docs], env={"RAG_SHUTDOWN_TIMEOUT_S": "1"}).start()
    try:
        second.wait_idle()
        assert set(second.sources("FERRYTOKEN")) == {"ferry.md"}

        # SIGINT while a big file is being indexed, with a 1 s shutdown budget: the file
        # is not recorded as indexed (the next start redoes it), and the exit is still clean
        big = docs / "big.txt"
        paragraph = "The harbour log records tides, cargo and weather for every berth. " * 8
        big.write_text("\n\n".join(f"{i}: {paragraph}" for i in range(600)))
        wait_for(
            lambda: second.status()["progress"]["current"] == "big.txt",
            60,
            "big.txt to be in progress",
        )
        second.signal(signal.SIGINT)
        assert second.wait_exit(60) == 0
        log = second.log()
        assert "shutting down (SIGINT)" in log
        # The writer either abandons the file (the next start redoes it) or, since big files
        # are embedded in slices with a stop check between them, leaves it between two slices
        # unrecorded; either way the exit is clean and nothing half-written is kept as done.
        assert "abandoning it (the next start repairs)" in log or "big.txt" not in "".join(
            line for line in log.splitlines() if "indexed " in line
        )
        assert not second.socket.exists()
        # not under systemd: plain lines, each with a time and a level
        for line in filter(None, log.splitlines()):
            assert re.match(r"\d\d:\d\d:\d\d (INFO|WARNING|ERROR) +ragd[.\w]*: ", line), line
    finally:
        second.stop(signal.SIGKILL)


def test_a_start_refused_for_a_busy_socket_leaves_no_data_dir_it_made(tmp_path: Path) -> None:
    """attack24: `ragd serve ROOT --data-dir NEW --socket S` beside a daemon on S exited 3
    and left NEW/ragd.lock (110 bytes): the data dir was made before the socket was
    looked at. A data dir that existed is left as it was (its mode not even tightened)."""
    docs = small_corpus(tmp_path / "docs")
    first = Daemon(tmp_path, [docs]).start(wait=False)
    try:
        wait_for(lambda: first.answering(), 60, "the first daemon's socket to answer")
        new = tmp_path / "new" / "data"  # neither folder there yet
        existing = tmp_path / "existing"
        existing.mkdir(mode=0o755)
        existing.chmod(0o755)
        (existing / "notes.txt").write_text("the user's own file\n")
        before = sorted(p.name for p in existing.iterdir()), existing.stat().st_mode
        for data_dir in (new, existing):
            refused = first.ragd(
                "serve", str(docs), "--data-dir", str(data_dir), "--socket", str(first.socket)
            )
            assert refused.returncode == 3, refused.stderr
            assert "already listening on" in refused.stderr
        assert not (tmp_path / "new").exists()
        assert (sorted(p.name for p in existing.iterdir()), existing.stat().st_mode) == before
        assert first.answering() is not None
    finally:
        first.stop()


def test_second_sigint_exits_at_once(tmp_path: Path) -> None:
    """The first Ctrl-C starts a shutdown that waits for start-up (the model still loads);
    the second one ends the process there and then, with status 130. The daemon loads
    its model itself (not handed over by the fork server, which leaves a start-up of half
    a second): with the model handed over, start-up once finished between the two signals
    and the log said "stopped"."""
    docs = small_corpus(tmp_path / "docs")
    daemon = Daemon(tmp_path, [docs], env={MODEL_ENV: "0"}).start(wait=False)
    try:
        status = wait_for(lambda: daemon.answering(), 60, "the socket to answer")
        assert status["state"] == "starting"
        daemon.signal(signal.SIGINT)
        daemon.wait_log("shutting down (SIGINT)")
        daemon.signal(signal.SIGINT)
        assert daemon.wait_exit(30) == 130
        log = daemon.log()
        assert "second interrupt, exiting now" in log
        assert "stopped" not in log
    finally:
        daemon.stop(signal.SIGKILL)


def test_a_data_dir_replaced_under_the_daemon_is_taken_again_not_left_to_a_second(
    tmp_path: Path,
) -> None:
    """attack41: the data dir moved away and copied back (`mv d d.old && cp -a d.old d`, a
    backup restored) while the daemon ran. Its lock stayed on the old `ragd.lock`, so
    nothing guarded the name: a second `ragd serve` on the same data dir started and
    served beside it, and at the first file the old daemon's vector write failed (the
    database had moved), it restarted, found the data dir held and exited 3 — the live
    daemon gone. Now it notices the name no longer leads to what it locked and restarts
    on what the path holds, so the second start is refused."""
    docs = small_corpus(tmp_path / "docs")
    first = Daemon(tmp_path, [docs]).start()
    try:
        pid = first.proc.pid  # type: ignore[union-attr]
        first.wait_searchable("FARETOKEN", "fares.md")
        first.wait_searchable("FERRYTOKEN", "ferry.md")
        old = first.data_dir.with_name("data.old")
        first.data_dir.rename(old)
        shutil.copytree(old, first.data_dir, symlinks=True)
        lock = first.data_dir / "ragd.lock"
        wait_for(lambda: _held(lock), 60, "the daemon to lock the data dir now at its path")
        second = first.ragd(
            "serve",
            str(docs),
            "--data-dir",
            str(first.data_dir),
            "--socket",
            str(tmp_path / "2.sock"),
        )
        assert second.returncode == 3, second.stderr
        assert f"another ragd (pid {pid}" in second.stderr
        first.wait_ready()
        (docs / "tide.md").write_text("# Tides\n\nThe TIDETOKEN tide turns at noon.\n")
        first.wait_searchable("TIDETOKEN", "tide.md")
        first.wait_searchable("FERRYTOKEN", "ferry.md")  # what was indexed is still there
        # The restart replaced the process image: a child the old image ended and never
        # reaped would stay <defunct> for the daemon's life (review46: the store worker).
        assert zombie_children(pid) == {}
    finally:
        first.stop()


def test_a_restart_in_place_after_an_abandoned_writer_leaves_no_defunct_child(
    tmp_path: Path,
) -> None:
    """reap48: the data dir replaced while the index writer waits for the vector store's
    worker (stopped: SIGSTOP) to write a new note, with a one-second shutdown deadline:
    the stop abandons the writer, so the worker is never closed, and the daemon
    re-executes itself (same pid) with it still its child. It ended after the exec (its
    parent-death signal, or its pipe's close once it runs again) and nothing in the new
    image waited for it: it stayed `<defunct>` for the daemon's life. Now the old image
    names its children at the exec and the new one waits for exactly those, one line each."""
    docs = small_corpus(tmp_path / "docs")
    first = Daemon(tmp_path, [docs], env={"RAG_SHUTDOWN_TIMEOUT_S": "1"}).start()
    worker = 0
    try:
        pid = first.proc.pid  # type: ignore[union-attr]
        first.wait_searchable("FARETOKEN", "fares.md")
        first.wait_idle()
        (worker,) = live_children(pid, "ragd.index.store_worker")
        os.kill(worker, signal.SIGSTOP)  # every write now waits for its answer
        (docs / "tide.md").write_text("# Tides\n\nThe TIDETOKEN tide turns at noon.\n")

        seen: list[float] = []

        def writing() -> bool:
            """tide.md is the writer's file, past its embedding (its upsert waits), and
            still is two seconds on (a small note's write takes milliseconds)."""
            progress = first.status().get("progress") or {}
            if progress.get("current") != "tide.md" or progress.get("in_progress"):
                seen.clear()
                return False
            seen.append(time.monotonic())
            return seen[-1] - seen[0] >= 2.0

        wait_for(writing, 120, "the writer to wait for the stopped worker's write")
        old = first.data_dir.with_name("data.old")
        first.data_dir.rename(old)
        shutil.copytree(old, first.data_dir, symlinks=True)
        after = first.wait_log("the index writer is still busy")
        first.wait_log("listening on", after=after)  # the new image
        with contextlib.suppress(ProcessLookupError):  # reaped: its parent-death signal
            os.kill(worker, signal.SIGCONT)  # a forked one ends at its pipe's close
        wait_for(lambda: not is_live(worker, "ragd.index.store_worker"), 60, "the old worker")
        wait_for(lambda: zombie_children(pid) == {}, 60, "no <defunct> child of the daemon")
        first.wait_ready()
        assert first.proc.pid == pid  # type: ignore[union-attr]
        log = first.log()
        assert f"reaped ragd.index.store_worker (pid {worker}), left by the previous" in log, log
    finally:
        if worker and is_live(worker, "ragd.index.store_worker"):  # not a reused pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, signal.SIGKILL)
        first.stop(signal.SIGKILL)


def _held(path: Path) -> bool:
    """Whether another process holds the flock on `path`."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # let go again as the fd closes
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_stopped_vector_store_process_holds_a_clean_stop_no_longer_than_its_deadline(
    tmp_path: Path,
) -> None:
    """review47: a clean stop closes the vector store's worker (after the seal). A worker
    that cannot answer (SIGSTOPped, stuck) held the main loop in that close for two
    CLOSE_WAIT_S before the kill, past shutdown_timeout_s, answering no client meanwhile.
    The close is waited for until the deadline, as the writer is; then the worker is left
    to end with the daemon (its parent-death signal is SIGKILL)."""
    docs = small_corpus(tmp_path / "docs")
    daemon = Daemon(tmp_path, [docs], env={"RAG_SHUTDOWN_TIMEOUT_S": "1"}).start()
    pid = daemon.proc.pid  # type: ignore[union-attr]
    (worker,) = live_children(pid, "ragd.index.store_worker")
    try:
        daemon.wait_searchable("FARETOKEN", "fares.md")
        # The writer done with every file: a write still in flight to the stopped worker
        # (ferry.md, at a load of 7) took the deadline, and the writer was abandoned instead.
        daemon.wait_idle()
        os.kill(worker, signal.SIGSTOP)
        assert daemon.stop() == 0
        log = daemon.log()
        assert "the vector store did not close within the shutdown deadline" in log
        wait_for(lambda: not is_live(worker, "ragd.index.store_worker"), 30, "the worker to end")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker, signal.SIGKILL)
        daemon.stop(signal.SIGKILL)
