"""Which write failures are the file size limit's: SQLite's bare "disk I/O error" only when
a file has reached the limit, so a disk that really fails is not blamed on it."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

LIMIT = 256 << 10

# Run under the limit (soft and hard): SQLite in WAL mode writes until the limit stops
# it, then the verdicts on that error and on the same error with only small files around.
CHILD = """
import json, sqlite3, sys
from pathlib import Path
from ragd.core.file_size_limit import file_size_limit, raise_file_size_limit, stopped_by_limit

folder, elsewhere = Path(sys.argv[1]), Path(sys.argv[2])
raise_file_size_limit()
db = sqlite3.connect(folder / "m.sqlite3", isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE t (b BLOB)")
try:
    for _ in range(1000):
        db.execute("BEGIN")
        db.executemany("INSERT INTO t VALUES (?)", [(bytes(1536),)] * 32)
        db.execute("COMMIT")
    error = None
except sqlite3.OperationalError as exc:
    error = exc
(elsewhere / "small").write_bytes(b"x" * 1000)
print(json.dumps({
    "limit": file_size_limit(),
    "error": str(error),
    "here": error is not None and stopped_by_limit(error, folder),
    "elsewhere": error is not None and stopped_by_limit(error, elsewhere),
    "efbig": stopped_by_limit(OSError(27, "File too large"), elsewhere),
}))
"""


def under_limit(script: str, *paths: Path) -> subprocess.CompletedProcess[str]:
    """`script` run by Python under the limit (soft and hard, as `ulimit -f` sets it)."""
    return subprocess.run(
        [sys.executable, "-c", script, *map(str, paths)],
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT)),
        timeout=60,
    )


def test_an_io_error_is_the_limits_only_where_a_file_reached_it(tmp_path: Path) -> None:
    folder, elsewhere = tmp_path / "data", tmp_path / "other"
    folder.mkdir()
    elsewhere.mkdir()
    done = under_limit(CHILD, folder, elsewhere)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["limit"] == LIMIT
    assert said["error"] == "disk I/O error"  # all SQLite says of EFBIG
    assert said["here"] is True
    assert said["elsewhere"] is False  # no file near the limit: not the limit's
    assert said["efbig"] is True
    assert "the file size limit (ulimit -f / LimitFSIZE) is 256 KB" in done.stderr


# The manifest rewriting one small row under the limit, as the daemon does with its
# clean-stop flag and the gate floor: the data stays a few KB, only the log grows.
REWRITES = """
import json, os, sys
from pathlib import Path
from ragd.index.manifest import Manifest

path = Path(sys.argv[1])
manifest = Manifest(path)
done, error = 0, None
try:
    for n in range(400):
        manifest.set_meta("clean_shutdown", str(n % 2) * 2048)
        done += 1
except Exception as exc:
    error = f"{type(exc).__name__}: {exc}"
wal = path.with_name(path.name + "-wal")
print(json.dumps({"done": done, "error": error, "wal": wal.stat().st_size}))
"""


def test_the_manifests_log_is_checkpointed_before_it_reaches_the_limit(tmp_path: Path) -> None:
    """carried36: SQLite moves its write-ahead log into the database only every 1,000
    pages (4 MB); under a smaller file size limit the log reached the limit first, and
    from then on every manifest write failed (a daemon's clean-stop flag included: the
    next start repaired for nothing) while the database itself held a few KB. The log
    is now checkpointed well before the limit, so a database that fits can be written."""
    done = under_limit(REWRITES, tmp_path / "manifest.sqlite3")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert (said["error"], said["done"]) == (None, 400)
    assert said["wal"] < LIMIT
