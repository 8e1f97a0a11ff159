"""Files read again for what they read beside them, through the writer's own pipeline
(real parse worker, stores and manifest): a file applied whose bytes are new has the
files that wanted its ids queued; one read again with the same bytes holds the same ids
and queues no one, so two files each beyond the other's reach settle."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragd.index.manifest import Manifest
from ragd.ingest import planner as planner_module
from ragd.ingest.work_queue import Job, WorkQueue
from tests.support.daemon import wait_for
from tests.support.indexers import folder_indexer

# A `.docbook` is read whatever its root, but only a DocBook root makes a file a sibling
# another file's references look in: each of these holds the id the other looks for in
# vain.
BOOK = (
    '<manual id="{own}"><title>{title}</title><para>See <xref linkend="{other}"/>.</para></manual>'
)
C_XREF = BOOK.replace("manual", "chapter")  # (an .xml is read when its root is DocBook's)


def _indexer(tmp_path: Path, embedder, root: Path, include: str):  # type: ignore[no-untyped-def]
    """The writer's own pipeline over `root` (real parse worker, stores and manifest)."""
    queue = WorkQueue(debounce_s=0)
    indexer = folder_indexer(tmp_path / "data", embedder, root, queue, include)
    return queue, indexer


def _pair(tmp_path: Path, embedder, template: str, suffix: str):  # type: ignore[no-untyped-def]
    """a.SUFFIX and b.SUFFIX, each referring to the other's id, and an indexer over them."""
    root = tmp_path / "root"
    root.mkdir()
    (root / f"a.{suffix}").write_text(template.format(own="ida", title="Anchors", other="idb"))
    (root / f"b.{suffix}").write_text(template.format(own="idb", title="Buoys", other="ida"))
    return (root, *_indexer(tmp_path, embedder, root, f"*.{suffix}"))


def test_two_files_that_want_each_others_ids_in_vain_settle(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    root, queue, indexer = _pair(tmp_path, embedder, BOOK, "docbook")
    indexer.sync(str(root), "a.docbook")
    indexer.sync(str(root), "b.docbook")  # new, holding the id a.docbook wants: it is queued
    rounds = []
    while (job := queue.take(timeout=0)) is not None and len(rounds) < 10:
        rounds.append(job.relpath)
        indexer.sync(job.root, job.relpath)  # read again, its bytes as indexed
        queue.done(0, job)
    assert rounds == ["a.docbook"]


DTD_CHAPTER = (
    '<!DOCTYPE chapter SYSTEM "names.dtd">\n'
    '<chapter id="moor"><title>Mooring</title><para>At &app; tie up.</para></chapter>'
)


def _book(tmp_path: Path, embedder):  # type: ignore[no-untyped-def]
    """A chapter that reads names.dtd beside it, and an indexer over its folder."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "names.dtd").write_text('<!ENTITY app "Quayside">\n')
    (root / "ch.xml").write_text(DTD_CHAPTER)
    return (root, *_indexer(tmp_path, embedder, root, "*.xml"))


def _text(indexer, root: Path) -> str:  # type: ignore[no-untyped-def]
    chunks = indexer.writer.stores.manifest.chunks_of(str(root), "ch.xml")
    return " ".join(c.text for c in chunks)


def _run(queue: WorkQueue, indexer) -> list[str]:  # type: ignore[no-untyped-def]
    ran = []
    while (job := queue.take(timeout=0)) is not None and len(ran) < 10:
        ran.append(job.relpath)
        indexer.sync(job.root, job.relpath)
        queue.done(0, job)
    return ran


class Killed(BaseException):
    """The process ends here (`kill -9`): nothing after this point runs."""


def test_what_a_file_read_beside_it_is_committed_with_it(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """Killed right after the manifest's commit, the file's new text is indexed: what
    that text read beside it must be recorded too, or a later change to what it read
    leaves the text stale for good."""
    root, _, indexer = _book(tmp_path, embedder)
    (root / "ch.xml").write_text(DTD_CHAPTER.replace('"names.dtd"', '"other.dtd"'))
    (root / "other.dtd").write_text('<!ENTITY app "Pierside">\n')
    manifest = indexer.writer.stores.manifest
    commit_files = manifest.commit_files

    def commit_then_die(*args, **kwargs):  # type: ignore[no-untyped-def]
        commit_files(*args, **kwargs)
        raise Killed

    manifest.commit_files = commit_then_die
    with pytest.raises(Killed):
        indexer.sync(str(root), "ch.xml")
    assert "At Pierside tie up." in _text(indexer, root)  # committed
    readers = Manifest(manifest.path).readers_of(str(root), "other.dtd")  # as a restart sees it
    assert [reader for reader, _ in readers] == ["ch.xml"]


def test_a_dtd_edited_while_the_daemon_was_down_is_noticed_at_start_up(
    tmp_path: Path, embedder
) -> None:  # type: ignore[no-untyped-def]
    """The start-up walk looks at the documents: a DTD is none, and no event names it
    when it changed while nothing watched."""
    root, queue, indexer = _book(tmp_path, embedder)
    indexer.sync(str(root), "")
    assert _run(queue, indexer) == ["ch.xml"]
    assert "At Quayside tie up." in _text(indexer, root)
    (root / "names.dtd").write_text('<!ENTITY app "Wharfside">\n')  # (no event: stopped)
    indexer.sync(str(root), "")  # the start-up walk
    assert _run(queue, indexer) == ["ch.xml"]
    assert "At Wharfside tie up." in _text(indexer, root)
    indexer.sync(str(root), "")  # and once settled, a walk reads no one again
    assert _run(queue, indexer) == []


def test_a_dtd_changed_while_its_reader_is_parsed_is_read_again(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The background writer sets a parse aside when it outlasts its patience; a chapter
    queued again because its DTD changed during that parse has the same stat as the
    version in flight, yet that version read the old DTD: it must be read again, not
    taken as already under way."""
    monkeypatch.setattr(planner_module, "PARSE_PATIENCE_S", 0.0)  # every parse set aside
    root, queue, indexer = _book(tmp_path, embedder)
    indexer.sync(str(root), "ch.xml")
    assert "At Quayside tie up." in _text(indexer, root)
    for words in ("Wharfside", "Pierside"):  # the second while the first's parse is aside
        (root / "names.dtd").write_text(f'<!ENTITY app "{words}">\n')
        indexer._run_batch(Job("sync", str(root), "names.dtd"))  # and the chapter it queues
        assert indexer.slow  # the chapter's parse set aside ...
        parses = [item.file.ticket for item in indexer.slow._items]
        wait_for(lambda p=parses: all(t.done() for t in p), 60, "it")  # ... having read the DTD
    wait_for(lambda: not indexer.slow.advance() and not indexer.slow, 60, "the parses aside")
    _run(queue, indexer)
    assert "At Pierside tie up." in _text(indexer, root)


def test_a_reader_whose_requeue_a_crash_lost_is_read_at_start_up(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """A retitled chapter queues the chapter showing its title, in memory: killed before
    that job ran, the retitled chapter is indexed with its new bytes, so the start-up
    walk skips it, and its reader's recorded read no longer matches what is indexed."""
    root, queue, indexer = _pair(tmp_path, embedder, C_XREF, "xml")
    indexer.sync(str(root), "")
    _run(queue, indexer)
    (root / "b.xml").write_text(C_XREF.format(own="idb", title="Bollards", other="ida"))
    indexer.sync(str(root), "b.xml")
    lost = _drop(queue)  # killed: the queue was in memory
    assert lost == ["a.xml"]
    indexer.sync(str(root), "")  # the start-up walk
    assert _run(queue, indexer) == ["a.xml"]
    chunks = indexer.writer.stores.manifest.chunks_of(str(root), "a.xml")
    assert "See Bollards." in " ".join(c.text for c in chunks)


def _drop(queue: WorkQueue) -> list[str]:
    dropped = []
    while (job := queue.take(timeout=0)) is not None:
        dropped.append(job.relpath)
        queue.rewrites.take_stale((job.root, job.relpath))
        queue.done(0, job)
    return dropped


def test_a_sibling_named_in_bytes_that_are_not_utf8_is_read_and_recorded(
    tmp_path: Path, embedder
) -> None:  # type: ignore[no-untyped-def]
    """A chapter whose reference shows the title of a chapter named in bytes that are not
    UTF-8 (`caf<0xE9>.xml`): what it read beside it is recorded under that file's key, as
    the index names the file, so the chapter is indexed and read again when it changes."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "ch.xml").write_text(C_XREF.format(own="ida", title="Anchors", other="idb"))
    odd = bytes(root) + b"/caf\xe9.xml"
    Path(os.fsdecode(odd)).write_text(C_XREF.format(own="idb", title="Gangways", other="ida"))
    queue, indexer = _indexer(tmp_path, embedder, root, "*.xml")
    indexer.sync(str(root), "")
    _run(queue, indexer)
    manifest = indexer.writer.stores.manifest
    assert manifest.problem(str(root), "ch.xml") is None
    assert "See Gangways." in " ".join(c.text for c in manifest.chunks_of(str(root), "ch.xml"))
    Path(os.fsdecode(odd)).write_text(C_XREF.format(own="idb", title="Ramps", other="ida"))
    indexer.sync(str(root), "caf\\xe9.xml")  # (the key the index knows it by)
    assert "ch.xml" in _run(queue, indexer)
    assert "See Ramps." in " ".join(c.text for c in manifest.chunks_of(str(root), "ch.xml"))


def test_a_dtd_changed_while_its_first_reader_is_parsed_is_read_again(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """A chapter edited to read a DTD it did not read before has no row naming the DTD
    while that parse runs: the DTD changed meanwhile has no reader to queue, and the
    parse that read its old words is applied after."""
    monkeypatch.setattr(planner_module, "PARSE_PATIENCE_S", 0.0)  # every parse set aside
    root, queue, indexer = _book(tmp_path, embedder)
    (root / "ch.xml").write_text(
        '<chapter id="moor"><title>Mooring</title><para>Tie up.</para></chapter>'
    )
    indexer.sync(str(root), "ch.xml")  # (reads nothing beside it)
    (root / "ch.xml").write_text(DTD_CHAPTER)
    indexer._run_batch(Job("sync", str(root), "ch.xml"))
    assert indexer.slow  # its parse set aside ...
    parses = [item.file.ticket for item in indexer.slow._items]
    wait_for(lambda: all(t.done() for t in parses), 60, "it")  # ... having read the DTD
    (root / "names.dtd").write_text('<!ENTITY app "Pierside">\n')
    indexer._run_batch(Job("sync", str(root), "names.dtd"))
    wait_for(lambda: not indexer.slow.advance() and not indexer.slow, 60, "the parse aside")
    _run(queue, indexer)
    assert "At Pierside tie up." in _text(indexer, root)


def test_a_chapter_retitled_while_its_first_reader_is_parsed_is_shown_anew(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The same with a chapter beside it: b.xml retitled and applied while a.xml, just
    edited to show its title, is parsed."""
    monkeypatch.setattr(planner_module, "PARSE_PATIENCE_S", 0.0)  # every parse set aside
    root, queue, indexer = _pair(tmp_path, embedder, C_XREF, "xml")
    (root / "a.xml").write_text('<chapter id="ida"><title>Anchors</title><para>x</para></chapter>')
    indexer.sync(str(root), "")
    wait_for(lambda: not indexer.slow.advance() and not indexer.slow, 60, "the first parses")
    _run(queue, indexer)
    (root / "a.xml").write_text(C_XREF.format(own="ida", title="Anchors", other="idb"))
    indexer._run_batch(Job("sync", str(root), "a.xml"))
    parses = [item.file.ticket for item in indexer.slow._items]
    wait_for(lambda: all(t.done() for t in parses), 60, "it")  # ... having read b.xml
    (root / "b.xml").write_text(C_XREF.format(own="idb", title="Bollards", other="ida"))
    indexer.sync(str(root), "b.xml")  # applied before a.xml's parse aside is
    wait_for(lambda: not indexer.slow.advance() and not indexer.slow, 60, "the parse aside")
    _run(queue, indexer)
    chunks = indexer.writer.stores.manifest.chunks_of(str(root), "a.xml")
    assert "See Bollards." in " ".join(c.text for c in chunks)


def test_a_dtd_moved_away_and_back_is_read_again(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """A DTD looked for and not there (moved away; not yet written, as a copy or checkout
    writes the chapter first) is noted as looked for, so its coming back, like its
    change, reads the chapter again; a walk while it is still away reads no one."""
    root, queue, indexer = _book(tmp_path, embedder)
    indexer.sync(str(root), "")
    _run(queue, indexer)
    (root / "names.dtd").rename(tmp_path / "names.dtd")
    indexer.sync(str(root), "names.dtd")
    assert _run(queue, indexer) == ["ch.xml"]
    assert "At tie up." in _text(indexer, root)
    indexer.sync(str(root), "")
    assert _run(queue, indexer) == []  # (still away: nothing to read again)
    (tmp_path / "names.dtd").rename(root / "names.dtd")
    indexer.sync(str(root), "names.dtd")
    assert _run(queue, indexer) == ["ch.xml"]
    assert "At Quayside tie up." in _text(indexer, root)
