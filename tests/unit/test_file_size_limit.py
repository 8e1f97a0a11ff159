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


def test_an_io_error_is_the_limits_only_where_a_file_reached_it(tmp_path: Path) -> None:
    folder, elsewhere = tmp_path / "data", tmp_path / "other"
    folder.mkdir()
    elsewhere.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(elsewhere)],
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT)),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["limit"] == LIMIT
    assert said["error"] == "disk I/O error"  # all SQLite says of EFBIG
    assert said["here"] is True
    assert said["elsewhere"] is False  # no file near the limit: not the limit's
    assert said["efbig"] is True
    assert "the file size limit (ulimit -f / LimitFSIZE) is 256 KB" in done.stderr
