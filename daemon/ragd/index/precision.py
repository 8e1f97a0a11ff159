"""`embed_precision = "auto"`: float32 or bfloat16 on this machine, decided once per machine.

A CPU without native bfloat16 (no `avx512_bf16`/`amx_bf16` flag) only emulates it, so
float32 is chosen at once, without measuring. Elsewhere it depends on the CPU (slower
than float32 on some CPUs with AVX-512 BF16, faster on others: figures in
docs/performance.md), so a few dozen probe windows are embedded both ways and
bfloat16 is kept only if it is faster *and* its vectors agree with float32 — cosine ≥ 0.999
on every probe window and the same top-5 for probe searches — so switching never changes
what a search finds (that agreement is also why stored vectors of both precisions may sit
in one index: see docs/performance.md). The word-piece vectors the keyless answer's soft
coverage reads (query/soft_coverage.py) come from the same forward pass and are not
averaged into one vector, so an error the mean pooling smooths out in the sentence vector
stays in them: each probe piece's two vectors must agree too (MIN_PIECE_COSINE), checked
on an untimed pass after the timed rounds, when bfloat16 passed every other test.

The measurement counts CPU time, not wall time, on one torch thread (its own thread's CPU
clock then covers the whole forward pass), and keeps the minimum of interleaved runs of
each block: a busy machine slows the wall clock, not the CPU time of a run, so it cannot
flip the choice. A second round runs only when the first leaves the speed rule in doubt
(CLEAR_MARGIN). It costs about a CPU second (≤ BUDGET_S), runs in the background
after the daemon is ready (ragd.index.precision_task), and its result is cached per machine
(CPU model, flags, torch version, model) in the user's cache folder, shared by every data
dir (ragd.index.machine_cache).

The probe text is Python's own documentation (standard-library docstrings): real English
prose of varied length that every installation has, so the measurement is the same on
every start and needs no index yet.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragd.index import machine_cache
from ragd.index.machine import Cpu, identity, this_cpu

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder, PieceVectors

log = logging.getLogger(__name__)

CACHE_FILE = "precision.json"  # in machine_cache.cache_dir()
NO_NATIVE_BF16 = "this CPU has no native bfloat16 (no avx512_bf16/amx_bf16)"
MIN_COSINE = 0.999  # every probe window must agree at least this well
# Every probe word piece must agree at least this well. Measured here (AMD EPYC with
# avx512_bf16 and amx_bf16, autocast bfloat16): the worst piece of the 12 probe windows
# 0.99993, of 7,392 pieces of sample_corpus and its 140 questions 0.99990, where the
# soft coverage of those questions moved by 0.0018 at most (0.0006 on average). The bound
# leaves 10× that distance from 1 (a piece's displacement, √(2(1 − cos)), ≈ 3×: the soft
# coverage ≈ 0.006 at most, where a paraphrase and a missing concept lie ≈ 0.18 apart),
# and still refuses a bfloat16 whose pieces drift while their mean agrees.
MIN_PIECE_COSINE = 0.999
TOP_K = 5  # of PROBE_WINDOWS: the probe searches must find the same five windows
# bfloat16 must beat float32 by this much: a smaller gap is not worth a changed setting.
MIN_SPEEDUP = 1.05
# Sized to cost about a CPU second or two on one core (docs/performance.md): on a fresh
# machine it is part of the first index's cost, which bench section (h) measures against
# encoding the text once.
PROBE_WINDOWS = 12
MAX_WORDS = 60  # longer paragraphs are cut: a few long ones would dominate the time
BLOCK = 4  # windows per timed block (the precisions alternate block by block)
ROUNDS = 2  # each block is timed this often per precision; the minimum counts
BUDGET_S = 2.0  # CPU seconds: no round starts that would take the measurement past this
# After the first round, one precision ahead by more than this margin in *every* block ends
# the measurement: bfloat16 then runs at < 1/CLEAR_MARGIN or > CLEAR_MARGIN × MIN_SPEEDUP
# × float32's speed in each block. Further rounds could only lower a block's time (each
# keeps its minimum), so for the speed rule to come out the other way the leader's rival
# would have had to be slowed ≥ 1.2× in each block, blocks interleaved and alternating
# which precision goes first, in per-thread CPU time — beyond what busy neighbours do to it
# (tests/component/test_precision.py measures that shift). The agreement checks are not
# touched: they always compare the first round's vectors, so bfloat16 still has to agree.
CLEAR_MARGIN = 1.2
PROBE_QUERIES = (
    "how do I read a file line by line",
    "convert a date to a string",
    "run a command and capture its output",
    "parse command line arguments",
    "send an email message",
    "compare two decimal numbers exactly",
)
# Modules whose docstrings are the probe text (any that fail to import are skipped).
PROBE_MODULES = (
    "argparse", "collections", "csv", "datetime", "decimal", "email.message", "fractions",
    "http.client", "json", "logging", "pathlib", "shutil", "sqlite3", "statistics",
    "subprocess", "tarfile", "textwrap", "threading", "unittest", "urllib.request", "zipfile",
)  # fmt: skip


@dataclass(frozen=True)
class Measurement:
    float32_s: float  # seconds to embed the probe windows
    bfloat16_s: float
    min_cosine: float  # worst agreement of one window's two vectors
    same_top10: bool  # every probe search found the same ten windows
    windows: int
    rounds: int = ROUNDS  # timed rounds run: 1 when the first settled the speed rule
    # worst agreement of one word piece's two vectors; None: not measured (float32 won
    # without it, or a decision cached before pieces were checked: `settled`)
    min_piece_cosine: float | None = None

    @property
    def speedup(self) -> float:
        """bfloat16's speed as a multiple of float32's (above 1: faster)."""
        return self.float32_s / self.bfloat16_s if self.bfloat16_s > 0 else 0.0


@dataclass(frozen=True)
class Decision:
    precision: str  # "float32" or "bfloat16"
    reason: str
    measurement: Measurement | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Decision:
        m = data.get("measurement")
        return cls(data["precision"], data["reason"], Measurement(**m) if m else None)


def decide(m: Measurement) -> Decision:
    """The rule, apart from any clock: bfloat16 only if faster and indistinguishable."""
    ratio = f"bfloat16 ran at {m.speedup:.2f}× float32"
    agreement = f"min cosine {m.min_cosine:.5f}"
    if m.min_cosine < MIN_COSINE:
        why = f"{agreement} < {MIN_COSINE} on {m.windows} probe windows ({ratio})"
        return Decision("float32", why, m)
    if not m.same_top10:
        why = f"bfloat16 changed a probe search's top-{TOP_K} ({ratio}, {agreement})"
        return Decision("float32", why, m)
    if m.speedup < MIN_SPEEDUP:
        why = f"{ratio} (needs ≥ {MIN_SPEEDUP}×); {agreement}, same top-{TOP_K}"
        return Decision("float32", why, m)
    if m.min_piece_cosine is None or m.min_piece_cosine < MIN_PIECE_COSINE:
        pieces = "not measured" if m.min_piece_cosine is None else f"{m.min_piece_cosine:.5f}"
        why = f"word pieces' min cosine {pieces} < {MIN_PIECE_COSINE} ({ratio}, {agreement})"
        return Decision("float32", why, m)
    agreement += f", pieces' {m.min_piece_cosine:.5f}"
    return Decision("bfloat16", f"{ratio}; {agreement}, same top-{TOP_K}", m)


def clear_at_once(best: dict[str, list[float]]) -> bool:
    """Whether one round settles the speed rule: bfloat16 is slower than float32 by more
    than CLEAR_MARGIN in every block, or faster than MIN_SPEEDUP by more than it."""
    speedups = [f32 / bf16 for f32, bf16 in zip(best["float32"], best["bfloat16"], strict=True)]
    slower = all(s < 1 / CLEAR_MARGIN for s in speedups)
    faster = all(s > CLEAR_MARGIN * MIN_SPEEDUP for s in speedups)
    return bool(speedups) and (slower or faster)


def probe_texts(limit: int = PROBE_WINDOWS) -> list[str]:
    """Paragraphs of standard-library documentation: one per window, as ragd's windows are."""
    windows: list[str] = []
    seen: set[str] = set()
    for name in PROBE_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        objects = [module, *(getattr(module, a) for a in sorted(vars(module)) if a[0] != "_")]
        for obj in objects:
            doc = inspect.getdoc(obj) if callable(obj) or obj is module else None
            for para in (doc or "").split("\n\n"):
                text = " ".join(para.split()[:MAX_WORDS])
                if len(text.split()) >= 12 and not text.startswith(">>>") and text not in seen:
                    seen.add(text)
                    windows.append(text)
                    if len(windows) == limit:
                        return windows
    return windows


class Cancelled(Exception):
    """The daemon began shutting down during the measurement; nothing was cached."""


def measure(
    embedder: MiniLMEmbedder, texts: Sequence[str], cancelled: Callable[[], bool] = lambda: False
) -> Measurement:
    """Embed `texts` in both precisions, block by block, and compare CPU time and vectors.

    One torch thread, so this thread's CPU clock covers the whole forward pass; blocks
    alternate between the precisions (and which goes first); each block's time is its
    minimum over the rounds. It ends after the first round when that settles which is
    faster (`clear_at_once`). Raises Cancelled as soon as `cancelled()` turns true.
    """
    blocks = [list(texts[i : i + BLOCK]) for i in range(0, len(texts), BLOCK)]
    for precision in ("float32", "bfloat16"):  # first-call set-up is not the rate
        embedder.embed(texts[:2], precision=precision, threads=1)  # type: ignore[arg-type]
    best = {p: [float("inf")] * len(blocks) for p in ("float32", "bfloat16")}
    parts: dict[str, list[np.ndarray]] = {"float32": [], "bfloat16": []}
    began, rounds = time.thread_time(), 0
    for rnd in range(ROUNDS):
        for b, block in enumerate(blocks):
            order = ("float32", "bfloat16") if (rnd + b) % 2 == 0 else ("bfloat16", "float32")
            for precision in order:
                if cancelled():
                    raise Cancelled
                t0 = time.thread_time()
                vectors = embedder.embed(block, precision=precision, threads=1)  # type: ignore[arg-type]
                best[precision][b] = min(best[precision][b], time.thread_time() - t0)
                if rnd == 0:
                    parts[precision].append(vectors)
        spent, rounds = time.thread_time() - began, rnd + 1
        if clear_at_once(best):  # another round would not change the speed rule's answer
            break
        if spent * (rnd + 2) / (rnd + 1) > BUDGET_S:  # one more round would pass the budget
            break
    seconds = {p: sum(t) for p, t in best.items()}
    compared = dataclasses.replace(_compare(embedder, parts, seconds, len(texts)), rounds=rounds)
    # The pieces' pass doubles the cost (0.38 → 0.72 CPU s here): run only where they
    # decide, bfloat16 being faster and its sentence vectors agreeing.
    if decide(dataclasses.replace(compared, min_piece_cosine=1.0)).precision == "float32":
        return compared
    pieces = _piece_agreement(embedder, blocks, cancelled)
    return dataclasses.replace(compared, min_piece_cosine=pieces)


def _piece_agreement(
    embedder: MiniLMEmbedder, blocks: list[list[str]], cancelled: Callable[[], bool]
) -> float:
    """The worst cosine of one probe word piece's float32 and bfloat16 vectors, from an
    untimed pass of each precision over the timed blocks (the same batches, so the same
    padding), folded block by block."""
    worst = 1.0
    for block in blocks:
        found: dict[str, list[np.ndarray]] = {"float32": [], "bfloat16": []}
        for precision, kept in found.items():
            if cancelled():
                raise Cancelled

            def keep(_: int, pieces: PieceVectors, kept: list[np.ndarray] = kept) -> None:
                kept.append(pieces.vectors.copy())

            embedder.fold_pieces(block, keep, lane="index", precision=precision, threads=1)  # type: ignore[arg-type]
        for a, b in zip(found["float32"], found["bfloat16"], strict=True):
            if len(a):
                worst = min(worst, float(np.sum(a * b, axis=1).min()))
    return round(worst, 6)


def _compare(
    embedder: MiniLMEmbedder,
    parts: dict[str, list[np.ndarray]],
    seconds: dict[str, float],
    windows: int,
) -> Measurement:
    """Agreement of the two precisions' vectors and of the probe searches over them."""
    vectors = {p: np.concatenate(v) for p, v in parts.items()}
    tops = {}
    for precision, matrix in vectors.items():
        asked = embedder.embed(PROBE_QUERIES, lane="query", precision=precision, threads=1)  # type: ignore[arg-type]
        tops[precision] = np.argsort(-(asked @ matrix.T), axis=1)[:, :TOP_K]
    same = all(
        set(a.tolist()) == set(b.tolist())
        for a, b in zip(tops["float32"], tops["bfloat16"], strict=True)
    )
    cosines = np.sum(vectors["float32"] * vectors["bfloat16"], axis=1)
    return Measurement(
        float32_s=round(seconds["float32"], 4),
        bfloat16_s=round(seconds["bfloat16"], 4),
        min_cosine=round(float(cosines.min()), 6),
        same_top10=same,
        windows=windows,
    )


def cache_path() -> Path:
    return machine_cache.cache_dir() / CACHE_FILE


def settled(model_id: str, cpu: Cpu | None = None, cache: Path | None = None) -> Decision | None:
    """The decision known without measuring — float32 on a CPU without native bfloat16, or
    this machine's cached one — or None: it has to be measured."""
    cpu = cpu or this_cpu()
    if not cpu.native_bf16:
        return Decision("float32", NO_NATIVE_BF16)
    stored = machine_cache.read(cache or cache_path(), identity(cpu, model_id))
    if stored is None:
        return None
    try:
        decision = Decision.from_json(stored)
    except (KeyError, TypeError) as exc:
        log.warning("ignoring a malformed cached precision decision (%s)", exc)
        return None
    unchecked = decision.measurement is None or decision.measurement.min_piece_cosine is None
    if decision.precision == "bfloat16" and unchecked:
        log.info("the cached bfloat16 decision predates the word-piece check: measuring again")
        return None
    return decision


def choose(
    embedder: MiniLMEmbedder,
    cpu: Cpu | None = None,
    cache: Path | None = None,
    texts: Sequence[str] | None = None,
    measure_fn: Callable[..., Measurement] = measure,
    cancelled: Callable[[], bool] = lambda: False,
) -> Decision:
    """The settled decision, or a fresh measurement (then cached for this machine).

    Raises Cancelled if `cancelled()` turns true meanwhile (nothing is cached then).
    """
    cpu, cache = cpu or this_cpu(), cache or cache_path()
    known = settled(embedder.model_id, cpu, cache)
    if known is not None:
        return known
    probe = list(texts) if texts is not None else probe_texts()
    if len(probe) < BLOCK:
        return Decision("float32", "no probe text to measure bfloat16 with (float32 is safe)")
    log.info("measuring float32 against bfloat16 on %d probe windows (once)", len(probe))
    try:
        decision = decide(measure_fn(embedder, probe, cancelled))
    except Cancelled:
        raise
    except Exception as exc:  # e.g. a torch build without bfloat16 kernels on this CPU
        decision = Decision("float32", f"bfloat16 failed here: {exc}")
    log.info("embedding precision: %s (%s)", decision.precision, decision.reason)
    machine_cache.write(cache, identity(cpu, embedder.model_id), decision.to_json())
    return decision
