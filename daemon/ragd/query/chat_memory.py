"""The turns a chat remembers: the newest ones that fit a turn count and a token budget.

Each remembered turn is re-sent with its own documents, so the budget counts the
question, the answer and the texts of the chunks it was answered from. When either limit
is exceeded the oldest turns go first; a single turn larger than the whole budget is not
kept at all (the limit is a promise about the size of the next request).

Two questions of one session can be answered at once: the daemon answers on a pool of
threads (`serve/server.py`), and a session id is whatever the client sends (`rag chat`
asks one question at a time, another client need not). So every step on a memory holds
its lock, and a turn is kept only under the scope it was asked in: a question scoped
elsewhere that reset the memory meanwhile must not find the other scope's passages in
it (`add`).
"""

from __future__ import annotations

import threading
from collections import deque

from ragd.query.prompting import estimate_tokens
from ragd.query.types import ChatTurn

DEFAULT_MAX_TURNS = 10
DEFAULT_MAX_TOKENS = 12_000


def turn_tokens(turn: ChatTurn) -> int:
    texts = [turn.question, turn.answer, *(chunk.text for chunk in turn.chunks)]
    return estimate_tokens("".join(texts))


class ChatMemory:
    def __init__(
        self, max_turns: int = DEFAULT_MAX_TURNS, max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self._turns: deque[tuple[ChatTurn, int]] = deque()
        self._tokens = 0
        self._lock = threading.Lock()
        self.scope: list[str] = []  # the `--in` scope keys the kept turns were asked under
        # The last question that named its own subject: a follow-up that leans on it ("and
        # how do I clear it?") is searched together with it (query/follow_up.py).
        self.subject = ""

    def add(self, turn: ChatTurn, scope: list[str] | None = None) -> None:
        """Keep `turn`, asked under `scope` (None: the memory's own), unless the memory
        has moved to another scope since (`within`, for a question asked meanwhile)."""
        cost = turn_tokens(turn)
        with self._lock:
            if scope is not None and scope != self.scope:
                return
            self._turns.append((turn, cost))
            self._tokens += cost
            while self._turns and (
                len(self._turns) > self.max_turns or self._tokens > self.max_tokens
            ):
                _, dropped = self._turns.popleft()
                self._tokens -= dropped

    def within(self, scope: list[str]) -> None:
        """Keep the turns only while the scope stays the same: a turn asked under another
        scope showed the model passages a question scoped elsewhere must not see."""
        with self._lock:
            if scope != self.scope:
                self._reset()
                self.scope = list(scope)

    def turns(self) -> list[ChatTurn]:
        """Oldest first, as they go into the request."""
        with self._lock:
            return [turn for turn, _ in self._turns]

    @property
    def tokens(self) -> int:
        with self._lock:
            return self._tokens

    def reset(self) -> None:
        with self._lock:
            self._reset()

    def _reset(self) -> None:
        self._turns.clear()
        self._tokens = 0
        self.subject = ""

    def __len__(self) -> int:
        with self._lock:
            return len(self._turns)
