"""Which retrieved files a question names by their file or folder name (query/naming.py)."""

from __future__ import annotations

from ragd.query.naming import named_sources, question_terms
from ragd.query.question import analyse

LICENCES = [
    "Apache-2.0.txt",
    "GPL-2.txt",
    "GPL-3.txt",
    "LGPL-2.txt",
    "LGPL-2.1.txt",
    "LGPL-3.txt",
    "users-and-groups.html",
]


def named(question: str, sources: list[str] = LICENCES) -> list[str]:
    return sorted(named_sources(question_terms(analyse(question).words), sources))


def test_a_name_with_its_version_names_that_file() -> None:
    assert named("Under Apache 2.0, what happens to my patent licence?") == ["Apache-2.0.txt"]
    assert named("What does 'or any later version' mean for GPL version 2?") == ["GPL-2.txt"]
    # The version glued to the name, with or without a "v".
    assert named("What is Installation Information in GPLv3?") == ["GPL-3.txt"]


def test_the_most_specific_file_wins() -> None:
    # "LGPL 2.1" names LGPL-2.1 (three words) over LGPL-2 (two, also all in the question).
    assert named("Can I link a proprietary program against an LGPL 2.1 library?") == [
        "LGPL-2.1.txt"
    ]


def test_stop_words_in_a_file_name_are_not_required() -> None:
    assert named("Who wrote the Users and Groups document?") == ["users-and-groups.html"]


def test_a_folder_names_everything_under_it() -> None:
    sources = ["flask/docs/changes.rst", "click/docs/changes.rst", "flask/README.md"]
    assert named("Which Flask release dropped Python 3.8?", sources) == [
        "flask/README.md",
        "flask/docs/changes.rst",
    ]


def test_a_question_naming_no_file_names_none() -> None:
    assert named("What must I do when I redistribute the program?") == []
    # A bare number matches no file on its own.
    assert named("What does section 2 say?") == []


def test_each_named_source_comes_with_every_word_that_names_it() -> None:
    # review65: "docs" and "changelog" both name docs/changelog.md, as specifically; a file
    # named only by its folder's word is named by that word alone.
    terms = question_terms(analyse("What does the changelog in the docs say about 3.0?").words)
    found = named_sources(terms, ["docs/changelog.md", "docs/index.md", "CHANGES.md"])
    assert found == {
        "docs/changelog.md": frozenset({"doc", "changelog"}),
        "docs/index.md": frozenset({"doc"}),
    }
