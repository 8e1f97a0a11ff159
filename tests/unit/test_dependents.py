"""Files whose text depends on files beside them (`ingest/dependents.py`), with a real
manifest and work queue: a change reads again only the files that read the changed one
or wanted an id it now holds, however large the folder."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ragd.index.manifest import Beside, FileRow, Manifest
from ragd.index.plan import FilePlan
from ragd.ingest.dependents import Dependents
from ragd.ingest.formats.xml_confined import ABSENT, MAX_COMPANION_BYTES
from ragd.ingest.work_queue import WorkQueue

CHAPTERS = 1000


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _folder(tmp_path: Path) -> tuple[Manifest, WorkQueue, Dependents, str]:
    """1,000 chapters in `book/`: three show a title from ch0001.xml, all read the DTD,
    ch0002.xml looked for the id `berths` in vain."""
    root = str(tmp_path)
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "ch0001.xml").write_bytes(b"<chapter id='tides'/>")
    (tmp_path / "book" / "app.dtd").write_bytes(b'<!ENTITY app "Quayside">')
    manifest = Manifest(tmp_path / "manifest.db")
    dtd = ("book/app.dtd", _sha(b'<!ENTITY app "Quayside">'))
    rows = []
    for n in range(CHAPTERS):
        reads = (
            (dtd, ("book/ch0001.xml", _sha(b"<chapter id='tides'/>"))) if n in (3, 4, 5) else (dtd,)
        )
        wants = ("berths",) if n == 2 else ()
        rows.append((root, f"book/ch{n:04d}.xml", Beside(reads, wants)))
    manifest.commit_files([], rows)
    queue = WorkQueue(debounce_s=0)
    return manifest, queue, Dependents(manifest, queue), root


def _queued(queue: WorkQueue) -> list[str]:
    taken = []
    while (job := queue.take(timeout=0)) is not None:
        taken.append(job.relpath)
        queue.done(0, job)
    return sorted(taken)


def test_a_changed_chapter_reads_again_only_the_chapters_that_showed_its_titles(
    tmp_path: Path,
) -> None:
    _, queue, dependents, root = _folder(tmp_path)
    dependents.changed(root, "book/ch0001.xml")  # a sync of bytes they read: nothing
    assert _queued(queue) == []
    (tmp_path / "book" / "ch0001.xml").write_bytes(b"<chapter id='tides'><title>New</title>")
    dependents.changed(root, "book/ch0001.xml")
    assert _queued(queue) == ["book/ch0003.xml", "book/ch0004.xml", "book/ch0005.xml"]
    assert queue.rewrites.take_stale((root, "book/ch0003.xml"))  # parsed, bytes as indexed
    assert not queue.rewrites.take_stale((root, "book/ch0006.xml"))


def test_a_dtd_they_all_read_reads_them_all_again(tmp_path: Path) -> None:
    _, queue, dependents, root = _folder(tmp_path)
    (tmp_path / "book" / "app.dtd").unlink()
    dependents.changed(root, "book/app.dtd")
    assert len(_queued(queue)) == CHAPTERS


def test_a_chapter_holding_an_id_looked_for_in_vain_reads_its_seeker_again(
    tmp_path: Path,
) -> None:
    manifest, queue, dependents, root = _folder(tmp_path)
    held = FilePlan(FileRow(root, "book/ch0999.xml", 1, 1, "s", ()), [], Beside(holds=("berths",)))
    elsewhere = FilePlan(FileRow(root, "other/x.xml", 1, 1, "s", ()), [], Beside(holds=("berths",)))
    dependents.applied([elsewhere])  # another folder's id is not this folder's
    assert _queued(queue) == []
    dependents.applied([held])
    assert _queued(queue) == ["book/ch0002.xml"]
    manifest.remove_file(root, "book/ch0002.xml")  # a file gone depends on nothing
    dependents.applied([held])
    assert _queued(queue) == []


def test_a_forgotten_root_leaves_nothing_to_read_again(tmp_path: Path) -> None:
    """`rag forget` (Manifest.forget_root): no row of the root is left to queue its
    files, and another root's rows stay."""
    manifest, queue, dependents, root = _folder(tmp_path)
    manifest.commit_files([], [("/other", "x.xml", Beside((("app.dtd", "0" * 64),), ("k",)))])
    manifest.forget_root(root)
    (tmp_path / "book" / "app.dtd").unlink()
    dependents.changed(root, "book/app.dtd")
    dependents.applied(
        [FilePlan(FileRow(root, "book/n.xml", 1, 1, "s", ()), [], Beside(holds=("berths",)))]
    )
    assert _queued(queue) == []
    assert manifest.readers_of("/other", "app.dtd") == [("x.xml", "0" * 64)]
    assert manifest.wanting("/other", "", ["k"]) == {"x.xml"}


def test_a_file_looked_for_and_not_read_queues_its_seeker_once_a_parse_would_read_it(
    tmp_path: Path,
) -> None:
    """A chapter noted `extra.dtd` as looked for and not read (`xml_confined.ABSENT`):
    its coming queues the chapter, but only as a file the parse would read (a regular
    file within MAX_COMPANION_BYTES), and no walk queues it meanwhile."""
    manifest, queue, dependents, root = _folder(tmp_path)
    missing = ("book/extra.dtd", ABSENT.hex())
    manifest.commit_files([], [(root, "book/ch0007.xml", Beside((missing,)))])
    dependents.recheck(root, "book")  # (a walk: not there, as when read)
    assert _queued(queue) == []
    extra = tmp_path / "book" / "extra.dtd"
    extra.write_bytes(b" " * (MAX_COMPANION_BYTES + 1))  # too large for a parse to read
    dependents.changed(root, "book/extra.dtd")
    assert _queued(queue) == []
    extra.write_bytes(b'<!ENTITY extra "Slipway">')
    dependents.changed(root, "book/extra.dtd")
    assert _queued(queue) == ["book/ch0007.xml"]
