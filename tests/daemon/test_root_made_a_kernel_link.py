"""A watched root deleted and made again as a link to /proc (a file system the kernel
makes up), then a folder of documents once more.

Before: the watcher took it for "a new folder" and the writer walked it: 50 "cannot read
folder" errors in `rag status` for processes ending under /proc, watchdog's raw
`RuntimeWarning: Callback with id … already exists` lines in the log, a watch set on every
process's folders. `rag ingest /proc/…` was already refused; now the root is not watched
nor walked while it is the kernel's (one warning), its documents stay indexed as for a
root that is gone, and it is watched again once it is a folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def test_a_root_made_a_link_to_proc_is_not_walked(tmp_path: Path) -> None:
    docs, scratch = tmp_path / "docs", tmp_path / "scratch"
    docs.mkdir()
    scratch.mkdir()
    (docs / "seed.md").write_text("# Seed\n\nThe seed document mentions zanzibar.\n")
    (scratch / "first.md").write_text("# First\n\nThe scratch note names oribatid.\n")
    daemon = Daemon(tmp_path, [docs, scratch]).start()
    try:
        daemon.wait_searchable("oribatid", "scratch/first.md")
        shutil.rmtree(scratch)
        scratch.symlink_to("/proc")
        mark = daemon.wait_log("not watching root scratch: proc is on proc")
        status = daemon.wait_idle()
        assert not [e for e in status["errors"] if "scratch/" in str(e)], status["errors"]
        log = daemon.log()[mark:]
        assert "skipped scratch/" not in log and "RuntimeWarning" not in log, log[-2000:]
        daemon.wait_searchable("zanzibar", "docs/seed.md")
        scratch.unlink()
        scratch.mkdir()
        (scratch / "second.md").write_text("# Second\n\nThe second note names springtail.\n")
        daemon.wait_searchable("springtail", "scratch/second.md")
        wait_for(lambda: not daemon.sources("oribatid"), 30, "the deleted note to leave")
    finally:
        code = daemon.stop()
    assert code == 0


def test_a_root_linked_to_a_folder_whose_name_is_not_utf8_is_walked(tmp_path: Path) -> None:
    # A root's own path must be UTF-8 (the index keys it as text); where a link leads need
    # not be. The check for a root made a link to /proc applied that rule to the folder
    # the link leads to, so such a root, accepted at start, was neither watched nor walked.
    target = tmp_path / b"caf\xe9".decode("utf-8", "surrogateescape")
    target.mkdir()
    (target / "note.md").write_text("# Note\n\nThe linked note names pangolin.\n")
    docs = tmp_path / "docs"
    docs.symlink_to(target)
    daemon = Daemon(tmp_path, [docs]).start()
    try:
        daemon.wait_searchable("pangolin", "note.md")
        assert "not watching root" not in daemon.log()
    finally:
        code = daemon.stop()
    assert code == 0
