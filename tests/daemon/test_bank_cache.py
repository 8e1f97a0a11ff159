"""A damaged cache of the off-subject bank's vectors never stops the gate floor being learned.

The cache lives in the user's cache folder ($XDG_CACHE_HOME/ragd): a crash can leave it
empty (it is written, then renamed, without a sync), and anything may be put there. Real
`ragd serve` processes: one starts over an empty cache file, one over a file of unit
vectors that are not the model's; each learns the floor from the model's own vectors,
says so in one log line, and writes the cache again.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ragd.index import machine
from ragd.index.embedder import MODEL_ID
from ragd.query.bank_vectors import bank_key
from ragd.query.offtopic_bank import OFFTOPIC_BANK
from tests.support.daemon import Daemon, wait_for

pytestmark = pytest.mark.slow

DIMENSION = 384  # MiniLM's


def learned_on(daemon: Daemon, chunks: int) -> dict:  # type: ignore[type-arg]
    """The floor once it has been learned on an index of `chunks` chunks."""

    def learned() -> dict | None:  # type: ignore[type-arg]
        floor = daemon.call("stats")["retrieval"]["floor"]
        current = floor["origin"] == "learned" and f"measured on {chunks} chunks" in floor["detail"]
        return floor if current else None

    return wait_for(learned, 90, f"the gate floor learned on {chunks} chunks", interval=0.2)  # type: ignore[no-any-return]


def test_an_empty_or_foreign_bank_cache_is_replaced_by_the_models_vectors(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "pumps.md").write_text(
        "# Pumps\n\nPump PX-7 is greased every spring by the night crew.\n"
    )
    d = Daemon(tmp_path, [root])
    cache = tmp_path / "home" / ".cache" / "ragd" / f"offtopic-bank-{bank_key(MODEL_ID)}.npy"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"")  # what a power loss after the rename can leave

    d.start()
    chunks = d.wait_idle()["chunks"]
    learned_on(d, chunks)
    good = np.load(cache)
    assert good.shape == (len(OFFTOPIC_BANK), DIMENSION)
    assert "ignoring the unreadable cached off-subject bank" in d.log()
    assert "Traceback" not in d.log()
    assert d.stop() == 0

    # Unit vectors of the right shape that are not the model's (another file put there).
    rng = np.random.default_rng(7)
    foreign = rng.standard_normal(good.shape).astype(np.float32)
    np.save(cache, foreign / np.linalg.norm(foreign, axis=1, keepdims=True))
    (root / "kelp.md").write_text("# Kelp\n\nKelp forests grow off the pier at berth nine.\n")
    d.start()
    more = d.wait_idle()["chunks"]
    assert more > chunks
    learned_on(d, more)
    assert "vectors are not the model's; embedding them again" in d.log()
    assert np.allclose(np.load(cache), good, atol=1e-3)
    assert "Traceback" not in d.log()
    assert d.stop() == 0


def test_fifos_in_the_cache_folder_never_hold_the_daemon(tmp_path: Path) -> None:
    """A FIFO where the precision decision and the bank's vectors are cached (both read at
    start-up, the first before READY): reading one waited for a writer for ever, so the
    daemon never became ready. Each is now one warning; the daemon serves and learns.
    A CPU without native bfloat16 decides float32 without reading the precision cache
    (index/precision.py), so there only the bank's FIFO is met."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "pumps.md").write_text("# Pumps\n\nPump PX-7 is greased every spring.\n")
    d = Daemon(tmp_path, [root], env={"RAG_EMBED_PRECISION": "auto"})
    folder = tmp_path / "home" / ".cache" / "ragd"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "precision.json")
    os.mkfifo(folder / f"offtopic-bank-{bank_key(MODEL_ID)}.npy")
    d.start()
    chunks = d.wait_idle()["chunks"]
    assert d.sources("greased") == ["pumps.md"]
    learned_on(d, chunks)
    log = d.log()
    met = machine.this_cpu().native_bf16
    assert ("precision.json is not a regular file" in log) == met
    assert "ignoring the unreadable cached off-subject bank" in log
    assert "Traceback" not in log
    assert d.stop() == 0
