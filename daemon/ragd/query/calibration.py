"""The gate's floor, learned for each index: how well do questions it cannot answer score?

One constant cannot serve every folder: a large index of long, many-topic chunks lifts
every question's support, a small one lowers it (a floor set on the 91-chunk sample corpus
let "How do I bake sourdough bread?" through on a 920-chunk folder of package docs). So
the daemon measures, on *this* index, the support of a shipped bank of questions about
other subjects (offtopic_bank.py: cooking, sport, history, …, at most a dozen each) and
sets the floor a margin above a robust high quantile of those scores:

    floor = quantile_95(support of the bank questions) + MARGIN

The same searches give the bank's *topicality* on this index (gate.signals: the mean
cosine of the dense retriever's candidates), kept as `Floor.topical`, its 95th
percentile: a question whose nearest passages are, together, closer in meaning than the
off-subject bank's is about this index's subject, however it is worded (gate_model.py).

The 95th percentile ignores the bank's top 5 % (14 questions), so a folder that happens to
be *about* one of the bank's subjects does not drag the floor up. The floor is the zero
of the gate's support scale: gate_model.py refuses, passes or flags a question from its
support's margin over this floor and the retrieval's other signals.

The floor is recomputed when the index has changed and the writer has been idle for a
moment, on a background thread at the lowest CPU priority, so it never delays a search or
an edit; until the first measurement (a brand-new index) the floor is DEFAULT_FLOOR, and
the last learned floor is kept in the manifest across restarts. `support_floor` in the
configuration, when set, overrides all of this.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ragd.core.priority import lowest_priority
from ragd.index.machine_cache import cache_dir, open_regular
from ragd.query import bank_vectors
from ragd.query.offtopic_bank import OFFTOPIC_BANK
from ragd.query.types import GateDecision

if TYPE_CHECKING:
    from ragd.index.embedder import Embedder
    from ragd.index.manifest import Manifest

log = logging.getLogger("ragd.calibration")

QUANTILE = 0.95
# The floor's margin over the bank's 95th percentile. The gate's model (gate_model.py)
# measures a retrieval's support from this floor; its own refusal margin is fitted on top.
MARGIN = 0.114
# Used before an index has been measured once (and on an empty one). DEFAULT_TOPICAL is
# the highest bank topicality measured on the eval corpora (0.17–0.26): until measured,
# the topicality rescue (gate_model.refuses) errs towards refusing.
DEFAULT_FLOOR = 0.38
DEFAULT_TOPICAL = 0.26
SETTLE_S = 2.0  # the writer must have been idle this long before a re-measurement
# After a measurement the vector store could not answer (another process holding the embedded
# store locked: a backup, an sqlite3 shell), the next waits this long (FloorKeeper._run).
NO_VECTORS_RETRY_S = 30.0
META_KEY = "gate_floor"


class Gated(Protocol):
    @property
    def gate(self) -> GateDecision: ...

    @property
    def note(self) -> str: ...


class Retriever(Protocol):
    """What the keeper needs of ragd.query.retrieval.Retriever (which imports this module
    for the Floor, so this one names only the shape)."""

    learned: Floor | None

    def search_many(
        self,
        queries: Sequence[str],
        vectors: np.ndarray,
        top_k: int,
        between: Callable[[], object] = ...,
    ) -> Sequence[Gated]: ...

    def vectors_unavailable(self) -> str | None: ...

    def floor(self) -> Floor: ...

    def searches_done(self, timeout: float) -> bool: ...


@dataclass(frozen=True)
class Floor:
    value: float
    origin: str  # "learned", "configured" or "default"
    detail: str  # one line saying what the value came from
    topical: float = DEFAULT_TOPICAL  # the bank's 95th percentile of gate.signals' topical

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def configured(value: float, topical: float = DEFAULT_TOPICAL) -> Floor:
    """The user's floor; `topical` the bank's topicality learned on the index, if any."""
    return Floor(value, "configured", "support_floor in the configuration", topical)


def default_floor() -> Floor:
    return Floor(DEFAULT_FLOOR, "default", "not yet learned for this index")


def floor_value(null: float, margin: float = MARGIN) -> float:
    """The floor over a bank's 95th percentile `null`, to the 4 places the gate line and
    `make eval`'s replay both read (an unrounded copy had differed in the fifth)."""
    return round(null + margin, 4)


def learn(
    supports: Sequence[float],
    chunks: int,
    margin: float = MARGIN,
    topicals: Sequence[float] | None = None,
) -> Floor:
    """The floor from the bank questions' supports (and topicality) on an index of
    `chunks` chunks."""
    null = float(np.quantile(np.asarray(supports, dtype=np.float64), QUANTILE))
    value = floor_value(null, margin)
    detail = (
        f"95th percentile {null:.3f} of {len(supports)} off-subject questions "
        f"+ margin {margin:.2f}, measured on {chunks} chunks"
    )
    if not topicals:
        return Floor(value, "learned", detail)
    topical = round(float(np.quantile(np.asarray(topicals, dtype=np.float64), QUANTILE)), 4)
    return Floor(value, "learned", detail, topical)


def bank_supports(
    retriever: Retriever, vectors: np.ndarray, pause: Callable[[], bool]
) -> list[float] | None:
    """Each bank question's best support on the index (bank_gates)."""
    gates = bank_gates(retriever, vectors, pause)
    return None if gates is None else [g.support for g in gates]


def bank_gates(
    retriever: Retriever,
    vectors: np.ndarray,
    pause: Callable[[], bool],
    give_way: Callable[[], object] = lambda: None,
) -> list[GateDecision] | None:
    """The gate's reading of each bank question on the index, exactly what `search` gives
    it, asked a slice at a time (one vector-store query per slice, and a chance to stop in
    between); None if `pause()` asks to stop or the vector store could not be asked.
    `give_way()` runs before each question's steps (it may wait)."""
    out: list[GateDecision] = []
    for start in range(0, len(OFFTOPIC_BANK), _BANK_SLICE):
        if pause():
            return None
        end = start + _BANK_SLICE
        results = retriever.search_many(
            OFFTOPIC_BANK[start:end], vectors[start:end], top_k=5, between=give_way
        )
        if any(result.note for result in results):
            return None  # answered without the vector store: BM25's support alone is lower
        out.extend(result.gate for result in results)
    return out


class FloorKeeper:
    """Keeps `retriever.learned` current with the index, at idle time.

    `signature()` is any value that changes whenever the index does (the writer's counters);
    `busy()` says the writer has work, which postpones (and aborts) a measurement; a user's
    search running makes it wait before its next question (in_flight.py).
    The manifest is only read here; `save(key, value)` keeps a learned floor (the daemon
    passes its index writer's, which owns every write to the stores).
    """

    def __init__(
        self,
        retriever: Retriever,
        embedder: Embedder,
        manifest: Manifest,
        signature: Callable[[], object],
        busy: Callable[[], bool],
        settle_s: float = SETTLE_S,
        save: Callable[[str, str], None] | None = None,
    ) -> None:
        self.retriever = retriever
        self.embedder = embedder
        self.manifest = manifest
        self.save = save or manifest.set_meta
        self.signature = signature
        self.busy = busy
        self.settle_s = settle_s
        self.measured: object = None  # the signature the floor in force was measured at
        self.gave_way = 0  # bank questions held back for a user's search
        self._vectors: np.ndarray | None = None
        self._vectors_back_at = 0.0  # monotonic: no measurement before (waiting_for_vectors)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        stored = manifest.get_meta(META_KEY)
        if stored:
            try:
                fields = json.loads(stored)
                chunks = fields.pop("chunks", None)
                retriever.learned = Floor(**fields)
            except (TypeError, ValueError, AttributeError):
                log.warning("ignoring an unreadable stored gate floor")
            else:
                # Learned on an index of this size, and the start-up scan re-indexes any
                # file changed meanwhile (which changes the signature): still current, so
                # a restart does not ask the 288 questions again (unless it was kept
                # without the bank's topicality, which gate_model.refuses reads).
                current = chunks is not None and chunks == manifest.counts()[1]
                if current and "topical" in fields:
                    self.measured = signature()

    @property
    def current(self) -> bool:
        """The floor in force was measured on the index as it is now."""
        return self.measured is not None and self.measured == self.signature()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ragd-floor", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Ask the thread to stop; True once it has. A measurement checks the flag between
        searches and embedding slices, so this is quick unless the CPU is starved; a thread
        still inside torch or tantivy when the interpreter tears down can abort the process,
        so the caller must not close the stores or exit normally while this is False."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def _run(self) -> None:
        lowest_priority()
        quiet_since = time.monotonic()
        while not self._stop.wait(0.5):
            if self.busy():
                quiet_since = time.monotonic()
                continue
            if self.signature() == self.measured or time.monotonic() - quiet_since < self.settle_s:
                continue
            if self.retriever.vectors_unavailable() or self.waiting_for_vectors():
                continue  # a floor measured on BM25 alone would be too low: wait for vectors
            try:
                self.measure_once()
            except Exception:  # a failed measurement keeps the previous floor
                log.exception("measuring the gate floor failed")
                self.measured = self.signature()

    def measure_once(self) -> Floor | None:
        """Measure now (the thread calls this at idle time); None if interrupted."""
        signature = self.signature()
        started = time.thread_time()
        chunks = self.manifest.counts()[1]
        if chunks == 0:
            self.retriever.learned = None
            self.measured = signature
            return None
        if self._vectors is None:
            self._vectors = self._embed_bank()
            if self._vectors is None:
                return None
        gates = bank_gates(self.retriever, self._vectors, self._stopping, self._give_way)
        if gates is None and not self._stopping():  # the vector store could not be asked
            self._vectors_back_at = time.monotonic() + NO_VECTORS_RETRY_S
        if gates is None or self.signature() != signature:
            return None  # the index moved under us: measure again when it settles
        topicals = [g.signals.get("topical", 0.0) for g in gates]
        floor = learn([g.support for g in gates], chunks, topicals=topicals)
        before, self.retriever.learned = self.retriever.learned, floor
        self.measured = signature
        self.save(META_KEY, json.dumps(floor.as_json() | {"chunks": chunks}))
        # Said when it moves; the same floor again (after each save of a file being
        # edited) is not news (attack48b: one INFO line every 2 s while editing).
        moved = before is None or before.value != floor.value
        (log.info if moved else log.debug)("gate floor %.3f (%s)", floor.value, floor.detail)
        # The cost on this thread (the vector store's own threads not counted).
        log.debug(
            "gate floor measured in %.2f CPU s (gave way to searches %d times so far)",
            time.thread_time() - started,
            self.gave_way,
        )
        return floor

    def status(self) -> dict[str, Any]:
        """`rag status`'s `floor`: the floor in force, whether it was learned for the index
        as it is now, and whether its measurement waits for the vector store: while it is
        known to be down or locked, and after a measurement it could not answer
        (`waiting_for_vectors`, fixes42b: status said "in a moment (`rag status --wait`
        waits for it)" then, for up to NO_VECTORS_RETRY_S, while nothing was measured)."""
        waiting = bool(self.retriever.vectors_unavailable()) or self.waiting_for_vectors()
        return self.retriever.floor().as_json() | {
            "current": self.current,
            "waiting_for_vectors": waiting,
        }

    def waiting_for_vectors(self) -> bool:
        """A measurement found the vector store unable to answer (the embedded one locked
        by another process: searches answer from BM25) less than NO_VECTORS_RETRY_S ago.
        Tried again each half second instead, every try cost a slice of bank questions
        through BM25 and the gate for as long as the lock lasted (review42)."""
        return time.monotonic() < self._vectors_back_at

    def _stopping(self) -> bool:
        """Between slices of the bank: asked to stop, or the writer has work."""
        return self._stop.is_set() or self.busy()

    def _give_way(self) -> None:
        """Before each bank question: while a user's search runs, wait for it rather than
        share the CPU with it (a question takes milliseconds; a stop is seen here too, and
        acted on at the next slice)."""
        if self.retriever.searches_done(0.0):
            return
        self.gave_way += 1
        while not self._stopping() and not self.retriever.searches_done(0.05):
            pass

    def _embed_bank(self) -> np.ndarray | None:
        """The bank's vectors: from this user's cache, else the shipped ones if the model
        agrees with them (bank_vectors.py), else embedded here. They depend only on the
        model, so every data dir of this user shares one copy."""
        path = bank_cache_path(self.embedder.model_id)
        cached = read_cached_bank(path)
        if cached is not None:
            vectors = bank_vectors.agreeing(self.embedder, cached, "cached")
            if vectors is not None:
                return vectors
            log.warning(
                "the cached off-subject bank's vectors are not the model's; embedding them again"
            )
        vectors = bank_vectors.shipped(self.embedder)
        if vectors is None:
            vectors = self._embed_all()
            if vectors is None:
                return None
        try:  # an unwritable cache folder only means finding the vectors again next time
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as out:
                np.save(out, vectors)
            tmp.replace(path)
        except OSError as exc:
            log.warning("could not cache the off-subject bank's vectors (%s)", exc)
        return vectors

    def _embed_all(self) -> np.ndarray | None:
        """Every bank question embedded, a slice at a time so a stop is seen in between."""
        questions = list(OFFTOPIC_BANK)
        parts = []
        for start in range(0, len(questions), _BANK_SLICE):
            if self._stop.is_set():
                return None
            parts.append(self.embedder.embed(questions[start : start + _BANK_SLICE], lane="index"))
        return np.concatenate(parts).astype(np.float32)


def read_cached_bank(path: Path) -> np.ndarray | None:
    """The array in the bank's cache file, or None when it is missing or unreadable. The
    file is ours but lives in the user's cache folder: a crash can leave it empty or cut
    short, and anything may have been put there, so any failure to read it (numpy raises
    EOFError, BadZipFile, ValueError, …) only means it is embedded again."""
    try:  # a FIFO put there must not hold the floor keeper
        with open_regular(path) as stream:
            cached = np.load(stream, allow_pickle=False)
    except FileNotFoundError:
        return None
    except Exception as exc:
        log.warning("ignoring the unreadable cached off-subject bank %s (%s)", path.name, exc)
        return None
    return cached if isinstance(cached, np.ndarray) else None


def bank_cache_path(model_id: str) -> Path:
    """The bank's vectors for `model_id`, in the user's cache folder (named by a hash of
    the model and the questions, so a changed bank is embedded afresh)."""
    return cache_dir() / f"offtopic-bank-{bank_vectors.bank_key(model_id)}.npy"


_BANK_SLICE = 32
