"""SIGHUP, setting by setting: a real daemon, a real config file, a real signal, and the
effect of each new value observed where it acts — the request the (fake) Anthropic API
receives, a search's results and gate, a file the writer indexes or skips, the parse
worker's memory limit, the log. Settings a running daemon cannot change are named in the
log instead, and keep their running value.

Every setting must be in RELOADED (with the test that shows its effect) or in
config.RESTART_ONLY: a new setting fails `test_every_setting_is_reloaded_or_needs_a_restart`
until someone decides which it is.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.core.config import FIELDS, RESTART_ONLY
from ragd.core.no_text import LINK_NOT_FOLLOWED
from tests.support.daemon import Daemon, wait_for
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_openai import FakeOpenAI
from tests.support.reload import Reloader, toml

RELOADED = {
    "model": "test_answer_settings",
    "anthropic_base_url": "test_answer_settings",
    "context_budget_tokens": "test_answer_settings",
    "api_timeout_s": "test_answer_settings",
    "api_max_retries": "test_answer_settings",
    "answers": "test_answer_backend",
    "openai_base_url": "test_answer_backend",
    "openai_model": "test_answer_backend",
    "allow_insecure_openai": "test_answer_backend",
    "top_k": "test_search_settings",
    "candidates": "test_search_settings",
    "support_floor": "test_search_settings",
    "max_file_mb": "test_file_settings",
    "max_text_mb": "test_file_settings",
    "parse_timeout_s": "test_file_settings",
    "parse_memory_mb": "test_file_settings",
    "follow_symlinks": "test_file_settings",
    "debounce_ms": "test_debounce",
    "roots": "test_roots_log_level_and_shutdown_timeout",
    "log_level": "test_roots_log_level_and_shutdown_timeout",
    "shutdown_timeout_s": "test_roots_log_level_and_shutdown_timeout",
    "disk_deadline_s": "test_scope_on_a_stalled_mount.py",
}
QUESTION = "Which lantern does the harbour keeper light at dusk?"
NOTES = {
    f"lantern{i}.md": (
        f"# Lantern {i}\n\nThe harbour keeper lights lantern {i} at dusk, after the tide "
        f"board is checked, and logs the time in the lamp book (entry L{i}07).\n"
    )
    for i in range(1, 5)
}


@pytest.fixture(scope="module")
def fakes() -> Iterator[tuple[FakeAnthropic, FakeAnthropic]]:
    with FakeAnthropic() as first, FakeAnthropic() as second:
        yield first, second


@pytest.fixture(scope="module")
def running(
    tmp_path_factory: pytest.TempPathFactory, fakes: tuple[FakeAnthropic, FakeAnthropic]
) -> Iterator[tuple[Daemon, Reloader]]:
    tmp = tmp_path_factory.mktemp("reload")
    notes = tmp / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text)
    base = {
        "roots": [str(notes)],
        "anthropic_base_url": fakes[0].base_url,
        "model": "claude-before",
        "api_timeout_s": 5.0,
        "api_max_retries": 1,
        "support_floor": 0.05,  # every question about the notes passes the gate
    }
    config = tmp / "config.toml"
    config.write_text(toml(base))
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-real-key"}
    daemon = Daemon(tmp, [], env=env, extra_args=["--config", str(config)]).start()
    daemon.wait_idle()
    yield daemon, Reloader(daemon, config, base)
    daemon.stop()


def documents_sent(fake: FakeAnthropic, before: int) -> list[int]:
    """How many documents each request since `before` carried in its prompt."""
    return [r.raw.count(b"<document index=") for r in fake.requests[before:]]


def test_every_setting_is_reloaded_or_needs_a_restart() -> None:
    assert set(RELOADED) | set(RESTART_ONLY) == set(FIELDS)
    assert not set(RELOADED) & set(RESTART_ONLY)


def test_answer_settings(
    running: tuple[Daemon, Reloader], fakes: tuple[FakeAnthropic, FakeAnthropic]
) -> None:
    daemon, reload = running
    first, second = fakes
    before = len(first.requests)
    assert daemon.rag("ask", QUESTION).returncode == 0
    assert [r.body["model"] for r in first.requests[before:]] == ["claude-before"]
    assert documents_sent(first, before)[0] >= 2

    # a new API address, model and context budget: a budget no passage fits (1 token)
    # sends nothing at all and names the setting (attack77: it had sent a paid call with
    # no documents); with the budget back, the next question goes to the new address
    # with the new model
    reload(anthropic_base_url=second.base_url, model="claude-after", context_budget_tokens=1)
    assert daemon.status()["answer_model"] == "claude-after"
    mark_first, mark_second = len(first.requests), len(second.requests)
    out = daemon.rag("ask", QUESTION)
    assert out.returncode != 0 and "raise context_budget_tokens" in out.stderr, out.stderr
    assert (len(first.requests), len(second.requests)) == (mark_first, mark_second)
    reload(anthropic_base_url=second.base_url, model="claude-after")
    assert daemon.rag("ask", QUESTION).returncode == 0
    assert len(first.requests) == mark_first
    assert [r.body["model"] for r in second.requests[mark_second:]] == ["claude-after"]
    assert documents_sent(second, mark_second)[0] >= 2

    # a shorter timeout and no retries: a hanging API fails after one request, within
    # the new 1 s (the old 5 s would have waited out the 3 s hang and then answered)
    reload(anthropic_base_url=second.base_url, api_timeout_s=1.0, api_max_retries=0)
    mark_second = len(second.requests)
    second.reply_hang(3)
    out = daemon.rag("ask", QUESTION)
    assert out.returncode != 0
    assert "did not answer within 1 s (1 attempt)" in out.stderr, out.stderr
    assert len(second.requests) == mark_second + 1


def test_answer_backend(running: tuple[Daemon, Reloader]) -> None:
    """extractive → an OpenAI-compatible server → a refused insecure URL → opted in."""
    daemon, reload = running
    reload(answers="extractive")
    assert daemon.status()["answers"] == "extractive"
    out = daemon.rag("ask", "--json", QUESTION)
    assert json.loads(out.stdout)["mode"] == "extractive"

    with FakeOpenAI() as local:
        reload(answers="openai", openai_base_url=local.base_url, openai_model="llama3.2")
        line = f"answers    openai-compatible (llama3.2 at {local.base_url})"
        assert line in daemon.rag("status").stdout.splitlines()
        local.reply_text("The harbour keeper lights them [lantern1.md:Lantern 1].")
        out = daemon.rag("ask", QUESTION)
        assert out.stdout.startswith("The harbour keeper lights them"), out.stderr
        assert [r.body["model"] for r in local.requests] == ["llama3.2"]

    # plain http to another machine: refused, and the running backend stays
    remote = {"openai_base_url": "http://192.0.2.7:11434/v1", "openai_model": "llama3.2"}
    reload.config.write_text(toml(reload.base | {"answers": "openai"} | remote))
    mark = len(daemon.log())
    daemon.signal(signal.SIGHUP)
    end = daemon.wait_log("reload refused", after=mark)
    assert "192.0.2.7:11434/v1 is not loopback and lacks TLS (https://)" in daemon.log()[end:]
    assert daemon.status()["answer_url"] == line.split(" at ")[1].rstrip(")")
    reload(answers="openai", allow_insecure_openai=True, **remote)
    assert daemon.status()["answer_url"] == remote["openai_base_url"]


def test_search_settings(running: tuple[Daemon, Reloader]) -> None:
    daemon, reload = running
    assert len(daemon.search("lantern", top_k=5, mode="bm25")["results"]) == 4
    assert len(daemon.call("search", query="lantern", mode="bm25")["results"]) == 4
    reload(top_k=3, candidates=2, support_floor=0.77)
    # candidates: BM25 proposes 2, whatever top_k asks for
    assert len(daemon.search("lantern", top_k=5, mode="bm25")["results"]) == 2
    reload(top_k=3, support_floor=0.77)
    # top_k: the default number of results of a search that names none
    assert len(daemon.call("search", query="lantern", mode="bm25")["results"]) == 3
    gate = daemon.search(QUESTION)["gate"]
    assert gate["floor"] == pytest.approx(0.77) and gate["floor_origin"] == "configured"
    retrieval = daemon.call("stats")["retrieval"]
    assert retrieval["top_k"] == 3 and retrieval["support_floor"] == pytest.approx(0.77)
    reload()
    assert daemon.search(QUESTION)["gate"]["floor"] == pytest.approx(0.05)


def problem_of(daemon: Daemon, source: str) -> str:
    def found() -> str | None:
        for error in daemon.status()["errors"]:
            if error["source"] == source:
                return str(error["reason"])
        return None

    return str(wait_for(found, 30, f"a problem reported for {source}"))


def test_file_settings(running: tuple[Daemon, Reloader], tmp_path: Path) -> None:
    daemon, reload = running
    notes = daemon.tmp / "notes"
    text = "# Tide board\n\n" + "The tide board is read twice a day at the quay. " * 60
    reload(max_file_mb=0.001)
    (notes / "big.md").write_text(text)
    assert problem_of(daemon, "big.md").startswith("too large (")  # one root: no prefix

    reload(max_text_mb=0.0001)
    (notes / "wordy.md").write_text(text)
    assert "max_text_mb cap" in problem_of(daemon, "wordy.md")

    reload(parse_timeout_s=0.000001)
    (notes / "slow.md").write_text("# Slow\n\nAny parse takes longer than a microsecond.\n")
    assert problem_of(daemon, "slow.md") == ("parsing took longer than 1e-06 s (parse_timeout_s)")

    reload(parse_memory_mb=96)
    (notes / "small.md").write_text("# Small\n\nThe quay bell rings for the SMALL01 ferry.\n")
    daemon.wait_searchable("SMALL01", "small.md")
    assert 96 * 1024 * 1024 in parse_worker_limits(daemon)

    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nThe OUTSIDE77 buoy marks the channel.\n")
    (notes / "before-link.md").symlink_to(outside)
    wait_for(
        lambda: (
            {"source": "before-link.md", "reason": LINK_NOT_FOLLOWED}
            in daemon.status()["not_followed"]
        ),
        30,
        "the link listed as not followed",
    )
    reload(follow_symlinks=True)
    # The link made before is read now too, so the new one points at other words: two
    # files of the same text under the same heading are one result (query/page.py shows a
    # copy once), and which of the two is shown was up to the ranking's tie.
    later = tmp_path / "later.md"
    later.write_text("# Later\n\nThe LATER78 buoy marks the harbour mouth.\n")
    (notes / "after-link.md").symlink_to(later)
    daemon.wait_searchable("OUTSIDE77", "before-link.md")
    daemon.wait_searchable("LATER78", "after-link.md")
    reload()


def parse_worker_limits(daemon: Daemon) -> set[int]:
    """The address-space limits (bytes) of the daemon's parse worker processes."""
    assert daemon.proc is not None
    limits = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
            limit_lines = (entry / "limits").read_text().splitlines()
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        if int(parent.split()[1]) != daemon.proc.pid or b"parse_child" not in cmdline:
            continue
        for line in limit_lines:
            if line.startswith("Max address space"):
                limits.add(int(line.split()[3]))
    return limits


def test_debounce(running: tuple[Daemon, Reloader]) -> None:
    daemon, reload = running
    daemon.wait_idle()
    reload(debounce_ms=600_000)  # ten minutes of quiet before a change is indexed
    (daemon.tmp / "notes" / "quiet.md").write_text("# Quiet\n\nThe QUIET42 mooring.\n")
    wait_for(lambda: daemon.status()["pending"] > 0, 30, "the watcher to queue the change")
    assert daemon.sources("QUIET42") == []
    reload(debounce_ms=50)  # the waiting change is brought forward to the new debounce
    daemon.wait_searchable("QUIET42", "quiet.md")
    reload()


def test_settings_that_need_a_restart_are_named(running: tuple[Daemon, Reloader]) -> None:
    """Changed restart-only keys are logged as such and keep their running values."""
    daemon, reload = running
    precision = daemon.call("stats")["embedding"]["precision_setting"]
    changed = {
        "exclude": ["*.md"],
        "skip_folders": ["x"],
        "ignore_files": [".otherignore"],
        "include": ["*.txt"],
        "max_message_bytes": 4096,
        "vector_store": "http://127.0.0.1:9",
        "allow_insecure_vector_store": True,
        "top_k": 2,
    }
    said = reload(**changed)
    restart = [k for k in changed if f"{k} changed; it takes effect at the next restart" in said]
    assert restart == [k for k in changed if k in RESTART_ONLY]
    assert "configuration reloaded (changed: top_k)" in said
    assert daemon.call("stats")["embedding"]["precision_setting"] == precision
    assert daemon.status()["vector_store"].startswith("embedded")
    notes = daemon.tmp / "notes"
    (notes / "still.md").write_text("# Still\n\nThe RESTART22 note.\n")  # *.md: indexed
    daemon.wait_searchable("RESTART22", "still.md")
    reload()


def test_roots_log_level_and_shutdown_timeout(running: tuple[Daemon, Reloader]) -> None:
    daemon, reload = running
    extra = daemon.tmp / "extra"
    extra.mkdir()
    (extra / "pier.md").write_text("# Pier\n\nThe PIER19 steps are closed at high water.\n")
    said = reload(
        roots=[str(daemon.tmp / "notes"), str(extra)], log_level="DEBUG", shutdown_timeout_s=7.0
    )
    assert "watching new root extra" in said
    daemon.wait_searchable("PIER19", "extra/pier.md")
    daemon.wait_log("effective configuration")  # a DEBUG line: the new level shows it
    daemon.signal(signal.SIGTERM)
    assert daemon.wait_exit() == 0
    assert "shutting down (SIGTERM) within 7 s" in daemon.log()
