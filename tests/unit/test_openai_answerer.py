"""OpenAIAnswerer against our fake Chat Completions server, through the real openai SDK.

The flow it shares with Claude (envelope, --json retry, citation check, retries) is
tested in depth in test_claude_answerer.py; here each behaviour is shown on this wire.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from ragd.query.openai_chat import NO_KEY, OpenAIAnswerer
from ragd.query.prompting import JSON_SYSTEM_PROMPT, SYSTEM_PROMPT
from ragd.query.types import Citation
from ragproto.errors import ExitCode
from tests.support.answering import DOGS, RETURNS, RecordingSleep, json_reply, raise_model_error
from tests.support.commands import run_python
from tests.support.fake_openai import FakeOpenAI

MODEL = "llama3.2"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def answerer(fake: FakeOpenAI, **overrides: Any) -> OpenAIAnswerer:
    options: dict[str, Any] = {"timeout_s": 5, "max_retries": 0}
    options.update(overrides)
    return OpenAIAnswerer(fake.base_url, MODEL, **options)


def test_request_is_a_chat_completion_with_the_envelope(fake: FakeOpenAI) -> None:
    fake.reply_text("Thirty days [handbook.md:Tickets > Returns].\nConfidence: high")
    answerer(fake).answer("How long is a return valid?", [RETURNS, DOGS])
    (request,) = fake.requests
    body = request.body
    assert request.path == "/v1/chat/completions"
    assert body["stream"] is True and body["model"] == MODEL and body["max_tokens"] == 1024
    system, question = body["messages"]
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    assert question["role"] == "user"
    assert question["content"].startswith("<documents>\n<document ")
    assert question["content"].endswith("How long is a return valid?")
    assert '<document index="2" source="pets.md"' in question["content"]


def test_key_is_sent_only_as_the_bearer_token(fake: FakeOpenAI) -> None:
    answerer(fake, api_key="sk-local-test").answer("q", [RETURNS])
    answerer(fake).answer("q", [RETURNS])
    with_key, without = fake.requests
    assert with_key.headers["authorization"] == "Bearer sk-local-test"
    assert b"sk-local-test" not in with_key.raw
    assert without.headers["authorization"] == f"Bearer {NO_KEY}"


def test_streamed_answer_with_citations(fake: FakeOpenAI) -> None:
    reply = "Return tickets last 30 days [handbook.md:Tickets > Returns].\nConfidence: high"
    fake.reply_text(reply, piece_chars=5)
    deltas: list[str] = []
    answer = answerer(fake).answer("q", [RETURNS, DOGS], on_delta=deltas.append)
    assert len(deltas) > 3 and "".join(deltas) == reply
    # The Answer carries the confidence; its text is the reply without the closing line.
    assert answer.text == reply.removesuffix("\nConfidence: high") and answer.confidence_in_text
    assert answer.mode == "openai" and answer.confidence == "high" and not answer.refused
    assert answer.citations == [Citation("handbook.md", "Tickets > Returns", 0.61)]
    assert answer.warnings == []


def test_citing_a_source_it_was_not_given_is_dropped_with_a_warning(fake: FakeOpenAI) -> None:
    fake.reply_text("Dogs ride free [pets.md:Animals: dogs]; see [secrets.md:Keys].")
    answer = answerer(fake).answer("q", [RETURNS, DOGS])
    assert answer.citations == [Citation("pets.md", "Animals: dogs", 0.42)]
    assert answer.warnings == [
        "warning: dropped citation [secrets.md:Keys] — not among the retrieved documents"
    ]


def test_cut_off_at_the_length_limit_is_reported(fake: FakeOpenAI) -> None:
    fake.reply_text("Return tickets are valid for", stop_reason="length")
    answer = answerer(fake, max_tokens=8).answer("q", [RETURNS])
    assert answer.warnings == ["warning: the answer was cut off at the 8-token limit"]


def test_json_mode_validates_without_streaming(fake: FakeOpenAI) -> None:
    fake.reply_text(json_reply())
    answer = answerer(fake).answer("q", [RETURNS], json_mode=True)
    (request,) = fake.requests
    assert not request.body.get("stream")
    assert request.body["messages"][0]["content"] == JSON_SYSTEM_PROMPT
    assert answer.citations == [Citation("handbook.md", "Tickets > Returns", 0.61)]
    assert answer.confidence == "high"


def test_json_ignored_is_retried_once_with_the_error_then_fails(fake: FakeOpenAI) -> None:
    fake.reply_text("Sure! Return tickets last thirty days.", times=2)
    error = raise_model_error(lambda: answerer(fake).answer("q", [RETURNS], json_mode=True))
    assert error.type_name == "model_invalid_output"
    assert error.exit_code == ExitCode.INVALID_MODEL_OUTPUT
    assert "not valid JSON twice: it is not JSON" in str(error)
    _, second = fake.requests
    roles = [m["role"] for m in second.body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert second.body["messages"][2]["content"] == "Sure! Return tickets last thirty days."
    assert "Your reply was not valid: it is not JSON" in second.body["messages"][3]["content"]


def test_json_retry_that_succeeds_answers(fake: FakeOpenAI) -> None:
    fake.reply_text("not json")
    fake.reply_text(json_reply(confidence="medium"))
    answer = answerer(fake).answer("q", [RETURNS], json_mode=True)
    assert answer.confidence == "medium" and len(fake.requests) == 2


def test_connection_refused_names_the_server() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    local = OpenAIAnswerer(url, MODEL, timeout_s=5, max_retries=0)
    error = raise_model_error(lambda: local.answer("q", [RETURNS]))
    assert error.type_name == "model_unavailable"
    assert f"could not reach the OpenAI-compatible server at {url}: connection refused" in str(
        error
    )


def test_unknown_model_is_a_request_error_without_retry(fake: FakeOpenAI) -> None:
    fake.reply_error(404, "not_found_error", 'model "llama9" not found, try pulling it first')
    error = raise_model_error(lambda: answerer(fake, max_retries=3).answer("q", [RETURNS]))
    assert error.type_name == "bad_request" and error.status == 404
    assert 'model "llama9" not found' in str(error)
    assert "check openai_model" in str(error)
    assert len(fake.requests) == 1


def test_rejected_key_is_model_auth(fake: FakeOpenAI) -> None:
    fake.reply_error(401, "invalid_request_error", "Invalid API key")
    error = raise_model_error(lambda: answerer(fake, max_retries=3).answer("q", [RETURNS]))
    assert error.type_name == "model_auth" and "check OPENAI_API_KEY" in str(error)
    assert len(fake.requests) == 1


@pytest.mark.parametrize("json_mode", [False, True])
def test_a_server_that_never_answers_times_out(fake: FakeOpenAI, json_mode: bool) -> None:
    fake.reply_hang(60)  # released when the fake closes, so the test never waits for it
    local = answerer(fake, timeout_s=0.3)
    error = raise_model_error(lambda: local.answer("q", [RETURNS], json_mode=json_mode))
    assert error.type_name == "model_unavailable"
    assert "did not answer within 0.3 s (1 attempt)" in str(error)


def test_server_errors_are_retried_a_bounded_number_of_times(fake: FakeOpenAI) -> None:
    fake.reply_error(500, "server_error", "out of memory", headers={}, default=True)
    sleep = RecordingSleep()
    error = raise_model_error(
        lambda: answerer(fake, max_retries=2, sleep=sleep).answer("q", [RETURNS])
    )
    assert error.type_name == "model_unavailable" and error.status == 500
    assert "failed (500 server_error: out of memory) after 3 attempts" in str(error)
    assert len(fake.requests) == 3 and len(sleep.waits) == 2


def test_failure_mid_stream_is_not_retried(fake: FakeOpenAI) -> None:
    fake.reply_stream_error("Return tickets are", "server_error", "model crashed")
    deltas: list[str] = []
    error = raise_model_error(
        lambda: answerer(fake, max_retries=3).answer("q", [RETURNS], on_delta=deltas.append)
    )
    assert "stopped part-way" in str(error) and "model crashed" in str(error)
    assert "".join(deltas) == "Return tickets are"
    assert len(fake.requests) == 1


def test_importing_the_module_does_not_import_the_sdk() -> None:
    code = "import sys, ragd.query.openai_chat; print('openai' in sys.modules)"
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
