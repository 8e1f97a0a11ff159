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


def test_ragd_version_is_the_installed_version_as_rag_shows_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`ragd --version` was "No such option: --version" (exit 2) while `rag --version`
    worked: both now read the one installed version."""
    from ragcli.main import main as rag_main

    with pytest.raises(SystemExit) as rag_exit:
        rag_main(["--version"])
    assert rag_exit.value.code == 0
    rag_line = capsys.readouterr().out.strip()
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "ragd" + rag_line.removeprefix("rag")
