"""BM25 finds a definition by the words of its name. The code reader heads each definition
by its name ("func (c *Command) MarkFlagsRequiredTogether"), and the analyser keeps a
camelCase name as one term, so a question in words ("require two flags together") met
only the body's words: on cobra's Go source (held out, nu46) "How does the program suggest
the right subcommand when the user makes a typo?" ranked `SuggestionsFor` 10th and was
answered with the Command struct's fields; with the heading's words indexed, 2nd and
quoted."""

from __future__ import annotations

from pathlib import Path

from ragd.index.lexical import LexicalDoc, TantivyIndex, name_words

# Two doc comments that say the same in other words: only the names tell them apart.
FLAG_GROUPS = {
    "MarkFlagsRequiredTogether": "marks the given flags with annotations so that Cobra "
    "errors if the command is invoked with a subset (but not all) of the given flags.",
    "MarkFlagsMutuallyExclusive": "marks the given flags with annotations so that Cobra "
    "errors if the command is invoked with more than one flag from the given set of flags.",
}


def test_a_camel_case_name_is_also_its_words() -> None:
    assert name_words("func (c *Command) MarkFlagsRequiredTogether") == [
        "Mark Flags Required Together"
    ]
    assert name_words("HTTPServer > changeLog > changeLog") == ["HTTP Server", "change Log"]
    assert name_words("Plain words, snake_case and UPPER") == []


def _definition(name: str) -> LexicalDoc:
    """The chunk the code reader makes of a Go method and its doc comment."""
    text = f"// {name} {FLAG_GROUPS[name]}"
    return LexicalDoc(name, "flag_groups.go", f"func (c *Command) {name}", text)


def _index(tmp_path: Path) -> TantivyIndex:
    index = TantivyIndex(tmp_path / "lexical")
    index.add(map(_definition, FLAG_GROUPS))
    index.commit()
    return index


def test_a_question_in_words_finds_the_definition_its_name_spells(tmp_path: Path) -> None:
    index = _index(tmp_path)
    try:
        for question, wanted in (
            ("How do I require that two flags are always given together?", "RequiredTogether"),
            ("How can I make two flags mutually exclusive?", "MutuallyExclusive"),
        ):
            hits = index.search(question, 2)
            assert hits[0][0] == f"MarkFlags{wanted}"
            assert hits[0][1] > hits[1][1]
    finally:
        index.close()


def test_the_name_spelled_whole_still_finds_it(tmp_path: Path) -> None:
    index = _index(tmp_path)
    try:
        hits = index.search("MarkFlagsMutuallyExclusive", 2)
        assert [chunk for chunk, _score in hits] == ["MarkFlagsMutuallyExclusive"]
    finally:
        index.close()
