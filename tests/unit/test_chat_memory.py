from __future__ import annotations

from ragd.query.chat_memory import ChatMemory, turn_tokens
from ragd.query.types import ChatTurn, RetrievedChunk


def chunk(text: str) -> RetrievedChunk:
    return RetrievedChunk(
        "id", "a.md", "H", text, support=0.5, fused=0.1, vector_rank=1, bm25_rank=None
    )


def turn(n: int, chunk_chars: int = 0) -> ChatTurn:
    chunks = [chunk("x" * chunk_chars)] if chunk_chars else []
    return ChatTurn(question=f"q{n}", answer=f"a{n}", chunks=chunks)


def test_turn_tokens_count_question_answer_and_chunk_texts() -> None:
    assert turn_tokens(ChatTurn("abcd", "efgh", [chunk("ijkl"), chunk("mnop")])) == 4
    assert turn_tokens(ChatTurn("abcd", "e", [])) == 2  # 5 chars → rounded up


def test_keeps_turns_in_order_oldest_first() -> None:
    memory = ChatMemory()
    for n in range(3):
        memory.add(turn(n))
    assert [t.question for t in memory.turns()] == ["q0", "q1", "q2"]


def test_keeps_only_the_last_ten_turns() -> None:
    memory = ChatMemory()
    for n in range(13):
        memory.add(turn(n))
    assert len(memory) == 10
    assert [t.question for t in memory.turns()] == [f"q{n}" for n in range(3, 13)]


def test_drops_oldest_turns_to_stay_within_the_token_budget() -> None:
    memory = ChatMemory()
    for n in range(4):
        memory.add(turn(n, chunk_chars=15_000))  # ≈ 3,750 tokens each
    assert [t.question for t in memory.turns()] == ["q1", "q2", "q3"]
    assert memory.tokens <= 12_000
    assert memory.tokens == sum(turn_tokens(t) for t in memory.turns())


def test_a_turn_larger_than_the_whole_budget_is_not_kept() -> None:
    memory = ChatMemory(max_tokens=100)
    memory.add(turn(0))
    memory.add(turn(1, chunk_chars=1000))
    assert memory.turns() == []
    assert memory.tokens == 0


def test_reset_forgets_everything() -> None:
    memory = ChatMemory()
    memory.add(turn(0, chunk_chars=40))
    memory.reset()
    assert memory.turns() == []
    assert memory.tokens == 0
    memory.add(turn(1))
    assert [t.question for t in memory.turns()] == ["q1"]


def test_turns_returns_a_copy() -> None:
    memory = ChatMemory()
    memory.add(turn(0))
    memory.turns().clear()
    assert len(memory.turns()) == 1


def test_turns_are_kept_only_while_the_scope_stays_the_same() -> None:
    memory = ChatMemory()
    memory.within([])
    memory.add(turn(0))
    memory.within([])
    assert len(memory) == 1
    memory.within(["rootkey:kettles"])  # a turn under another scope
    assert memory.turns() == [] and memory.tokens == 0
    memory.add(turn(1))
    memory.within(["rootkey:kettles"])
    assert [t.question for t in memory.turns()] == ["q1"]


def test_a_turn_asked_under_a_scope_the_chat_has_left_is_not_kept() -> None:
    """Two questions of one session answered at once (a pool of threads; the session id
    is the client's): one scoped to `a` is being answered when one scoped to `b` resets
    the memory. The first turn, kept, would show `b`'s next question `a`'s passages."""
    memory = ChatMemory()
    memory.within(["a"])  # the first question starts ...
    memory.within(["b"])  # ... a second, scoped elsewhere, starts meanwhile
    memory.add(turn(2), ["b"])
    memory.add(turn(1), ["a"])  # the first one's answer comes last
    assert [t.question for t in memory.turns()] == ["q2"]
