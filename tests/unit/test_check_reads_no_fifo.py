"""`ragd check` hashing an indexed file that became a FIFO after the walk saw it.

The walk lists every root first, then each indexed file is read and hashed; a live check
runs in the daemon's search pool. A file replaced by a FIFO in between made the open wait
for a writer for ever (one of the pool's threads gone). The race's outcome is set up
directly here: the walk's list names the path, and a FIFO is there. The subprocess
timeout guards against the old hang; it is not a measure.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ragd.index.consistency import check_disk
from ragd.index.manifest import FileRow, Manifest
from tests.support.commands import run_python

CHECK = """
import sys
from pathlib import Path
from ragd.index.consistency import check_disk
from ragd.index.manifest import Manifest
root, data = sys.argv[1], Path(sys.argv[2])
report = check_disk(Manifest(data / "manifest.sqlite3"), [root], {root: ["a.md", "b.md"]})
print(sorted(report.stale))
"""


def test_a_fifo_where_an_indexed_file_was_is_stale_not_a_hang(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "b.md").write_text("# B\n\nkept.\n")
    os.mkfifo(root / "a.md")
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    digest = hashlib.sha256((root / "b.md").read_bytes()).hexdigest()
    for rel, sha in (("a.md", "0" * 64), ("b.md", digest)):
        manifest.commit_file(FileRow(str(root), rel, 1, 1, sha, ()), [])
    manifest.close()
    out = run_python(CHECK, root, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['a.md']", out.stdout


def test_an_unchanged_file_is_not_stale(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "b.md").write_bytes(b"x" * 3_000_000)  # read in pieces, hashed as a whole
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    digest = hashlib.sha256((root / "b.md").read_bytes()).hexdigest()
    manifest.commit_file(FileRow(str(root), "b.md", 1, 1, digest, ()), [])
    report = check_disk(manifest, [str(root)], {str(root): ["b.md"]})
    assert report.stale == [] and report.files_indexed == 1
