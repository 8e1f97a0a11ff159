"""What to do with one file: a `FilePlan` to apply, or why not (pure: no store writes).

The steps, each a method the indexer calls (it schedules them: a parse may run in a
worker process for a while, a large plan may be built on another thread):

    load    check, read and same in one call                  → `Loaded`, or an outcome
    check   the stat: a regular file under the size cap, not unchanged since indexed,
            not a version that failed before                → the stat, or an outcome
    read    the bytes, once, never more than the cap          → bytes, or an outcome
    same    the hash equals the indexed one (a touch)         → `Unchanged`, or None
    plan    document → chunks → windows → ids → rows          → `FilePlan`

An outcome is `Unchanged` (nothing to do; a new stat to remember), `Gone` (vanished
before it was read: drop what is indexed) or `Skip(reason)` (shown by `rag status`;
with the file's size and mtime, that version is held back until it changes).

Every read of the stores is a lookup the caller passes in (the indexed row, the
recorded problem), so the bench, the evaluation and repair plan files exactly as the
daemon does, and `plan_bytes` plans straight from bytes for them. Chunk fields reach
the stores in one place, `_chunk_row`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ragd.index.embedder import Embedder
from ragd.index.manifest import ChunkRow, FileRow
from ragd.index.plan import FilePlan, PlannedChunk
from ragd.ingest import ocr
from ragd.ingest.chunking import Chunk, ChunkParams, chunk_document
from ragd.ingest.loaders import Document, SkipFile, parse
from ragd.ingest.windows import make_windows

Problem = tuple[str, int | None, int | None]  # a recorded (reason, size, mtime_ns)


@dataclass(frozen=True)
class Skip:
    """The file is not indexed: `reason` is shown by `rag status`."""

    reason: str
    version: tuple[int, int] | None = None  # (size, mtime_ns) held back until it changes
    drop: bool = False  # what is indexed for the path goes too (the reason stays)


@dataclass(frozen=True)
class Unchanged:
    """Nothing to index; `stat` is the new (size, mtime_ns) of unchanged bytes, if any."""

    stat: tuple[int, int] | None = None


@dataclass(frozen=True)
class Gone:
    """The file vanished before it could be read."""


Outcome = Skip | Unchanged | Gone


@dataclass(frozen=True)
class Loaded:
    """A file's bytes to parse, read once under `stat`, and their sha256."""

    data: bytes
    stat: os.stat_result
    digest: str


class FileTooLarge(Exception):
    """The file grew past the size cap between the stat and the read."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class NotRegularFile(Exception):
    """What was opened is not a regular file (a FIFO or device swapped in after the stat)."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id_for(root: str, relpath: str, heading: str, text: str, occurrence: int) -> str:
    key = "\0".join((root, relpath, heading, text_hash(text), str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def version(st: os.stat_result) -> tuple[int, int]:
    return (st.st_size, st.st_mtime_ns)


def quarantined(problem: Problem | None, st: os.stat_result) -> bool:
    """Did this exact version of the file (size and mtime) fail before? A scan skipped
    for want of tesseract is tried again once tesseract is there."""
    if problem is not None and problem[0] == ocr.NO_OCR and ocr.available():
        return False
    return problem is not None and problem[1:] == version(st)


class Planner:
    def __init__(
        self,
        tokens: Embedder,  # its tokenizer sizes the windows (count_tokens, max_tokens)
        params: ChunkParams = ChunkParams(),
        max_file_bytes: int | None = None,  # the size cap (the daemon's setting); None: none
        follow_symlinks: bool = False,
    ) -> None:
        self.tokens = tokens
        self.params = params
        self.max_file_bytes = max_file_bytes
        self.follow_symlinks = follow_symlinks

    # -- before reading ------------------------------------------------------------
    def check(
        self, path: Path, st: os.stat_result, indexed: FileRow | None, problem: Problem | None
    ) -> os.stat_result | Outcome:
        """The stat of the file to read (a followed link's target's), or why not to.
        `problem`: the one recorded for the path (None to try a held-back version again)."""
        if stat.S_ISLNK(st.st_mode) and not self.follow_symlinks:
            return Skip("symbolic link (not followed)", drop=True)
        if stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(path)
            except OSError as exc:
                return Skip(f"broken symbolic link ({exc.strerror})")
        if not stat.S_ISREG(st.st_mode):  # a FIFO, socket or device: dropped like a delete
            return Skip("not a regular file", version(st), drop=True)
        if self.max_file_bytes is not None and st.st_size > self.max_file_bytes:
            return self.too_large(st.st_size, st)
        if (indexed is not None and (indexed.size, indexed.mtime_ns) == version(st)) or (
            quarantined(problem, st)
        ):
            return Unchanged()
        return st

    def too_large(self, size: int, st: os.stat_result) -> Skip:
        cap = (self.max_file_bytes or 0) / 1024 / 1024
        reason = f"too large ({size / 1024 / 1024:.1f} MB, cap {cap:g} MB)"
        return Skip(reason, (size, st.st_mtime_ns), drop=True)

    def read(self, path: Path, st: os.stat_result) -> bytes | Outcome:
        """The file's bytes, or why they could not be read."""
        try:
            return read_file(path, self.follow_symlinks, self.max_file_bytes)
        except FileTooLarge as exc:  # it grew after the stat: never read more than the cap
            return self.too_large(exc.size, st)
        except NotRegularFile:
            return Skip("not a regular file", version(st), drop=True)
        except FileNotFoundError:
            return Gone()
        except PermissionError:
            return Skip("permission denied", version(st))
        except OSError as exc:
            return Skip(f"read failed ({exc.strerror})", version(st))

    def load(
        self, path: Path, st: os.stat_result, indexed: FileRow | None, problem: Problem | None
    ) -> Loaded | Outcome:
        """`check`, `read`, hash and `same` in one call: the bytes to parse, or why not.
        (`Unchanged` with a stat means the bytes were read and found the same.)"""
        checked = self.check(path, st, indexed, problem)
        if not isinstance(checked, os.stat_result):
            return checked
        data = self.read(path, checked)
        if not isinstance(data, bytes):
            return data
        digest = sha256_hex(data)
        return self.same(indexed, digest, checked) or Loaded(data, checked, digest)

    @staticmethod
    def same(indexed: FileRow | None, digest: str, st: os.stat_result) -> Unchanged | None:
        """Same bytes as indexed (a save without change, a touch): remember the new stat."""
        if indexed is not None and indexed.sha256 == digest:
            return Unchanged(version(st))
        return None

    # -- after parsing -------------------------------------------------------------
    def plan(self, file: FileRow, document: Document) -> FilePlan:
        """Chunk and window a parsed document. `file` names it (root, relpath, size,
        mtime_ns, sha256); its chunk ids are filled in. Pure: runs on any thread."""
        seen: Counter[tuple[str, str]] = Counter()
        planned: list[PlannedChunk] = []
        for ordinal, chunk in enumerate(chunk_document(document, self.params)):
            key = (chunk.heading_path, chunk.text)
            windows = self.windows(chunk.heading_path, chunk.embed_text)
            row = _chunk_row(file, ordinal, chunk, seen[key], windows)
            seen[key] += 1
            planned.append(PlannedChunk(row, windows))
        ids = tuple(p.row.chunk_id for p in planned)
        whole = FileRow(file.root, file.relpath, file.size, file.mtime_ns, file.sha256, ids)
        return FilePlan(whole, planned)

    def windows(self, heading: str, text: str) -> list[str]:
        return make_windows(heading, text, self.tokens.count_tokens, self.tokens.max_tokens)

    def plan_bytes(self, root: str, relpath: str, data: bytes) -> FilePlan | Skip:
        """Plan a file from its bytes, parsed in this process (the bench, the tests)."""
        try:
            document = parse(relpath, data)
        except SkipFile as exc:
            return Skip(str(exc))
        return self.plan(FileRow(root, relpath, len(data), 0, sha256_hex(data), ()), document)

    def window_text(self, row: ChunkRow, index: int) -> str | None:
        """The exact text of window `index` of an indexed chunk, found by its stored hash
        (repair, when the embedding cache lost its vector).

        A chunk embeds only its own paragraphs, not the overlap carried from the previous
        chunk, so the embedded text is a suffix of the chunk text starting at a paragraph
        break."""
        text = row.text
        starts = [0] + [i + 2 for i in range(len(text)) if text.startswith("\n\n", i)]
        for start in starts:
            windows = self.windows(row.heading, text[start:])
            if index < len(windows) and text_hash(windows[index]) == row.windows[index]:
                return windows[index]
        return None


def _chunk_row(
    file: FileRow, ordinal: int, chunk: Chunk, occurrence: int, windows: list[str]
) -> ChunkRow:
    """Everything the stores keep about a chunk, from the chunker's output."""
    heading = chunk.heading_path
    return ChunkRow(
        chunk_id_for(file.root, file.relpath, heading, chunk.text, occurrence),
        file.root,
        file.relpath,
        ordinal,
        heading,
        chunk.text,
        chunk.page,
        tuple(text_hash(w) for w in windows),
        chunk.lines,
        chunk.cells,
        chunk.slides,
        chunk.rows,
    )


def read_file(path: Path, follow_symlinks: bool, limit: int | None = None) -> bytes:
    """The file's bytes, read once. Never blocks on a FIFO swapped in after the stat
    (O_NONBLOCK, then fstat), and never reads more than `limit` + 1 bytes."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_symlinks else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path.name)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise FileTooLarge(max(st.st_size, len(data)))
    return data
