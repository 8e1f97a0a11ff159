"""What to do with one file: a `FilePlan` to apply, or why not (no store writes).

`Planner` holds the steps, each pure (the stores' answers are passed in), so the bench,
the evaluation and repair plan files exactly as the daemon does:

    load    check, read and same in one call                  → `Loaded`, or an outcome
    check   the stat: a regular file under the size cap, not unchanged since indexed,
            not a version that failed before                → the stat, or an outcome
    read    the bytes, once, never more than the cap          → bytes, or an outcome
    same    the hash equals the indexed one (a touch)         → `Unchanged`, or None
    plan    document → chunks → windows → ids → rows          → `FilePlan`

`FilePlanner` is the daemon's pipeline over them, one call per file: `plan(root,
relpath, stat)` looks the file up in the manifest, loads it, has it parsed in a worker
process (`ingest/parse_pool.py`) and plans it → `Staged` (the plan, ready to embed), or
an outcome, or — when the caller may wait in the background — `InFlight`: a parse still
running after PARSE_PATIENCE_S, or a text too large to chunk on the writer thread, whose
plan is finished later (`parsed`, then the planner thread for a large text). `ingest/slow_files.py`
holds such files meanwhile.

An outcome (defined beside `FilePlan` in `index/plan.py`, where the writer carries it
out) is `Unchanged` (nothing to do; a new stat to remember), `Gone` (vanished before it
was read: drop what is indexed) or `Skip(reason)` (shown by `rag status`; with the
file's size and mtime, that version is held back until it changes). Chunk fields reach
the stores in one place, `_chunk_row`.
"""

from __future__ import annotations

import hashlib
import logging
import os
import posixpath
import stat
import string
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ragd.core.kernel_fs import kernel_file, kernel_filesystem
from ragd.core.names import disk_path, name_key, shown
from ragd.core.no_text import EMPTY, LINK_NOT_FOLLOWED, OWN_OUTPUT, is_own_output
from ragd.core.roots import Roots
from ragd.index.embedder import Embedder
from ragd.index.manifest import Beside, ChunkRow, FileRow, Manifest, stored_ns
from ragd.index.plan import FilePlan, Gone, Outcome, PlannedChunk, Skip, Unchanged
from ragd.index.writer import Counters
from ragd.ingest import ocr, transport_stream
from ragd.ingest.chunking import Chunk, ChunkParams, chunk_document, sentence_ends
from ragd.ingest.loaders import Document, SkipFile, is_blank, parse
from ragd.ingest.parse_pool import OutOfDescriptors as OutOfDescriptors  # for the writer
from ragd.ingest.parse_pool import ParsePool, Ticket, out_of_descriptors
from ragd.ingest.window_memory import WindowMemory, Windows, chunk_key
from ragd.ingest.windows import (
    WINDOW_BUDGET_BASE,
    WINDOW_BUDGET_CHARS,
    blocks_in,
    make_windows,
    window_budget,
)
from ragproto.sizes import counted, size_over_cap

if TYPE_CHECKING:
    from ragd.core.config import Settings

log = logging.getLogger("ragd.indexer")  # (the writer's log: one story per file)

Problem = tuple[str, int | None, int | None]  # a recorded (reason, size, mtime_ns)


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
    """The file's (size, mtime_ns) as the manifest records and compares them."""
    return (st.st_size, stored_ns(st.st_mtime_ns))


def quarantined(problem: Problem | None, st: os.stat_result) -> bool:
    """Did this exact version of the file (size and mtime) fail before? A scan skipped
    for want of tesseract is tried again once tesseract is there."""
    if problem is not None and problem[0] == ocr.NO_OCR and ocr.available():
        return False
    return problem is not None and problem[1:] == version(st)


@dataclass(frozen=True)
class FileRules:
    """Which files are read: the size cap (None: none) and following symbolic links."""

    max_file_bytes: int | None = None
    follow_symlinks: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> FileRules:
        return cls(settings.max_file_bytes, settings.follow_symlinks)


class Planner:
    def __init__(
        self,
        tokens: Embedder,  # its tokenizer sizes the windows (count_tokens, max_tokens)
        params: ChunkParams = ChunkParams(),
        rules: Callable[[], FileRules] = FileRules,  # asked at each file: the daemon's
        # reads its live settings, so a reload applies from the next file on
    ) -> None:
        self.tokens = tokens
        self.params = params
        self.rules = rules
        self.memory = WindowMemory()  # a large file's windows, for its next version

    @property
    def max_file_bytes(self) -> int | None:
        return self.rules().max_file_bytes

    @property
    def follow_symlinks(self) -> bool:
        return self.rules().follow_symlinks

    # -- before reading ------------------------------------------------------------
    def check(
        self,
        path: Path,
        st: os.stat_result,
        indexed: FileRow | None,
        problem: Problem | None,
        reread: bool = False,
    ) -> os.stat_result | Outcome:
        """The stat of the file to read (a followed link's target's), or why not to.
        `problem`: the one recorded for the path (None to try a held-back version again);
        `reread`: read it even when its size and mtime are the indexed ones."""
        if stat.S_ISLNK(st.st_mode) and not self.follow_symlinks:
            return Skip(LINK_NOT_FOLLOWED, drop=True)
        if stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(path)
            except OSError as exc:
                return Skip(f"broken symbolic link ({exc.strerror})")
            kernel = kernel_filesystem(path)  # (statfs follows the link: one system call)
            if kernel is not None:  # /proc/self/status: different at every read
                return Skip(kernel_file(kernel), version(st), drop=True)
        if not stat.S_ISREG(st.st_mode):  # a FIFO, socket or device: dropped like a delete
            return Skip("not a regular file", version(st), drop=True)
        as_indexed = indexed is not None and (indexed.size, indexed.mtime_ns) == version(st)
        if not (as_indexed and not reread) and self.is_video(path):
            return Skip(transport_stream.REASON, version(st), drop=True)
        if self.max_file_bytes is not None and st.st_size > self.max_file_bytes:
            return self.too_large(st.st_size, st)
        if (as_indexed and not reread) or quarantined(problem, st):
            return Unchanged()
        return st

    def is_video(self, path: Path) -> bool:
        """Is a file named like TypeScript a video (`ingest/transport_stream.py`)? One
        peek at its first bytes, on the writer's thread (as every read here): never for an
        indexed module whose stat is unchanged. Unreadable: `read` says why."""
        if not transport_stream.may_be_video(path.name):
            return False
        try:
            head = read_file(path, self.follow_symlinks, transport_stream.PEEK_BYTES, head=True)
        except (OSError, NotRegularFile):
            return False
        return transport_stream.is_transport_stream(head)

    def too_large(self, size: int, st: os.stat_result) -> Skip:
        reason = f"too large ({size_over_cap(size, self.max_file_bytes or 0)})"
        return Skip(reason, (size, stored_ns(st.st_mtime_ns)), drop=True)

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
            # Not held back by its size and mtime: a chmod gives access back without
            # changing either, and that version stayed unread until its next edit. Trying
            # again costs one refused open.
            return Skip("permission denied")
        except OSError as exc:
            if out_of_descriptors(exc):
                raise OutOfDescriptors(exc.strerror or str(exc)) from None
            return Skip(f"read failed ({exc.strerror})", version(st))

    def load(
        self,
        path: Path,
        st: os.stat_result,
        indexed: FileRow | None,
        problem: Problem | None,
        reread: bool = False,
        stale: bool = False,
    ) -> Loaded | Outcome:
        """`check`, `read`, hash and `same` in one call: the bytes to parse, or why not.
        (`Unchanged` with a stat means the bytes were read and found the same.) `stale`:
        a file it read beside it changed, so its bytes are parsed even if as indexed."""
        checked = self.check(path, st, indexed, problem, reread or stale)
        if not isinstance(checked, os.stat_result):
            return checked
        data = self.read(path, checked)
        if not isinstance(data, bytes):
            return data
        digest = sha256_hex(data)
        same = None if stale else self.same(indexed, digest, checked)
        return same or Loaded(data, checked, digest)

    @staticmethod
    def same(indexed: FileRow | None, digest: str, st: os.stat_result) -> Unchanged | None:
        """Same bytes as indexed (a save without change, a touch): remember the new stat."""
        if indexed is not None and indexed.sha256 == digest:
            return Unchanged(version(st))
        return None

    # -- after parsing -------------------------------------------------------------
    def plan(self, file: FileRow, document: Document) -> FilePlan:
        """Chunk and window a parsed document. `file` names it (root, relpath, size,
        mtime_ns, sha256); its chunk ids are filled in. Runs on any thread; a chunk that
        the file's last plan had keeps its windows (`ingest/window_memory.py`)."""
        seen: Counter[tuple[str, str]] = Counter()
        planned: list[PlannedChunk] = []
        earlier = self.memory.recall(file.root, file.relpath)
        kept: Windows = {}
        chunks = chunk_document(document, self.params)
        shared = _shares_windows(file, chunks)
        for ordinal, chunk in enumerate(chunks):
            key = (chunk.heading_path, chunk.text)
            # a chunk's windows depend on whether its file shares them: so does its key
            sized = chunk_key(chunk.heading_path + SHARED_MARK * shared, chunk.embed_text)
            windows = earlier.get(sized) or self.windows(
                chunk.heading_path, chunk.embed_text, shared
            )
            kept[sized] = windows
            row = _chunk_row(file, ordinal, chunk, seen[key], windows)
            seen[key] += 1
            planned.append(PlannedChunk(row, windows))
        self.memory.keep(file.root, file.relpath, kept)
        ids = tuple(p.row.chunk_id for p in planned)
        whole = FileRow(file.root, file.relpath, file.size, file.mtime_ns, file.sha256, ids)
        return FilePlan(whole, planned, _beside(file.relpath, document))

    def windows(self, heading: str, text: str, shared: bool = False) -> list[str]:
        return make_windows(heading, text, self.tokens.count_tokens, self.tokens.max_tokens, shared)

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
        for shared in (False, True):  # whether its file shared windows is not stored
            for start in starts:
                windows = self.windows(row.heading, text[start:], shared)
                if index < len(windows) and text_hash(windows[index]) == row.windows[index]:
                    return windows[index]
        return None


SHARED_MARK = "\0shared"  # told apart in the window memory: a chunk of a file sharing windows


def _shares_windows(file: FileRow, chunks: list[Chunk]) -> bool:
    """Whether the file has more blocks than its window budget (`ingest/windows.py`):
    then its chunks share windows between blocks, said in one line."""
    blocks = sum(blocks_in(chunk.embed_text) for chunk in chunks)
    chars = sum(len(chunk.embed_text) for chunk in chunks)
    budget = window_budget(chars)
    if blocks <= budget:
        return False
    log.info(
        "%s: %s in %s characters of text, over its window budget of %s (%d + one per %d"
        " characters): its blocks share windows",
        shown(file.relpath),
        counted(blocks, "block"),
        f"{chars:,}",
        f"{budget:,}",
        WINDOW_BUDGET_BASE,
        WINDOW_BUDGET_CHARS,
    )
    return True


# A parse still running after this is left to finish in the background; a document whose
# chunking costs more than this much text (`chunking_cost`) is chunked and windowed on the
# planner thread (seconds per MB of text: docs/performance.md), not on the writer:
# neither holds small edits behind it.
PARSE_PATIENCE_S = 0.5
LARGE_TEXT_CHARS = 256 * 1024
# Windowing sizes each line or sentence of a block too large for one window with its own
# tokenizer call: 255 KB of one-letter lines took 3.7 CPU s where 255 KB of prose took
# 0.16 s (review71). Each line end and sentence end counts as UNIT_CHARS characters more,
# and each character that is its own word piece (punctuation, CJK, emoji: not an ASCII
# letter, digit or space) SYMBOL_CHARS more: `a-` repeated, or CJK text, cost 8-13x prose.
UNIT_CHARS = 48
SYMBOL_CHARS = 8
LINE_ENDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where `str.splitlines` cuts
_PLAIN = str.maketrans("", "", string.ascii_letters + string.digits + " \t\n")


def chunking_cost(document: Document) -> int:
    """What chunking and windowing `document` costs, in characters of prose (counted only
    up to LARGE_TEXT_CHARS: past it the rest is not looked at): its text, UNIT_CHARS more
    for each line end and each place a sentence may end (`chunking.sentence_ends`: `.` `?`
    `!`, closing quotes or brackets, then a space), SYMBOL_CHARS more for each character
    that is not an ASCII letter, digit or space."""
    cost = 0
    for text in [document.text, *(text for _, text in document.pages)]:
        cost += len(text)
        if cost > LARGE_TEXT_CHARS:
            return cost
        units = sum(text.count(end) for end in LINE_ENDS) + sentence_ends(text)
        cost += UNIT_CHARS * units + SYMBOL_CHARS * len(text.translate(_PLAIN))
    return cost


@dataclass
class Staged:
    """A planned file waiting to be embedded and applied."""

    plan: FilePlan
    label: str  # the file as log lines and `rag status` show it
    started: float  # when its planning began (monotonic), for the "indexed" log line

    def log_indexed(self, together: int = 1, set_aside: bool = False) -> None:
        """One line, its time counted from when its planning began. A file applied
        with `together` - 1 others (a batch) waited for all of them to be planned and
        embedded, and one set aside moved along only between the writer's batches: said,
        or "1 chunk in 63564 ms" read as the cost of a one-chunk file (newuser44: it
        was set aside for its parse, then waited for two batches of 40 and 8 files)."""
        elapsed_ms = (time.monotonic() - self.started) * 1000
        chunks = counted(len(self.plan.chunks), "chunk")  # "1 chunk", "1,578 chunks"
        how = [f"one of {together} files applied together"] if together > 1 else []
        how += ["set aside, moved along between other batches"] if set_aside else []
        said = f" ({'; '.join(how)})" if how else ""
        log.info("indexed %s: %s in %.0f ms%s", self.label, chunks, elapsed_ms, said)


@dataclass
class InFlight:
    """A file read and hashed whose plan is not ready yet: its parse is still running
    (`ticket`), or it is being chunked on the planner thread (`planning`)."""

    root: str
    relpath: str
    label: str
    size: int
    mtime_ns: int
    digest: str
    started: float
    ticket: Ticket | None = None
    planning: Future[Staged] | None = None
    # When its chunking was queued for the planner thread and when that thread took it up
    # (monotonic): `rag status` counts the step it is on, not the time since `started`.
    chunk_queued: float | None = None
    chunking_since: float | None = None


Planned = Staged | InFlight | Outcome
# The plan kept for a file whose write another process's lock on the manifest stopped,
# if made from bytes of this hash (`index/manifest_busy.py`), else None.
KeptPlan = Callable[[str, str, str], "FilePlan | None"]


class FilePlanner:
    """The per-file pipeline on the index writer's side: from a path and its stat to a
    plan (`Staged`), a file still in flight (`InFlight`, when the caller can wait for it
    in the background), or why there is no plan (an `Outcome`). It reads the stores (the
    indexed row, the recorded problem) and writes nothing."""

    def __init__(
        self,
        planner: Planner,
        parser: ParsePool,
        manifest: Manifest,
        roots: Roots,
        counters: Counters,  # the writer's: files read are counted here
        kept: KeptPlan = lambda root, relpath, sha256: None,  # the writer's `busy.take`
    ) -> None:
        self.planner = planner
        self.kept = kept
        self.parser = parser
        self.manifest = manifest
        self.roots = roots
        self.counters = counters
        self._planning = ThreadPoolExecutor(1, thread_name_prefix="ragd-planner")

    def label(self, root: str, relpath: str) -> str:
        """A file as log lines show it (control characters escaped)."""
        return shown(self.roots.label(root, relpath))

    def plan(
        self,
        root: str,
        relpath: str,
        st: os.stat_result,
        force: bool = False,
        patient: bool = False,
        reread: bool = False,
        stale: bool = False,
    ) -> Planned:
        """Read, hash, parse, chunk and window one file. `force`: try a version held back
        for a problem again (`rag ingest FILE`); `patient`: a parse still running after
        PARSE_PATIENCE_S, or a large text, comes back `InFlight` instead of being waited for;
        `reread`: an event said it was written, so read it even if its size and mtime are
        as indexed (`ingest/rewrites.py`); `stale`: a file it read beside it changed, so
        it is parsed even if its bytes are as indexed (`ingest/dependents.py`)."""
        if is_own_output(st):
            return Skip(OWN_OUTPUT, version(st), drop=True)
        indexed = self.manifest.file(root, relpath)
        problem = None if force else self.manifest.problem(root, relpath)
        started = time.monotonic()
        path = disk_path(root, relpath)
        loaded = self.planner.load(path, st, indexed, problem, reread, stale)
        if isinstance(loaded, Loaded) or (isinstance(loaded, Unchanged) and loaded.stat):
            self.counters.files_read += 1  # (an unchanged stat: read, and the same bytes)
        if not isinstance(loaded, Loaded):
            return loaded
        checked, label = loaded.stat, self.label(root, relpath)
        kept = None if stale else self.kept(root, relpath, loaded.digest)
        if kept is not None:  # a retry under the lock: planned from these bytes already
            row = replace(kept.row, size=checked.st_size, mtime_ns=version(checked)[1])
            return Staged(replace(kept, row=row), label, started)
        if is_blank(relpath, loaded.data):  # what the parse would say, without its round trip
            return Skip(EMPTY, version(checked), drop=True)
        file = InFlight(root, relpath, label, *version(checked), loaded.digest, started)
        folder = str(disk_path(root, relpath).parent)  # DocBook reads its DTDs from there
        file.ticket = self.parser.submit(relpath, loaded.data, folder)
        del loaded  # the bytes are not held while the parse runs
        if patient and not file.ticket.wait(PARSE_PATIENCE_S):
            return file  # parsed in the background; small jobs go on meanwhile
        planned = self._chunk(file, lambda doc: patient and chunking_cost(doc) > LARGE_TEXT_CHARS)
        assert planned is not None  # (only the parse of a file set aside is ever cancelled)
        return planned

    def digest(self, root: str, relpath: str, st: os.stat_result) -> str | None:
        """The hash of the file's bytes as they are now (one read, counted), or None when
        they cannot be read (the plan that follows says why)."""
        data = self.planner.read(disk_path(root, relpath), st)
        if not isinstance(data, bytes):
            return None
        self.counters.files_read += 1
        return sha256_hex(data)

    def parsed(self, file: InFlight) -> Planned | None:
        """A parse left to finish in the background is done: the file's plan, or it is
        chunked on the planner thread (`InFlight.planning`) when its text is large, or why
        not; None if it was cancelled. A small text is chunked here, as a file parsed at
        once is: queued for the planner thread, a note whose parse outlasted
        PARSE_PATIENCE_S on a loaded machine waited there behind a large file's chunking
        (a 5 MB line: ≈ 50 s), where chunking it costs the writer no more than
        LARGE_TEXT_CHARS of prose does (`chunking_cost`)."""
        return self._chunk(file, lambda doc: chunking_cost(doc) > LARGE_TEXT_CHARS)

    def _chunk(self, file: InFlight, background: Callable[[Document], bool]) -> Planned | None:
        assert file.ticket is not None
        ticket, file.ticket = file.ticket, None
        try:
            document = ticket.result()
        except SkipFile as exc:
            if ticket.cancelled:
                return None
            return Skip(str(exc), (file.size, file.mtime_ns), drop=True)
        for note in document.notes:
            log.warning("%s: %s", file.label, note)
        if background(document):
            file.chunk_queued = time.monotonic()
            file.planning = self._planning.submit(self._stage_in_background, file, document)
            return file
        return self.stage(file, document)

    def stage(self, file: InFlight, document: Document) -> Staged:
        """Chunk and window a parsed file (pure: also runs on the planner thread)."""
        row = FileRow(file.root, file.relpath, file.size, file.mtime_ns, file.digest, ())
        return Staged(self.planner.plan(row, document), file.label, file.started)

    def _stage_in_background(self, file: InFlight, document: Document) -> Staged:
        file.chunking_since = time.monotonic()  # (read by `rag status`)
        return self.stage(file, document)

    def close(self) -> None:
        self._planning.shutdown(wait=False, cancel_futures=True)


def _beside(relpath: str, document: Document) -> Beside:
    """What the document depends on beside it, the names it read as relpaths (keys: a
    sibling named in bytes that are not UTF-8 comes as `os` spells it, which SQLite
    refuses, and is known to the index by its key)."""
    folder = posixpath.dirname(relpath)
    reads = tuple(
        (posixpath.join(folder, name_key(name)), sha)
        for name, sha in document.reads
        if name not in ("", ".", "..") and "/" not in name  # (a plain name, as read)
    )
    return Beside(reads, tuple(document.wants), tuple(document.holds))


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


def read_file(
    path: Path, follow_symlinks: bool, limit: int | None = None, head: bool = False
) -> bytes:
    """The file's bytes, read once. Never blocks on a FIFO swapped in after the stat
    (O_NONBLOCK, then fstat), and never reads more than `limit` + 1 bytes; `head`: its
    first `limit` bytes, however large it is (a peek)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_symlinks else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path.name)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit + (not head))
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise FileTooLarge(max(st.st_size, len(data)))
    return data
