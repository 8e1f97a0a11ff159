"""The real embedding model, loaded once per test session (loading takes ≈ 7 s).

Register the fixture in tests/conftest.py with
`from tests.support.model_fixture import embedder  # noqa: F401`. Tests that would rather
not depend on that can call `shared_embedder()` directly: both hand out the same instance.
"""

from __future__ import annotations

import functools
import gc
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder


@functools.cache
def shared_embedder() -> MiniLMEmbedder:
    from ragd.index.embedder import MiniLMEmbedder

    model = MiniLMEmbedder()
    freeze_what_lives()  # the model and what its load imported: kept for the session
    return model


def freeze_what_lives() -> None:
    """Move every object alive now out of the cyclic collector's reach (gc.freeze), after
    collecting what is garbage already. A pytest worker holds the model, torch, chromadb
    and the suite's test modules (≈ 0.5-1 million objects) for its whole life, and each
    full collection walked them all again: ≈ 7 % of tests/unit's CPU. Objects made later,
    every test's own among them, are collected as before."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return shared_embedder()
