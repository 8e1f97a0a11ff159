"""The client's finish (issue 12 item 5): help, --version, questions that start with "-",
range checks, `status --wait` on a starting daemon, ingest progress per root, `forget`
taking effect before it returns, `--model` without a key, and `rag chat` on a terminal
(line editing, history, local /commands, Ctrl-C stopping one answer).

One module daemon (keyed, against the fake Anthropic server) covers the live parts; the
keyless parts reuse the session's `sample_daemon`.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from ragcli.main import build_parser
from ragcli.transport import Connection
from ragproto.errors import ExitCode, WireError
from tests.support.commands import run
from tests.support.daemon import BIN, Daemon, base_env, wait_for
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.terminal import Terminal

DOGS = "Can I bring my dog on the ferry?"
PETS = (
    "# Pets on board\n\nDogs may travel on the ferry on a short lead, in the open deck area "
    "only. Bring your dog's water bowl; the crew cannot lend one.\n"
)


def rag_alone(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`rag` with no daemon at all (usage errors are decided before connecting)."""
    env = base_env(tmp) | {"RAG_SOCKET": str(tmp / "absent.sock")}
    return run([BIN / "rag", *args], env, timeout=30)


# -- without a daemon -----------------------------------------------------------------------
def test_every_option_has_help_text() -> None:
    parser = build_parser()
    subparsers = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, sub in [("rag", parser), *subparsers.items()]:
        for action in sub._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"


def test_version_comes_from_the_installed_package(tmp_path: Path) -> None:
    out = rag_alone(tmp_path, "--version")
    assert out.returncode == 0
    assert out.stdout.startswith(f"rag {version('ragd')} ")


def test_a_question_starting_with_dash_gets_a_hint(tmp_path: Path) -> None:
    for args in (["ask", "--strip-trailing-cr"], ["search", "x", "--frobnicate"]):
        out = rag_alone(tmp_path, *args)
        assert out.returncode == ExitCode.USAGE, args
        assert 'hint: a question or query that starts with "-" goes after "--"' in out.stderr
    assert "hint" not in rag_alone(tmp_path, "ask", "--top-k", "x", "q").stderr


@pytest.mark.parametrize(
    "args",
    [
        ["ask", "--min-score", "5", "q"],
        ["ask", "--min-score", "-0.1", "q"],
        ["ask", "--min-score", "nan", "q"],
        ["ask", "--top-k", "0", "q"],
        ["search", "--top-k", "51", "q"],
        ["status", "--wait", "--timeout", "-1"],
    ],
)
def test_out_of_range_values_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    out = rag_alone(tmp_path, *args)
    assert out.returncode == ExitCode.USAGE
    assert "out of range" in out.stderr and "not running" not in out.stderr


# -- keyless, on the shared sample daemon -----------------------------------------------------
def test_dash_question_after_double_dash_is_asked(sample_daemon: Daemon) -> None:
    out = sample_daemon.rag("ask", "--json", "--", "--strip-trailing-cr")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["mode"] in ("refused", "extractive")
    assert sample_daemon.rag("search", "--", "-E417").returncode == 0


def test_daemon_checks_ranges_too(sample_daemon: Daemon) -> None:
    for op, args in (
        ("search", {"query": "x", "min_score": 5}),
        ("search", {"query": "x", "top_k": 0}),
        ("ask", {"question": "x", "min_score": -1}),
    ):
        with pytest.raises(WireError) as caught:
            sample_daemon.call(op, **args)
        assert caught.value.type_name == "bad_request", (op, args)


def test_forget_of_an_unknown_root_names_the_watched_ones(sample_daemon: Daemon) -> None:
    # `rag forget /tmp/nonexist` said only "no watched root named '/tmp/nonexist'": not
    # which names would work, though a root is forgotten by the name `rag status` shows.
    line = refused_forget(sample_daemon, "sample_corpu")
    assert "no watched root named 'sample_corpu'" in line
    assert "watched roots: sample_corpus" in line


def refused_forget(daemon: Daemon, root: str) -> str:
    """The one error line of a `rag forget ROOT` that must forget nothing."""
    out = daemon.rag("forget", root)
    assert out.returncode == ExitCode.BAD_REQUEST, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert [r["name"] for r in daemon.status()["roots"]] == ["sample_corpus"]
    return lines[0]


def test_forget_of_a_folder_inside_a_root_says_what_to_do_instead(sample_daemon: Daemon) -> None:
    # `rag forget ~/notes/drafts`, a folder inside the root `notes`: "no watched root named
    # '…/drafts' (watched roots: notes)", and nothing said how to stop indexing drafts.
    line = refused_forget(sample_daemon, "sample_corpus/drafts")
    assert "is inside the watched root sample_corpus" in line
    assert "`rag forget sample_corpus`" in line
    assert "exclude" in line and ".ragignore" in line


def test_a_chat_follow_up_is_searched_with_the_subject_it_refers_to(
    sample_daemon: Daemon,
) -> None:
    # "rag chat: questions with memory", yet retrieval and the gate read each question
    # alone: after "What does KSF-E417 mean?", "and what should I do about it?" was refused
    # ("no word to look for"). Now a follow-up that names no subject of its own is searched
    # with the last question that named one, and a note says so.
    lines = "What does KSF-E417 mean?\nand what should I do about it?\n/help\n"
    out = sample_daemon.rag("chat", input=lines)
    assert out.returncode == 0, out.stderr
    assert "I don't know" not in out.stdout, out.stdout
    assert out.stdout.count("Unplug the reader for 10 seconds") == 2, out.stdout
    notes = [line for line in out.stderr.splitlines() if line.startswith("note: searched")]
    assert notes == ['note: searched together with the chat\'s subject, "What does KSF-E417 '
                     'mean?" (/reset forgets it)'], out.stderr  # fmt: skip
    assert "names no subject of its own" in out.stderr  # /help says what the memory does
    # A question that names its own subject is searched alone, however it follows, and is
    # the subject from then on; /reset forgets it.
    follow = "and what should I do about it?"
    asked = ["What does KSF-E417 mean?", "What is the capital of Mongolia?", follow, "/reset"]
    other = sample_daemon.rag("chat", input="\n".join([*asked, follow, ""]))
    assert other.stdout.count("I don't know") == 3, other.stdout
    notes = [line for line in other.stderr.splitlines() if line.startswith("note: searched")]
    assert len(notes) == 1 and "Mongolia" in notes[0], other.stderr


def test_a_refused_first_question_is_still_the_chats_subject(sample_daemon: Daemon) -> None:
    # A chat whose questions were all refused keeps no turn; its memory was then empty, read
    # as falsy (ChatMemory has __len__) and replaced by a new one at the next question, so
    # the subject was lost and the follow-up searched alone, against what the note says.
    follow = "and what should I do about it?"
    out = sample_daemon.rag("chat", input=f"What is the capital of Mongolia?\n{follow}\n")
    assert out.returncode == 0, out.stderr
    notes = [line for line in out.stderr.splitlines() if line.startswith("note: searched")]
    assert notes == ['note: searched together with the chat\'s subject, "What is the capital '
                     'of Mongolia?" (/reset forgets it)'], out.stderr  # fmt: skip


def test_a_follow_up_naming_a_new_thing_is_not_answered_from_the_subject(
    sample_daemon: Daemon,
) -> None:
    # "What about bicycles?" after "What does KSF-E417 mean?" was searched as the two
    # together, and the error code's row won: it was quoted (confidence medium) though the
    # handbook says what bicycles cost; "what about Mongolia?" after the dogs question was
    # answered with the dogs' rule instead of refused.
    def second_answer(first: str, then: str) -> tuple[str, str]:
        out = sample_daemon.rag("chat", input=f"{first}\n{then}\n")
        assert out.returncode == 0, out.stderr
        return out.stdout.split("you> ")[2], out.stderr

    bicycles, stderr = second_answer("What does KSF-E417 mean?", "What about bicycles?")
    assert "each bicycle is charged" in bicycles and "KSF-E417" not in bicycles, bicycles
    assert "note: searched together" not in stderr, stderr
    # A pronoun (the document) beside the new thing it names after "about": it was
    # searched with the subject too, and the error code's row was quoted. Alone it is
    # refused (its own words are mostly scaffolding), not answered from the subject.
    said, stderr = second_answer("What does KSF-E417 mean?", "and what does it say about bicycles?")
    assert "KSF-E417" not in said and ("each bicycle" in said or "I don't know" in said), said
    assert "note: searched together" not in stderr, stderr
    mongolia, stderr = second_answer(DOGS, "what about Mongolia?")
    assert "I don't know" in mongolia and "Dogs travel free" not in mongolia, mongolia
    # Found in the subject's context, the new thing is still searched with it.
    crossings = "How many crossings does route R3 make?"
    winter, stderr = second_answer(crossings, "what about in winter?")
    assert "three return crossings" in winter, winter
    assert f'subject, "{crossings}"' in stderr, stderr


def test_ingest_of_a_missing_path_names_the_whole_path(sample_daemon: Daemon) -> None:
    # `rag ingest /tmp/n36/nonexist` said "no such file or folder: nonexist": the daemon
    # names no absolute path in a reply (test_security), so the folder it looked in was
    # lost; the client knows the path it sent, and says it.
    out = sample_daemon.rag("ingest", "missing/notes")  # relative: resolved where rag runs
    assert out.returncode == ExitCode.BAD_REQUEST, out.stderr
    assert out.stderr.splitlines() == [
        f"rag: no such file or folder: {sample_daemon.tmp / 'missing' / 'notes'}"
    ]


def test_model_without_a_key_says_it_has_no_effect(sample_daemon: Daemon) -> None:
    out = sample_daemon.rag("ask", "--model", "claude-opus-4-1", DOGS)
    assert out.returncode == 0
    assert "--model has no effect" in out.stderr and "ANTHROPIC_API_KEY" in out.stderr
    assert "no effect" not in sample_daemon.rag("ask", DOGS).stderr


# -- one keyed daemon, started while a `rag status --wait` already waits for it ----------------
@pytest.fixture(scope="module")
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture(scope="module")
def started(
    tmp_path_factory: pytest.TempPathFactory, fake: FakeAnthropic
) -> Iterator[tuple[Daemon, subprocess.Popen[str]]]:
    tmp = tmp_path_factory.mktemp("polish")
    (tmp / "pets").mkdir()
    (tmp / "pets" / "pets.md").write_text(PETS)
    config = tmp / "config.toml"
    config.write_text(
        f'anthropic_base_url = "{fake.base_url}"\napi_timeout_s = 20\napi_max_retries = 0\n'
    )
    daemon = Daemon(
        tmp,
        [tmp / "pets"],
        env={"ANTHROPIC_API_KEY": "sk-test-not-a-real-key", "XDG_STATE_HOME": str(tmp / "state")},
        extra_args=["--config", str(config)],
    )
    assert not daemon.socket.exists()
    waiter = subprocess.Popen(
        [str(BIN / "rag"), "status", "--wait", "--timeout", "120", "--json"],
        env=daemon.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.3)  # the waiter has found no socket at least once
    daemon.start()
    yield daemon, waiter
    waiter.kill()
    daemon.stop()


def test_status_wait_waits_for_a_daemon_that_is_starting(
    started: tuple[Daemon, subprocess.Popen[str]],
) -> None:
    _, waiter = started
    stdout, stderr = waiter.communicate(timeout=120)
    assert waiter.returncode == 0, stderr
    data = json.loads(stdout)
    assert data["state"] == "idle" and data["files"] == 1


def make_folder(folder: Path, count: int) -> None:
    folder.mkdir()
    for i in range(1, count + 1):
        (folder / f"log{i:02d}.md").write_text(
            f"# Harbour log {i}\n\nThe TIDEMARK{i:02d} entry records the pilot boarding time "
            f"and the berth used on day {i}.\n"
        )


def test_ingest_progress_counts_the_added_folder(
    started: tuple[Daemon, subprocess.Popen[str]],
) -> None:
    daemon, _ = started
    daemon.wait_idle()
    make_folder(daemon.tmp / "harbour", 12)
    proc = subprocess.Popen(
        [str(BIN / "rag"), "ingest", str(daemon.tmp / "harbour")],
        env=daemon.env,
        stderr=subprocess.PIPE,
        text=True,
    )
    conn = Connection(str(daemon.socket))
    seen: set[tuple[int, int]] = set()
    while proc.poll() is None:
        status = conn.call("status", {})
        if status["state"] == "indexing":  # idle shows the previous burst (start-up's 1/1)
            seen.add((status["progress"]["done"], status["progress"]["total"]))
        time.sleep(0.01)
    conn.close()
    assert proc.returncode == 0
    # it grows while the folder is listed, and never passes 12: the folder is not a file
    assert max(total for _, total in seen) == 12, seen
    assert max(done for done, _ in seen) <= 12
    last = proc.stderr.read().splitlines()[-1]  # type: ignore[union-attr]
    harbour = next(r for r in daemon.status()["roots"] if r["name"] == "harbour")
    assert last == f"indexed harbour: 12 files, {harbour['chunks']} chunks (0 skipped)"


def test_forget_takes_effect_before_it_returns(
    started: tuple[Daemon, subprocess.Popen[str]],
) -> None:
    daemon, _ = started
    daemon.wait_idle()
    if "harbour" not in [r["name"] for r in daemon.status()["roots"]]:
        make_folder(daemon.tmp / "harbour", 12)
        daemon.call("ingest", path=str(daemon.tmp / "harbour"))
    daemon.wait_searchable("TIDEMARK07", "harbour/log07.md")
    conn = Connection(str(daemon.socket))
    try:
        assert conn.call("forget", {"root": "harbour"})["forgotten"]
        # at once, on the same connection: the writer may not have pruned a single chunk yet
        for mode in ("bm25", "hybrid"):
            results = conn.call("search", {"query": "TIDEMARK07 pilot berth", "mode": mode})
            assert not [r for r in results["results"] if "TIDEMARK" in r["text"]], mode
        status = conn.call("status", {})
        assert [r["name"] for r in status["roots"]] == ["pets"] and status["files"] == 1
    finally:
        conn.close()


# -- rag chat on a terminal ------------------------------------------------------------------
def test_chat_on_a_terminal(
    started: tuple[Daemon, subprocess.Popen[str]], fake: FakeAnthropic
) -> None:
    daemon, _ = started
    # The question must clear the gate: with the default floor (before the first idle
    # measurement learns this one-file index's) it may be refused without a model call.
    daemon.wait_floor_settled()
    before = len(fake.requests)
    with Terminal(daemon) as term:
        term.expect("you> ")
        term.type("/help\n")
        term.expect("commands (handled here, never sent to the model)")
        term.expect("you> ")
        term.type("/frobnicate now\n")
        term.expect("unknown command /frobnicate; /help lists the commands")
        term.expect("you> ")
        term.type("\x1b[A\n")  # Up: the previous line again, from readline's history
        term.expect("unknown command /frobnicate")
        term.expect("you> ")

        fake.reply_hang(4)  # long enough for Ctrl-C; short enough not to hold up the stop
        term.type(DOGS + "\n")
        wait_for(lambda: len(fake.requests) > before, 30, "the question to reach the model")
        term.proc.send_signal(signal.SIGINT)  # Ctrl-C while the answer is awaited
        term.expect("(answer stopped)")
        term.expect("you> ")

        fake.reply_text("Dogs travel on a short lead [pets.md:Pets on board]\nConfidence: high")
        term.type(DOGS + "\n")
        term.expect("Dogs travel on a short lead")
        term.expect("you> ")
        assert term.leave() == 0
    sent = [json.dumps(r.body) for r in fake.requests[before:]]
    assert len(sent) == 2 and not [b for b in sent if "frobnicate" in b or "/help" in b]
    history = (daemon.tmp / "state" / "ragd" / "chat_history").read_text()
    assert re.search(r"^/frobnicate now$", history, re.M) and DOGS in history
    assert (daemon.tmp / "state" / "ragd" / "chat_history").stat().st_mode & 0o077 == 0


def test_a_scope_outside_the_roots_is_named_whole(sample_daemon: Daemon) -> None:
    # `rag search --in /etc …` said "--in etc: not inside a watched root": the daemon puts
    # no absolute path in a reply, so only the last name came back (newuser36).
    outside = sample_daemon.tmp / "elsewhere" / "etc"
    outside.mkdir(parents=True)
    for command in ("search", "ask"):
        out = sample_daemon.rag(command, "--in", str(outside), "ferry dogs")
        assert out.returncode == ExitCode.USAGE, out.stderr
        assert out.stderr.startswith(f"rag: --in {outside}: not inside a watched root"), out.stderr
    chat = sample_daemon.rag("chat", "--in", str(outside), input="ferry dogs?\n")
    assert f"--in {outside}: not inside a watched root" in chat.stderr, chat.stderr
