"""The systemd user unit, rendered for this installation (`ragd install-service`).

`systemd/ragd.service` in the repository is this template rendered with its portable
defaults (``%h/.local/bin/ragd``, the default data dir); a test keeps the two identical.
`ragd install-service` renders it with the absolute path of the `ragd` it runs from and
the data dir the effective configuration names, so the hardening's writable paths match
what the daemon will really write.

Why each setting (a user unit can only carry hardening the user manager can apply;
namespace-based options degrade to no-ops where user namespaces are unavailable, while
seccomp-based ones always apply):

  Type=notify + WatchdogSec   READY=1 once queries are answered; the main loop pings at
                              half the interval, so a wedged loop is restarted
  TimeoutStopSec=30           longer than ragd's own shutdown_timeout_s (10 s default;
                              install-service raises it for a longer configured one)
  RestartPreventExitStatus    the exit codes restarting cannot fix (`exit_codes`: 2 bad
                              configuration or a damaged store, 3 another ragd holds
                              the data dir or socket), so they do not loop
  ProtectSystem=strict        everything read-only but the data dir and the socket dir
  PrivateTmp=yes              safe: the socket lives in $XDG_RUNTIME_DIR, not /tmp (so
                              folders under /tmp cannot be indexed by the service); left
                              out when a path the unit names is under /tmp or /var/tmp
  ExecStartPre=+mkdir         the data dir must exist before it can be made writable
  CacheDirectory=ragd         $XDG_CACHE_HOME/ragd (index/machine_cache.py: this machine's
                              embedding precision) made and writable under ProtectSystem;
                              without it, where the hardening applies, every start measured
                              bfloat16 again and warned it could not cache the decision
  no MemoryDenyWriteExecute   PyTorch's oneDNN kernels are JIT-compiled
"""

from __future__ import annotations

import math
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from ragd.core.config import default, default_config_path
from ragd.core.exit_codes import NOT_FIXED_BY_RESTART
from ragproto.paths import SOCKET_NAME, ipc_path

UNIT_NAME = "ragd.service"
ENABLE_COMMAND = "systemctl --user daemon-reload && systemctl --user enable --now ragd"

DEFAULT_EXEC = "%h/.local/bin/ragd"
DEFAULT_DATA_DIR = "%h/.local/share/ragd"
DEFAULT_ENV_FILE = "%h/.config/ragd/env"
DEFAULT_MKDIR = "/bin/mkdir"
DEFAULT_KILL = "/bin/kill"
DEFAULT_STOP_TIMEOUT_S = 30
# systemd's stop timeout must outlast ragd's own bounded shutdown (shutdown_timeout_s for
# start-up and the writer, up to 5 s for the watcher, then closing) with room to spare.
STOP_MARGIN_S = 20

TEMPLATE = """\
# ragd as a systemd *user* service: `ragd install-service` writes this file to
# ~/.config/systemd/user/ with the ExecStart of the installation it runs from.
# Logs: journalctl --user -u ragd    Reload the configuration: systemctl --user reload ragd
[Unit]
Description=ragd: local question answering over your folders
StartLimitIntervalSec=300
StartLimitBurst=5

[Service]
Type=notify
NotifyAccess=main
ExecStartPre=+{mkdir} -p {make_dirs}
ExecStart={exec_start}
ExecReload={kill} -HUP $MAINPID
Restart=on-failure
RestartSec=2
RestartPreventExitStatus={no_restart}
TimeoutStartSec=300
TimeoutStopSec={stop_timeout}
WatchdogSec=30
# Put ANTHROPIC_API_KEY=... here (chmod 600) to get answers from Claude.
EnvironmentFile=-{env_file}
RuntimeDirectory=ragd
RuntimeDirectoryMode=0700
CacheDirectory=ragd
CacheDirectoryMode=0700

# Hardening a user unit can carry.
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths={writable}
{private_tmp}RestrictSUIDSGID=yes
RestrictRealtime=yes
RestrictNamespaces=yes
LockPersonality=yes
SystemCallArchitectures=native
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
UMask=0077

[Install]
WantedBy=default.target
"""

RUNTIME_DIR = "%t/ragd"


class UnitError(ValueError):
    pass


@dataclass(frozen=True)
class UnitSpec:
    """What varies between installations; every path already in unit syntax."""

    exec_path: str = DEFAULT_EXEC
    data_dir: str = DEFAULT_DATA_DIR
    socket_dir: str = RUNTIME_DIR
    extra_args: tuple[str, ...] = ()
    private_tmp: bool = True
    env_file: str = DEFAULT_ENV_FILE
    mkdir: str = DEFAULT_MKDIR
    kill: str = DEFAULT_KILL
    stop_timeout_s: int = DEFAULT_STOP_TIMEOUT_S


def render(spec: UnitSpec = UnitSpec()) -> str:
    make_dirs = [spec.data_dir] + ([spec.socket_dir] if spec.socket_dir != RUNTIME_DIR else [])
    writable = [spec.data_dir, RUNTIME_DIR] + (
        [spec.socket_dir] if spec.socket_dir != RUNTIME_DIR else []
    )
    return TEMPLATE.format(
        mkdir=spec.mkdir,
        make_dirs=" ".join(make_dirs),
        exec_start=" ".join([spec.exec_path, "serve", *spec.extra_args]),
        kill=spec.kill,
        env_file=spec.env_file,
        writable=" ".join(writable),
        private_tmp="PrivateTmp=yes\n" if spec.private_tmp else "",
        stop_timeout=spec.stop_timeout_s,
        no_restart=" ".join(str(int(code)) for code in NOT_FIXED_BY_RESTART),
    )


def unit_path(path: Path, home: Path | None = None, quote: bool = True) -> str:
    """An absolute path in unit-file syntax: ``%h/…`` under home, `%` escaped, quoted if needed."""
    text = str(path)
    if any(c in text for c in "\n\r\0$"):
        raise UnitError(f"a path in a unit file cannot contain a line break or '$': {text!r}")
    if not path.is_absolute():
        raise UnitError(f"not an absolute path: {text}")
    escaped = text.replace("%", "%%")
    if home is not None and home.is_absolute() and home != Path("/") and path.is_relative_to(home):
        escaped = "%h/" + str(path.relative_to(home)).replace("%", "%%")
    if quote and any(c.isspace() or c in "\"'\\;" for c in escaped):
        escaped = '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return escaped


def installed_ragd() -> Path:
    """The `ragd` executable of this installation (beside the running interpreter)."""
    beside = Path(sys.executable).parent / "ragd"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside.absolute()
    found = shutil.which("ragd")
    if found:
        return Path(found).absolute()
    return Path(sys.argv[0]).absolute()


def _tool(name: str, default: str) -> str:
    for candidate in (default, shutil.which(name)):
        if candidate and Path(candidate).is_absolute() and os.access(candidate, os.X_OK):
            return candidate
    return default


def spec_for_installation(
    data_dir: Path,
    socket_address: str | None = None,
    config_path: Path | None = None,
    shutdown_timeout_s: float = default("shutdown_timeout_s"),
) -> UnitSpec:
    """The unit for this installation and configuration.

    The service must write exactly where the unit allows, so anything that differs from
    what the daemon picks by itself under systemd (``~/.local/share/ragd``; the socket in
    $XDG_RUNTIME_DIR, which the user manager always sets) is passed on the command line
    and made writable. `socket_address` is None unless the socket was configured. Any
    path the unit names under /tmp (the data dir, a socket, the config, this ragd; a HOME
    there puts the defaults there) turns PrivateTmp off: the service would see a private
    /tmp, not these (`under_tmp`).
    """
    home = Path.home()
    args: list[str] = []
    env_file = default_config_path().parent / "env"
    ragd = installed_ragd()
    used = [ragd, data_dir, env_file]  # every path the unit names
    if config_path is not None:
        used.append(config_path.expanduser().absolute())
        args += ["--config", unit_path(used[-1], home)]
    default_data = home / ".local" / "share" / "ragd"
    if data_dir != default_data:
        args += ["--data-dir", unit_path(data_dir, home)]
    socket_dir = RUNTIME_DIR
    path = ipc_path(socket_address) if socket_address else None
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    default_socket = Path(runtime) / "ragd" / SOCKET_NAME if runtime else None
    if path is not None and path != default_socket:
        args += ["--socket", unit_path(path, home)]
        socket_dir = unit_path(path.parent, home)
        used.append(path)
    return UnitSpec(
        exec_path=unit_path(ragd, home),
        data_dir=unit_path(data_dir, home),
        socket_dir=socket_dir,
        extra_args=tuple(args),
        private_tmp=not any(under_tmp(p) for p in used),
        env_file=unit_path(env_file, home, quote=False),
        mkdir=_tool("mkdir", DEFAULT_MKDIR),
        kill=_tool("kill", DEFAULT_KILL),
        stop_timeout_s=max(DEFAULT_STOP_TIMEOUT_S, math.ceil(shutdown_timeout_s) + STOP_MARGIN_S),
    )


def under_tmp(path: Path) -> bool:
    """Whether `path` lies in /tmp or /var/tmp, which PrivateTmp=yes replaces with folders
    of the service's own: a data dir there would be written into one emptied at every
    stop, and a socket or config there would be out of the service's (or clients') sight.
    Where a link leads counts, as it would inside the service."""
    temporary = (Path("/tmp"), Path("/var/tmp"))
    return any(p in temporary for p in (*path.parents, *path.resolve().parents))


def user_unit_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user"


def install(text: str, data_dir: Path) -> Path:
    """Write the unit (atomically) and create the data dir it makes writable."""
    target = user_unit_dir() / UNIT_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = target.with_name(f".{UNIT_NAME}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return target
