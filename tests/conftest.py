"""Shared fixtures. The embedding model is loaded once per session (≈ 7 s)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd import environment
from tests.support.daemon import LIVE, REPO, Daemon, kill_leftovers
from tests.support.model_fixture import embedder  # noqa: F401 - re-exported fixture

environment.apply_defaults()

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


@pytest.fixture(autouse=True)
def _no_daemon_outlives_its_test() -> Iterator[None]:
    """A test that fails half-way skips its own stop(): kill what it started.

    Module- and session-scoped daemons are set up before this fixture and stay untouched.
    """
    started = len(LIVE)
    yield
    for daemon in LIVE[started:]:
        if daemon.proc is not None and daemon.proc.poll() is None:
            daemon.proc.kill()
            daemon.proc.wait(10)


@pytest.fixture(scope="session", autouse=True)
def _kill_leftover_daemons() -> Iterator[None]:
    yield
    kill_leftovers()


# CI runs must be reproducible: property tests use the same examples on every CI run,
# while local runs keep exploring new ones.
if os.environ.get("CI"):
    from hypothesis import settings as hypothesis_settings

    hypothesis_settings.register_profile("ci", derandomize=True, database=None)
    hypothesis_settings.load_profile("ci")
