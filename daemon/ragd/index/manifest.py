"""The manifest: SQLite (WAL), the source of truth both indexes are rebuilt from.

Tables
    meta        key/value: index fingerprint, remembered roots, clean-shutdown flag
    files       one row per indexed file: (root, relpath) → size, mtime_ns, sha256, chunk ids
    chunks      one row per chunk: content-addressed id, file, heading path, text, windows,
                and its location in the file (page; lines or notebook cells)
    windows     which chunks hold each window text (its sha256, the vector's id in ChromaDB:
                one vector per distinct text, ragd/index/shared_vectors.py)
    embeddings  the embedding cache: (model, window-text sha256) → float32 vector
    problems    files that could not be indexed and why (shown by `rag status`)

A file's row is committed *after* both indexes hold its chunks, so after a crash the
manifest may lag the indexes but never lead them; start-up repair removes what it does
not know and re-adds what it does.

Every thread gets its own connection; WAL lets readers (status, search) proceed while
the index writer commits. `read_only=True` (for `ragd check`) opens with SQLite's
`mode=ro` and creates nothing.
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragd.core.file_size_limit import file_size_limit
from ragd.index.space import DiskGuard

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    root TEXT NOT NULL, relpath TEXT NOT NULL,
    size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL,
    chunk_ids TEXT NOT NULL, indexed_at REAL NOT NULL,
    PRIMARY KEY (root, relpath)
);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, root TEXT NOT NULL, relpath TEXT NOT NULL,
    ordinal INTEGER NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL,
    page INTEGER, windows TEXT NOT NULL, location TEXT
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks (root, relpath);
CREATE TABLE IF NOT EXISTS windows (
    text_hash TEXT NOT NULL, chunk_id TEXT NOT NULL, position INTEGER NOT NULL,
    PRIMARY KEY (text_hash, chunk_id, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS windows_by_chunk ON windows (chunk_id);
CREATE INDEX IF NOT EXISTS files_by_content ON files (sha256);
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, text_hash)
);
CREATE TABLE IF NOT EXISTS reads (
    root TEXT NOT NULL, relpath TEXT NOT NULL, name TEXT NOT NULL, sha256 TEXT NOT NULL,
    PRIMARY KEY (root, relpath, name)
);
CREATE INDEX IF NOT EXISTS reads_by_name ON reads (root, name);
CREATE TABLE IF NOT EXISTS wants (
    root TEXT NOT NULL, relpath TEXT NOT NULL, folder TEXT NOT NULL, key TEXT NOT NULL,
    PRIMARY KEY (root, relpath, key)
);
CREATE INDEX IF NOT EXISTS wants_by_key ON wants (root, folder, key);
CREATE TABLE IF NOT EXISTS problems (
    root TEXT NOT NULL, relpath TEXT NOT NULL, reason TEXT NOT NULL,
    size INTEGER, mtime_ns INTEGER, at REAL NOT NULL,
    PRIMARY KEY (root, relpath)
);
"""


# SQLite's INTEGER holds 64 bits, and a time in nanoseconds passes them after 2262-04-11
# and before 1677-09-21: `touch -d 2300-01-01`, a file unpacked from an archive made
# under a broken clock. Such a stat's mtime is stored, and compared, as the nearest time
# the column holds (two versions both past 2262 look alike to the walk, as two saves of
# one size within a clock tick do; an event still makes the writer read the bytes).
_NS_MIN, _NS_MAX = -(2**63), 2**63 - 1


def stored_ns(mtime_ns: int) -> int:
    """`mtime_ns` as the manifest keeps it: within SQLite's 64-bit INTEGER."""
    return min(max(mtime_ns, _NS_MIN), _NS_MAX)


@dataclass(frozen=True)
class FileRow:
    root: str
    relpath: str
    size: int
    mtime_ns: int
    sha256: str
    chunk_ids: tuple[str, ...]


@dataclass(frozen=True)
class Beside:
    """What a file's text depends on besides its own bytes (a DocBook chapter's, a Mallard
    page's): the files its parse read beside it, by relpath, with the sha256 of the bytes
    it read (`reads`: a DTD, a sibling whose title a reference shows); the ids a reference
    looked for beside it in vain (`wants`); and the ids a reference from a file beside it
    can find in it (`holds`). `ingest/dependents.py` reads the first two again when the
    third, or a file read, changes."""

    reads: tuple[tuple[str, str], ...] = ()
    wants: tuple[str, ...] = ()
    holds: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChunkRow:
    chunk_id: str
    root: str
    relpath: str
    ordinal: int
    heading: str
    text: str
    page: int | None
    windows: tuple[str, ...]  # sha256 of each window text, in order
    # Where the chunk is (1-based, inclusive); not part of its id, refreshed on each sync.
    lines: tuple[int, int] | None = None
    cells: tuple[int, int] | None = None
    slides: tuple[int, int] | None = None
    rows: tuple[int, int] | None = None


CHUNK_COLUMNS = "chunk_id, root, relpath, ordinal, heading, text, page, windows, location"
# Each window's holder with its file: the windows table joined to the chunks.
_HOLDERS = (
    "(SELECT w.text_hash AS text_hash, w.chunk_id AS chunk_id, w.position AS position, "
    "c.root AS root, c.relpath AS relpath FROM windows AS w JOIN chunks AS c "
    "ON c.chunk_id = w.chunk_id)"
)
# The same computed from the chunks' own lists, with no index: a manifest from before the
# windows table (`ragd check` before the upgraded daemon's first start; the daemon's own
# start until the changed index fingerprint clears the chunks, after which it is kept).
_HOLDERS_OF_CHUNKS = (
    "(SELECT j.value AS text_hash, c.chunk_id AS chunk_id, j.key AS position, "
    "c.root AS root, c.relpath AS relpath FROM chunks AS c, json_each(c.windows) AS j)"
)


def _chunk_row(r: Any) -> ChunkRow:
    where = json.loads(r[8]) if r[8] else {}
    lines, cells, slides, rows = (where.get(k) for k in ("lines", "cells", "slides", "rows"))
    return ChunkRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        tuple(json.loads(r[7])),
        (lines[0], lines[1]) if lines else None,
        (cells[0], cells[1]) if cells else None,
        (slides[0], slides[1]) if slides else None,
        (rows[0], rows[1]) if rows else None,
    )


def _at_or_below(column: str, prefix: str) -> tuple[str, tuple[str, ...]]:
    """The SQL condition (and its arguments) that `column`, a relpath, is `prefix` or lies
    below the folder `prefix` ("" is the whole root): from "prefix/" up to "prefix0" ('0'
    follows '/'), a range an index on the column serves."""
    if not prefix:
        return "1", ()
    return f"({column}=? OR ({column}>=? AND {column}<?))", (prefix, prefix + "/", prefix + "0")


# Ids per `IN (...)` list: SQLite's limit on parameters is 32,766.
IN_BATCH = 500


def _in_batches(ids: Iterable[str]) -> Iterator[tuple[list[str], str]]:
    """The distinct `ids` a batch at a time, each with its `?, ?, …` placeholders."""
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), IN_BATCH):
        batch = unique[start : start + IN_BATCH]
        yield batch, ",".join("?" * len(batch))


def _forget_windows(db: sqlite3.Connection, where: str, args: tuple[str, ...]) -> None:
    """Delete the windows rows of the chunks `where` selects (before the chunks go)."""
    db.execute(
        f"DELETE FROM windows WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE {where})", args
    )


def _forget_beside(db: sqlite3.Connection, where: str, args: tuple[str, ...]) -> None:
    for table in ("reads", "wants"):
        db.execute(f"DELETE FROM {table} WHERE {where}", args)


def _record_beside(db: sqlite3.Connection, files: Sequence[tuple[str, str, Beside]]) -> None:
    for root, relpath, beside in files:
        _forget_beside(db, "root=? AND relpath=?", (root, relpath))
        db.executemany(
            "INSERT OR REPLACE INTO reads VALUES (?, ?, ?, ?)",
            [(root, relpath, name, sha) for name, sha in beside.reads],
        )
        folder = posixpath.dirname(relpath)
        db.executemany(
            "INSERT OR REPLACE INTO wants VALUES (?, ?, ?, ?)",
            [(root, relpath, folder, key) for key in beside.wants],
        )


def _location(c: ChunkRow) -> str | None:
    where = {"lines": c.lines, "cells": c.cells, "slides": c.slides, "rows": c.rows}
    known = {k: list(v) for k, v in where.items() if v}
    return json.dumps(known) if known else None


# SQLite's default: the write-ahead log is moved into the database every 1,000 pages.
AUTOCHECKPOINT_PAGES = 1000
BUSY_TIMEOUT_S = 30.0  # how long a write waits for a lock another process holds


def checkpoint_below_limit(db: sqlite3.Connection) -> None:
    """Under a file size limit (`ulimit -f`, LimitFSIZE: core/file_size_limit.py), move the
    write-ahead log into the database once it holds a quarter of the limit, and cut it
    back to that size after, rather than at SQLite's 1,000 pages (4 MB). Under a 512 KB
    limit the log reached the limit with the database still 4 KB, and from then on every
    write failed: the clean-stop flag too, so the next start repaired for nothing. A
    quarter leaves room for the transaction that crosses it (a file's rows)."""
    limit = file_size_limit()
    if limit is None:
        return
    page = int(db.execute("PRAGMA page_size").fetchone()[0])
    pages = max(1, min(AUTOCHECKPOINT_PAGES, limit // 4 // page))
    db.execute(f"PRAGMA wal_autocheckpoint={pages}")
    db.execute(f"PRAGMA journal_size_limit={pages * page}")


class ManifestDamaged(Exception):
    """The manifest is not a readable SQLite database (or fails its integrity check)."""


SQLITE_SIDE_FILES = ("", "-wal", "-shm", "-journal")  # the database and what SQLite adds


def not_a_database_file(path: Path) -> str | None:
    """What is wrong with the database file (or a file SQLite keeps beside it) when one
    is there but is not a regular file, else None. SQLite opens a FIFO and then waits on
    its first read for ever (`ragd check` and `ragd reset` hung on one), and a folder gave
    `ragd reset` an IsADirectoryError traceback. A link is followed, as SQLite does."""
    for suffix in SQLITE_SIDE_FILES:
        side = path.with_name(path.name + suffix)
        try:
            mode = side.stat().st_mode
        except OSError:
            continue  # absent (or unreachable: SQLite says so itself)
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            return f"{side.name} is {kind}"
    return None


class Manifest:
    def __init__(self, path: Path, read_only: bool = False, guard: DiskGuard | None = None) -> None:
        self.path = path
        self.read_only = read_only
        self.guard = guard  # waits for disk space before each write (the daemon's)
        self._local = threading.local()
        self._chunk_columns = CHUNK_COLUMNS
        self._holders = _HOLDERS  # where the window holders are read from
        problem = not_a_database_file(path)
        if problem:
            raise ManifestDamaged(problem)
        try:
            if read_only:
                self._db().execute("SELECT COUNT(*) FROM meta").fetchone()
                if not self._has_location_column():  # `ragd check` on an older manifest
                    self._chunk_columns = CHUNK_COLUMNS.replace("location", "NULL")
                if not self._has_table("windows") or self._chunks_without_windows():
                    self._holders = _HOLDERS_OF_CHUNKS  # written before the windows table
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._db().executescript(SCHEMA)
                if not self._has_location_column():
                    # Written before chunks had locations: those chunks have none until
                    # their file is indexed again (a chunker change re-indexes them all).
                    self._db().execute("ALTER TABLE chunks ADD COLUMN location TEXT")
                if self._chunks_without_windows():
                    self._holders = _HOLDERS_OF_CHUNKS
        except sqlite3.DatabaseError as exc:
            self.close()
            raise ManifestDamaged(str(exc)) from exc

    def _has_table(self, name: str) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?"
        return self._db().execute(sql, (name,)).fetchone() is not None

    def _chunks_without_windows(self) -> bool:
        """Chunks but no windows rows: written before the windows table (nothing is
        written to fill it: the changed index fingerprint clears the chunks next)."""
        db = self._db()
        if db.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None:
            return False
        return db.execute("SELECT 1 FROM windows LIMIT 1").fetchone() is None

    def _has_location_column(self) -> bool:
        return "location" in {r[1] for r in self._db().execute("PRAGMA table_info(chunks)")}

    def integrity_problem(self) -> str | None:
        """SQLite's own page-by-page check: None when sound, else its first complaint."""
        try:
            rows = self._db().execute("PRAGMA integrity_check").fetchall()
        except sqlite3.DatabaseError as exc:
            return str(exc)
        first = str(rows[0][0]) if rows else "no answer"
        return None if first == "ok" else f"{first} ({len(rows)} problem(s))"

    # -- connections -------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None and self.read_only:
            # Without a WAL file there is nothing beyond the main file to read: `immutable`
            # then keeps SQLite from creating the -wal/-shm files a WAL reader needs.
            wal = self.path.with_name(self.path.name + "-wal").exists()
            query = "?mode=ro" if wal else "?mode=ro&immutable=1"
            db = sqlite3.connect(
                self.path.absolute().as_uri() + query, uri=True, isolation_level=None
            )
            self._local.db = db
        elif db is None:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=OFF")
            checkpoint_below_limit(db)
            self._local.db = db
        return db

    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: object, *_: object) -> None:
            if exc_type:
                self.db.execute("ROLLBACK")
                return
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error:
                # A COMMIT that failed (a full disk) leaves the transaction open, and every
                # later BEGIN on this connection would fail: close it here.
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise

    def _tx(self) -> Manifest._Tx:
        if self.guard is not None:
            self.guard.wait_for_room()
        return Manifest._Tx(self._db())

    def data_version(self) -> int:
        """SQLite's `data_version` on this thread's connection: it changes when another
        connection (the writer's thread, another process) has committed since this one
        last asked. A search compares it around its reads (`query/retrieval.py`)."""
        return int(self._db().execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    # -- meta --------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._db().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def take_meta(self, key: str, durable: bool = False) -> str | None:
        """Read and delete a meta value in one transaction. `durable`: synced to the disk
        before this returns (in WAL mode, synchronous=NORMAL syncs only at checkpoints)."""
        db = self._db()
        if durable:
            db.execute("PRAGMA synchronous=FULL")
        try:
            with self._tx() as tx:
                row = tx.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
                tx.execute("DELETE FROM meta WHERE key=?", (key,))
        finally:
            if durable:
                db.execute("PRAGMA synchronous=NORMAL")
        return None if row is None else str(row[0])

    # -- files -------------------------------------------------------------------
    def files(self, root: str | None = None) -> list[FileRow]:
        sql = "SELECT root, relpath, size, mtime_ns, sha256, chunk_ids FROM files"
        rows = (
            self._db().execute(sql + " WHERE root=?", (root,))
            if root is not None
            else self._db().execute(sql)
        )
        return [FileRow(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5]))) for r in rows]

    def files_larger_than(self, size: int) -> list[tuple[str, str]]:
        """(root, relpath) of the indexed files of more than `size` bytes."""
        sql = "SELECT root, relpath FROM files WHERE size > ?"
        return [(r[0], r[1]) for r in self._db().execute(sql, (size,))]

    def file(self, root: str, relpath: str) -> FileRow | None:
        r = (
            self._db()
            .execute(
                "SELECT root, relpath, size, mtime_ns, sha256, chunk_ids FROM files "
                "WHERE root=? AND relpath=?",
                (root, relpath),
            )
            .fetchone()
        )
        return None if r is None else FileRow(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5])))

    def files_under(self, root: str, prefix: str) -> list[FileRow]:
        """Files whose relpath is `prefix` or lies below the folder `prefix`."""
        if not prefix:
            return self.files(root)
        # A range the primary key serves (the indexer asks this for every file it syncs).
        under, args = _at_or_below("relpath", prefix)
        rows = self._db().execute(
            "SELECT root, relpath, size, mtime_ns, sha256, chunk_ids FROM files "
            f"WHERE root=? AND {under}",
            (root, *args),
        )
        return [FileRow(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5]))) for r in rows]

    def names_of_content(self, sha256: str) -> list[tuple[str, str]]:
        """(root, relpath) of every indexed file whose bytes hash to `sha256`."""
        sql = "SELECT root, relpath FROM files WHERE sha256=?"
        return [(r[0], r[1]) for r in self._db().execute(sql, (sha256,))]

    def holds_files_under(self, root: str, prefix: str) -> bool:
        """Does any file lie at `prefix` or below it (`files_under`, without reading them)?"""
        under, args = _at_or_below("relpath", prefix)
        sql = f"SELECT 1 FROM files WHERE root=? AND {under} LIMIT 1"
        return self._db().execute(sql, (root, *args)).fetchone() is not None

    def counts(self) -> tuple[int, int]:
        db = self._db()
        files = db.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        chunks = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(files), int(chunks)

    def counts_by_root(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for root, files in self._db().execute("SELECT root, COUNT(*) FROM files GROUP BY root"):
            out[root] = (int(files), 0)
        for root, chunks in self._db().execute("SELECT root, COUNT(*) FROM chunks GROUP BY root"):
            out[root] = (out.get(root, (0, 0))[0], int(chunks))
        return out

    def commit_file(self, row: FileRow, chunks: Sequence[ChunkRow]) -> None:
        """Replace a file's row and chunk rows in one transaction."""
        self.commit_files([(row, chunks)])

    def commit_files(
        self,
        files: Sequence[tuple[FileRow, Sequence[ChunkRow]]],
        beside: Sequence[tuple[str, str, Beside]] = (),
    ) -> None:
        """Replace several files' rows and chunk rows in one transaction (an apply's
        commit: two files that trade contents are never seen half-way), and what their
        new text depends on beside them (`beside`): recorded later, a crash between the
        two left a text whose dependencies no row named, stale for good when they changed."""
        with self._tx() as db:
            for row, chunks in files:
                self._write_file(db, row, chunks)
            _record_beside(db, beside)

    @staticmethod
    def _write_file(db: sqlite3.Connection, row: FileRow, chunks: Sequence[ChunkRow]) -> None:
        _forget_windows(db, "root=? AND relpath=?", (row.root, row.relpath))
        db.execute("DELETE FROM chunks WHERE root=? AND relpath=?", (row.root, row.relpath))
        db.executemany(
            "INSERT OR REPLACE INTO windows VALUES (?, ?, ?)",
            [
                (text_hash, c.chunk_id, position)
                for c in chunks
                for position, text_hash in enumerate(c.windows)
            ],
        )
        db.executemany(
            f"INSERT OR REPLACE INTO chunks ({CHUNK_COLUMNS}) VALUES ({', '.join('?' * 9)})",
            [
                (
                    c.chunk_id,
                    c.root,
                    c.relpath,
                    c.ordinal,
                    c.heading,
                    c.text,
                    c.page,
                    json.dumps(list(c.windows)),
                    _location(c),
                )
                for c in chunks
            ],
        )
        db.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                row.root,
                row.relpath,
                row.size,
                row.mtime_ns,
                row.sha256,
                json.dumps(list(row.chunk_ids)),
                time.time(),
            ),
        )
        db.execute("DELETE FROM problems WHERE root=? AND relpath=?", (row.root, row.relpath))

    def readers_of(self, root: str, relpath: str) -> list[tuple[str, str]]:
        """The files whose parse read `relpath`, with the sha256 of what they read."""
        rows = self._db().execute(
            "SELECT relpath, sha256 FROM reads WHERE root=? AND name=?", (root, relpath)
        )
        return [(r[0], r[1]) for r in rows]

    def read_not_indexed(self, root: str, prefix: str) -> list[str]:
        """The names at `prefix` or below it that a parse read beside its file and that
        are not indexed themselves (a DTD): no walk of the documents looks at them."""
        under, args = _at_or_below("name", prefix)
        rows = self._db().execute(
            f"SELECT DISTINCT name FROM reads WHERE root=? AND {under} "
            "AND NOT EXISTS (SELECT 1 FROM files WHERE files.root=? AND files.relpath=name)",
            (root, *args, root),
        )
        return sorted(r[0] for r in rows)

    def read_other_than_indexed(self, root: str, prefix: str) -> list[str]:
        """The files whose parse read, at `prefix` or below it, a file now indexed with
        other bytes than those it read (one the index moved on from)."""
        under, args = _at_or_below("reads.name", prefix)
        rows = self._db().execute(
            "SELECT DISTINCT reads.relpath FROM reads JOIN files "
            "ON files.root=reads.root AND files.relpath=reads.name "
            f"WHERE reads.root=? AND {under} AND files.sha256 != reads.sha256 "
            "AND reads.sha256 != ''",  # ('': looked for and not read, `xml_confined.ABSENT`)
            (root, *args),
        )
        return [r[0] for r in rows]

    def wanting(self, root: str, folder: str, keys: Iterable[str]) -> set[str]:
        """The files in `folder` that looked beside them for one of `keys` in vain."""
        found: set[str] = set()
        for part, marks in _in_batches(keys):
            rows = self._db().execute(
                f"SELECT DISTINCT relpath FROM wants WHERE root=? AND folder=? "
                f"AND key IN ({marks})",
                (root, folder, *part),
            )
            found.update(r[0] for r in rows)
        return found

    def touch_file(self, root: str, relpath: str, size: int, mtime_ns: int) -> None:
        """Same bytes, new stat (a save without change): remember it so start-up skips it.
        Its bytes were read and are the indexed ones, so a problem recorded for it (it
        could not be read for a while) no longer holds."""
        with self._tx() as db:
            db.execute(
                "UPDATE files SET size=?, mtime_ns=? WHERE root=? AND relpath=?",
                (size, mtime_ns, root, relpath),
            )
            db.execute("DELETE FROM problems WHERE root=? AND relpath=?", (root, relpath))

    def remove_file(self, root: str, relpath: str) -> None:
        with self._tx() as db:
            _forget_windows(db, "root=? AND relpath=?", (root, relpath))
            db.execute("DELETE FROM chunks WHERE root=? AND relpath=?", (root, relpath))
            db.execute("DELETE FROM files WHERE root=? AND relpath=?", (root, relpath))
            db.execute("DELETE FROM problems WHERE root=? AND relpath=?", (root, relpath))
            _forget_beside(db, "root=? AND relpath=?", (root, relpath))

    # -- chunks ------------------------------------------------------------------
    def chunk_rows(self, chunk_ids: Iterable[str]) -> dict[str, ChunkRow]:
        out: dict[str, ChunkRow] = {}
        db = self._db()
        for batch, marks in _in_batches(chunk_ids):
            for r in db.execute(
                f"SELECT {self._chunk_columns} FROM chunks WHERE chunk_id IN ({marks})", batch
            ):
                out[r[0]] = _chunk_row(r)
        return out

    def chunks_of(self, root: str, relpath: str) -> list[ChunkRow]:
        rows = self._db().execute(
            f"SELECT {self._chunk_columns} FROM chunks WHERE root=? AND relpath=? ORDER BY ordinal",
            (root, relpath),
        )
        return [_chunk_row(r) for r in rows]

    def chunk_roots(self) -> list[str]:
        """The roots the chunks belong to: the watched ones, and one `rag forget` took
        away until the writer has pruned it. One index seek per root (chunks_by_file)."""
        roots: list[str] = []
        db = self._db()
        while row := db.execute(
            "SELECT root FROM chunks WHERE root > ? ORDER BY root LIMIT 1",
            (roots[-1] if roots else "",),
        ).fetchone():
            roots.append(row[0])
        return roots

    def window_holders(
        self,
        hashes: Iterable[str],
        per_text: int | None = None,
        places: Sequence[tuple[str, str]] | None = None,
    ) -> dict[str, list[tuple[str, int, str, str]]]:
        """Window text hash → (chunk id, position, root, relpath) of the windows that hold
        the text, by chunk id (hashes no chunk holds are absent). `per_text`: at most this
        many per text (a search's mapping: a licence header in 10,000 files is read as
        the few chunks a search keeps, not 10,000 rows); `places`: (root, prefix) pairs,
        only holders at or below one of them (a scoped search)."""
        unique = list(dict.fromkeys(hashes))
        where = "1"
        args: tuple[str, ...] = ()
        if places is not None:
            tests = []
            for root, prefix in places:
                under, under_args = _at_or_below("relpath", prefix)
                tests.append(f"(root=? AND {under})")
                args = (*args, root, *under_args)
            where = f"({' OR '.join(tests) or '0'})"
        out: dict[str, list[tuple[str, int, str, str]]] = {}
        db = self._db()
        if per_text is not None:
            # One look-up per text, in the primary key's order: it stops at the limit
            # (a window function over an IN list numbered all 10,000 rows first). The
            # limit counts chunks: one chunk holding a text 25 times (a repeated "N/A"
            # paragraph) took every row of it, and the other chunks lost the text.
            sql = (
                f"SELECT chunk_id, min(position), root, relpath FROM {self._holders} "
                f"WHERE text_hash=? AND {where} GROUP BY chunk_id ORDER BY chunk_id LIMIT ?"
            )
            for h in unique:
                rows = db.execute(sql, (h, *args, per_text)).fetchall()
                if rows:
                    out[h] = [(r[0], r[1], r[2], r[3]) for r in rows]
            return out
        for batch, marks in _in_batches(unique):
            sql = (
                f"SELECT text_hash, chunk_id, position, root, relpath FROM {self._holders} "
                f"WHERE text_hash IN ({marks}) AND {where} ORDER BY text_hash, chunk_id, position"
            )
            for h, cid, position, root, relpath in db.execute(sql, (*batch, *args)):
                out.setdefault(h, []).append((cid, position, root, relpath))
        return out

    def window_hashes(self) -> set[str]:
        """Every distinct window text the manifest's chunks hold: the ids the vector
        index should hold."""
        sql = f"SELECT DISTINCT text_hash FROM {self._texts}"
        return {h for (h,) in self._db().execute(sql)}

    @property
    def _texts(self) -> str:
        """Where the window texts alone are read (no file needed: no join)."""
        return "windows" if self._holders == _HOLDERS else self._holders

    def holding_files(self, hashes: Iterable[str], most: int) -> dict[str, set[tuple[str, str]]]:
        """Window text hash → (root, relpath) of up to `most` files holding it (the
        first by name; hashes no file holds are absent): the writer's question, whether a
        text is still held and in how many places, costs a text held by 10,000 files
        `most` rows in Python, not 10,000."""
        out: dict[str, set[tuple[str, str]]] = {}
        db = self._db()
        for batch, marks in _in_batches(hashes):
            sql = (
                "SELECT text_hash, root, relpath FROM (SELECT text_hash, root, relpath, "
                "row_number() OVER (PARTITION BY text_hash ORDER BY root, relpath) AS n "
                f"FROM (SELECT DISTINCT text_hash, root, relpath FROM {self._holders} "
                f"WHERE text_hash IN ({marks}))) WHERE n <= ?"
            )
            for h, root, relpath in db.execute(sql, (*batch, most)):
                out.setdefault(h, set()).add((root, relpath))
        return out

    def all_chunk_windows(self) -> dict[str, int]:
        """chunk id → number of windows, for every chunk the manifest knows."""
        return {
            r[0]: len(json.loads(r[1]))
            for r in self._db().execute("SELECT chunk_id, windows FROM chunks")
        }

    def chunk_totals(self) -> tuple[int, int]:
        """(chunks, distinct window texts: the vectors the vector index should hold) the
        manifest knows, counted by SQLite: the writer asks it every `unwatched_rescan_s`
        on a vector server, so no row is read into Python."""
        db = self._db()
        (chunks,) = db.execute("SELECT count(*) FROM chunks").fetchone()
        # (a count of a DISTINCT subquery walks the index; count(DISTINCT …) sorted anew)
        sql = f"SELECT count(*) FROM (SELECT DISTINCT text_hash FROM {self._texts})"
        (windows,) = db.execute(sql).fetchone()
        return int(chunks), int(windows)

    # -- embedding cache ---------------------------------------------------------
    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        db = self._db()
        for batch, marks in _in_batches(hashes):
            for text_hash, blob in db.execute(
                "SELECT text_hash, vector FROM embeddings "
                f"WHERE model=? AND text_hash IN ({marks})",
                [model, *batch],
            ):
                vector = np.frombuffer(blob, dtype=np.float32).copy()
                if np.isfinite(vector).all() and vector.any():
                    out[text_hash] = vector  # a damaged vector counts as not cached
        return out

    def store_vectors(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        if not vectors:
            return
        with self._tx() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                [(model, h, v.astype(np.float32).tobytes()) for h, v in vectors.items()],
            )

    def prune_embedding_cache(self, model: str, keep: Iterable[str] = ()) -> int:
        """Drop cached vectors no chunk refers to any more (and not in `keep`: windows of
        files being indexed); the writer runs it when idle after start-up and after large
        removals."""
        live: set[str] = set(keep)
        for (windows,) in self._db().execute("SELECT windows FROM chunks"):
            live.update(json.loads(windows))
        stale = [
            h
            for (h,) in self._db().execute(
                "SELECT text_hash FROM embeddings WHERE model=?", (model,)
            )
            if h not in live
        ]
        with self._tx() as db:
            db.executemany(
                "DELETE FROM embeddings WHERE model=? AND text_hash=?", [(model, h) for h in stale]
            )
            db.execute("DELETE FROM embeddings WHERE model<>?", (model,))
        return len(stale)

    # -- problems ----------------------------------------------------------------
    def record_problem(
        self, root: str, relpath: str, reason: str, size: int | None, mtime_ns: int | None
    ) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?, ?)",
                (root, relpath, reason, size, mtime_ns, time.time()),
            )

    def problem(self, root: str, relpath: str) -> tuple[str, int | None, int | None] | None:
        r = (
            self._db()
            .execute(
                "SELECT reason, size, mtime_ns FROM problems WHERE root=? AND relpath=?",
                (root, relpath),
            )
            .fetchone()
        )
        return None if r is None else (str(r[0]), r[1], r[2])

    def problems(self) -> list[tuple[str, str, str]]:
        return [(root, rel, reason) for root, rel, reason, _ in self.problem_rows()]

    def problem_rows(self) -> list[tuple[str, str, str, bool]]:
        """(root, relpath, reason, quarantined), newest first: a problem recorded with the
        file's size and mtime holds that version back until it changes; one without is
        retried at the next scan."""
        return [
            (r[0], r[1], r[2], r[3] is not None)
            for r in self._db().execute(
                "SELECT root, relpath, reason, mtime_ns FROM problems ORDER BY at DESC"
            )
        ]

    def forget_root(self, root: str) -> None:
        with self._tx() as db:
            _forget_windows(db, "root=?", (root,))
            for table in ("chunks", "files", "problems", "reads", "wants"):
                db.execute(f"DELETE FROM {table} WHERE root=?", (root,))

    def clear_index_tables(self) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM chunks")
            db.execute("DELETE FROM windows")
            db.execute("DELETE FROM files")
            # A skip was held back by the file's size and mtime; read under a new chunker
            # (a reader that may now read it) each is tried again at the next scan, its
            # reason shown until then (attack77: kept held across the rebuild).
            db.execute("UPDATE problems SET size = NULL, mtime_ns = NULL")
            _forget_beside(db, "1", ())
        self._holders = _HOLDERS  # (the windows table and the chunks agree again)
