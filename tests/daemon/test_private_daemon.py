"""The one private-daemon helper the eval, the bench and the tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragd.core import environment
from ragd.harness.private_daemon import PrivateDaemon, PrivateDaemonError, isolated_env, wait_for


def test_isolated_env_keeps_nothing_of_the_users_ragd(tmp_path: Path) -> None:
    caller = {
        "PATH": "/usr/bin",
        "RAG_TOP_K": "9",
        "ANTHROPIC_API_KEY": "sk-secret",
        "NOTIFY_SOCKET": "/run/systemd/notify",
        "WATCHDOG_USEC": "1000",
        "HF_HUB_OFFLINE": "0",
    }
    env = isolated_env(tmp_path, caller)
    assert env["PATH"] == "/usr/bin"
    assert not [k for k in env if k.startswith(("RAG_", "ANTHROPIC_", "NOTIFY", "WATCHDOG"))]
    assert env["HOME"] == str(tmp_path / "home")
    assert env["XDG_RUNTIME_DIR"] == str(tmp_path / "run") and (tmp_path / "run").is_dir()
    assert all(env[k] == v for k, v in environment.DEFAULTS.items())  # offline, whatever set


def test_a_daemon_in_a_folder_keeps_everything_there(tmp_path: Path) -> None:
    daemon = PrivateDaemon.in_folder([tmp_path / "docs"], tmp_path, ["--log-level", "DEBUG"])
    assert daemon.data_dir == tmp_path / "data"
    assert daemon.env["RAG_SOCKET"] == str(tmp_path / "ragd.sock")
    assert daemon.log_path.parent == tmp_path and daemon.extra_args == ["--log-level", "DEBUG"]


def test_wait_for_returns_the_value_or_raises_the_callers_error() -> None:
    values = iter([0, "", "found"])
    assert wait_for(lambda: next(values), 5, "a value", interval=0.001) == "found"
    with pytest.raises(PrivateDaemonError, match="waiting for nothing"):
        wait_for(lambda: None, 0.01, "nothing", interval=0.001)
    with pytest.raises(AssertionError):
        wait_for(lambda: None, 0.01, "nothing", interval=0.001, error=AssertionError)
