"""No file, pattern or name stops the daemon (issue 18, items 1–4 and 8).

Against a real daemon: a Markdown heading line with 20,000 blanks before its last word,
an ignore file with `*a*a*a*a*a*a*b` beside files named with 60 `a`s, an ignore file
over the caps, a file replaced by a FIFO, and a non-UTF-8 file name read back by lines.
Meanwhile `status` must keep answering, promptly relative to an idle `status` (no
absolute limits). And, on the read path alone: `get` by lines opens without blocking,
refuses anything but a regular file, and never passes through a link the index does not
follow.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.core.names import name_key
from ragd.serve.passages import PassageError, read_lines
from ragproto.errors import NotAFile, NotFound
from tests.support.daemon import Daemon, wait_for


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("contained")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "seed.md").write_text("# Seed\n\nThe seed document mentions zanzibar.\n")
    daemon = Daemon(tmp, [docs]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


def timed_status(d: Daemon) -> float:
    start = time.monotonic()
    d.status()
    return time.monotonic() - start


def status_keeps_answering(d: Daemon, until: threading.Event) -> list[float]:
    """Seconds each `status` took while `until` is unset (at least one)."""
    took = [timed_status(d)]
    while not until.is_set():
        took.append(timed_status(d))
    return took


def test_a_hostile_heading_and_ignore_pattern_do_not_stop_the_daemon(live: Daemon) -> None:
    docs = live.roots[0]
    idle = min(timed_status(live) for _ in range(5))
    (docs / ".gitignore").write_text("*a*a*a*a*a*a*b\n")
    for n in range(3):
        (docs / ("a" * 60 + f"{n}.md")).write_text(f"# Names\n\nAll a's: vellozia{n}.\n")
    (docs / "redos.md").write_text(
        "# a" + " " * 20_000 + "b\n\nThe blank heading's body: sundew.\n"
    )
    done = threading.Event()
    watcher = threading.Thread(target=lambda: (live.wait_idle(), done.set()))
    watcher.start()
    took = status_keeps_answering(live, done)
    watcher.join()
    hit = live.wait_searchable("sundew", "redos.md")
    assert hit["heading"] == "a b"
    for n in range(3):
        assert live.sources(f"vellozia{n}") == ["a" * 60 + f"{n}.md"]
    # Before: 36 s with no reply (1,500 blanks; 20,000 would take days). Now no `status`
    # waits for the file's work: within a wide multiple of an idle one, this same run.
    assert max(took) < 1000 * idle, f"status took up to {max(took):.3f} s (idle {idle:.4f} s)"


def test_an_ignore_file_over_the_caps_is_named_in_status(live: Daemon) -> None:
    docs = live.roots[0]
    over = docs / "over"
    over.mkdir()
    lines = [f"never{i}.md" for i in range(2000)] + ["late.md"]
    (over / ".ragignore").write_text("\n".join(lines) + "\n")
    (over / "late.md").write_text("# Late\n\nPast the cap: myrtle.\n")
    (over / "never7.md").write_text("# Never\n\nWithin the cap: heather.\n")
    live.wait_searchable("myrtle", "over/late.md")

    def named() -> str | None:
        errors = live.status()["errors"]
        return next((e["reason"] for e in errors if e["source"] == "over/.ragignore"), None)

    reason = wait_for(named, 30, "the over-cap ignore file in status")
    assert "only its first 1024 lines" in reason
    assert live.sources("heather") == []


def test_a_file_replaced_by_a_fifo_leaves_the_index(live: Daemon) -> None:
    docs = live.roots[0]
    target = docs / "piped.md"
    target.write_text("# Piped\n\nBefore the pipe: saxifrage.\n\nline three\n")
    live.wait_searchable("saxifrage", "piped.md")
    target.unlink()
    os.mkfifo(target)
    replies: list[str] = []
    done = threading.Event()

    def get_lines() -> None:  # what `rag mcp`'s get sends; it used to block the loop
        try:
            live.call("get", source="piped.md", lines=[1, 3])
            replies.append("text")
        except (NotAFile, NotFound) as exc:
            replies.append(type(exc).__name__)
        done.set()

    getter = threading.Thread(target=get_lines)
    getter.start()
    took = status_keeps_answering(live, done)
    getter.join()
    assert replies in (["NotAFile"], ["NotFound"]) and took
    wait_for(lambda: not live.sources("saxifrage"), 30, "the FIFO's old text to leave")
    # The indexes drop a file before the manifest commit does (manifest last), so the
    # file row is gone only once the queue is idle; until then `get` says NotAFile.
    live.wait_idle()
    with pytest.raises(NotFound):
        live.call("get", source="piped.md", lines=[1, 3])


def test_get_by_lines_reads_a_non_utf8_name(live: Daemon) -> None:
    docs = live.roots[0]
    raw = os.path.join(os.fsencode(docs), b"caf\xe9.md")
    with open(raw, "wb") as handle:
        handle.write(b"# Cafe\n\nThe latin-1 name holds bergamot.\n")
    key = name_key(os.fsdecode(b"caf\xe9.md"))
    live.wait_searchable("bergamot", key)
    got = live.call("get", source=key, lines=[3, 3])
    assert got["text"] == "The latin-1 name holds bergamot." and got["lines"] == [3, 3]


# -- the read path alone ------------------------------------------------------------------
def test_read_lines_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(NotAFile, match="FIFO"):
        read_lines(str(tmp_path), "pipe.md", 1, 2, 1 << 20)  # no writer: open would block


def test_read_lines_never_passes_through_a_link(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "root", tmp_path / "elsewhere"
    (root / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "id_rsa").write_text("PRIVATE KEY\n")
    (root / "sub" / "notes.md").write_text("one\ntwo\n")
    assert read_lines(str(root), "sub/notes.md", 2, 2, 1 << 20).text == "two"
    # The indexed file replaced by a link (the issue's `sub/id_rsa`)…
    (root / "sub" / "notes.md").unlink()
    (root / "sub" / "notes.md").symlink_to(elsewhere / "id_rsa")
    with pytest.raises(NotAFile, match="symbolic link"):
        read_lines(str(root), "sub/notes.md", 1, 1, 1 << 20)
    # …or a folder on its path replaced by one.
    os.rename(root / "sub", tmp_path / "old-sub")
    (root / "sub").symlink_to(elsewhere)
    (elsewhere / "notes.md").write_text("outside\n")
    with pytest.raises(NotAFile, match="symbolic link"):
        read_lines(str(root), "sub/notes.md", 1, 1, 1 << 20)
    # With follow_symlinks the link is read, but never to outside the root.
    with pytest.raises(PassageError, match="outside"):
        read_lines(str(root), "sub/notes.md", 1, 1, 1 << 20, follow_symlinks=True)
