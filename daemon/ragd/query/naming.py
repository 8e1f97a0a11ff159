"""Which of the retrieved files a question names, by their file or folder name (pure).

"Under Apache 2.0, …" names `Apache-2.0.txt`; "What is a Combined Work in LGPL version 3?"
names `LGPL-3.txt` and not `LGPL-2.1.txt`; "Which Flask release …" names everything under
`flask/`. Licence texts, change logs and the docs of several projects say the same things
in the same words, so often only the file's name tells them apart, and the keyless
answerer prefers units from a named file.

A path component (a folder, or the file's stem) is named when every one of its words —
split at `/ _ - .` and camelCase, stop words dropped, stemmed as the lexical index stems
them — is among the question's content words, at least one of them not a number. The
question's words are also split where a version follows a name ("GPLv3" → "gpl 3").
Where several files are named, the most specific wins: "LGPL 2.1" names `LGPL-2.1.txt`
(three words) over `LGPL-2.txt` (two).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragd.index.chunk_paths import path_words
from ragd.index.lexical import analyze
from ragd.query.question import STOP_WORDS

# "gplv3" → "gpl 3": a name with its version glued on, with or without a "v".
_NAME_VERSION = re.compile(r"(?<=[a-z])v?(?=\d)")


def question_terms(words: Iterable[str]) -> frozenset[str]:
    """The question's content words as a path's words are compared with them."""
    split = " ".join(_NAME_VERSION.sub(" ", w.lower()) for w in words)
    return frozenset(analyze(split))


def _components(source: str) -> list[frozenset[str]]:
    """Each folder's and the file stem's words, stemmed."""
    parts = [p for p in source.split("/") if p]
    out = []
    for i, part in enumerate(parts):
        words = path_words("", part) if i == len(parts) - 1 else path_words("", part + "/")
        terms = frozenset(
            analyze(" ".join(w for w in words.split() if w.lower() not in STOP_WORDS))
        )
        if terms:
            out.append(terms)
    return out


def named_sources(terms: frozenset[str], sources: Iterable[str]) -> dict[str, frozenset[str]]:
    """The sources the question names most specifically (none when it names none), each
    with the words by which it names them: those of its most specific named components,
    every one of them when several are as specific ("What does the changelog in the docs
    say …?" names `docs/changelog.md` by "docs" and by "changelog"; review65: the folder's
    word alone was taken, and a word every file under docs/ holds weighed the boost down).
    A source's strength is how many words of its most specific named component the
    question holds; only the strongest sources are named."""
    strongest: dict[str, list[frozenset[str]]] = {}
    top = 0
    for source in set(sources):
        named = _named_components(terms, source)
        strength = max(map(len, named), default=0)
        if strength == 0 or strength < top:
            continue
        if strength > top:
            strongest.clear()
            top = strength
        strongest[source] = [c for c in named if len(c) == top]
    return {source: frozenset().union(*named) for source, named in strongest.items()}


def _named_components(terms: frozenset[str], source: str) -> list[frozenset[str]]:
    """The components of `source` every word of which the question holds, not only
    numbers."""
    return [c for c in _components(source) if c <= terms and any(not t.isdigit() for t in c)]


# A character of a path as a question writes one ("docs/templates.rst").
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_./-")


def written_out(question: str, source: str) -> bool:
    """The question writes the file's name with its extension ("What does templates.rst say
    about loops?"), or its path, a tail of it or a longer path ending in it ("docs/templates.rst",
    "~/notes/docs/templates.rst"), as a whole token: it
    names that file whatever its words weigh (review65: the named-file boost scaled by a
    common stem's IDF took this too). The name is found as a literal and each find's path
    read back at most the source's length (linear); a name without an extension is not
    looked for."""
    path = source.lower()
    name = path.rsplit("/", 1)[-1]
    if "." not in name.strip("."):
        return False
    text = question.lower()
    for found in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", text):
        start = found.start()
        while start > 0 and found.start() - start < len(path) and text[start - 1] in _PATH_CHARS:
            start -= 1
        written = text[start : found.end()].lstrip("./")
        if path == written or path.endswith("/" + written) or written.endswith("/" + path):
            return True
    return False
