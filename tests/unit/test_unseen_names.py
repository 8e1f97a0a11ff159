"""A question naming something the index never holds ("completion script for Nushell" on
cobra's documentation, "load the schema from a YAML file" on marshmallow's) is labelled
`low` and the keyless answer says which name no document mentions. Of the 2,182 questions
kept by `make eval`, 124 hard negatives and 124 off-topic questions name such a thing, and
10 answerable ones (docs/calibration.md)."""

from __future__ import annotations

from collections.abc import Iterable

from ragd.index.lexical import analyze
from ragd.query import gate_model
from ragd.query.extractive import UNSURE_NOTE, unsure_lines
from ragd.query.question import MAX_NAME_CHARS, MAX_NAMES, analyse, names_written


class Index:
    """A stand-in for the lexical index: the real analyser, document frequencies from the
    terms of the given text."""

    def __init__(self, text: str) -> None:
        self.terms = set(analyze(text))

    def analyze(self, text: str) -> list[str]:
        return analyze(text)

    def doc_freqs(self, terms: Iterable[str]) -> tuple[int, dict[str, int]]:
        return 100, {t: int(t in self.terms) for t in terms}


COBRA = Index("cobra generates shell completion scripts for bash, zsh, fish and PowerShell")


def test_a_name_no_chunk_holds_is_unseen_and_one_it_holds_is_not() -> None:
    asked = analyse("How do I generate a completion script for Nushell?", COBRA)
    assert asked.unseen_names == ("Nushell",)
    held = analyse("How do I generate a completion script for PowerShell?", COBRA)
    assert held.unseen_names == ()


def test_an_abbreviation_no_chunk_holds_is_unseen_and_one_it_holds_is_not() -> None:
    """newuser50: "Can I read the settings from YAML?" on a folder that never mentions YAML
    was labelled `medium`: only a capital followed by lower-case letters made a name."""
    asked = analyse("How do I get completions for a YAML config in PowerShell?", COBRA)
    assert asked.unseen_names == ("YAML",)
    held = Index("cobra reads its config from YAML or TOML")
    assert analyse("How do I read a YAML config?", held).unseen_names == ()


def test_an_abbreviation_is_two_capitals_or_more_in_a_script_with_case() -> None:
    assert names_written("Is SHA256 there, or A4, or I, on the GPU?") == ["SHA256", "GPU"]
    assert names_written("Does it speak สวัสดีครับ or 中文 here?") == []


def test_a_sentences_first_word_is_not_a_name() -> None:
    assert names_written("Why? Because Nushell. And HTML, or WiFi") == ["Nushell", "HTML", "WiFi"]
    assert names_written("Nushell completion: Does it work") == []
    assert names_written('Ask "Nushell" then (Elvish) too') == ["Nushell", "Elvish"]
    assert names_written('"Nushell is it?" (Elvish too)') == []


def test_names_are_bounded() -> None:
    """A run past MAX_NAME_CHARS is no name (it filled the warning and the prompt), and at
    most MAX_NAMES are looked up."""
    assert names_written("x " + "A" * 100_000 + "b") == []
    assert names_written("x " + "A" * (MAX_NAME_CHARS - 1) + "b") == [
        "A" * (MAX_NAME_CHARS - 1) + "b"
    ]
    many = " ".join(f"x y z Name{i}" for i in range(100))
    assert len(names_written(many)) == MAX_NAMES


def test_a_question_in_title_case_names_nothing_and_any_script_has_capitals() -> None:
    """review48: "How To Enable Verbose Logging For Completions" named "Enable" and
    "Verbose", so its answer was `low` where the same words in lower case were not; and
    "Kraków" was read as "Krak"."""
    assert names_written("How To Enable Verbose Logging For Completions") == []
    assert names_written("How To Enable YAML And JSON Output For Completions") == []
    assert names_written("HOW DO I ENABLE VERBOSE YAML OUTPUT") == []
    # an abbreviation is left out of the share of capitals, not of the count of words:
    # four words In Title Case, one of them in capitals, are still Title Case (review51)
    assert names_written("What Is The GPU Driver?") == []
    assert names_written("Where Is The YAML Config?") == []
    assert names_written("Does Nushell support WiFi?") == ["Nushell", "WiFi"]
    assert names_written("Which trains leave for Kraków?") == ["Kraków"]
    assert names_written("Wie weit ist es nach Ödland?") == ["Ödland"]


def test_without_an_index_nothing_is_unseen() -> None:
    assert analyse("How do I generate a completion script for Nushell?").unseen_names == ()


def test_an_unseen_name_labels_the_answer_low_whatever_its_chance() -> None:
    assert gate_model.confidence(0.99, 1.0, 1.0, 1.0, 0.5, 0.2) == "high"
    assert gate_model.confidence(0.99, 1.0, 1.0, 1.0, 0.5, 0.2, names_unseen=True) == "low"
    assert gate_model.names_unseen({"names_unseen": 1.0})
    assert not gate_model.names_unseen({"support": 0.7})  # measured before it was recorded


def test_the_warning_names_what_no_document_mentions() -> None:
    asked = analyse("Does Nushell work, like Elvish?", COBRA)
    assert unsure_lines(asked) == [
        "No indexed document mentions “Nushell”, “Elvish”.",
        UNSURE_NOTE,
        "",
    ]
    assert unsure_lines(analyse("How do I write a fish completion?", COBRA)) == [UNSURE_NOTE, ""]
