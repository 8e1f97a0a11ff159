"""`ragd check` never harms an index, live or stopped; damage is repaired or refused in one
line with exit status 2; a daemon whose index cannot be written says so.

One data dir goes through the whole story, so the model is loaded three times in all.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ragd.core.exit_codes import CheckExit
from tests.support.daemon import Daemon, wait_for

pytestmark = pytest.mark.slow


def write_docs(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(4):
        (root / f"doc{i}.md").write_text(
            f"# Ferry note {i}\n\nThe quartz gauge on vessel {i} is calibrated every "
            f"morning; serial QG-{i:03d}.\n\n## Crew\n\nCrew {i} signs the gauge log.\n"
        )


def snapshot(data: Path) -> dict[str, tuple[int, int]]:
    """Every file of the data dir with size and mtime (SQLite's shared-memory index aside)."""
    return {
        str(p.relative_to(data)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in data.rglob("*")
        if p.is_file() and not p.name.endswith("-shm")
    }


def check(d: Daemon) -> tuple[int, dict, str]:
    done = d.ragd("check", "--data-dir", str(d.data_dir), "--json", timeout=300)
    return done.returncode, json.loads(done.stdout), done.stderr


def test_check_beside_a_live_daemon_and_after_damage(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    write_docs(root)
    d = Daemon(tmp_path, [root]).start()
    d.wait_idle()

    # -- beside the running daemon: nothing is touched, the daemon checks itself -----------
    before = snapshot(d.data_dir)
    code, report, _ = check(d)
    assert code == 0 and report["ok"], report
    assert report["manifest_chunks"] == report["lexical_docs"] == 8
    assert snapshot(d.data_dir) == before
    assert d.sources("QG-002") == ["doc2.md"]  # BM25 still answers

    # -- the lexical index is lost under the live daemon: status says so ------------------
    import shutil

    shutil.rmtree(d.data_dir / "tantivy")
    (root / "late.md").write_text("# Late\n\nA late note about gauge QG-999.\n")
    status = wait_for(lambda: (s := d.status())["state"] == "degraded" and s, 30, "degraded")
    assert any(e["source"] == "lexical index" for e in status["errors"]), status
    assert d.search("quartz gauge calibrated", mode="vector")["results"]  # still answering
    assert d.stop() == 0

    # -- stopped, with the vector store cut in half too: found, read-only ------------------
    sqlite = d.data_dir / "chroma" / "chroma.sqlite3"
    os.truncate(sqlite, sqlite.stat().st_size // 2)
    before = snapshot(d.data_dir)
    code, report, _ = check(d)
    assert code == 1, report
    problems = " | ".join(report["problems"])
    assert "lexical index" in problems and "vector index" in problems, problems
    assert snapshot(d.data_dir) == before

    # -- the next start rebuilds both from the manifest and its embedding cache ------------
    d.start()
    status = d.wait_idle()
    assert status["state"] == "idle" and status["embeddings"]["computed"] <= 2  # late.md only
    log = d.log()
    assert "vector index" in log and "rebuilding it from the embedding cache" in log
    assert "the lexical index was missing" in log and "unclean" not in log
    d.wait_searchable("QG-999", "late.md")
    assert d.search("quartz gauge calibrated", mode="vector")["results"][0]["cosine"] > 0.5
    assert d.stop() == 0
    code, report, _ = check(d)
    assert code == 0, report

    # -- a manifest cut in half cannot be rebuilt: one line, exit 2, `ragd reset` fixes it -
    manifest = d.data_dir / "manifest.sqlite3"
    # Committed pages may still sit in the write-ahead log: fold them into the file first,
    # so that cutting the file (not deleting the log) is what damages it.
    with closing(sqlite3.connect(manifest)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        Path(str(manifest) + suffix).unlink(missing_ok=True)
    # Cut to its first two pages: "half" could drop only free pages (the embedding cache is
    # pruned when idle, which frees the file's tail) and leave a valid database behind.
    assert manifest.stat().st_size > 2 * 4096
    os.truncate(manifest, 2 * 4096)
    done = d.ragd("check", "--data-dir", str(d.data_dir))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(manifest) in lines[0]
    assert f"ragd reset --data-dir {d.data_dir}" in lines[0]
    d.start(wait=False)
    assert d.wait_exit(120) == 2  # the unit's RestartPreventExitStatus=2: no restart loop
    assert f"ragd reset --data-dir {d.data_dir}" in d.log()
    assert "Traceback" not in d.log()
    reset = d.ragd("reset", "--data-dir", str(d.data_dir))
    assert reset.returncode == 0, reset.stderr
    d.start()
    status = d.wait_idle()
    assert status["files"] == 5
    d.wait_searchable("QG-001", "doc1.md")
    assert d.stop() == 0


def test_systemd_does_not_restart_after_exit_status_2() -> None:
    unit = (Path(__file__).resolve().parents[2] / "systemd" / "ragd.service").read_text()
    prevent = next(line for line in unit.splitlines() if line.startswith("RestartPreventExit"))
    assert "2" in prevent.split("=", 1)[1].split()


def test_check_on_a_missing_data_dir_is_one_line(tmp_path: Path) -> None:
    d = Daemon(tmp_path, [])
    done = d.ragd("check", "--data-dir", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "nowhere").exists()


def test_check_beside_a_daemon_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    """The daemon holding the data dir is stopped (SIGSTOP: a hung one), then its socket
    file is removed (a cleaner of /run or /tmp): `ragd check` cannot reach it. Before:
    a 57-line traceback ending in `DaemonTimeout: ragd did not complete the handshake`,
    exit 1, since the connection was made outside the code that words the daemon's
    silence; now the line that says so, exit 3 (UNANSWERED). The socket is held by the
    door (serve/door.py), which runs on while the daemon is stopped: it says so for the
    daemon at once, and how to let it go on."""
    root = tmp_path / "docs"
    write_docs(root)
    d = Daemon(tmp_path, [root]).start()
    d.wait_idle()
    assert d.proc is not None
    said = f"ragd pid {d.proc.pid} holds {d.data_dir} and did not check it"
    try:
        d.signal(signal.SIGSTOP)
        done = d.ragd("check", "--data-dir", str(d.data_dir), timeout=300)
    finally:
        d.signal(signal.SIGCONT)
    assert done.returncode == CheckExit.UNANSWERED, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert said in done.stdout + done.stderr
    assert f"is stopped and cannot answer; `kill -CONT {d.proc.pid}`" in done.stderr

    d.socket.unlink()  # the daemon runs on, its socket gone
    done = d.ragd("check", "--data-dir", str(d.data_dir), timeout=300)
    assert done.returncode == CheckExit.UNANSWERED, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert said in done.stdout + done.stderr
    d.stop()
