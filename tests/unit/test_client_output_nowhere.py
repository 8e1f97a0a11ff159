"""`rag` whose output cannot be written, or whose standard streams are closed (attack77).

A script's `rag search … > results.txt` on a full disk, `rag status --json > /dev/full`,
a cron job or a service unit that starts `rag` with stdin or stdout closed: each ended in a
Python traceback (OSError ENOSPC from print; AttributeError on `sys.stdin`/`sys.stdout`,
which Python sets to None for a closed descriptor), exit 1. The daemon here is a fake ZMTP
peer on the socket path that answers every request as an idle ragd's `status`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.daemon import BIN, base_env
from tests.support.fake_zmtp import FakeZmtpServer, ready


def _rag(tmp_path: Path, server: FakeZmtpServer, shell: str) -> subprocess.CompletedProcess[str]:
    env = base_env(tmp_path) | {"RAG_SOCKET": server.address}
    return subprocess.run(
        ["sh", "-c", shell, "sh", str(BIN / "rag")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_output_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    with FakeZmtpServer(tmp_path / "f.sock", ready()) as server:
        out = _rag(tmp_path, server, '"$1" status --json > /dev/full')
    assert out.returncode == 1, out.stderr
    assert out.stderr == "rag: cannot write the output: No space left on device\n", out.stderr


def test_a_chat_with_stdin_closed_ends_as_at_the_end_of_its_input(tmp_path: Path) -> None:
    with FakeZmtpServer(tmp_path / "f.sock", ready()) as server:
        out = _rag(tmp_path, server, '"$1" chat <&-')
        empty = _rag(tmp_path, server, '"$1" chat < /dev/null')
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert (out.stdout, out.stderr) == (empty.stdout, empty.stderr)


def test_a_command_with_stdout_closed_still_runs_and_says_nothing_broke(tmp_path: Path) -> None:
    with FakeZmtpServer(tmp_path / "f.sock", ready()) as server:
        out = _rag(tmp_path, server, '"$1" status --json >&-')
        asked = len(server.requests)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert asked >= 1  # the request went: the command ran, its output went nowhere


def _ragd_to_a_full_disk_says_one_line(tmp_path: Path, commands: tuple[str, ...]) -> None:
    """Each `ragd` command with its output on /dev/full: exit 1, its last line says so."""
    env = base_env(tmp_path) | {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    for command in commands:
        out = subprocess.run(
            ["sh", "-c", f'"$1" {command} > /dev/full', "sh", str(BIN / "ragd")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert "Traceback" not in out.stderr, (command, out.stderr)
        assert out.returncode == 1, (command, out.stderr)
        # (install-service's notes on the test's environment variables come first)
        assert out.stderr.splitlines()[-1:] == [
            "ragd: cannot write the output: No space left on device"
        ], (command, out.stderr)


def test_ragd_printing_commands_whose_output_cannot_be_written_say_one_line(
    tmp_path: Path,
) -> None:
    """`ragd config`, `config --reference` and `install-service --print` only print: on a
    full disk they ended in a rich traceback (attack77 left it)."""
    _ragd_to_a_full_disk_says_one_line(
        tmp_path, ("config", "config --reference", "install-service --print")
    )


def test_ragd_help_version_and_check_whose_output_cannot_be_written_say_one_line(
    tmp_path: Path,
) -> None:
    """review77: `ragd --version`, `ragd --help`, `ragd config --help` and `ragd check`
    print too, and to a full disk each ended in a rich traceback as `ragd config` had."""
    check = f"check --json --data-dir {tmp_path / 'data'}"
    _ragd_to_a_full_disk_says_one_line(tmp_path, ("--version", "--help", "config --help", check))


def test_ragd_printing_into_a_pipe_its_reader_closed_ends_quietly_as_rag_does(
    tmp_path: Path,
) -> None:
    """`ragd config | head -1`: the reader leaves; `rag` exits 0 and says nothing, and
    `ragd` had exited 1 (click's handling of EPIPE; review77 noticed the difference). The
    pipe's read end is closed before the start, so every write meets EPIPE."""
    env = base_env(tmp_path) | {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    for command in (["config"], ["config", "--reference"], ["--version"]):
        read, write = os.pipe()
        os.close(read)
        try:
            out = subprocess.run(
                [str(BIN / "ragd"), *command],
                env=env,
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
                stdin=subprocess.DEVNULL,
            )
        finally:
            os.close(write)
        assert (out.returncode, out.stderr) == (0, ""), (command, out.stderr)
