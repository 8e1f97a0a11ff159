"""The lexical index: BM25 over tantivy with English stemming.

Each document is one chunk: its id (raw, for deletion), the words of its path (root
folder name, folders, file stem: `chunk_paths.path_words`), the heading path (headings
are content: versions and ids often live only there) and the text, all analysed with
tantivy's `en_stem` so "charging" finds "charged", each with a term per dotted number it
holds (`number_terms`: "4.6.0" is one term, not three digits); and its scope keys (raw, never
scored), which a `--in` search requires one of. The index is
a cache of the manifest: if it is missing or will not open, it is rebuilt from the
manifest rather than trusted.

Rebuilding deletes the folder, so it happens only when the folder is damaged *and* no
other process holds tantivy's writer lock (an flock on `.tantivy-writer.lock`): a busy
lock means a live writer elsewhere, which is reported as busy, never as corruption.
`read_only=True` opens a reader only (no writer, no lock, no file written), which works
beside a running daemon.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import logging
import os
import re
import shutil
import stat
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragd.core.native_panic import failed, panicked
from ragd.index.chunk_paths import camel_split, path_words, scope_keys
from ragd.index.segment_checksums import damaged_segment_file
from ragd.index.space import DiskGuard

log = logging.getLogger(__name__)

# 2: path words and scope keys; 3: dotted numbers as terms; 4: a heading's camelCase names
# as words too (an older index is rebuilt)
SCHEMA_VERSION = 4
TOKENIZER = "en_stem"  # tantivy's English stemming analyser, on every text field
# tantivy's BM25 parameters: fixed inside tantivy (its Python binding cannot set them).
BM25_K1 = 1.2
BM25_B = 0.75
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# A dotted number ("4.6.0", "v2.8.1") is also one term of its own: the analyser splits it
# into digits nearly every chunk holds, so "what changed in 4.6.0?" could not find the
# 4.6.0 section by its number. Trailing ".0"s are dropped ("3.3" and "3.3.0" are one
# release, as identifier_share reads them). Linear: no run can be split two ways.
_DOTTED = re.compile(r"(?<![\w.])[vV]?(\d+(?:\.\d+)+)")
_NUMBER_MARK = "ver"
_QUERY_FIELDS = ["heading", "text", "path"]
# A path word weighs less than the same word in the text: it names the topic of a whole
# folder, but among near-identical passages it decides ("flask/" vs "click/").
_BOOSTS = {"heading": 1.5, "text": 1.0, "path": 0.75}
# Hits read at most to order a tie across a search's cut by chunk id (`search`); past
# it, 512 identical copies of one text, which of them make the cut is tantivy's choice.
TIES_READ = 512
_COUNTED_FIELDS = ("text", "heading", "path")  # where support's IDF counts a term


@functools.cache
def _analyzer(stemmed: bool = True) -> Any:
    """The same analysis as the built-in en_stem tokenizer, for scoring outside search;
    unstemmed, the words it cuts before stemming."""
    import tantivy

    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(
        tantivy.Filter.lowercase()
    )
    if stemmed:
        builder = builder.filter(tantivy.Filter.stemmer("english"))
    return builder.build()


def analyze(text: str) -> list[str]:
    """The terms the index makes of `text`: lower-cased words, English-stemmed
    ("ferries" and "ferry" → "ferri", "dogs" → "dog")."""
    return list(_analyzer().analyze(text))


def words_of(text: str) -> list[str]:
    """`text`'s words cut where the index cuts them, lower-cased, not stemmed. A word
    with combining marks stays whole (Thai "สวัสดีครับ", a decomposed "é"), where a regex
    of word characters cuts it at each mark and no piece matches the index's term."""
    return list(_analyzer(stemmed=False).analyze(text))


class LexicalBusy(RuntimeError):
    """Another process holds the index's writer lock (a running daemon)."""


class LexicalUnreadable(RuntimeError):
    """The index will not open (read-only mode never repairs it)."""


class LexicalDamaged(LexicalUnreadable):
    """A read of the open index failed inside tantivy: a segment damaged after it opened."""


def _is_lock_busy(exc: BaseException) -> bool:
    return "LockBusy" in str(exc)


def not_plain_files(path: Path) -> str | None:
    """What in the index folder `path` tantivy must not open, or None. Tantivy keeps only
    regular files there (meta.json, .managed.json, segments, its locks) and reads them by
    name: a FIFO named meta.json held `ragd serve` at "starting" for ever, and `ragd check`
    with it (the read waits for a writer)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(mode):
        return "it is not a folder"
    with os.scandir(path) as entries:
        for entry in entries:
            if not entry.is_file(follow_symlinks=False):
                return f"{entry.name} is not a regular file"
    return None


def writer_lock_held(path: Path) -> bool:
    """Does some process hold tantivy's writer lock on the index at `path`?"""
    lock = path / ".tantivy-writer.lock"
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False  # no lock file: nobody can hold it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


@dataclass(frozen=True)
class LexicalDoc:
    chunk_id: str
    source: str  # root-relative path, used for matching only
    heading: str
    text: str
    root: str = ""  # the root's absolute path (its folder name is a path word)


def _schema():  # type: ignore[no-untyped-def]
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("path", stored=False, tokenizer_name=TOKENIZER)
    builder.add_text_field("scope", stored=False, tokenizer_name="raw")
    builder.add_text_field("heading", stored=False, tokenizer_name=TOKENIZER)
    builder.add_text_field("text", stored=False, tokenizer_name=TOKENIZER)
    return builder.build()


def describe() -> dict[str, Any]:
    """How the index analyses and scores text (for `stats`)."""
    return {"tokenizer": TOKENIZER, "bm25": {"k1": BM25_K1, "b": BM25_B}}


def query_terms(query: str) -> list[str]:
    """User text → plain lower-case words, so no input is parsed as query syntax, and a
    term for each dotted number it names (`number_terms`)."""
    return [*number_terms(query), *(w.lower() for w in _WORD.findall(query))][:64]


def number_terms(text: str) -> list[str]:
    """ "ver4x6" for each dotted number of `text` ("4.6.0", "v4.6"): one token the analyser
    keeps whole (letters and digits only), the same for every spelling of a release."""
    terms = []
    for match in _DOTTED.finditer(text):
        parts = match.group(1).split(".")
        while len(parts) > 1 and parts[-1].strip("0") == "":
            parts.pop()  # 3.3.0 is 3.3
        terms.append(_NUMBER_MARK + "x".join(parts))
    return list(dict.fromkeys(terms))


def _with_numbers(text: str) -> str:
    """`text` for the index: itself, then the terms of its dotted numbers."""
    terms = number_terms(text)
    return f"{text}\n{' '.join(terms)}" if terms else text


def name_words(text: str) -> list[str]:
    """The words of each camelCase or PascalCase name in `text`, one string per name
    ("MarkFlagsRequiredTogether" → "Mark Flags Required Together"). The analyser keeps such
    a name as one term, so a question in words ("require two flags together") never met the
    heading that names the function (cobra's Go source, held out: the code reader heads
    each definition by its name). Linear: each word is split once."""
    split = (camel_split(word) for word in _WORD.findall(text))
    return list(dict.fromkeys(words for words in split if " " in words))


def _heading_terms(heading: str) -> str:
    """A heading path for the index: itself with its dotted numbers, then its names' words
    (kept beside the name: a question that spells the name still matches it whole)."""
    words = name_words(heading)
    text = _with_numbers(heading)
    return f"{text}\n{' '.join(words)}" if words else text


class TantivyIndex:
    """Single writer (the index thread); any thread may search.

    `failure` holds why the last write failed (None once a write succeeds again), so the
    daemon can say the index is unusable instead of serving stale results silently.
    """

    def __init__(
        self,
        path: Path,
        read_only: bool = False,
        guard: DiskGuard | None = None,  # the daemon's: each write waits for disk space
    ) -> None:
        import tantivy

        self._tantivy = tantivy
        self.path = path
        self.read_only = read_only
        self.rebuilt_because = ""  # why it was rebuilt (empty: it was not)
        self.failure: str | None = None
        # Why a read failed inside tantivy (`_reading`), until `rebuild` mends it: the
        # open's probe reads no postings, so bytes damaged in a segment after a clean stop
        # (its seal then skips every check) are met by the first search that reads them.
        self.damaged: str | None = None
        self.guard = guard
        if read_only:
            self._open_reader()
        else:
            self._open_writable()
        self._write_lock = threading.Lock()

    def _open_reader(self) -> None:
        if not (self.path / "meta.json").exists():
            raise LexicalUnreadable(f"{self.path} holds no index")
        if odd := self._unsound_files():
            raise LexicalUnreadable(f"{self.path} will not open: {odd}")
        try:
            self._index = self._tantivy.Index.open(str(self.path))
            self._index.reload()
            self._index.searcher().num_docs  # noqa: B018 - probe that the segments load
        except BaseException as exc:
            if not failed(exc):
                raise
            raise LexicalUnreadable(f"{self.path} will not open: {exc}") from None

    def _unsound_files(self) -> str | None:
        """Why the index's files cannot be trusted to open, or None: files that are no
        files first (a FIFO is never read), then tantivy's own CRC of each segment file
        (damage that still decodes passes the open and every read)."""
        return not_plain_files(self.path) or damaged_segment_file(self.path)

    def _open_writable(self) -> None:
        if odd := self._unsound_files():
            log.warning("lexical index at %s would not open (%s); rebuilding", self.path, odd)
            self._wipe_and_open()
            self.rebuilt_because = f"the lexical index would not open ({odd})"
            return
        try:
            self._open()
            return
        except BaseException as exc:  # a damaged doc store can panic tantivy's open
            if not failed(exc):
                raise
            if _is_lock_busy(exc) or writer_lock_held(self.path):
                raise LexicalBusy(
                    f"the lexical index {self.path} is locked by another process "
                    "(is another ragd using this data dir?)"
                ) from None
            reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            if "schema does not match" in reason:  # built by an earlier version of ragd
                reason = f"it was built with an older schema; this one is version {SCHEMA_VERSION}"
        # Damaged, and nobody else writes it: it is a cache of the manifest, so rebuild.
        log.warning("lexical index at %s would not open (%s); rebuilding", self.path, reason)
        self._wipe_and_open()
        self.rebuilt_because = f"the lexical index would not open ({reason})"

    def _open(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        existed = (self.path / "meta.json").exists()
        self._index = self._tantivy.Index(_schema(), path=str(self.path), reuse=True)
        self._writer = self._index.writer(heap_size=64_000_000, num_threads=1)
        if not existed:
            self.rebuilt_because = "the lexical index was missing"
        # Probe that the segments really load.
        self._index.reload()
        self._index.searcher().num_docs  # noqa: B018

    def _wipe_and_open(self) -> None:
        if self.path.is_dir() and not self.path.is_symlink():
            shutil.rmtree(self.path, ignore_errors=True)
        else:  # a file, FIFO or link where the folder should be
            self.path.unlink(missing_ok=True)
        self._open()

    def _writing(self) -> _Writing:
        return _Writing(self)

    def reset(self) -> None:
        with self._writing():
            self._writer.delete_all_documents()
            self._writer.commit()
            self._index.reload()

    def add(self, docs: Iterable[LexicalDoc]) -> None:
        with self._writing():
            for doc in docs:
                # delete-then-add keeps a retried apply idempotent
                self._writer.delete_documents_by_term("chunk_id", doc.chunk_id)
                self._writer.add_document(
                    self._tantivy.Document(
                        chunk_id=doc.chunk_id,
                        path=path_words(doc.root, doc.source),
                        scope=scope_keys(doc.root, doc.source),
                        heading=_heading_terms(doc.heading),
                        text=_with_numbers(doc.text),
                    )
                )

    def delete(self, chunk_ids: Iterable[str]) -> None:
        with self._writing():
            for chunk_id in chunk_ids:
                self._writer.delete_documents_by_term("chunk_id", chunk_id)

    def commit(self) -> None:
        with self._writing():
            self._writer.commit()
            self._index.reload()

    def roll_back(self) -> None:
        """After a write that failed (a commit on a full disk): tantivy's writer is dead
        once its commit failed, every later add and commit returning without error and
        storing nothing (attack75: files indexed after space returned were in the manifest
        and not in BM25 until a restart). Rolled back, it writes again; the documents not
        committed go, and the file they came from is written again (its failure queues
        it)."""
        try:
            self._writer.rollback()
        except Exception as exc:  # said, not raised: the write's own error is the news
            log.warning("could not roll the lexical index's writer back: %s", exc)

    def close(self) -> None:
        if self.read_only:
            return
        with self._write_lock:
            try:
                self._writer.wait_merging_threads()
            except Exception as exc:
                log.debug("tantivy close: %s", exc)

    def rebuild(self, docs: Iterable[LexicalDoc]) -> None:
        """Every document dropped (their segments unread) and `docs` written afresh; the
        index is trusted again once they are committed."""
        self.reset()
        self.add(docs)
        self.commit()
        self.damaged = None

    @contextlib.contextmanager
    def _reading(self, refuse_damaged: bool = True) -> Iterator[None]:
        """A read of the index; a panic inside tantivy marks it damaged (said once) and
        is raised as `LexicalDamaged`, as is every read until it is rebuilt. Before
        (attack73): bytes changed in a postings file while ragd was stopped made every
        search, in every mode, end in a Rust panic: `handler returned no reply`, with
        `rag status` idle and `ragd check` consistent, for as long as the daemon ran."""
        if refuse_damaged and self.damaged is not None:
            raise LexicalDamaged(self.damaged)
        try:
            yield
        except BaseException as exc:
            # tantivy-py raises its own read errors as ValueError ("An IO error occurred:
            # 'Unsupported dictionary type, found 0'" from a damaged term dictionary); the
            # query was parsed before the read, so a ValueError here is the index's.
            if not (panicked(exc) or isinstance(exc, ValueError)):
                raise
            first = (str(exc).splitlines() or [""])[0][:200]
            if self.damaged is None:
                log.error(
                    "the lexical index is damaged (tantivy failed reading it: %s); "
                    "searches answer from vectors until it is rebuilt from the manifest",
                    first,
                )
            self.damaged = f"the lexical index is damaged (tantivy failed reading it: {first})"
            raise LexicalDamaged(self.damaged) from None

    def problem(self) -> str | None:
        """Why this index cannot be trusted right now, or None."""
        if self.damaged:
            return f"{self.damaged}; rebuilding it from the manifest"
        if self.failure:
            return self.failure
        if not (self.path / "meta.json").exists():
            name = self.path.name
            return f"its folder {name}/ is gone from the data dir (restart ragd to rebuild it)"
        return None

    def search(self, query: str, n: int, scope: list[str] | None = None) -> list[tuple[str, float]]:
        """Best chunks as (chunk id, BM25 score); with `scope` (keys from
        `chunk_paths.scope_key`) only chunks holding one of them, filtered inside the
        search so the `n` best are the best in scope."""
        terms = query_terms(query)
        if not terms or n <= 0:
            return []
        parsed = self._index.parse_query(
            " ".join(terms), default_field_names=_QUERY_FIELDS, field_boosts=_BOOSTS
        )
        if scope is not None:
            parsed = self._scoped(parsed, scope)
        with self._reading():
            searcher = self._index.searcher()
            limit = n + 1  # one more than asked: a tie across the cut is read whole
            while True:
                hits = searcher.search(parsed, limit=limit).hits
                if len(hits) < limit or hits[-1][0] < hits[n - 1][0] or limit >= TIES_READ:
                    break
                limit = min(limit * 2, TIES_READ)
            out = [
                (str(searcher.doc(address)["chunk_id"][0]), float(score)) for score, address in hits
            ]
        # Equal scores in chunk-id order, not tantivy's document order, which follows the
        # index's history (segments, merges): identical copies of a text in several files
        # showed one copy or another depending on what had been deleted and re-added.
        out.sort(key=lambda hit: (-hit[1], hit[0]))
        return out[:n]

    def _scoped(self, parsed: Any, scope: list[str]) -> Any:
        """`parsed`, required to match a scope key too; the key adds nothing to the score."""
        query = self._tantivy.Query
        within = query.term_set_query(self._index.schema, "scope", scope)
        return query.boolean_query(
            [
                (self._tantivy.Occur.Must, parsed),
                (self._tantivy.Occur.Must, query.const_score_query(within, 0.0)),
            ]
        )

    def analyze(self, text: str) -> list[str]:
        """The terms tantivy's en_stem analysis makes of `text` (lower-cased, stemmed)."""
        return analyze(text)

    def doc_freqs(self, terms: Iterable[str]) -> tuple[int, dict[str, int]]:
        """(chunks in the index, chunks holding each term), read from one snapshot so the
        counts agree with each other even while the writer commits."""
        with self._reading(refuse_damaged=False):  # term counts: another file than postings
            searcher = self._index.searcher()
            freqs = {t: max(searcher.doc_freq(f, t) for f in _COUNTED_FIELDS) for t in terms}
            return int(searcher.num_docs), freqs

    def num_docs(self) -> int:
        return int(self._index.searcher().num_docs)

    def all_ids(self) -> set[str]:
        with self._reading():
            searcher = self._index.searcher()
            total = searcher.num_docs
            if total == 0:
                return set()
            query = self._index.parse_query("*", default_field_names=["text"])
            hits = searcher.search(query, limit=total).hits
            return {str(searcher.doc(address)["chunk_id"][0]) for _, address in hits}

    def term_count(self) -> int:
        """Distinct terms in the text field (for `rag stats`)."""
        try:
            with self._reading():
                return len(self._index.searcher().terms_with_prefix("text", "", limit=10_000_000))
        except Exception:
            return -1


class _Writing:
    """The write lock, plus a record of whether the write failed (kept for `problem`)."""

    def __init__(self, index: TantivyIndex) -> None:
        self.index = index

    def __enter__(self) -> None:
        if self.index.read_only:
            raise LexicalUnreadable("opened read-only")
        if self.index.guard is not None:
            self.index.guard.wait_for_room()
        self.index._write_lock.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, _tb: object
    ) -> None:
        try:
            if exc is not None and isinstance(exc, Exception):
                self.index.roll_back()
        finally:
            self.index._write_lock.release()
        if exc is not None and panicked(exc):  # a commit's merge met a damaged segment
            self.index.damaged = f"the lexical index is damaged (tantivy failed writing it: {exc})"
            raise LexicalDamaged(self.index.damaged) from None
        if exc_type is None:
            self.index.failure = None
        elif issubclass(exc_type, Exception):
            self.index.failure = f"writing the lexical index failed: {exc}"
            if self.index.guard is not None and isinstance(exc, Exception):
                self.index.guard.failed(exc)
