"""A file with no text to index (an empty `__init__.py`, a page of nothing but comments):
skipped as "no text", never an error. A symbolic link not followed (the default) is not
an error either: `rag status` lists it apart, with the setting that reads it.

The reason is written by the readers (in the parse worker), stored as a problem in the
manifest so that version is not read again until it changes, and told apart from real
problems by `rag status` (its own "no text" row, not the error list) and by the writer's
log level. It travels as text, between processes and in the manifest, so it is named once
here and recognised by `is_no_text`.
"""

from __future__ import annotations

import os
import stat

EMPTY = "empty file"  # nothing but blanks
_NO_TEXT = " has no text"  # a format's reader found nothing to index
# A file of a suffix shared with data (`.xml`: a DocBook chapter, or a Maven pom, a
# settings file): the reader found it is not a document. Nothing is wrong with it either.
_NOT_A_DOCUMENT = " is not a document"


# Why a link is not read while `follow_symlinks` is off (ingest/planner.py). etckeeper's
# `commit.d/20store-metadata → ../pre-commit.d/30store-metadata` was counted under
# `errors 1`, which read as a failure (newuser44): nothing is wrong with such a file.
LINK_NOT_FOLLOWED = "symbolic link (not followed: follow_symlinks = true reads it)"


def has_no_text(label: str) -> str:
    """The reason for a file `label`'s reader (e.g. "reStructuredText") found no text in."""
    return f"{label}{_NO_TEXT}"


def not_a_document(what: str) -> str:
    """The reason for a file that is data, not a document ("XML (root <project>)")."""
    return f"{what}{_NOT_A_DOCUMENT}"


def is_no_text(reason: str) -> bool:
    """Is `reason` a file with no text (not a problem)? A PDF without a text layer is
    one: its pages are images, which OCR could read. Neither is an `.xml` file that is
    data (`not_a_document`)."""
    return reason == EMPTY or reason.endswith((_NO_TEXT, _NOT_A_DOCUMENT))


def is_no_fault(reason: str) -> bool:
    """Is `reason` a file left unread for no fault of its own (no text, or a link not
    followed)? Logged at INFO, not as a warning, and listed apart from the errors."""
    return is_no_text(reason) or reason == LINK_NOT_FOLLOWED


# ragd's own standard output or error, redirected into a file under a root (`ragd serve
# ~/notes > ~/notes/ragd-log.txt 2>&1`): each line it logs about indexing the file changed
# the file, which was indexed again, once a second for ever, and the daemon never went
# idle (attack48). It is skipped as data, not an error.
OWN_OUTPUT = not_a_document("ragd's own log (its standard output or error)")


_own_output: frozenset[tuple[int, int]] = frozenset()
_own_output_paths: frozenset[str] = frozenset()


def remember_own_output() -> None:
    """Note which regular files this process's standard output and error are, and where
    they are (the kernel's name for each, links resolved). Called at the daemon's start,
    before it opens any file: a descriptor 1 or 2 closed at start is reused by the next
    file opened, and read later it would name a document."""
    global _own_output, _own_output_paths
    found, paths = set(), set()
    for fd in (1, 2):
        try:
            own = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(own.st_mode):
            found.add((own.st_dev, own.st_ino))
            try:
                path = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if os.path.isabs(path) and not path.endswith(" (deleted)"):
                paths.add(path)
    _own_output, _own_output_paths = frozenset(found), frozenset(paths)


def own_output_paths() -> frozenset[str]:
    """Where this process's standard output and error were at start, when they are files
    (`remember_own_output`): the watcher queues nothing for their writes."""
    return _own_output_paths


def is_own_output(st: os.stat_result) -> bool:
    """Is the file `st` describes this process's standard output or error, as they were
    at start (`remember_own_output`)?"""
    return (st.st_dev, st.st_ino) in _own_output
