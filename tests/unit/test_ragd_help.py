"""`ragd COMMAND -h` explains the command, as `rag COMMAND -h` does (it was "No such
option: -h", exit 2: only `--help` worked)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ragd.cli.main import app

COMMANDS = ["serve", "check", "reset", "config", "eval", "install-service"]


@pytest.mark.parametrize("argv", [["-h"], ["--help"], *([c, "-h"] for c in COMMANDS)])
def test_short_and_long_help_explain_the_command(argv: list[str]) -> None:
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output and "No such option" not in result.output
    if len(argv) == 2:
        assert f" {argv[0]} [OPTIONS]" in result.output
