"""Answers and refusals say when the index is still filling (stderr note, `pending` in --json)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from ragcli import render
from ragcli.main import ask_once
from ragproto.protocol import REFUSAL_SENTENCE
from tests.support.daemon import Daemon

NOTE_57 = "note: 57 files are still being indexed — ask again when rag status shows idle"


class FramesConnection:
    """Replays the frames a daemon would send for one `ask`."""

    def __init__(self, frames: list[dict[str, Any]]) -> None:
        self.frames = frames

    def stream(self, op: str, args: dict[str, Any], timeout: float) -> Iterator[dict[str, Any]]:
        yield from self.frames


def answer_frames(pending: int) -> list[dict[str, Any]]:
    text = 'Extractive answer …\n\n> "Dogs travel free on a lead." [handbook.md:Dogs]'
    final = {
        "answer": text,
        "citations": [{"source": "handbook.md", "heading": "Dogs", "score": 0.7}],
        "confidence": "medium",
        "refused": False,
        "mode": "extractive",
        "warnings": [],
    }
    return [
        {"kind": "delta", "data": {"text": text}, "pending": pending},
        {"kind": "final", "data": final, "pending": pending},
    ]


def refusal_frames(pending: int) -> list[dict[str, Any]]:
    final = {
        "answer": REFUSAL_SENTENCE,
        "citations": [],
        "confidence": "low",
        "refused": True,
        "mode": "refused",
        "warnings": [],
        "note": "refused locally — no chunk cleared the 0.42 support floor, so no model call "
        "was made.",
    }
    return [{"kind": "final", "data": final, "pending": pending}]


@pytest.mark.parametrize(
    "frames", [answer_frames(57), refusal_frames(57)], ids=["answer", "refusal"]
)
def test_a_reply_while_files_are_pending_says_so(
    frames: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    ask_once(FramesConnection(frames), "q", {}, json_mode=False, show_sources=False)
    out = capsys.readouterr()
    assert out.err.splitlines()[-1] == NOTE_57
    assert "Confidence:" in out.out and "still being indexed" not in out.out  # stdout stays clean

    ask_once(FramesConnection(frames), "q", {}, json_mode=True, show_sources=False)
    out = capsys.readouterr()
    assert json.loads(out.out)["pending"] == 57
    assert out.err.splitlines()[-1] == NOTE_57


def test_no_note_when_nothing_is_pending(capsys: pytest.CaptureFixture[str]) -> None:
    ask_once(FramesConnection(answer_frames(0)), "q", {}, json_mode=True, show_sources=False)
    out = capsys.readouterr()
    assert json.loads(out.out)["pending"] == 0
    assert "still being indexed" not in out.err


def test_one_file_is_singular() -> None:
    assert render.pending_note(1) == (
        "note: 1 file is still being indexed — ask again when rag status shows idle"
    )


def test_an_idle_daemon_reports_nothing_pending(sample_daemon: Daemon) -> None:
    out = sample_daemon.rag("ask", "--json", "Can I bring my dog on the ferry?")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["pending"] == 0
    assert "still being indexed" not in out.stderr


# Asking a daemon that is still indexing (the note's exact line on stderr, `pending` in
# --json): tests/daemon/test_first_index_truth.py asks during its 120-file first index.
