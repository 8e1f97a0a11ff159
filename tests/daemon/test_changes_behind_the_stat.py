"""A file whose bytes changed while its stat says they did not is indexed anew.

The writer trusts a file whose size and mtime are the indexed ones without reading it.
Under a live daemon two ordinary things broke that trust, and the old text kept
answering for ever (`ingest/rewrites.py`):

- a save that keeps size and mtime (`cp --preserve=timestamps`, `touch -d` after the
  save, two same-size saves within one tick of the kernel's coarse clock);
- a file with two hard links in a root, edited through one name: no event names the
  other one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, Path]]:
    tmp = tmp_path_factory.mktemp("behind")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "seed.md").write_text("# Seed\n\nThe seed note names a zanzibar.\n")
    daemon = Daemon(tmp / "t", [docs]).start()
    try:
        daemon.wait_idle()
        yield daemon, docs
    finally:
        daemon.stop()


def _write_keeping_the_stat(path: Path, text: str) -> None:
    """New bytes of the old length, with the old mtime put back."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_save_that_keeps_size_and_mtime_is_indexed(live: tuple[Daemon, Path]) -> None:
    d, docs = live
    note = docs / "same.md"
    note.write_text("# Same\n\nThe valve code is quokkaone.\n")
    d.wait_searchable("quokkaone", "same.md")
    _write_keeping_the_stat(note, "# Same\n\nThe valve code is quokkatwo.\n")
    wait_for(lambda: d.sources("quokkatwo") == ["same.md"], 30, "the new bytes indexed")
    assert d.sources("quokkaone") == []


def test_a_file_renamed_in_with_the_indexed_size_and_mtime_is_indexed(
    live: tuple[Daemon, Path],
) -> None:
    """`cp --preserve=timestamps` to a temporary name, then a rename over the old file."""
    d, docs = live
    note = docs / "moved.md"
    note.write_text("# Moved\n\nThe dock code is wombatone.\n")
    d.wait_searchable("wombatone", "moved.md")
    outside = docs.parent / "incoming.md"
    outside.write_text("# Moved\n\nThe dock code is wombattwo.\n")
    shutil.copystat(note, outside)
    os.replace(outside, note)
    wait_for(lambda: d.sources("wombattwo") == ["moved.md"], 30, "the renamed-in bytes indexed")
    assert d.sources("wombatone") == []


def _names_holding(d: Daemon, token: str, names: tuple[str, ...]) -> list[str]:
    """Which of `names` the index holds with `token` in its text, each read back on its
    own (`get`): a page of results shows one of two chunks of the same text under the
    same heading (query/page.py), and two names of one file are exactly that."""
    holding = []
    for name in names:
        try:
            text = d.call("get", source=name)["text"]
        except Exception:  # not indexed (yet) under that name
            continue
        if token in text:
            holding.append(name)
    return holding


def test_an_edit_through_one_hard_link_reaches_the_other_name(live: tuple[Daemon, Path]) -> None:
    d, docs = live
    (docs / "sub").mkdir()
    first = docs / "pump.md"
    first.write_text("# Pump\n\nPrime the pump with the numbatone lever.\n")
    os.link(first, docs / "sub" / "pump-copy.md")
    both = ("pump.md", "sub/pump-copy.md")
    wait_for(lambda: _names_holding(d, "numbatone", both) == list(both), 30, "both names")
    with (docs / "sub" / "pump-copy.md").open("a") as through_the_other_name:
        through_the_other_name.write("Then turn the numbattwo valve.\n")
    wait_for(
        lambda: _names_holding(d, "numbattwo", both) == list(both),
        30,
        "the edit under both names",
    )
    # An atomic save through one name gives it an inode of its own: the other keeps its text.
    fresh = docs / "pump.md.new"
    fresh.write_text("# Pump\n\nPrime the pump with the bilbyone lever.\n")
    os.replace(fresh, first)
    wait_for(lambda: d.sources("bilbyone") == ["pump.md"], 30, "the atomic save")
    assert _names_holding(d, "numbattwo", both) == ["sub/pump-copy.md"]


def test_an_edit_through_a_link_made_later_reaches_the_indexed_name(
    live: tuple[Daemon, Path],
) -> None:
    """`ln` of a file already indexed, then an edit through the new name. A link count
    change is not told to the folder's watch (the kernel reports IN_ATTRIB only to the
    inode's own watches), so the indexed name was never looked at again and nobody knew
    it shared the inode: before, the edit reached the new name only, and the old name
    answered with the old text until a restart."""
    d, docs = live
    first = docs / "valve.md"
    first.write_text("# Valve\n\nOpen the valve with the quollone key.\n")
    d.wait_searchable("quollone", "valve.md")
    d.wait_idle()
    os.link(first, docs / "valve-link.md")
    both = ("valve-link.md", "valve.md")
    wait_for(lambda: _names_holding(d, "quollone", both) == list(both), 30, "both names")
    with (docs / "valve-link.md").open("a") as through_the_new_name:
        through_the_new_name.write("Then turn the quolltwo wheel.\n")
    wait_for(
        lambda: _names_holding(d, "quolltwo", both) == list(both),
        30,
        "the edit under both names",
    )


def _link_written_outside_then_moved_in(
    d: Daemon, docs: Path, name: str, old: str, new: str, keep_stat: bool = False
) -> None:
    """`name.md` indexed with `old` (a token), linked outside the root, written there
    with `new` in place of it (no watch sees it), then moved in as `name-link.md`: both
    names must come to hold `new`, and `old` leave the index."""
    first = docs / f"{name}.md"
    first.write_text(f"# {name.title()}\n\nRead the {name} at the {old} mark.\n")
    d.wait_searchable(old, first.name)
    d.wait_idle()
    outside = docs.parent / f"outside-{name}"
    outside.mkdir()
    link = outside / f"{name}-link.md"
    os.link(first, link)
    text = first.read_text().replace(old, new)
    if keep_stat:
        _write_keeping_the_stat(link, text)
    else:
        link.write_text(text)
    os.rename(link, docs / link.name)
    both = (link.name, first.name)
    wait_for(lambda: _names_holding(d, new, both) == list(both), 30, "both names new")
    assert d.sources(old) == []


def test_a_name_linked_and_written_before_it_was_looked_at_reaches_the_indexed_name(
    live: tuple[Daemon, Path],
) -> None:
    """`ln gauge.md gauge-link.md` and a save through the new name at once (within the
    debounce: found by bench/staleness_fuzz.py), here made deterministic: the link made
    outside the root, written there (no watch sees it), then moved in. By the time the
    new name is looked at, the indexed name holds its new bytes too, so no indexed file
    has them: before, the indexed name kept its old text for good (now
    `Reconciler._seek_names_changed` has the roots scanned: its new size and mtime)."""
    d, docs = live
    _link_written_outside_then_moved_in(d, docs, "gauge", "ibexone", "ibextwo-now")


def test_a_name_linked_and_written_keeping_the_stat_reaches_the_indexed_name(
    live: tuple[Daemon, Path],
) -> None:
    """The same, the save keeping size and mtime (`cp --preserve=timestamps` over the
    link, a save undone by `touch -d`): the scan of the roots that `_seek_names_changed`
    queues skipped the indexed name, its stat as indexed, and it kept the old text for
    good. The scan now reads the names of the inode sought whatever their stat."""
    d, docs = live
    _link_written_outside_then_moved_in(d, docs, "lever", "emuone", "emutwo", keep_stat=True)


def _appended_through(d: Daemon, docs: Path, name: str, link: str, token: str) -> Path:
    """`name.md` indexed with `token`+"one", hard-linked as `link`, appended to through
    it with `token`+"two": the note must come to hold the new text."""
    note = docs / f"{name}.md"
    note.write_text(f"# {name.title()}\n\nThe {name} note names a {token}one.\n")
    d.wait_searchable(f"{token}one", note.name)
    d.wait_idle()
    other = docs / link
    os.link(note, other)
    with other.open("a") as f:
        f.write(f"\nThen {token}two.\n")
    d.wait_searchable(f"{token}two", note.name)
    return other


def test_a_write_through_a_name_that_is_no_document_reaches_the_note(
    live: tuple[Daemon, Path],
) -> None:
    """A note hard-linked under a name that is no document (`tap.dat`), appended to
    through that name: the event names a file that is not read, and the note holding
    the same bytes was never synced (before, the old text for good).
    First the link made after the note was last looked at (its other names unknown: the
    roots scanned for them), then again (the note known on the inode: read at once)."""
    d, docs = live
    other = _appended_through(d, docs, "tap", "tap.dat", "marmot")
    with other.open("a") as f:
        f.write("\nThen marmotthree.\n")
    d.wait_searchable("marmotthree", "tap.md")


def test_a_write_through_a_temporary_name_of_a_note_reaches_the_note(
    live: tuple[Daemon, Path],
) -> None:
    """The same through a name the watcher drops as an editor's temporary (`spout.md~`:
    found by bench/staleness_fuzz.py, seed 6005, a link appended to under that name):
    a hard-linked one is synced now, so the note's names are read."""
    d, docs = live
    _appended_through(d, docs, "spout", "spout.md~", "tapir").unlink()


def _two_names_indexed(d: Daemon, docs: Path, name: str, token: str) -> tuple[str, str]:
    """`name.md` and its hard link `name-copy.md` in the root, both indexed with `token`."""
    note = docs / f"{name}.md"
    note.write_text(f"# {name.title()}\n\nThe {name} note names a {token}.\n")
    os.link(note, docs / f"{name}-copy.md")
    both = (f"{name}-copy.md", note.name)
    wait_for(lambda: _names_holding(d, token, both) == list(both), 30, "both names")
    d.wait_idle()
    return both


def test_a_hard_link_emptied_through_one_name_leaves_the_index_under_both(
    live: tuple[Daemon, Path],
) -> None:
    """Two names of one note in the root, emptied through one (`truncate -s 0`): both
    are empty files now, not indexed. Only the written name's plan queued the others,
    and an empty file is no plan (a skip): the other name answered with the old text
    for good (found by bench/staleness_fuzz.py, seed 6006)."""
    d, docs = live
    both = _two_names_indexed(d, docs, "clip", "dingoone")
    (docs / "clip.md").write_bytes(b"")
    wait_for(lambda: d.sources("dingoone") == [], 30, "the emptied note gone under both names")
    for name in both:  # (their `empty file` skips would show in the module's later tests)
        (docs / name).unlink()
    d.wait_idle()


def test_a_hard_link_written_then_moved_out_at_once_reaches_the_other_name(
    live: tuple[Daemon, Path],
) -> None:
    """Two names of one note in the root; appended to through one, which is moved out
    of the root at once (within the debounce): the sync of the written name finds it
    gone, and only a plan of its new bytes queued the other name, which answered with
    the old text for good (found by bench/staleness_fuzz.py, seed 6003: a link
    appended to, then its folder moved out)."""
    d, docs = live
    _two_names_indexed(d, docs, "hook", "lemurone")
    away = docs.parent / "away"
    away.mkdir()
    with (docs / "hook-copy.md").open("a") as f:
        f.write("\nThen lemurtwo.\n")
    os.rename(docs / "hook-copy.md", away / "hook-copy.md")
    d.wait_searchable("lemurtwo", "hook.md")


def test_rag_ingest_of_a_file_reads_it_whatever_its_stat(live: tuple[Daemon, Path]) -> None:
    """Changed while the daemon was down, size and mtime kept: the start-up walk trusts
    the stat (by design: it reads no unchanged file), and `ragd check` calls the file
    stale. `rag ingest FILE` said "re-reading" and read nothing; it now reads it."""
    d, docs = live
    note = docs / "offline.md"
    note.write_text("# Offline\n\nThe gate code is ocelotone.\n")
    d.wait_searchable("ocelotone", "offline.md")
    d.wait_idle()
    d.stop()
    _write_keeping_the_stat(note, "# Offline\n\nThe gate code is ocelottwo.\n")
    d.start()
    d.wait_idle()
    assert d.sources("ocelotone") == ["offline.md"]  # the walk read nothing unchanged
    result = d.rag("ingest", str(note))
    assert result.returncode == 0, result.stderr
    wait_for(lambda: d.sources("ocelottwo") == ["offline.md"], 30, "the file read again")
    assert d.sources("ocelotone") == []
    # Again, unchanged now: said so, for the file and for its folder (it said
    # "re-reading offline.md" and nothing more).
    again = d.rag("ingest", str(note))
    assert again.returncode == 0, again.stderr
    assert "offline.md: unchanged since it was indexed" in again.stderr, again.stderr
    folder = d.rag("ingest", str(docs))
    assert folder.returncode == 0, folder.stderr
    assert ": nothing changed since it was indexed" in folder.stderr, folder.stderr


def test_rag_ingest_of_a_file_left_out_says_why_not_unchanged(live: tuple[Daemon, Path]) -> None:
    """attack48: `rag ingest` of a hidden, gitignored or unindexed file (or a hidden
    folder) said it was "unchanged since it was indexed", of files never indexed."""
    d, docs = live
    left = docs / "left"
    (left / ".notes").mkdir(parents=True)
    (left / ".gitignore").write_text("secret.md\n")
    cases = {
        ".notes/q.md": "it is in a folder ragd never enters (.notes/",
        "secret.md": "an ignore file lists it (.gitignore",
        "x.png": "it is not a type ragd indexes (.png",
        ".hidden.md": "its name is hidden",
    }
    for name in cases:
        (left / name).write_text("# Left\n\nThe numbat word is numbatleft.\n")
    (left / "kept.md").write_text("# Kept\n\nThe numbat word is numbatkept.\n")
    d.wait_searchable("numbatkept", "left/kept.md")
    for name, why in cases.items():
        result = d.rag("ingest", str(left / name))
        assert result.returncode == 0, result.stderr
        assert f"{name}: not indexed: {why}" in result.stderr, result.stderr
        assert "unchanged since it was indexed" not in result.stderr
    folder = d.rag("ingest", str(left / ".notes"))
    assert "not indexed: it is in a folder ragd never enters (.notes/" in folder.stderr
    kept = d.rag("ingest", str(left / "kept.md"))
    assert "kept.md: unchanged since it was indexed" in kept.stderr, kept.stderr
    assert d.sources("numbatleft") == []


def test_a_retitled_chapter_is_shown_so_by_the_chapter_that_refers_to_it(
    live: tuple[Daemon, Path],
) -> None:
    """A chapter's text shows the title of the chapter beside it that its `xref` points
    to, and the words a DTD beside it defines: its own bytes do not change when either
    does, and the index (keyed by them) kept the old words until the chapter itself
    changed. A change to a file a parse read, or a new file holding an id it looked for
    in vain, now reads that chapter again (`ingest/dependents.py`); the chapter that
    refers to nothing is not read again."""
    d, docs = live
    book = docs / "manual"
    book.mkdir()
    (book / "names.dtd").write_text('<!ENTITY app "Quayside">\n')
    mooring = '<!DOCTYPE chapter SYSTEM "names.dtd">\n<chapter id="mooring"><title>Moor'
    (book / "ch_moor.xml").write_text(
        mooring + 'ing</title><para>At &app; read <xref linkend="tides"/> first.</para>'
        '<para>Ask for <xref linkend="berths"/>.</para></chapter>'
    )
    tides = '<chapter id="tides"><title>Tide {}</title><para>High water.</para></chapter>'
    (book / "ch_tides.xml").write_text(tides.format("tables"))
    (book / "ch_alone.xml").write_text(
        '<chapter id="alone"><title>Alone</title><para>Nothing beside.</para></chapter>'
    )

    def chapter() -> str:
        try:
            return str(d.call("get", source="manual/ch_moor.xml")["text"])
        except Exception:  # not indexed (yet)
            return ""

    wait_for(lambda: "At Quayside read Tide tables first." in chapter(), 60, "the chapter")
    d.wait_idle()

    def indexed(name: str) -> int:
        return sum(1 for line in d.log().splitlines() if "indexed" in line and name in line)

    assert indexed("ch_alone.xml") == 1
    (book / "ch_tides.xml").write_text(tides.format("charts"))
    wait_for(lambda: "read Tide charts first." in chapter(), 60, "the new title shown")
    (book / "names.dtd").write_text('<!ENTITY app "Wharfside">\n')
    wait_for(lambda: "At Wharfside read" in chapter(), 60, "the DTD's new words")
    assert "Ask for berths." in chapter()  # an id found nowhere shows itself ...
    (book / "ch_berths.xml").write_text(
        '<chapter id="berths"><title>Berth plan</title><para>Quay 4.</para></chapter>'
    )
    wait_for(lambda: "Ask for Berth plan." in chapter(), 60, "... until a chapter holds it")
    d.wait_idle()
    assert indexed("ch_alone.xml") == 1  # it read neither
    assert indexed("ch_tides.xml") == 2  # saved once; it read no DTD


def test_a_save_to_an_indexed_name_linked_outside_the_roots_walks_no_root(
    tmp_path: Path,
) -> None:
    """Notes hard-linked outside the root (`cp -al` to a backup, a pnpm store): their
    link count never matches the names in the roots. After a restart every first save
    of each such note had every root walked (`_seek_names_changed`): 0.6 s a save at
    5,000 notes. An indexed name saved in place, on the inode the start-up walk saw it
    on, seeks nothing now. The probe for a walk: a note written through its outside name
    (no watch of the root sees that) is read only by one."""
    docs, store = tmp_path / "docs", tmp_path / "store"
    docs.mkdir()
    (docs / "pump.md").write_text("# Pump\n\nThe pump note names a walrusone.\n")
    (docs / "valve.md").write_text("# Valve\n\nThe valve note names a gannetone.\n")
    subprocess.run(["cp", "-al", str(docs), str(store)], check=True)
    d = Daemon(tmp_path / "t", [docs]).start()
    try:
        d.wait_idle()
        d.stop()
        d.start()  # the inodes sought are forgotten; the walk notes each name's inode
        d.wait_idle()
        (store / "valve.md").write_text("# Valve\n\nThe valve note names a gannettwo.\n")
        (docs / "pump.md").write_text("# Pump\n\nThe pump note names a walrustwo.\n")
        d.wait_searchable("walrustwo", "pump.md")
        d.wait_idle()
        # Before: the save of pump.md had the root walked, and valve.md read with it.
        assert d.sources("gannetone") == ["valve.md"]
    finally:
        d.stop()
