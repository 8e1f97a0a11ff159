"""`rag ingest` of what cannot be a root, or cannot even be looked at: one line each.

/proc and /sys are folders, but the kernel's: `rag ingest /proc` once made a root of it,
watchdog logged warnings tens of kilobytes long while it watched every process's
folders, the walk reported each process that ended under it, and the daemon stayed
`indexing` while processes came and went. A name longer than the system allows was an
internal error with a traceback; the daemon's own data dir was "added" and never held a
document. The session's sample daemon is asked each; `ragd serve` is given /proc.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.daemon import Daemon

pytestmark = pytest.mark.slow


def one_line_refusal(d: Daemon, path: str, code: int, words: str) -> None:
    result = d.rag("ingest", path, "--timeout", "30")
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], lines


def test_what_cannot_be_a_root_is_refused_in_one_line(
    sample_daemon: Daemon, tmp_path: Path
) -> None:
    d = sample_daemon  # the session's: every refusal must leave it as it was
    before = d.wait_idle()
    found = d.sources("Tullagh")
    logged = len(d.log())
    one_line_refusal(d, "/proc", 5, "is on proc, a file system the kernel makes up")
    one_line_refusal(d, "/sys", 5, "is on sysfs, a file system the kernel makes up")
    one_line_refusal(d, "/", 5, "/proc")  # below it: walked and watched, they would be too
    too_long = "x" * 300  # a file name may have 255 bytes
    one_line_refusal(d, str(tmp_path / too_long), 5, "File name too long")
    one_line_refusal(d, str(d.roots[0] / too_long / "a.md"), 5, "File name too long")
    one_line_refusal(d, str(d.data_dir), 5, "holds ragd's own index")
    outside = tmp_path / "stray.md"
    outside.write_text("# A stray note\n\nOutside every root.\n")
    one_line_refusal(d, str(outside), 5, "stray.md is in no watched folder")
    one_line_refusal(d, str(outside), 5, "ingest the folder that holds it")
    one_line_refusal(d, str(d.data_dir / "chroma"), 5, "holds ragd's own index")
    status = d.wait_idle()
    assert [r["name"] for r in status["roots"]] == [r["name"] for r in before["roots"]]
    assert status["errors"] == before["errors"] == [] and status["files"] == before["files"]
    assert found and d.sources("Tullagh") == found  # still answering, nothing lost
    log = d.log()[logged:]  # what these refusals made it say
    assert "Traceback" not in log and max(map(len, log.splitlines()), default=0) < 1000

    served = d.ragd("serve", "/proc", "--data-dir", str(tmp_path / "other"))
    assert served.returncode == 2
    assert served.stderr.strip().splitlines()[-1].endswith("holds no documents")
