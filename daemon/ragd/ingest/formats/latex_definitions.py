"""A LaTeX document's own macros that stand for words, for `formats.latex` to show where
they are used.

Papers name their subject through a macro: emcee's paper defines
``\\newcommand{\\thisplain}{emcee}`` and ``\\newcommand{\\this}{\\project{\\thisplain}}``
and writes ``\\this`` 22 times, its title ``\\this: The MCMC Hammer`` among them. Dropped
as an unknown command, every one of them left a hole ("The algorithm behind has several
advantages", a title ": The MCMC Hammer"), and the software's name was in no chunk of
the paper about it.

Only a definition that takes no argument and whose body is words is kept: its body's
words are worked out once, when it is defined, with the macros defined before it shown
by their own words (so nothing is expanded twice and no definition can call itself), and
a body holding anything else (an argument `#1`, math, a `\\section`, a key or a file
name, a table's `&`) is no definition kept here. Bounded: a definition's words are at
most MAX_WORDS_CHARS characters, a document keeps at most MAX_DEFINITIONS of them, and
what their uses add to its text is at most MAX_SHOWN_CHARS (later uses show nothing, as
before): a file of ten million uses costs no more than one of a few.
"""

from __future__ import annotations

import re

from ragd.ingest.formats import latex_macros as known

MAX_DEFINITIONS = 1000
MAX_BODY_CHARS = 400  # a longer body is a passage, not a name
MAX_WORDS_CHARS = 80
MAX_SHOWN_CHARS = 1_000_000

_TOKEN = re.compile(r"\\([A-Za-z]+)\s*|\\(.)|[{}]|~|[$#^_&%]|[^\\{}~$#^_&%]+", re.DOTALL)
# Commands whose arguments are not the words a reader sees (a key, a file name, a
# setting) or that make structure: a body holding one is not words.
_NOT_WORDS = frozenset(
    {*known.SKIPPED, *known.SECTIONS, *known.INPUTS, *known.CITATIONS, *known.DEFINITIONS}
    | {"begin", "end", "item", "bibitem", "title", "url", "verb", "par", "ensuremath"}
    | {"operatorname", "frac", "sqrt", "csname", "expandafter", "relax", "if", "fi", "else"}
)


class Definitions:
    """The words of the argument-less macros a document has defined so far."""

    def __init__(self) -> None:
        self._words: dict[str, str] = {}
        self._shown = 0

    def define(self, name: str, arguments: str | None, body: str, replace: bool = True) -> None:
        """Record `\\name` (as `\\newcommand` names it: `\\name` or `{\\name}` read as
        `\\name`) when it takes no argument and `body` is words; `replace=False` is
        `\\providecommand`, which leaves a definition already there."""
        name = name.strip()
        if not (name.startswith("\\") and name[1:].isalpha()):
            return
        name = name[1:]
        if (arguments or "0").strip() != "0":
            return
        if not replace and name in self._words:
            return
        words = self._body_words(body)
        if words is None:
            self._words.pop(name, None)  # redefined as something that is not words
        elif name in self._words or len(self._words) < MAX_DEFINITIONS:
            self._words[name] = words

    def shown(self, name: str) -> str | None:
        """The words `\\name` stands for where it is used, or None: not one of the
        document's word macros, or the document has shown its share of them."""
        words = self._words.get(name)
        if words is None or self._shown + len(words) > MAX_SHOWN_CHARS:
            return None
        self._shown += len(words)
        return words

    def _body_words(self, body: str) -> str | None:
        if len(body) > MAX_BODY_CHARS:
            return None
        parts: list[str] = []
        expanded = 0  # what earlier definitions' words add: each shows whole in the result
        for match in _TOKEN.finditer(body):
            word, symbol, token = match.group(1), match.group(2), match.group()
            if word is not None:
                if word in self._words:
                    expanded += len(self._words[word])
                    if expanded > MAX_WORDS_CHARS:
                        return None  # too long already: a body of 200 uses is not joined
                    parts.append(self._words[word])
                elif word in known.WORDS:
                    parts.append(known.WORDS[word])
                elif word in _NOT_WORDS or word.startswith("math"):
                    return None
                # any other command (\project, \textsf, \emph) shows its argument's words
            elif symbol is not None:
                parts.append(known.SYMBOLS.get(symbol, ""))
            elif token == "~":
                parts.append(" ")
            elif token in "$#^_&%":
                return None
            elif token not in "{}":
                parts.append(token)
        words = " ".join("".join(parts).split())
        if not any(c.isalnum() for c in words) or len(words) > MAX_WORDS_CHARS:
            return None
        return words
