"""`rag mcp`'s line gate: what the SDK would drop without a word is answered, the rest
passes unchanged, however the host's bytes are cut into chunks."""

from __future__ import annotations

import json

from ragcli.mcp_lines import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_DEPTH,
    PARSE_ERROR,
    LineGate,
    refusal,
)

HOST = (
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    b"{not json\n"
    b'{"jsonrpc":"2.0","id":5}\n'
    b"[1, 2]\n"
    b"\n"
    b'{"jsonrpc":"2.0","id":2,"result":{}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
)


def run(chunks: list[bytes]) -> tuple[bytes, list[dict[str, object]]]:
    forwarded: list[bytes] = []
    answers: list[bytes] = []
    gate = LineGate(forwarded.append, answers.append)
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


def test_a_line_is_held_until_it_ends_and_then_checked() -> None:
    forwarded: list[bytes] = []
    answers: list[bytes] = []
    gate = LineGate(forwarded.append, answers.append, longest=64)
    gate.feed(b"{not json and lo")
    gate.feed(b"nger than sixteen")
    assert forwarded == []  # held: nothing is known of it until it ends
    gate.feed(b' bytes"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    gate.close()
    assert b"".join(forwarded) == b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n'
    assert [json.loads(a)["error"]["code"] for a in answers] == [PARSE_ERROR]


def _nested(levels: int, request_id: object = 3) -> bytes:
    """A ping whose params nest `levels` objects and arrays deep in all."""
    inner = "[" * (levels - 2) + "]" * (levels - 2)
    head = {"jsonrpc": "2.0", "id": request_id, "method": "ping"}
    return json.dumps(head)[:-1].encode() + b', "params": {"a": ' + inner.encode() + b"}}"


# Requests the SDK's JSON-RPC model refuses (it then drops them: no reply) or reads as a
# notification although they carry an id (no reply either); each with the id a host waits on.
DROPPED = [
    (b'{"jsonrpc":"2.0","id":10,"method":5}', 10),
    (b'{"id":11,"method":"ping"}', 11),
    (b'{"jsonrpc":"1.0","id":12,"method":"ping"}', 12),
    (b'{"jsonrpc":"2.0","id":13,"method":"ping","params":[1]}', 13),
    (b'{"jsonrpc":"2.0","id":14,"method":"ping","params":"x"}', 14),
    (b'{"jsonrpc":"2.0","id":15.0,"method":"ping"}', 15.0),
    (b'{"jsonrpc":"2.0","id":15.5,"method":"ping"}', 15.5),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', None),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', None),
    (b'{"jsonrpc":"2.0"}', None),
    (_nested(MAX_DEPTH + 1, 16), 16),
    # Half a surrogate pair, as a JavaScript host writes a string cut inside an emoji
    # (JSON.stringify escapes it): Python reads it, the SDK's parser refuses the line.
    (
        rb'{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"search",'
        rb'"arguments":{"query":"ferry \ud83d"}}}',
        17,
    ),
    (rb'{"jsonrpc":"2.0","id":18,"method":"ping","params":{"\udc00":1}}', 18),
    (rb'{"jsonrpc":"2.0","id":"q\ud800","method":"ping"}', "q\ud800"),
]
PASSED = [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":"a","method":"ping","params":null}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","id":2,"result":{}}',
    _nested(MAX_DEPTH),
    rb'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"q":"\ud83d\ude00 \u00e9"}}',
]


def test_every_request_the_sdk_would_drop_is_answered_with_its_id() -> None:
    from mcp import types  # the SDK's own model of a JSON-RPC line decides what it drops

    def sdk_reads(line: bytes) -> str:
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:
            return "dropped"
        return type(message).__name__

    for line, request_id in DROPPED:
        assert sdk_reads(line) in ("dropped", "JSONRPCNotification"), line
        reply = refusal(line)
        assert reply is not None, line
        answer = json.loads(reply)
        assert answer["error"]["code"] == INVALID_REQUEST and answer["id"] == request_id, line
    for line in PASSED:
        assert sdk_reads(line) != "dropped" and refusal(line) is None, line


def test_a_line_nested_past_the_interpreters_depth_is_a_parse_error() -> None:
    deep = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":' + b"[" * 50_000
    whole, answers = run([deep + b"]" * 50_000 + b"}}\n", b'{"jsonrpc":"2.0","id":2}\n'])
    assert whole == b""  # neither went on to the SDK, which would drop both
    assert [(a["id"], a["error"]["code"]) for a in answers] == [  # type: ignore[index]
        (None, PARSE_ERROR),
        (2, INVALID_REQUEST),
    ]


def test_a_bad_request_longer_than_a_mib_is_answered_too() -> None:
    """attack41: the gate passed a line over 1 MiB on unchecked, so a bad request that
    long (a pasted 2 MB question cut inside an emoji, `jsonrpc` "1.0", a line cut short)
    went to the SDK, which dropped it without a reply: the host waited for ever."""
    pad = b"w" * (2 << 20)
    bad = [
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask",'
        b'"arguments":{"question":"' + pad + rb' \ud83d"}}}',
        b'{"jsonrpc":"1.0","id":6,"method":"ping","params":{"pad":"' + pad + b'"}}',
        b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"' + pad + b'"}',
    ]
    good = b'{"jsonrpc":"2.0","id":8,"method":"ping","params":{"pad":"' + pad + b'"}}\n'
    host = b"\n".join(bad) + b"\n" + good
    whole, answers = run([host[i : i + 65536] for i in range(0, len(host), 65536)])
    assert whole == good  # the sound one goes on whole; the SDK would drop the others
    assert [(a["id"], a["error"]["code"]) for a in answers] == [  # type: ignore[index]
        (5, INVALID_REQUEST),
        (6, INVALID_REQUEST),
        (None, PARSE_ERROR),
    ]


def test_a_line_of_millions_of_values_is_refused_unread_with_its_id() -> None:
    """attack41: a 50 MB `tools/call` whose query is 17 million empty arrays made
    `rag mcp` (the SDK's parser) grow to 3.2 GB and take 89 s; no request it serves has
    more than a few thousand values. Refused before anything parses it, with the id
    written ahead of the params (as hosts write it)."""
    values = b"[" + b"[]," * 400_000 + b"[]]"
    line = (
        b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search",'
        b'"arguments":{"query":' + values + b"}}}\n"
    )
    ping = b'{"jsonrpc":"2.0","id":10,"method":"ping"}\n'
    whole, answers = run([line, ping])
    assert whole == ping
    [answer] = answers
    assert answer["id"] == 9 and answer["error"]["code"] == INVALID_REQUEST  # type: ignore[index]
    assert "values" in answer["error"]["message"]  # type: ignore[index]
    params_first = b'{"params":{"q":' + values + b'},"jsonrpc":"2.0","id":11,"method":"ping"}\n'
    assert run([params_first])[1][0]["id"] is None  # not found ahead of them: unknown


def test_a_request_before_initialize_or_a_call_of_no_shape_is_told_what_is_wrong() -> None:
    """attack41: the SDK answered both with `-32602 Invalid request parameters` and empty
    data, a call before `initialize` with perfectly good params included."""
    early = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status"}}\n'
    init = b'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}\n'
    shapeless = [
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":[1]}}\n',
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}\n',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call"}\n',
    ]
    ping = b'{"jsonrpc":"2.0","id":6,"method":"ping"}\n'
    whole, answers = run([ping, early, init, *shapeless, early])
    assert whole == ping + init + early  # ping needs no session; the late call goes on
    said = {a["id"]: a["error"] for a in answers}  # type: ignore[index]
    assert set(said) == {1, 3, 4, 5}
    assert said[1]["code"] == INVALID_PARAMS and "before initialize" in said[1]["message"]
    assert "arguments must be an object" in said[3]["message"]
    assert "name must be a string" in said[4]["message"]
    assert "name must be a string" in said[5]["message"]
