"""The gate's identifier check (pure): which question tokens must a chunk contain verbatim?"""

from __future__ import annotations

import pytest

from ragd.query.question import identifiers
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
