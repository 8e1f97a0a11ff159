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

from collections.abc import Iterable, Sequence

from ragd.query.page import VERSION, release_levels
from ragd.query.question import is_version

# A version written right after one of these names is the interpreter's ("stop supporting
# Python 2.7", "PyPy 3.9"), not a release of the project the documents are about.
INTERPRETERS = ("python", "cpython", "pypy")
_NAME_GAP = 12  # how far before a version its interpreter's name is looked for


def named(text: str, headings: Sequence[str] = ()) -> set[str]:
    """The versions `text` names, without a leading "v" ("v3.3.0" → "3.3.0"); not one
    written after an interpreter's name, unless one of `headings` names that interpreter
    and version together (Python's own "What's New In Python 2.7")."""
    headed: set[tuple[str, str]] = set()
    for heading in headings:
        headed |= _versions_with_names(heading)
    found = set()
    for match in VERSION.finditer(text):
        version = match.group(0).lstrip("vV")
        interpreter = _interpreter_before(text, match.start())
        if interpreter and (version, interpreter) not in headed:
            continue
        found.add(version)
    return found


def _versions_with_names(text: str) -> set[tuple[str, str]]:
    """Each version `text` names with the interpreter named right before it ("" for
    none): "What's New In Python 2.7" holds ("2.7", "python"); "Python-Markdown 2.6
    Release Notes" holds ("2.6", ""), Python-Markdown's release, not Python's."""
    return {
        (m.group(0).lstrip("vV"), _interpreter_before(text, m.start()))
        for m in VERSION.finditer(text)
    }


def named_plainly(text: str) -> set[str]:
    """Every version `text` names, whatever comes before it."""
    return {m.group(0).lstrip("vV") for m in VERSION.finditer(text)}


def _interpreter_before(text: str, start: int) -> str:
    """The interpreter named right before `start` ("Python " before "2.7"), or ""."""
    before = text[max(0, start - _NAME_GAP) : start].rstrip().lower()
    return next((name for name in INTERPRETERS if before.endswith(name)), "")


def same(one: str, other: str) -> bool:
    """ "3.3" and "3.3.0" (or "3.3.1") name the same release line; "3.3" and "3.30" do not."""
    return one == other or one.startswith(f"{other}.") or other.startswith(f"{one}.")


def another(asked: set[str], where: str) -> bool:
    """`where` (a heading path) names a release, and none of the `asked` ones."""
    here = _released(where)
    return bool(here) and not any(same(a, h) for a in asked for h in here)


def heads_a_release(where: str) -> bool:
    """`where` (a heading path, and lines of context under it) names a release: its
    items are a change log's entries."""
    return bool(_released(where))


def _released(where: str) -> set[str]:
    """The releases `where` (a heading path, and lines of context under it) names."""
    return {version for level in release_levels(where) for version in named_plainly(level)}


def asked(
    identifiers: Iterable[str], text: str | None = None, headings: Sequence[str] = ()
) -> set[str]:
    """The releases a question asks about: the versions among the identifiers it demands
    (question.identifiers: a version given as an example is not one of them); given the
    question's `text`, only those it names as releases (`named`: not "Python 2.7")."""
    if text is None:
        return {token.lstrip("vV") for token in identifiers if is_version(token)}
    return demanded(identifiers, named(text, headings))


def demanded(identifiers: Iterable[str], releases: set[str]) -> set[str]:
    """Of the `releases` a question names (`named`), those among the identifiers it
    demands: `asked` for a caller that has `named` already."""
    return {
        version
        for version in (token.lstrip("vV") for token in identifiers if is_version(token))
        if version in releases
    }


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
