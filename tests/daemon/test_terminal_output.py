"""Terminal-safe client output (issue 10, item 2).

Documents, file names and error reasons are written by anyone: printed raw, an escape
sequence in them acts on the user's terminal (`\\x1b]0;…\\x07` retitles the window,
`\\x1b[2J` clears it, a C1 `\\x9b` starts a command on some terminals, `\\r` overwrites
the line, a newline in a name forges a line of a list). A real daemon indexes hostile
text under hostile names; every `rag` command that prints is run against it, and no
control character but newline and tab reaches stdout or stderr — each shows up as a
visible escape instead — while `--json` keeps the exact text.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragcli import render
from tests.support.daemon import Daemon

HOSTILE_TEXT = (
    "# Ferry \x1b]0;pwned\x07 lore\n\n"
    "The quokkaferry leaves at dawn \x1b[2J and \r overwrites \x9b31m the pier \u202egnp.exe "
    "notes.\n"
)
NEWLINE_NAME = "evil\nname.md"  # forges a line of the sources list
ESCAPE_NAME = "\x1b]0;title\x07\x1b[2Jevil.md"  # a dangling symlink: not followed
EMPTY_NAME = "\x9b2J\r\x1b[31mempty.md"  # an empty file: listed by status as "no text"
# Any C0 control but newline and tab, DEL, any C1 control.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture(scope="module")
def hostile() -> Iterator[Daemon]:
    tmp = Path(tempfile.mkdtemp(prefix="ragd-tty-"))
    root = tmp / "docs"
    root.mkdir()
    (root / "lore.md").write_text(HOSTILE_TEXT)
    (root / NEWLINE_NAME).write_text("# Pier\n\nThe quokkaferry pier has a newline name.\n")
    (root / ESCAPE_NAME).symlink_to(root / "missing-target.md")
    (root / EMPTY_NAME).write_bytes(b"")
    daemon = Daemon(tmp, [root])
    daemon.start()
    try:
        daemon.wait_idle()
        daemon.wait_searchable("quokkaferry", "lore.md")
        yield daemon
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def assert_terminal_safe(out: str, what: str) -> None:
    found = RAW_CONTROL.search(out)
    assert found is None, f"{what}: raw {found[0]!r} in {out!r}"
    assert "\u202e" not in out, what


def test_shown_escapes_controls_and_keeps_unicode() -> None:
    line = "a\x1b]0;pwned\x07b\x1b[2J\r\x9bc\u202eé日本🦀\n\t"
    assert render.shown(line) == "a\\x1b]0;pwned\\x07b\\x1b[2J\\x0d\\x9bc\\u202eé日本🦀\\x0a\\x09"
    assert render.shown("one\r\ntwo\n\tthree\x1b", body=True) == "one\ntwo\n\tthree\\x1b"
    nested = render.shown({"text": "a\nb", "source": "a\nb", "list": ["\x07"], "n": 3})
    assert nested == {"text": "a\nb", "source": "a\\x0ab", "list": ["\\x07"], "n": 3}
    assert render.shown("lone \udce9 surrogate") == "lone \\udce9 surrogate"


def test_json_text_is_exact_and_leaves_nothing_raw() -> None:
    value = {"t": "\x1b]0;x\x07 \x9b \u202e \udce9 é\n", "k\x1b": ["\r"]}
    text = render.json_text(value, indent=2)
    assert json.loads(text) == value
    assert_terminal_safe(text.replace("\n", ""), "json_text")
    assert "\udce9" not in text


def test_every_printing_command_is_terminal_safe(hostile: Daemon) -> None:
    d = hostile
    runs = {
        "search": d.rag("search", "quokkaferry dawn pier", "--top-k", "10"),
        "ask": d.rag("ask", "--show-sources", "When does the quokkaferry leave?"),
        "stats": d.rag("stats"),
        "status": d.rag("status"),
        "ingest": d.rag("ingest", str(d.roots[0] / NEWLINE_NAME), "--no-wait"),
        "chat": d.rag("chat", input="When does the quokkaferry leave?\n/sources\n/exit\n"),
        "error": d.rag("forget", "\x1b]0;pwned\x07"),
    }
    for name, out in runs.items():
        assert_terminal_safe(out.stdout, f"rag {name} stdout")
        assert_terminal_safe(out.stderr, f"rag {name} stderr")
        assert name == "error" or out.returncode == 0, (name, out.stderr)
    assert "\\x1b]0;pwned\\x07" in runs["search"].stdout  # shown, visibly
    assert "evil\\x0aname.md" in runs["search"].stdout
    assert "\\x1b[2J" in runs["ask"].stdout and "evil\\x0aname.md" in runs["ask"].stdout
    # In chat the heading is only in citations, whose brackets are escaped (a heading
    # cannot close its citation: protocol.citation): the sequence is shown, visibly.
    assert "\\x1b\\]0;pwned\\x07" in runs["chat"].stdout
    assert "evil\\x0aname.md" in runs["stats"].stdout
    assert "\\x1b]0;title\\x07\\x1b[2Jevil.md" in runs["status"].stdout
    assert "\\x9b2J\\x0d\\x1b[31mempty.md" in runs["status"].stdout
    assert "evil\\x0aname.md" in runs["ingest"].stderr
    assert runs["error"].returncode == 5 and "\\x1b]0;pwned\\x07" in runs["error"].stderr


def test_json_output_keeps_the_exact_text(hostile: Daemon) -> None:
    d = hostile
    results = d.rag_json("search", "quokkaferry dawn pier", "--top-k", "10")["results"]
    lore = next(r for r in results if r["source"] == "lore.md")
    # (a text file's lone \r is read as a newline; names keep theirs: EMPTY_NAME)
    assert "\x1b[2J and\n overwrites \x9b31m the pier \u202egnp" in lore["text"]
    assert "\x1b]0;pwned\x07" in lore["heading"]
    assert NEWLINE_NAME in {r["source"] for r in results}
    status = d.rag_json("status")
    assert ESCAPE_NAME in {e["source"] for e in status["not_followed"]}
    assert EMPTY_NAME in {e["source"] for e in status["no_text"]}
    out = d.rag("ask", "--json", "When does the quokkaferry leave?")
    assert out.returncode == 0, out.stderr
    assert_terminal_safe(out.stdout.replace("\n", ""), "ask --json")
    assert json.loads(out.stdout)["answer"]
    for command in (["stats", "--json"], ["search", "quokkaferry", "--json"]):
        out = d.rag(*command)
        assert_terminal_safe(out.stdout, " ".join(command))


def test_a_source_is_searched_in_by_its_name_as_results_print_it(hostile: Daemon) -> None:
    """`rag search` shows the source `evil\\x0aname.md`; `--in` takes it as printed."""
    d = hostile
    replies = {}
    for command in ("search", "ask"):
        out = d.rag(command, "quokkaferry pier", "--in", "evil\\x0aname.md", "--json")
        assert out.returncode == 0, (command, out.stderr)  # was 2: "nothing is indexed there"
        replies[command] = json.loads(out.stdout)
    results = replies["search"]["results"]
    assert results and {r["source"] for r in results} == {NEWLINE_NAME}, results
    assert replies["search"]["scope"] == [NEWLINE_NAME]


def test_ingest_says_why_what_it_was_asked_to_read_was_skipped(hostile: Daemon) -> None:
    """`rag ingest FILE` of an empty file named the count `(1 skipped)` and no reason;
    now a line per skipped file (names escaped), for a file, a folder or a whole root."""
    d = hostile
    empty = "skipped \\x9b2J\\x0d\\x1b[31mempty.md: empty file"
    dangling = "skipped \\x1b]0;title\\x07\\x1b[2Jevil.md: "
    out = d.rag("ingest", str(d.roots[0] / EMPTY_NAME))
    assert out.returncode == 0, out.stderr
    assert_terminal_safe(out.stderr, "ingest FILE")
    assert empty in out.stderr.splitlines() and dangling not in out.stderr, out.stderr
    out = d.rag("ingest", str(d.roots[0]))
    assert out.returncode == 0 and empty in out.stderr and dangling in out.stderr, out.stderr
    out = d.rag("ingest", str(d.roots[0] / NEWLINE_NAME))
    assert out.returncode == 0 and "skipped " not in out.stderr, out.stderr


def test_a_root_is_forgotten_by_its_name_as_status_prints_it(hostile: Daemon) -> None:
    """A root named with a newline shows as `odd\\x0aroot` in `rag status`: that is what a
    user copies, so `rag forget` takes it (and the raw name still works)."""
    d = hostile
    odd = d.roots[0].parent / "odd\nroot"
    odd.mkdir()
    (odd / "n.md").write_text("# Note\n\nThe oddrootmarker note.\n")
    assert d.rag("ingest", str(odd), "--no-wait").returncode == 0
    status = d.rag("status").stdout
    assert "odd\\x0aroot" in status, status
    out = d.rag("forget", "odd\\x0aroot")
    assert out.returncode == 0, out.stderr
    assert "forgot odd\\x0aroot" in out.stdout
    assert "odd" not in d.rag("status").stdout
