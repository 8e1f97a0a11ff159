"""A data dir too long for SQLite is named as too long, not as a damaged manifest.

Before: `ragd serve --data-dir <517-byte path>` logged "the manifest … is damaged (unable
to open database file); `ragd reset --data-dir …` rebuilds the index", exit 2, and that
`ragd reset` ended in a ManifestDamaged traceback. SQLite's unix VFS cannot open a
database by a path that long; the limit is checked with SQLite itself below.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from ragd.core.layout import MAX_SQLITE_PATH_BYTES, VECTOR_DATABASE, DataDir, too_long
from tests.support.commands import run
from tests.support.daemon import BIN, base_env


def _dir_of_bytes(base: Path, size: int) -> Path:
    """A folder path under `base` exactly `size` bytes long (names under NAME_MAX)."""
    rest = size - len(os.fsencode(base)) - 1
    half = rest // 2
    path = base / ("r" * half) / ("s" * (rest - half - 1))
    assert len(os.fsencode(path)) == size
    return path


def _opens_in_wal_mode(path: Path) -> bool:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(path)
        try:
            db.execute("pragma journal_mode=wal")
            db.execute("create table if not exists t (x)")
            db.commit()
        finally:
            db.close()
    except sqlite3.OperationalError:
        return False
    return True


def test_the_limit_is_sqlites(tmp_path: Path) -> None:
    fits = _dir_of_bytes(tmp_path / "a", MAX_SQLITE_PATH_BYTES - len("/x.db")) / "x.db"
    assert _opens_in_wal_mode(fits)
    over = _dir_of_bytes(tmp_path / "b", MAX_SQLITE_PATH_BYTES + 1 - len("/x.db")) / "x.db"
    assert not _opens_in_wal_mode(over)


def test_the_longest_data_dir_allowed_holds_its_databases(tmp_path: Path) -> None:
    suffix = len(os.fsencode(DataDir(Path("/")).vectors / VECTOR_DATABASE))  # "/chroma/…"
    longest = _dir_of_bytes(tmp_path, MAX_SQLITE_PATH_BYTES - suffix)
    assert too_long(longest) is None
    assert _opens_in_wal_mode(DataDir(longest).vectors / VECTOR_DATABASE)
    assert _opens_in_wal_mode(DataDir(longest).manifest)
    one_more = _dir_of_bytes(tmp_path / "x", MAX_SQLITE_PATH_BYTES - suffix + 1)
    assert too_long(one_more) is not None


@pytest.mark.parametrize("command", ["serve", "reset", "check"])
def test_each_command_names_the_length(tmp_path: Path, command: str) -> None:
    data = _dir_of_bytes(tmp_path, 517)
    out = run([BIN / "ragd", command, "--data-dir", data], base_env(tmp_path))
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert "is 517 bytes long" in out.stderr and "damaged" not in out.stderr
