"""The lexical index: BM25 over tantivy with English stemming.

Each document is one chunk: its id (raw, for deletion), the file it came from, the
heading path (headings are content: versions and ids often live only there) and the
text, all analysed with tantivy's `en_stem` so "charging" finds "charged". The index is
a cache of the manifest: if it is missing or will not open, it is rebuilt from the
manifest rather than trusted.
"""

from __future__ import annotations

import logging
import re
import shutil
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_QUERY_FIELDS = ["heading", "text", "source"]
_BOOSTS = {"heading": 1.5, "text": 1.0, "source": 0.5}


@dataclass(frozen=True)
class LexicalDoc:
    chunk_id: str
    source: str  # root-relative path, used for matching only
    heading: str
    text: str


def _schema():  # type: ignore[no-untyped-def]
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("source", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("heading", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
    return builder.build()


def query_terms(query: str) -> list[str]:
    """User text → plain lower-case words, so no input is parsed as query syntax."""
    return [w.lower() for w in _WORD.findall(query)][:64]


class TantivyIndex:
    """Single writer (the index thread); any thread may search."""

    def __init__(self, path: Path) -> None:
        import tantivy

        self._tantivy = tantivy
        self.path = path
        self.rebuilt = False
        try:
            self._open()
        except Exception as exc:  # corrupt: never trusted, rebuilt by the caller
            log.warning("lexical index at %s would not open (%s); rebuilding", path.name, exc)
            self._wipe_and_open()
        self._write_lock = threading.Lock()
        # The same analysis as the built-in en_stem tokenizer, for scoring outside search.
        self._analyzer = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )

    def _open(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        existed = (self.path / "meta.json").exists()
        self._index = self._tantivy.Index(_schema(), path=str(self.path), reuse=True)
        self._writer = self._index.writer(heap_size=64_000_000, num_threads=1)
        if not existed:
            self.rebuilt = True
        # Probe that the segments really load.
        self._index.reload()
        self._index.searcher().num_docs  # noqa: B018

    def _wipe_and_open(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        self._open()
        self.rebuilt = True

    def reset(self) -> None:
        with self._write_lock:
            self._writer.delete_all_documents()
            self._writer.commit()
            self._index.reload()

    def add(self, docs: Iterable[LexicalDoc]) -> None:
        with self._write_lock:
            for doc in docs:
                # delete-then-add keeps a retried apply idempotent
                self._writer.delete_documents_by_term("chunk_id", doc.chunk_id)
                self._writer.add_document(
                    self._tantivy.Document(
                        chunk_id=doc.chunk_id,
                        source=doc.source,
                        heading=doc.heading,
                        text=doc.text,
                    )
                )

    def delete(self, chunk_ids: Iterable[str]) -> None:
        with self._write_lock:
            for chunk_id in chunk_ids:
                self._writer.delete_documents_by_term("chunk_id", chunk_id)

    def commit(self) -> None:
        with self._write_lock:
            self._writer.commit()
            self._index.reload()

    def close(self) -> None:
        with self._write_lock:
            try:
                self._writer.wait_merging_threads()
            except Exception as exc:
                log.debug("tantivy close: %s", exc)

    def search(self, query: str, n: int) -> list[tuple[str, float]]:
        """Best chunks as (chunk id, BM25 score)."""
        terms = query_terms(query)
        if not terms or n <= 0:
            return []
        parsed = self._index.parse_query(
            " ".join(terms), default_field_names=_QUERY_FIELDS, field_boosts=_BOOSTS
        )
        searcher = self._index.searcher()
        hits = searcher.search(parsed, limit=n).hits
        out = []
        for score, address in hits:
            doc = searcher.doc(address)
            out.append((str(doc["chunk_id"][0]), float(score)))
        return out

    def analyze(self, text: str) -> list[str]:
        """The terms tantivy's en_stem analysis makes of `text` (lower-cased, stemmed)."""
        return list(self._analyzer.analyze(text))

    def doc_freqs(self, terms: Iterable[str]) -> tuple[int, dict[str, int]]:
        """(chunks in the index, chunks holding each term), read from one snapshot so the
        counts agree with each other even while the writer commits."""
        searcher = self._index.searcher()
        freqs = {
            t: max(searcher.doc_freq("text", t), searcher.doc_freq("heading", t)) for t in terms
        }
        return int(searcher.num_docs), freqs

    def num_docs(self) -> int:
        return int(self._index.searcher().num_docs)

    def all_ids(self) -> set[str]:
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
            return len(self._index.searcher().terms_with_prefix("text", "", limit=10_000_000))
        except Exception:
            return -1
