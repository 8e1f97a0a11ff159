"""A folder's "modified" echo is dropped after an event inside it (`_Handler.echo`,
dirmod70); these sequences are where a folder's change might carry something no child
event names (review72). After each, the index holds exactly what is on disk: each
sequence is checked by its final state, never by a time."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from tests.support.daemon import Daemon


def _note(path: Path, token: str) -> None:
    path.write_text(f"# {token}\n\nThis note holds the word {token}.\n")


def test_each_sequence_leaves_the_index_as_the_disk(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    a, b = root / "a", root / "b"
    a.mkdir(parents=True)
    b.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    _note(root / "start.md", "starttoken")
    d = Daemon(tmp_path, [root]).start()
    try:
        d.wait_searchable("starttoken", "start.md")
        d.wait_idle()

        # Saves in two sibling folders, interleaved: each folder's echo follows an event
        # in the other one.
        for i in range(30):
            _note(a / f"n{i}.md", f"alphatoken{i}x")
            _note(b / f"n{i}.md", f"betatoken{i}x")
        # A child created and deleted before the debounce ends.
        _note(a / "brief.md", "brieftoken")
        (a / "brief.md").unlink()
        # A folder made, a note moved into it, and the folder moved out again.
        (root / "made").mkdir()
        _note(outside / "wander.md", "wandertoken")
        os.rename(outside / "wander.md", root / "made" / "wander.md")
        os.rename(root / "made", outside / "made")
        # A folder holding a note moved in from outside, then its note moved out.
        (outside / "box").mkdir()
        _note(outside / "box" / "kept.md", "boxkepttoken")
        _note(outside / "box" / "left.md", "boxlefttoken")
        os.rename(outside / "box", root / "box")
        os.rename(root / "box" / "left.md", outside / "left.md")
        # A hard link made in a folder to a note outside the root.
        _note(outside / "linked.md", "linkedtoken")
        os.link(outside / "linked.md", b / "linked.md")
        # A .ragignore written in a folder, then a note beside it that it names.
        (b / ".ragignore").write_text("secret.md\n")
        _note(b / "secret.md", "secrettoken")
        # The folder's mode changed between a child's write and its echo, and touched.
        _note(a / "late.md", "latetoken")
        os.chmod(a, 0o755)
        os.utime(a)
        _note(root / "end.md", "endtoken")
        d.wait_searchable("endtoken", "end.md")
        d.wait_idle()

        for i in (0, 17, 29):
            assert d.sources(f"alphatoken{i}x") == [f"a/n{i}.md"]
            assert d.sources(f"betatoken{i}x") == [f"b/n{i}.md"]
        assert d.sources("brieftoken") == []
        assert d.sources("wandertoken") == []
        assert d.sources("boxkepttoken") == ["box/kept.md"]
        assert d.sources("boxlefttoken") == []
        assert d.sources("linkedtoken") == ["b/linked.md"]
        assert d.sources("secrettoken") == []
        assert d.sources("latetoken") == ["a/late.md"]

        # The ignore file taken away: the note it named is read.
        (b / ".ragignore").unlink()
        d.wait_searchable("secrettoken", "b/secret.md")
        shutil.rmtree(root / "box")
        _note(root / "end2.md", "endsecondtoken")
        d.wait_searchable("endsecondtoken", "end2.md")
        d.wait_idle()
        assert d.sources("boxkepttoken") == []
    finally:
        assert d.stop() == 0


@pytest.mark.stress  # 8,000 files: ≈ 15 s; `make test-stress` runs it
def test_an_inotify_overflow_amid_saves_in_two_folders_loses_nothing(tmp_path: Path) -> None:
    # The daemon is stopped (SIGSTOP) while 8,000 files are made in two folders, notes
    # among them: the kernel's queue (16,384 events by default) overflows, so the events
    # read after it are echoes of events the kernel dropped, and the rescan must find all.
    root = tmp_path / "notes"
    a, b = root / "a", root / "b"
    a.mkdir(parents=True)
    b.mkdir()
    _note(root / "start.md", "starttoken")
    d = Daemon(tmp_path, [root]).start()
    try:
        d.wait_searchable("starttoken", "start.md")
        d.signal(signal.SIGSTOP)
        try:
            for i in range(4000):
                (a / f"e{i}.md").touch()
                (b / f"e{i}.md").touch()
                if i % 400 == 0:
                    _note(a / f"n{i}.md", f"alphastorm{i}x")
                    _note(b / f"n{i}.md", f"betastorm{i}x")
                    (a / f"e{i}.md").unlink()
        finally:
            d.signal(signal.SIGCONT)
        _note(root / "end.md", "endtoken")
        d.wait_searchable("endtoken", "end.md", timeout=300)
        d.wait_idle()
        assert "event queue overflowed" in d.log()  # the storm did what it is here for
        for i in range(0, 4000, 400):
            assert d.sources(f"alphastorm{i}x") == [f"a/n{i}.md"]
            assert d.sources(f"betastorm{i}x") == [f"b/n{i}.md"]
        status = d.rag_json("status", "--json")
        assert (status["files"], status["no_text_files"]) == (22, 8000 - 10)
    finally:
        assert d.stop() == 0
