"""Every default lives in the settings; `stats` reports what the owning modules use."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ragd.cli.systemd_unit import spec_for_installation
from ragd.core import environment
from ragd.core.config import Settings, default
from ragd.index import lexical
from ragd.index.embedder import DIMENSION, MAX_TOKENS
from ragd.ingest.parse_pool import ParseLimits
from ragd.ingest.windows import make_windows
from ragd.ingest.work_queue import WorkQueue
from ragd.query import fusion
from ragd.query.claude import ClaudeAnswerer
from ragd.query.retrieval import Retriever
from ragproto.protocol import DEFAULT_MAX_MESSAGE_BYTES
from tests.support.daemon import Daemon


def keyword_default(func: Callable[..., Any], name: str) -> Any:
    return inspect.signature(func).parameters[name].default


def test_components_take_their_defaults_from_the_settings() -> None:
    settings = Settings()
    assert keyword_default(Retriever.search, "top_k") == settings.top_k
    assert keyword_default(ClaudeAnswerer, "model") == settings.model
    assert keyword_default(ClaudeAnswerer, "timeout_s") == settings.api_timeout_s
    assert keyword_default(ClaudeAnswerer, "max_retries") == settings.api_max_retries
    assert keyword_default(ClaudeAnswerer, "budget_tokens") == settings.context_budget_tokens
    assert WorkQueue().debounce_s == settings.debounce_ms / 1000
    limits = ParseLimits()
    assert limits.timeout_s == settings.parse_timeout_s
    assert limits.memory_mb == settings.parse_memory_mb
    assert limits.max_text_chars == settings.max_text_chars
    shutdown = keyword_default(spec_for_installation, "shutdown_timeout_s")
    assert shutdown == settings.shutdown_timeout_s
    assert settings.max_message_bytes == DEFAULT_MAX_MESSAGE_BYTES
    assert default("data_dir") == settings.data_dir  # a default_factory is called
    assert keyword_default(make_windows, "max_tokens") == MAX_TOKENS


def test_environment_defaults_give_way_to_the_user() -> None:
    environ = {"HF_HUB_OFFLINE": "0"}
    environment.apply_defaults(environ)
    assert environ["HF_HUB_OFFLINE"] == "0"  # set on purpose: kept
    assert environ["TOKENIZERS_PARALLELISM"] == environment.DEFAULTS["TOKENIZERS_PARALLELISM"]
    assert set(environ) == set(environment.DEFAULTS)


def test_stats_reports_what_the_owning_modules_use(sample_daemon: Daemon) -> None:
    stats = sample_daemon.call("stats")
    assert stats["lexical"]["tokenizer"] == lexical.TOKENIZER
    assert stats["lexical"]["bm25"] == {"k1": lexical.BM25_K1, "b": lexical.BM25_B}
    assert stats["retrieval"]["fusion"] == fusion.describe()
    assert str(fusion.RRF_K) in stats["retrieval"]["fusion"]
    assert stats["embedding"]["dimension"] == DIMENSION
    assert stats["embedding"]["max_tokens"] == MAX_TOKENS
    assert f"≤ {MAX_TOKENS} word pieces" in stats["chunking"]["windows"]
    assert stats["retrieval"]["candidates"] == Settings().candidates
    assert stats["vectors"] > 0 and len(stats["collection"]) > 0
