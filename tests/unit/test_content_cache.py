"""tests/support/content_cache.py: a kept result is used exactly when nothing it is
computed from changed (the caller's inputs, the daemon's code, the installed packages)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support import content_cache


def _config(folder: Path) -> Any:
    def mkdir(name: str) -> Path:
        (folder / name).mkdir(parents=True, exist_ok=True)
        return folder / name

    return SimpleNamespace(cache=SimpleNamespace(mkdir=mkdir))


def test_a_result_is_kept_for_the_same_inputs_and_rebuilt_for_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run's own off switch (RAGD_TEST_CONTENT_CACHE=0) is not this test's subject.
    monkeypatch.delenv("RAGD_TEST_CONTENT_CACHE", raising=False)
    config = _config(tmp_path)
    built: list[str] = []

    def build(value: str) -> Any:
        def run() -> dict[str, str]:
            built.append(value)
            return {"value": value}

        return run

    assert content_cache.cached(config, "x", ["a"], build("a")) == {"value": "a"}
    assert content_cache.cached(config, "x", ["a"], build("a")) == {"value": "a"}
    assert built == ["a"]  # the second came from the cache
    assert content_cache.cached(config, "x", ["b"], build("b")) == {"value": "b"}
    assert built == ["a", "b"]
    assert len(list((tmp_path / content_cache.FOLDER).glob("x-*.pickle"))) == 1  # one per name


def test_no_cache_when_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGD_TEST_CONTENT_CACHE", "0")
    config = _config(tmp_path)
    built: list[int] = []
    for _ in range(2):
        content_cache.cached(config, "x", ["a"], lambda: built.append(1))
    assert built == [1, 1]
    assert not (tmp_path / content_cache.FOLDER).exists()


def test_a_change_to_any_file_of_the_code_changes_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = tmp_path / "daemon" / "ragd" / "ingest"
    code.mkdir(parents=True)
    (code / "chunking.py").write_text("CHUNKER_VERSION = 1\n")
    monkeypatch.setattr(content_cache, "REPO", tmp_path)
    monkeypatch.setattr(content_cache, "CODE", ("daemon/ragd",))

    def key() -> str:
        content_cache.code_digest.cache_clear()
        return content_cache.key_of("eval", ["corpus digest"])

    first = key()
    assert key() == first
    (code / "chunking.py").write_text("CHUNKER_VERSION = 2\n")
    assert key() != first
    (code / "chunking.py").write_text("CHUNKER_VERSION = 1\n")
    assert key() == first
    (code / "new.py").write_text("")
    assert key() != first
    content_cache.code_digest.cache_clear()
