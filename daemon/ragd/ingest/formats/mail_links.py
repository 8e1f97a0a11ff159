"""The address of a `mailto:` link, kept in the text when the link's text does not show it.

Readers keep a link's text and drop its target: a URL is where the text leads, not what it
says. A `mailto:` target is different: "report it by [email](mailto:security@…)" is read
by someone who wants the address, and with only "report it by email" indexed, the question
"what address do I write to for security reports?" could not be answered. So the HTML,
reST, Word and OpenDocument readers write such a link as its text and the address after
it, "email (security@example.org)"; a link whose text is the address already stays as it
is.
Markdown is read as written, so its links keep their targets anyway.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

SCHEME = "mailto:"


def unshown_address(target: str | None, text: str) -> str | None:
    """The address(es) a `mailto:` `target` leads to when `text` does not hold them, else
    None (another kind of link, no address, or the address is the text already)."""
    if target is None:
        return None
    target = target.strip()
    if target[: len(SCHEME)].lower() != SCHEME:
        return None
    # `mailto:a@b.org?subject=…`: the address is before the query, %-encoded like a URL
    address = " ".join(unquote(target[len(SCHEME) :].partition("?")[0]).split())
    if not address or address.lower() in " ".join(text.split()).lower():
        return None
    return address


_WORD_GOES_ON = re.compile(r"[^\W_]*")


def with_address(following: str, address: str) -> str:
    """The text that follows the link, with " (address)" at its start, or after the word
    the link's text is part of: a language written without spaces runs on past a link
    ("作者に直接<a href="mailto:…">メール</a>するか"), and the address put inside
    "メールするか" would cut a word the page shows whole in two."""
    end = _WORD_GOES_ON.match(following).end()  # type: ignore[union-attr]
    return f"{following[:end]} ({address}){following[end:]}"
