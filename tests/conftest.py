"""Shared fixtures. The embedding model is loaded once per session (≈ 7 s)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import REPO, Daemon
from tests.support.model_fixture import embedder  # noqa: F401 - re-exported fixture

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SAMPLE_CORPUS = REPO / "sample_corpus"


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    target = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, target)
    return target


@pytest.fixture(scope="session")
def sample_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon over a private copy of sample_corpus, shared by the session's read-only tests."""
    tmp = tmp_path_factory.mktemp("sample")
    root = tmp / "sample_corpus"
    shutil.copytree(SAMPLE_CORPUS, root)
    daemon = Daemon(tmp, [root]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()
