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
from collections.abc import Callable
from pathlib import Path

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


def test_a_file_size_limit_is_said_once_and_the_daemon_serves_what_it_has(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    # Soft and hard, as `ulimit -f` sets them: the daemon cannot raise it.
    d = Daemon(tmp_path, [root], limits={resource.RLIMIT_FSIZE: (LIMIT, LIMIT)}).start()
    try:
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

        # What it holds is still answered, and the daemon stops cleanly.
        assert d.sources("zebrafinch") == ["a.md"]
        d.assert_alive()
    finally:
        code = d.stop()
    log = d.log()
    assert code == 0, d.log_tail()
    assert "Traceback" not in log, d.log_tail()
    assert log.count(file_size_limit_line(LIMIT)) == 1, d.log_tail()
    assert log.count("index writes fail") == 1, d.log_tail()


def test_files_as_large_as_one_that_did_not_fit_are_left_out_unembedded(tmp_path: Path) -> None:
    """carried36: once the limit had stopped a file, each later file as large was still
    embedded (its first slice at least) only to fail at its first write: by hand, six
    500-window files cost the daemon 11.7 s of CPU, now 4.5 s. Now a file needing at
    least as many new vectors as the write the limit stopped is listed as not indexed
    without being embedded, until a file's rows are deleted (which may make room)."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    d = Daemon(tmp_path, [root], limits={resource.RLIMIT_FSIZE: (LIMIT, LIMIT)}).start()
    try:
        d.wait_idle()

        def left_out(n: int) -> Callable[[], dict[str, object] | None]:
            def settled() -> dict[str, object] | None:
                now = d.status()
                reasons = " ".join(str(e["reason"]) for e in now["errors"])
                done = f"{n} file{'s' * (n != 1)} not indexed" in reasons and not now["pending"]
                return now if done else None

            return settled

        long_changelog(root / "changelog.txt")
        first = wait_for(left_out(1), 180, "the first changelog to be stopped by the limit")
        computed = first["embeddings"]["computed"]  # type: ignore[index]
        for n in (1, 2):
            long_changelog(root / f"changelog{n}.txt", seed=26 + n)
        later = wait_for(left_out(3), 180, "both later changelogs to be left out")
        assert later["embeddings"]["computed"] == computed  # type: ignore[index]
        assert d.sources("zebrafinch") == ["a.md"]
    finally:
        assert d.stop() == 0, d.log_tail()
    log = d.log()
    assert "not indexed: changelog2.txt (the file size limit: no room for" in log, d.log_tail()
    assert "Traceback" not in log, d.log_tail()
