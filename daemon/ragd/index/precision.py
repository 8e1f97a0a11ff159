"""`embed_precision = "auto"`: measure float32 against bfloat16 on this machine, once.

Whether bfloat16 pays off depends on the CPU: on one AVX-512 BF16 machine without AMX it
ran at 0.59× float32, on another (AMD Zen 4) at ≈ 1.7×. So the first start embeds a few
hundred probe windows both ways and keeps bfloat16 only if it is faster *and* its vectors
agree with float32 — cosine ≥ 0.999 on every probe window and the same top-10 for probe
searches — so switching never changes what a search finds. The decision is cached in the
data dir with what it depends on (CPU model and flags, torch version, model); any of them
changing means measuring again.

The probe text is Python's own documentation (standard-library docstrings): real English
prose of varied length that every installation has, so the measurement is the same on
every start and needs no index yet.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import json
import logging
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder

log = logging.getLogger(__name__)

CACHE_FILE = "precision.json"
MIN_COSINE = 0.999  # every probe window must agree at least this well
TOP_K = 10
# bfloat16 must beat float32 by this much: a smaller gap is within the noise of a shared CPU.
MIN_SPEEDUP = 1.05
PROBE_WINDOWS = 200
MAX_WORDS = 120  # longer paragraphs are cut: a few long ones would dominate the time
BLOCK = 20  # windows per timed block (the precisions alternate block by block)
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
    return Decision("bfloat16", f"{ratio}; {agreement}, same top-{TOP_K}", m)


def machine_identity(model_id: str) -> dict[str, str]:
    """What the decision depends on; a change in any of these means measuring again."""
    import torch

    name, flags = platform.processor(), ""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and not name.strip():
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = " ".join(sorted(value.split()))
    except OSError:
        pass
    return {
        "cpu": name or platform.machine(),
        "cpu_flags": hashlib.sha256(flags.encode()).hexdigest()[:16],
        "torch": torch.__version__,
        "model": model_id,
    }


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
    """Embed `texts` once in each precision and compare speed, vectors and probe searches.

    Blocks of windows alternate between the precisions (and which goes first), so a busy
    neighbour on a shared CPU slows both alike; one pass each keeps it to seconds.
    """
    embedder.embed(texts[:4], precision="bfloat16")  # first-call set-up is not the rate
    seconds = {"float32": 0.0, "bfloat16": 0.0}
    parts: dict[str, list[np.ndarray]] = {"float32": [], "bfloat16": []}
    for block, start in enumerate(range(0, len(texts), BLOCK)):
        order = ("float32", "bfloat16") if block % 2 == 0 else ("bfloat16", "float32")
        for precision in order:
            if cancelled():
                raise Cancelled
            began = time.perf_counter()
            parts[precision].append(
                embedder.embed(texts[start : start + BLOCK], precision=precision)  # type: ignore[arg-type]
            )
            seconds[precision] += time.perf_counter() - began
    vectors = {p: np.concatenate(v) for p, v in parts.items()}
    tops = {}
    for precision, matrix in vectors.items():
        asked = embedder.embed(PROBE_QUERIES, lane="query", precision=precision)  # type: ignore[arg-type]
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
        windows=len(texts),
    )


def choose(
    embedder: MiniLMEmbedder,
    data_dir: Path,
    texts: Sequence[str] | None = None,
    identity: dict[str, str] | None = None,
    measure_fn: Callable[..., Measurement] = measure,
    cancelled: Callable[[], bool] = lambda: False,
) -> Decision:
    """The cached decision for this machine, or a fresh measurement (then cached).

    Raises Cancelled if `cancelled()` turns true meanwhile (nothing is cached then).
    """
    identity = identity or machine_identity(embedder.model_id)
    path = data_dir / CACHE_FILE
    cached = _read_cache(path, identity)
    if cached is not None:
        return cached
    probe = list(texts) if texts is not None else probe_texts()
    if len(probe) < 20:
        return Decision("float32", "no probe text to measure bfloat16 with (float32 is safe)")
    log.info("measuring float32 against bfloat16 on %d probe windows (once)", len(probe))
    try:
        decision = decide(measure_fn(embedder, probe, cancelled))
    except Cancelled:
        raise
    except Exception as exc:  # e.g. a torch build without bfloat16 kernels on this CPU
        decision = Decision("float32", f"bfloat16 failed here: {exc}")
    log.info("embedding precision: %s (%s)", decision.precision, decision.reason)
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"machine": identity, "decision": decision.to_json()}, indent=2))
    tmp.replace(path)
    return decision


def _read_cache(path: Path, identity: dict[str, str]) -> Decision | None:
    try:
        data = json.loads(path.read_text())
        if data.get("machine") != identity:
            log.info("the CPU, torch or model changed since precision was measured; measuring")
            return None
        return Decision.from_json(data["decision"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring an unreadable %s (%s); measuring again", path.name, exc)
        return None
