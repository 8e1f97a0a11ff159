"""`rag status` never waits on the file system (issue 18): with a file whose every stat
hangs, as on a stalled network mount, `status` is answered and counts the file among the
skipped types, while the index writer is the one stuck on it."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.hung_stat import HungStat


@dataclass
class Hung:
    daemon: Daemon
    hung: HungStat
    docs: Path
    tmp: Path


@pytest.fixture(scope="module")
def hung_docs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hung]:
    """A daemon whose stats of `hung-*` names hang until released, on a root holding
    `seed.md` and a file of a type ragd does not index, `hung-budget.numbers`. Each test
    re-arms the hook and leaves no `hung-*` name where the daemon would stat it again."""
    tmp = tmp_path_factory.mktemp("hung")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "seed.md").write_text("# Seed\n\nThe seed document mentions quillwort.\n")
    (docs / "hung-budget.numbers").write_bytes(b"PK\x03\x04 not really a spreadsheet")
    hung = HungStat(tmp, "hung-*")
    daemon = Daemon(tmp, [docs], env=hung.env()).start()
    daemon.wait_idle()
    yield Hung(daemon, hung, docs, tmp)
    hung.release()
    daemon.stop()


def test_status_answers_while_a_stat_hangs(hung_docs: Hung) -> None:
    daemon, hung = hung_docs.daemon, hung_docs.hung
    hung_file = hung_docs.docs / "hung-budget.numbers"  # a type ragd does not index
    hung.rearm()
    try:
        # The walk saw the file by name; status counts it without asking the disk.
        assert daemon.status()["skipped_types"] == {".numbers": 1}
        assert not hung.entered()
        # A change makes the writer sync it: its stat hangs, on the writer's thread.
        hung_file.write_bytes(b"PK\x03\x04 changed")
        wait_for(hung.entered, 30, "the writer to be stuck in the file's stat")
        status = daemon.status()
        assert status["skipped_types"] == {".numbers": 1}
        assert daemon.sources("quillwort") == ["seed.md"]  # and search still answers
        hung.release()
        daemon.wait_idle()
        hung_file.unlink()
        wait_for(
            lambda: daemon.status()["skipped_types"] == {},
            30,
            "the deleted file to leave the skipped types",
        )
        daemon.wait_idle()  # the delete applied: no `hung-*` name is left to stat
    finally:
        hung.release()


def test_status_answers_while_ingest_stats_a_hung_folder(hung_docs: Hung) -> None:
    daemon, hung = hung_docs.daemon, hung_docs.hung
    extra = hung_docs.tmp / "hung-extra"  # the folder `rag ingest` names: its stats hang
    extra.mkdir()
    (extra / "sedge.md").write_text("# Sedge\n\nA second root that mentions cottongrass.\n")
    replies: list[dict[str, object]] = []
    daemon.wait_idle()  # nothing queued that could stat a `hung-*` name once re-armed
    hung.rearm()
    try:
        roots_before = [r["files"] for r in daemon.status()["roots"]]
        adding = threading.Thread(
            target=lambda: replies.append(daemon.call("ingest", path=str(extra)))
        )
        adding.start()
        wait_for(hung.entered, 30, "ingest to be stuck in the folder's stat")
        assert [r["files"] for r in daemon.status()["roots"]] == roots_before  # loop answers
        assert daemon.sources("quillwort") == ["seed.md"]
        assert not replies
        hung.release()
        adding.join(30)
        assert replies and replies[0]["added"] is True
        daemon.wait_searchable("cottongrass", "hung-extra/sedge.md")
        # Left as found: one root again (with two, every source is shown under its root).
        assert daemon.call("forget", root="hung-extra")["forgotten"]
        daemon.wait_idle()
    finally:
        hung.release()


def test_ingest_stats_the_path_it_is_given_once(hung_docs: Hung) -> None:
    """`rag ingest FILE` took the file's mode and its size from two stats: a waste, and a
    race (two files, if it changed between them). Only the next stat may pass here: with
    a second one the reply never comes."""
    daemon, hung = hung_docs.daemon, hung_docs.hung
    target = hung_docs.docs / "hung-notes.md"
    hung.rearm()
    hung.release()  # every stat passes while the file is indexed
    target.write_text("# Notes\n\nThe notes mention bogbean.\n")
    replies: list[dict[str, object]] = []
    adding = threading.Thread(
        target=lambda: replies.append(daemon.call("ingest", path=str(target)))
    )
    try:
        daemon.wait_searchable("bogbean", "hung-notes.md")
        daemon.wait_idle()
        before = len(hung.calls())
        hung.release_first(before + 1)  # the handler's stat passes, any other one hangs
        adding.start()
        wait_for(lambda: replies or len(hung.calls()) > before + 1, 30, "the reply or a stat")
        adding.join(30)
        assert replies and replies[0]["path"] == "hung-notes.md", hung.calls()[before:]
    finally:
        hung.release()
        if adding.ident is not None:
            adding.join(30)
        # Left as found: the file gone from the root and the index.
        target.unlink()
        wait_for(lambda: not daemon.sources("bogbean"), 30, "hung-notes.md to be pruned")
        daemon.wait_idle()


def test_status_answers_while_a_reload_stats_a_hung_folder(tmp_path: Path) -> None:
    """SIGHUP re-reads the config file and stats the roots it adds: on the reload's own
    thread, so a root on a stalled mount holds up that reload and nothing else."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "seed.md").write_text("# Seed\n\nThe seed document mentions quillwort.\n")
    extra = tmp_path / "hung-extra"  # the root the reloaded config adds: its stats hang
    extra.mkdir()
    (extra / "sedge.md").write_text("# Sedge\n\nA second root that mentions cottongrass.\n")
    config = tmp_path / "config.toml"
    config.write_text(f"roots = [{json.dumps(str(docs))}]\n")
    hung = HungStat(tmp_path, "hung-*")
    daemon = Daemon(tmp_path, [], env=hung.env(), extra_args=["--config", str(config)]).start()
    try:
        daemon.wait_idle()
        config.write_text(f"roots = [{json.dumps(str(docs))}, {json.dumps(str(extra))}]\n")
        daemon.signal(signal.SIGHUP)
        wait_for(hung.entered, 30, "the reload to be stuck in the new root's stat")
        assert [r["files"] for r in daemon.status()["roots"]] == [1]  # the loop answers
        assert daemon.sources("quillwort") == ["seed.md"]
        hung.release()
        daemon.wait_searchable("cottongrass", "hung-extra/sedge.md")
    finally:
        hung.release()
        daemon.stop()
