"""The turns a chat remembers: the newest ones that fit a turn count and a token budget.

Each remembered turn is re-sent with its own documents, so the budget counts the
question, the answer and the texts of the chunks it was answered from. When either limit
is exceeded the oldest turns go first; a single turn larger than the whole budget is not
kept at all (the limit is a promise about the size of the next request).
"""

from __future__ import annotations

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
        self.scope: list[str] = []  # the `--in` scope keys the kept turns were asked under
        # The last question that named its own subject: a follow-up that leans on it ("and
        # how do I clear it?") is searched together with it (query/follow_up.py).
        self.subject = ""

    def add(self, turn: ChatTurn) -> None:
        cost = turn_tokens(turn)
        self._turns.append((turn, cost))
        self._tokens += cost
        while self._turns and (len(self._turns) > self.max_turns or self._tokens > self.max_tokens):
            _, dropped = self._turns.popleft()
            self._tokens -= dropped

    def within(self, scope: list[str]) -> None:
        """Keep the turns only while the scope stays the same: a turn asked under another
        scope showed the model passages a question scoped elsewhere must not see."""
        if scope != self.scope:
            self.reset()
            self.scope = list(scope)

    def turns(self) -> list[ChatTurn]:
        """Oldest first, as they go into the request."""
        return [turn for turn, _ in self._turns]

    @property
    def tokens(self) -> int:
        return self._tokens

    def reset(self) -> None:
        self._turns.clear()
        self._tokens = 0
        self.subject = ""

    def __len__(self) -> int:
        return len(self._turns)
