"""Hybrid retrieval: dense ∥ BM25 → RRF → support scores → the gate's decision (gate.py)
→ the page (page.py).

Dense search returns *windows*; a chunk's cosine is its best window's. The support
score the gate decides on is computed for every fused candidate (see `support.py`), so
a chunk that only BM25 found still gets an honest semantic score.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ragd.core.config import default
from ragd.core.roots import Roots
from ragd.index.chunk_paths import place_of, root_key
from ragd.index.dense import ReadFailed, StoreBusy
from ragd.index.embedder import Embedder, PieceVectors
from ragd.index.lexical import LexicalDamaged
from ragd.index.manifest import ChunkRow
from ragd.index.server_store import VectorStoreUnavailable
from ragd.index.shared_vectors import chunk_hits, distinct_windows, in_folder_key, text_groups
from ragd.index.store import Stores
from ragd.query import gate, releases
from ragd.query.block_cosine import BlockCosines
from ragd.query.calibration import Floor, configured, default_floor
from ragd.query.fusion import fuse
from ragd.query.in_flight import InFlight
from ragd.query.page import choose_page
from ragd.query.question import QuestionAnalysis, analyse
from ragd.query.support import SupportScorer, chunk_texts, held_share, identifiers_held
from ragd.query.types import GateDecision, RetrievedChunk
from ragproto.errors import Busy

if TYPE_CHECKING:
    from ragd.core.config import LiveSettings

log = logging.getLogger("ragd.retrieval")


@dataclass(frozen=True)
class RetrievalResult:
    query: str
    chunks: list[RetrievedChunk]
    gate: GateDecision
    query_vector: np.ndarray  # the question embedded once, for the answerer too
    analysis: QuestionAnalysis  # the question analysed once, for the answerer too
    candidates: tuple[RetrievedChunk, ...] = ()  # every fused candidate the gate judged
    note: str = ""  # e.g. the vector store was unreachable: BM25 only
    # The question's word pieces from the same pass as query_vector, for the keyless
    # answer's soft coverage (None when the caller gave the vector)
    query_pieces: PieceVectors | None = None


class Retriever:
    def __init__(
        self,
        stores: Stores,
        embedder: Embedder,
        roots: Roots,
        settings: LiveSettings,  # `candidates` and `support_floor`, read at each search
    ) -> None:
        self.stores = stores
        self.embedder = embedder
        self.roots = roots
        self.settings = settings
        self.learned: Floor | None = None  # kept current by calibration.FloorKeeper
        self.support = SupportScorer(stores.lexical)
        self.blocks = BlockCosines(embedder)  # the rescue's second look (gate.judge)
        # `make eval` records the second look for every question it could matter to under
        # some rescue constants (gate.judge's `every_look`), so a refit is not blind to it.
        self.every_second_look = False
        self.in_flight = InFlight()  # users' searches: the floor's measurement waits for them

    @property
    def candidates(self) -> int:
        """Candidates per retriever (the `candidates` setting in force)."""
        return self.settings.current.candidates

    def floor(self) -> Floor:
        """The floor in force and where it came from: `support_floor` if set, else the
        learned one."""
        override = self.settings.current.support_floor
        if override:
            # The user's line for support; topicality is still read against this index.
            return configured(override, (self.learned or default_floor()).topical)
        return self.learned or default_floor()

    def vectors_unavailable(self) -> str | None:
        """Why the vector store cannot be asked now (searches answer from BM25), or None."""
        return self.stores.dense.unavailable()

    def dense_ranking(self, vector: np.ndarray, scope: list[str] | None = None) -> DenseHits:
        return self.dense_rankings(vector.reshape(1, -1), scope)[0]

    def dense_rankings(
        self, vectors: np.ndarray, scope: list[str] | None = None
    ) -> list[DenseHits]:
        """Each vector's hits, from one query to the vector store. A hit is a window
        text; the chunks holding it (the manifest's) share its cosine."""
        vector_scope = None
        if scope is not None:
            located = [place_of(key, self.roots) for key in scope]
            places = [p for p in located if p is not None]
            vector_scope = self._vector_scope(scope, located)
        else:
            # The roots watched now: a root `rag forget` took away keeps its chunks until
            # the writer prunes them (behind whatever it is doing), and none is served,
            # so its copies of a text took every holder a search reads and hid the copy
            # another root holds (attack51: 200 copies, the other root's never shown).
            places = [(root, "") for root in self.roots]
        found = self.stores.dense.query_many(vectors, self.candidates * 3, vector_scope)
        # A text's holders tie on its cosine: a search keeps `candidates` chunks at most,
        # so no more are read per text (a licence header in 10,000 files), in scope.
        holders = self.stores.manifest.window_holders(
            {h for hits in found for h, _ in hits}, per_text=self.candidates, places=places
        )
        return [DenseHits(text_groups(hits, holders), chunk_hits(hits, holders)) for hits in found]

    def _vector_scope(self, scope: list[str], places: list[tuple[str, str] | None]) -> list[str]:
        """`scope` as the vector index is asked it: each file in it (`places`: each key's
        root and prefix, None for a root not watched) brings the key of the texts scoped
        by the folder holding it (`shared_vectors.in_folder_key`)."""
        manifest = self.stores.manifest
        extra = [
            folder_key
            for key, place in zip(scope, places, strict=True)
            if place is not None and place[1] and manifest.file(*place) is not None
            if (folder_key := in_folder_key(key)) is not None
        ]
        return [*scope, *extra]

    def search(
        self,
        query: str,
        top_k: int = default("top_k"),
        mode: str = "hybrid",
        floor: float | None = None,
        vector: np.ndarray | None = None,
        scope: list[str] | None = None,
        second_look: bool = True,
    ) -> RetrievalResult:
        """`vector`: the query's embedding when the caller has it already.
        `scope`: keys of the folders and files to search (`chunk_paths.scope_key`); both
        retrievers filter on them before fusion, so the gate judges in-scope chunks only.
        `second_look`: the gate may embed the leading candidates' blocks for a question its
        rule would refuse (block_cosine.py); support, and so the floor, never read them."""
        with self.in_flight.running():
            pieces = None
            if vector is None:
                vectors, both = self.embedder.embed_pieces([query], lane="query")
                vector, pieces = vectors[0], both[0]
            try:
                found = self._gather(query, vector, mode, scope)
                window_vectors = self._window_vectors(found.missing, found.rows)
                found.cosines.update(
                    best_cosines(vector, found.missing, found.rows, window_vectors)
                )
                judged = self._judged(found, top_k, floor, blocks=second_look)
            except LexicalDamaged as exc:  # its term counts, which the gate reads
                raise Busy(
                    f"{exc}; ragd is rebuilding it from the manifest: try again in a moment"
                ) from None
            return replace(judged, query_pieces=pieces) if pieces is not None else judged

    def searches_done(self, timeout: float) -> bool:
        """True once no user's search runs (waiting at most `timeout` seconds)."""
        return self.in_flight.wait_idle(timeout)

    def search_many(
        self,
        queries: Sequence[str],
        vectors: np.ndarray,
        top_k: int,
        between: Callable[[], object] = lambda: None,
    ) -> list[RetrievalResult]:
        """`search(query, top_k=top_k, vector=vector, second_look=False)` for each pair
        (hybrid, unscoped), with one vector-store query, one manifest read and one vector
        read for all of them: the per-call cost is most of a search on a small index, and
        the floor asks 288 questions. `between()` is called before each question's steps
        (the floor's measurement waits there while a user's search runs)."""
        try:
            rankings: list[Dense] = list(self.dense_rankings(vectors))
        except NO_VECTORS as exc:
            rankings = [exc] * len(queries)
        found = self._gather_many(queries, vectors, rankings, between)
        rows = {cid: row for f in found for cid, row in f.rows.items()}
        missing = list(dict.fromkeys(cid for f in found for cid in f.missing))
        vectors_by_id = self._window_vectors(missing, rows)
        for f in found:
            f.cosines.update(best_cosines(f.vector, f.missing, f.rows, vectors_by_id))
        # The bank's questions (the floor) read support only: no block is embedded for them.
        judged = []
        for f in found:
            between()
            judged.append(self._judged(f, top_k, None, blocks=False))
        return judged

    def _judged(
        self, found: Gathered, top_k: int, floor: float | None, blocks: bool
    ) -> RetrievalResult:
        """Support for every fused candidate, the page, and the gate's verdict. `blocks`:
        the gate may embed the leading candidates' blocks for a question it would refuse."""
        ranks = (
            {cid: i for i, cid in enumerate(found.dense, start=1)},
            {cid: i for i, cid in enumerate(found.lexical, start=1)},
        )
        referred = gate.references(found.analysis)
        scored = {
            cid: self._scored(
                cid, fused, found.rows[cid], found.cosines, found.analysis, ranks, referred
            )
            for cid, fused in found.fused
        }
        # Equal fused scores (e.g. BM25's #1 and the vector retriever's #1, both 1/61) are
        # broken by support, so the better-supported chunk comes first.
        candidates = sorted(scored.values(), key=lambda c: (-c.fused, -c.support))
        # The page: the fused order, release notes after the rest unless the question asks.
        # Anchors, shown whatever the order: each retriever's top hit, and the section of
        # the release the question names.
        anchors = {ranking[0] for ranking in (found.dense, found.lexical) if ranking}
        asked = releases.asked(
            found.analysis.identifiers,
            found.analysis.text,
            sorted({c.heading for c in candidates}),
        )
        anchors |= releases.section_of(asked, [(c.chunk_id, c.heading) for c in candidates])
        page = choose_page(found.query, candidates, top_k, anchors)
        own = self.floor()
        in_force = own if floor is None else Floor(floor, "request", "--min-score")
        # Judged on every candidate, not the page: the same decision for any top_k.
        analyze = self.support.lexical.analyze
        vector = found.vector
        decision = gate.judge(
            found.analysis,
            candidates,
            in_force,
            analyze,
            reference=own,
            block_cosine=(lambda chunks: self.blocks.best(vector, chunks)) if blocks else None,
            every_look=self.every_second_look,
        )
        return RetrievalResult(
            found.query,
            page,
            decision,
            found.vector,
            found.analysis,
            tuple(candidates),
            found.note,
        )

    def _scored(
        self,
        cid: str,
        fused: float,
        row: ChunkRow,
        cosines: dict[str, float],
        analysis: QuestionAnalysis,
        ranks: tuple[dict[str, int], dict[str, int]],
        referred: frozenset[str],
    ) -> RetrievedChunk:
        cosine = float(cosines.get(cid, 0.0))
        texts = chunk_texts(row)
        coverage = self.support.coverage(analysis.weights, texts)
        # References are looked for where every identifier is (the path's words too):
        # held for one, held for the other.
        held = identifiers_held(analysis.identifiers, texts)
        exact = held_share(held)
        named = zip(analysis.identifiers, held, strict=True)
        references = held_share([h for token, h in named if token in referred])
        return RetrievedChunk(
            chunk_id=cid,
            source=self.roots.label(row.root, row.relpath),
            heading=row.heading,
            text=row.text,
            support=round(self.support.combine(cosine, coverage, exact), 4),
            cosine=round(cosine, 4),
            coverage=round(coverage, 4),
            identifiers=round(exact, 4),
            references=round(references, 4),
            fused=round(fused, 6),
            vector_rank=ranks[0].get(cid),
            bm25_rank=ranks[1].get(cid),
            page=row.page,
            lines=row.lines,
            cells=row.cells,
            slides=row.slides,
            rows=row.rows,
            ordinal=row.ordinal,
        )

    def _gather(
        self, query: str, vector: np.ndarray, mode: str, scope: list[str] | None
    ) -> Gathered:
        """Each retriever's ranking of servable chunks fused, the cosines known so far,
        the chunks' manifest rows, and a note when the vector store could not be asked."""
        rankings, rows = self._read(query, vector, mode, scope)
        return self._fused(query, vector, rankings, rows)

    def _read(
        self, query: str, vector: np.ndarray, mode: str, scope: list[str] | None
    ) -> tuple[Rankings, dict[str, ChunkRow]]:
        """Each retriever's ranking, and the manifest's rows of its chunks, read again
        while another connection committed the manifest between the two (why: READS)."""
        manifest = self.stores.manifest
        for _ in range(READS - 1):
            seen = manifest.data_version()
            rankings = self._rankings(query, vector, mode, scope, None)
            rows = manifest.chunk_rows(rankings.chunk_ids())
            if manifest.data_version() == seen:
                return rankings, rows
        rankings = self._rankings(query, vector, mode, scope, None)
        return rankings, manifest.chunk_rows(rankings.chunk_ids())

    def _gather_many(
        self,
        queries: Sequence[str],
        vectors: np.ndarray,
        dense: Sequence[Dense],
        between: Callable[[], object],
    ) -> list[Gathered]:
        """`_gather` (hybrid, unscoped) for each question, with one manifest read for all:
        the floor's slices of questions share most of their candidates."""
        rankings = []
        for query, vector, ranked in zip(queries, vectors, dense, strict=True):
            between()
            rankings.append(self._rankings(query, vector, "hybrid", None, ranked))
        rows = self.stores.manifest.chunk_rows(set().union(*(r.chunk_ids() for r in rankings)))
        return [
            self._fused(query, vector, ranking, rows)
            for query, vector, ranking in zip(queries, vectors, rankings, strict=True)
        ]

    def _rankings(
        self,
        query: str,
        vector: np.ndarray,
        mode: str,
        scope: list[str] | None,
        ranked: Dense | None,
    ) -> Rankings:
        """Each retriever's chunks, best first, before the manifest is asked. BM25 is asked
        in `--mode vector` too, to choose which copies of a text the vector ranking keeps
        (`DenseHits.ranking`: the one in the folder the question names), not to rank."""
        note = ""
        if mode != "vector":
            try:
                bm25 = lexical = self._bm25(query, scope)
            except LexicalDamaged as exc:  # the writer rebuilds it from the manifest
                bm25 = lexical = []
                note = f"{exc}: vector results only until it is rebuilt"
        else:
            bm25, lexical = self._copy_hints(query, scope), []
        try:
            if isinstance(ranked, NO_VECTORS):
                raise ranked
            if ranked is None:
                ranked = self.dense_ranking(vector, scope) if mode != "bm25" else NO_HITS
        except NO_VECTORS as exc:  # a server down, the embedded store locked
            ranked = NO_HITS
            note = "; ".join(filter(None, [note, f"{exc}: BM25 results only"]))
        return Rankings(ranked, self.candidates, lexical, bm25, note)

    def _bm25(self, query: str, scope: list[str] | None) -> list[str]:
        """BM25's chunks, best first. Unscoped while a forgotten root's chunks wait for
        the writer's prune, it is asked for the watched roots' only: its `candidates`
        best could all be the forgotten root's, none of which is served (attack51: 200
        copies of a text hid the one another root holds until the prune ended). Not
        always: the filter costs ≈ 0.5 ms a search on 11,500 chunks."""
        if scope is None and not set(self.stores.manifest.chunk_roots()) <= set(self.roots):
            scope = [root_key(root) for root in self.roots]
        return [cid for cid, _ in self.stores.lexical.search(query, self.candidates, scope)]

    def _copy_hints(self, query: str, scope: list[str] | None) -> list[str]:
        """BM25's ranking for `--mode vector`'s choice of copies; [] if BM25 fails (a vector
        search never depended on it, and the hint is not worth failing for)."""
        try:
            return self._bm25(query, scope)
        except Exception as exc:  # any failure: the ranking goes without the hint
            log.debug("no BM25 hint for the vector ranking's copies: %s", exc)
            return []

    def _fused(
        self, query: str, vector: np.ndarray, ranked: Rankings, known: dict[str, ChunkRow]
    ) -> Gathered:
        """The servable chunks of `ranked` (`known`: manifest rows, maybe of more chunks)."""
        # A forgotten root's chunks stay in the indexes until the writer prunes them; they
        # are not served from the moment `rag forget` returns.
        rows = {
            cid: known[cid]
            for cid in ranked.chunk_ids()
            if cid in known and known[cid].root in self.roots
        }
        # Ids an index holds before the manifest commit are not served.
        lexical = [c for c in ranked.lexical if c in rows]
        found = {c: rows[c].windows for c in ranked.copies_from if c in rows}
        dense = [c for c in ranked.hits.ranking(ranked.limit, found) if c in rows]
        fused = fuse([dense, lexical], len(rows), keep_ties=True)
        blind = not self.embedder.reads_any_piece(query)
        analysis = analyse(query, self.support.lexical, encoder_blind=blind)
        cosines = dict(ranked.hits.cosines)
        return Gathered(query, vector, analysis, dense, lexical, fused, cosines, rows, ranked.note)

    def _window_vectors(
        self, chunk_ids: list[str], rows: dict[str, ChunkRow]
    ) -> dict[str, np.ndarray]:
        """Window text hash → vector for every window of these chunks (ones the dense
        retriever did not return), from the vector store, else from the embedding cache."""
        hashes = distinct_windows(rows[c] for c in chunk_ids)
        try:
            return self.stores.dense.vectors(hashes)
        except NO_VECTORS:  # the embedding cache holds the same vectors
            return self.stores.manifest.cached_vectors(self.embedder.model_id, hashes)


# A search reads the indexes, then the manifest, and serves the chunks the manifest names.
# An apply adds the new chunks, commits the manifest, then deletes the old chunks, so a
# search is sound whenever its index read comes after the adds or its manifest read
# before the commit. With both the other way (the search thread descheduled a few ms
# between its reads on a loaded machine), it got the old chunks from the indexes and the
# new names from the manifest: two files that traded contents (a swap by renames, applied
# in one step) were found under neither name. So the reads are made again when another
# connection committed between them (any commit: the embedding cache's too, which costs a
# read more, rarely), at most this many times in all; past that the last reads are
# served as they are. (`_gather_many`, the floor's batch, reads once: its reads span
# hundreds of questions.)
READS = 3
# Why the vector store could not be asked now (`str()` says so in the search's note).
NO_VECTORS = (VectorStoreUnavailable, StoreBusy, ReadFailed)
# The chunks one window text may bring to a dense ranking. Copies of a text (a licence
# header in every file, a page copied into each release's folder) share its cosine, and
# 20 of them took every candidate place: `--mode vector --top-k 6` showed one passage (the
# page shows one of identical chunks) and the nearest other texts were never judged. The
# copies BM25 found come first (a question naming a folder finds its copy by both
# retrievers, as before; in `--mode vector` BM25 only chooses them). Measured on the eval
# corpora with the most copies (nu22, nu23, nu35, nu37) and two controls: no gate
# decision or support of 372 questions moved.
COPIES_RANKED = 3


@dataclass(frozen=True)
class DenseHits:
    """One question's dense hits: each window text, nearest first, with the chunks it
    ranks (`shared_vectors.text_groups`), and each chunk's best cosine."""

    groups: list[tuple[str, list[str]]]
    cosines: dict[str, float]

    def ranking(self, limit: int, found: Mapping[str, Sequence[str]] | None = None) -> list[str]:
        """The chunks best first, at most `limit`: each text brings COPIES_RANKED of its
        holders not ranked yet, first those BM25 found too, in its order (`found`: chunk id
        → its window texts), whether or not the search read them as the text's holders.
        A holder a nearer text left out is ranked at its next text: a chunk holding a
        passage 12 copies share and one of its own is found by its own (attack50)."""
        found = found or {}
        out: list[str] = []
        ranked: set[str] = set()
        for text_hash, chunk_ids in self.groups:
            both = [c for c, texts in found.items() if c not in ranked and text_hash in texts]
            others = [c for c in chunk_ids if c not in ranked and c not in found]
            taken = (both + others)[:COPIES_RANKED]
            out += taken
            ranked.update(taken)
            if len(out) >= limit:
                break
        return out[:limit]


NO_HITS = DenseHits([], {})
# A dense ranking, or why there is none.
Dense = DenseHits | VectorStoreUnavailable | StoreBusy | ReadFailed


@dataclass(frozen=True)
class Rankings:
    """One question's chunks from each retriever, best first, before the manifest."""

    hits: DenseHits
    limit: int  # chunks per ranking (the `candidates` setting)
    lexical: list[str]  # BM25's ranking, fused
    copies_from: list[str]  # BM25's ranking, choosing copies (`--mode vector` too)
    note: str  # why there are no dense hits, if the vector store could not be asked

    def chunk_ids(self) -> set[str]:
        """The chunks whose manifest rows the fusion may need: the dense ranking before
        BM25's copies join it (`DenseHits.ranking`), and BM25's."""
        return set(self.hits.ranking(self.limit)) | set(self.lexical) | set(self.copies_from)


@dataclass
class Gathered:
    """One question's candidates, fused, before support is computed."""

    query: str
    vector: np.ndarray
    analysis: QuestionAnalysis
    dense: list[str]
    lexical: list[str]
    fused: list[tuple[str, float]]
    cosines: dict[str, float]  # the dense hits', then every fused candidate's
    rows: dict[str, ChunkRow]
    note: str

    @property
    def missing(self) -> list[str]:
        """Fused candidates the dense retriever did not return: no cosine yet."""
        return [cid for cid, _ in self.fused if cid not in self.cosines]


def best_cosines(
    vector: np.ndarray,
    chunk_ids: Sequence[str],
    rows: dict[str, ChunkRow],
    vectors: dict[str, np.ndarray],
) -> dict[str, float]:
    """Each chunk's best window cosine with `vector`, from its windows' vectors (text
    hash → vector; a chunk none of whose windows has one is left out)."""
    out: dict[str, float] = {}
    for cid in chunk_ids:
        found = [float(np.dot(vector, vectors[h])) for h in rows[cid].windows if h in vectors]
        if found:
            out[cid] = max(found)
    return out
