"""The page of results: fused order blended with support, release notes after the rest
unless asked (pure).

Reciprocal rank fusion sees ranks only: a chunk one retriever ranks 2nd and the other
never returns scores 1/62, below any chunk both lists hold at middling ranks (1/67 +
1/62), although the retriever already knows both halves of its evidence — support
(support.py) is computed for every candidate, from its best-window cosine (also for a
chunk only BM25 found) and its term coverage (also for one only the vectors found). A
paraphrased question is exactly the case where one retriever misses the right section
("keys that aren't declared" for "Handling unknown fields": vector rank 5, no BM25 rank),
so the page orders by the fused score plus `SUPPORT_WEIGHT` × support. Fused scores lie
in 0–0.033 (two lists, k = 60) and support in 0–1, so 0.04 weighs the two about equally.

A change log or an upgrade guide repeats a project's whole vocabulary under headings that
name versions ("Changelog > 3.0.0 (2019-08-18)", "Upgrading to 3.0 > Schemas are always
strict"), so its chunks fuse just above the section a paraphrased how-to question wants.
When the question does not ask about versions or changes, a chunk whose heading path names
a version has that score weighed down by `RELEASE_NOTE_WEIGHT` for the page's order;
otherwise the page is in that order. Each retriever's top hit keeps its place (as in
`fusion.fuse`). The gate judges every candidate, never the page, so this changes only what
is shown, not the refusal decision.

A code repository's tests use every name its documentation and source define, in many
small chunks (attrs' sdist: 888 of its 1,431 chunks), so they fuse beside the passage that
explains a name and fill the page with assertions. Unless the question asks about tests, a
chunk of a test file (`is_test_path`) is weighed down by `TEST_CODE_WEIGHT` the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence

from ragd.query.types import RetrievedChunk

RELEASE_NOTE_WEIGHT = 0.8  # measured on the eval corpora: 0.9–0.5 gave the same hits
TEST_CODE_WEIGHT = 0.8
# Fitted leave-one-corpus-out on the eval corpora's hit@5 (grid 0.02–0.3): every held-out
# fold chose 0.04 (held-out mean 0.896 → 0.920; git lost one question, eight were gained).
SUPPORT_WEIGHT = 0.04

# A version number standing alone in a heading level: "3.0", "v2.8.1", "4.0.0 (2025-04-16)".
VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.])")
# A question about releases: names a version, or asks what changed, was added or removed.
ASKS_ABOUT_RELEASES = re.compile(
    r"\b(?:versions?|releases?|released|change ?logs?|changed?|changes|upgrad\w*|"
    r"deprecat\w*|new in|what's new|removed|migrat\w*|since)\b|\d\.\d",
    re.IGNORECASE,
)


# A question about tests themselves, where a test file is what is asked for.
ASKS_ABOUT_TESTS = re.compile(
    r"\b(?:tests?|testing|tested|pytest|unittest|fixtures?|conftest|mock\w*)\b", re.IGNORECASE
)
# What a test suite is called in the ecosystems ragd reads: pytest's and unittest's tests/
# and test_*.py, Django's tests.py module (or tests/ package) inside an app, Go's
# *_test.go, Jest's __tests__/ and *.test.js, Java's src/test/, .NET's Foo.Tests/ project.
# Not testing/: there a library keeps the helpers it ships for its users' tests
# (numpy.testing's assert_allclose, Go's testing package), which is public API.
_TEST_FOLDERS = frozenset({"test", "tests", "__tests__"})
_TEST_STEMS = re.compile(r"^(?:tests?|test_.*|.*_tests?|conftest|.*\.test)$", re.IGNORECASE)
# RSpec's and Jasmine's suites are specs: spec/, *_spec.rb, *.spec.ts. A spec in data or
# prose is a specification (spec/openapi.yaml, api_spec.json), so only code counts.
_SPEC_FOLDERS = frozenset({"spec", "specs"})
_SPEC_STEMS = re.compile(r"^.*[._]spec$", re.IGNORECASE)
_CODE_SUFFIXES = frozenset(
    {"py", "rb", "js", "jsx", "mjs", "cjs", "ts", "tsx", "go", "rs", "java", "kt", "cs"}
    | {"c", "h", "cc", "cpp", "hpp", "sh", "php", "swift", "scala", "ex", "exs"}
)
# .NET names a test project after the project it tests: Ferry.Tests/, Ferry.UnitTests/.
_TEST_PROJECT_ENDS = ("Tests", "Test", "Specs")


# Prose is documentation wherever it is (docs/testing/fixtures.md, tests/README.md).
_PROSE_SUFFIXES = frozenset({"md", "markdown", "rst", "txt", "html", "htm", "adoc", "org"})


def is_test_path(source: str) -> bool:
    """A file of a test suite: code or data under a tests/ (test/, __tests__/, Foo.Tests/)
    folder, or named test_*, *_test(s), test(s), *.test or conftest; code under spec/ or
    named *_spec, *.spec. Never prose."""
    *folders, name = source.replace("\\", "/").split("/")
    stem, _, suffix = name.rpartition(".") if "." in name[1:] else (name, "", "")
    suffix = suffix.lower()
    if suffix in _PROSE_SUFFIXES:
        return False
    if any(f.lower() in _TEST_FOLDERS or _is_test_project(f) for f in folders):
        return True
    if _TEST_STEMS.match(stem):
        return True
    specs = any(f.lower() in _SPEC_FOLDERS for f in folders) or _SPEC_STEMS.match(stem)
    return bool(specs) and suffix in _CODE_SUFFIXES


def _is_test_project(folder: str) -> bool:
    """A .NET test project's folder: "Ferry.Tests", "Ferry.Core.UnitTests" (not
    "node.latest": the tail starts with a capital and ends in Tests, Test or Specs)."""
    head, dot, tail = folder.rpartition(".")
    return bool(dot and head) and tail[:1].isupper() and tail.endswith(_TEST_PROJECT_ENDS)


# A section number leading a titled level ("2.4 Multiple ABIs") is no version.
SECTION_NUMBER = re.compile(r"\s*\d+(?:\.\d+)*\.?\s+[^\W\d]")


# A title after a leading number that makes the number a release ("2.2.0 Release Notes"),
# where any other title makes it a section number ("2.4 Multiple ABIs").
RELEASE_TITLES = frozenset(("release", "releases", "release:", "changes", "changelog", "notes"))


def release_levels(where: str) -> Iterator[str]:
    """The levels of `where` (a heading path, and lines of context under it) that may name
    a release: not a numbered section ("4.2 Proxy settings" is no release 4.2: read as
    one, its units went last for "How do I set the proxy in 3.1?" once 3.1's section was
    on the page), unless its title says it is a release ("2.2.0 Release Notes"), or the
    title alone does ("10.4. Version 4.6.0": the title without the section number)."""
    for line in where.split("\n"):
        for level in line.split(" > "):
            if not SECTION_NUMBER.match(level):
                yield level
                continue
            words = level.split(None, 2)
            if len(words) > 1 and words[1].lower() in RELEASE_TITLES:
                yield level
            elif len(words) > 2 and words[1].lower() == "version":
                # "10.4. Version 4.6.0" (Debian Policy's upgrading checklist): the title
                # names the release, the number before it is the section's.
                yield f"{words[1]} {words[2]}"


def names_a_version(heading: str) -> bool:
    """Does a level of `heading` name a release ("2.2.0 Release Notes" does, the section
    "2.4 Multiple ABIs" does not)?"""
    return any(VERSION.search(level) for level in release_levels(heading))


def relevance(c: RetrievedChunk) -> float:
    """What the page is ordered by: the fused rank score and the chunk's support."""
    return c.fused + SUPPORT_WEIGHT * c.support


def weight_for(question: str) -> Callable[[str, str], float]:
    """The factor a chunk's relevance is taken at on this question's page, from its heading
    path and source: release notes and test code count less unless the question asks
    about them (bench/retrieval_variants.py replays the page with it too)."""
    asks = ASKS_ABOUT_RELEASES.search(question) is not None
    asks_tests = ASKS_ABOUT_TESTS.search(question) is not None

    def weight(heading: str, source: str) -> float:
        factor = RELEASE_NOTE_WEIGHT if not asks and names_a_version(heading) else 1.0
        return factor * (TEST_CODE_WEIGHT if not asks_tests and is_test_path(source) else 1.0)

    return weight


def page_order(question: str, ordered: Sequence[RetrievedChunk]) -> list[RetrievedChunk]:
    """The candidates in the page's order (`ordered`: fused order, ties by support)."""
    weight = weight_for(question)
    position = {c.chunk_id: i for i, c in enumerate(ordered)}

    def weighed(c: RetrievedChunk) -> tuple[float, int]:
        return (-relevance(c) * weight(c.heading, c.source), position[c.chunk_id])

    return sorted(ordered, key=weighed)


def _copy_key(chunk: RetrievedChunk) -> tuple[str, str]:
    """What makes two chunks copies: the same words under the same heading. The same words
    under another heading are not ("- Minor bug fixes." under 1.2.1 and under 1.2.2: which
    release it belongs to is the heading's)."""
    text = " ".join(chunk.text.split())
    return (chunk.heading, text) if text else (chunk.chunk_id, "")


def choose_page(
    question: str, ordered: Sequence[RetrievedChunk], top_k: int, anchors: Collection[str] = ()
) -> list[RetrievedChunk]:
    """The `top_k` page; `anchors`: chunk ids that must appear (each retriever's top hit)."""
    if top_k <= 0:
        return []
    page: list[RetrievedChunk] = []
    shown: set[tuple[str, str]] = set()
    for chunk in page_order(question, ordered):
        # A chunk whose text is already on the page under the same heading (a file shipped
        # twice under two names, bash's CHANGES and changelog; a README copied into docs/)
        # would take a place and show nothing new.
        key = _copy_key(chunk)
        if key in shown:
            continue
        shown.add(key)
        page.append(chunk)
        if len(page) == top_k:
            break
    for anchor in [c for c in ordered if c.chunk_id in anchors and c not in page]:
        if _copy_key(anchor) in shown:
            continue
        for i in range(len(page) - 1, -1, -1):  # the weakest chunk that is no anchor
            if page[i].chunk_id not in anchors:
                page[i] = anchor
                break
    return page
