"""`rag ingest` of a path already indexed says what came of it. Of an unchanged file it
said "re-reading notes/a.md", then the root's summary, and read nothing new: the user
could not tell whether the file had been indexed again, or looked at at all. The file's
bytes are read and compared (`ingest/rewrites.py`); unchanged, nothing is indexed again,
and `rag ingest` now says so — for a folder, of the files the walk found as indexed."""

from __future__ import annotations

from ragcli.render import reread_outcome

BEFORE = {"files_indexed": 4, "files_removed": 1, "files_unchanged": 2}


def test_an_unchanged_file_is_said_to_be_unchanged() -> None:
    after = BEFORE | {"files_unchanged": 3}
    line = reread_outcome("notes/a.md", True, BEFORE, after)
    assert line == "notes/a.md: unchanged since it was indexed (its bytes compared): nothing to do"


def test_a_folder_of_unchanged_files_is_said_to_be_unchanged() -> None:
    line = reread_outcome("notes/drafts", False, BEFORE, dict(BEFORE))
    assert line.startswith("notes/drafts: nothing changed since it was indexed")
    assert line.endswith(": nothing to do")


def test_what_was_indexed_again_or_removed_is_counted() -> None:
    after = BEFORE | {"files_indexed": 7, "files_removed": 2}
    assert reread_outcome("notes", False, BEFORE, after) == (
        "notes: 3 files indexed again, 1 file removed"
    )
    after = BEFORE | {"files_indexed": 5}
    assert reread_outcome("notes/a.md", True, BEFORE, after) == "notes/a.md: indexed again"


def test_an_older_daemons_reply_without_counts_says_nothing_of_the_outcome() -> None:
    # A daemon from before `activity` was in the ingest reply (the client upgraded, the
    # daemon not yet restarted): its lifetime counts against none were "4 files indexed
    # again" for an unchanged file.
    assert reread_outcome("notes/a.md", False, None, BEFORE) is None
