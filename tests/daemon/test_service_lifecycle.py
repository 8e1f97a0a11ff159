"""ragd as a service, end to end: real `ragd serve` processes, real signals, a real
NOTIFY_SOCKET, the real `rag` client. Every wait polls with a deadline.

Each full daemon start costs ≈ 8–10 s (the model), so one long scenario covers what can
share a process (notify, logs, progress, several roots, reload, SIGTERM); the others need
processes of their own (a second instance, a crash, a forced exit).
"""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.daemon import BIN, Daemon, NotifyListener, wait_for

pytestmark = pytest.mark.slow

TIMESTAMP = re.compile(r"^\d\d:\d\d:\d\d ")


def make_corpus(folder: Path, prefix: str, count: int, follow_up: bool = True) -> None:
    """`count` small markdown files, each with a unique token (PREFIX01 …); two chunks
    each, or one without the follow-up section."""
    folder.mkdir(parents=True, exist_ok=True)
    width = max(2, len(str(count)))
    for i in range(1, count + 1):
        token = f"{prefix.upper()}{i:0{width}d}"
        text = (
            f"# {prefix.title()} {i}\n\n"
            f"The {token} record explains how the quartz calibration of unit {i} is checked "
            f"before each shift, and who signs the {token} logbook afterwards.\n"
        )
        if follow_up:
            text += (
                f"\n## Follow-up\n\nIf the {token} check fails twice, the unit is taken out of "
                "service and the harbour office is told the same day.\n"
            )
        (folder / f"{prefix}{i:0{width}d}.md").write_text(text, encoding="utf-8")


def toml_config(path: Path, **values: object) -> Path:
    lines = [f"{key} = {json.dumps(value)}" for key, value in values.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def on_a_terminal(daemon: Daemon, *args: str) -> tuple[int, str]:
    """Run `rag` with stderr on a pseudo-terminal; returns (exit code, what the terminal got)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "rag"), *args],
        env=daemon.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        cwd=daemon.tmp,
    )
    os.close(slave)
    received = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return proc.wait(60), received.decode(errors="replace")


def roots_of(status: dict[str, object]) -> dict[str, int]:
    return {r["name"]: r["files"] for r in status["roots"]}  # type: ignore[attr-defined, index]


def test_service_notify_logs_progress_roots_reload_and_sigterm(tmp_path: Path) -> None:
    notes, manuals = tmp_path / "notes", tmp_path / "manuals"
    extra, more = tmp_path / "extra", tmp_path / "more"
    make_corpus(notes, "note", 8)
    (notes / "empty.md").write_text("")  # cannot be indexed: a warning naming it
    # enough one-chunk files for several writer batches (64 files each): an ETA needs one
    make_corpus(manuals, "manual", 140, follow_up=False)
    make_corpus(extra, "extra", 2)
    make_corpus(more, "more", 5)
    make_corpus(tmp_path / "tty", "tty", 3)
    config = toml_config(
        tmp_path / "config.toml", roots=[str(notes), str(manuals)], support_floor=0.33
    )
    listener = NotifyListener(tmp_path / "notify.sock")
    daemon = Daemon(
        tmp_path,
        [],
        env=listener.env(watchdog_usec=1_000_000) | {"RAG_SUPORT_FLOOR": "0.9"},
        extra_args=["--config", str(config)],
        journal=True,
    )
    try:
        daemon.start(wait=False)

        # -- READY=1 only once the socket answers queries (indexing may still run) ---------
        ready_at = listener.wait("READY", "1")
        assert daemon.status()["state"] in ("indexing", "idle")
        before = listener.snapshot()[:ready_at]
        assert any(m.get("STATUS", "").startswith("starting: ") for m in before)
        pid = daemon.proc.pid  # type: ignore[union-attr]

        # -- progress while the initial indexing runs ---------------------------------------
        progress = re.compile(
            r"^progress\s+(\d+)/(\d+) files, [\d.,]+ \w+ of [\d.,]+ \w+, [\d.]+ chunks/s, "
            r"ETA \d+ s$",
            re.M,
        )

        def progress_row() -> re.Match[str] | None:
            daemon.assert_alive()
            shown = daemon.rag("status").stdout
            idle = re.search(r"^state\s+idle$", shown, re.M)
            assert not idle, f"indexing ended before `rag status` showed an ETA:\n{shown}"
            return progress.search(shown)

        row = wait_for(progress_row, 120, "`rag status` to show files done/total, chunks/s, ETA")
        assert 0 < int(row.group(1)) < int(row.group(2))
        status = daemon.wait_idle()
        assert set(status["progress"]) >= {"done", "total", "chunks_per_s", "eta_s"}
        assert roots_of(status) == {"notes": 8, "manuals": 140}
        assert status["files"] == 148
        listener.wait("STATUS", f"idle: 148 files, {status['chunks']:,} chunks", timeout=30)
        assert any(re.match(r"indexing \d+/\d+ files", s) for s in listener.values("STATUS"))

        # -- several roots: labels start with the root's name, never absolute ---------------
        sources = daemon.sources("NOTE03") + daemon.sources("MANUAL007")
        assert "notes/note03.md" in sources and "manuals/manual007.md" in sources
        found = [r["source"] for r in daemon.search("quartz calibration logbook", 10)["results"]]
        assert found and all(s.split("/")[0] in ("notes", "manuals") for s in found)

        # -- logs: journal form; each file's chunks and time at info, failures at warning ---
        log = daemon.log()
        indexed = r"^<6>ragd\.indexer: indexed notes/note01\.md: \d+ chunks? in \d+ ms"
        assert re.search(indexed + r"( \((one of \d+ files|set aside)[^)]*\))?$", log, re.M)
        # (a file with no text is no failure: info)
        assert "<6>ragd.indexer: skipped notes/empty.md: empty file" in log.splitlines()
        assert not [line for line in log.splitlines() if TIMESTAMP.match(line)]
        assert all(re.match(r"<[0-7]>", line) for line in log.splitlines() if line), log
        assert "<4>ragd: ignoring RAG_SUPORT_FLOOR: no setting has that name" in log

        # -- SIGHUP with a broken file: refused, nothing changes ----------------------------
        config.write_text("suport_floor = 0.6\n")
        mark = len(daemon.log())
        daemon.signal(signal.SIGHUP)
        daemon.wait_log("reload refused", after=mark)
        assert f"{config}: unknown key 'suport_floor'" in daemon.log()[mark:]
        assert daemon.rag_json("search", "quartz")["gate"]["floor"] == pytest.approx(0.33)

        # -- SIGHUP: floor, model, log level and a new root, without dropping anything ----
        toml_config(
            config,
            roots=[str(notes), str(manuals), str(extra)],
            support_floor=0.61,
            model="claude-reloaded",
            log_level="DEBUG",
        )
        daemon.signal(signal.SIGHUP)
        wait_for(
            lambda: daemon.rag_json("search", "quartz")["gate"]["floor"] == pytest.approx(0.61),
            30,
            "the reloaded support_floor in `rag search --json`",
        )
        status = daemon.status()
        assert status["answer_model"] == "claude-reloaded"
        assert status["files"] >= 148  # the index stayed
        assert daemon.proc.pid == pid and daemon.proc.poll() is None  # type: ignore[union-attr]
        daemon.wait_log("<7>ragd: effective configuration")  # DEBUG now shows
        assert roots_of(daemon.wait_idle())["extra"] == 2

        # -- `rag ingest PATH`, piped: plain periodic lines, then a summary -----------------
        result = daemon.rag("ingest", str(more))
        assert result.returncode == 0, result.stderr
        lines = result.stderr.splitlines()
        assert lines[0] == "watching new root more"
        assert any(re.match(r"indexing \d+/\d+ files · [\d.]+ chunks/s", line) for line in lines)
        assert re.match(r"indexed more: 5 files, \d+ chunks \(0 skipped\)$", lines[-1]), lines
        assert "\r" not in result.stderr and "\033" not in result.stderr  # no bar when piped
        # on a terminal: a live bar redrawn in place instead
        code, screen = on_a_terminal(daemon, "ingest", str(tmp_path / "tty"))
        assert code == 0, screen
        assert re.search(r"\r\[[#.]{30}\] \d+/\d+ files · [\d.]+ chunks/s", screen), screen
        assert "indexed tty: 3 files" in screen
        text = daemon.rag("status").stdout
        assert re.search(r"notes \(8 files, \d+ chunks\), manuals \(140 files", text), text
        assert roots_of(daemon.status()) == {
            "notes": 8,
            "manuals": 140,
            "extra": 2,
            "more": 5,
            "tty": 3,
        }

        # -- `rag forget ROOT` prunes its chunks from both indexes --------------------------
        result = daemon.rag("forget", "manuals")
        assert result.returncode == 0, result.stderr
        status = daemon.wait_idle()
        assert roots_of(status) == {"notes": 8, "extra": 2, "more": 5, "tty": 3}
        assert status["files"] == 18
        assert not [s for s in daemon.sources("MANUAL007") if s.startswith("manuals/")]
        assert set(daemon.sources("MORE05")) == {"more/more05.md"}

        # -- SIGTERM: STOPPING=1, socket closed, exit 0 -------------------------------------
        daemon.signal(signal.SIGTERM)
        assert daemon.wait_exit() == 0
        log = daemon.log()
        assert "<6>ragd: shutting down (SIGTERM)" in log and "<6>ragd: stopped" in log
        listener.wait("STOPPING", "1", timeout=5)
        assert listener.values("READY") == ["1"]
        assert len(listener.values("WATCHDOG")) >= 2
        assert not daemon.socket.exists()
    finally:
        daemon.stop(signal.SIGKILL)
        listener.close()

    # -- both indexes agree with the manifest and the disk, the forgotten root is gone -----
    result = daemon.ragd("check", "--data-dir", str(daemon.data_dir), "--json")
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["ok"], report
    assert report["files_indexed"] == 18
    assert report["dense_vectors"] >= report["manifest_chunks"] == report["lexical_docs"]
