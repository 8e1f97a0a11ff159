"""The tests' `chroma run` (tests/support/chroma_server.py) is started as the `chroma`
console script would start it, without the Python client that script imports first."""

from __future__ import annotations

import sys

import chromadb_rust_bindings
import pytest
from chromadb.cli import cli

from tests.support.chroma_server import CHROMA_CLI


def test_the_chroma_script_hands_run_to_the_rust_cli_as_the_tests_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ["run", "--path", "/nowhere/db", "--host", "127.0.0.1", "--port", "8000"]
    handed: list[list[str]] = []
    monkeypatch.setattr(chromadb_rust_bindings, "cli", handed.append)
    # The console script, as `chroma run …` runs it (its argv[0] is the script's name).
    monkeypatch.setattr(sys, "argv", ["chroma", *args])
    cli.app()
    # The tests' start, as `python -c CHROMA_CLI run …` runs it (its argv[0] is "-c").
    monkeypatch.setattr(sys, "argv", ["-c", *args])
    exec(CHROMA_CLI, {})
    assert handed == [["chroma", *args], ["chroma", *args]]
