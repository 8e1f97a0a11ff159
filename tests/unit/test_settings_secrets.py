"""The API keys are part of the loaded settings and never shown: a key planted in the
environment is found by the backend choice, and appears in none of the ways the daemon
formats its settings (repr, str, format, `public()`, `ragd config`, JSON, `rag status`,
systemd's STATUS= line, and the log lines of a reload at DEBUG)."""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
from pathlib import Path

import pytest

from ragd.app.service import Daemon, ReloadSource
from ragd.core.config import FIELDS, ApiKeys, LiveSettings, Secret, describe, load_settings
from ragd.query.answerers import choose_backend
from ragd.serve.server import Request

ANTHROPIC = "sk-ant-planted-4f1c9e"
OPENAI = "sk-local-planted-77ab02"
HEADER = "hdr-planted-d00d"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {
        "ANTHROPIC_API_KEY": ANTHROPIC,
        "OPENAI_API_KEY": OPENAI,
        "RAG_DATA_DIR": str(tmp_path / "data"),
        "RAG_SOCKET": f"ipc://{tmp_path / 'run' / 'ragd.sock'}",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return values


def assert_hidden(text: str) -> None:
    for secret in (ANTHROPIC, OPENAI, HEADER):
        assert secret not in text


def test_keys_are_loaded_with_the_settings_and_never_formatted(env: dict[str, str]) -> None:
    server = {"RAG_VECTOR_STORE": "http://127.0.0.1:8000"}  # headers need a server
    settings, origins = load_settings(
        environ=env | server | {"RAG_VECTOR_STORE_HEADERS": f"X-Token: {HEADER}"}
    )
    assert settings.vector_store_headers == (f"X-Token: {HEADER}",)
    keys = settings.api_keys
    assert (keys.anthropic.reveal(), keys.openai.reveal()) == (ANTHROPIC, OPENAI)
    assert choose_backend(settings).kind == "claude"  # the key is seen where it is used
    assert "api_keys" not in FIELDS  # no TOML key, flag or RAG_* variable
    shown = [
        repr(settings),
        str(settings),
        f"{settings}",
        repr(keys),
        f"{keys.anthropic} {keys.openai:>40}",
        repr(settings.public()),
        json.dumps(settings.public()),
        "\n".join(describe(settings, origins)),
        repr(copy.deepcopy(settings)),
    ]
    for text in shown:
        assert_hidden(text)
    # Not a way the daemon shows settings, but a deep copy keeps each key a Secret.
    copied = repr(dataclasses.asdict(settings)["api_keys"])
    assert ANTHROPIC not in copied and OPENAI not in copied
    assert "Secret(set)" in repr(keys)
    with pytest.raises(TypeError):
        json.dumps(dataclasses.asdict(settings)["api_keys"]["anthropic"])


def test_status_and_a_reload_show_no_key(
    env: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    settings, _ = load_settings(environ=env)
    daemon = Daemon(settings, ReloadSource())
    try:
        assert daemon.startup.components is None  # what status says before loading
        status = daemon.handlers.status(Request(1, "status", {}))
        assert status["answers"] == "claude"
        assert_hidden(json.dumps(status))
        assert_hidden(daemon.health.status_line())
        caplog.set_level(logging.DEBUG, logger="ragd")
        daemon.reload()
        assert "configuration reloaded" in caplog.text
        assert "effective configuration" in caplog.text
        assert_hidden(caplog.text)
        assert daemon.live.current.api_keys.anthropic.reveal() == ANTHROPIC
    finally:
        daemon.server.close()


def test_a_reload_is_one_replacement_every_reader_sees(env: dict[str, str]) -> None:
    first, _ = load_settings(environ=env)
    live = LiveSettings(first)
    fresh = dataclasses.replace(first, top_k=9)
    assert live.replace(fresh) is first
    assert live.current is fresh and live.current.top_k == 9


def test_plain_strings_become_secrets() -> None:
    keys = ApiKeys("a-key")  # type: ignore[arg-type]
    assert isinstance(keys.anthropic, Secret) and keys.anthropic.reveal() == "a-key"
    assert not keys.openai and "a-key" not in repr(keys)
