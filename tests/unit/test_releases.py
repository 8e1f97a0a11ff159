from __future__ import annotations

from ragd.query import releases
from ragd.query.question import identifiers
from ragd.query.releases import another, named, same


def test_versions_are_read_without_their_v() -> None:
    assert named("What was fixed in pydantic 2.14.3?") == {"2.14.3"}
    assert named("Changelog > Release v3.3.0 (2026-05-14) > Fixes") == {"3.3.0"}
    assert named("Under Apache 2.0, what must I keep?") == {"2.0"}
    assert named("How do I build zstd with CMake?") == set()


def test_a_version_of_python_is_no_release() -> None:
    """dateutil and requests (eval, nu16): "Which release dropped support for Python 2.7?"
    read 2.7 as the release asked, so requests' own 2.7.0 section was favoured and every
    other release's lines put last; "Python 2.5" anchored dateutil 2.5.0's section."""
    assert named("Which release dropped support for Python 2.7?") == set()
    assert named("Does requests 2.32 still run on py3.7 or CPython 3.8?") == {"2.32"}
    assert named("Is PyPy 7.3 supported by numpy 1.26?") == {"1.26"}
    question = "In which release did requests stop supporting Python 2.7?"
    assert releases.asked(identifiers(question), question) == set()
    question = "What changed in 2.2.0 for Python 3.12?"
    assert releases.asked(identifiers(question), question) == {"2.2.0"}


def test_a_short_version_names_its_release_line() -> None:
    assert same("3.3", "3.3.0") and same("3.3.0", "3.3") and same("3.3", "3.3.1")
    assert not same("3.3", "3.30") and not same("2.14.3", "2.14.2")


def test_a_heading_naming_another_release_is_another_release() -> None:
    asked = {"2.14.3"}
    assert another(asked, "Pydantic > v2.14.2 (2026-10-29) > What's Changed > Fixes")
    assert not another(asked, "Pydantic > v2.14.3 (2026-11-04) > What's Changed > Fixes")
    assert not another(asked, "Pydantic > Installation")  # names no release at all
    assert not another({"3.3"}, "FareDeck Release Notes > Release v3.3.0 > New features")


def test_the_release_a_question_asks_about_is_a_demanded_version() -> None:
    assert releases.asked(identifiers("What changed in urllib3 2.2.0?")) == {"2.2.0"}
    assert releases.asked(identifiers("What is new in v3.3?")) == {"3.3"}
    # An example value is no release asked about (question.identifiers drops it).
    assert releases.asked(identifiers("Number headings like 1.1, 1.2?")) == set()
    assert releases.asked(identifiers("Is python_version < '3.8' read?")) == set()


def test_the_page_anchor_is_the_first_section_headed_by_the_asked_release() -> None:
    """urllib3 (a folder nobody fitted): "What changed in urllib3 2.2.0?" had its own
    change-log section 18th, behind the 2.0 migration guide and 2.0.0's entry."""
    fused_order = [
        ("guide", "v2.0 Migration Guide > What are the important changes?"),
        ("two", "2.0.0 (2023-04-26) > Changed"),
        ("asked", "2.2.0 (2024-01-30)"),
        ("asked-later", "2.2.0 (2024-01-30) > Fixed"),
    ]
    assert releases.section_of({"2.2.0"}, fused_order) == {"asked"}
    assert releases.section_of({"2.2"}, fused_order) == {"asked"}  # a release line
    assert releases.section_of({"2.3"}, fused_order) == set()
    assert releases.section_of(set(), fused_order) == set()
    # A numbered section ("2.7.9. Limiting download bandwidth") is no release.
    numbered = [("s", "Chapter 2 > 2.7.9. Limiting download bandwidth")]
    assert releases.section_of({"2.7.9"}, numbered) == set()


def test_each_asked_release_anchors_its_own_section() -> None:
    """review17 noticed: a question naming two releases anchored only the first section
    headed by either, so "What changed between 2.0.0 and 2.2.0?" could show one side."""
    fused_order = [
        ("two", "2.0.0 (2023-04-26) > Changed"),
        ("two-later", "2.0.0 (2023-04-26) > Fixed"),
        ("asked", "2.2.0 (2024-01-30)"),
    ]
    assert releases.section_of({"2.0.0", "2.2.0"}, fused_order) == {"two", "asked"}
    assert releases.section_of({"2.0.0", "9.9"}, fused_order) == {"two"}
    # At most MAX_ANCHORED releases: a question listing many cannot fill the page.
    many = [(f"r{n}", f"{n}.0 > Changed") for n in range(1, 6)]
    asked = {f"{n}.0" for n in range(1, 6)}
    assert len(releases.section_of(asked, many)) == releases.MAX_ANCHORED


def test_a_numbered_section_is_no_other_release_unless_titled_as_one() -> None:
    """review17: `another` read "4.2 Proxy settings" as release 4.2 while `headed_by`
    read it as a section number; once the asked release's own section is on the page,
    another release's units go last (OUT_OF_RELEASE), and so did the manual's numbered
    sections. Both now read a heading's levels the same way (release_levels), and a
    number titled as a release ("2.2.0 Release Notes") names one for both."""
    assert not another({"3.1"}, "Manual > 4.2 Proxy settings")
    assert not releases.headed_by({"4.2"}, "Manual > 4.2 Proxy settings")
    assert another({"2.2.0"}, "Changelog > 2.1.0 Release Notes")
    assert releases.headed_by({"2.2.0"}, "Changelog > 2.2.0 Release Notes")
    assert releases.headed_by({"2.2"}, "Changelog > 2.2.0 (2024-01-30) > Fixed")


def test_a_release_with_no_section_leaves_its_anchor_to_the_next_asked() -> None:
    """review18: the first MAX_ANCHORED asked releases (in sorted order) were tried and the
    rest never, so "What changed in 1.0, 2.0 and 3.0?" over a log starting at 2.0 anchored
    2.0 alone, though 3.0's section was there too."""
    fused_order = [("two", "2.0 > Changed"), ("three", "3.0 > Changed")]
    assert releases.section_of({"1.0", "2.0", "3.0"}, fused_order) == {"two", "three"}


def test_a_numbered_section_titled_version_names_that_release() -> None:
    """nu14d (Debian Policy's upgrading checklist): "10.4. Version 4.6.0" was read as a
    numbered section, so "What changed in policy version 4.6.0 …?" found no section of
    that release and its entries ("9.1.1: No package is allowed to install files in
    /usr/lib64/ …") ranked under general text about Standards-Version."""
    checklist = "10. Upgrading checklist > 10.4. Version 4.6.0"
    assert releases.headed_by({"4.6.0"}, checklist)
    assert another({"4.6.0"}, "10. Upgrading checklist > 10.59. Version 3.0.0")
    assert not another({"4.6.0"}, checklist)
    # The section number is not the release, and a title naming none names nothing.
    assert not releases.headed_by({"10.4"}, checklist)
    assert not another({"3.1"}, "Manual > 2. Version numbering")


def test_an_interpreters_version_is_no_release_of_the_documents() -> None:
    """requests' "In which release did requests stop supporting Python 2.7?" ranked the
    change log's "2.7.0 (2015-05-03)" section first and put 2.28.0's "Requests has
    officially dropped support for Python 2.7." after every other unit."""
    question = "In which release did requests stop supporting Python 2.7?"
    assert named(question) == set()
    assert releases.asked(identifiers(question), question) == set()
    assert named("Does it run on PyPy 3.9 and CPython 3.12?") == set()
    assert named("What changed in requests 2.32.0 for Python 3.8?") == {"2.32.0"}
    # Python's own documents head their releases with its name: there it names one.
    assert named(question, ["What's New In Python 2.7 > Other changes"]) == {"2.7"}
    # … but a project named after it is not the interpreter.
    assert named(question, ["Python-Markdown 2.7 Release Notes"]) == set()
    assert releases.asked(identifiers(question), question, ["What's New In Python 2.7"]) == {"2.7"}
