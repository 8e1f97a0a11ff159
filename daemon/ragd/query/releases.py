"""Which release a question or a heading names (pure).

A change log says the same things about every release in the same words ("Fixes", "Fix a
crash when …"), so "What was fixed in 2.14.3?" retrieves the sections of 2.14.2 and 2.14.4
as readily as its own; only the heading's version tells them apart. The keyless answer
(extractive.py) ranks a unit lower when the heading it sits under names a release and none
of them is one the question names; and the page (retrieval.py) shows the best candidate
headed by the release the question names, wherever the fused order put it ("What changed
in urllib3 2.2.0?" ranked its own section 18th, behind the 2.0 migration guide, which
shares every other word).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ragd.query.page import VERSION, release_levels
from ragd.query.question import is_version

# "Python 3.12", "py3.8", "CPython 3.11", "PyPy 3.9": the version of the language a
# package runs on, not one of its releases. "Which release dropped Python 2.7?" over
# requests' history favoured the section of requests 2.7.0 and put every other release's
# lines last; over dateutil's, "Python 2.5" anchored dateutil 2.5.0's section on the page.
# (Each repeat of the version's tail starts with a dot: linear.)
RUNTIME_VERSION = re.compile(r"\b(?:c?python|pypy|py) ?v?(\d+(?:\.\d+)+)(?![\w.])", re.IGNORECASE)


def runtimes(text: str) -> set[str]:
    """The versions of Python `text` names ("Python 3.12" → "3.12")."""
    return {m.group(1) for m in RUNTIME_VERSION.finditer(text)}


def named(text: str) -> set[str]:
    """The releases `text` names, without a leading "v" ("v3.3.0" → "3.3.0"); a version
    of Python ("Python 3.12") is none."""
    return {m.group(0).lstrip("vV") for m in VERSION.finditer(text)} - runtimes(text)


def same(one: str, other: str) -> bool:
    """ "3.3" and "3.3.0" (or "3.3.1") name the same release line; "3.3" and "3.30" do not."""
    return one == other or one.startswith(f"{other}.") or other.startswith(f"{one}.")


def another(asked: set[str], where: str) -> bool:
    """`where` (a heading path) names a release, and none of the `asked` ones."""
    here = _released(where)
    return bool(here) and not any(same(a, h) for a in asked for h in here)


def _released(where: str) -> set[str]:
    """The releases `where` (a heading path, and lines of context under it) names."""
    return {version for level in release_levels(where) for version in named(level)}


def asked(identifiers: Iterable[str], question: str = "") -> set[str]:
    """The releases a question asks about: the versions among the identifiers it demands
    (question.identifiers: a version given as an example is not one of them), less the
    versions of Python the `question` names."""
    versions = {token.lstrip("vV") for token in identifiers if is_version(token)}
    return versions - runtimes(question)


def headed_by(releases: set[str], heading: str) -> bool:
    """Does a level of `heading` (a path) name one of `releases`? A section number
    ("2.7.9. Limiting bandwidth") names none."""
    return any(same(wanted, here) for here in _released(heading) for wanted in releases)


# Releases anchored on one page: a page is five chunks by default, two of them each
# retriever's top hit.
MAX_ANCHORED = 2


def section_of(releases: set[str], headings: Sequence[tuple[str, str]]) -> set[str]:
    """Of (chunk id, heading path) pairs in fused order, the first headed by each of
    `releases` (at most MAX_ANCHORED of them): the page's anchors. "What changed between
    2.1 and 2.2?" needs both sections, not the first one found. A release with no section
    takes no place: the next one asked is tried."""
    named = [(chunk_id, _released(heading)) for chunk_id, heading in headings] if releases else []
    anchors: set[str] = set()
    for wanted in sorted(releases):
        if len(anchors) == MAX_ANCHORED:
            break
        for chunk_id, here in named:
            if any(same(wanted, version) for version in here):
                anchors.add(chunk_id)
                break
    return anchors
