"""`rag status` on a gate floor not yet learned for the index as it is: what it waits for."""

from __future__ import annotations

from ragcli.render import floor_pending


def test_a_floor_not_learned_says_what_it_waits_for() -> None:
    default = {"value": 0.38, "origin": "default", "current": False}
    assert floor_pending(default).endswith("the default 0.380 until indexing settles")
    down = default | {"waiting_for_vectors": True}
    assert floor_pending(down).endswith("until the vector store answers")
    stale = {"value": 0.412, "origin": "learned", "current": False}
    assert floor_pending(stale) == (
        "0.412, learned before the latest changes; re-learning once indexing settles"
    )
    assert "vector store" in floor_pending(stale | {"waiting_for_vectors": True})


def test_an_idle_daemon_learning_its_floor_says_so_and_how_to_wait() -> None:
    # Beside `state idle`, "until indexing settles" read as never; the daemon is learning it.
    default = {"value": 0.38, "origin": "default", "current": False}
    idle = floor_pending(default, idle=True)
    assert "indexing settles" not in idle and "`rag status --wait` waits for it" in idle
    assert idle.startswith("not learned yet for this index: questions are judged by the default")
    stale = {"value": 0.412, "origin": "learned", "current": False}
    assert floor_pending(stale, idle=True).startswith("0.412, learned before the latest changes")
    assert "re-learning now" in floor_pending(stale, idle=True)
    # With the vector store down it is not learned, idle or not.
    down = floor_pending(default | {"waiting_for_vectors": True}, idle=True)
    assert down.endswith("until the vector store answers")
