"""Which answerer writes answers: the settings and keys that select it, the settings that
are refused, and the one signature every answerer has (no daemon, no model)."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest

from ragd.core.config import ApiKeys, ConfigError, Settings, load_settings
from ragd.core.vector_store import VectorStoreConfigError, from_settings
from ragd.query.answerers import (
    NO_ANTHROPIC_KEY,
    Answerer,
    Backend,
    KeylessAnswerer,
    build_answerer,
    choose_backend,
)
from ragd.query.claude import ClaudeAnswerer
from ragd.query.openai_chat import OpenAIAnswerer
from ragproto.errors import ModelAuthError
from tests.support.chunks import make_chunk

LOCAL = "http://127.0.0.1:11434/v1"
KEYED = ApiKeys(anthropic="sk-test-not-a-real-key")


def settings(**values: object) -> Settings:
    return Settings(**values)  # type: ignore[arg-type]


SERVER = {"openai_base_url": LOCAL, "openai_model": "m"}
CLAUDE = Backend("claude", "claude-sonnet-4-6")
EXTRACTIVE = Backend("extractive", "claude-sonnet-4-6")  # the model a key would enable


@pytest.mark.parametrize(
    ("values", "keys", "expected"),
    [
        ({}, ApiKeys(), EXTRACTIVE),
        ({}, KEYED, CLAUDE),
        (SERVER, ApiKeys(), Backend("openai", "m", LOCAL)),
        # auto prefers Claude when both are possible; a pinned value wins over auto's order
        (SERVER, KEYED, CLAUDE),
        (SERVER | {"answers": "openai"}, KEYED, Backend("openai", "m", LOCAL)),
        ({"answers": "extractive"}, KEYED, EXTRACTIVE),
        (
            {"answers": "claude"},
            ApiKeys(),
            Backend(CLAUDE.kind, CLAUDE.model, problem=NO_ANTHROPIC_KEY),
        ),
    ],
)
def test_auto_and_pinned_choices(
    values: dict[str, object], keys: ApiKeys, expected: Backend
) -> None:
    assert choose_backend(settings(**values, api_keys=keys)) == expected


def test_status_fields_and_keys_are_never_shown() -> None:
    keys = ApiKeys("sk-ant-secret", "sk-local-secret")
    assert "secret" not in repr(keys)
    backend = choose_backend(
        settings(answers="openai", openai_base_url=LOCAL, openai_model="m", api_keys=keys)
    )
    assert backend.as_json() == {"answers": "openai", "answer_model": "m", "answer_url": LOCAL}
    assert "secret" not in repr(backend.as_json())


def embed(texts: list[str]) -> np.ndarray:
    return np.ones((len(texts), 4), np.float32)  # never called below


def test_build_answerer_builds_the_chosen_one() -> None:
    assert isinstance(build_answerer(settings(api_keys=KEYED), embed), ClaudeAnswerer)
    local = settings(openai_base_url=LOCAL, openai_model="llama3.2", api_timeout_s=7.0)
    built = build_answerer(local, embed)
    assert isinstance(built, OpenAIAnswerer)
    assert (built.host, built.model, built.timeout_s) == (LOCAL, "llama3.2", 7.0)
    assert isinstance(build_answerer(settings(), embed), KeylessAnswerer)
    with pytest.raises(ModelAuthError, match="no ANTHROPIC_API_KEY"):
        build_answerer(settings(answers="claude"), embed)


def test_every_answerer_has_the_protocol_signature() -> None:
    wanted = inspect.signature(Answerer.answer)
    for cls in (ClaudeAnswerer, OpenAIAnswerer, KeylessAnswerer):
        assert inspect.signature(cls.answer) == wanted, cls.__name__


def test_keyless_answer_is_streamed_once_except_in_json_mode() -> None:
    def by_first_coordinate(texts: list[str]) -> np.ndarray:
        return np.array([[1.0, float(i)] for i, _ in enumerate(texts)], np.float32)

    keyless = KeylessAnswerer(by_first_coordinate)
    chunk = make_chunk(text="Return tickets are valid for 30 days from the date of travel.")
    deltas: list[str] = []
    answer = keyless.answer("How long are return tickets valid?", [chunk], on_delta=deltas.append)
    assert answer.mode == "extractive" and deltas == [answer.text]
    keyless.answer("How long?", [chunk], json_mode=True, on_delta=deltas.append)
    assert len(deltas) == 1


def config_error(tmp_path: Path, text: str) -> str:
    config = tmp_path / "config.toml"
    config.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(config, None, {"HOME": str(tmp_path)})
    return str(caught.value)


def test_bad_answer_settings_name_the_key(tmp_path: Path) -> None:
    assert "key 'answers' must be one of auto, claude" in config_error(
        tmp_path, 'answers = "gpt"\n'
    )
    assert "needs openai_base_url" in config_error(tmp_path, 'answers = "openai"\n')
    no_model = config_error(tmp_path, f'openai_base_url = "{LOCAL}"\n')
    assert "key 'openai_base_url': is set but openai_model is empty" in no_model
    assert "not an http(s)://host URL" in config_error(
        tmp_path, 'openai_base_url = "127.0.0.1:11434"\nopenai_model = "m"\n'
    )


def test_a_remote_server_needs_https_or_the_opt_in(tmp_path: Path) -> None:
    remote = 'openai_base_url = "http://gpu-box.lan:11434/v1"\nopenai_model = "m"\n'
    error = config_error(tmp_path, remote)
    assert "gpu-box.lan:11434/v1 is not loopback and lacks TLS (https://)" in error
    config = tmp_path / "ok.toml"
    for text in (
        remote + "allow_insecure_openai = true\n",
        'openai_base_url = "https://gpu-box.lan/v1"\nopenai_model = "m"\n',
        'openai_base_url = "http://localhost:8080/v1"\nopenai_model = "m"\n',
        'openai_base_url = "http://[::1]:8080/v1"\nopenai_model = "m"\n',
    ):
        config.write_text(text)
        assert load_settings(config, None, {"HOME": str(tmp_path)})[0].openai_model == "m"


def test_the_vector_store_keeps_its_stricter_rule() -> None:
    """One rule (network_policy.py), two callers: the store also wants an auth header."""
    with pytest.raises(VectorStoreConfigError, match=r"lacks TLS \(https://\) and an auth header"):
        from_settings("http://gpu-box.lan:8000", (), False)
    with pytest.raises(VectorStoreConfigError, match="not loopback and lacks an auth header"):
        from_settings("https://gpu-box.lan:8000", (), False)
    assert from_settings("https://gpu-box.lan:8000", ("Authorization: Bearer x",), False).url
    assert from_settings("http://127.0.0.1:8000", (), False).url == "http://127.0.0.1:8000"


def test_credentials_in_the_server_url_are_never_shown() -> None:
    # Found by attack: `rag status`, every error and the log showed user:password.
    url = "http://user:hunter2@127.0.0.1:11434/v1"
    backend = choose_backend(settings(openai_base_url=url, openai_model="m"))
    assert backend.url == LOCAL and "hunter2" not in repr(backend.as_json())
    assert OpenAIAnswerer(url, "m").host == LOCAL


def test_the_sdks_request_log_stays_quiet_at_info() -> None:
    # At INFO the openai SDK's HTTP library logs every request with its full URL.
    import logging

    from ragd.core.logs import set_level

    set_level("info")
    for name in ("httpx2", "openai"):
        assert not logging.getLogger(name).isEnabledFor(logging.INFO)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('openai_base_url = "http://127.0.0.1:11434/v1\\n"', "no spaces or control characters"),
        ('openai_base_url = " http://127.0.0.1:11434/v1"', "no spaces or control characters"),
        ('openai_base_url = "http://127.0.0.1:99999/v1"', "Port out of range"),
        ('openai_base_url = "http://u:hunter2@10.0.0.9/v1"', "http://10.0.0.9/v1 is not loopback"),
        ('openai_model = "llama\\n3.2"', "key 'openai_model': a model name has no control"),
    ],
)
def test_a_url_or_model_no_request_could_carry_fails_at_load(
    tmp_path: Path, value: str, said: str
) -> None:
    # Found by attack: these loaded, then every ask failed (an internal error for the
    # newline, "connection failed" for the space); a remote URL's error showed its password.
    defaults = {"openai_base_url": LOCAL, "openai_model": "m"}
    key = value.split(" = ")[0]
    text = "".join(f'{k} = "{v}"\n' for k, v in defaults.items() if k != key) + value + "\n"
    error = config_error(tmp_path, text)
    assert said in error and "hunter2" not in error


def test_every_api_retry_count_and_timeout_the_config_takes_builds_an_answerer(
    tmp_path: Path,
) -> None:
    """attack77: `api_max_retries = 11` and `api_timeout_s = 601` (up to a day) passed the
    config check, while the answerer takes at most 10 and 600: the daemon started and
    every `rag ask` with a key or a server was `internal error: ValueError`, a traceback
    in the log. The config now refuses what the answerer would, naming the key."""
    edges = {"api_max_retries": ("10", "11"), "api_timeout_s": ("600", "601")}
    for key, (taken, refused) in edges.items():
        error = config_error(tmp_path, f"{key} = {refused}\n")
        assert f"key '{key}' must be" in error and f"at most {taken}" in error, error
        config = tmp_path / "ok.toml"
        config.write_text(f"{key} = {taken}\n")
        values = load_settings(config, None, {"HOME": str(tmp_path)})[0]
        for built in (values, dataclasses.replace(values, **SERVER, answers="openai")):
            keyed = dataclasses.replace(built, api_keys=KEYED)
            assert isinstance(build_answerer(keyed, embed), ClaudeAnswerer | OpenAIAnswerer)
