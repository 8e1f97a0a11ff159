"""A reading-lite check for questions that ask for a quantity: is there one to quote?

A hard negative names only things the documents have and asks for something they lack:
"How much does a Chroma Cloud subscription cost per month?" retrieves pages about Chroma
Cloud, with a high support, and none of them holds a price. When a question's wording asks
for a kind of value — *how many* (a count), *how much* (an amount), *how long / how often*
(a duration), *which version*, *what port*, *what year* — a passage that answers it must
hold a value of that kind **near the question's own key terms**: in the same paragraph,
list item or table row as two of them (or its only one), where the heading a passage sits
under counts as part of each of its paragraphs. If no retrieved passage does, the gate
refuses.

Values are recognised by their shape only (digits, number words, units, versions), never by
meaning, so the check can only ever *refuse* a question that asks for a value; every other
question passes it untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

# What the question asks for, from its wording (first match wins: "which version" before
# a bare "which"). Checked on the lower-cased question.
_ASKS = (
    ("version", re.compile(r"\b(which|what) (\w+ )?(version|release)s?\b(?! \d| v\d)")),
    ("port", re.compile(r"\b(which|what) (\w+ )?ports?\b")),
    ("date", re.compile(r"\b(what|which|in what) (year|date|month|day)\b")),
    ("duration", re.compile(r"\bhow (long|often)\b")),
    ("count", re.compile(r"\bhow many\b|\b(maximum|minimum|default) number of\b")),
    ("amount", re.compile(r"\bhow much\b|\bhow (fast|big|large|heavy|far)\b")),
)
# Words that say which kind of value is wanted; they are not the question's subject.
_TYPE_WORDS = frozenset(
    "version versions release releases port ports year years date month day long often "
    "many much number fast big large heavy far maximum minimum default".split()
)

_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|single|double|once|twice|dozen"
)
# A number standing on its own: not a piece of an identifier, path, option or version.
_NUMBER = rf"(?<![\w.@{{}}/-])(?:\d+(?:[.,]\d+)?|{_NUMBER_WORDS})(?![\w}}]|\.\d)"
_UNIT = (
    r"(?:%|percent|per ?cent|[kmgt]i?b|[kmgt]bytes?|bytes?|bits?|[kmgt]?bit/s|mb/s|"
    r"times|x|kg|g|lb|m|km|miles?|knots?|°c|degrees?)"
)
_TIME_UNIT = (
    r"(?:ms|milliseconds?|s|secs?|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?|"
    r"months?|years?|nights?)"
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
_EVIDENCE = {
    "count": re.compile(_NUMBER, re.I),
    "amount": re.compile(
        rf"[£$€¥]\s?\d|{_NUMBER}\s?{_UNIT}\b|\b(?:free of charge|no charge|free)\b", re.I
    ),
    "duration": re.compile(
        rf"{_NUMBER}\s?-?{_TIME_UNIT}\b|\b(?:daily|weekly|monthly|yearly|annually|hourly|"
        rf"nightly|every|each (?:day|week|month|year))\b",
        re.I,
    ),
    "date": re.compile(rf"\b(?:19|20)\d\d\b|\b\d{{1,2}} {_MONTH}\b|\b{_MONTH} \d{{1,2}}\b", re.I),
    "version": re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*[a-z]?\d*\b|\bversion \d", re.I),
    "port": re.compile(r"(?<![\w.:/-])\d{2,5}(?!\w|\.\d)"),
}
# Paragraphs, list items and table rows: the units "near" is measured in.
_UNIT_SPLIT = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•|]|\d+\.)\s)")


# A verb of control before "how much / many / long / often" asks how to control the
# thing, not for its value: "limit how much bandwidth apt uses" is answered by a setting
# (`Acquire::http::Dl-Limit`), "change how often it sends pings" by `ping=10`; read as asking
# for an amount, the gate counted the answer type missing (nu21 a04: unsure, p 0.29).
_CONTROLLED = re.compile(
    r"\b(?:limit|cap|restrict|reduce|control|throttle|lower|raise|increase|decrease|change|"
    r"adjust|set|configure|tune)\s+how\s+(?:much|many|long|often|fast|big|large|far)\b"
)


def asked_type(question: str) -> str | None:
    """The kind of value the question asks for, or None when it asks for none."""
    text = _CONTROLLED.sub(" ", question.lower())
    for kind, pattern in _ASKS:
        if pattern.search(text):
            return kind
    return None


def key_terms(question_terms: Iterable[str], analyze: Callable[[str], list[str]]) -> set[str]:
    """The question's content terms minus the words that only say which value is wanted."""
    type_terms = {t for w in _TYPE_WORDS for t in analyze(w)}
    return {t for t in question_terms if t not in type_terms}


def holds_value(
    kind: str,
    terms: set[str],
    heading: str,
    text: str,
    analyze: Callable[[str], list[str]],
) -> bool:
    """Does this passage hold a value of `kind` in a unit that names one of `terms`?"""
    evidence = _EVIDENCE[kind]
    heading_terms = set(analyze(heading))
    heading_value = evidence.search(heading) is not None  # "Release v3.1.4 > Fixes"
    needed = min(2, len(terms))
    for unit in _UNIT_SPLIT.split(text):
        has_value = heading_value or evidence.search(unit) is not None
        if has_value and len(terms & (heading_terms | set(analyze(unit)))) >= needed:
            return True
    return False
