"""The systemd user unit: the template, `ragd install-service`, and systemd's own verdict."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from ragd.cli.systemd_unit import ENABLE_COMMAND, UnitSpec, render, unit_path
from ragd.core.config import Settings
from ragd.core.exit_codes import NOT_FIXED_BY_RESTART, ServeExit
from ragd.index import machine_cache
from tests.support.daemon import BIN, REPO, base_env

TEMPLATE = REPO / "systemd" / "ragd.service"
# This installation's own executable under /tmp (a clone CI made in /tmp) turns PrivateTmp
# off by itself: a private /tmp would hide the program the unit starts.
INSTALLED_UNDER_TMP = any(
    (BIN / "ragd").resolve().is_relative_to(tmp) for tmp in ("/tmp", "/var/tmp")
)
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def service_section(text: str) -> dict[str, list[str]]:
    """Unit keys → every value given (a unit may repeat keys, unlike an ini file)."""
    values: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            values.setdefault(f"{section}.{key}", []).append(value)
    return values


def seconds(value: str) -> float:
    return float(value.removesuffix("s"))


def verify(unit: Path, tmp_path: Path) -> str:
    """`systemd-analyze --user verify`; any output at all is a finding.

    XDG_RUNTIME_DIR is a short directory of its own (mkdtemp makes it 0700): systemd loads
    the user's socket units, whose paths live under it (gnupg/S.gpg-agent.browser), and an
    AF_UNIX path must fit in 108 bytes, which a deep tmp_path may not (pytest-xdist puts
    one more level, popen-gwN, in it): "File name too long" would then be a finding."""
    assert ANALYZE is not None
    run = Path(tempfile.mkdtemp(prefix="ragd-run-"))
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(run)}
    try:
        result = subprocess.run(
            [ANALYZE, "--user", "verify", str(unit)], env=env, capture_output=True, text=True
        )
    finally:
        shutil.rmtree(run, ignore_errors=True)
    return (result.stdout + result.stderr).strip() + ("" if result.returncode == 0 else " (rc)")


def test_repository_template_is_the_default_rendering() -> None:
    assert TEMPLATE.read_text(encoding="utf-8") == render(UnitSpec())


def test_template_says_what_the_issue_asks() -> None:
    unit = service_section(TEMPLATE.read_text(encoding="utf-8"))
    one = {key: values[-1] for key, values in unit.items()}
    assert one["Service.Type"] == "notify"
    assert one["Service.ExecStart"] == "%h/.local/bin/ragd serve"
    assert one["Service.Restart"] == "on-failure"
    assert seconds(one["Service.WatchdogSec"]) > 0
    # systemd must never SIGKILL a shutdown that ragd itself would finish in time
    assert seconds(one["Service.TimeoutStopSec"]) > Settings().shutdown_timeout_s + 5
    assert one["Service.EnvironmentFile"] == "-%h/.config/ragd/env"
    assert one["Service.NoNewPrivileges"] == "yes"
    assert one["Service.ProtectSystem"] == "strict"
    assert one["Service.ReadWritePaths"].split() == ["%h/.local/share/ragd", "%t/ragd"]
    assert one["Service.PrivateTmp"] == "yes"  # the default socket is in $XDG_RUNTIME_DIR
    assert one["Service.RuntimeDirectory"] == "ragd"
    # ProtectSystem=strict makes the home read-only but for ReadWritePaths: the per-machine
    # cache ragd writes ($XDG_CACHE_HOME/ragd, the folder a user manager's CacheDirectory=
    # names) must be one, or every start decides the embedding precision again.
    assert one["Service.CacheDirectory"] == machine_cache.cache_dir().name == "ragd"
    assert one["Install.WantedBy"] == "default.target"


def test_restart_is_prevented_for_exactly_the_codes_a_restart_cannot_fix() -> None:
    """`ragd serve` exits 2 (bad configuration, damaged store) or 3 (data dir or socket
    held): systemd must not loop on those, and must still retry 1 (a failure that may pass)."""
    unit = service_section(TEMPLATE.read_text(encoding="utf-8"))
    prevented = [int(code) for code in unit["Service.RestartPreventExitStatus"][-1].split()]
    assert sorted(prevented) == sorted(NOT_FIXED_BY_RESTART)
    assert set(prevented) == {ServeExit.NEEDS_FIX, ServeExit.HELD} == {2, 3}
    assert ServeExit.FAILED not in prevented and ServeExit.OK not in prevented


def away_from_tmp(tmp_path: Path) -> dict[str, str]:
    """base_env with HOME and every XDG folder outside /tmp (never made: `--print` writes
    nothing). base_env's HOME is tmp_path, itself under /tmp, which puts every default
    path of the unit there and turns PrivateTmp off by itself."""
    away = Path("/nonexistent-ragd-test-home")
    assert not away.exists()
    return base_env(tmp_path) | {
        "HOME": str(away),
        "XDG_CONFIG_HOME": str(away / ".config"),
        "XDG_DATA_HOME": str(away / ".local" / "share"),
        "XDG_CACHE_HOME": str(away / ".cache"),
        "XDG_RUNTIME_DIR": str(away / "run"),
    }


def test_install_service_print_uses_this_installation(tmp_path: Path) -> None:
    env = away_from_tmp(tmp_path)
    result = subprocess.run(
        [str(BIN / "ragd"), "install-service", "--print"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    unit = service_section(result.stdout)
    assert unit["Service.ExecStart"] == [f"{BIN / 'ragd'} serve"]
    assert not (Path(env["XDG_CONFIG_HOME"]) / "systemd").exists()  # --print writes nothing
    # apart from ExecStart it is the template (the data dir is the default one)
    rest = [line for line in result.stdout.splitlines() if not line.startswith("ExecStart=")]
    template = TEMPLATE.read_text(encoding="utf-8").splitlines()
    if INSTALLED_UNDER_TMP:
        template = [line for line in template if line != "PrivateTmp=yes"]
    assert rest == [line for line in template if not line.startswith("ExecStart=")]


def test_install_service_writes_the_user_unit(tmp_path: Path) -> None:
    env = base_env(tmp_path) | {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    result = subprocess.run(
        [str(BIN / "ragd"), "install-service"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    target = tmp_path / "cfg" / "systemd" / "user" / "ragd.service"
    assert result.stdout.strip() == ENABLE_COMMAND
    assert ENABLE_COMMAND == "systemctl --user daemon-reload && systemctl --user enable --now ragd"
    assert str(target) in result.stderr
    assert f"ExecStart={BIN / 'ragd'} serve\n" in target.read_text()
    # the data dir the unit makes writable exists (ReadWritePaths= needs it)
    assert Path(env["XDG_DATA_HOME"], "ragd").is_dir()


def test_custom_data_dir_and_socket_are_passed_and_writable(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    data = tmp_path / "my index"
    result = subprocess.run(
        [str(BIN / "ragd"), "install-service", "--print", "--data-dir", str(data), "--socket",
         "/tmp/ragd-test/s.sock"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    unit = service_section(result.stdout)
    assert unit["Service.ExecStart"] == [
        f'{BIN / "ragd"} serve --data-dir "{data}" --socket /tmp/ragd-test/s.sock'
    ]
    assert unit["Service.ReadWritePaths"] == [f'"{data}" %t/ragd /tmp/ragd-test']
    assert "Service.PrivateTmp" not in unit  # a private /tmp would hide the socket


@pytest.mark.parametrize(
    ("option", "where", "private"),
    [
        ("--data-dir", "/tmp", False),
        ("--data-dir", "/var/tmp", False),
        ("--config", "/tmp", False),
        ("--data-dir", "/nonexistent-ragd-test-elsewhere", True),
    ],
)
def test_a_path_under_tmp_turns_private_tmp_off(
    tmp_path: Path, option: str, where: str, private: bool
) -> None:
    # `--data-dir /tmp/…` kept PrivateTmp=yes: the service would have indexed into a
    # private /tmp of its own, emptied at every stop, not the folder the user named.
    folder = Path(where) / f"ragd-test-{os.getpid()}-{tmp_path.name}"
    path = folder / ("config.toml" if option == "--config" else "index")
    if option == "--config":  # a named config file must exist; --print makes nothing else
        folder.mkdir()
        path.write_text("", encoding="utf-8")
    try:
        result = subprocess.run(
            [str(BIN / "ragd"), "install-service", "--print", option, str(path)],
            env=away_from_tmp(tmp_path), capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert result.returncode == 0, result.stderr
    unit = service_section(result.stdout)
    assert f"{option} {path}" in unit["Service.ExecStart"][0]
    private = private and not INSTALLED_UNDER_TMP
    assert unit.get("Service.PrivateTmp") == (["yes"] if private else None)


def test_a_longer_shutdown_timeout_lengthens_the_stop_timeout(tmp_path: Path) -> None:
    env = base_env(tmp_path) | {"RAG_SHUTDOWN_TIMEOUT_S": "45"}
    result = subprocess.run(
        [str(BIN / "ragd"), "install-service", "--print"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert service_section(result.stdout)["Service.TimeoutStopSec"] == ["65"]


def test_unit_paths_are_escaped() -> None:
    home = Path("/home/ann")
    assert unit_path(Path("/home/ann/.local/bin/ragd"), home) == "%h/.local/bin/ragd"
    assert unit_path(Path("/opt/100%/ragd"), home) == "/opt/100%%/ragd"
    assert unit_path(Path("/opt/my apps/ragd"), home) == '"/opt/my apps/ragd"'
    with pytest.raises(ValueError):
        unit_path(Path("relative/ragd"), home)
    with pytest.raises(ValueError):
        unit_path(Path("/opt/$HOME/ragd"), home)


@needs_analyze
def test_systemd_accepts_the_rendered_units(tmp_path: Path) -> None:
    """systemd-analyze exits 0 even on unknown keys, so its silence is the assertion."""
    odd = tmp_path / "odd 100% dir"
    odd.mkdir()
    fake = odd / "ragd"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    cases = {
        "installation": UnitSpec(exec_path=str(BIN / "ragd")),
        "odd paths": UnitSpec(
            exec_path=unit_path(fake),
            data_dir=unit_path(odd / "data"),
            socket_dir=unit_path(odd),
            extra_args=("--socket", unit_path(odd / "s.sock")),
            private_tmp=False,
        ),
    }
    for name, spec in cases.items():
        unit = tmp_path / name.replace(" ", "-") / "ragd.service"
        unit.parent.mkdir()
        unit.write_text(render(spec))
        assert verify(unit, tmp_path) == "", name
    # and the check is not vacuous: a typo is reported
    broken = tmp_path / "broken" / "ragd.service"
    broken.parent.mkdir()
    broken.write_text(render(UnitSpec(exec_path=str(BIN / "ragd"))).replace("Type=", "Typ="))
    assert "Unknown key" in verify(broken, tmp_path)


def test_configparser_reads_the_template() -> None:
    """A cheap syntax guard that also runs where systemd-analyze is missing."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(TEMPLATE.read_text(encoding="utf-8"))
    assert parser.sections() == ["Unit", "Service", "Install"]
