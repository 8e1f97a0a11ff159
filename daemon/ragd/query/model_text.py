"""A model server's text made whole: halves of UTF-16 surrogate pairs joined or replaced.

JSON writes a character outside the Basic Multilingual Plane (an emoji, many CJK
extensions) as two escapes, `\\ud83d\\udc36`. A server that streams token by token may
send the two halves in separate events, or only one of them; the SDK hands each event's
text over as a Python str holding a lone surrogate. Such a str cannot be encoded as
UTF-8: the user saw `\\ud83d\\udc36` for the emoji, and every later question of a chat,
which sends that answer back to the model, failed before it was sent. So the text is
mended as it arrives: a high half at the end of a piece waits for the next piece, a pair
becomes its character, and a half without its partner becomes U+FFFD.
"""

from __future__ import annotations

_HIGH = range(0xD800, 0xDC00)  # the first half of a pair


def mended(text: str) -> str:
    """`text` with its surrogate pairs joined and any lone half replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text  # (the usual case: nothing to mend)


class WholeText:
    """Feed a stream's pieces; what comes back holds no half of a surrogate pair."""

    def __init__(self) -> None:
        self._high = ""  # a first half that ended the last piece

    def feed(self, piece: str) -> str:
        text, self._high = self._high + piece, ""
        if text and ord(text[-1]) in _HIGH:
            text, self._high = text[:-1], text[-1]
        return mended(text)

    def flush(self) -> str:
        text, self._high = self._high, ""
        return mended(text)
