"""The embedded vector store's database locked by another process while ragd searches.

attack41: `sqlite3 chroma.sqlite3` with `BEGIN EXCLUSIVE;` held (a backup tool, a user
poking at the file, a second ChromaDB client writing) made every hybrid search wait on
the lock: `rag search` beside a live daemon gave `ragd did not answer within 30 s`, and
the two search threads were held until the lock went. A vector query now waits at most
`QUERY_WAIT_S`; past it the search answers from BM25 and, while that query is still
stuck, the next ones do not queue behind it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ragd.index.dense import ChromaStore, StoreBusy
from tests.support.daemon import wait_for

HOLD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=1)
db.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.readline()  # until the test lets go
db.execute("COMMIT")
"""


def test_a_locked_store_answers_no_vectors_instead_of_waiting_for_the_lock(
    tmp_path: Path,
) -> None:
    store = ChromaStore(tmp_path / "chroma")
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(20, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.upsert([f"c{i:03d}#0" for i in range(20)], vectors)
    assert store.query(vectors[3], 1)[0][0] == "c003#0"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / "chroma" / "chroma.sqlite3")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert store.query(vectors[5], 1) == []  # no vectors: hybrid search uses BM25
        assert store.query(vectors[6], 1) == []  # the stuck one is not queued behind
        with pytest.raises(StoreBusy):  # a search's read of window vectors: the cache's
            store.vectors(["c001#0"])
        assert holder.poll() is None  # both came back while the lock was still held
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(60)
    # Back once the lock is gone and the stuck query has returned.
    wait_for(lambda: store.query(vectors[5], 1), 60, "the store to answer again")
    assert store.query(vectors[5], 1)[0][0] == "c005#0"
