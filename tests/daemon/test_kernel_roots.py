"""/proc and /sys are folders, but the kernel's: never roots.

`rag ingest /proc` once made a root of it: watchdog logged warnings tens of kilobytes
long while it watched every process's folders, the walk reported each process that ended
under it, and the daemon stayed `indexing` while processes came and went. A real daemon
is asked to add each kind; `ragd serve` is given one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.daemon import Daemon

pytestmark = pytest.mark.slow


def test_kernel_file_systems_are_refused_as_roots_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "pumps.md").write_text("# Pumps\n\nPump PX-7 is greased every spring.\n")
    d = Daemon(tmp_path, [root])
    d.start()
    before = d.wait_idle()
    for folder, kind in (("/proc", "proc"), ("/sys", "sysfs")):
        result = d.rag("ingest", folder, "--timeout", "30")
        assert result.returncode == 5, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and f"on {kind}" in lines[0] and "holds no documents" in lines[0]
    status = d.wait_idle()
    assert [r["name"] for r in status["roots"]] == [r["name"] for r in before["roots"]]
    assert status["errors"] == [] and status["files"] == before["files"] == 1
    assert d.stop() == 0
    assert max(len(line) for line in d.log().splitlines()) < 1000

    served = d.ragd("serve", "/proc", "--data-dir", str(tmp_path / "other"))
    assert served.returncode == 2
    assert served.stderr.strip().splitlines()[-1].endswith("holds no documents")
