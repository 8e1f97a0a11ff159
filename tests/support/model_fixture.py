"""The real embedding model, loaded once per test session (loading takes ≈ 7 s).

Register the fixture in tests/conftest.py with
`from tests.support.model_fixture import embedder  # noqa: F401`. Tests that would rather
not depend on that can call `shared_embedder()` directly: both hand out the same instance.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder


@functools.cache
def shared_embedder() -> MiniLMEmbedder:
    from ragd.index.embedder import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return shared_embedder()
