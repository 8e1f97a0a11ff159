"""`rag mcp`'s line gate: what the SDK would drop without a word is answered, the rest
passes unchanged, however the host's bytes are cut into chunks."""

from __future__ import annotations

import json

from ragcli.mcp_lines import INVALID_REQUEST, PARSE_ERROR, LineGate

HOST = (
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    b"{not json\n"
    b'{"jsonrpc":"2.0","id":5}\n'
    b"[1, 2]\n"
    b"\n"
    b'{"jsonrpc":"2.0","id":2,"result":{}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
)


def run(chunks: list[bytes], limit: int = 1 << 20) -> tuple[bytes, list[dict[str, object]]]:
    forwarded: list[bytes] = []
    answers: list[bytes] = []
    gate = LineGate(forwarded.append, answers.append, limit)
    for chunk in chunks:
        gate.feed(chunk)
    gate.close()
    return b"".join(forwarded), [json.loads(a) for a in answers]


def test_lines_the_sdk_would_drop_are_answered_and_the_rest_pass() -> None:
    whole, answers = run([HOST])
    assert whole == (
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
        b"\n"
        b'{"jsonrpc":"2.0","id":2,"result":{}}\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
    )
    assert [(a["id"], a["error"]["code"]) for a in answers] == [  # type: ignore[index]
        (None, PARSE_ERROR),
        (5, INVALID_REQUEST),
        (None, INVALID_REQUEST),
    ]
    # Cut anywhere, byte by byte included: the same lines, the same answers.
    for size in (1, 3, 7, 64):
        assert run([HOST[i : i + size] for i in range(0, len(HOST), size)]) == (whole, answers)


def test_a_line_past_the_limit_passes_as_it_comes_unchecked() -> None:
    forwarded: list[bytes] = []
    answers: list[bytes] = []
    gate = LineGate(forwarded.append, answers.append, limit=16)
    gate.feed(b"{not json and lo")
    gate.feed(b"nger than sixteen")
    assert b"".join(forwarded) == b"{not json and longer than sixteen"  # not held back
    gate.feed(b' bytes"}\n{bad\n')
    gate.close()
    assert b"".join(forwarded) == b'{not json and longer than sixteen bytes"}\n'
    assert [json.loads(a)["error"]["code"] for a in answers] == [PARSE_ERROR]
