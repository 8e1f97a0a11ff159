"""A scripted stand-in for an OpenAI-compatible Chat Completions server (what Ollama,
llama-server, vLLM and LM Studio serve), for tests of the real `openai` SDK.

    with FakeOpenAI() as fake:
        fake.reply_text("Ferries leave hourly [handbook.md:Timetable]\\nConfidence: high")
        fake.reply_error(404, "not_found_error", 'model "llama3.2" not found')
        answerer = OpenAIAnswerer(fake.base_url, "llama3.2")

`POST /v1/chat/completions` serves the next scripted reply: a `chat.completion` object,
or, when the request says `"stream": true`, `data: {chat.completion.chunk}` frames ending
in `data: [DONE]`. An error is `{"error": {"message", "type", …}}` with its status; an
error in the middle of a stream is a `data: {"error": …}` frame. The queue, the recording
and the server are scripted_http.py's.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.scripted_http import ErrorReply, ScriptedServer, TextReply, pieces


class FakeOpenAI(ScriptedServer):
    route = "/v1/chat/completions"
    prefix = "/v1"
    end_turn = "stop"

    def error_body(self, reply: ErrorReply) -> dict[str, Any]:
        error = {"message": reply.message, "type": reply.error_type, "param": None, "code": None}
        return {"error": error}

    def message(self, reply: TextReply, model: str, request_bytes: int) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": reply.stop_reason,
                }
            ],
            "usage": {
                "prompt_tokens": request_bytes // 4,
                "completion_tokens": len(reply.text) // 4,
                "total_tokens": (request_bytes + len(reply.text)) // 4,
            },
        }

    def stream_frames(self, reply: TextReply, model: str) -> list[str]:
        def chunk(delta: dict[str, str], finish: str | None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            body = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [choice],
            }
            return f"data: {json.dumps(body)}\n\n"

        frames = [chunk({"role": "assistant", "content": ""}, None)]
        frames += [
            chunk({"content": piece}, None) for piece in pieces(reply.text, reply.piece_chars)
        ]
        if reply.error_after_text is not None:
            error_type, message = reply.error_after_text
            error = {"message": message, "type": error_type}
            return [*frames, f"data: {json.dumps({'error': error})}\n\n"]
        return [*frames, chunk({}, reply.stop_reason), "data: [DONE]\n\n"]
