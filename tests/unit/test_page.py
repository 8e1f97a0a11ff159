import pytest

from ragd.query.page import (
    SUPPORT_WEIGHT,
    choose_page,
    is_test_path,
    names_a_version,
    relevance,
)
from ragd.query.types import RetrievedChunk


def chunk(cid: str, heading: str, fused: float, source: str = "") -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=cid,
        source=source or f"{cid}.rst",
        heading=heading,
        text=cid,
        support=0.5,
        fused=fused,
        vector_rank=None,
        bm25_rank=None,
    )


def ids(page: list[RetrievedChunk]) -> list[str]:
    return [c.chunk_id for c in page]


ORDERED = [
    chunk("log", "Changelog > 3.0.0 (2019-08-18)", 0.032),
    chunk("upgrade", "Upgrading to newer releases > Upgrading to 3.0 > Strict schemas", 0.031),
    chunk("guide", "Quickstart > Declaring schemas", 0.030),
    chunk("api", "API > Schema", 0.020),
]


def test_headings_naming_a_version() -> None:
    assert names_a_version("Changelog > 3.0.0 (2019-08-18)")
    assert names_a_version("Upgrading to v2.8 > Fields")
    assert not names_a_version("Python 3 support > Fields")  # a number, not a version
    assert not names_a_version("RFC 822 dates > ISO 8601")
    assert not names_a_version("Timeouts > 1.5x backoff")
    assert not names_a_version("Multiple ABIs (libffi) > 2.4 Multiple ABIs")  # a section number
    # A leading number titled as a release is one, as releases.py reads it: a page of
    # release notes keeps its release-note weight.
    assert names_a_version("urllib3 > 2.2.0 Release Notes")
    assert names_a_version("1.4 Changes > Fixes")


def test_release_notes_give_way_when_the_question_is_not_about_releases() -> None:
    page = choose_page("How do I declare a schema?", ORDERED, top_k=2)
    assert ids(page) == ["guide", "log"]  # 0.030 > 0.032 × 0.8; the log still outranks api


def test_fused_order_when_the_question_asks_about_releases() -> None:
    for question in ("What changed in 3.0?", "Which release made schemas strict?"):
        assert ids(choose_page(question, ORDERED, top_k=2)) == ["log", "upgrade"]


def test_anchors_keep_their_place() -> None:
    page = choose_page("How do I declare a schema?", ORDERED, top_k=2, anchors={"upgrade"})
    assert ids(page) == ["guide", "upgrade"]
    assert choose_page("anything", ORDERED, top_k=0) == []


def scored(cid: str, fused: float, support: float) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=cid,
        source=f"{cid}.rst",
        heading=f"Guide > {cid}",
        text=cid,
        support=support,
        fused=fused,
        vector_rank=None,
        bm25_rank=None,
    )


def test_support_lifts_a_chunk_only_one_retriever_found() -> None:
    # "both": mid ranks in both lists (1/67 + 1/62), weakly supported; "dense": the vector
    # retriever's 2nd, absent from BM25 (1/62), with a high cosine, so well supported.
    both = scored("both", 1 / 67 + 1 / 62, support=0.25)
    dense = scored("dense", 1 / 62, support=0.7)
    filler = [scored(f"f{i}", 1 / 80, support=0.1) for i in range(3)]
    page = choose_page("What happens to undeclared keys?", [both, *filler, dense], top_k=2)
    assert ids(page) == ["dense", "both"]
    assert relevance(dense) == pytest.approx(1 / 62 + SUPPORT_WEIGHT * 0.7)


def test_fused_order_decides_between_equally_supported_chunks() -> None:
    ordered = [scored(c, f, support=0.4) for c, f in (("a", 0.03), ("b", 0.02), ("c", 0.01))]
    assert ids(choose_page("anything at all", list(reversed(ordered)), top_k=3)) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("source", "of_tests"),
    [
        ("tests/test_make.py", True),
        ("repo/tests/typing_example.py", True),  # any file of a tests/ folder
        ("tests/data/answers.json", True),
        ("src/pkg/conftest.py", True),
        ("pkg/client_test.go", True),
        ("web/button.spec.ts", True),
        ("test_mypy.yml", True),
        ("src/attr/_make.py", False),
        ("docs/testing/fixtures.md", False),  # prose about testing is documentation
        ("tests/README.rst", False),
        ("src/pkg/attest.py", False),
        ("latest.py", False),
        # Django: an app's tests.py module, or its tests/ package.
        ("shop/tests.py", True),
        ("shop/tests/test_views.py", True),
        ("shop/tests/factories.py", True),
        ("shop/views.py", False),
        # RSpec and Jasmine: spec/ and *_spec.rb, *.spec.ts; a spec in data is no test.
        ("spec/models/user_spec.rb", True),
        ("spec/spec_helper.rb", True),
        ("lib/user_spec.rb", True),
        ("src/app/button.spec.ts", True),
        ("api/spec/openapi.yaml", False),
        ("api/api_spec.json", False),
        ("lib/inspector.rb", False),
        # Go and Jest.
        ("net/http/client_test.go", True),
        ("src/button.test.js", True),
        ("src/__tests__/button.js", True),
        # .NET: a test project is named after what it tests.
        ("Ferry.Tests/RouteTests.cs", True),
        ("src/Ferry.Core.UnitTests/Timetable.cs", True),
        ("Ferry.Core/Timetable.cs", False),
        ("vendor/jquery.Latest/jquery.js", False),
        # A library's testing/ package is its public API (numpy.testing.assert_allclose).
        ("numpy/testing/_private/utils.py", False),
        ("src/testing/testing.go", False),
        ("testing/test_assertion.py", True),  # pytest's own suite: named test_*
        # Prose is documentation wherever it lives.
        ("spec/README.md", False),
        ("Ferry.Tests/README.md", False),
    ],
)
def test_which_files_are_a_test_suites(source: str, of_tests: bool) -> None:
    assert is_test_path(source) is of_tests


def test_test_code_gives_way_unless_the_question_is_about_tests() -> None:
    """attrs' tests use every name its docs define, in more chunks than the docs have."""
    ordered = [
        chunk("t", "def test_frozen_raises", 0.0325, source="tests/test_make.py"),
        chunk("doc", "Examples > Immutability", 0.0300, source="docs/examples.md"),
        chunk("src", "def frozen", 0.0200, source="src/attr/_next_gen.py"),
    ]
    assert ids(choose_page("How do I stop people changing fields?", ordered, 3)) == [
        "doc",
        "t",
        "src",
    ]
    asked = "Which test checks that a frozen class raises?"
    assert ids(choose_page(asked, ordered, 3)) == ["t", "doc", "src"]


def test_a_chunk_whose_text_is_already_on_the_page_leaves_its_place_to_the_next() -> None:
    """nu23 (/usr/share/doc, held out): bash ships the same change log as CHANGES and as
    changelog, and the two copies of each entry filled the page twice over."""
    from dataclasses import replace

    first = replace(chunk("a", "bash-5.2", 0.05, "bash/CHANGES"), text="Fixed  a crash.\n")
    copy = replace(chunk("b", "bash-5.2", 0.04, "bash/changelog"), text="Fixed a crash.")
    other = [chunk(f"c{n}", "Other", 0.03 - n / 1000) for n in range(5)]
    page = choose_page("what was fixed?", [first, copy, *other], 3)
    assert ids(page) == ["a", "c0", "c1"]
    # Nor does an anchor bring the copy back.
    assert ids(choose_page("what was fixed?", [first, copy, *other], 3, {"b"})) == ids(page)


def test_the_same_words_under_another_heading_are_not_a_copy() -> None:
    """review18: the copy check compared texts only, so a release's entry worded as an
    older one's ("- Minor bug fixes." under 1.2.1 and 1.2.2) was dropped as a copy, even
    as the anchor of the release asked about: the page showed 1.2.1's entry alone. The
    heading says which release (or platform) the words belong to."""
    from dataclasses import replace

    old = replace(chunk("old", "Changelog > 1.2.1 > Fixed", 0.05), text="- Minor bug fixes.")
    new = replace(chunk("new", "Changelog > 1.2.2 > Fixed", 0.01), text="- Minor bug fixes.")
    other = [chunk(f"c{n}", "Other", 0.03 - n / 1000) for n in range(5)]
    asked = "What was fixed in 1.2.2?"
    assert "new" in ids(choose_page(asked, [old, *other, new], 3, {"new"}))
    linux = replace(chunk("linux", "Install > Linux", 0.05), text="Run make install.")
    mac = replace(chunk("mac", "Install > macOS", 0.04), text="Run make install.")
    assert ids(choose_page("How do I install it?", [linux, mac, *other], 3)) == [
        "linux",
        "mac",
        "c0",
    ]
