"""The gate's identifier check (pure): which question tokens must a chunk contain, and in
which spellings?"""

from __future__ import annotations

import pytest

from ragd.query.question import MAX_IDENTIFIERS, analyse, identifiers
from ragd.query.support import SupportScorer, identifier_share


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does error KSF-E417 mean?", ["ksf-e417"]),
        ("What was fixed in FareDeck v3.2.1?", ["v3.2.1"]),
        ("What does the --dry-run-manifest flag do?", ["--dry-run-manifest"]),
        ("What is boarding_cutoff_minutes set to?", ["boarding_cutoff_minutes"]),
        ("How many passengers were carried in 2021?", ["2021"]),
        ("Is R7-ESK the same as r7-esk?", ["r7-esk"]),
        # ordinary words and quantities are not identifiers: a passage may rephrase them
        ("What happens if I miss check-in?", []),
        ("Can I bring a 30 kg bag on the 2nd sailing?", []),
        ("Is the kiosk open 24-hour?", []),
        ("Who runs the man-overboard drills?", []),
    ],
)
def test_identifiers_are_codes_versions_flags_names_and_years(
    question: str, expected: list[str]
) -> None:
    assert identifiers(question) == expected


def test_identifier_must_occur_whole_and_verbatim() -> None:
    assert identifier_share(["v3.2.1"], ["## Release v3.2.1", "Fixes."]) == 1.0
    assert identifier_share(["v3.2.1"], ["Installed with v3.2.1."]) == 1.0  # full stop after it
    assert identifier_share(["v3.2"], ["Release v3.2.1"]) == 0.0  # a different version
    assert identifier_share(["--force"], ["use --forced"]) == 0.0
    assert identifier_share(["--force"], ["the force of the wind"]) == 0.0
    assert identifier_share(["ksf-e417"], ["| KSF-E417 | Card reader |"]) == 1.0
    assert identifier_share(["ksf-e999"], ["| KSF-E417 | Card reader |"]) == 0.0
    assert identifier_share(["2023", "nc-23-07"], ["safety-summary-2023.pdf"]) == 0.5
    assert identifier_share([], ["anything"]) == 1.0


def test_identifier_share_scales_support() -> None:
    assert SupportScorer.combine(0.6, 0.8) == pytest.approx(0.7)
    assert SupportScorer.combine(0.6, 0.8, 0.5) == pytest.approx(0.35)
    assert SupportScorer.combine(0.6, 0.8, 0.0) == 0.0


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What changed in firmware 2.8.1?", ["2.8.1"]),
        ("Is 3.3 still supported?", ["3.3"]),
        ("Did 1.10 fix it?", ["1.10"]),
    ],
)
def test_bare_dotted_versions_are_identifiers(question: str, expected: list[str]) -> None:
    assert identifiers(question) == expected


def test_bare_version_must_occur_whole() -> None:
    assert identifier_share(["2.8.1"], ["Firmware 2.8.1 fixes the clock."]) == 1.0
    assert identifier_share(["2.8.1"], ["## Release v2.8.1"]) == 1.0  # a "v" may lead
    assert identifier_share(["2.8.1"], ["Firmware 2.8.0 and 2.8.2 are out."]) == 0.0
    assert identifier_share(["3.3"], ["Release 3.3.1"]) == 0.0  # a longer version
    assert identifier_share(["3.3"], ["Release 13.3"]) == 0.0
    assert identifier_share(["3.3"], ["since 3.3."]) == 1.0


def test_identifier_in_the_documents_own_spelling() -> None:
    # A name and its number, joined as the documents join them ("GPL-3" is the licence's
    # file name, "version 3" its text); a different name or number is still different.
    assert identifier_share(["gplv3"], ["common-licenses/GPL-3"]) == 1.0
    assert identifier_share(["gplv2"], ["the GPL version 2 or later"]) == 1.0
    assert identifier_share(["utf8"], ["encoded as UTF-8"]) == 1.0
    assert identifier_share(["gplv3"], ["common-licenses/LGPL-3"]) == 0.0
    assert identifier_share(["gplv3"], ["GPL-3.1"]) == 0.0
    assert identifier_share(["ed448"], ["Ed25519 keys"]) == 0.0
    assert identifier_share(["s3"], ["the user's 3 files"]) == 0.0  # one letter: verbatim
    # A release and its ".0" are the same release; "v" or "version" may lead.
    assert identifier_share(["3.3"], ["## Release v3.3.0"]) == 1.0
    assert identifier_share(["v3.2.1"], ["version 3.2.1 fixes"]) == 1.0
    assert identifier_share(["4.0"], ["version 4"]) == 0.0
    # snake_case of plain words: the words in order, in prose or inside a longer name.
    assert identifier_share(["snake_case"], ['data_key="snake_case_email"']) == 1.0
    assert identifier_share(["boarding_cutoff_minutes"], ["boarding cutoff minutes"]) == 1.0
    assert identifier_share(["snake_case"], ["case of a snake"]) == 0.0


def test_a_year_in_a_date_is_an_example_not_an_identifier() -> None:
    assert identifiers("Can the parser read '01/02/2024' as 1 February?") == []
    assert identifiers("What changed on 2024-01-02?") == []
    assert identifiers("What was promised after the 2023 review?") == ["2023"]


class Vocabulary:
    """A stand-in for the lexical index: words as terms, document frequencies from a set."""

    def __init__(self, words: set[str]) -> None:
        self.words = words

    def analyze(self, text: str) -> list[str]:
        return [w.lower() for w in text.replace(".", " ").split()]

    def doc_freqs(self, terms: object) -> tuple[int, dict[str, int]]:
        return 100, {t: int(t in self.words) for t in terms}  # type: ignore[attr-defined]


def test_a_name_spelled_with_its_number_is_not_unseen_vocabulary() -> None:
    licences = Vocabulary({"gpl", "3", "drm"})
    assert analyse("GPLv3 and DRM", licences).unseen == 0.0  # the index has "GPL" and "3"
    assert analyse("GPLv4 and DRM", licences).unseen > 0.5  # no "4": unseen
    assert analyse("Ed448 and DRM", Vocabulary({"drm"})).unseen > 0.5


def test_a_constant_in_capitals_is_looked_for_as_written() -> None:
    """ "PINT_REGISTRY environment variable" was matched by the prose "Pint registry …"
    (separators between a name's parts are optional), so a question about a variable the
    documents never name passed the gate at medium confidence."""
    wanted = identifiers("Which PINT_REGISTRY environment variable setting does it read?")
    assert wanted == ["PINT_REGISTRY"]
    assert identifier_share(wanted, ["Pint registry functionality is divided."]) == 0.0
    assert identifier_share(wanted, ["Set PINT_REGISTRY=/etc/units first."]) == 1.0
    assert identifier_share(wanted, ["export pint_registry"]) == 1.0
    assert identifier_share(wanted, ["PINT_REGISTRY_PATH holds it"]) == 0.0
    # A snake_case name in lower case still matches its prose spelling.
    assert identifier_share(["snake_case"], ["use snake case keys"]) == 1.0


def test_a_number_in_a_quoted_example_is_not_demanded() -> None:
    """ "turn a string like "2.5 kilograms" into a quantity": the documents' example uses
    2.54, and demanding "2.5" zeroed the support of the right passage (a false refusal)."""
    assert identifiers('How do I turn a string like "2.5 kilograms" into a quantity?') == []
    assert identifiers("How do I turn a string like \u201c2.5 kg\u201d into one?") == []
    # Unquoted, or quoted alone, a number is still an identifier the passage must hold.
    assert identifiers("What changed in 2.5 kilograms?") == ["2.5"]
    assert identifiers('What changed in "2.5"?') == ["2.5"]
    assert identifiers('Is "MY_VAR 2.5" read?') == ["MY_VAR"]


def test_a_number_compared_or_given_as_an_example_is_not_demanded() -> None:
    """packaging (a folder nobody fitted): "evaluate a marker like python_version < "3.8"
    against another environment" retrieved `Marker.evaluate` first in both retrievers
    (cosine 0.79), but no passage writes "3.8", so support was halved and the question
    refused. A number compared in an expression, or introduced as an example, is the
    user's value, not the thing asked about."""
    marker = 'How do I evaluate a marker like python_version < "3.8" elsewhere?'
    assert identifiers(marker) == ["python_version"]
    assert identifiers("How do I get the extras of requests[security]>=2.8?") == []
    assert identifiers("Does 2.0.1 satisfy a range like >=1.0,<3?") == ["2.0.1"]
    assert identifiers("Which option numbers headings like 1.1, 1.2 or 1.3?") == []
    assert identifiers("How do I sort versions such as 1.9 and 1.10?") == []
    assert identifiers("Parse a number, e.g. 1.099 in German?") == []
    # A number the question names as its subject is still demanded, wherever it stands.
    assert identifiers("2.5 changes?") == ["2.5"]
    assert identifiers("Which feature was released as 2.0?") == ["2.0"]
    assert identifiers("What changed in 2.5 and 2.6?") == ["2.5", "2.6"]
    assert identifiers("Like 1.1, what changed in 1.2?") == ["1.2"]


def test_two_versions_put_in_order_are_an_example_of_the_ordering() -> None:
    """ "so that 1.10 counts as newer than 1.9" (packaging) and "so v1.10 comes after v1.9"
    (git's tag sorting) were refused: neither folder writes those two versions, and each
    zeroed the support of the passage on version sorting."""
    assert identifiers("Compare strings so that 1.10 counts as newer than 1.9?") == []
    assert identifiers("List tags so v1.10 comes after v1.9?") == []
    assert identifiers("Is 3.0 newer than 2.9?") == []
    # Two releases listed, or a version beside a name, are still what is asked about.
    assert identifiers("What changed after 2.0 and before 3.0?") == ["2.0", "3.0"]
    assert identifiers("Why does v2 break after upgrading from 1.9?") == ["v2", "1.9"]
    assert identifiers("Does KSF-E417 come after 2.0?") == ["ksf-e417", "2.0"]


def test_a_question_of_hundreds_of_identifiers_demands_only_the_first_few() -> None:
    """Every identifier is a pattern run over every candidate's text (40 of them): a
    4,096-character question of 841 codes ("a0 a1 a2 …") cost 1.1–1.8 s of the search
    pool per search, 10–18× an ordinary one, and a pair of them held both workers. No
    question of the 972 in bench names more than 3; the first MAX_IDENTIFIERS are kept,
    in order."""
    question = " ".join(f"a{n}" for n in range(1400))[:4096]
    found = identifiers(question)
    assert found == [f"a{n}" for n in range(MAX_IDENTIFIERS)]
    assert identifier_share(found, ["a0 a1 a2 a3"]) == 4 / MAX_IDENTIFIERS


def test_a_release_named_beside_an_exclamation_or_a_comparison_is_still_demanded() -> None:
    """review17: "!" counted as a comparison operator, so the version after an exclamation
    was taken for an example value; any "than"/"after"/"before" between two versions made
    both an example of an ordering, so "Is 3.0 faster than 2.9?" demanded neither release,
    and "say" dropped the version a question asks what the docs say about. Dropped, a
    version no passage holds no longer refuses (gate: identifiers) and no longer anchors
    its release's section (releases.asked)."""
    assert identifiers("Help! 2.2.0 crashes on start, what changed?") == ["2.2.0"]
    assert identifiers("Is 3.0 faster than 2.9?") == ["3.0", "2.9"]
    assert identifiers("Which APIs deprecated in 2.0 were removed after 3.0?") == ["2.0", "3.0"]
    assert identifiers("What was deprecated in 1.4 before 2.0?") == ["1.4", "2.0"]
    assert identifiers("What did the docs say 2.0 removed?") == ["2.0"]
    # The examples the rules were written for still are examples.
    assert identifiers("Does 2.0.1 satisfy a range like !=2.0.0?") == ["2.0.1"]
    assert identifiers("What changed in, say, 2.0?") == []
    assert identifiers("Is v2.2 sorted after v2.10?") == []
    # "Example 2.1" names an example of the documents; "for example 1.9" gives one.
    assert identifiers("What does Example 2.1 show?") == ["2.1"]
    assert identifiers("Sort versions, for example 1.9 and 1.10?") == []
    assert identifiers("Parse a value (example: 1.099)?") == []
    # Typographic quotes around a compared number are quotes too (‘3.8’, «3.8»).
    assert identifiers("Evaluate python_version < \u20183.8\u2019 elsewhere?") == ["python_version"]
    assert identifiers("Evaluate python_version < \u00ab3.8\u00bb elsewhere?") == ["python_version"]


def test_a_release_compared_with_like_after_a_verb_is_still_demanded() -> None:
    """review17 noticed: "like" after a verb compares two releases rather than giving an
    example, but "Does 2.0 behave like 1.9?" demanded only 2.0, so a passage on 2.0 alone
    kept full identifier support and 1.9's section was never anchored."""
    assert identifiers("Does 2.0 behave like 1.9?") == ["2.0", "1.9"]
    assert identifiers("Does it still work like 1.9 did?") == ["1.9"]
    # "like" after a noun still gives the user's own example.
    assert identifiers("Can I pin a version like 2.0.1?") == []
    assert identifiers("Will a wheel that looks like 3.11 install?") == []
    assert identifiers("Does 2.0.1 satisfy a range like >=1.0,<3?") == ["2.0.1"]


def test_a_name_given_as_an_example_is_not_demanded() -> None:
    """nu27 (pytest's docs, a folder nobody fitted): "My parametrized tests show up with
    ugly names like test_x[0-1]; how do I give each case a readable name?" demanded
    `test_x`, a name the user made up, so support fell to 0 and the question was refused
    though the test-ID sections ranked 4th and 5th. A name after "like", "such as" or
    "e.g." is the user's example, as a number there already was."""
    question = "My parametrized tests show up with ugly names like test_x[0-1]; how do I fix it?"
    assert identifiers(question) == []
    assert identifiers("Can I create a Locale from a string such as en_US?") == []
    assert identifiers("A custom marker (e.g. my_slow_mark) is ignored?") == []
    # Named otherwise, or compared after a verb, it is still asked about.
    assert identifiers("Why is test_x[0-1] shown twice?") == ["test_x"]
    assert identifiers("Does from_string behave like from_dict?") == ["from_string", "from_dict"]
    assert identifiers('What does the error "KSF-E417" mean?') == ["ksf-e417"]
    # The name an example compares is the documents' own: `python_version` is a marker's.
    assert identifiers('Evaluate a marker like python_version < "3.8"?') == ["python_version"]


def test_a_question_written_in_capitals_says_nothing_by_an_options_case() -> None:
    """review18: a one-letter option keeps its case (`ls -R` is not `ls -r`), but in
    "WHAT DOES LS -V DO?" every letter is a capital, the option's too (caps lock): it
    was sought as `-V` only, and a tool's `-v` lost its exact-token share."""
    assert analyse("WHAT DOES LS -V DO?").exact_tokens == ("-v",)
    assert analyse("What does ls -R do?").exact_tokens == ("-R",)
    assert analyse("tail -F?").exact_tokens == ("-F",)
    assert analyse("-F?").exact_tokens == ("-F",)  # no other word: the case is the user's
