"""A file size limit (`ulimit -f`, systemd's `LimitFSIZE=`) is one clear line, not broken files.

Python ignores SIGXFSZ, so a write past the limit fails with EFBIG, which SQLite reports
as "disk I/O error". Under `ulimit -f 3000` the manifest's write-ahead log stopped at
3,072,000 bytes and every large file was listed as "indexing failed (OperationalError:
disk I/O error)" with a traceback; a large file embedded slice by slice failed again
once a second, a traceback each time, for as long as the daemon ran. Now the daemon says
the limit at start and in `rag status`, says once that an index file reached it, records
nothing against the files, and goes on answering from what it holds.
"""

from __future__ import annotations

import random
import resource
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragproto.sizes import file_size_limit_line
from tests.support.daemon import Daemon, wait_for

LIMIT = 512 << 10  # ChromaDB's empty database (184 KB) fits, a 500-window changelog not
PARAGRAPHS = 500  # a window each: their embeddings alone are more than the limit


def long_changelog(path: Path, seed: int = 26) -> None:
    """Paragraphs of words in a seeded random order: no two windows alike (the embedding
    cache would otherwise store one vector for many)."""
    words = "release fixes build parser memory option socket buffer locale thread".split()
    pick = random.Random(seed)
    paragraphs = [
        f"Entry {n}: " + " ".join(pick.choice(words) for _ in range(45)) + "."
        for n in range(PARAGRAPHS)
    ]
    path.write_text("# Changes\n\n" + "\n\n".join(paragraphs) + "\n")


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon under the limit for the module: the first test has the limit stop a
    changelog, the second adds files as large to what that left (a 500-window changelog
    embedded once, not once per test). Each test also passes alone."""
    tmp = tmp_path_factory.mktemp("fsize")
    root = tmp / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    # Soft and hard, as `ulimit -f` sets them: the daemon cannot raise it.
    daemon = Daemon(tmp, [root], limits={resource.RLIMIT_FSIZE: (LIMIT, LIMIT)}).start()
    yield daemon
    if daemon.proc is not None and daemon.proc.poll() is None:
        assert daemon.stop() == 0, daemon.log_tail()


def assert_said_once(d: Daemon) -> None:
    log = d.log()
    assert "Traceback" not in log, d.log_tail()
    assert log.count(file_size_limit_line(LIMIT)) == 1, d.log_tail()
    assert log.count("index writes fail") == 1, d.log_tail()


def test_a_file_size_limit_is_said_once_and_the_daemon_serves_what_it_has(d: Daemon) -> None:
    root = d.roots[0]
    status = d.wait_idle()
    assert status["file_size_limit"] == LIMIT
    limits = Path(f"/proc/{d.proc.pid}/limits").read_text()  # type: ignore[union-attr]
    assert f"Max file size             {LIMIT}" in limits
    assert d.sources("zebrafinch") == ["a.md"]

    long_changelog(root / "changelog.txt")

    def settled() -> dict[str, object] | None:
        now = d.status()
        return now if now["errors"] and not now["pending"] else None

    status = wait_for(settled, 180, "the changelog's writes to fail")
    reasons = [(e["source"], e["reason"]) for e in status["errors"]]
    assert [source for source, _ in reasons] == ["file size limit"], reasons
    limit_reason = reasons[0][1]
    assert "ulimit -f / LimitFSIZE" in limit_reason and "512 KB" in limit_reason
    assert "1 file not indexed" in limit_reason
    assert status["state"] == "degraded"

    shown = d.rag("status").stdout
    assert file_size_limit_line(LIMIT) in shown
    assert "OperationalError" not in shown and "indexing failed" not in shown

    # What it holds is still answered, and the limit and the failed write are said once
    # (the next test stops the daemon and checks the log again, after more such files).
    assert d.sources("zebrafinch") == ["a.md"]
    d.assert_alive()
    assert_said_once(d)


def test_files_as_large_as_one_that_did_not_fit_are_left_out_unembedded(d: Daemon) -> None:
    """carried36: once the limit had stopped a file, each later file as large was still
    embedded (its first slice at least) only to fail at its first write: by hand, six
    500-window files cost the daemon 11.7 s of CPU, now 4.5 s. Now a file needing at
    least as many new vectors as the write the limit stopped is listed as not indexed
    without being embedded, until a file's rows are deleted (which may make room).
    After the previous test, changelog.txt is the file the limit stopped already; alone,
    this test writes it and has it stopped first."""
    root = d.roots[0]
    # Idle, or (after the previous test) degraded by the limit: nothing pending either way.
    wait_for(lambda: d.status()["state"] in ("idle", "degraded"), 120, "the first index")

    def left_out(n: int) -> Callable[[], dict[str, object] | None]:
        def settled() -> dict[str, object] | None:
            now = d.status()
            reasons = " ".join(str(e["reason"]) for e in now["errors"])
            done = f"{n} file{'s' * (n != 1)} not indexed" in reasons and not now["pending"]
            return now if done else None

        return settled

    if not (root / "changelog.txt").exists():
        long_changelog(root / "changelog.txt")
    first = wait_for(left_out(1), 180, "the first changelog to be stopped by the limit")
    computed = first["embeddings"]["computed"]  # type: ignore[index]
    for n in (1, 2):
        long_changelog(root / f"changelog{n}.txt", seed=26 + n)
    later = wait_for(left_out(3), 180, "both later changelogs to be left out")
    assert later["embeddings"]["computed"] == computed  # type: ignore[index]
    assert d.sources("zebrafinch") == ["a.md"]
    assert d.stop() == 0, d.log_tail()  # and the daemon stops cleanly
    log = d.log()
    assert "not indexed: changelog2.txt (the file size limit: no room for" in log, d.log_tail()
    assert_said_once(d)
