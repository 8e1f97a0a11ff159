"""Usage errors of `rag`: the hint about questions that start with "-" is given only when
the command line held such a word, not on every missing question."""

from __future__ import annotations

import pytest

from ragcli.main import build_parser

DASH = 'hint: a question or query that starts with "-" goes after "--"'


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(list(argv))
    assert exited.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["ask"], ["search"], ["ask", "--json"], ["search", "--top-k", "3"]]
)
def test_a_missing_question_gets_no_dash_hint(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    # `rag ask` alone said "the following arguments are required: question" and then
    # "hint: a question or query that starts with "-" goes after "--"": no word started
    # with "-", so the hint only misled.
    err = usage_error(capsys, *argv)
    assert "the following arguments are required" in err
    assert DASH not in err


@pytest.mark.parametrize(
    "argv", [["ask", "--strip-trailing-cr"], ["search", "-v"], ["ask", "--json", "--frob=1"]]
)
def test_a_question_read_as_an_option_still_gets_the_hint(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert DASH in usage_error(capsys, *argv)


@pytest.mark.parametrize(
    ("argv", "typo", "meant"),
    [
        (["aks", "q"], "aks", "ask"),
        (["serach", "q"], "serach", "search"),
        (["search", "--mode", "hybird", "q"], "hybird", "hybrid"),
    ],
)
def test_a_misspelt_choice_is_answered_with_the_one_meant(
    capsys: pytest.CaptureFixture[str], argv: list[str], typo: str, meant: str
) -> None:
    # `rag aks "…"` listed the eight commands and left the user to spot the typo, where
    # `ragd serv` already answers "Did you mean 'serve'?".
    err = usage_error(capsys, *argv)
    assert f"invalid choice: {typo!r}" in err
    assert f"hint: did you mean {meant!r}?" in err


def test_a_choice_like_none_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    assert "did you mean" not in usage_error(capsys, "xyzzy")


@pytest.mark.parametrize("argv", [["--timeout", "5"], ["--json", "--timeout=0"], ["--tim", "9"]])
def test_a_status_timeout_without_wait_is_refused_naming_wait(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    # `rag status --timeout 5` printed the status at once: the timeout only bounds
    # `--wait` (the README's `rag status [--json] [--wait [--timeout S]]`), and was dropped.
    err = usage_error(capsys, "status", *argv)
    assert err.splitlines()[-1] == "rag status: error: --timeout applies only with --wait"


@pytest.mark.parametrize(("argv", "timeout"), [([], 300.0), (["--timeout", "5"], 5.0)])
def test_a_status_wait_keeps_its_timeout(argv: list[str], timeout: float) -> None:
    args = build_parser().parse_args(["status", "--wait", *argv])
    assert (args.wait, args.timeout) == (True, timeout)
    assert build_parser().parse_args(["status"]).wait is False


COMMANDS = ["ask", "search", "status", "ingest", "forget", "stats", "chat", "mcp"]


def help_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([*argv, "-h"])
    assert exited.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_help_says_what_it_does(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # `rag chat -h` (and every `rag COMMAND -h`) showed usage and options but not what the
    # command does: a description line, the one `rag -h` lists it with or a fuller one.
    listed = " ".join(help_text(capsys).split())  # `rag -h`, its wrapping undone
    own = help_text(capsys, command)
    description = " ".join(own.split("\n\n")[1].split())
    assert not description.startswith(("positional arguments", "options"))
    assert description.rstrip(".").lower() in listed.lower() or command == "chat"


def test_chat_help_says_what_the_readme_says_chat_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    description = " ".join(help_text(capsys, "chat").split("\n\n")[1].split())
    for words in ("questions one after another", "history", "follow-up", "/help", "ctrl-c"):
        assert words in description.lower()


@pytest.mark.parametrize(
    "argv, socket",
    [
        (["status", "--socket", "/tmp/s.sock"], "/tmp/s.sock"),
        (["--socket", "/tmp/a.sock", "ask", "why?"], "/tmp/a.sock"),
        (["--socket", "/tmp/a.sock", "search", "q", "--socket", "/tmp/b.sock"], "/tmp/b.sock"),
        (["ingest", "docs", "--socket", "tcp://127.0.0.1:5555"], "tcp://127.0.0.1:5555"),
        (["stats"], None),
    ],
)
def test_the_socket_may_be_named_after_the_command_too(argv: list[str], socket: str) -> None:
    # `rag status --socket S` (as `ragd serve FOLDER --socket S` takes it) was
    # "unrecognized arguments", with the hint about questions starting with "-" (newuser45).
    assert build_parser().parse_args(argv).socket == socket
