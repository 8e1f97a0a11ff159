"""The one parser of the `Confidence: high|medium|low` line a model ends its answer with.

The prompt asks for the line (prompting.py); models decorate it (`**Confidence:** Medium`,
`_Confidence_: high`, `> Confidence: low`). The last such line decides. When it ends the
text it is cut off, and the Answer says the text stated a confidence, so the client does not
print a second one after a streamed answer that already showed it.
"""

from __future__ import annotations

import re

from ragd.query.types import Confidence

_LINE = re.compile(
    # The lead-in stays on its line ([^\S\n]: a blank but not a line break): spanning
    # lines, every line start of a run of blank lines would rescan the rest of the run.
    r"^(?:[^\S\n]|[*_`>#-])*confidence[\s*_`]*:[\s*_`]*(high|medium|low)\b[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)


def split_confidence(text: str) -> tuple[str, Confidence | None]:
    """(the text without a closing confidence line, the confidence it states or None)."""
    matches = list(_LINE.finditer(text))
    if not matches:
        return text.strip(), None
    last = matches[-1]
    word = last.group(1).lower()
    value: Confidence = "high" if word == "high" else "medium" if word == "medium" else "low"
    if text[last.end() :].strip():
        return text.strip(), value  # stated mid-text: the text stays as written
    return text[: last.start()].strip(), value


def parse_confidence(text: str) -> Confidence:
    """The confidence the text states; "low" when it states none."""
    return split_confidence(text)[1] or "low"
