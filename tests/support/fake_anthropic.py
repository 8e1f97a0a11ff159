"""A scripted stand-in for the Anthropic Messages API, for tests of the real SDK.

    with FakeAnthropic() as fake:
        fake.reply_text("Ferries leave hourly [handbook.md:Timetable]\\nConfidence: high")
        fake.reply_error(429, "rate_limit_error", "slow down", headers={"retry-after": "0"})
        answerer = ClaudeAnswerer("sk-test-not-a-real-key", base_url=fake.base_url)
        ...
        fake.requests[0].body["system"]

`POST /v1/messages` serves the next scripted reply: a JSON message, or a server-sent-event
stream in the API's event order when the request says `"stream": true`. The queue, the
recording and the server are scripted_http.py's.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.scripted_http import ErrorReply, ScriptedServer, TextReply, pieces


class FakeAnthropic(ScriptedServer):
    route = "/v1/messages"
    end_turn = "end_turn"

    def error_body(self, reply: ErrorReply) -> dict[str, Any]:
        return {"type": "error", "error": {"type": reply.error_type, "message": reply.message}}

    def message(self, reply: TextReply, model: str, request_bytes: int) -> dict[str, Any]:
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            # An empty reply is an empty content list, as the API sends for a bare refusal.
            "content": [{"type": "text", "text": reply.text}] if reply.text else [],
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": request_bytes // 4, "output_tokens": len(reply.text) // 4},
        }

    def reply_stream_cut(self, partial_text: str) -> None:
        """Stream `partial_text`, then close the connection: no `message_delta` with a stop
        reason, no `message_stop` (a proxy or the server dying mid-answer)."""
        self._script(TextReply(partial_text, self.end_turn, cut_after_text=True), 1, False)

    def stream_frames(self, reply: TextReply, model: str) -> list[str]:
        frames = [
            f"event: {event_type}\ndata: {json.dumps(data)}\n\n"
            for event_type, data in _stream_events(reply, model)
        ]
        if reply.broken_after_text:
            frames.append('event: content_block_delta\ndata: {"type": "content_blo\n\n')
        return frames


def _stream_events(reply: TextReply, model: str) -> list[tuple[str, dict[str, Any]]]:
    start: dict[str, Any] = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    # An empty reply opens no content block: the message's content list stays empty.
    opened = bool(reply.text or reply.cut_after_text or reply.error_after_text)
    if opened:
        events.insert(1, ("content_block_start", block))
    for piece in pieces(reply.text, reply.piece_chars):
        delta = {"type": "text_delta", "text": piece}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        )
    if reply.error_after_text is not None:
        error_type, message = reply.error_after_text
        events.append(
            ("error", {"type": "error", "error": {"type": error_type, "message": message}})
        )
        return events
    if reply.cut_after_text or reply.broken_after_text:
        return events
    if opened:
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": len(reply.text) // 4},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events
