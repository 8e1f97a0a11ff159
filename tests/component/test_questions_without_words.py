"""A question with no word to look for — only emoji, symbols, punctuation or stop words —
is refused by the gate, whatever passages its vector lands near.

MiniLM reads every emoji and most symbols as the one unknown word piece, so such a
question's vector is the same whatever was typed, and it lies close to any passage the
encoder also reads as unknown pieces: a line of emoji in a README, Japanese or Chinese
text. Nothing in the question can be covered, named or unseen, so the gate's signals
read vacuously well (unseen 0, identifiers all held), and that closeness rescued it from
the floor: on /usr/share/doc/w3m (its Japanese manuals) `rag search "😀 😃 😄"` was a
"pass" and `rag ask "🦓"` quoted seven Japanese lines.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from ragd.harness.localindex import LocalIndex
from ragd.query.gate import OUT_OF_REACH
from ragd.serve.views import refusal_note
from tests.support.daemon import REPO

# A changelog whose entries open with emoji, as many projects write them, and a note in
# Japanese (w3m's own words from its ja/README.tab): passages the encoder reads largely as
# unknown pieces, beside an ordinary handbook.
CHANGELOG = """# Changelog

## 2.1.0

🎉🎉🎉

- ✨ tide tables for every pier
- 🐛 the timetable no longer skips the last sailing
"""
JAPANESE = """# w3m をタブブラウザ化

キー操作は定義していませんので、以下の関数を適当なキーに設定して お使い下さい。

特に問題なし :-)
"""
# A line of Thai: MiniLM's vocabulary has no Thai piece, so the encoder reads any Thai
# question as one unknown piece.
THAI_NOTE = "# ป้ายประกาศ\n\nสวัสดีครับ ยินดีต้อนรับสู่ท่าเรือ\n"
WORDLESS = ["😀 😃 😄", "🦓", "∑∫√", "?!?! ...", "what is it?"]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, embedder) -> Iterator[LocalIndex]:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("wordless")
    folder = tmp / "docs"
    folder.mkdir()
    shutil.copy(REPO / "sample_corpus" / "passenger-handbook.md", folder)
    (folder / "CHANGELOG.md").write_text(CHANGELOG, encoding="utf-8")
    (folder / "README.tab.md").write_text(JAPANESE, encoding="utf-8")
    (folder / "pier-sign.md").write_text(THAI_NOTE, encoding="utf-8")
    local = LocalIndex(folder, tmp / "data", embedder)
    yield local
    local.close()


@pytest.mark.parametrize("question", WORDLESS)
def test_a_question_with_no_word_to_look_for_is_refused(index: LocalIndex, question: str) -> None:
    result = index.retriever.search(question, top_k=5)
    gate = result.gate
    assert not gate.passed, (question, gate.verdict, gate.signals)
    assert gate.verdict == "refuse"
    assert "no word" in gate.reason
    # The note `rag ask` prints names that, not a floor or a chance that had no say.
    note = refusal_note(gate)
    assert note == f"refused locally — the question {gate.reason}, so no model call was made."


def test_questions_with_words_are_judged_as_before(index: LocalIndex) -> None:
    # The control: words the documents hold still pass, with or without an emoji beside them.
    for question in ("Can I bring my dog on the ferry?", "🐕 Can I bring my dog on the ferry?"):
        gate = index.retriever.search(question, top_k=5).gate
        assert gate.passed and gate.reason == "", (question, gate.verdict, gate.signals)


def test_a_question_neither_retriever_can_read_is_refused(index: LocalIndex) -> None:
    # "Thank you very much" in Thai: no indexed chunk holds its words, and the encoder
    # reads it as its unknown piece, which lies close to the Thai and Japanese passages.
    gate = index.retriever.search("ขอบคุณมากครับ", top_k=5).gate
    assert not gate.passed and gate.verdict == "refuse", gate.signals
    assert gate.reason == OUT_OF_REACH and gate.signals["unseen"] == 1.0
    note = f"refused locally — the question {OUT_OF_REACH}, so no model call was made."
    assert refusal_note(gate) == note


def test_a_question_in_a_script_the_encoder_lacks_is_judged_when_the_index_holds_its_words(
    index: LocalIndex,
) -> None:
    # The pier sign's own greeting: BM25 reads it, so the gate judges it as any question.
    analysis = index.retriever.search("สวัสดีครับ", top_k=5).analysis
    assert analysis.encoder_blind and analysis.unseen < 1.0 and not analysis.out_of_reach
