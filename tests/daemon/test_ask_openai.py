"""`rag ask` answered by an OpenAI-compatible server: a real daemon and client, the real
openai SDK, and our Chat Completions server on 127.0.0.1 standing in for Ollama."""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Iterator

import pytest

from ragproto.errors import ExitCode
from tests.conftest import SAMPLE_CORPUS
from tests.support.daemon import Daemon
from tests.support.fake_openai import FakeOpenAI
from tests.support.reload import Reloader, toml

DOGS = "Can I bring my dog on the ferry?"
DOGS_CITE = (
    "[passenger-handbook.md:Kestrel Sound Ferries Passenger Handbook > Luggage, Animals and "
    "Bicycles > Dogs and other pets]"
)
MODEL = "llama3.2"
KEY = "sk-local-not-a-real-key"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def local(
    tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI
) -> Iterator[tuple[Daemon, Reloader]]:
    tmp = tmp_path_factory.mktemp("openai")
    root = tmp / "sample_corpus"
    shutil.copytree(SAMPLE_CORPUS, root)
    base = {
        "openai_base_url": fake.base_url,
        "openai_model": MODEL,
        "api_timeout_s": 2.0,
        "api_max_retries": 1,
    }
    config = tmp / "config.toml"
    config.write_text(toml(base))
    env = {"OPENAI_API_KEY": KEY}
    daemon = Daemon(tmp, [root], env=env, extra_args=["--config", str(config)]).start()
    daemon.wait_idle()
    yield daemon, Reloader(daemon, config, base)
    daemon.stop()


def test_status_names_the_server_and_model(
    local: tuple[Daemon, Reloader], fake: FakeOpenAI
) -> None:
    daemon, _ = local
    lines = daemon.rag("status").stdout.splitlines()
    assert f"answers    openai-compatible ({MODEL} at {fake.base_url})" in lines
    data = daemon.status()
    assert (data["answers"], data["answer_model"], data["answer_url"]) == (
        "openai",
        MODEL,
        fake.base_url,
    )


def test_streamed_answer_with_citations(local: tuple[Daemon, Reloader], fake: FakeOpenAI) -> None:
    daemon, _ = local
    fake.reply_text(f"Yes: dogs travel free on a lead {DOGS_CITE}.\n\nConfidence: high")
    out = daemon.rag("ask", "--show-sources", DOGS)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"Yes: dogs travel free on a lead {DOGS_CITE}.")
    assert out.stdout.count("Confidence: high") == 1 and "· cited" in out.stdout
    request = fake.requests[-1]
    assert request.body["stream"] is True and request.body["model"] == MODEL
    system, question = request.body["messages"]
    assert system["role"] == "system" and "untrusted DATA" in system["content"]
    assert question["content"].index("<document index=") < question["content"].index(DOGS)
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_citation_of_a_source_not_given_is_dropped(
    local: tuple[Daemon, Reloader], fake: FakeOpenAI
) -> None:
    daemon, _ = local
    fake.reply_text(f"Dogs are fine {DOGS_CITE}; cats too [made-up.md:Cats].\nConfidence: medium")
    out = daemon.rag("ask", DOGS)
    assert out.returncode == 0, out.stderr
    assert (
        "warning: dropped citation [made-up.md:Cats] — not among the retrieved documents"
        in out.stderr
    )


def test_json_answer_reports_openai_mode(local: tuple[Daemon, Reloader], fake: FakeOpenAI) -> None:
    daemon, _ = local
    heading = DOGS_CITE[1:-1].split(":", 1)[1]
    reply = {
        "answer": f"Dogs travel free on a lead {DOGS_CITE}.",
        "citations": [{"source": "passenger-handbook.md", "heading": heading}],
        "confidence": "high",
        "refused": False,
    }
    fake.reply_text(json.dumps(reply))
    out = daemon.rag("ask", "--json", DOGS)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["mode"] == "openai" and data["citations"][0]["heading"] == heading


def test_a_model_that_ignores_the_format_fails_after_one_retry(
    local: tuple[Daemon, Reloader], fake: FakeOpenAI
) -> None:
    daemon, _ = local
    fake.reply_text("Sure! Dogs are welcome.", times=2)
    before = len(fake.requests)
    out = daemon.rag("ask", "--json", DOGS)
    assert out.returncode == ExitCode.INVALID_MODEL_OUTPUT
    assert out.stdout == "" and "not valid JSON twice" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert len(fake.requests) == before + 2


def test_unknown_model_is_one_clear_line(local: tuple[Daemon, Reloader], fake: FakeOpenAI) -> None:
    daemon, _ = local
    fake.reply_error(404, "not_found_error", f'model "{MODEL}" not found, try pulling it first')
    before = len(fake.requests)
    out = daemon.rag("ask", DOGS)
    assert out.returncode == ExitCode.BAD_REQUEST
    assert f'model "{MODEL}" not found' in out.stderr and "check openai_model" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert len(fake.requests) == before + 1  # not retried


def test_server_errors_are_retried_a_bounded_number_of_times(
    local: tuple[Daemon, Reloader], fake: FakeOpenAI
) -> None:
    daemon, _ = local
    fake.reply_error(500, "server_error", "llama runner crashed", times=2)  # api_max_retries = 1
    before = len(fake.requests)
    out = daemon.rag("ask", DOGS)
    assert out.returncode == ExitCode.MODEL_UNAVAILABLE
    assert "500 server_error: llama runner crashed" in out.stderr and "2 attempts" in out.stderr
    assert len(fake.requests) - before == 2


def test_a_server_that_never_answers_times_out(
    local: tuple[Daemon, Reloader], fake: FakeOpenAI
) -> None:
    daemon, reload = local
    reload(api_max_retries=0)
    fake.reply_hang(60)  # released when the fake closes
    out = daemon.rag("ask", DOGS)
    assert out.returncode == ExitCode.MODEL_UNAVAILABLE
    assert f"{fake.base_url} did not answer within 2 s (1 attempt)" in out.stderr


def test_an_answer_cut_by_an_error_ends_its_line_before_the_error(
    local: tuple[Daemon, Reloader], fake: FakeOpenAI
) -> None:
    # Found by attack: the error line was glued to the half-written answer ("Dogs travrag: …").
    daemon, _ = local
    fake.reply_stream_error("Dogs trav", "server_error", "llama runner process has terminated")
    out = daemon.rag("ask", DOGS)
    assert out.returncode == ExitCode.MODEL_UNAVAILABLE
    assert out.stdout == "Dogs trav\n"
    assert "the answer stopped part-way" in out.stderr


def test_connection_refused(local: tuple[Daemon, Reloader]) -> None:
    daemon, reload = local
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    reload(openai_base_url=url, api_max_retries=0)
    out = daemon.rag("ask", DOGS)
    assert out.returncode == ExitCode.MODEL_UNAVAILABLE
    assert f"could not reach the OpenAI-compatible server at {url}: connection refused" in (
        out.stderr
    )


def test_the_key_never_reaches_the_client_or_log(local: tuple[Daemon, Reloader]) -> None:
    daemon, _ = local
    assert KEY not in daemon.rag("status", "--json").stdout
    assert KEY not in daemon.ragd("config", "--config", str(daemon.tmp / "config.toml")).stdout
    assert KEY not in daemon.log()
