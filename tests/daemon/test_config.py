"""Configuration: defaults ← TOML file ← RAG_* env ← flags, and errors that name the culprit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ragd.core import timings
from ragd.core.config import (
    FIELDS,
    MIN_RESCAN_S,
    ConfigError,
    Settings,
    config_file,
    env_name,
    load_settings,
    reference_markdown,
    unknown_env,
)
from ragd.core.vector_store import OPEN_DEADLINE_ENV, OPEN_DEADLINE_S, open_deadline_s
from ragd.ingest.watcher import ROOT_CHECK_INTERVAL_S
from tests.support.commands import run
from tests.support.daemon import BIN, REPO, base_env

DOC = REPO / "README.md"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


def test_precedence_defaults_file_env_flags(tmp_path: Path) -> None:
    config = write(
        tmp_path / "config.toml",
        "support_floor = 0.5\ntop_k = 7\ncandidates = 30\nlog_level = 'warning'\n",
    )
    env = env_for(tmp_path, RAG_TOP_K="9", RAG_CANDIDATES="40")
    settings, origins = load_settings(config, {"candidates": 50}, env)

    assert settings.debounce_ms == Settings().debounce_ms
    assert origins["debounce_ms"] == "default"
    assert settings.support_floor == 0.5
    assert origins["support_floor"] == f"file {config}"
    assert settings.log_level == "WARNING"  # normalised
    assert settings.top_k == 9
    assert origins["top_k"] == "env RAG_TOP_K"
    assert settings.candidates == 50
    assert origins["candidates"] == "flag --candidates"


def test_empty_env_and_none_flags_do_not_override(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", "top_k = 3\n")
    settings, origins = load_settings(
        config, {"top_k": None, "roots": []}, env_for(tmp_path, RAG_TOP_K="")
    )
    assert settings.top_k == 3
    assert origins["top_k"].startswith("file ")


def test_default_file_location_and_rag_config(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    write(xdg / "ragd" / "config.toml", "top_k = 4\n")
    settings, _ = load_settings(None, None, env_for(tmp_path, XDG_CONFIG_HOME=str(xdg)))
    assert settings.top_k == 4

    other = write(tmp_path / "other.toml", "top_k = 6\n")
    env = env_for(tmp_path, XDG_CONFIG_HOME=str(xdg), RAG_CONFIG=str(other))
    assert config_file(None, env) == (other, True)
    assert load_settings(None, None, env)[0].top_k == 6
    # --config beats RAG_CONFIG
    assert load_settings(xdg / "ragd" / "config.toml", None, env)[0].top_k == 4
    # no file at the default place is fine; a named file that is missing is not
    assert load_settings(None, None, env_for(tmp_path))[0].top_k == Settings().top_k
    with pytest.raises(ConfigError, match=r"missing\.toml: config file not found"):
        load_settings(None, None, env_for(tmp_path, RAG_CONFIG=str(tmp_path / "missing.toml")))


def test_unknown_key_names_key_and_file(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", "top_k = 5\nsuport_floor = 0.3\n")
    with pytest.raises(ConfigError) as info:
        load_settings(config, None, env_for(tmp_path))
    message = str(info.value)
    assert str(config) in message
    assert "'suport_floor'" in message
    assert "support_floor" in message  # the known keys are listed


@pytest.mark.parametrize(
    ("line", "key", "want"),
    [
        ("top_k = 'five'", "top_k", "an integer"),
        ("top_k = '5'", "top_k", "an integer"),
        ("top_k = 2.5", "top_k", "an integer"),
        ("support_floor = true", "support_floor", "a number"),
        ("follow_symlinks = 'maybe'", "follow_symlinks", "a boolean"),
        ("roots = 'notes'", "roots", "a list of strings"),
        ("include = [1, 2]", "include", "a list of strings"),
        ("model = 4", "model", "a string"),
        ("log_level = 'loud'", "log_level", "one of DEBUG"),
        ("embed_precision = 'int8'", "embed_precision", "one of auto"),
        ("top_k = 0", "top_k", "from 1 to 50"),
        ("shutdown_timeout_s = 0", "shutdown_timeout_s", "greater than 0"),
        ("support_floor = 1.5", "support_floor", "between -1 and 1"),
        ("support_floor = nan", "support_floor", "between -1 and 1"),
        # Values a start accepted but that broke things later: int(inf) failing the start-up
        # with a traceback, the parse worker unable to set its limit (every file skipped and
        # held), SIGTERM ending in a traceback, a panic in tantivy on every search.
        ("candidates = 4611686018427387904", "candidates", "from 1 to 1000"),
        ("max_file_mb = inf", "max_file_mb", "a number greater than 0 (not inf)"),
        ("max_text_mb = nan", "max_text_mb", "a number greater than 0 (not inf)"),
        # Attack18: finite, yet its bytes are inf (every file failed with OverflowError);
        # a debounce of 10^20 ms (no change indexed again).
        ("max_file_mb = 1e308", "max_file_mb", "a number greater than 0 (not inf), at most"),
        ("max_text_mb = 1e300", "max_text_mb", "a number greater than 0 (not inf), at most"),
        ("debounce_ms = 99999999999999999999", "debounce_ms", "at most 86400000 (a day)"),
        ("parse_memory_mb = 9223372036854775807", "parse_memory_mb", "from 64 to 1048576"),
        ("api_timeout_s = inf", "api_timeout_s", "greater than 0 and at most 600"),
        # attack77: taken, and every `rag ask` with a key was `internal error: ValueError`
        # (the answerer takes at most 600 s and 10 retries); a model name holding a newline
        # (`ragd config` printed it as two lines, no longer TOML), as openai_model is checked
        ("api_timeout_s = 601", "api_timeout_s", "greater than 0 and at most 600"),
        ("api_max_retries = 11", "api_max_retries", "at most 10"),
        ('model = "claude\\nx"', "model", "a Claude model name"),
        # attack77: taken; `rag search` used it, while every `rag ask` and `rag chat`
        # question met the wire's own bound for the default it was given: "'top_k' must be
        # an integer from 1 to 50" (exit 5), an argument the user never passed
        ("top_k = 100000", "top_k", "from 1 to 50"),
        ("shutdown_timeout_s = 1e300", "shutdown_timeout_s", "greater than 0 and at most"),
        ("disk_deadline_s = 0", "disk_deadline_s", "greater than 0 and at most 86400"),
        # The watcher looks at its roots once a second: a shorter period rescanned once a
        # second while `rag status` said "a rescan every 0.1 s".
        ("unwatched_rescan_s = 0", "unwatched_rescan_s", "at least 1 and at most 86400"),
        ("unwatched_rescan_s = 0.1", "unwatched_rescan_s", "at least 1 and at most 86400"),
        ("unwatched_rescan_s = inf", "unwatched_rescan_s", "at least 1 and at most 86400"),
    ],
)
def test_wrong_type_names_key_and_file(tmp_path: Path, line: str, key: str, want: str) -> None:
    config = write(tmp_path / "config.toml", line + "\n")
    with pytest.raises(ConfigError) as info:
        load_settings(config, None, env_for(tmp_path))
    message = str(info.value)
    assert message.startswith(f"{config}: key '{key}' must be {want}"), message


def test_the_shortest_rescan_period_is_one_the_watcher_keeps() -> None:
    """`unwatched_rescan_s` is checked by the watcher's once-a-second look at its roots:
    the least value accepted is one it can keep."""
    assert MIN_RESCAN_S >= ROOT_CHECK_INTERVAL_S


def test_bad_env_value_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="environment variable RAG_TOP_K: key 'top_k'"):
        load_settings(None, None, env_for(tmp_path, RAG_TOP_K="lots"))
    with pytest.raises(ConfigError, match="environment variable RAG_LOG_LEVEL: key 'log_level'"):
        load_settings(None, None, env_for(tmp_path, RAG_LOG_LEVEL="chatty"))


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", "top_k = = 3\n")
    with pytest.raises(ConfigError) as info:
        load_settings(config, None, env_for(tmp_path))
    assert str(info.value).startswith(f"{config}: not valid TOML")


def test_env_lists_and_booleans(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    env = env_for(
        tmp_path,
        RAG_ROOTS=f"{a}:{b}",
        RAG_EXCLUDE="drafts/*, *.log",
        RAG_FOLLOW_SYMLINKS="yes",
        RAG_DATA_DIR="~/idx",
    )
    settings, _ = load_settings(None, None, env)
    assert settings.roots == (str(a), str(b))
    assert settings.exclude == ("drafts/*", "*.log")
    assert settings.follow_symlinks is True
    assert settings.data_dir == str(Path("~/idx").expanduser())


def test_unknown_rag_variables_are_reported() -> None:
    env = {"RAG_SUPORT_FLOOR": "0.3", "RAG_CONFIG": "x", "RAG_TOP_K": "3", "PATH": "/bin"}
    assert unknown_env(env) == ["RAG_SUPORT_FLOOR"]


def test_the_vector_store_open_deadline_is_an_environment_variable_checked_at_start(
    tmp_path: Path,
) -> None:
    """RAG_VECTOR_STORE_OPEN_S (for tests and operators, not a settings key): start-up's
    wait for a vector store server's open; a bad value is one line when settings load."""
    assert open_deadline_s({}) == OPEN_DEADLINE_S == 10.0
    assert open_deadline_s({OPEN_DEADLINE_ENV: "2.5"}) == 2.5
    assert unknown_env({OPEN_DEADLINE_ENV: "2"}) == []
    for bad in ("0", "-1", "nan", "inf", "soon", "3601"):
        with pytest.raises(ConfigError, match=f"{OPEN_DEADLINE_ENV} must be a number of"):
            load_settings(None, None, env_for(tmp_path, **{OPEN_DEADLINE_ENV: bad}))


def test_every_key_is_documented_with_default_and_variable() -> None:
    """README.md carries the table `ragd config --reference` prints, verbatim."""
    text = DOC.read_text(encoding="utf-8")
    assert reference_markdown() in text, "regenerate the table with `ragd config --reference`"
    for key in FIELDS:
        assert f"`{key}`" in text and f"`{env_name(key)}`" in text


def run_ragd(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run([BIN / "ragd", *args], env, timeout=60)


def test_a_data_dir_that_is_not_a_folder_is_one_line(tmp_path: Path) -> None:
    """`--data-dir` naming a file, a FIFO, or a folder under a file: `ragd serve` and `ragd
    reset` printed a 60-line traceback ending in FileExistsError / NotADirectoryError.
    Each is now one line naming the data dir; nothing is created or removed."""
    env = base_env(tmp_path)
    root = tmp_path / "docs"
    root.mkdir()
    plain = write(tmp_path / "notes.txt", "not an index\n")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for data_dir, why in (
        (plain, "is not a folder"),
        (fifo, "is not a folder"),
        (plain / "index", "Not a directory"),
    ):
        socket = ("--socket", str(tmp_path / "s"))
        for args in (("serve", str(root), *socket), ("reset",)):
            result = run_ragd(env, *args, "--data-dir", str(data_dir))
            lines = result.stderr.strip().splitlines()
            assert result.returncode in (1, 2), result.stderr
            assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
            assert f"data dir {data_dir}" in lines[0] and why in lines[0], lines[0]
    assert plain.read_text() == "not an index\n"


def test_ragd_config_prints_values_and_origins_never_the_key(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    secret = "sk-ant-api03-do-not-print-me"
    config = write(Path(env["XDG_CONFIG_HOME"]) / "ragd" / "config.toml", "support_floor = 0.5\n")
    env |= {"ANTHROPIC_API_KEY": secret, "RAG_TOP_K": "8"}
    result = run_ragd(env, "config")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert secret not in out + result.stderr
    assert "# ANTHROPIC_API_KEY: set" in out
    assert f"# config file: {config}" in out
    lines = {line.split(" = ")[0]: line for line in out.splitlines() if " = " in line}
    assert lines["support_floor"].startswith("support_floor = 0.5  # file ")
    assert lines["top_k"] == "top_k = 8  # env RAG_TOP_K"
    assert lines["debounce_ms"].endswith("# default (RAG_DEBOUNCE_MS)")
    assert set(lines) == set(FIELDS)


def test_serve_refuses_a_wrong_testing_timings_variable_in_one_line(tmp_path: Path) -> None:
    """RAGD_TEST_TIMINGS (core/timings.py, the tests' seam) is checked at start: a wrong
    name or number is one line and exit 2, before anything is made, never a traceback."""
    root = tmp_path / "docs"
    root.mkdir()
    for bad, said in (
        ("read_stall_s=soon", "read_stall_s must be a number of seconds greater than 0"),
        ("read_stal_s=3", "no timing is called 'read_stal_s'"),
    ):
        env = base_env(tmp_path) | {timings.ENV: bad}
        data = tmp_path / "d"
        result = run_ragd(
            env, "serve", str(root), "--data-dir", str(data), "--socket", str(tmp_path / "s")
        )
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1, result.stderr
        assert f"environment variable {timings.ENV}: " in lines[0] and said in lines[0], lines
        assert not data.exists()  # nothing was touched


def test_serve_refuses_a_bad_config_naming_key_and_file(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    config = write(tmp_path / "bad.toml", "top_k = 5\nfloor = 0.3\n")
    result = run_ragd(env, "serve", "--config", str(config), "--data-dir", str(tmp_path / "d"))
    assert result.returncode == 2
    assert f"{config}: unknown key 'floor'" in result.stderr
    assert not (tmp_path / "d").exists()  # nothing was touched

    config.write_text("top_k = 'many'\n")
    result = run_ragd(env, "serve", "--config", str(config), "--data-dir", str(tmp_path / "d"))
    assert result.returncode == 2
    assert f"{config}: key 'top_k' must be an integer" in result.stderr
