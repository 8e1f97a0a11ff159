"""Questions that ask for a list, and the units that give one (pure).

"Which ISO 8601 formats does it accept?", "What values can Rules-Requires-Root take?",
"Which preprocessors does man-db run?" are answered by an enumeration of the thing named
last before the verb (*formats*, *values*, *preprocessors*), and documents introduce
such an enumeration with a line naming it: "Supported date formats are:" and its items,
often inside a docstring that the unit cutter reads as code. Such a unit barely
resembles the question (a run of ``YYYY-MM`` items), so the answerer boosts it as it
boosts a number for "how many …?" (extractive.py's answer type).
"""

from __future__ import annotations

import re

from ragd.query.units import BULLETS

# "which|what" + up to three words + a plural noun + the verb that starts the rest of the
# question: the noun is what is listed. Every run of blanks sits between fixed words, so
# the match is linear; a noun must be at least four letters ending in "s" ("formats",
# "values"), so "what does … do" and "what is" never ask for a list.
_ASKS_FOR_LIST = re.compile(
    r"\b(?:which|what)\s+(?:[\w.-]{1,40}\s+){0,3}?([a-z]{3,40}s)\s+"
    r"(?:are|does|do|can|could|is|must|should|will|did|have|has)\b",
    re.IGNORECASE,
)
# "What are the steps to move a crate to the 2021 edition?": "what|which are" + up to two
# words + the plural noun, which then needs no verb after it (the question's verb came
# first). Blanks between fixed words again: linear. The edition guide's "Briefly, the steps
# to update to the next edition are:" and its three items then get the answer type's boost
# (replay: nu59b half facts 6 -> 7 of 10; kr61 and kr62val no answer changed).
_ASKS_WHAT_ARE = re.compile(
    r"\b(?:which|what)\s+(?:are|were)\s+(?:the\s+)?(?:[\w.-]{1,40}\s+){0,2}?([a-z]{3,40}s)\b",
    re.IGNORECASE,
)
_ITEM = re.compile(rf"^\s*(?:[{re.escape(BULLETS)}]|\d{{1,3}}[.)])\s+\S")
_WORD = re.compile(r"[^\W_]+")
STEM_CHARS = 5  # "format"/"formats", "preprocessor"/"preprocessors" share a prefix


def listed_noun(question: str) -> str | None:
    """The stem of what the question asks to be listed ("forma" for "which ISO 8601 formats
    does it accept?"), or None when it does not ask for a list."""
    match = _ASKS_FOR_LIST.search(question) or _ASKS_WHAT_ARE.search(question)
    if match is None:
        return None
    noun = match.group(1).lower()
    if noun.endswith(("ss", "us", "is")):  # "what address", "exit status", "analysis"
        return None
    return noun[:STEM_CHARS]


def introduces(line: str, noun: str) -> bool:
    """A lead-in naming the listed thing: "Supported date formats are:"."""
    bare = line.strip()
    if not bare.endswith(":") or _ITEM.match(bare):
        return False
    return any(word.lower().startswith(noun) for word in _WORD.findall(bare))


def enumerates(text: str, noun: str) -> bool:
    """The unit holds a lead-in naming `noun` and at least two items after it."""
    items_after = 0  # read bottom-up, so each line is looked at once
    for line in reversed(text.splitlines()):
        if _ITEM.match(line):
            items_after += 1
        elif items_after >= 2 and introduces(line, noun):
            return True
    return False


_JOINERS = frozenset({"and", "or"})
_TOKEN_EDGES = "`'\"()[],.;:"


def _is_name(token: str) -> bool:
    """A token written as a name: code in backticks, or a capital past its first letter,
    a digit, or a sign of code in it ("SIGKILL", "LC_ALL", "0", "--force", "Restart=")."""
    bare = token.strip(_TOKEN_EDGES)
    if not bare:
        return False
    if token.lstrip("(\"'").startswith("`"):
        return True
    return (
        any(ch.isupper() or ch.isdigit() for ch in bare[1:])
        or bare[0].isdigit()
        or any(sign in bare for sign in "_=-")
    )


def names_inline(text: str, noun: str) -> bool:
    """A sentence that lists the asked-for things by name after naming them: "The signals
    SIGKILL and SIGSTOP cannot be caught", "the formats YAML, JSON or TOML" — the noun, then
    two or more names joined by commas, "and" or "or". One pass over the words."""
    words = text.split()
    at = 0
    while at < len(words):
        if not words[at].strip(_TOKEN_EDGES).lower().startswith(noun):
            at += 1
            continue
        names, joined, after = 0, False, at + 1
        while after < len(words):
            word = words[after]
            if word.lower() in _JOINERS and names:
                joined = True
            elif _is_name(word):
                names += 1
                joined = joined or word.endswith(",")
            else:
                break
            after += 1
        if names >= 2 and joined:
            return True
        at = after
    return False
