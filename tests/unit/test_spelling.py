"""A misspelt word of a question is read as the indexed word it was meant to be, and only
then: the edits fingers make, never a real word's neighbour in a short stem."""

from __future__ import annotations

from collections.abc import Iterable

from ragd.query.spelling import MAX_CHARS, MAX_TERMS, near_spellings, respell


def counts(index: dict[str, int]):  # type: ignore[no-untyped-def]
    asked: list[set[str]] = []

    def doc_freqs(terms: Iterable[str]) -> tuple[int, dict[str, int]]:
        wanted = set(terms)
        asked.append(wanted)
        return 100, {t: index.get(t, 0) for t in wanted}

    return doc_freqs, asked


def test_swapped_letters_and_a_letter_missing_from_a_long_word_are_read_as_meant() -> None:
    doc_freqs, asked = counts({"format": 12, "languag": 7, "number": 9, "timedelta": 3})
    typos = respell(["fromat", "langaug", "nubmer", "timedlta", "xliff"], doc_freqs)
    assert typos == {
        "fromat": ("format", 12),  # two neighbours swapped
        "langaug": ("languag", 7),  # the stem of "langauge"
        "nubmer": ("number", 9),
        "timedlta": ("timedelta", 3),  # a letter left out of a long word
    }
    assert len(asked) == 1  # every candidate counted in one read of the index


def test_short_words_are_not_read_as_their_real_word_neighbours() -> None:
    doc_freqs, _ = counts({"share": 40, "taken": 5, "format": 3, "could": 9})
    # "shard" is a word the documents lack, not a typo of "share": an in-domain question
    # about sharding must stay about sharding, so the gate can refuse it.
    assert respell(["shard", "token", "cloud"], doc_freqs) == {}
    # Nor a long word through a changed or an extra letter: these are the eval questions'
    # hard negatives and answerable questions, misread when such slips were read.
    real = {"project": 30, "protect": 4, "system": 50, "usernam": 8}
    doc_freqs, _ = counts(real)
    assert respell(["protect", "project", "systemd", "useroam"], doc_freqs) == {}
    # The first letter is kept: "tformat" is not read as "format".
    assert "format" not in near_spellings("tformat")
    assert near_spellings("usr") == set()  # too short for any edit
    assert near_spellings("ksf-e417") == set()  # a code, not a word
    assert near_spellings("x" * 30) == set()  # a hash or a run, not a word


def test_the_most_held_spelling_wins_and_ties_do_not_depend_on_order() -> None:
    doc_freqs, _ = counts({"configure": 2, "configura": 9})
    assert respell(["configur"], doc_freqs) == {"configur": ("configura", 9)}
    doc_freqs, _ = counts({"abcdefgh": 4, "abcdefgi": 4})
    assert respell(["abcdefg"], doc_freqs) == {"abcdefg": ("abcdefgh", 4)}


def test_nothing_absent_costs_no_lookup() -> None:
    doc_freqs, asked = counts({})
    assert respell([], doc_freqs) == {}
    assert respell(["cat"], doc_freqs) == {}
    assert asked == []


def test_a_pasted_page_of_unknown_words_costs_a_bounded_lookup() -> None:
    doc_freqs, asked = counts({"format": 5})
    gibberish = [f"qzxw{chr(97 + i % 26)}{chr(97 + i // 26)}vbnm" for i in range(500)]
    assert respell([*gibberish, "fromat"], doc_freqs) == {}  # past MAX_TERMS: not looked at
    assert len(asked) == 1 and len(asked[0]) <= MAX_TERMS * 27 * MAX_CHARS
    assert respell(["fromat", *gibberish], doc_freqs) == {"fromat": ("format", 5)}


def test_a_question_with_typos_is_analysed_as_spelled_right_on_a_real_index(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ragd.index.lexical import LexicalDoc, TantivyIndex
    from ragd.query.question import analyse

    index = TantivyIndex(tmp_path / "lexical")
    text = "Use format_timedelta to format a timedelta in the user's language and locale."
    other = "Numbers are parsed with parse_decimal; currencies with format_currency."
    index.add(
        LexicalDoc(f"c{i}", "dates.rst", "Dates", body, root="/docs")
        for i, body in enumerate((text, other))
    )
    index.commit()
    typed = analyse("How do I fromat a timedelta in the user's langauge?", index)
    right = analyse("How do I format a timedelta in the user's language?", index)
    assert typed.unseen == right.unseen == 0.0
    assert typed.weights == right.weights  # the same terms, weighed the same
    assert typed.words[0] == "fromat"  # the words stay as asked (quotes, names)
    # A word the documents lack, near no indexed word, stays unseen.
    assert analyse("How do I export to XLIFF?", index).unseen > 0.5
    index.close()
