"""Files and folders that go away and come back under a live daemon: each case ends with
the index holding exactly the documents on disk, with no restart.

A file made unreadable (chmod 000, for a daemon without root's CAP_DAC_*) and readable
again; a folder made unlistable and listable again; a folder with files in it moved in
from outside the roots (inotify reports only the folder); a folder moved out and back.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.test_hostile_files import (
    HONEST_PERMISSIONS,
    PERMISSION_SKIP_REASON,
    UnprivilegedDaemon,
)
from tests.support.daemon import Daemon, wait_for

SETTLE_S = 60.0  # a test's deadline for the index to match the disk


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("comego")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "seed.md").write_text("# Seed\n\nThe seed document mentions zanzibar.\n")
    (tmp / "outside").mkdir()
    daemon = UnprivilegedDaemon(tmp, [docs]).start()
    daemon.wait_idle()
    yield daemon
    for path in docs.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    daemon.stop()


def on_disk(root: Path) -> set[str]:
    """The documents a walk of the root finds (every test file is Markdown)."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.is_file()}


def indexed(d: Daemon) -> set[str]:
    return {doc["source"] for doc in d.call("documents")["documents"]}


def note(title: str, token: str) -> str:
    return f"# {title}\n\nThe {title.lower()} note names {token}.\n"


def settle(d: Daemon) -> None:
    """The index holds exactly what a walk finds, and each file's current text."""
    root = d.roots[0]
    wait_for(lambda: indexed(d) == on_disk(root), SETTLE_S, "the index to match the disk")
    d.wait_idle()
    assert indexed(d) == on_disk(root)


@pytest.mark.skipif(not HONEST_PERMISSIONS, reason=PERMISSION_SKIP_REASON)
def test_a_file_made_unreadable_and_readable_again(live: Daemon) -> None:
    docs = live.roots[0]
    target = docs / "shut.md"
    target.write_text(note("Shut", "tamarind"))
    live.wait_searchable("tamarind", "shut.md")
    target.chmod(0)
    # Written while closed (the test runs as root): the daemon cannot read the new text.
    target.write_text(note("Shut", "kumquat"))
    wait_for(
        lambda: any(e["source"] == "shut.md" for e in live.status()["errors"]),
        SETTLE_S,
        "the unreadable file reported",
    )
    target.chmod(0o644)
    live.wait_searchable("kumquat", "shut.md")
    wait_for(lambda: not live.sources("tamarind"), SETTLE_S, "the old text to leave")
    wait_for(
        lambda: not any(e["source"] == "shut.md" for e in live.status()["errors"]),
        SETTLE_S,
        "the error to clear",
    )
    settle(live)


@pytest.mark.skipif(not HONEST_PERMISSIONS, reason=PERMISSION_SKIP_REASON)
def test_a_file_closed_and_opened_unchanged(live: Daemon) -> None:
    docs = live.roots[0]
    target = docs / "blink.md"
    target.write_text(note("Blink", "persimmon"))
    live.wait_searchable("persimmon", "blink.md")
    live.wait_idle()
    target.chmod(0)
    wait_for(
        lambda: any(e["source"] == "blink.md" for e in live.status()["errors"]),
        SETTLE_S,
        "the unreadable file reported",
    )
    target.chmod(0o644)
    wait_for(
        lambda: not any(e["source"] == "blink.md" for e in live.status()["errors"]),
        SETTLE_S,
        "the error to clear",
    )
    live.wait_searchable("persimmon", "blink.md")
    settle(live)


@pytest.mark.skipif(not HONEST_PERMISSIONS, reason=PERMISSION_SKIP_REASON)
def test_a_file_opened_while_the_daemon_is_down(live: Daemon) -> None:
    """No event to say so: the start-up scan finds the file's stat as indexed. Before, it
    skipped it for that, and `permission denied` stayed in `rag status` for good."""
    docs = live.roots[0]
    target = docs / "asleep.md"
    target.write_text(note("Asleep", "tamarillo"))
    live.wait_searchable("tamarillo", "asleep.md")
    target.chmod(0)
    wait_for(
        lambda: any(e["source"] == "asleep.md" for e in live.status()["errors"]),
        SETTLE_S,
        "the unreadable file reported",
    )
    assert live.stop() == 0
    target.chmod(0o644)
    live.start()
    wait_for(
        lambda: not any(e["source"] == "asleep.md" for e in live.status()["errors"]),
        SETTLE_S,
        "the error to clear",
    )
    live.wait_searchable("tamarillo", "asleep.md")
    settle(live)


@pytest.mark.skipif(not HONEST_PERMISSIONS, reason=PERMISSION_SKIP_REASON)
def test_a_folder_closed_and_opened_again(live: Daemon) -> None:
    docs = live.roots[0]
    folder = docs / "vault"
    folder.mkdir()
    (folder / "a.md").write_text(note("Vault", "cardamom"))
    live.wait_searchable("cardamom", "vault/a.md")
    live.wait_idle()
    folder.chmod(0)
    (folder / "b.md").write_text(note("Later", "fenugreek"))  # as root, while closed
    (folder / "a.md").write_text(note("Vault", "galangal"))
    folder.chmod(0o755)
    live.wait_searchable("fenugreek", "vault/b.md")
    live.wait_searchable("galangal", "vault/a.md")
    wait_for(lambda: not live.sources("cardamom"), SETTLE_S, "the old text to leave")
    settle(live)
    # Its watches still see an edit.
    (folder / "b.md").write_text(note("Later", "sumac"))
    live.wait_searchable("sumac", "vault/b.md")


def test_a_folder_moved_in_from_outside_with_files(live: Daemon) -> None:
    docs = live.roots[0]
    outside = live.tmp / "outside" / "crate"
    (outside / "deep" / "deeper").mkdir(parents=True)
    (outside / "top.md").write_text(note("Top", "sassafras"))
    (outside / "deep" / "mid.md").write_text(note("Mid", "juniper"))
    (outside / "deep" / "deeper" / "low.md").write_text(note("Low", "anise"))
    os.rename(outside, docs / "crate")
    live.wait_searchable("anise", "crate/deep/deeper/low.md")
    settle(live)
    # Watched inside: an edit deep in the moved folder is seen.
    (docs / "crate" / "deep" / "deeper" / "low.md").write_text(note("Low", "caraway"))
    live.wait_searchable("caraway", "crate/deep/deeper/low.md")
    settle(live)


def test_a_folder_moved_out_and_back(live: Daemon) -> None:
    docs = live.roots[0]
    folder = docs / "shelf"
    (folder / "inner").mkdir(parents=True)
    (folder / "one.md").write_text(note("One", "mace"))
    (folder / "inner" / "two.md").write_text(note("Two", "nutmeg"))
    live.wait_searchable("nutmeg", "shelf/inner/two.md")
    live.wait_idle()
    away = live.tmp / "outside" / "shelf"
    os.rename(folder, away)
    wait_for(lambda: not live.sources("nutmeg"), SETTLE_S, "the moved-out files to leave")
    settle(live)
    (away / "inner" / "two.md").write_text(note("Two", "allspice"))  # edited while out
    os.rename(away, folder)
    live.wait_searchable("allspice", "shelf/inner/two.md")
    settle(live)
    (folder / "inner" / "two.md").write_text(note("Two", "clove"))
    live.wait_searchable("clove", "shelf/inner/two.md")
    # And out and back at once, quicker than the debounce.
    os.rename(folder, away)
    os.rename(away, folder)
    (folder / "one.md").write_text(note("One", "vanilla"))
    live.wait_searchable("vanilla", "shelf/one.md")
    settle(live)


def test_a_file_replaced_by_a_folder_and_back_quickly(live: Daemon) -> None:
    docs = live.roots[0]
    target = docs / "swap.md"
    target.write_text(note("Swap", "tarragon"))
    live.wait_searchable("tarragon", "swap.md")
    live.wait_idle()
    # Both changes within the debounce.
    target.unlink()
    target.mkdir()
    (target / "in.md").write_text(note("In", "chervil"))
    shutil.rmtree(target)
    target.write_text(note("Swap", "borage"))
    live.wait_searchable("borage", "swap.md")
    wait_for(lambda: not live.sources("tarragon"), SETTLE_S, "the old text to leave")
    settle(live)
