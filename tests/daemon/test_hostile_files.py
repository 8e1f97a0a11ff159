"""Hostile files in a watched root, against a real daemon (issue 5, item 2).

The test writes, into a root the daemon already watches: an empty file, binary data
named `.md`, invalid UTF-8, UTF-16 with a BOM, a 50 MB file (over the 20 MB cap), a
truncated PDF, an encrypted PDF, a PDF without a text layer, a symlink loop, a symlink to
a file outside the root, a file without read permission, files deleted right after they
were written (between the event and the read), names with spaces, quotes, newlines,
shell syntax and non-Latin characters, a 1 MB single-line file; then a burst of one-line
files at once: 300 in `make test`, 10,000 in the opt-in `stress` variant
(`make test-stress`), which also overflows the kernel's inotify queue (16,384 events by
default) and so exercises the rescan end to end. Meanwhile a prober thread keeps searching.

What must hold: the daemon answers every query throughout; each bad file is reported
exactly once, with its reason, in the log and in `rag status --json` errors (and not
again after a restart); every good file is indexed and found by its unique token; no
traceback and no broken log line.

The unreadable file is honest only if the kernel checks permissions for the daemon. Tests
run as root here, and root reads a mode-000 file, so the daemon is started through
`setpriv` without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: still uid 0, owner of its
own files, but refused a file whose mode denies it like any other user. A non-root run
needs nothing special; a root run without setpriv skips that one check.

The 1 MB line is deliberately repetitive (the same few words): it tests splitting a line
with no paragraph or sentence boundary, not embedding throughput, and the repetition
keeps its distinct windows (and so embeddings) to a handful. The tiny files are one
distinct line each, so every one is embedded: that ingest time is printed.
"""

from __future__ import annotations

import io
import os
import random
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import Daemon, wait_for

TINY_FILES = 300  # the burst in `make test`: several writer batches of 64
STRESS_TINY_FILES = 10_000  # the burst in `make test-stress`
HUGE_BYTES = 50 * 1024 * 1024
SETTLE_TIMEOUT_S = 1800.0  # a deadline for a loaded machine, not a speed threshold
SETPRIV = shutil.which("setpriv")
NO_DAC = "-dac_override,-dac_read_search"
NO_DAC_NUMBERS = (1, 2)  # the same two by number (linux/capability.h), for a forked child
LOG_LINE = re.compile(r"^\d\d:\d\d:\d\d (DEBUG|INFO|WARNING|ERROR|CRITICAL) +[\w.]+: ")

# Good files: name → the unique token its text carries.
GOOD = {
    "utf16.txt": "utfsixteentoken",
    "invalid-utf8.md": "brokenbytetoken",
    "good.pdf": "pdfgoodtoken",
    "with spaces in the name.md": "spacetoken",
    'it\'s "quoted".md': "quotetoken",
    "line\nbreak.md": "newlinetoken",
    "tab\there.md": "tabtoken",
    "$(touch pwned) `ls` ; rm.md": "shelltoken",
    "日本語のメモ.md": "kanjitoken",
    "Ωμέγα σημειώσεις.md": "greektoken",
    "emoji 🦀 notes.md": "crabtoken",
}
LONG_LINE = "long-line.txt"
LONG_LINE_TOKENS = ("startlinetoken", "midlinetoken", "endlinetoken")

# Bad files: name → the start of the reason it must be reported with.
# A file with no text is skipped as such, in its own list: no error, an INFO line.
NO_TEXT = {"empty.md": "empty file", "blank.pdf": "PDF has no text"}  # blank: no image to OCR
BAD = {
    "binary.md": "binary content (not text)",
    "huge.md": "too large (50 MB, cap 20 MB)",
    "corrupt.pdf": "unreadable PDF",
    "encrypted.pdf": "encrypted PDF (needs a password)",
}
# Links, not followed by default: listed apart from the errors, an INFO line each.
NOT_FOLLOWED = {
    name: "symbolic link (not followed: follow_symlinks = true reads it)"
    for name in ("loop-a.md", "loop-b.md", "outside-link.md")
}
UNREADABLE = ("unreadable.md", "permission denied")
EPHEMERAL = [f"ephemeral-{i}.md" for i in range(20)]


def kernel_checks_permissions() -> tuple[bool, str]:
    if os.geteuid() != 0:
        return True, ""
    if SETPRIV is None:
        return False, "running as root and setpriv is missing: root reads a mode-000 file"
    probe = subprocess.run(
        [SETPRIV, "--bounding-set", NO_DAC, "--inh-caps", NO_DAC, "true"], capture_output=True
    )
    if probe.returncode != 0:
        return False, f"setpriv cannot drop capabilities here: {probe.stderr.decode()[:200]}"
    return True, ""


HONEST_PERMISSIONS, PERMISSION_SKIP_REASON = kernel_checks_permissions()


class UnprivilegedDaemon(Daemon):
    """`ragd serve` through setpriv when root: no CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH.
    Forked, the child drops the two itself (tests/support/fork_server.py), saving the
    executed start's import of the whole stack."""

    def command_prefix(self) -> list[str]:
        if os.geteuid() == 0 and HONEST_PERMISSIONS and SETPRIV is not None:
            return [SETPRIV, "--bounding-set", NO_DAC, "--inh-caps", NO_DAC, "--"]
        return []

    def instead_of_prefix(self) -> dict[str, Any] | None:
        return {"drop_capabilities": list(NO_DAC_NUMBERS)} if self.command_prefix() else {}


@dataclass
class Prober:
    """Searches for the seed document, back to back, for as long as the test runs."""

    daemon: Daemon
    answered: int = 0
    answered_while_pending: int = 0
    failures: list[str] = field(default_factory=list)
    slowest_s: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="prober", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from ragcli.transport import Connection

        conn = Connection(str(self.daemon.socket))
        try:
            n = 0
            while not self._stop.is_set():
                mode = "bm25" if n % 2 else "hybrid"
                started = time.monotonic()
                try:
                    data = conn.call(
                        "search", {"query": "seedbeacon", "top_k": 3, "mode": mode}, 60
                    )
                except Exception as exc:
                    self.failures.append(f"{type(exc).__name__}: {exc}")
                    conn.close()
                    conn = Connection(str(self.daemon.socket))
                    continue
                self.slowest_s = max(self.slowest_s, time.monotonic() - started)
                sources = [r["source"] for r in data["results"]]
                # BM25 must rank the only document with the token first; hybrid must return
                # it (RRF can tie it with a vector-only neighbour among thousands of tiny notes).
                if (sources[:1] if mode == "bm25" else sources).count("seed.md") != 1:
                    self.failures.append(f"wrong answer ({mode}): {str(data)[:200]}")
                self.answered += 1
                if data["_pending"] > 0:
                    self.answered_while_pending += 1
                n += 1
                self._stop.wait(0.2)  # pacing of a background load, not a synchronisation
        finally:
            conn.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(120)


@dataclass
class Scenario:
    daemon: Daemon
    root: Path
    outside: Path
    prober: Prober
    tiny_files: int
    figures: dict[str, float]
    status: dict[str, Any]


def text_pdf(text: str) -> bytes:
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    page = canvas.Canvas(buf)
    page.drawString(72, 720, text)
    page.showPage()
    page.save()
    return buf.getvalue()


def encrypted_pdf(text: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(text_pdf(text))))
    writer.encrypt("secret")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def blank_pdf() -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def note(title: str, token: str) -> str:
    return f"# {title}\n\nThis note is about {title.lower()} and carries {token}.\n"


def write_hostile_set(root: Path, outside: Path) -> None:
    # Good files, encodings and names.
    for name, token in GOOD.items():
        if name.endswith(".pdf") or name in ("utf16.txt", "invalid-utf8.md"):
            continue
        (root / name).write_text(note("Odd names", token))
    (root / "utf16.txt").write_bytes(note("Wide text", GOOD["utf16.txt"]).encode("utf-16"))
    (root / "invalid-utf8.md").write_bytes(
        b"# Broken bytes\n\nThis caf\xe9 note has a stray Latin-1 byte and carries "
        + GOOD["invalid-utf8.md"].encode()
        + b".\n"
    )
    (root / "good.pdf").write_bytes(text_pdf(f"This PDF carries {GOOD['good.pdf']}."))
    words = "lorem ipsum dolor sit amet "
    half = words * (1_000_000 // len(words) // 2)
    start, mid, end = LONG_LINE_TOKENS
    (root / LONG_LINE).write_text(f"{start} {half}{mid} {half}{end}")  # no newline at all
    # Bad files.
    (root / "empty.md").write_bytes(b"")
    (root / "binary.md").write_bytes(b"\x00\x01\x02binarytoken" + random.Random(5).randbytes(8192))
    with open(root / "huge.md", "wb") as handle:
        line = b"The huge file repeats hugetoken on every line of its fifty megabytes.\n"
        handle.write(line * (HUGE_BYTES // len(line) + 1))
    (root / "corrupt.pdf").write_bytes(text_pdf("This PDF carries corrupttoken.")[:600])
    (root / "encrypted.pdf").write_bytes(encrypted_pdf("This PDF carries encryptedtoken."))
    (root / "blank.pdf").write_bytes(blank_pdf())
    os.symlink("loop-b.md", root / "loop-a.md")
    os.symlink("loop-a.md", root / "loop-b.md")
    os.symlink(".", root / "cycle")  # a directory loop: must not be walked forever
    (outside / "outside.md").write_text(note("Outside", "outsidesecrettoken"))
    os.symlink(outside / "outside.md", root / "outside-link.md")
    if HONEST_PERMISSIONS:
        fd = os.open(root / UNREADABLE[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o000)
        os.write(fd, note("Secret", "unreadabletoken").encode())
        os.close(fd)
    # Deleted between the event and the read.
    for name in EPHEMERAL:
        path = root / name
        path.write_text(note("Ephemeral", "ephemeraltoken"))
        path.unlink()


def bad_files() -> dict[str, str]:
    return BAD | ({UNREADABLE[0]: UNREADABLE[1]} if HONEST_PERMISSIONS else {})


def reported(status: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for error in status["errors"]:
        out.setdefault(error["source"], []).append(error["reason"])
    return out


def no_text(status: dict[str, Any]) -> dict[str, str]:
    return {item["source"]: item["reason"] for item in status["no_text"]}


def not_followed(status: dict[str, Any]) -> dict[str, str]:
    return {item["source"]: item["reason"] for item in status["not_followed"]}


@pytest.fixture(
    scope="module",
    params=[TINY_FILES, pytest.param(STRESS_TINY_FILES, marks=pytest.mark.stress)],
    ids=lambda n: f"{n}-tiny",
)
def hostile(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Scenario]:
    tiny_files: int = request.param
    tmp = tmp_path_factory.mktemp("hostile")
    root, outside = tmp / "docs", tmp / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "seed.md").write_text(note("Lighthouse", "seedbeacon"))
    daemon = UnprivilegedDaemon(tmp, [root]).start()
    prober = Prober(daemon)
    figures: dict[str, float] = {}
    try:
        daemon.wait_searchable("seedbeacon", "seed.md", timeout=120)
        prober.start()
        good_count = 1 + len(GOOD) + 1  # seed + good files + the long line

        def settled(expected_files: int) -> dict[str, Any] | None:
            daemon.assert_alive()
            status = daemon.status()
            done = status["state"] == "idle" and status["files"] == expected_files
            done = done and set(NO_TEXT) <= set(no_text(status))
            done = done and set(NOT_FOLLOWED) <= set(not_followed(status))
            return status if done and set(bad_files()) <= set(reported(status)) else None

        started = time.monotonic()
        write_hostile_set(root, outside)
        wait_for(lambda: settled(good_count), SETTLE_TIMEOUT_S, "the hostile set to settle", 0.2)
        figures["hostile_set_s"] = time.monotonic() - started

        tiny = root / "tiny"
        tiny.mkdir()
        started = time.monotonic()
        for i in range(tiny_files):
            (tiny / f"n{i:05d}.txt").write_text(f"Tiny note {i} carries tq{i:05d}z.\n")
        figures["create_tiny_s"] = time.monotonic() - started
        status = wait_for(
            lambda: settled(good_count + tiny_files),
            SETTLE_TIMEOUT_S,
            f"{tiny_files} tiny files to be indexed",
            0.2,
        )
        figures["ingest_tiny_s"] = time.monotonic() - started
        prober.stop()
        print(
            f"\nhostile files: set settled in {figures['hostile_set_s']:.1f} s; "
            f"{tiny_files} tiny files created in {figures['create_tiny_s']:.1f} s and "
            f"indexed in {figures['ingest_tiny_s']:.1f} s "
            f"({tiny_files / figures['ingest_tiny_s']:.0f} files/s); prober answered "
            f"{prober.answered} searches ({prober.answered_while_pending} while files were "
            f"pending), slowest {prober.slowest_s * 1000:.0f} ms; inotify queue overflowed: "
            f"{'yes (rescanned)' if 'event queue overflowed' in daemon.log() else 'no'}"
        )
        yield Scenario(daemon, root, outside, prober, tiny_files, figures, status)
    finally:
        prober.stop()
        daemon.stop()
        unreadable = root / UNREADABLE[0]
        if unreadable.exists():
            unreadable.chmod(0o600)


def test_daemon_kept_serving_throughout(hostile: Scenario) -> None:
    hostile.daemon.assert_alive()
    assert hostile.prober.failures == []
    assert hostile.prober.answered_while_pending > 0  # answered while it was indexing
    assert "Traceback" not in hostile.daemon.log()


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_file_reported_once_with_its_reason(hostile: Scenario, name: str) -> None:
    assert_reported_once(hostile, name, BAD[name])


@pytest.mark.parametrize("kind", ["no text", "links"])
def test_a_file_left_unread_for_no_fault_is_listed_apart_not_as_an_error(
    hostile: Scenario, kind: str
) -> None:
    """A file with no text, or a link not followed (the default), is no failure: its own
    status list (`rag status` shows a `no text` / `links` row), one INFO line."""
    status = hostile.daemon.rag_json("status")
    listed, expected = (
        (no_text(status), NO_TEXT) if kind == "no text" else (not_followed(status), NOT_FOLLOWED)
    )
    assert listed == expected and not set(expected) & set(reported(status))
    for name, reason in expected.items():
        lines = [line for line in hostile.daemon.log().splitlines() if f"skipped {name}:" in line]
        assert len(lines) == 1 and f"INFO    ragd.indexer: skipped {name}: {reason}" in lines[0]
    shown = hostile.daemon.rag("status").stdout
    assert f"\n{kind:<11}{len(expected)} " in shown


def test_unreadable_file_reported_once(hostile: Scenario) -> None:
    if not HONEST_PERMISSIONS:
        pytest.skip(PERMISSION_SKIP_REASON)
    assert_reported_once(hostile, *UNREADABLE)
    assert hostile.daemon.sources("unreadabletoken") == []


def assert_reported_once(hostile: Scenario, name: str, reason: str) -> None:
    status = hostile.daemon.rag_json("status")  # the real CLI's `rag status --json`
    reasons = reported(status)[name]
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons
    pattern = re.compile(rf"^.* WARNING +ragd\.indexer: skipped {re.escape(name)}: (.*)$")
    lines = [m.group(1) for line in hostile.daemon.log().splitlines() if (m := pattern.match(line))]
    assert len(lines) == 1 and lines[0].startswith(reason), lines


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_file_is_answerable(hostile: Scenario, name: str) -> None:
    token = GOOD[name]
    assert hostile.daemon.sources(token) == [name]
    assert name not in reported(hostile.status)


def test_invalid_utf8_is_indexed_with_one_warning(hostile: Scenario) -> None:
    """The stray byte is a Latin-1 letter, read as one (`document._not_utf8`): the word is
    found as typed."""
    lines = [
        line
        for line in hostile.daemon.log().splitlines()
        if "invalid-utf8.md: invalid UTF-8 at byte" in line
    ]
    assert len(lines) == 1 and "1 byte(s) read as Windows-1252" in lines[0]
    hit = hostile.daemon.search("brokenbytetoken", mode="bm25")["results"][0]
    assert "This café note" in hit["text"]
    assert hostile.daemon.sources("café") == ["invalid-utf8.md"]


def test_one_megabyte_line_is_split_and_found_end_to_end(hostile: Scenario) -> None:
    for token in LONG_LINE_TOKENS:
        assert LONG_LINE in hostile.daemon.sources(token), token
    stats = hostile.daemon.call("stats")
    chunks = next(f["chunks"] for f in stats["files"] if f["source"] == LONG_LINE)
    assert chunks >= 400  # ≈ 2,000 characters each: nothing was dropped or kept whole


def test_nothing_outside_or_unreadable_leaks_into_the_index(hostile: Scenario) -> None:
    d = hostile.daemon
    for token in ("outsidesecrettoken", "hugetoken", "encryptedtoken", "corrupttoken"):
        assert d.sources(token) == [], token
    assert d.sources("binarytoken") == []
    sources = {f["source"] for f in d.call("stats")["files"]}
    assert not any(s.startswith("cycle/") for s in sources)  # the directory loop


def test_files_deleted_before_the_read_leave_no_trace(hostile: Scenario) -> None:
    d = hostile.daemon
    assert d.sources("ephemeraltoken") == []
    assert not set(EPHEMERAL) & set(reported(hostile.status))
    assert not [line for line in d.log().splitlines() if "skipped ephemeral" in line]


def test_every_tiny_file_of_the_burst_is_answerable(hostile: Scenario) -> None:
    d, n = hostile.daemon, hostile.tiny_files
    files = {f["source"] for f in d.call("stats")["files"]}
    expected = {f"tiny/n{i:05d}.txt" for i in range(n)}
    assert expected <= files
    sample = [0, n - 1, *random.Random(42).sample(range(n), 100)]
    for i in sample:
        assert d.sources(f"tq{i:05d}z", top_k=5) == [f"tiny/n{i:05d}.txt"], i


def test_every_log_line_is_one_well_formed_line(hostile: Scenario) -> None:
    """Names with newlines are escaped in the log, so no event spans two lines."""
    log = hostile.daemon.log()
    bad = [line for line in log.splitlines() if not LOG_LINE.match(line)]
    assert bad == []
    assert "indexed line\\nbreak.md: 1 chunk in" in log


def test_restart_reports_nothing_again_and_loses_nothing(hostile: Scenario) -> None:
    """Runs last: a restart re-checks the root, re-reads nothing unchanged, logs no bad file
    a second time, and still lists every one of them."""
    d = hostile.daemon
    d.stop()
    d.start()
    status = d.wait_idle(timeout=SETTLE_TIMEOUT_S)
    assert status["files"] == hostile.status["files"]
    assert set(reported(status)) == set(bad_files()) and no_text(status) == NO_TEXT
    assert not_followed(status) == NOT_FOLLOWED
    assert status["activity"]["files_read"] == 0  # unchanged files are not even opened
    assert not [line for line in d.log().splitlines() if "skipped " in line]
    assert d.sources(GOOD["line\nbreak.md"]) == ["line\nbreak.md"]


def test_inotify_overflow_becomes_a_rescan_without_a_path(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The mechanism a large burst (the 10,000-file stress variant) relies on when the
    kernel drops events.

    watchdog reports an overflow only by logging it (and names the root's absolute path);
    the watcher turns that record into a rescan of every root and swallows it."""
    import inspect
    import logging

    import watchdog.observers.inotify_c

    from ragd.core.roots import Roots
    from ragd.ingest.filters import PathFilter
    from ragd.ingest.watcher import Watcher
    from ragd.ingest.work_queue import Job, WorkQueue

    # Drift guard: the watchdog in use still reports overflows through this logger.
    assert 'logger.warning("Inotify queue overflowed' in inspect.getsource(
        watchdog.observers.inotify_c
    )
    roots = [tmp_path / "a", tmp_path / "b"]
    for root in roots:
        root.mkdir()
    queue = WorkQueue(debounce_s=0)
    watcher = Watcher(Roots(map(str, roots)), PathFilter(("*.md",)), queue)
    watcher.start()
    try:
        with caplog.at_level(logging.WARNING):
            for name in ("watchdog.observers.inotify_c", "watchdog.observers.inotify"):
                logging.getLogger(name).warning(
                    "Inotify queue overflowed; reconciling recursive watches below %r",
                    str(roots[0]),
                )
        taken = {queue.take(timeout=5) for _ in roots}
        assert taken == {Job("sync", str(root), "") for root in roots}
        lines = [r.getMessage() for r in caplog.records]
        assert lines == [
            "the inotify event queue overflowed (events were lost); rescanning 2 root(s)"
        ]
        assert not any(str(tmp_path) in line for line in lines)
    finally:
        watcher.stop()
