"""`rag mcp` fed a line without end (`rag mcp < /dev/zero`, a runaway host).

The line gate passed a line over 1 MiB on unchecked, as it arrived, and the MCP SDK
gathers a line whole before parsing it: by hand, `rag mcp < /dev/zero` grew to 10 GB in
20 s. Now a line past `MAX_LINE` is let go: the gate drops what it held of it and the
rest as it comes (the SDK sees none of it), and the host gets a parse error for it; the
next line is served as usual.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragcli.mcp_lines import MAX_LINE, PARSE_ERROR, LineGate
from tests.support.commands import run_python
from tests.support.daemon import BIN

PING = b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n'


def test_a_line_past_the_longest_is_cut_and_answered() -> None:
    forwarded: list[bytes] = []
    answers: list[bytes] = []
    gate = LineGate(forwarded.append, answers.append, longest=2_000)
    for _ in range(50):  # 50,000 bytes of one line, in chunks
        gate.feed(b"a" * 1_000)
    assert forwarded == [] and gate._held_bytes == 0  # nothing held past `longest`
    gate.feed(b"still the same line\n" + PING)
    assert forwarded == [PING]  # the next line goes through whole
    reply = json.loads(answers[0])
    assert reply["id"] is None and reply["error"]["code"] == PARSE_ERROR
    assert "longer than" in reply["error"]["message"] and len(answers) == 1


# `rag mcp` as a host would run it, fed 4 × MAX_LINE of one line and then closed; its peak
# resident memory, read by the parent of that process alone.
FEED = """
import os, resource, subprocess, sys, threading
proc = subprocess.Popen([sys.argv[1], "--socket", sys.argv[2], "mcp"],
                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
chunk = b"\\0" * (1 << 20)
try:
    for _ in range(int(sys.argv[3])):
        proc.stdin.write(chunk)
    proc.stdin.close()
except BrokenPipeError:
    pass
proc.wait(120)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def test_rag_mcp_memory_stays_bounded_by_the_longest_line(tmp_path: Path) -> None:
    megabytes = 4 * (MAX_LINE >> 20)
    out = run_python(FEED, BIN / "rag", tmp_path / "none.sock", str(megabytes), timeout=300)
    assert out.returncode == 0, out.stderr
    peak = int(out.stdout)
    # Held: at most MAX_LINE of line in the SDK (bytes, then text) beside the interpreter
    # and the SDK's imports; before, the whole 256 MiB line and its text (over 512 MiB).
    assert peak < 5 * MAX_LINE, f"peak {peak >> 20} MiB"
