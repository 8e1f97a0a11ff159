"""The off-subject bank's vectors as shipped with ragd, checked against the live model.

The floor (calibration.py) needs the 288 bank questions embedded. They depend only on the
model and the questions, yet embedding them is ≈ 1.3 CPU s on a new machine, a tenth of a
first index of a small folder. So the repository carries them (`offtopic_bank.npz`:
float16, made by `python -m ragd.query.bank_vectors` with the float32 model) under a key
naming the model and every question, and they are used only when

* the key matches (a changed bank or another model makes them stale), and
* a few of them, embedded again now by the model in force (its precision, its torch),
  agree with the shipped ones at a cosine of at least AGREEMENT.

Otherwise the caller embeds the bank itself, as it would without this file.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ragd.query.offtopic_bank import OFFTOPIC_BANK

if TYPE_CHECKING:
    from ragd.index.embedder import Embedder

log = logging.getLogger("ragd.calibration")

SHIPPED = Path(__file__).with_name("offtopic_bank.npz")
AGREEMENT = 0.999
# Re-embedded at use: the first, a middle and the last question (three topics apart).
CHECKED = (0, len(OFFTOPIC_BANK) // 2, len(OFFTOPIC_BANK) - 1)


def bank_key(model_id: str) -> str:
    """Names the model and every question: a change to either gives another key."""
    return hashlib.sha256("\n".join([model_id, *OFFTOPIC_BANK]).encode()).hexdigest()[:16]


def shipped(embedder: Embedder, path: Path = SHIPPED) -> np.ndarray | None:
    """The shipped vectors (float32) if they are for this model and bank and agree with
    it now, else None."""
    with contextlib.suppress(OSError, ValueError, KeyError):
        with np.load(path, allow_pickle=False) as stored:
            key, vectors = str(stored["key"]), stored["vectors"]
        if key != bank_key(embedder.model_id):
            return None
        return agreeing(embedder, vectors, "shipped")
    return None


def agreeing(embedder: Embedder, vectors: np.ndarray, origin: str) -> np.ndarray | None:
    """`vectors` as float32 if they can be the bank's for this model: one finite unit
    vector per question (a file cut short or zeroed by a crash is not), and the CHECKED
    ones agree with the model in force now. Else None, the caller embeds the bank."""
    wanted = (len(OFFTOPIC_BANK), embedder.dimension)
    if vectors.shape != wanted or not np.issubdtype(vectors.dtype, np.floating):
        return None
    vectors = vectors.astype(np.float32)
    if not np.isfinite(vectors).all():
        return None
    # float16 storage keeps a unit vector's norm within ≈ 1e-3; 1e-2 allows that.
    if not np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-2):
        return None
    fresh = embedder.embed([OFFTOPIC_BANK[i] for i in CHECKED], lane="index")
    agreement = min(cosine(vectors[i], now) for i, now in zip(CHECKED, fresh, strict=True))
    if agreement >= AGREEMENT:
        return vectors
    log.info("the %s bank vectors disagree with the model (cosine %.4f)", origin, agreement)
    return None


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b)) / norms if norms > 0 else 0.0


def write(embedder: Embedder, path: Path = SHIPPED) -> None:
    """Embed the whole bank with `embedder` and store it where `shipped` reads it."""
    vectors = embedder.embed(list(OFFTOPIC_BANK), lane="index").astype(np.float16)
    with open(path, "wb") as out:
        np.savez_compressed(out, key=np.array(bank_key(embedder.model_id)), vectors=vectors)


if __name__ == "__main__":  # python -m ragd.query.bank_vectors (after changing the bank)
    from ragd.core.environment import apply_defaults
    from ragd.index.embedder import MiniLMEmbedder

    apply_defaults()
    write(MiniLMEmbedder(precision="float32"))
