"""CURVE key files that are no files (a FIFO, a link to /dev/zero): one line, no wait.

Before: `rag --socket tcp://…` with a FIFO named `server.public` in
`~/.config/ragd/curve/` waited for a writer for ever (`read_bytes`), and a link to
/dev/zero read without end; `ragd serve` read `server.secret` the same way. Now both read
at most a few KB of a regular file, opened without blocking (`ragproto.paths.read_small_file`).
The subprocess timeouts are a guard against the old hang, not a measure.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.chroma_server import free_port
from tests.support.commands import run
from tests.support.daemon import BIN, base_env

A_KEY = "0" * 40 + "\n"


def _curve_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "config" / "ragd" / "curve"
    folder.mkdir(parents=True, mode=0o700)
    for name in ("server.public", "server.secret", "client.public", "client.secret"):
        (folder / name).write_text(A_KEY)
        (folder / name).chmod(0o600)
    return folder


def _run(argv: list[object], tmp_path: Path) -> subprocess.CompletedProcess:
    env = base_env(tmp_path) | {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    return run(argv, env)


def test_rag_names_a_key_file_that_is_a_fifo_or_a_device(tmp_path: Path) -> None:
    folder = _curve_dir(tmp_path)
    address = f"tcp://127.0.0.1:{free_port()}"
    public = folder / "server.public"
    public.unlink()
    os.mkfifo(public)
    out = _run([BIN / "rag", "--socket", address, "status"], tmp_path)
    assert out.returncode == 5 and out.stderr.count("\n") == 1, out.stderr
    assert "server.public cannot be read (not a regular file)" in out.stderr
    public.unlink()
    public.symlink_to("/dev/zero")
    out = _run([BIN / "rag", "--socket", address, "status"], tmp_path)
    assert out.returncode == 5 and "(not a regular file)" in out.stderr, out.stderr


def test_ragd_serve_names_a_secret_key_that_is_a_fifo(tmp_path: Path) -> None:
    folder = _curve_dir(tmp_path)
    secret = folder / "server.secret"
    secret.unlink()
    os.mkfifo(secret, 0o600)
    address = f"tcp://127.0.0.1:{free_port()}"
    argv = [BIN / "ragd", "serve", tmp_path, "--socket", address, "--data-dir", tmp_path / "d"]
    out = _run(argv, tmp_path)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr  # cannot listen
    assert "server.secret cannot be read (not a regular file)" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
