"""A real ChromaDB server (`chroma run`, from the venv's chromadb) on 127.0.0.1, for tests.

It runs offline on a temp path and a free port; `stop()` kills it (as `kill -9` when a test
wants a crash) and `start()` brings it back on the same path and port, so a daemon that
was using it can reconnect.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import wait_for

# What the `chroma` console script (chromadb.cli.cli:app) does with `chroma run …`: it hands
# its arguments to the Rust server's command line, chromadb_rust_bindings.cli. The script
# first imports the whole Python client (`import chromadb`: ≈ 0.7 CPU s, and 1.2 s to 6 s
# of wall a start at a load of 3 to 6), which `run` never uses: started here without it,
# the same server listens within 0.2 s. tests/unit/test_chroma_server_start.py holds the console
# script to handing `run` over unchanged.
CHROMA_CLI = (
    "import sys, chromadb_rust_bindings; chromadb_rust_bindings.cli(['chroma', *sys.argv[1:]])"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ChromaServer:
    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path = path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = path.parent / f"chroma-{self.port}.log"

    def start(self, timeout: float = 60.0) -> ChromaServer:
        args = ["run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", CHROMA_CLI, *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={"ANONYMIZED_TELEMETRY": "False", "PATH": "/usr/bin:/bin"},
            )
        wait_for(self.alive, timeout, f"chroma run on port {self.port}", interval=0.2)
        return self

    def alive(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"chroma run exited: {self.log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=2) as reply:
                return bool(reply.status == 200)
        except OSError:
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)
        self.proc = None

    def collections(self) -> list[str]:
        """Collection names in the default tenant and database (ChromaDB's REST API)."""
        path = "/api/v2/tenants/default_tenant/databases/default_database/collections"
        with urllib.request.urlopen(self.url + path, timeout=10) as reply:
            return sorted(c["name"] for c in json.load(reply))


def served_for_the_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """A module-scoped fixture's body: one `chroma run` on a fresh folder, stopped after."""
    chroma = ChromaServer(tmp_path_factory.mktemp("chroma") / "db").start()
    yield chroma
    chroma.stop()
