"""Shared fixtures. The embedding model is loaded once per session (≈ 7 s)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.core import environment
from tests.support import schedule
from tests.support.daemon import LIVE, REPO, Daemon, close_fork_server, kill_leftovers
from tests.support.model_fixture import embedder, freeze_what_lives  # noqa: F401 - the fixture re-exported

environment.apply_defaults()

# `RAGD_CPU_PER_FILE=FOLDER make test`: CPU seconds per test file, daemons included.
if os.environ.get("RAGD_CPU_PER_FILE"):
    pytest_plugins = ["tests.support.cpu_per_file"]

SAMPLE_CORPUS = REPO / "sample_corpus"

# This run's private temp folder (see pytest_configure) and whether the run passed.
_PRIVATE_TMP = pytest.StashKey[Path]()
_EXIT_STATUS = pytest.StashKey[int]()


@pytest.hookimpl(tryfirst=True)  # before pytest's tmpdir plugin reads --basetemp
def pytest_configure(config: pytest.Config) -> None:
    """Give each run a temp folder of its own, made private (0700) under a fresh name.

    pytest's default, /tmp/pytest-of-<user>/pytest-N, is shared by every run of that user
    (and everyone here runs as root), and each run prunes the older ones. xdist workers
    are given a folder inside the controller's, and an explicit --basetemp is kept.
    """
    if config.option.basetemp is not None or hasattr(config, "workerinput"):
        return
    private = Path(tempfile.mkdtemp(prefix="ragd-pytest-", dir=tmp_base()))
    config.stash[_PRIVATE_TMP] = private
    # A folder inside it: pytest deletes and recreates a given basetemp, and the fresh,
    # private name must not be released while it does.
    config.option.basetemp = str(private / "t")


# RAGD_TEST_TMPDIR=DIR: the run's folders (indexes, ChromaDB, tantivy, the daemons' data
# dirs) under DIR instead of the system's temp folder, e.g. /dev/shm: a tmpfs returns from
# every sync at once, which shortened the in-process index tests while other work loaded
# this machine's disk and made no difference on a quiet one (docs/performance.md, "The
# test suite"). A failed run keeps its folders there, in memory on a tmpfs.
SHM = Path("/dev/shm")


def tmp_base() -> str | None:
    """RAGD_TEST_TMPDIR when set, else None (the system's temp folder: $TMPDIR or /tmp)."""
    return os.environ.get("RAGD_TEST_TMPDIR") or None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest test files first, so the short ones even out xdist's workers at the end
    (tests/support/schedule.py; `make test` keeps the order with --no-loadscope-reorder).
    Every worker collects the same order: xdist requires it."""
    items[:] = schedule.longest_files_first(items, schedule.file_seconds())


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection left (the test modules, their rewritten asserts, the stack they
    import) lives for the whole run: out of the collector's walks from here on."""
    freeze_what_lives()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    private = config.stash.get(_PRIVATE_TMP, None)
    if private is not None and exitstatus != 0:
        terminalreporter.write_line(f"this run's temp folders are kept in {private}")
        if private.is_relative_to(SHM):
            terminalreporter.write_line(f"(in memory: `rm -rf {private}` once looked at)")


def pytest_unconfigure(config: pytest.Config) -> None:
    """A run that passed leaves nothing behind; a failed one keeps its folders to look at."""
    private = config.stash.get(_PRIVATE_TMP, None)
    if private is not None and config.stash.get(_EXIT_STATUS, 1) == 0:
        shutil.rmtree(private, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def private_user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """In-process code caches per-machine results in $XDG_CACHE_HOME/ragd (the precision
    decision, the off-subject bank's vectors): tests keep theirs out of the real one."""
    folder = tmp_path_factory.mktemp("xdg-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


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
    # After every test that used it (bad requests and refused roots among them): a clean stop.
    assert daemon.stop() == 0, daemon.log_tail()


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
    close_fork_server()


# CI runs must be reproducible: property tests use the same examples on every CI run,
# while local runs keep exploring new ones.
if os.environ.get("CI"):
    from hypothesis import settings as hypothesis_settings

    hypothesis_settings.register_profile("ci", derandomize=True, database=None)
    hypothesis_settings.load_profile("ci")
