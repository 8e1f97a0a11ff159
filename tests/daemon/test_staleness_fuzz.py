"""Random sequences of file-system operations under a live daemon, then the index compared
with the disk (`bench/staleness_fuzz.py`): the stress variant, a few seeds of short bursts
with `rag ingest`/`forget`, SIGHUP and SIGSTOP among them. Each burst must end with every
note on disk indexed with exactly its current tokens, nothing gone or ignored still
indexed, and no old token found, the daemon idle."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.staleness_fuzz import run_seed


@pytest.mark.stress
@pytest.mark.parametrize("seed", [101, 102, 103])
def test_random_bursts_leave_the_index_equal_to_the_disk(tmp_path: Path, seed: int) -> None:
    outcomes = run_seed(seed, 10, 12, tmp_path, daemon_ops=True, only=None)
    bad = [o for o in outcomes if o.problems]
    assert not bad, "\n".join(
        f"burst {o.burst}: " + "; ".join(o.ops) + "\n  " + "\n  ".join(o.problems) for o in bad
    )
